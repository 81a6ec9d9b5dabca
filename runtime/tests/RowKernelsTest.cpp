//===- RowKernelsTest.cpp - softmax, layer norm and cross-entropy rows ----===//
//
// Forward results against loops in double written here from the
// definitions; gradients against central finite differences of those f64
// forwards, so neither oracle shares code with the kernels. Runs on the host
// device and, when present, on a GPU.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/float_formats.h"
#include "amp_runtime/row_kernels.h"

#include "KernelTest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace {

using Row = std::vector<double>;

Row softmaxRef(const Row &x) {
  double m = -INFINITY;
  for (double v : x)
    m = std::max(m, v);
  double sum = 0;
  for (double v : x)
    sum += std::exp(v - m);
  Row y;
  for (double v : x)
    y.push_back(std::exp(v - m) / sum);
  return y;
}

Row layerNormRef(const Row &x, const Row &w, const Row &b, double eps) {
  double mean = 0, var = 0;
  for (double v : x)
    mean += v / x.size();
  for (double v : x)
    var += (v - mean) * (v - mean) / x.size();
  Row y;
  for (size_t c = 0; c < x.size(); ++c)
    y.push_back((x[c] - mean) / std::sqrt(var + eps) * w[c] + b[c]);
  return y;
}

Row rmsNormRef(const Row &x, const Row &w, double eps) {
  double squares = 0;
  for (double v : x)
    squares += v * v / x.size();
  Row y;
  for (size_t c = 0; c < x.size(); ++c)
    y.push_back(x[c] / std::sqrt(squares + eps) * w[c]);
  return y;
}

/// Central differences of a scalar function of `x`, in f64.
Row numericGradient(Row x, const std::function<double(const Row &)> &f) {
  Row g;
  for (size_t i = 0; i < x.size(); ++i) {
    double saved = x[i], h = 1e-6 * std::max(1.0, std::fabs(saved));
    x[i] = saved + h;
    double up = f(x);
    x[i] = saved - h;
    double down = f(x);
    x[i] = saved;
    g.push_back((up - down) / (2 * h));
  }
  return g;
}

double dot(const Row &a, const Row &b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i)
    sum += a[i] * b[i];
  return sum;
}

Row randomRow(std::mt19937 &rng, size_t n, double spread) {
  std::uniform_real_distribution<double> dist(-spread, spread);
  Row row;
  for (size_t i = 0; i < n; ++i)
    row.push_back(static_cast<float>(dist(rng))); // exact in f32
  return row;
}

/// `rows` rows of inputs (spread 3) and of output gradients (spread 1),
/// drawn a row of each at a time, appended to `x` and `g`.
void randomInputsAndGradients(std::mt19937 &rng, int64_t rows, size_t cols,
                              Row &x, Row &g) {
  for (int64_t r = 0; r < rows; ++r) {
    Row xr = randomRow(rng, cols, 3), gr = randomRow(rng, cols, 1);
    x.insert(x.end(), xr.begin(), xr.end());
    g.insert(g.end(), gr.begin(), gr.end());
  }
}

/// Row r of the `cols`-wide rows in `v`.
Row rowOf(const Row &v, int64_t r, int64_t cols) {
  return Row(v.begin() + r * cols, v.begin() + (r + 1) * cols);
}

std::vector<float> toFloat(const Row &row) {
  return std::vector<float>(row.begin(), row.end());
}

class RowKernelTest : public KernelTest {};

// 70 columns: two full warp strides and a ragged tail; 1 column: a lone lane.
const int64_t kCols[] = {70, 1, 32};

TEST_P(RowKernelTest, SoftmaxForwardMatchesDefinition) {
  std::mt19937 rng(1);
  for (int64_t cols : kCols)
    for (int log = 0; log < 2; ++log) {
      const int64_t rows = 11;
      Row x;
      for (int64_t r = 0; r < rows; ++r) {
        Row row = randomRow(rng, cols, 8);
        x.insert(x.end(), row.begin(), row.end());
      }
      float *dx = upload(toFloat(x));
      float *dy = upload(std::vector<float>(rows * cols));
      ASSERT_EQ(amp_softmax_forward(stream, {AMP_F32, rows, cols}, dx, dy, log),
                nullptr);
      std::vector<float> y = download(dy, rows * cols);
      for (int64_t r = 0; r < rows; ++r) {
        Row ref =
            softmaxRef(Row(x.begin() + r * cols, x.begin() + (r + 1) * cols));
        for (int64_t c = 0; c < cols; ++c) {
          double want = log ? std::log(ref[c]) : ref[c];
          EXPECT_NEAR(y[r * cols + c], want,
                      2e-6 * std::max(1.0, std::fabs(want)))
              << "cols " << cols << " log " << log << " at " << r << "," << c;
        }
      }
    }
}

