//===- Pipelines.cpp - named amp pass pipelines ---------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
/// Options of --amp-train-step: autocast's compute type, then the
/// optimizer's options under the same names as --amp-optimizer.
struct TrainStepOptions : public PassPipelineOptions<TrainStepOptions> {
  Option<std::string> computeType{
      *this, "compute-type",
      llvm::cl::desc("f16 or bf16 to run --amp-autocast first; none (the "
                     "default) keeps the graph's precision"),
      llvm::cl::init("none")};
  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("Autocast policy file (needs compute-type f16 or bf16)"),
      llvm::cl::init("")};
  Option<std::string> optimizer{*this, "optimizer",
                                llvm::cl::desc("sgd or adamw"),
                                llvm::cl::init("sgd")};
  Option<double> lr{*this, "lr", llvm::cl::desc("Learning rate"),
                    llvm::cl::init(1e-3)};
  Option<double> momentum{*this, "momentum", llvm::cl::desc("SGD momentum"),
                          llvm::cl::init(0.0)};
  Option<double> dampening{*this, "dampening", llvm::cl::desc("SGD dampening"),
                           llvm::cl::init(0.0)};
  Option<bool> nesterov{*this, "nesterov", llvm::cl::desc("SGD Nesterov"),
                        llvm::cl::init(false)};
  Option<double> weightDecay{
      *this, "weight-decay",
      llvm::cl::desc("Weight decay (default: 0 for SGD, 0.01 for AdamW)"),
      llvm::cl::init(-1.0)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("AdamW beta1"),
                       llvm::cl::init(0.9)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("AdamW beta2"),
                       llvm::cl::init(0.999)};
  Option<double> eps{*this, "eps", llvm::cl::desc("AdamW epsilon"),
                     llvm::cl::init(1e-8)};
  Option<double> maxGradNorm{*this, "max-grad-norm",
                             llvm::cl::desc("Global gradient-norm clip"),
                             llvm::cl::init(0.0)};
  Option<int64_t> accumulate{*this, "accumulate",
                             llvm::cl::desc("Micro-batches per update"),
                             llvm::cl::init(1)};
  Option<std::string> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("auto (dynamic for f16, none otherwise), dynamic, "
                     "static or none"),
      llvm::cl::init("auto")};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("Initial (or static) loss scale"),
                           llvm::cl::init(65536.0)};
  Option<double> growthFactor{*this, "growth-factor",
                              llvm::cl::desc("Scale growth factor"),
                              llvm::cl::init(2.0)};
  Option<double> backoffFactor{*this, "backoff-factor",
                               llvm::cl::desc("Scale backoff factor"),
                               llvm::cl::init(0.5)};
  Option<int64_t> growthInterval{*this, "growth-interval",
                                 llvm::cl::desc("Clean steps before growth"),
                                 llvm::cl::init(2000)};
  Option<double> minScale{*this, "min-scale",
                          llvm::cl::desc("Lower clamp of the scale (0: none)"),
                          llvm::cl::init(0.0)};
  Option<double> maxScale{*this, "max-scale",
                          llvm::cl::desc("Upper clamp of the scale (0: none)"),
                          llvm::cl::init(0.0)};
  Option<int64_t> hysteresis{*this, "hysteresis",
                             llvm::cl::desc("Overflows before backing off"),
                             llvm::cl::init(1)};
};
} // namespace

/// The passes of --amp-train-step.
static void buildTrainStep(OpPassManager &pm, const TrainStepOptions &options) {
  // The names first: the step's tensors are called by them.
  pm.addPass(createAmpNameArguments());
  if (options.computeType != "none") {
    AmpAutocastOptions autocast;
    autocast.computeType = options.computeType;
    autocast.policyFile = options.policy;
    pm.addPass(createAmpAutocast(autocast));
  }
  pm.addPass(createAmpAutodiff());
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

void amp::registerAmpPipelines() {
  // PassPipelineRegistration's builder cannot fail; this one refuses
  // options that contradict each other before any pass is added.
  registerPassPipeline(
      "amp-train-step",
      "From forward + loss to a training step: amp-name-arguments, "
      "[amp-autocast], amp-autodiff, amp-loss-scaling, amp-optimizer",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TrainStepOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        // Without a compute type no autocast runs, and a policy file would
        // be ignored.
        if (options.computeType == "none" && !options.policy.empty())
          return errorHandler(
              "amp-train-step: a policy file (policy=" + options.policy +
              ") needs compute-type=f16 or bf16; without "
              "one no autocast runs to apply it");
        buildTrainStep(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(TrainStepOptions());
      });
}
