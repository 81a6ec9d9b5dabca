//===- cudnn_batch_norm.cpp - batch norm through cuDNN's graphs -----------===//
//
// Two graphs per normalisation, built once: the forward (batchnorm: y,
// the saved mean and inverse deviation, the next running statistics) and
// the backward (batchnorm_backward from the saved statistics). The
// activations are [N, C, spatial, 1] with NCHW strides, the per-channel
// tensors [1, C, 1, 1] f32, epsilon and momentum values of the graph.
// The backward's saved statistics come from the forward graph run again
// in the backward call, its y written into dx before dx is computed, so
// that the compiled step passes nothing from one call to the other.
//
//===----------------------------------------------------------------------===//

#include "cudnn_batch_norm.h"

#include "batch_norm_bodies.h"
#include "cudnn_graphs.h"

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace fe = cudnn_frontend;

namespace {

/// The tensors' ids in a graph's variant pack.
enum Uid : int64_t {
  kX = 1,
  kDy,
  kScale,
  kBias,
  kRunningMean,
  kRunningVar,
  kY,
  kDx,
  kMean,
  kInvDeviation,
  kNextMean,
  kNextVar,
  kDscale,
  kDbias
};

fe::DataType_t typeOf(amp_dtype_t dtype) {
  return dtype == AMP_F16    ? fe::DataType_t::HALF
         : dtype == AMP_BF16 ? fe::DataType_t::BFLOAT16
                             : fe::DataType_t::FLOAT;
}

/// A graph, by everything it depends on.
std::vector<int64_t> keyOf(const amp_batch_norm_t &n, bool backward) {
  int64_t epsilon, momentum;
  static_assert(sizeof(double) == sizeof(int64_t));
  std::memcpy(&epsilon, &n.epsilon, sizeof epsilon);
  std::memcpy(&momentum, &n.momentum, sizeof momentum);
  return {backward, n.dtype, n.batch, n.channels, n.spatial, epsilon, momentum};
}

/// The graph of the forward or the backward, before cuDNN sees it, for a
/// GPU of compute capability `sm` (0: the current device's).
std::shared_ptr<fe::graph::Graph> makeGraph(const amp_batch_norm_t &n,
                                            bool backward, int sm = 0) {
  auto graph = std::make_shared<fe::graph::Graph>();
  if (sm > 0)
    graph->set_sm_version(sm);
  graph->set_io_data_type(typeOf(n.dtype))
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const std::vector<int64_t> activations{n.batch, n.channels, n.spatial, 1};
  const std::vector<int64_t> activationStrides{n.channels * n.spatial,
                                               n.spatial, 1, 1};
  const std::vector<int64_t> channel{1, n.channels, 1, 1};
  const std::vector<int64_t> channelStrides{n.channels, 1, 1, 1};
  auto activation = [&](const std::shared_ptr<fe::graph::Tensor_attributes> &t,
                        const char *name, Uid uid) {
    t->set_name(name)
        .set_uid(uid)
        .set_dim(activations)
        .set_stride(activationStrides)
        .set_data_type(typeOf(n.dtype));
    return t;
  };
  auto perChannel = [&](const std::shared_ptr<fe::graph::Tensor_attributes> &t,
                        const char *name, Uid uid) {
    t->set_name(name)
        .set_uid(uid)
        .set_dim(channel)
        .set_stride(channelStrides)
        .set_data_type(fe::DataType_t::FLOAT);
    return t;
  };
  auto input = [&](const char *name, Uid uid, bool isActivation) {
    auto tensor = graph->tensor(fe::graph::Tensor_attributes());
    return isActivation ? activation(tensor, name, uid)
                        : perChannel(tensor, name, uid);
  };
  if (!backward) {
    auto x = input("x", kX, true);
    auto scale = input("scale", kScale, false);
    auto bias = input("bias", kBias, false);
    auto runningMean = input("running_mean", kRunningMean, false);
    auto runningVar = input("running_var", kRunningVar, false);
    auto epsilon = graph->tensor(static_cast<float>(n.epsilon));
    auto momentum = graph->tensor(static_cast<float>(n.momentum));
    auto [y, mean, invDeviation, nextMean, nextVar] = graph->batchnorm(
        x, scale, bias,
        fe::graph::Batchnorm_attributes()
            .set_name("batchnorm")
            .set_epsilon(epsilon)
            .set_previous_running_stats(runningMean, runningVar, momentum));
    activation(y, "y", kY)->set_output(true);
    perChannel(mean, "mean", kMean)->set_output(true);
    perChannel(invDeviation, "inv_deviation", kInvDeviation)->set_output(true);
    perChannel(nextMean, "next_mean", kNextMean)->set_output(true);
    perChannel(nextVar, "next_var", kNextVar)->set_output(true);
    return graph;
  }
  auto dy = input("dy", kDy, true);
  auto x = input("x", kX, true);
  auto scale = input("scale", kScale, false);
  auto mean = input("mean", kMean, false);
  auto invDeviation = input("inv_deviation", kInvDeviation, false);
  auto [dx, dscale, dbias] = graph->batchnorm_backward(
      dy, x, scale,
      fe::graph::Batchnorm_backward_attributes()
          .set_name("batchnorm_backward")
          .set_saved_mean_and_inv_variance(mean, invDeviation));
  activation(dx, "dx", kDx)->set_output(true);
  perChannel(dscale, "dscale", kDscale)->set_output(true);
  perChannel(dbias, "dbias", kDbias)->set_output(true);
  return graph;
}

} // namespace

