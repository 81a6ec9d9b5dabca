//===- GemmTest.cpp - matrix products with epilogues ----------------------===//
//
// Every product against a triple loop in double written here, with the
// epilogue applied from its definition; the tolerance is the f32
// accumulation bound (k ulps of the sum of |a b|) plus one rounding of the
// output type. Runs on the host device and, when present, on a GPU.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/gemm.h"
#include "amp_runtime/float_formats.h"
#include "amp_runtime/scalar_math.h"

#include "KernelTest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

/// Values of a type, kept both as their storage bits and as doubles.
struct Matrix {
  amp_dtype_t dtype;
  std::vector<double> values;
  std::vector<uint16_t> half; // f16 / bf16 storage
  std::vector<float> single;  // f32 storage
};

Matrix randomMatrix(std::mt19937 &rng, amp_dtype_t dtype, size_t count,
                    double spread) {
  std::uniform_real_distribution<double> dist(-spread, spread);
  Matrix m{dtype, {}, {}, {}};
  for (size_t i = 0; i < count; ++i) {
    double v = roundTo(dtype, dist(rng));
    m.values.push_back(v);
    if (dtype == AMP_F32)
      m.single.push_back(static_cast<float>(v));
    else
      m.half.push_back(dtype == AMP_F16
                           ? amprt::floatToHalfBits(static_cast<float>(v))
                           : amprt::floatToBFloat16Bits(static_cast<float>(v)));
  }
  return m;
}

double decode(amp_dtype_t dtype, const void *data, size_t i) {
  if (dtype == AMP_F32)
    return static_cast<const float *>(data)[i];
  uint16_t bits = static_cast<const uint16_t *>(data)[i];
  return dtype == AMP_F16 ? amprt::halfBitsToFloat(bits)
                          : amprt::bfloat16BitsToFloat(bits);
}

double gelu(double x) {
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

class GemmTest : public KernelTest {
protected:
  void *uploadMatrix(const Matrix &m) {
    return m.dtype == AMP_F32 ? static_cast<void *>(upload(m.single))
                              : static_cast<void *>(upload(m.half));
  }
  std::vector<double> downloadMatrix(void *data, amp_dtype_t dtype,
                                     size_t count) {
    std::vector<double> out;
    if (dtype == AMP_F32) {
      std::vector<float> v = download(static_cast<float *>(data), count);
      out.assign(v.begin(), v.end());
    } else {
      std::vector<uint16_t> v = download(static_cast<uint16_t *>(data), count);
      for (size_t i = 0; i < count; ++i)
        out.push_back(decode(dtype, v.data(), i));
    }
    return out;
  }

  /// Runs `g` on random data and checks every output element.
  void check(amp_gemm_t g) {
    std::mt19937 rng(static_cast<unsigned>(g.m * 131 + g.n * 7 + g.k +
                                           g.trans_a * 2 + g.trans_b));
    size_t aCount = g.batch * g.m * g.k, bCount = g.batch * g.k * g.n,
           cCount = g.batch * g.m * g.n;
    Matrix a = randomMatrix(rng, g.ab_dtype, aCount, 2);
    Matrix b = randomMatrix(rng, g.ab_dtype, bCount, 2);
    Matrix c = randomMatrix(rng, g.c_dtype, cCount, 1);
    Matrix bias = randomMatrix(rng, g.c_dtype, g.n, 1);
    void *da = uploadMatrix(a), *db = uploadMatrix(b), *dc = uploadMatrix(c);
    void *dbias =
        g.epilogue == AMP_EPILOGUE_NONE ? nullptr : uploadMatrix(bias);
    ASSERT_EQ(amp_gemm(stream, &g, da, db, dbias, dc), nullptr);
    std::vector<double> got = downloadMatrix(dc, g.c_dtype, cCount);
    for (int64_t s = 0; s < g.batch; ++s)
      for (int64_t i = 0; i < g.m; ++i)
        for (int64_t j = 0; j < g.n; ++j) {
          double sum = 0, magnitude = 0;
          for (int64_t p = 0; p < g.k; ++p) {
            double av = a.values[s * g.m * g.k +
                                 (g.trans_a ? p * g.m + i : i * g.k + p)];
            double bv = b.values[s * g.k * g.n +
                                 (g.trans_b ? j * g.k + p : p * g.n + j)];
            sum += av * bv;
            magnitude += std::fabs(av * bv);
          }
          size_t index = s * g.m * g.n + i * g.n + j;
          double want = g.alpha * sum + g.beta * c.values[index];
          if (g.epilogue != AMP_EPILOGUE_NONE)
            want += bias.values[j];
          if (g.epilogue == AMP_EPILOGUE_BIAS_RELU)
            want = std::max(want, 0.0);
          if (g.epilogue == AMP_EPILOGUE_BIAS_GELU)
            want = gelu(want);
          double tolerance =
              g.k * 0x1p-23 * (std::fabs(g.alpha) * magnitude + 4) +
              2 * unitRoundoff(g.c_dtype) * std::fabs(want) + 1e-6;
          ASSERT_NEAR(got[index], want, tolerance)
              << "batch " << s << " at " << i << "," << j;
        }
  }
};

TEST_P(GemmTest, F32EveryTransposeBatched) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      SCOPED_TRACE("trans_a " + std::to_string(ta) + " trans_b " +
                   std::to_string(tb));
      check({AMP_F32, AMP_F32, ta, tb, 7, 33, 19, 3, 1.5f, 0.5f,
             AMP_EPILOGUE_NONE});
    }
}

