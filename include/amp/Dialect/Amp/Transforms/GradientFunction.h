//===- GradientFunction.h - what amp-autodiff hands on ----------*- C++ -*-===//
//
// amp-autodiff makes `@<name>_grad`, marked `amp.gradient_of = @<name>`;
// amp-loss-scaling adds the scale argument and found_inf and records
// `amp.loss_scaling`; amp-optimizer calls it from `@<name>_step`. Those
// passes read the gradient function's signature, so they check it first:
// it may come from a file rather than from amp-autodiff.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_GRADIENTFUNCTION_H
#define AMP_DIALECT_AMP_TRANSFORMS_GRADIENTFUNCTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::amp {

/// A checked gradient function and the function it derives from.
struct GradientFunction {
  func::FuncOp grad;
  func::FuncOp original;
  /// Carries amp.loss_scaling: takes the scale last and returns found_inf
  /// last.
  bool scaled = false;
  /// The gradients it returns after the loss, one per amp.param argument
  /// of `original`.
  unsigned numGradients = 0;
  /// The parts of the loss it returns after the gradients: the results of
  /// `original` after its loss.
  unsigned numLossParts = 0;
  /// The next values of the buffers it returns after the parts, one per
  /// amp.buffer argument of `original`, in its type.
  unsigned numBuffers = 0;
};

/// Checks that `grad`, which carries amp.gradient_of, is what amp-autodiff
/// (and amp-loss-scaling) make of the function it names: both have bodies;
/// `grad` takes that function's arguments (then, when scaled, the scale, a
/// 0-d f32 argument marked amp.loss_scale) and returns the loss (a 0-d
/// float tensor), the gradient of each amp.param argument in its type, the
/// parts of the loss that function returns after it, the next value of
/// each amp.buffer argument in its type (then, when scaled, found_inf, a
/// 0-d f32 tensor). Errors name `pass` and the functions.
FailureOr<GradientFunction>
checkGradientFunction(func::FuncOp grad, SymbolTable &symbols, StringRef pass);

/// `(tensor<4xf32>, tensor<f32>)`: a signature's types as the checks of
/// gradient functions (and of custom backwards) write them in messages.
std::string formatTypes(TypeRange types);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_GRADIENTFUNCTION_H
