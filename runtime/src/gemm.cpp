//===- gemm.cpp - argument checks and dispatch ----------------------------===//

#include "amp_runtime/gemm.h"

#include "backend.h"
#include "runtime_internal.h"
#include "status.h"

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
  }
  if (g.m == 0 || g.n == 0)
    return nullptr;
  if (!a || !b || !c)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "A, B or C is null");
  return amprt::backendOf(stream)->gemm(amprt::handleOf(stream), g, a, b, bias,
                                        c);
}
