//===- LrSchedules.cpp - the schedule option's spellings ------------------===//

#include "amp/Dialect/Amp/Transforms/LrSchedules.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::amp;

/// `text` with every `from` replaced by `to`.
static std::string replaced(StringRef text, char from, char to) {
  std::string result = text.str();
  std::replace(result.begin(), result.end(), from, to);
  return result;
}

std::optional<LrScheduleKind> amp::parseLrSchedule(StringRef spelling) {
  // The kinds' own names have underscores: `linear_warmup` is no spelling.
  if (spelling.contains('_'))
    return std::nullopt;
  return symbolizeLrScheduleKind(replaced(spelling, '-', '_'));
}

std::string amp::spellLrSchedule(LrScheduleKind kind) {
  return replaced(stringifyLrScheduleKind(kind), '_', '-');
}

bool amp::lrScheduleReads(LrScheduleKind kind, StringRef option) {
  return llvm::is_contained(LrScheduleOp::getParamNames(kind),
                            replaced(option, '-', '_'));
}

SmallVector<std::string> amp::getSchedulesReading(StringRef option) {
  SmallVector<std::string> kinds;
  for (uint32_t value = 0; value <= getMaxEnumValForLrScheduleKind(); ++value) {
    auto kind = static_cast<LrScheduleKind>(value);
    if (lrScheduleReads(kind, option))
      kinds.push_back(spellLrSchedule(kind));
  }
  return kinds;
}

std::string amp::listLrSchedules() {
  std::string list = "constant";
  uint32_t last = getMaxEnumValForLrScheduleKind();
  for (uint32_t value = 0; value <= last; ++value)
    list += (value == last ? " or " : ", ") +
            spellLrSchedule(static_cast<LrScheduleKind>(value));
  return list;
}
