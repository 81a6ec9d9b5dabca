//===- AmpAttrs.td - amp dialect attributes ----------------*- tablegen -*-===//
//
// The facts passes hand on: the loss scaler --amp-loss-scaling configures
// for amp-optimizer, the kind of kernel --amp-fuse makes of each
// amp.fusion (its inherent `kernel`), the place --amp-plan-buffers gives
// each result and the memory it plans for the step. The others are
// discardable attributes (`amp.loss_scaling`, `amp.place`, `amp.memory`)
// whose values are these typed attributes, checked by the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPATTRS_TD
#define AMP_DIALECT_AMP_IR_AMPATTRS_TD

include "amp/Dialect/Amp/IR/AmpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Amp_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Amp_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

def Amp_LossScalingMode : I32EnumAttr<"LossScalingMode",
    "whether the loss scale changes during training", [
      I32EnumAttrCase<"Dynamic", 0, "dynamic">,
      I32EnumAttrCase<"Static", 1, "static">
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}

// An f64 setting that may be absent, compared bit for bit as
// APFloatParameter compares (APFloat's == would make NaN unequal to itself).
class Amp_OptionalF64Parameter<string desc>
    : OptionalParameter<"std::optional<::llvm::APFloat>", desc> {
  let comparator = "($_lhs.has_value() == $_rhs.has_value() && "
                   "(!$_lhs || $_lhs->bitwiseIsEqual(*$_rhs)))";
}

def Amp_LossScalingAttr : Amp_Attr<"LossScaling", "loss_scaling"> {
  let summary = "the loss scaler --amp-loss-scaling configures for a "
                "gradient function";
  let description = [{
    The value of `amp.loss_scaling`, which --amp-loss-scaling records on
    each gradient function it scales and amp-optimizer reads to thread the
    scaler state through the step. The keys are those of the pass options
    and of `amp.scaler_update`, which receives the dynamic settings:

    ```mlir
    #amp.loss_scaling<dynamic, init_scale = 6.553600e+04, growth_factor = 2.000000e+00,
                      backoff_factor = 5.000000e-01, growth_interval = 2000, hysteresis = 1>
    #amp.loss_scaling<dynamic, init_scale = 6.553600e+04, growth_factor = 2.000000e+00,
                      backoff_factor = 5.000000e-01, growth_interval = 2000, hysteresis = 2,
                      min_scale = 1.000000e+00, max_scale = 1.000000e+10>
    #amp.loss_scaling<static, init_scale = 1.024000e+03>
    ```

    A `static` scale stays at `init_scale` (overflowing steps are still
    skipped) and takes no other setting. A `dynamic` one needs the growth
    and backoff factors, the growth interval and the hysteresis; the clamps
    `min_scale` and `max_scale` are optional. Settings are written in this
    order when printed and may come in any order when parsed; scales and
    factors are f64 (a float literal), the counts i64. The scaler keeps its
    state in f32, so the settings pass the checks of the --amp-loss-scaling
    options (`checkScalerSettings`): scales and clamps positive and finite
    in f32, the initial scale within the clamps, growth above 1, backoff in
    (0, 1), interval and hysteresis in [1, 2^24].
  }];
  let parameters = (ins
    EnumParameter<Amp_LossScalingMode>:$mode,
    APFloatParameter<"the initial (or static) scale, f64">:$init_scale,
    Amp_OptionalF64Parameter<"dynamic: the factor after growth_interval "
                             "clean steps">:$growth_factor,
    Amp_OptionalF64Parameter<"dynamic: the factor after an overflow">
        :$backoff_factor,
    OptionalParameter<"std::optional<int64_t>",
                      "dynamic: clean steps before the scale grows">
        :$growth_interval,
    OptionalParameter<"std::optional<int64_t>",
                      "dynamic: overflows before the scale backs off">
        :$hysteresis,
    Amp_OptionalF64Parameter<"dynamic: the lower clamp">:$min_scale,
    Amp_OptionalF64Parameter<"dynamic: the upper clamp">:$max_scale
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// A scale that stays at `initScale`.
    static LossScalingAttr getStatic(::mlir::MLIRContext *context,
                                     double initScale);
    /// A dynamic scaler with `settings`, whose initScale is set.
    static LossScalingAttr getDynamic(::mlir::MLIRContext *context,
                                      const ScalerSettings &settings);

    bool isDynamic() const { return getMode() == LossScalingMode::Dynamic; }

    /// The settings as doubles and counts. A static scale has only
    /// `initScale`; the rest keep ScalerSettings' defaults, unused.
    ScalerSettings getSettings() const;
  }];
}

//===----------------------------------------------------------------------===//
// Argument kinds
//===----------------------------------------------------------------------===//

