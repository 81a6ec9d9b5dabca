"""Prints the shell code blocks (```sh) of one section of a Markdown file,
the section whose heading is HEADING, up to the next heading of its level
or above; exits non-zero when it has none. A test runs what it prints, so
that the commands the documentation shows are the commands that work.

usage: doc_commands.py FILE HEADING
"""

import re
import sys

path, heading = sys.argv[1], sys.argv[2]
lines = open(path, encoding="utf-8").read().splitlines()
level, blocks, block = None, [], None
for line in lines:
    match = re.match(r"(#+) (.*)", line)
    if block is None and match:
        if level is not None and len(match.group(1)) <= level:
            break
        if match.group(2).strip() == heading:
            level = len(match.group(1))
        continue
    if level is None:
        continue
    if block is None and line.strip() == "```sh":
        block = []
    elif block is not None and line.strip() == "```":
        blocks.append("\n".join(block))
        block = None
    elif block is not None:
        block.append(line)
if not blocks:
    sys.exit(f"{path}: no ```sh block under a heading '{heading}'")
print("set -e")
print("\n".join(blocks))
