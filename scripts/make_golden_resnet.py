#!/usr/bin/env python3
"""Trains examples/resnet.mlir's network in PyTorch (CPU) from the compiled
step's initial weights on the same batches, in fp32 and in f16 AMP, and
records the losses, loss scales and skipped steps for
test/Golden/resnet.test.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python
that runs it, after `make build`; the test reads the file it writes and
never needs PyTorch:

  python scripts/make_golden_resnet.py --out test/Golden/resnet/golden.json

The weights are those amp_step_init gives the compiled step (seed 0), read
through the ampmlir package and loaded into the PyTorch module by their
names (the model's arguments are named as its state_dict); the batches are
ampmlir.data.images(seed=1), 50 of 16 images, one per step; batch norm's
running statistics are recorded after 15 steps too. Both sides
train with SGD (lr 0.05, momentum 0.9, weight decay 5e-4), batch norm in
training mode. The fp32 runs: PyTorch as is, and with channels_last
tensors (other convolution kernels, so other roundings), whose distance
from each other is the spread of PyTorch's own fp32 training. The f16 AMP
runs use torch.autocast("cpu", float16) and GradScaler(init_scale=65536,
growth_interval=5), so that the scale grows into overflows within the 50
steps; three variants of PyTorch's own give the spread the compiled step is
held to: autocast as is, autocast with channels_last tensors, and autocast
with every batch norm fed f32.
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("AMP_MLIR_BIN", os.path.join(ROOT, "build", "bin"))
from ampmlir import data  # noqa: E402
from ampmlir.compiler import compile as compile_model  # noqa: E402

STEPS = 50
# The running statistics are recorded after this many steps, while the runs
# still agree to rounding.
BUFFERS_AT = 15
SGD = dict(lr=0.05, momentum=0.9, weight_decay=5e-4)
SCALER = dict(init_scale=65536.0, growth_interval=5)


class Block(nn.Module):
    def __init__(self, cin, cout, stride, norm):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = norm(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = norm(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(
                nn.Conv2d(cin, cout, 1, stride, bias=False), norm(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        shortcut = x if self.downsample is None else self.downsample(x)
        return F.relu(out + shortcut)


class Fp32BatchNorm(nn.BatchNorm2d):
    """Batch norm fed f32 under autocast: the variant that keeps the
    normalisation's input and output wide."""

    def forward(self, x):
        with torch.autocast("cpu", enabled=False):
            return super().forward(x.float())


class ResNet8(nn.Module):
    def __init__(self, norm=nn.BatchNorm2d):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.bn1 = norm(16)
        self.layer1 = nn.Sequential(Block(16, 16, 1, norm))
        self.layer2 = nn.Sequential(Block(16, 32, 2, norm))
        self.layer3 = nn.Sequential(Block(32, 64, 2, norm))
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(x.mean(dim=(2, 3)))


def initial_weights():
    """The compiled step's parameters and buffers after amp_step_init(0)."""
    with tempfile.TemporaryDirectory() as work:
        compiled = compile_model(os.path.join(ROOT, "examples", "resnet.mlir"),
                                 os.path.join(work, "f32"), compute_type="f32",
                                 optimizer="sgd", evaluation=False)
        with compiled.load("host") as step:
            step.init(seed=0)
            return {t.name: step.read(t.name).copy() for t in step.tensors
                    if t.kind in ("param", "buffer")}


def train(weights, batches, amp, norm=nn.BatchNorm2d, channels_last=False):
    model = ResNet8(norm)
    state = model.state_dict()
    for name, value in weights.items():
        assert state[name].shape == value.shape, name
        state[name] = torch.from_numpy(value)
    model.load_state_dict(state)
    model.train()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), **SGD)
    scaler = torch.amp.GradScaler("cpu", **SCALER) if amp else None
    losses, scales, skipped = [], [], []
    for step, (x, labels) in enumerate(batches):
        x = torch.from_numpy(x)
        if channels_last:
            x = x.to(memory_format=torch.channels_last)
        labels = torch.from_numpy(labels)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
            loss = F.cross_entropy(model(x), labels)
        losses.append(float(loss.detach()))
        if amp:
            scales.append(float(scaler.get_scale()))
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            if scaler.get_scale() < scales[-1]:
                skipped.append(step)
        else:
            loss.backward()
            optimizer.step()
        if step + 1 == BUFFERS_AT:
            buffers = {name: value.tolist() for name, value in
                       model.state_dict().items() if "running" in name}
    return {"losses": losses, "scales": scales, "skipped": skipped,
            "buffers": buffers}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.use_deterministic_algorithms(True)
    weights = initial_weights()
    batches = data.images(seed=1, batches=STEPS)
    golden = {
        "torch": torch.__version__, "steps": STEPS, "buffers_at": BUFFERS_AT,
        "sgd": SGD,
        "scaler": SCALER,
        "fp32": {
            "default": train(weights, batches, amp=False),
            "channels_last": train(weights, batches, amp=False,
                                   channels_last=True),
        },
        "amp": {
            "autocast": train(weights, batches, amp=True),
            "channels_last": train(weights, batches, amp=True,
                                   channels_last=True),
            "fp32_batch_norm": train(weights, batches, amp=True,
                                     norm=Fp32BatchNorm),
        },
    }
    for kind in ("fp32", "amp"):
        for name, run in golden[kind].items():
            print(f"{kind} {name}: loss {run['losses'][0]:.6f} -> "
                  f"{run['losses'][-1]:.6f}, skipped {run['skipped']}")
    with open(args.out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
