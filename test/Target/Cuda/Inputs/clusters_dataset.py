"""Writes a classification data set for examples/mlp.mlir into DIR:
train_x.npy / train_y.npy (TRAIN examples) and val_x.npy / val_y.npy
(VAL examples), 784 features around one prototype per class (normal
entries of deviation 0.1) with unit normal noise, 10 classes.

It also prints the accuracy on the validation set of the nearest-prototype
rule, the best any classifier can do here (equal, isotropic Gaussians):
the ceiling against which a test's threshold is set.

usage: clusters_dataset.py DIR TRAIN VAL
"""

import os
import sys

import numpy as np

directory, train, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(0)
prototypes = 0.1 * rng.normal(size=(10, 784))


def make(count):
    labels = rng.integers(0, 10, size=count)
    x = prototypes[labels] + rng.normal(size=(count, 784))
    return x.astype(np.float32), labels.astype(np.int64)


os.makedirs(directory, exist_ok=True)
for part, count in (("train", train), ("val", val)):
    x, y = make(count)
    np.save(os.path.join(directory, f"{part}_x.npy"), x)
    np.save(os.path.join(directory, f"{part}_y.npy"), y)
distances = ((x[:, None, :] - prototypes[None]) ** 2).sum(axis=-1)
print(f"nearest-prototype accuracy {(distances.argmin(axis=1) == y).mean():.4f}")