struct amprt::CudnnBatchNorm::Impl {
  std::shared_ptr<CudnnContext> context;
  CudnnPlanCache<std::vector<int64_t>> plans;

  /// Call with the context's lock held.
  const CudnnPlan &planFor(const amp_batch_norm_t &n, bool backward) {
    return plans.get(keyOf(n, backward), [&] {
      return buildCudnnPlan(context->getHandle(),
                            [&] { return makeGraph(n, backward); });
    });
  }
};

amprt::CudnnBatchNorm::CudnnBatchNorm(std::shared_ptr<CudnnContext> context)
    : impl(new Impl{std::move(context), {}}) {}

amprt::CudnnBatchNorm::~CudnnBatchNorm() = default;

amp_status_t amprt::CudnnBatchNorm::validate(const amp_batch_norm_t &norm,
                                             bool backward, int sm) {
  std::string why =
      validateCudnnGraph([&] { return makeGraph(norm, backward, sm); });
  if (why.empty())
    return nullptr;
  return AMP_STATUS(AMP_INVALID_ARGUMENT, "cuDNN refuses this batch norm: %s",
                    why.c_str());
}

amp_status_t amprt::CudnnBatchNorm::run(void *stream, const BatchNormStage &s,
                                        void *workspace, void *scratch,
                                        size_t scratchBytes, bool *ran) {
  *ran = false;
  if (!s.norm.training)
    return nullptr;
  BatchNormWorkspace layout = batchNormWorkspace(s.norm);
  auto slot = [&](int64_t offset) {
    return static_cast<void *>(static_cast<char *>(workspace) + offset);
  };
  void *scale = s.scale ? const_cast<float *>(s.scale) : slot(layout.ones);
  void *mean = slot(layout.mean), *invDeviation = slot(layout.invDeviation);
  if (!cudnnAligned({s.x, s.dy, s.scale, s.bias, s.runningMean, s.runningVar,
                     s.out, s.newMean, s.newVar, s.dscale, s.dbias, workspace,
                     scratch}))
    return nullptr;
  std::lock_guard<std::mutex> lock(impl->context->getMutex());
  const CudnnPlan &forward = impl->planFor(s.norm, false);
  const CudnnPlan *backward =
      s.backward ? &impl->planFor(s.norm, true) : nullptr;
  // Both plans or neither: a backward must not stop half done.
  if (!forward.graph || (backward && !backward->graph) ||
      static_cast<uint64_t>(forward.workspaceBytes) > scratchBytes ||
      (backward &&
       static_cast<uint64_t>(backward->workspaceBytes) > scratchBytes))
    return nullptr;
  std::unordered_map<int64_t, void *> pack{
      {kX, const_cast<void *>(s.x)},
      {kScale, scale},
      {kBias, s.bias ? const_cast<float *>(s.bias) : slot(layout.zeros)},
      {kRunningMean, const_cast<float *>(s.runningMean)},
      {kRunningVar, const_cast<float *>(s.runningVar)},
      {kY, s.out},
      {kMean, mean},
      {kInvDeviation, invDeviation},
      // The backward's forward leaves the running statistics as they are,
      // as does a forward that wants none: the next ones go to the slots
      // of dscale and dbias, which the backward fills after.
      {kNextMean, !s.backward && s.newMean ? s.newMean : slot(layout.dscale)},
      {kNextVar, !s.backward && s.newVar ? s.newVar : slot(layout.dbias)}};
  bool forwardRan = false;
  cudnnHandle_t handle = impl->context->getHandle();
  AMP_RETURN_IF_ERROR(runCudnnPlan(handle, stream, forward, std::move(pack),
                                   scratch, scratchBytes, "batch norm",
                                   &forwardRan));
  if (!backward) {
    *ran = forwardRan;
    return nullptr;
  }
  std::unordered_map<int64_t, void *> backwardPack{
      {kDy, const_cast<void *>(s.dy)},
      {kX, const_cast<void *>(s.x)},
      {kScale, scale},
      {kMean, mean},
      {kInvDeviation, invDeviation},
      {kDx, s.out},
      {kDscale, s.dscale ? s.dscale : slot(layout.dscale)},
      {kDbias, s.dbias ? s.dbias : slot(layout.dbias)}};
  return runCudnnPlan(handle, stream, *backward, std::move(backwardPack),
                      scratch, scratchBytes, "batch norm backward", ran);
}
