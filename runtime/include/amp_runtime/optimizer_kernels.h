/*===- optimizer_kernels.h - loss-scaling and optimizer kernels ---*- C -*-===*
 *
 * The device side of a training step's update, each one launch over many
 * tensors, none reading anything back to the host: the multi-tensor
 * unscale with its inf/NaN check, the dynamic loss-scale update, and fused
 * SGD (with momentum) and AdamW that skip their update when found_inf is
 * set and can write a low-precision copy of each weight.
 *
 * All pointers are device addresses (host pointers on the host device).
 * Scalars that change during training (scale, found_inf, step) live in
 * device memory as f32, so that a captured step replays without the host.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_OPTIMIZER_KERNELS_H
#define AMP_RUNTIME_OPTIMIZER_KERNELS_H

#include "amp_runtime/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum amp_dtype_e {
  AMP_F32 = 0,
  AMP_F16 = 1,
  AMP_BF16 = 2,
} amp_dtype_t;

/* A list of f32 tensors: `count` pointers and element counts. */
typedef struct amp_tensor_list_s {
  size_t count;
  float *const *data;
  const size_t *sizes;
} amp_tensor_list_t;

/* grads[i] *= *inv_scale for every element; *found_inf = 1 if any element
 * was inf or NaN before (it is never reset here: zero it first). */
amp_status_t amp_unscale(amp_stream_t *stream, amp_tensor_list_t grads,
                         const float *inv_scale, float *found_inf);

/* Tensors of any amp_dtype_t: `count` pointers, element types and
 * element counts. */
typedef struct amp_typed_tensor_list_s {
  size_t count;
  const void *const *data;
  const amp_dtype_t *dtypes;
  const size_t *sizes;
} amp_typed_tensor_list_t;

/* *out (a device f32) = amp.sum_squares of the tensors: each element
 * widened to f32 and squared in f32, each tensor's squares summed in
 * reduction_order.h's order, the tensors' sums added in order from 0. The
 * square of clip_grad_norm_'s total norm, in a launch per 32 tensors and
 * one more; the CUDA backend keeps its partial sums in the stream's
 * workspace. */
amp_status_t amp_sum_squares(amp_stream_t *stream,
                             amp_typed_tensor_list_t tensors, float *out);

typedef struct amp_scaler_config_s {
  double growth_factor;  /* > 1 */
  double backoff_factor; /* in (0, 1) */
  int64_t growth_interval;
  int64_t hysteresis; /* 1: PyTorch's behaviour */
  double min_scale;   /* 0: no clamp */
  double max_scale;   /* 0: no clamp */
} amp_scaler_config_t;

/* GradScaler's update of *scale, *growth_tracker and *hysteresis_tracker
 * (device f32 scalars) from *found_inf, with optional clamps and
 * hysteresis; the algorithm of amp.scaler_update. */
amp_status_t amp_scaler_update(amp_stream_t *stream,
                               const amp_scaler_config_t *config, float *scale,
                               float *growth_tracker, float *hysteresis_tracker,
                               const float *found_inf);

typedef struct amp_sgd_config_s {
  double lr, momentum, dampening, weight_decay;
  int nesterov;
} amp_sgd_config_t;

typedef struct amp_adamw_config_s {
  double lr, beta1, beta2, eps, weight_decay;
  int coupled_decay; /* 1: Adam (the decay added to the gradient), 0: AdamW */
} amp_adamw_config_t;

/* Low-precision copies written next to the f32 masters; data may be NULL
 * (no copies), else `count` pointers of `dtype` elements. */
typedef struct amp_copy_list_s {
  amp_dtype_t dtype;
  void *const *data;
} amp_copy_list_t;

/* torch.optim.SGD over every parameter. `momentum_buffers` is ignored when
 * momentum is 0. `step` is the number of earlier updates (device f32); it
 * is incremented. When `found_inf` is non-null and set, nothing changes. */
amp_status_t amp_sgd_update(amp_stream_t *stream,
                            const amp_sgd_config_t *config,
                            amp_tensor_list_t params, amp_tensor_list_t grads,
                            amp_tensor_list_t momentum_buffers, float *step,
                            const float *found_inf, amp_copy_list_t copies);

/* torch.optim.AdamW over every parameter, same conventions; with
 * config->coupled_decay, torch.optim.Adam (weight decay added to the
 * gradient). */
amp_status_t amp_adamw_update(amp_stream_t *stream,
                              const amp_adamw_config_t *config,
                              amp_tensor_list_t params, amp_tensor_list_t grads,
                              amp_tensor_list_t exp_avgs,
                              amp_tensor_list_t exp_avg_sqs, float *step,
                              const float *found_inf, amp_copy_list_t copies);

/* The hyperparameters of an update as a compiled step keeps them: each in
 * device memory (a 0-d f64 tensor), read when the update runs, so that they
 * change between steps, and between replays of a captured step, without
 * the host. The caller keeps them in range (amp_runtime/hyperparameters.h);
 * the update does not check values it reads on the device. */
typedef struct amp_sgd_hparams_s {
  const double *lr;
  const double *momentum; /* null: plain SGD, no buffers */
  const double *weight_decay;
  double dampening; /* fixed: they change the update's code */
  int nesterov;
  /* Null, or a device f32 that multiplies every gradient element, in f32,
   * before the update reads it (clipping's coefficient): the update sees
   * what a separate multiply would have stored, without the launch. */
  const float *grad_scale;
} amp_sgd_hparams_t;

typedef struct amp_adamw_hparams_s {
  const double *lr, *beta1, *beta2, *eps, *weight_decay;
  int coupled_decay;       /* fixed: 1 for Adam, 0 for AdamW */
  const float *grad_scale; /* as amp_sgd_hparams_t's */
} amp_adamw_hparams_t;

/* As amp_sgd_update and amp_adamw_update, except that the hyperparameters
 * are read from the device and `step` is only read: the caller counts the
 * updates itself (a compiled training step does, in its own graph). For
 * SGD without momentum `step` may be null. With a momentum address, the
 * buffers are updated whatever its value (0 makes the direction the
 * gradient, as amp.sgd_momentum_update defines it). */
amp_status_t amp_sgd_apply(amp_stream_t *stream,
                           const amp_sgd_hparams_t *hparams,
                           amp_tensor_list_t params, amp_tensor_list_t grads,
                           amp_tensor_list_t momentum_buffers,
                           const float *step, const float *found_inf,
                           amp_copy_list_t copies);
amp_status_t amp_adamw_apply(amp_stream_t *stream,
                             const amp_adamw_hparams_t *hparams,
                             amp_tensor_list_t params, amp_tensor_list_t grads,
                             amp_tensor_list_t exp_avgs,
                             amp_tensor_list_t exp_avg_sqs, const float *step,
                             const float *found_inf, amp_copy_list_t copies);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* AMP_RUNTIME_OPTIMIZER_KERNELS_H */
