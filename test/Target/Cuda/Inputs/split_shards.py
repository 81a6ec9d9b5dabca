"""Cuts an array (.npy) into shards along its first dimension: DIR/000.npy,
DIR/001.npy, ... holding COUNT rows each, in order, the last shard the rest
(a count of 0 makes an empty shard). A data set larger than memory comes as
such a directory; amp-step --data NAME=DIR reads it.

usage: split_shards.py ARRAY DIR COUNT...
"""

import os
import sys

import numpy as np

array = np.load(sys.argv[1])
directory, counts = sys.argv[2], [int(c) for c in sys.argv[3:]]
os.makedirs(directory, exist_ok=True)
start = 0
for index, count in enumerate(counts + [len(array) - sum(counts)]):
    np.save(os.path.join(directory, f"{index:03d}.npy"),
            array[start:start + count])
    start += count
