//===- Tensor.cpp - tensors of the reference interpreter ------------------===//

#include "amp/Interpreter/Tensor.h"

#include "amp_runtime/float_formats.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <functional>
#include <numeric>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::interp;

std::optional<ElementKind> interp::getElementKind(Type type) {
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF64())
    return ElementKind::F64;
  if (type.isSignlessInteger(1))
    return ElementKind::I1;
  if (type.isSignlessInteger(32))
    return ElementKind::I32;
  if (type.isSignlessInteger(64))
    return ElementKind::I64;
  if (type.isFloat8E4M3FN())
    return ElementKind::F8E4M3FN;
  if (type.isFloat8E5M2())
    return ElementKind::F8E5M2;
  return std::nullopt;
}

Type interp::getElementType(MLIRContext *context, ElementKind kind) {
  Builder b(context);
  switch (kind) {
  case ElementKind::F16:
    return b.getF16Type();
  case ElementKind::BF16:
    return b.getBF16Type();
  case ElementKind::F32:
    return b.getF32Type();
  case ElementKind::F64:
    return b.getF64Type();
  case ElementKind::I1:
    return b.getI1Type();
  case ElementKind::I32:
    return b.getI32Type();
  case ElementKind::I64:
    return b.getI64Type();
  case ElementKind::F8E4M3FN:
    return b.getType<Float8E4M3FNType>();
  case ElementKind::F8E5M2:
    return b.getType<Float8E5M2Type>();
  }
  llvm_unreachable("unknown element kind");
}

StringRef interp::stringifyElementKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return "f16";
  case ElementKind::BF16:
    return "bf16";
  case ElementKind::F32:
    return "f32";
  case ElementKind::F64:
    return "f64";
  case ElementKind::I1:
    return "i1";
  case ElementKind::I32:
    return "i32";
  case ElementKind::I64:
    return "i64";
  case ElementKind::F8E4M3FN:
    return "f8E4M3FN";
  case ElementKind::F8E5M2:
    return "f8E5M2";
  }
  llvm_unreachable("unknown element kind");
}

bool interp::isFloatKind(ElementKind kind) {
  return kind == ElementKind::F16 || kind == ElementKind::BF16 ||
         kind == ElementKind::F32 || kind == ElementKind::F64 ||
         kind == ElementKind::F8E4M3FN || kind == ElementKind::F8E5M2;
}

double interp::roundToKind(double value, ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return amprt::halfBitsToDouble(amprt::doubleToHalfBits(value));
  case ElementKind::BF16:
    return amprt::bfloat16BitsToDouble(amprt::doubleToBFloat16Bits(value));
  case ElementKind::F32:
    return static_cast<double>(static_cast<float>(value));
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2: {
    // Saturating, as every FP8 cast here is.
    amprt::Fp8Format format = kind == ElementKind::F8E4M3FN
                                  ? amprt::Fp8Format::E4M3FN
                                  : amprt::Fp8Format::E5M2;
    return amprt::fp8BitsToFloat(
        amprt::quantizeFp8(static_cast<float>(value), 1.0f, format), format);
  }
  default:
    return value;
  }
}

std::string interp::formatIndex(ArrayRef<int64_t> shape, int64_t linearIndex) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t i = static_cast<int64_t>(shape.size()) - 1; i >= 0; --i) {
    index[i] = shape[i] ? linearIndex % shape[i] : 0;
    linearIndex = shape[i] ? linearIndex / shape[i] : 0;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(index, os);
  os << ']';
  return text;
}

static int64_t product(ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

Tensor::Tensor(ElementKind kind, ArrayRef<int64_t> shape)
    : kind(kind), shape(shape), data(product(shape), 0.0) {}

Tensor::Tensor(ElementKind kind, ArrayRef<int64_t> shape,
               std::vector<double> data)
    : kind(kind), shape(shape), data(std::move(data)) {
  assert(static_cast<int64_t>(this->data.size()) == product(shape) &&
         "data does not match the shape");
}

RankedTensorType Tensor::getType(MLIRContext *context) const {
  return RankedTensorType::get(shape, getElementType(context, kind));
}

SmallVector<int64_t> Tensor::getStrides() const {
  return mlir::computeStrides(shape);
}

std::optional<int64_t> Tensor::findNonFinite() const {
  for (int64_t i = 0, e = getNumElements(); i < e; ++i)
    if (!std::isfinite(data[i]))
      return i;
  return std::nullopt;
}

int64_t Tensor::countNonFinite() const {
  int64_t count = 0;
  for (double value : data)
    count += !std::isfinite(value);
  return count;
}
