"""The one normalisation layer: user arguments to a canonical description.

Every front end (``resize``, ``resize_backward``, ``weights``, ``plan``,
``cresize.testing``, ``cresize.torch``, ``cresize.image``, ``cresize check``,
``cresize golden``) turns its arguments into a ``Spec`` here: canonical mode,
resized axes, output lengths, per-axis factors, output shape. The compute dtype
and the size checks (docs/spec.md section 5; a result or a table that cannot
exist is refused before anything is built) live here too. Nothing else computes
an output shape, a canonical mode or default axes.
"""

import difflib
import functools
import math
import numbers
import operator
import os
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeVar

import numpy as np

from cresize._tables import (
    ALIASES,
    ANTIALIAS_SUPPORT,
    MODES,
    NO_ALIGN_CORNERS,
    axis_scale,
    output_length,
)

# What the public signatures take, for type checkers: what the checks below take
# (``integer`` and ``real``: NumPy's integer and float scalars and 0-d arrays as well
# as ints and floats; ``length``, ``factor``, ``_axes_list``: also a sequence or a 1-d
# array of them; ``shape``: a sequence or a 1-d integer array), and no more (a 2-d
# array, a 0-d float array as an int: refused at run time, and by a type checker where
# it knows the array's dimensions and dtype). NumPy's annotations give an array's
# number of dimensions as its shape type: ``np.zeros(())`` is a ``tuple[()]`` one, and
# ``np.array(3)`` one of unknown shape and dtype, which every alias takes.
#: A 0-d integer array (``np.zeros((), np.int64)``), which ``integer`` takes as an int.
Int0d = np.ndarray[tuple[()], np.dtype[np.integer[Any]]]
#: A 0-d integer or float array, which ``real`` takes as a float.
Real0d = np.ndarray[tuple[()], np.dtype[np.floating[Any] | np.integer[Any]]]
#: One integer argument (``num_threads``, a cache bound, ``weights``' lengths).
Int = int | np.integer[Any] | Int0d
#: One float argument (``weights``' ``scale_factor``, ``cresize.testing``'s ``rtol``).
Real = float | np.floating[Any] | np.integer[Any] | Real0d
#: A size or ``axes``: one int, or one per resized axis.
Ints = Int | Sequence[Int] | np.ndarray[tuple[int], np.dtype[np.integer[Any]]]
#: A ``scale_factor``: one factor, or one per resized axis.
Reals = Real | Sequence[Real] | np.ndarray[tuple[int], np.dtype[np.floating[Any] | np.integer[Any]]]
#: A whole shape (``input_shape``).
Shape = Sequence[Int] | np.ndarray[tuple[int], np.dtype[np.integer[Any]]]
#: The scalar type of an array, which its result keeps (``resize`` returns ``x``'s dtype).
Scalar = TypeVar("Scalar", bound=np.generic)

#: Bound on an axis length (and so on what a scale factor may ask for).
MAX_LENGTH = 2**40
#: Bound on num_threads.
MAX_THREADS = 4096
#: Elements of the largest array NumPy can describe (``intp`` byte offsets).
MAX_ELEMENTS = 2**62

#: Every name ``mode`` takes: the canonical names, then their aliases.
NAMES = MODES + tuple(ALIASES)
# ``NAMES`` in a refusal of ``mode`` (``canonical_mode``)
_NAMES_LISTED = ", ".join(NAMES)
#: The modes that take ``align_corners=True``.
ALIGN_CORNERS_MODES = tuple(m for m in MODES if m not in NO_ALIGN_CORNERS)


def listed(names):
    """``"a, b and c"``: names in a message."""
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


#: PyTorch's mode names that cresize spells differently, and what they mean:
#: (cresize mode, antialias required). ``"lanczos"`` is PyTorch's antialiased Lanczos-3.
TORCH_MODES = {"lanczos": ("lanczos3", True)}
#: cresize's canonical mode -> PyTorch's ``F.interpolate`` name for it (``None``: none).
TORCH_NAME = {
    "nearest": "nearest",
    "nearest-exact": "nearest-exact",
    "area": "area",
    "bilinear": "linear",
    "bicubic": "bicubic",
    "lanczos3": "lanczos",
}
#: PyTorch's name of a ``linear`` mode by spatial rank.
TORCH_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}


class Spec(NamedTuple):
    """What a call computes, everything but the data and the dtype."""

    input_shape: tuple
    axes: tuple  # resized axes, increasing order is NOT implied (as given)
    lengths: tuple  # output length per entry of ``axes``
    factors: tuple  # scale factor per entry of ``axes`` (None: size-based)
    output_shape: tuple
    mode: str
    align_corners: bool
    antialias: bool


