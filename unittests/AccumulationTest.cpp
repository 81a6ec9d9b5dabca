//===- AccumulationTest.cpp - micro-batches against the whole batch -------===//
//
// Gradient accumulation over 4 micro-batches of 2 with dynamic loss scaling
// must equal one step on the batch of 8: the mean of the micro-batch mean
// losses is the batch mean, and the scale stays fixed for the whole
// effective batch.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Interpreter/Interpreter.h"
#include "amp/Interpreter/RandomInputs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::interp;

namespace {

std::string model(int batch) {
  std::string b = std::to_string(batch);
  return "func.func @m(%w: tensor<6x3xf32> {amp.param}, %x: tensor<" + b +
         "x6xf32>, %y: tensor<" + b +
         "xi64>) -> tensor<f32> {\n"
         "  %l = amp.matmul %x, %w : tensor<" +
         b + "x6xf32>, tensor<6x3xf32> to tensor<" + b +
         "x3xf32>\n"
         "  %c = amp.cross_entropy %l, %y : tensor<" +
         b + "x3xf32>, tensor<" + b +
         "xi64> to tensor<f32>\n"
         "  return %c : tensor<f32>\n}\n";
}

class AccumulationTest : public ::testing::Test {
protected:
  AccumulationTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> build(int batch, int64_t accumulate) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(model(batch), &ctx);
    PassManager pm(&ctx);
    pm.addPass(createAmpAutodiff());
    AmpLossScalingOptions scaling;
    scaling.mode = amp::LossScalingOption::dynamic;
    pm.addPass(createAmpLossScaling(scaling));
    AmpOptimizerOptions optimizer;
    optimizer.optimizer = amp::OptimizerKind::sgd;
    optimizer.lr = 0.5;
    optimizer.momentum = 0.9;
    optimizer.accumulate = accumulate;
    pm.addPass(createAmpOptimizer(optimizer));
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return module;
  }

  /// The initial arguments of @m_step: seeded parameters and batch, state
  /// from its attributes.
  std::vector<Tensor> initial(func::FuncOp step) {
    std::vector<Tensor> args;
    for (BlockArgument arg : step.getArguments())
      args.push_back(makeRandomInput(arg, 5, RandomInputOptions{}));
    return args;
  }

  MLIRContext ctx;
};

TEST_F(AccumulationTest, FourMicroBatchesEqualTheWholeBatch) {
  OwningOpRef<ModuleOp> whole = build(8, 1), micro = build(2, 4);
  auto wholeStep = whole->lookupSymbol<func::FuncOp>("m_step");
  auto microStep = micro->lookupSymbol<func::FuncOp>("m_step");
  std::vector<Tensor> wholeArgs = initial(wholeStep);
  std::vector<Tensor> microArgs = initial(microStep);
  // Same weights; the micro-batches are the rows of the whole batch.
  microArgs[0] = wholeArgs[0];
  const Tensor &x = wholeArgs[wholeArgs.size() - 2];
  const Tensor &y = wholeArgs.back();

  FailureOr<std::vector<Tensor>> wholeOut =
      Interpreter(*whole).run(wholeStep, wholeArgs);
  ASSERT_TRUE(succeeded(wholeOut));

  Interpreter interpreter(*micro);
  unsigned threaded = microArgs.size() - 2;
  for (int k = 0; k < 4; ++k) {
    std::vector<double> xs(x.getData().begin() + k * 12,
                           x.getData().begin() + (k + 1) * 12);
    std::vector<double> ys(y.getData().begin() + k * 2,
                           y.getData().begin() + (k + 1) * 2);
    microArgs[threaded] = Tensor(ElementKind::F32, {2, 6}, xs);
    microArgs[threaded + 1] = Tensor(ElementKind::I64, {2}, ys);
    FailureOr<std::vector<Tensor>> out = interpreter.run(microStep, microArgs);
    ASSERT_TRUE(succeeded(out));
    for (unsigned i = 0; i < threaded; ++i)
      microArgs[i] = (*out)[i];
    // The weight moves only after the fourth micro-batch.
    if (k < 3) {
      EXPECT_EQ(microArgs[0].getData(), wholeArgs[0].getData()) << k;
    }
  }
  const Tensor &expected = (*wholeOut)[0];
  for (int64_t i = 0; i < expected.getNumElements(); ++i)
    EXPECT_NEAR(microArgs[0][i], expected[i],
                1e-6 * std::fabs(expected[i]) + 1e-7)
        << i;
  EXPECT_NE(microArgs[0].getData(), wholeArgs[0].getData());
  // Neither overflowed: the scale did not move (growth interval 2000).
  EXPECT_EQ(microArgs[threaded - 3][0], 65536.0);
}

} // namespace
