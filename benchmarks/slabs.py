"""Whole-array calls of dtypes computed in another dtype: in slabs against in one piece.

    python benchmarks/slabs.py [--threads 1] [--repeat 7] [--cpu-time] [--only TEXT ...]

float16 is computed in float32 and 32/64-bit integers in float64; such a call runs in
slabs of ``_plan.SLAB_BYTES`` of converted input and result, and at least one per
``_plan.MIN_SLAB_BYTES`` of converted input up to ``MOST_SLABS`` (docs/limits.md,
"Converted dtypes"). For each case, the same call in slabs and in one piece
(``SLAB_BYTES`` and ``MIN_SLAB_BYTES`` set past the array: the conversion of the
whole input, then of the whole result) in the same process, rounds interleaved (``run.measure``): the time
of each and the ratio slabs / whole (below 1: the slabs are faster), and the peak
memory of one call of each (``tracemalloc``, as ``run.py``'s memory table) next to
the result's size. Both give the same bits (checked here once per case).
"""

import os
import sys
import tracemalloc

import numpy as np

import cresize
from cresize import _plan

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import measure, options

#: label -> (input shape, dtype, resize keywords)
CASES = {
    "float16 (8,3,1024,1024) -> 2048² bilinear": (
        (8, 3, 1024, 1024),
        "float16",
        dict(size=(2048, 2048), mode="bilinear"),
    ),
    "int32 (16,512,512) -> 1024² bilinear": (
        (16, 512, 512),
        "int32",
        dict(size=(1024, 1024), mode="bilinear", axes=(1, 2)),
    ),
    "float16 HWC (2048,2048,3) -> 1024² bicubic": (
        (2048, 2048, 3),
        "float16",
        dict(size=(1024, 1024), mode="bicubic", axes=(0, 1)),
    ),
    "uint64 (4096,4096) -> 6144² bicubic": (
        (4096, 4096),
        "uint64",
        dict(size=(6144, 6144), mode="bicubic"),
    ),
    "float16 (4096,4096) -> 512² lanczos3 antialias": (
        (4096, 4096),
        "float16",
        dict(size=(512, 512), mode="lanczos3", antialias=True),
    ),
    "float16 (64,3,128,128) -> 256² bicubic": (
        (64, 3, 128, 128),
        "float16",
        dict(size=(256, 256), mode="bicubic"),
    ),
    "int64 (10**6,) -> 1.5x bilinear": ((10**6,), "int64", dict(size=(15 * 10**5,))),
}

WHOLE = (2**62, 2**62)


def _input(shape, dtype):
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind == "f":
        return rng.uniform(-1, 1, shape).astype(dtype)
    return rng.integers(0, 2**20, shape).astype(dtype)


def _peak(call):
    tracemalloc.start()
    result = call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, peak


def run(threads, repeat, cpu_time=False, only=()):
    lines = [
        "| case | slabs / whole (time) | returns MiB | peak MiB slabs | peak MiB whole |",
        "|---|---|---|---|---|",
    ]
    budget = (_plan.SLAB_BYTES, _plan.MIN_SLAB_BYTES)
    for label, (shape, dtype, kw) in CASES.items():
        if only and not any(text in label for text in only):
            continue
        x = _input(shape, dtype)

        def call(slab_bytes, x=x, kw=kw):
            _plan.SLAB_BYTES, _plan.MIN_SLAB_BYTES = slab_bytes
            try:
                return cresize.resize(x, num_threads=threads, **kw)
            finally:
                _plan.SLAB_BYTES, _plan.MIN_SLAB_BYTES = budget

        call(budget)  # the plan and its tables made before measuring
        slabs, peak_slabs = _peak(lambda: call(budget))
        whole, peak_whole = _peak(lambda: call(WHOLE))
        assert np.array_equal(slabs.view(np.uint8), whole.view(np.uint8)), label
        nbytes = whole.nbytes
        del slabs, whole
        t = measure({"slabs": lambda: call(budget), "whole": lambda: call(WHOLE)}, repeat, cpu_time)
        lines.append(
            f"| {label} | {t['slabs'] / t['whole']:.2f} ({t['slabs'] * 1e3:.0f} / "
            f"{t['whole'] * 1e3:.0f} ms) | {nbytes / 2**20:.0f} | {peak_slabs / 2**20:.0f} "
            f"| {peak_whole / 2**20:.0f} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = options(__doc__, repeat=5)
    parser.set_defaults(threads=1)
    parser.add_argument("--only", nargs="*", default=(), help="cases whose label holds TEXT")
    args = parser.parse_args(argv)
    print(run(args.threads, args.repeat, args.cpu_time, args.only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
