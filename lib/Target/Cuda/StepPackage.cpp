//===- StepPackage.cpp - the files and build of a compiled step -----------===//

#include "amp/Target/Cuda/StepPackage.h"

#include "CSource.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/TargetParser/Host.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>

#include <unistd.h>

using namespace mlir;
using namespace mlir::amp;

namespace {
llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// `text` in single quotes for sh.
std::string quote(StringRef text) {
  std::string quoted = "'";
  for (char c : text)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
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

/// Runs `program` with `args`.
llvm::Error run(StringRef program, ArrayRef<std::string> args) {
  SmallVector<StringRef> argv{program};
  for (const std::string &arg : args)
    argv.push_back(arg);
  std::string message;
  int code = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, {}, 0, 0,
                                       &message);
  if (code == 0)
    return llvm::Error::success();
  return makeError("'" + program + "' failed" +
                   (message.empty() ? " (exit " + std::to_string(code) + ")"
                                    : ": " + message));
}
} // namespace

bool amp::isStepName(StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

std::string amp::toStepName(StringRef text) {
  std::string name = text.str();
  for (char &c : name)
    if (!llvm::isAlnum(c))
      c = '_';
  if (name.empty() || llvm::isDigit(name.front()))
    name = "step_" + name;
  return name;
}

std::string amp::getStepSourceFileName(const StepPackageOptions &options) {
  return options.name + (options.cuda ? ".cu" : ".cpp");
}

std::string amp::getStepLibraryFileName(const StepPackageOptions &options) {
  return "lib" + options.name + ".so";
}

std::string amp::getStepHeader(StringRef name) {
  std::string guard = "AMP_STEP_" + name.upper() + "_H";
  std::string header =
      ("/* " + name + ": a training step compiled by amp-compile. */\n" +
       "#ifndef " + guard + "\n#define " + guard +
       "\n\n#include \"amp_runtime/step.h\"\n\n#ifdef __cplusplus\nextern "
       "\"C\" {\n#endif\n\n/* The step's description: pass it to "
       "amp_step_create. */\nconst amp_step_description_t *" +
       name + "_describe(void);\n\n#ifdef __cplusplus\n}\n#endif\n\n" +
       "#endif\n")
          .str();
  // Only a long name moves a line break.
  FailureOr<std::string> formatted =
      cuda::formatSource(header, name.str() + ".h");
  return succeeded(formatted) ? *formatted : header;
}

SmallVector<std::string>
amp::getStepCompilerFlags(const StepPackageOptions &options) {
  // C++20: the generated code initializes the runtime's descriptors by
  // field name (designated initializers).
  if (options.cuda)
    return {"-std=c++20",   "-O2",        "-arch=" + options.cudaArch,
            "--fmad=false", "-Xcompiler", "-fPIC",
            "-shared"};
  // No FMA contraction (the interpreter rounds every product); no errno
  // from the math functions, so that sqrtf is one instruction; no traps
  // from floating point, so that a select between two computed values
  // (scalar_math.h's tanh) stays a select; loops vectorized (-O3: without
  // -ffast-math no sum is reordered, so no bit changes) for this CPU's
  // vector unit: AVX2 and f16 conversions in hardware where it has them
  // (the library then needs such a CPU, as every x86-64 of the last decade
  // is).
  SmallVector<std::string> flags = {"-std=c++20", "-O3", "-fPIC", "-shared",
                                    "-fvisibility=hidden"};
  flags.append({"-ffp-contract=off", "-fno-math-errno", "-fno-trapping-math"});
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  if (features.lookup("avx2"))
    flags.push_back("-mavx2");
  if (features.lookup("f16c"))
    flags.push_back("-mf16c");
  if (options.countAccesses)
    flags.push_back("-DAMP_STEP_COUNT_ACCESSES");
  return flags;
}

std::string amp::getStepBuildScript(const StepPackageOptions &options) {
  bool cuda = options.cuda;
  std::string sourceFile = getStepSourceFileName(options);
  std::string libraryFile = getStepLibraryFileName(options);
  // Each variable keeps a value from the environment, else this build's.
  auto defaultOf = [&](StringRef variable, StringRef value) {
    return ("[ -n \"${" + variable + ":-}\" ] || " + variable + "=" +
            quote(value) + "\n")
        .str();
  };
  StringRef compiler = options.compiler;
  if (compiler.empty())
    compiler = cuda ? "nvcc" : "c++";
  std::string script =
      "#!/bin/sh\n# Builds " + libraryFile + " from " + sourceFile +
      " as amp-compile does. Elsewhere, name that machine's runtime:\n"
      "#   AMP_RUNTIME_INCLUDE=<runtime>/include AMP_RUNTIME_LIB=<dir of "
      "libamp_runtime.so> COMPILER=<" +
      (cuda ? "nvcc" : "c++") +
      "> sh build.sh\nset -e\ncd \"$(dirname \"$0\")\"\n" +
      defaultOf("COMPILER", compiler) +
      defaultOf("AMP_RUNTIME_INCLUDE", options.runtimeInclude) +
      defaultOf("AMP_RUNTIME_LIB", options.runtimeLib) + "exec \"$COMPILER\"";
  for (const std::string &flag : getStepCompilerFlags(options))
    script += " " + quote(flag);
  script += " -I\"$AMP_RUNTIME_INCLUDE\" " + quote(sourceFile) + " -o " +
            quote(libraryFile) + " -L\"$AMP_RUNTIME_LIB\" -lamp_runtime " +
            (cuda ? "-Xlinker -rpath=\"$AMP_RUNTIME_LIB\""
                  : "-Wl,-rpath,\"$AMP_RUNTIME_LIB\"") +
            "\n";
  return script;
}

std::string amp::findStepCompiler(bool cuda, StringRef explicitPath) {
  if (!explicitPath.empty())
    return resolveProgram(explicitPath);
  if (cuda) {
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
  if (const char *cxx = std::getenv("CXX"))
    if (auto found = llvm::sys::findProgramByName(cxx))
      return *found;
  if (auto found = llvm::sys::findProgramByName("c++"))
    return *found;
  return "";
}

//===----------------------------------------------------------------------===//
// StepPackageDirectory
//===----------------------------------------------------------------------===//

StepPackageDirectory::StepPackageDirectory(StringRef path) {
  SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  llvm::sys::path::remove_dots(absolute);
  finalPath = absolute.str().str();
}

StepPackageDirectory::~StepPackageDirectory() {
  if (!temporary.empty())
    llvm::sys::fs::remove_directories(temporary);
}

llvm::Error StepPackageDirectory::check() const {
  StringRef existing = finalPath;
  while (!llvm::sys::fs::exists(existing))
    existing = llvm::sys::path::parent_path(existing);
  if (!llvm::sys::fs::is_directory(existing))
    return cannotCreate(std::make_error_code(std::errc::not_a_directory));
  if (llvm::sys::fs::access(existing, llvm::sys::fs::AccessMode::Write))
    return cannotCreate(std::make_error_code(std::errc::permission_denied));
  return llvm::Error::success();
}

/// Removes the temporary directories (.amp-compile-<pid>-<unique>) in
/// `directory` that runs killed before their commit left, those whose
/// process is gone. An output directory is written from one machine at a
/// time: another machine's pids are not this one's.
static void removeStaleTemporaries(StringRef directory) {
  std::error_code code;
  for (llvm::sys::fs::directory_iterator it(directory, code), end;
       !code && it != end; it.increment(code)) {
    StringRef name = llvm::sys::path::filename(it->path());
    if (!name.consume_front(".amp-compile-"))
      continue;
    unsigned pid = 0;
    if (name.consumeInteger(10, pid) || !name.starts_with("-") || pid == 0 ||
        static_cast<pid_t>(pid) == ::getpid())
      continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      llvm::sys::fs::remove_directories(it->path());
  }
}

llvm::Error StepPackageDirectory::create() {
  SmallString<256> prefix(finalPath);
  if (!llvm::sys::fs::is_directory(finalPath)) {
    prefix = llvm::sys::path::parent_path(finalPath);
    if (std::error_code code = llvm::sys::fs::create_directories(prefix))
      return cannotCreate(code);
  }
  removeStaleTemporaries(prefix.empty() ? StringRef(".") : StringRef(prefix));
  // Named after this process, so that a later run knows when it is gone.
  llvm::sys::path::append(prefix, ".amp-compile-" +
                                      Twine(static_cast<int>(::getpid())));
  SmallString<256> path;
  if (std::error_code code = llvm::sys::fs::createUniqueDirectory(prefix, path))
    return cannotCreate(code);
  temporary = path.str().str();
  return llvm::Error::success();
}

std::string StepPackageDirectory::pathOf(const Twine &file) const {
  SmallString<256> path(temporary);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

std::string StepPackageDirectory::finalPathOf(const Twine &file) const {
  SmallString<256> path(finalPath);
  llvm::sys::path::append(path, file);
  return path.str().str();
}

llvm::Error StepPackageDirectory::write(const Twine &file,
                                        StringRef text) const {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(pathOf(file), &error);
  if (!output)
    return makeError(error);
  output->os() << text;
  output->keep();
  return llvm::Error::success();
}

llvm::Error StepPackageDirectory::commit(ArrayRef<std::string> stale) {
  if (!llvm::sys::fs::exists(finalPath)) {
    if (std::error_code code = llvm::sys::fs::rename(temporary, finalPath))
      return cannotCreate(code);
    temporary.clear();
    return llvm::Error::success();
  }
  SmallVector<std::string> files;
  std::error_code code;
  for (llvm::sys::fs::directory_iterator it(temporary, code), end;
       !code && it != end; it.increment(code))
    files.push_back(llvm::sys::path::filename(it->path()).str());
  if (code)
    return cannotCreate(code);
  // The library last: until it is there, the old one stays whole.
  llvm::sort(files, [](const std::string &a, const std::string &b) {
    bool aLib = StringRef(a).ends_with(".so");
    bool bLib = StringRef(b).ends_with(".so");
    return aLib != bLib ? bLib : a < b;
  });
  for (const std::string &file : files)
    if (std::error_code code =
            llvm::sys::fs::rename(pathOf(file), finalPathOf(file)))
      return makeError("cannot replace " + finalPathOf(file) + ": " +
                       code.message());
  for (const std::string &file : stale)
    llvm::sys::fs::remove(finalPathOf(file));
  return llvm::Error::success();
}

llvm::Error StepPackageDirectory::cannotCreate(std::error_code code) const {
  return makeError("cannot create " + finalPath + ": " + code.message());
}

//===----------------------------------------------------------------------===//
// The package
//===----------------------------------------------------------------------===//

llvm::Error amp::writeStepPackage(const StepPackageDirectory &directory,
                                  const StepPackageOptions &options,
                                  StringRef source) {
  if (llvm::Error error =
          directory.write(getStepSourceFileName(options), source))
    return error;
  if (llvm::Error error =
          directory.write(options.name + ".h", getStepHeader(options.name)))
    return error;
  // build.sh: the same command, to build the library again elsewhere (a
  // GPU machine without MLIR, say) against that machine's runtime.
  return directory.write("build.sh", getStepBuildScript(options));
}

llvm::Error amp::buildStepLibrary(const StepPackageDirectory &directory,
                                  const StepPackageOptions &options) {
  SmallVector<std::string> args = getStepCompilerFlags(options);
  args.append({"-I" + options.runtimeInclude,
               directory.pathOf(getStepSourceFileName(options)), "-o",
               directory.pathOf(getStepLibraryFileName(options)),
               "-L" + options.runtimeLib, "-lamp_runtime"});
  if (options.cuda)
    args.append({"-Xlinker", "-rpath=" + options.runtimeLib});
  else
    args.push_back("-Wl,-rpath," + options.runtimeLib);
  return run(options.compiler, args);
}
