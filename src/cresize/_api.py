"""What the user sees: ``resize``, ``resize_backward`` and ``weights``.

Each call normalises its arguments (``_spec``), takes the cached plan of that
description (``_plan``) and runs it; thread resolution lives here.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from cresize import _fast, _plan, _spec
from cresize._threads import resolve as _threads


# The result has the input's dtype: an array of a known dtype gives an array of that
# dtype to a type checker; anything else (a list) gives an array of unknown dtype.
@overload
def resize(
    x: npt.NDArray[_spec.Scalar],
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    out: np.ndarray | None = None,
    num_threads: _spec.Int | None = None,
) -> npt.NDArray[_spec.Scalar]: ...
@overload
def resize(
    x: ArrayLike,
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    out: np.ndarray | None = None,
    num_threads: _spec.Int | None = None,
) -> npt.NDArray[Any]: ...
def resize(
    x: ArrayLike,
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    out: np.ndarray | None = None,
    num_threads: _spec.Int | None = None,
) -> npt.NDArray[Any]:
    """Resize an array along some of its axes.

    Parameters
    ----------
    x : array_like
        float32 and float64 are computed natively; float16 is computed in
        float32; 8- and 16-bit integers are read and written by the kernels
        (float32 sums for 8-bit, float64 for 16-bit; no float copy of ``x``),
        wider integers computed in float64 (nearest modes gather them, exactly);
        then rounded to nearest (half to even) and clipped to the dtype's range.
        The result has ``x``'s dtype.
        bool, complex and object arrays are errors.
    size : int or tuple of int, optional
        Output length of each resized axis (an int applies to every resized axis).
    scale_factor : float or tuple of float, optional
        Per-axis factor ``f > 0``; the output length is ``floor(I * f)`` and,
        with ``align_corners=False``, the scale is ``1 / f`` (PyTorch's rule;
        ``area`` takes only the length). Exactly one of ``size`` and
        ``scale_factor`` must be given.
    mode : str
        One of ``MODES`` (``"nearest"``, ``"nearest-exact"``, ``"bilinear"``,
        ``"bicubic"``, ``"lanczos3"``, ``"area"``) or an alias: ``"linear"`` and
        ``"trilinear"`` (bilinear), ``"cubic"`` (bicubic), ``"nearest_exact"``;
        default ``"bilinear"``.
    align_corners : bool or None
        Default False; None means False. True is an error for nearest,
        nearest-exact and area.
    antialias : bool
        Widen the kernel when shrinking (Pillow's rule; default False). True is
        an error for nearest, nearest-exact and area.
    axes : int or tuple of int, optional
        The resized axes. Default: for a tuple ``size`` or ``scale_factor``, as
        many last axes as it has entries; else the last ``min(2, x.ndim)`` axes.
        Every other axis is a batch axis. A
        channels-last ``(H, W, C)`` image needs ``axes=(0, 1)``: without it, W
        and C are resized.
    out : ndarray, optional
        C-contiguous array of the result's shape and dtype, not overlapping ``x``.
    num_threads : int, optional
        None: OpenMP's current default (``OMP_NUM_THREADS``, threadpoolctl);
        a positive int: that many (at most 4096); a negative int: counted back
        from that default (-1 is all of them, never fewer than 1). 0 is an error.

    Returns
    -------
    ndarray
        C-contiguous (or ``out``). The result does not depend on ``num_threads``.

    Raises
    ------
    TypeError
        An argument of the wrong type: ``x`` of a bool, complex or object dtype,
        ``x`` a Dask array (``np.asarray`` would compute all of it: call
        ``cresize.dask.resize`` for a lazy result, or pass ``x.compute()``),
        ``size`` not an int or ints, ``scale_factor`` not a number or numbers, ...
    ValueError
        A value not allowed: both or neither of ``size`` and ``scale_factor``, an
        unknown ``mode``, ``align_corners=True`` or ``antialias=True`` for a mode
        without it, an axis out of range, ``num_threads=0``, an ``out`` of another
        shape or dtype, not C-contiguous or sharing memory with ``x``, a result
        larger than any array can be.
    MemoryError
        The result and its tap tables would not fit in this machine's memory
        (checked before anything is allocated).

    Notes
    -----
    Each resized axis applies a matrix ``W`` of shape ``(O, I)``. With scale
    ``s = I/O`` (``1/f`` with ``scale_factor``; ``(I-1)/(O-1)`` with
    ``align_corners``) and ``src = (o + 0.5)*s - 0.5`` (``s*o`` with
    ``align_corners``), output ``o`` reads:

    * nearest: ``min(floor(o*s), I-1)``, exactly ``(o*I)//O`` by size;
    * nearest-exact: ``min(floor((o+0.5)*s), I-1)``, exactly ``((2o+1)*I)//(2O)``;
    * bilinear: ``i0 = min(floor(max(src, 0)), I-1)``, taps ``i0, i0+1`` (clamped);
    * bicubic: Keys ``A=-0.75`` on ``floor(src)-1 … floor(src)+2``, edge replicated;
    * lanczos3: ``L(src-k)`` for ``k = floor(src)-2 … floor(src)+3`` inside
      ``[0, I)``, the row renormalised;
    * area: the mean of ``floor(o*I/O) … ceil((o+1)*I/O)-1``;
    * antialias: kernel widened by ``s`` when ``s > 1``, centred at
      ``s*(o+0.5)``, rows normalised (Pillow / PyTorch ``antialias=True``).

    Examples
    --------
    >>> import numpy as np, cresize
    >>> x = np.arange(4.0)
    >>> cresize.resize(x, 8, mode="bilinear")
    array([0.  , 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.  ])
    """
    key = None
    if type(x) is np.ndarray:  # the common call (out= too): one dict look-up
        result = _fast.cached_resize(
            _plan._FAST,
            x,
            size,
            scale_factor,
            mode,
            align_corners,
            antialias,
            axes,
            num_threads,
            out,
        )
        if result is not None:
            return result
        key = _plan.fast_key(x, size, scale_factor, mode, align_corners, antialias, axes)
        found = _plan.recall(key)
        if found is not None:
            out = _plan._check_out(out, found.output_shape, found.dtype, (x,))
            return _plan._execute(
                found._forward, found._forward.tables, x, out, _threads(num_threads)
            )
    x = _spec.as_array(x, "x", "cresize.dask.resize(x, ...)")
    dtype = x.dtype.newbyteorder("=")
    _spec.compute_dtype(dtype)
    spec = _spec.forward(
        x.shape, size, scale_factor, mode, align_corners, antialias, axes, checked_shape=True
    )
    out = _plan._check_out(out, spec.output_shape, dtype, (x,))
    threads = _threads(num_threads)  # refused before a plan is made and cached
    found = _plan.cached_plan(spec, dtype)
    _plan.remember(key, found)
    return _plan._execute(found._forward, found._forward.tables, x, out, threads)


@overload
def resize_backward(
    grad_output: npt.NDArray[_spec.Scalar],
    input_shape: _spec.Shape,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    out: np.ndarray | None = None,
    num_threads: _spec.Int | None = None,
) -> npt.NDArray[_spec.Scalar]: ...
@overload
def resize_backward(
    grad_output: ArrayLike,
    input_shape: _spec.Shape,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    out: np.ndarray | None = None,
    num_threads: _spec.Int | None = None,
) -> npt.NDArray[Any]: ...
def resize_backward(
    grad_output: ArrayLike,
    input_shape: _spec.Shape,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    out: np.ndarray | None = None,
    num_threads: _spec.Int | None = None,
) -> npt.NDArray[Any]:
    """Gradient of ``resize`` with respect to its input (the exact adjoint).

    Parameters
    ----------
    grad_output : ndarray
        float32 or float64, of the shape ``resize`` returned.
    input_shape : tuple of int
        The full shape of ``resize``'s input.
    scale_factor, mode, align_corners, antialias, num_threads
        As given to ``resize``. Without ``scale_factor`` the scale of an axis is
        ``I/O`` from the shapes, which differs from the forward's ``1/f``
        wherever ``I*f`` is not a whole number: pass the forward's.
    axes : int or tuple of int, optional
        The resized axes. Default: with ``scale_factor``, ``resize``'s rule;
        otherwise the axes where ``grad_output.shape`` differs from
        ``input_shape`` (an unchanged axis is the identity in every mode).
    out : ndarray, optional
        C-contiguous array of shape ``input_shape`` and ``grad_output``'s dtype.

    Returns
    -------
    ndarray
        ``W.T @ grad_output`` along every resized axis, of shape ``input_shape``,
        so that ``<resize(x), g> == <x, resize_backward(g, x.shape)>``.

    Raises
    ------
    TypeError
        ``grad_output`` not float32 or float64 or a Dask array
        (``cresize.dask.resize_backward`` takes it), or another argument of the
        wrong type (as for ``resize``).
    ValueError
        ``input_shape`` of another number of dimensions than ``grad_output``, a
        ``grad_output`` shape that ``resize`` cannot return from ``input_shape``,
        or a value ``resize`` refuses.
    MemoryError
        As for ``resize``.
    """
    key = None
    if type(grad_output) is np.ndarray:  # a repeated call (out= too): one dict look-up
        result = _fast.cached_resize(
            _plan._FAST,
            grad_output,
            input_shape,
            scale_factor,
            mode,
            align_corners,
            antialias,
            axes,
            num_threads,
            out,
            True,
        )
        if result is not None:
            return result
        key = _plan.fast_key(
            grad_output, input_shape, scale_factor, mode, align_corners, antialias, axes
        )
        key = None if key is None else ("backward", key)
        found = _plan.recall(key)
        if found is not None:
            program = found._backward
            out = _plan._check_out(out, found.input_shape, found.dtype, (grad_output,))
            return _plan._execute(program, program.tables, grad_output, out, _threads(num_threads))
    grad = _spec.as_array(
        grad_output, "grad_output", "cresize.dask.resize_backward(grad_output, ...)"
    )
    _spec.gradient_dtype(grad.dtype)
    spec = _spec.backward(
        grad.shape, input_shape, scale_factor, mode, align_corners, antialias, axes
    )
    dtype = grad.dtype.newbyteorder("=")
    out = _plan._check_out(out, spec.input_shape, dtype, (grad,))
    threads = _threads(num_threads)  # refused before a plan is made and cached
    found = _plan.cached_plan(spec, dtype)
    program = found._backward
    _plan.remember(key, found)
    return _plan._execute(program, program.tables, grad, out, threads)


def weights(
    in_size: _spec.Int,
    out_size: _spec.Int | None = None,
    *,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    scale_factor: _spec.Real | None = None,
) -> npt.NDArray[np.float64]:
    """The dense ``(out_size, in_size)`` float64 matrix of one resized axis.

    ``resize`` along an axis equals ``weights(...) @ x`` along that axis.

    Parameters
    ----------
    in_size : int
        Length of the axis before resizing (``I``).
    out_size : int, optional
        Length after resizing (``O``). May be omitted with ``scale_factor``: it is
        then ``floor(in_size * f)``.
    mode, align_corners, antialias
        As for ``resize``.
    scale_factor : float, optional
        The factor ``f`` of ``resize(..., scale_factor=f)``, whose scale
        (``1 / f``) the matrix then uses. ``area`` and ``align_corners=True`` take
        only the output length from it, as ``resize`` does.

    Returns
    -------
    ndarray
        float64 of shape ``(out_size, in_size)``; row ``o`` holds the weights
        output ``o`` gives each input.

    Raises
    ------
    TypeError, ValueError
        As for ``resize``.
    MemoryError
        The dense matrix would not fit in this machine's memory.

    Examples
    --------
    >>> import cresize
    >>> cresize.weights(2, 4, mode="bilinear")
    array([[1.  , 0.  ],
           [0.75, 0.25],
           [0.25, 0.75],
           [0.  , 1.  ]])
    """
    spec = _spec.weights_spec(in_size, out_size, mode, align_corners, antialias, scale_factor)
    _spec.check_sizes(spec, 8, dense=True)
    ((_, n_in, n_out, f),) = _spec.axis_geometry(spec)
    return _plan.table(n_in, n_out, spec.mode, spec.align_corners, spec.antialias, f).dense()
