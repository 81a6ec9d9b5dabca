#!/usr/bin/env python3
"""Trains the gradient-penalty recipes compiled by amp-opt and run by
amp-run, and compares them with PyTorch's runs recorded by
scripts/make_golden_penalty.py, with the standard library.

  check_penalty.py GOLDEN_JSON MODEL_DIR WORK_DIR

amp-opt and amp-run are found on PATH. For each recipe (penalty_l2,
wgan_gp, r1), prints one line per check and exits 1 if any fails:
- fp32: each step's loss within F32_RTOL of PyTorch's, relative to it;
- f16 AMP: the same skipped steps and the same loss scale at every step as
  GradScaler, and the losses within F16_RTOL of the largest of PyTorch's
  (f16 rounds where PyTorch's CPU kernels round otherwise), NaN where
  PyTorch's is;
- a skipped first step leaves the parameters, the optimizer's state and its
  step counter bitwise unchanged.
"""
import json
import math
import os
import re
import subprocess
import sys

F32_RTOL = 1e-5
F16_RTOL = 1e-3
FUNCTIONS = {"penalty_l2": "l2_penalty", "wgan_gp": "wgan_gp", "r1": "r1"}
STEP = re.compile(r"^step (\d+) loss (\S+)(?: scale (\S+))?( skipped)?$")


def compile_step(model, out, golden, compute_type):
    options = (f"compute-type={compute_type} optimizer=sgd "
               f"lr={golden['lr']} momentum={golden['momentum']} "
               f"init-scale={golden['scaler']['init_scale']} "
               f"growth-interval={golden['scaler']['growth_interval']}")
    subprocess.run(["amp-opt", model, f"--amp-train-step={options}", "-o",
                    out], check=True)


def run(step, function, steps, extra=()):
    command = ["amp-run", step, f"--function={function}_step",
               "--random-inputs=1", "--scale=0.1", "--index-bound=4",
               f"--train-steps={steps}", "--print-every=1",
               "--print-limit=0", *extra]
    output = subprocess.run(command, check=True, capture_output=True,
                            text=True).stdout
    losses, scales, skipped = [], [], []
    for line in output.splitlines():
        match = STEP.match(line)
        if not match:
            continue
        losses.append(float(match.group(2)))
        if match.group(3):
            scales.append(float(match.group(3)))
        if match.group(4):
            skipped.append(int(match.group(1)))
    return losses, scales, skipped


def report(ok, line):
    print(line + (" ok" if ok else " FAILED"))
    return ok


def main():
    golden_path, model_dir, work = sys.argv[1:4]
    golden = json.load(open(golden_path))
    os.makedirs(work, exist_ok=True)
    steps = golden["steps"]
    good = True
    for name, function in FUNCTIONS.items():
        model = os.path.join(model_dir, name + ".mlir")
        expected = golden[name]

        fp32 = os.path.join(work, name + "-fp32.mlir")
        compile_step(model, fp32, golden, "none")
        losses, _, _ = run(fp32, function, steps)
        worst = max(abs(a - g) / abs(g)
                    for a, g in zip(losses, expected["fp32"]))
        good &= report(
            len(losses) == steps and worst <= F32_RTOL,
            f"{name} fp32: {len(losses)} losses, worst relative difference "
            f"{worst:.2e} from PyTorch's (its own f32 vs f64: "
            f"{expected['fp32_vs_fp64']:.2e})")

        f16 = os.path.join(work, name + "-f16.mlir")
        compile_step(model, f16, golden, "f16")
        losses, scales, skipped = run(f16, function, steps)
        amp = expected["f16"]
        # amp-run prints six significant digits: equal scales (powers of
        # two apart when not) agree to those.
        same_scales = len(scales) == len(amp["scales"]) and all(
            abs(a - g) <= 5e-6 * g for a, g in zip(scales, amp["scales"]))
        good &= report(
            skipped == amp["skipped"] and same_scales,
            f"{name} f16 AMP: skipped {skipped}, scale {scales[0]:g} -> "
            f"{scales[-1]:g}, as GradScaler's {amp['skipped']}")
        largest = max(abs(g) for g in amp["losses"] if not math.isnan(g))
        nan_alike = all(math.isnan(a) == math.isnan(g)
                        for a, g in zip(losses, amp["losses"]))
        worst = max((abs(a - g) for a, g in zip(losses, amp["losses"])
                     if not math.isnan(g)), default=0.0) / largest
        good &= report(
            len(losses) == steps and nan_alike and worst <= F16_RTOL,
            f"{name} f16 AMP: {len(losses)} losses, worst difference "
            f"{worst:.2e} of the largest of PyTorch's")

        # A skipped step: every state the step carries is as it was.
        if amp["skipped"][:1] == [0]:
            inputs = os.path.join(work, name + "-inputs")
            results = os.path.join(work, name + "-results")
            _, _, first = run(f16, function, 1,
                              [f"--save-inputs={inputs}",
                               f"--output-dir={results}"])
            step_text = open(f16).read()
            header = step_text[step_text.index(f"@{function}_step("):]
            header = header[:header.index(") ->")]
            carried = [i for i, arg in enumerate(header.split("%arg")[1:])
                       if "amp.param" in arg or
                       ("amp.state" in arg and "amp.hparam" not in arg and
                        "amp.loss_scale" not in arg and "tracker" not in arg)]
            same = [open(os.path.join(inputs, f"arg{i}.npy"), "rb").read() ==
                    open(os.path.join(results, f"result{i}.npy"), "rb").read()
                    for i in carried]
            good &= report(
                first == [0] and carried and all(same),
                f"{name} f16 AMP: skipped step 0 leaves {sum(same)} of "
                f"{len(carried)} parameters and optimizer states bitwise "
                f"unchanged")
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
