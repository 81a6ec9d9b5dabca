/*===- attention.h - fused scaled dot-product attention ------------*- C -*-===*
 *
 * out = softmax(scale * Q K^T [+ causal mask]) V per batch entry (batch is
 * batch x heads), with the softmax taken online in f32 so that no
 * [seq_q, seq_k] matrix is ever stored. Q, K, V and out are
 * [batch, seq, head_dim], contiguous, in f16, bf16 or f32, unless a layout
 * says where their rows lie: a compiled step hands the attention Q, K and
 * V inside the QKV projection's [B, S, 3, H, D] output and has out written
 * as [B, S, H, D], with no transposes. On CUDA, f16 and bf16 run on
 * cuDNN's fused attention where the build has cuDNN (docs/runtime.md).
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_ATTENTION_H
#define AMP_RUNTIME_ATTENTION_H

#include "amp_runtime/optimizer_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AMP_ATTENTION_MAX_HEAD_DIM 256

/* Where element (b, h, s, c) of an attention tensor lies, in elements from
 * its pointer: b * batch + h * head + s * seq + c, for b < batch / heads
 * and h < heads of the attention (a head's components are contiguous).
 * All three 0: the dense layout, [batch x heads, seq, head_dim] in that
 * order. Strides are not negative; views that are written must not
 * overlap each other or the views read. */
typedef struct amp_attention_layout_s {
  int64_t batch, head, seq;
} amp_attention_layout_t;

typedef struct amp_attention_s {
  amp_dtype_t dtype;
  int64_t batch, seq_q, seq_k, head_dim; /* head_dim <= 256 */
  float scale;                           /* usually 1/sqrt(head_dim) */
  int causal; /* query i sees keys 0..i; needs seq_q == seq_k */
  /* Left zero, as designated initializers leave them, every tensor is
   * dense. Layouts that are not dense need heads: batch is then
   * batch / heads batches of `heads` heads each. */
  int64_t heads;
  amp_attention_layout_t q, k, v, out;     /* forward and backward */
  amp_attention_layout_t dout, dq, dk, dv; /* backward only */
} amp_attention_t;

/* `lse` (f32 [batch, seq_q], may be NULL) receives each row's
 * log-sum-exp of the scaled scores, which the backward pass needs. */
amp_status_t amp_attention_forward(amp_stream_t *stream,
                                   const amp_attention_t *attention,
                                   const void *q, const void *k, const void *v,
                                   void *out, float *lse);

/* Bytes of f32 workspace amp_attention_backward needs: the sums of dk and
 * dv (2 * batch * seq_k * head_dim floats) when the tensors are f16 or
 * bf16, none for f32, which sums in dk and dv themselves. */
size_t amp_attention_backward_workspace(const amp_attention_t *attention);

/* From the forward's out and lse and the upstream dout: dq, dk and dv in
 * the attention's dtype, each summed in f32 and rounded once, overwritten.
 * `workspace` holds amp_attention_backward_workspace() bytes (NULL when
 * that is 0). */
amp_status_t amp_attention_backward(amp_stream_t *stream,
                                    const amp_attention_t *attention,
                                    const void *q, const void *k, const void *v,
                                    const void *out, const void *dout,
                                    const float *lse, void *dq, void *dk,
                                    void *dv, float *workspace);

#ifdef __cplusplus
} /* extern "C" */

#include "amp_runtime/float_formats.h" // AMP_HOST_DEVICE

namespace amprt {

/// Whether `layout` is the dense one.
AMP_HOST_DEVICE inline bool
isDenseLayout(const amp_attention_layout_t &layout) {
  return layout.batch == 0 && layout.head == 0 && layout.seq == 0;
}

/// The element offset of row `s` (of `seq`) of (batch x head) entry `bh`
/// of a tensor in `layout`: what every implementation of the attention
/// (host, CUDA kernels) reads and writes through.
AMP_HOST_DEVICE inline int64_t
attentionOffset(const amp_attention_layout_t &layout, int64_t heads,
                int64_t seq, int64_t headDim, int64_t bh, int64_t s) {
  if (isDenseLayout(layout))
    return (bh * seq + s) * headDim;
  return (bh / heads) * layout.batch + (bh % heads) * layout.head +
         s * layout.seq;
}

/// The rows of (batch x head) entry `bh` of a tensor, row s at element
/// base + s * stride: attentionOffset's, found once for a loop over rows.
struct AttentionRows {
  int64_t base, stride;
  AMP_HOST_DEVICE int64_t at(int64_t s) const { return base + s * stride; }
};

AMP_HOST_DEVICE inline AttentionRows
attentionRows(const amp_attention_layout_t &layout, int64_t heads, int64_t seq,
              int64_t headDim, int64_t bh) {
  int64_t base = attentionOffset(layout, heads, seq, headDim, bh, 0);
  return {base, attentionOffset(layout, heads, seq, headDim, bh, 1) - base};
}

} // namespace amprt
#endif

#endif /* AMP_RUNTIME_ATTENTION_H */
