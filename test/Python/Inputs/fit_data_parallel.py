"""Step.fit on the ranks of an mpirun job: each rank its own batches, as
mpirun amp-step --data takes them; rank 0 writes the parameters.

usage: mpirun -np N python3 fit_data_parallel.py LIBRARY DATA_DIR OUT_DIR
"""

import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

import ampmlir

library, data, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
with ampmlir.Step(library, comm=MPI.COMM_WORLD) as step:
    step.init(seed=1)
    step.fit({"x": np.load(data / "train_x.npy"),
              "labels": np.load(data / "train_y.npy")}, print_every=10)
    if step.rank == 0:
        out.mkdir(parents=True, exist_ok=True)
        for name in ("w1", "b1", "w2", "b2"):
            np.save(out / f"{name}.npy", step.read(name))
