#!/usr/bin/env python3
"""The compiled host step against the reference interpreter, per training
step, on the example models.

Each example is compiled with amp-compile (host target) in f32, f16 and
bf16; the interpreter (amp-run --train-steps) and the compiled step
(amp-step) then train the same step IR on the same saved batch. The time of
one step is (time of N steps - time of 0 steps) / N for each tool, so
process start-up and loading are not counted. The interpreter is the
baseline, measured in the same run.

  bench/host_step.py [--build build] [--steps 40] [--record]

--record writes bench/results/host-step-<date>.{json,md}.
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


def wall(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def per_step(command_for, steps, repeats=3):
    """Seconds per step: the best of `repeats` runs of N and of 0 steps."""
    full = min(wall(command_for(steps)) for _ in range(repeats))
    empty = min(wall(command_for(0)) for _ in range(repeats))
    return max(full - empty, 1e-9) / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    tool = lambda name: os.path.join(args.build, "bin", name)

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for model in ("mlp", "gpt_block"):
            for compute in ("f32", "f16", "bf16"):
                work = os.path.join(tmp, f"{model}-{compute}")
                subprocess.run([tool("amp-compile"),
                                os.path.join(ROOT, "examples", model + ".mlir"),
                                f"--compute-type={compute}", "-o", work],
                               check=True, stdout=subprocess.DEVNULL)
                step_ir = os.path.join(work, f"{model}.step.mlir")
                inputs = os.path.join(work, "in")
                subprocess.run([tool("amp-run"), step_ir, "--random-inputs=1",
                                "--scale=0.1", "--index-bound=8",
                                f"--save-inputs={inputs}", "--train-steps=0"],
                               check=True, stdout=subprocess.DEVNULL)
                interpreter = per_step(lambda n: [
                    tool("amp-run"), step_ir, "--random-inputs=1",
                    "--scale=0.1", "--index-bound=8", f"--train-steps={n}",
                    f"--print-every={max(n, 1)}"], args.steps)
                compiled = per_step(lambda n: [
                    tool("amp-step"), os.path.join(work, f"lib{model}.so"),
                    model, f"--inputs={inputs}", f"--steps={n}"], args.steps)
                row = {"model": model, "compute_type": compute,
                       "interpreter_ms": interpreter * 1e3,
                       "compiled_ms": compiled * 1e3,
                       "speedup": interpreter / compiled}
                results.append(row)
                print(f"{model:<10} {compute:<5} interpreter "
                      f"{row['interpreter_ms']:8.2f} ms/step   compiled "
                      f"{row['compiled_ms']:7.2f} ms/step   "
                      f"{row['speedup']:6.1f}x", flush=True)

    if args.record:
        date = datetime.date.today().isoformat()
        machine = f"{platform.machine()}, {os.cpu_count()} cores"
        out = os.path.join(ROOT, "bench", "results", f"host-step-{date}")
        with open(out + ".json", "w") as f:
            json.dump({"date": date, "machine": machine, "steps": args.steps,
                       "results": results}, f, indent=1)
        with open(out + ".md", "w") as f:
            f.write(f"# Compiled host step vs interpreter, {date} "
                    f"({machine})\n\n"
                    f"One training step of each example, from {args.steps} "
                    "steps less the start-up (best of 3). The interpreter "
                    "(amp-run) is the baseline.\n\n"
                    "| model | compute | interpreter ms/step | compiled "
                    "ms/step | speedup |\n|---|---|---|---|---|\n")
            for r in results:
                f.write(f"| {r['model']} | {r['compute_type']} | "
                        f"{r['interpreter_ms']:.2f} | {r['compiled_ms']:.2f} | "
                        f"{r['speedup']:.1f}x |\n")
        print(f"recorded {out}.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
