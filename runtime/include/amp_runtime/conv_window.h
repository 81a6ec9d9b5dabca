//===- conv_window.h - the window of a 2-D convolution ----------*- C++ -*-===//
//
// Where each output position of a convolution over NCHW images reads: the
// one definition the dialect's verifiers (amp.conv2d, amp.im2col,
// amp.col2im), the interpreter and the generated kernels use.
//
// Output row y of a `kernel[0]`-tall window starts at input row
// y * strides[0] - top and reads every dilations[0]-th row (columns
// alike); a position outside the image is in the padding and reads zero.
//
// Header-only, free of LLVM, AMP_HOST_DEVICE.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_CONV_WINDOW_H
#define AMP_RUNTIME_CONV_WINDOW_H

#include "amp_runtime/float_formats.h" // AMP_HOST_DEVICE

#include <stdint.h>

namespace amprt {

struct Conv2dWindow {
  int64_t kernel[2] = {1, 1};        // [h, w]
  int64_t strides[2] = {1, 1};       // [h, w]
  int64_t padding[4] = {0, 0, 0, 0}; // top, left, bottom, right
  int64_t dilations[2] = {1, 1};     // [h, w]

  /// The output extent of input extent `size` along `dim` (0: height,
  /// 1: width); 0 where the window does not fit.
  AMP_HOST_DEVICE int64_t outputSize(int64_t size, int dim) const {
    int64_t span = dilations[dim] * (kernel[dim] - 1) + 1;
    int64_t padded = size + padding[dim] + padding[dim + 2];
    return padded < span ? 0 : (padded - span) / strides[dim] + 1;
  }
  /// The input row (dim 0) or column (dim 1) that output position `out`
  /// reads at kernel offset `k`: outside [0, size) in the padding.
  AMP_HOST_DEVICE int64_t inputPosition(int64_t out, int64_t k, int dim) const {
    return out * strides[dim] - padding[dim] + k * dilations[dim];
  }
};

} // namespace amprt

#endif // AMP_RUNTIME_CONV_WINDOW_H
