//===- OptimizerKernelsTest.cpp - loss-scaling and optimizer kernels ------===//
//
// Every kernel against a plain loop written in the test from torch.optim's
// formulas and GradScaler's algorithm, on the host device and (when present)
// on a GPU. Data goes through device buffers both ways.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/float_formats.h"
#include "amp_runtime/optimizer_kernels.h"
#include "amp_runtime/reduction_order.h"
#include "amp_runtime/scalar_math.h"

#include "KernelTest.h"
#include "optimizer_bodies.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

TEST_P(KernelTest, UnscaleMultipliesAndFlagsNonFinite) {
  std::vector<float> a = {1, 2, 3}, b = {4, INFINITY, -8, 16, 0.5f};
  float *da = upload(a), *db = upload(b);
  float *inv = upload(std::vector<float>{0.25f});
  float *found = upload(std::vector<float>{0});
  float *data[] = {da, db};
  size_t sizes[] = {3, 5};
  ASSERT_EQ(amp_unscale(stream, {2, data, sizes}, inv, found), nullptr);
  EXPECT_EQ(download(da, 3), (std::vector<float>{0.25f, 0.5f, 0.75f}));
  std::vector<float> db2 = download(db, 5);
  EXPECT_EQ(db2[0], 1.0f);
  EXPECT_TRUE(std::isinf(db2[1]));
  EXPECT_EQ(db2[4], 0.125f);
  EXPECT_EQ(download(found, 1)[0], 1.0f);
  // Finite gradients leave the flag as it was.
  float *clean = upload(std::vector<float>{0});
  float *only[] = {da};
  ASSERT_EQ(amp_unscale(stream, {1, only, sizes}, inv, clean), nullptr);
  EXPECT_EQ(download(clean, 1)[0], 0.0f);
}

// Clipping's sum of squares over 300 tensors of the three storage types
// (two launches of 256 and 44 tensors), of sizes around the reduction's
// block of 256 and its thread's part of 65536, and one of 300000 values cut
// into several slices: the same bits as the op's definition (each tensor
// folded as reduction_order.h orders it, the tensors added in order), and
// within f32 rounding of a sum in f64.
TEST_P(KernelTest, SumSquaresIsTheOpsDefinition) {
  const size_t sizes[] = {0, 1, 255, 256, 257, 1000, 65536, 65537, 300000, 7};
  const amp_dtype_t types[] = {AMP_F32, AMP_F16, AMP_BF16};
  std::vector<const void *> data;
  std::vector<amp_dtype_t> dtypes;
  std::vector<size_t> counts;
  float expected = 0.0f;
  double exact = 0.0;
  uint32_t seed = 12345;
  for (size_t t = 0; t < 300; ++t) {
    const size_t n = sizes[t % 10];
    const amp_dtype_t dtype = types[t % 3];
    std::vector<float> values(n);
    for (float &value : values) {
      seed = seed * 1664525u + 1013904223u;
      value = static_cast<float>(seed >> 8) / 4194304.0f - 2.0f; // [-2, 2)
    }
    if (dtype == AMP_F32) {
      data.push_back(upload(values));
    } else {
      std::vector<uint16_t> bits(n);
      for (size_t i = 0; i < n; ++i) {
        bits[i] = dtype == AMP_F16 ? amprt::floatToHalfBits(values[i])
                                   : amprt::floatToBFloat16Bits(values[i]);
        values[i] = dtype == AMP_F16 ? amprt::halfBitsToFloat(bits[i])
                                     : amprt::bfloat16BitsToFloat(bits[i]);
      }
      data.push_back(upload(bits));
    }
    dtypes.push_back(dtype);
    counts.push_back(n);
    expected += amprt::sumOfSquares(static_cast<int64_t>(n),
                                    [&](int64_t i) { return values[i]; });
    for (float value : values)
      exact += static_cast<double>(value) * value;
  }
  float *out = upload(std::vector<float>{-1.0f});
  ASSERT_EQ(amp_sum_squares(
                stream,
                {data.size(), data.data(), dtypes.data(), counts.data()}, out),
            nullptr);
  const float result = download(out, 1)[0];
  EXPECT_EQ(amprt::floatToBits(result), amprt::floatToBits(expected))
      << result << " vs " << expected;
  EXPECT_NEAR(result, exact, exact * 1e-6);

  // No tensors: 0. Bad lists: a clear error, nothing written.
  ASSERT_EQ(amp_sum_squares(stream, {0, nullptr, nullptr, nullptr}, out),
            nullptr);
  EXPECT_EQ(download(out, 1)[0], 0.0f);
  const void *null[] = {nullptr};
  const amp_dtype_t bad[] = {static_cast<amp_dtype_t>(7)};
  const size_t one[] = {1};
  for (amp_typed_tensor_list_t list :
       {amp_typed_tensor_list_t{1, null, dtypes.data(), one},
        amp_typed_tensor_list_t{1, data.data(), bad, one},
        amp_typed_tensor_list_t{1, data.data(), nullptr, one}}) {
    amp_status_t status = amp_sum_squares(stream, list, out);
    EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
    amp_status_free(status);
  }
  amp_status_t status =
      amp_sum_squares(nullptr, {0, nullptr, nullptr, nullptr}, out);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
}

