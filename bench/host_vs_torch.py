#!/usr/bin/env python3
"""The compiled host step against PyTorch on the CPU: same models, same
weights, same batch, same optimizer, same thread count.

  bench/host_vs_torch.py [--build build] [--threads 1,2] [--rounds 5]
                         [--steps 5] [--models gpt2,mlp,...] [--no-compile]
                         [--record [--label NAME]]

Models (AdamW lr 1e-3, betas 0.9/0.999, eps 1e-8, weight decay 0.01,
gradient-norm clipping at 1.0 on both sides):
  gpt2               bench/gpt2.py's model: 2 layers, width 256, 4 heads,
                     sequence 128, vocabulary 4096, batch 8 (PyTorch:
                     bench/torch_gpt2.py's module);
  mlp                784-1024-1024-10 with ReLU, batch 256, mean
                     cross-entropy;
  example-gpt_block  examples/gpt_block.mlir (the gpt2 model with 1 block,
                     width 64, sequence 32, vocabulary 128, batch 4);
  example-mlp        examples/mlp.mlir (784-256-10, batch 64).

Contenders, alternated within each round so that they see the same load:
  ours f32 / ours bf16   amp-compile --target=host, run by amp-step with
                         AMP_NUM_THREADS threads; the f32 step starts from
                         PyTorch's weights and batch (the first losses are
                         printed side by side), the bf16 one from its own;
  eager f32              PyTorch with torch.set_num_threads;
  compile f32            torch.compile of the module (default mode),
                         unless --no-compile or it fails (then said why).
Each round times --steps steps after one warm-up step, per contender; the
ratios to eager and to compile are per round, reported min/median/max.

Then the GEMMs of the models' shapes: our host GEMM (libamp_runtime.so
through ctypes) against torch.matmul, in GFLOP/s and as a fraction of the
measured peak: one core running independent 8-lane FMAs from registers
(compiled here with c++), times the threads. (Our GEMM does not use FMA,
to keep the interpreter's roundings; on CPUs with as many add and multiply
pipes as FMA pipes, such as AMD's Zen, that costs no peak.)

Needs PyTorch (CPU). --record writes bench/results/host-vs-torch-<date>
[-label].{json,md}.
"""
import argparse
import ctypes
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import gpt2  # noqa: E402
import torch_gpt2  # noqa: E402

GPT2_SIZES = dict(layers=2, width=256, heads=4, seq=128, vocab=4096, batch=8)
MLP_SIZES = dict(inputs=784, hidden=1024, classes=10, batch=256)
TRAIN_OPTIONS = "lr=0.001 beta1=0.9 beta2=0.999 eps=1e-08 weight-decay=0.01 max-grad-norm=1.0"


def mlp_mlir(inputs, hidden, classes, batch):
    """The MLP in the amp dialect: two ReLU layers and a linear one."""
    t = lambda *shape, e="f32": "tensor<" + "x".join(map(str, shape)) + "x" + e + ">"
    widths = [inputs, hidden, hidden, classes]
    args = [f"%x: {t(batch, inputs)}", f"%labels: tensor<{batch}xi64>"]
    body, h = [], "%x"
    for i in range(3):
        n, m = widths[i], widths[i + 1]
        args += [f"%w{i}: {t(n, m)} {{amp.param}}", f"%b{i}: tensor<{m}xf32> {{amp.param}}"]
        body += [f"%mm{i} = amp.matmul {h}, %w{i} : {t(batch, n)}, {t(n, m)} to {t(batch, m)}",
                 f"%z{i} = amp.add %mm{i}, %b{i} : {t(batch, m)}, tensor<{m}xf32>"]
        h = f"%z{i}"
        if i < 2:
            body.append(f"%h{i} = amp.relu %z{i} : {t(batch, m)}")
            h = f"%h{i}"
    body.append(f"%loss = amp.cross_entropy {h}, %labels : {t(batch, classes)}, "
                f"tensor<{batch}xi64> to tensor<f32>")
    return ("func.func @mlp(" + ", ".join(args) + ") -> tensor<f32> {\n" +
            "".join(f"  {line}\n" for line in body) + "  return %loss : tensor<f32>\n}\n")


