#!/usr/bin/env python3
"""Compares the scalar results printed by two amp-run runs.

  compare_losses.py AMP_OUTPUT FP32_OUTPUT --rtol=R

Every `result #i: tensor<f32> = [x]` line of AMP_OUTPUT must lie within
relative distance R of the same line of FP32_OUTPUT. Prints one line per
result with both values and their relative difference; exits 1 on a
mismatch or when the outputs hold different results.
"""
import argparse
import math
import re
import sys

RESULT = re.compile(r"^result #(\d+): tensor<f32> = \[([^\]]+)\]$")


def scalars(path):
    values = {}
    with open(path) as f:
        for line in f:
            match = RESULT.match(line.strip())
            if match:
                values[int(match.group(1))] = float(match.group(2))
    return values


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("amp")
    parser.add_argument("reference")
    parser.add_argument("--rtol", type=float, required=True)
    args = parser.parse_args()
    amp, reference = scalars(args.amp), scalars(args.reference)
    if not reference or amp.keys() != reference.keys():
        print(f"results differ: {sorted(amp)} vs {sorted(reference)}")
        return 1
    ok = True
    for index in sorted(reference):
        a, r = amp[index], reference[index]
        relative = abs(a - r) / abs(r) if r else abs(a)
        good = math.isfinite(a) and relative <= args.rtol
        ok &= good
        print(f"result #{index}: amp {a:.9g} fp32 {r:.9g} "
              f"relative {relative:.2e} {'within' if good else 'BEYOND'} "
              f"{args.rtol:g}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
