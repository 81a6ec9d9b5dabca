//===- Pipelines.cpp - named amp pass pipelines ---------------------------===//

#include "amp/Dialect/Amp/Transforms/Pipelines.h"

#include "amp/Dialect/Amp/Transforms/LrSchedules.h"
#include "amp_runtime/edit_distance.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The autocast options of `options` set to anything but their defaults,
/// by name.
SmallVector<StringRef>
getAutocastOptionsSet(const TrainStepPipelineOptions &options) {
  const AmpAutocastOptions defaults;
  SmallVector<StringRef> set;
  if (options.policy != defaults.policyFile)
    set.push_back("policy");
  if (!options.allow.empty())
    set.push_back("allow");
  if (!options.deny.empty())
    set.push_back("deny");
  if (options.keepFp32LowIO != defaults.keepFp32LowIO)
    set.push_back("keep-fp32-low-io");
  if (options.fp8Gradients != defaults.fp8Gradients)
    set.push_back("fp8-gradients");
  if (options.fp8KeepFirstLast != defaults.fp8KeepFirstLast)
    set.push_back("fp8-keep-first-last");
  if (options.fp8Scaling != defaults.fp8Scaling)
    set.push_back("fp8-scaling");
  if (options.fp8AmaxHistory != defaults.fp8AmaxHistory)
    set.push_back("fp8-amax-history");
  if (options.fp8Margin != defaults.fp8Margin)
    set.push_back("fp8-margin");
  if (options.fp8AmaxCompute != defaults.fp8AmaxCompute)
    set.push_back("fp8-amax-compute");
  if (options.report != defaults.reportFile)
    set.push_back("report");
  if (options.dot != defaults.dotFile)
    set.push_back("dot");
  if (options.remarks != defaults.emitRemarks)
    set.push_back("remarks");
  return set;
}
/// Adds amp-autocast with `options`' settings unless compute-type is none;
/// with its report, graph and remarks only where `reports` is set.
void addAutocast(OpPassManager &pm, const TrainStepPipelineOptions &options,
                 bool reports) {
  if (options.computeType == ComputeType::none)
    return;
  AmpAutocastOptions autocast;
  autocast.computeType = options.computeType;
  autocast.policyFile = options.policy;
  // The pass copies the lists; these live until it is created.
  SmallVector<std::string> allow(options.allow.begin(), options.allow.end());
  SmallVector<std::string> deny(options.deny.begin(), options.deny.end());
  autocast.allowOps = allow;
  autocast.denyOps = deny;
  autocast.keepFp32LowIO = options.keepFp32LowIO;
  autocast.fp8Gradients = options.fp8Gradients;
  autocast.fp8KeepFirstLast = options.fp8KeepFirstLast;
  autocast.fp8Scaling = options.fp8Scaling;
  autocast.fp8AmaxHistory = options.fp8AmaxHistory;
  autocast.fp8Margin = options.fp8Margin;
  autocast.fp8AmaxCompute = options.fp8AmaxCompute;
  if (reports) {
    autocast.reportFile = options.report;
    autocast.dotFile = options.dot;
    autocast.emitRemarks = options.remarks;
  }
  pm.addPass(createAmpAutocast(autocast));
}
} // namespace

