//===- StepEvalTest.cpp - a step's evaluation, driven by hand -------------===//
//
// The runtime's half of the evaluation contract (amp_eval_description_t),
// with a step and an evaluation written by hand whose values are worked
// out on paper:
//
//   step:       w: param f32[3], x: input f32[3];  loss = sum(w * x),
//               w -= x
//   evaluation: x: input f32[3], w: the step's w;  loss = sum(w * x),
//               wx = w * x
//
// The evaluation reads the parameters the step trains, changes nothing,
// checks its batch as a step does, and a description whose parameters are
// not the step's is refused at creation.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/step.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

amp_status_t trainStep(amp_stream_t *, void *const *tensors, void *,
                       float *loss, float *foundInf, double *counters) {
  auto *w = static_cast<float *>(tensors[0]);
  auto *x = static_cast<const float *>(tensors[1]);
  *loss = w[0] * x[0] + w[1] * x[1] + w[2] * x[2];
  for (int i = 0; i < 3; ++i)
    w[i] -= x[i];
  *foundInf = 0;
  counters[0] += 1;
  return nullptr;
}

amp_status_t evaluate(amp_stream_t *, void *const *tensors, void *arena,
                      void *const *outputs) {
  auto *x = static_cast<const float *>(tensors[0]);
  auto *w = static_cast<const float *>(tensors[1]);
  auto *scratch = static_cast<float *>(arena); // 12 bytes of arena
  for (int i = 0; i < 3; ++i)
    scratch[i] = w[i] * x[i];
  *static_cast<float *>(outputs[0]) = scratch[0] + scratch[1] + scratch[2];
  for (int i = 0; i < 3; ++i)
    static_cast<float *>(outputs[1])[i] = scratch[i];
  return nullptr;
}

const amp_step_tensor_t kStepTensors[] = {
    {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {3}, 0, 1},
    {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {3}, 0, 0},
};

struct Tables {
  amp_step_tensor_t tensors[2] = {
      {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {3}, 0, 0},
      {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {3}, 0, 0},
  };
  amp_step_tensor_t outputs[2] = {
      {"loss", AMP_STEP_INPUT, AMP_ELEMENT_F32, 0, {}, 0, 0},
      {"wx", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {3}, 0, 0},
  };
  amp_eval_description_t eval = {2,  tensors,   2, outputs,
                                 12, &evaluate, 0, nullptr};
  amp_step_description_t step = {
      AMP_STEP_ABI_VERSION, "lin", AMP_DEVICE_HOST, 2,    kStepTensors, -1, 0,
      &trainStep,           0,     nullptr,         &eval};
};

class StepEvalTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(amp_step_create(&tables.step, AMP_DEVICE_HOST, &step), nullptr);
    ASSERT_EQ(amp_step_init(step, 0), nullptr); // w = 1, 1, 1
  }
  void TearDown() override { amp_step_destroy(step); }

  float evaluateOn(std::vector<float> x) {
    static const int64_t shape[] = {3};
    amp_step_input_t input{x.data(), AMP_ELEMENT_F32, 1, shape};
    float loss = -1;
    EXPECT_EQ(amp_step_evaluate(step, 1, &input, &loss), nullptr);
    return loss;
  }
  void train(std::vector<float> x) {
    static const int64_t shape[] = {3};
    amp_step_input_t input{x.data(), AMP_ELEMENT_F32, 1, shape};
    ASSERT_EQ(amp_step_run(step, 1, &input), nullptr);
  }
  std::vector<float> weights() {
    std::vector<float> w(3);
    EXPECT_EQ(amp_step_read_tensor(step, 0, w.data(), 12), nullptr);
    return w;
  }

  Tables tables;
  amp_step_t *step = nullptr;
};

