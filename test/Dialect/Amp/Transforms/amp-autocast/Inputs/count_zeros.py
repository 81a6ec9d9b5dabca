"""Prints how many elements of each .npy file given are exactly zero."""
import sys

import numpy as np

for path in sys.argv[1:]:
    print("zeros", int((np.load(path) == 0).sum()))
