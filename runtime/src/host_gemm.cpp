//===- host_gemm.cpp - the host backend's matrix product ------------------===//
//
// The structure of the BLIS and GotoBLAS products, kept to the
// interpreter's rounding:
//  - op(B) is packed once into slivers of kNR columns, [k][kNR] each, and
//    op(A) per block into slivers of kMR rows, [kc][kMR] each; f16 and bf16
//    are widened to f32 while packing.
//  - The output is cut into blocks of at most kMC rows by spans of columns
//    (Product), split over the host's threads; each block's kMR x kNR
//    tiles sum in registers over kKC values of p at a time, in ascending
//    p, carried from one kKC block to the next in f32 (in C itself when C
//    is f32 and taken as it is, else in a buffer). A product is rounded,
//    then added (no FMA), so every output sees the interpreter's roundings
//    however the loops are cut.
//  - After the last kKC block, a pass over the block applies alpha, beta,
//    the bias and the activation and rounds to C's type once.
//
//===----------------------------------------------------------------------===//

#include "host_kernels.h"

#include "amp_runtime/float_formats.h"
#include "amp_runtime/scalar_math.h"
#include "fp8_bodies.h"
#include "row_bodies.h"
#include "status.h"
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
// The hot loops built for AVX2 too, picked at load time where the CPU has
// it (any x86-64 runs the default build).
#define AMP_GEMM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define AMP_GEMM_CLONES
#endif

namespace {
// A 6 x 16 tile is 12 eight-lane accumulators, two lanes of B, a broadcast
// of A and a product: the 16 registers of AVX2. A sliver of B (kKC x kNR,
// 16 KiB) stays in L1 while the block's tiles of rows pass over it; the
// block's packed A (kMC x kKC, 72 KiB) stays in L2 for all its columns.
constexpr int64_t kMR = 6, kNR = 16, kKC = 256, kMC = 72, kNC = 256;
static_assert(kMC % kMR == 0 && kNC % kNR == 0, "blocks hold whole tiles");

typedef float Lanes __attribute__((vector_size(32)));

/// acc[r][c] (+)= sum over p < kc of a[p][r] * b[p][c], ascending p, each
/// product rounded before it is added. `acc` has rows `ld` floats apart; it
/// is read unless `first`. Unrolled for the registers: the loops over r and
/// the halves of the tile fully, p twice.
AMP_GEMM_CLONES void multiplyTile(int64_t kc, const float *a, const float *b,
                                  float *acc, int64_t ld, bool first) {
  Lanes sum[kMR][2];
#pragma GCC unroll 6
  for (int r = 0; r < kMR; ++r)
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      if (first)
        sum[r][h] = Lanes{};
      else
        std::memcpy(&sum[r][h], acc + r * ld + h * 8, sizeof(Lanes));
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
      std::memcpy(acc + r * ld + h * 8, &sum[r][h], sizeof(Lanes));
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
/// Rounds to nearest even as floatToHalfBits does; a NaN lane is then
/// made sign | 0x7e00 (F16C keeps part of the payload, the software path
/// does not).
__attribute__((target("avx,f16c"))) void
narrowHalfF16c(const float *from, int64_t count, uint16_t *to) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m256 values = _mm256_loadu_ps(from + i);
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(to + i),
        _mm256_cvtps_ph(values, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    if (_mm256_movemask_ps(_mm256_cmp_ps(values, values, _CMP_UNORD_Q)))
      for (int64_t j = i; j < i + 8; ++j)
        to[j] = amprt::floatToHalfBits(from[j]);
  }
  for (; i < count; ++i)
    to[i] = amprt::floatToHalfBits(from[i]);
}
const bool hasF16c = __builtin_cpu_supports("f16c");
#endif

} // namespace

void amprt::narrowFloatToHalf(const float *from, int64_t count, uint16_t *to) {
#if defined(__x86_64__)
  if (hasF16c) {
    narrowHalfF16c(from, count, to);
    return;
  }
#endif
  for (int64_t i = 0; i < count; ++i)
    to[i] = floatToHalfBits(from[i]);
}

void amprt::widenHalfToFloat(const uint16_t *from, int64_t count, float *to) {
#if defined(__x86_64__)
  if (hasF16c) {
    widenHalfF16c(from, count, to);
    return;
  }
#endif
  for (int64_t i = 0; i < count; ++i)
    to[i] = halfBitsToFloat(from[i]);
}

