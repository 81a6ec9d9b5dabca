//===- FitTest.cpp - amp_step_fit on a step written by hand ---------------===//
//
// A step whose loss says which examples it was given: x: input f32[2] (a
// batch of two examples, each one number), w: param f32[1];
//   loss = w + 10 * x[0] + x[1], then w += 1.
// The data set holds the examples 0, 1, ..., so each step's loss names the
// rows of its batch, and the batches can be checked against the epoch's
// order worked out from amp_epoch_order, the counter against w.
//
//===----------------------------------------------------------------------===//

#include "amp_runtime/fit.h"

#include "TestFiles.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

amp_status_t fitStep(amp_stream_t *, void *const *tensors, void *, float *loss,
                     float *foundInf, double *counters) {
  auto *w = static_cast<float *>(tensors[0]);
  const auto *x = static_cast<const float *>(tensors[1]);
  *loss = w[0] + 10 * x[0] + x[1];
  *foundInf = 0;
  w[0] += 1;
  counters[0] += 1;
  return nullptr;
}

const amp_step_tensor_t kFitTensors[] = {
    {"w", AMP_STEP_PARAM, AMP_ELEMENT_F32, 1, {1}, 0, 0},
    {"x", AMP_STEP_INPUT, AMP_ELEMENT_F32, 1, {2}, 0, 0},
};

const amp_step_description_t kFitDescription = {AMP_STEP_ABI_VERSION,
                                                "fit",
                                                AMP_DEVICE_HOST,
                                                2,
                                                kFitTensors,
                                                -1,
                                                0,
                                                &fitStep};

struct Reports {
  std::vector<std::string> lines, json;
  int stopAfter = -1; // stop after this many step reports
  static int32_t collect(void *context, const amp_fit_report_t *report) {
    auto *r = static_cast<Reports *>(context);
    r->lines.push_back(report->line);
    if (report->json)
      r->json.push_back(report->json);
    return r->stopAfter >= 0 && static_cast<int>(r->json.size()) >= r->stopAfter
               ? 1
               : 0;
  }
};

class FitTest : public TempDirectoryTest {
protected:
  void SetUp() override {
    TempDirectoryTest::SetUp();
    ASSERT_EQ(amp_step_create(&kFitDescription, AMP_DEVICE_HOST, &step),
              nullptr);
    for (int i = 0; i < 5; ++i)
      examples.push_back(static_cast<float>(i));
    set = {"data", 5, 1, arrays, names};
    options = amp_fit_defaults();
    options.progress = &Reports::collect;
    options.context = &reports;
  }
  void TearDown() override {
    amp_step_destroy(step);
    TempDirectoryTest::TearDown();
  }
  /// The code and message of amp_step_fit of `on` on `set` (and `val`).
  struct Outcome {
    amp_status_code_t code;
    std::string message;
  };
  Outcome fit(amp_step_t *on, const amp_data_set_t *val = nullptr) {
    Status status(amp_step_fit(on, &options, &set, val));
    return {status.code(), status.message()};
  }
  float weight() {
    float w = 0;
    EXPECT_EQ(amp_step_read_tensor(step, 0, &w, sizeof w), nullptr);
    return w;
  }

  amp_step_t *step = nullptr;
  std::vector<float> examples;
  const void *arrays[1] = {nullptr};
  const char *names[1] = {"data['x']"};
  amp_data_set_t set{};
  amp_fit_options_t options{};
  Reports reports;
};

