//===- VJP.cpp - vector-Jacobian products of the amp ops ------------------===//
//
// One `vjp` overload per differentiable op, attached as the
// DifferentiableOpInterface external model. Each builds amp ops in the
// element type of its forward op (backward ops take the precision of their
// forward op, as in PyTorch autocast); gradients of broadcast operands are
// summed back to the operand's shape.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/VJP.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Builds the backward ops of one op.
struct VJPBuilder {
  OpBuilder &b;
  Location loc;

  RankedTensorType typeOf(Value v) const {
    return cast<RankedTensorType>(v.getType());
  }

  /// A 0-d constant of `element` type.
  Value scalar(double value, Type element) {
    auto type = RankedTensorType::get({}, element);
    auto attr =
        DenseElementsAttr::get(type, b.getFloatAttr(element, value).getValue());
    return b.create<ConstantOp>(loc, attr);
  }
  Value scalarLike(double value, Value like) {
    return scalar(value, typeOf(like).getElementType());
  }
  /// A zero tensor of `type`.
  Value zeros(RankedTensorType type) {
    auto attr = DenseElementsAttr::get(
        type, b.getFloatAttr(type.getElementType(), 0.0).getValue());
    return b.create<ConstantOp>(loc, attr);
  }

  /// `v` converted to element type `element` (no-op when it has it).
  Value castTo(Value v, Type element) {
    RankedTensorType type = typeOf(v);
    if (type.getElementType() == element)
      return v;
    return b.create<CastOp>(loc, type.clone(element), v);
  }

  Value add(Value x, Value y) { return b.create<AddOp>(loc, x, y); }
  Value sub(Value x, Value y) { return b.create<SubOp>(loc, x, y); }
  Value mul(Value x, Value y) { return b.create<MulOp>(loc, x, y); }
  Value div(Value x, Value y) { return b.create<DivOp>(loc, x, y); }
  Value neg(Value x) { return b.create<NegOp>(loc, x); }
  Value select(Value c, Value t, Value f) {
    return b.create<SelectOp>(loc, c, t, f);
  }
  Value compare(ComparePredicate p, Value x, Value y) {
    return b.create<CompareOp>(loc, p, x, y);
  }
  Value reshape(Value v, ArrayRef<int64_t> shape) {
    if (typeOf(v).getShape() == shape)
      return v;
    return b.create<ReshapeOp>(loc, typeOf(v).clone(shape), v);
  }

  /// Sums `grad` over `dims` with keepdims, into `element`.
  Value sumKeep(Value grad, ArrayRef<int64_t> dims, Type element) {
    if (dims.empty())
      return castTo(grad, element);
    SmallVector<int64_t> shape(typeOf(grad).getShape());
    for (int64_t d : dims)
      shape[d] = 1;
    auto op = b.create<SumOp>(loc, RankedTensorType::get(shape, element), grad,
                              b.getDenseI64ArrayAttr(dims), b.getUnitAttr(),
                              TypeAttr());
    return op.getResult();
  }

  /// The sum of every element of `value`, a 0-d tensor of `element`.
  Value sumAll(Value value, Type element) {
    SmallVector<int64_t> all = llvm::to_vector(
        llvm::seq<int64_t>(0, static_cast<int64_t>(typeOf(value).getRank())));
    return b.create<SumOp>(loc, RankedTensorType::get({}, element), value,
                           b.getDenseI64ArrayAttr(all), UnitAttr(), TypeAttr());
  }

  /// 1 in `element` where a label is not `ignored`, 0 where it is: the rows
  /// a cross-entropy counts.
  Value countedRows(Value labels, int64_t ignored, Type element) {
    Type integer = typeOf(labels).getElementType();
    auto ignoredValue = b.create<ConstantOp>(
        loc,
        DenseElementsAttr::get(RankedTensorType::get({}, integer),
                               b.getIntegerAttr(integer, ignored).getValue()));
    Value counted = compare(ComparePredicate::ne, labels, ignoredValue);
    return select(counted, scalar(1.0, element), scalar(0.0, element));
  }

  /// The gradient of a value of type `target` that was broadcast to the
  /// shape of `grad`: summed over the broadcast dimensions.
  Value unbroadcast(Value grad, RankedTensorType target) {
    ArrayRef<int64_t> from = typeOf(grad).getShape();
    ArrayRef<int64_t> to = target.getShape();
    size_t lead = from.size() - to.size();
    SmallVector<int64_t> dims;
    for (size_t d = 0; d < from.size(); ++d)
      if (d < lead || (to[d - lead] == 1 && from[d] != 1))
        dims.push_back(d);
    Value summed = sumKeep(grad, dims, target.getElementType());
    return reshape(summed, to);
  }

  /// `grad` (of a reduction over `dims`) broadcast back to `input`'s shape.
  Value expandReduced(Value grad, ArrayRef<int64_t> dims,
                      RankedTensorType input) {
    SmallVector<int64_t> keptShape(input.getShape());
    for (int64_t d : dims)
      keptShape[d] = 1;
    Value kept = reshape(grad, keptShape);
    return b.create<BroadcastToOp>(
        loc, input.clone(typeOf(grad).getElementType()), kept);
  }
};

