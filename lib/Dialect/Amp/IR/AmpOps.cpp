//===- AmpOps.cpp - amp dialect ops ---------------------------------------===//
//
// Verifiers, result type inference and FLOP counts. Folders and
// canonicalisation patterns live in AmpFolds.cpp.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/IR/KernelAnalysis.h"

#include "AmpVerify.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include "amp_runtime/hyperparameters.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// Helpers shared with the rest of the project
//===----------------------------------------------------------------------===//

bool amp::isRngStateType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getShape() == ArrayRef<int64_t>{2} &&
         tensor.getElementType().isSignlessInteger(64);
}

bool amp::isExactConversion(FloatType from, FloatType to) {
  if (from == to)
    return true;
  // `to` holds every value of `from` when it has at least as many mantissa
  // bits, at least the exponent range and a subnormal at least as small.
  // f16 and bf16 are not nested either way.
  using llvm::APFloat;
  const llvm::fltSemantics &src = from.getFloatSemantics();
  const llvm::fltSemantics &dst = to.getFloatSemantics();
  int srcPrecision = APFloat::semanticsPrecision(src);
  int dstPrecision = APFloat::semanticsPrecision(dst);
  return srcPrecision <= dstPrecision &&
         APFloat::semanticsMaxExponent(src) <=
             APFloat::semanticsMaxExponent(dst) &&
         APFloat::semanticsMinExponent(src) - srcPrecision >=
             APFloat::semanticsMinExponent(dst) - dstPrecision;
}

FloatType amp::getDefaultAccumulatorType(FloatType operandType) {
  MLIRContext *ctx = operandType.getContext();
  if (operandType.isF64())
    return Float64Type::get(ctx);
  return Float32Type::get(ctx);
}

LogicalResult amp::broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes,
                                   SmallVectorImpl<int64_t> &result) {
  size_t rank = 0;
  for (ArrayRef<int64_t> shape : shapes)
    rank = std::max(rank, shape.size());
  result.assign(rank, 1);
  for (ArrayRef<int64_t> shape : shapes) {
    size_t offset = rank - shape.size();
    for (auto [i, dim] : llvm::enumerate(shape)) {
      int64_t &out = result[offset + i];
      if (dim == out || dim == 1)
        continue;
      if (out != 1)
        return failure();
      out = dim;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

std::optional<int64_t> amp::getCheckedProduct(ArrayRef<int64_t> factors) {
  int64_t product = 1;
  for (int64_t factor : factors)
    if (llvm::MulOverflow(product, factor, product))
      return std::nullopt;
  return product;
}

std::optional<int64_t> amp::getCheckedNumElements(RankedTensorType type) {
  return getCheckedProduct(type.getShape());
}

std::optional<int64_t> amp::getCheckedByteSize(RankedTensorType type,
                                               int64_t floatBytes16) {
  Type element = type.getElementType();
  int64_t bytes =
      element.isF16() || element.isBF16()
          ? floatBytes16
          : std::max<int64_t>(element.getIntOrFloatBitWidth() / 8, 1);
  std::optional<int64_t> count = getCheckedNumElements(type);
  if (!count)
    return std::nullopt;
  return getCheckedProduct({*count, bytes});
}

LogicalResult
amp::verifyStorableTensor(function_ref<InFlightDiagnostic()> emitError,
                          Type type, const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat())
    return success();
  if (llvm::is_contained(tensor.getShape(), 0))
    return emitError() << what << " of type " << type
                       << " is empty; amp tensors need every dimension to "
                          "be at least 1";
  if (!getCheckedByteSize(tensor))
    return emitError() << what << " of type " << type
                       << " is too large: its size in bytes does not fit "
                          "in 64 bits";
  return success();
}

LogicalResult OpTrait::amp::impl::verifyStorableTensors(Operation *op) {
  auto emit = [op] { return op->emitOpError(); };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(
            verifyStorableTensor(emit, type, "operand #" + std::to_string(i))))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(
            verifyStorableTensor(emit, type, "result #" + std::to_string(i))))
      return failure();
  return success();
}

static FloatType getFloatElementType(Value value) {
  return cast<FloatType>(getElementTypeOrSelf(value.getType()));
}

static int64_t getNumElements(Value value) {
  return cast<RankedTensorType>(value.getType()).getNumElements();
}

/// `perElement` FLOPs for each element of `value` (its count fits: the op
/// verified), or nullopt when the product does not fit.
static std::optional<int64_t> getFlopsPerElement(Value value,
                                                 int64_t perElement) {
  return getCheckedProduct({getNumElements(value), perElement});
}

//===----------------------------------------------------------------------===//
// ConstantOp, CastOp, IotaOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::verify() {
  if (!isa<DenseElementsAttr>(getValue()))
    return emitOpError("value must be a dense elements attribute");
  return success();
}

LogicalResult CastOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  return verifyResultShape(*this, input.getShape(), getType());
}

LogicalResult IotaOp::verify() {
  return verifyDimInRange(*this, "dim", getDim(), getType().getRank());
}

//===----------------------------------------------------------------------===//
// Work per element of the unary ops that do more than one FLOP, counted in
// the formulas the CUDA target emits (scalar_math.h)
//===----------------------------------------------------------------------===//

/// stop_gradient: a copy, where a kernel computes it at all.
ElementCost StopGradientOp::getElementCost() { return {0, 0}; }
ElementCost ExpOp::getElementCost() { return {0, 1}; }
ElementCost LogOp::getElementCost() { return {0, 1}; }
ElementCost SqrtOp::getElementCost() { return {0, 1}; }
ElementCost TanhOp::getElementCost() { return {0, 1}; }
ElementCost PowOp::getElementCost() { return {0, 1}; }
ElementCost RsqrtOp::getElementCost() { return {1, 1}; }
/// sigmoid: 1 / (1 + exp(-x)).
ElementCost SigmoidOp::getElementCost() { return {3, 1}; }
/// softplus: x > 20 ? x : log1p(exp(x)).
ElementCost SoftplusOp::getElementCost() { return {1, 2}; }
/// geluTanh: 0.5x(1 + tanh(c(x + 0.044715x^3))); geluErf: 0.5x(1 +
/// erf(x / sqrt 2)).
ElementCost GeluOp::getElementCost() {
  return getApproximate() == GeluApproximation::tanh ? ElementCost{8, 1}
                                                     : ElementCost{4, 1};
}

//===----------------------------------------------------------------------===//
// Elementwise ops with broadcasting
//===----------------------------------------------------------------------===//

/// Result type of a binary op: the broadcast shape in the lhs element type.
static LogicalResult inferBinaryType(std::optional<Location> loc,
                                     StringRef opName, ValueRange operands,
                                     SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 2)
    return emitOptional(loc, opName, "expects two operands");
  return inferBroadcastType(loc, opName, operands.getTypes(),
                            getElementTypeOrSelf(operands[0].getType()),
                            inferred);
}

#define AMP_DEFINE_BINARY_OP(OpName)                                           \
  LogicalResult OpName::inferReturnTypes(                                      \
      MLIRContext *, std::optional<Location> loc, ValueRange operands,         \
      DictionaryAttr, OpaqueProperties, RegionRange,                           \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferBinaryType(loc, getOperationName(), operands, inferred);       \
  }                                                                            \
  LogicalResult OpName::verify() {                                             \
    return verifySameElementType(*this, "lhs", getLhs().getType(), "rhs",      \
                                 getRhs().getType());                          \
  }

AMP_DEFINE_BINARY_OP(AddOp)
AMP_DEFINE_BINARY_OP(SubOp)
AMP_DEFINE_BINARY_OP(MulOp)
AMP_DEFINE_BINARY_OP(DivOp)
AMP_DEFINE_BINARY_OP(MaximumOp)
AMP_DEFINE_BINARY_OP(MinimumOp)

#undef AMP_DEFINE_BINARY_OP

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         ValueRange operands, DictionaryAttr,
                                         OpaqueProperties, RegionRange,
                                         SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 3)
    return emitOptional(loc, getOperationName(), "expects three operands");
  return inferBroadcastType(loc, getOperationName(), operands.getTypes(),
                            getElementTypeOrSelf(operands[1].getType()),
                            inferred);
}

LogicalResult SelectOp::verify() {
  return verifySameElementType(*this, "on_true", getOnTrue().getType(),
                               "on_false", getOnFalse().getType());
}

LogicalResult CompareOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          ValueRange operands, DictionaryAttr,
                                          OpaqueProperties, RegionRange,
                                          SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 2)
    return emitOptional(loc, getOperationName(), "expects two operands");
  return inferBroadcastType(loc, getOperationName(), operands.getTypes(),
                            IntegerType::get(ctx, 1), inferred);
}

LogicalResult CompareOp::verify() {
  return verifySameElementType(*this, "lhs", getLhs().getType(), "rhs",
                               getRhs().getType());
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (failed(verifySameElementType(*this, "input", input, "result", getType())))
    return failure();
  // Both counts fit: the op's tensors verified (StorableTensors).
  int64_t inputCount = input.getNumElements();
  int64_t resultCount = getType().getNumElements();
  if (inputCount != resultCount)
    return emitOpError() << "cannot reshape " << inputCount << " elements into "
                         << resultCount;
  return success();
}

LogicalResult TransposeOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  ArrayRef<int64_t> perm = getPermutation();
  if (static_cast<int64_t>(perm.size()) != input.getRank())
    return emitOpError() << "permutation has " << perm.size()
                         << " entries for a rank-" << input.getRank()
                         << " input";
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t dim : perm) {
    if (dim < 0 || dim >= input.getRank() || seen[dim])
      return emitOpError() << "permutation " << formatShape(perm)
                           << " is not a permutation of [0, " << input.getRank()
                           << ")";
    seen[dim] = true;
    shape.push_back(input.getDimSize(dim));
  }
  return verifyResultShape(*this, shape, getType(), input.getElementType());
}

LogicalResult BroadcastToOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (failed(verifySameElementType(*this, "input", input, "result", getType())))
    return failure();
  SmallVector<int64_t> shape;
  if (input.getRank() > getType().getRank() ||
      failed(
          broadcastShapes({input.getShape(), getType().getShape()}, shape)) ||
      ArrayRef<int64_t>(shape) != getType().getShape())
    return emitOpError() << "cannot broadcast shape "
                         << formatShape(input.getShape()) << " to "
                         << formatShape(getType().getShape());
  return success();
}

