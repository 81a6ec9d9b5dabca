#!/usr/bin/env python3
# This file is the helper of garbled-examples.test. It is also picked up by
# lit itself (the suite's suffixes include .py), so it carries its own RUN
# line: a self-test that the checks below do catch misbehaving tools.
#
# RUN: %python %s --self-test --examples %examples --work-dir %t
"""Feed garbled copies of the example models to amp-opt.

For every example .mlir file this writes mutated copies to a work directory,
runs amp-opt on each (with a timeout) and checks how it reacts:

  truncated   the file cut at ~40 byte offsets spread evenly between the
              `module` keyword and the final `}`: must exit 1 with a
              located `<file>:<line>:<col>: error:` diagnostic;
  op-name     one character deleted from an `amp.<name>` op mnemonic: must
              exit 1 with a located error;
  shape       one dimension of a `tensor<...>` type incremented by one: must
              exit 1 with a located error;
  random      random bytes flipped, inserted or deleted: may be accepted
              (exit 0) or rejected (exit 1, with a located error), never a
              signal, another exit code, or a crash report on stderr.

Every run of amp-opt must stay free of crash reports ('PLEASE submit a bug
report', 'Stack dump', 'Assertion', 'LLVM ERROR') and finish within the
timeout. The unmodified examples must verify (exit 0), or every mutant would
be rejected trivially.

Everything is deterministic: the mutations derive from fixed seeds. Any
violation prints the mutant's path, how it was made and why it failed, keeps
the work directory and makes the script exit 1. At the end one tally line
per class is printed.

With --self-test the script instead runs the same checks against stand-in
tools that misbehave (accept everything, crash with SIGSEGV, print a crash
report, reject without a location, reject even the unmodified input) and
checks that each of them is caught.

Pure Python 3 standard library.
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass, field

BASE_SEED = 20240917
NUM_TRUNCATIONS = 40
MIN_OP_NAME_GARBLES = 8
NUM_SHAPE_GARBLES = 30
NUM_RANDOM_GARBLES = 60
TIMEOUT_S = 10

CRASH_MARKERS = ("PLEASE submit a bug report", "Stack dump", "Assertion",
                 "LLVM ERROR")

# Bytes that random insertions and replacements draw from most of the time:
# MLIR punctuation, digits and letters, so that mutants get past the lexer
# and exercise the parser and the verifiers, not only the tokenizer.
SYNTAX_BYTES = b"{}()<>[]%@#^!:,=.-+*/\\\"' \n\t0123456789xefiamtpsor_"


@dataclass
class Mutant:
    klass: str          # truncated, op-name, shape, random
    source: str         # example file name
    description: str    # how it was made, enough to reproduce it
    data: bytes
    path: str = ""


@dataclass
class Outcome:
    mutant: Mutant
    returncode: int = 0
    stderr: str = ""
    timed_out: bool = False
    problems: list = field(default_factory=list)


#===----------------------------------------------------------------------===#
# Reading the examples
#===----------------------------------------------------------------------===#


def comment_mask(data):
    """For every byte, whether it lies in a `//` comment (outside strings)."""
    mask = bytearray(len(data))
    i, n = 0, len(data)
    in_string = False
    while i < n:
        c = data[i]
        if in_string:
            if c == ord("\\"):
                i += 2
                continue
            if c == ord('"') or c == ord("\n"):
                in_string = False
        elif c == ord('"'):
            in_string = True
        elif data.startswith(b"//", i):
            end = data.find(b"\n", i)
            end = n if end < 0 else end
            for j in range(i, end):
                mask[j] = 1
            i = end
            continue
        i += 1
    return mask


def code_matches(pattern, data, mask, group=0):
    """Matches of `pattern` whose `group` starts outside comments."""
    return [m for m in re.finditer(pattern, data, re.M)
            if not mask[m.start(group)]]


def line_col(data, offset):
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return "line %d col %d" % (line, col)


def file_seed(name, klass):
    return BASE_SEED ^ zlib.crc32(("%s/%s" % (name, klass)).encode())


#===----------------------------------------------------------------------===#
# Mutators
#===----------------------------------------------------------------------===#


def truncations(name, data, mask):
    """The file cut at evenly spread offsets in (module keyword, final `}`)."""
    modules = code_matches(rb"\bmodule\b", data, mask)
    if not modules:
        raise ValueError("%s: no `module` keyword outside comments" % name)
    low = modules[0].end() + 1          # strictly after the keyword
    high = data.rstrip().rfind(b"}")    # cut before it: it is not kept
    if high < low or data[high:].strip() != b"}":
        raise ValueError("%s: does not end in `}`" % name)
    count = min(NUM_TRUNCATIONS, high - low + 1)
    offsets = sorted({low + round(i * (high - low) / max(count - 1, 1))
                      for i in range(count)})
    return [Mutant("truncated", name,
                   "cut at byte %d (%s), before %r" %
                   (k, line_col(data, k), data[k:k + 20].decode("latin-1")),
                   data[:k])
            for k in offsets]


def op_name_garbles(name, data, mask):
    """One character deleted from an op's `amp.<name>` mnemonic.

    Only op mnemonics count (the token after `=` or at the start of a line,
    outside comments); `amp.param` is an attribute name, and a comment may
    mention ops without being parsed.
    """
    ops = code_matches(rb"(?:^|=)[ \t]*(amp\.[a-z_][a-z0-9_]*)", data, mask, 1)
    if not ops:
        raise ValueError("%s: no amp op mnemonic found" % name)
    rng = random.Random(file_seed(name, "op-name"))
    by_name = {}
    for m in ops:
        by_name.setdefault(m.group(1), []).append(m)
    # One garble per distinct mnemonic, then more until there are enough.
    picks = []
    for mnemonic in sorted(by_name):
        m = rng.choice(by_name[mnemonic])
        picks.append((m.start(1), rng.randrange(len(mnemonic))))
    all_pairs = [(m.start(1), i) for m in ops
                 for i in range(len(m.group(1)))]
    rng.shuffle(all_pairs)
    for pair in all_pairs:
        if len(picks) >= MIN_OP_NAME_GARBLES:
            break
        if pair not in picks:
            picks.append(pair)
    mutants = []
    for start, i in picks:
        token = re.match(rb"amp\.[a-z_][a-z0-9_]*", data[start:]).group(0)
        at = start + i
        mutants.append(Mutant(
            "op-name", name,
            "deleted %r at byte %d (%s) from %r -> %r" %
            (chr(data[at]), at, line_col(data, at), token.decode(),
             (token[:i] + token[i + 1:]).decode()),
            data[:at] + data[at + 1:]))
    return mutants


def shape_garbles(name, data, mask):
    """One dimension of one `tensor<...>` occurrence incremented by one.

    Every tensor type written in an example is checked against another
    place: an operand annotation against its value's definition, a result
    type (`to ...`) by the op's verifier, a function result type by
    `func.return`. Two classes of occurrences are excluded because changing
    them legitimately keeps the file valid:
      * occurrences in comments, which are not parsed;
      * the type of a function argument that is never used: nothing else
        mentions that type. (The examples use every argument; the check is
        here so that a new example with an unused input does not make this
        test fail spuriously.)
    """
    rng = random.Random(file_seed(name, "shape"))
    candidates = []
    type_re = rb"tensor<((?:(?:[0-9]+|\?)x)*)([a-z][a-z0-9]*)>"
    for m in code_matches(type_re, data, mask):
        # `%name: tensor<...>` declares an argument (or annotates an
        # operand, which then has a definition elsewhere as well).
        arg = re.search(rb"(%[A-Za-z_][\w$.]*)[ \t]*:[ \t]*$",
                        data[max(0, m.start() - 80):m.start()])
        if arg:
            mentions = code_matches(
                re.escape(arg.group(1)) + rb"(?![\w$.])", data, mask)
            if len(mentions) < 2:
                continue  # an unused function argument, see above
        for d in re.finditer(rb"[0-9]+", m.group(1)):
            candidates.append((m.start(1) + d.start(), m.start(1) + d.end(),
                               m.group(0)))
    if not candidates:
        raise ValueError("%s: no shaped tensor type found" % name)
    picks = rng.sample(candidates, min(NUM_SHAPE_GARBLES, len(candidates)))
    mutants = []
    for start, end, type_text in sorted(picks):
        new_dim = str(int(data[start:end]) + 1).encode()
        mutants.append(Mutant(
            "shape", name,
            "dimension %s -> %s at byte %d (%s) in %r" %
            (data[start:end].decode(), new_dim.decode(), start,
             line_col(data, start), type_text.decode()),
            data[:start] + new_dim + data[end:]))
    return mutants


def random_garbles(name, data, mask):
    """1 to 3 random byte edits: bit flips, replacements, inserts, deletes.

    Edits land outside comments nine times out of ten, so that most mutants
    reach the parser; the rest may land anywhere.
    """
    rng = random.Random(file_seed(name, "random"))
    code_offsets = [i for i, c in enumerate(mask) if not c]
    mutants = []
    for _ in range(NUM_RANDOM_GARBLES):
        buf = bytearray(data)
        edits = []
        for _ in range(rng.randint(1, 3)):
            if code_offsets and rng.random() < 0.9:
                at = rng.choice(code_offsets)
            else:
                at = rng.randrange(len(buf))
            at = min(at, len(buf) - 1)
            kind = rng.choice(("flip", "replace", "insert", "delete"))
            if rng.random() < 0.75:
                byte = rng.choice(SYNTAX_BYTES)
            else:
                byte = rng.randrange(256)
            if kind == "flip":
                bit = rng.randrange(8)
                edits.append("flip bit %d of byte %d" % (bit, at))
                buf[at] ^= 1 << bit
            elif kind == "replace":
                edits.append("byte %d := 0x%02x" % (at, byte))
                buf[at] = byte
            elif kind == "insert":
                edits.append("insert 0x%02x at byte %d" % (byte, at))
                buf.insert(at, byte)
            else:
                edits.append("delete byte %d" % at)
                del buf[at]
        mutants.append(Mutant("random", name, "; ".join(edits), bytes(buf)))
    return mutants


MUTATORS = (
    ("truncated", truncations),
    ("op-name", op_name_garbles),
    ("shape", shape_garbles),
    ("random", random_garbles),
)


#===----------------------------------------------------------------------===#
# Running amp-opt and judging the outcome
#===----------------------------------------------------------------------===#


def run_tool(amp_opt, mutant):
    outcome = Outcome(mutant)
    try:
        proc = subprocess.run(amp_opt + [mutant.path],
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        outcome.timed_out = True
        outcome.problems.append("did not finish within %d s" % TIMEOUT_S)
        return outcome
    outcome.returncode = proc.returncode
    outcome.stderr = proc.stderr.decode("utf-8", "replace")
    judge(outcome)
    return outcome


def describe_exit(code):
    if code < 0:
        try:
            return "killed by %s" % signal.Signals(-code).name
        except ValueError:
            return "killed by signal %d" % -code
    return "exit code %d" % code


def judge(outcome):
    mutant, code, err = outcome.mutant, outcome.returncode, outcome.stderr
    problems = outcome.problems
    located = re.compile("^" + re.escape(mutant.path) + r":\d+:\d+: error: ",
                         re.M)
    for marker in CRASH_MARKERS:
        if marker in err:
            problems.append("stderr contains %r" % marker)
    if mutant.klass == "original":
        if code != 0:
            problems.append("the unmodified example does not verify (%s)" %
                            describe_exit(code))
        return
    if mutant.klass == "random":
        if code not in (0, 1):
            problems.append("%s, expected 0 or 1" % describe_exit(code))
    elif code != 1:
        problems.append("%s, expected 1 (rejected)" % describe_exit(code))
    if code == 1 and not located.search(err):
        problems.append("rejected without a located "
                        "'<file>:<line>:<col>: error:' diagnostic")


def run_suite(amp_opt, examples_dir, work_dir, out=sys.stdout, only=None):
    """Runs every check; returns (number of violations, tally lines).

    `only`, when given, restricts the examples to these file names.
    """
    examples = sorted(f for f in os.listdir(examples_dir)
                      if f.endswith(".mlir") and (only is None or f in only))
    if not examples:
        print("error: no .mlir files in %s" % examples_dir, file=out)
        return 1, []
    mutants = []
    errors = 0
    for name in examples:
        with open(os.path.join(examples_dir, name), "rb") as f:
            data = f.read()
        mask = comment_mask(data)
        stem = os.path.splitext(name)[0]
        mutants.append(Mutant("original", name, "unmodified", data))
        for klass, mutator in MUTATORS:
            try:
                made = mutator(name, data, mask)
            except ValueError as e:
                print("FAIL [%s] %s" % (klass, e), file=out)
                errors += 1
                continue
            for i, m in enumerate(made):
                m.path = os.path.join(work_dir, "%s.%s.%03d.mlir" %
                                      (stem, klass, i))
            mutants.extend(made)
    for m in mutants:
        if m.klass == "original":
            m.path = os.path.join(work_dir, m.source)
        with open(m.path, "wb") as f:
            f.write(m.data)

    workers = min(32, (os.cpu_count() or 2) * 2)
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        outcomes = list(pool.map(lambda m: run_tool(amp_opt, m), mutants))

    for o in outcomes:
        if not o.problems:
            continue
        errors += 1
        m = o.mutant
        print("FAIL [%s] %s: %s" % (m.klass, m.path, "; ".join(o.problems)),
              file=out)
        print("    made from %s: %s" % (m.source, m.description), file=out)
        tail = o.stderr.strip().splitlines()[-6:]
        for line in tail:
            print("    | " + line, file=out)

    tallies = []
    for klass, _ in MUTATORS:
        ours = [o for o in outcomes if o.mutant.klass == klass]
        bad = sum(1 for o in ours if o.problems)
        if klass == "random":
            accepted = sum(1 for o in ours
                           if not o.problems and o.returncode == 0)
            rejected = sum(1 for o in ours
                           if not o.problems and o.returncode == 1)
            tallies.append("%s: %d/%d handled (%d accepted, %d rejected with "
                           "a located error), %d violations" %
                           (klass, len(ours) - bad, len(ours), accepted,
                            rejected, bad))
        else:
            tallies.append("%s: %d/%d rejected with a located error" %
                           (klass, len(ours) - bad, len(ours)))
    originals = [o for o in outcomes if o.mutant.klass == "original"]
    tallies.insert(0, "original: %d/%d verify" %
                   (sum(1 for o in originals if not o.problems),
                    len(originals)))
    return errors, tallies


#===----------------------------------------------------------------------===#
# Self-test: stand-in tools that misbehave must be caught
#===----------------------------------------------------------------------===#

FAKE_TOOLS = {
    # name: a POSIX shell script standing in for amp-opt ($1: the input)
    "accepts-everything": "exit 0",
    "segfaults": "kill -SEGV $$",
    "reports-a-crash": ("echo \"$1:1:1: error: bad\" >&2\n"
                        "echo 'PLEASE submit a bug report' >&2\nexit 1"),
    "rejects-without-location": "echo 'error: something is wrong' >&2\nexit 1",
    "exits-2": "echo \"$1:1:1: error: bad\" >&2\nexit 2",
    "rejects-everything": "echo \"$1:1:1: error: bad\" >&2\nexit 1",
}


def self_test(examples_dir, work_dir):
    """Runs the checks on the first example against every stand-in tool."""
    names = sorted(f for f in os.listdir(examples_dir) if f.endswith(".mlir"))
    failures = 0
    for tool, body in sorted(FAKE_TOOLS.items()):
        tool_dir = os.path.join(work_dir, tool)
        os.makedirs(tool_dir)
        script = os.path.join(tool_dir, "fake-amp-opt")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        with open(os.devnull, "w") as sink:
            errors, tallies = run_suite(["/bin/sh", script], examples_dir,
                                        tool_dir, out=sink, only=names[:1])
        verdict = "caught" if errors else "NOT CAUGHT"
        print("self-test %s: %s (%d violations)" % (tool, verdict, errors))
        if not errors:
            failures += 1
            for line in tallies:
                print("    " + line)
    return failures


#===----------------------------------------------------------------------===#
# Driver
#===----------------------------------------------------------------------===#


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--amp-opt", default="amp-opt",
                        help="the amp-opt to test (a path or a name on PATH)")
    parser.add_argument("--examples", required=True,
                        help="directory holding the example .mlir files")
    parser.add_argument("--work-dir",
                        help="where to write the mutants (emptied first); "
                             "default: a temporary directory, removed "
                             "unless something fails")
    parser.add_argument("--self-test", action="store_true",
                        help="check that misbehaving stand-in tools are "
                             "caught instead of testing amp-opt")
    args = parser.parse_args()

    if args.work_dir:
        shutil.rmtree(args.work_dir, ignore_errors=True)
        os.makedirs(args.work_dir)
        work_dir = os.path.abspath(args.work_dir)
    else:
        work_dir = tempfile.mkdtemp(prefix="amp-mutants-")

    if args.self_test:
        failures = self_test(args.examples, work_dir)
        if failures:
            print("self-test: %d misbehaving tool(s) not caught" % failures)
            return 1
        if not args.work_dir:
            shutil.rmtree(work_dir, ignore_errors=True)
        return 0

    amp_opt = shutil.which(args.amp_opt)
    if not amp_opt:
        print("error: cannot find amp-opt %r" % args.amp_opt)
        return 1
    errors, tallies = run_suite([amp_opt], args.examples, work_dir)
    for line in tallies:
        print(line)
    if errors:
        print("%d violation(s); mutants kept in %s" % (errors, work_dir))
        return 1
    if not args.work_dir:
        shutil.rmtree(work_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