TEST_F(FitTest, TakesTheEpochsOrderAndReportsEachStep) {
  arrays[0] = examples.data();
  options.epochs = 2;
  options.print_every = 1;
  options.shuffle_seed = 3;
  std::string log = directory + "/log.jsonl";
  options.log = log.c_str();
  ASSERT_EQ(amp_step_fit(step, &options, &set, nullptr), nullptr);
  // 5 examples, batches of 2: 2 a epoch, example order[4] left out.
  ASSERT_EQ(reports.lines.size(), 5u);
  EXPECT_EQ(reports.lines[0], "data: 5 examples, 2 batches of 2 per epoch "
                              "(1 examples left out), 2 epochs; from step 0");
  ASSERT_EQ(reports.json.size(), 4u);
  for (int k = 0; k < 4; ++k) {
    int64_t order[5];
    ASSERT_EQ(amp_epoch_order(5, 3, k / 2, 1, order), nullptr);
    int64_t first = order[k % 2 * 2], second = order[k % 2 * 2 + 1];
    // w was k before step k + 1.
    double loss = k + 10.0 * first + second;
    char expected[128];
    std::snprintf(expected, sizeof expected,
                  "epoch %d step %d loss %.9g scale 1 skipped 0 steps/s ",
                  k / 2 + 1, k + 1, loss);
    EXPECT_EQ(reports.lines[k + 1].rfind(expected, 0), 0u)
        << reports.lines[k + 1];
    std::snprintf(expected, sizeof expected,
                  "{\"step\": %d, \"epoch\": %d, \"loss\": %.17g, \"scale\": "
                  "1, \"skipped\": 0, \"steps_per_s\": ",
                  k + 1, k / 2 + 1, loss);
    EXPECT_EQ(reports.json[k].rfind(expected, 0), 0u) << reports.json[k];
  }
  EXPECT_EQ(weight(), 4.0f);
  std::string logged;
  for (const std::string &line : reports.json)
    logged += line + "\n";
  EXPECT_EQ(readFile(log), logged);
}

