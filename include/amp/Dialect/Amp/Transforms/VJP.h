//===- VJP.h - the gradients of the amp ops ---------------------*- C++ -*-===//
//
// The vector-Jacobian products of the amp ops live with the transforms,
// since they build amp ops; the IR declares only the interface they
// implement (DifferentiableOpInterface).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_VJP_H
#define AMP_DIALECT_AMP_TRANSFORMS_VJP_H

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
} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_VJP_H
