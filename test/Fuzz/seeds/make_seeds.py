# Writes the fuzz target's seeds for the runtime's readers and the
# pipeline's options into a directory (this one by default):
#
#   state-*.ampstate  state files of the fuzz target's hand step (its entry
#                     table: the names and sizes below, in order), most with
#                     a right CRC and values no step produces
#   npy-*.npy         .npy files: good ones and the header forms readers
#                     disagree on
#   options-*.opts    "amp-train-step:" and an option string
#
# The files are checked in beside this script; this test checks that they
# are what it writes, so that a change to one shows in the other.
#
# RUN: rm -rf %t && %python %s %t && diff -r -x make_seeds.py %t %S
import math
import pathlib
import struct
import sys
import zlib

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
out.mkdir(parents=True, exist_ok=True)


# --- State files -------------------------------------------------------------

def f32(*values):
    return struct.pack(f"<{len(values)}f", *values)


def f64(*values):
    return struct.pack(f"<{len(values)}d", *values)


# The hand step's state, in its order, with the values of a run of 3 steps.
GOOD_STATE = [
    (b"w", f32(0.25, -0.5, 1.0)),
    (b"w.exp_avg", f32(0.01, -0.02, 0.03)),
    (b"w.exp_avg_sq", f32(1e-4, 4e-4, 9e-4)),
    (b"loss_scale", f32(65536.0)),
    (b"step", f32(3.0)),
    (b"growth_tracker", f32(3.0)),
    (b"hysteresis_tracker", f32(2.0)),
    (b"lr", f64(0.001)),
    (b"amp.counters", f64(3.0, 0.0)),
]


def state(changes=None):
    """A state file with a right CRC-32, `changes` replacing entries' bytes."""
    changes = changes or {}
    body = b"AMPSTATE" + struct.pack("<II", 1, len(GOOD_STATE))
    for name, data in GOOD_STATE:
        data = changes.get(name, data)
        body += struct.pack("<I", len(name)) + name
        body += struct.pack("<Q", len(data)) + data
    return body + struct.pack("<I", zlib.crc32(body))


nan, inf = math.nan, math.inf
good_state = state()
states = {
    "good": good_state,
    "scale-nan": state({b"loss_scale": f32(nan)}),
    "scale-zero": state({b"loss_scale": f32(0.0)}),
    "scale-negative": state({b"loss_scale": f32(-1.0)}),
    "scale-inf": state({b"loss_scale": f32(inf)}),
    "counters-1e300": state({b"amp.counters": f64(1e300, 1e301)}),
    "counters-nan": state({b"amp.counters": f64(nan, 0.0)}),
    "step-negative": state({b"step": f32(-1.0)}),
    "growth-huge": state({b"growth_tracker": f32(1e30)}),
    "second-moment-negative": state({b"w.exp_avg_sq": f32(1e-4, -4e-4, 9e-4)}),
    "lr-nan": state({b"lr": f64(nan)}),
    "truncated": good_state[: len(good_state) // 2],
    "bad-crc": good_state[:-4] + struct.pack("<I", zlib.crc32(good_state[:-4]) ^ 1),
}
for name, data in states.items():
    (out / f"state-{name}.ampstate").write_bytes(data)


# --- .npy files --------------------------------------------------------------

def npy(header, data, version=1):
    """A .npy file: `header` (the dictionary's text) padded to 64 bytes."""
    header = header.encode()
    prefix = 10 if version == 1 else 12
    header += b" " * ((64 - (prefix + len(header) + 1) % 64) % 64) + b"\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header + data


def header(descr, shape, fortran="False"):
    return f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}"


six = f32(1, 2, 3, 4, 5, 6)
npys = {
    "good-f32": npy(header("<f4", "(2, 3)"), six),
    "good-i64": npy(header("<i8", "(4,)"), struct.pack("<4q", 0, 1, -2, 3)),
    "version-2": npy(header("<f4", "(2, 3)"), six, version=2),
    "descr-twice": npy("{'descr': '<f4', 'descr': '<i8', 'fortran_order': False, "
                       "'shape': (3,), }", f32(1, 2, 3)),
    "leading-zero": npy(header("<f4", "(040, 3)"), six),
    "fortran-order": npy(header("<f4", "(2, 3)", fortran="True"), six),
    "big-endian": npy(header(">f4", "(2, 3)"), struct.pack(">6f", 1, 2, 3, 4, 5, 6)),
    "i64-2-53-plus-1": npy(header("<i8", "(2,)"), struct.pack("<2q", 2**53 + 1, -(2**53) - 1)),
    "scalar-f64": npy(header("<f8", "()"), f64(0.5)),
    "huge-shape": npy(header("<f4", "(4294967296, 4294967296)"), six),
    "short-data": npy(header("<f4", "(2, 3)"), six[:-1]),
}
for name, data in npys.items():
    (out / f"npy-{name}.npy").write_bytes(data)


# --- Option strings ----------------------------------------------------------

options = {
    "growth-huge": "growth-factor=1e300 growth-interval=1",
    "f16-extremes": "compute-type=f16 init-scale=1e38 backoff-factor=1e-300",
    "accumulate-2-25": "accumulate=33554432",
    "weight-decay-negative": "optimizer=adamw weight-decay=-1",
    "min-scale-nan": "min-scale=nan",
    "max-grad-norm-inf": "max-grad-norm=inf",
    "adamw-momentum": "optimizer=adamw momentum=0.9",
    "adamw-eps-inf": "optimizer=adamw eps=inf",
    "good": "compute-type=bf16 optimizer=adamw max-grad-norm=1.0 accumulate=2",
}
for name, text in options.items():
    (out / f"options-{name}.opts").write_bytes(f"amp-train-step:{text}\n".encode())
