//===- cudnn_batch_norm.h - batch norm through cuDNN's graphs ---*- C++ -*-===//
//
// The CUDA backend's training batch norm: cuDNN's batchnorm node (the
// batch statistics, the saved mean and inverse deviation, the running
// statistics' update) and its backward node, built through cuDNN's graph
// API by NVIDIA's cuDNN frontend on batch_norm.h's [N, C, spatial]
// activations. The evaluation mode, and anything cuDNN has no plan for,
// reports that it did not run, and the backend runs batch_norm_bodies.h.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_CUDNN_BATCH_NORM_H
#define AMP_RUNTIME_SRC_CUDNN_BATCH_NORM_H

#include "amp_runtime/batch_norm.h"

#include <cstddef>
#include <memory>

namespace amprt {

struct BatchNormStage; // batch_norm_bodies.h
class CudnnContext;    // cudnn_context.h

class CudnnBatchNorm {
public:
  /// Builds and runs its plans on `context`'s handle.
  explicit CudnnBatchNorm(std::shared_ptr<CudnnContext> context);
  ~CudnnBatchNorm();

  /// Runs `stage` on `stream` and sets *ran; false, with nothing done,
  /// where cuDNN does not take it (evaluation mode, no plan, a plan that
  /// needs more than `scratchBytes` of `scratch`). `workspace` is
  /// batch_norm.h's, whose ones and zeros stand in for a missing scale and
  /// bias: the caller has filled them. Plans are built on first use.
  amp_status_t run(void *stream, const BatchNormStage &stage, void *workspace,
                   void *scratch, size_t scratchBytes, bool *ran);

  /// Builds the forward (or backward) graph and has the frontend validate
  /// it for a GPU of compute capability `sm`, without a GPU. An error says
  /// what was refused.
  static amp_status_t validate(const amp_batch_norm_t &norm, bool backward,
                               int sm);

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace amprt

#endif // AMP_RUNTIME_SRC_CUDNN_BATCH_NORM_H