TEST_P(GemmTest, HalfInputsAccumulateInF32) {
  // k = 300 sums of products near 1: an f16 accumulator would drift by far
  // more than the tolerance.
  check(
      {AMP_F16, AMP_F32, 0, 0, 16, 24, 300, 1, 1.0f, 0.0f, AMP_EPILOGUE_NONE});
  check(
      {AMP_BF16, AMP_F32, 1, 0, 16, 24, 300, 2, 1.0f, 0.0f, AMP_EPILOGUE_NONE});
}

TEST_P(GemmTest, EpiloguesInLowPrecisionOutputs) {
  check({AMP_F16, AMP_F16, 0, 1, 32, 40, 64, 1, 1.0f, 0.0f, AMP_EPILOGUE_BIAS});
  check({AMP_F16, AMP_F16, 0, 0, 32, 40, 64, 1, 0.5f, 0.0f,
         AMP_EPILOGUE_BIAS_RELU});
  check({AMP_BF16, AMP_BF16, 0, 0, 32, 40, 64, 2, 0.25f, 0.0f,
         AMP_EPILOGUE_BIAS_GELU});
  check({AMP_F32, AMP_F32, 1, 1, 5, 300, 17, 1, 1.0f, 1.0f,
         AMP_EPILOGUE_BIAS_GELU});
}

TEST_P(GemmTest, BadArgumentsAreRejected) {
  float *x = upload(std::vector<float>(16));
  auto expectInvalid = [&](amp_gemm_t g, const void *bias,
                           const char *fragment) {
    expectInvalidArgument(amp_gemm(stream, &g, x, x, bias, x), fragment);
  };
  amp_gemm_t ok{AMP_F32, AMP_F32, 0, 0, 2, 2, 2, 1, 1, 0, AMP_EPILOGUE_NONE};
  amp_gemm_t g = ok;
  g.c_dtype = AMP_BF16;
  g.ab_dtype = AMP_F16;
  expectInvalid(g, nullptr, "unsupported dtypes");
  g = ok;
  g.k = 0;
  expectInvalid(g, nullptr, "k, batch >= 1");
  g = ok;
  g.m = INT64_MAX / 2;
  expectInvalid(g, nullptr, "overflow");
  expectInvalid(ok, x, "a bias without a bias epilogue");
  g = ok;
  g.epilogue = AMP_EPILOGUE_BIAS;
  expectInvalid(g, nullptr, "a bias epilogue without a bias");
  g.epilogue = static_cast<amp_epilogue_t>(9);
  expectInvalid(g, x, "unknown epilogue");
  amp_status_t status = amp_gemm(stream, &ok, nullptr, x, nullptr, x);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
  // An empty output is nothing to do.
  g = ok;
  g.m = 0;
  EXPECT_EQ(amp_gemm(stream, &g, nullptr, nullptr, nullptr, nullptr), nullptr);
}

