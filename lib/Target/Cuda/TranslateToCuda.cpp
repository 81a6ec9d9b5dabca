//===- TranslateToCuda.cpp - amp-translate --amp-to-cuda ------------------===//
//
// Prints a fused, planned step function as one CUDA C++ translation unit
// (StepEmitter.h describes its parts and where each op's kernel is
// printed). The file builds with nvcc for the cuda target and with a host
// C++ compiler for the host target.
//
//===----------------------------------------------------------------------===//

#include "amp/Target/Cuda/TranslateToCuda.h"

#include "CSource.h"
#include "StepEmitter.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Target/Cuda/StepPackage.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;

LogicalResult mlir::amp::translateToCuda(ModuleOp module, raw_ostream &os,
                                         StringRef functionName, StringRef name,
                                         StepCost *cost) {
  // The step, and the evaluations of its model if the module has them:
  // the first the step's `eval`, the others at other batch sizes
  // (amp-compile --eval-batch=N,M).
  func::FuncOp func;
  SmallVector<func::FuncOp> planned, evaluations;
  for (auto candidate : module.getOps<func::FuncOp>()) {
    if (candidate.isExternal() || !candidate->getAttr(kArenaSizeAttr))
      continue;
    if (candidate->hasAttr(AmpDialect::kEvaluationOfAttrName))
      evaluations.push_back(candidate);
    else
      planned.push_back(candidate);
  }
  if (!functionName.empty()) {
    func = module.lookupSymbol<func::FuncOp>(functionName);
    if (!func)
      return module.emitError() << "amp-to-cuda: no function @" << functionName;
    if (llvm::is_contained(evaluations, func))
      return func.emitError() << "amp-to-cuda: @" << functionName
                              << " is an evaluation; name its step";
  } else {
    if (planned.size() > 1) {
      InFlightDiagnostic diag = module.emitError()
                                << "amp-to-cuda: several planned functions (";
      llvm::interleaveComma(planned, diag, [&](func::FuncOp f) {
        diag << "@" << f.getSymName();
      });
      return diag << "); name one with --amp-function";
    }
    if (!planned.empty())
      func = planned.front();
    if (!func)
      return module.emitError()
             << "amp-to-cuda: no function with a buffer plan; run "
                "--amp-fuse and --amp-plan-buffers first";
  }
  std::string stepName =
      toStepName(name.empty() ? func.getSymName() : StringRef(name));
  cuda::attachKernelModels(*module.getContext());
  // The file is printed whole, then laid out by libFormat: the emitter
  // decides what to print, not where lines break.
  std::string code;
  llvm::raw_string_ostream buffer(code);
  cuda::StepEmitter emitter(func, stepName, buffer);
  std::string evaluationCode;
  SmallVector<std::string> descriptions;
  for (auto [k, evaluation] : llvm::enumerate(evaluations)) {
    // <step>_eval in namespace evaluation, then <step>_eval1 in
    // evaluation1, ...
    std::string suffix = k ? std::to_string(k) : "";
    std::string evaluationName = stepName + "_eval" + suffix;
    std::string space = (cuda::kEvaluationNamespace + suffix).str();
    llvm::raw_string_ostream evaluationBuffer(evaluationCode);
    cuda::StepEmitter evaluationEmitter(evaluation, evaluationName,
                                        evaluationBuffer);
    evaluationEmitter.setNamespace(space);
    if (failed(evaluationEmitter.emit()))
      return failure();
    descriptions.push_back(space + "::" + evaluationName + "_description");
  }
  if (!evaluations.empty())
    emitter.setEvaluations(std::move(evaluationCode), std::move(descriptions));
  if (failed(emitter.emit()))
    return failure();
  if (cost)
    *cost = emitter.getCost();
  FailureOr<std::string> formatted = cuda::formatSource(code, stepName + ".cu");
  if (failed(formatted))
    return func.emitError("amp-to-cuda: clang's libFormat could not lay out "
                          "the generated code");
  os << *formatted;
  return success();
}
