"""Checks the interpreter's amp.dropout against Philox4x32-10 written here
from the published algorithm (Salmon et al., SC 2011), apart from
amp_runtime/random.h: the mask layout the dialect documents, the scale
1 / (1 - p) in the register type, one rounding to the element type.

usage: dropout_oracle.py AMP-RUN MODEL WORKDIR
"""
import os
import subprocess
import sys

import numpy as np

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK32 = 0xFFFFFFFF


def philox(counter, key):
    c = list(counter)
    k0, k1 = key
    for r in range(10):
        if r:
            k0, k1 = (k0 + W0) & MASK32, (k1 + W1) & MASK32
        p0, p1 = M0 * c[0], M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & MASK32, (p0 >> 32) ^ c[3] ^ k1, p0 & MASK32]
    return c


def keeps(seed, step, stream, n, p):
    threshold = int(np.ceil(p * 2.0 ** 24))
    out = np.empty(n, dtype=bool)
    for i in range(n):
        block = i // 4
        words = philox([block & MASK32, block >> 32, step & MASK32, stream],
                       [seed & MASK32, seed >> 32])
        out[i] = (words[i % 4] >> 8) >= threshold
    return out


def main():
    amp_run, model, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(7)
    seed, step = 0x1F2E3D4C5B6A7, 12  # below 2^53, as amp_step_init keeps it
    inputs = {
        "x32": rng.standard_normal((6, 100)).astype(np.float32),
        "x16": rng.standard_normal(1000).astype(np.float16),
        # bf16 as '<u2': the top half of an f32.
        "xb": (rng.standard_normal((3, 7, 5)).astype(np.float32).view(np.uint32) >> 16)
        .astype(np.uint16),
        "x64": rng.standard_normal(257),
        "rng": np.array([seed, step], dtype=np.int64),
    }
    args = [amp_run, model, f"--output-dir={work}", "--print-limit=0"]
    for name, value in inputs.items():
        path = os.path.join(work, name + ".npy")
        np.save(path, value)
        args.append(f"--input={name}={path}")
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)

    failures = 0
    cases = [("y32", "x32", 0.3, 0), ("y16", "x16", 0.3, 1), ("yb", "xb", 0.9, 2),
             ("y64", "x64", 0.3, 4000000000)]
    for out, name, p, stream in cases:
        x = inputs[name]
        got = np.load(os.path.join(work, out + ".npy"))
        kept = keeps(seed, step, stream, x.size, p).reshape(x.shape)
        if name == "xb":
            wide = (x.astype(np.uint32) << 16).view(np.float32)
            value = wide * np.where(kept, np.float32(1 / (1 - p)), np.float32(0))
            # bf16 rounding of an f32, to nearest even.
            bits = value.view(np.uint32).astype(np.uint64)
            want = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        elif name == "x64":
            want = x * np.where(kept, 1 / (1 - p), 0.0)
        else:
            value = x.astype(np.float32) * np.where(kept, np.float32(1 / (1 - p)),
                                                    np.float32(0))
            want = value.astype(x.dtype)
        if got.dtype != want.dtype or not np.array_equal(got.view(np.uint8),
                                                         want.view(np.uint8)):
            print(f"{out}: the interpreter's dropout differs from the oracle's")
            failures += 1
            continue
        print(f"{out}: {x.size} elements, {int(kept.sum())} kept "
              f"({kept.mean():.3f} for 1 - p = {1 - p:.1f}), bit for bit")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
