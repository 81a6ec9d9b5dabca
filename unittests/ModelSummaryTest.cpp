//===- ModelSummaryTest.cpp - op families, parameters and FLOP counts -----===//
//
// The expected figures are worked out by hand in the comments.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Analysis/ModelSummary.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

class ModelSummaryTest : public ::testing::Test {
protected:
  ModelSummaryTest() {
    DialectRegistry registry;
    amp::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  func::FuncOp parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    if (!module)
      return nullptr;
    return *module->getOps<func::FuncOp>().begin();
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

// A linear layer with bias, relu and a cross-entropy loss.
constexpr StringLiteral kLinear = R"mlir(
func.func @linear(%w: tensor<4x3xf32> {amp.param}, %b: tensor<3xf16> {amp.param},
                  %x: tensor<2x4xf32>, %y: tensor<2xi64>) -> tensor<f32> {
  %h = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
  %bh = amp.cast %b : tensor<3xf16> to tensor<3xf32>
  %a = amp.add %h, %bh : tensor<2x3xf32>, tensor<3xf32>
  %r = amp.relu %a : tensor<2x3xf32>
  %t = amp.transpose %r, [1, 0] : tensor<2x3xf32> to tensor<3x2xf32>
  %u = amp.transpose %t, [1, 0] : tensor<3x2xf32> to tensor<2x3xf32>
  %l = amp.cross_entropy %u, %y : tensor<2x3xf32>, tensor<2xi64> to tensor<f32>
  return %l : tensor<f32>
}
)mlir";

TEST_F(ModelSummaryTest, CountsOpsByFamilyAndName) {
  func::FuncOp func = parse(kLinear);
  ASSERT_TRUE(func);
  amp::FunctionSummary s = *amp::summarizeFunction(func);
  EXPECT_EQ(s.name, "linear");
  EXPECT_EQ(s.numOps, 7);
  auto family = [&](amp::OpFamily f) {
    return s.opsByFamily[static_cast<size_t>(f)];
  };
  EXPECT_EQ(family(amp::OpFamily::Contraction), 1);
  EXPECT_EQ(family(amp::OpFamily::Elementwise), 2);
  EXPECT_EQ(family(amp::OpFamily::Shape), 2);
  EXPECT_EQ(family(amp::OpFamily::Data), 1);
  EXPECT_EQ(family(amp::OpFamily::Loss), 1);
  EXPECT_EQ(family(amp::OpFamily::Other), 0);
  EXPECT_EQ(s.opsByName.at("amp.transpose"), 2);
  EXPECT_EQ(s.opsByName.count("func.return"), 0u);
}

TEST_F(ModelSummaryTest, CountsParameters) {
  func::FuncOp func = parse(kLinear);
  ASSERT_TRUE(func);
  amp::FunctionSummary s = *amp::summarizeFunction(func);
  EXPECT_EQ(s.numParameters, 2);
  EXPECT_EQ(s.numParameterElements, 12 + 3);
  // 12 f32 (4 bytes) + 3 f16 (2 bytes).
  EXPECT_EQ(s.parameterBytes, 12 * 4 + 3 * 2);
  EXPECT_EQ(s.numInputs, 2);
}

TEST_F(ModelSummaryTest, CountsDropoutsAndTheGeneratorApartFromInputs) {
  func::FuncOp func = parse(R"mlir(
func.func @drop(%x: tensor<4x3xf32>, %rng: tensor<2xi64> {amp.rng},
                %w: tensor<3x3xf32> {amp.param}) -> tensor<4x3xf32> {
  %a = amp.dropout %x, %rng p = 0.1 stream = 0 training : tensor<4x3xf32>
  %h = amp.matmul %a, %w : tensor<4x3xf32>, tensor<3x3xf32> to tensor<4x3xf32>
  %b = amp.dropout %h, %rng p = 0.1 stream = 1 : tensor<4x3xf32>
  return %b : tensor<4x3xf32>
}
)mlir");
  ASSERT_TRUE(func);
  amp::FunctionSummary s = *amp::summarizeFunction(func);
  EXPECT_EQ(s.numInputs, 1);
  EXPECT_TRUE(s.hasGenerator);
  EXPECT_EQ(s.numTrainingDropouts, 1); // the second is in evaluation mode
  EXPECT_EQ(s.opsByName.at("amp.dropout"), 2);
}

TEST_F(ModelSummaryTest, CountsForwardFlops) {
  func::FuncOp func = parse(kLinear);
  ASSERT_TRUE(func);
  amp::FunctionSummary s = *amp::summarizeFunction(func);
  // matmul 2*M*N*K = 2*2*3*4 = 48; add 6; relu 6; cross-entropy 5 per logit
  // = 30; cast and transposes move data and count 0.
  EXPECT_EQ(s.forwardFlops, 48 + 6 + 6 + 30);
}

TEST_F(ModelSummaryTest, BatchedAndTransposedMatmulFlops) {
  func::FuncOp func = parse(R"mlir(
func.func @bmm(%a: tensor<5x7x2xf32>, %b: tensor<3x7xf32>) -> tensor<5x2x3xf32> {
  %c = amp.matmul %a, %b {transpose_lhs, transpose_rhs}
      : tensor<5x7x2xf32>, tensor<3x7xf32> to tensor<5x2x3xf32>
  return %c : tensor<5x2x3xf32>
}
)mlir");
  ASSERT_TRUE(func);
  // batch 5, M = 2, N = 3, K = 7: 2 * 5 * 2 * 3 * 7.
  EXPECT_EQ(amp::summarizeFunction(func)->forwardFlops, 2 * 5 * 2 * 3 * 7);
}

TEST_F(ModelSummaryTest, AttentionFlopsAndDefaultScale) {
  func::FuncOp func = parse(R"mlir(
func.func @attn(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>,
                %v: tensor<1x2x5x6xf32>) -> tensor<1x2x3x6xf32> {
  %o = amp.attention %q, %k, %v causal
      : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x6xf32>
  return %o : tensor<1x2x3x6xf32>
}
)mlir");
  ASSERT_TRUE(func);
  // scores B*H*T*S = 1*2*3*5 = 30; QK^T 2*30*4, PV 2*30*6, softmax 5*30.
  EXPECT_EQ(amp::summarizeFunction(func)->forwardFlops,
            2 * 30 * 4 + 2 * 30 * 6 + 5 * 30);
  auto attention = *func.getOps<amp::AttentionOp>().begin();
  EXPECT_DOUBLE_EQ(attention.getScaleOrDefault(), 0.5); // 1 / sqrt(4)
}

TEST_F(ModelSummaryTest, NonAmpOpsAreOther) {
  func::FuncOp func = parse(R"mlir(
func.func @other() -> tensor<2xf32> {
  %c = arith.constant dense<1.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}
)mlir");
  ASSERT_TRUE(func);
  amp::FunctionSummary s = *amp::summarizeFunction(func);
  EXPECT_EQ(s.numOps, 1);
  EXPECT_EQ(s.opsByFamily[static_cast<size_t>(amp::OpFamily::Other)], 1);
  EXPECT_EQ(s.forwardFlops, 0);
}

} // namespace