def torch_mlp(torch, widths):
    """Linear layers of `widths` with ReLU between them, mean cross-entropy."""
    nn = torch.nn
    layers = []
    for i in range(len(widths) - 1):
        layers.append(nn.Linear(widths[i], widths[i + 1]))
        if i + 2 < len(widths):
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    loss = nn.CrossEntropyLoss()

    class Mlp(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = model

        def forward(self, x, labels):
            return loss(self.net(x), labels)

    return Mlp()


def mlp_weights(module, first):
    """w<i>, b<i> from `first` on, [in, out] as our matmuls take them."""
    p = {k: v.detach().numpy() for k, v in module.named_parameters()}
    linears = sorted({int(k.split(".")[1]) for k in p})
    out = {}
    for i, layer in enumerate(linears, start=first):
        out[f"w{i}"] = p[f"net.{layer}.weight"].T.copy()
        out[f"b{i}"] = p[f"net.{layer}.bias"]
    return out


# bench/gpt2.py's names for block 0 as examples/gpt_block.mlir spells them.
GPT_BLOCK_NAMES = {"h0_ln1_scale": "ln1_scale", "h0_ln1_bias": "ln1_bias",
                   "h0_qkv_w": "attn_qkv_w", "h0_qkv_b": "attn_qkv_b",
                   "h0_proj_w": "attn_proj_w", "h0_proj_b": "attn_proj_b",
                   "h0_ln2_scale": "ln2_scale", "h0_ln2_bias": "ln2_bias",
                   "h0_fc_w": "mlp_fc_w", "h0_fc_b": "mlp_fc_b",
                   "h0_mlp_proj_w": "mlp_proj_w", "h0_mlp_proj_b": "mlp_proj_b"}


def gpt_weights(module, layers):
    """bench/gpt2.py's parameters from bench/torch_gpt2.py's module."""
    p = {k: v.detach().numpy() for k, v in module.named_parameters()}
    out = {"wte": p["wte.weight"], "wpe": p["wpe.weight"],
           "lnf_scale": p["ln_f.weight"], "lnf_bias": p["ln_f.bias"]}
    for i in range(layers):
        b = f"blocks.{i}."
        out.update({f"h{i}_ln1_scale": p[b + "ln_1.weight"], f"h{i}_ln1_bias": p[b + "ln_1.bias"],
                    f"h{i}_ln2_scale": p[b + "ln_2.weight"], f"h{i}_ln2_bias": p[b + "ln_2.bias"]})
        for name in ("qkv", "proj", "fc", "mlp_proj"):
            out[f"h{i}_{name}_w"] = p[b + name + ".weight"].T.copy()
            out[f"h{i}_{name}_b"] = p[b + name + ".bias"]
    return out


# The models: (kind, sizes, the example file or None). gpt sizes as
# bench/gpt2.py's; mlp sizes: widths and batch.
EXAMPLE_GPT = dict(layers=1, width=64, heads=4, seq=32, vocab=128, batch=4)
MODELS = {
    "gpt2": ("gpt", GPT2_SIZES, None),
    "mlp": ("mlp", MLP_SIZES, None),
    "example-gpt_block": ("gpt", EXAMPLE_GPT, "examples/gpt_block.mlir"),
    "example-mlp": ("mlp", dict(inputs=784, hidden=256, classes=10, batch=64, layers=1),
                    "examples/mlp.mlir"),
}


def prepare(key, torch):
    """(MLIR text, function name, torch module, batch tuple, batch by
    argument name, weights by argument name) of model `key`, seeded."""
    kind, s, example = MODELS[key]
    torch.manual_seed(0)
    if kind == "gpt":
        module = torch_gpt2.build(torch, s["layers"], s["width"], s["heads"], s["seq"],
                                  s["vocab"])
        tokens = torch.randint(0, s["vocab"], (s["batch"], s["seq"]))
        targets = torch.randint(0, s["vocab"], (s["batch"], s["seq"]))
        batch = (tokens, targets)
        named = {"tokens": tokens.numpy(), "targets": targets.numpy()}
        weights = gpt_weights(module, s["layers"])
        if example:
            weights = {GPT_BLOCK_NAMES.get(k, k): v for k, v in weights.items()}
            text, function = None, "gpt_block"
        else:
            text, function = gpt2.model(*(s[k] for k in gpt2.SIZES)), "gpt2"
    else:
        hidden = [s["hidden"]] * s.get("layers", 2)
        module = torch_mlp(torch, [s["inputs"], *hidden, s["classes"]])
        x = torch.randn(s["batch"], s["inputs"])
        labels = torch.randint(0, s["classes"], (s["batch"],))
        batch = (x, labels)
        named = {"x": x.numpy(), "labels": labels.numpy()}
        # examples/mlp.mlir counts its layers from 1.
        weights = mlp_weights(module, 1 if example else 0)
        text = None if example else mlp_mlir(s["inputs"], s["hidden"], s["classes"],
                                             s["batch"])
        function = "mlp"
    if example:
        with open(os.path.join(ROOT, example)) as f:
            text = f.read()
    return text, function, module, batch, named, weights


ARGUMENT = re.compile(r'%arg(\d+): tensor<([0-9x]*)(f32|i64)>(?: \{([^}]*)\})?')


def write_inputs(step_ir, directory, weights, batch, np):
    """arg<i>.npy for every argument of the step: the weights and the batch
    by name, zeros for the optimizer's state."""
    with open(step_ir) as f:
        header = next(line for line in f if "func.func" in line)
    os.makedirs(directory, exist_ok=True)
    for index, shape, element, attributes in ARGUMENT.findall(header):
        dims = tuple(int(d) for d in shape.split("x") if d)
        name = re.search(r'amp.name = "([^"]+)"', attributes or "")
        name = name.group(1) if name else None
        if name in weights:
            value = weights[name]
        elif name in batch:
            value = batch[name]
        else:
            value = np.zeros(dims, dtype=np.int64 if element == "i64" else np.float32)
        if value.shape != dims:
            sys.exit(f"host_vs_torch.py: argument {index} ({name}) is {value.shape}, "
                     f"the step wants {dims}")
        np.save(os.path.join(directory, f"arg{index}.npy"), value)


def run_ours(tool, library, name, inputs, threads, steps):
    """(ms per step, first loss) of `steps` steps after a warm-up one."""
    command = [tool, library, name, f"--bench={steps}", "--steps=1"]
    command += [f"--inputs={inputs}"] if inputs else ["--seed=1", "--index-bound=10"]
    env = dict(os.environ, AMP_NUM_THREADS=str(threads))
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    ms = float(re.search(r"timed \d+ steps: ([0-9.]+) ms/step", out).group(1))
    first = float(re.search(r"step 0 loss ([-0-9.e+na]+)", out).group(1))
    return ms, first


def make_torch_step(torch, module, batch, compiled):
    optimizer = torch.optim.AdamW(module.parameters(), lr=1e-3, betas=(0.9, 0.999),
                                  eps=1e-8, weight_decay=0.01)
    forward = torch.compile(module) if compiled else module

    def step():
        loss = forward(*batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(module.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.item()
    return step


def time_torch(torch, step, threads, steps):
    torch.set_num_threads(threads)
    step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps * 1e3


def spread(values):
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def gemm_shapes():
    """(m, n, k, transpose A, transpose B) of the models' GEMMs, and a cube."""
    g, m = GPT2_SIZES, MLP_SIZES
    bt, c = g["batch"] * g["seq"], g["width"]
    return [(bt, 3 * c, c, 0, 0), (bt, 4 * c, c, 0, 0), (bt, c, 4 * c, 0, 0),
            (bt, g["vocab"], c, 0, 1), (bt, c, g["vocab"], 0, 0),
            (c, 4 * c, bt, 1, 0), (m["batch"], m["hidden"], m["inputs"], 0, 0),
            (m["batch"], m["hidden"], m["hidden"], 0, 0), (1024, 1024, 1024, 0, 0)]


def gemm_rates(torch, runtime, shapes, threads, peak_per_core):
    """GFLOP/s of our GEMM and of torch.matmul on `shapes` (m, n, k, transposes),
    in a process whose AMP_NUM_THREADS is `threads`."""
    import numpy as np

    class Gemm(ctypes.Structure):
        _fields_ = [("ab_dtype", ctypes.c_int), ("c_dtype", ctypes.c_int),
                    ("trans_a", ctypes.c_int), ("trans_b", ctypes.c_int),
                    ("m", ctypes.c_int64), ("n", ctypes.c_int64), ("k", ctypes.c_int64),
                    ("batch", ctypes.c_int64), ("alpha", ctypes.c_float),
                    ("beta", ctypes.c_float), ("epilogue", ctypes.c_int)]
    lib = ctypes.CDLL(runtime)
    lib.amp_device_create.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p)]
    lib.amp_stream_create.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.amp_gemm.argtypes = [ctypes.c_void_p, ctypes.POINTER(Gemm)] + [ctypes.c_void_p] * 4
    lib.amp_gemm.restype = ctypes.c_void_p
    device, stream = ctypes.c_void_p(), ctypes.c_void_p()
    if lib.amp_device_create(0, 0, ctypes.byref(device)) or \
            lib.amp_stream_create(device, ctypes.byref(stream)):
        sys.exit("host_vs_torch.py: cannot open the host device")
    torch.set_num_threads(threads)
    rows = []
    for m, n, k, ta, tb in shapes:
        a = np.random.rand(*((k, m) if ta else (m, k))).astype(np.float32)
        b = np.random.rand(*((n, k) if tb else (k, n))).astype(np.float32)
        c = np.zeros((m, n), np.float32)
        g = Gemm(0, 0, ta, tb, m, n, k, 1, 1.0, 0.0, 0)
        ptr = lambda x: x.ctypes.data_as(ctypes.c_void_p)

        def ours():
            if lib.amp_gemm(stream, ctypes.byref(g), ptr(a), ptr(b), None, ptr(c)):
                sys.exit("host_vs_torch.py: amp_gemm failed")
        ta_t, tb_t = torch.from_numpy(a), torch.from_numpy(b)
        theirs = lambda: torch.matmul(ta_t.t() if ta else ta_t, tb_t.t() if tb else tb_t)
        flops = 2.0 * m * n * k
        rate = {}
        for label, fn in (("ours", ours), ("torch", theirs)) * 2:  # alternated, best kept
            fn()
            reps = max(3, int(2e9 / flops))
            start = time.perf_counter()
            for _ in range(reps):
                fn()
            seconds = (time.perf_counter() - start) / reps
            rate[label] = max(rate.get(label, 0), flops / seconds / 1e9)
        ours_c = c.copy()
        want = theirs().numpy()
        close = bool(np.allclose(ours_c, want, rtol=1e-4, atol=1e-3))
        rows.append({"shape": f"{m}x{n}x{k}" + (" A^T" if ta else "") + (" B^T" if tb else ""),
                     "threads": threads, "ours_gflops": rate["ours"],
                     "torch_gflops": rate["torch"],
                     "ours_of_peak": rate["ours"] / (peak_per_core * threads),
                     "torch_of_peak": rate["torch"] / (peak_per_core * threads),
                     "same_values": close})
    return rows


PEAK_SOURCE = r"""
#include <chrono>
#include <cstdio>
typedef float v8 __attribute__((vector_size(32)));
// Twelve independent 8-lane multiply-adds per iteration: enough in flight
// to fill two FMA pipes of 4-5 cycles' latency.
__attribute__((target("avx2,fma"))) int main() {
  v8 acc[12], x = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  v8 y = x * 0.999999f;
  for (int i = 0; i < 12; ++i) acc[i] = x * (float)i;
  const long iterations = 200000000;
  auto start = std::chrono::steady_clock::now();
  for (long n = 0; n < iterations; ++n)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i)
      acc[i] = __builtin_ia32_vfmaddps256(acc[i], y, x);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  float sum = 0;
  for (int i = 0; i < 12; ++i) sum += acc[i][0];
  std::printf("%f %f\n", iterations * 12.0 * 16 / s / 1e9, sum);
}
"""


def measured_peak(tmp):
    """GFLOP/s of one core running FMAs from registers, or None off x86-64
    or without a C++ compiler."""
    source, binary = os.path.join(tmp, "peak.cpp"), os.path.join(tmp, "peak")
    with open(source, "w") as f:
        f.write(PEAK_SOURCE)
    try:
        subprocess.run(["c++", "-O2", source, "-o", binary], check=True,
                       capture_output=True)
        return max(float(subprocess.run([binary], check=True, capture_output=True,
                                        text=True).stdout.split()[0]) for _ in range(3))
    except (OSError, subprocess.CalledProcessError):
        return None


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f
                         if line.startswith("model name")), "")
    except OSError:
        return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--threads", default=f"1,{os.cpu_count()}")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--label", default="")
    parser.add_argument("--gemm-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--peak", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.gemm_child:
        import torch
        runtime = os.path.join(args.build, "lib", "libamp_runtime.so")
        print(json.dumps(gemm_rates(torch, runtime, gemm_shapes(), args.gemm_child,
                                    args.peak)))
        return 0
    try:
        import numpy as np
        import torch
    except ImportError:
        print("host_vs_torch.py: needs PyTorch and NumPy (pip install torch)", file=sys.stderr)
        return 1
    threads = sorted({int(t) for t in args.threads.split(",")})
    models = args.models.split(",")
    if args.rounds < 1 or args.steps < 1 or min(threads) < 1 or \
            not set(models) <= set(MODELS):
        parser.error("rounds, steps and threads must be at least 1; models among "
                     + ", ".join(MODELS))
    tool = lambda name: os.path.join(args.build, "bin", name)
    with tempfile.TemporaryDirectory() as tmp:
        peak_per_core = measured_peak(tmp)
    if not peak_per_core:
        print("host_vs_torch.py: cannot measure the peak (needs x86-64 with FMA and c++)",
              file=sys.stderr)
        return 1
    results = {"date": datetime.date.today().isoformat(), "machine": platform.machine(),
               "cpu": cpu_name(), "cores": os.cpu_count(),
               "peak_gflops_per_core": peak_per_core,
               "torch": torch.__version__, "steps": args.steps, "rounds": args.rounds,
               "models": [], "gemms": []}

    with tempfile.TemporaryDirectory() as tmp:
        for name in models:
            text, function, module, batch, named, weights = prepare(name, torch)
            # amp-compile names its outputs after the source file.
            os.makedirs(os.path.join(tmp, name))
            source = os.path.join(tmp, name, function + ".mlir")
            with open(source, "w") as f:
                f.write(text)
            libraries = {}
            for compute in ("f32", "bf16"):
                out = os.path.join(tmp, f"{name}-{compute}")
                subprocess.run([tool("amp-compile"), source, f"--compute-type={compute}",
                                "--optimizer=adamw", f"--train-options={TRAIN_OPTIONS}",
                                "--target=host", "-o", out], check=True,
                               stdout=subprocess.DEVNULL)
                libraries[compute] = os.path.join(out, f"lib{function}.so")
            inputs = os.path.join(tmp, f"{name}-inputs")
            write_inputs(os.path.join(tmp, f"{name}-f32", f"{function}.step.mlir"), inputs,
                         weights, named, np)
            start_state = {k: v.clone() for k, v in module.state_dict().items()}
            for count in threads:
                torch.set_num_threads(count)
                contenders = {"ours f32": None, "ours bf16": None, "eager f32": None}
                module.load_state_dict(start_state)
                first_torch = module(*batch).item()
                steps = {"eager f32": make_torch_step(torch, module, batch, False)}
                compile_note = "not run (--no-compile)"
                if not args.no_compile:
                    try:
                        torch._dynamo.reset()
                        steps["compile f32"] = make_torch_step(torch, module, batch, True)
                        steps["compile f32"]()
                        contenders["compile f32"] = None
                        compile_note = "ran"
                    except Exception as error:  # noqa: BLE001 (reported, not hidden)
                        steps.pop("compile f32", None)
                        compile_note = f"failed: {type(error).__name__}: {error}"[:300]
                times = {label: [] for label in contenders}
                first_ours = None
                for _ in range(args.rounds):
                    for label in contenders:
                        if label.startswith("ours"):
                            compute = label.split()[1]
                            ms, first = run_ours(tool("amp-step"), libraries[compute], function,
                                                 inputs if compute == "f32" else None,
                                                 count, args.steps)
                            if compute == "f32":
                                first_ours = first
                        else:
                            ms = time_torch(torch, steps[label], count, args.steps)
                        times[label].append(ms)
                ratios = {f"ours f32 / {label}": spread([o / t for o, t in
                                                         zip(times["ours f32"], times[label])])
                          for label in times if not label.startswith("ours")}
                ratios["ours bf16 / ours f32"] = spread(
                    [b / f for b, f in zip(times["ours bf16"], times["ours f32"])])
                row = {"model": name, "threads": count,
                       "ms": {label: spread(v) for label, v in times.items()},
                       "ratios": ratios, "first_loss": {"ours": first_ours, "torch": first_torch},
                       "torch_compile": compile_note}
                results["models"].append(row)
                print(f"{name}, {count} thread(s): first loss ours {first_ours:.6f}, "
                      f"torch {first_torch:.6f}; torch.compile {compile_note}")
                for label, v in row["ms"].items():
                    print(f"  {label:12s} {v['median']:9.1f} ms/step "
                          f"(min {v['min']:.1f}, max {v['max']:.1f})")
                for label, v in ratios.items():
                    print(f"  {label:24s} {v['median']:.2f}x "
                          f"(min {v['min']:.2f}, max {v['max']:.2f})")

    for count in threads:
        # The runtime reads AMP_NUM_THREADS once per process: a child each.
        child = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--gemm-child", str(count),
             "--build", args.build, "--peak", str(peak_per_core)],
            env=dict(os.environ, AMP_NUM_THREADS=str(count)), check=True,
            capture_output=True, text=True)
        results["gemms"] += json.loads(child.stdout)
    print(f"GEMM GFLOP/s (measured peak {peak_per_core:.0f} per core)")
    for r in results["gemms"]:
        print(f"  {r['shape']:22s} {r['threads']} thr: ours {r['ours_gflops']:6.1f} "
              f"({100 * r['ours_of_peak']:.0f}%), torch {r['torch_gflops']:6.1f} "
              f"({100 * r['torch_of_peak']:.0f}%){'' if r['same_values'] else '  VALUES DIFFER'}")

    if args.record:
        stem = f"host-vs-torch-{results['date']}" + (f"-{args.label}" if args.label else "")
        base = os.path.join(ROOT, "bench", "results", stem)
        with open(base + ".json", "w") as f:
            json.dump(results, f, indent=1)
        with open(base + ".md", "w") as f:
            f.write(markdown(results))
        print(f"wrote {base}.json and .md")
    same = all(r["same_values"] for r in results["gemms"])
    return 0 if same else 1


