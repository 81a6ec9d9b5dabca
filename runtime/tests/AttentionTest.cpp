//===- AttentionTest.cpp - fused scaled dot-product attention -------------===//
//
// The forward pass against a loop in double over the full score matrix,
// the backward pass against central finite differences of that f64 forward.
// Runs on the host device and, when present, on a GPU.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/attention.h"
#include "amp_runtime/float_formats.h"
#include "amp_runtime/launch_grid.h"

#include "KernelTest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace {

using Values = std::vector<double>;

struct Reference {
  Values out, lse;
};

/// Attention in double over explicit score rows.
Reference attention(const amp_attention_t &a, const Values &q, const Values &k,
                    const Values &v) {
  const int64_t d = a.head_dim;
  Reference r{Values(a.batch * a.seq_q * d), Values(a.batch * a.seq_q)};
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t i = 0; i < a.seq_q; ++i) {
      Values scores;
      int64_t keys = a.causal ? i + 1 : a.seq_k;
      double maxScore = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        double s = 0;
        for (int64_t c = 0; c < d; ++c)
          s += q[(b * a.seq_q + i) * d + c] * k[(b * a.seq_k + j) * d + c];
        scores.push_back(a.scale * s);
        maxScore = std::max(maxScore, scores.back());
      }
      double sum = 0;
      for (double s : scores)
        sum += std::exp(s - maxScore);
      for (int64_t j = 0; j < keys; ++j)
        for (int64_t c = 0; c < d; ++c)
          r.out[(b * a.seq_q + i) * d + c] += std::exp(scores[j] - maxScore) /
                                              sum *
                                              v[(b * a.seq_k + j) * d + c];
      r.lse[b * a.seq_q + i] = maxScore + std::log(sum);
    }
  return r;
}

Values randomValues(std::mt19937 &rng, size_t n, amp_dtype_t dtype) {
  std::uniform_real_distribution<double> dist(-1, 1);
  Values out;
  for (size_t i = 0; i < n; ++i) {
    float f = static_cast<float>(dist(rng));
    if (dtype == AMP_F16)
      f = amprt::halfBitsToFloat(amprt::floatToHalfBits(f));
    out.push_back(f);
  }
  return out;
}

class AttentionTest : public KernelTest {
protected:
  void *uploadAs(amp_dtype_t dtype, const Values &values) {
    if (dtype == AMP_F32)
      return upload(std::vector<float>(values.begin(), values.end()));
    std::vector<uint16_t> bits;
    for (double value : values)
      bits.push_back(amprt::floatToHalfBits(static_cast<float>(value)));
    return upload(bits);
  }
  Values downloadAs(amp_dtype_t dtype, void *data, size_t count) {
    Values out;
    if (dtype == AMP_F32) {
      for (float f : download(static_cast<float *>(data), count))
        out.push_back(f);
    } else {
      for (uint16_t h : download(static_cast<uint16_t *>(data), count))
        out.push_back(amprt::halfBitsToFloat(h));
    }
    return out;
  }

  void checkForward(amp_attention_t a, double tolerance) {
    std::mt19937 rng(static_cast<unsigned>(a.seq_q * 31 + a.head_dim));
    size_t qCount = a.batch * a.seq_q * a.head_dim,
           kCount = a.batch * a.seq_k * a.head_dim;
    Values q = randomValues(rng, qCount, a.dtype),
           k = randomValues(rng, kCount, a.dtype),
           v = randomValues(rng, kCount, a.dtype);
    Reference want = attention(a, q, k, v);
    void *out = uploadAs(a.dtype, Values(qCount));
    float *lse = upload(std::vector<float>(a.batch * a.seq_q));
    ASSERT_EQ(amp_attention_forward(stream, &a, uploadAs(a.dtype, q),
                                    uploadAs(a.dtype, k), uploadAs(a.dtype, v),
                                    out, lse),
              nullptr);
    Values got = downloadAs(a.dtype, out, qCount);
    for (size_t i = 0; i < qCount; ++i)
      ASSERT_NEAR(got[i], want.out[i], tolerance) << "out " << i;
    std::vector<float> gotLse = download(lse, a.batch * a.seq_q);
    for (size_t i = 0; i < gotLse.size(); ++i)
      ASSERT_NEAR(gotLse[i], want.lse[i], 1e-5) << "lse " << i;
  }
};

