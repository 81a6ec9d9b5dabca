//===- ModelSummary.cpp - what a training graph holds ---------------------===//

#include "amp/Dialect/Amp/Analysis/ModelSummary.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

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

static int64_t getByteWidth(Type elementType) {
  return (elementType.getIntOrFloatBitWidth() + 7) / 8;
}

FunctionSummary amp::summarizeFunction(func::FuncOp func) {
  FunctionSummary summary;
  summary.name = func.getSymName().str();
  for (BlockArgument arg : func.getArguments()) {
    if (!func.getArgAttr(arg.getArgNumber(), AmpDialect::kParamAttrName)) {
      ++summary.numInputs;
      continue;
    }
    auto type = cast<RankedTensorType>(arg.getType());
    ++summary.numParameters;
    summary.numParameterElements += type.getNumElements();
    summary.parameterBytes +=
        type.getNumElements() * getByteWidth(type.getElementType());
  }
  func.walk([&](Operation *op) {
    if (op == func.getOperation() || op->hasTrait<OpTrait::IsTerminator>())
      return;
    ++summary.numOps;
    ++summary.opsByFamily[static_cast<size_t>(getOpFamily(op))];
    ++summary.opsByName[op->getName().getStringRef().str()];
    if (auto counted = dyn_cast<FlopCountOpInterface>(op))
      summary.forwardFlops += counted.getForwardFlops();
  });
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
    os << llvm::format("%.2f %si%s", scaled,
                       index == 1 ? "K" : prefixes[index], unit.str().c_str());
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
  os << "  inputs: " << summary.numInputs << "\n";
  os << "  forward FLOPs: " << summary.forwardFlops << " (";
  printScaled(os, summary.forwardFlops, "FLOP");
  os << ")\n";
}
