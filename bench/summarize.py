#!/usr/bin/env python3
"""Turns fastscan_bench's JSON (--benchmark_out) into a Markdown table of medians:
case, time, GB/s (decimal, read + written) and the fraction of the copy measured in the same run."""
import json
import sys


def main(path):
    with open(path) as f:
        data = json.load(f)
    rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    if not rows:  # a run without repetitions reports plain iterations
        rows = [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]
    print(f"run: {data['context']['date']}")
    print("| case | time (us) | GB/s | share of copy |")
    print("|---|---|---|---|")
    for b in rows:
        name = b["run_name"].removesuffix("/manual_time")
        print(f"| {name} | {b['real_time']:.4g} | {b['bytes_per_second'] / 1e9:.0f} | {b['copy_frac']:.3f} |")
    print_spreads(rows)


def print_spreads(rows):
    """Best and worst split of each split table (the core issue asks every split of 65536 elements
    within 2x of the best, of 2^24 within 1.5x), and the share of copy across the splits."""
    groups = {}
    for b in rows:
        parts = b["run_name"].removesuffix("/manual_time").split("/")
        if parts[0] in ("B", "C") and parts[1] in ("cummax", "cumsum"):
            key = ("65536 axis " + ("-1" if parts[0] == "B" else "0"), parts[1], 2.0)
        elif parts[0].startswith("split") and len(parts) >= 4:
            key = ("2^" + parts[0][5:] + " " + parts[1].replace("axis", "axis "), parts[2], 1.5 if parts[0] == "split24" else None)
        else:
            continue
        groups.setdefault(key, []).append((b["real_time"], b["copy_frac"], parts[-1]))
    if not groups:
        return
    print()
    print("| splits | op | best (us) | worst (us) | worst / best | limit | share of copy |")
    print("|---|---|---|---|---|---|---|")
    for (table, op, limit), cases in groups.items():
        best = min(cases)
        worst = max(cases)
        ratio = worst[0] / best[0]
        shares = [c[1] for c in cases]
        verdict = "-" if limit is None else f"{limit}x " + ("ok" if ratio <= limit else "over")
        print(f"| {table} | {op} | {best[0]:.4g} {best[2]} | {worst[0]:.4g} {worst[2]} | {ratio:.2f} | "
              f"{verdict} | {min(shares):.2f} - {max(shares):.2f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/gpu-check/bench.json")
