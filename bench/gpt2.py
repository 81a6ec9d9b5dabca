#!/usr/bin/env python3
"""GPT-2 in the amp dialect, for the benchmarks: the model of
examples/gpt_block.mlir with L blocks, written out for any size.

  bench/gpt2.py [--layers 12 --width 768 --heads 12 --seq 1024
                 --vocab 50304 --batch 8] [-o FILE]

The defaults are GPT-2 124M (vocabulary padded to 50304, tied embeddings).
Each block is pre-LN: layer norm, fused q/k/v projection, causal attention
(amp.attention), output projection, residual; layer norm, GELU (tanh) MLP of
width 4C, residual. Then a final layer norm, logits through the token
embedding, and the mean cross-entropy over all B*T positions.

  --summary   prints the parameter count and the training FLOPs per token
              instead.
"""
import argparse
import math
import sys


# The dense bf16 peak that MFU is measured against (H200, as H100 SXM).
PEAK_FLOPS = 989e12


# The sizes every GPT-2 script takes, in the order model() and summary()
# take them, with GPT-2 124M's values (vocabulary padded to 50304).
SIZES = {"layers": 12, "width": 768, "heads": 12, "seq": 1024, "vocab": 50304,
         "batch": 8}


def add_size_arguments(parser):
    for name, default in SIZES.items():
        parser.add_argument(f"--{name}", type=int, default=default)


def sizes_of(args, parser):
    """The sizes parsed into `args`, in SIZES' order; a bad one is a usage
    error of `parser`."""
    sizes = tuple(getattr(args, name) for name in SIZES)
    if min(sizes) < 1:
        parser.error("every size must be at least 1")
    if args.width % args.heads:
        parser.error(f"width {args.width} is not a multiple of {args.heads} heads")
    return sizes


def parameters(layers, width, seq, vocab):
    """(name, shape) of every parameter, in argument order."""
    C = width
    names = [("wte", (vocab, C)), ("wpe", (seq, C))]
    for i in range(layers):
        names += [(f"h{i}_ln1_scale", (C,)), (f"h{i}_ln1_bias", (C,)),
                  (f"h{i}_qkv_w", (C, 3 * C)), (f"h{i}_qkv_b", (3 * C,)),
                  (f"h{i}_proj_w", (C, C)), (f"h{i}_proj_b", (C,)),
                  (f"h{i}_ln2_scale", (C,)), (f"h{i}_ln2_bias", (C,)),
                  (f"h{i}_fc_w", (C, 4 * C)), (f"h{i}_fc_b", (4 * C,)),
                  (f"h{i}_mlp_proj_w", (4 * C, C)), (f"h{i}_mlp_proj_b", (C,))]
    names += [("lnf_scale", (C,)), ("lnf_bias", (C,))]
    return names