/// The first option given in `options` that the step they configure would
/// not read, with what would read it; none where every given one is read.
static std::optional<std::string>
getUnreadOption(const TrainStepPipelineOptions &options) {
  OptimizerKind optimizer = options.optimizer;
  LossScalingOption scaling = options.lossScaling;
  StringRef schedule = options.schedule;
  bool adam = optimizer != OptimizerKind::sgd;
  bool sgd = optimizer == OptimizerKind::sgd;
  // auto scales a step dynamically where its gradient function holds f16
  // (known only once it is built): its options may be read.
  bool dynamic =
      scaling != LossScalingOption::none && scaling != LossScalingOption::fixed;
  bool scaled = scaling != LossScalingOption::none;
  bool parallel = options.dataParallel || options.zeroStage == 1;
  // A schedule's option is read by the schedules with that parameter.
  std::optional<LrScheduleKind> kind = parseLrSchedule(schedule);
  auto scheduleReads = [&](StringRef option) {
    return kind && lrScheduleReads(*kind, option);
  };
  auto scheduleReader = [](StringRef option) {
    return "schedule=" + llvm::join(getSchedulesReading(option), " or ");
  };
  struct Read {
    const llvm::cl::Option &option;
    bool given, read;
    std::string reader;
  } reads[] = {
      {options.momentum, options.momentum.hasValue(), sgd, "optimizer=sgd"},
      {options.dampening, options.dampening.hasValue(), sgd, "optimizer=sgd"},
      {options.nesterov, options.nesterov.hasValue(), sgd, "optimizer=sgd"},
      {options.beta1, options.beta1.hasValue(), adam, "optimizer=adam(w)"},
      {options.beta2, options.beta2.hasValue(), adam, "optimizer=adam(w)"},
      {options.eps, options.eps.hasValue(), adam, "optimizer=adam(w)"},
      {options.bucketMb, options.bucketMb.hasValue(), parallel,
       "data-parallel=true"},
      {options.initScale, options.initScale.hasValue(), scaled,
       "loss scaling (loss-scaling=auto, static or dynamic)"},
      {options.growthFactor, options.growthFactor.hasValue(), dynamic,
       "dynamic loss scaling (loss-scaling=auto or dynamic)"},
      {options.backoffFactor, options.backoffFactor.hasValue(), dynamic,
       "dynamic loss scaling"},
      {options.growthInterval, options.growthInterval.hasValue(), dynamic,
       "dynamic loss scaling"},
      {options.hysteresis, options.hysteresis.hasValue(), dynamic,
       "dynamic loss scaling"},
      {options.minScale, options.minScale.hasValue(), dynamic,
       "dynamic loss scaling"},
      {options.maxScale, options.maxScale.hasValue(), dynamic,
       "dynamic loss scaling"},
      {options.warmupSteps, options.warmupSteps.hasValue(),
       scheduleReads(options.warmupSteps.ArgStr),
       scheduleReader(options.warmupSteps.ArgStr)},
      {options.warmupStartFactor, options.warmupStartFactor.hasValue(),
       scheduleReads(options.warmupStartFactor.ArgStr),
       scheduleReader(options.warmupStartFactor.ArgStr)},
      {options.decaySteps, options.decaySteps.hasValue(),
       scheduleReads(options.decaySteps.ArgStr),
       scheduleReader(options.decaySteps.ArgStr)},
      {options.minLr, options.minLr.hasValue(),
       scheduleReads(options.minLr.ArgStr),
       scheduleReader(options.minLr.ArgStr)},
      {options.stepSize, options.stepSize.hasValue(),
       scheduleReads(options.stepSize.ArgStr),
       scheduleReader(options.stepSize.ArgStr)},
      {options.gamma, options.gamma.hasValue(),
       scheduleReads(options.gamma.ArgStr),
       scheduleReader(options.gamma.ArgStr)},
  };
  for (const Read &read : reads)
    if (read.given && !read.read)
      return (read.option.ArgStr + " is read only with " + read.reader +
              "; this step (optimizer=" + stringifyOption(optimizer) +
              ", loss-scaling=" + stringifyOption(scaling) + ", compute-type=" +
              stringifyOption(options.computeType.getValue()) +
              ", schedule=" + schedule + ") would ignore it")
          .str();
  return std::nullopt;
}

LogicalResult amp::buildTrainStepPipeline(
    OpPassManager &pm, const TrainStepPipelineOptions &options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  SmallVector<StringRef> autocastOnly = getAutocastOptionsSet(options);
  bool fp8 = options.computeType == ComputeType::fp8 ||
             options.computeType == ComputeType::fp8_f16;
  for (StringRef name : autocastOnly)
    if (name.starts_with("fp8-") && !fp8)
      return errorHandler("amp-train-step: " + name +
                          " is an option of compute-type=fp8 (or fp8-f16), "
                          "not of compute-type=" +
                          stringifyOption<ComputeType>(options.computeType));
  if (options.computeType == ComputeType::none && !autocastOnly.empty())
    return errorHandler(
        "amp-train-step: " + llvm::join(autocastOnly, ", ") +
        (autocastOnly.size() == 1 ? " is an option" : " are options") +
        " of amp-autocast, which runs only with compute-type=f16 or bf16");
  // An option that the chosen optimizer, schedule, scaling or parallelism
  // does not read would be ignored: an error naming it and what reads it.
  if (std::optional<std::string> unread = getUnreadOption(options))
    return errorHandler("amp-train-step: " + *unread);
  // -1 is how the optimizer's options say "its own default": given, it
  // would be taken as that, not refused as the negative it is.
  if (options.weightDecay.hasValue() && options.weightDecay == -1.0)
    return errorHandler("amp-train-step: weight-decay must be non-negative "
                        "and finite, got -1");
  // The names first: the step's tensors are called by them. Gradients
  // taken inside the model are its ops before anything casts them.
  pm.addPass(createAmpNameArguments());
  pm.addPass(createAmpExpandGrads());
  addAutocast(pm, options, /*reports=*/true);
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
  optimizer.dataParallel = options.dataParallel;
  optimizer.bucketMb = options.bucketMb;
  optimizer.zeroStage = options.zeroStage;
  optimizer.replicas = options.replicas;
  optimizer.schedule = options.schedule;
  optimizer.warmupSteps = options.warmupSteps;
  optimizer.warmupStartFactor = options.warmupStartFactor;
  optimizer.decaySteps = options.decaySteps;
  optimizer.minLr = options.minLr;
  optimizer.stepSize = options.stepSize;
  optimizer.gamma = options.gamma;
  optimizer.paramGroups = options.paramGroups;
  pm.addPass(createAmpOptimizer(optimizer));
  return success();
}

