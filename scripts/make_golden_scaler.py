#!/usr/bin/env python3
"""Records torch.amp.GradScaler's scale and growth-tracker sequence for a
scripted pattern of overflowing and clean steps.

Run once with PyTorch installed; the test suite reads the JSON it writes:

  python make_golden_scaler.py > test/Golden/grad_scaler.json

A one-parameter model is trained with SGD under GradScaler("cpu"); on the
steps marked 1 its gradient is made infinite. After every step the scale
and the growth tracker are recorded.
"""
import json
import sys

import torch

PATTERN = [0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1]
CONFIG = dict(init_scale=1024.0, growth_factor=2.0, backoff_factor=0.5,
              growth_interval=3)


def main():
    param = torch.nn.Parameter(torch.ones(()))
    optimizer = torch.optim.SGD([param], lr=0.1)
    scaler = torch.amp.GradScaler("cpu", **CONFIG)
    scales, trackers = [], []
    for overflow in PATTERN:
        optimizer.zero_grad()
        factor = float("inf") if overflow else 1.0
        loss = param * factor
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scales.append(scaler.get_scale())
        trackers.append(int(scaler._growth_tracker.item()))
    json.dump({"torch": torch.__version__, "config": CONFIG,
               "found_inf": PATTERN, "scale": scales,
               "growth_tracker": trackers}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
