"""The fenced code blocks of a Markdown file, with the doc-test markers
that say how a test runs them; run as a program, prints the shell code
blocks (```sh) of one section, so that a test runs the commands the
documentation shows.

A marker is an HTML comment (invisible in the rendered page) on one of the
lines right before a fence:

  <!-- doc-test: skip: REASON -->        the block is not run, for REASON
  <!-- doc-test: requires: FEATURE -->   run only where FEATURE is there
                                         (torch, gpu, mpi, cuda, dot,
                                         tensorboard; several: comma-separated)
  <!-- doc-test: setup: COMMANDS -->     shell commands run before the block,
                                         to make the files it assumes
  <!-- doc-test: file: NAME -->          the block is written to NAME
                                         instead of being run

usage: doc_commands.py FILE HEADING
  prints the ```sh blocks under the heading HEADING, up to the next heading
  of its level or above (a block's setup first, skipped blocks left out);
  exits non-zero when there are none.
"""

import re
import sys

MARKER_KINDS = ("skip", "requires", "setup", "file")
FEATURES = ("torch", "gpu", "mpi", "cuda", "dot", "tensorboard")

FENCE = re.compile(r"^( *)```(\S*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*([a-z]+):\s*(.*?)\s*-->\s*$")
HEADING = re.compile(r"^(#+) (.*)")


class Block:
    """One fenced block: where it starts (1-based line of the fence), its
    language, its text without the fence's indentation, and its markers."""

    def __init__(self, line, language, text, markers, section):
        self.line = line
        self.language = language
        self.text = text
        self.section = section  # the headings above it, outermost first
        self.skip = None
        self.requires = []
        self.setup = []
        self.file = None
        for kind, value in markers:
            if kind == "skip":
                self.skip = value
            elif kind == "requires":
                self.requires += [f for f in re.split(r"[,\s]+", value) if f]
            elif kind == "setup":
                self.setup.append(value)
            else:
                self.file = value

    def first_line(self):
        """The first line that is not blank, to name the block by."""
        for line in self.text.splitlines():
            if line.strip():
                return line.strip()
        return ""


def parse(path):
    """The blocks of the Markdown file at `path`, in order. A marker that is
    not right before a fence, or that is not understood, is an error
    (ValueError): a misplaced marker would otherwise be ignored silently."""
    lines = open(path, encoding="utf-8").read().splitlines()
    blocks, markers, headings = [], [], []
    number = 0
    while number < len(lines):
        line = lines[number]
        number += 1
        fence = FENCE.match(line)
        if fence:
            indent, language = len(fence.group(1)), fence.group(2)
            start, body = number, []
            # The block ends at a closing fence of the same indentation.
            while number < len(lines) and lines[number] != " " * indent + "```":
                # Inside a list item the block is indented with the item.
                text = lines[number]
                body.append(text[indent:] if text[:indent].strip() == "" else text.lstrip())
                number += 1
            if number == len(lines):
                raise ValueError(f"{path}:{start}: the block is never closed")
            number += 1
            block = Block(start, language, "\n".join(body) + "\n", markers,
                          [h for _, h in headings])
            for feature in block.requires:
                if feature not in FEATURES:
                    raise ValueError(f"{path}:{start - 1}: unknown feature '{feature}' "
                                     f"required (one of {', '.join(FEATURES)})")
            blocks.append(block)
            markers = []
            continue
        marker = MARKER.match(line)
        if marker:
            if marker.group(1) not in MARKER_KINDS:
                raise ValueError(f"{path}:{number}: unknown doc-test marker "
                                 f"'{marker.group(1)}' (one of {', '.join(MARKER_KINDS)})")
            markers.append((marker.group(1), marker.group(2)))
            continue
        if "doc-test:" in line:
            raise ValueError(f"{path}:{number}: a doc-test marker is one line: "
                             "<!-- doc-test: KIND: VALUE -->")
        if markers:
            raise ValueError(f"{path}:{number - 1}: a doc-test marker belongs on "
                             "the lines right before a fence")
        heading = HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            headings = [h for h in headings if h[0] < level] + [(level, heading.group(2).strip())]
    if markers:
        raise ValueError(f"{path}: a doc-test marker at the end, before no fence")
    return blocks


def main():
    path, heading = sys.argv[1], sys.argv[2]
    blocks = [b for b in parse(path)
              if b.language == "sh" and heading in b.section and b.skip is None]
    if not blocks:
        sys.exit(f"{path}: no ```sh block under a heading '{heading}'")
    print("set -e")
    for block in blocks:
        for setup in block.setup:
            print(setup)
        print(block.text, end="")


if __name__ == "__main__":
    main()
