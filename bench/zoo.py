"""The model zoo: 26 models nobody here wrote (torchvision, Hugging Face
transformers, torch.nn), each built from a small random configuration
(nothing is downloaded), imported with ampmlir.from_torch and checked
against PyTorch on the CPU.

For every model:
  imports     from_torch takes it (else the ATen operations it lacks);
  f32         10 AdamW steps from the module's weights: at every step the
              loss within max(1e-5, 3x PyTorch f32's distance from PyTorch
              f64 so far) of PyTorch f32's or f64's, relative, PyTorch's
              distance the furthest of its f32 configurations' (threads,
              memory format: f32_configurations);
  f16         the f16 AMP step against autocast + GradScaler (default
              settings): the same skipped steps and the same scale after
              every step as GradScaler in one of PyTorch's configurations
              (configurations), and every loss within 3x the furthest
              PyTorch's two f16 recipes (autocast, pure f16 with f32
              masters) get from PyTorch f32 over the run;
  bf16        the bf16 AMP step within 3x the furthest PyTorch's bf16
              recipes (autocast, pure bf16 with f32 masters) get from
              PyTorch f32 over the run;
  handed back the trained state_dict loads into the module with
              load_state_dict(strict=True), and the module then computes
              the step's last loss;
  eval        the compiled evaluation's loss equal to PyTorch's eval-mode
              loss (rtol 1e-5).

  .venv/bin/python bench/zoo.py                  every model, full check
  .venv/bin/python bench/zoo.py --fast           imported, 2 f32 steps each
  .venv/bin/python bench/zoo.py gpt2 bert        some of them
  .venv/bin/python bench/zoo.py --write FILE.md  the table to FILE.md too

Exits 1 when a model fails a column it was checked on.
"""

import argparse
import contextlib
import copy
import datetime
import os
import platform
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent / "python"))
os.environ.setdefault("AMP_MLIR_BIN", str(here.parent / "build" / "bin"))
import ampmlir  # noqa: E402


def _seeded(seed=0):
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed + 1)


def classify(model, x, labels):
    return F.cross_entropy(model(x), labels)


def logits_of(model, x, labels):
    return F.cross_entropy(model(x).logits, labels)


def images(g, count=2, batch=8, size=16, classes=10, channels=3):
    return [(torch.randn(batch, channels, size, size, generator=g),
             torch.randint(0, classes, (batch,), generator=g))
            for _ in range(count)]


def tokens(g, count=2, batch=2, length=8, vocab=64, classes=None):
    out = []
    for _ in range(count):
        ids = torch.randint(1, vocab, (batch, length), generator=g)
        labels = (torch.randint(0, classes, (batch,), generator=g)
                  if classes else ids)
        out.append((ids, labels))
    return out


# torchvision ---------------------------------------------------------------

def _vision(build, size=16):
    """A torchvision model on batches of 8 small images: batch norm then
    sees at least 8 values a channel (with 2 it divides by the difference
    of two numbers, and the comparison measures only that)."""
    def make():
        g = _seeded()
        return build(), classify, images(g, size=size)
    return make


def resnet50():
    import torchvision
    return torchvision.models.resnet50(num_classes=10)


def mobilenet_v2():
    import torchvision
    return torchvision.models.mobilenet_v2(num_classes=10, width_mult=0.25,
                                           dropout=0.0)


def mobilenet_v3_small():
    import torchvision
    return torchvision.models.mobilenet_v3_small(num_classes=10, dropout=0.0)


def efficientnet_b0():
    import torchvision
    return torchvision.models.efficientnet_b0(
        num_classes=10, dropout=0.0, stochastic_depth_prob=0.0)


def convnext_tiny():
    import torchvision
    from torchvision.models.convnext import CNBlockConfig
    setting = [CNBlockConfig(16, 32, 1), CNBlockConfig(32, 64, 1),
               CNBlockConfig(64, 128, 1), CNBlockConfig(128, None, 1)]
    return torchvision.models.ConvNeXt(setting, stochastic_depth_prob=0.0,
                                       num_classes=10)


