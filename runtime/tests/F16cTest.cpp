//===- F16cTest.cpp - hardware f16 conversions equal the software ones ----===//
//
// Compiled with -mf16c (x86-64): step_kernels.h then converts f16 with the
// F16C instructions, which compiled host steps use where the CPU has them.
// They must give the bits of the software conversions (float_formats.h),
// which the interpreter's oracle tests pin down.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/step_kernels.h"
#include "host_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace {

#if !defined(AMP_STEP_HAVE_F16C)
#error "F16cTest.cpp must be compiled with -mf16c"
#endif

bool cpuHasF16c() { return __builtin_cpu_supports("f16c"); }

TEST(F16cTest, EveryHalfLoadsToTheSameFloat) {
  if (!cpuHasF16c())
    GTEST_SKIP() << "this CPU has no F16C; amp-compile does not use it here";
  for (uint32_t h = 0; h < 65536; ++h)
    ASSERT_EQ(
        amprt::floatToBits(ampstep::fromF16(static_cast<uint16_t>(h))),
        amprt::floatToBits(amprt::halfBitsToFloat(static_cast<uint16_t>(h))))
        << std::hex << h;
}

TEST(F16cTest, StoresRoundAsTheSoftwarePath) {
  if (!cpuHasF16c())
    GTEST_SKIP() << "this CPU has no F16C; amp-compile does not use it here";
  // Every f32 bit pattern in steps of 97 (covering every exponent and
  // fraction pattern class), then each f16 value's midpoints to both
  // neighbours and the floats next to them, where rounding decides.
  for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 97) {
    float v = amprt::bitsToFloat(static_cast<uint32_t>(bits));
    ASSERT_EQ(ampstep::toF16(v), amprt::floatToHalfBits(v)) << std::hex << bits;
  }
  for (uint32_t h = 0; h < 0x7c00; ++h)
    for (float sign : {1.0f, -1.0f}) {
      float low = amprt::halfBitsToFloat(static_cast<uint16_t>(h));
      float high = amprt::halfBitsToFloat(static_cast<uint16_t>(h + 1));
      float tie = sign * (low + (high - low) / 2);
      for (float v :
           {tie, std::nextafter(tie, 0.0f), std::nextafter(tie, INFINITY),
            std::nextafter(tie, -INFINITY)})
        ASSERT_EQ(ampstep::toF16(v), amprt::floatToHalfBits(v)) << v;
    }
  // NaNs take the software path: quiet, no payload, the sign kept.
  EXPECT_EQ(ampstep::toF16(-NAN), amprt::floatToHalfBits(-NAN));
  EXPECT_EQ(ampstep::toF16(NAN), 0x7e00);
}

// The host GEMM's f16 output pass: eight lanes at a time, then the tail.
TEST(F16cTest, NarrowingARowGivesTheSoftwareBits) {
  std::vector<float> values;
  for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += 9973)
    values.push_back(amprt::bitsToFloat(static_cast<uint32_t>(bits)));
  for (uint32_t h = 0; h < 0x7c00; h += 7) {
    float low = amprt::halfBitsToFloat(static_cast<uint16_t>(h));
    float high = amprt::halfBitsToFloat(static_cast<uint16_t>(h + 1));
    values.push_back(low + (high - low) / 2);
    values.push_back(-(low + (high - low) / 2));
  }
  for (float v : {NAN, -NAN, INFINITY, -INFINITY, 65520.0f, 65519.99f, 0x1p-25f,
                  0x1.000002p-25f, 0x1p-149f, -0.0f})
    values.push_back(v);
  for (size_t count : {values.size(), values.size() - 3, size_t(5)}) {
    std::vector<uint16_t> got(count);
    amprt::narrowFloatToHalf(values.data(), static_cast<int64_t>(count),
                             got.data());
    for (size_t i = 0; i < count; ++i)
      ASSERT_EQ(got[i], amprt::floatToHalfBits(values[i]))
          << std::hex << amprt::floatToBits(values[i]);
  }
}

} // namespace
