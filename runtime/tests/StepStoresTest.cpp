//===- StepStoresTest.cpp - the generated code's 16-bit stores ------------===//
//
// The emitter stores `x` where the op's value is rndBF16(x) (one conversion
// instead of two), and a register that holds a bf16 value by its high half
// (stHeldBF16). Both must leave the bits the plain rounding store leaves.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/step_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

/// f32 values where rounding to 16 bits decides: a sweep of bit patterns
/// (every exponent, signs, NaNs with payloads, infinities) and each bf16
/// and f16 neighbour pair's midpoint with the floats beside it.
std::vector<float> floatsToRound() {
  std::vector<float> values;
  for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 4099)
    values.push_back(amprt::bitsToFloat(static_cast<uint32_t>(bits)));
  auto midpoints = [&](float low, float high) {
    for (float sign : {1.0f, -1.0f}) {
      float tie = sign * (low + (high - low) / 2);
      for (float v :
           {tie, std::nextafter(tie, 0.0f), std::nextafter(tie, INFINITY)})
        values.push_back(v);
    }
  };
  for (uint32_t h = 0; h < 0x7f80; ++h)
    midpoints(amprt::bfloat16BitsToFloat(static_cast<uint16_t>(h)),
              amprt::bfloat16BitsToFloat(static_cast<uint16_t>(h + 1)));
  for (uint32_t h = 0; h < 0x7c00; ++h)
    midpoints(amprt::halfBitsToFloat(static_cast<uint16_t>(h)),
              amprt::halfBitsToFloat(static_cast<uint16_t>(h + 1)));
  for (uint32_t nan : {0x7f800001u, 0xff800001u, 0x7fc00000u, 0xffc12345u,
                       0x7fa00000u, 0x7f800000u, 0xff800000u})
    values.push_back(amprt::bitsToFloat(nan));
  return values;
}

/// f64 values likewise: each float above, the doubles beside it, and
/// random bit patterns (f64 ties between 16-bit neighbours are f32 values).
std::vector<double> doublesToRound() {
  std::vector<double> values;
  for (float v : floatsToRound())
    for (double d :
         {static_cast<double>(v), std::nextafter(static_cast<double>(v), 0.0),
          std::nextafter(static_cast<double>(v), INFINITY)})
      values.push_back(d);
  std::mt19937_64 random(7);
  for (int n = 0; n < 1000000; ++n) {
    uint64_t bits = random();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    values.push_back(d);
  }
  values.push_back(std::numeric_limits<double>::quiet_NaN());
  values.push_back(-std::numeric_limits<double>::signaling_NaN());
  return values;
}

template <typename Value> uint16_t storedBF16(Value v) {
  ampstep::bf16_t slot = 0;
  ampstep::stBF16(&slot, 0, v);
  return slot;
}
template <typename Value> uint16_t storedF16(Value v) {
  ampstep::f16_t slot = 0;
  ampstep::stF16(&slot, 0, v);
  return slot;
}

TEST(StepStoresTest, StoringARoundedValueStoresWhatStoringTheValueDoes) {
  for (float v : floatsToRound()) {
    uint32_t bits = amprt::floatToBits(v);
    ASSERT_EQ(storedBF16(ampstep::rndBF16(v)), storedBF16(v))
        << std::hex << bits;
    ASSERT_EQ(storedF16(ampstep::rndF16(v)), storedF16(v)) << std::hex << bits;
  }
  for (double v : doublesToRound()) {
    ASSERT_EQ(storedBF16(ampstep::rndBF16(v)), storedBF16(v)) << v;
    ASSERT_EQ(storedF16(ampstep::rndF16(v)), storedF16(v)) << v;
  }
}

TEST(StepStoresTest, AStoreFromF64RoundsOnce) {
  // Halfway between bf16 1 and its successor 1 + 2^-7, nudged up by less
  // than f32 resolves: rounding to f32 first would land on the tie and go
  // to even (1); one rounding goes up.
  double above = 1.0 + 0x1p-8 + 0x1p-40;
  EXPECT_EQ(storedBF16(above), 0x3f81);
  EXPECT_EQ(storedBF16(static_cast<float>(above)), 0x3f80);
  // The same for f16: 1 + 2^-11 is the tie between 1 and 1 + 2^-10.
  double halfAbove = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(storedF16(halfAbove), 0x3c01);
  EXPECT_EQ(storedF16(static_cast<float>(halfAbove)), 0x3c00);
}

TEST(StepStoresTest, AHeldBF16ValueStoresItsBits) {
  for (uint32_t h = 0; h < 65536; ++h) {
    float held = amprt::bfloat16BitsToFloat(static_cast<uint16_t>(h));
    ampstep::bf16_t slot = 0;
    ampstep::stHeldBF16(&slot, 0, held);
    ASSERT_EQ(slot, storedBF16(held)) << std::hex << h;
  }
  // A signalling NaN is stored quiet, its sign and payload kept.
  ampstep::bf16_t slot = 0;
  ampstep::stHeldBF16(&slot, 0, amprt::bitsToFloat(0xff810000u));
  EXPECT_EQ(slot, 0xffc1);
}

} // namespace
