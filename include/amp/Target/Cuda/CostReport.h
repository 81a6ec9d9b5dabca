//===- CostReport.h - what a compiled step costs on a GPU -------*- C++ -*-===//
//
// The cost report of a compiled step, the instrument that stands in for a
// GPU: for every launch the CUDA target printed, what it computes (FLOPs,
// transcendentals), what it moves (bytes read and written at its
// boundary), and its grid, as XLA's HloCostAnalysis counts per fused
// computation. A model calibrated on published measurements of real GPUs
// turns the counts into a modeled time on a named GPU: GEMMs by a tile and
// wave model of cuBLASLt capped at what cuBLAS is measured to reach, fused
// attention at FlashAttention/cuDNN's measured efficiency, memory at the
// bandwidth streaming kernels reach, software math by its instructions,
// grids too small to fill the GPU or to hide its latency charged for it;
// each kernel's time the largest of its memory, compute and issue terms,
// named as its bound, plus a launch's overhead (CUDA-graph replay or
// eager). docs/backend.md says how each kind of kernel is counted and
// where each figure comes from.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_CUDA_COSTREPORT_H
#define AMP_TARGET_CUDA_COSTREPORT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::amp {

/// One launch of the step (or a run of identical ones), as printed.
struct KernelCost {
  /// The launch's name in the step (`k3_cross_entropy`, `k2_matmul`).
  std::string name;
  /// How it runs: elementwise, reduce-thread, reduce-block, rows, gemm,
  /// attention, multi-tensor, copy, fill, scalar.
  std::string strategy;
  /// The launches it stands for, alike in grid (a GEMM per batch entry, a
  /// multi-tensor launch per chunk of tensors); the counts below are all
  /// of theirs together.
  int64_t launches = 1;
  /// The grid of each launch (of the largest, for multi-tensor launches);
  /// 0 blocks where a library chooses (cuBLASLt).
  int64_t blocks = 0;
  int64_t threads = 0;
  /// Floating-point operations (a multiply-add is two) and
  /// transcendental functions (exp, log, tanh, sqrt, ...), all launches.
  int64_t flops = 0;
  int64_t transcendentals = 0;
  /// Whether the FLOPs run on tensor cores (f16/bf16 GEMMs and attention),
  /// and whether those are FP8 ones (an FP8 GEMM: twice the rate).
  bool tensorCore = false;
  bool fp8 = false;
  /// Bytes at the kernel's boundary, all launches: each tensor it reads
  /// or writes counted once per launch, as if caches held it.
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  /// The functor a launch of ampstep's templates runs (another kernel's,
  /// where they share code; ampstep::Copy for a copy); empty for a library
  /// or runtime call. A GPU profiler names the kernels by it.
  std::string functor = {};
  /// The threads that work, where fewer than the grid's (one for a serial
  /// phase); 0: all of them.
  int64_t workers = 0;
  /// Memory accesses that wait on one another in a serial phase (a load
  /// whose address a previous load gave), each paying the memory's latency.
  int64_t serialAccesses = 0;
  /// L2 round trips that follow a launch's stream where a reduction's
  /// slice finishes its output (the counter's atomic, then the slices'
  /// results amprt::kLoadsAhead at a time), all launches.
  int64_t finishAccesses = 0;
  /// The bytes a thread has in flight, where its code loads several
  /// values before it uses them (a reduction's fold, amprt::kLoadsAhead of
  /// them); 0: the usual few, kBytesInFlightPerThread.
  int64_t bytesInFlight = 0;
  /// A GEMM's shape: `count` products of [m, k] x [k, n], all launches.
  struct Gemm {
    int64_t m = 0, n = 0, k = 0, count = 1;
  };
  std::optional<Gemm> gemm = std::nullopt;
  /// A fused attention's shape: `rows` (batch x heads) of `queries` and
  /// `keys` of `headDim`, forward or backward.
  struct Attention {
    int64_t rows = 0, queries = 0, keys = 0, headDim = 0;
    bool causal = false, backward = false;
  };
  std::optional<Attention> attention = std::nullopt;
  /// The documented precondition of the library's fast path this call
  /// does not meet, which makes it run on a slower one (charged as such,
  /// warned of at compile time); empty where it meets them.
  std::string precondition = {};
};

/// The launches of one of the step's kernels (a fusion group, or an op by
/// itself) and the least its ops need, counted from the IR rather than
/// from the code printed for them: the bytes of the tensors they read from
/// outside the kernel and of the results others read, each once (a gather
/// only the elements it copies); and, where every op has a count (the
/// elementwise ops' per-element costs, contractions, reductions,
/// normalisations and losses), their FLOPs and transcendentals.
struct KernelMinimum {
  std::string name;
  /// The kind of kernel (#amp.kernel: loop, gemm, rows, ...).
  std::string kind;
  size_t firstLaunch = 0, launchCount = 0; ///< in StepCost::kernels
  int64_t bytes = 0;
  std::optional<int64_t> flops;
};

/// The launches of one step, in order, the minimum of each kernel, and the
/// bytes of the tensors its non-GEMM kernels touch, each counted once (the
/// ideal's memory traffic).
struct StepCost {
  std::string name;
  SmallVector<KernelCost, 0> kernels;
  SmallVector<KernelMinimum> minimums;
  int64_t idealBytes = 0;
};

