//===- StepTest.cpp - the compiled-step API under misuse and restarts -----===//
//
// amp-compile's libraries are exercised end to end by the lit tests; here
// the runtime's half of the contract is driven directly, with a small step
// written by hand whose every value can be worked out on paper:
//
//   w: param f32[3], m: state f32[3] (starts at 0.5),
//   scale: state f32[] (starts at 1024), x: input f32[3], k: input i64[2]
//   loss      = sum(w * x) + k[0] - k[1]
//   found_inf = any x is not finite
//   unless found_inf: w -= 0.25 * m * x, m += 1
//   found_inf: scale /= 2
//
// The tests cover bad descriptions, bad arguments, bad batches, bad .npy
// files, corrupted and truncated state files (refused, the old state kept)
// and a saver killed mid-write (the last good state loads and the resumed
// run continues bit for bit). The step's update runs on the host's thread
// pool, as compiled steps' kernels do.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/step.h"

#include "amp_runtime/state_file.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace {

amp_status_t handStep(amp_stream_t *, void *const *tensors, void *, float *loss,
                      float *foundInf, double *counters) {
  auto *w = static_cast<float *>(tensors[0]);
  auto *m = static_cast<float *>(tensors[1]);
  auto *scale = static_cast<float *>(tensors[2]);
  auto *x = static_cast<const float *>(tensors[3]);
  auto *k = static_cast<const int64_t *>(tensors[4]);
  float sum = 0;
  bool found = false;
  for (int i = 0; i < 3; ++i) {
    sum += w[i] * x[i];
    found |= !std::isfinite(x[i]);
  }
  *loss = sum + static_cast<float>(k[0] - k[1]);
  *foundInf = found ? 1.0f : 0.0f;
  if (found) {
    *scale /= 2;
  } else {
    // The update runs on the host's threads, as a compiled step's kernels
    // do, one element per range: the killed saver below forks a process
    // whose parent's pool has live workers, and the child makes its own.
    struct Update {
      float *w, *m;
      const float *x;
    } update{w, m, x};
    amp_status_t status = amp_host_parallel_for(
        3, 1,
        [](void *context, int64_t begin, int64_t end) {
          auto *u = static_cast<Update *>(context);
          for (int64_t i = begin; i < end; ++i) {
            u->w[i] -= 0.25f * u->m[i] * u->x[i];
            u->m[i] += 1;
          }
        },
        &update);
    if (status)
      return status;
  }
  counters[0] += 1;
  counters[1] += found;
  return nullptr;
}

const amp_step_tensor_t kTensors[] = {
    {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {3}, 3, 0},
    {"m", AMP_STEP_STATE, AMP_ELEMENT_F32, 1, {3}, 0, 0.5},
    {"scale", AMP_STEP_STATE, AMP_ELEMENT_F32, 0, {}, 0, 1024},
    {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {3}, 0, 0},
    {"k", AMP_STEP_INPUT, AMP_ELEMENT_I64, 1, {2}, 0, 0},
};

amp_step_description_t handDescription() {
  return {AMP_STEP_ABI_VERSION,
          "hand",
          AMP_DEVICE_HOST,
          5,
          kTensors,
          2,
          64,
          &handStep};
}

class StepTest : public TempDirectoryTest {
protected:
  void SetUp() override {
    TempDirectoryTest::SetUp();
    ASSERT_EQ(amp_step_create(&description, AMP_DEVICE_HOST, &step), nullptr);
  }
  void TearDown() override {
    amp_step_destroy(step);
    TempDirectoryTest::TearDown();
  }

  std::vector<float> read(size_t index, size_t count) {
    std::vector<float> values(count);
    EXPECT_EQ(amp_step_read_tensor(step, index, values.data(), count * 4),
              nullptr);
    return values;
  }
  void write(size_t index, std::vector<float> values) {
    ASSERT_EQ(
        amp_step_write_tensor(step, index, values.data(), values.size() * 4),
        nullptr);
  }
  /// Runs one step on x and k = {5, 2}; returns the loss.
  float run(std::vector<float> x) {
    static const int64_t xShape[] = {3}, kShape[] = {2};
    int64_t k[] = {5, 2};
    amp_step_input_t inputs[] = {{x.data(), AMP_ELEMENT_F32, 1, xShape},
                                 {k, AMP_ELEMENT_I64, 1, kShape}};
    EXPECT_EQ(amp_step_run(step, 2, inputs), nullptr);
    float loss = 0, found = 0;
    EXPECT_EQ(amp_step_result(step, &loss, &found), nullptr);
    return loss;
  }
  amp_step_description_t description = handDescription();
  amp_step_t *step = nullptr;
};

TEST(StepCreateTest, RefusesBadDescriptionsAndTheWrongDevice) {
  amp_step_t *step = reinterpret_cast<amp_step_t *>(1);
  amp_step_description_t d = handDescription();
  EXPECT_STATUS(amp_step_create(nullptr, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "null");
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, nullptr),
                AMP_INVALID_ARGUMENT, "null");

  d.abi_version = AMP_STEP_ABI_VERSION + 1;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "recompile it");
  EXPECT_EQ(step, nullptr); // cleared on every failure
  d = handDescription();
  d.run = nullptr;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "lacks its code");
  d = handDescription();
  d.target = AMP_DEVICE_CUDA;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step), AMP_UNAVAILABLE,
                "compiled for the cuda target");
  d = handDescription();
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_CUDA, &step), AMP_UNAVAILABLE,
                "compiled for the host target");
  int badDevice = 77; // legal C, not a kind: refused by its number
  // Passed as the value a C caller passes (a variable of the enum type
  // holding 77 would be an invalid load here, in C++).
  EXPECT_STATUS(
      amp_step_create(&d, static_cast<amp_device_kind_t>(badDevice), &step),
      AMP_INVALID_ARGUMENT, "unknown device kind 77");
  std::memcpy(&d.target, &badDevice, sizeof badDevice);
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "unknown target 77");
  // amp_step_init could not start these: a negative fan-in (NaN weights)
  // and an initial value that is not finite.
  amp_step_tensor_t starts[5];
  std::memcpy(starts, kTensors, sizeof starts);
  d = handDescription();
  d.tensors = starts;
  starts[0].fan_in = -5;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT,
                "tensor 0 ('w') of step 'hand' starts from fan-in -5");
  starts[0].fan_in = 3;
  starts[1].initial = NAN;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "the initial value must be finite");
  d = handDescription();
  d.loss_scale_tensor = 0; // a parameter
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "not an f32 state tensor");
  d.loss_scale_tensor = 5;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "not an f32 state tensor");

  amp_step_tensor_t tensors[5];
  std::memcpy(tensors, kTensors, sizeof tensors);
  d = handDescription();
  d.tensors = tensors;
  tensors[3].shape[0] = -3;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "tensor 3");
  tensors[3].shape[0] = 3;
  tensors[4].rank = AMP_STEP_MAX_RANK + 1;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "tensor 4");
  tensors[4].rank = 1;
  int badType = 42; // as a C caller could store it
  std::memcpy(&tensors[1].type, &badType, sizeof badType);
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "tensor 1");
  tensors[1].type = AMP_ELEMENT_F32;
  int badKind = 9; // as a C caller could store it
  std::memcpy(&tensors[0].kind, &badKind, sizeof badKind);
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "tensor 0");
  tensors[0].kind = AMP_STEP_PARAM;
  // 2^62 f32 elements: 2^64 bytes, which wrapped to 0 and crashed the step.
  tensors[0].shape[0] = int64_t(1) << 62;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "does not fit in 64 bits");
  tensors[0].shape[0] = 3;
  tensors[3].rank = 2;
  tensors[3].shape[0] = tensors[3].shape[1] = int64_t(1) << 32;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "tensor 3 ('x')");
  EXPECT_EQ(step, nullptr);
}

