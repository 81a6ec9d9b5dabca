//===- BatchNormTest.cpp - batch normalisation and its gradient ----------===//
//
// batch_norm.h's calls against loops written here from the ops'
// definitions (amp.batch_norm, amp.batch_norm_grad in the dialect
// reference): every step rounded to f32, a channel's sums in order over
// (image, position). A reduction of at most 256 values is the plain
// in-order fold (reduction_order.h), so with channels of up to 256 values
// the loops here give the host's bits; the case with more values per
// channel is held to an f64 computation. cuDNN on a GPU computes in its
// own order and formulas, so the CUDA runs are held to a tolerance.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/batch_norm.h"
#include "amp_runtime/float_formats.h"

#include "KernelTest.h"
#include "batch_norm_bodies.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

struct Case {
  amp_batch_norm_t norm;
  bool scale, bias;
};

/// What the loops here expect of one call.
struct Expected {
  std::vector<float> out, newMean, newVar, dscale, dbias;
};

struct Operands {
  std::vector<float> x, dy, scale, bias, runningMean, runningVar;
};

Operands makeOperands(const amp_batch_norm_t &n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> values(-2.0f, 3.0f),
      positive(0.5f, 2.0f);
  const int64_t count = n.batch * n.channels * n.spatial;
  Operands o;
  for (int64_t i = 0; i < count; ++i) {
    o.x.push_back(static_cast<float>(roundTo(n.dtype, values(rng))));
    o.dy.push_back(static_cast<float>(roundTo(n.dtype, values(rng))));
  }
  for (int64_t c = 0; c < n.channels; ++c) {
    o.scale.push_back(positive(rng));
    o.bias.push_back(values(rng));
    o.runningMean.push_back(values(rng));
    o.runningVar.push_back(positive(rng));
  }
  return o;
}

/// amp.batch_norm and amp.batch_norm_grad as their definitions' steps.
Expected expect(const Case &k, const Operands &o, bool backward) {
  const amp_batch_norm_t &n = k.norm;
  const int64_t count = n.batch * n.spatial;
  const float keep = static_cast<float>(1.0 - n.momentum);
  const float momentum = static_cast<float>(n.momentum);
  const float unbias = static_cast<float>(double(count) / double(count - 1));
  const float epsilon = static_cast<float>(n.epsilon);
  Expected e;
  e.out.resize(o.x.size());
  for (int64_t c = 0; c < n.channels; ++c) {
    auto index = [&](int64_t image, int64_t p) {
      return (image * n.channels + c) * n.spatial + p;
    };
    auto channelMean = [&](auto value) {
      float sum = 0.0f;
      for (int64_t image = 0; image < n.batch; ++image)
        for (int64_t p = 0; p < n.spatial; ++p)
          sum = sum + value(index(image, p));
      return sum / static_cast<float>(count);
    };
    float mean = o.runningMean[c], var = o.runningVar[c];
    if (n.training) {
      mean = channelMean([&](int64_t i) { return o.x[i]; });
      var = channelMean([&](int64_t i) {
        float d = o.x[i] - mean;
        return d * d;
      });
      float keptMean = o.runningMean[c] * keep, addedMean = mean * momentum;
      float unbiased = var * unbias;
      float keptVar = o.runningVar[c] * keep, addedVar = unbiased * momentum;
      e.newMean.push_back(keptMean + addedMean);
      e.newVar.push_back(keptVar + addedVar);
    } else {
      e.newMean.push_back(mean);
      e.newVar.push_back(var);
    }
    const float deviation = std::sqrt(var + epsilon);
    auto xhat = [&](int64_t i) { return (o.x[i] - mean) / deviation; };
    const float scale = k.scale ? o.scale[c] : 1.0f;
    if (!backward) {
      for (int64_t image = 0; image < n.batch; ++image)
        for (int64_t p = 0; p < n.spatial; ++p) {
          int64_t i = index(image, p);
          float y = xhat(i);
          if (k.scale)
            y = y * scale;
          if (k.bias)
            y = y + o.bias[c];
          e.out[i] = static_cast<float>(roundTo(n.dtype, y));
        }
      continue;
    }
    auto scaled = [&](int64_t i) {
      return k.scale ? o.dy[i] * scale : o.dy[i];
    };
    float meanScaled = channelMean(scaled);
    float meanScaledXhat =
        channelMean([&](int64_t i) { return scaled(i) * xhat(i); });
    float dscale = 0.0f, dbias = 0.0f;
    for (int64_t image = 0; image < n.batch; ++image)
      for (int64_t p = 0; p < n.spatial; ++p) {
        int64_t i = index(image, p);
        dscale = dscale + o.dy[i] * xhat(i);
        dbias = dbias + o.dy[i];
        float dx = scaled(i);
        if (n.training) {
          float centered = dx - meanScaled, along = xhat(i) * meanScaledXhat;
          dx = centered - along;
        }
        e.out[i] = static_cast<float>(roundTo(n.dtype, dx / deviation));
      }
    e.dscale.push_back(dscale);
    e.dbias.push_back(dbias);
  }
  return e;
}

