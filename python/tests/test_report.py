"""The terminal tables of python -m ampmlir.report: per op, the precision
and why, the output, the parameters read, the forward FLOPs and the
activations; figures for the MLP by hand."""

import os
import subprocess
import sys

from ampmlir import report
from conftest import EXAMPLES, ROOT


def test_the_mlp_table_has_its_figures_by_hand():
    text = report.render(report.decisions(EXAMPLES / "mlp.mlir", "f16"))
    lines = text.splitlines()
    assert lines[0].startswith("@mlp in f16: converted 3/4 ops to f16")
    assert lines[1].split() == ["op", "location", "output", "precision",
                                "parameters", "forward", "FLOPs",
                                "activations", "why"]
    first = lines[3]
    # x [64, 784] by w1 [784, 256] and b1: 2 * 64 * 784 * 256 + 64 * 256
    # = 25,706,496 FLOPs, 784 * 256 + 256 = 200,960 parameters, an f16
    # output of 64 * 256 * 2 bytes = 32 KiB.
    assert first.startswith("amp.matmul"), first
    for cell in ("mlp.mlir:21:18", "tensor<64x256xf16>", "f16",
                 "w1, b1 (200,960)", "25.7 MFLOP", "32.0 KiB",
                 "lower-precision (default category)"):
        assert cell in first, (cell, first)
    assert lines[6].startswith("amp.cross_entropy") and "4 B" in lines[6]
    # Each parameter once in the total, as --amp-model-summary counts.
    assert lines[7].startswith("total: 4 ops, parameters 4 tensors, 203530 "
                               "elements (795.04 KiB), forward 26.1 MFLOP")
    # Cut reasons end in "...", --wide keeps them whole.
    assert "..." in first
    wide = report.render(report.decisions(EXAMPLES / "mlp.mlir", "f16"),
                         wide=True)
    assert "the bias add at" in wide and "is folded in (one rounding)" in wide


def test_the_command_prints_the_table_or_says_what_is_wrong(tmp_path):
    def command(*args):
        env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
        return subprocess.run([sys.executable, "-m", "ampmlir.report", *args],
                              capture_output=True, text=True, cwd=tmp_path,
                              env=env)

    done = command(str(EXAMPLES / "gpt_block.mlir"), "--compute-type=bf16")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("@gpt_block in bf16: converted")
    assert "amp.attention" in done.stdout
    done = command(str(tmp_path / "absent.mlir"))
    assert done.returncode == 1 and "no model file" in done.stderr
    done = command(str(EXAMPLES / "mlp.mlir"), "--compute-type=f8")
    assert done.returncode == 1 and "unknown compute-type 'f8'" in done.stderr
