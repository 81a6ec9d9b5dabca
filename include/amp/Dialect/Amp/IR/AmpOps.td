//===- AmpOps.td - amp dialect ops -------------------------*- tablegen -*-===//
//
// The training-graph ops, grouped by family. Each family has a base class;
// verifiers are thin and call the shared checks in AmpVerify.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPOPS_TD
#define AMP_DIALECT_AMP_IR_AMPOPS_TD

include "amp/Dialect/Amp/IR/AmpAttrs.td"
include "amp/Dialect/Amp/IR/AmpBase.td"
include "amp/Dialect/Amp/IR/AmpInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

// Ops that compute take part in amp-autocast (PrecisionOpInterface);
// constants, casts and iota do not: autocast converts or places those itself.
// Every op's tensors are non-empty and of a size that fits in 64 bits
// (Amp_StorableTensors, checked before the op's own verifier).
class Amp_Op<string mnemonic, list<Trait> traits = [],
             bit hasPrecisionCategory = 1>
    : Op<Amp_Dialect, mnemonic,
         !listconcat([Amp_StorableTensors], traits,
                     [Pure, Amp_FlopCountOpInterface],
                     !if(hasPrecisionCategory, [Amp_PrecisionOpInterface],
                         []))>;

// An op whose work per element is not one FLOP: it defines getElementCost
// (AmpOps.cpp), which the model summary and the cost report both read.
defvar Amp_ElementCost =
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getElementCost"]>;

//===----------------------------------------------------------------------===//
// Data: constants and precision casts
//===----------------------------------------------------------------------===//

