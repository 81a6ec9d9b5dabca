//===- ParamGroups.cpp - amp-optimizer's parameter groups -----------------===//

#include "amp/Dialect/Amp/Transforms/ParamGroups.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"

#include "amp_runtime/hyperparameters.h"

using namespace mlir;
using namespace mlir::amp;

/// The alternatives a name pattern's braces may expand to (`{wte,wpe}`:
/// 2); without a bound GlobPattern takes braces literally.
static constexpr size_t kMaxSubPatterns = 1024;

bool ParamGroup::RankSelector::matches(int64_t rank) const {
  switch (compare) {
  case Compare::lt:
    return rank < value;
  case Compare::le:
    return rank <= value;
  case Compare::gt:
    return rank > value;
  case Compare::ge:
    return rank >= value;
  case Compare::eq:
    return rank == value;
  }
  llvm_unreachable("unknown comparison");
}

bool ParamGroup::selects(StringRef paramName, int64_t rank) const {
  if (llvm::any_of(ranks,
                   [&](const RankSelector &s) { return s.matches(rank); }))
    return true;
  return !paramName.empty() &&
         llvm::any_of(patterns, [&](const std::string &text) {
           // The parser made each pattern once: it is valid.
           llvm::Expected<llvm::GlobPattern> pattern =
               llvm::GlobPattern::create(text, kMaxSubPatterns);
           if (!pattern) {
             llvm::consumeError(pattern.takeError());
             return false;
           }
           return pattern->match(paramName);
         });
}

const ParamGroup::Setting *ParamGroup::find(StringRef key) const {
  const Setting *found = llvm::find_if(
      settings, [&](const Setting &setting) { return setting.key == key; });
  return found == settings.end() ? nullptr : found;
}

/// A group's name becomes the prefix of the step's hyperparameter names:
/// a C identifier keeps them plain names in every front end.
static bool isIdentifier(StringRef name) {
  return !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// `rank<2` and the like; std::nullopt for a selector that is no rank
/// comparison (a name pattern), an error message for a malformed one.
static std::optional<std::string>
parseRankSelector(StringRef text,
                  std::optional<ParamGroup::RankSelector> &out) {
  out.reset();
  if (!text.consume_front("rank"))
    return std::nullopt;
  using Compare = ParamGroup::RankSelector::Compare;
  static const std::pair<StringRef, Compare> comparisons[] = {
      {"<=", Compare::le},
      {">=", Compare::ge},
      {"<", Compare::lt},
      {">", Compare::gt},
      {"=", Compare::eq}};
  for (auto [spelling, compare] : comparisons) {
    if (!text.consume_front(spelling))
      continue;
    int64_t value;
    if (text.getAsInteger(10, value) || value < 0)
      return "a rank selector compares with a rank (0, 1, 2, ...), not '" +
             text.str() + "'";
    out = ParamGroup::RankSelector{compare, value};
    return std::nullopt;
  }
  // `rank` alone or `rankings*`: a name pattern after all.
  return std::nullopt;
}

static std::optional<std::string>
parseGroup(StringRef text, ArrayRef<StringRef> keys, ParamGroup &group) {
  SmallVector<StringRef> parts;
  text.split(parts, ':');
  if (parts.size() != 3)
    return "a parameter group is NAME:SELECTORS:SETTINGS, not '" + text.str() +
           "'";
  group.name = parts[0].trim().str();
  if (!isIdentifier(group.name))
    return "a parameter group's name is letters, digits and '_', not '" +
           group.name + "'";
  auto inGroup = [&](const Twine &what) {
    return (Twine("parameter group '") + group.name + "': " + what).str();
  };

  SmallVector<StringRef> selectors;
  parts[1].split(selectors, '|');
  for (StringRef selector : selectors) {
    selector = selector.trim();
    if (selector.empty())
      return inGroup("an empty selector");
    std::optional<ParamGroup::RankSelector> rank;
    if (std::optional<std::string> error = parseRankSelector(selector, rank))
      return inGroup(*error);
    if (rank) {
      group.ranks.push_back(*rank);
      continue;
    }
    llvm::Expected<llvm::GlobPattern> pattern =
        llvm::GlobPattern::create(selector, kMaxSubPatterns);
    if (!pattern)
      return inGroup("bad name pattern '" + selector +
                     "': " + llvm::toString(pattern.takeError()));
    group.patterns.push_back(selector.str());
  }

  SmallVector<StringRef> settings;
  parts[2].split(settings, ',');
  for (StringRef setting : settings) {
    auto [key, value] = setting.split('=');
    key = key.trim();
    value = value.trim();
    if (key.empty() || value.empty() || !setting.contains('='))
      return inGroup("a setting is KEY=VALUE, not '" + setting.trim() + "'");
    if (!llvm::is_contained(keys, key)) {
      std::string list;
      llvm::raw_string_ostream os(list);
      llvm::interleave(keys, os, ", ");
      return inGroup("'" + key +
                     "' is no hyperparameter a group may set with this "
                     "optimizer (it may set " +
                     os.str() + ")");
    }
    if (group.find(key))
      return inGroup("sets '" + key + "' twice");
    double number;
    if (value.getAsDouble(number))
      return inGroup(key + " takes a number, not '" + value + "'");
    const amprt::HyperParameterRange *range = amprt::hyperParameterRange(key);
    if (!amprt::inRange(*range, number))
      return inGroup(key + " must lie in " + range->words + ", got '" + value +
                     "'");
    group.settings.push_back(
        {key.str(), (Twine(group.name) + "." + key).str(), number});
  }
  return std::nullopt;
}

std::optional<std::string>
amp::parseParamGroups(StringRef spec, ArrayRef<StringRef> keys,
                      SmallVectorImpl<ParamGroup> &groups) {
  groups.clear();
  if (spec.trim().empty())
    return std::nullopt;
  SmallVector<StringRef> texts;
  spec.split(texts, ';', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  llvm::StringSet<> names;
  for (StringRef text : texts) {
    if (text.trim().empty())
      continue;
    ParamGroup group;
    if (std::optional<std::string> error = parseGroup(text, keys, group))
      return error;
    if (!names.insert(group.name).second)
      return "two parameter groups are named '" + group.name + "'";
    groups.push_back(std::move(group));
  }
  return std::nullopt;
}
