//===- cuda_backend.cu - device memory and streams ------------------------===//

#include "backend.h"
#include "status.h"

#include <cuda_runtime.h>

#include <new>

namespace {

amp_status_t check(cudaError_t error, const char *what, const char *file,
                   int line) {
  if (error == cudaSuccess)
    return nullptr;
  return amprt::makeStatus(error == cudaErrorMemoryAllocation
                               ? AMP_OUT_OF_MEMORY
                               : AMP_DEVICE_ERROR,
                           file, line, "%s failed: %s (%s)", what,
                           cudaGetErrorString(error), cudaGetErrorName(error));
}
#define AMP_CUDA(call) check((call), #call, __FILE__, __LINE__)

class CudaBackend final : public amprt::Backend {
public:
  explicit CudaBackend(int ordinal) : ordinal(ordinal) {}
  amp_device_kind_t kind() const override { return AMP_DEVICE_CUDA; }

  amp_status_t allocate(size_t size, void **out) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    return AMP_CUDA(cudaMalloc(out, size ? size : 1));
  }
  void free(void *pointer) override { cudaFree(pointer); }
  amp_status_t zero(void *pointer, size_t size) override {
    return AMP_CUDA(cudaMemset(pointer, 0, size));
  }
  amp_status_t createStream(void **out) override {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    cudaStream_t stream;
    AMP_RETURN_IF_ERROR(
        AMP_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)));
    *out = stream;
    return nullptr;
  }
  void destroyStream(void *stream) override {
    cudaStreamDestroy(static_cast<cudaStream_t>(stream));
  }
  amp_status_t synchronize(void *stream) override {
    return AMP_CUDA(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
  }
  amp_status_t copy(void *destination, const void *source, size_t size,
                    amprt::CopyKind kind, void *stream) override {
    cudaMemcpyKind direction =
        kind == amprt::CopyKind::HostToDevice   ? cudaMemcpyHostToDevice
        : kind == amprt::CopyKind::DeviceToHost ? cudaMemcpyDeviceToHost
                                                : cudaMemcpyDeviceToDevice;
    return AMP_CUDA(cudaMemcpyAsync(destination, source, size, direction,
                                    static_cast<cudaStream_t>(stream)));
  }

private:
  int ordinal;
};

} // namespace

bool amprt::cudaAvailable() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

amp_status_t amprt::createCudaBackend(int ordinal, Backend **out) {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0)
    return AMP_STATUS(AMP_UNAVAILABLE, "no CUDA device: %s",
                      error != cudaSuccess ? cudaGetErrorString(error)
                                           : "no GPU found");
  if (ordinal < 0 || ordinal >= count)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "CUDA device %d requested, %d present", ordinal, count);
  *out = new (std::nothrow) CudaBackend(ordinal);
  if (!*out)
    return AMP_STATUS(AMP_OUT_OF_MEMORY, "cannot allocate the CUDA backend");
  return nullptr;
}
