//===- CostReport.cpp - the roofline of a compiled step -------------------===//

#include "amp/Target/Cuda/CostReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::amp;

/// Calibration (docs/backend.md, "Calibration", cites each measurement):
/// the share of the tensor peak cuBLAS's best bf16 GEMMs reach at
/// sustained clocks (794.5 TFLOP/s of 989.4 at the best shape searched).
static constexpr double kGemmEfficiency = 0.80;
/// An SM holds at most 64 warps; a streaming kernel needs about half of
/// them resident to keep enough loads in flight (Little's law: ~0.6 us of
/// loaded latency at 23 GB/s an SM is ~14 KB, a few 16-byte loads a
/// thread), and eight (two for each of its four schedulers, whose
/// instructions wait on the one before) to issue every clock.
static constexpr int64_t kMaxWarpsPerSm = 64;
static constexpr double kWarpsToDrawBandwidth = 32;
static constexpr double kWarpsToIssue = 8;
/// The bytes in flight a thread of those 32 warps is taken to have: 14 KB
/// over 1024 threads. A kernel whose threads each load more before they
/// use any (KernelCost::bytesInFlight) needs as many fewer warps.
static constexpr double kBytesInFlightPerThread = 14;
/// A library kernel's ramp and drain, beyond its launch.
static constexpr double kLibraryRampSeconds = 3e-6;
/// A dependent access of a serial phase: about 100 cycles at 1.755 GHz,
/// between an L1 hit (~35) and an L2 hit (~260) on Hopper.
static constexpr double kSerialAccessSeconds = 57e-9;
/// A load that another SM's store must reach first (__ldcg, an atomic):
/// an L2 round trip, about 260 cycles at 1.755 GHz on Hopper.
static constexpr double kL2AccessSeconds = 148e-9;

ArrayRef<GpuSpec> amp::getGpuSpecs() {
  // NVIDIA H100 Tensor Core GPU data sheet (SXM5) and H200 data sheet
  // (SXM): 989.4 dense bf16/f16 TFLOP/s (half the sparse 1,979), 67 f32
  // TFLOP/s, 3.35 and 4.8 TB/s, 132 SMs each. The special-function rate is
  // 16 a clock per SM at the tensor peak's clock, 989.4e12 / (132 * 4096)
  // = 1.83 GHz: 989.4e12 / 256 = 3.865e12 a second. Measured (the sources
  // in docs/backend.md): streaming kernels reach 2.95 of the H100's 3.35
  // TB/s and 4.08 of the H200's 4.8 (BabelStream's copy and triad), and
  // cuBLAS's best bf16 GEMMs kGemmEfficiency of the tensor peak. Dense FP8
  // is twice bf16's, 1,978.9 TFLOP/s on both (half the sparse 3,958), and
  // cuBLASLt's FP8 GEMMs are measured at about the same share of it
  // (docs/backend.md): the same calibration serves both.
  constexpr double kSpecialFunctions = 989.4e12 / 256;
  static const GpuSpec specs[] = {
      {"h100", "H100 SXM5", 989.4e12, 1978.9e12, 67e12, kSpecialFunctions,
       3.35e12, 132, 2.95e12, kGemmEfficiency},
      {"h200", "H200 SXM", 989.4e12, 1978.9e12, 67e12, kSpecialFunctions,
       4.8e12, 132, 4.08e12, kGemmEfficiency},
  };
  return specs;
}

const GpuSpec *amp::lookupGpuSpec(StringRef key) {
  for (const GpuSpec &spec : getGpuSpecs())
    if (spec.key == key)
      return &spec;
  return nullptr;
}

StringRef amp::getBoundName(Bound bound) {
  switch (bound) {
  case Bound::Memory:
    return "memory";
  case Bound::TensorCores:
    return "tensor cores";
  case Bound::SpecialFunctions:
    return "special functions";
  case Bound::Issue:
    return "issue";
  case Bound::Latency:
    return "latency";
  }
  llvm_unreachable("a bound");
}

