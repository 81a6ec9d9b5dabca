//===- CSource.h - printing C++ for the generated step ----------*- C++ -*-===//
//
// What the CUDA target's emitter prints with: the C types of element types,
// loads, stores and roundings of 16-bit floats, exact literals, index
// arithmetic without noise, and the members of a kernel functor. Private to
// lib/Target/Cuda.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_TARGET_CUDA_CSOURCE_H
#define AMP_LIB_TARGET_CUDA_CSOURCE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <utility>

namespace mlir::amp::cuda {

RankedTensorType tensorOf(Value value);
Type elementOf(Value value);
int64_t countOf(Value value);
int64_t product(ArrayRef<int64_t> shape);

/// Coordinate `index / stride % extent` of a row-major index below
/// `bound`, printed without a division by 1 or a modulo that cannot wrap.
std::string coordinateOf(StringRef index, int64_t stride, int64_t extent,
                         int64_t bound);

/// `expr * factor`, or `expr` for a factor of 1; `expr` is parenthesized
/// unless it is a name.
std::string scaled(StringRef expr, int64_t factor);

/// For a softmax (or its gradient) along `dim` of `shape`, run one index i
/// per line: the line's length and the index of its j-th element.
std::pair<int64_t, std::string> lineAlong(ArrayRef<int64_t> shape, int64_t dim);

/// The C type of stored elements.
std::string storageType(Type type);

/// The C type values of `type` are computed in.
std::string registerType(Type type);

/// The value at `pointer[index]` in its register type.
std::string loadExpr(Type type, StringRef pointer, StringRef index);

/// The statement storing `value` (in its register type, or in f64) at
/// `pointer[index]`, rounded to `type`.
std::string storeStmt(Type type, StringRef pointer, StringRef index,
                      StringRef value);

/// storeStmt for a register that holds a value of `type` already (the
/// register of an SSA value of that element type): no rounding to do.
std::string storeHeldStmt(Type type, StringRef pointer, StringRef index,
                          StringRef value);

/// `value` (computed in its register type, or in f64) rounded to `type`.
std::string roundExpr(Type type, StringRef value);

/// An exact C literal of `value` in register type `type`.
std::string literal(double value, StringRef type);

/// `value` as an exact C literal of a double (hexadecimal).
std::string hexLiteral(double value);

/// One field of a designatedInit: its name and its value as C++.
using FieldInit = std::pair<StringRef, std::string>;

/// `type name{.field = value, ...};`: a runtime descriptor initialized by
/// field name (C++20 designated initializers, the fields in the order
/// the struct declares them), with `const` first when `isConst`.
std::string designatedInit(StringRef type, StringRef name,
                           ArrayRef<FieldInit> fields, bool isConst = false);

/// The runtime's name of a float element type (AMP_F32, AMP_F16,
/// AMP_BF16); empty for others.
StringRef runtimeDtype(Type type);

/// The math function `name` for a register type (expf or exp).
std::string math(StringRef name, StringRef type);

/// The columns of the generated code (libFormat's ColumnLimit).
constexpr unsigned kLineWidth = 100;

/// `code` laid out by clang's libFormat, as clang-format would lay it out:
/// LLVM style, kLineWidth columns (docs/backend.md). `fileName` tells the
/// language (a .cu, .cpp or .h name). Fails only if libFormat's edits do
/// not apply, which would be a bug in it.
FailureOr<std::string> formatSource(StringRef code, StringRef fileName);

/// `text` as `//` comment lines at column `indent`, broken at spaces where
/// wider than kLineWidth; the lines after the first are indented two more
/// columns after the `//`.
std::string commentLines(StringRef text, unsigned indent);

/// `text` as the body of a C string literal.
std::string cStringBody(StringRef text);

/// "file:line:col" of the first file location inside `loc`, or "".
std::string sourcePosition(Location loc);

/// The parameters of one kernel functor: a member per buffer it touches.
/// While the body is printed, members are placeholders (`$m0$`), since
/// whether a buffer is written is known only at the end; finalize() then
/// names them: `in<k>` for a buffer the functor only reads, `out<k>` for
/// one it writes, `<role><k>` for other memory (scratch, a table).
class KernelParams {
public:
  /// The member for `value`'s memory.
  std::string add(Value value, bool writes) {
    if (writes)
      writable.insert(value);
    auto found = names.find(value);
    if (found != names.end())
      return found->second;
    std::string name = "$m" + std::to_string(names.size()) + "$";
    names.insert({value, name});
    return name;
  }
  /// A member for memory that holds no value of the IR: `role` names it
  /// (scratch, table), `type` is its `T` in `T *`, `pointer` its value at
  /// the launch.
  std::string addRaw(StringRef role, StringRef type, StringRef pointer) {
    std::string name = "$r" + std::to_string(raw.size()) + "$";
    raw.push_back({role.str(), type.str(), pointer.str(), name});
    return name;
  }
  /// The values whose memory the functor touches, each with whether it
  /// writes it.
  SmallVector<std::pair<Value, bool>> getTouched() const {
    SmallVector<std::pair<Value, bool>> touched;
    for (const auto &entry : names)
      touched.push_back({entry.first, writable.contains(entry.first)});
    return touched;
  }
  /// `text` with the placeholders replaced by the members' names.
  std::string finalize(StringRef text) const;
  /// Declarations of the members, one per line.
  void printMembers(llvm::raw_ostream &os) const;
  /// The initializer list at the launch: `{p0, p1, ...}`.
  template <typename PointerFn>
  std::string initializer(PointerFn &&pointerOf) const {
    std::string text = "{";
    bool first = true;
    for (auto &[value, name] : names) {
      text += (first ? "" : ", ") + pointerOf(value, writable.count(value));
      first = false;
    }
    for (const RawMember &member : raw) {
      text += (first ? "" : ", ") + member.pointer;
      first = false;
    }
    return text + "}";
  }

private:
  struct RawMember {
    std::string role, type, pointer, placeholder;
  };
  /// Each placeholder and the member's name.
  SmallVector<std::pair<std::string, std::string>> finalNames() const;

  llvm::MapVector<Value, std::string> names;
  llvm::DenseSet<Value> writable;
  SmallVector<RawMember> raw;
};

} // namespace mlir::amp::cuda

#endif // AMP_LIB_TARGET_CUDA_CSOURCE_H
