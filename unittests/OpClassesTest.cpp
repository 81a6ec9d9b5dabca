//===- OpClassesTest.cpp - every amp op is classified for the backend -----===//
//
// The backend (--amp-fuse, --amp-plan-buffers, the emitter) classifies ops
// by traits and interfaces only: OpTrait::amp::FusibleElementwise,
// MemoryView, InPlaceUpdate and OptimizerUpdateOpInterface. These tests
// walk every registered amp op, so that a new op cannot silently fall out
// of a class: an elementwise op that would run as a kernel of its own, an
// optimizer update that the interpreter or the emitter does not run.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Interpreter/Interpreter.h"
#include "amp/Target/Cuda/TranslateToCuda.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>

using namespace mlir;
using namespace mlir::amp;

namespace {

namespace trait = mlir::OpTrait::amp;

/// Ops of the elementwise family that the backend runs as kernels of their
/// own instead of in fused loops, each with the reason. Empty: every
/// elementwise op fuses. An op belongs here only when its kernel cannot be
/// one element at a time (say, it reads its neighbours); otherwise give it
/// Amp_FusibleElementwise and a case in the emitter's elementwise loop.
const std::set<std::string> kUnfusedElementwise = {};

/// Ops of other families that fuse all the same, because the backend
/// computes them one element at a time: a constant (a literal or a load of
/// its array at the element's index), iota (from the index alone), a cast,
/// a broadcast (a load at the broadcast index) and the gradients of relu
/// and gelu (from the same element of x and dy).
const std::set<std::string> kFusibleOutsideFamily = {
    "amp.broadcast_to", "amp.cast", "amp.constant", "amp.gelu_grad",
    "amp.relu_grad", "amp.iota",
    // Element 1 of the generator state plus one, element 0 as it was.
    "amp.rng_advance"};

/// A training step around each optimizer update: the parameter and its
/// state threaded through (amp.param, amp.state), the gradient and the step
/// count as inputs, a loss to return. Keyed by op name; an op with
/// OptimizerUpdateOpInterface that is missing here fails UpdatesAreHandled.
const std::map<std::string, std::string> kUpdateSteps = {
    {"amp.sgd_update", R"mlir(
func.func @step(%p: tensor<4xf32> {amp.param}, %g: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<f32>) {
  %lr = amp.constant dense<0.5> : tensor<f64>
  %wd = amp.constant dense<0.0> : tensor<f64>
  %p2 = amp.sgd_update %p, %g lr(%lr) weight_decay(%wd) : tensor<4xf32>
  %loss = amp.sum %g dims = [0] : tensor<4xf32> to tensor<f32>
  return %p2, %loss : tensor<4xf32>, tensor<f32>
}
)mlir"},
    {"amp.sgd_momentum_update", R"mlir(
func.func @step(%p: tensor<4xf32> {amp.param},
                %buf: tensor<4xf32> {amp.state}, %g: tensor<4xf32>,
                %step: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %lr = amp.constant dense<0.5> : tensor<f64>
  %mu = amp.constant dense<0.9> : tensor<f64>
  %wd = amp.constant dense<0.0> : tensor<f64>
  %p2, %buf2 = amp.sgd_momentum_update %p, %g, %buf, %step lr(%lr)
      momentum(%mu) weight_decay(%wd) {dampening = 0.0 : f64}
      : tensor<4xf32>, tensor<f32>
  %loss = amp.sum %g dims = [0] : tensor<4xf32> to tensor<f32>
  return %p2, %buf2, %loss : tensor<4xf32>, tensor<4xf32>, tensor<f32>
}
)mlir"},
    {"amp.adamw_update", R"mlir(
func.func @step(%p: tensor<4xf32> {amp.param},
                %m: tensor<4xf32> {amp.state}, %v: tensor<4xf32> {amp.state},
                %g: tensor<4xf32>, %step: tensor<f32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>) {
  %lr = amp.constant dense<1.0e-3> : tensor<f64>
  %b1 = amp.constant dense<0.9> : tensor<f64>
  %b2 = amp.constant dense<0.999> : tensor<f64>
  %eps = amp.constant dense<1.0e-8> : tensor<f64>
  %wd = amp.constant dense<0.01> : tensor<f64>
  %p2, %m2, %v2 = amp.adamw_update %p, %g, %m, %v, %step lr(%lr)
      betas(%b1, %b2) eps(%eps) weight_decay(%wd)
      : tensor<4xf32>, tensor<f32>
  %loss = amp.sum %g dims = [0] : tensor<4xf32> to tensor<f32>
  return %p2, %m2, %v2, %loss
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<f32>
}
)mlir"},
};

class OpClassesTest : public ::testing::Test {
protected:
  OpClassesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// The registered ops of the amp dialect.
  SmallVector<RegisteredOperationName> ampOps() {
    SmallVector<RegisteredOperationName> ops;
    for (RegisteredOperationName name : ctx.getRegisteredOperations())
      if (name.getDialectNamespace() == AmpDialect::getDialectNamespace())
        ops.push_back(name);
    return ops;
  }

