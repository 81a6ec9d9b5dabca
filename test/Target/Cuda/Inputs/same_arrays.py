"""Exits non-zero unless each pair of .npy files given (A1 B1 A2 B2 ...)
holds arrays of the same dtype and shape with the same bits."""

import sys

import numpy as np

paths = sys.argv[1:]
if not paths or len(paths) % 2:
    sys.exit("usage: same_arrays.py A1 B1 [A2 B2 ...]")
for a_path, b_path in zip(paths[::2], paths[1::2]):
    a, b = np.load(a_path), np.load(b_path)
    if a.dtype != b.dtype or a.shape != b.shape:
        sys.exit(f"{a_path} is {a.dtype} {a.shape}, "
                 f"{b_path} is {b.dtype} {b.shape}")
    bits_a = a.reshape(-1).view(np.uint8).reshape(a.size, -1)
    bits_b = b.reshape(-1).view(np.uint8).reshape(b.size, -1)
    differ = np.flatnonzero((bits_a != bits_b).any(axis=1))
    if differ.size:
        at = differ[0]
        sys.exit(f"{a_path} and {b_path} differ at {differ.size} elements, "
                 f"first at flat index {at}: {a.reshape(-1)[at]!r} vs "
                 f"{b.reshape(-1)[at]!r}")