def tensor(shape, element="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + element + ">"


def model(layers, width, heads, seq, vocab, batch):
    B, T, C, H, V = batch, seq, width, heads, vocab
    if C % H:
        raise ValueError(f"width {C} is not a multiple of {H} heads")
    D = C // H
    act, wide = tensor((B, T, C)), tensor((B, T, 4 * C))
    heads_t, split = tensor((B, H, T, D)), tensor((B, T, H, D))
    args = [f"%tokens: {tensor((B, T), 'i64')}", f"%targets: {tensor((B, T), 'i64')}"]
    args += [f"%{name}: {tensor(shape)} {{amp.param}}"
             for name, shape in parameters(layers, width, seq, vocab)]
    body = [f"%tok_emb = amp.embedding %wte[%tokens] : {tensor((V, C))}, "
            f"{tensor((B, T), 'i64')}",
            f"%x = amp.add %tok_emb, %wpe : {act}, {tensor((T, C))}"]
    h = "%x"
    for i in range(layers):
        p = f"h{i}_"
        body += [
            f"%{p}ln1 = amp.layer_norm {h} scale(%{p}ln1_scale : {tensor((C,))}) "
            f"bias(%{p}ln1_bias : {tensor((C,))}) : {act}",
            f"%{p}qkv_mm = amp.matmul %{p}ln1, %{p}qkv_w : {act}, "
            f"{tensor((C, 3 * C))} to {tensor((B, T, 3 * C))}",
            f"%{p}qkv = amp.add %{p}qkv_mm, %{p}qkv_b : {tensor((B, T, 3 * C))}, "
            f"{tensor((3 * C,))}",
        ]
        for k, name in enumerate("qkv"):
            body += [
                f"%{p}{name}_flat = amp.slice %{p}qkv [0, 0, {k * C}] to "
                f"[{B}, {T}, {(k + 1) * C}] : {tensor((B, T, 3 * C))} to {act}",
                f"%{p}{name}_split = amp.reshape %{p}{name}_flat : {act} to {split}",
                f"%{p}{name} = amp.transpose %{p}{name}_split, [0, 2, 1, 3] : "
                f"{split} to {heads_t}",
            ]
        body += [
            f"%{p}attn = amp.attention %{p}q, %{p}k, %{p}v causal : "
            f"{heads_t}, {heads_t}, {heads_t}",
            f"%{p}attn_split = amp.transpose %{p}attn, [0, 2, 1, 3] : "
            f"{heads_t} to {split}",
            f"%{p}attn_merged = amp.reshape %{p}attn_split : {split} to {act}",
            f"%{p}proj_mm = amp.matmul %{p}attn_merged, %{p}proj_w : {act}, "
            f"{tensor((C, C))} to {act}",
            f"%{p}proj = amp.add %{p}proj_mm, %{p}proj_b : {act}, {tensor((C,))}",
            f"%{p}res1 = amp.add {h}, %{p}proj : {act}, {act}",
            f"%{p}ln2 = amp.layer_norm %{p}res1 scale(%{p}ln2_scale : "
            f"{tensor((C,))}) bias(%{p}ln2_bias : {tensor((C,))}) : {act}",
            f"%{p}fc_mm = amp.matmul %{p}ln2, %{p}fc_w : {act}, "
            f"{tensor((C, 4 * C))} to {wide}",
            f"%{p}fc = amp.add %{p}fc_mm, %{p}fc_b : {wide}, {tensor((4 * C,))}",
            f"%{p}fc_act = amp.gelu %{p}fc approximate = tanh : {wide}",
            f"%{p}mlp_mm = amp.matmul %{p}fc_act, %{p}mlp_proj_w : {wide}, "
            f"{tensor((4 * C, C))} to {act}",
            f"%{p}mlp = amp.add %{p}mlp_mm, %{p}mlp_proj_b : {act}, {tensor((C,))}",
            f"%{p}res2 = amp.add %{p}res1, %{p}mlp : {act}, {act}",
        ]
        h = f"%{p}res2"
    body += [
        f"%lnf = amp.layer_norm {h} scale(%lnf_scale : {tensor((C,))}) "
        f"bias(%lnf_bias : {tensor((C,))}) : {act}",
        f"%logits = amp.matmul %lnf, %wte {{transpose_rhs}} : {act}, "
        f"{tensor((V, C))} to {tensor((B, T, V))}",
        f"%logits_flat = amp.reshape %logits : {tensor((B, T, V))} to "
        f"{tensor((B * T, V))}",
        f"%targets_flat = amp.reshape %targets : {tensor((B, T), 'i64')} to "
        f"{tensor((B * T,), 'i64')}",
        f"%loss = amp.cross_entropy %logits_flat, %targets_flat : "
        f"{tensor((B * T, V))}, {tensor((B * T,), 'i64')} to tensor<f32>",
    ]
    header = (f"// GPT-2: {layers} layers, width {C}, {H} heads, sequence {T}, "
              f"vocabulary {V}, batch {B};\n// written by bench/gpt2.py.\n")
    return (header + "func.func @gpt2(" + ",\n    ".join(args) +
            ") -> tensor<f32> {\n" + "".join(f"  {line}\n" for line in body) +
            "  return %loss : tensor<f32>\n}\n")


def summary(layers, width, heads, seq, vocab, batch):
    """The parameter count and the training FLOPs per token: 6N for the
    weights (N without the position embedding, whose use is a lookup) and
    12LCT for attention's scores and weighted sums (6LCT counting only the
    causal half), as MFU is usually reckoned."""
    count = sum(math.prod(shape)
                for _, shape in parameters(layers, width, seq, vocab))
    weights = 6 * (count - seq * width)
    attention = 12 * layers * width * seq
    return count, weights, attention


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_size_arguments(parser)
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    sizes = sizes_of(args, parser)
    if args.summary:
        count, weights, attention = summary(*sizes)
        print(f"{count} parameters; training FLOPs per token: 6N = {weights}, "
              f"attention 12LCT = {attention} (6LCT causal = {attention // 2})")
        return 0
    text = model(*sizes)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
