"""Copies the .npy array IN to OUT with row ROW set to VALUE everywhere: an
example whose features overflow f16 (1e6 > 65504), to make the step of
the batch that holds it overflow.

usage: poison_row.py IN OUT ROW VALUE
"""

import sys

import numpy as np

source, target, row, value = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
array = np.load(source)
array[row] = value
np.save(target, array)
