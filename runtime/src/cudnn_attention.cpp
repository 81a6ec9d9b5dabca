//===- cudnn_attention.cpp - attention through cuDNN's fused SDPA ---------===//
//
// Each attention shape gets one cuDNN graph, built once: the tensors are
// attention.h's [batch, seq, head_dim], given to cuDNN as [batch, 1, seq,
// head_dim] (the runtime's batch already folds the heads in) where every
// layout is dense, else as [batch / heads, heads, seq, head_dim] with each
// layout's strides, as cuDNN's SDPA takes any; plans are built and run as
// cudnn_graphs.h does.
//
//===----------------------------------------------------------------------===//

#include "cudnn_attention.h"

#include "cudnn_graphs.h"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace fe = cudnn_frontend;

namespace {

/// The tensors' ids in a graph's variant pack.
enum Uid : int64_t { kQ = 1, kK, kV, kOut, kLse, kDout, kDq, kDk, kDv };

/// An attention's graph, by what it depends on: the dtype, the sizes, the
/// scale's bits, the mask, forward (with or without lse) or backward, the
/// heads and every layout.
using PlanKey = std::vector<int64_t>;
enum Direction { kForward, kForwardWithLse, kBackward };

PlanKey keyOf(const amp_attention_t &a, Direction direction) {
  uint32_t scale;
  std::memcpy(&scale, &a.scale, sizeof scale);
  PlanKey key{a.dtype, a.batch,  a.seq_q,   a.seq_k, a.head_dim,
              scale,   a.causal, direction, a.heads};
  for (const amp_attention_layout_t &layout :
       {a.q, a.k, a.v, a.out, a.dout, a.dq, a.dk, a.dv})
    key.insert(key.end(), {layout.batch, layout.head, layout.seq});
  return key;
}

/// Whether the graph splits the batch into batch / heads of heads: where a
/// tensor it has is not dense (the backward has them all).
bool splitsHeads(const amp_attention_t &a, Direction direction) {
  int count = direction == kBackward ? 8 : 4;
  const amp_attention_layout_t layouts[] = {a.q,    a.k,  a.v,  a.out,
                                            a.dout, a.dq, a.dk, a.dv};
  for (int i = 0; i < count; ++i)
    if (!amprt::isDenseLayout(layouts[i]))
      return true;
  return false;
}

/// Q, K, V, out and their gradients: [batch, 1, seq, head_dim], dense,
/// or with `split` [batch / heads, heads, seq, head_dim] in `layout`.
std::shared_ptr<fe::graph::Tensor_attributes>
describe(std::shared_ptr<fe::graph::Tensor_attributes> tensor, const char *name,
         Uid uid, const amp_attention_t &a, bool split,
         const amp_attention_layout_t &layout, int64_t seq) {
  const int64_t d = a.head_dim;
  tensor->set_name(name).set_uid(uid);
  if (!split)
    tensor->set_dim({a.batch, 1, seq, d}).set_stride({seq * d, seq * d, d, 1});
  else if (amprt::isDenseLayout(layout))
    tensor->set_dim({a.batch / a.heads, a.heads, seq, d})
        .set_stride({a.heads * seq * d, seq * d, d, 1});
  else
    tensor->set_dim({a.batch / a.heads, a.heads, seq, d})
        .set_stride({layout.batch, layout.head, layout.seq, 1});
  return tensor;
}

/// The lse: f32 [batch, 1, seq_q, 1], or with `split` [batch / heads,
/// heads, seq_q, 1], dense.
void describeLse(fe::graph::Tensor_attributes &tensor, const amp_attention_t &a,
                 bool split) {
  tensor.set_name("lse").set_uid(kLse).set_data_type(fe::DataType_t::FLOAT);
  if (!split)
    tensor.set_dim({a.batch, 1, a.seq_q, 1})
        .set_stride({a.seq_q, a.seq_q, 1, 1});
  else
    tensor.set_dim({a.batch / a.heads, a.heads, a.seq_q, 1})
        .set_stride({a.heads * a.seq_q, a.seq_q, 1, 1});
}

/// The graph of one attention, before cuDNN sees it, for a GPU of compute
/// capability `sm` (0: the current device's). With `sm` given, validate()
/// needs no GPU.
std::shared_ptr<fe::graph::Graph> makeGraph(const amp_attention_t &a,
                                            Direction direction, int sm = 0) {
  auto graph = std::make_shared<fe::graph::Graph>();
  // Before any node is made: each copies the graph's context.
  if (sm > 0)
    graph->set_sm_version(sm);
  graph
      ->set_io_data_type(a.dtype == AMP_F16 ? fe::DataType_t::HALF
                                            : fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const bool split = splitsHeads(a, direction);
  auto input = [&](const char *name, Uid uid,
                   const amp_attention_layout_t &layout, int64_t seq) {
    return describe(graph->tensor(fe::graph::Tensor_attributes()), name, uid, a,
                    split, layout, seq);
  };
  auto q = input("q", kQ, a.q, a.seq_q);
  auto k = input("k", kK, a.k, a.seq_k);
  auto v = input("v", kV, a.v, a.seq_k);
  if (direction != kBackward) {
    auto options = fe::graph::SDPA_attributes()
                       .set_name("attention")
                       .set_generate_stats(direction == kForwardWithLse)
                       .set_attn_scale(a.scale);
    if (a.causal)
      options.set_causal_mask(true);
    auto [out, lse] = graph->sdpa(q, k, v, options);
    describe(out, "out", kOut, a, split, a.out, a.seq_q)->set_output(true);
    if (direction == kForwardWithLse) {
      describeLse(*lse, a, split);
      lse->set_output(true);
    }
    return graph;
  }
  auto out = input("out", kOut, a.out, a.seq_q);
  auto dout = input("dout", kDout, a.dout, a.seq_q);
  auto lse = graph->tensor(fe::graph::Tensor_attributes());
  describeLse(*lse, a, split);
  auto options = fe::graph::SDPA_backward_attributes()
                     .set_name("attention_grad")
                     .set_attn_scale(a.scale)
                     .set_deterministic_algorithm(true);
  if (a.causal)
    options.set_causal_mask(true);
  auto [dq, dk, dv] = graph->sdpa_backward(q, k, v, out, dout, lse, options);
  describe(dq, "dq", kDq, a, split, a.dq, a.seq_q)->set_output(true);
  describe(dk, "dk", kDk, a, split, a.dk, a.seq_k)->set_output(true);
  describe(dv, "dv", kDv, a, split, a.dv, a.seq_k)->set_output(true);
  return graph;
}

/// Why cuDNN does not take `a` whatever the GPU, or empty.
std::string refusal(const amp_attention_t &a) {
  if (a.dtype != AMP_F16 && a.dtype != AMP_BF16)
    return "cuDNN's attention takes f16 and bf16 only";
  return {};
}

} // namespace

struct amprt::CudnnAttention::Impl {
  std::shared_ptr<CudnnContext> context;
  CudnnPlanCache<PlanKey> plans;