LogicalResult SliceOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  ArrayRef<int64_t> start = getStart(), limit = getLimit();
  if (static_cast<int64_t>(start.size()) != input.getRank() ||
      static_cast<int64_t>(limit.size()) != input.getRank())
    return emitOpError() << "start and limit need " << input.getRank()
                         << " entries each, got " << start.size() << " and "
                         << limit.size();
  SmallVector<int64_t> shape;
  for (int64_t i = 0, e = input.getRank(); i < e; ++i) {
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > input.getDimSize(i))
      return emitOpError() << "slice [" << start[i] << ", " << limit[i]
                           << ") of dimension " << i << " is outside [0, "
                           << input.getDimSize(i) << "]";
    shape.push_back(limit[i] - start[i]);
  }
  return verifyResultShape(*this, shape, getType(), input.getElementType());
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("expects at least one input");
  auto first = cast<RankedTensorType>(getInputs().front().getType());
  if (failed(verifyDimInRange(*this, "dim", getDim(), first.getRank())))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  shape[getDim()] = 0;
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(value.getType());
    if (failed(verifySameElementType(*this, "input #0", first,
                                     "input #" + std::to_string(i), type)))
      return failure();
    if (type.getRank() != first.getRank())
      return emitOpError() << "input #" << i << " has rank " << type.getRank()
                           << ", expected " << first.getRank();
    for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
      if (d != static_cast<int64_t>(getDim()) &&
          type.getDimSize(d) != first.getDimSize(d))
        return emitOpError()
               << "input #" << i << " has shape "
               << formatShape(type.getShape()) << ", which differs from "
               << formatShape(first.getShape()) << " outside dimension "
               << getDim();
    }
    shape[getDim()] += type.getDimSize(getDim());
  }
  return verifyResultShape(*this, shape, getType(), first.getElementType());
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

/// Checks an optional `bias` of a matmul or convolution with one result:
/// a vector of `count` values (one per `what`) of the result element type.
static LogicalResult verifyBias(Operation *op, Value bias, int64_t count,
                                StringRef what) {
  if (!bias)
    return success();
  auto type = cast<RankedTensorType>(bias.getType());
  Type element =
      cast<RankedTensorType>(op->getResult(0).getType()).getElementType();
  if (type.getShape() != ArrayRef<int64_t>{count})
    return op->emitOpError()
           << "bias must be a vector of the " << count << " " << what
           << ", got " << formatShape(type.getShape());
  if (type.getElementType() != element)
    return op->emitOpError() << "bias must have the result element type "
                             << element << ", got " << type.getElementType();
  return success();
}

FloatType MatmulOp::getAccumulatorType() {
  if (std::optional<FloatType> acc = getAccType())
    return *acc;
  return getDefaultAccumulatorType(getFloatElementType(getLhs()));
}

namespace {
/// The logical dimensions of a (possibly transposed, batched) matmul.
struct MatmulDims {
  SmallVector<int64_t> batch;
  int64_t m = 0, n = 0, k = 0;
};
} // namespace

static FailureOr<MatmulDims> getMatmulDims(MatmulOp op) {
  auto lhs = cast<RankedTensorType>(op.getLhs().getType());
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  if (lhs.getRank() < 2 || rhs.getRank() < 2) {
    op.emitOpError() << "operands must have rank 2 or more, got "
                     << lhs.getRank() << " and " << rhs.getRank();
    return failure();
  }
  ArrayRef<int64_t> l = lhs.getShape(), r = rhs.getShape();
  int64_t lr = lhs.getRank(), rr = rhs.getRank();
  MatmulDims dims;
  dims.m = op.getTransposeLhs() ? l[lr - 1] : l[lr - 2];
  int64_t lhsK = op.getTransposeLhs() ? l[lr - 2] : l[lr - 1];
  int64_t rhsK = op.getTransposeRhs() ? r[rr - 1] : r[rr - 2];
  dims.n = op.getTransposeRhs() ? r[rr - 2] : r[rr - 1];
  if (lhsK != rhsK) {
    op.emitOpError() << "contracting dimensions differ: lhs has " << lhsK
                     << ", rhs has " << rhsK;
    return failure();
  }
  dims.k = lhsK;
  if (failed(broadcastShapes({l.drop_back(2), r.drop_back(2)}, dims.batch))) {
    op.emitOpError() << "batch dimensions " << formatShape(l.drop_back(2))
                     << " and " << formatShape(r.drop_back(2))
                     << " are not broadcast-compatible";
    return failure();
  }
  return dims;
}

/// An FP8 GEMM's attributes: both operands' formats or neither, not both
/// e5m2 (cuBLASLt has no such kernel, and no recipe uses one), operands
/// that f32 scales (f16, bf16, f32), an f32 accumulator.
/// Delayed scaling's operands: `scales` a 1-D f32 tensor, and
/// `fp8_scale_index` two of its positions.
static LogicalResult verifyFp8Scales(MatmulOp op) {
  Value scales = op.getScales();
  std::optional<ArrayRef<int64_t>> index = op.getFp8ScaleIndex();
  if (!scales) {
    if (index)
      return op.emitOpError() << "fp8_scale_index needs scales";
    return success();
  }
  auto type = dyn_cast<RankedTensorType>(scales.getType());
  if (!type || type.getRank() != 1 || !type.hasStaticShape() ||
      !type.getElementType().isF32())
    return op.emitOpError()
           << "scales must be a 1-D f32 tensor, got " << scales.getType();
  size_t expected = op.getGradFp8Attr() ? 3 : 2;
  if (!index || index->size() != expected)
    return op.emitOpError()
           << "scales needs fp8_scale_index of " << expected
           << " positions: lhs's and rhs's scales"
           << (expected == 3 ? ", then the gradient's (grad_fp8)" : "");
  for (int64_t position : *index)
    if (position < 0 || position >= type.getDimSize(0))
      return op.emitOpError()
             << "fp8_scale_index " << position << " is outside scales " << type;
  return success();
}

static LogicalResult verifyFp8(MatmulOp op) {
  TypeAttr lhs = op.getLhsFp8Attr(), rhs = op.getRhsFp8Attr();
  if (!lhs && !rhs) {
    if (op.getGradFp8Attr())
      return op.emitOpError()
             << "grad_fp8 needs lhs_fp8 and rhs_fp8: only an FP8 GEMM has "
                "FP8 backward GEMMs";
    if (op.getScales() || op.getFp8ScaleIndex())
      return op.emitOpError() << "scales need lhs_fp8 and rhs_fp8: only an "
                                 "FP8 GEMM scales its operands";
    return success();
  }
  if (!lhs || !rhs)
    return op.emitOpError() << "an FP8 GEMM needs both lhs_fp8 and rhs_fp8, "
                               "got only "
                            << (lhs ? "lhs_fp8" : "rhs_fp8");
  if (lhs.getValue().isFloat8E5M2() && rhs.getValue().isFloat8E5M2())
    return op.emitOpError()
           << "lhs_fp8 and rhs_fp8 are both f8E5M2; one operand must be "
              "f8E4M3FN (FP8 GEMMs multiply e4m3 by e4m3 or e5m2)";
  FloatType element = getFloatElementType(op.getLhs());
  if (element.isF64())
    return op.emitOpError() << "an FP8 GEMM scales its operands in f32; got "
                               "f64 operands";
  if (!op.getAccumulatorType().isF32())
    return op.emitOpError() << "an FP8 GEMM accumulates in f32, got acc_type "
                            << op.getAccumulatorType();
  if (getFloatElementType(op.getResult()).isF64())
    return op.emitOpError() << "an FP8 GEMM writes f16, bf16 or f32, got f64";
  return verifyFp8Scales(op);
}

/// Whether `value` holds FP8 values (cast before the GEMM).
static bool isFp8Tensor(Value value) {
  Type element = getElementTypeOrSelf(value.getType());
  return element.isFloat8E4M3FN() || element.isFloat8E5M2();
}

/// A matmul of FP8 operands: both FP8, their formats the attributes, the
/// scales they were cast with given.
static LogicalResult verifyFp8Operands(MatmulOp op) {
  bool lhs = isFp8Tensor(op.getLhs()), rhs = isFp8Tensor(op.getRhs());
  if (!lhs && !rhs)
    return success();
  Type lhsType = getElementTypeOrSelf(op.getLhs().getType()),
       rhsType = getElementTypeOrSelf(op.getRhs().getType());
  if (!lhs || !rhs || !op.getLhsFp8() || !op.getRhsFp8() ||
      *op.getLhsFp8() != lhsType || *op.getRhsFp8() != rhsType ||
      !op.getScales())
    return op.emitOpError()
           << "FP8 operands (" << lhsType << ", " << rhsType
           << ") need both operands FP8, lhs_fp8 and rhs_fp8 their types, "
              "and the scales they were cast with";
  if (op.getGradFp8Attr())
    return op.emitOpError() << "a product of FP8 operands has no gradient: "
                               "no grad_fp8";
  return success();
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyFp8Operands(*this)))
    return failure();
  if (!isFp8Tensor(getLhs()) &&
      failed(verifySameElementType(*this, "lhs", getLhs().getType(), "rhs",
                                   getRhs().getType())))
    return failure();
  FailureOr<MatmulDims> dims = getMatmulDims(*this);
  if (failed(dims))
    return failure();
  SmallVector<int64_t> shape(dims->batch);
  shape.push_back(dims->m);
  shape.push_back(dims->n);
  if (failed(verifyResultShape(*this, shape, getType())))
    return failure();
  if (failed(verifyBias(*this, getBias(), dims->n, "result columns")))
    return failure();
  if (!isFp8Tensor(getLhs()) &&
      failed(verifyAccumulatorType(*this, getAccumulatorType(),
                                   getFloatElementType(getLhs()))))
    return failure();
  return verifyFp8(*this);
}

