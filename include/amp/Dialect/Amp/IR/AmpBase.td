//===- AmpBase.td - amp dialect, types and enums -----------*- tablegen -*-===//
//
// The dialect definition, the tensor type constraints every op uses, the
// enums its attributes hold and the op-family traits.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPBASE_TD
#define AMP_DIALECT_AMP_IR_AMPBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Amp_Dialect : Dialect {
  let name = "amp";
  let cppNamespace = "::mlir::amp";
  let summary = "Training graphs for mixed-precision compilation";
  let description = [{
    The `amp` dialect describes training graphs (a forward pass and its loss,
    later their backward pass, optimizer and loss scaling) on builtin ranked
    tensors with static shapes. Floating-point tensors hold `f16`, `bf16`,
    `f32` or `f64`; index tensors hold `i32` or `i64`; masks hold `i1`.

    Ops have value semantics. Binary elementwise ops broadcast like numpy but
    never mix element types: precision changes are explicit `amp.cast` ops, so
    every conversion the mixed-precision passes make is visible in the IR.

    A function argument carrying the unit attribute `amp.param` is a trainable
    parameter. A function argument's `amp.name` (a non-empty string, unique
    among the function's arguments) is the model's name for it: its SSA name
    in the source, or the name a pass gave the argument it added
    (`w1.exp_avg`, `loss_scale`). Compiled steps name their tensors by it.
  }];
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the attributes of AmpAttrs.td.
    void registerAttributes();

    /// Name of the function-argument attribute that marks a parameter.
    static constexpr ::llvm::StringLiteral kParamAttrName = "amp.param";
    /// Name of the function-argument attribute that holds the model's name
    /// of the argument (a non-empty string, unique among the function's
    /// arguments).
    static constexpr ::llvm::StringLiteral kNameAttrName = "amp.name";
    /// Name of the function-argument attribute that marks optimizer (and
    /// later scaler) state threaded through a training step.
    static constexpr ::llvm::StringLiteral kStateAttrName = "amp.state";
    /// Attribute of a gradient function naming the function it derives
    /// from (set by amp-autodiff, read by amp-optimizer).
    static constexpr ::llvm::StringLiteral kGradientOfAttrName =
        "amp.gradient_of";
    /// Attribute of an evaluation function naming the model function it
    /// evaluates (set by amp-evaluation, read by the CUDA target).
    static constexpr ::llvm::StringLiteral kEvaluationOfAttrName =
        "amp.evaluation_of";
    /// Marks the constant amp-autodiff seeds the backward pass with (the
    /// gradient of the loss), which amp-loss-scaling replaces.
    static constexpr ::llvm::StringLiteral kSeedAttrName = "amp.seed";
    /// Marks the 0-d f32 constant amp-expand-grads seeds a gradient taken
    /// inside a model with, and divides that gradient by (1 until
    /// amp-loss-scaling replaces it by the loss scale, as PyTorch's
    /// gradient-penalty recipe scales the inner gradient's loss).
    static constexpr ::llvm::StringLiteral kInnerSeedAttrName =
        "amp.inner_seed";
    /// Marks the amp.mul that unscales an inner gradient (by the inverse
    /// of its amp.inner_seed): amp-loss-scaling checks its result for
    /// inf and NaN with the parameters' gradients.
    static constexpr ::llvm::StringLiteral kInnerGradAttrName =
        "amp.inner_grad";
    /// On a function: the function that computes its vector-Jacobian
    /// product (PyTorch's autograd.Function backward), which amp-autodiff
    /// calls for a call of it instead of differentiating its body. The
    /// backward takes the function's arguments, its results and their
    /// gradients, and returns one gradient per argument, of its type.
    static constexpr ::llvm::StringLiteral kCustomVJPAttrName =
        "amp.custom_vjp";
    /// On a function with amp.custom_vjp: f32 (custom_fwd's
    /// cast_inputs=torch.float32): the function and its backward run in
    /// f32 whatever the step's compute type, their inputs cast up.
    static constexpr ::llvm::StringLiteral kCastInputsAttrName =
        "amp.cast_inputs";
    /// Marks the loss-scale argument of a gradient or step function.
    static constexpr ::llvm::StringLiteral kLossScaleAttrName =
        "amp.loss_scale";
    /// Marks a step argument as a hyperparameter (a 0-d f64 state read by
    /// the optimizer, set between steps by name).
    static constexpr ::llvm::StringLiteral kHyperParameterAttrName =
        "amp.hparam";
    /// Marks a model argument as a buffer: persistent state the model
    /// updates itself, not by gradients (batch norm's running statistics).
    /// A unit attribute starts it at zero, a float at that value. In a
    /// step, a buffer is also amp.state, carrying its starting value there.
    static constexpr ::llvm::StringLiteral kBufferAttrName = "amp.buffer";
    /// Marks a model argument as the state of the random generator its
    /// dropouts draw from (a tensor<2xi64>: seed, forward pass). In a step
    /// it is also amp.state: amp_step_init seeds it and each forward pass
    /// advances it.
    static constexpr ::llvm::StringLiteral kRngAttrName = "amp.rng";
    /// How amp_step_init starts a parameter whose layer amp-decompose
    /// rewrote (a convolution's weight and bias, a batch norm's scale and
    /// bias): `array<f64: fan_in, initial>`, as backend::ParamInit.
    static constexpr ::llvm::StringLiteral kParamInitAttrName =
        "amp.param_init";
    /// Marks a step argument as a part of the loss that the step reports
    /// (a 0-d f32 state each step overwrites and none reads).
    static constexpr ::llvm::StringLiteral kLossPartAttrName =
        "amp.loss_part";
    /// Marks a state argument of a step whose optimizer state is sharded
    /// (amp-optimizer{zero-stage=1}) as this replica's part of a parameter:
    /// `array<i64: parameter, replicas, master>`, the parameter's argument
    /// index, the number of replicas, and 1 where the part is the
    /// parameter's f32 master weights (which start at the parameter's
    /// values), 0 where it is a moment (which starts as its `amp.state`).
    static constexpr ::llvm::StringLiteral kShardOfAttrName = "amp.shard_of";
    /// Marks the state argument of a step that counts the micro-batches of
    /// gradient accumulation (a 0-d f32): an i64, the micro-batches per
    /// update (2 or more). The runtime keeps the count too, so that a
    /// replica knows without reading the device which run updates.
    static constexpr ::llvm::StringLiteral kMicroBatchAttrName =
        "amp.micro_batch";
    /// The loss-scaling configuration (an #amp.loss_scaling) on a gradient
    /// function.
    static constexpr ::llvm::StringLiteral kLossScalingAttrName =
        "amp.loss_scaling";
  }];
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Amp_FloatElement : AnyTypeOf<[F16, BF16, F32, F64]>;

