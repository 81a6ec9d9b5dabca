//===- Pipelines.cpp - named amp pass pipelines ---------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
// The passes' own defaults, so that the pipeline cannot drift from them.
const AmpAutocastOptions kAutocast;
const AmpAutodiffOptions kAutodiff;
const AmpLossScalingOptions kScaling;
const AmpOptimizerOptions kOptimizer;

/// Options of --amp-train-step: every option of the passes it runs, under
/// the passes' names (amp-loss-scaling's `mode` is `loss-scaling` here)
/// and with their defaults, except `compute-type`, whose `none` (the
/// default) skips amp-autocast.
struct TrainStepOptions : public PassPipelineOptions<TrainStepOptions> {
  // amp-autocast.
  Option<std::string> computeType{
      *this, "compute-type",
      llvm::cl::desc("f16 or bf16 to run --amp-autocast first; none (the "
                     "default) keeps the graph's precision"),
      llvm::cl::init("none")};
  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("Autocast: JSON or YAML file mapping op names to "
                     "categories"),
      llvm::cl::init(kAutocast.policyFile)};
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
      llvm::cl::init(kAutocast.keepFp32LowIO)};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Autocast: write the decisions, casts and summary as "
                     "JSON"),
      llvm::cl::init(kAutocast.reportFile)};
  Option<std::string> dot{
      *this, "dot",
      llvm::cl::desc("Autocast: write the graph as Graphviz DOT, colored by "
                     "precision"),
      llvm::cl::init(kAutocast.dotFile)};
  Option<bool> remarks{
      *this, "remarks",
      llvm::cl::desc("Autocast: emit a remark per decision and a summary "
                     "remark per function"),
      llvm::cl::init(kAutocast.emitRemarks)};

  // amp-autodiff.
  Option<std::string> function{
      *this, "function",
      llvm::cl::desc("Autodiff: differentiate only this function"),
      llvm::cl::init(kAutodiff.functionName)};

  // amp-loss-scaling.
  Option<std::string> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("Loss scaling's mode: auto (dynamic for f16, none "
                     "otherwise), dynamic, static or none"),
      llvm::cl::init(kScaling.mode)};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("Initial (or static) loss scale"),
                           llvm::cl::init(kScaling.initScale)};
  Option<double> growthFactor{
      *this, "growth-factor",
      llvm::cl::desc("Scale multiplier after growth-interval clean steps "
                     "(> 1)"),
      llvm::cl::init(kScaling.growthFactor)};
  Option<double> backoffFactor{
      *this, "backoff-factor",
      llvm::cl::desc("Scale multiplier after an overflow, in (0, 1)"),
      llvm::cl::init(kScaling.backoffFactor)};
  Option<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("Clean steps before the scale grows"),
      llvm::cl::init(kScaling.growthInterval)};
  Option<double> minScale{*this, "min-scale",
                          llvm::cl::desc("Lower clamp of the scale (0: none)"),
                          llvm::cl::init(kScaling.minScale)};
  Option<double> maxScale{*this, "max-scale",
                          llvm::cl::desc("Upper clamp of the scale (0: none)"),
                          llvm::cl::init(kScaling.maxScale)};
  Option<int64_t> hysteresis{
      *this, "hysteresis",
      llvm::cl::desc("Overflows tolerated before backing off (1: PyTorch)"),
      llvm::cl::init(kScaling.hysteresis)};

  // amp-optimizer.
  Option<std::string> optimizer{*this, "optimizer",
                                llvm::cl::desc("sgd or adamw"),
                                llvm::cl::init(kOptimizer.optimizer)};
  Option<double> lr{*this, "lr", llvm::cl::desc("Learning rate"),
                    llvm::cl::init(kOptimizer.lr)};
  Option<double> momentum{*this, "momentum", llvm::cl::desc("SGD momentum"),
                          llvm::cl::init(kOptimizer.momentum)};
  Option<double> dampening{*this, "dampening", llvm::cl::desc("SGD dampening"),
                           llvm::cl::init(kOptimizer.dampening)};
  Option<bool> nesterov{*this, "nesterov",
                        llvm::cl::desc("SGD Nesterov momentum"),
                        llvm::cl::init(kOptimizer.nesterov)};
  Option<double> weightDecay{
      *this, "weight-decay",
      llvm::cl::desc("Weight decay (default: 0 for SGD, 0.01 for AdamW)"),
      llvm::cl::init(kOptimizer.weightDecay)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("AdamW beta1"),
                       llvm::cl::init(kOptimizer.beta1)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("AdamW beta2"),
                       llvm::cl::init(kOptimizer.beta2)};
  Option<double> eps{*this, "eps", llvm::cl::desc("AdamW epsilon"),
                     llvm::cl::init(kOptimizer.eps)};
  Option<double> maxGradNorm{
      *this, "max-grad-norm",
      llvm::cl::desc("Clip gradients to this global 2-norm (0: no "
                     "clipping)"),
      llvm::cl::init(kOptimizer.maxGradNorm)};
  Option<int64_t> accumulate{
      *this, "accumulate",
      llvm::cl::desc("Micro-batches per update (gradient accumulation)"),
      llvm::cl::init(kOptimizer.accumulate)};

  /// The autocast options set to anything but their defaults, by name.
  SmallVector<StringRef> autocastOptionsSet() const {
    SmallVector<StringRef> set;
    if (policy != kAutocast.policyFile)
      set.push_back("policy");
    if (!allow.empty())
      set.push_back("allow");
    if (!deny.empty())
      set.push_back("deny");
    if (keepFp32LowIO != kAutocast.keepFp32LowIO)
      set.push_back("keep-fp32-low-io");
    if (report != kAutocast.reportFile)
      set.push_back("report");
    if (dot != kAutocast.dotFile)
      set.push_back("dot");
    if (remarks != kAutocast.emitRemarks)
      set.push_back("remarks");
    return set;
  }
};

