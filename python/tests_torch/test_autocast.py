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


def test_gpt2_differs_only_in_its_written_out_attention(tmp_path):
    """transformers passes GPT-2's causal mask to sdpa as a tensor; the
    importer writes that attention out, and keeps its softmax in f32, where
    PyTorch's sdpa is one f16 op (whose kernels keep the softmax's sums in
    f32 inside)."""
    transformers.logging.set_verbosity_error()
    config = transformers.GPT2Config(
        n_layer=2, n_embd=32, n_head=4, n_positions=16, vocab_size=64,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0,
        eos_token_id=0)
    tokens = torch.randint(0, 64, (4, 16))
    found = differences(
        transformers.GPT2LMHeadModel(config), (tokens, tokens),
        lambda m, input_ids, labels: m(input_ids=input_ids,
                                       labels=labels).loss, tmp_path)
    assert [(place[0], theirs, ours) for place, theirs, ours in found] == [
        ("transformer.h.0.attn", ["f16"], ["f16", "f32"]),
        ("transformer.h.1.attn", ["f16"], ["f16", "f32"])]
    assert all(place[1].endswith("modeling_gpt2.py") for place, _, _ in found)