TEST_P(AttentionTest, ForwardMatchesTheScoreMatrix) {
  // Ragged head dims (70 spans three lanes' worth, 1 a single lane), a
  // causal mask, and more keys than queries.
  checkForward({AMP_F32, 3, 9, 9, 70, 0.12f, 1}, 2e-6);
  checkForward({AMP_F32, 2, 5, 13, 1, 1.0f, 0}, 2e-6);
  checkForward({AMP_F32, 1, 17, 17, 256, 0.0625f, 1}, 2e-6);
  // f16 storage: one rounding of the output.
  checkForward({AMP_F16, 2, 12, 12, 64, 0.125f, 1}, 1e-3);
}

TEST_P(AttentionTest, BackwardMatchesFiniteDifferences) {
  // f32 sums dK and dV in place; f16 in the workspace, then rounds once.
  for (amp_dtype_t dtype : {AMP_F32, AMP_F16})
    for (int causal = 0; causal < 2; ++causal) {
      amp_attention_t a{dtype, 2, 6, 6, 37, 0.3f, causal};
      std::mt19937 rng(11 + causal);
      size_t count = a.batch * a.seq_q * a.head_dim;
      Values q = randomValues(rng, count, dtype),
             k = randomValues(rng, count, dtype),
             v = randomValues(rng, count, dtype),
             g = randomValues(rng, count, dtype);
      // L = <g, attention(q, k, v)>, differentiated in f64.
      auto gradient = [&](Values &x) {
        Values out;
        for (size_t i = 0; i < x.size(); ++i) {
          double saved = x[i], h = 1e-6;
          x[i] = saved + h;
          Values up = attention(a, q, k, v).out;
          x[i] = saved - h;
          Values down = attention(a, q, k, v).out;
          x[i] = saved;
          double diff = 0;
          for (size_t j = 0; j < up.size(); ++j)
            diff += g[j] * (up[j] - down[j]);
          out.push_back(diff / (2 * h));
        }
        return out;
      };
      Values wantQ = gradient(q), wantK = gradient(k), wantV = gradient(v);

      Reference forward = attention(a, q, k, v);
      float *lse =
          upload(std::vector<float>(forward.lse.begin(), forward.lse.end()));
      // Overwritten, whatever they held.
      void *dq = uploadAs(dtype, Values(count, 7.0));
      void *dk = uploadAs(dtype, Values(count, 7.0));
      void *dv = uploadAs(dtype, Values(count, 7.0));
      size_t workspaceBytes = amp_attention_backward_workspace(&a);
      EXPECT_EQ(workspaceBytes, dtype == AMP_F32 ? 0 : 2 * count * 4);
      float *workspace =
          workspaceBytes
              ? upload(std::vector<float>(workspaceBytes / sizeof(float), 7.0f))
              : nullptr;
      ASSERT_EQ(amp_attention_backward(
                    stream, &a, uploadAs(dtype, q), uploadAs(dtype, k),
                    uploadAs(dtype, v), uploadAs(dtype, forward.out),
                    uploadAs(dtype, g), lse, dq, dk, dv, workspace),
                nullptr);
      Values gotQ = downloadAs(dtype, dq, count),
             gotK = downloadAs(dtype, dk, count),
             gotV = downloadAs(dtype, dv, count);
      // f16: the output read back and each gradient are rounded to f16
      // (relative 2^-11 on values below 2).
      double tolerance = dtype == AMP_F32 ? 1e-4 : 3e-3;
      for (size_t i = 0; i < count; ++i) {
        EXPECT_NEAR(gotQ[i], wantQ[i], tolerance)
            << "dtype " << dtype << " causal " << causal << " dq " << i;
        EXPECT_NEAR(gotK[i], wantK[i], tolerance)
            << "dtype " << dtype << " causal " << causal << " dk " << i;
        EXPECT_NEAR(gotV[i], wantV[i], tolerance)
            << "dtype " << dtype << " causal " << causal << " dv " << i;
      }
    }
}

