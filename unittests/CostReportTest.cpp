//===- CostReportTest.cpp - the roofline of the cost report ---------------===//
//
// The model's arithmetic against figures worked out by hand from its
// calibration (H100 SXM5: 989.4e12 tensor FLOP/s, 0.8 of it at best for
// cuBLAS, 2.95e12 B/s achieved, 33.5e12 instructions a second), and the
// model against published measurements of real H100s.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/Cuda/CostReport.h"

#include "amp_runtime/launch_grid.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

using namespace mlir::amp;

namespace {

const GpuSpec &h100() { return *lookupGpuSpec("h100"); }

TEST(CostReportTest, GpusFromTheDataSheetsAndMeasurements) {
  ASSERT_NE(lookupGpuSpec("h100"), nullptr);
  ASSERT_NE(lookupGpuSpec("h200"), nullptr);
  EXPECT_EQ(lookupGpuSpec("a100"), nullptr);
  EXPECT_DOUBLE_EQ(h100().tensorFlops, 989.4e12);
  EXPECT_DOUBLE_EQ(h100().bandwidth, 3.35e12);
  EXPECT_DOUBLE_EQ(lookupGpuSpec("h200")->bandwidth, 4.8e12);
  EXPECT_EQ(lookupGpuSpec("h200")->sms, 132);
  // 16 special functions a clock per SM at 1.83 GHz on 132 SMs.
  EXPECT_NEAR(h100().specialFunctions, 16 * 132 * 1.83e9, 1e9);
  // Measured: BabelStream's copy and triad, cuBLAS's best bf16 GEMM.
  EXPECT_DOUBLE_EQ(h100().achievedBandwidth, 2.95e12);
  EXPECT_DOUBLE_EQ(lookupGpuSpec("h200")->achievedBandwidth, 4.08e12);
  EXPECT_DOUBLE_EQ(h100().gemmEfficiency, 0.80);
}

TEST(CostReportTest, GemmTilesAndWaves) {
  // 8192^3: 64 x 32 tiles of 128 x 256 are 2048, 16 waves of 132 SMs
  // (15.5 full ones), each tile 2 * 128 * 256 * (8192 + 128) FLOPs at
  // 989.4e12 * 0.8 / 132 a second per SM: 16 * 90.91 us = 1.4545 ms.
  KernelCost::Gemm square{8192, 8192, 8192};
  double perSm = 989.4e12 * 0.8 / 132;
  EXPECT_NEAR(getGemmSeconds(square, h100()),
              16 * 2.0 * 128 * 256 * 8320 / perSm, 1e-12);
  // 2048^3 is 128 tiles, one wave on 128 of the 132 SMs: 23.8 us, against
  // 128 x 128 tiles' 2 waves at 0.85 of the rate: 28.0 us.
  KernelCost::Gemm small{2048, 2048, 2048};
  EXPECT_NEAR(getGemmSeconds(small, h100()), 2.0 * 128 * 256 * 2176 / perSm,
              1e-12);
  // A 768 x 768 weight gradient over 65536 rows: too few tiles for the
  // SMs (18 of 128 x 256), so stream-K deals their K among all 132, each
  // SM 18 * 65536 / 132 = 8936.7 deep plus two tiles' fixed cost (256),
  // at 2 * 128 * 256 FLOPs a step: 100.47 us, and the 132 f32 partial
  // tiles written and read back at 2.95 TB/s: 11.73 us. (A wave of 18
  // tiles the whole K deep would take 717.7 us; 36 tiles of 128 x 128 at
  // 0.85 of the rate 122.4 us.)
  KernelCost::Gemm weightGrad{768, 768, 65536};
  double streamK = (18.0 * 65536 / 132 + 256) * 2 * 128 * 256 / perSm +
                   2.0 * 4 * 128 * 256 * 132 / 2.95e12;
  EXPECT_NEAR(getGemmSeconds(weightGrad, h100()), streamK, 1e-12);
  EXPECT_NEAR(getGemmSeconds(weightGrad, h100()), 112.2e-6, 0.1e-6);
  // An MLP's 768 x 3072 weight gradient: 72 tiles, 35746.9 deep each SM:
  // 393.49 + 11.73 us, 763 TFLOP/s, where a wave of 72 tiles on 132 SMs
  // would be 717.7 us (and 144 tiles of 128 x 128, two waves, 844 us).
  KernelCost::Gemm mlpGrad{768, 3072, 65536};
  EXPECT_NEAR(getGemmSeconds(mlpGrad, h100()),
              (72.0 * 65536 / 132 + 256) * 2 * 128 * 256 / perSm +
                  2.0 * 4 * 128 * 256 * 132 / 2.95e12,
              1e-12);
  EXPECT_NEAR(getGemmSeconds(mlpGrad, h100()), 405.2e-6, 0.1e-6);
}

TEST(CostReportTest, UnalignedGemmsAreCharged) {
  // A GEMM off cuBLASLt's aligned kernels runs at 0.68 of the rate.
  KernelCost gemm = {"gemm", "gemm"};
  gemm.tensorCore = true;
  gemm.gemm = KernelCost::Gemm{4096, 4096, 4096};
  double aligned = modelKernel(gemm, h100()).compute;
  gemm.precondition = "rows of 20 bytes";
  EXPECT_NEAR(modelKernel(gemm, h100()).compute, aligned / 0.68, 1e-12);
}

TEST(CostReportTest, Fp8GemmsAtTheFp8Peak) {
  // Dense FP8 is 1,978.9 TFLOP/s on both GPUs, at the same calibrated
  // share: 8192^3's 16 waves of 128 x 256 tiles take half bf16's time,
  // 16 * 2 * 128 * 256 * 8320 / (1978.9e12 * 0.8 / 132) = 0.7274 ms
  // (cuBLASLt's FP8 GEMM at 8192^3 is measured at about 1,610 TFLOP/s:
  // its 1.10e12 FLOPs in 0.683 ms; docs/backend.md).
  EXPECT_DOUBLE_EQ(h100().fp8TensorFlops, 1978.9e12);
  EXPECT_DOUBLE_EQ(lookupGpuSpec("h200")->fp8TensorFlops, 1978.9e12);
  KernelCost gemm = {"gemm", "gemm-fp8"};
  gemm.tensorCore = true;
  gemm.fp8 = true;
  gemm.gemm = KernelCost::Gemm{8192, 8192, 8192};
  double perSm = 1978.9e12 * 0.8 / 132;
  EXPECT_NEAR(modelKernel(gemm, h100()).compute,
              16 * 2.0 * 128 * 256 * 8320 / perSm, 1e-12);
  EXPECT_NEAR(modelKernel(gemm, h100()).compute, 0.7274e-3, 0.0001e-3);
  gemm.fp8 = false;
  EXPECT_NEAR(modelKernel(gemm, h100()).compute,
              16 * 2.0 * 128 * 256 * 8320 / (989.4e12 * 0.8 / 132), 1e-12);
}

TEST(CostReportTest, AttentionAtMeasuredShares) {
  // cuDNN's forward at head dim 64, causal, 1k tokens: 288 TFLOP/s
  // measured, 0.291 of the peak; 1.5k tokens interpolate in log2 between
  // 1k and 2k (0.338).
  KernelCost::Attention gpt2{768, 1024, 1024, 64, true, false};
  EXPECT_DOUBLE_EQ(getAttentionEfficiency(gpt2), 0.291);
  KernelCost::Attention longer = gpt2;
  longer.queries = longer.keys = 1448; // 2^10.5
  double t = std::log2(1448.0) - 10;
  EXPECT_NEAR(getAttentionEfficiency(longer), 0.291 * (1 - t) + 0.338 * t,
              1e-12);
  // Head dim 96 halfway between 64 and 128; 32 half of 64's rate.
  KernelCost::Attention wide = gpt2;
  wide.headDim = 96;
  EXPECT_NEAR(getAttentionEfficiency(wide), (0.291 + 0.414) / 2, 1e-12);
  wide.headDim = 32;
  EXPECT_NEAR(getAttentionEfficiency(wide), 0.291 / 2, 1e-12);
  // A kernel of 989.4 GFLOP at that share: 1 ms / 0.291, and 3 us of
  // ramp; its exps on the special-function units take less.
  KernelCost attention{"attention", "attention-cudnn"};
  attention.flops = 989400000000;
  attention.tensorCore = true;
  attention.transcendentals = 1932421875; // 0.5 ms
  attention.attention = gpt2;
  KernelTime time = modelKernel(attention, h100());
  EXPECT_NEAR(time.seconds, 1e-3 / 0.291 + 3e-6, 1e-12);
  EXPECT_EQ(time.bound, Bound::TensorCores);
}

TEST(CostReportTest, MemoryIssueAndLatency) {
  // An add of two 2^24-element f32 tensors: 201,326,592 bytes at the
  // achieved 2.95 TB/s is 68.246 us; 65536 blocks of 256 fill every SM.
  KernelCost add{"add", "elementwise", 1, 65536, 256};
  add.flops = 1 << 24;
  add.bytesRead = 2LL * 4 * (1 << 24);
  add.bytesWritten = 4LL * (1 << 24);
  KernelTime time = modelKernel(add, h100());
  EXPECT_NEAR(time.seconds, 201326592 / 2.95e12, 1e-12);
  EXPECT_EQ(time.bound, Bound::Memory);
  // 2^24 exps more, each 41 instructions of software math, at one
  // instruction a lane a clock (33.5e12 a second): (2^24 + 41 * 2^24) /
  // 33.5e12 = 21.03 us, still under the memory; 2^26 of them make the
  // kernel issue-bound: 83.6 us.
  add.transcendentals = 1 << 24;
  EXPECT_NEAR(modelKernel(add, h100()).issue, 42.0 * (1 << 24) / 33.5e12,
              1e-12);
  add.transcendentals = 1 << 26;
  time = modelKernel(add, h100());
  EXPECT_EQ(time.bound, Bound::Issue);
  EXPECT_NEAR(time.seconds, ((1 << 24) + 41.0 * (1 << 26)) / 33.5e12, 1e-12);
  // One thread's serial phase: 1000 dependent accesses of 57 ns.
  KernelCost serial{"buckets", "elementwise", 1, 1, 256};
  serial.workers = 1;
  serial.serialAccesses = 1000;
  serial.bytesRead = 8000;
  time = modelKernel(serial, h100());
  EXPECT_EQ(time.bound, Bound::Latency);
  EXPECT_NEAR(time.seconds, 57e-6, 1e-12);
}

TEST(CostReportTest, SmallGridsAndFewWarpsUseAShareOfTheGpu) {
  // A sum of squares over 38.6M f32 gradients (154.4 MB) on one block of 8
  // warps: one of 132 SMs, a quarter of the 32 warps it needs to draw its
  // share: 154.4e6 / (2.95e12 / 132 / 4) = 27.63 ms.
  KernelCost norm{"norm", "reduce-block"};
  norm.blocks = 1;
  norm.threads = 256;
  norm.bytesRead = 4LL * 38600000;
  EXPECT_NEAR(modelKernel(norm, h100()).seconds, 154.4e6 / 2.95e12 * 528, 1e-9);
  // 528 blocks (4 a SM, 32 warps each SM) fill the GPU; a library's grid
  // (0 blocks) is taken to, and ramps up in 3 us.
  norm.blocks = 528;
  EXPECT_NEAR(modelKernel(norm, h100()).seconds, 154.4e6 / 2.95e12, 1e-12);
  norm.blocks = 264;
  EXPECT_NEAR(modelKernel(norm, h100()).seconds, 154.4e6 / 2.95e12 * 2, 1e-12);
  norm.blocks = 0;
  EXPECT_NEAR(modelKernel(norm, h100()).seconds, 154.4e6 / 2.95e12 + 3e-6,
              1e-12);

  // A bias gradient's column sums at batch 8 (768 columns of 8192 bf16
  // and f32 values, 37.7 MB; 32 slices a column): 24576 threads, 96
  // blocks, 8 warps on each of 96 SMs. Loading 8 values (48 bytes) ahead,
  // a thread has 48 of the 14 bytes in flight taken for the usual thread,
  // so 32 * 14 / 48 = 9.33 warps draw an SM's share: 8 / 9.33 of it on 96
  // of 132 SMs.
  KernelCost columns{"columns", "reduce-thread"};
  columns.blocks = 96;
  columns.threads = 256;
  columns.bytesRead = 6LL * 8192 * 768;
  double share = 96.0 / 132 * 8 / (32 * 14 / 48.0);
  columns.bytesInFlight = 48;
  EXPECT_NEAR(modelKernel(columns, h100()).seconds,
              6.0 * 8192 * 768 / (2.95e12 * share), 1e-12);
  // The usual thread's 14 bytes: a quarter of the warps an SM needs.
  columns.bytesInFlight = 0;
  EXPECT_NEAR(modelKernel(columns, h100()).seconds,
              6.0 * 8192 * 768 / (2.95e12 * 96 / 132 * 8 / 32), 1e-12);
  // Fewer bytes than the usual thread's change nothing.
  columns.bytesInFlight = 8;
  EXPECT_NEAR(modelKernel(columns, h100()).seconds,
              6.0 * 8192 * 768 / (2.95e12 * 96 / 132 * 8 / 32), 1e-12);
  // The slice that finishes a column after the stream: the counter's
  // atomic and 32 results, 8 at a time, 5 L2 round trips of 148 ns.
  columns.finishAccesses = 5;
  EXPECT_NEAR(modelKernel(columns, h100()).seconds,
              6.0 * 8192 * 768 / (2.95e12 * 96 / 132 * 8 / 32) + 5 * 148e-9,
              1e-12);
}

TEST(CostReportTest, StepTotals) {
  // A 4096^3 GEMM in bf16 (4 waves of 128 x 256 tiles of depth 4224: 184.6
  // us, 3 us of ramp) and a copy of 2.95 GB (1 ms at the achieved
  // bandwidth on 65536 blocks), each a launch of 2 us replayed: modeled
  // 1.1917 ms; eagerly the same (both kernels outlast a 5 us launch); the
  // ideal is the GEMM at 0.8 of the peak plus the copy's bytes once: 1.1737
  // ms; the MFU is its 137.4 GFLOP over the modeled time at the peak.
  StepCost step;
  KernelCost gemm{"gemm", "gemm"};
  gemm.flops = 2LL * 4096 * 4096 * 4096;
  gemm.tensorCore = true;
  gemm.gemm = KernelCost::Gemm{4096, 4096, 4096};
  KernelCost copy{"copy", "copy", 1, 65536, 256};
  copy.bytesRead = 1475000000;
  copy.bytesWritten = 1475000000;
  step.kernels = {gemm, copy};
  step.idealBytes = 2950000000;
  double perSm = 989.4e12 * 0.8 / 132;
  double gemmSeconds = 4 * 2.0 * 128 * 256 * 4224 / perSm + 3e-6;
  StepEstimate estimate = estimateStep(step, h100());
  EXPECT_NEAR(estimate.seconds, gemmSeconds + 1e-3 + 4e-6, 1e-12);
  EXPECT_NEAR(estimate.eagerSeconds, estimate.seconds, 1e-12);
  EXPECT_NEAR(estimate.idealSeconds,
              2.0 * 4096 * 4096 * 4096 / (989.4e12 * 0.8) + 1e-3, 1e-12);
  EXPECT_NEAR(estimate.mfu,
              2.0 * 4096 * 4096 * 4096 / (estimate.seconds * 989.4e12), 1e-12);
  // Kernels shorter than their launch: eagerly the host's 5 us each.
  StepCost tiny;
  KernelCost fill{"fill", "fill", 1, 1, 256};
  fill.bytesWritten = 4;
  tiny.kernels = {fill, fill};
  EXPECT_NEAR(estimateStep(tiny, h100()).eagerSeconds, 10e-6, 1e-12);
}

/// A published measurement on an H100 SXM and the kernel the model times
/// for it, as the emitter would count it (docs/backend.md's table).
struct Reference {
  const char *what;
  KernelCost kernel;
  double measured; ///< seconds a launch, as published
  double modeled;  ///< seconds, the model's (docs/backend.md says it)
};

KernelCost gemmOf(int64_t n) {
  KernelCost kernel{"gemm", "gemm"};
  kernel.flops = 2 * n * n * n;
  kernel.tensorCore = true;
  kernel.bytesRead = 2 * 2 * n * n;
  kernel.bytesWritten = 2 * n * n;
  kernel.gemm = KernelCost::Gemm{n, n, n};
  return kernel;
}

/// An attention kernel of FlashAttention-3's benchmark: 16k tokens a batch
/// in 2048 / headDim heads, its FLOPs as the paper counts them (4 * s^2 *
/// d a head forward, 2.5 times that backward, halved when causal).
KernelCost attentionOf(int64_t seq, int64_t headDim, bool causal,
                       bool backward) {
  int64_t rows = 16384 / seq * (2048 / headDim);
  KernelCost kernel{"attention",
                    backward ? "attention-grad-cudnn" : "attention-cudnn"};
  kernel.launches = backward ? 3 : 1;
  kernel.tensorCore = true;
  kernel.flops =
      rows * seq * seq * headDim * (backward ? 10 : 4) / (causal ? 2 : 1);
  kernel.bytesRead = rows * seq * headDim * 2 * (backward ? 5 : 3);
  kernel.bytesWritten = rows * seq * headDim * 2 * (backward ? 3 : 1);
  kernel.attention =
      KernelCost::Attention{rows, seq, seq, headDim, causal, backward};
  return kernel;
}

/// A row kernel of `rows` rows of `width` elements of `bytes` each: read
/// and written once (layer norm: 8 FLOPs an element; softmax 5 and an exp;
/// cross-entropy with its gradient 7 and 2 exps).
KernelCost rowsOf(int64_t rows, int64_t width, int64_t bytes, int64_t flops,
                  int64_t exps) {
  KernelCost kernel{"rows", "rows"};
  amprt::Grid grid = amprt::rowGrid(rows);
  kernel.blocks = grid.blocks;
  kernel.threads = grid.threads;
  kernel.bytesRead = rows * width * bytes;
  kernel.bytesWritten = rows * width * bytes;
  kernel.flops = rows * width * flops;
  kernel.transcendentals = rows * width * exps;
  return kernel;
}

TEST(CostReportTest, PublishedMeasurementsWithinAQuarter) {
  // Each row of docs/backend.md's calibration table: the measured time of
  // a launch on an H100 SXM, the model's (a launch replayed, 2 us
  // included), within 25% of it. The sources are in docs/backend.md.
  KernelCost triad{"triad", "elementwise"};
  amprt::Grid grid = amprt::elementGrid(int64_t(1) << 27);
  triad.blocks = grid.blocks;
  triad.threads = grid.threads;
  triad.flops = 2LL << 27;
  triad.bytesRead = 2 * 8LL << 27; // BabelStream's doubles, 2^27 of them
  triad.bytesWritten = 8LL << 27;
  const Reference references[] = {
      {"cuBLAS bf16 GEMM 2048^3, 541 TFLOP/s", gemmOf(2048),
       2.0 * 2048 * 2048 * 2048 / 540.9e12, 28.82e-6},
      {"cuBLAS bf16 GEMM 4096^3, 726 TFLOP/s", gemmOf(4096),
       2.0 * 4096 * 4096 * 4096 / 726.4e12, 189.60e-6},
      {"cuBLAS bf16 GEMM 6144^3, 741 TFLOP/s", gemmOf(6144),
       2.0 * 6144 * 6144 * 6144 / 741.1e12, 621.94e-6},
      {"cuBLAS bf16 GEMM 8192^3, 798 TFLOP/s", gemmOf(8192),
       2.0 * 8192 * 8192 * 8192 / 797.8e12, 1459.52e-6},
      {"cuDNN attention forward, d 128, 8k, 689 TFLOP/s",
       attentionOf(8192, 128, false, false),
       4.0 * 8192 * 8192 * 128 * 32 / 689.1e12, 1.8388e-3},
      {"cuDNN attention forward, d 128, causal 8k, 625 TFLOP/s",
       attentionOf(8192, 128, true, false),
       2.0 * 8192 * 8192 * 128 * 32 / 624.5e12, 1.0436e-3},
      {"cuDNN attention backward, d 128, 8k, 589 TFLOP/s",
       attentionOf(8192, 128, false, true),
       10.0 * 8192 * 8192 * 128 * 32 / 589.0e12, 5.3170e-3},
      {"cuDNN attention backward, d 128, causal 8k, 522 TFLOP/s",
       attentionOf(8192, 128, true, true),
       5.0 * 8192 * 8192 * 128 * 32 / 522.1e12, 3.0217e-3},
      {"BabelStream triad, 2^27 doubles, 2.97 TB/s", triad,
       3 * 8.0 * (1 << 27) / 2.97e12, 1.0940e-3},
      {"layer norm, f32, 4096 x 16384 (Liger), 0.185 ms",
       rowsOf(4096, 16384, 4, 8, 0), 0.18477e-3, 0.1900e-3},
      {"RMS norm, bf16, 4096 x 16384 (Liger), 0.095 ms",
       rowsOf(4096, 16384, 2, 8, 0), 0.0950e-3, 0.0960e-3},
      {"softmax, f32, 16384 x 131072 (quack), 3.01 TB/s",
       rowsOf(16384, 131072, 4, 5, 1), 2 * 4.0 * 16384 * 131072 / 3.01e12,
       5.8262e-3},
      {"cross-entropy and gradient, bf16, 8192 x 131072 (Liger), 2.97 ms",
       rowsOf(8192, 131072, 2, 7, 2), 2.967e-3, 2.8546e-3},
  };
  for (const Reference &reference : references) {
    SCOPED_TRACE(reference.what);
    StepCost step;
    step.kernels = {reference.kernel};
    double modeled = estimateStep(step, h100()).seconds;
    EXPECT_NEAR(modeled, reference.modeled, 0.005 * reference.modeled);
    EXPECT_LT(std::abs(modeled / reference.measured - 1), 0.25)
        << modeled * 1e3 << " ms modeled, " << reference.measured * 1e3
        << " ms measured";
  }
}

TEST(CostReportTest, RowsTheCachesCannotHoldAreReadAgain) {
  // GPT-2's cross-entropy at batch 64: 65536 rows of 50304 bf16 logits,
  // 100,608 bytes each; 64 resident a SM (6.4 MB) overflow its L1, all
  // 8448 resident ones (850 MB) the L2: each pass after the first reads
  // the 6.6 GB again.
  EXPECT_EQ(getRowRereadBytes(65536, 100608, 3), 2 * 65536LL * 100608);
  EXPECT_EQ(getRowRereadBytes(65536, 100608, 2), 65536LL * 100608);
  // A layer norm's rows of 768 f32 (3 KB): 64 of them fit an SM's L1.
  EXPECT_EQ(getRowRereadBytes(65536, 3072, 3), 0);
  // Rows of 100 KB that fit the L2 all together (64 of them, 6.4 MB), or
  // an SM's L1 (2 an SM at most: 264 rows).
  EXPECT_EQ(getRowRereadBytes(64, 100608, 3), 0);
  EXPECT_EQ(getRowRereadBytes(264, 100608, 3), 0);
  // One pass reads nothing again; nothing of nothing.
  EXPECT_EQ(getRowRereadBytes(65536, 100608, 1), 0);
  EXPECT_EQ(getRowRereadBytes(0, 100608, 3), 0);
}

TEST(CostReportTest, LaunchGrids) {
  // A thread per index, at most 65536 blocks; a warp per row, 8 rows a
  // block; a block per output only for few, long reductions.
  EXPECT_EQ(amprt::elementGrid(1).blocks, 1);
  EXPECT_EQ(amprt::elementGrid(257).blocks, 2);
  EXPECT_EQ(amprt::elementGrid(int64_t(1) << 40).blocks, 65536);
  EXPECT_EQ(amprt::rowGrid(9).blocks, 2);
  // 3 outputs of 4096: a block each (64 K values would make a second).
  amprt::ReducePlan few = amprt::planReduction(3, 4096);
  EXPECT_EQ(few.threads, 256);
  EXPECT_EQ(few.grid.blocks, 3);
  EXPECT_EQ(few.launches, 1);
  // One output of 38.6M (an embedding's squared norm): 264 blocks wanted,
  // parts of 1024 values (the least power of two times 256 for 67,584
  // threads), so 37,696 parts in 148 blocks; the block that ends last
  // combines them (amp_stream_counters), in the same launch.
  amprt::ReducePlan norm = amprt::planReduction(1, 38600000);
  EXPECT_EQ(norm.split.span, 1024);
  EXPECT_EQ(norm.split.parts, 37696);
  EXPECT_EQ(norm.grid.blocks, 148);
  EXPECT_EQ(norm.launches, 1);
  // 2304 columns of 8192 rows (a qkv bias gradient): a thread each would
  // be 9 blocks; 118 slices are wanted for 270,336 threads (64 warps on
  // each SM), at most 32 give each thread 256 rows: 32 slices of 256 rows,
  // 73,728 threads in 288 blocks.
  amprt::ReducePlan columns = amprt::planReduction(2304, 8192);
  EXPECT_EQ(columns.threads, 1);
  EXPECT_EQ(columns.split.span, 256);
  EXPECT_EQ(columns.split.slices, 32);
  EXPECT_EQ(columns.grid.blocks, 288);
  EXPECT_EQ(columns.launches, 1);
  // 768 columns of 65536 rows (a layer norm's scale gradient) were a block
  // each, reading a column's values 3 KB apart; side by side in memory
  // they are a thread each, adjacent columns a warp: 352 slices wanted for
  // 270,336 threads, and a power of two times 256 rows a slice gives 256
  // of 256 rows: 196,608 threads, 768 blocks.
  EXPECT_EQ(amprt::planReduction(768, 65536).threads, 256);
  amprt::ReducePlan scale = amprt::planReduction(768, 65536, true);
  EXPECT_EQ(scale.threads, 1);
  EXPECT_EQ(scale.split.span, 256);
  EXPECT_EQ(scale.split.slices, 256);
  EXPECT_EQ(scale.grid.blocks, 768);
  EXPECT_EQ(scale.launches, 1);
  // More outputs cut into slices than the stream has counters: a second
  // launch combines them. 70,000 columns of 65536 rows: 4 slices each.
  amprt::ReducePlan wide =
      amprt::planReduction(amprt::kReduceCounters + 4464, 65536, true);
  EXPECT_EQ(wide.split.slices, 4);
  EXPECT_EQ(wide.launches, 2);
  // Short rows stay a thread each.
  amprt::ReducePlan shortRows = amprt::planReduction(3, 100);
  EXPECT_EQ(shortRows.grid.blocks, 1);
  EXPECT_EQ(shortRows.launches, 1);
}

TEST(CostReportTest, MultiTensorLaunches) {
  // Tiles of 256 threads x 4 elements = 1024 elements: 1024 is one tile,
  // 1025 two, an empty tensor none.
  const int64_t few[] = {1024, 1025, 0, 3};
  amprt::MultiTensorPlan small = amprt::planMultiTensor(few, 4);
  EXPECT_EQ(small.launches, 1);
  EXPECT_EQ(small.grid.blocks, 4);
  EXPECT_EQ(small.grid.threads, 256);
  // GPT-2 124M's wte, 50257 x 768 = 38,597,376 elements, is 37,693 tiles:
  // the grid stops at 8 blocks on each of 132 SMs.
  const int64_t wte[] = {50257 * 768};
  EXPECT_EQ(amprt::planMultiTensor(wte, 1).grid.blocks, 1056);
  // 300 tensors are two launches, of 256 and 44; the first's one tile
  // each is the larger grid.
  std::vector<int64_t> many(300, 1);
  amprt::MultiTensorPlan two = amprt::planMultiTensor(many.data(), 300);
  EXPECT_EQ(two.launches, 2);
  EXPECT_EQ(two.grid.blocks, 256);
  // No tensors, no launch.
  EXPECT_EQ(amprt::planMultiTensor(nullptr, 0).launches, 0);
}

} // namespace
