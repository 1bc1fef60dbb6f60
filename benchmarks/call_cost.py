"""What a call costs around its kernels: ``resize()`` against a plan's call and a plan's
call into ``out=``, this tree against another, fresh processes alternating.

    python benchmarks/call_cost.py --base /path/to/other/src --repeat 3

One thread's CPU time (``time.thread_time_ns``, which other processes on busy cores
disturb least), calls in batches (3000 of the tiny calls, 300 of the image's), the
calls interleaved batch by batch; each figure is the least of ``--rounds`` batches in a
process, the table the median over the processes. ``num_threads=2`` where a row does
not say None (the latency group's setting; these calls run on one thread).
"""

import argparse
import pathlib
import statistics
import subprocess
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"

PROGRAM = r"""
import sys, time
import numpy as np
import cresize
rounds = int(sys.argv[1])
rng = np.random.default_rng(0)
x4 = rng.random((1, 1, 4, 4), dtype=np.float32)
x5 = rng.random((1, 1, 5, 4), dtype=np.float32)
x = rng.random((1, 3, 224, 224), dtype=np.float32)
hwc = np.ascontiguousarray(x[0].transpose(1, 2, 0))
p = cresize.plan(x4.shape, (8, 8), num_threads=2)
pn = cresize.plan(x4.shape, (8, 8))
q = cresize.plan(hwc.shape, (112, 112), axes=(0, 1), num_threads=2)
o4, out = np.empty(p.output_shape, np.float32), np.empty(q.output_shape, np.float32)
g4 = np.ones(p.output_shape, np.float32)
rs, rb = cresize.resize, cresize.resize_backward
calls = {
    "(1,1,4,4)->8x8 p(x)": (lambda: p(x4), 3000),
    "(1,1,4,4)->8x8 p(x), plan num_threads=None": (lambda: pn(x4), 3000),
    "(1,1,4,4)->8x8 resize()": (lambda: rs(x4, (8, 8), num_threads=2), 3000),
    "(1,1,4,4)->8x8 resize(), num_threads=None": (lambda: rs(x4, (8, 8)), 3000),
    "(1,1,4,4)->8x8 resize(out=)": (lambda: rs(x4, (8, 8), num_threads=2, out=o4), 3000),
    "(1,1,4,4)->8x8 resize_backward()": (lambda: rb(g4, x4.shape, num_threads=2), 3000),
    "two shapes alternating, resize() each": (
        lambda: (rs(x4, (8, 8), num_threads=2), rs(x5, (8, 8), num_threads=2)), 3000),
    "(224,224,3)->112² p(x, out)": (lambda: q(hwc, out), 300),
    "(224,224,3)->112² p(x)": (lambda: q(hwc), 300),
    "(224,224,3)->112² resize()": (
        lambda: rs(hwc, (112, 112), axes=(0, 1), num_threads=2), 300),
    "(224,224,3)->112² resize(), num_threads=None": (
        lambda: rs(hwc, (112, 112), axes=(0, 1)), 300),
    "(1,3,224,224)->112² resize()": (lambda: rs(x, (112, 112), num_threads=2), 300),
}
for f, _ in calls.values():
    f()
best = {name: float("inf") for name in calls}
names = list(calls)
for r in range(rounds):
    for name in names if r % 2 else names[::-1]:
        f, n = calls[name]
        t0 = time.thread_time_ns()
        for _ in range(n):
            f()
        best[name] = min(best[name], (time.thread_time_ns() - t0) / n / 1000)
for name in names:
    print(f"{best[name]:.3f}\t{name}")
"""


def one(src, rounds):
    env_code = f"import sys; sys.path.insert(0, {str(src)!r})\n" + PROGRAM
    proc = subprocess.run(
        [sys.executable, "-c", env_code, str(rounds)], capture_output=True, text=True, check=True
    )
    return dict(reversed(line.split("\t", 1)) for line in proc.stdout.splitlines())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="another tree's src (the other build)")
    parser.add_argument("--repeat", type=int, default=3, help="processes per build")
    parser.add_argument("--rounds", type=int, default=15, help="batches per call")
    args = parser.parse_args()
    trees = {"this": SRC} | ({"base": pathlib.Path(args.base)} if args.base else {})
    runs = {name: [] for name in trees}
    for _ in range(args.repeat):
        for name, src in trees.items():
            runs[name].append(one(src, args.rounds))
    calls = list(runs["this"][0])
    print("| call | " + " | ".join(f"{name} µs" for name in trees) + " |")
    print("|---|" + "---|" * len(trees))
    for call in calls:
        cells = [statistics.median(float(r[call]) for r in runs[name]) for name in trees]
        print(f"| {call} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
