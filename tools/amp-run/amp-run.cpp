//===- amp-run.cpp - run amp functions with the reference interpreter -----===//
//
//   amp-run model.mlir --random-inputs=1 --check-finite
//   amp-run model.mlir --function=mlp --input=x.npy --input=y.npy ...
//
// Exit codes: 0 success, 1 error (bad input, an op that cannot run),
// 2 --check-finite found a non-finite value, 3 --gradcheck found a gradient
// beyond the tolerance.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/IR/StepArguments.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Interpreter/GradCheck.h"
#include "amp/Interpreter/Interpreter.h"
#include "amp/Interpreter/Npy.h"
#include "amp/Interpreter/RandomInputs.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::interp;

namespace {
llvm::cl::OptionCategory category("amp-run options");

llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                         llvm::cl::desc("<model.mlir>"),
                                         llvm::cl::init("-"),
                                         llvm::cl::cat(category));
llvm::cl::opt<std::string>
    functionName("function",
                 llvm::cl::desc("Function to run (default: the only one "
                                "with a body)"),
                 llvm::cl::cat(category));
llvm::cl::list<std::string>
    inputFiles("input",
               llvm::cl::desc(".npy file for an argument: NAME=FILE for the "
                              "argument of that name, FILE for the next one "
                              "no NAME= gives, in order"),
               llvm::cl::cat(category));
llvm::cl::opt<uint64_t> randomSeed(
    "random-inputs",
    llvm::cl::desc("Seed for random values of the arguments no --input gives"),
    llvm::cl::cat(category));
llvm::cl::opt<Distribution> distribution(
    "distribution", llvm::cl::desc("Distribution of random float inputs"),
    llvm::cl::values(clEnumValN(Distribution::Normal, "normal",
                                "normal, mean 0, deviation --scale"),
                     clEnumValN(Distribution::Uniform, "uniform",
                                "uniform in [-scale, scale)")),
    llvm::cl::init(Distribution::Normal), llvm::cl::cat(category));
llvm::cl::opt<double> scale("scale",
                            llvm::cl::desc("Scale of random float inputs"),
                            llvm::cl::init(1.0), llvm::cl::cat(category));
llvm::cl::opt<int64_t> indexBound(
    "index-bound",
    llvm::cl::desc("Random integer inputs no use bounds lie in [0, N) "
                   "(N >= 1, default 10)"),
    llvm::cl::init(10), llvm::cl::cat(category));
llvm::cl::opt<bool> checkFiniteOpt(
    "check-finite",
    llvm::cl::desc("Stop at the first op producing inf or NaN and report it"),
    llvm::cl::cat(category));
llvm::cl::opt<bool> gradCheckOpt(
    "gradcheck",
    llvm::cl::desc("Compare the amp-autodiff gradients of the parameters with "
                   "central finite differences, in f64"),
    llvm::cl::cat(category));
llvm::cl::opt<int64_t> gradCheckSamples(
    "gradcheck-samples",
    llvm::cl::desc("Elements checked per parameter (default 32)"),
    llvm::cl::init(32), llvm::cl::cat(category));
llvm::cl::opt<double> gradCheckTolerance(
    "gradcheck-tolerance",
    llvm::cl::desc("Largest relative error accepted (default 1e-6)"),
    llvm::cl::init(1e-6), llvm::cl::cat(category));
llvm::cl::opt<unsigned> trainSteps(
    "train-steps",
    llvm::cl::desc("Run a training step function N times, feeding its "
                   "updated parameters and state back (0: no step; "
                   "--save-inputs still writes the inputs)"),
    llvm::cl::init(0), llvm::cl::cat(category));
llvm::cl::opt<unsigned>
    printEvery("print-every",
               llvm::cl::desc("With --train-steps, print every N-th loss"),
               llvm::cl::init(10), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    outputDir("output-dir",
              llvm::cl::desc("Write result<i>.npy files to this directory "
                             "(<name>.npy for a result named by amp.name)"),
              llvm::cl::cat(category));
llvm::cl::opt<std::string>
    saveInputsDir("save-inputs",
                  llvm::cl::desc("Write the arguments as arg<i>.npy here"),
                  llvm::cl::cat(category));
llvm::cl::opt<int64_t>
    printLimit("print-limit",
               llvm::cl::desc("Elements printed per result (0: none)"),
               llvm::cl::init(16), llvm::cl::cat(category));
llvm::cl::opt<unsigned>
    timeRuns("time",
             llvm::cl::desc("Run N more times and print the median wall time"),
             llvm::cl::init(0), llvm::cl::cat(category));
} // namespace

