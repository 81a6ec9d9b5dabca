//===- attention.cpp - argument checks and dispatch -----------------------===//

#include "amp_runtime/attention.h"
#include "amp_runtime/launch_grid.h"

#include "backend.h"
#include "runtime_internal.h"
#include "status.h"

#include <cmath>

namespace {

/// The largest element offset, plus one, of a view of `seq` rows in a
/// layout that is not dense, or -1 where it overflows int64 counted in
/// f32 bytes.
int64_t layoutExtent(const amp_attention_t &a,
                     const amp_attention_layout_t &layout, int64_t seq) {
  int64_t extent = a.head_dim;
  const int64_t counts[] = {a.batch / a.heads, a.heads, seq};
  const int64_t strides[] = {layout.batch, layout.head, layout.seq};
  for (int i = 0; i < 3; ++i) {
    int64_t span;
    if (__builtin_mul_overflow(counts[i] - 1, strides[i], &span) ||
        __builtin_add_overflow(extent, span, &extent))
      return -1;
  }
  return amprt::bytesFit({extent}) ? extent : -1;
}

/// Checks the layouts of the tensors a pass reads and writes (the
/// backward's too with `backward`): a layout that is not dense needs
/// strides that are not negative, heads that divide the batch and views
/// whose offsets fit.
amp_status_t checkLayouts(const amp_attention_t &a, bool backward) {
  if (a.heads < 0)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "attention heads %lld is negative",
                      static_cast<long long>(a.heads));
  struct View {
    const char *name;
    amp_attention_layout_t layout;
    int64_t seq;
  };
  // The forward's tensors first, then those only the backward has.
  const View views[] = {{"q", a.q, a.seq_q},       {"k", a.k, a.seq_k},
                        {"v", a.v, a.seq_k},       {"out", a.out, a.seq_q},
                        {"dout", a.dout, a.seq_q}, {"dq", a.dq, a.seq_q},
                        {"dk", a.dk, a.seq_k},     {"dv", a.dv, a.seq_k}};
  const int count = backward ? 8 : 4;
  for (int i = 0; i < count; ++i) {
    const View &view = views[i];
    const amp_attention_layout_t &l = view.layout;
    if (amprt::isDenseLayout(l))
      continue;
    if (l.batch < 0 || l.head < 0 || l.seq < 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the layout of %s has a negative stride (batch %lld, "
                        "head %lld, seq %lld)",
                        view.name, static_cast<long long>(l.batch),
                        static_cast<long long>(l.head),
                        static_cast<long long>(l.seq));
    if (a.heads < 1 || a.batch % a.heads != 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the strided layout of %s needs heads >= 1 dividing "
                        "batch (heads %lld, batch %lld)",
                        view.name, static_cast<long long>(a.heads),
                        static_cast<long long>(a.batch));
    if (a.batch > 0 && view.seq > 0 && layoutExtent(a, l, view.seq) < 0)
      return AMP_STATUS(AMP_INVALID_ARGUMENT,
                        "the layout of %s overflows its offsets", view.name);
  }
  return nullptr;
}

amp_status_t checkAttention(amp_stream_t *stream, const amp_attention_t *a,
                            bool backward) {
  if (!stream || !a)
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "stream or attention is null");
  if (!amprt::isStorageDtype(amprt::rawEnum(a->dtype)))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "unknown dtype %d",
                      amprt::rawEnum(a->dtype));
  if (a->batch < 0 || a->seq_q < 0 || a->seq_k < 1 || a->head_dim < 1 ||
      a->head_dim > AMP_ATTENTION_MAX_HEAD_DIM)
    return AMP_STATUS(
        AMP_INVALID_ARGUMENT,
        "attention sizes batch %lld, seq_q %lld, seq_k %lld, "
        "head_dim %lld: need seq_k >= 1 and head_dim in "
        "[1, %d]",
        static_cast<long long>(a->batch), static_cast<long long>(a->seq_q),
        static_cast<long long>(a->seq_k), static_cast<long long>(a->head_dim),
        AMP_ATTENTION_MAX_HEAD_DIM);
  if (!amprt::bytesFit(
          {a->batch, a->seq_q > a->seq_k ? a->seq_q : a->seq_k, a->head_dim}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "attention sizes overflow");
  if (a->causal && a->seq_q != a->seq_k)
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "a causal mask needs seq_q == seq_k (got %lld and %lld)",
                      static_cast<long long>(a->seq_q),
                      static_cast<long long>(a->seq_k));
  if (!std::isfinite(a->scale))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "scale %g is not finite", a->scale);
  return checkLayouts(*a, backward);
}

} // namespace

extern "C" {

amp_status_t amp_attention_forward(amp_stream_t *stream,
                                   const amp_attention_t *attention,
                                   const void *q, const void *k, const void *v,
                                   void *out, float *lse) {
  AMP_RETURN_IF_ERROR(checkAttention(stream, attention, false));
  if (attention->batch == 0 || attention->seq_q == 0)
    return nullptr;
  if (amprt::anyNull({q, k, v, out}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT, "q, k, v or out is null");
  return amprt::backendOf(stream)->attentionForward(
      amprt::handleOf(stream), *attention, q, k, v, out, lse);
}

size_t amp_attention_backward_workspace(const amp_attention_t *attention) {
  if (!attention || attention->dtype == AMP_F32)
    return 0;
  int64_t bytes = amprt::attentionBackwardWorkspace(
      true, attention->batch, attention->seq_q, attention->seq_k,
      attention->head_dim);
  return bytes > 0 ? static_cast<size_t>(bytes) : 0;
}

amp_status_t amp_attention_backward(amp_stream_t *stream,
                                    const amp_attention_t *attention,
                                    const void *q, const void *k, const void *v,
                                    const void *out, const void *dout,
                                    const float *lse, void *dq, void *dk,
                                    void *dv, float *workspace) {
  AMP_RETURN_IF_ERROR(checkAttention(stream, attention, true));
  if (attention->batch == 0)
    return nullptr;
  // Without queries dK and dV are zero and the query-side tensors empty.
  if (attention->seq_q == 0
          ? amprt::anyNull({dk, dv})
          : amprt::anyNull({q, k, v, out, dout, lse, dq, dk, dv}))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "a tensor of the attention backward is null");
  if (attention->dtype != AMP_F32 &&
      (!workspace || amp_attention_backward_workspace(attention) == 0))
    return AMP_STATUS(AMP_INVALID_ARGUMENT,
                      "an f16 or bf16 attention backward needs its f32 "
                      "workspace (amp_attention_backward_workspace)");
  return amprt::backendOf(stream)->attentionBackward(
      amprt::handleOf(stream), *attention, q, k, v, out, dout, lse, dq, dk, dv,
      workspace);
}

} // extern "C"
