//===- step_kernels.h - support for generated step code ---------*- C++ -*-===//
//
// What the CUDA C++ that amp-translate --amp-to-cuda prints includes: loads
// and stores of every element type (each store rounds once, to nearest
// even), the ops' scalar math (scalar_math.h, row_math.h, random.h's
// dropout masks), and `launch`, which runs a kernel functor once per
// index: a grid-stride CUDA kernel on
// the step's stream when compiled by nvcc, loops over ranges of indices on
// the runtime's host threads when compiled by a host C++ compiler;
// `launchReduce` does the same for reductions, with a block per output for
// long ones under nvcc, summing in the host's order;
// `launchRows` runs a row kernel, a warp per row under nvcc and the warp's
// lanes emulated on the host (row_context.h), in the same order.
// Kernel bodies are AMP_HOST_DEVICE, so one generated file serves both targets.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_STEP_KERNELS_H
#define AMP_RUNTIME_STEP_KERNELS_H

#include "amp_runtime/attention.h"
#include "amp_runtime/batch_norm.h"
#include "amp_runtime/conv.h"
#include "amp_runtime/conv_window.h"
#include "amp_runtime/float_formats.h"
#include "amp_runtime/gemm.h"
#include "amp_runtime/id_buckets.h"
#include "amp_runtime/launch_grid.h"
#include "amp_runtime/optimizer_kernels.h"
#include "amp_runtime/random.h"
#include "amp_runtime/reduction_order.h"
#include "amp_runtime/replicas.h"
#include "amp_runtime/row_context.h"
#include "amp_runtime/row_kernels.h"
#include "amp_runtime/row_math.h"
#include "amp_runtime/scalar_math.h"
#include "amp_runtime/step.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <utility>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#elif defined(__F16C__)
#include <immintrin.h>
#endif
#if defined(AMP_STEP_COUNT_ACCESSES)
#include "amp_runtime/access_count.h"
#endif