TEST_F(StepEvalTest, ReadsTheTrainedParametersAndChangesNothing) {
  EXPECT_EQ(evaluateOn({1, 2, 3}), 6.0f); // w = 1, 1, 1
  std::vector<float> wx(3);
  ASSERT_EQ(amp_step_read_output(step, 1, wx.data(), 12), nullptr);
  EXPECT_EQ(wx, (std::vector<float>{1, 2, 3}));
  float loss = 0;
  ASSERT_EQ(amp_step_read_output(step, 0, &loss, 4), nullptr);
  EXPECT_EQ(loss, 6.0f);
  EXPECT_EQ(weights(), (std::vector<float>{1, 1, 1}));

  train({0.5f, 0.25f, 2}); // w = 0.5, 0.75, -1
  EXPECT_EQ(evaluateOn({1, 2, 3}), 0.5f + 1.5f - 3.0f);
  float trainLoss = 0, found = 0;
  ASSERT_EQ(amp_step_result(step, &trainLoss, &found), nullptr);
  EXPECT_EQ(trainLoss, 0.5f + 0.25f + 2.0f); // the step's, not the eval's
  float scale = 0;
  int64_t steps = 0, skipped = 0;
  ASSERT_EQ(amp_step_scaler(step, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(steps, 1);
  EXPECT_EQ(weights(), (std::vector<float>{0.5f, 0.75f, -1}));
}

TEST_F(StepEvalTest, ChecksItsBatchAndOutputsAsAStepDoes) {
  static const int64_t shape[] = {3}, wrong[] = {4};
  float x[4] = {1, 2, 3, 4};
  amp_step_input_t input{x, AMP_ELEMENT_F32, 1, shape};
  float loss = 0;
  EXPECT_STATUS(amp_step_evaluate(step, 0, nullptr, &loss),
                AMP_INVALID_ARGUMENT,
                "the evaluation of 'lin' takes 1 batch inputs, not 0");
  amp_step_input_t longer{x, AMP_ELEMENT_F32, 1, wrong};
  EXPECT_STATUS(amp_step_evaluate(step, 1, &longer, &loss),
                AMP_INVALID_ARGUMENT,
                "input 0 ('x') must be [3] x f32; got [4] x f32");
  EXPECT_STATUS(amp_step_evaluate(step, 1, &input, nullptr),
                AMP_INVALID_ARGUMENT, "out_loss is null");
  EXPECT_STATUS(amp_step_evaluate(nullptr, 1, &input, &loss),
                AMP_INVALID_ARGUMENT, "step or out_loss is null");
  float wx[3];
  EXPECT_STATUS(amp_step_read_output(step, 2, wx, 12), AMP_OUT_OF_RANGE,
                "output 2 of an evaluation with 2");
  EXPECT_STATUS(amp_step_read_output(step, 1, wx, 8), AMP_INVALID_ARGUMENT,
                "tensor 'wx' ([3] x f32) holds 12 bytes, not 8");
  EXPECT_STATUS(amp_step_read_output(step, 1, nullptr, 12),
                AMP_INVALID_ARGUMENT, "data is null");
  // Before any evaluation there is nothing to read (it read zeros).
  EXPECT_STATUS(amp_step_read_output(step, 1, wx, 12), AMP_INVALID_ARGUMENT,
                "step 'lin' has not evaluated a batch yet");
}

// An evaluation of one example (the first of x): loss = w[0] * x[0],
// wx = [w[0] * x[0]].
amp_status_t evaluateOne(amp_stream_t *, void *const *tensors, void *,
                         void *const *outputs) {
  auto *x = static_cast<const float *>(tensors[0]);
  auto *w = static_cast<const float *>(tensors[1]);
  float wx = w[0] * x[0];
  *static_cast<float *>(outputs[0]) = wx;
  *static_cast<float *>(outputs[1]) = wx;
  return nullptr;
}

/// Tables with a second evaluation, at a batch of one.
struct TwoSizes : Tables {
  amp_step_tensor_t oneTensors[2] = {
      {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {1}, 0, 0},
      {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {3}, 0, 0},
  };
  amp_step_tensor_t oneOutputs[2] = {
      {"loss", AMP_STEP_INPUT, AMP_ELEMENT_F32, 0, {}, 0, 0},
      {"wx", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {1}, 0, 0},
  };
  amp_eval_description_t one = {2, oneTensors,   2, oneOutputs,
                                0, &evaluateOne, 0, nullptr};
  const amp_eval_description_t *others[1] = {&one};
  TwoSizes() {
    step.other_eval_count = 1;
    step.other_evals = others;
  }
};

TEST(StepEvalSizesTest, EvaluatesEachBatchWithTheEvaluationOfItsSize) {
  TwoSizes tables;
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&tables.step, AMP_DEVICE_HOST, &step), nullptr);
  ASSERT_EQ(amp_step_init(step, 0), nullptr); // w = 1, 1, 1
  EXPECT_EQ(amp_step_last_evaluation(step), &tables.eval);
  static const int64_t three[] = {3}, one[] = {1}, two[] = {2};
  float x[3] = {2, 3, 4}, loss = 0, wx[3] = {};
  amp_step_input_t whole{x, AMP_ELEMENT_F32, 1, three};
  ASSERT_EQ(amp_step_evaluate(step, 1, &whole, &loss), nullptr);
  EXPECT_EQ(loss, 9.0f);
  EXPECT_EQ(amp_step_last_evaluation(step), &tables.eval);
  amp_step_input_t single{x, AMP_ELEMENT_F32, 1, one};
  ASSERT_EQ(amp_step_evaluate(step, 1, &single, &loss), nullptr);
  EXPECT_EQ(loss, 2.0f);
  EXPECT_EQ(amp_step_last_evaluation(step), &tables.one);
  // The outputs are the last evaluation's, of its shapes.
  ASSERT_EQ(amp_step_read_output(step, 1, wx, 4), nullptr);
  EXPECT_EQ(wx[0], 2.0f);
  EXPECT_STATUS(amp_step_read_output(step, 1, wx, 12), AMP_INVALID_ARGUMENT,
                "tensor 'wx' ([1] x f32) holds 4 bytes, not 12");
  amp_step_input_t other{x, AMP_ELEMENT_F32, 1, two};
  EXPECT_STATUS(amp_step_evaluate(step, 1, &other, &loss), AMP_INVALID_ARGUMENT,
                "step 'lin' evaluates batches of 3, 1 examples (amp-compile "
                "--eval-batch), not 2: the evaluation did not run");
  // The choice by itself, as amp-step --eval and Python make it.
  const amp_eval_description_t *found = nullptr;
  ASSERT_EQ(amp_step_find_evaluation(step, 1, &found), nullptr);
  EXPECT_EQ(found, &tables.one);
  ASSERT_EQ(amp_step_find_evaluation(step, 3, &found), nullptr);
  EXPECT_EQ(found, &tables.eval);
  EXPECT_STATUS(amp_step_find_evaluation(step, 2, &found), AMP_INVALID_ARGUMENT,
                "evaluates batches of 3, 1 examples");
  amp_step_destroy(step);
  // A step of one evaluation gives it whatever the batch: the evaluation
  // then says what is wrong with the batch's shape.
  Tables alone;
  ASSERT_EQ(amp_step_create(&alone.step, AMP_DEVICE_HOST, &step), nullptr);
  ASSERT_EQ(amp_step_find_evaluation(step, 7, &found), nullptr);
  EXPECT_EQ(found, &alone.eval);
  amp_step_destroy(step);
}