TEST_P(KernelTest, ScalerUpdateFollowsGradScaler) {
  amp_scaler_config_t config{2.0, 0.5, 3, 1, 0, 0};
  float *scale = upload(std::vector<float>{1024});
  float *growth = upload(std::vector<float>{0});
  float *hysteresis = upload(std::vector<float>{1});
  // Clean, clean, overflow, clean x3 (growth), as ScalerTest works out.
  const int pattern[] = {0, 0, 1, 0, 0, 0};
  const float scales[] = {1024, 1024, 512, 512, 512, 1024};
  const float trackers[] = {1, 2, 0, 1, 2, 0};
  for (int s = 0; s < 6; ++s) {
    float *found = upload(std::vector<float>{static_cast<float>(pattern[s])});
    ASSERT_EQ(
        amp_scaler_update(stream, &config, scale, growth, hysteresis, found),
        nullptr);
    EXPECT_EQ(download(scale, 1)[0], scales[s]) << "step " << s;
    EXPECT_EQ(download(growth, 1)[0], trackers[s]) << "step " << s;
  }
  amp_scaler_config_t bad{1.0, 0.5, 3, 1, 0, 0};
  amp_status_t status =
      amp_scaler_update(stream, &bad, scale, growth, hysteresis, scale);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
}

TEST_P(KernelTest, SgdMomentumMatchesTorchAndWritesHalfCopies) {
  amp_sgd_config_t config{0.1, 0.9, 0.1, 0.01, 0};
  std::vector<float> w = {1, -2, 0.5f}, g = {0.5f, 2, -1};
  float *dw = upload(w), *dg = upload(g), *dbuf = upload(std::vector<float>(3));
  float *step = upload(std::vector<float>{0});
  uint16_t *half = upload(std::vector<uint16_t>(3));
  float *params[] = {dw}, *grads[] = {dg}, *bufs[] = {dbuf};
  void *copies[] = {half};
  size_t sizes[] = {3};
  std::vector<float> ref = w, buf(3);
  for (int s = 0; s < 2; ++s) {
    ASSERT_EQ(amp_sgd_update(stream, &config, {1, params, sizes},
                             {1, grads, sizes}, {1, bufs, sizes}, step, nullptr,
                             {AMP_F16, copies}),
              nullptr);
    for (int i = 0; i < 3; ++i) {
      float d = g[i] + 0.01f * ref[i];
      buf[i] = s == 0 ? d : buf[i] * 0.9f + (1 - 0.1f) * d;
      ref[i] = ref[i] - 0.1f * buf[i];
    }
  }
  std::vector<float> got = download(dw, 3);
  std::vector<uint16_t> gotHalf = download(half, 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FLOAT_EQ(got[i], ref[i]) << i;
    EXPECT_EQ(gotHalf[i], amprt::floatToHalfBits(got[i])) << i;
  }
  EXPECT_EQ(download(step, 1)[0], 2.0f);
}

