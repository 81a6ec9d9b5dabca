//===- ParamGroups.h - amp-optimizer's parameter groups ---------*- C++ -*-===//
//
// A parameter group gives some of the step's parameters hyperparameters of
// their own, as a torch.optim param_group does: the usual GPT recipe decays
// the weight matrices and not the biases, norm scales or position
// embeddings. amp-optimizer's `param-groups` option lists the groups:
//
//   NAME:SELECTOR|SELECTOR...:KEY=VALUE,KEY=VALUE...[;NAME:...]
//
// A selector picks parameters by rank (`rank<2`, `rank<=1`, `rank>1`,
// `rank>=2`, `rank=1`) or by name, as a glob pattern (`wpe`, `*.bias`,
// `ln*_scale`). A key is a hyperparameter the update reads per parameter
// (lr, weight_decay; beta1, beta2, eps for Adam(W); momentum for SGD with
// momentum); the group's value is the step's hyperparameter `NAME.KEY`,
// settable at run time like `lr`. A parameter no group selects keeps the
// step's own hyperparameters; one that two groups select is an error.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PARAMGROUPS_H
#define AMP_DIALECT_AMP_TRANSFORMS_PARAMGROUPS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::amp {

/// One group of `param-groups`.
struct ParamGroup {
  /// Selects parameters by rank: `rank <op> value`.
  struct RankSelector {
    enum class Compare { lt, le, gt, ge, eq } compare;
    int64_t value;
    bool matches(int64_t rank) const;
  };
  /// One hyperparameter the group sets.
  struct Setting {
    std::string key;     ///< "weight_decay"
    std::string argName; ///< "no_decay.weight_decay", the step's name
    double value;
  };

  std::string name;
  SmallVector<RankSelector> ranks;
  /// Name patterns, checked by the parser. Kept as text: a GlobPattern
  /// points into the text it was made from.
  SmallVector<std::string> patterns;
  SmallVector<Setting> settings;

  /// Whether the group selects a parameter of this name (may be empty: an
  /// unnamed parameter) and rank.
  bool selects(StringRef paramName, int64_t rank) const;
  /// The group's setting of `key`, or null where it keeps the step's.
  const Setting *find(StringRef key) const;
};

/// Parses `spec` (the option's text, empty for none) into `groups`. `keys`
/// are the hyperparameters a group may set, as the step's optimizer reads
/// them per parameter. On an error returns its message, without the pass's
/// name, and leaves `groups` unspecified.
std::optional<std::string>
parseParamGroups(StringRef spec, ArrayRef<StringRef> keys,
                 SmallVectorImpl<ParamGroup> &groups);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PARAMGROUPS_H