std::optional<int64_t> MatmulOp::getForwardFlops() {
  FailureOr<MatmulDims> dims = getMatmulDims(*this);
  if (failed(dims))
    return 0;
  SmallVector<int64_t> factors(dims->batch);
  factors.append({dims->m, dims->n});
  // Two FLOPs per product, one more per output for the bias.
  std::optional<int64_t> outputs = getCheckedProduct(factors);
  if (!outputs)
    return std::nullopt;
  factors.append({2, dims->k});
  std::optional<int64_t> products = getCheckedProduct(factors);
  if (!products || (getBias() && *products > INT64_MAX - *outputs))
    return std::nullopt;
  return *products + (getBias() ? *outputs : 0);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

/// The rank-4 types of attention's query, key and value when their shapes
/// fit together (batch and heads equal, query and key head dims equal, as
/// many values as keys); null after emitting why not.
static SmallVector<RankedTensorType>
getAttentionTypes(std::optional<Location> loc, StringRef opName,
                  ValueRange qkv) {
  SmallVector<RankedTensorType> types;
  for (Value operand : qkv) {
    RankedTensorType type = getStaticTensorType(operand.getType());
    if (!type || type.getRank() != 4) {
      (void)emitOptional(loc, opName,
                         "query, key and value must be statically shaped "
                         "rank-4 tensors [batch, heads, sequence, head dim]");
      return {};
    }
    types.push_back(type);
  }
  ArrayRef<int64_t> q = types[0].getShape(), k = types[1].getShape(),
                    v = types[2].getShape();
  LogicalResult fits = success();
  if (q[0] != k[0] || q[0] != v[0] || q[1] != k[1] || q[1] != v[1])
    fits = emitOptional(loc, opName,
                        "batch and head dimensions of query " + formatShape(q) +
                            ", key " + formatShape(k) + " and value " +
                            formatShape(v) + " differ");
  else if (q[3] != k[3])
    fits =
        emitOptional(loc, opName,
                     "query head dim " + std::to_string(q[3]) +
                         " differs from key head dim " + std::to_string(k[3]));
  else if (k[2] != v[2])
    fits = emitOptional(loc, opName,
                        "key sequence length " + std::to_string(k[2]) +
                            " differs from value sequence length " +
                            std::to_string(v[2]));
  if (failed(fits))
    return {};
  return types;
}

/// attention's output: [batch, heads, queries, value dim] in the query's
/// element type.
static RankedTensorType getAttentionOutputType(RankedTensorType query,
                                               RankedTensorType value) {
  ArrayRef<int64_t> q = query.getShape();
  return RankedTensorType::get({q[0], q[1], q[2], value.getDimSize(3)},
                               query.getElementType());
}

/// attention's log-sum-exp: [batch, heads, queries] in the accumulator type.
static RankedTensorType getLseType(RankedTensorType query) {
  return RankedTensorType::get(
      query.getShape().drop_back(),
      getDefaultAccumulatorType(cast<FloatType>(query.getElementType())));
}

/// 1 / sqrt(head dim) unless `scale` is set.
static double getAttentionScale(std::optional<APFloat> scale, Value query) {
  if (scale)
    return scale->convertToDouble();
  auto type = cast<RankedTensorType>(query.getType());
  return 1.0 / std::sqrt(static_cast<double>(type.getDimSize(3)));
}

static LogicalResult verifyAttentionScale(Operation *op,
                                          std::optional<APFloat> scale) {
  if (!scale)
    return success();
  double value = scale->convertToDouble();
  if (!(std::isfinite(value) && value > 0.0))
    return op->emitOpError()
           << "scale must be positive and finite, got " << value;
  return success();
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  if (adaptor.getOperands().size() != 3)
    return emitOptional(loc, getOperationName(),
                        "expects query, key and value");
  SmallVector<RankedTensorType> types =
      getAttentionTypes(loc, getOperationName(), adaptor.getOperands());
  if (types.empty())
    return failure();
  inferred.push_back(getAttentionOutputType(types[0], types[2]));
  if (adaptor.getWithLse())
    inferred.push_back(getLseType(types[0]));
  return success();
}

LogicalResult AttentionOp::verify() {
  if (failed(verifySameElementType(*this, "query", getQuery().getType(), "key",
                                   getKey().getType())) ||
      failed(verifySameElementType(*this, "query", getQuery().getType(),
                                   "value", getValue().getType())))
    return failure();
  return verifyAttentionScale(*this, getScale());
}

double AttentionOp::getScaleOrDefault() {
  return getAttentionScale(getScale(), getQuery());
}

bool AttentionOp::isPrecisionResult(unsigned index) {
  return index == 0; // the log-sum-exp stays in the accumulator type
}

std::optional<int64_t> AttentionOp::getForwardFlops() {
  auto q = cast<RankedTensorType>(getQuery().getType());
  auto v = cast<RankedTensorType>(getValue().getType());
  // Two GEMMs and a softmax over the dense score matrix; a causal kernel
  // skips about half of this work, which the count does not credit:
  // scores * (2 * D + 2 * Dv + 5).
  std::optional<int64_t> scores = getCheckedProduct(
      {q.getDimSize(0), q.getDimSize(1), q.getDimSize(2), v.getDimSize(2)});
  int64_t perScore = 0;
  if (!scores ||
      llvm::AddOverflow(q.getDimSize(3), v.getDimSize(3), perScore) ||
      llvm::MulOverflow(perScore, int64_t(2), perScore) ||
      llvm::AddOverflow(perScore, int64_t(5), perScore))
    return std::nullopt;
  return getCheckedProduct({*scores, perScore});
}

//===----------------------------------------------------------------------===//
// AttentionGradOp
//===----------------------------------------------------------------------===//

LogicalResult
AttentionGradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  if (adaptor.getOperands().size() != 6)
    return emitOptional(loc, getOperationName(),
                        "expects query, key, value, output, lse and grad");
  SmallVector<RankedTensorType> types = getAttentionTypes(
      loc, getOperationName(), adaptor.getOperands().take_front(3));
  if (types.empty())
    return failure();
  // Of the operands' types (the verifier checks that they agree).
  for (RankedTensorType type : types)
    inferred.push_back(type.clone(types[0].getElementType()));
  return success();
}

LogicalResult AttentionGradOp::verify() {
  Type query = getQuery().getType();
  for (auto [name, value] : {std::pair<StringRef, Value>{"key", getKey()},
                             {"value", getValue()},
                             {"output", getOutput()},
                             {"grad", getGrad()}})
    if (failed(verifySameElementType(*this, "query", query, name,
                                     value.getType())))
      return failure();
  auto q = cast<RankedTensorType>(query);
  auto v = cast<RankedTensorType>(getValue().getType());
  RankedTensorType expectedOutput = getAttentionOutputType(q, v);
  if (getOutput().getType() != expectedOutput ||
      getGrad().getType() != expectedOutput)
    return emitOpError() << "expects output and grad of attention's result "
                            "type "
                         << expectedOutput << ", got " << getOutput().getType()
                         << " and " << getGrad().getType();
  if (getLse().getType() != getLseType(q))
    return emitOpError() << "expects the forward's log-sum-exp of type "
                         << getLseType(q) << ", got " << getLse().getType();
  return verifyAttentionScale(*this, getScale());
}

double AttentionGradOp::getScaleOrDefault() {
  return getAttentionScale(getScale(), getQuery());
}

bool AttentionGradOp::isPrecisionOperand(unsigned index) {
  return index != getLseMutable().getOperandNumber();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename ReductionOp>
static LogicalResult verifyReduction(ReductionOp op) {
  auto input = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> dims = op.getDims();
  if (dims.empty())
    return op.emitOpError("expects at least one dimension to reduce");
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t dim : dims) {
    if (failed(verifyDimInRange(op, "dims entry", dim, input.getRank())))
      return failure();
    if (!seen.insert(dim).second)
      return op.emitOpError() << "dimension " << dim << " is reduced twice";
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0, e = input.getRank(); i < e; ++i) {
    if (!seen.contains(i))
      shape.push_back(input.getDimSize(i));
    else if (op.getKeepdims())
      shape.push_back(1);
  }
  return verifyResultShape(op, shape, op.getType());
}

template <typename ReductionOp>
static LogicalResult verifyAccumulatingReduction(ReductionOp op) {
  if (failed(verifyReduction(op)))
    return failure();
  return verifyAccumulatorType(op, op.getAccumulatorType(),
                               getFloatElementType(op.getInput()));
}

LogicalResult SumOp::verify() { return verifyAccumulatingReduction(*this); }
LogicalResult MeanOp::verify() { return verifyAccumulatingReduction(*this); }

LogicalResult MaxOp::verify() {
  if (failed(verifyReduction(*this)))
    return failure();
  return verifySameElementType(*this, "input", getInput().getType(), "result",
                               getType());
}

FloatType SumOp::getAccumulatorType() {
  if (std::optional<FloatType> acc = getAccType())
    return *acc;
  return getDefaultAccumulatorType(getFloatElementType(getInput()));
}

FloatType MeanOp::getAccumulatorType() {
  if (std::optional<FloatType> acc = getAccType())
    return *acc;
  return getDefaultAccumulatorType(getFloatElementType(getInput()));
}

std::optional<int64_t> SumOp::getForwardFlops() {
  return getNumElements(getInput());
}
std::optional<int64_t> MeanOp::getForwardFlops() {
  return getNumElements(getInput());
}
std::optional<int64_t> MaxOp::getForwardFlops() {
  return getNumElements(getInput());
}

LogicalResult SumSquaresOp::inferReturnTypes(MLIRContext *context,
                                             std::optional<Location>,
                                             ValueRange, DictionaryAttr,
                                             OpaqueProperties, RegionRange,
                                             SmallVectorImpl<Type> &inferred) {
  inferred.push_back(RankedTensorType::get({}, Float32Type::get(context)));
  return success();
}

LogicalResult SumSquaresOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (type.getRank() != 0 || !type.getElementType().isF32())
    return emitOpError() << "result must be a 0-d f32 tensor, got " << type;
  return success();
}

// A multiply and an add per element.
std::optional<int64_t> SumSquaresOp::getForwardFlops() {
  int64_t flops = 0;
  for (Value input : getInputs()) {
    std::optional<int64_t> each = getFlopsPerElement(input, 2);
    if (!each || flops > std::numeric_limits<int64_t>::max() - *each)
      return std::nullopt;
    flops += *each;
  }
  return flops;
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return verifyDimInRange(*this, "dim", getDim(), getType().getRank());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyDimInRange(*this, "dim", getDim(), getType().getRank());
}

// max, subtract, exp, sum and divide (or log and subtract) per element.
std::optional<int64_t> SoftmaxOp::getForwardFlops() {
  return getFlopsPerElement(getInput(), 5);
}
std::optional<int64_t> LogSoftmaxOp::getForwardFlops() {
  return getFlopsPerElement(getInput(), 5);
}

static LogicalResult verifyEpsilon(Operation *op, double epsilon) {
  if (std::isfinite(epsilon) && epsilon >= 0.0)
    return success();
  return op->emitOpError() << "epsilon must be non-negative and finite, got "
                           << epsilon;
}

template <typename NormOp> static int64_t getNormalizedAxisOf(NormOp op) {
  if (std::optional<int64_t> axis = op.getAxis())
    return *axis;
  return cast<RankedTensorType>(op.getInput().getType()).getRank() - 1;
}

int64_t LayerNormOp::getNormalizedAxis() { return getNormalizedAxisOf(*this); }
int64_t RmsNormOp::getNormalizedAxis() { return getNormalizedAxisOf(*this); }

template <typename NormOp> static LogicalResult verifyNormAxis(NormOp op) {
  auto input = cast<RankedTensorType>(op.getInput().getType());
  if (input.getRank() == 0)
    return op.emitOpError("input must have rank 1 or more");
  return verifyDimInRange(op, "axis", op.getNormalizedAxis(), input.getRank());
}

LogicalResult LayerNormOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (failed(verifyNormAxis(*this)) ||
      failed(verifyEpsilon(*this, getEpsilon().convertToDouble())))
    return failure();
  if (failed(verifyNormalizedParam(*this, input, getNormalizedAxis(), "weight",
                                   getWeight())))
    return failure();
  return verifyNormalizedParam(*this, input, getNormalizedAxis(), "bias",
                               getBias());
}

