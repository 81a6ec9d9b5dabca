//===- conv.cpp - argument checks, the library, the decomposition ---------===//
//
// Each pass goes to the backend's library first (cuDNN on CUDA); where it
// does not run, to the decomposition amp-decompose writes for the same op,
// as backend calls: conv_bodies.h's stages and a GEMM per image (the
// forward and the input gradient, a batch of groups each) or one GEMM over
// every image (the weight gradient, the groups leading).
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/conv.h"

#include "backend.h"
#include "conv_bodies.h"
#include "runtime_internal.h"
#include "status.h"

#include <cstdint>

namespace {

using amprt::ConvStage;

/// Why the runtime refuses `c`, or null.
amp_status_t checkConv(const amp_conv2d_t *c) {
  if (!c)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the convolution is null");
  int dtype = amprt::rawEnum(c->dtype), yDtype = amprt::rawEnum(c->y_dtype);
  if (!amprt::isStorageDtype(dtype) || !amprt::isStorageDtype(yDtype) ||
      (yDtype != dtype && yDtype != AMP_F32))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "unsupported dtypes (operands %d, result %d): the "
                      "result takes the operands' type, or f32",
                      dtype, yDtype);
  if (c->batch < 1 || c->channels < 1 || c->height < 1 || c->width < 1 ||
      c->out_channels < 1 || c->groups < 1 || c->channels % c->groups != 0 ||
      c->out_channels % c->groups != 0)
    return AMP_STATUS(
        AMP_INVALID_ARGUMENT,
        "convolution sizes batch %lld, channels %lld, %lld x %lld, out "
        "channels %lld, groups %lld: need positive sizes and groups "
        "dividing both channel counts",
        static_cast<long long>(c->batch), static_cast<long long>(c->channels),
        static_cast<long long>(c->height), static_cast<long long>(c->width),
        static_cast<long long>(c->out_channels),
        static_cast<long long>(c->groups));
  for (int d = 0; d < 2; ++d)
    if (c->kernel[d] < 1 || c->strides[d] < 1 || c->dilations[d] < 1 ||
        c->padding[d] < 0 || c->padding[d + 2] < 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "convolution window: need kernel, strides and "
                        "dilations >= 1 and padding >= 0");
  for (int d = 0; d < 2; ++d) {
    int64_t reach, padded;
    if (__builtin_mul_overflow(c->dilations[d], c->kernel[d] - 1, &reach) ||
        reach == INT64_MAX || // the window's span, reach + 1, must fit
        __builtin_add_overflow(d == 0 ? c->height : c->width, c->padding[d],
                               &padded) ||
        __builtin_add_overflow(padded, c->padding[d + 2], &padded))
      return AMP_STATUS(AMP_INVALID_ARGUMENT, "convolution window overflows");
  }
  int64_t outH = amprt::conv2dOutputSize(*c, 0);
  int64_t outW = amprt::conv2dOutputSize(*c, 1);
  if (outH < 1 || outW < 1)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the convolution's window does not fit the padded "
                      "%lld x %lld image",
                      static_cast<long long>(c->height),
                      static_cast<long long>(c->width));
  if (!amprt::bytesFit(
          {c->batch, c->channels, c->kernel[0], c->kernel[1], outH, outW, 4}) ||
      !amprt::bytesFit({c->batch, c->out_channels, outH, outW, 4}) ||
      !amprt::bytesFit({c->batch, c->channels, c->height, c->width}) ||
      !amprt::bytesFit(
          {c->out_channels, c->channels, c->kernel[0], c->kernel[1]}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "convolution sizes overflow");
  return nullptr;
}

amp_status_t checkWorkspace(const amp_conv2d_t &c, amp_conv2d_pass_t pass,
                            bool hasBias, const void *workspace) {
  if (!workspace && amprt::conv2dWorkspace(c, pass, hasBias).bytes > 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "the convolution needs its workspace "
                      "(amp_conv2d_workspace)");
  return nullptr;
}

/// The sizes the decomposition's GEMMs and stages use.
struct Shape {
  int64_t outH, positions; // OH, OH * OW
  int64_t groupOutputs;    // O / G
  int64_t columns;         // C / G * KH * KW
  explicit Shape(const amp_conv2d_t &c)
      : outH(amprt::conv2dOutputSize(c, 0)),
        positions(outH * amprt::conv2dOutputSize(c, 1)),
        groupOutputs(c.out_channels / c.groups),
        columns(c.channels / c.groups * c.kernel[0] * c.kernel[1]) {}
};

