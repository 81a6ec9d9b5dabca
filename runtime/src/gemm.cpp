//===- gemm.cpp - argument checks and dispatch ----------------------------===//

#include "amp_runtime/gemm.h"

#include "backend.h"
#include "runtime_internal.h"
#include "status.h"

#include <cmath>

extern "C" amp_status_t amp_gemm(amp_stream_t *stream, const amp_gemm_t *gemm,
                                 const void *a, const void *b, const void *bias,
                                 void *c) {
  if (!stream || !gemm)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream or gemm is null");
  const amp_gemm_t &g = *gemm;
  int abDtype = amprt::rawEnum(g.ab_dtype), cDtype = amprt::rawEnum(g.c_dtype);
  if (!amprt::isStorageDtype(abDtype) || !amprt::isStorageDtype(cDtype) ||
      (cDtype != abDtype && cDtype != AMP_F32))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "unsupported dtypes (A/B %d, C %d): C takes the type "
                      "of A and B, or f32",
                      abDtype, cDtype);
  if (g.m < 0 || g.n < 0 || g.k < 1 || g.batch < 1)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "GEMM sizes m %lld, n %lld, k %lld, batch %lld: need "
                      "m, n >= 0 and k, batch >= 1",
                      static_cast<long long>(g.m), static_cast<long long>(g.n),
                      static_cast<long long>(g.k),
                      static_cast<long long>(g.batch));
  if (!amprt::bytesFit({g.batch, g.m, g.k}) ||
      !amprt::bytesFit({g.batch, g.k, g.n}) ||
      !amprt::bytesFit({g.batch, g.m, g.n}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "GEMM sizes overflow");
  int epilogue = amprt::rawEnum(g.epilogue);
  if (epilogue < AMP_EPILOGUE_NONE || epilogue > AMP_EPILOGUE_BIAS_GELU)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown epilogue %d", epilogue);
  if ((epilogue == AMP_EPILOGUE_NONE) != (bias == nullptr))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      epilogue == AMP_EPILOGUE_NONE
                          ? "a bias without a bias epilogue"
                          : "a bias epilogue without a bias");
  int aFp8 = amprt::rawEnum(g.a_fp8), bFp8 = amprt::rawEnum(g.b_fp8);
  if (aFp8 != AMP_FP8_NONE || bFp8 != AMP_FP8_NONE) {
    // An FP8 GEMM's preconditions: never run as another GEMM instead.
    auto isFormat = [](int format) {
      return format == AMP_FP8_E4M3 || format == AMP_FP8_E5M2;
    };
    if (!isFormat(aFp8) || !isFormat(bFp8) ||
        (aFp8 == AMP_FP8_E5M2 && bFp8 == AMP_FP8_E5M2))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "FP8 formats A %d, B %d: both must be set, e4m3 (1) "
                        "or e5m2 (2), and not both e5m2",
                        aFp8, bFp8);
    if (g.beta != 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "an FP8 GEMM takes beta 0");
    if (g.m % 16 || g.n % 16 || g.k % 16)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "an FP8 GEMM needs m, n and k in multiples of 16 "
                        "(cuBLASLt's FP8 kernels), got %lld, %lld, %lld",
                        static_cast<long long>(g.m),
                        static_cast<long long>(g.n),
                        static_cast<long long>(g.k));
    if (!g.fp8_scratch || amp_gemm_fp8_scratch_bytes(&g) == 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "an FP8 GEMM needs its scratch "
                                              "(amp_gemm_fp8_scratch_bytes)");
    if ((g.a_scale == nullptr) != (g.b_scale == nullptr))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "an FP8 GEMM takes both a_scale and b_scale (delayed "
                        "scaling) or neither (current scaling)");
    if (g.fp8_operands && (!g.a_scale || g.trans_a != 0 || g.trans_b != 1))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "FP8 operands are read K-major with the scales they "
                        "were cast with: trans_a 0, trans_b 1, a_scale and "
                        "b_scale set");
  } else if (g.a_scale || g.b_scale || g.fp8_operands) {
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "a_scale, b_scale and fp8_operands are for FP8 GEMMs "
                      "only");
  }
  if (g.m == 0 || g.n == 0)
    return nullptr;
  if (!a || !b || !c)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "A, B or C is null");
  return amprt::backendOf(stream)->gemm(amprt::handleOf(stream), g, a, b, bias,
                                        c);
}

