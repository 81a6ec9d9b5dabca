"""Train a PyTorch model with the compiled f16 AMP step, then hand the
weights back to PyTorch.

    .venv/bin/python python/examples/train_from_pytorch.py [--steps 100]

A small classifier written in PyTorch is imported with ampmlir.from_torch,
compiled into an f16 training step with dynamic loss scaling, started from
the module's own weights, trained on generated data, and its trained
weights are loaded back into the module, which then evaluates them.
"""

import argparse
import tempfile
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

import ampmlir


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 64), nn.GELU(),
                                  nn.LayerNorm(64), nn.Linear(64, 4))

    def forward(self, x):
        return self.body(x)


def loss_fn(model, x, labels):
    return F.cross_entropy(model(x), labels)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--out", type=Path,
                        default=Path(tempfile.mkdtemp(prefix="ampmlir-")))
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Classifier()
    # Four clusters in 32 dimensions, one per class.
    centers = torch.randn(4, 32) * 2
    labels = torch.randint(0, 4, (2048,))
    x = centers[labels] + torch.randn(2048, 32)

    imported = ampmlir.from_torch(model, (x[:64], labels[:64]), loss=loss_fn,
                                  name="classifier")
    print(f"imported {len(imported.parameters)} parameters: "
          f"{', '.join(imported.parameters)}")
    compiled = imported.compile(args.out, compute_type="f16",
                                optimizer="adamw", train_options="lr=0.003")
    with torch.no_grad():
        before = loss_fn(model, x, labels).item()
    with compiled.load() as step:
        step.init(seed=0)  # from the module's weights
        for k in range(args.steps):
            start = (k * 64) % 2048
            step.run(x[start:start + 64].numpy(),
                     labels[start:start + 64].numpy())
        print(f"trained {args.steps} steps: loss {step.loss:.4f}, "
              f"scale {step.scale:g}, skipped {step.skipped}")
        model.load_state_dict(step.state_dict())
    with torch.no_grad():
        after = loss_fn(model, x, labels).item()
        accuracy = (model(x).argmax(1) == labels).float().mean().item()
    print(f"PyTorch evaluates the trained weights: loss {before:.3f} -> "
          f"{after:.3f}, accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