  /// Runs `a`'s plan in `direction` over `pack`, built on first use, or
  /// sets *ran to false.
  amp_status_t run(void *stream, const amp_attention_t &a, Direction direction,
                   std::unordered_map<int64_t, void *> pack, void *workspace,
                   size_t workspaceBytes, bool *ran) {
    std::lock_guard<std::mutex> lock(context->getMutex());
    const CudnnPlan &plan = plans.get(
        keyOf(a, direction), [&]() -> std::shared_ptr<const CudnnPlan> {
          std::string why = refusal(a);
          if (why.empty())
            return buildCudnnPlan(context->getHandle(),
                                  [&] { return makeGraph(a, direction); });
          auto declined = std::make_shared<CudnnPlan>();
          declined->declined = why;
          declined->byRule = true;
          return declined;
        });
    return runCudnnPlan(context->getHandle(), stream, plan, std::move(pack),
                        workspace, workspaceBytes, "attention", ran);
  }
};

amprt::CudnnAttention::CudnnAttention(std::shared_ptr<CudnnContext> context)
    : impl(new Impl{std::move(context), {}}) {}

amprt::CudnnAttention::~CudnnAttention() = default;

amp_status_t amprt::CudnnAttention::validate(const amp_attention_t &a,
                                             bool backward, bool withLse,
                                             int sm) {
  std::string why = refusal(a);
  if (why.empty())
    why = validateCudnnGraph([&] {
      return makeGraph(a,
                       backward  ? kBackward
                       : withLse ? kForwardWithLse
                                 : kForward,
                       sm);
    });
  if (why.empty())
    return nullptr;
  return AMP_STATUS(AMP_INVALID_ARGUMENT, "cuDNN refuses this attention: %s",
                    why.c_str());
}

amp_status_t amprt::CudnnAttention::forward(void *stream,
                                            const amp_attention_t &a,
                                            const void *q, const void *k,
                                            const void *v, void *out,
                                            float *lse, void *workspace,
                                            size_t workspaceBytes, bool *ran) {
  *ran = false;
  if (!cudnnAligned({q, k, v, out, lse, workspace}))
    return nullptr;
  std::unordered_map<int64_t, void *> pack{{kQ, const_cast<void *>(q)},
                                           {kK, const_cast<void *>(k)},
                                           {kV, const_cast<void *>(v)},
                                           {kOut, out}};
  if (lse)
    pack.emplace(kLse, lse);
  return impl->run(stream, a, lse ? kForwardWithLse : kForward, std::move(pack),
                   workspace, workspaceBytes, ran);
}

amp_status_t amprt::CudnnAttention::backward(
    void *stream, const amp_attention_t &a, const void *q, const void *k,
    const void *v, const void *out, const void *dout, const float *lse,
    void *dq, void *dk, void *dv, void *workspace, size_t workspaceBytes,
    bool *ran) {
  *ran = false;
  if (!cudnnAligned({q, k, v, out, dout, lse, dq, dk, dv, workspace}))
    return nullptr;
  std::unordered_map<int64_t, void *> pack{{kQ, const_cast<void *>(q)},
                                           {kK, const_cast<void *>(k)},
                                           {kV, const_cast<void *>(v)},
                                           {kOut, const_cast<void *>(out)},
                                           {kDout, const_cast<void *>(dout)},
                                           {kLse, const_cast<float *>(lse)},
                                           {kDq, dq},
                                           {kDk, dk},
                                           {kDv, dv}};
  return impl->run(stream, a, kBackward, std::move(pack), workspace,
                   workspaceBytes, ran);
}