TEST_F(FitTest, ResumesFromTheStepsCounterAndStopsWhenTold) {
  arrays[0] = examples.data();
  options.epochs = 3;
  options.print_every = 2;
  std::string checkpoint = directory + "/state";
  options.checkpoint = checkpoint.c_str();
  options.checkpoint_every = 1;
  reports.stopAfter = 1; // after step 2's report, before its checkpoint
  Outcome outcome = fit(step);
  EXPECT_EQ(outcome.message, "stopped by the progress callback after step 2");
  amp_step_t *resumed = nullptr;
  ASSERT_EQ(amp_step_create(&kFitDescription, AMP_DEVICE_HOST, &resumed),
            nullptr);
  ASSERT_EQ(amp_step_load(resumed, checkpoint.c_str()), nullptr);
  float scale = 0;
  int64_t steps = 0, skipped = 0;
  ASSERT_EQ(amp_step_scaler(resumed, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(steps, 1); // step 1's checkpoint, not step 2's
  Reports more;
  options.context = &more;
  ASSERT_EQ(amp_step_fit(resumed, &options, &set, nullptr), nullptr);
  EXPECT_EQ(more.lines.front().substr(more.lines.front().size() - 11),
            "from step 1");
  ASSERT_EQ(amp_step_scaler(resumed, &scale, &steps, &skipped), nullptr);
  EXPECT_EQ(steps, 6);
  EXPECT_EQ(more.json.size(), 3u); // steps 2, 4 and 6
  amp_step_destroy(resumed);
  // More steps done than the epochs hold: refused.
  options.epochs = 1;
  outcome = fit(step);
  EXPECT_EQ(outcome.code, AMP_OK); // 2 done, 2 a epoch
  ASSERT_EQ(amp_step_run(
                step, 1,
                std::vector<amp_step_input_t>{
                    {examples.data(), AMP_ELEMENT_F32, 1, kFitTensors[1].shape}}
                    .data()),
            nullptr);
  outcome = fit(step);
  EXPECT_EQ(outcome.message,
            "the step has run 3 steps already, more than the 2 of 1 "
            "epochs of 2 batches");
}

TEST_F(FitTest, StopsAtANonFiniteLossAndChecksTheDataFirst) {
  // Without a loss scaler a loss that is not finite stops the run at its
  // step, before it is reported: no-shuffle order, batch 1 holds examples
  // 2 and 3.
  examples[3] = INFINITY;
  examples[2] = -INFINITY;
  arrays[0] = examples.data();
  options.shuffle = 0;
  options.print_every = 1;
  options.allow_nonfinite = 0;
  Outcome outcome = fit(step);
  // The data's check finds the infinity first, by its row.
  EXPECT_EQ(outcome.code, AMP_INVALID_ARGUMENT);
  EXPECT_EQ(outcome.message.rfind("data['x']: row 2 ", 0), 0u)
      << outcome.message;
  EXPECT_TRUE(reports.lines.empty());
  // Finite data whose loss is not: 1e38 * 10 overflows.
  examples[2] = 1e38f;
  examples[3] = 1e38f;
  outcome = fit(step);
  EXPECT_EQ(outcome.message.rfind(
                "epoch 1, step 2 (batch 1 of the epoch): the loss is "
                "inf and the step has no loss scaler",
                0),
            0u)
      << outcome.message;
  EXPECT_EQ(reports.json.size(), 1u); // step 1's report only
  // allow_nonfinite trains on.
  options.allow_nonfinite = 1;
  options.epochs = 2;
  EXPECT_EQ(amp_step_fit(step, &options, &set, nullptr), nullptr);
  EXPECT_EQ(reports.json.back().find("\"loss\": Infinity"),
            reports.json.back().find("\"loss\": "));
}

TEST_F(FitTest, RefusesBadDataSetsAndOptions) {
  arrays[0] = examples.data();
  set.rows = 1;
  Outcome outcome = fit(step);
  EXPECT_EQ(outcome.message,
            "data holds 1 examples, fewer than one batch of 2");
  set.rows = 5;
  set.array_count = 2;
  outcome = fit(step);
  EXPECT_EQ(outcome.message,
            "data has 2 arrays; step 'fit' takes 1 batch inputs");
  set.array_count = 1;
  options.epochs = 0;
  outcome = fit(step);
  EXPECT_EQ(outcome.code, AMP_INVALID_ARGUMENT);
  options.epochs = 1;
  outcome = fit(step, &set);
  EXPECT_EQ(outcome.code, AMP_UNAVAILABLE); // no evaluation
  double loss = 0;
  Status noEval(amp_step_validate(step, &set, &loss, nullptr));
  EXPECT_EQ(noEval.code(), AMP_UNAVAILABLE);
  std::string log = directory + "/absent/log.jsonl";
  options.log = log.c_str();
  outcome = fit(step);
  EXPECT_EQ(outcome.code, AMP_IO_ERROR);
  EXPECT_EQ(weight(), 0.0f); // nothing trained
}

// The examples 0..4 in three shards, one of them empty, [0, 1], [], [2, 3,
// 4]: each batch holds the examples the set in one piece gives it in the
// same order (the losses name them), and a shard's bad row is named by the
// shard's array.
TEST_F(FitTest, ShardsAreOneSetOfExamples) {
  arrays[0] = examples.data();
  options.epochs = 2;
  options.print_every = 1;
  options.shuffle_seed = 3;
  ASSERT_EQ(amp_step_fit(step, &options, &set, nullptr), nullptr);
  std::vector<std::string> whole = reports.json;
  ASSERT_EQ(whole.size(), 4u);

  amp_step_t *sharded = nullptr;
  ASSERT_EQ(amp_step_create(&kFitDescription, AMP_DEVICE_HOST, &sharded),
            nullptr);
  std::vector<float> first = {0, 1}, last = {2, 3, 4};
  const void *pieces[3] = {first.data(), nullptr, last.data()};
  const char *pieceNames[3] = {"x/0.npy", "x/1.npy", "x/2.npy"};
  const int64_t rows[3] = {2, 0, 3};
  amp_data_set_t shards = {"data", 5, 1, pieces, pieceNames, 3, rows};
  reports = Reports();
  ASSERT_EQ(amp_step_fit(sharded, &options, &shards, nullptr), nullptr);
  ASSERT_EQ(reports.json.size(), 4u);
  // The same losses; only the steps' speeds differ.
  for (size_t k = 0; k < 4; ++k)
    EXPECT_EQ(reports.json[k].substr(0, reports.json[k].find("steps_per_s")),
              whole[k].substr(0, whole[k].find("steps_per_s")));

  last[1] = NAN;
  Status bad(amp_step_fit(sharded, &options, &shards, nullptr));
  EXPECT_EQ(bad.code(), AMP_INVALID_ARGUMENT);
  EXPECT_NE(bad.message().find("x/2.npy: "), std::string::npos)
      << bad.message();
  EXPECT_NE(bad.message().find("row 1"), std::string::npos) << bad.message();

  // Shards whose examples do not add up to the set's.
  const int64_t wrong[3] = {2, 0, 2};
  shards.shard_rows = wrong;
  Status sum(amp_step_fit(sharded, &options, &shards, nullptr));
  EXPECT_EQ(sum.code(), AMP_INVALID_ARGUMENT);
  EXPECT_EQ(sum.message(),
            "data: its 3 shards hold 4 examples, not the set's 5");
  shards.shard_rows = nullptr;
  Status none(amp_step_fit(sharded, &options, &shards, nullptr));
  EXPECT_EQ(none.message(), "data has 3 shards and no count of their "
                            "examples (shard_rows is null)");
  amp_step_destroy(sharded);
}

} // namespace
