//===- LossScaling.cpp - --amp-loss-scaling -------------------------------===//
//
// Scales the backward seed of each gradient function, unscales and checks
// the gradients, and records the scaler configuration for amp-optimizer.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/GradientFunction.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPLOSSSCALING
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

/// Whether any value of `func` (or the functions it derives from) is f16.
static bool holdsF16(func::FuncOp func) {
  bool found = false;
  auto check = [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    found |= tensor && tensor.getElementType().isF16();
  };
  for (Type type : func.getArgumentTypes())
    check(type);
  func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      check(type);
  });
  return found;
}

static LogicalResult scale(const GradientFunction &target,
                           LossScalingAttr config) {
  func::FuncOp grad = target.grad;
  Block &body = grad.getBody().front();
  ConstantOp seed;
  grad.walk([&](ConstantOp op) {
    if (op->hasAttr(AmpDialect::kSeedAttrName))
      seed = op;
  });
  if (!seed)
    return emitError(grad.getLoc())
           << "amp-loss-scaling: @" << grad.getSymName()
           << " has no backward seed (it was not made by "
              "amp-autodiff, or is already scaled)";
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  // Parameter gradients must be f32, as GradScaler's unscale requires.
  OperandRange gradients = ret.getOperands().slice(1, target.numGradients);
  for (auto [i, value] : llvm::enumerate(gradients)) {
    auto type = cast<RankedTensorType>(value.getType());
    if (!type.getElementType().isF32())
      return emitError(grad.getLoc())
             << "amp-loss-scaling: the gradient of parameter #" << i << " of @"
             << grad.getSymName() << " is " << type
             << "; loss scaling unscales f32 gradients of f32 master "
                "parameters (keep parameters f32 and cast them in the graph)";
  }

  OpBuilder b(grad.getContext());
  Location loc = seed.getLoc();
  auto f32 = RankedTensorType::get({}, b.getF32Type());
  auto f64 = RankedTensorType::get({}, b.getF64Type());
  unsigned scaleIndex = grad.getNumArguments();
  // Named by its role, unless a model argument has that name already.
  NamedAttrList scaleAttrs;
  scaleAttrs.set(AmpDialect::kLossScaleAttrName, b.getUnitAttr());
  bool nameTaken = false;
  for (unsigned i = 0; i < scaleIndex; ++i)
    nameTaken |= getArgumentName(grad, i) == "loss_scale";
  if (!nameTaken)
    scaleAttrs.set(AmpDialect::kNameAttrName, b.getStringAttr("loss_scale"));
  grad.insertArgument(scaleIndex, f32, scaleAttrs.getDictionary(b.getContext()),
                      grad.getLoc());
  BlockArgument scaleArg = body.getArgument(scaleIndex);
  // The seed: the loss scale, in the loss's type.
  b.setInsertionPoint(seed);
  Value seedValue = scaleArg;
  if (seed.getType() != f32)
    seedValue = b.create<CastOp>(loc, seed.getType(), scaleArg);
  seed.getResult().replaceAllUsesWith(seedValue);
  seed.erase();
  // Gradients taken inside the model (amp.grad) are of the scaled loss
  // too, divided by their seed before the model reads them: their seeds
  // become the scale, and their unscaled values are checked with the
  // parameters' gradients.
  SmallVector<ConstantOp> innerSeeds;
  SmallVector<Value> innerGrads;
  grad.walk([&](Operation *op) {
    if (op->hasAttr(AmpDialect::kInnerSeedAttrName))
      innerSeeds.push_back(cast<ConstantOp>(op));
    if (op->hasAttr(AmpDialect::kInnerGradAttrName))
      innerGrads.push_back(op->getResult(0));
  });
  for (ConstantOp innerSeed : innerSeeds) {
    if (innerSeed.getType() != f32)
      return innerSeed.emitError()
             << "amp-loss-scaling: the seed of a gradient taken inside @"
             << grad.getSymName() << " is " << innerSeed.getType()
             << ", not the loss scale's tensor<f32>";
    innerSeed.getResult().replaceAllUsesWith(scaleArg);
    innerSeed.erase();
  }
  for (Value inner : innerGrads)
    if (!cast<RankedTensorType>(inner.getType()).getElementType().isF32())
      return inner.getDefiningOp()->emitError()
             << "amp-loss-scaling: a gradient taken inside @"
             << grad.getSymName() << " is unscaled in " << inner.getType()
             << "; the check for inf and NaN reads f32";

  // inv_scale = float(1 / double(scale)), then one multi-tensor unscale.
  b.setInsertionPoint(ret);
  Value wide = b.create<CastOp>(loc, f64, scaleArg);
  Value one = b.create<ConstantOp>(
      loc, DenseElementsAttr::get(f64, b.getF64FloatAttr(1.0).getValue()));
  Value inv = b.create<CastOp>(loc, f32, b.create<DivOp>(loc, one, wide));
  auto unscale = b.create<UnscaleOp>(loc, inv, gradients);
  Value foundInf = unscale.getFoundInf();
  if (!innerGrads.empty()) {
    // Already unscaled: checked as they are (a multiplication by 1).
    Value unit = b.create<ConstantOp>(
        loc, DenseElementsAttr::get(f32, b.getF32FloatAttr(1.0f).getValue()));
    auto inner = b.create<UnscaleOp>(loc, unit, innerGrads);
    foundInf = b.create<MaximumOp>(loc, foundInf, inner.getFoundInf());
  }
  // The loss's parts and the buffers' next values are forward values: the
  // scale never reaches them.
  SmallVector<Value> returned{ret.getOperand(0)};
  returned.append(unscale.getUnscaled().begin(), unscale.getUnscaled().end());
  OperandRange forward = ret.getOperands().drop_front(1 + target.numGradients);
  returned.append(forward.begin(), forward.end());
  returned.push_back(foundInf);
  b.create<func::ReturnOp>(ret.getLoc(), returned);
  ret.erase();

  SmallVector<Type> results;
  for (Value v : returned)
    results.push_back(v.getType());
  // The results keep their attributes (the parts' names); found_inf has
  // none.
  SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned k = 0, e = grad.getNumResults(); k < e; ++k)
    resultAttrs.push_back(grad.getResultAttrDict(k));
  resultAttrs.push_back(b.getDictionaryAttr({}));
  grad.setFunctionType(b.getFunctionType(grad.getArgumentTypes(), results));
  grad.setAllResultAttrs(resultAttrs);
  grad->setAttr(AmpDialect::kLossScalingAttrName, config);
  return success();
}