/// Update number `t` (from 1) of torch.optim.AdamW, or of Adam where
/// `c.coupled_decay`, worked out in f64 on `w`, `m`, `v` from `g`.
void adamReference(const amp_adamw_config_t &c, const std::vector<float> &g,
                   double t, double *w, double *m, double *v) {
  for (size_t i = 0; i < g.size(); ++i) {
    double d = g[i];
    if (c.coupled_decay)
      d += c.weight_decay * w[i];
    else
      w[i] *= 1 - c.lr * c.weight_decay;
    m[i] = c.beta1 * m[i] + (1 - c.beta1) * d;
    v[i] = c.beta2 * v[i] + (1 - c.beta2) * d * d;
    w[i] -= c.lr * (m[i] / (1 - std::pow(c.beta1, t))) /
            (std::sqrt(v[i] / (1 - std::pow(c.beta2, t))) + c.eps);
  }
}

// AdamW (decoupled decay: p is scaled), and Adam (coupled_decay: the decay
// joins the gradient, p is not scaled), as torch.optim does each; with
// found_inf set nothing moves, the step counter included.
TEST_P(KernelTest, AdamwAndAdamMatchTorchAndSkipOnOverflow) {
  for (const amp_adamw_config_t &config :
       {amp_adamw_config_t{0.1, 0.9, 0.999, 1e-8, 0.01, 0},
        amp_adamw_config_t{0.1, 0.9, 0.999, 1e-8, 0.05, 1}}) {
    SCOPED_TRACE(config.coupled_decay ? "Adam" : "AdamW");
    std::vector<float> w = {1, -2}, g = {0.5f, 2};
    float *dw = upload(w), *dg = upload(g);
    float *dm = upload(std::vector<float>(2)),
          *dv = upload(std::vector<float>(2));
    float *step = upload(std::vector<float>{0});
    float *found = upload(std::vector<float>{0});
    float *params[] = {dw}, *grads[] = {dg}, *ms[] = {dm}, *vs[] = {dv};
    size_t sizes[] = {2};
    auto update = [&](float *foundInf) {
      return amp_adamw_update(stream, &config, {1, params, sizes},
                              {1, grads, sizes}, {1, ms, sizes}, {1, vs, sizes},
                              step, foundInf, {AMP_F32, nullptr});
    };
    double rw[2] = {1, -2}, rm[2] = {0, 0}, rv[2] = {0, 0};
    for (int s = 0; s < 2; ++s) {
      // A null found_inf is a step that never skips.
      ASSERT_EQ(update(s == 0 ? nullptr : found), nullptr);
      adamReference(config, g, s + 1, rw, rm, rv);
    }
    std::vector<float> got = download(dw, 2);
    for (int i = 0; i < 2; ++i)
      EXPECT_NEAR(got[i], rw[i], 1e-6 * std::fabs(rw[i])) << i;
    std::vector<float> m = download(dm, 2);
    ASSERT_EQ(update(upload(std::vector<float>{1})), nullptr);
    EXPECT_EQ(download(dw, 2), got);
    EXPECT_EQ(download(dm, 2), m);
    EXPECT_EQ(download(step, 1)[0], 2.0f);
  }
}

TEST_P(KernelTest, MismatchedListsAreRejected) {
  float *dw = upload(std::vector<float>(4)),
        *dg = upload(std::vector<float>(4));
  float *step = upload(std::vector<float>{0});
  float *params[] = {dw}, *grads[] = {dg};
  size_t four[] = {4}, three[] = {3};
  amp_sgd_config_t config{0.1, 0, 0, 0, 0};
  amp_status_t status =
      amp_sgd_update(stream, &config, {1, params, four}, {1, grads, three},
                     {0, nullptr, nullptr}, step, nullptr, {AMP_F32, nullptr});
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  EXPECT_NE(std::string(amp_status_message(status))
                .find("grads[0] has 3 elements, the parameter 4"),
            std::string::npos)
      << amp_status_message(status);
  amp_status_free(status);
  status =
      amp_sgd_update(stream, &config, {1, params, four}, {0, grads, four},
                     {0, nullptr, nullptr}, step, nullptr, {AMP_F32, nullptr});
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
  amp_sgd_config_t nesterov{0.1, 0, 0, 0, 1};
  status =
      amp_sgd_update(stream, &nesterov, {1, params, four}, {1, grads, four},
                     {0, nullptr, nullptr}, step, nullptr, {AMP_F32, nullptr});
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
}

