//===- host_gemm.cpp - the host backend's matrix product ------------------===//
//
// The structure of the BLIS and GotoBLAS products, kept to the
// interpreter's rounding:
//  - op(B) is packed once into slivers of kNR columns, [k][kNR] each, and
//    op(A) per block into slivers of kMR rows, [kc][kMR] each; f16 and bf16
//    are widened to f32 while packing.
//  - The output is cut into kMC x kNC blocks, split over the host's
//    threads; each block's kMR x kNR tiles sum in registers over kKC values
//    of p at a time, in ascending p, carried from one kKC block to the next
//    in an f32 buffer. A product is rounded, then added (no FMA), so every
//    output sees the interpreter's roundings however the loops are cut.
//  - The last kKC block applies alpha, beta, the bias and the activation
//    and stores the block once.
//
//===----------------------------------------------------------------------===//

#include "host_kernels.h"

#include "amp_runtime/float_formats.h"
#include "amp_runtime/scalar_math.h"
#include "row_bodies.h"
#include "status.h"
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {
// A 6 x 16 tile is 12 eight-lane accumulators, two lanes of B, a broadcast
// of A and a product: the 16 registers of AVX2. kKC x kNR of B (16 KiB)
// stays in L1 while a block's tiles stream over it; a block's A (kMC x kKC)
// and B (kKC x kNC) panels take 144 KiB of L2.
constexpr int64_t kMR = 6, kNR = 16, kKC = 256, kMC = 72, kNC = 256;
static_assert(kMC % kMR == 0 && kNC % kNR == 0, "blocks hold whole tiles");

typedef float Lanes __attribute__((vector_size(32)));

/// acc[r][c] (+)= sum over p < kc of a[p][r] * b[p][c], ascending p, each
/// product rounded before it is added. `acc` has rows of kNC floats; it is
/// read unless `first`. Unrolled by hand for the registers: the loops over
/// r and the halves of the tile are fully unrolled, p twice.
__attribute__((target_clones("avx2", "default"))) void
multiplyTile(int64_t kc, const float *a, const float *b, float *acc,
             bool first) {
  Lanes sum[kMR][2];
#pragma GCC unroll 6
  for (int r = 0; r < kMR; ++r)
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      if (first)
        sum[r][h] = Lanes{};
      else
        std::memcpy(&sum[r][h], acc + r * kNC + h * 8, sizeof(Lanes));
    }
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    Lanes left, right;
    std::memcpy(&left, b + p * kNR, sizeof(Lanes));
    std::memcpy(&right, b + p * kNR + 8, sizeof(Lanes));
#pragma GCC unroll 6
    for (int r = 0; r < kMR; ++r) {
      float value = a[p * kMR + r];
      Lanes broadcast = {value, value, value, value,
                         value, value, value, value};
      Lanes product = broadcast * left;
      sum[r][0] = sum[r][0] + product;
      product = broadcast * right;
      sum[r][1] = sum[r][1] + product;
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < kMR; ++r)
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h)
      std::memcpy(acc + r * kNC + h * 8, &sum[r][h], sizeof(Lanes));
}

#if defined(__x86_64__)
__attribute__((target("avx,f16c"))) void
widenHalfF16c(const uint16_t *from, int64_t count, float *to) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8)
    _mm256_storeu_ps(to + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                 reinterpret_cast<const __m128i *>(from + i))));
  for (; i < count; ++i)
    to[i] = _cvtsh_ss(from[i]);
}
const bool hasF16c = __builtin_cpu_supports("f16c");
#endif

} // namespace

void amprt::widenToFloat(amp_dtype_t dtype, const void *data, int64_t offset,
                         int64_t count, float *to) {
  if (dtype == AMP_F32) {
    std::memcpy(to, static_cast<const float *>(data) + offset,
                count * sizeof(float));
    return;
  }
  const uint16_t *from = static_cast<const uint16_t *>(data) + offset;
  if (dtype == AMP_BF16) {
    for (int64_t i = 0; i < count; ++i)
      to[i] = amprt::bitsToFloat(static_cast<uint32_t>(from[i]) << 16);
    return;
  }
#if defined(__x86_64__)
  if (hasF16c) {
    widenHalfF16c(from, count, to);
    return;
  }
#endif
  for (int64_t i = 0; i < count; ++i)
    to[i] = amprt::halfBitsToFloat(from[i]);
}