static void printValue(llvm::raw_ostream &os, double value, ElementKind kind) {
  if (std::isnan(value)) {
    os << "nan";
  } else if (std::isinf(value)) {
    os << (value > 0 ? "inf" : "-inf");
  } else if (!isFloatKind(kind)) {
    os << static_cast<int64_t>(value);
  } else {
    // Enough digits to name the stored value exactly.
    os << llvm::format(kind == ElementKind::F64 ? "%.17g" : "%.9g", value);
  }
}

static void printResult(llvm::raw_ostream &os, unsigned index,
                        const Tensor &tensor, MLIRContext *context) {
  os << "result #" << index << ": " << tensor.getType(context);
  if (printLimit <= 0) {
    os << "\n";
    return;
  }
  os << " = [";
  int64_t shown = std::min<int64_t>(printLimit, tensor.getNumElements());
  for (int64_t i = 0; i < shown; ++i) {
    if (i)
      os << ", ";
    printValue(os, tensor[i], tensor.getKind());
  }
  if (shown < tensor.getNumElements())
    os << ", ... (" << tensor.getNumElements() << " elements)";
  os << "]\n";
}

static func::FuncOp selectFunction(ModuleOp module) {
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      candidates.push_back(func);
  if (functionName.getNumOccurrences()) {
    auto func = module.lookupSymbol<func::FuncOp>(functionName);
    if (func && !func.isExternal())
      return func;
    InFlightDiagnostic diag = module.emitError();
    diag << (func ? "@" + functionName + " is a declaration, which cannot run"
                  : "no function named @" + functionName);
    if (candidates.empty()) {
      diag << "; the module holds no function with a body";
    } else {
      diag << "; the module holds";
      for (func::FuncOp candidate : candidates)
        diag << " @" << candidate.getSymName();
    }
    return nullptr;
  }
  if (candidates.size() == 1)
    return candidates.front();
  InFlightDiagnostic diag = module.emitError();
  if (candidates.empty()) {
    diag << "the module holds no function with a body";
  } else {
    diag << "the module holds " << candidates.size()
         << " functions; choose one with --function:";
    for (func::FuncOp func : candidates)
      diag << " @" << func.getSymName();
  }
  return nullptr;
}

static FailureOr<std::vector<Tensor>> collectArguments(func::FuncOp func) {
  unsigned numArgs = func.getNumArguments();
  // The file of each argument: NAME=FILE by name, plain FILEs in order for
  // the arguments left. A path may hold '=': only a prefix that names an
  // argument is a name.
  std::vector<std::string> files(numArgs);
  SmallVector<std::string> positional;
  for (const std::string &input : inputFiles) {
    auto [name, path] = StringRef(input).split('=');
    std::optional<unsigned> named;
    if (!path.empty())
      for (unsigned i = 0; i < numArgs; ++i)
        if (getArgumentName(func, i) == name)
          named = i;
    if (!named) {
      positional.push_back(input);
      continue;
    }
    if (!files[*named].empty()) {
      func.emitError() << "--input gives " << describeArgument(func, *named)
                       << " twice";
      return failure();
    }
    files[*named] = path.str();
  }
  unsigned next = 0;
  for (const std::string &path : positional) {
    while (next < numArgs && !files[next].empty())
      ++next;
    if (next == numArgs) {
      func.emitError() << "@" << func.getSymName() << " takes " << numArgs
                       << " arguments, " << inputFiles.size()
                       << " --input files given";
      return failure();
    }
    files[next] = path;
  }
  // State with nothing given starts at its amp.state value, a buffer at
  // its amp.buffer value; anything else needs a file or --random-inputs.
  SmallVector<std::string> missing;
  for (unsigned i = 0; i < numArgs; ++i)
    if (files[i].empty() && !func.getArgAttr(i, AmpDialect::kStateAttrName) &&
        !func.getArgAttr(i, AmpDialect::kBufferAttrName))
      missing.push_back(describeArgument(func, i));
  if (!missing.empty() && randomSeed.getNumOccurrences() == 0) {
    func.emitError() << "@" << func.getSymName() << " takes " << numArgs
                     << " arguments, " << inputFiles.size()
                     << " --input files given; none for "
                     << llvm::join(missing, ", ")
                     << "; pass --random-inputs=SEED for the rest";
    return failure();
  }
  RandomInputOptions random;
  random.distribution = distribution;
  random.scale = scale;
  random.defaultIndexBound = indexBound;
  std::vector<Tensor> args;
  for (BlockArgument arg : func.getArguments()) {
    unsigned i = arg.getArgNumber();
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    std::optional<ElementKind> kind =
        type ? getElementKind(type.getElementType()) : std::nullopt;
    if (!type || !type.hasStaticShape() || !kind) {
      func.emitError() << "argument #" << i << " has type " << arg.getType()
                       << ", which the interpreter cannot hold";
      return failure();
    }
    if (files[i].empty()) {
      args.push_back(makeRandomInput(arg, randomSeed, random));
      continue;
    }
    llvm::Expected<Tensor> tensor = readNpy(files[i], *kind);
    if (!tensor) {
      func.emitError() << "argument #" << i << ": "
                       << llvm::toString(tensor.takeError());
      return failure();
    }
    if (tensor->getShape() != type.getShape()) {
      func.emitError() << "argument #" << i << " expects " << type << ", "
                       << files[i] << " holds "
                       << tensor->getType(func.getContext());
      return failure();
    }
    args.push_back(std::move(*tensor));
  }
  return args;
}

