//===- attention.cpp - argument checks and dispatch -----------------------===//

#include "amp_runtime/attention.h"
#include "amp_runtime/launch_grid.h"

#include "backend.h"
#include "runtime_internal.h"
#include "status.h"

#include <cmath>

namespace {

amp_status_t checkAttention(amp_stream_t *stream, const amp_attention_t *a) {
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
  return nullptr;
}

} // namespace

extern "C" {

amp_status_t amp_attention_forward(amp_stream_t *stream,
                                   const amp_attention_t *attention,
                                   const void *q, const void *k, const void *v,
                                   void *out, float *lse) {
  AMP_RETURN_IF_ERROR(checkAttention(stream, attention));
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
  AMP_RETURN_IF_ERROR(checkAttention(stream, attention));
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
