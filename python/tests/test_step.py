"""The compiled step through the Python API: against the reference
interpreter, across a save and a load, and under misuse."""

import json
import math
import os
import threading
import time

import numpy as np
import pytest

import ampmlir
from ampmlir._tools import run_tool
from conftest import EXAMPLES, ROOT, load_inputs


def test_matches_the_interpreter_step_for_step(step, interpreter_run):
    # The same state and batch as amp-run: every loss and scale equal to
    # the interpreter's, printed to 9 digits; the first steps overflow.
    inputs, expected = interpreter_run
    batch = load_inputs(step, inputs)
    got = []
    for _ in expected:
        scale = step.scale  # the scale this step runs with, as amp-run prints
        step.run(*batch)
        loss, found = step.result()
        got.append((float(f"{loss:.9g}"), scale, found))
    assert got == expected
    assert step.steps == len(expected)
    assert step.skipped == sum(found for _, _, found in expected) > 0


def test_named_inputs_equal_positional_ones(mlp_f16, interpreter_run):
    inputs, expected = interpreter_run
    with mlp_f16.load() as a, mlp_f16.load() as b:
        batch = load_inputs(a, inputs)
        load_inputs(b, inputs)
        a.run(*batch)
        b.run(**{info.name: array for info, array in zip(b.inputs, batch)})
        assert a.loss == b.loss
        assert np.array_equal(a.read("w1"), b.read(0))


def test_save_load_continues_the_same_trajectory(mlp_f16, interpreter_run,
                                                 tmp_path):
    inputs, expected = interpreter_run
    with mlp_f16.load() as first:
        batch = load_inputs(first, inputs)
        for _ in range(5):
            first.run(*batch)
        first.save(tmp_path / "state")
    with mlp_f16.load() as resumed:
        resumed.load(tmp_path / "state")
        assert resumed.steps == 5
        for i in range(5, len(expected)):
            resumed.run(*batch)
            assert float(f"{resumed.loss:.9g}") == expected[i][0]


