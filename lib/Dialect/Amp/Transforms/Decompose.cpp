//===- Decompose.cpp - --amp-decompose ------------------------------------===//
//
// Rewrites the ops the backend runs as other ops (the Amp_Decomposed
// trait), to the bit: a convolution as an im2col and a matmul per group
// (its gradients as im2col, col2im and matmuls),
// an average pooling as an im2col and a mean (an adaptive one as that or
// as sums over slices), a batch normalisation as its statistics and
// elementwise steps.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Dialect/Amp/Transforms/VJP.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPDECOMPOSE
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

static Value reshape(OpBuilder &b, Location loc, Value value,
                     ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return b.create<ReshapeOp>(loc, type.clone(shape), value);
}

/// Records on the function argument that `value` is (through casts), if it
/// is a parameter, how amp_step_init starts it (backend::getParamInit),
/// since the ops that replace its layer no longer say.
static void recordParamInit(Value value, int64_t fanIn, double initial) {
  while (auto cast = value.getDefiningOp<CastOp>())
    value = cast.getInput();
  auto arg = dyn_cast<BlockArgument>(value);
  auto func = arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp())
                  : func::FuncOp();
  if (!func || !func.getArgAttr(arg.getArgNumber(), AmpDialect::kParamAttrName))
    return;
  OpBuilder b(func);
  func.setArgAttr(
      arg.getArgNumber(), AmpDialect::kParamInitAttrName,
      b.getDenseF64ArrayAttr({static_cast<double>(fanIn), initial}));
}

/// The columns of `op`'s input (amp.im2col of its window), [N, G,
/// C/G*KH*KW, OH*OW]: for weight shape `w`, output shape `y`.
template <typename ConvOp>
static Value groupedColumns(OpBuilder &b, ConvOp op, ArrayRef<int64_t> w,
                            ArrayRef<int64_t> y, int64_t groups) {
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  int64_t positions = y[2] * y[3];
  auto im2col = b.create<Im2colOp>(
      op.getLoc(),
      inputType.clone({y[0], inputType.getDimSize(1) * w[2] * w[3], positions}),
      op.getInput(), b.getDenseI64ArrayAttr(w.drop_front(2)),
      op.getStridesAttr(), op.getPaddingAttr(), op.getDilationsAttr());
  return reshape(b, op.getLoc(), im2col,
                 {y[0], groups, w[1] * w[2] * w[3], positions});
}

/// How a convolution's parameters start, torch.nn.Conv2d's: uniform in
/// +-1/sqrt(C/G * KH * KW), the bias too.
static void recordConvInit(Conv2dOp op) {
  ArrayRef<int64_t> w =
      cast<RankedTensorType>(op.getWeight().getType()).getShape();
  recordParamInit(op.getWeight(), w[1] * w[2] * w[3], 0.0);
  if (Value bias = op.getBias())
    recordParamInit(bias, w[1] * w[2] * w[3], 0.0);
}