def regnet_y_400mf():
    import torchvision
    return torchvision.models.regnet_y_400mf(num_classes=10)


def densenet121():
    import torchvision
    return torchvision.models.DenseNet(growth_rate=8, block_config=(2, 2, 2, 2),
                                       num_init_features=16, num_classes=10)


def squeezenet1_1():
    import torchvision
    model = torchvision.models.squeezenet1_1(num_classes=10)
    model.classifier[0].p = 0.0
    return model


def shufflenet_v2_x0_5():
    import torchvision
    return torchvision.models.shufflenet_v2_x0_5(num_classes=10)


def vit_b_16():
    import torchvision
    return torchvision.models.VisionTransformer(
        image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32,
        mlp_dim=64, num_classes=10)


def swin_t():
    import torchvision
    return torchvision.models.SwinTransformer(
        patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 4],
        window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=10)


# transformers --------------------------------------------------------------

def _transformers():
    import transformers
    transformers.logging.set_verbosity_error()
    return transformers


def lm_loss(model, ids, labels):
    return model(input_ids=ids, labels=labels).loss


def sequence_loss(model, ids, labels):
    return model(input_ids=ids, labels=labels).loss


def _causal_lm(config_name, model_name, **config):
    def make():
        t = _transformers()
        g = _seeded()
        model = getattr(t, model_name)(getattr(t, config_name)(**config))
        return model, lm_loss, tokens(g)
    return make


def _classifier(config_name, model_name, **config):
    def make():
        t = _transformers()
        g = _seeded()
        model = getattr(t, model_name)(getattr(t, config_name)(**config))
        return model, sequence_loss, tokens(g, classes=config["num_labels"])
    return make


_SMALL_DECODER = dict(vocab_size=64, hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, max_position_embeddings=16,
                      pad_token_id=0, bos_token_id=0, eos_token_id=0)
_SMALL_ENCODER = dict(vocab_size=64, hidden_size=32, intermediate_size=64,
                      num_hidden_layers=2, num_attention_heads=4,
                      max_position_embeddings=16, num_labels=3,
                      hidden_dropout_prob=0.0,
                      attention_probs_dropout_prob=0.0, pad_token_id=0)


def seq2seq_loss(model, ids, decoder_ids, labels):
    return model(input_ids=ids, decoder_input_ids=decoder_ids,
                 labels=labels).loss


def seq2seq_batches(g, shift):
    """Token batches with the decoder's inputs, the labels shifted right
    by the model's own function outside the step: the shift's
    masked_fill on integer labels is integer arithmetic on the batch,
    which the importer refuses."""
    return [(ids, shift(labels), labels) for ids, labels in tokens(g)]


def t5():
    t = _transformers()
    g = _seeded()
    model = t.T5ForConditionalGeneration(t.T5Config(
        vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=2,
        num_decoder_layers=2, num_heads=4, dropout_rate=0.0,
        decoder_start_token_id=0, pad_token_id=0, eos_token_id=1))
    return model, seq2seq_loss, seq2seq_batches(g, model._shift_right)


def bart():
    t = _transformers()
    g = _seeded()
    model = t.BartForConditionalGeneration(t.BartConfig(
        vocab_size=64, d_model=32, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4,
        encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=16,
        dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
        pad_token_id=0, bos_token_id=2, eos_token_id=1,
        decoder_start_token_id=2, forced_eos_token_id=None))
    from transformers.models.bart.modeling_bart import shift_tokens_right
    return model, seq2seq_loss, seq2seq_batches(
        g, lambda labels: shift_tokens_right(labels, 0, 2))


def vit():
    t = _transformers()
    g = _seeded()
    model = t.ViTForImageClassification(t.ViTConfig(
        image_size=32, patch_size=8, num_channels=3, hidden_size=32,
        num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
        num_labels=10))
    return model, logits_of, images(g, size=32)


