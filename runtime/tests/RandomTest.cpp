//===- RandomTest.cpp - dropout's generator against published answers ----===//
//
// amp_runtime/random.h is what the interpreter, the host build and the
// generated CUDA code draw dropout masks from. Here Philox4x32-10 meets
// the known answers Random123 publishes with the algorithm (its
// kat_vectors file), and the masks meet the probability they promise.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/random.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

namespace {

struct KnownAnswer {
  amprt::PhiloxBlock counter;
  uint32_t key[2];
  uint32_t expected[4];
};

// Random123's kat_vectors, the three philox4x32 10 lines: counter, key,
// output.
const KnownAnswer kKnownAnswers[] = {
    {{{0, 0, 0, 0}}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
     {0xffffffff, 0xffffffff},
     {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
     {0xa4093822, 0x299f31d0},
     {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
};

TEST(PhiloxTest, MatchesRandom123KnownAnswers) {
  for (const KnownAnswer &answer : kKnownAnswers) {
    amprt::PhiloxBlock out =
        amprt::philox4x32(answer.counter, answer.key[0], answer.key[1]);
    for (int w = 0; w < 4; ++w)
      EXPECT_EQ(out.word[w], answer.expected[w]) << "word " << w;
  }
}

TEST(DropoutMaskTest, ThresholdIsTheProbabilityIn24Bits) {
  EXPECT_EQ(amprt::dropoutThreshold(0.0), 0u);
  EXPECT_EQ(amprt::dropoutThreshold(0.5), 1u << 23);
  EXPECT_EQ(amprt::dropoutThreshold(0.25), 1u << 22);
  // 0.1 * 2^24 = 1677721.6: rounded up, so the drop probability is
  // 1677722 / 2^24, 0.1 to within 2^-24.
  EXPECT_EQ(amprt::dropoutThreshold(0.1), 1677722u);
}

TEST(DropoutMaskTest, ElementsTakeTheWordsOfTheirBlock) {
  // Element i reads word i % 4 of block i / 4, with the pass and the
  // stream in the counter and the seed as the key.
  const int64_t seed = 0x123456789abLL, pass = 7, stream = 3;
  for (int64_t index : {0, 1, 2, 3, 4, 9, 1 << 20}) {
    uint64_t block = static_cast<uint64_t>(index) / 4;
    amprt::PhiloxBlock out = amprt::philox4x32(
        {{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
          static_cast<uint32_t>(pass), static_cast<uint32_t>(stream)}},
        static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
    uint32_t top = out.word[index % 4] >> 8;
    // Keeps exactly where the top 24 bits reach the threshold.
    EXPECT_EQ(amprt::dropoutKeeps(seed, pass, stream, index, top), true);
    EXPECT_EQ(amprt::dropoutKeeps(seed, pass, stream, index, top + 1), false);
  }
}

TEST(DropoutMaskTest, KeepsOneMinusPAndDrawsAnewEachPassAndStream) {
  const int64_t n = 1 << 18;
  for (double p : {0.1, 0.5, 0.9}) {
    uint32_t threshold = amprt::dropoutThreshold(p);
    int64_t kept = 0, sameAcrossPasses = 0, sameAcrossStreams = 0;
    for (int64_t i = 0; i < n; ++i) {
      bool keeps = amprt::dropoutKeeps(42, 0, 0, i, threshold);
      kept += keeps;
      sameAcrossPasses += keeps == amprt::dropoutKeeps(42, 1, 0, i, threshold);
      sameAcrossStreams += keeps == amprt::dropoutKeeps(42, 0, 1, i, threshold);
    }
    // Binomial: within 5 standard deviations of n (1 - p).
    double sigma = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(static_cast<double>(kept), n * (1 - p), 5 * sigma) << p;
    // Independent masks agree where both keep or both drop:
    // (1 - p)^2 + p^2 of the time.
    double agree = n * ((1 - p) * (1 - p) + p * p);
    double agreeSigma = std::sqrt(n * (agree / n) * (1 - agree / n));
    EXPECT_NEAR(static_cast<double>(sameAcrossPasses), agree, 5 * agreeSigma);
    EXPECT_NEAR(static_cast<double>(sameAcrossStreams), agree, 5 * agreeSigma);
  }
}

TEST(DropoutMaskTest, ScalesKeptValuesAndPropagatesDroppedNaN) {
  const int64_t seed = 5, pass = 0, stream = 0;
  uint32_t threshold = amprt::dropoutThreshold(0.5);
  int64_t keptAt = -1, droppedAt = -1;
  for (int64_t i = 0; i < 64 && (keptAt < 0 || droppedAt < 0); ++i)
    (amprt::dropoutKeeps(seed, pass, stream, i, threshold) ? keptAt
                                                           : droppedAt) = i;
  ASSERT_GE(keptAt, 0);
  ASSERT_GE(droppedAt, 0);
  EXPECT_EQ(amprt::dropout(3.0f, seed, pass, stream, keptAt, threshold, 2.0f),
            6.0f);
  EXPECT_EQ(
      amprt::dropout(3.0f, seed, pass, stream, droppedAt, threshold, 2.0f),
      0.0f);
  // x * 0 for a dropped inf is NaN, as PyTorch's x * mask * scale.
  EXPECT_TRUE(std::isnan(amprt::dropout(INFINITY, seed, pass, stream, droppedAt,
                                        threshold, 2.0f)));
}

} // namespace
