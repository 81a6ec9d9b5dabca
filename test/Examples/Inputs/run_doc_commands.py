"""Runs every command block of some Markdown documents as a reader would
run them from the repository root after `make demo` and `make test`: the
```sh blocks with bash (set -e, set -o pipefail) and the ```python blocks
with `python`, each document's blocks in order in one scratch directory,
so that a block sees what the blocks before it wrote. The doc-test markers
(doc_commands.py) skip a block, run it only where a feature is there, run
hidden setup commands before it, or write it to a file. Every block that
does not run says so, and why.

The scratch directory of a document has `build` (the build under test),
`examples`, `python` and `.venv` as links to the checkout, and a copy of
`scripts` (so that a script that writes beside itself writes there).
PATH starts with the build's programs and a `python`: the checkout's
.venv's when there is one and no --python is given, else --python or this
interpreter with PYTHONPATH at the checkout's package. $AMP_SOURCE_DIR is
the checkout, for the hidden setups only.

A block that fails is reported with its document, its line and first line
and its output, and the document's later blocks are not run (they may need
its files); the other documents still run. The exit status is 1 when a
block failed.

usage: run_doc_commands.py --root SRC --bin BIN --work DIR
           [--have FEATURE]... [--python COMMAND] DOC...
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

import doc_commands

# Longer than any block takes; a hung block fails instead of the whole run.
BLOCK_TIMEOUT_S = 600


def python_has(python, *choices):
    """Whether `python` can import every module of one of `choices` (tuples
    of module names), without importing them."""
    check = ("import importlib.util, sys; sys.exit(not any(all("
             "importlib.util.find_spec(m) for m in ms) for ms in %r))" % (choices,))
    return subprocess.run([python, "-c", check], capture_output=True).returncode == 0


class Machine:
    """What this machine has: the features lit found (--have), and the ones
    this script looks for itself."""

    def __init__(self, have, python):
        self.have = set(have)
        self.python = python
        self.found = {}

    def has(self, feature):
        if feature in self.have:
            return True
        if feature not in self.found:
            if feature == "dot":
                self.found[feature] = shutil.which("dot") is not None
            elif feature == "tensorboard":
                # ampmlir.runlog's writers: torch's (with tensorboard) or tensorboardX.
                self.found[feature] = python_has(
                    self.python, ("torch", "tensorboard"), ("tensorboardX",))
            else:
                self.found[feature] = False  # lit's features come from --have
        return self.found[feature]


def make_python(shims, args, env):
    """Writes the `python` the blocks run; returns its path."""
    venv_python = os.path.join(args.root, ".venv", "bin", "python")
    if args.python is None and os.path.exists(venv_python):
        # The .venv imports the checkout's package (a .pth file that
        # scripts/install-torch.sh writes).
        command = venv_python
    else:
        command = args.python or sys.executable
        package = os.path.join(args.root, "python")
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (package, env.get("PYTHONPATH")) if p)
    path = os.path.join(shims, "python")
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexec %s "$@"\n' % command)
    os.chmod(path, 0o755)
    return path


def make_scratch(directory, args):
    os.makedirs(directory)
    os.symlink(os.path.dirname(os.path.abspath(args.bin)),
               os.path.join(directory, "build"))
    for name in ("examples", "python", ".venv"):
        if os.path.exists(os.path.join(args.root, name)):
            os.symlink(os.path.join(args.root, name), os.path.join(directory, name))
    shutil.copytree(os.path.join(args.root, "scripts"),
                    os.path.join(directory, "scripts"), symlinks=True)


def run(argv, cwd, env):
    """Runs `argv`; returns its exit status (None: timed out), its output
    (stdout and stderr together) and the seconds it took."""
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=BLOCK_TIMEOUT_S)
        status, output = proc.returncode, proc.stdout
    except subprocess.TimeoutExpired as e:
        status = None
        output = (e.stdout or b"").decode(errors="replace") + \
            f"\n(timed out after {BLOCK_TIMEOUT_S} s)\n"
    return status, output, time.monotonic() - start


def show(text):
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    sys.stdout.flush()


def run_document(doc, name, directory, args, python, machine, env, blocks_dir):
    """Runs the blocks of one document in `directory`; returns the counts
    of blocks run, skipped and not commands, and the failure's message
    (None when none failed)."""
    counts = {"run": 0, "skipped": 0, "other": []}
    try:
        blocks = doc_commands.parse(doc)
    except ValueError as e:  # a marker misplaced or misspelt
        message = f"FAILED: {e}"
        show(message)
        return counts, message
    make_scratch(directory, args)
    for block in blocks:
        where = f"{name}:{block.line} [{block.language or 'text'}]"
        title = f"{where} {block.first_line()}"
        if block.file is not None:
            with open(os.path.join(directory, block.file), "w") as f:
                f.write(block.text)
            show(f"== {where} written to {block.file}")
            continue
        if block.language not in ("sh", "python"):
            counts["other"].append(block.language or "text")
            continue
        if block.skip is not None:
            show(f"-- skipped {title}\n   because: {block.skip}")
            counts["skipped"] += 1
            continue
        missing = [f for f in block.requires if not machine.has(f)]
        if missing:
            show(f"-- skipped {title}\n   because it needs {', '.join(missing)}, "
                 "which this machine lacks")
            counts["skipped"] += 1
            continue
        needs = f" (needs {', '.join(block.requires)})" if block.requires else ""
        show(f"== {title}{needs}")
        # The hidden setup commands (each named), then the block (None).
        steps = [(s, ["bash", "-e", "-o", "pipefail", "-c", s]) for s in block.setup]
        if block.language == "sh":
            steps.append((None, ["bash", "-e", "-o", "pipefail", "-c", block.text]))
        else:
            program = os.path.join(blocks_dir, f"{os.path.basename(directory)}-{block.line}.py")
            with open(program, "w") as f:
                f.write(block.text)
            steps.append((None, [python, program]))
        seconds = 0.0
        for setup, argv in steps:
            if setup is not None:
                show("   setup: " + setup)
            status, output, took = run(argv, directory, env)
            seconds += took
            show(output)
            if status != 0:
                what = "it" if setup is None else f"its setup '{setup}'"
                message = (f"FAILED: {name}, the block at line {block.line} "
                           f"({block.first_line()!r}): {what} exited with "
                           f"{'a timeout' if status is None else f'status {status}'}; "
                           f"output:\n{output}")
                show(message)
                show(f"{name}: the blocks after line {block.line} were not run")
                return counts, message
        show(f"   ok, {seconds:.1f} s" + (" with its setup" if block.setup else ""))
        counts["run"] += 1
    return counts, None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the checkout")
    parser.add_argument("--bin", required=True, help="the build's programs")
    parser.add_argument("--work", required=True, help="an empty or new directory")
    parser.add_argument("--have", action="append", default=[],
                        choices=doc_commands.FEATURES, help="a feature lit found")
    parser.add_argument("--python", help="the command that runs `python`")
    parser.add_argument("docs", nargs="+")
    args = parser.parse_args()
    args.root = os.path.abspath(args.root)

    hidden = os.path.join(args.work, ".doc-test")
    shims, blocks_dir, tmp = (os.path.join(hidden, d) for d in ("bin", "blocks", "tmp"))
    for d in (shims, blocks_dir, tmp):
        os.makedirs(d, exist_ok=True)
    env = dict(os.environ)
    python = make_python(shims, args, env)
    env["PATH"] = os.pathsep.join([shims, os.path.abspath(args.bin), env["PATH"]])
    env["TMPDIR"] = tmp  # what the blocks leave in temporary directories
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # nothing written into the checkout
    env["AMP_SOURCE_DIR"] = args.root
    machine = Machine(args.have, python)

    start = time.monotonic()
    totals, failures, summary = {"run": 0, "skipped": 0}, [], []
    for doc in args.docs:
        name = os.path.relpath(os.path.abspath(doc), args.root)
        directory = os.path.join(args.work, os.path.splitext(os.path.basename(doc))[0])
        counts, failure = run_document(doc, name, directory, args, python, machine,
                                        env, blocks_dir)
        totals["run"] += counts["run"]
        totals["skipped"] += counts["skipped"]
        others = (f", {len(counts['other'])} not commands "
                  f"({', '.join(sorted(set(counts['other'])))})" if counts["other"] else "")
        summary.append(f"{name}: {counts['run']} blocks run, {counts['skipped']} "
                       f"skipped{others}{', FAILED' if failure else ''}")
        if failure:
            failures.append(failure)
    show("\n".join(summary))
    show(f"doc-commands: {totals['run']} blocks run, {totals['skipped']} skipped, "
         f"{len(failures)} failed, in {time.monotonic() - start:.0f} s")
    if failures:
        # stderr too: lit shows it where stdout went to a file.
        sys.stderr.write("\n".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
