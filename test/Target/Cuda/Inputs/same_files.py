"""Exits non-zero unless two directories hold the same file names with the
same bytes, those names including every name given after them."""

import filecmp
import os
import sys

a, b, *required = sys.argv[1:]
names = sorted(os.listdir(a))
if names != sorted(os.listdir(b)):
    sys.exit(f"{a} holds {names}, {b} holds {sorted(os.listdir(b))}")
missing = [n for n in required if n not in names]
if missing:
    sys.exit(f"{a} lacks {missing}")
differ = [n for n in names
          if not filecmp.cmp(os.path.join(a, n), os.path.join(b, n),
                             shallow=False)]
if differ:
    sys.exit(f"these files differ: {differ}")