char *at(void *workspace, int64_t offset) {
  return static_cast<char *>(workspace) + offset;
}

size_t elementSize(amp_dtype_t dtype) { return dtype == AMP_F32 ? 4 : 2; }

/// Runs the stage `kind` over its `rows` (conv_bodies.h).
amp_status_t runStage(amprt::Backend *backend, void *handle,
                      ConvStage::Kind kind, const amp_conv2d_t &c, int64_t rows,
                      const void *in, void *out, const void *bias = nullptr,
                      int64_t groupRows = 0) {
  return backend->convStage(handle,
                            ConvStage{kind, c, rows, groupRows, in, bias, out});
}

/// y = W . im2col(x) per image, as [G, O/G, cols] x [G, cols, P].
amp_status_t decomposedForward(amprt::Backend *backend, void *handle,
                               const amp_conv2d_t &c, const void *x,
                               const void *w, const void *bias, void *y,
                               void *workspace) {
  Shape s(c);
  amprt::Conv2dWorkspace layout =
      amprt::conv2dWorkspace(c, AMP_CONV2D_FORWARD, bias != nullptr);
  void *columns = at(workspace, layout.columns);
  AMP_RETURN_IF_ERROR(runStage(backend, handle, ConvStage::Im2col, c,
                               c.batch * c.groups * s.columns * s.outH, x,
                               columns));
  // With a bias, the sums stay f32 until it is added.
  amp_dtype_t sumType = bias ? AMP_F32 : c.y_dtype;
  void *sums = layout.sums >= 0 ? at(workspace, layout.sums) : y;
  amp_gemm_t g{c.dtype,   sumType,  0,    0,    s.groupOutputs,   s.positions,
               s.columns, c.groups, 1.0f, 0.0f, AMP_EPILOGUE_NONE};
  for (int64_t n = 0; n < c.batch; ++n)
    AMP_RETURN_IF_ERROR(backend->gemm(
        handle, g, w,
        static_cast<const char *>(columns) +
            n * c.groups * s.columns * s.positions * elementSize(c.dtype),
        nullptr,
        static_cast<char *>(sums) +
            n * c.out_channels * s.positions * elementSize(sumType)));
  if (!bias)
    return nullptr;
  return runStage(backend, handle, ConvStage::AddBias, c,
                  c.batch * c.out_channels, sums, y, bias);
}

/// The columns' gradient W^T dy per image, in f32, then col2im.
amp_status_t decomposedBackwardData(amprt::Backend *backend, void *handle,
                                    const amp_conv2d_t &c, const void *dy,
                                    const void *w, const void * /*bias*/,
                                    void *dx, void *workspace) {
  Shape s(c);
  amprt::Conv2dWorkspace layout =
      amprt::conv2dWorkspace(c, AMP_CONV2D_BACKWARD_DATA, false);
  float *columnGrads =
      reinterpret_cast<float *>(at(workspace, layout.columnGrads));
  amp_gemm_t g{c.dtype,          AMP_F32,        1,        0,    s.columns,
               s.positions,      s.groupOutputs, c.groups, 1.0f, 0.0f,
               AMP_EPILOGUE_NONE};
  for (int64_t n = 0; n < c.batch; ++n)
    AMP_RETURN_IF_ERROR(backend->gemm(
        handle, g, w,
        static_cast<const char *>(dy) +
            n * c.out_channels * s.positions * elementSize(c.dtype),
        nullptr, columnGrads + n * c.groups * s.columns * s.positions));
  return runStage(backend, handle, ConvStage::Col2im, c,
                  c.batch * c.channels * c.height, columnGrads, dx);
}

