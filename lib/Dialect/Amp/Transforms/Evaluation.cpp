//===- Evaluation.cpp - --amp-evaluation ----------------------------------===//
//
// The forward-only form of a model function: @<name>_eval, a clone that
// returns the loss and the values the user named, its batch norms in
// evaluation mode, its dropouts removed. The compiled step's `eval` is this
// function after amp-autocast and the backend.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Dialect/Amp/Transforms/VJP.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPEVALUATION
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Adds @<name>_eval next to `func`, returning its loss and `outputs`.
LogicalResult addEvaluation(func::FuncOp func, ArrayRef<std::string> outputs,
                            SymbolTable &symbols) {
  auto loss = func.getNumResults()
                  ? dyn_cast<RankedTensorType>(func.getResultTypes()[0])
                  : RankedTensorType();
  if (!loss || loss.getRank() != 0 || !isa<FloatType>(loss.getElementType()))
    return emitError(func.getLoc())
           << "amp-evaluation: @" << func.getSymName()
           << " must return its loss, a 0-d floating-point "
              "tensor, first";
  std::string name = (func.getSymName() + "_eval").str();
  if (symbols.lookup(name))
    return emitError(func.getLoc())
           << "amp-evaluation: @" << name << " already exists";

  // The named values of the original, found in its clone by position:
  // by the SSA names of its source, else by the module paths of their
  // locations (an imported model's outputs of "fc" or "blocks.0").
  llvm::StringMap<Value> named = getValuesBySourceName(func);
  for (auto &entry : getValuesByModulePath(func))
    named.try_emplace(entry.getKey(), entry.getValue());
  SmallVector<Operation *> originalOps;
  func.walk([&](Operation *op) { originalOps.push_back(op); });
  llvm::StringSet<> seen;
  SmallVector<std::pair<Operation *, unsigned>> wanted; // op, walk position
  for (const std::string &output : outputs) {
    if (output == "loss")
      return emitError(func.getLoc())
             << "amp-evaluation: the loss is always the "
                "first result; 'loss' names no other output";
    if (!seen.insert(output).second)
      return emitError(func.getLoc())
             << "amp-evaluation: output '" << output << "' is named twice";
    auto it = named.find(output);
    if (it == named.end()) {
      SmallVector<StringRef> known;
      for (const auto &entry : named)
        known.push_back(entry.getKey());
      llvm::sort(known);
      InFlightDiagnostic diag = emitError(func.getLoc())
                                << "amp-evaluation: @" << func.getSymName()
                                << " defines no value named '" << output
                                << "' in its source";
      if (known.empty())
        return diag << " (its ops have no source positions or module paths "
                       "to name them by)";
      diag << " (it defines: ";
      llvm::interleaveComma(known, diag);
      return diag << ")";
    }
    Operation *op = it->second.getDefiningOp();
    if (op->getParentOp() != func.getOperation())
      return op->emitError() << "amp-evaluation: output '" << output
                             << "' is inside a region; only values of the "
                                "function's body can be returned";
    wanted.push_back({op, static_cast<unsigned>(llvm::find(originalOps, op) -
                                                originalOps.begin())});
  }

  OpBuilder builder(func);
  builder.setInsertionPointAfter(func);
  auto eval = cast<func::FuncOp>(builder.clone(*func));
  eval.setSymName(name);
  eval->setAttr(AmpDialect::kEvaluationOfAttrName,
                FlatSymbolRefAttr::get(func.getSymNameAttr()));
  // Evaluation mode: batch norm normalises by its running statistics (the
  // buffers the step trained) and updates nothing.
  eval.walk([](BatchNormOp norm) { norm.removeTrainingAttr(); });
  SmallVector<Operation *> clonedOps;
  eval.walk([&](Operation *op) { clonedOps.push_back(op); });
  auto ret = cast<func::ReturnOp>(eval.getBody().front().getTerminator());
  SmallVector<Value> results = {ret.getOperand(0)};
  for (auto [op, position] : wanted)
    results.push_back(clonedOps[position]->getResult(0));
  builder.setInsertionPoint(ret);
  builder.create<func::ReturnOp>(ret.getLoc(), results);
  ret.erase();
  SmallVector<Type> types = llvm::to_vector(
      llvm::map_range(results, [](Value v) { return v.getType(); }));
  eval.setFunctionType(builder.getFunctionType(eval.getArgumentTypes(), types));
  // The runtime reads each output by its name: "loss", then the values'.
  SmallVector<DictionaryAttr> resultAttrs;
  MLIRContext *context = func.getContext();
  for (unsigned k = 0; k < results.size(); ++k) {
    NamedAttrList attrs(k == 0 ? eval.getResultAttrDict(0) : DictionaryAttr());
    attrs.set(AmpDialect::kNameAttrName,
              StringAttr::get(context, k == 0 ? "loss" : outputs[k - 1]));
    resultAttrs.push_back(attrs.getDictionary(context));
  }
  eval.setAllResultAttrs(resultAttrs);
  // Dropout is the identity in evaluation: the evaluation draws no random
  // numbers and takes no generator state.
  eval.walk([](DropoutOp dropout) {
    dropout.replaceAllUsesWith(dropout.getInput());
    dropout.erase();
  });
  // No gradients are taken of it.
  eraseStopGradients(eval);
  for (unsigned i = eval.getNumArguments(); i-- > 0;)
    if (eval.getArgAttr(i, AmpDialect::kRngAttrName) &&
        eval.getArgument(i).use_empty())
      eval.eraseArgument(i);
  return success();
}

struct AmpEvaluationPass
    : amp::SuggestingOptions<amp::impl::AmpEvaluationBase<AmpEvaluationPass>> {
  using SuggestingOptions::SuggestingOptions;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(nameArgumentsFromSource(module)))
      return signalPassFailure();
    SymbolTable symbols(module);
    FailureOr<SmallVector<func::FuncOp>> targets =
        findModelFunctions(module, functionName, "amp-evaluation");
    if (failed(targets))
      return signalPassFailure();
    for (func::FuncOp func : *targets)
      if (failed(addEvaluation(func, outputs, symbols)))
        return signalPassFailure();
  }
};

} // namespace
