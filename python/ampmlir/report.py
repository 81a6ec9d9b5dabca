"""What the compiler decides for a model, as tables on the terminal: per
op (a layer), its precision and why, its output, the parameters it reads,
its forward FLOPs and the activation memory it adds, as torchinfo's
summary does for a torch module, then the totals.

    python -m ampmlir.report examples/mlp.mlir --compute-type=f16

The figures are amp-autocast's report (amp-opt --amp-autocast="report=...":
each decision, with the op's result, FLOPs and parameters) and
--amp-model-summary's totals.
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

from ._errors import AmpError
from ._tools import run_tool


def decisions(model, compute_type=None):
    """amp-autocast's report of ``model`` (a .mlir file) in
    ``compute_type`` (default: the pass's, f16): {"functions": [...]},
    each function with the "parameters" line of --amp-model-summary (its
    parameters counted once, however many ops read them)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "autocast.json"
        options = f"report={path}"
        if compute_type:
            options = f"compute-type={compute_type} " + options
        summary = run_tool("amp-opt", [str(model), f"--amp-autocast={options}",
                                       "--amp-model-summary", "-o",
                                       "/dev/null"])
        report = json.loads(path.read_text())
    parameters = {}
    name = None
    for line in summary.splitlines():
        if line.startswith("function @"):
            name = line[len("function @"):].strip()
        elif line.strip().startswith("parameters:") and name:
            parameters[name] = line.strip()[len("parameters:"):].strip()
    for function in report["functions"]:
        function["parameters"] = parameters.get(function["function"], "")
    return report


def _scaled(value, unit="", base=1000.0):
    """1234567 -> "1.23 M": figures read at a glance."""
    if value is None:
        return "-"
    prefixes = ["", "k", "M", "G", "T", "P"]
    scaled, index = float(value), 0
    while scaled >= base and index + 1 < len(prefixes):
        scaled /= base
        index += 1
    if base == 1024.0 and index:
        return f"{scaled:.1f} {'K' if index == 1 else prefixes[index]}i{unit}"
    return f"{scaled:.3g} {prefixes[index]}{unit}".rstrip() if index else \
        f"{value:,}{(' ' + unit) if unit else ''}"


def table(rows, headers):
    """Rows of strings as columns padded to their widest cell, the last
    column left as it is."""
    widths = [max(len(str(r[i])) for r in [headers] + rows)
              for i in range(len(headers) - 1)]
    lines = []
    for row in [headers] + rows:
        cells = [str(c).ljust(w) for c, w in zip(row, widths)]
        lines.append("  ".join(cells + [str(row[-1])]).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " +
                 "-" * len(headers[-1]))
    return "\n".join(lines)


def layer_rows(function, wide=False):
    """The table rows of one function of the report, in program order."""
    rows = []
    for op in function["ops"]:
        reason = op["reason"]
        if not wide and len(reason) > 60:
            reason = reason[:57] + "..."
        params = ", ".join(op.get("params", []))
        if params:
            params += f" ({op['param_elements']:,})"
        rows.append([op["op"], op["loc"], op.get("result", "-"),
                     op["type"], params or "-",
                     _scaled(op.get("flops"), "FLOP"),
                     _scaled(op.get("result_bytes", 0), "B", 1024.0), reason])
    return rows


HEADERS = ["op", "location", "output", "precision", "parameters",
           "forward FLOPs", "activations", "why"]


def render(report, wide=False):
    """The tables of every function of ``report``, as text."""
    parts = []
    for function in report["functions"]:
        ops = function["ops"]
        flops = sum(op["flops"] or 0 for op in ops)
        unknown = sum(op["flops"] is None for op in ops)
        params = sum(op.get("param_elements", 0) for op in ops)
        activations = sum(op.get("result_bytes", 0) for op in ops)
        parts.append(f"@{function['function']} in "
                     f"{function['compute_type']}: "
                     f"{function['summary']['line']}")
        parts.append(table(layer_rows(function, wide), HEADERS))
        casts = function.get("casts", [])
        total = (f"total: {len(ops)} ops, parameters "
                 f"{function.get('parameters') or f'{params:,} elements'}, "
                 f"forward {_scaled(flops, 'FLOP')}"
                 + (f" ({unknown} ops without a count)" if unknown else "")
                 + f", activations {_scaled(activations, 'B', 1024.0)}, "
                 f"{len(casts)} casts "
                 f"({_scaled(function['summary']['cast_bytes_per_step'], 'B', 1024.0)}"
                 " a step)")
        parts.append(total)
        parts.append("")
    return "\n".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m ampmlir.report",
        description="Per-op precision decisions, outputs, parameters, FLOPs "
                    "and activations of a model, as tables.")
    parser.add_argument("model", type=Path, help="the model (.mlir)")
    parser.add_argument("--compute-type",
                        help="f16 (the default), bf16 or f32")
    parser.add_argument("--wide", action="store_true",
                        help="the reasons in full, not cut at 60 characters")
    args = parser.parse_args(argv)
    try:
        if not args.model.is_file():
            raise AmpError(f"no model file at {args.model}")
        print(render(decisions(args.model, args.compute_type), args.wide),
              end="")
    except AmpError as error:
        print(f"report: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
