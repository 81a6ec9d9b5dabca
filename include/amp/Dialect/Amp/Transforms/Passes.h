//===- Passes.h - amp passes ------------------------------------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_H

#include "amp/Dialect/Amp/Transforms/OptionEnums.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

/// Registers the named pipelines: --amp-train-step and --amp-backend (their
/// options and C++ builders are in Pipelines.h).
void registerAmpPipelines();

/// Writes every amp.grad under `root` (innermost first) as its region's
/// ops followed by their vector-Jacobian products (--amp-expand-grads).
LogicalResult expandGrads(Operation *root);

/// The model functions that `pass` (amp-autodiff, amp-evaluation) derives
/// from: the one named `functionName`, or else every function with a body
/// and an amp.param argument that no pass derived (no amp.gradient_of or
/// amp.evaluation_of). Reports at the module when there is none.
FailureOr<SmallVector<func::FuncOp>>
findModelFunctions(ModuleOp module, StringRef functionName, StringRef pass);

/// The items of a pass's options string ("lr=0.1 momentum=0.9"), split at
/// spaces outside quotes and braces, as the options' parser splits them.
SmallVector<StringRef> splitOptionItems(StringRef text);

/// The key of an options item: what comes before its '='.
StringRef optionKey(StringRef item);

/// The first key of `text` (an options string) that is none of `keys`,
/// with the closest of them where that is within a third of its length:
/// "unknown key 'momentm'; did you mean 'momentum'?". Empty when every key
/// is one of them.
std::string unknownOptionKey(ArrayRef<std::string> keys, StringRef text);

/// The keys of `pass`'s options as it prints them (a list option left
/// empty prints none).
SmallVector<std::string> printedOptionKeys(Pass &pass);

/// A pass whose options string, when MLIR's parser refuses it for a key
/// close to one the pass takes, also names that key (unknownOptionKey).
template <typename Base> struct SuggestingOptions : Base {
  using Base::Base;
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (succeeded(Base::initializeOptions(options, errorHandler)))
      return success();
    // The parser has said why; a key it did not know is named again with
    // the one meant, where one is close (a list option left empty does
    // not print, so an unknown key alone is no proof of a misspelling).
    std::string unknown = unknownOptionKey(printedOptionKeys(*this), options);
    if (unknown.find("did you mean") != std::string::npos)
      (void)errorHandler(this->getArgument() + ": " + unknown);
    return failure();
  }
};

/// Reports a bad pass option. The error is attached to no op: an option is
/// no fault of the IR, and a driver that prints the op of an error
/// (mlir-opt's default) would print the whole module after it.
inline InFlightDiagnostic emitOptionError(MLIRContext *context) {
  return emitError(UnknownLoc::get(context));
}

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
