//===- Pipelines.h - named amp pass pipelines -------------------*- C++ -*-===//
//
// The pipelines amp-opt registers, as C++ builders for drivers that run
// them without a pipeline string:
//
//   --amp-train-step  a forward function and its loss to a training step
//   --amp-backend     a training step to fused, planned IR that
//                     --amp-to-cuda translates
//
// amp-compile is --amp-train-step, --amp-backend, the translation and the
// package writer (Target/Cuda/StepPackage.h).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PIPELINES_H
#define AMP_DIALECT_AMP_TRANSFORMS_PIPELINES_H

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::amp {

/// Options of --amp-train-step: every option of the passes it runs, under
/// the passes' names (amp-loss-scaling's `mode` is `loss-scaling` here)
/// and with the passes' own defaults, so that the pipeline cannot drift
/// from them; `compute-type` also takes `none`, which skips amp-autocast.
struct TrainStepPipelineOptions
    : public PassPipelineOptions<TrainStepPipelineOptions> {
  // amp-autocast.
  Option<ComputeType> computeType{
      *this, "compute-type",
      llvm::cl::desc("f16 (the default), bf16, fp8 or fp8-f16 to run "
                     "--amp-autocast first; none (or f32) keeps the graph's "
                     "precision"),
      llvm::cl::init(AmpAutocastOptions().computeType)};
  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("Autocast: JSON or YAML file mapping op names to "
                     "categories"),
      llvm::cl::init(AmpAutocastOptions().policyFile)};
  ListOption<std::string> allow{
      *this, "allow",
      llvm::cl::desc("Autocast: ops moved to lower-precision (wins over the "
                     "policy file)")};
  ListOption<std::string> deny{
      *this, "deny",
      llvm::cl::desc("Autocast: ops moved to keep-fp32 (wins over the "
                     "policy file)")};
  Option<bool> keepFp32LowIO{
      *this, "keep-fp32-low-io",
      llvm::cl::desc("Autocast: keep-fp32 ops fed in low precision read and "
                     "write the compute type; only activations are narrowed"),
      llvm::cl::init(AmpAutocastOptions().keepFp32LowIO)};
  Option<std::string> fp8Gradients{
      *this, "fp8-gradients",
      llvm::cl::desc("Autocast, compute-type=fp8: the gradients' format in "
                     "the backward GEMMs, e5m2 (HYBRID) or e4m3"),
      llvm::cl::init(AmpAutocastOptions().fp8Gradients)};
  Option<bool> fp8KeepFirstLast{
      *this, "fp8-keep-first-last",
      llvm::cl::desc("Autocast, compute-type=fp8: keep the first and last "
                     "linear layers in the base type"),
      llvm::cl::init(AmpAutocastOptions().fp8KeepFirstLast)};
  Option<std::string> fp8Scaling{
      *this, "fp8-scaling",
      llvm::cl::desc("Autocast, compute-type=fp8: current or delayed "
                     "scaling"),
      llvm::cl::init(AmpAutocastOptions().fp8Scaling)};
  Option<int64_t> fp8AmaxHistory{
      *this, "fp8-amax-history",
      llvm::cl::desc("Autocast, delayed FP8 scaling: the amax history's "
                     "length"),
      llvm::cl::init(AmpAutocastOptions().fp8AmaxHistory)};
  Option<double> fp8Margin{
      *this, "fp8-margin",
      llvm::cl::desc("Autocast, delayed FP8 scaling: the margin (scale = "
                     "max / amax / 2^margin)"),
      llvm::cl::init(AmpAutocastOptions().fp8Margin)};
  Option<std::string> fp8AmaxCompute{
      *this, "fp8-amax-compute",
      llvm::cl::desc("Autocast, delayed FP8 scaling: max or most-recent"),
      llvm::cl::init(AmpAutocastOptions().fp8AmaxCompute)};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Autocast: write the decisions, casts and summary as "
                     "JSON"),
      llvm::cl::init(AmpAutocastOptions().reportFile)};
  Option<std::string> dot{
      *this, "dot",
      llvm::cl::desc("Autocast: write the graph as Graphviz DOT, colored by "
                     "precision"),
      llvm::cl::init(AmpAutocastOptions().dotFile)};
  Option<bool> remarks{
      *this, "remarks",
      llvm::cl::desc("Autocast: emit a remark per decision and a summary "
                     "remark per function"),
      llvm::cl::init(AmpAutocastOptions().emitRemarks)};

  // amp-autodiff.
  Option<std::string> function{
      *this, "function",
      llvm::cl::desc("Autodiff: differentiate only this function"),
      llvm::cl::init(AmpAutodiffOptions().functionName)};

  // amp-loss-scaling.
  Option<LossScalingOption> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("Loss scaling's mode: auto (dynamic for f16, none "
                     "otherwise), dynamic, static or none"),
      llvm::cl::init(AmpLossScalingOptions().mode)};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("Initial (or static) loss scale"),
                           llvm::cl::init(AmpLossScalingOptions().initScale)};
  Option<double> growthFactor{
      *this, "growth-factor",
      llvm::cl::desc("Scale multiplier after growth-interval clean steps "
                     "(> 1)"),
      llvm::cl::init(AmpLossScalingOptions().growthFactor)};
  Option<double> backoffFactor{
      *this, "backoff-factor",
      llvm::cl::desc("Scale multiplier after an overflow, in (0, 1)"),
      llvm::cl::init(AmpLossScalingOptions().backoffFactor)};
  Option<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("Clean steps before the scale grows"),
      llvm::cl::init(AmpLossScalingOptions().growthInterval)};
  Option<double> minScale{*this, "min-scale",
                          llvm::cl::desc("Lower clamp of the scale (0: none)"),
                          llvm::cl::init(AmpLossScalingOptions().minScale)};
  Option<double> maxScale{*this, "max-scale",
                          llvm::cl::desc("Upper clamp of the scale (0: none)"),
                          llvm::cl::init(AmpLossScalingOptions().maxScale)};
  Option<int64_t> hysteresis{
      *this, "hysteresis",
      llvm::cl::desc("Overflows tolerated before backing off (1: PyTorch)"),
      llvm::cl::init(AmpLossScalingOptions().hysteresis)};

  // amp-optimizer.
  Option<OptimizerKind> optimizer{
      *this, "optimizer", llvm::cl::desc("sgd, adam or adamw (the default)"),
      llvm::cl::init(AmpOptimizerOptions().optimizer)};
  Option<double> lr{*this, "lr", llvm::cl::desc("Learning rate"),
                    llvm::cl::init(AmpOptimizerOptions().lr)};
  Option<double> momentum{*this, "momentum", llvm::cl::desc("SGD momentum"),
                          llvm::cl::init(AmpOptimizerOptions().momentum)};
  Option<double> dampening{*this, "dampening", llvm::cl::desc("SGD dampening"),
                           llvm::cl::init(AmpOptimizerOptions().dampening)};
  Option<bool> nesterov{*this, "nesterov",
                        llvm::cl::desc("SGD Nesterov momentum"),
                        llvm::cl::init(AmpOptimizerOptions().nesterov)};
  Option<double> weightDecay{
      *this, "weight-decay",
      llvm::cl::desc("Weight decay (default: 0 for SGD and Adam, 0.01 for "
                     "AdamW)"),
      llvm::cl::init(AmpOptimizerOptions().weightDecay)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("Adam(W) beta1"),
                       llvm::cl::init(AmpOptimizerOptions().beta1)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("Adam(W) beta2"),
                       llvm::cl::init(AmpOptimizerOptions().beta2)};
  Option<double> eps{*this, "eps", llvm::cl::desc("Adam(W) epsilon"),
                     llvm::cl::init(AmpOptimizerOptions().eps)};
  Option<double> maxGradNorm{
      *this, "max-grad-norm",
      llvm::cl::desc("Clip gradients to this global 2-norm (0: no "
                     "clipping)"),
      llvm::cl::init(AmpOptimizerOptions().maxGradNorm)};
  Option<int64_t> accumulate{
      *this, "accumulate",
      llvm::cl::desc("Micro-batches per update (gradient accumulation)"),
      llvm::cl::init(AmpOptimizerOptions().accumulate)};
  Option<bool> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("Reduce the gradients over the replicas of a "
                     "data-parallel job"),
      llvm::cl::init(AmpOptimizerOptions().dataParallel)};
  Option<double> bucketMb{
      *this, "bucket-mb",
      llvm::cl::desc("With data-parallel: MiB of gradients per all-reduce"),
      llvm::cl::init(AmpOptimizerOptions().bucketMb)};
  Option<int64_t> zeroStage{
      *this, "zero-stage",
      llvm::cl::desc("1: shard the optimizer state over the replicas (ZeRO "
                     "stage 1)"),
      llvm::cl::init(AmpOptimizerOptions().zeroStage)};
  Option<int64_t> replicas{
      *this, "replicas",
      llvm::cl::desc("With zero-stage=1: the number of replicas"),
      llvm::cl::init(AmpOptimizerOptions().replicas)};
  Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("Learning-rate schedule: constant, linear-warmup, "
                     "cosine, step or warmup-cosine"),
      llvm::cl::init(AmpOptimizerOptions().schedule)};
  Option<double> warmupSteps{*this, "warmup-steps",
                             llvm::cl::desc("Updates of the linear warmup"),
                             llvm::cl::init(AmpOptimizerOptions().warmupSteps)};
  Option<double> warmupStartFactor{
      *this, "warmup-start-factor",
      llvm::cl::desc("The warmup's first rate, as a fraction of lr"),
      llvm::cl::init(AmpOptimizerOptions().warmupStartFactor)};
  Option<double> decaySteps{
      *this, "decay-steps",
      llvm::cl::desc("Updates of the cosine decay (after any warmup)"),
      llvm::cl::init(AmpOptimizerOptions().decaySteps)};
  Option<double> minLr{
      *this, "min-lr",
      llvm::cl::desc("The rate the cosine decays to and stays at"),
      llvm::cl::init(AmpOptimizerOptions().minLr)};
  Option<double> stepSize{
      *this, "step-size",
      llvm::cl::desc("Updates between two decays of the step schedule"),
      llvm::cl::init(AmpOptimizerOptions().stepSize)};
  Option<double> gamma{*this, "gamma",
                       llvm::cl::desc("The step schedule's factor per decay"),
                       llvm::cl::init(AmpOptimizerOptions().gamma)};
  Option<std::string> paramGroups{
      *this, "param-groups",
      llvm::cl::desc("Parameter groups with hyperparameters of their own: "
                     "NAME:SELECTOR|...:KEY=VALUE,...[;...]"),
      llvm::cl::init(AmpOptimizerOptions().paramGroups)};

  /// The options' names, the keys an options string takes, sorted.
  SmallVector<std::string> getKeys() const {
    SmallVector<std::string> keys;
    for (const auto &entry : OptionsMap)
      keys.push_back(entry.getKey().str());
    llvm::sort(keys);
    return keys;
  }
};