namespace {
/// A CTA tile cuBLASLt's Hopper kernels use, and the share of the
/// calibrated peak a wave of them sustains: the 128x256 and 256x128 tiles
/// of two consumer warpgroups reach it, smaller tiles less (fewer FLOPs
/// per byte staged through shared memory, the same fixed costs).
struct GemmTile {
  int64_t m, n;
  double share;
};
constexpr GemmTile kGemmTiles[] = {{128, 256, 1.0},  {256, 128, 1.0},
                                   {128, 128, 0.85}, {128, 64, 0.6},
                                   {64, 128, 0.6},   {64, 64, 0.35}};
/// A tile's fixed cost (its pipeline's fill and drain, the epilogue), as
/// the K depth of as many multiply-adds.
constexpr int64_t kTileOverheadK = 128;
/// The least K a split of the reduction dimension (split-K, stream-K) is
/// given: thinner slices cost more in partial sums than they gain.
constexpr int64_t kMinSliceK = 512;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
} // namespace

/// The time of `gemm` on `gpu` at a peak of `peak` FLOP/s (its
/// calibrated share of it), the partial sums of a split K at the achieved
/// bandwidth.
static double gemmSeconds(const KernelCost::Gemm &gemm, double peak,
                          const GpuSpec &gpu) {
  if (gemm.m <= 0 || gemm.n <= 0 || gemm.k <= 0 || gemm.count <= 0)
    return 0;
  double perSm = peak * gpu.gemmEfficiency / static_cast<double>(gpu.sms);
  double best = std::numeric_limits<double>::infinity();
  for (const GemmTile &tile : kGemmTiles) {
    int64_t tiles =
        ceilDiv(gemm.m, tile.m) * ceilDiv(gemm.n, tile.n) * gemm.count;
    double flopsPerDepth = 2.0 * tile.m * tile.n / (perSm * tile.share);
    // Waves of a tile each SM.
    double seconds = static_cast<double>(ceilDiv(tiles, gpu.sms)) *
                     static_cast<double>(gemm.k + kTileOverheadK) *
                     flopsPerDepth;
    if (tiles < gpu.sms) {
      // Too few tiles for the SMs: stream-K deals the tiles' K among
      // them evenly, each SM's share at least kMinSliceK deep and over
      // at most two tiles, each paying a tile's fixed cost; the tiles
      // that SMs share combine their f32 partials, written and read back.
      int64_t workers =
          std::clamp<int64_t>(tiles * gemm.k / kMinSliceK, 1, gpu.sms);
      double depth = static_cast<double>(tiles) * static_cast<double>(gemm.k) /
                         static_cast<double>(workers) +
                     2.0 * kTileOverheadK;
      double streamK = depth * flopsPerDepth;
      if (workers > tiles)
        streamK += 2.0 * 4 * tile.m * tile.n * static_cast<double>(workers) /
                   gpu.achievedBandwidth;
      seconds = std::min(seconds, streamK);
    }
    best = std::min(best, seconds);
  }
  return best;
}

double amp::getGemmSeconds(const KernelCost::Gemm &gemm, const GpuSpec &gpu) {
  return gemmSeconds(gemm, gpu.tensorFlops, gpu);
}

double amp::getAttentionEfficiency(const KernelCost::Attention &attention) {
  // cuDNN's fused attention measured on an H100 SXM5 in bf16 (the
  // FlashAttention-3 paper, figures 5 and 6: 16k tokens a batch, hidden
  // 2048), TFLOP/s over 989.4, at 512, 1k, 2k, 4k, 8k and 16k tokens, for
  // head dims 64 and 128, forward and backward, without and with a causal
  // mask. The paper measures no causal backward: it is the non-causal
  // backward times the causal forward's ratio to the non-causal forward at
  // the same length (docs/backend.md, "Calibration").
  static const double kShares[2][2][2][6] = {
      // head dim 64: forward, backward
      {{{0.339, 0.377, 0.399, 0.412, 0.416, 0.417},
        {0.227, 0.291, 0.338, 0.367, 0.383, 0.392}},
       {{0.269, 0.352, 0.399, 0.421, 0.437, 0.438},
        {0.181, 0.272, 0.338, 0.375, 0.402, 0.411}}},
      // head dim 128
      {{{0.502, 0.580, 0.624, 0.616, 0.606, 0.601},
        {0.318, 0.414, 0.489, 0.524, 0.535, 0.545}},
       {{0.308, 0.412, 0.470, 0.504, 0.524, 0.522},
        {0.195, 0.294, 0.368, 0.429, 0.462, 0.473}}},
  };
  auto along = [&](const double(&row)[6]) {
    double at =
        std::log2(static_cast<double>(std::max<int64_t>(attention.keys, 1))) -
        9; // 512 is 0
    if (at <= 0)
      return row[0] * std::max(0.25, std::pow(2.0, at)); // shorter: less
    if (at >= 5)
      return row[5];
    int i = static_cast<int>(at);
    double t = at - i;
    return row[i] * (1 - t) + row[i + 1] * t;
  };
  auto forDim = [&](int d) {
    return along(kShares[d][attention.backward][attention.causal]);
  };
  double d = static_cast<double>(attention.headDim);
  if (d <= 64)
    return forDim(0) * d / 64; // half the work per byte staged: half the rate
  if (d >= 128)
    return forDim(1);
  double t = (d - 64) / 64;
  return forDim(0) * (1 - t) + forDim(1) * t;
}

