"""The exceptions of the amp-mlir Python API."""


class AmpError(RuntimeError):
    """An error reported by amp-mlir: a runtime status or a tool's diagnostic.

    ``code`` is the runtime's status name (``"AMP_INVALID_ARGUMENT"``, ...)
    for errors from the C API and ``None`` otherwise.
    """

    def __init__(self, message, code=None):
        super().__init__(message if code is None else f"{message} ({code})")
        self.message = message
        self.code = code


class ToolNotFoundError(AmpError):
    """An amp-mlir program or library could not be found."""


class CompileError(AmpError):
    """A tool (amp-compile, amp-opt, amp-run) failed; ``stderr`` holds its
    diagnostics, with their locations."""

    def __init__(self, tool, returncode, stderr):
        lines = [l for l in stderr.strip().splitlines() if l.strip()]
        # The first error that says something: a refused option value is
        # the option parser's line, then MLIR's empty "<unknown>:0: error:".
        first = next((l for l in lines
                      if "error" in l and not l.rstrip().endswith("error:")),
                     lines[0] if lines else "")
        # A value the option parser refused is named on a line of its own
        # ("amp-compile: for the --lr option: 'abc' value invalid ..."),
        # before the tool's error about the options as a whole: keep it.
        reason = next((l for l in lines if " option: " in l and l != first),
                      None)
        if reason:
            first += " (" + reason.split(": ", 1)[-1].strip() + ")"
        super().__init__(f"{tool} failed (exit {returncode}): {first}")
        self.tool = tool
        self.returncode = returncode
        self.stderr = stderr
