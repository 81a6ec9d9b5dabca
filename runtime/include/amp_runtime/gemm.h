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

/* An FP8 GEMM operand's format (float_formats.h): e4m3fn or e5m2. */
typedef enum amp_fp8_e {
  AMP_FP8_NONE = 0,
  AMP_FP8_E4M3 = 1,
  AMP_FP8_E5M2 = 2,
} amp_fp8_t;

typedef struct amp_gemm_s {
  amp_dtype_t ab_dtype; /* A and B */
  amp_dtype_t c_dtype;  /* C and bias: ab_dtype, or f32 */
  int trans_a, trans_b; /* A is [k, m] / B is [n, k] when set */
  int64_t m, n, k;
  int64_t batch; /* >= 1; matrices packed one after another */
  float alpha, beta;
  amp_epilogue_t epilogue;
  /* An FP8 GEMM (both set, not both e5m2; beta 0): A and B, all batches of
   * each, are scaled by current per-tensor scaling and rounded to these
   * formats (amprt::quantizeFp8), their products summed in f32 and the sum
   * multiplied by alpha * (1 / s_a) * (1 / s_b). m, n and k are multiples
   * of 16, and fp8_scratch holds amp_gemm_fp8_scratch_bytes(): the
   * operands' amaxes and scales (amp_fp8_scales_t) and their FP8 copies.
   * With a_scale and b_scale (device f32 scalars, both or neither: delayed
   * scaling) the operands are multiplied by those scales instead, and no
   * amax is computed (the scratch's amaxes are 0). With fp8_operands too,
   * A and B hold FP8 values already (amp_fp8_cast's, cast with those
   * scales), K-major: trans_a 0, trans_b 1, ab_dtype ignored; the scratch
   * holds only the scales. */
  amp_fp8_t a_fp8, b_fp8;
  void *fp8_scratch;
  const float *a_scale, *b_scale;
  int fp8_operands;
} amp_gemm_t;

/* The head of an FP8 GEMM's scratch, as the GEMM leaves it. */
typedef struct amp_fp8_scales_s {
  float a_amax, b_amax;   /* the largest magnitudes (NaN if any is NaN) */
  float a_scale, b_scale; /* what each operand was multiplied by */
  float a_inverse, b_inverse;
} amp_fp8_scales_t;

/* Bytes of an FP8 GEMM's scratch: the scales, then A's and B's FP8 copies
 * (one byte an element, K-major as cuBLASLt's FP8 GEMMs read them), each
 * on 256 bytes; 0 when `gemm` is no FP8 GEMM or its sizes overflow. */
static inline int64_t amp_gemm_fp8_scratch_bytes(const amp_gemm_t *gemm) {
  if (gemm->a_fp8 == AMP_FP8_NONE || gemm->m < 0 || gemm->n < 0 ||
      gemm->k < 0 || gemm->batch < 1)
    return 0;
  const int64_t limit = (int64_t)1 << 52;
  if (gemm->m > limit / gemm->batch || gemm->n > limit / gemm->batch ||
      (gemm->k > 0 && (gemm->batch * gemm->m > limit / gemm->k ||
                       gemm->batch * gemm->n > limit / gemm->k)))
    return 0;
  if (gemm->fp8_operands)
    return 256;
  const int64_t a = (gemm->batch * gemm->m * gemm->k + 255) / 256 * 256;
  const int64_t b = (gemm->batch * gemm->n * gemm->k + 255) / 256 * 256;
  return 256 + a + b;
}

/* One product per batch entry: A, B and C advance by m*k, k*n and m*n
 * elements, and the bias (n elements, NULL without a bias epilogue) is
 * shared. C is read only when beta != 0. */
amp_status_t amp_gemm(amp_stream_t *stream, const amp_gemm_t *gemm,
                      const void *a, const void *b, const void *bias, void *c);

/* The largest magnitude of `count` values of `dtype` (f32, f16 or bf16) at
 * `data` into *amax (a device f32): 0 when there are none, NaN when any is
 * NaN. amp.fp8_amax. */
amp_status_t amp_fp8_amax(amp_stream_t *stream, amp_dtype_t dtype,
                          const void *data, int64_t count, float *amax);

/* A matrix cast to FP8 (amp.fp8_cast): `rows` x `cols` values of `dtype`
 * (f32, f16 or bf16), each multiplied by *scale (a device f32) in f32,
 * saturated and rounded to `format`. */
typedef struct amp_fp8_cast_s {
  amp_dtype_t dtype;
  int64_t rows, cols;
  amp_fp8_t format;
  const float *scale;
} amp_fp8_cast_t;

/* Writes the cast values to `data` ([rows][cols]) and `transposed`
 * ([cols][rows]), and the input's largest magnitude (as amp_fp8_amax) to
 * *amax; each output may be NULL, and is then not written. */
amp_status_t amp_fp8_cast(amp_stream_t *stream, const amp_fp8_cast_t *cast,
                          const void *input, uint8_t *data, uint8_t *transposed,
                          float *amax);

#define AMP_FP8_MAX_COLUMNS 4

/* Delayed FP8 scaling's update (amp.fp8_scaling_update) of `columns`
 * scaled tensors (1 to AMP_FP8_MAX_COLUMNS): each column's format, this
 * step's amax (a device f32 scalar), and f32(max * 2^-margin), the value
 * its scale maps the amax to. */
typedef struct amp_fp8_scaling_s {
  int64_t columns, rows; /* rows: the amax history's length, >= 1 */
  amp_fp8_t formats[AMP_FP8_MAX_COLUMNS];
  const float *amax[AMP_FP8_MAX_COLUMNS];
  float scaled_max[AMP_FP8_MAX_COLUMNS];
  int most_recent; /* the amax used is this step's, else the history's max */
} amp_fp8_scaling_t;

/* Updates scale and overflows ([columns] device f32) and the amax history
 * ([rows][columns] device f32, row 0 kept 0 between steps) in place. */
amp_status_t amp_fp8_scaling_update(amp_stream_t *stream,
                                    const amp_fp8_scaling_t *update,
                                    float *scale, float *history,
                                    float *overflows);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_GEMM_H */
