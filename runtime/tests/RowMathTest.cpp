//===- RowMathTest.cpp - the row ops' math against textbook math ----------===//
//
// amp_runtime/row_math.h is what the interpreter, the runtime's host backend
// and the generated code compute for softmax, the norms and cross-entropy;
// here it meets oracles written apart from it: the textbook formulas in
// long double (softmax without the max shift, the variance as a mean of
// squared deviations), the gradients as vector-Jacobian products of the
// textbook Jacobians (themselves checked against finite differences), and
// values worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/float_formats.h"
#include "amp_runtime/row_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <utility>
#include <vector>

namespace {

/// The host's row context: the order of a GPU's warp (RowContextTest).
const amprt::HostRow kRow;

using Exact = std::vector<long double>;

//===----------------------------------------------------------------------===//
// Oracles
//===----------------------------------------------------------------------===//

Exact textbookSoftmax(const Exact &x) {
  long double total = 0;
  for (long double v : x)
    total += std::exp(v);
  Exact p;
  for (long double v : x)
    p.push_back(std::exp(v) / total);
  return p;
}

Exact textbookLogSoftmax(const Exact &x) {
  Exact p = textbookSoftmax(x);
  for (long double &v : p)
    v = std::log(v);
  return p;
}

/// The mean (0 when not `centered`) and the variance about it of x.
std::pair<long double, long double> textbookMoments(const Exact &x,
                                                    bool centered) {
  long double n = x.size(), mean = 0, var = 0;
  if (centered) {
    for (long double v : x)
      mean += v;
    mean /= n;
  }
  for (long double v : x)
    var += (v - mean) * (v - mean);
  return {mean, var / n};
}

/// (x - mean) / sqrt(var + eps) * w + b, or for RMS norm (not `centered`)
/// x / sqrt(mean(x^2) + eps) * w; an empty w or b is absent.
Exact textbookNorm(const Exact &x, const Exact &w, const Exact &b,
                   long double eps, bool centered) {
  auto [mean, var] = textbookMoments(x, centered);
  Exact y;
  for (size_t j = 0; j < x.size(); ++j) {
    long double v = (x[j] - mean) / std::sqrt(var + eps);
    y.push_back(v * (w.empty() ? 1 : w[j]) + (b.empty() ? 0 : b[j]));
  }
  return y;
}

long double textbookCrossEntropy(const Exact &x, size_t label) {
  return -std::log(textbookSoftmax(x)[label]);
}

using Matrix = std::vector<Exact>;

/// The textbook Jacobians J[i][j] = dy_i / dx_j, at x:
/// softmax p_i (δij - p_j); log_softmax δij - p_j; layer norm
/// (δij - 1/n - y_i y_j / n) / sigma; RMS norm (δij - y_i y_j / n) / rms.
Matrix softmaxJacobian(const Exact &x, bool log) {
  Exact p = textbookSoftmax(x);
  Matrix jacobian(x.size(), Exact(x.size()));
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = 0; j < x.size(); ++j)
      jacobian[i][j] = (log ? 1 : p[i]) * ((i == j) - p[j]);
  return jacobian;
}

Matrix normJacobian(const Exact &x, long double eps, bool centered) {
  long double n = x.size();
  long double sigma = std::sqrt(textbookMoments(x, centered).second + eps);
  Exact y = textbookNorm(x, Exact(), Exact(), eps, centered);
  Matrix jacobian(x.size(), Exact(x.size()));
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = 0; j < x.size(); ++j)
      jacobian[i][j] =
          ((i == j) - (centered ? 1 / n : 0) - y[i] * y[j] / n) / sigma;
  return jacobian;
}

/// g^T J: the gradient of g . y with respect to x.
Exact vectorJacobian(const Exact &g, const Matrix &jacobian) {
  Exact out(jacobian.empty() ? 0 : jacobian[0].size());
  for (size_t i = 0; i < g.size(); ++i)
    for (size_t j = 0; j < out.size(); ++j)
      out[j] += g[i] * jacobian[i][j];
  return out;
}