namespace ampstep {

/// The device this file was compiled for: a step built by nvcc runs on
/// CUDA devices, one built by a host compiler on the host.
#if defined(__CUDACC__)
constexpr amp_device_kind_t kDevice = AMP_DEVICE_CUDA;
#else
constexpr amp_device_kind_t kDevice = AMP_DEVICE_HOST;
#endif

using f16_t = uint16_t;  // IEEE binary16 bits
using bf16_t = uint16_t; // bfloat16 bits

// A kernel's members: the tensors it only reads (In) and those it writes
// (Out). Plain pointers, except in a host build that counts each launch's
// loads and stores (AMP_STEP_COUNT_ACCESSES, access_count.h).
#if !defined(AMP_STEP_COUNT_ACCESSES)
template <typename T> using In = const T *;
template <typename T> using Out = T *;
#endif

// With F16C (a host build with -mf16c, as amp-compile makes where the CPU
// has it), f16 conversions are single instructions. They give the same bits
// as the software ones for every f16 and every non-NaN f32 (all 2^32 were
// compared once; runtime/tests/F16cTest.cpp keeps checking every f16, a
// sample of f32 and every rounding boundary); NaNs keep the software
// path's quiet NaN without payload.
#if defined(__F16C__) && !defined(__CUDACC__)
#define AMP_STEP_HAVE_F16C 1
#endif

AMP_HOST_DEVICE inline f16_t toF16(float v) {
#if defined(AMP_STEP_HAVE_F16C)
  if (v == v)
    return static_cast<f16_t>(_cvtss_sh(v, _MM_FROUND_TO_NEAREST_INT));
#endif
  return amprt::floatToHalfBits(v);
}
AMP_HOST_DEVICE inline float fromF16(f16_t bits) {
#if defined(AMP_STEP_HAVE_F16C)
  return _cvtsh_ss(bits);
#else
  return amprt::halfBitsToFloat(bits);
#endif
}

// Loads widen exactly; stores round to nearest even. `P` is a kernel's
// In<...> or Out<...> member.
template <typename P> AMP_HOST_DEVICE inline float ldF16(P p, int64_t i) {
  return fromF16(p[i]);
}
template <typename P> AMP_HOST_DEVICE inline float ldBF16(P p, int64_t i) {
  return amprt::bfloat16BitsToFloat(p[i]);
}
template <typename P>
AMP_HOST_DEVICE inline void stF16(P p, int64_t i, float v) {
  p[i] = toF16(v);
}
template <typename P>
AMP_HOST_DEVICE inline void stBF16(P p, int64_t i, float v) {
  p[i] = amprt::floatToBFloat16Bits(v);
}
// From f64, one rounding, as rndF16/rndBF16 below: so storing a value
// stores what storing its rounding would, and the generated code stores
// `x` where it would store rndBF16(x), converting once instead of twice.
template <typename P>
AMP_HOST_DEVICE inline void stF16(P p, int64_t i, double v) {
  p[i] = amprt::doubleToHalfBits(v);
}
template <typename P>
AMP_HOST_DEVICE inline void stBF16(P p, int64_t i, double v) {
  p[i] = amprt::doubleToBFloat16Bits(v);
}
// A register that holds a bf16 value (every register of a bf16 SSA value
// does: each op rounds its result) is stored by taking its high half; a
// NaN is made quiet, as stBF16 does. The same bits as stBF16 for every
// bf16 value, in a third of the instructions.
template <typename P>
AMP_HOST_DEVICE inline void stHeldBF16(P p, int64_t i, float v) {
  uint32_t bits = amprt::floatToBits(v);
  uint32_t quiet = (bits & 0x7fffffffu) > 0x7f800000u ? 0x0040u : 0u;
  p[i] = static_cast<bf16_t>((bits >> 16) | quiet);
}
// A value rounded to f16 or bf16 but kept in a register.
AMP_HOST_DEVICE inline float rndF16(float v) { return fromF16(toF16(v)); }
AMP_HOST_DEVICE inline float rndBF16(float v) {
  return amprt::roundToBFloat16(v);
}
// From f64, one rounding (f64 -> f32 -> f16 could round twice).
AMP_HOST_DEVICE inline float rndF16(double v) {
  return amprt::halfBitsToFloat(amprt::doubleToHalfBits(v));
}
AMP_HOST_DEVICE inline float rndBF16(double v) {
  return amprt::bfloat16BitsToFloat(amprt::doubleToBFloat16Bits(v));
}

// maximum/minimum propagate NaN, as torch.maximum does.
template <typename T> AMP_HOST_DEVICE inline T nanMax(T a, T b) {
  if (a != a || b != b)
    return static_cast<T>(NAN);
  return a < b ? b : a;
}
template <typename T> AMP_HOST_DEVICE inline T nanMin(T a, T b) {
  if (a != a || b != b)
    return static_cast<T>(NAN);
  return b < a ? b : a;
}

/// Whether `v` is neither infinite nor NaN.
AMP_HOST_DEVICE inline bool isFinite(float v) { return v - v == 0.0f; }

/// A kernel may have `void setup()`: it computes, once per thread (once per
/// launch on the host), what every index shares, such as an optimizer's
/// bias corrections from the step count, into the functor's own members.
template <typename Kernel, typename = void>
struct HasSetup : std::false_type {};
template <typename Kernel>
struct HasSetup<Kernel, std::void_t<decltype(std::declval<Kernel &>().setup())>>
    : std::true_type {};

template <typename Kernel> AMP_HOST_DEVICE Kernel prepared(Kernel kernel) {
  if constexpr (HasSetup<Kernel>::value)
    kernel.setup();
  return kernel;
}

// A reduction kernel has, besides operator()(i), which folds the `extent`
// values of output i in the order of amprt::foldReduction and stores the
// result (what the host runs):
//   Acc identity(); int64_t baseOf(i); Acc loadAt(base, r);
//   Acc combine(Acc acc, Acc v); void finish(i, Acc acc).
// launchReduce runs it: under nvcc, an output is cut into slices
// (amprt::planReduction) where its outputs alone would leave the GPU idle:
// when few outputs each fold many values, blocks whose threads fold
// contiguous parts that thread 0 then combines; otherwise threads, each
// folding a slice; the slice of an output that ends last combines the
// slices' results, in the host's order (the same bits), or, with more
// outputs than the stream has counters, a second launch does. Enough outputs
// run one index each, as launch. A kernel whose outputs lie side by side in
// memory (a reduction over leading dimensions) says so with `static constexpr
// bool kAdjacentOutputs = true`, so that threads take its outputs
// (amprt::reducesPerThread).

/// Whether a reduction kernel's outputs lie side by side in memory.
template <typename Kernel, typename = void>
struct AdjacentOutputs : std::false_type {};
template <typename Kernel>
struct AdjacentOutputs<Kernel, std::void_t<decltype(Kernel::kAdjacentOutputs)>>
    : std::bool_constant<Kernel::kAdjacentOutputs> {};

#if defined(__CUDACC__)
/// Why a launch on `stream` failed, or null.
inline amp_status_t launched(const char *name) {
  cudaError_t error = cudaGetLastError();
  if (error == cudaSuccess)
    return nullptr;
  char message[256];
  std::snprintf(message, sizeof message, "launching kernel %s: %s", name,
                cudaGetErrorString(error));
  return amp_status_make(AMP_DEVICE_ERROR, __FILE__, __LINE__, message);
}

inline amp_status_t checkCudaStream(amp_stream_t *stream) {
  if (amp_stream_device_kind(stream) != AMP_DEVICE_CUDA)
    return amp_status_make(AMP_INVALID_ARGUMENT, __FILE__, __LINE__,
                           "a CUDA step runs only on a CUDA stream");
  return nullptr;
}

template <typename Kernel>
__global__ void gridStride(int64_t count, Kernel shared) {
  const Kernel kernel = prepared(shared);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    kernel(i);
}

/// The CUDA stream of `stream`.
inline cudaStream_t nativeStream(amp_stream_t *stream) {
  return static_cast<cudaStream_t>(amp_stream_native_handle(stream));
}

/// Runs kernel(i) for every i in [0, count) on `stream`, without waiting.
template <typename Kernel>
amp_status_t launch(amp_stream_t *stream, const char *name, int64_t count,
                    const Kernel &kernel) {
  if (count <= 0)
    return nullptr;
  if (amp_status_t status = checkCudaStream(stream))
    return status;
  const amprt::Grid grid = amprt::elementGrid(count);
  gridStride<<<static_cast<unsigned>(grid.blocks),
               static_cast<unsigned>(grid.threads), 0, nativeStream(stream)>>>(
      count, kernel);
  return launched(name);
}

/// Output i of a reduction cut into `slices` slices, whose results are in
/// `partials`: combined pairwise, as blockPerSlice combines a slice's
/// parts, and finished. The results are read from L2 (another SM wrote
/// them during this launch, and this one's L1 may hold the lines as they
/// were).
template <typename Kernel, typename Acc>
__device__ void finishOutput(const Kernel &kernel, int64_t i, int64_t slices,
                             const Acc *partials) {
  static_assert(std::is_arithmetic_v<Acc>, "__ldcg loads the partials");
  // amprt::kLoadsAhead results are loaded before any is combined, so that
  // the finish waits on L2 once for each of them rather than once a slice
  // (the cost report's finishAccesses); combinePairwise takes them in
  // order all the same.
  const Acc *results = partials + i * slices;
  Acc ahead[amprt::kLoadsAhead];
  kernel.finish(i, amprt::combinePairwise(
                       slices, kernel.identity(),
                       [&](int64_t k) {
                         const int64_t at = k % amprt::kLoadsAhead;
                         if (at == 0)
                           for (int64_t l = 0;
                                l < amprt::kLoadsAhead && k + l < slices; ++l)
                             ahead[l] = __ldcg(results + k + l);
                         return ahead[at];
                       },
                       [&](Acc a, Acc v) { return kernel.combine(a, v); }));
}

/// Whether the slice whose result this thread has just written to the
/// partials is the last of its output's `slices` to end: `counter` counts
/// the output's slices that ended, and the last returns it to zero for
/// the next launch (amp_stream_counters).
__device__ inline bool endsLast(unsigned *counter, int64_t slices) {
  __threadfence(); // the result is seen before the count
  if (atomicAdd(counter, 1u) != static_cast<unsigned>(slices - 1))
    return false;
  *counter = 0;
  __threadfence(); // the others' results are seen after it
  return true;
}

/// Slice s of output i of a reduction for each block i * slices + s
/// (blocks beyond the grid loop), in the order of amprt::foldReduction, as
/// the host folds it: each thread folds one part of `split`, thread 0
/// combines them. With one slice it finishes the output; with more it
/// leaves the slice's result in `partials`, and with `counters` the slice
/// that ends last finishes the output (finishOutput); without,
/// finishSlices does.
template <typename Kernel, typename Acc>
__global__ void blockPerSlice(int64_t count, int64_t extent,
                              amprt::ReductionSplit split, Kernel shared,
                              Acc *partials, unsigned *counters) {
  const Kernel kernel = prepared(shared);
  __shared__ Acc part[amprt::kBlockThreads];
  auto combine = [&](Acc a, Acc v) { return kernel.combine(a, v); };
  for (int64_t b = blockIdx.x; b < count * split.slices; b += gridDim.x) {
    const int64_t i = b / split.slices, slice = b % split.slices;
    const int64_t base = kernel.baseOf(i);
    const int64_t parts = amprt::partsOfSlice(split, slice, blockDim.x);
    if (threadIdx.x < parts) {
      const amprt::PartRange range =
          amprt::partOf(split, extent, slice * blockDim.x + threadIdx.x);
      part[threadIdx.x] = amprt::foldReduction(
          range.size, kernel.identity(),
          [&](int64_t r) { return kernel.loadAt(base, range.start + r); },
          combine);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const Acc acc = amprt::combinePairwise(
          parts, kernel.identity(), [&](int64_t k) { return part[k]; },
          combine);
      if (split.slices == 1) {
        kernel.finish(i, acc);
      } else {
        partials[b] = acc;
        if (counters && endsLast(counters + i, split.slices))
          finishOutput(kernel, i, split.slices, partials);
      }
    }
    __syncthreads(); // `part` is reused for the next slice
  }
}

/// Slice s of output i of a reduction for each thread s * count + i
/// (consecutive threads take consecutive outputs, so that a column
/// reduction reads coalesced): foldReduction over the slice's `span`
/// values, left in `partials`; with `counters` the slice that ends last
/// finishes the output (finishOutput), without, finishSlices does.
template <typename Kernel, typename Acc>
__global__ void threadPerSlice(int64_t count, int64_t extent,
                               amprt::ReductionSplit split, Kernel shared,
                               Acc *partials, unsigned *counters) {
  const Kernel kernel = prepared(shared);
  auto combine = [&](Acc a, Acc v) { return kernel.combine(a, v); };
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       t < count * split.slices;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = t % count, slice = t / count;
    const int64_t base = kernel.baseOf(i);
    const amprt::PartRange range = amprt::partOf(split, extent, slice);
    partials[i * split.slices + slice] = amprt::foldReduction(
        range.size, kernel.identity(),
        [&](int64_t r) { return kernel.loadAt(base, range.start + r); },
        combine);
    if (counters && endsLast(counters + i, split.slices))
      finishOutput(kernel, i, split.slices, partials);
  }
}