int64_t amp::getRowRereadBytes(int64_t rows, int64_t rowBytes, int64_t passes) {
  // Hopper's caches (the H100 and H200 data sheets and tuning guide): an
  // SM's L1 and shared memory together, and the L2.
  constexpr int64_t kL1Bytes = 256 * 1024;
  constexpr int64_t kL2Bytes = 50 * 1024 * 1024;
  constexpr int64_t kSms = 132;
  if (rows <= 0 || rowBytes <= 0 || passes <= 1)
    return 0;
  const int64_t perSm =
      std::min<int64_t>(kMaxWarpsPerSm, ceilDiv(rows, kSms)) * rowBytes;
  const int64_t resident = std::min(rows, kMaxWarpsPerSm * kSms) * rowBytes;
  if (perSm <= kL1Bytes || resident <= kL2Bytes)
    return 0;
  return (passes - 1) * rows * rowBytes;
}

KernelTime amp::modelKernel(const KernelCost &kernel, const GpuSpec &gpu) {
  KernelTime time;
  double bytes = static_cast<double>(kernel.bytesRead + kernel.bytesWritten);
  double flops = static_cast<double>(kernel.flops);
  double special = static_cast<double>(kernel.transcendentals);
  if (kernel.blocks == 0) {
    // A library's call: its grid is taken to fill the GPU.
    time.memory = bytes / gpu.achievedBandwidth;
    double peak = kernel.fp8          ? gpu.fp8TensorFlops
                  : kernel.tensorCore ? gpu.tensorFlops
                                      : gpu.vectorFlops;
    if (kernel.gemm) {
      double share = kernel.precondition.empty() ? 1.0 : kUnalignedGemmShare;
      time.compute =
          1 / share * static_cast<double>(kernel.launches) *
          gemmSeconds(
              {kernel.gemm->m, kernel.gemm->n, kernel.gemm->k,
               std::max<int64_t>(1, kernel.gemm->count /
                                        std::max<int64_t>(1, kernel.launches))},
              peak, gpu);
    } else if (kernel.attention && kernel.tensorCore) {
      time.compute =
          flops / (gpu.tensorFlops * getAttentionEfficiency(*kernel.attention));
    } else {
      time.compute = flops / (peak * gpu.gemmEfficiency);
    }
    time.bound = kernel.tensorCore ? Bound::TensorCores : Bound::Issue;
    if (kernel.tensorCore && special / gpu.specialFunctions > time.compute) {
      time.compute = special / gpu.specialFunctions;
      time.bound = Bound::SpecialFunctions;
    }
  } else {
    // The runtime's or the step's own kernels. A grid of fewer blocks than
    // SMs leaves the rest idle; too few warps on an SM cannot keep enough
    // loads in flight to draw its share of the bandwidth, nor issue every
    // clock.
    double activeSms =
        static_cast<double>(std::min<int64_t>(kernel.blocks, gpu.sms));
    double smShare = activeSms / static_cast<double>(gpu.sms);
    double workers = static_cast<double>(
        kernel.workers ? kernel.workers : kernel.blocks * kernel.threads);
    double warpsPerSm = std::min(static_cast<double>(kMaxWarpsPerSm),
                                 std::max(1.0, std::ceil(workers / 32)) /
                                     std::max(activeSms, 1.0));
    double warpsToDraw = kWarpsToDrawBandwidth;
    if (kernel.bytesInFlight > kBytesInFlightPerThread)
      warpsToDraw *=
          kBytesInFlightPerThread / static_cast<double>(kernel.bytesInFlight);
    double memoryShare = smShare * std::min(1.0, warpsPerSm / warpsToDraw);
    double issueShare = smShare * std::min(1.0, warpsPerSm / kWarpsToIssue);
    time.memory = bytes / (gpu.achievedBandwidth * memoryShare);
    double instructions =
        kernel.tensorCore
            ? 0
            : flops + special * static_cast<double>(kSoftwareMathInstructions);
    // One instruction a lane a clock: half the FMA peak.
    time.issue = instructions / (gpu.vectorFlops / 2 * issueShare);
    if (kernel.tensorCore)
      time.compute =
          std::max(flops / (gpu.tensorFlops * gpu.gemmEfficiency * issueShare),
                   special / (gpu.specialFunctions * issueShare));
  }
  time.latency =
      static_cast<double>(kernel.serialAccesses) * kSerialAccessSeconds;
  time.seconds = time.memory;
  auto take = [&](double seconds, Bound bound) {
    if (seconds > time.seconds) {
      time.seconds = seconds;
      time.bound = bound;
    }
  };
  Bound computeBound = time.bound;
  time.bound = Bound::Memory;
  take(time.compute, kernel.blocks == 0 ? computeBound : Bound::TensorCores);
  take(time.issue, Bound::Issue);
  take(time.latency, Bound::Latency);
  // A library's kernel ramps up and drains (cuBLAS's 2048^3 GEMM: 32 us
  // measured, 25 us of waves).
  if (kernel.blocks == 0)
    time.seconds += static_cast<double>(kernel.launches) * kLibraryRampSeconds;
  // A split reduction's finish waits on L2 after its stream.
  time.seconds += static_cast<double>(kernel.finishAccesses) * kL2AccessSeconds;
  return time;
}

