//===- optimizer_kernels.cpp - argument checks and dispatch ---------------===//

#include "amp_runtime/optimizer_kernels.h"

#include "backend.h"
#include "optimizer_bodies.h"
#include "runtime_internal.h"
#include "status.h"

namespace {

amp_status_t checkList(amp_tensor_list_t list, size_t count, const char *name) {
  if (list.count != count)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s has %zu tensors, expected %zu",
                      name, list.count, count);
  if (count && (!list.data || !list.sizes))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s has null arrays", name);
  for (size_t i = 0; i < count; ++i)
    if (!list.data[i] && list.sizes[i])
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s[%zu] is null", name, i);
  return nullptr;
}

amp_status_t checkSameSizes(amp_tensor_list_t a, amp_tensor_list_t b,
                            const char *name) {
  for (size_t i = 0; i < a.count; ++i)
    if (a.sizes[i] != b.sizes[i])
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "%s[%zu] has %zu elements, the parameter %zu", name, i,
                        b.sizes[i], a.sizes[i]);
  return nullptr;
}

amp_status_t checkCopies(amp_copy_list_t copies, size_t count) {
  if (!copies.data)
    return nullptr;
  if (!amprt::isStorageDtype(amprt::rawEnum(copies.dtype)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown copy dtype %d",
                      amprt::rawEnum(copies.dtype));
  for (size_t i = 0; i < count; ++i)
    if (!copies.data[i])
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "copies[%zu] is null", i);
  return nullptr;
}

amp_status_t checkUpdate(amp_stream_t *stream, const void *config,
                         amp_tensor_list_t params, amp_tensor_list_t grads,
                         amp_copy_list_t copies) {
  if (!stream || !config)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream or config is null");
  AMP_RETURN_IF_ERROR(checkList(params, params.count, "params"));
  AMP_RETURN_IF_ERROR(checkList(grads, params.count, "grads"));
  AMP_RETURN_IF_ERROR(checkSameSizes(params, grads, "grads"));
  return checkCopies(copies, params.count);
}

/// The lists and, with buffers, the step of an SGD update.
amp_status_t checkSgdLists(amp_tensor_list_t params,
                           amp_tensor_list_t momentumBuffers, const float *step,
                           bool buffered) {
  if (!buffered)
    return nullptr;
  if (!step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step is null (SGD with momentum "
                                            "reads it)");
  AMP_RETURN_IF_ERROR(
      checkList(momentumBuffers, params.count, "momentum_buffers"));
  return checkSameSizes(params, momentumBuffers, "momentum_buffers");
}

amp_status_t checkSgdConfig(const amp_sgd_config_t *config) {
  if (!(config->lr >= 0) || !(config->momentum >= 0) ||
      !(config->dampening >= 0 && config->dampening <= 1) ||
      !(config->weight_decay >= 0) ||
      (config->nesterov && (config->momentum <= 0 || config->dampening != 0)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "SGD config out of range");
  return nullptr;
}

/// The fixed part of device hyperparameters; the values on the device
/// are the caller's to keep in range.
amp_status_t checkSgdHparams(const amp_sgd_hparams_t *hparams) {
  if (!hparams->lr || !hparams->weight_decay)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "SGD's lr or weight_decay "
                                            "address is null");
  if (!(hparams->dampening >= 0 && hparams->dampening <= 1) ||
      (hparams->nesterov && (!hparams->momentum || hparams->dampening != 0)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "SGD dampening out of range, or "
                                            "nesterov without momentum or "
                                            "with dampening");
  return nullptr;
}

amp_status_t checkAdamwConfig(const amp_adamw_config_t *config) {
  if (!(config->lr >= 0) || !(config->beta1 >= 0 && config->beta1 < 1) ||
      !(config->beta2 >= 0 && config->beta2 < 1) || !(config->eps > 0) ||
      !(config->weight_decay >= 0))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "AdamW config out of range");
  return nullptr;
}

amp_status_t checkAdamwHparams(const amp_adamw_hparams_t *hparams) {
  if (!hparams->lr || !hparams->beta1 || !hparams->beta2 || !hparams->eps ||
      !hparams->weight_decay)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "an AdamW hyperparameter's address is null");
  return nullptr;
}

amp_status_t checkAdamwLists(amp_tensor_list_t params,
                             amp_tensor_list_t expAvgs,
                             amp_tensor_list_t expAvgSqs, const float *step) {
  if (!step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step is null");
  AMP_RETURN_IF_ERROR(checkList(expAvgs, params.count, "exp_avgs"));
  AMP_RETURN_IF_ERROR(checkSameSizes(params, expAvgs, "exp_avgs"));
  AMP_RETURN_IF_ERROR(checkList(expAvgSqs, params.count, "exp_avg_sqs"));
  return checkSameSizes(params, expAvgSqs, "exp_avg_sqs");
}

} // namespace

extern "C" {

amp_status_t amp_unscale(amp_stream_t *stream, amp_tensor_list_t grads,
                         const float *inv_scale, float *found_inf) {
  if (!stream || !inv_scale || !found_inf)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "stream, inv_scale or found_inf is null");
  AMP_RETURN_IF_ERROR(checkList(grads, grads.count, "grads"));
  return amprt::backendOf(stream)->unscale(amprt::handleOf(stream), grads,
                                           inv_scale, found_inf);
}

