//===- Interpreter.h - the reference interpreter of amp graphs --*- C++ -*-===//
//
// Executes a func.func of amp ops (plus arith.constant, the arith float ops
// on tensors, the unary math ops exp, log, sqrt, rsqrt, tanh and absf,
// func.call and func.return) on the CPU. It is the oracle the
// tests compare every pass and backend against, so its numerics are fixed
// and documented (docs/interpreter.md):
//
// - f16, bf16 and f32 ops compute in f32; f64 ops compute in f64.
// - Every op rounds its result to its result type (to nearest, ties to even)
//   where it is stored, as fp16 hardware does.
// - Contractions and sums accumulate in the op's accumulator type, in a
//   fixed order (ascending index), products rounded to that type and added;
//   accumulators narrower than f32 round after every addition.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERPRETER_INTERPRETER_H
#define AMP_INTERPRETER_INTERPRETER_H

#include "amp/Interpreter/Tensor.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::amp::interp {

struct InterpreterOptions {
  /// Stop at the first op (in execution order) that produces an inf or NaN,
  /// and report it with its location and its operands' state.
  bool checkFinite = false;
};

class Interpreter {
public:
  explicit Interpreter(ModuleOp module, InterpreterOptions options = {})
      : module(module), options(options) {}

  /// Runs `func` on `args` and returns its results. Errors (bad arguments,
  /// an op it cannot execute, an index out of range, and with checkFinite
  /// the first non-finite value) are emitted as diagnostics at the location
  /// concerned.
  FailureOr<std::vector<Tensor>> run(func::FuncOp func, ArrayRef<Tensor> args);

  /// Whether the last failed run stopped at a non-finite value.
  bool stoppedAtNonFinite() const { return nonFinite; }

private:
  FailureOr<std::vector<Tensor>> call(func::FuncOp func, ArrayRef<Tensor> args,
                                      int depth);

  ModuleOp module;
  InterpreterOptions options;
  bool nonFinite = false;
};

/// Checks that `args` fit the signature of `func`: count, shape and element
/// type; emits an error naming the argument otherwise.
LogicalResult verifyArguments(func::FuncOp func, ArrayRef<Tensor> args);

/// The most elements one tensor of the interpreter holds (2^32: 32 GiB of
/// f64 storage), far beyond any graph it is meant for.
constexpr int64_t kMaxTensorElements = int64_t(1) << 32;

/// Checks that every argument and op result of `func` (and of the
/// functions it calls) has at most kMaxTensorElements elements, counted
/// without overflow; emits an error naming the value otherwise.
LogicalResult verifySizes(func::FuncOp func);

/// A tensor holding the elements of a dense elements attribute.
FailureOr<Tensor> tensorFromAttr(DenseElementsAttr attr);

} // namespace mlir::amp::interp

#endif // AMP_INTERPRETER_INTERPRETER_H
