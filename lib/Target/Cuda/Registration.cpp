//===- Registration.cpp - --amp-to-cuda in amp-translate ------------------===//

#include "amp/InitAll.h"
#include "amp/Target/Cuda/TranslateToCuda.h"

#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

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

void amp::registerToCudaTranslation() {
  TranslateFromMLIRRegistration registration(
      "amp-to-cuda",
      "a fused, buffer-planned amp step function as one CUDA C++ file",
      [](Operation *op, raw_ostream &os) -> LogicalResult {
        // Errors name the op by location; the whole module is not repeated.
        op->getContext()->printOpOnDiagnostic(false);
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("amp-to-cuda translates a module");
        return amp::translateToCuda(module, os, stepFunction, stepName);
      },
      [](DialectRegistry &registry) { amp::registerAllDialects(registry); });
}