using Grads = SmallVectorImpl<Value>;

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult vjp(NegOp, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.neg(g);
  return success();
}
/// No gradient: out[0] stays empty, so nothing reaches the input.
LogicalResult vjp(StopGradientOp, VJPBuilder &, Value, Grads &) {
  return success();
}
LogicalResult vjp(AbsOp op, VJPBuilder &v, Value g, Grads &out) {
  Value negative =
      v.compare(ComparePredicate::lt, op.getInput(), v.scalarLike(0.0, g));
  out[0] = v.select(negative, v.neg(g), g);
  return success();
}
LogicalResult vjp(ExpOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.mul(g, op.getResult());
  return success();
}
LogicalResult vjp(LogOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.div(g, op.getInput());
  return success();
}
LogicalResult vjp(SqrtOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.div(v.mul(g, v.scalarLike(0.5, g)), op.getResult());
  return success();
}
LogicalResult vjp(RsqrtOp op, VJPBuilder &v, Value g, Grads &out) {
  // d/dx x^-1/2 = -1/2 x^-3/2 = -1/2 y^3
  Value y = op.getResult();
  Value cube = v.mul(y, v.mul(y, y));
  out[0] = v.mul(g, v.mul(v.scalarLike(-0.5, g), cube));
  return success();
}
LogicalResult vjp(TanhOp op, VJPBuilder &v, Value g, Grads &out) {
  Value y = op.getResult();
  out[0] = v.mul(g, v.sub(v.scalarLike(1.0, g), v.mul(y, y)));
  return success();
}
LogicalResult vjp(SigmoidOp op, VJPBuilder &v, Value g, Grads &out) {
  Value y = op.getResult();
  out[0] = v.mul(g, v.mul(y, v.sub(v.scalarLike(1.0, g), y)));
  return success();
}
LogicalResult vjp(SoftplusOp op, VJPBuilder &v, Value g, Grads &out) {
  // d/dx ln(1 + e^x) = sigmoid(x) (1 to f32 precision above the threshold).
  out[0] = v.mul(g, v.b.create<SigmoidOp>(v.loc, op.getInput()));
  return success();
}
LogicalResult vjp(ReluOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.b.create<ReluGradOp>(v.loc, op.getInput(), g);
  return success();
}
LogicalResult vjp(GeluOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] =
      v.b.create<GeluGradOp>(v.loc, op.getInput(), g, op.getApproximateAttr());
  return success();
}
LogicalResult vjp(PowOp op, VJPBuilder &v, Value g, Grads &out) {
  double p = op.getExponent().convertToDouble();
  if (p == 0) { // x^0 is constant: zeros, not 0 * x^-1 (NaN at 0)
    out[0] = v.zeros(v.typeOf(op.getInput()));
    return success();
  }
  Value lower =
      v.b.create<PowOp>(v.loc, op.getInput(), v.b.getF64FloatAttr(p - 1.0));
  out[0] = v.mul(g, v.mul(v.scalarLike(p, g), lower));
  return success();
}

LogicalResult vjp(AddOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.unbroadcast(g, v.typeOf(op.getLhs()));
  out[1] = v.unbroadcast(g, v.typeOf(op.getRhs()));
  return success();
}
LogicalResult vjp(SubOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.unbroadcast(g, v.typeOf(op.getLhs()));
  out[1] = v.unbroadcast(v.neg(g), v.typeOf(op.getRhs()));
  return success();
}
LogicalResult vjp(MulOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.unbroadcast(v.mul(g, op.getRhs()), v.typeOf(op.getLhs()));
  out[1] = v.unbroadcast(v.mul(g, op.getLhs()), v.typeOf(op.getRhs()));
  return success();
}
LogicalResult vjp(DivOp op, VJPBuilder &v, Value g, Grads &out) {
  // d(a/b)/da = 1/b; d(a/b)/db = -a/b^2 = -y/b.
  out[0] = v.unbroadcast(v.div(g, op.getRhs()), v.typeOf(op.getLhs()));
  out[1] = v.unbroadcast(v.neg(v.div(v.mul(g, op.getResult()), op.getRhs())),
                         v.typeOf(op.getRhs()));
  return success();
}
/// maximum/minimum: the gradient goes to the chosen operand; on ties, to
/// the left one.
template <typename OpT>
LogicalResult vjpExtremum(OpT op, VJPBuilder &v, Value g, Grads &out,
                          ComparePredicate lhsWins, ComparePredicate rhsWins) {
  Value zero = v.scalarLike(0.0, g);
  Value lhsMask = v.compare(lhsWins, op.getLhs(), op.getRhs());
  Value rhsMask = v.compare(rhsWins, op.getLhs(), op.getRhs());
  out[0] = v.unbroadcast(v.select(lhsMask, g, zero), v.typeOf(op.getLhs()));
  out[1] = v.unbroadcast(v.select(rhsMask, g, zero), v.typeOf(op.getRhs()));
  return success();
}
LogicalResult vjp(MaximumOp op, VJPBuilder &v, Value g, Grads &out) {
  return vjpExtremum(op, v, g, out, ComparePredicate::ge, ComparePredicate::lt);
}
LogicalResult vjp(MinimumOp op, VJPBuilder &v, Value g, Grads &out) {
  return vjpExtremum(op, v, g, out, ComparePredicate::le, ComparePredicate::gt);
}
LogicalResult vjp(SelectOp op, VJPBuilder &v, Value g, Grads &out) {
  Value zero = v.scalarLike(0.0, g);
  out[1] = v.unbroadcast(v.select(op.getCondition(), g, zero),
                         v.typeOf(op.getOnTrue()));
  out[2] = v.unbroadcast(v.select(op.getCondition(), zero, g),
                         v.typeOf(op.getOnFalse()));
  return success();
}

//===----------------------------------------------------------------------===//
// Data and shape
//===----------------------------------------------------------------------===//

