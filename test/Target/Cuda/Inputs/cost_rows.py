"""Prints a cost report (JSON, from amp-translate --amp-cost-report or
amp-compile --cost-report) as one line per kernel and a line of totals, for
FileCheck."""
import json
import sys

report = json.load(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
for k in report["kernels"]:
    print(f"{k['name']} {k['strategy']} launches={k['launches']} "
          f"grid={k['blocks']}x{k['threads']} flops={k['flops']} "
          f"transcendentals={k['transcendentals']} "
          f"tensor_core={int(k['tensor_core'])} read={k['bytes_read']} "
          f"written={k['bytes_written']}")
t = report["totals"]
print(" ".join(f"{key}={t[key]}" for key in sorted(t)))
for m in report.get("minimums", []):
    flops = "none" if m["flops"] is None else m["flops"]
    print(f"minimum {m['name']} launches={m['launch_count']} "
          f"bytes={m['bytes']} flops={flops} excess={m['excess']:.3f}")
over = [m["name"] for m in report.get("minimums", []) if m["excess"] > 2]
print(f"kernels over 2x their minimum: {len(over)} {' '.join(over)}")
