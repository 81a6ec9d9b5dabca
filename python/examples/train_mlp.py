"""Train the example MLP with f16 mixed precision from Python.

    PYTHONPATH=python python3 python/examples/train_mlp.py [--steps 200]

Compiles examples/mlp.mlir into an f16 training step with dynamic loss
scaling, trains it on a generated data set, saves the state, and shows that
a step loaded from the file continues where the first one stopped.
"""

import argparse
import tempfile
from pathlib import Path

import ampmlir
from ampmlir import data

ROOT = Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--out", type=Path,
                        default=Path(tempfile.mkdtemp(prefix="ampmlir-")))
    args = parser.parse_args()

    compiled = ampmlir.compile(ROOT / "examples" / "mlp.mlir", args.out / "mlp",
                               compute_type="f16", optimizer="adamw",
                               train_options="lr=0.001")
    print(f"compiled {compiled.library}; peak step memory "
          f"{compiled.memory['peak_bytes'] / 1e6:.2f} MB")
    batches = data.clusters(seed=1)  # [(x float32 [64, 784], labels int64 [64])]

    with compiled.load() as step:
        print("inputs:", ", ".join(f"{t.name} {t.type}{list(t.shape)}"
                                   for t in step.inputs))
        step.init(seed=0)
        for i in range(args.steps):
            step.run(*batches[i % len(batches)])  # queued; no wait
            if (i + 1) % 50 == 0:
                scale, steps, skipped = step.scaler()  # waits
                print(f"step {steps:4d}  loss {step.loss:.4f}  scale {scale:g}"
                      f"  skipped {skipped}")
        step.save(args.out / "mlp.ampstate")

    with compiled.load() as resumed:
        resumed.load(args.out / "mlp.ampstate")
        resumed.run(*batches[args.steps % len(batches)])
        print(f"resumed at step {resumed.steps}: loss {resumed.loss:.4f}")


if __name__ == "__main__":
    main()
