//===- AmpFolds.cpp - amp folders and canonicalisations -------------------===//
//
// Only rewrites that are exact: nothing here changes a value by rounding.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::amp;

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // Constants convert with IEEE round-to-nearest-even, as the runtime does.
  auto constant = dyn_cast_or_null<DenseFPElementsAttr>(adaptor.getInput());
  if (!constant)
    return {};
  auto target = cast<FloatType>(getType().getElementType());
  const llvm::fltSemantics &semantics = target.getFloatSemantics();
  return constant.mapValues(target, [&](const APFloat &value) {
    APFloat converted = value;
    bool losesInfo = false;
    converted.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    return converted.bitcastToAPInt();
  });
}

namespace {
/// cast(cast(x : A) : B) : C  ->  cast(x : A) : C  when A -> B is exact: the
/// inner cast then changes no value, so skipping it changes no result.
struct FoldExactCastChain : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<CastOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a cast");
    auto source = cast<FloatType>(
        cast<RankedTensorType>(inner.getInput().getType()).getElementType());
    auto middle = cast<FloatType>(inner.getType().getElementType());
    if (!isExactConversion(source, middle))
      return rewriter.notifyMatchFailure(op, "inner cast rounds");
    if (inner.getInput().getType() == op.getType()) {
      rewriter.replaceOp(op, inner.getInput());
      return success();
    }
    rewriter.replaceOpWithNewOp<CastOp>(op, op.getType(), inner.getInput());
    return success();
  }
};
} // namespace

namespace {
/// The f16 or bf16 tensor that `value` widens to f32, if it is one: a
/// cross-entropy computes in f32 for all three, so reading the narrow
/// tensor instead changes no value.
Value getNarrowLogits(Value value) {
  auto widen = value.getDefiningOp<CastOp>();
  if (!widen || !widen.getType().getElementType().isF32())
    return {};
  Type narrow =
      cast<RankedTensorType>(widen.getInput().getType()).getElementType();
  return narrow.isF16() || narrow.isBF16() ? widen.getInput() : Value();
}

/// cast(cross_entropy_grad(cast(x : f16) : f32) : f32) : f16  ->
/// cross_entropy_grad(x) : f16. The gradient is computed in f32 from the
/// same values either way and rounded once to f16 either way; the step
/// then neither stores the f32 logits nor their f32 gradient.
struct NarrowCrossEntropyGrad : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto grad = op.getInput().getDefiningOp<CrossEntropyGradOp>();
    if (!grad || !grad->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not the one use of a gradient");
    Value narrow = getNarrowLogits(grad.getLogits());
    if (!narrow || narrow.getType() != op.getType())
      return rewriter.notifyMatchFailure(
          op, "the logits are not this type widened to f32");
    rewriter.replaceOpWithNewOp<CrossEntropyGradOp>(
        op, op.getType(), narrow, grad.getLabels(), grad.getGrad(),
        grad.getReductionAttr(), grad.getIgnoreIndexAttr());
    return success();
  }
};
} // namespace

void CastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FoldExactCastChain, NarrowCrossEntropyGrad>(context);
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

namespace {
/// cross_entropy(cast(x : f16) : f32)  ->  cross_entropy(x): the loss is
/// computed in f32 from the same values.
struct CrossEntropyOfNarrowLogits : OpRewritePattern<CrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(CrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    Value narrow = getNarrowLogits(op.getLogits());
    if (!narrow)
      return rewriter.notifyMatchFailure(op, "logits are not widened");
    rewriter.modifyOpInPlace(op, [&] { op.getLogitsMutable().assign(narrow); });
    return success();
  }
};
} // namespace

void CrossEntropyOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *context) {
  results.add<CrossEntropyOfNarrowLogits>(context);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return {};
}

/// select(c, x, x) is x where the condition broadcasts no wider: a
/// buffer that no op updates is kept so on a skipped step.
OpFoldResult SelectOp::fold(FoldAdaptor) {
  if (getOnTrue() == getOnFalse() && getOnTrue().getType() == getType())
    return getOnTrue();
  return {};
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto constant = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return constant.reshape(getType());
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto isIdentity = [](ArrayRef<int64_t> perm) {
    for (auto [i, dim] : llvm::enumerate(perm))
      if (dim != static_cast<int64_t>(i))
        return false;
    return true;
  };
  if (isIdentity(getPermutation()))
    return getInput();
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  // Result dim i is inner-result dim perm[i], which is input dim
  // innerPerm[perm[i]].
  SmallVector<int64_t> composed;
  for (int64_t dim : getPermutation())
    composed.push_back(inner.getPermutation()[dim]);
  if (isIdentity(composed))
    return inner.getInput();
  getInputMutable().assign(inner.getInput());
  setPermutation(composed);
  return getResult();
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto constant = dyn_cast_or_null<SplatElementsAttr>(adaptor.getInput());
  if (constant)
    return SplatElementsAttr::get(getType(),
                                  constant.getSplatValue<Attribute>());
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}
