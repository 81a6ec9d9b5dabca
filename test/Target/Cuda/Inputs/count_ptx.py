"""Prints the instructions of each .entry of a PTX file (argv[1]) beyond
those of the entry named by argv[2], one "name count" line each: what a
function costs its caller, without the loads and stores every kernel has.
Directives (.reg, .loc, ...), labels and braces are not instructions."""
import re
import sys

text = open(sys.argv[1]).read()
counts = {}
for entry in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\n\}", text, re.S):
    lines = entry.group(2).split("\n")
    counts[entry.group(1)] = sum(
        1 for line in lines
        if re.match(r"\s*(@!?%p\d+\s+)?[a-z][\w.]*(\s|;)", line))
base = counts.pop(sys.argv[2])
for name in sorted(counts):
    print(name, counts[name] - base)
