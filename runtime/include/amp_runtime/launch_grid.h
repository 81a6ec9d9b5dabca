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

namespace amprt {

/// The threads of every block the step and the runtime launch.
constexpr int64_t kBlockThreads = 256;
/// The most blocks of a grid-stride launch; its threads loop over the rest.
constexpr int64_t kMaxGridBlocks = 65536;
/// A row kernel gives each row a warp.
constexpr int64_t kRowsPerBlock = kBlockThreads / kRowLanes;
/// The runtime's multi-tensor kernels (optimizers, unscale) take this many
/// tensors a launch, each launch this many blocks: enough to fill an
/// H100's or H200's 132 SMs twice.
constexpr int64_t kMultiTensorChunk = 8;
constexpr int64_t kMultiTensorBlocks = 264;

struct Grid {
  int64_t blocks;
  int64_t threads;
};

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

/// ampstep::launchRows: a warp per row.
constexpr Grid rowGrid(int64_t rows) {
  return {gridBlocks(rows, kRowsPerBlock), kBlockThreads};
}

/// Whether ampstep::launchReduce gives each of `count` outputs, each
/// folding `extent` values, a thread (as launch) rather than a block: a
/// thread per output keeps a GPU busy from a few thousand outputs on, and
/// reads a reduction over leading dimensions coalesced.
constexpr bool reducesPerThread(int64_t count, int64_t extent) {
  return count >= 2048 || extent < 1024;
}

/// The blocks a reduction's grid aims at when few outputs each fold many
/// values: as many as the multi-tensor kernels', two per SM.
constexpr int64_t kReduceBlocks = kMultiTensorBlocks;

/// The blocks each of `count` outputs of a block reduction gets: enough
/// for about kReduceBlocks in all, no more than its `extent` values give
/// every thread a block of kReductionBlock. Above 1, the blocks write
/// their results to the stream's workspace and a second launch, a thread
/// per output, combines them (ampstep::launchReduce).
inline int64_t reduceSlices(int64_t count, int64_t extent) {
  if (reducesPerThread(count, extent))
    return 1;
  int64_t wanted = kReduceBlocks / count;
  int64_t most = (extent + kBlockThreads * kReductionBlock - 1) /
                 (kBlockThreads * kReductionBlock);
  int64_t slices = wanted < most ? wanted : most;
  if (slices <= 1)
    return 1;
  return splitReduction(extent, slices, kBlockThreads).slices;
}

/// ampstep::launchReduce's grid (its first launch, where it makes two).
inline Grid reduceGrid(int64_t count, int64_t extent) {
  return reducesPerThread(count, extent)
             ? elementGrid(count)
             : Grid{count * reduceSlices(count, extent), kBlockThreads};
}

} // namespace amprt

#endif // AMP_RUNTIME_LAUNCH_GRID_H