namespace {
using amprt::widenToFloat;

/// One GEMM of the batch: its operands, sizes and scratch.
class Product {
public:
  Product(const amp_gemm_t &g, const char *a, const char *b, const void *bias,
          void *c, int64_t cBase)
      : g(g), a(a), b(b), bias(bias), c(c), cBase(cBase),
        slivers((g.n + kNR - 1) / kNR), rowBlocks((g.m + kMC - 1) / kMC),
        columnBlocks((g.n + kNC - 1) / kNC) {}

  amp_status_t run() {
    packedB.reset(new (std::nothrow) float[slivers * g.k * kNR]);
    if (!packedB)
      return outOfMemory();
    AMP_RETURN_IF_ERROR(amprt::parallelFor(
        slivers, std::max<int64_t>(1, 4096 / g.k),
        [this](int64_t begin, int64_t end) { packB(begin, end); }));
    // Enough blocks per thread that a thread's share is worth waking it.
    int64_t blockFlops = 2 * kMC * kNC * g.k;
    AMP_RETURN_IF_ERROR(amprt::parallelFor(
        rowBlocks * columnBlocks, std::max<int64_t>(1, 2000000 / blockFlops),
        [this](int64_t begin, int64_t end) { multiplyBlocks(begin, end); }));
    return failed.load() ? outOfMemory() : nullptr;
  }

private:
  amp_status_t outOfMemory() const {
    return AMP_STATUS(AMP_OUT_OF_MEMORY,
                      "no host memory to pack a [%lld, %lld, %lld] GEMM",
                      static_cast<long long>(g.m), static_cast<long long>(g.n),
                      static_cast<long long>(g.k));
  }

  /// Slivers [begin, end) of op(B), [k][kNR] each, zero past column n.
  void packB(int64_t begin, int64_t end) {
    std::unique_ptr<float[]> column;
    if (g.trans_b) {
      column.reset(new (std::nothrow) float[g.k]);
      if (!column) {
        failed = true;
        return;
      }
    }
    for (int64_t s = begin; s < end; ++s) {
      float *sliver = packedB.get() + s * g.k * kNR;
      int64_t j0 = s * kNR, width = std::min(kNR, g.n - j0);
      if (g.trans_b) { // B is [n, k]: a column of op(B) is a row of B
        for (int64_t j = 0; j < kNR; ++j) {
          if (j < width)
            widenToFloat(g.ab_dtype, b, (j0 + j) * g.k, g.k, column.get());
          for (int64_t p = 0; p < g.k; ++p)
            sliver[p * kNR + j] = j < width ? column[p] : 0.0f;
        }
        continue;
      }
      for (int64_t p = 0; p < g.k; ++p) {
        widenToFloat(g.ab_dtype, b, p * g.n + j0, width, sliver + p * kNR);
        std::fill(sliver + p * kNR + width, sliver + (p + 1) * kNR, 0.0f);
      }
    }
  }

  /// Rows [i0, i0 + rows) and values [p0, p0 + kc) of op(A) into `packed`:
  /// slivers of kMR rows, [kc][kMR] each, zero past the last row.
  void packA(int64_t i0, int64_t rows, int64_t p0, int64_t kc, float *packed,
             float *row) const {
    for (int64_t s = 0; s * kMR < rows; ++s) {
      float *sliver = packed + s * kc * kMR;
      int64_t r0 = i0 + s * kMR, height = std::min(kMR, i0 + rows - r0);
      if (g.trans_a) { // A is [k, m]: a row of A holds a column of op(A)
        for (int64_t p = 0; p < kc; ++p) {
          widenToFloat(g.ab_dtype, a, (p0 + p) * g.m + r0, height,
                       sliver + p * kMR);
          std::fill(sliver + p * kMR + height, sliver + (p + 1) * kMR, 0.0f);
        }
        continue;
      }
      for (int64_t r = 0; r < kMR; ++r) {
        if (r < height)
          widenToFloat(g.ab_dtype, a, (r0 + r) * g.k + p0, kc, row);
        for (int64_t p = 0; p < kc; ++p)
          sliver[p * kMR + r] = r < height ? row[p] : 0.0f;
      }
    }
  }

