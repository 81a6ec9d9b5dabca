//===- StepPackage.h - the files and build of a compiled step ---*- C++ -*-===//
//
// What amp-compile writes around the translated step: the header of its C
// API, the compiler's flags, build.sh (the same build, to repeat elsewhere)
// and the library itself, all in one output directory that is written
// whole or not at all.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_CUDA_STEPPACKAGE_H
#define AMP_TARGET_CUDA_STEPPACKAGE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::amp {

/// How a step's library is built.
struct StepPackageOptions {
  /// The step's name: a C identifier, the prefix of its files and C API.
  std::string name;
  /// nvcc and a .cu file, or the C++ compiler and a .cpp file.
  bool cuda = false;
  /// The compiler's path; empty when none was looked for (source only).
  std::string compiler;
  /// nvcc's -arch.
  std::string cudaArch = "sm_90";
  /// The runtime's include directory and the directory of
  /// libamp_runtime.so.
  std::string runtimeInclude;
  std::string runtimeLib;
  /// A host build that counts each launch's loads and stores
  /// (AMP_STEP_COUNT_ACCESSES, amp_runtime/access_count.h).
  bool countAccesses = false;
};

/// Whether `name` can name a step: a C identifier (letters, digits and '_',
/// not starting with a digit), as its files and C API are named after it.
bool isStepName(StringRef name);
/// `text` (a file's stem, a function's name) made a step name: each
/// character other than a letter or a digit becomes '_', and "step_" goes
/// before one that is empty or starts with a digit.
std::string toStepName(StringRef text);

/// The step's source file name: <name>.cu or <name>.cpp.
std::string getStepSourceFileName(const StepPackageOptions &options);
/// The step's library file name: lib<name>.so.
std::string getStepLibraryFileName(const StepPackageOptions &options);

/// The header of the step's C API: <name>_describe().
std::string getStepHeader(StringRef name);

/// The compiler's flags: the same in the build and in build.sh.
SmallVector<std::string>
getStepCompilerFlags(const StepPackageOptions &options);

/// build.sh: the build's command, with the compiler and the runtime's
/// directories taken from the environment where it sets them.
std::string getStepBuildScript(const StepPackageOptions &options);

/// The compiler for the target: `explicitPath` when given (a path, or a
/// name on PATH), else nvcc from $CUDA_HOME/bin, /usr/local/cuda/bin or
/// PATH, or the C++ compiler from $CXX or c++ on PATH. Empty if none is
/// found; a compiler named explicitly has no fallback.
std::string findStepCompiler(bool cuda, StringRef explicitPath);

/// The output directory, written whole or not at all. Files go into a
/// temporary directory on the same file system (so that renames are
/// atomic); commit() moves them into place, and an object destroyed before
/// commit() leaves nothing behind.
class StepPackageDirectory {
public:
  explicit StepPackageDirectory(StringRef path);
  ~StepPackageDirectory();
  StepPackageDirectory(const StepPackageDirectory &) = delete;
  StepPackageDirectory &operator=(const StepPackageDirectory &) = delete;

  /// Checks, before any work, that the directory can be made: it is a
  /// directory or can become one.
  llvm::Error check() const;

  /// Makes the temporary directory: inside the output directory where it
  /// exists (it may be the only place the user can write to), else beside
  /// it, making its parents.
  llvm::Error create();

  /// The path of `file` while the run writes it.
  std::string pathOf(const Twine &file) const;
  /// The path of `file` once the run has succeeded.
  std::string finalPathOf(const Twine &file) const;

  /// Writes `text` to `file` in the temporary directory.
  llvm::Error write(const Twine &file, StringRef text) const;

  /// Moves the files into place: the temporary directory becomes the
  /// output directory if there was none; otherwise each file replaces its
  /// namesake by a rename (files of other names stay), the library last.
  /// `stale` names older outputs of this step that no longer match (a
  /// library the run did not build); they are removed.
  llvm::Error commit(ArrayRef<std::string> stale);

private:
  llvm::Error cannotCreate(std::error_code code) const;

  std::string finalPath;
  std::string temporary;
};

/// Writes the step's files besides the IR and the memory report: the
/// translated `source`, the header and build.sh.
llvm::Error writeStepPackage(const StepPackageDirectory &directory,
                             const StepPackageOptions &options,
                             StringRef source);

/// Builds the library from the source writeStepPackage wrote, in the temporary
/// directory, with options.compiler.
llvm::Error buildStepLibrary(const StepPackageDirectory &directory,
                             const StepPackageOptions &options);

} // namespace mlir::amp

#endif // AMP_TARGET_CUDA_STEPPACKAGE_H
