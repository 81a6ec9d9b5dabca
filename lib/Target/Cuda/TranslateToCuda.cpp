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

#include "amp/Dialect/Amp/Transforms/Backend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <cctype>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::backend;

LogicalResult mlir::amp::translateToCuda(ModuleOp module, raw_ostream &os,
                                         StringRef functionName, StringRef name,
                                         StepCost *cost) {
  func::FuncOp func;
  if (!functionName.empty()) {
    func = module.lookupSymbol<func::FuncOp>(functionName);
    if (!func)
      return module.emitError() << "amp-to-cuda: no function @" << functionName;
  } else {
    SmallVector<func::FuncOp> planned;
    for (auto candidate : module.getOps<func::FuncOp>())
      if (!candidate.isExternal() && candidate->getAttr(kArenaSizeAttr))
        planned.push_back(candidate);
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
  std::string stepName = name.empty() ? func.getSymName().str() : name.str();
  for (char &c : stepName)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  if (stepName.empty() || std::isdigit(static_cast<unsigned char>(stepName[0])))
    stepName = "step_" + stepName; // a C identifier
  cuda::attachKernelModels(*module.getContext());
  // The file is printed whole, then laid out by libFormat: the emitter
  // decides what to print, not where lines break.
  std::string code;
  llvm::raw_string_ostream buffer(code);
  cuda::StepEmitter emitter(func, stepName, buffer);
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
