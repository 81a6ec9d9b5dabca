#!/usr/bin/env python3
"""Convolutions as runtime calls against the decomposition in the step:
examples/resnet.mlir (ResNet-8, batch 16 of 32x32 images) in f16 AMP,
compiled once with the default (each convolution and gradient one
amp_conv2d_* call: cuDNN on a GPU, im2col + GEMMs + col2im on the host)
and once with --decompose-convolutions (generated im2col and col2im
kernels and the step's own GEMMs), measured in the same run: the host
step's time per step on this machine, the H100 cost report's step time
and its convolution launches, and the arena the memory plan gives.

  bench/conv.py [--build build] [--steps 5] [--record]

--record writes bench/results/conv-<date>.md.
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

RUNS = (("runtime calls", []),
        ("decomposed", ["--decompose-convolutions"]))


def convolution_kernels(report):
    """The report's launches that compute convolutions: the runtime's calls
    or the decomposition's im2col, col2im and GEMMs."""
    return [k for k in report["kernels"]
            if k["strategy"] == "conv-cudnn" or "im2col" in k["name"]
            or "col2im" in k["name"] or k["strategy"] == "gemm"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    tool = lambda name: os.path.join(args.build, "bin", name)
    source = os.path.join(ROOT, "examples", "resnet.mlir")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, options in RUNS:
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
            conv = convolution_kernels(report)
            row = {"run": name,
                   "host_ms": seconds * 1e3,
                   "gpu_ms": report["gpus"]["h100"]["seconds"] * 1e3,
                   "conv_launches": sum(k["launches"] for k in conv),
                   "conv_us": sum(k["seconds"]["h100"] for k in conv) * 1e6,
                   "conv_mb": sum(k["bytes_read"] + k["bytes_written"]
                                  for k in conv) / 1e6,
                   "launches": report["totals"]["launches"],
                   "arena_mb": memory["arena_bytes"] / 1e6}
            rows.append(row)
            print(f"{name:<14} host {row['host_ms']:8.1f} ms/step   H100 "
                  f"model {row['gpu_ms']:.3f} ms/step, convolutions "
                  f"{row['conv_launches']} launches {row['conv_us']:.1f} us "
                  f"{row['conv_mb']:.2f} MB, arena {row['arena_mb']:.2f} MB",
                  flush=True)
    calls, decomposed = rows
    print(f"runtime calls against the decomposition: host "
          f"{calls['host_ms'] / decomposed['host_ms']:.2f}x, H100 model "
          f"{calls['gpu_ms'] / decomposed['gpu_ms']:.2f}x, arena "
          f"{calls['arena_mb'] / decomposed['arena_mb']:.2f}x")
    if args.record:
        date = datetime.date.today().isoformat()
        machine = f"{platform.machine()}, {os.cpu_count()} cores"
        out = os.path.join(ROOT, "bench", "results", f"conv-{date}.md")
        with open(out, "w") as f:
            f.write(f"# Convolutions as runtime calls, {date} ({machine})\n\n"
                    "`bench/conv.py`: `examples/resnet.mlir` (ResNet-8, batch "
                    "16, 32x32) in f16 AMP, each convolution and gradient one "
                    "`amp_conv2d_*` call against `--decompose-convolutions`, "
                    f"measured in the same run. Host: {args.steps} steps less "
                    "the start-up, best of 3. H100: the cost report's "
                    "roofline model of the cuda step (no GPU here); its "
                    "convolution launches are the calls, or the im2col, "
                    "col2im and GEMM launches. Arena: the memory plan's.\n\n"
                    "| run | host ms/step | H100 model ms/step | conv "
                    "launches | conv us (H100) | conv MB | launches | arena "
                    "MB |\n|---|---|---|---|---|---|---|---|\n")
            for r in rows:
                f.write(f"| {r['run']} | {r['host_ms']:.1f} | "
                        f"{r['gpu_ms']:.3f} | {r['conv_launches']} | "
                        f"{r['conv_us']:.1f} | {r['conv_mb']:.2f} | "
                        f"{r['launches']} | {r['arena_mb']:.2f} |\n")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
