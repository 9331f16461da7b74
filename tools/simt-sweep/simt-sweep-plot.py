#!/usr/bin/python3
"""simt-sweep plot: the plots researchers expect, from a sweep's results.csv.

  line     a statistic against a parameter, one line per program
  speedup  speedup against a baseline value of a parameter, grouped bars
  stalls   stall-reason breakdown (columns PREFIX*), stacked bars

Each writes OUT.png and OUT.svg. Rows whose status is not "ok" are left out.
Run as `simt-sweep plot KIND CSV [options]` (Debian's /usr/bin/python3 with
python3-matplotlib). docs/sweeps.md.
"""

import argparse
import csv
import math
import sys

# Units by what a statistic's name says it counts, for the axis labels.
UNIT_SUFFIXES = [
    ("_us", "µs"),
    ("_ns", "ns"),
    ("_s", "s"),
    ("cycles", "cycles"),
    ("bytes", "bytes"),
    ("instructions_per_cycle", "instructions/cycle"),
    ("ipc", "instructions/cycle"),
    ("instructions", "instructions"),
    ("occupancy", "% of warp slots"),
    ("launches", "launches"),
]

META_COLUMNS = {"point", "program", "size", "status", "error", "exit_status", "wall_s"}


class PlotError(Exception):
    pass


def unit_of(stat, override):
    if override:
        return override
    leaf = stat.rsplit(".", 1)[-1]
    for suffix, unit in UNIT_SUFFIXES:
        if leaf.endswith(suffix):
            return unit
    return ""


def axis_label(stat, override):
    unit = unit_of(stat, override)
    return f"{stat} ({unit})" if unit else stat


def load(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = reader.fieldnames or []
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e.strerror}")
    if "status" not in columns or "program" not in columns:
        raise PlotError(f"{path}: not a simt-sweep results.csv (no program/status columns)")
    ok = [r for r in rows if r["status"] == "ok"]
    if not ok:
        raise PlotError(f"{path}: no point finished ok ({len(rows)} rows); nothing to plot")
    return columns, ok


def parameters_of(columns):
    """The parameter columns: between size and status."""
    return columns[columns.index("size") + 1:columns.index("status")]


def need_column(columns, name, what, path):
    if name not in columns:
        choices = ", ".join(c for c in columns if c not in META_COLUMNS) or "none"
        raise PlotError(f"{path}: no column '{name}' for the {what} (columns: {choices})")


def number(row, column):
    try:
        return float(row[column])
    except (TypeError, ValueError):
        return math.nan


def sort_key(value):
    try:
        return (0, float(value), "")
    except ValueError:
        return (1, 0.0, value)


def apply_filters(rows, filters, columns, path):
    for f in filters:
        if "=" not in f:
            raise PlotError(f"--where {f}: expected PARAMETER=VALUE")
        key, value = f.split("=", 1)
        need_column(columns, key, "--where", path)
        rows = [r for r in rows if r[key] == value]
    if not rows:
        raise PlotError(f"{path}: no ok row matches {' and '.join(filters)}")
    return rows


def series_key(row, program_column, others):
    """One series per program and combination of the other parameters."""
    parts = [row[program_column]] + [f"{o}={row[o]}" for o in others if row[o] != ""]
    return " ".join(parts)


def save(fig, out):
    import matplotlib.pyplot as plt
    fig.tight_layout()
    written = []
    for ext in ("png", "svg"):
        name = f"{out}.{ext}"
        fig.savefig(name, dpi=150)
        written.append(name)
    plt.close(fig)
    print("simt-sweep plot: wrote " + " and ".join(written))


def plot_line(args, columns, rows):
    import matplotlib.pyplot as plt
    need_column(columns, args.stat, "statistic (--stat)", args.csv)
    need_column(columns, args.param, "parameter (--param)", args.csv)
    others = [p for p in parameters_of(columns) if p != args.param and
              len({r[p] for r in rows}) > 1]
    series = {}
    for r in rows:
        series.setdefault(series_key(r, "program", others), []).append(r)
    xs_all = sorted({r[args.param] for r in rows}, key=sort_key)
    numeric_x = all(sort_key(x)[0] == 0 for x in xs_all)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, rs in sorted(series.items()):
        rs = sorted(rs, key=lambda r: sort_key(r[args.param]))
        xs = [float(r[args.param]) if numeric_x else xs_all.index(r[args.param]) for r in rs]
        ax.plot(xs, [number(r, args.stat) for r in rs], marker="o", label=name)
    if not numeric_x:
        ax.set_xticks(range(len(xs_all)), xs_all)
    ax.set_xlabel(args.param + (f" ({args.param_unit})" if args.param_unit else ""))
    ax.set_ylabel(axis_label(args.stat, args.unit))
    ax.set_title(args.title or f"{args.stat} against {args.param}")
    if args.logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    save(fig, args.out)


