//===- amp-compile.cpp - a training graph to a compiled step --------------===//
//
//   amp-compile model.mlir --target=host|cuda -o DIR [pipeline options]
//
// Runs the training pipeline (unless the input already holds a step), the
// backend passes (inline, canonicalize, cse, amp-fuse, amp-plan-buffers),
// prints the step as CUDA C++ and builds it into DIR/lib<name>.so with the
// system C++ compiler (host) or nvcc (cuda). DIR keeps the source, the step
// IR the source came from (<name>.step.mlir, runnable by amp-run), the
// header (<name>.h) and the memory report (<name>.memory.json).
//
// Everything is written into a temporary directory first (in DIR, or
// beside it while there is no DIR), and moves into DIR only when the whole
// run succeeds: a failed run leaves DIR as it was.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/AmpDialect.h"
#include "amp/Dialect/Amp/Transforms/ArgumentNames.h"
#include "amp/Dialect/Amp/Transforms/Backend.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/InitAll.h"
#include "amp/Target/Cuda/TranslateToCuda.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/TargetParser/Host.h"

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
llvm::cl::opt<std::string> computeType(
    "compute-type",
    llvm::cl::desc("f16 (the default), bf16, or f32 (also 'none': no casts, "
                   "all fp32)"),
    llvm::cl::init("f16"), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    optimizer("optimizer", llvm::cl::desc("sgd or adamw"),
              llvm::cl::init("adamw"), llvm::cl::cat(category));
llvm::cl::opt<std::string> lossScaling(
    "loss-scaling",
    llvm::cl::desc("auto (dynamic for f16), dynamic, static or none"),
    llvm::cl::init("auto"), llvm::cl::cat(category));
llvm::cl::opt<std::string> trainOptions(
    "train-options",
    llvm::cl::desc("More --amp-train-step options, as 'lr=0.01 momentum=0.9'"),
    llvm::cl::init(""), llvm::cl::cat(category));
llvm::cl::opt<std::string> planOptions(
    "plan-options",
    llvm::cl::desc("More --amp-plan-buffers options, as 'by-size-limit=0'"),
    llvm::cl::init(""), llvm::cl::cat(category));
llvm::cl::opt<bool> sourceOnly(
    "source-only",
    llvm::cl::desc("Write the source and header; do not build the library"),
    llvm::cl::cat(category));
llvm::cl::opt<std::string> cudaArch("cuda-arch",
                                    llvm::cl::desc("nvcc -arch (sm_90)"),
                                    llvm::cl::init("sm_90"),
                                    llvm::cl::cat(category));
llvm::cl::opt<std::string> nvccPath(
    "nvcc", llvm::cl::desc("nvcc to use (default: $CUDA_HOME/bin/nvcc, "
                           "/usr/local/cuda/bin/nvcc, then PATH)"),
    llvm::cl::cat(category));
llvm::cl::opt<std::string> cxxPath(
    "cxx", llvm::cl::desc("C++ compiler for the host target (default: $CXX, "
                          "then c++ on PATH)"),
    llvm::cl::cat(category));
llvm::cl::opt<std::string>
    runtimeInclude("runtime-include",
                   llvm::cl::desc("The runtime's include directory"),
                   llvm::cl::init(AMP_RUNTIME_INCLUDE_DIR),
                   llvm::cl::cat(category));
llvm::cl::opt<std::string>
    runtimeLib("runtime-lib",
               llvm::cl::desc("The directory of libamp_runtime.so"),
               llvm::cl::init(AMP_RUNTIME_LIBRARY_DIR),
               llvm::cl::cat(category));

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "amp-compile") << message << "\n";
  return 1;
}

/// Whether `module` already holds a training step (a function with
/// amp.state arguments).
bool holdsStep(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (func.getArgAttr(i, amp::AmpDialect::kStateAttrName))
        return true;
  return false;
}

