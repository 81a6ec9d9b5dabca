//===- TranslateToCuda.h - a planned step as CUDA C++ -----------*- C++ -*-===//

#ifndef AMP_TARGET_CUDA_TRANSLATETOCUDA_H
#define AMP_TARGET_CUDA_TRANSLATETOCUDA_H

#include "amp/Target/Cuda/CostReport.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::amp {

/// Prints the step function `functionName` of `module` (default: the one
/// function with a buffer plan) as one CUDA C++ file exporting
/// `<name>_describe()` (name: the function's, unless given). The function
/// must have been through --amp-fuse and --amp-plan-buffers. A planned
/// function marked amp.evaluation_of (amp-evaluation) is the step's
/// evaluation, in the same file, with `<name>_eval` as its table; a module
/// holds at most one.
/// With `cost`, also fills in the step's cost report (CostReport.h).
LogicalResult translateToCuda(ModuleOp module, llvm::raw_ostream &os,
                              llvm::StringRef functionName = "",
                              llvm::StringRef name = "",
                              StepCost *cost = nullptr);

/// The amp ops the CUDA target has no kernel for: a fusible elementwise op
/// without a scalar expression, or another op (not a view, not the matmul
/// of a GEMM kernel) without a kernel model. Empty when every op of the
/// dialect joins the backend; a test keeps it so.
SmallVector<StringRef> getOpsWithoutKernel(MLIRContext &context);

/// Registers --amp-to-cuda and --amp-cost-report (the cost report as
/// JSON) with mlir-translate's registry.
void registerToCudaTranslation();

} // namespace mlir::amp

#endif // AMP_TARGET_CUDA_TRANSLATETOCUDA_H