  MLIRContext ctx;
};

// Every op reaches the CUDA target: a fusible elementwise op through its
// scalar expression, another through its kernel model (StepEmitter.h lists
// the files by family).
TEST_F(OpClassesTest, EveryOpHasAKernel) {
  SmallVector<StringRef> missing = getOpsWithoutKernel(ctx);
  EXPECT_TRUE(missing.empty())
      << "no kernel in lib/Target/Cuda for: " << llvm::join(missing, ", ");
}

TEST_F(OpClassesTest, ElementwiseOpsFuse) {
  SmallVector<RegisteredOperationName> ops = ampOps();
  ASSERT_FALSE(ops.empty());
  for (RegisteredOperationName op : ops) {
    std::string name = op.getStringRef().str();
    bool family = op.hasTrait<trait::ElementwiseFamily>();
    bool fusible = op.hasTrait<trait::FusibleElementwise>();
    if (family) {
      EXPECT_TRUE(fusible || kUnfusedElementwise.count(name))
          << name << " is elementwise but --amp-fuse would not fuse it: give "
          << "it Amp_FusibleElementwise (and a scalar expression in "
          << "lib/Target/Cuda/ElementwiseKernels.cpp), or list it in "
          << "kUnfusedElementwise with the reason";
    }
    if (fusible && !family) {
      EXPECT_TRUE(kFusibleOutsideFamily.count(name))
          << name << " fuses but is not of the elementwise family: list it "
          << "in kFusibleOutsideFamily with the reason it is computed one "
          << "element at a time";
    }
    EXPECT_FALSE(fusible && op.hasTrait<trait::MemoryView>())
        << name << " cannot be both a fused loop and a view of memory";
  }
  // The lists name existing ops in the class they claim.
  auto find = [&](StringRef name) -> std::optional<RegisteredOperationName> {
    return RegisteredOperationName::lookup(name, &ctx);
  };
  for (const std::string &name : kUnfusedElementwise) {
    std::optional<RegisteredOperationName> op = find(name);
    ASSERT_TRUE(op) << name << " is no registered op";
    EXPECT_TRUE(op->hasTrait<trait::ElementwiseFamily>() &&
                !op->hasTrait<trait::FusibleElementwise>())
        << name << " is listed as unfused but is not: remove it";
  }
  for (const std::string &name : kFusibleOutsideFamily) {
    std::optional<RegisteredOperationName> op = find(name);
    ASSERT_TRUE(op) << name << " is no registered op";
    EXPECT_TRUE(op->hasTrait<trait::FusibleElementwise>() &&
                !op->hasTrait<trait::ElementwiseFamily>())
        << name << " is listed as fusing outside the family but is not";
  }
}

// --amp-fuse gives prologues and epilogues by trait: every normalisation
// runs as a row kernel that computes its operands in its loads, and only
// reductions and row kernels compute their operands in their loads.
TEST_F(OpClassesTest, RowAndReductionKernelsFuseByTrait) {
  int rows = 0;
  for (RegisteredOperationName op : ampOps()) {
    SCOPED_TRACE(op.getStringRef().str());
    bool row = op.hasTrait<trait::RowKernel>();
    bool loads = op.hasTrait<trait::OperandsInLoads>();
    rows += row;
    // A decomposed normalisation (batch norm) runs as other ops' kernels.
    if (op.hasTrait<trait::NormalizationFamily>() &&
        !op.hasTrait<trait::Decomposed>()) {
      EXPECT_TRUE(row && loads)
          << "give it Amp_RowKernel and Amp_OperandsInLoads, and a row "
             "kernel in lib/Target/Cuda/RowKernels.cpp";
    }
    if (loads) {
      EXPECT_TRUE(row || op.hasTrait<trait::ReductionFamily>())
          << "only a reduction's or a row kernel's loads compute operands";
    }
  }
  // 4 normalisations, 4 gradients, cross_entropy_grad, norm_stats.
  EXPECT_EQ(rows, 10);
}

TEST_F(OpClassesTest, UpdatesAreHandled) {
  int updates = 0;
  for (RegisteredOperationName op : ampOps()) {
    std::string name = op.getStringRef().str();
    if (!op.hasInterface<OptimizerUpdateOpInterface>())
      continue;
    ++updates;
    SCOPED_TRACE(name);
    EXPECT_TRUE(op.hasTrait<trait::InPlaceUpdate>())
        << "the buffer planner stores an update's results over its state "
           "only for ops with Amp_InPlaceUpdate";
    auto found = kUpdateSteps.find(name);
    ASSERT_NE(found, kUpdateSteps.end())
        << "add a step around it to kUpdateSteps: the test then checks that "
           "the interpreter and the emitter run it";

    std::string diagnostics;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      diagnostics += diag.str() + "\n";
      return success();
    });
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(found->second, &ctx);
    ASSERT_TRUE(module) << diagnostics;
    auto func = *module->getOps<func::FuncOp>().begin();

