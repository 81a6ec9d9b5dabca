//===- AmpInterfaces.h - amp op interfaces ----------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_H
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_H

#include "amp/Dialect/Amp/IR/AmpEnums.h"
#include "amp/Dialect/Amp/IR/AmpTraits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include "amp/Dialect/Amp/IR/AmpInterfaces.h.inc"

namespace mlir {
class DialectRegistry;
namespace amp {
/// Attaches PrecisionOpInterface to the arith and math ops a training graph
/// may contain, with the categories of their amp counterparts.
void registerPrecisionExternalModels(DialectRegistry &registry);
} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_H