/// The file of tensor `i` of `tensors` written by writeTensors: `names[i]`
/// (a result's amp.name) as <name>.npy where it is a plain file name
/// (letters, digits, '_', '-' and '.', not first) and not positional,
/// else <prefix><i>.npy.
static std::string tensorFileName(StringRef prefix, size_t i,
                                  ArrayRef<std::string> names) {
  StringRef name = i < names.size() ? StringRef(names[i]) : StringRef();
  bool plain = !name.empty() && name.size() <= 200 && name.front() != '.' &&
               llvm::all_of(name, [](char c) {
                 return llvm::isAlnum(c) || c == '_' || c == '-' || c == '.';
               });
  StringRef digits = name;
  bool positional = digits.consume_front(prefix) && !digits.empty() &&
                    llvm::all_of(digits, llvm::isDigit);
  if (plain && !positional)
    return (name + ".npy").str();
  return (prefix + Twine(i) + ".npy").str();
}

static LogicalResult writeTensors(StringRef dir, StringRef prefix,
                                  ArrayRef<Tensor> tensors,
                                  ArrayRef<std::string> names = {}) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    llvm::WithColor::error()
        << "cannot create " << dir << ": " << ec.message() << "\n";
    return failure();
  }
  for (auto [i, tensor] : llvm::enumerate(tensors)) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, tensorFileName(prefix, i, names));
    if (llvm::Error error = writeNpy(path, tensor)) {
      llvm::WithColor::error() << "cannot write " << path << ": "
                               << llvm::toString(std::move(error)) << "\n";
      return failure();
    }
  }
  return success();
}

