//===- conv_bodies.h - the convolutions' data movement ---------*- C++ -*-===//
//
// The element-by-element stages of conv.h's decomposition, written once:
// the host backend runs each element in a loop, the CUDA backend a thread
// each. They compute what the kernels amp-to-cuda prints for amp.im2col,
// amp.col2im, the bias add and amp.transpose do (the same reads, the same
// f32 sums in the same order, one rounding at the store), so a convolution
// run through conv.h gives the bits of its decomposition.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_CONV_BODIES_H
#define AMP_RUNTIME_SRC_CONV_BODIES_H

#include "amp_runtime/conv.h"
#include "amp_runtime/conv_window.h"
#include "row_bodies.h"

namespace amprt {

struct ConvStage {
  enum Kind {
    /// out [N, C * KH * KW, OH * OW] (dtype): each window's values, zero
    /// in the padding.
    Im2col,
    /// out [N, C, H, W] (dtype): the f32 column gradients `in` [N, C * KH
    /// * KW, OH * OW] that read each image element, summed over kh, then
    /// kw, ascending, from 0, and rounded once.
    Col2im,
    /// out [N, O, OH * OW] (y_dtype) = in (f32, the same shape) + bias[o]
    /// (y_dtype, widened), rounded once; in may be out.
    AddBias,
    /// out [G, rows, N, OH * OW] = in [N, G, rows, OH * OW] (dtype).
    LeadGroups,
  };
  Kind kind;
  amp_conv2d_t conv;
  int64_t count; // the elements of out
  int64_t rows;  // LeadGroups: the rows of a group
  const void *in;
  const void *bias;
  void *out;
};

AMP_HOST_DEVICE inline Conv2dWindow windowOf(const amp_conv2d_t &c) {
  Conv2dWindow window;
  for (int d = 0; d < 2; ++d) {
    window.kernel[d] = c.kernel[d];
    window.strides[d] = c.strides[d];
    window.dilations[d] = c.dilations[d];
  }
  for (int d = 0; d < 4; ++d)
    window.padding[d] = c.padding[d];
  return window;
}

/// Copies element `from` of `in` to element `to` of `out`, bits as they
/// are (a NaN keeps its payload, as the generated copies do).
AMP_HOST_DEVICE inline void copyElement(amp_dtype_t dtype, const void *in,
                                        int64_t from, void *out, int64_t to) {
  if (dtype == AMP_F32)
    static_cast<uint32_t *>(out)[to] = static_cast<const uint32_t *>(in)[from];
  else
    static_cast<uint16_t *>(out)[to] = static_cast<const uint16_t *>(in)[from];
}

AMP_HOST_DEVICE inline void runConvStage(const ConvStage &s, int64_t i) {
  const amp_conv2d_t &c = s.conv;
  const Conv2dWindow window = windowOf(c);
  const int64_t outH = window.outputSize(c.height, 0);
  const int64_t outW = window.outputSize(c.width, 1);
  const int64_t positions = outH * outW;
  switch (s.kind) {
  case ConvStage::Im2col: {
    const int64_t x = i % outW, y = i / outW % outH;
    const int64_t kw = i / positions % c.kernel[1];
    const int64_t kh = i / (positions * c.kernel[1]) % c.kernel[0];
    const int64_t image = i / (positions * c.kernel[1] * c.kernel[0]);
    const int64_t row = window.inputPosition(y, kh, 0);
    const int64_t col = window.inputPosition(x, kw, 1);
    if (row >= 0 && row < c.height && col >= 0 && col < c.width)
      copyElement(c.dtype, s.in, (image * c.height + row) * c.width + col,
                  s.out, i);
    else
      store(c.dtype, s.out, i, 0.0f);
    return;
  }
  case ConvStage::Col2im: {
    const int64_t col = i % c.width, row = i / c.width % c.height;
    const int64_t image = i / (c.width * c.height);
    const float *columns = static_cast<const float *>(s.in);
    float acc = 0.0f;
    // Offset kh reads row `row` from output row (row + top - kh * dh) /
    // sh, where that divides and is inside the output.
    for (int64_t kh = 0; kh < c.kernel[0]; ++kh) {
      const int64_t sy = row + c.padding[0] - kh * c.dilations[0];
      if (sy < 0 || sy % c.strides[0] != 0 || sy >= outH * c.strides[0])
        continue;
      const int64_t y = sy / c.strides[0];
      for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
        const int64_t sx = col + c.padding[1] - kw * c.dilations[1];
        if (sx < 0 || sx % c.strides[1] != 0 || sx >= outW * c.strides[1])
          continue;
        const int64_t x = sx / c.strides[1];
        acc = acc + columns[((image * c.kernel[0] + kh) * c.kernel[1] + kw) *
                                positions +
                            y * outW + x];
      }
    }
    store(c.dtype, s.out, i, acc);
    return;
  }
  case ConvStage::AddBias: {
    const int64_t channel = i / positions % c.out_channels;
    const float sum =
        static_cast<const float *>(s.in)[i] + load(c.y_dtype, s.bias, channel);
    store(c.y_dtype, s.out, i, sum);
    return;
  }
  case ConvStage::LeadGroups: {
    // out [g][r][n][p] from in [n][g][r][p].
    const int64_t p = i % positions, n = i / positions % c.batch;
    const int64_t r = i / (positions * c.batch) % s.rows;
    const int64_t g = i / (positions * c.batch * s.rows);
    copyElement(c.dtype, s.in,
                ((n * c.groups + g) * s.rows + r) * positions + p, s.out, i);
    return;
  }
  }
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_CONV_BODIES_H
