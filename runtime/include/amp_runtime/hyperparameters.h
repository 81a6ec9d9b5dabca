//===- hyperparameters.h - the values each hyperparameter may take -*- C++ -*-//
//
// The ranges of the optimizers' hyperparameters, written once: the
// dialect's verifier checks a constant against them, the interpreter a
// value it reads, and the runtime a value set between steps or loaded from
// a state file. They are torch.optim's, with one exception: eps must be
// positive, since a zero eps divides 0 by 0 in AdamW on a gradient that
// was zero throughout.
//
// A compiled step names its hyperparameters after these (`lr`,
// `weight_decay`, ...); a prefix ending in '.' (`decay.lr`, a parameter
// group's) keeps the range of the name after it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_HYPERPARAMETERS_H
#define AMP_RUNTIME_HYPERPARAMETERS_H

#include <cmath>
#include <string_view>

namespace amprt {

struct HyperParameterRange {
  std::string_view name;
  double low, high;
  bool openHigh;     ///< the range is [low, high), else [low, high]
  const char *words; ///< "[0, inf)", for messages
};

/// The range of hyperparameter `name` (its part after the last '.'), or
/// null for a name that no optimizer reads.
inline const HyperParameterRange *hyperParameterRange(std::string_view name) {
  static constexpr double inf = HUGE_VAL;
  static constexpr HyperParameterRange ranges[] = {
      {"lr", 0, inf, true, "[0, inf)"},
      {"weight_decay", 0, inf, true, "[0, inf)"},
      {"momentum", 0, inf, true, "[0, inf)"},
      {"beta1", 0, 1, true, "[0, 1)"},
      {"beta2", 0, 1, true, "[0, 1)"},
      {"eps", 0x1p-1074, inf, true, "(0, inf)"},
      // 0 turns clipping off; the step compiles it in only when the norm
      // it was compiled with is positive.
      {"max_grad_norm", 0, inf, true, "[0, inf)"},
      // The learning-rate schedule's (scalar_math.h, scheduledRate); step
      // counts are f64 like the rest and need not be whole.
      {"warmup_steps", 0, inf, true, "[0, inf)"},
      {"warmup_start_factor", 0x1p-1074, 1, false, "(0, 1]"},
      {"decay_steps", 1, inf, true, "[1, inf)"},
      {"min_lr", 0, inf, true, "[0, inf)"},
      {"step_size", 1, inf, true, "[1, inf)"},
      {"gamma", 0x1p-1074, 1, false, "(0, 1]"},
  };
  if (size_t dot = name.rfind('.'); dot != std::string_view::npos)
    name = name.substr(dot + 1);
  for (const HyperParameterRange &range : ranges)
    if (range.name == name)
      return &range;
  return nullptr;
}

/// Whether `value` lies in `range` (which excludes NaN and infinities).
inline bool inRange(const HyperParameterRange &range, double value) {
  return std::isfinite(value) && value >= range.low &&
         (range.openHigh ? value < range.high : value <= range.high);
}

} // namespace amprt

#endif // AMP_RUNTIME_HYPERPARAMETERS_H
