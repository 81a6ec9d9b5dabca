"""The GPU machine's checks and timings, prepared here: the machine has a
GPU but no MLIR, so the compiler runs here and the GPU machine only builds
and runs.

  gpu_check.py prepare OUT [--target=cuda|host] [--steps=N] [--tools=DIR]
      (here) compiles each case to source with amp-compile --source-only,
      saves its initial state and batch and the interpreter's losses, and
      writes OUT/run.sh.
  bash OUT/run.sh
      (there) builds the runtime standalone with CMake (or uses the one in
      $AMP_RUNTIME_BUILD), and then runs the runtime's tests (GoogleTest
      built from the sources prepare copied, where the machine lacks it)
      and its kernel benchmark (runtime-kernels.json) on the device; builds
      amp-step and every case with its build.sh, trains each case on the
      device and then again replaying a CUDA graph of the step (cuda
      target), and compares both runs with the interpreter; then times
      GPT-2 steps (BENCH) and prints tokens/s and MFU, and (cuda target,
      where PyTorch is installed) PyTorch's steps of the same models
      (bench/torch_gpt2.py). Arguments name the parts to run: tests
      cases timed torch (all by default).
  gpu_check.py throughput TIMING --name=N --tokens=T --flops-per-token=F
      (run.sh's) tokens/s and MFU from amp-step --bench's timing line.
  gpu_check.py cost REPORT TIMING --name=N [--gpu=h100|h200|auto]
                    [--kernels=CSV --profiled-steps=S]
      (run.sh's, cuda target) the step's measured time against the cost
      report's modeled one (amp-compile --cost-report); with a profiler's
      kernel summary (nsys stats --report cuda_gpu_kern_sum --format csv
      of S steps, where nsys is installed), each generated kernel's too.
  gpu_check.py compare REFERENCE GOT --rtol=R
      (run.sh's comparison) every step's skip and scale must agree exactly
      and its loss within a relative R; prints the largest deviation.

The GPU's kernels round differently from the interpreter (reductions in
another order, the runtime's norms multiply by 1/sqrt), so losses agree to a
tolerance, not bit for bit; the host target, checked the same way, agrees
exactly (test/Target/Cuda/differential.test).
"""
import argparse
import csv
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import gpt2  # noqa: E402  (bench/gpt2.py)
GTEST_SOURCES = "/usr/src/googletest"  # Debian's googletest package

# name, example (under examples/, or a path from the repository's root),
# compute type, extra amp-compile options, scale of the random inputs,
# relative tolerance. The MLP in f16 starts from inputs large enough to
# overflow: its first steps are skipped and the scale backs off.
# A model named "gpt2" is written by bench/gpt2.py with GPT2_SIZES: two
# blocks over 1024 rows, so that reductions of 1024 values (the bias
# gradients, the loss's sum) take the block-per-output path on a GPU.
CASES = [
    ("mlp-f16", "mlp", "f16", [], 1.0, 3e-2),
    ("mlp-f32-sgd", "mlp", "f32",
     ["--optimizer=sgd", "--train-options=momentum=0.9"], 0.1, 1e-3),
    ("gpt-bf16", "gpt_block", "bf16", [], 0.1, 3e-2),
    ("gpt-unfused-f16", "gpt_block_unfused", "f16", [], 0.1, 3e-2),
    ("gpt2-f16-clip", "gpt2", "f16", ["--train-options=max-grad-norm=1.0"],
     0.1, 3e-2),
    # ResNet-8: cuDNN's convolutions (fprop with a bias, dgrad, wgrad) and
    # batch norm's running statistics, in f16 and in f32.
    ("resnet-f16", "resnet", "f16",
     ["--optimizer=sgd", "--train-options=momentum=0.9"], 0.1, 3e-2),
    ("resnet-f32", "resnet", "f32",
     ["--optimizer=sgd", "--train-options=momentum=0.9"], 0.1, 1e-3),
    # Batch norms without a scale or bias (cuDNN's takes ones and zeros
    # from the workspace) and over [N, C] logits, in f16.
    ("cnn-bn-f16", "test/Target/Cuda/Inputs/cnn_bn", "f16", [], 0.1, 3e-2),
    # FP8 GEMMs (sm_89 and later): cuBLASLt's, with the runtime's amax,
    # scales and casts (a transpose through shared memory for the weight
    # gradients' operands), against the interpreter's exact FP8.
    ("fp8-mlp", "test/Golden/Inputs/fp8_mlp", "fp8", [], 0.1, 3e-2),
    ("gpt-fp8", "gpt_block", "fp8", [], 0.1, 3e-2),
    # Delayed scaling: each tensor cast once by the runtime's cast-transpose
    # (both layouts and the amax), GEMMs of FP8 operands, the state's
    # update.
    ("fp8-mlp-delayed", "test/Golden/Inputs/fp8_mlp", "fp8",
     ["--train-options=fp8-scaling=delayed"], 0.1, 3e-2),
    ("gpt-fp8-delayed", "gpt_block", "fp8",
     ["--train-options=fp8-scaling=delayed"], 0.1, 3e-2),
]
# Labels are drawn below this bound: the number of classes, for the models
# with fewer than 8.
INDEX_BOUND = {"cnn_bn": 5}
GPT2_SIZES = ["--layers", "2", "--width", "128", "--heads", "4", "--seq", "128",
              "--vocab", "512", "--batch", "8"]