TEST_F(StepTest, StartsAtTheInitialStateAndInitialisesBySeed) {
  EXPECT_EQ(read(0, 3), std::vector<float>(3, 0.0f));
  EXPECT_EQ(read(1, 3), std::vector<float>(3, 0.5f));
  EXPECT_EQ(read(2, 1), std::vector<float>{1024.0f});

  ASSERT_EQ(amp_step_init(step, 7), nullptr);
  std::vector<float> first = read(0, 3);
  for (float v : first) {
    EXPECT_GE(v, -1 / std::sqrt(3.0f));
    EXPECT_LT(v, 1 / std::sqrt(3.0f));
  }
  EXPECT_NE(first[0], first[1]);
  run({1, 1, 1});
  ASSERT_EQ(amp_step_init(step, 7), nullptr);
  EXPECT_EQ(read(0, 3), first);                       // same seed, same weights
  EXPECT_EQ(read(1, 3), std::vector<float>(3, 0.5f)); // state reset
  float scale = 0;
  int64_t steps = -1, skipped = -1;
  ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(steps, 0);
  ASSERT_EQ(amp_step_init(step, 8), nullptr);
  EXPECT_NE(read(0, 3), first);
}

// A parameter with fan-in 0 starts at its initial value (a norm scale at
// 1), whatever the seed, and takes no draw from the generator.
TEST(StepInitTest, FanInZeroStartsAtTheInitialValue) {
  amp_step_tensor_t tensors[5];
  std::memcpy(tensors, kTensors, sizeof tensors);
  amp_step_tensor_t constant = {"g", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {3}, 0,
                                1.0};
  amp_step_tensor_t withConstant[6] = {constant,   tensors[0], tensors[1],
                                       tensors[2], tensors[3], tensors[4]};
  amp_step_description_t d = handDescription();
  d.tensors = withConstant;
  d.tensor_count = 6;
  d.loss_scale_tensor = 3;
  amp_step_t *step = nullptr, *plain = nullptr;
  ASSERT_EQ(amp_step_create(&d, AMP_DEVICE_HOST, &step), nullptr);
  amp_step_description_t p = handDescription();
  ASSERT_EQ(amp_step_create(&p, AMP_DEVICE_HOST, &plain), nullptr);
  ASSERT_EQ(amp_step_init(step, 7), nullptr);
  ASSERT_EQ(amp_step_init(plain, 7), nullptr);
  std::vector<float> g(3), w(3), wPlain(3);
  ASSERT_EQ(amp_step_read_tensor(step, 0, g.data(), 12), nullptr);
  ASSERT_EQ(amp_step_read_tensor(step, 1, w.data(), 12), nullptr);
  ASSERT_EQ(amp_step_read_tensor(plain, 0, wPlain.data(), 12), nullptr);
  EXPECT_EQ(g, std::vector<float>(3, 1.0f));
  EXPECT_EQ(w, wPlain); // the same draws for the weight after it
  amp_step_destroy(step);
  amp_step_destroy(plain);
}

TEST_F(StepTest, RunsAndCountsAsWorkedOutByHand) {
  write(0, {1, 2, 3});
  // loss = 1*1 + 2*(-1) + 3*2 + 5 - 2 = 8; w -= 0.25 * 0.5 * x.
  EXPECT_EQ(run({1, -1, 2}), 8.0f);
  EXPECT_EQ(read(0, 3), (std::vector<float>{0.875f, 2.125f, 2.75f}));
  EXPECT_EQ(read(1, 3), std::vector<float>(3, 1.5f));
  // An infinite input: skipped, the scale halves, nothing else moves.
  run({1, INFINITY, 0});
  float loss = 0, found = 0, scale = 0;
  int64_t steps = 0, skipped = 0;
  ASSERT_EQ(amp_step_result(step, &loss, &found), nullptr);
  EXPECT_EQ(found, 1.0f);
  ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(scale, 512.0f);
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(read(0, 3), (std::vector<float>{0.875f, 2.125f, 2.75f}));
}

// Host work runs as it is issued: there is no graph to capture, and the
// step goes on running its launches. (The replay on a GPU is checked by
// test/Target/Cuda/cuda-differential.test.)
TEST_F(StepTest, CaptureIsRefusedOnTheHostAndTheStepStillRuns) {
  EXPECT_STATUS(amp_step_capture(step), AMP_UNAVAILABLE, "CUDA stream");
  EXPECT_STATUS(amp_step_capture(nullptr), AMP_INVALID_ARGUMENT, "null");
  write(0, {1, 2, 3});
  EXPECT_EQ(run({1, -1, 2}), 8.0f);
  EXPECT_EQ(read(0, 3), (std::vector<float>{0.875f, 2.125f, 2.75f}));
}

