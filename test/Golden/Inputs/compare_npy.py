#!/usr/bin/env python3
"""Compares float32 .npy files against golden ones, with the standard library.

  compare_npy.py --rtol R ACTUAL GOLDEN [ACTUAL GOLDEN ...]
  compare_npy.py --rtol R --log TRAIN_LOG GOLDEN_LOSSES

Pairs: max |actual - golden| / max |golden| must not exceed R, shapes must
agree. With --log, the losses printed by `amp-run --train-steps` ("step i
loss x") are compared element by element with the golden list, relative to
each golden loss. Prints one line per comparison; exits 1 on a mismatch.
"""
import argparse
import array
import ast
import re
import sys


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    major = data[6]
    length = int.from_bytes(data[8:10] if major == 1 else data[8:12], "little")
    start = (10 if major == 1 else 12)
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        sys.exit(f"{path}: expected C-order <f4, got {header}")
    values = array.array("f")
    values.frombytes(data[start + length:])
    return tuple(header["shape"]), list(values)


def compare(name, actual, golden, rtol):
    scale = max((abs(g) for g in golden), default=0.0) or 1.0
    worst = max((abs(a - g) for a, g in zip(actual, golden)), default=0.0)
    relative = worst / scale
    ok = len(actual) == len(golden) and relative <= rtol
    print(f"{name}: {len(golden)} values, worst relative difference "
          f"{relative:.2e} {'ok' if ok else 'MISMATCH'}")
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rtol", type=float, required=True)
    parser.add_argument("--log")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    ok = True
    if args.log:
        with open(args.log) as f:
            losses = [float(m.group(1)) for m in
                      re.finditer(r"^step \d+ loss (\S+)", f.read(), re.M)]
        _, golden = load(args.files[0])
        for i, (a, g) in enumerate(zip(losses, golden)):
            ok &= compare(f"loss of step {i}", [a], [g], args.rtol)
        if len(losses) != len(golden):
            print(f"{len(losses)} losses logged, {len(golden)} golden")
            ok = False
    else:
        for actual, golden in zip(args.files[::2], args.files[1::2]):
            actual_shape, actual_values = load(actual)
            golden_shape, golden_values = load(golden)
            if actual_shape != golden_shape:
                print(f"{actual}: shape {actual_shape}, golden {golden_shape}")
                ok = False
                continue
            ok &= compare(actual.split("/")[-1] + " vs " +
                          "/".join(golden.split("/")[-2:]),
                          actual_values, golden_values, args.rtol)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
