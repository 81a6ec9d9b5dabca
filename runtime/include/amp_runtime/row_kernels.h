/*===- row_kernels.h - softmax, layer norm and cross-entropy rows --*- C -*-===*
 *
 * Kernels over the rows of a [rows, cols] matrix (the last dimension of a
 * tensor), in f16, bf16 or f32 storage with f32 arithmetic and one rounding
 * at each store, like the reference interpreter: each row is computed by
 * the generated steps' own functions (amp_runtime/row_math.h). On CUDA a warp
 * works on each row and reduces with shuffles; the host runs the same
 * bodies in the same order (amp_runtime/row_context.h), so the two
 * backends agree bit for bit (but for the sums over rows of the norms'
 * dweight and dbias, which CUDA gathers with atomics).
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_ROW_KERNELS_H
#define AMP_RUNTIME_ROW_KERNELS_H

#include "amp_runtime/optimizer_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amp_rows_s {
  amp_dtype_t dtype; /* of the activations */
  int64_t rows, cols;
} amp_rows_t;

/* y = softmax(x) along each row, or log_softmax when `log`. */
amp_status_t amp_softmax_forward(amp_stream_t *stream, amp_rows_t shape,
                                 const void *x, void *y, int log);
/* dx from the forward output y and dy: y (dy - sum(dy y)), or for
 * log_softmax dy - exp(y) sum(dy). */
amp_status_t amp_softmax_backward(amp_stream_t *stream, amp_rows_t shape,
                                  const void *y, const void *dy, void *dx,
                                  int log);

/* y = (x - mean) / sqrt(var + eps) * weight + bias per row (weight and bias
 * f32, either may be NULL); the per-row mean and 1/sqrt(var + eps) are
 * written to `mean` and `rstd` (f32, `rows` each) when not NULL. */
amp_status_t amp_layer_norm_forward(amp_stream_t *stream, amp_rows_t shape,
                                    const void *x, const float *weight,
                                    const float *bias, float eps, void *y,
                                    float *mean, float *rstd);
/* dx for upstream dy; dweight and dbias (f32, `cols` each, may be NULL)
 * receive the sums over the rows, added to what they hold. */
amp_status_t amp_layer_norm_backward(amp_stream_t *stream, amp_rows_t shape,
                                     const void *x, const void *dy,
                                     const float *weight, float eps, void *dx,
                                     float *dweight, float *dbias);

/* y = x / sqrt(mean(x^2) + eps) * weight per row (weight f32, may be NULL);
 * the per-row 1/sqrt(mean(x^2) + eps) goes to `rstd` when not NULL. */
amp_status_t amp_rms_norm_forward(amp_stream_t *stream, amp_rows_t shape,
                                  const void *x, const float *weight, float eps,
                                  void *y, float *rstd);
/* dx for upstream dy; dweight (f32, `cols`, may be NULL) receives the sum
 * over the rows, added to what it holds. */
amp_status_t amp_rms_norm_backward(amp_stream_t *stream, amp_rows_t shape,
                                   const void *x, const void *dy,
                                   const float *weight, float eps, void *dx,
                                   float *dweight);

/* How the row losses are reduced to the loss whose gradient is wanted. */
typedef enum amp_loss_reduction_e {
  AMP_LOSS_SUM = 0,
  AMP_LOSS_MEAN = 1,
} amp_loss_reduction_t;

/* Softmax cross-entropy of each row against labels (int64): the per-row
 * losses logsumexp - logit[label] (f32, may be NULL) and, when `dlogits`
 * is not NULL, the gradient of the rows' sum or mean times *grad_loss
 * (a device f32 scalar, so that a captured step follows a changing loss
 * scale; NULL for 1): (softmax - onehot) * s with s = *grad_loss, divided
 * by the row count for a mean, in the logits' type. One pass, without
 * storing the probabilities. A label outside [0, cols) is an error on the
 * host; on CUDA it gives a NaN loss and gradient row. */
amp_status_t amp_cross_entropy(amp_stream_t *stream, amp_rows_t shape,
                               const void *logits, const int64_t *labels,
                               float *losses, void *dlogits,
                               const float *grad_loss,
                               amp_loss_reduction_t reduction);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_ROW_KERNELS_H */
