"""One-axis resizes against the 2-D (or 3-D) resize containing them.

    python benchmarks/one_axis.py [--threads 1 2] [--repeat 7] [--only TEXT ...] [--cpu-time]

For each array (dtype x layout x mode), the resize of every axis alone and of all
of them run in the same process, rounds interleaved (``run.measure``); a ratio is
the one-axis median over the all-axes median (below 1: the one-axis resize is
cheaper, as it should be: it computes a part of the other's work). Enlarging
modes double each axis, ``area`` halves it; ``bwd`` rows time ``resize_backward``
of the same geometry. ``--cpu-time``: the least CPU time of the rounds (all the
process's threads) instead of the median wall time, as ``images.py --cpu-time``:
with one thread, a figure that other jobs on a shared machine disturb much less.
"""

import os
import sys

import numpy as np

import cresize

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import measure

#: layout -> (shape, spatial axes, axis names)
LAYOUTS = {
    "hwc": ((1024, 1024, 3), (0, 1), "hw"),
    "nhwc": ((4, 512, 512, 3), (1, 2), "hw"),
    "chw": ((3, 1024, 1024), (1, 2), "hw"),
    "hw": ((1024, 1024), (0, 1), "hw"),
    "dhwc": ((32, 128, 128, 3), (0, 1, 2), "dhw"),
}
MODES = ("nearest", "bilinear", "bicubic", "area")


def cases(only=()):
    for dtype in ("float32", "uint8"):
        for layout in LAYOUTS:
            for mode in MODES:
                for backward in (False, True) if dtype == "float32" else (False,):
                    label = f"{dtype} {layout} {mode}{' bwd' if backward else ''}"
                    if not only or any(text in label for text in only):
                        yield label, dtype, layout, mode, backward


def subsets(layout):
    """(name, axes) of every one-axis resize, the volume's two-axis one with H unchanged,
    and last the resize of all the spatial axes."""
    _, axes, names = LAYOUTS[layout]
    found = [(names[i], (a,)) for i, a in enumerate(axes)]
    if len(axes) == 3:
        found.append(("dw", (axes[0], axes[2])))
    found.append(("all", axes))
    return found


def runners(dtype, layout, mode, backward, threads):
    shape = LAYOUTS[layout][0]
    rng = np.random.default_rng(0)
    if dtype == "uint8":
        x = rng.integers(0, 256, shape, dtype=np.uint8)
    else:
        x = rng.uniform(0, 1, shape).astype(dtype)
    factor = 0.5 if mode == "area" else 2
    found = {}
    for name, axes in subsets(layout):
        size = tuple(int(shape[a] * factor) for a in axes)
        kw = dict(mode=mode, axes=axes, num_threads=threads)
        if backward:
            g = rng.uniform(0, 1, cresize.resize(x, size, **kw).shape).astype(dtype)
            found[name] = lambda g=g, kw=kw: cresize.resize_backward(g, shape, **kw)
        else:
            found[name] = lambda kw=kw, size=size: cresize.resize(x, size, **kw)
    return found


def run(threads, repeat, only=(), cpu_time=False):
    unit = "CPU ms" if cpu_time else "ms"
    lines = [
        f"| case ({threads} thread{'s' if threads > 1 else ''}) | all axes {unit} | one axis: "
        f"{unit} (ratio to all axes) |",
        "|---|---|---|",
    ]
    worst = 0.0
    for label, dtype, layout, mode, backward in cases(only):
        t = measure(runners(dtype, layout, mode, backward, threads), repeat, cpu_time)
        whole = t.pop("all")
        parts = []
        for name, seconds in t.items():
            parts.append(f"{name} {seconds * 1e3:.2f} ({seconds / whole:.2f})")
            worst = max(worst, seconds / whole)
        lines.append(f"| {label} | {whole * 1e3:.2f} | {', '.join(parts)} |")
    lines.append(f"\nLargest ratio one axis / all axes: {worst:.2f}")
    return "\n".join(lines)


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", nargs="+", default=(), metavar="TEXT")
    parser.add_argument("--cpu-time", action="store_true", help="least CPU time of the rounds")
    args = parser.parse_args(argv)
    for threads in args.threads:
        print(run(threads, args.repeat, args.only, args.cpu_time))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
