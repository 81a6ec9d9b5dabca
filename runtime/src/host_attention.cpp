//===- host_attention.cpp - the host backend's attention ------------------===//
//
// The interpreter's attention, in its order, restructured for the host's
// vector unit and threads:
//  - each (batch, head) widens its queries, keys and values to f32 once,
//    keys and values also transposed, and runs on one of the host's
//    threads (the heads write disjoint outputs);
//  - a query's scores against all its keys are computed together: for
//    each c in ascending order, score[j] += q[c] * kT[c][j] over the keys j
//    in vector lanes, which is every dot product's own ascending-c sum;
//  - the sums over keys (softmax, P V) and over queries (dK, dV) keep
//    their order; only the loops over c, which no sum crosses, are in lanes.
// Every tensor is read and written through its layout (attention.h); the
// arithmetic does not depend on where the rows lie.
//
//===----------------------------------------------------------------------===//

#include "host_kernels.h"

#include "row_bodies.h"
#include "status.h"
#include "thread_pool.h"

#include <atomic>
#include <cmath>
#include <memory>
#include <new>
#include <vector>

namespace {

using amprt::AttentionRows;

/// The rows of (batch, head) `bh` of a tensor of `seq` rows in `layout`.
AttentionRows headRows(const amp_attention_t &a,
                       const amp_attention_layout_t &layout, int64_t seq,
                       int64_t bh) {
  return amprt::attentionRows(layout, a.heads, seq, a.head_dim, bh);
}

/// f32 copies of one (batch, head)'s rows: [rows][d], and transposed.
struct Widened {
  std::vector<float> rows, columns;
  void load(amp_dtype_t dtype, const void *data, AttentionRows from,
            int64_t count, int64_t d, bool transposed) {
    rows.resize(count * d);
    if (from.stride == d) // contiguous: one widening
      amprt::widenToFloat(dtype, data, from.base, count * d, rows.data());
    else
      for (int64_t j = 0; j < count; ++j)
        amprt::widenToFloat(dtype, data, from.at(j), d, rows.data() + j * d);
    if (!transposed)
      return;
    columns.resize(d * count);
    for (int64_t j = 0; j < count; ++j)
      for (int64_t c = 0; c < d; ++c)
        columns[c * count + j] = rows[j * d + c];
  }
};

/// dots[j] = sum over ascending c of x[c] * columns[c][j], j < keys: the
/// dot products of x with the first `keys` rows, each in its own order.
__attribute__((target_clones("avx2", "default"))) void
dotsWithRows(const float *x, const float *columns, int64_t stride, int64_t d,
             int64_t keys, float *dots) {
  for (int64_t j = 0; j < keys; ++j)
    dots[j] = 0;
  for (int64_t c = 0; c < d; ++c) {
    const float xc = x[c];
    const float *column = columns + c * stride;
    for (int64_t j = 0; j < keys; ++j) {
      float product = xc * column[j];
      dots[j] += product;
    }
  }
}

/// to[c] += scale * from[c], c < d.
__attribute__((target_clones("avx2", "default"))) void
addScaled(float *to, float scale, const float *from, int64_t d) {
  for (int64_t c = 0; c < d; ++c) {
    float product = scale * from[c];
    to[c] += product;
  }
}

/// Runs `body(bh, scratch)` for every (batch, head) on the host's threads,
/// with per-thread scratch; false when memory ran out.
template <typename Scratch, typename Body>
amp_status_t forEachHead(int64_t heads, const Body &body) {
  std::atomic<bool> failed{false};
  AMP_RETURN_IF_ERROR(
      amprt::parallelFor(heads, 1, [&](int64_t begin, int64_t end) {
        try {
          Scratch scratch;
          for (int64_t bh = begin; bh < end; ++bh)
            body(bh, scratch);
        } catch (const std::bad_alloc &) {
          failed = true;
        }
      }));
  if (failed)
    return AMP_STATUS(AMP_OUT_OF_MEMORY, "no host memory for attention");
  return nullptr;
}

struct ForwardScratch {
  Widened q, k, v;
  std::vector<float> scores, acc;
};

struct BackwardScratch {
  Widened q, k, v, out, dout;
  std::vector<float> scores, dps, dq;
};

} // namespace

amp_status_t amprt::hostAttentionForward(const amp_attention_t &a,
                                         const void *q, const void *k,
                                         const void *v, void *out, float *lse) {
  const int64_t d = a.head_dim, sq = a.seq_q, sk = a.seq_k;
  return forEachHead<ForwardScratch>(
      a.batch, [&](int64_t bh, ForwardScratch &s) {
        if (sq == 0)
          return; // no queries: nothing to read or write
        s.q.load(a.dtype, q, headRows(a, a.q, sq, bh), sq, d, false);
        s.k.load(a.dtype, k, headRows(a, a.k, sk, bh), sk, d, true);
        s.v.load(a.dtype, v, headRows(a, a.v, sk, bh), sk, d, false);
        AttentionRows outRows = headRows(a, a.out, sq, bh);
        s.scores.resize(sk);
        s.acc.resize(d);
        for (int64_t i = 0; i < sq; ++i) {
          int64_t keys = a.causal ? std::min(i + 1, sk) : sk;
          dotsWithRows(s.q.rows.data() + i * d, s.k.columns.data(), sk, d, keys,
                       s.scores.data());
          float maxScore = -INFINITY;
          for (int64_t j = 0; j < keys; ++j) {
            s.scores[j] = a.scale * s.scores[j];
            maxScore = nanMax(maxScore, s.scores[j]);
          }
          float sum = 0;
          std::fill(s.acc.begin(), s.acc.end(), 0.0f);
          for (int64_t j = 0; j < keys; ++j) {
            float p = amprt::math::exp(s.scores[j] - maxScore);
            sum += p;
            addScaled(s.acc.data(), p, s.v.rows.data() + j * d, d);
          }
          int64_t row = outRows.at(i);
          for (int64_t c = 0; c < d; ++c)
            store(a.dtype, out, row + c, s.acc[c] / sum);
          if (lse)
            lse[bh * sq + i] = maxScore + std::log(sum);
        }
      });
}

