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


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/gpu-check/bench.json")