def canonical(spec):
    """``spec`` with its resized axes in increasing order (with their lengths and
    factors): the same operator, bit for bit, since the plan orders its passes by
    axis and shrink (``_plan._Program``), never by the order ``axes`` was given in."""
    order = sorted(range(len(spec.axes)), key=spec.axes.__getitem__)
    return spec._replace(
        axes=tuple(spec.axes[i] for i in order),
        lengths=tuple(spec.lengths[i] for i in order),
        factors=tuple(spec.factors[i] for i in order),
    )


# ----------------------------------------------------------------------------
# Options


def mode_hint(mode):
    """`` (did you mean 'lanczos3'?)`` for a near miss ('lanczos', 'Bicubic'), else ''."""
    close = difflib.get_close_matches(mode.strip().lower(), NAMES, 1, 0.75)
    return f" (did you mean {ALIASES.get(close[0], close[0])!r}?)" if close else ""


def canonical_mode(mode):
    """The canonical name of ``mode`` (an alias or a canonical name). A refusal lists
    every name it takes (``NAMES``, the aliases too: ``trilinear``, ``cubic``), for a
    value of a wrong type (None) as for a wrong name."""
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string, one of {_NAMES_LISTED}; got {mode!r}")
    canonical = ALIASES.get(mode, mode)
    if canonical not in MODES:
        raise ValueError(f"mode must be one of {_NAMES_LISTED}; got {mode!r}{mode_hint(mode)}")
    return canonical


def takes_align_corners(mode):
    """Whether ``mode`` (a name or an alias) takes ``align_corners=True``."""
    return canonical_mode(mode) not in NO_ALIGN_CORNERS


def takes_antialias(mode):
    """Whether ``mode`` (a name or an alias) takes ``antialias=True``."""
    return canonical_mode(mode) in ANTIALIAS_SUPPORT


def options(mode, align_corners, antialias):
    """``(canonical mode, align_corners, antialias)``, the pair rules checked."""
    canonical = canonical_mode(mode)
    if align_corners is None:
        align_corners = False
    align_corners = flag(align_corners, "align_corners", "True, False or None")
    antialias = flag(antialias, "antialias")
    if align_corners and not takes_align_corners(canonical):
        raise ValueError(
            f"align_corners=True is not defined for mode={mode!r}; it is allowed "
            f"for {listed(ALIGN_CORNERS_MODES)}"
        )
    if antialias and not takes_antialias(canonical):
        raise ValueError(
            f"antialias=True is not defined for mode={mode!r}; it is allowed for "
            f"{listed(tuple(ANTIALIAS_SUPPORT))}"
        )
    return canonical, align_corners, antialias


def configurations(modes=MODES):
    """Every valid ``dict(mode, align_corners, antialias)`` of ``modes``."""
    for mode in modes:
        for align_corners in (False, True):
            for antialias in (False, True):
                if align_corners and not takes_align_corners(mode):
                    continue
                if antialias and not takes_antialias(mode):
                    continue
                yield {"mode": mode, "align_corners": align_corners, "antialias": antialias}


def torch_mode(mode, antialias):
    """A PyTorch ``F.interpolate`` mode name (or a cresize one) -> canonical cresize mode."""
    if isinstance(mode, str) and mode in TORCH_MODES:
        canonical, needs_antialias = TORCH_MODES[mode]
        if needs_antialias and not antialias:
            raise ValueError(
                f"mode={mode!r} is PyTorch's antialiased Lanczos-3 and needs "
                f"antialias=True; use mode='lanczos3' for the plain Lanczos-3"
            )
        return canonical
    try:
        return canonical_mode(mode)
    except (TypeError, ValueError) as exc:  # the names above are taken too: say so
        extra = ", ".join(
            f"{name!r} ({canonical} with antialias=True)"
            for name, (canonical, _) in TORCH_MODES.items()
        )
        raise type(exc)(f"{exc}; PyTorch's names also: {extra}") from None


#: ``F.interpolate``'s own mode names and the input ranks (dimensions) it takes each on
#: (its linear names, one per number of spatial dimensions: ``TORCH_LINEAR``); cresize's
#: other names (lanczos3, cubic, nearest_exact) work on any rank.
TORCH_RANKS = {
    "nearest": (3, 4, 5),
    "nearest-exact": (3, 4, 5),
    "area": (3, 4, 5),
    **{name: (spatial + 2,) for spatial, name in TORCH_LINEAR.items()},
    "bicubic": (4,),
    "lanczos": (4,),
}
# The name to use instead where F.interpolate's name does not take the rank (else the
# linear name of the rank)
_TORCH_OTHER_NAME = {"bicubic": "cubic", "lanczos": "lanczos3"}


