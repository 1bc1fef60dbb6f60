"""Plans: everything but the data, decided once; the executor; the plan cache.

A ``Plan`` holds a call's ``Spec`` (from ``_spec``), the tap tables of its
resized axes, and the *programs* of its forward and backward passes: which axes
go together in one kernel call (the last two adjacent resized axes are fused),
the order of the calls (the one that shrinks most first), the fused kernel's
row order (``RING`` / ``VERTICAL_FIRST`` / ``DIRECT``) and whether float32 is
promoted to float64 for long rows. Executing a program on a block of the input
with the tables restricted to the block's outputs (``Plan.run_region``) gives
the same bits as executing it on the whole array: the decisions are the whole
array's, and every output keeps its taps in the same order.

Every kernel call goes through ``_fast`` (the executor: ``run_step`` / ``run_steps``;
``_run_step`` here forwards to it); a kernel call, float or 8/16-bit, is a
``_kernels.Step`` made and checked when the program compiles (``_float_step``,
``_compile_int``).
"""

from __future__ import annotations

import functools
import itertools
import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike, DTypeLike

from cresize import _fast, _kernels, _spec, _threads
from cresize._dtypes import round_to
from cresize._tables import last_index, taps

#: Taps per output beyond which float32 sums are accumulated in float64, so that
#: very long rows (shrinking by thousands) stay within docs/spec.md's float32 tolerance.
LONG_SUM = 2048

#: Values read and written per thread below which more threads cost more than they save
#: (each float step takes its bound when the plan compiles). A (1,3,224,224) -> 112²
#: bilinear resize (188160 values) runs in about 14 µs on one thread; a second one saves
#: a few µs on an idle machine but costs milliseconds when the cores are busy (the
#: OpenMP worker waits for a core), so arrays that small run on one thread.
MIN_WORK_PER_THREAD = 2**17

#: Values read and written from which a kernel call of at most two threads (by
#: ``MIN_WORK_PER_THREAD`` and the count asked for) runs on the quick pair: the calling
#: thread and a helper that spins briefly between calls (``_quick.h``), instead of one
#: thread or an OpenMP team, whose sleeping worker takes tens of microseconds to wake.
QUICK_MIN_WORK = 2**15

#: Values (outputs x channels) a row's periodic run must hold before a plan resamples it
#: by the periodic pass (``Taps.period``, docs/kernels.md): on shorter rows its set-up
#: costs more than it saves (one thread, bicubic x2: a (1,1,64,64) plan call 12.5 µs with
#: it against 10.1 µs without, (64,64,3) 23 against 19 µs; (1,1,512,512) 274 against 355 µs).
MIN_PERIODIC_VALUES = 1024

#: Default bound of the plan cache, in bytes (tables and plans together).
DEFAULT_CACHE_LIMIT = 256 * 2**20
#: What a plan's Python objects hold besides its tables, counted by the plan cache:
#: the plan, and each program it made (its steps, compiled calls and their views).
#: Measured with tracemalloc over 300 small plans (1-D to 4-D float32, tables of a few
#: hundred bytes): 8-10 KiB a plan with its forward made, 14-17 KiB with both directions
#: (a little more counted than held: the bound is the one to keep).
PLAN_BYTES, PROGRAM_BYTES = 4096, 8192

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

#: The order field of a single-axis step (``_Program.steps``): along the contiguous
#: axis (rows resampled, sums from 0: ``LINES``), or along an axis followed by other
#: values (``inner`` > 1 in the whole array: sums with the bits of combinations of
#: whole rows, from their first product: ``PLANES``, or rows of pixels, below).
ALONG_ROWS, ACROSS_ROWS = -1, -2


# ----------------------------------------------------------------------------
# Tables, shared between plans while any plan holds them


_TABLES: weakref.WeakValueDictionary[tuple, Any] = weakref.WeakValueDictionary()
_TABLES_LOCK = threading.Lock()


def table(n_in, n_out, mode, align_corners, antialias, factor):
    """The ``Taps`` of one axis, shared with every live plan of the same geometry."""
    key = (n_in, n_out, mode, align_corners, antialias, factor)
    found = _TABLES.get(key)
    if found is None:
        found = taps(n_in, n_out, mode, align_corners, antialias, factor)
        with _TABLES_LOCK:
            found = _TABLES.setdefault(key, found)
    return found


def _table_bytes(t):
    arrays = [t.index, t.weight, t.count, t.start, *t._cast.values()]
    total = sum(a.nbytes for a in arrays)
    if t._transposed is not None:
        total += _table_bytes(t._transposed)
    return total


# ----------------------------------------------------------------------------
# Programs


class _Program:
    """The passes of one direction: tables, fusion, order, promotion."""

    def __init__(self, tables, compute, shape, storage=None):
        self.tables = tables  # {axis: Taps}, every resized axis
        self.compute = compute  # dtype the kernels sum in (before promotion)
        self.identity = all(t.is_identity for t in tables.values())
        #: Every output one input value of weight 1 (nearest, nearest-exact, area
        #: enlarging by an integer factor): ``_execute`` gathers 32/64-bit integers
        #: instead of summing them in float64 (``_gathered``).
        self.selection = all(t.is_selection for t in tables.values())
        self.promote = compute == np.float32 and any(
            t.index.shape[1] > LONG_SUM for t in tables.values()
        )
        self.run_dtype = np.dtype(np.float64) if self.promote else compute
        #: 8/16-bit input read and written by the kernels themselves (no float copy);
        #: 8-bit rows long enough to need float64 sums take the converting path.
        self.native_int = (
            storage is not None
            and storage.kind in "iu"
            and storage.itemsize <= 2
            and not self.promote
        )
        passes = sorted((a, t) for a, t in tables.items() if not t.is_identity)
        groups = [[p] for p in passes]
        if len(passes) >= 2 and passes[-2][0] + 1 == passes[-1][0]:
            groups[-2:] = [passes[-2:]]
        groups.sort(key=lambda g: math.prod(t.n_out / t.n_in for _, t in g))
        #: (axes, order, slots) per kernel call; slots only for fused steps, the order
        #: of a single-axis step ALONG_ROWS or ACROSS_ROWS.
        self.steps = []
        current = list(shape)  # the whole array's shape before each step
        for g in groups:
            axes = tuple(a for a, _ in g)
            if len(g) == 2:
                y = g[0][1]
                if y.is_selection:  # nearest: each output row is one resampled input row
                    order, slots = _kernels.Order.DIRECT, 1
                elif y.n_out > y.n_in:
                    order, slots = _kernels.Order.RING, y.span
                else:
                    order, slots = _kernels.Order.VERTICAL_FIRST, 1
                self.steps.append((axes, int(order), slots))
            else:
                along = math.prod(current[axes[0] + 1 :]) == 1
                self.steps.append((axes, ALONG_ROWS if along else ACROSS_ROWS, 0))
            for a, t in g:
                current[a] = t.n_out
        for t in tables.values():
            t.kernel_args(self.run_dtype)
        #: Per table: (first used input, last used input + 1) of each output row.
        self.bounds = {a: _row_bounds(t) for a, t in tables.items()}
        self.shape = shape  # the whole input's shape
        self._compiled = {}
        #: The whole array's steps (``_fast.Direct``) when a C-contiguous input of
        #: ``run_dtype`` (or of the 8/16-bit dtype the kernels read, ``native_int``)
        #: needs nothing else (no conversion, no promotion, not the identity); else None.
        self.direct = None
        kernel_dtype = compute  # (np.dtype of a type code: the instance arrays carry)
        if self.native_int and storage.isnative:
            kernel_dtype = np.dtype(storage.char)
        if (
            not self.identity
            and not self.promote
            and compute in _FLOATS
            and (storage is None or storage == kernel_dtype)
        ):
            self.direct = _fast.Direct(self.compiled(kernel_dtype), tuple(shape), kernel_dtype)

    def compiled(self, dtype, shape=None):
        """The whole array's kernel calls (made once per dtype), or those of an input of
        ``shape`` with the whole tables (a slab of planes, ``_slabs``: two shapes at
        most per dtype)."""
        key = dtype if shape is None or shape == self.shape else (dtype, shape)
        steps = self._compiled.get(key)
        if steps is None:
            shape = self.shape if shape is None else shape
            steps = self._compiled[key] = _compile(self, self.tables, shape, dtype)
        return steps


