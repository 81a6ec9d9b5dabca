//===- cudnn_conv.cpp - convolutions through cuDNN's graphs ---------------===//
//
// Each convolution pass gets one cuDNN graph, built once: the image, the
// output and their gradients as [N, C, H, W] with NCHW strides, the weight
// as [O, C / G, KH, KW] (cuDNN reads the groups from the channel counts),
// f32 compute, deterministic engines that sum in f32 (excludedNotes).
// Plans are built and run as cudnn_graphs.h does.
//
//===----------------------------------------------------------------------===//

#include "cudnn_conv.h"

#include "cudnn_graphs.h"

#include <mutex>
#include <string>
#include <vector>

namespace fe = cudnn_frontend;

namespace {

/// The tensors' ids in a graph's variant pack.
enum Uid : int64_t { kX = 1, kW, kY, kBias, kDy, kDx, kDw };

/// A pass's graph, by everything it depends on.
std::vector<int64_t> keyOf(const amp_conv2d_t &c, amp_conv2d_pass_t pass,
                           bool hasBias) {
  return {static_cast<int64_t>(pass),
          hasBias,
          c.dtype,
          c.y_dtype,
          c.batch,
          c.channels,
          c.height,
          c.width,
          c.out_channels,
          c.groups,
          c.kernel[0],
          c.kernel[1],
          c.strides[0],
          c.strides[1],
          c.dilations[0],
          c.dilations[1],
          c.padding[0],
          c.padding[1],
          c.padding[2],
          c.padding[3]};
}

fe::DataType_t typeOf(amp_dtype_t dtype) {
  return dtype == AMP_F16    ? fe::DataType_t::HALF
         : dtype == AMP_BF16 ? fe::DataType_t::BFLOAT16
                             : fe::DataType_t::FLOAT;
}

/// A dense NCHW (or OIHW) tensor.
void describe(fe::graph::Tensor_attributes &tensor, const char *name, Uid uid,
              std::vector<int64_t> dims, amp_dtype_t dtype) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size() - 1; d > 0; --d)
    strides[d - 1] = strides[d] * dims[d];
  tensor.set_name(name)
      .set_uid(uid)
      .set_dim(std::move(dims))
      .set_stride(std::move(strides))
      .set_data_type(typeOf(dtype));
}

/// The window's attributes, shared by the three passes' attribute types.
template <typename Attributes> Attributes window(const amp_conv2d_t &c) {
  return Attributes()
      .set_pre_padding({c.padding[0], c.padding[1]})
      .set_post_padding({c.padding[2], c.padding[3]})
      .set_stride({c.strides[0], c.strides[1]})
      .set_dilation({c.dilations[0], c.dilations[1]});
}

/// The engines a convolution of `dtype` may not use, so that it sums in
/// f32 as conv.h says, from the operands' values, and gives the same bits
/// every run: none that reduces in a narrower type, converts the inputs
/// down (TF32 for f32: tensor cores are for f16 and bf16 only), goes
/// through FFT or Winograd transforms, or adds with atomics.
std::vector<fe::NumericalNote_t> excludedNotes(amp_dtype_t dtype) {
  std::vector<fe::NumericalNote_t> notes{
      fe::NumericalNote_t::REDUCED_PRECISION_REDUCTION,
      fe::NumericalNote_t::DOWN_CONVERT_INPUTS, fe::NumericalNote_t::FFT,
      fe::NumericalNote_t::WINOGRAD, fe::NumericalNote_t::NONDETERMINISTIC};
  if (dtype == AMP_F32)
    notes.push_back(fe::NumericalNote_t::TENSOR_CORE);
  return notes;
}

