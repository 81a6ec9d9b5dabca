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


def images(batches=32, batch=16, classes=10, size=32, noise=0.8, seed=0):
    """For examples/resnet.mlir: [batch, 3, size, size] RGB images, one
    pattern per class: a sum of three random sinusoidal gratings per channel
    (random orientation, frequency and phase), shifted in brightness and
    scaled in contrast per image, under normal noise of deviation
    ``noise``; labels are the classes (int64). No single pixel tells the
    class: a network must match oriented textures, which convolutions do, so
    the loss starts near ln(classes) and falls over a few hundred steps."""
    rng = np.random.default_rng(seed)
    ys, xs = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
    patterns = np.zeros((classes, 3, size, size))
    for c in range(classes):
        for channel in range(3):
            for _ in range(3):
                angle = rng.uniform(0, np.pi)
                frequency = rng.uniform(0.1, 0.6)
                phase = rng.uniform(0, 2 * np.pi)
                patterns[c, channel] += np.cos(
                    frequency * (np.cos(angle) * xs + np.sin(angle) * ys)
                    + phase)
    patterns /= patterns.std(axis=(1, 2, 3), keepdims=True)
    out = []
    for _ in range(batches):
        labels = rng.integers(0, classes, size=batch)
        contrast = rng.uniform(0.5, 1.5, size=(batch, 1, 1, 1))
        brightness = rng.normal(scale=0.5, size=(batch, 1, 1, 1))
        x = (contrast * patterns[labels] + brightness
             + noise * rng.normal(size=(batch, 3, size, size)))
        out.append((x.astype(np.float32), labels.astype(np.int64)))
    return out
