#!/usr/bin/env python3
"""Plots GB/s against the split R of fastscan_bench's split tables: 2^N int64 elements viewed as
[R, 2^N / R] and scanned along axis -1 and along axis 0, cummax and cumsum, with the copy bandwidth
and CUB's 1-D InclusiveSum of the same run as reference lines.

    python3 bench/plot_splits.py BENCH.json OUT.png    (needs matplotlib)
"""
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SPLIT = re.compile(r"^split(\d+)/(axis-1|axis0)/(cummax|cumsum)/[^/]+/\[(\d+),(\d+),(\d+)\]")


def medians(data):
    rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    return rows or [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]


def main(path, out):
    with open(path) as f:
        data = json.load(f)
    rows = medians(data)
    copy = cub_sum = None
    series = {}  # (total_log, axis) -> {op: [(R, GB/s)]}
    for b in rows:
        name = b["run_name"].removesuffix("/manual_time")
        gbs = b["bytes_per_second"] / 1e9
        if copy is None and b.get("copy_frac"):
            copy = gbs / b["copy_frac"]
        if name.startswith("1d/cub_sum/int64/"):
            cub_sum = gbs
        m = SPLIT.match(name)
        if m:
            total, axis, op = int(m[1]), m[2], m[3]
            outer, length = int(m[4]), int(m[5])
            r = outer if axis == "axis-1" else length  # [R, 2^N/R] along axis 0 is [1, R, 2^N/R]
            series.setdefault((total, axis), {}).setdefault(op, []).append((r, gbs))
    if not series:
        sys.exit(f"{path}: no split benchmarks")
    keys = sorted(series)
    fig, axes = plt.subplots(1, len(keys), figsize=(5.5 * len(keys), 4.2), squeeze=False)
    for ax, key in zip(axes[0], keys):
        total, axis = key
        for op, points in sorted(series[key].items()):
            points.sort()
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"fastscan {op}")
        if copy:
            ax.axhline(copy, color="black", linestyle="--", linewidth=1, label=f"copy {copy:.0f} GB/s")
        if cub_sum:
            ax.axhline(cub_sum, color="gray", linestyle=":", linewidth=1.2, label=f"CUB InclusiveSum 1-D 2^28 {cub_sum:.0f}")
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, (copy or max(p[1] for s in series[key].values() for p in s)) * 1.1)
        ax.set_xlabel("R")
        ax.set_ylabel("GB/s (read + written)")
        ax.set_title(f"2^{total} int64 as [R, 2^{total}/R], scan along {axis.replace('axis', 'axis ')}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="best")
    fig.suptitle(f"fastscan_bench, {data['context'].get('date', '')}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