TEST_P(RowKernelTest, SoftmaxHalfRoundsOnceAtTheStore) {
  // Inputs exact in f16; the output is the f64 softmax rounded once to f16
  // (one ulp of slack for f32 arithmetic landing on the other side of a tie).
  std::mt19937 rng(2);
  const int64_t rows = 4, cols = 45;
  Row x;
  std::vector<uint16_t> bits;
  for (int64_t i = 0; i < rows * cols; ++i) {
    uint16_t h =
        amprt::floatToHalfBits(static_cast<float>(randomRow(rng, 1, 6)[0]));
    bits.push_back(h);
    x.push_back(amprt::halfBitsToFloat(h));
  }
  uint16_t *dx = upload(bits);
  uint16_t *dy = upload(std::vector<uint16_t>(rows * cols));
  ASSERT_EQ(amp_softmax_forward(stream, {AMP_F16, rows, cols}, dx, dy, 0),
            nullptr);
  std::vector<uint16_t> y = download(dy, rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    Row ref = softmaxRef(Row(x.begin() + r * cols, x.begin() + (r + 1) * cols));
    for (int64_t c = 0; c < cols; ++c) {
      uint16_t want = amprt::floatToHalfBits(static_cast<float>(ref[c]));
      EXPECT_LE(std::abs(int(y[r * cols + c]) - int(want)), 1)
          << "at " << r << "," << c;
    }
  }
}

TEST_P(RowKernelTest, SoftmaxBackwardMatchesFiniteDifferences) {
  std::mt19937 rng(3);
  for (int log = 0; log < 2; ++log) {
    const int64_t cols = 37;
    Row x = randomRow(rng, cols, 3), g = randomRow(rng, cols, 1);
    auto forward = [&](const Row &in) {
      Row y = softmaxRef(in);
      if (log)
        for (double &v : y)
          v = std::log(v);
      return y;
    };
    Row want =
        numericGradient(x, [&](const Row &in) { return dot(forward(in), g); });
    float *dyOut = upload(toFloat(forward(x)));
    float *dg = upload(toFloat(g));
    float *dxOut = upload(std::vector<float>(cols));
    ASSERT_EQ(
        amp_softmax_backward(stream, {AMP_F32, 1, cols}, dyOut, dg, dxOut, log),
        nullptr);
    std::vector<float> got = download(dxOut, cols);
    for (int64_t c = 0; c < cols; ++c)
      EXPECT_NEAR(got[c], want[c], 1e-5) << "log " << log << " at " << c;
  }
}

TEST_P(RowKernelTest, SoftmaxPropagatesNanAndHandlesMinusInfinity) {
  std::vector<float> x = {1, NAN, 2, -INFINITY, 0, -INFINITY};
  float *dx = upload(x);
  float *dy = upload(std::vector<float>(6));
  ASSERT_EQ(amp_softmax_forward(stream, {AMP_F32, 2, 3}, dx, dy, 0), nullptr);
  std::vector<float> y = download(dy, 6);
  for (int c = 0; c < 3; ++c)
    EXPECT_TRUE(std::isnan(y[c])) << c;
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[4], 1.0f);
  EXPECT_EQ(y[5], 0.0f);
}