def Amp_FloatTensor : StaticShapeTensorOf<[F16, BF16, F32, F64]>;
// FP8 values (amp.fp8_cast's results, an FP8 GEMM's operands).
def Amp_Fp8Tensor : StaticShapeTensorOf<[F8E4M3FN, F8E5M2]>;
// A matmul operand: a float, or FP8 values cast before it.
def Amp_MatmulOperand : StaticShapeTensorOf<[F16, BF16, F32, F64, F8E4M3FN,
                                             F8E5M2]>;
def Amp_IndexTensor : StaticShapeTensorOf<[I32, I64]>;
def Amp_MaskTensor : StaticShapeTensorOf<[I1]>;
// A 0-d f32 tensor: an amax.
def Amp_F32Scalar : 0DTensorOf<[F32]> {
  let builderCall =
      "::mlir::RankedTensorType::get({}, $_builder.getF32Type())";
}
// A 0-d i1 tensor: a condition the step computes (amp.all_reduce's `when`).
def Amp_Condition : 0DTensorOf<[I1]> {
  let builderCall =
      "::mlir::RankedTensorType::get({}, $_builder.getI1Type())";
}
def Amp_NumericTensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I32, I64]>;
def Amp_AnyTensor : StaticShapeTensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;

// A random generator's state: [seed, pass], the key and the number of the
// forward pass of amp.dropout's masks (amp_runtime/random.h).
def Amp_RngState : Type<
    CPred<"::mlir::amp::isRngStateType($_self)">,
    "a generator state tensor<2xi64> [seed, pass]", "::mlir::TensorType">,
    BuildableType<"::mlir::RankedTensorType::get({2}, "
                  "$_builder.getIntegerType(64))">;

