//===- PrecisionPolicy.h - per-op autocast category overrides ---*- C++ -*-===//
//
// A precision policy moves ops to other autocast categories. It comes from
// a file (JSON or YAML: a mapping from op name to category) and from the
// allow/deny options of --amp-autocast:
//
//   # policy.yaml
//   amp.gelu: keep-fp32
//   amp.softmax: lower-precision
//
// Op names must name registered ops that take part in autocast.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPOLICY_H
#define AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPOLICY_H

#include "amp/Dialect/Amp/IR/AmpEnums.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace mlir::amp {

class PrecisionPolicy {
public:
  /// Parses a policy from `text`, which came from `path`; errors are emitted
  /// at `path:line:col`.
  static FailureOr<PrecisionPolicy> parse(StringRef text, StringRef path,
                                          MLIRContext *context);
  /// Reads and parses the policy file at `path`.
  static FailureOr<PrecisionPolicy> parseFile(StringRef path,
                                              MLIRContext *context);

  /// Moves `opName` to `category`. Fails, with an error at `loc`, when the
  /// op is unknown, takes no part in autocast, or this policy already moved
  /// it elsewhere from the same `source` (e.g. "allow" and "deny").
  LogicalResult set(StringRef opName, PrecisionCategory category,
                    StringRef source, Location loc);

  /// The category the policy gives `opName`, if it names it.
  std::optional<PrecisionCategory> lookup(StringRef opName) const;

  /// What set the category of `opName` ("policy file", "allow", ...).
  StringRef getSource(StringRef opName) const;

  /// Applies `other` on top of this policy: its entries win.
  void overrideWith(const PrecisionPolicy &other);

private:
  struct Entry {
    PrecisionCategory category;
    std::string source;
  };
  llvm::StringMap<Entry> entries;
};

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PRECISIONPOLICY_H