/// A launch's time in a replayed CUDA graph: the kernel's and a node's
/// overhead each launch.
static double launchSeconds(const KernelCost &kernel, const GpuSpec &gpu) {
  return modelKernel(kernel, gpu).seconds +
         static_cast<double>(kernel.launches) * kGraphLaunchSeconds;
}

/// The same launched from the host, which queues a launch ahead of the
/// GPU unless the kernels are shorter than it takes to launch them.
static double eagerSeconds(const KernelCost &kernel, const GpuSpec &gpu) {
  return std::max(launchSeconds(kernel, gpu),
                  static_cast<double>(kernel.launches) * kEagerLaunchSeconds);
}

StepEstimate amp::estimateStep(const StepCost &step, const GpuSpec &gpu) {
  StepEstimate estimate;
  // MFU counts every tensor-core FLOP against the bf16 peak, FP8 ones
  // included (as the FP8 recipes' reports do); the ideal runs the FP8 ones
  // at their own peak.
  double tensorFlops = 0, fp8Flops = 0;
  for (const KernelCost &kernel : step.kernels) {
    estimate.seconds += launchSeconds(kernel, gpu);
    estimate.eagerSeconds += eagerSeconds(kernel, gpu);
    if (kernel.tensorCore)
      tensorFlops += static_cast<double>(kernel.flops);
    if (kernel.fp8)
      fp8Flops += static_cast<double>(kernel.flops);
  }
  estimate.idealSeconds =
      (tensorFlops - fp8Flops) / (gpu.tensorFlops * gpu.gemmEfficiency) +
      fp8Flops / (gpu.fp8TensorFlops * gpu.gemmEfficiency) +
      static_cast<double>(step.idealBytes) / gpu.achievedBandwidth;
  if (estimate.seconds > 0)
    estimate.mfu = tensorFlops / (estimate.seconds * gpu.tensorFlops);
  return estimate;
}

double amp::getExcess(const StepCost &step, const KernelMinimum &minimum) {
  int64_t bytes = 0, work = 0;
  for (const KernelCost &kernel :
       ArrayRef(step.kernels).slice(minimum.firstLaunch, minimum.launchCount)) {
    bytes += kernel.bytesRead + kernel.bytesWritten;
    work += kernel.flops + kernel.transcendentals;
  }
  auto ratio = [](int64_t counted, int64_t least) {
    return least > 0 ? static_cast<double>(counted) / least : 1.0;
  };
  double excess = ratio(bytes, minimum.bytes);
  if (minimum.flops)
    excess = std::max(excess, ratio(work, *minimum.flops));
  return excess;
}