/// Every output of a reduction cut into slices, a thread each
/// (finishOutput): the second launch of a reduction of more outputs than
/// the stream has counters.
template <typename Kernel, typename Acc>
__global__ void finishSlices(int64_t count, int64_t slices, Kernel shared,
                             const Acc *partials) {
  const Kernel kernel = prepared(shared);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < count; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    finishOutput(kernel, i, slices, partials);
}

/// kernel(i, lane) for the rows i of [0, rows), a warp each: `lane` is this
/// thread's part of the row (amprt::WarpRow). Rows beyond the grid loop,
/// the whole warp together.
template <typename Kernel>
__global__ void warpPerRow(int64_t rows, Kernel shared) {
  const Kernel kernel = prepared(shared);
  const amprt::WarpRow lane{threadIdx.x % amprt::kRowLanes};
  const int64_t warps = blockDim.x / amprt::kRowLanes;
  for (int64_t i = blockIdx.x * warps + threadIdx.x / amprt::kRowLanes;
       i < rows; i += gridDim.x * warps)
    kernel(i, lane);
}

/// Runs the row kernel `kernel` for every row in [0, rows) on `stream`,
/// without waiting.
template <typename Kernel>
amp_status_t launchRows(amp_stream_t *stream, const char *name, int64_t rows,
                        const Kernel &kernel) {
  if (rows <= 0)
    return nullptr;
  if (amp_status_t status = checkCudaStream(stream))
    return status;
  const amprt::Grid grid = amprt::rowGrid(rows);
  warpPerRow<<<static_cast<unsigned>(grid.blocks),
               static_cast<unsigned>(grid.threads), 0, nativeStream(stream)>>>(
      rows, kernel);
  return launched(name);
}

