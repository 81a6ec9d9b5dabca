//===- ModelSummary.cpp - what a training graph holds ---------------------===//

#include "amp/Dialect/Amp/Analysis/ModelSummary.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/IR/StepArguments.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::amp;

StringRef amp::stringifyOpFamily(OpFamily family) {
  switch (family) {
  case OpFamily::Contraction:
    return "contraction";
  case OpFamily::Elementwise:
    return "elementwise";
  case OpFamily::Normalization:
    return "normalization";
  case OpFamily::Reduction:
    return "reduction";
  case OpFamily::Loss:
    return "loss";
  case OpFamily::Shape:
    return "shape";
  case OpFamily::Data:
    return "data";
  case OpFamily::Other:
    return "other";
  }
  llvm_unreachable("unknown op family");
}

OpFamily amp::getOpFamily(Operation *op) {
  namespace trait = OpTrait::amp;
  if (op->hasTrait<trait::ContractionFamily>())
    return OpFamily::Contraction;
  if (op->hasTrait<trait::ElementwiseFamily>())
    return OpFamily::Elementwise;
  if (op->hasTrait<trait::NormalizationFamily>())
    return OpFamily::Normalization;
  if (op->hasTrait<trait::ReductionFamily>())
    return OpFamily::Reduction;
  if (op->hasTrait<trait::LossFamily>())
    return OpFamily::Loss;
  if (op->hasTrait<trait::ShapeFamily>())
    return OpFamily::Shape;
  if (op->hasTrait<trait::DataFamily>())
    return OpFamily::Data;
  return OpFamily::Other;
}

FailureOr<FunctionSummary> amp::summarizeFunction(func::FuncOp func) {
  FunctionSummary summary;
  summary.name = func.getSymName().str();
  auto tooLarge = [](Location loc, const Twine &what) {
    emitError(loc) << "amp-model-summary: " << what << " do not fit in 64 bits";
    return failure();
  };
  for (BlockArgument arg : func.getArguments()) {
    ArgumentKind kind = getArgumentKind(func, arg.getArgNumber());
    if (kind == ArgumentKind::buffer) {
      // amp.buffer verified a static shape whose bytes fit; their sum may
      // not.
      ++summary.numBuffers;
      if (llvm::AddOverflow(
              summary.numBufferElements,
              cast<RankedTensorType>(arg.getType()).getNumElements(),
              summary.numBufferElements))
        return tooLarge(arg.getLoc(), "the buffer counts of @" + summary.name);
      continue;
    }
    if (kind == ArgumentKind::rng) {
      summary.hasGenerator = true;
      continue;
    }
    if (kind != ArgumentKind::param) {
      ++summary.numInputs;
      continue;
    }
    // amp.param verified that the argument's bytes fit; their sum may not.
    auto type = cast<RankedTensorType>(arg.getType());
    ++summary.numParameters;
    std::optional<int64_t> bytes = getCheckedByteSize(type);
    if (!bytes ||
        llvm::AddOverflow(summary.numParameterElements, type.getNumElements(),
                          summary.numParameterElements) ||
        llvm::AddOverflow(summary.parameterBytes, *bytes,
                          summary.parameterBytes))
      return tooLarge(arg.getLoc(), "the parameter counts of @" + summary.name);
  }
  WalkResult walk = func.walk([&](Operation *op) {
    if (op == func.getOperation() || op->hasTrait<OpTrait::IsTerminator>())
      return WalkResult::advance();
    ++summary.numOps;
    ++summary.opsByFamily[static_cast<size_t>(getOpFamily(op))];
    ++summary.opsByName[op->getName().getStringRef().str()];
    if (auto dropout = dyn_cast<DropoutOp>(op))
      summary.numTrainingDropouts += dropout.getTraining() ? 1 : 0;
    auto counted = dyn_cast<FlopCountOpInterface>(op);
    if (!counted)
      return WalkResult::advance();
    std::optional<int64_t> flops = counted.getForwardFlops();
    if (!flops ||
        llvm::AddOverflow(summary.forwardFlops, *flops, summary.forwardFlops)) {
      (void)tooLarge(op->getLoc(),
                     flops ? "the forward FLOPs of @" + summary.name
                           : std::string("the forward FLOPs of this op"));
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return summary;
}

/// 1234567 -> "1.23 M", for the figures people read at a glance.
static void printScaled(raw_ostream &os, int64_t value, StringRef unit,
                        double base = 1000.0) {
  static const char *const prefixes[] = {"", "k", "M", "G", "T", "P"};
  double scaled = static_cast<double>(value);
  size_t index = 0;
  while (scaled >= base && index + 1 < std::size(prefixes)) {
    scaled /= base;
    ++index;
  }
  if (base == 1024.0 && index > 0)
    os << llvm::format("%.2f %si%s", scaled, index == 1 ? "K" : prefixes[index],
                       unit.str().c_str());
  else
    os << llvm::format("%.2f %s%s", scaled, prefixes[index],
                       unit.str().c_str());
}

void amp::printFunctionSummary(const FunctionSummary &summary,
                               raw_ostream &os) {
  os << "function @" << summary.name << "\n";
  os << "  ops: " << summary.numOps;
  bool first = true;
  for (size_t i = 0; i < kNumOpFamilies; ++i) {
    if (summary.opsByFamily[i] == 0)
      continue;
    os << (first ? " (" : ", ") << stringifyOpFamily(static_cast<OpFamily>(i))
       << " " << summary.opsByFamily[i];
    first = false;
  }
  os << (first ? "\n" : ")\n");
  os << "  by name:";
  for (const auto &[name, count] : summary.opsByName)
    os << " " << name << "=" << count;
  os << "\n";
  os << "  parameters: " << summary.numParameters << " tensors, "
     << summary.numParameterElements << " elements (";
  printScaled(os, summary.parameterBytes, "B", 1024.0);
  os << ")\n";
  if (summary.numBuffers)
    os << "  buffers: " << summary.numBuffers << " tensors, "
       << summary.numBufferElements << " elements\n";
  os << "  inputs: " << summary.numInputs << "\n";
  if (summary.hasGenerator || summary.numTrainingDropouts)
    os << "  random: " << summary.numTrainingDropouts << " training dropouts, "
       << (summary.hasGenerator ? "a generator argument" : "no generator")
       << "\n";
  os << "  forward FLOPs: " << summary.forwardFlops << " (";
  printScaled(os, summary.forwardFlops, "FLOP");
  os << ")\n";
}
