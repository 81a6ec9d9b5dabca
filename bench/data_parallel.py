#!/usr/bin/env python3
"""Data-parallel training on this machine's host target: examples/mlp.mlir
in f16 AMP with AdamW, compiled with data-parallel=true, timed by amp-step
--bench (steps queued back to back, one wait) in the same run as

- one process on a batch of 64 (the data-parallel library, one replica),
- one process on a batch of 128 (the concatenated batch),
- 2 ranks under mpirun, a batch of 64 each (128 examples a step),
- 2 ranks of the same step with buckets of at most 0.2 MiB (bucket-mb=0.2:
  b2, w2 and b1 in one, started while w1's gradient is computed, then w1),
- 2 ranks of the same step with its optimizer state sharded (zero-stage=1
  replicas=2), whose memory report gives the bytes each rank holds,

each rank with AMP_NUM_THREADS=1 and one process also with every core, so
that the comparison holds the cores fixed. It prints milliseconds per
step, examples per second and the ratios; the difference between the
2-rank step and the 1-rank step at one thread each is what the gradients'
all-reduce (814 KB of f32 over loopback) and the replicas' checks cost.

  bench/data_parallel.py [--build build] [--steps 200] [--record]

--record writes bench/results/data-parallel-<date>.md.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_btl": "self,tcp", "OMPI_MCA_btl_tcp_if_include": "lo",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def milliseconds(command, threads):
    """amp-step's --bench figure: milliseconds per step."""
    env = dict(os.environ, **MPI_ENV)
    if threads:
        env["AMP_NUM_THREADS"] = str(threads)
    out = subprocess.run(command, env=env, check=True, capture_output=True,
                         text=True).stdout
    match = re.search(r"timed \d+ steps: ([0-9.]+) ms/step", out)
    if not match:
        raise SystemExit(f"no timing line in:\n{out}")
    return float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    tools = os.path.join(os.path.abspath(args.build), "bin")
    work = tempfile.mkdtemp(prefix="dp-bench-")
    model = os.path.join(ROOT, "examples", "mlp.mlir")
    big = os.path.join(work, "mlp128.mlir")
    with open(model) as source, open(big, "w") as target:
        target.write(source.read().replace("tensor<64x", "tensor<128x")
                     .replace("tensor<64xi64>", "tensor<128xi64>"))
    libraries = {}
    for name, path, options in (("dp", model, "data-parallel=true"),
                                ("buckets", model,
                                 "data-parallel=true bucket-mb=0.2"),
                                ("zero", model, "zero-stage=1 replicas=2"),
                                ("big", big, "")):
        out = os.path.join(work, name)
        subprocess.run([os.path.join(tools, "amp-compile"), path,
                        "--name=mlp", "--compute-type=f16",
                        "--optimizer=adamw", f"--train-options={options}",
                        "-o", out], check=True, capture_output=True)
        libraries[name] = os.path.join(out, "libmlp.so")
    step = os.path.join(tools, "amp-step")
    timed = ["mlp", "--seed=1", "--index-bound=10", "--steps=1",
             f"--bench={args.steps}"]
    cores = os.cpu_count()
    rows = [
        ("1 process, batch 64", 64, milliseconds(
            [step, libraries["dp"]] + timed, 1), 1),
        ("1 process, batch 128", 128, milliseconds(
            [step, libraries["big"]] + timed, 1), 1),
        (f"1 process, batch 128, {cores} threads", 128, milliseconds(
            [step, libraries["big"]] + timed, cores), cores),
        ("2 ranks, batch 64 each", 128, milliseconds(
            ["mpirun", "-np", "2", step, libraries["dp"]] + timed, 1), 2),
        ("2 ranks, batch 64 each, 2 buckets", 128, milliseconds(
            ["mpirun", "-np", "2", step, libraries["buckets"]] + timed, 1),
         2),
        ("2 ranks, batch 64 each, ZeRO stage 1", 128, milliseconds(
            ["mpirun", "-np", "2", step, libraries["zero"]] + timed, 1), 2),
    ]
    base = rows[0][2]
    lines = [f"| run | threads in all | ms/step | examples/s | step time vs "
             f"1 process, batch 64 |", "|---|---|---|---|---|"]
    for name, examples, ms, threads in rows:
        lines.append(f"| {name} | {threads} | {ms:.2f} | "
                     f"{examples / ms * 1e3:.0f} | {ms / base:.2f}x |")
    memory = {}
    for name in ("dp", "zero"):
        with open(os.path.join(work, name, "mlp.memory.json")) as report:
            memory[name] = json.load(report)
    lines += ["", "| step (each rank) | argument bytes | saved by sharding |",
              "|---|---|---|",
              f"| data-parallel | {memory['dp']['argument_bytes']} | |",
              f"| ZeRO stage 1, 2 ranks | {memory['zero']['argument_bytes']} "
              f"| {memory['zero']['sharding_saved_bytes']} "
              f"({memory['zero']['sharding_saved_bytes'] / memory['dp']['argument_bytes']:.0%}) |"]
    table = "\n".join(lines)
    print(table)
    if args.record:
        today = datetime.date.today().isoformat()
        path = os.path.join(ROOT, "bench", "results",
                            f"data-parallel-{today}.md")
        with open(path, "w") as out:
            out.write(f"# Data-parallel MLP on the host target, {today}\n\n"
                      f"Machine: {platform.machine()}, {cores} cores, "
                      f"{platform.system()} (no GPU). `bench/data_parallel.py"
                      f" --steps {args.steps}`: examples/mlp.mlir, f16 AMP, "
                      f"AdamW, amp-step --bench; 2 ranks under mpirun on "
                      f"loopback.\n\n{table}\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
