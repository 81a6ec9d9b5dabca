"""amp-mlir from Python: compile training graphs written in the amp dialect
with automatic mixed precision, and train the compiled steps on numpy data.

    import ampmlir
    compiled = ampmlir.compile("examples/mlp.mlir", "out/mlp", compute_type="f16")
    with compiled.load() as step:
        step.init(seed=0)
        for x, labels in batches:
            step.run(x, labels)
        print(step.loss, step.scale, step.skipped)
"""

from ._errors import AmpError, CompileError, ToolNotFoundError
from ._tools import find_runtime_library, find_tool
from .compiler import (CompiledStep, autocast_report, compile, opt, run,
                       train_options_text)
from .torch_import import ImportedModel, from_torch, grad
from .step import (Step, TensorInfo, bf16_to_float32, cuda_available, float32_to_bf16,
                   host_threads)

__all__ = [
    "AmpError", "CompileError", "ToolNotFoundError", "CompiledStep", "Step",
    "TensorInfo", "ImportedModel", "autocast_report", "bf16_to_float32",
    "compile", "from_torch", "grad",
    "cuda_available", "find_runtime_library", "find_tool", "float32_to_bf16",
    "host_threads", "opt", "run", "train_options_text",
]
__version__ = "0.1.0"