/// y[n, o] = W[o] . im2col(x)[n] per group: the matmul sums over
/// (channel, kh, kw) ascending, amp.conv2d's order; the bias is added to
/// the matmul's accumulator-typed result and the sum cast once.
static void decompose(Conv2dOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  ArrayRef<int64_t> w = cast<RankedTensorType>(op.getWeight().getType())
                            .getShape(),
                    y = op.getType().getShape();
  int64_t groups = op.getGroupCount();
  int64_t columns = w[1] * w[2] * w[3], positions = y[2] * y[3];
  recordConvInit(op);
  Value cols = groupedColumns(b, op, w, y, groups);
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

/// The gradient of a convolution in its input: per group, each window
/// column's gradient weight^T grad in the accumulator type, summed back
/// into the image by amp.col2im, which rounds once.
static void decompose(Conv2dGradInputOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  ArrayRef<int64_t>
      w = cast<RankedTensorType>(op.getWeight().getType()).getShape(),
      y = cast<RankedTensorType>(op.getGrad().getType()).getShape();
  int64_t groups = op.getGroupCount(), groupOutputs = w[0] / groups;
  int64_t columns = w[1] * w[2] * w[3], positions = y[2] * y[3];
  Value grad =
      reshape(b, loc, op.getGrad(), {y[0], groups, groupOutputs, positions});
  Value weight =
      reshape(b, loc, op.getWeight(), {groups, groupOutputs, columns});
  Value dColumns = b.create<MatmulOp>(
      loc,
      RankedTensorType::get({y[0], groups, columns, positions},
                            op.getAccumulatorType()),
      weight, grad, b.getUnitAttr(), UnitAttr(), op.getAccTypeAttr(),
      /*bias=*/Value());
  dColumns = reshape(b, loc, dColumns, {y[0], groups * columns, positions});
  Value image = b.create<Col2imOp>(
      loc, op.getType(), dColumns, b.getDenseI64ArrayAttr(w.drop_front(2)),
      op.getStridesAttr(), op.getPaddingAttr(), op.getDilationsAttr());
  op.replaceAllUsesWith(image);
  op.erase();
}

/// The gradient of a convolution in its weight: per group, grad times the
/// input's columns transposed, over every image and position at once (one
/// GEMM with k = N * OH * OW, rounded once).
static void decompose(Conv2dGradWeightOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> w = cast<RankedTensorType>(op.getType()).getShape(),
                    y = cast<RankedTensorType>(op.getGrad().getType())
                            .getShape();
  int64_t groups = op.getGroupCount(), groupOutputs = w[0] / groups;
  int64_t columns = w[1] * w[2] * w[3], positions = y[2] * y[3];
  Value cols = groupedColumns(b, op, w, y, groups);
  Value grad =
      reshape(b, loc, op.getGrad(), {y[0], groups, groupOutputs, positions});
  // [N, G, rows, P] as [G, rows, N * P].
  auto leadGroups = [&](Value value, int64_t rows) {
    auto type = cast<RankedTensorType>(value.getType());
    Value moved =
        b.create<TransposeOp>(loc, type.clone({groups, rows, y[0], positions}),
                              value, b.getDenseI64ArrayAttr({1, 2, 0, 3}));
    return reshape(b, loc, moved, {groups, rows, y[0] * positions});
  };
  Value lhs = leadGroups(grad, groupOutputs);
  Value rhs = leadGroups(cols, columns);
  Value dWeight = b.create<MatmulOp>(
      loc,
      RankedTensorType::get({groups, groupOutputs, columns},
                            inputType.getElementType()),
      lhs, rhs, UnitAttr(), b.getUnitAttr(), op.getAccTypeAttr(),
      /*bias=*/Value());
  op.replaceAllUsesWith(reshape(b, loc, dWeight, w));
  op.erase();
}

/// The mean of each window: amp.mean over the window's column of
/// amp.im2col's result, which is the op's definition.
static void decompose(AvgPool2dOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> in = inputType.getShape(), y = op.getType().getShape();
  Conv2dWindow window = op.getWindow();
  int64_t values = window.kernel[0] * window.kernel[1], positions = y[2] * y[3];
  auto im2col = b.create<Im2colOp>(
      loc, inputType.clone({in[0], in[1] * values, positions}), op.getInput(),
      op.getKernelAttr(), b.getDenseI64ArrayAttr(window.strides),
      op.getPaddingAttr(), DenseI64ArrayAttr());
  Value columns = reshape(b, loc, im2col, {in[0], in[1], values, positions});
  Value mean =
      b.create<MeanOp>(loc, inputType.clone({in[0], in[1], positions}), columns,
                       b.getDenseI64ArrayAttr({2}), UnitAttr(), TypeAttr());
  op.replaceAllUsesWith(reshape(b, loc, mean, y));
  op.erase();
}

/// Adaptive average pooling: amp.avg_pool2d where the windows tile the
/// image; otherwise each window's rows summed (amp.sum over a slice, in the
/// accumulator type A), then its columns, divided by its size: the op's
/// definition.
static void decompose(AdaptiveAvgPool2dOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> in = inputType.getShape();
  ArrayRef<int64_t> out = op.getOutputSize();
  if (op.tilesInput()) {
    auto kernel = b.getDenseI64ArrayAttr({in[2] / out[0], in[3] / out[1]});
    auto pool = b.create<AvgPool2dOp>(loc, op.getType(), op.getInput(), kernel,
                                      kernel, DenseI64ArrayAttr());
    op.replaceAllUsesWith(pool.getResult());
    op.erase();
    decompose(pool);
    return;
  }
  auto wide =
      getDefaultAccumulatorType(cast<FloatType>(inputType.getElementType()));
  Value x = op.getInput();
  if (inputType.getElementType() != wide)
    x = b.create<CastOp>(loc, inputType.clone(wide), x);
  // Sums the windows along `dim` (2: rows, 3: columns) of `value`.
  auto sumWindows = [&](Value value, int64_t dim, int64_t outputs) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<Value> sums;
    for (int64_t i = 0; i < outputs; ++i) {
      auto [begin, end] = AdaptiveAvgPool2dOp::getWindowBounds(
          type.getDimSize(dim), outputs, i);
      SmallVector<int64_t> start(4, 0), limit(type.getShape());
      start[dim] = begin;
      limit[dim] = end;
      SmallVector<int64_t> window(type.getShape()), summed(type.getShape());
      window[dim] = end - begin;
      summed[dim] = 1;
      Value slice = b.create<SliceOp>(loc, type.clone(window), value,
                                      b.getDenseI64ArrayAttr(start),
                                      b.getDenseI64ArrayAttr(limit));
      sums.push_back(b.create<SumOp>(loc, type.clone(summed), slice,
                                     b.getDenseI64ArrayAttr({dim}),
                                     b.getUnitAttr(), TypeAttr()));
    }
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = outputs;
    return b
        .create<ConcatOp>(loc, type.clone(shape), sums,
                          b.getI64IntegerAttr(dim))
        .getResult();
  };
  Value sums = sumWindows(sumWindows(x, 2, out[0]), 3, out[1]);
  auto countType = RankedTensorType::get({out[0], out[1]}, wide);
  auto counts = AdaptiveAvgPool2dOp::getWindowSizes(in[2], in[3], out);
  SmallVector<APFloat> values;
  for (double count : counts)
    values.push_back(b.getFloatAttr(wide, count).getValue());
  Value divisor =
      b.create<ConstantOp>(loc, DenseElementsAttr::get(countType, values));
  Value mean = b.create<DivOp>(loc, sums, divisor);
  if (op.getType().getElementType() != wide)
    mean = b.create<CastOp>(loc, op.getType(), mean);
  op.replaceAllUsesWith(mean);
  op.erase();
}

