//===- AmpInterfaces.td - amp op interfaces ----------------*- tablegen -*-===//
//
// Interfaces that passes query instead of switching on op names. The
// precision-category, VJP and kernel-mapping interfaces of the later passes
// belong here too.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_TD
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_TD

include "mlir/IR/OpBase.td"

def Amp_FlopCountOpInterface : OpInterface<"FlopCountOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    The number of floating-point operations an op performs when it runs
    forward. The default counts one per element of the first result, the
    right figure for elementwise ops; contractions, reductions, normalisations
    and losses override it, and data movement (shape ops, casts, constants,
    gathers) counts zero. docs/architecture.md tabulates the conventions.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"Floating-point operations of one forward evaluation.",
      /*retTy=*/"int64_t",
      /*methodName=*/"getForwardFlops",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        namespace family = ::mlir::OpTrait::amp;
        if (ConcreteOp::template hasTrait<family::ShapeFamily>() ||
            ConcreteOp::template hasTrait<family::DataFamily>() ||
            $_op->getNumResults() == 0)
          return 0;
        auto type = ::llvm::dyn_cast<::mlir::ShapedType>(
            $_op->getResult(0).getType());
        return type && type.hasStaticShape() ? type.getNumElements() : 0;
      }]>
  ];
}

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_TD
