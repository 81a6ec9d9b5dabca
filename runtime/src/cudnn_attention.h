//===- cudnn_attention.h - attention through cuDNN's fused SDPA -*- C++ -*-===//
//
// The CUDA backend's attention for f16 and bf16: cuDNN's fused
// scaled-dot-product attention (flash attention on tensor cores), forward
// and backward, built through cuDNN's graph API by NVIDIA's cuDNN frontend.
// Its log-sum-exp ("Stats", natural log, f32 [batch, seq_q]) is the one
// attention.h defines, so the two backward passes accept each other's
// forward. Where cuDNN has no plan for an attention (f32, a head dim it
// does not take, too little workspace), the call reports that it did not
// run and the backend runs its own kernels.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_CUDNN_ATTENTION_H
#define AMP_RUNTIME_SRC_CUDNN_ATTENTION_H

#include "amp_runtime/attention.h"

#include <cstddef>
#include <memory>

namespace amprt {

class CudnnContext; // cudnn_context.h

class CudnnAttention {
public:
  /// Builds and runs its plans on `context`'s handle.
  explicit CudnnAttention(std::shared_ptr<CudnnContext> context);
  ~CudnnAttention();

  /// Runs attention.h's forward (lse may be null) on `stream` with cuDNN,
  /// and sets *ran; false, with nothing done, where cuDNN has no plan for
  /// it or its plan needs more than `workspaceBytes`. Plans are built on
  /// an attention's first call and kept.
  amp_status_t forward(void *stream, const amp_attention_t &a, const void *q,
                       const void *k, const void *v, void *out, float *lse,
                       void *workspace, size_t workspaceBytes, bool *ran);

  /// The same for the backward: dq, dk and dv overwritten, by cuDNN's
  /// deterministic algorithm (no plan otherwise).
  amp_status_t backward(void *stream, const amp_attention_t &a, const void *q,
                        const void *k, const void *v, const void *out,
                        const void *dout, const float *lse, void *dq, void *dk,
                        void *dv, void *workspace, size_t workspaceBytes,
                        bool *ran);

  /// Builds the graph of `a` (its backward, or its forward with or
  /// without lse) and has the frontend validate it for a GPU of compute
  /// capability `sm` (90 for sm_90), as before building a plan; needs no
  /// GPU. An error says what was refused.
  static amp_status_t validate(const amp_attention_t &a, bool backward,
                               bool withLse, int sm);

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace amprt

#endif // AMP_RUNTIME_SRC_CUDNN_ATTENTION_H
