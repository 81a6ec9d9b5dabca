"""Compares the examples two evaluations at different batch sizes wrote
(eval/NAME.npy of amp-step --output-dir, the batches one after another):
the rows both hold, the first min(len(A), len(B)), must be equal bit for
bit. Prints how many rows were compared and how many each file holds.

usage: same_rows.py A.npy B.npy
"""

import sys

import numpy as np

a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
rows = min(len(a), len(b))
if a.shape[1:] != b.shape[1:] or a.dtype != b.dtype:
    sys.exit(f"rows of {a.shape[1:]} {a.dtype} and {b.shape[1:]} {b.dtype}")
differ = np.flatnonzero((a[:rows].view(np.uint8) != b[:rows].view(np.uint8))
                        .reshape(rows, -1).any(axis=1))
print(f"{rows} rows compared ({len(a)} and {len(b)} in the files), "
      f"{len(differ)} differ")
sys.exit(1 if len(differ) else 0)
