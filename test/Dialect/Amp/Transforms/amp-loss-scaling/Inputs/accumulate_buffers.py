"""Buffers under gradient accumulation with loss scaling, micro-batch by
micro-batch through amp-run: every forward pass moves the running
statistics (as PyTorch's), an applied update commits them, and an update
whose micro-batches overflowed takes them back to the committed values,
bitwise, as it keeps the weight.

usage: accumulate_buffers.py STEP.mlir WORKDIR
STEP.mlir is Inputs/tiny-bn-f16.mlir compiled with accumulate=2.
"""
import os
import re
import subprocess
import sys

import numpy as np


def main():
    step, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    text = open(step).read()
    signature = re.search(r"func\.func @tiny_bn_step\((.*?)\) ->", text, re.S).group(1)
    names = re.findall(r'amp\.name = "([^"]*)"', signature)
    state = [n for n in names if n not in ("x", "y")]

    rng = np.random.default_rng(5)
    batches = {"clean": rng.uniform(-1, 1, (8, 16)).astype(np.float32),
               "huge": np.full((8, 16), 60000, np.float32)}
    for name, x in batches.items():
        np.save(os.path.join(work, f"x-{name}.npy"), x)
    np.save(os.path.join(work, "y.npy"), rng.integers(0, 4, 8).astype(np.int64))

    def run(tag, inputs, batch):
        out = os.path.join(work, tag)
        args = ["amp-run", step, "--function=tiny_bn_step", "--train-steps=1",
                f"--output-dir={out}", f"--input=x={work}/x-{batch}.npy",
                f"--input=y={work}/y.npy"]
        if inputs is None:
            args.append("--random-inputs=1")
        else:
            args += [f"--input={n}={inputs}/result{k}.npy" for k, n in enumerate(state)]
        log = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        return out, "skipped" in log.split("trained")[0]

    def load(directory, name):
        return np.load(os.path.join(directory, f"result{state.index(name)}.npy"))

    def same(a, b):
        return a.tobytes() == b.tobytes()

    failures = []

    def check(what, ok):
        print(f"{what}: {'ok' if ok else 'FAILED'}")
        if not ok:
            failures.append(what)

    a, skipped_a = run("a", None, "clean")  # update 1, micro-batch 1
    b, skipped_b = run("b", a, "clean")  # update 1, micro-batch 2: applies
    c, skipped_c = run("c", b, "clean")  # update 2, micro-batch 1
    d, skipped_d = run("d", c, "huge")  # update 2, micro-batch 2: overflows
    check("micro-batch 1 moves the statistics, commits nothing",
          not (load(a, "mean") == 0).all() and (load(a, "mean.committed") == 0).all()
          and (load(a, "var.committed") == 1).all())
    check("an applied update commits the statistics",
          not skipped_b and same(load(b, "mean"), load(b, "mean.committed"))
          and same(load(b, "var"), load(b, "var.committed"))
          and not same(load(b, "w"), load(a, "w")))
    check("the next micro-batch moves them again",
          not same(load(c, "mean"), load(b, "mean"))
          and same(load(c, "mean.committed"), load(b, "mean")))
    check("an overflowing update takes them back and keeps the weight",
          skipped_d and same(load(d, "mean"), load(b, "mean"))
          and same(load(d, "var"), load(b, "var"))
          and same(load(d, "mean.committed"), load(b, "mean"))
          and same(load(d, "w"), load(b, "w")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