class ClipTextClassifier(nn.Module):
    """CLIP's text tower with a linear head on its pooled output."""

    def __init__(self, text, classes):
        super().__init__()
        self.text = text
        self.head = nn.Linear(text.config.hidden_size, classes)

    def forward(self, ids):
        return self.head(self.text(input_ids=ids).pooler_output)


def clip_text():
    t = _transformers()
    g = _seeded()
    text = t.CLIPTextModel(t.CLIPTextConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64,
        num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=16, eos_token_id=63, pad_token_id=0,
        bos_token_id=1))
    batches = tokens(g, classes=3)
    for ids, _ in batches:
        # Where the tokenizer ends a text (the model pools there): at the
        # end of the first, in the middle of the second.
        ids[0, -1] = ids[1, 4] = 63
    return ClipTextClassifier(text, 3), classify, batches


# torch.nn ------------------------------------------------------------------

class Seq2Seq(nn.Module):
    """nn.Transformer between two embedded token sequences."""

    def __init__(self, vocab=64, width=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.transformer = nn.Transformer(
            width, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
            dim_feedforward=64, dropout=0.0, batch_first=True)
        self.head = nn.Linear(width, vocab)

    def forward(self, ids):
        x = self.embed(ids)
        mask = nn.Transformer.generate_square_subsequent_mask(ids.shape[1])
        return self.head(self.transformer(x, x, tgt_mask=mask,
                                          tgt_is_causal=True))


def token_loss(model, ids, labels):
    logits = model(ids)
    return F.cross_entropy(logits.flatten(0, 1), labels.flatten())


def transformer():
    g = _seeded()
    return Seq2Seq(), token_loss, tokens(g)


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab=64, width=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, width, padding_idx=0)
        self.lstm = nn.LSTM(width, width, num_layers=2, batch_first=True)
        self.head = nn.Linear(width, vocab)

    def forward(self, ids):
        out, _ = self.lstm(self.embed(ids))
        return self.head(out)


def lstm_lm():
    g = _seeded()
    return LSTMLanguageModel(), token_loss, tokens(g)


class UNet(nn.Module):
    """Two levels: max pooling down, ConvTranspose2d and bilinear
    upsampling up, skip connections concatenated."""

    def __init__(self, channels=8, classes=4):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1),
                                 nn.BatchNorm2d(o), nn.ReLU())
        self.down1 = block(3, channels)
        self.down2 = block(channels, 2 * channels)
        self.bottom = block(2 * channels, 4 * channels)
        self.up2 = nn.ConvTranspose2d(4 * channels, 2 * channels, 2, stride=2)
        self.dec2 = block(4 * channels, 2 * channels)
        self.up1 = nn.Upsample(scale_factor=2, mode="bilinear")
        self.dec1 = block(3 * channels, channels)
        self.head = nn.Conv2d(channels, classes, 1)

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(F.max_pool2d(d1, 2))
        b = self.bottom(F.max_pool2d(d2, 2))
        u2 = self.dec2(torch.cat([self.up2(b), d2], dim=1))
        u1 = self.dec1(torch.cat([self.up1(u2), d1], dim=1))
        return self.head(u1)


def unet():
    g = _seeded()
    batches = [(torch.randn(2, 3, 16, 16, generator=g),
                torch.randint(0, 4, (2, 16, 16), generator=g))
               for _ in range(2)]
    return UNet(), classify, batches