class BatchNormTest : public KernelTest {
protected:
  /// Activations of `n.dtype` on the device.
  void *uploadActivations(amp_dtype_t dtype, const std::vector<float> &v) {
    if (dtype == AMP_F32)
      return upload(v);
    std::vector<uint16_t> bits;
    for (float value : v)
      bits.push_back(dtype == AMP_F16 ? amprt::floatToHalfBits(value)
                                      : amprt::floatToBFloat16Bits(value));
    return upload(bits);
  }
  std::vector<float> downloadActivations(amp_dtype_t dtype, void *data,
                                         size_t count) {
    if (dtype == AMP_F32)
      return download(static_cast<float *>(data), count);
    std::vector<float> values;
    for (uint16_t bits : download(static_cast<uint16_t *>(data), count))
      values.push_back(dtype == AMP_F16 ? amprt::halfBitsToFloat(bits)
                                        : amprt::bfloat16BitsToFloat(bits));
    return values;
  }

  /// Bit for bit on the host; on a GPU within `tolerance` of each value's
  /// magnitude (at least 1).
  void expectClose(const std::vector<float> &actual,
                   const std::vector<float> &expected, double tolerance,
                   const char *what) {
    ASSERT_EQ(actual.size(), expected.size()) << what;
    for (size_t i = 0; i < actual.size(); ++i) {
      if (GetParam() == AMP_DEVICE_HOST && tolerance == 0)
        EXPECT_EQ(actual[i], expected[i]) << what << " at " << i;
      else
        EXPECT_NEAR(actual[i], expected[i],
                    tolerance * std::max(1.0, std::fabs(double(expected[i]))))
            << what << " at " << i;
    }
  }

  /// Runs the forward and the backward of `k` and checks both against the
  /// loops above, exactly on the host (`hostTolerance` 0).
  void check(const Case &k, double hostTolerance = 0) {
    const amp_batch_norm_t &n = k.norm;
    Operands o = makeOperands(n, 7 + static_cast<uint32_t>(n.channels));
    const size_t count = o.x.size(), channels = o.scale.size();
    void *x = uploadActivations(n.dtype, o.x);
    void *dy = uploadActivations(n.dtype, o.dy);
    float *scale = k.scale ? upload(o.scale) : nullptr;
    float *bias = k.bias ? upload(o.bias) : nullptr;
    float *runningMean = upload(o.runningMean);
    float *runningVar = upload(o.runningVar);
    void *out = uploadActivations(n.dtype, std::vector<float>(count, 0.0f));
    float *newMean = upload(std::vector<float>(channels, -1.0f));
    float *newVar = upload(std::vector<float>(channels, -1.0f));
    float *dscale = upload(std::vector<float>(channels, -1.0f));
    float *dbias = upload(std::vector<float>(channels, -1.0f));
    size_t bytes = amp_batch_norm_workspace(&n);
    ASSERT_GT(bytes, 0u);
    void *workspace = upload(std::vector<char>(bytes));
    const double device = GetParam() == AMP_DEVICE_HOST
                              ? hostTolerance
                              : 8 * unitRoundoff(n.dtype) + 1e-5;
    const double stats = GetParam() == AMP_DEVICE_HOST ? hostTolerance : 1e-5;

    ASSERT_EQ(amp_batch_norm_forward(stream, &n, x, scale, bias, runningMean,
                                     runningVar, out, newMean, newVar,
                                     workspace),
              nullptr);
    Expected forward = expect(k, o, false);
    expectClose(downloadActivations(n.dtype, out, count), forward.out, device,
                "y");
    expectClose(download(newMean, channels), forward.newMean, stats,
                "new_mean");
    expectClose(download(newVar, channels), forward.newVar, stats, "new_var");

    ASSERT_EQ(amp_batch_norm_backward(stream, &n, x, dy, scale, runningMean,
                                      runningVar, out, dscale, dbias,
                                      workspace),
              nullptr);
    Expected backward = expect(k, o, true);
    expectClose(downloadActivations(n.dtype, out, count), backward.out, device,
                "dx");
    expectClose(download(dscale, channels), backward.dscale, device, "dscale");
    expectClose(download(dbias, channels), backward.dbias, device, "dbias");
  }
};

