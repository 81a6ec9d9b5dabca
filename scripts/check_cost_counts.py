#!/usr/bin/env python3
"""Checks a step's cost report against the loads and stores its kernels made.

    amp-compile model.mlir --count-accesses --cost-report -o out
    AMP_STEP_ACCESS_LOG=out/accesses.jsonl amp-step out/libmodel.so model --steps=1
    scripts/check_cost_counts.py out/model.cost.json out/accesses.jsonl

The cost report derives each launch's bytes from the code the emitter
printed; a build with --count-accesses counts, while the same kernels run on
the host, the distinct elements each launch loads and stores
(amp_runtime/access_count.h). For every launch of a generated kernel (a
report entry with a functor) the counted bytes must equal the modeled ones.
Library and runtime calls (GEMMs, attention, multi-tensor updates) run code
the step does not contain, so they are listed as not counted.

Prints a line per launch (modeled and counted bytes, and loads per distinct
element read: above 1 where a kernel loads an element again, which caches
absorb and the report does not charge) and exits 1 on any difference, or if
the log's launches are not the report's, in the same order.
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="<name>.cost.json")
    parser.add_argument("log", help="the AMP_STEP_ACCESS_LOG of one step")
    args = parser.parse_args()
    with open(args.report) as f:
        kernels = json.load(f)["kernels"]
    with open(args.log) as f:
        counted = [json.loads(line) for line in f if line.strip()]

    generated = [k for k in kernels if k["functor"]]
    names = [k["name"] for k in generated]
    logged = [c["kernel"] for c in counted]
    if logged != names:
        sys.exit("the log's launches are not the report's generated ones:\n"
                 f"  report: {' '.join(names)}\n  log:    {' '.join(logged)}")

    # The log holds the generated launches in the report's order.
    logged = iter(counted)
    wrong = []
    for k in kernels:
        if not k["functor"]:
            print(f"{k['name']} {k['strategy']} not counted (library call)")
            continue
        c = next(logged)
        rereads = c["loads"] / c["elements_read"] if c["elements_read"] else 0
        same = (k["bytes_read"] == c["bytes_read"]
                and k["bytes_written"] == c["bytes_written"])
        print(f"{k['name']} {k['strategy']} "
              f"read={k['bytes_read']}/{c['bytes_read']} "
              f"written={k['bytes_written']}/{c['bytes_written']} "
              f"loads_per_element={rereads:.2f} {'ok' if same else 'DIFFERS'}")
        if not same:
            wrong.append(k["name"])
    print(f"{len(generated)} generated launches counted, "
          f"{len(kernels) - len(generated)} library calls not counted, "
          f"{len(wrong)} differ{': ' + ' '.join(wrong) if wrong else ''}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
