#!/usr/bin/env python3
"""The segmented issue's targets from fastscan_bench_segmented's JSON (--benchmark_out): each
target row with its measured ratio and whether it holds. A second JSON (the build against a newer
CUB) adds the DeviceSegmentedScan comparisons.

    segmented_summary.py bench-segmented.json [bench-segmented-cub36.json]
"""
import json
import sys

from summarize import median_rows


def load(path):
    with open(path) as f:
        return {b["run_name"].removesuffix("/manual_time"): b for b in median_rows(json.load(f))}


def parts(name):
    table, op, dtype, shape, extra = name.split("/", 4)
    return table, op, dtype, shape, extra


def same_data(rows, name, op):
    """The row of `op` on the same data as `name`."""
    table, _, dtype, shape, extra = parts(name)
    return rows.get("/".join((table, op, dtype, shape, extra)))


def targets(rows, cub36):
    out = []

    def check(label, value, limit, holds):
        out.append((label, value, limit, holds))

    for name, b in sorted(rows.items()):
        table, op, dtype, shape, extra = parts(name)
        label = f"{op} {dtype} {shape} {extra}"
        if table == "sorted" and op == "segment_sum":
            check(label, f"{b['read_frac']:.2f} of read", ">= 0.90", b["read_frac"] >= 0.90)
            peer = same_data(rows, name, "bevpoolv2_sorted")
            if peer:
                check(f"  vs BEVPoolv2 pool on sorted rows", f"{peer['real_time'] / b['real_time']:.2f}x", "(peer)", None)
        elif table == "sorted" and op == "segmented_cumsum":
            check(label, f"{b['copy_frac']:.2f} of copy", ">= 0.85", b["copy_frac"] >= 0.85)
        elif table == "scalar" and op == "segmented_max":
            check(label, f"{b['copy_frac']:.2f} of copy", ">= 0.80", b["copy_frac"] >= 0.80)
            for peer_op, source in (("cub_max_by_key", rows), ("cub_segmented_scan_max", cub36)):
                peer = same_data(source, name, peer_op)
                if peer:
                    speedup = peer["real_time"] / b["real_time"]
                    check(f"  vs {peer_op}", f"{speedup:.2f}x", "> 1", speedup > 1)
        elif table == "scalar" and op in ("segment_sum", "segmented_cumsum"):
            peer = same_data(rows, name, "cub_reduce_by_key" if op == "segment_sum" else "cub_sum_by_key")
            if peer:
                check(label + " vs CUB", f"{peer['real_time'] / b['real_time']:.2f}x", "(peer)", None)
        elif table == "bev" and op in ("bev_pool", "voxel_sum"):
            sort, read = same_data(rows, name, "cub_sort_pairs"), same_data(rows, name, "read")
            if sort and read:
                floor = sort["real_time"] + 1.1 * read["real_time"]
                check(label, f"{b['real_time']:.0f} us vs sort + 1.1 read {floor:.0f} us", "<=", b["real_time"] <= floor)
            peer = same_data(rows, name, "bevpoolv2")
            if peer:
                need = 1.2 if dtype == "float32" else 1.6
                speedup = peer["real_time"] / b["real_time"]
                check("  vs BEVPoolv2 pipeline", f"{speedup:.2f}x", f">= {need}", speedup >= need)
            atomics = same_data(rows, name, "index_add")
            if atomics:
                speedup = atomics["real_time"] / b["real_time"]
                check("  vs index_add_", f"{speedup:.2f}x", ">= 5", speedup >= 5)
        elif table == "bev" and op == "bev_pool_planned":
            check(label, f"{b['read_frac']:.2f} of read", ">= 0.90", b["read_frac"] >= 0.90)
        elif table == "bev" and op == "bev_pool_backward":
            check(label, f"{b['copy_frac']:.2f} of copy", ">= 0.85", b["copy_frac"] >= 0.85)
    return out


def main(argv):
    rows = load(argv[1])
    cub36 = load(argv[2]) if len(argv) > 2 else {}
    print("| case | measured | target | holds |")
    print("|---|---|---|---|")
    for label, value, limit, holds in targets(rows, cub36):
        mark = "" if holds is None else ("yes" if holds else "**no**")
        print(f"| {label} | {value} | {limit} | {mark} |")


if __name__ == "__main__":
    main(sys.argv)