/// Runs a step function (params, state, batch) -> (params', state', loss)
/// `trainSteps` times on a fixed batch, feeding the new parameters and state
/// back, and prints the loss curve.
static int train(Interpreter &interpreter, func::FuncOp func,
                 std::vector<Tensor> args) {
  SmallVector<unsigned> threaded;
  std::optional<unsigned> scaleSlot;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    if (!isPersistent(func, i))
      continue;
    if (func.getArgAttr(i, AmpDialect::kLossScaleAttrName))
      scaleSlot = threaded.size();
    threaded.push_back(i);
  }
  // With loss scaling the step also returns found_inf after the loss.
  unsigned expected = threaded.size() + (scaleSlot ? 2 : 1);
  if (func.getNumResults() != expected) {
    func.emitError() << "--train-steps needs a step function returning its "
                        "parameters and state ("
                     << threaded.size() << " values), the loss"
                     << (scaleSlot ? " and found_inf" : "") << "; @"
                     << func.getSymName() << " returns "
                     << func.getNumResults();
    return 1;
  }
  // No step: the parameters and state stay as given.
  if (trainSteps == 0) {
    llvm::outs() << "trained 0 steps\n";
    std::vector<Tensor> unchanged;
    for (unsigned i : threaded)
      unchanged.push_back(args[i]);
    if (!outputDir.empty() &&
        failed(writeTensors(outputDir, "result", unchanged)))
      return 1;
    return 0;
  }
  unsigned lossIndex = threaded.size();
  double first = 0, last = 0;
  unsigned skipped = 0;
  std::vector<Tensor> lastResults;
  for (unsigned step = 0; step < trainSteps; ++step) {
    double scale = scaleSlot ? args[threaded[*scaleSlot]][0] : 0;
    FailureOr<std::vector<Tensor>> results = interpreter.run(func, args);
    if (failed(results))
      return interpreter.stoppedAtNonFinite() ? 2 : 1;
    last = (*results)[lossIndex][0];
    bool overflow = scaleSlot && (*results)[lossIndex + 1][0] != 0;
    skipped += overflow;
    lastResults = *results;
    if (step == 0)
      first = last;
    if (step % printEvery == 0 || step + 1 == trainSteps) {
      llvm::outs() << llvm::format("step %u loss %.9g", step, last);
      // The parts of the loss, as amp-step prints them.
      for (auto [k, i] : llvm::enumerate(threaded))
        if (getArgumentKind(func, i) == ArgumentKind::loss_part)
          llvm::outs() << llvm::format(" %s %.9g",
                                       getArgumentName(func, i).str().c_str(),
                                       (*results)[k][0]);
      if (scaleSlot)
        llvm::outs() << llvm::format(" scale %g%s", scale,
                                     overflow ? " skipped" : "");
      llvm::outs() << "\n";
    }
    for (auto [k, i] : llvm::enumerate(threaded))
      args[i] = std::move((*results)[k]);
  }
  llvm::outs() << llvm::format(
      "trained %u steps: loss %.9g -> %.9g (%.1f%% lower)",
      trainSteps.getValue(), first, last, 100.0 * (first - last) / first);
  if (scaleSlot)
    llvm::outs() << llvm::format(", %u skipped, final scale %g", skipped,
                                 args[threaded[*scaleSlot]][0]);
  llvm::outs() << "\n";
  // The last step's results: the trained parameters and state, the loss.
  if (!outputDir.empty() &&
      failed(writeTensors(outputDir, "result", lastResults)))
    return 1;
  return 0;
}

/// The argument of `func` holding its loss scale (a step with a dynamic
/// loss scaler), if any.
static std::optional<unsigned> lossScaleArgument(func::FuncOp func) {
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    if (func.getArgAttr(i, AmpDialect::kLossScaleAttrName))
      return i;
  return std::nullopt;
}