def test_a_corrupted_or_truncated_state_is_refused_and_the_step_kept(
        step, tmp_path):
    step.init(seed=3)
    step.save(tmp_path / "good")
    good = (tmp_path / "good").read_bytes()
    step.init(seed=4)
    before = step.read("w1")
    (tmp_path / "cut").write_bytes(good[: len(good) // 2])
    with pytest.raises(ampmlir.AmpError) as error:
        step.load(tmp_path / "cut")
    assert error.value.code == "AMP_DATA_LOSS"
    flipped = bytearray(good)
    flipped[len(good) // 3] ^= 0x20
    (tmp_path / "flipped").write_bytes(bytes(flipped))
    with pytest.raises(ampmlir.AmpError, match="checksum|corrupt"):
        step.load(tmp_path / "flipped")
    assert np.array_equal(step.read("w1"), before)
    with pytest.raises(ampmlir.AmpError, match="cannot open"):
        step.load(tmp_path / "absent")


def test_init_is_seeded_and_bounded_by_fan_in(step):
    step.init(seed=11)
    w = step.read("w1")  # 784 x 256, fan-in 784
    assert w.dtype == np.float32 and w.shape == (784, 256)
    bound = 1 / np.sqrt(784)
    assert np.all(np.abs(w) <= bound) and w.std() > bound / 2
    # Biases as torch.nn.Linear's: bounded by their weight's fan-in.
    for name, fan_in in (("b1", 784), ("b2", 256)):
        b = step.read(name)
        assert np.all(np.abs(b) <= 1 / np.sqrt(fan_in)), name
        assert b.std() > 1 / np.sqrt(fan_in) / 4, name
    step.init(seed=11)
    assert np.array_equal(step.read("w1"), w)
    step.init(seed=12)
    assert not np.array_equal(step.read("w1"), w)
    # The optimizer state and the scaler start at their initial values.
    assert step.scaler() == (65536.0, 0, 0)


def test_write_then_read_round_trips(step):
    values = np.arange(256, dtype=np.float32) / 7
    step.write("b1", values)
    assert np.array_equal(step.read("b1"), values)
    step.write("b1", values.astype(np.float16))  # widens exactly
    assert np.array_equal(step.read("b1"), values.astype(np.float16))


@pytest.mark.parametrize("batch, message", [
    (lambda x, y: (x[:3], y), r"input 'x' must have shape \[64, 784\]; got \[3, 784\]"),
    (lambda x, y: (x.astype(np.float64), y), "got float64, which does not convert"),
    (lambda x, y: (x, y.astype(np.float32)), "'labels' is i64"),
    (lambda x, y: (x,), "takes 2 inputs"),
    (lambda x, y: (x, y, y), "takes 2 inputs"),
])
def test_bad_batches_raise_before_anything_runs(step, batch, message):
    x = np.zeros((64, 784), np.float32)
    y = np.zeros(64, np.int64)
    with pytest.raises(ampmlir.AmpError, match=message):
        step.run(*batch(x, y))
    assert step.steps == 0


@pytest.mark.parametrize("label", [10, -1, -100, 2**40])
def test_a_label_outside_the_classes_raises_and_nothing_changes(step, label):
    step.init(seed=5)
    x = np.ones((64, 784), np.float32)
    y = np.arange(64, dtype=np.int64) % 10
    step.run(x, y)
    before = {name: step.read(name) for name in ("w1", "b2")}
    y[17] = label
    with pytest.raises(ampmlir.AmpError,
                       match=rf"input 'labels' holds {label} at \[17\], "
                             r"outside \[0, 10\): read by amp.cross_entropy"):
        step.run(x, y)
    assert step.steps == 1 and step.skipped == 0
    for name, values in before.items():
        assert np.array_equal(step.read(name), values)
    y[17] = 3
    step.run(x, y)
    assert np.isfinite(step.loss) and step.steps == 2


def test_misuse_raises_clear_errors(step, mlp_f16, tmp_path):
    x, y = np.zeros((64, 784), np.float32), np.zeros(64, np.int64)
    with pytest.raises(ampmlir.AmpError, match="missing .'labels'."):
        step.run(x=x)
    with pytest.raises(ampmlir.AmpError, match="in order or by name"):
        step.run(x, labels=y)
    with pytest.raises(ampmlir.AmpError, match="no tensor 'w9'"):
        step.read("w9")
    with pytest.raises(ampmlir.AmpError, match="there is no tensor 99"):
        step.read(99)
    with pytest.raises(ampmlir.AmpError, match="seed must be"):
        step.init(seed=-1)
    with pytest.raises(ampmlir.AmpError, match="device must be"):
        mlp_f16.load(device="tpu")
    with pytest.raises(ampmlir.AmpError, match="compiled for the host target"):
        mlp_f16.load(device="cuda")
    np.save(tmp_path / "w.npy", np.zeros((2, 2), np.float32))
    with pytest.raises(ampmlir.AmpError, match="has shape"):
        step.load_npy("w1", tmp_path / "w.npy")
    step.close()
    step.close()  # twice is fine
    for use in (lambda: step.run(x, y), lambda: step.loss,
                lambda: step.read(0), lambda: step.save(tmp_path / "s")):
        with pytest.raises(ampmlir.AmpError, match="step 'mlp' is closed"):
            use()


def test_capture_is_refused_on_the_host_and_the_step_goes_on(
        mlp_f16, interpreter_run):
    inputs, expected = interpreter_run
    with mlp_f16.load() as step:
        batch = load_inputs(step, inputs)
        with pytest.raises(ampmlir.AmpError, match="CUDA stream") as error:
            step.capture()
        assert error.value.code == "AMP_UNAVAILABLE"
        step.run(*batch)
        assert float(f"{step.loss:.9g}") == expected[0][0]


def test_libraries_that_are_not_steps_are_refused(tmp_path, mlp_f16):
    with pytest.raises(ampmlir.AmpError, match="no compiled step at"):
        ampmlir.Step(tmp_path / "libnothing.so")
    (tmp_path / "libjunk.so").write_bytes(b"not an ELF file")
    with pytest.raises(ampmlir.AmpError, match="cannot load"):
        ampmlir.Step(tmp_path / "libjunk.so")
    with pytest.raises(ampmlir.AmpError, match="is not a step named 'other'"):
        ampmlir.Step(mlp_f16.library, name="other")
    with pytest.raises(ampmlir.AmpError, match="cannot tell the step's name"):
        ampmlir.Step(mlp_f16.source)


def test_bf16_conversions_by_hand():
    # 1 + 2^-8 lies halfway between two bf16 values: to even (1.0);
    # 1 + 3 * 2^-8 rounds up to 1 + 2^-6; -2, inf and NaN keep their meaning.
    values = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, -2.0, np.inf, np.nan],
                      dtype=np.float32)
    bits = ampmlir.float32_to_bf16(values)
    assert bits.tolist() == [0x3F80, 0x3F80, 0x3F82, 0xC000, 0x7F80, 0x7FC0]
    back = ampmlir.bf16_to_float32(bits)
    assert back[:5].tolist() == [1.0, 1.0, 1 + 2**-6, -2.0, np.inf]
    assert np.isnan(back[5])


def test_hyperparameters_are_read_and_set_by_name(step, tmp_path):
    # The compiled values (AdamW's defaults as amp-compile passes them).
    assert step.hparams == ["lr", "beta1", "beta2", "eps", "weight_decay"]
    assert (step.lr, step.beta1, step.beta2) == (1e-3, 0.9, 0.999)
    assert (step.eps, step.weight_decay) == (1e-8, 0.01)
    step.lr = 0.25
    assert step.lr == 0.25 == step.read("lr")
    # A state file holds them; init() goes back to the compiled values.
    step.save(tmp_path / "state")
    step.init(seed=1)
    assert step.lr == 1e-3
    step.load(tmp_path / "state")
    assert step.lr == 0.25
    # Out of range: refused, nothing changes. Another optimizer's
    # hyperparameter is no new attribute but an error.
    for name, bad, words in [("lr", -1, r"\[0, inf\), not -1"),
                             ("beta2", 1.0, r"\[0, 1\), not 1"),
                             ("eps", 0.0, r"\(0, inf\), not 0"),
                             ("weight_decay", float("nan"),
                              r"\[0, inf\), not nan")]:
        with pytest.raises(ampmlir.AmpError,
                           match=f"'{name}' must lie in {words}"):
            setattr(step, name, bad)
    assert step.lr == 0.25 and step.beta2 == 0.999
    with pytest.raises(ampmlir.AmpError, match="no hyperparameter 'momentum'"):
        step.momentum = 0.9
    with pytest.raises(ampmlir.AmpError,
                       match="no hyperparameter 'lr2' .*; did you mean 'lr'"):
        step.set_hparam("lr2", 0.1)
    # A dash for an underscore names the same hyperparameter.
    step.set_hparam("weight-decay", 0.125)
    assert step.weight_decay == 0.125 and step.get_hparam("weight-decay") == 0.125
    # Without a schedule the rate the next update applies is lr.
    assert step.current_lr == step.lr == 0.25
    with pytest.raises(AttributeError):
        step.max_grad_norm  # AdamW compiled without clipping has none


def _assert_trains_alike(a, b, batch, steps):
    """Runs `steps` steps of both on `batch`: the same losses, and every
    tensor of `a` the same in `b`, bit for bit."""
    for _ in range(steps):
        a.run(*batch)
        b.run(*batch)
        assert a.loss == b.loss
    for info in a.tensors:
        assert np.array_equal(a.read(info.name), b.read(info.name)), info.name


def test_a_learning_rate_set_between_steps_is_a_recompiled_one(
        mlp_f16, interpreter_run, tmp_path):
    # Two steps at lr 1e-3, then two at lr 0.02 and weight decay 0.1 set at
    # run time, give the bits of two steps of a step compiled with lr 0.02
    # and weight decay 0.1 from the same state (copied tensor by tensor,
    # never through a hyperparameter).
    inputs, _ = interpreter_run
    fast = ampmlir.compile(ROOT / "examples" / "mlp.mlir", tmp_path / "fast",
                           compute_type="f16",
                           train_options="lr=0.02 weight-decay=0.1")
    with mlp_f16.load() as changed, fast.load() as compiled:
        batch = load_inputs(changed, inputs)
        for _ in range(2):
            changed.run(*batch)
        for info in changed.tensors:
            if info.kind != "hparam":
                compiled.write(info.name, changed.read(info.name))
        assert (compiled.lr, compiled.weight_decay) == (0.02, 0.1)
        changed.lr, changed.weight_decay = 0.02, 0.1
        _assert_trains_alike(changed, compiled, batch, 2)


def test_a_schedule_s_parameters_are_hyperparameters(tmp_path):
    compiled = ampmlir.compile(
        ROOT / "examples" / "mlp.mlir", tmp_path / "cosine",
        compute_type="f32", optimizer="sgd",
        train_options="lr=0.1 schedule=warmup-cosine warmup-steps=2 "
                      "decay-steps=10 min-lr=0.01")
    with compiled.load() as step:
        # Plain SGD gains a step counter; the schedule's parameters follow
        # the optimizer's.
        assert "step" in [t.name for t in step.tensors if t.kind == "state"]
        assert step.hparams == ["lr", "weight_decay", "warmup_steps",
                                "warmup_start_factor", "decay_steps",
                                "min_lr"]
        assert (step.warmup_steps, step.decay_steps, step.min_lr) == (
            2, 10, 0.01)
        assert step.warmup_start_factor == 1 / 3
        step.decay_steps = 100
        assert step.read("decay_steps") == 100
        with pytest.raises(ampmlir.AmpError,
                           match=r"'decay_steps' must lie in \[1, inf\)"):
            step.decay_steps = 0.5
        with pytest.raises(ampmlir.AmpError,
                           match="no hyperparameter 'gamma'"):
            step.gamma = 0.5


def test_parameter_groups_have_hyperparameters_of_their_own(
        mlp_f16, interpreter_run, tmp_path):
    # No decay on the biases and a rate of its own for the output layer,
    # as torch.optim's param_groups. Setting the group's values to the
    # step's own at run time gives the bits of the step without groups;
    # the recipe's values give another trajectory.
    assert ampmlir.compiler.param_groups_option(
        {"no_decay": {"select": ["rank<2", "wpe"], "weight_decay": 0},
         "head": {"select": "w2", "lr": 3e-3, "beta2": 0.95}}) == (
        "param-groups=no_decay:rank<2|wpe:weight_decay=0.0;"
        "head:w2:lr=0.003,beta2=0.95")
    inputs, _ = interpreter_run
    grouped = ampmlir.compile(
        ROOT / "examples" / "mlp.mlir", tmp_path / "groups",
        compute_type="f16",
        param_groups={"no_decay": {"select": "rank<2", "weight_decay": 0},
                      "head": {"select": ["w2"], "lr": 3e-3}})
    with mlp_f16.load() as plain, grouped.load() as step:
        assert step.hparams == plain.hparams + ["no_decay.weight_decay",
                                                "head.lr"]
        assert step.get_hparam("no_decay.weight_decay") == 0
        assert step.get_hparam("head.lr") == 3e-3
        with pytest.raises(ampmlir.AmpError,
                           match=r"'head.lr' must lie in \[0, inf\)"):
            step.set_hparam("head.lr", -1)
        step.set_hparam("no_decay.weight_decay", plain.weight_decay)
        step.set_hparam("head.lr", plain.lr)
        batch = load_inputs(plain, inputs)
        for info in plain.tensors:
            if info.kind != "hparam":
                step.write(info.name, plain.read(info.name))
        _assert_trains_alike(plain, step, batch, 3)
        step.set_hparam("no_decay.weight_decay", 0)
        step.set_hparam("head.lr", 3e-3)
        for _ in range(4):  # f16's first steps may be skipped for overflow
            step.run(*batch)
            plain.run(*batch)
        assert step.scaler()[2] < 7  # steps, skipped
        assert not np.array_equal(step.read("b1"), plain.read("b1"))
        assert not np.array_equal(step.read("w2"), plain.read("w2"))
    with pytest.raises(ampmlir.AmpError, match="needs 'select'"):
        ampmlir.compile(ROOT / "examples" / "mlp.mlir", tmp_path / "bad",
                        param_groups={"g": {"lr": 0.1}})
    with pytest.raises(ampmlir.AmpError, match="sets no hyperparameter"):
        ampmlir.compile(ROOT / "examples" / "mlp.mlir", tmp_path / "bad",
                        param_groups={"g": {"select": "w1"}})
    with pytest.raises(ampmlir.CompileError,
                       match="parameter group 'g' selects no parameter"):
        ampmlir.compile(ROOT / "examples" / "mlp.mlir", tmp_path / "bad",
                        param_groups={"g": {"select": "wte", "lr": 0.1}})


def test_the_parts_of_a_loss_are_reported_per_step(tmp_path):
    # Inputs/mlp_parts.mlir returns loss = ce + 1e-4 * l2, then ce and l2
    # (l2 = sum(w1 * w1)): the step reports both, computed from the
    # weights it read.
    compiled = ampmlir.compile(
        ROOT / "test" / "Target" / "Cuda" / "Inputs" / "mlp_parts.mlir",
        tmp_path / "parts", name="mlp", compute_type="f16")
    with compiled.load() as step:
        assert step.loss_part_names == ["ce", "l2"]
        assert [t.kind for t in step.tensors if t.name in ("ce", "l2")] == [
            "loss_part", "loss_part"]
        step.init(seed=4)
        x, labels = _mlp_batch(4)
        for _ in range(2):
            w1 = step.read("w1").astype(np.float64)
            step.run(x, labels)
            parts = step.loss_parts
            assert list(parts) == ["ce", "l2"]
            assert parts["l2"] == pytest.approx(np.sum(w1 * w1), rel=1e-5)
            assert step.loss == pytest.approx(
                parts["ce"] + 1e-4 * parts["l2"], rel=1e-6)
        records = step.fit({"x": np.concatenate([x, x]),
                            "labels": np.concatenate([labels, labels])},
                           epochs=2, progress=None)  # 2 steps more
        assert records[-1]["step"] == 4
        assert {"ce", "l2"} <= set(records[-1])


def test_dropout_draws_from_the_seeded_generator_and_evaluates_without_it(
        tmp_path):
    # Inputs/mlp_dropout.mlir drops its input and hidden layer. The step
    # keeps the generator as a tensor of kind "rng": init seeds it, each
    # run advances it; the same seed trains alike, another seed does not.
    # Its evaluation drops nothing: it does not depend on the generator.
    compiled = ampmlir.compile(
        ROOT / "test" / "Target" / "Cuda" / "Inputs" / "mlp_dropout.mlir",
        tmp_path / "dropout", name="mlp_dropout", compute_type="f16")
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (32, 48)).astype(np.float32)
    labels = rng.integers(0, 8, 32).astype(np.int64)

    def losses(step, seed):
        step.init(seed=seed)
        step.write("w1", np.full((48, 64), 0.05, np.float32))
        out = []
        for _ in range(3):
            step.run(x, labels)
            out.append(step.loss)
        return out

    with compiled.load() as a, compiled.load() as b:
        assert [t.kind for t in a.tensors if t.name == "rng"] == ["rng"]
        first = losses(a, 21)
        assert a.read("rng").tolist() == [21, 3]
        assert losses(b, 21) == first
        assert losses(b, 22) != first
        # Evaluation: the same weights evaluate alike whatever the
        # generators hold ([21, 3] and [22, 3] here), twice over.
        for name in ("w1", "b1", "w2", "b2"):
            b.write(name, a.read(name))
        assert a.evaluate(x, labels) == b.evaluate(x, labels) == \
            a.evaluate(x, labels)


