//===- cuda_backend.cu - device memory and streams ------------------------===//

#include "backend.h"
#include "optimizer_bodies.h"
#include "status.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <new>

namespace {

//===----------------------------------------------------------------------===//
// Multi-tensor kernels
//===----------------------------------------------------------------------===//
//
// As Apex's multi_tensor_apply: the tensor addresses travel in the launch's
// parameters, in chunks of kChunk tensors, so one launch covers many tensors
// and nothing is read from the host (the launches can be graph-captured).

constexpr int kChunk = 8;
constexpr int kThreads = 256;
constexpr int kBlocks = 264; // enough to fill an H200's 132 SMs twice

struct Chunk {
  float *a[kChunk], *b[kChunk], *c[kChunk], *d[kChunk];
  void *copy[kChunk];
  size_t size[kChunk];
  int count;
};

template <typename Fn>
__device__ void forEachElement(const Chunk &chunk, Fn fn) {
  size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (int t = 0; t < chunk.count; ++t)
    for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
         i < chunk.size[t]; i += stride)
      fn(t, i);
}

__global__ void unscaleKernel(Chunk chunk, const float *invScale,
                              float *foundInf) {
  float inv = *invScale;
  forEachElement(chunk, [&](int t, size_t i) {
    float value = chunk.a[t][i];
    if (!isfinite(value))
      *foundInf = 1.0f; // racing writers all write 1
    chunk.a[t][i] = value * inv;
  });
}

__global__ void scalerUpdateKernel(amp_scaler_config_t config, float *scale,
                                   float *growth, float *hysteresis,
                                   const float *foundInf) {
  amprt::scalerUpdate(config, *scale, *growth, *hysteresis, *foundInf != 0);
}

__global__ void sgdKernel(Chunk chunk, amp_sgd_config_t config,
                          const float *step, const float *foundInf,
                          amp_dtype_t copyType) {
  if (foundInf && *foundInf != 0)
    return;
  bool first = *step == 0;
  forEachElement(chunk, [&](int t, size_t i) {
    float &p = chunk.a[t][i];
    amprt::sgdElement(config, first, p, chunk.b[t][i],
                      config.momentum != 0 ? &chunk.c[t][i] : nullptr);
    if (chunk.copy[t])
      amprt::storeCopy(copyType, chunk.copy[t], i, p);
  });
}

__global__ void adamwKernel(Chunk chunk, amp_adamw_config_t config,
                            const float *step, const float *foundInf,
                            amp_dtype_t copyType) {
  if (foundInf && *foundInf != 0)
    return;
  amprt::AdamwScalars scalars = amprt::adamwScalars(config, *step);
  forEachElement(chunk, [&](int t, size_t i) {
    float &p = chunk.a[t][i];
    amprt::adamwElement(scalars, p, chunk.b[t][i], chunk.c[t][i],
                        chunk.d[t][i]);
    if (chunk.copy[t])
      amprt::storeCopy(copyType, chunk.copy[t], i, p);
  });
}

/// Counts an applied update, after every chunk of it ran.
__global__ void stepKernel(float *step, const float *foundInf) {
  if (!(foundInf && *foundInf != 0))
    *step += 1;
}

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

  amp_status_t unscale(void *stream, amp_tensor_list_t grads,
                       const float *invScale, float *foundInf) override {
    return forChunks(grads, grads, grads, grads, {AMP_F32, nullptr},
                     [&](const Chunk &chunk) {
                       unscaleKernel<<<kBlocks, kThreads, 0, cast(stream)>>>(
                           chunk, invScale, foundInf);
                     });
  }

  amp_status_t scalerUpdate(void *stream, const amp_scaler_config_t &config,
                            float *scale, float *growth, float *hysteresis,
                            const float *foundInf) override {
    scalerUpdateKernel<<<1, 1, 0, cast(stream)>>>(config, scale, growth,
                                                  hysteresis, foundInf);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t sgd(void *stream, const amp_sgd_config_t &config,
                   amp_tensor_list_t params, amp_tensor_list_t grads,
                   amp_tensor_list_t buffers, float *step,
                   const float *foundInf, amp_copy_list_t copies) override {
    AMP_RETURN_IF_ERROR(forChunks(
        params, grads, config.momentum != 0 ? buffers : params, params, copies,
        [&](const Chunk &chunk) {
          sgdKernel<<<kBlocks, kThreads, 0, cast(stream)>>>(
              chunk, config, step, foundInf, copies.dtype);
        }));
    stepKernel<<<1, 1, 0, cast(stream)>>>(step, foundInf);
    return AMP_CUDA(cudaGetLastError());
  }

  amp_status_t adamw(void *stream, const amp_adamw_config_t &config,
                     amp_tensor_list_t params, amp_tensor_list_t grads,
                     amp_tensor_list_t expAvgs, amp_tensor_list_t expAvgSqs,
                     float *step, const float *foundInf,
                     amp_copy_list_t copies) override {
    AMP_RETURN_IF_ERROR(forChunks(
        params, grads, expAvgs, expAvgSqs, copies, [&](const Chunk &chunk) {
          adamwKernel<<<kBlocks, kThreads, 0, cast(stream)>>>(
              chunk, config, step, foundInf, copies.dtype);
        }));
    stepKernel<<<1, 1, 0, cast(stream)>>>(step, foundInf);
    return AMP_CUDA(cudaGetLastError());
  }

private:
  static cudaStream_t cast(void *stream) {
    return static_cast<cudaStream_t>(stream);
  }

  /// Launches `launch` once per chunk of up to kChunk tensors.
  template <typename Launch>
  amp_status_t forChunks(amp_tensor_list_t a, amp_tensor_list_t b,
                         amp_tensor_list_t c, amp_tensor_list_t d,
                         amp_copy_list_t copies, Launch launch) {
    AMP_RETURN_IF_ERROR(AMP_CUDA(cudaSetDevice(ordinal)));
    for (size_t first = 0; first < a.count; first += kChunk) {
      Chunk chunk{};
      chunk.count = static_cast<int>(std::min<size_t>(kChunk, a.count - first));
      for (int t = 0; t < chunk.count; ++t) {
        chunk.a[t] = a.data[first + t];
        chunk.b[t] = b.data[first + t];
        chunk.c[t] = c.data[first + t];
        chunk.d[t] = d.data[first + t];
        chunk.copy[t] = copies.data ? copies.data[first + t] : nullptr;
        chunk.size[t] = a.sizes[first + t];
      }
      launch(chunk);
      AMP_RETURN_IF_ERROR(AMP_CUDA(cudaGetLastError()));
    }
    return nullptr;
  }

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