/// The step function: the one whose results thread its parameters and
/// state. Errors name the candidates.
FailureOr<func::FuncOp> findStep(ModuleOp module) {
  func::FuncOp found;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || amp::backend::getThreadedArguments(func).empty())
      continue;
    bool hasState = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      hasState |= static_cast<bool>(
          func.getArgAttr(i, amp::AmpDialect::kStateAttrName));
    if (!hasState)
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

LogicalResult writeFile(StringRef path, StringRef text) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file) {
    llvm::WithColor::error(llvm::errs(), "amp-compile") << error << "\n";
    return failure();
  }
  file->os() << text;
  file->keep();
  return success();
}

/// Whether `name` is a C identifier: letters, digits and '_', not starting
/// with a digit.
bool isIdentifier(StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// The output directory, written whole or not at all. Files go into a
/// temporary directory on the same file system (so that renames are
/// atomic); commit() moves them into place, and a run that ends before
/// commit() leaves nothing behind.
class OutputDirectory {
public:
  explicit OutputDirectory(StringRef path) {
    SmallString<256> absolute(path);
    llvm::sys::fs::make_absolute(absolute);
    llvm::sys::path::remove_dots(absolute);
    finalPath = absolute.str().str();
  }
  ~OutputDirectory() {
    if (!temporary.empty())
      llvm::sys::fs::remove_directories(temporary);
  }

  /// Checks, before any work, that the directory can be made: it is a
  /// directory or can become one.
  LogicalResult check() const {
    StringRef existing = finalPath;
    while (!llvm::sys::fs::exists(existing))
      existing = llvm::sys::path::parent_path(existing);
    if (!llvm::sys::fs::is_directory(existing))
      return error(std::make_error_code(std::errc::not_a_directory));
    if (llvm::sys::fs::access(existing, llvm::sys::fs::AccessMode::Write))
      return error(std::make_error_code(std::errc::permission_denied));
    return success();
  }

  /// Makes the temporary directory: inside the output directory where it
  /// exists (it may be the only place the user can write to), else beside
  /// it, making its parents.
  LogicalResult create() {
    SmallString<256> prefix(finalPath);
    if (!llvm::sys::fs::is_directory(finalPath)) {
      prefix = llvm::sys::path::parent_path(finalPath);
      if (std::error_code code = llvm::sys::fs::create_directories(prefix))
        return error(code);
    }
    llvm::sys::path::append(prefix, ".amp-compile");
    SmallString<256> path;
    if (std::error_code code =
            llvm::sys::fs::createUniqueDirectory(prefix, path))
      return error(code);
    temporary = path.str().str();
    return success();
  }

  /// The path of `file` while the run writes it.
  std::string pathOf(const llvm::Twine &file) const {
    SmallString<256> path(temporary);
    llvm::sys::path::append(path, file);
    return path.str().str();
  }
  /// The path of `file` once the run has succeeded.
  std::string finalPathOf(const llvm::Twine &file) const {
    SmallString<256> path(finalPath);
    llvm::sys::path::append(path, file);
    return path.str().str();
  }

  /// Moves the files into place: the temporary directory becomes the
  /// output directory if there was none; otherwise each file replaces its
  /// namesake by a rename (files of other names stay), the library last.
  /// `stale` names older outputs of this step that no longer match (a
  /// library the run did not build); they are removed.
  LogicalResult commit(ArrayRef<std::string> stale) {
    if (!llvm::sys::fs::exists(finalPath)) {
      if (std::error_code code = llvm::sys::fs::rename(temporary, finalPath))
        return error(code);
      temporary.clear();
      return success();
    }
    SmallVector<std::string> files;
    std::error_code code;
    for (llvm::sys::fs::directory_iterator it(temporary, code), end;
         !code && it != end; it.increment(code))
      files.push_back(llvm::sys::path::filename(it->path()).str());
    if (code)
      return error(code);
    // The library last: until it is there, the old one stays whole.
    llvm::sort(files, [](const std::string &a, const std::string &b) {
      bool aLib = StringRef(a).ends_with(".so");
      bool bLib = StringRef(b).ends_with(".so");
      return aLib != bLib ? bLib : a < b;
    });
    for (const std::string &file : files) {
      if (std::error_code code =
              llvm::sys::fs::rename(pathOf(file), finalPathOf(file))) {
        fail("cannot replace " + finalPathOf(file) + ": " + code.message());
        return failure();
      }
    }
    for (const std::string &file : stale)
      llvm::sys::fs::remove(finalPathOf(file));
    return success();
  }

private:
  LogicalResult error(std::error_code code) const {
    fail("cannot create " + finalPath + ": " + code.message());
    return failure();
  }

  std::string finalPath;
  std::string temporary;
};

/// Runs `program` with `args`; prints its command line first.
LogicalResult run(StringRef program, ArrayRef<std::string> args) {
  SmallVector<StringRef> argv{program};
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::string message;
  int code = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, {}, 0, 0,
                                       &message);
  if (code != 0) {
    fail("'" + program + "' failed" +
         (message.empty() ? " (exit " + std::to_string(code) + ")"
                          : ": " + message));
    return failure();
  }
  return success();
}