@pytest.fixture(scope="module")
def mlp_eval(tmp_path_factory):
    """The MLP in f16 with its evaluation returning the logits too."""
    return ampmlir.compile(ROOT / "examples" / "mlp.mlir",
                           tmp_path_factory.mktemp("mlp_eval"),
                           compute_type="f16", eval_outputs=["logits"])


def _mlp_batch(seed):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (64, 784)).astype(np.float32),
            rng.integers(0, 10, 64).astype(np.int64))


def test_evaluate_is_the_interpreter_s_forward_on_the_trained_weights(
        mlp_eval, tmp_path):
    train, val = _mlp_batch(1), _mlp_batch(2)
    with mlp_eval.load() as step:
        step.init(seed=5)
        for _ in range(3):
            step.run(*train)
        loss = step.evaluate(*val)
        logits = step.eval_output("logits")
        assert step.eval_output("loss") == np.float32(loss)
        for name in ("w1", "b1", "w2", "b2"):
            np.save(tmp_path / f"{name}.npy", step.read(name))
    np.save(tmp_path / "x.npy", val[0])
    np.save(tmp_path / "labels.npy", val[1])
    ampmlir.run(mlp_eval.eval_mlir, f"--output-dir={tmp_path / 'ir'}",
                *(f"--input={name}={tmp_path / name}.npy"
                  for name in ("x", "labels", "w1", "b1", "w2", "b2")))
    assert np.load(tmp_path / "ir" / "loss.npy").tobytes() == \
        np.float32(loss).tobytes()
    assert np.array_equal(np.load(tmp_path / "ir" / "logits.npy"), logits)
    # The logits agree with an f32 forward in numpy to f16's rounding; the
    # loss is their cross-entropy.
    w1, b1, w2, b2 = (np.load(tmp_path / f"{n}.npy").astype(np.float64)
                      for n in ("w1", "b1", "w2", "b2"))
    reference = np.maximum(val[0] @ w1 + b1, 0) @ w2 + b2
    assert np.allclose(logits, reference, rtol=0, atol=2e-2)
    shifted = logits.astype(np.float64) - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    assert np.isclose(loss, -log_probs[np.arange(64), val[1]].mean(),
                      rtol=1e-5)


