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
    forward: the one count behind the model summary and the CUDA target's
    cost report. An elementwise op's is its work per element
    (`getElementCost`) times its result's elements: one FLOP by default,
    its formula's count where it does more (sigmoid's three operations and
    an exp), a transcendental function counted as one FLOP in the total.
    Contractions, reductions, normalisations and losses override the total,
    and data movement (shape ops, casts, constants, gathers) counts zero.
    docs/architecture.md tabulates the conventions. A count that does not
    fit in int64 (a GEMM of 2^21 on every side) is std::nullopt: the
    tensors of a verified op fit, their products may not.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"The work per element of the first result, for an op a "
               "fused elementwise kernel computes: FLOPs and transcendental "
               "functions, counted in its formula as XLA's cost analysis "
               "counts them (a cast or a broadcast does none).",
      /*retTy=*/"::mlir::amp::ElementCost",
      /*methodName=*/"getElementCost",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        namespace family = ::mlir::OpTrait::amp;
        if (ConcreteOp::template hasTrait<family::ShapeFamily>() ||
            ConcreteOp::template hasTrait<family::DataFamily>() ||
            $_op->getNumResults() == 0)
          return {};
        return {/*flops=*/1, /*transcendentals=*/0};
      }]>,
    InterfaceMethod<
      /*desc=*/"Floating-point operations of one forward evaluation, or "
               "std::nullopt when they do not fit in int64.",
      /*retTy=*/"std::optional<int64_t>",
      /*methodName=*/"getForwardFlops",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        if ($_op->getNumResults() == 0)
          return 0;
        auto type = ::llvm::dyn_cast<::mlir::ShapedType>(
            $_op->getResult(0).getType());
        if (!type || !type.hasStaticShape())
          return 0;
        return ::mlir::amp::countWork($_op.getElementCost(),
                                      type.getNumElements());
      }]>
  ];
}

def Amp_PrecisionOpInterface : OpInterface<"PrecisionOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    How amp-autocast treats an op: its default precision category
    (lower-precision, keep-fp32, promote or follow) and which operands carry
    the values whose precision follows the op's. The default implementation
    reads the op's category trait (`Amp_LowerPrecision`, ...); upstream ops
    get the interface through external models. A policy file, pass options
    or a per-op attribute override the default.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"The category the op has when nothing overrides it.",
      /*retTy=*/"::mlir::amp::PrecisionCategory",
      /*methodName=*/"getDefaultPrecisionCategory",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        namespace category = ::mlir::OpTrait::amp;
        if (ConcreteOp::template hasTrait<category::LowerPrecisionCategory>())
          return ::mlir::amp::PrecisionCategory::LowerPrecision;
        if (ConcreteOp::template hasTrait<category::KeepFp32Category>())
          return ::mlir::amp::PrecisionCategory::KeepFp32;
        if (ConcreteOp::template hasTrait<category::PromoteCategory>())
          return ::mlir::amp::PrecisionCategory::Promote;
        return ::mlir::amp::PrecisionCategory::Follow;
      }]>,
    InterfaceMethod<
      /*desc=*/[{Whether operand `index` holds a value whose precision is the
        op's: every floating-point tensor operand by default (indices and
        masks are not).}],
      /*retTy=*/"bool",
      /*methodName=*/"isPrecisionOperand",
      /*args=*/(ins "unsigned":$index),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        auto type = ::llvm::dyn_cast<::mlir::RankedTensorType>(
            $_op->getOperand(index).getType());
        return type && ::llvm::isa<::mlir::FloatType>(type.getElementType());
      }]>,
    InterfaceMethod<
      /*desc=*/[{Whether a keep-fp32 op fed in lower precision computes in
        f32 with lower-precision input and output by default, as if
        amp-autocast's keep-fp32-low-io were set for it alone (batch norm,
        as cuDNN runs it).}],
      /*retTy=*/"bool",
      /*methodName=*/"keepsLowPrecisionIO",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return false;">,
    InterfaceMethod<
      /*desc=*/[{Whether result `index` takes the precision amp-autocast
        chooses for the op: every result by default. A result whose type
        the op fixes (attention's f32 log-sum-exp) keeps its type.}],
      /*retTy=*/"bool",
      /*methodName=*/"isPrecisionResult",
      /*args=*/(ins "unsigned":$index),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return true;">
  ];
}

def Amp_IndexReaderOpInterface : OpInterface<"IndexReaderOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    An op that reads an integer tensor as positions into a dimension of
    another (embedding ids into a table's rows, labels into the classes of
    logits). A value outside `[0, getIndexBound())` is an error, unless it
    equals `getIgnoredIndex()`. The interpreter reports such a value at the
    op; the backend traces the indices to the batch inputs they come from,
    and the runtime checks those before a compiled step runs.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"The integer tensor read as positions.",
      /*retTy=*/"::mlir::Value",
      /*methodName=*/"getIndexOperand",
      /*args=*/(ins)>,
    InterfaceMethod<
      /*desc=*/"The size of the dimension the positions index.",
      /*retTy=*/"int64_t",
      /*methodName=*/"getIndexBound",
      /*args=*/(ins)>,
    InterfaceMethod<
      /*desc=*/[{A value that is not a position but marks an element to
        skip (cross-entropy's `ignore_index`); none by default.}],
      /*retTy=*/"::std::optional<int64_t>",
      /*methodName=*/"getIgnoredIndex",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return ::std::nullopt;">
  ];
}

def Amp_TiedOperandOpInterface : OpInterface<"TiedOperandOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    An op whose kernel may write a result over the memory of one of its
    operands, element for element (the runtime's amp_unscale and
    amp_replica_all_reduce work in place): --amp-plan-buffers gives such a
    result the operand's slot when nothing else reads the operand.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/[{The operand result `result` may be written over, or null
        when it has none (amp.unscale's found_inf).}],
      /*retTy=*/"::mlir::Value",
      /*methodName=*/"getTiedOperand",
      /*args=*/(ins "unsigned":$result)>
  ];
}

def Amp_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    Reverse-mode differentiation: an op builds the vector-Jacobian product
    of its results' gradients. amp ops get it from external models
    (lib/Dialect/Amp/Transforms/VJP.cpp, attached by
    `registerDifferentiableExternalModels` of Transforms/VJP.h), which emit
    amp ops in the precision of the forward op; amp-autodiff asks only this
    interface.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/[{Builds, at the builder's insertion point, the gradient of
        every operand given `resultGrads` (one per result, null where a
        result has no gradient). Fills `operandGrads` with one value per
        operand, each of the operand's type, or null for operands without a
        gradient (integers, masks). Fails with a diagnostic otherwise.}],
      /*retTy=*/"::llvm::LogicalResult",
      /*methodName=*/"buildVJP",
      /*args=*/(ins "::mlir::OpBuilder &":$builder,
                    "::mlir::ArrayRef<::mlir::Value>":$resultGrads,
                    "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>
  ];
}

