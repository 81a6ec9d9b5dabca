//===- row_bodies.h - loads and stores of the storage types -----*- C++ -*-===//
//
// Element access shared by the host and CUDA backends' kernels (row, GEMM,
// attention, and the optimizers' low-precision weight copies): f16, bf16 or
// f32 in memory, f32 in arithmetic, one rounding at each store. And the
// bodies of the row kernels (row_kernels.h), written once over a row
// context (amp_runtime/row_context.h): the host backend runs each row with
// HostRow, the CUDA backend each with a warp (WarpRow), so both sum in the
// same order and give the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_ROW_BODIES_H
#define AMP_RUNTIME_SRC_ROW_BODIES_H

#include "amp_runtime/float_formats.h"
#include "amp_runtime/row_kernels.h"
#include "amp_runtime/row_math.h"

namespace amprt {

AMP_HOST_DEVICE inline float load(amp_dtype_t dtype, const void *data,
                                  int64_t i) {
  switch (dtype) {
  case AMP_F16:
    return halfBitsToFloat(static_cast<const uint16_t *>(data)[i]);
  case AMP_BF16:
    return bfloat16BitsToFloat(static_cast<const uint16_t *>(data)[i]);
  default:
    return static_cast<const float *>(data)[i];
  }
}

AMP_HOST_DEVICE inline void store(amp_dtype_t dtype, void *data, int64_t i,
                                  float value) {
  switch (dtype) {
  case AMP_F16:
    static_cast<uint16_t *>(data)[i] = floatToHalfBits(value);
    break;
  case AMP_BF16:
    static_cast<uint16_t *>(data)[i] = floatToBFloat16Bits(value);
    break;
  default:
    static_cast<float *>(data)[i] = value;
    break;
  }
}

AMP_HOST_DEVICE inline size_t dtypeSize(amp_dtype_t dtype) {
  return dtype == AMP_F32 ? 4 : 2;
}

AMP_HOST_DEVICE inline float nanMax(float a, float b) {
  if (a != a || b != b)
    return a + b; // NaN
  return a < b ? b : a;
}

//===----------------------------------------------------------------------===//
// Row kernels
//===----------------------------------------------------------------------===//

/// The loads and stores of the row at `base`, for row_math.h.
struct RowAccess {
  amp_dtype_t dtype;
  int64_t base;
  AMP_HOST_DEVICE auto in(const void *data) const {
    return [=](int64_t c) { return load(dtype, data, base + c); };
  }
  AMP_HOST_DEVICE auto out(void *data) const {
    return [=](int64_t c, float v) { store(dtype, data, base + c, v); };
  }
};

/// *to += value; atomically on a GPU, where the rows run at once (so the
/// order, and the last bits, of a sum over rows vary from run to run).
AMP_HOST_DEVICE inline void accumulate(float *to, float value) {
#if defined(__CUDA_ARCH__)
  atomicAdd(to, value);
#else
  *to += value;
#endif
}

template <typename Row>
AMP_HOST_DEVICE void softmaxForwardRow(const Row &row, amp_rows_t shape,
                                       int64_t r, const void *x, void *y,
                                       bool log) {
  RowAccess at{shape.dtype, r * shape.cols};
  softmaxRow<float>(row, shape.cols, at.in(x), at.out(y), log);
}

template <typename Row>
AMP_HOST_DEVICE void softmaxBackwardRow(const Row &row, amp_rows_t shape,
                                        int64_t r, const void *y,
                                        const void *dy, void *dx, bool log) {
  RowAccess at{shape.dtype, r * shape.cols};
  softmaxGradRow<float>(row, shape.cols, at.in(y), at.in(dy), at.out(dx), log);
}

/// Layer norm (`centered`) or RMS norm of row `r`, as the steps' kernels
/// compute it (row_math.h's normRow); the mean (layer norm) and
/// 1/deviation go to `mean` and `rstd` where they are not null.
template <typename Row>
AMP_HOST_DEVICE void normForwardRow(const Row &row, amp_rows_t shape, int64_t r,
                                    const void *x, const float *weight,
                                    const float *bias, float eps, bool centered,
                                    void *y, float *mean, float *rstd) {
  RowAccess at{shape.dtype, r * shape.cols};
  const auto xs = at.in(x);
  // Before y is written: y may be x's memory. Every lane of a row sums.
  if (mean || rstd) {
    const NormStats<float> stats =
        normStats<float>(row, shape.cols, xs, eps, centered);
    if (row.leads()) {
      if (mean)
        mean[r] = stats.mean;
      if (rstd)
        rstd[r] = 1.0f / stats.deviation;
    }
  }
  normRow<float>(
      row, shape.cols, xs, weight != nullptr,
      [=](int64_t c) { return weight[c]; }, bias != nullptr,
      [=](int64_t c) { return bias[c]; }, eps, centered, at.out(y));
}

/// dx of layer norm (`centered`) or RMS norm for row `r`, as the steps'
/// kernels compute it (row_math.h's normGradRow), adding the row's terms of
/// dweight and dbias where they are not null.
template <typename Row>
AMP_HOST_DEVICE void
normBackwardRow(const Row &row, amp_rows_t shape, int64_t r, const void *x,
                const void *dy, const float *weight, float eps, bool centered,
                void *dx, float *dweight, float *dbias) {
  RowAccess at{shape.dtype, r * shape.cols};
  const auto xs = at.in(x);
  const auto dys = at.in(dy);
  if (dweight || dbias) {
    const NormStats<float> stats =
        normStats<float>(row, shape.cols, xs, eps, centered);
    row.forEach(shape.cols, [&](int64_t c) {
      const float d = dys(c);
      if (dweight)
        accumulate(&dweight[c], d * ((xs(c) - stats.mean) / stats.deviation));
      if (dbias)
        accumulate(&dbias[c], d);
    });
  }
  // Last: dx may be dy's memory.
  normGradRow<float>(
      row, shape.cols, xs,
      [&](int64_t c) {
        const float d = dys(c);
        return weight ? d * weight[c] : d;
      },
      eps, centered, at.out(dx));
}

/// Row `r`'s cross-entropy loss (to losses[r] where not null) and, where
/// `dlogits` is not null, its gradient times `scale`; NaNs for a label
/// that is no class.
template <typename Row>
AMP_HOST_DEVICE void crossEntropyRow(const Row &row, amp_rows_t shape,
                                     int64_t r, const void *logits,
                                     const int64_t *labels, float *losses,
                                     void *dlogits, float scale) {
  RowAccess at{shape.dtype, r * shape.cols};
  const auto xs = at.in(logits);
  const int64_t label = labels[r];
  const bool valid = isClass(label, shape.cols);
  const SoftmaxStats<float> stats = softmaxStats<float>(row, shape.cols, xs);
  if (losses && row.leads())
    losses[r] = valid ? crossEntropyLoss(stats, xs(label)) : NAN;
  if (!dlogits)
    return;
  const auto dxs = at.out(dlogits);
  row.forEach(shape.cols, [&](int64_t c) {
    dxs(c, valid ? crossEntropyGradOutput(softmaxProbability(xs(c), stats),
                                          c == label, scale)
                 : NAN);
  });
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_ROW_BODIES_H
