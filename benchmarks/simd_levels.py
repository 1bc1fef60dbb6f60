"""Which SIMD level is fastest on this CPU, loop family by loop family.

    PYTHONPATH=src python benchmarks/simd_levels.py [--repeat 9] [--cases TEXT,...]
        [--levels none,avx2,avx512]

Each case is one plan call (``Plan.__call__`` or ``Plan.backward`` into ``out=``, one
thread) chosen to run one family of loops that has an AVX-512 form (the sums of whole
rows, their fused 8/16-bit stores, periodic rows, the 2x2 pair rows of float32 and
8-bit pixels, the float32 2x2 weighted sums and sums of weight 1, the 16-bit paths),
float32, uint8 and uint16, planar (NCHW) and channels last, enlarging and shrinking,
bilinear, bicubic, area, lanczos3 with antialias. Every level the CPU has among
``--levels`` runs every case, switched in one process (``CRESIZE_SIMD`` then
``_kernels._init_simd()``): each round times one batch of calls per level, the levels'
order rotating round by round, in CPU time (``time.thread_time``: the calling
thread's, which runs a one-thread call; NumPy's BLAS threads spin in others). The bits
of every level are checked equal first.

The ``loops`` column names the loops that took most of the call's ``perf`` samples at the
avx512 level on the machine of RESULTS-simd-levels.md ("avx2 only": a family without an
AVX-512 form, which runs its AVX2 loop at both levels; "portable": the C loops of
_kernels.pyx); other shapes, or rows shorter than ``CRESIZE_WIDE_ROW`` (_simd_rows.h),
may take other loops. The table gives the median and the least per-call time of the
rounds at each level, then ``avx2/avx512`` (above 1: the AVX-512 loops are faster) and
``none/avx2`` (above 1: AVX2 beats the portable loops), both from the medians;
``least`` is the ratio of the least times. On a shared machine only ratios measured in one run compare; repeat a
run before trusting a ratio within 5-10% of 1.
"""

import argparse
import os
import platform
import statistics
import time

import numpy as np

import cresize
from cresize import _kernels