/// Batch normalisation as its definition's steps, each an amp op in the
/// accumulator type A: the channel statistics by amp.mean over the reduced
/// dimensions, the normalisation by a subtraction, a square root and a
/// division, then the affine scale and bias, and the running statistics'
/// update.
/// torch.nn.BatchNorm2d's start: the scale at 1, the bias at 0.
static void recordBatchNormInit(BatchNormOp op) {
  if (Value weight = op.getWeight())
    recordParamInit(weight, 0, 1.0);
  if (Value bias = op.getBias())
    recordParamInit(bias, 0, 0.0);
}

static void decompose(BatchNormOp op) {
  recordBatchNormInit(op);
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto statsType = cast<RankedTensorType>(op.getRunningMean().getType());
  Type acc = statsType.getElementType();
  int64_t channels = statsType.getDimSize(0);
  SmallVector<int64_t> kept(inputType.getRank(), 1);
  kept[1] = channels; // a channel's values broadcast over the rest
  SmallVector<int64_t> reduced = op.getReducedDims();
  auto constant = [&](double value) -> Value {
    auto type = RankedTensorType::get({}, acc);
    return b.create<ConstantOp>(
        loc,
        DenseElementsAttr::get(type, b.getFloatAttr(acc, value).getValue()));
  };
  auto wide = [&](Value value) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() == acc)
      return value;
    return b.create<CastOp>(loc, type.clone(acc), value);
  };
  auto channelMean = [&](Value value) -> Value {
    return b.create<MeanOp>(loc, statsType, value,
                            b.getDenseI64ArrayAttr(reduced), UnitAttr(),
                            TypeAttr());
  };
  auto perChannel = [&](Value value) { return reshape(b, loc, value, kept); };

  Value x = wide(op.getInput());
  Value var = op.getRunningVar(), centered;
  Value newMean = op.getRunningMean(), newVar = var;
  if (op.getTraining()) {
    Value mean = channelMean(x);
    centered = b.create<SubOp>(loc, x, perChannel(mean));
    Value batchVar =
        channelMean(b.create<MulOp>(loc, centered, centered).getResult());
    double momentum = op.getMomentum().convertToDouble();
    auto update = [&](Value running, Value batch) -> Value {
      Value kept = b.create<MulOp>(loc, running, constant(1.0 - momentum));
      Value added = b.create<MulOp>(loc, batch, constant(momentum));
      return b.create<AddOp>(loc, kept, added);
    };
    double n = static_cast<double>(op.getValuesPerChannel());
    newMean = update(newMean, mean);
    newVar = update(var, b.create<MulOp>(loc, batchVar, constant(n / (n - 1))));
    var = batchVar;
  } else {
    centered = b.create<SubOp>(loc, x, perChannel(op.getRunningMean()));
  }
  Value deviation = b.create<SqrtOp>(
      loc,
      b.create<AddOp>(loc, var, constant(op.getEpsilon().convertToDouble())));
  Value y = b.create<DivOp>(loc, centered, perChannel(deviation));
  if (Value weight = op.getWeight())
    y = b.create<MulOp>(loc, y, perChannel(wide(weight)));
  if (Value bias = op.getBias())
    y = b.create<AddOp>(loc, y, perChannel(wide(bias)));
  if (inputType.getElementType() != acc)
    y = b.create<CastOp>(loc, inputType, y);
  op.getResult().replaceAllUsesWith(y);
  op.getNewMean().replaceAllUsesWith(newMean);
  op.getNewVar().replaceAllUsesWith(newVar);
  op.erase();
}

