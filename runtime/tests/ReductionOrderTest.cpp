//===- ReductionOrderTest.cpp - the summation order of reductions ---------===//
//
// amprt::foldReduction fixes the order in which the interpreter and the
// generated kernels sum: its tree is checked by hand, and its accuracy on a
// long sum of squares (a gradient norm for clipping) against f64.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/reduction_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

/// Combines the names of two subtrees.
std::string combineNames(const std::string &a, const std::string &b) {
  if (a.empty() || b.empty())
    return a + b;
  return "(" + a + "+" + b + ")";
}

/// Folds strings that name the first value of each block ("b3" for value
/// 768) and are empty elsewhere, so that the result spells the tree.
std::string treeOf(int64_t extent) {
  return amprt::foldReduction(
      extent, std::string(),
      [](int64_t r) {
        return r % amprt::kReductionBlock == 0
                   ? "b" + std::to_string(r / amprt::kReductionBlock)
                   : std::string();
      },
      combineNames);
}

TEST(ReductionOrderTest, BlocksAreCombinedPairwiseLeftToRight) {
  EXPECT_EQ(treeOf(0), "");
  EXPECT_EQ(treeOf(1), "b0");
  EXPECT_EQ(treeOf(256), "b0");
  EXPECT_EQ(treeOf(257), "(b0+b1)");
  EXPECT_EQ(treeOf(3 * 256), "((b0+b1)+b2)");
  EXPECT_EQ(treeOf(4 * 256), "((b0+b1)+(b2+b3))");
  EXPECT_EQ(treeOf(5 * 256 + 1), "(((b0+b1)+(b2+b3))+(b4+b5))");
  EXPECT_EQ(treeOf(7 * 256), "(((b0+b1)+(b2+b3))+((b4+b5)+b6))");
}

TEST(ReductionOrderTest, ABlockIsFoldedInOrder) {
  // Within one block the order is the plain loop's: 1e8 + 1 + ... + 1 in
  // f32 stays 1e8, as an in-order sum gives.
  std::vector<float> values(256, 1.0f);
  values[0] = 1e8f;
  float folded = amprt::foldReduction(
      256, 0.0f, [&](int64_t r) { return values[r]; },
      [](float a, float b) { return a + b; });
  float inOrder = 0;
  for (float v : values)
    inOrder += v;
  EXPECT_EQ(folded, inOrder);
  EXPECT_EQ(folded, 1e8f);
}

TEST(ReductionOrderTest, LoadsAheadKeepTheOrder) {
  // foldReduction loads kLoadsAhead values before it combines them; the
  // combination is the plain loop's all the same, the tail after the last
  // whole group included, in each block.
  auto chain = [](int64_t from, int64_t to) {
    std::string names = "v" + std::to_string(from);
    for (int64_t r = from + 1; r < to; ++r)
      names = combineNames(names, "v" + std::to_string(r));
    return names;
  };
  auto fold = [](int64_t extent) {
    return amprt::foldReduction(
        extent, std::string(),
        [](int64_t r) { return "v" + std::to_string(r); }, combineNames);
  };
  static_assert(amprt::kReductionBlock % amprt::kLoadsAhead == 0);
  for (int64_t extent : {int64_t(1), amprt::kLoadsAhead - 1, amprt::kLoadsAhead,
                         2 * amprt::kLoadsAhead + 3})
    EXPECT_EQ(fold(extent), chain(0, extent)) << extent;
  EXPECT_EQ(fold(256 + 11), combineNames(chain(0, 256), chain(256, 267)));
}

// The squared norm of a 784x256 gradient (the MLP's first weight), summed in
// f32: within a few units in the last place of the f64 sum, where the
// in-order loop drifts by about 1e-5 relative.
TEST(ReductionOrderTest, ALongSumOfSquaresIsAccurate) {
  std::mt19937 generator(7);
  std::normal_distribution<float> normal(0.0f, 1e-3f);
  std::vector<float> grad(784 * 256);
  for (float &g : grad)
    g = normal(generator);
  double exact = 0;
  float inOrder = 0;
  for (float g : grad) {
    exact += static_cast<double>(g) * g;
    inOrder += g * g;
  }
  float folded = amprt::foldReduction(
      static_cast<int64_t>(grad.size()), 0.0f,
      [&](int64_t r) { return grad[r] * grad[r]; },
      [](float a, float b) { return a + b; });
  double foldedError = std::fabs(folded - exact) / exact;
  double inOrderError = std::fabs(inOrder - exact) / exact;
  EXPECT_LT(foldedError, 3e-7) << "in order: " << inOrderError;
  EXPECT_GT(inOrderError, 10 * foldedError);
  // The clip coefficient max / (norm + 1e-6) inherits half the relative
  // error of the sum.
  EXPECT_LT(
      std::fabs(std::sqrt(static_cast<double>(folded)) - std::sqrt(exact)) /
          std::sqrt(exact),
      2e-7);
}