def markdown(r):
    lines = [f"# Compiled host step vs PyTorch on the CPU, {r['date']}", "",
             f"Machine: {r['machine']} ({r['cpu']}), {r['cores']} cores, measured peak "
             f"{r['peak_gflops_per_core']:.0f} f32 GFLOP/s per core; "
             f"PyTorch {r['torch']}. {r['rounds']} rounds of {r['steps']} steps per "
             "contender, alternated; `bench/host_vs_torch.py`.", "",
             "| model | threads | ours f32 ms | ours bf16 ms | eager f32 ms | compile f32 ms "
             "| ours/eager | ours/compile | bf16/f32 | first loss ours / torch |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in r["models"]:
        ms, ratio = row["ms"], row["ratios"]
        cell = lambda v: f"{v['median']:.1f} ({v['min']:.1f}-{v['max']:.1f})" if v else "-"
        rcell = lambda v: f"{v['median']:.2f}x ({v['min']:.2f}-{v['max']:.2f})" if v else "-"
        lines.append(
            f"| {row['model']} | {row['threads']} | {cell(ms['ours f32'])} | "
            f"{cell(ms['ours bf16'])} | {cell(ms['eager f32'])} | "
            f"{cell(ms.get('compile f32'))} | {rcell(ratio.get('ours f32 / eager f32'))} | "
            f"{rcell(ratio.get('ours f32 / compile f32'))} | "
            f"{rcell(ratio['ours bf16 / ours f32'])} | "
            f"{row['first_loss']['ours']:.6f} / {row['first_loss']['torch']:.6f} |")
    notes = {row["torch_compile"] for row in r["models"] if row["torch_compile"] != "ran"}
    lines += [""] + [f"torch.compile: {note}" for note in sorted(notes)]
    lines += ["", f"GEMMs (f32, GFLOP/s; peak {r['peak_gflops_per_core']:.0f} per core):", "",
              "| shape (m x n x k) | threads | ours | % of peak | torch.matmul | % of peak |",
              "|---|---|---|---|---|---|"]
    for g in r["gemms"]:
        lines.append(f"| {g['shape']} | {g['threads']} | {g['ours_gflops']:.1f} | "
                     f"{100 * g['ours_of_peak']:.0f}% | {g['torch_gflops']:.1f} | "
                     f"{100 * g['torch_of_peak']:.0f}% |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