/// The same by five-point central differences of `f`, a check of the
/// Jacobians above (to about 1e-12: the differences' own truncation).
Exact finiteDifferences(Exact x, const Exact &g,
                        const std::function<Exact(const Exact &)> &f) {
  Exact out;
  for (size_t j = 0; j < x.size(); ++j) {
    long double saved = x[j], h = 1e-3L;
    auto at = [&](long double offset) {
      x[j] = saved + offset;
      Exact y = f(x);
      long double d = 0;
      for (size_t i = 0; i < g.size(); ++i)
        d += g[i] * y[i];
      return d;
    };
    long double d = -at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h);
    x[j] = saved;
    out.push_back(d / (12 * h));
  }
  return out;
}

void expectOracleAgrees(const Exact &analytic, const Exact &numeric) {
  for (size_t j = 0; j < analytic.size(); ++j)
    EXPECT_NEAR(static_cast<double>(analytic[j]),
                static_cast<double>(numeric[j]), 1e-9)
        << "the test's own Jacobian at j = " << j;
}

//===----------------------------------------------------------------------===//
// Rows as the callers hand them over
//===----------------------------------------------------------------------===//

/// Values that f32 holds exactly, so T and long double start equal.
template <typename T> std::vector<T> randomRow(std::mt19937 &rng, size_t n) {
  std::uniform_real_distribution<double> dist(-3, 3);
  std::vector<T> row;
  for (size_t i = 0; i < n; ++i)
    row.push_back(static_cast<float>(dist(rng)));
  return row;
}

template <typename T> Exact exact(const std::vector<T> &row) {
  return Exact(row.begin(), row.end());
}

/// A Load over `row`, as the interpreter and the generated code pass them.
template <typename T> auto loadOf(const std::vector<T> &row) {
  return [&row](int64_t j) { return row[j]; };
}

/// A Store into `row`.
template <typename T> auto storeTo(std::vector<T> &row) {
  return [&row](int64_t j, T value) { row[j] = value; };
}

/// The tolerance of a T result against the exact one: the rounding errors
/// of sums over a row of `n` grow with n, relative to the magnitude of the
/// row (at least 1).
template <typename T> long double tolerance(size_t n, long double scale) {
  long double ulp = sizeof(T) == 4 ? 0x1p-23L : 0x1p-52L;
  return 4 * (n + 4) * ulp * std::max(1.0L, scale);
}

template <typename T>
void expectClose(const std::vector<T> &got, const Exact &want) {
  ASSERT_EQ(got.size(), want.size());
  long double scale = 0;
  for (long double v : want)
    scale = std::max(scale, std::fabs(v));
  for (size_t j = 0; j < got.size(); ++j)
    EXPECT_NEAR(static_cast<double>(got[j]), static_cast<double>(want[j]),
                static_cast<double>(tolerance<T>(got.size(), scale)))
        << "j = " << j << " of " << got.size() << ", T of " << sizeof(T)
        << " bytes";
}

template <typename T> class RowMathTest : public ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RowMathTest, ScalarTypes);

const size_t kLengths[] = {1, 2, 7, 31, 32, 33, 64, 129, 1000};

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

TEST(RowMathByHand, Softmax) {
  std::vector<float> x = {0, 0, 0, 0}, y(4);
  amprt::softmaxRow<float>(kRow, 4, loadOf(x), storeTo(y), /*log=*/false);
  for (float v : y)
    EXPECT_EQ(v, 0.25f);
  // The maximum is subtracted first: e^1000 overflows, the result does not.
  x = {1000, 1000};
  y.resize(2);
  amprt::softmaxRow<float>(kRow, 2, loadOf(x), storeTo(y), /*log=*/false);
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[1], 0.5f);
  // log_softmax of (0, ln 3): log(1/4) and log(3/4).
  std::vector<double> z = {0, std::log(3.0)}, logY(2);
  amprt::softmaxRow<double>(kRow, 2, loadOf(z), storeTo(logY), /*log=*/true);
  EXPECT_NEAR(logY[0], -1.3862943611198906, 1e-15);
  EXPECT_NEAR(logY[1], -0.2876820724517809, 1e-15);
}

