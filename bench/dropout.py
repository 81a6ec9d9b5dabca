#!/usr/bin/env python3
"""What dropout costs: a wide MLP (batch 256, 1024 -> 1024 -> 1024 -> 10)
with dropout after each hidden layer (p = 0.1) against the same MLP without
it, compiled for the host in f16 AMP, measured in the same run: the
compiled step's time per step on this machine, and the GPU cost report's
roofline time on an H100 for the dropout kernels and the whole step.

  bench/dropout.py [--build build] [--steps 20] [--record]

--record writes bench/results/dropout-<date>.md.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODEL = """
func.func @wide(%x: tensor<256x1024xf32>, %labels: tensor<256xi64>,
                %rng: tensor<2xi64> {amp.rng},
                %w1: tensor<1024x1024xf32> {amp.param},
                %w2: tensor<1024x1024xf32> {amp.param},
                %w3: tensor<1024x10xf32> {amp.param}) -> tensor<f32> {
  %a1 = amp.matmul %x, %w1 : tensor<256x1024xf32>, tensor<1024x1024xf32> to tensor<256x1024xf32>
  %h1 = amp.relu %a1 : tensor<256x1024xf32>
  DROP1
  %a2 = amp.matmul %d1, %w2 : tensor<256x1024xf32>, tensor<1024x1024xf32> to tensor<256x1024xf32>
  %h2 = amp.relu %a2 : tensor<256x1024xf32>
  DROP2
  %logits = amp.matmul %d2, %w3 : tensor<256x1024xf32>, tensor<1024x10xf32> to tensor<256x10xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<256x10xf32>, tensor<256xi64> to tensor<f32>
  return %loss : tensor<f32>
}
"""


def model(dropout):
    """The MLP, with dropout after each hidden layer or with the hidden
    layers as they are."""
    text = MODEL
    for k in (1, 2):
        line = (f"%d{k} = amp.dropout %h{k}, %rng p = 0.1 stream = {k} "
                "training : tensor<256x1024xf32>")
        text = text.replace(f"DROP{k}", line if dropout else "")
        if not dropout:
            text = text.replace(f"%d{k},", f"%h{k},")
    if not dropout:
        text = text.replace("%rng: tensor<2xi64> {amp.rng},", "")
    return text


def wall(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    tool = lambda name: os.path.join(args.build, "bin", name)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, dropout in (("without dropout", False),
                              ("with dropout", True)):
            source = os.path.join(tmp, f"wide-{dropout}.mlir")
            with open(source, "w") as f:
                f.write(model(dropout))
            host = os.path.join(tmp, f"host-{dropout}")
            subprocess.run([tool("amp-compile"), source, "--compute-type=f16",
                            "--name=wide", "-o", host], check=True,
                           stdout=subprocess.DEVNULL)
            run = lambda n: [tool("amp-step"),
                             os.path.join(host, "libwide.so"), "wide",
                             "--seed=1", "--index-bound=10", f"--steps={n}"]
            full = min(wall(run(args.steps)) for _ in range(3))
            empty = min(wall(run(0)) for _ in range(3))
            cuda = os.path.join(tmp, f"cuda-{dropout}")
            subprocess.run([tool("amp-compile"), source, "--compute-type=f16",
                            "--name=wide", "--target=cuda", "--source-only",
                            "--cost-report", "-o", cuda], check=True,
                           stdout=subprocess.DEVNULL)
            with open(os.path.join(cuda, "wide.cost.json")) as f:
                report = json.load(f)
            h100 = report["gpus"]["h100"]
            drop = [k for k in report["kernels"] if "dropout" in k["name"]]
            row = {"run": name,
                   "host_ms": (full - empty) / args.steps * 1e3,
                   "gpu_ms": h100["seconds"] * 1e3,
                   "dropout_kernels": [
                       {"name": k["name"], "flops": k["flops"],
                        "bytes": k["bytes_read"] + k["bytes_written"],
                        "us": k["seconds"]["h100"] * 1e6} for k in drop]}
            rows.append(row)
            print(f"{name:<16} host {row['host_ms']:8.2f} ms/step   "
                  f"H100 model {row['gpu_ms']:.3f} ms/step", flush=True)
            for k in row["dropout_kernels"]:
                print(f"  {k['name']:<28} {k['flops'] / 1e6:8.1f} MFLOP "
                      f"{k['bytes'] / 1e6:7.2f} MB {k['us']:7.1f} us")
    base, drop = rows
    print(f"dropout costs {drop['host_ms'] / base['host_ms']:.2f}x on this "
          f"host, {drop['gpu_ms'] / base['gpu_ms']:.2f}x in the H100 model")
    if args.record:
        date = datetime.date.today().isoformat()
        machine = f"{platform.machine()}, {os.cpu_count()} cores"
        out = os.path.join(ROOT, "bench", "results", f"dropout-{date}.md")
        with open(out, "w") as f:
            f.write(f"# What dropout costs, {date} ({machine})\n\n"
                    "`bench/dropout.py`: an MLP (batch 256, 1024 -> 1024 -> "
                    "1024 -> 10, f16 AMP, AdamW) with dropout (p = 0.1) "
                    "after each hidden layer, against the same MLP without "
                    f"it, measured in the same run. Host: {args.steps} steps "
                    "less the start-up, best of 3. H100: the cost report's "
                    "roofline model of the cuda step (no GPU here).\n\n"
                    "| run | host ms/step | H100 model ms/step |\n"
                    "|---|---|---|\n")
            for r in rows:
                f.write(f"| {r['run']} | {r['host_ms']:.2f} | "
                        f"{r['gpu_ms']:.3f} |\n")
            f.write("\nThe dropout kernels of the step (forward fused with "
                    "the relu before it, backward with the relu's "
                    "gradient):\n\n| kernel | MFLOP | MB | H100 us |\n"
                    "|---|---|---|---|\n")
            for k in drop["dropout_kernels"]:
                f.write(f"| {k['name']} | {k['flops'] / 1e6:.1f} | "
                        f"{k['bytes'] / 1e6:.2f} | {k['us']:.1f} |\n")
            f.write(f"\nDropout costs {drop['host_ms'] / base['host_ms']:.2f}x"
                    f" the step on this host and "
                    f"{drop['gpu_ms'] / base['gpu_ms']:.2f}x in the H100 "
                    "model.\n")
        print(f"recorded {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