TEST_P(RowKernelTest, LayerNormForwardMatchesDefinition) {
  std::mt19937 rng(4);
  const int64_t rows = 9, cols = 70;
  const double eps = 1e-5;
  Row x, w = randomRow(rng, cols, 2), b = randomRow(rng, cols, 1);
  for (int64_t r = 0; r < rows; ++r) {
    Row row = randomRow(rng, cols, 4);
    // An offset far from zero tests the two-pass variance.
    for (double &v : row)
      v = static_cast<float>(v + 100 * r);
    x.insert(x.end(), row.begin(), row.end());
  }
  float *dx = upload(toFloat(x)), *dw = upload(toFloat(w)),
        *db = upload(toFloat(b));
  float *dy = upload(std::vector<float>(rows * cols));
  float *mean = upload(std::vector<float>(rows));
  float *rstd = upload(std::vector<float>(rows));
  ASSERT_EQ(amp_layer_norm_forward(stream, {AMP_F32, rows, cols}, dx, dw, db,
                                   eps, dy, mean, rstd),
            nullptr);
  std::vector<float> y = download(dy, rows * cols);
  std::vector<float> means = download(mean, rows);
  for (int64_t r = 0; r < rows; ++r) {
    Row in(x.begin() + r * cols, x.begin() + (r + 1) * cols);
    Row ref = layerNormRef(in, w, b, eps);
    double mu = 0;
    for (double v : in)
      mu += v / cols;
    EXPECT_NEAR(means[r], mu, 1e-4 * std::max(1.0, std::fabs(mu)));
    for (int64_t c = 0; c < cols; ++c)
      EXPECT_NEAR(y[r * cols + c], ref[c], 2e-4) << "at " << r << "," << c;
  }
  // Without weight, bias and statistics: the plain normalization.
  ASSERT_EQ(amp_layer_norm_forward(stream, {AMP_F32, rows, cols}, dx, nullptr,
                                   nullptr, eps, dy, nullptr, nullptr),
            nullptr);
  y = download(dy, rows * cols);
  Row ones(cols, 1), zeros(cols, 0);
  Row ref = layerNormRef(Row(x.begin(), x.begin() + cols), ones, zeros, eps);
  for (int64_t c = 0; c < cols; ++c)
    EXPECT_NEAR(y[c], ref[c], 2e-5) << c;
}

TEST_P(RowKernelTest, LayerNormBackwardMatchesFiniteDifferences) {
  std::mt19937 rng(5);
  const int64_t rows = 3, cols = 41;
  const double eps = 1e-5;
  Row w = randomRow(rng, cols, 2), b = randomRow(rng, cols, 1);
  Row x, g;
  randomInputsAndGradients(rng, rows, cols, x, g);
  // L = sum over rows of <g_r, layer_norm(x_r; w, b)>.
  auto loss = [&](const Row &xs, const Row &ws, const Row &bs) {
    double sum = 0;
    for (int64_t r = 0; r < rows; ++r)
      sum +=
          dot(rowOf(g, r, cols), layerNormRef(rowOf(xs, r, cols), ws, bs, eps));
    return sum;
  };
  Row wantX = numericGradient(x, [&](const Row &in) { return loss(in, w, b); });
  Row wantW = numericGradient(w, [&](const Row &in) { return loss(x, in, b); });
  Row wantB = numericGradient(b, [&](const Row &in) { return loss(x, w, in); });

  float *dx = upload(toFloat(x)), *dg = upload(toFloat(g)),
        *dw = upload(toFloat(w));
  float *gradX = upload(std::vector<float>(rows * cols));
  // dweight and dbias accumulate: start them at 1 and 2.
  float *gradW = upload(std::vector<float>(cols, 1.0f));
  float *gradB = upload(std::vector<float>(cols, 2.0f));
  ASSERT_EQ(amp_layer_norm_backward(stream, {AMP_F32, rows, cols}, dx, dg, dw,
                                    eps, gradX, gradW, gradB),
            nullptr);
  std::vector<float> gotX = download(gradX, rows * cols);
  std::vector<float> gotW = download(gradW, cols), gotB = download(gradB, cols);
  for (int64_t i = 0; i < rows * cols; ++i)
    EXPECT_NEAR(gotX[i], wantX[i], 2e-4) << "dx " << i;
  for (int64_t c = 0; c < cols; ++c) {
    EXPECT_NEAR(gotW[c], 1 + wantW[c], 2e-4) << "dweight " << c;
    EXPECT_NEAR(gotB[c], 2 + wantB[c], 2e-4) << "dbias " << c;
  }
}

