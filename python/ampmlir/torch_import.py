"""PyTorch models into the amp dialect, through torch.export.

    imported = ampmlir.from_torch(model, (x, labels),
                                  loss=lambda m, x, y: F.cross_entropy(m(x), y))
    compiled = imported.compile("out/model", compute_type="f16")
    with compiled.load() as step:
        step.init(seed=0)                          # from the model's weights
        step.run(x, labels)
        model.load_state_dict(step.state_dict())   # and hand the weights back

``torch.export.export`` traces the model and its loss into ATen operations;
each becomes the amp operation of the same meaning, located at the Python
line and module path that produced it: by the converter registered for
its op (``_converts``, one method of ``_Importer`` per op or family of
ops), else through PyTorch's decomposition of it. The model's trainable parameters
become ``{amp.param}`` arguments named by their ``state_dict`` keys, its
buffers ``{amp.buffer}`` arguments, its inputs arguments named as the
loss's parameters. Parameters keep PyTorch's layouts (a Linear's weight is
[out, in], read transposed by amp.matmul), so a state_dict goes in and out
as it is. An ATen operation without a counterpart here is an error that
names it, its module path and source line, and every other such operation
of the model at once.

torch is imported only when ``from_torch`` is called.
"""

import inspect
import io
import json
import math
import operator
import os
import re
import warnings
from pathlib import Path

import numpy as np

from ._errors import AmpError
from ._files import write_atomically
from .compiler import compile as _compile
from .step import TORCH_NAMES_FILE, TORCH_STATE_FILE

# The wrapper's attribute that holds the user's module: its prefix is taken
# off every parameter's name.
_MODEL = "model"

# The longest step name whose files fit in a file name of 255 bytes (Linux's
# NAME_MAX): the longest of them that amp-compile writes is <name>.memory.json.
_LONGEST_NAME = 255 - len(".memory.json")


def _check_name(name):
    """Raises AmpError unless `name` can name a step and its files."""
    if not isinstance(name, str) or \
            not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise AmpError(f"name must be a C identifier, not {name!r}")
    if len(name) > _LONGEST_NAME:
        raise AmpError(f"name is {len(name)} characters long; a step's name "
                       f"may have at most {_LONGEST_NAME}, so that its files "
                       f"(<name>.memory.json the longest) have names of at "
                       f"most 255")


def _torch():
    try:
        import torch
    except ImportError:
        raise AmpError("from_torch needs PyTorch (pip install torch)") from None
    return torch


def _element(dtype, torch):
    table = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
             torch.int64: "i64", torch.int32: "i32", torch.bool: "i1"}
    if dtype not in table:
        raise AmpError(f"tensors of {dtype} are not supported")
    return table[dtype]


# The amp ops without a precision of their own, which amp.precision does
# not apply to.
_WITHOUT_PRECISION = {"constant", "cast", "iota", "rng_advance"}


def _wrap_with_autocast(torch):
    """torch.export's operator for a `with torch.autocast(...)` region,
    or None in a PyTorch without it."""
    return getattr(getattr(torch.ops, "higher_order", None),
                   "wrap_with_autocast", None)


_GRAD_OP = None


def _grad_op(torch):
    """torch.ops.ampmlir.grad (registered on first use): the node
    ``grad`` leaves in an exported graph, which the importer writes as an
    amp.grad region. Only its fake (shape) implementation ever runs."""
    global _GRAD_OP
    if _GRAD_OP is None:
        @torch.library.custom_op("ampmlir::grad", mutates_args=())
        def grad_op(value: torch.Tensor,
                    inputs: list[torch.Tensor]) -> list[torch.Tensor]:
            raise AmpError("ampmlir::grad stands for a gradient only in a "
                           "graph torch.export traces; call ampmlir.grad")

        @grad_op.register_fake
        def _(value, inputs):
            return [torch.empty_like(x) for x in inputs]

        _GRAD_OP = torch.ops.ampmlir.grad.default
    return _GRAD_OP


def grad(value, inputs):
    """The gradient of the 0-d ``value`` with respect to each of ``inputs``
    (tensors it was computed from: parameters, the batch, values of the
    forward), for a gradient penalty: in a forward that ``from_torch``
    imports, PyTorch's ``torch.autograd.grad(value, inputs,
    create_graph=True)``, which ``torch.export`` cannot trace. Run eagerly,
    it is that call, so the same module trains in PyTorch; traced by
    ``from_torch``, it becomes an ``amp.grad`` region that the step
    differentiates again, and under loss scaling takes the inner gradient
    of the scaled loss and unscales it before the model reads it, as
    PyTorch's recipe does by hand. Returns a list, one gradient per input.
    """
    torch = _torch()
    inputs = list(inputs)
    op = _grad_op(torch)
    if torch.compiler.is_exporting():
        return list(op(value, inputs))
    return list(torch.autograd.grad(value, inputs, create_graph=True))


_FUNCTION_OPS = None
# The autograd.Function classes from_torch captured, with their
# custom_fwd cast_inputs (or None), by the key their node carries.
_FUNCTIONS = []


class _FunctionContext:
    """The ``ctx`` an autograd.Function's forward and backward are given
    while from_torch traces them: what they save, the attributes they set,
    the flags they read."""

    _fwd_used_autocast = False  # what custom_bwd reads of custom_fwd's

    def __init__(self, needs_input_grad):
        self.saved_tensors = ()
        self.needs_input_grad = needs_input_grad
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self.saved_tensors = tuple(tensors)

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        self.materialize_grads = value

    def mark_dirty(self, *tensors):
        raise AmpError("an autograd.Function that modifies its inputs in "
                       "place (ctx.mark_dirty) cannot be imported")


def _function_ops(torch):
    """torch.ops.ampmlir.cotangent and .custom_function (registered on
    first use): the nodes a captured autograd.Function leaves in an
    exported graph, a stand-in for each output's gradient and the call
    that the importer writes as a function with its own backward. Only
    their fake (shape) implementations ever run."""
    global _FUNCTION_OPS
    if _FUNCTION_OPS is None:
        @torch.library.custom_op("ampmlir::cotangent", mutates_args=())
        def cotangent(like: torch.Tensor) -> torch.Tensor:
            raise AmpError("ampmlir::cotangent stands for a gradient only in "
                           "a graph from_torch traces")

        @cotangent.register_fake
        def _(like):
            return torch.empty_like(like)

        @torch.library.custom_op("ampmlir::custom_function", mutates_args=())
        def custom_function(key: int, inputs: list[torch.Tensor],
                            outputs: list[torch.Tensor],
                            cotangents: list[torch.Tensor],
                            grads: list[torch.Tensor]) -> list[torch.Tensor]:
            raise AmpError("ampmlir::custom_function stands for an "
                           "autograd.Function only in a graph from_torch "
                           "traces")

        @custom_function.register_fake
        def _(key, inputs, outputs, cotangents, grads):
            return [torch.empty_like(o) for o in outputs]

        _FUNCTION_OPS = (torch.ops.ampmlir.cotangent.default,
                         torch.ops.ampmlir.custom_function.default)
    return _FUNCTION_OPS


def _cast_inputs(forward):
    """custom_fwd's cast_inputs of an autograd.Function's `forward` (None
    without one)."""
    if not hasattr(forward, "__wrapped__"):
        return None
    try:
        return inspect.getclosurevars(forward).nonlocals.get("cast_inputs")
    except TypeError:
        return None


def _has_setup_context(cls, torch):
    """Whether `cls` saves through setup_context (its forward then takes
    no ctx)."""
    base = torch.autograd.function._SingleLevelFunction.setup_context
    return getattr(cls.setup_context, "__func__", cls.setup_context) is not \
        getattr(base, "__func__", base)


def _is_region_graph(node, torch):
    """Whether `node` fetches the graph of autocast regions: a get_attr
    read only by wrap_with_autocast calls, which import it."""
    return node.op == "get_attr" and bool(node.users) and all(
        user.target is _wrap_with_autocast(torch) for user in node.users)


def _type_colon(line):
    """The index of the ` : ` before an op's types in `line` (one of
    _Importer.lines), outside the brackets of its operands and
    attributes."""
    depth, quoted = 0, False
    for i, c in enumerate(line):
        if quoted:
            quoted = c != '"' or line[i - 1] == "\\"
        elif c == '"':
            quoted = True
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif depth == 0 and line.startswith(" : ", i):
            return i
    raise AmpError(f"no types in the imported line {line.strip()!r}")


def _mlir_string(text):
    """`text` as an MLIR string literal, which reads back as the same
    bytes (UTF-8): quote and backslash escaped, every byte outside
    printable ASCII (a newline, a tab, the bytes of non-ASCII letters) as
    a backslash and two hex digits, as MLIR prints strings. PyTorch allows
    any of them in a parameter's or a module's name."""
    out = []
    for byte in text.encode():
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:02X}")
    return '"' + "".join(out) + '"'


def _type(shape, element):
    dims = "x".join(str(int(d)) for d in shape)
    return f"tensor<{dims}{'x' if dims else ''}{element}>"


# The bits of inf, -inf and NaN in each float type, which MLIR reads as a
# hexadecimal literal (it has no decimal one for them).
_SPECIAL_BITS = {
    "f16": ("0x7C00", "0xFC00", "0x7E00"),
    "bf16": ("0x7F80", "0xFF80", "0x7FC0"),
    "f32": ("0x7F800000", "0xFF800000", "0x7FC00000"),
    "f64": ("0x7FF0000000000000", "0xFFF0000000000000", "0x7FF8000000000000"),
}


def _float(value, element=None):
    """A float literal MLIR reads back as the same double; inf and NaN as
    the bits of `element`, in a constant of that type. An attribute (no
    element) refuses them."""
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        if element not in _SPECIAL_BITS:
            raise AmpError(f"cannot write the constant {value} into the model")
        return _SPECIAL_BITS[element][("inf", "-inf", "nan").index(text)]
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + e + exponent


class _Loss:
    """The module and its loss as one module for torch.export."""

    @staticmethod
    def wrap(module, loss, torch):
        class WithLoss(torch.nn.Module):
            def __init__(self):
                super().__init__()
                setattr(self, _MODEL, module)

            def forward(self, *args):
                inner = getattr(self, _MODEL)
                return loss(inner, *args) if loss is not None else inner(*args)

        return WithLoss()


class _Value:
    """An SSA value of the module being written: its name and type. An
    integer tensor the model computes from the batch (CLIP's position of
    its end-of-text token) is held in f32, whose integers are exact below
    2^24: ``integer`` is then the integer type it stands for, and
    [``low``, ``high``] the range its values lie in."""

    integer = None
    low = high = None

    def __init__(self, name, shape, element):
        self.name, self.shape, self.element = name, tuple(shape), element

    @property
    def type(self):
        return _type(self.shape, self.element)


class ImportedModel:
    """The amp module that ``from_torch`` wrote, and what it was made
    from: ``mlir`` (the text), ``name``, ``parameters`` (those that
    require gradients) and ``buffers`` (the module's buffers and its
    frozen parameters: state the step reads; batch norm's running
    statistics it also updates) ({name: shape}, in argument order),
    ``aliases`` ({name: [other
    state_dict keys of the same tensor]}, tied weights), ``inputs`` (the
    batch's names, in order), ``counters`` (batch norm's
    num_batches_tracked: counted by Step.state_dict, not tensors of the
    step), ``constants`` (the keys of integer buffers the model only
    reads, such as Swin's relative position index: compiled into the
    step; Step.state_dict gives them back as they were at import)."""

    def __init__(self, name, mlir, parameters, buffers, aliases, inputs,
                 counters=(), initial_state=None, constants=()):
        self.name, self.mlir = name, mlir
        self.parameters, self.buffers = parameters, buffers
        self.aliases, self.inputs = aliases, inputs
        self.counters = list(counters)
        self.constants = list(constants)
        # The module's state_dict at import ({key: numpy array}), which
        # the compiled step starts from.
        self.initial_state = dict(initial_state or {})

    def write(self, path):
        """Writes the module to ``path`` (a .mlir file)."""
        write_atomically(Path(path), self.mlir.encode())

    def compile(self, output_dir, **options):
        """Compiles the module as ampmlir.compile does (the same options)
        into ``output_dir`` from its text, written there first
        (``<name>.mlir``: every diagnostic points into it, and
        ``eval_outputs`` names its values by module path, ``"fc"``, or by
        the SSA names written there). Then writes beside the step the
        PyTorch names of its tensors (``torch_names.json``, for
        Step.state_dict) and the module's weights at import
        (``torch_state.npz``), which Step.init starts the step from."""
        output_dir = Path(output_dir)
        options.setdefault("name", self.name)
        _check_name(options["name"] or self.name)
        output_dir.mkdir(parents=True, exist_ok=True)
        source = output_dir / f"{self.name}.mlir"
        self.write(source)
        compiled = _compile(source, output_dir, **options)
        # The state's keys in the record, its arrays by position: a key
        # may hold any character but NUL.
        names = {"parameters": list(self.parameters),
                 "buffers": list(self.buffers), "aliases": self.aliases,
                 "counters": self.counters, "constants": self.constants,
                 "initial_state": list(self.initial_state)}
        buffer = io.BytesIO()
        np.savez(buffer, *self.initial_state.values())
        write_atomically(output_dir / TORCH_STATE_FILE, buffer.getvalue())
        write_atomically(output_dir / TORCH_NAMES_FILE,
                          json.dumps(names, indent=1).encode())
        return compiled


def _initial_state(state, imported):
    """The tensors of `state` (the module's parameters and buffers by
    every key) that the step holds, under each key of tied weights, and
    batch norm's counts and the integer constants, as numpy copies: f32
    for floating tensors (the step converts them to its tensors' types),
    the others as they are."""
    keys = set(imported.parameters) | set(imported.buffers) | \
        set(imported.counters) | set(imported.constants)
    keys.update(k for others in imported.aliases.values() for k in others)
    out = {}
    for key, value in state.items():
        if key not in keys:
            continue
        value = value.detach().cpu()
        if value.is_floating_point():
            value = value.float()
        out[key] = value.numpy().copy()
    return out


# The elementwise amp ops whose attributes are written just before their
# types, and those of them that round their result.
_ELEMENTWISE = re.compile(
    r"= amp\.(add|sub|mul|div|maximum|minimum|neg|abs|exp|log|sqrt|rsqrt|"
    r"tanh|sigmoid|relu|pow|select) [^{]* : ")
_ROUNDING = {"add", "sub", "mul", "div", "exp", "log", "sqrt", "rsqrt",
             "tanh", "sigmoid", "pow"}

# The ops that move elements about without computing with them, by
# their ATen names.
_MOVES = {"view", "reshape", "_unsafe_view", "unsqueeze", "squeeze",
          "flatten", "slice", "select", "narrow", "cat", "stack", "expand",
          "permute", "transpose", "t", "clone", "contiguous", "alias",
          "split", "chunk", "unbind", "detach"}

# The ops whose result depends on their first argument's shape and type
# only, as [namespace, name].
_SHAPED = [["aten", n] for n in ("new_zeros", "new_ones", "new_full",
                                 "zeros_like", "ones_like", "full_like")]

# The logical operations on boolean masks, by their ATen names.
_LOGICAL_NOT = {"aten.bitwise_not.default", "aten.logical_not.default"}
_LOGICAL_AND = {"aten.bitwise_and.Tensor", "aten.logical_and.default",
                "aten.__and__.Tensor"}
_LOGICAL_OR = {"aten.bitwise_or.Tensor", "aten.logical_or.default",
               "aten.__or__.Tensor"}

# The converters of ATen ops to amp ops, by op name ("aten.linear.default"):
# methods of _Importer, registered by _converts.
_CONVERTERS = {}


def _converts(*names):
    """Registers the decorated _Importer method as the converter of the
    ATen ops `names`."""
    def register(method):
        for name in names:
            assert name not in _CONVERTERS, name
            _CONVERTERS[name] = method
        return method
    return register


def _arguments(node):
    """arg(i, name, default): argument `i` of `node`, given by position or
    by keyword."""
    def arg(i, name, default=None):
        if len(node.args) > i:
            return node.args[i]
        return node.kwargs.get(name, default)
    return arg


# The ops that are one amp op each, by ATen name (their in-place forms
# come as these: _Importer.import_in_place).
_BINARY = {"aten.add.Tensor": "add", "aten.sub.Tensor": "sub",
           "aten.mul.Tensor": "mul", "aten.div.Tensor": "div",
           "aten.add.Scalar": "add", "aten.sub.Scalar": "sub",
           "aten.mul.Scalar": "mul", "aten.div.Scalar": "div",
           "aten.maximum.default": "maximum",
           "aten.minimum.default": "minimum"}
