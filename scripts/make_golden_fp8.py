#!/usr/bin/env python3
"""Trains test/Golden/Inputs/fp8_mlp.mlir in PyTorch (CPU) with torchao's
float8 "tensorwise" recipe written out, and in bf16, and records the losses
and each FP8 GEMM's scales for test/Golden/fp8.test.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python
that runs it, after `make build`; the test reads the file it writes and
never needs PyTorch:

  python scripts/make_golden_fp8.py --out test/Golden/fp8/golden.json

The model is a four-layer perceptron (128 -> 256 -> 256 -> 128 -> 16,
ReLU, GELU, ReLU, cross-entropy); its inputs are amp-run's seeded ones
(`--random-inputs=1 --scale=0.1 --index-bound=16`), so the test regenerates
them instead of storing them. It trains STEPS steps of SGD (lr LR, momentum
0.9) three ways:

- bf16: every layer in bf16 (each product summed in f32, rounded once),
  cross-entropy in f32, f32 master weights;
- fp8: the same, with the two middle layers as FP8 GEMMs as the recipe
  computes them: each operand scaled by s = f32(max / max(amax, 1e-12)),
  saturated, cast to float8_e4m3fn (forward) or float8_e5m2 (the
  gradient), the f32 product of the FP8 values times (1/s_a)(1/s_b), plus
  the bias, rounded to bf16; the backward GEMMs read the gradient in e5m2
  and the other operand in e4m3 (the HYBRID formats);
- fp8 again with the products summed in f64: how far the recipe itself
  moves with the order of its sums (the spread a comparison can hold);
- fp8 with Transformer Engine's delayed scaling written out
  (DelayedScaling(margin=0, amax_history_len=HISTORY, amax_compute_algo=
  "max")): each layer holds the scales of x, w and the gradient (starting
  at 1) and an amax history (HISTORY rows, starting at 0); the casts use
  the scales the state holds and record each tensor's amax; after each
  step row 0 takes the amaxes, an overflow (amax * scale past the format's
  largest value) is counted, the history rolls up a row (row 0 emptied)
  and each scale becomes max / (the history's largest amax) where that is
  finite and positive. The losses, and each layer's scales, history and
  overflow counts after the last step, are recorded.
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
MODEL = os.path.join(ROOT, "test", "Golden", "Inputs", "fp8_mlp.mlir")
STEPS = 20
HISTORY = 32
LR = 0.1
ARGS = ["x", "labels", "w1", "b1", "w2", "b2", "w3", "b3", "w4", "b4"]
E4M3, E5M2 = torch.float8_e4m3fn, torch.float8_e5m2
BF16 = torch.bfloat16


def load_inputs(amp_run, directory):
    subprocess.run([amp_run, MODEL, "--random-inputs=1", "--scale=0.1",
                    "--index-bound=16", "--print-limit=0",
                    f"--save-inputs={directory}"],
                   check=True, capture_output=True)
    return {name: torch.from_numpy(np.load(os.path.join(directory,
                                                        f"arg{i}.npy")))
            for i, name in enumerate(ARGS)}


def quantize(x, dtype):
    """x (bf16) scaled, saturated and cast to `dtype`: the FP8 values as
    f32, the inverse scale, and the scale."""
    amax = x.abs().max().to(torch.float64)
    top = torch.finfo(dtype).max
    scale = (top / torch.clamp(amax, min=1e-12)).to(torch.float32)
    scaled = (x.to(torch.float32) * scale).clamp(-top, top)
    return scaled.to(dtype).to(torch.float32), scale.reciprocal(), scale


def quantize_with(x, dtype, scale):
    """x scaled by a given f32 scale, saturated and cast to `dtype`: the
    FP8 values as f32, and x's amax (f32)."""
    top = torch.finfo(dtype).max
    scaled = (x.to(torch.float32) * scale).clamp(-top, top)
    return (scaled.to(dtype).to(torch.float32),
            x.to(torch.float32).abs().max())


class DelayedState:
    """One FP8 layer's delayed-scaling state: x, w and the gradient."""

    TOPS = [torch.finfo(E4M3).max, torch.finfo(E4M3).max,
            torch.finfo(E5M2).max]

    def __init__(self, history):
        self.scale = torch.ones(3, dtype=torch.float32)
        self.history = torch.zeros(history, 3, dtype=torch.float32)
        self.overflows = torch.zeros(3, dtype=torch.float32)
        self.amax = torch.zeros(3, dtype=torch.float32)

    def update(self):
        for c in range(3):
            top = torch.tensor(self.TOPS[c], dtype=torch.float32)
            amax = self.amax[c]
            if not bool(amax * self.scale[c] <= top):
                self.overflows[c] += 1
            column = self.history[:, c].clone()
            column[0] = amax
            finite = column[~torch.isnan(column)]
            used = torch.maximum(finite.max(), torch.tensor(0.0)) \
                if finite.numel() else torch.tensor(0.0)
            rolled = torch.cat([torch.zeros(1), column[2:], column[:1]]) \
                if len(column) > 1 else torch.zeros(1)
            self.history[:, c] = rolled
            if bool(torch.isfinite(used)) and bool(used > 0):
                self.scale[c] = top / used


def product(a, b, wide):
    return (a.double() @ b.double()).float() if wide else a @ b