TEST_P(RowKernelTest, RmsNormMatchesDefinitionAndFiniteDifferences) {
  std::mt19937 rng(7);
  const int64_t rows = 4, cols = 53;
  const double eps = 1e-6;
  Row w = randomRow(rng, cols, 2), x, g;
  randomInputsAndGradients(rng, rows, cols, x, g);
  float *dx = upload(toFloat(x)), *dg = upload(toFloat(g)),
        *dw = upload(toFloat(w));
  float *y = upload(std::vector<float>(rows * cols));
  float *rstd = upload(std::vector<float>(rows));
  ASSERT_EQ(
      amp_rms_norm_forward(stream, {AMP_F32, rows, cols}, dx, dw, eps, y, rstd),
      nullptr);
  std::vector<float> gotY = download(y, rows * cols);
  std::vector<float> gotRstd = download(rstd, rows);
  for (int64_t r = 0; r < rows; ++r) {
    Row ref = rmsNormRef(rowOf(x, r, cols), w, eps);
    for (int64_t c = 0; c < cols; ++c)
      EXPECT_NEAR(gotY[r * cols + c], ref[c], 2e-5) << r << "," << c;
    // rstd times x is the unweighted normalization.
    Row unweighted = rmsNormRef(rowOf(x, r, cols), Row(cols, 1), eps);
    EXPECT_NEAR(gotRstd[r] * rowOf(x, r, cols)[0], unweighted[0], 1e-5) << r;
  }

  auto loss = [&](const Row &xs, const Row &ws) {
    double sum = 0;
    for (int64_t r = 0; r < rows; ++r)
      sum += dot(rowOf(g, r, cols), rmsNormRef(rowOf(xs, r, cols), ws, eps));
    return sum;
  };
  Row wantX = numericGradient(x, [&](const Row &in) { return loss(in, w); });
  Row wantW = numericGradient(w, [&](const Row &in) { return loss(x, in); });
  float *gradX = upload(std::vector<float>(rows * cols));
  float *gradW = upload(std::vector<float>(cols, 0.5f));
  ASSERT_EQ(amp_rms_norm_backward(stream, {AMP_F32, rows, cols}, dx, dg, dw,
                                  eps, gradX, gradW),
            nullptr);
  std::vector<float> gotX = download(gradX, rows * cols);
  std::vector<float> gotW = download(gradW, cols);
  for (int64_t i = 0; i < rows * cols; ++i)
    EXPECT_NEAR(gotX[i], wantX[i], 2e-4) << "dx " << i;
  for (int64_t c = 0; c < cols; ++c)
    EXPECT_NEAR(gotW[c], 0.5 + wantW[c], 2e-4) << "dweight " << c;
}

TEST_P(RowKernelTest, CrossEntropyMatchesDefinitionAndFiniteDifferences) {
  std::mt19937 rng(6);
  const int64_t rows = 5, cols = 50;
  const float gradScale = 0.25f;
  Row logits;
  std::vector<int64_t> labels;
  for (int64_t r = 0; r < rows; ++r) {
    Row row = randomRow(rng, cols, 5);
    logits.insert(logits.end(), row.begin(), row.end());
    labels.push_back((r * 17) % cols);
  }
  auto rowLoss = [&](const Row &row, int64_t label) {
    return -std::log(softmaxRef(row)[label]);
  };
  float *dl = upload(toFloat(logits));
  int64_t *dlabels = upload(labels);
  float *losses = upload(std::vector<float>(rows));
  float *grads = upload(std::vector<float>(rows * cols));
  float *meanGrads = upload(std::vector<float>(rows * cols));
  float *scale = upload(std::vector<float>{gradScale});
  ASSERT_EQ(amp_cross_entropy(stream, {AMP_F32, rows, cols}, dl, dlabels,
                              losses, grads, scale, AMP_LOSS_SUM),
            nullptr);
  // The gradient of the mean, of a loss scaled by 1 (no grad_loss).
  ASSERT_EQ(amp_cross_entropy(stream, {AMP_F32, rows, cols}, dl, dlabels,
                              nullptr, meanGrads, nullptr, AMP_LOSS_MEAN),
            nullptr);
  std::vector<float> gotLoss = download(losses, rows);
  std::vector<float> gotGrad = download(grads, rows * cols);
  std::vector<float> gotMean = download(meanGrads, rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    Row row(logits.begin() + r * cols, logits.begin() + (r + 1) * cols);
    EXPECT_NEAR(gotLoss[r], rowLoss(row, labels[r]), 1e-5) << r;
    Row want = numericGradient(
        row, [&](const Row &in) { return gradScale * rowLoss(in, labels[r]); });
    Row wantMean = numericGradient(
        row, [&](const Row &in) { return rowLoss(in, labels[r]) / rows; });
    for (int64_t c = 0; c < cols; ++c) {
      EXPECT_NEAR(gotGrad[r * cols + c], want[c], 1e-6) << r << "," << c;
      EXPECT_NEAR(gotMean[r * cols + c], wantMean[c], 1e-6) << r << "," << c;
    }
  }
}

