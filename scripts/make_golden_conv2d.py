#!/usr/bin/env python3
"""Records PyTorch's conv2d and its gradients, for amp.conv2d.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python that
runs it; the test (test/Golden/conv2d.test) reads the files and never needs
PyTorch:

  python make_golden_conv2d.py --out test/Golden/conv2d

Writes one directory per case (plain, strided, depthwise, grouped; see
CASES), each holding x.npy (the NCHW input), w.npy (the OIHW weight), b.npy
(the bias, where the case has one) and g.npy (weights of the output's
shape), all f32 drawn from one seeded uniform in [-1, 1), in that order, case
after case; and from torch.nn.functional.conv2d in float64, stored as
float32: y.npy (conv2d(x, w, b)) and dx.npy, dw.npy, db.npy (the gradients
of sum(conv2d(x, w, b) * g) in x, w and b). Padding [top, left, bottom,
right] is F.pad(x, (left, right, top, bottom)) followed by conv2d without
padding, as amp.conv2d reads it.
"""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F

# name: (x shape, w shape, bias, strides, padding, dilations, groups).
# padding: [pad_h, pad_w] (symmetric) or [top, left, bottom, right].
CASES = [
    ("plain", (2, 3, 8, 8), (4, 3, 3, 3), True, (1, 1), (1, 1), (1, 1), 1),
    ("strided", (2, 4, 9, 7), (6, 4, 3, 2), False, (2, 1), (1, 0, 2, 1),
     (2, 1), 1),
    ("depthwise", (2, 4, 6, 6), (4, 1, 3, 3), True, (1, 1), (1, 1), (1, 1), 4),
    ("grouped", (1, 4, 5, 5), (6, 2, 3, 3), False, (2, 2), (0, 0), (1, 1), 2),
]


def output_shape(x_shape, w_shape, strides, padding, dilations):
    top, left, bottom, right = explicit(padding)
    n, _, h, w = x_shape
    o, _, kh, kw = w_shape
    oh = (h + top + bottom - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (w + left + right - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    return (n, o, oh, ow)


def explicit(padding):
    if len(padding) == 2:
        return (padding[0], padding[1], padding[0], padding[1])
    return tuple(padding)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    rng = np.random.default_rng(20261125)
    for (name, x_shape, w_shape, has_bias, strides, padding, dilations,
         groups) in CASES:
        out = os.path.join(args.out, name)
        os.makedirs(out, exist_ok=True)
        y_shape = output_shape(x_shape, w_shape, strides, padding, dilations)
        inputs = {
            "x": rng.uniform(-1, 1, size=x_shape).astype(np.float32),
            "w": rng.uniform(-1, 1, size=w_shape).astype(np.float32),
        }
        if has_bias:
            inputs["b"] = rng.uniform(-1, 1, size=w_shape[:1]).astype(
                np.float32)
        inputs["g"] = rng.uniform(-1, 1, size=y_shape).astype(np.float32)
        for key, value in inputs.items():
            np.save(os.path.join(out, key + ".npy"), value)

        t = {key: torch.tensor(value, dtype=torch.float64,
                               requires_grad=key != "g")
             for key, value in inputs.items()}
        if len(padding) == 2:
            xp, conv_padding = t["x"], tuple(padding)
        else:
            top, left, bottom, right = padding
            xp, conv_padding = F.pad(t["x"], (left, right, top, bottom)), 0
        y = F.conv2d(xp, t["w"], t.get("b"), stride=strides,
                     padding=conv_padding, dilation=dilations, groups=groups)
        assert tuple(y.shape) == y_shape, (name, y.shape, y_shape)
        (y * t["g"]).sum().backward()
        np.save(os.path.join(out, "y.npy"),
                y.detach().numpy().astype(np.float32))
        for key in ("x", "w", "b"):
            if key in t:
                np.save(os.path.join(out, "d" + key + ".npy"),
                        t[key].grad.numpy().astype(np.float32))
        print(f"torch {torch.__version__}: {name}: y {list(y_shape)}, "
              f"y[0, 0, 0, 0] = {y[0, 0, 0, 0].item():.9g}")


if __name__ == "__main__":
    main()
