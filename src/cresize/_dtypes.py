"""Float results back to an integer dtype: the one rounding rule of the project.

``cresize.resize`` computes integer arrays in floating point and rounds once at
the end; ``cresize.image`` (premultiplied alpha) does the same. Both call
``round_to`` (the 8/16-bit core path does the same in a parallel kernel,
``_kernels.float_to_integers``), so the rule lives in one place.
"""

import numpy as np

__all__ = ["round_to"]


def round_to(dtype, values, out=None):
    """``values`` rounded to nearest (half to even) and clipped to ``dtype``'s range.

    Parameters
    ----------
    dtype : integer dtype
        The result's dtype (native byte order is used).
    values : ndarray
        Floating-point values; not modified. NaN has no integer value (the
        result there is whatever the cast gives).
    out : ndarray, optional
        Where to write the result (its dtype must hold the integer dtype's range).

    Returns
    -------
    ndarray
        ``out`` or a new native-order array of ``dtype``.

    Notes
    -----
    The upper bound is the largest value of ``values``' float type that does not
    exceed ``dtype``'s maximum: ``float64(2**63 - 1)`` is ``2**63``, which would
    wrap to the minimum when cast, so it is clipped to ``2**63 - 1024``.
    """
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"dtype must be an integer dtype; got {dtype}")
    values = np.asarray(values)
    if values.dtype.kind != "f":
        raise TypeError(f"values must be a float array; got {values.dtype}")
    info = np.iinfo(dtype)
    kind = values.dtype.type
    high = kind(info.max)
    if int(high) > info.max:
        high = np.nextafter(high, kind(0))
    rounded = np.rint(values)
    np.clip(rounded, kind(info.min), high, out=rounded)
    if out is None:
        return rounded.astype(dtype.newbyteorder("="))
    np.copyto(out, rounded, casting="unsafe")
    return out
