#!/usr/bin/env python3
"""The PyTorch baseline of the GPU benchmark: bench/gpt2.py's model in
PyTorch, trained the way users would otherwise train it, timed per step.

  bench/torch_gpt2.py [--batch 8] [--seq 1024] [--layers 12 --width 768
                       --heads 12 --vocab 50304] [--precision bf16|f16|f32|tf32]
                      [--compile] [--warmup 10] [--steps 50] [--json FILE]

The model: token and position embeddings, pre-LN blocks (layer norm, one
q/k/v projection, causal scaled_dot_product_attention, output projection,
residual; layer norm, tanh-GELU MLP of width 4C, residual), a final layer
norm and logits through the token embedding (tied), mean cross-entropy. The
step: autocast to bf16 or f16 (f16 with a GradScaler), fp32 masters and
moments in fused AdamW (lr 1e-3, betas 0.9/0.999, eps 1e-8, weight decay
0.01, as amp-compile's defaults), gradient-norm clipping at 1.0; f32 is
strict (no TF32) and tf32 allows TF32 matmuls. --compile wraps the model in
torch.compile (default mode).

Timing: CUDA events around each of --steps steps after --warmup steps; the
median is reported with tokens/s, MFU (6N + 6LCT FLOPs per token against
989 TFLOP/s) and the peak device memory. Needs a GPU and PyTorch.
"""
import argparse
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpt2  # noqa: E402  (the FLOPs per token, as the kit reckons them)

PEAK_FLOPS = gpt2.PEAK_FLOPS


def build(torch, layers, width, heads, seq, vocab):
    nn, F = torch.nn, torch.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.fc = nn.Linear(width, 4 * width)
            self.mlp_proj = nn.Linear(4 * width, width)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln_1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
            return x + self.mlp_proj(F.gelu(self.fc(self.ln_2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, width), nn.Embedding(seq, width)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(width)

        def forward(self, tokens, targets):
            x = self.wte(tokens) + self.wpe.weight[: tokens.shape[1]]
            for block in self.blocks:
                x = block(x)
            logits = self.ln_f(x) @ self.wte.weight.t()
            return F.cross_entropy(logits.float().view(-1, vocab), targets.view(-1))

    model = GPT()
    # GPT-2's initialization: N(0, 0.02) weights and embeddings, zero biases.
    for module in model.modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear):
            nn.init.zeros_(module.bias)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    gpt2.add_size_arguments(parser)
    parser.add_argument("--precision", choices=["bf16", "f16", "f32", "tf32"],
                        default="bf16")
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--json")
    args = parser.parse_args()
    sizes = gpt2.sizes_of(args, parser)
    if args.steps < 1 or args.warmup < 0:
        parser.error("--steps must be at least 1, --warmup at least 0")
    try:
        import torch
    except ImportError:
        print("torch_gpt2.py: PyTorch is not installed", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print("torch_gpt2.py: no CUDA device", file=sys.stderr)
        return 1

    torch.manual_seed(1)
    torch.backends.cuda.matmul.allow_tf32 = args.precision == "tf32"
    torch.backends.cudnn.allow_tf32 = args.precision == "tf32"
    device = torch.device("cuda")
    model = build(torch, *sizes[:-1]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.999),
                                  eps=1e-8, weight_decay=0.01, fused=True)
    step_model = torch.compile(model) if args.compile else model
    low = {"bf16": torch.bfloat16, "f16": torch.float16}.get(args.precision)
    scaler = torch.amp.GradScaler("cuda", enabled=args.precision == "f16")
    tokens = torch.randint(0, 256, (args.batch, args.seq), device=device)
    targets = torch.randint(0, 256, (args.batch, args.seq), device=device)

    def train_step():
        with torch.autocast("cuda", dtype=low or torch.float32, enabled=low is not None):
            loss = step_model(tokens, targets)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        return loss

    for _ in range(args.warmup):
        train_step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(args.steps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        loss = train_step()
        end.record()
        times.append((start, end))
    torch.cuda.synchronize()
    ms = statistics.median(start.elapsed_time(end) for start, end in times)
    count, weights, attention = gpt2.summary(*sizes)
    per_second = args.batch * args.seq / (ms / 1e3)
    mfu = per_second * (weights + attention // 2) / PEAK_FLOPS
    peak = torch.cuda.max_memory_allocated() / 2**30
    name = f"torch {'compile' if args.compile else 'eager'} {args.precision} b{args.batch}"
    print(f"{name}: {ms:.2f} ms/step, {per_second:,.0f} tokens/s, MFU {100 * mfu:.1f}%, "
          f"peak {peak:.2f} GiB, last loss {loss.item():.4f} "
          f"(PyTorch {torch.__version__}, {count} parameters)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"name": name, "ms_per_step": ms, "tokens_per_s": per_second,
                       "mfu": mfu, "peak_gib": peak, "torch": torch.__version__,
                       "parameters": count, "steps": args.steps,
                       "warmup": args.warmup}, f, indent=1)
    return 0 if math.isfinite(loss.item()) else 1


if __name__ == "__main__":
    sys.exit(main())
