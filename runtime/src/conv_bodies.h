//===- conv_bodies.h - the convolutions' data movement ----------*- C++ -*-===//
//
// The stages of conv.h's decomposition besides its GEMMs, written once,
// a row of the output at a time: the host backend runs the rows in a
// parallel loop, the CUDA backend a thread each. Each element of a row
// gets what the kernels amp-to-cuda prints for amp.im2col, amp.col2im,
// the bias add and amp.transpose give it (the same reads, the same f32
// sums in the same order, one rounding at the store), so a convolution
// run through conv.h gives the bits of its decomposition.
//
// These bodies are a second writing of those kernels, not generated from
// the emitter: what holds them to it is the reference interpreter, the
// oracle both are tested against. test/Target/Cuda/differential.test
// trains Inputs/cnn.mlir through conv.h's calls and, with
// --decompose-convolutions, through the generated kernels, each bit for
// bit with the interpreter; runtime/tests/ConvTest.cpp holds each pass to
// loops written from the ops' definitions.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_CONV_BODIES_H
#define AMP_RUNTIME_SRC_CONV_BODIES_H

#include "amp_runtime/conv.h"
#include "amp_runtime/conv_window.h"
#include "row_bodies.h"

namespace amprt {

/// A stage runs a row of its output at a time (`rows` of them, each of
/// the output's last extent): the divisions that locate a row are made
/// once for all its elements. The host runs the rows in a parallel loop,
/// the CUDA backend a thread each.
struct ConvStage {
  enum Kind {
    /// out [N, C * KH * KW, OH, OW] (dtype), a row per (image, channel,
    /// kh, kw, y): each window's values, zero in the padding.
    Im2col,
    /// out [N, C, H, W] (dtype), a row per (image, channel, row): the f32
    /// column gradients `in` [N, C * KH * KW, OH * OW] that read each
    /// image element, summed over kh, then kw, ascending, from 0, and
    /// rounded once.
    Col2im,
    /// out [N, O, OH * OW] (y_dtype) = in (f32, the same shape) + bias[o]
    /// (y_dtype, widened), rounded once, a row per (image, channel); in
    /// may be out.
    AddBias,
    /// out [G, groupRows, N, OH * OW] = in [N, G, groupRows, OH * OW]
    /// (dtype), a row per (g, group row, image).
    LeadGroups,
  };
  Kind kind;
  amp_conv2d_t conv;
  int64_t rows;      // rows of out
  int64_t groupRows; // LeadGroups: the rows of a group
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

/// Copies `count` elements from element `from` of `in` to element `to` of
/// `out`, bits as they are (a NaN keeps its payload, as the generated
/// copies do).
AMP_HOST_DEVICE inline void copyElements(amp_dtype_t dtype, const void *in,
                                         int64_t from, void *out, int64_t to,
                                         int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    if (dtype == AMP_F32)
      static_cast<uint32_t *>(out)[to + k] =
          static_cast<const uint32_t *>(in)[from + k];
    else
      static_cast<uint16_t *>(out)[to + k] =
          static_cast<const uint16_t *>(in)[from + k];
  }
}

/// Row `r` of the stage, for operands of type D and a forward result of
/// type Y (the stage's, as constants, so that the loops over a row do not
/// branch on them): what the generated kernels compute for its elements,
/// element by element.
template <amp_dtype_t D, amp_dtype_t Y>
AMP_HOST_DEVICE inline void runConvRow(const ConvStage &s, int64_t r) {
  const amp_conv2d_t &c = s.conv;
  const Conv2dWindow window = windowOf(c);
  const int64_t outH = window.outputSize(c.height, 0);
  const int64_t outW = window.outputSize(c.width, 1);
  const int64_t positions = outH * outW;
  switch (s.kind) {
  case ConvStage::Im2col: {
    const int64_t y = r % outH, kw = r / outH % c.kernel[1];
    const int64_t kh = r / (outH * c.kernel[1]) % c.kernel[0];
    const int64_t image = r / (outH * c.kernel[1] * c.kernel[0]);
    const int64_t row = window.inputPosition(y, kh, 0);
    const int64_t first = r * outW;
    const bool inside = row >= 0 && row < c.height;
    for (int64_t x = 0; x < outW; ++x) {
      const int64_t col = window.inputPosition(x, kw, 1);
      if (inside && col >= 0 && col < c.width)
        copyElements(D, s.in, (image * c.height + row) * c.width + col, s.out,
                     first + x, 1);
      else
        store(D, s.out, first + x, 0.0f); // +0: all bits zero in every type
    }
    return;
  }
  case ConvStage::Col2im: {
    const int64_t row = r % c.height, image = r / c.height;
    const float *columns = static_cast<const float *>(s.in);
    const int64_t sh = c.strides[0], sw = c.strides[1];
    // Offset kh reads row `row` from output row (row + top - kh * dh) /
    // sh where that divides and is inside the output (columns alike). The
    // quotient and remainder of those numerators step down with kh and
    // kw, so the loops divide nothing: an offset reads where the
    // remainder is 0, at the quotient.
    const int64_t dhq = c.dilations[0] / sh, dhr = c.dilations[0] % sh;
    const int64_t dwq = c.dilations[1] / sw, dwr = c.dilations[1] % sw;
    const int64_t top = row + c.padding[0];
    const int64_t topQuotient = top / sh, topRemainder = top % sh;
    for (int64_t col = 0; col < c.width; ++col) {
      const int64_t left = col + c.padding[1];
      const int64_t leftQuotient = left / sw, leftRemainder = left % sw;
      float acc = 0.0f;
      int64_t y = topQuotient, ry = topRemainder;
      for (int64_t kh = 0; kh < c.kernel[0]; ++kh) {
        if (ry == 0 && y >= 0 && y < outH) {
          int64_t x = leftQuotient, rx = leftRemainder;
          for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
            if (rx == 0 && x >= 0 && x < outW)
              acc = acc +
                    columns[((image * c.kernel[0] + kh) * c.kernel[1] + kw) *
                                positions +
                            y * outW + x];
            x -= dwq;
            rx -= dwr;
            if (rx < 0) {
              rx += sw;
              x -= 1;
            }
          }
        }
        y -= dhq;
        ry -= dhr;
        if (ry < 0) {
          ry += sh;
          y -= 1;
        }
      }
      store(D, s.out, r * c.width + col, acc);
    }
    return;
  }
  case ConvStage::AddBias: {
    const float bias = load(Y, s.bias, r % c.out_channels);
    const float *sums = static_cast<const float *>(s.in);
    for (int64_t p = r * positions, end = p + positions; p < end; ++p)
      store(Y, s.out, p, sums[p] + bias);
    return;
  }
  case ConvStage::LeadGroups: {
    // out [g][q][n] from in [n][g][q], a row of positions each.
    const int64_t n = r % c.batch, q = r / c.batch % s.groupRows;
    const int64_t g = r / (c.batch * s.groupRows);
    copyElements(D, s.in, ((n * c.groups + g) * s.groupRows + q) * positions,
                 s.out, r * positions, positions);
    return;
  }
  }
}

/// Row `r` of the stage.
AMP_HOST_DEVICE inline void runConvStage(const ConvStage &s, int64_t r) {
  const bool wide = s.conv.y_dtype == AMP_F32;
  switch (s.conv.dtype) {
  case AMP_F16:
    return wide ? runConvRow<AMP_F16, AMP_F32>(s, r)
                : runConvRow<AMP_F16, AMP_F16>(s, r);
  case AMP_BF16:
    return wide ? runConvRow<AMP_BF16, AMP_F32>(s, r)
                : runConvRow<AMP_BF16, AMP_BF16>(s, r);
  default:
    return runConvRow<AMP_F32, AMP_F32>(s, r);
  }
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_CONV_BODIES_H