/// Runs the reduction `kernel` for every output in [0, count), each
/// folding `extent` values, on `stream`, without waiting.
template <typename Kernel>
amp_status_t launchReduce(amp_stream_t *stream, const char *name, int64_t count,
                          int64_t extent, const Kernel &kernel) {
  if (count <= 0)
    return nullptr; // a grid of no blocks is an invalid launch
  // Few outputs, or long ones: slices of each output over more threads or
  // blocks, their results in the stream's workspace (launch_grid.h).
  using Acc = decltype(kernel.identity());
  const amprt::ReducePlan plan =
      amprt::planReduction(count, extent, AdjacentOutputs<Kernel>::value);
  amprt::ReductionSplit split = plan.split;
  Acc *partials = nullptr;
  if (split.slices > 1) {
    size_t workspaceBytes = 0;
    partials =
        static_cast<Acc *>(amp_stream_workspace(stream, &workspaceBytes));
    if (!partials || static_cast<size_t>(count * split.slices) * sizeof(Acc) >
                         workspaceBytes)
      split = amprt::splitReduction(extent, 1, plan.threads);
  }
  if (plan.threads == 1 && split.slices <= 1)
    return launch(stream, name, count, kernel); // operator() folds it all
  if (amp_status_t status = checkCudaStream(stream))
    return status;
  // The slice of an output that ends last finishes it, where the stream
  // has a counter for each output (plan.launches says which).
  unsigned *counters = split.slices > 1 && plan.launches == 1
                           ? amp_stream_counters(stream)
                           : nullptr;
  if (plan.threads == 1) {
    const amprt::Grid grid = amprt::elementGrid(count * split.slices);
    threadPerSlice<<<static_cast<unsigned>(grid.blocks),
                     static_cast<unsigned>(grid.threads), 0,
                     nativeStream(stream)>>>(count, extent, split, kernel,
                                             partials, counters);
  } else {
    blockPerSlice<<<static_cast<unsigned>(count * split.slices),
                    static_cast<unsigned>(amprt::kBlockThreads), 0,
                    nativeStream(stream)>>>(count, extent, split, kernel,
                                            partials, counters);
  }
  if (split.slices > 1 && !counters) {
    const amprt::Grid grid = amprt::elementGrid(count);
    finishSlices<<<static_cast<unsigned>(grid.blocks),
                   static_cast<unsigned>(grid.threads), 0,
                   nativeStream(stream)>>>(count, split.slices, kernel,
                                           partials);
  }
  return launched(name);
}
#else
// On the host, a launch's indices are split over the runtime's threads
// (amp_host_parallel_for): each index writes only its own outputs, as a
// CUDA thread does, so the split changes no bit. A thread takes at least
// a grain of indices, so that small launches stay on the calling thread.
constexpr int64_t kElementGrain = 16384; // elements: ~10 us of work
constexpr int64_t kRowGrain = 8;         // rows

