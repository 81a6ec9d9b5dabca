"""Exits non-zero unless the logits (N x classes, the evaluation's output
over a validation set's full batches) classify the first N labels with at
least the accuracy THRESHOLD; prints the accuracy.

usage: accuracy.py LOGITS LABELS THRESHOLD
"""

import sys

import numpy as np

logits, labels = np.load(sys.argv[1]), np.load(sys.argv[2])
threshold = float(sys.argv[3])
accuracy = (logits.argmax(axis=1) == labels[: len(logits)]).mean()
print(f"validation accuracy {accuracy:.4f} over {len(logits)} examples")
if not accuracy >= threshold:
    sys.exit(f"validation accuracy {accuracy:.4f} is below {threshold}")
