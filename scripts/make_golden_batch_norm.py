#!/usr/bin/env python3
"""Records PyTorch's batch_norm, its running statistics and its gradients,
for amp.batch_norm.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python that
runs it; the test (test/Golden/batch-norm.test) reads the files and never
needs PyTorch:

  python make_golden_batch_norm.py --out test/Golden

Writes one directory per case (see CASES) under batch_norm/, each holding
f32 inputs from one seeded generator, case after case: x.npy (the input),
weight.npy and bias.npy (the affine parameters, where the case has them),
mean.npy and var.npy (the running statistics before), g.npy (weights of the
output's shape); and from torch.nn.functional.batch_norm in float64, stored
as float32: y.npy, new_mean.npy and new_var.npy (the running statistics
after, which F.batch_norm updates in place in training mode: the unbiased
variance), and dx.npy, dweight.npy, dbias.npy (the gradients of
sum(batch_norm(x) * g)).
"""
import argparse
import os

import numpy as np
import torch
import torch.nn.functional as F

# name: (x shape, affine, training, momentum, eps).
CASES = [
    ("train_images", (4, 3, 5, 5), True, True, 0.1, 1e-5),
    ("train_rows", (6, 4), False, True, 0.2, 1e-3),
    ("eval_images", (2, 3, 4, 4), True, False, 0.1, 1e-5),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    rng = np.random.default_rng(20261128)
    for name, shape, affine, training, momentum, eps in CASES:
        out = os.path.join(args.out, "batch_norm", name)
        os.makedirs(out, exist_ok=True)
        channels = shape[1]
        f32 = lambda *s: rng.uniform(-1, 1, size=s).astype(np.float32)
        # Activations off centre and not of unit spread, as a layer's are.
        x = (f32(*shape) * 2 + 0.5).astype(np.float32)
        mean = f32(channels)
        var = rng.uniform(0.5, 1.5, size=channels).astype(np.float32)
        files = {"x": x, "mean": mean, "var": var}
        xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        weight = bias = None
        if affine:
            files["weight"] = f32(channels)
            files["bias"] = f32(channels)
            weight = torch.tensor(files["weight"], dtype=torch.float64,
                                  requires_grad=True)
            bias = torch.tensor(files["bias"], dtype=torch.float64,
                                requires_grad=True)
        running_mean = torch.tensor(mean, dtype=torch.float64)
        running_var = torch.tensor(var, dtype=torch.float64)
        y = F.batch_norm(xt, running_mean, running_var, weight, bias,
                         training=training, momentum=momentum, eps=eps)
        files["g"] = f32(*shape)
        (y * torch.tensor(files["g"], dtype=torch.float64)).sum().backward()
        files["y"] = y.detach().numpy()
        files["new_mean"] = running_mean.numpy()
        files["new_var"] = running_var.numpy()
        files["dx"] = xt.grad.numpy()
        if affine:
            files["dweight"] = weight.grad.numpy()
            files["dbias"] = bias.grad.numpy()
        for file, value in files.items():
            np.save(os.path.join(out, f"{file}.npy"), value.astype(np.float32))
        print(f"{name}: x {list(shape)}, training {training}")
    print(f"torch {torch.__version__}")


if __name__ == "__main__":
    main()
