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
- the bf16 step within BF16_RTOL of PyTorch's bf16 run;
- delayed scaling (fp8-scaling=delayed) against Transformer Engine's
  DelayedScaling written out: the losses as for fp8 (the first within
  DELAYED_FIRST_RTOL: at the starting scale of 1 the casts are coarse, so a
  bf16 rounding the two runs make differently moves more), and each
  layer's state after the last step. Every step's amaxes are in the
  history (it is longer than the run): those of the first
  EXACT_STEPS steps are PyTorch's exactly, and the weights' at every step;
  later ones follow the runs' drift (the gradients' amax, a maximum of
  small values, within HISTORY_RTOL), as do the scales (SCALE_RTOL) and
  the overflow counts (within OVERFLOW_SLACK of PyTorch's).
"""
import json
import os
import re
import struct
import subprocess
import sys

FIRST_RTOL = 1e-5
FP8_RTOL = 3e-3
BF16_RTOL = 1e-3
NEARER = 2
DELAYED_FIRST_RTOL = 1e-4
EXACT_STEPS = 3
HISTORY_RTOL = 0.25
SCALE_RTOL = 0.1
OVERFLOW_SLACK = 2
STEP = re.compile(r"^step (\d+) loss (\S+)")


def read_npy(path):
    """A little-endian f32 .npy file's shape and values."""
    with open(path, "rb") as f:
        data = f.read()
    header_length = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_length].decode("latin1")
    assert "'<f4'" in header, header
    shape = tuple(int(d) for d in re.search(r"\(([^)]*)\)", header)
                  .group(1).replace(",", " ").split())
    body = data[10 + header_length:]
    return shape, list(struct.unpack(f"<{len(body) // 4}f", body))


def train(model, work, compute_type, golden, extra="", out=None):
    name = compute_type + ("-delayed" if extra else "")
    step = os.path.join(work, f"fp8_mlp-{name}.mlir")
    options = (f"compute-type={compute_type} optimizer=sgd lr={golden['lr']} "
               f"momentum={golden['momentum']} {extra}")
    subprocess.run(["amp-opt", model, f"--amp-train-step={options}", "-o",
                    step], check=True)
    output = subprocess.run(
        ["amp-run", step, "--function=fp8_mlp_step", "--random-inputs=1",
         "--scale=0.1", "--index-bound=16", f"--train-steps={golden['steps']}",
         "--print-every=1", "--print-limit=0"] +
        ([f"--output-dir={out}"] if out else []),
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
    good &= check_delayed(model, work, golden)
    sys.exit(0 if good else 1)


def check_delayed(model, work, golden):
    recipe = golden["fp8_delayed"]
    steps, rows = golden["steps"], recipe["history"]
    out = os.path.join(work, "delayed-state")
    losses = train(model, work, "fp8", golden,
                   f"fp8-scaling=delayed fp8-amax-history={rows}", out)
    good = report(len(losses) == steps,
                  f"delayed: {len(losses)} of {steps} losses")
    first = distances(losses[:1], recipe["losses"][:1])[0]
    good &= report(first <= DELAYED_FIRST_RTOL,
                   f"delayed: first loss {first:.1e} from PyTorch's, within "
                   f"{DELAYED_FIRST_RTOL:g}")
    worst = max(distances(losses, recipe["losses"]))
    good &= report(worst <= FP8_RTOL,
                   f"delayed: {steps} losses, worst {worst:.1e} from "
                   f"PyTorch's delayed-scaling run, within {FP8_RTOL:g}")
    # The step's results: the parameters and state, the loss last; the two
    # layers' scale, history and overflow counts are the six before it.
    results = sorted((int(f[6:-4]), f) for f in os.listdir(out)
                     if f.startswith("result"))
    state = [read_npy(os.path.join(out, f)) for _, f in results[-7:-1]]
    for k, layer in enumerate(["w2", "w3"]):
        (_, scale), (shape, history), (_, overflows) = state[3 * k:3 * k + 3]
        want = recipe["state"][layer]
        wanted = [v for row in want["amax_history"] for v in row]
        ok = shape == (rows, 3) and len(wanted) == rows * 3
        # Step t's amaxes are in row rows - steps + t.
        first_row = rows - steps
        exact = all(history[(first_row + t) * 3 + c] ==
                    wanted[(first_row + t) * 3 + c]
                    for t in range(EXACT_STEPS) for c in range(3))
        weights = all(history[(first_row + t) * 3 + 1] ==
                      wanted[(first_row + t) * 3 + 1] for t in range(steps))
        drift = max(abs(a - b) / b if b else abs(a)
                    for a, b in zip(history, wanted))
        good &= report(ok and exact and weights and drift <= HISTORY_RTOL,
                       f"delayed: {layer}'s amax history: the first "
                       f"{EXACT_STEPS} steps' amaxes and the weight's at "
                       f"every step PyTorch's exactly, every entry within "
                       f"{drift:.1e} (at most {HISTORY_RTOL:g})")
        scales = max(abs(a - b) / b for a, b in zip(scale, want["scale"]))
        good &= report(scales <= SCALE_RTOL,
                       f"delayed: {layer}'s scales within {scales:.1e} of "
                       f"PyTorch's (at most {SCALE_RTOL:g})")
        slack = max(abs(a - b) for a, b in zip(overflows, want["overflows"]))
        good &= report(slack <= OVERFLOW_SLACK,
                       f"delayed: {layer}'s overflow counts "
                       f"{[int(v) for v in overflows]} against PyTorch's "
                       f"{[int(v) for v in want['overflows']]}, within "
                       f"{OVERFLOW_SLACK}")
    return good


if __name__ == "__main__":
    main()