def Amp_ConstantOp : Amp_Op<"constant",
    [ConstantLike, Amp_DataFamily, Amp_FusibleElementwise,
     AllTypesMatch<["value", "result"]>],
    /*hasPrecisionCategory=*/0> {
  let summary = "a tensor constant, splat or dense";
  let description = [{
    Produces a tensor holding the elements of `value`, a dense elements
    attribute whose type is the result type.

    ```mlir
    %zero = amp.constant dense<0.0> : tensor<64x10xf32>
    %w = amp.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xbf16>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Amp_AnyTensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Amp_CastOp : Amp_Op<"cast", [Amp_DataFamily, Amp_FusibleElementwise],
                        /*hasPrecisionCategory=*/0> {
  let summary = "precision conversion between floating-point tensors";
  let description = [{
    Converts every element to the result element type, rounding to nearest
    with ties to even; values beyond the target's range become infinities.
    The shape does not change. This is the only op that changes precision:
    the mixed-precision passes place, share and remove `amp.cast` ops.

    ```mlir
    %h = amp.cast %x : tensor<64x784xf32> to tensor<64x784xf16>
    ```

    Canonicalisation removes casts to the same type and folds
    `cast(cast(x : A) : B) : C` into `cast(x : A) : C` when `A -> B` is exact
    (f16 or bf16 to f32 or f64, f32 to f64), which also removes round trips.
  }];
  let arguments = (ins Amp_FloatTensor:$input);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let hasVerifier = 1;
}

def Amp_IotaOp : Amp_Op<"iota", [Amp_DataFamily, Amp_FusibleElementwise],
                        /*hasPrecisionCategory=*/0> {
  let summary = "tensor of indices along one dimension";
  let description = [{
    Element `(i0, ..., in)` of the result is `i<dim>`. With `amp.compare` it
    builds masks, a causal one among them:

    ```mlir
    %row = amp.iota dim = 0 : tensor<16x16xi64>
    %col = amp.iota dim = 1 : tensor<16x16xi64>
    %causal = amp.compare ge, %row, %col : tensor<16x16xi64>, tensor<16x16xi64>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Amp_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Amp_UnaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Amp_Op<mnemonic, !listconcat(traits,
                                   [Amp_ElementwiseFamily,
                                    Amp_FusibleElementwise,
                                    SameOperandsAndResultType])> {
  let summary = "elementwise " # formula;
  let description = [{
    Computes `}] # formula # [{` for every element. The result has the type of
    the input.
  }];
  let arguments = (ins Amp_FloatTensor:$input);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Amp_NegOp : Amp_UnaryOp<"neg", "-x", [Amp_Follow]> { let hasFolder = 1; }
def Amp_AbsOp : Amp_UnaryOp<"abs", "|x|", [Amp_Follow]>;
def Amp_StopGradientOp : Amp_UnaryOp<"stop_gradient", "x",
    [Amp_Follow, Amp_ElementCost]> {
  let summary = "x itself, through which no gradient flows";
  let description = [{
    The input unchanged, with a gradient of zero: amp-autodiff propagates
    nothing through it (PyTorch's `detach`, JAX's `stop_gradient`). The
    functions amp-autodiff and amp-evaluation make read its input in its
    place, so no backend sees it; the interpreter copies it.

    ```mlir
    %target = amp.stop_gradient %teacher : tensor<8x10xf32>
    ```
  }];
}
def Amp_ExpOp : Amp_UnaryOp<"exp", "e^x", [Amp_KeepFp32, Amp_ElementCost]>;
def Amp_LogOp : Amp_UnaryOp<"log", "ln(x)", [Amp_KeepFp32, Amp_ElementCost]>;
def Amp_SqrtOp : Amp_UnaryOp<"sqrt", "sqrt(x)", [Amp_Follow, Amp_ElementCost]>;
def Amp_RsqrtOp : Amp_UnaryOp<"rsqrt", "1 / sqrt(x)",
    [Amp_KeepFp32, Amp_ElementCost]>;
def Amp_TanhOp : Amp_UnaryOp<"tanh", "tanh(x)", [Amp_Follow, Amp_ElementCost]>;
def Amp_SigmoidOp : Amp_UnaryOp<"sigmoid", "1 / (1 + e^-x)",
    [Amp_Follow, Amp_ElementCost]>;
def Amp_SoftplusOp : Amp_UnaryOp<"softplus", "ln(1 + e^x)",
    [Amp_KeepFp32, Amp_ElementCost]> {
  let description = [{
    `ln(1 + e^x)` for every element, and `x` itself where `x > 20` (as
    PyTorch's `softplus` with its default threshold), where the two agree
    to f32 precision and `e^x` would overflow first. Its derivative is
    `sigmoid(x)`. The result has the type of the input.
  }];
}
def Amp_ReluOp : Amp_UnaryOp<"relu", "max(x, 0)", [Amp_Follow]>;

def Amp_GeluOp : Amp_UnaryOp<"gelu", "x * Phi(x)",
    [Amp_Follow, Amp_ElementCost]> {
  let description = [{
    The Gaussian error linear unit `x * Phi(x)`. With `approximate = erf`
    (the default) `Phi(x) = (1 + erf(x / sqrt(2))) / 2`; with
    `approximate = tanh`, GPT-2's form
    `Phi(x) = (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2`.

    ```mlir
    %y = amp.gelu %x : tensor<8x256xf32>
    %z = amp.gelu %x approximate = tanh : tensor<8x256xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input,
                   DefaultValuedAttr<Amp_GeluApproximation,
                       "::mlir::amp::GeluApproximation::erf">:$approximate);
  let assemblyFormat = [{
    $input (`approximate` `=` $approximate^)? attr-dict `:` type($input)
  }];
}

def Amp_PowOp : Amp_UnaryOp<"pow", "x^exponent",
    [Amp_KeepFp32, Amp_ElementCost]> {
  let description = [{
    Raises every element to the power `exponent`, a scalar attribute.

    ```mlir
    %sq = amp.pow %x, 2.0 : tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, F64Attr:$exponent);
  let assemblyFormat = "$input `,` $exponent attr-dict `:` type($input)";
}

class Amp_BinaryOp<string mnemonic, string formula, list<Trait> traits = []>
    : Amp_Op<mnemonic, !listconcat(traits,
        [Amp_ElementwiseFamily, Amp_FusibleElementwise,
         DeclareOpInterfaceMethods<InferTypeOpInterface>])> {
  let summary = "elementwise " # formula # " with numpy broadcasting";
  let description = [{
    Computes `}] # formula # [{` elementwise. The operand shapes broadcast like
    numpy (aligned at the trailing dimension, a dimension of 1 stretches); the
    element types must be equal. The result type is inferred.

    ```mlir
    %y = amp.}] # mnemonic # [{ %a, %b : tensor<64x256xf32>, tensor<256xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$lhs, Amp_FloatTensor:$rhs);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasVerifier = 1;
}

def Amp_AddOp : Amp_BinaryOp<"add", "lhs + rhs", [Commutative, Amp_Promote]>;
def Amp_SubOp : Amp_BinaryOp<"sub", "lhs - rhs", [Amp_Promote]>;
def Amp_MulOp : Amp_BinaryOp<"mul", "lhs * rhs", [Commutative, Amp_Promote]>;
def Amp_DivOp : Amp_BinaryOp<"div", "lhs / rhs", [Amp_Promote]>;
def Amp_MaximumOp : Amp_BinaryOp<"maximum", "max(lhs, rhs)", [Commutative, Amp_Follow]>;
def Amp_MinimumOp : Amp_BinaryOp<"minimum", "min(lhs, rhs)", [Commutative, Amp_Follow]>;

def Amp_SelectOp : Amp_Op<"select",
    [Amp_ElementwiseFamily, Amp_FusibleElementwise, Amp_Promote,
     DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "elementwise choice by a mask, with numpy broadcasting";
  let description = [{
    Takes `on_true` where `condition` holds and `on_false` elsewhere. The
    three shapes broadcast together like numpy; the two value operands have
    the same element type. A causal attention mask is a select:

    ```mlir
    %masked = amp.select %causal, %scores, %neg_inf
        : tensor<16x16xi1>, tensor<2x4x16x16xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Amp_MaskTensor:$condition, Amp_FloatTensor:$on_true,
                   Amp_FloatTensor:$on_false);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` type($condition) `,`
    type($on_true) `,` type($on_false)
  }];
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Amp_CompareOp : Amp_Op<"compare",
    [Amp_ElementwiseFamily, Amp_FusibleElementwise, Amp_Promote,
     DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "elementwise comparison to an i1 mask, with numpy broadcasting";
  let description = [{
    Compares `lhs` and `rhs` elementwise with `predicate` (`eq`, `ne`, `lt`,
    `le`, `gt`, `ge`; on floats, ordered: any comparison with NaN is false
    except `ne`). Shapes broadcast like numpy; element types are equal.

    ```mlir
    %m = amp.compare ge, %row, %col : tensor<16x16xi64>, tensor<16x16xi64>
    ```
  }];
  let arguments = (ins Amp_ComparePredicate:$predicate, Amp_NumericTensor:$lhs,
                   Amp_NumericTensor:$rhs);
  let results = (outs Amp_MaskTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

class Amp_ShapeOp<string mnemonic, list<Trait> traits = []>
    : Amp_Op<mnemonic, !listconcat(traits, [Amp_ShapeFamily])> {
  let hasVerifier = 1;
}

def Amp_ReshapeOp : Amp_ShapeOp<"reshape", [Amp_Follow, Amp_MemoryView]> {
  let summary = "same elements in row-major order, another shape";
  let description = [{
    ```mlir
    %y = amp.reshape %x : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
    ```
    Element count and element type are preserved.
  }];
  let arguments = (ins Amp_AnyTensor:$input);
  let results = (outs Amp_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

def Amp_TransposeOp : Amp_ShapeOp<"transpose", [Amp_Follow]> {
  let summary = "permutation of dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %y = amp.transpose %x, [0, 2, 1, 3]
        : tensor<2x16x4x16xf32> to tensor<2x4x16x16xf32>
    ```
  }];
  let arguments = (ins Amp_AnyTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Amp_AnyTensor:$result);
  let assemblyFormat = [{
    $input `,` $permutation attr-dict `:` type($input) `to` type($result)
  }];
  let hasFolder = 1;
}

def Amp_BroadcastToOp : Amp_ShapeOp<"broadcast_to",
    [Amp_Follow, Amp_FusibleElementwise]> {
  let summary = "numpy broadcast to an explicit shape";
  let description = [{
    ```mlir
    %y = amp.broadcast_to %b : tensor<256xf32> to tensor<64x256xf32>
    ```
    The input shape must broadcast to the result shape under numpy's rules.
  }];
  let arguments = (ins Amp_AnyTensor:$input);
  let results = (outs Amp_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
}

def Amp_SliceOp : Amp_ShapeOp<"slice", [Amp_Follow]> {
  let summary = "contiguous box of a tensor";
  let description = [{
    Takes elements `start[i] <= index[i] < limit[i]` in every dimension.

    ```mlir
    %q = amp.slice %qkv [0, 0, 0] to [2, 16, 64]
        : tensor<2x16x192xf32> to tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Amp_AnyTensor:$input, DenseI64ArrayAttr:$start,
                   DenseI64ArrayAttr:$limit);
  let results = (outs Amp_AnyTensor:$result);
  let assemblyFormat = [{
    $input $start `to` $limit attr-dict `:` type($input) `to` type($result)
  }];
  let hasFolder = 1;
}

def Amp_ConcatOp : Amp_ShapeOp<"concat", [Amp_Promote]> {
  let summary = "concatenation along one dimension";
  let description = [{
    ```mlir
    %y = amp.concat %a, %b dim = 1
        : tensor<4x8xf32>, tensor<4x2xf32> to tensor<4x10xf32>
    ```
    All inputs share element type, rank and every dimension but `dim`.
  }];
  let arguments = (ins Variadic<Amp_AnyTensor>:$inputs, I64Attr:$dim);
  let results = (outs Amp_AnyTensor:$result);
  let assemblyFormat = [{
    $inputs `dim` `=` $dim attr-dict `:` type($inputs) `to` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

def Amp_MatmulOp : Amp_Op<"matmul", [Amp_ContractionFamily, Amp_LowerPrecision,
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "matrix product, 2-D or batched, with transpose flags";
  let description = [{
    Multiplies the matrices held in the last two dimensions: `lhs` is
    `[..., M, K]` (`[..., K, M]` with `transpose_lhs`), `rhs` is `[..., K, N]`
    (`[..., N, K]` with `transpose_rhs`), the result `[..., M, N]`. Leading
    (batch) dimensions broadcast like numpy, so a 3-D activation times a 2-D
    weight is one op. Products are summed in `acc_type` (default: f32, or f64
    for f64 operands), which must hold every operand value exactly; the sum is
    rounded once to the result element type, which may differ from the
    operands' (f16 in, f32 out).

    With a `bias` (a vector of `N` values in the result element type), the
    bias is added to every row in the accumulator type before that one
    rounding, as a fused GEMM epilogue (and PyTorch's `F.linear`) does.
    Autocast folds a bias add that follows a low-precision matmul into it.

    With `lhs_fp8` and `rhs_fp8` (FP8 types: `f8E4M3FN`, or `f8E5M2`, at
    most one of the two) the product is an FP8 GEMM with per-tensor current
    scaling: each operand is multiplied in f32 by its scale `s = f32(max /
    max(amax, 1e-12))` (`max` its format's largest value, `amax` the
    largest magnitude of the whole operand, the quotient in f64), saturated
    to +-max and rounded to its format; the products of the FP8 values are
    summed in f32, and the sum is multiplied by `f32(1/s_lhs) * f32(1/s_rhs)`
    before the bias is added and the one rounding (torchao's "tensorwise"
    recipe). `grad_fp8` is the format amp-autodiff gives the result's
    gradient in the two backward GEMMs (each reads the other operand in its
    forward format). Operands are f16, bf16 or f32, the accumulator f32.

    With `scales` (a 1-D f32 tensor, delayed scaling) the operands' scales
    are not computed from their amax but read from it: `lhs` is multiplied
    by `scales[fp8_scale_index[0]]` and `rhs` by
    `scales[fp8_scale_index[1]]`, and the sum by the product of their f32
    inverses as above; with `grad_fp8`, `fp8_scale_index[2]` is the
    gradient's scale, which the backward GEMMs read. amp-autocast's delayed
    scaling gives an FP8 GEMM its layer's scale state (x, w, the output's
    gradient) this way.

    Operands of FP8 types are values cast before (`amp.fp8_cast`, which
    amp-fp8-casts places so that the GEMMs reading one tensor share its
    cast): they are multiplied as they are, the formats `lhs_fp8` and
    `rhs_fp8` their types, the sum by the inverses of the scales they were
    cast with. Such a product has no gradient.

    ```mlir
    %h = amp.matmul %x, %w : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf16>
    %y = amp.matmul %x, %w bias %b
        : tensor<64x784xf16>, tensor<784x256xf16>, tensor<256xf16> to tensor<64x256xf16>
    %s = amp.matmul %q, %k {transpose_rhs}
        : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> to tensor<2x4x16x16xf32>
    %f = amp.matmul %x, %w {acc_type = f32, lhs_fp8 = f8E4M3FN,
                            rhs_fp8 = f8E4M3FN, grad_fp8 = f8E5M2}
        : tensor<64x768xbf16>, tensor<768x256xbf16> to tensor<64x256xbf16>
    %d = amp.matmul %x, %w scales %s {fp8_scale_index = array<i64: 0, 1, 2>,
                                      lhs_fp8 = f8E4M3FN, rhs_fp8 = f8E4M3FN,
                                      grad_fp8 = f8E5M2}
        : tensor<64x768xbf16>, tensor<768x256xbf16> scales tensor<3xf32>
          to tensor<64x256xbf16>
    ```
  }];
  let arguments = (ins Amp_MatmulOperand:$lhs, Amp_MatmulOperand:$rhs,
                   UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                   OptionalAttr<Amp_FloatTypeAttr>:$acc_type,
                   Optional<Amp_FloatTensor>:$bias,
                   OptionalAttr<Amp_Fp8TypeAttr>:$lhs_fp8,
                   OptionalAttr<Amp_Fp8TypeAttr>:$rhs_fp8,
                   OptionalAttr<Amp_Fp8TypeAttr>:$grad_fp8,
                   Optional<Amp_FloatTensor>:$scales,
                   OptionalAttr<DenseI64ArrayAttr>:$fp8_scale_index);
  let results = (outs Amp_FloatTensor:$result);
  let builders = [
    // A product that is no FP8 GEMM.
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$lhs,
                   "::mlir::Value":$rhs, "::mlir::UnitAttr":$transpose_lhs,
                   "::mlir::UnitAttr":$transpose_rhs,
                   "::mlir::TypeAttr":$acc_type, "::mlir::Value":$bias), [{
      build($_builder, $_state, result, lhs, rhs, transpose_lhs,
            transpose_rhs, acc_type, bias, ::mlir::TypeAttr(),
            ::mlir::TypeAttr(), ::mlir::TypeAttr(), ::mlir::Value(),
            ::mlir::DenseI64ArrayAttr());
    }]>,
    // An FP8 GEMM with current scaling.
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$lhs,
                   "::mlir::Value":$rhs, "::mlir::UnitAttr":$transpose_lhs,
                   "::mlir::UnitAttr":$transpose_rhs,
                   "::mlir::TypeAttr":$acc_type, "::mlir::Value":$bias,
                   "::mlir::TypeAttr":$lhs_fp8, "::mlir::TypeAttr":$rhs_fp8,
                   "::mlir::TypeAttr":$grad_fp8), [{
      build($_builder, $_state, result, lhs, rhs, transpose_lhs,
            transpose_rhs, acc_type, bias, lhs_fp8, rhs_fp8, grad_fp8,
            ::mlir::Value(), ::mlir::DenseI64ArrayAttr());
    }]>
  ];
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` $bias^)? (`scales` $scales^)? attr-dict `:`
    type($lhs) `,` type($rhs) (`,` type($bias)^)? (`scales` type($scales)^)?
    `to` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The accumulator type: `acc_type` when set, else f32 (f64 for f64).
    ::mlir::FloatType getAccumulatorType();
    /// Whether the product is an FP8 GEMM (`lhs_fp8` and `rhs_fp8`).
    bool isFp8() { return getLhsFp8() && getRhsFp8(); }
  }];
}

def Amp_AttentionOp : Amp_Op<"attention", [Amp_ContractionFamily,
    Amp_LowerPrecision, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Amp_PrecisionOpInterface,
                              ["isPrecisionResult"]>,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "scaled dot-product attention";
  let description = [{
    `softmax(scale * query @ key^T + mask) @ value` for `query`
    `[B, H, T, D]`, `key` `[B, H, S, D]` and `value` `[B, H, S, Dv]`; the
    result is `[B, H, T, Dv]` in the query's element type. `scale` defaults to
    `1 / sqrt(D)`. With `causal`, query position `i` sees key positions
    `j <= i` (the mask is aligned top-left, as PyTorch's `is_causal`).
    Scores, softmax and the weighted sum are computed in f32 (f64 for f64
    operands) and never rounded to a narrower element type in between, as a
    fused kernel keeps them in registers.

    With `with_lse` the op has a second result, `lse` `[B, H, T]` in f32
    (f64 for f64 operands): each query's log-sum-exp of its scaled, masked
    scores, `max + log(sum(exp(score - max)))`, which `amp.attention_grad`
    reads to recompute the probabilities instead of storing them.
    amp-autodiff adds it to the forward op it differentiates; amp-autocast
    leaves its type alone.

    The same computation spelled out with `amp.matmul`, `amp.select`,
    `amp.softmax` and `amp.matmul` is valid input as well.

    ```mlir
    %o = amp.attention %q, %k, %v causal
        : tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>
    %o2, %lse = amp.attention %q, %k, %v causal with_lse
        : tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$query, Amp_FloatTensor:$key,
                   Amp_FloatTensor:$value, UnitAttr:$causal,
                   OptionalAttr<F64Attr>:$scale, UnitAttr:$with_lse);
  let results = (outs Amp_FloatTensor:$result,
                 Optional<Amp_FloatTensor>:$lse);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`causal` $causal^)? (`with_lse` $with_lse^)?
    attr-dict `:` type($query) `,` type($key) `,` type($value)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `scale` when set, else 1 / sqrt(head dim).
    double getScaleOrDefault();
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Amp_ReductionOp<string mnemonic, string what, list<Trait> traits = []>
    : Amp_Op<mnemonic, !listconcat(traits, [Amp_ReductionFamily,
        Amp_OperandsInLoads, DeclareOpInterfaceMethods<Amp_FlopCountOpInterface,
                                  ["getForwardFlops"]>])> {
  let summary = what # " over the given dimensions";
  let description = [{
    Reduces the dimensions listed in `dims` (distinct, in range, any order).
    With `keepdims` they stay as dimensions of size 1, else they are dropped.
    `amp.sum` and `amp.mean` accumulate in `acc_type` (default f32, f64 for
    f64 input), which must hold every input value exactly, and round once to
    the result element type, which may differ from the input's (f16 in, f32
    out). `amp.max` keeps the input element type and rejects empty reduced
    dimensions; the mean over an empty dimension is NaN.

    ```mlir
    %r = amp.}] # mnemonic # [{ %x dims = [1] : tensor<64x10xf32> to tensor<64xf32>
    %k = amp.}] # mnemonic # [{ %x dims = [1] keepdims : tensor<64x10xf32> to tensor<64x1xf32>
    ```
  }];
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dims` `=` $dims (`keepdims` $keepdims^)? attr-dict `:`
    type($input) `to` type($result)
  }];
  let hasVerifier = 1;
}

class Amp_AccumulatingReductionOp<string mnemonic, string what>
    : Amp_ReductionOp<mnemonic, what, [Amp_KeepFp32]> {
  let arguments = (ins Amp_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                   UnitAttr:$keepdims,
                   OptionalAttr<Amp_FloatTypeAttr>:$acc_type);
  let extraClassDeclaration = [{
    /// The accumulator type: `acc_type` when set, else f32 (f64 for f64).
    ::mlir::FloatType getAccumulatorType();
  }];
}

def Amp_SumOp : Amp_AccumulatingReductionOp<"sum", "sum">;
def Amp_MeanOp : Amp_AccumulatingReductionOp<"mean", "arithmetic mean">;
def Amp_MaxOp : Amp_ReductionOp<"max", "maximum", [Amp_Follow]> {
  let arguments = (ins Amp_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                   UnitAttr:$keepdims);
}

def Amp_SumSquaresOp : Amp_Op<"sum_squares", [Amp_ReductionFamily,
    Amp_KeepFp32, DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "multi-tensor sum of squares, the global norm's square";
  let description = [{
    The sum over every element of every input of its square: the square of
    the global 2-norm that `clip_grad_norm_` clips by, in one pass over all
    tensors (as Apex's `multi_tensor_l2norm`). Each element is widened to
    f32 and squared in f32 (an f16 value above 256 squares past f16's
    range); each input's squares are summed in f32 in the order of
    `reduction_order.h` (as `amp.sum` over all its dimensions), and the
    inputs' sums are added in operand order, starting from 0. The result is
    a 0-d f32 tensor; with no inputs it is 0.

    ```mlir
    %sq = amp.sum_squares %g1, %g2 : tensor<784x256xf32>, tensor<256xbf16>
    ```
  }];
  let arguments = (ins Variadic<Amp_FloatTensor>:$inputs);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    ($inputs^ `:` type($inputs))? attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

class Amp_NormalizationOp<string mnemonic, list<Trait> traits = []>
    : Amp_Op<mnemonic, !listconcat(traits, [Amp_NormalizationFamily,
        Amp_RowKernel, Amp_OperandsInLoads,
        DeclareOpInterfaceMethods<Amp_FlopCountOpInterface,
                                  ["getForwardFlops"]>])> {
  let hasVerifier = 1;
}

class Amp_SoftmaxLikeOp<string mnemonic, string formula>
    : Amp_NormalizationOp<mnemonic, [SameOperandsAndResultType, Amp_KeepFp32]> {
  let summary = formula # " along one dimension";
  let description = [{
    Computes `}] # formula # [{` along dimension `dim`, subtracting the
    maximum first so that large inputs do not overflow.

    ```mlir
    %p = amp.}] # mnemonic # [{ %x dim = 1 : tensor<64x10xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "$input `dim` `=` $dim attr-dict `:` type($input)";
}

def Amp_SoftmaxOp : Amp_SoftmaxLikeOp<"softmax", "exp(x) / sum(exp(x))">;
def Amp_LogSoftmaxOp
    : Amp_SoftmaxLikeOp<"log_softmax", "x - log(sum(exp(x)))">;

def Amp_LayerNormOp : Amp_NormalizationOp<"layer_norm",
    [AttrSizedOperandSegments, Amp_KeepFp32, AllTypesMatch<["input", "result"]>]> {
  let summary = "layer normalisation with optional affine weight and bias";
  let description = [{
    Normalises over the trailing dimensions from `axis` on (default: the last
    dimension only): `(x - mean) / sqrt(var + epsilon)` with the biased
    variance, then multiplies by `weight` and adds `bias` when given. Both
    have the normalised shape and may be of another float type than the input
    (fp32 parameters for fp16 activations).

    ```mlir
    %y = amp.layer_norm %x scale(%g : tensor<64xf32>) bias(%b : tensor<64xf32>)
        {epsilon = 1.0e-05} : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input,
                   Optional<Amp_FloatTensor>:$weight,
                   Optional<Amp_FloatTensor>:$bias,
                   OptionalAttr<I64Attr>:$axis,
                   DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict `:` type($input)
  }];
  let extraClassDeclaration = [{
    /// First normalised dimension: `axis` when set, else rank - 1.
    int64_t getNormalizedAxis();
  }];
}

def Amp_RmsNormOp : Amp_NormalizationOp<"rms_norm",
    [Amp_KeepFp32, AllTypesMatch<["input", "result"]>]> {
  let summary = "root-mean-square normalisation with an optional weight";
  let description = [{
    `x / sqrt(mean(x^2) + epsilon)` over the trailing dimensions from `axis`
    on (default: the last), times `weight` when given.

    ```mlir
    %y = amp.rms_norm %x scale(%g : tensor<64xf32>) : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input,
                   Optional<Amp_FloatTensor>:$weight,
                   OptionalAttr<I64Attr>:$axis,
                   DefaultValuedAttr<F64Attr, "1e-6">:$epsilon);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`scale` `(` $weight^ `:` type($weight) `)`)? attr-dict `:`
    type($input)
  }];
  let extraClassDeclaration = [{
    /// First normalised dimension: `axis` when set, else rank - 1.
    int64_t getNormalizedAxis();
  }];
}

def Amp_NormStatsOp : Amp_Op<"norm_stats", [Amp_NormalizationFamily,
    Amp_KeepFp32, Amp_RowKernel, Amp_OperandsInLoads,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "the statistics a layer norm or RMS norm divides each row by";
  let description = [{
    The statistics of each row (the trailing dimensions from `axis` on,
    default the last) that `amp.layer_norm` (`centered`) or `amp.rms_norm`
    with the same `epsilon` computes: `mean` (0 without `centered`) and
    `deviation`, `sqrt(mean((x - mean)^2) + epsilon)`, in the input's type
    (f32 or f64) and with the norm's order of summation, so that
    `(x - mean) / deviation` (or `x / deviation`) computed elementwise in
    that type is the norm's result without weight and bias, bit for bit.
    The results have the input's shape with the normalised dimensions of
    size 1, which broadcasts against it.

    `amp-fuse` writes the normalised input that a backward recomputes (a
    layer norm's scale gradient sums `dy * (x - mean) / deviation`) this way
    when a norm of the same input and epsilon runs before it, and computes
    the statistics in that norm's row kernel: the reduction that reads them
    computes the normalised input in its loads instead of reading a tensor
    of it.

    ```mlir
    %mean, %dev = amp.norm_stats %x {centered, epsilon = 1.0e-05}
        : tensor<2x16x64xf32> to tensor<2x16x1xf32>, tensor<2x16x1xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, OptionalAttr<I64Attr>:$axis,
                   F64Attr:$epsilon, UnitAttr:$centered);
  let results = (outs Amp_FloatTensor:$mean, Amp_FloatTensor:$deviation);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `to` type($mean) `,` type($deviation)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// First normalised dimension: `axis` when set, else rank - 1.
    int64_t getNormalizedAxis();
    /// Whether `norm` (an amp.layer_norm when centered, an amp.rms_norm
    /// otherwise) computes these statistics of the same input, with the
    /// same epsilon and axis, in the same type: its row kernel can store
    /// them.
    bool isComputedBy(Operation *norm);
  }];
}

def Amp_BatchNormOp : Amp_Op<"batch_norm", [AttrSizedOperandSegments,
    Amp_NormalizationFamily, Amp_KeepFp32, Amp_Decomposed,
    AllTypesMatch<["input", "result"]>,
    AllTypesMatch<["running_mean", "running_var", "new_mean", "new_var"]>,
    DeclareOpInterfaceMethods<Amp_PrecisionOpInterface,
                              ["isPrecisionOperand", "isPrecisionResult",
                               "keepsLowPrecisionIO"]>,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "batch normalisation over [N, C] or [N, C, H, W] activations";
  let description = [{
    Normalises each channel (dimension 1) over the batch and, for images,
    the spatial dimensions: PyTorch's `F.batch_norm`. Everything is computed
    in the accumulator type A (f32; f64 for f64 input) and the result rounded
    once to the input's type, which may be f16 or bf16 (cuDNN's contract).

    In `training` mode, with `mean` and `var` the channel's `amp.mean` of
    the input and of its squared deviation (the biased variance):
    `y = (x - mean) / sqrt(var + epsilon) * scale + bias`, and the running
    statistics become `running_mean * (1 - momentum) + mean * momentum` and
    `running_var * (1 - momentum) + var * (n / (n - 1)) * momentum` (the
    unbiased variance, n the values per channel, at least 2). In evaluation
    mode the running statistics normalise instead and come back unchanged.
    `scale` and `bias` ([C], any float type) are optional; the running
    statistics ([C], of type A) are not: they are the model's buffers.
    `amp-decompose` runs the op as exactly these steps, each an amp op
    rounding to A.

    ```mlir
    %y, %mean, %var = amp.batch_norm %x running(%rm, %rv : tensor<16xf32>)
        scale(%g : tensor<16xf32>) bias(%b : tensor<16xf32>)
        {epsilon = 1.0e-05, momentum = 0.1, training} : tensor<8x16x4x4xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input,
                   Amp_FloatTensor:$running_mean,
                   Amp_FloatTensor:$running_var,
                   Optional<Amp_FloatTensor>:$weight,
                   Optional<Amp_FloatTensor>:$bias,
                   DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                   DefaultValuedAttr<F64Attr, "0.1">:$momentum,
                   UnitAttr:$training);
  let results = (outs Amp_FloatTensor:$result, Amp_FloatTensor:$new_mean,
                 Amp_FloatTensor:$new_var);
  let assemblyFormat = [{
    $input `running` `(` $running_mean `,` $running_var `:`
    type($running_mean) `)` (`scale` `(` $weight^ `:` type($weight) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The dimensions each channel's statistics reduce: 0, and 2 and 3 for
    /// images.
    ::llvm::SmallVector<int64_t, 3> getReducedDims();
    /// The values each channel's statistics reduce (N, or N * H * W).
    int64_t getValuesPerChannel();
  }];
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

// The window of a 2-D convolution over NCHW images: `strides` and
// `dilations` [h, w] (default [1, 1]); `padding` [h, w] (symmetric) or
// [top, left, bottom, right] (default none); padded positions read zeros.
// Output row y of a `kernel_h`-tall window starts at input row
// y * stride_h - top and reads every dilation_h-th row (columns alike), so
// OH = (H + top + bottom - dilation_h * (kernel_h - 1) - 1) / stride_h + 1.
class Amp_WindowOp<string mnemonic, list<Trait> traits = []>
    : Amp_Op<mnemonic, traits> {
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The window's strides, padding and dilations, defaults filled in.
    ::mlir::amp::Conv2dWindow getWindow();
  }];
}

def Amp_Conv2dOp : Amp_WindowOp<"conv2d", [Amp_ContractionFamily,
    Amp_LowerPrecision, Amp_Decomposed,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "2-D convolution (cross-correlation) of NCHW images";
  let description = [{
    For `input` `[N, C, H, W]` and `weight` `[O, C / groups, KH, KW]`, the
    result `[N, O, OH, OW]` holds at `[n, o, y, x]` the sum over the
    channels `c` of output channel `o`'s group (`C / groups` of them), `kh`
    and `kw` of `input[n, g * C / groups + c, y * stride_h - top + kh *
    dilation_h, x * stride_w - left + kw * dilation_w] * weight[o, c, kh,
    kw]`, where `g = o / (O / groups)` and a position in the padding reads
    zero: PyTorch's `F.conv2d` (groups equal to C is a depthwise
    convolution). Layout is NCHW only: it is PyTorch's, and the lowering
    gathers each window's values into a column (`amp.im2col`) whatever the
    layout.

    Products are summed in `acc_type` (default: f32, or f64 for f64
    operands) in the order of `c`, then `kh`, then `kw`, padded positions
    included; the optional `bias` (`[O]`, the result element type) is added
    in the accumulator type, and the sum rounded once to the result element
    type, which may differ from the operands' (f16 in, f32 out) as for
    `amp.matmul`.

    ```mlir
    %y = amp.conv2d %x, %w bias %b {padding = array<i64: 1, 1>}
        : tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>, tensor<16xf16>
          to tensor<8x16x32x32xf16>
    %d = amp.conv2d %x, %w {strides = array<i64: 2, 2>, groups = 16 : i64}
        : tensor<8x16x32x32xf32>, tensor<16x1x3x3xf32> to tensor<8x16x15x15xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_FloatTensor:$weight,
                   Optional<Amp_FloatTensor>:$bias,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   OptionalAttr<DenseI64ArrayAttr>:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   OptionalAttr<I64Attr>:$groups,
                   OptionalAttr<Amp_FloatTypeAttr>:$acc_type);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)? attr-dict `:` type($input) `,`
    type($weight) (`,` type($bias)^)? `to` type($result)
  }];
  let extraClassDeclaration = [{
    ::mlir::amp::Conv2dWindow getWindow();
    /// groups, 1 by default.
    int64_t getGroupCount();
    /// The accumulator type: `acc_type` when set, else f32 (f64 for f64).
    ::mlir::FloatType getAccumulatorType();
  }];
}

// The gradients of amp.conv2d in its input and its weight, cuDNN's dgrad
// and wgrad: amp-autodiff's, kept whole until amp-decompose so that a
// backend may run each as one library call.
class Amp_Conv2dGradOp<string mnemonic, string summary_>
    : Amp_WindowOp<mnemonic, [Amp_GradientFamily, Amp_LowerPrecision,
                              Amp_Decomposed]> {
  let summary = summary_;
  let results = (outs Amp_FloatTensor:$result);
  let extraClassDeclaration = [{
    ::mlir::amp::Conv2dWindow getWindow();
    /// groups, 1 by default.
    int64_t getGroupCount();
    /// The accumulator type: `acc_type` when set, else f32 (f64 for f64).
    ::mlir::FloatType getAccumulatorType();
  }];
}

def Amp_Conv2dGradInputOp : Amp_Conv2dGradOp<"conv2d_grad_input",
    "gradient of conv2d in its input (dgrad)"> {
  let description = [{
    For the gradient `grad` `[N, O, OH, OW]` of an `amp.conv2d` of weight
    `weight` `[O, C / groups, KH, KW]` with these window attributes, the
    gradient of its input, the result `[N, C, H, W]`: per group, each
    window column's gradient `weight^T grad` summed in `acc_type` (default
    f32, f64 for f64) over the group's output channels, then each image
    position's shares summed by `amp.col2im` in f32 (f64 for f64) and
    rounded once to the result type, the operands'. `amp-decompose` runs it
    as exactly that. It is also PyTorch's `conv_transpose2d` (the importer's
    ConvTranspose2d, its `output_padding` the rows and columns the result
    has beyond what the stride gives back), and so differentiable: linear
    in each operand, its gradients are the convolution of the upstream
    gradient by `weight` and that convolution's weight gradient.

    ```mlir
    %dx = amp.conv2d_grad_input %dy, %w {padding = array<i64: 1, 1>}
        : tensor<8x16x32x32xf16>, tensor<16x3x3x3xf16> to tensor<8x3x32x32xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$grad, Amp_FloatTensor:$weight,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   OptionalAttr<DenseI64ArrayAttr>:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   OptionalAttr<I64Attr>:$groups,
                   OptionalAttr<Amp_FloatTypeAttr>:$acc_type);
  let assemblyFormat = [{
    $grad `,` $weight attr-dict `:` type($grad) `,` type($weight) `to`
    type($result)
  }];
}

def Amp_Conv2dGradWeightOp : Amp_Conv2dGradOp<"conv2d_grad_weight",
    "gradient of conv2d in its weight (wgrad)"> {
  let description = [{
    For the `input` `[N, C, H, W]` of an `amp.conv2d` with these window
    attributes and the gradient `grad` `[N, O, OH, OW]` of its result, the
    gradient of its weight, the result `[O, C / groups, KH, KW]`: per
    group, `grad` times the input's window columns (`amp.im2col`'s)
    transposed, over every image and position at once, summed in
    `acc_type` (default f32, f64 for f64) and rounded once to the result
    type, the operands'. `amp-decompose` runs it as exactly that.

    ```mlir
    %dw = amp.conv2d_grad_weight %x, %dy {padding = array<i64: 1, 1>}
        : tensor<8x3x32x32xf16>, tensor<8x16x32x32xf16> to tensor<16x3x3x3xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_FloatTensor:$grad,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   OptionalAttr<DenseI64ArrayAttr>:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   OptionalAttr<I64Attr>:$groups,
                   OptionalAttr<Amp_FloatTypeAttr>:$acc_type);
  let assemblyFormat = [{
    $input `,` $grad attr-dict `:` type($input) `,` type($grad) `to`
    type($result)
  }];
}