/// `value` of storage type `dtype` scaled as an FP8 GEMM operand: its value
/// in f64 after float_formats.h's quantizeFp8 (checked against LLVM's
/// APFloat in FloatFormatsTest).
double quantized(double value, float scale, amprt::Fp8Format format) {
  return amprt::fp8BitsToFloat(
      amprt::quantizeFp8(static_cast<float>(value), scale, format), format);
}

// FP8 GEMMs against a product in f64 of operands quantized here from the
// definition (amax over every batch, scale, rounding): every layout, both
// formats, a bias epilogue; the scales the GEMM leaves at its scratch's head
// exactly. The tolerance is the f32 accumulation bound: cuBLASLt's FP8
// kernels sum in their own order.
TEST_P(GemmTest, Fp8ProductsOfTensorwiseScaledOperands) {
  std::mt19937 rng(7);
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      SCOPED_TRACE("trans_a " + std::to_string(ta) + " trans_b " +
                   std::to_string(tb));
      amp_gemm_t g{AMP_BF16,
                   tb ? AMP_F32 : AMP_BF16,
                   ta,
                   tb,
                   32,
                   48,
                   64,
                   2,
                   1.0f,
                   0.0f,
                   ta ? AMP_EPILOGUE_BIAS : AMP_EPILOGUE_NONE};
      g.a_fp8 = AMP_FP8_E4M3;
      g.b_fp8 = ta && tb ? AMP_FP8_E4M3 : AMP_FP8_E5M2;
      size_t aCount = g.batch * g.m * g.k, bCount = g.batch * g.k * g.n,
             cCount = g.batch * g.m * g.n;
      Matrix a = randomMatrix(rng, g.ab_dtype, aCount, 3);
      Matrix b = randomMatrix(rng, g.ab_dtype, bCount, 0.01);
      Matrix bias = randomMatrix(rng, g.c_dtype, g.n, 1);
      Matrix c = randomMatrix(rng, g.c_dtype, cCount, 1);
      int64_t scratchBytes = amp_gemm_fp8_scratch_bytes(&g);
      ASSERT_EQ(scratchBytes, 256 + 4096 + 6144);
      auto *scratch = upload(std::vector<float>(scratchBytes / 4));
      g.fp8_scratch = scratch;
      void *da = uploadMatrix(a), *db = uploadMatrix(b), *dc = uploadMatrix(c);
      void *dbias = ta ? uploadMatrix(bias) : nullptr;
      ASSERT_EQ(amp_gemm(stream, &g, da, db, dbias, dc), nullptr);
      std::vector<double> got = downloadMatrix(dc, g.c_dtype, cCount);
      std::vector<float> head = download(scratch, 6);

      auto amaxOf = [](const Matrix &m) {
        double amax = 0;
        for (double v : m.values)
          amax = std::max(amax, std::fabs(v));
        return amax;
      };
      amprt::Fp8Format aFormat = amprt::Fp8Format::E4M3FN;
      amprt::Fp8Format bFormat = g.b_fp8 == AMP_FP8_E4M3
                                     ? amprt::Fp8Format::E4M3FN
                                     : amprt::Fp8Format::E5M2;
      float aScale = static_cast<float>(448.0 / amaxOf(a));
      float bScale = static_cast<float>(
          (bFormat == amprt::Fp8Format::E4M3FN ? 448.0 : 57344.0) / amaxOf(b));
      EXPECT_EQ(head[0], static_cast<float>(amaxOf(a)));
      EXPECT_EQ(head[1], static_cast<float>(amaxOf(b)));
      EXPECT_EQ(head[2], aScale);
      EXPECT_EQ(head[3], bScale);
      EXPECT_EQ(head[4], 1.0f / aScale);
      EXPECT_EQ(head[5], 1.0f / bScale);
      double dequant = static_cast<double>((1.0f / aScale) * (1.0f / bScale));
      for (int64_t s = 0; s < g.batch; ++s)
        for (int64_t i = 0; i < g.m; ++i)
          for (int64_t j = 0; j < g.n; ++j) {
            double sum = 0, magnitude = 0;
            for (int64_t p = 0; p < g.k; ++p) {
              double av =
                  quantized(a.values[s * g.m * g.k +
                                     (g.trans_a ? p * g.m + i : i * g.k + p)],
                            aScale, aFormat);
              double bv =
                  quantized(b.values[s * g.k * g.n +
                                     (g.trans_b ? j * g.k + p : p * g.n + j)],
                            bScale, bFormat);
              sum += av * bv;
              magnitude += std::fabs(av * bv);
            }
            double want = dequant * sum + (ta ? bias.values[j] : 0.0);
            double tolerance = g.k * 0x1p-23 * dequant * magnitude +
                               2 * unitRoundoff(g.c_dtype) * std::fabs(want) +
                               1e-6;
            size_t index = s * g.m * g.n + i * g.n + j;
            ASSERT_NEAR(got[index], want, tolerance)
                << "batch " << s << " at " << i << "," << j;
          }
    }
}

