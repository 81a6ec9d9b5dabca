"""Compiling training graphs and running the amp-mlir tools from Python."""

import json
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path

from ._errors import AmpError
from ._tools import run_tool
from .step import Step

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


@dataclass
class CompiledStep:
    """What amp-compile wrote into ``directory``."""

    name: str
    directory: Path
    target: str
    library: Path = field(init=False)
    header: Path = field(init=False)
    source: Path = field(init=False)
    step_mlir: Path = field(init=False)
    #: The evaluation's IR (amp-run runs it), or None when it was compiled
    #: without one.
    eval_mlir: Path = field(init=False)
    memory: dict = field(init=False)
    #: The modeled GPU cost of each kernel (amp-compile --cost-report), or
    #: None when it was not asked for.
    cost: dict = field(init=False)

    def __post_init__(self):
        d = self.directory
        self.library = d / f"lib{self.name}.so"
        self.header = d / f"{self.name}.h"
        self.source = d / (f"{self.name}.cu" if self.target == "cuda"
                           else f"{self.name}.cpp")
        self.step_mlir = d / f"{self.name}.step.mlir"
        eval_mlir = d / f"{self.name}.eval.mlir"
        self.eval_mlir = eval_mlir if eval_mlir.is_file() else None
        self.memory = json.loads((d / f"{self.name}.memory.json").read_text())
        cost = d / f"{self.name}.cost.json"
        self.cost = json.loads(cost.read_text()) if cost.is_file() else None

    def load(self, device="auto", comm=None, comm_timeout=300.0,
             transport=None):
        """The compiled step, ready to train (see Step; ``comm`` joins a
        data-parallel job)."""
        return Step(self.library, self.name, device, comm=comm,
                    comm_timeout=comm_timeout, transport=transport)


def param_groups_option(groups):
    """The amp-optimizer option ``param-groups=...`` for ``groups``, a dict
    from a group's name to its settings: ``select``, the selectors (a rank
    comparison as "rank<2", or a glob pattern on parameter names), and the
    hyperparameters the group sets (torch.optim's names: "lr",
    "weight_decay", ...). For example the GPT recipe,
    ``{"no_decay": {"select": ["rank<2", "wpe"], "weight_decay": 0.0}}``.
    """
    texts = []
    for group, settings in groups.items():
        settings = dict(settings)
        select = settings.pop("select", None)
        if isinstance(select, str):
            select = [select]
        if not select:
            raise AmpError(f"parameter group {group!r} needs 'select': the "
                           f"rank comparisons or name patterns it holds")
        if not settings:
            raise AmpError(f"parameter group {group!r} sets no "
                           f"hyperparameter")
        values = ",".join(f"{key}={float(value)!r}"
                          for key, value in settings.items())
        texts.append(f"{group}:{'|'.join(select)}:{values}")
    return "param-groups=" + ";".join(texts)


def train_options_text(options):
    """The --train-options text of ``options``: a string as it is, or a
    mapping of keys (dashes or underscores, as amp-compile takes either)
    to values: numbers, booleans (true/false) or strings, without spaces."""
    if options is None:
        return ""
    if isinstance(options, str):
        return options
    if not hasattr(options, "items"):
        raise AmpError(f"train_options must be a string or a mapping, not "
                       f"{type(options).__name__}")
    items = []
    for key, value in options.items():
        if not isinstance(key, str) or not key or " " in key or "=" in key:
            raise AmpError(f"train_options has a bad key {key!r}")
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, (int, float)):
            value = repr(value)
        elif not isinstance(value, str) or not value or " " in value:
            raise AmpError(f"train_options[{key!r}] must be a number, a bool "
                           f"or a string without spaces, not {value!r}")
        items.append(f"{key}={value}")
    return " ".join(items)


