"""Exact resizing of chunked Dask arrays (``pip install "cresize[dask]"``).

``resize`` and ``resize_backward`` take and return ``dask.array.Array``s and equal
``cresize.resize`` / ``cresize.resize_backward`` on the whole array bit for bit
(cresize's specification, section 7, "Plans": docs/spec.md, in the source
distribution and the documentation): the operator is planned once for the whole array
(``cresize.plan``) and every output chunk is one task that runs
``plan.run_region`` on the smallest box of the input its taps read
(``plan.input_region``). A task depends only on the input chunks that box
touches: no rechunk, no halo exchange, batch axes keep their chunks. See the
documentation's Dask page (docs/dask.md in the source distribution).
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from cresize import _optional, _plan, _spec

# Not installed: the install hint; installed but failing to import: its error, named.
_optional.load(
    "dask.array",
    "Dask",
    missing='cresize.dask needs Dask: pip install "cresize[dask]" (or pip install "dask[array]")',
    hint="cresize.dask needs it",
)
import dask  # noqa: E402 (imported above)
import dask.array as da  # noqa: E402
from dask.array.core import normalize_chunks  # noqa: E402
from dask.base import tokenize  # noqa: E402
from dask.highlevelgraph import HighLevelGraph  # noqa: E402
from dask.utils import parse_bytes  # noqa: E402

__all__ = ["pyramid", "resize", "resize_backward"]

#: Most levels ``pyramid`` makes: 64 halvings take any axis an array can have to 1.
MAX_LEVELS = 64


def resize(
    x: da.Array | ArrayLike,
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    chunks: Any = None,
    num_threads: _spec.Int = 1,
) -> da.Array:
    """Resize a Dask array; equals ``cresize.resize`` on the whole array bit for bit.

    Parameters
    ----------
    x : dask.array.Array or array_like
        Any dtype ``cresize.resize`` takes. A NumPy array is wrapped with
        ``dask.array.asarray``. Chunk sizes must be known.
    size, scale_factor, mode, align_corners, antialias, axes
        As for ``cresize.resize``.
    chunks : optional
        Chunking of the result, anything ``dask.array.core.normalize_chunks``
        takes (an int, a tuple, a byte size such as ``"64MiB"``, ``"auto"``: about
        one input chunk's bytes, or a dict ``{axis: chunks}`` naming only some
        axes; the others take the default); it always wins. Default:
        one output chunk per input chunk. Batch axes keep ``x``'s chunks; along a
        resized axis an output chunk is the image of one input chunk
        (``ceil(c * O / I)``), the enlarged axes cut back, never below ``c``,
        until an output chunk holds at most ``max(one input chunk,
        dask.config.get("array.chunk-size"))`` bytes. So each task reads about
        one input chunk (plus the kernel's reach).
    num_threads : int
        Threads of each task (default 1, so that Dask's own workers are not
        oversubscribed). Neither the result nor its keys depend on it.

    Returns
    -------
    dask.array.Array
        Of ``x``'s dtype; each output chunk depends only on the input chunks
        its taps read.

    Raises
    ------
    TypeError, ValueError
        At the call, nothing computed: what ``cresize.resize`` refuses, a masked
        array, unknown chunk sizes (``x.compute_chunk_sizes()`` first), and a
        ``chunks`` that docs/dask.md ("Arguments") lists as refused.
    MemoryError
        The plan's tap tables would not fit in this machine's memory.
    """
    x = _as_dask(x, "x")
    spec = _spec.forward(
        x.shape, size, scale_factor, mode, align_corners, antialias, axes, name="x"
    )
    return _planned_array(x, spec, chunks, backward=False, num_threads=num_threads)


def resize_backward(
    grad_output: da.Array | ArrayLike,
    input_shape: _spec.Shape,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    chunks: Any = None,
    num_threads: _spec.Int = 1,
) -> da.Array:
    """Gradient of ``resize`` (the exact adjoint) of a Dask array; equals
    ``cresize.resize_backward`` on the whole array bit for bit.

    Parameters
    ----------
    grad_output : dask.array.Array or array_like
        float32 or float64, of the shape ``resize`` returned.
    input_shape : tuple of int
        The full shape of ``resize``'s input.
    scale_factor, mode, align_corners, antialias, axes
        As for ``cresize.resize_backward`` (by default, without ``scale_factor``,
        the axes where ``grad_output.shape`` differs from ``input_shape``).
    chunks, num_threads
        As for ``resize``; the default chunks follow ``grad_output``'s.

    Returns
    -------
    dask.array.Array
        Of shape ``input_shape`` and ``grad_output``'s dtype.

    Raises
    ------
    TypeError, ValueError, MemoryError
        As for ``resize`` (and ``cresize.resize_backward``: ``grad_output`` float32
        or float64, of a shape ``resize`` can return from ``input_shape``).
    """
    grad = _as_dask(grad_output, "grad_output", gradient=True)
    # the forward call whose adjoint this is (default axes, shape checks: the spec layer)
    spec = _spec.backward(
        grad.shape, input_shape, scale_factor, mode, align_corners, antialias, axes
    )
    if not spec.axes:  # every axis keeps its length: the identity, as in memory
        _spec.threads_value(num_threads)  # refused as resize_backward refuses it
        return _identity(grad, chunks)
    return _planned_array(grad, spec, chunks, backward=True, num_threads=num_threads)


def pyramid(
    x: da.Array | ArrayLike,
    levels: _spec.Int,
    *,
    axes: _spec.Ints | None = None,
    mode: str = "lanczos3",
    antialias: bool | None = None,
    num_threads: _spec.Int = 1,
) -> list[da.Array]:
    """The levels of a multiscale pyramid: ``[x, x/2, x/4, ...]`` (``levels`` arrays).

    Level ``k`` is level ``k-1`` resized with ``scale_factor=0.5`` along ``axes``
    (an axis already of length 1 stays 1), so the pixel spacing is exactly
    ``2**k`` (OME-Zarr's ``scale``) and level ``k`` equals applying
    ``cresize.resize`` ``k`` times in memory, bit for bit. Each level is computed
    from the level above, not from the full-resolution chunks: a level then reads
    a quarter (in 2-D) of the data of the one before, so the whole pyramid costs
    about 4/3 of one pass over ``x``, whereas resizing ``x`` directly to each
    level re-reads all of ``x`` with a kernel ``2**k`` times wider for every
    level. (The composed halvings are not the same operator as one direct
    resize by ``2**k``; call ``resize`` on ``x`` for that.)

    Every level keeps ``x``'s chunk shape (capped by the level's length), so the
    levels can be written with ``dask.array.to_zarr``; a task reads about
    ``2**len(axes)`` chunks of the level above. ``axes`` default: the last
    ``min(2, x.ndim)``. ``antialias`` default (None): True for the modes that
    have it (bilinear, bicubic, lanczos3), False for the others.

    Parameters
    ----------
    x : dask.array.Array or array_like
        Level 0, any dtype ``cresize.resize`` takes; chunk sizes must be known.
    levels : int
        How many levels, 1 to ``MAX_LEVELS`` (level 0, ``x`` itself, counts).
    axes : int or tuple of int, optional
        The halved axes (default: the last ``min(2, x.ndim)``).
    mode : str
        As for ``cresize.resize`` (default ``"lanczos3"``).
    antialias : bool, optional
        Default (None): True for bilinear, bicubic and lanczos3, else False.
    num_threads : int
        Threads of each task (default 1); the result does not depend on it.

    Returns
    -------
    list of dask.array.Array
        ``levels`` arrays of ``x``'s dtype, level 0 first (``x``, as a Dask array).

    Raises
    ------
    TypeError, ValueError
        At the call: ``levels`` not an int from 1 to ``MAX_LEVELS``, ``antialias=True``
        for a mode without it, or what ``resize`` refuses.
    """
    x = _as_dask(x, "x")
    levels = _spec.integer(levels, "levels", "a positive int")
    if not 1 <= levels <= MAX_LEVELS:
        raise ValueError(
            f"levels must be from 1 (level 0 is x itself) to {MAX_LEVELS} (every axis of "
            f"any array is 1 long after that many halvings); got {levels}"
        )
    resized: tuple[int, ...] = _spec.resize_axes(x.ndim, None, 0.5, axes)
    if antialias is None:
        antialias = _spec.takes_antialias(mode)
    _spec.options(mode, False, antialias)  # now, not only when a level is made
    _spec.threads_value(num_threads)
    result = [x]
    for _ in range(1, int(levels)):
        above = result[-1]
        factors = tuple(0.5 if above.shape[a] >= 2 else 1.0 for a in resized)
        level = _spec.forward(above.shape, None, factors, mode, False, antialias, resized, name="x")
        chunks = {a: min(x.chunksize[a], level.output_shape[a]) for a in resized}
        result.append(
            resize(
                above,
                scale_factor=factors,
                axes=resized,
                mode=mode,
                antialias=antialias,
                chunks=chunks,
                num_threads=num_threads,
            )
        )
    return result


# ----------------------------------------------------------------------------
# The graph


def _planned_array(src, spec, chunks, *, backward, num_threads):
    """``resize`` (``backward``: ``resize_backward``) of the Dask array ``src`` by ``spec``:
    planned once for the whole array, ``chunks`` as those functions take them."""
    out_shape = spec.input_shape if backward else spec.output_shape
    # chunks checked before the plan is made (and cached)
    out_chunks = _output_chunks(src, out_shape, spec.axes, chunks)
    plan = _plan.block_plan(spec, src.dtype, num_threads)  # src need not fit in memory
    return _region_array(
        "cresize-resize-backward" if backward else "cresize-resize",
        src,
        _PlanRef(plan),
        out_chunks,
        src.dtype.newbyteorder("="),
        backward=backward,
        num_threads=num_threads,
    )


def _region_array(prefix, src, ref, out_chunks, dtype, *, backward, num_threads):
    """One task per output chunk: ``run_region`` on the input box its taps read.

    The box of an output chunk is the product of per-axis intervals (the
    operator is separable), so ``input_region`` is asked once per chunk of each
    axis. The pieces of the input chunks the box overlaps are cut out by
    ``getitem`` tasks (next to the data, on a cluster) and joined inside the task.
    """
    ndim = src.ndim
    out_shape = tuple(sum(c) for c in out_chunks)
    # not num_threads (nor the order of axes): the name is the result's, whatever computes it
    name = f"{prefix}-" + tokenize(src.name, ref.token, out_chunks, backward)
    get_name = f"{name}-getitem"
    dsk = {}
    if math.prod(out_shape) == 0:
        for index in itertools.product(*(range(len(c)) for c in out_chunks)):
            shape = tuple(c[i] for c, i in zip(out_chunks, index))
            key = (name, *index)
            dsk[key] = (_empty, shape, dtype)
        graph = HighLevelGraph.from_collections(name, dsk, dependencies=[src])
        return da.Array(graph, name, out_chunks, dtype=dtype)
    per_axis = [
        _axis_pieces(ref.plan, src.chunks, out_shape, out_chunks, a, backward) for a in range(ndim)
    ]
    getters = {}
    for index in itertools.product(*(range(len(c)) for c in out_chunks)):
        entries = [per_axis[a][i] for a, i in enumerate(index)]
        out_region = tuple(e[0] for e in entries)
        pieces = [e[1] for e in entries]
        if any(not p for p in pieces):  # taps read nothing (zero rows): an empty box
            shape = tuple(sum(s.stop - s.start for _, s, _ in p) for p in pieces)
            block = (_empty, shape, src.dtype)
            joined = False
        else:
            block = _nested(src.name, pieces, getters, get_name, dsk)
            joined = any(len(p) > 1 for p in pieces)
        key = (name, *index)
        dsk[key] = (_run_region, ref, block, joined, out_region, backward, num_threads)
    graph = HighLevelGraph.from_collections(name, dsk, dependencies=[src])
    return da.Array(graph, name, out_chunks, dtype=dtype)


def _axis_pieces(plan, in_chunks, out_shape, out_chunks, axis, backward):
    """For each output chunk along ``axis``: its slice, and the input chunks
    (number, local slice) that its input interval overlaps."""
    bounds = np.cumsum((0,) + tuple(in_chunks[axis]))
    probe = [slice(0, 1) for _ in out_shape]  # any one output along the other axes
    entries, start = [], 0
    for n in out_chunks[axis]:
        out_slice = slice(start, start + n)
        start += n
        if n == 0:
            entries.append((out_slice, []))
            continue
        probe[axis] = out_slice
        lo, hi, _ = plan.input_region(tuple(probe), backward=backward)[axis].indices(
            int(bounds[-1])
        )
        pieces = []
        first = int(np.searchsorted(bounds, lo, side="right")) - 1
        for k in range(max(first, 0), len(bounds) - 1):
            if bounds[k] >= hi:
                break
            a, b = max(lo, bounds[k]), min(hi, bounds[k + 1])
            if b > a:
                pieces.append(
                    (k, slice(int(a - bounds[k]), int(b - bounds[k])), bounds[k + 1] - bounds[k])
                )
        entries.append((out_slice, pieces))
    return entries


def _nested(src_name, pieces, getters, get_name, dsk):
    """Nested lists (one level per axis) of the keys of the input pieces, or the
    one key when the box lies in one input chunk."""

    def leaf(combo):
        key = (src_name, *(k for k, _, _ in combo))
        if all(s.start == 0 and s.stop == length for _, s, length in combo):
            return key  # the whole chunk: no getitem
        slices = tuple(s for _, s, _ in combo)
        memo = (key, tuple((s.start, s.stop) for s in slices))  # slices hash from 3.12 on
        cut = getters.get(memo)
        if cut is None:
            cut = getters[memo] = (get_name, len(getters))
            size = math.prod(s.stop - s.start for s in slices)
            small = size * 4 <= math.prod(length for _, _, length in combo)
            dsk[cut] = (_cut, key, slices, small)
        return cut

    def build(axis, combo):
        if axis == len(pieces):
            return leaf(combo)
        return [build(axis + 1, combo + [p]) for p in pieces[axis]]

    if all(len(p) == 1 for p in pieces):
        return leaf([p[0] for p in pieces])
    return build(0, [])


def _run_region(ref, block, joined, out_region, backward, num_threads):
    """A task: ``run_region`` on its box (which computes a dtype computed in another
    dtype, float16 in float32, in slabs: ``_plan._slabs``, docs/dask.md "Memory")."""
    if joined:
        block = np.block(block)
    return ref.plan.run_region(block, out_region, backward=backward, num_threads=num_threads)


def _cut(chunk, slices, copy):
    """A piece of an input chunk; a small piece (a halo) is copied so that the
    chunk's memory need not outlive the tasks that read all of it."""
    piece = chunk[slices]
    return piece.copy() if copy else piece


def _empty(shape, dtype):
    return np.empty(shape, dtype)


class _PlanRef:
    """The whole array's plan, shipped to worker processes as its ``Spec`` and dtype.

    Unpickled, it holds only those (``_plan_for``: one per key and process); the plan
    is built when a task first asks for it, so distributed's scheduler, which unpickles
    the graph but runs no task, builds no tables. A worker process builds it once and
    every task there shares it; with the threaded scheduler nothing is pickled.
    """

    def __init__(self, plan=None, *, key=None):
        self._plan = plan
        self.key = key if plan is None else (plan._spec, np.dtype(plan.dtype).str)
        self.token = (_spec.canonical(self.key[0]), self.key[1])  # what the bits depend on

    @property
    def plan(self):
        if self._plan is None:  # two threads may both build it: the same plan, cached
            spec, dtype = self.key
            self._plan = _plan.block_plan(spec, np.dtype(dtype), 1)
        return self._plan

    def __reduce__(self):
        return _plan_for, (self.key,)


@functools.lru_cache(maxsize=16)
def _plan_for(key):
    """The reference of ``key`` in this process (what a worker unpickles), its plan not
    yet built."""
    return _PlanRef(key=key)


# ----------------------------------------------------------------------------
# Arguments


def _as_dask(x: da.Array | ArrayLike, name: str, *, gradient: bool = False) -> da.Array:
    """``x`` as a Dask array of a dtype the call takes (``gradient``: float32 or float64),
    checked before Dask chunks it (Dask refuses an array of objects with its own error)."""
    given: Any = x
    try:
        dtype = np.dtype(given.dtype)
    except (AttributeError, TypeError):  # lists, scalars, a torch.Tensor's dtype
        given = _spec.as_array(given, name)
        dtype = given.dtype
    if gradient:
        _spec.gradient_dtype(dtype, name)
    else:
        _spec.compute_dtype(dtype, name)
    if isinstance(given, da.Array):
        array = given
    else:
        try:
            array = da.asarray(given)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a dask array or array_like: {exc}") from None
    if isinstance(array._meta, np.ma.MaskedArray):  # refused now, as in memory, not by each task
        _spec.as_array(array._meta, name)
    if any(math.isnan(n) for c in array.chunks for n in c):
        raise ValueError(f"{name} has unknown chunk sizes; call {name}.compute_chunk_sizes() first")
    return array


def _identity(grad, chunks):
    """``resize_backward`` where no axis changes: a native-order copy, as in memory."""
    native = grad.astype(grad.dtype.newbyteorder("="))  # a no-op for a native dtype
    if chunks is None:
        return native
    return native.rechunk(_output_chunks(grad, grad.shape, (), chunks))


def _default_chunks(src, out_shape, axes):
    """The default chunks of the result (docs/dask.md "The graph").

    Batch axes keep ``src``'s chunks. Along a resized axis an output chunk is the
    image of one input chunk, ``ceil(c * O / I)``: one task per input chunk, as
    ``map_blocks``, ``coarsen`` or ``repeat`` make, each reading about one input
    chunk plus the kernel's reach. Enlarged axes are then cut back, all by one
    factor, until an output chunk holds at most ``max(one input chunk,
    array.chunk-size)`` bytes (Dask's own budget for a chunk, 128 MiB by default),
    never below the input chunk's length.
    """
    in_sizes = [max(c, default=0) for c in src.chunks]
    sizes = list(in_sizes)
    for a in axes:
        n_in, n_out = src.shape[a], out_shape[a]
        # rounded up (in ints): never more chunks than the input has along the axis,
        # where rounding to nearest left a sliver of up to I / (2c) outputs over
        sizes[a] = max(1, min(n_out, -(-in_sizes[a] * n_out // n_in) if n_in else n_out))
    itemsize = src.dtype.itemsize
    limit = max(itemsize * math.prod(in_sizes), parse_bytes(dask.config.get("array.chunk-size")))
    grown = [a for a in axes if sizes[a] > in_sizes[a]]
    while grown and itemsize * math.prod(sizes) > limit:
        cut = (itemsize * math.prod(sizes) / limit) ** (1 / len(grown))
        for a in grown:  # at least one shorter per round: the loop ends
            sizes[a] = max(in_sizes[a], min(sizes[a] - 1, int(sizes[a] / cut)))
        grown = [a for a in grown if sizes[a] > in_sizes[a]]
    return tuple(
        normalize_chunks((sizes[a],), (n,))[0] if a in axes else tuple(src.chunks[a])
        for a, n in enumerate(out_shape)
    )


#: The longest chunk ``chunks=`` may name (int64's largest, what Dask's chunks hold).
MAX_CHUNK = 2**63 - 1
NEGATIVE = "chunk lengths must be >= 0 (-1 or None: the whole axis)"


UNKNOWN = "chunk lengths must be known, not NaN (Dask's unknown length)"


def _numbers(chunks):
    """The numbers in ``chunks`` (an entry, or tuples and lists of them, nested), as
    Python ints and floats: NumPy's integers as ints, its floats (``np.float32``, which
    is no ``float``) as floats, so that one rule checks them all. A bool is refused:
    Dask takes ``True`` as chunks of one element (1.6e9 tasks for a 40000² result)."""
    if isinstance(chunks, (tuple, list)):
        for c in chunks:
            yield from _numbers(c)
    elif isinstance(chunks, (bool, np.bool_)):  # normalize_chunks takes True as 1
        raise ValueError(f"a chunk length cannot be a bool; got {chunks!r}")
    elif isinstance(chunks, (int, np.integer)):
        yield int(chunks)
    elif isinstance(chunks, (float, np.floating)):
        yield float(chunks)


def _output_chunks(src, out_shape, axes, chunks):
    """The result's chunks: ``chunks`` normalised, its unnamed axes defaulted."""
    default = _default_chunks(src, out_shape, axes)
    if chunks is None:
        return tuple(default)
    limit = max(src.dtype.itemsize * math.prod(max(c, default=0) for c in src.chunks), 1)
    given = chunks
    if isinstance(chunks, dict):
        spec, named = list(default), set()
        for a, c in chunks.items():
            try:
                if isinstance(a, (bool, np.bool_)):
                    raise TypeError
                axis = operator.index(a)
            except TypeError:
                raise TypeError(f"chunks: dict keys must be axes (ints); got {a!r}") from None
            if not -len(out_shape) <= axis < len(out_shape):
                raise ValueError(
                    f"chunks: axis {a} is out of range for {len(out_shape)} dimensions"
                )
            axis %= len(out_shape)
            if axis in named:
                raise ValueError(f"chunks: axis {axis} is named twice in {chunks!r}")
            named.add(axis)
            spec[axis] = default[axis] if c is None else c
        chunks = tuple(spec)
    entries = chunks if isinstance(chunks, (tuple, list)) else (chunks,)
    sizes = [c for c in entries if isinstance(c, str) and c != "auto"]
    if sizes:
        limit = None  # a byte size ("64MiB") is the limit: normalize_chunks refuses two
    try:
        for c in sizes:  # normalize_chunks makes "-5MiB" or "0B" one element a chunk
            if parse_bytes(c) <= 0:
                raise ValueError(f"a byte size must be positive; got {c!r}")
        # a Python int past int64 reached NumPy as an object: "ufunc 'isnan' not supported"
        for c in _numbers(chunks):
            if isinstance(c, float) and math.isnan(c):  # normalize_chunks keeps ((nan,), ...)
                raise ValueError(UNKNOWN)
            if isinstance(c, int) and c > MAX_CHUNK:
                raise ValueError(f"chunk lengths must be at most 2**63 - 1; got {c}")
            if c < 0 and c != -1:
                raise ValueError(NEGATIVE)
        result = normalize_chunks(
            chunks, tuple(out_shape), limit=limit, dtype=src.dtype, previous_chunks=tuple(default)
        )
        # normalize_chunks lets negative lengths through (-2 becomes -1, (-1, 26) stays)
        if any(c < 0 for axis in result for c in axis):
            raise ValueError(NEGATIVE)
        return result
    except (ValueError, TypeError, AssertionError, ZeroDivisionError) as exc:  # 0: Dask divides
        why = "a chunk length of 0 along an axis" if isinstance(exc, ZeroDivisionError) else exc
        raise ValueError(
            f"chunks={given!r} is not a valid chunking of the result, shape "
            f"{tuple(out_shape)}: {why}"
        ) from None
