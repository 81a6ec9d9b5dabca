"""Models nobody here wrote, imported as their libraries build them:
torchvision's resnet18 and Hugging Face transformers' GPT2LMHeadModel."""

import contextlib
import copy
import json
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
import torchvision
import transformers

import ampmlir

from test_import import (assert_within_recipes, f16_against_pytorch,
                         f16_step_losses, train_both)


def classify(model, x, labels):
    return F.cross_entropy(model(x), labels)


def gpt2():
    """transformers' GPT2LMHeadModel from a 2-layer config (nothing
    downloaded), and 4 batches of 4 sequences of 16 tokens."""
    transformers.logging.set_verbosity_error()
    config = transformers.GPT2Config(
        n_layer=2, n_embd=32, n_head=4, n_positions=16, vocab_size=64,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0,
        eos_token_id=0)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config)
    g = torch.Generator().manual_seed(2)
    tokens = [torch.randint(0, 64, (4, 16), generator=g) for _ in range(4)]
    return model, [(t, t) for t in tokens]


def gpt2_loss(m, input_ids, labels):
    return m(input_ids=input_ids, labels=labels).loss


def test_gpt2_trains_as_pytorch_does(tmp_path):
    model, batches = gpt2()
    theirs, ours, state, reference = train_both(
        model, gpt2_loss, batches, tmp_path, compute_type="f32")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5)
    assert theirs[-1] < theirs[0]
    model.load_state_dict(state)
    assert torch.equal(model.lm_head.weight, model.transformer.wte.weight)
    # GPT-2's Conv1D keeps its [in, out] layout: addmm reads it as it is.
    assert tuple(state["transformer.h.0.attn.c_attn.weight"].shape) == (32, 96)


def test_gpt2_in_f16_follows_pytorchs_recipes(tmp_path):
    """The f16 AMP step against PyTorch's autocast with GradScaler and
    pure f16 with f32 masters (test_import.f16_against_pytorch), 20
    steps from scale 2^24: the same skipped steps, the same scale after
    each, every loss within the recipes' spread."""
    model, batches = gpt2()
    (ours, ours_skipped), (theirs, theirs_skipped), (pure, pure_skipped) = \
        f16_against_pytorch(model, gpt2_loss, batches, tmp_path)
    assert ours_skipped == theirs_skipped == pure_skipped
    assert ours_skipped, "the scale of 2^24 overflows at first"
    assert_within_recipes(ours, theirs, pure)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)


def resnet18(size):
    """torchvision's resnet18 (random init, 10 classes) and 4 batches of 4
    size x size images."""
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10)
    g = torch.Generator().manual_seed(1)
    batches = [(torch.randn(4, 3, size, size, generator=g),
                torch.randint(0, 10, (4,), generator=g)) for _ in range(4)]
    return model, batches


@pytest.fixture(scope="module")
def resnet(tmp_path_factory):
    """resnet18 for 32x32 images, imported and compiled in f32 with AdamW
    at PyTorch's default rate."""
    model, batches = resnet18(32)
    imported = ampmlir.from_torch(model, batches[0], loss=classify,
                                  name="resnet18")
    compiled = imported.compile(tmp_path_factory.mktemp("resnet18"),
                                compute_type="f32", optimizer="adamw",
                                train_options="lr=0.001")
    return model, batches, imported, compiled


def test_resnet18_imports_its_batch_norms_as_buffers(resnet):
    model, _, imported, _ = resnet
    assert len(imported.parameters) == len(list(model.parameters()))
    assert "layer4.1.bn2.running_var" in imported.buffers
    assert "bn1.num_batches_tracked" in imported.counters
    # Running variances start at 1, as PyTorch's.
    assert '{amp.buffer = 1.0, amp.name = "bn1.running_var"}' in imported.mlir


