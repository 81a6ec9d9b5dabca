"""ampmlir.from_torch: models written in PyTorch, imported, compiled and
trained; PyTorch's own training of the same model from the same weights
on the same batches is the oracle."""

import copy
import json
import re
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import ampmlir
from ampmlir import AmpError

import models


_TORCH_OPTIMIZERS = {"adamw": torch.optim.AdamW, "sgd": torch.optim.SGD}


def train_both(model, loss, batches, tmp_path, steps=20, lr=1e-3,
               optimizer="adamw", hparams="", **options):
    """The model trained by torch.optim (AdamW, or SGD for
    optimizer="sgd") and by the compiled step (the same optimizer and
    defaults) from the same weights; ``hparams`` holds more of them as
    train_options spells them ("momentum=0.9 weight-decay=0.1"), handed to
    both. Returns both losses of every step, the step's final state_dict
    and PyTorch's model."""
    imported = ampmlir.from_torch(model, batches[0], loss=loss)
    compiled = imported.compile(tmp_path / "step", optimizer=optimizer,
                                train_options=f"lr={lr} {hparams}".strip(),
                                **options)
    reference = copy.deepcopy(model)
    settings = dict(item.split("=") for item in hparams.split())
    optimizer = _TORCH_OPTIMIZERS[optimizer](
        reference.parameters(), lr=lr,
        **{name.replace("-", "_"): float(value)
           for name, value in settings.items()})
    theirs, ours = [], []
    with compiled.load() as step:
        step.init(seed=0)
        step.load_state_dict(model.state_dict())
        for k in range(steps):
            batch = batches[k % len(batches)]
            value = loss(reference, *batch)
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
            theirs.append(value.item())
            step.run(*(t.numpy() for t in batch))
            ours.append(step.loss)
        state = step.state_dict()
    return np.array(theirs), np.array(ours), state, reference


def classifier_batches(count=4):
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(16, 20, generator=g),
             torch.randint(0, 5, (16,), generator=g)) for _ in range(count)]


def token_batches(count=4, vocab=64):
    g = torch.Generator().manual_seed(2)
    batches = []
    for _ in range(count):
        idx = torch.randint(0, vocab, (4, 16), generator=g)
        targets = torch.randint(0, vocab, (4, 16), generator=g)
        targets[0, :3] = -1  # ignored positions
        batches.append((idx, targets))
    return batches


def classify(model, x, labels):
    return F.cross_entropy(model(x), labels)


