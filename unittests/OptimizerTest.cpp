//===- OptimizerTest.cpp - training-step updates against plain formulas ---===//
//
// The loss sum(w * x) has the gradient x with respect to w, so every
// update can be worked out in the test with plain arithmetic that follows
// torch.optim's formulas, and compared with two steps of the step function
// that amp-autodiff and amp-optimizer build, run in the interpreter.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Interpreter/Interpreter.h"

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

constexpr StringLiteral kLinear = R"mlir(
func.func @f(%w: tensor<2xf32> {amp.param}, %x: tensor<2xf32>) -> tensor<f32> {
  %p = amp.mul %w, %x : tensor<2xf32>, tensor<2xf32>
  %l = amp.sum %p dims = [0] : tensor<2xf32> to tensor<f32>
  return %l : tensor<f32>
}
)mlir";

class OptimizerTest : public ::testing::Test {
protected:
  OptimizerTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Builds @f_step with `options` and runs it `steps` times from w0 with
  /// input x and zero state; returns the parameter after each step and the
  /// final state.
  std::vector<std::vector<float>>
  train(const AmpOptimizerOptions &options, std::vector<float> w0,
        std::vector<float> x, int steps,
        std::vector<Tensor> *finalState = nullptr) {
    module = parseSourceString<ModuleOp>(kLinear, &ctx);
    PassManager pm(&ctx);
    pm.addPass(createAmpAutodiff());
    pm.addPass(createAmpOptimizer(options));
    EXPECT_TRUE(succeeded(pm.run(*module)));
    auto step = module->lookupSymbol<func::FuncOp>("f_step");
    // State starts at its amp.state value (a hyperparameter at the
    // option's), in its type.
    std::vector<Tensor> args;
    for (auto [i, type] : llvm::enumerate(step.getArgumentTypes())) {
      auto tensor = cast<RankedTensorType>(type);
      double initial = 0;
      if (auto value =
              step.getArgAttrOfType<FloatAttr>(i, AmpDialect::kStateAttrName))
        initial = value.getValueAsDouble();
      args.emplace_back(tensor.getElementType().isF64() ? ElementKind::F64
                                                        : ElementKind::F32,
                        tensor.getShape(),
                        std::vector<double>(tensor.getNumElements(), initial));
    }
    args.front() = Tensor(ElementKind::F32, {2}, {w0[0], w0[1]});
    args.back() = Tensor(ElementKind::F32, {2}, {x[0], x[1]});
    Interpreter interpreter(*module);
    std::vector<std::vector<float>> history;
    for (int s = 0; s < steps; ++s) {
      FailureOr<std::vector<Tensor>> results = interpreter.run(step, args);
      EXPECT_TRUE(succeeded(results));
      // Results: params', state'..., loss; arguments: params, state..., x.
      for (size_t i = 0; i + 1 < results->size(); ++i)
        args[i] = (*results)[i];
      history.push_back(
          {static_cast<float>(args[0][0]), static_cast<float>(args[0][1])});
    }
    if (finalState)
      finalState->assign(args.begin() + 1, args.end() - 1);
    return history;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

TEST_F(OptimizerTest, PlainSgd) {
  AmpOptimizerOptions options;
  options.optimizer = amp::OptimizerKind::sgd;
  options.lr = 0.1;
  options.weightDecay = 0.01;
  auto h = train(options, {1.0f, -2.0f}, {0.5f, 2.0f}, 2);
  float w[2] = {1.0f, -2.0f};
  const float g[2] = {0.5f, 2.0f};
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 2; ++i) {
      w[i] = w[i] - 0.1f * (g[i] + 0.01f * w[i]);
      EXPECT_FLOAT_EQ(h[s][i], w[i]) << "step " << s << " element " << i;
    }
}

TEST_F(OptimizerTest, SgdMomentumWithDampening) {
  AmpOptimizerOptions options;
  options.optimizer = amp::OptimizerKind::sgd;
  options.lr = 0.1;
  options.momentum = 0.9;
  options.dampening = 0.1;
  options.weightDecay = 0.01;
  std::vector<Tensor> state;
  auto h = train(options, {1.0f, -2.0f}, {0.5f, 2.0f}, 2, &state);
  float w[2] = {1.0f, -2.0f}, buf[2] = {0, 0};
  const float g[2] = {0.5f, 2.0f};
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 2; ++i) {
      float d = g[i] + 0.01f * w[i];
      // torch.optim.SGD: the first step copies d into the buffer.
      buf[i] = s == 0 ? d : 0.9f * buf[i] + (1 - 0.1f) * d;
      w[i] = w[i] - 0.1f * buf[i];
      EXPECT_FLOAT_EQ(h[s][i], w[i]) << "step " << s << " element " << i;
    }
  // State: the buffer, the step counter, then the hyperparameters (lr,
  // momentum, weight decay) as the options set them, unchanged.
  ASSERT_EQ(state.size(), 5u);
  EXPECT_FLOAT_EQ(static_cast<float>(state[0][0]), buf[0]);
  EXPECT_FLOAT_EQ(static_cast<float>(state[0][1]), buf[1]);
  EXPECT_EQ(state[1][0], 2.0);
  EXPECT_EQ(state[2][0], 0.1);
  EXPECT_EQ(state[3][0], 0.9);
  EXPECT_EQ(state[4][0], 0.01);
}

