"""What the user sees: ``resize``, ``resize_backward`` and ``weights``.

Validation, shapes, dtypes, ``out=`` and threads live here; the numbers come
from the tap tables (``_tables``) and the loops from the kernels (``_kernels``).
"""
import math
import numbers
import operator

import numpy as np

from cresize import _kernels
from cresize._tables import (ALIASES, ANTIALIAS_SUPPORT, MODES, NO_ALIGN_CORNERS,
                             output_length, taps)
from cresize._threads import resolve as _threads


def resize(x, size=None, *, scale_factor=None, mode="bilinear", align_corners=False,
           antialias=False, axes=None, out=None, num_threads=None):
    """Resize an array along some of its axes.

    Parameters
    ----------
    x : array_like
        float32 and float64 are computed natively; float16 is computed in
        float32; integer arrays are computed in float32 (8- and 16-bit) or
        float64 (wider), then rounded to nearest and clipped to the dtype's range.
        The result has ``x``'s dtype. bool, complex and object arrays are errors.
    size : int or tuple of int, optional
        Output length of each resized axis (an int applies to every resized axis).
    scale_factor : float or tuple of float, optional
        Per-axis factor ``f > 0``; the output length is ``floor(I * f)`` and,
        with ``align_corners=False``, the scale is ``1 / f`` (PyTorch's rule).
        Exactly one of ``size`` and ``scale_factor`` must be given.
    mode : str
        One of ``MODES`` (``"nearest"``, ``"nearest-exact"``, ``"bilinear"``,
        ``"bicubic"``, ``"lanczos3"``, ``"area"``) or an alias: ``"linear"`` and
        ``"trilinear"`` (bilinear), ``"cubic"`` (bicubic), ``"nearest_exact"``.
    align_corners : bool or None
        None means False. An error for nearest, nearest-exact and area.
    antialias : bool
        Widen the kernel when shrinking (Pillow's rule). Bilinear, bicubic and
        lanczos3 only.
    axes : int or tuple of int, optional
        The resized axes. Default: the last ``len(size)`` axes for a tuple, else
        the last ``min(2, x.ndim)`` axes. Every other axis is a batch axis.
    out : ndarray, optional
        C-contiguous array of the result's shape and dtype, not overlapping ``x``.
    num_threads : int, optional
        None: OpenMP's current default (``OMP_NUM_THREADS``, threadpoolctl);
        a positive int: that many; a negative int: counted back from that
        default (-1 is all of them).

    Returns
    -------
    ndarray
        C-contiguous (or ``out``). The result does not depend on ``num_threads``.

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
    x = _as_array(x, "x")
    compute = _compute_dtype(x)
    mode, align_corners, antialias = _options(mode, align_corners, antialias)
    axes = _resize_axes(x.ndim, size, scale_factor, axes)
    lengths, factors = _lengths(x.shape, axes, size, scale_factor)
    out_shape = list(x.shape)
    for axis, n_out in zip(axes, lengths):
        out_shape[axis] = n_out
    out = _check_out(out, tuple(out_shape), x.dtype, (x,))
    tables = {axis: taps(x.shape[axis], n_out, mode, align_corners, antialias, f)
              for axis, n_out, f in zip(axes, lengths, factors)}
    num_threads = _threads(num_threads)
    if all(t.is_identity for t in tables.values()):  # exact for every dtype
        if out is None:
            return np.array(x, dtype=x.dtype.newbyteorder("="), order="C", copy=True)
        np.copyto(out, x)
        return out
    if compute == x.dtype:
        return _apply(np.ascontiguousarray(x), tables, out, num_threads)
    small_int = x.dtype.kind in "iu" and x.dtype.itemsize <= 2
    native = x.dtype.newbyteorder("=")
    if small_int:  # 8/16-bit images: convert and round in parallel
        src = np.empty(x.shape, np.float32)
        _kernels.integers_to_float(np.ascontiguousarray(x, native).reshape(-1),
                                   src.reshape(-1), _useful_threads(num_threads, 2 * src.size))
    else:
        src = np.ascontiguousarray(x, dtype=compute)
    result = _apply(src, tables, None, num_threads)
    target = out if out is not None else np.empty(result.shape, native)
    if small_int:
        _kernels.float_to_integers(result.reshape(-1), target.reshape(-1),
                                   _useful_threads(num_threads, 2 * result.size))
    elif x.dtype.kind in "iu":  # 32/64-bit: clip to the float64 values inside the range
        info = np.iinfo(x.dtype)
        high = np.float64(info.max)
        if int(high) > info.max:
            high = np.nextafter(high, 0)
        np.copyto(target, np.clip(np.rint(result), info.min, high), casting="unsafe")
    else:
        np.copyto(target, result, casting="unsafe")
    return target


def resize_backward(grad_output, input_shape, *, scale_factor=None, mode="bilinear",
                    align_corners=False, antialias=False, axes=None, out=None,
                    num_threads=None):
    """Gradient of ``resize`` with respect to its input (the exact adjoint).

    Parameters
    ----------
    grad_output : ndarray
        float32 or float64, of the shape ``resize`` returned.
    input_shape : tuple of int
        The full shape of ``resize``'s input.
    scale_factor, mode, align_corners, antialias, num_threads
        As given to ``resize``.
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
    """
    grad = _as_array(grad_output, "grad_output")
    if grad.dtype.type not in (np.float32, np.float64):
        raise TypeError(f"grad_output must be float32 or float64, not {grad.dtype}")
    input_shape = _shape(input_shape, grad.ndim)
    mode, align_corners, antialias = _options(mode, align_corners, antialias)
    if axes is None and scale_factor is None:
        axes = tuple(a for a in range(grad.ndim) if grad.shape[a] != input_shape[a])
        size = tuple(grad.shape[a] for a in axes)
    else:
        axes = _resize_axes(grad.ndim, None if scale_factor is not None else 1,
                            scale_factor, axes)
        size = None if scale_factor is not None else tuple(grad.shape[a] for a in axes)
    lengths, factors = _lengths(input_shape, axes, size, scale_factor)
    expected = list(input_shape)
    for axis, n_out in zip(axes, lengths):
        expected[axis] = n_out
    if tuple(expected) != grad.shape:
        raise ValueError(f"grad_output has shape {grad.shape}, but resize would return "
                         f"{tuple(expected)} for input_shape {input_shape} on axes {axes}")
    out = _check_out(out, input_shape, grad.dtype, (grad,))
    tables = {axis: taps(input_shape[axis], n_out, mode, align_corners, antialias, f).transpose()
              for axis, n_out, f in zip(axes, lengths, factors)}
    src = np.ascontiguousarray(grad, dtype=grad.dtype.newbyteorder("="))
    return _apply(src, tables, out, _threads(num_threads))


def weights(in_size, out_size=None, *, mode="bilinear", align_corners=False,
            antialias=False, scale_factor=None):
    """The dense ``(out_size, in_size)`` float64 matrix of one resized axis.

    ``resize`` along an axis equals ``weights(...) @ x`` along that axis. With
    ``scale_factor``, ``out_size`` may be omitted (it is ``floor(in_size * f)``).
    """
    mode, align_corners, antialias = _options(mode, align_corners, antialias)
    in_size = _length(in_size, "in_size")
    if scale_factor is not None:
        factor = _factor(scale_factor, "scale_factor")
        n_out = _checked_length(in_size, factor)
        if out_size is not None and _length(out_size, "out_size") != n_out:
            raise ValueError(f"out_size={out_size} does not match scale_factor={scale_factor}: "
                             f"floor({in_size} * {scale_factor}) = {n_out}")
    elif out_size is None:
        raise ValueError("weights needs out_size or scale_factor")
    else:
        n_out, factor = _length(out_size, "out_size"), None
    return taps(in_size, n_out, mode, align_corners, antialias, factor).dense()


# ----------------------------------------------------------------------------
# The passes


#: Taps per output beyond which float32 sums are accumulated in float64, so that
#: very long rows (shrinking by thousands) stay within docs/spec.md's float32 tolerance.
LONG_SUM = 2048


def _apply(src, tables, out, num_threads):
    """Contract ``src`` with each axis' table; the step that shrinks most goes first.

    The last two adjacent resized axes are done together in one sweep with no
    intermediate array (``_kernels.resize_2d``); any other axis is a pass of its own.
    """
    if src.dtype == np.float32 and any(t.index.shape[1] > LONG_SUM for t in tables.values()):
        result = _apply(src.astype(np.float64), tables, None, num_threads)
        if out is None:
            return result.astype(np.float32)
        np.copyto(out, result, casting="same_kind")
        return out
    passes = sorted((axis, t) for axis, t in tables.items() if not t.is_identity)
    steps = [[p] for p in passes]
    if len(passes) >= 2 and passes[-2][0] + 1 == passes[-1][0]:
        steps[-2:] = [passes[-2:]]
    steps.sort(key=lambda step: math.prod(t.n_out / t.n_in for _, t in step))
    current = src
    for number, step in enumerate(steps):
        shape = list(current.shape)
        for axis, table in step:
            shape[axis] = table.n_out
        last = number == len(steps) - 1
        dst = out if (last and out is not None) else np.empty(shape, src.dtype)
        if dst.size:
            _run_step(current, dst, step, num_threads)
        current = dst
    if current is src:  # every axis was an identity
        if out is None:
            return src.copy()
        np.copyto(out, src)
        return out
    return current


#: Values read and written per thread below which more threads cost more than they save.
MIN_WORK_PER_THREAD = 16384


def _useful_threads(num_threads, size):
    """Results do not depend on the thread count, so small jobs use fewer threads."""
    return max(1, min(num_threads, size // MIN_WORK_PER_THREAD))


def _run_step(src, dst, step, num_threads):
    num_threads = _useful_threads(num_threads, src.size + dst.size)
    first, table = step[0]
    outer = math.prod(src.shape[:first])
    inner = math.prod(dst.shape[step[-1][0] + 1:])
    if len(step) == 2:
        x_table = step[1][1]
        if table.n_out > table.n_in:
            order, slots, row = _kernels.Order.RING, table.span, table.span * x_table.n_out
        else:
            order = _kernels.Order.DIRECT if table.is_selection else _kernels.Order.VERTICAL_FIRST
            slots, row = 1, x_table.n_in
        scratch = np.empty((num_threads, row * inner), src.dtype)
        tags = np.empty((num_threads, slots), np.intp)
        _kernels.resize_2d(src.reshape(outer, table.n_in, -1),
                           dst.reshape(outer, table.n_out, -1), inner,
                           *table.kernel_args(src.dtype), *x_table.row_args(src.dtype),
                           order, scratch, tags, num_threads)
    elif inner == 1:
        _kernels.gather_lines(src.reshape(outer, table.n_in), dst.reshape(outer, table.n_out),
                              *table.row_args(src.dtype), num_threads)
    else:
        _kernels.gather_planes(src.reshape(outer, table.n_in, inner),
                               dst.reshape(outer, table.n_out, inner),
                               *table.kernel_args(src.dtype), num_threads)


# ----------------------------------------------------------------------------
# Validation


def _as_array(x, name):
    if isinstance(x, np.ndarray):
        return x
    try:
        return np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be a NumPy array or array_like: {exc}") from None


def _compute_dtype(x):
    kind = x.dtype.kind
    if kind == "f" and x.dtype.itemsize in (4, 8):
        return np.dtype(x.dtype.type)  # native byte order
    if kind == "f" and x.dtype.itemsize == 2:
        return np.dtype(np.float32)
    if kind in "iu":
        return np.dtype(np.float32 if x.dtype.itemsize <= 2 else np.float64)
    raise TypeError(f"x must be a float (float16/32/64) or integer array, not {x.dtype}")


def _options(mode, align_corners, antialias):
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string, one of {', '.join(MODES)}; got {mode!r}")
    canonical = ALIASES.get(mode, mode)
    if canonical not in MODES:
        allowed = ", ".join(MODES + tuple(ALIASES))
        raise ValueError(f"mode must be one of {allowed}; got {mode!r}")
    if align_corners is None:
        align_corners = False
    if not isinstance(align_corners, (bool, np.bool_)):
        raise TypeError(f"align_corners must be True, False or None; got {align_corners!r}")
    if not isinstance(antialias, (bool, np.bool_)):
        raise TypeError(f"antialias must be True or False; got {antialias!r}")
    if align_corners and canonical in NO_ALIGN_CORNERS:
        raise ValueError(f"align_corners=True is not defined for mode={mode!r}; it is allowed "
                         f"for bilinear, bicubic and lanczos3")
    if antialias and canonical not in ANTIALIAS_SUPPORT:
        raise ValueError(f"antialias=True is not defined for mode={mode!r}; it is allowed for "
                         f"{', '.join(ANTIALIAS_SUPPORT)}")
    return canonical, bool(align_corners), bool(antialias)


def _resize_axes(ndim, size, scale_factor, axes):
    """The resized axes as a tuple of non-negative ints (docs/spec.md section 5)."""
    if size is None and scale_factor is None:
        raise ValueError("give size or scale_factor (exactly one of them); got neither")
    if size is not None and scale_factor is not None:
        raise ValueError("give size or scale_factor, not both")
    if ndim == 0:
        raise ValueError("x must have at least one dimension; got a 0-d array")
    given = size if size is not None else scale_factor
    name = "size" if size is not None else "scale_factor"
    if axes is None:
        if _is_sequence(given):
            if len(given) > ndim:
                raise ValueError(f"{name} has {len(given)} entries but the array has only "
                                 f"{ndim} dimensions")
            if len(given) == 0:
                raise ValueError(f"{name} must not be empty")
            return tuple(range(ndim - len(given), ndim))
        return tuple(range(ndim - min(2, ndim), ndim))
    if isinstance(axes, (numbers.Integral, np.integer)) and not isinstance(axes, bool):
        axes = (axes,)
    try:
        axes = tuple(operator.index(a) for a in axes)
    except TypeError:
        raise TypeError(f"axes must be an int or a tuple of ints; got {axes!r}") from None
    if not axes:
        raise ValueError("axes must name at least one axis")
    normal = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"axes entry {a} is out of range for an array of {ndim} dimensions")
        normal.append(a % ndim)
    if len(set(normal)) != len(normal):
        raise ValueError(f"axes has duplicate entries: {axes}")
    if _is_sequence(given) and len(given) != len(normal):
        raise ValueError(f"{name} has {len(given)} entries but axes has {len(normal)}")
    return tuple(normal)


def _lengths(shape, axes, size, scale_factor):
    """Output length and per-axis factor (or None) of each resized axis."""
    n = len(axes)
    if size is not None:
        sizes = size if _is_sequence(size) else (size,) * n
        lengths = [_length(s, "size") for s in sizes]
        factors = [None] * n
    else:
        given = scale_factor
        factors = list(given) if _is_sequence(given) else [given] * n
        factors = [_factor(f, "scale_factor") for f in factors]
        lengths = [_checked_length(shape[a], f) for a, f in zip(axes, factors)]
    for a in axes:
        if shape[a] < 1:
            raise ValueError(f"axis {a} has length {shape[a]}; a resized axis needs length >= 1")
    return lengths, factors


#: Bound on an axis length (and so on what a scale factor may ask for).
MAX_LENGTH = 2**40


def _is_sequence(value):
    return isinstance(value, (tuple, list)) or (isinstance(value, np.ndarray) and value.ndim > 0)


def _length(value, name):
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if type(value) is not int and (isinstance(value, bool) or
                                   not isinstance(value, (numbers.Integral, np.integer))):
        raise TypeError(f"{name} must be a positive int (or tuple of them); got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1; got {value}")
    if value >= MAX_LENGTH:
        raise ValueError(f"{name} must be < {MAX_LENGTH}; got {value}")
    return int(value)


def _factor(value, name):
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a positive float (or tuple of them); got {value!r}")
    value = float(value)
    if not (value > 0 and np.isfinite(value)):
        raise ValueError(f"{name} must be finite and > 0; got {value}")
    return value


def _checked_length(n_in, factor):
    if not n_in * factor < MAX_LENGTH:
        raise ValueError(f"scale_factor={factor} gives {n_in} * {factor} output samples on an "
                         f"axis; at most {MAX_LENGTH - 1} are possible")
    n_out = output_length(n_in, factor)
    if n_out < 1:
        raise ValueError(f"scale_factor={factor} gives floor({n_in} * {factor}) = {n_out} "
                         f"output samples; it must give at least 1")
    return n_out


def _shape(input_shape, ndim):
    try:
        shape = tuple(operator.index(s) for s in input_shape)
    except TypeError:
        raise TypeError(f"input_shape must be a tuple of ints; got {input_shape!r}") from None
    if len(shape) != ndim:
        raise ValueError(f"input_shape {shape} has {len(shape)} dimensions but grad_output "
                         f"has {ndim}")
    if any(s < 0 for s in shape):
        raise ValueError(f"input_shape must not have negative lengths; got {shape}")
    return shape


def _check_out(out, shape, dtype, inputs):
    if out is None:
        return None
    if not isinstance(out, np.ndarray) or isinstance(out, np.matrix):
        raise TypeError(f"out must be a NumPy array; got {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}; expected {shape}")
    if out.dtype.newbyteorder("=") != dtype.newbyteorder("=") or not out.dtype.isnative:
        raise ValueError(f"out has dtype {out.dtype}; expected native-order {dtype.newbyteorder('=')}")
    if not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")
    if any(_overlap(out, a) for a in inputs):
        raise ValueError("out must not share memory with the input")
    return out


#: Effort ``np.shares_memory`` may spend deciding whether ``out`` overlaps an input
#: (milliseconds at most); undecided counts as overlapping.
OVERLAP_WORK = 10**5


def _overlap(a, b):
    """Whether ``a`` and ``b`` share a byte (exact: interleaved views do not)."""
    try:
        return np.shares_memory(a, b, max_work=OVERLAP_WORK)
    except np.exceptions.TooHardError:
        return True