namespace {
using amprt::widenToFloat;

/// Scratch that outlives a product, one set per thread: sizes repeat from
/// step to step, so memory is taken once rather than per call.
struct Scratch {
  std::vector<float> acc, packedA, row, values, biasRow;
};
thread_local Scratch threadScratch;
thread_local std::vector<float> threadPackedB;

/// `buffer` holding at least `size` floats.
float *sized(std::vector<float> &buffer, size_t size) {
  if (buffer.size() < size)
    buffer.resize(size);
  return buffer.data();
}

/// One GEMM of the batch: its operands, sizes and the split of its output.
/// The output is cut into tasks: a block of rows (at most kMC, whole tiles
/// of kMR but at the bottom) by a span of columns. The row blocks are as
/// even as tiles allow and a multiple of the threads in number where
/// there are rows enough, so that the threads get equal shares; spans
/// (of kNC columns or more) split the columns too when rows are few. A
/// task packs each kKC block of its rows of A once and multiplies it by
/// its span of B.
class Product {
public:
  Product(const amp_gemm_t &g, const char *a, const char *b, const void *bias,
          void *c, int64_t cBase)
      : g(g), a(a), b(b), bias(bias), c(c), cBase(cBase),
        slivers((g.n + kNR - 1) / kNR), rowTiles((g.m + kMR - 1) / kMR),
        plain(g.alpha == 1 && g.beta == 0 && g.epilogue == AMP_EPILOGUE_NONE &&
              g.c_dtype == AMP_F32) {
    int64_t threads = amp_host_thread_count();
    // ceil(m / kMR) <= (kMC / kMR) ceil(m / kMC): no block exceeds kMC rows.
    rowBlocks = (g.m + kMC - 1) / kMC;
    rowBlocks =
        std::min(rowTiles, (rowBlocks + threads - 1) / threads * threads);
    int64_t columnBlocks = (g.n + kNC - 1) / kNC;
    int64_t spans =
        rowBlocks % threads == 0
            ? 1
            : std::min(columnBlocks, (2 * threads + rowBlocks - 1) / rowBlocks);
    spanWidth = (columnBlocks + spans - 1) / spans * kNC;
    spanCount = (g.n + spanWidth - 1) / spanWidth;
  }

  amp_status_t run() {
    try {
      packedB = sized(threadPackedB, slivers * g.k * kNR);
    } catch (const std::bad_alloc &) {
      return outOfMemory();
    }
    AMP_RETURN_IF_ERROR(amprt::parallelFor(
        slivers, std::max<int64_t>(1, 4096 / g.k),
        [this](int64_t begin, int64_t end) { packB(begin, end); }));
    // Enough tasks per thread that a thread's share is worth waking it.
    int64_t taskFlops = 2 * kMC * spanWidth * g.k;
    AMP_RETURN_IF_ERROR(amprt::parallelFor(
        rowBlocks * spanCount, std::max<int64_t>(1, 2000000 / taskFlops),
        [this](int64_t begin, int64_t end) { multiplyTasks(begin, end); }));
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
  /// Built for AVX2 too, as are the tasks, with what they call inlined:
  /// the widening, the packing and the output pass run 8 lanes wide.
  AMP_GEMM_CLONES __attribute__((flatten)) void packB(int64_t begin,
                                                      int64_t end) {
    float *column = nullptr;
    if (g.trans_b) {
      try {
        column = sized(threadScratch.row, g.k);
      } catch (const std::bad_alloc &) {
        failed = true;
        return;
      }
    }
    for (int64_t s = begin; s < end; ++s) {
      float *sliver = packedB + s * g.k * kNR;
      int64_t j0 = s * kNR, width = std::min(kNR, g.n - j0);
      if (g.trans_b) { // B is [n, k]: a column of op(B) is a row of B
        for (int64_t j = 0; j < kNR; ++j) {
          if (j < width)
            widenToFloat(g.ab_dtype, b, (j0 + j) * g.k, g.k, column);
          for (int64_t p = 0; p < g.k; ++p)
            sliver[p * kNR + j] = j < width ? column[p] : 0.0f;
        }
        continue;
      }
      for (int64_t p = 0; p < g.k; ++p) {
        if (width == kNR) { // a whole row of the sliver: a constant count
          widenToFloat(g.ab_dtype, b, p * g.n + j0, kNR, sliver + p * kNR);
          continue;
        }
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
          if (height == kMR) { // a whole row of the sliver: a constant count
            widenToFloat(g.ab_dtype, a, (p0 + p) * g.m + r0, kMR,
                         sliver + p * kMR);
            continue;
          }
          widenToFloat(g.ab_dtype, a, (p0 + p) * g.m + r0, height,
                       sliver + p * kMR);
          std::fill(sliver + p * kMR + height, sliver + (p + 1) * kMR, 0.0f);
        }
        continue;
      }
      for (int64_t r = 0; r < kMR; ++r) {
        const float *from = row;
        if (r < height && g.ab_dtype == AMP_F32)
          from = reinterpret_cast<const float *>(a) + (r0 + r) * g.k + p0;
        else if (r < height)
          widenToFloat(g.ab_dtype, a, (r0 + r) * g.k + p0, kc, row);
        for (int64_t p = 0; p < kc; ++p)
          sliver[p * kMR + r] = r < height ? from[p] : 0.0f;
      }
    }
  }

