//===- backend.h - what a device kind implements ----------------*- C++ -*-===//
//
// The C API dispatches every device operation to a Backend: the host one
// (host_backend.cpp) or the CUDA one (cuda_backend.cu, or cuda_missing.cpp in
// builds without the toolkit).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_BACKEND_H
#define AMP_RUNTIME_SRC_BACKEND_H

#include "amp_runtime/attention.h"
#include "amp_runtime/batch_norm.h"
#include "amp_runtime/conv.h"
#include "amp_runtime/gemm.h"
#include "amp_runtime/optimizer_kernels.h"
#include "amp_runtime/row_kernels.h"
#include "amp_runtime/runtime.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>

namespace amprt {

/// Counts a library call that ran on the runtime's kernels instead
/// (amp_library_fallbacks) and, the first time `reported` is passed, says
/// on stderr which call (`what`) and `why`.
void countLibraryFallback(std::once_flag &reported, const char *what,
                          const std::string &why);

struct SgdSource;      // optimizer_bodies.h
struct AdamwSource;    // optimizer_bodies.h
struct ConvStage;      // conv_bodies.h
struct BatchNormStage; // batch_norm_bodies.h

enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

class Backend {
public:
  virtual ~Backend() = default;
  virtual amp_device_kind_t kind() const = 0;
  virtual amp_status_t allocate(size_t size, void **out) = 0;
  virtual void free(void *pointer) = 0;
  /// Zero-fills `size` bytes at `pointer` (synchronously).
  virtual amp_status_t zero(void *pointer, size_t size) = 0;
  virtual amp_status_t createStream(void **out) = 0;
  virtual void destroyStream(void *stream) = 0;
  virtual amp_status_t synchronize(void *stream) = 0;
  /// The stream's workspace (amp_stream_workspace): none on the host.
  virtual void *workspace(void *stream, size_t *bytes) {
    *bytes = 0;
    return nullptr;
  }
  /// The stream's amprt::kReduceCounters zeroed counters
  /// (amp_stream_counters): none on the host.
  virtual unsigned *counters(void *) { return nullptr; }
  virtual amp_status_t copy(void *destination, const void *source, size_t size,
                            CopyKind kind, void *stream) = 0;
  /// Staging memory for batches: host memory that copies to the device
  /// read without the host waiting (page-locked on CUDA), and an event that
  /// marks when a stream's copies out of it are done (none: null).
  virtual amp_status_t allocateStaging(size_t size, void **out) {
    *out = nullptr;
    return nullptr;
  }
  virtual void freeStaging(void *) {}
  virtual amp_status_t createEvent(void **out) {
    *out = nullptr;
    return nullptr;
  }
  virtual void destroyEvent(void *) {}
  /// The event marks the work queued on `stream` so far.
  virtual amp_status_t recordEvent(void *, void *) { return nullptr; }
  /// Waits (on the host) for the work the event marks; at once if it marks
  /// none.
  virtual amp_status_t waitEvent(void *) { return nullptr; }
  virtual amp_status_t beginCapture(void *stream) = 0;
  virtual amp_status_t endCapture(void *stream, void **outGraph) = 0;
  virtual amp_status_t launchGraph(void *graph, void *stream) = 0;
  virtual void destroyGraph(void *graph) = 0;

  // Optimizer kernels (optimizer_kernels.h); arguments already checked.
  virtual amp_status_t unscale(void *stream, amp_tensor_list_t grads,
                               const float *invScale, float *foundInf) = 0;
  virtual amp_status_t sumSquares(void *stream, amp_typed_tensor_list_t tensors,
                                  float *out) = 0;
  virtual amp_status_t
  scalerUpdate(void *stream, const amp_scaler_config_t &config, float *scale,
               float *growth, float *hysteresis, const float *foundInf) = 0;
  /// The updates read `step` (null only for SGD without momentum) and
  /// leave counting to countStep.
  virtual amp_status_t sgd(void *stream, const SgdSource &source,
                           amp_tensor_list_t params, amp_tensor_list_t grads,
                           amp_tensor_list_t buffers, const float *step,
                           const float *foundInf, amp_copy_list_t copies) = 0;
  virtual amp_status_t adamw(void *stream, const AdamwSource &source,
                             amp_tensor_list_t params, amp_tensor_list_t grads,
                             amp_tensor_list_t expAvgs,
                             amp_tensor_list_t expAvgSqs, const float *step,
                             const float *foundInf, amp_copy_list_t copies) = 0;
  /// *step += 1 unless *foundInf is set, after the update before it.
  virtual amp_status_t countStep(void *stream, float *step,
                                 const float *foundInf) = 0;

