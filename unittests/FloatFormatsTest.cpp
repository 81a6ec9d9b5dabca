//===- FloatFormatsTest.cpp - fp16/bf16 rounding, exhaustively ------------===//
//
// The oracle is LLVM's APFloat (an independent IEEE implementation) and bit
// patterns worked out by hand; never the code under test.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/float_formats.h"

#include "llvm/ADT/APFloat.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

namespace {

using llvm::APFloat;

uint16_t oracleBits(double value, const llvm::fltSemantics &semantics) {
  APFloat converted(value);
  bool losesInfo = false;
  converted.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint16_t>(converted.bitcastToAPInt().getZExtValue());
}

uint16_t oracleHalf(double value) {
  return oracleBits(value, APFloat::IEEEhalf());
}
uint16_t oracleBFloat16(double value) {
  return oracleBits(value, APFloat::BFloat());
}

bool isHalfNaN(uint16_t bits) { return (bits & 0x7fff) > 0x7c00; }
bool isBFloat16NaN(uint16_t bits) { return (bits & 0x7fff) > 0x7f80; }

TEST(FloatFormatsTest, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t i = 0; i < 65536; ++i) {
    auto bits = static_cast<uint16_t>(i);
    float value = amprt::halfBitsToFloat(bits);
    uint16_t back = amprt::floatToHalfBits(value);
    if (isHalfNaN(bits)) {
      EXPECT_TRUE(std::isnan(value)) << std::hex << i;
      EXPECT_TRUE(isHalfNaN(back)) << std::hex << i;
      EXPECT_EQ(back & 0x8000, bits & 0x8000) << "NaN sign, " << std::hex << i;
      continue;
    }
    ASSERT_EQ(back, bits) << std::hex << i;
    // The decoded value itself agrees with APFloat's.
    APFloat oracle(APFloat::IEEEhalf(), llvm::APInt(16, i));
    ASSERT_EQ(static_cast<double>(value), oracle.convertToDouble())
        << std::hex << i;
  }
}

TEST(FloatFormatsTest, EveryBFloat16RoundTripsThroughFloat) {
  for (uint32_t i = 0; i < 65536; ++i) {
    auto bits = static_cast<uint16_t>(i);
    float value = amprt::bfloat16BitsToFloat(bits);
    uint16_t viaFloat = amprt::floatToBFloat16Bits(value);
    uint16_t viaDouble = amprt::doubleToBFloat16Bits(value);
    if (isBFloat16NaN(bits)) {
      EXPECT_TRUE(isBFloat16NaN(viaFloat) && isBFloat16NaN(viaDouble))
          << std::hex << i;
      continue;
    }
    ASSERT_EQ(viaFloat, bits) << std::hex << i;
    ASSERT_EQ(viaDouble, bits) << std::hex << i;
  }
}

// Every tie between two adjacent fp16 values, and the f32 values just either
// side of it: all rounding decisions of the format, against APFloat.
TEST(FloatFormatsTest, HalfTiesAndNeighboursMatchOracle) {
  for (uint32_t i = 0; i < 0x7c00; ++i) {
    for (double sign : {1.0, -1.0}) {
      double low = amprt::halfBitsToDouble(static_cast<uint16_t>(i));
      double high = i + 1 == 0x7c00
                        ? 65536.0
                        : amprt::halfBitsToDouble(static_cast<uint16_t>(i + 1));
      float tie = static_cast<float>((low + high) / 2); // exact in f32
      for (float probe :
           {tie, std::nextafter(tie, 0.0f), std::nextafter(tie, INFINITY)}) {
        float value = static_cast<float>(sign) * probe;
        ASSERT_EQ(amprt::floatToHalfBits(value), oracleHalf(value))
            << "value " << value;
        ASSERT_EQ(amprt::doubleToHalfBits(value), oracleHalf(value))
            << "value " << value;
      }
    }
  }
}