LogicalResult vjp(CastOp op, VJPBuilder &v, Value g, Grads &out) {
  // The reverse cast: parameters stay f32 and receive f32 gradients.
  out[0] = v.castTo(g, v.typeOf(op.getInput()).getElementType());
  return success();
}
LogicalResult vjp(ReshapeOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.reshape(g, v.typeOf(op.getInput()).getShape());
  return success();
}
LogicalResult vjp(TransposeOp op, VJPBuilder &v, Value g, Grads &out) {
  ArrayRef<int64_t> perm = op.getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  out[0] = v.b.create<TransposeOp>(
      v.loc, v.typeOf(op.getInput()).clone(v.typeOf(g).getElementType()), g,
      v.b.getDenseI64ArrayAttr(inverse));
  return success();
}
LogicalResult vjp(BroadcastToOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.unbroadcast(g, v.typeOf(op.getInput()));
  return success();
}
LogicalResult vjp(SliceOp op, VJPBuilder &v, Value g, Grads &out) {
  // Pad with zeros back to the input's shape, one dimension at a time.
  RankedTensorType input = v.typeOf(op.getInput());
  Value grad = g;
  for (int64_t d = 0, e = input.getRank(); d < e; ++d) {
    int64_t before = op.getStart()[d];
    int64_t after = input.getDimSize(d) - op.getLimit()[d];
    if (!before && !after)
      continue;
    SmallVector<Value> pieces;
    SmallVector<int64_t> shape(v.typeOf(grad).getShape());
    auto padding = [&](int64_t size) {
      shape[d] = size;
      return v.zeros(v.typeOf(grad).clone(shape));
    };
    if (before)
      pieces.push_back(padding(before));
    pieces.push_back(grad);
    if (after)
      pieces.push_back(padding(after));
    shape[d] = input.getDimSize(d);
    grad = v.b.create<ConcatOp>(v.loc, v.typeOf(g).clone(shape), pieces,
                                v.b.getI64IntegerAttr(d));
  }
  out[0] = grad;
  return success();
}
LogicalResult vjp(ConcatOp op, VJPBuilder &v, Value g, Grads &out) {
  int64_t dim = op.getDim(), offset = 0;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    RankedTensorType type = v.typeOf(input);
    SmallVector<int64_t> start(type.getRank(), 0);
    SmallVector<int64_t> limit(type.getShape());
    start[dim] = offset;
    limit[dim] = offset + type.getDimSize(dim);
    offset = limit[dim];
    out[i] =
        v.b.create<SliceOp>(v.loc, type, g, v.b.getDenseI64ArrayAttr(start),
                            v.b.getDenseI64ArrayAttr(limit));
  }
  return success();
}
/// Dropout is linear in its input: its gradient is the same mask (drawn
/// again from the same generator state and stream) applied to g.
LogicalResult vjp(DropoutOp op, VJPBuilder &v, Value g, Grads &out) {
  if (!op.getTraining()) {
    out[0] = g;
    return success();
  }
  out[0] =
      v.b.create<DropoutOp>(v.loc, g.getType(), g, op.getRng(), op.getPAttr(),
                            op.getStreamAttr(), op.getTrainingAttr());
  return success();
}
LogicalResult vjp(EmbeddingOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.b.create<EmbeddingGradOp>(v.loc, v.typeOf(op.getTable()),
                                       op.getIndices(), g);
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult vjp(MatmulOp op, VJPBuilder &v, Value g, Grads &out) {
  Value lhs = op.getLhs(), rhs = op.getRhs();
  RankedTensorType lhsType = v.typeOf(lhs), rhsType = v.typeOf(rhs);
  // The backward GEMMs run in the forward operands' type.
  Value grad = v.castTo(g, lhsType.getElementType());
  bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  TypeAttr acc = op.getAccTypeAttr();
  RankedTensorType gradType = v.typeOf(grad);
  ArrayRef<int64_t> batch = gradType.getShape().drop_back(2);
  // An FP8 GEMM with a grad_fp8 has FP8 backward GEMMs: the gradient in
  // grad_fp8, the other operand in its forward format (its scale is the
  // forward's: a transpose or a reshape keeps the amax).
  // (lhsOperand and gradOperand: lhs and grad, reshaped below for a weight
  // shared by every batch.)
  Value lhsOperand = lhs, gradOperand = grad;
  TypeAttr gradFp8 = op.getGradFp8Attr();
  auto formatOf = [&](Value operand) {
    if (!gradFp8)
      return TypeAttr();
    if (operand == grad || operand == gradOperand)
      return gradFp8;
    return operand == lhs || operand == lhsOperand ? op.getLhsFp8Attr()
                                                   : op.getRhsFp8Attr();
  };
  // With delayed scaling, each backward GEMM reads its operands' scales
  // from the forward's state: the gradient's at fp8_scale_index[2].
  Value scales = gradFp8 ? op.getScales() : Value();
  auto scaleOf = [&](Value operand) {
    ArrayRef<int64_t> index = *op.getFp8ScaleIndex();
    if (operand == grad || operand == gradOperand)
      return index[2];
    return operand == lhs || operand == lhsOperand ? index[0] : index[1];
  };
  auto matmul = [&](Value a, Value bb, bool ta, bool tb, int64_t rows,
                    int64_t cols, ArrayRef<int64_t> lead) {
    SmallVector<int64_t> shape(lead);
    shape.push_back(rows);
    shape.push_back(cols);
    auto m = v.b.create<MatmulOp>(
        v.loc, RankedTensorType::get(shape, lhsType.getElementType()), a, bb,
        ta ? v.b.getUnitAttr() : UnitAttr(),
        tb ? v.b.getUnitAttr() : UnitAttr(), acc, /*bias=*/Value(), formatOf(a),
        formatOf(bb), /*grad_fp8=*/TypeAttr(), scales,
        scales ? v.b.getDenseI64ArrayAttr({scaleOf(a), scaleOf(bb)})
               : DenseI64ArrayAttr());
    return m.getResult();
  };
  int64_t lr = lhsType.getRank(), rr = rhsType.getRank();
  int64_t lhsRows = lhsType.getDimSize(lr - 2),
          lhsCols = lhsType.getDimSize(lr - 1);
  int64_t rhsRows = rhsType.getDimSize(rr - 2),
          rhsCols = rhsType.getDimSize(rr - 1);
  // Logical a = op(A) [M, K], b = op(B) [K, N]; da = g b^T, db = a^T g.
  // Stored gradients: dA = tl ? da^T = b g^T : da; dB = tr ? db^T = g^T a : db.
  Value dLhs = tl ? matmul(rhs, grad, tr, true, lhsRows, lhsCols, batch)
                  : matmul(grad, rhs, false, !tr, lhsRows, lhsCols, batch);
  // A weight shared by every batch: its gradient contracts over the batch
  // and row dimensions together, as one GEMM with k = batch * M, so it is
  // rounded once (not once per batch and again by the sum over batches),
  // and no [batch, K, N] partial is materialized.
  ArrayRef<int64_t> rhsBatch = batch;
  if (rr == 2 && lr > 2 && !tl) {
    int64_t rows = 1;
    for (int64_t d : lhsType.getShape().drop_back())
      rows *= d;
    lhsOperand = v.reshape(lhs, {rows, lhsCols});
    gradOperand = v.reshape(grad, {rows, gradType.getShape().back()});
    rhsBatch = {};
  }
  Value dRhs =
      tr ? matmul(gradOperand, lhsOperand, true, tl, rhsRows, rhsCols, rhsBatch)
         : matmul(lhsOperand, gradOperand, !tl, false, rhsRows, rhsCols,
                  rhsBatch);
  out[0] = v.unbroadcast(dLhs, lhsType);
  out[1] = v.unbroadcast(dRhs, rhsType);
  // The bias was added to every row: its gradient sums g over the rows.
  if (Value bias = op.getBias())
    out[2] = v.unbroadcast(g, v.typeOf(bias));
  return success();
}

LogicalResult vjp(Conv2dOp op, VJPBuilder &v, Value g, Grads &out) {
  RankedTensorType inputType = v.typeOf(op.getInput()),
                   weightType = v.typeOf(op.getWeight());
  // In the forward operands' type, as cuDNN's dgrad and wgrad take it;
  // amp-decompose runs each as im2col, col2im and matmuls.
  Value grad = v.castTo(g, inputType.getElementType());
  out[0] = v.b.create<Conv2dGradInputOp>(
      v.loc, inputType, grad, op.getWeight(), op.getStridesAttr(),
      op.getPaddingAttr(), op.getDilationsAttr(), op.getGroupsAttr(),
      op.getAccTypeAttr());
  out[1] = v.b.create<Conv2dGradWeightOp>(
      v.loc, weightType, op.getInput(), grad, op.getStridesAttr(),
      op.getPaddingAttr(), op.getDilationsAttr(), op.getGroupsAttr(),
      op.getAccTypeAttr());
  // The bias was added at every image and position.
  if (Value bias = op.getBias())
    out[2] = v.reshape(v.sumKeep(g, {0, 2, 3}, v.typeOf(bias).getElementType()),
                       {weightType.getDimSize(0)});
  return success();
}
/// conv2d_grad_input as a forward op (PyTorch's conv_transpose2d is the
/// input gradient of the convolution it transposes): linear in each
/// operand, so its gradient in `grad` is that convolution of g, and in
/// the weight the convolution's weight gradient with g as its input.
LogicalResult vjp(Conv2dGradInputOp op, VJPBuilder &v, Value g, Grads &out) {
  RankedTensorType gradType = v.typeOf(op.getGrad()),
                   weightType = v.typeOf(op.getWeight());
  Value upstream = v.castTo(g, gradType.getElementType());
  out[0] = v.b.create<Conv2dOp>(v.loc, gradType, upstream, op.getWeight(),
                                /*bias=*/Value(), op.getStridesAttr(),
                                op.getPaddingAttr(), op.getDilationsAttr(),
                                op.getGroupsAttr(), op.getAccTypeAttr());
  out[1] = v.b.create<Conv2dGradWeightOp>(
      v.loc, weightType, upstream, op.getGrad(), op.getStridesAttr(),
      op.getPaddingAttr(), op.getDilationsAttr(), op.getGroupsAttr(),
      op.getAccTypeAttr());
  return success();
}
/// conv2d_grad_weight(x, g) as a forward op: bilinear, with <ct,
/// conv2d_grad_weight(x, g)> = <g, conv2d(x, ct)> = <x,
/// conv2d_grad_input(g, ct)>, so its gradient in x is the input gradient
/// of g through a convolution with weight ct, and in g the convolution of
/// x by ct.
LogicalResult vjp(Conv2dGradWeightOp op, VJPBuilder &v, Value ct, Grads &out) {
  RankedTensorType inputType = v.typeOf(op.getInput()),
                   gradType = v.typeOf(op.getGrad());
  Value weight = v.castTo(ct, inputType.getElementType());
  out[0] = v.b.create<Conv2dGradInputOp>(
      v.loc, inputType, v.castTo(op.getGrad(), inputType.getElementType()),
      weight, op.getStridesAttr(), op.getPaddingAttr(), op.getDilationsAttr(),
      op.getGroupsAttr(), op.getAccTypeAttr());
  out[1] = v.castTo(
      v.b.create<Conv2dOp>(
          v.loc, gradType.clone(inputType.getElementType()), op.getInput(),
          weight, /*bias=*/Value(), op.getStridesAttr(), op.getPaddingAttr(),
          op.getDilationsAttr(), op.getGroupsAttr(), op.getAccTypeAttr()),
      gradType.getElementType());
  return success();
}
LogicalResult vjp(Im2colOp op, VJPBuilder &v, Value g, Grads &out) {
  auto col2im = v.b.create<Col2imOp>(
      v.loc, v.typeOf(op.getInput()), g, op.getKernelAttr(),
      op.getStridesAttr(), op.getPaddingAttr(), op.getDilationsAttr());
  out[0] = col2im;
  return success();
}
LogicalResult vjp(Col2imOp op, VJPBuilder &v, Value g, Grads &out) {
  RankedTensorType columns = v.typeOf(op.getColumns());
  auto im2col = v.b.create<Im2colOp>(
      v.loc, columns.clone(v.typeOf(g).getElementType()), g, op.getKernelAttr(),
      op.getStridesAttr(), op.getPaddingAttr(), op.getDilationsAttr());
  out[0] = v.castTo(im2col, columns.getElementType());
  return success();
}

/// The gradient of an average pooling of `input` with `window`: each
/// window's gradient over its KH * KW columns, divided in f32 (f64 for f64)
/// as the mean divides, then summed back into the image by amp.col2im,
/// which rounds once.
Value avgPoolGrad(VJPBuilder &v, RankedTensorType input, Value g,
                  const Conv2dWindow &window) {
  ArrayRef<int64_t> in = input.getShape(), y = v.typeOf(g).getShape();
  int64_t values = window.kernel[0] * window.kernel[1], positions = y[2] * y[3];
  Type wide =
      getDefaultAccumulatorType(cast<FloatType>(input.getElementType()));
  Value spread = v.b.create<BroadcastToOp>(
      v.loc, RankedTensorType::get({in[0], in[1], values, positions}, wide),
      v.reshape(v.castTo(g, wide), {in[0], in[1], 1, positions}));
  Value share = v.div(spread, v.scalar(static_cast<double>(values), wide));
  auto padding = ArrayRef<int64_t>(window.padding);
  bool padded = llvm::any_of(padding, [](int64_t p) { return p != 0; });
  return v.b.create<Col2imOp>(
      v.loc, input, v.reshape(share, {in[0], in[1] * values, positions}),
      v.b.getDenseI64ArrayAttr(window.kernel),
      v.b.getDenseI64ArrayAttr(window.strides),
      padded ? v.b.getDenseI64ArrayAttr(padding) : DenseI64ArrayAttr(),
      DenseI64ArrayAttr());
}
LogicalResult vjp(AvgPool2dOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = avgPoolGrad(v, v.typeOf(op.getInput()), g, op.getWindow());
  return success();
}
LogicalResult vjp(AdaptiveAvgPool2dOp op, VJPBuilder &v, Value g, Grads &out) {
  RankedTensorType input = v.typeOf(op.getInput());
  ArrayRef<int64_t> in = input.getShape();
  ArrayRef<int64_t> o = op.getOutputSize();
  if (op.tilesInput()) {
    Conv2dWindow window;
    window.kernel[0] = window.strides[0] = in[2] / o[0];
    window.kernel[1] = window.strides[1] = in[3] / o[1];
    out[0] = avgPoolGrad(v, input, g, window);
    return success();
  }
  // Windows of different sizes, which may overlap: each output's gradient
  // divided by its window's size, then spread over the window's columns
  // and rows by matmuls with 0/1 matrices (B_w [OW, W], B_h [OH, H]), in
  // f32 (f64 for f64): dx = B_h^T (g / sizes) B_w.
  auto wide =
      getDefaultAccumulatorType(cast<FloatType>(input.getElementType()));
  auto constant = [&](ArrayRef<int64_t> shape, ArrayRef<double> data) {
    SmallVector<APFloat> values;
    for (double value : data)
      values.push_back(v.b.getFloatAttr(wide, value).getValue());
    return v.b.create<ConstantOp>(
        v.loc,
        DenseElementsAttr::get(RankedTensorType::get(shape, wide), values));
  };
  auto membership = [&](int64_t size, int64_t outputs) {
    SmallVector<double> matrix(outputs * size, 0.0);
    for (int64_t i = 0; i < outputs; ++i) {
      auto [begin, end] =
          AdaptiveAvgPool2dOp::getWindowBounds(size, outputs, i);
      for (int64_t k = begin; k < end; ++k)
        matrix[i * size + k] = 1.0;
    }
    return constant({outputs, size}, matrix);
  };
  int64_t images = in[0] * in[1];
  Value share =
      v.div(v.castTo(g, wide),
            constant({o[0], o[1]},
                     AdaptiveAvgPool2dOp::getWindowSizes(in[2], in[3], o)));
  Value columns = v.b.create<MatmulOp>(
      v.loc, RankedTensorType::get({images * o[0], in[3]}, wide),
      v.reshape(share, {images * o[0], o[1]}), membership(in[3], o[1]),
      UnitAttr(), UnitAttr(), TypeAttr::get(wide), /*bias=*/Value());
  Value rows = v.b.create<BroadcastToOp>(
      v.loc, RankedTensorType::get({images, o[0], in[2]}, wide),
      membership(in[2], o[0]));
  Value grad = v.b.create<MatmulOp>(
      v.loc, RankedTensorType::get({images, in[2], in[3]}, wide), rows,
      v.reshape(columns, {images, o[0], in[3]}), v.b.getUnitAttr(), UnitAttr(),
      TypeAttr::get(wide), /*bias=*/Value());
  out[0] = v.castTo(v.reshape(grad, in), input.getElementType());
  return success();
}
LogicalResult vjp(MaxPool2dOp op, VJPBuilder &v, Value g, Grads &out) {
  RankedTensorType input = v.typeOf(op.getInput());
  out[0] = v.b.create<MaxPool2dGradOp>(
      v.loc, input, op.getInput(), v.castTo(g, input.getElementType()),
      op.getKernelAttr(), op.getStridesAttr(), op.getPaddingAttr(),
      op.getDilationsAttr());
  return success();
}

LogicalResult vjp(AttentionOp op, VJPBuilder &v, Value g, Grads &out) {
  // One amp.attention_grad, which recomputes the probabilities from the
  // forward's log-sum-exp instead of keeping [B, H, T, S] scores, as
  // FlashAttention's backward does. The forward gains the log-sum-exp: an
  // op with it replaces the one without (left dead for amp-autodiff's
  // cleanup), so the forward computes its output once.
  AttentionOp forward = op;
  if (!op.getLse()) {
    OpBuilder::InsertionGuard guard(v.b);
    v.b.setInsertionPointAfter(op);
    forward = v.b.create<AttentionOp>(op.getLoc(), op.getQuery(), op.getKey(),
                                      op.getValue(), op.getCausalAttr(),
                                      op.getScaleAttr(), v.b.getUnitAttr());
    forward->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    op.getResult().replaceAllUsesWith(forward.getResult());
  }
  Value q = op.getQuery(), k = op.getKey(), val = op.getValue();
  auto grads = v.b.create<AttentionGradOp>(
      v.loc, q, k, val, forward.getResult(), forward.getLse(),
      v.castTo(g, v.typeOf(q).getElementType()), op.getCausalAttr(),
      op.getScaleAttr());
  // Each gradient is summed in the accumulator and rounded once, to the
  // operands' type.
  out[0] = grads.getQueryGrad();
  out[1] = grads.getKeyGrad();
  out[2] = grads.getValueGrad();
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and normalisation
//===----------------------------------------------------------------------===//

LogicalResult vjp(SumOp op, VJPBuilder &v, Value g, Grads &out) {
  RankedTensorType input = v.typeOf(op.getInput());
  out[0] =
      v.castTo(v.expandReduced(g, op.getDims(), input), input.getElementType());
  return success();
}
LogicalResult vjp(MeanOp op, VJPBuilder &v, Value g, Grads &out) {
  RankedTensorType input = v.typeOf(op.getInput());
  int64_t count = 1;
  for (int64_t d : op.getDims())
    count *= input.getDimSize(d);
  // Divided in f32 (f64 for f64), as the forward mean accumulates: a count
  // above 65504 is inf in f16, and g / count would underflow there.
  Type wide =
      getDefaultAccumulatorType(cast<FloatType>(v.typeOf(g).getElementType()));
  Value spread = v.expandReduced(v.castTo(g, wide), op.getDims(), input);
  out[0] = v.castTo(v.div(spread, v.scalar(static_cast<double>(count), wide)),
                    input.getElementType());
  return success();
}
LogicalResult vjp(MaxOp op, VJPBuilder &v, Value g, Grads &out) {
  // Every maximal element of a group receives an equal share.
  RankedTensorType input = v.typeOf(op.getInput());
  Value maxima = v.expandReduced(op.getResult(), op.getDims(), input);
  Value isMax = v.compare(ComparePredicate::eq, op.getInput(), maxima);
  Value ones = v.select(isMax, v.scalarLike(1.0, g), v.scalarLike(0.0, g));
  Value count = v.sumKeep(ones, op.getDims(), input.getElementType());
  SmallVector<int64_t> keptShape(input.getShape());
  for (int64_t d : op.getDims())
    keptShape[d] = 1;
  Value share = v.div(v.reshape(g, keptShape), count);
  out[0] = v.select(isMax, share, v.scalarLike(0.0, g));
  return success();
}
LogicalResult vjp(SoftmaxOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.b.create<SoftmaxGradOp>(v.loc, op.getResult(), g, op.getDim());
  return success();
}
LogicalResult vjp(LogSoftmaxOp op, VJPBuilder &v, Value g, Grads &out) {
  out[0] = v.b.create<LogSoftmaxGradOp>(v.loc, op.getResult(), g, op.getDim());
  return success();
}

/// The shared part of the norms: gradients of the weight (and bias) and the
/// input gradient through `GradOp`.
template <typename GradOp, typename NormOp>
LogicalResult vjpNorm(NormOp op, VJPBuilder &v, Value g, Grads &out,
                      Value weight, Value bias, unsigned biasIndex) {
  Value x = op.getInput();
  RankedTensorType xt = v.typeOf(x);
  int64_t axis = op.getNormalizedAxis();
  SmallVector<int64_t> leading;
  for (int64_t d = 0; d < axis; ++d)
    leading.push_back(d);
  auto reduceToParam = [&](Value value, Value param) {
    RankedTensorType type = v.typeOf(param);
    return v.reshape(v.sumKeep(value, leading, type.getElementType()),
                     type.getShape());
  };
  Value inputGrad = g;
  if (weight) {
    Value normalized;
    if constexpr (std::is_same_v<NormOp, LayerNormOp>)
      normalized =
          v.b.create<LayerNormOp>(v.loc, xt, x, Value(), Value(),
                                  op.getAxisAttr(), op.getEpsilonAttr());
    else
      normalized = v.b.create<RmsNormOp>(v.loc, xt, x, Value(),
                                         op.getAxisAttr(), op.getEpsilonAttr());
    out[1] = reduceToParam(v.mul(g, normalized), weight);
    inputGrad = v.mul(g, v.castTo(weight, xt.getElementType()));
  }
  if (bias)
    out[biasIndex] = reduceToParam(g, bias);
  out[0] = v.b.create<GradOp>(v.loc, xt, x, inputGrad, op.getAxisAttr(),
                              op.getEpsilonAttr());
  return success();
}
LogicalResult vjp(LayerNormOp op, VJPBuilder &v, Value g, Grads &out) {
  return vjpNorm<LayerNormGradOp>(op, v, g, out, op.getWeight(), op.getBias(),
                                  op.getWeight() ? 2 : 1);
}
LogicalResult vjp(RmsNormOp op, VJPBuilder &v, Value g, Grads &out) {
  return vjpNorm<RmsNormGradOp>(op, v, g, out, op.getWeight(), Value(), 0);
}

LogicalResult vjp(BatchNormOp op, VJPBuilder &v, Value g, Grads &out) {
  // One amp.batch_norm_grad: amp-decompose writes its steps, or the
  // runtime runs it whole. The parameters' gradients come in their types;
  // without a parameter, in the statistics' type, unused.
  RankedTensorType input = v.typeOf(op.getInput());
  RankedTensorType stats = v.typeOf(op.getRunningMean());
  Value weight = op.getWeight(), bias = op.getBias();
  auto grad = v.b.create<BatchNormGradOp>(
      v.loc, input, weight ? v.typeOf(weight) : stats,
      bias ? v.typeOf(bias) : stats, op.getInput(),
      v.castTo(g, input.getElementType()), op.getRunningMean(),
      op.getRunningVar(), weight, op.getEpsilonAttr(), op.getTrainingAttr());
  out[0] = grad.getInputGrad();
  unsigned next = 3;
  if (weight)
    out[next++] = grad.getScaleGrad();
  if (bias)
    out[next] = grad.getBiasGrad();
  return success();
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

LogicalResult vjp(CrossEntropyOp op, VJPBuilder &v, Value g, Grads &out) {
  LossReductionAttr reduction = op.getReductionAttr();
  std::optional<int64_t> ignored = op.getIgnoreIndex();
  if (ignored && op.getReduction() == LossReduction::mean) {
    // The mean over the rows that count, as g / max(count, 1) on a summed
    // gradient: the count is a reduction of its own, so the gradient's
    // row kernel needs no pass over every label.
    Type f32 = v.b.getF32Type();
    Value count = v.sumAll(v.countedRows(op.getLabels(), *ignored, f32), f32);
    Value atLeastOne = v.b.create<MaximumOp>(v.loc, count, v.scalar(1.0, f32));
    Type gradElement = v.typeOf(g).getElementType();
    g = v.castTo(v.div(v.castTo(g, f32), atLeastOne), gradElement);
    reduction = LossReductionAttr::get(v.b.getContext(), LossReduction::sum);
  }
  out[0] = v.b.create<CrossEntropyGradOp>(
      v.loc, op.getLogits(), op.getLabels(), g, reduction,
      ignored ? v.b.getI64IntegerAttr(*ignored) : IntegerAttr());
  return success();
}
LogicalResult vjp(MseLossOp op, VJPBuilder &v, Value g, Grads &out) {
  RankedTensorType type = v.typeOf(op.getInput());
  double factor = 2.0;
  if (op.getReduction() == LossReduction::mean)
    factor /= static_cast<double>(type.getNumElements());
  Value diff = v.sub(op.getInput(), op.getTarget());
  // The factor is applied in the loss's type first: a loss-scaled seed of
  // 65536 is inf in f16, 65536 * 2 / N usually is not.
  Value scale =
      v.castTo(v.mul(g, v.scalarLike(factor, g)), type.getElementType());
  out[0] = v.mul(diff, scale);
  out[1] = v.neg(out[0]);
  return success();
}

//===----------------------------------------------------------------------===//
// Gradient ops (second order)
//===----------------------------------------------------------------------===//
//
// The gradient ops the first-order VJPs emit are differentiable in turn, so
// that a gradient taken inside a model (a gradient penalty) can be
// differentiated again. Each is linear in its incoming gradient `g`; the
// other operand's VJP is the second derivative of the forward op.

/// relu_grad(x, g) = g * [x > 0]: linear in g, flat in x.
LogicalResult vjp(ReluGradOp op, VJPBuilder &v, Value ct, Grads &out) {
  out[0] = v.zeros(v.typeOf(op.getInput()));
  out[1] = v.b.create<ReluGradOp>(v.loc, op.getInput(), ct);
  return success();
}

/// gelu_grad(x, g) = g * gelu'(x): d/dg is gelu_grad(x, ct), d/dx is
/// ct * g * gelu''(x), with gelu''(x) = phi(x) (2 - x^2) for the erf form
/// and (1 - t^2) (u' - x t u'^2 + x u'' / 2) for the tanh form (t =
/// tanh(u), u = c (x + a x^3), c = sqrt(2 / pi), a = 0.044715).
LogicalResult vjp(GeluGradOp op, VJPBuilder &v, Value ct, Grads &out) {
  Value x = op.getInput();
  Value x2 = v.mul(x, x);
  Value second;
  if (op.getApproximate() == GeluApproximation::tanh) {
    constexpr double c = 0.7978845608028654, a = 0.044715;
    Value u = v.mul(v.scalarLike(c, x),
                    v.add(x, v.mul(v.scalarLike(a, x), v.mul(x2, x))));
    Value t = v.b.create<TanhOp>(v.loc, u);
    Value du =
        v.mul(v.scalarLike(c, x),
              v.add(v.scalarLike(1.0, x), v.mul(v.scalarLike(3 * a, x), x2)));
    Value ddu = v.mul(v.scalarLike(6 * a * c, x), x);
    Value inner = v.add(v.sub(du, v.mul(v.mul(x, t), v.mul(du, du))),
                        v.mul(v.scalarLike(0.5, x), v.mul(x, ddu)));
    second = v.mul(v.sub(v.scalarLike(1.0, x), v.mul(t, t)), inner);
  } else {
    // phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
    Value phi =
        v.mul(v.scalarLike(0.3989422804014327, x),
              v.b.create<ExpOp>(v.loc, v.mul(v.scalarLike(-0.5, x), x2)));
    second = v.mul(phi, v.sub(v.scalarLike(2.0, x), x2));
  }
  out[0] = v.mul(v.mul(ct, op.getGrad()), second);
  out[1] = v.b.create<GeluGradOp>(v.loc, x, ct, op.getApproximateAttr());
  return success();
}

/// The sum of `value` over `dim`, kept as a dimension of 1.
static Value sumAlong(VJPBuilder &v, Value value, int64_t dim) {
  int64_t rank = v.typeOf(value).getRank();
  return v.sumKeep(value, {(dim % rank + rank) % rank},
                   v.typeOf(value).getElementType());
}

/// softmax_grad(y, g) = y (g - sum(g y)): d/dg is softmax_grad(y, ct),
/// d/dy is ct (g - sum(g y)) - g sum(ct y).
LogicalResult vjp(SoftmaxGradOp op, VJPBuilder &v, Value ct, Grads &out) {
  Value y = op.getOutput(), g = op.getGrad();
  int64_t dim = op.getDim();
  Value gy = sumAlong(v, v.mul(g, y), dim);
  Value cty = sumAlong(v, v.mul(ct, y), dim);
  out[0] = v.sub(v.mul(ct, v.sub(g, gy)), v.mul(g, cty));
  out[1] = v.b.create<SoftmaxGradOp>(v.loc, y, ct, dim);
  return success();
}

/// log_softmax_grad(y, g) = g - exp(y) sum(g): d/dg is ct - sum(ct exp(y)),
/// d/dy is -ct exp(y) sum(g).
LogicalResult vjp(LogSoftmaxGradOp op, VJPBuilder &v, Value ct, Grads &out) {
  Value y = op.getOutput(), g = op.getGrad();
  int64_t dim = op.getDim();
  Value e = v.b.create<ExpOp>(v.loc, y);
  out[0] = v.neg(v.mul(v.mul(ct, e), sumAlong(v, g, dim)));
  out[1] = v.sub(ct, sumAlong(v, v.mul(ct, e), dim));
  return success();
}

/// layer_norm_grad(x, g) (`centered`) and rms_norm_grad(x, g): with n the
/// normalised elements, mean over them, r = sqrt(mean(d^2) + eps), d = x -
/// mean(x) (x for RMS), h = d / r, m = mean(g h) and out the op's result,
/// out = (g [- mean(g)] - h m) / r is symmetric in g, so d/dg is the op
/// of ct; d/dx is (-h A - m ct [+ m mean(ct)] + 2 m h B) / r^2 - out B / r,
/// where A = mean(ct (g [- mean(g)])) and B = mean(ct h).
template <typename GradOp>
LogicalResult vjpNormGrad(GradOp op, VJPBuilder &v, Value ct, Grads &out,
                          bool centered) {
  Value x = op.getInput(), g = op.getGrad();
  RankedTensorType type = v.typeOf(x);
  Type element = type.getElementType();
  SmallVector<int64_t> dims;
  int64_t n = 1;
  for (int64_t d = op.getNormalizedAxis(); d < type.getRank(); ++d) {
    dims.push_back(d);
    n *= type.getDimSize(d);
  }
  Value inverse = v.scalarLike(1.0 / static_cast<double>(n), x);
  auto mean = [&](Value value) {
    return v.mul(v.sumKeep(value, dims, element), inverse);
  };
  Value d = centered ? v.sub(x, mean(x)) : x;
  Value r = v.b.create<SqrtOp>(
      v.loc, v.add(mean(v.mul(d, d)),
                   v.scalarLike(op.getEpsilon().convertToDouble(), x)));
  Value h = v.div(d, r);
  Value m = mean(v.mul(g, h));
  Value centeredG = centered ? v.sub(g, mean(g)) : g;
  Value a = mean(v.mul(ct, centeredG));
  Value bb = mean(v.mul(ct, h));
  Value inner = v.sub(v.mul(v.mul(v.scalarLike(2.0, x), m), v.mul(h, bb)),
                      v.add(v.mul(h, a), v.mul(m, ct)));
  if (centered)
    inner = v.add(inner, v.mul(m, mean(ct)));
  Value result = op.getResult();
  out[0] = v.sub(v.div(inner, v.mul(r, r)), v.div(v.mul(result, bb), r));
  out[1] =
      v.b.create<GradOp>(v.loc, x, ct, op.getAxisAttr(), op.getEpsilonAttr());
  return success();
}
LogicalResult vjp(LayerNormGradOp op, VJPBuilder &v, Value ct, Grads &out) {
  return vjpNormGrad(op, v, ct, out, /*centered=*/true);
}
LogicalResult vjp(RmsNormGradOp op, VJPBuilder &v, Value ct, Grads &out) {
  return vjpNormGrad(op, v, ct, out, /*centered=*/false);
}

/// cross_entropy_grad(z, y, dl) = s (softmax(z) - onehot(y)) on each row,
/// s the row's factor (dl, divided by the rows for a mean, or by the rows
/// that count with ignore_index; 0 on an ignored row): d/dz is s
/// softmax_grad(softmax(z), ct) on each row, d/d dl the sum of ct times the
/// op at dl = 1. The labels have none.
LogicalResult vjp(CrossEntropyGradOp op, VJPBuilder &v, Value ct, Grads &out) {
  Value logits = op.getLogits(), labels = op.getLabels(), dl = op.getGrad();
  RankedTensorType type = v.typeOf(logits);
  RankedTensorType labelType = v.typeOf(labels);
  Type element = type.getElementType();
  int64_t classes = type.getRank() - 1;
  Value p = v.b.create<SoftmaxOp>(v.loc, logits, classes);
  Value rows = v.b.create<SoftmaxGradOp>(v.loc, p, ct, classes);
  Value factor = v.castTo(dl, element);
  std::optional<int64_t> ignored = op.getIgnoreIndex();
  bool mean = op.getReduction() == LossReduction::mean;
  SmallVector<int64_t> rowShape(labelType.getShape());
  rowShape.push_back(1);
  if (ignored) {
    Value mask = v.countedRows(labels, *ignored, element);
    if (mean) {
      Value count = v.sumAll(mask, element);
      factor = v.div(
          factor, v.b.create<MaximumOp>(v.loc, count, v.scalar(1.0, element)));
    }
    factor = v.reshape(v.mul(mask, factor), rowShape);
  } else if (mean) {
    factor =
        v.div(factor, v.scalar(static_cast<double>(labelType.getNumElements()),
                               element));
  }
  out[0] = v.mul(rows, factor);
  auto unit = v.b.create<CrossEntropyGradOp>(
      v.loc, logits, labels, v.scalarLike(1.0, dl), op.getReductionAttr(),
      op.getIgnoreIndexAttr());
  out[2] = v.castTo(v.sumAll(v.mul(ct, unit), element),
                    v.typeOf(dl).getElementType());
  return success();
}

/// embedding_grad(ids, g) adds g's rows into the table's: d/dg gathers
/// ct's rows back.
LogicalResult vjp(EmbeddingGradOp op, VJPBuilder &v, Value ct, Grads &out) {
  out[1] = v.b.create<EmbeddingOp>(v.loc, ct, op.getIndices());
  return success();
}

/// The external model: dispatches to the `vjp` overload of OpT.
template <typename OpT>
struct VJPModel : DifferentiableOpInterface::ExternalModel<VJPModel<OpT>, OpT> {
  LogicalResult buildVJP(Operation *op, OpBuilder &builder,
                         ArrayRef<Value> resultGrads,
                         SmallVectorImpl<Value> &operandGrads) const {
    operandGrads.assign(op->getNumOperands(), Value());
    // Only the first result is differentiable (attention's log-sum-exp, a
    // residual for its backward, is the only other one an amp op has).
    for (auto [index, g] : llvm::enumerate(resultGrads))
      if (index > 0 && g)
        return op->emitOpError()
               << "result #" << index
               << " is not differentiable; amp-autodiff differentiates only "
                  "the op's first result";
    if (resultGrads.empty() || !resultGrads.front())
      return success();
    VJPBuilder v{builder, op->getLoc()};
    return vjp(cast<OpT>(op), v, resultGrads.front(), operandGrads);
  }
};

template <typename... Ops> void attachVJPs(MLIRContext *context) {
  (Ops::template attachInterface<VJPModel<Ops>>(*context), ...);
}

} // namespace

void amp::eraseStopGradients(Operation *root) {
  root->walk([](StopGradientOp op) {
    op.replaceAllUsesWith(op.getInput());
    op.erase();
  });
}

void amp::registerDifferentiableExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, AmpDialect *) {
    attachVJPs<NegOp, AbsOp, StopGradientOp, ExpOp, LogOp, SqrtOp, RsqrtOp,
               TanhOp, SigmoidOp, SoftplusOp, ReluOp, GeluOp, PowOp, AddOp,
               SubOp, MulOp, DivOp, MaximumOp, MinimumOp, SelectOp, CastOp,
               ReshapeOp, TransposeOp, BroadcastToOp, SliceOp, ConcatOp,
               EmbeddingOp, DropoutOp, MatmulOp, Conv2dOp, Conv2dGradInputOp,
               Conv2dGradWeightOp, Im2colOp, Col2imOp, AvgPool2dOp,
               AdaptiveAvgPool2dOp, MaxPool2dOp, AttentionOp, SumOp, MeanOp,
               MaxOp, SoftmaxOp, LogSoftmaxOp, LayerNormOp, RmsNormOp,
               BatchNormOp, CrossEntropyOp, MseLossOp, ReluGradOp, GeluGradOp,
               SoftmaxGradOp, LogSoftmaxGradOp, LayerNormGradOp, RmsNormGradOp,
               CrossEntropyGradOp, EmbeddingGradOp>(context);
  });
}
