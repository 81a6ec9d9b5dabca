/*===- gemm.h - matrix products with fused epilogues ---------------*- C -*-===*
 *
 * C = epilogue(alpha * op(A) op(B) + beta * C) on row-major matrices, f32
 * accumulation, one rounding at the store. cuBLASLt on CUDA; a blocked loop
 * on the host.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_GEMM_H
#define AMP_RUNTIME_GEMM_H

#include "amp_runtime/optimizer_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum amp_epilogue_e {
  AMP_EPILOGUE_NONE = 0,
  AMP_EPILOGUE_BIAS = 1,      /* + bias[n] on every row */
  AMP_EPILOGUE_BIAS_RELU = 2, /* relu(... + bias) */
  AMP_EPILOGUE_BIAS_GELU = 3, /* gelu(... + bias), tanh form as cuBLASLt's */
} amp_epilogue_t;

typedef struct amp_gemm_s {
  amp_dtype_t ab_dtype; /* A and B */
  amp_dtype_t c_dtype;  /* C and bias: ab_dtype, or f32 */
  int trans_a, trans_b; /* A is [k, m] / B is [n, k] when set */
  int64_t m, n, k;
  int64_t batch; /* >= 1; matrices packed one after another */
  float alpha, beta;
  amp_epilogue_t epilogue;
} amp_gemm_t;

/* One product per batch entry: A, B and C advance by m*k, k*n and m*n
 * elements, and the bias (n elements, NULL without a bias epilogue) is
 * shared. C is read only when beta != 0. */
amp_status_t amp_gemm(amp_stream_t *stream, const amp_gemm_t *gemm,
                      const void *a, const void *b, const void *bias, void *c);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_GEMM_H */
