#!/usr/bin/env python3
"""Plots GB/s against the split R of fastscan_bench's split tables: 2^N elements (int64, or float32
for the tables named splitNf32) viewed as [R, 2^N / R] and scanned along axis -1 and along axis 0,
cummax and cumsum, with the copy bandwidth and CUB's 1-D InclusiveSum of the same type and run as
reference lines. One row of panels per table.

    python3 bench/plot_splits.py BENCH.json OUT.png    (needs matplotlib)
"""
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SPLIT = re.compile(r"^split(\d+)(f32)?/(axis-1|axis0)/(cummax|cumsum)/[^/]+/\[(\d+),(\d+),(\d+)\]")
AXES = ("axis-1", "axis0")


def medians(data):
    rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    return rows or [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]


def main(path, out):
    with open(path) as f:
        data = json.load(f)
    rows = medians(data)
    copy = None
    cub_sum = {}  # type -> GB/s of CUB's 1-D InclusiveSum
    series = {}  # (total_log, type, axis) -> {op: [(R, GB/s)]}
    for b in rows:
        name = b["run_name"].removesuffix("/manual_time")
        gbs = b["bytes_per_second"] / 1e9
        if copy is None and b.get("copy_frac"):
            copy = gbs / b["copy_frac"]
        for t in ("int64", "float32"):
            if name.startswith(f"1d/cub_sum/{t}/"):
                cub_sum[t] = gbs
        m = SPLIT.match(name)
        if m:
            total, t, axis, op = int(m[1]), "float32" if m[2] else "int64", m[3], m[4]
            outer, length = int(m[5]), int(m[6])
            r = outer if axis == "axis-1" else length  # [R, 2^N/R] along axis 0 is [1, R, 2^N/R]
            series.setdefault((total, t, axis), {}).setdefault(op, []).append((r, gbs))
    if not series:
        sys.exit(f"{path}: no split benchmarks")
    tables = sorted({k[:2] for k in series}, key=lambda k: (k[1] != "int64", k[0]))
    fig, axes = plt.subplots(len(tables), len(AXES), figsize=(5.5 * len(AXES), 4.2 * len(tables)), squeeze=False)
    for row, (total, t) in zip(axes, tables):
        for ax, axis in zip(row, AXES):
            points_of = series.get((total, t, axis))
            if not points_of:
                ax.set_visible(False)
                continue
            for op, points in sorted(points_of.items()):
                points.sort()
                ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"fastscan {op}")
            if copy:
                ax.axhline(copy, color="black", linestyle="--", linewidth=1, label=f"copy {copy:.0f} GB/s")
            if t in cub_sum:
                ax.axhline(cub_sum[t], color="gray", linestyle=":", linewidth=1.2,
                           label=f"CUB InclusiveSum 1-D 2^28 {t} {cub_sum[t]:.0f}")
            ax.set_xscale("log", base=2)
            ax.set_ylim(0, (copy or max(p[1] for s in points_of.values() for p in s)) * 1.1)
            ax.set_xlabel("R")
            ax.set_ylabel("GB/s (read + written)")
            ax.set_title(f"2^{total} {t} as [R, 2^{total}/R], scan along {axis.replace('axis', 'axis ')}")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8, loc="best")
    fig.suptitle(f"fastscan_bench, {data['context'].get('date', '')}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