// With P = exp(S - lse) recomputed: dV = P^T dO, dP = dO V^T,
// dS = P (dP - rowsum(dO * O)), dQ = scale dS K, dK = scale dS^T Q. Each
// query's dQ is summed in f32 over its keys and stored once; dK and dV are
// summed over the queries in f32 (in place for f32, through dk's and dv's
// layouts, else densely in the workspace) and stored at the end.
amp_status_t amprt::hostAttentionBackward(const amp_attention_t &a,
                                          const void *q, const void *k,
                                          const void *v, const void *out,
                                          const void *dout, const float *lse,
                                          void *dqOut, void *dkOut, void *dvOut,
                                          float *workspace) {
  const int64_t d = a.head_dim, sq = a.seq_q, sk = a.seq_k;
  const int64_t keyCount = a.batch * sk * d;
  bool wide = a.dtype == AMP_F32;
  float *dk = wide ? static_cast<float *>(dkOut) : workspace;
  float *dv = wide ? static_cast<float *>(dvOut) : workspace + keyCount;
  const amp_attention_layout_t dense{};
  const amp_attention_layout_t &dkSums = wide ? a.dk : dense;
  const amp_attention_layout_t &dvSums = wide ? a.dv : dense;
  return forEachHead<BackwardScratch>(
      a.batch, [&](int64_t bh, BackwardScratch &s) {
        AttentionRows dkRows = headRows(a, dkSums, sk, bh);
        AttentionRows dvRows = headRows(a, dvSums, sk, bh);
        for (int64_t j = 0; j < sk; ++j) {
          std::fill(dk + dkRows.at(j), dk + dkRows.at(j) + d, 0.0f);
          std::fill(dv + dvRows.at(j), dv + dvRows.at(j) + d, 0.0f);
        }
        if (sq > 0) { // without queries, dK and dV are zeros
          s.q.load(a.dtype, q, headRows(a, a.q, sq, bh), sq, d, false);
          s.k.load(a.dtype, k, headRows(a, a.k, sk, bh), sk, d, true);
          s.v.load(a.dtype, v, headRows(a, a.v, sk, bh), sk, d, true);
          s.out.load(a.dtype, out, headRows(a, a.out, sq, bh), sq, d, false);
          s.dout.load(a.dtype, dout, headRows(a, a.dout, sq, bh), sq, d, false);
          s.scores.resize(sk);
          s.dps.resize(sk);
          s.dq.resize(d);
        }
        AttentionRows dqRows = headRows(a, a.dq, sq, bh);
        for (int64_t i = 0; i < sq; ++i) {
          const float *qi = s.q.rows.data() + i * d;
          const float *doi = s.dout.rows.data() + i * d;
          const float *oi = s.out.rows.data() + i * d;
          float rowDot = 0;
          for (int64_t c = 0; c < d; ++c)
            rowDot += doi[c] * oi[c];
          int64_t keys = a.causal ? std::min(i + 1, sk) : sk;
          dotsWithRows(qi, s.k.columns.data(), sk, d, keys, s.scores.data());
          dotsWithRows(doi, s.v.columns.data(), sk, d, keys, s.dps.data());
          std::fill(s.dq.begin(), s.dq.end(), 0.0f);
          float rowLse = lse[bh * sq + i];
          for (int64_t j = 0; j < keys; ++j) {
            float p = amprt::math::exp(a.scale * s.scores[j] - rowLse);
            float ds = p * (s.dps[j] - rowDot) * a.scale;
            addScaled(dv + dvRows.at(j), p, doi, d);
            addScaled(s.dq.data(), ds, s.k.rows.data() + j * d, d);
            addScaled(dk + dkRows.at(j), ds, qi, d);
          }
          int64_t row = dqRows.at(i);
          for (int64_t c = 0; c < d; ++c)
            store(a.dtype, dqOut, row + c, s.dq[c]);
        }
        if (wide)
          return;
        AttentionRows dkStores = headRows(a, a.dk, sk, bh);
        AttentionRows dvStores = headRows(a, a.dv, sk, bh);
        for (int64_t j = 0; j < sk; ++j)
          for (int64_t c = 0; c < d; ++c) {
            store(a.dtype, dkOut, dkStores.at(j) + c, dk[dkRows.at(j) + c]);
            store(a.dtype, dvOut, dvStores.at(j) + c, dv[dvRows.at(j) + c]);
          }
      });
}