/// The gradients of a batch normalisation as the steps its definition
/// names, each an amp op in the statistics' type A: the normalised input
/// recomputed as the forward computes it (from the batch's statistics when
/// training, the running ones otherwise), the input's gradient, and the
/// parameters' sums where `all` or they are used. Returns the values of
/// the op's three results (null for a sum not written).
static SmallVector<Value, 3> batchNormGradSteps(BatchNormGradOp op, bool all) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto statsType = cast<RankedTensorType>(op.getRunningMean().getType());
  Type acc = statsType.getElementType();
  SmallVector<int64_t> kept(inputType.getRank(), 1);
  kept[1] = statsType.getDimSize(0);
  DenseI64ArrayAttr dims = b.getDenseI64ArrayAttr(op.getReducedDims());
  auto wide = [&](Value value) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() == acc)
      return value;
    return b.create<CastOp>(loc, type.clone(acc), value);
  };
  auto perChannel = [&](Value value) { return reshape(b, loc, value, kept); };
  auto channelMean = [&](Value value) -> Value {
    return b.create<MeanOp>(loc, statsType, value, dims, UnitAttr(),
                            TypeAttr());
  };
  auto sub = [&](Value l, Value r) -> Value {
    return b.create<SubOp>(loc, l, r);
  };
  auto mul = [&](Value l, Value r) -> Value {
    return b.create<MulOp>(loc, l, r);
  };
  Value x = wide(op.getInput());
  Value mean = op.getRunningMean(), var = op.getRunningVar();
  if (op.getTraining()) {
    mean = channelMean(x);
    Value centered = sub(x, perChannel(mean));
    var = channelMean(mul(centered, centered));
  }
  auto epsilon = b.create<ConstantOp>(
      loc,
      DenseElementsAttr::get(
          RankedTensorType::get({}, acc),
          b.getFloatAttr(acc, op.getEpsilon().convertToDouble()).getValue()));
  Value deviation = perChannel(
      b.create<SqrtOp>(loc, b.create<AddOp>(loc, var, epsilon).getResult()));
  Value xhat = b.create<DivOp>(loc, sub(x, perChannel(mean)), deviation);
  Value grad = wide(op.getGrad());
  Value scaled = grad;
  if (Value weight = op.getWeight())
    scaled = mul(grad, perChannel(wide(weight)));
  Value dx = scaled;
  if (op.getTraining())
    dx = sub(sub(scaled, perChannel(channelMean(scaled))),
             mul(xhat, perChannel(channelMean(mul(scaled, xhat)))));
  dx = b.create<DivOp>(loc, dx, deviation);
  if (inputType.getElementType() != acc)
    dx = b.create<CastOp>(loc, inputType, dx);
  auto channelSum = [&](Value value, Type type) -> Value {
    return b.create<SumOp>(loc, type, value, dims, UnitAttr(), TypeAttr());
  };
  SmallVector<Value, 3> results{dx, Value(), Value()};
  if (all || !op.getScaleGrad().use_empty())
    results[1] = channelSum(mul(grad, xhat), op.getScaleGrad().getType());
  if (all || !op.getBiasGrad().use_empty())
    results[2] = channelSum(grad, op.getBiasGrad().getType());
  return results;
}