TEST_P(BatchNormTest, TrainingImagesEveryType) {
  for (amp_dtype_t dtype : {AMP_F32, AMP_F16, AMP_BF16})
    check({{dtype, 4, 3, 30, 1e-5, 0.1, 1}, true, true});
}

TEST_P(BatchNormTest, TrainingWithoutScaleOrBias) {
  check({{AMP_F16, 2, 5, 12, 1e-3, 0.25, 1}, false, false});
  check({{AMP_F32, 2, 5, 12, 1e-5, 0.1, 1}, true, false});
  check({{AMP_F32, 2, 5, 12, 1e-5, 0.1, 1}, false, true});
}

TEST_P(BatchNormTest, TrainingRowsOfFeatures) {
  // [N, C] activations: spatial 1.
  check({{AMP_F32, 16, 6, 1, 1e-5, 0.1, 1}, true, true});
  check({{AMP_BF16, 2, 4, 1, 1e-5, 0.1, 1}, true, true});
}

TEST_P(BatchNormTest, Evaluation) {
  check({{AMP_F32, 3, 4, 20, 1e-5, 0.1, 0}, true, true});
  check({{AMP_F16, 3, 4, 20, 1e-5, 0.1, 0}, false, false});
}

TEST_P(BatchNormTest, ManyValuesPerChannelAgainstF64) {
  // 2 * 32 * 32 = 2048 values a channel: summed in blocks, pairwise. The
  // f64 statistics bound what the f32 ones may be.
  amp_batch_norm_t n{AMP_F32, 2, 3, 1024, 1e-5, 0.1, 1};
  Operands o = makeOperands(n, 3);
  void *x = upload(o.x);
  float *runningMean = upload(o.runningMean),
        *runningVar = upload(o.runningVar);
  float *y = upload(std::vector<float>(o.x.size()));
  float *newMean = upload(std::vector<float>(3)),
        *newVar = upload(std::vector<float>(3));
  void *workspace = upload(std::vector<char>(amp_batch_norm_workspace(&n)));
  ASSERT_EQ(amp_batch_norm_forward(stream, &n, x, nullptr, nullptr, runningMean,
                                   runningVar, y, newMean, newVar, workspace),
            nullptr);
  std::vector<float> means = download(newMean, 3), vars = download(newVar, 3);
  for (int64_t c = 0; c < 3; ++c) {
    double sum = 0, squares = 0;
    for (int64_t image = 0; image < 2; ++image)
      for (int64_t p = 0; p < 1024; ++p)
        sum += o.x[(image * 3 + c) * 1024 + p];
    double mean = sum / 2048;
    for (int64_t image = 0; image < 2; ++image)
      for (int64_t p = 0; p < 1024; ++p) {
        double d = o.x[(image * 3 + c) * 1024 + p] - mean;
        squares += d * d;
      }
    EXPECT_NEAR(means[c], 0.9 * o.runningMean[c] + 0.1 * mean, 1e-6);
    EXPECT_NEAR(vars[c], 0.9 * o.runningVar[c] + 0.1 * squares / 2047, 1e-6);
  }
}