/// Adds the passes of --amp-train-step to `pm`: amp-name-arguments,
/// amp-autocast (unless compute-type=none), amp-autodiff, amp-loss-scaling,
/// amp-optimizer. Refuses, through `errorHandler`, autocast options that
/// would have no effect because no autocast runs.
LogicalResult
buildTrainStepPipeline(OpPassManager &pm,
                       const TrainStepPipelineOptions &options,
                       function_ref<LogicalResult(const Twine &)> errorHandler);

/// Adds what makes a model's evaluation with the settings of its training
/// step: amp-name-arguments, amp-evaluation (of `options.function`,
/// returning `outputs` after the loss) and amp-autocast as
/// buildTrainStepPipeline adds it, without its report, graph or remarks
/// (the step's pipeline writes those).
void buildEvaluationPipeline(OpPassManager &pm,
                             const TrainStepPipelineOptions &options,
                             ArrayRef<std::string> outputs);

/// Options of --amp-backend: those of amp-plan-buffers, under its names and
/// with its defaults.
struct BackendPipelineOptions
    : public PassPipelineOptions<BackendPipelineOptions> {
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the memory figures as JSON to this file (-: "
                     "stdout)"),
      llvm::cl::init(AmpPlanBuffersOptions().report)};
  Option<int64_t> bySizeLimit{
      *this, "by-size-limit",
      llvm::cl::desc("Place by size up to this many values, in program "
                     "order beyond"),
      llvm::cl::init(AmpPlanBuffersOptions().bySizeLimit)};
  Option<bool> keepConvolutions{
      *this, "keep-convolutions",
      llvm::cl::desc("Run the convolutions and their gradients as runtime "
                     "calls (amp_conv2d_*: cuDNN on the GPU) rather than "
                     "as im2col and GEMMs"),
      llvm::cl::init(true)};
  Option<bool> keepBatchNorms{
      *this, "keep-batch-norms",
      llvm::cl::desc("Run the batch norms and their gradients as runtime "
                     "calls (amp_batch_norm_*: cuDNN on the GPU) rather "
                     "than as generated reductions and elementwise kernels"),
      llvm::cl::init(true)};
};

/// --amp-backend runs three stages on a module holding a training step;
/// buildBackendPipeline adds all three. A driver that does work between
/// them (amp-compile chooses the step after inlining and saves its IR
/// before fusion) adds them one by one.
///
/// 1. inline: the gradient function into the step.
void addBackendInlining(OpPassManager &pm);
/// 2. amp-decompose (keeping the convolutions and batch norms the runtime
///    runs whole, as amp_conv2d_* and amp_batch_norm_*, unless told not
///    to), canonicalize, cse, then amp-restore-locations on each function:
///    the folder leaves the constants it hoists without a location.
void addBackendSimplification(OpPassManager &pm, bool keepConvolutions = true,
                              bool keepBatchNorms = true);
/// 3. amp-fuse, then amp-plan-buffers, on each function.
void addBackendPlanning(OpPassManager &pm,
                        const BackendPipelineOptions &options);
/// All three stages.
void buildBackendPipeline(OpPassManager &pm,
                          const BackendPipelineOptions &options);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PIPELINES_H