/// How many times its minimum a kernel's launches move (bytes) or compute
/// (FLOPs and transcendentals, where the minimum has them), the larger;
/// 1 where the minimum is 0.
double getExcess(const StepCost &step, const KernelMinimum &minimum);

/// A GPU's figures: the data sheet's and the measured ones the model is
/// calibrated on (docs/backend.md cites each).
struct GpuSpec {
  StringRef key;         ///< as --cost-gpu names it: h100, h200
  StringRef name;        ///< H100 SXM5, H200 SXM
  double tensorFlops;    ///< dense f16/bf16 with f32 accumulate, FLOP/s
  double fp8TensorFlops; ///< dense FP8 (e4m3/e5m2), f32 accumulate, FLOP/s
  double vectorFlops;    ///< f32 without tensor cores (FMAs), FLOP/s
  /// Special-function results (exp2, log2, rcp, rsqrt, sin, cos) per
  /// second: 16 per clock per SM (the CUDA C++ Programming Guide's
  /// throughput table for compute capability 9.0) at the clock of the
  /// tensor peak (4096 dense FLOPs per clock per SM).
  double specialFunctions;
  double bandwidth; ///< HBM, bytes/s, from the data sheet
  int64_t sms;
  /// Measured: the bandwidth a streaming kernel reaches, bytes/s.
  double achievedBandwidth;
  /// Measured: the largest share of tensorFlops cuBLAS reaches (a large
  /// square GEMM at sustained clocks).
  double gemmEfficiency;
};

/// The GPUs the report models (docs/backend.md cites the data sheets).
ArrayRef<GpuSpec> getGpuSpecs();
/// The spec named `key`, or null.
const GpuSpec *lookupGpuSpec(StringRef key);

/// What a launch costs besides its kernel's run: a kernel node of a
/// replayed CUDA graph, and a launch from the host without one (cuBLASLt
/// and cuDNN's host work included): measured figures, docs/backend.md.
constexpr double kGraphLaunchSeconds = 2e-6;
constexpr double kEagerLaunchSeconds = 5e-6;

/// The share of its rate a GEMM keeps whose leading dimensions are not in
/// multiples of 16 bytes (off cuBLASLt's TMA kernels on Hopper): a SwiGLU
/// MLP measured on an H100 at d_ff 10922 against 10944 (docs/backend.md).
constexpr double kUnalignedGemmShare = 0.68;

/// The thread instructions software math takes per transcendental (exp,
/// log, tanh, erf as scalar_math.h computes them without the special-
/// function units' approximations): amprt::math::exp's count in the PTX
/// nvcc emits for sm_90, which ptx-math.test holds it to.
constexpr int64_t kSoftwareMathInstructions = 41;

/// The bytes a row kernel (a warp a row, row_math.h) reads again from
/// memory: each of its `passes` over a row after the first re-reads the
/// row's `rowBytes` from HBM where neither an SM's L1 holds its resident
/// rows (up to 64 warps, a row each, in 256 KB) nor the L2 holds all the
/// GPU's (50 MB on H100 and H200), as a cross-entropy's 100 KB rows of
/// logits; 0 where the caches hold them (a layer norm's 3 KB rows).
int64_t getRowRereadBytes(int64_t rows, int64_t rowBytes, int64_t passes);

/// What bounds a kernel's modeled time.
enum class Bound { Memory, TensorCores, SpecialFunctions, Issue, Latency };
StringRef getBoundName(Bound bound);

/// A kernel's modeled time on a GPU, without the launch overhead, and its
/// terms: the bytes at the bandwidth its grid can draw, the tensor-core or
/// special-function work at the rate its shape reaches, the instructions
/// its threads issue, a serial phase's latencies. `seconds` is the
/// largest; `bound` names it.
struct KernelTime {
  double seconds = 0;
  double memory = 0, compute = 0, issue = 0, latency = 0;
  Bound bound = Bound::Memory;
};
KernelTime modelKernel(const KernelCost &kernel, const GpuSpec &gpu);

/// cuBLASLt's time for `gemm` on tensor cores (the tile and wave model,
/// docs/backend.md), without its memory term.
double getGemmSeconds(const KernelCost::Gemm &gemm, const GpuSpec &gpu);
/// The share of the tensor peak a fused attention of `attention`'s head
/// dim and length runs at (published FlashAttention/cuDNN measurements).
double getAttentionEfficiency(const KernelCost::Attention &attention);

/// The step on `gpu`: the modeled time replayed as a CUDA graph and
/// launched eagerly, the ideal (tensor-core FLOPs at cuBLAS's measured
/// best plus the ideal bytes at the achieved bandwidth), and the modeled
/// model-FLOPs utilization (tensor-core FLOPs over the graph's time times
/// the data sheet's peak).
struct StepEstimate {
  double seconds = 0;
  double eagerSeconds = 0;
  double idealSeconds = 0;
  double mfu = 0;
};
StepEstimate estimateStep(const StepCost &step, const GpuSpec &gpu);

/// The report as JSON: the kernels with their counts and, per GPU, their
/// modeled times and bounds, and the totals.
llvm::json::Value costReportToJson(const StepCost &step);

/// The report as a table of the kernels on `gpu` (the costliest first, at
/// most `rows` of them; 0 for all) and its totals.
void printCostTable(const StepCost &step, const GpuSpec &gpu,
                    llvm::raw_ostream &os, size_t rows = 0);

} // namespace mlir::amp

#endif // AMP_TARGET_CUDA_COSTREPORT_H
