"""A compiled training step, run through the runtime's C API (step.h).

    step = Step("out/mlp/libmlp.so")        # or CompiledStep.load()
    step.init(seed=0)
    for x, labels in batches:
        step.run(x, labels)                  # queued; does not wait
    print(step.loss, step.scale, step.skipped)
    print(step.evaluate(val_x, val_labels))  # the loss, forward only
    step.save("mlp.ampstate")
    step.close()

A step compiled with ``--train-options=data-parallel=true`` is one replica
of a data-parallel job: ``Step(..., comm=MPI.COMM_WORLD)`` (an mpi4py
communicator) joins the job's ranks, each of which then runs the step on
its own batches while the step reduces the gradients over all of them.

Batches are numpy arrays in the step's input order (or keywords by input
name). Every misuse (a wrong shape or dtype, a closed step, a state file of
another step) raises AmpError with a message; nothing reaches the C API
unchecked. A path or a name holding a NUL character raises ValueError, as
open() does.

A Step may be shared by threads: its calls into the C API take turns, and
close() waits for the one in flight.
"""

import ctypes
import functools
import json
import math
import os
import threading
import zipfile
from collections import namedtuple
from pathlib import Path

import numpy as np

from ._errors import AmpError, ToolNotFoundError
from ._tools import find_runtime_library

ABI_VERSION = 11
MAX_RANK = 8

DEVICE_HOST, DEVICE_CUDA = 0, 1
_DEVICE_NAMES = {DEVICE_HOST: "host", DEVICE_CUDA: "cuda"}

PARAM, STATE, INPUT, HPARAM, LOSS_PART, BUFFER, RNG = 0, 1, 2, 3, 4, 5, 6
_KIND_NAMES = {PARAM: "param", STATE: "state", INPUT: "input",
               HPARAM: "hparam", LOSS_PART: "loss_part", BUFFER: "buffer",
               RNG: "rng"}

# Every optimizer's hyperparameters (amp_runtime/hyperparameters.h): setting
# one the step does not have is an error, not a new Python attribute.
_HPARAM_NAMES = ("lr", "weight_decay", "momentum", "beta1", "beta2", "eps",
                 "max_grad_norm", "warmup_steps", "warmup_start_factor",
                 "decay_steps", "min_lr", "step_size", "gamma")

# amp_element_type_t -> (name, numpy dtype of the memory). bf16 is stored as
# its 16-bit pattern; read() and write() convert it from and to float32.
_ELEMENT_TYPES = {
    0: ("f32", np.dtype(np.float32)),
    1: ("f16", np.dtype(np.float16)),
    2: ("bf16", np.dtype(np.uint16)),
    3: ("f64", np.dtype(np.float64)),
    4: ("i32", np.dtype(np.int32)),
    5: ("i64", np.dtype(np.int64)),
    6: ("i1", np.dtype(np.bool_)),
}

_STORAGE = {name: dtype for name, dtype in _ELEMENT_TYPES.values()}
_TYPE_CODES = {name: code for code, (name, _) in _ELEMENT_TYPES.items()}


class _Tensor(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int),
                ("type", ctypes.c_int), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * MAX_RANK),
                ("fan_in", ctypes.c_int64), ("initial", ctypes.c_double),
                ("shard", ctypes.c_int32), ("shard_of", ctypes.c_size_t)]


class _IndexCheck(ctypes.Structure):
    _fields_ = [("tensor", ctypes.c_size_t), ("bound", ctypes.c_int64),
                ("has_ignored", ctypes.c_int32), ("ignored", ctypes.c_int64),
                ("reader", ctypes.c_char_p)]


class _EvalDescription(ctypes.Structure):
    _fields_ = [("tensor_count", ctypes.c_size_t),
                ("tensors", ctypes.POINTER(_Tensor)),
                ("output_count", ctypes.c_size_t),
                ("outputs", ctypes.POINTER(_Tensor)),
                ("arena_size", ctypes.c_size_t), ("run", ctypes.c_void_p),
                ("index_check_count", ctypes.c_size_t),
                ("index_checks", ctypes.POINTER(_IndexCheck))]


class _Description(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("name", ctypes.c_char_p),
                ("target", ctypes.c_int), ("tensor_count", ctypes.c_size_t),
                ("tensors", ctypes.POINTER(_Tensor)),
                ("loss_scale_tensor", ctypes.c_int64),
                ("arena_size", ctypes.c_size_t), ("run", ctypes.c_void_p),
                ("index_check_count", ctypes.c_size_t),
                ("index_checks", ctypes.POINTER(_IndexCheck)),
                ("eval", ctypes.POINTER(_EvalDescription)),
                ("data_parallel", ctypes.c_int32),
                ("zero_replicas", ctypes.c_int32),
                ("accumulate", ctypes.c_int32),
                ("micro_batch_tensor", ctypes.c_size_t),
                ("other_eval_count", ctypes.c_size_t),
                ("other_evals",
                 ctypes.POINTER(ctypes.POINTER(_EvalDescription)))]


class _Input(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("type", ctypes.c_int),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


class _DataSet(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("rows", ctypes.c_int64),
                ("array_count", ctypes.c_size_t),
                ("arrays", ctypes.POINTER(ctypes.c_void_p)),
                ("array_names", ctypes.POINTER(ctypes.c_char_p)),
                # Shards (amp-step's directories of .npy files): none here,
                # the arrays are whole.
                ("shard_count", ctypes.c_size_t),
                ("shard_rows", ctypes.POINTER(ctypes.c_int64))]


class _FitReport(ctypes.Structure):
    _fields_ = [("line", ctypes.c_char_p), ("json", ctypes.c_char_p),
                ("leads", ctypes.c_int32)]


_FitProgress = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p,
                                ctypes.POINTER(_FitReport))


class _FitOptions(ctypes.Structure):
    _fields_ = [("epochs", ctypes.c_int64), ("print_every", ctypes.c_int64),
                ("val_every", ctypes.c_int64),
                ("checkpoint_every", ctypes.c_int64),
                ("shuffle_seed", ctypes.c_uint64), ("shuffle", ctypes.c_int32),
                ("allow_nonfinite", ctypes.c_int32),
                ("checkpoint", ctypes.c_char_p), ("log", ctypes.c_char_p),
                ("progress", _FitProgress), ("context", ctypes.c_void_p),
                ("patience", ctypes.c_int64), ("keep_best", ctypes.c_int64),
                ("monitor", ctypes.c_char_p)]


TensorInfo = namedtuple("TensorInfo", "index name kind type dtype shape")
TensorInfo.__doc__ = """One tensor of a step: its position, name, kind
("param", "state", "buffer", "rng", "hparam", "loss_part" or "input"), element
type ("f32", "bf16", ...), the numpy dtype it is given and read as, and its
shape."""


def _tensor_infos(tensors, count):
    """TensorInfo of each of `count` amp_step_tensor_t at `tensors`."""
    infos = []
    for i in range(count):
        t = tensors[i]
        type_name, dtype = _ELEMENT_TYPES.get(t.type, ("?", None))
        infos.append(TensorInfo(
            i, t.name.decode(), _KIND_NAMES.get(t.kind, "?"), type_name,
            np.dtype(np.float32) if type_name == "bf16" else dtype,
            tuple(t.shape[k] for k in range(t.rank))))
    return infos


def epoch_order(rows, seed, epoch, shuffle=True):
    """The order of ``rows`` examples in epoch ``epoch`` (from 0), as
    ``amp-step --data`` takes them: a Fisher-Yates shuffle drawn from
    splitmix64 seeded with ``seed`` and the epoch, or the rows in order
    without ``shuffle``. Both call the runtime's ``amp_epoch_order``, so a
    run in Python and one on the command line see the same batches."""
    lib = _runtime_library()
    order = np.empty(max(rows, 0), dtype=np.int64)
    _check(lib, lib.amp_epoch_order(rows, seed, epoch, 1 if shuffle else 0,
                                    order.ctypes.data_as(ctypes.c_void_p)))
    return order


