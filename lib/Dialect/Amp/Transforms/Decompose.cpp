//===- Decompose.cpp - --amp-decompose ------------------------------------===//
//
// Rewrites the ops the backend runs as other ops (the Amp_Decomposed
// trait), to the bit: a convolution as an im2col and a matmul per group.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPDECOMPOSE
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

Value reshape(OpBuilder &b, Location loc, Value value,
              ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return b.create<ReshapeOp>(loc, type.clone(shape), value);
}

/// y[n, o] = W[o] . im2col(x)[n] per group: the matmul sums over
/// (channel, kh, kw) ascending, amp.conv2d's order; the bias is added to
/// the matmul's accumulator-typed result and the sum cast once.
void decompose(Conv2dOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> in = inputType.getShape(),
                    w = cast<RankedTensorType>(op.getWeight().getType())
                            .getShape(),
                    y = op.getType().getShape();
  int64_t groups = op.getGroupCount();
  int64_t columns = w[1] * w[2] * w[3], positions = y[2] * y[3];
  auto im2col = b.create<Im2colOp>(
      loc, inputType.clone({in[0], in[1] * w[2] * w[3], positions}),
      op.getInput(), b.getDenseI64ArrayAttr(w.drop_front(2)),
      op.getStridesAttr(), op.getPaddingAttr(), op.getDilationsAttr());
  Value cols = reshape(b, loc, im2col, {y[0], groups, columns, positions});
  Value weight =
      reshape(b, loc, op.getWeight(), {groups, w[0] / groups, columns});
  Value bias = op.getBias();
  Type productType =
      bias ? Type(op.getAccumulatorType()) : op.getType().getElementType();
  Value product = b.create<MatmulOp>(
      loc,
      RankedTensorType::get({y[0], groups, w[0] / groups, positions},
                            productType),
      weight, cols, UnitAttr(), UnitAttr(), op.getAccTypeAttr(),
      /*bias=*/Value());
  Value result = reshape(b, loc, product, y);
  if (bias) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    Value wide = bias;
    if (biasType.getElementType() != productType)
      wide = b.create<CastOp>(loc, biasType.clone(productType), bias);
    wide = reshape(b, loc, wide, {w[0], 1, 1});
    result = b.create<AddOp>(loc, result, wide);
    if (productType != op.getType().getElementType())
      result = b.create<CastOp>(loc, op.getType(), result);
  }
  op.replaceAllUsesWith(result);
  op.erase();
}

struct AmpDecompose : amp::impl::AmpDecomposeBase<AmpDecompose> {
  void runOnOperation() override {
    SmallVector<Conv2dOp> convolutions;
    getOperation().walk([&](Conv2dOp op) { convolutions.push_back(op); });
    for (Conv2dOp op : convolutions)
      decompose(op);
  }
};

} // namespace
