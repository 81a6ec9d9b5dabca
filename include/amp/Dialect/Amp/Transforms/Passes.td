//===- Passes.td - amp passes ------------------------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def AmpModelSummary : Pass<"amp-model-summary", "mlir::ModuleOp"> {
  let summary = "Print what each function holds: ops by family, parameters, "
                "forward FLOPs";
  let description = [{
    An analysis printer: for every `func.func` in the module it prints, to
    standard output, the number of ops by family (contraction, elementwise,
    normalization, reduction, loss, shape, data, other) and by name, the
    parameters (arguments marked `amp.param`) with their element count and
    size, the number of other inputs, and the floating-point operations of
    one forward evaluation (FlopCountOpInterface). The IR is not changed.

    Given
    ```mlir
    func.func @linear(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>)
        -> tensor<2x3xf32> {
      %y = amp.matmul %x, %w : tensor<2x4xf32>, tensor<4x3xf32> to tensor<2x3xf32>
      return %y : tensor<2x3xf32>
    }
    ```
    it prints
    ```
    function @linear
      ops: 1 (contraction 1)
      by name: amp.matmul=1
      parameters: 1 tensors, 12 elements (48.00 B)
      inputs: 1
      forward FLOPs: 48 (48.00 FLOP)
    ```
  }];
}

