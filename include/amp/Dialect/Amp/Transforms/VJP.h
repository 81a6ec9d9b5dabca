//===- VJP.h - the gradients of the amp ops ---------------------*- C++ -*-===//
//
// The vector-Jacobian products of the amp ops live with the transforms,
// since they build amp ops; the IR declares only the interface they
// implement (DifferentiableOpInterface).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_VJP_H
#define AMP_DIALECT_AMP_TRANSFORMS_VJP_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
class DialectRegistry;
class Operation;
namespace amp {
/// Attaches DifferentiableOpInterface to the amp ops that have a VJP.
void registerDifferentiableExternalModels(DialectRegistry &registry);

/// Replaces each amp.stop_gradient under `root` by its input: in a
/// function whose gradients are taken (amp-autodiff's) or never will be
/// (amp-evaluation's), it is the identity, and no backend sees it.
void eraseStopGradients(Operation *root);

/// Writes `op`, a gradient op with no closed-form VJP of its own
/// (amp.batch_norm_grad, amp.max_pool2d_grad, amp.attention_grad), as
/// differentiable amp ops before it (amp-decompose's steps where it has
/// them), so that a gradient taken inside a model can be differentiated
/// again. Returns the values of its results (null for one not written;
/// `op` stays, for the caller to replace), or nullopt for any other op.
std::optional<llvm::SmallVector<Value, 3>>
writeDifferentiableSteps(Operation *op);
} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_VJP_H
