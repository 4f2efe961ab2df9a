#!/usr/bin/env python3
"""Turns `fastscan_bench --benchmark_list_tests=true` output into fastscan_probe arguments (OP TYPE
OUTER LEN INNER ...), so an A/B run (scripts/ab.sh) times exactly the benchmark's fastscan cases.
Cases the probe cannot run (bool inputs, sums into a wider type, the CUB baselines) are left out.

  python3 bench/probe_cases.py LIST_FILE [REGEX]
"""
import re
import sys

TYPES = {"uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "float16": "f16",
         "bfloat16": "bf16", "float32": "f32", "float64": "f64"}


def cases(lines, pattern=None):
    seen = []
    for line in lines:
        name = line.strip().split(" ")[0]
        if pattern and not re.search(pattern, name):
            continue
        m = re.search(r"/(cummax|cummin|cumsum)/([a-z0-9]+)(?:->([a-z0-9]+))?/\[(\d+),(\d+),(\d+)\]", name)
        if not m or m.group(2) not in TYPES or (m.group(3) and m.group(3) != m.group(2)):
            continue
        case = (m.group(1), TYPES[m.group(2)], m.group(4), m.group(5), m.group(6))
        if case not in seen:
            seen.append(case)
    return seen


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        found = cases(f, sys.argv[2] if len(sys.argv) > 2 else None)
    print(" ".join(" ".join(c) for c in found))
