//===- host_gemm.h - the host backend's matrix product ----------*- C++ -*-===//

#ifndef AMP_RUNTIME_SRC_HOST_GEMM_H
#define AMP_RUNTIME_SRC_HOST_GEMM_H

#include "amp_runtime/gemm.h"

namespace amprt {

/// amp_gemm on plain memory, the arguments checked. Every output is
/// sum_p a[i][p] * b[p][j] over ascending p, each product rounded to f32
/// and added to an f32 sum that starts at 0 (no FMA): the interpreter's
/// order, so the result is its bits; then alpha, beta and the epilogue.
amp_status_t hostGemm(const amp_gemm_t &g, const void *a, const void *b,
                      const void *bias, void *c);

} // namespace amprt

#endif // AMP_RUNTIME_SRC_HOST_GEMM_H