def test_an_evaluation_one_example_at_a_time_is_the_interpreter_s(
        mlp_eval, tmp_path):
    # The evaluations compiled for batches of 1 and 7 (eval_batch) read
    # the state the step at 64 trained: each example's logits are the
    # interpreter's on the rebatched evaluation, and the same bits as the
    # batch of 64's row.
    single = ampmlir.compile(ROOT / "examples" / "mlp.mlir", tmp_path / "b1",
                             compute_type="f16", eval_outputs=["logits"],
                             eval_batch=[1, 7])
    train, val = _mlp_batch(1), _mlp_batch(2)
    with mlp_eval.load() as step:
        step.init(seed=5)
        for _ in range(3):
            step.run(*train)
        step.evaluate(*val)
        logits = step.eval_output("logits")
        step.save(tmp_path / "state")
        for name in ("w1", "b1", "w2", "b2"):
            np.save(tmp_path / f"{name}.npy", step.read(name))
    with single.load() as one:
        one.load(tmp_path / "state")
        assert [i.shape for i in one.eval_inputs] == [(1, 784), (1,)]
        assert one.eval_batches == [1, 7]
        for row in (0, 17, 63):
            one.evaluate(val[0][row:row + 1], val[1][row:row + 1])
            assert one.eval_output("logits").tobytes() == \
                logits[row:row + 1].tobytes()
        # Seven examples at once run the evaluation of 7, by name too.
        one.evaluate(x=val[0][10:17], labels=val[1][10:17])
        assert one.eval_output("logits").tobytes() == \
            logits[10:17].tobytes()
        with pytest.raises(ampmlir.AmpError, match="evaluates batches of "
                           r"1, 7 examples \(amp-compile --eval-batch\), "
                           "not 5"):
            one.evaluate(val[0][:5], val[1][:5])
        np.save(tmp_path / "x.npy", val[0][17:18])
        np.save(tmp_path / "labels.npy", val[1][17:18])
        ampmlir.run(single.eval_mlir, f"--output-dir={tmp_path / 'ir'}",
                    *(f"--input={name}={tmp_path / name}.npy"
                      for name in ("x", "labels", "w1", "b1", "w2", "b2")))
        assert np.load(tmp_path / "ir" / "logits.npy").tobytes() == \
            logits[17:18].tobytes()
        # A validation evaluates at the first size: the outputs read after
        # it are that evaluation's.
        one.validate({"x": val[0][:3], "labels": val[1][:3]})
        assert one.eval_output("logits").shape == (1, 10)
    with pytest.raises(ampmlir.AmpError, match="eval_batch needs evaluation"):
        ampmlir.compile(ROOT / "examples" / "mlp.mlir", tmp_path / "none",
                        evaluation=False, eval_batch=1)
    for bad in (True, [], [1, 2.5]):
        with pytest.raises(ampmlir.AmpError, match="eval_batch must be"):
            ampmlir.compile(ROOT / "examples" / "mlp.mlir", tmp_path / "bad",
                            eval_batch=bad)


def test_evaluate_changes_no_state_and_no_trajectory(mlp_eval, tmp_path):
    train, val = _mlp_batch(1), _mlp_batch(2)
    with mlp_eval.load() as plain, mlp_eval.load() as evaluated:
        plain.init(seed=5)
        evaluated.init(seed=5)
        for _ in range(4):
            plain.run(*train)
            evaluated.run(*train)
            evaluated.evaluate(*val)
            assert evaluated.loss == plain.loss
        plain.save(tmp_path / "plain")
        evaluated.save(tmp_path / "evaluated")
        assert (tmp_path / "plain").read_bytes() == \
            (tmp_path / "evaluated").read_bytes()
        # By name, as run takes a batch.
        assert evaluated.evaluate(x=val[0], labels=val[1]) == \
            plain.evaluate(*val)


def test_evaluate_refuses_bad_batches_and_steps_without_one(mlp_eval, step):
    x, labels = _mlp_batch(3)
    with mlp_eval.load() as s:
        with pytest.raises(ampmlir.AmpError, match="takes 2 inputs"):
            s.evaluate(x)
        with pytest.raises(ampmlir.AmpError, match="must have shape"):
            s.evaluate(x[:10], labels)
        bad = labels.copy()
        bad[7] = 10
        with pytest.raises(ampmlir.AmpError,
                           match=r"holds 10 at \[7\].*evaluation did not run"):
            s.evaluate(x, bad)
        with pytest.raises(ampmlir.AmpError, match="has no output 'hidden' "
                           r"\(it has: loss, logits\)"):
            s.eval_output("hidden")
    assert step.has_eval and not step.eval_outputs[1:]


