//===- AmpOps.h - amp dialect ops -------------------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_H
#define AMP_DIALECT_AMP_IR_AMPOPS_H

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpEnums.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/IR/AmpTraits.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"


#define GET_OP_CLASSES
#include "amp/Dialect/Amp/IR/AmpOps.h.inc"

namespace mlir::amp {

/// Discardable op attribute forcing one op's precision in amp-autocast:
/// `{amp.precision = f32}` or the compute type.
constexpr llvm::StringLiteral kPrecisionAttrName = "amp.precision";

/// True when every value of `from` is exactly representable in `to`, so a
/// conversion `from -> to` never rounds (f16/bf16 -> f32 -> f64, or equal).
bool isExactConversion(FloatType from, FloatType to);

/// The accumulator a reduction or contraction uses when it names none: f64
/// for f64 operands, f32 otherwise.
FloatType getDefaultAccumulatorType(FloatType operandType);

/// The element count of a static `type`, or nullopt when it does not fit
/// in int64 (getNumElements would wrap around).
std::optional<int64_t> getCheckedNumElements(RankedTensorType type);

/// numpy broadcasting of static shapes; fails on incompatible shapes.
LogicalResult broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes,
                              SmallVectorImpl<int64_t> &result);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_IR_AMPOPS_H