// A grad_scale multiplies each gradient as the update reads it: the
// parameters and moments come out as from gradients multiplied first (in
// f32, as a separate amp.mul stores them), bit for bit, and the gradients
// in memory are left as they were. Values chosen so that the products
// round (0.3 * 0.7 is not exact in f32).
TEST_P(KernelTest, GradScaleIsTheMultiplyBeforeTheUpdate) {
  const std::vector<float> grads = {0.3f, -1.7f, 2.5e-3f, 11.0f, -0.6f};
  const float scale = 0.7f;
  std::vector<float> scaled;
  for (float g : grads)
    scaled.push_back(g * scale);
  double *h = upload(std::vector<double>{1e-3, 0.9, 0.999, 1e-8, 0.01});
  float *step = upload(std::vector<float>{2});
  float *scaleOnDevice = upload(std::vector<float>{scale});
  size_t sizes[] = {grads.size()};
  const std::vector<float> start = {1, -2, 0.5f, 3, -0.25f};
  const std::vector<float> moment = {0.1f, 0.2f, -0.3f, 0.05f, 0.0f};

  // AdamW, then Adam's coupled decay, then SGD with momentum and Nesterov.
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<float> results[2][3];
    for (int folded = 0; folded < 2; ++folded) {
      float *p = upload(start), *m = upload(moment), *v = upload(moment);
      float *g = upload(folded ? grads : scaled);
      float *params[] = {p}, *gs[] = {g}, *ms[] = {m}, *vs[] = {v};
      const float *gradScale = folded ? scaleOnDevice : nullptr;
      amp_status_t status;
      if (kind < 2) {
        amp_adamw_hparams_t adamw{&h[0], &h[1], &h[2],    &h[3],
                                  &h[4], kind,  gradScale};
        status = amp_adamw_apply(stream, &adamw, {1, params, sizes},
                                 {1, gs, sizes}, {1, ms, sizes}, {1, vs, sizes},
                                 step, nullptr, {AMP_F32, nullptr});
      } else {
        amp_sgd_hparams_t sgd{&h[0], &h[1], &h[4], 0.0, 1, gradScale};
        status =
            amp_sgd_apply(stream, &sgd, {1, params, sizes}, {1, gs, sizes},
                          {1, ms, sizes}, step, nullptr, {AMP_F32, nullptr});
      }
      ASSERT_EQ(status, nullptr) << amp_status_message(status);
      results[folded][0] = download(p, grads.size());
      results[folded][1] = download(m, grads.size());
      results[folded][2] = download(v, grads.size());
      EXPECT_EQ(download(g, grads.size()), folded ? grads : scaled);
    }
    for (int r = 0; r < 3; ++r)
      for (size_t i = 0; i < grads.size(); ++i)
        EXPECT_EQ(amprt::floatToBits(results[1][r][i]),
                  amprt::floatToBits(results[0][r][i]))
            << "kind " << kind << ", result " << r << ", element " << i;
    EXPECT_NE(results[1][0], start) << kind;
  }
}

