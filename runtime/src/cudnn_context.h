//===- cudnn_context.h - the CUDA backend's one cuDNN handle ----*- C++ -*-===//
//
// One cuDNN handle for the attention, convolution and batch-norm calls of
// a CUDA backend, with the mutex that guards it: cuDNN runs a plan on the
// stream last set on its handle, so a set and the execute after it happen
// under the lock, as does every lookup in the plan caches built on the
// handle (cudnn_graphs.h's CudnnPlanCache).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_CUDNN_CONTEXT_H
#define AMP_RUNTIME_SRC_CUDNN_CONTEXT_H

#include "status.h"

#include <cudnn.h>

#include <memory>
#include <mutex>

namespace amprt {

class CudnnContext {
public:
  /// Makes the handle on the current device; AMP_UNAVAILABLE where cuDNN
  /// cannot make one (no usable library, a GPU it does not support).
  static amp_status_t create(std::shared_ptr<CudnnContext> &out) {
    cudnnHandle_t handle = nullptr;
    cudnnStatus_t status = cudnnCreate(&handle);
    if (status != CUDNN_STATUS_SUCCESS)
      return AMP_STATUS(AMP_UNAVAILABLE, "cudnnCreate: %s",
                        cudnnGetErrorString(status));
    out.reset(new CudnnContext(handle));
    return nullptr;
  }

  ~CudnnContext() { cudnnDestroy(handle); }
  CudnnContext(const CudnnContext &) = delete;
  CudnnContext &operator=(const CudnnContext &) = delete;

  cudnnHandle_t getHandle() const { return handle; }
  /// Held from a stream's set to the execute after it, and around every
  /// plan cache's lookup.
  std::mutex &getMutex() { return mutex; }

private:
  explicit CudnnContext(cudnnHandle_t handle) : handle(handle) {}

  cudnnHandle_t handle;
  std::mutex mutex;
};

} // namespace amprt

#endif // AMP_RUNTIME_SRC_CUDNN_CONTEXT_H