# Timed steps of GPT-2 (bench/gpt2.py sizes): name, sizes, compute type.
# From a seed, with a random batch, so nothing large is shipped; on the
# cuda target 124M at batch 8 and 64, on the host a small one.
BENCH = {
    "cuda": [("gpt2-124m-b8", ["--batch", "8"], "bf16"),
             ("gpt2-124m-b8", ["--batch", "8"], "f16"),
             ("gpt2-124m-b64", ["--batch", "64"], "bf16"),
             ("gpt2-124m-b64", ["--batch", "64"], "f16"),
             ("gpt2-124m-b64", ["--batch", "64"], "fp8"),
             ("gpt2-124m-b64", ["--batch", "64"], "fp8-delayed")],
    "host": [("gpt2-small-b2", ["--layers", "2", "--width", "64", "--heads", "2",
                                "--seq", "32", "--vocab", "256", "--batch", "2"],
              "bf16")],
}
PEAK_FLOPS = gpt2.PEAK_FLOPS


def parse_steps(path):
    """(step, loss, scale, skipped) per 'step N loss X [part Y ...] [scale S
    [skipped]]' line of amp-run/amp-step (the parts of a loss between the
    loss and the scale)."""
    rows = []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words or words[0] != "step":
                continue
            skipped = words[-1] == "skipped"
            if skipped:
                words = words[:-1]
            fields = dict(zip(words[2::2], words[3::2]))
            scale = float(fields["scale"]) if "scale" in fields else None
            rows.append((int(words[1]), float(fields["loss"]), scale, skipped))
    return rows


def compare(reference, got, rtol):
    ref_rows, got_rows = parse_steps(reference), parse_steps(got)
    if not ref_rows or len(ref_rows) != len(got_rows):
        print(f"{got}: {len(got_rows)} steps, the reference {len(ref_rows)}")
        return 1
    worst = 0.0
    for (rs, rl, rsc, rsk), (gs, gl, gsc, gsk) in zip(ref_rows, got_rows):
        if rs != gs or rsc != gsc or rsk != gsk:
            print(f"{got}: step {gs} scale {gsc} skipped {gsk}; "
                  f"the reference: step {rs} scale {rsc} skipped {rsk}")
            return 1
        deviation = abs(gl - rl) / max(abs(rl), 1e-6)
        worst = max(worst, deviation)
        if not deviation <= rtol:  # also catches NaN
            print(f"{got}: step {gs} loss {gl:.9g}, the reference {rl:.9g} "
                  f"(relative {deviation:.3g} > {rtol:g})")
            return 1
    print(f"{got}: {len(got_rows)} steps within {rtol:g} of the interpreter "
          f"(largest relative deviation {worst:.3g})")
    return 0


def timed_ms(path):
    """The milliseconds per step of amp-step --bench's timing line, or
    None."""
    with open(path) as f:
        timed = [line for line in f if line.startswith("timed ")]
    return float(timed[-1].split(": ")[1].split()[0]) if timed else None