def torch_rules(mode, ndim, align_corners, antialias):
    """Refuse, with ``F.interpolate``'s exception types, what it refuses for its own
    mode names on a 3-D, 4-D or 5-D input (``cresize.torch``, a drop-in, fails where it
    fails): align_corners given with a mode that does not take it (nearest,
    nearest-exact, area: ``takes_align_corners``), antialias outside bilinear, bicubic
    and lanczos on 4-D input, a name on a rank it does not take (linear: 3-D, bilinear,
    bicubic, lanczos: 4-D, trilinear: 5-D), and lanczos with align_corners=True. More
    spatial dimensions, which PyTorch has no mode for, and cresize's own names keep
    cresize's rules (``options``, ``torch_mode``)."""
    ranks = TORCH_RANKS.get(mode) if isinstance(mode, str) else None
    if ranks is None:
        return
    canonical = TORCH_MODES.get(mode, (mode,))[0]  # "lanczos": lanczos3
    if align_corners is not None and not takes_align_corners(canonical):
        raise ValueError(
            f"align_corners option can only be set with the interpolating modes: linear | "
            f"bilinear | bicubic | trilinear; got align_corners={align_corners!r} with "
            f"mode={mode!r} (leave it None, as F.interpolate requires)"
        )
    if ndim > 5:  # no F.interpolate mode takes it: cresize's extension
        return
    if antialias and not (ndim == 4 and mode in ("bilinear", "bicubic", "lanczos")):
        raise ValueError(
            f"antialias=True is restricted to the bilinear, bicubic and lanczos modes on a "
            f"4-D input, as in F.interpolate; got mode={mode!r} on a {ndim}-D input "
            f"(cresize's 'cubic' and 'lanczos3' take it on any rank, cresize.resize every "
            f"antialiased mode)"
        )
    if ndim not in ranks:
        other = _TORCH_OTHER_NAME.get(mode) or TORCH_LINEAR[ndim - 2]
        raise NotImplementedError(
            f"Got {ndim}D input, but mode={mode!r} needs {ranks[0]}D input (as in "
            f"F.interpolate); for a {ndim}-D input use mode={other!r}"
        )
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True (as in F.interpolate)")


def torch_takes(mode, spatial, align_corners, antialias):
    """Whether ``F.interpolate`` takes its mode name ``mode`` on ``spatial`` dimensions
    with these options as given to it (``align_corners`` None where it is not given):
    ``torch_rules`` and ``torch_mode`` refuse nothing, on 1 to 3 spatial dimensions."""
    if spatial not in TORCH_LINEAR:
        return False
    try:
        torch_rules(mode, spatial + 2, align_corners, antialias)
        torch_mode(mode, antialias)
    except (ValueError, NotImplementedError):
        return False
    return True


def torch_name(mode, spatial):
    """PyTorch's ``F.interpolate`` name of a cresize mode on ``spatial`` axes
    (``"lanczos"`` exists only with ``antialias=True``)."""
    name = TORCH_NAME[canonical_mode(mode)]
    return TORCH_LINEAR.get(spatial, "linear") if name == "linear" else name


# ----------------------------------------------------------------------------
# Numbers


def is_sequence(value):
    """Whether ``value`` is a sequence argument (``size``, ``scale_factor``, ``axes``, a
    shape): a sequence (a tuple, a list, a range) or an array of at least one dimension,
    not a string or bytes, a bytearray or a memoryview (iterable, but no ints: b"\x00\x01"
    was axes (0, 1), ``memoryview(b"\x04\x05")`` a size (4, 5)), a set (no order: {1, 0}
    was axes whatever order it iterates in) or a mapping (its keys). (A range was
    refused as a ``size`` or ``scale_factor``, which took tuples and lists only.)"""
    if type(value) is tuple or type(value) is list:  # the common calls, at once
        return True
    if isinstance(value, np.ndarray):
        return value.ndim > 0
    return isinstance(value, Sequence) and not isinstance(
        value, (str, bytes, bytearray, memoryview)
    )


def integer(value, name, what, given=None):
    """``value`` as an int: the one rule of what an integer argument takes (an int, a
    NumPy integer, a 0-d integer array; not a bool), else a TypeError that ``name``
    must be ``what``, quoting ``given`` (the whole argument ``value`` is an entry of;
    default ``value`` as passed)."""
    quoted = value if given is None else given
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if type(value) is not int and not _is_integer(value):
        raise TypeError(f"{name} must be {what}; got {quoted!r}")
    return int(value)


def _is_integer(value):
    """Whether ``value`` is an integer argument: an int or a NumPy integer, not a bool
    and not a ``np.timedelta64`` (a NumPy integer subclass, a duration: ``int`` of one
    in days or finer raised a TypeError that named no argument)."""
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(
        value, (bool, np.bool_, np.timedelta64)
    )


