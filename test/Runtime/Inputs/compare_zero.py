"""Compares a run with sharded optimizer state (zero-stage=1) with an
unsharded run, bit for bit, from what rank 0 of each wrote with
--output-dir:
- each parameter the sharded step holds in f16 or bf16 is the unsharded
  f32 parameter rounded to nearest even, as the step's casts round (numpy's
  for f16; for bf16, which amp-step writes as its bits, '<u2', here), each
  f32 one is the same bits;
- each part (`<param>.master`, `<param>.exp_avg`, ...) is rank 0's part of
  the unsharded tensor (`<param>`, `<param>.exp_avg`, ...): its first
  ceil(elements / REPLICAS) elements, flattened;
- every other file both runs wrote is the same bits.
Prints what it compared; exits with status 1 at the first difference.

usage: compare_zero.py SHARDED_DIR UNSHARDED_DIR REPLICAS PARAM...
"""

import os
import sys

import numpy as np

sharded, whole, replicas = sys.argv[1], sys.argv[2], int(sys.argv[3])
params = sys.argv[4:]


def load(directory, name):
    return np.load(os.path.join(directory, name + ".npy"))


def bf16_bits(values):
    """The bits of `values` (f32) rounded to bf16, to nearest even."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def same(a, b, what):
    if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
        diff = np.abs(a.astype(np.float64) - b.astype(np.float64)).max() \
            if a.shape == b.shape else "shapes differ"
        sys.exit(f"{what}: differs ({a.dtype}{a.shape} against "
                 f"{b.dtype}{b.shape}; largest difference {diff})")


compared = 0
for param in params:
    full = load(whole, param)
    held = load(sharded, param)
    if held.dtype == np.float32:
        same(held, full, param)
    elif held.dtype == np.uint16:
        same(held, bf16_bits(full), f"{param} (rounded to bf16)")
    else:
        same(held, full.astype(held.dtype), f"{param} (rounded)")
    compared += 1
    size = -(-full.size // replicas)
    for role in ("master", "exp_avg", "exp_avg_sq", "momentum_buffer"):
        path = os.path.join(sharded, f"{param}.{role}.npy")
        if not os.path.exists(path):
            continue
        source = param if role == "master" else f"{param}.{role}"
        part = load(sharded, f"{param}.{role}")
        expected = np.zeros(size, np.float32)
        flat = load(whole, source).reshape(-1)[:size]
        expected[:flat.size] = flat
        same(part, expected, f"{param}.{role} (rank 0's part)")
        compared += 1
shared = set(os.listdir(sharded)) & set(os.listdir(whole))
for name in sorted(shared):
    stem = name[:-len(".npy")]
    if stem in params or any(stem.startswith(p + ".") for p in params):
        continue
    same(load(sharded, stem), load(whole, stem), stem)
    compared += 1
print(f"{compared} tensors the same")
