//===- amp-compile.cpp - a training graph to a compiled step --------------===//
//
//   amp-compile model.mlir --target=host|cuda -o DIR [pipeline options]
//
// Runs --amp-train-step (unless the input already holds a step) and
// --amp-backend, and the same for the model's evaluation (amp-evaluation
// and amp-autocast on a copy of the model; --eval=false leaves it out),
// translates the step and its evaluation to CUDA C++ (--amp-to-cuda) and
// hands it to the package writer (Target/Cuda/StepPackage.h), which
// writes the header and build.sh and builds DIR/lib<name>.so with the
// system C++ compiler (host) or nvcc (cuda). Between the backend's stages
// it keeps only the step, checks that the backend can compile it and saves
// its IR. DIR keeps the source, the step IR the source came from
// (<name>.step.mlir, runnable by amp-run) and the evaluation's
// (<name>.eval.mlir; <name>.eval1.mlir, ... at --eval-batch's other
// sizes), the header (<name>.h) and the memory report
// (<name>.memory.json).
//
// Everything is written into a temporary directory first (in DIR, or
// beside it while there is no DIR), and moves into DIR only when the whole
// run succeeds: a failed run leaves DIR as it was.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpOps.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Dialect/Amp/Transforms/Pipelines.h"
#include "amp/InitAll.h"
#include "amp/Target/Cuda/CostReport.h"
#include "amp/Target/Cuda/StepPackage.h"
#include "amp/Target/Cuda/TranslateToCuda.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <algorithm>

using namespace mlir;

namespace {

llvm::cl::OptionCategory category("amp-compile options");

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<model.mlir>"),
                                     llvm::cl::Required,
                                     llvm::cl::cat(category));
llvm::cl::opt<std::string> outputDir("o",
                                     llvm::cl::desc("Output directory (written "
                                                    "whole or not at all)"),
                                     llvm::cl::Required,
                                     llvm::cl::cat(category));
llvm::cl::opt<std::string>
    target("target", llvm::cl::desc("host (C++ compiler) or cuda (nvcc)"),
           llvm::cl::init("host"), llvm::cl::cat(category));
llvm::cl::opt<std::string> stepName(
    "name",
    llvm::cl::desc("Name of the step's library and C API: a C identifier "
                   "(default: the input file's stem, other characters "
                   "replaced by '_')"),
    llvm::cl::cat(category));
llvm::cl::opt<amp::ComputeType> computeType(
    "compute-type",
    llvm::cl::desc("f16 (the default), bf16, fp8 (bf16 with FP8 GEMMs), "
                   "fp8-f16 (f16 with FP8 GEMMs), or f32 (also 'none': no "
                   "casts, all fp32)"),
    llvm::cl::init(amp::kDefaultComputeType), llvm::cl::cat(category));
llvm::cl::opt<amp::OptimizerKind>
    optimizer("optimizer", llvm::cl::desc("sgd, adam or adamw (the default)"),
              llvm::cl::init(amp::kDefaultOptimizer), llvm::cl::cat(category));
llvm::cl::opt<amp::LossScalingOption> lossScaling(
    "loss-scaling",
    llvm::cl::desc("auto (dynamic for f16), dynamic, static or none"),
    llvm::cl::init(amp::LossScalingOption::automatic), llvm::cl::cat(category));
llvm::cl::opt<std::string> trainOptions(
    "train-options",
    llvm::cl::desc("More --amp-train-step options, as 'lr=0.01 momentum=0.9'"),
    llvm::cl::init(""), llvm::cl::cat(category));
llvm::cl::opt<std::string> planOptions(
    "plan-options",
    llvm::cl::desc("More --amp-plan-buffers options, as 'by-size-limit=0'"),
    llvm::cl::init(""), llvm::cl::cat(category));
llvm::cl::opt<bool> evaluation(
    "eval",
    llvm::cl::desc("Also compile the model's evaluation, forward only, into "
                   "the library (default: true)"),
    llvm::cl::init(true), llvm::cl::cat(category));
llvm::cl::list<std::string> evalOutputs(
    "eval-outputs",
    llvm::cl::desc("Values the evaluation returns after the loss, by their "
                   "SSA names in the model (logits,hidden)"),
    llvm::cl::CommaSeparated, llvm::cl::cat(category));
