#!/usr/bin/env python3
"""Writes test/.lit_test_times.txt, the order in which lit starts the tests
of a build that has no timings of its own (a fresh clone, as CI's).

lit starts the slowest tests first when it knows their times; it records
them in the build's test directory after each run and, when that file is
missing, reads the one in the test sources. Without it a fresh build runs
the tests in path order, and a long test that comes late (the PyTorch
import, the sanitizers' differential test) runs alone at the end while the
other workers idle.

    python3 scripts/lit_times.py build/test/.lit_test_times.txt \
        build-sanitize/test/.lit_test_times.txt

Each test gets the longest of its times in the given files (the plain and
the sanitizer builds order differently: the interpreter is ten times
slower under the sanitizers); a failed test's time, which lit records as
negative, counts by its size. The times only order the tests: a stale file
costs minutes, never a result."""

import argparse
import os


def read(path):
    times = {}
    with open(path) as f:
        for line in f:
            seconds, test = line.split(maxsplit=1)
            times[test.strip()] = abs(float(seconds))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+",
                        help="a build's test/.lit_test_times.txt")
    parser.add_argument("-o", "--output", default=os.path.join(
        os.path.dirname(__file__), "..", "test", ".lit_test_times.txt"))
    args = parser.parse_args()
    merged = {}
    for path in args.files:
        for test, seconds in read(path).items():
            merged[test] = max(seconds, merged.get(test, 0.0))
    tests = [t for t in merged if os.path.exists(
        os.path.join(os.path.dirname(args.output), t))]
    with open(args.output, "w") as f:
        for test in sorted(tests, key=lambda t: (-merged[t], t)):
            f.write("%.1f %s\n" % (merged[test], test))
    print(f"lit_times: {len(tests)} tests in {os.path.normpath(args.output)}")


if __name__ == "__main__":
    main()
