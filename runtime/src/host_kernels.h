//===- host_kernels.h - the host backend's products ------------*- C++ -*-===//
//
// The host backend's GEMM and attention, blocked and threaded, each giving
// the interpreter's bits.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_HOST_KERNELS_H
#define AMP_RUNTIME_SRC_HOST_KERNELS_H

#include "amp_runtime/attention.h"
#include "amp_runtime/float_formats.h"
#include "amp_runtime/gemm.h"

#include <cstring>

namespace amprt {

/// amp_gemm on plain memory, the arguments checked. Every output is
/// sum_p a[i][p] * b[p][j] over ascending p, each product rounded to f32
/// and added to an f32 sum that starts at 0 (no FMA): the interpreter's
/// order, so the result is its bits; then alpha, beta and the epilogue.
amp_status_t hostGemm(const amp_gemm_t &g, const void *a, const void *b,
                      const void *bias, void *c);

/// to[0, count) = the f16 values at from[0, count), widened to f32 (with
/// F16C where the CPU has it).
void widenHalfToFloat(const uint16_t *from, int64_t count, float *to);
/// to[0, count) = the f32 values at from[0, count) rounded to f16 bits,
/// the bits of floatToHalfBits (with F16C where the CPU has it).
void narrowFloatToHalf(const float *from, int64_t count, uint16_t *to);

/// to[0, count) = the `dtype` values at data[offset, offset + count),
/// widened to f32 (exactly: every f16 and bf16 is an f32). Inline, so that
/// a constant count (a packed sliver) costs no call.
inline void widenToFloat(amp_dtype_t dtype, const void *data, int64_t offset,
                         int64_t count, float *to) {
  if (dtype == AMP_F32) {
    std::memcpy(to, static_cast<const float *>(data) + offset,
                count * sizeof(float));
    return;
  }
  const uint16_t *from = static_cast<const uint16_t *>(data) + offset;
  if (dtype == AMP_BF16) {
    for (int64_t i = 0; i < count; ++i)
      to[i] = bfloat16BitsToFloat(from[i]);
    return;
  }
  widenHalfToFloat(from, count, to);
}

/// amp_attention_forward and amp_attention_backward on plain memory, the
/// arguments checked, in the interpreter's order (host_attention.cpp).
amp_status_t hostAttentionForward(const amp_attention_t &a, const void *q,
                                  const void *k, const void *v, void *out,
                                  float *lse);
amp_status_t hostAttentionBackward(const amp_attention_t &a, const void *q,
                                   const void *k, const void *v,
                                   const void *out, const void *dout,
                                   const float *lse, void *dq, void *dk,
                                   void *dv, float *workspace);

} // namespace amprt

#endif // AMP_RUNTIME_SRC_HOST_KERNELS_H
