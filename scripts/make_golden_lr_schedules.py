#!/usr/bin/env python3
"""Records torch.optim.lr_scheduler's learning rates over 10,000 steps for
the schedules amp-optimizer compiles (docs/training.md).

Run once with PyTorch installed; the test suite reads the JSON it writes:

  python make_golden_lr_schedules.py > test/Golden/lr_schedules.json

Each schedule drives an SGD optimizer the usual way (optimizer.step(), then
scheduler.step()); the rate the t-th update uses is recorded for every
7th t and for the steps next to each schedule's milestones. The
parameters are the names of the step's hyperparameters.
"""
import json
import sys
import warnings

import torch

STEPS = 10000
LR = 0.1

SCHEDULES = [
    ("linear_warmup", dict(warmup_steps=500, warmup_start_factor=0.01)),
    ("cosine", dict(decay_steps=STEPS, min_lr=1e-4)),
    ("cosine", dict(decay_steps=STEPS, min_lr=0.0)),
    ("step", dict(step_size=1500, gamma=0.5)),
    ("warmup_cosine", dict(warmup_steps=300, warmup_start_factor=1 / 3,
                           decay_steps=STEPS - 300, min_lr=1e-5)),
]


def scheduler(kind, p, optimizer):
    lr = torch.optim.lr_scheduler
    warmup = lambda: lr.LinearLR(optimizer, p["warmup_start_factor"], 1.0,
                                 total_iters=p["warmup_steps"])
    cosine = lambda: lr.CosineAnnealingLR(optimizer, T_max=p["decay_steps"],
                                          eta_min=p["min_lr"])
    if kind == "linear_warmup":
        return warmup()
    if kind == "cosine":
        return cosine()
    if kind == "step":
        return lr.StepLR(optimizer, p["step_size"], p["gamma"])
    return lr.SequentialLR(optimizer, [warmup(), cosine()],
                           milestones=[p["warmup_steps"]])


def main():
    warnings.simplefilter("ignore")  # the scheduler's step-order hint
    cases = []
    for kind, params in SCHEDULES:
        param = torch.nn.Parameter(torch.zeros(()))
        optimizer = torch.optim.SGD([param], lr=LR)
        schedule = scheduler(kind, params, optimizer)
        edges = {int(v) + d for v in params.values() if v >= 1
                 for d in (-1, 0, 1)}
        rates = {}
        for t in range(STEPS):
            if t % 7 == 0 or t in edges:
                rates[t] = optimizer.param_groups[0]["lr"]
            optimizer.step()
            schedule.step()
        cases.append({"kind": kind, "lr": LR, "params": params,
                      "steps": sorted(rates), "rates": [rates[t] for t in
                                                        sorted(rates)]})
    json.dump({"torch": torch.__version__, "cases": cases}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