_COMPARE = {"aten.eq.Tensor": "eq", "aten.eq.Scalar": "eq",
            "aten.ne.Tensor": "ne", "aten.ne.Scalar": "ne",
            "aten.lt.Tensor": "lt", "aten.lt.Scalar": "lt",
            "aten.le.Tensor": "le", "aten.le.Scalar": "le",
            "aten.gt.Tensor": "gt", "aten.gt.Scalar": "gt",
            "aten.ge.Tensor": "ge", "aten.ge.Scalar": "ge"}
_UNARY = {"aten.neg.default": "neg", "aten.exp.default": "exp",
          "aten.log.default": "log", "aten.sqrt.default": "sqrt",
          "aten.rsqrt.default": "rsqrt", "aten.tanh.default": "tanh",
          "aten.sigmoid.default": "sigmoid", "aten.relu.default": "relu",
          "aten.abs.default": "abs"}
# The clamps: the positions of their low and high bounds.
_CLAMPS = {"aten.clamp.default": (1, 2), "aten.clamp_min.default": (1, None),
           "aten.clamp_max.default": (None, 1),
           "aten.hardtanh.default": (1, 2)}


class _Importer:
    def __init__(self, torch, program, prefix):
        self.torch = torch
        self.program = program
        self.prefix = prefix
        self.values = {}      # fx node name -> _Value, or a tuple of them
        self.lines = []       # the function body
        self.counter = 0
        self.unsupported = {}  # ATen op -> [where]
        self.known = {}       # fx node name -> its value, for constants
        self.dropouts = 0     # dropouts in training, each a stream
        # Why the ops imported now run in f32 (a torch.autocast(
        # enabled=False) region's place), or None.
        self.autocast_off = None
        self.orders = {}      # fx graph -> {node: position}, in-place ops
        # The nodes of captured autograd.Functions' forwards and backwards,
        # imported into functions of their own rather than where they are.
        self.deferred = set()
        self.functions = []   # those functions' text
        self.name = "model"
        self.torch_dir = os.path.dirname(torch.__file__)

    # -- writing ------------------------------------------------------------

    def fresh(self, hint):
        self.counter += 1
        hint = re.sub(r"[^A-Za-z0-9_]", "_", hint)
        return f"%{hint}_{self.counter}"

    def emit(self, text, shape, element, loc, hint="v"):
        name = self.fresh(hint)
        self.lines.append(f"    {name} = {text} {loc}")
        return _Value(name, shape, element)

    def place(self, node):
        """(module path, (file, line) or None) of the line that made
        `node`: the innermost frame of its stack outside torch itself."""
        module = ""
        stack = node.meta.get("nn_module_stack") or {}
        if stack:
            module = list(stack.values())[-1][0]
            if module.startswith(self.prefix):
                module = module[len(self.prefix):]
            elif module == _MODEL:
                module = ""
        frames = re.findall(r'File "([^"]+)", line (\d+)',
                            node.meta.get("stack_trace") or "")
        ours = [f for f in frames if not f[0].startswith(self.torch_dir)
                and not f[0].endswith("torch_import.py")]
        return module, (ours[-1] if ours else None)

    def location(self, node):
        """`loc("module.path"("file":line:0))` of `node` (see place)."""
        module, file_line = self.place(node)
        # No frame of the model's (an op of the wrapper's): the op's name.
        if not file_line:
            return f"loc({_mlir_string(module or node.name)})"
        # The model's own forward has no path: its ops are located by line.
        path, line = file_line
        place = f"{_mlir_string(path)}:{line}:0"
        return f"loc({_mlir_string(module)}({place}))" if module \
            else f"loc({place})"

    def where(self, node):
        """`module.path (file.py:57)` for errors."""
        module, file_line = self.place(node)
        if not file_line:
            return module or node.name
        path, line = file_line
        return f"{module or 'forward'} ({os.path.basename(path)}:{line})"

    def fold(self, node):
        """Computes `node` now if every input is a constant (masks and
        positions made from arange, shapes): its value is then known, and
        written out only where an imported operation reads it."""
        torch = self.torch
        if str(node.target).split(".")[1:2] and \
                str(node.target).split(".")[1] in _RANDOM:
            return False
        inputs = node.all_input_nodes
        args, kwargs = node.args, node.kwargs
        shaped = str(node.target).split(".")[:2] in _SHAPED
        if shaped and args and \
                isinstance(args[0], torch.fx.Node) and \
                args[0].name not in self.known:
            # Made from its input's shape and type alone (x.new_zeros, as
            # Swin's attention mask starts): the input's stand-in will do.
            val = args[0].meta.get("val")
            if val is None or not hasattr(val, "shape"):
                return False
            args = (torch.zeros(tuple(val.shape), dtype=val.dtype),) + \
                tuple(args[1:])
            inputs = inputs[1:] if inputs and inputs[0] is node.args[0] \
                else inputs
        if any(n.name not in self.known for n in inputs):
            return False
        # Of the ops without inputs, those whose values are defined
        # (not aten.empty's).
        if not inputs and not shaped and not str(node.target).startswith(
                ("aten.arange", "aten.full", "aten.zeros", "aten.ones",
                 "aten.scalar_tensor")):
            return False
        args = torch.fx.node.map_arg(args, lambda n: self.known[n.name])
        kwargs = torch.fx.node.map_arg(kwargs, lambda n: self.known[n.name])
        try:
            with torch.no_grad():
                self.known[node.name] = node.target(*args, **kwargs)
        except Exception:  # noqa: BLE001 - then it is imported as usual
            return False
        name = str(node.target).split(".")
        if len(name) > 1 and name[1].endswith("_") and \
                isinstance(args[0], torch.Tensor):
            # An in-place update of a constant (a mask filled slice by
            # slice): what was written out of it, or of a view of it,
            # before is out of date.
            storage = args[0].untyped_storage().data_ptr()
            for n in [n for n in self.values if n in self.known]:
                known = self.known[n]
                if isinstance(known, torch.Tensor) and \
                        known.untyped_storage().data_ptr() == storage:
                    del self.values[n]
        return True

    def literal(self, tensor):
        """A constant tensor of the model, written out: one number
        broadcast where it is one number throughout (x.new_zeros(...),
        zeros_like), else every element."""
        element = _element(tensor.dtype, self.torch)
        flat = tensor.detach().reshape(-1)
        if tensor.dim() == 0 or (element != "i1" and flat.numel() and
                                 bool((flat == flat[0]).all())):
            value = self.constant(flat[0].item(), element, "")
            return self.broadcast(value, tuple(tensor.shape), "", "full")
        flat = flat.tolist()
        write = ((lambda v: _float(v, element)) if element[0] in "fb"
                 else (lambda v: str(int(v))))
        value = self.emit(f"amp.constant dense<[{', '.join(map(write, flat))}]>"
                          f" : {_type((len(flat),), element)}", (len(flat),),
                          element, "", "const")
        return self.reshape(value, tuple(tensor.shape), "")

    def constant(self, value, element, loc):
        literal = (_float(value, element) if element.startswith(("f", "b"))
                   else str(int(value)))
        return self.emit(f"amp.constant dense<{literal}> : {_type((), element)}",
                         (), element, loc, "c")

    # -- helpers over values ----------------------------------------------

    def value(self, arg, like=None, loc=""):
        """`arg` as a value: a node's, or a Python number as a 0-d
        constant of `like`'s element type."""
        torch = self.torch
        if isinstance(arg, torch.fx.Node):
            if arg.name not in self.values and arg.name in self.known:
                # A constant the model computed: written out where first
                # used.
                known = self.known[arg.name]
                if not isinstance(known, torch.Tensor):
                    raise AmpError(f"{arg.name} is not a tensor")
                self.values[arg.name] = self.literal(known)
            value = self.values.get(arg.name)
            if not isinstance(value, _Value):
                raise AmpError(f"{arg.name} is not a tensor")
            return value
        if isinstance(arg, (bool, int, float)):
            element = like.element if like is not None else "f32"
            return self.constant(arg, element, loc)
        raise AmpError(f"cannot use {arg!r} as a tensor")

    def result(self, node):
        val = node.meta.get("val")
        return tuple(val.shape), _element(val.dtype, self.torch)

    def unary(self, op, x, loc, attrs=""):
        return self.emit(f"amp.{op} {x.name}{attrs} : {x.type}", x.shape,
                         x.element, loc, op)

    def binary(self, op, a, b, node, loc):
        shape, element = self.result(node)
        if element[0] not in "fb":
            raise AmpError(f"{op} of {element} tensors computed from the "
                           "batch or the weights (only float arithmetic is "
                           "imported)")
        return self.emit(f"amp.{op} {a.name}, {b.name} : {a.type}, {b.type}",
                         shape, element, loc, op)

    def reshape(self, x, shape, loc):
        shape = tuple(int(d) for d in shape)
        if shape == x.shape:
            return x
        return self.emit(f"amp.reshape {x.name} : {x.type} to "
                         f"{_type(shape, x.element)}", shape, x.element, loc,
                         "reshape")

    def transpose(self, x, perm, loc):
        perm = [int(p) % max(len(x.shape), 1) for p in perm]
        if perm == list(range(len(perm))):
            return x
        shape = tuple(x.shape[p] for p in perm)
        return self.emit(f"amp.transpose {x.name}, [{', '.join(map(str, perm))}] "
                         f": {x.type} to {_type(shape, x.element)}", shape,
                         x.element, loc, "transpose")

    def slice(self, x, dim, start, end, loc):
        dim %= len(x.shape)
        size = x.shape[dim]
        start, end = _bounds(start, end, size)
        if start == 0 and end == size:
            return x
        begin = [0] * len(x.shape)
        limit = list(x.shape)
        begin[dim], limit[dim] = start, end
        shape = tuple(limit[i] - begin[i] for i in range(len(limit)))
        return self.emit(
            f"amp.slice {x.name} [{', '.join(map(str, begin))}] to "
            f"[{', '.join(map(str, limit))}] : {x.type} to "
            f"{_type(shape, x.element)}", shape, x.element, loc, "slice")

    def matmul(self, a, b, shape, element, loc, hint, bias=None,
               transpose_rhs=False):
        """amp.matmul of `a` by `b` (transposed with `transpose_rhs`), plus
        `bias` where given, to `shape`."""
        operands = f"{a.name}, {b.name}"
        types = f"{a.type}, {b.type}"
        if bias is not None:
            operands += f" bias {bias.name}"
            types += f", {bias.type}"
        attrs = " {transpose_rhs}" if transpose_rhs else ""
        return self.emit(f"amp.matmul {operands}{attrs} : {types} to "
                         f"{_type(shape, element)}", shape, element, loc, hint)

    def broadcast(self, x, shape, loc, hint):
        """amp.broadcast_to of `x` to `shape`; `x` where it has it."""
        shape = tuple(shape)
        if shape == x.shape:
            return x
        return self.emit(f"amp.broadcast_to {x.name} : {x.type} to "
                         f"{_type(shape, x.element)}", shape, x.element, loc,
                         hint)

    def concat(self, values, dim, shape, loc, hint):
        """amp.concat of `values` along `dim` to `shape`."""
        shape, element = tuple(shape), values[0].element
        return self.emit(
            f"amp.concat {', '.join(v.name for v in values)} dim = {dim} : "
            f"{', '.join(v.type for v in values)} to {_type(shape, element)}",
            shape, element, loc, hint)

    def conv2d(self, x, w, b, strides, padding, dilations, groups, shape,
               element, loc):
        """amp.conv2d of `x` by `w` (and bias `b`, or None) to `shape`."""
        attrs = _window_attrs(strides=strides, padding=padding,
                              dilations=dilations)
        if groups != 1:
            attrs.append(f"groups = {groups} : i64")
        operands = f"{x.name}, {w.name}"
        types = f"{x.type}, {w.type}"
        if b is not None:
            operands += f" bias {b.name}"
            types += f", {b.type}"
        return self.emit(f"amp.conv2d {operands} {{{', '.join(attrs)}}} : "
                         f"{types} to {_type(shape, element)}", shape,
                         element, loc, "conv")

    def strided_slice(self, x, dim, start, end, step, loc):
        """x[start:end:step] along `dim`: with a step, the slice of whole
        steps grouped as [count, step] and the first of each group taken,
        the last element on its own where its group runs past the end."""
        if step < 1:
            raise AmpError(f"slices with step {step}; PyTorch takes positive "
                           "steps only")
        if step == 1:
            return self.slice(x, dim, start, end, loc)
        dim %= len(x.shape)
        size = x.shape[dim]
        start, end = _bounds(start, end, size)
        count = -(-(end - start) // step)
        whole = count if start + count * step <= size else count - 1
        pieces = []
        if whole:
            grouped = self.slice(x, dim, start, start + whole * step, loc)
            outer, inner = x.shape[:dim], x.shape[dim + 1:]
            grouped = self.reshape(grouped, outer + (whole, step) + inner, loc)
            firsts = self.slice(grouped, dim + 1, 0, 1, loc)
            pieces.append(self.reshape(firsts, outer + (whole,) + inner, loc))
        if whole < count:
            at = start + whole * step
            pieces.append(self.slice(x, dim, at, at + 1, loc))
        if len(pieces) == 1:
            return pieces[0]
        shape = list(x.shape)
        shape[dim] = count
        return self.concat(pieces, dim, shape, loc, "slice")

    def logical(self, target, operands, node, loc):
        """not, and, or of i1 masks, through f32: a mask as 1 and 0
        (amp.select), combined, compared with 0."""
        shape, _ = self.result(node)
        if any(v.element != "i1" for v in operands):
            raise AmpError("bitwise operations on integers; only logical "
                           "ones on boolean masks are supported")
        one, zero = (self.constant(c, "f32", loc) for c in (1.0, 0.0))
        first = operands[0]
        if str(target) in _LOGICAL_NOT:
            # not m: 0 where m holds, else 1.
            value = self.select(first, zero, one, first.shape, "f32", loc)
        else:
            other = self.select(operands[1], one, zero, operands[1].shape,
                                "f32", loc)
            if str(target) in _LOGICAL_AND:
                value = self.select(first, other, zero, shape, "f32", loc)
            else:
                value = self.select(first, one, other, shape, "f32", loc)
        return self.emit(f"amp.compare ne, {value.name}, {zero.name} : "
                         f"{value.type}, {zero.type}", shape, "i1", loc,
                         "mask")

    def reduce_dims(self, op, x, dims, loc):
        """amp.`op` (sum, mean, max) of `x` over `dims` (every dim where
        none are given), the reduced dims dropped."""
        rank = len(x.shape)
        dims = sorted({int(d) % rank for d in (dims if dims else range(rank))})
        shape = tuple(d for i, d in enumerate(x.shape) if i not in dims)
        return self.emit(f"amp.{op} {x.name} dims = "
                         f"[{', '.join(map(str, dims))}] : {x.type} to "
                         f"{_type(shape, x.element)}", shape, x.element, loc,
                         op)

    def reduce(self, op, x, dims, keepdim, node, loc):
        out = self.reduce_dims(op, x, dims, loc)
        return self.reshape(out, self.result(node)[0], loc) if keepdim else out

    def select(self, cond, a, b, shape, element, loc, hint="select"):
        """amp.select: `a` where `cond` holds, else `b`, broadcast to
        `shape`."""
        return self.emit(f"amp.select {cond.name}, {a.name}, {b.name} : "
                         f"{cond.type}, {a.type}, {b.type}", shape, element,
                         loc, hint)

    def one_hot(self, labels, shape, loc):
        """A mask (i1) of `shape`, the labels' and then the classes', where
        the class index equals the label: what PyTorch's one-hot rows are,
        as 1 and 0 once converted."""
        column = self.reshape(labels, labels.shape + (1,), loc)
        iota = self.emit(f"amp.iota dim = {len(shape) - 1} : "
                         f"{_type(shape, labels.element)}", shape,
                         labels.element, loc, "classes")
        return self.emit(f"amp.compare eq, {column.name}, {iota.name} : "
                         f"{column.type}, {iota.type}", shape, "i1", loc,
                         "one_hot")

    def elementwise(self, op, a, b, loc):
        """amp.`op` of two float values, broadcast as NumPy does."""
        rank = max(len(a.shape), len(b.shape))
        pa = (1,) * (rank - len(a.shape)) + tuple(a.shape)
        pb = (1,) * (rank - len(b.shape)) + tuple(b.shape)
        shape = tuple(max(p, q) for p, q in zip(pa, pb))
        return self.emit(f"amp.{op} {a.name}, {b.name} : {a.type}, {b.type}",
                         shape, a.element, loc, op)

    def variance(self, node, loc):
        """aten.var and aten.std: the mean of the squares about the mean
        over `dim`, divided by the count less the correction (1 by
        default, Bessel's), then the square root for std; aten.var_mean:
        (the variance, the mean)."""
        aten = self.torch.ops.aten
        args, kwargs = node.args, node.kwargs
        x = self.value(args[0])
        if x.element[0] not in "fb":
            raise AmpError(f"the variance of {x.element} tensors")
        rank = len(x.shape)
        dims = args[1] if len(args) > 1 else kwargs.get("dim")
        dims = sorted({int(d) % max(rank, 1) for d in dims} if dims
                      else range(rank))
        if node.target in (aten.var.dim, aten.std.dim):
            unbiased = args[2] if len(args) > 2 else kwargs.get("unbiased",
                                                                True)
            correction = 1.0 if unbiased else 0.0
            keepdim = args[3] if len(args) > 3 else kwargs.get("keepdim", False)
        else:
            correction = kwargs.get("correction")
            correction = 1.0 if correction is None else float(correction)
            keepdim = kwargs.get("keepdim", False)
        count = 1
        for d in dims:
            count *= x.shape[d]
        kept = tuple(1 if i in dims else n for i, n in enumerate(x.shape))
        mean = self.reduce_dims("mean", x, dims, loc)
        centered = self.elementwise("sub", x, self.reshape(mean, kept, loc),
                                    loc)
        squares = self.elementwise("mul", centered, centered, loc)
        total = self.reduce_dims("sum", squares, dims, loc)
        divisor = self.constant(max(count - correction, 0.0), x.element, loc)
        out = self.elementwise("div", total, divisor, loc)
        if node.target in (aten.std.dim, aten.std.correction):
            out = self.unary("sqrt", out, loc)
        if keepdim:
            out, mean = (self.reshape(v, kept, loc) for v in (out, mean))
        return (out, mean) if node.target is aten.var_mean.correction else out

    def weighted_cross_entropy(self, logits, labels, weight, smoothing,
                               reduction, ignore, loc):
        """cross_entropy with class weights or label smoothing, written
        out as PyTorch defines it: each row's negative log-probability of
        its label times its label's weight, summed over the rows whose
        label is not `ignore` and, for the mean, divided by the sum of
        their weights; with smoothing ε, (1 - ε) times that plus ε / C
        times the same reduction of each row's negative log-probabilities
        summed over the classes (each times its class's weight)."""
        rows, classes = logits.shape
        element = logits.element
        if weight is not None and weight.shape != (classes,):
            raise AmpError(f"class weights of shape {list(weight.shape)} for "
                           f"{classes} classes")
        if weight is not None and weight.element != element:
            weight = self.emit(f"amp.cast {weight.name} : {weight.type} to "
                               f"{_type((classes,), element)}", (classes,),
                               element, loc, "cast")
        log_probs = self.unary("log_softmax", logits, loc, " dim = 1")
        hot = self.one_hot(labels, (rows, classes), loc)
        zero = self.constant(0.0, element, loc)

        def row_sums(values):
            return self.reduce_dims("sum", values, [1], loc)

        def total(values):
            return self.reduce_dims("sum", values, [0], loc)

        def select(cond, a, b, shape):
            return self.select(cond, a, b, shape, element, loc)

        weighted = log_probs
        if weight is not None:
            weighted = self.elementwise("mul", log_probs, weight, loc)
        kept = self.emit(f"amp.compare ne, {labels.name}, "
                         f"{self.constant(ignore, labels.element, loc).name} "
                         f": {labels.type}, {_type((), labels.element)}",
                         (rows,), "i1", loc, "kept")
        # Each kept row's weight: its label's (1 without weights).
        if weight is not None:
            row_weight = row_sums(select(hot, self.reshape(
                weight, (1, classes), loc), zero, (rows, classes)))
        else:
            row_weight = self.constant(1.0, element, loc)
        row_weight = select(kept, row_weight, zero, (rows,))
        picked = row_sums(select(hot, weighted, zero, (rows, classes)))
        nll = self.unary("neg", total(self.elementwise(
            "mul", picked, select(kept, self.constant(1.0, element, loc),
                                  zero, (rows,)), loc)), loc)
        divisor = total(row_weight) if reduction == "mean" else None
        loss = nll if divisor is None else \
            self.elementwise("div", nll, divisor, loc)
        if smoothing == 0.0:
            return loss
        smooth = self.unary("neg", total(select(
            kept, row_sums(weighted), zero, (rows,))), loc)
        if divisor is not None:
            smooth = self.elementwise("div", smooth, divisor, loc)
        return self.elementwise(
            "add",
            self.elementwise("mul", loss,
                             self.constant(1.0 - smoothing, element, loc),
                             loc),
            self.elementwise("mul", smooth,
                             self.constant(smoothing / classes, element, loc),
                             loc), loc)

    # -- nodes ----------------------------------------------------------------

    def import_node(self, node, depth=0):
        """Imports one call_function node of the graph: computed now where
        its inputs are constants, converted to amp ops where it has a
        counterpart, else through PyTorch's decomposition of its op.
        Raises _Unsupported where none of these applies."""
        if node.name in self.deferred:
            return  # an autograd.Function's, imported into its function
        # An in-place update of an argument (a buffer the model counts
        # itself, an input, a constant buffer outside the state_dict) would
        # be lost: only batch norm's running statistics are updated by the
        # step.
        target = str(node.target).split(".")
        if depth == 0 and len(target) > 1 and target[1].endswith("_") and \
                not target[1].startswith("__") and node.args and \
                getattr(node.args[0], "op", None) == "placeholder" and (
                    self.values.get(node.args[0].name) is not None or
                    node.args[0].name in self.known):
            raise AmpError(f"updates {node.args[0].name} in place; only "
                           "batch norm's running statistics are updated by "
                           "the step")
        if node.target is _wrap_with_autocast(self.torch):
            return self.import_autocast_region(node, depth)
        if _GRAD_OP is not None and node.target is _GRAD_OP:
            return self.import_grad(node, depth)
        if _FUNCTION_OPS is not None and node.target is _FUNCTION_OPS[1]:
            return self.import_function(node)
        if self.fold(node):
            return
        if node.target is operator.getitem:
            source = self.values.get(node.args[0].name)
            self.values[node.name] = (
                source[node.args[1]] if isinstance(source, tuple) else None)
            return
        if len(target) > 1 and target[1].endswith("_") and \
                not target[1].startswith("__") and node.args and \
                isinstance(node.args[0], self.torch.fx.Node):
            return self.import_in_place(node, depth)
        # Downstream of an unsupported operation: nothing is written, but
        # its own op is tried on stand-ins of its inputs, so that an
        # unsupported op fed by another is listed too.
        missing = [n for n in node.all_input_nodes
                   if self.values.get(n.name, True) is None]
        if missing:
            self.try_on_stand_ins(node, missing, depth)
            self.values[node.name] = None
            return
        first, decomposed = len(self.lines), False
        try:
            converted = self.convert(node)
        except _Unsupported:
            converted, decomposed = self.decompose(node, depth), True
        if depth == 0:
            self.round_once(first, decomposed)
        if self.autocast_off:
            self.pin_f32(first, self.autocast_off)
        if converted is not _NOTHING:
            self.values[node.name] = self.integers_held(node, converted)

    def import_autocast_region(self, node, depth):
        """A `with torch.autocast(...)` region of the forward
        (torch.export's wrap_with_autocast: device, dtype, enabled, cache,
        the region's graph, its inputs), imported in place. With
        enabled=False its ops are pinned to f32 (pin_f32), as PyTorch runs
        them in the types they are given, which its recipes cast up to f32
        first; a region that enables autocast again inside one is the
        step's autocast."""
        _, _, enabled, _, submodule, *operands = node.args
        # An attribute of the module whose graph holds the call (a region
        # nested in another is one of the outer region's).
        owner = submodule.graph.owning_module or self.program.graph_module
        graph = getattr(owner, submodule.target).graph
        # Where the region is: its first op's line in the model's source.
        located = [sub for sub in graph.nodes if sub.op == "call_function"
                   and self.place(sub)[1]]
        where = self.where(located[0] if located else node)
        outer = self.autocast_off
        self.autocast_off = None if enabled else (
            f"torch.autocast(enabled=False) at {where}")
        try:
            placeholders = [n for n in graph.nodes if n.op == "placeholder"]
            if len(placeholders) != len(operands):
                raise AmpError(f"{self.where(node)}: an autocast region of "
                               f"{len(placeholders)} inputs called with "
                               f"{len(operands)}")
            for sub in graph.nodes:
                # Names of their own beside the graph's (a region may be
                # called more than once).
                sub.name = f"{node.name}__{sub.name}"
            for sub, source in zip(placeholders, operands):
                if not isinstance(source, self.torch.fx.Node):
                    raise _Unsupported()
                if source.name in self.values:
                    self.values[sub.name] = self.values[source.name]
                if source.name in self.known:
                    self.known[sub.name] = self.known[source.name]
            output = None
            for sub in graph.nodes:
                if sub.op == "placeholder":
                    continue
                if sub.op == "output":
                    output = sub
                    break
                if _is_region_graph(sub, self.torch):
                    continue  # a region nested in this one
                if sub.op != "call_function":
                    raise AmpError(f"{self.where(node)}: cannot import a "
                                   f"graph node of kind {sub.op} in an "
                                   "autocast region")
                try:
                    self.import_node(sub, depth)
                except _Unsupported:
                    op = str(sub.target)
                    self.unsupported.setdefault(op, []).append(
                        self.where(sub))
                    self.values[sub.name] = None
        finally:
            self.autocast_off = outer

        def value_of(result):
            if isinstance(result, (tuple, list)):
                return tuple(value_of(r) for r in result)
            if isinstance(result, self.torch.fx.Node):
                if result.name in self.known:
                    return self.value(result)
                return self.values.get(result.name)
            return result

        results = output.args[0] if output is not None else ()
        self.values[node.name] = value_of(
            results if isinstance(results, (tuple, list)) else (results,))

    def defer_functions(self, graph):
        """Marks the nodes of each captured autograd.Function (the
        ancestors of its outputs and gradients traced after its inputs)
        as imported by import_function."""
        if _FUNCTION_OPS is None:
            return
        position = {n: i for i, n in enumerate(graph.nodes)}
        for node in graph.nodes:
            if node.target is not _FUNCTION_OPS[1]:
                continue
            _, inputs, outputs, cotangents, grads = node.args
            start = max((position[n] for n in inputs), default=-1)
            stack = list(outputs) + list(cotangents) + list(grads)
            while stack:
                n = stack.pop()
                if n.name in self.deferred or n.op != "call_function" or \
                        position[n] <= start:
                    continue
                self.deferred.add(n.name)
                stack.extend(n.all_input_nodes)

    def body_of(self, nodes, bound, results, where):
        """The lines and result values of `nodes` (deferred ones) imported
        with the nodes of `bound` set to its values, for a function of
        their own; the importer's state as it was afterwards."""
        saved_values = dict(self.values)
        saved_off, self.autocast_off = self.autocast_off, None
        first = len(self.lines)
        try:
            for n, value in bound.items():
                self.values[n.name] = value
            for n in nodes:
                for operand in n.all_input_nodes:
                    if operand.name not in self.deferred and \
                            operand not in bound and \
                            operand.name not in self.known and \
                            not _is_region_graph(operand, self.torch):
                        raise AmpError(
                            f"{where} reads {operand.name} from the model, "
                            "not from its arguments; pass it to apply")
                self.deferred.discard(n.name)
                try:
                    self.import_node(n, 1)
                except _Unsupported:
                    self.unsupported.setdefault(str(n.target), []).append(
                        self.where(n))
                    self.values[n.name] = None
                finally:
                    self.deferred.add(n.name)
            values = [self.values.get(r.name) if r not in bound else bound[r]
                      for r in results]
        finally:
            lines = self.lines[first:]
            del self.lines[first:]
            self.values = saved_values
            self.autocast_off = saved_off
        return lines, values

    def import_function(self, node):
        """A captured autograd.Function (ampmlir::custom_function) as a
        private function with amp.custom_vjp naming its backward, also
        written out, and a call of it here."""
        key, inputs, outputs, cotangents, grads = node.args
        cls, cast = _FUNCTIONS[key]
        base = re.sub(r"\W", "_", f"{self.name}_{cls.__qualname__}")
        base = f"{base}_{len(self.functions) // 2}"
        where = f"{cls.__qualname__} (applied at {self.where(node)})"
        arguments = []
        for n in inputs:
            value = self.values.get(n.name)
            if value is None or isinstance(value, tuple) or value.integer:
                raise _Unsupported()
            arguments.append(value)
        order = [n for n in node.graph.nodes if n.name in self.deferred]

        def ancestors(roots, stop=()):
            seen, stack = set(), list(roots)
            while stack:
                n = stack.pop()
                if n.name in seen or n.name not in self.deferred or                         n in stop:
                    continue
                seen.add(n.name)
                stack.extend(n.all_input_nodes)
            return seen

        def parameters(nodes, like):
            bound, text = {}, []
            for n, v in zip(nodes, like):
                argument = _Value(self.fresh("a"), v.shape, v.element)
                bound[n] = argument
                text.append(f"{argument.name}: {argument.type}")
            return bound, text

        # The forward on its arguments.
        bound, header = parameters(inputs, arguments)
        needed = ancestors(outputs)
        lines, results = self.body_of(
            [n for n in order if n.name in needed], bound, outputs,
            f"the forward of {where}")
        if any(r is None or isinstance(r, tuple) for r in results):
            self.values[node.name] = None
            return
        attributes = f"amp.custom_vjp = @{base}_backward"
        if cast is not None:
            if cast != self.torch.float32:
                raise AmpError(f"{where}: custom_fwd(cast_inputs={cast}); "
                               "only torch.float32 can be imported")
            attributes += ", amp.cast_inputs = f32"
        types = ", ".join(r.type for r in results)
        self.functions.append(
            f"func.func private @{base}_forward({', '.join(header)}) -> "
            f"({types}) attributes {{{attributes}}} {{\n" +
            "".join(line + "\n" for line in lines) + "    return "
            f"{', '.join(r.name for r in results)} : {types}\n}}\n")

        # The backward on the arguments, the outputs and their gradients:
        # what the forward saved for it is computed again from those.
        floats = [v for v in arguments if v.element in ("f32", "f16", "bf16")]
        bound, header = parameters(inputs, arguments)
        more, more_header = parameters(list(outputs) + list(cotangents),
                                       results + results)
        bound.update(more)
        needed = ancestors(grads, bound)
        lines, values = self.body_of(
            [n for n in order if n.name in needed and n not in bound],
            bound, grads, f"the backward of {where}")
        if any(v is None or isinstance(v, tuple) for v in values):
            self.values[node.name] = None
            return
        returned = []
        for value, like in zip(values, floats):
            if value.shape != like.shape:
                raise AmpError(f"the backward of {where} returns a "
                               f"gradient of shape {list(value.shape)} for "
                               f"an argument of shape {list(like.shape)}")
            if value.element != like.element:
                name = self.fresh("cast")
                lines.append(f"    {name} = amp.cast {value.name} : "
                             f"{value.type} to {like.type}")
                value = _Value(name, like.shape, like.element)
            returned.append(value)
        gradient_types = ", ".join(v.type for v in floats)
        self.functions.append(
            f"func.func private @{base}_backward("
            f"{', '.join(header + more_header)}) -> ({gradient_types}) {{\n"
            + "".join(line + "\n" for line in lines) + "    return "
            f"{', '.join(v.name for v in returned)} : {gradient_types}\n}}\n")

        # The call.
        name = self.fresh("call")
        self.lines.append(
            f"    {name}:{len(results)} = func.call @{base}_forward("
            f"{', '.join(a.name for a in arguments)}) : "
            f"({', '.join(a.type for a in arguments)}) -> ({types}) "
            f"{self.location(node)}")
        self.values[node.name] = tuple(
            _Value(f"{name}#{i}", r.shape, r.element)
            for i, r in enumerate(results))

    def import_grad(self, node, depth):
        """An ``ampmlir.grad(value, inputs)`` (torch.ops.ampmlir.grad) as
        an amp.grad: its region is the forward's ops between the inputs
        and the value, imported again on the region's arguments; what they
        read from elsewhere is read from around the region, a constant of
        the gradient, as torch.autograd.grad treats it."""
        value_node, input_nodes = node.args[0], list(node.args[1])
        where = self.where(node)
        value = self.values.get(value_node.name)
        if value is None or isinstance(value, tuple):
            raise _Unsupported()
        if value.shape != () or value.element not in ("f32", "f16", "bf16"):
            raise AmpError(f"{where}: ampmlir.grad takes the gradient of a "
                           f"0-d float value, not of a {value.type}")
        inputs = []
        for n in input_nodes:
            v = self.values.get(n.name) if isinstance(n, self.torch.fx.Node) \
                else None
            if v is None or isinstance(v, tuple) or v.integer or \
                    v.element not in ("f32", "f16", "bf16"):
                raise AmpError(f"{where}: ampmlir.grad differentiates with "
                               "respect to float tensors of the model")
            inputs.append(v)
        # The ops on a path from an input to the value, in graph order.
        ancestors, stack = set(), [value_node]
        while stack:
            n = stack.pop()
            if n.name not in ancestors:
                ancestors.add(n.name)
                stack.extend(n.all_input_nodes)
        reached = {n.name for n in input_nodes}
        region = []
        for n in node.graph.nodes:
            if n is node:
                break
            if n.op == "call_function" and n.name in ancestors and any(
                    a.name in reached for a in n.all_input_nodes):
                reached.add(n.name)
                region.append(n)
        saved = {n.name: self.values.get(n.name)
                 for n in input_nodes + region}
        arguments = []
        for n, v in zip(input_nodes, inputs):
            argument = _Value(self.fresh("a"), v.shape, v.element)
            self.values[n.name] = argument
            arguments.append(argument)
        first = len(self.lines)
        try:
            for n in region:
                try:
                    self.import_node(n, depth)
                except _Unsupported:
                    self.unsupported.setdefault(str(n.target), []).append(
                        self.where(n))
                    self.values[n.name] = None
            inner = self.values.get(value_node.name)
        finally:
            body = self.lines[first:]
            del self.lines[first:]
            self.values.update(saved)
        if inner is None:
            self.values[node.name] = None
            return
        name = self.fresh("grad")
        types = ", ".join(v.type for v in inputs)
        self.lines.append(
            f"    {name}:{len(inputs) + 1} = amp.grad "
            f"({', '.join(v.name for v in inputs)}) : ({types}) -> "
            f"({inner.type}, {types}) {{")
        self.lines.append("    ^bb0(" + ", ".join(
            f"{a.name}: {a.type}" for a in arguments) + "):")
        self.lines.extend(body)
        self.lines.append(f"      amp.yield {inner.name} : {inner.type}")
        self.lines.append(f"    }} {self.location(node)}")
        self.values[node.name] = tuple(
            _Value(f"{name}#{i + 1}", v.shape, v.element)
            for i, v in enumerate(inputs))

    def pin_f32(self, first, reason):
        """Keeps the ops of self.lines[first:] in f32 (`amp.precision`,
        with `amp.precision_reason` saying why, which the autocast report
        gives), but for those without a precision of their own (constants,
        casts)."""
        attribute = (f"amp.precision = f32, amp.precision_reason = "
                     f"{_mlir_string(reason)}")
        for i in range(first, len(self.lines)):
            line = self.lines[i]
            op = re.match(r"\s*%[\w:]+ = amp\.(\w+)", line)
            if not op or op.group(1) in _WITHOUT_PRECISION or \
                    "amp.precision_reason" in line:
                continue
            if "{amp.precision = f32}" in line:
                self.lines[i] = line.replace("{amp.precision = f32}",
                                             "{" + attribute + "}", 1)
                continue
            at = _type_colon(line)
            head = line[:at]
            if head.endswith("}"):
                # Its attributes, to which this one is added.
                self.lines[i] = head[:-1] + ", " + attribute + line[at - 1:]
            else:
                self.lines[i] = head + " {" + attribute + "}" + line[at:]

    def round_once(self, first, decomposed):
        """Where one op of PyTorch became several roundings here
        (self.lines[first:]), its elementwise ops are kept in f32
        (`amp.precision`): elementwise ops alone (silu, hardswish, mish,
        elu, expm1, an add with alpha), or anything PyTorch's
        decomposition wrote (LSTM's gates and cell, between its matmuls).
        PyTorch computes such an op in f32 inside one kernel and rounds
        its result once, where f16 or bf16 ops would round each partial
        result (mobilenet_v3's hardswish lost a bit in four, an LSTM's
        cell state a bit at every time step)."""
        added = range(first, len(self.lines))
        ops = [i for i in added if _ELEMENTWISE.search(self.lines[i])]
        # Pointwise: nothing else but constants and broadcasts written.
        if not decomposed and any(
                i not in ops and " = amp.constant " not in self.lines[i] and
                " = amp.broadcast_to " not in self.lines[i] for i in added):
            return
        rounding = [i for i in ops if _ELEMENTWISE.search(
            self.lines[i]).group(1) in _ROUNDING]
        if len(rounding) < 2:
            return
        for i in ops:
            line = self.lines[i]
            at = line.index(" : ")
            self.lines[i] = (line[:at] + " {amp.precision = f32}" +
                             line[at:])

    def integers_held(self, node, converted):
        """`converted`, marked as integers held in f32 (see _Value) where
        `node` moves such integers about (a view, a slice, a
        concatenation): their bound is its inputs'. Any other op making
        integers of them is integer arithmetic, refused."""
        val = node.meta.get("val")
        if not isinstance(converted, _Value) or converted.integer or \
                converted.element[0] not in "fb" or \
                not hasattr(val, "dtype") or val.dtype.is_floating_point or \
                val.dtype == self.torch.bool:
            return converted
        held = [v for v in (self.values.get(n.name)
                            for n in node.all_input_nodes)
                if isinstance(v, _Value) and v.integer]
        if not held:
            return converted
        if str(node.target).split(".")[1] not in _MOVES:
            raise AmpError("integer arithmetic on the batch (only "
                           "comparisons, conversions, argmax and indexing "
                           "by its result are imported)")
        return self.as_integer(converted, _element(val.dtype, self.torch),
                               min(v.low for v in held),
                               max(v.high for v in held))

    def import_in_place(self, node, depth):
        """An in-place update of a value the model computed
        (`mask.masked_fill_(...)`, as nn.MultiheadAttention writes):
        imported as the op it is the in-place form of, whose result
        stands for the value from then on. Refused where that would lose
        the update: the value is a view of another (the update writes
        through to it), or a view of the value made before is read
        after."""
        torch = self.torch
        name = str(node.target).split(".")
        packet = getattr(torch.ops.aten, name[1][:-1], None)
        functional = getattr(packet, name[2] if len(name) > 2 else "default",
                             None)
        updated = node.args[0]
        if functional is None:
            raise _Unsupported()
        if node.graph not in self.orders:
            self.orders[node.graph] = {
                n: i for i, n in enumerate(node.graph.nodes)}
        order = self.orders[node.graph]

        def is_view(n):
            return isinstance(n.target, torch._ops.OpOverload) and \
                n.target.is_view

        write_back = None
        if is_view(updated):
            # Written through to the tensor it views, and to that one's
            # other views: an update nothing reads that way is the same
            # out of place (Dropout(inplace=True) after a flatten).
            root = updated
            while is_view(root) and isinstance(root.args[0],
                                               torch.fx.Node):
                root = root.args[0]
            aliases, pending = [], [root]
            while pending:
                n = pending.pop()
                aliases.append(n)
                pending += [u for u in n.users if is_view(u)]
            aten = torch.ops.aten
            for alias in aliases:
                # (A view taken after the update is taken of the value
                # with it.)
                if alias is updated or order[alias] > order[node] or not any(
                        order[u] > order[node] for u in alias.users):
                    continue
                # x[:, 1:] = ... (a slice or an index of a tensor the
                # model made): the tensor is read after with the update
                # written into it.
                if alias is root and updated.args[0] is root and \
                        root.op != "placeholder" and updated.target in (
                            aten.slice.Tensor, aten.select.int) and \
                        _arguments(updated)(4, "step", 1) in (1, None):
                    write_back = root
                    continue
                raise AmpError(
                    f"updates {updated.name} in place, a view of "
                    f"{root.name}, which {alias.name} reads after; "
                    "write it out of place")
        for user in updated.users:
            if order[user] < order[node] and is_view(user) and \
                    any(order[u] > order[node] for u in user.users):
                raise AmpError(f"updates {updated.name} in place after a "
                               f"view of it ({user.name}) was taken and "
                               "read later; write it out of place")
        if write_back is not None:
            base = self.value(write_back)
        original, node.target = node.target, functional
        try:
            self.import_node(node, depth)
        finally:
            node.target = original
        if node.name in self.values:
            self.values[updated.name] = self.values[node.name]
            if write_back is not None:
                self.values[write_back.name] = self.scatter(
                    base, self.value(node), updated, self.location(node))
                # Computed from the batch from now on, not a constant.
                self.known.pop(write_back.name, None)

    def scatter(self, base, part, view, loc):
        """`base` with `part` in the place of its slice or index `view`
        (aten.slice_scatter's and select_scatter's value)."""
        args = _arguments(view)
        rank = len(base.shape)
        if view.target is self.torch.ops.aten.select.int:
            dim = int(view.args[1]) % rank
            start = int(view.args[2]) % base.shape[dim]
            end = start + 1
            part = self.reshape(part, base.shape[:dim] + (1,) +
                                base.shape[dim + 1:], loc)
        else:
            dim = int(args(1, "dim", 0)) % rank
            start, end = args(2, "start"), args(3, "end")
            start, end = _bounds(0 if start is None else int(start),
                                 base.shape[dim] if end is None else
                                 int(end), base.shape[dim])
        pieces = [self.slice(base, dim, 0, start, loc)] if start else []
        pieces.append(part)
        if end < base.shape[dim]:
            pieces.append(self.slice(base, dim, end, base.shape[dim], loc))
        if len(pieces) == 1:
            return part
        return self.concat(pieces, dim, base.shape, loc, "scatter")

    def try_on_stand_ins(self, node, missing, depth):
        """Converts `node` with values of its traced shapes standing in
        for the inputs in `missing` (which an unsupported op makes), and
        throws away what that writes. Raises _Unsupported if its op has no
        counterpart; where it has one (or its stand-ins are refused for
        other reasons, errors that the real inputs may not have) it
        returns. The counterpart's values are never read."""
        def stand_in(val):
            if isinstance(val, (tuple, list)):
                parts = tuple(stand_in(v) for v in val)
                return None if any(p is None for p in parts) else parts
            if not isinstance(val, self.torch.Tensor):
                return None
            try:
                element = _element(val.dtype, self.torch)
            except AmpError:
                return None
            return _Value("%unavailable", val.shape, element)

        saved = (len(self.lines), self.counter, self.dropouts)
        for n in missing:
            self.values[n.name] = stand_in(n.meta.get("val"))
        try:
            if any(self.values[n.name] is None for n in missing):
                return  # no stand-in for an input: nothing to try
            try:
                self.convert(node)
            except _Unsupported:
                self.decompose(node, depth)
        except AmpError:
            pass
        finally:
            del self.lines[saved[0]:]
            self.counter, self.dropouts = saved[1], saved[2]
            for n in missing:
                self.values[n.name] = None

    def decompose(self, node, depth):
        """`node`'s value through PyTorch's decomposition of its op (the
        table torch.export's run_decompositions draws on), traced on
        tensors of its inputs' shapes into ATen ops that are imported in
        its place, with its location, and decomposed in turn. Only the
        op that has no counterpart is decomposed: the rest of the graph
        stays as exported (batch norm's running statistics included).
        Raises _Unsupported where the op has no decomposition, or its
        decomposition an op that cannot be imported."""
        torch = self.torch
        from torch._decomp import decomposition_table
        from torch.fx.experimental.proxy_tensor import make_fx
        decomposition = decomposition_table.get(node.target)
        if decomposition is None and _is_composite(torch, node.target):
            # An op PyTorch defines by others (CompositeImplicitAutograd:
            # chunk, group_norm, conv1d, ...): that definition.
            decomposition = node.target.decompose
        if decomposition is None or depth >= _DECOMPOSITION_DEPTH:
            raise _Unsupported()
        inputs = node.all_input_nodes

        def example(n):
            if n.name in self.known and isinstance(self.known[n.name],
                                                   torch.Tensor):
                return self.known[n.name]
            val = n.meta.get("val")
            if not isinstance(val, torch.Tensor):
                raise _Unsupported()
            return torch.zeros(tuple(val.shape), dtype=val.dtype)

        def traced(*tensors):
            by_name = {n.name: t for n, t in zip(inputs, tensors)}
            args = torch.fx.node.map_arg(node.args, lambda n: by_name[n.name])
            kwargs = torch.fx.node.map_arg(node.kwargs,
                                           lambda n: by_name[n.name])
            result = decomposition(*args, **kwargs)
            if result is NotImplemented:
                raise _Unsupported()
            return result

        try:
            # Without oneDNN: its recurrent kernels (mkldnn_rnn_layer,
            # which the LSTM's decomposition picks on the CPU) are not
            # ATen arithmetic; the decomposition's own loop over time is.
            with torch.backends.mkldnn.flags(enabled=False):
                module = make_fx(traced, tracing_mode="fake")(
                    *(example(n) for n in inputs))
        except _Unsupported:
            raise
        except Exception:  # noqa: BLE001 - a decomposition that cannot trace
            raise _Unsupported() from None
        placeholders = [n for n in module.graph.nodes if n.op == "placeholder"]
        output = None
        for sub in list(module.graph.nodes):
            # Names of their own beside the graph's; the location of the
            # op they stand for.
            sub.name = f"{node.name}__{sub.name}"
            for key in ("nn_module_stack", "stack_trace"):
                if key in node.meta:
                    sub.meta[key] = node.meta[key]
        for sub, source in zip(placeholders, inputs):
            if source.name in self.values:
                self.values[sub.name] = self.values[source.name]
            if source.name in self.known:
                self.known[sub.name] = self.known[source.name]
        for sub in module.graph.nodes:
            if sub.op == "placeholder":
                continue
            if sub.op == "output":
                output = sub
                break
            if sub.op == "get_attr":
                self.known[sub.name] = getattr(module, sub.target)
                continue
            if sub.op != "call_function":
                raise _Unsupported()
            # A part that does not import is fatal only if a result the
            # graph reads needs it (native_group_norm's mean and rstd,
            # which group_norm drops, are as_strided views).
            try:
                self.import_node(sub, depth + 1)
            except _Unsupported:
                self.values[sub.name] = None

        def value_of(result):
            if isinstance(result, (tuple, list)):
                return tuple(value_of(r) for r in result)
            if isinstance(result, torch.fx.Node) and (
                    result.name in self.known or
                    isinstance(self.values.get(result.name), _Value)):
                return self.value(result)
            raise _Unsupported()

        def read(i):
            """Whether the graph reads result `i` of `node`."""
            users = list(node.users)
            return not all(u.target is operator.getitem for u in users) or \
                any(u.args[1] == i and u.users for u in users)

        result = output.args[0]
        if isinstance(result, (tuple, list)):
            return tuple(value_of(r) if read(i) else None
                         for i, r in enumerate(result))
        return value_of(result)

    # -- the ops --------------------------------------------------------------

    def convert(self, node):
        """`node` as amp ops, by the converter registered for its ATen op
        (_converts). Raises _Unsupported where there is none, or where the
        converter leaves this use of the op to its decomposition."""
        converter = _CONVERTERS.get(str(node.target))
        if converter is None:
            raise _Unsupported()
        return converter(self, node, self.location(node))

    # -- the converters, one per ATen op or family --------------------------

    @_converts("aten.linear.default")
    def convert_linear(self, node, loc):
        args = node.args
        arg = _arguments(node)
        x, w = self.value(args[0]), self.value(args[1])
        b = arg(2, "bias")
        shape, element = self.result(node)
        return self.matmul(x, w, shape, element, loc, "linear",
                           bias=self.value(b) if b is not None else None,
                           transpose_rhs=True)

    @_converts("aten.matmul.default", "aten.mm.default", "aten.bmm.default")
    def convert_matmul(self, node, loc):
        args = node.args
        a, b = self.value(args[0]), self.value(args[1])
        shape, element = self.result(node)
        return self.matmul(a, b, shape, element, loc, "matmul")

    @_converts("aten.addmm.default")
    def convert_addmm(self, node, loc):
        args = node.args
        arg = _arguments(node)
        b, x, w = (self.value(a) for a in args[:3])
        if arg(3, "beta", 1) != 1 or arg(4, "alpha", 1) != 1:
            raise AmpError("addmm with beta or alpha other than 1")
        shape, element = self.result(node)
        return self.matmul(x, w, shape, element, loc, "addmm", bias=b)

    @_converts(*_BINARY)
    def convert_binary(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args, kwargs = node.args, node.kwargs
        arg = _arguments(node)
        if arg(2, "alpha", 1) != 1:
            raise AmpError(f"{target} with alpha other than 1")
        if target is aten.div.Tensor and kwargs.get("rounding_mode"):
            raise AmpError("division with a rounding mode")
        a_node, b_node = args[0], args[1]
        like = self.values.get(getattr(a_node, "name", None)) or \
            self.values.get(getattr(b_node, "name", None))
        a = self.value(a_node, like, loc)
        b = self.value(b_node, like, loc)
        op = _BINARY[str(target)]
        if self.result(node)[1][0] in "iu" and (a.integer or b.integer):
            return self.integer_arithmetic(op, a, b, (a_node, b_node), node,
                                           loc)
        return self.binary(op, a, b, node, loc)

    def integer_arithmetic(self, op, a, b, nodes, node, loc):
        """`a op b` of integers held in f32 (see _Value) or Python
        numbers, exact while its range stays below 2^24."""
        ranges = []
        for value, source in zip((a, b), nodes):
            if value.integer:
                ranges.append((value.low, value.high))
            elif isinstance(source, (bool, int)):
                ranges.append((int(source), int(source)))
            else:
                raise AmpError("integer arithmetic between the batch's "
                               "integers and an integer tensor")
        (la, ha), (lb, hb) = ranges
        if op == "add":
            low, high = la + lb, ha + hb
        elif op == "sub":
            low, high = la - hb, ha - lb
        elif op == "mul":
            products = (la * lb, la * hb, ha * lb, ha * hb)
            low, high = min(products), max(products)
        else:
            raise AmpError(f"integer {op} on the batch")
        shape = self.result(node)[0]
        value = self.emit(f"amp.{op} {a.name}, {b.name} : {a.type}, "
                          f"{b.type}", shape, "f32", loc, op)
        return self.as_integer(value, self.result(node)[1], low, high)

    @_converts("aten.rsub.Scalar")
    def convert_rsub(self, node, loc):
        args = node.args
        a = self.value(args[0])
        return self.binary("sub", self.value(args[1], a, loc), a, node, loc)

    @_converts(*_COMPARE)
    def convert_compare(self, node, loc):
        target = node.target
        args = node.args
        a = self.value(args[0])
        b = self.value(args[1], a, loc)
        shape, _ = self.result(node)
        return self.emit(f"amp.compare {_COMPARE[str(target)]}, {a.name}, "
                         f"{b.name} : {a.type}, {b.type}", shape, "i1", loc,
                         "compare")

    @_converts(*_UNARY)
    def convert_unary(self, node, loc):
        target = node.target
        args = node.args
        return self.unary(_UNARY[str(target)], self.value(args[0]), loc)

    @_converts("aten.softplus.default")
    def convert_softplus(self, node, loc):
        args = node.args
        arg = _arguments(node)
        # amp.softplus is PyTorch's with its defaults; other betas and
        # thresholds are decomposed.
        if float(arg(1, "beta", 1.0)) != 1.0 or \
                float(arg(2, "threshold", 20.0)) != 20.0:
            raise _Unsupported()
        return self.unary("softplus", self.value(args[0]), loc)

    @_converts("aten.expm1.default", "aten.log1p.default")
    def convert_expm1(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        # exp(x) - 1 and log(1 + x): a rounding of 1 ulp of 1 near
        # x = 0, where PyTorch's are exact.
        x = self.value(args[0])
        one = self.constant(1.0, x.element, loc)
        if target is aten.expm1.default:
            e = self.unary("exp", x, loc)
            return self.elementwise("sub", e, one, loc)
        return self.unary("log", self.elementwise("add", x, one, loc), loc)

    @_converts(*_CLAMPS)
    def convert_clamp(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        if x.element[0] not in "fb":
            raise AmpError(f"clamping {x.element} tensors")
        low_at, high_at = _CLAMPS[str(target)]
        default = (-1.0, 1.0) if target is aten.hardtanh.default else \
            (None, None)
        names = ("min_val", "max_val") if target is aten.hardtanh.default \
            else ("min", "max")
        low = arg(low_at, names[0], default[0]) if low_at else None
        high = arg(high_at, names[1], default[1]) if high_at else None
        if low is not None:
            x = self.elementwise("maximum", x, self.value(low, x, loc), loc)
        if high is not None:
            x = self.elementwise("minimum", x, self.value(high, x, loc),
                                 loc)
        return x

    @_converts("aten.var.dim", "aten.var.correction",
               "aten.var_mean.correction", "aten.std.dim",
               "aten.std.correction")
    def convert_var(self, node, loc):
        return self.variance(node, loc)

    @_converts("aten.square.default")
    def convert_square(self, node, loc):
        args = node.args
        x = self.value(args[0])
        return self.binary("mul", x, x, node, loc)

    @_converts("aten.silu.default")
    def convert_silu(self, node, loc):
        args = node.args
        x = self.value(args[0])
        s = self.unary("sigmoid", x, loc)
        return self.binary("mul", x, s, node, loc)

    @_converts("aten.gelu.default")
    def convert_gelu(self, node, loc):
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        approximate = arg(1, "approximate", "none")
        attrs = " approximate = tanh" if approximate == "tanh" else ""
        return self.unary("gelu", x, loc, attrs)

    @_converts("aten.pow.Tensor_Scalar")
    def convert_pow(self, node, loc):
        args = node.args
        x = self.value(args[0])
        return self.emit(f"amp.pow {x.name}, {_float(args[1])} : {x.type}",
                         x.shape, x.element, loc, "pow")

    @_converts("aten.softmax.int", "aten._softmax.default",
               "aten.log_softmax.int", "aten._log_softmax.default")
    def convert_softmax(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        if target in (aten.softmax.int, aten.log_softmax.int) and \
                arg(2, "dtype") not in (None, self.torch.float32):
            raise AmpError("softmax to another dtype")
        op = "softmax" if "log" not in str(target) else "log_softmax"
        dim = int(args[1]) % len(x.shape)
        return self.unary(op, x, loc, f" dim = {dim}")

    @_converts("aten.layer_norm.default")
    def convert_layer_norm(self, node, loc):
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        normalized = list(args[1])
        w, b = arg(2, "weight"), arg(3, "bias")
        eps = arg(4, "eps", 1e-5)
        return self.norm("layer_norm", x, normalized, w, b, eps, loc)

    @_converts("aten.rms_norm.default")
    def convert_rms_norm(self, node, loc):
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        eps = arg(3, "eps")
        if eps is None:
            eps = self.torch.finfo(self.torch.float32).eps
        return self.norm("rms_norm", x, list(args[1]), arg(2, "weight"),
                         None, eps, loc)

    @_converts("aten.embedding.default")
    def convert_embedding(self, node, loc):
        args = node.args
        arg = _arguments(node)
        w, idx = self.value(args[0]), self.value(args[1])
        pad = arg(2, "padding_idx", -1)
        if pad != -1:
            w = self.without_gradient_at_row(w, pad % w.shape[0], loc)
        shape, element = self.result(node)
        if idx.integer:
            return self.embedding_by_held(w, idx, shape, element, loc)
        return self.emit(f"amp.embedding {w.name}[{idx.name}] : {w.type}, "
                         f"{idx.type}", shape, element, loc, "embedding")

    def embedding_by_held(self, w, idx, shape, element, loc):
        """The rows of `w` at ids computed from the batch and held in f32
        (RoBERTa's position ids; see _Value): each id's one-hot row times
        the table, in f32 (exact: one term, the rest zeros), its gradient
        adding into the rows read. Ids that may leave the table are
        refused."""
        rows = w.shape[0]
        if idx.low < 0 or idx.high >= rows:
            raise AmpError(f"embedding ids computed from the batch may lie "
                           f"in [{idx.low}, {idx.high}], outside the "
                           f"table's {rows} rows")
        count = int(math.prod(idx.shape))
        flat = self.reshape(idx, (count,), loc)
        hot = self.converted(self.one_hot(flat, (count, rows), loc),
                             w.element, loc)
        width = w.shape[1]
        gathered = self.emit(f"amp.matmul {hot.name}, {w.name} "
                             f"{{amp.precision = f32}} : {hot.type}, "
                             f"{w.type} to {_type((count, width), element)}",
                             (count, width), element, loc, "embedding")
        return self.reshape(gathered, shape, loc)

    def without_gradient_at_row(self, w, row, loc):
        """`w` itself, with no gradient reaching its row `row`: what
        Embedding's padding_idx does (the row is read as it is, and never
        updated by the gradient)."""
        rows = (w.shape[0], 1)
        iota = self.emit(f"amp.iota dim = 0 : {_type(rows, 'i32')}", rows,
                         "i32", loc, "rows")
        pad = self.constant(row, "i32", loc)
        mask = self.emit(f"amp.compare eq, {iota.name}, {pad.name} : "
                         f"{iota.type}, {pad.type}", rows, "i1", loc,
                         "padding_row")
        return self.select(mask, self.unary("stop_gradient", w, loc), w,
                           w.shape, w.element, loc, "padded")

    @_converts("aten.view.default", "aten.reshape.default",
               "aten._unsafe_view.default", "aten.unsqueeze.default",
               "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default",
               "aten.flatten.using_ints")
    def convert_view(self, node, loc):
        args = node.args
        return self.reshape(self.value(args[0]), self.result(node)[0], loc)

    @_converts("aten.contiguous.default", "aten.clone.default",
               "aten.alias.default", "aten.lift_fresh_copy.default")
    def convert_contiguous(self, node, loc):
        args = node.args
        return self.value(args[0])

    @_converts("aten.detach.default")
    def convert_detach(self, node, loc):
        # The value without its gradient; integers and masks have none.
        x = self.value(node.args[0])
        if x.element[0] not in "fb":
            return x
        return self.unary("stop_gradient", x, loc)

    @_converts("aten._assert_tensor_metadata.default")
    def convert_assert_tensor_metadata(self, node, loc):
        return _NOTHING

    @_converts("aten.to.dtype", "aten.to.dtype_layout", "aten.to.device",
               "aten._to_copy.default", "aten.type_as.default")
    def convert_to(self, node, loc):
        return self.converted(self.value(node.args[0]), self.result(node)[1],
                              loc)

    def converted(self, x, element, loc):
        """`x` with elements of type `element`."""
        shape = x.shape
        if element == x.element:
            return x
        if x.element[0] in "fb" and element[0] in "fb":
            return self.emit(f"amp.cast {x.name} : {x.type} to "
                             f"{_type(shape, element)}", shape, element,
                             loc, "cast")
        if x.element == "i1" and element[0] in "fb":
            # A mask as 1 and 0.
            one = self.constant(1.0, element, loc)
            zero = self.constant(0.0, element, loc)
            return self.select(x, one, zero, shape, element, loc, "mask")
        if x.element == "i1" and element[0] in "iu":
            # A mask counted (`(ids == eos).int()`): 1 and 0 held in f32.
            counted = self.converted(x, "f32", loc)
            return self.as_integer(counted, element, 0, 1)
        if element[0] in "iu" and (x.integer or x.element[0] in "iu"):
            # Between integer types, the values as they are: exact for
            # values the narrower type holds, as token ids are.
            return x
        raise AmpError(f"conversion from {x.integer or x.element} to "
                       f"{element}")

    def as_integer(self, x, integer, low, high):
        """`x` (f32) standing for an integer tensor of type `integer`
        whose values lie in [low, high] (see _Value)."""
        if max(abs(low), abs(high)) >= 2**24:
            raise AmpError(f"integer arithmetic on the batch reaching "
                           f"{max(abs(low), abs(high))} (held in f32, exact "
                           f"below 2^24)")
        held = _Value(x.name, x.shape, x.element)
        held.integer, held.low, held.high = integer, int(low), int(high)
        return held

    @_converts("aten.copy.default")
    def convert_copy(self, node, loc):
        # The functional form of x.copy_(src) (x[:, 1:] = src): src in x's
        # type, broadcast to its shape.
        shape, element = self.result(node)
        src = self.value(node.args[1], like=self.value(node.args[0]))
        return self.broadcast(self.converted(src, element, loc), shape, loc,
                              "copy")

    @_converts("aten.fill.Scalar", "aten.fill.Tensor")
    def convert_fill(self, node, loc):
        shape, element = self.result(node)
        value = node.args[1]
        if isinstance(value, self.torch.fx.Node):
            value = self.converted(self.value(value), element, loc)
        else:
            value = self.constant(value, element, loc)
        return self.broadcast(value, shape, loc, "fill")

    @_converts("aten.one_hot.default")
    def convert_one_hot(self, node, loc):
        args = node.args
        return self.one_hot(self.value(args[0]), self.result(node)[0],
                            loc)

    @_converts("aten.broadcast_tensors.default")
    def convert_broadcast_tensors(self, node, loc):
        args = node.args
        values = [self.value(a) for a in args[0]]
        shapes = [tuple(v.shape) for v in node.meta["val"]]
        return tuple(self.broadcast(v, shape, loc, "broadcast")
                     for v, shape in zip(values, shapes))

    @_converts("aten.pad.default")
    def convert_pad(self, node, loc):
        arg = _arguments(node)
        return self.pad(node, loc, arg)

    @_converts("aten.transpose.int")
    def convert_transpose(self, node, loc):
        args = node.args
        x = self.value(args[0])
        perm = list(range(len(x.shape)))
        d0, d1 = int(args[1]) % len(perm), int(args[2]) % len(perm)
        perm[d0], perm[d1] = perm[d1], perm[d0]
        return self.transpose(x, perm, loc)

    @_converts("aten.t.default")
    def convert_t(self, node, loc):
        args = node.args
        x = self.value(args[0])
        return self.transpose(x, [1, 0] if len(x.shape) == 2 else [0], loc)

    @_converts("aten.permute.default")
    def convert_permute(self, node, loc):
        args = node.args
        return self.transpose(self.value(args[0]), list(args[1]), loc)

    @_converts("aten.expand.default", "aten.broadcast_to.default")
    def convert_expand(self, node, loc):
        args = node.args
        x = self.value(args[0])
        return self.broadcast(x, self.result(node)[0], loc, "expand")

    @_converts("aten.slice.Tensor")
    def convert_slice(self, node, loc):
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        dim = int(arg(1, "dim", 0))
        start = arg(2, "start")
        end = arg(3, "end")
        size = x.shape[dim % len(x.shape)]
        start = 0 if start is None else int(start)
        end = size if end is None else min(int(end), size)
        return self.strided_slice(x, dim, start, end,
                                  int(arg(4, "step", 1)), loc)

    @_converts("aten.select.int")
    def convert_select(self, node, loc):
        args = node.args
        # x[:, i]: the slice [i, i + 1) without its dimension.
        x = self.value(args[0])
        dim = int(args[1]) % len(x.shape)
        size, index = x.shape[dim], int(args[2])
        if not -size <= index < size:
            raise AmpError(f"index {index} is out of range for dimension "
                           f"{dim} of size {size}")
        index %= size
        piece = self.slice(x, dim, index, index + 1, loc)
        return self.reshape(piece, x.shape[:dim] + x.shape[dim + 1:], loc)

    @_converts("aten.zeros_like.default", "aten.ones_like.default",
               "aten.full_like.default")
    def convert_zeros_like(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        arg = _arguments(node)
        shape, element = self.result(node)
        fill = {aten.zeros_like.default: 0, aten.ones_like.default: 1}.get(
            target, arg(1, "fill_value"))
        if element == "i1":
            raise AmpError("boolean tensors made by *_like")
        return self.broadcast(self.constant(fill, element, loc), shape, loc,
                              "full")

    @_converts(*_LOGICAL_NOT, *_LOGICAL_AND, *_LOGICAL_OR)
    def convert_logical(self, node, loc):
        target = node.target
        args = node.args
        return self.logical(target, [self.value(a) for a in args], node,
                            loc)

    @_converts("aten.as_strided.default")
    def convert_as_strided(self, node, loc):
        args = node.args
        arg = _arguments(node)
        # Only as a reshape: contiguous strides over a contiguous
        # tensor's elements, from its start (decompositions write
        # views so).
        x = self.value(args[0])
        source = args[0].meta.get("val")
        size, stride = [int(v) for v in args[1]], [int(v) for v in args[2]]
        dense = [1] * len(size)
        for d in range(len(size) - 2, -1, -1):
            dense[d] = dense[d + 1] * size[d + 1]
        if int(arg(3, "storage_offset", 0) or 0) != 0 or \
                math.prod(size) != math.prod(x.shape) or \
                any(n > 1 and s != t
                    for n, s, t in zip(size, stride, dense)) or \
                source is None or not source.is_contiguous():
            raise _Unsupported()
        return self.reshape(x, tuple(size), loc)

    @_converts("aten.max.dim", "aten.min.dim")
    def convert_max(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        arg = _arguments(node)
        # The values only: their indices (argmax) have no counterpart.
        if any(user.target is not operator.getitem or
               (user.args[1] != 0 and user.users)
               for user in node.users):
            raise AmpError("the indices of max or min over a dimension "
                           "(argmax, argmin) are not supported; only "
                           "their values")
        x = self.value(args[0])
        dim, keepdim = int(args[1]), bool(arg(2, "keepdim", False))
        if target is aten.max.dim:
            values = self.reduce_dims("max", x, [dim], loc)
        else:
            values = self.unary("neg", self.reduce_dims(
                "max", self.unary("neg", x, loc), [dim], loc), loc)
        if keepdim:
            shape = list(x.shape)
            shape[dim % len(shape)] = 1
            values = self.reshape(values, tuple(shape), loc)
        return (values, None)

    @_converts("aten.split.Tensor", "aten.split_with_sizes.default")
    def convert_split(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        dim = int(arg(2, "dim", 0)) % len(x.shape)
        size = x.shape[dim]
        if target is aten.split.Tensor:
            step = int(args[1])
            sizes = [min(step, size - s) for s in range(0, size, step)]
        else:
            sizes = [int(s) for s in args[1]]
        pieces, at = [], 0
        for s in sizes:
            pieces.append(self.slice(x, dim, at, at + s, loc))
            at += s
        return tuple(pieces)

    @_converts("aten.gather.default")
    def convert_gather(self, node, loc):
        # Of a constant that is one number throughout (RoBERTa's buffered
        # token type ids, zeros, gathered at its position ids): that
        # number, wherever the ids point, as long as they stay inside.
        torch = self.torch
        source = self.known.get(getattr(node.args[0], "name", None))
        if not isinstance(source, torch.Tensor) or not source.numel():
            raise _Unsupported()
        flat = source.reshape(-1)
        if not bool((flat == flat[0]).all()):
            raise _Unsupported()
        dim = int(node.args[1]) % source.dim()
        index = self.value(node.args[2])
        known = self.known.get(getattr(node.args[2], "name", None))
        if known is not None:
            low, high = int(known.min()), int(known.max())
        elif index.integer:
            low, high = index.low, index.high
        else:
            raise _Unsupported()
        if low < -source.shape[dim] or high >= source.shape[dim]:
            raise AmpError(f"gather ids may lie in [{low}, {high}], outside "
                           f"dim {dim} of size {source.shape[dim]}")
        shape, element = self.result(node)
        return self.broadcast(self.constant(flat[0].item(), element, loc),
                              shape, loc, "gathered")

    @_converts("aten.cumsum.default")
    def convert_cumsum(self, node, loc):
        # A product by the [S, S] triangle of ones along the dim, kept in
        # f32 (amp.precision, as PyTorch's autocast keeps cumsum): exact
        # for integers held in f32 (RoBERTa's count of tokens before each
        # position), a sum in f32 for floats; its gradient the reversed
        # sums, as PyTorch's.
        arg = _arguments(node)
        x = self.value(node.args[0])
        shape, element = self.result(node)
        if x.element[0] not in "fb" and not x.integer:
            if x.element != "i1":
                raise AmpError("cumsum of the batch's integers")
            x = self.as_integer(self.converted(x, "f32", loc), element, 0, 1)
        dim = int(arg(1, "dim")) % len(x.shape)
        size = x.shape[dim]
        rank = len(x.shape)
        perm = [d for d in range(rank) if d != dim] + [dim]
        moved = self.transpose(x, perm, loc)
        rows = int(math.prod(moved.shape[:-1]))
        flat = self.reshape(moved, (rows, size), loc)
        square = (size, size)
        before = self.emit(f"amp.iota dim = 0 : {_type(square, 'i32')}",
                           square, "i32", loc, "before")
        at = self.emit(f"amp.iota dim = 1 : {_type(square, 'i32')}", square,
                       "i32", loc, "at")
        lower = self.emit(f"amp.compare le, {before.name}, {at.name} : "
                          f"{before.type}, {at.type}", square, "i1", loc,
                          "triangle")
        triangle = self.converted(lower, x.element, loc)
        out_element = x.element if x.integer or element[0] not in "fb" \
            else element
        if out_element != x.element:
            flat = self.converted(flat, out_element, loc)
            triangle = self.converted(lower, out_element, loc)
        summed = self.emit(f"amp.matmul {flat.name}, {triangle.name} "
                           f"{{amp.precision = f32}} : {flat.type}, "
                           f"{triangle.type} to "
                           f"{_type((rows, size), out_element)}",
                           (rows, size), out_element, loc, "cumsum")
        back = self.reshape(summed, moved.shape, loc)
        inverse = [perm.index(d) for d in range(rank)]
        result = self.transpose(back, inverse, loc)
        if x.integer:
            low = min(x.low, size * x.low)
            high = max(x.high, size * x.high)
            return self.as_integer(result, element, low, high)
        return result

    @_converts("aten.roll.default")
    def convert_roll(self, node, loc):
        # Each dim's shift as its two slices swapped; no dims: the
        # flattened tensor's.
        arg = _arguments(node)
        x = self.value(node.args[0])
        shifts = arg(1, "shifts")
        dims = arg(2, "dims", [])
        shifts = [shifts] if isinstance(shifts, int) else list(shifts)
        dims = [dims] if isinstance(dims, int) else list(dims)
        if not dims:
            flat = self.reshape(x, (int(math.prod(x.shape)),), loc)
            rolled = self.rolled(flat, shifts[0], 0, loc)
            return self.reshape(rolled, x.shape, loc)
        if len(shifts) != len(dims):
            raise AmpError(f"{len(shifts)} shifts for {len(dims)} dims")
        for shift, dim in zip(shifts, dims):
            x = self.rolled(x, int(shift), int(dim) % len(x.shape), loc)
        return x

    def rolled(self, x, shift, dim, loc):
        size = x.shape[dim]
        shift %= max(size, 1)
        if shift == 0:
            return x
        tail = self.slice(x, dim, size - shift, size, loc)
        head = self.slice(x, dim, 0, size - shift, loc)
        return self.concat([tail, head], dim, x.shape, loc, "roll")

    @_converts("aten.argmax.default", "aten.argmin.default")
    def convert_argmax(self, node, loc):
        # The first position of the largest (smallest) value along the
        # dim, held in f32 (see _Value): the least position where the
        # value equals the maximum. Its values carry no gradient.
        arg = _arguments(node)
        x = self.value(node.args[0])
        dim, keepdim = arg(1, "dim"), bool(arg(2, "keepdim", False))
        if dim is None:
            raise AmpError("argmax over every dim (give dim=)")
        if x.element[0] not in "fb" and not x.integer:
            x = self.converted(x, "f32", loc) if x.element == "i1" else None
            if x is None:
                raise AmpError("argmax of an integer tensor of the batch")
        dim = int(dim) % len(x.shape)
        x = self.unary("stop_gradient", x, loc)
        if "argmin" in str(node.target):
            x = self.unary("neg", x, loc)
        kept = list(x.shape)
        kept[dim] = 1
        largest = self.reshape(self.reduce_dims("max", x, [dim], loc),
                               tuple(kept), loc)
        at = self.emit(f"amp.compare eq, {x.name}, {largest.name} : "
                       f"{x.type}, {largest.type}", x.shape, "i1", loc,
                       "is_largest")
        positions = self.emit(f"amp.iota dim = {dim} : "
                              f"{_type(x.shape, x.element)}", x.shape,
                              x.element, loc, "positions")
        beyond = self.constant(float(x.shape[dim]), x.element, loc)
        candidates = self.select(at, positions, beyond, x.shape, x.element,
                                 loc, "candidates")
        first = self.unary("neg", self.reduce_dims(
            "max", self.unary("neg", candidates, loc), [dim], loc), loc)
        first = self.converted(first, "f32", loc)
        if keepdim:
            first = self.reshape(first, tuple(kept), loc)
        return self.as_integer(first, "i64", 0, x.shape[dim] - 1)

    def picked(self, x, index, loc):
        """x[arange(B), index] for x [B, S, ...] and an index [B] held in
        f32 (see _Value): each row's position as a one-hot mask, x times
        it summed over the positions (exact: one term, the rest zeros);
        the gradient reaches the rows picked."""
        b, size = x.shape[0], x.shape[1]
        weights = self.converted(self.one_hot(index, (b, size), loc),
                                 x.element, loc)
        weights = self.reshape(weights, (b, size) + (1,) * (len(x.shape) - 2),
                               loc)
        product = self.emit(f"amp.mul {x.name}, {weights.name} : {x.type}, "
                            f"{weights.type}", x.shape, x.element, loc,
                            "picked")
        return self.reduce_dims("sum", product, [1], loc)

    @_converts("aten.index.Tensor")
    def convert_index(self, node, loc):
        # x[..., idx, ...] with one index the model computed from constants
        # (Swin's relative position index into its bias table): the rows of
        # x along that dim gathered by amp.embedding (whose gradient adds
        # into the rows read).
        torch = self.torch
        x = self.value(node.args[0])
        indices = list(node.args[1])
        given = [i for i, n in enumerate(indices) if n is not None]
        if len(indices) == 2 and len(given) == 2 and len(x.shape) >= 2:
            # x[arange(B), positions] (CLIP's pooling at the end-of-text
            # token): a position picked in each row.
            rows = self.known.get(getattr(indices[0], "name", None))
            b = x.shape[0]
            if isinstance(rows, torch.Tensor) and \
                    tuple(rows.shape) == (b,) and \
                    torch.equal(rows.to(torch.int64), torch.arange(b)):
                at = self.value(indices[1])
                if at.shape == (b,) and (at.integer or
                                         at.element[0] in "iu"):
                    if x.element[0] not in "fb":
                        raise AmpError(f"indexing a {x.element} tensor")
                    if not at.integer:
                        raise AmpError("indexing rows by integer ids of "
                                       "the batch")
                    return self.picked(x, at, loc)
        if len(given) != 1:
            raise AmpError("indexing by more than one tensor")
        dim = given[0]
        index = indices[dim]
        known = self.known.get(getattr(index, "name", None))
        if not isinstance(known, torch.Tensor) or known.is_floating_point():
            raise _Unsupported()
        if known.dtype == torch.bool:
            raise AmpError("indexing by a boolean mask (its result's shape "
                           "depends on the mask's values)")
        if x.element[0] not in "fb":
            raise AmpError(f"indexing a {x.element} tensor computed from "
                           "the batch or the weights")
        size = x.shape[dim]
        if known.numel() and (int(known.min()) < -size or
                              int(known.max()) >= size):
            raise AmpError(f"index out of range for dim {dim} of size {size}")
        ids = self.literal((known % size).to(torch.int64))
        ids = self.reshape(ids, (known.numel(),), loc)
        # The dim first, the others flattened behind it.
        rest = x.shape[:dim] + x.shape[dim + 1:]
        moved = self.transpose(x, [dim] + [d for d in range(len(x.shape))
                                           if d != dim], loc)
        table = self.reshape(moved, (size, int(math.prod(rest))), loc)
        rows = (known.numel(), int(math.prod(rest)))
        gathered = self.emit(f"amp.embedding {table.name}[{ids.name}] : "
                             f"{table.type}, {ids.type}", rows, x.element,
                             loc, "index")
        picked = self.reshape(gathered, tuple(known.shape) + rest, loc)
        # Back in place: x's dims before `dim`, the index's, x's after.
        k = len(known.shape)
        perm = list(range(k, k + dim)) + list(range(k)) + \
            list(range(k + dim, k + len(rest)))
        return self.transpose(picked, perm, loc)

    @_converts("aten.cat.default")
    def convert_cat(self, node, loc):
        args = node.args
        arg = _arguments(node)
        # Empty tensors take no part, as in PyTorch (an empty cache).
        inputs = [self.value(a) for a in args[0]
                  if not (a.name in self.known and
                          self.known[a.name].numel() == 0)]
        if len(inputs) == 1:
            return inputs[0]
        dim = int(arg(1, "dim", 0)) % len(inputs[0].shape)
        return self.concat(inputs, dim, self.result(node)[0], loc, "cat")

    @_converts("aten.mean.dim", "aten.sum.dim_IntList")
    def convert_mean_dims(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        if arg(3, "dtype") is not None:
            raise AmpError("reductions to another dtype")
        op = "mean" if target is aten.mean.dim else "sum"
        return self.reduce(op, x, args[1] if len(args) > 1 else None,
                           bool(arg(2, "keepdim", False)), node, loc)

    @_converts("aten.mean.default", "aten.sum.default")
    def convert_mean_all(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        x = self.value(args[0])
        op = "mean" if target is aten.mean.default else "sum"
        return self.reduce(op, x, None, False, node, loc)

    @_converts("aten.amax.default")
    def convert_amax(self, node, loc):
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        return self.reduce("max", x, arg(1, "dim", []),
                           bool(arg(2, "keepdim", False)), node, loc)

    @_converts("aten.where.self", "aten.where.ScalarOther",
               "aten.where.ScalarSelf", "aten.where.Scalar",
               "aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
    def convert_where(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        if target is not aten.masked_fill.Scalar and \
                target is not aten.masked_fill.Tensor:
            # A number on either side is a constant of the result's type.
            cond = self.value(args[0])
            like = _Value("%like", (), self.result(node)[1])
            a, b = (self.value(v, like, loc) for v in args[1:3])
        else:
            b = self.value(args[0])
            cond = self.value(args[1])
            a = self.value(args[2], b, loc)
        shape, element = self.result(node)
        return self.select(cond, a, b, shape, element, loc, "where")

    @_converts("aten.conv2d.default", "aten.conv1d.default")
    def convert_conv2d(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        arg = _arguments(node)
        x, w = self.value(args[0]), self.value(args[1])
        b = arg(2, "bias")
        b = self.value(b) if b is not None else None
        windows = [arg(3, "stride", 1), arg(4, "padding", 0),
                   arg(5, "dilation", 1)]
        if any(isinstance(v, str) for v in windows):
            raise AmpError("padding given as a string ('same', 'valid'); "
                           "give it in elements")
        shape, element = self.result(node)
        if target is aten.conv2d.default:
            return self.conv2d(x, w, b, *windows, int(arg(6, "groups", 1)),
                               shape, element, loc)
        # A 1-d convolution is a 2-d one of height 1.
        def tall(v):
            return self.reshape(v, v.shape[:2] + (1,) + v.shape[2:], loc)

        def wide(value):
            return [1, _pair(value)[0]] if value is not None else None

        out = self.conv2d(tall(x), tall(w), b, wide(windows[0]),
                          [0, _pair(windows[1])[0]], wide(windows[2]),
                          int(arg(6, "groups", 1)),
                          (shape[0], shape[1], 1, shape[2]), element, loc)
        return self.reshape(out, shape, loc)

    @_converts("aten.conv_transpose2d.input")
    def convert_conv_transpose2d(self, node, loc):
        """ConvTranspose2d: the input gradient of the convolution it
        transposes (amp.conv2d_grad_input, the op that convolution's own
        gradient is), its output_padding the rows and columns the result
        type has beyond what the stride gives back; the bias added per
        channel."""
        args = node.args
        arg = _arguments(node)
        x, w = self.value(args[0]), self.value(args[1])
        b = arg(2, "bias")
        if isinstance(arg(4, "padding", 0), str):
            raise AmpError("padding given as a string; give it in elements")
        attrs = _window_attrs(strides=arg(3, "stride", 1),
                              padding=arg(4, "padding", 0),
                              dilations=arg(7, "dilation", 1))
        groups = int(arg(6, "groups", 1))
        if groups != 1:
            attrs.append(f"groups = {groups} : i64")
        shape, element = self.result(node)
        out = self.emit(f"amp.conv2d_grad_input {x.name}, {w.name} "
                        f"{{{', '.join(attrs)}}} : {x.type}, {w.type} to "
                        f"{_type(shape, element)}", shape, element, loc,
                        "conv_transpose")
        if b is None:
            return out
        bias = self.reshape(self.value(b), (1, shape[1], 1, 1), loc)
        return self.elementwise("add", out, bias, loc)

    @_converts("aten.upsample_bilinear2d.vec", "aten.upsample_nearest2d.vec",
               "aten._upsample_nearest_exact2d.vec")
    def convert_upsample2d(self, node, loc):
        """F.interpolate (nn.Upsample) of an image, bilinear or nearest:
        linear along each axis, so a product by a constant [out, in]
        matrix of PyTorch's source weights along the width, then along the
        height (for bilinear the same two-step sums PyTorch computes: each
        output a weighted sum of two inputs, the other terms zero)."""
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        name = str(node.target)
        bilinear = "bilinear" in name
        align = bool(arg(2, "align_corners", False)) if bilinear else False
        factors = arg(3 if bilinear else 2, "scale_factors")
        mode = ("bilinear" if bilinear else
                "nearest-exact" if "exact" in name else "nearest")
        shape, element = self.result(node)
        n, c, h, w = x.shape
        rows, cols = shape[2], shape[3]
        factors = ([float(f) for f in factors] * 2)[-2:] if factors \
            else (None, None)
        along_w = self.torch.from_numpy(
            _resampling(w, cols, factors[1], mode, align).T.copy())
        along_h = self.torch.from_numpy(
            _resampling(h, rows, factors[0], mode, align).T.copy())
        t = self.reshape(x, (n * c * h, w), loc)
        t = self.matmul(t, self.literal(along_w),
                        (n * c * h, cols), element, loc, "resample")
        t = self.reshape(t, (n * c, h, cols), loc)
        t = self.reshape(self.transpose(t, [0, 2, 1], loc),
                         (n * c * cols, h), loc)
        t = self.matmul(t, self.literal(along_h),
                        (n * c * cols, rows), element, loc, "resample")
        t = self.reshape(t, (n, c, cols, rows), loc)
        return self.transpose(t, [0, 1, 3, 2], loc)

    @_converts("aten.instance_norm.default")
    def convert_instance_norm(self, node, loc):
        args = node.args
        arg = _arguments(node)
        # Each (example, channel) normalised over its positions: a
        # layer norm over the spatial dims, then the channels' affine.
        x = self.value(args[0])
        if arg(3, "running_mean") is not None or \
                not arg(5, "use_input_stats", True):
            raise AmpError("instance norm with running statistics "
                           "(track_running_stats=True)")
        out = self.norm("layer_norm", x, x.shape[2:], None, None,
                        float(arg(7, "eps", 1e-5)), loc)
        channel = (x.shape[1],) + (1,) * (len(x.shape) - 2)
        for op, operand in (("mul", arg(1, "weight")),
                            ("add", arg(2, "bias"))):
            if operand is not None:
                out = self.elementwise(op, out, self.reshape(
                    self.value(operand), channel, loc), loc)
        return out

    @_converts("aten.batch_norm.default")
    def convert_batch_norm(self, node, loc):
        arg = _arguments(node)
        return self.batch_norm(node, loc, arg)

    @_converts("aten.max_pool2d.default")
    def convert_max_pool2d(self, node, loc):
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        kernel = _pair(args[1])
        stride = _pair(arg(2, "stride", []) or kernel)
        padding = _pair(arg(3, "padding", [0, 0]))
        dilation = _pair(arg(4, "dilation", [1, 1]))
        shape, element = self.result(node)
        if arg(5, "ceil_mode", False):
            # The last window may run past the bottom or the right edge:
            # padded there (with -inf, as all of max pooling's padding) by
            # what the result's size needs beyond the padding given.
            extra = [max(0, (shape[2 + i] - 1) * stride[i] +
                         dilation[i] * (kernel[i] - 1) + 1 -
                         x.shape[2 + i] - 2 * padding[i]) for i in range(2)]
            padding = [padding[0], padding[1], padding[0] + extra[0],
                       padding[1] + extra[1]]
        attrs = [f"kernel = array<i64: {kernel[0]}, {kernel[1]}>"]
        attrs += _window_attrs(strides=stride, padding=padding,
                               dilations=dilation)
        return self.emit(f"amp.max_pool2d {x.name} {{{', '.join(attrs)}}} "
                         f": {x.type} to {_type(shape, element)}", shape,
                         element, loc, "pool")

    @_converts("aten.avg_pool2d.default")
    def convert_avg_pool2d(self, node, loc):
        args = node.args
        arg = _arguments(node)
        x = self.value(args[0])
        if arg(4, "ceil_mode", False) or not arg(5, "count_include_pad", True) \
                or arg(6, "divisor_override") is not None:
            raise AmpError("avg_pool2d with ceil_mode, count_include_pad="
                           "False or a divisor")
        kernel = _pair(args[1])
        stride = arg(2, "stride", []) or kernel
        attrs = [f"kernel = array<i64: {kernel[0]}, {kernel[1]}>"]
        attrs += _window_attrs(strides=stride,
                               padding=arg(3, "padding", [0, 0]))
        shape, element = self.result(node)
        return self.emit(f"amp.avg_pool2d {x.name} {{{', '.join(attrs)}}} "
                         f": {x.type} to {_type(shape, element)}", shape,
                         element, loc, "pool")

    @_converts("aten.adaptive_avg_pool2d.default")
    def convert_adaptive_avg_pool2d(self, node, loc):
        args = node.args
        x = self.value(args[0])
        size = _pair(args[1])
        shape, element = self.result(node)
        return self.emit(f"amp.adaptive_avg_pool2d {x.name} output_size = "
                         f"[{size[0]}, {size[1]}] : {x.type} to "
                         f"{_type(shape, element)}", shape, element, loc,
                         "pool")

    @_converts("aten.scaled_dot_product_attention.default")
    def convert_scaled_dot_product_attention(self, node, loc):
        arg = _arguments(node)
        return self.attention(node, loc, arg)

    @_converts("aten.cross_entropy_loss.default")
    def convert_cross_entropy_loss(self, node, loc):
        args = node.args
        arg = _arguments(node)
        logits, labels = self.value(args[0]), self.value(args[1])
        reduction = {0: "none", 1: "mean", 2: "sum"}[int(arg(3, "reduction", 1))]
        if reduction == "none":
            raise AmpError("cross_entropy with reduction='none'")
        if len(logits.shape) > 2 and len(labels.shape) == \
                len(logits.shape) - 1:
            # [batch, classes, d1, ...] against [batch, d1, ...] (a
            # segmentation's): one row per position, the mean over them
            # all, as PyTorch takes it.
            rank = len(logits.shape)
            logits = self.transpose(logits, [0, *range(2, rank), 1], loc)
            rows = math.prod(labels.shape)
            logits = self.reshape(logits, (rows, logits.shape[-1]), loc)
            labels = self.reshape(labels, (rows,), loc)
        if len(logits.shape) != 2:
            raise AmpError("cross_entropy of logits that are not "
                           "[batch, classes] or [batch, classes, d1, ...] "
                           "with labels [batch, d1, ...]")
        ignore = int(arg(4, "ignore_index", -100))
        weight = arg(2, "weight")
        smoothing = float(arg(5, "label_smoothing", 0.0))
        if weight is not None or smoothing != 0.0:
            return self.weighted_cross_entropy(
                logits, labels,
                None if weight is None else self.value(weight),
                smoothing, reduction, ignore, loc)
        shape, element = self.result(node)
        return self.emit(
            f"amp.cross_entropy {logits.name}, {labels.name} reduction = "
            f"{reduction} ignore_index = {ignore} : {logits.type}, "
            f"{labels.type} to {_type(shape, element)}", shape, element,
            loc, "loss")

    @_converts("aten.mse_loss.default")
    def convert_mse_loss(self, node, loc):
        args = node.args
        arg = _arguments(node)
        x, t = self.value(args[0]), self.value(args[1])
        reduction = {0: "none", 1: "mean", 2: "sum"}[int(arg(2, "reduction", 1))]
        if reduction == "none":
            raise AmpError("mse_loss with reduction='none'")
        shape, element = self.result(node)
        return self.emit(f"amp.mse_loss {x.name}, {t.name} reduction = "
                         f"{reduction} : {x.type}, {t.type} to "
                         f"{_type(shape, element)}", shape, element, loc,
                         "loss")

    @_converts("aten.dropout.default", "aten.native_dropout.default")
    def convert_dropout(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        arg = _arguments(node)
        p = float(arg(1, "p"))
        train = arg(2, "train", True)
        x = self.value(args[0])
        if p == 0.0 or not train:
            return (x, None) if target is aten.native_dropout.default else x
        if not 0.0 < p < 1.0:
            raise AmpError(f"dropout with p={p}")
        # The step's random generator (one argument for the model),
        # each dropout a stream of its own.
        self.dropouts += 1
        out = self.emit(f"amp.dropout {x.name}, {_RNG.name} p = "
                        f"{_float(p)} stream = {self.dropouts - 1} "
                        f"training : {x.type}", x.shape, x.element, loc,
                        "dropout")
        return (out, None) if target is aten.native_dropout.default else out

    @_converts("aten.arange.default", "aten.arange.start",
               "aten.arange.start_step")
    def convert_arange(self, node, loc):
        aten = self.torch.ops.aten
        target = node.target
        args = node.args
        shape, element = self.result(node)
        if element != "i64":
            raise AmpError("arange of floats")
        start = 0 if target is aten.arange.default else int(args[0])
        step = int(args[2]) if target is aten.arange.start_step else 1
        values = [start + step * i for i in range(shape[0])]
        return self.emit(f"amp.constant dense<[{', '.join(map(str, values))}]>"
                         f" : {_type(shape, element)}", shape, element, loc,
                         "arange")

    def pad(self, node, loc, arg):
        """Constant padding: the pads as constants, concatenated."""
        x = self.value(node.args[0])
        pads = [int(p) for p in node.args[1]]
        if arg(2, "mode", "constant") != "constant":
            raise AmpError(f"padding of mode {arg(2, 'mode')}")
        fill = arg(3, "value", 0.0) or 0.0
        if any(p < 0 for p in pads):
            raise AmpError("negative padding")
        value = x
        for k in range(len(pads) // 2):
            dim = len(x.shape) - 1 - k
            before, after = pads[2 * k], pads[2 * k + 1]
            parts = []
            for count in (before, None, after):
                if count is None:
                    parts.append(value)
                elif count:
                    shape = list(value.shape)
                    shape[dim] = count
                    literal = (_float(fill, value.element)
                               if value.element[0] in "fb"
                               else str(int(fill)))
                    parts.append(self.emit(
                        f"amp.constant dense<{literal}> : "
                        f"{_type(shape, value.element)}", shape,
                        value.element, loc, "pad"))
            if len(parts) > 1:
                shape = list(value.shape)
                shape[dim] += before + after
                value = self.concat(parts, dim, shape, loc, "pad")
        return value

    def batch_norm(self, node, loc, arg):
        x = self.value(node.args[0])
        weight, bias = arg(1, "weight"), arg(2, "bias")
        mean, var = arg(3, "running_mean"), arg(4, "running_var")
        if mean is None or var is None:
            raise AmpError("batch_norm without running statistics "
                           "(track_running_stats=False)")
        mean, var = self.value(mean), self.value(var)
        training = bool(arg(5, "training"))
        momentum, eps = arg(6, "momentum", 0.1), arg(7, "eps", 1e-5)
        if momentum is None:
            raise AmpError("batch_norm with momentum=None (a cumulative "
                           "average)")
        text = (f"amp.batch_norm {x.name} running({mean.name}, {var.name} : "
                f"{mean.type})")
        for word, operand in (("scale", weight), ("bias", bias)):
            if operand is not None:
                v = self.value(operand)
                text += f" {word}({v.name} : {v.type})"
        attrs = [f"epsilon = {_float(eps)}", f"momentum = {_float(momentum)}"]
        if training:
            attrs.append("training")
        name = self.fresh("bn")
        self.lines.append(f"    {name}:3 = {text} {{{', '.join(attrs)}}} : "
                          f"{x.type} {loc}")
        return _Value(f"{name}#0", x.shape, x.element)

    def norm(self, op, x, normalized, weight, bias, eps, loc):
        # Over the last len(normalized) dimensions, flattened into one.
        count = len(normalized)
        if tuple(normalized) != x.shape[len(x.shape) - count:]:
            raise AmpError(f"{op} over {normalized} of a {list(x.shape)} tensor")
        inner = 1
        for d in normalized:
            inner *= int(d)
        flat = self.reshape(x, x.shape[:len(x.shape) - count] + (inner,), loc)
        parts = [f"amp.{op} {flat.name}"]
        for word, operand in (("scale", weight), ("bias", bias)):
            if operand is not None:
                v = self.reshape(self.value(operand), (inner,), loc)
                parts.append(f"{word}({v.name} : {v.type})")
        text = " ".join(parts) + f" {{epsilon = {_float(eps)}}} : {flat.type}"
        out = self.emit(text, flat.shape, flat.element, loc, op)
        return self.reshape(out, x.shape, loc)

    def is_causal_mask(self, mask, queries, keys):
        """Whether `mask` is known at import and lets query i see keys 0
        to i alone, in every batch and head: True below and on the
        diagonal and False above (or 0 and -inf, added)."""
        torch = self.torch
        known = self.known.get(getattr(mask, "name", None))
        if not isinstance(known, torch.Tensor) or queries != keys or \
                known.dim() < 2 or tuple(known.shape[-2:]) != (queries, keys):
            return False
        lower = torch.ones(queries, keys, dtype=torch.bool).tril()
        if known.dtype == torch.bool:
            return bool((known == lower).all())
        if known.is_floating_point():
            return bool(((known == 0) == lower).all() and
                        torch.isneginf(known[..., ~lower]).all())
        return False

    def attention(self, node, loc, arg):
        q, k, v = (self.value(a) for a in node.args[:3])
        mask = arg(3, "attn_mask")
        if float(arg(4, "dropout_p", 0.0)) != 0.0:
            raise AmpError("attention with dropout")
        causal = bool(arg(5, "is_causal", False))
        scale = arg(6, "scale")
        if arg(7, "enable_gqa", False):
            raise AmpError("attention with grouped queries (enable_gqa)")
        shape, element = self.result(node)
        if mask is not None and not causal and \
                self.is_causal_mask(mask, q.shape[-2], k.shape[-2]):
            # A constant mask that is the causal one (transformers builds
            # it from positions): amp.attention's own.
            mask, causal = None, True
        if mask is None:
            attrs = f" {{scale = {_float(scale)}}}" if scale is not None else ""
            return self.emit(
                f"amp.attention {q.name}, {k.name}, {v.name}"
                f"{' causal' if causal else ''}{attrs} : {q.type}, {k.type}, "
                f"{v.type}", shape, element, loc, "attention")
        if causal:
            raise AmpError("attention with both a mask and is_causal")
        # A mask: the scores written out, as PyTorch's math path computes
        # them: q k^T * scale, masked (False: -inf; floats: added), softmax,
        # times v.
        mask = self.value(mask)
        scale = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
        score_shape = q.shape[:-1] + (k.shape[-2],)
        scores = self.matmul(q, k, score_shape, q.element, loc, "scores",
                             transpose_rhs=True)
        factor = self.constant(scale, q.element, loc)
        scores = self.emit(f"amp.mul {scores.name}, {factor.name} : "
                           f"{scores.type}, {factor.type}", score_shape,
                           q.element, loc, "scaled")
        mask = self.broadcast(mask, score_shape, loc, "mask")
        if mask.element == "i1":
            low = self.constant(-3.0e38 if q.element == "f32" else -65504.0,
                                q.element, loc)
            scores = self.select(mask, scores, low, score_shape, q.element,
                                 loc, "masked")
        else:
            scores = self.emit(f"amp.add {scores.name}, {mask.name} : "
                               f"{scores.type}, {mask.type}", score_shape,
                               q.element, loc, "masked")
        weights = self.unary("softmax", scores, loc,
                             f" dim = {len(score_shape) - 1}")
        return self.matmul(weights, v, shape, element, loc, "attention")


def _bounds(start, end, size):
    """A slice's [start, end) of a dimension of `size`, as Python takes
    them: negative ones counted from the end, both clamped to it."""
    start = max(0, min(size, start + size if start < 0 else start))
    end = max(start, min(size, end + size if end < 0 else end))
    return start, end


def _pair(value):
    values = [int(v) for v in (value if isinstance(value, (list, tuple))
                               else [value])]
    return values * 2 if len(values) == 1 else values


def _resampling(size, out, factor, mode, align_corners):
    """The [out, size] matrix of F.interpolate's weights along one axis:
    row o holds the weights of the inputs output o reads, computed in f32
    as PyTorch's CPU kernels compute them (the source coordinate from the
    scale factor where one is given, else from the sizes)."""
    f32 = np.float32
    if mode == "bilinear" and align_corners:
        ratio = f32((size - 1) / (out - 1)) if out > 1 else f32(0)
    else:
        ratio = f32(1 / factor) if factor else f32(size / out)
    matrix = np.zeros((out, size), dtype=np.float32)
    for o in range(out):
        if mode == "bilinear":
            src = ratio * f32(o) if align_corners else \
                max(ratio * (f32(o) + f32(0.5)) - f32(0.5), f32(0))
            i0 = min(int(src), size - 1)
            i1 = min(i0 + 1, size - 1)
            l1 = f32(src - f32(i0))
            matrix[o, i0] += f32(1) - l1
            matrix[o, i1] += l1
        else:
            offset = f32(0.5) if mode == "nearest-exact" else f32(0)
            matrix[o, min(int(np.floor((f32(o) + offset) * ratio)),
                          size - 1)] = 1
    return matrix


def _window_attrs(**named):
    """`name = array<i64: a, b>` for each window attribute given."""
    return [f"{key} = array<i64: {', '.join(map(str, _pair(value)))}>"
            for key, value in named.items() if value is not None]


# The step's random generator, an argument of a model with dropout.
_RNG = _Value("%rng", (2,), "i64")

# Operations whose value differs from run to run: never computed at import.
_RANDOM = {"rand", "randn", "randint", "rand_like", "randn_like",
           "randint_like", "bernoulli", "normal", "dropout", "native_dropout",
           "uniform", "multinomial", "randperm"}

# What an operation without a result (an assertion) converts to.
_NOTHING = object()
# Decompositions of decompositions, at most: deeper, the op is refused.
_DECOMPOSITION_DEPTH = 3


class _Unsupported(Exception):
    pass


def _is_composite(torch, target):
    """Whether ATen op `target` has a CompositeImplicitAutograd kernel:
    a definition in terms of other ATen ops, which OpOverload.decompose
    runs."""
    if not isinstance(target, torch._ops.OpOverload):
        return False
    return torch._C._dispatch_has_kernel_for_dispatch_key(
        target.name(), torch._C.DispatchKey.CompositeImplicitAutograd)


def from_torch(module, example_args, loss=None, *, name="model",
               dynamic_shapes=None, training=None):
    """Imports ``module`` (a torch.nn.Module) and its loss as an amp module
    (ImportedModel) that ampmlir compiles into a training step.

    ``example_args`` is a batch (a tuple of tensors) in the order the loss
    takes them; their shapes become the step's. ``loss`` is a callable
    ``loss(module, *batch)`` returning the 0-d loss, such as ``lambda m, x,
    y: F.cross_entropy(m(x), y)``; without it ``module(*batch)`` must
    return the loss itself. ``name`` names the step (a C identifier of at
    most 243 characters, so that its files have names of at most 255).
    A step's shapes are static: ``dynamic_shapes`` (torch.export's) is
    refused; import once per batch shape.
    ``training`` picks the forward the step trains: True, the module's
    training-mode forward (batch norm by the batch's statistics, updating
    its running ones; dropout), False its eval-mode one, None (the
    default) the mode the module is in, with a warning when that is
    ``eval()``: a PyTorch user often calls it before exporting, and a step
    that trains in eval mode never updates batch norm's statistics and
    drops no activations. The module's modes are restored afterwards.
    The step starts from the module's ``state_dict()`` as it is now (see
    ImportedModel.compile).
    Raises AmpError naming what cannot be imported: a model that
    torch.export cannot trace, ATen operations without a counterpart here
    (all of them, each with its module path and source line), a loss that
    is not a 0-d float.
    """
    torch = _torch()
    if dynamic_shapes is not None:
        raise AmpError("dynamic shapes are not supported: a compiled step "
                       "has the shapes of example_args; import once per "
                       "batch shape")
    if not isinstance(module, torch.nn.Module):
        raise AmpError(f"from_torch takes a torch.nn.Module, not "
                       f"{type(module).__name__}")
    _check_name(name)
    if not isinstance(example_args, (tuple, list)):
        example_args = (example_args,)
    example_args = tuple(example_args)
    for i, a in enumerate(example_args):
        if not isinstance(a, torch.Tensor):
            raise AmpError(f"example argument {i} is a {type(a).__name__}, "
                           "not a tensor")
    if loss is not None and not callable(loss):
        raise AmpError("loss must be a callable loss(module, *batch)")
    if training not in (None, True, False):
        raise AmpError(f"training must be True, False or None (the "
                       f"module's mode), not {training!r}")
    if training is None and not module.training:
        warnings.warn(
            f"{type(module).__name__} is in eval() mode: the step trains "
            "its eval-mode forward (batch norm by its running statistics, "
            "which then never change; no dropout). Call train() on it "
            "first, or pass training=False to from_torch to mean it",
            stacklevel=2)
    modes = [(m, m.training) for m in module.modules()]
    if training is not None:
        module.train(training)
    wrapper = _Loss.wrap(module, loss, torch)
    _FUNCTIONS.clear()  # the keys a graph's Functions carry are its own
    try:
        with _tracing_faithfully(torch):
            program = torch.export.export(wrapper, example_args)
    except AmpError:
        raise
    except Exception as error:  # torch raises many kinds
        text = str(error).strip().splitlines()
        raise AmpError(f"torch.export cannot trace the model: "
                       f"{type(error).__name__}: "
                       f"{text[0] if text else ''}") from error
    finally:
        for m, mode in modes:
            m.training = mode
    names = _input_names(module, loss, len(example_args))
    return _translate(torch, program, module, names, name)


class _tracing_faithfully:
    """While torch.export traces the model, refuses torch.autograd.grad,
    which torch.export fails on later (a fake tensor it left behind), with
    the line that called it and ampmlir.grad, the call that takes its place;
    and captures what it would trace unfaithfully: a torch.autograd.Function
    of the model's own, whose forward torch.export inlines and whose
    backward it drops (strict or not), is traced here as its forward and
    its backward tied by an ampmlir::custom_function node (capture), which
    the importer writes as a function with its own backward
    (amp.custom_vjp)."""

    def __init__(self, torch):
        self.torch = torch
        self.here = os.path.dirname(os.path.abspath(__file__))

    def caller(self):
        """` at file.py:57`: the innermost frame outside torch and here."""
        torch_dir = os.path.dirname(self.torch.__file__)
        frame = next((f for f in inspect.stack()[2:]
                      if not f.filename.startswith(self.here) and
                      not f.filename.startswith(torch_dir)), None)
        return (f" at {os.path.basename(frame.filename)}:{frame.lineno}"
                if frame else "")

    def __enter__(self):
        torch = self.torch
        grad = self.grad = torch.autograd.grad
        importer = self

        def refuse_grad(*args, **kwargs):
            if not torch.compiler.is_exporting():
                return grad(*args, **kwargs)
            raise AmpError(
                f"the model calls torch.autograd.grad{importer.caller()}, "
                "which torch.export cannot trace; write ampmlir.grad(value, "
                "inputs) there (torch.autograd.grad(value, inputs, "
                "create_graph=True) when run eagerly, an amp.grad when "
                "imported)")

        torch.autograd.grad = refuse_grad
        # The model's own autograd.Functions: `apply` (however it was
        # looked up) calls `forward`, which traces the Function here.
        self.forwards = []
        pending = list(torch.autograd.Function.__subclasses__())
        while pending:
            cls = pending.pop()
            pending.extend(cls.__subclasses__())
            if cls.__module__.split(".")[0] == "torch" or \
                    "forward" not in cls.__dict__:
                continue
            original = cls.__dict__["forward"]
            self.forwards.append((cls, original))

            def forward(*args, _cls=cls, _original=original):
                if not torch.compiler.is_exporting():
                    return _original.__get__(None, _cls)(*args)
                return importer.capture(_cls, _original, args)

            cls.forward = staticmethod(forward)
        return self

    def capture(self, cls, original, args):
        """`cls.apply(*args)` traced as its forward (`original`), then its
        backward on a stand-in gradient of each output
        (ampmlir::cotangent), tied together by an
        ampmlir::custom_function node whose results stand for the outputs:
        the importer writes the two as a function with its own backward
        (amp.custom_vjp) and a call of it. `args` are forward's, after the
        ctx that apply passes (which is not used: _FunctionContext stands
        for it), or apply's own where the Function has setup_context."""
        torch = self.torch
        name = f"{cls.__qualname__}{self.caller()}"
        with_ctx = not _has_setup_context(cls, torch)
        if with_ctx:
            args = args[1:]
        cotangent, custom_function = _function_ops(torch)
        is_float = [isinstance(a, torch.Tensor) and a.is_floating_point()
                    for a in args]
        ctx = _FunctionContext(tuple(is_float))
        forward = original.__get__(None, cls)
        if with_ctx:
            outputs = forward(ctx, *args)
        else:
            outputs = forward(*args)
            cls.setup_context(ctx, args, outputs)
        single = isinstance(outputs, torch.Tensor)
        outputs = [outputs] if single else list(outputs)
        if not outputs or not all(isinstance(o, torch.Tensor) and
                                  o.is_floating_point() for o in outputs):
            raise AmpError(f"the forward of {name} returns other than float "
                           "tensors; only those can be imported")
        cotangents = [cotangent(o) for o in outputs]
        grads = cls.backward(ctx, *cotangents)
        grads = [grads] if isinstance(grads, torch.Tensor) or grads is None \
            else list(grads)
        if len(grads) != len(args):
            raise AmpError(f"the backward of {name} returns {len(grads)} "
                           f"gradients for {len(args)} arguments")
        inputs = [a for a in args if isinstance(a, torch.Tensor)]
        input_grads = [g if g is not None else torch.zeros_like(a)
                       for a, g, f in zip(args, grads, is_float) if f]
        _FUNCTIONS.append((cls, _cast_inputs(original.__get__(None, cls))))
        results = custom_function(len(_FUNCTIONS) - 1, inputs, outputs,
                                  cotangents, input_grads)
        return results[0] if single else tuple(results)

    def __exit__(self, *exc):
        self.torch.autograd.grad = self.grad
        for cls, original in self.forwards:
            cls.forward = original
        return False


def _input_names(module, loss, count):
    """The batch's names: the loss's parameters after the module, or the
    module's forward's; input<i> where they have none."""
    function = loss if loss is not None else module.forward
    try:
        params = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        params = []
    if loss is not None:
        params = params[1:]
    positional = (inspect.Parameter.POSITIONAL_ONLY,
                  inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [p.name for p in params if p.kind in positional][:count]
    names += [f"input{i}" for i in range(len(names), count)]
    return names


def _translate(torch, program, module, input_names, name):
    graph = program.graph
    signature = program.graph_signature
    prefix = _MODEL + "."
    importer = _Importer(torch, program, prefix)
    InputKind = torch.export.graph_signature.InputKind

    # Parameters by tensor, so that tied weights are one argument named by
    # the first of their state_dict keys (as named_parameters gives them).
    first_name = {}
    for key, tensor in module.named_parameters(remove_duplicate=False):
        first_name.setdefault(id(tensor), key)
    for key, tensor in module.named_buffers(remove_duplicate=False):
        first_name.setdefault(id(tensor), key)
    state = dict(module.named_parameters(remove_duplicate=False))
    state.update(dict(module.named_buffers(remove_duplicate=False)))

    arguments = []  # (mlir text, _Value) in order
    parameters, buffers, aliases, inputs = {}, {}, {}, []
    counters = []  # buffers counted rather than imported
    constants = []  # integer buffers compiled in as constants
    mutated = set(signature.buffers_to_mutate.values())
    by_tensor = {}
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for spec, node in zip(signature.input_specs, placeholders):
        val = node.meta.get("val")
        if spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            key = spec.target[len(prefix):] if spec.target.startswith(prefix) \
                else spec.target
            tensor = state.get(key)
            if tensor is None:
                raise AmpError(f"cannot find {key} in the module")
            if spec.kind == InputKind.BUFFER and \
                    getattr(spec, "persistent", True) is False:
                # A buffer outside the state_dict (rotary embeddings'
                # inv_freq, a causal mask): a constant of the model, as
                # PyTorch saves none of it; computed with at import.
                importer.known[node.name] = tensor.detach().clone()
                continue
            canonical = first_name[id(tensor)]
            if spec.kind == InputKind.BUFFER and \
                    not (tensor.is_floating_point() or tensor.is_complex()) \
                    and spec.target not in mutated and \
                    not canonical.endswith("num_batches_tracked"):
                # An integer buffer the model only reads (Swin's relative
                # position index): a constant of the step, computed with
                # at import; state_dict gives it back as it was.
                importer.known[node.name] = tensor.detach().clone()
                for key2, other in state.items():
                    if other is tensor and key2 not in constants:
                        constants.append(key2)
                continue
            if "\0" in canonical:
                raise AmpError(f"{canonical!r} holds a NUL character, which "
                               f"no tensor name of a step can hold (C reads "
                               f"the name up to it)")
            if canonical in by_tensor:
                importer.values[node.name] = by_tensor[canonical]
                if key != canonical and key not in aliases.setdefault(canonical, []):
                    aliases[canonical].append(key)
                continue
            if spec.kind == InputKind.BUFFER and \
                    canonical.endswith("num_batches_tracked"):
                # Batch norm's count of batches, which only momentum=None
                # reads (refused): not a tensor of the step; state_dict
                # counts it.
                counters.append(canonical)
                importer.values[node.name] = None
                continue
            element = _element(val.dtype, torch)
            value = _Value(f"%arg{len(arguments)}", val.shape, element)
            by_tensor[canonical] = value
            importer.values[node.name] = value
            # A frozen parameter (requires_grad=False, as fine-tuning
            # leaves a backbone) is state the step reads and never
            # updates: a buffer, with no gradient and no optimizer state.
            is_param = spec.kind == InputKind.PARAMETER and \
                getattr(tensor, "requires_grad", False)
            kind = "amp.param" if is_param else "amp.buffer"
            if not is_param:
                # Where the buffer starts (amp_step_init): the module's
                # value if it is one number throughout, as batch norm's
                # running statistics start.
                flat = tensor.detach().reshape(-1)
                if flat.numel() and bool((flat == flat[0]).all()) and \
                        float(flat[0]) != 0.0:
                    kind += f" = {_float(float(flat[0]))}"
            if not is_param and element != "f32":
                what = "buffer" if spec.kind == InputKind.BUFFER else \
                    "frozen parameter"
                raise AmpError(f"{what} {canonical} is {val.dtype}; only f32 "
                               "buffers and frozen parameters are supported")
            (parameters if is_param else buffers)[canonical] = list(val.shape)
            for other in (k for k, t in state.items()
                          if t is tensor and k != canonical):
                if other not in aliases.setdefault(canonical, []):
                    aliases[canonical].append(other)
            arguments.append((f"{value.name}: {value.type} {{{kind}, "
                              f"amp.name = {_mlir_string(canonical)}}}",
                              value))
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            importer.known[node.name] = program.constants[spec.target]
        elif spec.kind == InputKind.USER_INPUT:
            if val is None or not hasattr(val, "shape"):
                raise AmpError(f"input {node.name} is not a tensor")
            element = _element(val.dtype, torch)
            value = _Value(f"%arg{len(arguments)}", val.shape, element)
            importer.values[node.name] = value
            input_name = input_names[len(inputs)]
            if input_name in first_name.values():
                input_name = f"input_{input_name}"
            inputs.append(input_name)
            arguments.append((f"{value.name}: {value.type} {{amp.name = "
                              f"{_mlir_string(input_name)}}}", value))
        else:
            raise AmpError(f"cannot import an input of kind {spec.kind.name} "
                           f"({node.name})")
    aliases = {k: v for k, v in aliases.items() if v}

    importer.name = name
    importer.defer_functions(graph)
    output = None
    for node in graph.nodes:
        if node.op == "placeholder":
            continue
        if node.op == "output":
            output = node
            break
        if _is_region_graph(node, torch):
            continue  # an autocast region's graph, which its call imports
        if node.op != "call_function":
            raise AmpError(f"cannot import a graph node of kind {node.op}")
        try:
            importer.import_node(node)
        except _Unsupported:
            op = str(node.target)
            importer.unsupported.setdefault(op, []).append(importer.where(node))
            importer.values[node.name] = None
        except AmpError as error:
            raise AmpError(f"{importer.where(node)}: {node.target}: "
                           f"{error}") from None
    if importer.unsupported:
        lines = [f"  {op} at {', '.join(places[:3])}"
                 f"{f' and {len(places) - 3} more' if len(places) > 3 else ''}"
                 for op, places in importer.unsupported.items()]
        raise AmpError("the model uses ATen operations that amp-mlir cannot "
                       "import:\n" + "\n".join(lines))
    results = output.args[0]
    if isinstance(results, (tuple, list)):
        if len(results) != 1:
            raise AmpError(f"the loss must be one 0-d tensor; the model "
                           f"returns {len(results)} values")
        results = results[0]
    loss_value = importer.values.get(getattr(results, "name", None))
    if not isinstance(loss_value, _Value) or loss_value.shape != () or \
            loss_value.element != "f32":
        shape = list(loss_value.shape) if isinstance(loss_value, _Value) else "?"
        raise AmpError(f"the loss must be a 0-d f32 tensor; it is {shape}"
                       f"{' ' + loss_value.element if isinstance(loss_value, _Value) else ''}"
                       " (reduce it with .mean() or .sum())")
    if importer.dropouts:
        arguments.append((f"{_RNG.name}: {_RNG.type} {{amp.rng, amp.name = "
                          f"{_mlir_string('dropout_rng')}}}", _RNG))
    # A comment ends at a line break: the class's name as a literal's body.
    header = (f"// {_mlir_string(type(module).__name__)[1:-1]}, imported "
              "from PyTorch by ampmlir.from_torch.\n")
    text = (header + f"func.func @{name}(" +
            ",\n    ".join(a for a, _ in arguments) +
            ") -> tensor<f32> {\n" + "\n".join(importer.lines) +
            f"\n    return {loss_value.name} : tensor<f32>\n}}\n" +
            "".join("\n" + f for f in importer.functions))
    imported = ImportedModel(name, text, parameters, buffers, aliases, inputs,
                             counters, constants=constants)
    imported.initial_state = _initial_state(state, imported)
    return imported
