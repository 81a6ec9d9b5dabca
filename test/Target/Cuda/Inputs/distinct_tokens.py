"""Writes a batch for examples/gpt_block.mlir (4 x 32 tokens of a 128-word
vocabulary) whose tokens are all different, and random targets."""
import sys

import numpy as np

rng = np.random.default_rng(0)
np.save(sys.argv[1], rng.permutation(128).reshape(4, 32).astype(np.int64))
np.save(sys.argv[2], rng.integers(0, 128, (4, 32)).astype(np.int64))
