#!/usr/bin/env python3
"""Records PyTorch's adaptive_avg_pool2d and its gradient, for
amp.adaptive_avg_pool2d.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python that
runs it; the test (test/Golden/adaptive-avg-pool2d.test) reads the files and
never needs PyTorch:

  python make_golden_adaptive_pool2d.py --out test/Golden

Writes one directory per case (see CASES) under adaptive_avg_pool2d/, each
holding x.npy (the NCHW input) and g.npy (weights of the output's shape),
f32 from one seeded generator, case after case; and from
torch.nn.functional.adaptive_avg_pool2d in float64, stored as float32: y.npy
(the pooling of x) and dx.npy (the gradient of sum(pool(x) * g) in x).
"""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F

# name: (x shape, output size). global and tiled have windows that tile
# the image; uneven's differ in size and overlap; upsample's output is
# larger than its input, so that windows repeat input positions.
CASES = [
    ("global", (2, 3, 6, 6), (1, 1)),
    ("tiled", (2, 2, 8, 6), (4, 3)),
    ("uneven", (2, 3, 5, 7), (3, 2)),
    ("upsample", (1, 2, 2, 3), (3, 4)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    rng = np.random.default_rng(20261128)
    for name, shape, size in CASES:
        out = os.path.join(args.out, "adaptive_avg_pool2d", name)
        os.makedirs(out, exist_ok=True)
        x = rng.uniform(-1, 1, size=shape).astype(np.float32)
        xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        y = F.adaptive_avg_pool2d(xt, size)
        g = rng.uniform(-1, 1, size=tuple(y.shape)).astype(np.float32)
        (y * torch.tensor(g, dtype=torch.float64)).sum().backward()
        for file, value in [("x", x), ("g", g),
                            ("y", y.detach().numpy()),
                            ("dx", xt.grad.numpy())]:
            np.save(os.path.join(out, f"{file}.npy"), value.astype(np.float32))
        print(f"{name}: x {list(shape)} -> y {list(y.shape)}")
    print(f"torch {torch.__version__}")


if __name__ == "__main__":
    main()
