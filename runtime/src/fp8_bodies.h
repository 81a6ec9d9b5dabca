//===- fp8_bodies.h - an FP8 GEMM's amax, scales and casts ------*- C++ -*-===//
//
// What an FP8 GEMM (gemm.h's a_fp8/b_fp8) does before the product, written
// once for both backends: the CUDA backend runs each body per thread, the
// host backend in loops, so both write the same bytes to the scratch.
//
//   1. amax of each operand: the largest magnitude, NaN if any value is NaN
//      (a max is the same in any order, NaN included, so the GPU's atomic
//      maximum of the magnitudes' bits gives the host's value: a positive
//      float's bits order as the float does, and a NaN's bits lie above
//      infinity's);
//   2. the scale and its inverse (float_formats.h, torchao's tensorwise
//      rule);
//   3. each operand scaled, saturated and rounded to its format, written
//      K-major (A as [batch][m][k], B as [batch][n][k]): the "TN" layout
//      that cuBLASLt's FP8 kernels read.
//
// Delayed scaling gives the scales (no amax, step 1), and amp_fp8_cast
// casts a matrix before the GEMMs that share it, in both layouts, with its
// amax; its state's update (amp_fp8_scaling_update) is written here too.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_FP8_BODIES_H
#define AMP_RUNTIME_SRC_FP8_BODIES_H

#include "amp_runtime/float_formats.h"
#include "amp_runtime/gemm.h"
#include "row_bodies.h"

