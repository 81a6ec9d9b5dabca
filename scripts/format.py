#!/usr/bin/env python3
"""Formats the project's C and C++ sources with clang-format-19 and the
.clang-format at the root (LLVM style), or checks that they are formatted.

  scripts/format.py           rewrite every source in place
  scripts/format.py --check   print each file that differs, exit 1 if any

The sources are the tracked *.c, *.cpp, *.cu and *.h files (every file
under the source directories when the tree is not a git checkout).
"""
import argparse
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTENSIONS = (".c", ".cpp", ".cu", ".h")
DIRECTORIES = ("bench", "examples", "include", "lib", "runtime", "tools",
               "unittests")


def sources():
    try:
        listed = subprocess.run(["git", "-C", ROOT, "ls-files"], check=True,
                                capture_output=True, text=True).stdout
        paths = listed.splitlines()
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for directory in DIRECTORIES:
            for parent, _, names in os.walk(os.path.join(ROOT, directory)):
                paths += [os.path.relpath(os.path.join(parent, name), ROOT)
                          for name in names]
    return sorted(p for p in paths if p.endswith(EXTENSIONS)
                  and p.split("/")[0] in DIRECTORIES)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="report unformatted files instead of fixing them")
    args = parser.parse_args()
    tool = shutil.which("clang-format-19")
    if tool is None:
        print("format: clang-format-19 is missing; scripts/install-deps.sh "
              "installs it", file=sys.stderr)
        return 1
    files = sources()
    if not args.check:
        subprocess.run([tool, "-i", *files], cwd=ROOT, check=True)
        print(f"format: {len(files)} files formatted")
        return 0
    unformatted = []
    for path in files:
        with open(os.path.join(ROOT, path), "rb") as source:
            original = source.read()
        formatted = subprocess.run([tool, "--assume-filename=" + path],
                                   input=original, cwd=ROOT, check=True,
                                   capture_output=True).stdout
        if formatted != original:
            unformatted.append(path)
    for path in unformatted:
        print(f"{path}: not clang-format clean (scripts/format.py fixes it)")
    print(f"format: {len(files)} files checked, "
          f"{len(unformatted)} not formatted")
    return 1 if unformatted else 0


if __name__ == "__main__":
    sys.exit(main())