/// `program` as given by the user: a path, or a name looked up on PATH;
/// empty if it is neither.
std::string resolveProgram(StringRef program) {
  if (program.contains('/'))
    return llvm::sys::fs::can_execute(program) ? program.str() : "";
  if (auto found = llvm::sys::findProgramByName(program))
    return *found;
  return "";
}

/// The compiler for the target; empty if none is found. A compiler named
/// on the command line must exist: no fallback replaces it.
std::string findCompiler(bool cuda) {
  if (cuda) {
    if (!nvccPath.empty())
      return resolveProgram(nvccPath);
    if (const char *home = std::getenv("CUDA_HOME")) {
      SmallString<128> path(home);
      llvm::sys::path::append(path, "bin", "nvcc");
      if (llvm::sys::fs::can_execute(path))
        return path.str().str();
    }
    if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/nvcc"))
      return "/usr/local/cuda/bin/nvcc";
    if (auto found = llvm::sys::findProgramByName("nvcc"))
      return *found;
    return "";
  }
  if (!cxxPath.empty())
    return resolveProgram(cxxPath);
  if (const char *cxx = std::getenv("CXX"))
    if (auto found = llvm::sys::findProgramByName(cxx))
      return *found;
  if (auto found = llvm::sys::findProgramByName("c++"))
    return *found;
  return "";
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  amp::registerAllPasses();
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "amp-compile: a training graph to an ahead-of-time compiled step\n");

  if (target != "host" && target != "cuda")
    return fail("--target must be host or cuda, not '" + target + "'");
  bool cuda = target == "cuda";
  if (computeType == "f32")
    computeType = "none"; // the passes' name for "no casts"
  // A name given is used as it is; one taken from the file is made an
  // identifier.
  std::string name = stepName;
  if (stepName.getNumOccurrences() && !isIdentifier(name))
    return fail("--name must be a C identifier (letters, digits and '_', "
                "not starting with a digit), not '" +
                name + "'");
  if (!stepName.getNumOccurrences()) {
    name = llvm::sys::path::stem(inputFile).str();
    for (char &c : name)
      if (!llvm::isAlnum(c))
        c = '_';
    if (name.empty() || llvm::isDigit(name[0]))
      name = "step_" + name;
  }
  OutputDirectory output(outputDir);
  if (failed(output.check()))
    return 1;

  // Find the compiler before any work: a missing nvcc is the user's first
  // error, not the last.
  std::string compiler;
  if (!sourceOnly) {
    compiler = findCompiler(cuda);
    if (compiler.empty() && cuda && !nvccPath.empty())
      return fail("--nvcc: '" + nvccPath + "' is not an executable program");
    if (compiler.empty() && !cuda && !cxxPath.empty())
      return fail("--cxx: '" + cxxPath + "' is not an executable program");
    if (compiler.empty())
      return fail(cuda ? "--target=cuda needs nvcc, and none was found "
                         "(looked at --nvcc, $CUDA_HOME/bin, /usr/local/cuda/bin "
                         "and PATH); install the CUDA toolkit or use "
                         "--target=host"
                       : "no C++ compiler found (looked at --cxx, $CXX and "
                         "c++ on PATH)");
  }

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
  amp::nameArgumentsFromSource(*module, &sourceMgr);

  // The training step.
  if (!holdsStep(*module)) {
    std::string options = "compute-type=" + computeType + " optimizer=" +
                          optimizer + " loss-scaling=" + lossScaling + " " +
                          trainOptions;
    PassManager pm(&context, ModuleOp::getOperationName());
    std::string parseError;
    llvm::raw_string_ostream parseErrorStream(parseError);
    if (failed(parsePassPipeline("amp-train-step{" + options + "}", pm,
                                 parseErrorStream))) {
      // The reason, where the parser gives one here (an unknown option it
      // prints itself); not its line that repeats the options.
      SmallVector<StringRef> lines;
      StringRef(parseError).split(lines, '\n', -1, /*KeepEmpty=*/false);
      std::string reason;
      for (StringRef line : lines)
        if (!line.starts_with("failed to add"))
          reason = (": " + line.trim()).str();
      return fail("bad training options '" + trainOptions + "'" + reason);
    }
    if (failed(pm.run(*module)))
      return 1;
  }
  {
    PassManager pm(&context, ModuleOp::getOperationName());
    pm.addPass(createInlinerPass());
    if (failed(pm.run(*module)))
      return 1;
  }
  FailureOr<func::FuncOp> step = findStep(*module);
  if (failed(step))
    return 1;
  for (auto func : llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
    if (func != *step)
      func.erase();
  // The backend can compile it? (before any compiler runs)
  if (failed(amp::backend::checkCompilable(*step)))
    return 1;
  {
    PassManager pm(&context, ModuleOp::getOperationName());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    // The folder erases the locations of the constants it hoists.
    pm.addNestedPass<func::FuncOp>(amp::createAmpRestoreLocations());
    if (failed(pm.run(*module)))
      return 1;
  }

  if (failed(output.create()))
    return 1;
  auto pathOf = [&](const llvm::Twine &file) { return output.pathOf(file); };
  {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    if (failed(writeFile(pathOf(name + ".step.mlir"), text)))
      return 1;
  }
  {
    PassManager pm(&context, ModuleOp::getOperationName());
    // The report's path quoted: it may hold spaces.
    std::string pipeline = "func.func(amp-fuse,amp-plan-buffers{report=\"" +
                           pathOf(name + ".memory.json") + "\" " + planOptions +
                           "})";
    if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
      return fail("bad plan options: " + planOptions);
    if (failed(pm.run(*module)))
      return 1;
  }
  std::string source;
  {
    llvm::raw_string_ostream os(source);
    if (failed(amp::translateToCuda(*module, os, "", name)))
      return 1;
  }
  std::string sourcePath = pathOf(name + (cuda ? ".cu" : ".cpp"));
  if (failed(writeFile(sourcePath, source)))
    return 1;
  std::string guard = "AMP_STEP_" + llvm::StringRef(name).upper() + "_H";
  std::string header =
      "/* " + name + ": a training step compiled by amp-compile. */\n#ifndef " +
      guard + "\n#define " + guard +
      "\n\n#include \"amp_runtime/step.h\"\n\n#ifdef __cplusplus\nextern "
      "\"C\" {\n#endif\n\n/* The step's description: pass it to "
      "amp_step_create. */\nconst amp_step_description_t *" +
      name + "_describe(void);\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  if (failed(writeFile(pathOf(name + ".h"), header)))
    return 1;
  // The compiler's flags; the compiler and the runtime's place vary.
  SmallVector<std::string> flags;
  if (cuda)
    flags = {"-std=c++17", "-O2", "-arch=" + cudaArch, "--fmad=false",
             "-Xcompiler", "-fPIC", "-shared"};
  else {
    // No FMA contraction (the interpreter rounds every product); no errno
    // from the math functions, so that sqrtf is one instruction; f16
    // conversions in hardware where this CPU has them (the library then
    // needs a CPU with F16C, as every x86-64 of the last decade has).
    flags = {"-std=c++17", "-O2", "-fPIC", "-shared", "-fvisibility=hidden"};
    flags.append({"-ffp-contract=off", "-fno-math-errno"});
    if (llvm::sys::getHostCPUFeatures().lookup("f16c"))
      flags.push_back("-mf16c");
  }
  std::string sourceFile = llvm::sys::path::filename(sourcePath).str();
  std::string libraryFile = "lib" + name + ".so";
  // build.sh: the same command, to build the library again elsewhere (a
  // GPU machine without MLIR, say) against that machine's runtime.
  {
    auto quote = [](StringRef text) {
      std::string quoted = "'";
      for (char c : text)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      return quoted + "'";
    };
    // Each variable keeps a value from the environment, else this build's.
    auto defaultOf = [&](StringRef variable, StringRef value) {
      return ("[ -n \"${" + variable + ":-}\" ] || " + variable + "=" +
              quote(value) + "\n")
          .str();
    };
    std::string script =
        "#!/bin/sh\n# Builds " + libraryFile + " from " + sourceFile +
        " as amp-compile does. Elsewhere, name that machine's runtime:\n"
        "#   AMP_RUNTIME_INCLUDE=<runtime>/include AMP_RUNTIME_LIB=<dir of "
        "libamp_runtime.so> COMPILER=<" +
        (cuda ? "nvcc" : "c++") +
        "> sh build.sh\nset -e\ncd \"$(dirname \"$0\")\"\n" +
        defaultOf("COMPILER", compiler.empty() ? (cuda ? "nvcc" : "c++")
                                                : StringRef(compiler)) +
        defaultOf("AMP_RUNTIME_INCLUDE", runtimeInclude) +
        defaultOf("AMP_RUNTIME_LIB", runtimeLib) + "exec \"$COMPILER\"";
    for (const std::string &flag : flags)
      script += " " + quote(flag);
    script += " -I\"$AMP_RUNTIME_INCLUDE\" " + quote(sourceFile) + " -o " +
              quote(libraryFile) + " -L\"$AMP_RUNTIME_LIB\" -lamp_runtime " +
              (cuda ? "-Xlinker -rpath=\"$AMP_RUNTIME_LIB\""
                    : "-Wl,-rpath,\"$AMP_RUNTIME_LIB\"") +
              "\n";
    if (failed(writeFile(pathOf("build.sh"), script)))
      return 1;
  }
  if (sourceOnly) {
    // An older library of this name would not match the new source.
    if (failed(output.commit({libraryFile})))
      return 1;
    return 0;
  }

  std::string library = pathOf(libraryFile);
  SmallVector<std::string> args(flags);
  args.append({"-I" + runtimeInclude, sourcePath, "-o", library,
               "-L" + runtimeLib, "-lamp_runtime"});
  if (cuda)
    args.append({"-Xlinker", "-rpath=" + runtimeLib});
  else
    args.push_back("-Wl,-rpath," + runtimeLib);
  if (failed(run(compiler, args)) || failed(output.commit({})))
    return 1;
  SmallString<256> written(outputDir);
  llvm::sys::path::append(written, libraryFile);
  llvm::outs() << "amp-compile: wrote " << written << "\n";
  return 0;
}
