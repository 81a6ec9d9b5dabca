//===- CudnnConvTest.cpp - cuDNN convolution graphs, without a GPU --------===//
//
// The graphs the CUDA backend hands cuDNN for convolutions, checked by the
// cuDNN frontend's own validation (shapes, strides, dtypes, padding and
// window attributes), which needs no GPU.
//
//===----------------------------------------------------------------------===//

#include "cudnn_conv.h"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string messageOf(amp_status_t status) {
  std::string message = status ? amp_status_message(status) : "";
  amp_status_free(status);
  return message;
}

constexpr int kSms[] = {80, 90};
constexpr amp_conv2d_pass_t kPasses[] = {
    AMP_CONV2D_FORWARD, AMP_CONV2D_BACKWARD_DATA, AMP_CONV2D_BACKWARD_FILTER};

void expectValid(const amp_conv2d_t &c) {
  for (int sm : kSms)
    for (amp_conv2d_pass_t pass : kPasses)
      for (bool bias : {false, true}) {
        if (bias && pass != AMP_CONV2D_FORWARD)
          continue;
        SCOPED_TRACE("sm " + std::to_string(sm) + " pass " +
                     std::to_string(pass) + (bias ? " with a bias" : ""));
        EXPECT_EQ(messageOf(amprt::CudnnConv::validate(c, pass, bias, sm)), "");
      }
}

TEST(CudnnConv, ResNetLayersValidate) {
  // examples/resnet.mlir's stem (3 to 16 channels, 3x3, padding 1) and a
  // strided stage entry (16 to 32, stride 2), batch 16 of 32x32 images.
  for (amp_dtype_t dtype : {AMP_F16, AMP_BF16, AMP_F32}) {
    SCOPED_TRACE("dtype " + std::to_string(dtype));
    expectValid({dtype,
                 dtype,
                 16,
                 3,
                 32,
                 32,
                 16,
                 1,
                 {3, 3},
                 {1, 1},
                 {1, 1},
                 {1, 1, 1, 1}});
    expectValid({dtype,
                 dtype,
                 16,
                 16,
                 32,
                 32,
                 32,
                 1,
                 {3, 3},
                 {2, 2},
                 {1, 1},
                 {1, 1, 1, 1}});
  }
}

TEST(CudnnConv, GroupedDilatedAndAsymmetricValidate) {
  expectValid({AMP_F16,
               AMP_F16,
               4,
               32,
               14,
               14,
               32,
               32,
               {3, 3},
               {1, 1},
               {1, 1},
               {1, 1, 1, 1}});
  expectValid({AMP_BF16,
               AMP_BF16,
               2,
               8,
               11,
               10,
               16,
               2,
               {3, 2},
               {2, 3},
               {2, 1},
               {2, 0, 1, 2}});
}

TEST(CudnnConv, LowPrecisionIntoF32Validates) {
  amp_conv2d_t c{AMP_F16, AMP_F32, 8,      16,     16,     16,
                 16,      1,       {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  for (int sm : kSms)
    for (bool bias : {false, true})
      EXPECT_EQ(messageOf(amprt::CudnnConv::validate(c, AMP_CONV2D_FORWARD,
                                                     bias, sm)),
                "");
}

} // namespace