/// Runs the prepared `kernel` over [0, count) on the host's threads, a
/// range of indices at a time: `range(kernel, begin, end)`. A build that
/// counts accesses runs the launch `name` as one range, on this thread,
/// and logs it.
template <typename Kernel, typename Range>
amp_status_t runRangesOnHost(amp_stream_t *stream, const char *name,
                             int64_t count, int64_t grain, const Kernel &kernel,
                             Range range) {
  if (amp_stream_device_kind(stream) != AMP_DEVICE_HOST)
    return amp_status_make(AMP_INVALID_ARGUMENT, __FILE__, __LINE__,
                           "a host step runs only on a host stream");
#if defined(AMP_STEP_COUNT_ACCESSES)
  grain = count > 1 ? count : 1; // one range
#endif
  struct Work {
    const Kernel ready;
    Range range;
  } work{prepared(kernel), range};
  amp_status_t status = amp_host_parallel_for(
      count, grain,
      [](void *context, int64_t begin, int64_t end) {
        const Work &w = *static_cast<const Work *>(context);
        w.range(w.ready, begin, end);
      },
      &work);
#if defined(AMP_STEP_COUNT_ACCESSES)
  AccessCount::get().finish(name);
#else
  (void)name;
#endif
  return status;
}

/// Runs the prepared `kernel` for every index in [0, count), each range of
/// indices in order, on the host's threads; `each(kernel, i)` runs one.
template <typename Kernel, typename Each>
amp_status_t runOnHost(amp_stream_t *stream, const char *name, int64_t count,
                       int64_t grain, const Kernel &kernel, Each each) {
  return runRangesOnHost(stream, name, count, grain, kernel,
                         [each](const Kernel &k, int64_t begin, int64_t end) {
                           for (int64_t i = begin; i < end; ++i)
                             each(k, i);
                         });
}

