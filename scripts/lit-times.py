#!/usr/bin/env python3
"""Writes test/.lit_test_times.txt, the order in which lit starts the tests
on a fresh checkout: longest first, so that the two workers finish together
instead of one running the longest test alone at the end. lit reads the
file from the source tree when the build directory has none of its own
(after a run it keeps its own there).

usage: scripts/lit-times.py BUILD_TEST_DIR...   (build/test build-sanitize/test)

Each test gets the longest time any of the given runs took (a failed run's
time is stored negative; its magnitude counts), rounded to a tenth of a
second; tests that took less than a second are left out (lit starts those
after the timed ones, which is where they belong).
"""
import os
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    times = {}
    for directory in sys.argv[1:]:
        path = os.path.join(directory, ".lit_test_times.txt")
        with open(path) as f:
            for line in f:
                time, name = line.split(maxsplit=1)
                name = name.strip()
                times[name] = max(times.get(name, 0.0), abs(float(time)))
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    out = os.path.normpath(os.path.join(root, "test", ".lit_test_times.txt"))
    kept = sorted(((t, n) for n, t in times.items() if t >= 1.0), reverse=True)
    with open(out + ".tmp", "w") as f:
        for time, name in kept:
            f.write(f"{time:.1f} {name}\n")
    os.replace(out + ".tmp", out)
    print(f"lit-times: {len(kept)} tests in {out}")


if __name__ == "__main__":
    main()
