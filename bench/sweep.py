#!/usr/bin/env python3
"""The shape sweep: every axis class, width and length fastscan's users meet, at four sizes, each
timed as a share of a device copy of the same bytes in the same run (bench/probe.cu), then the
worst cases, the spread per (op, dtype) and one heat map per (op, dtype).

  python3 bench/sweep.py run [--probe build/bench/fastscan_probe] [--out DIR] [--quick]
  python3 bench/sweep.py report DIR/sweep.csv [--out DIR]

Cases: op in {cumsum, cummax}; dtype in {uint8, float16, bfloat16, float32, int64}; axis class
1-D [1, N, 1], rows [N / L, L, 1], columns along axis 0 [N / I, I] (the probe's [1, N / I, I]),
middle axis [64, L, N / (64 L)]; L and I over 1 - 8, odd numbers and primes, powers of two and
their neighbours up to 2^16; N in 2^20, 2^24, 2^26, 2^28 (--quick: 2^20 and 2^24). The probe runs
in chunks of cases, one process each, so a failure names its chunk.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
from pathlib import Path

OPS = ("cumsum", "cummax")
DTYPES = {"u8": "uint8", "f16": "float16", "bf16": "bfloat16", "f32": "float32", "i64": "int64"}
SIZES = (20, 24, 26, 28)
CLASSES = ("1-D", "rows", "columns", "middle")
LINE = re.compile(r"^(\w+) (\w+) \[(\d+),(\d+),(\d+)\] ([\d.]+) us  copy ([\d.]+) us  share of copy ([\d.]+)")


def extents():
    """Widths and lengths: 1 - 8, odd numbers and primes, powers of two and their neighbours."""
    values = set(range(1, 9)) | {17, 33, 127, 333, 1009}
    for k in range(4, 17):
        values |= {2**k - 1, 2**k, 2**k + 1}
    return sorted(values)


def cases(sizes):
    """(op, dtype, class, extent, log2 size, shape) for every case of the sweep."""
    for op in OPS:
        for dtype in DTYPES:
            for log2 in sizes:
                n = 2**log2
                yield op, dtype, "1-D", n, log2, (1, n, 1)
                for e in extents():
                    if e > n // 64:
                        continue
                    yield op, dtype, "rows", e, log2, (n // e, e, 1)
                    yield op, dtype, "columns", e, log2, (1, n // e, e)
                    yield op, dtype, "middle", e, log2, (64, e, n // (64 * e))


def run(args):
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = list(cases((20, 24) if args.quick else SIZES))
    rows = []
    env = dict(os.environ, PROBE_HOST="0")
    for start in range(0, len(todo), args.chunk):
        chunk = todo[start:start + args.chunk]
        argv = [args.probe] + [str(x) for c in chunk for x in (c[0], c[1], *c[5])]
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
        if done.returncode != 0:
            sys.exit(f"sweep: the probe failed on cases {start} - {start + len(chunk) - 1}: {done.stderr.strip()}")
        parsed = [LINE.match(line) for line in done.stdout.splitlines()]
        for case, m in zip(chunk, [m for m in parsed if m]):
            rows.append({"op": case[0], "dtype": DTYPES[case[1]], "class": case[2], "extent": case[3],
                         "log2_size": case[4], "shape": "x".join(map(str, case[5])), "us": float(m.group(6)),
                         "copy_us": float(m.group(7)), "share": float(m.group(8))})
        print(f"sweep: {len(rows)} of {len(todo)} cases", file=sys.stderr)
    path = out / "sweep.csv"
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    report(path, out)


def load(path):
    with open(path) as f:
        return [dict(r, extent=int(r["extent"]), log2_size=int(r["log2_size"]), share=float(r["share"]), us=float(r["us"]))
                for r in csv.DictReader(f)]


def report(path, out):
    rows = load(path)
    lines = ["| op | dtype | class | extent | 2^ | shape | us | share of copy |", "|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: r["share"])[:20]:
        lines.append(f"| {r['op']} | {r['dtype']} | {r['class']} | {r['extent']} | {r['log2_size']} | {r['shape']} | "
                     f"{r['us']:.1f} | {r['share']:.3f} |")
    at = 26 if any(r["log2_size"] == 26 for r in rows) else max(r["log2_size"] for r in rows)
    lines += ["", f"| op | dtype | worst | best | spread (worst / best time per byte), 2^{at} |", "|---|---|---|---|---|"]
    for op in OPS:
        for dtype in DTYPES.values():
            shares = [r["share"] for r in rows if r["op"] == op and r["dtype"] == dtype and r["log2_size"] == at]
            if shares:
                lines.append(f"| {op} | {dtype} | {min(shares):.3f} | {max(shares):.3f} | {max(shares) / min(shares):.2f}x |")
    text = "\n".join(lines) + "\n"
    (Path(out) / "sweep.md").write_text(text)
    print(text)
    heat_maps(rows, Path(out))


def heat_maps(rows, out):
    """One figure per (op, dtype): per axis class, extent (y) against size (x), coloured by share."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no heat maps: matplotlib missing)")
        return
    for op in OPS:
        for dtype in DTYPES.values():
            mine = [r for r in rows if r["op"] == op and r["dtype"] == dtype]
            if not mine:
                continue
            fig, axes = plt.subplots(1, 3, figsize=(13, 7), sharey=True)
            for ax, cls in zip(axes, CLASSES[1:]):
                sizes = sorted({r["log2_size"] for r in mine})
                ext = sorted({r["extent"] for r in mine if r["class"] == cls})
                grid = [[float("nan")] * len(sizes) for _ in ext]
                for r in mine:
                    if r["class"] == cls:
                        grid[ext.index(r["extent"])][sizes.index(r["log2_size"])] = r["share"]
                im = ax.imshow(grid, aspect="auto", cmap="RdYlGn", vmin=0.0, vmax=1.0, origin="lower")
                ax.set_xticks(range(len(sizes)), [f"2^{s}" for s in sizes])
                ax.set_yticks(range(len(ext)), [str(e) for e in ext], fontsize=6)
                ax.set_title(f"{cls} ({'width' if cls == 'columns' else 'length'})")
            one_d = {r["log2_size"]: r["share"] for r in mine if r["class"] == "1-D"}
            fig.suptitle(f"{op} {dtype}: share of a same-bytes copy; 1-D: " +
                         ", ".join(f"2^{k} {v:.2f}" for k, v in sorted(one_d.items())))
            fig.colorbar(im, ax=axes, shrink=0.8)
            fig.savefig(out / f"sweep-{op}-{dtype}.png", dpi=90)
            plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--probe", default="build/bench/fastscan_probe")
    r.add_argument("--out", default="build/sweep")
    r.add_argument("--quick", action="store_true")
    r.add_argument("--chunk", type=int, default=200)
    rep = sub.add_parser("report")
    rep.add_argument("csv")
    rep.add_argument("--out", default=None)
    args = p.parse_args()
    if args.cmd == "run":
        run(args)
    else:
        report(Path(args.csv), Path(args.out or Path(args.csv).parent))


if __name__ == "__main__":
    main()