def AmpNameArguments : Pass<"amp-name-arguments", "mlir::ModuleOp"> {
  let summary = "Record each function argument's SSA name from the source "
                "as amp.name";
  let description = [{
    MLIR keeps no SSA names after parsing, yet the model's names are what a
    compiled step calls its tensors and what state files and the Python API
    key on. This pass gives every function argument without `amp.name` the
    name written at its location in the source file (`%w1` gives "w1"); from
    then on the name is an attribute and survives printing and parsing.
    An argument whose location is not a position in a readable file (IR read
    from standard input), or where no SSA name is written, stays unnamed. An
    argument whose SSA name another argument holds as its `amp.name` is an
    error at the argument: unnamed, a compiled step would call it `input0`
    and a data set of its name would mean the other argument.
    `--amp-train-step` runs this pass first; `--amp-autocast`,
    `--amp-autodiff` and `--amp-optimizer` name the arguments they find
    unnamed the same way.

    Given `model.mlir`
    ```mlir
    func.func @linear(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>)
    ```
    it gives
    ```mlir
    func.func @linear(%arg0: tensor<4x3xf32> {amp.name = "w", amp.param},
                      %arg1: tensor<2x4xf32> {amp.name = "x"})
    ```
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect"];
}

def AmpAutocast : Pass<"amp-autocast", "mlir::ModuleOp"> {
  let summary = "Assign each op a precision and place the casts for the "
                "whole graph";
  let description = [{
    Rewrites every function into mixed precision. Each op has a category
    (PrecisionOpInterface; defaults mirror PyTorch's CUDA autocast lists):
    lower-precision ops (matmul, attention) compute in `compute-type` with an
    f32 accumulator; keep-fp32 ops (exp, log, pow, rsqrt, softmax,
    log_softmax, norms, sum, mean, losses) compute in f32; promote and follow
    ops are placed for the whole graph:

    1. keep-fp32 spreads forward: a promote/follow op fed by a keep-fp32 op
       (or by a constant that the compute type cannot hold exactly) is f32;
    2. a promote/follow op on a path between two lower-precision ops (through
       promote/follow ops only) is low precision: no f16 -> f32 -> f16
       ping-pong;
    3. any other promote/follow op takes the widest type among its inputs
       (function arguments count with their type; constants exact in the
       compute type do not widen).

    Ops placed in f32 compute in f32: f16 or bf16 inputs are cast up.

    Casts are shared: one per (value, type), placed right after the value is
    defined (parameters: once at function entry); constants are converted in
    place when exact, never when not. Function signatures do not change.

    A policy file (`policy=FILE`, a JSON or YAML mapping from op name to
    category), `allow=`/`deny=` op lists (to lower-precision / keep-fp32,
    winning over the file) and the per-op attribute `amp.precision = f32`
    (or the compute type) override the defaults.

    Before:
    ```mlir
    %h = amp.matmul %x, %w : tensor<64x784xf32>, tensor<784x256xf32> to tensor<64x256xf32>
    %a = amp.add %h, %b : tensor<64x256xf32>, tensor<256xf32>
    %r = amp.relu %a : tensor<64x256xf32>
    %o = amp.matmul %r, %w2 : tensor<64x256xf32>, tensor<256x10xf32> to tensor<64x10xf32>
    ```
    After (`compute-type=f16`):
    ```mlir
    %xh = amp.cast %x : tensor<64x784xf32> to tensor<64x784xf16>
    ...
    %h = amp.matmul %xh, %wh {acc_type = f32} : tensor<64x784xf16>, tensor<784x256xf16> to tensor<64x256xf16>
    %a = amp.add %h, %bh : tensor<64x256xf16>, tensor<256xf16>
    %r = amp.relu %a : tensor<64x256xf16>
    %o = amp.matmul %r, %w2h {acc_type = f32} : tensor<64x256xf16>, tensor<256x10xf16> to tensor<64x10xf16>
    ```
  }];
  // Policies may name arith and math ops before the module holds any.
  let dependentDialects = ["::mlir::amp::AmpDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
  let options = [
    Option<"computeType", "compute-type", "::mlir::amp::ComputeType",
           /*default=*/"::mlir::amp::kDefaultComputeType",
           "Low-precision type: f16 (the default; also fp16, float16, half), "
           "bf16 (also bfloat16), fp8 (bf16 with FP8 GEMMs) or fp8-f16 (f16 "
           "with FP8 GEMMs)">,
    Option<"fp8Gradients", "fp8-gradients", "std::string",
           /*default=*/"\"e5m2\"",
           "FP8: the gradients' format in the backward GEMMs, e5m2 (the "
           "HYBRID recipe, the default) or e4m3 (e4m3 throughout)">,
    Option<"fp8KeepFirstLast", "fp8-keep-first-last", "bool",
           /*default=*/"true",
           "FP8: keep the first and last linear layers in the base type, as "
           "the recipes do">,
    Option<"fp8Scaling", "fp8-scaling", "std::string",
           /*default=*/"\"current\"",
           "FP8: current (each tensor's scale from its amax this step, "
           "torchao's tensorwise) or delayed (from an amax history kept as "
           "step state, Transformer Engine's DelayedScaling)">,
    Option<"fp8AmaxHistory", "fp8-amax-history", "int64_t",
           /*default=*/"1024",
           "FP8, delayed scaling: the steps of amax history per tensor">,
    Option<"fp8Margin", "fp8-margin", "double", /*default=*/"0.0",
           "FP8, delayed scaling: scale = max / amax / 2^margin">,
    Option<"fp8AmaxCompute", "fp8-amax-compute", "std::string",
           /*default=*/"\"max\"",
           "FP8, delayed scaling: the amax a scale is computed from, max "
           "(the history's largest) or most-recent">,
    Option<"policyFile", "policy", "std::string", /*default=*/"\"\"",
           "JSON or YAML file mapping op names to categories">,
    ListOption<"allowOps", "allow", "std::string",
               "Ops moved to lower-precision (wins over the policy file)">,
    ListOption<"denyOps", "deny", "std::string",
               "Ops moved to keep-fp32 (wins over the policy file)">,
    Option<"keepFp32LowIO", "keep-fp32-low-io", "bool", /*default=*/"false",
           "Keep-fp32 ops fed in low precision compute in f32 internally "
           "but read and write the compute type (less memory traffic); "
           "only activations are narrowed, a loss's targets keep their "
           "type">,
    Option<"reportFile", "report", "std::string", /*default=*/"\"\"",
           "Write the decisions, casts and summary as JSON">,
    Option<"dotFile", "dot", "std::string", /*default=*/"\"\"",
           "Write the graph as Graphviz DOT, colored by precision">,
    Option<"emitRemarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per decision and a summary remark per function">
  ];
}

def AmpExpandGrads : Pass<"amp-expand-grads", "mlir::ModuleOp"> {
  let summary = "Write each amp.grad as its ops and their gradient";
  let description = [{
    Replaces every `amp.grad` (innermost first) by the ops of its region,
    bound to its inputs, followed by their vector-Jacobian products from a
    seed of 1, as amp-autodiff builds them: its value is the yielded one,
    each gradient the sum of its input's contributions (zeros where the
    value does not depend on it). The model is then plain ops, which
    amp-autocast casts and amp-autodiff differentiates again: the training
    pipeline runs this pass first, and amp-run before it interprets a
    function.

    ```mlir
    %v, %gx = amp.grad (%x) : (tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
    ^bb0(%a: tensor<4xf32>):
      %r = amp.relu %a : tensor<4xf32>
      %s = amp.sum %r dims = [0] : tensor<4xf32> to tensor<f32>
      amp.yield %s : tensor<f32>
    }
    // becomes
    %r = amp.relu %x : tensor<4xf32>
    %v = amp.sum %r dims = [0] : tensor<4xf32> to tensor<f32>
    %one = amp.constant dense<1.0> : tensor<f32>
    ...
    %gx = amp.relu_grad %x, %... : tensor<4xf32>
    ```
  }];
  let dependentDialects = ["mlir::amp::AmpDialect"];
}

def AmpAutodiff : Pass<"amp-autodiff", "mlir::ModuleOp"> {
  let summary = "Derive the gradient function of a scalar loss by reverse mode";
  let description = [{
    For every function that returns a 0-d floating-point loss and has
    arguments marked `amp.param`, adds `@<name>_grad`: the same arguments,
    returning the loss followed by the gradient of every parameter, in
    argument order, each of its parameter's type. The original function is
    kept. A function may return parts of its loss after it (0-d floats:
    the terms of a sum, an accuracy): only the loss is differentiated, and
    `@<name>_grad` returns the parts after the gradients, each named
    (`amp.name` on both functions' results) by its given `amp.name`, the
    SSA name the source gives it, or `loss_part<k>`.

    Each op provides its vector-Jacobian product through
    DifferentiableOpInterface; backward ops run in the precision of their
    forward op, the gradient of a cast is the reverse cast (so f32
    parameters get f32 gradients after autocast), broadcast operands receive
    gradients summed back to their shape, and values with several uses the
    sum of their contributions. Integer operands get no gradient. The seed
    (the gradient of the loss) is 1; amp-loss-scaling replaces it.

    ```mlir
    func.func @f(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>) -> tensor<f32>
    // becomes also
    func.func @f_grad(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>)
        -> (tensor<f32>, tensor<4x3xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect"];
  let options = [
    Option<"functionName", "function", "std::string", /*default=*/"\"\"",
           "Differentiate only this function">
  ];
}

def AmpEvaluation : Pass<"amp-evaluation", "mlir::ModuleOp"> {
  let summary = "Derive the forward-only evaluation of a model function";
  let description = [{
    For every function that has arguments marked `amp.param` (or only the
    one named by `function`), adds `@<name>_eval`: the same arguments and
    body, marked `amp.evaluation_of = @<name>`, returning the loss (the
    function's first result) followed by the values named in `outputs`, in
    that order. A value is named by the SSA name the source gives it
    (`outputs=logits` for `%logits = amp.add ...`), so run this pass on IR
    parsed from a file, before any pass rewrites the ops. The original
    function is kept.

    amp-compile runs it, then amp-autocast with the step's settings, so that
    the compiled `eval` computes the loss in the precision the step trains
    in, without loss scaling, gradients or an update.

    ```mlir
    func.func @f(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>) -> tensor<f32>
    // becomes also, with outputs=y
    func.func @f_eval(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>)
        -> (tensor<f32>, tensor<2x3xf32>) attributes {amp.evaluation_of = @f}
    ```
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect"];
  let options = [
    Option<"functionName", "function", "std::string", /*default=*/"\"\"",
           "Evaluate only this function">,
    ListOption<"outputs", "outputs", "std::string",
               "Values returned after the loss, by their SSA names">
  ];
}

def AmpRebatch : Pass<"amp-rebatch", "mlir::ModuleOp"> {
  let summary = "Give a model function another batch size";
  let description = [{
    Gives every model function (or only the one named by `function`, which
    may be a derived one such as an evaluation) batch inputs
    of `batch` rows: its arguments that are neither `amp.param` nor
    `amp.buffer`, which must share their first dimension B, take `batch`
    there, and every value computed from them the shape the same ops give
    at that size, worked out op by op from the operands forward:

    - elementwise ops, casts, normalizations, softmax, attention and
      dropout keep their operand's shape; broadcasting ops, select and
      compare infer theirs;
    - matmul, embedding, convolutions, pools and reductions compute theirs
      from their operands (a loss and a sum of squares stay one number);
    - transpose permutes, concat adds up, slice takes a dimension that holds
      the batch whole;
    - reshape and broadcast_to keep the batch outermost: the result's first
      dimension scales as the input's (`[B, T, C]` to `[B*T, C]` becomes
      `[batch*T, C]`).

    Parameters, buffers and the values computed from them alone keep their
    shapes. An op whose shape cannot follow the batch (a slice of part of
    it, a reshape that moves it inward, statistics computed from it) is an
    error naming the op, and the function is verified at its new shapes: a
    constant of the old batch's shape that meets the batch is an error too.
    amp-compile `--eval-batch=N` runs it on the model's evaluation.

    ```mlir
    func.func @f(%w: tensor<4x3xf32> {amp.param}, %x: tensor<2x4xf32>) -> tensor<2x3xf32>
    // with batch=8
    func.func @f(%w: tensor<4x3xf32> {amp.param}, %x: tensor<8x4xf32>) -> tensor<8x3xf32>
    ```
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect"];
  let options = [
    Option<"batch", "batch", "int64_t", /*default=*/"1",
           "The batch inputs' new first dimension">,
    Option<"functionName", "function", "std::string", /*default=*/"\"\"",
           "Rebatch only this function (else every model function)">
  ];
}

def AmpLossScaling : Pass<"amp-loss-scaling", "mlir::ModuleOp"> {
  let summary = "Scale the loss, unscale the gradients and check them for "
                "inf/NaN";
  let description = [{
    Rewrites every gradient function `@<name>_grad` of amp-autodiff:

    ```
    @<name>_grad(args..., %scale {amp.loss_scale}) -> (loss, grads..., parts..., found_inf)
    ```

    The backward seed becomes the loss scale; the parameter gradients
    (which must be f32: keep f32 master parameters, as GradScaler requires)
    are unscaled by `inv_scale = float(1 / double(scale))` in one
    `amp.unscale`, which also reports `found_inf` (1 when any gradient holds
    an inf or NaN). The function records the scaler configuration in
    `amp.loss_scaling`:

    ```mlir
    amp.loss_scaling = #amp.loss_scaling<dynamic, init_scale = 6.553600e+04,
        growth_factor = 2.000000e+00, backoff_factor = 5.000000e-01,
        growth_interval = 2000, hysteresis = 1>
    ```

    amp-optimizer then threads the scaler state through the step, updates
    it on the device (`amp.scaler_update`) and skips every other state
    update of a step whose gradients overflowed.

    Modes: `dynamic` (GradScaler's defaults: init-scale 65536, growth-factor
    2, backoff-factor 0.5, growth-interval 2000; optional min/max clamps and
    Megatron-style hysteresis), `static` (a fixed scale, overflowing steps
    still skipped), `none`; `auto` (the default) is dynamic when the graph
    holds f16 values and none otherwise (bf16 and f32 need no scaling).
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect"];
  let options = [
    Option<"mode", "mode", "::mlir::amp::LossScalingOption",
           /*default=*/"::mlir::amp::LossScalingOption::automatic",
           "auto, dynamic, static or none">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "Initial (or static) loss scale">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "Scale multiplier after growth-interval clean steps (> 1)">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Scale multiplier after an overflow, in (0, 1)">,
    Option<"growthInterval", "growth-interval", "int64_t",
           /*default=*/"2000", "Clean steps before the scale grows">,
    Option<"minScale", "min-scale", "double", /*default=*/"0.0",
           "Lower clamp of the scale (0: none)">,
    Option<"maxScale", "max-scale", "double", /*default=*/"0.0",
           "Upper clamp of the scale (0: none)">,
    Option<"hysteresis", "hysteresis", "int64_t", /*default=*/"1",
           "Overflows tolerated before backing off (1: PyTorch)">
  ];
}

def AmpOptimizer : Pass<"amp-optimizer", "mlir::ModuleOp"> {
  let summary = "Build the training step: gradients, clipping, accumulation "
                "and the optimizer update";
  let description = [{
    For every gradient function `@<name>_grad` made by amp-autodiff, adds
    `@<name>_step`, a function with state threaded through it:

    ```
    @<name>_step(params..., state..., batch...) -> (params'..., state'..., loss)
    ```

    Parameters keep `amp.param`; state arguments carry `amp.state` and start
    at zero: per parameter the momentum buffer (SGD with momentum) or the
    first and second moments (Adam, AdamW), then the step counter, then, with
    gradient accumulation, one accumulator per parameter and the micro-batch
    counter. The batch arguments follow in their original order.

    The step calls `@<name>_grad`, averages accumulated gradients, clips by
    the global gradient norm (`max-grad-norm`, as torch.nn.utils
    .clip_grad_norm_), and updates every parameter with one fused op
    (`amp.sgd_update`, `amp.sgd_momentum_update`, `amp.adamw_update`), with
    the defaults of torch.optim.SGD, torch.optim.Adam (`optimizer=adam`:
    `amp.adamw_update {coupled_decay}`, the weight decay added to the
    gradient) and torch.optim.AdamW. With
    `accumulate=N` the update applies on every N-th call only (a select, no
    control flow): parameters, moments and the step counter change then and
    only then.

    Every hyperparameter is a 0-d f64 argument (`amp.hparam`) named after
    torch.optim's (`lr`, `weight_decay`, `beta1`, ...), starting at the
    option's value. `param-groups` gives some parameters values of their
    own, as torch.optim's param_groups: with
    `param-groups=no_decay:rank<2|wpe:weight_decay=0;embed:wte:lr=5e-3`
    the parameters of rank 0 or 1 and `wpe` read the argument
    `no_decay.weight_decay` (starting at 0) and `wte` reads `embed.lr`; the
    others read `weight_decay` and `lr`. A selector is a rank comparison
    (`rank<2`, `rank<=1`, `rank>1`, `rank>=2`, `rank=1`) or a glob pattern
    on the parameter's name; a group may set lr and weight_decay, beta1,
    beta2 and eps (Adam, AdamW) or momentum (SGD with momentum). A group's
    rate follows the step's schedule. A parameter two groups select, or a
    group that selects none, is an error.

    The parts of the loss that the model returns after it become f32 state
    arguments marked `amp.loss_part`, after the scaler's state, that every
    step overwrites with its own values.

    With `data-parallel`, the step is one replica of a data-parallel job:
    before clipping and the update, the gradients (averaged over the
    micro-batches, with accumulation) are summed over the replicas with
    `amp.all_reduce` in buckets of at most `bucket-mb` MiB, the last
    parameters' first (the backward makes them first), and divided by
    `amp.replica_count`; the division also checks them for inf and NaN,
    which, with loss scaling, joins found_inf, itself reduced with max over
    the replicas, so that every replica skips or applies the same updates.
    With accumulation the reductions run on the N-th micro-batch only
    (`when`).

    With `zero-stage=1` (which implies `data-parallel`), the optimizer's
    state is sharded over exactly `replicas` replicas, as ZeRO stage 1:
    each replica keeps and updates its part (`amp.replica_shard`) of every
    parameter's f32 master weights and moments, from its part of the
    reduced gradient, and the updated parts are gathered (`amp.all_gather`,
    in buckets of `bucket-mb`, the first parameters' first) into the
    weights the next forward pass reads. A parameter that the gradient
    function reads only through casts to one low-precision type (autocast's
    f16 or bf16 copy of a matmul's weight) becomes that low-precision
    weight, its f32 master a state argument `<name>.master` of one part; the
    others stay f32 and are their own master. Each sharded state argument
    carries `amp.shard_of`, the index of its parameter, and the step
    `amp.zero_replicas`. The step updates every element as the unsharded
    step would: the same values, bit for bit.

    A gradient function read from a file is checked before it is read: it
    takes the arguments of the function it names (then the scale, when it
    carries `amp.loss_scaling`) and returns the loss, one gradient per
    parameter and the parts of the loss that function returns (then
    found_inf); anything else is an error naming both.
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"optimizer", "optimizer", "::mlir::amp::OptimizerKind",
           /*default=*/"::mlir::amp::kDefaultOptimizer",
           "sgd, adam or adamw (the default)">,
    Option<"lr", "lr", "double", /*default=*/"1e-3", "Learning rate">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum">,
    Option<"dampening", "dampening", "double", /*default=*/"0.0",
           "SGD dampening">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD Nesterov momentum">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"-1.0",
           "Weight decay (default: 0 for SGD, 0.01 for AdamW)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "Adam(W) beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "Adam(W) beta2">,
    Option<"eps", "eps", "double", /*default=*/"1e-8", "Adam(W) epsilon">,
    Option<"maxGradNorm", "max-grad-norm", "double", /*default=*/"0.0",
           "Clip gradients to this global 2-norm (0: no clipping)">,
    Option<"accumulate", "accumulate", "int64_t", /*default=*/"1",
           "Micro-batches per update (gradient accumulation)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"constant\"",
           "Learning-rate schedule: constant, linear-warmup, cosine, step or "
           "warmup-cosine">,
    Option<"warmupSteps", "warmup-steps", "double", /*default=*/"0.0",
           "Updates of the linear warmup">,
    Option<"warmupStartFactor", "warmup-start-factor", "double",
           /*default=*/"1.0 / 3.0",
           "The warmup's first rate, as a fraction of lr (LinearLR's "
           "start_factor)">,
    Option<"decaySteps", "decay-steps", "double", /*default=*/"0.0",
           "Updates of the cosine decay (after any warmup)">,
    Option<"minLr", "min-lr", "double", /*default=*/"0.0",
           "The rate the cosine decays to and stays at">,
    Option<"stepSize", "step-size", "double", /*default=*/"0.0",
           "Updates between two decays of the step schedule">,
    Option<"gamma", "gamma", "double", /*default=*/"0.1",
           "The step schedule's factor per decay">,
    Option<"dataParallel", "data-parallel", "bool", /*default=*/"false",
           "Reduce the gradients over the replicas of a data-parallel job">,
    Option<"bucketMb", "bucket-mb", "double", /*default=*/"25.0",
           "With data-parallel: MiB of gradients per all-reduce (as "
           "DistributedDataParallel's bucket_cap_mb)">,
    Option<"zeroStage", "zero-stage", "int64_t", /*default=*/"0",
           "1: shard the optimizer state over the replicas (ZeRO stage 1); "
           "0: every replica holds all of it">,
    Option<"replicas", "replicas", "int64_t", /*default=*/"0",
           "With zero-stage=1: the number of replicas the step runs on">,
    Option<"paramGroups", "param-groups", "std::string", /*default=*/"\"\"",
           "Parameter groups with hyperparameters of their own: "
           "NAME:SELECTOR|...:KEY=VALUE,...[;...], a selector a rank "
           "comparison (rank<2) or a name pattern (*.bias)">
  ];
}


def AmpOverlapReductions
    : Pass<"amp-overlap-reductions", "mlir::func::FuncOp"> {
  let summary = "Move each bucket of a data-parallel step's gradient "
                "all-reduce up to where its gradients are final";
  let description = [{
    amp-optimizer{data-parallel=true} reduces the gradients in buckets
    after the gradient function, which the backend inlines: every bucket
    then waits for the whole backward, since every gradient passes through
    one multi-tensor `amp.unscale`. This pass lets the transport reduce a
    bucket while the rest of the backward runs, as DistributedDataParallel
    does. It splits each `amp.unscale` into one per bucket its gradients
    flow into (their `found_inf` flags joined by `amp.maximum`: the values
    and the flag are unchanged), then moves each `amp.all_reduce sum` up to
    just after its operands, with the ops that compute for that bucket
    alone (its gradients' conversions, unscale and accumulation) and the
    scalars it reads (the micro-batch flag). Ops that other values need
    stay where they are. The backend starts a reduction where it stands and
    waits for it before the first kernel that touches its results'
    memory. A function without a gradient sum is left unchanged.

    ```mlir
    // The backward of two layers, then one unscale and two buckets:
    %g2 = ...  // the last layer's gradient
    %g1 = ...  // the first layer's
    %u:2, %f = amp.unscale %inv, %g1, %g2 : ...
    %r2 = amp.all_reduce sum %u#1 : ...
    %r1 = amp.all_reduce sum %u#0 : ...
    // becomes
    %g2 = ...
    %u2, %f2 = amp.unscale %inv, %g2 : ...
    %r2 = amp.all_reduce sum %u2 : ...   // reduced while %g1 is computed
    %g1 = ...
    %u1, %f1 = amp.unscale %inv, %g1 : ...
    %r1 = amp.all_reduce sum %u1 : ...
    %f = amp.maximum %f1, %f2 : ...
    ```
  }];
}

def AmpRestoreLocations : Pass<"amp-restore-locations", "mlir::func::FuncOp"> {
  let summary = "Give ops whose location a pass erased the location of their "
                "first user";
  let description = [{
    MLIR 19's folder, which canonicalize runs, moves the constants it owns
    to the start of the function and merges equal ones, and gives them an
    unknown location. A diagnostic about such a constant then points at no
    line of the model. This pass gives every op with an unknown location the
    location of its first user in program order (which, for a merged
    constant, is one of the places it was written), so that every op of a
    step that reaches the backend has a place in the source. amp-compile
    runs it after canonicalize and cse.

    ```mlir
    %c = amp.constant dense<[1.0, 2.0]> : tensor<2xf32> loc(unknown)
    %y = amp.add %x, %c : tensor<2xf32>, tensor<2xf32> loc("m.mlir":7:8)
    // becomes
    %c = amp.constant dense<[1.0, 2.0]> : tensor<2xf32> loc("m.mlir":7:8)
    ```
  }];
}

def AmpFp8Casts : Pass<"amp-fp8-casts", "mlir::func::FuncOp"> {
  let summary = "One FP8 cast per tensor, shared by the FP8 GEMMs reading it";
  let description = [{
    A backend pass: each FP8 GEMM whose scales are given (delayed scaling)
    is rewritten to read FP8 operands cast before it, one `amp.fp8_cast` per
    tensor, scale and format, which writes the tensor in the two layouts
    the GEMMs read and its amax. The forward GEMM and the weight gradient
    read the same activations, the input and weight gradients the same
    output gradient, the forward and input gradient the same weight: each
    is cast once instead of once per GEMM, and its `amp.fp8_amax` becomes
    the cast's amax (no pass of its own). Each GEMM then reads its operands
    K-major (`lhs` [M, K], `rhs` transposed [N, K]), as cuBLASLt's FP8
    kernels do; an activation with batch dimensions is read as its rows
    (`[B, T, K]` as `[B*T, K]`). The values are the same: the interpreter
    gives the same bits before and after. GEMMs whose operands both have
    batch dimensions keep casting their own.

    ```mlir
    %y = amp.matmul %x, %w scales %s {fp8_scale_index = array<i64: 0, 1, 2>, ...}
    // becomes
    %qx, %qxt, %ax = amp.fp8_cast %x, %s {fp8_scale_index = 0 : i64, format = f8E4M3FN} ...
    %qw, %qwt, %aw = amp.fp8_cast %w, %s {fp8_scale_index = 1 : i64, format = f8E4M3FN} ...
    %y = amp.matmul %qx, %qwt scales %s {fp8_scale_index = array<i64: 0, 1>, transpose_rhs, ...}
    ```
  }];
}

def AmpDecompose : Pass<"amp-decompose", "mlir::func::FuncOp"> {
  let summary = "Rewrite the ops the backend runs as others (Amp_Decomposed)";
  let description = [{
    The first pass of `--amp-backend`: each op with the `Amp_Decomposed`
    trait becomes the ops that compute it, to the bit. `amp.conv2d` becomes
    `amp.im2col` (each window's values as a column) and, per group, one
    `amp.matmul` of the weight `[O/G, C/G*KH*KW]` with the columns, which
    sums in the convolution's order (channel, kh, kw); a bias is added in
    the accumulator type (the matmul's result) and the sum then cast to the
    convolution's type, so it is rounded once.

    ```mlir
    %y = amp.conv2d %x, %w {padding = array<i64: 1, 1>}
        : tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16> to tensor<8x16x32x32xf16>
    // becomes
    %cols = amp.im2col %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>}
        : tensor<8x3x32x32xf16> to tensor<8x27x1024xf16>
    %c = amp.reshape %cols : tensor<8x27x1024xf16> to tensor<8x1x27x1024xf16>
    %w2 = amp.reshape %w : tensor<16x3x3x3xf16> to tensor<1x16x27xf16>
    %m = amp.matmul %w2, %c : tensor<1x16x27xf16>, tensor<8x1x27x1024xf16>
        to tensor<8x1x16x1024xf16>
    %y = amp.reshape %m : tensor<8x1x16x1024xf16> to tensor<8x16x32x32xf16>
    ```

    With `keep-convolutions`, the convolutions and their gradients that
    the runtime takes whole (f16, bf16 or f32 operands, f32 accumulation,
    a result of the operands' type or f32) stay: the emitter calls
    `amp_conv2d_*` for each (cuDNN on the GPU, the same decomposition on
    the host). With `keep-batch-norms`, likewise the batch norms and their
    gradients with f32 statistics and parameters (`amp_batch_norm_*`:
    cuDNN's batch norm on the GPU when training, the same steps on the
    host). `--amp-backend` and amp-compile keep both by default.
  }];
  let options = [
    Option<"keepConvolutions", "keep-convolutions", "bool",
           /*default=*/"false",
           "Leave the convolutions the runtime runs whole (amp_conv2d_*)">,
    Option<"keepBatchNorms", "keep-batch-norms", "bool",
           /*default=*/"false",
           "Leave the batch norms the runtime runs whole (amp_batch_norm_*)">,
  ];
  let dependentDialects = ["::mlir::amp::AmpDialect"];
}

def AmpFuse : Pass<"amp-fuse", "mlir::func::FuncOp"> {
  let summary = "Group the ops of a step into kernels";
  let description = [{
    Outlines every kernel into an `amp.fusion` op at the position of its
    last op: the region reads its inputs through its block's arguments and
    yields what the rest of the step reads. The kernels run in the order of
    the fusion ops; the region is isolated from above, so canonicalization
    and CSE never move an op into or out of a kernel. A fused step can be
    fused again: its kernels are inlined first. Each fusion states the kind
    of kernel it is and its root (`amp.fusion<rows, root = 1>`,
    #amp.kernel), as analyzeKernel (KernelAnalysis.h) finds them; the
    fusion's verifier checks them and the emitter dispatches on them.

    - Chains of elementwise ops (casts, unary and binary arithmetic with
      broadcasting, selects, compares, activation gradients, constants) of
      one shape form one kernel when every use of an inner value is inside
      the chain: the inner values never reach memory. Each op still rounds
      its result to its type, so the numerics are those of the unfused graph.
    - A matmul with an f32 result (accumulated in f32) followed by the
      broadcast add of an f32 bias over its last dimension takes the bias
      as its bias operand, and a relu of a matmul with a bias joins its
      kernel: one GEMM with a bias (or bias + relu) epilogue. Results
      narrower than f32 are not folded: the epilogue would skip the
      rounding of the matmul's result.
    - Every other op (reductions, norms, losses, shape ops that move data,
      optimizer updates, loss scaling) is a kernel of its own, mapped by the
      emitter onto a runtime call or a generated kernel. Reshapes are views
      and stay outside the kernels.

    Functions that call others must be inlined first.
  }];
  let dependentDialects = ["::mlir::amp::AmpDialect"];
}

def AmpPlanBuffers : Pass<"amp-plan-buffers", "mlir::func::FuncOp"> {
  let summary = "Place every temporary of a step in one arena, by liveness";
  let description = [{
    Needs the `amp.fusion` kernels of --amp-fuse. Every result of a kernel
    or a view gets a place, `amp.place` (one `#amp.place` per result):
    `#amp.place<arena 256>` (bytes at that offset), `#amp.place<arg 0>` (a
    new parameter or state written over its old value in place) or
    `#amp.place<view>` (a reshape shares its operand's memory); the values
    inside a kernel never reach memory. A value is live from the kernel
    that writes it to the last kernel that reads it (through views); values
    whose lifetimes do not overlap share bytes. Up to `by-size-limit` values, placement is
    greedy by size, largest first, at the lowest offset that fits; beyond
    it (large graphs), values are placed in program order, each in the
    smallest free block that holds it (O(n log n); arenas some 5-15% larger
    on the examples). Offsets are aligned to 256 bytes. An unscaled
    gradient takes the slot of the gradient it scales when nothing else
    reads that.

    A value returned as the new version of a threaded argument is written
    over that argument when the argument has no reader after the kernel
    that writes the value (or only that kernel, reading element i before
    writing element i).

    The function gets `amp.arena_size` and `amp.memory`, a dictionary of
    byte counts: `arena`, `arguments`, `peak` (their sum), and `peak_f32`,
    the peak of the same plan with every f16 and bf16 value taken as f32.
    With `report=FILE` the same figures go to FILE as JSON (`-`: stdout).
  }];
  let options = [
    Option<"report", "report", "std::string", "\"\"",
           "Write the memory figures as JSON to this file (-: stdout)">,
    Option<"bySizeLimit", "by-size-limit", "int64_t", "4096",
           "Place by size up to this many values, in program order beyond">,
  ];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_TD