void amp::buildEvaluationPipeline(OpPassManager &pm,
                                  const TrainStepPipelineOptions &options,
                                  ArrayRef<std::string> outputs) {
  pm.addPass(createAmpNameArguments());
  pm.addPass(createAmpExpandGrads());
  AmpEvaluationOptions evaluation;
  evaluation.functionName = options.function;
  evaluation.outputs = outputs;
  pm.addPass(createAmpEvaluation(evaluation));
  addAutocast(pm, options, /*reports=*/false);
}

void amp::addBackendInlining(OpPassManager &pm) {
  pm.addPass(createInlinerPass());
}

void amp::addBackendSimplification(OpPassManager &pm, bool keepConvolutions,
                                   bool keepBatchNorms) {
  // The ops the backend runs as others first, so that the cleanup sees
  // what they became.
  AmpDecomposeOptions decompose;
  decompose.keepConvolutions = keepConvolutions;
  decompose.keepBatchNorms = keepBatchNorms;
  pm.addNestedPass<func::FuncOp>(createAmpDecompose(decompose));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The folder erases the locations of the constants it hoists.
  pm.addNestedPass<func::FuncOp>(createAmpRestoreLocations());
  // Delayed scaling's FP8 GEMMs share the casts of what they read.
  pm.addNestedPass<func::FuncOp>(createAmpFp8Casts());
}

void amp::addBackendPlanning(OpPassManager &pm,
                             const BackendPipelineOptions &options) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createAmpOverlapReductions());
  funcPm.addPass(createAmpFuse());
  AmpPlanBuffersOptions plan;
  plan.report = options.report;
  plan.bySizeLimit = options.bySizeLimit;
  funcPm.addPass(createAmpPlanBuffers(plan));
}

void amp::buildBackendPipeline(OpPassManager &pm,
                               const BackendPipelineOptions &options) {
  addBackendInlining(pm);
  addBackendSimplification(pm, options.keepConvolutions,
                           options.keepBatchNorms);
  addBackendPlanning(pm, options);
}

SmallVector<StringRef> amp::splitOptionItems(StringRef text) {
  SmallVector<StringRef> items;
  size_t start = 0, depth = 0;
  char quote = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    if (quote)
      quote = c == quote ? 0 : quote;
    else if (c == '"' || c == '\'')
      quote = c;
    else if (c == '{')
      ++depth;
    else if (c == '}' && depth)
      --depth;
    else if (c == ' ' && !depth) {
      if (i > start)
        items.push_back(text.slice(start, i));
      start = i + 1;
    }
  }
  return items;
}

StringRef amp::optionKey(StringRef item) {
  return item.take_until([](char c) { return c == '='; });
}

std::string amp::unknownOptionKey(ArrayRef<std::string> keys, StringRef text) {
  for (StringRef item : splitOptionItems(text)) {
    StringRef key = optionKey(item);
    if (llvm::is_contained(keys, key))
      continue;
    std::string message = ("unknown key '" + key + "'").str();
    std::vector<std::string> names(keys.begin(), keys.end());
    size_t closest = amprt::closestName(key.str(), names);
    if (closest != names.size())
      message += "; did you mean '" + names[closest] + "'?";
    return message;
  }
  return "";
}

SmallVector<std::string> amp::printedOptionKeys(Pass &pass) {
  // As a pipeline prints the pass: "amp-optimizer{lr=0.001 ...}".
  std::string printed;
  llvm::raw_string_ostream os(printed);
  pass.printAsTextualPipeline(os);
  StringRef body = StringRef(printed).trim();
  SmallVector<std::string> keys;
  size_t open = body.find('{');
  if (open == StringRef::npos)
    return keys;
  for (StringRef item : splitOptionItems(body.drop_front(open + 1).drop_back()))
    keys.push_back(optionKey(item).str());
  return keys;
}

void amp::registerAmpPipelines() {
  // registerPassPipeline rather than PassPipelineRegistration: the builder
  // reports options that would have no effect.
  registerPassPipeline(
      "amp-train-step",
      "From forward + loss to a training step: amp-name-arguments, "
      "[amp-autocast], amp-autodiff, amp-loss-scaling, amp-optimizer",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        TrainStepPipelineOptions options;
        std::string unknown = unknownOptionKey(options.getKeys(), text);
        if (!unknown.empty())
          return errorHandler("amp-train-step: " + unknown);
        if (failed(options.parseFromString(text)))
          return failure();
        return buildTrainStepPipeline(pm, options, errorHandler);
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optionHandler) {
        optionHandler(TrainStepPipelineOptions());
      });
  PassPipelineRegistration<BackendPipelineOptions>(
      "amp-backend",
      "From a training step to fused, planned IR for --amp-to-cuda: inline, "
      "amp-decompose{keep-convolutions keep-batch-norms}, canonicalize, "
      "cse, then on each "
      "function "
      "amp-restore-locations, amp-overlap-reductions, amp-fuse, "
      "amp-plan-buffers",
      buildBackendPipeline);
}
