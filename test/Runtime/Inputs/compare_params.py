"""Compares the parameters two runs wrote with --output-dir: for each NAME,
the relative 2-norm of the difference ||A - B|| / ||B||, printed, and a
failure (exit status 1) if any is above TOLERANCE.

usage: compare_params.py DIR_A DIR_B TOLERANCE NAME...
"""

import sys

import numpy as np

first, second, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
worst = 0.0
for name in sys.argv[4:]:
    a = np.load(f"{first}/{name}.npy").astype(np.float64)
    b = np.load(f"{second}/{name}.npy").astype(np.float64)
    if a.shape != b.shape:
        sys.exit(f"{name}: shapes {a.shape} and {b.shape} differ")
    relative = np.linalg.norm(a - b) / np.linalg.norm(b)
    worst = max(worst, relative)
    print(f"{name}: relative difference {relative:.3g}")
print(f"largest {worst:.3g}, tolerance {tolerance:g}")
sys.exit(0 if worst <= tolerance else 1)