// The apply variants read the step count and leave it alone: the compiled
// step counts updates in its own graph. They read their hyperparameters
// from device memory. One launch covers every tensor.
TEST_P(KernelTest, ApplyReadsTheStepWithoutCountingIt) {
  double *h = upload(std::vector<double>{0.1, 0.9, 0.999, 1e-8, 0.0});
  amp_adamw_hparams_t adamw{&h[0], &h[1], &h[2], &h[3], &h[4]};
  std::vector<float> a = {1, -2}, b = {3}, ga = {0.5f, 2}, gb = {-1};
  float *da = upload(a), *db = upload(b), *dga = upload(ga), *dgb = upload(gb);
  float *ma = upload(std::vector<float>(2)),
        *mb = upload(std::vector<float>(1));
  float *va = upload(std::vector<float>(2)),
        *vb = upload(std::vector<float>(1));
  float *step = upload(std::vector<float>{3});
  float *params[] = {da, db}, *grads[] = {dga, dgb}, *ms[] = {ma, mb},
        *vs[] = {va, vb};
  size_t sizes[] = {2, 1};
  ASSERT_EQ(amp_adamw_apply(stream, &adamw, {2, params, sizes},
                            {2, grads, sizes}, {2, ms, sizes}, {2, vs, sizes},
                            step, nullptr, {AMP_F32, nullptr}),
            nullptr);
  EXPECT_EQ(download(step, 1)[0], 3.0f);
  // From zero moments at t = 4: m = 0.1 g, v = 0.001 g^2, so the update is
  // lr * m / (1 - 0.9^4) / (|g| sqrt(0.001 / (1 - 0.999^4)) + eps).
  std::vector<float> gotA = download(da, 2), gotB = download(db, 1);
  const float *got[] = {&gotA[0], &gotA[1], &gotB[0]};
  const float start[] = {1, -2, 3}, g[] = {0.5f, 2, -1};
  for (int i = 0; i < 3; ++i) {
    double m = 0.1 * g[i] / (1 - std::pow(0.9, 4));
    double v = std::sqrt(0.001 * g[i] * g[i] / (1 - std::pow(0.999, 4)));
    double want = start[i] - 0.1 * m / (v + 1e-8);
    EXPECT_NEAR(*got[i], want, 1e-6 * std::fabs(want)) << i;
  }

  // SGD with momentum at step 0 starts the buffer from d, on every call.
  double *sgdHypers = upload(std::vector<double>{0.5, 0.9, 0.0, 0.25});
  const double *noDecay = &sgdHypers[2];
  amp_sgd_hparams_t momentum{&sgdHypers[0], &sgdHypers[1], noDecay, 0, 0};
  float *zero = upload(std::vector<float>{0});
  float *w = upload(std::vector<float>{1}), *gw = upload(std::vector<float>{2});
  float *buf = upload(std::vector<float>{100});
  float *one[] = {w}, *oneGrad[] = {gw}, *oneBuf[] = {buf};
  size_t oneSize[] = {1};
  for (int call = 0; call < 2; ++call)
    ASSERT_EQ(amp_sgd_apply(stream, &momentum, {1, one, oneSize},
                            {1, oneGrad, oneSize}, {1, oneBuf, oneSize}, zero,
                            nullptr, {AMP_F32, nullptr}),
              nullptr);
  EXPECT_EQ(download(w, 1)[0], -1.0f); // 1 - 0.5 * 2, twice
  EXPECT_EQ(download(buf, 1)[0], 2.0f);
  EXPECT_EQ(download(zero, 1)[0], 0.0f);

  // Plain SGD needs no step; momentum and AdamW do; found_inf skips.
  amp_sgd_hparams_t plain{&sgdHypers[3], nullptr, noDecay, 0, 0};
  float *overflow = upload(std::vector<float>{1});
  ASSERT_EQ(amp_sgd_apply(stream, &plain, {1, one, oneSize},
                          {1, oneGrad, oneSize}, {0, nullptr, nullptr}, nullptr,
                          overflow, {AMP_F32, nullptr}),
            nullptr);
  EXPECT_EQ(download(w, 1)[0], -1.0f);
  ASSERT_EQ(amp_sgd_apply(stream, &plain, {1, one, oneSize},
                          {1, oneGrad, oneSize}, {0, nullptr, nullptr}, nullptr,
                          nullptr, {AMP_F32, nullptr}),
            nullptr);
  EXPECT_EQ(download(w, 1)[0], -1.5f);
  amp_status_t status =
      amp_sgd_apply(stream, &momentum, {1, one, oneSize}, {1, oneGrad, oneSize},
                    {1, oneBuf, oneSize}, nullptr, nullptr, {AMP_F32, nullptr});
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
  status = amp_adamw_apply(stream, &adamw, {2, params, sizes},
                           {2, grads, sizes}, {2, ms, sizes}, {2, vs, sizes},
                           nullptr, nullptr, {AMP_F32, nullptr});
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
  amp_adamw_hparams_t noLr = adamw;
  noLr.lr = nullptr;
  status = amp_adamw_apply(stream, &noLr, {2, params, sizes}, {2, grads, sizes},
                           {2, ms, sizes}, {2, vs, sizes}, step, nullptr,
                           {AMP_F32, nullptr});
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
  EXPECT_EQ(download(da, 2), gotA);

  // A hyperparameter changed on the device between launches is the one
  // the next launch reads: lr 0.25 -> 0.5 doubles the step.
  overwrite(sgdHypers, std::vector<double>{0.5, 0.9, 0.0, 0.5});
  ASSERT_EQ(amp_sgd_apply(stream, &plain, {1, one, oneSize},
                          {1, oneGrad, oneSize}, {0, nullptr, nullptr}, nullptr,
                          nullptr, {AMP_F32, nullptr}),
            nullptr);
  EXPECT_EQ(download(w, 1)[0], -2.5f); // -1.5 - 0.5 * 2
}

