//===- edit_distance.h - how far a misspelled name is ------------*- C++
//-*-===//
//
// The Levenshtein distance that every "did you mean" measures a name by
// (the runtime's unknown hyperparameter, amp-step's unknown option, a pass
// option's unknown key), and the rule that picks the name meant.
// Header-only, free of LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_EDIT_DISTANCE_H
#define AMP_RUNTIME_EDIT_DISTANCE_H

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace amprt {

/// Levenshtein distance of `a` and `b` (insertions, deletions and
/// substitutions of one character each count 1).
inline size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// The position in `candidates` of the one `name` most likely misspells:
/// the first at the least distance, where that is within a third of
/// `name`'s length; candidates.size() when none is. The one rule of every
/// "did you mean" (hyperparameters, amp-step's options, pass options).
inline size_t closestName(const std::string &name,
                          const std::vector<std::string> &candidates) {
  size_t best = name.size() / 3 + 1, found = candidates.size();
  for (size_t i = 0; i < candidates.size(); ++i)
    if (size_t distance = editDistance(name, candidates[i]); distance < best) {
      best = distance;
      found = i;
    }
  return found;
}

} // namespace amprt

#endif // AMP_RUNTIME_EDIT_DISTANCE_H
