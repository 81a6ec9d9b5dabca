//===- Tensor.h - tensors of the reference interpreter ----------*- C++ -*-===//
//
// A dense, row-major tensor with value semantics. Every element is held as
// an f64 that is exactly representable in the tensor's element type: fp16,
// bf16 and f32 values are exact in f64, and integers are kept within
// +-2^53 so that they are too. One storage type keeps the shape ops simple;
// arithmetic still happens in the op's compute type (see Interpreter.h).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERPRETER_TENSOR_H
#define AMP_INTERPRETER_TENSOR_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace mlir::amp::interp {

/// F8E4M3FN and F8E5M2 hold FP8 values (amp.fp8_cast's results), as .npy
/// files their bit patterns ("|u1", as bf16's are "<u2").
enum class ElementKind { F16, BF16, F32, F64, I1, I32, I64, F8E4M3FN, F8E5M2 };

/// The element kind of an MLIR element type, or nullopt when the
/// interpreter does not hold that type.
std::optional<ElementKind> getElementKind(Type type);

/// The MLIR element type of `kind`.
Type getElementType(MLIRContext *context, ElementKind kind);

/// "f16", "bf16", "f32", "f64", "i1", "i32", "i64", "f8E4M3FN", "f8E5M2".
StringRef stringifyElementKind(ElementKind kind);

bool isFloatKind(ElementKind kind);

/// Rounds `value` to the nearest value of a float `kind` (to nearest, ties
/// to even, overflow to infinity). Integers are returned unchanged.
double roundToKind(double value, ElementKind kind);

/// The largest integer magnitude a tensor holds exactly: 2^53.
constexpr double kMaxExactInteger = 9007199254740992.0;

class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor.
  Tensor(ElementKind kind, ArrayRef<int64_t> shape);
  Tensor(ElementKind kind, ArrayRef<int64_t> shape, std::vector<double> data);

  ElementKind getKind() const { return kind; }
  ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return static_cast<int64_t>(shape.size()); }
  int64_t getNumElements() const { return static_cast<int64_t>(data.size()); }
  bool isFloat() const { return isFloatKind(kind); }

  ArrayRef<double> getData() const { return data; }
  MutableArrayRef<double> getMutableData() { return data; }
  double operator[](int64_t i) const { return data[i]; }

  /// The builtin tensor type of this value.
  RankedTensorType getType(MLIRContext *context) const;

  /// Row-major strides in elements.
  SmallVector<int64_t> getStrides() const;

  /// Index of the first inf or NaN element, if any.
  std::optional<int64_t> findNonFinite() const;
  int64_t countNonFinite() const;

private:
  ElementKind kind = ElementKind::F32;
  SmallVector<int64_t> shape;
  std::vector<double> data;
};

/// "[2, 0, 1]", the way indices appear in messages.
std::string formatIndex(ArrayRef<int64_t> shape, int64_t linearIndex);

} // namespace mlir::amp::interp

#endif // AMP_INTERPRETER_TENSOR_H
