//===- ModelSummary.cpp - --amp-model-summary -----------------------------===//

#include "amp/Dialect/Amp/Analysis/ModelSummary.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPMODELSUMMARY
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

namespace {
struct AmpModelSummaryPass : impl::AmpModelSummaryBase<AmpModelSummaryPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<FunctionSummary> summary = summarizeFunction(func);
      if (failed(summary))
        return signalPassFailure();
      printFunctionSummary(*summary, llvm::outs());
    }
    llvm::outs().flush();
    markAllAnalysesPreserved();
  }
};
} // namespace
} // namespace mlir::amp