def Amp_Im2colOp : Amp_WindowOp<"im2col", [Amp_DataFamily, Amp_Follow]> {
  let summary = "each convolution window's values as a column";
  let description = [{
    For `input` `[N, C, H, W]` and a `kernel` `[KH, KW]` window, the result
    `[N, C * KH * KW, OH * OW]` holds at `[n, (c * KH + kh) * KW + kw, y *
    OW + x]` the input value that `amp.conv2d` multiplies by
    `weight[., c, kh, kw]` for output position `(y, x)`, zero in the
    padding. A convolution is then a matrix product of the weight,
    `[O, C * KH * KW]`, with each image's columns, summing in
    `amp.conv2d`'s order.

    ```mlir
    %cols = amp.im2col %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>}
        : tensor<8x3x32x32xf16> to tensor<8x27x1024xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   OptionalAttr<DenseI64ArrayAttr>:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
}

// A sum over each position's windows (up to KH * KW values), not a copy:
// of the reduction family, so that the cost report's minimum counts every
// column it reads.
def Amp_Col2imOp : Amp_WindowOp<"col2im", [Amp_ReductionFamily, Amp_Follow,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "sum of columns back into images (the adjoint of im2col)";
  let description = [{
    For `columns` `[N, C * KH * KW, OH * OW]` laid out as `amp.im2col`'s
    result for a `kernel` `[KH, KW]` window, the result `[N, C, H, W]` holds
    at each position the sum of the column values that `amp.im2col` would
    have read from it, over `kh`, then `kw`, ascending (padding receives
    nothing). The sum is in f32 (f64 for f64 columns) and rounded once to
    the result element type, which may differ from the columns' (f32 in,
    f16 out): the input gradient of a convolution.

    ```mlir
    %dx = amp.col2im %dcols {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>}
        : tensor<8x27x1024xf32> to tensor<8x3x32x32xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$columns, DenseI64ArrayAttr:$kernel,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   OptionalAttr<DenseI64ArrayAttr>:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $columns attr-dict `:` type($columns) `to` type($result)
  }];
}

