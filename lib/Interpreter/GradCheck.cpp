//===- GradCheck.cpp - derived gradients against finite differences -------===//

#include "amp/Interpreter/GradCheck.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Interpreter/Interpreter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::interp;

static Type widen(Type type) {
  auto f64 = Float64Type::get(type.getContext());
  if (isa<FloatType>(type))
    return f64;
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    if (isa<FloatType>(tensor.getElementType()))
      return tensor.clone(f64);
  return type;
}

LogicalResult interp::widenToF64(ModuleOp module) {
  auto f64 = Float64Type::get(module.getContext());
  module.walk([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      SmallVector<Type> inputs, results;
      for (Type t : func.getArgumentTypes())
        inputs.push_back(widen(t));
      for (Type t : func.getResultTypes())
        results.push_back(widen(t));
      func.setFunctionType(
          FunctionType::get(op->getContext(), inputs, results));
      if (!func.isExternal())
        for (BlockArgument arg : func.getArguments())
          arg.setType(widen(arg.getType()));
    }
    for (Value result : op->getResults())
      result.setType(widen(result.getType()));
    // Constants and type attributes follow: f64 holds every narrower value.
    for (NamedAttribute attr : op->getAttrs()) {
      if (auto elements = dyn_cast<DenseFPElementsAttr>(attr.getValue())) {
        auto type = cast<RankedTensorType>(elements.getType());
        op->setAttr(attr.getName(),
                    elements.mapValues(f64, [](const APFloat &value) {
                      return APInt::doubleToBits(value.convertToDouble());
                    }));
        (void)type;
      } else if (auto typeAttr = dyn_cast<TypeAttr>(attr.getValue())) {
        if (isa<FloatType>(typeAttr.getValue()))
          op->setAttr(attr.getName(), TypeAttr::get(f64));
      }
    }
    // amp.precision would now contradict the types; it has no meaning here.
    op->removeAttr(kPrecisionAttrName);
  });
  return mlir::verify(module);
}

static Tensor widenTensor(const Tensor &tensor) {
  if (!tensor.isFloat() || tensor.getKind() == ElementKind::F64)
    return tensor;
  return Tensor(
      ElementKind::F64, tensor.getShape(),
      std::vector<double>(tensor.getData().begin(), tensor.getData().end()));
}

FailureOr<std::vector<ParameterCheck>>
interp::gradCheck(ModuleOp module, StringRef funcName, ArrayRef<Tensor> args,
                  const GradCheckOptions &options) {
  OwningOpRef<ModuleOp> wide = module.clone();
  // A gradient function already in the module (from an earlier
  // --amp-autodiff) is derived afresh.
  if (auto old = wide->lookupSymbol<func::FuncOp>((funcName + "_grad").str()))
    old.erase();
  if (failed(widenToF64(*wide)))
    return failure();
  auto func = wide->lookupSymbol<func::FuncOp>(funcName);
  PassManager pm(wide->getContext());
  AmpAutodiffOptions autodiffOptions;
  autodiffOptions.functionName = funcName.str();
  pm.addPass(createAmpAutodiff(autodiffOptions));
  if (failed(pm.run(*wide)))
    return failure();
  auto gradFunc = wide->lookupSymbol<func::FuncOp>((funcName + "_grad").str());

  std::vector<Tensor> wideArgs;
  for (const Tensor &arg : args)
    wideArgs.push_back(widenTensor(arg));
  Interpreter interpreter(*wide);
  FailureOr<std::vector<Tensor>> derived = interpreter.run(gradFunc, wideArgs);
  if (failed(derived))
    return failure();

  auto lossAt = [&](ArrayRef<Tensor> at) -> FailureOr<double> {
    FailureOr<std::vector<Tensor>> result = interpreter.run(func, at);
    if (failed(result))
      return failure();
    return (*result)[0][0];
  };

  std::vector<ParameterCheck> checks;
  unsigned gradIndex = 1;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!func.getArgAttr(i, AmpDialect::kParamAttrName))
      continue;
    const Tensor &gradient = (*derived)[gradIndex++];
    ParameterCheck check;
    check.argNumber = i;
    check.argument = describeArgument(func, i);
    llvm::raw_string_ostream(check.type)
        << module.lookupSymbol<func::FuncOp>(funcName).getArgumentTypes()[i];
    int64_t count = wideArgs[i].getNumElements();
    int64_t samples = std::min(count, options.samples);
    double worstDiff = 0;
    for (int64_t s = 0; s < samples; ++s) {
      // Evenly spread, the last element included.
      int64_t index = samples == 1 ? 0 : s * (count - 1) / (samples - 1);
      // Five-point central difference: error O(h^4), so a step large
      // enough to keep f64 rounding of the loss small stays accurate.
      double x = wideArgs[i][index];
      double h = options.step * std::max(1.0, std::fabs(x));
      auto shifted = [&](double delta) -> FailureOr<double> {
        std::vector<Tensor> at = wideArgs;
        at[i].getMutableData()[index] = x + delta;
        return lossAt(at);
      };
      auto fivePoint = [&](double step) -> FailureOr<double> {
        FailureOr<double> p1 = shifted(step), m1 = shifted(-step),
                          p2 = shifted(2 * step), m2 = shifted(-2 * step);
        if (failed(p1) || failed(m1) || failed(p2) || failed(m2))
          return failure();
        return (8 * (*p1 - *m1) - (*p2 - *m2)) / (12 * step);
      };
      FailureOr<double> coarse = fivePoint(h), fine = fivePoint(h / 8);
      if (failed(coarse) || failed(fine))
        return failure();
      // A kink (relu at 0, a max tie) within the stencil makes the two
      // estimates disagree: the derivative is not defined there, skip it.
      // The floor keeps f64 rounding of a tiny gradient from looking like
      // a kink.
      double scale = std::max(std::fabs(*coarse), std::fabs(*fine));
      if (std::fabs(*coarse - *fine) > 1e-5 * scale + 1e-9) {
        ++check.skipped;
        continue;
      }
      double numeric = *coarse;
      worstDiff = std::max(worstDiff, std::fabs(gradient[index] - numeric));
      check.largestGradient =
          std::max(check.largestGradient, std::fabs(numeric));
      ++check.checked;
    }
    // An empty parameter has nothing to check; one whose every sample sat
    // on a kink could not be checked, which counts as a failure.
    check.worstRelativeError =
        check.checked || !check.skipped
            ? worstDiff / std::max(check.largestGradient, 1e-12)
            : INFINITY;
    checks.push_back(check);
  }
  return checks;
}