// The multi-tensor kernels over 300 tensors (two launches, of 256 and 44)
// of sizes around their tile of 1024 elements and vector of 4, every third
// tensor (and every fifth copy) one element past an aligned address, so
// that it moves element by element: every element updated once, each to
// the bits of a plain loop over scalar_math.h's per-element update.
/// The bits of each value, so that a NaN equals itself.
std::vector<uint32_t> bitsOf(const std::vector<float> &values) {
  std::vector<uint32_t> bits(values.size());
  if (!values.empty()) // memcpy takes no null pointer, even for 0 bytes
    std::memcpy(bits.data(), values.data(), values.size() * sizeof(float));
  return bits;
}

TEST_P(KernelTest, MultiTensorUpdatesCoverEveryElementOnce) {
  const size_t pattern[] = {0, 1, 3, 4, 5, 1023, 1024, 1025, 4099};
  constexpr size_t kTensors = 300;
  std::vector<size_t> sizes;
  std::vector<float *> p, g, m, v;
  std::vector<void *> copies;
  std::vector<std::vector<float>> hp, hg;
  uint32_t seed = 7;
  auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<float>(seed >> 8) / 16777216.0f - 0.5f;
  };
  // A buffer of n values at an address 16-byte aligned or, with `offset`,
  // one float past one.
  auto place = [&](const std::vector<float> &values, bool offset) {
    std::vector<float> padded(values.size() + 1);
    std::copy(values.begin(), values.end(), padded.begin() + offset);
    return upload(padded) + offset;
  };
  for (size_t t = 0; t < kTensors; ++t) {
    const size_t n = pattern[t % 9];
    sizes.push_back(n);
    std::vector<float> values(n), grads(n);
    for (size_t i = 0; i < n; ++i)
      values[i] = next(), grads[i] = next();
    const bool offset = t % 3 == 1;
    p.push_back(place(values, offset));
    g.push_back(place(grads, offset));
    m.push_back(place(std::vector<float>(n, 0.01f), offset));
    v.push_back(place(std::vector<float>(n, 0.02f), offset));
    copies.push_back(
        reinterpret_cast<uint16_t *>(upload(std::vector<float>(n / 2 + 2))) +
        (t % 5 == 2));
    hp.push_back(values);
    hg.push_back(grads);
  }
  // The last tensor's last gradient is inf: unscale flags it and scales
  // the rest.
  hg.back().back() = INFINITY;
  overwrite(g.back(), hg.back());
  float *inv = upload(std::vector<float>{0.5f});
  float *found = upload(std::vector<float>{0});
  ASSERT_EQ(amp_unscale(stream, {kTensors, g.data(), sizes.data()}, inv, found),
            nullptr);
  EXPECT_EQ(download(found, 1)[0], 1.0f);

  const amp_adamw_config_t config{0.01, 0.9, 0.999, 1e-8, 0.1, 0};
  float *step = upload(std::vector<float>{2});
  ASSERT_EQ(amp_adamw_update(stream, &config,
                             {kTensors, p.data(), sizes.data()},
                             {kTensors, g.data(), sizes.data()},
                             {kTensors, m.data(), sizes.data()},
                             {kTensors, v.data(), sizes.data()}, step, nullptr,
                             {AMP_F16, copies.data()}),
            nullptr);
  const amprt::AdamwScalars<float> scalars =
      amprt::adamwScalars<float>(config.lr, config.beta1, config.beta2,
                                 config.eps, config.weight_decay, 2);
  for (size_t t = 0; t < kTensors; ++t) {
    SCOPED_TRACE("tensor " + std::to_string(t));
    const size_t n = sizes[t];
    std::vector<float> wantP = hp[t], wantG(n), wantM(n, 0.01f),
                       wantV(n, 0.02f);
    std::vector<uint16_t> wantCopy(n);
    for (size_t i = 0; i < n; ++i) {
      wantG[i] = hg[t][i] * 0.5f;
      amprt::adamwElement(scalars, wantP[i], wantG[i], wantM[i], wantV[i]);
      wantCopy[i] = amprt::floatToHalfBits(wantP[i]);
    }
    ASSERT_EQ(bitsOf(download(g[t], n)), bitsOf(wantG));
    ASSERT_EQ(bitsOf(download(p[t], n)), bitsOf(wantP));
    ASSERT_EQ(bitsOf(download(m[t], n)), bitsOf(wantM));
    ASSERT_EQ(bitsOf(download(v[t], n)), bitsOf(wantV));
    ASSERT_EQ(download(static_cast<uint16_t *>(copies[t]), n), wantCopy);
    hp[t] = wantP;
  }

  // SGD with momentum and bf16 copies: the buffers start from the
  // gradient at step 0 (here the AdamW moments' memory).
  const amp_sgd_config_t sgd{0.1, 0.9, 0, 0.01, 1};
  float *zero = upload(std::vector<float>{0});
  ASSERT_EQ(amp_sgd_update(stream, &sgd, {kTensors, p.data(), sizes.data()},
                           {kTensors, g.data(), sizes.data()},
                           {kTensors, m.data(), sizes.data()}, zero, nullptr,
                           {AMP_BF16, copies.data()}),
            nullptr);
  const amprt::SgdScalars<float> sgdScalars = amprt::sgdScalars<float>(
      sgd.lr, sgd.momentum, sgd.dampening, sgd.weight_decay, sgd.nesterov);
  for (size_t t = 0; t < kTensors; ++t) {
    SCOPED_TRACE("tensor " + std::to_string(t));
    const size_t n = sizes[t];
    std::vector<float> wantP = hp[t], wantBuf(n);
    std::vector<uint16_t> wantCopy(n);
    for (size_t i = 0; i < n; ++i) {
      wantP[i] = amprt::sgdElement(sgdScalars, wantP[i], hg[t][i] * 0.5f,
                                   &wantBuf[i], true);
      wantCopy[i] = amprt::floatToBFloat16Bits(wantP[i]);
    }
    ASSERT_EQ(bitsOf(download(p[t], n)), bitsOf(wantP));
    ASSERT_EQ(bitsOf(download(m[t], n)), bitsOf(wantBuf));
    ASSERT_EQ(download(static_cast<uint16_t *>(copies[t]), n), wantCopy);
  }
}

