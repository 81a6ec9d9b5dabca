"""The main job of `make demo`: the example models compiled with f16 AMP
(dynamic loss scaling) and in fp32, trained side by side on data sets made
here with a warmup-cosine learning rate, on the GPU when there is one and
on the host otherwise, then evaluated on held-out batches; prints what the
compiler decided and how training went, and writes reports.

    python3 -m ampmlir.demo [--out out/demo] [--steps N] [--quick]
"""

import argparse
import datetime
import json
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

from . import data as datasets
from . import runlog
from ._errors import AmpError
from .compiler import autocast_report, compile as compile_model, opt
from .step import cuda_available, host_threads

ROOT = Path(__file__).resolve().parents[2]

# The scale grows after this many clean steps (PyTorch's default is 2000):
# short enough that a run of a few hundred steps shows the scaler grow,
# overflow, skip the step and back off.
GROWTH_INTERVAL = 25

# data set, peak learning rate, steps, parameter groups.
MODELS = {
    "mlp": (datasets.clusters, 0.001, 300, None),
    # The GPT recipe: AdamW decays the weight matrices and the token
    # embedding, not the biases, norm parameters or position embedding.
    "gpt_block": (datasets.progressions, 0.003, 400,
                  {"no_decay": {"select": ["rank<2", "wpe"],
                                "weight_decay": 0.0}}),
    # Batch norm's running statistics are buffers; the validation loss is
    # the compiled evaluation's, batch norm in evaluation mode.
    "resnet": (datasets.images, 0.003, 200, None),
}