def test_a_step_compiled_without_an_evaluation_says_so(tmp_path):
    compiled = ampmlir.compile(ROOT / "examples" / "mlp.mlir",
                               tmp_path / "none", compute_type="f32",
                               optimizer="sgd", evaluation=False)
    assert compiled.eval_mlir is None
    with compiled.load() as s:
        assert not s.has_eval
        with pytest.raises(ampmlir.AmpError, match="without an evaluation"):
            s.evaluate(*_mlp_batch(0))
    data = {"x": np.zeros((64, 784), np.float32),
            "labels": np.zeros(64, np.int64)}
    with compiled.load() as s:
        with pytest.raises(ampmlir.AmpError, match="val_data: .*without an "
                           "evaluation"):
            s.fit(data, val_data=data)
        with pytest.raises(ampmlir.AmpError, match="without an evaluation"):
            s.validate(data)
    with pytest.raises(ampmlir.AmpError, match="needs evaluation=True"):
        ampmlir.compile(ROOT / "examples" / "mlp.mlir", tmp_path / "bad",
                        evaluation=False, eval_outputs=["logits"])


def _clusters(rows, seed):
    rng = np.random.default_rng(seed)
    prototypes = 0.1 * np.random.default_rng(0).normal(size=(10, 784))
    labels = rng.integers(0, 10, size=rows)
    x = prototypes[labels] + rng.normal(size=(rows, 784))
    return {"x": x.astype(np.float32), "labels": labels.astype(np.int64)}