TEST(FloatFormatsTest, BFloat16TiesAndNeighboursMatchOracle) {
  for (uint32_t i = 0; i < 0x7f80; ++i) {
    uint32_t tieBits = (i << 16) | 0x8000u; // halfway to the next pattern
    for (uint32_t bits : {tieBits, tieBits - 1, tieBits + 1}) {
      for (uint32_t sign : {0u, 0x80000000u}) {
        float value = amprt::bitsToFloat(bits | sign);
        ASSERT_EQ(amprt::floatToBFloat16Bits(value), oracleBFloat16(value))
            << "value " << value;
        ASSERT_EQ(amprt::doubleToBFloat16Bits(value), oracleBFloat16(value))
            << "value " << value;
      }
    }
  }
}

TEST(FloatFormatsTest, RandomFloatsMatchOracle) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<uint32_t> anyBits;
  for (int i = 0; i < 1000000; ++i) {
    float value = amprt::bitsToFloat(anyBits(rng));
    if (std::isnan(value))
      continue;
    ASSERT_EQ(amprt::floatToHalfBits(value), oracleHalf(value)) << value;
    ASSERT_EQ(amprt::floatToBFloat16Bits(value), oracleBFloat16(value))
        << value;
  }
}

// From f64 the conversion rounds once. Going through f32 first would round
// twice: 1 + 2^-11 + 2^-40 is just above an fp16 tie, but rounds to the tie
// itself in f32, which then goes to even (1.0).
TEST(FloatFormatsTest, DoubleRoundsOnce) {
  double justAboveTie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(amprt::doubleToHalfBits(justAboveTie), 0x3c01);
  EXPECT_EQ(amprt::floatToHalfBits(static_cast<float>(justAboveTie)), 0x3c00);
  double bf16JustAboveTie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(amprt::doubleToBFloat16Bits(bf16JustAboveTie), 0x3f81);

  std::mt19937_64 rng(99);
  std::uniform_int_distribution<uint64_t> anyBits;
  for (int i = 0; i < 300000; ++i) {
    double value = amprt::bitsToDouble(anyBits(rng));
    if (std::isnan(value))
      continue;
    ASSERT_EQ(amprt::doubleToHalfBits(value), oracleHalf(value)) << value;
    ASSERT_EQ(amprt::doubleToBFloat16Bits(value), oracleBFloat16(value))
        << value;
  }
}

