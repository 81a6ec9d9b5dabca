"""Checks that every option of the passes --amp-train-step runs is an option
of the pipeline under the same name (amp-loss-scaling's `mode` is
`loss-scaling` there), reading both lists from `amp-opt --help`.

  pipeline_options.py AMP_OPT
"""
import re
import subprocess
import sys

PASSES = ["amp-autocast", "amp-autodiff", "amp-loss-scaling", "amp-optimizer"]
RENAMED = {("amp-loss-scaling", "mode"): "loss-scaling"}


def main():
    text = subprocess.run([sys.argv[1], "--help"], capture_output=True,
                          text=True, check=True).stdout
    options = {}
    current = None
    for line in text.splitlines():
        header = re.match(r"^      --([\w-]+)\s", line)
        option = re.match(r"^        --([\w-]+)", line)
        if header:
            current = header.group(1)
            options[current] = set()
        elif option and current:
            options[current].add(option.group(1))
        else:
            current = None
    pipeline = options.get("amp-train-step", set())
    missing = 0
    count = 0
    for name in PASSES:
        if not options.get(name):
            print(f"no options found for --{name}")
            return 1
        for option in sorted(options[name]):
            count += 1
            spelled = RENAMED.get((name, option), option)
            if spelled not in pipeline:
                print(f"MISSING: --{name} option {option} is not an option "
                      f"of --amp-train-step")
                missing += 1
    print(f"{count - missing} of {count} options of {len(PASSES)} passes are "
          "options of --amp-train-step")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