def Amp_OptimizerUpdateOpInterface
    : OpInterface<"OptimizerUpdateOpInterface"> {
  let cppNamespace = "::mlir::amp";
  let description = [{
    An optimizer step on one parameter: it reads the parameter, its
    gradient, the optimizer state kept for it (a momentum buffer, moments)
    and, where the optimizer counts steps, the step count, then its
    hyperparameters, and returns the
    new parameter followed by the new state, one result per state tensor in
    the order of `getStateOperands()`. Each result replaces an operand
    (`getReplacedOperand`): the backend stores it over that operand's memory
    (--amp-plan-buffers), fuses the selects that keep the old value on a
    skipped step into the update (--amp-fuse), merges like updates that share
    a step count and hyperparameters into one multi-tensor kernel, and hands
    the runtime the parameter, gradient and state lists and the
    hyperparameters' addresses (the emitter). The backend asks only
    this interface which ops are updates and which operand is which.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/"The parameter the update reads (the first result replaces it).",
      /*retTy=*/"::mlir::Value",
      /*methodName=*/"getParamOperand",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return $_op.getParam();">,
    InterfaceMethod<
      /*desc=*/"The gradient of the parameter.",
      /*retTy=*/"::mlir::Value",
      /*methodName=*/"getGradOperand",
      /*args=*/(ins),
      /*methodBody=*/"",
      /*defaultImplementation=*/"return $_op.getGrad();">,
    InterfaceMethod<
      /*desc=*/[{The optimizer state of the parameter, in the order of the
        results that replace it (result i + 1 replaces state operand i);
        empty for an optimizer without state.}],
      /*retTy=*/"::mlir::OperandRange",
      /*methodName=*/"getStateOperands",
      /*args=*/(ins)>,
    InterfaceMethod<
      /*desc=*/[{The number of updates done before this one (a 0-d tensor),
        or null for an optimizer that does not count steps.}],
      /*retTy=*/"::mlir::Value",
      /*methodName=*/"getStepOperand",
      /*args=*/(ins)>,
    InterfaceMethod<
      /*desc=*/[{The hyperparameters the update reads when it runs (0-d f64
        tensors: the learning rate, the weight decay, ...), in operand
        order. Updates merged into one kernel read the same ones.}],
      /*retTy=*/"::mlir::OperandRange",
      /*methodName=*/"getHyperParameterOperands",
      /*args=*/(ins)>,
    InterfaceMethod<
      /*desc=*/[{The operand whose value result `result` replaces: the
        parameter for result 0, state operand `result - 1` after it.}],
      /*retTy=*/"::mlir::OpOperand &",
      /*methodName=*/"getReplacedOperand",
      /*args=*/(ins "unsigned":$result),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        assert(result < $_op->getNumResults() && "no such result");
        if (result == 0)
          return $_op.getParamMutable();
        ::mlir::OperandRange state = $_op.getStateOperands();
        return $_op->getOpOperand(state.getBeginOperandIndex() + result - 1);
      }]>
  ];
}

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_TD
