# -*- Python -*-
# lit configuration of the amp-mlir regression tests.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "AMP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "Unit"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.amp_obj_root, "test")

# FileCheck variables are local to a CHECK-LABEL block (as in StableHLO).
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%examples", os.path.join(config.amp_src_root, "examples")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%amp_tools_dir", config.amp_tools_dir))

# Python that loads the project's libraries with ctypes. In a sanitizer
# build those libraries need the sanitizer runtimes loaded first, and the
# interpreter itself is not instrumented: its leaks at exit are not ours.
ctypes_python = config.python_executable
if "-fsanitize=address" in config.cxx_flags:
    # Clang's one runtime holds both sanitizers; GCC's are two.
    names = (["libclang_rt.asan-x86_64.so"] if "clang" in
             os.path.basename(config.cxx_compiler) else
             ["libasan.so", "libubsan.so"])
    runtimes = [subprocess.check_output(
        [config.cxx_compiler, "-print-file-name=" + name], text=True).strip()
        for name in names]
    ctypes_python = "env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 %s" % (
        ":".join(runtimes), config.python_executable)
    # Any report fails its test, also in a command that `not` expects to
    # fail: a report aborts, and `not` takes a signal for a crash, where a
    # report's exit status (LeakSanitizer's 23) passed as the failure it
    # expected.
    config.available_features.add("sanitizers")
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=1"
    config.environment["UBSAN_OPTIONS"] = (
        "print_stacktrace=1:halt_on_error=1:abort_on_error=1")
    # The steps amp-compile builds, by this build's compiler at -O1
    # (Inputs/step-cxx-O1.sh).
    config.environment["CXX"] = os.path.join(
        config.test_source_root, "Inputs", "step-cxx-O1.sh")
    config.environment["AMP_TEST_CXX"] = config.cxx_compiler
    # Shorter loops where a test trains: the same kernels, fewer steps.
    config.environment["AMP_DIFFERENTIAL_STEPS"] = "10"
config.substitutions.append(("%ctypes_python", ctypes_python))
# The C++ compiler of this build, for programs linked against its libraries.
config.substitutions.append(("%cxx", config.cxx_compiler))
# The steps differential.py trains (AMP_DIFFERENTIAL_STEPS under the
# sanitizers), for the checks of its report.
config.substitutions.append(("%differential_steps",
    config.environment.get("AMP_DIFFERENTIAL_STEPS", "50")))
# Programs linked against the project's libraries need the same sanitizers
# and the same runtime (the build's link flags: clang's shared one).
config.substitutions.append(("%sanitizer_flags", config.exe_linker_flags
    if "-fsanitize=address" in config.cxx_flags else ""))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.amp_tools_dir, config.llvm_tools_dir]
tools = ["amp-opt", "amp-run", "amp-compile", "amp-translate", "amp-step", "amp-fuzz-replay", "amp-runtime-bench", "not",
         "count", "split-file"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.amp_tools_dir, append_path=True)

# PyTorch in the project's virtual environment (scripts/install-torch.sh,
# which `make test` runs): the importer's tests. Not under the sanitizers:
# torch's libraries are not built for them, and the importer is Python.
import glob
torch_python = os.path.join(config.amp_src_root, ".venv", "bin", "python")
if os.path.exists(torch_python) and glob.glob(os.path.join(
        config.amp_src_root, ".venv", "lib", "python3*", "site-packages",
        "torch", "__init__.py")):
    config.substitutions.append(("%torch_python", torch_python))
    if "-fsanitize=address" not in config.cxx_flags:
        config.available_features.add("torch")

# The communicator's tests run their ranks under Open MPI's mpirun.
if config.have_mpi and shutil.which("mpirun"):
    config.available_features.add("mpi")

# A GPU this machine can run on (tests of what happens without one mark
# themselves UNSUPPORTED: gpu).
if shutil.which("nvidia-smi") and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0:
    config.available_features.add("gpu")

if config.have_cuda:
    config.available_features.add("cuda")
    config.substitutions.append(("%nvcc", config.cuda_compiler))