def test_fit_takes_the_batches_amp_step_takes(mlp_eval, tmp_path):
    # The same data set trained in Python and by amp-step --data: the same
    # state, byte for byte, so the shuffles and the batching agree.
    train, val = _clusters(1000, 1), _clusters(300, 2)
    for name, array in train.items():
        np.save(tmp_path / f"train_{name}.npy", array)
    run_tool("amp-step", [
        mlp_eval.library, "mlp", "--seed=4", "--epochs=2", "--print-every=0",
        "--shuffle-seed=9", f"--save={tmp_path / 'cli'}",
        f"--data=x={tmp_path / 'train_x.npy'}",
        f"--data=labels={tmp_path / 'train_labels.npy'}"])
    lines = []
    with mlp_eval.load() as step:
        step.init(seed=4)
        records = step.fit(train, epochs=2, shuffle_seed=9, val_data=val,
                           print_every=5, log=tmp_path / "log.jsonl",
                           progress=lines.append)
        step.save(tmp_path / "python")
        assert step.steps == 2 * (1000 // 64)
        assert records[-1]["step"] == 30 and "val_loss" in records[-1]
        assert records[-1]["val_loss"] == step.validate(val)
    assert (tmp_path / "cli").read_bytes() == (tmp_path / "python").read_bytes()
    assert lines[0].startswith("data: 1000 examples, 15 batches of 64 ")
    assert lines[1].startswith("epoch 1 step 5 loss ")
    logged = [json.loads(line)
              for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in logged] == [5, 10, 15, 20, 25, 30]


def splitmix64_shuffle(rows, seed, epoch):
    """The shuffle amp_epoch_order documents, written here from its
    description: splitmix64 (Steele, Lea and Flood 2014) seeded with
    seed ^ (golden gamma * (epoch + 1)), Fisher-Yates from the last row."""
    mask = (1 << 64) - 1
    gamma = 0x9E3779B97F4A7C15
    state = (seed ^ (gamma * (epoch + 1))) & mask
    order = list(range(rows))
    for i in range(rows - 1, 0, -1):
        state = (state + gamma) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        j = (z ^ (z >> 31)) % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


@pytest.mark.parametrize("rows,seed,epoch", [(1, 0, 0), (2, 0, 0),
                                             (100, 3, 0), (100, 3, 7),
                                             (37, 2**64 - 1, 2)])
def test_epoch_order_is_the_documented_shuffle(rows, seed, epoch):
    assert list(ampmlir.step.epoch_order(rows, seed, epoch)) == \
        splitmix64_shuffle(rows, seed, epoch)


def test_epoch_order_refuses_a_negative_count():
    with pytest.raises(ampmlir.AmpError, match="no order of -1 rows"):
        ampmlir.step.epoch_order(-1, 0, 0)
    assert list(ampmlir.step.epoch_order(0, 0, 0)) == []


def test_epoch_order_is_a_seeded_permutation():
    a = ampmlir.step.epoch_order(100, 3, 0)
    assert sorted(a) == list(range(100)) and list(a) != list(range(100))
    assert list(a) == list(ampmlir.step.epoch_order(100, 3, 0))
    assert list(a) != list(ampmlir.step.epoch_order(100, 3, 1))
    assert list(ampmlir.step.epoch_order(5, 3, 0, shuffle=False)) == \
        [0, 1, 2, 3, 4]


def test_fit_refuses_bad_data_sets(mlp_eval):
    with mlp_eval.load() as step:
        with pytest.raises(ampmlir.AmpError, match=r"missing \['labels'\]"):
            step.fit({"x": np.zeros((64, 784), np.float32)})
        with pytest.raises(ampmlir.AmpError, match="rows of shape"):
            step.fit({"x": np.zeros((64, 10), np.float32),
                      "labels": np.zeros(64, np.int64)})
        with pytest.raises(ampmlir.AmpError, match="fewer than one batch"):
            step.fit({"x": np.zeros((10, 784), np.float32),
                      "labels": np.zeros(10, np.int64)})
        with pytest.raises(ampmlir.AmpError, match="holds 63 examples"):
            step.fit({"x": np.zeros((64, 784), np.float32),
                      "labels": np.zeros(63, np.int64)})


def _in_order(data, batch, rows=None, as_tuples=False):
    """The batches fit(data, shuffle=False) takes, in its order, as an
    iterable of dicts (or tuples); `rows` cuts the set (a partial batch)."""
    rows = len(data["x"]) if rows is None else rows
    for start in range(0, rows, batch):
        end = min(start + batch, rows)
        if as_tuples:
            yield data["x"][start:end], data["labels"][start:end]
        else:
            yield {name: array[start:end] for name, array in data.items()}


def test_fit_over_batches_trains_as_fit_over_a_data_set(mlp_eval, tmp_path):
    # The batches fit(data set, shuffle=False) takes, given one by one (a
    # list of tuples, two epochs), reach its state byte for byte: the loop
    # in Python and the runtime's are the same training. The last 40
    # examples make a partial batch, left out as drop_last and said so.
    train, val = _clusters(1000, 1), _clusters(300, 2)
    with mlp_eval.load() as step:
        step.init(seed=4)
        step.fit(train, epochs=2, shuffle=False, print_every=0)
        step.save(tmp_path / "data-set")
    batches = list(_in_order(train, 64, as_tuples=True))
    assert len(batches[-1][0]) == 1000 % 64
    lines = []
    with mlp_eval.load() as step:
        step.init(seed=4)
        records = step.fit(batches, epochs=2, print_every=10, val_data=val,
                           val_every=30, log=tmp_path / "log.jsonl",
                           progress=lines.append)
        step.save(tmp_path / "batches")
        assert step.steps == 30
        assert records[-1]["val_loss"] == step.validate(val)
        # The classifier's accuracy beside the loss, against numpy's
        # argmax of the evaluation's logits, batch by batch.
        right = top5 = 0
        for start in range(0, 256, 64):
            step.evaluate(val["x"][start:start + 64],
                          val["labels"][start:start + 64])
            logits = step.eval_output("logits")
            labels = val["labels"][start:start + 64]
            right += int((logits.argmax(axis=1) == labels).sum())
            mine = logits[np.arange(64), labels]
            top5 += int(((logits > mine[:, None]).sum(axis=1) < 5).sum())
        loss, accuracy, top = step.validate_metrics(
            {name: array[:256] for name, array in val.items()})
        assert (accuracy, top) == (right / 256, top5 / 256)
        assert records[-1]["val_accuracy"] == \
            step.validate_metrics(val)[1]
    assert (tmp_path / "batches").read_bytes() == \
        (tmp_path / "data-set").read_bytes()
    assert lines[0] == "data: batches of 64 from list, 2 epochs; from step 0"
    assert lines[1].startswith("epoch 1 step 10 loss ")
    assert " lr 0.001 steps/s " in lines[1]
    assert lines[2].startswith("epoch 2 step 20 loss ")
    assert lines[2].endswith("(1 partial batches left out, as drop_last)")
    assert lines[3].startswith("epoch 2 step 30 loss ") and \
        " val_loss " in lines[3] and " val_accuracy 0." in lines[3] and \
        " val_top5 " in lines[3]
    # The last batch of epoch 2 is partial too, after step 30: the end's
    # report says so.
    assert lines[4].startswith("epoch 2 step 30 loss ")
    assert lines[4].endswith("(1 partial batches left out, as drop_last)")
    assert len(lines) == 5
    logged = [json.loads(line)
              for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in logged] == [10, 20, 30, 30]
    assert logged[1]["partial_batches_left_out"] == 1
    # A generator of dicts runs once: a second epoch has no batch.
    with mlp_eval.load() as step:
        step.init(seed=4)
        step.fit(_in_order(train, 64, rows=640), print_every=0)
        assert step.steps == 10
        with pytest.raises(ampmlir.AmpError,
                           match="no full batch of 64 in epoch 2 "
                                 r"\(a generator runs once"):
            step.fit(_in_order(train, 64, rows=640), epochs=2,
                     print_every=0)


def test_early_stopping_and_best_states_alike_over_both_loops(mlp_eval,
                                                              tmp_path):
    # The runtime's loop (a data set) and Python's (its batches in the same
    # order) stop at the same step with the same best states kept: the two
    # lowest validation losses of the records.
    train, val = _clusters(2000, 1), _clusters(600, 2)
    stops = {}
    for how in ("rows", "batches"):
        lines = []
        data = train if how == "rows" else list(_in_order(train, 64))
        with mlp_eval.load() as step:
            step.init(seed=4)
            records = step.fit(data, epochs=40, shuffle=False, val_data=val,
                               val_every=8, print_every=0, patience=2,
                               keep_best=2, checkpoint=tmp_path / how,
                               progress=lines.append)
            stops[how] = step.steps
        early = [line for line in lines if line.startswith("early stop")]
        assert len(early) == 1, lines
        losses = [(r["val_loss"], r["step"]) for r in records
                  if "val_loss" in r]
        best = sorted(step for _, step in sorted(losses)[:2])
        kept = sorted(int(p.name.rsplit("best-step", 1)[1])
                      for p in tmp_path.glob(f"{how}.best-step*"))
        assert kept == best
        assert (tmp_path / how).exists()
    assert stops["rows"] == stops["batches"] < 40 * (2000 // 64)
    for step_file in tmp_path.glob("rows.best-step*"):
        twin = tmp_path / step_file.name.replace("rows", "batches")
        assert twin.read_bytes() == step_file.read_bytes()
    with mlp_eval.load() as step:
        with pytest.raises(ampmlir.AmpError, match="give a validation set"):
            step.fit(train, patience=1, print_every=0)
        with pytest.raises(ampmlir.AmpError, match="give val_data"):
            step.fit(list(_in_order(train, 64)), patience=1, print_every=0)


def test_early_stopping_on_the_accuracy_alike_over_both_loops(mlp_eval,
                                                              tmp_path):
    # Judged by the validation accuracy (higher is better): both loops stop
    # at the same step, keep the same states, those of the two most
    # accurate validations (the earlier of equal ones), and say so.
    train, val = _clusters(2000, 1), _clusters(600, 2)
    stops, lines = {}, {}
    for how in ("rows", "batches"):
        lines[how] = []
        data = train if how == "rows" else list(_in_order(train, 64))
        with mlp_eval.load() as step:
            step.init(seed=4)
            records = step.fit(data, epochs=40, shuffle=False, val_data=val,
                               val_every=8, print_every=0, patience=2,
                               keep_best=2, monitor="val_accuracy",
                               checkpoint=tmp_path / how,
                               progress=lines[how].append)
            stops[how] = step.steps
        scored = [(-r["val_accuracy"], r["step"]) for r in records
                  if "val_accuracy" in r]
        best = sorted(step for _, step in sorted(scored)[:2])
        kept = sorted(int(p.name.rsplit("best-step", 1)[1])
                      for p in tmp_path.glob(f"{how}.best-step*"))
        assert kept == best
    early = {how: [l for l in lines[how] if l.startswith("early stop")]
             for how in lines}
    assert early["rows"] == early["batches"] and len(early["rows"]) == 1
    assert ": val_accuracy has not improved on 0." in early["rows"][0]
    assert stops["rows"] == stops["batches"] < 40 * (2000 // 64)
    with mlp_eval.load() as step:
        for data in (train, list(_in_order(train, 64))):
            with pytest.raises(ampmlir.AmpError, match="monitor must be "
                               "val_loss, val_accuracy or val_top5_accuracy"):
                step.fit(data, val_data=val, patience=1, monitor="f1",
                         print_every=0)


def test_an_accuracy_is_monitored_only_where_the_step_classifies(step):
    # The MLP compiled without its logits as an output: no accuracy to
    # judge, said before training, by both loops.
    train, val = _clusters(256, 1), _clusters(128, 2)
    for data in (train, list(_in_order(train, 64))):
        with pytest.raises(ampmlir.AmpError, match="monitor=val_accuracy "
                           "needs an evaluation that classifies"):
            step.fit(data, val_data=val, patience=1,
                     monitor="val_accuracy", print_every=0)
    assert step.steps == 0


def test_fit_over_batches_refuses_bad_batches(mlp_eval):
    train = _clusters(200, 1)
    with mlp_eval.load() as step:
        with pytest.raises(ampmlir.AmpError, match="or an iterable of "
                                                   "batches"):
            step.fit(7)
        with pytest.raises(ampmlir.AmpError,
                           match="batch 0 of epoch 1 has no input 'labels'"):
            step.fit([{"x": train["x"][:64]}])
        with pytest.raises(ampmlir.AmpError,
                           match="batch 0 of epoch 1 is a str"):
            step.fit(["batch"])
        bad = dict(train)
        bad["labels"] = bad["labels"].copy()
        bad["labels"][70] = 10
        with pytest.raises(ampmlir.AmpError,
                           match=r"epoch 1, step 2 \(batch 1 of the "
                                 r"epoch\): .*holds 10"):
            step.fit(list(_in_order(bad, 64)), print_every=0)


# A step whose run takes milliseconds on the host (two 8 MB matmuls and
# AdamW over 2M parameters): long enough for another thread to act during
# one.
_BIG = """
func.func @big(%x: tensor<8x1024xf32>, %labels: tensor<8xi64>,
               %w1: tensor<1024x2048xf32> {amp.param},
               %w2: tensor<2048x10xf32> {amp.param}) -> tensor<f32> {
  %h = amp.matmul %x, %w1 : tensor<8x1024xf32>, tensor<1024x2048xf32> to tensor<8x2048xf32>
  %a = amp.relu %h : tensor<8x2048xf32>
  %o = amp.matmul %a, %w2 : tensor<8x2048xf32>, tensor<2048x10xf32> to tensor<8x10xf32>
  %loss = amp.cross_entropy %o, %labels : tensor<8x10xf32>, tensor<8xi64> to tensor<f32>
  return %loss : tensor<f32>
}
"""


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    directory = tmp_path_factory.mktemp("big")
    (directory / "big.mlir").write_text(_BIG)
    return ampmlir.compile(directory / "big.mlir", directory / "out",
                           compute_type="f16", evaluation=False)


def test_close_on_one_thread_waits_for_a_run_on_another(big):
    # close() frees the step only once the call in flight has returned;
    # the worker's next call raises AmpError. Without the lock the host
    # kernels read freed memory (a crash in most attempts).
    x = np.random.default_rng(0).standard_normal((8, 1024)).astype(np.float32)
    y = np.arange(8, dtype=np.int64) % 10
    for attempt in range(6):
        step = big.load()
        step.init(seed=1)
        running, outcome = threading.Event(), []

        def worker():
            try:
                for _ in range(500):
                    step.run(x, y)
                    running.set()
                    step.read("w2")
                outcome.append("finished")
            except ampmlir.AmpError as error:
                outcome.append(error)

        thread = threading.Thread(target=worker)
        thread.start()
        assert running.wait(30)
        time.sleep(0.001 * attempt)
        step.close()
        thread.join()
        assert step.closed
        assert len(outcome) == 1
        assert outcome[0] == "finished" or \
            "step 'big' is closed" in str(outcome[0])


def test_threads_sharing_a_step_take_turns(mlp_f16, interpreter_run):
    # Runs from two threads on one step are those of one thread, one after
    # another: the same batch 2 x 4 times gives the serial state.
    inputs, _ = interpreter_run
    with mlp_f16.load() as shared, mlp_f16.load() as serial:
        batch = load_inputs(shared, inputs)
        load_inputs(serial, inputs)
        threads = [threading.Thread(target=lambda: [shared.run(*batch)
                                                    for _ in range(4)])
                   for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for _ in range(8):
            serial.run(*batch)
        assert shared.steps == 8
        for info in shared.tensors:
            if info.kind != "input":
                assert np.array_equal(shared.read(info.name),
                                      serial.read(info.name)), info.name


def test_a_nul_in_a_path_or_a_name_is_refused(step, mlp_f16, tmp_path):
    # C would read each up to the NUL (save("a\0b") writing "a",
    # set_hparam("lr\0x") setting lr): refused as open() refuses them.
    step.init(seed=0)
    np.save(tmp_path / "w1.npy", step.read("w1"))
    before = sorted(os.listdir(tmp_path))
    calls = [
        lambda: step.save(tmp_path / "a\0b"),
        lambda: step.save(f"{tmp_path}/a\0b"),
        lambda: step.load(tmp_path / "w1.npy\0x"),
        lambda: step.load_npy("w1", f"{tmp_path}/w1.npy\0x"),
        lambda: step.set_hparam("lr\0x", 0.5),
        lambda: step.get_hparam("lr\0x"),
        lambda: ampmlir.Step(f"{mlp_f16.library}\0x"),
        lambda: ampmlir.Step(mlp_f16.library, name="mlp\0x"),
        lambda: ampmlir.compile(ROOT / "examples" / "mlp.mlir",
                                tmp_path / "out\0x"),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="embedded null byte"):
            call()
    assert sorted(os.listdir(tmp_path)) == before
    assert step.lr == 1e-3
    with pytest.raises(ampmlir.AmpError, match="no tensor 'w1.x00x'"):
        step.read("w1\0x")


_TINY = """
func.func @tiny(%x: tensor<4x3xf32>, %labels: tensor<4xi64>,
                %w: tensor<3x5xf32> {amp.param}, %b: tensor<5xf32> {amp.param}) -> tensor<f32> {
  %m = amp.matmul %x, %w : tensor<4x3xf32>, tensor<3x5xf32> to tensor<4x5xf32>
  %logits = amp.add %m, %b : tensor<4x5xf32>, tensor<5xf32>
  %loss = amp.cross_entropy %logits, %labels : tensor<4x5xf32>, tensor<4xi64> to tensor<f32>
  return %loss : tensor<f32>
}
"""


def _tiny_data(rows=40):
    rng = np.random.default_rng(0)
    return {"x": rng.standard_normal((rows, 3)).astype(np.float32),
            "labels": rng.integers(0, 5, rows).astype(np.int64)}


def test_fit_stops_at_a_nonfinite_loss_before_its_checkpoint(tmp_path):
    # An f32 step has no loss scaler: a loss that overflows would make
    # every parameter NaN and the checkpoint saved after the step would
    # hold them. fit stops at that step and the checkpoint is the step
    # before.
    (tmp_path / "tiny.mlir").write_text(_TINY)
    compiled = ampmlir.compile(tmp_path / "tiny.mlir", tmp_path / "out",
                               compute_type="f32", evaluation=False)
    data = _tiny_data()
    # Finite data, so that fit's check of the data passes it: a row of
    # FLT_MAX times weights near 0.5 overflows every logit, and the loss
    # is NaN. It is in the 4th batch of the first epoch: 3 good
    # checkpoints first.
    batch = 3
    data["x"][ampmlir.step.epoch_order(40, 0, 0)[4 * batch + 1]] = \
        np.finfo(np.float32).max
    checkpoint = tmp_path / "ck.ampstate"
    lines = []
    with compiled.load() as step:
        assert not step.has_loss_scaling
        step.init(seed=1)
        step.write("w", np.full((3, 5), 0.5, np.float32))
        with pytest.raises(ampmlir.AmpError) as error:
            step.fit(data, epochs=2, checkpoint=checkpoint,
                     checkpoint_every=1, print_every=1, progress=lines.append)
        assert f"epoch 1, step {batch + 1} (batch {batch} of the epoch): " \
            f"the loss is nan" in str(error.value)
        assert "no loss scaler" in str(error.value)
        # No progress line for the step, the plan's and the earlier
        # steps' as usual.
        assert len(lines) == 1 + batch
    with compiled.load() as resumed:
        resumed.load(checkpoint)
        assert resumed.steps == batch
        assert all(np.isfinite(resumed.read(name)).all()
                   for name in ("w", "b"))
    # allow_nonfinite=True: the old behaviour, training on in NaN, from a
    # NaN in the data too (which fit's check of the data lets pass).
    data["x"][0, 1] = np.nan
    with compiled.load() as step:
        step.init(seed=1)
        records = step.fit(data, epochs=1, progress=None,
                           allow_nonfinite=True)
        assert step.steps == 10 and math.isnan(records[-1]["loss"])
        assert np.isnan(step.read("w")).all()


def test_fit_checks_its_data_sets_before_the_first_step(tmp_path):
    # A bad label or a NaN anywhere in a data set stops fit before its
    # first step, named by the data set's key and its row, as amp-step
    # --data does: nothing trained, logged or checkpointed.
    (tmp_path / "tiny.mlir").write_text(_TINY)
    compiled = ampmlir.compile(tmp_path / "tiny.mlir", tmp_path / "out",
                               compute_type="f32")
    good = _tiny_data()
    bad_label = _tiny_data()
    bad_label["labels"][-1] = 7
    nan = _tiny_data()
    nan["x"][21, 2] = np.nan
    checkpoint, log = tmp_path / "ck.ampstate", tmp_path / "log.jsonl"
    cases = [
        (dict(data=bad_label), r"^data\['labels'\]: row 39 of input 'labels' "
         r"holds 7, outside \[0, 5\): read by amp\.cross_entropy"),
        (dict(data=nan), r"^data\['x'\]: row 21 of input 'x' holds nan at "
         r"\[2\]: a value that is not finite"),
        (dict(data=good, val_data=bad_label), r"^val_data\['labels'\]: row 39 "
         r"of input 'labels' holds 7, outside \[0, 5\)"),
        (dict(data=good, val_data=nan), r"^val_data\['x'\]: row 21 "),
        (dict(data=dict(good, labels=good["labels"].astype(np.float32))),
         r"^data\['labels'\] is float32, which does not convert exactly to "
         r"input 'labels' \(i64, int64\)"),
    ]
    lines = []
    with compiled.load() as step:
        step.init(seed=1)
        before = step.read("w")
        for arguments, message in cases:
            with pytest.raises(ampmlir.AmpError, match=message):
                step.fit(**arguments, checkpoint=checkpoint,
                         checkpoint_every=1, log=log, print_every=1,
                         progress=lines.append)
            assert step.steps == 0
        assert step.read("w").tobytes() == before.tobytes()
        assert not lines and not checkpoint.exists() and not log.exists()
        # allow_nonfinite=True lets the NaN pass (not the label).
        with pytest.raises(ampmlir.AmpError, match=r"row 39 .* holds 7"):
            step.fit(bad_label, allow_nonfinite=True, progress=None)
        records = step.fit(nan, val_data=nan, allow_nonfinite=True,
                           progress=None)
        assert step.steps == 10 and math.isnan(records[-1]["val_loss"])


def test_a_language_model_reports_its_token_accuracy(tmp_path):
    # gpt_block's [4, 32, 128] logits over [4, 32] targets (its tokens are
    # integers of that shape too: the input named targets is the labels):
    # the share of tokens whose first largest logit is the target, and of
    # those among the 5 largest, against numpy's argmax batch by batch.
    compiled = ampmlir.compile(EXAMPLES / "gpt_block.mlir", tmp_path / "gpt",
                               compute_type="bf16", eval_outputs="logits")
    rng = np.random.default_rng(3)
    val = {"tokens": rng.integers(0, 128, (12, 32)),
           "targets": rng.integers(0, 128, (12, 32))}
    with compiled.load() as step:
        step.init(seed=1)
        assert step._classifies() == (128, 1)
        right = top5 = counted = 0
        for start in range(0, 12, 4):
            step.evaluate(val["tokens"][start:start + 4],
                          val["targets"][start:start + 4])
            logits = step.eval_output("logits").astype(np.float32)
            assert logits.shape == (4, 32, 128)
            logits = logits.reshape(-1, 128)
            labels = val["targets"][start:start + 4].reshape(-1)
            right += int((logits.argmax(axis=1) == labels).sum())
            mine = logits[np.arange(len(labels)), labels]
            top5 += int(((logits > mine[:, None]).sum(axis=1) < 5).sum())
            counted += len(labels)
        assert counted == 12 * 32
        _, accuracy, top = step.validate_metrics(val)
        assert (accuracy, top) == (right / counted, top5 / counted)
        assert 0 < top5 and right <= top5
        # The loop over an iterable of batches counts them in Python: the
        # same figures as the runtime's over the same batches, after its
        # one training step.
        batches = [(val["tokens"][s:s + 4], val["targets"][s:s + 4])
                   for s in range(0, 12, 4)]
        records = step.fit(batches[:1], val_data=batches, val_every=1,
                           print_every=1, progress=None)
        _, accuracy, top = step.validate_metrics(val)
        assert records[-1]["step"] == 1
        assert (records[-1]["val_accuracy"],
                records[-1]["val_top5_accuracy"]) == (accuracy, top)