llvm::cl::list<int64_t> evalBatches(
    "eval-batch",
    llvm::cl::desc("Compile the evaluation for batches of these sizes "
                   "(N,M,...; default: the step's batch), as amp-opt "
                   "--amp-rebatch gives the model; the first is the "
                   "library's evaluation, amp_step_evaluate picks by the "
                   "batch; all read the step's parameters"),
    llvm::cl::CommaSeparated, llvm::cl::cat(category));
llvm::cl::opt<bool> decomposeConvolutions(
    "decompose-convolutions",
    llvm::cl::desc("Run convolutions as generated im2col and col2im kernels "
                   "and GEMMs instead of the runtime's amp_conv2d_* calls "
                   "(cuDNN on the GPU)"),
    llvm::cl::cat(category));
llvm::cl::opt<bool> decomposeBatchNorms(
    "decompose-batch-norms",
    llvm::cl::desc("Run batch norms as generated reductions and elementwise "
                   "kernels instead of the runtime's amp_batch_norm_* calls "
                   "(cuDNN on the GPU)"),
    llvm::cl::cat(category));
llvm::cl::opt<bool> sourceOnly(
    "source-only",
    llvm::cl::desc("Write the source and header; do not build the library"),
    llvm::cl::cat(category));
llvm::cl::opt<bool> costReport(
    "cost-report",
    llvm::cl::desc("Also write <name>.cost.json, the modeled cost of each "
                   "kernel on a GPU, and print it as a table"),
    llvm::cl::cat(category));
llvm::cl::opt<bool> countAccesses(
    "count-accesses",
    llvm::cl::desc("Build a host library that counts each kernel launch's "
                   "loads and stores, appending a JSON line a launch to "
                   "$AMP_STEP_ACCESS_LOG (slow: for checking the cost report)"),
    llvm::cl::cat(category));
llvm::cl::opt<std::string>
    costGpu("cost-gpu",
            llvm::cl::desc("The GPU of the printed cost table: h100 (the "
                           "default) or h200; the JSON has both"),
            llvm::cl::init("h100"), llvm::cl::cat(category));
llvm::cl::opt<std::string> cudaArch("cuda-arch",
                                    llvm::cl::desc("nvcc -arch (sm_90)"),
                                    llvm::cl::init("sm_90"),
                                    llvm::cl::cat(category));
llvm::cl::opt<std::string>
    nvccPath("nvcc",
             llvm::cl::desc("nvcc to use (default: $CUDA_HOME/bin/nvcc, "
                            "/usr/local/cuda/bin/nvcc, then PATH)"),
             llvm::cl::cat(category));
llvm::cl::opt<std::string>
    cxxPath("cxx",
            llvm::cl::desc("C++ compiler for the host target (default: $CXX, "
                           "then c++ on PATH)"),
            llvm::cl::cat(category));
llvm::cl::opt<std::string> runtimeInclude(
    "runtime-include", llvm::cl::desc("The runtime's include directory"),
    llvm::cl::init(AMP_RUNTIME_INCLUDE_DIR), llvm::cl::cat(category));
llvm::cl::opt<std::string> runtimeLib(
    "runtime-lib", llvm::cl::desc("The directory of libamp_runtime.so"),
    llvm::cl::init(AMP_RUNTIME_LIBRARY_DIR), llvm::cl::cat(category));

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "amp-compile") << message << "\n";
  return 1;
}
/// Reports an error of the package writer.
int fail(llvm::Error error) { return fail(llvm::toString(std::move(error))); }

/// Whether `func` is a training step: its results thread its parameters
/// and optimizer state, if any, and then give the loss. A gradient function
/// (`amp.gradient_of`) never is, whatever its result types.
bool isStep(func::FuncOp func) {
  return !func.isExternal() &&
         !func->hasAttr(amp::AmpDialect::kGradientOfAttrName) &&
         !amp::backend::getThreadedArguments(func).empty();
}

/// Whether `module` already holds a training step.
bool holdsStep(ModuleOp module) {
  return llvm::any_of(module.getOps<func::FuncOp>(), isStep);
}

/// The step function. Errors name the candidates.
FailureOr<func::FuncOp> findStep(ModuleOp module) {
  func::FuncOp found;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!isStep(func))
      continue;
    if (found) {
      module.emitError() << "amp-compile: several step functions (@"
                         << found.getSymName() << ", @" << func.getSymName()
                         << ")";
      return failure();
    }
    found = func;
  }
  if (!found) {
    module.emitError() << "amp-compile: no training step in the module (a "
                          "function with amp.param arguments and a loss)";
    return failure();
  }
  return found;
}