def compile(model, output_dir, *, target="host", compute_type=None,
            optimizer=None, loss_scaling=None, train_options="",
            param_groups=None, name=None, cost_report=False, evaluation=True,
            eval_outputs=(), eval_batch=None):
    """Compiles the training graph in ``model`` (a .mlir file) with
    amp-compile into ``output_dir`` and returns a CompiledStep.

    ``compute_type`` is "f16" (or "fp16", "float16", "half"), "bf16" (or
    "bfloat16"), "fp8" (bf16 with FP8 GEMMs; "fp8-f16": f16 with them;
    ``train_options="fp8-scaling=delayed"`` for delayed scaling) or
    "f32" (or "none": no casts); without one, amp-compile's
    default (f16, as amp-autocast's and --amp-train-step's);
    ``optimizer`` "sgd", "adam" or "adamw" (amp-compile's default, as
    everywhere); ``loss_scaling`` "auto" (the default: dynamic for f16),
    "dynamic", "static" or "none"; ``train_options`` further --amp-train-step options, a string
    ("lr=0.01 weight-decay=0.1") or a mapping ({"lr": 0.01,
    "weight_decay": 0.1}); a key takes dashes or underscores, as the
    step's hyperparameters are named (a ``policy=FILE`` needs f16 or
    bf16).
    ``param_groups`` gives some parameters hyperparameters of their own, as
    torch.optim's param_groups do (see param_groups_option); each is then
    the step's hyperparameter "<group>.<key>".
    ``name`` must be a C identifier (default: the model file's stem).
    ``cost_report`` also writes the modeled GPU cost of each kernel
    (CompiledStep.cost; docs/backend.md, The cost report).
    ``evaluation`` builds the model's forward-only evaluation into the
    library too (Step.evaluate), returning the loss and the values named in
    ``eval_outputs`` (their SSA names in the model, as "logits"), for
    batches of ``eval_batch`` examples (default: the step's batch; 1 to
    predict one example at a time), or of each size of a list of them
    (Step.evaluate runs the one of its batch's size).
    ``output_dir`` is written whole or not at all: a failed compilation
    leaves it as it was.
    Raises CompileError with the compiler's diagnostics on failure.
    """
    model = Path(model)
    if not model.is_file():
        raise AmpError(f"no model file at {model}")
    if target not in ("host", "cuda"):
        raise AmpError(f"target must be 'host' or 'cuda', not {target!r}")
    name = name or model.stem
    if not _NAME.match(name):
        raise AmpError(f"name must be a C identifier, not {name!r}")
    args = [model, f"--target={target}", "-o", output_dir, f"--name={name}"]
    # Without a value, amp-compile's default (docs/training.md, One set of
    # defaults): one default, not a copy of it here.
    if optimizer:
        args.append(f"--optimizer={optimizer}")
    if loss_scaling:
        args.append(f"--loss-scaling={loss_scaling}")
    if compute_type:
        args.append(f"--compute-type={compute_type}")
    train_options = train_options_text(train_options)
    if param_groups:
        train_options = " ".join(
            filter(None, [train_options, param_groups_option(param_groups)]))
    if train_options:
        args.append(f"--train-options={train_options}")
    if cost_report:
        args.append("--cost-report")
    if isinstance(eval_outputs, str):
        eval_outputs = [eval_outputs]
    if eval_outputs and not evaluation:
        raise AmpError("eval_outputs needs evaluation=True")
    if eval_batch is not None and not evaluation:
        raise AmpError("eval_batch needs evaluation=True")
    if not evaluation:
        args.append("--eval=false")
    if eval_batch is not None:
        sizes = [eval_batch] if isinstance(eval_batch, numbers.Integral) \
            else list(eval_batch)
        if not sizes or any(isinstance(b, bool) or
                            not isinstance(b, numbers.Integral) for b in sizes):
            raise AmpError("eval_batch must be a batch size or a list of "
                           f"them, not {eval_batch!r}")
        args.append("--eval-batch=" + ",".join(str(int(b)) for b in sizes))
    if eval_outputs:
        args.append("--eval-outputs=" + ",".join(eval_outputs))
    run_tool("amp-compile", args)
    return CompiledStep(name, Path(output_dir), target)


def opt(model, *args):
    """Runs amp-opt on ``model`` (a path, or IR text when it contains a
    newline or '{') with ``args`` (flags such as "--amp-autocast=...");
    returns the printed IR."""
    text = str(model)
    if "\n" in text or "{" in text:
        return run_tool("amp-opt", ["-"] + list(args), input_text=text)
    return run_tool("amp-opt", [model] + list(args))


def run(model, *args):
    """Runs amp-run (the reference interpreter) on ``model`` with ``args``;
    returns its output."""
    return run_tool("amp-run", [model] + list(args))


def autocast_report(model, report, compute_type=None, dot=None):
    """Runs --amp-autocast on ``model`` (in ``compute_type``, by default
    the pass's, f16), writing its JSON report (and a Graphviz graph when
    ``dot`` is given); returns the report's summary of the first function
    ({"line": "converted N/M ops ...", ...})."""
    options = f"report={report}"
    if compute_type:
        options = f"compute-type={compute_type} " + options
    if dot:
        options += f" dot={dot}"
    run_tool("amp-opt", [model, f"--amp-autocast={options}", "-o", "/dev/null"])
    functions = json.loads(Path(report).read_text())["functions"]
    return functions[0]["summary"]
