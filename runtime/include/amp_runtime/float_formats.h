/*===- float_formats.h - fp16 and bf16 storage and rounding ------*- C++ -*-===
 *
 * The 16-bit floating-point formats amp-mlir stores, and exact conversions
 * between them and f32/f64 (and, below, the two FP8 formats):
 *
 *   format  sign  exponent  mantissa  bias  max finite     min subnormal
 *   fp16     1      5         10       15   65504          2^-24
 *   bf16     1      8          7      127   ~3.39e38       2^-133
 *
 * Narrowing conversions round to nearest, ties to even, with subnormals
 * (no flush to zero); values that round beyond the largest finite number
 * become infinities; NaNs stay NaNs (quiet, sign kept). Conversions from f64
 * round once, directly: f64 -> f32 -> f16 could round twice.
 *
 * Header-only and free of LLVM so that the interpreter, the runtime and the
 * generated kernels share one definition. Functions are AMP_HOST_DEVICE so
 * that CUDA code can call them too.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_FLOAT_FORMATS_H
#define AMP_RUNTIME_FLOAT_FORMATS_H

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define AMP_HOST_DEVICE __host__ __device__
#else
#define AMP_HOST_DEVICE
#endif

namespace amprt {

/// Parameters of a binary floating-point format narrower than f64.
struct FloatFormat {
  int mantissaBits; ///< Stored fraction bits.
  int exponentBits;
  int bias;
};

constexpr FloatFormat kHalfFormat{10, 5, 15};
constexpr FloatFormat kBFloat16Format{7, 8, 127};

/// `from`'s bits as a `To` of the same size (C++20's std::bit_cast).
template <typename To, typename From>
AMP_HOST_DEVICE inline To bitCast(From from) {
  static_assert(sizeof(To) == sizeof(From), "bitCast keeps the size");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

AMP_HOST_DEVICE inline uint64_t doubleToBits(double value) {
  return bitCast<uint64_t>(value);
}
AMP_HOST_DEVICE inline double bitsToDouble(uint64_t bits) {
  return bitCast<double>(bits);
}
AMP_HOST_DEVICE inline uint32_t floatToBits(float value) {
  return bitCast<uint32_t>(value);
}
AMP_HOST_DEVICE inline float bitsToFloat(uint32_t bits) {
  return bitCast<float>(bits);
}

/// Rounds `value` to `format` (to nearest, ties to even) and returns its
/// bits. Works on the exact f64 value, so any f32 or f64 input rounds once.
AMP_HOST_DEVICE inline uint16_t roundToFormat(double value,
                                              FloatFormat format) {
  const int m = format.mantissaBits;
  const uint16_t expMask =
      static_cast<uint16_t>(((1u << format.exponentBits) - 1u) << m);
  const uint16_t sign =
      std::signbit(value)
          ? static_cast<uint16_t>(1u << (m + format.exponentBits))
          : 0;
  if (std::isnan(value)) // Quiet NaN: exponent all ones, top fraction bit.
    return static_cast<uint16_t>(sign | expMask | (1u << (m - 1)));
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude))
    return static_cast<uint16_t>(sign | expMask);
  if (magnitude == 0.0)
    return sign;

  const int minExponent = 1 - format.bias; // Of the smallest normal.
  const int maxExponent = format.bias;     // Of the largest finite.
  int exponent;
  std::frexp(magnitude, &exponent); // magnitude = f * 2^exponent, f in [0.5, 1)
  exponent -= 1;                    // magnitude = g * 2^exponent, g in [1, 2)
  if (exponent < minExponent)
    exponent = minExponent; // Subnormal: fixed quantum 2^(minExponent - m).
  // Scaling by a power of two is exact; nearbyint rounds half to even in the
  // default floating-point environment.
  double quanta = std::nearbyint(std::ldexp(magnitude, m - exponent));
  if (quanta >= std::ldexp(1.0, m + 1)) { // Rounded up to the next binade.
    quanta /= 2;
    exponent += 1;
  }
  if (exponent > maxExponent)
    return static_cast<uint16_t>(sign | expMask);
  const uint64_t q = static_cast<uint64_t>(quanta);
  const uint64_t implicitBit = uint64_t(1) << m;
  if (q < implicitBit) // Subnormal (or rounded to zero): biased exponent 0.
    return static_cast<uint16_t>(sign | q);
  const uint64_t biased = static_cast<uint64_t>(exponent + format.bias);
  return static_cast<uint16_t>(sign | (biased << m) | (q - implicitBit));
}

/// The exact value of a bit pattern of `format`.
AMP_HOST_DEVICE inline double formatBitsToDouble(uint16_t bits,
                                                 FloatFormat format) {
  const int m = format.mantissaBits;
  const uint32_t fraction = bits & ((1u << m) - 1u);
  const uint32_t biased = (bits >> m) & ((1u << format.exponentBits) - 1u);
  const bool negative = (bits >> (m + format.exponentBits)) & 1u;
  double magnitude;
  if (biased == (1u << format.exponentBits) - 1u)
    magnitude = fraction ? NAN : INFINITY;
  else if (biased == 0)
    magnitude = std::ldexp(static_cast<double>(fraction), 1 - format.bias - m);
  else
    magnitude = std::ldexp(static_cast<double>(fraction | (1u << m)),
                           static_cast<int>(biased) - format.bias - m);
  return negative ? -magnitude : magnitude;
}

AMP_HOST_DEVICE inline uint16_t doubleToHalfBits(double value) {
  return roundToFormat(value, kHalfFormat);
}
/// The same rounding as roundToFormat, on the bits of the f32 (the hot
/// path of every f16 store): the 13 low fraction bits are rounded away,
/// ties to even; below 2^-14 the quantum is the subnormal one, 2^-24.
AMP_HOST_DEVICE inline uint16_t floatToHalfBits(float value) {
  const uint32_t bits = floatToBits(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) // NaN: quiet, the payload dropped.
    return static_cast<uint16_t>(sign | 0x7e00u);
  if (magnitude >= 0x477ff000u) // 65520 and up (ties to even) and inf.
    return static_cast<uint16_t>(sign | 0x7c00u);
  // Rounds `quotient + remainder / 2^shift` to an integer, ties to even.
  auto roundShifted = [](uint32_t mantissa, uint32_t shift) {
    uint32_t quotient = mantissa >> shift;
    uint32_t remainder = mantissa & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1u);
    if (remainder > half || (remainder == half && (quotient & 1u)))
      ++quotient;
    return quotient;
  };
  const uint32_t exponent = magnitude >> 23;
  if (exponent < 113) { // Below 2^-14: a subnormal half, or zero.
    if (exponent < 102) // Below 2^-25: rounds to zero.
      return sign;
    uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    return static_cast<uint16_t>(sign | roundShifted(mantissa, 126 - exponent));
  }
  // A normal half; a carry out of the fraction moves into the exponent.
  uint32_t rebased = ((exponent - 112u) << 23) | (magnitude & 0x7fffffu);
  return static_cast<uint16_t>(sign | roundShifted(rebased, 13));
}
AMP_HOST_DEVICE inline double halfBitsToDouble(uint16_t bits) {
  return formatBitsToDouble(bits, kHalfFormat);
}
/// Every fp16 value is exact in f32: the fields move over (the exponent
/// rebiased from 15 to 127), subnormals are fraction * 2^-24, and NaNs stay
/// NaN, made quiet, with their sign.
AMP_HOST_DEVICE inline float halfBitsToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t fraction = bits & 0x3ffu;
  if (exponent == 0x1f)
    return bitsToFloat(sign | 0x7f800000u |
                       (fraction ? 0x400000u | (fraction << 13) : 0u));
  if (exponent != 0)
    return bitsToFloat(sign | ((exponent + 112u) << 23) | (fraction << 13));
  float magnitude = static_cast<float>(fraction) * 0x1p-24f;
  return sign ? -magnitude : magnitude;
}

AMP_HOST_DEVICE inline uint16_t doubleToBFloat16Bits(double value) {
  return roundToFormat(value, kBFloat16Format);
}
/// bf16 is the top half of f32: round the low 16 bits away, ties to even.
AMP_HOST_DEVICE inline uint16_t floatToBFloat16Bits(float value) {
  uint32_t bits = floatToBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep sign, make it quiet.
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7fffu + lsb) >> 16);
}
AMP_HOST_DEVICE inline float bfloat16BitsToFloat(uint16_t bits) {
  return bitsToFloat(static_cast<uint32_t>(bits) << 16);
}
AMP_HOST_DEVICE inline double bfloat16BitsToDouble(uint16_t bits) {
  return bfloat16BitsToFloat(bits);
}

/// Rounds to the nearest fp16 value, returned as f32.
AMP_HOST_DEVICE inline float roundToHalf(float value) {
  return halfBitsToFloat(floatToHalfBits(value));
}
/// Rounds to the nearest bf16 value, returned as f32.
AMP_HOST_DEVICE inline float roundToBFloat16(float value) {
  return bfloat16BitsToFloat(floatToBFloat16Bits(value));
}

//===----------------------------------------------------------------------===//
// FP8
//===----------------------------------------------------------------------===//
//
//   format   sign  exponent  mantissa  bias  max finite  min subnormal
//   e4m3fn    1      4          3        7      448        2^-9
//   e5m2      1      5          2       15    57344        2^-16
//
// e5m2 follows IEEE (infinities, NaNs with exponent all ones). e4m3fn
// ("finite") has no infinities: exponent all ones is a normal binade but
// for its top pattern, S.1111.111, the one NaN of each sign; hence 448 =
// 1.75 * 2^8. Rounding is to nearest, ties to even, with subnormals, as in
// PyTorch's casts to float8_e4m3fn and float8_e5m2. What a value beyond
// the largest finite one becomes is the caller's choice:
//   - not saturating (PyTorch's plain cast): e4m3fn gives NaN (464, the tie
//     between 448 and 480, rounds to even, 448; anything above is NaN),
//     e5m2 gives infinity (from 61440, the tie with 2^16);
//   - saturating (what scaled FP8 casts do: torchao clamps to +-max before
//     the cast, Transformer Engine and cuBLASLt convert with SATFINITE):
//     +-max, infinities included. NaN stays NaN either way.

/// Rounds `value` to e5m2 and returns its bits.
AMP_HOST_DEVICE inline uint8_t doubleToE5M2Bits(double value, bool saturate) {
  const uint16_t bits = roundToFormat(value, FloatFormat{2, 5, 15});
  if (saturate && (bits & 0x7fu) == 0x7cu) // An infinity: +-57344.
    return static_cast<uint8_t>((bits & 0x80u) | 0x7bu);
  return static_cast<uint8_t>(bits);
}

/// Rounds `value` to e4m3fn and returns its bits.
AMP_HOST_DEVICE inline uint8_t doubleToE4M3FNBits(double value, bool saturate) {
  const uint8_t sign = std::signbit(value) ? 0x80u : 0u;
  if (std::isnan(value))
    return static_cast<uint8_t>(sign | 0x7fu);
  const double magnitude = std::fabs(value);
  // Beyond 464 (and infinities): NaN, or the largest finite value.
  if (magnitude > 464.0)
    return static_cast<uint8_t>(sign | (saturate ? 0x7eu : 0x7fu));
  // Below that it rounds as an IEEE format whose top binade is normal.
  // Half the value in IEEE's 3-bit-fraction format of bias 8 (5 exponent
  // bits, so that nothing up to 232 overflows there) has the same
  // quanta, subnormal ones included, and the same biased exponent and
  // fraction fields as the value in e4m3fn: halving is exact.
  const uint16_t wide = roundToFormat(magnitude / 2, FloatFormat{3, 5, 8});
  return static_cast<uint8_t>(sign | wide); // exponent field below 16
}

/// The exact value of an e5m2 bit pattern.
AMP_HOST_DEVICE inline double e5m2BitsToDouble(uint8_t bits) {
  return formatBitsToDouble(bits, FloatFormat{2, 5, 15});
}

/// The exact value of an e4m3fn bit pattern.
AMP_HOST_DEVICE inline double e4m3fnBitsToDouble(uint8_t bits) {
  const bool negative = bits & 0x80u;
  if ((bits & 0x7fu) == 0x7fu)
    return negative ? -NAN : NAN;
  const uint32_t biased = (bits >> 3) & 0xfu, fraction = bits & 0x7u;
  const double magnitude =
      biased == 0 ? std::ldexp(static_cast<double>(fraction), -9)
                  : std::ldexp(static_cast<double>(fraction | 0x8u),
                               static_cast<int>(biased) - 10);
  return negative ? -magnitude : magnitude;
}

//===----------------------------------------------------------------------===//
// Per-tensor scaled FP8 (current, "tensorwise" scaling)
//===----------------------------------------------------------------------===//
//
// A tensor x goes to FP8 as q = sat(f32(x * s)), s = f32(max / max(amax,
// 1e-12)) from amax = max |x| over the whole tensor (torchao's tensorwise
// recipe: the quotient in f64, rounded once to f32; the product in f32;
// clamped to +-max, then rounded to the format). A GEMM of two such
// tensors multiplies its f32 sum by f32(1/s_a) * f32(1/s_b). A NaN in x
// makes amax, s and every q NaN: the product's result is NaN, which the
// loss scaler's check sees.

enum class Fp8Format : uint8_t { E4M3FN, E5M2 };

/// The largest finite value of `format`.
AMP_HOST_DEVICE inline double fp8Max(Fp8Format format) {
  return format == Fp8Format::E4M3FN ? 448.0 : 57344.0;
}

/// The scale that maps `amax` to `format`'s largest finite value.
AMP_HOST_DEVICE inline float fp8ScaleFromAmax(float amax, Fp8Format format) {
  const double clamped = std::isnan(amax)
                             ? static_cast<double>(amax)
                             : std::fmax(static_cast<double>(amax), 1e-12);
  return static_cast<float>(fp8Max(format) / clamped);
}

/// Delayed scaling's target: f32(max) * 2^-margin in f32, the value a
/// scale maps the amax to (Transformer Engine's `scaled_max`).
inline float fp8ScaledMax(Fp8Format format, double margin) {
  return static_cast<float>(fp8Max(format)) *
         std::pow(2.0f, static_cast<float>(-margin));
}

/// `value` times `scale` in f32, saturated to `format` and rounded: the
/// bits of the FP8 value.
AMP_HOST_DEVICE inline uint8_t quantizeFp8(float value, float scale,
                                           Fp8Format format) {
  const double scaled = static_cast<double>(value * scale);
  return format == Fp8Format::E4M3FN ? doubleToE4M3FNBits(scaled, true)
                                     : doubleToE5M2Bits(scaled, true);
}

/// The exact value of `format`'s bit pattern `bits`, as an f32 (every FP8
/// value is one).
AMP_HOST_DEVICE inline float fp8BitsToFloat(uint8_t bits, Fp8Format format) {
  return static_cast<float>(format == Fp8Format::E4M3FN
                                ? e4m3fnBitsToDouble(bits)
                                : e5m2BitsToDouble(bits));
}

/// 16-bit storage types: a bit pattern, converted explicitly.
struct Half {
  uint16_t bits;
  AMP_HOST_DEVICE static Half fromFloat(float value) {
    return Half{floatToHalfBits(value)};
  }
  AMP_HOST_DEVICE float toFloat() const { return halfBitsToFloat(bits); }
};

struct BFloat16 {
  uint16_t bits;
  AMP_HOST_DEVICE static BFloat16 fromFloat(float value) {
    return BFloat16{floatToBFloat16Bits(value)};
  }
  AMP_HOST_DEVICE float toFloat() const { return bfloat16BitsToFloat(bits); }
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2,
              "16-bit storage types must be 2 bytes");

} // namespace amprt

#endif // AMP_RUNTIME_FLOAT_FORMATS_H
