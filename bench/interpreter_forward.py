#!/usr/bin/env python3
"""Times one forward pass of each example model in the reference interpreter.

The interpreter must stay fast enough to be the test oracle. Each model is
timed with `amp-run --time=N` (median of N runs, inputs fixed). As a
baseline measured in the same run, a graph holding a single amp.matmul of
about the model's forward FLOPs is timed the same way: the ratio says what
the non-GEMM work and the op-by-op execution cost on top of bare GEMM loops.

  bench/interpreter_forward.py [--build build] [--runs 20] [--record]

--record writes bench/results/interpreter-forward-<date>.{json,md}.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ["examples/mlp.mlir", "examples/gpt_block.mlir",
          "examples/gpt_block_unfused.mlir"]


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def forward_flops(amp_opt, model):
    out = run([amp_opt, model, "--amp-model-summary", "-o", os.devnull])
    return int(re.search(r"forward FLOPs: (\d+)", out).group(1))


def median_ms(amp_run, model, runs):
    out = run([amp_run, model, "--random-inputs=1", "--scale=0.1",
               "--print-limit=0", f"--time={runs}"])
    return float(re.search(r"median ([0-9.]+) ms", out).group(1))


def gemm_baseline(m, k, flops):
    """A matmul [m, k] x [k, n] with n chosen to match `flops`."""
    n = max(1, round(flops / (2 * m * k)))
    text = (f"func.func @gemm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>)"
            f" -> tensor<{m}x{n}xf32> {{\n"
            f"  %c = amp.matmul %a, %b : tensor<{m}x{k}xf32>, "
            f"tensor<{k}x{n}xf32> to tensor<{m}x{n}xf32>\n"
            f"  return %c : tensor<{m}x{n}xf32>\n}}\n")
    return text, 2 * m * k * n


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    amp_run = os.path.join(args.build, "bin", "amp-run")
    amp_opt = os.path.join(args.build, "bin", "amp-opt")

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in MODELS:
            path = os.path.join(ROOT, model)
            flops = forward_flops(amp_opt, path)
            ms = median_ms(amp_run, path, args.runs)
            text, gemm_flops = gemm_baseline(128, 64, flops)
            gemm_path = os.path.join(tmp, "gemm.mlir")
            with open(gemm_path, "w") as f:
                f.write(text)
            gemm_ms = median_ms(amp_run, gemm_path, args.runs)
            # Compare at equal FLOPs: scale the GEMM time to the model's.
            gemm_equal = gemm_ms * flops / gemm_flops
            rows.append({
                "model": model, "forward_flops": flops, "median_ms": ms,
                "gflops_per_s": flops / ms / 1e6,
                "gemm_baseline_ms_at_equal_flops": gemm_equal,
                "ratio_to_gemm_baseline": ms / gemm_equal,
            })

    print(f"{'model':36} {'MFLOP':>8} {'ms':>8} {'GFLOP/s':>8} "
          f"{'GEMM ms':>8} {'ratio':>6}")
    for r in rows:
        print(f"{r['model']:36} {r['forward_flops'] / 1e6:8.2f} "
              f"{r['median_ms']:8.3f} {r['gflops_per_s']:8.2f} "
              f"{r['gemm_baseline_ms_at_equal_flops']:8.3f} "
              f"{r['ratio_to_gemm_baseline']:6.2f}")

    if args.record:
        date = datetime.date.today().isoformat()
        machine = {"cpu": cpu_name(), "cores": os.cpu_count(),
                   "system": platform.platform()}
        base = os.path.join(ROOT, "bench", "results",
                            f"interpreter-forward-{date}")
        with open(base + ".json", "w") as f:
            json.dump({"date": date, "machine": machine, "runs": args.runs,
                       "results": rows}, f, indent=2)
            f.write("\n")
        with open(base + ".md", "w") as f:
            f.write(f"# Interpreter forward pass, {date}\n\n")
            f.write(f"Machine: {machine['cpu']}, {machine['cores']} cores, "
                    f"{machine['system']}. Median of {args.runs} runs, "
                    "`bench/interpreter_forward.py`.\n\n")
            f.write("| model | forward MFLOP | ms | GFLOP/s | "
                    "GEMM baseline ms (equal FLOPs) | ratio |\n")
            f.write("|---|---|---|---|---|---|\n")
            for r in rows:
                f.write(f"| {r['model']} | {r['forward_flops'] / 1e6:.2f} | "
                        f"{r['median_ms']:.3f} | {r['gflops_per_s']:.2f} | "
                        f"{r['gemm_baseline_ms_at_equal_flops']:.3f} | "
                        f"{r['ratio_to_gemm_baseline']:.2f} |\n")
        print(f"recorded {base}.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
