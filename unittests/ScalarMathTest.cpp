//===- ScalarMathTest.cpp - the ops' scalar math against textbook math ----===//
//
// amp_runtime/scalar_math.h is what the interpreter, the runtime and the
// generated code compute; here it meets oracles written apart from it: the
// textbook formulas in f64 (with std::pow and the constants as expressions),
// central finite differences of them, and values worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/scalar_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

const double kPi = 3.14159265358979323846;

double textbookGeluErf(double x) {
  return x * 0.5 * (1 + std::erf(x / std::sqrt(2.0)));
}

double textbookGeluTanh(double x) {
  double inner = std::sqrt(2 / kPi) * (x + 0.044715 * std::pow(x, 3));
  return x * 0.5 * (1 + std::tanh(inner));
}

template <typename Fn> double centralDifference(Fn fn, double x) {
  const double h = 1e-5;
  return (fn(x + h) - fn(x - h)) / (2 * h);
}

const double kPoints[] = {-6.0, -3.0, -1.0, -0.5, -1e-3, 0.0,
                          0.25, 1.0,  2.0,  3.5,  8.0};

// The f32 tanh against the f64 one, on every 97th float from 0 to 12 (past
// 9.01, where it rounds to 1): within 1.05 ulps of the value, and odd.
TEST(ScalarMathTest, TanhIsWithinAnUlpAndAHairOfF64) {
  double worst = 0;
  for (uint32_t bits = 0; bits < 0x41400000u; bits += 97) {
    float x;
    std::memcpy(&x, &bits, sizeof x);
    double want = std::tanh(static_cast<double>(x));
    float got = amprt::math::tanh(x);
    double ulp =
        want == 0 ? 0x1p-149
                  : std::ldexp(1.0, std::ilogb(static_cast<float>(want)) - 23);
    worst = std::max(worst, std::fabs(got - want) / ulp);
    ASSERT_EQ(amprt::math::tanh(-x), -got) << x;
  }
  EXPECT_LE(worst, 1.05);
  EXPECT_GT(worst, 0.5); // the sample reaches values that do not round
}

TEST(ScalarMathTest, TanhAtItsEdges) {
  EXPECT_EQ(amprt::math::tanh(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(amprt::math::tanh(-0.0f)));
  EXPECT_EQ(amprt::math::tanh(1e-30f), 1e-30f);
  EXPECT_EQ(amprt::math::tanh(9.0f), 0.99999994f); // 1 - 3.05e-8 rounds down
  EXPECT_EQ(amprt::math::tanh(9.5f), 1.0f);
  EXPECT_EQ(amprt::math::tanh(-100.0f), -1.0f);
  EXPECT_EQ(amprt::math::tanh(INFINITY), 1.0f);
  EXPECT_EQ(amprt::math::tanh(-INFINITY), -1.0f);
  EXPECT_TRUE(std::isnan(amprt::math::tanh(NAN)));
  // tanh(0.5) = 0.46211715726000974 (e^1 - 1) / (e^1 + 1), to the nearest
  // f32 or one next to it, on each side of the switch at 0.8.
  EXPECT_NEAR(amprt::math::tanh(0.5f), 0.46211715726000974, 6e-8);
  EXPECT_NEAR(amprt::math::tanh(1.0f), 0.7615941559557649, 6e-8);
}

// The f32 exp against the f64 one, on every 61st float of either sign up
// to 128 in magnitude (past overflow and below the smallest subnormal
// result): within an ulp of the value where it is a float (in ulps of the
// subnormals where it is one), inf and 0 where the value rounds to them.
TEST(ScalarMathTest, ExpIsWithinAnUlpOfF64) {
  double worst = 0;
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t bits = 0; bits <= 0x43000000u; bits += 61) {
      float x;
      uint32_t withSign = bits | sign;
      std::memcpy(&x, &withSign, sizeof x);
      double want = std::exp(static_cast<double>(x));
      float got = amprt::math::exp(x);
      float rounded = static_cast<float>(want);
      if (std::isinf(rounded) || rounded == 0) {
        ASSERT_EQ(got, rounded) << x;
        continue;
      }
      double ulp = std::ldexp(1.0, std::max(std::ilogb(rounded), -126) - 23);
      worst = std::max(worst, std::fabs(got - want) / ulp);
      ASSERT_LE(worst, 1.0) << x;
    }
  EXPECT_GT(worst, 0.5); // the sample reaches values that do not round
}

TEST(ScalarMathTest, ExpAtItsEdges) {
  EXPECT_EQ(amprt::math::exp(0.0f), 1.0f);
  EXPECT_EQ(amprt::math::exp(-0.0f), 1.0f);
  // e = 2.718281828459045 rounds to 0x1.5bf0a8p+1 (2.71828174591).
  EXPECT_EQ(amprt::math::exp(1.0f), 0x1.5bf0a8p+1f);
  // ln(FLT_MAX) = 88.72283905206835: the float below it stays finite,
  // the one above overflows.
  EXPECT_TRUE(std::isfinite(amprt::math::exp(88.72283f)));
  EXPECT_EQ(amprt::math::exp(88.72284f), INFINITY);
  EXPECT_EQ(amprt::math::exp(INFINITY), INFINITY);
  EXPECT_EQ(amprt::math::exp(-INFINITY), 0.0f);
  // The smallest subnormal, 2^-149, is e^-103.279; half of it rounds to 0.
  EXPECT_EQ(amprt::math::exp(-103.2f), 0x1p-149f);
  EXPECT_EQ(amprt::math::exp(-104.0f), 0.0f);
  EXPECT_TRUE(std::isnan(amprt::math::exp(NAN)));
}