extern "C" amp_status_t amp_fp8_amax(amp_stream_t *stream, amp_dtype_t dtype,
                                     const void *data, int64_t count,
                                     float *amax) {
  if (!stream || !amax)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream or amax is null");
  if (!amprt::isStorageDtype(amprt::rawEnum(dtype)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unsupported dtype %d",
                      amprt::rawEnum(dtype));
  if (count < 0 || (count > 0 && !data) || !amprt::bytesFit({count}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%lld values at %p: need a count >= 0 and the data",
                      static_cast<long long>(count), data);
  return amprt::backendOf(stream)->fp8Amax(amprt::handleOf(stream), dtype, data,
                                           count, amax);
}

extern "C" amp_status_t amp_fp8_scaling_update(amp_stream_t *stream,
                                               const amp_fp8_scaling_t *update,
                                               float *scale, float *history,
                                               float *overflows) {
  if (!stream || !update || !scale || !history || !overflows)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "a null argument");
  const amp_fp8_scaling_t &u = *update;
  if (u.columns < 1 || u.columns > AMP_FP8_MAX_COLUMNS || u.rows < 1 ||
      !amprt::bytesFit({u.rows, u.columns}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "%lld columns of %lld rows: need 1 to %d columns and "
                      "at least one row",
                      static_cast<long long>(u.columns),
                      static_cast<long long>(u.rows), AMP_FP8_MAX_COLUMNS);
  for (int64_t c = 0; c < u.columns; ++c) {
    int format = amprt::rawEnum(u.formats[c]);
    if (format != AMP_FP8_E4M3 && format != AMP_FP8_E5M2)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "column %lld's format %d is no FP8 format",
                        static_cast<long long>(c), format);
    if (!u.amax[c])
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "column %lld's amax is null",
                        static_cast<long long>(c));
    if (!(u.scaled_max[c] > 0) || !std::isfinite(u.scaled_max[c]))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "column %lld's scaled_max %g is not finite and "
                        "positive",
                        static_cast<long long>(c), u.scaled_max[c]);
  }
  return amprt::backendOf(stream)->fp8ScalingUpdate(amprt::handleOf(stream), u,
                                                    scale, history, overflows);
}

extern "C" amp_status_t amp_fp8_cast(amp_stream_t *stream,
                                     const amp_fp8_cast_t *cast,
                                     const void *input, uint8_t *data,
                                     uint8_t *transposed, float *amax) {
  if (!stream || !cast)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream or cast is null");
  const amp_fp8_cast_t &c = *cast;
  int format = amprt::rawEnum(c.format);
  if (!amprt::isStorageDtype(amprt::rawEnum(c.dtype)) ||
      (format != AMP_FP8_E4M3 && format != AMP_FP8_E5M2))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "an FP8 cast of dtype %d to format %d: need f32, f16 "
                      "or bf16 to e4m3 (1) or e5m2 (2)",
                      amprt::rawEnum(c.dtype), format);
  if (c.rows < 0 || c.cols < 0 || !amprt::bytesFit({c.rows, c.cols}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "an FP8 cast of %lld x %lld",
                      static_cast<long long>(c.rows),
                      static_cast<long long>(c.cols));
  if (!c.scale || (c.rows * c.cols > 0 && !input))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "scale or input is null");
  return amprt::backendOf(stream)->fp8Cast(amprt::handleOf(stream), c, input,
                                           data, transposed, amax);
}
