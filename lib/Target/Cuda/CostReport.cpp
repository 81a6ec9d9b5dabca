//===- CostReport.cpp - the roofline of a compiled step -------------------===//

#include "amp/Target/Cuda/CostReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::amp;

ArrayRef<GpuSpec> amp::getGpuSpecs() {
  // NVIDIA H100 Tensor Core GPU data sheet (SXM5) and H200 data sheet
  // (SXM): 989.4 dense bf16/f16 TFLOP/s (half the sparse 1,979), 67 f32
  // TFLOP/s, 3.35 and 4.8 TB/s, 132 SMs each. The special-function rate is
  // 16 a clock per SM at the tensor peak's clock, 989.4e12 / (132 * 4096)
  // = 1.83 GHz: 989.4e12 / 256 = 3.865e12 a second.
  constexpr double kSpecialFunctions = 989.4e12 / 256;
  static const GpuSpec specs[] = {
      {"h100", "H100 SXM5", 989.4e12, 67e12, kSpecialFunctions, 3.35e12, 132},
      {"h200", "H200 SXM", 989.4e12, 67e12, kSpecialFunctions, 4.8e12, 132},
  };
  return specs;
}

const GpuSpec *amp::lookupGpuSpec(StringRef key) {
  for (const GpuSpec &spec : getGpuSpecs())
    if (spec.key == key)
      return &spec;
  return nullptr;
}

double amp::getRooflineSeconds(const KernelCost &kernel, const GpuSpec &gpu) {
  double compute =
      kernel.tensorCore
          ? std::max(static_cast<double>(kernel.flops) / gpu.tensorFlops,
                     static_cast<double>(kernel.transcendentals) /
                         gpu.specialFunctions)
          : static_cast<double>(kernel.flops + kernel.transcendentals) /
                gpu.vectorFlops;
  double memory = static_cast<double>(kernel.bytesRead + kernel.bytesWritten) /
                  gpu.bandwidth;
  // A grid of fewer blocks than SMs leaves the rest idle: it gets that
  // share of both peaks (a library's grid is taken to fill the GPU).
  double share = kernel.blocks > 0
                     ? std::min(1.0, static_cast<double>(kernel.blocks) /
                                         static_cast<double>(gpu.sms))
                     : 1.0;
  return std::max(compute, memory) / share;
}

static double launchSeconds(const KernelCost &kernel, const GpuSpec &gpu) {
  return getRooflineSeconds(kernel, gpu) +
         static_cast<double>(kernel.launches) * kLaunchOverheadSeconds;
}

StepEstimate amp::estimateStep(const StepCost &step, const GpuSpec &gpu) {
  StepEstimate estimate;
  double tensorFlops = 0;
  for (const KernelCost &kernel : step.kernels) {
    estimate.seconds += launchSeconds(kernel, gpu);
    if (kernel.tensorCore)
      tensorFlops += static_cast<double>(kernel.flops);
  }
  estimate.idealSeconds = tensorFlops / gpu.tensorFlops +
                          static_cast<double>(step.idealBytes) / gpu.bandwidth;
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
    llvm::json::Object seconds;
    for (const GpuSpec &gpu : getGpuSpecs())
      seconds[gpu.key] = launchSeconds(kernel, gpu);
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
        {"bytes_read", kernel.bytesRead},
        {"bytes_written", kernel.bytesWritten},
        {"seconds", std::move(seconds)},
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
        {"vector_flops_per_second", gpu.vectorFlops},
        {"special_functions_per_second", gpu.specialFunctions},
        {"bytes_per_second", gpu.bandwidth},
        {"sms", gpu.sms},
        {"seconds", estimate.seconds},
        {"ideal_seconds", estimate.idealSeconds},
        {"mfu", estimate.mfu},
    };
  }
  return llvm::json::Object{
      {"step", step.name},
      {"launch_overhead_seconds", kLaunchOverheadSeconds},
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
  os << "cost of " << step.name << " on " << gpu.name << " (modeled: "
     << "roofline per launch + "
     << llvm::format("%.0f", kLaunchOverheadSeconds * 1e6) << " us a launch)\n";
  os << "  kernel                       strategy        blocks"
        "      GFLOP         MB         us  share\n";
  size_t shown = rows == 0 ? order.size() : std::min(rows, order.size());
  for (const KernelCost *kernel : ArrayRef(order).take_front(shown)) {
    double seconds = launchSeconds(*kernel, gpu);
    std::string blocks =
        kernel->blocks ? std::to_string(kernel->blocks) : std::string("lib");
    os << llvm::format(
        "  %-28s %-13s %8s %10.4f %10.3f %10.2f %5.1f%%\n",
        kernel->name.c_str(),
        (kernel->strategy + (kernel->tensorCore ? "*" : "")).c_str(),
        blocks.c_str(),
        static_cast<double>(kernel->flops + kernel->transcendentals) * 1e-9,
        static_cast<double>(kernel->bytesRead + kernel->bytesWritten) * 1e-6,
        seconds * 1e6,
        estimate.seconds > 0 ? 100 * seconds / estimate.seconds : 0.0);
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
  if (const KernelMinimum *worst = worstKernel(step))
    os << llvm::format("  furthest above its minimum: %s, %.2fx its bytes or "
                       "FLOPs\n",
                       worst->name.c_str(), getExcess(step, *worst));
  os << llvm::format("  modeled %.2f us, ideal %.2f us (%.2fx), MFU %.1f%%\n",
                     estimate.seconds * 1e6, estimate.idealSeconds * 1e6,
                     estimate.idealSeconds > 0
                         ? estimate.seconds / estimate.idealSeconds
                         : 0.0,
                     100 * estimate.mfu);
}
