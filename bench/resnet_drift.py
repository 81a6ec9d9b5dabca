#!/usr/bin/env python3
"""How far fp32 training of examples/resnet.mlir drifts from exact
arithmetic, ours and PyTorch's, over test/Golden/resnet.test's 50 steps:

  python bench/resnet_drift.py

needs PyTorch (CPU) and NumPy, and a build (build/bin). Trains the network
from the compiled step's initial weights on ampmlir.data.images(seed=1) with
SGD (lr 0.05, momentum 0.9, weight decay 5e-4), as
scripts/make_golden_resnet.py does: PyTorch in fp32, in fp32 with
channels_last tensors and in f64 (the computation without rounding, to
rounding of f64), and the compiled host step in fp32. Prints, for each pair
of runs, the largest relative loss difference over the 50 steps and the
first step where it exceeds 1e-5. bench/results/resnet-vs-torch-*.md
records the figures.
"""
import os
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("AMP_MLIR_BIN", os.path.join(ROOT, "build", "bin"))
import make_golden_resnet as golden  # noqa: E402
from ampmlir import data  # noqa: E402
from ampmlir.compiler import compile as compile_model  # noqa: E402


def torch_losses(weights, batches, dtype, channels_last=False):
    model = golden.ResNet8().to(dtype)
    state = model.state_dict()
    for name, value in weights.items():
        state[name] = torch.from_numpy(value.astype(np.float64)).to(dtype)
    model.load_state_dict(state)
    model.train()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), **golden.SGD)
    losses = []
    for x, labels in batches:
        x = torch.from_numpy(x).to(dtype)
        if channels_last:
            x = x.to(memory_format=torch.channels_last)
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), torch.from_numpy(labels))
        losses.append(float(loss.detach()))
        loss.backward()
        optimizer.step()
    return losses


def our_losses(batches):
    sgd = golden.SGD
    options = (f"lr={sgd['lr']} momentum={sgd['momentum']} "
               f"weight-decay={sgd['weight_decay']}")
    with tempfile.TemporaryDirectory() as work:
        compiled = compile_model(os.path.join(ROOT, "examples", "resnet.mlir"),
                                 os.path.join(work, "f32"), compute_type="f32",
                                 optimizer="sgd", train_options=options,
                                 evaluation=False)
        losses = []
        with compiled.load("host") as step:
            step.init(seed=0)
            for batch in batches:
                step.run(*batch)
                losses.append(step.loss)
    return losses


def compare(name, run, reference):
    relative = [abs(a - b) / abs(b) for a, b in zip(run, reference)]
    first = next((i for i, r in enumerate(relative) if r > 1e-5), None)
    print(f"{name:42s} max {max(relative):.2e}  first > 1e-5: step {first}")


def main():
    torch.use_deterministic_algorithms(True)
    weights = golden.initial_weights()
    batches = data.images(seed=1, batches=golden.STEPS)
    runs = {
        "PyTorch fp32": torch_losses(weights, batches, torch.float32),
        "PyTorch fp32 channels_last": torch_losses(weights, batches,
                                                   torch.float32,
                                                   channels_last=True),
        "PyTorch f64": torch_losses(weights, batches, torch.float64),
        "ours fp32": our_losses(batches),
    }
    for name, losses in runs.items():
        print(f"{name:42s} loss {losses[0]:.6f} -> {losses[-1]:.6f}")
    print("largest relative loss difference over", golden.STEPS, "steps:")
    for a, b in (("ours fp32", "PyTorch fp32"),
                 ("PyTorch fp32 channels_last", "PyTorch fp32"),
                 ("PyTorch fp32", "PyTorch f64"),
                 ("PyTorch fp32 channels_last", "PyTorch f64"),
                 ("ours fp32", "PyTorch f64")):
        compare(f"{a} vs {b}", runs[a], runs[b])


if __name__ == "__main__":
    main()
