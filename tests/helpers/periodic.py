"""Cases of the periodic horizontal pass (``Taps.period``, ``_simd_periodic.h``).

``results()`` runs every case twice through the kernels' entry points, with the
table's period and without it (the other row loops), so that a test can compare the
two in one process and across SIMD levels (``CRESIZE_SIMD``, read at import: a test
runs this module in a child per level).
"""

import numpy as np

from cresize import _kernels, _plan
from cresize._tables import Taps, taps

DTYPES = (np.uint8, np.int8, np.uint16, np.int16, np.float32, np.float64)


def phase_table(n_in, s, width, seed, spread=1):
    """A table enlarging by ``s`` whose interior rows repeat with period ``s``: phase
    ``p`` reads ``width`` inputs from ``o // s + offset[p]`` with random weights of
    either sign (exact in float32), clamped into the row at the borders (where taps
    then merge, so the border rows are not periodic). ``spread`` 1: the offsets step
    by 1 at mid-period, as an interpolation's do (the SIMD paths take them); 2: by 2
    every phase (they do not: the portable loop, or the other loops)."""
    rng = np.random.default_rng(seed)
    n_out = s * n_in
    weight = np.round(rng.uniform(-1, 1.5, (s, width)) * 64) / 64
    weight[weight == 0] = 0.5
    p = np.arange(s)
    offset = ((p + s // 2) // s if spread == 1 else spread * p) - width // 2
    o = np.arange(n_out)
    index = np.clip((o // s + offset[o % s])[:, None] + np.arange(width), 0, n_in - 1)
    return Taps.from_dense_rows(n_in, index, weight[o % s])


def tables():
    """``(name, Taps)``: real tables (bicubic, bilinear, lanczos3, antialiased bicubic
    by 2 and 4) and synthetic ones (periods 2 to 5, 1 to 7 taps), on rows whose
    periodic outputs end in tails of every length; rows of 171 and 190 pixels span
    several chunks of the SIMD paths (``CRESIZE_PERIOD_CHUNK``), each chunk's last
    values built from loads that end at or before the row's end or past it."""
    found = []
    for n_in in (13, 29, 64, 171, 190):
        for mode, aa in (
            ("bicubic", False),
            ("bilinear", False),
            ("lanczos3", False),
            ("bicubic", True),
        ):
            for s in (2, 4):
                found.append(
                    (
                        f"{mode}{'+aa' if aa else ''} {n_in}x{s}",
                        taps(n_in, s * n_in, mode, False, aa),
                    )
                )
    for n_in, s, width, seed in (
        (21, 3, 4, 1),
        (17, 2, 3, 2),
        (11, 5, 2, 3),
        (25, 3, 1, 4),
        (9, 2, 7, 5),
        (33, 4, 6, 6),
        (30, 8, 4, 7),
    ):
        found.append((f"phases {n_in}x{s} {width} taps", phase_table(n_in, s, width, seed)))
    found.append(("phases 23x3 spread", phase_table(23, 3, 4, 8, spread=2)))
    return found


def image(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        x = rng.uniform(-2, 2, shape).astype(dtype)
        x.reshape(-1)[::11] = -0.0  # signed zeros, non-finite values
        x.reshape(-1)[5::97] = np.nan
        x.reshape(-1)[7::89] = -np.inf
        return x
    info = np.iinfo(dtype)  # hard edges: clipped sums
    x = rng.choice(np.array([info.min, info.max, 0], dtype), shape)
    x[::2] = rng.integers(info.min, int(info.max) + 1, x[::2].shape)
    return x


def run(t, x, channels, period, num_threads, exact=False):
    """Resample the rows of ``x (H, n_in*C)`` with ``t``, pixels of ``channels`` values:
    a ``FUSED`` step with an identity y table (floats) or ``resize_2d_int`` (integers),
    the table's period passed or not (``exact``: with the period's exact float32 sums of
    16-bit pixels, ``_plan.exact_in_float32``)."""
    h, row = x.shape
    wide = x.dtype in (np.uint16, np.int16, np.float64)
    sums = np.dtype(np.float64 if wide else np.float32)
    one = taps(h, h, "nearest")
    xa = t.row_args(sums, period=period)
    if exact:
        xa = (*xa[:5], (*xa[5], True))
    dst = np.zeros((1, h, t.n_out * channels), x.dtype)
    src = x.reshape(1, h, row)
    if x.dtype.kind == "f":
        step = _kernels.make_step(
            _kernels.Kind.FUSED,
            1,
            h,
            row,
            y=one.kernel_args(sums),
            x=xa,
            channels=channels,
            order=_kernels.Order.DIRECT,
        )
        step(src, dst, num_threads)
    else:
        _kernels.resize_2d_int(
            src,
            dst,
            channels,
            one.kernel_args(sums),
            xa,
            _kernels.Order.DIRECT,
            np.empty((num_threads, dst.shape[2]), sums),
            np.empty((num_threads, 1), np.intp),
            num_threads,
        )
    return dst[0]


def results():
    """``{key: (with period, without)}`` for every table, dtype and 1-5 channels."""
    rng = np.random.default_rng(7)
    out = {}
    for name, t in tables():
        for dtype in DTYPES:
            for channels in (1, 2, 3, 4, 5):
                x = image(rng, (3, t.n_in * channels), dtype)
                key = f"{name} {np.dtype(dtype).name} C{channels}"
                out[key] = (run(t, x, channels, True, 2), run(t, x, channels, False, 1))
                if exact(t, dtype):
                    out[f"{key} exact"] = (run(t, x, channels, True, 2, True), out[key][1])
    return out


def exact(t, dtype):
    """Whether the plan would sum ``t``'s periodic rows of 16-bit pixels ``dtype`` in
    float32 (``_plan.exact_in_float32``)."""
    if np.dtype(dtype) not in (np.uint16, np.int16):
        return False
    s, first, _ = t.period(np.float64)
    rows = t.kernel_args(np.float64)[1][first : first + s]
    return s > 0 and _plan.exact_in_float32(rows, 2**15)


if __name__ == "__main__":
    import sys

    found = results()
    np.savez(
        sys.argv[1],
        level=np.array(_kernels.simd_level()),
        **{f"{k}|{i}": v[i] for k, v in found.items() for i in (0, 1)},
    )
