//===- CostReportTest.cpp - the roofline of the cost report ---------------===//
//
// The model's arithmetic against figures worked out by hand from the data
// sheets: H100 SXM5 989.4e12 tensor FLOP/s, 67e12 f32 FLOP/s, 3.35e12 B/s.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/Cuda/CostReport.h"

#include "amp_runtime/launch_grid.h"

#include <gtest/gtest.h>

#include <vector>

using namespace mlir::amp;

namespace {

const GpuSpec &h100() { return *lookupGpuSpec("h100"); }

TEST(CostReportTest, GpusFromTheDataSheets) {
  ASSERT_NE(lookupGpuSpec("h100"), nullptr);
  ASSERT_NE(lookupGpuSpec("h200"), nullptr);
  EXPECT_EQ(lookupGpuSpec("a100"), nullptr);
  EXPECT_DOUBLE_EQ(h100().tensorFlops, 989.4e12);
  EXPECT_DOUBLE_EQ(h100().bandwidth, 3.35e12);
  EXPECT_DOUBLE_EQ(lookupGpuSpec("h200")->bandwidth, 4.8e12);
  EXPECT_EQ(lookupGpuSpec("h200")->sms, 132);
  // 16 special functions a clock per SM at 1.83 GHz on 132 SMs.
  EXPECT_NEAR(h100().specialFunctions, 16 * 132 * 1.83e9, 1e9);
}

TEST(CostReportTest, ComputeBoundGemm) {
  // 8192^3 in bf16: 2 * 8192^3 = 1.0995e12 FLOPs over 3 * 8192^2 * 2 bytes
  // = 402.7 MB: 1.111 ms of compute against 0.120 ms of memory.
  KernelCost gemm{"gemm", "gemm"};
  gemm.flops = 2LL * 8192 * 8192 * 8192;
  gemm.tensorCore = true;
  gemm.bytesRead = 2LL * 8192 * 8192 * 2;
  gemm.bytesWritten = 8192LL * 8192 * 2;
  EXPECT_NEAR(getRooflineSeconds(gemm, h100()), 1.11129e-3, 1e-8);
}

TEST(CostReportTest, TensorCoreExpsRunOnTheSpecialFunctionUnits) {
  // A fused attention of 989.4 GFLOP on tensor cores (1 ms) with 1.933e9
  // exps (989.4e12 / 256 = 3.865e12 a second: 0.5 ms) is bound by its
  // matmuls; with 7.73e9 exps (2 ms) by its exps, however few its FLOPs.
  KernelCost attention{"attention", "attention-cudnn"};
  attention.flops = 989400000000;
  attention.tensorCore = true;
  attention.transcendentals = 1932421875;
  EXPECT_NEAR(getRooflineSeconds(attention, h100()), 1e-3, 1e-12);
  attention.transcendentals = 7729687500;
  EXPECT_NEAR(getRooflineSeconds(attention, h100()), 2e-3, 1e-12);
}

TEST(CostReportTest, MemoryBoundElementwise) {
  // An add of two 2^24-element f32 tensors: 3 * 4 * 2^24 = 201,326,592
  // bytes at 3.35 TB/s is 60.097 us; its 2^24 FLOPs on the f32 units take
  // 0.25 us.
  KernelCost add{"add", "elementwise"};
  add.flops = 1 << 24;
  add.bytesRead = 2LL * 4 * (1 << 24);
  add.bytesWritten = 4LL * (1 << 24);
  EXPECT_NEAR(getRooflineSeconds(add, h100()), 60.09749e-6, 1e-11);
  // Transcendentals count as f32 work: 2^32 more take 64.1 us, which makes
  // the kernel compute-bound: (2^24 + 2^32) / 67e12 = 64.354 us.
  add.transcendentals = 1LL << 32;
  EXPECT_NEAR(getRooflineSeconds(add, h100()), 64.35440e-6, 1e-11);
}

TEST(CostReportTest, SmallGridsUseAShareOfTheGpu) {
  // A sum of squares over 38.6M f32 gradients (154.4 MB) on one block uses
  // one of 132 SMs: 46.09 us at full bandwidth, 6.084 ms on one block.
  KernelCost norm{"norm", "reduce-block"};
  norm.blocks = 1;
  norm.threads = 256;
  norm.bytesRead = 4LL * 38600000;
  EXPECT_NEAR(getRooflineSeconds(norm, h100()), 6.08382e-3, 1e-8);
  // 264 blocks fill the 132 SMs; a library's grid (0 blocks) is taken to.
  norm.blocks = 264;
  EXPECT_NEAR(getRooflineSeconds(norm, h100()), 46.0896e-6, 1e-10);
  norm.blocks = 0;
  EXPECT_NEAR(getRooflineSeconds(norm, h100()), 46.0896e-6, 1e-10);
}

TEST(CostReportTest, StepTotals) {
  // A GEMM of 989.4 GFLOP (1 ms at peak) and a copy of 3.35 GB (1 ms of
  // memory), each a launch of 2 us: modeled 2.004 ms; the ideal is the
  // GEMM at peak plus the ideal bytes (the copy's 3.35 GB once): 2 ms; the
  // MFU is 989.4 GFLOP / (2.004 ms * peak) = 49.9%.
  StepCost step;
  KernelCost gemm{"gemm", "gemm"};
  gemm.flops = 989400000000;
  gemm.tensorCore = true;
  KernelCost copy{"copy", "copy"};
  copy.bytesRead = 1675000000;
  copy.bytesWritten = 1675000000;
  step.kernels = {gemm, copy};
  step.idealBytes = 3350000000;
  StepEstimate estimate = estimateStep(step, h100());
  EXPECT_NEAR(estimate.seconds, 2.004e-3, 1e-12);
  EXPECT_NEAR(estimate.idealSeconds, 2e-3, 1e-12);
  EXPECT_NEAR(estimate.mfu, 1e-3 / 2.004e-3, 1e-12);
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
  // threads), so 37,696 parts in 148 blocks, and a second launch.
  amprt::ReducePlan norm = amprt::planReduction(1, 38600000);
  EXPECT_EQ(norm.split.span, 1024);
  EXPECT_EQ(norm.split.parts, 37696);
  EXPECT_EQ(norm.grid.blocks, 148);
  EXPECT_EQ(norm.launches, 2);
  // 2304 columns of 8192 rows (a qkv bias gradient): a thread each would
  // be 9 blocks; 30 slices are wanted for 67,584 threads, and slices of a
  // power of two times 256 rows give 16 of 512 rows: 144 blocks.
  amprt::ReducePlan columns = amprt::planReduction(2304, 8192);
  EXPECT_EQ(columns.threads, 1);
  EXPECT_EQ(columns.split.span, 512);
  EXPECT_EQ(columns.split.slices, 16);
  EXPECT_EQ(columns.grid.blocks, 144);
  EXPECT_EQ(columns.launches, 2);
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
