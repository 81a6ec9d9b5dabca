//===- cudnn_conv.h - convolutions through cuDNN's graphs -------*- C++ -*-===//
//
// The CUDA backend's convolutions: cuDNN's fprop (with the bias added in
// f32 by a pointwise node where there is one), dgrad and wgrad, built
// through cuDNN's graph API by NVIDIA's cuDNN frontend, on conv.h's NCHW
// images and OIHW weights, f32 accumulation. Where cuDNN has no plan for a
// convolution or its plan needs more workspace than there is, the call
// reports that it did not run and the backend runs conv.h's decomposition.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_CUDNN_CONV_H
#define AMP_RUNTIME_SRC_CUDNN_CONV_H

#include "amp_runtime/conv.h"

#include <cstddef>
#include <memory>

namespace amprt {

class CudnnContext; // cudnn_context.h

class CudnnConv {
public:
  /// Builds and runs its plans on `context`'s handle.
  explicit CudnnConv(std::shared_ptr<CudnnContext> context);
  ~CudnnConv();

  /// Runs `pass` of `conv` (Backend::convLibrary's operands) on `stream`
  /// and sets *ran; false, with nothing done, where cuDNN has no plan for
  /// it or the plan needs more than `workspaceBytes`. Plans are built on a
  /// convolution's first call and kept.
  amp_status_t run(void *stream, amp_conv2d_pass_t pass,
                   const amp_conv2d_t &conv, const void *a, const void *b,
                   const void *bias, void *out, void *workspace,
                   size_t workspaceBytes, bool *ran);

  /// Builds the graph of `pass` and has the frontend validate it for a GPU
  /// of compute capability `sm` (90 for sm_90), as before building a plan;
  /// needs no GPU. An error says what was refused.
  static amp_status_t validate(const amp_conv2d_t &conv, amp_conv2d_pass_t pass,
                               bool hasBias, int sm);

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace amprt

#endif // AMP_RUNTIME_SRC_CUDNN_CONV_H
