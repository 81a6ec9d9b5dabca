//===- KernelAnalysis.h - what kind of kernel an amp.fusion is --*- C++ -*-===//
//
// The one place that knows which groups of ops the backend runs as one
// kernel. analyzeKernel reads the ops of an amp.fusion's region and gives
// the kind of kernel they make (KernelKind), its root (the op whose kernel
// computes the others) and the role of every op in it, or the reason they
// make none. --amp-fuse records the kind and root on each fusion it
// outlines (`kernel`, #amp.kernel), the fusion's verifier checks them, and
// the backend's emitter dispatches on them. As XLA's HloFusionAnalysis
// does, it records the root and the roles, not only a label.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_KERNELANALYSIS_H
#define AMP_DIALECT_AMP_IR_KERNELANALYSIS_H

#include "amp/Dialect/Amp/IR/AmpAttrs.h"

#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

#include <string>

namespace mlir::amp {

/// What an op does in its kernel.
enum class KernelRole {
  /// The op the kernel is built on (the first of a run of updates).
  root,
  /// Computed as the root loads an operand (a reduction's or row op's
  /// elementwise producers, a gather's transposes and reshapes).
  prologue,
  /// Computed as the root stores (a GEMM's relu, a row op's elementwise
  /// consumers and the ops before it that only they read).
  epilogue,
  /// An amp.select that keeps the old state on a skipped step.
  guard,
  /// Another op of the kernel's loop: an elementwise op of a loop, an
  /// update or a cast of a run, a loss's gradient, the amp.norm_stats a
  /// norm's row kernel computes.
  member,
};

/// The kernel an amp.fusion's ops make (analyzeKernel).
struct KernelAnalysis {
  KernelKind kind;
  /// Position of the root among `ops`.
  unsigned root;
  /// The ops of the region, without the yield, in block order.
  SmallVector<Operation *> ops;
  /// The role of each op of `ops`.
  SmallVector<KernelRole> roles;

  Operation *getRoot() const { return ops[root]; }
  /// The ops other than the root, in block order.
  SmallVector<Operation *> getOthers() const;
  /// The ops of `role`, in block order.
  SmallVector<Operation *> getOps(KernelRole role) const;
};

/// The kernel the ops of `block` make: an amp.fusion's region, its
/// amp.yield last (the values it yields are those the kernel stores).
/// Fails with the reason in `why` when they make no kernel the backend
/// runs.
FailureOr<KernelAnalysis> analyzeKernel(Block &block, std::string &why);

/// The selects that keep the old state on a step with inf/NaN gradients,
/// one per result of `update`, an op with OptimizerUpdateOpInterface:
/// `amp.select %ok, %new, %old` where %new is the result, %old the operand
/// it replaces and %ok one scalar shared by all. Empty unless every
/// result's only use is such a select, and for other ops. --amp-fuse
/// puts them in the update's kernel (an `updates` kernel), which then
/// stores `ok ? new : old` over the old state, so the new values never
/// reach memory.
SmallVector<Operation *> getGuardSelects(Operation *update);

/// The scalar condition the guard selects of `update` share, or null when
/// it is unguarded (getGuardSelects).
Value getGuard(Operation *update);

/// The amp.mul that scales the gradient of `update` (an op with
/// OptimizerUpdateOpInterface) by one number, clipping's coefficient:
/// `amp.mul %g, %s` or `amp.mul %s, %g`, all f32, %g of the product's type,
/// %s of one element, the product read by `update` alone, as its
/// gradient. Null where there is none, and for other ops. --amp-fuse puts
/// it in the update's kernel (a prologue), which multiplies each gradient
/// element as it loads it, so the product never reaches memory.
Operation *getGradientScale(Operation *update);

/// The number getGradientScale's multiply scales by (%s), or null.
Value getGradientScaleFactor(Operation *update);

/// The gradient before getGradientScale's multiply (%g), or the update's
/// gradient operand where there is none.
Value getUnscaledGradient(Operation *update);

/// Whether optimizer update `op` may run in one launch with `first`: the
/// same op with the same attributes, step count, hyperparameter operands,
/// guard (or none) and gradient scale factor (or none). An `updates`
/// kernel holds only such updates, and --amp-fuse joins only such runs.
bool isLikeUpdate(Operation *op, Operation *first);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_IR_KERNELANALYSIS_H
