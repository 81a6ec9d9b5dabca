"""The main job, shortened: it must print its summary and write every
report."""

import json
import subprocess
import sys

from conftest import ROOT


def test_the_demo_writes_its_reports(tmp_path):
    out = tmp_path / "demo"
    completed = subprocess.run(
        [sys.executable, "-m", "ampmlir.demo", "--quick", "--out", str(out)],
        capture_output=True, text=True, check=False, cwd=ROOT)
    assert completed.returncode == 0, completed.stderr
    text = completed.stdout
    assert "autocast: converted 3/4 ops to f16 with 4 casts" in text
    assert "peak memory of a step: fp32" in text
    assert "final loss (mean of the last 20 steps): f16 AMP" in text
    assert "validation loss (4 held-out batches, the compiled evaluation)" \
        in text
    assert "schedule=warmup-cosine warmup-steps=2 decay-steps=18" in text
    assert "parameter group no_decay (rank<2 | wpe): weight_decay 0\n" in text
    # The ResNet's batch norms keep their running statistics as buffers.
    assert "== resnet (examples/resnet.mlir)" in text
    # Its 9 convolutions, 9 weight gradients and 8 input gradients (the
    # first layer's input is the batch), its 9 batch norms and their 9
    # gradients, and the classifier's 3 GEMMs (forward, and the gradients
    # of its input and weight), as library calls.
    assert ("library calls: 3 GEMMs (cuBLASLt), 26 convolutions (cuDNN), "
            "18 batch norms (cuDNN)") in text
    assert "buffers: 18 tensors, 672 elements" in text
    # It ends with where to go next, and those places exist.
    assert text.rstrip().splitlines()[-3] == "next steps:"
    for place in ("docs/user-guide.md", "docs/from-pytorch.md",
                  "python/examples/train_from_pytorch.py"):
        assert place in text and (ROOT / place).is_file(), place
    report = json.loads((out / "report.json").read_text())
    for name in ("mlp", "gpt_block", "resnet"):
        model = report["models"][name]
        assert len(model["runs"]["amp"]["losses"]) == 20
        assert len(model["runs"]["fp32"]["losses"]) == 20
        assert set(model["validation_loss"]) == {"amp", "fp32"}
        # The training log the plot is drawn from: a record per step.
        log = [json.loads(line) for line in
               (out / f"{name}.amp.jsonl").read_text().splitlines()]
        assert [r["step"] for r in log] == list(range(1, 21))
        assert [r["loss"] for r in log] == model["runs"]["amp"]["losses"]
        # Validated at each progress line; the rate the schedule gave each
        # update: up over the 2 warmup steps, then down the cosine.
        assert [r["step"] for r in log if "val_loss" in r] == [5, 10, 15, 20]
        rates = [r["lr"] for r in log]
        assert rates[0] < rates[1] < rates[2] and rates[2] > rates[-1] > 0
        svg = (out / f"{name}.precision.svg").read_text()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
        assert (out / f"{name}.training.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_example_script_trains_saves_and_resumes(tmp_path):
    completed = subprocess.run(
        [sys.executable, str(ROOT / "python" / "examples" / "train_mlp.py"),
         "--steps", "100", "--out", str(tmp_path)],
        capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.splitlines()
    assert lines[1] == "inputs: x f32[64, 784], labels i64[64]"
    first, last = (float(l.split()[3]) for l in lines if l.startswith("step"))
    assert last < first < 2.5  # it learns
    assert lines[-1].startswith("resumed at step 101: loss ")
