"""ctest layering: the layer rules of ARCHITECTURE.md that reading the sources can check.
- device/ includes nothing from plan/ (kernels take their tuning as template arguments);
- no launch configuration or launch bound in the library or the torch package holds a number:
  block sizes, grid caps and blocks per SM come from policy.hpp or the plan (a single-thread
  launch, <<<1, 1>>>, aside).
Usage: layering.py REPO_ROOT"""
import pathlib
import re
import sys


def top_level_args(text):
    args, depth, current = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(current)
            current = ""
        else:
            current += ch
    return args + [current]


def problems(root):
    found = []
    for f in sorted((root / "include/fastscan/device").glob("*.cuh")):
        if "#include <fastscan/plan/" in f.read_text():
            found.append(f"{f.relative_to(root)}: includes a plan/ header")
    sources = [p for d in ("include", "python/csrc") for ext in ("*.cuh", "*.hpp", "*.cu", "*.cpp", "*.h")
               for p in (root / d).rglob(ext)]
    for f in sorted(sources):
        text = f.read_text()
        for m in re.finditer(r"<<<(.*?)>>>", text, re.S):
            grid, block = (a.strip() for a in top_level_args(m.group(1))[:2])
            if (grid, block) != ("1", "1") and re.search(r"\b\d+\b", grid + " " + block):
                found.append(f"{f.relative_to(root)}: launch <<<{grid}, {block}, ...>>> holds a number")
        for m in re.finditer(r"__launch_bounds__\(([^)]*)\)", text):
            if re.search(r"\b\d+\b", m.group(1)):
                found.append(f"{f.relative_to(root)}: __launch_bounds__({m.group(1)}) holds a number")
    return found


if __name__ == "__main__":
    bad = problems(pathlib.Path(sys.argv[1]))
    print("\n".join(bad) if bad else "layering: device/ includes no plan/ header; no launch literal")
    sys.exit(1 if bad else 0)
