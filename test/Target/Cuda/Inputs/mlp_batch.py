"""Writes a batch of the MLP example (x: 64x784 f32 in [-1, 1), labels: 64
i64 classes below 10) as DIR/x.npy and DIR/labels.npy, drawn from SEED;
with BAD, label BAD is 10, one past the last class.

usage: mlp_batch.py DIR SEED [BAD]
"""

import os
import sys

import numpy as np

directory, seed = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(seed)
os.makedirs(directory, exist_ok=True)
np.save(os.path.join(directory, "x.npy"),
        rng.uniform(-1, 1, (64, 784)).astype(np.float32))
labels = rng.integers(0, 10, 64).astype(np.int64)
if len(sys.argv) > 3:
    labels[int(sys.argv[3])] = 10
np.save(os.path.join(directory, "labels.npy"), labels)