/// The parameters a step with sharded optimizer state (zero-stage=1) holds
/// in low precision, by name: the evaluation reads them as the step holds
/// them.
llvm::StringMap<Type> lowPrecisionParameters(ModuleOp module) {
  llvm::StringMap<Type> types;
  for (auto func : module.getOps<func::FuncOp>()) {
    bool sharded = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      sharded |= static_cast<bool>(
          func.getArgAttr(i, amp::AmpDialect::kShardOfAttrName));
    if (!sharded)
      continue;
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto name =
          func.getArgAttrOfType<StringAttr>(i, amp::AmpDialect::kNameAttrName);
      auto type = dyn_cast<RankedTensorType>(func.getArgumentTypes()[i]);
      if (name && type && func.getArgAttr(i, amp::AmpDialect::kParamAttrName) &&
          !type.getElementType().isF32())
        types[name.getValue()] = type;
    }
  }
  return types;
}

/// Runs the evaluation's passes on `module`, a copy of the model: the
/// forward function returning the loss and --eval-outputs in the step's
/// precision (buildEvaluationPipeline), inlined and simplified, alone in
/// the module.
FailureOr<func::FuncOp>
buildEvaluation(ModuleOp module, const amp::TrainStepPipelineOptions &options,
                const llvm::StringMap<Type> &stepTypes) {
  {
    SmallVector<std::string> outputs(evalOutputs.begin(), evalOutputs.end());
    PassManager pm(module.getContext(), ModuleOp::getOperationName());
    amp::buildEvaluationPipeline(pm, options, outputs);
    amp::addBackendInlining(pm);
    if (failed(pm.run(module)))
      return failure();
  }
  func::FuncOp found;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func->hasAttr(amp::AmpDialect::kEvaluationOfAttrName))
      continue;
    if (found) {
      module.emitError() << "amp-compile: several model functions (@"
                         << found.getSymName() << ", @" << func.getSymName()
                         << "); name one with --train-options='function=...'";
      return failure();
    }
    found = func;
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (func != found)
      func.erase();
  // A parameter the step holds in low precision, widened on entry: exact,
  // and autocast's casts give it back.
  OpBuilder entry = OpBuilder::atBlockBegin(&found.getBody().front());
  for (BlockArgument arg : found.getArguments()) {
    auto name = found.getArgAttrOfType<StringAttr>(
        arg.getArgNumber(), amp::AmpDialect::kNameAttrName);
    auto low = name ? stepTypes.find(name.getValue()) : stepTypes.end();
    if (low == stepTypes.end() ||
        !found.getArgAttr(arg.getArgNumber(), amp::AmpDialect::kParamAttrName))
      continue;
    Type wide = arg.getType();
    arg.setType(low->second);
    auto widened = entry.create<amp::CastOp>(arg.getLoc(), wide, arg);
    arg.replaceAllUsesExcept(widened, widened);
  }
  SmallVector<Type> inputs;
  for (BlockArgument arg : found.getArguments())
    inputs.push_back(arg.getType());
  found.setFunctionType(
      FunctionType::get(module.getContext(), inputs, found.getResultTypes()));
  if (failed(amp::backend::checkCompilable(found)))
    return failure();
  return found;
}

/// The backend's simplification of an evaluation's module (decomposition
/// included): after amp-rebatch, whose rules are the model's ops'.
LogicalResult simplifyEvaluation(ModuleOp module) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  amp::addBackendSimplification(pm, !decomposeConvolutions,
                                !decomposeBatchNorms);
  return pm.run(module);
}

/// What main returns to go on to its next stage.
constexpr int kGoOn = -1;

