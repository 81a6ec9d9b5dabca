#!/usr/bin/env python3
"""The modeled GPU step of GPT-2 124M, from amp-compile's cost report.

  bench/gpu_model.py [--build build] [--gpu h100] [--batches 8 64]
                     [--computes bf16 f16 fp8 fp8-delayed]
                     [--record [--label L]]
                     [gpt2.py sizes]

For each batch (of 1024-token sequences) and compute type it writes GPT-2
(bench/gpt2.py), compiles its cuda step with AdamW and clipping at 1.0
(--source-only: no nvcc, no GPU) and prints what the cost report models on
the GPU under its calibrated model: the step time replayed as a CUDA graph
and launched eagerly, against the ideal (the GEMMs at cuBLAS's best
measured rate plus the bytes of the tensors the other kernels touch, once,
at the achieved bandwidth), the MFU, the bytes and launches per step, the
largest shares of the peaks any kernel is modeled at (the GPU issue's
targets: GEMMs at most 80% of the tensor peak, attention 65%, any kernel
93% of the HBM data sheet), and the costliest kernels with what bounds
each. --record writes
bench/results/gpu-model-<date>[-<label>].{json,md}. The sizes of gpt2.py
(--layers, --width, ...) shrink the model for a quick look.
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
import gpt2  # noqa: E402


def by_strategy(kernels, gpu):
    """Milliseconds per kind of kernel (launch overheads included), the
    costliest first."""
    ms = {}
    for k in kernels:
        ms[k["strategy"]] = ms.get(k["strategy"], 0) + k["seconds"][gpu] * 1e3
    return dict(sorted(ms.items(), key=lambda item: -item[1]))


def modeled(report, gpu, top):
    """The report's figures on `gpu` and its `top` costliest kernels."""
    totals = report["totals"]
    on = report["gpus"][gpu]
    kernels = sorted(report["kernels"], key=lambda k: -k["seconds"][gpu])
    worst = max(report["minimums"], key=lambda m: m["excess"])

    def share(kinds, of):
        """The largest share of a peak a launch of `kinds` is modeled at:
        its FLOPs over its time at the tensor peak, or its bytes at the
        HBM data sheet's."""
        shares = [(of(k) / (k["seconds"][gpu] - k["launches"] *
                             report["launch_overhead_seconds"]), k["name"])
                  for k in report["kernels"]
                  if k["strategy"] in kinds or kinds == "any"]
        return max(shares, default=(0.0, "-"))

    tensor = on["tensor_flops_per_second"]
    gemm = share({"gemm"}, lambda k: k["flops"] / tensor)
    attention = share({"attention-cudnn", "attention-grad-cudnn"},
                      lambda k: k["flops"] / tensor)
    memory = share("any", lambda k: (k["bytes_read"] + k["bytes_written"]) /
                   on["bytes_per_second"])
    return {
        "ms": on["seconds"] * 1e3,
        "eager_ms": on["eager_seconds"] * 1e3,
        "gemm_share": gemm, "attention_share": attention,
        "memory_share": memory,
        "ideal_ms": on["ideal_seconds"] * 1e3,
        "ratio": on["seconds"] / on["ideal_seconds"],
        "mfu": on["mfu"],
        "gb": (totals["bytes_read"] + totals["bytes_written"]) / 1e9,
        "ideal_gb": totals["ideal_bytes"] / 1e9,
        "tflop": totals["flops"] / 1e12,
        "tensor_tflop": totals["tensor_core_flops"] / 1e12,
        "launches": totals["launches"],
        "worst_excess": worst["excess"],
        "worst_kernel": worst["name"],
        "over_2x": [m["name"] for m in report["minimums"]
                    if m["excess"] > 2],
        "by_strategy": by_strategy(report["kernels"], gpu),
        "top": [{"name": k["name"], "strategy": k["strategy"],
                 "ms": k["seconds"][gpu] * 1e3,
                 "share": k["seconds"][gpu] / on["seconds"],
                 "bound": k["bound"][gpu]}
                for k in kernels[:top]],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--gpu", default="h100", choices=("h100", "h200"))
    parser.add_argument("--batches", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--computes", nargs="+", default=["bf16", "f16"],
                        choices=("bf16", "f16", "f32", "fp8", "fp8-f16",
                                 "fp8-delayed"),
                        help="fp8-delayed: fp8 with delayed scaling")
    parser.add_argument("--top", type=int, default=10,
                        help="the costliest kernels listed (default 10)")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--label", default="",
                        help="appended to the recorded files' names")
    gpt2.add_size_arguments(parser)
    args = parser.parse_args()
    compile_tool = os.path.join(args.build, "bin", "amp-compile")

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for batch in args.batches:
            args.batch = batch
            sizes = gpt2.sizes_of(args, parser)
            model = os.path.join(tmp, f"gpt2_b{batch}.mlir")
            with open(model, "w") as f:
                f.write(gpt2.model(*sizes))
            for compute in args.computes:
                out = os.path.join(tmp, f"b{batch}-{compute}")
                options = "max-grad-norm=1.0"
                compute_type = compute
                if compute == "fp8-delayed":
                    compute_type = "fp8"
                    options += " fp8-scaling=delayed"
                subprocess.run(
                    [compile_tool, model, "--target=cuda", "--source-only",
                     f"--compute-type={compute_type}", "--optimizer=adamw",
                     f"--train-options={options}", "--cost-report",
                     "--name=gpt2", "-o", out],
                    check=True, stdout=subprocess.DEVNULL)
                with open(os.path.join(out, "gpt2.cost.json")) as f:
                    report = json.load(f)
                row = {"batch": batch, "compute_type": compute,
                       **modeled(report, args.gpu, args.top)}
                results.append(row)
                print(f"batch {batch:>3} x {args.seq} {compute:<4} "
                      f"modeled {row['ms']:9.2f} ms  ideal "
                      f"{row['ideal_ms']:8.2f} ms ({row['ratio']:.2f}x)  "
                      f"MFU {row['mfu']:6.1%}  {row['gb']:8.2f} GB  "
                      f"{row['launches']} launches", flush=True)
                print(f"    eagerly {row['eager_ms']:.2f} ms; largest "
                      f"shares: GEMM {row['gemm_share'][0]:.1%} of the "
                      f"tensor peak ({row['gemm_share'][1]}), attention "
                      f"{row['attention_share'][0]:.1%} "
                      f"({row['attention_share'][1]}), memory "
                      f"{row['memory_share'][0]:.1%} of the bandwidth "
                      f"({row['memory_share'][1]})")
                print(f"    furthest above its minimum bytes or FLOPs: "
                      f"{row['worst_kernel']} {row['worst_excess']:.2f}x; "
                      f"{len(row['over_2x'])} kernels over 2x")
                print("    by kind: " + ", ".join(
                    f"{kind} {ms:.2f} ms"
                    for kind, ms in row["by_strategy"].items()))
                for k in row["top"]:
                    print(f"    {k['name']:<28} {k['strategy']:<13} "
                          f"{k['ms']:8.3f} ms {k['share']:6.1%}  "
                          f"{k['bound']}")

    if args.record:
        date = datetime.date.today().isoformat()
        machine = f"{platform.machine()}, {os.cpu_count()} cores, no GPU"
        label = f"-{args.label}" if args.label else ""
        out = os.path.join(ROOT, "bench", "results",
                           f"gpu-model-{date}{label}")
        with open(out + ".json", "w") as f:
            json.dump({"date": date, "machine": machine, "gpu": args.gpu,
                       "results": results}, f, indent=1)
        with open(out + ".md", "w") as f:
            f.write(f"# GPT-2 124M modeled on {args.gpu.upper()}, {date} "
                    f"({machine})\n\n"
                    "amp-compile --cost-report of the cuda step (AdamW, "
                    "clipping at 1.0), from bench/gpu_model.py, under the "
                    "calibrated model (docs/backend.md). The ideal in the "
                    "same run is the baseline; modeled is replayed as a "
                    "CUDA graph.\n\n"
                    "| batch | compute | modeled ms | eager ms | ideal ms | "
                    "ratio | MFU | GB/step | launches | largest GEMM share "
                    "| largest attention share | largest bandwidth share "
                    "|\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
            for r in results:
                f.write(f"| {r['batch']} | {r['compute_type']} | "
                        f"{r['ms']:.2f} | {r['eager_ms']:.2f} | "
                        f"{r['ideal_ms']:.2f} | "
                        f"{r['ratio']:.2f}x | {r['mfu']:.1%} | {r['gb']:.2f} | "
                        f"{r['launches']} | {r['gemm_share'][0]:.1%} | "
                        f"{r['attention_share'][0]:.1%} | "
                        f"{r['memory_share'][0]:.1%} |\n")
            f.write("\nModeled time by kind of kernel:\n\n")
            for r in results:
                f.write(f"- batch {r['batch']} {r['compute_type']}: " +
                        ", ".join(f"{kind} {ms:.2f} ms" for kind, ms
                                  in r["by_strategy"].items()) + "\n")
            f.write("\nEach kernel against its minimum (the bytes and, where "
                    "its ops have counts, the FLOPs its ops need, from the "
                    "IR):\n\n")
            for r in results:
                f.write(f"- batch {r['batch']} {r['compute_type']}: furthest "
                        f"above, {r['worst_kernel']} at "
                        f"{r['worst_excess']:.2f}x; over 2x: "
                        f"{len(r['over_2x'])}\n")
            f.write("\nThe costliest kernels:\n\n")
            for r in results:
                f.write(f"- batch {r['batch']} {r['compute_type']}: " +
                        "; ".join(f"{k['name']} ({k['strategy']}) "
                                  f"{k['ms']:.2f} ms, {k['share']:.1%}, "
                                  f"{k['bound']}"
                                  for k in r["top"]) + "\n")
        print(f"recorded {out}.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
