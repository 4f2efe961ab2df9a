#!/usr/bin/env python3
"""Headline rows of a fastscan_bench run, one CSV line per case, for results/headlines.csv.

  headlines.py VERSION RUN.json [RUN.md]  >> results/headlines.csv   append one version
  headlines.py --header                                              print the CSV header
  headlines.py --pivot REGEX [results/headlines.csv]                 versions x matching cases (share of copy)

A run is read from its JSON (--benchmark_out) or from summarize.py's Markdown table, or both (the
JSON's values first). copy_gbps is the run's copy, the denominator of share_of_copy; `detail` names
the split of a split table's best or worst row."""
import csv
import json
import re
import sys

HEADER = ["version", "date", "copy_gbps", "case", "us", "share_of_copy", "detail"]

N28 = "[1,268435456,1]"
CASES = [
    f"1d/cumsum/int64->int64/{N28}",
    f"1d/cumsum/float32->float32/{N28}",
    f"1d/cummax/int64/{N28}",
    f"1d/cummax/float32/{N28}",
    "1d/cub_sum/int64/268435456",
    "1d/cub_sum/float32/268435456",
    "1d/cub_pair_max/int64/268435456",
    "1d/cub_pair_max/float32/268435456",
    "A/cummax/int64/[1,65536,1]",
    "A/cumsum/int64->int64/[1,65536,1]",
    "A/cub_pair_max/int64/65536",
    "A/cub_sum/int64/65536",
    "3d/cummax/int64/[64,4096,256]",
    "3d/cumsum/int64->int64/[64,4096,256]",
    "3d/cummax/int64/[4096,64,256]",
    "3d/cumsum/int64->int64/[4096,64,256]",
    "types/cumsum/uint8->uint8/[1,67108864,1]",
    "types/cumsum/int16->int16/[1,67108864,1]",
    "types/cummax/int8/[1,67108864,1]",
    "narrow/cumsum/float32->float32/[1,22369621,3]",
    "narrow/cummax/float32/[1,22369621,3]",
]
# Split tables: 2^N elements as [R, 2^N / R] for R = 4^0 ... 4^(N/2), so N/2 + 1 splits per axis.
SPLITS = {"split24": 13, "split26": 14, "split26f32": 14}


def read_json(path):
    with open(path) as f:
        data = json.load(f)
    rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    if not rows:
        rows = [b for b in data["benchmarks"] if b.get("run_type") == "iteration"]
    cases = {b["run_name"].removesuffix("/manual_time"): (b["real_time"], b["copy_frac"], b["bytes_per_second"])
             for b in rows}
    copy = cases.get("copy/2GiB")
    return data["context"]["date"][:10], (copy[2] / copy[1] / 1e9 if copy else None), cases


def read_md(path):
    date, copy, cases = None, None, {}
    with open(path) as f:
        for line in f:
            if line.startswith("run: "):
                date = line[5:15]
            m = re.search(r"median of 15\): (\d+) GB/s", line)
            if m:
                copy = float(m.group(1))
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("| ") and "/" in cells[0] and len(cells) in (3, 4):
                try:
                    us, share = float(cells[1]), float(cells[-1])
                except ValueError:
                    continue
                gbps = float(cells[2]) * 1e9 if len(cells) == 4 else None
                cases.setdefault(cells[0], (us, share, gbps))
    if copy is None and cases.get("copy/2GiB", (0, 0, None))[2]:  # no device line: from the copy row
        us, share, gbps = cases["copy/2GiB"]
        copy = gbps / share / 1e9
    if date is None:
        m = re.search(r"(\d{4}-\d{2}-\d{2})", path)
        date = m.group(1) if m else ""
    return date, copy, cases


def headline_rows(version, paths):
    date, copy, cases = None, None, {}
    for path in paths:
        d, c, cs = read_json(path) if path.endswith(".json") else read_md(path)
        date, copy = date or d, copy or c
        for name, value in cs.items():
            cases.setdefault(name, value)
    out = []

    def row(case, value, detail=""):
        us, share, _ = value
        out.append([version, date, f"{copy:.0f}" if copy else "", case, f"{float(f'{us:.4g}'):g}", f"{share:.3f}", detail])

    for case in CASES:
        if case in cases:
            row(case, cases[case])
    for table, count in SPLITS.items():
        for axis in ("axis-1", "axis0"):
            for op in ("cummax", "cumsum"):
                split = {n.rsplit("/", 1)[1]: v for n, v in cases.items() if n.startswith(f"{table}/{axis}/{op}/")}
                if len(split) == count:  # complete tables only
                    worst = max(split, key=lambda s: split[s][0])
                    best = min(split, key=lambda s: split[s][0])
                    row(f"{table}/{axis}/{op}/worst", split[worst], worst)
                    row(f"{table}/{axis}/{op}/best", split[best], best)
    return out


def pivot(pattern, path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if re.search(pattern, r["case"])]
    cases = list(dict.fromkeys(r["case"] for r in rows))
    versions = list(dict.fromkeys(r["version"] for r in rows))
    cell = {(r["version"], r["case"]): r["share_of_copy"] for r in rows}
    print("| version | " + " | ".join(cases) + " |")
    print("|---" * (len(cases) + 1) + "|")
    for v in versions:
        print(f"| {v} | " + " | ".join(cell.get((v, c), "") for c in cases) + " |")


def main(argv):
    if argv[:1] == ["--header"]:
        csv.writer(sys.stdout, lineterminator="\n").writerow(HEADER)
    elif argv[:1] == ["--pivot"] and len(argv) >= 2:
        pivot(argv[1], argv[2] if len(argv) > 2 else "bench/results/headlines.csv")
    elif len(argv) >= 2:
        csv.writer(sys.stdout, lineterminator="\n").writerows(headline_rows(argv[0], argv[1:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
