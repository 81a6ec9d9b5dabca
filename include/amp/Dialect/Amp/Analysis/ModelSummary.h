//===- ModelSummary.h - what a training graph holds -------------*- C++ -*-===//
//
// Counts a function's ops by family and by name, its parameters and the
// floating-point work of one forward evaluation. Used by the
// --amp-model-summary pass and by `make demo`.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_ANALYSIS_MODELSUMMARY_H
#define AMP_DIALECT_AMP_ANALYSIS_MODELSUMMARY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <map>
#include <string>

namespace mlir::amp {

/// The op families of the dialect, in the order summaries list them. Ops of
/// other dialects (arith, math, ...) are `Other`.
enum class OpFamily {
  Contraction,
  Elementwise,
  Normalization,
  Reduction,
  Loss,
  Shape,
  Data,
  Other,
};
constexpr size_t kNumOpFamilies = static_cast<size_t>(OpFamily::Other) + 1;

/// Lower-case name of a family, as printed.
StringRef stringifyOpFamily(OpFamily family);

/// The family of `op`, read from its family trait.
OpFamily getOpFamily(Operation *op);

struct FunctionSummary {
  std::string name;
  /// Ops in the body, the terminator excluded.
  int64_t numOps = 0;
  std::array<int64_t, kNumOpFamilies> opsByFamily{};
  /// Sorted by op name so that printing is deterministic.
  std::map<std::string, int64_t> opsByName;
  /// Arguments marked `amp.param`.
  int64_t numParameters = 0;
  int64_t numParameterElements = 0;
  int64_t parameterBytes = 0;
  /// Arguments marked `amp.buffer` (batch norm's running statistics).
  int64_t numBuffers = 0;
  int64_t numBufferElements = 0;
  /// Arguments that are neither parameters nor buffers nor the random
  /// generator (the batch).
  int64_t numInputs = 0;
  /// The training dropouts (amp.dropout with `training`), and whether an
  /// argument is the random generator they draw from (amp.rng).
  int64_t numTrainingDropouts = 0;
  bool hasGenerator = false;
  /// Sum of FlopCountOpInterface over the body.
  int64_t forwardFlops = 0;
};

/// Fails, with an error at the argument or op concerned, when a count
/// (parameter elements or bytes, an op's FLOPs, or their sums) does not fit
/// in int64.
FailureOr<FunctionSummary> summarizeFunction(func::FuncOp func);

void printFunctionSummary(const FunctionSummary &summary, raw_ostream &os);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_ANALYSIS_MODELSUMMARY_H
