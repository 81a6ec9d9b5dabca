"""Train the example MLP data-parallel from Python, one process per rank.

    mpirun -np 2 python3 python/examples/train_data_parallel.py \\
        --library DIR/libmlp.so --data DIR [--steps 20] [--output-dir OUT]

The library is examples/mlp.mlir compiled with
``--train-options=data-parallel=true``; DIR holds train_x.npy and
train_y.npy (rows are examples). Every rank loads the step with
``comm=MPI.COMM_WORLD``, starts from the same seed, and trains on its own
batch of every ``ranks`` consecutive ones: rank r takes batch k * ranks + r
at its step k, as ``mpirun amp-step --data --no-shuffle`` does. The step
reduces the gradients over the ranks, so they all hold the same state,
which they check at the end; rank 0 prints and writes the parameters.
"""

import argparse
from pathlib import Path

import numpy as np
from mpi4py import MPI

import ampmlir


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--output-dir", type=Path)
    args = parser.parse_args()

    x = np.load(args.data / "train_x.npy")
    labels = np.load(args.data / "train_y.npy")
    with ampmlir.Step(args.library, comm=MPI.COMM_WORLD) as step:
        batch = step.inputs[0].shape[0]
        if (args.steps * step.replicas) * batch > len(x):
            raise SystemExit(f"{len(x)} examples are too few for {args.steps}"
                             f" steps of {step.replicas} batches of {batch}")
        step.init(seed=1)  # collective: the ranks agree, or AmpError
        for k in range(args.steps):
            start = (k * step.replicas + step.rank) * batch
            step.run(x[start:start + batch], labels[start:start + batch])
            if step.rank == 0 and (k + 1) % 10 == 0:
                scale, steps, skipped = step.scaler()
                print(f"rank 0 of {step.replicas}: step {steps} loss "
                      f"{step.loss:.6f} scale {scale:g} skipped {skipped}",
                      flush=True)
        step.check_replicas()
        if step.rank == 0 and args.output_dir:
            args.output_dir.mkdir(parents=True, exist_ok=True)
            for name in ("w1", "b1", "w2", "b2"):
                np.save(args.output_dir / f"{name}.npy", step.read(name))


if __name__ == "__main__":
    main()
