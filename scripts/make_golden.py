#!/usr/bin/env python3
"""Records PyTorch's gradients and optimizer steps for the example models.

Run once, with PyTorch (CPU is enough) and NumPy installed in the Python that
runs it; the test suite reads the files it writes and never needs PyTorch:

  python make_golden.py --amp-run build/bin/amp-run --out test/Golden [NAME...]

(NAME: the directories to write, all by default.)

For each example, the inputs are the seeded ones amp-run makes
(`--random-inputs=1 --scale=0.1`, saved with `--save-inputs`), so the tests
regenerate them instead of storing them. Written per model, in
<out>/<model>/:
  grad<i>.npy    d loss / d argument i, for every parameter argument i
  loss.npy       the loss at the inputs
  losses.npy     the loss before each of 10 optimizer steps
  param<i>.npy   parameter i after those 10 steps
The MLP trains with torch.optim.SGD(lr=0.1, momentum=0.9) (mlp/), with
SGD(lr=0.1, momentum=0.9, weight_decay=0.05) (mlp_sgd_decay/) and with
Adam(lr=1e-2, weight_decay=0.1) (mlp_adam/); the GPT block with
torch.optim.AdamW(lr=1e-2) and clip_grad_norm_(1.0) (gpt_block/), and with
the GPT recipe's param_groups (gpt_block_groups/): AdamW(lr=1e-2,
weight_decay=0.1) decaying the weight matrices, no decay on the biases,
norm parameters and position embedding, the token embedding at lr=5e-3,
the rates of both following CosineAnnealingLR(T_max=10, eta_min=1e-3),
and clip_grad_norm_(1.0).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def signature(model_path):
    """Argument names in order, and which are parameters."""
    text = open(model_path).read()
    header = text[text.index("func.func"):text.index("->")]
    args = re.findall(r"%(\w+): tensor<[^>]*>( \{amp.param\})?", header)
    return [(name, bool(param)) for name, param in args]


def load_inputs(amp_run, model_path, directory):
    subprocess.run([amp_run, model_path, "--random-inputs=1", "--scale=0.1",
                    "--print-limit=0", f"--save-inputs={directory}"],
                   check=True, capture_output=True)
    args = signature(model_path)
    values = {}
    for i, (name, _) in enumerate(args):
        values[name] = torch.from_numpy(np.load(os.path.join(directory,
                                                             f"arg{i}.npy")))
    return args, values


def mlp_loss(v):
    hidden = F.relu(v["x"] @ v["w1"] + v["b1"])
    logits = hidden @ v["w2"] + v["b2"]
    return F.cross_entropy(logits, v["labels"])


def gpt_loss(v):
    b, t = v["tokens"].shape
    c = v["wte"].shape[1]
    h = 4
    x0 = v["wte"][v["tokens"]] + v["wpe"]
    ln1 = F.layer_norm(x0, (c,), v["ln1_scale"], v["ln1_bias"], eps=1e-5)
    qkv = ln1 @ v["attn_qkv_w"] + v["attn_qkv_b"]
    q, k, val = qkv.split(c, dim=2)
    split = lambda z: z.reshape(b, t, h, c // h).transpose(1, 2)
    attn = F.scaled_dot_product_attention(split(q), split(k), split(val),
                                          is_causal=True)
    merged = attn.transpose(1, 2).reshape(b, t, c)
    x1 = x0 + merged @ v["attn_proj_w"] + v["attn_proj_b"]
    ln2 = F.layer_norm(x1, (c,), v["ln2_scale"], v["ln2_bias"], eps=1e-5)
    fc = F.gelu(ln2 @ v["mlp_fc_w"] + v["mlp_fc_b"], approximate="tanh")
    x2 = x1 + fc @ v["mlp_proj_w"] + v["mlp_proj_b"]
    lnf = F.layer_norm(x2, (c,), v["lnf_scale"], v["lnf_bias"], eps=1e-5)
    logits = lnf @ v["wte"].t()
    return F.cross_entropy(logits.reshape(b * t, -1),
                           v["targets"].reshape(b * t))


def gpt_groups(named):
    """The GPT recipe: decay on matrices; none on biases, norm parameters
    (rank 1) or the position embedding; the token embedding slower. The
    compiled step's param-groups=no_decay:rank<2|wpe:weight_decay=0;
    embed:wte:lr=5e-3 says the same."""
    no_decay = [t for n, t in named.items() if t.dim() < 2 or n == "wpe"]
    decay = [t for n, t in named.items()
             if t.dim() >= 2 and n not in ("wpe", "wte")]
    return torch.optim.AdamW([
        {"params": decay},
        {"params": no_decay, "weight_decay": 0.0},
        {"params": [named["wte"]], "lr": 5e-3},
    ], lr=1e-2, weight_decay=0.1)


# Directory: (example, loss, optimizer of the named parameters, gradient
# clipping norm, learning-rate scheduler of the optimizer or None).
MODELS = {
    "mlp": ("mlp", mlp_loss,
            lambda p: torch.optim.SGD(p.values(), lr=0.1, momentum=0.9),
            None, None),
    "mlp_sgd_decay": ("mlp", mlp_loss,
                      lambda p: torch.optim.SGD(p.values(), lr=0.1,
                                                momentum=0.9,
                                                weight_decay=0.05),
                      None, None),
    "mlp_adam": ("mlp", mlp_loss,
                 lambda p: torch.optim.Adam(p.values(), lr=1e-2,
                                            weight_decay=0.1),
                 None, None),
    "gpt_block": ("gpt_block", gpt_loss,
                  lambda p: torch.optim.AdamW(p.values(), lr=1e-2), 1.0,
                  None),
    "gpt_block_groups": (
        "gpt_block", gpt_loss, gpt_groups, 1.0,
        lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(
            o, T_max=10, eta_min=1e-3)),
}


def record(amp_run, name, out):
    example, loss_fn, make_optimizer, clip, make_scheduler = MODELS[name]
    model_path = os.path.join(ROOT, "examples", f"{example}.mlir")
    with tempfile.TemporaryDirectory() as tmp:
        args, values = load_inputs(amp_run, model_path, tmp)
    params = [(i, n) for i, (n, is_param) in enumerate(args) if is_param]
    for _, n in params:
        values[n].requires_grad_(True)
    directory = os.path.join(out, name)
    os.makedirs(directory, exist_ok=True)

    loss = loss_fn(values)
    loss.backward()
    np.save(os.path.join(directory, "loss.npy"),
            loss.detach().numpy().astype(np.float32))
    for i, n in params:
        np.save(os.path.join(directory, f"grad{i}.npy"),
                values[n].grad.numpy().astype(np.float32))

    optimizer = make_optimizer({n: values[n] for _, n in params})
    scheduler = make_scheduler(optimizer) if make_scheduler else None
    losses = []
    for _ in range(10):
        optimizer.zero_grad()
        loss = loss_fn(values)
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_([values[n] for _, n in params], clip)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(loss.item())
    np.save(os.path.join(directory, "losses.npy"),
            np.array(losses, dtype=np.float32))
    for i, n in params:
        np.save(os.path.join(directory, f"param{i}.npy"),
                values[n].detach().numpy().astype(np.float32))
    print(f"{name}: loss {losses[0]:.6f} -> {losses[-1]:.6f} after 10 steps")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amp-run", required=True)
    parser.add_argument("--out", default=os.path.join(ROOT, "test", "Golden"))
    parser.add_argument("names", nargs="*", choices=[[]] + list(MODELS),
                        help="the directories to write (default: all)")
    args = parser.parse_args()
    torch.manual_seed(0)
    print(f"PyTorch {torch.__version__}")
    for name in args.names or MODELS:
        record(args.amp_run, name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
