"""fastscan side by side with torch eager and torch.compile (inductor's own scan), on one GPU.

For every case it first asserts that fastscan equals torch (cummax / cummin values bitwise and
indices exactly, with ties and NaNs in the data; integer cumsum exactly; float cumsum within a
rounding bound of a float64 reference), then times torch eager, inductor and fastscan in this
process (CUDA events, a warm-up, the median of several trials of back-to-back calls) and prints a
Markdown table. The shapes are tables A - F of shared/context/paddle-cummax-issue.md and the large
shapes of shared/context/anchors-h200.md. Last, the operator's overhead over the library call alone.

    python bench/compare.py                   # everything (several minutes)
    python bench/compare.py --quick           # a few shapes and dtypes
    python bench/compare.py --markdown out.md --plot speedups.png
"""
import argparse
import statistics
import sys
import time

import torch

import fastscan

ALL_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
              torch.bfloat16, torch.float32, torch.float64]
MAIN_DTYPES = [torch.int64, torch.float32]
INT_VIEW = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def table_cases():
    """(op, shape, dim) of the issue's tables A - F (F is the dtype sweep of [1, 65536])."""
    cases = []
    for n in (16384, 32768, 65536, 131072, 262144):  # A: one row
        cases += [("cummax", (1, n), -1), ("cumsum", (1, n), -1)]
    for outer in (2, 4, 8, 16, 32, 64, 256, 1024):  # B: 65536 elements in rows
        cases += [("cummax", (outer, 65536 // outer), -1), ("cumsum", (outer, 65536 // outer), -1)]
    for outer, inner in ((65536, 1), (32768, 2), (8192, 8), (1024, 64), (128, 512)):  # C, E: along axis 0
        cases += [("cummax", (outer, inner), 0), ("cumsum", (outer, inner), 0)]
    for n in (16384, 32768, 65536, 131072):  # D: 1-D
        cases += [("cummax", (n,), 0), ("cummin", (n,), 0), ("cumsum", (n,), 0)]
    return cases


def large_cases():
    """The large shapes of the H200 anchors."""
    cases = []
    for op in ("cummax", "cummin", "cumsum"):
        cases += [(op, (16384, 16384), -1), (op, (16384, 16384), 0), (op, (2 ** 20, 64), -1), (op, (2 ** 20, 64), 0)]
    cases += [("cummax", (8, 2 ** 22), -1), ("cummax", (2 ** 18, 1), 0), ("cummax", (1, 2 ** 24), -1),
              ("cumsum", (1, 2 ** 26), -1), ("cumsum", (2 ** 28,), 0), ("cummax", (64, 4096, 256), 1),
              ("cumsum", (4096, 64, 256), 1)]
    return cases


def quick_cases():
    return [("cummax", (1, 65536), -1), ("cummax", (1024, 64), -1), ("cummax", (65536, 1), 0),
            ("cummin", (32768,), 0), ("cumsum", (1, 65536), -1), ("cumsum", (32768, 2), 0),
            ("cumsum", (16384, 16384), 0), ("cummax", (2 ** 20, 64), 0)]


# ---- data and checks

def sample(op, shape, dtype, seed=0):
    """Small integers (many ties) with NaNs in floating extremes; normal floats for cumsum."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g, device="cuda").bool()
    if op == "cumsum" and dtype.is_floating_point:
        return torch.randn(shape, generator=g, device="cuda").to(dtype)
    x = torch.randint(0 if dtype == torch.uint8 else -50, 50, shape, generator=g, device="cuda").to(dtype)
    if dtype.is_floating_point:
        x[torch.rand(shape, generator=g, device="cuda") < 1e-3] = float("nan")
    return x


def bits(t):
    return t.to(torch.uint8) if t.dtype == torch.bool else t.view(INT_VIEW[t.element_size()])


def check(op, x, dim):
    """'exact', or the largest error over its bound for float sums; raises on a mismatch."""
    ours = getattr(fastscan, op)(x, dim)
    if op != "cumsum":
        theirs = getattr(torch, op)(x, dim)
        if not (torch.equal(bits(ours.values), bits(theirs.values)) and torch.equal(ours.indices, theirs.indices)):
            raise AssertionError(f"{op} {tuple(x.shape)} dim {dim} {x.dtype}: values or indices differ from torch")
        return "exact"
    theirs = torch.cumsum(x, dim)
    if ours.dtype != theirs.dtype:
        raise AssertionError(f"cumsum {tuple(x.shape)} {x.dtype}: dtype {ours.dtype}, torch {theirs.dtype}")
    if not x.dtype.is_floating_point:
        if not torch.equal(ours, theirs):
            raise AssertionError(f"cumsum {tuple(x.shape)} dim {dim} {x.dtype}: differs from torch")
        return "exact"
    ref = torch.cumsum(x.double(), dim)
    scale = torch.cumsum(x.double().abs(), dim)
    bound = 64 * torch.finfo(x.dtype if x.dtype == torch.float64 else torch.float32).eps * scale
    if x.dtype.itemsize == 2:
        bound = bound + torch.finfo(x.dtype).eps * ref.abs()
    worst = float(((ours.double() - ref).abs() / (bound + 1e-300)).max())
    if worst > 1:
        raise AssertionError(f"cumsum {tuple(x.shape)} dim {dim} {x.dtype}: error {worst:.2f} x its bound")
    return f"{worst:.2f} of bound"


# ---- timing

def time_ms(fn, calls=20, trials=7, budget_s=1.5):
    """Median over trials of the per-call time of `calls` back-to-back calls (CUDA events)."""
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    one = max(start.elapsed_time(end), 1e-3)
    calls = max(1, min(calls, int(budget_s * 1e3 / (one * trials))))
    trials = max(3, min(trials, int(budget_s * 1e3 / (one * calls)) or 3))
    times = []
    for _ in range(trials):
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def run_case(op, shape, dim, dtype, inductor):
    x = sample(op, shape, dtype)
    status = check(op, x, dim)
    eager = getattr(torch, op)
    row = {"op": op, "shape": list(shape), "dim": dim, "dtype": str(dtype).replace("torch.", ""), "check": status}
    row["torch"] = time_ms(lambda: eager(x, dim))
    row["inductor"] = None
    if inductor:
        torch._dynamo.reset()
        compiled = torch.compile(lambda t: eager(t, dim), dynamic=False)
        row["inductor"] = time_ms(lambda: compiled(x))
    ours = getattr(fastscan, op)
    row["fastscan"] = time_ms(lambda: ours(x, dim))
    del x
    return row


def host_us(fn, iters):
    """Wall time to enqueue one call (fn makes `iters` calls), with the GPU drained first."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    t = time.perf_counter() - t0
    torch.cuda.synchronize()
    return t / iters * 1e6


def overhead(iters=200, trials=9):
    """The operator against the library call alone (the private op loops library calls into fixed
    buffers on the current stream), timed the same way in the same process: device time per call
    over back-to-back calls (CUDA events), and the host's time to enqueue one."""
    rows = []
    for shape, dtype in (((1, 65536), torch.int64), ((1024, 64), torch.int64), ((1024, 64), torch.float32)):
        x = sample("cummax", shape, dtype)
        values, indices = torch.empty_like(x), torch.empty(shape, dtype=torch.int64, device="cuda")
        raw = torch.ops.fastscan._cummax_raw_bench.default
        op = torch.ops.fastscan.cummax.default
        timed = {
            "library": lambda: raw(x, -1, values, indices, iters),
            "operator": lambda: [op(x, -1) for _ in range(iters)],  # torch.ops (what torch.compile calls)
            "fastscan.cummax": lambda: [fastscan.cummax(x, -1) for _ in range(iters)],
            "torch.cummax": lambda: [torch.cummax(x, -1) for _ in range(iters)],
            "torch.empty": lambda: [torch.empty(shape, dtype=dtype, device="cuda") for _ in range(iters)],
        }
        row = {"shape": list(shape), "dtype": str(dtype).replace("torch.", "")}
        for name, fn in timed.items():
            row[name] = time_ms(fn, calls=1, trials=trials, budget_s=30) / iters * 1e3  # us per call
            row["host " + name] = statistics.median(host_us(fn, iters) for _ in range(5))
        rows.append(row)
    return rows


def profile():
    x = sample("cummax", (1024, 64), torch.int64)
    for _ in range(20):
        fastscan.cummax(x, -1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for _ in range(200):
            fastscan.cummax(x, -1)
        torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))


# ---- output

def fmt(v, digits=4):
    return "-" if v is None else f"{v:.{digits}f}"


def markdown(rows, over):
    lines = ["| op | shape | dim | dtype | torch ms | inductor ms | fastscan ms | vs torch | vs inductor | check |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        vs_ind = None if r["inductor"] is None else r["inductor"] / r["fastscan"]
        lines.append(f"| {r['op']} | {r['shape']} | {r['dim']} | {r['dtype']} | {fmt(r['torch'])} | "
                     f"{fmt(r['inductor'])} | {fmt(r['fastscan'])} | {r['torch'] / r['fastscan']:.2f}x | "
                     f"{'-' if vs_ind is None else f'{vs_ind:.2f}x'} | {r['check']} |")
    slower = [r for r in rows if r["fastscan"] > r["torch"]]
    lines.append("")
    lines.append(f"{len(rows)} cases, all equal to torch; fastscan slower than torch eager in {len(slower)}: " +
                 (", ".join(f"{r['op']} {r['shape']} dim {r['dim']} {r['dtype']} "
                            f"({r['fastscan']:.4f} vs {r['torch']:.4f} ms)" for r in slower) or "none"))
    if over:
        names = ["library", "operator", "fastscan.cummax", "torch.cummax"]
        lines += ["", "Overhead, us per call: device time over back-to-back calls (CUDA events), and in brackets "
                  "the host's time to enqueue one call:", "",
                  "| shape | dtype | " + " | ".join(names) + " | fastscan.cummax - library | torch.empty (host) |",
                  "|---|---|" + "---:|" * (len(names) + 2)]
        for r in over:
            cells = " | ".join(f"{r[n]:.2f} ({r['host ' + n]:.2f})" for n in names)
            lines.append(f"| {r['shape']} | {r['dtype']} | {cells} | {r['fastscan.cummax'] - r['library']:+.2f} | "
                         f"{r['host torch.empty']:.2f} |")
    return "\n".join(lines)


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r['op']} {'x'.join(map(str, r['shape']))} d{r['dim']} {r['dtype']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(8, 0.16 * len(rows)), 5))
    pos = range(len(rows))
    ax.bar([p - 0.2 for p in pos], [r["torch"] / r["fastscan"] for r in rows], 0.4, label="vs torch eager")
    ax.bar([p + 0.2 for p in pos], [(r["inductor"] or float("nan")) / r["fastscan"] for r in rows], 0.4,
           label="vs torch.compile")
    ax.axhline(1, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("speedup of fastscan (x)")
    ax.set_xticks(list(pos))
    ax.set_xticklabels(labels, rotation=90, fontsize=5)
    ax.legend()
    ax.set_title(f"fastscan vs torch {torch.__version__} on {torch.cuda.get_device_name()}")
    fig.tight_layout()
    fig.savefig(path, dpi=150)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="a few shapes, int64 and float32")
    p.add_argument("--sections", default="tables,large,overhead", help="tables, large, overhead (comma separated)")
    p.add_argument("--ops", default="cummax,cummin,cumsum")
    p.add_argument("--dtypes", default=None, help="e.g. int64,float32 (default: all 10 on the tables, int64 and "
                   "float32 on the large shapes)")
    p.add_argument("--inductor-dtypes", default="int64,float32", help="dtypes that also time torch.compile "
                   "('all', or 'none')")
    p.add_argument("--markdown", metavar="FILE", help="also write the table here")
    p.add_argument("--plot", metavar="FILE", help="write a PNG of the speedups here (needs matplotlib)")
    p.add_argument("--profile", action="store_true", help="print torch.profiler's CPU breakdown of the operator")
    a = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("compare.py needs a CUDA GPU")

    def dtypes(default):
        return default if a.dtypes is None else [getattr(torch, n) for n in a.dtypes.split(",")]

    wanted_ops = set(a.ops.split(","))
    sections = set(a.sections.split(","))
    ind = ALL_DTYPES if a.inductor_dtypes == "all" else [] if a.inductor_dtypes == "none" else \
        [getattr(torch, n) for n in a.inductor_dtypes.split(",")]
    plan = []
    if a.quick:
        plan = [(c, dtypes(MAIN_DTYPES)) for c in quick_cases()]
        sections &= {"overhead"}
    if "tables" in sections:
        plan += [(c, dtypes(ALL_DTYPES)) for c in table_cases()]
    if "large" in sections:
        plan += [(c, dtypes(MAIN_DTYPES)) for c in large_cases()]
    print(f"torch {torch.__version__}, fastscan {fastscan.__version__}, {torch.cuda.get_device_name()}", flush=True)
    rows = []
    for (op, shape, dim), dts in plan:
        if op not in wanted_ops:
            continue
        for dtype in dts:
            rows.append(run_case(op, shape, dim, dtype, dtype in ind))
            r = rows[-1]
            print(f"{op:7} {str(r['shape']):18} dim {dim:2} {r['dtype']:9} torch {r['torch']:9.4f} "
                  f"inductor {fmt(r['inductor'], 4):>9} fastscan {r['fastscan']:8.4f} ms  {r['check']}", flush=True)
    over = overhead() if "overhead" in sections else []
    if a.profile:
        profile()
    text = markdown(rows, over)
    print()
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text + "\n")
    if a.plot and rows:
        plot(rows, a.plot)


if __name__ == "__main__":
    main()