def f32_configurations():
    """PyTorch's ordinary f32 configurations, as (memory format, threads),
    its default first: contiguous and channels_last tensors, on the
    default number of threads and on one. They sum in different orders, so
    together they show how far an f32 computation may land from f64."""
    counts = [torch.get_num_threads()]
    if counts[0] > 1:
        counts.append(1)
    return [(layout, count)
            for layout in (torch.contiguous_format, torch.channels_last)
            for count in counts]


@contextlib.contextmanager
def torch_threads(count):
    default = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(default)


def test_resnet18_gradients_are_as_close_to_f64_as_pytorchs(resnet):
    """One step's loss, gradients and running statistics against PyTorch
    in f64, with PyTorch's f32 configurations (f32_configurations) as the
    measure of what f32 rounding does. Over several steps the comparison
    is chaotic, for PyTorch too: batch norm over 4 values per channel in
    the last stage amplifies rounding, and AdamW's first steps move each
    weight by the sign of its gradient, so PyTorch in f32 and in f64
    differ by 4% after 3 steps.

    One configuration's error is no yardstick: on an AMD EPYC without
    AVX-512 (2 cores, 2026-12-01) PyTorch's f32 loss is 1.8e-7 off f64
    contiguous on one thread, 4.2e-7 on two, 5.4e-7 channels_last on two
    and 5.9e-6 on one; ours is 4.9e-6 off. So ours is held against the
    furthest of them, by factors measured there on the fixture's 4
    batches, each of PyTorch's configurations held against the other
    three and ours against all four: on one parameter's gradient up to
    2.3 times as far from f64 (ours 1.44), on the worst parameter 1.5
    times (ours 0.78), on average over the 62 parameters 1.15 times (ours
    0.77). The average is the sharp check: compiled with the first
    block's batch norm eps at 2e-5, not 1e-5, most gradients move by
    1.7e-4 of their largest element, no more than rounding does, and
    ours are then 1.6 times as far on average. The loss is one number,
    and the configurations' errors differ by up to 11 times: it is held
    to three times the furthest, or 1e-6 of itself (a few roundings),
    whichever is larger."""
    model, batches, _, compiled = resnet
    x, labels = batches[0]
    exact = copy.deepcopy(model).double()
    exact_loss = classify(exact, x.double(), labels)
    exact_loss.backward()
    theirs = []  # each configuration's loss and gradients
    for layout, count in f32_configurations():
        with torch_threads(count):
            single = copy.deepcopy(model).to(memory_format=layout)
            single_loss = classify(single, x.to(memory_format=layout), labels)
            single_loss.backward()
        theirs.append((single_loss.item(),
                       [p.grad.double().numpy() for p in single.parameters()]))
    with compiled.load() as step:
        step.init(seed=0)
        step.load_state_dict(model.state_dict())
        step.lr = 0.0
        step.weight_decay = 0.0
        step.run(x.numpy(), labels.numpy())
        exact_value = exact_loss.item()
        theirs_error = max(abs(loss - exact_value) for loss, _ in theirs)
        assert abs(step.loss - exact_value) <= 3 * max(theirs_error,
                                                       1e-6 * exact_value)
        # Each gradient's largest error relative to its largest element:
        # ours, and the largest of PyTorch's configurations.
        errors = []
        for k, (name, p64) in enumerate(exact.named_parameters()):
            # AdamW's first exp_avg is (1 - beta1) * grad.
            ours = step.read(name + ".exp_avg").astype(np.float64) / 0.1
            g64 = p64.grad.numpy()
            scale = np.abs(g64).max()
            theirs_error = max(np.abs(grads[k] - g64).max()
                               for _, grads in theirs) / scale
            ours_error = np.abs(ours - g64).max() / scale
            assert ours_error <= max(3 * theirs_error, 1e-5), name
            errors.append((ours_error, theirs_error))
        errors = np.array(errors)
        ours_worst, theirs_worst = errors.max(axis=0)
        assert ours_worst <= 2 * theirs_worst
        average = np.mean(errors[:, 0] / errors[:, 1])
        assert average <= 1.25, average
        state = step.state_dict()
        for name, buffer in exact.named_buffers():
            if name.endswith("running_mean") or name.endswith("running_var"):
                np.testing.assert_allclose(state[name].numpy(),
                                           buffer.numpy(), rtol=1e-4,
                                           atol=1e-6, err_msg=name)