/// The accumulators of kReduceLanes outputs of a reduction, folded side by
/// side.
constexpr int kReduceLanes = 16;
template <typename Acc> struct ReduceLanes {
  Acc lane[kReduceLanes];
};

/// Outputs [begin, end) of the reduction `k`, each folding `extent` values:
/// kReduceLanes outputs at a time, each lane in foldReduction's order (the
/// bits of operator()), so that the outputs' chains of additions overlap
/// instead of each waiting on its last addition, and adjacent outputs'
/// values (adjacent in memory where the outputs are) load as one vector.
template <typename Kernel>
void foldOutputs(const Kernel &k, int64_t begin, int64_t end, int64_t extent) {
  using Acc = decltype(k.identity());
  using Lanes = ReduceLanes<Acc>;
  int64_t i = begin;
  for (; i + kReduceLanes <= end; i += kReduceLanes) {
    Lanes identity;
    int64_t bases[kReduceLanes];
    bool adjacent = true;
    for (int l = 0; l < kReduceLanes; ++l) {
      identity.lane[l] = k.identity();
      bases[l] = k.baseOf(i + l);
      adjacent = adjacent && bases[l] == bases[0] + l;
    }
    const auto combine = [&](Lanes a, const Lanes &v) {
      for (int l = 0; l < kReduceLanes; ++l)
        a.lane[l] = k.combine(a.lane[l], v.lane[l]);
      return a;
    };
    Lanes sums;
    if (adjacent) {
      const int64_t base = bases[0];
      sums = amprt::foldReduction(
          extent, identity,
          [&](int64_t r) {
            Lanes v;
            for (int l = 0; l < kReduceLanes; ++l)
              v.lane[l] = k.loadAt(base + l, r);
            return v;
          },
          combine);
    } else {
      sums = amprt::foldReduction(
          extent, identity,
          [&](int64_t r) {
            Lanes v;
            for (int l = 0; l < kReduceLanes; ++l)
              v.lane[l] = k.loadAt(bases[l], r);
            return v;
          },
          combine);
    }
    for (int l = 0; l < kReduceLanes; ++l)
      k.finish(i + l, sums.lane[l]);
  }
  for (; i < end; ++i)
    k(i);
}

