"""Starts N copies of a command as torchrun starts a job's processes,
without MPI: each with RANK, LOCAL_RANK (r), WORLD_SIZE and
LOCAL_WORLD_SIZE (N) in its environment, all at once. Waits for every one,
then prints each rank's standard error, each line after "rank R: ", and
"rank R: exit STATUS"; exits with status 1 unless every rank exited with 0.

usage: launch_ranks.py N [NAME=VALUE]... -- COMMAND [ARG]...
(NAME=VALUE: more variables for every rank.)
"""

import os
import subprocess
import sys


def main(argv):
    if "--" not in argv or len(argv) < 3:
        sys.exit(__doc__)
    split = argv.index("--")
    size, variables, command = int(argv[1]), argv[2:split], argv[split + 1:]
    if size < 1 or not command:
        sys.exit(__doc__)
    extra = dict(v.split("=", 1) for v in variables)
    ranks = []
    for rank in range(size):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank),
                   WORLD_SIZE=str(size), LOCAL_WORLD_SIZE=str(size), **extra)
        ranks.append(subprocess.Popen(command, env=env,
                                      stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True))
    failed = False
    for rank, process in enumerate(ranks):
        _, errors = process.communicate()
        for line in errors.splitlines():
            print(f"rank {rank}: {line}")
        print(f"rank {rank}: exit {process.returncode}")
        failed |= process.returncode != 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv)