LogicalResult RmsNormOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (failed(verifyNormAxis(*this)) ||
      failed(verifyEpsilon(*this, getEpsilon().convertToDouble())))
    return failure();
  return verifyNormalizedParam(*this, input, getNormalizedAxis(), "weight",
                               getWeight());
}

// mean, subtract, square, variance sum, scale, affine multiply and add.
std::optional<int64_t> LayerNormOp::getForwardFlops() {
  return getFlopsPerElement(getInput(), 8);
}
// square, sum, scale, weight multiply and the final multiply.
std::optional<int64_t> RmsNormOp::getForwardFlops() {
  return getFlopsPerElement(getInput(), 5);
}

int64_t NormStatsOp::getNormalizedAxis() { return getNormalizedAxisOf(*this); }

LogicalResult NormStatsOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (failed(verifyNormAxis(*this)) ||
      failed(verifyEpsilon(*this, getEpsilon().convertToDouble())))
    return failure();
  if (!input.getElementType().isF32() && !input.getElementType().isF64())
    return emitOpError() << "computes the statistics of an f32 or f64 input, "
                            "as a norm computes them, got "
                         << input.getElementType() << "; cast the input first";
  SmallVector<int64_t> shape(input.getShape());
  for (size_t d = getNormalizedAxis(); d < shape.size(); ++d)
    shape[d] = 1;
  auto expected = RankedTensorType::get(shape, input.getElementType());
  for (Value result : getResults())
    if (result.getType() != expected)
      return emitOpError() << "results must be " << expected
                           << " (the input's shape, each normalised "
                              "dimension of size 1, and its type), got "
                           << result.getType();
  return success();
}

bool NormStatsOp::isComputedBy(Operation *norm) {
  // A norm computes in f64 when any of its operands is f64, else in f32.
  auto computeType = [](Operation *op) {
    return llvm::any_of(
               op->getOperandTypes(),
               [](Type type) { return getElementTypeOrSelf(type).isF64(); })
               ? 64
               : 32;
  };
  auto same = [&](auto op) {
    return op.getInput() == getInput() && op.getEpsilon() == getEpsilon() &&
           op.getNormalizedAxis() == getNormalizedAxis() &&
           computeType(op) == computeType(*this);
  };
  if (auto layerNorm = dyn_cast<LayerNormOp>(norm))
    return getCentered() && same(layerNorm);
  if (auto rmsNorm = dyn_cast<RmsNormOp>(norm))
    return !getCentered() && same(rmsNorm);
  return false;
}

// The mean's sum (centered), the subtraction, square and sum of the
// squares, per element.
std::optional<int64_t> NormStatsOp::getForwardFlops() {
  return getFlopsPerElement(getInput(), getCentered() ? 4 : 2);
}

/// The dimensions a batch norm of `input` reduces per channel.
static SmallVector<int64_t, 3> batchNormReducedDims(Value input) {
  if (cast<RankedTensorType>(input.getType()).getRank() == 4)
    return {0, 2, 3};
  return {0};
}

/// The values of `input` a batch norm reduces per channel (INT64_MAX
/// where they overflow).
static int64_t batchNormValuesPerChannel(Value input) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
  int64_t values = 1;
  for (int64_t d : batchNormReducedDims(input))
    if (llvm::MulOverflow(values, shape[d], values))
      return INT64_MAX;
  return values;
}

SmallVector<int64_t, 3> BatchNormOp::getReducedDims() {
  return batchNormReducedDims(getInput());
}
int64_t BatchNormOp::getValuesPerChannel() {
  return batchNormValuesPerChannel(getInput());
}
SmallVector<int64_t, 3> BatchNormGradOp::getReducedDims() {
  return batchNormReducedDims(getInput());
}
int64_t BatchNormGradOp::getValuesPerChannel() {
  return batchNormValuesPerChannel(getInput());
}

/// What amp.batch_norm and amp.batch_norm_grad verify alike: the
/// activations' rank, epsilon, the running statistics' type, the shape of
/// each per-channel value in `perChannel` (named), the values per channel
/// a training normalisation needs.
static LogicalResult
verifyBatchNorm(Operation *op, Value input, Value runningMean, double epsilon,
                bool training,
                ArrayRef<std::pair<StringRef, Value>> perChannel) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getRank() != 2 && type.getRank() != 4)
    return op->emitOpError()
           << "expects [N, C] or [N, C, H, W] activations, got " << type;
  if (failed(verifyEpsilon(op, epsilon)))
    return failure();
  int64_t channels = type.getDimSize(1);
  FloatType acc =
      getDefaultAccumulatorType(cast<FloatType>(type.getElementType()));
  auto statistics = RankedTensorType::get({channels}, acc);
  if (runningMean.getType() != statistics)
    return op->emitOpError() << "running statistics must be " << statistics
                             << " (the channels, in the accumulator type), got "
                             << runningMean.getType();
  for (auto [name, value] : perChannel)
    if (value && cast<RankedTensorType>(value.getType()).getShape() !=
                     ArrayRef<int64_t>{channels})
      return op->emitOpError()
             << name << " must have the " << channels << " channels' shape ["
             << channels << "], got " << value.getType();
  int64_t values = batchNormValuesPerChannel(input);
  if (training && values < 2)
    return op->emitOpError() << "training needs more than one value per "
                                "channel (the unbiased variance divides by n "
                                "- 1), got "
                             << values;
  return success();
}

LogicalResult BatchNormOp::verify() {
  double momentum = getMomentum().convertToDouble();
  if (failed(verifyBatchNorm(*this, getInput(), getRunningMean(),
                             getEpsilon().convertToDouble(), getTraining(),
                             {{"scale", getWeight()}, {"bias", getBias()}})))
    return failure();
  if (!(momentum >= 0.0 && momentum <= 1.0))
    return emitOpError() << "momentum must be in [0, 1], got " << momentum;
  return success();
}

LogicalResult BatchNormGradOp::verify() {
  return verifyBatchNorm(*this, getInput(), getRunningMean(),
                         getEpsilon().convertToDouble(), getTraining(),
                         {{"scale", getWeight()},
                          {"scale_grad", getScaleGrad()},
                          {"bias_grad", getBiasGrad()}});
}

bool BatchNormOp::isPrecisionOperand(unsigned index) {
  return index == 0; // the statistics and the affine parameters keep theirs
}
bool BatchNormOp::isPrecisionResult(unsigned index) {
  return index == 0; // the running statistics stay in the accumulator type
}
bool BatchNormOp::keepsLowPrecisionIO() { return true; }

// mean, subtract, square, variance sum, divide, scale and bias.
std::optional<int64_t> BatchNormOp::getForwardFlops() {
  return getFlopsPerElement(getInput(), 7);
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// The window of `op` (an Amp_WindowOp) with kernel `kernel`: its
/// attributes as verifyWindow checks them, defaults filled in (strides of
/// one, or of the kernel for pooling, as PyTorch's).
static Conv2dWindow windowOf(Operation *op, ArrayRef<int64_t> kernel,
                             bool stridesOfKernel = false) {
  Conv2dWindow window;
  if (stridesOfKernel)
    llvm::copy(kernel, window.strides);
  auto read = [&](StringRef name, MutableArrayRef<int64_t> into) {
    if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name)) {
      ArrayRef<int64_t> values = attr.asArrayRef();
      for (size_t i = 0; i < into.size(); ++i)
        into[i] = values[i % values.size()];
    }
  };
  llvm::copy(kernel, window.kernel);
  read("strides", window.strides);
  read("padding", window.padding);
  read("dilations", window.dilations);
  return window;
}

/// Checks `op`'s window: `kernel`, strides and dilations 2 values >= 1,
/// padding 2 or 4 values >= 0.
static LogicalResult verifyWindow(Operation *op, ArrayRef<int64_t> kernel) {
  auto check = [&](StringRef name, ArrayRef<int64_t> values, int64_t least,
                   bool fourToo) -> LogicalResult {
    if (values.size() != 2 && !(fourToo && values.size() == 4))
      return op->emitOpError()
             << name << " must have "
             << (fourToo ? "2 values [h, w] or 4 [top, left, bottom, right]"
                         : "2 values [h, w]")
             << ", got " << formatShape(values);
    if (llvm::any_of(values, [&](int64_t v) { return v < least; }))
      return op->emitOpError() << name << " must be >= " << least << ", got "
                               << formatShape(values);
    // Bounded, so that the window's arithmetic (a dilated span, a padded
    // extent) cannot overflow.
    if (llvm::any_of(values, [](int64_t v) { return v > INT32_MAX; }))
      return op->emitOpError() << name << " must be at most " << INT32_MAX
                               << ", got " << formatShape(values);
    return success();
  };
  if (failed(check("kernel", kernel, 1, false)))
    return failure();
  for (auto [name, least, fourToo] :
       {std::tuple<StringRef, int64_t, bool>{"strides", 1, false},
        {"padding", 0, true},
        {"dilations", 1, false}})
    if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>(name))
      if (failed(check(name, attr.asArrayRef(), least, fourToo)))
        return failure();
  return success();
}

/// The shape [N, C, OH, OW] of `window` over `image` ([N, C, H, W]), or an
/// error at `op` where the window does not fit.
static FailureOr<SmallVector<int64_t>>
getWindowOutputShape(Operation *op, const Conv2dWindow &window,
                     ArrayRef<int64_t> image) {
  int64_t oh = window.outputSize(image[2], 0),
          ow = window.outputSize(image[3], 1);
  if (oh < 1 || ow < 1)
    return op->emitOpError()
           << "the " << formatShape(window.kernel) << " window (dilations "
           << formatShape(window.dilations)
           << ") does not fit the padded image " << formatShape(image);
  return SmallVector<int64_t>{image[0], image[1], oh, ow};
}

/// A rank-4 NCHW `name` of `op`.
static FailureOr<ArrayRef<int64_t>> getImageShape(Operation *op, StringRef name,
                                                  Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() != 4)
    return op->emitOpError() << name << " must have rank 4 [N, C, H, W], got "
                             << formatShape(type.getShape());
  return type.getShape();
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// A convolution's (or its gradient's) groups, 1 by default.
template <typename Op> static int64_t groupCountOf(Op op) {
  return op.getGroups().value_or(1);
}

/// A convolution's (or its gradient's) accumulator: `acc_type` when set,
/// else f32 (f64 for f64) for the type of `operand`.
template <typename Op>
static FloatType accumulatorTypeOf(Op op, Value operand) {
  if (std::optional<FloatType> acc = op.getAccType())
    return *acc;
  return getDefaultAccumulatorType(getFloatElementType(operand));
}

int64_t Conv2dOp::getGroupCount() { return groupCountOf(*this); }

FloatType Conv2dOp::getAccumulatorType() {
  return accumulatorTypeOf(*this, getInput());
}

