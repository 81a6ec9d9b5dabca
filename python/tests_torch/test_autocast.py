"""The autocast decisions of imported models against PyTorch's CUDA
autocast (autocast_oracle.py, from PyTorch's op lists), place by place:
the set of f16/f32 types of the floating-point ops each line of the
model's source makes under its module."""

import json

import torch
import transformers

import ampmlir
from ampmlir import torch_import

import autocast_oracle
import models
from test_import import token_batches


def differences(model, batch, loss, tmp_path):
    program = torch.export.export(torch_import._Loss.wrap(model, loss, torch),
                                  batch)
    imported = ampmlir.from_torch(model, batch, loss=loss)
    imported.write(tmp_path / "model.mlir")
    ampmlir.autocast_report(tmp_path / "model.mlir", tmp_path / "report.json")
    ops = json.loads((tmp_path / "report.json").read_text())["functions"][0]
    importer = torch_import._Importer(torch, program, "model.")
    return autocast_oracle.compare(program, importer, ops["ops"])


def test_nanogpt_is_cast_as_pytorch_would(tmp_path):
    assert differences(models.NanoGPT(), token_batches(1)[0], models.lm_loss,
                       tmp_path) == []


def test_gpt2_is_cast_as_pytorch_would(tmp_path):
    """transformers passes GPT-2's causal mask to sdpa as a tensor, which
    the importer recognises: amp.attention causal, in f16 as PyTorch's
    sdpa. (Written out, its softmax would be kept in f32.)"""
    transformers.logging.set_verbosity_error()
    config = transformers.GPT2Config(
        n_layer=2, n_embd=32, n_head=4, n_positions=16, vocab_size=64,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0,
        eos_token_id=0)
    tokens = torch.randint(0, 64, (4, 16))

    def lm_loss(m, input_ids, labels):
        return m(input_ids=input_ids, labels=labels).loss

    model = transformers.GPT2LMHeadModel(config)
    assert differences(model, (tokens, tokens), lm_loss, tmp_path) == []
    text = (tmp_path / "model.mlir").read_text()
    assert text.count("amp.attention") == 2
    assert text.count(" causal {scale = 0.35355339059327") == 2
    assert "amp.softmax" not in text


def test_resnet18_is_cast_as_pytorch_would(tmp_path):
    """torchvision's resnet18: the convolutions in f16, the batch norms
    (f32 inside, f16 in and out, as cuDNN runs them under either), and
    what follows a batch norm (the ReLUs, the pools, the residual
    additions, the flatten) in its f16 output, the classifier in f16 and
    the loss in f32, as PyTorch. (A batch norm does not spread keep-fp32
    to its users: its output is in f16.)"""
    import torchvision

    model = torchvision.models.resnet18(num_classes=10)
    batch = (torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,)))
    assert differences(
        model, batch,
        lambda m, x, labels: torch.nn.functional.cross_entropy(m(x), labels),
        tmp_path) == []
