#!/usr/bin/env python3
"""Convolutions or batch norms as runtime calls against their
decomposition in the step: examples/resnet.mlir (ResNet-8, batch 16 of
32x32 images) in f16 AMP, compiled once with the default (each op and its
gradients one runtime call: amp_conv2d_* or amp_batch_norm_*, cuDNN on a
GPU, the decomposition's stages on the host) and once with
--decompose-convolutions or --decompose-batch-norms (generated kernels
and the step's own GEMMs), measured in the same run: the host step's time
per step on this machine, the H100 cost report's step time and the op's
launches, and the arena the memory plan gives.

  bench/runtime_calls.py [--op conv|batch-norm] [--build build]
                         [--steps 5] [--record]

--record writes bench/results/<op>-<date>.md.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from host_step import per_step  # noqa: E402


def convolution_kernels(report):
    """The report's launches that compute convolutions: the runtime's calls
    or the decomposition's im2col, col2im and GEMMs."""
    return [k for k in report["kernels"]
            if k["strategy"] == "conv-cudnn" or "im2col" in k["name"]
            or "col2im" in k["name"] or k["strategy"] == "gemm"]


# Per op: the name in the output, the option that decomposes it, the
# runtime calls' name, the launches counted and what they are called. A
# decomposed batch norm's steps fuse with their neighbours (the relu, a
# residual add), so its launches are not told apart: the two runs differ
# in the batch norms alone, and the whole step's launches compare them.
OPS = {"conv": ("convolutions", "--decompose-convolutions", "amp_conv2d_*",
                convolution_kernels, "conv"),
       "batch-norm": ("batch norms", "--decompose-batch-norms",
                      "amp_batch_norm_*", lambda report: report["kernels"],
                      "step")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", choices=sorted(OPS), default="conv")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    what, flag, calls_name, kernels_of, counted = OPS[args.op]
    runs = (("runtime calls", []), ("decomposed", [flag]))
    tool = lambda name: os.path.join(args.build, "bin", name)
    source = os.path.join(ROOT, "examples", "resnet.mlir")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, options in runs:
            host = os.path.join(tmp, f"host-{len(rows)}")
            subprocess.run([tool("amp-compile"), source, "--compute-type=f16",
                            "-o", host] + options, check=True,
                           stdout=subprocess.DEVNULL)
            run = lambda n: [tool("amp-step"),
                             os.path.join(host, "libresnet.so"), "resnet",
                             "--seed=1", "--index-bound=10", f"--steps={n}"]
            seconds = per_step(run, args.steps)
            cuda = os.path.join(tmp, f"cuda-{len(rows)}")
            subprocess.run([tool("amp-compile"), source, "--compute-type=f16",
                            "--target=cuda", "--source-only", "--cost-report",
                            "-o", cuda] + options, check=True,
                           stdout=subprocess.DEVNULL)
            with open(os.path.join(cuda, "resnet.cost.json")) as f:
                report = json.load(f)
            with open(os.path.join(cuda, "resnet.memory.json")) as f:
                memory = json.load(f)
            ops = kernels_of(report)
            row = {"run": name,
                   "host_ms": seconds * 1e3,
                   "gpu_ms": report["gpus"]["h100"]["seconds"] * 1e3,
                   "op_launches": sum(k["launches"] for k in ops),
                   "op_us": sum(k["seconds"]["h100"] for k in ops) * 1e6,
                   "op_mb": sum(k["bytes_read"] + k["bytes_written"]
                                for k in ops) / 1e6,
                   "launches": report["totals"]["launches"],
                   "arena_mb": memory["arena_bytes"] / 1e6}
            rows.append(row)
            print(f"{name:<14} host {row['host_ms']:8.1f} ms/step   H100 "
                  f"model {row['gpu_ms']:.3f} ms/step, {counted} "
                  f"{row['op_launches']} launches {row['op_us']:.1f} us "
                  f"{row['op_mb']:.2f} MB, arena {row['arena_mb']:.2f} MB",
                  flush=True)
    calls, decomposed = rows
    print(f"runtime calls against the decomposition: host "
          f"{calls['host_ms'] / decomposed['host_ms']:.2f}x, H100 model "
          f"{calls['gpu_ms'] / decomposed['gpu_ms']:.2f}x, arena "
          f"{calls['arena_mb'] / decomposed['arena_mb']:.2f}x")
    if args.record:
        date = datetime.date.today().isoformat()
        machine = f"{platform.machine()}, {os.cpu_count()} cores"
        out = os.path.join(ROOT, "bench", "results", f"{args.op}-{date}.md")
        with open(out, "w") as f:
            f.write(f"# {what.capitalize()} as runtime calls, {date} "
                    f"({machine})\n\n"
                    f"`bench/runtime_calls.py --op {args.op}`: "
                    "`examples/resnet.mlir` (ResNet-8, batch 16, 32x32) in "
                    f"f16 AMP, each of its {what} and their gradients one "
                    f"`{calls_name}` call against `{flag}`, measured in the "
                    f"same run. Host: {args.steps} steps less the start-up, "
                    "best of 3. H100: the cost report's calibrated model of "
                    f"the cuda step (no GPU here); {counted} launches: "
                    + ("the calls, or the decomposition's"
                       if counted != "step" else "all of the step's")
                    + ". Arena: the memory plan's.\n\n"
                    f"| run | host ms/step | H100 model ms/step | {counted} "
                    f"launches | {counted} us (H100) | {counted} MB | "
                    "launches | arena MB |\n|---|---|---|---|---|---|---|"
                    "---|\n")
            for r in rows:
                f.write(f"| {r['run']} | {r['host_ms']:.1f} | "
                        f"{r['gpu_ms']:.3f} | {r['op_launches']} | "
                        f"{r['op_us']:.1f} | {r['op_mb']:.2f} | "
                        f"{r['launches']} | {r['arena_mb']:.2f} |\n")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
