//===- ModelSummary.cpp - --amp-model-summary -----------------------------===//

#include "amp/Dialect/Amp/Analysis/ModelSummary.h"
#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPMODELSUMMARY
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

namespace {
/// Warns about each parameter of `func` that what it returns does not
/// depend on: it gets no gradient, and the optimizer leaves it as it is.
void warnAboutUnreadParameters(func::FuncOp func) {
  llvm::SmallPtrSet<Value, 32> reached;
  SmallVector<Value> worklist(
      func.getBody().front().getTerminator()->getOperands());
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!reached.insert(value).second)
      continue;
    if (Operation *def = value.getDefiningOp()) {
      worklist.append(def->operand_begin(), def->operand_end());
      // What a region reads from outside it (a fused kernel's body reads
      // its own arguments only; other regions may read the function's).
      def->walk([&](Operation *inner) {
        worklist.append(inner->operand_begin(), inner->operand_end());
      });
    }
  }
  for (BlockArgument arg : func.getArguments()) {
    if (!func.getArgAttr(arg.getArgNumber(), AmpDialect::kParamAttrName) ||
        reached.contains(arg))
      continue;
    emitWarning(arg.getLoc())
        << "@" << func.getSymName() << ": "
        << describeArgument(func, arg.getArgNumber())
        << " is a parameter that does not reach what the function returns: "
           "it gets no gradient, and the optimizer leaves it as it is (as "
           "torch.optim leaves a parameter whose .grad is None)";
  }
}

struct AmpModelSummaryPass : impl::AmpModelSummaryBase<AmpModelSummaryPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<FunctionSummary> summary = summarizeFunction(func);
      if (failed(summary))
        return signalPassFailure();
      printFunctionSummary(*summary, llvm::outs());
      warnAboutUnreadParameters(func);
    }
    llvm::outs().flush();
    markAllAnalysesPreserved();
  }
};
} // namespace
} // namespace mlir::amp