def plot_speedup(args, columns, rows):
    import matplotlib.pyplot as plt
    need_column(columns, args.stat, "statistic (--stat)", args.csv)
    need_column(columns, args.param, "parameter (--param)", args.csv)
    values = sorted({r[args.param] for r in rows}, key=sort_key)
    if args.baseline not in values:
        raise PlotError(f"--baseline {args.baseline}: no ok row has {args.param}={args.baseline} "
                        f"(values: {', '.join(values)})")
    others = [p for p in parameters_of(columns) if p != args.param and
              len({r[p] for r in rows}) > 1]
    groups, order = {}, {}
    for r in rows:
        name = series_key(r, "program", others)
        groups.setdefault(name, {})[r[args.param]] = number(r, args.stat)
        # By program, then by the other parameters' values (8 before 16).
        order[name] = (r["program"],) + tuple(sort_key(r[o]) for o in others)
    names = sorted(groups, key=order.get)
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(names) + 2), 4.5))
    width = 0.8 / len(values)
    for i, v in enumerate(values):
        heights = []
        for name in names:
            base, this = groups[name].get(args.baseline, math.nan), groups[name].get(v, math.nan)
            # Time-like statistics: lower is better, speedup = base / this.
            ratio = this / base if args.higher_is_better else base / this
            heights.append(ratio if this and base else math.nan)
        ax.bar([j + (i - (len(values) - 1) / 2) * width for j in range(len(names))], heights,
               width, label=f"{args.param}={v}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_ylabel(f"speedup over {args.param}={args.baseline} (×, from {args.stat})")
    ax.set_title(args.title or f"Speedup over {args.param}={args.baseline}")
    ax.legend(fontsize="small")
    save(fig, args.out)


def plot_stalls(args, columns, rows):
    import matplotlib.pyplot as plt
    need_column(columns, args.param, "parameter (--param)", args.csv)
    reasons = [c for c in columns if c.startswith(args.prefix)]
    if not reasons:
        raise PlotError(
            f"{args.csv}: no stall-reason columns (none starts with '{args.prefix}'). They come "
            "from the cycle timing model's statistics: run the sweep with a timing preset "
            "(base \"teaching\" or \"volta\") and list the stall counters in its statistics, "
            "or give their prefix with --prefix")
    bars = sorted(rows, key=lambda r: (r["program"], sort_key(r[args.param])))
    labels = [f"{r['program']}\n{args.param}={r[args.param]}" for r in bars]
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(bars) + 2), 5))
    bottoms = [0.0] * len(bars)
    for reason in reasons:
        values = []
        for i, r in enumerate(bars):
            total = sum(number(r, c) for c in reasons if not math.isnan(number(r, c)))
            v = number(r, reason)
            v = 0.0 if math.isnan(v) else v
            values.append(v / total if args.fraction and total else v)
        ax.bar(range(len(bars)), values, 0.7, bottom=bottoms, label=reason[len(args.prefix):])
        bottoms = [b + v for b, v in zip(bottoms, values)]
    ax.set_xticks(range(len(bars)), labels, rotation=45, ha="right", fontsize="small")
    ax.set_ylabel("fraction of stall cycles" if args.fraction else "stall cycles (cycles)")
    ax.set_title(args.title or f"Warp stall reasons by program and {args.param}")
    ax.legend(fontsize="small", bbox_to_anchor=(1.01, 1), loc="upper left")
    save(fig, args.out)


def main(argv):
    parser = argparse.ArgumentParser(prog="simt-sweep plot", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="kind", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("csv", help="the sweep's results.csv")
    common.add_argument("-o", "--out", required=True, help="output prefix: writes OUT.png, OUT.svg")
    common.add_argument("--title")
    common.add_argument("--where", action="append", default=[], metavar="PARAM=VALUE",
                        help="keep only rows with this parameter value (repeatable)")
    line = sub.add_parser("line", parents=[common], help="a statistic against a parameter")
    line.add_argument("--stat", required=True)
    line.add_argument("--param", required=True)
    line.add_argument("--unit", help="the statistic's unit (default: from its name)")
    line.add_argument("--param-unit", default="")
    line.add_argument("--logy", action="store_true")
    speed = sub.add_parser("speedup", parents=[common], help="speedup over a baseline point")
    speed.add_argument("--stat", required=True, help="a time-like statistic (lower is better)")
    speed.add_argument("--param", required=True)
    speed.add_argument("--baseline", required=True, help="the parameter's baseline value")
    speed.add_argument("--higher-is-better", action="store_true",
                       help="the statistic is a rate (IPC): speedup = this / baseline")
    stalls = sub.add_parser("stalls", parents=[common], help="stall-reason breakdown")
    stalls.add_argument("--param", required=True)
    stalls.add_argument("--prefix", default="stalls.",
                        help="columns starting with this are stall reasons (default stalls.)")
    stalls.add_argument("--fraction", action="store_true", help="normalise each bar to 1")
    args = parser.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        print("simt-sweep plot: matplotlib is missing: apt-get install python3-matplotlib "
              f"(running {sys.executable})", file=sys.stderr)
        return 2
    try:
        columns, rows = load(args.csv)
        rows = apply_filters(rows, args.where, columns, args.csv)
        {"line": plot_line, "speedup": plot_speedup, "stalls": plot_stalls}[args.kind](
            args, columns, rows)
    except PlotError as e:
        print(f"simt-sweep plot: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
