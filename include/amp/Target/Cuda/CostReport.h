//===- CostReport.h - what a compiled step costs on a GPU -------*- C++ -*-===//
//
// The cost report of a compiled step, the instrument that stands in for a
// GPU: for every launch the CUDA target printed, what it computes (FLOPs,
// transcendentals), what it moves (bytes read and written at its
// boundary), and its grid, as XLA's HloCostAnalysis counts per fused
// computation. A roofline, max(FLOPs / peak, bytes / bandwidth) per launch
// plus a launch overhead, turns the counts into a modeled time on a named
// GPU from its data sheet. docs/backend.md says how each kind of kernel is
// counted.
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
  /// Whether the FLOPs run on tensor cores (f16/bf16 GEMMs and attention).
  bool tensorCore = false;
  /// Bytes at the kernel's boundary, all launches: each tensor it reads
  /// or writes counted once per launch, as if caches held it.
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  /// The functor a launch of ampstep's templates runs (another kernel's,
  /// where they share code; ampstep::Copy for a copy); empty for a library
  /// or runtime call. A GPU profiler names the kernels by it.
  std::string functor = {};
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
  SmallVector<KernelCost> kernels;
  SmallVector<KernelMinimum> minimums;
  int64_t idealBytes = 0;
};

/// How many times its minimum a kernel's launches move (bytes) or compute
/// (FLOPs and transcendentals, where the minimum has them), the larger;
/// 1 where the minimum is 0.
double getExcess(const StepCost &step, const KernelMinimum &minimum);

/// A GPU's figures from NVIDIA's data sheets.
struct GpuSpec {
  StringRef key;      ///< as --cost-gpu names it: h100, h200
  StringRef name;     ///< H100 SXM5, H200 SXM
  double tensorFlops; ///< dense f16/bf16 with f32 accumulate, FLOP/s
  double vectorFlops; ///< f32 without tensor cores, FLOP/s
  /// Special-function results (exp2, log2, rcp, rsqrt, sin, cos) per
  /// second: 16 per clock per SM (the CUDA C++ Programming Guide's
  /// throughput table for compute capability 9.0) at the clock of the
  /// tensor peak (4096 dense FLOPs per clock per SM).
  double specialFunctions;
  double bandwidth; ///< HBM, bytes/s
  int64_t sms;
};

/// The GPUs the report models (docs/backend.md cites the data sheets).
ArrayRef<GpuSpec> getGpuSpecs();
/// The spec named `key`, or null.
const GpuSpec *lookupGpuSpec(StringRef key);

/// The overhead the model adds per launch, in seconds: an assumption (a
/// kernel node of a CUDA graph), not a data-sheet figure.
constexpr double kLaunchOverheadSeconds = 2e-6;

/// max(compute, bytes / bandwidth) for `kernel` on `gpu`, without the
/// launch overhead. A tensor-core kernel's compute is the longer of its
/// FLOPs at the tensor cores' peak and its transcendentals on the
/// special-function units, which run beside them (a fused attention's
/// exps); another kernel's is its FLOPs and transcendentals together at
/// the f32 units' peak. A grid of fewer blocks than the GPU has SMs gets
/// that share of the peaks.
double getRooflineSeconds(const KernelCost &kernel, const GpuSpec &gpu);

/// The step on `gpu`: the modeled time (rooflines plus launch overheads),
/// the ideal (tensor-core FLOPs at peak plus the ideal bytes at full
/// bandwidth), and the modeled model-FLOPs utilization (tensor-core FLOPs
/// over modeled time times peak).
struct StepEstimate {
  double seconds = 0;
  double idealSeconds = 0;
  double mfu = 0;
};
StepEstimate estimateStep(const StepCost &step, const GpuSpec &gpu);

/// The report as JSON: the kernels with their counts and, per GPU, their
/// modeled times, and the totals.
llvm::json::Value costReportToJson(const StepCost &step);

/// The report as a table of the kernels on `gpu` (the costliest first, at
/// most `rows` of them; 0 for all) and its totals.
void printCostTable(const StepCost &step, const GpuSpec &gpu,
                    llvm::raw_ostream &os, size_t rows = 0);

} // namespace mlir::amp

#endif // AMP_TARGET_CUDA_COSTREPORT_H
