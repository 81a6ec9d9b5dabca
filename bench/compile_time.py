#!/usr/bin/env python3
"""Compile time and memory of the amp-opt pipeline as graphs grow.

Generates training graphs of growing size (deep MLPs and transformer
stacks, about 1k, 10k and 100k forward ops), then times on each

  baseline   amp-opt model.mlir -o out.mlir          (parse, verify, print)
  pipeline   amp-opt model.mlir --amp-train-step=... then, on the step,
             --amp-backend -o out (inline, canonicalize, cse, fusion and
             buffer planning)

The step is about 7.7 times the model's size (backward pass, optimizer,
casts); parse+print of the step is shown too, as the floor of the second
stage.

and reports time and peak memory of both, the ratio pipeline/baseline, and
the growth exponent of each (the slope of log time over log size; 1 is
linear). The pipeline must grow linearly.

  bench/compile_time.py [--build build] [--sizes 1000,10000,100000]
                        [--record] [--check]

--record writes bench/results/compile-time-<date>.{json,md}; --check exits
with 1 when, between the two largest sizes, a stage's growth exponent
exceeds that of parse+print of its own input by more than 0.15 (at 100k
ops even parsing and printing grow faster than linearly: the IR no longer
fits in the caches).
"""
import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN = "compute-type=f16 optimizer=adamw"
BACKEND = "builtin.module(amp-backend)"


