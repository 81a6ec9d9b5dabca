//===- KernelAnalysisTest.cpp - the kind, root and roles of kernels -------===//
//
// analyzeKernel on fusions written by hand, one of each kind whose ops
// play more than one role: the role of each op is read off the IR by hand
// (which op makes the root's operand, which reads its result), as the
// emitter relies on them.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/KernelAnalysis.h"
#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using amp::KernelKind;
using amp::KernelRole;

namespace {

class KernelAnalysisTest : public ::testing::Test {
protected:
  KernelAnalysisTest() {
    DialectRegistry registry;
    amp::registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// The analysis of the first amp.fusion of `source`.
  amp::KernelAnalysis analyze(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module);
    amp::FusionOp fusion;
    module->walk([&](amp::FusionOp op) {
      if (!fusion)
        fusion = op;
    });
    std::string why;
    FailureOr<amp::KernelAnalysis> analysis =
        amp::analyzeKernel(fusion.getBlock(), why);
    EXPECT_TRUE(succeeded(analysis)) << why;
    return *analysis;
  }

  /// Checks the role of each op of `analysis`, in block order.
  static void expectRoles(const amp::KernelAnalysis &analysis,
                          ArrayRef<KernelRole> roles) {
    ASSERT_EQ(analysis.roles.size(), roles.size());
    for (unsigned i = 0; i < roles.size(); ++i)
      EXPECT_EQ(analysis.roles[i], roles[i]) << "op " << i;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

// A softmax whose operand is computed in its loads (neg) and whose result
// is cast as it stores; the exp before the softmax feeds only the
// epilogue's add, so it is computed as the row kernel stores too.
TEST_F(KernelAnalysisTest, RowKernelPrologueAndEpilogue) {
  amp::KernelAnalysis analysis = analyze(R"mlir(
func.func @f(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<2x4xbf16> {
  %k = amp.fusion(%a = %x, %b = %y) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xbf16> {
    %0 = amp.neg %a : tensor<2x4xf32>
    %1 = amp.exp %b : tensor<2x4xf32>
    %2 = amp.softmax %0 dim = 1 : tensor<2x4xf32>
    %3 = amp.add %2, %1 : tensor<2x4xf32>, tensor<2x4xf32>
    %4 = amp.cast %3 : tensor<2x4xf32> to tensor<2x4xbf16>
    amp.yield %4 : tensor<2x4xbf16>
  }
  return %k : tensor<2x4xbf16>
}
)mlir");
  EXPECT_EQ(analysis.kind, KernelKind::rows);
  EXPECT_EQ(analysis.root, 2u);
  EXPECT_EQ(analysis.getRoot()->getName().getStringRef(), "amp.softmax");
  expectRoles(analysis,
              {KernelRole::prologue, KernelRole::epilogue, KernelRole::root,
               KernelRole::epilogue, KernelRole::epilogue});
  EXPECT_EQ(analysis.getOthers().size(), 4u);
  EXPECT_EQ(analysis.getOps(KernelRole::prologue).size(), 1u);
}

// Two updates in one launch, each with its guard: the first is the root,
// the second a member, the selects guards.
TEST_F(KernelAnalysisTest, GuardedRunOfUpdates) {
  amp::KernelAnalysis analysis = analyze(R"mlir(
func.func @f(%w: tensor<4xf32>, %v: tensor<4xf32>, %g: tensor<4xf32>, %lr: tensor<f64>, %wd: tensor<f64>, %ok: tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>) {
  %k:2 = amp.fusion(%a = %w, %b = %v, %c = %g, %d = %lr, %e = %wd, %f = %ok) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f64>, tensor<f64>, tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = amp.sgd_update %a, %c lr(%d) weight_decay(%e) : tensor<4xf32>
    %1 = amp.select %f, %0, %a : tensor<i1>, tensor<4xf32>, tensor<4xf32>
    %2 = amp.sgd_update %b, %c lr(%d) weight_decay(%e) : tensor<4xf32>
    %3 = amp.select %f, %2, %b : tensor<i1>, tensor<4xf32>, tensor<4xf32>
    amp.yield %1, %3 : tensor<4xf32>, tensor<4xf32>
  }
  return %k#0, %k#1 : tensor<4xf32>, tensor<4xf32>
}
)mlir");
  EXPECT_EQ(analysis.kind, KernelKind::updates);
  EXPECT_EQ(analysis.root, 0u);
  expectRoles(analysis, {KernelRole::root, KernelRole::guard,
                         KernelRole::member, KernelRole::guard});
}

// A GEMM's relu is its epilogue; a gather's transposes and reshapes before
// its last op are computed in its loads.
TEST_F(KernelAnalysisTest, GemmEpilogueAndGatherPrologue) {
  amp::KernelAnalysis gemm = analyze(R"mlir(
func.func @f(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %k = amp.fusion(%a = %x, %c = %w, %d = %b) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> {
    %0 = amp.matmul %a, %c bias %d : tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32> to tensor<2x3xf32>
    %1 = amp.relu %0 : tensor<2x3xf32>
    amp.yield %1 : tensor<2x3xf32>
  }
  return %k : tensor<2x3xf32>
}
)mlir");
  EXPECT_EQ(gemm.kind, KernelKind::gemm);
  EXPECT_EQ(gemm.root, 0u);
  expectRoles(gemm, {KernelRole::root, KernelRole::epilogue});

  amp::KernelAnalysis gather = analyze(R"mlir(
func.func @f(%x: tensor<2x16x64xf32>) -> tensor<2x4x16x8xf32> {
  %k = amp.fusion(%a = %x) : (tensor<2x16x64xf32>) -> tensor<2x4x16x8xf32> {
    %0 = amp.slice %a [0, 0, 0] to [2, 16, 32] : tensor<2x16x64xf32> to tensor<2x16x32xf32>
    %1 = amp.reshape %0 : tensor<2x16x32xf32> to tensor<2x16x4x8xf32>
    %2 = amp.transpose %1, [0, 2, 1, 3] : tensor<2x16x4x8xf32> to tensor<2x4x16x8xf32>
    amp.yield %2 : tensor<2x4x16x8xf32>
  }
  return %k : tensor<2x4x16x8xf32>
}
)mlir");
  EXPECT_EQ(gather.kind, KernelKind::gather);
  EXPECT_EQ(gather.root, 2u);
  expectRoles(gather,
              {KernelRole::prologue, KernelRole::prologue, KernelRole::root});
}

} // namespace
