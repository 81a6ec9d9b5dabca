//===- edit_distance.h - how far a misspelled name is ------------*- C++
//-*-===//
//
// The Levenshtein distance that the runtime's "did you mean" (an unknown
// hyperparameter) and amp-step's (an unknown option) measure a name by.
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

} // namespace amprt

#endif // AMP_RUNTIME_EDIT_DISTANCE_H
