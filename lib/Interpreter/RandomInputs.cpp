//===- RandomInputs.cpp - seeded inputs for amp-run -----------------------===//

#include "amp/Interpreter/RandomInputs.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/IR/StepArguments.h"
#include "amp_runtime/random.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::interp;

std::optional<int64_t> interp::inferIndexBound(Value value) {
  std::optional<int64_t> bound;
  auto tighten = [&](int64_t b) { bound = bound ? std::min(*bound, b) : b; };
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (OpOperand &use : current.getUses()) {
      Operation *user = use.getOwner();
      if (!visited.insert(user).second)
        continue;
      if (auto embedding = dyn_cast<EmbeddingOp>(user)) {
        if (use.getOperandNumber() == 1)
          tighten(cast<RankedTensorType>(embedding.getTable().getType())
                      .getDimSize(0));
      } else if (auto loss = dyn_cast<CrossEntropyOp>(user)) {
        if (use.getOperandNumber() == 1)
          tighten(cast<RankedTensorType>(loss.getLogits().getType())
                      .getShape()
                      .back());
      } else if (user->hasTrait<OpTrait::amp::ShapeFamily>()) {
        // Ids keep their meaning through reshapes, slices and the like.
        worklist.append(user->result_begin(), user->result_end());
      } else if (auto call = dyn_cast<func::CallOp>(user)) {
        // ... and through calls, into the callee's argument.
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (callee && !callee.isExternal())
          worklist.push_back(callee.getArgument(use.getOperandNumber()));
      }
    }
  }
  return bound;
}

namespace {
/// The interpreter's stream of random values (amprt::splitmix64): small,
/// fast, and the same everywhere.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() { return amprt::splitmix64(state); }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return amprt::splitmix64Unit(state); }

private:
  uint64_t state;
};
} // namespace

/// The parameter whose f32 master part `arg` is (amp.shard_of), if it is.
static std::optional<unsigned> masterOf(FunctionOpInterface func,
                                        unsigned arg) {
  auto shard = func ? func.getArgAttrOfType<DenseI64ArrayAttr>(
                          arg, AmpDialect::kShardOfAttrName)
                    : DenseI64ArrayAttr();
  if (!shard || shard.size() != 3 || shard[2] != 1)
    return std::nullopt;
  return static_cast<unsigned>(shard[0]);
}

/// The values of a parameter or batch argument, `count` elements of
/// `kind`, from its own stream.
static std::vector<double> drawValues(BlockArgument arg,
                                      FunctionOpInterface func, uint64_t seed,
                                      const RandomInputOptions &options,
                                      ElementKind kind, int64_t count) {
  // The stream is keyed by the argument's rank among the parameters, or
  // among the other (batch) arguments: a model, its gradient function and
  // its training step, whose signatures order them differently, all get
  // the same values for the same seed.
  auto kindOf = [&](unsigned i) {
    return func ? getArgumentKind(func, i) : ArgumentKind::input;
  };
  bool isParam = kindOf(arg.getArgNumber()) == ArgumentKind::param;
  uint64_t rank = 0;
  for (unsigned i = 0; i < arg.getArgNumber(); ++i)
    if (kindOf(i) == (isParam ? ArgumentKind::param : ArgumentKind::input))
      ++rank;
  uint64_t stream = (isParam ? (uint64_t(1) << 32) : 0) + rank + 1;
  SplitMix64 rng(seed * 0x2545f4914f6cdd1dULL + stream);
  std::vector<double> data(static_cast<size_t>(count));
  if (isFloatKind(kind)) {
    for (double &value : data) {
      double x;
      if (options.distribution == Distribution::Uniform) {
        x = (2.0 * rng.uniform() - 1.0) * options.scale;
      } else {
        double u1 = 1.0 - rng.uniform(); // (0, 1]: log is finite
        double u2 = rng.uniform();
        x = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2) *
            options.scale;
      }
      value = roundToKind(x, kind);
    }
  } else if (kind == ElementKind::I1) {
    for (double &value : data)
      value = rng.uniform() < 0.5 ? 0.0 : 1.0;
  } else {
    int64_t bound = inferIndexBound(arg).value_or(options.defaultIndexBound);
    for (double &value : data)
      value = std::floor(rng.uniform() * static_cast<double>(bound));
  }
  return data;
}

Tensor interp::makeRandomInput(BlockArgument arg, uint64_t seed,
                               const RandomInputOptions &options) {
  auto type = cast<RankedTensorType>(arg.getType());
  ElementKind kind = *getElementKind(type.getElementType());
  Tensor tensor(kind, type.getShape());
  MutableArrayRef<double> data = tensor.getMutableData();
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  auto hasAttr = [&](unsigned i, StringRef name) {
    return func && func.getArgAttr(i, name);
  };
  // A random generator starts at [seed, 0], as amp_step_init starts it.
  if (hasAttr(arg.getArgNumber(), AmpDialect::kRngAttrName)) {
    data[0] = static_cast<double>(seed & ((uint64_t(1) << 53) - 1));
    data[1] = 0;
    return tensor;
  }
  // ZeRO stage 1 (amp-optimizer{zero-stage=1}): an f32 master part is
  // replica 0's part of its parameter's values as an f32 parameter gets
  // them, zeros past their end; a low-precision parameter with a master
  // holds those values rounded, as the unsharded step's casts round them.
  if (std::optional<unsigned> param = masterOf(func, arg.getArgNumber())) {
    BlockArgument whole = arg.getOwner()->getArgument(*param);
    auto wholeType = cast<RankedTensorType>(whole.getType());
    std::vector<double> wide =
        drawValues(whole, func, seed, options, ElementKind::F32,
                   wholeType.getNumElements());
    for (size_t e = 0; e < data.size(); ++e)
      data[e] = e < wide.size() ? wide[e] : 0.0;
    return tensor;
  }
  if (func && isFloatKind(kind))
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (masterOf(func, i) == arg.getArgNumber()) {
        std::vector<double> wide =
            drawValues(arg, func, seed, options, ElementKind::F32,
                       tensor.getNumElements());
        for (auto [value, x] : llvm::zip(data, wide))
          value = roundToKind(x, kind);
        return tensor;
      }
  // Optimizer state starts at zero, as torch.optim's does; so do a
  // model's buffers, at their amp.buffer values.
  for (StringRef name :
       {AmpDialect::kStateAttrName, AmpDialect::kBufferAttrName}) {
    Attribute state =
        func ? func.getArgAttr(arg.getArgNumber(), name) : Attribute();
    if (!state)
      continue;
    if (auto initial = dyn_cast<FloatAttr>(state))
      for (double &value : data)
        value = roundToKind(initial.getValueAsDouble(), kind);
    return tensor;
  }
  std::vector<double> values =
      drawValues(arg, func, seed, options, kind, tensor.getNumElements());
  std::copy(values.begin(), values.end(), data.begin());
  return tensor;
}