class Fp8Linear(torch.autograd.Function):
    """x @ w + b with x and w in e4m3, the gradient in e5m2."""

    @staticmethod
    def forward(ctx, x, w, b, wide, scales):
        qx, ix, sx = quantize(x, E4M3)
        qw, iw, sw = quantize(w, E4M3)
        scales.append([sx.item(), sw.item()])
        ctx.save_for_backward(x, w)
        ctx.wide = wide
        out = product(qx, qw, wide) * (ix * iw) + b.float()
        return out.to(BF16)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        qg, ig, _ = quantize(g, E5M2)
        qx, ix, _ = quantize(x, E4M3)
        qw, iw, _ = quantize(w, E4M3)
        dx = (product(qg, qw.t(), ctx.wide) * (ig * iw)).to(BF16)
        dw = (product(qx.t(), qg, ctx.wide) * (ix * ig)).to(BF16)
        db = g.float().sum(0).to(BF16)
        return dx, dw, db, None, None


class DelayedFp8Linear(torch.autograd.Function):
    """x @ w + b as Fp8Linear, cast with the scales `state` holds, the
    amaxes recorded for its update."""

    @staticmethod
    def forward(ctx, x, w, b, state):
        qx, state.amax[0] = quantize_with(x, E4M3, state.scale[0])
        qw, state.amax[1] = quantize_with(w, E4M3, state.scale[1])
        ctx.save_for_backward(qx, qw)
        ctx.state = state
        inverse = state.scale.reciprocal()
        out = (qx @ qw) * (inverse[0] * inverse[1]) + b.float()
        return out.to(BF16)

    @staticmethod
    def backward(ctx, g):
        qx, qw = ctx.saved_tensors
        state = ctx.state
        qg, state.amax[2] = quantize_with(g, E5M2, state.scale[2])
        inverse = state.scale.reciprocal()
        dx = ((qg @ qw.t()) * (inverse[2] * inverse[1])).to(BF16)
        dw = ((qx.t() @ qg) * (inverse[0] * inverse[2])).to(BF16)
        db = g.float().sum(0).to(BF16)
        return dx, dw, db, None


def linear(x, w, b):
    return (x.float() @ w.float() + b.float()).to(BF16)


def forward(p, batch, fp8, wide, scales, delayed=None):
    cast = {name: p[name].to(BF16) for name in p}
    h = linear(batch["x"].to(BF16), cast["w1"], cast["b1"]).relu()
    if delayed:
        h = DelayedFp8Linear.apply(h, cast["w2"], cast["b2"], delayed[0])
    elif fp8:
        h = Fp8Linear.apply(h, cast["w2"], cast["b2"], wide, scales)
    else:
        h = linear(h, cast["w2"], cast["b2"])
    h = F.gelu(h.float()).to(BF16)
    if delayed:
        h = DelayedFp8Linear.apply(h, cast["w3"], cast["b3"], delayed[1])
    elif fp8:
        h = Fp8Linear.apply(h, cast["w3"], cast["b3"], wide, scales)
    else:
        h = linear(h, cast["w3"], cast["b3"])
    h = h.relu()
    logits = linear(h, cast["w4"], cast["b4"])
    return F.cross_entropy(logits.float(), batch["labels"])


def train(inputs, fp8, wide=False, delayed=None):
    params = {name: inputs[name].clone().requires_grad_(True)
              for name in ARGS[2:]}
    batch = {"x": inputs["x"], "labels": inputs["labels"]}
    optimizer = torch.optim.SGD(list(params.values()), lr=LR, momentum=0.9)
    losses, scales = [], []
    for _ in range(STEPS):
        optimizer.zero_grad(set_to_none=True)
        step_scales = []
        loss = forward(params, batch, fp8, wide, step_scales, delayed)
        losses.append(loss.item())
        scales.append(step_scales)
        loss.backward()
        for state in delayed or []:
            state.update()
        optimizer.step()
    return losses, scales


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amp-run",
                        default=os.path.join(ROOT, "build", "bin", "amp-run"))
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    torch.use_deterministic_algorithms(True)
    with tempfile.TemporaryDirectory() as directory:
        inputs = load_inputs(args.amp_run, directory)
    bf16, _ = train(inputs, fp8=False)
    fp8, scales = train(inputs, fp8=True)
    fp8_wide, _ = train(inputs, fp8=True, wide=True)
    layers = [DelayedState(HISTORY), DelayedState(HISTORY)]
    delayed, _ = train(inputs, fp8=True, delayed=layers)
    spread = max(abs(a - b) / abs(b) for a, b in zip(fp8, fp8_wide))
    distance = max(abs(a - b) / abs(b) for a, b in zip(fp8, bf16))
    golden = {"pytorch": torch.__version__, "steps": STEPS, "lr": LR,
              "momentum": 0.9, "bf16": bf16, "fp8": fp8,
              "fp8_f64_sums": fp8_wide, "fp8_spread": spread,
              "fp8_vs_bf16": distance, "fp8_scales": scales,
              "fp8_delayed": {
                  "history": HISTORY, "losses": delayed,
                  "state": {name: {"scale": state.scale.tolist(),
                                   "amax_history": state.history.tolist(),
                                   "overflows": state.overflows.tolist()}
                            for name, state in zip(["w2", "w3"], layers)}}}
    print(f"bf16 {bf16[0]:.6f} -> {bf16[-1]:.6f}; fp8 {fp8[0]:.6f} -> "
          f"{fp8[-1]:.6f}; fp8 sums in f64 vs f32 {spread:.2e}; fp8 vs "
          f"bf16 {distance:.2e}; delayed {delayed[0]:.6f} -> "
          f"{delayed[-1]:.6f}, overflows "
          f"{[state.overflows.tolist() for state in layers]}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