namespace amprt {

AMP_HOST_DEVICE inline Fp8Format fp8FormatOf(amp_fp8_t format) {
  return format == AMP_FP8_E5M2 ? Fp8Format::E5M2 : Fp8Format::E4M3FN;
}

/// The bits that order a magnitude as a float: |value|'s, sign cleared (a
/// NaN's lie above every finite value's and infinity's).
AMP_HOST_DEVICE inline uint32_t magnitudeBits(float value) {
  return floatToBits(value) & 0x7fffffffu;
}

/// An FP8 GEMM's scratch: the scales at its head, then A's and B's FP8
/// copies, each on 256 bytes (amp_gemm_fp8_scratch_bytes).
struct Fp8Scratch {
  amp_fp8_scales_t *scales;
  uint8_t *a, *b;
};

AMP_HOST_DEVICE inline Fp8Scratch fp8ScratchOf(const amp_gemm_t &g) {
  auto *base = static_cast<uint8_t *>(g.fp8_scratch);
  int64_t aBytes = (g.batch * g.m * g.k + 255) / 256 * 256;
  return {reinterpret_cast<amp_fp8_scales_t *>(base), base + 256,
          base + 256 + aBytes};
}

/// Step 2 from the operands' amax bits: the scales at the scratch's head.
AMP_HOST_DEVICE inline void fp8Scales(const amp_gemm_t &g, uint32_t aAmaxBits,
                                      uint32_t bAmaxBits,
                                      amp_fp8_scales_t *scales) {
  scales->a_amax = bitsToFloat(aAmaxBits);
  scales->b_amax = bitsToFloat(bAmaxBits);
  scales->a_scale = fp8ScaleFromAmax(scales->a_amax, fp8FormatOf(g.a_fp8));
  scales->b_scale = fp8ScaleFromAmax(scales->b_amax, fp8FormatOf(g.b_fp8));
  scales->a_inverse = 1.0f / scales->a_scale;
  scales->b_inverse = 1.0f / scales->b_scale;
}

/// Step 2 under delayed scaling: the scales given (no amax computed).
AMP_HOST_DEVICE inline void fp8GivenScales(const amp_gemm_t &g,
                                           amp_fp8_scales_t *scales) {
  scales->a_amax = 0.0f;
  scales->b_amax = 0.0f;
  scales->a_scale = *g.a_scale;
  scales->b_scale = *g.b_scale;
  scales->a_inverse = 1.0f / scales->a_scale;
  scales->b_inverse = 1.0f / scales->b_scale;
}

/// amp_fp8_cast's element (r, c): its FP8 byte, written to data and to
/// transposed where they are given; the value's magnitude bits, for the
/// amax, returned.
AMP_HOST_DEVICE inline uint32_t
fp8CastElement(const amp_fp8_cast_t &cast, float scale, const void *input,
               uint8_t *data, uint8_t *transposed, int64_t r, int64_t c) {
  const float value = load(cast.dtype, input, r * cast.cols + c);
  const uint8_t bits = quantizeFp8(value, scale, fp8FormatOf(cast.format));
  if (data)
    data[r * cast.cols + c] = bits;
  if (transposed)
    transposed[c * cast.rows + r] = bits;
  return magnitudeBits(value);
}

/// Delayed scaling's update (amp.fp8_scaling_update) of column `c`, in
/// three steps that both backends run: the GPU's block a column, its
/// threads a row each (a stride of rows), the host in loops.
///
/// 1. The amax used: the largest entry of the history with this step's
///    amax in row 0, NaN entries skipped (a maximum is the same in any
///    order), or the most recent.
AMP_HOST_DEVICE inline float fp8HistoryEntry(const amp_fp8_scaling_t &u,
                                             int64_t c, int64_t row,
                                             const float *history) {
  return row == 0 ? *u.amax[c] : history[row * u.columns + c];
}

AMP_HOST_DEVICE inline float fp8LargerAmax(float a, float b) {
  return std::fmax(a, b);
}

/// 2. The history rolled up a row: row `row`'s next value, row `row + 1`'s
///    (this step's amax for the last row; 0 for row 0). A thread reads
///    every row it writes before any row is written.
AMP_HOST_DEVICE inline float fp8RolledEntry(const amp_fp8_scaling_t &u,
                                            int64_t c, int64_t row,
                                            const float *history) {
  if (row == 0)
    return 0.0f;
  return row + 1 < u.rows ? history[(row + 1) * u.columns + c] : *u.amax[c];
}

/// 3. The overflow count (this step's amax past the format's range at the
///    scale it was cast with) and the scale from the amax used, where that
///    is finite and positive.
AMP_HOST_DEVICE inline void fp8ScaleUpdate(const amp_fp8_scaling_t &u,
                                           int64_t c, float largest,
                                           float *scale, float *overflows) {
  const float max = static_cast<float>(fp8Max(fp8FormatOf(u.formats[c])));
  const float amax = *u.amax[c];
  if (!(amax * scale[c] <= max))
    overflows[c] += 1.0f;
  const float used = u.most_recent ? amax : largest;
  if (std::isfinite(used) && used > 0.0f)
    scale[c] = u.scaled_max[c] / used;
}

/// One operand's step 3: its K-major copy `to`, [batch][rows][k], from
/// `from`, which holds each matrix as [rows][k] or, `transposed`, as
/// [k][rows] (A with trans_a, B without trans_b): then the GPU casts it
/// through tiles, so that both its reads and its writes are coalesced.
struct Fp8Operand {
  const void *from;
  uint8_t *to;
  int64_t rows, k, batch;
  bool transposed;
  amp_dtype_t dtype;
  amp_fp8_t format;
};

AMP_HOST_DEVICE inline Fp8Operand fp8OperandA(const amp_gemm_t &g,
                                              const void *a, uint8_t *to) {
  return {a, to, g.m, g.k, g.batch, g.trans_a != 0, g.ab_dtype, g.a_fp8};
}

AMP_HOST_DEVICE inline Fp8Operand fp8OperandB(const amp_gemm_t &g,
                                              const void *b, uint8_t *to) {
  return {b, to, g.n, g.k, g.batch, g.trans_b == 0, g.ab_dtype, g.b_fp8};
}

/// The copy's element (batch, r, p): the operand's value there scaled,
/// saturated and rounded.
AMP_HOST_DEVICE inline void fp8Cast(const Fp8Operand &o, float scale,
                                    int64_t batch, int64_t r, int64_t p) {
  int64_t matrix = batch * o.rows * o.k;
  int64_t from = matrix + (o.transposed ? p * o.rows + r : r * o.k + p);
  o.to[matrix + r * o.k + p] =
      quantizeFp8(load(o.dtype, o.from, from), scale, fp8FormatOf(o.format));
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_FP8_BODIES_H
