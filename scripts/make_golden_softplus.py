#!/usr/bin/env python3
"""Records PyTorch's softplus and its gradient, for amp.softplus.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python that
runs it; the test (test/Golden/softplus.test) reads the files and never needs
PyTorch:

  python make_golden_softplus.py --out test/Golden/softplus

Writes x.npy ([4, 16] f32: a seeded uniform in [-40, 40), which crosses the
threshold of 20, with 0, 20, 20.5 and -20 placed by hand) and weights.npy
([4, 16] f32, a seeded uniform in [-1, 1)), and from
torch.nn.functional.softplus (beta 1, threshold 20) in float64, stored as
float32: y.npy (softplus(x)) and grad.npy (d sum(softplus(x) * weights) /
d x).
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
    x = rng.uniform(-40, 40, size=(4, 16)).astype(np.float32)
    x[0, :4] = [0.0, 20.0, 20.5, -20.0]
    weights = rng.uniform(-1, 1, size=(4, 16)).astype(np.float32)
    np.save(os.path.join(args.out, "x.npy"), x)
    np.save(os.path.join(args.out, "weights.npy"), weights)

    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = F.softplus(xt)
    (y * torch.tensor(weights, dtype=torch.float64)).sum().backward()
    np.save(os.path.join(args.out, "y.npy"),
            y.detach().numpy().astype(np.float32))
    np.save(os.path.join(args.out, "grad.npy"),
            xt.grad.numpy().astype(np.float32))
    print(f"torch {torch.__version__}: softplus(0) = {y[0, 0].item():.9g}")


if __name__ == "__main__":
    main()