TEST(RowMathByHand, SoftmaxStatistics) {
  std::vector<double> x = {1, 3, 2};
  amprt::SoftmaxStats<double> stats =
      amprt::softmaxStats<double>(kRow, 3, loadOf(x));
  EXPECT_EQ(stats.max, 3.0);
  // e^-2 + e^0 + e^-1.
  EXPECT_NEAR(stats.expSum, 1.5032147244080551, 1e-15);
}

TEST(RowMathByHand, SoftmaxPropagatesNan) {
  std::vector<float> x = {1, NAN, 2}, y(3);
  amprt::softmaxRow<float>(kRow, 3, loadOf(x), storeTo(y), /*log=*/false);
  for (float v : y)
    EXPECT_TRUE(std::isnan(v));
  EXPECT_TRUE(std::isnan(amprt::maxOrNaN(NAN, 1.0f)));
  EXPECT_TRUE(std::isnan(amprt::maxOrNaN(1.0f, NAN)));
  EXPECT_EQ(amprt::maxOrNaN(-INFINITY, 2.0f), 2.0f);
}

TYPED_TEST(RowMathTest, SoftmaxMatchesTextbook) {
  using T = TypeParam;
  std::mt19937 rng(1);
  for (size_t n : kLengths)
    for (bool log : {false, true}) {
      std::vector<T> x = randomRow<T>(rng, n), y(n);
      amprt::softmaxRow<T>(kRow, n, loadOf(x), storeTo(y), log);
      expectClose(y, log ? textbookLogSoftmax(exact(x))
                         : textbookSoftmax(exact(x)));
    }
}

TEST(RowMathByHand, SoftmaxGrad) {
  // y = (1/2, 1/2), g = (1, 0): sum g y = 1/2, dx = y (g - 1/2).
  std::vector<double> y = {0.5, 0.5}, g = {1, 0}, dx(2);
  amprt::softmaxGradRow<double>(kRow, 2, loadOf(y), loadOf(g), storeTo(dx),
                                false);
  EXPECT_EQ(dx[0], 0.25);
  EXPECT_EQ(dx[1], -0.25);
  // log_softmax at the same point: y = ln(1/2), dx = g - 1/2 * sum(g).
  y = {std::log(0.5), std::log(0.5)};
  amprt::softmaxGradRow<double>(kRow, 2, loadOf(y), loadOf(g), storeTo(dx),
                                true);
  EXPECT_NEAR(dx[0], 0.5, 1e-16);
  EXPECT_NEAR(dx[1], -0.5, 1e-16);
}

TYPED_TEST(RowMathTest, SoftmaxGradMatchesTextbookJacobian) {
  using T = TypeParam;
  std::mt19937 rng(2);
  for (size_t n : kLengths)
    for (bool log : {false, true}) {
      std::vector<T> x = randomRow<T>(rng, n), g = randomRow<T>(rng, n);
      auto forward = log ? textbookLogSoftmax : textbookSoftmax;
      // The forward's output in T, as the op receives it.
      Exact exactY = forward(exact(x));
      std::vector<T> y(exactY.begin(), exactY.end()), dx(n);
      amprt::softmaxGradRow<T>(kRow, n, loadOf(y), loadOf(g), storeTo(dx), log);
      Exact want = vectorJacobian(exact(g), softmaxJacobian(exact(x), log));
      expectOracleAgrees(want, finiteDifferences(exact(x), exact(g), forward));
      expectClose(dx, want);
    }
}

//===----------------------------------------------------------------------===//
// Layer norm and RMS norm
//===----------------------------------------------------------------------===//

