//===- RandomInputs.h - seeded inputs for amp-run ---------------*- C++ -*-===//
//
// Deterministic random arguments: the same seed gives the same tensors on
// every machine (a splitmix64 stream per argument and Box-Muller for the
// normal distribution; no std:: distributions, whose output is unspecified).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_INTERPRETER_RANDOMINPUTS_H
#define AMP_INTERPRETER_RANDOMINPUTS_H

#include "amp/Interpreter/Tensor.h"
#include "mlir/IR/Value.h"

namespace mlir::amp::interp {

enum class Distribution {
  Normal,  ///< mean 0, standard deviation `scale`
  Uniform, ///< [-scale, scale)
};

/// The exclusive upper bound of the ids an integer argument may hold, read
/// from its uses through shape ops: an embedding's table rows or a
/// cross-entropy's class count (the smallest, if several). Nullopt when no
/// use bounds it.
std::optional<int64_t> inferIndexBound(Value value);

struct RandomInputOptions {
  Distribution distribution = Distribution::Normal;
  double scale = 1.0;
  /// Bound for integer arguments that no use bounds.
  int64_t defaultIndexBound = 10;
};

/// A random tensor for argument `arg` of `type`: floats from the
/// distribution rounded to the element type, integers uniform in
/// [0, bound), masks true with probability 1/2. Each argument draws from
/// its own stream, keyed by its rank among the parameters (or among the
/// batch arguments), so that a model, its @f_grad and its @f_step get the
/// same values. Arguments marked `amp.state` (optimizer state) are zero.
Tensor makeRandomInput(BlockArgument arg, uint64_t seed,
                       const RandomInputOptions &options);

} // namespace mlir::amp::interp

#endif // AMP_INTERPRETER_RANDOMINPUTS_H