# Where training resnet18 is not chaotic (test_resnet18_trains_as_...).
CALM_SIZE, CALM_LR = 40, 1e-5
# The steps before rounding is amplified there (for PyTorch too).
CALM_STEPS = 18
# The f16 runs' first scale: it overflows at first, as GradScaler's default.
F16_INIT_SCALE = 2.0**24
LAYOUT_NAMES = {torch.contiguous_format: "contiguous",
                torch.channels_last: "channels_last"}


def fingerprint(model, batches):
    """Sums (in f64) of the weights' and the batches' magnitudes: what
    golden/resnet18.json was made from."""
    def total(tensors):
        return sum(t.double().abs().sum().item() for t in tensors)
    return {"weights": total(model.state_dict().values()),
            "batches": total(t for batch in batches for t in batch)}


def resnet18_golden(model, batches):
    """PyTorch's side of the calm resnet18 runs, recorded by
    make_golden.py (minutes of PyTorch on a CPU, which are the same on
    every run), after checking that this model and these batches are the
    ones it was recorded from."""
    golden = json.loads(
        (Path(__file__).parent / "golden" / "resnet18.json").read_text())
    for key, value in fingerprint(model, batches).items():
        assert value == pytest.approx(golden["fingerprint"][key], rel=1e-9), (
            f"resnet18's {key} are not the ones golden/resnet18.json was "
            f"made from (torch {golden['torch']}, torchvision "
            f"{golden['torchvision']}); run make_golden.py")
    return golden


def adamw_losses(model, batches, dtype, lr, skipped=(),
                 layout=torch.contiguous_format):
    """PyTorch's AdamW on a copy of the model in `dtype` and the memory
    format `layout`, 20 steps; the steps in `skipped` compute the loss and
    do not update."""
    reference = copy.deepcopy(model).to(dtype).to(memory_format=layout)
    optimizer = torch.optim.AdamW(reference.parameters(), lr=lr)
    losses = []
    for k in range(20):
        x, labels = batches[k % len(batches)]
        loss = classify(reference, x.to(dtype).to(memory_format=layout),
                        labels)
        optimizer.zero_grad()
        loss.backward()
        if k not in skipped:
            optimizer.step()
        losses.append(loss.item())
    return np.array(losses)


def test_resnet18_trains_as_pytorch_does(tmp_path):
    """20 steps of AdamW against PyTorch in f64 (the oracle), with
    PyTorch's f32 configurations (f32_configurations) as the measure of
    what f32 rounding does, in the regime where such a comparison means
    something. Training resnet18 on batches of 4 is chaotic: each step
    multiplies a rounding difference many times over. At PyTorch's
    default rate (1e-3, the `resnet` fixture's) on 32x32 images, PyTorch
    in f32 is 0.25% off PyTorch in f64 after one update and 35% after
    four; larger images, SGD with momentum or another AdamW eps do no
    better. At a rate of 1e-5 on 40x40 images (the last stage's batch
    norms then see 16 values a channel, not 4; the loss still falls from
    2.2 to 0.7 over the 20 steps) the rounding grows slowly enough to
    compare, for 18 steps.

    Checked: at each step our loss is no further from f64's than three
    times the furthest any of PyTorch's configurations has been so far,
    or three times 1e-6 (a few roundings of the loss) where that is more.
    On an AMD EPYC without AVX-512 (2 cores, 2026-12-01) ours is up to
    0.97 times that furthest, and each configuration held against the
    other three up to 1.8 times over the first 18 steps. Then rounding is
    amplified: at step 18 ours and channels_last on one thread are 9.2e-5
    and 9.5e-5 off f64, the others 2.9e-6 to 4.3e-6 (20 times the
    others' furthest); so the last two steps are held to three times
    1e-4 at least. Compiled without AdamW's weight decay, which PyTorch
    keeps, our loss is 7.6e-5 off at step 14, 15 times that furthest.
    PyTorch's default configuration trains beside the step; the other
    three and f64 are read from golden/resnet18.json (make_golden.py)."""
    model, batches = resnet18(CALM_SIZE)
    golden = resnet18_golden(model, batches)["f32"]
    single, ours, _, _ = train_both(model, classify, batches, tmp_path,
                                    lr=CALM_LR, compute_type="f32")
    exact = np.array(golden["f64"])
    theirs = [single]  # contiguous on the default number of threads
    theirs += [np.array(run["losses"]) for run in golden["configurations"]]
    theirs_error = np.abs(np.array(theirs) - exact) / exact
    ours_error = np.abs(ours - exact) / exact
    furthest = np.maximum.accumulate(theirs_error.max(axis=0))
    floor = np.where(np.arange(20) < CALM_STEPS, 1e-6, 1e-4)
    envelope = 3 * np.maximum(furthest, floor)
    assert np.all(ours_error <= envelope), (ours_error, theirs_error)
    assert ours[-4:].mean() < 0.7 * ours[:4].mean()


