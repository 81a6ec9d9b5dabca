//===- row_kernels.cpp - argument checks and dispatch ---------------------===//

#include "amp_runtime/row_kernels.h"

#include "backend.h"
#include "runtime_internal.h"
#include "status.h"

#include <initializer_list>

namespace {

/// The stream, dtype and shape, and (when there are rows) the tensors.
amp_status_t checkRows(amp_stream_t *stream, amp_rows_t shape,
                       std::initializer_list<const void *> tensors) {
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream is null");
  if (!amprt::isStorageDtype(amprt::rawEnum(shape.dtype)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown dtype %d",
                      amprt::rawEnum(shape.dtype));
  if (shape.rows < 0 || shape.cols <= 0)
    return AMP_STATUS(
        AMP_INVALID_ARGUMENT, "shape [%lld, %lld] needs rows >= 0 and cols > 0",
        static_cast<long long>(shape.rows), static_cast<long long>(shape.cols));
  if (!amprt::bytesFit({shape.rows, shape.cols}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "shape [%lld, %lld] overflows",
                      static_cast<long long>(shape.rows),
                      static_cast<long long>(shape.cols));
  if (shape.rows && amprt::anyNull(tensors))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "a required tensor is null");
  return nullptr;
}

amp_status_t checkEps(float eps) {
  if (!(eps >= 0))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "eps %g must be >= 0", eps);
  return nullptr;
}

/// A layer norm (`centered`) or RMS norm, checked.
amp_status_t normForward(amp_stream_t *stream, amp_rows_t shape, const void *x,
                         const float *weight, const float *bias, float eps,
                         bool centered, void *y, float *mean, float *rstd) {
  AMP_RETURN_IF_ERROR(checkRows(stream, shape, {x, y}));
  AMP_RETURN_IF_ERROR(checkEps(eps));
  if (shape.rows == 0)
    return nullptr;
  return amprt::backendOf(stream)->normForward(amprt::handleOf(stream), shape,
                                               x, weight, bias, eps, centered,
                                               y, mean, rstd);
}

/// The gradient of a layer norm (`centered`) or RMS norm, checked.
amp_status_t normBackward(amp_stream_t *stream, amp_rows_t shape, const void *x,
                          const void *dy, const float *weight, float eps,
                          bool centered, void *dx, float *dweight,
                          float *dbias) {
  AMP_RETURN_IF_ERROR(checkRows(stream, shape, {x, dy, dx}));
  AMP_RETURN_IF_ERROR(checkEps(eps));
  if (shape.rows == 0)
    return nullptr;
  return amprt::backendOf(stream)->normBackward(amprt::handleOf(stream), shape,
                                                x, dy, weight, eps, centered,
                                                dx, dweight, dbias);
}

} // namespace

extern "C" {

amp_status_t amp_softmax_forward(amp_stream_t *stream, amp_rows_t shape,
                                 const void *x, void *y, int log) {
  AMP_RETURN_IF_ERROR(checkRows(stream, shape, {x, y}));
  if (shape.rows == 0)
    return nullptr;
  return amprt::backendOf(stream)->softmaxForward(amprt::handleOf(stream),
                                                  shape, x, y, log != 0);
}

amp_status_t amp_softmax_backward(amp_stream_t *stream, amp_rows_t shape,
                                  const void *y, const void *dy, void *dx,
                                  int log) {
  AMP_RETURN_IF_ERROR(checkRows(stream, shape, {y, dy, dx}));
  if (shape.rows == 0)
    return nullptr;
  return amprt::backendOf(stream)->softmaxBackward(amprt::handleOf(stream),
                                                   shape, y, dy, dx, log != 0);
}

amp_status_t amp_layer_norm_forward(amp_stream_t *stream, amp_rows_t shape,
                                    const void *x, const float *weight,
                                    const float *bias, float eps, void *y,
                                    float *mean, float *rstd) {
  return normForward(stream, shape, x, weight, bias, eps, /*centered=*/true, y,
                     mean, rstd);
}

amp_status_t amp_layer_norm_backward(amp_stream_t *stream, amp_rows_t shape,
                                     const void *x, const void *dy,
                                     const float *weight, float eps, void *dx,
                                     float *dweight, float *dbias) {
  return normBackward(stream, shape, x, dy, weight, eps, /*centered=*/true, dx,
                      dweight, dbias);
}

amp_status_t amp_rms_norm_forward(amp_stream_t *stream, amp_rows_t shape,
                                  const void *x, const float *weight, float eps,
                                  void *y, float *rstd) {
  return normForward(stream, shape, x, weight, nullptr, eps,
                     /*centered=*/false, y, nullptr, rstd);
}

amp_status_t amp_rms_norm_backward(amp_stream_t *stream, amp_rows_t shape,
                                   const void *x, const void *dy,
                                   const float *weight, float eps, void *dx,
                                   float *dweight) {
  return normBackward(stream, shape, x, dy, weight, eps, /*centered=*/false, dx,
                      dweight, nullptr);
}

amp_status_t amp_cross_entropy(amp_stream_t *stream, amp_rows_t shape,
                               const void *logits, const int64_t *labels,
                               float *losses, void *dlogits,
                               const float *grad_loss,
                               amp_loss_reduction_t reduction) {
  AMP_RETURN_IF_ERROR(checkRows(stream, shape, {logits, labels}));
  if (!losses && !dlogits)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "neither losses nor dlogits is requested");
  int raw = amprt::rawEnum(reduction);
  if (raw != AMP_LOSS_SUM && raw != AMP_LOSS_MEAN)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown loss reduction %d", raw);
  if (shape.rows == 0)
    return nullptr;
  return amprt::backendOf(stream)->crossEntropy(
      amprt::handleOf(stream), shape, logits, labels, losses, dlogits,
      grad_loss, raw == AMP_LOSS_MEAN);
}

} // extern "C"
