"""Step.fit on the ranks of an mpirun job: each rank its own batches, as
mpirun amp-step --data takes them; rank 0 writes the parameters. With
CHECKPOINT, fit saves the state there at the end (each rank its own file
where the step shards its optimizer state), and a second step loads it and
must hold the same parameters.

usage: mpirun -np N python3 fit_data_parallel.py LIBRARY DATA_DIR OUT_DIR
           [CHECKPOINT]
"""

import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

import ampmlir

library, data, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
checkpoint = sys.argv[4] if len(sys.argv) > 4 else None
names = ("w1", "b1", "w2", "b2")
with ampmlir.Step(library, comm=MPI.COMM_WORLD) as step:
    step.init(seed=1)
    if step.rank == 0:
        print(f"sharded {step.sharded}")
    step.fit({"x": np.load(data / "train_x.npy"),
              "labels": np.load(data / "train_y.npy")}, print_every=10,
             checkpoint=checkpoint)
    trained = {name: step.read(name) for name in names}
    if step.rank == 0:
        out.mkdir(parents=True, exist_ok=True)
        for name in names:
            np.save(out / f"{name}.npy", trained[name])
if checkpoint:
    with ampmlir.Step(library, comm=MPI.COMM_WORLD) as step:
        step.load(checkpoint)
        for name in names:
            if step.read(name).tobytes() != trained[name].tobytes():
                sys.exit(f"rank {step.rank}: {name} differs after load")
        print(f"rank {step.rank}: loaded the checkpoint")
