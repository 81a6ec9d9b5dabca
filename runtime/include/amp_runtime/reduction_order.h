/*===- reduction_order.h - the summation order of reductions ----*- C++ -*-===
 *
 * The order in which an accumulating reduction (sum, mean, a loss's sum
 * over its rows, a squared norm) combines its values is part of its
 * semantics: the interpreter and the generated host kernels follow this one
 * definition, and so agree bit for bit. The values, in ascending order, are
 * cut into blocks of kReductionBlock; each block is folded in order from the
 * identity; the block results are then combined pairwise, like a binary
 * counter: a new block result is combined with the previous one of the same
 * level (the earlier one on the left), and what is left at the end is
 * combined from the latest level down. With 2^k blocks this is the perfect
 * pairwise tree. The error grows with log2(n / 256) instead of n, so a
 * 38M-element sum of squares is as accurate as PyTorch's (whose CPU sum is
 * also blocked and pairwise) rather than 1e-5 off; a reduction of at most
 * 256 values is the plain in-order fold.
 *
 * Header-only, free of LLVM, AMP_HOST_DEVICE: a GPU block reduction may use
 * it per thread; across threads it combines in its own tree.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_REDUCTION_ORDER_H
#define AMP_RUNTIME_REDUCTION_ORDER_H

#include "amp_runtime/float_formats.h"

#include <cstdint>

namespace amprt {

/// Values folded in order before the pairwise combination starts.
constexpr int64_t kReductionBlock = 256;

/// Folds `load(r)` for r in [0, extent) with `combine`, starting each block
/// from `identity`, in the order described above. `extent` may be 0 (the
/// result is `identity`).
template <typename Acc, typename Load, typename Combine>
AMP_HOST_DEVICE Acc foldReduction(int64_t extent, Acc identity, Load &&load,
                                  Combine &&combine) {
  // pending[] holds one result per set bit of the number of blocks folded
  // so far, the highest first: 64 cover any int64 extent.
  Acc pending[64];
  int depth = 0;
  for (int64_t start = 0, blocks = 0; start < extent;
       start += kReductionBlock, ++blocks) {
    int64_t end =
        extent - start < kReductionBlock ? extent : start + kReductionBlock;
    Acc block = identity;
    for (int64_t r = start; r < end; ++r)
      block = combine(block, load(r));
    // Each trailing 1 bit of `blocks` is a pending result of this level.
    for (int64_t carry = blocks; carry & 1; carry >>= 1)
      block = combine(pending[--depth], block);
    pending[depth++] = block;
  }
  if (depth == 0)
    return identity;
  Acc result = pending[depth - 1];
  for (int k = depth - 2; k >= 0; --k)
    result = combine(pending[k], result);
  return result;
}

} // namespace amprt

#endif // AMP_RUNTIME_REDUCTION_ORDER_H