/// The passes of --amp-train-step.
void buildTrainStep(OpPassManager &pm, const TrainStepOptions &options) {
  // The names first: the step's tensors are called by them.
  pm.addPass(createAmpNameArguments());
  if (options.computeType != "none") {
    AmpAutocastOptions autocast;
    autocast.computeType = options.computeType;
    autocast.policyFile = options.policy;
    // The pass copies the lists; these live until it is created.
    SmallVector<std::string> allow(options.allow.begin(), options.allow.end());
    SmallVector<std::string> deny(options.deny.begin(), options.deny.end());
    autocast.allowOps = allow;
    autocast.denyOps = deny;
    autocast.keepFp32LowIO = options.keepFp32LowIO;
    autocast.reportFile = options.report;
    autocast.dotFile = options.dot;
    autocast.emitRemarks = options.remarks;
    pm.addPass(createAmpAutocast(autocast));
  }
  AmpAutodiffOptions autodiff;
  autodiff.functionName = options.function;
  pm.addPass(createAmpAutodiff(autodiff));
  AmpLossScalingOptions scaling;
  scaling.mode = options.lossScaling;
  scaling.initScale = options.initScale;
  scaling.growthFactor = options.growthFactor;
  scaling.backoffFactor = options.backoffFactor;
  scaling.growthInterval = options.growthInterval;
  scaling.minScale = options.minScale;
  scaling.maxScale = options.maxScale;
  scaling.hysteresis = options.hysteresis;
  pm.addPass(createAmpLossScaling(scaling));
  AmpOptimizerOptions optimizer;
  optimizer.optimizer = options.optimizer;
  optimizer.lr = options.lr;
  optimizer.momentum = options.momentum;
  optimizer.dampening = options.dampening;
  optimizer.nesterov = options.nesterov;
  optimizer.weightDecay = options.weightDecay;
  optimizer.beta1 = options.beta1;
  optimizer.beta2 = options.beta2;
  optimizer.eps = options.eps;
  optimizer.maxGradNorm = options.maxGradNorm;
  optimizer.accumulate = options.accumulate;
  pm.addPass(createAmpOptimizer(optimizer));
}
} // namespace

void amp::registerAmpPipelines() {
  // registerPassPipeline rather than PassPipelineRegistration: the builder
  // reports options that would have no effect.
  registerPassPipeline(
      "amp-train-step",
      "From forward + loss to a training step: amp-name-arguments, "
      "[amp-autocast], amp-autodiff, amp-loss-scaling, amp-optimizer",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TrainStepOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        SmallVector<StringRef> autocastOnly = options.autocastOptionsSet();
        if (options.computeType == "none" && !autocastOnly.empty())
          return errorHandler(
              "amp-train-step: " + llvm::join(autocastOnly, ", ") +
              (autocastOnly.size() == 1 ? " is an option" : " are options") +
              " of amp-autocast, which runs only with compute-type=f16 or "
              "bf16");
        buildTrainStep(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(TrainStepOptions());
      });
}
