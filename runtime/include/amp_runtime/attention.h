/*===- attention.h - fused scaled dot-product attention ------------*- C -*-===*
 *
 * out = softmax(scale * Q K^T [+ causal mask]) V per batch entry (batch is
 * batch x heads), with the softmax taken online in f32 so that no
 * [seq_q, seq_k] matrix is ever stored. Q, K, V and out are
 * [batch, seq, head_dim], contiguous, in f16, bf16 or f32. On CUDA, f16
 * and bf16 run on cuDNN's fused attention where the build has cuDNN
 * (docs/runtime.md).
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_ATTENTION_H
#define AMP_RUNTIME_ATTENTION_H

#include "amp_runtime/optimizer_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AMP_ATTENTION_MAX_HEAD_DIM 256

typedef struct amp_attention_s {
  amp_dtype_t dtype;
  int64_t batch, seq_q, seq_k, head_dim; /* head_dim <= 256 */
  float scale;                           /* usually 1/sqrt(head_dim) */
  int causal; /* query i sees keys 0..i; needs seq_q == seq_k */
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
#endif

#endif /* AMP_RUNTIME_ATTENTION_H */