// The limits of REFERENCE.md, bit patterns by hand.
TEST(FloatFormatsTest, HalfLimitsByHand) {
  EXPECT_EQ(amprt::floatToHalfBits(65504.0f), 0x7bff); // max finite
  EXPECT_EQ(amprt::floatToHalfBits(65519.0f), 0x7bff); // below the tie
  EXPECT_EQ(amprt::floatToHalfBits(65520.0f), 0x7c00); // tie -> even -> inf
  EXPECT_EQ(amprt::floatToHalfBits(1.0e6f), 0x7c00);
  EXPECT_EQ(amprt::floatToHalfBits(-1.0e6f), 0xfc00);
  EXPECT_EQ(amprt::floatToHalfBits(std::ldexp(1.0f, -14)),
            0x0400); // min normal
  EXPECT_EQ(amprt::floatToHalfBits(std::ldexp(1.0f, -24)), 0x0001); // min sub
  EXPECT_EQ(amprt::floatToHalfBits(std::ldexp(1.0f, -25)), 0x0000); // tie -> 0
  EXPECT_EQ(amprt::floatToHalfBits(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(amprt::floatToHalfBits(std::ldexp(3.0f, -25)),
            0x0002); // tie -> even
  EXPECT_EQ(amprt::floatToHalfBits(0.1f), 0x2e66);
  EXPECT_EQ(amprt::floatToHalfBits(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(amprt::floatToHalfBits(2049.0f), 0x6800); // tie -> 2048
  EXPECT_EQ(amprt::floatToHalfBits(2051.0f), 0x6802); // tie -> 2052
  EXPECT_EQ(amprt::floatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(amprt::floatToHalfBits(INFINITY), 0x7c00);
  EXPECT_TRUE(isHalfNaN(amprt::floatToHalfBits(NAN)));
  EXPECT_EQ(amprt::halfBitsToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(amprt::halfBitsToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(amprt::halfBitsToFloat(0x3c00), 1.0f);
  EXPECT_EQ(amprt::halfBitsToFloat(0xc000), -2.0f);
}

TEST(FloatFormatsTest, BFloat16LimitsByHand) {
  EXPECT_EQ(amprt::floatToBFloat16Bits(1.0f), 0x3f80);
  EXPECT_EQ(amprt::floatToBFloat16Bits(-2.0f), 0xc000);
  EXPECT_EQ(amprt::bfloat16BitsToFloat(0x7f7f), 3.38953139e38f); // max finite
  EXPECT_EQ(amprt::floatToBFloat16Bits(FLT_MAX), 0x7f80); // rounds up to inf
  EXPECT_EQ(amprt::floatToBFloat16Bits(std::ldexp(1.0f, -126)), 0x0080);
  EXPECT_EQ(amprt::floatToBFloat16Bits(std::ldexp(1.0f, -133)), 0x0001);
  EXPECT_EQ(amprt::floatToBFloat16Bits(std::ldexp(1.0f, -134)), 0x0000); // tie
  EXPECT_EQ(amprt::floatToBFloat16Bits(0.1f), 0x3dcd); // 0x3dcccccd rounds up
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even, 1.0.
  EXPECT_EQ(amprt::floatToBFloat16Bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6.
  EXPECT_EQ(amprt::floatToBFloat16Bits(1.0f + 3 * std::ldexp(1.0f, -8)),
            0x3f82);
  EXPECT_TRUE(isBFloat16NaN(amprt::floatToBFloat16Bits(-NAN)));
  EXPECT_EQ(amprt::floatToBFloat16Bits(-NAN) & 0x8000, 0x8000);
}

TEST(FloatFormatsTest, StorageTypes) {
  EXPECT_EQ(amprt::Half::fromFloat(1.5f).bits, 0x3e00);
  EXPECT_EQ(amprt::Half{0x3e00}.toFloat(), 1.5f);
  EXPECT_EQ(amprt::BFloat16::fromFloat(1.5f).bits, 0x3fc0);
  EXPECT_EQ(amprt::BFloat16{0x3fc0}.toFloat(), 1.5f);
  EXPECT_EQ(amprt::roundToHalf(65520.0f), INFINITY);
  EXPECT_EQ(amprt::roundToBFloat16(1.0f + std::ldexp(1.0f, -9)), 1.0f);
}

//===----------------------------------------------------------------------===//
// FP8
//===----------------------------------------------------------------------===//

uint8_t oracleFp8(double value, const llvm::fltSemantics &semantics) {
  return static_cast<uint8_t>(oracleBits(value, semantics));
}

bool isE4M3FNNaN(uint8_t bits) { return (bits & 0x7f) == 0x7f; }
bool isE5M2NaN(uint8_t bits) { return (bits & 0x7f) > 0x7c; }

TEST(FloatFormatsTest, EveryFp8PatternDecodesAndRoundTrips) {
  for (uint32_t i = 0; i < 256; ++i) {
    auto bits = static_cast<uint8_t>(i);
    double e4m3 = amprt::e4m3fnBitsToDouble(bits);
    double e5m2 = amprt::e5m2BitsToDouble(bits);
    APFloat e4m3Oracle(APFloat::Float8E4M3FN(), llvm::APInt(8, i));
    APFloat e5m2Oracle(APFloat::Float8E5M2(), llvm::APInt(8, i));
    if (isE4M3FNNaN(bits)) {
      EXPECT_TRUE(std::isnan(e4m3) && e4m3Oracle.isNaN()) << std::hex << i;
      EXPECT_EQ(amprt::doubleToE4M3FNBits(e4m3, false), bits) << i;
      EXPECT_EQ(amprt::doubleToE4M3FNBits(e4m3, true), bits) << i;
    } else {
      EXPECT_EQ(e4m3, e4m3Oracle.convertToDouble()) << std::hex << i;
      EXPECT_EQ(amprt::doubleToE4M3FNBits(e4m3, false), bits) << i;
      EXPECT_EQ(amprt::doubleToE4M3FNBits(e4m3, true), bits) << i;
    }
    if (isE5M2NaN(bits)) {
      EXPECT_TRUE(std::isnan(e5m2) && e5m2Oracle.isNaN()) << std::hex << i;
      EXPECT_TRUE(isE5M2NaN(amprt::doubleToE5M2Bits(e5m2, false))) << i;
    } else {
      EXPECT_EQ(e5m2, e5m2Oracle.convertToDouble()) << std::hex << i;
      EXPECT_EQ(amprt::doubleToE5M2Bits(e5m2, false), bits) << i;
      if (!std::isinf(e5m2)) {
        EXPECT_EQ(amprt::doubleToE5M2Bits(e5m2, true), bits) << i;
      }
    }
  }
}

TEST(FloatFormatsTest, Fp8RoundingMatchesOracle) {
  // Every midpoint between neighbouring values and its neighbours, and
  // random values over both formats' ranges and beyond.
  std::vector<double> values;
  for (uint32_t i = 0; i < 127; ++i) {
    for (auto decode : {amprt::e4m3fnBitsToDouble, amprt::e5m2BitsToDouble}) {
      double low = decode(static_cast<uint8_t>(i));
      double high = decode(static_cast<uint8_t>(i + 1));
      if (std::isnan(high) || std::isinf(high))
        continue;
      double middle = (low + high) / 2;
      values.insert(values.end(), {middle, std::nextafter(middle, 0.0),
                                   std::nextafter(middle, 1e9)});
    }
  }
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> exponent(-20.0, 18.0);
  for (int i = 0; i < 20000; ++i)
    values.push_back(std::exp2(exponent(random)));
  for (double magnitude : values) {
    for (double value : {magnitude, -magnitude}) {
      uint8_t e4m3 = amprt::doubleToE4M3FNBits(value, false);
      uint8_t e4m3Oracle = oracleFp8(value, APFloat::Float8E4M3FN());
      if (isE4M3FNNaN(e4m3Oracle)) {
        ASSERT_TRUE(isE4M3FNNaN(e4m3)) << value;
      } else {
        ASSERT_EQ(e4m3, e4m3Oracle) << value;
      }
      ASSERT_EQ(amprt::doubleToE5M2Bits(value, false),
                oracleFp8(value, APFloat::Float8E5M2()))
          << value;
    }
  }
}

TEST(FloatFormatsTest, Fp8LimitsByHand) {
  using amprt::doubleToE4M3FNBits;
  using amprt::doubleToE5M2Bits;
  // e4m3fn: 1 is 0.0111.000; 448 = 1.75 * 2^8 the largest; 464 ties to the
  // even 448; anything above is NaN (0x7f), or 448 when saturating.
  EXPECT_EQ(doubleToE4M3FNBits(1.0, false), 0x38);
  EXPECT_EQ(doubleToE4M3FNBits(448.0, false), 0x7e);
  EXPECT_EQ(doubleToE4M3FNBits(464.0, false), 0x7e);
  EXPECT_EQ(doubleToE4M3FNBits(464.5, false), 0x7f);
  EXPECT_EQ(doubleToE4M3FNBits(464.5, true), 0x7e);
  EXPECT_EQ(doubleToE4M3FNBits(-1e6, true), 0xfe);
  EXPECT_EQ(doubleToE4M3FNBits(INFINITY, false), 0x7f);
  EXPECT_EQ(doubleToE4M3FNBits(-INFINITY, false), 0xff);
  EXPECT_EQ(doubleToE4M3FNBits(INFINITY, true), 0x7e);
  EXPECT_EQ(doubleToE4M3FNBits(NAN, true) & 0x7f, 0x7f);
  // Subnormals: 2^-9 the smallest; 2^-10 ties to even, 0; 1.5 * 2^-10
  // rounds up to 2^-9; 2^-6 the smallest normal.
  EXPECT_EQ(doubleToE4M3FNBits(0x1p-9, false), 0x01);
  EXPECT_EQ(doubleToE4M3FNBits(0x1p-10, false), 0x00);
  EXPECT_EQ(doubleToE4M3FNBits(0x1.8p-10, false), 0x01);
  EXPECT_EQ(doubleToE4M3FNBits(0x1p-6, false), 0x08);
  EXPECT_EQ(doubleToE4M3FNBits(-0.0, false), 0x80);
  EXPECT_EQ(amprt::e4m3fnBitsToDouble(0x7e), 448.0);
  EXPECT_EQ(amprt::e4m3fnBitsToDouble(0x01), 0x1p-9);
  // e5m2: 1 is 0.01111.00; 57344 = 1.75 * 2^15 the largest; 61440 ties to
  // the even 2^16, infinity (57344 when saturating); 2^-16 the smallest.
  EXPECT_EQ(doubleToE5M2Bits(1.0, false), 0x3c);
  EXPECT_EQ(doubleToE5M2Bits(57344.0, false), 0x7b);
  EXPECT_EQ(doubleToE5M2Bits(61439.0, false), 0x7b);
  EXPECT_EQ(doubleToE5M2Bits(61440.0, false), 0x7c);
  EXPECT_EQ(doubleToE5M2Bits(61440.0, true), 0x7b);
  EXPECT_EQ(doubleToE5M2Bits(-INFINITY, true), 0xfb);
  EXPECT_EQ(doubleToE5M2Bits(0x1p-16, false), 0x01);
  EXPECT_EQ(doubleToE5M2Bits(0x1p-17, false), 0x00);
  EXPECT_TRUE(std::isnan(amprt::e5m2BitsToDouble(doubleToE5M2Bits(NAN, true))));
}

TEST(FloatFormatsTest, Fp8TensorwiseScalingByHand) {
  using amprt::Fp8Format;
  // amax 2: 448 / 2 = 224 and 57344 / 2 = 28672, exact.
  EXPECT_EQ(amprt::fp8ScaleFromAmax(2.0f, Fp8Format::E4M3FN), 224.0f);
  EXPECT_EQ(amprt::fp8ScaleFromAmax(2.0f, Fp8Format::E5M2), 28672.0f);
  // 448 / 3 = 149.333..., rounded once to f32.
  EXPECT_EQ(amprt::fp8ScaleFromAmax(3.0f, Fp8Format::E4M3FN),
            static_cast<float>(448.0 / 3.0));
  // An all-zero tensor: amax clamped to 1e-12 (in f64).
  EXPECT_EQ(amprt::fp8ScaleFromAmax(0.0f, Fp8Format::E4M3FN),
            static_cast<float>(448.0 / 1e-12));
  EXPECT_TRUE(std::isnan(amprt::fp8ScaleFromAmax(NAN, Fp8Format::E4M3FN)));
  EXPECT_EQ(amprt::fp8ScaleFromAmax(INFINITY, Fp8Format::E5M2), 0.0f);
  // The amax itself goes to the format's largest value: 2 * 224 = 448,
  // S.1111.110; -2 * 28672 = -57344, S.11110.11.
  EXPECT_EQ(amprt::quantizeFp8(2.0f, 224.0f, Fp8Format::E4M3FN), 0x7e);
  EXPECT_EQ(amprt::quantizeFp8(-2.0f, 28672.0f, Fp8Format::E5M2), 0xfb);
  // 1 * 224 = 1.75 * 2^7: biased exponent 14, fraction 110.
  EXPECT_EQ(amprt::quantizeFp8(1.0f, 224.0f, Fp8Format::E4M3FN), 0x76);
  // Beyond the range saturates (a delayed scale's overflow).
  EXPECT_EQ(amprt::quantizeFp8(3.0f, 224.0f, Fp8Format::E4M3FN), 0x7e);
  EXPECT_EQ(amprt::quantizeFp8(-INFINITY, 1.0f, Fp8Format::E5M2), 0xfb);
  EXPECT_TRUE(std::isnan(amprt::fp8BitsToFloat(
      amprt::quantizeFp8(NAN, 1.0f, Fp8Format::E4M3FN), Fp8Format::E4M3FN)));
  // The product is rounded to f32 first: 0.1f * 3 is 0.3000000119..., which
  // e4m3fn rounds to 0.3125 (0.28125 and 0.3125 its neighbours).
  EXPECT_EQ(
      amprt::fp8BitsToFloat(amprt::quantizeFp8(0.1f, 3.0f, Fp8Format::E4M3FN),
                            Fp8Format::E4M3FN),
      0.3125f);
  EXPECT_EQ(amprt::fp8BitsToFloat(0x7e, Fp8Format::E4M3FN), 448.0f);
  EXPECT_EQ(amprt::fp8BitsToFloat(0x7b, Fp8Format::E5M2), 57344.0f);
}

} // namespace
