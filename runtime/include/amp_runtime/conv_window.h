//===- conv_window.h - the window of a 2-D convolution ----------*- C++ -*-===//
//
// Where each output position of a convolution or pooling over NCHW images
// reads, and which value max pooling takes: the one definition the
// dialect's verifiers (amp.conv2d, amp.im2col, amp.col2im, amp.max_pool2d),
// the interpreter and the generated kernels use.
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

  /// The input extent a window covers along `dim` (0: height, 1: width),
  /// from its first offset to its last.
  AMP_HOST_DEVICE int64_t span(int dim) const {
    return dilations[dim] * (kernel[dim] - 1) + 1;
  }
  /// The output extent of input extent `size` along `dim`; 0 where the
  /// window does not fit.
  AMP_HOST_DEVICE int64_t outputSize(int64_t size, int dim) const {
    int64_t padded = size + padding[dim] + padding[dim + 2];
    return padded < span(dim) ? 0 : (padded - span(dim)) / strides[dim] + 1;
  }
  /// The input row (dim 0) or column (dim 1) that output position `out`
  /// reads at kernel offset `k`: outside [0, size) in the padding.
  AMP_HOST_DEVICE int64_t inputPosition(int64_t out, int64_t k, int dim) const {
    return out * strides[dim] - padding[dim] + k * dilations[dim];
  }

  /// The kernel offsets [first, last] with which output position `out`
  /// reads inside [0, size) along `dim`; none where first > last.
  AMP_HOST_DEVICE void insideOffsets(int64_t out, int dim, int64_t size,
                                     int64_t &first, int64_t &last) const {
    int64_t start = out * strides[dim] - padding[dim]; // offset 0's position
    first = start >= 0 ? 0 : (dilations[dim] - 1 - start) / dilations[dim];
    last = start > size - 1 ? -1 : (size - 1 - start) / dilations[dim];
    if (last > kernel[dim] - 1)
      last = kernel[dim] - 1;
  }
  /// How many (kernel offset, output position) pairs of an image
  /// `height` x `width` read inside it: the column elements of amp.im2col
  /// that are not padding, per image and channel.
  AMP_HOST_DEVICE int64_t insideCount(int64_t height, int64_t width) const {
    return insideAlong(height, 0) * insideAlong(width, 1);
  }
  AMP_HOST_DEVICE int64_t insideAlong(int64_t size, int dim) const {
    int64_t count = 0, first = 0, last = 0;
    for (int64_t o = 0, out = outputSize(size, dim); o < out; ++o) {
      insideOffsets(o, dim, size, first, last);
      count += last >= first ? last - first + 1 : 0;
    }
    return count;
  }
};

/// The position (row * width + col) in an image `height` x `width` of the
/// largest value of the window of output position (y, x), as PyTorch's
/// max_pool2d picks it: the window's positions inside the image in (kh, kw)
/// order, each taking the place of the one before where its value, read by
/// `load(position)`, is larger or NaN. So the first of equal maxima wins,
/// and a NaN (the last one) wins over any number. The window must hold a
/// position inside the image (max_pool2d's verifier checks that each does).
template <typename Load>
AMP_HOST_DEVICE int64_t windowArgmax(const Conv2dWindow &window, int64_t height,
                                     int64_t width, int64_t y, int64_t x,
                                     Load load) {
  int64_t best = -1;
  decltype(load(int64_t())) bestValue{};
  int64_t firstRow, lastRow, firstCol, lastCol;
  window.insideOffsets(y, 0, height, firstRow, lastRow);
  window.insideOffsets(x, 1, width, firstCol, lastCol);
  for (int64_t kh = firstRow; kh <= lastRow; ++kh) {
    int64_t row = window.inputPosition(y, kh, 0);
    for (int64_t kw = firstCol; kw <= lastCol; ++kw) {
      int64_t at = row * width + window.inputPosition(x, kw, 1);
      auto value = load(at);
      if (best < 0 || value > bestValue || value != value) {
        best = at;
        bestValue = value;
      }
    }
  }
  return best;
}

} // namespace amprt

#endif // AMP_RUNTIME_CONV_WINDOW_H
