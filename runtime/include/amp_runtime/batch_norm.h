/*===- batch_norm.h - batch normalisation and its gradient -------*- C -*-===*
 *
 * amp.batch_norm and amp.batch_norm_grad on [N, C] or [N, C, H, W]
 * activations, each one call: cuDNN's batch norm graphs on CUDA where the
 * build has cuDNN and it has a plan, else (and on the host) the steps
 * amp-decompose writes for the op, each rounded to f32 as there: the
 * channel's mean and biased variance summed in the reduction order of
 * reduction_order.h, then the normalisation, the affine scale and bias,
 * the running statistics' update. The results are the interpreter's on
 * the host.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_BATCH_NORM_H
#define AMP_RUNTIME_BATCH_NORM_H

#include "amp_runtime/optimizer_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amp_batch_norm_s {
  amp_dtype_t dtype; /* x, y, dy and dx: f16, bf16 or f32 */
  /* x is [batch, channels, spatial] in memory: spatial is H * W for
   * images, 1 for [N, C]. */
  int64_t batch, channels, spatial;
  double epsilon, momentum;
  int training; /* batch statistics (and their update) when non-zero */
} amp_batch_norm_t;

/* Bytes of workspace either call needs: room for the statistics cuDNN
 * saves and the scale and bias it needs when the op has none; 0 for a
 * normalisation amp_batch_norm_* refuses. */
size_t amp_batch_norm_workspace(const amp_batch_norm_t *norm);

/* y (dtype) = (x - mean) / sqrt(var + epsilon) * scale + bias per channel,
 * with the batch's mean and biased variance when training (and new_mean,
 * new_var the running ones moved by momentum towards them, the variance
 * unbiased), else running_mean and running_var (copied to new_mean and
 * new_var). The statistics, scale and bias are f32 [C]; scale, bias,
 * new_mean and new_var may be NULL (none; not wanted); new_mean and
 * new_var may be the running statistics themselves. */
amp_status_t amp_batch_norm_forward(amp_stream_t *stream,
                                    const amp_batch_norm_t *norm, const void *x,
                                    const float *scale, const float *bias,
                                    const float *running_mean,
                                    const float *running_var, void *y,
                                    float *new_mean, float *new_var,
                                    void *workspace);

/* dx (dtype) from x and dy: with g = dy * scale, xhat the normalised x and
 * r = sqrt(var + epsilon), (g - mean(g) - xhat * mean(g * xhat)) / r when
 * training (the statistics recomputed from x), g / r with the running ones
 * otherwise; dscale = sum(dy * xhat) and dbias = sum(dy) per channel (f32
 * [C], either may be NULL). scale may be NULL (1). */
amp_status_t
amp_batch_norm_backward(amp_stream_t *stream, const amp_batch_norm_t *norm,
                        const void *x, const void *dy, const float *scale,
                        const float *running_mean, const float *running_var,
                        void *dx, float *dscale, float *dbias, void *workspace);

#ifdef __cplusplus
} /* extern "C" */

namespace amprt {

/// Where a batch norm's workspace keeps what cuDNN needs besides the
/// operands, in bytes from its start, each at a multiple of 256: the
/// saved mean and inverse deviation, a scale of ones and a bias of zeros,
/// dscale and dbias when the caller wants none: f32 [C] each. Shared by
/// the runtime and the compiler, which plans the workspace.
struct BatchNormWorkspace {
  int64_t mean = 0, invDeviation = 0, ones = 0, zeros = 0, dscale = 0,
          dbias = 0;
  int64_t bytes = 0;
};

inline BatchNormWorkspace batchNormWorkspace(const amp_batch_norm_t &n) {
  BatchNormWorkspace w;
  const int64_t vector = (n.channels * 4 + 255) / 256 * 256;
  int64_t *slots[] = {&w.mean,  &w.invDeviation, &w.ones,
                      &w.zeros, &w.dscale,       &w.dbias};
  for (int64_t *slot : slots) {
    *slot = w.bytes;
    w.bytes += vector;
  }
  return w;
}

} // namespace amprt
#endif

#endif /* AMP_RUNTIME_BATCH_NORM_H */
