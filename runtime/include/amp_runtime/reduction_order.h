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
 * Header-only, free of LLVM, AMP_HOST_DEVICE. A GPU block reduction keeps
 * the order: each thread folds one part of reductionPart's size with
 * foldReduction, and one thread combines the parts with combinePairwise,
 * which gives the same tree (ReductionOrderTest checks it bit for bit).
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_REDUCTION_ORDER_H
#define AMP_RUNTIME_REDUCTION_ORDER_H

#include "amp_runtime/float_formats.h"

#include <cstdint>
#include <type_traits>

namespace amprt {

/// Values folded in order before the pairwise combination starts.
constexpr int64_t kReductionBlock = 256;
/// Values foldReduction loads before it combines them (a divisor of
/// kReductionBlock): the loads a thread of a reduction has in flight.
constexpr int64_t kLoadsAhead = 8;

/// Combines `leaf(k)` for k in [0, count) pairwise, like a binary
/// counter: a new leaf is combined with the previous result of the same
/// level (the earlier one on the left), and what is left at the end is
/// combined from the latest level down. With 2^k leaves this is the perfect
/// pairwise tree; `count` may be 0 (the result is `identity`).
template <typename Acc, typename Leaf, typename Combine>
AMP_HOST_DEVICE Acc combinePairwise(int64_t count, Acc identity, Leaf &&leaf,
                                    Combine &&combine) {
  // pending[] holds one result per set bit of the number of leaves taken
  // so far, the highest first: 64 cover any int64 count.
  Acc pending[64];
  int depth = 0;
  for (int64_t k = 0; k < count; ++k) {
    Acc result = leaf(k);
    // Each trailing 1 bit of `k` is a pending result of this level.
    for (int64_t carry = k; carry & 1; carry >>= 1)
      result = combine(pending[--depth], result);
    pending[depth++] = result;
  }
  if (depth == 0)
    return identity;
  Acc result = pending[depth - 1];
  for (int k = depth - 2; k >= 0; --k)
    result = combine(pending[k], result);
  return result;
}

/// Folds `load(r)` for r in [0, extent) with `combine`, starting each block
/// from `identity`, in the order described above. `extent` may be 0 (the
/// result is `identity`).
template <typename Acc, typename Load, typename Combine>
AMP_HOST_DEVICE Acc foldReduction(int64_t extent, Acc identity, Load &&load,
                                  Combine &&combine) {
  int64_t blocks = (extent + kReductionBlock - 1) / kReductionBlock;
  return combinePairwise(
      blocks, identity,
      [&](int64_t b) {
        int64_t start = b * kReductionBlock;
        int64_t end =
            extent - start < kReductionBlock ? extent : start + kReductionBlock;
        // kLoadsAhead values are loaded before any of them is combined, so
        // that a GPU thread has that many loads in flight (the cost
        // report's model counts on it); they are combined in order all the
        // same.
        // (Counted in whole runs: GCC takes `end - r >= kLoadsAhead` for
        // a loop that may wrap and warns of it at -O3.)
        Acc block = identity;
        const int64_t runs = (end - start) / kLoadsAhead;
        for (int64_t run = 0; run < runs; ++run) {
          const int64_t r = start + run * kLoadsAhead;
          std::decay_t<decltype(load(r))> values[kLoadsAhead];
          for (int64_t k = 0; k < kLoadsAhead; ++k)
            values[k] = load(r + k);
          for (int64_t k = 0; k < kLoadsAhead; ++k)
            block = combine(block, values[k]);
        }
        for (int64_t r = start + runs * kLoadsAhead; r < end; ++r)
          block = combine(block, load(r));
        return block;
      },
      combine);
}

/// amp.sum_squares over one tensor of `extent` values: each `load(r)` (an
/// f32) squared in f32 and the squares summed in foldReduction's order.
/// The op adds its tensors' results in operand order, from 0.
template <typename Load>
AMP_HOST_DEVICE float sumOfSquares(int64_t extent, Load &&load) {
  return foldReduction(
      extent, 0.0f,
      [&](int64_t r) {
        const float value = load(r);
        return value * value;
      },
      [](float acc, float value) { return acc + value; });
}

/// The values each of at most `parts` parts of a reduction of `extent`
/// values folds when the parts run in parallel (a GPU block's threads): a
/// power of two times kReductionBlock, the least with which `parts` parts
/// cover `extent`. Folding each part with foldReduction and combining the
/// parts' results with combinePairwise gives foldReduction's result over
/// the whole, bit for bit: a part is a perfect subtree of its blocks (or,
/// the last one, the subtrees its blocks leave), and the parts pair up as
/// those subtrees do.
AMP_HOST_DEVICE inline int64_t reductionPart(int64_t extent, int64_t parts) {
  int64_t span = kReductionBlock;
  while ((extent + span - 1) / span > parts)
    span *= 2;
  return span;
}

/// How a GPU cuts a reduction of `extent` values over `slices` blocks per
/// output (at most) of `threads` threads: parts of `span` values
/// (reductionPart), a thread each; block s folds parts [s * threads,
/// (s + 1) * threads) and combines them with combinePairwise; the blocks'
/// results are combined with combinePairwise again. Each slice of
/// `threads` parts (a power of two) is a perfect subtree of the parts'
/// tree, or the last one the subtrees it leaves, so the result is
/// foldReduction's, bit for bit (ReductionOrderTest).
struct ReductionSplit {
  int64_t span;   ///< values a part
  int64_t parts;  ///< parts in all
  int64_t slices; ///< blocks that have parts: at most the slices asked for
};

/// The values of part `k` of `split`: from `start`, `size` of them (the
/// last part may be short).
struct PartRange {
  int64_t start;
  int64_t size;
};

AMP_HOST_DEVICE inline PartRange partOf(const ReductionSplit &split,
                                        int64_t extent, int64_t k) {
  const int64_t start = k * split.span;
  return {start, extent - start < split.span ? extent - start : split.span};
}

/// The parts slice `slice` of `split` combines, of `threads` a slice: from
/// part slice * threads on, this many (the last slice may have fewer).
AMP_HOST_DEVICE inline int64_t partsOfSlice(const ReductionSplit &split,
                                            int64_t slice, int64_t threads) {
  const int64_t first = slice * threads;
  return split.parts - first < threads ? split.parts - first : threads;
}

AMP_HOST_DEVICE inline ReductionSplit
splitReduction(int64_t extent, int64_t slices, int64_t threads) {
  int64_t span = reductionPart(extent, slices * threads);
  int64_t parts = (extent + span - 1) / span;
  return {span, parts, (parts + threads - 1) / threads};
}

} // namespace amprt

#endif // AMP_RUNTIME_REDUCTION_ORDER_H