/// What amp.conv2d and its gradients check alike, for the image shape
/// `in` (named `image`: "input" or "image") and the weight shape `w` of a
/// rank-4 weight: the groups, the weight's channels, the window, the
/// columns the lowering stores (amp.im2col's, of `element`), and the
/// accumulator (the lowering's matmul sums in it, and the bias is added
/// to its result as an f32 or f64 add, which only those types match).
/// Returns the convolution's output shape.
template <typename Op>
static FailureOr<SmallVector<int64_t>>
verifyConvolution(Op op, StringRef image, ArrayRef<int64_t> in,
                  ArrayRef<int64_t> w, FloatType element) {
  int64_t groups = op.getGroupCount();
  if (groups < 1 || in[1] % groups || w[0] % groups)
    return op.emitOpError()
           << "groups (" << groups << ") must be >= 1 and divide the " << image
           << "'s " << in[1] << " channels and the weight's " << w[0]
           << " output channels";
  if (w[1] != in[1] / groups)
    return op.emitOpError()
           << "weight " << formatShape(w) << " must have " << in[1] / groups
           << " input channels (the " << image << "'s " << in[1] << " over "
           << groups << " groups)";
  if (failed(verifyWindow(op, w.drop_front(2))))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      getWindowOutputShape(op, windowOf(op, w.drop_front(2)), in);
  if (failed(shape))
    return failure();
  (*shape)[1] = w[0];
  if (!getCheckedProduct({in[0], in[1], w[2], w[3], (*shape)[2], (*shape)[3],
                          element.getWidth() / 8}))
    return op.emitOpError()
           << "its columns, [" << in[0] << ", " << in[1] << " * " << w[2]
           << " * " << w[3] << ", " << (*shape)[2] << " * " << (*shape)[3]
           << "], would take more bytes than int64 holds";
  if (op.getAccumulatorType().getWidth() < 32)
    return op.emitOpError()
           << "acc_type must be f32 or f64, got " << op.getAccumulatorType();
  if (failed(verifyAccumulatorType(op, op.getAccumulatorType(), element)))
    return failure();
  return shape;
}

Conv2dWindow Conv2dOp::getWindow() {
  return windowOf(*this, shapeOf(getWeight()).drop_front(2));
}

LogicalResult Conv2dOp::verify() {
  if (failed(verifySameElementType(*this, "input", getInput().getType(),
                                   "weight", getWeight().getType())))
    return failure();
  FailureOr<ArrayRef<int64_t>> image =
      getImageShape(*this, "input", getInput());
  auto weightType = cast<RankedTensorType>(getWeight().getType());
  if (failed(image))
    return failure();
  if (weightType.getRank() != 4)
    return emitOpError() << "weight must have rank 4 [O, C / groups, KH, KW], "
                            "got "
                         << formatShape(weightType.getShape());
  FailureOr<SmallVector<int64_t>> shape =
      verifyConvolution(*this, "input", *image, weightType.getShape(),
                        getFloatElementType(getInput()));
  if (failed(shape) || failed(verifyResultShape(*this, *shape, getType())))
    return failure();
  return verifyBias(*this, getBias(), (*shape)[1], "output channels");
}

std::optional<int64_t> Conv2dOp::getForwardFlops() {
  ArrayRef<int64_t> out = getType().getShape(), weight = shapeOf(getWeight());
  // Two FLOPs per product, one more per output for the bias.
  std::optional<int64_t> outputs = getCheckedProduct(out);
  std::optional<int64_t> products = getCheckedProduct(
      {out[0], out[1], out[2], out[3], 2, weight[1], weight[2], weight[3]});
  if (!outputs || !products || *products > INT64_MAX - *outputs)
    return std::nullopt;
  return *products + (getBias() ? *outputs : 0);
}

/// The checks of a convolution's gradient `op` (Conv2dGradInputOp or
/// Conv2dGradWeightOp) of the convolution of `image` ([N, C, H, W]) and
/// `weight` ([O, C / groups, KH, KW]) whose result's gradient is `grad`.
template <typename Op>
static LogicalResult verifyConv2dGrad(Op op, RankedTensorType image,
                                      RankedTensorType weight,
                                      RankedTensorType grad) {
  for (auto [name, type] :
       {std::pair<StringRef, RankedTensorType>{"the image", image},
        {"the weight", weight},
        {"grad", grad}})
    if (type.getRank() != 4)
      return op.emitOpError() << name << " must have rank 4, got "
                              << formatShape(type.getShape());
  if (image.getElementType() != weight.getElementType() ||
      image.getElementType() != grad.getElementType())
    return op.emitOpError()
           << "the image, the weight and grad must have one "
              "element type, got "
           << image.getElementType() << ", " << weight.getElementType()
           << " and " << grad.getElementType();
  FailureOr<SmallVector<int64_t>> expected =
      verifyConvolution(op, "image", image.getShape(), weight.getShape(),
                        cast<FloatType>(image.getElementType()));
  if (failed(expected))
    return failure();
  if (grad.getShape() != ArrayRef<int64_t>(*expected))
    return op.emitOpError() << "grad must be " << formatShape(*expected)
                            << " (the convolution's result), got "
                            << formatShape(grad.getShape());
  return success();
}

int64_t Conv2dGradInputOp::getGroupCount() { return groupCountOf(*this); }
FloatType Conv2dGradInputOp::getAccumulatorType() {
  return accumulatorTypeOf(*this, getGrad());
}
Conv2dWindow Conv2dGradInputOp::getWindow() {
  return windowOf(*this, shapeOf(getWeight()).drop_front(2));
}
LogicalResult Conv2dGradInputOp::verify() {
  return verifyConv2dGrad(*this, cast<RankedTensorType>(getType()),
                          cast<RankedTensorType>(getWeight().getType()),
                          cast<RankedTensorType>(getGrad().getType()));
}

int64_t Conv2dGradWeightOp::getGroupCount() { return groupCountOf(*this); }
FloatType Conv2dGradWeightOp::getAccumulatorType() {
  return accumulatorTypeOf(*this, getGrad());
}
Conv2dWindow Conv2dGradWeightOp::getWindow() {
  return windowOf(*this, getType().getShape().drop_front(2));
}
LogicalResult Conv2dGradWeightOp::verify() {
  return verifyConv2dGrad(*this, cast<RankedTensorType>(getInput().getType()),
                          cast<RankedTensorType>(getType()),
                          cast<RankedTensorType>(getGrad().getType()));
}

/// The checks shared by im2col and col2im: `image` ([N, C, H, W]) and
/// `columns` ([N, C * KH * KW, OH * OW]) agree with the window.
static LogicalResult verifyColumns(Operation *op, ArrayRef<int64_t> kernel,
                                   ArrayRef<int64_t> image,
                                   ArrayRef<int64_t> columns,
                                   StringRef columnsName) {
  if (failed(verifyWindow(op, kernel)))
    return failure();
  FailureOr<SmallVector<int64_t>> out =
      getWindowOutputShape(op, windowOf(op, kernel), image);
  if (failed(out))
    return failure();
  std::optional<int64_t> rows =
      getCheckedProduct({image[1], kernel[0], kernel[1]});
  if (!rows)
    return op->emitOpError()
           << "the columns' " << image[1] << " x " << kernel[0] << " x "
           << kernel[1] << " rows overflow int64";
  SmallVector<int64_t> expected = {image[0], *rows, (*out)[2] * (*out)[3]};
  if (columns != ArrayRef<int64_t>(expected))
    return op->emitOpError()
           << columnsName << " must have shape " << formatShape(expected)
           << " ([N, C * KH * KW, OH * OW]) for the image "
           << formatShape(image) << ", got " << formatShape(columns);
  return success();
}

/// The checks of a pooling's `input` and window: an NCHW image, the
/// attributes, the padding at most half the window (PyTorch's rule), the
/// window inside the padded image, and every window reading some of the
/// image. Returns the pooled shape [N, C, OH, OW].
static FailureOr<SmallVector<int64_t>> verifyPool(Operation *op, Value input,
                                                  ArrayRef<int64_t> kernel) {
  FailureOr<ArrayRef<int64_t>> image = getImageShape(op, "input", input);
  if (failed(image) || failed(verifyWindow(op, kernel)))
    return failure();
  Conv2dWindow window = windowOf(op, kernel, /*stridesOfKernel=*/true);
  for (int dim = 0; dim < 2; ++dim) {
    int64_t span = window.span(dim);
    if (2 * std::max(window.padding[dim], window.padding[dim + 2]) > span)
      return op->emitOpError() << "padding " << formatShape(window.padding)
                               << " must be at most half the window (" << span
                               << (dim == 0 ? " rows" : " columns") << ")";
  }
  FailureOr<SmallVector<int64_t>> shape =
      getWindowOutputShape(op, window, *image);
  if (failed(shape))
    return failure();
  // With dilations, a window may skip over the whole image.
  for (int dim = 0; dim < 2; ++dim)
    for (int64_t o = 0; o < (*shape)[2 + dim]; ++o) {
      int64_t first, last;
      window.insideOffsets(o, dim, (*image)[2 + dim], first, last);
      if (first > last)
        return op->emitOpError()
               << "the window of output " << (dim == 0 ? "row " : "column ")
               << o << " reads only padding";
    }
  return shape;
}

/// The checks of a pooling op (max_pool2d, avg_pool2d): its window over the
/// input gives the result's shape, in the input's element type.
template <typename OpT> static LogicalResult verifyPooling(OpT op) {
  FailureOr<SmallVector<int64_t>> shape =
      verifyPool(op, op.getInput(), op.getKernel());
  if (failed(shape) || failed(verifyResultShape(op, *shape, op.getType())))
    return failure();
  return verifySameElementType(op, "input", op.getInput().getType(), "result",
                               op.getType());
}

Conv2dWindow MaxPool2dOp::getWindow() {
  return windowOf(*this, getKernel(), /*stridesOfKernel=*/true);
}

LogicalResult MaxPool2dOp::verify() { return verifyPooling(*this); }

std::optional<int64_t> MaxPool2dOp::getForwardFlops() {
  // A comparison per value a window reads inside the image.
  ArrayRef<int64_t> image = shapeOf(getInput());
  return getCheckedProduct(
      {image[0], image[1], getWindow().insideCount(image[2], image[3])});
}

Conv2dWindow AvgPool2dOp::getWindow() {
  return windowOf(*this, getKernel(), /*stridesOfKernel=*/true);
}

LogicalResult AvgPool2dOp::verify() { return verifyPooling(*this); }

std::pair<int64_t, int64_t>
AdaptiveAvgPool2dOp::getWindowBounds(int64_t size, int64_t outputs,
                                     int64_t index) {
  // In 128 bits: index * size may exceed int64 for a (huge) valid type.
  using Wide = __int128;
  return {
      static_cast<int64_t>(Wide(index) * size / outputs),
      static_cast<int64_t>((Wide(index + 1) * size + outputs - 1) / outputs)};
}