/// Checks the options that need no input, and `output`, and finds the
/// compiler before any work (a missing nvcc is the user's first error, not
/// the last): fills `package` and `gpu`.
int checkOptions(amp::StepPackageDirectory &output,
                 amp::StepPackageOptions &package, const amp::GpuSpec *&gpu) {
  if (target != "host" && target != "cuda")
    return fail("--target must be host or cuda, not '" + target + "'");
  for (int64_t batch : evalBatches) {
    if (batch < 1)
      return fail("--eval-batch=" + std::to_string(batch) +
                  ": a batch holds 1 or more examples");
    if (llvm::count(evalBatches, batch) > 1)
      return fail("--eval-batch names the batch of " + std::to_string(batch) +
                  " twice");
  }
  if (!evalBatches.empty() && !evaluation)
    return fail("--eval-batch needs the evaluation (--eval=false leaves it "
                "out)");
  bool cuda = target == "cuda";
  gpu = amp::lookupGpuSpec(costGpu);
  if (!gpu)
    return fail("--cost-gpu must be h100 or h200, not '" + costGpu + "'");
  // A name given is used as it is; one taken from the file is made an
  // identifier.
  std::string name = stepName;
  if (stepName.getNumOccurrences() && !amp::isStepName(name))
    return fail("--name must be a C identifier (letters, digits and '_', "
                "not starting with a digit), not '" +
                name + "'");
  if (!stepName.getNumOccurrences())
    name = amp::toStepName(llvm::sys::path::stem(inputFile));
  if (llvm::Error error = output.check())
    return fail(std::move(error));
  // FP8 GEMMs run on sm_89 and later (Ada, Hopper): an older target gets
  // none, rather than a step that fails on its first GEMM.
  bool fp8 = computeType == amp::ComputeType::fp8 ||
             computeType == amp::ComputeType::fp8_f16;
  if (cuda && fp8) {
    StringRef digits = StringRef(cudaArch).drop_until(llvm::isDigit);
    unsigned version = 0;
    digits.take_while(llvm::isDigit).getAsInteger(10, version);
    if (version < 89)
      return fail("--compute-type=" +
                  amp::stringifyOption<amp::ComputeType>(computeType).str() +
                  " makes FP8 GEMMs, which need sm_89 or later (Ada, "
                  "Hopper); --cuda-arch=" +
                  cudaArch +
                  " has no FP8 tensor cores: use bf16 there, or "
                  "--cuda-arch=sm_90");
  }
  package.name = name;
  package.cuda = cuda;
  package.cudaArch = cudaArch;
  package.runtimeInclude = runtimeInclude;
  package.runtimeLib = runtimeLib;
  package.countAccesses = countAccesses;
  if (countAccesses && cuda)
    return fail("--count-accesses counts on the host: use --target=host");
  if (sourceOnly)
    return kGoOn;
  package.compiler = amp::findStepCompiler(cuda, cuda ? nvccPath : cxxPath);
  if (package.compiler.empty() && cuda && !nvccPath.empty())
    return fail("--nvcc: '" + nvccPath + "' is not an executable program");
  if (package.compiler.empty() && !cuda && !cxxPath.empty())
    return fail("--cxx: '" + cxxPath + "' is not an executable program");
  if (package.compiler.empty())
    return fail(cuda ? "--target=cuda needs nvcc, and none was found "
                       "(looked at --nvcc, $CUDA_HOME/bin, "
                       "/usr/local/cuda/bin and PATH); install the CUDA "
                       "toolkit or use --target=host"
                     : "no C++ compiler found (looked at --cxx, $CXX and "
                       "c++ on PATH)");
  return kGoOn;
}

/// `text` with every item's key spelled as the pipeline's options are,
/// underscores as dashes: max_grad_norm=1 is max-grad-norm=1, as the
/// step's hyperparameter max_grad_norm is named at run time. Values are
/// left as they are.
std::string withDashedKeys(StringRef text) {
  std::string dashed;
  for (StringRef item : amp::splitOptionItems(text)) {
    std::string key = amp::optionKey(item).str();
    std::replace(key.begin(), key.end(), '_', '-');
    dashed += (dashed.empty() ? "" : " ") + key +
              item.drop_front(amp::optionKey(item).size()).str();
  }
  return dashed;
}

/// An evaluation of the model, in a module of its own until it joins the
/// step's.
struct Evaluation {
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
};

/// The evaluation `base` given batches of `batch` examples
/// (amp-rebatch); `suffix` is added to its function's name.
FailureOr<Evaluation> rebatchEvaluation(Evaluation &base, int64_t batch,
                                        StringRef suffix) {
  Evaluation copy;
  copy.module = base.module->clone();
  copy.func = copy.module->lookupSymbol<func::FuncOp>(base.func.getSymName());
  PassManager pm(copy.module->getContext(), ModuleOp::getOperationName());
  amp::AmpRebatchOptions rebatch;
  rebatch.batch = batch;
  rebatch.functionName = copy.func.getSymName().str();
  pm.addPass(amp::createAmpRebatch(rebatch));
  if (failed(pm.run(*copy.module)))
    return failure();
  if (!suffix.empty())
    copy.func.setSymName((copy.func.getSymName() + suffix).str());
  return copy;
}

