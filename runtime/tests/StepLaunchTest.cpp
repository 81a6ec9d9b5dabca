//===- StepLaunchTest.cpp - generated code's launches on the host ---------===//
//
// launchReduce folds a host step's reductions several outputs at a time,
// side by side; every output must keep the bits of folding it alone
// (the kernel's operator(), foldReduction's order), whether its values lie
// next to its neighbours' or apart, and however the outputs split.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/runtime.h"
#include "amp_runtime/step_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

/// A reduction kernel as the emitter prints them: output i sums `extent`
/// values of `in`, at base + r * rStride from base = i * iStride.
struct StridedSum {
  const float *in;
  float *out;
  int64_t iStride, rStride;
  float identity() const { return 0.0f; }
  int64_t baseOf(int64_t i) const { return i * iStride; }
  float loadAt(int64_t base, int64_t r) const { return in[base + r * rStride]; }
  float combine(float acc, float v) const { return acc + v; }
  void finish(int64_t i, float acc) const { out[i] = acc; }
  int64_t extent = 0;
  void operator()(int64_t i) const {
    const int64_t base = baseOf(i);
    finish(i,
           amprt::foldReduction(
               extent, identity(), [&](int64_t r) { return loadAt(base, r); },
               [&](float a, float v) { return combine(a, v); }));
  }
};

/// Values whose sum depends on the order of its additions.
std::vector<float> values(size_t count) {
  std::mt19937 random(3);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-12, 12);
  std::vector<float> v(count);
  for (float &x : v)
    x = std::ldexp(mantissa(random), exponent(random));
  return v;
}

class StepLaunchTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(amp_device_create(AMP_DEVICE_HOST, 0, &device), nullptr);
    ASSERT_EQ(amp_stream_create(device, &stream), nullptr);
  }
  void TearDown() override {
    amp_stream_destroy(stream);
    amp_device_destroy(device);
  }

  /// Sums a [rows, columns] matrix of order-sensitive values through
  /// launchReduce, down its columns (outputs side by side) or along its
  /// rows (outputs apart), and checks each output against the kernel's
  /// own operator() on it alone.
  void expectEachOutputsBits(int64_t rows, int64_t columns, bool downColumns) {
    std::vector<float> in = values(rows * columns);
    StridedSum kernel{in.data(), nullptr, downColumns ? 1 : columns,
                      downColumns ? columns : 1};
    kernel.extent = downColumns ? rows : columns;
    const int64_t count = downColumns ? columns : rows;
    std::vector<float> launched(count, -1.0f), alone(count, -2.0f);
    kernel.out = launched.data();
    ASSERT_EQ(
        ampstep::launchReduce(stream, "sum", count, kernel.extent, kernel),
        nullptr);
    kernel.out = alone.data();
    for (int64_t i = 0; i < count; ++i)
      kernel(i);
    int64_t unlikeInOrder = 0;
    for (int64_t i = 0; i < count; ++i) {
      ASSERT_EQ(amprt::floatToBits(launched[i]), amprt::floatToBits(alone[i]))
          << "output " << i;
      float inOrder = 0;
      for (int64_t r = 0; r < kernel.extent; ++r)
        inOrder += kernel.loadAt(kernel.baseOf(i), r);
      unlikeInOrder += inOrder != alone[i];
    }
    // The data tell the orders apart, so the check above could fail.
    EXPECT_GT(unlikeInOrder, 0);
  }

  amp_device_t *device = nullptr;
  amp_stream_t *stream = nullptr;
};

TEST_F(StepLaunchTest, AdjacentOutputsKeepTheirOwnOrder) {
  // The outputs' values lie side by side; 700 values cross blocks of the
  // fold, 37 outputs leave a partial group.
  expectEachOutputsBits(700, 37, /*downColumns=*/true);
}

TEST_F(StepLaunchTest, OutputsApartKeepTheirOwnOrder) {
  // Each output's values lie together, the outputs 300 apart.
  expectEachOutputsBits(53, 300, /*downColumns=*/false);
}

TEST_F(StepLaunchTest, ManyOutputsSplitOverTheThreads) {
  // Enough outputs for launchReduce to hand ranges to every thread.
  expectEachOutputsBits(600, 2051, /*downColumns=*/true);
}

} // namespace
