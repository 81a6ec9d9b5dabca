//===- StepArgumentsTest.cpp - each argument's kind, decoded once ---------===//
//
// getArgumentKind against a step signature written by hand with one
// argument of each kind, as amp-optimizer marks them: buffers and the
// generator's state are also amp.state, hyperparameters and loss parts
// too, and each is the kind amp_step_tensor_kind_t gives it. The enum's
// values are the C ABI's, which the tensor table writes by name.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/StepArguments.h"
#include "amp/InitAll.h"
#include "amp_runtime/step.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using amp::ArgumentKind;

namespace {

constexpr StringLiteral kStep = R"mlir(
func.func @step(%w: tensor<4xf32> {amp.param},
                %m: tensor<4xf32> {amp.state},
                %mean: tensor<4xf32> {amp.buffer, amp.state},
                %rng: tensor<2xi64> {amp.rng, amp.state},
                %lr: tensor<f64> {amp.hparam, amp.state = 1.0e-01 : f64},
                %part: tensor<f32> {amp.loss_part, amp.state},
                %x: tensor<4xf32>) {
  return
}
)mlir";

TEST(StepArgumentsTest, EachArgumentHasOneKind) {
  DialectRegistry registry;
  amp::registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kStep, &ctx);
  ASSERT_TRUE(module);
  auto step = *module->getOps<func::FuncOp>().begin();
  const ArgumentKind expected[] = {
      ArgumentKind::param, ArgumentKind::state,  ArgumentKind::buffer,
      ArgumentKind::rng,   ArgumentKind::hparam, ArgumentKind::loss_part,
      ArgumentKind::input};
  ASSERT_EQ(step.getNumArguments(), std::size(expected));
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    EXPECT_EQ(amp::getArgumentKind(step, i), expected[i]) << "argument " << i;
    // Only the batch input is given anew each run.
    EXPECT_EQ(amp::isPersistent(step, i), expected[i] != ArgumentKind::input)
        << "argument " << i;
  }
}

// ArgumentKind mirrors amp_step_tensor_kind_t: the same values, and the
// emitter's "AMP_STEP_" + the upper-case name is the C enumerator.
TEST(StepArgumentsTest, KindsAreTheRuntimeKinds) {
  const std::pair<ArgumentKind, amp_step_tensor_kind_t> pairs[] = {
      {ArgumentKind::param, AMP_STEP_PARAM},
      {ArgumentKind::state, AMP_STEP_STATE},
      {ArgumentKind::input, AMP_STEP_INPUT},
      {ArgumentKind::hparam, AMP_STEP_HPARAM},
      {ArgumentKind::loss_part, AMP_STEP_LOSS_PART},
      {ArgumentKind::buffer, AMP_STEP_BUFFER},
      {ArgumentKind::rng, AMP_STEP_RNG}};
  const char *names[] = {"PARAM",     "STATE",  "INPUT", "HPARAM",
                         "LOSS_PART", "BUFFER", "RNG"};
  for (auto [pair, name] : llvm::zip_equal(pairs, names)) {
    EXPECT_EQ(static_cast<int>(pair.first), static_cast<int>(pair.second));
    EXPECT_EQ(amp::stringifyArgumentKind(pair.first).upper(), name);
  }
  // Every value of the enum is one of them.
  EXPECT_EQ(amp::getMaxEnumValForArgumentKind(), std::size(pairs) - 1);
}

} // namespace
