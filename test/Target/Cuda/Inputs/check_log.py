"""Exits non-zero unless LOG is a training log (JSON lines) whose steps
rise, ending at STEPS, each line with the fields of a progress line, and
with a validation loss on VALIDATIONS lines.

usage: check_log.py LOG STEPS VALIDATIONS
"""

import json
import sys

path, steps, validations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path) as log:
    records = [json.loads(line) for line in log]
fields = {"step", "epoch", "loss", "scale", "skipped", "lr", "steps_per_s"}
for record in records:
    if not fields <= set(record):
        sys.exit(f"{record} lacks {sorted(fields - set(record))}")
numbers = [r["step"] for r in records]
if numbers != sorted(set(numbers)) or numbers[-1] != steps:
    sys.exit(f"the steps {numbers} do not rise to {steps}")
if sum("val_loss" in r for r in records) != validations:
    sys.exit(f"{sum('val_loss' in r for r in records)} validations, "
             f"not {validations}")
