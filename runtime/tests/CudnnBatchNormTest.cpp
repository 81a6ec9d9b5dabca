//===- CudnnBatchNormTest.cpp - cuDNN batch norm graphs, without a GPU ---===//
//
// The graphs the CUDA backend hands cuDNN for a training batch norm (the
// forward with the running statistics' update, the backward from the
// saved statistics), checked by the cuDNN frontend's own validation
// (the tensors' ids, dims, strides and types, inferred consistently
// through the nodes), which needs no GPU. The frontend checks nothing of
// the batch norm nodes themselves before cuDNN builds them: whether cuDNN
// has engines for them (NCHW activations included) is known on a GPU
// only, and where it has none the backend runs batch_norm_bodies.h.
//
//===----------------------------------------------------------------------===//

#include "cudnn_batch_norm.h"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string messageOf(amp_status_t status) {
  std::string message = status ? amp_status_message(status) : "";
  amp_status_free(status);
  return message;
}

void expectValid(const amp_batch_norm_t &n) {
  for (int sm : {80, 90})
    for (bool backward : {false, true}) {
      SCOPED_TRACE("sm " + std::to_string(sm) +
                   (backward ? " backward" : " forward"));
      EXPECT_EQ(messageOf(amprt::CudnnBatchNorm::validate(n, backward, sm)),
                "");
    }
}

TEST(CudnnBatchNorm, ResNetLayersValidate) {
  // examples/resnet.mlir's batch norms: 16 channels of 32x32, 64 of 8x8,
  // batch 16, in each storage type.
  for (amp_dtype_t dtype : {AMP_F16, AMP_BF16, AMP_F32}) {
    SCOPED_TRACE("dtype " + std::to_string(dtype));
    expectValid({dtype, 16, 16, 32 * 32, 1e-5, 0.1, 1});
    expectValid({dtype, 16, 64, 8 * 8, 1e-5, 0.1, 1});
  }
}

TEST(CudnnBatchNorm, FeatureRowsValidate) {
  // [N, C] activations (batch norm after a linear layer): spatial 1.
  expectValid({AMP_F16, 32, 128, 1, 1e-3, 0.01, 1});
}

} // namespace