  /// Tasks [begin, end): row blocks outer, spans inner.
  AMP_GEMM_CLONES __attribute__((flatten)) void multiplyTasks(int64_t begin,
                                                              int64_t end) {
    Scratch &scratch = threadScratch;
    float *packedA, *row, *acc = nullptr, *values = nullptr, *biasRow = nullptr;
    try {
      packedA = sized(scratch.packedA, kMC * kKC);
      row = sized(scratch.row, kKC);
      if (!plain) {
        acc = sized(scratch.acc, kMC * spanWidth);
        values = sized(scratch.values, spanWidth);
        biasRow = sized(scratch.biasRow, spanWidth);
      }
    } catch (const std::bad_alloc &) {
      failed = true;
      return;
    }
    for (int64_t task = begin; task < end; ++task) {
      int64_t block = task / spanCount, j0 = task % spanCount * spanWidth;
      int64_t i0 = block * rowTiles / rowBlocks * kMR;
      int64_t rows =
          std::min((block + 1) * rowTiles / rowBlocks * kMR, g.m) - i0;
      int64_t cols = std::min(spanWidth, g.n - j0);
      // f32 outputs taken as they are sum into C itself; the others into
      // `acc`, which the epilogue then reads.
      float *out =
          plain ? static_cast<float *>(c) + cBase + i0 * g.n + j0 : acc;
      int64_t ld = plain ? g.n : spanWidth;
      for (int64_t p0 = 0; p0 < g.k; p0 += kKC) {
        int64_t kc = std::min(kKC, g.k - p0);
        packA(i0, rows, p0, kc, packedA, row);
        for (int64_t jr = 0; jr < cols; jr += kNR) {
          const float *sliverB =
              packedB + (j0 + jr) / kNR * g.k * kNR + p0 * kNR;
          for (int64_t ir = 0; ir < rows; ir += kMR)
            tile(kc, packedA + ir * kc, sliverB, out + ir * ld + jr, ld,
                 std::min(kMR, rows - ir), std::min(kNR, cols - jr), p0 == 0);
        }
      }
      if (!plain)
        store(i0, rows, j0, cols, acc, values, biasRow);
    }
  }

  /// multiplyTile on a tile of which `height` x `width` lie in the output:
  /// in place when all of it does or when the output is the padded `acc`,
  /// else through a whole tile on the stack.
  void tile(int64_t kc, const float *a, const float *b, float *out, int64_t ld,
            int64_t height, int64_t width, bool first) const {
    if (!plain || (height == kMR && width == kNR)) {
      multiplyTile(kc, a, b, out, ld, first);
      return;
    }
    float whole[kMR * kNR] = {};
    for (int64_t r = 0; r < height && !first; ++r)
      std::memcpy(whole + r * kNR, out + r * ld, width * sizeof(float));
    multiplyTile(kc, a, b, whole, kNR, first);
    for (int64_t r = 0; r < height; ++r)
      std::memcpy(out + r * ld, whole + r * kNR, width * sizeof(float));
  }