/// --check-finite on a step with a loss scaler, whose run at the scale the
/// arguments hold failed with `report`: its first inf or NaN may be the
/// scaler's own search (the scaled backward pass overflows; the step is
/// skipped and the scale halved, as GradScaler does), not an overflow of
/// the model. The run is repeated at half the scale, and half again, down
/// to 1: where it is finite, the overflow is the search, reported on
/// stdout with the scale the scaler would settle at (exit 0); where it is
/// not finite at any scale, the model overflows, reported as the first
/// run's error (exit 2).
static int explainNonFinite(Interpreter &interpreter, func::FuncOp func,
                            std::vector<Tensor> args, unsigned scaleArg,
                            StringRef report, MLIRContext &context) {
  if (!interpreter.stoppedAtNonFinite()) {
    llvm::errs() << report;
    return 1;
  }
  const double start = args[scaleArg][0];
  double settled = 0;
  unsigned halvings = 0;
  {
    // The runs at smaller scales report nothing.
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    for (double scale = start / 2; scale >= 1 && !settled; scale /= 2) {
      ++halvings;
      args[scaleArg].getMutableData()[0] = scale;
      FailureOr<std::vector<Tensor>> retried = interpreter.run(func, args);
      if (succeeded(retried))
        settled = scale;
      else if (!interpreter.stoppedAtNonFinite())
        break;
    }
  }
  if (!settled) {
    llvm::errs() << report;
    llvm::errs() << llvm::format(
        "amp-run: note: the step is not finite at any loss scale from %g "
        "down to 1: the model overflows, not the loss scaler's search\n",
        start);
    return 2;
  }
  // The report's first line: "LOC: error: first non-finite value: ...".
  StringRef first = StringRef(report).split('\n').first;
  auto [where, what] = first.split(": error: ");
  llvm::outs() << llvm::format(
      "check-finite: at loss scale %g the scaled backward pass overflows "
      "(%s: %s); the loss scaler skips such a step and halves the scale\n",
      start, where.str().c_str(), what.str().c_str());
  llvm::outs() << llvm::format(
      "check-finite: the step is finite from loss scale %g, %u halvings "
      "later (as many skipped steps at GradScaler's backoff of 0.5): the "
      "scaler's normal search, not an overflow of the model\n",
      settled, halvings);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "amp-run: run amp functions with the reference interpreter\n");

  if (indexBound < 1) {
    llvm::WithColor::error(llvm::errs(), "amp-run")
        << "--index-bound must be at least 1, not " << indexBound << "\n";
    return 1;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Locations say where; the generic op dump would only repeat it.
  context.printOpOnDiagnostic(false);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &error);
  if (!file) {
    llvm::WithColor::error() << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  // Messages name arguments as the source does (gradcheck: 'w1').
  if (failed(amp::nameArgumentsFromSource(*module, &sourceMgr)))
    return 1;
  // Gradients taken inside a function (amp.grad) are its ops and their
  // vector-Jacobian products, as a training step's pipeline writes them.
  if (failed(amp::expandGrads(*module)))
    return 1;

  func::FuncOp func = selectFunction(*module);
  if (!func)
    return 1;
  if (failed(verifySizes(func)))
    return 1;
  for (auto callee : module->getOps<func::FuncOp>())
    if (callee != func && failed(verifySizes(callee)))
      return 1;
  FailureOr<std::vector<Tensor>> args = collectArguments(func);
  if (failed(args))
    return 1;
  if (!saveInputsDir.empty() &&
      failed(writeTensors(saveInputsDir, "arg", *args)))
    return 1;

  if (gradCheckOpt) {
    GradCheckOptions options;
    options.samples = gradCheckSamples;
    FailureOr<std::vector<ParameterCheck>> checks =
        gradCheck(*module, func.getSymName(), *args, options);
    if (failed(checks))
      return 1;
    bool passed = true;
    for (const ParameterCheck &check : *checks) {
      bool ok = check.worstRelativeError <= gradCheckTolerance;
      passed &= ok;
      llvm::outs() << llvm::format(
          "gradcheck @%s %s %s: %lld elements (%lld at a kink "
          "skipped), largest gradient %.3e, worst relative error %.3e %s\n",
          func.getSymName().str().c_str(), check.argument.c_str(),
          check.type.c_str(), static_cast<long long>(check.checked),
          static_cast<long long>(check.skipped), check.largestGradient,
          check.worstRelativeError, ok ? "ok" : "FAILED");
    }
    return passed ? 0 : 3;
  }

  InterpreterOptions options;
  options.checkFinite = checkFiniteOpt;
  Interpreter interpreter(*module, options);

  if (trainSteps.getNumOccurrences())
    return train(interpreter, func, *args);
  FailureOr<std::vector<Tensor>> results = failure();
  if (std::optional<unsigned> scale = lossScaleArgument(func);
      checkFiniteOpt && scale) {
    // The report is held until it is known whether it is the scaler's.
    std::string report;
    {
      llvm::raw_string_ostream os(report);
      SourceMgrDiagnosticHandler hold(sourceMgr, &context, os);
      results = interpreter.run(func, *args);
    }
    if (failed(results))
      return explainNonFinite(interpreter, func, *args, *scale, report,
                              context);
  } else {
    results = interpreter.run(func, *args);
  }
  if (failed(results))
    return interpreter.stoppedAtNonFinite() ? 2 : 1;

  for (auto [i, result] : llvm::enumerate(*results))
    printResult(llvm::outs(), i, result, &context);
  if (checkFiniteOpt)
    llvm::outs() << "check-finite: no op produced a non-finite value\n";

  if (timeRuns > 0) {
    std::vector<double> millis;
    for (unsigned run = 0; run < timeRuns; ++run) {
      auto start = std::chrono::steady_clock::now();
      (void)interpreter.run(func, *args);
      std::chrono::duration<double, std::milli> elapsed =
          std::chrono::steady_clock::now() - start;
      millis.push_back(elapsed.count());
    }
    llvm::sort(millis);
    llvm::outs() << llvm::format("time: median %.3f ms over %u runs\n",
                                 millis[millis.size() / 2],
                                 timeRuns.getValue());
  }

  // Results the function names (an evaluation's: loss, logits) are files
  // of those names.
  std::vector<std::string> names;
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    auto name =
        func.getResultAttrOfType<StringAttr>(i, AmpDialect::kNameAttrName);
    names.push_back(name ? name.getValue().str() : "");
  }
  if (!outputDir.empty() &&
      failed(writeTensors(outputDir, "result", *results, names)))
    return 1;
  return 0;
}
