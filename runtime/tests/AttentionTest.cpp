//===- AttentionTest.cpp - fused scaled dot-product attention -------------===//
//
// The forward pass against a loop in double over the full score matrix,
// the backward pass against central finite differences of that f64 forward,
// strided layouts against the dense one. Runs on the host device and, when
// present, on a GPU.
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
#include <string>
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

/// A tensor of a strided attention: `offset` elements into buffer `buffer`
/// of its case, in `layout`.
struct Placement {
  int buffer;
  int64_t offset;
  amp_attention_layout_t layout;
};

/// Where a compiled step keeps an attention's tensors: its buffers'
/// sizes in elements, and each tensor's place in them.
struct PackedCase {
  const char *name;
  int64_t seqQ, seqK;
  bool causal;
  std::vector<int64_t> bufferSizes;
  Placement q, k, v, out, dout, dq, dk, dv;
};

constexpr int64_t kBatches = 2, kHeads = 3, kDim = 8;
/// Elements at both ends of every buffer of a case, which no call may
/// touch.
constexpr int64_t kMargin = 8;

/// Self-attention as the QKV projection leaves it: Q, K and V in one
/// [B, S, 3, H, D] buffer, out and dout as [B, S, H, D], dq, dk and dv
/// into a [B, S, 3, H, D] gradient.
PackedCase selfAttention(int64_t seq, bool causal) {
  const int64_t hd = kHeads * kDim;
  const amp_attention_layout_t packed{seq * 3 * hd, kDim, 3 * hd};
  const amp_attention_layout_t rows{seq * hd, kDim, hd};
  const int64_t packedSize = kBatches * seq * 3 * hd + 2 * kMargin;
  const int64_t rowsSize = kBatches * seq * hd + 2 * kMargin;
  return {causal ? "causal" : "self",
          seq,
          seq,
          causal,
          {packedSize, rowsSize, rowsSize, packedSize},
          {0, kMargin, packed},
          {0, kMargin + hd, packed},
          {0, kMargin + 2 * hd, packed},
          {1, kMargin, rows},
          {2, kMargin, rows},
          {3, kMargin, packed},
          {3, kMargin + hd, packed},
          {3, kMargin + 2 * hd, packed}};
}

/// Cross-attention, more keys than queries, each tensor in a layout of its
/// own: K (and dK) in one half of a [B, Sk, 2, H, D] buffer, the rest
/// [B, S, H, D + 8] or [B, H, S, D + 8], rows with gaps after them.
PackedCase crossAttention(int64_t seqQ, int64_t seqK) {
  const int64_t hd = kHeads * kDim, padded = kDim + 8;
  auto tokenMajor = [&](int64_t seq, int64_t row) {
    return amp_attention_layout_t{seq * kHeads * row, row, kHeads * row};
  };
  auto headMajor = [&](int64_t seq) {
    return amp_attention_layout_t{kHeads * seq * padded, seq * padded, padded};
  };
  const amp_attention_layout_t keys{seqK * 2 * hd, kDim, 2 * hd};
  const int64_t keysSize = kBatches * seqK * 2 * hd + 2 * kMargin;
  const int64_t queriesSize = kBatches * seqQ * kHeads * padded + 2 * kMargin;
  const int64_t valuesSize = kBatches * seqK * kHeads * padded + 2 * kMargin;
  return {"cross",
          seqQ,
          seqK,
          false,
          {queriesSize, keysSize, valuesSize, queriesSize, queriesSize,
           queriesSize, keysSize, valuesSize},
          {0, kMargin, tokenMajor(seqQ, padded)},
          {1, kMargin, keys},
          {2, kMargin, headMajor(seqK)},
          {3, kMargin, tokenMajor(seqQ, kDim)},
          {4, kMargin, headMajor(seqQ)},
          {5, kMargin, tokenMajor(seqQ, padded)},
          {6, kMargin + hd, keys},
          {7, kMargin, headMajor(seqK)}};
}

/// The raw bits of elements in the attention's dtype (f16 and bf16 in the
/// low half).
using Bits = std::vector<uint32_t>;