SmallVector<double>
AdaptiveAvgPool2dOp::getWindowSizes(int64_t height, int64_t width,
                                    ArrayRef<int64_t> outputs) {
  SmallVector<double> sizes;
  for (int64_t i = 0; i < outputs[0]; ++i) {
    auto [top, bottom] = getWindowBounds(height, outputs[0], i);
    for (int64_t j = 0; j < outputs[1]; ++j) {
      auto [left, right] = getWindowBounds(width, outputs[1], j);
      sizes.push_back(static_cast<double>((bottom - top) * (right - left)));
    }
  }
  return sizes;
}

bool AdaptiveAvgPool2dOp::tilesInput() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getOutputSize();
  return in[2] % out[0] == 0 && in[3] % out[1] == 0;
}

LogicalResult AdaptiveAvgPool2dOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (input.getRank() != 4)
    return emitOpError() << "expects [N, C, H, W] images, got " << input;
  ArrayRef<int64_t> out = getOutputSize();
  if (out.size() != 2 || out[0] < 1 || out[1] < 1) {
    InFlightDiagnostic diag =
        emitOpError() << "output_size must be [OH, OW], each at least 1, got [";
    llvm::interleaveComma(out, diag);
    return diag << "]";
  }
  ArrayRef<int64_t> in = input.getShape();
  auto expected = input.clone({in[0], in[1], out[0], out[1]});
  if (getType() != expected)
    return emitOpError() << "result must be " << expected << ", got "
                         << getType();
  return success();
}

// Each window's values summed (rows, then columns where they differ), and
// a division per output.
std::optional<int64_t> AdaptiveAvgPool2dOp::getForwardFlops() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getOutputSize();
  int64_t rows = 0, columns = 0;
  for (int64_t i = 0; i < out[0]; ++i) {
    auto [begin, end] = getWindowBounds(in[2], out[0], i);
    rows += end - begin;
  }
  for (int64_t j = 0; j < out[1]; ++j) {
    auto [begin, end] = getWindowBounds(in[3], out[1], j);
    columns += end - begin;
  }
  std::optional<int64_t> sums =
      getCheckedProduct({in[0], in[1], rows, columns});
  std::optional<int64_t> divisions =
      getCheckedProduct({in[0], in[1], out[0], out[1]});
  int64_t total = 0;
  if (!sums || !divisions || llvm::AddOverflow(*sums, *divisions, total))
    return std::nullopt;
  return total;
}

std::optional<int64_t> AvgPool2dOp::getForwardFlops() {
  // KH * KW additions (from zero) and a division per output.
  ArrayRef<int64_t> kernel = getKernel();
  std::optional<int64_t> outputs = getCheckedNumElements(getType());
  if (!outputs)
    return std::nullopt;
  return getCheckedProduct({*outputs, kernel[0] * kernel[1] + 1});
}

Conv2dWindow MaxPool2dGradOp::getWindow() {
  return windowOf(*this, getKernel(), /*stridesOfKernel=*/true);
}

LogicalResult MaxPool2dGradOp::verify() {
  FailureOr<SmallVector<int64_t>> shape =
      verifyPool(*this, getInput(), getKernel());
  if (failed(shape))
    return failure();
  if (shapeOf(getGrad()) != ArrayRef<int64_t>(*shape))
    return emitOpError() << "grad must have the pooled shape "
                         << formatShape(*shape) << ", got "
                         << formatShape(shapeOf(getGrad()));
  if (failed(verifySameElementType(*this, "input", getInput().getType(), "grad",
                                   getGrad().getType())))
    return failure();
  return verifyResultShape(*this, shapeOf(getInput()), getType(),
                           getFloatElementType(getInput()));
}

Conv2dWindow Im2colOp::getWindow() { return windowOf(*this, getKernel()); }

LogicalResult Im2colOp::verify() {
  FailureOr<ArrayRef<int64_t>> image =
      getImageShape(*this, "input", getInput());
  if (failed(image) || failed(verifyColumns(*this, getKernel(), *image,
                                            getType().getShape(), "result")))
    return failure();
  return verifySameElementType(*this, "input", getInput().getType(), "result",
                               getType());
}

std::optional<int64_t> Col2imOp::getForwardFlops() {
  // An addition per column element inside the image.
  ArrayRef<int64_t> image = getType().getShape();
  return getCheckedProduct(
      {image[0], image[1], getWindow().insideCount(image[2], image[3])});
}

Conv2dWindow Col2imOp::getWindow() { return windowOf(*this, getKernel()); }

