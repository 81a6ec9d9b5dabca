//===- Passes.h - amp passes ------------------------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_H

#include "amp/Dialect/Amp/Transforms/OptionEnums.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

/// Registers the named pipelines: --amp-train-step and --amp-backend (their
/// options and C++ builders are in Pipelines.h).
void registerAmpPipelines();

/// The model functions that `pass` (amp-autodiff, amp-evaluation) derives
/// from: the one named `functionName`, or else every function with a body
/// and an amp.param argument that no pass derived (no amp.gradient_of or
/// amp.evaluation_of). Reports at the module when there is none.
FailureOr<SmallVector<func::FuncOp>>
findModelFunctions(ModuleOp module, StringRef functionName, StringRef pass);

/// Reports a bad pass option. The error is attached to no op: an option is
/// no fault of the IR, and a driver that prints the op of an error
/// (mlir-opt's default) would print the whole module after it.
inline InFlightDiagnostic emitOptionError(MLIRContext *context) {
  return emitError(UnknownLoc::get(context));
}

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