TEST_P(GemmTest, BadFp8ArgumentsAreRejected) {
  float *x = upload(std::vector<float>(4096));
  amp_gemm_t ok{AMP_BF16, AMP_BF16,         0, 0, 16, 16, 16, 1, 1,
                0,        AMP_EPILOGUE_NONE};
  ok.a_fp8 = AMP_FP8_E4M3;
  ok.b_fp8 = AMP_FP8_E4M3;
  ok.fp8_scratch = x;
  auto expectInvalid = [&](amp_gemm_t g, const char *fragment) {
    expectInvalidArgument(amp_gemm(stream, &g, x, x, nullptr, x), fragment);
  };
  amp_gemm_t g = ok;
  g.b_fp8 = AMP_FP8_NONE;
  expectInvalid(g, "both must be set");
  g = ok;
  g.a_fp8 = g.b_fp8 = AMP_FP8_E5M2;
  expectInvalid(g, "not both e5m2");
  g = ok;
  g.b_fp8 = static_cast<amp_fp8_t>(7);
  expectInvalid(g, "both must be set");
  g = ok;
  g.n = 10;
  expectInvalid(g, "multiples of 16");
  g = ok;
  g.beta = 1;
  expectInvalid(g, "beta 0");
  g = ok;
  g.fp8_scratch = nullptr;
  expectInvalid(g, "needs its scratch");
  g = ok;
  g.a_scale = x;
  expectInvalid(g, "both a_scale and b_scale");
  g = ok;
  g.a_fp8 = g.b_fp8 = AMP_FP8_NONE;
  g.a_scale = g.b_scale = x;
  expectInvalid(g, "FP8 GEMMs only");
}

