"""Checks the states amp-step --keep-best=K kept beside CHECKPOINT against
its JSON-lines LOG: exactly the K validations of the lowest loss, as
CHECKPOINT.best-step<S> files, and prints them.

  best_states.py LOG CHECKPOINT K"""
import glob
import json
import sys

log, checkpoint, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
validations = [(r["val_loss"], r["step"])
               for r in map(json.loads, open(log)) if "val_loss" in r]
want = sorted(step for _, step in sorted(validations)[:k])
got = sorted(int(path.rsplit("best-step", 1)[1])
             for path in glob.glob(checkpoint + ".best-step*"))
if got != want:
    sys.exit(f"kept {got}, the {k} lowest validation losses are at {want}")
print(f"kept the {k} best of {len(validations)} validations: steps "
      + " ".join(map(str, got)))