TEST_F(StepTest, RefusesBadBatchesBeforeTouchingAnything) {
  float x[3] = {1, 2, 3};
  int64_t k[2] = {0, 0};
  const int64_t three[] = {3}, two[] = {2}, four[] = {4}, oneByThree[] = {1, 3};
  amp_step_input_t good[] = {{x, AMP_ELEMENT_F32, 1, three},
                             {k, AMP_ELEMENT_I64, 1, two}};
  EXPECT_STATUS(amp_step_run(step, 1, good), AMP_INVALID_ARGUMENT,
                "takes 2 batch inputs, not 1");
  EXPECT_STATUS(amp_step_run(step, 2, nullptr), AMP_INVALID_ARGUMENT,
                "inputs is null");
  amp_step_input_t wrongType[] = {{x, AMP_ELEMENT_F16, 1, three}, good[1]};
  EXPECT_STATUS(amp_step_run(step, 2, wrongType), AMP_INVALID_ARGUMENT,
                "input 0 ('x') must be [3] x f32; got [3] x f16");
  amp_step_input_t wrongShape[] = {good[0], {k, AMP_ELEMENT_I64, 1, four}};
  EXPECT_STATUS(amp_step_run(step, 2, wrongShape), AMP_INVALID_ARGUMENT,
                "input 1 ('k') must be [2] x i64; got [4] x i64");
  amp_step_input_t wrongRank[] = {{x, AMP_ELEMENT_F32, 2, oneByThree}, good[1]};
  EXPECT_STATUS(amp_step_run(step, 2, wrongRank), AMP_INVALID_ARGUMENT,
                "got [1, 3] x f32");
  amp_step_input_t noShape[] = {{x, AMP_ELEMENT_F32, 1, nullptr}, good[1]};
  EXPECT_STATUS(amp_step_run(step, 2, noShape), AMP_INVALID_ARGUMENT,
                "got a bad shape");
  amp_step_input_t badRank[] = {{x, AMP_ELEMENT_F32, -1, three}, good[1]};
  EXPECT_STATUS(amp_step_run(step, 2, badRank), AMP_INVALID_ARGUMENT,
                "got a bad shape");
  amp_step_input_t badType[] = {good[0], good[1]};
  int ninetyNine = 99; // as a C caller could store it
  std::memcpy(&badType[0].type, &ninetyNine, sizeof ninetyNine);
  EXPECT_STATUS(amp_step_run(step, 2, badType), AMP_INVALID_ARGUMENT, "x ?");
  amp_step_input_t noData[] = {good[0], {nullptr, AMP_ELEMENT_I64, 1, two}};
  EXPECT_STATUS(amp_step_run(step, 2, noData), AMP_INVALID_ARGUMENT,
                "has no data");
  float scale = 0;
  int64_t steps = -1, skipped = -1;
  ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(steps, 0); // no bad batch ran
}

// k read as positions in [0, 8) by a reader that also lets -100 through
// (cross-entropy's ignore_index), and as rows of a 6-row table.
const amp_step_index_check_t kIndexChecks[] = {
    {4, 8, 1, -100, "read by amp.cross_entropy at hand.mlir:3:5"},
    {4, 6, 0, 0, "read by amp.embedding at hand.mlir:2:5"},
};

TEST(StepIndexTest, ABadIdOrLabelStopsTheStepBeforeItRuns) {
  amp_step_description_t d = handDescription();
  d.index_check_count = 2;
  d.index_checks = kIndexChecks;
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&d, AMP_DEVICE_HOST, &step), nullptr);
  ASSERT_EQ(amp_step_init(step, 7), nullptr);
  float x[3] = {1, 2, 3};
  const int64_t three[] = {3}, two[] = {2};
  auto runOn = [&](int64_t k0, int64_t k1) {
    int64_t k[2] = {k0, k1};
    amp_step_input_t inputs[] = {{x, AMP_ELEMENT_F32, 1, three},
                                 {k, AMP_ELEMENT_I64, 1, two}};
    return Status(amp_step_run(step, 2, inputs));
  };
  ASSERT_EQ(runOn(5, 0).code(), AMP_OK);
  std::vector<float> w(3), m(3);
  ASSERT_EQ(amp_step_read_tensor(step, 0, w.data(), 12), nullptr);
  ASSERT_EQ(amp_step_read_tensor(step, 1, m.data(), 12), nullptr);

  struct Case {
    int64_t k0, k1;
    const char *message;
  } cases[] = {
      {5, 8,
       "input 'k' holds 8 at [1], outside [0, 8): read by "
       "amp.cross_entropy at hand.mlir:3:5; the step did not run"},
      {-1, 0, "holds -1 at [0], outside [0, 8)"},
      {int64_t(1) << 40, 0, "holds 1099511627776 at [0]"},
      {0, std::numeric_limits<int64_t>::min(), "holds -9223372036854775808"},
      // Allowed as the ignored label, not as a row of the table.
      {-100, 0, "holds -100 at [0], outside [0, 6): read by amp.embedding"},
      // Inside the labels' range, past the table's rows.
      {7, 0, "holds 7 at [0], outside [0, 6)"},
  };
  for (const Case &c : cases) {
    Status status = runOn(c.k0, c.k1);
    EXPECT_EQ(status.code(), AMP_INVALID_ARGUMENT) << c.k0 << ", " << c.k1;
    EXPECT_NE(status.message().find(c.message), std::string::npos)
        << status.message();
  }
  // Nothing ran: the state is the first step's and so are the counters.
  std::vector<float> wAfter(3), mAfter(3);
  ASSERT_EQ(amp_step_read_tensor(step, 0, wAfter.data(), 12), nullptr);
  ASSERT_EQ(amp_step_read_tensor(step, 1, mAfter.data(), 12), nullptr);
  EXPECT_EQ(wAfter, w);
  EXPECT_EQ(mAfter, m);
  float scale = 0;
  int64_t steps = -1, skipped = -1;
  ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(steps, 1);
  EXPECT_EQ(skipped, 0);
  // The step goes on with the next good batch.
  EXPECT_EQ(runOn(0, 5).code(), AMP_OK);
  amp_step_destroy(step);
}

TEST(StepDataTest, ADataSetIsCheckedByItsRows) {
  amp_step_description_t d = handDescription();
  d.index_check_count = 2;
  d.index_checks = kIndexChecks;
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&d, AMP_DEVICE_HOST, &step), nullptr);
  // k's rows are its elements (k is [2]): row 2 breaks the table's 6 rows,
  // -100 is the labels' ignored value but no row of the table.
  const int64_t ids[] = {5, 2, 6, 1}, ignored[] = {0, -100};
  EXPECT_STATUS(amp_step_check_data(step, 0, 4, ids, 4, 1),
                AMP_INVALID_ARGUMENT,
                "row 2 of input 'k' holds 6, outside [0, 6): read by "
                "amp.embedding at hand.mlir:2:5");
  EXPECT_STATUS(amp_step_check_data(step, 0, 4, ignored, 2, 1),
                AMP_INVALID_ARGUMENT, "row 1 of input 'k' holds -100");
  EXPECT_EQ(amp_step_check_data(step, 0, 4, ids, 2, 1), nullptr);
  // Floats must be finite, unless the caller allows them not to be.
  const float x[] = {1, 2, NAN, 4};
  EXPECT_STATUS(amp_step_check_data(step, 0, 3, x, 4, 1), AMP_INVALID_ARGUMENT,
                "row 2 of input 'x' holds nan: a value that is not finite");
  EXPECT_EQ(amp_step_check_data(step, 0, 3, x, 4, 0), nullptr);
  EXPECT_EQ(amp_step_check_data(step, 0, 3, nullptr, 0, 1), nullptr);
  // Only batch inputs have rows; no evaluation, no evaluation's inputs.
  EXPECT_STATUS(amp_step_check_data(step, 0, 0, x, 1, 1), AMP_INVALID_ARGUMENT,
                "tensor 0 of the step of 'hand' is no batch input");
  EXPECT_STATUS(amp_step_check_data(step, 0, 5, x, 1, 1), AMP_INVALID_ARGUMENT,
                "no batch input");
  EXPECT_STATUS(amp_step_check_data(step, 0, 3, nullptr, 2, 1),
                AMP_INVALID_ARGUMENT, "are no data set");
  EXPECT_STATUS(amp_step_check_data(step, 1, 3, x, 4, 1), AMP_UNAVAILABLE,
                "without an evaluation");
  amp_step_destroy(step);
}

