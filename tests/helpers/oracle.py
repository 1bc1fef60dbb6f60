"""Dense float64 reference for cresize, written directly from docs/spec.md.

This module is an independent second implementation of the contract in
``docs/spec.md`` (sections 2-4 for the weights, section 1 for how they are
applied, section 6 for the tolerances).  It is deliberately slow and plain:
every weight matrix is built row by row with Python loops, in float64, and
applied with ``np.tensordot``.  It does not import cresize.

Public functions
----------------
``dense_weights(in_size, out_size, mode="bilinear", align_corners=False,
antialias=False, scale_factor=None) -> ndarray (out_size, in_size)``
    The weight matrix ``W`` of one axis.  ``scale_factor`` is the per-axis
    factor ``f`` (the scale is ``s = 1/f`` when ``align_corners`` is False;
    it is ignored for the weights when ``align_corners`` is True).  Taps that
    land on the same (clamped) input index add up.

``output_length(in_size, scale_factor) -> int``
    ``floor(in_size * f)`` in float64 (an error when it is < 1).

``reference_matrices(input_shape, sizes=None, scale_factors=None, *, mode,
align_corners, antialias) -> dict[axis, ndarray]``
    One matrix per resized axis.  ``sizes`` maps axis -> output length,
    ``scale_factors`` maps axis -> ``f``.  An axis that appears only in
    ``scale_factors`` gets the output length ``floor(I*f)``; an axis in both
    uses the given length and ``f`` for the weights.  Negative axes are
    allowed.

``reference_resize(x, sizes=None, scale_factors=None, *, mode,
align_corners, antialias) -> float64 ndarray``
    Contracts a float64 copy of ``x`` with every axis' ``W``.

``reference_backward(g, input_shape, scale_factors=None, *, axes=None, mode,
align_corners, antialias) -> float64 ndarray``
    The adjoint: contracts a float64 copy of ``g`` with every axis' ``W.T``.
    The resized axes are ``axes`` when given, else the axes of
    ``scale_factors`` when given, else the axes where ``g.shape`` differs from
    ``input_shape`` (docs/spec.md section 5).  Output lengths come from ``g.shape``.

``operator_scale(x, mats) -> float``
    ``max|x| * prod over axes of max_row sum|w|``: the scale the SPEC
    section 6 tolerances are relative to.  For a gradient pass the transposed
    matrices (``max|g| * prod of max column abs sums``).

``TOL``
    ``{np.float32: 2e-6, np.float64: 1e-12}``; ``tolerance(dtype)`` looks it up
    for any dtype-like.

``assert_close(actual, expected, scale, dtype, what="")``
    ``max|actual - expected| <= TOL[dtype] * scale``; non-finite values must
    sit at the same places with the same value.

``nearest_index_mismatches(mode, I, O, other_index, scale_factor=None)``
    Where another implementation's nearest index map differs from SPEC's, and
    which of those differences are not float-rounding boundary cases (SPEC
    section 3: PyTorch computes the index with a float32 scale).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

__all__ = [
    "ALIASES",
    "ANTIALIAS_MODES",
    "MODES",
    "TOL",
    "assert_close",
    "backward_matrices",
    "canonical_mode",
    "dense_weights",
    "keys_cubic",
    "lanczos3",
    "nearest_coordinate",
    "nearest_index_mismatches",
    "operator_scale",
    "output_length",
    "reference_backward",
    "reference_matrices",
    "reference_resize",
    "scale_and_source",
    "taps",
    "tolerance",
    "triangle",
]

MODES = ("nearest", "nearest-exact", "bilinear", "bicubic", "lanczos3", "area")
ALIASES = {
    "linear": "bilinear",
    "trilinear": "bilinear",
    "cubic": "bicubic",
    "nearest_exact": "nearest-exact",
}
ANTIALIAS_MODES = ("bilinear", "bicubic", "lanczos3")
# Modes for which align_corners=True is an error (docs/spec.md section 3).
NO_ALIGN_CORNERS = ("nearest", "nearest-exact", "area")

TOL = {np.float32: 2e-6, np.float64: 1e-12}


def canonical_mode(mode: str) -> str:
    """Map an alias onto its SPEC mode name; raise ValueError for unknown modes."""
    mode = ALIASES.get(mode, mode)
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    return mode


# --------------------------------------------------------------------------
# Kernels (docs/spec.md section 3, "Kernels")
# --------------------------------------------------------------------------


def keys_cubic(x: float, a: float = -0.75) -> float:
    """Keys cubic convolution kernel with parameter ``a``."""
    x = abs(x)
    if x <= 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    if x < 2.0:
        return a * x * x * x - 5.0 * a * x * x + 8.0 * a * x - 4.0 * a
    return 0.0


def lanczos3(x: float) -> float:
    """Lanczos-3 window; exactly 0 at the nonzero integers, 1 at 0."""
    if x == 0.0:
        return 1.0
    if abs(x) >= 3.0:
        return 0.0
    if x == math.floor(x):  # a nonzero integer: sin(pi*k) is 0, not round-off
        return 0.0
    return 3.0 * math.sin(math.pi * x) * math.sin(math.pi * x / 3.0) / (math.pi * math.pi * x * x)


def triangle(x: float) -> float:
    """Triangle (tent) kernel."""
    return max(0.0, 1.0 - abs(x))


# --------------------------------------------------------------------------
# Scale and source coordinate (docs/spec.md section 2)
# --------------------------------------------------------------------------


def output_length(in_size: int, scale_factor: float) -> int:
    """``O = floor(I*f)`` in float64; ``O < 1`` is an error."""
    out = math.floor(float(in_size) * float(scale_factor))
    if out < 1:
        raise ValueError(
            f"scale_factor {scale_factor} gives output length {out} for input length {in_size}"
        )
    return out


def scale_and_source(in_size, out_size, align_corners=False, scale_factor=None):
    """Return ``(s, src)`` where ``src(o)`` is the source coordinate of output ``o``."""
    if align_corners:
        s = 0.0 if out_size == 1 else (in_size - 1) / (out_size - 1)
        return s, (lambda o: s * o)
    s = 1.0 / scale_factor if scale_factor is not None else in_size / out_size
    return s, (lambda o: (o + 0.5) * s - 0.5)


def _clamp(i: int, n: int) -> int:
    return min(max(i, 0), n - 1)


# --------------------------------------------------------------------------
# Taps, one list of (input index, weight) per output (docs/spec.md sections 3 and 4)
# --------------------------------------------------------------------------


def _taps_plain(mode, I, O, align_corners, scale_factor):
    s, src_of = scale_and_source(I, O, align_corners, scale_factor)
    rows = []
    for o in range(O):
        if mode == "nearest":
            if scale_factor is None:
                idx = (o * I) // O  # exact integer rule
            else:
                idx = min(math.floor(o * s), I - 1)
            rows.append([(idx, 1.0)])
        elif mode == "nearest-exact":
            if scale_factor is None:
                idx = ((2 * o + 1) * I) // (2 * O)
            else:
                idx = min(math.floor((o + 0.5) * s), I - 1)
            rows.append([(idx, 1.0)])
        elif mode == "bilinear":
            src = max(src_of(o), 0.0)
            i0 = min(math.floor(src), I - 1)
            t = src - i0
            rows.append([(i0, 1.0 - t), (min(i0 + 1, I - 1), t)])
        elif mode == "bicubic":
            src = src_of(o)
            i = math.floor(src)
            t = src - i
            ws = (keys_cubic(t + 1.0), keys_cubic(t), keys_cubic(1.0 - t), keys_cubic(2.0 - t))
            rows.append([(_clamp(i - 1 + k, I), ws[k]) for k in range(4)])
        elif mode == "lanczos3":
            src = src_of(o)
            i = math.floor(src)
            raw = [(k, lanczos3(src - k)) for k in range(i - 2, i + 4) if 0 <= k < I]
            total = sum(w for _, w in raw)
            rows.append([(k, w / total) for k, w in raw])
        elif mode == "area":
            start = (o * I) // O  # floor(o*I/O)
            end = -((-(o + 1) * I) // O)  # ceil((o+1)*I/O)
            rows.append([(j, 1.0 / (end - start)) for j in range(start, end)])
        else:  # pragma: no cover - canonical_mode already rejected it
            raise ValueError(mode)
    return rows


def _taps_antialias(mode, I, O, align_corners, scale_factor):
    if mode == "bilinear":
        base, kernel = 1.0, triangle
    elif mode == "bicubic":
        base, kernel = 2.0, (lambda x: keys_cubic(x, -0.5))
    else:
        base, kernel = 3.0, lanczos3
    s, _ = scale_and_source(I, O, align_corners, scale_factor)
    if s >= 1.0:
        support, inv = base * s, 1.0 / s
    else:
        support, inv = base, 1.0
    rows = []
    for o in range(O):
        center = s * (o + 0.5)
        lo = max(math.trunc(center - support + 0.5), 0)
        hi = min(math.trunc(center + support + 0.5), I)
        raw = [(j, kernel((j - center + 0.5) * inv)) for j in range(lo, hi)]
        total = sum(w for _, w in raw)
        rows.append([(j, w / total) for j, w in raw])
    return rows


def taps(
    in_size, out_size, mode="bilinear", align_corners=False, antialias=False, scale_factor=None
):
    """Per-output lists of ``(input index, weight)`` exactly as SPEC lists them.

    Validates the options the way SPEC requires (errors raise ValueError).
    """
    mode = canonical_mode(mode)
    I, O = int(in_size), int(out_size)
    if I < 1 or O < 1:
        raise ValueError(f"lengths must be >= 1, got in={I} out={O}")
    if scale_factor is not None and not scale_factor > 0:
        raise ValueError(f"scale_factor must be > 0, got {scale_factor}")
    if align_corners and mode in NO_ALIGN_CORNERS:
        raise ValueError(f"align_corners=True is an error for mode {mode!r}")
    if antialias and mode not in ANTIALIAS_MODES:
        raise ValueError(f"antialias=True is an error for mode {mode!r}")
    if mode == "area":
        scale_factor = None  # scale_factor only sets O for area
    if antialias:
        return _taps_antialias(mode, I, O, align_corners, scale_factor)
    return _taps_plain(mode, I, O, align_corners, scale_factor)


def dense_weights(
    in_size, out_size, mode="bilinear", align_corners=False, antialias=False, scale_factor=None
):
    """Dense float64 weight matrix of shape ``(out_size, in_size)``.

    Taps on the same clamped index add up (``W[o, i] += w``).
    """
    rows = taps(in_size, out_size, mode, align_corners, antialias, scale_factor)
    W = np.zeros((int(out_size), int(in_size)), dtype=np.float64)
    for o, row in enumerate(rows):
        for i, w in row:
            W[o, i] += w
    return W


# --------------------------------------------------------------------------
# Applying the matrices
# --------------------------------------------------------------------------


def _norm_axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} out of range for ndim {ndim}")
    return axis % ndim


def _apply(a, axis, M):
    """Contract axis ``axis`` of ``a`` with ``M`` (shape (new, old)): ``new[..., o, ...] = sum_i M[o, i] a[..., i, ...]``.

    Only the nonzero entries of a row take part (docs/spec.md section 1: a tap of
    weight exactly zero is not part of ``W``), so a NaN or Inf reaches exactly
    the outputs that give it a nonzero weight.
    """
    if np.isfinite(a).all():  # a zero weight times a finite value adds nothing
        return np.moveaxis(np.tensordot(M, a, axes=([1], [axis])), 0, axis)
    a = np.moveaxis(a, axis, 0)
    out = np.zeros((M.shape[0],) + a.shape[1:], dtype=np.float64)
    for o in range(M.shape[0]):
        nz = np.nonzero(M[o])[0]
        out[o] = np.tensordot(M[o, nz], a[nz], axes=([0], [0]))
    return np.moveaxis(out, 0, axis)


def reference_matrices(
    input_shape,
    sizes=None,
    scale_factors=None,
    *,
    mode="bilinear",
    align_corners=False,
    antialias=False,
):
    """``{axis: W}`` for every resized axis (see module docstring)."""
    ndim = len(input_shape)
    sizes = {_norm_axis(a, ndim): int(n) for a, n in (sizes or {}).items()}
    scale_factors = {_norm_axis(a, ndim): float(f) for a, f in (scale_factors or {}).items()}
    mats = {}
    for axis in sorted(set(sizes) | set(scale_factors)):
        I = int(input_shape[axis])
        f = scale_factors.get(axis)
        O = sizes[axis] if axis in sizes else output_length(I, f)
        mats[axis] = dense_weights(I, O, mode, align_corners, antialias, f)
    return mats


def reference_resize(
    x, sizes=None, scale_factors=None, *, mode="bilinear", align_corners=False, antialias=False
):
    """Forward resize of a float64 copy of ``x``; returns a float64 array."""
    y = np.array(x, dtype=np.float64, copy=True)
    mats = reference_matrices(
        y.shape, sizes, scale_factors, mode=mode, align_corners=align_corners, antialias=antialias
    )
    for axis, W in mats.items():
        y = _apply(y, axis, W)
    return y


def backward_matrices(
    grad_shape,
    input_shape,
    scale_factors=None,
    *,
    axes=None,
    mode="bilinear",
    align_corners=False,
    antialias=False,
):
    """``{axis: W}`` (forward matrices, shape (O, I)) for a backward pass."""
    ndim = len(input_shape)
    if len(grad_shape) != ndim:
        raise ValueError(f"grad_output has {len(grad_shape)} dims, input_shape has {ndim}")
    scale_factors = {_norm_axis(a, ndim): float(f) for a, f in (scale_factors or {}).items()}
    if axes is not None:
        axes = sorted({_norm_axis(a, ndim) for a in axes})
    elif scale_factors:
        axes = sorted(scale_factors)
    else:
        axes = [a for a in range(ndim) if grad_shape[a] != input_shape[a]]
    return {
        a: dense_weights(
            int(input_shape[a]),
            int(grad_shape[a]),
            mode,
            align_corners,
            antialias,
            scale_factors.get(a),
        )
        for a in axes
    }


def reference_backward(
    g,
    input_shape,
    scale_factors=None,
    *,
    axes=None,
    mode="bilinear",
    align_corners=False,
    antialias=False,
):
    """Adjoint of ``reference_resize``: contracts a float64 copy of ``g`` with every ``W.T``."""
    r = np.array(g, dtype=np.float64, copy=True)
    mats = backward_matrices(
        r.shape,
        tuple(input_shape),
        scale_factors,
        axes=axes,
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
    )
    for axis, W in mats.items():
        r = _apply(r, axis, W.T)
    for a in range(r.ndim):
        if r.shape[a] != input_shape[a]:
            raise ValueError(
                f"axis {a}: gradient length {r.shape[a]} but input length {input_shape[a]} "
                "and the axis is not resized"
            )
    return r


# --------------------------------------------------------------------------
# Tolerances (docs/spec.md section 6)
# --------------------------------------------------------------------------


def operator_scale(x, mats) -> float:
    """``max|x| * prod over mats of max_row sum|w|`` (NaN/Inf in ``x`` are ignored)."""
    a = np.abs(np.asarray(x, dtype=np.float64))
    a = a[np.isfinite(a)]
    scale = float(a.max()) if a.size else 0.0
    if isinstance(mats, Mapping):
        mats = mats.values()
    for W in mats:
        scale *= float(np.abs(W).sum(axis=1).max())
    return scale


def tolerance(dtype) -> float:
    """``TOL`` for a dtype-like (float32 or float64)."""
    return TOL[np.dtype(dtype).type]


def assert_close(actual, expected, scale, dtype, what=""):
    """``max|actual - expected| <= TOL[dtype] * scale``.

    Non-finite values (NaN, +-Inf) must sit at the same places with the same value.
    """
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    fin_a, fin_e = np.isfinite(actual), np.isfinite(expected)
    assert np.array_equal(fin_a, fin_e), f"{what}: non-finite positions differ"
    assert np.array_equal(actual[~fin_e], expected[~fin_e], equal_nan=True), (
        f"{what}: non-finite values differ"
    )
    err = float(np.max(np.abs(actual[fin_e] - expected[fin_e]), initial=0.0))
    bound = tolerance(dtype) * scale
    assert err <= bound, (
        f"{what}: max abs error {err:.3e} > {bound:.3e} "
        f"(tol {tolerance(dtype)} x scale {scale:.3e})"
    )


# --------------------------------------------------------------------------
# Nearest index boundaries (docs/spec.md section 3: PyTorch's float32 scale)
# --------------------------------------------------------------------------


def nearest_coordinate(mode, in_size, out_size, o, scale_factor=None):
    """The source coordinate whose floor is the SPEC nearest index (before clamping).

    Size-based it is the exact rational ``o*I/O`` (``(o+0.5)*I/O`` for
    nearest-exact) as a ``Fraction``; with a scale factor the float64
    ``o*s`` (``(o+0.5)*s``), ``s = 1/f``.
    """
    mode = canonical_mode(mode)
    if mode not in ("nearest", "nearest-exact"):
        raise ValueError(mode)
    half = Fraction(1, 2) if mode == "nearest-exact" else 0
    if scale_factor is None:
        return (o + half) * Fraction(in_size, out_size)
    return (o + float(half)) * (1.0 / scale_factor)


def nearest_index_mismatches(mode, in_size, out_size, other_index, scale_factor=None, rel=2.0**-21):
    """Compare another implementation's nearest index map with SPEC's.

    Returns ``(mismatches, bad)``: ``mismatches`` is the list of ``o`` where
    ``other_index[o]`` differs from the SPEC index; ``bad`` the subset that is
    NOT a float-rounding boundary case, i.e. where the two indices differ by
    more than 1 or the exact coordinate is farther than ``rel`` (relative)
    from the integer that separates them.  The default ``rel`` = 2**-21 is 4x
    the error of a float32 scale times a float32 product.
    """
    exact = [row[0][0] for row in taps(in_size, out_size, mode, scale_factor=scale_factor)]
    other = np.asarray(other_index).astype(np.int64)
    mismatches, bad = [], []
    for o in np.nonzero(other != np.asarray(exact, dtype=np.int64))[0].tolist():
        mismatches.append(o)
        e, t = int(exact[o]), int(other[o])
        c = nearest_coordinate(mode, in_size, out_size, o, scale_factor)
        edge = max(e, t)
        if abs(e - t) != 1 or abs(float(c - edge)) > rel * max(float(c), 1.0):
            bad.append((o, e, t, float(c)))
    return mismatches, bad