/// The step, and the evaluations of its model, through the backend's
/// stages up to buffer planning: `module` is left holding the step alone,
/// `evaluations` (none without an evaluation) one per --eval-batch size
/// (or one at the step's batch), the first the library's `eval`.
int buildStepAndEvaluation(ModuleOp module,
                           std::vector<Evaluation> &evaluations) {
  MLIRContext *context = module.getContext();
  // The training step, and the evaluation of its model (from a copy of the
  // model taken before the step's passes change it).
  bool given = holdsStep(module);
  if (given && !evalOutputs.empty())
    return fail("--eval-outputs needs a model; " + inputFile +
                " holds a training step already, which has no evaluation");
  amp::TrainStepPipelineOptions options;
  options.computeType = computeType.getValue();
  options.optimizer = optimizer.getValue();
  options.lossScaling = lossScaling.getValue();
  // Keys in either spelling (weight_decay or weight-decay). An unknown key
  // is named here, with the closest known one; the parser prints why it
  // fails otherwise (a bad value).
  std::string dashed = withDashedKeys(trainOptions);
  if (std::string unknown = amp::unknownOptionKey(options.getKeys(), dashed);
      !unknown.empty())
    return fail("bad training options '" + trainOptions + "': " + unknown);
  if (failed(options.parseFromString(dashed)))
    return fail("bad training options '" + trainOptions + "'");
  OwningOpRef<ModuleOp> evaluationModule;
  if (!given && evaluation)
    evaluationModule = module.clone();
  if (!given) {
    PassManager pm(context, ModuleOp::getOperationName());
    std::string reason;
    auto refuse = [&](const llvm::Twine &message) {
      reason = (": " + message).str();
      return failure();
    };
    if (failed(amp::buildTrainStepPipeline(pm, options, refuse)))
      return fail("bad training options '" + trainOptions + "'" + reason);
    if (failed(pm.run(module)))
      return 1;
  }
  if (evaluationModule) {
    FailureOr<func::FuncOp> built = buildEvaluation(
        *evaluationModule, options, lowPrecisionParameters(module));
    if (failed(built))
      return 1;
    Evaluation base{std::move(evaluationModule), *built};
    if (evalBatches.empty())
      evaluations.push_back(std::move(base));
    for (auto [k, batch] : llvm::enumerate(evalBatches)) {
      // <model>_eval, then <model>_eval_b<N> for the other sizes.
      FailureOr<Evaluation> rebatched =
          rebatchEvaluation(base, batch, k ? "_b" + std::to_string(batch) : "");
      if (failed(rebatched))
        return 1;
      evaluations.push_back(std::move(*rebatched));
    }
    for (Evaluation &evaluation : evaluations)
      if (failed(simplifyEvaluation(*evaluation.module)))
        return 1;
  } else if (!evalBatches.empty()) {
    return fail("--eval-batch needs the evaluation (the input holds a "
                "training step already)");
  }
  // The backend's stages, with the step chosen after inlining and its IR
  // saved before fusion.
  {
    PassManager pm(context, ModuleOp::getOperationName());
    amp::addBackendInlining(pm);
    if (failed(pm.run(module)))
      return 1;
  }
  FailureOr<func::FuncOp> step = findStep(module);
  if (failed(step))
    return 1;
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (func != *step)
      func.erase();
  // The backend can compile it? (before any compiler runs)
  if (failed(amp::backend::checkCompilable(*step)))
    return 1;
  PassManager pm(context, ModuleOp::getOperationName());
  amp::addBackendSimplification(pm, !decomposeConvolutions,
                                !decomposeBatchNorms);
  if (failed(pm.run(module)))
    return 1;
  return kGoOn;
}

/// Writes `module`'s text into `output` as `file`.
int writeModule(amp::StepPackageDirectory &output, ModuleOp module,
                const std::string &file) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  if (llvm::Error error = output.write(file, text))
    return fail(std::move(error));
  return kGoOn;
}