MODELS = {
    "resnet50": _vision(resnet50),
    "mobilenet_v2": _vision(mobilenet_v2),
    "mobilenet_v3_small": _vision(mobilenet_v3_small),
    "efficientnet_b0": _vision(efficientnet_b0),
    "convnext_tiny": _vision(convnext_tiny, size=32),
    "regnet_y_400mf": _vision(regnet_y_400mf),
    "densenet121": _vision(densenet121, size=32),
    "squeezenet1_1": _vision(squeezenet1_1, size=32),
    "shufflenet_v2_x0_5": _vision(shufflenet_v2_x0_5),
    "vit_b_16": _vision(vit_b_16, size=32),
    "swin_t": _vision(swin_t, size=32),
    "gpt2": _causal_lm("GPT2Config", "GPT2LMHeadModel", n_layer=2, n_embd=32,
                       n_head=4, n_positions=16, vocab_size=64,
                       resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                       bos_token_id=0, eos_token_id=0),
    "bert": _classifier("BertConfig", "BertForSequenceClassification",
                        **_SMALL_ENCODER),
    "distilbert": _classifier(
        "DistilBertConfig", "DistilBertForSequenceClassification",
        vocab_size=64, dim=32, hidden_dim=64, n_layers=2, n_heads=4,
        max_position_embeddings=16, num_labels=3, dropout=0.0,
        attention_dropout=0.0, seq_classif_dropout=0.0, pad_token_id=0),
    "roberta": _classifier("RobertaConfig",
                           "RobertaForSequenceClassification",
                           **dict(_SMALL_ENCODER,
                                  max_position_embeddings=18, pad_token_id=1)),
    "t5": t5,
    "bart": bart,
    "llama": _causal_lm("LlamaConfig", "LlamaForCausalLM", **_SMALL_DECODER),
    "mistral": _causal_lm("MistralConfig", "MistralForCausalLM",
                          **_SMALL_DECODER),
    "qwen2": _causal_lm("Qwen2Config", "Qwen2ForCausalLM", **_SMALL_DECODER),
    "phi": _causal_lm("PhiConfig", "PhiForCausalLM",
                      **dict(_SMALL_DECODER, resid_pdrop=0.0,
                             embd_pdrop=0.0, attention_dropout=0.0)),
    "vit": vit,
    "clip_text": clip_text,
    "transformer": transformer,
    "lstm_lm": lstm_lm,
    "unet": unet,
}


# the checks ----------------------------------------------------------------

sys.path.insert(0, str(here.parent / "python" / "tests_torch"))
from test_import import (autocast_losses, f16_step_losses,  # noqa: E402
                         pure_f16_losses)

STEPS = 10
LR = 1e-3
COLUMNS = ("imports", "f32", "f16", "bf16", "handed back", "eval")


def torch_losses(model, loss, batches, steps, dtype=torch.float32, lr=LR):
    """PyTorch's AdamW on a copy of the model in `dtype`."""
    reference = copy.deepcopy(model).to(dtype)
    optimizer = torch.optim.AdamW(reference.parameters(), lr=lr)
    out = []
    for k in range(steps):
        batch = [t.to(dtype) if t.is_floating_point() else t
                 for t in batches[k % len(batches)]]
        value = loss(reference, *batch)
        optimizer.zero_grad()
        value.backward()
        optimizer.step()
        out.append(value.item())
    return np.array(out), reference


def configurations(model, batches, run):
    """`run(model, batches)` in PyTorch's ordinary configurations, the
    default one first: on the default number of threads and on one, and
    for a model with convolutions in channels_last too; a list of what it
    returns. One configuration is no yardstick of rounding: a convnet
    whose batch norms see 8 values a channel lands from 2.5e-6 to 6.4e-5
    off f64 in its first f32 loss alone, and densenet121's GradScaler
    skips no step contiguous, the second in channels_last, depending on
    which (bench/results/zoo-2026-12-04.md)."""
    formats = [torch.contiguous_format]
    if any(isinstance(m, nn.Conv2d) for m in model.modules()):
        formats.append(torch.channels_last)
    threads = torch.get_num_threads()
    out = []
    try:
        for memory_format in formats:
            for count in dict.fromkeys((threads, 1)):
                torch.set_num_threads(count)
                reference = copy.deepcopy(model).to(
                    memory_format=memory_format)
                laid = [[t.to(memory_format=memory_format) if t.dim() == 4
                         else t for t in batch] for batch in batches]
                out.append(run(reference, laid))
    finally:
        torch.set_num_threads(threads)
    return out