TEST_P(BatchNormTest, RunningStatisticsInPlaceOrNone) {
  // new_mean and new_var may be the running statistics themselves.
  amp_batch_norm_t n{AMP_F32, 4, 2, 3, 1e-5, 0.1, 1};
  Case k{n, false, false};
  Operands o = makeOperands(n, 9);
  Expected e = expect(k, o, false);
  void *x = upload(o.x);
  float *runningMean = upload(o.runningMean),
        *runningVar = upload(o.runningVar);
  float *y = upload(std::vector<float>(o.x.size()));
  void *workspace = upload(std::vector<char>(amp_batch_norm_workspace(&n)));
  ASSERT_EQ(amp_batch_norm_forward(stream, &n, x, nullptr, nullptr, runningMean,
                                   runningVar, y, runningMean, runningVar,
                                   workspace),
            nullptr);
  const double tolerance = GetParam() == AMP_DEVICE_HOST ? 0 : 1e-5;
  expectClose(download(runningMean, 2), e.newMean, tolerance, "mean");
  expectClose(download(runningVar, 2), e.newVar, tolerance, "var");
  // Or not wanted at all (an evaluation that keeps no statistics): y the
  // same, the running statistics untouched.
  std::vector<float> before = download(runningMean, 2);
  overwrite(y, std::vector<float>(o.x.size(), 0.0f));
  ASSERT_EQ(amp_batch_norm_forward(stream, &n, x, nullptr, nullptr, runningMean,
                                   runningVar, y, nullptr, nullptr, workspace),
            nullptr);
  EXPECT_EQ(download(runningMean, 2), before);
  Operands moved = o;
  moved.runningMean = before;
  moved.runningVar = download(runningVar, 2);
  expectClose(download(y, o.x.size()), expect(k, moved, false).out, tolerance,
              "y");
}

TEST_P(BatchNormTest, RefusesBadNormalisations) {
  amp_batch_norm_t good{AMP_F32, 2, 3, 4, 1e-5, 0.1, 1};
  std::vector<float> data(2 * 3 * 4), stats(3);
  float *x = upload(data), *m = upload(stats), *v = upload(stats);
  float *y = upload(data);
  void *workspace = upload(std::vector<char>(amp_batch_norm_workspace(&good)));
  auto forward = [&](const amp_batch_norm_t &n) {
    return amp_batch_norm_forward(stream, &n, x, nullptr, nullptr, m, v, y, m,
                                  v, workspace);
  };
  amp_batch_norm_t bad = good;
  bad.dtype = static_cast<amp_dtype_t>(42);
  expectInvalidArgument(forward(bad), "unknown dtype 42");
  bad = good;
  bad.channels = 0;
  expectInvalidArgument(forward(bad), "need positive sizes");
  bad = good;
  bad.batch = 1;
  bad.spatial = 1;
  expectInvalidArgument(forward(bad), "at least 2 values per channel");
  bad.training = 0; // evaluation needs no variance of the batch
  EXPECT_EQ(forward(bad), nullptr);
  bad = good;
  bad.momentum = 1.5;
  expectInvalidArgument(forward(bad), "momentum 1.5 in [0, 1]");
  bad = good;
  bad.epsilon = -1;
  expectInvalidArgument(forward(bad), "epsilon -1 must be >= 0");
  bad = good;
  bad.batch = INT64_MAX / 2;
  expectInvalidArgument(forward(bad), "overflow");
  EXPECT_EQ(amp_batch_norm_workspace(&bad), 0u);
  EXPECT_EQ(amp_batch_norm_workspace(nullptr), 0u);
  expectInvalidArgument(amp_batch_norm_forward(stream, &good, nullptr, nullptr,
                                               nullptr, m, v, y, m, v,
                                               workspace),
                        "is null");
  expectInvalidArgument(amp_batch_norm_forward(stream, &good, x, nullptr,
                                               nullptr, m, v, y, m, v, nullptr),
                        "needs its workspace");
  expectInvalidArgument(amp_batch_norm_backward(stream, &good, x, nullptr,
                                                nullptr, m, v, y, nullptr,
                                                nullptr, workspace),
                        "is null");
  expectInvalidArgument(amp_batch_norm_backward(nullptr, &good, x, x, nullptr,
                                                m, v, y, nullptr, nullptr,
                                                workspace),
                        "stream is null");
}