/// Plans the buffers of the step (with the memory report) and of the
/// evaluations, which then join the step's module: one file for all.
int planBuffers(amp::StepPackageDirectory &output, const std::string &name,
                ModuleOp module, std::vector<Evaluation> &evaluations) {
  amp::BackendPipelineOptions options;
  if (failed(options.parseFromString(planOptions)))
    return fail("bad plan options: " + planOptions);
  // The step first; the evaluation has an arena of its own, and the
  // report is the step's.
  options.report = output.pathOf(name + ".memory.json");
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  amp::addBackendPlanning(pm, options);
  if (failed(pm.run(module)))
    return 1;
  options.report = amp::AmpPlanBuffersOptions().report;
  for (Evaluation &evaluation : evaluations) {
    PassManager evaluationPm(module.getContext(), ModuleOp::getOperationName());
    amp::addBackendPlanning(evaluationPm, options);
    if (failed(evaluationPm.run(*evaluation.module)))
      return 1;
    evaluation.func->remove();
    module.push_back(evaluation.func);
  }
  return kGoOn;
}

/// Translates the planned module, writes the cost report where asked,
/// and builds the package (or only writes its source); DIR is replaced
/// only here, at the end.
int writePackage(amp::StepPackageDirectory &output,
                 const amp::StepPackageOptions &package, ModuleOp module,
                 const amp::GpuSpec &gpu) {
  std::string source;
  amp::StepCost cost;
  {
    llvm::raw_string_ostream os(source);
    if (failed(amp::translateToCuda(module, os, "", package.name, &cost)))
      return 1;
  }
  // A library call off its fast path is the user's to know about where
  // the step is for a GPU.
  if (package.cuda)
    for (const amp::KernelCost &kernel : cost.kernels)
      if (!kernel.precondition.empty())
        llvm::errs() << "amp-compile: warning: " << kernel.name << ": "
                     << kernel.precondition << "\n";
  if (costReport) {
    std::string json;
    llvm::raw_string_ostream os(json);
    os << llvm::formatv("{0:2}", amp::costReportToJson(cost)) << "\n";
    if (llvm::Error error = output.write(package.name + ".cost.json", json))
      return fail(std::move(error));
    amp::printCostTable(cost, gpu, llvm::outs(), /*rows=*/20);
  }
  if (llvm::Error error = amp::writeStepPackage(output, package, source))
    return fail(std::move(error));
  std::string libraryFile = amp::getStepLibraryFileName(package);
  if (sourceOnly) {
    // An older library of this name would not match the new source.
    if (llvm::Error error = output.commit({libraryFile}))
      return fail(std::move(error));
    return 0;
  }
  if (llvm::Error error = amp::buildStepLibrary(output, package))
    return fail(std::move(error));
  if (llvm::Error error = output.commit({}))
    return fail(std::move(error));
  SmallString<256> written(outputDir);
  llvm::sys::path::append(written, libraryFile);
  llvm::outs() << "amp-compile: wrote " << written << "\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  amp::registerAllPasses();
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "amp-compile: a training graph to an ahead-of-time compiled step\n");

  amp::StepPackageOptions package;
  const amp::GpuSpec *gpu = nullptr;
  amp::StepPackageDirectory output(outputDir);
  if (int code = checkOptions(output, package, gpu); code != kGoOn)
    return code;

  DialectRegistry registry;
  amp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, &context);
  if (!module)
    return 1;
  // The step's tensors are called by the model's names.
  if (failed(amp::nameArgumentsFromSource(*module, &sourceMgr)))
    return 1;

  std::vector<Evaluation> evaluations;
  if (int code = buildStepAndEvaluation(*module, evaluations); code != kGoOn)
    return code;
  if (llvm::Error error = output.create())
    return fail(std::move(error));
  if (int code = writeModule(output, *module, package.name + ".step.mlir");
      code != kGoOn)
    return code;
  // <name>.eval.mlir, then <name>.eval1.mlir, ... for the other sizes.
  for (auto [k, evaluation] : llvm::enumerate(evaluations))
    if (int code = writeModule(output, *evaluation.module,
                               package.name + ".eval" +
                                   (k ? std::to_string(k) : "") + ".mlir");
        code != kGoOn)
      return code;
  if (int code = planBuffers(output, package.name, *module, evaluations);
      code != kGoOn)
    return code;
  return writePackage(output, package, *module, *gpu);
}