uint32_t bitsOf(amp_dtype_t dtype, float value) {
  if (dtype == AMP_F16)
    return amprt::floatToHalfBits(value);
  if (dtype == AMP_BF16)
    return amprt::floatToBFloat16Bits(value);
  return amprt::floatToBits(value);
}

Bits randomBits(std::mt19937 &rng, size_t n, amp_dtype_t dtype) {
  std::uniform_real_distribution<float> dist(-1, 1);
  Bits out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(bitsOf(dtype, dist(rng)));
  return out;
}

/// What the buffers hold outside the views: a NaN in every dtype.
uint32_t sentinel(amp_dtype_t dtype) {
  return dtype == AMP_F32 ? 0xffffffffu : 0xffffu;
}

/// The element of its buffer that holds element `index` of a dense
/// [batch x heads, seq, head_dim] tensor placed at `place`: attention.h's
/// b * batch + h * head + s * seq + c.
int64_t placedAt(const Placement &place, int64_t seq, int64_t index) {
  const int64_t c = index % kDim, row = index / kDim;
  const int64_t s = row % seq, bh = row / seq;
  const amp_attention_layout_t &l = place.layout;
  return place.offset + bh / kHeads * l.batch + bh % kHeads * l.head +
         s * l.seq + c;
}

class AttentionLayoutTest : public AttentionTest {
protected:
  void *uploadBits(amp_dtype_t dtype, const Bits &bits) {
    if (dtype == AMP_F32)
      return upload(bits);
    return upload(std::vector<uint16_t>(bits.begin(), bits.end()));
  }
  Bits downloadBits(amp_dtype_t dtype, void *data, size_t count) {
    if (dtype == AMP_F32)
      return download(static_cast<uint32_t *>(data), count);
    std::vector<uint16_t> half = download(static_cast<uint16_t *>(data), count);
    return Bits(half.begin(), half.end());
  }
  /// `a`'s f32 workspace for the backward, holding garbage; null for f32.
  float *workspaceFor(const amp_attention_t &a) {
    size_t bytes = amp_attention_backward_workspace(&a);
    return bytes ? upload(std::vector<float>(bytes / sizeof(float), 7.0f))
                 : nullptr;
  }
};

