//===- AmpOps.h - amp dialect ops -------------------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_H
#define AMP_DIALECT_AMP_IR_AMPOPS_H

#include "amp/Dialect/Amp/IR/AmpAttrs.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/AmpEnums.h"
#include "amp/Dialect/Amp/IR/AmpInterfaces.h"
#include "amp/Dialect/Amp/IR/AmpTraits.h"
#include "amp_runtime/conv_window.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

namespace mlir::amp {
using amprt::Conv2dWindow;

/// Whether `type` is a random generator's state, tensor<2xi64>.
bool isRngStateType(Type type);
} // namespace mlir::amp

#define GET_OP_CLASSES
#include "amp/Dialect/Amp/IR/AmpOps.h.inc"

namespace mlir::amp {

/// Discardable op attribute forcing one op's precision in amp-autocast:
/// `{amp.precision = f32}` or the compute type.
constexpr llvm::StringLiteral kPrecisionAttrName = "amp.precision";
/// Why an op's `amp.precision` is forced (the importer's "autocast
/// disabled at ..."), which amp-autocast's report gives as the reason.
constexpr llvm::StringLiteral kPrecisionReasonAttrName = "amp.precision_reason";
/// Discardable matmul attribute overriding amp-autocast's FP8 choice for
/// one GEMM under compute-type fp8: `{amp.fp8 = false}` keeps it in the
/// base type, `{amp.fp8 = true}` makes it FP8 where the recipe would not
/// (a first or last layer, a product of two activations).
constexpr llvm::StringLiteral kFp8AttrName = "amp.fp8";
/// Discardable attribute of an FP8 matmul whose `scales` are delayed
/// scaling's state (amp-autocast's fp8-scaling=delayed): the recipe,
/// `{amax_compute = "max" | "most_recent", margin = <f64>}`, by which
/// amp-autodiff updates that state after the backward pass.
constexpr llvm::StringLiteral kFp8DelayedAttrName = "amp.fp8_delayed";

/// True when every value of `from` is exactly representable in `to`, so a
/// conversion `from -> to` never rounds (f16/bf16 -> f32 -> f64, or equal).
bool isExactConversion(FloatType from, FloatType to);

/// The accumulator a reduction or contraction uses when it names none: f64
/// for f64 operands, f32 otherwise.
FloatType getDefaultAccumulatorType(FloatType operandType);

/// The element count of a static `type`, or nullopt when it does not fit
/// in int64 (getNumElements would wrap around).
std::optional<int64_t> getCheckedNumElements(RankedTensorType type);

/// Bytes a value of the static `type` takes in memory (i1 as one byte), with
/// 16-bit floats counted as `floatBytes16` bytes (4 gives what the value
/// would take in f32); nullopt when the count does not fit in int64.
std::optional<int64_t> getCheckedByteSize(RankedTensorType type,
                                          int64_t floatBytes16 = 2);

/// Checks that a value of `type` can be stored: a static tensor type with no
/// empty dimension whose size in bytes fits in int64 (other types pass:
/// their own constraints reject them). `what` names the value in the
/// message ("operand #1", "argument #0").
LogicalResult
verifyStorableTensor(llvm::function_ref<InFlightDiagnostic()> emitError,
                     Type type, const llvm::Twine &what);

/// The product of `factors`, or nullopt when it does not fit in int64 (for
/// FLOP counts, which may overflow where no tensor does).
std::optional<int64_t> getCheckedProduct(ArrayRef<int64_t> factors);

/// numpy broadcasting of static shapes; fails on incompatible shapes.
LogicalResult broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes,
                              SmallVectorImpl<int64_t> &result);

/// The value of `value` where an amp.constant splat defines it (a
/// hyperparameter fixed in the IR); nothing for one set at run time.
std::optional<double> getConstantScalar(Value value);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_IR_AMPOPS_H