def test_resnet18_trains_and_hands_its_weights_back(resnet, tmp_path):
    model, batches, _, compiled = resnet
    with compiled.load() as step:
        step.init(seed=0)
        step.load_state_dict(model.state_dict())
        losses = []
        for k in range(6):
            x, labels = batches[k % len(batches)]
            step.run(x.numpy(), labels.numpy())
            losses.append(step.loss)
        state = step.state_dict()
    assert np.all(np.isfinite(losses))
    assert losses[-1] < losses[0]
    trained = copy.deepcopy(model)
    trained.load_state_dict(state)  # strict: every key, counters included
    assert trained.bn1.num_batches_tracked.item() == 6
    assert not torch.equal(trained.fc.weight, model.fc.weight)


def test_resnet18_in_f16_follows_pytorchs_recipes(tmp_path):
    """resnet18's f16 AMP step against PyTorch's two f16 recipes over 20
    steps from scale 2^24, at the rate where training is not chaotic. All
    three skip the same steps (the first nine) and keep the same scale
    after every step.

    The losses are not compared band to band as nanoGPT's and GPT-2's
    are: PyTorch's two recipes compute the same numbers here (autocast
    keeps everything between the convolutions in f16, as pure f16 does),
    so their band is nil. The oracle is PyTorch in f64 taking the same
    steps (skipping the same ones): at every step our loss is no further
    from it than three times the furthest PyTorch's autocast has been so
    far. Ours are up to 1.6e-3 off, autocast's up to 1.9e-3: f16 rounding
    of the logits, amplified by batch norm, and it cancels in the loss
    differently on each batch. PyTorch's three runs (about 160 s on two
    cores) are read from golden/resnet18.json (make_golden.py)."""
    model, batches = resnet18(CALM_SIZE)
    golden = resnet18_golden(model, batches)["f16"]
    ours, ours_skipped, ours_scales = f16_step_losses(
        model, classify, batches, tmp_path, 20, F16_INIT_SCALE, CALM_LR)
    theirs = np.array(golden["autocast"]["losses"])
    pure = np.array(golden["pure"]["losses"])
    assert ours_scales == golden["autocast"]["scales"]
    assert ours_skipped == golden["autocast"]["skipped"] == \
        golden["pure"]["skipped"] == list(range(9))
    np.testing.assert_array_equal(pure, theirs)
    exact = np.array(golden["f64"])
    theirs_error = np.abs(theirs - exact) / exact
    ours_error = np.abs(ours - exact) / exact
    envelope = 3 * np.maximum.accumulate(theirs_error)
    assert np.all(ours_error <= envelope), (ours_error, theirs_error)
    assert ours[-4:].mean() < 0.7 * ours[:4].mean()
