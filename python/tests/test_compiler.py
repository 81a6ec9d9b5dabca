"""Compiling and running the tools from Python; errors carry the tools'
diagnostics."""

import inspect
import json

import pytest

import ampmlir
from ampmlir import _tools
from conftest import EXAMPLES

BAD_MODEL = """func.func @f(%x: tensor<4x8xf64>, %w: tensor<8x3xf64> {amp.param}) -> tensor<f64> {
  %mm = amp.matmul %x, %w : tensor<4x8xf64>, tensor<8x3xf64> to tensor<4x3xf64>
  %l = amp.sum %mm dims = [0, 1] : tensor<4x3xf64> to tensor<f64>
  return %l : tensor<f64>
}
"""


def test_compile_writes_the_library_and_its_reports(mlp_f16):
    assert mlp_f16.library.is_file() and mlp_f16.header.is_file()
    assert "mlp_describe" in mlp_f16.header.read_text()
    assert mlp_f16.source.suffix == ".cpp"
    assert mlp_f16.memory["function"] == "mlp_step"
    assert mlp_f16.memory["peak_bytes"] == (mlp_f16.memory["arena_bytes"] +
                                            mlp_f16.memory["argument_bytes"])


def test_the_cost_report_is_read_when_asked_for(mlp_f16, tmp_path):
    assert mlp_f16.cost is None
    step = ampmlir.compile(EXAMPLES / "mlp.mlir", tmp_path / "out",
                           cost_report=True)
    # The MLP's GEMMs, counted by hand (test/Target/Cuda/
    # cost-report-compile.test spells the sum out).
    assert step.cost["totals"]["tensor_core_flops"] == 52380288
    assert set(step.cost["gpus"]) == {"h100", "h200"}
    h100 = step.cost["gpus"]["h100"]
    assert 0 < h100["ideal_seconds"] < h100["seconds"]


def test_an_uncompilable_graph_raises_with_the_located_diagnostic(tmp_path):
    model = tmp_path / "f64.mlir"
    model.write_text(BAD_MODEL)
    with pytest.raises(ampmlir.CompileError) as error:
        ampmlir.compile(model, tmp_path / "out", compute_type="f32")
    assert error.value.tool == "amp-compile"
    assert "f64.mlir:2:9: error: the backend runs matmuls" in error.value.stderr
    assert "f64.mlir:2:9" in str(error.value)
    assert not (tmp_path / "out").exists()


def test_bad_arguments_are_refused_before_any_tool_runs(tmp_path):
    with pytest.raises(ampmlir.AmpError, match="no model file"):
        ampmlir.compile(tmp_path / "absent.mlir", tmp_path)
    model = EXAMPLES / "mlp.mlir"
    with pytest.raises(ampmlir.AmpError, match="target must be"):
        ampmlir.compile(model, tmp_path, target="tpu")
    with pytest.raises(ampmlir.AmpError, match="C identifier"):
        ampmlir.compile(model, tmp_path, name="my-model")
    with pytest.raises(ampmlir.CompileError, match="unknown optimizer 'lion'"):
        ampmlir.compile(model, tmp_path, optimizer="lion")
    # The compute type's spellings are amp-compile's (OptionEnums.h): one
    # list, one message, for every tool and this API.
    with pytest.raises(ampmlir.CompileError,
                       match="unknown compute-type 'f8'; expected f16"):
        ampmlir.compile(model, tmp_path, compute_type="f8")
    # A misspelled training option: the headline names it and the closest
    # key there is.
    with pytest.raises(ampmlir.CompileError) as error:
        ampmlir.compile(model, tmp_path, optimizer="sgd",
                        train_options="lr=0.1 momentm=0.9")
    assert str(error.value).splitlines()[0].endswith(
        "unknown key 'momentm'; did you mean 'momentum'?"), str(error.value)
    # A value the option parser refuses: the headline keeps its reason.
    with pytest.raises(ampmlir.CompileError) as error:
        ampmlir.compile(model, tmp_path, train_options="lr=abc")
    headline = str(error.value).splitlines()[0]
    assert "bad training options 'lr=abc'" in headline, headline
    assert "for the --lr option: 'abc' value invalid" in headline, headline
    # A mapping of options takes only what amp-compile could read back.
    for bad in ({"lr": "1 2"}, {"lr": None}, {"": 1}, ["lr=0.1"]):
        with pytest.raises(ampmlir.AmpError, match="train_options"):
            ampmlir.compile(model, tmp_path, train_options=bad)