def test_a_classifier_trains_as_pytorch_does(tmp_path):
    torch.manual_seed(0)
    model = models.Classifier()
    theirs, ours, state, reference = train_both(
        model, classify, classifier_batches(), tmp_path, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert theirs[-1] < theirs[0]
    for key, value in reference.state_dict().items():
        np.testing.assert_allclose(state[key].numpy(), value.numpy(),
                                   rtol=1e-4, atol=1e-6)


def test_frozen_parameters_are_read_and_never_updated(tmp_path):
    """A parameter that does not require gradients (a frozen layer, as in
    fine-tuning) is state the step reads: no gradient, no optimizer
    state, its values handed back unchanged."""
    torch.manual_seed(0)
    model = models.Classifier()
    model.fc1.requires_grad_(False)
    imported = ampmlir.from_torch(model, classifier_batches()[0], loss=classify)
    assert set(imported.parameters) == {"fc2.weight", "fc2.bias"}
    assert set(imported.buffers) == {"fc1.weight", "fc1.bias"}
    theirs, ours, state, reference = train_both(
        model, classify, classifier_batches(), tmp_path, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert torch.equal(state["fc1.weight"], model.fc1.weight)
    assert torch.equal(state["fc1.bias"], model.fc1.bias)
    assert not torch.equal(state["fc2.weight"], model.fc2.weight)
    np.testing.assert_allclose(state["fc2.weight"].numpy(),
                               reference.fc2.weight.detach().numpy(),
                               rtol=1e-4, atol=1e-6)


class WithUnused(torch.nn.Module):
    """A classifier holding a layer its forward never calls."""

    def __init__(self):
        super().__init__()
        self.used = torch.nn.Linear(20, 5)
        self.unused = torch.nn.Linear(5, 5)

    def forward(self, x):
        return self.used(x)


@pytest.mark.parametrize("optimizer, hparams", [
    ("adamw", "weight-decay=0.1"),
    ("sgd", "momentum=0.9 weight-decay=0.1")])
def test_a_parameter_the_loss_does_not_read_is_left_as_it_is(
        tmp_path, optimizer, hparams):
    """torch.optim skips a parameter whose .grad is None: no weight decay,
    no momentum or moments. The step leaves a parameter the loss does not
    read as it is too, and trains the others as PyTorch does."""
    torch.manual_seed(0)
    model = WithUnused()
    _, _, state, reference = train_both(
        model, classify, classifier_batches(1), tmp_path, steps=3, lr=0.1,
        optimizer=optimizer, hparams=hparams, compute_type="f32")
    for key in ("unused.weight", "unused.bias"):
        assert reference.state_dict()[key].numpy().tobytes() == \
            model.state_dict()[key].numpy().tobytes(), key
        assert state[key].numpy().tobytes() == \
            model.state_dict()[key].numpy().tobytes(), key
    for key in ("used.weight", "used.bias"):
        assert not torch.equal(state[key], model.state_dict()[key]), key
        np.testing.assert_allclose(state[key].numpy(),
                                   reference.state_dict()[key].numpy(),
                                   rtol=0, atol=1e-5, err_msg=key)


@pytest.mark.parametrize("weighted, smoothing", [(True, 0.0), (False, 0.1),
                                                 (True, 0.2)])
def test_class_weights_and_label_smoothing_train_as_pytorch_does(
        tmp_path, weighted, smoothing):
    """cross_entropy with class weights, label smoothing or both, some
    labels ignored: written out as PyTorch defines them, and trained
    within 1e-5 of PyTorch."""
    torch.manual_seed(0)
    model = models.Classifier()
    weights = torch.tensor([0.5, 2.0, 1.0, 0.25, 3.0]) if weighted else None

    def loss(m, x, labels):
        return F.cross_entropy(m(x), labels, weight=weights,
                               label_smoothing=smoothing)

    batches = classifier_batches()
    for _, labels in batches:
        labels[::5] = -100  # ignored
    imported = ampmlir.from_torch(model, batches[0], loss=loss)
    assert "amp.cross_entropy" not in imported.mlir
    theirs, ours, _, _ = train_both(model, loss, batches, tmp_path,
                                    compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert theirs[-1] < theirs[0]


def test_nanogpt_trains_as_pytorch_does(tmp_path):
    torch.manual_seed(0)
    model = models.NanoGPT()
    theirs, ours, state, reference = train_both(
        model, models.lm_loss, token_batches(), tmp_path, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert theirs[-1] < theirs[0]
    # The trained weights go back into the module, tied head included.
    assert state["lm_head.weight"] is state["transformer.wte.weight"]
    model.load_state_dict(state)
    assert torch.equal(model.lm_head.weight, model.transformer.wte.weight)
    idx, targets = token_batches(1)[0]
    with torch.no_grad():
        np.testing.assert_allclose(models.lm_loss(model, idx, targets).item(),
                                   models.lm_loss(reference, idx,
                                                  targets).item(), rtol=1e-4)


class HalfInputs(torch.nn.Module):
    """`model` with its floating-point inputs cast to f16 and a tensor it
    returns cast to f32 (a loss then computed from it in f32)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *args, **kwargs):
        def half(t):
            return t.half() if torch.is_floating_point(t) else t

        out = self.model(*map(half, args),
                         **{k: half(v) for k, v in kwargs.items()})
        return out.float() if isinstance(out, torch.Tensor) else out


def pure_f16_losses(model, loss, batches, init_scale, steps, lr=1e-3):
    """PyTorch's other f16 recipe, Apex's O2 written out: the model's
    forward and backward in f16 (the loss in f32), f32 master weights that
    AdamW updates, the gradients unscaled into them and checked for
    inf/NaN, the scale halved on an overflow (the step skipped) and doubled
    after 2000 good steps, as GradScaler's defaults. Batch norm's running
    statistics stay in f32, as O2 keeps batch norm. Returns [(loss,
    skipped)] of every step."""
    master = copy.deepcopy(model)
    half = copy.deepcopy(model).half()
    for module in half.modules():
        if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
            module.float()
    wrapped = HalfInputs(half)
    params = [p for p in half.parameters() if p.dtype == torch.float16]
    masters = [p for p, h in zip(master.parameters(), half.parameters())
               if h.dtype == torch.float16]
    others = [h for h in half.parameters() if h.dtype != torch.float16]
    optimizer = torch.optim.AdamW(masters + others, lr=lr)
    scale, good, out = init_scale, 0, []
    for k in range(steps):
        batch = batches[k % len(batches)]
        value = loss(wrapped, *batch)
        half.zero_grad()
        (value * scale).backward()
        grads = [p.grad.float() / scale for p in params] + \
            [p.grad / scale for p in others]
        skipped = any(not torch.isfinite(g).all() for g in grads)
        if skipped:
            scale, good = scale / 2, 0
        else:
            for p, g in zip(masters + others, grads):
                p.grad = g
            optimizer.step()
            with torch.no_grad():
                for h, p in zip(params, masters):
                    h.copy_(p)
            good += 1
            if good == 2000:
                scale, good = scale * 2, 0
        out.append((value.item(), skipped))
    return out


def autocast_losses(model, loss, batches, init_scale, steps, lr=1e-3,
                    setup=None):
    """PyTorch's f16 AMP recipe: autocast (f16, on the CPU) with
    GradScaler and AdamW, from a copy of the model (handed to
    ``setup(copy, scaler)`` first, where given). Returns the losses, the
    steps skipped and GradScaler's scale after every step."""
    reference = copy.deepcopy(model)
    optimizer = torch.optim.AdamW(reference.parameters(), lr=lr)
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale)
    if setup is not None:
        setup(reference, scaler)
    losses, skipped, scales = [], [], []
    for k in range(steps):
        batch = batches[k % len(batches)]
        with torch.autocast("cpu", dtype=torch.float16):
            value = loss(reference, *batch)
        optimizer.zero_grad()
        scaler.scale(value).backward()
        scale = scaler.get_scale()
        scaler.step(optimizer)
        scaler.update()
        losses.append(value.item())
        if scaler.get_scale() < scale:
            skipped.append(k)
        scales.append(scaler.get_scale())
    return np.array(losses), skipped, scales


def f16_step_losses(model, loss, batches, tmp_path, steps, init_scale,
                    lr=1e-3):
    """The model imported and trained by the f16 AMP step with AdamW from
    the module's weights. Returns what autocast_losses returns."""
    imported = ampmlir.from_torch(model, batches[0], loss=loss)
    compiled = imported.compile(
        tmp_path / "f16", compute_type="f16", optimizer="adamw",
        train_options=f"lr={lr} init-scale={init_scale}")
    losses, skipped, scales = [], [], []
    with compiled.load() as step:
        step.init(seed=0)
        step.load_state_dict(model.state_dict())
        for k in range(steps):
            before = step.skipped
            step.run(*(t.numpy() for t in batches[k % len(batches)]))
            losses.append(step.loss)
            if step.skipped > before:
                skipped.append(k)
            scales.append(step.scale)
    return np.array(losses), skipped, scales


def f16_against_pytorch(model, loss, batches, tmp_path, steps=20,
                        init_scale=2.0**24, lr=1e-3):
    """The model trained by the f16 AMP step and by PyTorch's two f16
    recipes, all from the same weights and scale: autocast with GradScaler
    (autocast_losses), and pure f16 with f32 master weights
    (pure_f16_losses). Checks that the step's scale equals GradScaler's
    after every step, and returns the three runs' losses and the steps each
    skipped: (ours, autocast, pure), each (losses, skipped)."""
    ours, ours_skipped, ours_scales = f16_step_losses(
        model, loss, batches, tmp_path, steps, init_scale, lr)
    theirs, theirs_skipped, theirs_scales = autocast_losses(
        model, loss, batches, init_scale, steps, lr)
    assert ours_scales == theirs_scales
    pure = pure_f16_losses(model, loss, batches, init_scale, steps, lr)
    return ((ours, ours_skipped), (theirs, theirs_skipped),
            (np.array([v for v, _ in pure]),
             [k for k, (_, s) in enumerate(pure) if s]))


def assert_within_recipes(ours, theirs, pure):
    """Every loss of ours within the recipes' band, widened by their
    largest distance: where they happen to agree, rounding still moves
    the step's loss by as much as it moves theirs elsewhere."""
    slack = np.max(np.abs(pure - theirs) / np.abs(theirs)) * np.abs(theirs)
    assert np.all(ours >= np.minimum(theirs, pure) - slack)
    assert np.all(ours <= np.maximum(theirs, pure) + slack)


def test_nanogpt_in_f16_follows_pytorch_autocast(tmp_path):
    """The f16 AMP step against PyTorch's two f16 recipes, all starting at
    scale 2^24. All three skip the same steps (the first six and the
    eighth here); every loss lies within the two recipes' spread (4.7e-6
    from autocast's, where the recipes differ by up to 1.1e-5); and the
    step follows autocast, whose casts it shares, to 1e-4."""
    torch.manual_seed(0)
    model = models.NanoGPT()
    (ours, ours_skipped), (theirs, theirs_skipped), (pure, pure_skipped) = \
        f16_against_pytorch(model, models.lm_loss, token_batches(), tmp_path)
    assert ours_skipped == theirs_skipped == pure_skipped == \
        [0, 1, 2, 3, 4, 5, 7]
    assert_within_recipes(ours, theirs, pure)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)


def test_the_module_names_parameters_inputs_and_locations(tmp_path):
    imported = ampmlir.from_torch(models.NanoGPT(), token_batches(1)[0],
                                  loss=models.lm_loss, name="nanogpt")
    assert imported.inputs == ["idx", "targets"]
    assert list(imported.parameters)[:3] == [
        "transformer.wte.weight", "transformer.wpe.weight",
        "transformer.h.0.ln_1.weight"]
    assert imported.aliases == {"transformer.wte.weight": ["lm_head.weight"]}
    text = imported.mlir
    assert 'amp.name = "transformer.h.1.mlp.c_fc.weight"' in text
    assert 'amp.name = "idx"' in text
    # Each op where the model's source made it, under its module's path.
    line = next(n for n, text_line in enumerate(
        open(models.__file__).read().splitlines(), 1)
        if "self.c_proj(F.gelu(self.c_fc(x)" in text_line)
    assert re.search(r'amp\.gelu .* loc\("transformer\.h\.0\.mlp"\(".*models'
                     rf'\.py":{line}:0\)\)', text), text
    # The autocast report names them too.
    imported.write(tmp_path / "nanogpt.mlir")
    ampmlir.autocast_report(tmp_path / "nanogpt.mlir", tmp_path / "report.json")
    ops = json.loads((tmp_path / "report.json").read_text())["functions"][0]["ops"]
    matmuls = [op for op in ops if op["op"] == "amp.matmul"]
    assert matmuls[0]["precision"] == "low"
    assert matmuls[0]["loc"].startswith('loc("transformer.h.0.attn.c_attn"(')


def test_masked_attention_is_written_out(tmp_path):
    class Masked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(8, 8)

        def forward(self, x, mask):
            q = self.proj(x).view(2, 5, 2, 4).transpose(1, 2)
            y = F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
            return y.square().mean()

    torch.manual_seed(0)
    model = Masked()
    mask = torch.rand(5, 5, generator=torch.Generator().manual_seed(3)) > 0.3
    mask |= torch.eye(5, dtype=torch.bool)
    batch = (torch.randn(2, 5, 8), mask)
    theirs, ours, _, _ = train_both(model, lambda m, x, k: m(x, k), [batch],
                                    tmp_path, steps=3, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_unsupported_operations_are_all_listed():
    model = models.Unsupported()
    with pytest.raises(AmpError) as error:
        ampmlir.from_torch(model, (torch.randn(2, 8),))
    message = str(error.value)
    line = next(n for n, text in enumerate(
        open(models.__file__).read().splitlines(), 1) if "torch.cumprod" in text)
    assert message == (
        "the model uses ATen operations that amp-mlir cannot import:\n"
        f"  aten.cumprod.default at forward (models.py:{line})\n"
        f"  aten.sort.default at forward (models.py:{line})"), message


def test_attention_modules_train_as_pytorch_does(tmp_path):
    """nn.MultiheadAttention both ways round, with padding, float and
    boolean masks, with and without the weights; torch.nn's encoder
    layers (post- and pre-norm) and decoder layer."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(5)
    padding = torch.tensor([[False] * 5 + [True], [False] * 6])
    batches = [(torch.randn(2, 6, 16, generator=g), padding,
                torch.randint(0, 3, (2, 6), generator=g)) for _ in range(2)]

    def attention_loss(m, x, pad, labels):
        return F.cross_entropy(m(x, pad).reshape(-1, 3), labels.reshape(-1))

    theirs, ours, _, _ = train_both(models.Attention(), attention_loss,
                                    batches, tmp_path / "mha", steps=6,
                                    compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert ours[-2] < ours[0]  # the same batch
    torch.manual_seed(0)
    batches = [(torch.randn(2, 6, 16, generator=g),
                torch.randn(2, 4, 16, generator=g)) for _ in range(2)]
    theirs, ours, _, _ = train_both(
        models.Transformers(), lambda m, s, t: m(s, t).pow(2).mean(),
        batches, tmp_path / "layers", steps=6, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert ours[-2] < ours[0]


def test_rotary_embeddings_train_as_pytorch_does(tmp_path):
    """LLaMA's rotary embeddings: the non-persistent inv_freq buffer is a
    constant of the model (cos and sin computed at import), not a tensor
    of the step, so the state goes back with strict=True."""
    torch.manual_seed(0)
    model = models.Rotary()
    g = torch.Generator().manual_seed(7)
    batches = [(torch.randn(2, 8, 16, generator=g),) for _ in range(2)]
    imported = ampmlir.from_torch(model, batches[0],
                                  loss=lambda m, x: m(x).pow(2).mean())
    assert "inv_freq" not in imported.mlir and not imported.buffers
    theirs, ours, state, _ = train_both(
        model, lambda m, x: m(x).pow(2).mean(), batches, tmp_path, steps=6,
        compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    model.load_state_dict(state)


def test_indexing_masks_and_other_layers_train_as_pytorch_does(tmp_path):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(6)
    batches = [(torch.randn(3, 4, 8, generator=g),
                torch.randint(0, 3, (3,), generator=g)) for _ in range(2)]
    theirs, ours, _, _ = train_both(models.Indexing(), classify, batches,
                                    tmp_path, steps=6, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert ours[-2] < ours[0]


def test_detach_stops_the_gradient_as_in_pytorch(tmp_path):
    """detach is amp.stop_gradient: the body trains only through the path
    that does not detach, as in PyTorch (through both, its gradient would
    be half as large again and the losses would part after one step)."""
    torch.manual_seed(0)
    model = models.Detached()
    imported = ampmlir.from_torch(model, classifier_batches(1)[0],
                                  loss=classify)
    assert imported.mlir.count("amp.stop_gradient") == 1
    # SGD: AdamW's steps would not see a gradient 1.5 times too large.
    theirs, ours, state, reference = train_both(
        model, classify, classifier_batches(), tmp_path, steps=8, lr=0.1,
        optimizer="sgd", compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    np.testing.assert_allclose(state["body.weight"].numpy(),
                               reference.body.weight.detach().numpy(),
                               rtol=1e-4, atol=1e-6)


def test_an_unsupported_operation_fed_by_another_is_listed_too():
    with pytest.raises(AmpError) as error:
        ampmlir.from_torch(models.Chained(), (torch.randn(2, 8),))
    lines = open(models.__file__).read().splitlines()
    sort = next(n for n, text in enumerate(lines, 1) if "torch.sort(" in text
                and "ordered" in text)
    assert str(error.value) == (
        "the model uses ATen operations that amp-mlir cannot import:\n"
        f"  aten.sort.default at forward (models.py:{sort})\n"
        f"  aten.cumprod.default at forward (models.py:{sort + 1})"), \
        str(error.value)


def test_a_module_in_eval_mode_is_warned_about():
    """A module in eval() mode would train its eval-mode forward: from_torch
    says so unless told which forward is meant, and training=True imports
    the training one. Either way the module's modes are as they were."""
    model = models.ConvNet().eval()
    batch = (torch.randn(2, 3, 8, 8), torch.tensor([0, 1]))
    with pytest.warns(UserWarning, match=r"ConvNet is in eval\(\) mode: the "
                                         r"step trains its eval-mode forward"):
        warned = ampmlir.from_torch(model, batch, loss=classify)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        meant = ampmlir.from_torch(model, batch, loss=classify,
                                   training=False)
        trained = ampmlir.from_torch(model, batch, loss=classify,
                                     training=True)
    def batch_norm_trains(imported):
        line = next(text for text in imported.mlir.splitlines()
                    if "amp.batch_norm" in text)
        return " training" in line

    assert not any(m.training for m in model.modules())
    assert warned.mlir == meant.mlir
    assert "amp.dropout" not in meant.mlir and not batch_norm_trains(meant)
    assert "amp.dropout" in trained.mlir and batch_norm_trains(trained)
    # A module that trains with a frozen batch norm (as fine-tuning keeps
    # one) is imported as it is, without a warning, and left so.
    model.train()
    model.bn.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frozen = ampmlir.from_torch(model, batch, loss=classify)
    assert "amp.dropout" in frozen.mlir and not batch_norm_trains(frozen)
    assert model.training and not model.bn.training
    with pytest.raises(AmpError, match="training must be True, False or "
                                       "None"):
        ampmlir.from_torch(model, batch, loss=classify, training="yes")


def test_the_step_starts_from_the_modules_weights(tmp_path):
    """init() alone puts the module's weights, as they were at import, in
    the step: training starts where PyTorch is."""
    torch.manual_seed(0)
    model = models.Classifier()
    at_import = {k: v.clone() for k, v in model.state_dict().items()}
    imported = ampmlir.from_torch(model, classifier_batches(1)[0],
                                  loss=classify)
    with torch.no_grad():
        model.fc1.weight.add_(1.0)  # after the import: not the start
    compiled = imported.compile(tmp_path / "step", compute_type="f32")
    with compiled.load() as step:
        step.init(seed=3)
        state = step.state_dict()
        assert state.keys() == at_import.keys()
        for key, value in at_import.items():
            assert torch.equal(state[key], value), key
    # A truncated record of the weights is said, not trained from.
    weights = tmp_path / "step" / "torch_state.npz"
    weights.write_bytes(weights.read_bytes()[:100])
    with compiled.load() as step:
        with pytest.raises(AmpError, match="torch_state.npz: cannot read the "
                                           "module's weights the step starts "
                                           "from"):
            step.init(seed=3)


def test_eval_outputs_name_the_modules_outputs(tmp_path):
    """An imported model's values are named for eval_outputs by module
    path: "fc2" is the classifier's head, the logits; the module's text is
    kept beside the step, where an error points."""
    torch.manual_seed(0)
    model = models.Classifier()
    x, labels = classifier_batches(1)[0]
    imported = ampmlir.from_torch(model, (x, labels), loss=classify)
    compiled = imported.compile(tmp_path / "step", compute_type="f32",
                                eval_outputs=["fc2", "fc1"])
    with compiled.load() as step:
        step.init(seed=0)
        loss = step.evaluate(x.numpy(), labels.numpy())
        with torch.no_grad():
            hidden = model.fc1(x)
            logits = model.fc2(F.relu(hidden))
        np.testing.assert_allclose(step.eval_output("fc2"), logits.numpy(),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(step.eval_output("fc1"), hidden.numpy(),
                                   rtol=1e-5, atol=1e-6)
        assert loss == pytest.approx(classify(model, x, labels).item(),
                                     rel=1e-5)
    with pytest.raises(ampmlir.CompileError) as error:
        imported.compile(tmp_path / "bad", compute_type="f32",
                         eval_outputs=["fc3"])
    source = tmp_path / "bad" / f"{imported.name}.mlir"
    assert source.read_text() == imported.mlir
    assert f"{source}:" in str(error.value)
    # The loss's op, which the wrapper calls, is located by its name.
    assert "defines no value named 'fc3' in its source (it defines: " \
        "cross_entropy_loss, fc1, fc2)" in str(error.value)


def test_bad_input_is_refused_clearly():
    with pytest.raises(AmpError, match="torch.export cannot trace the model"):
        ampmlir.from_torch(models.DataDependent(), (torch.randn(3, 4),))
    with pytest.raises(AmpError, match="the loss must be a 0-d f32 tensor; "
                                       r"it is \[16, 5\]"):
        ampmlir.from_torch(models.Classifier(), (torch.randn(16, 20),))
    with pytest.raises(AmpError, match="takes a torch.nn.Module"):
        ampmlir.from_torch(lambda x: x, (torch.randn(2),))
    with pytest.raises(AmpError, match="example argument 1 is a int"):
        ampmlir.from_torch(models.Classifier(), (torch.randn(16, 20), 3),
                           loss=classify)
    with pytest.raises(AmpError, match="name must be a C identifier"):
        ampmlir.from_torch(models.Classifier(), classifier_batches(1)[0],
                           loss=classify, name="my model")
    with pytest.raises(AmpError, match="dynamic shapes are not supported"):
        ampmlir.from_torch(models.Classifier(), classifier_batches(1)[0],
                           loss=classify,
                           dynamic_shapes={"x": {0: torch.export.Dim("n")},
                                           "labels": {0: torch.export.Dim("n")}})
    class Counts(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)
            self.register_buffer("seen", torch.zeros(4))

        def forward(self, x):
            self.seen.add_(x.sum(0).detach())
            return self.fc(x).mean()
    with pytest.raises(AmpError, match=r"aten.add_.Tensor: updates b_model_seen"
                                       r" in place; only batch norm's"):
        ampmlir.from_torch(Counts(), (torch.randn(2, 4),))

    class Offsets(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(8, 4)

        def forward(self, idx):
            return self.embed(idx + 1).mean()
    with pytest.raises(AmpError, match="add of i64 tensors computed from the "
                                       "batch"):
        ampmlir.from_torch(Offsets(), (torch.randint(0, 7, (2, 3)),))


def test_the_other_operations_train_as_pytorch_does(tmp_path):
    torch.manual_seed(0)
    model = models.Coverage()
    g = torch.Generator().manual_seed(4)
    batches = [(torch.randn(8, 6, 16, generator=g),
                torch.randint(0, 5, (8,), generator=g),
                torch.randn(8, 3, generator=g)) for _ in range(4)]
    imported = ampmlir.from_torch(model, batches[0])
    assert imported.inputs == ["x", "labels", "target"]
    for op in ("rms_norm", "sigmoid", "select", "max", "concat",
               "broadcast_to", "softmax", "log_softmax", "sum", "mean",
               "tanh", "mse_loss", "transpose"):
        assert f"amp.{op} " in imported.mlir, op
    theirs, ours, _, _ = train_both(
        model, lambda m, x, labels, target: m(x, labels, target), batches,
        tmp_path, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert theirs[-1] < theirs[0]


def test_decomposed_operations_train_as_pytorch_does(tmp_path):
    """Operations without an amp counterpart go through PyTorch's
    decompositions, one op at a time: the batch norm stays whole (its
    running statistics buffers), the rest becomes amp ops, located at the
    line that called them."""
    torch.manual_seed(0)
    model = models.Decomposed()
    g = torch.Generator().manual_seed(5)
    batches = [(torch.randn(8, 12, generator=g),
                torch.randint(0, 4, (8,), generator=g)) for _ in range(4)]
    imported = ampmlir.from_torch(model, batches[0])
    assert "bn.running_var" in imported.buffers
    assert "amp.batch_norm " in imported.mlir
    line = next(n for n, text in enumerate(
        open(models.__file__).read().splitlines(), 1) if "F.mish(h)" in text)
    assert f'models.py":{line}:0)' in imported.mlir
    theirs, ours, state, _ = train_both(
        model, lambda m, x, labels: m(x, labels), batches, tmp_path,
        compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert theirs[-1] < theirs[0]
    model.load_state_dict(state)


def test_dropout_in_training_draws_the_steps_masks(tmp_path):
    """Dropout in training becomes amp.dropout on the step's generator, a
    stream per dropout: each step draws new masks (the same batch at lr 0
    gives another loss every step), the evaluation has none (its loss is
    PyTorch's in eval mode), and the model trains."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(),
                                torch.nn.Dropout(0.5), torch.nn.Linear(64, 64),
                                torch.nn.ReLU(), torch.nn.Dropout(0.1),
                                torch.nn.Linear(64, 5))
    batches = classifier_batches()
    imported = ampmlir.from_torch(model, batches[0], loss=classify)
    assert imported.mlir.count("amp.dropout") == 2
    assert "stream = 0 training" in imported.mlir
    assert "stream = 1 training" in imported.mlir
    assert '{amp.rng, amp.name = "dropout_rng"}' in imported.mlir
    compiled = imported.compile(tmp_path / "step", compute_type="f32",
                                optimizer="adamw", train_options="lr=0.001")
    x, labels = batches[0]
    model.eval()
    with torch.no_grad():
        eval_loss = classify(model, x, labels).item()
    with compiled.load() as step:
        step.init(seed=0)
        step.load_state_dict(model.state_dict())
        assert step.evaluate(x.numpy(), labels.numpy()) == \
            pytest.approx(eval_loss, rel=1e-6)
        step.lr = 0.0
        losses = []
        for _ in range(3):
            step.run(x.numpy(), labels.numpy())
            losses.append(step.loss)
        assert len(set(losses)) == 3 and eval_loss not in losses
        step.lr = 0.003
        for k in range(40):
            batch = batches[k % len(batches)]
            step.run(*(t.numpy() for t in batch))
        assert step.evaluate(x.numpy(), labels.numpy()) < eval_loss


def test_load_state_dict_checks_the_keys(tmp_path):
    model = models.Classifier()
    imported = ampmlir.from_torch(model, classifier_batches(1)[0],
                                  loss=classify)
    compiled = imported.compile(tmp_path / "step", compute_type="f32")
    with compiled.load() as step:
        step.init(seed=0)
        before = step.read("fc1.weight")
        state = model.state_dict()
        state["extra"] = torch.zeros(1)
        del state["fc2.bias"]
        with pytest.raises(AmpError, match=r"missing \['fc2.bias'\], unknown "
                                           r"\['extra'\]"):
            step.load_state_dict(state)
        np.testing.assert_array_equal(step.read("fc1.weight"), before)
        bad = model.state_dict()
        bad["fc1.weight"] = torch.zeros(3, 3)
        with pytest.raises(AmpError, match="must have shape"):
            step.load_state_dict(bad)
        np.testing.assert_array_equal(step.read("fc1.weight"), before)
        step.load_state_dict(model.state_dict())
        np.testing.assert_array_equal(step.read("fc1.weight"),
                                      model.fc1.weight.detach().numpy())


class OddNames(torch.nn.Module):
    """Names PyTorch allows (it refuses only '.' and the empty one) that an
    MLIR string literal must escape: a quote, a backslash, a line break."""

    def __init__(self):
        super().__init__()
        self.add_module("in\\put", torch.nn.Linear(20, 8))
        self.register_parameter('shift"', torch.nn.Parameter(
            0.1 * torch.randn(8)))
        self.scales = torch.nn.ParameterDict({
            "per\nclass": torch.nn.Parameter(1 + 0.1 * torch.randn(5))})
        self.out = torch.nn.Linear(8, 5)

    def forward(self, x):
        h = torch.relu(getattr(self, "in\\put")(x) + getattr(self, 'shift"'))
        return self.out(h) * self.scales["per\nclass"]


def test_names_with_quotes_backslashes_and_line_breaks_train(tmp_path):
    # They are escaped in the IR, which reads them back as they were: the
    # step trains as PyTorch does and its state_dict has the module's keys.
    torch.manual_seed(0)
    model = OddNames()
    keys = list(model.state_dict())
    assert {'shift"', "in\\put.weight", "scales.per\nclass"} <= set(keys)
    imported = ampmlir.from_torch(model, classifier_batches(1)[0],
                                  loss=classify)
    assert set(imported.parameters) == set(keys)
    assert 'amp.name = "shift\\""' in imported.mlir
    assert 'amp.name = "in\\\\put.weight"' in imported.mlir
    assert 'amp.name = "scales.per\\0Aclass"' in imported.mlir
    assert 'loc("in\\\\put"(' in imported.mlir
    theirs, ours, state, reference = train_both(
        model, classify, classifier_batches(), tmp_path, steps=5,
        compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert sorted(state) == sorted(keys)
    for key, value in reference.state_dict().items():
        np.testing.assert_allclose(state[key].numpy(), value.numpy(),
                                   rtol=1e-4, atol=1e-6)
    # And back into the module under the same keys.
    OddNames().load_state_dict(state)



def test_a_key_holding_a_nul_is_refused_naming_it():
    # C reads a tensor's name up to a NUL: the step would call it "a".
    model = models.Classifier()
    model.register_parameter("a\0b", torch.nn.Parameter(torch.zeros(5)))
    with pytest.raises(AmpError, match=r"'a\\x00b' holds a NUL character"):
        ampmlir.from_torch(model, classifier_batches(1)[0],
                           loss=lambda m, x, y: classify(m, x, y) +
                           getattr(m, "a\0b").sum())

def test_a_name_too_long_for_the_step_s_files_is_refused(tmp_path):
    imported = ampmlir.from_torch(models.Classifier(),
                                  classifier_batches(1)[0], loss=classify)
    for make in (
            lambda: ampmlir.from_torch(models.Classifier(),
                                       classifier_batches(1)[0],
                                       loss=classify, name="n" * 300),
            lambda: imported.compile(tmp_path / "step", name="n" * 244)):
        with pytest.raises(AmpError, match="at most 243, so that its files"):
            make()
    assert not (tmp_path / "step").exists()


def trains_as_pytorch(model, loss, batches, tmp_path, falls):
    """The model trained 8 f32 AdamW steps at 1e-2 by PyTorch and by the
    compiled step (train_both): the losses within 1e-5 at every step, the
    loss of step `falls` below the first, every state_dict tensor within
    1e-4. Returns the step's state_dict."""
    theirs, ours, state, reference = train_both(
        model, loss, batches, tmp_path, steps=8, lr=1e-2, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert ours[falls] < ours[0], ours
    for key, value in reference.state_dict().items():
        np.testing.assert_allclose(state[key], value.detach(), rtol=1e-4,
                                   atol=1e-6, err_msg=key)
    return state


def test_resampling_layers_train_as_pytorch_does(tmp_path):
    """models.Resampling: ConvTranspose2d is amp.conv2d_grad_input (the
    convolution's own input gradient), F.interpolate a product by
    constant weight matrices along each axis, Embedding(padding_idx) a
    table whose padding row gets no gradient (and so stays as it is),
    LSTM through PyTorch's decomposition; within 1e-5 of PyTorch."""
    torch.manual_seed(0)
    model = models.Resampling()
    g = torch.Generator().manual_seed(8)
    batches = []
    for _ in range(2):
        ids = torch.randint(0, 10, (2, 5), generator=g)
        ids[:, -1] = 0
        batches.append((torch.randn(2, 3, 5, 5, generator=g), ids,
                        torch.randint(0, 3, (2, 10, 10), generator=g)))

    def loss(m, x, ids, labels):
        return F.cross_entropy(m(x, ids), labels)
    imported = ampmlir.from_torch(model, batches[0], loss=loss)
    assert imported.mlir.count("amp.conv2d_grad_input") == 2
    trains_as_pytorch(model, loss, batches, tmp_path, falls=-2)


def test_shifted_windows_train_as_pytorch_does(tmp_path):
    """models.ShiftedWindows (Swin's attention): the integer buffer of
    relative positions is compiled in as a constant and indexes the bias
    table through amp.embedding (whose gradient adds into the rows read),
    torch.roll is two slices swapped, and the mask made in place from
    x.new_zeros is computed at import; within 1e-5 of PyTorch. The
    state_dict hands the buffer back as it was, and load_state_dict
    refuses another value for it (nothing is written then)."""
    torch.manual_seed(0)
    model = models.ShiftedWindows()
    g = torch.Generator().manual_seed(9)
    batches = [(torch.randn(2, 6, 6, 4, generator=g),
                torch.randint(0, 2, (2,), generator=g)) for _ in range(2)]

    def loss(m, x, labels):
        return F.cross_entropy(m(x), labels)
    imported = ampmlir.from_torch(model, batches[0], loss=loss)
    assert imported.constants == ["position_index"]
    assert "amp.embedding" in imported.mlir and "position_index" not in \
        imported.buffers
    theirs, ours, state, reference = train_both(
        model, loss, batches, tmp_path, steps=8, lr=1e-2, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert ours[-1] < ours[0], ours
    assert state["position_index"].dtype == torch.int64
    assert torch.equal(state["position_index"], model.position_index)
    np.testing.assert_allclose(state["table"], reference.table.detach(),
                               rtol=1e-4, atol=1e-6)
    trained = copy.deepcopy(model)
    trained.load_state_dict(state, strict=True)
    compiled = imported.compile(tmp_path / "again", optimizer="adamw")
    with compiled.load() as step:
        step.init(seed=0)
        before = step.state_dict()["table"].clone()
        changed = dict(model.state_dict())
        changed["table"] = changed["table"] + 1.0
        changed["position_index"] = changed["position_index"].flip(0)
        with pytest.raises(ampmlir.AmpError, match="position_index is "
                           "compiled into step .* as a constant"):
            step.load_state_dict(changed)
        assert torch.equal(step.state_dict()["table"], before)


def test_positions_found_by_argmax_train_as_pytorch_does(tmp_path):
    """models.EndOfText (CLIP's pooling): the mask of end-of-text ids
    counted as int32, its argmax (the first position of each row's
    largest value; none in a row is position 0, as in PyTorch) and that of
    float scores held in f32, each picking one position per row by a
    one-hot mask; within 1e-5 of PyTorch, the picked rows' gradient
    reaching the embedding. Ids computed that way that may leave an
    embedding's table are refused by name."""
    torch.manual_seed(0)
    model = models.EndOfText()
    g = torch.Generator().manual_seed(10)
    batches = []
    for _ in range(2):
        ids = torch.randint(0, 11, (3, 6), generator=g)
        ids[0, 5] = ids[1, 2] = ids[1, 4] = 11   # row 2 has none
        batches.append((ids, torch.randint(0, 3, (3,), generator=g)))

    def loss(m, ids, labels):
        return F.cross_entropy(m(ids), labels)
    imported = ampmlir.from_torch(model, batches[0], loss=loss)
    assert "aten" not in imported.mlir
    trains_as_pytorch(model, loss, batches, tmp_path, falls=-1)

    class Positions(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(7, 2)

        def forward(self, ids):
            mask = (ids == 3).int()
            return self.embed(torch.cumsum(mask, 1) * 3).sum()
    with pytest.raises(AmpError, match=r"embed \(test_import.py:\d+\): "
                       r"aten.embedding.default: embedding ids computed from "
                       r"the batch may lie in \[0, 9\], outside the table's "
                       "7 rows"):
        ampmlir.from_torch(Positions(), (torch.ones(2, 3, dtype=torch.long),))


class AutocastOff(torch.nn.Module):
    """A classifier whose middle runs with autocast disabled, its input
    cast up first, as PyTorch's AMP examples write it."""

    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(20, 32)
        self.norm = torch.nn.LayerNorm(32)
        self.mid = torch.nn.Linear(32, 32)
        self.out = torch.nn.Linear(32, 5)

    def forward(self, x):
        h = torch.relu(self.inp(x))
        with torch.autocast(device_type="cpu", enabled=False):
            h = self.mid(torch.softmax(self.norm(h.float()) * 2, -1))
        return self.out(h)


class AutocastOn(AutocastOff):
    """The same classifier with autocast on throughout."""

    def forward(self, x):
        h = torch.relu(self.inp(x))
        h = self.mid(torch.softmax(self.norm(h.float()) * 2, -1))
        return self.out(h)


def test_an_autocast_disabled_region_runs_in_f32(tmp_path):
    """torch.autocast(enabled=False) in a forward (torch.export's
    wrap_with_autocast, whose graph was refused as a get_attr node): its
    ops are pinned to f32 (amp.precision) with the region's place as the
    reason, which the autocast report gives; the ops around it are cast as
    usual; and the f16 step follows PyTorch's autocast recipe with the same
    region: the same skipped steps and scales, the losses within the
    recipes' spread."""
    torch.manual_seed(0)
    model = AutocastOff()
    batches = classifier_batches()
    imported = ampmlir.from_torch(model, batches[0], loss=classify)
    line = next(n for n, text in enumerate(
        open(__file__).read().splitlines(), 1)
        if "self.mid(torch.softmax(" in text)
    reason = (f"torch.autocast(enabled=False) at forward "
              f"(test_import.py:{line})")
    pinned = [text for text in imported.mlir.splitlines()
              if "amp.precision_reason" in text]
    assert [re.search(r"= amp\.(\w+)", text).group(1) for text in pinned] == \
        ["layer_norm", "mul", "softmax", "matmul"], imported.mlir
    assert all(f'amp.precision = f32, amp.precision_reason = "{reason}"'
               in text for text in pinned)
    imported.write(tmp_path / "model.mlir")
    ampmlir.autocast_report(tmp_path / "model.mlir", tmp_path / "report.json")
    report = json.loads((tmp_path / "report.json").read_text())
    matmuls = [op for op in report["functions"][0]["ops"]
               if op["op"] == "amp.matmul"]
    assert [op["precision"] for op in matmuls] == ["low", "f32", "low"]
    assert matmuls[1]["reason"] == f"forced by amp.precision ({reason})"
    ours, ours_skipped, ours_scales = f16_step_losses(
        model, classify, batches, tmp_path, 10, 2.0**16)
    theirs, theirs_skipped, theirs_scales = autocast_losses(
        model, classify, batches, 2.0**16, 10)
    assert ours_skipped == theirs_skipped
    assert ours_scales == theirs_scales
    # Within 1e-6 of the recipe (7.7e-8 measured), where the same model
    # with autocast on throughout (its middle linear in f16) is up to
    # 1.2e-5 from it.
    on = AutocastOn()
    on.load_state_dict(model.state_dict())
    everywhere, _, _ = autocast_losses(on, classify, batches, 2.0**16, 10)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    assert np.max(np.abs(everywhere - theirs) / np.abs(theirs)) > 2e-6

    # A region that enables autocast again inside a disabled one is the
    # step's autocast: its linear is not pinned, the ops around it are.
    class Nested(AutocastOff):
        def forward(self, x):
            h = torch.relu(self.inp(x))
            with torch.autocast(device_type="cpu", enabled=False):
                h = self.norm(h.float())
                with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                    h = self.mid(h)
                h = torch.softmax(h.float(), -1)
            return self.out(h)

    text = ampmlir.from_torch(Nested(), batches[0], loss=classify).mlir
    ops = [(found.group(1), "amp.precision_reason" in t)
           for t in text.splitlines()
           if (found := re.search(r"= amp\.(matmul|layer_norm|softmax) ", t))]
    assert ops == [("matmul", False), ("layer_norm", True), ("matmul", False),
                   ("softmax", True), ("matmul", False)], text


class GradientPenalty(torch.nn.Module):
    """PyTorch's gradient-penalty recipe as a model: the loss plus the L2
    norm of its gradient with respect to the parameters, taken by
    ampmlir.grad. With `scaler` set (PyTorch's f16 run), the eager forward
    takes the inner gradient of the scaled loss and unscales it by hand,
    as the recipe writes it."""
    scaler = None

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(20, 16)
        self.fc2 = torch.nn.Linear(16, 5)

    def forward(self, x, labels):
        loss = F.cross_entropy(self.fc2(torch.tanh(self.fc1(x))), labels)
        params = list(self.parameters())
        if self.scaler is None:
            grads = ampmlir.grad(loss, params)
        else:
            scaled = torch.autograd.grad(self.scaler.scale(loss), params,
                                         create_graph=True)
            inv_scale = 1. / self.scaler.get_scale()
            grads = [g * inv_scale for g in scaled]
        norm = 0
        for g in grads:
            norm = norm + g.pow(2).sum()
        return loss + norm.sqrt()


class InputPenalty(torch.nn.Module):
    """R1's shape: a critic's loss on the batch plus the mean squared norm
    of its gradient with respect to the batch (made to require gradients
    in the forward, as a PyTorch user writes it)."""

    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(20, 16)
        self.fc2 = torch.nn.Linear(16, 5)

    def forward(self, x, labels):
        x = x.requires_grad_(True)
        loss = F.cross_entropy(self.fc2(torch.tanh(self.fc1(x))), labels)
        (gx,) = ampmlir.grad(loss, [x])
        return loss + 10.0 * gx.pow(2).sum(1).mean()


def eager_losses(model, batches, steps, lr=1e-3):
    """The module's own loss trained eagerly with AdamW, from a copy."""
    reference = copy.deepcopy(model)
    optimizer = torch.optim.AdamW(reference.parameters(), lr=lr)
    losses = []
    for k in range(steps):
        optimizer.zero_grad()
        value = reference(*batches[k % len(batches)])
        value.backward()
        optimizer.step()
        losses.append(value.item())
    return np.array(losses)


def f32_step_losses(model, batches, tmp_path, steps, lr=1e-3):
    compiled = ampmlir.from_torch(model, batches[0]).compile(
        tmp_path / "f32", compute_type="f32", optimizer="adamw",
        train_options=f"lr={lr}")
    losses = []
    with compiled.load() as step:
        step.init(seed=0)
        step.load_state_dict(model.state_dict())
        for k in range(steps):
            step.run(*(t.numpy() for t in batches[k % len(batches)]))
            losses.append(step.loss)
    return np.array(losses)


def test_a_gradient_penalty_trains_as_pytorchs_recipe(tmp_path):
    """ampmlir.grad in a forward: torch.autograd.grad(create_graph=True)
    eagerly, an amp.grad when imported (torch.export cannot trace the
    former). The step trains as PyTorch does in f32, and in f16 takes the
    same skipped steps and scales as PyTorch's recipe with GradScaler (the
    inner gradient of the scaled loss, unscaled by hand)."""
    torch.manual_seed(0)
    model = GradientPenalty()
    batches = classifier_batches()
    imported = ampmlir.from_torch(model, batches[0])
    assert imported.mlir.count("= amp.grad (") == 1, imported.mlir
    ours = f32_step_losses(model, batches, tmp_path, 10)
    theirs = eager_losses(model, batches, 10)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert theirs[-1] < theirs[0]

    steps, init_scale = 10, 2.0**24
    ours, ours_skipped, ours_scales = f16_step_losses(
        model, None, batches, tmp_path, steps, init_scale)
    # The recipe's inner gradient of the scaled loss, unscaled by hand.
    theirs, theirs_skipped, theirs_scales = autocast_losses(
        model, lambda m, *batch: m(*batch), batches, init_scale, steps,
        setup=lambda reference, scaler: setattr(reference, "scaler", scaler))
    assert theirs_skipped, "the scale must overflow within the run"
    assert ours_skipped == theirs_skipped
    assert ours_scales == theirs_scales
    clean = [k for k in range(steps) if k not in theirs_skipped]
    np.testing.assert_allclose(ours[clean], theirs[clean], rtol=1e-3)


def test_an_input_gradient_penalty_trains_as_pytorch_does(tmp_path):
    """The gradient with respect to the batch (R1's, WGAN-GP's shape),
    the batch made to require gradients in the forward."""
    torch.manual_seed(0)
    model = InputPenalty()
    batches = classifier_batches()
    text = ampmlir.from_torch(model, batches[0]).mlir
    assert re.search(r"= amp\.grad \(%arg4\) : \(tensor<16x20xf32>\)", text), \
        text
    ours = f32_step_losses(model, batches, tmp_path, 10)
    theirs = eager_losses(model, batches, 10)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)


def test_torch_autograd_grad_in_a_forward_is_refused_by_name():
    """torch.export cannot trace torch.autograd.grad (it fails on a fake
    tensor it left behind): the error names the line and ampmlir.grad."""

    class Direct(GradientPenalty):
        def forward(self, x, labels):
            loss = F.cross_entropy(self.fc2(torch.tanh(self.fc1(x))), labels)
            grads = torch.autograd.grad(loss, list(self.parameters()),
                                        create_graph=True)
            return loss + sum(g.pow(2).sum() for g in grads)

    line = next(n for n, text in enumerate(
        open(__file__).read().splitlines(), 1)
        if "grads = torch.autograd.grad(loss, list(self" in text)
    with pytest.raises(AmpError, match=(
            rf"the model calls torch.autograd.grad at test_import.py:{line}, "
            r"which torch.export cannot trace; write ampmlir.grad")):
        ampmlir.from_torch(Direct(), classifier_batches()[0])
    # Eagerly, and after the import, torch.autograd.grad is PyTorch's.
    x = torch.ones(2, requires_grad=True)
    assert torch.equal(torch.autograd.grad((x * x).sum(), [x])[0],
                       torch.full((2,), 2.0))


class StraightThrough(torch.autograd.Function):
    """Clipping with the identity as its gradient (a straight-through
    estimator): a backward that is not the forward's derivative, which is
    0 outside [-1, 1]. custom_fwd(cast_inputs=f32): both run in f32."""

    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
    def forward(ctx, x):
        return torch.clamp(x, -1, 1)

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx, g):
        return g


class TanhProjection(torch.autograd.Function):
    """tanh(x @ w) with its backward written out, recomputing what it
    needs from what the forward saved; under the surrounding autocast."""

    @staticmethod
    @torch.amp.custom_fwd(device_type="cpu")
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return torch.tanh(x @ w)

    @staticmethod
    @torch.amp.custom_bwd(device_type="cpu")
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        y = torch.tanh(x @ w)
        d = g * (1 - y * y)
        return d @ w.t(), x.t() @ d


class WithFunctions(torch.nn.Module):
    def __init__(self, clip=StraightThrough.apply):
        super().__init__()
        self.fc = torch.nn.Linear(20, 16)
        self.w = torch.nn.Parameter(torch.randn(16, 5) * 0.3)
        self.clip = clip

    def forward(self, x):
        return TanhProjection.apply(self.clip(self.fc(x) * 3), self.w)


def test_an_autograd_function_imports_with_its_own_backward(tmp_path):
    """torch.export inlines an autograd.Function's forward and drops its
    backward (strict or not). from_torch traces both and writes them as a
    function with amp.custom_vjp naming its backward (amp.cast_inputs for
    custom_fwd(cast_inputs=torch.float32)): the step trains as PyTorch does
    with the Function's own backward, in f32 and in f16 against the
    autocast recipe; the same model differentiating the clipping instead
    trains otherwise."""
    torch.manual_seed(0)
    model = WithFunctions()
    batches = classifier_batches()
    text = ampmlir.from_torch(model, batches[0], loss=classify).mlir
    assert re.search(r"func.func private @model_StraightThrough_0_forward\("
                     r".*amp.custom_vjp = @model_StraightThrough_0_backward, "
                     r"amp.cast_inputs = f32", text), text
    assert re.search(r"func.func private @model_TanhProjection_1_forward\("
                     r".*\{amp.custom_vjp = @model_TanhProjection_1_backward"
                     r"\}", text), text
    # The straight-through backward hands the gradient on as it is.
    backward = text[text.index("@model_StraightThrough_0_backward("):]
    assert re.match(r"@model_StraightThrough_0_backward\((%a_\d+): .*, "
                    r"(%a_\d+): tensor<16x16xf32>\) -> \(tensor<16x16xf32>\)"
                    r" \{\n    return \2 :", backward), backward
    theirs, ours, _, _ = train_both(model, classify, batches, tmp_path,
                                    compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    clipped = WithFunctions(clip=lambda h: torch.clamp(h, -1, 1))
    clipped.load_state_dict(model.state_dict())
    differentiated, _, _, _ = train_both(clipped, classify, batches,
                                         tmp_path / "clamp",
                                         compute_type="f32")
    assert np.max(np.abs(differentiated - theirs) / np.abs(theirs)) > 1e-3

    (ours, ours_skipped), (theirs, theirs_skipped), _ = f16_against_pytorch(
        model, classify, batches, tmp_path / "f16", steps=10)
    assert ours_skipped == theirs_skipped
    np.testing.assert_allclose(ours, theirs, rtol=1e-3)


def test_an_autograd_function_that_cannot_be_imported_is_named():
    """A Function whose forward reads a tensor of the model it was not
    given is refused by name; an operation of its own without a
    counterpart is listed with the model's others. Eagerly, and after the import, Functions are
    PyTorch's."""

    class Closure(torch.autograd.Function):
        weight = None

        @staticmethod
        def forward(ctx, x):
            return x * Closure.weight

        @staticmethod
        def backward(ctx, g):
            return g * Closure.weight

    class Rounding(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.round(x)

        @staticmethod
        def backward(ctx, g):
            return g

    class Applies(torch.nn.Module):
        def __init__(self, apply):
            super().__init__()
            self.fc = torch.nn.Linear(20, 5)
            self.apply_ = apply

        def forward(self, x):
            return self.apply_(self.fc(x))

    batch = classifier_batches()[0]
    model = Applies(lambda h: Closure.apply(h))

    def read_weight(m, x, labels):
        Closure.weight = m.fc.bias
        return classify(m, x, labels)

    with pytest.raises(AmpError, match=(
            r"the forward of .*Closure \(applied at .*\) reads "
            r"\w+ from the model, not from its arguments; pass it to "
            r"apply")):
        ampmlir.from_torch(model, batch, loss=read_weight)
    with pytest.raises(AmpError, match=r"aten.round.default at "):
        ampmlir.from_torch(Applies(Rounding.apply), batch, loss=classify)
    x = torch.tensor([0.4, 1.6], requires_grad=True)
    StraightThrough.apply(x * 2).sum().backward()
    assert torch.equal(x.grad, torch.full((2,), 2.0))


def test_gradients_and_functions_that_cannot_be_imported_are_named():
    """ampmlir.grad of a value that is not 0-d or with respect to an
    integer, and Functions that return integers, give a gradient per
    argument that does not fit, or modify their input in place: each an
    AmpError that says what."""
    batch = classifier_batches()[0]

    class Wrapped(torch.nn.Module):
        def __init__(self, body):
            super().__init__()
            self.fc = torch.nn.Linear(20, 5)
            self.body = body

        def forward(self, x, labels):
            return self.body(self, x, labels)

    def not_scalar(m, x, labels):
        logits = m.fc(x)
        (g,) = ampmlir.grad(logits, [x])
        return F.cross_entropy(logits, labels) + g.sum()

    with pytest.raises(AmpError, match=(
            r"ampmlir.grad takes the gradient of a 0-d float value, not of "
            r"a tensor<16x5xf32>")):
        ampmlir.from_torch(Wrapped(not_scalar), batch)

    def of_labels(m, x, labels):
        loss = F.cross_entropy(m.fc(x), labels)
        (g,) = ampmlir.grad(loss, [labels])
        return loss + g.sum()

    with pytest.raises(AmpError, match=(
            r"ampmlir.grad differentiates with respect to float tensors")):
        ampmlir.from_torch(Wrapped(of_labels), batch)

    class Counts(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (x > 0).long()

        @staticmethod
        def backward(ctx, g):
            return None

    class TwoGradients(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, g

    class InPlace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    def applying(function):
        return lambda m, x, labels: F.cross_entropy(
            m.fc(function.apply(x)).float(), labels)

    for function, message in [
            (Counts, r"the forward of .*Counts at test_import.py:\d+ returns "
                     r"other than float tensors"),
            (TwoGradients, r"the backward of .*TwoGradients at "
                           r"test_import.py:\d+ returns 2 gradients for 1 "
                           r"arguments"),
            (InPlace, r"an autograd.Function that modifies its inputs in "
                      r"place \(ctx.mark_dirty\) cannot be imported")]:
        with pytest.raises(AmpError, match=message):
            ampmlir.from_torch(Wrapped(applying(function)), batch)


def test_one_op_of_pytorch_rounds_once():
    """An op PyTorch computes in one kernel and rounds once (hardswish,
    silu, an LSTM's gates and cell between its matmuls) but that is
    written here as several elementwise ops keeps them in f32
    (amp.precision), so that f16 and bf16 round its result once, not
    each partial one; a single elementwise op (relu, sigmoid) is left to
    autocast, and so are the matmuls of a decomposition."""
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Hardswish(),
                                torch.nn.Linear(8, 8), torch.nn.SiLU(),
                                torch.nn.Linear(8, 8), torch.nn.ReLU(),
                                torch.nn.Sigmoid())
    x = torch.randn(2, 4)
    lines = ampmlir.from_torch(model, (x,),
                               loss=lambda m, x: m(x).sum()).mlir.splitlines()

    def ops(module):
        return [re.search(r"= amp\.(\w+)", line).group(1) +
                (" f32" if "amp.precision = f32" in line else "")
                for line in lines if f'loc("{module}")' in line and
                "amp.constant" not in line]
    assert ops("1") == ["add f32", "maximum f32", "minimum f32", "mul f32",
                        "div f32"]
    assert ops("3") == ["sigmoid f32", "mul f32"]
    assert ops("5") == ["relu"] and ops("6") == ["sigmoid"]
    assert all("amp.precision" not in line for line in lines
               if "amp.matmul" in line)

    lstm = torch.nn.LSTM(4, 4, batch_first=True)
    text = ampmlir.from_torch(lstm, (torch.randn(2, 3, 4),),
                              loss=lambda m, x: m(x)[0].sum()).mlir
    gates = [line for line in text.splitlines()
             if re.search(r"= amp\.(sigmoid|tanh|mul|add) ", line)]
    assert len(gates) >= 3 * 5 and all("amp.precision = f32" in line
                                       for line in gates)
    assert all("amp.precision" not in line for line in text.splitlines()
               if "amp.matmul" in line)


def test_position_ids_from_the_batch_train_as_pytorch_does(tmp_path):
    """models.CountedPositions (RoBERTa's position ids): the padding mask
    counted by cumsum (a product by a triangle of ones kept in f32),
    times the mask, plus the padding id, held in f32 as integers and
    gathered from the position table by one-hot rows (f32, exact; no
    gradient to the padding row); a constant of zeros gathered at those
    ids; and a cumsum of activations; within 1e-5 of PyTorch."""
    torch.manual_seed(0)
    model = models.CountedPositions()
    g = torch.Generator().manual_seed(11)
    batches = []
    for _ in range(2):
        ids = torch.randint(2, 10, (3, 6), generator=g)
        ids[0, 4:] = ids[2, 1:] = 1            # padding at the end
        batches.append((ids, torch.randint(0, 3, (3,), generator=g)))

    def loss(m, ids, labels):
        return F.cross_entropy(m(ids), labels)
    imported = ampmlir.from_torch(model, batches[0], loss=loss)
    assert "aten" not in imported.mlir
    assert imported.mlir.count("{amp.precision = f32}") >= 3
    state = trains_as_pytorch(model, loss, batches, tmp_path, falls=-2)
    # The padding row gets no gradient, in either.
    np.testing.assert_array_equal(state["positions.weight"][1],
                                  model.positions.weight[1].detach())


def test_fit_takes_a_dataloader(tmp_path):
    """A DataLoader's batches, in its order, train as fit over the same
    rows as a data set without shuffling: the same state, byte for byte;
    its last partial batch (100 rows in batches of 16) is left out, as
    drop_last would, and said so."""
    g = torch.Generator().manual_seed(5)
    x, y = torch.randn(100, 20, generator=g), torch.randint(0, 5, (100,),
                                                            generator=g)
    torch.manual_seed(0)
    imported = ampmlir.from_torch(models.Classifier(), (x[:16], y[:16]),
                                  loss=classify)
    compiled = imported.compile(tmp_path / "step", compute_type="f32")
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(x, y), batch_size=16, shuffle=False)
    lines = []
    with compiled.load() as step:
        step.init(seed=3)
        names = [t.name for t in step.inputs]
        step.fit({names[0]: x.numpy(), names[1]: y.numpy()}, epochs=2,
                 shuffle=False, print_every=0)
        step.save(tmp_path / "rows")
    with compiled.load() as step:
        step.init(seed=3)
        step.fit(loader, epochs=2, print_every=0, progress=lines.append)
        assert step.steps == 12
        step.save(tmp_path / "loader")
    assert (tmp_path / "loader").read_bytes() == \
        (tmp_path / "rows").read_bytes()
    assert lines[0] == "data: batches of 16 from DataLoader, 2 epochs; " \
                       "from step 0"
    assert lines[-1].endswith("(2 partial batches left out, as drop_last)")