namespace {
struct AmpLossScalingPass
    : amp::SuggestingOptions<
          amp::impl::AmpLossScalingBase<AmpLossScalingPass>> {
  using SuggestingOptions::SuggestingOptions;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto bad = [&](const Twine &what) {
      emitOptionError(&getContext()) << "amp-loss-scaling: " << what;
      signalPassFailure();
    };
    // The clamps' 0 means none; the rest is checked as the scaler's f32
    // state stores it (#amp.loss_scaling and amp.scaler_update say the
    // same).
    if (!(minScale >= 0) || !(maxScale >= 0)) // NaN too
      return bad(llvm::formatv("min-scale and max-scale must not be "
                               "negative or NaN, got {0:e} and {1:e}",
                               minScale.getValue(), maxScale.getValue())
                     .str());
    ScalerSettings settings;
    settings.initScale = initScale;
    settings.growthFactor = growthFactor;
    settings.backoffFactor = backoffFactor;
    settings.growthInterval = growthInterval;
    settings.hysteresis = hysteresis;
    if (minScale > 0)
      settings.minScale = minScale;
    if (maxScale > 0)
      settings.maxScale = maxScale;
    std::string problem = checkScalerSettings(settings, /*optionNames=*/true);
    if (!problem.empty())
      return bad(problem);

    SymbolTable symbols(module);
    SmallVector<GradientFunction> grads;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(AmpDialect::kGradientOfAttrName))
        continue;
      // A gradient function read from a file is checked before it is read.
      FailureOr<GradientFunction> grad =
          checkGradientFunction(func, symbols, "amp-loss-scaling");
      if (failed(grad))
        return signalPassFailure();
      grads.push_back(*grad);
    }
    if (grads.empty()) {
      // At the module's location, without printing the module.
      emitError(module.getLoc())
          << "amp-loss-scaling: no gradient function; run --amp-autodiff "
             "first";
      return signalPassFailure();
    }

    for (const GradientFunction &grad : grads) {
      LossScalingOption effective = mode;
      if (effective == LossScalingOption::automatic)
        effective = holdsF16(grad.grad) ? LossScalingOption::dynamic
                                        : LossScalingOption::none;
      if (effective == LossScalingOption::none)
        continue;
      // A static scale stays at init-scale; the other options configure a
      // dynamic one.
      LossScalingAttr config =
          effective == LossScalingOption::dynamic
              ? LossScalingAttr::getDynamic(&getContext(), settings)
              : LossScalingAttr::getStatic(&getContext(), initScale);
      if (failed(scale(grad, config)))
        return signalPassFailure();
    }
  }
};
} // namespace
