//===- launch_grid.h - the grids CUDA kernels are launched with -*- C++ -*-===//
//
// How many blocks of how many threads each kind of launch uses, in one
// place: the generated step's launches (step_kernels.h), the runtime's own
// kernels (cuda_backend.cu) and the compiler's cost report, which predicts
// the grids without a GPU, all read these.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_LAUNCH_GRID_H
#define AMP_RUNTIME_LAUNCH_GRID_H

#include "amp_runtime/reduction_order.h"
#include "amp_runtime/row_context.h"

#include <cstdint>
#include <initializer_list>

namespace amprt {

/// The threads of every block the step and the runtime launch.
constexpr int64_t kBlockThreads = 256;
/// The most blocks of a grid-stride launch; its threads loop over the rest.
constexpr int64_t kMaxGridBlocks = 65536;
/// A row kernel gives each row a warp.
constexpr int64_t kRowsPerBlock = kBlockThreads / kRowLanes;

struct Grid {
  int64_t blocks;
  int64_t threads;
};

/// The runtime's multi-tensor kernels (unscale, SGD, AdamW) take up to
/// this many tensors a launch, their addresses in the launch's parameters
/// (about 14 KB of the 32 KB that CUDA 12.1 and later allow on sm_70 and
/// up): one launch for GPT-2's 148 tensors.
constexpr int64_t kMultiTensorChunk = 256;
/// A thread of a multi-tensor kernel moves a vector of this many f32
/// elements (16 bytes) at a time, a block a tile of kBlockThreads vectors.
constexpr int64_t kMultiTensorVector = 4;
constexpr int64_t kMultiTensorTile = kBlockThreads * kMultiTensorVector;
/// At most this many blocks a multi-tensor launch, looping over the rest of
/// its tiles: eight blocks of 256 threads on each of an H100's or H200's
/// 132 SMs, as many threads as an SM holds.
constexpr int64_t kMultiTensorBlocks = 132 * 8;

/// The tiles of a tensor of `size` elements.
constexpr int64_t multiTensorTiles(int64_t size) {
  return (size + kMultiTensorTile - 1) / kMultiTensorTile;
}

/// The grid of a multi-tensor launch over `tiles` tiles in all.
constexpr Grid multiTensorGrid(int64_t tiles) {
  return {tiles < 1                    ? 1
          : tiles > kMultiTensorBlocks ? kMultiTensorBlocks
                                       : tiles,
          kBlockThreads};
}

/// The launches of a multi-tensor operation over `count` tensors of
/// `sizes` elements, a chunk of kMultiTensorChunk tensors each, and the
/// largest of their grids.
struct MultiTensorPlan {
  int64_t launches;
  Grid grid;
};

inline MultiTensorPlan planMultiTensor(const int64_t *sizes, int64_t count) {
  MultiTensorPlan plan{0, {1, kBlockThreads}};
  for (int64_t first = 0; first < count; first += kMultiTensorChunk) {
    int64_t tiles = 0;
    for (int64_t t = first; t < count && t < first + kMultiTensorChunk; ++t)
      tiles += multiTensorTiles(sizes[t]);
    const Grid grid = multiTensorGrid(tiles);
    plan.launches += 1;
    if (grid.blocks > plan.grid.blocks)
      plan.grid = grid;
  }
  return plan;
}

/// The last of `count` ascending `starts` at or below `index` (at least
/// starts[0]): a binary search, the same for every thread of a block. Of
/// equal starts (tensors with nothing in them), the last. The tensor of
/// a launch over several (amp_sum_squares' blocks, a multi-tensor
/// launch's tiles, a generated casts kernel's elements) an index falls in.
AMP_HOST_DEVICE inline int64_t
lastStartAtOrBelow(const int64_t *starts, int64_t count, int64_t index) {
  int64_t low = 0, high = count - 1;
  while (low < high) {
    const int64_t mid = (low + high + 1) / 2;
    if (starts[mid] <= index)
      low = mid;
    else
      high = mid - 1;
  }
  return low;
}

/// The blocks that give each of `count` items one of `perBlock` workers,
/// at most kMaxGridBlocks.
constexpr int64_t gridBlocks(int64_t count, int64_t perBlock) {
  int64_t blocks = (count + perBlock - 1) / perBlock;
  return blocks > kMaxGridBlocks ? kMaxGridBlocks : blocks;
}

/// ampstep::launch: a thread per index.
constexpr Grid elementGrid(int64_t count) {
  return {gridBlocks(count, kBlockThreads), kBlockThreads};
}

/// The side of the tiles an FP8 GEMM's transposing cast moves through
/// shared memory (fp8_bodies.h), a block of kBlockThreads a tile.
constexpr int64_t kFp8Tile = 32;

struct Grid3 {
  int64_t x, y, z;
};

/// The transposing cast's grid for a [batch][k][rows] operand: a block a
/// tile, batches past the grid's 65535 strided.
constexpr Grid3 fp8TransposedGrid(int64_t rows, int64_t k, int64_t batch) {
  return {(rows + kFp8Tile - 1) / kFp8Tile, (k + kFp8Tile - 1) / kFp8Tile,
          batch < 65535 ? batch : 65535};
}

/// ampstep::launchRows: a warp per row.
constexpr Grid rowGrid(int64_t rows) {
  return {gridBlocks(rows, kRowsPerBlock), kBlockThreads};
}

/// Whether ampstep::launchReduce gives each of `count` outputs, each
/// folding `extent` values, threads (as launch) rather than blocks. Where
/// the outputs lie side by side in memory (a reduction over leading
/// dimensions: a bias gradient's columns, a layer norm's scale gradient),
/// threads read them coalesced, a warp 32 adjacent columns of a row, and a
/// block per output would read a column's values 32 sectors apart: threads
/// from a warp's worth of outputs on. Where each output's values are its
/// own (a row's sum), a block reads them coalesced, threads keep a GPU
/// busy from a few thousand outputs on.
constexpr bool reducesPerThread(int64_t count, int64_t extent,
                                bool adjacentOutputs = false) {
  return count >= (adjacentOutputs ? 32 : 2048) || extent < 1024;
}

/// The blocks a reduction's grid aims at, where a slice is a block: two
/// per SM of an H100 or H200.
constexpr int64_t kReduceBlocks = 264;
/// The threads it aims at, where a slice is a thread: 64 warps on each of
/// 132 SMs, as many as an SM holds. A thread of a column sum has
/// amprt::kLoadsAhead values in flight, 16 bytes of bf16: half of an SM's
/// warps do not keep enough loads in flight to draw its share of the
/// bandwidth (docs/backend.md, "The cost report"); the power-of-two
/// slices (splitReduction) land between a half and a whole.
constexpr int64_t kReduceThreads = 132 * 64 * 32;

/// The counters a CUDA stream holds for its reductions
/// (amp_stream_counters): a reduction of at most this many outputs cut
/// into slices finishes each output in the slice that ends last.
constexpr int64_t kReduceCounters = 65536;

/// How ampstep::launchReduce runs `count` outputs of `extent` values. Each
/// output is cut into `split.slices` slices (splitReduction: parts of a
/// thread, `threads` parts a slice), enough for about kReduceBlocks blocks
/// in all where the outputs alone are fewer; a slice is a block of 256
/// threads when the outputs are few and long, else a thread (consecutive
/// threads take consecutive outputs, so that columns are read coalesced).
/// With more than one slice, the slices' results go to the stream's
/// workspace, and the slice of an output that ends last (its counter says
/// so) combines them, in the same order: one launch. With more outputs
/// than counters, a second launch, a thread per output, combines them.
struct ReducePlan {
  int64_t threads; ///< parts a slice: kBlockThreads, or 1 per thread
  ReductionSplit split;
  Grid grid; ///< the first launch's
  int64_t launches;
};

inline ReducePlan planReduction(int64_t count, int64_t extent,
                                bool adjacentOutputs = false) {
  const bool perThread = reducesPerThread(count, extent, adjacentOutputs);
  const int64_t threads = perThread ? 1 : kBlockThreads;
  // Slices wanted to fill the grid (threads: at least kReduceThreads of
  // them; blocks: at most kReduceBlocks), and the most that give every
  // thread at least one run of kReductionBlock values.
  const int64_t workers = perThread ? kReduceThreads : kReduceBlocks;
  const int64_t wanted = count <= 0  ? 1
                         : perThread ? (workers + count - 1) / count
                                     : workers / count;
  const int64_t most =
      (extent + threads * kReductionBlock - 1) / (threads * kReductionBlock);
  int64_t slices = wanted < most ? wanted : most;
  if (slices < 1)
    slices = 1;
  const ReductionSplit split = splitReduction(extent, slices, threads);
  const int64_t first = count * (split.slices > 0 ? split.slices : 1);
  const Grid grid = perThread ? elementGrid(first) : Grid{first, kBlockThreads};
  return {threads, split, grid,
          split.slices > 1 && count > kReduceCounters ? 2 : 1};
}

/// amp_sum_squares takes this many tensors a launch (their addresses and
/// splits travel in the launch's parameters, about 13 KB of the 32 KB
/// CUDA 12.1 and later allow: one launch for GPT-2's 148 gradients), and a
/// last launch of one block adds up the tensors' results.
constexpr int64_t kSumSquaresChunk = 256;
/// The blocks a launch of amp_sum_squares aims at: eight of 256 threads on
/// each of an H100's or H200's 132 SMs, as many threads as an SM holds, so
/// that enough loads are in flight to draw the bandwidth.
constexpr int64_t kSumSquaresBlocks = 132 * 8;

/// How amp_sum_squares cuts a tensor of `size` values among tensors of
/// `total` values: into slices, each a block of kBlockThreads threads that
/// fold a part each (splitReduction), the tensor's share of
/// kSumSquaresBlocks blocks, at least one, and no more than give each
/// thread a kReductionBlock of values. A tensor without values has no
/// slices.
inline ReductionSplit sumSquaresSplit(int64_t size, int64_t total) {
  const int64_t most = (size + kBlockThreads * kReductionBlock - 1) /
                       (kBlockThreads * kReductionBlock);
  // size <= total, so size * kSumSquaresBlocks / total <=
  // kSumSquaresBlocks; the product is taken in double, as it may not fit
  // in 64 bits.
  const int64_t wanted = total > 0
                             ? static_cast<int64_t>(static_cast<double>(size) *
                                                    kSumSquaresBlocks / total) +
                                   1
                             : 1;
  int64_t slices = wanted < most ? wanted : most;
  if (slices < 1)
    slices = 1;
  return splitReduction(size, slices, kBlockThreads);
}

/// Whether a CUDA build with cuDNN runs an attention of these head dims
/// on cuDNN's fused attention (cudnn_attention.cpp) rather than its own
/// kernels: f16 and bf16 whose head dims are multiples of 8 up to 128, as
/// cuDNN takes them forward and backward on sm_80 and sm_90 alike
/// (CudnnAttentionTest checks that cuDNN's frontend agrees).
constexpr bool attentionOnCudnn(bool halfPrecision, int64_t headDim) {
  return halfPrecision && headDim > 0 && headDim % 8 == 0 && headDim <= 128;
}

/// The largest table amp_id_buckets takes: its keys are 32-bit, with one
/// beyond the rows for the ids out of range.
constexpr int64_t kMaxIdBucketRows = (int64_t(1) << 31) - 2;

/// amp_id_buckets_workspace: for each id a 32-bit key, its sorted copy and
/// an int64 position to sort with it (16 bytes); -1 where that overflows.
constexpr int64_t idBucketsWorkspace(int64_t count) {
  return count < 0 || count > INT64_MAX / 16 ? -1 : count * 16;
}

/// The bytes of workspace a step plans for an f16 or bf16 attention
/// backward over `rows` (batch x heads) of `seqQ` queries and `seqK` keys
/// of `headDim`: the larger of what the runtime's kernel needs (the f32
/// sums of dK and dV) and, where cuDNN runs it (attentionOnCudnn), a bound
/// on what cuDNN's deterministic backward asks for. cuDNN's frontend
/// (scaled_dot_product_flash_attention.h) serves deterministic mode on
/// Hopper with its dP workspace, the f16 score gradient of every pair,
/// queries padded to 64 and keys to 64 (128 on its sm_90 route), 2 bytes
/// each; beside it the f32 softmax sums of the queries and, on its other
/// route, an f32 dQ accumulator: all three together, so that either route
/// fits. 0 for f32 (summed in place), -1 where the bytes overflow int64.
/// The runtime counts a plan that still wants more (amp_library_fallbacks).
inline int64_t attentionBackwardWorkspace(bool halfPrecision, int64_t rows,
                                          int64_t seqQ, int64_t seqK,
                                          int64_t headDim) {
  if (!halfPrecision || rows <= 0 || seqQ < 0 || seqK <= 0 || headDim <= 0)
    return 0;
  auto product = [](std::initializer_list<int64_t> factors) -> int64_t {
    int64_t result = 1;
    for (int64_t factor : factors)
      if (__builtin_mul_overflow(result, factor, &result))
        return -1;
    return result;
  };
  auto padded = [](int64_t n, int64_t to) { return (n + to - 1) / to * to; };
  int64_t sums = product({2, 4, rows, seqK, headDim});
  if (sums < 0 || !attentionOnCudnn(true, headDim))
    return sums;
  int64_t parts[] = {product({2, rows, padded(seqQ, 64), padded(seqK, 128)}),
                     product({4, rows, seqQ}),
                     product({4, rows, seqQ, headDim})};
  int64_t cudnn = 0;
  for (int64_t part : parts)
    if (part < 0 || __builtin_add_overflow(cudnn, part, &cudnn))
      return -1;
  return cudnn > sums ? cudnn : sums;
}

} // namespace amprt

#endif // AMP_RUNTIME_LAUNCH_GRID_H