// A hyperparameter that an op reads when it runs (a learning rate, a
// weight decay): a 0-d f64 tensor, as Python keeps torch.optim's settings,
// so that it can change between steps without recompiling.
def Amp_HyperParameter : 0DTensorOf<[F64]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getF64Type())">;

def Amp_FloatTypeAttr : TypeAttrBase<"::mlir::FloatType",
    "f16, bf16, f32 or f64 type attribute", Amp_FloatElement.predicate>;

// The FP8 format a scaled GEMM operand is cast to (amp.matmul's `lhs_fp8`).
def Amp_Fp8TypeAttr : TypeAttrBase<"::mlir::FloatType",
    "f8E4M3FN or f8E5M2 type attribute",
    AnyTypeOf<[F8E4M3FN, F8E5M2]>.predicate>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Amp_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how amp.gelu evaluates the Gaussian CDF", [
      I32EnumAttrCase<"erf", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let cppNamespace = "::mlir::amp";
}

def Amp_LossReduction : I32EnumAttr<"LossReduction",
    "how a loss combines its per-sample terms", [
      I32EnumAttrCase<"mean", 0>,
      I32EnumAttrCase<"sum", 1>
    ]> {
  let cppNamespace = "::mlir::amp";
}

def Amp_AllReduceKind : I32EnumAttr<"AllReduceKind",
    "how amp.all_reduce combines the replicas' values", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"max", 1>
    ]> {
  let cppNamespace = "::mlir::amp";
}

def Amp_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "comparison of amp.compare", [
      I32EnumAttrCase<"eq", 0>,
      I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>,
      I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>,
      I32EnumAttrCase<"ge", 5>
    ]> {
  let cppNamespace = "::mlir::amp";
}

def Amp_LrScheduleKind : I32EnumAttr<"LrScheduleKind",
    "learning-rate schedule of amp.lr_schedule", [
      I32EnumAttrCase<"linear_warmup", 0>,
      I32EnumAttrCase<"cosine", 1>,
      I32EnumAttrCase<"step", 2>,
      I32EnumAttrCase<"warmup_cosine", 3>
    ]> {
  let cppNamespace = "::mlir::amp";
}

def Amp_PrecisionCategory : I32EnumAttr<"PrecisionCategory",
    "how amp-autocast treats an op", [
      I32EnumAttrCase<"LowerPrecision", 0, "lower-precision">,
      I32EnumAttrCase<"KeepFp32", 1, "keep-fp32">,
      I32EnumAttrCase<"Promote", 2, "promote">,
      I32EnumAttrCase<"Follow", 3, "follow">
    ]> {
  let cppNamespace = "::mlir::amp";
}

//===----------------------------------------------------------------------===//
// Op families
//===----------------------------------------------------------------------===//

// Marker traits: which family an op belongs to, one per op. The family is
// the category the model summary and the reports group ops by; it says what
// an op is, not how the backend runs it (Amp_FusibleElementwise below says
// that). Analyses group ops by family through these, never by name.
class Amp_FamilyTrait<string name> : NativeOpTrait<name # "Family"> {
  let cppNamespace = "::mlir::OpTrait::amp";
}
def Amp_ElementwiseFamily : Amp_FamilyTrait<"Elementwise">;
def Amp_ShapeFamily : Amp_FamilyTrait<"Shape">;
def Amp_ContractionFamily : Amp_FamilyTrait<"Contraction">;
def Amp_ReductionFamily : Amp_FamilyTrait<"Reduction">;
def Amp_NormalizationFamily : Amp_FamilyTrait<"Normalization">;
def Amp_LossFamily : Amp_FamilyTrait<"Loss">;
def Amp_DataFamily : Amp_FamilyTrait<"Data">;
def Amp_GradientFamily : Amp_FamilyTrait<"Gradient">;
def Amp_OptimizerFamily : Amp_FamilyTrait<"Optimizer">;

