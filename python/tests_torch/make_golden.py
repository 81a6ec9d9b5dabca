"""Records PyTorch's side of the resnet18 comparisons of test_ecosystem.py
(golden/resnet18.json): the runs that take PyTorch minutes on a CPU and
whose figures do not depend on amp-mlir. The tests train amp-mlir's steps
live and compare them with these figures.

    .venv/bin/python python/tests_torch/make_golden.py

Recorded with the torch, torchvision and CPU named in the file; the tests
check that the weights and batches they start from are the ones recorded
here (fingerprint) before they compare.
"""

import datetime
import json
import platform
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here))

import torch  # noqa: E402
import torchvision  # noqa: E402

import test_ecosystem as eco  # noqa: E402
import test_import  # noqa: E402


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def f16_recipes(model, batches):
    """Autocast with GradScaler, pure f16 with f32 masters, and f64 taking
    the steps autocast skipped, as test_resnet18_in_f16_follows_pytorchs_recipes
    compares them."""
    losses, skipped, scales = test_import.autocast_losses(
        model, eco.classify, batches, eco.F16_INIT_SCALE, 20, eco.CALM_LR)
    pure = test_import.pure_f16_losses(
        model, eco.classify, batches, eco.F16_INIT_SCALE, 20, eco.CALM_LR)
    exact = eco.adamw_losses(model, batches, torch.float64, eco.CALM_LR,
                             skipped=skipped)
    return {
        "autocast": {"losses": losses.tolist(), "skipped": skipped,
                     "scales": scales},
        "pure": {"losses": [v for v, _ in pure],
                 "skipped": [k for k, (_, s) in enumerate(pure) if s]},
        "f64": exact.tolist(),
    }


def f32_configurations(model, batches):
    """PyTorch's f32 configurations other than its default (which
    test_resnet18_trains_as_pytorch_does trains beside the step), and f64."""
    runs = []
    for layout, count in eco.f32_configurations()[1:]:
        with eco.torch_threads(count):
            losses = eco.adamw_losses(model, batches, torch.float32,
                                      eco.CALM_LR, layout=layout)
        runs.append({"layout": eco.LAYOUT_NAMES[layout], "threads": count,
                     "losses": losses.tolist()})
    exact = eco.adamw_losses(model, batches, torch.float64, eco.CALM_LR)
    return {"configurations": runs, "f64": exact.tolist()}


def main():
    model, batches = eco.resnet18(eco.CALM_SIZE)
    golden = {
        "made_by": "python/tests_torch/make_golden.py",
        "date": datetime.date.today().isoformat(),
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "cpu": cpu_model(),
        "threads": torch.get_num_threads(),
        "fingerprint": eco.fingerprint(model, batches),
        "f16": f16_recipes(model, batches),
        "f32": f32_configurations(model, batches),
    }
    out = here / "golden" / "resnet18.json"
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(golden, indent=1) + "\n")
    tmp.replace(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