/// The kernel furthest above its minimum, or null.
static const KernelMinimum *worstKernel(const StepCost &step) {
  const KernelMinimum *worst = nullptr;
  for (const KernelMinimum &minimum : step.minimums)
    if (!worst || getExcess(step, minimum) > getExcess(step, *worst))
      worst = &minimum;
  return worst;
}

namespace {
struct Totals {
  int64_t launches = 0, flops = 0, tensorFlops = 0, transcendentals = 0,
          bytesRead = 0, bytesWritten = 0;
};
} // namespace

static Totals totalsOf(const StepCost &step) {
  Totals totals;
  for (const KernelCost &kernel : step.kernels) {
    totals.launches += kernel.launches;
    totals.flops += kernel.flops;
    if (kernel.tensorCore)
      totals.tensorFlops += kernel.flops;
    totals.transcendentals += kernel.transcendentals;
    totals.bytesRead += kernel.bytesRead;
    totals.bytesWritten += kernel.bytesWritten;
  }
  return totals;
}

llvm::json::Value amp::costReportToJson(const StepCost &step) {
  llvm::json::Array kernels;
  for (const KernelCost &kernel : step.kernels) {
    llvm::json::Object seconds, bounds;
    for (const GpuSpec &gpu : getGpuSpecs()) {
      seconds[gpu.key] = launchSeconds(kernel, gpu);
      bounds[gpu.key] = getBoundName(modelKernel(kernel, gpu).bound);
    }
    kernels.push_back(llvm::json::Object{
        {"name", kernel.name},
        {"strategy", kernel.strategy},
        {"functor", kernel.functor},
        {"launches", kernel.launches},
        {"blocks", kernel.blocks},
        {"threads", kernel.threads},
        {"flops", kernel.flops},
        {"transcendentals", kernel.transcendentals},
        {"tensor_core", kernel.tensorCore},
        {"fp8", kernel.fp8},
        {"bytes_read", kernel.bytesRead},
        {"bytes_written", kernel.bytesWritten},
        {"bytes_in_flight", kernel.bytesInFlight},
        {"finish_accesses", kernel.finishAccesses},
        {"seconds", std::move(seconds)},
        {"bound", std::move(bounds)},
        {"precondition", kernel.precondition.empty()
                             ? llvm::json::Value(nullptr)
                             : llvm::json::Value(kernel.precondition)},
    });
  }
  llvm::json::Array minimums;
  for (const KernelMinimum &minimum : step.minimums)
    minimums.push_back(llvm::json::Object{
        {"name", minimum.name},
        {"kind", minimum.kind},
        {"first_launch", static_cast<int64_t>(minimum.firstLaunch)},
        {"launch_count", static_cast<int64_t>(minimum.launchCount)},
        {"bytes", minimum.bytes},
        {"flops", minimum.flops ? llvm::json::Value(*minimum.flops)
                                : llvm::json::Value(nullptr)},
        {"excess", getExcess(step, minimum)},
    });
  Totals totals = totalsOf(step);
  llvm::json::Object gpus;
  for (const GpuSpec &gpu : getGpuSpecs()) {
    StepEstimate estimate = estimateStep(step, gpu);
    gpus[gpu.key] = llvm::json::Object{
        {"name", gpu.name},
        {"tensor_flops_per_second", gpu.tensorFlops},
        {"fp8_tensor_flops_per_second", gpu.fp8TensorFlops},
        {"vector_flops_per_second", gpu.vectorFlops},
        {"special_functions_per_second", gpu.specialFunctions},
        {"bytes_per_second", gpu.bandwidth},
        {"sms", gpu.sms},
        {"achieved_bytes_per_second", gpu.achievedBandwidth},
        {"gemm_efficiency", gpu.gemmEfficiency},
        {"seconds", estimate.seconds},
        {"eager_seconds", estimate.eagerSeconds},
        {"ideal_seconds", estimate.idealSeconds},
        {"mfu", estimate.mfu},
    };
  }
  return llvm::json::Object{
      {"step", step.name},
      {"launch_overhead_seconds", kGraphLaunchSeconds},
      {"eager_launch_overhead_seconds", kEagerLaunchSeconds},
      {"kernels", std::move(kernels)},
      {"minimums", std::move(minimums)},
      {"totals", llvm::json::Object{{"launches", totals.launches},
                                    {"flops", totals.flops},
                                    {"tensor_core_flops", totals.tensorFlops},
                                    {"transcendentals", totals.transcendentals},
                                    {"bytes_read", totals.bytesRead},
                                    {"bytes_written", totals.bytesWritten},
                                    {"ideal_bytes", step.idealBytes}}},
      {"gpus", std::move(gpus)},
  };
}