def mlp(ops):
    """A deep MLP: each layer is matmul, bias add, relu (3 ops) on a
    [32, 64] activation; the loss is a cross-entropy."""
    layers = max(1, (ops - 1) // 3)
    args = ["%x: tensor<32x64xf32>", "%labels: tensor<32xi64>"]
    body = []
    h = "%x"
    for i in range(layers):
        args.append(f"%w{i}: tensor<64x64xf32> {{amp.param}}")
        args.append(f"%b{i}: tensor<64xf32> {{amp.param}}")
        body.append(f"  %m{i} = amp.matmul {h}, %w{i} : tensor<32x64xf32>, "
                    f"tensor<64x64xf32> to tensor<32x64xf32>")
        body.append(f"  %a{i} = amp.add %m{i}, %b{i} : tensor<32x64xf32>, "
                    f"tensor<64xf32>")
        body.append(f"  %h{i} = amp.relu %a{i} : tensor<32x64xf32>")
        h = f"%h{i}"
    body.append(f"  %loss = amp.cross_entropy {h}, %labels : "
                f"tensor<32x64xf32>, tensor<32xi64> to tensor<f32>")
    return (f"func.func @deep_mlp({', '.join(args)}) -> tensor<f32> {{\n" +
            "\n".join(body) + "\n  return %loss : tensor<f32>\n}\n",
            3 * layers + 1)


def transformer(ops):
    """A stack of pre-norm transformer blocks on [2, 16, 32] activations
    (layer norm, fused qkv projection, causal attention, output projection,
    residual; layer norm, GELU MLP, residual: 24 ops each)."""
    blocks = max(1, (ops - 2) // 24)
    B, T, C, H = 2, 16, 32, 2
    D = C // H
    act = f"tensor<{B}x{T}x{C}xf32>"
    args = [f"%x: {act}", f"%targets: tensor<{B}x{T}xi64>"]
    body = []
    h = "%x"
    count = 0

    def op(line):
        nonlocal count
        body.append("  " + line)
        count += 1

    for i in range(blocks):
        p = f"_{i}"
        for name, shape in (("ln1_w", f"{C}"), ("ln1_b", f"{C}"),
                            ("qkv_w", f"{C}x{3 * C}"), ("qkv_b", f"{3 * C}"),
                            ("proj_w", f"{C}x{C}"), ("proj_b", f"{C}"),
                            ("ln2_w", f"{C}"), ("ln2_b", f"{C}"),
                            ("fc_w", f"{C}x{4 * C}"), ("fc_b", f"{4 * C}"),
                            ("out_w", f"{4 * C}x{C}"), ("out_b", f"{C}")):
            args.append(f"%{name}{p}: tensor<{shape}xf32> {{amp.param}}")
        op(f"%n1{p} = amp.layer_norm {h} scale(%ln1_w{p} : tensor<{C}xf32>) "
           f"bias(%ln1_b{p} : tensor<{C}xf32>) : {act}")
        op(f"%qkv_m{p} = amp.matmul %n1{p}, %qkv_w{p} : {act}, "
           f"tensor<{C}x{3 * C}xf32> to tensor<{B}x{T}x{3 * C}xf32>")
        op(f"%qkv{p} = amp.add %qkv_m{p}, %qkv_b{p} : "
           f"tensor<{B}x{T}x{3 * C}xf32>, tensor<{3 * C}xf32>")
        for k, name in enumerate(("q", "k", "v")):
            op(f"%{name}s{p} = amp.slice %qkv{p} [0, 0, {k * C}] to [{B}, {T}, "
               f"{(k + 1) * C}] : tensor<{B}x{T}x{3 * C}xf32> to {act}")
            op(f"%{name}r{p} = amp.reshape %{name}s{p} : {act} to "
               f"tensor<{B}x{T}x{H}x{D}xf32>")
            op(f"%{name}{p} = amp.transpose %{name}r{p}, [0, 2, 1, 3] : "
               f"tensor<{B}x{T}x{H}x{D}xf32> to tensor<{B}x{H}x{T}x{D}xf32>")
        op(f"%att{p} = amp.attention %q{p}, %k{p}, %v{p} causal : "
           f"tensor<{B}x{H}x{T}x{D}xf32>, tensor<{B}x{H}x{T}x{D}xf32>, "
           f"tensor<{B}x{H}x{T}x{D}xf32>")
        op(f"%att_t{p} = amp.transpose %att{p}, [0, 2, 1, 3] : "
           f"tensor<{B}x{H}x{T}x{D}xf32> to tensor<{B}x{T}x{H}x{D}xf32>")
        op(f"%att_r{p} = amp.reshape %att_t{p} : tensor<{B}x{T}x{H}x{D}xf32> "
           f"to {act}")
        op(f"%proj_m{p} = amp.matmul %att_r{p}, %proj_w{p} : {act}, "
           f"tensor<{C}x{C}xf32> to {act}")
        op(f"%proj{p} = amp.add %proj_m{p}, %proj_b{p} : {act}, "
           f"tensor<{C}xf32>")
        op(f"%res1{p} = amp.add {h}, %proj{p} : {act}, {act}")
        op(f"%n2{p} = amp.layer_norm %res1{p} scale(%ln2_w{p} : tensor<{C}xf32>) "
           f"bias(%ln2_b{p} : tensor<{C}xf32>) : {act}")
        op(f"%fc_m{p} = amp.matmul %n2{p}, %fc_w{p} : {act}, "
           f"tensor<{C}x{4 * C}xf32> to tensor<{B}x{T}x{4 * C}xf32>")
        op(f"%fc{p} = amp.add %fc_m{p}, %fc_b{p} : "
           f"tensor<{B}x{T}x{4 * C}xf32>, tensor<{4 * C}xf32>")
        op(f"%g{p} = amp.gelu %fc{p} approximate = tanh : "
           f"tensor<{B}x{T}x{4 * C}xf32>")
        op(f"%out_m{p} = amp.matmul %g{p}, %out_w{p} : "
           f"tensor<{B}x{T}x{4 * C}xf32>, tensor<{4 * C}x{C}xf32> to {act}")
        op(f"%out{p} = amp.add %out_m{p}, %out_b{p} : {act}, tensor<{C}xf32>")
        op(f"%res2{p} = amp.add %res1{p}, %out{p} : {act}, {act}")
        h = f"%res2{p}"
    op(f"%loss = amp.cross_entropy {h}, %targets : {act}, "
       f"tensor<{B}x{T}xi64> to tensor<f32>")
    return (f"func.func @stack({', '.join(args)}) -> tensor<f32> {{\n" +
            "\n".join(body) + "\n  return %loss : tensor<f32>\n}\n", count)


def measure(command):
    """(wall seconds, peak resident MiB) of `command`; the memory from GNU
    time, the time from the clock here (finer than time's 10 ms)."""
    timed = ["/usr/bin/time", "-f", "%M"] + command
    start = time.perf_counter()
    done = subprocess.run(timed, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{done.stderr[-2000:]}")
    kib = done.stderr.strip().splitlines()[-1]
    return seconds, int(kib) / 1024


def exponent(points):
    """Least-squares slope of log(time) over log(size)."""
    xs = [math.log(s) for s, _ in points]
    ys = [math.log(max(t, 1e-3)) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) /
            sum((x - mx) ** 2 for x in xs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    amp_opt = os.path.join(args.build, "bin", "amp-opt")
    sizes = [int(s) for s in args.sizes.split(",")]
    if not os.path.exists("/usr/bin/time"):
        sys.exit("compile_time.py needs GNU time (/usr/bin/time)")

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for family, generate in (("deep MLP", mlp), ("transformer stack",
                                                     transformer)):
            for size in sizes:
                text, ops = generate(size)
                model = os.path.join(tmp, "model.mlir")
                with open(model, "w") as f:
                    f.write(text)
                base_t, base_m = measure([amp_opt, model, "-o",
                                          os.path.join(tmp, "copy.mlir")])
                step = os.path.join(tmp, "step.mlir")
                train_t, train_m = measure([amp_opt, model,
                                            f"--amp-train-step={TRAIN}",
                                            "-o", step])
                back_t, back_m = measure([amp_opt, step,
                                          f"--pass-pipeline={BACKEND}",
                                          "-o", os.path.join(tmp, "out.mlir")])
                step_t, _ = measure([amp_opt, step, "-o",
                                     os.path.join(tmp, "step.copy.mlir")])
                with open(step) as f:
                    step_ops = sum(1 for line in f if re.match(r"\s+%\S+ = ", line))
                row = {"family": family, "forward_ops": ops,
                       "step_ops": step_ops, "baseline_s": base_t,
                       "step_baseline_s": step_t,
                       "baseline_mib": base_m, "train_step_s": train_t,
                       "train_step_mib": train_m, "backend_s": back_t,
                       "backend_mib": back_m}
                results.append(row)
                print(f"{family:<18} {ops:>7} ops (step {step_ops:>7}): "
                      f"parse+print {base_t:6.3f} s {base_m:6.0f} MiB | "
                      f"train-step {train_t:6.2f} s {train_m:6.0f} MiB | "
                      f"fuse+plan {back_t:6.2f} s {back_m:6.0f} MiB "
                      f"(step parse+print {step_t:5.2f} s) | "
                      f"ratio {(train_t + back_t) / max(base_t, 1e-3):5.1f}x",
                      flush=True)

    growth = {}
    for family in ("deep MLP", "transformer stack"):
        rows = [r for r in results if r["family"] == family]
        # Over all sizes, and between the two largest, where the start-up
        # of the process no longer hides the growth.
        growth[family] = {
            key: exponent([(r["forward_ops"], r[key]) for r in rows])
            for key in ("baseline_s", "train_step_s", "backend_s")}
        growth[family].update({
            key + "_top": exponent([(r["forward_ops"], r[key])
                                    for r in rows[-2:]])
            for key in ("baseline_s", "step_baseline_s", "train_step_s",
                        "backend_s")})
        g = growth[family]
        # Each stage against parse+print of its own input: what the passes
        # add to the growth that reading and writing the IR already has.
        g["train_step_excess"] = g["train_step_s_top"] - g["baseline_s_top"]
        g["backend_excess"] = g["backend_s_top"] - g["step_baseline_s_top"]
        print(f"{family}: growth exponent parse+print {g['baseline_s']:.2f}, "
              f"train-step {g['train_step_s']:.2f}, fuse+plan "
              f"{g['backend_s']:.2f} (1 = linear); between the two largest "
              f"sizes {g['baseline_s_top']:.2f}, {g['train_step_s_top']:.2f}, "
              f"{g['backend_s_top']:.2f} (step parse+print "
              f"{g['step_baseline_s_top']:.2f}); beyond parse+print of the "
              f"same input: train-step {g['train_step_excess']:+.2f}, "
              f"fuse+plan {g['backend_excess']:+.2f}")

    if args.record:
        date = datetime.date.today().isoformat()
        machine = f"{platform.machine()}, {os.cpu_count()} cores"
        out = os.path.join(ROOT, "bench", "results", f"compile-time-{date}")
        with open(out + ".json", "w") as f:
            json.dump({"date": date, "machine": machine, "train": TRAIN,
                       "backend": BACKEND, "results": results,
                       "growth": growth}, f, indent=1)
        with open(out + ".md", "w") as f:
            f.write(f"# Compile time, {date} ({machine})\n\n"
                    f"`amp-opt --amp-train-step=\"{TRAIN}\"`, then "
                    f"`{BACKEND}`, against parse+verify+print of the same "
                    f"model in the same run.\n\n"
                    "| graph | forward ops | step ops | parse+print s | MiB | "
                    "train-step s | MiB | step parse+print s | fuse+plan s | "
                    "MiB | ratio |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|\n")
            for r in results:
                f.write(f"| {r['family']} | {r['forward_ops']} | "
                        f"{r['step_ops']} | {r['baseline_s']:.2f} | "
                        f"{r['baseline_mib']:.0f} | {r['train_step_s']:.2f} | "
                        f"{r['train_step_mib']:.0f} | "
                        f"{r['step_baseline_s']:.2f} | {r['backend_s']:.2f} | "
                        f"{r['backend_mib']:.0f} | "
                        f"{(r['train_step_s'] + r['backend_s']) / max(r['baseline_s'], 1e-3):.1f}x |\n")
            f.write("\nGrowth exponents (slope of log time over log size; "
                    "1 is linear):\n\n")
            for family, g in growth.items():
                f.write(f"- {family}: over all sizes parse+print "
                        f"{g['baseline_s']:.2f}, train-step "
                        f"{g['train_step_s']:.2f}, fuse+plan "
                        f"{g['backend_s']:.2f}; between the two largest "
                        f"sizes parse+print {g['baseline_s_top']:.2f}, "
                        f"train-step {g['train_step_s_top']:.2f}, step "
                        f"parse+print {g['step_baseline_s_top']:.2f}, "
                        f"fuse+plan {g['backend_s_top']:.2f}; excess over "
                        f"parse+print of the same input: train-step "
                        f"{g['train_step_excess']:+.2f}, fuse+plan "
                        f"{g['backend_excess']:+.2f}\n")
        print(f"recorded {out}.json and .md")
    if args.check and any(g["train_step_excess"] > 0.15 or
                          g["backend_excess"] > 0.15 for g in growth.values()):
        print("error: the pipeline grows faster than linearly", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
