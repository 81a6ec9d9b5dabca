//===- row_bodies.h - loads and stores of the storage types -----*- C++ -*-===//
//
// Element access shared by the host and CUDA backends' kernels (row, GEMM,
// attention, and the optimizers' low-precision weight copies): f16, bf16 or
// f32 in memory, f32 in arithmetic, one rounding at each store.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_SRC_ROW_BODIES_H
#define AMP_RUNTIME_SRC_ROW_BODIES_H

#include "amp_runtime/float_formats.h"
#include "amp_runtime/row_kernels.h"

namespace amprt {

AMP_HOST_DEVICE inline float load(amp_dtype_t dtype, const void *data,
                                  int64_t i) {
  switch (dtype) {
  case AMP_F16:
    return halfBitsToFloat(static_cast<const uint16_t *>(data)[i]);
  case AMP_BF16:
    return bfloat16BitsToFloat(static_cast<const uint16_t *>(data)[i]);
  default:
    return static_cast<const float *>(data)[i];
  }
}

AMP_HOST_DEVICE inline void store(amp_dtype_t dtype, void *data, int64_t i,
                                  float value) {
  switch (dtype) {
  case AMP_F16:
    static_cast<uint16_t *>(data)[i] = floatToHalfBits(value);
    break;
  case AMP_BF16:
    static_cast<uint16_t *>(data)[i] = floatToBFloat16Bits(value);
    break;
  default:
    static_cast<float *>(data)[i] = value;
    break;
  }
}

AMP_HOST_DEVICE inline size_t dtypeSize(amp_dtype_t dtype) {
  return dtype == AMP_F32 ? 4 : 2;
}

AMP_HOST_DEVICE inline float nanMax(float a, float b) {
  if (a != a || b != b)
    return a + b; // NaN
  return a < b ? b : a;
}

} // namespace amprt

#endif // AMP_RUNTIME_SRC_ROW_BODIES_H