// Delayed scaling: the operands multiplied by the scales given (no amax
// computed), a value past the format's range saturated, the sum times the
// f32 inverses; checked against float_formats.h's rounding in f64.
TEST_P(GemmTest, Fp8GivenScalesSaturateWhatOverflows) {
  std::mt19937 rng(11);
  amp_gemm_t g{AMP_BF16, AMP_F32,          0, 1, 16, 32, 48, 1, 1.0f,
               0.0f,     AMP_EPILOGUE_NONE};
  g.a_fp8 = AMP_FP8_E4M3;
  g.b_fp8 = AMP_FP8_E5M2;
  size_t aCount = g.m * g.k, bCount = g.k * g.n, cCount = g.m * g.n;
  Matrix a = randomMatrix(rng, g.ab_dtype, aCount, 3);
  Matrix b = randomMatrix(rng, g.ab_dtype, bCount, 0.01);
  Matrix c = randomMatrix(rng, g.c_dtype, cCount, 1);
  // A's scale maps 2 to 448: the values above 2 in magnitude saturate.
  const float aScale = 224.0f, bScale = 4096.0f;
  float *scales = upload(std::vector<float>{aScale, bScale});
  g.a_scale = scales;
  g.b_scale = scales + 1;
  auto *scratch =
      upload(std::vector<float>(amp_gemm_fp8_scratch_bytes(&g) / 4));
  g.fp8_scratch = scratch;
  void *da = uploadMatrix(a), *db = uploadMatrix(b), *dc = uploadMatrix(c);
  ASSERT_EQ(amp_gemm(stream, &g, da, db, nullptr, dc), nullptr);
  std::vector<double> got = downloadMatrix(dc, g.c_dtype, cCount);
  std::vector<float> head = download(scratch, 6);
  EXPECT_EQ(head[0], 0.0f); // no amax computed
  EXPECT_EQ(head[1], 0.0f);
  EXPECT_EQ(head[2], aScale);
  EXPECT_EQ(head[3], bScale);
  EXPECT_EQ(head[4], 1.0f / aScale);
  EXPECT_EQ(head[5], 1.0f / bScale);
  int saturated = 0;
  for (double v : a.values)
    saturated += std::fabs(v) * aScale > 448;
  EXPECT_GT(saturated, 0);
  double dequant = static_cast<double>((1.0f / aScale) * (1.0f / bScale));
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < g.k; ++p) {
        double av =
            quantized(a.values[i * g.k + p], aScale, amprt::Fp8Format::E4M3FN);
        double bv =
            quantized(b.values[j * g.k + p], bScale, amprt::Fp8Format::E5M2);
        EXPECT_LE(std::fabs(av), 448.0);
        sum += av * bv;
        magnitude += std::fabs(av * bv);
      }
      double want = dequant * sum;
      double tolerance = g.k * 0x1p-23 * dequant * magnitude + 1e-6;
      ASSERT_NEAR(got[i * g.n + j], want, tolerance) << i << "," << j;
    }
}

