"""Case lists and deliberately wrong variants shared by several test modules."""

import math

import numpy as np

from cresize import _tables

from .oracle import ANTIALIAS_MODES, MODES, NO_ALIGN_CORNERS

#: Every valid (mode, align_corners, antialias) combination (15).
COMBOS = [
    (m, ac, aa)
    for m in MODES
    for ac in ((False,) if m in NO_ALIGN_CORNERS else (False, True))
    for aa in ((False, True) if m in ANTIALIAS_MODES else (False,))
]


def by_factors(shape, axes, factors):
    """``(lengths, factors, geometry)`` of resizing ``axes`` of ``shape`` by ``factors``:
    the lengths ``floor(I * f)``, asked for as ``scale_factor``; where one of them comes
    to 0, the lengths at least 1, asked for as ``size`` (``factors`` None)."""
    lengths = [math.floor(shape[a] * f) for a, f in zip(axes, factors)]
    if min(lengths) >= 1:
        return lengths, factors, dict(scale_factor=tuple(factors))
    lengths = [max(1, n) for n in lengths]
    return lengths, None, dict(size=tuple(lengths))


def shifted_transpose(original):
    """A transposed table off by one: input row ``i`` gets the taps of row ``i + 1``."""

    def transpose(self):
        t = original(self)
        n = t.n_out
        keep = np.minimum(np.arange(n) + 1, n - 1)
        used = np.arange(t.index.shape[1]) < t.count[keep][:, None]
        index = np.where(used, t.index[keep], -1)
        return _tables.Taps.from_dense_rows(t.n_in, index, np.where(used, t.weight[keep], 0.0))

    return transpose