def throughput(path, name, tokens, flops_per_token):
    """Tokens/s and MFU from amp-step --bench's timing line."""
    ms = timed_ms(path)
    if ms is None:
        print(f"{name}: no timing in {path}")
        return 1
    per_second = tokens / (ms / 1e3)
    mfu = per_second * flops_per_token / PEAK_FLOPS
    print(f"{name}: {ms:.2f} ms/step, {per_second:,.0f} tokens/s, "
          f"MFU {100 * mfu:.1f}% of {PEAK_FLOPS / 1e12:.0f} TFLOP/s")
    return 0


def detect_gpu():
    """h200 where nvidia-smi names an H200, else h100."""
    try:
        names = subprocess.run(["nvidia-smi", "--query-gpu=name",
                                "--format=csv,noheader"], capture_output=True,
                               text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "h100"
    return "h200" if "H200" in names else "h100"


def cost(report_path, timing, name, gpu, kernels=None, profiled_steps=1):
    """The step's (and, given a kernel summary, each generated kernel's)
    measured time against the cost report's model."""
    with open(report_path) as f:
        report = json.load(f)
    if gpu == "auto":
        gpu = detect_gpu()
    on = report["gpus"][gpu]
    ms = timed_ms(timing)
    if ms is None:
        print(f"{name}: no timing in {timing}")
        return 1
    modeled = on["seconds"] * 1e3
    print(f"{name}: measured {ms:.2f} ms/step, modeled {modeled:.2f} ms on "
          f"{on['name']} ({ms / modeled:.2f}x the model)")
    if not kernels:
        return 0
    # Modeled time per functor (kernels that share code share a functor,
    # as the profiler sees them); library and runtime calls have none.
    per_functor = {}
    library = 0.0
    for k in report["kernels"]:
        if k["functor"]:
            per_functor[k["functor"]] = (per_functor.get(k["functor"], 0.0)
                                         + k["seconds"][gpu])
        else:
            library += k["seconds"][gpu]
    with open(kernels, newline="") as f:
        rows = list(csv.DictReader(f))
    measured = {functor: 0.0 for functor in per_functor}
    other = 0.0
    for row in rows:
        seconds = float(row["Total Time (ns)"]) * 1e-9 / profiled_steps
        owner = next((functor for functor in per_functor if re.search(
            r"(^|[<\s,(:])" + re.escape(functor) + r"($|[>\s,)])",
            row["Name"])), None)
        if owner:
            measured[owner] += seconds
        else:
            other += seconds
    print(f"  {'kernel':<32} {'modeled us':>11} {'measured us':>12} "
          f"{'ratio':>7}")
    for functor in sorted(measured, key=lambda f: -measured[f]):
        model = per_functor[functor] * 1e6
        got = measured[functor] * 1e6
        ratio = f"{got / model:.2f}x" if model > 0 else "-"
        print(f"  {functor:<32} {model:11.1f} {got:12.1f} {ratio:>7}")
    print(f"  {'library and runtime kernels':<32} {library * 1e6:11.1f} "
          f"{other * 1e6:12.1f}")
    return 0


def run(args, **kwargs):
    return subprocess.run(args, check=True, **kwargs)


def prepare(out, target, steps, tools):
    os.makedirs(out, exist_ok=True)
    # GoogleTest's sources, for a machine without the package.
    gtest = os.path.join(out, "googletest")
    if os.path.isdir(GTEST_SOURCES) and not os.path.isdir(gtest):
        shutil.copytree(GTEST_SOURCES, gtest)
    lines = [
        "#!/usr/bin/env bash",
        "# Written by scripts/gpu_check.py prepare: builds and runs every case",
        "# against the interpreter's losses. Needs CMake, a C++ compiler and",
        "# (cuda target) nvcc; not MLIR.",
        "set -euo pipefail",
        'kit="$(cd "$(dirname "$0")" && pwd)"',
        f"root={shlex.quote(ROOT)}",
        '[ -d "$root/runtime" ] || root="$(cd "$kit/.." && pwd)"',
        "status=0",
        "# Parts to run (all by default): tests cases timed torch.",
        'parts=" ${*:-tests cases timed torch} "',
        'want() { case "$parts" in *" $1 "*) return 0 ;; esac; return 1; }',
        "# Without a runtime given, build one, with its tests and kernel",
        "# benchmark (GoogleTest from the sources the kit carries).",
        'if [ -z "${AMP_RUNTIME_BUILD:-}" ]; then',
        '  AMP_RUNTIME_BUILD="$kit/runtime-build"',
        '  gtest=()',
        '  [ -d "$kit/googletest" ] && gtest=(-DAMP_GTEST_SOURCE_DIR="$kit/googletest")',
        '  cmake -S "$root/runtime" -B "$AMP_RUNTIME_BUILD" -DCMAKE_BUILD_TYPE=Release ${gtest[@]+"${gtest[@]}"} > "$kit/cmake.log"',
        '  cmake --build "$AMP_RUNTIME_BUILD" --target amp_runtime_shared amp_comm amp-runtime-bench -j "$(nproc)" > "$kit/build.log"',
    ]
    if target == "cuda":
        lines += [
            '  grep -q "CUDA backend: ON" "$kit/cmake.log" || {',
            '    echo "run.sh: CMake found no nvcc, so the runtime has no CUDA backend (set CUDACXX)" >&2',
            "    exit 1",
            "  }",
        ]
    lines += [
        "fi",
        'if [ "$AMP_RUNTIME_BUILD" = "$kit/runtime-build" ] && want tests; then',
        '  echo "== runtime tests"',
        '  if cmake --build "$AMP_RUNTIME_BUILD" --target AmpRuntimeTests -j "$(nproc)" >> "$kit/build.log" 2>&1; then',
        '    "$AMP_RUNTIME_BUILD/unittests/AmpRuntimeTests" --gtest_brief=1 || status=1',
        "  else",
        '    echo "no GoogleTest: the runtime tests were not built"',
        "  fi",
        '  echo "== runtime kernel benchmark"',
        f'  "$AMP_RUNTIME_BUILD/bin/amp-runtime-bench" --device {target} '
        '--json "$kit/runtime-kernels.json" || status=1',
        "fi",
        'lib="$AMP_RUNTIME_BUILD/lib"',
        '"${CXX:-c++}" ${CXXFLAGS:-} -std=c++17 -O2 -I"$root/runtime/include" \\',
        '  "$root/tools/amp-step/amp-step.cpp" \\',
        '  -o "$kit/amp-step" -L"$lib" -lamp_comm -lamp_runtime -ldl '
        '-Wl,-rpath,"$lib"',
        'export AMP_RUNTIME_INCLUDE="$root/runtime/include" AMP_RUNTIME_LIB="$lib"',
        ('export COMPILER="${COMPILER:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"'
         if target == "cuda" else 'export COMPILER="${COMPILER:-c++}"'),
    ]
    for case, example, compute, extra, scale, rtol in CASES:
        work = os.path.join(out, case)
        source = os.path.join(ROOT, "examples", example + ".mlir")
        if "/" in example:
            source = os.path.join(ROOT, example + ".mlir")
            example = os.path.basename(example)
        if example == "gpt2":
            os.makedirs(work, exist_ok=True)
            source = os.path.join(work, "gpt2.mlir")
            run([sys.executable, os.path.join(ROOT, "bench", "gpt2.py"), "-o", source]
                + GPT2_SIZES)
        run([os.path.join(tools, "amp-compile"), source,
             f"--target={target}", f"--compute-type={compute}", "--source-only",
             "-o", work, f"--name={example}"] + extra, stdout=subprocess.DEVNULL)
        reference = run([os.path.join(tools, "amp-run"),
                         os.path.join(work, example + ".step.mlir"),
                         "--random-inputs=1", f"--scale={scale:g}",
                         f"--index-bound={INDEX_BOUND.get(example, 8)}",
                         "--save-inputs=" + os.path.join(work, "in"),
                         f"--train-steps={steps}", "--print-every=1"],
                        capture_output=True, text=True).stdout
        with open(os.path.join(work, "reference.txt"), "w") as f:
            f.write("".join(l + "\n" for l in reference.splitlines() if l.startswith("step ")))
        step = (f'"$kit/amp-step" "$kit/{case}/lib{example}.so" {example} '
                f'--inputs="$kit/{case}/in" --steps={steps} --device={target}')
        check = (f'python3 "$root/scripts/gpu_check.py" compare "$kit/{case}/reference.txt"')
        # Each case in a subshell: a failure is reported and the next runs.
        lines += [
            "if want cases; then",
            f'echo "== {case}"',
            "(",
            "  rc=0",
            f'  sh "$kit/{case}/build.sh"',
            f'  {step} > "$kit/{case}/eager.txt" || rc=1',
            f'  {check} "$kit/{case}/eager.txt" --rtol={rtol:g} || rc=1',
        ]
        if target == "cuda":
            lines += [
                f'  {step} --graph > "$kit/{case}/graph.txt" || rc=1',
                f'  {check} "$kit/{case}/graph.txt" --rtol={rtol:g} || rc=1',
                f'  if [ "$rc" != 0 ]; then :',
                f'  elif cmp -s "$kit/{case}/eager.txt" "$kit/{case}/graph.txt"; then',
                '    echo "graph replay: identical to the launches"',
                "  else",
                '    echo "graph replay: within the tolerance, not identical to the launches"',
                "  fi",
            ]
        lines += ['  exit "$rc"', ") || status=1", "fi"]
    # Timed steps: every library first (in parallel), then each run alone.
    bench = os.path.join(out, "bench")
    os.makedirs(bench, exist_ok=True)
    lines += ["if want timed; then", 'echo "== timed steps"', "pids=()"]
    runs = []
    for name, sizes, compute in BENCH[target]:
        model = os.path.join(bench, name + ".mlir")
        run([sys.executable, os.path.join(ROOT, "bench", "gpt2.py"), "-o", model] + sizes)
        # Per token 6N + 6LCT (attention's causal half), as the benchmark
        # issue reckons MFU.
        sizes_parser = argparse.ArgumentParser()
        gpt2.add_size_arguments(sizes_parser)
        options = sizes_parser.parse_args(sizes)
        _, weights, attention = gpt2.summary(*gpt2.sizes_of(options, sizes_parser))
        flops = weights + attention // 2
        tokens = options.batch * options.seq
        case = f"{name}-{compute}"
        options = "max-grad-norm=1.0"
        if compute == "fp8-delayed":
            options += " fp8-scaling=delayed"
        run([os.path.join(tools, "amp-compile"), model, f"--target={target}",
             f"--compute-type={compute.replace('-delayed', '')}",
             "--optimizer=adamw", f"--train-options={options}", "--source-only",
             "--cost-report", "-o", os.path.join(bench, case), "--name=gpt2"],
            stdout=subprocess.DEVNULL)
        lines += [f'sh "$kit/bench/{case}/build.sh" & pids+=($!)']
        runs.append((case, flops, tokens))
    lines += ['for pid in "${pids[@]}"; do wait "$pid" || status=1; done']
    if target == "cuda":
        # The per-kernel timer, where CUPTI is at hand (it comes with the
        # CUDA toolkit).
        lines += [
            'kernel_times=""',
            'cuda_home="$(dirname "$(dirname "$COMPILER")")"',
            'if [ -f "$cuda_home/include/cupti.h" ] && "${CXX:-c++}" -std=c++17 '
            '-O2 -shared -fPIC "$root/tools/kernel-times/kernel_times.cpp" '
            '-o "$kit/libkernel_times.so" -I"$cuda_home/include" '
            '-L"$cuda_home/lib64" -L"$cuda_home/lib" -lcupti '
            '-Wl,-rpath,"$cuda_home/lib64:$cuda_home/lib"; then',
            '  kernel_times="$kit/libkernel_times.so"',
            "fi",
        ]
    graph = " --graph" if target == "cuda" else ""
    for case, flops, tokens in runs:
        lines += [
            f'"$kit/amp-step" "$kit/bench/{case}/libgpt2.so" gpt2 --seed=1 '
            f'--index-bound=256 --steps=3 --bench=50 --device={target}{graph} '
            f'> "$kit/bench/{case}.txt" || status=1',
            f'python3 "$root/scripts/gpu_check.py" throughput "$kit/bench/{case}.txt" '
            f'--name={case} --tokens={tokens} --flops-per-token={flops} || status=1',
        ]
        if target == "cuda":
            # The model against the GPU: the step, then each kernel over 3
            # profiled steps, timed by nsys or, where it is absent, by
            # CUPTI (tools/kernel-times), which writes nsys's summary.
            cost_cmd = (f'python3 "$root/scripts/gpu_check.py" cost '
                        f'"$kit/bench/{case}/gpt2.cost.json" "$kit/bench/{case}.txt" '
                        f'--name={case} --gpu=auto')
            profiled = (f'"$kit/amp-step" "$kit/bench/{case}/libgpt2.so" gpt2 '
                        f'--seed=1 --index-bound=256 --steps=3 --device=cuda '
                        f'> /dev/null')
            summary = f'"$kit/bench/{case}_cuda_gpu_kern_sum.csv"'
            lines += [
                f'{cost_cmd} || status=1',
                "if command -v nsys > /dev/null; then",
                f'  nsys profile --force-overwrite=true -o "$kit/bench/{case}" '
                f'{profiled} && '
                f'nsys stats --report cuda_gpu_kern_sum --format csv --force-export=true '
                f'-o "$kit/bench/{case}" "$kit/bench/{case}.nsys-rep" > /dev/null && '
                f'{cost_cmd} --kernels={summary} --profiled-steps=3 || status=1',
                'elif [ -n "$kernel_times" ]; then',
                f'  AMP_KERNEL_TIMES={summary} LD_PRELOAD="$kernel_times" '
                f'{profiled} && '
                f'{cost_cmd} --kernels={summary} --profiled-steps=3 || status=1',
                "fi",
            ]
    lines += ["fi"]
    if target == "cuda":
        # PyTorch's steps of the same models, where PyTorch is installed.
        lines += ['if want torch && python3 -c "import torch" 2> /dev/null; then',
                  'echo "== PyTorch"']
        for name, sizes, compute in BENCH[target]:
            if compute.startswith("fp8"):  # torch_gpt2.py has no FP8 recipe
                continue
            for compiled in ([], ["--compile"]) if compute == "bf16" else ([],):
                tag = f"{name}-{compute}" + ("-compile" if compiled else "")
                lines += [f'python3 "$root/bench/torch_gpt2.py" {" ".join(sizes)} '
                          f'--precision={compute} {" ".join(compiled)} '
                          f'--json "$kit/bench/torch-{tag}.json" || status=1']
        lines += ["fi"]
    lines += ['exit "$status"', ""]
    script = os.path.join(out, "run.sh")
    with open(script, "w") as f:
        f.write("\n".join(lines))
    os.chmod(script, 0o755)
    print(f"wrote {script} ({len(CASES)} cases, {steps} steps, {target} target)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("prepare")
    p.add_argument("out")
    p.add_argument("--target", choices=["cuda", "host"], default="cuda")
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--tools", default=os.path.join(ROOT, "build", "bin"),
                   help="where amp-compile and amp-run are")
    c = commands.add_parser("compare")
    c.add_argument("reference")
    c.add_argument("got")
    c.add_argument("--rtol", type=float, required=True)
    t = commands.add_parser("throughput")
    t.add_argument("timing")
    t.add_argument("--name", required=True)
    t.add_argument("--tokens", type=int, required=True)
    t.add_argument("--flops-per-token", type=int, required=True)
    k = commands.add_parser("cost")
    k.add_argument("report")
    k.add_argument("timing")
    k.add_argument("--name", required=True)
    k.add_argument("--gpu", choices=["h100", "h200", "auto"], default="auto")
    k.add_argument("--kernels")
    k.add_argument("--profiled-steps", type=int, default=1)
    args = parser.parse_args()
    if args.command == "cost":
        return cost(args.report, args.timing, args.name, args.gpu,
                    args.kernels, args.profiled_steps)
    if args.command == "compare":
        return compare(args.reference, args.got, args.rtol)
    if args.command == "throughput":
        return throughput(args.timing, args.name, args.tokens, args.flops_per_token)
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    prepare(os.path.abspath(args.out), args.target, args.steps, args.tools)
    return 0


if __name__ == "__main__":
    sys.exit(main())
