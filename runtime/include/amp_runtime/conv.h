/*===- conv.h - 2-D convolutions and their gradients ---------------*- C -*-===*
 *
 * amp.conv2d, amp.conv2d_grad_input and amp.conv2d_grad_weight on NCHW
 * images and OIHW weights, each one call: cuDNN's fprop, dgrad and wgrad
 * on CUDA where the build has cuDNN and it has a plan, else (and on the
 * host) the dialect's own decomposition, amp-decompose's to the bit: the
 * image's windows as columns (im2col), a GEMM per image and group with f32
 * accumulation, the bias added in f32, the input gradient's columns summed
 * back into the image (col2im). The results are then the interpreter's on
 * the host.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_CONV_H
#define AMP_RUNTIME_CONV_H

#include "amp_runtime/optimizer_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amp_conv2d_s {
  amp_dtype_t dtype;   /* the image, the weight and the three gradients */
  amp_dtype_t y_dtype; /* the forward's result and bias: dtype or f32 */
  int64_t batch, channels, height, width; /* the image [N, C, H, W] */
  /* The weight is [out_channels, channels / groups, kernel[0], kernel[1]]. */
  int64_t out_channels, groups;
  int64_t kernel[2], strides[2], dilations[2]; /* [h, w] */
  int64_t padding[4];                          /* top, left, bottom, right */
} amp_conv2d_t;

typedef enum amp_conv2d_pass_e {
  AMP_CONV2D_FORWARD = 0,         /* y = conv(x, w) [+ bias] */
  AMP_CONV2D_BACKWARD_DATA = 1,   /* dx from dy and w */
  AMP_CONV2D_BACKWARD_FILTER = 2, /* dw from x and dy */
} amp_conv2d_pass_t;

/* Bytes of workspace a pass needs (the forward's with a bias or without),
 * those of the decomposition; 0 for a convolution amp_conv2d_* refuses. */
size_t amp_conv2d_workspace(const amp_conv2d_t *conv, amp_conv2d_pass_t pass,
                            int has_bias);

/* y [N, O, OH, OW] (y_dtype) = the convolution of x with w, plus bias [O]
 * (y_dtype, may be NULL), each output summed in f32 over (channel, kh, kw)
 * ascending and rounded once. */
amp_status_t amp_conv2d_forward(amp_stream_t *stream, const amp_conv2d_t *conv,
                                const void *x, const void *w, const void *bias,
                                void *y, void *workspace);
/* dx [N, C, H, W] from dy [N, O, OH, OW] and w, overwritten. */
amp_status_t amp_conv2d_backward_data(amp_stream_t *stream,
                                      const amp_conv2d_t *conv, const void *dy,
                                      const void *w, void *dx, void *workspace);
/* dw [O, C / groups, KH, KW] from x and dy, summed over every image and
 * position and overwritten. */
amp_status_t amp_conv2d_backward_filter(amp_stream_t *stream,
                                        const amp_conv2d_t *conv, const void *x,
                                        const void *dy, void *dw,
                                        void *workspace);

#ifdef __cplusplus
} /* extern "C" */

namespace amprt {

/// Where the decomposition keeps its intermediates in a pass's workspace,
/// in bytes from its start, each at a multiple of 256: the image's columns
/// [N, C * KH * KW, OH * OW] in dtype (forward and filter), the columns'
/// f32 gradient (data), the columns and dy with the groups leading,
/// [G, rows, N, OH * OW] (filter), the f32 sums before the bias is added
/// (a forward with a bias into a narrower y). Shared by the runtime and
/// the compiler, which plans the workspace (backend::getScratchBytes).
/// The sizes must fit in int64 (the callers check).
struct Conv2dWorkspace {
  int64_t columns = -1, columnGrads = -1, leadColumns = -1, leadGrads = -1,
          sums = -1; // -1: not used
  int64_t bytes = 0;
};

inline int64_t conv2dOutputSize(const amp_conv2d_t &c, int dim) {
  int64_t size = dim == 0 ? c.height : c.width;
  int64_t padded = size + c.padding[dim] + c.padding[dim + 2];
  int64_t span = c.dilations[dim] * (c.kernel[dim] - 1) + 1;
  return padded < span ? 0 : (padded - span) / c.strides[dim] + 1;
}

inline Conv2dWorkspace conv2dWorkspace(const amp_conv2d_t &c,
                                       amp_conv2d_pass_t pass, bool hasBias) {
  const int64_t element = c.dtype == AMP_F32 ? 4 : 2;
  const int64_t positions = conv2dOutputSize(c, 0) * conv2dOutputSize(c, 1);
  const int64_t columns =
      c.batch * c.channels * c.kernel[0] * c.kernel[1] * positions;
  Conv2dWorkspace w;
  auto take = [&](int64_t &at, int64_t bytes) {
    at = w.bytes;
    w.bytes += (bytes + 255) / 256 * 256;
  };
  switch (pass) {
  case AMP_CONV2D_FORWARD:
    take(w.columns, columns * element);
    if (hasBias && c.y_dtype != AMP_F32)
      take(w.sums, c.batch * c.out_channels * positions * 4);
    break;
  case AMP_CONV2D_BACKWARD_DATA:
    take(w.columnGrads, columns * 4);
    break;
  case AMP_CONV2D_BACKWARD_FILTER:
    take(w.columns, columns * element);
    take(w.leadColumns, columns * element);
    take(w.leadGrads, c.batch * c.out_channels * positions * element);
    break;
  }
  return w;
}

} // namespace amprt
#endif

#endif /* AMP_RUNTIME_CONV_H */
