"""Compiles an example with amp-compile, trains it 50 steps with the compiled
host step and with the interpreter on the same state and batch, and fails
unless every printed loss and scale agrees exactly.

usage: differential.py OUTDIR EXAMPLE COMPUTE_TYPE [AMP-COMPILE OPTIONS...]

EXAMPLE names a file of examples/ or is the path of a .mlir file.
"""
import os
import subprocess
import sys


def main():
    out, example, compute = sys.argv[1:4]
    extra = sys.argv[4:]
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    source = os.path.join(root, "examples", example + ".mlir")
    if example.endswith(".mlir"):
        source = example
        example = os.path.splitext(os.path.basename(example))[0]
    work = os.path.join(out, f"{example}-{compute}" + "".join(
        "-" + "".join(c if c.isalnum() else "_" for c in e) for e in extra))
    steps = "50"
    subprocess.run(["amp-compile", source, f"--compute-type={compute}", "-o", work] + extra,
                   check=True, stdout=subprocess.DEVNULL)
    inputs = os.path.join(work, "in")
    ref = subprocess.run(["amp-run", os.path.join(work, example + ".step.mlir"),
                          "--random-inputs=1", "--scale=0.1", "--index-bound=8",
                          f"--save-inputs={inputs}", f"--train-steps={steps}",
                          "--print-every=1"],
                         check=True, capture_output=True, text=True).stdout
    got = subprocess.run(["amp-step", os.path.join(work, f"lib{example}.so"), example,
                          f"--inputs={inputs}", f"--steps={steps}"],
                         check=True, capture_output=True, text=True).stdout
    ref_lines = [l for l in ref.splitlines() if l.startswith("step ")]
    got_lines = got.splitlines()
    if len(ref_lines) != int(steps) or ref_lines != got_lines:
        for r, g in zip(ref_lines, got_lines):
            if r != g:
                print(f"interpreter: {r}\ncompiled:    {g}")
                break
        print(f"{example} {compute}: the compiled step differs from the interpreter")
        return 1
    print(f"{example} {compute}: {steps} steps identical; {got_lines[-1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