// Which tensors of a launch move in whole vectors: those whose f32
// tensors sit on 16 bytes and whose f16 copy on 8; and how the tiles and
// launches fall (addresses only: nothing is read).
TEST(MultiTensorLaunchTest, VectorsNeedAlignedAddresses) {
  alignas(16) static float data[64];
  alignas(16) static uint16_t halves[64];
  float *a[] = {data, data + 1, data + 4, data + 4};
  void *copy[] = {halves, halves, halves + 4, halves + 2};
  size_t sizes[] = {4, 4, 2049, 0};
  std::vector<amprt::MultiTensorLaunch> launches;
  amprt::forMultiTensorLaunches(
      {4, a, sizes}, {4, a, sizes}, {4, a, sizes}, {4, a, sizes},
      {AMP_F16, copy},
      [&](const amprt::MultiTensorLaunch &l) { launches.push_back(l); });
  ASSERT_EQ(launches.size(), 1u);
  const amprt::MultiTensorLaunch &l = launches[0];
  EXPECT_EQ(l.count, 4);
  EXPECT_TRUE(l.whole[0]);
  EXPECT_FALSE(l.whole[1]); // a float past 16 bytes
  EXPECT_TRUE(l.whole[2]);  // the copy 8 bytes on
  EXPECT_FALSE(l.whole[3]); // the copy 4 bytes on
  // 2049 elements are three tiles of 1024, the empty tensor none; tile 4
  // is the third tensor's last.
  EXPECT_EQ(std::vector<int64_t>(l.firstTile, l.firstTile + 5),
            (std::vector<int64_t>{0, 1, 2, 5, 5}));
  EXPECT_EQ(amprt::multiTensorTile(l, 4).tensor, 2);
  EXPECT_EQ(amprt::multiTensorTile(l, 4).begin, 2048);
  // The last tile's thread 0 moves the one element left, by itself.
  int calls = 0;
  amprt::forMultiTensorVector(l, amprt::multiTensorTile(l, 4), 0,
                              [&](int64_t t, int64_t i, int n, bool whole) {
                                ++calls;
                                EXPECT_EQ(t, 2);
                                EXPECT_EQ(i, 2048);
                                EXPECT_EQ(n, 1);
                                EXPECT_FALSE(whole);
                              });
  amprt::forMultiTensorVector(l, amprt::multiTensorTile(l, 4), 1,
                              [&](int64_t, int64_t, int, bool) { ++calls; });
  EXPECT_EQ(calls, 1);
  // 600 tensors: launches of 256, 256 and 88.
  std::vector<float *> many(600, data);
  std::vector<size_t> ones(600, 1);
  std::vector<int64_t> counts;
  amprt::forMultiTensorLaunches(
      {600, many.data(), ones.data()}, {600, many.data(), ones.data()},
      {600, many.data(), ones.data()}, {600, many.data(), ones.data()},
      {AMP_F32, nullptr},
      [&](const amprt::MultiTensorLaunch &l) { counts.push_back(l.count); });
  EXPECT_EQ(counts, (std::vector<int64_t>{256, 256, 88}));
}