static void decompose(BatchNormGradOp op) {
  SmallVector<Value, 3> steps = batchNormGradSteps(op, /*all=*/false);
  for (auto [result, step] : llvm::zip(op->getResults(), steps))
    if (step)
      result.replaceAllUsesWith(step);
  op.erase();
}

/// amp.max_pool2d_grad as differentiable steps: each window's columns
/// (amp.im2col, the padding at -inf), a one-hot of the first maximum in
/// (kh, kw) order (amprt::windowArgmax's choice for windows without NaN),
/// the gradient spread on it, summed back by amp.col2im, which rounds
/// once.
static Value maxPoolGradSteps(MaxPool2dGradOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto gradType = cast<RankedTensorType>(op.getGrad().getType());
  Type element = inputType.getElementType();
  ArrayRef<int64_t> in = inputType.getShape(), y = gradType.getShape();
  // The pooling's window in full: its strides default to its kernel,
  // amp.im2col's to 1.
  Conv2dWindow pooling = op.getWindow();
  int64_t window = pooling.kernel[0] * pooling.kernel[1],
          positions = y[2] * y[3];
  DenseI64ArrayAttr kernelAttr = b.getDenseI64ArrayAttr(pooling.kernel),
                    stridesAttr = b.getDenseI64ArrayAttr(pooling.strides),
                    paddingAttr = b.getDenseI64ArrayAttr(pooling.padding),
                    dilationsAttr = b.getDenseI64ArrayAttr(pooling.dilations);
  auto scalar = [&](double value, Type type) -> Value {
    return b.create<ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, type),
                                    b.getFloatAttr(type, value).getValue()));
  };
  auto columns = [&](Value image, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(image.getType());
    Value cols = b.create<Im2colOp>(
        loc,
        RankedTensorType::get({shape[0], shape[1] * window, positions},
                              type.getElementType()),
        image, kernelAttr, stridesAttr, paddingAttr, dilationsAttr);
    return reshape(b, loc, cols, {shape[0], shape[1], window, positions});
  };
  Value cols = columns(op.getInput(), in);
  if (llvm::any_of(pooling.padding, [](int64_t p) { return p != 0; })) {
    // The padding's zeros would win over negative windows: -inf there.
    auto plane = RankedTensorType::get({1, 1, in[2], in[3]}, element);
    Value ones = b.create<ConstantOp>(
        loc,
        DenseElementsAttr::get(plane, b.getFloatAttr(element, 1.0).getValue()));
    Value inside = b.create<CompareOp>(
        loc, ComparePredicate::ne, columns(ones, {1, 1}), scalar(0.0, element));
    cols = b.create<SelectOp>(
        loc, inside, cols,
        scalar(-std::numeric_limits<double>::infinity(), element));
  }
  auto keptType = RankedTensorType::get({in[0], in[1], 1, positions}, element);
  Value maxima = b.create<MaxOp>(loc, keptType, cols,
                                 b.getDenseI64ArrayAttr({2}), b.getUnitAttr());
  Value isMax = b.create<CompareOp>(loc, ComparePredicate::eq, cols, maxima);
  // The first maximum: the least offset among the maximal ones, as
  // -max(-offset) over the window, in f32 (offsets are exact there).
  Type f32 = b.getF32Type();
  Value offset =
      b.create<IotaOp>(loc, RankedTensorType::get({1, 1, window, 1}, f32), 2);
  Value candidate =
      b.create<SelectOp>(loc, isMax, b.create<NegOp>(loc, offset).getResult(),
                         scalar(-static_cast<double>(window), f32));
  Value first = b.create<MaxOp>(
      loc, RankedTensorType::get({in[0], in[1], 1, positions}, f32), candidate,
      b.getDenseI64ArrayAttr({2}), b.getUnitAttr());
  Value chosen =
      b.create<CompareOp>(loc, ComparePredicate::eq,
                          b.create<NegOp>(loc, offset).getResult(), first);
  Value spread = b.create<SelectOp>(
      loc, chosen, reshape(b, loc, op.getGrad(), {in[0], in[1], 1, positions}),
      scalar(0.0, gradType.getElementType()));
  Value result = b.create<Col2imOp>(
      loc, inputType.clone(gradType.getElementType()),
      reshape(b, loc, spread, {in[0], in[1] * window, positions}), kernelAttr,
      stridesAttr, paddingAttr, dilationsAttr);
  if (gradType.getElementType() != element)
    result = b.create<CastOp>(loc, inputType, result);
  return result;
}

