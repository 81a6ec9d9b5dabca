//===- GradientFunction.cpp - what amp-autodiff hands on ------------------===//

#include "amp/Dialect/Amp/Transforms/GradientFunction.h"

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Buffers.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::amp;

std::string amp::formatTypes(TypeRange types) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '(';
  llvm::interleaveComma(types, os);
  os << ')';
  return text;
}

static bool isScalar(Type type, bool f32Only) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 &&
         (f32Only ? tensor.getElementType().isF32()
                  : isa<FloatType>(tensor.getElementType()));
}

FailureOr<GradientFunction> amp::checkGradientFunction(func::FuncOp grad,
                                                       SymbolTable &symbols,
                                                       StringRef pass) {
  auto of =
      grad->getAttrOfType<FlatSymbolRefAttr>(AmpDialect::kGradientOfAttrName);
  auto error = [&]() {
    InFlightDiagnostic diag = emitError(grad.getLoc());
    diag << pass << ": @" << grad.getSymName();
    return diag;
  };
  auto original = symbols.lookup<func::FuncOp>(of.getValue());
  if (!original)
    return error() << " is the gradient of @" << of.getValue()
                   << ", which is not a function of this module";
  if (grad.isExternal() || original.isExternal())
    return error() << " and @" << of.getValue()
                   << " need bodies (a gradient function is made by "
                      "amp-autodiff from its function)";
  GradientFunction result{
      grad, original,
      grad->hasAttrOfType<LossScalingAttr>(AmpDialect::kLossScalingAttrName)};

  // Arguments: the original's, then the scale.
  SmallVector<Type> expectedArgs(original.getArgumentTypes());
  if (result.scaled)
    expectedArgs.push_back(
        RankedTensorType::get({}, Float32Type::get(grad.getContext())));
  bool argsMatch =
      ArrayRef<Type>(expectedArgs) == grad.getArgumentTypes() &&
      (!result.scaled || grad.getArgAttr(grad.getNumArguments() - 1,
                                         AmpDialect::kLossScaleAttrName));
  if (!argsMatch)
    return error() << " takes " << formatTypes(grad.getArgumentTypes())
                   << "; as the gradient of @" << of.getValue() << " it takes "
                   << formatTypes(expectedArgs)
                   << (result.scaled ? ", the last marked amp.loss_scale "
                                       "(it carries amp.loss_scaling)"
                                     : "");

  // The function it derives from returns its loss, then any parts of it,
  // all 0-d floats (amp-autodiff's check).
  TypeRange originalResults = original.getResultTypes();
  if (originalResults.empty() || !llvm::all_of(originalResults, [](Type type) {
        return isScalar(type, false);
      }))
    return error() << " is the gradient of @" << of.getValue()
                   << ", which returns " << formatTypes(originalResults)
                   << "; a model returns its loss, then any parts of it, as "
                      "0-d floating-point tensors";

  // Results: the loss, one gradient per parameter, the loss's parts, then
  // found_inf.
  SmallVector<Type> gradients;
  for (unsigned i = 0, e = original.getNumArguments(); i < e; ++i)
    if (original.getArgAttr(i, AmpDialect::kParamAttrName))
      gradients.push_back(original.getArgumentTypes()[i]);
  TypeRange parts = original.getResultTypes().drop_front(
      std::min<size_t>(1, original.getNumResults()));
  SmallVector<Type> buffers;
  for (unsigned i : getBufferArguments(original))
    buffers.push_back(original.getArgumentTypes()[i]);
  TypeRange results = grad.getResultTypes();
  size_t expectedCount = 1 + gradients.size() + parts.size() + buffers.size() +
                         (result.scaled ? 1 : 0);
  bool resultsMatch =
      results.size() == expectedCount && isScalar(results.front(), false) &&
      llvm::equal(results.slice(1, gradients.size()), gradients) &&
      llvm::equal(results.slice(1 + gradients.size(), parts.size()), parts) &&
      llvm::equal(
          results.slice(1 + gradients.size() + parts.size(), buffers.size()),
          buffers) &&
      (!result.scaled || isScalar(results.back(), true));
  if (!resultsMatch)
    return error() << " returns " << formatTypes(results)
                   << "; as the gradient of @" << of.getValue()
                   << " it returns the loss (a 0-d float tensor), then the "
                      "gradients "
                   << formatTypes(gradients) << " of its amp.param arguments"
                   << (parts.empty() ? ""
                                     : ", then the parts of the loss " +
                                           formatTypes(parts))
                   << (buffers.empty()
                           ? ""
                           : ", then the next values " + formatTypes(buffers) +
                                 " of its amp.buffer arguments")
                   << (result.scaled ? ", then found_inf (a 0-d f32 tensor)"
                                     : "");
  result.numGradients = gradients.size();
  result.numLossParts = parts.size();
  result.numBuffers = buffers.size();
  return result;
}