def flag(value, name, what="True or False"):
    """``value`` as a bool: True, False or a NumPy bool (not 1, not a 0-d array), else a
    TypeError that ``name`` must be ``what``."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {what}; got {value!r}")
    return bool(value)


def length(value, name, given=None, what="a positive int (or tuple of them)"):
    """A positive axis length below ``MAX_LENGTH`` (``given``: as for ``integer``);
    ``what``: what the argument ``name`` takes, for the TypeError (a size takes a tuple
    too, ``weights``' ``in_size`` and ``out_size`` one int)."""
    quoted = value if given is None else given
    value = integer(value, name, what, given)
    if value < 1:
        raise ValueError(f"{name} must be >= 1; got {quoted!r}")
    if value >= MAX_LENGTH:
        raise ValueError(f"{name} must be < {MAX_LENGTH}; got {quoted!r}")
    return value


def real(value, name, what, given=None):
    """``value`` as a float: the one rule of what a float argument takes (a real number,
    a NumPy integer or float, a 0-d array of one; not a bool), else a TypeError that
    ``name`` must be ``what`` (``given``: as for ``integer``). An int beyond the floats
    (``10**400``) is an infinity of its sign, as ``float("1e400")`` is (``float`` raised
    OverflowError, which no caller said), so that the caller's range check refuses it."""
    quoted = value if given is None else given
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_, np.timedelta64)) or not isinstance(
        value, (numbers.Real, np.floating, np.integer)
    ):
        raise TypeError(f"{name} must be {what}; got {quoted!r}")
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def factor(value, name, given=None, what="a positive float (or tuple of them)"):
    """A finite positive scale factor as a float (``given``, ``what``: as for ``length``).
    Compared, not ``math.isfinite``: a float that ``torch.compile`` made symbolic (a
    ``Resize``'s under ``dynamic=True``, a compiled function's argument) compares, with
    a guard, where Dynamo cannot trace ``isfinite`` of it (NaN fails both comparisons)."""
    quoted = value if given is None else given
    value = real(value, name, what, given)
    if not 0 < value < math.inf:
        raise ValueError(f"{name} must be finite and > 0; got {quoted!r}")
    return value


def checked_length(n_in, f, name="scale_factor", given=None):
    """``floor(n_in * f)``, refused when it is < 1 or too large; ``f`` is the factor as
    ``factor`` converted it, quoted as ``given`` (the argument as passed, the whole
    sequence where ``f`` is one entry of it; None: ``f`` was passed)."""
    quoted = f if given is None else given
    if not n_in * f < MAX_LENGTH:
        raise ValueError(
            f"{name}={quoted!r} gives {n_in} * {f} = {n_in * f} output samples on an "
            f"axis; at most {MAX_LENGTH - 1} are possible"
        )
    n_out = output_length(n_in, f)
    if n_out < 1:
        raise ValueError(
            f"{name}={quoted!r} gives floor({n_in} * {f}) = {n_out} "
            f"output samples on an axis; it must give at least 1"
        )
    return n_out


def _integer_dtype(value):
    """Whether ``value.dtype`` is an integer dtype (False for what NumPy cannot read)."""
    try:
        return np.dtype(value.dtype).kind in "iu"
    except (AttributeError, TypeError):
        return False


def shape(value, name="input_shape", ndim=None, other="grad_output"):
    """A tuple of non-negative ints, each < ``MAX_LENGTH`` (bool is not an int)."""
    found = getattr(value, "shape", None)
    if isinstance(found, tuple) and not (len(found) == 1 and _integer_dtype(value)):
        # An array given where its shape belongs (resize_backward(g, x), plan(x, ...)):
        # named by its shape and dtype, not by a repr of its values.
        raise TypeError(
            f"{name} must be a tuple of ints; got an array of shape {found} and dtype "
            f"{getattr(value, 'dtype', None)} (for an array's shape, pass its .shape)"
        )
    if not is_sequence(value):
        raise TypeError(f"{name} must be a tuple of ints; got {value!r}")
    result = []
    for s in value:
        if type(s) is not int:
            s = _int_entry(s, name, "a tuple of ints", value)
        if s < 0:
            raise ValueError(f"{name} must not have negative lengths; got {tuple(value)}")
        if s >= MAX_LENGTH:
            raise ValueError(f"{name} has a length {s}; each must be < {MAX_LENGTH}")
        result.append(s)
    result = tuple(result)
    if ndim is not None and len(result) != ndim:
        raise ValueError(f"{name} {result} has {len(result)} dimensions but {other} has {ndim}")
    return result


_TAKEN = "a positive int, or a negative int counted back from the maximum (-1 = all)"
# What ``threads_value`` takes, in its refusals: of ``num_threads``, and of a command
# line's option (``--threads``, never None), indexed by ``name.startswith("--")``
_THREADS_TAKEN = ("None, " + _TAKEN, _TAKEN)