/// amp.attention_grad as differentiable steps in f32 (f64 for f64): the
/// probabilities p = softmax(scale q k^T) (masked to keys j <= i when
/// causal), dv = p^T g, ds = softmax_grad(p, g v^T) scale, dq = ds k and
/// dk = ds^T q, each rounded once to the operands' type. They keep the
/// [B, H, T, S] probabilities that the fused op recomputes.
static SmallVector<Value, 3> attentionGradSteps(AttentionGradOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto queryType = cast<RankedTensorType>(op.getQuery().getType());
  auto keyType = cast<RankedTensorType>(op.getKey().getType());
  auto valueType = cast<RankedTensorType>(op.getValue().getType());
  Type acc =
      getDefaultAccumulatorType(cast<FloatType>(queryType.getElementType()));
  auto wide = [&](Value value) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() == acc)
      return value;
    return b.create<CastOp>(loc, type.clone(acc), value);
  };
  auto narrow = [&](Value value, RankedTensorType type) -> Value {
    if (type.getElementType() == acc)
      return value;
    return b.create<CastOp>(loc, type, value);
  };
  auto scalar = [&](double value) -> Value {
    return b.create<ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, acc),
                                    b.getFloatAttr(acc, value).getValue()));
  };
  ArrayRef<int64_t> q = queryType.getShape(), k = keyType.getShape();
  int64_t rank = queryType.getRank();
  SmallVector<int64_t> scoresShape(q.drop_back());
  scoresShape.push_back(k[rank - 2]);
  auto scoresType = RankedTensorType::get(scoresShape, acc);
  auto matmul = [&](RankedTensorType type, Value lhs, Value rhs, bool lhsT,
                    bool rhsT) -> Value {
    return b.create<MatmulOp>(loc, type.clone(acc), lhs, rhs,
                              lhsT ? b.getUnitAttr() : UnitAttr(),
                              rhsT ? b.getUnitAttr() : UnitAttr(),
                              TypeAttr::get(acc), /*bias=*/Value());
  };
  Value query = wide(op.getQuery()), key = wide(op.getKey()),
        value = wide(op.getValue()), grad = wide(op.getGrad());
  Value scale = scalar(op.getScaleOrDefault());
  Value scores =
      b.create<MulOp>(loc, matmul(scoresType, query, key, false, true), scale);
  if (op.getCausal()) {
    int64_t t = q[rank - 2], s = k[rank - 2];
    auto positions = RankedTensorType::get({t, s}, b.getI64Type());
    Value row = b.create<IotaOp>(loc, positions, 0);
    Value column = b.create<IotaOp>(loc, positions, 1);
    Value visible = b.create<CompareOp>(loc, ComparePredicate::ge, row, column);
    scores = b.create<SelectOp>(
        loc, visible, scores, scalar(-std::numeric_limits<double>::infinity()));
  }
  Value p = b.create<SoftmaxOp>(loc, scores, rank - 1);
  Value dv = matmul(valueType, p, grad, true, false);
  Value dp = matmul(scoresType, grad, value, false, true);
  Value ds = b.create<MulOp>(
      loc, b.create<SoftmaxGradOp>(loc, p, dp, rank - 1).getResult(), scale);
  Value dq = matmul(queryType, ds, key, false, false);
  Value dk = matmul(keyType, ds, query, true, false);
  return {narrow(dq, queryType), narrow(dk, keyType), narrow(dv, valueType)};
}