  /// C's block at (i0, j0) from the sums in `acc` (rows spanWidth apart):
  /// alpha, beta, the epilogue, one rounding to C's type; each a loop over
  /// a row that vectorizes, in `values` (C's row itself when C is f32).
  void store(int64_t i0, int64_t rows, int64_t j0, int64_t cols,
             const float *acc, float *values, float *biasRow) const {
    if (g.epilogue != AMP_EPILOGUE_NONE)
      widenToFloat(g.c_dtype, bias, j0, cols, biasRow);
    for (int64_t i = 0; i < rows; ++i) {
      int64_t at = cBase + (i0 + i) * g.n + j0;
      const float *sums = acc + i * spanWidth;
      float *row = g.c_dtype == AMP_F32 ? static_cast<float *>(c) + at : values;
      if (g.beta != 0) {
        for (int64_t j = 0; j < cols; ++j) {
          float value = g.alpha * sums[j];
          row[j] = value + g.beta * amprt::load(g.c_dtype, c, at + j);
        }
      } else {
        for (int64_t j = 0; j < cols; ++j)
          row[j] = g.alpha * sums[j];
      }
      if (g.epilogue == AMP_EPILOGUE_BIAS) {
        for (int64_t j = 0; j < cols; ++j)
          row[j] = row[j] + biasRow[j];
      } else if (g.epilogue != AMP_EPILOGUE_NONE) {
        for (int64_t j = 0; j < cols; ++j)
          row[j] = activate(row[j] + biasRow[j]);
      }
      if (g.c_dtype == AMP_BF16) {
        uint16_t *to = static_cast<uint16_t *>(c) + at;
        for (int64_t j = 0; j < cols; ++j)
          to[j] = amprt::floatToBFloat16Bits(row[j]);
      } else if (g.c_dtype == AMP_F16) {
        amprt::narrowFloatToHalf(row, cols, static_cast<uint16_t *>(c) + at);
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
  const int64_t slivers, rowTiles;
  const bool plain; // C = A B in f32: summed in C itself
  int64_t rowBlocks, spanWidth, spanCount;
  float *packedB = nullptr;
  std::atomic<bool> failed{false};
};
} // namespace

/// An FP8 GEMM: fp8_bodies.h's steps in loops, writing the scratch as the
/// GPU does; then the product of the FP8 copies, widened to f32 (exact),
/// with the inverse scales in alpha.
static amp_status_t hostFp8Gemm(const amp_gemm_t &g, const void *a,
                                const void *b, const void *bias, void *c) {
  int64_t aCount = g.batch * g.m * g.k, bCount = g.batch * g.n * g.k;
  amprt::Fp8Scratch scratch = amprt::fp8ScratchOf(g);
  if (g.a_scale) {
    amprt::fp8GivenScales(g, scratch.scales);
  } else {
    uint32_t aAmax = 0, bAmax = 0;
    for (int64_t i = 0; i < aCount; ++i)
      aAmax =
          std::max(aAmax, amprt::magnitudeBits(amprt::load(g.ab_dtype, a, i)));
    for (int64_t i = 0; i < bCount; ++i)
      bAmax =
          std::max(bAmax, amprt::magnitudeBits(amprt::load(g.ab_dtype, b, i)));
    amprt::fp8Scales(g, aAmax, bAmax, scratch.scales);
  }
  const amp_fp8_scales_t scales = *scratch.scales;
  // FP8 operands are the K-major copies already.
  const uint8_t *fp8A = static_cast<const uint8_t *>(a),
                *fp8B = static_cast<const uint8_t *>(b);
  if (!g.fp8_operands) {
    for (auto [operand, scale] :
         {std::pair(amprt::fp8OperandA(g, a, scratch.a), scales.a_scale),
          std::pair(amprt::fp8OperandB(g, b, scratch.b), scales.b_scale)})
      for (int64_t batch = 0; batch < operand.batch; ++batch)
        for (int64_t r = 0; r < operand.rows; ++r)
          for (int64_t p = 0; p < operand.k; ++p)
            amprt::fp8Cast(operand, scale, batch, r, p);
    fp8A = scratch.a;
    fp8B = scratch.b;
  }
  std::vector<float> wideA, wideB;
  try {
    wideA.resize(aCount);
    wideB.resize(bCount);
  } catch (const std::bad_alloc &) {
    return AMP_STATUS(AMP_OUT_OF_MEMORY,
                      "no host memory for an FP8 GEMM's f32 operands");
  }
  for (int64_t i = 0; i < aCount; ++i)
    wideA[i] = amprt::fp8BitsToFloat(fp8A[i], amprt::fp8FormatOf(g.a_fp8));
  for (int64_t i = 0; i < bCount; ++i)
    wideB[i] = amprt::fp8BitsToFloat(fp8B[i], amprt::fp8FormatOf(g.b_fp8));
  amp_gemm_t wide = g;
  wide.ab_dtype = AMP_F32;
  wide.trans_a = 0; // K-major: A [m][k], B [n][k]
  wide.trans_b = 1;
  wide.a_fp8 = wide.b_fp8 = AMP_FP8_NONE;
  wide.fp8_scratch = nullptr;
  wide.a_scale = wide.b_scale = nullptr;
  wide.fp8_operands = 0;
  wide.alpha = g.alpha * (scales.a_inverse * scales.b_inverse);
  return amprt::hostGemm(wide, wideA.data(), wideB.data(), bias, c);
}

amp_status_t amprt::hostGemm(const amp_gemm_t &g, const void *a, const void *b,
                             const void *bias, void *c) {
  if (g.a_fp8 != AMP_FP8_NONE)
    return hostFp8Gemm(g, a, b, bias, c);
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