  // Row kernels (row_kernels.h); arguments already checked.
  virtual amp_status_t softmaxForward(void *stream, amp_rows_t shape,
                                      const void *x, void *y, bool log) = 0;
  virtual amp_status_t softmaxBackward(void *stream, amp_rows_t shape,
                                       const void *y, const void *dy, void *dx,
                                       bool log) = 0;
  // Layer norm where `centered`, else RMS norm (no bias, mean or dbias).
  virtual amp_status_t normForward(void *stream, amp_rows_t shape,
                                   const void *x, const float *weight,
                                   const float *bias, float eps, bool centered,
                                   void *y, float *mean, float *rstd) = 0;
  virtual amp_status_t normBackward(void *stream, amp_rows_t shape,
                                    const void *x, const void *dy,
                                    const float *weight, float eps,
                                    bool centered, void *dx, float *dweight,
                                    float *dbias) = 0;
  virtual amp_status_t crossEntropy(void *stream, amp_rows_t shape,
                                    const void *logits, const int64_t *labels,
                                    float *losses, void *dlogits,
                                    const float *gradLoss, bool mean) = 0;

  /// id_buckets.h; arguments already checked.
  virtual amp_status_t idBuckets(void *stream, const void *ids, int idBytes,
                                 int64_t count, int64_t rows, int64_t *end,
                                 int64_t *positions, void *workspace) = 0;

  /// gemm.h; arguments already checked.
  virtual amp_status_t gemm(void *stream, const amp_gemm_t &gemm, const void *a,
                            const void *b, const void *bias, void *c) = 0;
  /// amp_fp8_cast, amp_fp8_amax and amp_fp8_scaling_update (gemm.h);
  /// arguments already checked.
  virtual amp_status_t fp8Cast(void *stream, const amp_fp8_cast_t &cast,
                               const void *input, uint8_t *data,
                               uint8_t *transposed, float *amax) = 0;
  virtual amp_status_t fp8Amax(void *stream, amp_dtype_t dtype,
                               const void *data, int64_t count,
                               float *amax) = 0;
  virtual amp_status_t fp8ScalingUpdate(void *stream,
                                        const amp_fp8_scaling_t &update,
                                        float *scale, float *history,
                                        float *overflows) = 0;

  /// attention.h; arguments already checked.
  virtual amp_status_t attentionForward(void *stream, const amp_attention_t &a,
                                        const void *q, const void *k,
                                        const void *v, void *out,
                                        float *lse) = 0;
  virtual amp_status_t attentionBackward(void *stream, const amp_attention_t &a,
                                         const void *q, const void *k,
                                         const void *v, const void *out,
                                         const void *dout, const float *lse,
                                         void *dq, void *dk, void *dv,
                                         float *workspace) = 0;

  /// conv_bodies.h's stage, over its rows; arguments checked.
  virtual amp_status_t convStage(void *stream, const ConvStage &stage) = 0;
  /// A pass of conv.h through a library (cuDNN), on operands (x, w), (dy,
  /// w) or (x, dy) by the pass, with the `workspaceBytes` the
  /// decomposition would use. Sets *ran; false, with nothing done, where no
  /// library takes it: conv.cpp then runs the decomposition.
  virtual amp_status_t convLibrary(void *stream, amp_conv2d_pass_t pass,
                                   const amp_conv2d_t &conv, const void *a,
                                   const void *b, const void *bias, void *out,
                                   void *workspace, size_t workspaceBytes,
                                   bool *ran) {
    *ran = false;
    return nullptr;
  }

  /// batch_norm_bodies.h's stage, over its channels; arguments checked.
  virtual amp_status_t batchNormStage(void *stream,
                                      const BatchNormStage &stage) = 0;
  /// The stage through a library (cuDNN), with batch_norm.h's workspace.
  /// Sets *ran; false, with nothing done, where no library takes it:
  /// batch_norm.cpp then runs the stage.
  virtual amp_status_t batchNormLibrary(void *stream,
                                        const BatchNormStage &stage,
                                        void *workspace, bool *ran) {
    *ran = false;
    return nullptr;
  }
};

/// Whether `sizes` (non-negative) multiply to a count of 4-byte elements
/// whose byte size fits in int64.
inline bool bytesFit(std::initializer_list<int64_t> sizes) {
  int64_t bytes = 4;
  for (int64_t size : sizes)
    if (__builtin_mul_overflow(bytes, size, &bytes))
      return false;
  return true;
}

/// Whether any of the caller's tensors is null.
inline bool anyNull(std::initializer_list<const void *> pointers) {
  for (const void *pointer : pointers)
    if (!pointer)
      return true;
  return false;
}

/// Whether a caller's dtype field (read with rawEnum) names a storage type.
inline bool isStorageDtype(int raw) {
  return raw == AMP_F32 || raw == AMP_F16 || raw == AMP_BF16;
}

/// The host backend (always available).
Backend *createHostBackend();
/// The CUDA backend for GPU `ordinal`, or a status saying why not.
amp_status_t createCudaBackend(int ordinal, Backend **out);
/// Whether createCudaBackend can succeed on this machine.
bool cudaAvailable();

} // namespace amprt

#endif // AMP_RUNTIME_SRC_BACKEND_H