/// The graph of one pass, before cuDNN sees it, for a GPU of compute
/// capability `sm` (0: the current device's).
std::shared_ptr<fe::graph::Graph> makeGraph(const amp_conv2d_t &c,
                                            amp_conv2d_pass_t pass,
                                            bool hasBias, int sm = 0) {
  auto graph = std::make_shared<fe::graph::Graph>();
  // Before any node is made: each copies the graph's context.
  if (sm > 0)
    graph->set_sm_version(sm);
  graph->set_io_data_type(typeOf(c.dtype))
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const int64_t outH = amprt::conv2dOutputSize(c, 0);
  const int64_t outW = amprt::conv2dOutputSize(c, 1);
  const std::vector<int64_t> image{c.batch, c.channels, c.height, c.width};
  const std::vector<int64_t> output{c.batch, c.out_channels, outH, outW};
  const std::vector<int64_t> weight{c.out_channels, c.channels / c.groups,
                                    c.kernel[0], c.kernel[1]};
  auto input = [&](const char *name, Uid uid, std::vector<int64_t> dims,
                   amp_dtype_t dtype) {
    auto tensor = graph->tensor(fe::graph::Tensor_attributes());
    describe(*tensor, name, uid, std::move(dims), dtype);
    return tensor;
  };
  switch (pass) {
  case AMP_CONV2D_FORWARD: {
    auto x = input("x", kX, image, c.dtype);
    auto w = input("w", kW, weight, c.dtype);
    auto y = graph->conv_fprop(
        x, w, window<fe::graph::Conv_fprop_attributes>(c).set_name("fprop"));
    if (hasBias) {
      // The sums stay f32 until the bias is added.
      y->set_data_type(fe::DataType_t::FLOAT);
      auto bias = input("bias", kBias, {1, c.out_channels, 1, 1}, c.y_dtype);
      y = graph->pointwise(y, bias,
                           fe::graph::Pointwise_attributes()
                               .set_name("bias")
                               .set_mode(fe::PointwiseMode_t::ADD)
                               .set_compute_data_type(fe::DataType_t::FLOAT));
    }
    describe(*y, "y", kY, output, c.y_dtype);
    y->set_output(true);
    return graph;
  }
  case AMP_CONV2D_BACKWARD_DATA: {
    auto dy = input("dy", kDy, output, c.dtype);
    auto w = input("w", kW, weight, c.dtype);
    auto dx = graph->conv_dgrad(
        dy, w, window<fe::graph::Conv_dgrad_attributes>(c).set_name("dgrad"));
    describe(*dx, "dx", kDx, image, c.dtype);
    dx->set_output(true);
    return graph;
  }
  case AMP_CONV2D_BACKWARD_FILTER: {
    auto x = input("x", kX, image, c.dtype);
    auto dy = input("dy", kDy, output, c.dtype);
    auto dw = graph->conv_wgrad(
        dy, x, window<fe::graph::Conv_wgrad_attributes>(c).set_name("wgrad"));
    describe(*dw, "dw", kDw, weight, c.dtype);
    dw->set_output(true);
    return graph;
  }
  }
  return graph;
}

} // namespace

struct amprt::CudnnConv::Impl {
  std::shared_ptr<CudnnContext> context;
  CudnnPlanCache<std::vector<int64_t>> plans;

  /// Call with the context's lock held.
  const CudnnPlan &planFor(const amp_conv2d_t &c, amp_conv2d_pass_t pass,
                           bool hasBias) {
    return plans.get(keyOf(c, pass, hasBias), [&] {
      return buildCudnnPlan(
          context->getHandle(), [&] { return makeGraph(c, pass, hasBias); },
          excludedNotes(c.dtype));
    });
  }
};

amprt::CudnnConv::CudnnConv(std::shared_ptr<CudnnContext> context)
    : impl(new Impl{std::move(context), {}}) {}

amprt::CudnnConv::~CudnnConv() = default;

amp_status_t amprt::CudnnConv::validate(const amp_conv2d_t &conv,
                                        amp_conv2d_pass_t pass, bool hasBias,
                                        int sm) {
  std::string why =
      validateCudnnGraph([&] { return makeGraph(conv, pass, hasBias, sm); });
  if (why.empty())
    return nullptr;
  return AMP_STATUS(AMP_INVALID_ARGUMENT, "cuDNN refuses this convolution: %s",
                    why.c_str());
}

amp_status_t amprt::CudnnConv::run(void *stream, amp_conv2d_pass_t pass,
                                   const amp_conv2d_t &conv, const void *a,
                                   const void *b, const void *bias, void *out,
                                   void *workspace, size_t workspaceBytes,
                                   bool *ran) {
  *ran = false;
  if (!cudnnAligned({a, b, bias, out, workspace}))
    return nullptr;
  std::unordered_map<int64_t, void *> pack;
  switch (pass) {
  case AMP_CONV2D_FORWARD:
    pack = {
        {kX, const_cast<void *>(a)}, {kW, const_cast<void *>(b)}, {kY, out}};
    if (bias)
      pack.emplace(kBias, const_cast<void *>(bias));
    break;
  case AMP_CONV2D_BACKWARD_DATA:
    pack = {
        {kDy, const_cast<void *>(a)}, {kW, const_cast<void *>(b)}, {kDx, out}};
    break;
  case AMP_CONV2D_BACKWARD_FILTER:
    pack = {
        {kX, const_cast<void *>(a)}, {kDy, const_cast<void *>(b)}, {kDw, out}};
    break;
  }
  std::lock_guard<std::mutex> lock(impl->context->getMutex());
  return runCudnnPlan(impl->context->getHandle(), stream,
                      impl->planFor(conv, pass, bias != nullptr),
                      std::move(pack), workspace, workspaceBytes, "convolution",
                      ran);
}
