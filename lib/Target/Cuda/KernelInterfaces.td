//===- KernelInterfaces.td - how the target emits ops -*- tablegen -*-===//
//
// The CUDA target's emitter knows no op: each op says how it is computed
// through one of these interfaces, attached as external models by the
// file of its family (ElementwiseKernels.cpp, ReductionKernels.cpp, ...).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_CUDA_KERNELINTERFACES
#define AMP_TARGET_CUDA_KERNELINTERFACES

include "mlir/IR/OpBase.td"

def ScalarKernelOpInterface : OpInterface<"ScalarKernelOpInterface"> {
  let description = [{
    An op a fused elementwise kernel computes per element: its value at the
    kernel's index `i` as a C++ expression of its operands' registers, in
    the register type of its result and rounded to its result type. Its
    work per element is the dialect's (FlopCountOpInterface's
    getElementCost), the one count the model summary reads too.
  }];
  let cppNamespace = "::mlir::amp::cuda";
  let methods = [
    InterfaceMethod<
      "The value of the op's result at index `i` of `kernel`.",
      "::mlir::FailureOr<std::string>", "getScalarExpr",
      (ins "::mlir::amp::cuda::ElementwiseKernel &":$kernel)>,
  ];
}

def KernelOpInterface : OpInterface<"KernelOpInterface"> {
  let description = [{
    An op that is a kernel of its own: a generated functor launched over
    its outputs, rows or lines, or a call of the runtime (or both: the
    functor on the host, the runtime's kernel on the GPU).
  }];
  let cppNamespace = "::mlir::amp::cuda";
  let methods = [
    InterfaceMethod<
      "Prints the op's kernel and its launch through `kernel`, with the "
      "other ops of its amp.fusion (OpKernel::getFused), which the "
      "fusion's kind says how it computes (KernelAnalysis.h).",
      "::llvm::LogicalResult", "emitKernel",
      (ins "::mlir::amp::cuda::OpKernel &":$kernel)>,
  ];
}

#endif // AMP_TARGET_CUDA_KERNELINTERFACES