void amp::printCostTable(const StepCost &step, const GpuSpec &gpu,
                         llvm::raw_ostream &os, size_t rows) {
  SmallVector<const KernelCost *> order;
  for (const KernelCost &kernel : step.kernels)
    order.push_back(&kernel);
  // The costliest first; a tie keeps the step's order (the kernels are
  // one array, so their addresses are that order).
  llvm::sort(order, [&](const KernelCost *a, const KernelCost *b) {
    double x = launchSeconds(*a, gpu), y = launchSeconds(*b, gpu);
    return x != y ? x > y : a < b;
  });
  StepEstimate estimate = estimateStep(step, gpu);
  os << "cost of " << step.name << " on " << gpu.name
     << " (modeled: calibrated per launch + "
     << llvm::format("%.0f", kGraphLaunchSeconds * 1e6)
     << " us a launch replayed)\n";
  os << "  kernel                       strategy        blocks"
        "      GFLOP         MB         us  share  bound\n";
  size_t shown = rows == 0 ? order.size() : std::min(rows, order.size());
  for (const KernelCost *kernel : ArrayRef(order).take_front(shown)) {
    double seconds = launchSeconds(*kernel, gpu);
    std::string blocks =
        kernel->blocks ? std::to_string(kernel->blocks) : std::string("lib");
    os << llvm::format(
        "  %-28s %-13s %8s %10.4f %10.3f %10.2f %5.1f%%  %s\n",
        kernel->name.c_str(),
        (kernel->strategy + (kernel->tensorCore ? "*" : "")).c_str(),
        blocks.c_str(),
        static_cast<double>(kernel->flops + kernel->transcendentals) * 1e-9,
        static_cast<double>(kernel->bytesRead + kernel->bytesWritten) * 1e-6,
        seconds * 1e6,
        estimate.seconds > 0 ? 100 * seconds / estimate.seconds : 0.0,
        getBoundName(modelKernel(*kernel, gpu).bound).str().c_str());
  }
  if (shown < order.size())
    os << "  ... " << order.size() - shown << " more\n";
  Totals totals = totalsOf(step);
  os << llvm::format(
      "  total: %lld launches, %.4f GFLOP (%.4f on tensor cores*), "
      "%.3f MB\n",
      static_cast<long long>(totals.launches),
      static_cast<double>(totals.flops + totals.transcendentals) * 1e-9,
      static_cast<double>(totals.tensorFlops) * 1e-9,
      static_cast<double>(totals.bytesRead + totals.bytesWritten) * 1e-6);
  size_t unmet = llvm::count_if(step.kernels, [](const KernelCost &kernel) {
    return !kernel.precondition.empty();
  });
  if (unmet)
    os << "  library preconditions not met (slower paths, charged): " << unmet
       << " launches\n";
  if (const KernelMinimum *worst = worstKernel(step))
    os << llvm::format("  furthest above its minimum: %s, %.2fx its bytes or "
                       "FLOPs\n",
                       worst->name.c_str(), getExcess(step, *worst));
  os << llvm::format("  modeled %.2f us, ideal %.2f us (%.2fx), MFU %.1f%%; "
                     "launched eagerly %.2f us\n",
                     estimate.seconds * 1e6, estimate.idealSeconds * 1e6,
                     estimate.idealSeconds > 0
                         ? estimate.seconds / estimate.idealSeconds
                         : 0.0,
                     100 * estimate.mfu, estimate.eagerSeconds * 1e6);
}
