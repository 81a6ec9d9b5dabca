"""Imports a PyTorch model into the amp dialect from the command line.

    python -m ampmlir.import_torch model.py:make_model \\
        --input x=64x784:f32 --input labels=64:i64 --loss cross_entropy \\
        -o model.mlir

``make_model`` (any name; called without arguments) returns the
``torch.nn.Module``, or a tuple ``(module, example_args, loss)`` as
``ampmlir.from_torch`` takes them, in which case --input and --loss are
not given. Otherwise each --input NAME=SHAPE:TYPE is one tensor of the
batch, in order (TYPE f32, f16, bf16, i64 or i32; integer inputs are
drawn from [0, --index-bound)), and --loss says what the module's output
and the rest of the batch make:

  cross_entropy   F.cross_entropy(module(first input), last input), with
                  the logits flattened to [N, classes] and the labels to
                  [N] (--ignore-index sets ignore_index)
  mse             F.mse_loss(module(first input), last input)
  module          module(*batch) returns the loss itself (the default)

Writes the amp module to -o (or prints it) and a line per parameter,
buffer and input to stderr. Exits with status 1 and a message on a model
that cannot be imported.
"""

import argparse
import importlib.util
import re
import sys
from pathlib import Path

from ._errors import AmpError
from .torch_import import from_torch

_TYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16",
          "i64": "int64", "i32": "int32"}


def load_factory(spec):
    """The callable `file.py:function` names."""
    path, sep, function = spec.rpartition(":")
    if not sep or not path or not function:
        raise AmpError(f"{spec!r}: give the model as FILE.py:FUNCTION")
    file = Path(path)
    if not file.is_file():
        raise AmpError(f"no file {file}")
    module_spec = importlib.util.spec_from_file_location(file.stem, file)
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, str(file.resolve().parent))
    try:
        module_spec.loader.exec_module(module)
    except Exception as error:  # the user's code may raise anything
        raise AmpError(f"{file}: {type(error).__name__}: {error}") from error
    finally:
        sys.path.pop(0)
    factory = getattr(module, function, None)
    if not callable(factory):
        raise AmpError(f"{file} has no function {function}")
    return factory


def parse_input(text, torch, index_bound, generator):
    """A tensor of the batch from NAME=SHAPE:TYPE (2x3:f32)."""
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(\d+(?:x\d+)*|scalar)"
                         r":(f32|f16|bf16|i64|i32)", text)
    if not match:
        raise AmpError(f"--input {text!r}: give NAME=SHAPE:TYPE, as "
                       "x=64x784:f32 or labels=64:i64")
    name, shape_text, element = match.groups()
    shape = [] if shape_text == "scalar" else [int(d) for d in
                                               shape_text.split("x")]
    if 0 in shape:
        raise AmpError(f"--input {text!r}: every dimension must be positive")
    dtype = getattr(torch, _TYPES[element])
    if element.startswith("i"):
        tensor = torch.randint(0, index_bound, shape, dtype=dtype,
                               generator=generator)
    else:
        tensor = torch.randn(shape, generator=generator).to(dtype)
    return name, tensor


def make_loss(kind, ignore_index, torch):
    F = torch.nn.functional
    if kind == "module":
        return None
    if kind == "mse":
        return lambda model, x, target: F.mse_loss(model(x), target)

    def cross_entropy(model, x, labels):
        logits = model(x)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               labels.reshape(-1), ignore_index=ignore_index)
    return cross_entropy


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m ampmlir.import_torch",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 2)[2])
    parser.add_argument("model", help="FILE.py:FUNCTION returning the module")
    parser.add_argument("--input", action="append", default=[],
                        help="NAME=SHAPE:TYPE, one per batch tensor, in order")
    parser.add_argument("--loss", choices=["module", "cross_entropy", "mse"],
                        default=None)
    parser.add_argument("--ignore-index", type=int, default=-100)
    parser.add_argument("--index-bound", type=int, default=2)
    parser.add_argument("--name", default="model",
                        help="the step's name, a C identifier")
    parser.add_argument("-o", "--output", help="the .mlir file to write")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("import_torch: error: PyTorch is not installed", file=sys.stderr)
        return 1
    try:
        made = load_factory(args.model)()
        if isinstance(made, tuple):
            if args.input or args.loss:
                raise AmpError(f"{args.model} returns the batch and the loss "
                               "itself: give neither --input nor --loss")
            if len(made) != 3:
                raise AmpError(f"{args.model} returns a tuple of "
                               f"{len(made)}; give (module, example_args, "
                               "loss) or the module alone")
            module, batch, loss = made
        else:
            if not args.input:
                raise AmpError("give the batch: --input NAME=SHAPE:TYPE for "
                               "each tensor, in order")
            if args.index_bound < 1:
                raise AmpError("--index-bound must be at least 1")
            generator = torch.Generator().manual_seed(0)
            named = [parse_input(text, torch, args.index_bound, generator)
                     for text in args.input]
            batch = tuple(t for _, t in named)
            kind = args.loss or "module"
            if kind != "module" and len(batch) != 2:
                raise AmpError(f"--loss {kind} takes the model's input and "
                               "the target: give two --input")
            names = [n for n, _ in named]
            if len(set(names)) != len(names) or \
                    {"model", "_loss"} & set(names):
                raise AmpError(f"--input names must differ from each other "
                               f"and from 'model': {names}")
            loss = make_loss(kind, args.ignore_index, torch)
            module = made
            # The batch's names as the user gave them.
            loss = _named(loss, names) if loss is not None else \
                _named(lambda model, *batch: model(*batch), names)
        imported = from_torch(module, batch, loss=loss, name=args.name)
    except AmpError as error:
        print(f"import_torch: error: {error}", file=sys.stderr)
        return 1
    if args.output:
        imported.write(args.output)
    else:
        sys.stdout.write(imported.mlir)
    for key, shape in imported.parameters.items():
        print(f"param {key} {list(shape)}", file=sys.stderr)
    for key, shape in imported.buffers.items():
        print(f"buffer {key} {list(shape)}", file=sys.stderr)
    for key in imported.inputs:
        print(f"input {key}", file=sys.stderr)
    return 0


def _named(loss, names):
    """`loss` with the batch's parameters called `names` (from_torch names
    the step's inputs after them)."""
    params = ", ".join(names)
    namespace = {"_loss": loss}
    exec(f"def loss(model, {params}):\n"  # noqa: S102 - names are checked
         f"    return _loss(model, {params})\n", namespace)
    return namespace["loss"]


if __name__ == "__main__":
    sys.exit(main())