LogicalResult Col2imOp::verify() {
  FailureOr<ArrayRef<int64_t>> image =
      getImageShape(*this, "result", getResult());
  if (failed(image))
    return failure();
  return verifyColumns(*this, getKernel(), *image, shapeOf(getColumns()),
                       "columns");
}

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            ValueRange operands, DictionaryAttr,
                                            OpaqueProperties, RegionRange,
                                            SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 2)
    return emitOptional(loc, getOperationName(), "expects a table and indices");
  RankedTensorType table = getStaticTensorType(operands[0].getType());
  RankedTensorType indices = getStaticTensorType(operands[1].getType());
  if (!table || table.getRank() != 2)
    return emitOptional(loc, getOperationName(),
                        "table must be a statically shaped rank-2 tensor "
                        "[rows, features]");
  if (!indices)
    return emitOptional(loc, getOperationName(),
                        "indices must be a statically shaped tensor");
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(table.getDimSize(1));
  inferred.push_back(RankedTensorType::get(shape, table.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Random
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  // A probability of 1 would scale by 1 / 0: dropping everything is zeros.
  if (!(p >= 0 && p < 1))
    return emitOpError() << "p must be in [0, 1), got " << p;
  int64_t stream = getStream();
  if (stream < 0 || stream > std::numeric_limits<uint32_t>::max())
    return emitOpError() << "stream must be in [0, 2^32), got " << stream;
  return success();
}

/// Philox4x32-10 per element (random.h): 10 rounds of 2 multiplications
/// and 4 xors, 9 key bumps of 2 additions; then the comparison, the choice
/// and the product: integer operations, counted as FLOPs are. On a GPU
/// they weigh about as much as the kernel's bytes (bench/dropout.py). In
/// evaluation mode dropout is a copy.
ElementCost DropoutOp::getElementCost() {
  return getTraining() ? ElementCost{81, 0} : ElementCost{};
}

/// The kernel computes each of the state's two elements with one
/// operation: the choice that keeps the seed, the pass counter's increment
/// (data movement otherwise counts none).
ElementCost RngAdvanceOp::getElementCost() { return {1, 0}; }

LogicalResult EmbeddingOp::verify() {
  // Runs before the inferred-type check, so the rank is not known yet.
  auto table = cast<RankedTensorType>(getTable().getType());
  if (table.getRank() != 2)
    return emitOpError() << "table must have rank 2 [rows, features], got "
                         << table;
  return success();
}

Value EmbeddingOp::getIndexOperand() { return getIndices(); }
int64_t EmbeddingOp::getIndexBound() {
  return cast<RankedTensorType>(getTable().getType()).getDimSize(0);
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// The number of classes of a cross-entropy op's logits.
template <typename OpT> static int64_t getClassCount(OpT op) {
  return cast<RankedTensorType>(op.getLogits().getType()).getShape().back();
}

/// The checks shared by cross_entropy and its gradient: logits with a class
/// dimension, and a label for each of their rows.
template <typename OpT> static LogicalResult verifyLogitsAndLabels(OpT op) {
  auto logits = cast<RankedTensorType>(op.getLogits().getType());
  auto labels = cast<RankedTensorType>(op.getLabels().getType());
  if (logits.getRank() == 0)
    return op.emitOpError("logits must have a class dimension");
  if (labels.getShape() != logits.getShape().drop_back())
    return op.emitOpError() << "labels shape " << formatShape(labels.getShape())
                            << " does not match the logits' leading shape "
                            << formatShape(logits.getShape().drop_back());
  return success();
}

Value CrossEntropyOp::getIndexOperand() { return getLabels(); }
std::optional<int64_t> CrossEntropyOp::getIgnoredIndex() {
  return getIgnoreIndex();
}
int64_t CrossEntropyOp::getIndexBound() { return getClassCount(*this); }

LogicalResult CrossEntropyOp::verify() {
  if (failed(verifyLogitsAndLabels(*this)))
    return failure();
  return verifyScalarLoss(*this, getType());
}

LogicalResult MseLossOp::verify() {
  if (getInput().getType() != getTarget().getType())
    return emitOpError() << "input and target types differ: "
                         << getInput().getType() << " vs "
                         << getTarget().getType();
  return verifyScalarLoss(*this, getType());
}

// log-sum-exp over the classes (max, subtract, exp, add) and the pick.
std::optional<int64_t> CrossEntropyOp::getForwardFlops() {
  return getFlopsPerElement(getLogits(), 5);
}
// subtract, square, add.
std::optional<int64_t> MseLossOp::getForwardFlops() {
  return getFlopsPerElement(getInput(), 3);
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

/// The derivatives of scalar_math.h times the incoming gradient: tanh's
/// squares the tanh, erf's adds a Gaussian (an exp).
ElementCost GeluGradOp::getElementCost() {
  return getApproximate() == GeluApproximation::tanh ? ElementCost{19, 1}
                                                     : ElementCost{10, 2};
}

LogicalResult SoftmaxGradOp::verify() {
  return verifyDimInRange(*this, "dim", getDim(), getType().getRank());
}

LogicalResult LogSoftmaxGradOp::verify() {
  return verifyDimInRange(*this, "dim", getDim(), getType().getRank());
}

int64_t LayerNormGradOp::getNormalizedAxis() {
  return getNormalizedAxisOf(*this);
}
int64_t RmsNormGradOp::getNormalizedAxis() {
  return getNormalizedAxisOf(*this);
}

LogicalResult LayerNormGradOp::verify() {
  if (failed(verifyNormAxis(*this)))
    return failure();
  return verifyEpsilon(*this, getEpsilon().convertToDouble());
}

LogicalResult RmsNormGradOp::verify() {
  if (failed(verifyNormAxis(*this)))
    return failure();
  return verifyEpsilon(*this, getEpsilon().convertToDouble());
}

Value CrossEntropyGradOp::getIndexOperand() { return getLabels(); }
std::optional<int64_t> CrossEntropyGradOp::getIgnoredIndex() {
  return getIgnoreIndex();
}
int64_t CrossEntropyGradOp::getIndexBound() { return getClassCount(*this); }

bool CrossEntropyGradOp::isGradientOf(CrossEntropyOp loss) {
  return getLogits() == loss.getLogits() && getLabels() == loss.getLabels() &&
         getIgnoreIndexAttr() == loss.getIgnoreIndexAttr();
}

LogicalResult CrossEntropyGradOp::verify() {
  if (failed(verifyLogitsAndLabels(*this)))
    return failure();
  if (cast<RankedTensorType>(getGrad().getType()).getRank() != 0)
    return emitOpError() << "the loss gradient must be a 0-d tensor, got "
                         << getGrad().getType();
  return success();
}

Value EmbeddingGradOp::getIndexOperand() { return getIndices(); }
int64_t EmbeddingGradOp::getIndexBound() { return getType().getDimSize(0); }

LogicalResult EmbeddingGradOp::verify() {
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto grad = cast<RankedTensorType>(getGrad().getType());
  if (grad.getRank() != indices.getRank() + 1 ||
      grad.getShape().drop_back() != indices.getShape())
    return emitOpError() << "gradient shape " << formatShape(grad.getShape())
                         << " must be the indices shape "
                         << formatShape(indices.getShape())
                         << " plus a feature dimension";
  SmallVector<int64_t> expected{
      getType().getRank() == 2 ? getType().getDimSize(0) : int64_t(0),
      grad.getShape().back()};
  if (getType().getRank() != 2)
    return emitOpError() << "result must be a table [rows, features], got "
                         << getType();
  return verifyResultShape(*this, expected, getType(), grad.getElementType());
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

std::optional<double> mlir::amp::getConstantScalar(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  auto splat = constant ? dyn_cast<SplatElementsAttr>(constant.getValue())
                        : SplatElementsAttr();
  if (!splat || !isa<FloatType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<APFloat>().convertToDouble();
}

/// Checks that hyperparameter `name` lies in its range
/// (amp_runtime/hyperparameters.h), when it is a constant.
static LogicalResult verifyHyper(Operation *op, StringRef name, Value operand) {
  std::optional<double> value = getConstantScalar(operand);
  const amprt::HyperParameterRange *range = amprt::hyperParameterRange(name);
  assert(range && "an optimizer's hyperparameter without a range");
  if (!value || amprt::inRange(*range, *value))
    return success();
  return op->emitOpError() << name << " must lie in " << range->words
                           << ", got " << *value;
}

static LogicalResult verifyStep(Operation *op, Value step) {
  if (cast<RankedTensorType>(step.getType()).getRank() == 0)
    return success();
  return op->emitOpError() << "step must be a 0-d tensor, got "
                           << step.getType();
}

LogicalResult SgdUpdateOp::verify() {
  if (failed(verifyHyper(*this, "lr", getLr())) ||
      failed(verifyHyper(*this, "weight_decay", getWeightDecay())))
    return failure();
  return success();
}

LogicalResult SgdMomentumUpdateOp::verify() {
  double dampening = getDampening().convertToDouble();
  if (failed(verifyHyper(*this, "lr", getLr())) ||
      failed(verifyHyper(*this, "momentum", getMomentum())) ||
      failed(verifyHyper(*this, "weight_decay", getWeightDecay())) ||
      failed(verifyStep(*this, getStep())))
    return failure();
  if (!(dampening >= 0 && dampening <= 1))
    return emitOpError() << "dampening must lie in [0, 1], got " << dampening;
  // A momentum set at run time may be 0: the direction is then the
  // gradient, as it is without a buffer.
  std::optional<double> momentum = getConstantScalar(getMomentum());
  if (getNesterov() && ((momentum && *momentum <= 0) || dampening != 0))
    return emitOpError("nesterov needs a positive momentum and zero dampening");
  return success();
}

LogicalResult AdamwUpdateOp::verify() {
  if (failed(verifyHyper(*this, "lr", getLr())) ||
      failed(verifyHyper(*this, "beta1", getBeta1())) ||
      failed(verifyHyper(*this, "beta2", getBeta2())) ||
      failed(verifyHyper(*this, "eps", getEps())) ||
      failed(verifyHyper(*this, "weight_decay", getWeightDecay())) ||
      failed(verifyStep(*this, getStep())))
    return failure();
  return success();
}

ArrayRef<StringLiteral> LrScheduleOp::getParamNames(LrScheduleKind kind) {
  static constexpr StringLiteral warmup[] = {"warmup_steps",
                                             "warmup_start_factor"};
  static constexpr StringLiteral cosine[] = {"decay_steps", "min_lr"};
  static constexpr StringLiteral step[] = {"step_size", "gamma"};
  static constexpr StringLiteral both[] = {
      "warmup_steps", "warmup_start_factor", "decay_steps", "min_lr"};
  switch (kind) {
  case LrScheduleKind::linear_warmup:
    return warmup;
  case LrScheduleKind::cosine:
    return cosine;
  case LrScheduleKind::step:
    return step;
  case LrScheduleKind::warmup_cosine:
    return both;
  }
  llvm_unreachable("an amp.lr_schedule kind without parameters");
}

LogicalResult LrScheduleOp::verify() {
  ArrayRef<StringLiteral> names = getParamNames(getKind());
  if (getParams().size() != names.size())
    return emitOpError() << stringifyLrScheduleKind(getKind()) << " takes "
                         << names.size() << " parameters ("
                         << llvm::join(names, ", ") << "), got "
                         << getParams().size();
  if (failed(verifyStep(*this, getStep())) ||
      failed(verifyHyper(*this, "lr", getLr())))
    return failure();
  for (auto [name, param] : llvm::zip(names, getParams()))
    if (failed(verifyHyper(*this, name, param)))
      return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

LogicalResult UnscaleOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          ValueRange operands, DictionaryAttr,
                                          OpaqueProperties, RegionRange,
                                          SmallVectorImpl<Type> &inferred) {
  if (operands.empty())
    return emitOptional(loc, getOperationName(), "expects an inv_scale");
  for (Value grad : operands.drop_front())
    inferred.push_back(grad.getType());
  inferred.push_back(operands.front().getType());
  return success();
}

LogicalResult UnscaleOp::verify() {
  auto inv = cast<RankedTensorType>(getInvScale().getType());
  if (inv.getRank() != 0 || !inv.getElementType().isF32())
    return emitOpError() << "inv_scale must be a 0-d f32 tensor, got " << inv;
  if (getFoundInf().getType() != inv)
    return emitOpError() << "found_inf must be a 0-d f32 tensor, got "
                         << getFoundInf().getType();
  if (getGrads().size() != getUnscaled().size())
    return emitOpError() << "has " << getGrads().size() << " gradients but "
                         << getUnscaled().size() << " results";
  for (auto [i, grad, result] :
       llvm::enumerate(getGrads().getTypes(), getUnscaled().getTypes())) {
    if (!getElementTypeOrSelf(grad).isF32())
      return emitOpError() << "gradient #" << i << " has type " << grad
                           << "; unscaling needs f32 gradients (keep f32 "
                              "master parameters)";
    if (grad != result)
      return emitOpError() << "result #" << i << " has type " << result
                           << ", expected " << grad;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Data parallelism
//===----------------------------------------------------------------------===//

LogicalResult AllReduceOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location>,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  for (Value input : adaptor.getInputs())
    inferred.push_back(input.getType());
  return success();
}

LogicalResult AllReduceOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one tensor to reduce";
  for (auto [i, type] : llvm::enumerate(getInputs().getTypes()))
    if (!getElementTypeOrSelf(type).isF32())
      return emitOpError() << "input #" << i << " has type " << type
                           << "; replicas reduce f32 tensors (the f32 "
                              "gradients of f32 master parameters, found_inf)";
  return success();
}

LogicalResult ReplicaCountOp::verify() {
  auto type = cast<RankedTensorType>(getType());
  if (type.getRank() != 0 || !type.getElementType().isF32())
    return emitOpError() << "result must be a 0-d f32 tensor, got " << type;
  return success();
}

LogicalResult ReplicaShardOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto result = cast<RankedTensorType>(getType());
  int64_t size = getPartSize(input.getNumElements(), getReplicas());
  if (result.getRank() != 1 || result.getDimSize(0) != size ||
      result.getElementType() != input.getElementType())
    return emitOpError() << "result must be " << input.getElementType()
                         << " parts of " << size << " elements (ceil("
                         << input.getNumElements() << " / " << getReplicas()
                         << ")), got " << result;
  return success();
}

LogicalResult AllGatherOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one tensor to gather";
  if (getInputs().size() != getResults().size())
    return emitOpError() << "has " << getInputs().size() << " inputs and "
                         << getResults().size()
                         << " results; each input gathers into one result";
  if (static_cast<bool>(getWhen()) != !getPriors().empty() ||
      (!getPriors().empty() &&
       TypeRange(getPriors().getTypes()) != TypeRange(getResultTypes())))
    return emitOpError() << "with `when` needs one prior whole of each "
                            "result's type (its value where `when` is "
                            "false), and without it none";
  for (auto [i, input, result] :
       llvm::enumerate(getInputs().getTypes(), getResultTypes())) {
    auto part = cast<RankedTensorType>(input);
    auto whole = cast<RankedTensorType>(result);
    int64_t size =
        ReplicaShardOp::getPartSize(whole.getNumElements(), getReplicas());
    if (part.getRank() != 1 || part.getDimSize(0) != size ||
        part.getElementType() != whole.getElementType())
      return emitOpError() << "input #" << i << " must be the "
                           << whole.getElementType() << " part of " << size
                           << " elements that result #" << i << " (" << whole
                           << ") has on each of " << getReplicas()
                           << " replicas, got " << part;
  }
  return success();
}

LogicalResult ScalerUpdateOp::verify() {
  auto type = cast<RankedTensorType>(getScale().getType());
  if (type.getRank() != 0 || !type.getElementType().isF32())
    return emitOpError() << "scaler state must be 0-d f32 tensors, got "
                         << type;
  ScalerSettings settings;
  settings.growthFactor = getGrowthFactor().convertToDouble();
  settings.backoffFactor = getBackoffFactor().convertToDouble();
  settings.growthInterval = getGrowthInterval();
  settings.hysteresis = getHysteresis();
  if (std::optional<APFloat> minScale = getMinScale())
    settings.minScale = minScale->convertToDouble();
  if (std::optional<APFloat> maxScale = getMaxScale())
    settings.maxScale = maxScale->convertToDouble();
  std::string problem = checkScalerSettings(settings, /*optionNames=*/false);
  if (!problem.empty())
    return emitOpError() << problem;
  return success();
}

LogicalResult Fp8AmaxOp::inferReturnTypes(MLIRContext *context,
                                          std::optional<Location>, ValueRange,
                                          DictionaryAttr, OpaqueProperties,
                                          RegionRange,
                                          SmallVectorImpl<Type> &inferred) {
  inferred.push_back(RankedTensorType::get({}, Float32Type::get(context)));
  return success();
}

std::optional<int64_t> Fp8AmaxOp::getForwardFlops() {
  // A maximum an element.
  return cast<RankedTensorType>(getInput().getType()).getNumElements();
}

void Fp8CastOp::build(OpBuilder &builder, OperationState &state, Value input,
                      Value scales, int64_t index, FloatType format) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> swapped(type.getShape());
  std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
  build(builder, state, type.clone(format),
        RankedTensorType::get(swapped, format),
        RankedTensorType::get({}, builder.getF32Type()), input, scales,
        builder.getI64IntegerAttr(index), TypeAttr::get(format));
}

LogicalResult Fp8CastOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  auto scales = cast<RankedTensorType>(getScales().getType());
  if (input.getRank() < 2 || getFloatElementType(getInput()).isF64())
    return emitOpError() << "casts an f16, bf16 or f32 tensor of rank 2 or "
                            "more, got "
                         << input;
  if (scales.getRank() != 1 || !scales.getElementType().isF32())
    return emitOpError() << "scales must be a 1-D f32 tensor, got " << scales;
  int64_t index = getFp8ScaleIndex();
  if (index < 0 || index >= scales.getDimSize(0))
    return emitOpError() << "fp8_scale_index " << index << " is outside scales "
                         << scales;
  Type format = getFormat();
  SmallVector<int64_t> swapped(input.getShape());
  std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
  if (getData().getType() != input.clone(format) ||
      getTransposed().getType() != RankedTensorType::get(swapped, format))
    return emitOpError() << "results must be " << input.clone(format) << " and "
                         << RankedTensorType::get(swapped, format)
                         << " (the input's shape, then its last two "
                            "dimensions swapped, in the format)";
  return success();
}

LogicalResult Fp8ScalingUpdateOp::verify() {
  auto scale = cast<RankedTensorType>(getScale().getType());
  auto history = cast<RankedTensorType>(getAmaxHistory().getType());
  if (scale.getRank() != 1 || !scale.hasStaticShape() ||
      !scale.getElementType().isF32())
    return emitOpError() << "scale and overflows must be 1-D f32 tensors "
                            "(a value per scaled tensor), got "
                         << scale;
  int64_t columns = scale.getDimSize(0);
  if (history.getRank() != 2 || !history.hasStaticShape() ||
      !history.getElementType().isF32() || history.getDimSize(0) < 1 ||
      history.getDimSize(1) != columns)
    return emitOpError() << "amax_history must be tensor<Hx" << columns
                         << "xf32> with H >= 1 (a row per step), got "
                         << history;
  if (static_cast<int64_t>(getAmax().size()) != columns)
    return emitOpError() << "takes " << columns << " amax values (one per "
                         << "scaled tensor), got " << getAmax().size();
  for (Value amax : getAmax()) {
    auto type = cast<RankedTensorType>(amax.getType());
    if (type.getRank() != 0 || !type.getElementType().isF32())
      return emitOpError() << "each amax must be a 0-d f32 tensor, got "
                           << type;
  }
  if (static_cast<int64_t>(getFormats().size()) != columns)
    return emitOpError() << "formats has " << getFormats().size()
                         << " entries for " << columns << " scaled tensors";
  for (Attribute format : getFormats()) {
    Type type = cast<TypeAttr>(format).getValue();
    if (!type.isFloat8E4M3FN() && !type.isFloat8E5M2())
      return emitOpError() << "formats must be f8E4M3FN or f8E5M2, got "
                           << type;
  }
  double margin = getMargin().convertToDouble();
  if (!std::isfinite(margin))
    return emitOpError() << "margin must be finite, got " << margin;
  return success();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

void FusionOp::build(OpBuilder &builder, OperationState &state,
                     TypeRange resultTypes, ValueRange inputs) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block &block = body->emplaceBlock();
  for (Value input : inputs)
    block.addArgument(input.getType(), input.getLoc());
}

Value UnscaleOp::getTiedOperand(unsigned result) {
  return result < getGrads().size() ? getGrads()[result] : Value();
}

Value AllReduceOp::getTiedOperand(unsigned result) {
  return getInputs()[result];
}

YieldOp GradOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult GradOp::verifyRegions() {
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size()
                         << " inputs but its region takes "
                         << block.getNumArguments() << " arguments";
  for (auto [index, input, argument] :
       llvm::enumerate(getInputs(), block.getArguments()))
    if (input.getType() != argument.getType())
      return emitOpError() << "input #" << index << " is " << input.getType()
                           << " but the region's argument "
                           << "#" << index << " is " << argument.getType();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError("region must end in amp.yield");
  auto value = yield.getValues().size() == 1
                   ? dyn_cast<RankedTensorType>(yield.getValues()[0].getType())
                   : RankedTensorType();
  if (!value || value.getRank() != 0 || !isa<FloatType>(value.getElementType()))
    return emitOpError("region must yield one 0-d floating-point value, the "
                       "one whose gradient it takes");
  SmallVector<Type> expected{value};
  llvm::append_range(expected, getInputs().getTypes());
  if (TypeRange(expected) != getResultTypes()) {
    InFlightDiagnostic diag = emitOpError(
        "results must be the yielded value's type, then each input's: (");
    llvm::interleaveComma(expected, diag);
    return diag << "), got (" << getResultTypes() << ")";
  }
  return success();
}

YieldOp FusionOp::getYield() {
  return cast<YieldOp>(getBlock().getTerminator());
}

Operation *FusionOp::getRoot() {
  return &*std::next(getBlock().begin(), getKernelAttr().getRoot());
}

LogicalResult FusionOp::setKernelFromOps() {
  std::string why;
  FailureOr<KernelAnalysis> analysis = analyzeKernel(getBlock(), why);
  if (failed(analysis))
    return emitOpError() << why;
  setKernelAttr(KernelAttr::get(getContext(), analysis->kind, analysis->root));
  return success();
}

// amp.fusion<kind, root = N>(%a = %x, %b = %y) : (tx, ty) -> (results)
//     attributes {...} { body }
//
// Without `<kind, root = N>`, the kernel is the one the ops make (when
// they make none, the verifier says why).
ParseResult FusionOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *context = parser.getContext();
  KernelAttr kernel;
  if (succeeded(parser.parseOptionalLess())) {
    llvm::SMLoc kindLoc = parser.getCurrentLocation();
    StringRef keyword;
    unsigned root = 0;
    if (parser.parseKeyword(&keyword))
      return failure();
    std::optional<KernelKind> kind = symbolizeKernelKind(keyword);
    if (!kind)
      return parser.emitError(kindLoc)
             << "'" << keyword << "' is no kind of kernel (#amp.kernel)";
    if (parser.parseComma() || parser.parseKeyword("root") ||
        parser.parseEqual() || parser.parseInteger(root) ||
        parser.parseGreater())
      return failure();
    kernel = KernelAttr::get(context, *kind, root);
  }
  SmallVector<OpAsmParser::Argument> arguments;
  SmallVector<OpAsmParser::UnresolvedOperand> inputs;
  FunctionType type;
  llvm::SMLoc typeLoc;
  if (parser.parseAssignmentList(arguments, inputs) || parser.parseColon() ||
      parser.getCurrentLocation(&typeLoc) || parser.parseType(type))
    return failure();
  if (type.getNumInputs() != inputs.size())
    return parser.emitError(typeLoc)
           << "amp.fusion binds " << inputs.size() << " inputs but its type "
           << "lists " << type.getNumInputs();
  for (auto [argument, inputType] : llvm::zip(arguments, type.getInputs()))
    argument.type = inputType;
  Region *body = result.addRegion();
  if (parser.resolveOperands(inputs, type.getInputs(), typeLoc,
                             result.operands) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parser.parseRegion(*body, arguments,
                         /*enableNameShadowing=*/false))
    return failure();
  StringAttr kernelName = getKernelAttrName(result.name);
  if (result.attributes.get(kernelName))
    return parser.emitError(typeLoc)
           << "amp.fusion states its kernel as <kind, root = N>, not as an "
              "attribute";
  // The ops are analyzed only when each is valid (the fusion's own
  // verifier checks its kernel after them); their errors are the
  // verifier's to report.
  auto valid = [&](Block &block) {
    ScopedDiagnosticHandler quiet(context,
                                  [](Diagnostic &) { return success(); });
    return llvm::all_of(block.without_terminator(), [](Operation &op) {
      return !isa<FusionOp>(op) && succeeded(mlir::verify(&op));
    });
  };
  if (!kernel && body->hasOneBlock() && !body->front().empty() &&
      isa<YieldOp>(body->front().back()) && valid(body->front())) {
    std::string why;
    if (FailureOr<KernelAnalysis> analysis = analyzeKernel(body->front(), why);
        succeeded(analysis))
      kernel = KernelAttr::get(context, analysis->kind, analysis->root);
  }
  if (kernel)
    result.addAttribute(kernelName, kernel);
  result.addTypes(type.getResults());
  return success();
}

