"""Learnable data sets for the example models, made here from a seed: no
downloads. Each is a list of batches in the step's input order."""

import numpy as np


def clusters(batches=32, batch=64, features=784, classes=10, separation=0.1,
             noise=1.0, seed=0):
    """For examples/mlp.mlir: samples around one random prototype per class
    (normal entries of deviation ``separation``) with normal noise of
    deviation ``noise``; labels are the classes (int64). The classes
    separate, but only when the model weighs all features together: the
    loss starts near ln(classes) and falls over a few hundred steps."""
    rng = np.random.default_rng(seed)
    prototypes = separation * rng.normal(size=(classes, features))
    out = []
    for _ in range(batches):
        labels = rng.integers(0, classes, size=batch)
        x = prototypes[labels] + noise * rng.normal(size=(batch, features))
        out.append((x.astype(np.float32), labels.astype(np.int64)))
    return out


def progressions(batches=32, batch=4, length=32, vocabulary=128,
                 strides=(1, 2, 3, 5, 7), seed=0):
    """For examples/gpt_block.mlir: token sequences that step through the
    vocabulary by a stride chosen per sequence (t[j] = t[0] + j*stride mod
    vocabulary); the targets are the next tokens. After two tokens of a
    sequence the next one is determined, so a model that attends to the
    previous tokens can drive the loss towards ln(len(strides))/length per
    token."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(batches):
        start = rng.integers(0, vocabulary, size=(batch, 1))
        stride = rng.choice(strides, size=(batch, 1))
        positions = np.arange(length + 1)[None, :]
        sequence = (start + stride * positions) % vocabulary
        out.append((sequence[:, :-1].astype(np.int64),
                    sequence[:, 1:].astype(np.int64)))
    return out
