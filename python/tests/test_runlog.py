"""Training logs read, written as CSV and TensorBoard scalars, and drawn
(ampmlir.runlog), from logs written here by hand and by Step.fit."""

import csv
import json
import math
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import ampmlir
from ampmlir import runlog
from conftest import ROOT

PNG = b"\x89PNG\r\n\x1a\n"

RECORDS = [
    {"step": 1, "epoch": 1, "loss": 2.5, "scale": 65536.0, "skipped": 0,
     "lr": 0.0005, "steps_per_s": 10.0},
    {"step": 2, "epoch": 1, "loss": 0.1 + 0.2, "scale": 32768.0,
     "skipped": 1, "lr": 0.001, "steps_per_s": 11.0},
    {"step": 3, "epoch": 2, "loss": float("nan"), "val_loss": 1.75,
     "val_accuracy": 0.5, "scale": 32768.0, "skipped": 1, "lr": 0.001,
     "steps_per_s": 12.0},
]


def write_log(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_log_reads_back_and_bad_lines_are_named(tmp_path):
    log = write_log(tmp_path / "run.jsonl", RECORDS)
    got = runlog.read(log)
    assert got[:2] == RECORDS[:2] and math.isnan(got[2]["loss"])
    (tmp_path / "bad.jsonl").write_text('{"step": 1, "loss": 2}\n{"step": \n')
    with pytest.raises(ampmlir.AmpError, match=r"bad.jsonl:2: not a JSON"):
        runlog.read(tmp_path / "bad.jsonl")
    (tmp_path / "nostep.jsonl").write_text('{"loss": 2}\n')
    with pytest.raises(ampmlir.AmpError, match=r"nostep.jsonl:1: .*\"step\""):
        runlog.read(tmp_path / "nostep.jsonl")


def test_csv_has_a_column_per_key_and_every_bit(tmp_path):
    runlog.write_csv(RECORDS, tmp_path / "run.csv")
    with open(tmp_path / "run.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["step", "epoch", "loss", "scale", "skipped", "lr",
                             "steps_per_s", "val_loss", "val_accuracy"]
    # Every float reads back to its bits; a value a record lacks is empty.
    assert float(rows[1]["loss"]) == 0.1 + 0.2
    assert math.isnan(float(rows[2]["loss"]))
    assert rows[0]["val_loss"] == "" and float(rows[2]["val_loss"]) == 1.75
    assert [int(r["step"]) for r in rows] == [1, 2, 3]
    # Written whole: no temporary file is left beside it.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.csv"]


def test_tensorboard_gets_every_number_at_its_step(tmp_path, monkeypatch):
    # What the writer is handed, through a writer with the interface of
    # tensorboardX's and torch.utils.tensorboard's SummaryWriter.
    calls = []

    class Writer:
        def __init__(self, log_dir):
            calls.append(("open", log_dir))

        def add_scalar(self, tag, value, global_step):
            calls.append((tag, value, global_step))

        def close(self):
            calls.append(("close",))

    monkeypatch.setitem(sys.modules, "torch.utils.tensorboard", None)
    monkeypatch.setitem(sys.modules, "tensorboardX",
                        types.SimpleNamespace(SummaryWriter=Writer))
    runlog.write_tensorboard(RECORDS, tmp_path / "tb")
    assert calls[0] == ("open", str(tmp_path / "tb"))
    assert calls[-1] == ("close",)
    scalars = calls[1:-1]
    assert ("loss", 2.5, 1) in scalars and ("val_loss", 1.75, 3) in scalars
    assert ("lr", 0.001, 2) in scalars
    assert not [c for c in scalars if c[0] in ("step", "epoch")]
    assert len(scalars) == 5 + 5 + 7  # every number but step and epoch
    # Without either writer: an error that says what to install.
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(ampmlir.AmpError, match="pip install tensorboard"):
        runlog.write_tensorboard(RECORDS, tmp_path / "tb2")


def test_runs_are_drawn_and_the_command_checks_its_arguments(tmp_path):
    amp = write_log(tmp_path / "amp.jsonl", RECORDS)
    fp32 = write_log(tmp_path / "fp32.jsonl",
                     [dict(r, scale=1.0, skipped=0) for r in RECORDS])
    assert runlog.plot({"amp": runlog.read(amp), "fp32": runlog.read(fp32)},
                       tmp_path / "both.png")
    assert (tmp_path / "both.png").read_bytes()[:8] == PNG

    def command(*args):
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
        return subprocess.run([sys.executable, "-m", "ampmlir.runlog", *args],
                              capture_output=True, text=True, cwd=tmp_path,
                              env=env)

    done = command(str(amp), str(fp32), "--label", "f16 AMP", "--label",
                   "fp32", "--plot", str(tmp_path / "cli.png"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cli.png").read_bytes()[:8] == PNG
    done = command(str(amp), "--csv", str(tmp_path / "cli.csv"))
    assert done.returncode == 0 and (tmp_path / "cli.csv").is_file()
    for args, words in [
            ((str(amp),), "nothing to do"),
            ((str(amp), str(fp32), "--label", "x", "--plot", "p.png"),
             "1 --label for 2 logs"),
            ((str(amp), str(fp32), "--csv", "x.csv"), "write one log"),
            ((str(tmp_path / "absent.jsonl"), "--plot", "p.png"), "no log at")]:
        done = command(*args)
        assert done.returncode == 1 and words in done.stderr, (args, done.stderr)


def test_a_fit_log_is_drawn_and_written(step, tmp_path):
    # A log Step.fit wrote: its records, with validation and the scheduled
    # rate, to CSV and a picture.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 784)).astype(np.float32)
    labels = rng.integers(0, 10, 256)
    step.init(seed=0)
    step.fit({"x": x, "labels": labels}, epochs=2,
             val_data={"x": x[:64], "labels": labels[:64]}, val_every=2,
             print_every=2, log=tmp_path / "fit.jsonl", progress=None)
    records = runlog.read(tmp_path / "fit.jsonl")
    assert [r["step"] for r in records] == [2, 4, 6, 8]
    assert all("val_loss" in r for r in records)
    runlog.write_csv(records, tmp_path / "fit.csv")
    with open(tmp_path / "fit.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [float(r["val_loss"]) for r in rows] == \
        [r["val_loss"] for r in records]
    assert runlog.plot(records, tmp_path / "fit.png")
    assert (tmp_path / "fit.png").read_bytes()[:8] == PNG