def schedule_options(lr, steps):
    """A linear warmup over the first tenth of the steps, then a cosine
    decay to a tenth of the peak rate at the last step."""
    warmup = max(steps // 10, 1)
    return (f"lr={lr} schedule=warmup-cosine warmup-steps={warmup} "
            f"decay-steps={max(steps - warmup, 1)} min-lr={lr / 10:g}")


def megabytes(n):
    return f"{n / 1e6:.2f} MB"


def print_cost(cost):
    """The f16 step's modeled cost on an H100 (amp-compile --cost-report):
    the modeled time against the ideal, and the costliest kernels."""
    gpu = cost["gpus"]["h100"]
    totals = cost["totals"]
    print(f"  on an {gpu['name']}, as modeled (no GPU needed): "
          f"{totals['launches']} launches, {totals['flops'] / 1e9:.3f} GFLOP "
          f"({totals['tensor_core_flops'] / 1e9:.3f} on tensor cores), "
          f"{megabytes(totals['bytes_read'] + totals['bytes_written'])} moved;")
    print(f"    {gpu['seconds'] * 1e6:.1f} us a step against an ideal "
          f"{gpu['ideal_seconds'] * 1e6:.1f} us, MFU {gpu['mfu']:.1%} "
          f"(launch overheads dominate a model this small)")
    kernels = sorted(cost["kernels"], key=lambda k: -k["seconds"]["h100"])
    costliest = ", ".join(f"{k['name']} {k['seconds']['h100'] * 1e6:.1f} us "
                          f"({k['bound']['h100']})" for k in kernels[:3])
    print(f"    costliest kernels: {costliest}")
    calls = library_calls(cost["kernels"])
    if calls:
        print(f"    library calls: {calls}")


# The cost report's strategies of the NVIDIA library calls a step makes.
LIBRARIES = {"gemm": "GEMMs (cuBLASLt)",
             "conv-cudnn": "convolutions (cuDNN)",
             "batch-norm-cudnn": "batch norms (cuDNN)",
             "attention-cudnn": "attentions (cuDNN)",
             "attention-grad-cudnn": "attention gradients (cuDNN)"}
# Counted by call, not by launch: a batch norm's call launches two or
# three kernels (cuDNN's forward, its backward).
BY_CALL = {"batch-norm-cudnn"}


def library_calls(kernels):
    """The step's library calls by kind, as "12 GEMMs (cuBLASLt), ..."."""
    counts = {}
    for k in kernels:
        s = k["strategy"]
        if s in LIBRARIES:
            counts[s] = counts.get(s, 0) + (1 if s in BY_CALL else k["launches"])
    return ", ".join(f"{counts[s]} {LIBRARIES[s]}" for s in LIBRARIES
                     if s in counts)


def train(step, batches, held_out, steps, label, every, log):
    """Trains `step` for `steps` steps, cycling through `batches`; prints a
    progress line every `every` steps, where the validation loss on
    `held_out` (the compiled evaluation) is taken too, and writes one record
    per step to `log` in the training log's format (JSON lines, as amp-step
    --log and Step.fit write them; "lr" the scheduled rate of the update
    made). Returns the losses, scales and the steps/s."""
    losses, scales, skipped_at = [], [], []
    start = last = time.perf_counter()
    with open(log, "w") as records:
        for i in range(steps):
            lr = step.current_lr
            step.run(*batches[i % len(batches)])
            loss, found = step.result()
            scale, done, skipped = step.scaler()
            losses.append(loss)
            scales.append(scale)
            if found:
                skipped_at.append(i)
            record = {"step": done, "epoch": i // len(batches) + 1,
                      "loss": loss, "scale": scale, "skipped": skipped,
                      "lr": lr}
            progress = (i + 1) % every == 0 or i + 1 == steps
            if progress:
                record["val_loss"] = sum(step.evaluate(*batch)
                                         for batch in held_out) / len(held_out)
            records.write(json.dumps(record) + "\n")
            if progress:
                now = time.perf_counter()
                rate = every / (now - last) if (i + 1) % every == 0 else 0
                last = now
                scale_text = (f"  scale {scale:>8.0f}  skipped {skipped:>2}"
                              if step.has_loss_scaling else "")
                print(f"    {label:<8} step {i + 1:>4}  loss {loss:8.4f}"
                      f"{scale_text}  {rate:7.0f} steps/s", flush=True)
    seconds = time.perf_counter() - start
    return {"losses": losses, "scales": scales, "skipped_steps": skipped_at,
            "steps_per_second": steps / seconds, "log": str(log)}


def final_loss(losses, window=20):
    tail = losses[-window:]
    return sum(tail) / len(tail)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="out/demo", type=Path)
    parser.add_argument("--steps", type=int, default=0,
                        help="training steps per run (default: per model)")
    parser.add_argument("--quick", action="store_true",
                        help="a few steps only (for tests)")
    parser.add_argument("--device", choices=("auto", "host", "cuda"),
                        default="auto")
    args = parser.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)

    device = args.device
    if device == "auto":
        device = "cuda" if cuda_available() else "host"
    print(f"amp-mlir demo: mixed-precision training of the example models "
          f"on the {device} backend")
    if device == "host":
        threads = host_threads()
        print(f"  The compiled steps run on the CPU, on {threads} thread"
              f"{'s' if threads > 1 else ''} (AMP_NUM_THREADS), bit for bit as"
              " the interpreter\n  computes them: GEMMs in register tiles of"
              " the runtime's blocked GEMM, each output\n  summed in order;"
              " within 1.2x of PyTorch's eager f32 step on a GPT-2-style model"
              "\n  (bench/host_vs_torch.py). The CPU has no f16 arithmetic:"
              " AMP is emulated there;\n  its speed shows on a GPU.")
    print(f"  The loss scale starts at 65536 and doubles after "
          f"{GROWTH_INTERVAL} clean steps (PyTorch:\n  2000) so that its "
          f"growth, overflows and backoffs show in a short run.")
    print()

    report = {"date": datetime.date.today().isoformat(), "device": device,
              "machine": platform.machine(), "models": {}}
    table = []
    for name, (make_data, lr, default_steps, groups) in MODELS.items():
        model = ROOT / "examples" / f"{name}.mlir"
        steps = args.steps or (20 if args.quick else default_steps)
        options = schedule_options(lr, steps)
        print(f"== {name} ({model.relative_to(ROOT)})")

        # What the model holds and what the compiler decides.
        for line in opt(model, "--amp-model-summary", "-o", "/dev/null").splitlines():
            if line.strip().startswith(("ops:", "parameters:", "buffers:",
                                        "forward FLOPs:")):
                print(f"  {line.strip()}")
        summary = autocast_report(model, out / f"{name}.autocast.json",
                                  dot=out / f"{name}.precision.dot")
        print(f"  autocast: {summary['line']}")
        svg = out / f"{name}.precision.svg"
        if shutil.which("dot"):
            subprocess.run(["dot", "-Tsvg", str(out / f"{name}.precision.dot"),
                            "-o", str(svg)], check=True)
        else:
            svg = None
            print("  (graphviz 'dot' is missing: no SVG of the graph)")
        for group, settings in (groups or {}).items():
            select = settings["select"]
            select = [select] if isinstance(select, str) else select
            print(f"  parameter group {group} ({' | '.join(select)}): "
                  + ", ".join(f"{key} {value:g}" for key, value in
                              settings.items() if key != "select"))
        compiled = {}
        for kind, compute_type in (("amp", "f16"), ("fp32", "f32")):
            begin = time.perf_counter()
            compiled[kind] = compile_model(
                model, out / f"{name}.{kind}", target=device,
                compute_type=compute_type, name=name, param_groups=groups,
                train_options=options + (f" growth-interval={GROWTH_INTERVAL}"
                                         if kind == "amp" else ""),
                cost_report=kind == "amp")
            print(f"  compiled the {compute_type} step in "
                  f"{time.perf_counter() - begin:.1f} s: "
                  f"{compiled[kind].library}")
        print_cost(compiled["amp"].cost)
        peak = {k: c.memory["peak_bytes"] for k, c in compiled.items()}
        print(f"  peak memory of a step: fp32 {megabytes(peak['fp32'])}, "
              f"f16 AMP {megabytes(peak['amp'])} "
              f"({peak['amp'] / peak['fp32']:.2f}x)")

        # How training goes: the same initial weights and batches for both,
        # then the loss on batches held out (the compiled evaluation).
        # (one draw, so that both come from the same distribution).
        drawn = make_data(seed=1, batches=36)
        batches, held_out = drawn[:32], drawn[32:]
        runs = {}
        print(f"  training {steps} steps each (the same initial weights and "
              f"batches; {options}):")
        for kind, label in (("amp", "f16 AMP"), ("fp32", "fp32")):
            with compiled[kind].load(device) as step:
                step.init(seed=0)
                runs[kind] = train(step, batches, held_out, steps, label,
                                   every=max(steps // 4, 1),
                                   log=out / f"{name}.{kind}.jsonl")
                runs[kind]["validation_loss"] = sum(
                    step.evaluate(*batch) for batch in held_out) / len(held_out)
        amp_final = final_loss(runs["amp"]["losses"])
        fp32_final = final_loss(runs["fp32"]["losses"])
        difference = amp_final - fp32_final
        print(f"  final loss (mean of the last 20 steps): f16 AMP "
              f"{amp_final:.4f}, fp32 {fp32_final:.4f}, difference "
              f"{difference:+.4f} ({difference / fp32_final:+.1%})")
        validation = {k: runs[k]["validation_loss"] for k in runs}
        print(f"  validation loss ({len(held_out)} held-out batches, the "
              f"compiled evaluation): f16 AMP {validation['amp']:.4f}, fp32 "
              f"{validation['fp32']:.4f}")
        png = out / f"{name}.training.png"
        drawn = runlog.plot(
            {"f16 AMP": runlog.read(runs["amp"]["log"]),
             "fp32": runlog.read(runs["fp32"]["log"])}, png,
            title=f"{name}: f16 AMP with dynamic loss scaling vs fp32")
        if not drawn:
            png = None
            print("  (matplotlib is missing: no PNG of the training curves)")
        print()

        report["models"][name] = {
            "autocast": summary, "peak_bytes": peak, "steps": steps,
            "train_options": options,
            "final_loss": {"amp": amp_final, "fp32": fp32_final,
                           "difference": difference},
            "validation_loss": validation,
            "runs": runs, "svg": str(svg) if svg else None,
            "png": str(png) if png else None}
        table.append((name, fp32_final, amp_final, difference,
                      validation, len(runs["amp"]["skipped_steps"]), peak,
                      runs["amp"]["steps_per_second"],
                      runs["fp32"]["steps_per_second"]))

    print("== summary")
    print(f"  {'model':<10} {'fp32 loss':>10} {'AMP loss':>10} {'diff':>9} "
          f"{'fp32 val':>9} {'AMP val':>9} "
          f"{'skipped':>8} {'peak fp32':>10} {'peak AMP':>10} "
          f"{'AMP steps/s':>12} {'fp32 steps/s':>12}")
    for (name, fp32, amp, diff, validation, skipped, peak, amp_rate,
         fp32_rate) in table:
        print(f"  {name:<10} {fp32:>10.4f} {amp:>10.4f} {diff:>+9.4f} "
              f"{validation['fp32']:>9.4f} {validation['amp']:>9.4f} "
              f"{skipped:>8} {megabytes(peak['fp32']):>10} "
              f"{megabytes(peak['amp']):>10} {amp_rate:>12.0f} "
              f"{fp32_rate:>12.0f}")
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    print()
    print(f"reports in {out}/: report.json, <model>.precision.svg (the graph "
          f"colored by precision), <model>.training.png (training and "
          f"validation losses, learning rate and loss scale, drawn by "
          f"python -m ampmlir.runlog from the training logs <model>.amp.jsonl and "
          f"<model>.fp32.jsonl), <model>.autocast.json")
    print()
    print("next steps:")
    print("  your own model in the amp dialect: docs/user-guide.md "
          "(write it, pick f16 or bf16, compile, train from Python or C++)")
    print("  a PyTorch model: docs/from-pytorch.md "
          "(.venv/bin/python python/examples/train_from_pytorch.py; "
          "make zoo for 26 models of torchvision and transformers)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AmpError as error:
        print(f"demo: error: {error}", file=sys.stderr)
        if getattr(error, "stderr", None):
            print(error.stderr, file=sys.stderr, end="")
        sys.exit(1)