TEST(ScalarMathTest, GeluByHand) {
  // Phi(1) = 0.841344746..., Phi(-1) = 1 - Phi(1).
  EXPECT_NEAR(amprt::geluErf(1.0), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(amprt::geluErf(-1.0), -0.15865525393145707, 1e-15);
  EXPECT_EQ(amprt::geluErf(0.0), 0.0);
  EXPECT_EQ(amprt::geluTanh(0.0), 0.0);
  // gelu'(0) = Phi(0) = 1/2 in both forms.
  EXPECT_EQ(amprt::geluErfGrad(0.0), 0.5);
  EXPECT_EQ(amprt::geluTanhGrad(0.0), 0.5);
  // Far out, gelu is the identity (right) or zero (left).
  EXPECT_EQ(amprt::geluTanh(20.0f), 20.0f);
  EXPECT_EQ(amprt::geluErf(-20.0f), -0.0f);
}

TEST(ScalarMathTest, SoftplusByHand) {
  // ln 2, ln(1 + e), and ln(1 + e^-30) = e^-30 - e^-60 / 2 + ...
  // = 9.3576229688401746e-14 - 4.3782553813e-27.
  EXPECT_NEAR(amprt::softplus(0.0), 0.6931471805599453, 1e-16);
  EXPECT_NEAR(amprt::softplus(1.0), 1.3132616875182228, 1e-15);
  EXPECT_NEAR(amprt::softplus(-30.0), 9.3576229688397368e-14, 1e-28);
  // Above the threshold x itself: ln(1 + e^25) - 25 = 1.4e-11, below half
  // an f32 ulp of 25.
  EXPECT_EQ(amprt::softplus(25.0f), 25.0f);
  EXPECT_EQ(amprt::softplus(25.0), 25.0);
  EXPECT_EQ(amprt::softplus(100.0f), 100.0f); // e^100 overflows f32
  // Its derivative is the sigmoid: central differences in f64.
  for (double x : kPoints)
    EXPECT_NEAR(centralDifference(amprt::softplus<double>, x),
                1.0 / (1.0 + std::exp(-x)), 1e-9)
        << "x = " << x;
}

TEST(ScalarMathTest, GeluMatchesTextbookInF64) {
  for (double x : kPoints) {
    EXPECT_NEAR(amprt::geluErf(x), textbookGeluErf(x),
                1e-15 * (1 + std::fabs(x)))
        << "x = " << x;
    EXPECT_NEAR(amprt::geluTanh(x), textbookGeluTanh(x),
                1e-15 * (1 + std::fabs(x)))
        << "x = " << x;
  }
}

TEST(ScalarMathTest, GeluGradMatchesFiniteDifferences) {
  for (double x : kPoints) {
    EXPECT_NEAR(amprt::geluErfGrad(x), centralDifference(textbookGeluErf, x),
                1e-8)
        << "x = " << x;
    EXPECT_NEAR(amprt::geluTanhGrad(x), centralDifference(textbookGeluTanh, x),
                1e-8)
        << "x = " << x;
  }
}

TEST(ScalarMathTest, GeluInF32IsTheF64ValueRounded) {
  // Not bit-exact (each f32 operation rounds), but within a few ulps.
  for (double x : kPoints) {
    float xf = static_cast<float>(x);
    double tolerance = 4e-7 * (1 + std::fabs(x));
    EXPECT_NEAR(amprt::geluErf(xf), textbookGeluErf(xf), tolerance);
    EXPECT_NEAR(amprt::geluTanh(xf), textbookGeluTanh(xf), tolerance);
    EXPECT_NEAR(amprt::geluErfGrad(xf), centralDifference(textbookGeluErf, xf),
                1e-6);
    EXPECT_NEAR(amprt::geluTanhGrad(xf),
                centralDifference(textbookGeluTanh, xf), 1e-6);
  }
}

/// AdamW as the paper and torch.optim.AdamW write it, in f64.
struct TextbookAdamw {
  double lr, beta1, beta2, eps, weightDecay;
  double p, m = 0, v = 0;
  int t = 0;

  void step(double g) {
    ++t;
    p = p - lr * weightDecay * p;
    m = beta1 * m + (1 - beta1) * g;
    v = beta2 * v + (1 - beta2) * g * g;
    double mHat = m / (1 - std::pow(beta1, t));
    double vHat = v / (1 - std::pow(beta2, t));
    p = p - lr * mHat / (std::sqrt(vHat) + eps);
  }
};

TEST(ScalarMathTest, AdamwFirstStepByHand) {
  // p = 1, g = 0.5, lr = 1e-3, weight decay 1e-2: m = 0.05, v = 2.5e-4,
  // the bias-corrected m / sqrt(v) is 1, so p = 1 - 1e-5 - 1e-3 (up to eps).
  auto s = amprt::adamwScalars<double>(1e-3, 0.9, 0.999, 1e-8, 1e-2,
                                       /*step=*/0);
  double p = 1, m = 0, v = 0;
  amprt::adamwElement(s, p, 0.5, m, v);
  EXPECT_NEAR(m, 0.05, 1e-16);
  EXPECT_NEAR(v, 2.5e-4, 1e-18);
  EXPECT_NEAR(p, 1 - 1e-5 - 1e-3 * 0.5 / (0.5 + 1e-8), 1e-15);
}

TEST(ScalarMathTest, AdamwMatchesTextbookOverSteps) {
  // beta1 = 0.3 takes lerp's other branch (weight 0.7 >= 0.5).
  for (double beta1 : {0.9, 0.3}) {
    TextbookAdamw want{1e-2, beta1, 0.99, 1e-8, 0.1, /*p=*/-0.75};
    double p = want.p, m = 0, v = 0;
    float pf = static_cast<float>(want.p), mf = 0, vf = 0;
    const double grads[] = {0.5, -1.25, 3.0, 0.0, -0.01};
    for (int step = 0; step < 5; ++step) {
      want.step(grads[step]);
      amprt::adamwElement(
          amprt::adamwScalars<double>(1e-2, beta1, 0.99, 1e-8, 0.1, step), p,
          grads[step], m, v);
      amprt::adamwElement(
          amprt::adamwScalars<float>(1e-2, beta1, 0.99, 1e-8, 0.1, step), pf,
          static_cast<float>(grads[step]), mf, vf);
      EXPECT_NEAR(p, want.p, 1e-14) << "beta1 " << beta1 << " step " << step;
      EXPECT_NEAR(m, want.m, 1e-14);
      EXPECT_NEAR(v, want.v, 1e-14);
      EXPECT_NEAR(pf, want.p, 1e-6);
      EXPECT_NEAR(mf, want.m, 1e-6);
      EXPECT_NEAR(vf, want.v, 1e-6);
    }
  }
}

TEST(ScalarMathTest, SgdByHand) {
  // Plain SGD with weight decay: p - lr (g + wd p) = 2 - 0.1 (1 + 0.5 * 2).
  auto plain = amprt::sgdScalars<double>(0.1, 0, 0, 0.5, false);
  EXPECT_NEAR(amprt::sgdElement<double>(plain, 2, 1, nullptr, false), 1.8,
              1e-15);

  // Momentum 0.9, dampening 0.25: the buffer starts as the gradient, then
  // 0.9 buf + 0.75 g.
  auto heavy = amprt::sgdScalars<double>(0.1, 0.9, 0.25, 0, false);
  double buf = 123; // ignored on the first step
  double p = amprt::sgdElement(heavy, 1.0, 2.0, &buf, /*first=*/true);
  EXPECT_EQ(buf, 2.0);
  EXPECT_NEAR(p, 1 - 0.1 * 2, 1e-15);
  p = amprt::sgdElement(heavy, p, 4.0, &buf, /*first=*/false);
  EXPECT_NEAR(buf, 0.9 * 2 + 0.75 * 4, 1e-15);
  EXPECT_NEAR(p, 0.8 - 0.1 * 4.8, 1e-15);

  // Nesterov steps along g + momentum * buf.
  auto nesterov = amprt::sgdScalars<double>(0.1, 0.9, 0, 0, true);
  buf = 2.0;
  p = amprt::sgdElement(nesterov, 1.0, 4.0, &buf, /*first=*/false);
  EXPECT_NEAR(buf, 0.9 * 2 + 4, 1e-15);
  EXPECT_NEAR(p, 1 - 0.1 * (4 + 0.9 * 5.8), 1e-15);
}

TEST(ScalarMathTest, SgdWeightDecayZeroAddsNothing) {
  // weight_decay = 0 leaves d = g, even where 0 * p would be NaN.
  auto s = amprt::sgdScalars<float>(1, 0, 0, 0, false);
  EXPECT_EQ(amprt::sgdElement<float>(s, INFINITY, 1, nullptr, false), INFINITY);
}

TEST(ScalarMathTest, RowMomentsByHand) {
  // The row 1 2 3 4: mean 2.5, squared deviations 2.25 + 0.25 + 0.25 + 2.25.
  EXPECT_EQ(amprt::rowMean(10.0, 4.0), 2.5);
  EXPECT_EQ(amprt::rowDeviation(5.0, 4.0, 0.0), std::sqrt(1.25));
  // RMS norm of 3 4: sqrt((9 + 16) / 2).
  EXPECT_NEAR(amprt::rowDeviation(25.0f, 2.0f, 0.0f), std::sqrt(12.5), 1e-6);
}

} // namespace