def test_train_options_take_a_mapping_and_either_spelling(tmp_path):
    # The same step from a string with dashes, a string with underscores
    # (as the hyperparameters are named at run time) and a mapping: the
    # same source, and the settings there.
    model = EXAMPLES / "mlp.mlir"
    spellings = {
        "dashes": "lr=0.01 weight-decay=0.05 max-grad-norm=1.0",
        "underscores": "lr=0.01 weight_decay=0.05 max_grad_norm=1.0",
        "mapping": {"lr": 0.01, "weight_decay": 0.05, "max_grad_norm": 1.0},
    }
    sources = {}
    for label, options in spellings.items():
        step = ampmlir.compile(model, tmp_path / label, compute_type="bf16",
                               train_options=options)
        sources[label] = (tmp_path / label / "mlp.cpp").read_text()
        step_ir = (tmp_path / label / "mlp.step.mlir").read_text()
        assert "amp.state = 5.000000e-02 : f64" in step_ir, label
        assert 'amp.name = "max_grad_norm"' in step_ir, label
        del step
    assert sources["dashes"] == sources["underscores"] == sources["mapping"]
    assert ampmlir.train_options_text({"accumulate": 2, "nesterov": True}) \
        == "accumulate=2 nesterov=true"


def test_compile_and_amp_compile_share_one_set_of_defaults(tmp_path):
    # compile has no defaults of its own: without a compute type, an
    # optimizer or a loss scaling it passes none, and amp-compile's (f16,
    # AdamW, auto: kDefaultComputeType, kDefaultOptimizer) apply.
    for option in ("compute_type", "optimizer", "loss_scaling"):
        default = inspect.signature(ampmlir.compile).parameters[option]
        assert default.default is None, option
    help_text = _tools.run_tool("amp-compile", ["--help"])
    line = next(l for l in help_text.splitlines() if "--compute-type=" in l)
    assert "- f16 (the default)" in line, line
    line = next(l for l in help_text.splitlines() if "--optimizer=" in l)
    assert "adamw (the default)" in line, line
    ampmlir.compile(EXAMPLES / "mlp.mlir", tmp_path / "default")
    step = (tmp_path / "default" / "mlp.step.mlir").read_text()
    assert "to tensor<64x784xf16>" in step
    assert "amp.adamw_update" in step and "amp.scaler_update" in step
    assert 'amp.name = "weight_decay", amp.state = 1.000000e-02' in step


def test_opt_runs_pipelines_on_files_and_text():
    summary = ampmlir.opt(EXAMPLES / "mlp.mlir", "--amp-model-summary",
                          "-o", "/dev/null")
    assert "ops: 6 (contraction 2, elementwise 3, loss 1)" in summary
    text = ampmlir.opt(BAD_MODEL.replace("f64", "f32"),
                       "--amp-autocast=compute-type=bf16")
    assert "tensor<4x8xbf16>" in text
    with pytest.raises(ampmlir.CompileError, match="unknown compute-type"):
        ampmlir.opt(EXAMPLES / "mlp.mlir", "--amp-autocast=compute-type=f8")


def test_run_is_the_reference_interpreter():
    out = ampmlir.run(EXAMPLES / "mlp.mlir", "--random-inputs=1",
                      "--index-bound=10")
    assert "result #0: tensor<f32>" in out


def test_autocast_report_summarises_the_decisions(tmp_path):
    summary = ampmlir.autocast_report(EXAMPLES / "mlp.mlir",
                                      tmp_path / "r.json", dot=tmp_path / "g.dot")
    assert summary["line"].startswith("converted 3/4 ops to f16 with 4 casts")
    assert json.loads((tmp_path / "r.json").read_text())["functions"]
    assert (tmp_path / "g.dot").read_text().startswith("digraph")


def test_missing_tools_are_named(monkeypatch, tmp_path):
    monkeypatch.setenv("AMP_MLIR_BIN", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(_tools, "_CHECKOUT", tmp_path)
    with pytest.raises(ampmlir.ToolNotFoundError,
                       match="amp-compile not found: set AMP_MLIR_BIN"):
        ampmlir.compile(EXAMPLES / "mlp.mlir", tmp_path / "out")
    with pytest.raises(ampmlir.ToolNotFoundError, match="libamp_runtime.so"):
        ampmlir.find_runtime_library()
    assert ampmlir.cuda_available() is False
