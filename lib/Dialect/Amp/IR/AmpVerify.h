//===- AmpVerify.h - checks shared by amp verifiers -------------*- C++ -*-===//
//
// Free functions the thin `verify()` and `inferReturnTypes()` methods of the
// amp ops call, so that one fact is checked, and worded, in one place.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_IR_AMPVERIFY_H
#define AMP_LIB_DIALECT_AMP_IR_AMPVERIFY_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"

#include <optional>
#include <string>

namespace mlir::amp {

/// `[2, 3, 4]`, the way shapes appear in amp diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);

/// Emits "'<opName>' op <message>" at `loc` when there is one, worded like
/// a verifier error, and returns failure. For inferReturnTypes, which runs
/// before the op exists.
LogicalResult emitOptional(std::optional<Location> loc, StringRef opName,
                           const Twine &message);

/// The type of `value` as a statically shaped ranked tensor, or null.
RankedTensorType getStaticTensorType(Type type);

/// Checks that `dim` indexes a dimension of a rank-`rank` tensor.
LogicalResult verifyDimInRange(Operation *op, StringRef attrName, int64_t dim,
                               int64_t rank);

/// Checks that two operands have the same element type.
LogicalResult verifySameElementType(Operation *op, StringRef lhsName, Type lhs,
                                    StringRef rhsName, Type rhs);

/// Checks that `result` has shape `expected` (and element type `elementType`
/// when it is given).
LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> expected,
                                Type result, Type elementType = nullptr);

/// Checks that an accumulator of type `acc` holds `operand` values exactly.
LogicalResult verifyAccumulatorType(Operation *op, FloatType acc,
                                    FloatType operand);

/// Checks a normalisation's `axis` and that an affine parameter (`name`,
/// possibly null) has the normalised shape `input[axis:]`.
LogicalResult verifyNormalizedParam(Operation *op, RankedTensorType input,
                                    int64_t axis, StringRef name, Value param);

/// Checks that a loss produces a 0-d tensor.
LogicalResult verifyScalarLoss(Operation *op, Type result);

/// Infers the numpy broadcast of the statically shaped tensors `operands`,
/// with element type `elementType`; reports incompatible shapes at `loc`.
LogicalResult inferBroadcastType(std::optional<Location> loc, StringRef opName,
                                 TypeRange operands, Type elementType,
                                 SmallVectorImpl<Type> &inferred);

} // namespace mlir::amp

#endif // AMP_LIB_DIALECT_AMP_IR_AMPVERIFY_H
