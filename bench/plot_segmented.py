#!/usr/bin/env python3
"""The segmented benchmark as a plot: every row's bytes per second as a share of the pure read
measured in the same run (1.0 = reading the rows once at full speed), fastscan beside its peers,
one panel per table of fastscan_bench_segmented.

    plot_segmented.py bench-segmented.json out.png [bench-segmented-cub36.json]
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from summarize import median_rows  # noqa: E402

TABLES = (("sorted", "sorted keys, [2^23, C] features"), ("bev", "BEV pooling, [2^23, 64], 320000 cells"),
          ("scalar", "scalar rows (C = 1), int64, 2^28"))
PEERS = {"bevpoolv2_sorted", "bevpoolv2", "index_add", "cub_sort_pairs", "cub_max_by_key", "cub_sum_by_key",
         "cub_reduce_by_key", "cub_segmented_scan_max", "read"}


def rows_of(paths):
    """The first run's rows, and the rows only a later run has (the CUB 3.6 build's own peers)."""
    rows, seen = [], set()
    for path in paths:
        with open(path) as f:
            fresh = [b for b in median_rows(json.load(f)) if b["run_name"] not in seen]
        rows += fresh
        seen |= {b["run_name"] for b in fresh}
    return rows


def panel(ax, rows, table, title):
    """One bar a row of `table`, grouped by data set; peers hatched."""
    picked = [b for b in rows if b["run_name"].startswith(table + "/")]
    labels, values, peers = [], [], []
    for b in picked:
        _, op, dtype, shape, extra = b["run_name"].removesuffix("/manual_time").split("/", 4)
        labels.append(f"{op} {dtype} {shape} {extra}")
        values.append(b["read_frac"])
        peers.append(op in PEERS)
    y = range(len(labels))
    ax.barh(y, values, color=["0.75" if p else "tab:blue" for p in peers])
    ax.set_yticks(list(y), labels, fontsize=6)
    ax.invert_yaxis()
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("share of the pure read (blue: fastscan, grey: peers and the read itself)", fontsize=7)


def main(argv):
    rows = rows_of([argv[1]] + argv[3:])
    fig, axes = plt.subplots(len(TABLES), 1, figsize=(9, 14))
    for ax, (table, title) in zip(axes, TABLES):
        panel(ax, rows, table, title)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)


if __name__ == "__main__":
    main(sys.argv)