// The strided attention reads and writes through its layouts and computes
// exactly what the dense one does on the same values: every result equal
// bit for bit, every element outside the views untouched. On a GPU the
// runtime's own backward gathers dK and dV with atomics, in no fixed
// order: there they are compared within a rounding or two.
TEST_P(AttentionLayoutTest, PackedLayoutsMatchTheDenseLayout) {
  const bool atomicSums = GetParam() == AMP_DEVICE_CUDA;
  for (amp_dtype_t dtype : {AMP_F32, AMP_F16, AMP_BF16})
    for (const PackedCase &packed :
         {selfAttention(5, false), selfAttention(5, true),
          crossAttention(5, 7)}) {
      SCOPED_TRACE(std::string(packed.name) + " dtype " +
                   std::to_string(dtype));
      amp_attention_t dense{
          dtype, kBatches * kHeads, packed.seqQ, packed.seqK, kDim,
          0.35f, packed.causal};
      const int64_t rows = dense.batch;
      const size_t queryCount = rows * packed.seqQ * kDim,
                   keyCount = rows * packed.seqK * kDim;
      std::mt19937 rng(static_cast<unsigned>(dtype * 7 + packed.seqK));
      Bits q = randomBits(rng, queryCount, dtype),
           k = randomBits(rng, keyCount, dtype),
           v = randomBits(rng, keyCount, dtype),
           dout = randomBits(rng, queryCount, dtype);

      // The dense run.
      void *out = uploadBits(dtype, Bits(queryCount));
      float *lse = upload(std::vector<float>(rows * packed.seqQ));
      void *dq = uploadBits(dtype, Bits(queryCount)),
           *dk = uploadBits(dtype, Bits(keyCount)),
           *dv = uploadBits(dtype, Bits(keyCount));
      void *qIn = uploadBits(dtype, q), *kIn = uploadBits(dtype, k),
           *vIn = uploadBits(dtype, v);
      ASSERT_EQ(amp_attention_forward(stream, &dense, qIn, kIn, vIn, out, lse),
                nullptr);
      ASSERT_EQ(amp_attention_backward(stream, &dense, qIn, kIn, vIn, out,
                                       uploadBits(dtype, dout), lse, dq, dk, dv,
                                       workspaceFor(dense)),
                nullptr);

      // The same values placed in the case's buffers, around sentinels.
      amp_attention_t strided = dense;
      strided.heads = kHeads;
      strided.q = packed.q.layout;
      strided.k = packed.k.layout;
      strided.v = packed.v.layout;
      strided.out = packed.out.layout;
      strided.dout = packed.dout.layout;
      strided.dq = packed.dq.layout;
      strided.dk = packed.dk.layout;
      strided.dv = packed.dv.layout;
      std::vector<Bits> images;
      for (int64_t size : packed.bufferSizes)
        images.push_back(Bits(size, sentinel(dtype)));
      auto place = [&](const Placement &at, int64_t seq, const Bits &values) {
        for (size_t i = 0; i < values.size(); ++i)
          images[at.buffer][placedAt(at, seq, i)] = values[i];
      };
      place(packed.q, packed.seqQ, q);
      place(packed.k, packed.seqK, k);
      place(packed.v, packed.seqK, v);
      place(packed.dout, packed.seqQ, dout);
      const std::vector<Bits> inputs = images;
      std::vector<void *> buffers;
      for (const Bits &image : images)
        buffers.push_back(uploadBits(dtype, image));
      auto at = [&](const Placement &p) {
        return static_cast<char *>(buffers[p.buffer]) +
               p.offset * (dtype == AMP_F32 ? 4 : 2);
      };
      float *stridedLse = upload(std::vector<float>(rows * packed.seqQ));
      ASSERT_EQ(amp_attention_forward(stream, &strided, at(packed.q),
                                      at(packed.k), at(packed.v),
                                      at(packed.out), stridedLse),
                nullptr);
      ASSERT_EQ(amp_attention_backward(
                    stream, &strided, at(packed.q), at(packed.k), at(packed.v),
                    at(packed.out), at(packed.dout), stridedLse, at(packed.dq),
                    at(packed.dk), at(packed.dv), workspaceFor(strided)),
                nullptr);

      // What each buffer must hold now: the inputs, and the dense results
      // where the outputs lie.
      std::vector<Bits> want = inputs;
      std::vector<std::vector<bool>> atomic;
      for (const Bits &image : want)
        atomic.push_back(std::vector<bool>(image.size(), false));
      auto expect = [&](const Placement &p, int64_t seq, void *denseResult,
                        size_t count, bool gathered) {
        Bits result = downloadBits(dtype, denseResult, count);
        for (size_t i = 0; i < count; ++i) {
          want[p.buffer][placedAt(p, seq, i)] = result[i];
          atomic[p.buffer][placedAt(p, seq, i)] = gathered && atomicSums;
        }
      };
      expect(packed.out, packed.seqQ, out, queryCount, false);
      expect(packed.dq, packed.seqQ, dq, queryCount, false);
      expect(packed.dk, packed.seqK, dk, keyCount, true);
      expect(packed.dv, packed.seqK, dv, keyCount, true);
      for (size_t b = 0; b < buffers.size(); ++b) {
        Bits got = downloadBits(dtype, buffers[b], want[b].size());
        for (size_t i = 0; i < got.size(); ++i) {
          if (!atomic[b][i]) {
            ASSERT_EQ(got[i], want[b][i]) << "buffer " << b << " element " << i;
            continue;
          }
          auto value = [&](uint32_t bits) -> double {
            return dtype == AMP_F32   ? amprt::bitCast<float>(bits)
                   : dtype == AMP_F16 ? amprt::halfBitsToFloat(bits)
                                      : amprt::bfloat16BitsToFloat(bits);
          };
          double expected = value(want[b][i]);
          double tolerance =
              (dtype == AMP_F32 ? 1e-5 : 4 * unitRoundoff(dtype)) *
              (1 + std::fabs(expected));
          ASSERT_NEAR(value(got[i]), expected, tolerance)
              << "buffer " << b << " element " << i;
        }
      }
      std::vector<float> wantLse = download(lse, rows * packed.seqQ),
                         gotLse = download(stridedLse, rows * packed.seqQ);
      for (size_t i = 0; i < wantLse.size(); ++i)
        ASSERT_EQ(amprt::floatToBits(gotLse[i]), amprt::floatToBits(wantLse[i]))
            << "lse " << i;
    }
}