void FusionOp::print(OpAsmPrinter &p) {
  if (KernelAttr kernel = getKernelAttr())
    p.printStrippedAttrOrType(kernel);
  p << "(";
  llvm::interleaveComma(
      llvm::zip(getBlock().getArguments(), getInputs()), p,
      [&](auto pair) { p << std::get<0>(pair) << " = " << std::get<1>(pair); });
  p << ") : ";
  p.printFunctionalType(getInputs().getTypes(), getResultTypes());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getKernelAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

LogicalResult FusionOp::verify() {
  Block &block = getBlock();
  if (block.getArgumentTypes() != getInputs().getTypes())
    return emitOpError() << "binds its region's arguments to inputs of other "
                            "types";
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return emitOpError() << "ends its region with amp.yield";
  if (yield.getValues().getTypes() != getResultTypes()) {
    auto list = [](TypeRange types) {
      std::string text;
      llvm::raw_string_ostream os(text);
      llvm::interleaveComma(types, os);
      return text;
    };
    return emitOpError() << "yields (" << list(yield.getValues().getTypes())
                         << ") for results of types (" << list(getResultTypes())
                         << ")";
  }
  for (Operation &op : getKernelOps())
    if (isa<FusionOp>(op))
      return op.emitOpError() << "is nested in another amp.fusion; a kernel "
                                 "holds no kernels";
  return success();
}

// After the ops of the region are verified: the analysis reads them.
LogicalResult FusionOp::verifyRegions() {
  std::string why;
  FailureOr<KernelAnalysis> analysis = analyzeKernel(getBlock(), why);
  if (failed(analysis))
    return emitOpError() << why;
  // `<kind, root = N>`, as the fusion prints it.
  auto text = [](KernelAttr kernel) {
    return ("<" + stringifyKernelKind(kernel.getKind()) +
            ", root = " + Twine(kernel.getRoot()) + ">")
        .str();
  };
  KernelAttr made =
      KernelAttr::get(getContext(), analysis->kind, analysis->root);
  KernelAttr kernel = getKernelAttr();
  if (!kernel)
    return emitOpError() << "has no kernel; its ops make " << text(made);
  if (kernel != made)
    return emitOpError() << "is declared " << text(kernel)
                         << " but its ops make " << text(made);
  return success();
}

#include "amp/Dialect/Amp/IR/AmpEnums.cpp.inc"

#define GET_OP_CLASSES
#include "amp/Dialect/Amp/IR/AmpOps.cpp.inc"
