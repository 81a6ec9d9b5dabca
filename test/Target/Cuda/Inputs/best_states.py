"""Checks the states amp-step --keep-best=K kept beside CHECKPOINT against
its JSON-lines LOG: exactly the K validations of the lowest loss (or, with
MONITOR val_accuracy or val_top5_accuracy, of the highest; the earlier of
equal ones), as CHECKPOINT.best-step<S> files, and prints them.

  best_states.py LOG CHECKPOINT K [MONITOR]"""
import glob
import json
import sys

log, checkpoint, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
monitor = sys.argv[4] if len(sys.argv) > 4 else "val_loss"
sign = 1 if monitor == "val_loss" else -1  # lower first: -accuracy
validations = [(sign * r[monitor], r["step"])
               for r in map(json.loads, open(log)) if monitor in r]
want = sorted(step for _, step in sorted(validations)[:k])
got = sorted(int(path.rsplit("best-step", 1)[1])
             for path in glob.glob(checkpoint + ".best-step*"))
if got != want:
    sys.exit(f"kept {got}, the {k} best by {monitor} are at {want}")
print(f"kept the {k} best of {len(validations)} validations: steps "
      + " ".join(map(str, got)))
