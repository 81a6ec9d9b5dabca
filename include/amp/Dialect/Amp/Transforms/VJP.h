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
namespace amp {
/// Attaches DifferentiableOpInterface to the amp ops that have a VJP.
void registerDifferentiableExternalModels(DialectRegistry &registry);
} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_TRANSFORMS_VJP_H