TEST(StepEvalSizesTest, RefusesTablesItCannotTellApart) {
  struct Case {
    void (*spoil)(TwoSizes &);
    const char *message;
  } cases[] = {
      {[](TwoSizes &t) { t.oneTensors[0].shape[0] = 3; },
       "the evaluation of step 'lin' is malformed: two of its evaluations "
       "take batches of 3"},
      {[](TwoSizes &t) { t.others[0] = nullptr; },
       "the evaluation of step 'lin' is malformed: an evaluation at another "
       "batch size is null"},
      {[](TwoSizes &t) { t.step.other_evals = nullptr; },
       "step 'lin' has 1 evaluations at other batch sizes and no table of "
       "them"},
      {[](TwoSizes &t) { t.step.eval = nullptr; },
       "step 'lin' has evaluations at other batch sizes but none at the "
       "first"},
  };
  for (const Case &c : cases) {
    TwoSizes tables;
    c.spoil(tables);
    amp_step_t *step = reinterpret_cast<amp_step_t *>(1);
    EXPECT_STATUS(amp_step_create(&tables.step, AMP_DEVICE_HOST, &step),
                  AMP_INVALID_ARGUMENT, c.message);
    EXPECT_EQ(step, nullptr);
  }
}

TEST(StepEvalCreateTest, RefusesAnEvaluationOfOtherParameters) {
  struct Case {
    void (*spoil)(Tables &);
    const char *fragment;
  } cases[] = {
      {[](Tables &t) { t.tensors[1].name = "v"; },
       "tensor 'v' is neither a batch input nor a parameter or buffer of the "
       "step"},
      {[](Tables &t) { t.tensors[1].shape[0] = 4; },
       "tensor 'w' is neither a batch input nor a parameter or buffer of the "
       "step of that type and shape"},
      {[](Tables &t) { t.tensors[1].type = AMP_ELEMENT_F16; },
       "tensor 'w' is neither"},
      {[](Tables &t) { t.tensors[1].kind = AMP_STEP_STATE; },
       "tensor 'w' is neither"},
      // A parameter is bound only to a parameter, a buffer to a buffer.
      {[](Tables &t) { t.tensors[1].kind = AMP_STEP_BUFFER; },
       "tensor 'w' is neither"},
      {[](Tables &t) { t.outputs[0].type = AMP_ELEMENT_F64; },
       "its first output is not the loss, an f32 scalar"},
      {[](Tables &t) { t.eval.output_count = 0; },
       "it lacks its code, tensors, outputs or index checks"},
      {[](Tables &t) { t.eval.run = nullptr; }, "it lacks its code"},
      {[](Tables &t) { t.outputs[1].rank = -1; },
       "output 1 has no name or a bad rank, shape or type"},
  };
  for (const Case &c : cases) {
    Tables tables;
    c.spoil(tables);
    amp_step_t *step = reinterpret_cast<amp_step_t *>(1);
    EXPECT_STATUS(amp_step_create(&tables.step, AMP_DEVICE_HOST, &step),
                  AMP_INVALID_ARGUMENT,
                  std::string("the evaluation of step 'lin' is malformed: ") +
                      c.fragment);
    EXPECT_EQ(step, nullptr);
  }
}