TEST(StepIndexTest, RefusesChecksOnAnythingButAnIntegerInput) {
  amp_step_t *step = reinterpret_cast<amp_step_t *>(1);
  amp_step_description_t d = handDescription();
  d.index_check_count = 1;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "lacks its index checks");
  for (size_t tensor : {size_t(0), size_t(3), size_t(5)}) {
    amp_step_index_check_t check = {tensor, 8, 0, 0, "read by amp.embedding"};
    d.index_checks = &check;
    EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                  AMP_INVALID_ARGUMENT,
                  "index check 0 of step 'hand' is not on an integer batch "
                  "input");
    EXPECT_EQ(step, nullptr);
  }
}

TEST_F(StepTest, NullsAndBadIndicesAreStatusesNotCrashes) {
  float value[3] = {0, 0, 0}, loss = 0, found = 0, scale = 0;
  int64_t steps = 0, skipped = 0;
  EXPECT_STATUS(amp_step_init(nullptr, 1), AMP_INVALID_ARGUMENT, "null");
  EXPECT_STATUS(amp_step_run(nullptr, 0, nullptr), AMP_INVALID_ARGUMENT,
                "null");
  EXPECT_STATUS(amp_step_result(nullptr, &loss, &found), AMP_INVALID_ARGUMENT,
                "null");
  EXPECT_STATUS(amp_step_result(step, nullptr, &found), AMP_INVALID_ARGUMENT,
                "null");
  EXPECT_STATUS(amp_step_scaler(step, &scale, nullptr, &skipped),
                AMP_INVALID_ARGUMENT, "null");
  EXPECT_STATUS(amp_step_save(nullptr, "x"), AMP_INVALID_ARGUMENT, "null");
  EXPECT_STATUS(amp_step_save(step, nullptr), AMP_INVALID_ARGUMENT, "null");
  EXPECT_STATUS(amp_step_load(step, nullptr), AMP_INVALID_ARGUMENT, "null");
  EXPECT_STATUS(amp_step_load_npy(step, 0, nullptr), AMP_INVALID_ARGUMENT,
                "null");
  EXPECT_STATUS(amp_step_read_tensor(nullptr, 0, value, 12),
                AMP_INVALID_ARGUMENT, "null");
  EXPECT_STATUS(amp_step_read_tensor(step, 5, value, 12), AMP_OUT_OF_RANGE,
                "tensor 5 of a step with 5");
  EXPECT_STATUS(amp_step_write_tensor(step, 0, nullptr, 12),
                AMP_INVALID_ARGUMENT, "data is null");
  EXPECT_STATUS(amp_step_write_tensor(step, 0, value, 8), AMP_INVALID_ARGUMENT,
                "tensor 'w' ([3] x f32) holds 12 bytes, not 8");
  EXPECT_EQ(amp_step_description(nullptr), nullptr);
  EXPECT_EQ(amp_step_description(step), &description);
  amp_step_destroy(nullptr); // a no-op
  (void)steps;
}

/// A version 1 .npy file with the header dictionary `header`.
std::string npyWithHeader(std::string header, const std::string &data) {
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  std::string bytes = "\x93NUMPY\x01";
  bytes += '\0';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + data;
}

/// A version 1 .npy file as numpy writes it.
std::string npy(const std::string &descr, const std::string &shape,
                const std::string &data) {
  return npyWithHeader("{'descr': '" + descr +
                           "', 'fortran_order': False, 'shape': " + shape +
                           ", }",
                       data);
}

TEST_F(StepTest, LoadsNpyFilesOnlyOfTheRightTypeAndShape) {
  float values[3] = {1.5f, -2, 4};
  std::string data(reinterpret_cast<char *>(values), 12);
  std::string path = directory + "/w.npy";
  writeFile(path, npy("<f4", "(3,)", data));
  ASSERT_EQ(amp_step_load_npy(step, 0, path.c_str()), nullptr);
  EXPECT_EQ(read(0, 3), (std::vector<float>{1.5f, -2, 4}));

  struct Case {
    std::string bytes, fragment;
    amp_status_code_t code;
  } cases[] = {
      {npy("<f8", "(3,)", data + data), "holds '<f8'; tensor 'w' needs '<f4'",
       AMP_INVALID_ARGUMENT},
      {npy("<f4", "(4,)", data + "abcd"), "has shape (4,); tensor 'w'",
       AMP_INVALID_ARGUMENT},
      {npy("<f4", "(3,)", data.substr(0, 10)), "the data is truncated",
       AMP_DATA_LOSS},
      {npy("<f4", "(3,)", data + "!"), "bytes after its data",
       AMP_INVALID_ARGUMENT},
      {"not numpy at all", "not a version 1, 2 or 3 .npy file",
       AMP_INVALID_ARGUMENT},
      // A key twice: numpy would take the last value, a reader that stops
      // at the first another.
      {npyWithHeader("{'descr': '<f8', 'descr': '<f4', 'fortran_order': "
                     "False, 'shape': (3,), }",
                     data),
       "has a malformed .npy header", AMP_INVALID_ARGUMENT},
      {npy("<f4", "(3,)", data).substr(0, 30), "header is truncated",
       AMP_DATA_LOSS},
      // Malformed headers are named as such, not read as another dtype.
      {npyWithHeader("{'descr': , 'fortran_order': False, 'shape': (3,), }",
                     data),
       "has a malformed .npy header", AMP_INVALID_ARGUMENT},
      {npyWithHeader("{'fortran_order': False, 'shape': (3,), }", data),
       "has a malformed .npy header", AMP_INVALID_ARGUMENT},
      {npyWithHeader("'descr': '<f4', 'fortran_order': False, 'shape': (3,)",
                     data),
       "has a malformed .npy header", AMP_INVALID_ARGUMENT},
      {npyWithHeader("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,), }",
                     data),
       "has a malformed .npy header", AMP_INVALID_ARGUMENT},
      {npyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': 3, }",
                     data),
       "has a malformed .npy header", AMP_INVALID_ARGUMENT},
  };
  for (const Case &c : cases) {
    writeFile(path, c.bytes);
    EXPECT_STATUS(amp_step_load_npy(step, 0, path.c_str()), c.code, c.fragment);
  }
  EXPECT_STATUS(amp_step_load_npy(step, 0, (directory + "/none").c_str()),
                AMP_IO_ERROR, "cannot open");
  EXPECT_EQ(read(0, 3), (std::vector<float>{1.5f, -2, 4})); // unchanged
  // Version 2 (a 4-byte header length), as amp-run reads it too.
  std::string v1 = npy("<f4", "(3,)", data);
  std::string v2 = "\x93NUMPY\x02";
  v2 += '\0';
  v2 += v1.substr(8, 2) + std::string(2, '\0') + v1.substr(10);
  writeFile(path, v2);
  write(0, {0, 0, 0});
  ASSERT_EQ(amp_step_load_npy(step, 0, path.c_str()), nullptr);
  EXPECT_EQ(read(0, 3), (std::vector<float>{1.5f, -2, 4}));
  // Python writes no leading zeros in a shape and reads none.
  amp_step_tensor_t inspected{};
  inspected.name = "w";
  writeFile(path, npy("<f4", "(03,)", data));
  EXPECT_STATUS(amp_npy_inspect(path.c_str(), &inspected), AMP_INVALID_ARGUMENT,
                "which is no tuple");
}