  /// Output blocks [begin, end), row blocks outer.
  void multiplyBlocks(int64_t begin, int64_t end) {
    std::unique_ptr<float[]> acc(new (std::nothrow) float[kMC * kNC]);
    std::unique_ptr<float[]> packedA(new (std::nothrow) float[kMC * kKC]);
    std::unique_ptr<float[]> row(new (std::nothrow) float[kKC]);
    if (!acc || !packedA || !row) {
      failed = true;
      return;
    }
    for (int64_t block = begin; block < end; ++block) {
      int64_t i0 = block / columnBlocks * kMC, j0 = block % columnBlocks * kNC;
      int64_t rows = std::min(kMC, g.m - i0), cols = std::min(kNC, g.n - j0);
      for (int64_t p0 = 0; p0 < g.k; p0 += kKC) {
        int64_t kc = std::min(kKC, g.k - p0);
        packA(i0, rows, p0, kc, packedA.get(), row.get());
        for (int64_t jr = 0; jr < cols; jr += kNR) {
          const float *sliverB =
              packedB.get() + (j0 + jr) / kNR * g.k * kNR + p0 * kNR;
          for (int64_t ir = 0; ir < rows; ir += kMR)
            multiplyTile(kc, packedA.get() + ir * kc, sliverB,
                         acc.get() + ir * kNC + jr, p0 == 0);
        }
      }
      store(i0, rows, j0, cols, acc.get());
    }
  }

  /// C's block at (i0, j0) from the sums in `acc`: alpha, beta, the
  /// epilogue, one rounding to C's type.
  void store(int64_t i0, int64_t rows, int64_t j0, int64_t cols,
             const float *acc) const {
    bool plain = g.alpha == 1 && g.beta == 0 &&
                 g.epilogue == AMP_EPILOGUE_NONE && g.c_dtype == AMP_F32;
    for (int64_t i = 0; i < rows; ++i) {
      int64_t at = cBase + (i0 + i) * g.n + j0;
      const float *sums = acc + i * kNC;
      if (plain) {
        std::memcpy(static_cast<float *>(c) + at, sums, cols * sizeof(float));
        continue;
      }
      for (int64_t j = 0; j < cols; ++j) {
        float value = g.alpha * sums[j];
        if (g.beta != 0)
          value += g.beta * amprt::load(g.c_dtype, c, at + j);
        if (g.epilogue != AMP_EPILOGUE_NONE)
          value = activate(value + amprt::load(g.c_dtype, bias, j0 + j));
        amprt::store(g.c_dtype, c, at + j, value);
      }
    }
  }

  float activate(float value) const {
    if (g.epilogue == AMP_EPILOGUE_BIAS_RELU)
      return value > 0 ? value : (value != value ? value : 0.0f);
    if (g.epilogue == AMP_EPILOGUE_BIAS_GELU)
      return amprt::geluTanh(value);
    return value;
  }

  const amp_gemm_t &g;
  const char *a, *b;
  const void *bias;
  void *c;
  const int64_t cBase;
  const int64_t slivers, rowBlocks, columnBlocks;
  std::unique_ptr<float[]> packedB;
  std::atomic<bool> failed{false};
};
} // namespace

amp_status_t amprt::hostGemm(const amp_gemm_t &g, const void *a, const void *b,
                             const void *bias, void *c) {
  size_t abSize = dtypeSize(g.ab_dtype);
  for (int64_t batch = 0; batch < g.batch; ++batch) {
    Product product(g,
                    static_cast<const char *>(a) + batch * g.m * g.k * abSize,
                    static_cast<const char *>(b) + batch * g.k * g.n * abSize,
                    bias, c, batch * g.m * g.n);
    AMP_RETURN_IF_ERROR(product.run());
  }
  return nullptr;
}
