#!/usr/bin/env python3
"""Records PyTorch's cross-entropy with ignore_index, for amp.cross_entropy.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python that
runs it; the test (test/Golden/cross-entropy.test) reads the files and never
needs PyTorch:

  python make_golden_cross_entropy.py --out test/Golden/cross_entropy

Writes logits.npy ([2, 6, 5] f32, a seeded uniform in [-3, 3)) and
labels.npy ([2, 6] i64, with PyTorch's padding label -100 in four places),
and for each reduction R in mean, sum: loss_R.npy (the loss) and grad_R.npy
(d loss / d logits), from torch.nn.functional.cross_entropy on the flattened
rows with ignore_index=-100, in float64 and stored as float32.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    rng = np.random.default_rng(20261124)
    logits = rng.uniform(-3, 3, size=(2, 6, 5)).astype(np.float32)
    labels = rng.integers(0, 5, size=(2, 6)).astype(np.int64)
    labels[0, 1] = labels[0, 4] = labels[1, 0] = labels[1, 5] = -100
    np.save(os.path.join(args.out, "logits.npy"), logits)
    np.save(os.path.join(args.out, "labels.npy"), labels)

    for reduction in ("mean", "sum"):
        x = torch.tensor(logits, dtype=torch.float64, requires_grad=True)
        loss = F.cross_entropy(x.reshape(-1, 5), torch.tensor(labels).reshape(-1),
                               ignore_index=-100, reduction=reduction)
        loss.backward()
        np.save(os.path.join(args.out, f"loss_{reduction}.npy"),
                np.array(loss.item(), dtype=np.float32))
        np.save(os.path.join(args.out, f"grad_{reduction}.npy"),
                x.grad.numpy().astype(np.float32))
        print(f"{reduction}: loss {loss.item():.9g}")


if __name__ == "__main__":
    main()
