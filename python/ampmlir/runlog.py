"""Training logs: read one (JSON lines, as amp-step --log, Step.fit(log=)
and the demo write them), write it as CSV or as TensorBoard event files,
and draw one or several runs as a PNG.

    python -m ampmlir.runlog run.jsonl --plot run.png
    python -m ampmlir.runlog amp.jsonl fp32.jsonl --label "f16 AMP" \\
        --label fp32 --plot both.png
    python -m ampmlir.runlog run.jsonl --csv run.csv --tensorboard runs/a

A record holds "step" and "loss", and where the run has them "epoch",
"val_loss", "val_accuracy", "scale", "skipped", "lr", "steps_per_s" and
the parts of the loss the model returns by name. The picture has the
training and validation losses of every run, then, where a run has them,
its learning rate (where it changes) and its loss scale (where the run
scales its loss) with the steps it skipped marked.
"""
import argparse
import csv
import io
import json
import math
import sys
from pathlib import Path

from ._errors import AmpError
from ._files import write_atomically


def read(path):
    """The records of the log at ``path``, in order; a line that is no
    JSON object, or a record without "step", is an AmpError naming the
    line."""
    records = []
    with open(path) as log:
        for number, line in enumerate(log, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise AmpError(f"{path}:{number}: not a JSON record: "
                               f"{error.msg}") from None
            if not isinstance(record, dict) or "step" not in record:
                raise AmpError(f"{path}:{number}: a record of a training log "
                               f"is a JSON object with a \"step\"")
            records.append(record)
    return records


def columns(records):
    """The keys of ``records`` in the order they first appear."""
    seen = {}
    for record in records:
        for key in record:
            seen.setdefault(key, None)
    return list(seen)


def write_csv(records, path):
    """Writes ``records`` to ``path`` as CSV (atomically): one column per
    key, in the order the keys first appear, an empty cell where a record
    has no such value (val_loss between validations)."""
    keys = columns(records)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=keys, lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow({k: _csv_value(record.get(k, "")) for k in keys})
    write_atomically(path, text.getvalue().encode())


def _csv_value(value):
    # repr keeps every bit of a float; Python's own spellings of what JSON
    # cannot hold (nan, inf) read back with float().
    return repr(value) if isinstance(value, float) else value


def write_tensorboard(records, logdir):
    """Writes every number of ``records`` but the step and the epoch as a
    TensorBoard scalar at the record's step, into event files under
    ``logdir``. Needs TensorBoard's writer (the tensorboard package, through
    torch.utils.tensorboard, or tensorboardX): an optional dependency."""
    writer_class = None
    try:
        from torch.utils.tensorboard import SummaryWriter as writer_class
    except ImportError:
        try:
            from tensorboardX import SummaryWriter as writer_class
        except ImportError:
            pass
    if writer_class is None:
        raise AmpError("TensorBoard event files need TensorBoard's writer: "
                       "pip install tensorboard (with PyTorch) or tensorboardX")
    writer = writer_class(log_dir=str(logdir))
    try:
        for record in records:
            for key, value in record.items():
                if key in ("step", "epoch") or isinstance(value, bool) or \
                        not isinstance(value, (int, float)):
                    continue
                writer.add_scalar(key, value, global_step=int(record["step"]))
    finally:
        writer.close()


# Colours that stay apart for the colour-blind (ColorBrewer's RdBu and a
# green), and a dash pattern per run, so that a run drawn over another
# shows both.
_COLOURS = ("#d6604d", "#2166ac", "#1b7837", "#762a83", "#8c510a")
_DASHES = ("-", (0, (5, 2)), (0, (1, 1.5)), "-.", (0, (3, 1, 1, 1)))


def _series(records, key):
    points = [(r["step"], r[key]) for r in records
              if isinstance(r.get(key), (int, float))
              and not isinstance(r.get(key), bool)]
    return [p[0] for p in points], [p[1] for p in points]


def plot(runs, path, title=None):
    """Draws ``runs`` (a mapping of label to records, or one list of
    records) into the PNG ``path``: the training losses (lines) and the
    validation losses (dots joined) of every run; the learning rate where
    a run has one that changes; the loss scale where a run scales, its
    skipped steps marked. Returns False when matplotlib is missing."""
    if not isinstance(runs, dict):
        runs = {"run": runs}
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False

    def varies(records, key):
        return len(set(_series(records, key)[1])) > 1

    def scales(records):
        # A run without loss scaling reports a scale of 1 and skips nothing.
        return varies(records, "scale") or any(r.get("skipped")
                                               for r in records)

    panels = ["loss"]
    if any(varies(records, "lr") for records in runs.values()):
        panels.append("lr")
    if any(scales(records) for records in runs.values()):
        panels.append("scale")
    heights = {"loss": 3, "lr": 1, "scale": 1}
    figure, axes = plt.subplots(
        len(panels), 1, figsize=(8, 3 + 1.3 * (len(panels) - 1)), sharex=True,
        squeeze=False, gridspec_kw={"height_ratios": [heights[p] for p in panels]})
    axes = dict(zip(panels, axes[:, 0]))
    top = axes["loss"]
    positive = True
    for k, (label, records) in enumerate(runs.items()):
        colour, dash = _COLOURS[k % len(_COLOURS)], _DASHES[k % len(_DASHES)]
        steps, losses = _series(records, "loss")
        positive &= all(v > 0 for v in losses if math.isfinite(v))
        top.plot(steps, losses, color=colour, linestyle=dash, linewidth=1.3,
                 label=f"{label} training")
        val_steps, val = _series(records, "val_loss")
        if val:
            positive &= all(v > 0 for v in val if math.isfinite(v))
            top.plot(val_steps, val, color=colour, linestyle=dash,
                     linewidth=0.8, marker="o", markersize=4,
                     label=f"{label} validation")
        if "lr" in axes:
            axes["lr"].plot(*_series(records, "lr"), color=colour,
                            linestyle=dash, label=label)
        if "scale" in axes and scales(records):
            axes["scale"].step(*_series(records, "scale"), where="post",
                               color=colour, linestyle=dash, label=label)
            # A step is skipped where the count of skipped steps grows.
            grown = [(r["step"], r.get("scale")) for i, r in enumerate(records)
                     if r.get("skipped", 0) >
                     (records[i - 1].get("skipped", 0) if i else 0)]
            if grown:
                axes["scale"].scatter([s for s, _ in grown],
                                      [v for _, v in grown], marker="x",
                                      color="black", zorder=3,
                                      label=f"{label}: skipped steps")
    if positive:
        top.set_yscale("log")
    top.set_ylabel("loss")
    top.set_title(title or ", ".join(runs))
    top.legend(fontsize="small")
    top.grid(alpha=0.3)
    if "lr" in axes:
        axes["lr"].set_ylabel("learning rate")
        axes["lr"].grid(alpha=0.3)
    if "scale" in axes:
        axes["scale"].set_yscale("log", base=2)
        axes["scale"].set_ylabel("loss scale")
        axes["scale"].legend(fontsize="small")
        axes["scale"].grid(alpha=0.3)
    axes[panels[-1]].set_xlabel("step")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m ampmlir.runlog",
        description="Draws training logs as a PNG and writes them as CSV or "
                    "TensorBoard event files.")
    parser.add_argument("logs", nargs="+", type=Path,
                        help="training logs (JSON lines)")
    parser.add_argument("--label", action="append", default=[],
                        help="a run's name in the picture, one per log "
                             "(default: the log's file name)")
    parser.add_argument("--plot", type=Path, help="draw the runs into a PNG")
    parser.add_argument("--title", help="the picture's title")
    parser.add_argument("--csv", type=Path, help="write the (one) log as CSV")
    parser.add_argument("--tensorboard", type=Path,
                        help="write the (one) log as TensorBoard event files "
                             "into this directory")
    args = parser.parse_args(argv)
    try:
        if not (args.plot or args.csv or args.tensorboard):
            raise AmpError("nothing to do: give --plot, --csv or --tensorboard")
        if args.label and len(args.label) != len(args.logs):
            raise AmpError(f"{len(args.label)} --label for {len(args.logs)} "
                           f"logs: give one per log, or none")
        if (args.csv or args.tensorboard) and len(args.logs) != 1:
            raise AmpError("--csv and --tensorboard write one log")
        labels = args.label or [log.stem for log in args.logs]
        runs = {}
        for label, log in zip(labels, args.logs):
            if not log.is_file():
                raise AmpError(f"no log at {log}")
            runs[label] = read(log)
            if not runs[label]:
                raise AmpError(f"{log} holds no records")
        if args.csv:
            write_csv(runs[labels[0]], args.csv)
            print(f"wrote {args.csv}")
        if args.tensorboard:
            write_tensorboard(runs[labels[0]], args.tensorboard)
            print(f"wrote {args.tensorboard}")
        if args.plot:
            if not plot(runs, args.plot, args.title):
                raise AmpError("drawing needs matplotlib")
            print(f"wrote {args.plot}")
    except (AmpError, OSError) as error:
        print(f"runlog: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