#: name: (family, input shape, plan arguments, "fwd" or "bwd")
CASES = {
    "f32-nchw-up2-bilinear": (
        "value lanes f32 (avx2 only), whole-row sums f32",
        ("float32", (1, 3, 256, 256)),
        dict(size=(512, 512), mode="bilinear"),
        "fwd",
    ),
    "f32-nchw-up2-bicubic": (
        "value lanes f32 (avx2 only), whole-row sums f32",
        ("float32", (1, 3, 256, 256)),
        dict(size=(512, 512), mode="bicubic"),
        "fwd",
    ),
    "f32-nchw-down-aa": (
        "portable rows, whole-row sums f32",
        ("float32", (1, 3, 512, 512)),
        dict(size=(160, 160), mode="bicubic", antialias=True),
        "fwd",
    ),
    "f32-nchw-down2-bilinear": (
        "2x2 weighted sums f32 (1 value)",
        ("float32", (1, 8, 256, 256)),
        dict(size=(128, 128), mode="bilinear"),
        "fwd",
    ),
    "f32-nchw-down2-area": (
        "2x2 weighted sums f32 (1 value)",
        ("float32", (1, 8, 256, 256)),
        dict(size=(128, 128), mode="area"),
        "fwd",
    ),
    "f32-nchw-down3-area": (
        "portable rows, whole-row sums f32 (3 taps)",
        ("float32", (1, 8, 258, 258)),
        dict(size=(86, 86), mode="area"),
        "fwd",
    ),
    "f32-nchw-nearest-bwd2": (
        "2x2 sums of weight 1 f32",
        ("float32", (4, 64, 56, 56)),
        dict(size=(112, 112), mode="nearest"),
        "bwd",
    ),
    "f32-nchw-bilinear-bwd2": (
        "value lanes f32 (avx2 only), whole-row sums f32",
        ("float32", (4, 64, 56, 56)),
        dict(size=(112, 112), mode="bilinear"),
        "bwd",
    ),
    "f32-hwc3-down2-bilinear": (
        "2x2 pair rows f32 (3 values)",
        ("float32", (224, 224, 3)),
        dict(size=(112, 112), mode="bilinear", axes=(0, 1)),
        "fwd",
    ),
    "f32-hwc4-down2-bilinear": (
        "2x2 pair rows f32 (4 values)",
        ("float32", (224, 224, 4)),
        dict(size=(112, 112), mode="bilinear", axes=(0, 1)),
        "fwd",
    ),
    "f32-hwc2-down2-area": (
        "2x2 pair rows f32 (2 values)",
        ("float32", (224, 224, 2)),
        dict(size=(112, 112), mode="area", axes=(0, 1)),
        "fwd",
    ),
    "f32-hwc3-up2-bicubic": (
        "periodic rows f32, whole-row sums f32",
        ("float32", (256, 256, 3)),
        dict(size=(512, 512), mode="bicubic", axes=(0, 1)),
        "fwd",
    ),
    "u8-hwc3-down2-bilinear": (
        "2x2 pair rows u8 (3 values)",
        ("uint8", (224, 224, 3)),
        dict(size=(112, 112), mode="bilinear", axes=(0, 1)),
        "fwd",
    ),
    "u8-hwc4-down2-bilinear": (
        "2x2 pair rows u8 (4 values)",
        ("uint8", (224, 224, 4)),
        dict(size=(112, 112), mode="bilinear", axes=(0, 1)),
        "fwd",
    ),
    "u8-hwc3-up2-bicubic": (
        "periodic rows u8, fused u8 stores",
        ("uint8", (256, 256, 3)),
        dict(size=(512, 512), mode="bicubic", axes=(0, 1)),
        "fwd",
    ),
    "u8-hwc3-down-aa-lanczos3": (
        "sse pixels u8, whole-row sums of u8",
        ("uint8", (512, 512, 3)),
        dict(size=(138, 138), mode="lanczos3", antialias=True, axes=(0, 1)),
        "fwd",
    ),
    "u8-nchw-up2-bilinear": (
        "value lanes u8 (avx2 only), fused u8 stores",
        ("uint8", (3, 256, 256)),
        dict(size=(512, 512), mode="bilinear", axes=(1, 2)),
        "fwd",
    ),
    "u8-nchw-down-aa-bicubic": (
        "portable rows, whole-row sums of u8",
        ("uint8", (3, 512, 512)),
        dict(size=(180, 180), mode="bicubic", antialias=True, axes=(1, 2)),
        "fwd",
    ),
    "u8-nchw-short-up2-bilinear": (
        "value lanes u8 (avx2 only), fused u8 stores (rows of 112)",
        ("uint8", (64, 56, 56)),
        dict(size=(112, 112), mode="bilinear", axes=(1, 2)),
        "fwd",
    ),
    "u16-nchw-short-up2-bicubic": (
        "value lanes u16 (avx2 only), fused u16 stores (rows of 112)",
        ("uint16", (64, 56, 56)),
        dict(size=(112, 112), mode="bicubic", axes=(1, 2)),
        "fwd",
    ),
    "u16-hwc3-up2-bicubic": (
        "periodic rows u16 (float32 sums), fused u16 stores",
        ("uint16", (256, 256, 3)),
        dict(size=(512, 512), mode="bicubic", axes=(0, 1)),
        "fwd",
    ),
    "u16-hwc3-up2-lanczos3": (
        "periodic rows u16 (float64), fused u16 stores",
        ("uint16", (256, 256, 3)),
        dict(size=(512, 512), mode="lanczos3", axes=(0, 1)),
        "fwd",
    ),
    "u16-hwc3-down-aa-bicubic": (
        "pixels f64 (avx2 only), whole-row sums of u16",
        ("uint16", (512, 512, 3)),
        dict(size=(180, 180), mode="bicubic", antialias=True, axes=(0, 1)),
        "fwd",
    ),
    "u16-nchw-down-aa-bilinear": (
        "portable rows, whole-row sums of u16",
        ("uint16", (3, 512, 512)),
        dict(size=(200, 200), mode="bilinear", antialias=True, axes=(1, 2)),
        "fwd",
    ),
    "f64-hwc3-up2-bicubic": (
        "periodic rows f64, whole-row sums f64",
        ("float64", (256, 256, 3)),
        dict(size=(512, 512), mode="bicubic", axes=(0, 1)),
        "fwd",
    ),
    "f64-nchw-up2-bicubic": (
        "portable rows, whole-row sums f64",
        ("float64", (1, 3, 256, 256)),
        dict(size=(512, 512), mode="bicubic"),
        "fwd",
    ),
}

#: Seconds of CPU time a batch of calls aims at (at the fastest level).
BATCH_SECONDS = 0.02


def _set_level(level):
    os.environ["CRESIZE_SIMD"] = level
    _kernels._init_simd()


def available_levels(wanted):
    """The levels of ``wanted`` this CPU and build run (the others would be capped)."""
    saved = os.environ.get("CRESIZE_SIMD")
    try:
        os.environ.pop("CRESIZE_SIMD", None)
        _kernels._init_simd()
        best = _kernels.SIMD_LEVELS.index(_kernels.simd_level())
    finally:
        if saved is None:
            os.environ.pop("CRESIZE_SIMD", None)
        else:
            os.environ["CRESIZE_SIMD"] = saved
    return [lv for lv in wanted if _kernels.SIMD_LEVELS.index(lv) <= best]