std::optional<SmallVector<Value, 3>>
amp::writeDifferentiableSteps(Operation *op) {
  if (auto grad = dyn_cast<BatchNormGradOp>(op))
    return batchNormGradSteps(grad, /*all=*/true);
  if (auto grad = dyn_cast<MaxPool2dGradOp>(op))
    return SmallVector<Value, 3>{maxPoolGradSteps(grad)};
  if (auto grad = dyn_cast<AttentionGradOp>(op))
    return attentionGradSteps(grad);
  return std::nullopt;
}

namespace {
struct AmpDecompose
    : amp::SuggestingOptions<amp::impl::AmpDecomposeBase<AmpDecompose>> {
  using SuggestingOptions::SuggestingOptions;
  void runOnOperation() override {
    SmallVector<Operation *> decomposed;
    getOperation().walk([&](Operation *op) {
      if (!op->hasTrait<OpTrait::amp::Decomposed>())
        return;
      if (keepConvolutions && backend::getRuntimeConvolution(op)) {
        // The runtime runs it (amp_conv2d_*); the weights still start as
        // the decomposed layer's would.
        if (auto conv = dyn_cast<Conv2dOp>(op))
          recordConvInit(conv);
        return;
      }
      if (keepBatchNorms && backend::getRuntimeBatchNorm(op)) {
        // The runtime runs it (amp_batch_norm_*); the scale and bias still
        // start as the decomposed layer's would.
        if (auto norm = dyn_cast<BatchNormOp>(op))
          recordBatchNormInit(norm);
        return;
      }
      decomposed.push_back(op);
    });
    for (Operation *op : decomposed) {
      if (auto conv = dyn_cast<Conv2dOp>(op)) {
        decompose(conv);
      } else if (auto grad = dyn_cast<Conv2dGradInputOp>(op)) {
        decompose(grad);
      } else if (auto grad = dyn_cast<Conv2dGradWeightOp>(op)) {
        decompose(grad);
      } else if (auto pool = dyn_cast<AvgPool2dOp>(op)) {
        decompose(pool);
      } else if (auto pool = dyn_cast<AdaptiveAvgPool2dOp>(op)) {
        decompose(pool);
      } else if (auto norm = dyn_cast<BatchNormOp>(op)) {
        decompose(norm);
      } else if (auto grad = dyn_cast<BatchNormGradOp>(op)) {
        decompose(grad);
      } else {
        // A new Amp_Decomposed op this pass does not know yet: the backend
        // has no kernel for it.
        op->emitOpError("has the Amp_Decomposed trait but amp-decompose does "
                        "not rewrite it");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