// Saved tensors are the files numpy writes, byte for byte; each save
// replaces the file whole, and a save that cannot be made leaves none.
TEST_F(StepTest, SavesNpyFilesAsNumpyWritesThem) {
  float values[3] = {1.5f, -2, 4};
  write(0, {1.5f, -2, 4});
  std::string path = directory + "/w.npy";
  writeFile(path, "an older file, replaced whole");
  ASSERT_EQ(amp_step_save_npy(step, 0, path.c_str()), nullptr);
  EXPECT_EQ(
      readFile(path),
      npy("<f4", "(3,)", std::string(reinterpret_cast<char *>(values), 12)));
  // The loss scale is a scalar: shape ().
  float scale = 1024;
  ASSERT_EQ(amp_step_save_npy(step, 2, (directory + "/s.npy").c_str()),
            nullptr);
  EXPECT_EQ(readFile(directory + "/s.npy"),
            npy("<f4", "()", std::string(reinterpret_cast<char *>(&scale), 4)));
  ASSERT_EQ(amp_step_load_npy(step, 0, path.c_str()), nullptr);
  EXPECT_EQ(read(0, 3), (std::vector<float>{1.5f, -2, 4}));

  EXPECT_STATUS(amp_step_save_npy(step, 0, (directory + "/no/w.npy").c_str()),
                AMP_IO_ERROR, "cannot create");
  EXPECT_STATUS(amp_step_save_npy(step, 9, path.c_str()), AMP_OUT_OF_RANGE,
                "tensor 9");
  EXPECT_STATUS(amp_step_save_npy(step, 0, ""), AMP_INVALID_ARGUMENT,
                "path is empty");
  EXPECT_STATUS(amp_step_save_npy(nullptr, 0, path.c_str()),
                AMP_INVALID_ARGUMENT, "step is null");
}

TEST_F(StepTest, SaveLoadContinuesTheSameTrajectory) {
  ASSERT_EQ(amp_step_init(step, 3), nullptr);
  run({1, 2, 3});
  run({NAN, 0, 0});
  std::string path = directory + "/s.ampstate";
  ASSERT_EQ(amp_step_save(step, path.c_str()), nullptr);
  std::vector<float> uninterrupted;
  for (int i = 0; i < 3; ++i)
    uninterrupted.push_back(run({0.5f * i, -1, 2}));
  std::vector<float> weights = read(0, 3);

  // A fresh step loaded from the file takes the same path, bit for bit.
  amp_step_t *resumed = nullptr;
  ASSERT_EQ(amp_step_create(&description, AMP_DEVICE_HOST, &resumed), nullptr);
  std::swap(step, resumed);
  ASSERT_EQ(amp_step_load(step, path.c_str()), nullptr);
  float scale = 0;
  int64_t steps = 0, skipped = 0;
  ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(scale, 512.0f);
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(skipped, 1);
  std::vector<float> continued;
  for (int i = 0; i < 3; ++i)
    continued.push_back(run({0.5f * i, -1, 2}));
  EXPECT_EQ(continued, uninterrupted);
  EXPECT_EQ(read(0, 3), weights);
  amp_step_destroy(resumed);
}

TEST_F(StepTest, ImpossibleScalerStateAndCountersAreRefused) {
  // Written: the loss scale must be finite and positive.
  for (float bad : {NAN, 0.0f, -1.0f, INFINITY})
    EXPECT_STATUS(amp_step_write_tensor(step, 2, &bad, sizeof bad),
                  AMP_INVALID_ARGUMENT,
                  "the loss scale 'scale' must be "
                  "finite and positive");
  // Loaded: state files of the step's entries with a right checksum and
  // values no step produces.
  std::vector<float> w = read(0, 3), m = read(1, 3);
  struct File {
    float scale;
    double counters[2];
    const char *message;
  } files[] = {
      {NAN, {3, 0}, "the loss scale 'scale' must be finite and positive"},
      {-1, {3, 0}, "the loss scale 'scale' must be finite and positive"},
      {1024,
       {1e300, 0},
       "its counters (1e+300 steps, 0 skipped) are no counts"},
      {1024, {NAN, 0}, "are no counts"},
      {1024, {3, 5}, "are no counts"},
      {1024, {2.5, 0}, "are no counts"},
      {1024, {-1, 0}, "are no counts"},
  };
  for (File &f : files) {
    amp_state_entry_t entries[] = {{"w", w.data(), 12},
                                   {"m", m.data(), 12},
                                   {"scale", &f.scale, 4},
                                   {"amp.counters", f.counters, 16}};
    std::string path = directory + "/crafted";
    ASSERT_EQ(amp_state_save(path.c_str(), 4, entries), nullptr);
    EXPECT_STATUS(amp_step_load(step, path.c_str()), AMP_INVALID_ARGUMENT,
                  f.message);
  }
  // Nothing was loaded.
  float scale = 0;
  int64_t steps = -1, skipped = -1;
  ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(scale, 1024);
  EXPECT_EQ(steps, 0);
}

