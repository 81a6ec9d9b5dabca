#!/usr/bin/env python3
"""Trains the three gradient-penalty recipes in PyTorch (CPU) as written and
records their losses, loss scales and skipped steps for
test/Golden/penalty.test.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python
that runs it, after `make build`; the test reads the file it writes and
never needs PyTorch:

  python scripts/make_golden_penalty.py --out test/Golden/penalty/golden.json

The models are test/Golden/Inputs/{penalty_l2,wgan_gp,r1}.mlir, written out
below as PyTorch code: a two-layer tanh network (a classifier for the L2
gradient-norm penalty, a critic or discriminator for WGAN-GP and R1). Their
inputs (the weights and the batch, the same batch every step) are amp-run's
seeded ones (`--random-inputs=1 --scale=0.1 --index-bound=4`, saved with
`--save-inputs`), so the test regenerates them instead of storing them.

Each recipe trains STEPS steps of SGD (lr LR, momentum 0.9):
- fp32: as written; and the same in f64, whose distance from the f32 run is
  PyTorch's own f32 rounding (the floor a comparison in f32 can hold);
- f16 AMP: torch.autocast("cpu", float16) and GradScaler(**SCALER), the
  inner gradient taken of the scaled loss and multiplied by 1 / scale
  before the penalty, the penalty under autocast, as PyTorch's AMP
  examples write the gradient penalty.
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = 20
LR = 0.01
SCALER = dict(init_scale=2.0**16, growth_interval=3)

# The arguments of each model, in order; True marks a parameter.
MODELS = {
    "penalty_l2": ("l2_penalty", [("x", False), ("labels", False),
                                  ("w1", True), ("b1", True), ("w2", True),
                                  ("b2", True)]),
    "wgan_gp": ("wgan_gp", [("real", False), ("fake", False), ("mix", False),
                            ("w1", True), ("b1", True), ("w2", True),
                            ("b2", True)]),
    "r1": ("r1", [("real", False), ("fake", False), ("w1", True),
                  ("b1", True), ("w2", True), ("b2", True)]),
}


def load_inputs(amp_run, name, directory):
    path = os.path.join(ROOT, "test", "Golden", "Inputs", name + ".mlir")
    subprocess.run([amp_run, path, "--random-inputs=1", "--scale=0.1",
                    "--index-bound=4", "--print-limit=0",
                    f"--save-inputs={directory}"],
                   check=True, capture_output=True)
    values = {}
    for i, (arg, _) in enumerate(MODELS[name][1]):
        values[arg] = torch.from_numpy(
            np.load(os.path.join(directory, f"arg{i}.npy")))
    return values


def net(z, p):
    return torch.tanh(z @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]


def inner_grad(value, inputs, scaler):
    """The recipe's inner gradient: of the scaled value, then unscaled."""
    if scaler is None:
        return torch.autograd.grad(value, inputs, create_graph=True)
    scaled = torch.autograd.grad(scaler.scale(value), inputs,
                                 create_graph=True)
    inv_scale = 1. / scaler.get_scale()
    return [g * inv_scale for g in scaled]


def l2_penalty(p, batch, scaler, amp):
    params = [p[n] for n in ("w1", "b1", "w2", "b2")]
    with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
        loss = F.cross_entropy(net(batch["x"], p), batch["labels"])
    grad_params = inner_grad(loss, params, scaler)
    with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
        grad_norm = 0
        for grad in grad_params:
            grad_norm += grad.pow(2).sum()
        grad_norm = grad_norm.sqrt()
        loss = loss + grad_norm
    return loss


def wgan_gp(p, batch, scaler, amp):
    real, fake, mix = batch["real"], batch["fake"], batch["mix"]
    with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
        wasserstein = net(fake, p).mean() - net(real, p).mean()
    interpolates = (mix * real + (1 - mix) * fake).requires_grad_(True)
    with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
        critic = net(interpolates, p)
    (gradients,) = inner_grad(critic.sum(), [interpolates], scaler)
    with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
        penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean() * 10
        loss = wasserstein + penalty
    return loss


def r1(p, batch, scaler, amp):
    real = batch["real"].clone().requires_grad_(True)
    fake = batch["fake"]
    with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
        d_real = net(real, p)
        d_fake = net(fake, p)
        adversarial = (F.softplus(-d_real).mean() +
                       F.softplus(d_fake).mean())
    (grad_real,) = inner_grad(d_real.sum(), [real], scaler)
    with torch.autocast("cpu", dtype=torch.float16, enabled=amp):
        penalty = grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1)
        loss = adversarial + 5.0 * penalty.mean()
    return loss


RECIPES = {"penalty_l2": l2_penalty, "wgan_gp": wgan_gp, "r1": r1}


def train(name, inputs, dtype=torch.float32, amp=False):
    params = {arg: inputs[arg].to(dtype).clone().requires_grad_(True)
              for arg, is_param in MODELS[name][1] if is_param}
    batch = {arg: (inputs[arg].to(dtype) if inputs[arg].is_floating_point()
                   else inputs[arg])
             for arg, is_param in MODELS[name][1] if not is_param}
    optimizer = torch.optim.SGD(list(params.values()), lr=LR, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", **SCALER) if amp else None
    losses, scales, skipped = [], [], []
    for step in range(STEPS):
        optimizer.zero_grad(set_to_none=True)
        loss = RECIPES[name](params, batch, scaler, amp)
        losses.append(loss.item())
        if scaler is None:
            loss.backward()
            optimizer.step()
            continue
        scale = scaler.get_scale()
        scales.append(scale)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if scaler.get_scale() < scale:
            skipped.append(step)
    return {"losses": losses, "scales": scales, "skipped": skipped}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amp-run",
                        default=os.path.join(ROOT, "build", "bin", "amp-run"))
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.use_deterministic_algorithms(True)
    golden = {"pytorch": torch.__version__, "steps": STEPS, "lr": LR,
              "momentum": 0.9, "scaler": SCALER}
    for name in MODELS:
        with tempfile.TemporaryDirectory() as directory:
            inputs = load_inputs(args.amp_run, name, directory)
        fp32 = train(name, inputs)
        fp64 = train(name, inputs, dtype=torch.float64)
        floor = max(abs(a - b) / abs(b)
                    for a, b in zip(fp32["losses"], fp64["losses"]))
        amp = train(name, inputs, amp=True)
        golden[name] = {"fp32": fp32["losses"], "fp64": fp64["losses"],
                        "fp32_vs_fp64": floor, "f16": amp}
        print(f"{name}: fp32 {fp32['losses'][0]:.6f} -> "
              f"{fp32['losses'][-1]:.6f} (f32 vs f64 {floor:.2e}); f16 "
              f"skipped {amp['skipped']}, scale {amp['scales'][0]:g} -> "
              f"{amp['scales'][-1]:g}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