def bf16_to_float32(bits):
    """float32 values of bf16 bit patterns (uint16): exact."""
    bits = np.asarray(bits, dtype=np.uint16)
    return (bits.astype(np.uint32) << 16).view(np.float32)


def float32_to_bf16(values):
    """bf16 bit patterns (uint16) of float32 values, rounded to nearest even;
    NaNs stay NaNs."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    bits = values.view(np.uint32)
    rounded = (bits + (((bits >> 16) & 1) + 0x7FFF)) >> 16
    return np.where(np.isnan(values), np.uint32(0x7FC0),
                    rounded).astype(np.uint16)


def _declare(lib):
    """Argument and result types of the C API on `lib` (the step library,
    whose symbol lookup also searches libamp_runtime.so)."""
    status = ctypes.c_void_p
    step = ctypes.c_void_p
    specs = {
        "amp_status_code_name": (ctypes.c_char_p, [ctypes.c_int]),
        "amp_status_code": (ctypes.c_int, [status]),
        "amp_status_message": (ctypes.c_char_p, [status]),
        "amp_status_free": (None, [status]),
        "amp_device_available": (ctypes.c_int, [ctypes.c_int]),
        "amp_host_thread_count": (ctypes.c_int, []),
        "amp_step_create": (status, [ctypes.POINTER(_Description), ctypes.c_int,
                                     ctypes.POINTER(step)]),
        "amp_step_destroy": (None, [step]),
        "amp_step_init": (status, [step, ctypes.c_uint64]),
        "amp_step_write_tensor": (status, [step, ctypes.c_size_t,
                                           ctypes.c_void_p, ctypes.c_size_t]),
        "amp_step_read_tensor": (status, [step, ctypes.c_size_t,
                                          ctypes.c_void_p, ctypes.c_size_t]),
        "amp_step_load_npy": (status, [step, ctypes.c_size_t, ctypes.c_char_p]),
        "amp_step_run": (status, [step, ctypes.c_size_t,
                                  ctypes.POINTER(_Input)]),
        "amp_step_check_data": (status, [step, ctypes.c_int32,
                                         ctypes.c_size_t, ctypes.c_void_p,
                                         ctypes.c_int64, ctypes.c_int32]),
        "amp_step_result": (status, [step, ctypes.POINTER(ctypes.c_float),
                                     ctypes.POINTER(ctypes.c_float)]),
        "amp_step_scaler": (status, [step, ctypes.POINTER(ctypes.c_float),
                                     ctypes.POINTER(ctypes.c_int64),
                                     ctypes.POINTER(ctypes.c_int64)]),
        "amp_step_capture": (status, [step]),
        "amp_step_set_hparam": (status, [step, ctypes.c_char_p,
                                         ctypes.c_double]),
        "amp_step_get_hparam": (status, [step, ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_double)]),
        "amp_step_evaluate": (status, [step, ctypes.c_size_t,
                                       ctypes.POINTER(_Input),
                                       ctypes.POINTER(ctypes.c_float)]),
        "amp_step_read_output": (status, [step, ctypes.c_size_t,
                                          ctypes.c_void_p, ctypes.c_size_t]),
        "amp_step_find_evaluation": (status, [
            step, ctypes.c_int64,
            ctypes.POINTER(ctypes.POINTER(_EvalDescription))]),
        "amp_step_last_evaluation": (ctypes.POINTER(_EvalDescription),
                                     [step]),
        "amp_step_save": (status, [step, ctypes.c_char_p]),
        "amp_step_load": (status, [step, ctypes.c_char_p]),
        "amp_step_fit": (status, [step, ctypes.POINTER(_FitOptions),
                                  ctypes.POINTER(_DataSet),
                                  ctypes.POINTER(_DataSet)]),
        "amp_step_validate": (status, [step, ctypes.POINTER(_DataSet),
                                       ctypes.POINTER(ctypes.c_double),
                                       ctypes.c_void_p]),
        "amp_step_current_lr": (status, [step,
                                         ctypes.POINTER(ctypes.c_double)]),
        "amp_step_validate_metrics": (status, [
            step, ctypes.POINTER(_DataSet), ctypes.POINTER(ctypes.c_double),
            ctypes.POINTER(ctypes.c_double),
            ctypes.POINTER(ctypes.c_double)]),
        "amp_epoch_order": (status, [ctypes.c_int64, ctypes.c_uint64,
                                     ctypes.c_int64, ctypes.c_int32,
                                     ctypes.c_void_p]),
    }
    for name, (restype, argtypes) in specs.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes


def _runtime_library():
    """libamp_runtime.so where find_runtime_library finds it now, its C API
    declared: for the calls that need no step."""
    return _runtime_library_at(str(find_runtime_library()))


@functools.lru_cache(maxsize=None)
def _runtime_library_at(path):
    lib = ctypes.CDLL(path)
    _declare(lib)
    return lib


def _c_string(text):
    """`text` (a str or a path) as the bytes of a C string. C would read
    one holding a NUL as the part before it, so that is refused as open()
    refuses it."""
    data = os.fsencode(text)
    if b"\0" in data:
        raise ValueError(f"embedded null byte in {os.fsdecode(data)!r}")
    return data


def _serialised(method):
    """`method` of a Step, run holding the step's lock: one call at a time
    reaches the C API (ctypes lets other threads run meanwhile), and
    close() cannot free the step under it."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)
    return locked


def _check(lib, status):
    """Raises AmpError for a non-null amp_status_t (and frees it)."""
    if not status:
        return
    try:
        code = lib.amp_status_code_name(lib.amp_status_code(status)).decode()
        message = lib.amp_status_message(status).decode()
    finally:
        lib.amp_status_free(status)
    raise AmpError(message, code)


# The file beside a step imported from PyTorch that records the PyTorch
# names of its tensors (ImportedModel.compile writes it).
TORCH_NAMES_FILE = "torch_names.json"
# The module's state_dict at import, beside a step imported from PyTorch.
TORCH_STATE_FILE = "torch_state.npz"


def _comm_library():
    """libamp_comm.so (beside libamp_runtime.so), its C API declared. Its
    statuses are the runtime's: a step's library reads them (_check)."""
    path = find_runtime_library().parent / "libamp_comm.so"
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as error:
        raise AmpError(f"cannot load {path}: {error}") from None
    status, handle = ctypes.c_void_p, ctypes.c_void_p
    specs = {
        "amp_comm_available": (ctypes.c_int, []),
        "amp_comm_create_mpi": (status, [ctypes.c_void_p, ctypes.c_double,
                                         ctypes.POINTER(handle)]),
        "amp_comm_create_nccl": (status, [ctypes.c_void_p, ctypes.c_double,
                                          ctypes.POINTER(handle)]),
        "amp_comm_create_env": (status, [ctypes.c_double,
                                         ctypes.POINTER(handle)]),
        "amp_comm_destroy": (None, [handle]),
        "amp_comm_rank": (ctypes.c_int, [handle]),
        "amp_comm_size": (ctypes.c_int, [handle]),
        "amp_step_set_comm": (status, [handle, handle]),
        "amp_comm_check_state": (status, [handle, handle]),
    }
    for name, (restype, argtypes) in specs.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


def _mpi_comm_address(comm):
    """The address of the MPI_Comm handle of an mpi4py communicator."""
    try:
        from mpi4py import MPI
    except ImportError:
        raise AmpError("comm= takes an mpi4py communicator, and mpi4py is "
                       "not installed") from None
    if not isinstance(comm, MPI.Comm) or comm == MPI.COMM_NULL:
        raise AmpError(f"comm must be an mpi4py communicator (MPI.COMM_WORLD"
                       f" or one split from it) or 'env', not {comm!r}")
    return MPI._addressof(comm)


def cuda_available():
    """Whether the runtime was built with CUDA and a GPU is present."""
    try:
        lib = _runtime_library()
    except (ToolNotFoundError, OSError):
        return False
    return bool(lib.amp_device_available(DEVICE_CUDA))