TEST(RowMathByHand, LayerNorm) {
  // (1, 2, 3, 4): mean 5/2, variance 5/4.
  std::vector<double> x = {1, 2, 3, 4}, y(4);
  amprt::layerNormRow<double>(kRow, 4, loadOf(x), false, amprt::NoOperand(),
                              false, amprt::NoOperand(), 0.0, storeTo(y));
  const double r = std::sqrt(1.25);
  EXPECT_DOUBLE_EQ(y[0], -1.5 / r);
  EXPECT_DOUBLE_EQ(y[1], -0.5 / r);
  EXPECT_DOUBLE_EQ(y[2], 0.5 / r);
  EXPECT_DOUBLE_EQ(y[3], 1.5 / r);
  // Times the weight, plus the bias.
  std::vector<double> w = {2, 2, 2, 2}, b = {1, 0, 0, -1};
  amprt::layerNormRow<double>(kRow, 4, loadOf(x), true, loadOf(w), true,
                              loadOf(b), 0.0, storeTo(y));
  EXPECT_DOUBLE_EQ(y[0], 1 - 3 / r);
  EXPECT_DOUBLE_EQ(y[3], 3 / r - 1);
  // A constant row is all zeros: 0 / sqrt(eps).
  x = {7, 7, 7, 7};
  amprt::layerNormRow<double>(kRow, 4, loadOf(x), false, amprt::NoOperand(),
                              false, amprt::NoOperand(), 1e-5, storeTo(y));
  for (double v : y)
    EXPECT_EQ(v, 0.0);
}

