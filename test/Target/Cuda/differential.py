"""Compiles an example with amp-compile, trains it 50 steps (10 under the
sanitizers) with the compiled host step and with the interpreter on the
same state and batch, and fails unless every printed loss and scale agrees
exactly and every parameter and state tensor after the last step is the
same, bit for bit.

usage: differential.py OUTDIR EXAMPLE COMPUTE_TYPE [AMP-COMPILE OPTIONS...]

EXAMPLE names a file of examples/ or is the path of a .mlir file.
"""
import os
import re
import subprocess
import sys

import numpy as np


def state_files(step_mlir):
    """The files amp-step --output-dir writes for the step's parameters and
    state, in the order of amp-run's results: <name>.npy, or arg<i>.npy for
    a name that is no plain file name (amp-step's rule)."""
    text = open(step_mlir).read()
    signature = next(m.group(1) for m in re.finditer(r"func\.func @\w+\((.*?)\) ->", text, re.S)
                     if "amp.param" in m.group(1))
    files = []
    for index, attributes in re.findall(r"%arg(\d+): [^{]*\{([^}]*)\}", signature):
        if "amp.param" not in attributes and "amp.state" not in attributes:
            continue
        name = re.search(r'amp\.name = "([^"]*)"', attributes).group(1)
        plain = re.fullmatch(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]*", name) and len(name) <= 200 \
            and name != "loss" and not re.fullmatch(r"arg[0-9]+", name)
        files.append(f"{name}.npy" if plain else f"arg{index}.npy")
    return files


def main():
    out, example, compute = sys.argv[1:4]
    extra = sys.argv[4:]
    root = os.path.join(os.path.dirname(__file__), "..", "..", "..")
    source = os.path.join(root, "examples", example + ".mlir")
    if example.endswith(".mlir"):
        source = example
        example = os.path.splitext(os.path.basename(example))[0]
    work = os.path.join(out, f"{example}-{compute}" + "".join(
        "-" + "".join(c if c.isalnum() else "_" for c in e) for e in extra))
    # Fewer under the sanitizers (lit.cfg.py sets AMP_DIFFERENTIAL_STEPS):
    # every kernel still runs on every step.
    steps = os.environ.get("AMP_DIFFERENTIAL_STEPS", "50")
    subprocess.run(["amp-compile", source, f"--compute-type={compute}", "-o", work] + extra,
                   check=True, stdout=subprocess.DEVNULL)
    inputs = os.path.join(work, "in")
    ref_state, got_state = os.path.join(work, "ref-state"), os.path.join(work, "got-state")
    ref = subprocess.run(["amp-run", os.path.join(work, example + ".step.mlir"),
                          "--random-inputs=1", "--scale=0.1", "--index-bound=8",
                          f"--save-inputs={inputs}", f"--train-steps={steps}",
                          "--print-every=1", f"--output-dir={ref_state}"],
                         check=True, capture_output=True, text=True).stdout
    got = subprocess.run(["amp-step", os.path.join(work, f"lib{example}.so"), example,
                          f"--inputs={inputs}", f"--steps={steps}",
                          f"--output-dir={got_state}"],
                         check=True, capture_output=True, text=True).stdout
    ref_lines = [l for l in ref.splitlines() if l.startswith("step ")]
    got_lines = [l for l in got.splitlines() if l.startswith("step ")]
    if len(ref_lines) != int(steps) or ref_lines != got_lines:
        for r, g in zip(ref_lines, got_lines):
            if r != g:
                print(f"interpreter: {r}\ncompiled:    {g}")
                break
        print(f"{example} {compute}: the compiled step differs from the interpreter")
        return 1
    # amp-run numbers the step's results: the parameters and state, then
    # the loss (and found_inf); amp-step names them.
    tensors = state_files(os.path.join(work, example + ".step.mlir"))
    tensors.append("loss.npy")
    if sorted(tensors) != sorted(os.listdir(got_state)):
        print(f"{example} {compute}: amp-step wrote {sorted(os.listdir(got_state))}, "
              f"not {sorted(tensors)}")
        return 1
    for k, name in enumerate(tensors):
        want = np.load(os.path.join(ref_state, f"result{k}.npy"))
        have = np.load(os.path.join(got_state, name))
        if want.dtype != have.dtype or want.shape != have.shape or \
                want.tobytes() != have.tobytes():
            print(f"{example} {compute}: {name} after step {steps} differs from the "
                  f"interpreter's ({have.dtype}{have.shape} vs {want.dtype}{want.shape}, "
                  f"{np.count_nonzero(want.view(np.uint8) != have.view(np.uint8)) if want.nbytes == have.nbytes else 'all'} bytes)")
            return 1
    print(f"{example} {compute}: {steps} steps identical, {len(tensors)} tensors "
          f"bit for bit; {got_lines[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
