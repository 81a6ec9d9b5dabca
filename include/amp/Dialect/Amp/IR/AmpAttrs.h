//===- AmpAttrs.h - amp dialect attributes ----------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPATTRS_H
#define AMP_DIALECT_AMP_IR_AMPATTRS_H

#include "amp/Dialect/Amp/IR/AmpEnums.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <optional>
#include <string>

namespace mlir::amp {

/// The dynamic loss scaler's settings, as the --amp-loss-scaling options,
/// #amp.loss_scaling and amp.scaler_update hold them. The
/// scale and its trackers live in f32 tensors, so every setting is checked
/// as f32 stores it.
struct ScalerSettings {
  /// The initial scale; amp.scaler_update has none.
  std::optional<double> initScale;
  double growthFactor = 2.0;
  double backoffFactor = 0.5;
  int64_t growthInterval = 2000;
  int64_t hysteresis = 1;
  /// The clamps; absent: none.
  std::optional<double> minScale, maxScale;
};

/// Checks `settings`: the initial scale and the clamps positive and finite
/// in f32, the initial scale within the clamps, min not above max, growth
/// above 1, backoff in (0, 1), interval and hysteresis in [1, 2^24] (counts
/// an f32 tracker holds exactly). Returns the first problem, naming the
/// setting as an option (`init-scale`) when `optionNames` and as an
/// attribute entry (`init_scale`) otherwise; empty when there is none.
std::string checkScalerSettings(const ScalerSettings &settings,
                                bool optionNames);

} // namespace mlir::amp

#define GET_ATTRDEF_CLASSES
#include "amp/Dialect/Amp/IR/AmpAttrs.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPATTRS_H
