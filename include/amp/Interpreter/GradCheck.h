//===- GradCheck.h - gradients against finite differences -------*- C++ -*-===//
//
// Checks amp-autodiff: the function is copied with every floating-point type
// widened to f64, differentiated, and each parameter's gradient compared
// with central finite differences of the f64 loss, all in the reference
// interpreter.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERPRETER_GRADCHECK_H
#define AMP_INTERPRETER_GRADCHECK_H

#include "amp/Interpreter/Tensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::amp::interp {

/// Rewrites every floating-point type of `module` (signatures, results,
/// constants, accumulator attributes) to f64.
LogicalResult widenToF64(ModuleOp module);

struct GradCheckOptions {
  /// Elements checked per parameter, spread evenly over it (all when it
  /// has fewer).
  int64_t samples = 32;
  /// Finite-difference step, relative to max(1, |x|), of the five-point
  /// central difference (error O(step^4)).
  double step = 1e-4;
};

struct ParameterCheck {
  unsigned argNumber;
  /// How messages refer to the parameter: "argument #0 'w1'" (its
  /// `amp.name`), or "argument #0" without a name.
  std::string argument;
  std::string type;
  int64_t checked = 0;
  /// Elements skipped because the loss has a kink next to them (the two
  /// finite-difference estimates disagree).
  int64_t skipped = 0;
  /// max |derived - numeric| / max |numeric| over the checked elements.
  double worstRelativeError = 0;
  double largestGradient = 0;
};

/// Differentiates `funcName` of `module` in f64 and compares its parameter
/// gradients at `args` (converted to f64) with finite differences. Errors
/// are emitted as diagnostics.
FailureOr<std::vector<ParameterCheck>>
gradCheck(ModuleOp module, StringRef funcName, ArrayRef<Tensor> args,
          const GradCheckOptions &options);

} // namespace mlir::amp::interp

#endif // AMP_INTERPRETER_GRADCHECK_H