TEST_F(OptimizerTest, SgdNesterov) {
  AmpOptimizerOptions options;
  options.optimizer = amp::OptimizerKind::sgd;
  options.lr = 0.05;
  options.momentum = 0.8;
  options.nesterov = true;
  auto h = train(options, {0.25f, 3.0f}, {-1.0f, 0.75f}, 2);
  float w[2] = {0.25f, 3.0f}, buf[2] = {0, 0};
  const float g[2] = {-1.0f, 0.75f};
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 2; ++i) {
      float d = g[i];
      buf[i] = s == 0 ? d : 0.8f * buf[i] + d;
      w[i] = w[i] - 0.05f * (d + 0.8f * buf[i]);
      EXPECT_FLOAT_EQ(h[s][i], w[i]) << "step " << s << " element " << i;
    }
}

TEST_F(OptimizerTest, AdamW) {
  AmpOptimizerOptions options;
  options.optimizer = amp::OptimizerKind::adamw;
  options.lr = 0.1;
  std::vector<Tensor> state;
  auto h = train(options, {1.0f, -2.0f}, {0.5f, 2.0f}, 2, &state);
  // torch.optim.AdamW: decoupled decay, bias-corrected moments.
  double w[2] = {1.0, -2.0}, m[2] = {0, 0}, v[2] = {0, 0};
  const double g[2] = {0.5, 2.0}, lr = 0.1, b1 = 0.9, b2 = 0.999, eps = 1e-8,
               wd = 0.01;
  for (int s = 0; s < 2; ++s) {
    double t = s + 1;
    for (int i = 0; i < 2; ++i) {
      w[i] *= 1 - lr * wd;
      m[i] = b1 * m[i] + (1 - b1) * g[i];
      v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
      double mHat = m[i] / (1 - std::pow(b1, t));
      double vHat = v[i] / (1 - std::pow(b2, t));
      w[i] -= lr * mHat / (std::sqrt(vHat) + eps);
      // f32 arithmetic against this f64 formula.
      EXPECT_NEAR(h[s][i], w[i], 1e-6 * std::fabs(w[i]) + 1e-7)
          << "step " << s << " element " << i;
    }
  }
  // State: m and v of the parameter, the step counter, then lr, the betas,
  // eps and the weight decay.
  ASSERT_EQ(state.size(), 8u);
  EXPECT_NEAR(state[0][1], m[1], 1e-6);
  EXPECT_NEAR(state[1][1], v[1], 1e-8);
  EXPECT_EQ(state[2][0], 2.0);
  const double hypers[] = {lr, b1, b2, eps, wd};
  for (int k = 0; k < 5; ++k)
    EXPECT_EQ(state[3 + k][0], hypers[k]) << k;
}

TEST_F(OptimizerTest, ClippingByGlobalNorm) {
  AmpOptimizerOptions options;
  options.optimizer = amp::OptimizerKind::sgd;
  options.lr = 1.0;
  options.maxGradNorm = 1.0;
  // The gradient [3, 4] has norm 5: scaled by 1 / (5 + 1e-6).
  auto h = train(options, {0.0f, 0.0f}, {3.0f, 4.0f}, 1);
  float coef = 1.0f / (5.0f + 1e-6f);
  EXPECT_FLOAT_EQ(h[0][0], -3.0f * coef);
  EXPECT_FLOAT_EQ(h[0][1], -4.0f * coef);
  // A gradient already within the norm is left alone.
  options.maxGradNorm = 10.0;
  auto small = train(options, {0.0f, 0.0f}, {3.0f, 4.0f}, 1);
  EXPECT_FLOAT_EQ(small[0][0], -3.0f);
  EXPECT_FLOAT_EQ(small[0][1], -4.0f);
}

TEST_F(OptimizerTest, AccumulationUpdatesEveryNthCall) {
  AmpOptimizerOptions options;
  options.optimizer = amp::OptimizerKind::sgd;
  options.lr = 0.5;
  options.accumulate = 3;
  auto h = train(options, {1.0f, 1.0f}, {2.0f, -1.0f}, 6);
  // Calls 1 and 2 only accumulate; call 3 applies the mean gradient.
  for (int s : {0, 1}) {
    EXPECT_EQ(h[s][0], 1.0f);
    EXPECT_EQ(h[s][1], 1.0f);
  }
  EXPECT_FLOAT_EQ(h[2][0], 1.0f - 0.5f * 2.0f);
  EXPECT_FLOAT_EQ(h[2][1], 1.0f + 0.5f * 1.0f);
  EXPECT_EQ(h[3][0], h[2][0]);
  EXPECT_FLOAT_EQ(h[5][0], h[2][0] - 0.5f * 2.0f);
}

} // namespace