/// dW = dy' im2col(x)'^T per group, over every image's positions at once,
/// with dy and the columns laid out [G, rows, N * P].
amp_status_t decomposedBackwardFilter(amprt::Backend *backend, void *handle,
                                      const amp_conv2d_t &c, const void *x,
                                      const void *dy, const void * /*bias*/,
                                      void *dw, void *workspace) {
  Shape s(c);
  amprt::Conv2dWorkspace layout =
      amprt::conv2dWorkspace(c, AMP_CONV2D_BACKWARD_FILTER, false);
  void *columns = at(workspace, layout.columns);
  void *leadColumns = at(workspace, layout.leadColumns);
  void *leadGrads = at(workspace, layout.leadGrads);
  int64_t columnRows = c.batch * c.groups * s.columns;
  AMP_RETURN_IF_ERROR(runStage(backend, handle, ConvStage::Im2col, c,
                               columnRows * s.outH, x, columns));
  AMP_RETURN_IF_ERROR(runStage(backend, handle, ConvStage::LeadGroups, c,
                               columnRows, columns, leadColumns, nullptr,
                               s.columns));
  AMP_RETURN_IF_ERROR(runStage(backend, handle, ConvStage::LeadGroups, c,
                               c.batch * c.out_channels, dy, leadGrads, nullptr,
                               s.groupOutputs));
  amp_gemm_t g{c.dtype,
               c.dtype,
               0,
               1,
               s.groupOutputs,
               s.columns,
               c.batch * s.positions,
               c.groups,
               1.0f,
               0.0f,
               AMP_EPILOGUE_NONE};
  return backend->gemm(handle, g, leadGrads, leadColumns, nullptr, dw);
}

/// The decomposition of a pass, on its operands (a, b), bias and result.
using Decomposition = amp_status_t (*)(amprt::Backend *, void *,
                                       const amp_conv2d_t &, const void *,
                                       const void *, const void *, void *,
                                       void *);

/// A pass on operands (a, b) (named, with the result, in `names` for the
/// error of a null one): the checks, then the backend's library, else
/// `decomposition`.
amp_status_t runPass(amp_stream_t *stream, amp_conv2d_pass_t pass,
                     const amp_conv2d_t *conv, const void *a, const void *b,
                     const void *bias, void *out, void *workspace,
                     const char *names, Decomposition decomposition) {
  if (!stream)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "the stream is null");
  AMP_RETURN_IF_ERROR(checkConv(conv));
  if (amprt::anyNull({a, b, out}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "%s is null", names);
  AMP_RETURN_IF_ERROR(checkWorkspace(*conv, pass, bias != nullptr, workspace));
  amprt::Backend *backend = amprt::backendOf(stream);
  void *handle = amprt::handleOf(stream);
  size_t bytes = static_cast<size_t>(
      amprt::conv2dWorkspace(*conv, pass, bias != nullptr).bytes);
  bool ran = false;
  AMP_RETURN_IF_ERROR(backend->convLibrary(handle, pass, *conv, a, b, bias, out,
                                           workspace, workspace ? bytes : 0,
                                           &ran));
  if (ran)
    return nullptr;
  return decomposition(backend, handle, *conv, a, b, bias, out, workspace);
}

} // namespace

extern "C" {

size_t amp_conv2d_workspace(const amp_conv2d_t *conv, amp_conv2d_pass_t pass,
                            int has_bias) {
  int raw = amprt::rawEnum(pass);
  if (raw < AMP_CONV2D_FORWARD || raw > AMP_CONV2D_BACKWARD_FILTER)
    return 0;
  amp_status_t refused = checkConv(conv);
  if (refused) {
    amp_status_free(refused);
    return 0;
  }
  return static_cast<size_t>(
      amprt::conv2dWorkspace(*conv, pass, has_bias != 0).bytes);
}

amp_status_t amp_conv2d_forward(amp_stream_t *stream, const amp_conv2d_t *conv,
                                const void *x, const void *w, const void *bias,
                                void *y, void *workspace) {
  return runPass(stream, AMP_CONV2D_FORWARD, conv, x, w, bias, y, workspace,
                 "x, w or y", decomposedForward);
}

amp_status_t amp_conv2d_backward_data(amp_stream_t *stream,
                                      const amp_conv2d_t *conv, const void *dy,
                                      const void *w, void *dx,
                                      void *workspace) {
  return runPass(stream, AMP_CONV2D_BACKWARD_DATA, conv, dy, w, nullptr, dx,
                 workspace, "dy, w or dx", decomposedBackwardData);
}

amp_status_t amp_conv2d_backward_filter(amp_stream_t *stream,
                                        const amp_conv2d_t *conv, const void *x,
                                        const void *dy, void *dw,
                                        void *workspace) {
  return runPass(stream, AMP_CONV2D_BACKWARD_FILTER, conv, x, dy, nullptr, dw,
                 workspace, "x, dy or dw", decomposedBackwardFilter);
}

} // extern "C"