TEST_P(AttentionTest, BadArgumentsAreRejected) {
  float *x = upload(std::vector<float>(64));
  auto expectInvalid = [&](amp_attention_t a, const char *fragment) {
    expectInvalidArgument(
        amp_attention_forward(stream, &a, x, x, x, x, nullptr), fragment);
  };
  expectInvalid({AMP_F32, 1, 2, 3, 4, 0.5f, 1}, "causal mask needs");
  expectInvalid({AMP_F32, 1, 2, 2, 300, 0.5f, 0}, "head_dim in [1, 256]");
  expectInvalid({AMP_F32, 1, 2, 0, 4, 0.5f, 0}, "seq_k >= 1");
  expectInvalid({AMP_F32, 1, 2, 2, 4, NAN, 0}, "not finite");
  expectInvalid({AMP_F32, INT64_MAX / 4, 2, 2, 4, 0.5f, 0}, "overflow");
  amp_attention_t ok{AMP_F32, 1, 2, 2, 4, 0.5f, 0};
  // No queries: dK and dV are still overwritten, with zeros.
  amp_attention_t noQueries{AMP_F32, 1, 0, 2, 4, 0.5f, 0};
  float *dk = upload(std::vector<float>(8, 3.0f));
  float *dv = upload(std::vector<float>(8, 3.0f));
  ASSERT_EQ(amp_attention_backward(stream, &noQueries, nullptr, nullptr,
                                   nullptr, nullptr, nullptr, nullptr, nullptr,
                                   dk, dv, nullptr),
            nullptr);
  EXPECT_EQ(download(dk, 8), std::vector<float>(8, 0.0f));
  EXPECT_EQ(download(dv, 8), std::vector<float>(8, 0.0f));
  amp_status_t status = amp_attention_backward(stream, &ok, x, x, x, x, x,
                                               nullptr, x, x, x, nullptr);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  amp_status_free(status);
  // f16 sums dK and dV in an f32 workspace, which must be given.
  amp_attention_t half{AMP_F16, 1, 2, 2, 4, 0.5f, 0};
  EXPECT_EQ(amp_attention_backward_workspace(&ok), 0u);
  EXPECT_EQ(amp_attention_backward_workspace(&half), 2 * 4 * 1 * 2 * 4u);
  status =
      amp_attention_backward(stream, &half, x, x, x, x, x, x, x, x, x, nullptr);
  EXPECT_EQ(amp_status_code(status), AMP_INVALID_ARGUMENT);
  if (status) {
    EXPECT_NE(std::string(amp_status_message(status)).find("workspace"),
              std::string::npos)
        << amp_status_message(status);
  }
  amp_status_free(status);
}

// The workspace a step plans for an f16 or bf16 backward, by hand. Where
// cuDNN takes it, its deterministic backward's dP workspace (2 bytes a
// pair, queries padded to 64, keys to 128), the queries' f32 softmax sums
// and an f32 dQ accumulator; GPT-2 124M at batch 64 (768 rows of 1024
// queries and keys, head dim 64): 1,610,612,736 + 3,145,728 + 201,326,592
// bytes, which the f32 sums of dK and dV (402,653,184) are less than.
TEST(AttentionWorkspaceTest, CoversCudnnsDeterministicBackward) {
  amp_attention_t gpt2{AMP_BF16, 768, 1024, 1024, 64, 0.125f, 1};
  EXPECT_EQ(amp_attention_backward_workspace(&gpt2), 1815085056u);
  // 100 queries pad to 128, 130 keys to 256: 2 * 2 * 128 * 256 = 131,072,
  // 4 * 2 * 100 = 800 and 4 * 2 * 100 * 64 = 51,200.
  amp_attention_t padded{AMP_F16, 2, 100, 130, 64, 0.125f, 0};
  EXPECT_EQ(amp_attention_backward_workspace(&padded), 183072u);
  // A head dim cuDNN does not take: the f32 sums, 2 * 4 * 2 * 130 * 12.
  amp_attention_t odd{AMP_F16, 2, 100, 130, 12, 0.125f, 0};
  EXPECT_EQ(amp_attention_backward_workspace(&odd), 24960u);
  EXPECT_EQ(
      amprt::attentionBackwardWorkspace(true, INT64_MAX / 4, 1024, 1024, 64),
      -1);
  EXPECT_EQ(amprt::attentionBackwardWorkspace(false, 768, 1024, 1024, 64), 0);
}

INSTANTIATE_TEST_SUITE_P(Devices, AttentionTest,
                         ::testing::Values(AMP_DEVICE_HOST, AMP_DEVICE_CUDA),
                         deviceName);

} // namespace
