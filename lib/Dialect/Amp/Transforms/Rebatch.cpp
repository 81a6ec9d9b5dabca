//===- Rebatch.cpp - --amp-rebatch ----------------------------------------===//
//
// A model function at another batch size: its batch inputs (the arguments
// that are neither parameters nor buffers) take `batch` rows where they
// took B, and every value computed from them takes the shape the same ops
// give at that size. Types are recomputed from the operands forward, op by
// op, each by its own rule (the ops' type inference where they have one);
// an op whose shape cannot follow the batch is an error naming it, and the
// function is verified again at the end. amp-compile --eval-batch compiles
// the model's evaluation this way.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/IR/StepArguments.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPREBATCH
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

RankedTensorType withShape(Type type, ArrayRef<int64_t> shape) {
  return cast<RankedTensorType>(type).clone(shape);
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Rebatches one function: `changed` holds the values whose types it has
/// changed so far (an op none of whose operands changed is left alone).
class Rebatcher {
public:
  Rebatcher(func::FuncOp func, int64_t batch) : func(func), batch(batch) {}

  LogicalResult run();

private:
  /// The new types of `op`'s results, from its operands' new types.
  LogicalResult resultShapes(Operation *op,
                             SmallVectorImpl<RankedTensorType> &out);
  InFlightDiagnostic refuse(Operation *op) {
    return op->emitError() << "amp-rebatch: at batch " << batch << ", '"
                           << op->getName() << "' ";
  }

  func::FuncOp func;
  int64_t batch;
  int64_t oldBatch = 0; // the batch inputs' first dimension before
  llvm::DenseSet<Value> changed;
  // The old types of the changed values, for the rules that compare.
  DenseMap<Value, RankedTensorType> before;
};

LogicalResult Rebatcher::run() {
  // The batch inputs, all of one batch (their first dimension).
  auto isBatch = [&](BlockArgument arg) {
    return getArgumentKind(func, arg.getArgNumber()) == ArgumentKind::input;
  };
  for (BlockArgument arg : func.getArguments()) {
    unsigned i = arg.getArgNumber();
    if (!isBatch(arg))
      continue;
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() == 0 ||
        (oldBatch && type.getDimSize(0) != oldBatch))
      return emitError(arg.getLoc())
             << "amp-rebatch: @" << func.getSymName() << "'s argument #" << i
             << " is a batch input (no parameter, buffer, generator or state) "
                "but not a batch of "
             << (oldBatch ? std::to_string(oldBatch) : std::string("examples"))
             << " (its first dimension)";
    oldBatch = type.getDimSize(0);
  }
  if (!oldBatch)
    return emitError(func.getLoc())
           << "amp-rebatch: @" << func.getSymName()
           << " has no batch inputs (arguments that are no parameter, "
              "buffer, generator or state) to give another batch";
  if (oldBatch == batch)
    return success();
  SmallVector<Type> argumentTypes;
  for (BlockArgument arg : func.getArguments()) {
    auto type = cast<TensorType>(arg.getType());
    if (isBatch(arg)) {
      SmallVector<int64_t> shape(type.getShape());
      shape[0] = batch;
      before[arg] = cast<RankedTensorType>(type);
      arg.setType(withShape(type, shape));
      changed.insert(arg);
    }
    argumentTypes.push_back(arg.getType());
  }

  WalkResult walked = func.walk([&](Operation *op) {
    if (isa<func::ReturnOp>(op) ||
        llvm::none_of(op->getOperands(),
                      [&](Value v) { return changed.contains(v); }))
      return WalkResult::advance();
    SmallVector<RankedTensorType> types;
    if (failed(resultShapes(op, types)))
      return WalkResult::interrupt();
    for (auto [result, type] : llvm::zip(op->getResults(), types)) {
      if (result.getType() == type)
        continue;
      before[result] = cast<RankedTensorType>(result.getType());
      result.setType(type);
      changed.insert(result);
    }
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();

  auto terminator = cast<func::ReturnOp>(func.getBody().front().back());
  func.setFunctionType(FunctionType::get(func.getContext(), argumentTypes,
                                         terminator.getOperandTypes()));
  // Every op checked at its new shapes: a value that kept the old batch
  // (a constant or a broadcast of that shape) meets the new one somewhere.
  if (failed(verify(func)))
    return func.emitError()
           << "amp-rebatch: @" << func.getSymName()
           << " does not verify at batch " << batch
           << " (a value that keeps the batch of " << oldBatch
           << ", such as a constant of that shape, meets the batch inputs)";
  return success();
}

LogicalResult Rebatcher::resultShapes(Operation *op,
                                      SmallVectorImpl<RankedTensorType> &out) {
  auto operand = [&](unsigned i) { return shapeOf(op->getOperand(i)); };
  auto result = [&](unsigned i) { return op->getResult(i).getType(); };
  // The ops that infer their types: broadcasting elementwise ops, select,
  // compare and those that say so.
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    if (failed(infer.inferReturnTypes(
            op->getContext(), std::nullopt, op->getOperands(),
            op->getAttrDictionary(), op->getPropertiesStorage(),
            op->getRegions(), types))) {
      InFlightDiagnostic diag = refuse(op)
                                << "has operands whose shapes no longer fit "
                                   "together (";
      llvm::interleaveComma(op->getOperandTypes(), diag);
      return diag << "): one keeps the old batch";
    }
    for (Type type : types)
      out.push_back(cast<RankedTensorType>(type));
    return success();
  }
  // Results of the first operand's shape: unary elementwise ops, casts,
  // normalizations, softmax, attention, dropout.
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>() ||
      op->hasTrait<OpTrait::SameOperandsAndResultShape>() ||
      isa<CastOp, SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp, DropoutOp,
          StopGradientOp>(op)) {
    for (unsigned i = 0; i < op->getNumResults(); ++i)
      out.push_back(withShape(result(i), operand(0)));
    return success();
  }
  if (auto norm = dyn_cast<BatchNormOp>(op)) {
    // The output follows the input; the running statistics do not.
    if (llvm::any_of(op->getOperands().drop_front(),
                     [&](Value v) { return changed.contains(v); }))
      return refuse(op) << "reads statistics computed from the batch";
    out.push_back(withShape(result(0), operand(0)));
    for (unsigned i = 1; i < op->getNumResults(); ++i)
      out.push_back(cast<RankedTensorType>(result(i)));
    return success();
  }
  // A batch of images: the first dimension follows the input's.
  if (isa<Conv2dOp, MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp>(op)) {
    if (op->getNumOperands() > 1 &&
        llvm::any_of(op->getOperands().drop_front(),
                     [&](Value v) { return changed.contains(v); }))
      return refuse(op) << "has weights computed from the batch";
    SmallVector<int64_t> shape(cast<RankedTensorType>(result(0)).getShape());
    shape[0] = operand(0)[0];
    out.push_back(withShape(result(0), shape));
    return success();
  }
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    ArrayRef<int64_t> l = operand(0), r = operand(1);
    SmallVector<int64_t> shape;
    if (failed(broadcastShapes({l.drop_back(2), r.drop_back(2)}, shape)))
      return refuse(op) << "has batch dimensions that no longer broadcast";
    shape.push_back(matmul.getTransposeLhs() ? l.back() : l[l.size() - 2]);
    shape.push_back(matmul.getTransposeRhs() ? r[r.size() - 2] : r.back());
    out.push_back(withShape(result(0), shape));
    return success();
  }
  auto reduce = [&](ArrayRef<int64_t> dims, bool keep) {
    SmallVector<int64_t> shape;
    for (auto [i, size] : llvm::enumerate(operand(0))) {
      bool reduced = llvm::is_contained(dims, static_cast<int64_t>(i));
      if (!reduced)
        shape.push_back(size);
      else if (keep)
        shape.push_back(1);
    }
    out.push_back(withShape(result(0), shape));
    return success();
  };
  if (auto sum = dyn_cast<SumOp>(op))
    return reduce(sum.getDims(), sum.getKeepdims());
  if (auto mean = dyn_cast<MeanOp>(op))
    return reduce(mean.getDims(), mean.getKeepdims());
  if (auto max = dyn_cast<MaxOp>(op))
    return reduce(max.getDims(), max.getKeepdims());
  // Losses: one number however many rows.
  if (isa<CrossEntropyOp, MseLossOp>(op)) {
    out.push_back(cast<RankedTensorType>(result(0)));
    return success();
  }
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    SmallVector<int64_t> shape;
    for (int64_t d : transpose.getPermutation())
      shape.push_back(operand(0)[d]);
    out.push_back(withShape(result(0), shape));
    return success();
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    SmallVector<int64_t> shape(operand(0));
    int64_t dim = concat.getDim();
    shape[dim] = 0;
    for (Value input : concat.getInputs())
      shape[dim] += shapeOf(input)[dim];
    out.push_back(withShape(result(0), shape));
    return success();
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    // A dimension whose size changed is taken whole, start to end.
    ArrayRef<int64_t> oldShape = before.lookup(slice.getInput()).getShape();
    SmallVector<int64_t> limit(slice.getLimit());
    SmallVector<int64_t> shape(cast<RankedTensorType>(result(0)).getShape());
    for (auto [d, size] : llvm::enumerate(operand(0))) {
      if (size == oldShape[d])
        continue;
      if (slice.getStart()[d] != 0 || limit[d] != oldShape[d])
        return refuse(op) << "takes part of dimension " << d
                          << ", which holds the batch";
      limit[d] = size;
      shape[d] = size;
    }
    slice.setLimit(limit);
    out.push_back(withShape(result(0), shape));
    return success();
  }
  if (isa<ReshapeOp, BroadcastToOp>(op)) {
    // The batch is the input's outermost dimension and stays the result's:
    // the result's first dimension scales as the input's.
    ArrayRef<int64_t> oldShape = before.lookup(op->getOperand(0)).getShape();
    ArrayRef<int64_t> newShape = operand(0);
    auto type = cast<RankedTensorType>(result(0));
    SmallVector<int64_t> shape(type.getShape());
    bool outermost = !oldShape.empty() && !shape.empty();
    for (size_t d = 1; outermost && d < oldShape.size(); ++d)
      outermost = oldShape[d] == newShape[d];
    if (isa<BroadcastToOp>(op)) {
      // Aligned at the trailing dimension: the input's first is the
      // result's (rank difference)th; broadcast from 1, it stays.
      size_t at = shape.size() - oldShape.size();
      if (!outermost || oldShape[0] == 1 || shape[at] != oldShape[0])
        return refuse(op) << "broadcasts its batch to another shape";
      shape[at] = newShape[0];
    } else {
      // Each example a whole number of the result's rows, which then
      // scale with the examples: no row spans two of them.
      int64_t perExample = ShapedType::getNumElements(oldShape) / oldBatch;
      int64_t row =
          ShapedType::getNumElements(ArrayRef<int64_t>(shape).drop_front());
      if (!outermost || ShapedType::getNumElements(oldShape) % oldBatch != 0 ||
          row == 0 || perExample % row != 0)
        return refuse(op) << "moves the batch from the outermost dimension "
                             "(input "
                          << cast<RankedTensorType>(
                                 before.lookup(op->getOperand(0)))
                          << ", result " << type
                          << "): a row of the result spans examples";
      shape[0] = batch * (perExample / row);
    }
    out.push_back(type.clone(shape));
    return success();
  }
  return refuse(op) << "has no rule for a batch of another size";
}

struct AmpRebatchPass
    : amp::SuggestingOptions<amp::impl::AmpRebatchBase<AmpRebatchPass>> {
  using SuggestingOptions::SuggestingOptions;
  void runOnOperation() override {
    if (batch < 1) {
      emitOptionError(&getContext())
          << "amp-rebatch: batch must be 1 or more, not "
          << static_cast<int64_t>(batch);
      return signalPassFailure();
    }
    FailureOr<SmallVector<func::FuncOp>> funcs =
        findModelFunctions(getOperation(), functionName, "amp-rebatch");
    if (failed(funcs))
      return signalPassFailure();
    for (func::FuncOp func : *funcs)
      if (failed(Rebatcher(func, batch).run()))
        return signalPassFailure();
  }
};

} // namespace
