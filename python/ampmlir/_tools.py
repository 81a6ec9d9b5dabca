"""Finding and running the amp-mlir programs and the runtime library."""

import os
import shutil
import subprocess
from pathlib import Path

from ._errors import CompileError, ToolNotFoundError

# A source checkout: python/ampmlir/_tools.py -> the repository root.
_CHECKOUT = Path(__file__).resolve().parents[2]


def _candidate_dirs():
    """Where the programs may be, in order: $AMP_MLIR_BIN, PATH, build/bin of
    the checkout this package lives in."""
    env = os.environ.get("AMP_MLIR_BIN")
    if env:
        yield Path(env)
    yield None  # PATH
    yield _CHECKOUT / "build" / "bin"


def find_tool(name):
    """The path of the amp-mlir program ``name`` (``"amp-compile"``, ...)."""
    for directory in _candidate_dirs():
        if directory is None:
            found = shutil.which(name)
            if found:
                return Path(found)
        elif (directory / name).is_file() and os.access(directory / name, os.X_OK):
            return directory / name
    raise ToolNotFoundError(
        f"{name} not found: set AMP_MLIR_BIN to the directory that holds it "
        f"(build/bin of an amp-mlir build) or put it on PATH")


def find_runtime_library():
    """The path of libamp_runtime.so: beside the programs, in ../lib."""
    tried = []
    for directory in _candidate_dirs():
        if directory is None:
            tool = shutil.which("amp-compile")
            if not tool:
                continue
            directory = Path(tool).resolve().parent
        library = directory.parent / "lib" / "libamp_runtime.so"
        tried.append(str(library))
        if library.is_file():
            return library
    raise ToolNotFoundError(
        "libamp_runtime.so not found (looked at " + ", ".join(tried) +
        "); build amp-mlir or set AMP_MLIR_BIN")


def run_tool(name, args, input_text=None):
    """Runs ``name`` with ``args``; returns its stdout. Raises CompileError
    with the tool's diagnostics when it fails."""
    command = [str(find_tool(name))] + [str(a) for a in args]
    completed = subprocess.run(command, input=input_text, capture_output=True,
                               text=True, check=False)
    if completed.returncode != 0:
        raise CompileError(name, completed.returncode, completed.stderr)
    return completed.stdout