TEST_F(StepTest, ANonFiniteStateIsNotSavedOverAnother) {
  std::string good = directory + "/good";
  ASSERT_EQ(amp_step_save(step, good.c_str()), nullptr);
  const std::string before = readFile(good);
  write(0, {1, NAN, 3});
  EXPECT_STATUS(amp_step_save(step, good.c_str()), AMP_INVALID_ARGUMENT,
                "parameter 'w' of step 'hand' holds nan at [1]: a state that "
                "is not finite is not saved over");
  EXPECT_EQ(readFile(good), before);
  // To a new path it is saved, for whoever wants to look at it.
  EXPECT_EQ(amp_step_save(step, (directory + "/diverged").c_str()), nullptr);
}

TEST_F(StepTest, CorruptTruncatedOrForeignStatesAreRefusedAndTheOldStateKept) {
  write(0, {1, 2, 3});
  std::string path = directory + "/s.ampstate";
  ASSERT_EQ(amp_step_save(step, path.c_str()), nullptr);
  const std::string good = readFile(path);
  write(0, {7, 8, 9});
  run({1, 1, 1});
  const std::vector<float> w = read(0, 3), m = read(1, 3);
  for (size_t length = 0; length < good.size(); length += 7) {
    writeFile(path, good.substr(0, length));
    EXPECT_EQ(Status(amp_step_load(step, path.c_str())).code(), AMP_DATA_LOSS)
        << "length " << length;
  }
  for (size_t at = 0; at < good.size(); at += 5) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x01);
    writeFile(path, bad);
    Status status(amp_step_load(step, path.c_str()));
    EXPECT_NE(status.status, nullptr) << "byte " << at;
  }
  // The state of another step: same names, other shapes.
  amp_step_tensor_t tensors[5];
  std::memcpy(tensors, kTensors, sizeof tensors);
  tensors[0].shape[0] = 4;
  amp_step_description_t other = handDescription();
  other.tensors = tensors;
  amp_step_t *foreign = nullptr;
  ASSERT_EQ(amp_step_create(&other, AMP_DEVICE_HOST, &foreign), nullptr);
  ASSERT_EQ(amp_step_save(foreign, path.c_str()), nullptr);
  amp_step_destroy(foreign);
  EXPECT_STATUS(amp_step_load(step, path.c_str()), AMP_INVALID_ARGUMENT,
                "entry 'w'");

  EXPECT_EQ(read(0, 3), w);
  EXPECT_EQ(read(1, 3), m);
  float scale = 0;
  int64_t steps = 0, skipped = 0;
  ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(steps, 1);
}

TEST_F(StepTest, ASaverKilledAtAnyPointLeavesAStateThatResumesExactly) {
  // A child trains and saves after every step until it is killed; whenever
  // that happens, the file holds some whole step's state, and a run resumed
  // from it continues exactly as a run that never stopped.
  std::string path = directory + "/s.ampstate";
  auto batch = [](int64_t i) {
    return std::vector<float>{0.25f * static_cast<float>(i % 5), -0.5f,
                              i % 7 == 6 ? INFINITY : 1.0f};
  };
  // The reference: 400 steps from seed 11, every loss.
  ASSERT_EQ(amp_step_init(step, 11), nullptr);
  std::vector<float> reference;
  for (int64_t i = 0; i < 400; ++i)
    reference.push_back(run(batch(i)));

  // Twenty kills at pseudo-random moments over the child's first ~30 ms
  // (it saves about once per millisecond), the same moments every run.
  std::vector<int> delays;
  uint64_t state = 0x2545f4914f6cdd1dull;
  for (int k = 0; k < 20; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    delays.push_back(static_cast<int>((state >> 33) % 30000));
  }
  int resumed = 0;
  for (int delayUs : delays) {
    std::remove(path.c_str());
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) { // no gtest assertions here: they would return
      if (amp_status_t status = amp_step_init(step, 11)) {
        amp_status_free(status);
        _exit(1);
      }
      for (int64_t i = 0; i < 300; ++i) {
        run(batch(i));
        amp_status_free(amp_step_save(step, path.c_str()));
      }
      _exit(0);
    }
    usleep(static_cast<useconds_t>(delayUs));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    if (access(path.c_str(), F_OK) != 0)
      continue; // killed before the first save finished: nothing to load
    ++resumed;
    ASSERT_EQ(amp_step_init(step, 99), nullptr); // anything but the saved state
    ASSERT_EQ(amp_step_load(step, path.c_str()), nullptr)
        << "after " << delayUs << " us";
    float scale = 0;
    int64_t steps = 0, skipped = 0;
    ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
    ASSERT_GE(steps, 1);
    for (int64_t i = steps; i < steps + 50; ++i)
      ASSERT_EQ(run(batch(i)), reference[static_cast<size_t>(i)])
          << "step " << i << " after a kill at step " << steps;
  }
  EXPECT_GE(resumed, 10); // most kills find a saved state
}

} // namespace

