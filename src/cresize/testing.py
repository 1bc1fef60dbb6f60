"""Verify resize gradients: adjoint identity, finite differences, a dense reference.

``cresize`` is meant to be the reference that other resize implementations check
their backward passes against. This module gives the checks it runs on itself:

* ``check_adjoint``: ``<resize(x), g> == <x, resize_backward(g)>`` for random
  ``x`` and ``g``;
* ``check_gradient``: float64 central finite differences of random directional
  derivatives against ``resize_backward``;
* ``check_reference``: forward and backward against the float64 operator (dense, or
  for an axis whose matrix would exceed 128 MiB its sparse taps);
* ``reference_resize`` / ``reference_backward``: that dense operator, built from
  ``cresize.weights`` and applied with ``np.tensordot`` (slow, simple, independent
  of the Cython kernels).

Every check accepts ``forward=`` and ``backward=`` callables with the signatures
of ``cresize.resize`` and ``cresize.resize_backward``, so a wrapper around another
implementation can be checked the same way. Each is given a copy of the check's
array; one that writes into its input fails the check (``AssertionError``: "backward
modified its input (grad_output) in place"), as it would otherwise corrupt it.

Tolerances (``TOLERANCES``) are relative to the operator scale of cresize's
specification, section 6, "Tolerances used by the tests" (docs/spec.md, in the
source distribution and the documentation): an error is divided by
``max|x| * prod(max row sum |W|)`` (per output value) and compared with ``1e-12``
for float64, ``2e-6`` for float32. The adjoint check bounds the error of both inner
products by that scale (see ``adjoint_scale``); finite differences use
``FD_TOLERANCE``.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike, DTypeLike

import cresize
from cresize import _plan, _spec

#: Relative tolerance per dtype (the specification's section 6: the module docstring).
TOLERANCES = {np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12}

#: Relative tolerance of ``check_gradient`` (float64 central differences).
FD_TOLERANCE = 1e-8

#: How the checks call ``forward`` and ``backward`` (keywords follow).
_ARGS = {"forward": "x, size", "backward": "grad_output, input_shape"}

# An inner product cannot say which values are off; check_reference can.
_WHERE = "an inner product: check_reference with the same arguments says which values are off"
#: ``_WHERE`` of ``check_gradient``, some of whose arguments ``check_reference`` does not take.
_WHERE_GRADIENT = (
    "an inner product: check_reference with the same shape, size or scale_factor, mode, "
    "align_corners, antialias, axes, seed, forward and backward says which values are off "
    "(not n_directions or step, which it does not take, nor this rtol: its default "
    "is TOLERANCES[float64])"
)

__all__ = [
    "FD_TOLERANCE",
    "TOLERANCES",
    "adjoint_scale",
    "check_adjoint",
    "check_gradient",
    "check_reference",
    "reference_backward",
    "reference_matrices",
    "reference_resize",
]


# ----------------------------------------------------------------------------
# The dense reference


def reference_matrices(
    input_shape: _spec.Shape,
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
) -> dict[int, npt.NDArray[np.float64]]:
    """The dense ``(O, I)`` float64 matrix of every resized axis.

    Parameters
    ----------
    input_shape : tuple of int
        Shape of ``resize``'s input.
    size, scale_factor, mode, align_corners, antialias, axes
        As for ``cresize.resize`` (the same defaults and the same axis rule).

    Returns
    -------
    dict of int to ndarray
        ``{axis: cresize.weights(I, O, ...)}`` in increasing axis order.
    """
    spec = _spec.forward(input_shape, size, scale_factor, mode, align_corners, antialias, axes)
    return _matrices(spec)


def _matrices(spec):
    options = dict(mode=spec.mode, align_corners=spec.align_corners, antialias=spec.antialias)
    return {
        axis: cresize.weights(n_in, n_out, scale_factor=f, **options)
        for axis, n_in, n_out, f in _spec.axis_geometry(spec)
    }


#: ``check_reference`` contracts an axis whose dense ``(O, I)`` matrix would have more
#: entries than this (128 MiB of float64) with its sparse taps instead: one of a 1-D
#: 20,000 -> 30,000 axis is 4.8 GB. Smaller axes keep the dense matrix, so the reference
#: values there are the bits they always were (the sparse sum may round differently).
_DENSE_LIMIT = 2**24


def _operators(spec, transpose=False):
    """``{axis: W}`` (``transpose``: ``W.T``) of ``check_reference``: the dense matrix
    (``_matrices``') where it has at most ``_DENSE_LIMIT`` entries, else the axis's sparse
    taps (``_tables.Taps``, the same nonzero weights)."""
    options = dict(mode=spec.mode, align_corners=spec.align_corners, antialias=spec.antialias)
    operators: dict[int, Any] = {}
    for axis, n_in, n_out, f in _spec.axis_geometry(spec):
        if n_in * n_out <= _DENSE_LIMIT:
            operators[axis] = cresize.weights(n_in, n_out, scale_factor=f, **options)
        else:
            operators[axis] = _plan.table(
                n_in, n_out, spec.mode, spec.align_corners, spec.antialias, f
            )
    return _transposed(operators) if transpose else operators


def _transposed(operators):
    """``{axis: W.T}`` of ``_operators``' ``{axis: W}`` (a view of a dense matrix)."""
    return {
        axis: w.T if isinstance(w, np.ndarray) else w.transpose() for axis, w in operators.items()
    }


def _apply_operator(a, axis, operator):
    """``operator`` (a dense matrix or sparse taps) applied along ``axis`` of ``a``."""
    if isinstance(operator, np.ndarray):
        return _contract(a, axis, operator)
    moved = np.moveaxis(a, axis, 0)
    out = np.zeros((operator.n_out, *moved.shape[1:]))
    column = (-1,) + (1,) * (moved.ndim - 1)
    for k in range(operator.index.shape[1]):  # the padding has weight 0
        out += operator.weight[:, k].reshape(column) * moved[operator.index[:, k]]
    return np.moveaxis(out, 0, axis)


def _row_sum(operator):
    """``max row sum |W|`` of a dense matrix or sparse taps."""
    if isinstance(operator, np.ndarray):
        return np.abs(operator).sum(axis=1).max()
    return np.abs(operator.weight).sum(axis=1).max(initial=0)


def reference_resize(
    x: ArrayLike,
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
) -> npt.NDArray[np.float64]:
    """``cresize.resize`` as a dense float64 matrix product (slow; for checking).

    Parameters
    ----------
    x : array_like
        Any real array; it is copied to float64 and not modified.
    size, scale_factor, mode, align_corners, antialias, axes
        As for ``cresize.resize``.

    Returns
    -------
    ndarray
        float64, unrounded (no integer clipping). A NaN in ``x`` spreads to every
        output of its rows, also those that give it weight 0 (``0 * nan``).

    Examples
    --------
    >>> import numpy as np, cresize.testing
    >>> cresize.testing.reference_resize(np.arange(4.0), 8)
    array([0.  , 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.  ])
    """
    y = _float64(x, "x")
    # errors name x, as resize's do (reference_matrices' would name input_shape)
    spec = _spec.forward(
        y.shape, size, scale_factor, mode, align_corners, antialias, axes, checked_shape=True
    )
    for axis, matrix in _matrices(spec).items():
        y = _contract(y, axis, matrix)
    return y


def reference_backward(
    grad_output: ArrayLike,
    input_shape: _spec.Shape,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
) -> npt.NDArray[np.float64]:
    """``cresize.resize_backward`` as a dense float64 product with every ``W.T``.

    Parameters
    ----------
    grad_output : array_like
        Gradient with respect to ``resize``'s output; copied to float64.
    input_shape : tuple of int
        The full shape of ``resize``'s input.
    scale_factor, mode, align_corners, antialias, axes
        As for ``cresize.resize_backward`` (the same default axes: with
        ``scale_factor`` ``resize``'s rule, otherwise the axes whose length differs).

    Returns
    -------
    ndarray
        float64 of shape ``input_shape``.
    """
    g = _float64(grad_output, "grad_output")
    spec = _spec.backward(g.shape, input_shape, scale_factor, mode, align_corners, antialias, axes)
    for axis, matrix in _matrices(spec).items():
        g = _contract(g, axis, matrix.T)
    return g


def adjoint_scale(x: ArrayLike, g: ArrayLike, matrices: Mapping[int, np.ndarray]) -> float:
    """The bound that the errors of ``<resize(x), g>`` and ``<x, resize_backward(g)>`` live on.

    ``sum|g| * max|x| * prod(max row sum |W|) + sum|x| * max|g| * prod(max column sum |W|)``:
    when every output of the forward and the backward is within ``tol`` of the
    specification's section 6 scale (the module docstring), the two inner products differ by at most ``tol`` times this.

    Parameters
    ----------
    x : array_like
        The forward's input.
    g : array_like
        The backward's input (of the forward's output shape).
    matrices : mapping of int to ndarray
        The ``(out, in)`` matrix ``W`` of each resized axis ``0 <= axis < x.ndim``
        (``reference_matrices``).

    Returns
    -------
    float
        The bound, computed in float64.

    Raises
    ------
    ValueError
        When the shapes do not fit: each ``matrices[axis]`` must be 2-D with
        ``x.shape[axis]`` columns, and ``g`` of the forward's output shape (``x``'s
        with each resized axis ``W.shape[0]`` long); the message names the argument
        and both shapes.
    """
    # real arrays, refused as the references refuse them (a masked array's mask, a
    # complex array's imaginary part were dropped), in C order: the sums' order, and
    # so their last bits, do not depend on the caller's strides
    xa, ga = _float64(x, "x"), _float64(g, "g")
    if not isinstance(matrices, Mapping):
        raise TypeError(
            f"matrices must be a mapping of axis to (out, in) matrix (reference_matrices); "
            f"got {type(matrices).__name__}"
        )
    output_shape = list(xa.shape)
    rows = cols = 1.0
    for key, w in matrices.items():
        axis = _spec.integer(key, "matrices' axes", "ints")
        w = np.asarray(w)
        if not 0 <= axis < xa.ndim:
            raise ValueError(
                f"matrices has axis {axis}, which x of shape {xa.shape} does not have "
                f"(0 <= axis < {xa.ndim})"
            )
        if w.ndim != 2 or w.shape[1] != xa.shape[axis]:
            raise ValueError(
                f"matrices[{axis}] must be an (out, {xa.shape[axis]}) matrix for x of shape "
                f"{xa.shape}; got shape {w.shape}"
            )
        output_shape[axis] = w.shape[0]
        rows *= float(np.abs(w).sum(axis=1).max(initial=0))
        cols *= float(np.abs(w).sum(axis=0).max(initial=0))
    if ga.shape != tuple(output_shape):
        raise ValueError(
            f"g must have the forward's output shape, {tuple(output_shape)} for x of shape "
            f"{xa.shape} and matrices of shapes "
            f"{ {a: np.shape(w) for a, w in matrices.items()} }; got shape {ga.shape}"
        )
    return _adjoint_scale(xa, ga, (rows, cols))


def _adjoint_scale(x, g, norms):
    """``adjoint_scale`` from ``norms = (prod(max row sum |W|), prod(max column sum |W|))``."""
    x, g = np.abs(np.asarray(x, np.float64)), np.abs(np.asarray(g, np.float64))
    rows, cols = norms
    return float(g.sum() * x.max(initial=0) * rows + x.sum() * g.max(initial=0) * cols)


def _norms(spec):
    """``prod(max row sum |W|)`` and ``prod(max column sum |W|)`` over the resized axes,
    from each axis's sparse taps: the adjoint and gradient checks build no dense matrix
    (one of a long 1-D axis, 20,000 -> 30,000, would be 4.8 GB)."""
    rows = cols = 1.0
    for _, n_in, n_out, f in _spec.axis_geometry(spec):
        taps = _plan.table(n_in, n_out, spec.mode, spec.align_corners, spec.antialias, f)
        w = np.abs(taps.weight)  # the padding has weight 0
        rows *= float(w.sum(axis=1).max(initial=0))
        cols *= float(np.bincount(taps.index.ravel(), w.ravel(), minlength=n_in).max(initial=0))
    return rows, cols


# ----------------------------------------------------------------------------
# The checks


def check_adjoint(
    shape: _spec.Shape,
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    dtype: DTypeLike = np.float64,
    seed: _spec.Int = 0,
    rtol: _spec.Real | None = None,
    forward: Callable[..., Any] | None = None,
    backward: Callable[..., Any] | None = None,
) -> float:
    """Check ``<resize(x), g> == <x, resize_backward(g)>`` for random ``x`` and ``g``.

    Parameters
    ----------
    shape : tuple of int
        Input shape.
    size, scale_factor, mode, align_corners, antialias, axes
        As for ``cresize.resize``.
    dtype : {float64, float32}
        Dtype of ``x`` and ``g`` (default float64); the inner products are taken in
        float64.
    seed : int
        Seed of the random ``x`` and ``g`` (uniform in ``[-1, 1)``), ``0 <= seed < 2**53``
        (default 0).
    rtol : float, optional
        Allowed relative error (a float > 0, or a 0-d array of one); default
        ``TOLERANCES[dtype]``. ``np.inf`` only measures (a result that makes the
        error NaN still fails); NaN is a ``ValueError``.
    forward, backward : callable, optional
        Implementations with the signatures of ``cresize.resize`` and
        ``cresize.resize_backward``; default cresize's own.

    Returns
    -------
    float
        ``|<resize(x), g> - <x, resize_backward(g)>| / adjoint_scale(x, g, W)``.

    Raises
    ------
    AssertionError
        When the relative error exceeds ``rtol`` (or a result has the wrong shape
        or dtype); the message carries both inner products and the scale.
    TypeError, ValueError
        An argument the check refuses: as ``cresize.resize`` refuses the geometry
        and options, ``dtype`` not float32 or float64, ``seed`` or ``rtol`` out of
        range, ``forward`` or ``backward`` not callable. An exception that
        ``forward`` or ``backward`` raises is not caught.

    Examples
    --------
    >>> from cresize.testing import check_adjoint
    >>> check_adjoint((2, 7, 9), (4, 13), mode="lanczos3") < 1e-12
    True
    """
    dtype, rtol = _dtype_rtol(dtype, rtol, "check_adjoint")
    forward, backward, spec, options = _setup(
        shape, size, scale_factor, mode, align_corners, antialias, axes, forward, backward
    )
    out_shape = spec.output_shape
    rng = np.random.default_rng(_seed(seed))
    x = rng.uniform(-1, 1, shape).astype(dtype)
    y = _result(_call(forward, "forward", x, size, **options), out_shape, dtype, "forward")
    g = rng.uniform(-1, 1, y.shape).astype(dtype)
    dx = _result(_call(backward, "backward", g, x.shape, **options), x.shape, dtype, "backward")
    lhs = float(np.vdot(y.astype(np.float64), g.astype(np.float64)))
    rhs = float(np.vdot(x.astype(np.float64), dx.astype(np.float64)))
    scale = _adjoint_scale(x, g, _norms(spec))
    error = abs(lhs - rhs) / scale if scale else abs(lhs - rhs)
    if not error <= rtol:
        raise AssertionError(
            f"adjoint identity fails for shape={tuple(shape)} {_describe(size, options)}: "
            f"<resize(x), g> = {lhs!r}, <x, resize_backward(g)> = {rhs!r}, "
            f"difference {abs(lhs - rhs):.3e}, scale {scale:.3e}, relative {error:.3e} > "
            f"rtol {rtol:.1e} ({_WHERE})"
        )
    return error


def check_gradient(
    shape: _spec.Shape,
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    n_directions: _spec.Int = 3,
    step: _spec.Real = 1e-3,
    seed: _spec.Int = 0,
    rtol: _spec.Real | None = None,
    forward: Callable[..., Any] | None = None,
    backward: Callable[..., Any] | None = None,
) -> float:
    """Check ``resize_backward`` against float64 central finite differences.

    For a random point ``x``, a random ``g`` and each random direction ``v``,
    ``f(x) = <resize(x), g>`` is differentiated numerically,
    ``(f(x + h v) - f(x - h v)) / (2 h)``, and compared with ``<v, resize_backward(g)>``.
    Unlike ``check_adjoint`` this does not assume that the forward is linear.

    Parameters
    ----------
    shape : tuple of int
        Input shape.
    size, scale_factor, mode, align_corners, antialias, axes
        As for ``cresize.resize``.
    n_directions : int
        Number of random directions, from 1 to 1,000,000 (default 3; each is two
        forward calls; a larger count is refused, ``ValueError``).
    step : float
        Finite-difference step ``h`` (default 1e-3; ``x`` and ``v`` are uniform in
        ``[-1, 1)``).
    seed : int
        Seed of ``x``, ``g`` and the directions, ``0 <= seed < 2**53`` (default 0).
    rtol : float, optional
        Allowed error relative to ``adjoint_scale(v, g, W)``; default ``FD_TOLERANCE``
        (taken as for ``check_adjoint``).
    forward, backward : callable, optional
        As for ``check_adjoint``.

    Returns
    -------
    float
        The largest relative error over the directions.

    Raises
    ------
    AssertionError
        When it exceeds ``rtol``; the message carries the two derivatives.
    TypeError, ValueError
        An argument the check refuses: as ``cresize.resize`` refuses the geometry
        and options, ``n_directions``, ``step``, ``seed`` or ``rtol`` out of range,
        ``forward`` or ``backward`` not callable. An exception that ``forward`` or
        ``backward`` raises is not caught.
    """
    rtol = FD_TOLERANCE if rtol is None else _positive(rtol, "rtol", measure=True)
    n_directions = _count(n_directions, "n_directions", _N_DIRECTIONS_MAX)
    step = _positive(step, "step")
    forward, backward, spec, options = _setup(
        shape, size, scale_factor, mode, align_corners, antialias, axes, forward, backward
    )
    out_shape, norms = spec.output_shape, _norms(spec)
    rng = np.random.default_rng(_seed(seed))
    x = rng.uniform(-1, 1, shape)
    g = rng.uniform(-1, 1, out_shape)
    dx = _result(
        _call(backward, "backward", g, x.shape, **options), x.shape, np.float64, "backward"
    )

    def f(point):
        y = _call(forward, "forward", point, size, **options)
        y = _result(y, out_shape, np.float64, "forward")
        return float(np.vdot(y, g))

    worst = 0.0
    for _ in range(n_directions):
        v = rng.uniform(-1, 1, shape)
        numeric = (f(x + step * v) - f(x - step * v)) / (2 * step)
        analytic = float(np.vdot(v, dx))
        scale = _adjoint_scale(v, g, norms)
        error = abs(numeric - analytic) / scale if scale else abs(numeric - analytic)
        if not error <= rtol:
            raise AssertionError(
                f"finite differences disagree with resize_backward for shape={tuple(shape)} "
                f"{_describe(size, options)}: numeric {numeric!r}, analytic {analytic!r}, "
                f"scale {scale:.3e}, relative {error:.3e} > rtol {rtol:.1e} ({_WHERE_GRADIENT})"
            )
        worst = max(worst, error)
    return worst


def check_reference(
    shape: _spec.Shape,
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    dtype: DTypeLike = np.float64,
    seed: _spec.Int = 0,
    rtol: _spec.Real | None = None,
    forward: Callable[..., Any] | None = None,
    backward: Callable[..., Any] | None = None,
) -> float:
    """Compare forward and backward with the float64 reference operator.

    Each axis is applied as its dense matrix (``reference_matrices``) or, where that
    would have more than 2**24 entries (128 MiB; 20,000 -> 30,000 would be 4.8 GB), as
    its sparse taps, the same weights: time and memory then follow the taps.

    Parameters
    ----------
    shape, size, scale_factor, mode, align_corners, antialias, axes, dtype, seed, rtol
        As for ``check_adjoint``.
    forward, backward : callable, optional
        As for ``check_adjoint``.

    Returns
    -------
    float
        The larger of ``max|resize(x) - W x| / (max|x| * prod(max row sum |W|))`` and
        ``max|resize_backward(g) - W.T g| / (max|g| * prod(max column sum |W|))``
        (the specification's section 6: ``cresize.testing``'s docstring).

    Raises
    ------
    AssertionError
        When it exceeds ``rtol`` (default ``TOLERANCES[dtype]``); the message says
        how many values are off, the indices they occupy along each axis (``[:, :,
        :, 10]``: the last column of an 11-wide input) and the worst value with its
        index, the result and the expected value.
    TypeError, ValueError
        An argument the check refuses: as ``cresize.resize`` refuses the geometry
        and options, ``dtype`` not float32 or float64, ``seed`` or ``rtol`` out of
        range, ``forward`` or ``backward`` not callable. An exception that
        ``forward`` or ``backward`` raises is not caught.
    """
    dtype, rtol = _dtype_rtol(dtype, rtol, "check_reference")
    forward, backward, spec, options = _setup(
        shape, size, scale_factor, mode, align_corners, antialias, axes, forward, backward
    )
    rng = np.random.default_rng(_seed(seed))
    x = rng.uniform(-1, 1, shape).astype(dtype)
    g = rng.uniform(-1, 1, spec.output_shape).astype(dtype)
    errors = []
    forward_operators = _operators(spec)
    for name, a, result, operators in (
        ("forward", x, _call(forward, "forward", x, size, **options), forward_operators),
        (
            "backward",
            g,
            _call(backward, "backward", g, tuple(shape), **options),
            _transposed(forward_operators),
        ),
    ):
        expected = a.astype(np.float64)
        for axis, operator in operators.items():
            expected = _apply_operator(expected, axis, operator)
        result = _result(result, expected.shape, dtype, name)
        scale = float(np.abs(a).max(initial=0)) * np.prod([_row_sum(w) for w in operators.values()])
        deviation = float(np.abs(result.astype(np.float64) - expected).max(initial=0))
        error = deviation / scale if scale else deviation
        if not error <= rtol:
            raise AssertionError(
                f"{name} deviates from the dense reference for shape={tuple(shape)} "
                f"{_describe(size, options)} dtype={dtype}: max deviation {deviation:.3e}, "
                f"scale {scale:.3e}, relative {error:.3e} > rtol {rtol:.1e}; "
                + _mismatch(result, expected, rtol * scale if scale else rtol)
                + _lookalike(
                    a,
                    result,
                    rtol * scale if scale else rtol,
                    tuple(shape),
                    size,
                    {k: v for k, v in options.items() if k != "axes"},
                    options["axes"],
                    transpose=name == "backward",
                )
            )
        errors.append(error)
    return max(errors)


# ----------------------------------------------------------------------------
# Helpers


def _setup(shape, size, scale_factor, mode, align_corners, antialias, axes, forward, backward):
    shape = _spec.shape(shape, "shape")
    for name, fn in (("forward", forward), ("backward", backward)):
        if fn is not None and not callable(fn):
            raise TypeError(f"{name} must be None or a callable; got {fn!r}")
    # Look the defaults up at call time, so that a wrapped cresize is what is checked.
    forward = cresize.resize if forward is None else forward
    backward = cresize.resize_backward if backward is None else backward
    spec = _spec.forward(
        shape, size, scale_factor, mode, align_corners, antialias, axes, name="shape"
    )
    _spec.check_sizes(spec, 8)  # the float64 arrays: refused before any is drawn
    options = dict(
        scale_factor=scale_factor,
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
        # in the order given (negative ones counted from the end): ``size`` and
        # ``scale_factor`` tuples pair with them (sorted, (1, 0) resized the wrong axes)
        axes=spec.axes,
    )
    return forward, backward, spec, options


def _call(function, name, a, *args, **options):
    """``function(copy of a, *args, **options)``: the check keeps its own ``a``, and an
    implementation that writes into its input fails (it would corrupt the check)."""
    try:  # a wrapper without the keywords the checks pass: say so, not just "unexpected"
        inspect.signature(function).bind(a, *args, **options)
    except TypeError as exc:
        like = "cresize.resize" if name == "forward" else "cresize.resize_backward"
        raise TypeError(
            f"{name} must take the arguments of {like}: called as {name}({_ARGS[name]}, "
            f"{', '.join(f'{k}=...' for k in options)}); {exc}"
        ) from None
    except ValueError:  # no signature to read (some builtins): just call it
        pass
    given = a.copy()
    value = function(given, *args, **options)
    if not np.array_equal(given, a, equal_nan=True):
        raise AssertionError(
            f"{name} modified its input ({'x' if name == 'forward' else 'grad_output'}) "
            f"in place: {_mismatch(given, a, 0.0)}"
        )
    return value


def _result(value, shape, dtype, name):
    if value is None:  # a function that fills a result but does not return it
        raise AssertionError(f"{name} returned None; expected an array of shape {tuple(shape)}")
    value = np.asarray(value)
    if value.shape != tuple(shape):
        raise AssertionError(f"{name} returned shape {value.shape}; expected {tuple(shape)}")
    if value.dtype != dtype:
        raise AssertionError(f"{name} returned dtype {value.dtype}; expected {np.dtype(dtype)}")
    return value


def _mismatch(actual, expected, atol):
    """Where ``actual`` and ``expected`` differ by more than ``atol``, in words.

    Parameters
    ----------
    actual, expected : array_like
        Arrays of one shape (compared in float64; NaN counts as a mismatch).
    atol : float
        The allowed absolute difference (0: any change counts).

    Returns
    -------
    str
        How many values differ, the indices they occupy along each axis (``:``
        for every index, ranges as ``a-b``), and the worst one with its index (and
        its index in the flat C-order array) and both values, e.g. ``"42 of 630
        values off by more than 1e-12, at [:, :, :, 8]; worst at (1, 2, 6, 8) (flat
        377): 0.25 instead of 0.5"``; ``"... off by more than 1e-12 or NaN (3 NaN), ..."``
        when some are NaN in either array; ``"no value off by more than ..."`` when none is.
    """
    actual = np.asarray(actual, np.float64)
    expected = np.asarray(expected, np.float64)
    if actual.shape != expected.shape:
        raise ValueError(f"shapes differ: {actual.shape} and {expected.shape}")
    diff = np.abs(actual - expected)
    bad = ~(diff <= atol)  # NaN is bad
    n = int(np.count_nonzero(bad))
    off = f"off by more than {atol:.3g}" if atol else "changed"
    if not n:
        return f"no value {off}"
    nan = int(np.count_nonzero(np.isnan(diff)))  # NaN is not off by any amount: say so
    if nan:
        off += f" or NaN ({nan} NaN)"
    worst = np.unravel_index(int(np.argmax(np.where(np.isnan(diff), np.inf, diff))), diff.shape)
    axes = []
    for axis, length in enumerate(bad.shape):
        hit = np.flatnonzero(np.moveaxis(bad, axis, 0).reshape(length, -1).any(axis=1))
        axes.append(":" if hit.size == length else _ranges(hit))
    index = tuple(int(i) for i in worst)
    flat = f" (flat {np.ravel_multi_index(index, bad.shape)})" if bad.ndim > 1 else ""
    return (
        f"{n} of {bad.size} values {off}, at [{', '.join(axes)}]; worst at {index}{flat}: "
        f"{float(actual[index])!r} instead of {float(expected[index])!r}"
    )


def _lookalike(a, result, atol, shape, size, options, axes, transpose):
    """``"; it is what align_corners=False gives"`` when ``result`` is, within ``atol``,
    the dense operator (``W``, or ``W.T`` with ``transpose``) applied to ``a`` of options
    that differ from ``options`` in one respect (``align_corners`` or ``antialias``
    flipped, another mode, or, given a ``scale_factor``, the output lengths as ``size``
    instead: the axes read at ``in/out``, not ``1/f``; every match, joined by "or");
    ``""`` when none matches. For failure messages only."""
    changes = [dict(align_corners=not options["align_corners"])]
    changes += [dict(antialias=not options["antialias"])]
    changes += [dict(mode=m) for m in cresize.MODES if m != options["mode"]]
    if options["scale_factor"] is not None:  # a port that takes output lengths only
        lengths = _spec.forward(shape, size, **options, axes=axes).lengths
        changes += [dict(scale_factor=None, size=tuple(int(n) for n in lengths))]
    result = np.asarray(result, np.float64)
    matches = []
    for change in changes:
        o = {**options, "size": size, **change}
        try:
            spec = _spec.forward(
                shape,
                o["size"],
                o["scale_factor"],
                o["mode"],
                o["align_corners"],
                o["antialias"],
                axes,
            )
        except (TypeError, ValueError):  # not a valid combination
            continue
        expected = np.asarray(a, np.float64)
        for axis, operator in _operators(spec, transpose).items():
            expected = _apply_operator(expected, axis, operator)
        if expected.shape == result.shape and np.abs(result - expected).max(initial=0) <= atol:
            if "size" in change:
                matches.append(f"size={change['size']} without scale_factor (read at in/out)")
            else:
                ((option, value),) = change.items()
                matches.append(f"{option}={value!r}")
    return f"; it is what {' or '.join(matches)} gives" if matches else ""


def _ranges(indices, limit=6):
    """Sorted indices as ``8`` or ``{1, 4-7, 9}``; more than ``limit`` runs end in ``...``."""
    if indices.size == 1:
        return str(indices[0])
    runs = np.split(indices, np.flatnonzero(np.diff(indices) != 1) + 1)
    text = [f"{r[0]}" if r.size == 1 else f"{r[0]}-{r[-1]}" for r in runs[:limit]]
    return "{" + ", ".join(text) + (", ..." if len(runs) > limit else "") + "}"


def _contract(a, axis, matrix):
    return np.moveaxis(np.tensordot(matrix, a, axes=([1], [axis])), 0, axis)


def _float64(a, name):
    a = _spec.as_array(a, name)
    if a.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be a real (float or integer) array, not {a.dtype}")
    return a.astype(np.float64, order="C")  # always a copy


def _dtype_rtol(dtype, rtol, where):
    try:  # a byte-swapped dtype ('>f4') is its native type, as cresize.plan takes it
        dtype = np.dtype(dtype).newbyteorder("=")
    except TypeError:
        raise TypeError(f"{where}: dtype must be float32 or float64; got {dtype!r}") from None
    if dtype not in TOLERANCES:
        raise TypeError(f"{where}: dtype must be float32 or float64; got {dtype}")
    return dtype, TOLERANCES[dtype] if rtol is None else _positive(rtol, "rtol", measure=True)


def _positive(value, name, measure=False):
    """``value`` as a float > 0, taken as every float argument is (``_spec.real``: a
    0-d array too); finite, or with ``measure`` also ``np.inf`` (an ``rtol`` that only
    measures, as ``cresize check`` uses it); a refusal quotes it as passed (``0``, not
    ``0.0``)."""
    given = value
    value = _spec.real(value, name, "a positive float")
    if math.isnan(value) or (value == math.inf and not measure):
        allowed = "finite (or np.inf, which only measures)" if measure else "finite"
        raise ValueError(f"{name} must be {allowed} and > 0; got {given!r}")
    if not value > 0:
        raise ValueError(f"{name} must be > 0; got {given!r}")
    return value


#: Seeds are below this: a seed is written into JSON (golden files, ``cresize check
#: --json``), where an integer above 2**53 is not read back exactly by every reader
#: (JavaScript's numbers, RFC 8259 section 6) and one above 2**64 by none with 64-bit ints.
_SEED_LIMIT = 2**53


def _seed(value, name="seed"):
    """A seed of ``np.random.default_rng``, ``0 <= seed < _SEED_LIMIT``, checked here so
    that the error names it (quoting it as passed)."""
    given = value
    value = _spec.integer(value, name, f"an int >= 0 and < 2**53 ({_SEED_LIMIT})")
    if not 0 <= value < _SEED_LIMIT:
        raise ValueError(f"{name} must be an int >= 0 and < 2**53 ({_SEED_LIMIT}); got {given!r}")
    return value


#: The most directions ``check_gradient`` takes: each is two forward calls (about 0.13
#: ms on a (4, 4) input, 4 ms on (3, 64, 64): 1,000,000 are minutes to hours), and one
#: random direction already tests the whole gradient's projection; ``cresize check``
#: takes 3. A larger count (``2**63``) is a mistake that would run for ever.
_N_DIRECTIONS_MAX = 10**6


def _count(value, name, most):
    allowed = f"an int from 1 to {most:,}"
    given = value
    value = _spec.integer(value, name, allowed)
    if not 1 <= value <= most:
        raise ValueError(f"{name} must be {allowed}; got {given!r}")
    return value


def _describe(size, options):
    given = (
        f"size={size}"
        if options["scale_factor"] is None
        else f"scale_factor={options['scale_factor']}"
    )
    return (
        f"{given} mode={options['mode']!r} align_corners={options['align_corners']} "
        f"antialias={options['antialias']} axes={options['axes']}"
    )