def f32_configurations(model, loss, batches, steps, lr=LR):
    """PyTorch's f32 losses in its ordinary configurations
    (configurations), the default one first."""
    return configurations(model, batches, lambda m, laid: torch_losses(
        m, loss, laid, steps, lr=lr)[0])


def step_losses(imported, model, batches, directory, steps, compute_type,
                lr=LR, **options):
    """The compiled step trained from the module's weights: its losses and
    its final state_dict, and the evaluation's loss on the first batch."""
    compiled = imported.compile(directory, compute_type=compute_type,
                                optimizer="adamw", train_options=f"lr={lr}",
                                **options)
    out = []
    with compiled.load() as step:
        step.init(seed=0)
        for k in range(steps):
            step.run(*(t.numpy() for t in batches[k % len(batches)]))
            out.append(step.loss)
        state = step.state_dict()
        evaluated = step.evaluate(*(t.numpy() for t in batches[0]))
    return np.array(out), state, evaluated


def bf16_losses(model, loss, batches, steps, lr=LR):
    """PyTorch's two bf16 recipes from copies of the model: autocast
    (bf16, no scaler) and pure bf16 with f32 master weights. Batch norm
    stays in f32 in the pure recipe, as for f16."""
    reference = copy.deepcopy(model)
    optimizer = torch.optim.AdamW(reference.parameters(), lr=lr)
    autocast = []
    for k in range(steps):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            value = loss(reference, *batches[k % len(batches)])
        optimizer.zero_grad()
        value.backward()
        optimizer.step()
        autocast.append(value.item())
    master = copy.deepcopy(model)
    half = copy.deepcopy(model).to(torch.bfloat16)
    for module in half.modules():
        if isinstance(module, nn.modules.batchnorm._BatchNorm):
            module.float()
    pairs = [(h, p) for h, p in zip(half.parameters(), master.parameters())]
    optimizer = torch.optim.AdamW(master.parameters(), lr=lr)

    def cast(t):
        return t.to(torch.bfloat16) if t.is_floating_point() else t
    pure = []
    for k in range(steps):
        batch = [cast(t) for t in batches[k % len(batches)]]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            value = loss(half, *batch).float()
        half.zero_grad()
        value.backward()
        for h, p in pairs:
            p.grad = None if h.grad is None else h.grad.float()
        optimizer.step()
        with torch.no_grad():
            for h, p in pairs:
                h.copy_(p)
        pure.append(value.item())
    return np.array(autocast), np.array(pure)


def assert_within_recipes(ours, f32, *recipes):
    """At every step ours no further from PyTorch's f32 loss than three
    times the furthest PyTorch's low-precision recipes get from it over
    the run (relative), or 1e-5 where that is more: the f32 column's
    rule, with the recipes' spread about f32 as the measure of what the
    precision does. (Within the band of the recipes themselves is too
    narrow a test for a small model: autocast and pure f16 may round the
    same values and agree to every digit, while AMP keeps in f32 what
    both round, norms and the loss among them. And the spread so far, as
    the f32 column takes it, is no measure at the first steps: there
    PyTorch's recipes fail it against each other, nn.Transformer's
    autocast f16 3.4e-5 off f32 at step 0 where its pure f16 is 9.1e-6;
    bench/results/zoo-2026-12-04.md.)"""
    ours, f32 = np.asarray(ours), np.asarray(f32)
    spread = np.max([np.abs(r - f32) for r in recipes], axis=0) / np.abs(f32)
    tolerance = np.full(spread.shape, 3 * max(spread.max(), 1e-5 / 3))
    error = np.abs(ours - f32) / np.abs(f32)
    outside = error > tolerance
    if outside.any():
        k = int(np.argmax(outside))
        raise AssertionError(
            f"step {k}: {error[k]:.2e} off PyTorch f32, the recipes "
            f"{spread.max():.2e} at most")