namespace {

//===----------------------------------------------------------------------===//
// Hyperparameters: w: param f32[2], lr: hparam f64 (starts at 0.5),
// x: input f32[2]; the step does w -= lr * x and returns the old sum(w).
//===----------------------------------------------------------------------===//

amp_status_t hyperStep(amp_stream_t *, void *const *tensors, void *,
                       float *loss, float *foundInf, double *counters) {
  auto *w = static_cast<float *>(tensors[0]);
  double lr = *static_cast<const double *>(tensors[1]);
  auto *x = static_cast<const float *>(tensors[2]);
  *loss = w[0] + w[1];
  *foundInf = 0;
  for (int i = 0; i < 2; ++i)
    w[i] = static_cast<float>(w[i] - lr * x[i]);
  counters[0] += 1;
  return nullptr;
}

amp_step_tensor_t kHyperTensors[] = {
    {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {2}, 0, 1},
    {"lr", AMP_STEP_HPARAM, AMP_ELEMENT_F64, 0, {}, 0, 0.5},
    {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {2}, 0, 0},
};

/// A host step `name` of `count` `tensors` run by `run`, without an arena,
/// a loss scale or index checks.
amp_step_description_t hostDescription(const char *name,
                                       const amp_step_tensor_t *tensors,
                                       size_t count, amp_step_function_t run) {
  return {
      AMP_STEP_ABI_VERSION, name, AMP_DEVICE_HOST, count, tensors, -1, 0, run};
}

amp_step_description_t hyperDescription(const amp_step_tensor_t *tensors) {
  return hostDescription("hyper", tensors, 3, &hyperStep);
}

class StepHparamTest : public TempDirectoryTest {
protected:
  void SetUp() override {
    TempDirectoryTest::SetUp();
    ASSERT_EQ(amp_step_create(&description, AMP_DEVICE_HOST, &step), nullptr);
    ASSERT_EQ(amp_step_init(step, 1), nullptr);
  }
  void TearDown() override {
    amp_step_destroy(step);
    TempDirectoryTest::TearDown();
  }
  double lr() {
    double value = -1;
    EXPECT_EQ(amp_step_get_hparam(step, "lr", &value), nullptr);
    return value;
  }
  std::vector<float> weights() {
    std::vector<float> w(2);
    EXPECT_EQ(amp_step_read_tensor(step, 0, w.data(), 8), nullptr);
    return w;
  }
  void run(float x0, float x1) {
    float x[] = {x0, x1};
    static const int64_t shape[] = {2};
    amp_step_input_t input{x, AMP_ELEMENT_F32, 1, shape};
    ASSERT_EQ(amp_step_run(step, 1, &input), nullptr);
  }
  amp_step_description_t description = hyperDescription(kHyperTensors);
  amp_step_t *step = nullptr;
};

TEST_F(StepHparamTest, ASetValueIsTheOneTheNextStepReads) {
  EXPECT_EQ(lr(), 0.5);
  run(1, 2); // w = 1 - 0.5 * x
  EXPECT_EQ(weights(), (std::vector<float>{0.5f, 0.0f}));
  ASSERT_EQ(amp_step_set_hparam(step, "lr", 0.25), nullptr);
  EXPECT_EQ(lr(), 0.25);
  run(1, 2);
  EXPECT_EQ(weights(), (std::vector<float>{0.25f, -0.5f}));
  // init goes back to the compiled value.
  ASSERT_EQ(amp_step_init(step, 1), nullptr);
  EXPECT_EQ(lr(), 0.5);
}

TEST_F(StepHparamTest, OutOfRangeValuesAndUnknownNamesChangeNothing) {
  for (double bad : {-1.0, -0.0 - 1e-300, std::nan(""), HUGE_VAL})
    EXPECT_STATUS(amp_step_set_hparam(step, "lr", bad), AMP_INVALID_ARGUMENT,
                  "hyperparameter 'lr' must lie in [0, inf)");
  EXPECT_EQ(lr(), 0.5);
  // The raw tensor writes are checked too.
  double negative = -2;
  EXPECT_STATUS(amp_step_write_tensor(step, 1, &negative, 8),
                AMP_INVALID_ARGUMENT, "must lie in [0, inf), not -2");
  EXPECT_EQ(lr(), 0.5);
  EXPECT_STATUS(amp_step_set_hparam(step, "momentum", 0.9),
                AMP_INVALID_ARGUMENT,
                "step 'hyper' has no hyperparameter 'momentum' (it has: lr)");
  // A near miss is named with the closest name; a far one is not.
  EXPECT_STATUS(amp_step_set_hparam(step, "lrr", 0.9), AMP_INVALID_ARGUMENT,
                "no hyperparameter 'lrr' (it has: lr); did you mean 'lr'?");
  amp_status_t far = amp_step_set_hparam(step, "momentum", 0.9);
  EXPECT_EQ(std::string(amp_status_message(far)).find("did you mean"),
            std::string::npos);
  amp_status_free(far);
  // A tensor that is no hyperparameter is not set through this call.
  EXPECT_STATUS(amp_step_set_hparam(step, "w", 0.9), AMP_INVALID_ARGUMENT,
                "no hyperparameter 'w'");
  double value = 0;
  EXPECT_STATUS(amp_step_get_hparam(nullptr, "lr", &value),
                AMP_INVALID_ARGUMENT, "null");
  EXPECT_STATUS(amp_step_get_hparam(step, nullptr, &value),
                AMP_INVALID_ARGUMENT, "null");
  EXPECT_STATUS(amp_step_get_hparam(step, "lr", nullptr), AMP_INVALID_ARGUMENT,
                "null");
}

TEST_F(StepHparamTest, AStateFileHoldsThemAndABadOneIsRefused) {
  ASSERT_EQ(amp_step_set_hparam(step, "lr", 0.125), nullptr);
  std::string path = directory + "/s.ampstate";
  ASSERT_EQ(amp_step_save(step, path.c_str()), nullptr);
  ASSERT_EQ(amp_step_init(step, 1), nullptr);
  ASSERT_EQ(amp_step_load(step, path.c_str()), nullptr);
  EXPECT_EQ(lr(), 0.125);

  // A state saved by a step whose "lr" is plain state holds -1 there: the
  // file is refused as a whole, the step keeps its state.
  amp_step_tensor_t plain[3] = {kHyperTensors[0], kHyperTensors[1],
                                kHyperTensors[2]};
  plain[1].kind = AMP_STEP_STATE;
  amp_step_description_t plainDescription = hyperDescription(plain);
  amp_step_t *other = nullptr;
  ASSERT_EQ(amp_step_create(&plainDescription, AMP_DEVICE_HOST, &other),
            nullptr);
  double bad = -1;
  float w[] = {7, 8};
  ASSERT_EQ(amp_step_write_tensor(other, 1, &bad, 8), nullptr);
  ASSERT_EQ(amp_step_write_tensor(other, 0, w, 8), nullptr);
  std::string badPath = directory + "/bad.ampstate";
  ASSERT_EQ(amp_step_save(other, badPath.c_str()), nullptr);
  amp_step_destroy(other);
  EXPECT_STATUS(amp_step_load(step, badPath.c_str()), AMP_INVALID_ARGUMENT,
                "bad.ampstate: hyperparameter 'lr' must lie in [0, inf)");
  EXPECT_EQ(lr(), 0.125);
  EXPECT_EQ(weights(), (std::vector<float>{1, 1}));
}

TEST(StepHparamCreateTest, RefusesAHyperparameterThatIsNoF64InRange) {
  amp_step_t *step = nullptr;
  amp_step_tensor_t tensors[3] = {kHyperTensors[0], kHyperTensors[1],
                                  kHyperTensors[2]};
  amp_step_description_t d = hyperDescription(tensors);
  tensors[1].type = AMP_ELEMENT_F32;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT,
                "hyperparameter 'lr' of step 'hyper' must be a 0-d f64 that "
                "starts in its range: it is f32 of shape []");
  tensors[1] = kHyperTensors[1];
  tensors[1].initial = -0.5;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "must lie in [0, inf), not -0.5");
  tensors[1] = kHyperTensors[1];
  tensors[1].rank = 1;
  tensors[1].shape[0] = 1;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "it is f64 of shape [1]");
  EXPECT_EQ(step, nullptr);
}