TEST_P(RowKernelTest, CrossEntropyBadLabel) {
  float *dl = upload(std::vector<float>{1, 2, 3});
  int64_t *label = upload(std::vector<int64_t>{3});
  float *loss = upload(std::vector<float>{0});
  amp_status_t status = amp_cross_entropy(stream, {AMP_F32, 1, 3}, dl, label,
                                          loss, nullptr, nullptr, AMP_LOSS_SUM);
  if (GetParam() == AMP_DEVICE_HOST) {
    EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
    EXPECT_NE(std::string(amp_status_message(status)).find("label 3"),
              std::string::npos)
        << amp_status_message(status);
    amp_status_free(status);
  } else {
    // A device kernel cannot report: the row's loss becomes NaN.
    ASSERT_EQ(status, nullptr);
    EXPECT_TRUE(std::isnan(download(loss, 1)[0]));
  }
}

TEST_P(RowKernelTest, BadArgumentsAreRejected) {
  float *x = upload(std::vector<float>(4));
  int64_t *label = upload(std::vector<int64_t>{0, 0});
  auto expectInvalid = [](amp_status_t status) {
    EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
    amp_status_free(status);
  };
  expectInvalid(amp_softmax_forward(nullptr, {AMP_F32, 2, 2}, x, x, 0));
  expectInvalid(amp_softmax_forward(stream, {AMP_F32, 2, 0}, x, x, 0));
  expectInvalid(amp_softmax_forward(stream, {AMP_F32, -1, 2}, x, x, 0));
  expectInvalid(
      amp_softmax_forward(stream, {AMP_F32, INT64_MAX / 2, 2}, x, x, 0));
  expectInvalid(amp_softmax_forward(
      stream, {static_cast<amp_dtype_t>(99), 2, 2}, x, x, 0));
  expectInvalid(
      amp_softmax_backward(stream, {AMP_F32, 2, 2}, x, nullptr, x, 0));
  expectInvalid(amp_layer_norm_forward(stream, {AMP_F32, 2, 2}, x, nullptr,
                                       nullptr, -1.0f, x, nullptr, nullptr));
  expectInvalid(amp_layer_norm_backward(stream, {AMP_F32, 2, 2}, x, x, nullptr,
                                        NAN, x, nullptr, nullptr));
  expectInvalid(amp_rms_norm_forward(stream, {AMP_F32, 2, 2}, nullptr, nullptr,
                                     1e-6f, x, nullptr));
  expectInvalid(amp_rms_norm_backward(stream, {AMP_BF16, 2, 2}, x, x, nullptr,
                                      -1.0f, x, nullptr));
  expectInvalid(amp_cross_entropy(stream, {AMP_F32, 2, 2}, x, label, nullptr,
                                  nullptr, nullptr, AMP_LOSS_SUM));
  expectInvalid(amp_cross_entropy(stream, {AMP_F32, 2, 2}, x, label, x, x,
                                  nullptr,
                                  static_cast<amp_loss_reduction_t>(7)));
  // No rows: nothing to do, and null tensors are fine.
  EXPECT_EQ(amp_softmax_forward(stream, {AMP_F32, 0, 8}, nullptr, nullptr, 0),
            nullptr);
}

INSTANTIATE_TEST_SUITE_P(Devices, RowKernelTest,
                         ::testing::Values(AMP_DEVICE_HOST, AMP_DEVICE_CUDA),
                         deviceName);

} // namespace
