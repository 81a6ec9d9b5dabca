//===- LrSchedules.h - the schedule option's spellings ----------*- C++ -*-===//
//
// amp-optimizer's `schedule` option spells an amp.lr_schedule kind with
// dashes (`linear-warmup` for linear_warmup), and each parameter of the
// kind (LrScheduleOp::getParamNames: warmup_steps) is the option of that
// spelling (`warmup-steps`). The optimizer and amp-train-step's check of
// options a step would not read both go through these.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_LRSCHEDULES_H
#define AMP_DIALECT_AMP_TRANSFORMS_LRSCHEDULES_H

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include <optional>
#include <string>

namespace mlir::amp {

/// The kind the option spells `spelling` ("cosine", "warmup-cosine"), or
/// none for `constant` and for a spelling of no kind.
std::optional<LrScheduleKind> parseLrSchedule(StringRef spelling);

/// How the option spells `kind`.
std::string spellLrSchedule(LrScheduleKind kind);

/// Whether `kind` has the parameter the option `option` sets
/// (`warmup-steps`: warmup_steps).
bool lrScheduleReads(LrScheduleKind kind, StringRef option);

/// The kinds, as the option spells them, whose parameters include the one
/// the option `option` sets (`decay-steps`: cosine and warmup-cosine);
/// none for an option of no schedule.
SmallVector<std::string> getSchedulesReading(StringRef option);

/// Every spelling the option takes, as an error lists them ("constant,
/// linear-warmup, ... or warmup-cosine").
std::string listLrSchedules();

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_LRSCHEDULES_H