def Amp_MaxPool2dOp : Amp_WindowOp<"max_pool2d", [Amp_ReductionFamily,
    Amp_Follow,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "largest value of each window of NCHW images";
  let description = [{
    For `input` `[N, C, H, W]` and a `kernel` `[KH, KW]` window (strides
    default to the kernel, as PyTorch's `F.max_pool2d`), the result
    `[N, C, OH, OW]` holds each window's largest value; the padding takes no
    part (it is at most half the window, so every window reads the image).
    The value is PyTorch's: the window is read in (kh, kw) order and a value
    takes the place of the one before where it is larger or NaN
    (`amprt::windowArgmax`), so a NaN in a window gives NaN, and the first of
    equal maxima is the one whose gradient `amp.max_pool2d_grad` passes on.

    ```mlir
    %p = amp.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
                            padding = array<i64: 1, 1>}
        : tensor<8x64x32x32xf16> to tensor<8x64x16x16xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   OptionalAttr<DenseI64ArrayAttr>:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
}

def Amp_AvgPool2dOp : Amp_WindowOp<"avg_pool2d", [Amp_ReductionFamily,
    Amp_Follow, Amp_Decomposed,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "mean of each window of NCHW images";
  let description = [{
    For `input` `[N, C, H, W]` and a `kernel` `[KH, KW]` window (strides
    default to the kernel; the padding at most half the window), the result
    `[N, C, OH, OW]` holds each window's mean over all its `KH * KW`
    positions, the padding's zeros included: PyTorch's `F.avg_pool2d` with
    its default `count_include_pad=True`. The mean is `amp.mean`'s over the
    window's values in (kh, kw) order: summed in f32 (f64 for f64), divided
    by `KH * KW` and rounded once. `amp-decompose` runs it as exactly that,
    an `amp.im2col` and an `amp.mean`.

    ```mlir
    %p = amp.avg_pool2d %x {kernel = array<i64: 2, 2>}
        : tensor<8x64x32x32xf16> to tensor<8x64x16x16xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   OptionalAttr<DenseI64ArrayAttr>:$padding);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
}

def Amp_AdaptiveAvgPool2dOp : Amp_Op<"adaptive_avg_pool2d",
    [Amp_ReductionFamily, Amp_Follow, Amp_Decomposed,
     DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "mean of NCHW images over an output grid's windows";
  let description = [{
    PyTorch's `F.adaptive_avg_pool2d`: for `input` `[N, C, H, W]` and
    `output_size` `[OH, OW]`, output `(i, j)` is the mean of rows
    `floor(i H / OH)` to `ceil((i + 1) H / OH)` (exclusive) and of the
    columns alike. Where the windows tile the image (H and W multiples of
    OH and OW) it is `amp.avg_pool2d` with a `[H / OH, W / OW]` kernel and
    strides, global average pooling at `[1, 1]`. Otherwise the windows
    differ in size and may overlap: each window's rows are summed first,
    then its columns, in f32 (f64 for f64), divided by the window's size
    and rounded once. `amp-decompose` runs it as exactly that.

    ```mlir
    %p = amp.adaptive_avg_pool2d %x output_size = [1, 1]
        : tensor<8x64x8x8xf16> to tensor<8x64x1x1xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input,
                   DenseI64ArrayAttr:$output_size);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input `output_size` `=` $output_size attr-dict `:` type($input) `to`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The first and one past the last input position of window `index`
    /// of `outputs` over `size` positions.
    static std::pair<int64_t, int64_t> getWindowBounds(int64_t size,
                                                       int64_t outputs,
                                                       int64_t index);
    /// The size of each window of an `outputs` ([OH, OW]) grid over
    /// `height` x `width` images, row-major.
    static ::llvm::SmallVector<double> getWindowSizes(
        int64_t height, int64_t width, ::llvm::ArrayRef<int64_t> outputs);
    /// Whether the windows tile the input: amp.avg_pool2d's.
    bool tilesInput();
  }];
}

def Amp_MaxPool2dGradOp : Amp_WindowOp<"max_pool2d_grad", [Amp_GradientFamily,
    Amp_Follow]> {
  let summary = "gradient of max_pool2d: each output's gradient to its maximum";
  let description = [{
    For the `input` of an `amp.max_pool2d` with this window and the gradient
    `grad` of its result, the result (the input's type) holds at each input
    position the sum of the gradients of the windows whose maximum
    (`amprt::windowArgmax`) is that position, over the windows in (kh, kw)
    order, in f32 (f64 for f64), rounded once.

    ```mlir
    %dx = amp.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>}
        : tensor<8x64x32x32xf16>, tensor<8x64x16x16xf16> to tensor<8x64x32x32xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_FloatTensor:$grad,
                   DenseI64ArrayAttr:$kernel,
                   OptionalAttr<DenseI64ArrayAttr>:$strides,
                   OptionalAttr<DenseI64ArrayAttr>:$padding,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $grad attr-dict `:` type($input) `,` type($grad) `to`
    type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

def Amp_EmbeddingOp : Amp_Op<"embedding", [Amp_DataFamily, Amp_Follow,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<Amp_IndexReaderOpInterface>]> {
  let summary = "gather rows of a table by integer ids";
  let description = [{
    For a table `[V, D]` and ids of shape `S`, the result has shape `S x D`
    and holds row `ids[s]` at position `s`. Ids outside `[0, V)` are an error
    at run time.

    ```mlir
    %e = amp.embedding %wte[%tokens] : tensor<96x64xf32>, tensor<2x16xi64>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$table, Amp_IndexTensor:$indices);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict `:` type($table) `,` type($indices)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Random
//===----------------------------------------------------------------------===//

def Amp_DropoutOp : Amp_Op<"dropout", [Amp_ElementwiseFamily,
    Amp_FusibleElementwise, Amp_Follow, AllTypesMatch<["input", "result"]>,
    Amp_ElementCost]> {
  let summary = "inverted dropout with a counter-based mask";
  let description = [{
    In `training` mode, zeroes each element with probability `p` and scales
    the others by `1 / (1 - p)`, as PyTorch's `F.dropout` (`x * mask *
    scale`: a dropped inf or NaN is NaN); the identity otherwise.

    The mask is Philox4x32-10's (amp_runtime/random.h), a pure function of
    the generator state `rng` ([seed, pass]), the op's `stream` and the
    element's position, so every target draws the same mask and the
    backward pass draws it again instead of storing it: the gradient of a
    dropout is a dropout of the gradient with the same operands. Each
    dropout of a model needs its own `stream`; the step advances `pass`
    after each forward pass, so that every step draws new masks.

    ```mlir
    %h = amp.dropout %x, %rng p = 0.1 stream = 0 training
        : tensor<16x64xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_RngState:$rng, F64Attr:$p,
                   I64Attr:$stream, UnitAttr:$training);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $rng `p` `=` $p `stream` `=` $stream (`training` $training^)?
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def Amp_RngAdvanceOp : Amp_Op<"rng_advance", [Amp_DataFamily,
    Amp_FusibleElementwise, AllTypesMatch<["rng", "result"]>, Amp_ElementCost],
    /*hasPrecisionCategory=*/0> {
  let summary = "a random generator's state after one forward pass";
  let description = [{
    `[seed, pass + 1]` for `rng = [seed, pass]`: the state the next
    forward pass of a step draws its dropout masks from.
    amp-optimizer advances the model's `{amp.rng}` argument with it.

    ```mlir
    %next = amp.rng_advance %rng : tensor<2xi64>
    ```
  }];
  let arguments = (ins Amp_RngState:$rng);
  let results = (outs Amp_RngState:$result);
  let assemblyFormat = "$rng attr-dict `:` type($rng)";
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

class Amp_LossOp<string mnemonic, list<Trait> traits = []>
    : Amp_Op<mnemonic, !listconcat(traits, [Amp_LossFamily, Amp_KeepFp32,
        DeclareOpInterfaceMethods<Amp_FlopCountOpInterface,
                                  ["getForwardFlops"]>])> {
  let hasVerifier = 1;
}

def Amp_CrossEntropyOp : Amp_LossOp<"cross_entropy",
    [DeclareOpInterfaceMethods<Amp_IndexReaderOpInterface,
                               ["getIgnoredIndex"]>]> {
  let summary = "softmax cross-entropy of logits against integer labels";
  let description = [{
    For logits `[..., C]` and labels of the leading shape, each sample's loss
    is `logsumexp(logits) - logits[label]`; `reduction` (`mean`, the default,
    or `sum`) combines them into a 0-d result. The loss is computed in f32
    (f64 for f64 logits) and rounded once to the result element type, which
    may differ from the logits' (f16 logits, f32 loss).

    With `ignore_index`, as PyTorch's `F.cross_entropy`, a sample whose
    label equals it contributes neither loss nor gradient, and the mean is
    over the other samples. Where every sample is ignored, the mean is 0 (and
    so is its gradient) where PyTorch gives NaN: a batch of padding only
    leaves the parameters as they are. Any other label outside `[0, C)` is
    an error.

    ```mlir
    %loss = amp.cross_entropy %logits, %y
        : tensor<64x10xf32>, tensor<64xi64> to tensor<f32>
    %total = amp.cross_entropy %logits, %y reduction = sum
        : tensor<64x10xf32>, tensor<64xi64> to tensor<f32>
    %padded = amp.cross_entropy %logits, %y ignore_index = -100
        : tensor<64x10xf32>, tensor<64xi64> to tensor<f32>
    ```

    Canonicalization reads f16 or bf16 logits directly where they were
    widened to f32 for the op: it computes in f32 either way, so the f32
    copy changes no value.
  }];
  let arguments = (ins Amp_FloatTensor:$logits, Amp_IndexTensor:$labels,
                   DefaultValuedAttr<Amp_LossReduction,
                       "::mlir::amp::LossReduction::mean">:$reduction,
                   OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels (`reduction` `=` $reduction^)?
    (`ignore_index` `=` $ignore_index^)? attr-dict `:`
    type($logits) `,` type($labels) `to` type($result)
  }];
  let hasCanonicalizer = 1;
}

def Amp_MseLossOp : Amp_LossOp<"mse_loss"> {
  let summary = "mean (or summed) squared error";
  let description = [{
    `reduction((input - target)^2)` over every element, a 0-d result,
    computed in f32 (f64 for f64 input) and rounded once to the result
    element type, which may differ from the input's.

    ```mlir
    %loss = amp.mse_loss %pred, %target
        : tensor<64x1xf32>, tensor<64x1xf32> to tensor<f32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_FloatTensor:$target,
                   DefaultValuedAttr<Amp_LossReduction,
                       "::mlir::amp::LossReduction::mean">:$reduction);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $target (`reduction` `=` $reduction^)? attr-dict `:`
    type($input) `,` type($target) `to` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Gradients
//===----------------------------------------------------------------------===//

// The vector-Jacobian products that would take many primitive ops, as one op
// each, so that backward passes stay short and map onto fused kernels.
// amp-autodiff emits them; they compute like their forward op (f32 for f16,
// bf16 and f32 operands, f64 for f64) and take its precision category.
class Amp_GradientOp<string mnemonic, list<Trait> traits = []>
    : Amp_Op<mnemonic, !listconcat(traits, [Amp_GradientFamily])>;

def Amp_ReluGradOp : Amp_GradientOp<"relu_grad",
    [SameOperandsAndResultType, Amp_Follow, Amp_FusibleElementwise]> {
  let summary = "gradient of relu: dy where x > 0, else 0";
  let description = [{
    ```mlir
    %dx = amp.relu_grad %x, %dy : tensor<64x256xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_FloatTensor:$grad);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "$input `,` $grad attr-dict `:` type($input)";
}

def Amp_GeluGradOp : Amp_GradientOp<"gelu_grad",
    [SameOperandsAndResultType, Amp_Follow, Amp_FusibleElementwise,
     Amp_ElementCost]> {
  let summary = "gradient of gelu: dy * gelu'(x)";
  let description = [{
    The derivative of the `approximate` form of `amp.gelu` at `x`, times
    `dy`.

    ```mlir
    %dx = amp.gelu_grad %x, %dy approximate = tanh : tensor<8x256xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_FloatTensor:$grad,
                   DefaultValuedAttr<Amp_GeluApproximation,
                       "::mlir::amp::GeluApproximation::erf">:$approximate);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $grad (`approximate` `=` $approximate^)? attr-dict `:`
    type($input)
  }];
}

def Amp_AttentionGradOp : Amp_GradientOp<"attention_grad", [
    Amp_LowerPrecision, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Amp_PrecisionOpInterface,
                              ["isPrecisionOperand"]>]> {
  let summary = "gradients of amp.attention from its output and log-sum-exp";
  let description = [{
    The gradients of `query`, `key` and `value` of an `amp.attention` with
    the same `causal` and `scale`, given its `output`, its `lse` (from
    `with_lse`) and the output's gradient `grad`. Each query's
    probabilities are recomputed from its scores and `lse`,
    `p = exp(scale * q.k - lse)`, so no `[B, H, T, S]` tensor exists:
    `dv += p * grad`, `ds = p * (grad.v - sum(grad * output)) * scale`,
    `dq += ds * k` and `dk += ds * q`, over the queries in ascending order
    and, for each, its visible keys in ascending order. The sums are f32
    (f64 for f64 operands); each gradient is rounded once to the operands'
    element type, as PyTorch's and cuDNN's attention backward return them.

    ```mlir
    %dq, %dk, %dv = amp.attention_grad %q, %k, %v, %o, %lse, %do causal
        : tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>,
          tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x16xf32>,
          tensor<2x4x16x16xf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$query, Amp_FloatTensor:$key,
                   Amp_FloatTensor:$value, Amp_FloatTensor:$output,
                   Amp_FloatTensor:$lse, Amp_FloatTensor:$grad,
                   UnitAttr:$causal, OptionalAttr<F64Attr>:$scale);
  let results = (outs Amp_FloatTensor:$query_grad,
                 Amp_FloatTensor:$key_grad, Amp_FloatTensor:$value_grad);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $output `,` $lse `,` $grad
    (`causal` $causal^)? attr-dict `:` type($query) `,` type($key) `,`
    type($value) `,` type($output) `,` type($lse) `,` type($grad)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `scale` when set, else 1 / sqrt(head dim).
    double getScaleOrDefault();
  }];
}

class Amp_SoftmaxGradLikeOp<string mnemonic, string formula>
    : Amp_GradientOp<mnemonic, [SameOperandsAndResultType, Amp_KeepFp32,
                                Amp_RowKernel, Amp_OperandsInLoads]> {
  let summary = "gradient of " # !subst("_grad", "", mnemonic) #
                " from its output";
  let description = [{
    Takes the forward result `y` and the gradient `dy` and returns
    `}] # formula # [{` along `dim`.

    ```mlir
    %dx = amp.}] # mnemonic # [{ %y, %dy dim = 1 : tensor<64x10xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$output, Amp_FloatTensor:$grad,
                   I64Attr:$dim);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $output `,` $grad `dim` `=` $dim attr-dict `:` type($output)
  }];
  let hasVerifier = 1;
}

def Amp_SoftmaxGradOp
    : Amp_SoftmaxGradLikeOp<"softmax_grad", "y * (dy - sum(dy * y))">;
def Amp_LogSoftmaxGradOp
    : Amp_SoftmaxGradLikeOp<"log_softmax_grad", "dy - exp(y) * sum(dy)">;

class Amp_NormGradOp<string mnemonic, string forward>
    : Amp_GradientOp<mnemonic, [SameOperandsAndResultType, Amp_KeepFp32,
                                Amp_RowKernel, Amp_OperandsInLoads]> {
  let summary = "input gradient of " # forward # " without its weight";
  let description = [{
    The gradient with respect to `x` of `}] # forward # [{ x` without affine
    parameters, given the gradient `g` of its output (for an affine norm,
    `g = dy * weight`): with `x̂` the normalised input and `r` the
    normaliser, `(g - mean(g) - x̂ mean(g x̂)) / r` for layer_norm and
    `(g - x̂ mean(g x̂)) / r` for rms_norm, over the trailing dimensions from
    `axis` on.

    ```mlir
    %dx = amp.}] # mnemonic # [{ %x, %g {epsilon = 1.0e-05} : tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_FloatTensor:$grad,
                   OptionalAttr<I64Attr>:$axis, F64Attr:$epsilon);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "$input `,` $grad attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// First normalised dimension: `axis` when set, else rank - 1.
    int64_t getNormalizedAxis();
  }];
}

def Amp_LayerNormGradOp : Amp_NormGradOp<"layer_norm_grad", "layer_norm">;
def Amp_RmsNormGradOp : Amp_NormGradOp<"rms_norm_grad", "rms_norm">;

def Amp_BatchNormGradOp : Amp_GradientOp<"batch_norm_grad",
    [Amp_KeepFp32, Amp_Decomposed,
     AllTypesMatch<["input", "grad", "input_grad"]>,
     AllTypesMatch<["running_mean", "running_var"]>]> {
  let summary = "gradients of batch_norm: its input, scale and bias";
  let description = [{
    For the input `x` of an `amp.batch_norm` with these `epsilon` and
    `training` and the gradient `grad` of its result, computed in the
    statistics' type A as the forward computes: with `mean` and `var` the
    batch's (training, recomputed from `x` as the forward does) or the
    running ones (evaluation), `r = sqrt(var + epsilon)`, `x̂ = (x - mean) /
    r` and `g = grad * scale` (`grad` without a scale), per channel:

    - `input_grad = (g - mean(g) - x̂ * mean(g * x̂)) / r` when training,
      `g / r` otherwise, rounded once to the input's type;
    - `scale_grad = sum(grad * x̂)` and `bias_grad = sum(grad)`, over the
      batch (and the positions of images), each rounded to its result's
      type (the parameter's).

    `amp-decompose` runs it as exactly these steps, each an amp op
    rounding to A, and builds the parameter gradients only where they are
    used.

    ```mlir
    %dx, %dscale, %dbias = amp.batch_norm_grad %x, %dy
        running(%rm, %rv : tensor<16xf32>) scale(%g : tensor<16xf32>)
        {epsilon = 1.0e-05, training}
        : tensor<8x16x4x4xf16> -> tensor<16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_FloatTensor:$grad,
                   Amp_FloatTensor:$running_mean,
                   Amp_FloatTensor:$running_var,
                   Optional<Amp_FloatTensor>:$weight,
                   DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                   UnitAttr:$training);
  let results = (outs Amp_FloatTensor:$input_grad,
                 Amp_FloatTensor:$scale_grad, Amp_FloatTensor:$bias_grad);
  let assemblyFormat = [{
    $input `,` $grad `running` `(` $running_mean `,` $running_var `:`
    type($running_mean) `)` (`scale` `(` $weight^ `:` type($weight) `)`)?
    attr-dict `:` type($input) `->` type($scale_grad) `,` type($bias_grad)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The dimensions each channel's statistics reduce: 0, and 2 and 3 for
    /// images.
    ::llvm::SmallVector<int64_t, 3> getReducedDims();
    /// The values each channel's statistics reduce (N, or N * H * W).
    int64_t getValuesPerChannel();
  }];
}

def Amp_CrossEntropyGradOp : Amp_GradientOp<"cross_entropy_grad",
    [Amp_KeepFp32, Amp_RowKernel, AllTypesMatch<["logits", "result"]>,
     DeclareOpInterfaceMethods<Amp_IndexReaderOpInterface,
                               ["getIgnoredIndex"]>]> {
  let summary = "gradient of cross_entropy with respect to the logits";
  let description = [{
    `(softmax(logits) - onehot(labels)) * dloss`, divided by the number of
    samples for `reduction = mean`, without materialising the probabilities
    elsewhere. `dloss` is the 0-d gradient of the loss. With `ignore_index`,
    rows whose label equals it are zero and the mean counts the other rows
    (at least one), as for `amp.cross_entropy`.

    ```mlir
    %dlogits = amp.cross_entropy_grad %logits, %y, %dloss
        : tensor<64x10xf32>, tensor<64xi64>, tensor<f32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$logits, Amp_IndexTensor:$labels,
                   Amp_FloatTensor:$grad,
                   DefaultValuedAttr<Amp_LossReduction,
                       "::mlir::amp::LossReduction::mean">:$reduction,
                   OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $labels `,` $grad (`reduction` `=` $reduction^)?
    (`ignore_index` `=` $ignore_index^)? attr-dict
    `:` type($logits) `,` type($labels) `,` type($grad)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether this is the gradient of `loss`: over the same logits and
    /// labels, with the same ignore_index.
    bool isGradientOf(CrossEntropyOp loss);
  }];
}

def Amp_EmbeddingGradOp : Amp_GradientOp<"embedding_grad",
    [Amp_Follow, DeclareOpInterfaceMethods<Amp_IndexReaderOpInterface>]> {
  let summary = "gradient of embedding: scatter-add rows into the table";
  let description = [{
    For ids of shape `S` and a gradient `S x D`, the result `[V, D]` holds
    in row `v` the sum of the gradient rows whose id is `v` (zero rows for
    ids never used), summed in ascending position order.

    ```mlir
    %dtable = amp.embedding_grad %tokens, %de
        : tensor<2x16xi64>, tensor<2x16x64xf32> to tensor<96x64xf32>
    ```
  }];
  let arguments = (ins Amp_IndexTensor:$indices, Amp_FloatTensor:$grad);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $indices `,` $grad attr-dict `:` type($indices) `,` type($grad) `to`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

// Fused parameter updates on fp32 master weights, as torch.optim computes
// them. `step` is the number of updates done before this one (a 0-d float
// tensor, as PyTorch keeps it; exact up to 2^24). Operands: the parameter,
// its gradient, its optimizer state (one tensor per result after the first,
// in result order), the step count where the optimizer reads one, then the
// hyperparameters, 0-d f64 tensors read when the update runs (so a step
// can change them without recompiling); each op says which in
// OptimizerUpdateOpInterface. A hyperparameter that is a constant is
// checked here; one that is not is checked by whoever sets it (the
// interpreter when it runs the op, the runtime when a value is set).
class Amp_OptimizerOp<string mnemonic, list<Trait> traits = []>
    : Amp_Op<mnemonic, !listconcat(traits, [Amp_OptimizerFamily,
        Amp_KeepFp32, Amp_InPlaceUpdate,
        DeclareOpInterfaceMethods<Amp_OptimizerUpdateOpInterface>])> {
  let hasVerifier = 1;
}

def Amp_SgdUpdateOp : Amp_OptimizerOp<"sgd_update",
    [AllTypesMatch<["param", "grad", "result"]>]> {
  let summary = "plain SGD step: p - lr * (g + weight_decay * p)";
  let description = [{
    ```mlir
    %p2 = amp.sgd_update %p, %g lr(%lr) weight_decay(%wd) : tensor<256xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$param, Amp_FloatTensor:$grad,
                   Amp_HyperParameter:$lr, Amp_HyperParameter:$weight_decay);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $param `,` $grad `lr` `(` $lr `)` `weight_decay` `(` $weight_decay `)`
    attr-dict `:` type($param)
  }];
  let extraClassDefinition = [{
    ::mlir::OperandRange $cppClass::getStateOperands() {
      return getOperation()->getOperands().slice(2, 0);
    }
    ::mlir::Value $cppClass::getStepOperand() { return {}; }
    ::mlir::OperandRange $cppClass::getHyperParameterOperands() {
      return getOperation()->getOperands().slice(
          getLrMutable().getOperandNumber(), 2);
    }
  }];
}

def Amp_SgdMomentumUpdateOp : Amp_OptimizerOp<"sgd_momentum_update",
    [AllTypesMatch<["param", "grad", "buffer", "new_param", "new_buffer"]>]> {
  let summary = "SGD step with momentum, as torch.optim.SGD";
  let description = [{
    With `d = g + weight_decay * p`: on the first step (`step == 0`) the
    buffer becomes `d`, after that `momentum * buf + (1 - dampening) * d`;
    the update direction is `d + momentum * buf` with `nesterov`, else
    `buf`; `p - lr * direction`. Dampening and Nesterov's look-ahead are
    fixed when the step is compiled.

    ```mlir
    %p2, %b2 = amp.sgd_momentum_update %p, %g, %buf, %step lr(%lr)
        momentum(%mu) weight_decay(%wd) {dampening = 0.0 : f64}
        : tensor<256xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$param, Amp_FloatTensor:$grad,
                   Amp_FloatTensor:$buffer, Amp_FloatTensor:$step,
                   Amp_HyperParameter:$lr, Amp_HyperParameter:$momentum,
                   Amp_HyperParameter:$weight_decay, F64Attr:$dampening,
                   UnitAttr:$nesterov);
  let results = (outs Amp_FloatTensor:$new_param,
                 Amp_FloatTensor:$new_buffer);
  let assemblyFormat = [{
    $param `,` $grad `,` $buffer `,` $step `lr` `(` $lr `)` `momentum` `(`
    $momentum `)` `weight_decay` `(` $weight_decay `)` attr-dict `:`
    type($param) `,` type($step)
  }];
  let extraClassDefinition = [{
    ::mlir::OperandRange $cppClass::getStateOperands() {
      return getOperation()->getOperands().slice(
          getBufferMutable().getOperandNumber(), 1);
    }
    ::mlir::Value $cppClass::getStepOperand() { return getStep(); }
    ::mlir::OperandRange $cppClass::getHyperParameterOperands() {
      return getOperation()->getOperands().slice(
          getLrMutable().getOperandNumber(), 3);
    }
  }];
}

def Amp_AdamwUpdateOp : Amp_OptimizerOp<"adamw_update",
    [AllTypesMatch<["param", "grad", "exp_avg", "exp_avg_sq", "new_param",
                    "new_exp_avg", "new_exp_avg_sq"]>]> {
  let summary = "AdamW step, as torch.optim.AdamW, or Adam's";
  let description = [{
    With `t = step + 1`: `p *= 1 - lr * weight_decay`;
    `m = beta1 m + (1 - beta1) g`; `v = beta2 v + (1 - beta2) g^2`;
    `p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)`.
    With `coupled_decay`, torch.optim.Adam's step: the weight decay joins
    the gradient instead (`g += weight_decay * p`, where it is not 0) and
    `p` is not scaled. Which of the two is fixed when the step is compiled.

    ```mlir
    %p2, %m2, %v2 = amp.adamw_update %p, %g, %m, %v, %step lr(%lr)
        betas(%beta1, %beta2) eps(%eps) weight_decay(%wd)
        : tensor<256xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$param, Amp_FloatTensor:$grad,
                   Amp_FloatTensor:$exp_avg, Amp_FloatTensor:$exp_avg_sq,
                   Amp_FloatTensor:$step, Amp_HyperParameter:$lr,
                   Amp_HyperParameter:$beta1, Amp_HyperParameter:$beta2,
                   Amp_HyperParameter:$eps, Amp_HyperParameter:$weight_decay,
                   UnitAttr:$coupled_decay);
  let results = (outs Amp_FloatTensor:$new_param,
                 Amp_FloatTensor:$new_exp_avg,
                 Amp_FloatTensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $step `lr` `(` $lr `)`
    `betas` `(` $beta1 `,` $beta2 `)` `eps` `(` $eps `)` `weight_decay` `(`
    $weight_decay `)` attr-dict `:` type($param) `,` type($step)
  }];
  let extraClassDefinition = [{
    ::mlir::OperandRange $cppClass::getStateOperands() {
      return getOperation()->getOperands().slice(
          getExpAvgMutable().getOperandNumber(), 2);
    }
    ::mlir::Value $cppClass::getStepOperand() { return getStep(); }
    ::mlir::OperandRange $cppClass::getHyperParameterOperands() {
      return getOperation()->getOperands().slice(
          getLrMutable().getOperandNumber(), 5);
    }
  }];
}

def Amp_LrScheduleOp : Amp_Op<"lr_schedule",
    [Amp_OptimizerFamily, Amp_KeepFp32]> {
  let summary = "the learning rate of an update, from a schedule";
  let description = [{
    The rate of the update that follows `step` earlier ones, from the base
    rate `lr`, as torch.optim.lr_scheduler computes it in f64
    (amprt::scheduledRate in amp_runtime/scalar_math.h, which the
    interpreter and the generated code both call). The parameters follow
    the step count, by kind: `linear_warmup` (warmup steps, start factor),
    `cosine` (decay steps, floor), `step` (step size, gamma),
    `warmup_cosine` (warmup steps, start factor, decay steps, floor). Each
    is a hyperparameter: a constant is checked here, a value set at run
    time where it is set.

    ```mlir
    %rate = amp.lr_schedule warmup_cosine %lr, %step
        (%warmup, %start, %decay, %floor) : tensor<f32>
    ```
  }];
  let arguments = (ins Amp_LrScheduleKind:$kind, Amp_HyperParameter:$lr,
                   Amp_FloatTensor:$step,
                   Variadic<Amp_HyperParameter>:$params);
  let results = (outs Amp_HyperParameter:$result);
  let assemblyFormat = [{
    $kind $lr `,` $step `(` $params `)` attr-dict `:` type($step)
  }];
  let extraClassDeclaration = [{
    /// The names of the parameters `kind` takes, in operand order (the
    /// names of the hyperparameters amp-optimizer gives them).
    static ::llvm::ArrayRef<::llvm::StringLiteral>
    getParamNames(LrScheduleKind kind);
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

def Amp_UnscaleOp : Amp_Op<"unscale", [Amp_OptimizerFamily, Amp_KeepFp32,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<Amp_TiedOperandOpInterface>]> {
  let summary = "multi-tensor gradient unscale with an inf/NaN check";
  let description = [{
    Multiplies every gradient by `inv_scale` and returns the products and
    `found_inf`: 1.0 when any input element is inf or NaN, else 0.0, as
    PyTorch's `_amp_foreach_non_finite_check_and_unscale_` (one pass over
    all gradients, a shared flag). Gradients must be f32: unscaling fp16
    gradients would lose what the scale protected.

    ```mlir
    %g1, %g2, %found = amp.unscale %inv, %d1, %d2
        : tensor<f32>, tensor<784x256xf32>, tensor<256xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$inv_scale,
                   Variadic<Amp_FloatTensor>:$grads);
  let results = (outs Variadic<Amp_FloatTensor>:$unscaled,
                 Amp_FloatTensor:$found_inf);
  let assemblyFormat = [{
    $inv_scale `,` $grads attr-dict `:` type($inv_scale) `,` type($grads)
  }];
  let hasVerifier = 1;
}

def Amp_ScalerUpdateOp : Amp_Op<"scaler_update",
    [Amp_OptimizerFamily, Amp_KeepFp32, Amp_InPlaceUpdate,
     AllTypesMatch<["scale", "growth_tracker", "hysteresis_tracker",
                    "found_inf", "new_scale", "new_growth_tracker",
                    "new_hysteresis_tracker"]>]> {
  let summary = "dynamic loss-scale update, on the device";
  let description = [{
    GradScaler's update, with optional clamps and Megatron-LM's hysteresis
    (all state 0-d f32 tensors). On overflow (`found_inf` non-zero) the
    growth tracker resets and the hysteresis tracker drops by one; once it
    is at or below zero, the scale is multiplied by `backoff_factor` (on
    this and every further overflow). Otherwise the growth tracker counts
    up; at `growth_interval` it resets, the hysteresis tracker refills to
    `hysteresis`, and the scale is multiplied by `growth_factor` if the
    result is finite. The scale is then clamped to [`min_scale`,
    `max_scale`]. With `hysteresis = 1` and no clamps this is exactly
    torch.amp.GradScaler.update.

    ```mlir
    %s, %g, %h = amp.scaler_update %scale, %growth, %hyst, %found
        {growth_factor = 2.0, backoff_factor = 0.5, growth_interval = 2000,
         hysteresis = 1} : tensor<f32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$scale, Amp_FloatTensor:$growth_tracker,
                   Amp_FloatTensor:$hysteresis_tracker,
                   Amp_FloatTensor:$found_inf, F64Attr:$growth_factor,
                   F64Attr:$backoff_factor, I64Attr:$growth_interval,
                   I64Attr:$hysteresis, OptionalAttr<F64Attr>:$min_scale,
                   OptionalAttr<F64Attr>:$max_scale);
  let results = (outs Amp_FloatTensor:$new_scale,
                 Amp_FloatTensor:$new_growth_tracker,
                 Amp_FloatTensor:$new_hysteresis_tracker);
  let assemblyFormat = [{
    $scale `,` $growth_tracker `,` $hysteresis_tracker `,` $found_inf attr-dict
    `:` type($scale)
  }];
  let hasVerifier = 1;
}

def Amp_Fp8AmaxOp : Amp_Op<"fp8_amax", [Amp_ReductionFamily, Amp_KeepFp32,
    DeclareOpInterfaceMethods<InferTypeOpInterface>,
    DeclareOpInterfaceMethods<Amp_FlopCountOpInterface, ["getForwardFlops"]>]> {
  let summary = "the largest magnitude of a tensor, for FP8 scaling";
  let description = [{
    The largest `|x|` over every element of `input`, as a 0-d f32 tensor:
    0 for an empty or all-zero input, NaN when any element is NaN (a max is
    the same in any order, so every backend gives the same value). Delayed
    FP8 scaling records it in its amax history (`amp.fp8_scaling_update`).

    ```mlir
    %a = amp.fp8_amax %x : tensor<64x768xbf16>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Amp_Fp8CastOp : Amp_Op<"fp8_cast", [Amp_DataFamily]> {
  let summary = "a tensor cast to FP8 at a given scale, in both layouts";
  let description = [{
    `input` (f16, bf16 or f32, rank 2 or more) multiplied by
    `scales[fp8_scale_index]` in f32, saturated to the format's largest
    value and rounded to `format` (nearest even): `data`, of `input`'s
    shape, and `transposed`, the same values with the last two dimensions
    swapped; and `amax`, `input`'s largest magnitude (as `amp.fp8_amax`).
    An FP8 GEMM reads its operands K-major: the weight gradient reads the
    transposes of what the forward and input-gradient GEMMs read, so one
    cast writes both (Transformer Engine's cast-transpose), and a layout
    no GEMM reads is not written.

    ```mlir
    %q, %qt, %amax = amp.fp8_cast %x, %s {fp8_scale_index = 0 : i64,
        format = f8E4M3FN} : tensor<64x768xbf16>, tensor<3xf32>
        to tensor<64x768xf8E4M3FN>, tensor<768x64xf8E4M3FN>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input, Amp_FloatTensor:$scales,
                   I64Attr:$fp8_scale_index, Amp_Fp8TypeAttr:$format);
  let results = (outs Amp_Fp8Tensor:$data, Amp_Fp8Tensor:$transposed,
                 Amp_F32Scalar:$amax);
  let assemblyFormat = [{
    $input `,` $scales attr-dict `:` type($input) `,` type($scales) `to`
    type($data) `,` type($transposed)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$scales,
                   "int64_t":$index, "::mlir::FloatType":$format)>
  ];
  let hasVerifier = 1;
}

def Amp_Fp8ScalingUpdateOp : Amp_Op<"fp8_scaling_update",
    [Amp_OptimizerFamily, Amp_KeepFp32, Amp_InPlaceUpdate,
     AllTypesMatch<["scale", "overflows", "new_scale", "new_overflows"]>,
     AllTypesMatch<["amax_history", "new_amax_history"]>]> {
  let summary = "delayed FP8 scaling: the amax history and scales, updated";
  let description = [{
    Transformer Engine's `DelayedScaling` update, for `C` scaled tensors
    (columns): `scale` and `overflows` are `tensor<Cxf32>`, `amax_history`
    `tensor<HxCxf32>` (row 0 this step's, kept 0 between steps), one `amax`
    (0-d f32) per column, `formats` each column's FP8 type. Per column `c`:

    1. `overflows[c]` counts up by one when this step's cast overflowed:
       `!(amax[c] * scale[c] <= max)` in f32 (`max` the format's largest
       value; a NaN amax counts), the values beyond saturated.
    2. Row 0 takes `amax[c]`; the amax used is the history's maximum (the
       maxima of the non-NaN entries, from 0) or, `most_recent`, `amax[c]`.
    3. The history rolls: row `i` takes row `i + 1`'s value, row `H - 1`
       row 0's, and row 0 becomes 0.
    4. `scale[c] = f32(max * 2^-margin) / amax_used` in f32 when that amax
       is finite and positive; else the scale is kept.

    The step keeps the old values on a skipped step (the state is buffers).

    ```mlir
    %s, %h, %o = amp.fp8_scaling_update %scale, %history, %overflows,
        amax(%ax, %aw, %ag : tensor<f32>, tensor<f32>, tensor<f32>)
        {formats = [f8E4M3FN, f8E4M3FN, f8E5M2], margin = 0.0}
        : tensor<3xf32>, tensor<16x3xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$scale, Amp_FloatTensor:$amax_history,
                   Amp_FloatTensor:$overflows, Variadic<Amp_FloatTensor>:$amax,
                   TypeArrayAttr:$formats, F64Attr:$margin,
                   UnitAttr:$most_recent);
  let results = (outs Amp_FloatTensor:$new_scale,
                 Amp_FloatTensor:$new_amax_history,
                 Amp_FloatTensor:$new_overflows);
  let assemblyFormat = [{
    $scale `,` $amax_history `,` $overflows `,` `amax` `(` $amax `:`
    type($amax) `)` attr-dict `:` type($scale) `,` type($amax_history)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data parallelism
//===----------------------------------------------------------------------===//

def Amp_AllReduceOp : Amp_Op<"all_reduce", [AttrSizedOperandSegments,
    Amp_OptimizerFamily, Amp_KeepFp32, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Amp_TiedOperandOpInterface>]> {
  let summary = "sums or maxima over the replicas of a data-parallel step";
  let description = [{
    Each result is the elementwise sum (or maximum) of its input over every
    replica of the step: the processes of a data-parallel job, each of which
    runs the same step on its own part of the batch. The sum adds the
    replicas' values in rank order in f32, so that every replica gets the
    same bits (amp_runtime/comm.h); a maximum is NaN where any replica's
    value is. One op is one collective over all its inputs: a bucket, as
    PyTorch's DistributedDataParallel groups gradients. With `when` (a 0-d
    i1 tensor, equal on every replica), the op reduces only where it holds
    and otherwise returns its inputs: gradient accumulation reduces once
    per update. A single process is one replica, whose results are its
    inputs.

    ```mlir
    %g1, %g2 = amp.all_reduce sum %d1, %d2 when %done
        : tensor<784x256xf32>, tensor<256xf32>
    ```
  }];
  let arguments = (ins Amp_AllReduceKind:$kind,
                   Variadic<Amp_FloatTensor>:$inputs,
                   Optional<Amp_Condition>:$when);
  let results = (outs Variadic<Amp_FloatTensor>:$results);
  let assemblyFormat = [{
    $kind $inputs (`when` $when^)? attr-dict `:` type($inputs)
  }];
  let hasVerifier = 1;
}

def Amp_ReplicaCountOp : Amp_Op<"replica_count", [Amp_DataFamily,
    Amp_KeepFp32]> {
  let summary = "the number of replicas of a data-parallel step";
  let description = [{
    The number of processes that run the step together, as a 0-d f32
    tensor: 1 in a single process. amp-optimizer divides the replicas'
    summed gradients by it.

    ```mlir
    %n = amp.replica_count : tensor<f32>
    ```
  }];
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Amp_ReplicaShardOp : Amp_Op<"replica_shard", [Amp_DataFamily,
    Amp_Follow]> {
  let summary = "this replica's part of a tensor, for a sharded optimizer";
  let description = [{
    The tensor flattened in row-major order, cut into `replicas` parts of
    ceil(numel / replicas) elements each (the last padded with zeros), and
    the part of the replica that runs the op: replica r gets elements
    [r * size, (r + 1) * size). amp-optimizer{zero-stage=1} updates a
    parameter's part only, with its part of the gradient and of the
    optimizer's moments (ZeRO stage 1). A step with this op runs on exactly
    `replicas` replicas; a single process is replica 0 of 1.

    ```mlir
    %part = amp.replica_shard %grad {replicas = 2}
        : tensor<784x256xf32> -> tensor<100352xf32>
    ```
  }];
  let arguments = (ins Amp_FloatTensor:$input,
                   ConfinedAttr<I64Attr, [IntPositive]>:$replicas);
  let results = (outs Amp_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The elements of each replica's part of `count` elements over
    /// `replicas`: ceil(count / replicas).
    static int64_t getPartSize(int64_t count, int64_t replicas) {
      return count / replicas + (count % replicas != 0);
    }
  }];
}

// In place: where it does not gather, each result is its prior, element
// for element, so the plan may store the results over the priors (the
// step's weights).
def Amp_AllGatherOp : Amp_Op<"all_gather", [AttrSizedOperandSegments,
    Amp_OptimizerFamily, Amp_Follow, Amp_InPlaceUpdate]> {
  let summary = "tensors put together from every replica's part";
  let description = [{
    The inverse of amp.replica_shard over the replicas of a step: each
    result is the parts its input holds on replicas 0, 1, ... in order,
    the padding dropped, in the result's shape. One op is one collective
    over all its inputs (a bucket). amp-optimizer{zero-stage=1} gathers the
    updated parameters this way, in the precision the forward pass reads
    them in: the low-precision copies of those autocast reads only in
    f16 or bf16. With `when` (a 0-d i1, equal on every replica), the op
    gathers only where it holds and otherwise returns `priors`, one whole
    per input: with gradient accumulation the weights change, and are
    gathered, once per update.

    ```mlir
    %w, %b = amp.all_gather %w_part, %b_part {replicas = 2}
        : tensor<6xf16>, tensor<2xf32> -> tensor<4x3xf16>, tensor<3xf32>
    %w2 = amp.all_gather %w_part else %w(tensor<4x3xf16>) when %done
        {replicas = 2} : tensor<6xf16> -> tensor<4x3xf16>
    ```
  }];
  let arguments = (ins Variadic<Amp_FloatTensor>:$inputs,
                   Variadic<Amp_FloatTensor>:$priors,
                   Optional<Amp_Condition>:$when,
                   ConfinedAttr<I64Attr, [IntPositive]>:$replicas);
  let results = (outs Variadic<Amp_FloatTensor>:$results);
  let assemblyFormat = [{
    $inputs (`else` $priors^ `(` type($priors) `)`)? (`when` $when^)?
    attr-dict `:` type($inputs) `->` type($results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Kernels: the backend's fusion groups
//===----------------------------------------------------------------------===//

def Amp_FusionOp : Op<Amp_Dialect, "fusion",
    [IsolatedFromAbove, RecursiveMemoryEffects]> {
  let summary = "ops that run as one kernel";
  let description = [{
    A group of ops that the backend runs as one kernel, outlined by
    `--amp-fuse`: an elementwise chain, a GEMM with its relu epilogue, a
    reduction or row op with the elementwise ops it computes as it loads
    and stores, optimizer updates with the selects that guard them. Its
    `kernel` (#amp.kernel) says which kind of kernel it is and which op
    is its root; the verifier checks both against the ops
    (KernelAnalysis.h), so a group the backend cannot run as one kernel
    is rejected here. Written without `<kind, root = N>`, they are
    computed from the ops. The region reads only its block's arguments,
    each bound to one operand, and yields the values that the rest of the
    step reads (or that nothing reads); every other value stays inside
    the kernel. Since the region is isolated from above, canonicalization
    and CSE work inside it or around it and never move an op across its
    boundary. The kernels run in the order of the fusion ops;
    `--amp-plan-buffers` places their results (`amp.place`).

    ```mlir
    %y = amp.fusion<loop, root = 1>(%a = %x, %b = %bias)
        : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32> {
      %0 = amp.add %a, %b : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
      %1 = amp.relu %0 : tensor<8x4xf32>
      amp.yield %1 : tensor<8x4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                       OptionalAttr<Amp_KernelAttr>:$kernel);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // An empty body whose block takes one argument per input; the kernel
    // is set once the ops are in (setKernelFromOps).
    OpBuilder<(ins "TypeRange":$resultTypes, "ValueRange":$inputs)>
  ];
  let extraClassDeclaration = [{
    Block &getBlock() { return getBody().front(); }
    /// The ops of the kernel, without the yield.
    auto getKernelOps() { return getBlock().without_terminator(); }
    /// The region's terminator (the verifier checked it is an amp.yield).
    YieldOp getYield();
    /// The kernel's root (the verifier checked `kernel` is set and right).
    Operation *getRoot();
    /// Sets `kernel` to what the ops make (analyzeKernel); fails, with
    /// the reason as a diagnostic, when they make no kernel.
    ::llvm::LogicalResult setKernelFromOps();
  }];
}

//===----------------------------------------------------------------------===//
// Gradients inside a model
//===----------------------------------------------------------------------===//

def Amp_GradOp : Op<Amp_Dialect, "grad", [RecursiveMemoryEffects]> {
  let summary = "the gradient of a scalar with respect to values, in a model";
  let description = [{
    Computes the 0-d floating-point value its region yields from its block
    arguments, bound to the operands, and that value's gradient with
    respect to each operand: the results are the value, then one gradient
    per operand, of its type (`torch.autograd.grad(value, inputs,
    create_graph=True)`). Values the region reads from around it are
    constants of the gradient; an operand given twice gets the whole
    gradient in both places.

    `amp-expand-grads` (the first pass of a training step's pipeline,
    and what amp-run does before it runs a function) writes the region's
    ops in its place with their vector-Jacobian products from a seed of 1,
    so that amp-autocast casts them and amp-autodiff differentiates them
    again, as any op: a gradient penalty `loss + |grad|^2` trains.

    ```mlir
    %inner, %gx = amp.grad (%x) : (tensor<4x8xf32>) -> (tensor<f32>, tensor<4x8xf32>) {
    ^bb0(%a: tensor<4x8xf32>):
      %y = amp.matmul %a, %w : tensor<4x8xf32>, tensor<8x2xf32> to tensor<4x2xf32>
      %s = amp.sum %y dims = [0, 1] : tensor<4x2xf32> to tensor<f32>
      amp.yield %s : tensor<f32>
    }
    ```
  }];
  let arguments = (ins Variadic<Amp_FloatTensor>:$inputs);
  let results = (outs Variadic<Amp_FloatTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The region's terminator (the verifier checked it is an amp.yield).
    YieldOp getYield();
  }];
}

def Amp_YieldOp : Op<Amp_Dialect, "yield",
    [Pure, Terminator, ParentOneOf<["FusionOp", "GradOp"]>]> {
  let summary = "the values an amp.fusion hands on, or an amp.grad's value";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // AMP_DIALECT_AMP_IR_AMPOPS_TD
