//===- Registration.cpp - --amp-to-cuda in amp-translate ------------------===//

#include "amp/Target/Cuda/TranslateToCuda.h"

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
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
      // A planned step holds amp ops in a func.func; arith and math ops
      // parse, so that the translation can refuse them by name.
      [](DialectRegistry &registry) {
        registry.insert<amp::AmpDialect, arith::ArithDialect, func::FuncDialect,
                        math::MathDialect>();
      });
}