def _row_bounds(t):
    used = t.count > 0
    lo = np.where(used, t.index[:, 0], t.n_in)
    hi = np.where(used, last_index(t.index, t.count) + 1, 0)
    return lo, hi


class _Slice:
    """Rows ``o0:o1`` of a table, input indices shifted by ``-lo`` (a block's tables)."""

    def __init__(self, t, o0, o1, lo, n_in, dtype):
        index = t.index[o0:o1] - lo
        count = t.count[o0:o1]
        index[count == 0] = 0  # padding of empty rows: never read, kept in range
        self.index = index
        self.count = count
        start = t.start[o0:o1]
        self.start = np.where(start >= 0, start - lo, -1)
        self.weight = t.kernel_args(dtype)[1][o0:o1]
        self.is_selection = t.is_selection
        # the whole table's periodic rows inside the block, from a first phase
        s, whole_first, n = t.period(dtype)
        first = whole_first + max(0, -((whole_first - o0) // s)) * s if s else 0
        n = min(n - (first - whole_first) // s, (o1 - first) // s) if s else 0
        self._period = (s, first - o0, n) if n >= 1 else (0, 0, 0)
        self.block = 0  # rows keep their taps, not the whole table's block pattern
        self.n_in, self.n_out = n_in, o1 - o0

    def kernel_args(self, dtype):
        return self.index, self.weight, self.count

    def period(self, dtype):
        return self._period

    def row_args(self, dtype, period=False):
        args = self.index, self.weight, self.count, self.start, self.is_selection
        return (*args, self._period) if period else args


def _row_args(table, dtype, channels, src_dtype=None):
    """``table.row_args(dtype)`` for the row kernels, with the table's periodic rows when
    they hold at least ``MIN_PERIODIC_VALUES`` values of ``channels`` each; from 16-bit
    integers (``src_dtype``) summed in float64, the period's fourth entry says whether
    the periodic pass may sum in float32 (``exact_in_float32`` of its rows' weights: the same bits)."""
    s, first, n = table.period(dtype)
    if s * n * channels < MIN_PERIODIC_VALUES:
        return table.row_args(dtype)
    args = table.row_args(dtype, period=True)
    if np.dtype(dtype) == np.float64 and src_dtype is not None and src_dtype in _SIXTEEN_BITS:
        rows = table.kernel_args(dtype)[1][first : first + s]
        args = (*args[:5], (s, first, n, exact_in_float32(rows, _SIXTEEN_BITS_CENTRED)))
    return args


#: 16-bit integers, and the largest magnitude of their values once centred (uint16
#: values less 32768; int16 values as they are), as the periodic pass sums them.
_SIXTEEN_BITS = (np.dtype(np.uint16), np.dtype(np.int16))
_SIXTEEN_BITS_CENTRED = 2**15


def exact_in_float32(weights, magnitude):
    """Whether every sum ``w[0]*x[0] + w[1]*x[1] + …`` of each row of ``weights``
    (float64, one row per output), over integers ``|x[k]| <= magnitude``, is computed
    exactly in float32, from 0, a product then a sum, tap after tap.

    The rule: every weight is a multiple of ``2**-F`` for some ``F`` (a dyadic
    rational; found as the least such ``F`` up to 24), and
    ``magnitude * max_row(sum_k |w[k]|) * 2**F < 2**24``.

    Proof: each product ``w[k]*x[k]`` and each partial sum is then ``N * 2**-F`` for an
    integer ``N`` with ``|N| <= magnitude * sum_k |w[k]| * 2**F < 2**24`` (the weights
    themselves too, ``magnitude >= 1``), so it has at most 24 significant bits and is a
    float32 value (no subnormals: ``F < 24``): every float32 operation, its exact
    result representable, is exact. The sum is then the exact one, which float64
    (53 bits) also computes exactly for values up to ``2 * magnitude``, so a 16-bit
    row summed in float32 from its values centred by ``magnitude`` (uint16) and given
    back ``magnitude * sum_k w[k]`` in float64 (a multiple of ``2**-F`` below ``2**40``:
    exact, as the last addition) has the bits of the float64 sums (docs/kernels.md,
    "16-bit rows summed exactly in float32"). An x2 bicubic enlarging (weights
    ``225/256, 67/256, -27/256, -9/256``: ``F = 8``, ``sum |w| = 1.25``) passes:
    ``2**15 * 1.25 * 2**8 < 2**24``; x4 bicubic (``F = 11``) and non-dyadic weights
    (x3, x1.5, align_corners, lanczos3) do not.
    """
    w = np.asarray(weights, dtype=np.float64)
    if w.size == 0 or not np.all(np.isfinite(w)):
        return False
    for f in range(24):
        scaled = w * 2.0**f  # exact: a power of two
        if np.array_equal(scaled, np.rint(scaled)):
            break
    else:
        return False
    most = float(np.max(np.sum(np.abs(w), axis=1))) if w.ndim == 2 else float(np.abs(w).sum())
    return magnitude * most * 2.0**f < 2.0**24


# ----------------------------------------------------------------------------
# The executor


#: Kinds of kernel call (``_fast.run_step``).
LINES, PLANES, FUSED, TO_FLOAT, TO_INT = (
    _fast.LINES,
    _fast.PLANES,
    _fast.FUSED,
    _fast.TO_FLOAT,
    _fast.TO_INT,
)


def _execute(program, tables, x, out, num_threads):
    """Run ``program`` on ``x`` (the whole input or a block) with ``tables``
    (the program's own, or ``_Slice``s of them for a block)."""
    native = x.dtype.newbyteorder("=")
    if program.identity:  # exact for every dtype
        if out is None:
            return np.array(x, dtype=native, order="C", copy=True)
        np.copyto(out, x)
        return out
    if program.selection and native.kind in "iu" and native.itemsize >= 4:
        return _gathered(tables, x, out, native)
    if not program.promote and _computed_as(program, native):
        return _apply(program, tables, _kernel_array(x, native), out, num_threads)
    shape = list(x.shape)
    for a, t in tables.items():
        shape[a] = t.n_out
    target = out if out is not None else _fast.new_result(tuple(shape), native)
    # in slabs (the whole array's or a region's), each converted, computed and
    # converted back in turn
    slabs = _slabs(program, tables, x.shape, tuple(shape))
    if not slabs:
        _converted(program, tables, x, target, native, num_threads)
    for box, region, slab_tables in slabs:
        _converted(program, slab_tables, x[box], target[region], native, num_threads)
    return target


def _gathered(tables, x, out, native):
    """A program of selections (``tables``: one input index per output) on 32/64-bit
    integers: the input values themselves, gathered (summed in float64 as the other modes
    are, an int64 or uint64 beyond 2**53 would come back rounded to a float64 value).

    One ``take`` per resized axis (NumPy's ``x[np.ix_(...)]`` took 3-4x the CPU time),
    in pieces of the result along its first axes whose intermediates hold at most
    ``SLAB_BYTES`` (the larger of the input's and the result's length on each axis
    after the piece's): so that no whole gather is alive next to the result with
    ``out=`` or an input of the other byte order, as the converting path's slabs.
    A result of one piece is the last ``take``'s own array."""
    shape = list(x.shape)
    for a, t in tables.items():
        shape[a] = t.n_out
    widths = [max(n, m) for n, m in zip(x.shape, shape)]
    j = 0  # pieces: runs along axis j, at fixed indices of the axes before it
    while j < len(shape) - 1 and math.prod(widths[j + 1 :]) * native.itemsize > SLAB_BYTES:
        j += 1
    step = max(1, SLAB_BYTES // max(1, math.prod(widths[j + 1 :]) * native.itemsize))
    # the piece's own axes first (its lengths there are its own), then the shrinking ones
    rest = sorted((a for a in tables if a > j), key=lambda a: shape[a] / x.shape[a])
    pieces = math.prod(shape[:j]) * -(-shape[j] // step)
    target = out
    if out is None and (pieces != 1 or x.dtype != native):
        target = _fast.new_result(tuple(shape), native)
    for p in np.ndindex(*shape[:j]):
        for lo in range(0, shape[j], step):
            piece = tuple(slice(i, i + 1) for i in p) + (slice(lo, min(lo + step, shape[j])),)
            y = x
            for a, r in enumerate(piece):
                if a in tables:
                    y = y.take(tables[a].index[r, 0], axis=a)
                else:
                    y = y[(slice(None),) * a + (r,)]
            for k, a in enumerate(rest, 1):
                if k == len(rest) and target is not None and y.dtype == native:
                    # into the result (indices in range: "clip" does not buffer)
                    y.take(tables[a].index[:, 0], axis=a, out=target[piece], mode="clip")
                    break
                y = y.take(tables[a].index[:, 0], axis=a)
            else:
                if target is None:  # one piece, no out=: the result itself
                    return np.ascontiguousarray(y)
                target[piece] = y
    return target


def _computed_as(program, native):
    """Whether the kernels take ``native`` values as they are: the program's compute
    dtype, or an integer dtype it sums natively (``_apply`` may still promote)."""
    return program.compute == native or (program.native_int and native.kind in "iu")


def _converted(program, tables, x, target, native, num_threads):
    """``program`` on ``x`` computed in another dtype than ``native`` (float16 and
    32/64-bit integers; 8-bit rows long enough for float64 sums; float32 promoted to
    float64, in ``_apply``), written into ``target`` (C-contiguous, ``native``)."""
    if _computed_as(program, native):
        _apply(program, tables, _kernel_array(x, native), target, num_threads)
        return
    small_int = native.kind in "iu" and native.itemsize <= 2
    if small_int:  # 8/16-bit images: convert and round in parallel
        src = _fast.new_result(x.shape, np.dtype(np.float32))
        _run_step(
            TO_FLOAT,
            _kernel_array(x, native).reshape(-1),
            src.reshape(-1),
            (),
            num_threads,
            2 * src.size,
        )
    else:
        src = _kernel_array(x, program.compute)
    result = _apply(program, tables, src, None, num_threads)
    del src  # (a slab's copy: freed before the result is converted)
    if small_int:
        _run_step(TO_INT, result.reshape(-1), target.reshape(-1), (), num_threads, 2 * result.size)
    elif native.kind in "iu":  # 32/64-bit: clip to the float64 values inside the range
        round_to(native, result, out=target)
    else:  # float16 (or float32 from float64): past its range is inf, as the kernels
        # give float32 past its own, without NumPy's "overflow encountered in cast"
        with np.errstate(over="ignore"):
            np.copyto(target, result, casting="unsafe")


#: Most bytes of a slab's input and result in the dtype the kernels sum in, together:
#: a call of a dtype computed in another dtype (float16 in float32, 32/64-bit integers
#: in float64, float32 promoted to float64), of the whole array or of a region
#: (``Plan.run_region``, ``cresize.dask``'s tasks), runs in slabs (``_slabs``), so
#: that only a slab's copies are alive, not the whole call's.
SLAB_BYTES = 8 * 2**20

#: Converted input per slab from which a call is cut finer than ``SLAB_BYTES`` asks,
#: into up to ``MOST_SLABS`` slabs: a call's extra memory is then also a fraction of
#: its input (a Dask task's, in input chunks: float16 2048x2048 chunks, lanczos3
#: antialias 4x shrink, 3.3 input chunks in one piece, 1.4 in 8 slabs); below it, the
#: slab calls' own cost shows (512x512 float16 chunks cut in 8: 1.4x the CPU time).
MIN_SLAB_BYTES = 2 * 2**20

#: Most slabs the ``MIN_SLAB_BYTES`` rule cuts a call in (``SLAB_BYTES`` may ask more).
MOST_SLABS = 8

#: Most input the slabs of one plane cut along a resized axis read together, in
#: planes: where two slabs meet they both read the kernel's reach.
SLAB_REREAD = 1.25

#: Least values an output row of the axis a plane is cut along holds (the product of
#: the later axes' lengths): a cut's table rows are sliced and checked in NumPy (about
#: 12 ns a row), which costs more than resizing a row of a few values (a 1-D int64
#: 10**6 -> 1.5x10**6 bilinear, one thread, CPU time, cut in three: 5.2x the call in
#: one piece); a 1-D signal is therefore computed in one piece.
MIN_CUT_ROW = 256


def _slabs(program, tables, shape, out_shape):
    """The slabs of a call of ``program`` computed in another dtype (``_execute``) on an
    input of ``shape`` with ``tables`` (the program's own for the whole array, a
    region's ``_Slice``s for ``Plan.run_region``): ``[(input box, output region,
    tables)]``, relative to that input and its result, or ``[]`` for one piece.

    The call is cut into as many slabs as ``SLAB_BYTES`` of input and result (in the
    dtype the kernels sum in) ask, and at least as many, up to ``MOST_SLABS``, as hold
    ``MIN_SLAB_BYTES`` of input each. Planes (the values of the axes from the first
    resized one on, for each index of the leading axes, which are not resized) are
    independent: a slab is as many whole planes as its share holds (at least one),
    taken along the last leading axes, with the call's tables. A plane larger than
    that is cut along its first axis of more than one output, when that axis's output
    rows hold ``MIN_CUT_ROW`` values or more, into as many slabs as its share asks,
    each with that axis's table restricted to its outputs (``_Slice``, as
    ``Plan.run_region``: the same bits), as long as the slabs read at most
    ``SLAB_REREAD`` planes. Each region is a run of values (C order) of the result;
    a box is converted into a copy."""
    first = min(tables)
    plane = math.prod(shape[first:]) + math.prod(out_shape[first:])
    itemsize = program.run_dtype.itemsize
    plane_bytes = plane * itemsize
    leading = shape[:first]
    total = math.prod(leading) * plane_bytes
    if plane == 0 or 0 in out_shape:
        return []
    count = max(
        -(-total // SLAB_BYTES), min(MOST_SLABS, math.prod(shape) * itemsize // MIN_SLAB_BYTES)
    )
    if count <= 1:
        return []
    share = -(-total // count)  # bytes of a slab
    planes = share // plane_bytes
    if planes:  # whole planes along leading axis j, after fixed indices of those before
        j = first - 1
        while j > 0 and math.prod(leading[j:]) <= planes:
            j -= 1
        step = max(1, planes // math.prod(leading[j + 1 :]))
        count = -(-leading[j] // step)
        edges = [leading[j] * k // count for k in range(count + 1)]
        return [
            (box, box, tables)
            for p in _planes(leading[:j])
            for lo, hi in itertools.pairwise(edges)
            for box in [p + (slice(lo, hi),)]
        ]
    # (a plane of one output, (H, W) -> (1, 1), is not cut)
    axis = next((a for a in range(first, len(shape)) if out_shape[a] > 1), len(shape))
    n = out_shape[axis] if axis < len(shape) else 1
    t = tables.get(axis)
    bounds = None
    if t is not None:
        bounds = program.bounds[axis] if t is program.tables.get(axis) else _row_bounds(t)
    cuts = []
    most = -(-plane_bytes // share) if math.prod(out_shape[axis + 1 :]) >= MIN_CUT_ROW else 1
    for count in range(min(n, most), 1, -1):
        edges = [n * k // count for k in range(count + 1)]
        rows = [slice(lo, hi) for lo, hi in itertools.pairwise(edges)]
        boxes = [r if t is None else _read(bounds, r) for r in rows]
        if sum(b.stop - b.start for b in boxes) <= SLAB_REREAD * shape[axis]:
            cuts = list(zip(boxes, rows))
            break
    if not cuts:
        return [] if not leading else [(p, p, tables) for p in _planes(leading)]
    before = (slice(None),) * (axis - first)
    slabs = []
    for box, rows in cuts:
        cut_tables = tables
        if t is not None:
            sliced = _Slice(
                t, rows.start, rows.stop, box.start, box.stop - box.start, program.run_dtype
            )
            cut_tables = {**tables, axis: sliced}
        for p in _planes(leading):
            slabs.append((p + before + (box,), p + before + (rows,), cut_tables))
    return slabs


def _read(bounds, r):
    """The input rows that the output rows ``r`` of a table read (``bounds``:
    ``_row_bounds`` of the table), at least one."""
    if r.start == r.stop:
        return slice(0, 0)
    lo, hi = bounds
    first, last = int(lo[r.start : r.stop].min()), int(hi[r.start : r.stop].max())
    if first >= last:  # every row is empty (all weights 0): read one input anyway
        return slice(0, 1)
    return slice(first, last)


def _planes(leading):
    """Each plane's index, as slices of one value along the leading axes."""
    return [tuple(slice(i, i + 1) for i in index) for index in np.ndindex(*leading)]


def _kernel_array(x, dtype):
    """``x`` as the kernels read it: C-contiguous, aligned, of ``dtype`` (a copy only
    where ``x`` is not already so; an array on an odd byte offset is copied)."""
    x = np.ascontiguousarray(x, dtype)
    return x if x.flags.aligned else x.copy()


def _apply(program, tables, src, out, num_threads):
    """Contract ``src`` with each step's tables, in the program's order."""
    if program.promote and src.dtype == np.float32:
        result = _apply(program, tables, src.astype(np.float64), None, num_threads)
        if out is None:
            out = _fast.new_result(result.shape, np.dtype(np.float32))
        with np.errstate(over="ignore"):  # past float32's range is inf, no warning
            np.copyto(out, result, casting="same_kind")
        return out
    if tables is program.tables:  # precompiled
        steps = program.compiled(src.dtype, src.shape)
    else:
        steps = _compile(program, tables, src.shape, src.dtype)
    return _fast.run_steps(steps, src, out, num_threads)


def _compile(program, tables, shape, dtype):
    """The kernel calls of ``program`` on an input of ``shape``: ``(kind, src shape,
    dst shape, dst kernel shape, step, work, dst dtype)``; step: the checked
    ``_kernels.Step`` (float or 8/16-bit; it sizes its own scratch); work 0: nothing to
    compute (no step)."""
    if dtype.kind in "iu":
        return _compile_int(program, tables, shape, dtype)
    steps = []
    shape = tuple(shape)
    for axes, order, slots in program.steps:
        step = _float_step(tables, shape, axes, order, slots, dtype)
        steps.append(step)
        shape = step[2]
    return steps


def _float_step(tables, shape, axes, order, slots, dtype):
    """One kernel call of ``_compile`` on floats of ``dtype``."""
    first, last = axes[0], axes[-1]
    y = tables[first]
    out_shape = list(shape)
    for a in axes:
        out_shape[a] = tables[a].n_out
    outer = math.prod(shape[:first])
    inner = math.prod(shape[last + 1 :])
    size_in, size_out = math.prod(shape), math.prod(out_shape)
    work = size_in + size_out if size_out else 0
    for a in axes:
        _check_table(tables[a], dtype)
    most = max(1, work // MIN_WORK_PER_THREAD)
    if len(axes) == 2:
        x = tables[last]
        x_block = x.block if inner <= _kernels.MAX_BLOCK_CHANNELS else 0
        src_shape, dst_shape, step = _fused_step(
            y, x, outer, inner, order, slots, dtype, work, x_block, y.block
        )
        return (FUSED, src_shape, tuple(out_shape), dst_shape, step, work, dtype)
    if order == ALONG_ROWS:
        step = work and _kernels.make_step(
            LINES,
            outer,
            1,
            y.n_in,
            x=_row_args(y, dtype, 1),
            x_block=y.block,
            most_threads=most,
            quick=work >= QUICK_MIN_WORK,
        )
        return (
            LINES,
            (outer, y.n_in),
            tuple(out_shape),
            (outer, y.n_out),
            step,
            work,
            dtype,
        )
    if _pixel_rows(inner):  # rows of pixels by the row kernels, with PLANES' bits
        one = _one_row()
        _check_table(one, dtype)
        src_shape = (outer, 1, y.n_in * inner)
        dst_shape = (outer, 1, y.n_out * inner)
        step = work and _kernels.make_step(
            FUSED,
            *src_shape,
            y=one.kernel_args(dtype),
            x=_row_args(y, dtype, inner),
            channels=inner,
            order=_kernels.Order.DIRECT,
            most_threads=most,
            first_product=True,
            quick=work >= QUICK_MIN_WORK,
        )
        return (FUSED, src_shape, tuple(out_shape), dst_shape, step, work, dtype)
    step = work and _kernels.make_step(
        PLANES,
        outer,
        y.n_in,
        inner,
        y=y.kernel_args(dtype),
        most_threads=most,
        quick=work >= QUICK_MIN_WORK,
    )
    return (
        PLANES,
        (outer, y.n_in, inner),
        tuple(out_shape),
        (outer, y.n_out, inner),
        step,
        work,
        dtype,
    )


def _compile_int(program, tables, shape, dtype):
    """``_compile`` for 8/16-bit integers (``_kernels.resize_2d_int``'s loops, as
    ``Step``s checked here, once): the first step reads the integers, the last writes
    them; steps in between run the float kernels on the sums' dtype. A single-axis
    integer step pairs its table with the identity of length 1."""
    compute = program.run_dtype
    one = _one_row()
    steps = []
    shape = list(shape)
    last_step = len(program.steps) - 1
    for number, (axes, order, slots) in enumerate(program.steps):
        if 0 < number < last_step:  # sums in, sums out: the float kernels
            step = _float_step(tables, tuple(shape), axes, order, slots, compute)
            steps.append(step)
            shape = list(step[2])
            continue
        first, last = axes[0], axes[-1]
        out_shape = list(shape)
        for a in axes:
            out_shape[a] = tables[a].n_out
        outer = math.prod(shape[:first])
        inner = math.prod(shape[last + 1 :])
        if len(axes) == 2:
            y, x, channels = tables[first], tables[last], inner
        elif order == ALONG_ROWS or _pixel_rows(inner):  # every line is a row of pixels
            y, x, channels = one, tables[first], inner
            order, slots = int(_kernels.Order.DIRECT), 1
        else:  # whole rows of `inner` values combined
            y, x, channels = tables[first], one, inner
            order = int(_kernels.Order.DIRECT if y.is_selection else _kernels.Order.VERTICAL_FIRST)
            slots = 1
        for t in (y, x):
            _check_table(t, compute)
        size_in, size_out = math.prod(shape), math.prod(out_shape)
        work = size_in + size_out if size_out else 0
        dst_dtype = dtype if number == last_step else compute
        x_block = _x_block(x, channels, order)
        src_shape, dst_shape, step = _fused_step(
            y,
            x,
            outer,
            channels,
            order,
            slots,
            compute,
            work,
            x_block,
            y.block if x_block else 0,
            src_dtype=compute if number else dtype,
            dst_dtype=dst_dtype,
        )
        steps.append((FUSED, src_shape, tuple(out_shape), dst_shape, step, work, dst_dtype))
        shape = out_shape
    return steps


def _fused_step(y, x, outer, channels, order, slots, dtype, work, x_block, y_block, **dtypes):
    """A ``FUSED`` step (``_kernels.make_step``) of tables ``y`` and ``x`` over ``outer``
    planes of rows of pixels of ``channels`` values, weights of ``dtype`` (``dtypes``:
    ``src_dtype`` / ``dst_dtype`` of an integer step): ``(src shape, dst shape, step)``;
    step 0 when ``work`` is 0."""
    if order == _kernels.Order.RING and _span(y) > slots:
        raise RuntimeError(
            f"kernel contract: a ring of {slots} rows cannot hold a span of {_span(y)} input rows"
        )
    src_shape = (outer, y.n_in, x.n_in * channels)
    dst_shape = (outer, y.n_out, x.n_out * channels)
    step = work and _kernels.make_step(
        FUSED,
        *src_shape,
        y=y.kernel_args(dtype),
        x=_row_args(x, dtype, channels, dtypes.get("src_dtype")),
        channels=channels,
        order=order,
        slots=slots,
        x_block=x_block,
        y_block=y_block,
        most_threads=max(1, work // MIN_WORK_PER_THREAD),
        quick=work >= QUICK_MIN_WORK,
        **dtypes,
    )
    return src_shape, dst_shape, step


def _x_block(x, channels, order):
    """An integer step's ``x_block`` (``make_step``'s and ``resize_2d_int``'s): 2 for an x
    table of blocks of 2 after a combination of rows (bilinear or area shrinking by 2),
    which takes the pair sums of ``_simd_sums.h``, with its weights once per input
    value; else 0. Such a step also takes the y table's ``block`` (8-bit rows of blocks
    of 2: both sums in one sweep)."""
    if order != _kernels.Order.VERTICAL_FIRST or x.block != 2:
        return 0
    return 2 if 1 <= channels <= _kernels.MAX_BLOCK_CHANNELS else 0


def _one_row():
    """The identity of length 1: the y table of a single-axis step run as rows of pixels."""
    return table(1, 1, "nearest", False, False, None)


def _pixel_rows(inner):
    """Whether a single-axis step ACROSS_ROWS of ``inner`` values runs as rows of pixels of
    ``inner`` values (the row kernels: ``_simd_pixels.h``) rather than as combinations of
    whole rows of ``inner`` values (``_combine_rows``, a call per output pixel when
    ``inner`` is small: a width-only resize of an RGB image ran 4-8x slower than the
    2-D resize containing it). Measured crossover (float32 bicubic, one thread): 3
    values 2.9 against 26 ms, 5 values (the generic pixel loop) 27 against 25 ms."""
    return 1 <= inner <= _kernels.MAX_PIXEL_CHANNELS


def _check_table(t, dtype):
    """The kernels' contract on a table, checked before any ``nogil`` loop reads it:
    every used index inside the input, counts within the width, matching shapes."""
    index, weight, count = t.kernel_args(dtype)
    n_out, width = index.shape
    ok = (
        weight.shape == index.shape
        and count.shape == (n_out,)
        and n_out == t.n_out
        and weight.dtype == dtype
        and (n_out == 0 or (count.min() >= 0 and count.max() <= width))
    )
    if ok and n_out:
        # Every entry inside the input (the padding too, as tables pad) is enough; only
        # a table failing that has its used entries picked out (a mask and a copy of
        # each array cost 0.15 s on a 1.75M-row table).
        ok = index.min() >= 0 and index.max() < t.n_in
        if not ok:
            used = np.arange(width) < count[:, None]
            ok = not used.any() or (index[used].min() >= 0 and index[used].max() < t.n_in)
        ok = ok and (not t.is_selection or bool(np.all(count == 1)))
    if not ok:
        raise RuntimeError(
            f"kernel contract: a table of {t.n_out} rows over {t.n_in} inputs "
            f"has indices, counts or shapes the kernels cannot read"
        )


def _span(t):
    """The most input rows one output row spans (first to last used tap)."""
    lo, hi = _row_bounds(t)
    return int(np.max(hi - lo, initial=1))


def _run_step(kind, src, dst, args, num_threads, work):
    """A kernel call through the executor (``_fast.run_step``)."""
    _fast.run_step(kind, src, dst, args, num_threads, work, MIN_WORK_PER_THREAD)


Region = Sequence[slice]


class _OnFirstUse:
    """A plan's attribute that its method ``make`` makes on first use, then the plan's
    own (in its ``__dict__``, which ``_with_threads`` copies): not a property, whose
    call every use would pay (plans without direct steps, float16, take the checked
    path with their forward program on every call)."""

    def __init__(self, make: Callable[[Any], _Program]):
        self.make = make
        self.__doc__ = make.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, plan: Any, owner: Any = None) -> _Program:
        if plan is None:
            return self  # type: ignore[return-value]  # (the class's: its docstring)
        value = plan.__dict__[self.name] = self.make(plan)
        return value


class Plan(_fast.PlanBase):
    """A resize with everything but the data fixed; see ``cresize.plan``."""

    def __init__(self, spec: _spec.Spec, dtype: np.dtype, num_threads: _spec.Int | None = None):
        if not isinstance(spec, _spec.Spec) or not isinstance(dtype, np.dtype):
            # Plan((4, 4), 3) failed deep inside (AttributeError: 'int' has no 'kind')
            raise TypeError(
                "make a plan with cresize.plan(input_shape, size, ..., dtype=...); "
                "Plan(spec, dtype) takes the description cresize.plan builds, not "
                f"{type(spec).__name__} and {type(dtype).__name__}"
            )
        self._spec = spec
        self._num_threads = _spec.threads_value(num_threads)
        #: The dtype of the arrays the plan takes and returns (native byte order).
        self.dtype: np.dtype = dtype
        self._compute = _spec.compute_dtype(dtype, "dtype", "dtype")
        self._key = None
        tables = {
            a: table(n_in, n_out, spec.mode, spec.align_corners, spec.antialias, f)
            for a, n_in, n_out, f in _spec.axis_geometry(spec)
        }
        self._tables = tables  # {axis: Taps}, the forward's
        #: The programs made on first use (``_forward``, ``_backward``), shared with the
        #: plans of ``_with_threads``: a backward-only plan never makes the forward one.
        self._made: dict[str, _Program] = {}
        self._fwd = None  # PlanBase's plain call: ``_forward.direct`` once made
        self._bwd = None  # PlanBase's backward: ``_backward.direct`` once made
        self._lock = threading.Lock()

    # -- description
    @property
    def input_shape(self) -> tuple[int, ...]:
        """Shape of the forward input (and of the backward's result)."""
        return self._spec.input_shape

    @property
    def output_shape(self) -> tuple[int, ...]:
        """Shape of the forward result (and of the backward's ``grad_output``)."""
        return self._spec.output_shape

    @property
    def axes(self) -> tuple[int, ...]:
        """The resized axes (non-negative, in the order given)."""
        return self._spec.axes

    @property
    def mode(self) -> str:
        """The canonical mode name."""
        return self._spec.mode

    @property
    def weights(self) -> dict[int, npt.NDArray[np.float64]]:
        """``{axis: W}``: the dense ``(O, I)`` float64 matrix of every resized axis."""
        return {a: t.dense() for a, t in self._tables.items()}

    @property
    def nbytes(self) -> int:
        """Bytes held by this plan (what the plan cache counts): its tables (each once:
        two axes of one geometry share theirs), the row bounds of the programs it made,
        and a fixed allowance for its Python objects, ``PLAN_BYTES`` (4 KiB) and
        ``PROGRAM_BYTES`` (8 KiB) a direction made."""
        tables = {id(t): t for t in self._tables.values()}.values()
        made = list(self._made.values())
        bounds = [b for program in made for b in program.bounds.values()]
        return (
            PLAN_BYTES
            + PROGRAM_BYTES * len(made)
            + sum(_table_bytes(t) for t in tables)
            + sum(lo.nbytes + hi.nbytes for lo, hi in bounds)
        )

    def __repr__(self):
        s = self._spec
        return (
            f"cresize.plan({s.input_shape} -> {s.output_shape}, axes={s.axes}, "
            f"mode={s.mode!r}, align_corners={s.align_corners}, "
            f"antialias={s.antialias}, dtype={self.dtype})"
        )

    # -- execution (``p(x)`` and ``p.backward(g)``: ``_fast.PlanBase``, which takes
    # the plain call itself and hands the rest to ``_run``)
    def _run(self, program, x, out, shape, out_shape, name, num_threads):
        """``program`` on the whole array ``x`` (of ``shape``), checked."""
        x = self._check_input(x, shape, name)
        out = _check_out(out, out_shape, self.dtype, (x,))
        return _execute(program, program.tables, x, out, self._threads(num_threads))

    def input_region(self, out_region: Region, backward: bool = False) -> tuple[slice, ...]:
        """The smallest box of the input whose values the outputs in ``out_region`` read.

        Parameters
        ----------
        out_region : tuple of slice
            One slice (step 1) per dimension of the forward output
            (``backward=True``: of ``input_shape``, the backward's output).
        backward : bool
            Whether the region is of the backward's output.

        Returns
        -------
        tuple of slice
            A box of the forward input (``backward=True``: of ``grad_output``);
            a batch axis keeps its slice.
        """
        program, region = self._region(out_region, backward)
        return tuple(self._box(program, a, r) for a, r in enumerate(region))

    @overload
    def run_region(
        self,
        block: npt.NDArray[_spec.Scalar],
        out_region: Region,
        *,
        backward: bool = False,
        out: np.ndarray | None = None,
        num_threads: _spec.Int | None = None,
    ) -> npt.NDArray[_spec.Scalar]: ...
    @overload
    def run_region(
        self,
        block: ArrayLike,
        out_region: Region,
        *,
        backward: bool = False,
        out: np.ndarray | None = None,
        num_threads: _spec.Int | None = None,
    ) -> npt.NDArray[Any]: ...
    def run_region(
        self,
        block: ArrayLike,
        out_region: Region,
        *,
        backward: bool = False,
        out: np.ndarray | None = None,
        num_threads: _spec.Int | None = None,
    ) -> npt.NDArray[Any]:
        """``p(x)[out_region]`` computed from ``block = x[p.input_region(out_region)]``.

        Bit for bit equal to the slice of the whole result (``backward=True``:
        of ``p.backward(g)``, with ``block = g[p.input_region(out_region, True)]``):
        the pass order, fusion, row order, promotion and every output's taps come
        from the whole array's plan.

        Parameters
        ----------
        block : array_like
            ``x[p.input_region(out_region)]`` (``backward=True``:
            ``g[p.input_region(out_region, True)]``), of the plan's dtype.
        out_region : tuple of slice
            One slice (step 1) per dimension of the result, as for ``input_region``.
        backward : bool
            Compute a region of ``p.backward(g)`` rather than of ``p(x)``.
        out : ndarray, optional
            C-contiguous array of the region's shape and the plan's dtype, not
            overlapping ``block``.
        num_threads : int, optional
            As for ``p(x)``; the result does not depend on it.

        Returns
        -------
        ndarray
            The region of the result (or ``out``), of the plan's dtype.
        """
        program, region = self._region(out_region, backward)
        box = tuple(self._box(program, a, r) for a, r in enumerate(region))
        shape = tuple(b.stop - b.start for b in box)
        x = self._check_input(block, shape, "block", backward)
        out_shape = tuple(r.stop - r.start for r in region)
        out = _check_out(out, out_shape, self.dtype, (x,))
        if 0 in out_shape:
            return out if out is not None else np.empty(out_shape, self.dtype)
        dtype = program.run_dtype
        tables = {
            a: _Slice(t, region[a].start, region[a].stop, box[a].start, shape[a], dtype)
            for a, t in program.tables.items()
        }
        return _execute(program, tables, x, out, self._threads(num_threads))

    def __reduce__(self):
        # Pickled (and copied) as its description: the tables are rebuilt or found in
        # the cache, and the lock is new.
        return (_rebuild, (self._spec, self.dtype, self._num_threads))

    # -- helpers
    def _threads(self, num_threads):
        return _threads.resolve(self._num_threads if num_threads is None else num_threads)

    def _made_program(self, direction: str, make: Callable[[], _Program]) -> _Program:
        """The program of ``direction`` ("forward", "backward"): made by ``make`` on the
        first call that needs it, under the plan's lock, once for the plan and its
        copies for other thread counts (``_made``, shared), then counted in the cached
        plan (``_Cache.remeasure``); ``_fwd`` / ``_bwd`` take its ``direct``, so that the
        plain calls (``PlanBase.__call__``, ``PlanBase.backward``) no longer come here."""
        program = self._made.get(direction)
        if program is None:
            with self._lock:
                program = self._made.get(direction)
                if program is None:
                    program = self._made[direction] = make()
            _CACHE.remeasure(self)
        if direction == "forward":
            if self._fwd is None:
                self._fwd = program.direct
        elif self._bwd is None:
            self._bwd = program.direct
        return program

    def _make_forward(self) -> _Program:
        """The forward program, made on the first call that needs it (``p(x)``,
        ``input_region``, ``run_region``, ``resize``: ``_made_program``); then
        ``_forward`` is the plan's own attribute (``_OnFirstUse``)."""
        return self._made_program(
            "forward",
            lambda: _Program(self._tables, self._compute, self.input_shape, self.dtype),
        )

    def _make_backward(self) -> _Program:
        """The backward program (the transposed tables), made on the first call that
        needs it (``p.backward``, ``input_region`` / ``run_region`` with
        ``backward=True``, ``resize_backward``: ``_made_program``); then ``_backward``
        is the plan's own attribute (``_OnFirstUse``). A TypeError for a plan of
        neither float32 nor float64, on every use."""
        if self.dtype not in _FLOATS:
            raise TypeError(f"backward needs a float32 or float64 plan; this plan is {self.dtype}")

        def make():
            tables = {a: t.transpose() for a, t in self._tables.items()}
            return _Program(tables, self._compute, self.output_shape)

        return self._made_program("backward", make)

    _forward = _OnFirstUse(_make_forward)
    _backward = _OnFirstUse(_make_backward)

    def _check_input(self, x, shape, name, backward=False):
        if type(x) is not np.ndarray:  # lists, subclasses (a masked array is refused)
            call = "resize_backward" if backward or name == "grad_output" else "resize"
            x = _spec.as_array(x, name, f"cresize.dask.{call} with this plan's arguments")
        # the type first, as resize checks it: None or a string is a TypeError, not a
        # ValueError for its shape ()
        if x.dtype.newbyteorder("=") != self.dtype:
            raise TypeError(f"{name} has dtype {x.dtype}; this plan takes {self.dtype}")
        if x.shape != shape:
            raise ValueError(f"{name} has shape {x.shape}; this plan takes {shape}")
        return x

    def _region(self, out_region, backward):
        """``(program, region)`` of ``input_region`` and ``run_region``: the program of
        the direction ``backward`` names, ``out_region`` checked and clipped."""
        backward = _spec.flag(backward, "backward")
        program = self._backward if backward else self._forward
        shape = self.input_shape if backward else self.output_shape
        what = "input_shape" if backward else "the output"
        wanted = f"a tuple of {len(shape)} slices (one per dimension of {what} {shape})"
        if not isinstance(out_region, (tuple, list)):
            raise TypeError(f"out_region must be {wanted}; got {out_region!r}")
        if len(out_region) != len(shape):
            raise ValueError(
                f"out_region must be {wanted}; got {len(out_region)} entries: {out_region!r}"
            )
        region = []
        for a, (r, n) in enumerate(zip(out_region, shape)):
            if not isinstance(r, slice):
                raise TypeError(f"out_region[{a}] must be a slice; got {r!r}")
            start, stop, step = r.indices(n)
            if step != 1:
                raise ValueError(f"out_region[{a}] must have step 1; got {r!r}")
            region.append(slice(start, max(start, stop)))
        return program, tuple(region)

    @staticmethod
    def _box(program, axis, r):
        if axis not in program.tables:
            return r
        return _read(program.bounds[axis], r)


#: Effort ``np.shares_memory`` may spend deciding whether ``out`` overlaps an input
#: (milliseconds at most); undecided counts as overlapping.
OVERLAP_WORK = 10**5


def _overlap(a, b):
    """Whether ``a`` and ``b`` share a byte (exact: interleaved views do not)."""
    try:
        return np.shares_memory(a, b, max_work=OVERLAP_WORK)
    except np.exceptions.TooHardError:
        return True


def _check_out(out, shape, dtype, inputs):
    if out is None:
        return None
    if _spec.is_masked(out):  # its mask would be left as it was, over the new values
        raise TypeError(
            "out must be a NumPy array without a mask (a masked array's mask would stay "
            "as it was, over the new values): pass out.data and set the mask after; "
            f"got {type(out).__name__}"
        )
    if isinstance(out, np.matrix):
        raise TypeError("out must be a NumPy array other than np.matrix; got matrix")
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a NumPy array; got {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}; expected {shape}")
    if out.dtype.newbyteorder("=") != dtype.newbyteorder("=") or not out.dtype.isnative:
        raise ValueError(
            f"out has dtype {out.dtype}; expected native-order {dtype.newbyteorder('=')}"
        )
    if not out.flags.c_contiguous:
        raise ValueError("out must be C-contiguous")
    if not out.flags.aligned:
        raise ValueError("out must be aligned (its address a multiple of its itemsize)")
    if not out.flags.writeable:
        raise ValueError("out must be writeable")
    if any(_overlap(out, a) for a in inputs):
        raise ValueError("out must not share memory with the input")
    return out


# ----------------------------------------------------------------------------
# The cache


class _Cache:
    """Plans by their normalised arguments, least recently used first, bounded in bytes.

    ``nbytes``, the sum of the entries' sizes, is a running count that can not drift:
    a change marks it stale (``_stale``) before it touches ``entries`` and unmarks it
    once it has set the count, so an exception landing in between (Ctrl-C, a
    ``MemoryError``) leaves it marked, and the next read counts it anew from
    ``entries`` (only then: a put costs no walk over the plans)."""

    def __init__(self, limit):
        self.limit = limit
        self.entries: OrderedDict = OrderedDict()  # key -> (plan, nbytes)
        self._nbytes = 0
        self._stale = False  # set while entries and _nbytes may disagree
        self.hits = self.misses = 0
        self.lock = threading.RLock()

    @property
    def nbytes(self):
        """Bytes held: the sum of the entries' sizes (under ``lock``)."""
        if self._stale:  # a change was interrupted: count anew
            self._nbytes = sum(size for _, size in self.entries.values())
            self._stale = False
        return self._nbytes

    def get(self, key):
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self.hits += 1
            self.entries.move_to_end(key)
            return entry[0]

    def put(self, key, plan):
        size = plan.nbytes
        with self.lock:
            if key in self.entries:
                return self.entries[key][0]
            if size <= self.limit:
                plan._key = key
                total = self.nbytes + size  # the new state, before anything changes
                self._stale = True
                self.entries[key] = (plan, size)
                self._nbytes = total
                self._stale = False
                self._shrink()
        return plan

    def remeasure(self, plan):
        """Count ``plan``'s tables anew (a program it made grew them); a plan of
        ``_with_threads`` counts in the cached plan whose tables it shares."""
        shares = plan.__dict__.get("_shares")
        if shares is not None:
            plan = shares()
            if plan is None:  # (since dropped: nothing counted)
                return
        with self.lock:
            entry = self.entries.get(plan._key) if plan._key is not None else None
            if entry is not None and entry[0] is plan:
                size = plan.nbytes
                total = self.nbytes + size - entry[1]
                self._stale = True
                self.entries[plan._key] = (plan, size)
                self._nbytes = total
                self._stale = False
                self._shrink()

    def _shrink(self):
        total = self.nbytes
        if total > self.limit:
            self._stale = True
            while total > self.limit and self.entries:
                _, (_, size) = self.entries.popitem(last=False)
                total -= size
            self._nbytes = total
            self._stale = False
        if not self.entries:
            _forget_fast()

    def clear(self):
        with self.lock:
            self._stale = True
            self.entries.clear()
            self._nbytes = 0
            self._stale = False
            self.hits = self.misses = 0
            _fast.fast_hits(reset=True)
            _forget_fast()


_CACHE = _Cache(DEFAULT_CACHE_LIMIT)
#: Raw (plain-typed) call arguments -> weak reference to the cached plan: a dict
#: look-up instead of the normalisation on a repeated call.
_FAST: dict = {}
_FAST_MAX = 4096


def _forget_fast():
    """Empty ``_FAST``, and what ``_fast.cached_resize`` remembers of it."""
    _FAST.clear()
    _fast.forget()


def set_cache_limit(nbytes: _spec.Int) -> int:
    """Bound the plan cache (tap tables and plans) to ``nbytes`` bytes.

    Least recently used plans are dropped first; a plan larger than the bound
    is used but not kept.

    Parameters
    ----------
    nbytes : int
        The bound, from 0 to ``2**63 - 1``. The default is 256 MiB; 0 turns
        caching off.

    Returns
    -------
    int
        The bound in effect before the call (as ``set_thread_steering`` returns
        the mode it replaced), to restore it later.

    Raises
    ------
    TypeError
        ``nbytes`` not an int (a bool is not one).
    ValueError
        ``nbytes`` below 0 or above ``2**63 - 1``.

    Examples
    --------
    >>> import cresize
    >>> previous = cresize.set_cache_limit(0)  # nothing cached from here on
    >>> cresize.set_cache_limit(previous)
    0
    """
    limit = _check_limit(nbytes)
    with _CACHE.lock:
        previous = _CACHE.limit
        _CACHE.limit = limit
        _CACHE._shrink()
    return previous


#: Bound on a cache bound (``nbytes``): the result cache's is a C ``int64``.
MAX_CACHE_LIMIT = 2**63 - 1


def _check_limit(nbytes: object) -> int:
    """A cache bound (``set_cache_limit``, ``set_result_cache_limit``): an integer from 0
    to ``MAX_CACHE_LIMIT``, as ``_spec.integer`` takes one (a bool is not one)."""
    limit = _spec.integer(nbytes, "nbytes", "an int")
    if limit < 0:
        raise ValueError(f"nbytes must be >= 0; got {limit}")
    if limit > MAX_CACHE_LIMIT:
        raise ValueError(f"nbytes must be < 2**63; got {limit}")
    return limit


#: The result cache's default bound (bytes; ``_hugealloc.h``'s ``CRESIZE_POOL_DEFAULT``).
DEFAULT_RESULT_CACHE_LIMIT = _fast.POOL_DEFAULT


#: Makes ``set_result_cache_limit``'s read of the previous bound and its new one one step.
_RESULT_LIMIT_LOCK = threading.Lock()


def set_result_cache_limit(nbytes: _spec.Int) -> int:
    """Bound the memory of freed large results kept for reuse to ``nbytes`` bytes.

    On Linux, a result of 32 MiB or more that cresize allocated is, once freed,
    kept (at most 16 blocks, the oldest dropped first) and handed to the next
    result of between half its size and its size, which then costs no page
    faults. A block larger than the bound is freed. Kept memory still counts in
    the process's resident size until the kernel takes it back under memory
    pressure (``MADV_FREE``); ``clear_cache`` releases it at once. Elsewhere
    nothing is kept.

    Parameters
    ----------
    nbytes : int
        The bound, from 0 to ``2**63 - 1``. The default is 256 MiB; 0 keeps
        nothing (every large result is new memory).

    Returns
    -------
    int
        The bound in effect before the call, to restore it later.

    Raises
    ------
    TypeError, ValueError
        As ``set_cache_limit`` raises them: ``nbytes`` not an int, or out of range.

    Examples
    --------
    >>> import cresize
    >>> previous = cresize.set_result_cache_limit(0)  # keep nothing from here on
    >>> cresize.set_result_cache_limit(previous)
    0
    """
    limit = _check_limit(nbytes)
    with _RESULT_LIMIT_LOCK:
        previous = int(_fast.pool_info()["limit"])
        _fast.pool_limit(limit)
    return previous


def clear_cache() -> None:
    """Drop every cached plan and its tap tables (plans you hold keep working), and
    free the large results kept for reuse (``set_result_cache_limit``)."""
    _CACHE.clear()
    _fast.pool_clear()


def cache_info() -> dict[str, int]:
    """The state of the plan cache and of the result cache.

    Returns
    -------
    dict of str to int
        ``"limit"`` (``set_cache_limit``'s bound), ``"nbytes"`` (bytes held),
        ``"plans"`` (plans held), ``"hits"`` and ``"misses"`` (calls that
        looked for a cached plan and found it or not, since the last
        ``clear_cache``: every ``resize``, ``resize_backward`` and ``plan``,
        a repeated call's one-look-up path included; a held plan's own calls,
        ``p(x)``, look nothing up); for freed large results kept for reuse,
        ``"result_limit"`` (``set_result_cache_limit``'s bound),
        ``"result_nbytes"`` and ``"result_blocks"`` (bytes and blocks held),
        ``"result_hits"`` and ``"result_misses"`` (results of 32 MiB or more
        allocated from a kept block or not, since the last ``clear_cache``).
    """
    results = _fast.pool_info()
    with _CACHE.lock:
        info = {
            "limit": _CACHE.limit,
            "nbytes": _CACHE.nbytes,
            "plans": len(_CACHE.entries),
            "hits": _CACHE.hits + _fast.fast_hits(),
            "misses": _CACHE.misses,
        }
    info.update((f"result_{key}", value) for key, value in results.items())
    return info


def cached_plan(spec: _spec.Spec, dtype: np.dtype, *, blocks: bool = False) -> Plan:
    """The cached plan of ``spec`` for ``dtype`` (native), made when missing.

    Its whole input and result must fit in memory (``_spec.check_sizes``), unless
    ``blocks``: a plan run only region by region (Dask) needs only its tables to.
    """
    key = (spec, dtype)
    found = _CACHE.get(key)
    if found is None:
        _spec.check_sizes(spec, dtype.itemsize, arrays=not blocks)
        found = _CACHE.put(key, Plan(spec, dtype))
        if not blocks:
            found._arrays_fit = True
    elif not (blocks or getattr(found, "_arrays_fit", False)):  # made for blocks only
        _spec.check_sizes(spec, dtype.itemsize)
        found._arrays_fit = True
    return found


def block_plan(spec: _spec.Spec, dtype: Any, num_threads: _spec.Int | None) -> Plan:
    """``plan`` of ``spec`` for block execution only (``run_region``, as on Dask): the
    whole input and result need not fit in this machine's memory, only the tables."""
    dtype = _spec.plan_dtype(dtype)
    _spec.threads_value(num_threads)
    return _with_threads(cached_plan(spec, dtype, blocks=True), num_threads)


fast_key = _fast.fast_key


#: recall(key): the plan ``remember`` kept for ``key``, or None (no key, never kept, or
#: since dropped from the cache); a hit counted in C (``_fast.fast_hits``), not under
#: the cache's lock
recall = functools.partial(_fast.recall, _FAST)


def remember(key, found):
    if key is not None and found._key is not None:
        if len(_FAST) >= _FAST_MAX:
            _FAST.clear()
        _FAST[key] = weakref.ref(found)
        _fast.forget()  # the table changed: no call answers from what it was


def plan(
    input_shape: _spec.Shape,
    size: _spec.Ints | None = None,
    *,
    scale_factor: _spec.Reals | None = None,
    mode: str = "bilinear",
    align_corners: bool | None = False,
    antialias: bool = False,
    axes: _spec.Ints | None = None,
    dtype: DTypeLike = "float32",
    num_threads: _spec.Int | None = None,
) -> Plan:
    """Fix everything of a resize but the data: validate, build tables, decide passes.

    Parameters
    ----------
    input_shape : tuple of int
        Shape of the arrays the plan resizes.
    size, scale_factor, mode, align_corners, antialias, axes
        As for ``cresize.resize``.
    dtype : dtype-like
        dtype of the arrays (float16/32/64 or an integer type; default float32);
        ``p(x)`` refuses another. ``p.backward`` needs float32 or float64.
    num_threads : int, optional
        Threads of every call that does not give its own; None resolves OpenMP's
        default at call time (not now), so a forked child uses 1.

    Returns
    -------
    Plan
        ``p(x, out=None)`` equals ``cresize.resize(x, ...)`` and
        ``p.backward(g, out=None)`` equals ``cresize.resize_backward(g,
        input_shape, ...)`` bit for bit. Also ``p.input_shape``,
        ``p.output_shape``, ``p.dtype``, ``p.axes``, ``p.mode`` (the canonical
        name), ``p.weights`` (``{axis: the dense float64 (O, I) matrix}``),
        ``p.nbytes`` (what the plan cache counts for it), and block execution with
        ``p.input_region(out_region)`` and ``p.run_region(block, out_region)``.
        A plan may be called from several threads at once.

    Raises
    ------
    TypeError
        ``dtype`` not a float16/32/64 or integer dtype, or an argument of the
        wrong type (as for ``cresize.resize``).
    ValueError, MemoryError
        As for ``cresize.resize``.

    Examples
    --------
    >>> import numpy as np, cresize
    >>> p = cresize.plan((2, 4), 8, mode="bilinear", axes=1, dtype="float64")
    >>> p.output_shape
    (2, 8)
    >>> x = np.arange(8.0).reshape(2, 4)
    >>> bool(np.array_equal(p(x), cresize.resize(x, 8, axes=1)))
    True
    >>> p.backward(np.ones((2, 8)))
    array([[2., 2., 2., 2.],
           [2., 2., 2., 2.]])
    >>> p.input_region((slice(0, 2), slice(2, 4)))
    (slice(0, 2, None), slice(0, 3, None))
    """
    spec = _spec.forward(input_shape, size, scale_factor, mode, align_corners, antialias, axes)
    native = _spec.plan_dtype(dtype)
    _spec.threads_value(num_threads)
    return _with_threads(cached_plan(spec, native), num_threads)


def _with_threads(found, num_threads):
    """``found``, or a plan sharing its tables and programs with its own thread count."""
    if num_threads is None:
        return found
    own = Plan.__new__(Plan)
    own.__dict__.update(found.__dict__)
    own._fwd, own._bwd = found._fwd, found._bwd
    own._num_threads = _spec.threads_value(num_threads)
    own._key = None
    # the plan the cache counts the shared tables in (``_Cache.remeasure``)
    own._shares = found.__dict__.get("_shares") or weakref.ref(found)
    return own


def _rebuild(spec, dtype, num_threads):
    """Unpickle a plan: the cached plan of its description (``Plan.__reduce__``)."""
    return _with_threads(cached_plan(spec, dtype), num_threads)
