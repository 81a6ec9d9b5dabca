#!/usr/bin/env python3
"""Trains test/Golden/Inputs/fp8_mlp.mlir compiled with compute-type=fp8
(and bf16) by amp-opt and run by amp-run, and compares it with PyTorch
running torchao's tensorwise FP8 recipe written out, recorded by
scripts/make_golden_fp8.py, with the standard library.

  check_fp8.py GOLDEN_JSON MODEL WORK_DIR

amp-opt and amp-run are found on PATH. Prints one line per check and exits
1 if any fails:
- the first loss (one forward through the FP8 GEMMs, before any update
  moves the runs apart) within FIRST_RTOL of PyTorch's FP8 one;
- every loss within FP8_RTOL of PyTorch's FP8 run: FP8's coarse rounding
  turns the two runs' differences in f32 sums and bf16 roundings (the bf16
  runs, without FP8, stay within BF16_RTOL) into a larger drift;
- the run is the FP8 one: on average nearer PyTorch's FP8 losses than its
  bf16 ones, by a factor of NEARER at least;
- the bf16 step within BF16_RTOL of PyTorch's bf16 run.
"""
import json
import os
import re
import subprocess
import sys

FIRST_RTOL = 1e-5
FP8_RTOL = 3e-3
BF16_RTOL = 1e-3
NEARER = 2
STEP = re.compile(r"^step (\d+) loss (\S+)")


def train(model, work, compute_type, golden):
    step = os.path.join(work, f"fp8_mlp-{compute_type}.mlir")
    options = (f"compute-type={compute_type} optimizer=sgd lr={golden['lr']} "
               f"momentum={golden['momentum']}")
    subprocess.run(["amp-opt", model, f"--amp-train-step={options}", "-o",
                    step], check=True)
    output = subprocess.run(
        ["amp-run", step, "--function=fp8_mlp_step", "--random-inputs=1",
         "--scale=0.1", "--index-bound=16", f"--train-steps={golden['steps']}",
         "--print-every=1", "--print-limit=0"],
        check=True, capture_output=True, text=True).stdout
    return [float(m.group(2)) for m in map(STEP.match, output.splitlines())
            if m]


def distances(ours, theirs):
    return [abs(a - b) / abs(b) for a, b in zip(ours, theirs)]


def report(ok, line):
    print(line + (" ok" if ok else " FAILED"))
    return ok


def main():
    golden_path, model, work = sys.argv[1:4]
    golden = json.load(open(golden_path))
    os.makedirs(work, exist_ok=True)
    steps = golden["steps"]
    good = True

    fp8 = train(model, work, "fp8", golden)
    good &= report(len(fp8) == steps, f"fp8: {len(fp8)} of {steps} losses")
    first = distances(fp8[:1], golden["fp8"][:1])[0]
    first_bf16 = distances(fp8[:1], golden["bf16"][:1])[0]
    good &= report(first <= FIRST_RTOL,
                   f"fp8: first loss {first:.1e} from PyTorch's FP8 one "
                   f"({first_bf16:.1e} from its bf16 one), within "
                   f"{FIRST_RTOL:g}")
    worst = max(distances(fp8, golden["fp8"]))
    good &= report(worst <= FP8_RTOL,
                   f"fp8: {steps} losses, worst {worst:.1e} from PyTorch's "
                   f"FP8 run, within {FP8_RTOL:g}")
    near = sum(distances(fp8, golden["fp8"])) / steps
    far = sum(distances(fp8, golden["bf16"])) / steps
    good &= report(far >= NEARER * near,
                   f"fp8: on average {near:.1e} from PyTorch's FP8 run, "
                   f"{far:.1e} from its bf16 one, at least {NEARER}x nearer")

    bf16 = train(model, work, "bf16", golden)
    worst = max(distances(bf16, golden["bf16"]))
    good &= report(len(bf16) == steps and worst <= BF16_RTOL,
                   f"bf16: {len(bf16)} losses, worst {worst:.1e} from "
                   f"PyTorch's bf16 run, within {BF16_RTOL:g}")
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