// The unscale and SGD launches of a step, captured once and replayed three
// times, give the values of three steps worked out by hand; on the host,
// capture is refused with a status.
TEST_P(KernelTest, StepReplaysFromACapturedGraph) {
  std::vector<float> w = {1, -2, 4}, g = {8, 16, -32};
  float *dw = upload(w), *dg = upload(g);
  float *half = upload(std::vector<float>{0.5f});
  float *found = upload(std::vector<float>{0});
  float *step = upload(std::vector<float>{0});
  amp_status_t status = amp_graph_capture_begin(stream);
  if (GetParam() == AMP_DEVICE_HOST) {
    EXPECT_EQ(amp_status_code(status), AMP_UNAVAILABLE);
    amp_status_free(status);
    return;
  }
  ASSERT_EQ(status, nullptr);
  float *params[] = {dw}, *grads[] = {dg};
  size_t sizes[] = {3};
  amp_sgd_config_t config{0.125, 0, 0, 0, 0};
  ASSERT_EQ(amp_unscale(stream, {1, grads, sizes}, half, found), nullptr);
  ASSERT_EQ(amp_sgd_update(stream, &config, {1, params, sizes},
                           {1, grads, sizes}, {0, nullptr, nullptr}, step,
                           found, {AMP_F32, nullptr}),
            nullptr);
  amp_graph_t *graph = nullptr;
  ASSERT_EQ(amp_graph_capture_end(stream, &graph), nullptr);
  // Nothing ran while capturing.
  EXPECT_EQ(download(dw, 3), w);
  for (int replay = 0; replay < 3; ++replay)
    ASSERT_EQ(amp_graph_launch(graph, stream), nullptr);
  amp_graph_destroy(graph);
  // The gradient halves before each update: w - 0.125 g (1/2 + 1/4 + 1/8).
  std::vector<float> want;
  for (int i = 0; i < 3; ++i)
    want.push_back(w[i] - 0.125f * g[i] * 0.875f);
  EXPECT_EQ(download(dw, 3), want);
  EXPECT_EQ(download(dg, 3)[0], g[0] / 8);
  EXPECT_EQ(download(step, 1)[0], 3.0f);
  EXPECT_EQ(download(found, 1)[0], 0.0f);
}

INSTANTIATE_TEST_SUITE_P(Devices, KernelTest,
                         ::testing::Values(AMP_DEVICE_HOST, AMP_DEVICE_CUDA),
                         deviceName);

} // namespace