TEST(BatchNormBodies, StridedChannelsGiveTheHostsBits) {
  // The CUDA backend's fallback reads and writes each channel in place
  // (StridedChannel); the host gathers it first. The same body, so the
  // same bits: run here on host memory, against amp_batch_norm_*.
  for (amp_dtype_t dtype : {AMP_F16, AMP_BF16, AMP_F32}) {
    for (bool backward : {false, true}) {
      SCOPED_TRACE(std::to_string(dtype) + (backward ? " backward" : ""));
      amp_batch_norm_t n{dtype, 3, 4, 50, 1e-5, 0.1, 1};
      Operands o = makeOperands(n, 11);
      auto bits = [&](const std::vector<float> &values) {
        std::vector<uint32_t> out;
        for (float v : values)
          out.push_back(dtype == AMP_F32   ? amprt::floatToBits(v)
                        : dtype == AMP_F16 ? amprt::floatToHalfBits(v)
                                           : amprt::floatToBFloat16Bits(v));
        return out;
      };
      // Activations in their storage type, plain host memory.
      size_t element = dtype == AMP_F32 ? 4 : 2;
      auto storage = [&](const std::vector<float> &values) {
        std::vector<char> bytes(values.size() * element);
        std::vector<uint32_t> b = bits(values);
        for (size_t i = 0; i < b.size(); ++i)
          std::memcpy(bytes.data() + i * element, &b[i], element);
        return bytes;
      };
      std::vector<char> x = storage(o.x), dy = storage(o.dy);
      std::vector<char> strided(x.size()), gathered(x.size());
      std::vector<float> mean(4), var(4), mean2(4), var2(4), ds(4), db(4),
          ds2(4), db2(4), workspace(amp_batch_norm_workspace(&n) / 4);

      amp_device_t *device = nullptr;
      amp_stream_t *stream = nullptr;
      ASSERT_EQ(amp_device_create(AMP_DEVICE_HOST, 0, &device), nullptr);
      ASSERT_EQ(amp_stream_create(device, &stream), nullptr);
      amprt::BatchNormStage stage(backward, n);
      stage.x = x.data();
      stage.dy = dy.data();
      stage.scale = o.scale.data();
      stage.bias = o.bias.data();
      stage.runningMean = o.runningMean.data();
      stage.runningVar = o.runningVar.data();
      stage.out = strided.data();
      stage.newMean = mean.data();
      stage.newVar = var.data();
      stage.dscale = ds.data();
      stage.dbias = db.data();
      for (int64_t c = 0; c < n.channels; ++c)
        amprt::runBatchNormStage(stage, c);
      if (backward)
        ASSERT_EQ(amp_batch_norm_backward(stream, &n, x.data(), dy.data(),
                                          o.scale.data(), o.runningMean.data(),
                                          o.runningVar.data(), gathered.data(),
                                          ds2.data(), db2.data(),
                                          workspace.data()),
                  nullptr);
      else
        ASSERT_EQ(amp_batch_norm_forward(stream, &n, x.data(), o.scale.data(),
                                         o.bias.data(), o.runningMean.data(),
                                         o.runningVar.data(), gathered.data(),
                                         mean2.data(), var2.data(),
                                         workspace.data()),
                  nullptr);
      ASSERT_EQ(amp_stream_synchronize(stream), nullptr);
      amp_stream_destroy(stream);
      amp_device_destroy(device);
      EXPECT_EQ(strided, gathered);
      if (backward) {
        EXPECT_EQ(ds, ds2);
        EXPECT_EQ(db, db2);
      } else {
        EXPECT_EQ(mean, mean2);
        EXPECT_EQ(var, var2);
      }
    }
  }
}

TEST(BatchNormWorkspace, SixChannelVectorsEachAligned) {
  amp_batch_norm_t n{AMP_F16, 8, 100, 64, 1e-5, 0.1, 1};
  amprt::BatchNormWorkspace w = amprt::batchNormWorkspace(n);
  // 100 f32 values are 400 bytes: 512 with each slot at a multiple of 256.
  EXPECT_EQ(w.mean, 0);
  EXPECT_EQ(w.invDeviation, 512);
  EXPECT_EQ(w.ones, 1024);
  EXPECT_EQ(w.zeros, 1536);
  EXPECT_EQ(w.dscale, 2048);
  EXPECT_EQ(w.dbias, 2560);
  EXPECT_EQ(w.bytes, 3072);
  EXPECT_EQ(amp_batch_norm_workspace(&n), 3072u);
}

INSTANTIATE_TEST_SUITE_P(Devices, BatchNormTest,
                         ::testing::Values(AMP_DEVICE_HOST, AMP_DEVICE_CUDA),
                         deviceName);

} // namespace
