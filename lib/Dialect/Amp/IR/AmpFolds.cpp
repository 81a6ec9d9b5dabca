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

void CastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FoldExactCastChain>(context);
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
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
