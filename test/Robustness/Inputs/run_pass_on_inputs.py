#!/usr/bin/env python3
"""Runs a pass pipeline over every split of the given .mlir files.

  run_pass_on_inputs.py --amp-opt amp-opt --pass=--amp-autocast=... FILE...

Verifier-valid IR must never crash a pass: each run must exit 0, or 1 with a
located `error:`; a signal, an exit code above 1, or a crash report fails.
A run that succeeds has had its output verified by amp-opt. Prints a tally.
"""
import argparse
import re
import subprocess
import sys

CRASH = ("PLEASE submit a bug report", "Stack dump", "Assertion", "LLVM ERROR")
LOCATED = re.compile(r"^(.*?:\d+:\d+|within split at .*?:\d+:\d+): error:", re.M)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--amp-opt", required=True)
    parser.add_argument("--pass", dest="passes", action="append", required=True)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    runs = failures = rejected = 0
    for path in args.files:
        for pipeline in args.passes:
            cmd = [args.amp_opt, path, "-split-input-file", pipeline,
                   "-o", "/dev/null"]
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  timeout=60)
            runs += 1
            crashed = proc.returncode < 0 or proc.returncode > 1 or any(
                marker in proc.stderr for marker in CRASH)
            unlocated = proc.returncode == 1 and not LOCATED.search(proc.stderr)
            if crashed or unlocated:
                failures += 1
                print(f"FAIL {' '.join(cmd)}: exit {proc.returncode}\n"
                      f"{proc.stderr[-2000:]}")
            rejected += proc.returncode == 1
    print(f"{runs} runs, {rejected} rejected with a located error, "
          f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