// amp_fp8_cast: both layouts and the amax by hand, outputs left out when
// null; a GEMM of operands cast before gives the bits of the GEMM that
// casts them itself.
TEST_P(GemmTest, Fp8CastsShareTheGemmsBits) {
  float *input = upload(std::vector<float>{1, 3, 0.5f, -700, 0, 2});
  float *scale = upload(std::vector<float>{64.0f});
  auto *data = upload(std::vector<uint8_t>(6));
  auto *transposed = upload(std::vector<uint8_t>(6));
  float *amax = upload(std::vector<float>{-1.0f});
  amp_fp8_cast_t cast{AMP_F32, 2, 3, AMP_FP8_E4M3, scale};
  ASSERT_EQ(amp_fp8_cast(stream, &cast, input, data, transposed, amax),
            nullptr);
  auto values = [&](uint8_t *bytes) {
    std::vector<float> out;
    for (uint8_t bits : download(bytes, 6))
      out.push_back(amprt::fp8BitsToFloat(bits, amprt::Fp8Format::E4M3FN));
    return out;
  };
  // x 64: [64, 192, 32, -44800 (saturated to -448), 0, 128].
  EXPECT_EQ(values(data), (std::vector<float>{64, 192, 32, -448, 0, 128}));
  EXPECT_EQ(values(transposed),
            (std::vector<float>{64, -448, 192, 0, 32, 128}));
  EXPECT_EQ(download(amax, 1)[0], 700.0f);
  auto *only = upload(std::vector<uint8_t>(6));
  ASSERT_EQ(amp_fp8_cast(stream, &cast, input, only, nullptr, nullptr),
            nullptr);
  EXPECT_EQ(values(only), values(data));

  std::mt19937 rng(13);
  amp_gemm_t g{AMP_BF16, AMP_BF16,         0, 1, 16, 48, 32, 1, 1.0f,
               0.0f,     AMP_EPILOGUE_NONE};
  g.a_fp8 = AMP_FP8_E5M2;
  g.b_fp8 = AMP_FP8_E4M3;
  Matrix a = randomMatrix(rng, g.ab_dtype, g.m * g.k, 0.01);
  Matrix b = randomMatrix(rng, g.ab_dtype, g.n * g.k, 2);
  float *scales = upload(std::vector<float>{8192.0f, 128.0f});
  g.a_scale = scales;
  g.b_scale = scales + 1;
  void *da = uploadMatrix(a), *db = uploadMatrix(b);
  auto *scratch =
      upload(std::vector<float>(amp_gemm_fp8_scratch_bytes(&g) / 4));
  g.fp8_scratch = scratch;
  void *whole = uploadMatrix(randomMatrix(rng, g.c_dtype, g.m * g.n, 1));
  ASSERT_EQ(amp_gemm(stream, &g, da, db, nullptr, whole), nullptr);

  auto *qa = upload(std::vector<uint8_t>(g.m * g.k));
  auto *qb = upload(std::vector<uint8_t>(g.n * g.k));
  amp_fp8_cast_t castA{AMP_BF16, g.m, g.k, AMP_FP8_E5M2, scales};
  amp_fp8_cast_t castB{AMP_BF16, g.n, g.k, AMP_FP8_E4M3, scales + 1};
  ASSERT_EQ(amp_fp8_cast(stream, &castA, da, qa, nullptr, nullptr), nullptr);
  ASSERT_EQ(amp_fp8_cast(stream, &castB, db, qb, nullptr, nullptr), nullptr);
  amp_gemm_t precast = g;
  precast.fp8_operands = 1;
  EXPECT_EQ(amp_gemm_fp8_scratch_bytes(&precast), 256);
  void *split = uploadMatrix(randomMatrix(rng, g.c_dtype, g.m * g.n, 1));
  ASSERT_EQ(amp_gemm(stream, &precast, qa, qb, nullptr, split), nullptr);
  EXPECT_EQ(downloadMatrix(split, g.c_dtype, g.m * g.n),
            downloadMatrix(whole, g.c_dtype, g.m * g.n));

  amp_gemm_t bad = precast;
  bad.trans_b = 0;
  expectInvalidArgument(amp_gemm(stream, &bad, qa, qb, nullptr, split),
                        "K-major");
  bad = precast;
  bad.a_scale = bad.b_scale = nullptr;
  expectInvalidArgument(amp_gemm(stream, &bad, qa, qb, nullptr, split),
                        "K-major");
  amp_fp8_cast_t wrong = cast;
  wrong.format = AMP_FP8_NONE;
  expectInvalidArgument(
      amp_fp8_cast(stream, &wrong, input, data, transposed, amax), "format");
  wrong = cast;
  wrong.scale = nullptr;
  expectInvalidArgument(
      amp_fp8_cast(stream, &wrong, input, data, transposed, amax), "null");
}

