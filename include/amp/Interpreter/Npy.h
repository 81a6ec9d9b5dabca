//===- Npy.h - NumPy .npy files for the interpreter -------------*- C++ -*-===//
//
// Reads and writes the NumPy .npy format (versions 1.0 to 3.0, C order,
// little-endian). Element types map to dtypes as follows:
//
//   f16 '<f2'   f32 '<f4'   f64 '<f8'   i32 '<i4'   i64 '<i8'   i1 '|b1'
//   bf16 '<u2'  (NumPy has no bf16: the raw bit patterns, stored as uint16;
//                `numpy_array.view(np.uint16)` of an ml_dtypes bfloat16
//                array, or `(f32_bits >> 16)` rounded, gives them)
//
// Reading is strict: the file's dtype must be the one of the expected
// element type, and its shape the expected shape.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERPRETER_NPY_H
#define AMP_INTERPRETER_NPY_H

#include "amp/Interpreter/Tensor.h"
#include "llvm/Support/Error.h"

namespace mlir::amp::interp {

/// The .npy dtype string of `kind`.
StringRef getNpyDescr(ElementKind kind);

/// Parses .npy `bytes` holding elements of `kind`; `name` labels errors.
llvm::Expected<Tensor> parseNpy(StringRef bytes, ElementKind kind,
                                StringRef name);

/// Reads the .npy file at `path` holding elements of `kind`.
llvm::Expected<Tensor> readNpy(StringRef path, ElementKind kind);

/// The .npy encoding of `tensor` (format version 1.0).
std::string serializeNpy(const Tensor &tensor);

/// Writes `tensor` to `path` atomically: a temporary file renamed into place.
llvm::Error writeNpy(StringRef path, const Tensor &tensor);

} // namespace mlir::amp::interp

#endif // AMP_INTERPRETER_NPY_H
