#!/usr/bin/env python3
"""Trains examples/resnet.mlir compiled in fp32 and in f16 AMP on the
batches and from the weights scripts/make_golden_resnet.py gave PyTorch,
and compares with what PyTorch did (golden.json):

  train_resnet.py GOLDEN_JSON WORK_DIR

Training this network is chaotic: two PyTorch fp32 runs that differ only in
their convolution kernels (channels_last) drift apart by several percent
within 50 steps. So each run is held to the spread of PyTorch's own
variants, and fp32 to rounding where the runs have not yet drifted:
  fp32   the first 15 losses within 1e-6 relative of PyTorch's (rounding
         of the same computation), batch norm's running statistics after
         15 steps within 1e-5, and all 50 losses no farther from PyTorch's
         than its channels_last run gets (the largest relative difference
         over the run);
  f16    the same skipped steps and loss-scale sequence as one of PyTorch's
         AMP variants, and all 50 losses no farther from PyTorch's autocast
         run than its variants get from each other over the run.
Prints a line per check; exits 1 on a mismatch.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
from ampmlir import data  # noqa: E402
from ampmlir.compiler import compile as compile_model  # noqa: E402


def train(golden, work, compute_type):
    sgd = golden["sgd"]
    options = (f"lr={sgd['lr']} momentum={sgd['momentum']} "
               f"weight-decay={sgd['weight_decay']}")
    if compute_type == "f16":
        scaler = golden["scaler"]
        options += (f" init-scale={scaler['init_scale']} "
                    f"growth-interval={scaler['growth_interval']}")
    compiled = compile_model(os.path.join(ROOT, "examples", "resnet.mlir"),
                             os.path.join(work, compute_type),
                             compute_type=compute_type, optimizer="sgd",
                             train_options=options, evaluation=False)
    losses, scales, skipped, buffers = [], [], [], {}
    with compiled.load("host") as step:
        step.init(seed=0)
        for index, batch in enumerate(data.images(seed=1,
                                                  batches=golden["steps"])):
            scale = step.scale if compute_type == "f16" else None
            step.run(*batch)
            losses.append(step.loss)
            if compute_type == "f16":
                scales.append(scale)
                if step.found_inf:
                    skipped.append(index)
            if index + 1 == golden["buffers_at"]:
                buffers = {t.name: step.read(t.name).copy()
                           for t in step.tensors if t.kind == "buffer"}
    return {"losses": losses, "scales": scales, "skipped": skipped,
            "buffers": buffers}


def largest(losses, reference):
    """The largest relative difference of `losses` from `reference`."""
    return max(abs(a - b) / abs(b) for a, b in zip(losses, reference))


def main():
    golden_path, work = sys.argv[1:3]
    golden = json.load(open(golden_path))
    steps = golden["steps"]
    failed = False

    def report(ok, text):
        nonlocal failed
        failed |= not ok
        print(f"{text} {'ok' if ok else 'FAILED'}")

    run = train(golden, work, "f32")
    ours = run["losses"]
    theirs = golden["fp32"]["default"]["losses"]
    early = largest(ours[:15], theirs[:15])
    report(len(ours) == steps and early <= 1e-6,
           f"fp32: the first 15 losses within {early:.2e} of PyTorch's")
    # The running statistics (momentum 0.1, the unbiased variance) after 15
    # steps, each tensor relative to its largest magnitude.
    expected = golden["fp32"]["default"]["buffers"]
    worst = 0.0
    for name, values in expected.items():
        got = run["buffers"][name].tolist()
        scale = max(abs(v) for v in values)
        worst = max(worst, max(abs(a - b) for a, b in zip(got, values)) / scale)
    report(sorted(run["buffers"]) == sorted(expected) and worst <= 1e-5,
           f"fp32: {len(expected)} running statistics after "
           f"{golden['buffers_at']} steps within {worst:.2e} of PyTorch's")
    spread = largest(golden["fp32"]["channels_last"]["losses"], theirs)
    worst = largest(ours, theirs)
    report(worst <= spread,
           f"fp32: {steps} losses, {ours[0]:.6f} -> {ours[-1]:.6f} (PyTorch "
           f"{theirs[-1]:.6f}), at most {worst:.2e} from PyTorch's; its "
           f"channels_last run {spread:.2e}")

    ours = train(golden, work, "f16")
    variants = golden["amp"]
    matching = [name for name, run in variants.items()
                if run["skipped"] == ours["skipped"]
                and run["scales"] == ours["scales"]]
    report(bool(matching),
           f"f16 AMP: skipped {ours['skipped']}, scale {ours['scales'][0]:g} "
           f"-> {ours['scales'][-1]:g}, as PyTorch's "
           f"{', '.join(matching) or 'none of its variants'}")
    reference = variants["autocast"]["losses"]
    spread = max(largest(a["losses"], b["losses"])
                 for a in variants.values() for b in variants.values()
                 if a is not b)
    worst = largest(ours["losses"], reference)
    report(worst <= spread,
           f"f16 AMP: {steps} losses, {ours['losses'][0]:.6f} -> "
           f"{ours['losses'][-1]:.6f} (PyTorch autocast {reference[-1]:.6f}), "
           f"at most {worst:.2e} from PyTorch's autocast; its variants from "
           f"each other {spread:.2e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
