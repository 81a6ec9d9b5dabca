"""Data sets for Inputs/tiny.mlir, into the directory argv[1]: 40 examples
(x.npy, y.npy) and the same with one defect each: a NaN (row 16), values
that overflow f32's logits from row 8 on (x_huge), a label outside the 5
classes in the last row (y_bad, row 39), no examples (x_empty)."""
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(0)
x = rng.standard_normal((40, 3)).astype(np.float32)
y = (np.arange(40) % 5).astype(np.int64)
np.save(f"{out}/x.npy", x)
np.save(f"{out}/y.npy", y)
nan = x.copy()
nan[16, 2] = np.nan
np.save(f"{out}/x_nan.npy", nan)
huge = x.copy()
huge[8:] = 3e38
np.save(f"{out}/x_huge.npy", huge)
bad = y.copy()
bad[39] = 7
np.save(f"{out}/y_bad.npy", bad)
np.save(f"{out}/x_empty.npy", x[:0])