// A GPU block reduction folds parts of reductionPart's size in parallel and
// combines them with combinePairwise (ampstep::blockPerOutput): bit for bit
// foldReduction's result, for extents around the powers of two of blocks
// and parts, and for values whose sum depends on the order.
TEST(ReductionOrderTest, PartsInParallelGiveTheSameBits) {
  std::mt19937 generator(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(3 * 256 * 256 * 2 + 7);
  // Magnitudes from 2^-20 to 2^20, so that every order rounds differently.
  for (float &v : values) {
    float mantissa = uniform(generator);
    v = std::ldexp(mantissa, static_cast<int>(uniform(generator) * 20));
  }
  auto add = [](float a, float b) { return a + b; };
  std::vector<int64_t> extents = {0, 1, 255, 256, 257, 1000, 4096};
  for (int64_t blocks : {255, 256, 257, 511, 512, 513, 1024, 1500})
    for (int64_t extra : {-1, 0, 1, 100})
      extents.push_back(blocks * 256 + extra);
  extents.push_back(static_cast<int64_t>(values.size()));
  for (int64_t parts : {1, 3, 32, 256}) {
    for (int64_t extent : extents) {
      float whole = amprt::foldReduction(
          extent, 0.0f, [&](int64_t r) { return values[r]; }, add);
      int64_t span = amprt::reductionPart(extent, parts);
      int64_t count = (extent + span - 1) / span;
      ASSERT_LE(count, parts);
      std::vector<float> results;
      for (int64_t k = 0; k < count; ++k) {
        int64_t start = k * span;
        results.push_back(amprt::foldReduction(
            std::min(span, extent - start), 0.0f,
            [&](int64_t r) { return values[start + r]; }, add));
      }
      float combined = amprt::combinePairwise(
          count, 0.0f, [&](int64_t k) { return results[k]; }, add);
      EXPECT_EQ(combined, whole)
          << "extent " << extent << ", " << parts << " parts of " << span;
    }
  }
}

// A long reduction of few outputs is cut over several GPU blocks
// (ampstep::blockPerSlice, a slice of 256 threads' parts) or threads
// (threadPerSlice, a part a slice): each slice combines its parts pairwise,
// then the slices' results are combined pairwise (finishSlices). Bit for
// bit foldReduction's result, for slices of 1, 4 and 256 parts, around the
// powers of two.
TEST(ReductionOrderTest, SlicesOfPartsGiveTheSameBits) {
  std::mt19937 generator(12);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(1 << 21);
  for (float &v : values)
    v = std::ldexp(uniform(generator),
                   static_cast<int>(uniform(generator) * 20));
  auto add = [](float a, float b) { return a + b; };
  std::vector<int64_t> extents = {1,       256,           257,    70000,
                                  1 << 20, (1 << 21) - 3, 1 << 21};
  for (int64_t threads : {1, 4, 256}) {
    for (int64_t slices : {1, 2, 3, 8, 264}) {
      for (int64_t extent : extents) {
        float whole = amprt::foldReduction(
            extent, 0.0f, [&](int64_t r) { return values[r]; }, add);
        amprt::ReductionSplit split =
            amprt::splitReduction(extent, slices, threads);
        ASSERT_LE(split.slices, slices);
        std::vector<float> results;
        // The kernels' indexing (ampstep::blockPerSlice, threadPerSlice).
        for (int64_t slice = 0; slice < split.slices; ++slice) {
          int64_t parts = amprt::partsOfSlice(split, slice, threads);
          ASSERT_GT(parts, 0);
          std::vector<float> partResults;
          for (int64_t k = 0; k < parts; ++k) {
            amprt::PartRange range =
                amprt::partOf(split, extent, slice * threads + k);
            partResults.push_back(amprt::foldReduction(
                range.size, 0.0f,
                [&](int64_t r) { return values[range.start + r]; }, add));
          }
          results.push_back(amprt::combinePairwise(
              parts, 0.0f, [&](int64_t k) { return partResults[k]; }, add));
        }
        float combined = amprt::combinePairwise(
            split.slices, 0.0f, [&](int64_t k) { return results[k]; }, add);
        EXPECT_EQ(combined, whole) << "extent " << extent << ", " << slices
                                   << " slices of " << threads << " parts";
      }
    }
  }
}

// The tree of the parts is the tree of the whole: spelled out.
TEST(ReductionOrderTest, PartsSpellTheSameTree) {
  for (int64_t extent : {5 * 256 + 1, 7 * 256, 13 * 256 + 3}) {
    int64_t span = amprt::reductionPart(extent, 2);
    std::vector<std::string> parts;
    for (int64_t start = 0; start < extent; start += span)
      parts.push_back(amprt::foldReduction(
          std::min(span, extent - start), std::string(),
          [&](int64_t r) {
            int64_t at = start + r;
            return at % amprt::kReductionBlock == 0
                       ? "b" + std::to_string(at / amprt::kReductionBlock)
                       : std::string();
          },
          combineNames));
    EXPECT_EQ(amprt::combinePairwise(
                  static_cast<int64_t>(parts.size()), std::string(),
                  [&](int64_t k) { return parts[k]; }, combineNames),
              treeOf(extent))
        << extent;
  }
}

} // namespace
