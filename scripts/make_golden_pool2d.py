#!/usr/bin/env python3
"""Records PyTorch's max_pool2d and avg_pool2d and their gradients, for
amp.max_pool2d and amp.avg_pool2d.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python that
runs it; the tests (test/Golden/max-pool2d.test, avg-pool2d.test) read the
files and never need PyTorch:

  python make_golden_pool2d.py --out test/Golden

Writes one directory per case (see CASES) under max_pool2d/ or avg_pool2d/,
each holding x.npy (the NCHW input) and g.npy (weights of the output's
shape), f32 from one seeded generator, case after case; and from
torch.nn.functional.max_pool2d or avg_pool2d (count_include_pad=True, its
default) in float64, stored as float32: y.npy (the pooling of x) and dx.npy
(the gradient of sum(pool(x) * g) in x). The `ties` case draws x from the
integers -2..2, so that most windows hold equal maxima: PyTorch passes the
gradient to the first of them in (kh, kw) order, as amp.max_pool2d_grad
does.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F

# op, name: (x shape, kernel, strides (None: the kernel), padding,
# dilations, integer inputs).
CASES = [
    ("max", "plain", (2, 3, 6, 6), (2, 2), None, (0, 0), (1, 1), False),
    ("max", "overlapping", (2, 2, 7, 7), (3, 3), (2, 2), (1, 1), (1, 1),
     False),
    ("max", "dilated", (1, 2, 5, 6), (2, 3), (1, 2), (1, 1), (2, 1), False),
    ("max", "ties", (2, 2, 6, 6), (3, 3), (1, 1), (1, 1), (1, 1), True),
    ("avg", "plain", (2, 3, 6, 6), (2, 2), None, (0, 0), (1, 1), False),
    ("avg", "padded", (2, 2, 7, 5), (3, 3), (2, 1), (1, 1), (1, 1), False),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    rng = np.random.default_rng(20261128)
    for op, name, shape, kernel, strides, padding, dilations, ties in CASES:
        out = os.path.join(args.out, f"{op}_pool2d", name)
        os.makedirs(out, exist_ok=True)
        if ties:
            x = rng.integers(-2, 3, size=shape).astype(np.float32)
        else:
            x = rng.uniform(-1, 1, size=shape).astype(np.float32)
        xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        if op == "max":
            y = F.max_pool2d(xt, kernel, stride=strides or kernel,
                             padding=padding, dilation=dilations)
        else:
            y = F.avg_pool2d(xt, kernel, stride=strides or kernel,
                             padding=padding)
        g = rng.uniform(-1, 1, size=tuple(y.shape)).astype(np.float32)
        (y * torch.tensor(g, dtype=torch.float64)).sum().backward()
        for file, value in [("x", x), ("g", g),
                            ("y", y.detach().numpy()),
                            ("dx", xt.grad.numpy())]:
            np.save(os.path.join(out, f"{file}.npy"), value.astype(np.float32))
        print(f"{op} {name}: x {list(shape)} -> y {list(y.shape)}")
    print(f"torch {torch.__version__}")


if __name__ == "__main__":
    main()
