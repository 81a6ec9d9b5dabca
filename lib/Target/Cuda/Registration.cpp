//===- Registration.cpp - --amp-to-cuda in amp-translate ------------------===//

#include "amp/Target/Cuda/TranslateToCuda.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

static llvm::cl::opt<std::string>
    stepFunction("amp-function",
                 llvm::cl::desc("--amp-to-cuda: the step function (default: "
                                "the one with a buffer plan)"),
                 llvm::cl::init(""));
static llvm::cl::opt<std::string>
    stepName("amp-name",
             llvm::cl::desc("--amp-to-cuda: the name of the step's C API "
                            "(default: the function's)"),
             llvm::cl::init(""));

/// Translates the module's step into CUDA C++, printed to `code`, and its
/// cost report into `cost`.
static LogicalResult translate(Operation *op, raw_ostream &code,
                               amp::StepCost *cost, StringRef translation) {
  // Errors name the op by location; the whole module is not repeated.
  op->getContext()->printOpOnDiagnostic(false);
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    return op->emitError() << translation << " translates a module";
  return amp::translateToCuda(module, code, stepFunction, stepName, cost);
}

/// A planned step holds amp ops in a func.func; arith and math ops parse,
/// so that the translation can refuse them by name.
static void registerDialects(DialectRegistry &registry) {
  registry.insert<amp::AmpDialect, arith::ArithDialect, func::FuncDialect,
                  math::MathDialect>();
}

void amp::registerToCudaTranslation() {
  TranslateFromMLIRRegistration toCuda(
      "amp-to-cuda",
      "a fused, buffer-planned amp step function as one CUDA C++ file",
      [](Operation *op, raw_ostream &os) {
        return translate(op, os, nullptr, "amp-to-cuda");
      },
      registerDialects);
  TranslateFromMLIRRegistration costReport(
      "amp-cost-report",
      "the cost report of a fused, buffer-planned amp step function (JSON)",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        StepCost cost;
        if (failed(translate(op, llvm::nulls(), &cost, "amp-cost-report")))
          return failure();
        os << llvm::formatv("{0:2}", costReportToJson(cost)) << "\n";
        return success();
      },
      registerDialects);
}
