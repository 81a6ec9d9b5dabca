//===- AmpInterfaces.h - amp op interfaces ----------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_H
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_H

#include "amp/Dialect/Amp/IR/AmpEnums.h"
#include "amp/Dialect/Amp/IR/AmpTraits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <optional>

namespace mlir::amp {
/// An op's work per element of its result (FlopCountOpInterface).
struct ElementCost {
  int64_t flops = 0;
  /// exp, log, tanh, erf, sqrt, ...: each also one FLOP in a total.
  int64_t transcendentals = 0;
};

/// The FLOPs of `elements` elements at `each`, transcendentals included;
/// std::nullopt when they do not fit in int64.
inline std::optional<int64_t> countWork(ElementCost each, int64_t elements) {
  int64_t total;
  if (llvm::MulOverflow(each.flops + each.transcendentals, elements, total))
    return std::nullopt;
  return total;
}
} // namespace mlir::amp

#include "amp/Dialect/Amp/IR/AmpInterfaces.h.inc"

namespace mlir {
class DialectRegistry;
namespace amp {
/// Attaches PrecisionOpInterface to the arith and math ops a training graph
/// may contain, with the categories of their amp counterparts.
void registerPrecisionExternalModels(DialectRegistry &registry);
} // namespace amp
} // namespace mlir

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_H