def without_onednn(run):
    """`run()`, again without oneDNN where PyTorch's CPU kernels from it
    cannot take the precision (its LSTM in f16 under autocast)."""
    try:
        return run()
    except RuntimeError as error:
        if "primitive" not in str(error):
            raise
        with torch.backends.mkldnn.flags(enabled=False):
            return run()


def first_line(error):
    return (str(error).splitlines() or [""])[0][:100]


def missing_ops(error):
    return sorted(set(re.findall(r"aten\.[A-Za-z0-9_]+\.[A-Za-z0-9_]+",
                                 str(error))))


def check(name, directory, fast):
    """One row of the table: each column's verdict ("yes", "no: why" or
    "-" where not checked) and the missing operations."""
    row = dict.fromkeys(COLUMNS, "-")
    row["missing"] = ""
    model, loss, batches = MODELS[name]()
    lr = LR
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            imported = ampmlir.from_torch(model, batches[0], loss=loss,
                                          name=name, training=True)
    except ampmlir.AmpError as error:
        row["imports"] = "no"
        text = str(error)
        row["missing"] = (", ".join(missing_ops(error))
                          if "cannot import:" in text
                          else text.splitlines()[0][:160].replace("|", "/"))
        return row
    row["imports"] = "yes"
    steps = 2 if fast else STEPS

    def column(label, run):
        try:
            run()
            row[label] = "yes"
        except AssertionError as error:
            row[label] = f"no: {first_line(error)}"
        except Exception as error:  # a failure to report, not to stop at
            row[label] = f"no: {type(error).__name__}: {first_line(error)}"

    results = {}

    def f32():
        ours, state, evaluated = step_losses(imported, model, batches,
                                             directory / "f32", steps, "f32",
                                             lr)
        results.update(state=state, evaluated=evaluated)
        configurations = f32_configurations(model, loss, batches, steps, lr)
        theirs = configurations[0]
        results["f32"] = theirs
        exact, _ = torch_losses(model, loss, batches, steps, torch.float64,
                                lr)
        # Of PyTorch's f32 run, or nearer still to its f64 one; PyTorch's
        # distance from f64 is the furthest of its configurations'.
        distance = np.maximum.accumulate(np.max(
            [np.abs(c - exact) / np.abs(exact) for c in configurations],
            axis=0))
        tolerance = np.maximum(1e-5, 3 * distance)
        error = np.minimum(np.abs(ours - theirs) / np.abs(theirs),
                           np.abs(ours - exact) / np.abs(exact))
        outside = error > tolerance
        if outside.any():
            k = int(np.argmax(outside))
            raise AssertionError(f"step {k}: {error[k]:.2e} off PyTorch "
                                 f"(tolerance {tolerance[k]:.1e})")

    def handed_back():
        trained = copy.deepcopy(model)
        trained.load_state_dict(results["state"], strict=True)

    def evaluation():
        trained = copy.deepcopy(model)
        trained.load_state_dict(results["state"], strict=True)
        trained.eval()
        with torch.no_grad():
            expected = loss(trained, *batches[0]).item()
        got = results["evaluated"]
        assert abs(got - expected) <= 1e-5 * abs(expected), \
            f"evaluation {got:.7g}, PyTorch's {expected:.7g}"

    def f16():
        ours, ours_skipped, ours_scales = f16_step_losses(
            model, loss, batches, directory / "f16", steps, 2.0**16, lr)
        # GradScaler's skips in each of PyTorch's configurations: where
        # the gradients come within a few percent of f16's largest
        # number, they differ between its own configurations.
        theirs = configurations(model, batches, lambda m, laid: (
            without_onednn(lambda: autocast_losses(
                m, loss, laid, 2.0**16, steps, lr))))
        skips = list(dict.fromkeys(str(t[1]) for t in theirs))
        assert any(t[1] == ours_skipped for t in theirs), \
            f"skipped steps {ours_skipped}, GradScaler's {' or '.join(skips)}"
        assert any((t[1], t[2]) == (ours_skipped, ours_scales)
                   for t in theirs), \
            f"scales {ours_scales}, GradScaler's {theirs[0][2]}"
        pure = without_onednn(lambda: pure_f16_losses(
            model, loss, batches, 2.0**16, steps, lr))
        assert_within_recipes(ours, results["f32"], *(t[0] for t in theirs),
                              np.array([v for v, _ in pure]))

    def bf16():
        ours, _, _ = step_losses(imported, model, batches, directory / "bf16",
                                 steps, "bf16", lr)
        autocast, pure = without_onednn(
            lambda: bf16_losses(model, loss, batches, steps, lr))
        assert_within_recipes(ours, results["f32"], autocast, pure)

    column("f32", f32)
    if "state" in results:
        column("handed back", handed_back)
        column("eval", evaluation)
    if not fast and "f32" in results:
        column("f16", f16)
        column("bf16", bf16)
    return row


