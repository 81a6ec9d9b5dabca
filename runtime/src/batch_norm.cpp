//===- batch_norm.cpp - argument checks, the library, the steps -----------===//
//
// Each call goes to the backend's library first (cuDNN on CUDA); where it
// does not run, to batch_norm_bodies.h's channels, amp-decompose's steps.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/batch_norm.h"

#include "backend.h"
#include "batch_norm_bodies.h"
#include "runtime_internal.h"
#include "status.h"

#include <cstdint>
#include <initializer_list>

namespace {

/// Why the runtime refuses `n`, or null.
amp_status_t checkNorm(const amp_batch_norm_t *n) {
  if (!n)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the batch norm is null");
  if (!amprt::isStorageDtype(amprt::rawEnum(n->dtype)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown dtype %d",
                      amprt::rawEnum(n->dtype));
  if (n->batch < 1 || n->channels < 1 || n->spatial < 1)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "batch norm sizes batch %lld, channels %lld, spatial "
                      "%lld: need positive sizes",
                      static_cast<long long>(n->batch),
                      static_cast<long long>(n->channels),
                      static_cast<long long>(n->spatial));
  if (!amprt::bytesFit({n->batch, n->channels, n->spatial}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "batch norm sizes overflow");
  if (n->training && n->batch * n->spatial < 2)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "training batch norm needs at least 2 values per "
                      "channel (the unbiased variance divides by n - 1)");
  if (!(n->epsilon >= 0) || !(n->momentum >= 0 && n->momentum <= 1))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "epsilon %g must be >= 0 and momentum %g in [0, 1]",
                      n->epsilon, n->momentum);
  return nullptr;
}

/// What both calls check before any work: the stream, `n`, the tensors
/// they need (named in `names` for the error) and the workspace.
amp_status_t checkCall(amp_stream_t *stream, const amp_batch_norm_t *n,
                       std::initializer_list<const void *> tensors,
                       const char *names, const void *workspace) {
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the stream is null");
  AMP_RETURN_IF_ERROR(checkNorm(n));
  if (amprt::anyNull(tensors))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s is null", names);
  if (!workspace)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the batch norm needs its workspace "
                      "(amp_batch_norm_workspace)");
  return nullptr;
}

/// The library, else the channels, for a checked call.
amp_status_t run(amp_stream_t *stream, const amprt::BatchNormStage &stage,
                 void *workspace) {
  amprt::Backend *backend = amprt::backendOf(stream);
  void *handle = amprt::handleOf(stream);
  bool ran = false;
  AMP_RETURN_IF_ERROR(
      backend->batchNormLibrary(handle, stage, workspace, &ran));
  if (ran)
    return nullptr;
  return backend->batchNormStage(handle, stage);
}

} // namespace

extern "C" {

size_t amp_batch_norm_workspace(const amp_batch_norm_t *norm) {
  amp_status_t refused = checkNorm(norm);
  if (refused) {
    amp_status_free(refused);
    return 0;
  }
  return static_cast<size_t>(amprt::batchNormWorkspace(*norm).bytes);
}

amp_status_t amp_batch_norm_forward(amp_stream_t *stream,
                                    const amp_batch_norm_t *norm, const void *x,
                                    const float *scale, const float *bias,
                                    const float *running_mean,
                                    const float *running_var, void *y,
                                    float *new_mean, float *new_var,
                                    void *workspace) {
  AMP_RETURN_IF_ERROR(checkCall(stream, norm, {x, running_mean, running_var, y},
                                "x, running_mean, running_var or y",
                                workspace));
  amprt::BatchNormStage stage(false, *norm);
  stage.x = x;
  stage.scale = scale;
  stage.bias = bias;
  stage.runningMean = running_mean;
  stage.runningVar = running_var;
  stage.out = y;
  stage.newMean = new_mean;
  stage.newVar = new_var;
  return run(stream, stage, workspace);
}

amp_status_t
amp_batch_norm_backward(amp_stream_t *stream, const amp_batch_norm_t *norm,
                        const void *x, const void *dy, const float *scale,
                        const float *running_mean, const float *running_var,
                        void *dx, float *dscale, float *dbias,
                        void *workspace) {
  AMP_RETURN_IF_ERROR(
      checkCall(stream, norm, {x, dy, running_mean, running_var, dx},
                "x, dy, running_mean, running_var or dx", workspace));
  amprt::BatchNormStage stage(true, *norm);
  stage.x = x;
  stage.dy = dy;
  stage.scale = scale;
  stage.runningMean = running_mean;
  stage.runningVar = running_var;
  stage.out = dx;
  stage.dscale = dscale;
  stage.dbias = dbias;
  return run(stream, stage, workspace);
}

} // extern "C"
