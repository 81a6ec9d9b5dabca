//===- ReductionKernels.cpp - sum, mean, max and mse_loss -----------------===//
//
// Reductions are functors with Functor::defineReduction's methods: one
// index per output, whose values are folded in the order of
// amprt::foldReduction, the interpreter's. The elementwise ops --amp-fuse
// puts before a reduction are computed in its loads: each value once,
// rounded to its type as the ops' own kernel would, and never stored.
//
//===----------------------------------------------------------------------===//

#include "StepEmitter.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/DenseSet.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::cuda;

namespace {

/// sum, mean and max over `dims` of the operand.
template <typename Op> LogicalResult emitReduce(Op op, OpKernel &kernel) {
  Value x = op->getOperand(0);
  Type type = elementOf(op->getResult(0));
  ArrayRef<int64_t> shape = tensorOf(x).getShape();
  SmallVector<int64_t> strides = computeStrides(shape);
  llvm::SmallDenseSet<int64_t> reduced(op.getDims().begin(),
                                       op.getDims().end());
  constexpr bool isMax = std::is_same_v<Op, MaxOp>;
  Type acc = elementOf(x);
  if constexpr (!isMax)
    acc = op.getAccumulatorType();
  std::string at = acc.isF64() ? "double" : "float";
  bool narrow = acc.isF16() || acc.isBF16();
  // The offset of the output's first input from the kept coordinates, and
  // of the r-th reduced value from there.
  SmallVector<int64_t> kept, keptStrides, red, redStrides;
  for (size_t d = 0; d < shape.size(); ++d) {
    (reduced.count(d) ? red : kept).push_back(shape[d]);
    (reduced.count(d) ? redStrides : keptStrides).push_back(strides[d]);
  }
  SmallVector<int64_t> keptOut = computeStrides(kept);
  std::string base;
  for (size_t d = 0; d < kept.size(); ++d)
    base += "base += " +
            scaled(coordinateOf("i", keptOut[d], kept[d], product(kept)),
                   keptStrides[d]) +
            ";\n";
  int64_t inner = product(red);
  SmallVector<int64_t> redOut = computeStrides(red);
  std::string load = "const int64_t at = base";
  for (size_t d = 0; d < red.size(); ++d)
    load += " + " + scaled(coordinateOf("r", redOut[d], red[d], product(red)),
                           redStrides[d]);
  load += ";\n";
  std::string value;
  if (kernel.getFused().empty()) {
    value = kernel.load(0, "at");
  } else {
    for (Operation *fused : kernel.getFused())
      if (kernel.getEmitter().reachesMemory(fused->getResult(0)))
        return fused->emitError() << "amp-to-cuda: a value computed in a "
                                     "reduction's loads is read elsewhere";
    llvm::raw_string_ostream prologue(load);
    FailureOr<std::string> computed = kernel.getEmitter().emitElementwiseAt(
        kernel.functor(), kernel.getFused(), "at", prologue);
    if (failed(computed))
      return failure();
    value = *computed;
  }
  load += "return static_cast<" + at + ">(" + value + ");\n";
  std::string combine = isMax ? "ampstep::nanMax(acc, v)"
                        : narrow
                            ? roundExpr(acc, "acc + " + roundExpr(acc, "v"))
                            : "acc + v";
  std::string finish;
  if (std::is_same_v<Op, MeanOp>)
    finish +=
        "acc = acc / static_cast<" + at + ">(" + std::to_string(inner) + ");\n";
  finish += kernel.store(0, "i", roundExpr(type, "acc")) + "\n";
  // Outputs side by side where the innermost dimension is kept (and more
  // than one value of it): a reduction over leading dimensions.
  bool adjacent =
      !shape.empty() && !reduced.count(shape.size() - 1) && shape.back() > 1;
  kernel.functor().defineReduction(
      at, isMax ? literal(-INFINITY, at) : literal(0, at), base, load, combine,
      finish, inner, adjacent);
  kernel.functor().launch(countOf(op->getResult(0)));
  return success();
}

LogicalResult emitMseLoss(MseLossOp op, OpKernel &kernel) {
  Type type = elementOf(op.getResult());
  std::string t = registerType(type);
  int64_t n = countOf(op->getOperand(0));
  std::string load = "const " + t + " d = static_cast<" + t + ">(" +
                     kernel.load(0, "r") + ") - static_cast<" + t + ">(" +
                     kernel.load(1, "r") + ");\nreturn d * d;\n";
  std::string finish;
  if (op.getReduction() == LossReduction::mean)
    finish += "acc = acc / " + literal(n, t) + ";\n";
  finish += kernel.store(0, "0", roundExpr(type, "acc")) + "\n";
  kernel.functor().defineReduction(t, literal(0, t), "", load, "acc + v",
                                   finish, n);
  kernel.functor().launch(1);
  return success();
}

/// sum, mean and max, which also compute the elementwise ops that --amp-fuse
/// put before them (the last of them their operand's).
template <typename Op>
struct ReduceModel : KernelOpInterface::ExternalModel<ReduceModel<Op>, Op> {
  LogicalResult emitKernel(Operation *op, OpKernel &kernel) const {
    return emitReduce(cast<Op>(op), kernel);
  }
};

} // namespace

void cuda::attachReductionModels(MLIRContext &context) {
  SumOp::attachInterface<ReduceModel<SumOp>>(context);
  MeanOp::attachInterface<ReduceModel<MeanOp>>(context);
  MaxOp::attachInterface<ReduceModel<MaxOp>>(context);
  MseLossOp::attachInterface<KernelModel<MseLossOp, emitMseLoss>>(context);
}