//===----------------------------------------------------------------------===//
// Backend traits
//===----------------------------------------------------------------------===//

// What the backend (--amp-fuse, --amp-plan-buffers and the emitter) asks of
// an op besides its family. They cut across families: amp.cast (data),
// amp.broadcast_to (shape) and amp.relu_grad (gradient) fuse like amp.add.
class Amp_BackendTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::OpTrait::amp";
}
// The backend computes each element of the op's one result from the same
// (broadcast) element of its operands, or from the element's coordinates
// alone, so --amp-fuse chains it with its neighbours into one loop over
// their common shape. Every op of the elementwise family has it; so do the
// data and gradient ops that compute that way (constant, cast, iota,
// relu_grad, gelu_grad) and broadcast_to. An elementwise-family op without
// it would be a kernel of its own (unittests/OpClassesTest.cpp refuses one).
def Amp_FusibleElementwise : Amp_BackendTrait<"FusibleElementwise">;
// The result is the operand's memory read another way (same elements in the
// same order): the buffer planner gives it no memory of its own and kernels
// read the operand's.
def Amp_MemoryView : Amp_BackendTrait<"MemoryView">;
// The op's kernel reads element i of the tensors its results replace only
// to compute element i of those results (scalars aside), so a result may be
// stored over the state it replaces while the kernel runs: the optimizer
// updates and amp.scaler_update.
def Amp_InPlaceUpdate : Amp_BackendTrait<"InPlaceUpdate">;
// The backend runs the op a row at a time (a warp per row, row_math.h) and
// stores each element of its one result once, so --amp-fuse may put the
// one elementwise op that reads the result in the kernel's store (a row
// epilogue): softmax, the norms, their gradients, cross_entropy_grad.
def Amp_RowKernel : Amp_BackendTrait<"RowKernel">;
// The op's kernel reads each operand element through a load that can
// compute it, so --amp-fuse may put an elementwise producer of an operand
// in that load (a prologue): the reductions and the row ops whose operands
// are all read whole (not cross_entropy_grad's labels and loss gradient).
def Amp_OperandsInLoads : Amp_BackendTrait<"OperandsInLoads">;
// The backend runs the op as other ops: --amp-backend's first pass,
// amp-decompose, rewrites it (amp.conv2d into amp.im2col and amp.matmul),
// so it has no kernel of its own.
def Amp_Decomposed : Amp_BackendTrait<"Decomposed">;

// Every amp op: its tensors are non-empty and their byte sizes fit in int64.
def Amp_StorableTensors : NativeOpTrait<"StorableTensors"> {
  let cppNamespace = "::mlir::OpTrait::amp";
}

//===----------------------------------------------------------------------===//
// Precision categories
//===----------------------------------------------------------------------===//

// The default amp-autocast category of an op, read by the default
// implementation of PrecisionOpInterface. The defaults mirror PyTorch's CUDA
// autocast lists (docs/autocast.md has the table).
class Amp_CategoryTrait<string name> : NativeOpTrait<name # "Category"> {
  let cppNamespace = "::mlir::OpTrait::amp";
}
// GEMM-like: computed in f16/bf16 (with an f32 accumulator).
def Amp_LowerPrecision : Amp_CategoryTrait<"LowerPrecision">;
// Numerically sensitive: computed in f32.
def Amp_KeepFp32 : Amp_CategoryTrait<"KeepFp32">;
// Several inputs: the widest input type wins.
def Amp_Promote : Amp_CategoryTrait<"Promote">;
// Numerically neutral: takes its input's type.
def Amp_Follow : Amp_CategoryTrait<"Follow">;

#endif // AMP_DIALECT_AMP_IR_AMPBASE_TD