TEST(StepEvalCreateTest, AStepWithoutOneSaysSo) {
  Tables tables;
  tables.step.eval = nullptr;
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&tables.step, AMP_DEVICE_HOST, &step), nullptr);
  float x[3] = {1, 2, 3}, loss = 0;
  static const int64_t shape[] = {3};
  amp_step_input_t input{x, AMP_ELEMENT_F32, 1, shape};
  EXPECT_STATUS(amp_step_evaluate(step, 1, &input, &loss), AMP_UNAVAILABLE,
                "step 'lin' was compiled without an evaluation");
  EXPECT_STATUS(amp_step_read_output(step, 0, &loss, 4), AMP_UNAVAILABLE,
                "without an evaluation");
  amp_step_destroy(step);
}

// The .npy files amp-step reads batches from and writes outputs to: what
// one writes, the other reads, and a file of another shape is refused.
class NpyTest : public TempDirectoryTest {};

TEST_F(NpyTest, WritesAndReadsTensorsOfTheirTypeAndShape) {
  const amp_step_tensor_t t = {
      "wx", AMP_STEP_INPUT, AMP_ELEMENT_F32, 2, {2, 2}, 0, 0};
  float values[4] = {1, -2, 0.5f, 8};
  std::string path = directory + "/wx.npy";
  ASSERT_EQ(amp_npy_write(&t, path.c_str(), values, 16), nullptr);
  float back[4] = {};
  ASSERT_EQ(amp_npy_read(&t, path.c_str(), back, 16), nullptr);
  EXPECT_EQ(std::vector<float>(back, back + 4),
            std::vector<float>(values, values + 4));
  amp_step_tensor_t other = t;
  other.shape[1] = 1;
  float kept[2] = {7, 7};
  EXPECT_STATUS(amp_npy_read(&other, path.c_str(), kept, 8),
                AMP_INVALID_ARGUMENT, "has shape (2, 2); tensor 'wx'");
  EXPECT_EQ(kept[0], 7.0f);
  EXPECT_STATUS(amp_npy_write(&t, path.c_str(), values, 12),
                AMP_INVALID_ARGUMENT, "holds 16 bytes, not 12");
  EXPECT_STATUS(amp_npy_write(&t, "", values, 16), AMP_INVALID_ARGUMENT,
                "path is empty");
}