def threads_value(num_threads, name="num_threads"):
    """Check ``num_threads`` (None or a nonzero int up to ``MAX_THREADS``): the rule
    (a plain int, the common value, is known by its type at once). The calls take a
    count from 1 to ``MAX_THREADS`` in C without coming here (``_fast._plain_count``).
    ``name``: what a refusal calls it, the argument ``num_threads`` or a command line's
    option (``"--threads"``), which is never None (its default is to leave it out)."""
    if num_threads is None:
        return None
    # one wording for a value of a wrong type (True, 2.5, "2") and for 0
    if type(num_threads) is not int:  # NumPy integers, 0-d arrays: ``integer``'s rule
        num_threads = integer(num_threads, name, _THREADS_TAKEN[name.startswith("--")])
    if num_threads == 0:
        raise ValueError(f"{name} must be {_THREADS_TAKEN[name.startswith('--')]}; got 0")
    if num_threads > MAX_THREADS:
        raise ValueError(f"{name} must be at most {MAX_THREADS}; got {num_threads}")
    return num_threads


# ----------------------------------------------------------------------------
# Axes, lengths, shapes


def resize_axes(ndim, size, scale_factor, axes, name="x"):
    """The resized axes as a tuple of non-negative ints (docs/spec.md section 5);
    ``name``: what the ``ndim`` dimensions are of (an array ``x``, or a shape)."""
    if size is None and scale_factor is None:
        raise ValueError("give size or scale_factor (exactly one of them); got neither")
    if size is not None and scale_factor is not None:
        raise ValueError("give size or scale_factor, not both")
    if ndim == 0:
        got = "a 0-d array" if name == "x" else "()"
        raise ValueError(f"{name} must have at least one dimension; got {got}")
    holder = "the array" if name == "x" else name  # what has the ndim dimensions
    given = size if size is not None else scale_factor
    name = "size" if size is not None else "scale_factor"
    if axes is None:
        if is_sequence(given):
            if len(given) > ndim:
                raise ValueError(
                    f"{name} has {len(given)} entries but {holder} has only {ndim} dimensions"
                )
            if len(given) == 0:
                raise ValueError(f"{name} must not be empty")
            return tuple(range(ndim - len(given), ndim))
        return tuple(range(ndim - min(2, ndim), ndim))
    axes = _axes_list(axes)
    if not axes:
        raise ValueError("axes must name at least one axis")
    normal = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"axes entry {a} is out of range for {holder} of {ndim} dimensions")
        normal.append(a % ndim)
    if len(set(normal)) != len(normal):
        raise ValueError(f"axes has duplicate entries: {tuple(axes)}")
    if is_sequence(given) and len(given) != len(normal):
        raise ValueError(f"{name} has {len(given)} entries but axes has {len(normal)}")
    return tuple(normal)


def _axes_list(axes):
    if isinstance(axes, np.ndarray) and axes.ndim == 0:  # as ``integer`` takes it
        axes = axes[()]
    if isinstance(axes, (bool, np.bool_)):
        raise TypeError(f"axes must be an int or a tuple of ints, not a bool; got {axes!r}")
    if type(axes) is int or _is_integer(axes):
        return [int(axes)]
    if not is_sequence(axes):  # a set (no order), bytes, a dict, a float
        raise TypeError(f"axes must be an int or a tuple of ints; got {axes!r}")
    result = []
    for a in axes:
        result.append(
            a if type(a) is int else _int_entry(a, "axes", "an int or a tuple of ints", axes)
        )
    return result