def table(rows):
    lines = ["| model | " + " | ".join(COLUMNS) + " | missing ops |",
             "|---" * (len(COLUMNS) + 2) + "|"]
    for name, row in rows.items():
        cells = [row[c] for c in COLUMNS] + [row["missing"]]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine():
    """The CPU's model, its vector extensions that change PyTorch's
    kernels (and so its rounding), cores and system."""
    model, flags = "unknown CPU", set()
    with contextlib.suppress(OSError):
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name") and model == "unknown CPU":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags") and not flags:
                flags = set(line.split(":", 1)[1].split())
    shown = [f for f in ("avx2", "avx512f", "avx512_bf16", "avx512_fp16",
                         "amx_bf16") if f in flags]
    return (f"{model} ({' '.join(shown) or 'no AVX2'}), {os.cpu_count()} "
            f"cores, {platform.system()}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="default: all")
    parser.add_argument("--fast", action="store_true",
                        help="import every model and train 2 f32 steps")
    parser.add_argument("--write", metavar="FILE.md",
                        help="write the table there too")
    args = parser.parse_args(argv)
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; the zoo has: "
                     f"{', '.join(MODELS)}")
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    rows, failed = {}, False
    began = time.time()
    with tempfile.TemporaryDirectory(prefix="zoo-") as scratch:
        for name in args.models or MODELS:
            t = time.time()
            rows[name] = check(name, Path(scratch) / name, args.fast)
            verdicts = [rows[name][c] for c in COLUMNS]
            failed |= any(v.startswith("no") for v in verdicts)
            print(f"{name}: " + ", ".join(f"{c} {v}" for c, v in
                                          zip(COLUMNS, verdicts))
                  + f" ({time.time() - t:.0f} s)", flush=True)
    text = table(rows)
    checked = [c for c in COLUMNS
               if not (args.fast and c in ("f16", "bf16"))]
    green = {c: sum(r[c] == "yes" for r in rows.values()) for c in checked}
    summary = ", ".join(f"{c} {green[c]}/{len(rows)}" for c in checked)
    print(text)
    print(f"green: {summary}; {time.time() - began:.0f} s")
    if args.write:
        run = "fast: 2 f32 steps" if args.fast else f"{STEPS} steps"
        flag = " --fast" if args.fast else ""
        header = (f"# The model zoo ({run})\n\n{datetime.date.today()}, "
                  f"{machine()}, torch {torch.__version__}; "
                  f"`bench/zoo.py`{flag}.\n\n")
        # Through a temporary file beside it: a reader sees a whole table.
        out = Path(args.write)
        partial = out.with_name(f".{out.name}.partial")
        partial.write_text(header + text + f"\n\ngreen: {summary}; "
                           f"{time.time() - began:.0f} s\n")
        os.replace(partial, out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