amp_status_t amp_sum_squares(amp_stream_t *stream,
                             amp_typed_tensor_list_t tensors, float *out) {
  if (!stream || !out)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream or out is null");
  if (tensors.count && (!tensors.data || !tensors.dtypes || !tensors.sizes))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "tensors has null arrays");
  for (size_t i = 0; i < tensors.count; ++i) {
    if (!amprt::isStorageDtype(amprt::rawEnum(tensors.dtypes[i])))
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "tensors[%zu] has dtype %d", i,
                        amprt::rawEnum(tensors.dtypes[i]));
    if (!tensors.data[i] && tensors.sizes[i])
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "tensors[%zu] is null", i);
    if (tensors.sizes[i] > static_cast<size_t>(INT64_MAX))
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "tensors[%zu] has %zu elements, too many", i,
                        tensors.sizes[i]);
  }
  return amprt::backendOf(stream)->sumSquares(amprt::handleOf(stream), tensors,
                                              out);
}

amp_status_t amp_scaler_update(amp_stream_t *stream,
                               const amp_scaler_config_t *config, float *scale,
                               float *growth_tracker, float *hysteresis_tracker,
                               const float *found_inf) {
  if (!stream || !config || !scale || !growth_tracker || !hysteresis_tracker ||
      !found_inf)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "a null argument");
  if (!(config->growth_factor > 1) ||
      !(config->backoff_factor > 0 && config->backoff_factor < 1) ||
      config->growth_interval <= 0 || config->hysteresis <= 0 ||
      config->min_scale < 0 || config->max_scale < 0 ||
      (config->min_scale > 0 && config->max_scale > 0 &&
       config->min_scale > config->max_scale))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "scaler config out of range (growth %g, backoff %g, "
                      "interval %lld, hysteresis %lld, clamps [%g, %g])",
                      config->growth_factor, config->backoff_factor,
                      static_cast<long long>(config->growth_interval),
                      static_cast<long long>(config->hysteresis),
                      config->min_scale, config->max_scale);
  return amprt::backendOf(stream)->scalerUpdate(amprt::handleOf(stream),
                                                *config, scale, growth_tracker,
                                                hysteresis_tracker, found_inf);
}

amp_status_t amp_sgd_apply(amp_stream_t *stream,
                           const amp_sgd_hparams_t *hparams,
                           amp_tensor_list_t params, amp_tensor_list_t grads,
                           amp_tensor_list_t momentum_buffers,
                           const float *step, const float *found_inf,
                           amp_copy_list_t copies) {
  AMP_RETURN_IF_ERROR(checkUpdate(stream, hparams, params, grads, copies));
  AMP_RETURN_IF_ERROR(checkSgdHparams(hparams));
  amprt::SgdSource source = amprt::sgdSource(*hparams);
  AMP_RETURN_IF_ERROR(
      checkSgdLists(params, momentum_buffers, step, source.buffered));
  return amprt::backendOf(stream)->sgd(amprt::handleOf(stream), source, params,
                                       grads, momentum_buffers, step, found_inf,
                                       copies);
}

amp_status_t amp_sgd_update(amp_stream_t *stream,
                            const amp_sgd_config_t *config,
                            amp_tensor_list_t params, amp_tensor_list_t grads,
                            amp_tensor_list_t momentum_buffers, float *step,
                            const float *found_inf, amp_copy_list_t copies) {
  if (!step)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "step is null");
  AMP_RETURN_IF_ERROR(checkUpdate(stream, config, params, grads, copies));
  AMP_RETURN_IF_ERROR(checkSgdConfig(config));
  amprt::SgdSource source = amprt::sgdSource(*config);
  AMP_RETURN_IF_ERROR(
      checkSgdLists(params, momentum_buffers, step, source.buffered));
  AMP_RETURN_IF_ERROR(amprt::backendOf(stream)->sgd(
      amprt::handleOf(stream), source, params, grads, momentum_buffers, step,
      found_inf, copies));
  return amprt::backendOf(stream)->countStep(amprt::handleOf(stream), step,
                                             found_inf);
}

amp_status_t amp_adamw_apply(amp_stream_t *stream,
                             const amp_adamw_hparams_t *hparams,
                             amp_tensor_list_t params, amp_tensor_list_t grads,
                             amp_tensor_list_t exp_avgs,
                             amp_tensor_list_t exp_avg_sqs, const float *step,
                             const float *found_inf, amp_copy_list_t copies) {
  AMP_RETURN_IF_ERROR(checkUpdate(stream, hparams, params, grads, copies));
  AMP_RETURN_IF_ERROR(checkAdamwHparams(hparams));
  AMP_RETURN_IF_ERROR(checkAdamwLists(params, exp_avgs, exp_avg_sqs, step));
  return amprt::backendOf(stream)->adamw(
      amprt::handleOf(stream), amprt::adamwSource(*hparams), params, grads,
      exp_avgs, exp_avg_sqs, step, found_inf, copies);
}

amp_status_t amp_adamw_update(amp_stream_t *stream,
                              const amp_adamw_config_t *config,
                              amp_tensor_list_t params, amp_tensor_list_t grads,
                              amp_tensor_list_t exp_avgs,
                              amp_tensor_list_t exp_avg_sqs, float *step,
                              const float *found_inf, amp_copy_list_t copies) {
  AMP_RETURN_IF_ERROR(checkUpdate(stream, config, params, grads, copies));
  AMP_RETURN_IF_ERROR(checkAdamwConfig(config));
  AMP_RETURN_IF_ERROR(checkAdamwLists(params, exp_avgs, exp_avg_sqs, step));
  AMP_RETURN_IF_ERROR(amprt::backendOf(stream)->adamw(
      amprt::handleOf(stream), amprt::adamwSource(*config), params, grads,
      exp_avgs, exp_avg_sqs, step, found_inf, copies));
  return amprt::backendOf(stream)->countStep(amprt::handleOf(stream), step,
                                             found_inf);
}

} // extern "C"
