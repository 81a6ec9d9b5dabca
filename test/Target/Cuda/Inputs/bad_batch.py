"""Copies a directory of argument files (arg<i>.npy, as amp-run
--save-inputs writes them) and sets one element of one integer argument:
the `which`-th integer array, element `index` (flat), to `value`. Writes
DEST/inputs.rsp, amp-run's --input flags for the copy (pass it as @FILE).

usage: bad_batch.py SOURCE DEST WHICH INDEX VALUE
"""
import os
import shutil
import sys

import numpy as np

source, dest, which, index, value = sys.argv[1:]
shutil.copytree(source, dest)
names = sorted((f for f in os.listdir(dest) if f.endswith(".npy")),
               key=lambda f: int(f[3:-4]))
integers = [f for f in names
            if np.load(os.path.join(dest, f)).dtype.kind == "i"]
path = os.path.join(dest, integers[int(which)])
array = np.load(path)
array.reshape(-1)[int(index)] = int(value)
np.save(path, array)
with open(os.path.join(dest, "inputs.rsp"), "w") as flags:
    flags.write(" ".join("--input=" + os.path.join(dest, f) for f in names))