// The kind of a model's or a step's argument, with the values of the C ABI's
// amp_step_tensor_kind_t (amp_runtime/step.h), which the tensor table of a
// compiled step writes. The IR says it with the argument attributes of
// AmpBase.td (amp.param, amp.buffer, amp.rng, amp.hparam, amp.loss_part,
// amp.state), which also carry payloads (starting values); getArgumentKind
// (StepArguments.h) decodes them, and the dialect's verifier refuses an
// argument whose attributes name two kinds.
def Amp_ArgumentKind : I32EnumAttr<"ArgumentKind",
    "what an argument of a model or training step is", [
      I32EnumAttrCase<"param", 0>,
      I32EnumAttrCase<"state", 1>,
      I32EnumAttrCase<"input", 2>,
      I32EnumAttrCase<"hparam", 3>,
      I32EnumAttrCase<"loss_part", 4>,
      I32EnumAttrCase<"buffer", 5>,
      I32EnumAttrCase<"rng", 6>
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

def Amp_KernelKind : I32EnumAttr<"KernelKind",
    "how the backend runs the ops of one amp.fusion as one kernel", [
      I32EnumAttrCase<"loop", 0>,
      I32EnumAttrCase<"gemm", 1>,
      I32EnumAttrCase<"reduction", 2>,
      I32EnumAttrCase<"rows", 3>,
      I32EnumAttrCase<"gather", 4>,
      I32EnumAttrCase<"updates", 5>,
      I32EnumAttrCase<"loss_grad", 6>,
      I32EnumAttrCase<"single", 7>,
      I32EnumAttrCase<"casts", 8>
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}

def Amp_KernelAttr : Amp_Attr<"Kernel", "kernel"> {
  let summary = "the kind of kernel an amp.fusion is and the op it is built on";
  let description = [{
    The `kernel` of an `amp.fusion`: how the backend runs its ops, and the
    position (among the region's ops, the yield not counted) of its root,
    the op whose kernel computes the others. KernelAnalysis.h computes both
    from the ops, and the fusion's verifier checks that they are what its
    ops make:

    - `loop`: elementwise ops of one shape, one loop (the root is the last);
    - `gemm`: an amp.matmul, and the amp.relu of its biased result that the
      GEMM's epilogue applies;
    - `reduction`: amp.sum, amp.mean or amp.max, with the elementwise ops
      its loads compute (its prologue, before it);
    - `rows`: a row op (softmax, the norms, their gradients,
      cross_entropy_grad) with its prologue and the elementwise ops its
      stores compute (its epilogue);
    - `gather`: a transpose, slice or concat (the last op) whose loads
      compute the transposes, slices and reshapes before it;
    - `updates`: optimizer updates of one kind in one launch (the first is
      the root), with the amp.select ops that keep the old state on a
      skipped step;
    - `loss_grad`: an amp.cross_entropy and its gradient, one pass over the
      rows for both;
    - `single`: one op that is a kernel of its own (a convolution, an
      embedding, a runtime call);
    - `casts`: amp.cast ops of the function's arguments (its f32
      parameters to their f16 or bf16 copies), of one source and one
      result element type, each tensor its own: one launch over them all
      laid end to end.

    ```mlir
    %y = amp.fusion<gemm, root = 0>(%a = %x, %b = %w, %c = %bias) : ...
    ```
  }];
  let parameters = (ins
    EnumParameter<Amp_KernelKind>:$kind,
    "unsigned":$root
  );
  let assemblyFormat = "`<` $kind `,` `root` `=` $root `>`";
}

//===----------------------------------------------------------------------===//
// Place
//===----------------------------------------------------------------------===//

def Amp_PlaceKind : I32EnumAttr<"PlaceKind",
    "where the memory of a planned value lives", [
      I32EnumAttrCase<"arena", 0>,
      I32EnumAttrCase<"arg", 1>,
      I32EnumAttrCase<"view", 2>
    ]> {
  let cppNamespace = "::mlir::amp";
  let genSpecializedAttr = 0;
}

def Amp_PlaceAttr : Amp_Attr<"Place", "place"> {
  let summary = "the memory --amp-plan-buffers gives one result";
  let description = [{
    One entry of `amp.place`, the array with one place per result that
    --amp-plan-buffers writes on every amp.fusion and view of a planned
    step (the values inside a kernel need no memory):

    - `#amp.place<arena 256>`: bytes at offset 256 of the step's arena;
    - `#amp.place<arg 3>`: the memory of argument 3, a state updated in
      place;
    - `#amp.place<view>`: the memory of the operand (amp.reshape).

    An arena offset and an argument index are non-negative; views carry no
    number.
  }];
  let parameters = (ins
    EnumParameter<Amp_PlaceKind>:$kind,
    OptionalParameter<"std::optional<int64_t>">:$number
  );
  let builders = [
    AttrBuilder<(ins "PlaceKind":$kind), [{
      return $_get($_ctxt, kind, std::nullopt);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Amp_MemoryAttr : Amp_Attr<"Memory", "memory"> {
  let summary = "the memory a planned step takes, in bytes";
  let description = [{
    The value of `amp.memory`, which --amp-plan-buffers records on the
    function it plans: the arena, the arguments, their sum (the peak) and
    the peak with every f16/bf16 value counted as f32 (what the step would
    take without mixed precision). Every count is non-negative.

    ```mlir
    #amp.memory<arena = 512, arguments = 92, peak = 604, peak_f32 = 604>
    ```
  }];
  let parameters = (ins
    "int64_t":$arena,
    "int64_t":$arguments,
    "int64_t":$peak,
    "int64_t":$peak_f32
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // AMP_DIALECT_AMP_IR_AMPATTRS_TD