def host_threads():
    """The threads a step on the host runs on: AMP_NUM_THREADS, else the
    cores this process may use (1 when the runtime cannot be found)."""
    try:
        lib = _runtime_library()
    except (ToolNotFoundError, OSError):
        return 1
    return int(lib.amp_host_thread_count())


class Step:
    """A training step built by amp-compile, loaded from its library.

    ``library`` is the path of ``lib<name>.so``; ``name`` defaults to what
    follows ``lib`` in the file name. ``device`` is ``"host"``, ``"cuda"`` or
    ``"auto"`` (the device the library was compiled for). The step starts
    with zero parameters and its state at the initial values; call
    ``init(seed)`` or ``write()``/``load()`` before training.

    The optimizer's hyperparameters are attributes (``step.lr = 1e-4``,
    ``step.weight_decay``), listed in ``hparams``: a new value applies from
    the next step on, without recompiling.

    With ``comm`` (an mpi4py communicator; every rank of it constructs its
    Step together), the step joins the ranks as one replica of a
    data-parallel job: ``rank`` and ``replicas`` say where it stands, a
    collective that another rank does not join within ``comm_timeout``
    seconds raises AmpError, and ``init``, ``load`` and ``check_replicas``
    are collective and raise AmpError unless every rank then holds the same
    state. ``transport="nccl"`` reduces a cuda step's gradients through
    NCCL on the GPUs (a GPU on every rank), ``"mpi"`` (the default) through
    MPI.

    ``comm="env"`` joins the processes that a launcher without MPI started,
    as torchrun does: ``RANK`` and ``WORLD_SIZE`` from the environment, and
    NCCL's unique id through ``AMP_NCCL_ID_FILE`` (a path every rank sees),
    ``NCCL_COMM_ID`` or ``MASTER_ADDR`` and ``MASTER_PORT``. Everything then
    goes through NCCL (``transport`` "nccl"), so every rank needs a GPU.

    Threads may share a step: each call into the C API holds the step's
    lock, so calls take turns (results as if made in that order), and
    ``close()`` waits for the call in flight before it frees the step; a
    call after it raises AmpError.
    """

    def __init__(self, library, name=None, device="auto", comm=None,
                 comm_timeout=300.0, transport=None):
        # First: close(), which an error below calls, takes it.
        self._lock = threading.RLock()
        _c_string(library)
        path = Path(library)
        if not path.is_file():
            raise AmpError(f"no compiled step at {path}")
        if name is None:
            stem = path.name
            if not (stem.startswith("lib") and stem.endswith(".so")):
                raise AmpError(f"cannot tell the step's name from {path.name};"
                               " pass name=")
            name = stem[3:-3]
        _c_string(name)
        try:
            self._lib = ctypes.CDLL(str(path.resolve()))
        except OSError as error:
            raise AmpError(f"cannot load {path}: {error}") from None
        try:
            describe = getattr(self._lib, f"{name}_describe")
            _declare(self._lib)
        except AttributeError as error:
            raise AmpError(f"{path} is not a step named '{name}' built by "
                           f"amp-compile ({error})") from None
        describe.restype = ctypes.POINTER(_Description)
        describe.argtypes = []
        self._description = describe()
        d = self._description.contents
        if d.abi_version != ABI_VERSION:
            raise AmpError(f"{path} was built for step ABI {d.abi_version}; "
                           f"this package speaks ABI {ABI_VERSION}: recompile it")
        self.name = name
        self.library = path
        self.target = _DEVICE_NAMES.get(d.target, "?")
        self.tensors = _tensor_infos(d.tensors, d.tensor_count)
        self.inputs = [t for t in self.tensors if t.kind == "input"]
        # The evaluation's batch inputs and its outputs ("loss" first), or
        # empty lists for a step compiled without one.
        # With evaluations at several batch sizes (amp-compile
        # --eval-batch=N,M), these are the first's; ``eval_batches`` lists
        # the sizes, and ``evaluate`` runs the one of its batch's.
        self.eval_inputs, self.eval_outputs = [], []
        # (batch inputs, outputs) of each, by its table's address (as
        # amp_step_find_evaluation and amp_step_last_evaluation name it).
        self._evaluations = []
        self._evaluation_at = {}
        tables = ([d.eval] if d.eval else []) + [
            d.other_evals[k] for k in range(d.other_eval_count)]
        for table in tables:
            e = table.contents
            self._evaluation_at[ctypes.addressof(e)] = len(self._evaluations)
            self._evaluations.append((
                [t for t in _tensor_infos(e.tensors, e.tensor_count)
                 if t.kind == "input"],
                _tensor_infos(e.outputs, e.output_count)))
        if self._evaluations:
            self.eval_inputs, self.eval_outputs = self._evaluations[0]
        self.eval_batches = [inputs[0].shape[0] if inputs and inputs[0].shape
                             else None for inputs, _ in self._evaluations]
        self.hparams = [t.name for t in self.tensors if t.kind == "hparam"]
        # The parts of the loss the model returns after it, by name.
        self.loss_part_names = [t.name for t in self.tensors
                                if t.kind == "loss_part"]
        self.has_loss_scaling = d.loss_scale_tensor >= 0

        if device == "auto":
            device = self.target
        kinds = {"host": DEVICE_HOST, "cuda": DEVICE_CUDA}
        if device not in kinds:
            raise AmpError(f"device must be 'host', 'cuda' or 'auto', not "
                           f"{device!r}")
        self.device = device
        handle = ctypes.c_void_p()
        _check(self._lib, self._lib.amp_step_create(
            self._description, kinds[device], ctypes.byref(handle)))
        self._handle = handle
        self.rank, self.replicas = 0, 1
        self._comm = None
        if comm is not None:
            self._join(comm, float(comm_timeout), transport)

    def _join(self, comm, timeout, transport):
        """Joins the ranks of ``comm`` (see the class's documentation)."""
        if not self._description.contents.data_parallel:
            self.close()
            raise AmpError(f"step '{self.name}' was compiled without data "
                           "parallelism: each rank would train on its own "
                           "(amp-compile --train-options=data-parallel=true)")
        if not timeout > 0:
            self.close()
            raise AmpError(f"comm_timeout must be positive seconds, not "
                           f"{timeout}")
        from_env = isinstance(comm, str) and comm == "env"
        if transport is None:
            transport = "nccl" if from_env else "mpi"
        if transport not in ("mpi", "nccl"):
            self.close()
            raise AmpError(f"transport must be 'mpi' or 'nccl', not "
                           f"{transport!r}")
        if from_env and transport != "nccl":
            self.close()
            raise AmpError("comm='env' joins processes started without MPI "
                           "(RANK, WORLD_SIZE): they reduce through NCCL, "
                           "not transport='mpi'")
        try:
            address = None if from_env else _mpi_comm_address(comm)
        except AmpError:
            self.close()
            raise
        lib = _comm_library()
        handle = ctypes.c_void_p()
        try:
            if from_env:
                status = lib.amp_comm_create_env(timeout, ctypes.byref(handle))
            else:
                create = (lib.amp_comm_create_nccl if transport == "nccl"
                          else lib.amp_comm_create_mpi)
                status = create(address, timeout, ctypes.byref(handle))
            _check(self._lib, status)
            self._comm_lib, self._comm = lib, handle
            _check(self._lib, lib.amp_step_set_comm(self._handle, handle))
        except AmpError:
            self.close()
            raise
        self.rank = lib.amp_comm_rank(handle)
        self.replicas = lib.amp_comm_size(handle)

    @property
    def sharded(self):
        """Whether the step shards its optimizer state over its replicas
        (``zero-stage=1``): each rank then holds parts of its own, and
        saves and loads a state file of its own (``save``)."""
        return self._description.contents.zero_replicas > 0

    def _state_file(self, path):
        path = os.fspath(path)
        if self.sharded and self.rank > 0:
            return f"{path}.rank{self.rank}"
        return path

    @_serialised
    def check_replicas(self):
        """Raises AmpError unless every rank's step holds the same state as
        rank 0's (collective; nothing to check in a single process)."""
        if self._comm is not None:
            _check(self._lib,
                   self._comm_lib.amp_comm_check_state(self._comm,
                                                       self._live()))

    # -- lifetime ---------------------------------------------------------

    def close(self):
        """Frees the step and its device memory; later calls raise AmpError.
        A call in flight on another thread finishes first."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before anything was made
            return
        with lock:
            handle, self._handle = getattr(self, "_handle", None), None
            if handle:
                self._lib.amp_step_destroy(handle)
            # The communicator after the step that used it.
            comm, self._comm = getattr(self, "_comm", None), None
            if comm:
                self._comm_lib.amp_comm_destroy(comm)

    @property
    def closed(self):
        return not getattr(self, "_handle", None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # No call can be in flight: each holds a reference to the step. The
        # lock is then free, or held by a thread that is about to let it go.
        self.close()

    def __repr__(self):
        state = "closed" if self.closed else self.device
        return f"<ampmlir.Step {self.name} ({state}, {len(self.tensors)} tensors)>"

    def _live(self):
        """The handle, for a call made holding the lock."""
        if self.closed:
            raise AmpError(f"step '{self.name}' is closed")
        return self._handle

    # -- tensors ----------------------------------------------------------

    def tensor(self, key):
        """The TensorInfo of tensor ``key`` (a name or an index)."""
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            if not 0 <= key < len(self.tensors):
                raise AmpError(f"step '{self.name}' has {len(self.tensors)} "
                               f"tensors; there is no tensor {key}")
            return self.tensors[key]
        for t in self.tensors:
            if t.name == key:
                return t
        names = ", ".join(t.name for t in self.tensors)
        raise AmpError(f"step '{self.name}' has no tensor {key!r} (it has "
                       f"{names})")

    def _memory_of(self, info, array, what):
        """`array` as the contiguous bytes tensor `info` holds, after
        checking its shape and dtype."""
        array = np.asarray(array)
        if array.shape != info.shape:
            raise AmpError(f"{what} '{info.name}' must have shape "
                           f"{list(info.shape)}; got {list(array.shape)}")
        if not np.can_cast(array.dtype, info.dtype, casting="safe"):
            raise AmpError(
                f"{what} '{info.name}' is {info.type} ({info.dtype}); got "
                f"{array.dtype}, which does not convert to it exactly "
                f"(convert it first, e.g. .astype(np.{info.dtype}))")
        array = np.ascontiguousarray(array, dtype=info.dtype)
        if info.type == "bf16":
            array = float32_to_bf16(array)
        return array

    @_serialised
    def read(self, key):
        """A copy of tensor ``key`` (bf16 is returned as float32)."""
        info = self.tensor(key)
        out = np.empty(info.shape, dtype=_STORAGE[info.type])
        _check(self._lib, self._lib.amp_step_read_tensor(
            self._live(), info.index, out.ctypes.data_as(ctypes.c_void_p),
            out.nbytes))
        return bf16_to_float32(out) if info.type == "bf16" else out

    @_serialised
    def write(self, key, array):
        """Sets all of tensor ``key`` from ``array`` (same shape; a dtype
        that converts to the tensor's exactly)."""
        info = self.tensor(key)
        data = self._memory_of(info, array, "tensor")
        _check(self._lib, self._lib.amp_step_write_tensor(
            self._live(), info.index, data.ctypes.data_as(ctypes.c_void_p),
            data.nbytes))

    @_serialised
    def load_npy(self, key, path):
        """Sets tensor ``key`` from a .npy file of its dtype and shape."""
        info = self.tensor(key)
        _check(self._lib, self._lib.amp_step_load_npy(
            self._live(), info.index, _c_string(path)))

    # -- hyperparameters ----------------------------------------------------

    @_serialised
    def get_hparam(self, name):
        """The current value of hyperparameter ``name`` ("lr", ...)."""
        value = ctypes.c_double()
        _check(self._lib, self._lib.amp_step_get_hparam(
            self._live(), _c_string(name), ctypes.byref(value)))
        return value.value

    @_serialised
    def set_hparam(self, name, value):
        """Sets hyperparameter ``name`` for the steps run after this call
        (it waits for those queued before). Out-of-range values (a negative
        lr, a beta of 1) raise AmpError and change nothing."""
        _check(self._lib, self._lib.amp_step_set_hparam(
            self._live(), _c_string(name), float(value)))

    def __getattr__(self, name):
        # Only called for names that are not ordinary attributes.
        if name in _HPARAM_NAMES and name in self.__dict__.get("hparams", ()):
            return self.get_hparam(name)
        raise AttributeError(f"'{type(self).__name__}' object has no "
                             f"attribute {name!r}")

    def __setattr__(self, name, value):
        if name in _HPARAM_NAMES:
            if name not in self.__dict__.get("hparams", ()):
                raise AmpError(
                    f"step '{self.name}' has no hyperparameter {name!r} "
                    f"(it has: {', '.join(self.hparams) or 'none'})")
            self.set_hparam(name, value)
            return
        super().__setattr__(name, value)

    @_serialised
    def init(self, seed=0):
        """Parameters as PyTorch initialises its layers: weights and linear
        biases uniform in +-1/sqrt(fan_in) from ``seed`` (fan_in: the
        matmul's inner dimension), norm scales 1 and norm biases 0; state at
        its initial values; counters zero. A step imported with
        ampmlir.from_torch then takes the module's weights and buffers as
        they were at import (``torch_state.npz`` beside it), so it starts
        where PyTorch is; ``seed`` still draws its dropout masks."""
        if not 0 <= int(seed) < 2**64:
            raise AmpError(f"seed must be in [0, 2**64), not {seed}")
        _check(self._lib, self._lib.amp_step_init(self._live(), int(seed)))
        initial = self._torch_initial_state()
        if initial is not None:
            self.load_state_dict(initial)
        self.check_replicas()

    def _torch_initial_state(self):
        """The module's state_dict at import, for a step imported from
        PyTorch (ImportedModel.compile); None for other steps."""
        keys = self._torch_record()["initial_state"]
        path = self.library.parent / TORCH_STATE_FILE
        if keys is None:
            return None
        try:
            with np.load(path, allow_pickle=False) as arrays:
                values = [arrays[f"arr_{i}"] for i in range(len(keys))]
        except (OSError, KeyError, ValueError, EOFError,
                zipfile.BadZipFile) as error:
            raise AmpError(f"{path}: cannot read the module's weights the "
                           f"step starts from: {error}") from None
        return dict(zip(keys, values))

    # -- training ---------------------------------------------------------

    def _batch(self, infos, batch, named, what):
        """The C inputs of a batch given in order or by name, checked
        against `infos`; returned with the arrays they point into."""
        if batch and named:
            raise AmpError("give the batch in order or by name, not both")
        if named:
            missing = [t.name for t in infos if t.name not in named]
            unknown = sorted(set(named) - {t.name for t in infos})
            if missing or unknown:
                raise AmpError(f"the {what} of '{self.name}' takes inputs "
                               f"{[t.name for t in infos]}; missing "
                               f"{missing}, unknown {unknown}")
            batch = [named[t.name] for t in infos]
        if len(batch) != len(infos):
            raise AmpError(f"the {what} of '{self.name}' takes {len(infos)} "
                           f"inputs ({', '.join(t.name for t in infos)}); "
                           f"got {len(batch)}")
        arrays = [self._memory_of(info, array, "input")
                  for info, array in zip(infos, batch)]
        shapes = [(ctypes.c_int64 * max(len(a.shape), 1))(*a.shape)
                  for a in arrays]
        inputs = (_Input * max(len(arrays), 1))(*[
            _Input(a.ctypes.data, _TYPE_CODES[info.type], len(a.shape), shape)
            for a, info, shape in zip(arrays, infos, shapes)])
        return inputs, (arrays, shapes)

    @_serialised
    def run(self, *batch, **named):
        """Queues one training step on a batch: the inputs in order, or by
        name as keywords. Returns without waiting for the device. A batch
        whose ids or labels fall outside what the model reads them as
        raises AmpError naming the input, the position and the value, and
        the step does not run."""
        handle = self._live()
        inputs, keep = self._batch(self.inputs, batch, named, "step")
        _check(self._lib, self._lib.amp_step_run(handle, len(self.inputs),
                                                 inputs))
        del keep

    # -- evaluation -------------------------------------------------------

    @property
    def has_eval(self):
        """Whether the library holds the model's evaluation."""
        return bool(self.eval_outputs)

    @_serialised
    def evaluate(self, *batch, **named):
        """The model's loss on a batch (in order, or by name as keywords)
        with the current parameters, forward only and in the precision the
        step trains in; waits. Parameters, state and counters do not
        change. The other outputs compiled in (``amp-compile
        --eval-outputs``) are then read by ``eval_output(name)``. A step
        compiled with evaluations at several batch sizes (``eval_batches``)
        runs the one of the batch's size."""
        if not self.has_eval:
            raise AmpError(f"step '{self.name}' was compiled without an "
                           f"evaluation (amp-compile --eval=false)")
        handle = self._live()
        eval_inputs = self.eval_inputs
        if len(self._evaluations) > 1:
            # The runtime's choice, by the first input's rows.
            first = batch[0] if batch else named.get(eval_inputs[0].name)
            rows = np.shape(first)[0] if np.ndim(first) else -1
            table = ctypes.POINTER(_EvalDescription)()
            _check(self._lib, self._lib.amp_step_find_evaluation(
                handle, rows, ctypes.byref(table)))
            eval_inputs = self._evaluations[self._evaluation_at[
                ctypes.addressof(table.contents)]][0]
        inputs, keep = self._batch(eval_inputs, batch, named, "evaluation")
        loss = ctypes.c_float()
        _check(self._lib, self._lib.amp_step_evaluate(
            handle, len(eval_inputs), inputs, ctypes.byref(loss)))
        del keep
        return loss.value

    @_serialised
    def eval_output(self, name):
        """A copy of output ``name`` of the last ``evaluate`` ("loss" or a
        value named at compile time), of that evaluation's shape; bf16 is
        returned as float32."""
        outputs = self.eval_outputs
        if len(self._evaluations) > 1:
            # The outputs of the evaluation that ran last, in the runtime
            # (Step.evaluate, or a validation).
            table = self._lib.amp_step_last_evaluation(self._live())
            outputs = self._evaluations[self._evaluation_at[
                ctypes.addressof(table.contents)]][1]
        for info in outputs:
            if info.name == name:
                break
        else:
            names = ", ".join(t.name for t in outputs) or "none"
            raise AmpError(f"the evaluation of '{self.name}' has no output "
                           f"{name!r} (it has: {names})")
        out = np.empty(info.shape, dtype=_STORAGE[info.type])
        _check(self._lib, self._lib.amp_step_read_output(
            self._live(), info.index, out.ctypes.data_as(ctypes.c_void_p),
            out.nbytes))
        return bf16_to_float32(out) if info.type == "bf16" else out

    @_serialised
    def capture(self):
        """Records one step's launches into a CUDA graph that every later
        ``run`` replays (one launch per step); nothing runs now. Raises
        AmpError with code ``AMP_UNAVAILABLE`` on the host device."""
        _check(self._lib, self._lib.amp_step_capture(self._live()))

    @_serialised
    def result(self):
        """(loss, found_inf) of the last step; waits for it."""
        loss, found = ctypes.c_float(), ctypes.c_float()
        _check(self._lib, self._lib.amp_step_result(
            self._live(), ctypes.byref(loss), ctypes.byref(found)))
        return loss.value, bool(found.value)

    @_serialised
    def scaler(self):
        """(scale, steps run, steps skipped); waits."""
        scale, steps, skipped = ctypes.c_float(), ctypes.c_int64(), ctypes.c_int64()
        _check(self._lib, self._lib.amp_step_scaler(
            self._live(), ctypes.byref(scale), ctypes.byref(steps),
            ctypes.byref(skipped)))
        return scale.value, steps.value, skipped.value

    @property
    def loss(self):
        """The last step's loss (waits)."""
        return self.result()[0]

    @property
    @_serialised
    def current_lr(self):
        """The learning rate the next update applies (waits): ``lr``, or
        where the step follows a schedule, the schedule's at the count of
        updates applied, as torch.optim.lr_scheduler's get_last_lr().
        AmpError for a step without "lr"."""
        lr = ctypes.c_double()
        _check(self._lib, self._lib.amp_step_current_lr(
            self._live(), ctypes.byref(lr)))
        return lr.value

    @property
    @_serialised
    def loss_parts(self):
        """The parts of the last step's loss that the model returns after
        it, {name: value} (waits); empty for a model that returns its loss
        alone."""
        return {name: float(self.read(name))
                for name in self.loss_part_names}

    @property
    def found_inf(self):
        """Whether the last step found inf/NaN gradients and was skipped."""
        return self.result()[1]

    @property
    def scale(self):
        """The loss scale the next step uses (1 without loss scaling)."""
        return self.scaler()[0]

    @property
    def steps(self):
        return self.scaler()[1]

    @property
    def skipped(self):
        return self.scaler()[2]

    # -- data sets --------------------------------------------------------

    def _data_set(self, data, infos, what):
        """``data`` (a dict by input name of arrays whose rows are examples)
        checked against the batch inputs ``infos``: (arrays in their order,
        examples, full batches)."""
        if not infos:
            raise AmpError(f"step '{self.name}' takes no batch inputs to "
                           f"make batches of")
        if not isinstance(data, dict):
            raise AmpError(f"{what} must be a dict of arrays by input name "
                           f"({', '.join(t.name for t in infos)})")
        names = [t.name for t in infos]
        missing = [n for n in names if n not in data]
        unknown = sorted(set(data) - set(names))
        if missing or unknown:
            raise AmpError(f"{what} needs an array for each input {names}; "
                           f"missing {missing}, unknown {unknown}")
        arrays, rows = [], None
        for info in infos:
            array = np.asarray(data[info.name])
            if array.ndim != len(info.shape) or \
                    array.shape[1:] != info.shape[1:]:
                raise AmpError(
                    f"{what}['{info.name}'] must hold rows of shape "
                    f"{list(info.shape[1:])} (one example each); got "
                    f"{list(array.shape)}")
            if rows is not None and len(array) != rows:
                raise AmpError(f"{what}['{info.name}'] holds {len(array)} "
                               f"examples; the others hold {rows}")
            if not np.can_cast(array.dtype, info.dtype, casting="safe"):
                raise AmpError(
                    f"{what}['{info.name}'] is {array.dtype}, which does not "
                    f"convert exactly to input '{info.name}' ({info.type}, "
                    f"{info.dtype}): convert it first, e.g. "
                    f".astype(np.{info.dtype})")
            rows = len(array)
            arrays.append(array)
        batch = infos[0].shape[0]
        if rows < batch:
            raise AmpError(f"{what} holds {rows} examples, fewer than one "
                           f"batch of {batch}")
        return arrays, rows, rows // batch

    def _c_data_set(self, data, infos, what):
        """``data`` checked (_data_set) and laid out for the runtime's
        amp_data_set_t: (the struct, the arrays it points into)."""
        arrays, rows, _ = self._data_set(data, infos, what)
        kept = []
        for info, array in zip(infos, arrays):
            array = np.ascontiguousarray(array, dtype=info.dtype)
            if info.type == "bf16":
                array = float32_to_bf16(array)
            kept.append(array)
        pointers = (ctypes.c_void_p * len(kept))(
            *(a.ctypes.data_as(ctypes.c_void_p).value for a in kept))
        names = (ctypes.c_char_p * len(kept))(
            *(f"{what}['{info.name}']".encode() for info in infos))
        kept += [pointers, names]
        return _DataSet(what.encode(), rows, len(infos), pointers,
                        names), kept

    def _classifies(self):
        """(classes, the labels' position among the evaluation's inputs)
        where the evaluation classifies (amp_step_validate_metrics), or
        None."""
        logits = [t for t in self.eval_outputs if t.name == "logits"
                  and len(t.shape) >= 2 and t.type in ("f32", "f16", "bf16")]
        if not logits:
            return None
        labels = [i for i, t in enumerate(self.eval_inputs)
                  if t.type in ("i32", "i64")
                  and tuple(t.shape) == tuple(logits[0].shape[:-1])]
        # Of several (a language model's tokens and targets), the one named
        # as labels are, as amp_step_validate_metrics picks it.
        named = [i for i in labels if self.eval_inputs[i].name in
                 ("labels", "label", "targets", "target", "y")]
        if len(labels) > 1 and len(named) == 1:
            labels = named
        return (logits[0].shape[-1], labels[0]) if len(labels) == 1 else None

    @_serialised
    def validate_metrics(self, data):
        """(mean loss, accuracy, top-5 accuracy) over every full batch of
        ``data``, in order: validate's loss and, where the evaluation
        classifies (an output named "logits" of [..., classes] and one
        integer batch input of its leading shape: [batch] for [batch,
        classes], a token's [batch, length] for [batch, length, vocab]),
        the share of labels that are the
        first largest logit and among the 5 largest (more than 5 classes);
        NaN where there is no such figure. fit reports them."""
        handle = self._live()
        c_data, kept = self._c_data_set(data, self.eval_inputs, "data")
        loss, accuracy, top5 = (ctypes.c_double() for _ in range(3))
        _check(self._lib, self._lib.amp_step_validate_metrics(
            handle, ctypes.byref(c_data), ctypes.byref(loss),
            ctypes.byref(accuracy), ctypes.byref(top5)))
        del kept
        return loss.value, accuracy.value, top5.value

    @_serialised
    def validate(self, data):
        """The mean loss of the evaluation over every full batch of
        ``data`` (a dict by input name, rows in order), as ``amp-step
        --val-data`` reports it (amp_step_validate); no other thread's
        call runs meanwhile."""
        if not self.has_eval:
            raise AmpError(f"step '{self.name}' was compiled without an "
                           f"evaluation (amp-compile --eval=false)")
        handle = self._live()
        c_data, kept = self._c_data_set(data, self.eval_inputs, "data")
        loss = ctypes.c_double()
        _check(self._lib, self._lib.amp_step_validate(
            handle, ctypes.byref(c_data), ctypes.byref(loss), None))
        del kept
        return loss.value

    def fit(self, data, *, epochs=1, val_data=None, val_every=0,
            print_every=100, shuffle_seed=0, shuffle=True, checkpoint=None,
            checkpoint_every=0, log=None, progress=print,
            allow_nonfinite=False, patience=0, keep_best=0,
            monitor="val_loss"):
        """Trains on a data set as ``amp-step --data`` does, on the same
        batches in the same order: ``data`` maps each batch input's name to
        an array whose rows are examples; each epoch takes them in
        ``epoch_order`` (the last partial batch left out), for ``epochs``
        epochs counted from the step's own counter, so that a step loaded
        from a checkpoint resumes where it stopped. Every ``print_every``
        steps and at the end it hands ``progress`` a line (amp-step's; the
        first one is the run's plan) and records the step, epoch, loss
        (and the parts of it the model returns, by name), scale, skipped
        steps, learning rate and steps/s;
        ``val_data`` adds the validation loss every ``val_every`` steps and
        at the end; ``log`` appends each record to a JSON-lines file;
        ``checkpoint`` saves the state every ``checkpoint_every`` steps
        and at the end. ``patience`` stops training after that many
        validations in a row that do not lower the best validation loss
        (a report says so; the checkpoint is saved); ``keep_best`` keeps
        the states of that many validations of the lowest loss as
        ``<checkpoint>.best-step<S>`` (a count of each run: a resumed run
        counts afresh). Both judge ``monitor``: "val_loss" (lower is
        better), "val_accuracy" or "val_top5_accuracy" (higher is better,
        where the evaluation classifies: see validate_metrics). Returns
        the records.

        Before the first step, ``fit`` checks every row of ``data`` and
        ``val_data`` once, as ``amp-step --data`` does: ids and labels
        against the ranges of the ops that read them, floats for values
        that are not finite. AmpError names the key, the row and the
        value ("data['labels']: row 39 of input 'labels' holds 7, outside
        [0, 5): ..."); nothing has been trained, logged or checkpointed.

        A step without a loss scaler (f32 and bf16 steps) updates its
        parameters with whatever gradients a batch gives, so one inf or NaN
        (finite data can overflow too) makes them NaN for good. ``fit``
        reads such a step's loss after every step and, when it is not
        finite, raises AmpError naming the epoch, the step (numbered as the
        progress lines number them) and the batch, before anything is
        logged or checkpointed for that step: the last checkpoint holds the
        state from before it. ``allow_nonfinite=True`` lets both checks
        pass (the data's floats and the loss) and trains on. A step with a
        scaler skips such steps itself (``skipped``).

        A step joined to ranks (``comm=``) takes, as ``mpirun amp-step``
        does, batch ``k * replicas + rank`` of the epoch's order at its step
        ``k``; rank 0 alone reports, logs and saves checkpoints (each rank
        its own where the step is ``sharded``), and every
        rank checks at the end that the ranks hold the same state.

        ``data`` may also be any iterable of batches, each a dict by input
        name or a tuple in the step's input order, of arrays or tensors (a
        ``torch.utils.data.DataLoader``, a list, a generator): it is then
        iterated once an epoch, ``epochs`` times from the current state, in
        the order it gives (``shuffle`` and ``shuffle_seed`` are its own),
        and ``val_data`` may be one too. A batch of fewer examples than the
        step's compiled batch (a DataLoader's last, without
        ``drop_last=True``) is left out, as ``drop_last`` would, and the
        next report says how many were; a batch of another shape is
        refused. Its rows are checked as they come (ids and labels by
        ``run``), the loss as above; the reports and records are the same."""
        if not isinstance(data, dict):
            if not hasattr(data, "__iter__"):
                raise AmpError(
                    "data must be a dict of arrays by input name, or an "
                    "iterable of batches (dicts by input name or tuples in "
                    f"order: {', '.join(t.name for t in self.inputs)})")
            return self._fit_batches(
                data, epochs=epochs, val_data=val_data, val_every=val_every,
                print_every=print_every, checkpoint=checkpoint,
                checkpoint_every=checkpoint_every, log=log, progress=progress,
                allow_nonfinite=allow_nonfinite, patience=patience,
                keep_best=keep_best, monitor=monitor)
        records, raised = [], []
        leads = self.rank == 0

        def report(_, c_report):
            try:
                line = c_report.contents.line.decode()
                text = c_report.contents.json
                if text is not None:
                    records.append(json.loads(text.decode()))
                if progress and leads:
                    progress(line)
                return 0
            except BaseException as error:  # re-raised after the C call
                raised.append(error)
                return 1

        if val_data is not None and not self.has_eval:
            raise AmpError(f"val_data: step '{self.name}' was compiled "
                           f"without an evaluation (amp-compile "
                           f"--eval=false)")
        c_train, kept = self._c_data_set(data, self.inputs, "data")
        c_val = None
        if val_data is not None:
            c_val, kept_val = self._c_data_set(val_data, self.eval_inputs,
                                               "val_data")
            kept += kept_val
        callback = _FitProgress(report)
        options = _FitOptions(
            epochs, print_every or 0, val_every or 0, checkpoint_every or 0,
            shuffle_seed, int(bool(shuffle)), int(bool(allow_nonfinite)),
            _c_string(checkpoint) if checkpoint else None,
            _c_string(log) if log else None, callback, None,
            patience or 0, keep_best or 0,
            _c_string(monitor) if monitor else None)
        with self._lock:
            handle = self._live()
            status = self._lib.amp_step_fit(
                handle, ctypes.byref(options), ctypes.byref(c_train),
                ctypes.byref(c_val) if c_val is not None else None)
        if raised:
            self._lib.amp_status_free(status)
            raise raised[0]
        _check(self._lib, status)
        del kept
        self.check_replicas()
        return records

    def _batches(self, data, infos, what, epoch):
        """The full batches of one pass over the iterable ``data``, each as
        the arrays of ``infos`` in order, and the count of partial batches
        left out (yielded last, as (None, count))."""
        batch = infos[0].shape[0]
        partial = 0
        for number, item in enumerate(data):
            if isinstance(item, dict):
                try:
                    item = [item[t.name] for t in infos]
                except KeyError as error:
                    raise AmpError(
                        f"{what}: batch {number} of epoch {epoch} has no "
                        f"input {error} (the inputs: "
                        f"{', '.join(t.name for t in infos)})") from None
            elif isinstance(item, (tuple, list)):
                item = list(item)
            else:
                raise AmpError(
                    f"{what}: batch {number} of epoch {epoch} is a "
                    f"{type(item).__name__}; give a dict by input name or a "
                    f"tuple in order ({', '.join(t.name for t in infos)})")
            arrays = [np.asarray(a.detach().cpu() if hasattr(a, "detach")
                                 else a) for a in item]
            if arrays and len(arrays[0]) < batch and all(
                    a.shape[1:] == tuple(t.shape[1:])
                    for a, t in zip(arrays, infos)):
                partial += 1
                continue
            yield arrays, number
        yield None, partial

    def _fit_batches(self, data, *, epochs, val_data, val_every,
                     print_every, checkpoint, checkpoint_every, log,
                     progress, allow_nonfinite, patience, keep_best,
                     monitor):
        """fit over an iterable of batches (see fit)."""
        import time
        records = []
        leads = self.rank == 0
        done, partial, epoch, recorded, stopped = 0, 0, 0, None, False
        if val_data is not None and not self.has_eval:
            raise AmpError(f"val_data: step '{self.name}' was compiled "
                           f"without an evaluation (amp-compile "
                           f"--eval=false)")
        if (patience or keep_best) and val_data is None:
            raise AmpError("patience and keep_best judge validation losses: "
                           "give val_data")
        if keep_best and not checkpoint:
            raise AmpError("keep_best saves beside the checkpoint: give one")
        monitor = monitor or "val_loss"
        if monitor not in ("val_loss", "val_accuracy", "val_top5_accuracy"):
            raise AmpError(f"monitor must be val_loss, val_accuracy or "
                           f"val_top5_accuracy, not '{monitor}'")
        higher = monitor != "val_loss"
        classifies = self._classifies() if self.has_eval else None
        if higher and (patience or keep_best) and (
                not classifies or (monitor == "val_top5_accuracy" and
                                   classifies[0] <= 5)):
            raise AmpError(
                f"monitor={monitor} needs an evaluation that classifies: an "
                f"output named \"logits\" of [..., classes]"
                + (" (more than 5 classes)"
                   if monitor == "val_top5_accuracy" else "")
                + " and integer labels of its leading shape")
        best = {"value": -math.inf if higher else math.inf, "step": 0,
                "stale": 0, "kept": []}

        def better(a, b):
            return a > b if higher else a < b

        def judge():
            """Keeps the best states and says whether to stop early, after
            the validation just recorded (as the runtime's fit does)."""
            value = records[-1].get(monitor, math.nan)
            steps = records[-1]["step"]
            if better(value, best["value"]):
                best.update(value=value, step=steps, stale=0)
            else:
                best["stale"] += 1
            kept = best["kept"]
            if keep_best and (len(kept) < keep_best or
                              any(better(value, k[0]) for k in kept)):
                self.save(f"{checkpoint}.best-step{steps}")
                at = next((i for i, k in enumerate(kept)
                           if better(value, k[0])), len(kept))
                kept.insert(at, (value, steps))
                if len(kept) > keep_best:
                    os.remove(self._state_file(
                        f"{checkpoint}.best-step{kept.pop()[1]}"))
            if patience and best["stale"] >= patience:
                if progress and leads:
                    progress(f"early stop at step {steps}: {monitor} has not "
                             f"improved on {best['value']:.9g} (step "
                             f"{best['step']}) in {patience} validations")
                return True
            return False

        def validation():
            """(mean loss, accuracy, top-5 accuracy; NaN where none), as
            amp_step_validate_metrics gives them."""
            if isinstance(val_data, dict):
                return self.validate_metrics(val_data)
            classifies = self._classifies()
            total, batches, top1, top5, counted = 0.0, 0, 0, 0, 0
            for arrays, number in self._batches(val_data, self.eval_inputs,
                                                "val_data", epoch + 1):
                if arrays is None:
                    continue
                total += self.evaluate(*arrays)  # summed as the runtime does
                batches += 1
                if classifies:
                    # A row per label: [batch, classes], or a token's of
                    # [batch, length, vocab].
                    logits = np.asarray(self.eval_output("logits"),
                                        np.float32)
                    logits = logits.reshape(-1, logits.shape[-1])
                    labels = np.asarray(arrays[classifies[1]]).astype(
                        np.int64).reshape(-1)
                    keep = (labels >= 0) & (labels < logits.shape[1])
                    logits, labels = logits[keep], labels[keep]
                    mine = logits[np.arange(len(labels)), labels]
                    top1 += int((logits.argmax(axis=1) == labels).sum())
                    top5 += int(((logits > mine[:, None]).sum(axis=1)
                                 < 5).sum())
                    counted += len(labels)
            if not batches:
                raise AmpError("val_data gave no full batch")
            nan = float("nan")
            accuracy = top1 / counted if counted else nan
            top = top5 / counted if counted and classifies[0] > 5 else nan
            return total / batches, accuracy, top

        def record(done, validating, partial):
            nonlocal since, since_steps, recorded
            recorded = (done, validating)
            loss, _ = self.result()
            scale, steps, skipped = self.scaler()
            now = time.monotonic()
            rate = (steps - since_steps) / (now - since) if now > since else 0
            since, since_steps = now, steps
            entry = {"step": steps, "epoch": epoch + 1, "loss": loss}
            line = f"epoch {epoch + 1} step {steps} loss {loss:.9g}"
            for name, value in self.loss_parts.items():
                entry[name] = value
                line += f" {name} {value:.9g}"
            if validating:
                val_loss, accuracy, top5 = validation()
                entry["val_loss"] = val_loss
                line += f" val_loss {val_loss:.9g}"
                if accuracy == accuracy:  # not NaN: the step classifies
                    entry["val_accuracy"] = accuracy
                    line += f" val_accuracy {accuracy:.4f}"
                if top5 == top5:
                    entry["val_top5_accuracy"] = top5
                    line += f" val_top5 {top5:.4f}"
            entry.update(scale=scale, skipped=skipped)
            line += f" scale {scale:g} skipped {skipped}"
            if "lr" in self.hparams:
                entry["lr"] = lr = self.current_lr
                line += f" lr {lr:g}"
            entry["steps_per_s"] = round(rate, 3)
            line += f" steps/s {rate:.1f}"
            if partial:
                entry["partial_batches_left_out"] = partial
                line += (f" ({partial} partial batches left out, as "
                         f"drop_last)")
            records.append(entry)
            if leads:
                if progress:
                    progress(line)
                if log:
                    with open(log, "a") as f:
                        f.write(json.dumps(entry) + "\n")

        since, since_steps = time.monotonic(), self.steps
        start = since_steps
        if progress and leads:
            progress(f"data: batches of {self.inputs[0].shape[0]} from "
                     f"{type(data).__name__}, {epochs} epochs; from step "
                     f"{start}")
        for epoch in range(epochs):
            full = 0
            for arrays, number in self._batches(data, self.inputs, "data",
                                                epoch + 1):
                if arrays is None:
                    partial += number
                    continue
                try:
                    self.run(*arrays)
                except AmpError as error:
                    raise AmpError(f"epoch {epoch + 1}, step "
                                   f"{start + done + 1} (batch "
                                   f"{number} of the epoch): {error}") \
                        from None
                done += 1
                full += 1
                if not self.has_loss_scaling and not allow_nonfinite and \
                        not np.isfinite(self.loss):
                    raise AmpError(
                        f"epoch {epoch + 1}, step {start + done} (batch "
                        f"{number} of the epoch): the loss is "
                        f"{self.loss}, and a step without a loss scaler "
                        f"would train on: stopped before it was logged or "
                        f"checkpointed (allow_nonfinite=True trains on)")
                validating = val_data is not None and bool(val_every) and \
                    done % val_every == 0
                if validating or (print_every and done % print_every == 0):
                    record(done, validating, partial)
                    partial = 0
                stopped = validating and judge()
                if stopped:
                    break
                if checkpoint and checkpoint_every and \
                        done % checkpoint_every == 0:
                    self.save(checkpoint)
            if stopped:
                break
            if full == 0:
                raise AmpError(
                    f"data gave no full batch of {self.inputs[0].shape[0]} "
                    f"in epoch {epoch + 1} (a generator runs once: give a "
                    f"list or a DataLoader for more epochs)")
        # After the last step, unless its report was just made.
        if not stopped and (recorded != (done, val_data is not None) or
                            partial):
            record(done, val_data is not None, partial)
            if val_data is not None:
                judge()
        if checkpoint:
            self.save(checkpoint)
        self.check_replicas()
        return records

    # -- PyTorch's state_dict -------------------------------------------

    def _torch_record(self):
        """What a step imported from PyTorch keeps beside its library
        (ImportedModel.compile): {"aliases": {key: [other keys of the same
        tensor]}, "counters": [num_batches_tracked keys], "constants":
        [keys of integer buffers compiled in], "initial_state": [the keys
        of torch_state.npz's arrays, in order]}; empty (and None) for
        other steps."""
        path = self.library.parent / TORCH_NAMES_FILE
        if not path.is_file():
            return {"aliases": {}, "counters": [], "constants": [],
                    "initial_state": None}
        try:
            recorded = json.loads(path.read_text())
            initial = recorded.get("initial_state")
            return {"aliases": dict(recorded.get("aliases", {})),
                    "counters": list(recorded.get("counters", [])),
                    "constants": [str(k) for k in
                                  recorded.get("constants", [])],
                    "initial_state": None if initial is None
                    else [str(k) for k in initial]}
        except (ValueError, AttributeError, TypeError) as error:
            raise AmpError(f"{path} is not a record of PyTorch names: "
                           f"{error}") from None

    @staticmethod
    def _torch_aliases(record):
        """{other key of tied weights: the step's tensor}, from
        _torch_record's `record`."""
        return {alias: name
                for name, others in record["aliases"].items()
                for alias in others}

    def _weights(self):
        return [t for t in self.tensors if t.kind in ("param", "buffer")]

    @_serialised
    def state_dict(self):
        """The parameters and buffers by their names, which for a step
        imported with ampmlir.from_torch are the module's state_dict keys
        (tied weights under each of their keys): torch tensors when PyTorch
        is installed, numpy arrays otherwise, copies in either case, for
        ``module.load_state_dict``. Batch norm's ``num_batches_tracked``
        is the loaded count plus the updates run since (with gradient
        accumulation PyTorch counts each micro-batch). Integer buffers
        compiled into the step as constants (Swin's relative position
        index) are given back as they were at import."""
        try:
            import torch
        except ImportError:
            torch = None
        record = self._torch_record()
        out = {}
        for info in self._weights():
            array = self.read(info.name)
            out[info.name] = torch.from_numpy(array) if torch else array
        for alias, name in self._torch_aliases(record).items():
            out[alias] = out[name]
        # Batch norm's count of batches: as loaded, plus the updates since.
        base, at = getattr(self, "_counted", ({}, 0))
        for key in record["counters"]:
            count = int(base.get(key, 0)) + self.steps - at
            out[key] = (torch.tensor(count, dtype=torch.int64) if torch
                        else np.array(count, dtype=np.int64))
        for key, array in self._torch_constants(record).items():
            out[key] = torch.from_numpy(array) if torch else array
        return out

    def _torch_constants(self, record):
        """{key: array} of the integer buffers compiled into the step."""
        if not record["constants"]:
            return {}
        initial = self._torch_initial_state() or {}
        missing = [k for k in record["constants"] if k not in initial]
        if missing:
            raise AmpError(f"{self.library.parent / TORCH_STATE_FILE} lacks "
                           f"the constants {missing} compiled into the step")
        return {k: initial[k].copy() for k in record["constants"]}

    @_serialised
    def load_state_dict(self, state_dict, strict=True):
        """Sets the parameters and buffers from ``state_dict`` (a module's
        ``state_dict()``, torch tensors or numpy arrays, in f32): the
        parameters a step imported with ampmlir.from_torch starts from, or
        weights trained elsewhere. With ``strict``, raises AmpError unless
        the keys are exactly the step's (the other keys of tied weights
        may be given too, with the same values); nothing is written then.
        Optimizer state and counters are left as they are. Integer buffers
        compiled into the step as constants may be given, with the values
        they were compiled with (AmpError otherwise)."""
        record = self._torch_record()
        aliases = self._torch_aliases(record)
        counters = record["counters"]
        constants = self._torch_constants(record)
        weights = {t.name: t for t in self._weights()}
        arrays = {}
        for key, value in state_dict.items():
            if hasattr(value, "detach"):
                value = value.detach().cpu().numpy()
            arrays[key] = np.asarray(value)
        unknown = sorted(k for k in arrays if k not in weights and
                         k not in aliases and k not in counters and
                         k not in constants)
        missing = sorted(k for k in weights if k not in arrays)
        if strict and (unknown or missing):
            raise AmpError(f"load_state_dict: the state_dict does not match "
                           f"step '{self.name}': missing {missing}, unknown "
                           f"{unknown}")
        for alias, name in aliases.items():
            if alias in arrays and name in arrays and \
                    not np.array_equal(arrays[alias], arrays[name]):
                raise AmpError(f"load_state_dict: {alias} and {name} are one "
                               f"tied tensor in the step, but differ in the "
                               f"state_dict")
        for key, value in constants.items():
            if key in arrays and not (arrays[key].shape == value.shape and
                                      np.array_equal(arrays[key], value)):
                raise AmpError(f"load_state_dict: {key} is compiled into "
                               f"step '{self.name}' as a constant (an "
                               f"integer buffer the model only reads); the "
                               f"state_dict holds another value: import "
                               f"the module again to change it")
        for key, array in arrays.items():
            if key in weights:
                self._memory_of(weights[key], array, "tensor")
        for key, array in arrays.items():
            if key in weights:
                self.write(key, array)
        self._counted = ({k: int(arrays[k]) for k in counters if k in arrays},
                         self.steps)

    # -- state files ------------------------------------------------------

    @_serialised
    def save(self, path):
        """Saves parameters, state and counters atomically to ``path``. A
        step with sharded optimizer state saves this rank's parts: call it
        on every rank; rank r > 0 writes ``path.rank<r>``."""
        _check(self._lib, self._lib.amp_step_save(
            self._live(), _c_string(self._state_file(path))))

    @_serialised
    def load(self, path):
        """Restores a state saved by save(); a truncated, corrupted or
        foreign file raises AmpError and leaves the step as it was. A step
        with sharded optimizer state loads this rank's file."""
        _check(self._lib, self._lib.amp_step_load(
            self._live(), _c_string(self._state_file(path))))
        self.check_replicas()