// amp_fp8_amax and amp_fp8_scaling_update against values worked by hand
// (test/Interpreter/fp8-delayed.mlir works the same ones through the
// interpreter).
TEST_P(GemmTest, Fp8AmaxAndScalingUpdateByHand) {
  float *values = upload(std::vector<float>{0.5f, -7.25f, 3.0f, 0.0f});
  float *amax = upload(std::vector<float>{-1.0f, -1.0f, -1.0f});
  ASSERT_EQ(amp_fp8_amax(stream, AMP_F32, values, 4, amax), nullptr);
  ASSERT_EQ(amp_fp8_amax(stream, AMP_F32, values, 0, amax + 1), nullptr);
  float *withNan = upload(std::vector<float>{1.0f, NAN, 2.0f});
  ASSERT_EQ(amp_fp8_amax(stream, AMP_F32, withNan, 3, amax + 2), nullptr);
  std::vector<float> amaxes = download(amax, 3);
  EXPECT_EQ(amaxes[0], 7.25f);
  EXPECT_EQ(amaxes[1], 0.0f);
  EXPECT_TRUE(std::isnan(amaxes[2]));

  // Columns e4m3 and e5m2, 3 rows: scale [2, 1], history [[0, 0],
  // [5, 100], [7, 50]], amax [300, 60000]. Both casts overflowed (600 >
  // 448, 60000 > 57344); the maxima 300 and 60000 give 448 / 300 and
  // 57344 / 60000; the history rolls up a row, row 2 taking the amaxes.
  float *scale = upload(std::vector<float>{2.0f, 1.0f});
  float *history = upload(std::vector<float>{0, 0, 5, 100, 7, 50});
  float *overflows = upload(std::vector<float>{0.0f, 3.0f});
  float *stepAmax = upload(std::vector<float>{300.0f, 60000.0f});
  amp_fp8_scaling_t update{};
  update.columns = 2;
  update.rows = 3;
  update.formats[0] = AMP_FP8_E4M3;
  update.formats[1] = AMP_FP8_E5M2;
  update.amax[0] = stepAmax;
  update.amax[1] = stepAmax + 1;
  update.scaled_max[0] = 448.0f;
  update.scaled_max[1] = 57344.0f;
  ASSERT_EQ(amp_fp8_scaling_update(stream, &update, scale, history, overflows),
            nullptr);
  EXPECT_EQ(download(scale, 2),
            (std::vector<float>{448.0f / 300.0f, 57344.0f / 60000.0f}));
  EXPECT_EQ(download(history, 6),
            (std::vector<float>{0, 0, 7, 50, 300, 60000}));
  EXPECT_EQ(download(overflows, 2), (std::vector<float>{1.0f, 4.0f}));

  // The most recent amax, with scaled_max halved (margin 1).
  update.most_recent = 1;
  update.scaled_max[0] = 224.0f;
  update.scaled_max[1] = 28672.0f;
  float *stepAmax2 = upload(std::vector<float>{100.0f, 0.0f});
  update.amax[0] = stepAmax2;
  update.amax[1] = stepAmax2 + 1;
  ASSERT_EQ(amp_fp8_scaling_update(stream, &update, scale, history, overflows),
            nullptr);
  // Neither overflows (100 * 448 / 300 <= 448); an amax of 0 keeps the
  // e5m2 scale.
  EXPECT_EQ(download(scale, 2),
            (std::vector<float>{224.0f / 100.0f, 57344.0f / 60000.0f}));
  EXPECT_EQ(download(history, 6),
            (std::vector<float>{0, 0, 300, 60000, 100, 0}));
  EXPECT_EQ(download(overflows, 2), (std::vector<float>{1.0f, 4.0f}));

  amp_fp8_scaling_t bad = update;
  bad.columns = 5;
  expectInvalidArgument(
      amp_fp8_scaling_update(stream, &bad, scale, history, overflows),
      "columns");
  bad = update;
  bad.formats[1] = AMP_FP8_NONE;
  expectInvalidArgument(
      amp_fp8_scaling_update(stream, &bad, scale, history, overflows),
      "no FP8 format");
  bad = update;
  bad.scaled_max[0] = 0;
  expectInvalidArgument(
      amp_fp8_scaling_update(stream, &bad, scale, history, overflows),
      "scaled_max");
  expectInvalidArgument(amp_fp8_amax(stream, AMP_F32, nullptr, 4, amax),
                        "need a count");
}

/// The interpreter's product in its order: every output an f32 sum from 0
/// of rounded products over ascending p, then alpha, beta and the epilogue.
std::vector<float> interpreterOrder(const amp_gemm_t &g, const Matrix &a,
                                    const Matrix &b, const Matrix &c,
                                    const Matrix &bias) {
  std::vector<float> out;
  for (int64_t s = 0; s < g.batch; ++s)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        float sum = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          float av = static_cast<float>(
              a.values[s * g.m * g.k +
                       (g.trans_a ? p * g.m + i : i * g.k + p)]);
          float bv = static_cast<float>(
              b.values[s * g.k * g.n +
                       (g.trans_b ? j * g.k + p : p * g.n + j)]);
          float product = av * bv;
          sum += product;
        }
        float value = g.alpha * sum;
        if (g.beta != 0)
          value += g.beta *
                   static_cast<float>(c.values[s * g.m * g.n + i * g.n + j]);
        if (g.epilogue != AMP_EPILOGUE_NONE)
          value += static_cast<float>(bias.values[j]);
        if (g.epilogue == AMP_EPILOGUE_BIAS_RELU)
          value = value > 0 ? value : 0.0f;
        if (g.epilogue == AMP_EPILOGUE_BIAS_GELU)
          value = amprt::geluTanh(value);
        out.push_back(static_cast<float>(roundTo(g.c_dtype, value)));
      }
  return out;
}

