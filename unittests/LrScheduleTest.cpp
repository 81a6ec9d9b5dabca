//===- LrScheduleTest.cpp - learning-rate schedules against PyTorch -------===//
//
// amprt::scheduledRate (amp_runtime/scalar_math.h), which amp.lr_schedule
// runs in the interpreter and in the generated code, against the rates
// torch.optim.lr_scheduler gives over 10,000 steps, recorded by
// scripts/make_golden_lr_schedules.py in test/Golden/lr_schedules.json;
// and a few rates worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include "amp_runtime/scalar_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::amp;

namespace {

double rate(LrScheduleKind kind, double lr, double t,
            std::vector<double> params) {
  return amprt::scheduledRate(static_cast<amprt::LrScheduleKind>(kind), lr, t,
                              params.data());
}

TEST(LrScheduleTest, RatesWorkedOutByHand) {
  // Warmup over 4 steps from a quarter: 0.25, 0.4375, 0.625, 0.8125, 1.
  for (int t = 0; t <= 5; ++t)
    EXPECT_DOUBLE_EQ(rate(LrScheduleKind::linear_warmup, 2, t, {4, 0.25}),
                     2 * (t < 4 ? 0.25 + 0.75 * t / 4 : 1.0))
        << t;
  // Cosine over 4 steps to 0.5: halfway it is the mean of 2 and 0.5; from
  // step 4 on it stays at the floor.
  EXPECT_DOUBLE_EQ(rate(LrScheduleKind::cosine, 2, 0, {4, 0.5}), 2);
  EXPECT_DOUBLE_EQ(rate(LrScheduleKind::cosine, 2, 2, {4, 0.5}), 1.25);
  EXPECT_DOUBLE_EQ(rate(LrScheduleKind::cosine, 2, 4, {4, 0.5}), 0.5);
  EXPECT_DOUBLE_EQ(rate(LrScheduleKind::cosine, 2, 40, {4, 0.5}), 0.5);
  // Halved every 3 steps.
  EXPECT_EQ(rate(LrScheduleKind::step, 1, 2, {3, 0.5}), 1);
  EXPECT_EQ(rate(LrScheduleKind::step, 1, 3, {3, 0.5}), 0.5);
  EXPECT_EQ(rate(LrScheduleKind::step, 1, 7, {3, 0.5}), 0.25);
  // Warmup for 2 steps, then the cosine starts from the full rate.
  EXPECT_DOUBLE_EQ(rate(LrScheduleKind::warmup_cosine, 2, 1, {2, 0.5, 4, 0}),
                   1.5);
  EXPECT_DOUBLE_EQ(rate(LrScheduleKind::warmup_cosine, 2, 2, {2, 0.5, 4, 0}),
                   2);
  EXPECT_DOUBLE_EQ(rate(LrScheduleKind::warmup_cosine, 2, 4, {2, 0.5, 4, 0}),
                   1);
  // No warmup at all: the cosine from step 0.
  EXPECT_DOUBLE_EQ(rate(LrScheduleKind::warmup_cosine, 2, 2, {0, 0.5, 4, 0}),
                   1);
}

TEST(LrScheduleTest, MatchesTorchOver10000Steps) {
  auto file = llvm::MemoryBuffer::getFile(AMP_SOURCE_DIR
                                          "/test/Golden/lr_schedules.json");
  ASSERT_TRUE(static_cast<bool>(file));
  llvm::Expected<llvm::json::Value> golden =
      llvm::json::parse((*file)->getBuffer());
  ASSERT_TRUE(static_cast<bool>(golden)) << llvm::toString(golden.takeError());
  const llvm::json::Array *cases = golden->getAsObject()->getArray("cases");
  ASSERT_TRUE(cases && cases->size() == 5);
  for (const llvm::json::Value &value : *cases) {
    const llvm::json::Object &c = *value.getAsObject();
    std::optional<LrScheduleKind> kind =
        symbolizeLrScheduleKind(*c.getString("kind"));
    ASSERT_TRUE(kind);
    SCOPED_TRACE(c.getString("kind")->str());
    // The parameters in amp.lr_schedule's order, by their names.
    std::vector<double> params;
    for (StringRef name : LrScheduleOp::getParamNames(*kind))
      params.push_back(*c.getObject("params")->getNumber(name));
    double lr = *c.getNumber("lr");
    const llvm::json::Array &steps = *c.getArray("steps");
    const llvm::json::Array &rates = *c.getArray("rates");
    ASSERT_EQ(steps.size(), rates.size());
    ASSERT_GT(steps.size(), 1400u);
    double worst = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      double t = *steps[i].getAsNumber(), want = *rates[i].getAsNumber();
      double got = rate(*kind, lr, t, params);
      worst = std::max(worst, std::fabs(got - want) / std::fabs(want));
      ASSERT_LE(std::fabs(got - want), 1e-7 * std::fabs(want))
          << "step " << t << ": " << got << " against torch's " << want;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.3e", worst);
    RecordProperty(c.getString("kind")->str() + "_" +
                       std::to_string(&value - &cases->front()) +
                       "_worst_relative_error",
                   text);
  }
}

// The runtime finds a step's schedule by its hyperparameters' names
// (amprt::kLrScheduleParams, fit.cpp): the same names, in the same order,
// as amp.lr_schedule's operands.
TEST(LrScheduleTest, TheRuntimeNamesTheParametersAsTheOpDoes) {
  for (auto kind : {LrScheduleKind::linear_warmup, LrScheduleKind::cosine,
                    LrScheduleKind::step, LrScheduleKind::warmup_cosine}) {
    ArrayRef<StringLiteral> names = LrScheduleOp::getParamNames(kind);
    const auto &runtime = amprt::kLrScheduleParams[static_cast<int>(kind)];
    for (size_t i = 0; i < 4; ++i) {
      if (i < names.size()) {
        ASSERT_NE(runtime[i], nullptr);
        EXPECT_EQ(names[i], StringRef(runtime[i]));
      } else {
        EXPECT_EQ(runtime[i], nullptr);
      }
    }
  }
}

} // namespace