def make_call(spec, rng):
    """A function of no arguments making the case's plan call into ``out=``."""
    _, (dtype, shape), kwargs, direction = spec
    p = cresize.plan(shape, dtype=dtype, num_threads=1, **kwargs)
    if direction == "fwd":
        src_shape, dst_shape, method = p.input_shape, p.output_shape, p
    else:
        src_shape, dst_shape, method = p.output_shape, p.input_shape, p.backward
    if np.dtype(dtype).kind == "f":
        x = rng.random(src_shape).astype(dtype)
    else:
        x = rng.integers(0, np.iinfo(dtype).max, src_shape, endpoint=True).astype(dtype)
    out = np.empty(dst_shape, dtype)

    def call():
        method(x, out=out)
        return out

    return call


def _batch(call, n):
    t0 = time.thread_time()
    for _ in range(n):
        call()
    return (time.thread_time() - t0) / n


def measure(call, levels, repeat):
    """Per-call CPU times at each level over ``repeat`` rounds (levels rotating)."""
    results = {}
    for level in levels:  # warm-up, and the bits of every level checked equal
        _set_level(level)
        results[level] = call().copy()
    first = results[levels[0]]
    for level in levels[1:]:
        if not np.array_equal(results[level], first, equal_nan=first.dtype.kind == "f"):
            raise AssertionError(f"level {level} gives other bits than {levels[0]}")
    _set_level(levels[-1])
    one = _batch(call, 3)
    n = max(1, int(BATCH_SECONDS / max(one, 1e-7)))
    times = {level: [] for level in levels}
    for r in range(repeat):
        order = levels[r % len(levels) :] + levels[: r % len(levels)]
        for level in order:
            _set_level(level)
            times[level].append(_batch(call, n))
    return times


def _fmt(t):
    return f"{t * 1e6:.0f}" if t >= 1e-4 else f"{t * 1e6:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=9, help="rounds (default 9)")
    parser.add_argument(
        "--cases", default="", help="comma-separated texts; cases whose name holds one run"
    )
    parser.add_argument("--levels", default="none,avx2,avx512", help="levels to compare")
    args = parser.parse_args()
    wanted = [lv.strip() for lv in args.levels.split(",") if lv.strip()]
    bad = [lv for lv in wanted if lv not in _kernels.SIMD_LEVELS]
    if bad:
        parser.error(f"--levels: {bad} not among {', '.join(_kernels.SIMD_LEVELS)}")
    levels = available_levels(wanted)
    texts = [t for t in args.cases.split(",") if t]
    names = [n for n in CASES if not texts or any(t in n for t in texts)]
    if not names:
        parser.error(f"--cases: no case name holds any of {texts}; cases: {', '.join(CASES)}")
    saved = os.environ.get("CRESIZE_SIMD")
    rng = np.random.default_rng(0)
    print(
        f"{platform.processor() or platform.machine()}, levels {', '.join(levels)}, "
        f"{args.repeat} rounds, one thread, CPU time per call in us (median / least)\n"
    )
    head = " | ".join(f"{lv} med / least" for lv in levels)
    ratios = []
    if "avx2" in levels and "avx512" in levels:
        ratios.append(("avx2", "avx512"))
    if "none" in levels and "avx2" in levels:
        ratios.append(("none", "avx2"))
    rhead = "".join(f" {a}/{b} | {a}/{b} least |" for a, b in ratios)
    print(f"| case | loops | {head} |{rhead}")
    print("|---|---|" + "---|" * (len(levels) + 2 * len(ratios)))
    try:
        for name in names:
            spec = CASES[name]
            times = measure(make_call(spec, rng), levels, args.repeat)
            med = {lv: statistics.median(t) for lv, t in times.items()}
            least = {lv: min(t) for lv, t in times.items()}
            cells = " | ".join(f"{_fmt(med[lv])} / {_fmt(least[lv])}" for lv in levels)
            rcells = "".join(
                f" {med[a] / med[b]:.2f} | {least[a] / least[b]:.2f} |" for a, b in ratios
            )
            print(f"| {name} | {spec[0]} | {cells} |{rcells}", flush=True)
    finally:
        if saved is None:
            os.environ.pop("CRESIZE_SIMD", None)
        else:
            os.environ["CRESIZE_SIMD"] = saved
        _kernels._init_simd()


if __name__ == "__main__":
    main()