    // The interface describes the operands consistently.
    OptimizerUpdateOpInterface update;
    func.walk([&](OptimizerUpdateOpInterface u) { update = u; });
    ASSERT_TRUE(update);
    ASSERT_EQ(update->getName().getStringRef(), name);
    Operation *raw = update.getOperation();
    EXPECT_EQ(update.getStateOperands().size(), raw->getNumResults() - 1);
    EXPECT_EQ(update.getParamOperand(), func.getArgument(0));
    EXPECT_EQ(update.getGradOperand().getType(),
              update.getParamOperand().getType());
    for (OpResult result : raw->getResults()) {
      OpOperand &replaced = update.getReplacedOperand(result.getResultNumber());
      EXPECT_EQ(replaced.getOwner(), raw);
      // Each result replaces the argument it is returned in place of.
      EXPECT_EQ(replaced.get(), func.getArgument(result.getResultNumber()));
    }
    if (Value step = update.getStepOperand()) {
      EXPECT_EQ(cast<RankedTensorType>(step.getType()).getRank(), 0);
    }
    EXPECT_FALSE(update.getHyperParameterOperands().empty());
    for (Value hyper : update.getHyperParameterOperands())
      EXPECT_EQ(hyper.getType(),
                RankedTensorType::get({}, Float64Type::get(&ctx)));

    // The interpreter runs it.
    SmallVector<interp::Tensor> args;
    for (BlockArgument arg : func.getArguments())
      args.push_back(interp::Tensor(
          interp::ElementKind::F32,
          cast<RankedTensorType>(arg.getType()).getShape(),
          std::vector<double>(
              cast<RankedTensorType>(arg.getType()).getNumElements(), 0.25)));
    interp::Interpreter interpreter(*module);
    FailureOr<std::vector<interp::Tensor>> results =
        interpreter.run(func, args);
    ASSERT_TRUE(succeeded(results)) << diagnostics;
    EXPECT_EQ(results->size(), raw->getNumResults() + 1);

    // --amp-fuse, --amp-plan-buffers and the emitter compile it.
    PassManager pm(&ctx);
    pm.addNestedPass<func::FuncOp>(createAmpFuse());
    pm.addNestedPass<func::FuncOp>(createAmpPlanBuffers());
    ASSERT_TRUE(succeeded(pm.run(*module))) << diagnostics;
    std::string source;
    llvm::raw_string_ostream os(source);
    ASSERT_TRUE(succeeded(translateToCuda(*module, os, "step", "step")))
        << diagnostics;
    EXPECT_NE(source.find(name), std::string::npos)
        << "the generated source names no kernel of the update";
  }
  EXPECT_GT(updates, 0);
  for (const auto &[name, source] : kUpdateSteps) {
    std::optional<RegisteredOperationName> op =
        RegisteredOperationName::lookup(name, &ctx);
    EXPECT_TRUE(op && op->hasInterface<OptimizerUpdateOpInterface>())
        << name << " in kUpdateSteps is no optimizer update";
  }
}

} // namespace