def _int_entry(value, name, what, whole):
    """An entry of the sequence argument ``whole`` (a shape, ``axes``) as an int, as
    ``integer`` takes one (a 0-d integer array too), else a TypeError that ``name``
    must be ``what``: a bool, a float, a str, a ``np.timedelta64``, a nested sequence."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be {what}, not bools; got {whole!r}")
    if not _is_integer(value):
        raise TypeError(f"{name} must be {what}; got {whole!r}")
    return operator.index(value)


def lengths(in_shape, axes, size, scale_factor, name="x"):
    """Output length and per-axis factor (or None) of each resized axis; ``name``: what
    errors call the array of shape ``in_shape`` (``x``, ``input_shape``, ``shape``)."""
    n = len(axes)
    if size is not None:
        whole = size if is_sequence(size) else None  # what a refused entry quotes
        sizes = size if is_sequence(size) else (size,) * n
        out = tuple(length(s, "size", whole) for s in sizes)
        factors = (None,) * n
    else:
        given = scale_factor
        whole = given if is_sequence(given) else None
        factors = tuple(
            factor(f, "scale_factor", whole)
            for f in (given if is_sequence(given) else (given,) * n)
        )
        for a in axes:
            _resizable(in_shape, a, name)
        out = tuple(checked_length(in_shape[a], f, given=given) for a, f in zip(axes, factors))
    for a in axes:
        _resizable(in_shape, a, name)
    return out, factors


def _resizable(in_shape, axis, name):
    if in_shape[axis] < 1:
        raise ValueError(
            f"axis {axis} of {name} has length {in_shape[axis]}; a resized axis needs length >= 1"
        )


def _new_spec(input_shape, axes, out_lengths, factors, mode, align_corners, antialias):
    """The ``Spec`` of these resized axes, its output shape filled in."""
    output_shape = list(input_shape)
    for a, n in zip(axes, out_lengths):
        output_shape[a] = n
    return Spec(
        input_shape, axes, out_lengths, factors, tuple(output_shape), mode, align_corners, antialias
    )


def forward(
    input_shape,
    size=None,
    scale_factor=None,
    mode="bilinear",
    align_corners=False,
    antialias=False,
    axes=None,
    *,
    checked_shape=False,
    name=None,
):
    """The ``Spec`` of ``resize(x, size, ...)`` for ``x.shape == input_shape``;
    ``name``: what errors call ``input_shape`` (default: ``"x"`` where ``checked_shape``
    says it is an array's, else ``"input_shape"``)."""
    mode, align_corners, antialias = options(mode, align_corners, antialias)
    if name is None:
        name = "x" if checked_shape else "input_shape"
    if not checked_shape:
        input_shape = shape(input_shape, name)
    axes = resize_axes(len(input_shape), size, scale_factor, axes, name)
    out_lengths, factors = lengths(input_shape, axes, size, scale_factor, name)
    return _new_spec(input_shape, axes, out_lengths, factors, mode, align_corners, antialias)


def backward(
    grad_shape,
    input_shape,
    scale_factor=None,
    mode="bilinear",
    align_corners=False,
    antialias=False,
    axes=None,
):
    """The ``Spec`` of the forward call whose adjoint is ``resize_backward(g, input_shape, ...)``.

    Default axes: with ``scale_factor`` ``resize``'s rule, otherwise the axes
    where ``grad_shape`` differs from ``input_shape`` (possibly none: identity).
    """
    mode, align_corners, antialias = options(mode, align_corners, antialias)
    grad_shape = tuple(grad_shape)
    if len(grad_shape) == 0:
        raise ValueError("grad_output must have at least one dimension; got a 0-d array")
    input_shape = shape(input_shape, "input_shape", len(grad_shape))
    if axes is None and scale_factor is None:
        axes = tuple(a for a in range(len(grad_shape)) if grad_shape[a] != input_shape[a])
    else:
        axes = resize_axes(
            len(grad_shape), None if scale_factor is not None else 1, scale_factor, axes
        )
    if scale_factor is None:
        for a in axes:
            if grad_shape[a] < 1:
                raise ValueError(
                    f"grad_output has length 0 on axis {a}, which input_shape "
                    f"{input_shape} resizes from {input_shape[a]}; resize never "
                    f"returns an empty resized axis"
                )
            _resizable(input_shape, a, "input_shape")
        out_lengths, factors = tuple(grad_shape[a] for a in axes), (None,) * len(axes)
    else:
        out_lengths, factors = lengths(input_shape, axes, None, scale_factor, "input_shape")
    spec = _new_spec(input_shape, axes, out_lengths, factors, mode, align_corners, antialias)
    if spec.output_shape != grad_shape:
        raise ValueError(
            f"grad_output has shape {grad_shape}, but resize would return "
            f"{spec.output_shape} for input_shape {input_shape} on axes {axes}"
        )
    return spec


def axis_geometry(spec):
    """``[(axis, n_in, n_out, factor)]`` of the resized axes, in increasing axis order."""
    return sorted(
        (a, spec.input_shape[a], n, f) for a, n, f in zip(spec.axes, spec.lengths, spec.factors)
    )


# ----------------------------------------------------------------------------
# Dtypes


def as_array(x, name: str, dask_call: str | None = None) -> np.ndarray:
    """``x`` as an ndarray (``np.asarray``), refusing what it would get wrong: a
    masked array (its mask) and, where ``dask_call`` names the lazy call to use
    instead, a Dask collection (``np.asarray`` would compute all of it, in memory)."""
    if is_masked(x):  # its mask would be dropped without a word
        raise TypeError(
            f"{name} is a masked array: resizing would ignore its mask; pass "
            f"{name}.filled(value) (or {name}.data) to say which values to resize"
        )
    if isinstance(x, np.ndarray):
        return x
    if dask_call is not None and _is_dask_collection(x):
        kind = f"{type(x).__module__}.{type(x).__qualname__}"
        raise TypeError(
            f"{name} is a lazy Dask collection ({kind}): this call would compute all "
            f"of it in memory; for a lazy result call {dask_call}, or pass "
            f"np.asarray({name}) (or {name}.compute()) to compute it first"
        )
    try:
        return np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise TypeError(f"{name} must be a NumPy array or array_like: {exc}") from None


def is_masked(x) -> bool:
    """Whether ``x`` is a NumPy masked array (no masked array exists before numpy.ma is
    imported, and importing it, about 7 ms, is left to whoever makes one)."""
    ma = sys.modules.get("numpy.ma")
    return ma is not None and isinstance(x, ma.MaskedArray)


def _is_dask_collection(x) -> bool:
    """Whether ``x`` is a Dask collection with a graph (``dask.is_dask_collection``,
    without importing Dask): a ``dask.array.Array``, or an xarray object holding one
    (a NumPy-backed one has the method but no graph). An attribute that raises, as
    it is looked up (a descriptor) or called, is no graph."""
    try:
        graph = getattr(type(x), "__dask_graph__", None)
        return graph is not None and graph(x) is not None
    except Exception:
        return False


def compute_dtype(dtype, name="x", what="array"):
    """The dtype the kernels compute ``dtype`` in (docs/spec.md section 5); ``name``:
    what a refusal names, an array or (``what="dtype"``) a dtype argument."""
    kind = dtype.kind
    if kind == "f" and dtype.itemsize in (4, 8):
        return np.dtype(dtype.type)  # native byte order
    if kind == "f" and dtype.itemsize == 2:
        return np.dtype(np.float32)
    if kind in "iu":  # 8-bit: float32 sums; 16-bit and wider: float64 (section 5's 99%)
        return np.dtype(np.float32 if dtype.itemsize == 1 else np.float64)
    raise TypeError(f"{name} must be a float (float16/32/64) or integer {what}, not {dtype}")


def gradient_dtype(dtype, name="grad_output"):
    """Check that a gradient of ``dtype`` can be given to a backward pass (float32 or
    float64, docs/spec.md section 5)."""
    if dtype.type not in (np.float32, np.float64):
        raise TypeError(f"{name} must be float32 or float64, not {dtype}")


def plan_dtype(dtype):
    """A dtype argument (anything ``np.dtype`` takes) -> native ``np.dtype``, checked."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise TypeError(
            f"dtype must be a float (float16/32/64) or integer dtype; got {dtype!r}"
        ) from None
    compute_dtype(dtype, "dtype", "dtype")
    return dtype.newbyteorder("=")


# ----------------------------------------------------------------------------
# Sizes: refuse what cannot exist before building anything (docs/limits)


def table_taps(n_in, n_out, f, mode, align_corners, antialias):
    """A lower bound on the taps of one axis' table (each costs an index and a weight)."""
    s = axis_scale(n_in, n_out, f, align_corners)
    if antialias:
        width = max(1.0, 2 * ANTIALIAS_SUPPORT[mode] * max(s, 1.0) - 1)
    elif mode == "area":
        width = max(1.0, n_in / n_out)
    else:  # a fixed-width kernel keeps at least one tap per row
        width = 1.0
    return n_out * math.floor(width)


def check_sizes(spec, itemsize, *, dense=False, arrays=True):
    """Refuse a result (or tables) that cannot exist, before anything is allocated.

    ``ValueError`` when the input or the result has more elements than any array can;
    ``MemoryError`` when the result plus a lower bound of its tap tables exceeds
    this machine's memory (or the process's address-space limit). With
    ``arrays=False`` (block execution: each task makes one block) only the
    tables count.
    """
    elements = max(math.prod(spec.input_shape), math.prod(spec.output_shape))
    if elements > MAX_ELEMENTS:
        # The larger of the two is named: the input of a forward call, or the result
        # of a backward one (the plan serves both), may be the one that cannot exist.
        larger = max(spec.output_shape, spec.input_shape, key=math.prod)
        raise ValueError(
            f"resizing shape {spec.input_shape} to {spec.output_shape} needs an array "
            f"of shape {larger} ({elements} elements): more than any array can hold "
            f"(check size or scale_factor, and the input's shape)"
        )
    need = elements * itemsize if arrays else 0
    for _, n_in, n_out, f in axis_geometry(spec):
        need += 16 * table_taps(n_in, n_out, f, spec.mode, spec.align_corners, spec.antialias)
        if dense:
            need += 8 * n_in * n_out
    if need > 2**26:  # only large requests pay for the look-up
        limit = memory_limit()
        if need > limit:
            if dense:
                ((_, n_in, n_out, _),) = axis_geometry(spec)
                what = f"the weight matrix of shape ({n_out}, {n_in})"
            else:
                what = (
                    f"resizing shape {spec.input_shape} to {spec.output_shape} "
                    f"({'the larger array and ' if arrays else ''}the tap tables)"
                )
            raise MemoryError(
                f"{what} would need at least {need / 2**30:.3g} GiB; at most "
                f"{limit / 2**30:.3g} GiB can exist here (physical memory, the cgroup "
                f"memory limit or the address-space limit)"
            )


def memory_limit():
    """Bytes this process could ever hold: physical memory, or a lower cgroup memory
    limit (``cgroup_memory_limit``) or RLIMIT_AS/DATA."""
    limit = min(cgroup_memory_limit(), physical_memory())
    try:
        import resource

        for which in ("RLIMIT_AS", "RLIMIT_DATA"):
            soft = resource.getrlimit(getattr(resource, which))[0]
            if soft != resource.RLIM_INFINITY and soft > 0:
                limit = min(limit, soft)
    except (ImportError, AttributeError, OSError, ValueError):  # pragma: no cover
        pass
    return limit


def physical_memory():
    """Bytes of physical memory: POSIX ``sysconf`` (Linux, macOS), Windows'
    ``GlobalMemoryStatusEx`` (which has no ``os.sysconf``); inf where neither answers."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        pass
    if sys.platform != "win32":
        return math.inf
    import ctypes

    class MemoryStatusEx(ctypes.Structure):  # MEMORYSTATUSEX, sysinfoapi.h
        _fields_ = [("dwLength", ctypes.c_uint32), ("dwMemoryLoad", ctypes.c_uint32)] + [
            (name, ctypes.c_uint64)
            for name in (
                "ullTotalPhys",
                "ullAvailPhys",
                "ullTotalPageFile",
                "ullAvailPageFile",
                "ullTotalVirtual",
                "ullAvailVirtual",
                "ullAvailExtendedVirtual",
            )
        ]

    status = MemoryStatusEx(dwLength=ctypes.sizeof(MemoryStatusEx))
    try:
        if not ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status)):
            return math.inf
    except (AttributeError, OSError):
        return math.inf
    return status.ullTotalPhys or math.inf


#: Where the process's cgroups are listed, and where the cgroup file systems are mounted.
PROC_CGROUP, CGROUP_ROOT = "/proc/self/cgroup", "/sys/fs/cgroup"


@functools.cache
def cgroup_memory_limit():
    """The least memory limit of the process's cgroup and its ancestors (a container's):
    v2 ``memory.max``, v1 ``memory.limit_in_bytes``; inf where none is set ("max") or
    none can be read. Read once: the limits of a running process rarely change."""
    try:
        with open(PROC_CGROUP, encoding="ascii") as fh:
            lines = fh.read().splitlines()
    except (OSError, ValueError):
        return math.inf
    limit = math.inf
    for line in lines:  # "ID:CONTROLLERS:PATH"; v2's is "0::PATH"
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if not controllers:
            root, name = CGROUP_ROOT, "memory.max"
        elif "memory" in controllers.split(","):
            root, name = os.path.join(CGROUP_ROOT, "memory"), "memory.limit_in_bytes"
        else:
            continue
        # From the cgroup up to the mount's root, which is a container's own cgroup
        # when the path is the host's (no cgroup namespace).
        parts = [part for part in path.split("/") if part]
        for depth in range(len(parts), -1, -1):
            try:
                with open(os.path.join(root, *parts[:depth], name), encoding="ascii") as fh:
                    text = fh.read().strip()
            except (OSError, ValueError):
                continue
            if text.isdigit():  # "max": no limit
                limit = min(limit, int(text))
    return limit


def weights_spec(in_size, out_size, mode, align_corners, antialias, scale_factor):
    """The ``Spec`` of ``weights(in_size, out_size, ...)``: a 1-D resize of ``in_size``."""
    mode, align_corners, antialias = options(mode, align_corners, antialias)
    in_size = length(in_size, "in_size", what="a positive int")
    if scale_factor is not None:
        f = factor(scale_factor, "scale_factor", what="a positive float")
        n_out = checked_length(in_size, f, given=scale_factor)
        if out_size is not None and length(out_size, "out_size", what="a positive int") != n_out:
            raise ValueError(
                f"out_size={out_size} does not match scale_factor={scale_factor}: "
                f"floor({in_size} * {scale_factor}) = {n_out}"
            )
    elif out_size is None:
        raise ValueError("weights needs out_size or scale_factor")
    else:
        n_out, f = length(out_size, "out_size", what="a positive int"), None
    return Spec((in_size,), (0,), (n_out,), (f,), (n_out,), mode, align_corners, antialias)
