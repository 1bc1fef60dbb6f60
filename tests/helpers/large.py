"""Resizes whose result is a large one (>= 32 MiB: ``_hugealloc.h``'s handler and pool)."""

import numpy as np

#: (dtype, mode, keyword arguments) of ``resize`` over axes (0, 1).
LARGE_CASES = [
    (np.uint16, "bicubic", {}),
    (np.uint8, "lanczos3", {"antialias": True}),
    (np.float32, "bilinear", {}),
    (np.float64, "area", {}),
    (np.float16, "bicubic", {}),
    (np.int32, "bilinear", {}),
]


def large_inputs(dtype, kw, count, seed):
    """``count`` random inputs of ``dtype`` and the size that makes each result 36 MB."""
    rng = np.random.default_rng(seed)
    itemsize = np.dtype(dtype).itemsize
    shape, size = (
        ((300, 400, 3), (3000 // itemsize, 4000)) if not kw else ((1200, 400, 3), (600, 20000))
    )
    return [(rng.random(shape) * 200).astype(dtype) for _ in range(count)], size
