"""Tiny plans' costs, this tree against another, fresh processes alternating: a held
plan's ``p(x)`` (the direct steps), a float16 plan's (the checked path), a new plan and
its first call, a new plan and its first ``p.backward``, and ``resize_backward`` of a new
plan (``clear_cache()`` before each: the tables, held by the first plan, are kept).

    python benchmarks/tiny_plans.py --base /path/to/other/src --repeat 5

64x64 -> 128x128 bicubic float32 (float16), one thread by default; each figure the
best of 5 ``timeit`` batches in a process, the table the median over the processes.
"""

import argparse
import pathlib
import statistics
import subprocess
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

PROGRAM = r"""
import timeit
import numpy as np
import cresize
x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
g = np.ones((128, 128), np.float32)
p = cresize.plan(x.shape, (128, 128), mode="bicubic")
p(x)
h = x.astype(np.float16)
q = cresize.plan(x.shape, (128, 128), mode="bicubic", dtype="float16")
q(h)
def fresh():
    cresize.clear_cache()
    cresize.plan(x.shape, (128, 128), mode="bicubic")(x)
def fresh_plan_backward():
    cresize.clear_cache()
    cresize.plan(x.shape, (128, 128), mode="bicubic").backward(g)
def fresh_backward():
    cresize.clear_cache()
    cresize.resize_backward(g, x.shape, mode="bicubic")
p.backward(g)  # (the transposed tables, kept as the tables are)
out = []
calls = ((lambda: p(x), 2000), (lambda: q(h), 500), (fresh, 50), (fresh_plan_backward, 50),
         (fresh_backward, 50))
for f, n in calls:
    out.append(min(timeit.repeat(f, number=n, repeat=5)) / n * 1e6)
print(*out)
"""

NAMES = (
    "held plan `p(x)`",
    "float16 plan `p(x)` (checked path)",
    "new plan and its first call",
    "new plan and its first `p.backward`",
    "`resize_backward`, new plan",
)


def once(src):
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr)
    return [float(v) for v in out.stdout.split()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=pathlib.Path, help="another tree's src, alternated")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    trees = {"base": args.base, "this": SRC} if args.base else {"this": SRC}
    runs = {name: [] for name in trees}
    for _ in range(args.repeat):
        for name, src in trees.items():
            runs[name].append(once(src))
    print("| call | " + " | ".join(trees) + " |")
    print("| --- |" + " --- |" * len(trees))
    for k, call in enumerate(NAMES):
        cells = []
        for got in runs.values():
            v = sorted(r[k] for r in got)
            cells.append(f"{statistics.median(v):.1f} µs ({v[0]:.1f}-{v[-1]:.1f})")
        print(f"| {call} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