// The host's blocked, threaded product gives the interpreter's bits: sizes
// past two blocks of rows (72), columns (256) and values of p (256), and
// not multiples of the 6 x 16 tile, with C summed in place (f32, alpha 1,
// beta 0, no epilogue) and through the epilogue.
TEST(HostGemmTest, MatchesTheInterpreterBitForBit) {
  amp_device_t *device = nullptr;
  amp_stream_t *stream = nullptr;
  ASSERT_EQ(amp_device_create(AMP_DEVICE_HOST, 0, &device), nullptr);
  ASSERT_EQ(amp_stream_create(device, &stream), nullptr);
  const amp_gemm_t cases[] = {
      {AMP_F32, AMP_F32, 0, 0, 150, 530, 600, 1, 1.0f, 0.0f, AMP_EPILOGUE_NONE},
      {AMP_F32, AMP_F32, 1, 1, 151, 301, 513, 2, 0.5f, 0.75f,
       AMP_EPILOGUE_NONE},
      // Summed in C itself, partial tiles at the bottom and the right.
      {AMP_F32, AMP_F32, 1, 0, 77, 45, 700, 2, 1.0f, 0.0f, AMP_EPILOGUE_NONE},
      // A linear layer's bias in f32.
      {AMP_F32, AMP_F32, 0, 0, 100, 70, 50, 1, 1.0f, 0.0f, AMP_EPILOGUE_BIAS},
      {AMP_F16, AMP_F32, 1, 0, 77, 259, 300, 1, 1.0f, 1.0f, AMP_EPILOGUE_BIAS},
      {AMP_BF16, AMP_BF16, 0, 1, 80, 270, 260, 1, 1.0f, 0.0f,
       AMP_EPILOGUE_BIAS_GELU},
      {AMP_F16, AMP_F16, 0, 0, 5, 17, 3, 3, 2.0f, 0.0f, AMP_EPILOGUE_BIAS_RELU},
  };
  for (const amp_gemm_t &g : cases) {
    SCOPED_TRACE("m " + std::to_string(g.m) + " n " + std::to_string(g.n) +
                 " k " + std::to_string(g.k));
    std::mt19937 rng(static_cast<unsigned>(g.m + g.n + g.k));
    Matrix a = randomMatrix(rng, g.ab_dtype, g.batch * g.m * g.k, 2);
    Matrix b = randomMatrix(rng, g.ab_dtype, g.batch * g.k * g.n, 2);
    Matrix c = randomMatrix(rng, g.c_dtype, g.batch * g.m * g.n, 1);
    Matrix bias = randomMatrix(rng, g.c_dtype, g.n, 1);
    auto data = [](Matrix &m) {
      return m.dtype == AMP_F32 ? static_cast<void *>(m.single.data())
                                : static_cast<void *>(m.half.data());
    };
    std::vector<float> want = interpreterOrder(g, a, b, c, bias);
    ASSERT_EQ(amp_gemm(stream, &g, data(a), data(b),
                       g.epilogue == AMP_EPILOGUE_NONE ? nullptr : data(bias),
                       data(c)),
              nullptr);
    for (size_t i = 0; i < want.size(); ++i) {
      float got = static_cast<float>(decode(g.c_dtype, data(c), i));
      ASSERT_EQ(amprt::floatToBits(got), amprt::floatToBits(want[i]))
          << "output " << i << ": " << got << " vs " << want[i];
    }
  }
  amp_stream_destroy(stream);
  amp_device_destroy(device);
}

INSTANTIATE_TEST_SUITE_P(Devices, GemmTest,
                         ::testing::Values(AMP_DEVICE_HOST, AMP_DEVICE_CUDA),
                         deviceName);

} // namespace
