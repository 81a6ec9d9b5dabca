//===- RowContextTest.cpp - the host's row sums in a warp's order ---------===//
//
// amp_runtime/row_context.h's HostRow gives the host a GPU warp's order of a
// row's sums, so that the row ops (row_math.h) give the same bits on both.
// Here its sums meet that order written out as a GPU runs it: 32 lanes,
// each folding its strided terms, then five rounds in which every lane adds
// the value of the lane whose index differs in one bit (__shfl_xor_sync),
// the lower lane's value on the left. Every lane must end with the same
// bits, lane 0's being the result.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/row_context.h"
#include "amp_runtime/row_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

/// Terms of many magnitudes and both signs, so that the order of a sum
/// shows in its last bits.
template <typename T> std::vector<T> randomTerms(std::mt19937 &rng, size_t n) {
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<T> terms;
  for (size_t j = 0; j < n; ++j)
    terms.push_back(static_cast<T>(std::ldexp(mantissa(rng), exponent(rng))));
  return terms;
}

/// A warp's sum of `terms`, simulated lane by lane and shuffle by shuffle.
template <typename T> T warpSum(const std::vector<T> &terms) {
  constexpr int kLanes = 32;
  T lane[kLanes];
  for (int l = 0; l < kLanes; ++l) {
    lane[l] = 0;
    for (size_t j = l; j < terms.size(); j += kLanes)
      lane[l] = lane[l] + terms[j];
  }
  for (int offset = 16; offset >= 1; offset /= 2) {
    T shuffled[kLanes];
    for (int l = 0; l < kLanes; ++l)
      shuffled[l] = lane[l ^ offset];
    for (int l = 0; l < kLanes; ++l)
      lane[l] = (l & offset) ? shuffled[l] + lane[l] : lane[l] + shuffled[l];
  }
  for (int l = 1; l < kLanes; ++l)
    EXPECT_EQ(std::memcmp(&lane[l], &lane[0], sizeof(T)), 0)
        << "lane " << l << " ends with other bits than lane 0";
  return lane[0];
}

template <typename T> T sequentialSum(const std::vector<T> &terms) {
  T sum = 0;
  for (T v : terms)
    sum = sum + v;
  return sum;
}

template <typename T> class RowContextTest : public ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RowContextTest, ScalarTypes);

const size_t kLengths[] = {0,  1,  2,   31,  32,  33,   63,   64,
                           65, 96, 100, 255, 256, 1000, 1024, 4099};

TYPED_TEST(RowContextTest, SumIsTheWarpsBitForBit) {
  using T = TypeParam;
  std::mt19937 rng(7);
  int differsFromSequential = 0;
  for (size_t n : kLengths) {
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<T> terms = randomTerms<T>(rng, n);
      T got = amprt::HostRow().sum(static_cast<int64_t>(n),
                                   [&](int64_t j) { return terms[j]; });
      T want = warpSum(terms);
      EXPECT_EQ(std::memcmp(&got, &want, sizeof(T)), 0)
          << "n = " << n << ": " << got << " against " << want;
      differsFromSequential += got != sequentialSum(terms);
    }
  }
  // Else the terms would not tell the orders apart.
  EXPECT_GT(differsFromSequential, 0);
}

TYPED_TEST(RowContextTest, MaxPropagatesNaN) {
  using T = TypeParam;
  std::mt19937 rng(11);
  for (size_t n : kLengths) {
    std::vector<T> terms = randomTerms<T>(rng, n);
    auto term = [&](int64_t j) { return terms[j]; };
    T want = -INFINITY;
    for (T v : terms)
      want = std::max(want, v);
    EXPECT_EQ(amprt::HostRow().max(static_cast<int64_t>(n), term), want)
        << "n = " << n;
    if (n == 0)
      continue;
    terms[n / 2] = NAN;
    EXPECT_TRUE(std::isnan(amprt::HostRow().max(static_cast<int64_t>(n), term)))
        << "n = " << n;
  }
}

TEST(RowContext, ForEachVisitsEachIndexOnceInOrder) {
  std::vector<int64_t> seen;
  amprt::HostRow().forEach(70, [&](int64_t j) { seen.push_back(j); });
  ASSERT_EQ(seen.size(), 70u);
  for (int64_t j = 0; j < 70; ++j)
    EXPECT_EQ(seen[j], j);
  EXPECT_TRUE(amprt::HostRow().leads());
}

TEST(RowContext, RowMathSumsInTheWarpsOrder) {
  // softmax's denominator is the warp's sum of exp(x - max).
  std::mt19937 rng(3);
  std::vector<float> x = randomTerms<float>(rng, 1000);
  for (float &v : x)
    v = v / 4096.0f; // within exp's range
  const amprt::SoftmaxStats<float> stats = amprt::softmaxStats<float>(
      amprt::HostRow(), 1000, [&](int64_t j) { return x[j]; });
  std::vector<float> shifted;
  for (float v : x)
    shifted.push_back(std::exp(v - stats.max));
  const float want = warpSum(shifted);
  EXPECT_EQ(std::memcmp(&stats.expSum, &want, sizeof(float)), 0);
}

} // namespace