/// Runs kernel(i) for every i in [0, count).
template <typename Kernel>
amp_status_t launch(amp_stream_t *stream, const char *name, int64_t count,
                    const Kernel &kernel) {
  return runOnHost(stream, name, count, kElementGrain, kernel,
                   [](const Kernel &k, int64_t i) { k(i); });
}

/// Runs the reduction `kernel` for every output in [0, count), each
/// folding its `extent` values in order (operator()'s bits; foldOutputs).
template <typename Kernel>
amp_status_t launchReduce(amp_stream_t *stream, const char *name, int64_t count,
                          int64_t extent, const Kernel &kernel) {
  int64_t grain = kElementGrain / (extent > 1 ? extent : 1);
  return runRangesOnHost(stream, name, count, grain, kernel,
                         [extent](const Kernel &k, int64_t begin, int64_t end) {
                           foldOutputs(k, begin, end, extent);
                         });
}

/// Runs the row kernel `kernel` for every row in [0, rows), each with the
/// warp's lanes emulated (amprt::HostRow).
template <typename Kernel>
amp_status_t launchRows(amp_stream_t *stream, const char *name, int64_t rows,
                        const Kernel &kernel) {
  return runOnHost(stream, name, rows, kRowGrain, kernel,
                   [](const Kernel &k, int64_t i) { k(i, amprt::HostRow()); });
}
#endif

/// to[i] = from[i].
template <typename T> struct Copy {
  In<T> from;
  Out<T> to;
  AMP_HOST_DEVICE void operator()(int64_t i) const { to[i] = from[i]; }
};
template <typename T> Copy(const T *, T *) -> Copy<T>;

/// amp.replica_shard: to[i] = from[begin + i], 0 past from's `count`
/// elements (begin: the replica's rank times the part's size).
template <typename T> struct Shard {
  In<T> from;
  Out<T> to;
  int64_t count, begin;
  AMP_HOST_DEVICE void operator()(int64_t i) const {
    to[i] = begin + i < count ? from[begin + i] : T(0.0f);
  }
};
template <typename T> Shard(const T *, T *, int64_t, int64_t) -> Shard<T>;

/// to[i] = value.
struct Fill {
  Out<float> to;
  float value;
  AMP_HOST_DEVICE void operator()(int64_t i) const { to[i] = value; }
};

/// The step's last kernel: the loss and found_inf (0 without loss
/// scaling) to where the runtime reads them, and the counters of steps run
/// and skipped.
struct Results {
  In<float> loss;
  In<float> foundInf; // null without loss scaling
  Out<float> lossOut, foundInfOut;
  Out<double> counters;
  AMP_HOST_DEVICE void operator()(int64_t) const {
    float found = foundInf ? foundInf[0] : 0.0f;
    lossOut[0] = loss[0];
    foundInfOut[0] = found;
    counters[0] = counters[0] + 1;
    counters[1] = counters[1] + (found != 0.0f ? 1 : 0);
  }
};

// A dense constant of the model is an array in the library's read-only
// data, declared AMP_STEP_DATA: in device memory under nvcc, where a
// kernel reads it through the address constantData gives at the launch.
#if defined(__CUDACC__)
#define AMP_STEP_DATA __device__
template <typename T, size_t N> const T *constantData(const T (&symbol)[N]) {
  void *address = nullptr;
  if (cudaGetSymbolAddress(&address, symbol) != cudaSuccess)
    return nullptr; // the launch then fails on the null pointer
  return static_cast<const T *>(address);
}
#else
#define AMP_STEP_DATA
template <typename T, size_t N> const T *constantData(const T (&symbol)[N]) {
  return symbol;
}
#endif

} // namespace ampstep

/// Returns from the step when a runtime call or launch fails.
#define AMP_STEP_CHECK(expr)                                                   \
  do {                                                                         \
    if (amp_status_t amp_step_status_ = (expr))                                \
      return amp_step_status_;                                                 \
  } while (0)

#endif // AMP_RUNTIME_STEP_KERNELS_H