/// A step that reports one part of its loss as a compiled step writes an
/// amp.loss_part tensor: sq = w0^2 + w1^2 (tensors[1]), the loss sq + x0;
/// it halves the weights.
amp_status_t partStep(amp_stream_t *, void *const *tensors, void *, float *loss,
                      float *foundInf, double *counters) {
  auto *w = static_cast<float *>(tensors[0]);
  auto *sq = static_cast<float *>(tensors[1]);
  const auto *x = static_cast<const float *>(tensors[2]);
  *sq = w[0] * w[0] + w[1] * w[1];
  *loss = *sq + x[0];
  *foundInf = 0;
  for (int i = 0; i < 2; ++i)
    w[i] *= 0.5f;
  counters[0] += 1;
  return nullptr;
}

const amp_step_tensor_t kPartTensors[] = {
    {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {2}, 0, 1},
    {"sq", AMP_STEP_LOSS_PART, AMP_ELEMENT_F32, 0, {}, 0, 0},
    {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {2}, 0, 0},
};

amp_step_description_t partDescription(const amp_step_tensor_t *tensors,
                                       size_t count) {
  return hostDescription("parts", tensors, count, &partStep);
}

class StepLossPartTest : public TempDirectoryTest {};

TEST_F(StepLossPartTest, EachStepWritesItsPartsAndStateFilesLeaveThemOut) {
  amp_step_description_t d = partDescription(kPartTensors, 3);
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&d, AMP_DEVICE_HOST, &step), nullptr);
  ASSERT_EQ(amp_step_init(step, 1), nullptr);
  float part = -1;
  ASSERT_EQ(amp_step_read_tensor(step, 1, &part, 4), nullptr);
  EXPECT_EQ(part, 0); // before any step
  float x[] = {10, 0};
  static const int64_t shape[] = {2};
  amp_step_input_t input{x, AMP_ELEMENT_F32, 1, shape};
  float expected[][2] = {{2, 12}, {0.5f, 10.5f}}; // w = 1, then 0.5
  for (auto [sq, total] : expected) {
    ASSERT_EQ(amp_step_run(step, 1, &input), nullptr);
    float loss = 0, found = 0;
    ASSERT_EQ(amp_step_result(step, &loss, &found), nullptr);
    ASSERT_EQ(amp_step_read_tensor(step, 1, &part, 4), nullptr);
    EXPECT_EQ(part, sq);
    EXPECT_EQ(loss, total);
  }
  std::string path = directory + "/parts.ampstate";
  ASSERT_EQ(amp_step_save(step, path.c_str()), nullptr);
  amp_step_destroy(step);

  // The file holds the weights and the counters, not the part: the same
  // step without the part loads it.
  amp_step_tensor_t plain[] = {kPartTensors[0], kPartTensors[2]};
  amp_step_description_t plainDescription = partDescription(plain, 2);
  ASSERT_EQ(amp_step_create(&plainDescription, AMP_DEVICE_HOST, &step),
            nullptr);
  ASSERT_EQ(amp_step_load(step, path.c_str()), nullptr);
  float w[2] = {};
  ASSERT_EQ(amp_step_read_tensor(step, 0, w, 8), nullptr);
  EXPECT_EQ(w[0], 0.25f);
  EXPECT_EQ(w[1], 0.25f);
  float scale = 0;
  int64_t steps = 0, skipped = 0;
  ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(steps, 2);
  amp_step_destroy(step);
}

TEST(StepLossPartCreateTest, RefusesAPartThatIsNoF32Scalar) {
  amp_step_tensor_t tensors[3] = {kPartTensors[0], kPartTensors[1],
                                  kPartTensors[2]};
  amp_step_description_t d = partDescription(tensors, 3);
  amp_step_t *step = nullptr;
  tensors[1].type = AMP_ELEMENT_F16;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT,
                "part 'sq' of the loss of step 'parts' must be a 0-d f32, "
                "not f16 of shape []");
  tensors[1] = kPartTensors[1];
  tensors[1].rank = 1;
  tensors[1].shape[0] = 2;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "not f32 of shape [2]");
  EXPECT_EQ(step, nullptr);
}

//===----------------------------------------------------------------------===//
// The random generator
//===----------------------------------------------------------------------===//

const amp_step_tensor_t kRngTensors[] = {
    {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {2}, 0, 1},
    {"rng", AMP_STEP_RNG, AMP_ELEMENT_I64, 1, {2}, 0, 0},
    {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {2}, 0, 0},
};

class StepRngTest : public TempDirectoryTest {};

TEST_F(StepRngTest, InitSeedsItAndStateFilesCarryIt) {
  amp_step_description_t d = partDescription(kRngTensors, 3);
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&d, AMP_DEVICE_HOST, &step), nullptr);
  int64_t rng[2] = {-1, -1};
  ASSERT_EQ(amp_step_read_tensor(step, 1, rng, sizeof rng), nullptr);
  EXPECT_EQ(rng[0], 0); // created: seed 0, pass 0
  EXPECT_EQ(rng[1], 0);
  // The seed modulo 2^53, the pass back at 0.
  int64_t advanced[2] = {9, 41};
  ASSERT_EQ(amp_step_write_tensor(step, 1, advanced, sizeof advanced), nullptr);
  ASSERT_EQ(amp_step_init(step, (uint64_t(3) << 53) + 77), nullptr);
  ASSERT_EQ(amp_step_read_tensor(step, 1, rng, sizeof rng), nullptr);
  EXPECT_EQ(rng[0], 77);
  EXPECT_EQ(rng[1], 0);
  // Saved and loaded as state.
  ASSERT_EQ(amp_step_write_tensor(step, 1, advanced, sizeof advanced), nullptr);
  std::string path = directory + "/rng.ampstate";
  ASSERT_EQ(amp_step_save(step, path.c_str()), nullptr);
  ASSERT_EQ(amp_step_init(step, 5), nullptr);
  ASSERT_EQ(amp_step_load(step, path.c_str()), nullptr);
  ASSERT_EQ(amp_step_read_tensor(step, 1, rng, sizeof rng), nullptr);
  EXPECT_EQ(rng[0], 9);
  EXPECT_EQ(rng[1], 41);
  amp_step_destroy(step);
}

TEST(StepRngCreateTest, RefusesAGeneratorThatIsNoTwoI64) {
  amp_step_tensor_t tensors[3] = {kRngTensors[0], kRngTensors[1],
                                  kRngTensors[2]};
  amp_step_description_t d = partDescription(tensors, 3);
  amp_step_t *step = nullptr;
  tensors[1].type = AMP_ELEMENT_I32;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT,
                "the random generator 'rng' of step 'parts' must be 2 i64 "
                "(seed, forward pass), not i32 of shape [2]");
  tensors[1] = kRngTensors[1];
  tensors[1].shape[0] = 3;
  EXPECT_STATUS(amp_step_create(&d, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT, "not i64 of shape [3]");
  EXPECT_EQ(step, nullptr);
}

} // namespace