// A data set's file mapped (amp-step --data): the elements amp_npy_read
// gives, checked alike; where a hand-made header leaves them unaligned,
// read instead, with the same values.
TEST_F(NpyTest, MapsWhatItWouldRead) {
  const amp_step_tensor_t t = {
      "ids", AMP_STEP_INPUT, AMP_ELEMENT_I64, 2, {3, 2}, 0, 0};
  const int64_t values[6] = {1, -2, 3, 1LL << 40, 5, -6};
  std::string path = directory + "/ids.npy";
  ASSERT_EQ(amp_npy_write(&t, path.c_str(), values, sizeof values), nullptr);
  amp_npy_mapping_t *mapping = nullptr;
  const void *data = nullptr;
  ASSERT_EQ(amp_npy_map(&t, path.c_str(), &mapping, &data), nullptr);
  EXPECT_EQ(std::memcmp(data, values, sizeof values), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % alignof(int64_t), 0u);
  amp_npy_unmap(mapping);

  // The same array behind a version 1 header of 75 bytes: its data at
  // byte 85, not a multiple of 8.
  std::string dictionary =
      "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 2), }";
  dictionary.append(74 - dictionary.size(), ' ');
  dictionary += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(dictionary.size());
  file += '\0';
  file += dictionary;
  file.append(reinterpret_cast<const char *>(values), sizeof values);
  std::string odd = directory + "/odd.npy";
  {
    std::ofstream out(odd, std::ios::binary);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  ASSERT_EQ(amp_npy_map(&t, odd.c_str(), &mapping, &data), nullptr);
  EXPECT_EQ(std::memcmp(data, values, sizeof values), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % alignof(int64_t), 0u);
  amp_npy_unmap(mapping);

  // Refused as amp_npy_read refuses: another shape, bytes after the data,
  // data cut short; nothing is mapped.
  amp_step_tensor_t other = t;
  other.shape[0] = 4;
  mapping = nullptr;
  EXPECT_STATUS(amp_npy_map(&other, path.c_str(), &mapping, &data),
                AMP_INVALID_ARGUMENT, "has shape (3, 2); tensor 'ids'");
  EXPECT_EQ(mapping, nullptr);
  {
    std::ofstream out(odd, std::ios::binary | std::ios::app);
    out << 'x';
  }
  EXPECT_STATUS(amp_npy_map(&t, odd.c_str(), &mapping, &data),
                AMP_INVALID_ARGUMENT, "has bytes after its data");
  file.resize(file.size() - 8);
  {
    std::ofstream out(odd, std::ios::binary | std::ios::trunc);
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  EXPECT_STATUS(amp_npy_map(&t, odd.c_str(), &mapping, &data), AMP_DATA_LOSS,
                "the data is truncated");
  EXPECT_EQ(mapping, nullptr);
  amp_npy_unmap(nullptr); // as free(NULL)
}

// A buffer (batch norm's running statistics): state that starts at its
// initial value, which the step updates and the evaluation reads by name.
//   step:       w: param f32[1], rm: buffer f32[2] (starts at 2),
//               x: input f32[2];  loss = w * x0, rm = (rm + x) / 2
//   evaluation: x: input f32[2], rm: the step's rm;
//               loss = (x0 - rm0) + (x1 - rm1)
namespace buffered {

amp_status_t trainStep(amp_stream_t *, void *const *tensors, void *,
                       float *loss, float *foundInf, double *counters) {
  auto *w = static_cast<const float *>(tensors[0]);
  auto *rm = static_cast<float *>(tensors[1]);
  auto *x = static_cast<const float *>(tensors[2]);
  *loss = w[0] * x[0];
  for (int i = 0; i < 2; ++i)
    rm[i] = (rm[i] + x[i]) / 2;
  *foundInf = 0;
  counters[0] += 1;
  return nullptr;
}

amp_status_t evaluate(amp_stream_t *, void *const *tensors, void *,
                      void *const *outputs) {
  auto *x = static_cast<const float *>(tensors[0]);
  auto *rm = static_cast<const float *>(tensors[1]);
  *static_cast<float *>(outputs[0]) = (x[0] - rm[0]) + (x[1] - rm[1]);
  return nullptr;
}

struct Tables {
  amp_step_tensor_t stepTensors[3] = {
      {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {1}, 0, 1},
      {"rm", AMP_STEP_BUFFER, AMP_ELEMENT_F32, 1, {2}, 0, 2},
      {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {2}, 0, 0},
  };
  amp_step_tensor_t tensors[2] = {
      {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {2}, 0, 0},
      {"rm", AMP_STEP_BUFFER, AMP_ELEMENT_F32, 1, {2}, 0, 0},
  };
  amp_step_tensor_t outputs[1] = {
      {"loss", AMP_STEP_INPUT, AMP_ELEMENT_F32, 0, {}, 0, 0},
  };
  amp_eval_description_t eval = {2, tensors,   1, outputs,
                                 0, &evaluate, 0, nullptr};
  amp_step_description_t step = {
      AMP_STEP_ABI_VERSION, "bn", AMP_DEVICE_HOST, 3,    stepTensors, -1, 0,
      &trainStep,           0,    nullptr,         &eval};
};

TEST(StepEvalBufferTest, TheEvaluationReadsTheBuffersTheStepUpdates) {
  Tables tables;
  amp_step_t *step = nullptr;
  ASSERT_EQ(amp_step_create(&tables.step, AMP_DEVICE_HOST, &step), nullptr);
  ASSERT_EQ(amp_step_init(step, 0), nullptr);
  static const int64_t shape[] = {2};
  float x[2] = {4, 6}, loss = 0;
  amp_step_input_t input{x, AMP_ELEMENT_F32, 1, shape};
  // rm starts at 2, 2: (4 - 2) + (6 - 2).
  ASSERT_EQ(amp_step_evaluate(step, 1, &input, &loss), nullptr);
  EXPECT_EQ(loss, 6.0f);
  // One step: rm = (2 + 4) / 2, (2 + 6) / 2 = 3, 4.
  ASSERT_EQ(amp_step_run(step, 1, &input), nullptr);
  float rm[2] = {0, 0};
  ASSERT_EQ(amp_step_read_tensor(step, 1, rm, sizeof rm), nullptr);
  EXPECT_EQ(rm[0], 3.0f);
  EXPECT_EQ(rm[1], 4.0f);
  ASSERT_EQ(amp_step_evaluate(step, 1, &input, &loss), nullptr);
  EXPECT_EQ(loss, 3.0f);
  // Resetting the state (amp_step_init) starts the buffer again.
  ASSERT_EQ(amp_step_init(step, 0), nullptr);
  ASSERT_EQ(amp_step_evaluate(step, 1, &input, &loss), nullptr);
  EXPECT_EQ(loss, 6.0f);
  amp_step_destroy(step);
}

TEST(StepEvalBufferTest, ABufferHoldsFloats) {
  Tables tables;
  tables.stepTensors[1].type = AMP_ELEMENT_I32;
  amp_step_t *step = nullptr;
  EXPECT_STATUS(amp_step_create(&tables.step, AMP_DEVICE_HOST, &step),
                AMP_INVALID_ARGUMENT,
                "buffer 'rm' of step 'bn' must hold floats, not i32");
  EXPECT_EQ(step, nullptr);
}

} // namespace buffered

} // namespace