// Without queries dK and dV are zeros, written through their layouts
// only (f32 sums in place, so this is where a dense clear would spill
// into dQ's slots of the packed gradient).
TEST_P(AttentionLayoutTest, PackedGradientsWithoutQueriesAreZeroed) {
  for (amp_dtype_t dtype : {AMP_F32, AMP_BF16}) {
    SCOPED_TRACE("dtype " + std::to_string(dtype));
    PackedCase packed = selfAttention(4, false);
    amp_attention_t a{dtype, kBatches * kHeads, 0, packed.seqK, kDim, 0.5f, 0};
    a.heads = kHeads;
    a.dk = packed.dk.layout;
    a.dv = packed.dv.layout;
    Bits image(packed.bufferSizes[packed.dk.buffer], sentinel(dtype));
    void *grads = uploadBits(dtype, image);
    auto at = [&](const Placement &p) {
      return static_cast<char *>(grads) + p.offset * (dtype == AMP_F32 ? 4 : 2);
    };
    ASSERT_EQ(amp_attention_backward(stream, &a, nullptr, nullptr, nullptr,
                                     nullptr, nullptr, nullptr, nullptr,
                                     at(packed.dk), at(packed.dv),
                                     workspaceFor(a)),
              nullptr);
    const size_t keyCount = a.batch * a.seq_k * kDim;
    for (const Placement *p : {&packed.dk, &packed.dv})
      for (size_t i = 0; i < keyCount; ++i)
        image[placedAt(*p, a.seq_k, i)] = 0;
    EXPECT_EQ(downloadBits(dtype, grads, image.size()), image);
  }
}

TEST_P(AttentionLayoutTest, BadLayoutsAreRejected) {
  float *x = upload(std::vector<float>(4096));
  const amp_attention_layout_t packed{5 * 3 * 3 * 8, 8, 3 * 3 * 8};
  amp_attention_t a{AMP_F32, 6, 5, 5, 8, 0.5f, 1};
  a.heads = 3;
  a.q = a.k = a.v = packed;
  auto expectForward = [&](amp_attention_t bad, const char *fragment) {
    expectInvalidArgument(
        amp_attention_forward(stream, &bad, x, x, x, x, nullptr), fragment);
  };
  auto expectBackward = [&](amp_attention_t bad, const char *fragment) {
    expectInvalidArgument(amp_attention_backward(stream, &bad, x, x, x, x, x, x,
                                                 x, x, x, nullptr),
                          fragment);
  };
  amp_attention_t notDividing = a;
  notDividing.heads = 4;
  expectForward(notDividing, "needs heads >= 1 dividing batch");
  amp_attention_t noHeads = a;
  noHeads.heads = 0;
  expectForward(noHeads, "needs heads >= 1 dividing batch");
  amp_attention_t negativeHeads = a;
  negativeHeads.heads = -3;
  expectForward(negativeHeads, "heads -3 is negative");
  amp_attention_t negativeStride = a;
  negativeStride.k.seq = -72;
  expectForward(negativeStride, "layout of k has a negative stride");
  amp_attention_t overflowing = a;
  overflowing.v.batch = INT64_MAX / 2;
  expectForward(overflowing, "layout of v overflows");
  // The backward's own tensors are checked by the backward.
  amp_attention_t badGradient = a;
  badGradient.dk.head = -8;
  expectBackward(badGradient, "layout of dk has a negative stride");
  amp_attention_t badDout = a;
  badDout.heads = 4;
  badDout.q = badDout.k = badDout.v = amp_attention_layout_t{};
  badDout.dout = packed;
  expectBackward(badDout, "strided layout of dout needs heads");
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
INSTANTIATE_TEST_SUITE_P(Devices, AttentionLayoutTest,
                         ::testing::Values(AMP_DEVICE_HOST, AMP_DEVICE_CUDA),
                         deviceName);

} // namespace
