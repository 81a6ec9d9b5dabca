"""Shared fixtures: the example models compiled once per test session."""

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ampmlir

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session")
def mlp_f16(tmp_path_factory):
    """examples/mlp.mlir as an f16 step with dynamic loss scaling."""
    return ampmlir.compile(EXAMPLES / "mlp.mlir",
                           tmp_path_factory.mktemp("mlp_f16"),
                           compute_type="f16")


@pytest.fixture(scope="session")
def interpreter_run(mlp_f16, tmp_path_factory):
    """The reference interpreter (amp-run) training the same step IR for
    12 steps from seeded inputs it saves as arg<i>.npy: the oracle for the
    compiled step. Returns (input directory, [(loss, scale, skipped)])."""
    inputs = tmp_path_factory.mktemp("inputs")
    out = ampmlir.run(mlp_f16.step_mlir, "--random-inputs=1",
                      "--index-bound=10", f"--save-inputs={inputs}",
                      "--train-steps=12", "--print-every=1")
    steps = []
    for line in out.splitlines():
        match = re.match(r"step (\d+) loss (\S+)(?: \S+ \S+)*? scale (\S+)( skipped)?$", line)
        if match:
            steps.append((float(match.group(2)), float(match.group(3)),
                          bool(match.group(4))))
    assert len(steps) == 12, out
    return inputs, steps


@pytest.fixture
def step(mlp_f16):
    with mlp_f16.load() as s:
        yield s


def load_inputs(step, directory):
    """Sets every tensor from directory/arg<i>.npy; returns the batch."""
    for info in step.tensors:
        step.load_npy(info.index, directory / f"arg{info.index}.npy")
    return [np.load(directory / f"arg{info.index}.npy") for info in step.inputs]