TEST(RowMathByHand, RmsNorm) {
  // (3, 4): mean square 25/2.
  std::vector<double> x = {3, 4}, y(2);
  amprt::rmsNormRow<double>(kRow, 2, loadOf(x), false, amprt::NoOperand(), 0.0,
                            storeTo(y));
  EXPECT_DOUBLE_EQ(y[0], 3 / std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(y[1], 4 / std::sqrt(12.5));
  std::vector<double> w = {0.5, -1};
  amprt::rmsNormRow<double>(kRow, 2, loadOf(x), true, loadOf(w), 0.0,
                            storeTo(y));
  EXPECT_DOUBLE_EQ(y[0], 1.5 / std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(y[1], -4 / std::sqrt(12.5));
}

TEST(RowMathByHand, NormStatistics) {
  std::vector<double> x = {1, 2, 3, 4};
  amprt::NormStats<double> layer =
      amprt::normStats<double>(kRow, 4, loadOf(x), 0.0, /*centered=*/true);
  EXPECT_EQ(layer.mean, 2.5);
  EXPECT_EQ(layer.deviation, std::sqrt(1.25));
  // RMS norm: the mean of the squares is 30/4.
  amprt::NormStats<double> rms =
      amprt::normStats<double>(kRow, 4, loadOf(x), 0.5, /*centered=*/false);
  EXPECT_EQ(rms.mean, 0.0);
  EXPECT_EQ(rms.deviation, std::sqrt(8.0));
}

TYPED_TEST(RowMathTest, NormsMatchTextbook) {
  using T = TypeParam;
  std::mt19937 rng(3);
  const T eps = static_cast<T>(1e-5);
  for (size_t n : kLengths) {
    std::vector<T> x = randomRow<T>(rng, n), w = randomRow<T>(rng, n),
                   b = randomRow<T>(rng, n), y(n);
    for (int present = 0; present < 4; ++present) {
      bool hasWeight = present & 1, hasBias = present & 2;
      Exact ew = hasWeight ? exact(w) : Exact(),
            eb = hasBias ? exact(b) : Exact();
      amprt::layerNormRow<T>(kRow, n, loadOf(x), hasWeight, loadOf(w), hasBias,
                             loadOf(b), eps, storeTo(y));
      expectClose(y, textbookNorm(exact(x), ew, eb, eps, /*centered=*/true));
      amprt::rmsNormRow<T>(kRow, n, loadOf(x), hasWeight, loadOf(w), eps,
                           storeTo(y));
      expectClose(y,
                  textbookNorm(exact(x), ew, Exact(), eps, /*centered=*/false));
    }
  }
}

TYPED_TEST(RowMathTest, NormGradsMatchTextbookJacobians) {
  using T = TypeParam;
  std::mt19937 rng(4);
  const T eps = static_cast<T>(1e-5);
  for (size_t n : kLengths)
    for (bool centered : {true, false}) {
      std::vector<T> x = randomRow<T>(rng, n), g = randomRow<T>(rng, n), dx(n);
      if (centered)
        amprt::layerNormGradRow<T>(kRow, n, loadOf(x), loadOf(g), eps,
                                   storeTo(dx));
      else
        amprt::rmsNormGradRow<T>(kRow, n, loadOf(x), loadOf(g), eps,
                                 storeTo(dx));
      Exact want =
          vectorJacobian(exact(g), normJacobian(exact(x), eps, centered));
      expectOracleAgrees(
          want, finiteDifferences(exact(x), exact(g), [&](const Exact &in) {
            return textbookNorm(in, Exact(), Exact(), eps, centered);
          }));
      expectClose(dx, want);
    }
}

TEST(RowMathByHand, LayerNormGradOfAConstantGradient) {
  // Layer norm's outputs sum to 0 whatever x is, so a gradient equal along
  // the row has no x-gradient.
  std::vector<double> x = {1, 2, 3, 4}, g = {5, 5, 5, 5}, dx(4);
  amprt::layerNormGradRow<double>(kRow, 4, loadOf(x), loadOf(g), 1e-5,
                                  storeTo(dx));
  for (double v : dx)
    EXPECT_NEAR(v, 0.0, 1e-14);
}

//===----------------------------------------------------------------------===//
// Cross-entropy
//===----------------------------------------------------------------------===//

TEST(RowMathByHand, CrossEntropy) {
  // Two equal logits: ln 2 either way; (0, ln 3) against 1: ln(4/3).
  std::vector<double> x = {0, 0};
  EXPECT_NEAR(
      amprt::crossEntropyRowLoss<double>(kRow, 2, loadOf(x), 0, false, 0),
      0.6931471805599453, 1e-16);
  x = {0, std::log(3.0)};
  EXPECT_NEAR(
      amprt::crossEntropyRowLoss<double>(kRow, 2, loadOf(x), 1, false, 0),
      0.2876820724517809, 1e-15);
  // The ignored label costs nothing, a label that is no class is NaN (an
  // ignore_index outside the classes is still ignored).
  EXPECT_EQ(amprt::crossEntropyRowLoss<double>(kRow, 2, loadOf(x), 1, true, 1),
            0.0);
  EXPECT_EQ(
      amprt::crossEntropyRowLoss<double>(kRow, 2, loadOf(x), -100, true, -100),
      0.0);
  EXPECT_TRUE(std::isnan(
      amprt::crossEntropyRowLoss<double>(kRow, 2, loadOf(x), 2, false, 0)));
  EXPECT_TRUE(std::isnan(
      amprt::crossEntropyRowLoss<double>(kRow, 2, loadOf(x), -1, true, -100)));
}

TEST(RowMathByHand, CrossEntropyGrad) {
  // softmax (1/2, 1/2) minus the one-hot of label 0, times 3.
  std::vector<double> x = {0, 0}, dx(2);
  amprt::crossEntropyGradRow<double>(kRow, 2, loadOf(x), 0, false, 0, 3.0,
                                     storeTo(dx));
  EXPECT_EQ(dx[0], -1.5);
  EXPECT_EQ(dx[1], 1.5);
  // Ignored rows are zeros, rows whose label is no class NaNs.
  amprt::crossEntropyGradRow<double>(kRow, 2, loadOf(x), 7, true, 7, 3.0,
                                     storeTo(dx));
  EXPECT_EQ(dx[0], 0.0);
  EXPECT_EQ(dx[1], 0.0);
  amprt::crossEntropyGradRow<double>(kRow, 2, loadOf(x), 2, true, 7, 3.0,
                                     storeTo(dx));
  EXPECT_TRUE(std::isnan(dx[0]));
  EXPECT_TRUE(std::isnan(dx[1]));
  // The scale of a mean divides by the rows that count.
  EXPECT_EQ(amprt::crossEntropyGradScale(3.0, /*mean=*/true, 4), 0.75);
  EXPECT_EQ(amprt::crossEntropyGradScale(3.0, /*mean=*/false, 4), 3.0);
}

TYPED_TEST(RowMathTest, CrossEntropyLossAndGradGivesTheLossOfItsOwn) {
  // The loss of the one pass is crossEntropyRowLoss's, bit for bit, for a
  // class, an ignored label and a label that is no class (the gradient is
  // crossEntropyGradRow's, which the tests above and below check).
  using T = TypeParam;
  std::mt19937 rng(9);
  for (size_t n : kLengths)
    for (int64_t label : {static_cast<int64_t>(rng() % n), int64_t(-100),
                          static_cast<int64_t>(n)}) {
      std::vector<T> x = randomRow<T>(rng, n), dx(n);
      T loss = amprt::crossEntropyRowLossAndGrad<T>(
          kRow, n, loadOf(x), label, true, -100, static_cast<T>(0.75),
          storeTo(dx));
      T want =
          amprt::crossEntropyRowLoss<T>(kRow, n, loadOf(x), label, true, -100);
      if (label == static_cast<int64_t>(n))
        EXPECT_TRUE(std::isnan(static_cast<double>(loss)) &&
                    std::isnan(static_cast<double>(want)));
      else
        EXPECT_EQ(loss, want) << "n " << n << " label " << label;
    }
}

TYPED_TEST(RowMathTest, CrossEntropyMatchesTextbook) {
  using T = TypeParam;
  std::mt19937 rng(5);
  for (size_t n : kLengths) {
    std::vector<T> x = randomRow<T>(rng, n), dx(n);
    size_t label = rng() % n;
    T loss = amprt::crossEntropyRowLoss<T>(kRow, n, loadOf(x), label, false, 0);
    long double want = textbookCrossEntropy(exact(x), label);
    EXPECT_NEAR(static_cast<double>(loss), static_cast<double>(want),
                static_cast<double>(tolerance<T>(n, want)));
    // The gradient of loss * scale: (softmax - one-hot) * scale.
    const T scale = static_cast<T>(0.75);
    amprt::crossEntropyGradRow<T>(kRow, n, loadOf(x), label, true, -100, scale,
                                  storeTo(dx));
    Exact p = textbookSoftmax(exact(x));
    p[label] -= 1;
    for (long double &v : p)
      v *= scale;
    expectOracleAgrees(
        p, finiteDifferences(exact(x), {scale}, [&](const Exact &in) {
          return Exact{textbookCrossEntropy(in, label)};
        }));
    expectClose(dx, p);
  }
}

//===----------------------------------------------------------------------===//
// Callers' element access
//===----------------------------------------------------------------------===//

TEST(RowMathByHand, LoadsWidenAndStoresRound) {
  // As the generated code calls it: a row of f16 bits in a [2, 3] buffer,
  // the row picked by the loads' index arithmetic, each store rounding to
  // f16 once.
  std::vector<uint16_t> in, out(6);
  for (float v : {9.f, 9.f, 9.f, 0.f, 0.f, 0.f})
    in.push_back(amprt::floatToHalfBits(v));
  const int64_t i = 1;
  amprt::softmaxRow<float>(
      kRow, 3, [&](int64_t j) { return amprt::halfBitsToFloat(in[i * 3 + j]); },
      [&](int64_t j, float v) { out[i * 3 + j] = amprt::floatToHalfBits(v); },
      /*log=*/false);
  for (int64_t j = 0; j < 3; ++j) {
    EXPECT_EQ(out[j], 0u) << "row 0 is not written";
    EXPECT_EQ(out[i * 3 + j], amprt::floatToHalfBits(1.0f / 3.0f));
  }
}

} // namespace
