"""Per-axis tap tables: what each mode computes (docs/spec.md sections 2-4).

A mode is a function ``(in_size, out_size, scale, align_corners) -> (index, weight)``
returning raw taps as ``(out_size, k)`` arrays in float64; ``Taps`` then adds up
taps that landed on the same input index, drops taps of exactly zero weight and
pads the rows to a common width. The kernels apply ``Taps`` forward and
``Taps.transpose()`` backward.
"""

import math
from fractions import Fraction

import numpy as np

#: Canonical mode names.
MODES = ("nearest", "nearest-exact", "bilinear", "bicubic", "lanczos3", "area")

ALIASES = {
    "nearest_exact": "nearest-exact",
    "linear": "bilinear",
    "trilinear": "bilinear",
    "cubic": "bicubic",
}

#: Modes that take ``antialias=True`` and their kernel's support at scale 1.
ANTIALIAS_SUPPORT = {"bilinear": 1.0, "bicubic": 2.0, "lanczos3": 3.0}

#: Modes for which ``align_corners=True`` is an error.
NO_ALIGN_CORNERS = ("nearest", "nearest-exact", "area")


#: ``Taps.from_dense_rows`` takes its fast path from this many raw taps (tests: 0).
FAST_PATH_TAPS = 4096

#: ``Taps.from_dense_rows`` pads rows column by column where more than one row in this
#: many has unused taps, else row by row (tests: 0, rows alone; a large number, columns).
SHORT_ROWS = 16


class Taps:
    """The sparse ``(n_out, n_in)`` operator of one axis.

    ``index``, ``weight`` (float64) are ``(n_out, width)``; row ``o`` uses its
    first ``count[o]`` entries; the padding (its own first index, weight 0) is never
    read by the kernels.
    """

    def __init__(self, n_in, rows, cols, vals, n_out):
        """The general path: taps as flat ``(row, index, weight)`` arrays in any order."""
        self._set(n_in, *_compact(rows, cols, vals, n_out))

    def _set(self, n_in, index, weight, count):
        """Fill in the table from its padded rows, each sorted by index without repeats."""
        n_out, width = index.shape
        self.n_in, self.n_out = n_in, n_out
        first = index[:, 0]
        last = last_index(index, count)
        #: The most input positions one row spans (first to last tap), at least 1.
        self.span = int((last - first).max(initial=0)) + 1
        #: First input of each row whose taps are its whole contiguous window, else -1.
        #: (``width`` distinct ascending indices are contiguous iff they span ``width``.)
        whole = (count == width) & (last - first == width - 1)
        self.start = _frozen(np.where(whole, first, -1))
        self.index, self.weight, self.count = _frozen(index), _frozen(weight), _frozen(count)
        #: Every row reads one input with weight 1 (nearest modes).
        self.is_selection = width == 1 and bool(np.all(count == 1)) and bool(np.all(weight == 1.0))
        self.is_identity = (
            self.is_selection and n_in == n_out and bool(np.all(first == np.arange(n_out)))
        )
        #: ``f`` >= 2 when row ``o`` reads exactly inputs ``o*f … o*f + f - 1`` (shrinking
        #: by an integer factor: bilinear by 2, the adjoint of nearest enlarging), else 0.
        self.block = 0
        if width >= 2 and bool(np.all(whole)):
            self.block = width if np.array_equal(first, np.arange(n_out) * width) else 0
        self._cast = {}
        self._periods = {}
        self._transposed = None

    @classmethod
    def from_dense_rows(cls, n_in, index, weight):
        """Build from raw ``(n_out, k)`` taps; entries with index < 0 are unused.

        The table may take ``index`` and ``weight`` over as they are (no copy): the
        caller hands over fresh arrays and no longer writes to them.

        The fast path: a row whose used taps come first (``c`` of them, unused ones
        after), with indices ascending strictly and weights all nonzero, is already
        what the general path makes of it: nothing to sort, merge or drop, ``count``
        ``c``, padding its first index with weight 0. Such rows are the rule (modes
        clamp, repeat or leave out taps only near the borders), so only the other
        rows go through the general path (its sort and ``reduceat`` on whole-axis
        temporaries cost seconds on a 1M-long axis), then into the same arrays.
        """
        n_out, k = index.shape
        if index.size < FAST_PATH_TAPS:  # small: one sort costs less than the checks
            return cls._from_rows(n_in, index, weight)
        used = index >= 0  # masks: 1 byte a tap
        unused = ~used
        plain = used[:, 0] & _all_rows((weight != 0) | unused)
        plain &= _all_rows((index[:, 1:] > index[:, :-1]) | unused[:, 1:])
        plain &= _all_rows(used[:, :-1] >= used[:, 1:])  # used taps first
        if n_out == 0 or not plain.any():
            return cls._from_rows(n_in, index, weight)
        index = index.astype(np.intp, copy=False)
        other = np.flatnonzero(~plain)
        if other.size:  # before the padding below writes over their unused taps
            part_index, part_weight, part_count = _compact(*_flat(index[other], weight[other]))
        count = np.full(n_out, k, np.intp)
        # rows to pad: plain rows with unused taps (their last one unused). Mostly few
        # (the borders): those rows alone (a masked copy over the whole table cost 0.3 s
        # on 1.75M rows). Where many are (antialiased rows of two lengths: 1M -> 333K
        # lanczos3, all but 54 rows 18 taps of 19), column by column, only the columns
        # with unused taps (the gather and copies of those rows cost 0.6-1 s there).
        short = np.flatnonzero(unused[:, -1])
        if SHORT_ROWS * short.size > n_out:
            for j in range(k):  # (rows not plain get the same, then are overwritten)
                pad = unused[:, j]
                if pad.any():
                    count -= pad
                    np.copyto(index[:, j], index[:, 0], where=pad)
                    np.copyto(weight[:, j], 0.0, where=pad)
        elif short.size:
            part_used = used[short]
            count[short] = np.count_nonzero(part_used, axis=1)
            index[short] = np.where(part_used, index[short], index[short, :1])
            weight[short] = np.where(part_used, weight[short], 0.0)
        if other.size:
            count[other] = part_count
            width = part_index.shape[1]
            index[other, :width], index[other, width:] = part_index, part_index[:, :1]
            weight[other, :width], weight[other, width:] = part_weight, 0.0
        width = max(int(count.max()), 1)
        table = cls.__new__(cls)
        table._set(n_in, index[:, :width], weight[:, :width], count)
        return table

    @classmethod
    def _from_rows(cls, n_in, index, weight):
        """``from_dense_rows`` through the general path alone."""
        return cls(n_in, *_flat(index, weight))

    def transpose(self):
        """The adjoint's table, ``(n_in, n_out)``: row ``i`` lists the outputs that read ``i``."""
        if self._transposed is None:
            table = Taps.__new__(Taps)
            table._set(self.n_out, *_transposed(self.index, self.weight, self.count, self.n_in))
            self._transposed = table
        return self._transposed

    def _entries(self):
        """The taps as flat ``(row, index, weight)`` arrays, padding left out."""
        used = np.arange(self.index.shape[1]) < self.count[:, None]
        rows = np.broadcast_to(np.arange(self.n_out)[:, None], used.shape)[used]
        return rows, self.index[used], self.weight[used]

    def kernel_args(self, dtype):
        """``(index, weight, count)`` with the weights cast to ``dtype``, for the kernels."""
        dtype = np.dtype(dtype)
        if dtype not in self._cast:
            self._cast[dtype] = _frozen(self.weight.astype(dtype))
        return self.index, self._cast[dtype], self.count

    def row_args(self, dtype, period=False):
        """``kernel_args`` plus ``start`` and ``is_selection``, for the row kernels
        (``period``: and ``self.period(dtype)``)."""
        args = (*self.kernel_args(dtype), self.start, self.is_selection)
        return (*args, self.period(dtype)) if period else args

    def period(self, dtype):
        """``(s, first, n)``: the longest run of rows that repeat with period ``s``
        (2 … ``MAX_PERIOD``) once the weights are cast to ``dtype``; ``(0, 0, 0)`` when
        there is none of at least two periods (and for selections: nearest has its own
        paths).

        Row ``first + s*q + p`` (``q < n``, ``p < s``) then reads the whole window
        ``start[first + p] + q …`` with the bits of row ``first + p``'s weights: an
        integer-factor enlarging away from the borders (``docs/kernels.md``, the
        periodic horizontal pass).
        """
        dtype = np.dtype(dtype)
        if dtype not in self._periods:
            self._periods[dtype] = _period(
                self.start, self.kernel_args(dtype)[1], self.is_selection
            )
        return self._periods[dtype]

    def dense(self):
        """The operator as a dense float64 ``(n_out, n_in)`` matrix."""
        matrix = np.zeros((self.n_out, self.n_in))
        rows, cols, vals = self._entries()
        matrix[rows, cols] = vals
        return matrix


def last_index(index, count):
    """``index[o, max(count[o] - 1, 0)]`` of every row: its last tap's index (an empty
    row's padding). The last column, then the few rows that are shorter (a gather
    over every row cost 30 ms of a 1.75M-row table)."""
    width = index.shape[1]
    last = index[:, width - 1].copy()
    short = np.flatnonzero(count < width)
    if short.size:
        last[short] = index[short, np.maximum(count[short] - 1, 0)]
    return last


def _all_rows(mask):
    """``np.all(mask, axis=1)``, column by column where rows are short: numpy reduces
    along a short last axis at ~15 ns a row, about 10 times the column operations."""
    if mask.shape[1] > 16:
        return np.all(mask, axis=1)
    out = np.ones(mask.shape[0], bool)
    for j in range(mask.shape[1]):
        out &= mask[:, j]
    return out


def _flat(index, weight):
    """``(rows, cols, vals, n_out)`` of raw ``(n_out, k)`` taps (index < 0: unused)."""
    rows = np.broadcast_to(np.arange(index.shape[0])[:, None], index.shape)
    used = index >= 0
    return rows[used], index[used], weight[used], index.shape[0]


def _transposed(index, weight, count, n_in):
    """``(index, weight, count)`` of the adjoint of the table ``(index, weight, count)``
    over ``n_in`` inputs: what ``_compact`` makes of its taps with rows and indices
    swapped (``transpose``), without its sort by two keys, adding up and scatter.

    The taps of a table are unique, nonzero and ascending in each row, so the adjoint's
    row ``i`` lists the rows that read ``i``, ascending. Where every row reads a window
    of consecutive inputs and the windows' first and last inputs never decrease from
    row to row, those are the rows ``lo[i] … hi[i] - 1``, counted from the windows'
    ends (``_windows_transposed``). Where some windows go back (bicubic and lanczos3
    tables with rows that fall on an input sample between rows that do not, their zero
    taps dropped: such a row reads one input, its window ending before the row
    above's; enlarging by 3, 5, ..., align_corners 1001 -> 3001), the rows that may
    read ``i`` are still a run, that of the windows' hull, less the rows whose windows
    miss ``i`` (``_hull_transposed``). Otherwise (rows with zero taps inside: some
    antialiased tables; a hull many times the taps) the taps are sorted
    (``_sorted_transposed``).
    """
    n_out = index.shape[0]
    if n_out and n_in and bool(np.all(count > 0)):
        first = index[:, 0]
        last = last_index(index, count)
        if bool(np.all(last - first == count - 1)):  # windows
            if bool(np.all(first[1:] >= first[:-1])) and bool(np.all(last[1:] >= last[:-1])):
                return _windows_transposed(weight, first, last, n_in)
            found = _hull_transposed(weight, first, last, n_in)
            if found is not None:
                return found
    return _sorted_transposed(index, weight, count, n_in)


def _runs(first, last, n_in):
    """``(lo, n)``: ``n[i]`` rows ``o`` have ``first[o] <= i <= last[o]`` (those whose
    windows start at ``i`` or before, less those ending before it: any windows); where
    ``first`` and ``last`` never decrease they are ``lo[i] … lo[i] + n[i] - 1``
    (``lo[i]`` 0 where ``n[i]`` is)."""
    lo = np.zeros(n_in, np.intp)
    np.cumsum(np.bincount(last, minlength=n_in)[: n_in - 1], out=lo[1:])
    n = np.cumsum(np.bincount(first, minlength=n_in)[:n_in])
    n -= lo
    np.maximum(n, 0, out=n)
    np.copyto(lo, 0, where=n == 0)  # (lo may be n_out in an empty row)
    return lo, n


def _windows_transposed(weight, first, last, n_in):
    """``_transposed`` of rows that read the windows ``first … last`` (both never
    decreasing): input ``i`` is read by the rows ``o`` with ``first[o] <= i <= last[o]``,
    the rows ``lo[i] … hi[i] - 1``, with the weight of ``o``'s tap ``i - first[o]``."""
    n_out, width = weight.shape
    lo, count_t = _runs(first, last, n_in)
    width_t = max(int(count_t.max(initial=0)), 1)
    # slot s of row i: row lo[i] + s, its weight at the flat position
    # (lo[i] + s) * width - first[lo[i] + s] + i; the padding: lo[i] (0 in an empty
    # row), weight 0. ``CHUNK`` slots at a time: cache-sized temporaries.
    index_t = np.empty((n_in, width_t), np.intp)
    weight_t = np.empty((n_in, width_t), np.float64)
    offset = np.arange(n_out, dtype=np.intp) * width - first  # NumPy 1 on Windows: int32
    weights = weight.ravel()
    slots = np.arange(width_t)
    step = max(1, CHUNK // width_t)
    for i in range(0, n_in, step):
        part = slice(i, i + step)
        unused = slots >= count_t[part, None]
        rows = index_t[part]
        np.add(lo[part, None], slots, out=rows)
        np.copyto(rows, lo[part, None], where=unused)
        flat = offset[rows]
        flat += np.arange(i, i + rows.shape[0])[:, None]
        np.take(weights, flat, out=weight_t[part], mode="clip")  # (unused: any tap)
        np.copyto(weight_t[part], 0.0, where=unused)
    return index_t, weight_t, count_t.astype(np.intp, copy=False)


#: ``_hull_transposed`` gives way to the sort beyond this many candidate (row, input)
#: pairs a tap.
HULL_PER_TAP = 4


def _hull_transposed(weight, first, last, n_in):
    """``_transposed`` of rows that read the windows ``first … last`` where some
    windows go back, or None where the sort costs less.

    The hull of the windows, ``first`` least from each row on and ``last`` most up to
    it, never decreases, so the rows that may read input ``i`` are a run of the hull
    (``_runs``); a candidate row ``o`` reads ``i`` where ``first[o] <= i <= last[o]``,
    with the weight of its tap ``i - first[o]``. The candidates that read ``i``, in
    order, fill the adjoint's row ``i``, ``CHUNK`` candidates at a time."""
    n_out, width = weight.shape
    lo, n = _runs(np.minimum.accumulate(first[::-1])[::-1], np.maximum.accumulate(last), n_in)
    if int(n.sum()) > HULL_PER_TAP * int((last - first).sum() + n_out):
        return None
    count_t = _runs(first, last, n_in)[1]  # (it counts windows in any order)
    width_t = max(int(count_t.max(initial=0)), 1)
    index_t = np.empty((n_in, width_t), np.intp)
    weight_t = np.zeros((n_in, width_t), np.float64)
    # a run's slots past the last row (near it): rows that read no input
    slots = np.arange(max(int(n.max(initial=0)), 1))
    reach = np.r_[last - first, np.zeros(slots.size, np.intp)].view(np.uintp)
    first = np.r_[first, np.full(slots.size, n_in)]
    weights = weight.ravel()
    full = count_t == width_t
    step = max(1, CHUNK // slots.size)
    for i in range(0, n_in, step):
        part = slice(i, i + step)
        inputs = np.arange(i, i + index_t[part].shape[0])[:, None]
        # candidate o reads i where 0 <= i - first[o] <= last[o] - first[o] (compared
        # unsigned), with its weight at o * width + i - first[o]
        rows = lo[part, None] + slots
        at = inputs - first[rows]
        reads = at.view(np.uintp) <= reach[rows]
        at += rows * width
        w = np.take(weights, at, mode="clip")  # (not read: any)
        if full[part].all():  # every slot used: the candidates read, in order
            index_t[part].ravel()[:] = rows[reads]
            weight_t[part].ravel()[:] = w[reads]
            continue
        used = np.arange(width_t) < count_t[part, None]
        index_part = index_t[part]
        index_part[used] = rows[reads]
        weight_t[part][used] = w[reads]
        # the padding: the row's first index (0 in an empty row)
        np.copyto(index_part[:, 0], 0, where=count_t[part] == 0)
        np.copyto(index_part, index_part[:, :1], where=~used)
    return index_t, weight_t, count_t.astype(np.intp, copy=False)


def _sorted_transposed(index, weight, count, n_in):
    """``_transposed`` of any table: its taps sorted by the key ``i * n_out + o``
    (unique), taken column by column from the last (in most tables ``width`` ascending
    runs of keys, which the stable sort merges), fill the adjoint's padded rows in C
    order through a mask of its used slots."""
    n_out, width = index.shape
    rows = np.broadcast_to(np.arange(n_out), (width, n_out))
    columns = slice(None, None, -1)  # the last column first
    if bool(np.all(count == width)):  # every slot used: the columns as they are
        cols, vals, rows = index.T[columns].ravel(), weight.T[columns].ravel(), rows.ravel()
    else:
        used = (np.arange(width)[:, None] < count)[columns]
        cols, vals, rows = index.T[columns][used], weight.T[columns][used], rows[used]
    if n_in * n_out < 2**62:
        key = cols * n_out
        key += rows
        order = np.argsort(key, kind="stable")
        del key
    else:  # pragma: no cover - a key would not fit in int64
        order = np.lexsort((rows, cols))
    count_t = np.bincount(cols, minlength=n_in).astype(np.intp)
    del cols
    rows, vals = rows[order], vals[order]
    del order
    width_t = max(int(count_t.max(initial=0)), 1)
    if rows.size == n_in * width_t:  # every row full: nothing to pad
        return rows.reshape(n_in, width_t), vals.reshape(n_in, width_t), count_t
    index_t = np.zeros((n_in, width_t), np.intp)
    if rows.size:  # the padding: each row's first index (0 in an empty row)
        first = np.minimum(np.cumsum(count_t) - count_t, rows.size - 1)
        index_t[...] = np.where(count_t > 0, rows[first], 0)[:, None]
    slots = np.arange(width_t) < count_t[:, None]
    index_t[slots] = rows
    weight_t = np.zeros((n_in, width_t), np.float64)
    weight_t[slots] = vals
    return index_t, weight_t, count_t


def _compact(rows, cols, vals, n_out):
    """``(index, weight, count)``: the general path of ``Taps``."""
    order = np.lexsort((cols, rows))  # by row, then index; stable
    rows, cols, vals = rows[order], cols[order], vals[order]
    if rows.size:  # add up taps on the same (row, index)
        start = np.flatnonzero(np.r_[True, (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])])
        rows, cols, vals = rows[start], cols[start], np.add.reduceat(vals, start)
        keep = vals != 0
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
    count = np.bincount(rows, minlength=n_out).astype(np.intp)
    width = max(int(count.max(initial=0)), 1)
    first = np.r_[0, np.cumsum(count)[:-1]]
    slot = np.arange(rows.size) - first[rows]
    index = np.zeros((n_out, width), np.intp)
    index[count > 0] = cols[first[count > 0]][:, None]
    weight = np.zeros((n_out, width), np.float64)
    index[rows, slot] = cols
    weight[rows, slot] = vals
    return index, weight, count


#: The longest period ``Taps.period`` looks for (an enlarging by 8).
MAX_PERIOD = 8


def _period(start, weight, is_selection):
    """``Taps.period`` of rows with window starts ``start`` and cast ``weight``."""
    best = (0, 0, 0)
    n_out = start.shape[0]
    if is_selection or n_out < 4:
        return best
    bits = weight.view(np.dtype(f"u{weight.dtype.itemsize}"))  # signed zeros differ
    whole = start >= 0  # every tap of the row, a contiguous window
    for s in range(2, MAX_PERIOD + 1):
        if n_out < 2 * s:
            break
        # repeat[o]: row o + s is row o, one input further; the weights compared
        # only where the windows are (on few rows: those rows alone)
        repeat = whole[s:] & whole[:-s] & (start[s:] == start[:-s] + 1)
        if repeat.size < FAST_PATH_TAPS:  # short: the fewest numpy calls
            repeat &= np.all(bits[s:] == bits[:-s], axis=1)
        elif 4 * np.count_nonzero(repeat) < repeat.size:
            rows = np.flatnonzero(repeat)
            repeat[rows] = _all_rows(bits[rows + s] == bits[rows])
        else:
            repeat &= _all_rows(bits[s:] == bits[:-s])
        edges = np.flatnonzero(np.diff(np.r_[0, repeat.astype(np.int8), 0]))
        if not edges.size:
            continue
        runs = edges[1::2] - edges[::2]
        longest = int(np.argmax(runs))
        first, periods = int(edges[2 * longest]), (int(runs[longest]) + s) // s
        if periods >= 2 and s * periods > best[0] * best[2]:
            best = (s, first, periods)
    return best


def _frozen(a):
    a = np.ascontiguousarray(a)
    a.flags.writeable = False
    return a


# ----------------------------------------------------------------------------
# Scale and source coordinate (docs/spec.md section 2)


def axis_scale(n_in, n_out, scale_factor, align_corners):
    """The scale ``s`` of docs/spec.md section 2."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    if scale_factor is not None:
        return 1.0 / scale_factor
    return n_in / n_out


def source_coordinate(n_out, scale, align_corners):
    o = np.arange(n_out, dtype=np.float64)
    return scale * o if align_corners else (o + 0.5) * scale - 0.5


# ----------------------------------------------------------------------------
# Kernels


def keys_cubic(x, a):
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def lanczos3(x):
    """``3 sin(pi x) sin(pi x / 3) / (pi^2 x^2)`` (1 at 0; 0 at the other integers and
    outside ``(-3, 3)``), evaluated as that expression, left to right, in place: the
    same bits as the whole-array expressions and ``np.where`` it replaced, in about
    70% of the time (the two ``sin``, 13 ns an element each, are the rest)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.multiply(np.pi, x, out=np.empty_like(x))  # (an array where x is 0-d too)
        value = np.sin(t, out=np.empty_like(x))
        value *= 3
        t /= 3
        value *= np.sin(t, out=t)
        np.multiply(np.pi**2, x, out=t)
        t *= x
        value /= t
    zero = np.round(x, out=t) == x  # the integers; outside (-3, 3), and NaN: not < 3
    zero |= ~(np.abs(x, out=t) < 3)
    np.copyto(value, 0.0, where=zero)
    np.copyto(value, 1.0, where=x == 0)
    return value


def triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


#: Elements per chunk of ``_by_chunks``.
CHUNK = 1 << 14


def _by_chunks(kernel, x):
    """``kernel(x)`` of an elementwise kernel, ``CHUNK`` elements at a time: the same
    bits (each element's value depends on that element alone), but the kernel's dozen
    temporaries stay small and in the cache rather than each a fresh ``(n_out, k)``
    array (first touches of large fresh arrays dominate a long axis's planning).

    The result is written over ``x`` where ``x`` is a contiguous float64 array (callers
    hand over a temporary: each chunk is read before it is written, and no fresh
    ``(n_out, k)`` array is touched)."""
    flat = np.ascontiguousarray(x).reshape(-1)
    mine = isinstance(x, np.ndarray) and x.flags.c_contiguous and x.flags.writeable
    out = flat if mine and flat.dtype == np.float64 else np.empty_like(flat)
    for i in range(0, flat.size, CHUNK):
        out[i : i + CHUNK] = kernel(flat[i : i + CHUNK])
    return out.reshape(np.shape(x))


def _row_periods(scale, n_out):
    """Periods ``p`` (in rows) that a table of ``scale`` may have, most likely first:
    the denominators of ``scale``'s closest fractions (an enlarging by 1.75 repeats
    every 7 rows, 44.1 -> 16 kHz every 160), of at most ``n_out // 2``."""
    periods = []
    for limit in (64, 1024, n_out // 2):
        p = Fraction(scale).limit_denominator(max(limit, 1)).denominator
        if 2 * p <= n_out and p not in periods:
            periods.append(p)
    return periods


def _by_periods(rows, key, width, periods):
    """``rows(key)`` (``width`` values a row, each row a function of that row of ``key``
    alone, elementwise as the kernels are: the same key bits, the same result bits),
    computed only for the rows whose key differs from the key ``p`` rows before (``p``
    the first of ``periods`` under which at least half the rows repeat) and copied to
    the others.

    A periodic table's source coordinates repeat, mostly to the bit, once a period:
    their rows' weights are then computed once a period (``lanczos3``'s two ``sin`` a
    tap cost 25 ns). The bits decide, row by row: a row whose key is not the same as
    the one a period before is computed, whatever ``periods`` says. The result may be
    written over ``key`` (callers hand over a temporary: peak memory)."""
    n = key.shape[0]
    if n * width < FAST_PATH_TAPS:  # small tables keep one path
        return rows(key)
    bits = key.view(np.dtype(f"u{key.dtype.itemsize}")).reshape(n, -1)  # -0.0 != 0.0
    for p in periods:
        same = bits[p:, 0] == bits[:-p, 0]  # row o + p has row o's key
        for j in range(1, bits.shape[1]):
            if 2 * np.count_nonzero(same) < n:  # (a period that fails: one column)
                break
            same &= bits[p:, j] == bits[:-p, j]
        if 2 * np.count_nonzero(same) >= n:
            break
    else:
        return rows(key)
    new = np.ones(n, bool)
    np.logical_not(same, out=new[p:])
    del same
    # each row's source: the last new row at or before it of its phase (o mod p),
    # as its place among the new rows (the ranks of new rows ascend with the rows)
    source = np.zeros(-(-n // p) * p, np.intp)
    np.cumsum(new, out=source[:n])
    np.copyto(source[:n], 0, where=~new)
    np.maximum.accumulate(source.reshape(-1, p), axis=0, out=source.reshape(-1, p))
    source -= 1
    values = rows(key[new])
    out = key if values.shape[1:] == key.shape[1:] and values.dtype == key.dtype else None
    if out is None:
        out = np.empty((n, *values.shape[1:]), values.dtype)
    return np.take(values, source[:n], axis=0, out=out, mode="clip")  # (in range)


# ----------------------------------------------------------------------------
# Modes without antialias (docs/spec.md section 3): raw (index, weight) rows


def _nearest(n_in, n_out, scale, align_corners, size_based, offset):
    o = np.arange(n_out, dtype=np.int64)
    if size_based:  # exact integers: floor((o + offset) * n_in / n_out)
        index = ((2 * o + (1 if offset else 0)) * n_in) // (2 * n_out)
    else:
        index = np.floor((o + offset) * scale).astype(np.int64)
    index = np.minimum(index, n_in - 1)
    return index[:, None], np.ones((n_out, 1))


def _bilinear(n_in, n_out, scale, align_corners):
    src = np.maximum(source_coordinate(n_out, scale, align_corners), 0.0)
    i0 = np.minimum(np.floor(src), n_in - 1)
    t = src - i0
    i0 = i0.astype(np.int64)
    index = np.stack([i0, np.minimum(i0 + 1, n_in - 1)], axis=1)
    return index, np.stack([1 - t, t], axis=1)


def _bicubic(n_in, n_out, scale, align_corners):
    src = source_coordinate(n_out, scale, align_corners)
    i = np.floor(src)
    t = (src - i)[:, None]
    index = np.clip(i.astype(np.int64)[:, None] + np.arange(-1, 3), 0, n_in - 1)

    def rows(t):
        return _by_chunks(lambda x: keys_cubic(x, -0.75), np.hstack([t + 1, t, 1 - t, 2 - t]))

    return index, _by_periods(rows, t, 4, _row_periods(scale, n_out))


def _lanczos3(n_in, n_out, scale, align_corners):
    src = source_coordinate(n_out, scale, align_corners)
    index = np.floor(src).astype(np.int64)[:, None] + np.arange(-2, 4)
    inside = (index >= 0) & (index < n_in)
    x = src[:, None] - index
    weight = _by_periods(lambda x: _by_chunks(lanczos3, x), x, 6, _row_periods(scale, n_out))
    del x  # (peak memory)
    np.copyto(weight, 0.0, where=~inside)
    weight /= weight.sum(axis=1, keepdims=True)
    np.copyto(index, -1, where=~inside)
    return index, weight


def _area(n_in, n_out):
    o = np.arange(n_out, dtype=np.int64)
    start = (o * n_in) // n_out
    end = ((o + 1) * n_in + n_out - 1) // n_out
    width = int((end - start).max())
    index = start[:, None] + np.arange(width)
    inside = index < end[:, None]
    weight = np.where(inside, 1.0 / (end - start)[:, None], 0.0)
    return np.where(inside, index, -1), weight


# ----------------------------------------------------------------------------
# Antialias (docs/spec.md section 4)

#: ``_antialiased`` marks the taps outside column by column in up to this many columns.
OUTSIDE_COLUMNS = 8


def _antialiased(n_in, n_out, scale, mode):
    base = ANTIALIAS_SUPPORT[mode]
    kernel = {"bilinear": triangle, "bicubic": lambda x: keys_cubic(x, -0.5), "lanczos3": lanczos3}[
        mode
    ]
    support, inv = (base * scale, 1.0 / scale) if scale >= 1 else (base, 1.0)
    center = scale * (np.arange(n_out) + 0.5)
    lo = np.maximum(np.trunc(center - support + 0.5), 0).astype(np.int64)
    hi = np.minimum(np.trunc(center + support + 0.5), n_in).astype(np.int64)
    taps = hi - lo  # row o's taps: its first taps[o] columns (the rest are outside)
    width = max(int(taps.max()), 1)
    index = lo[:, None] + np.arange(width)
    # the same operations as ``(index - center[:, None] + 0.5) * inv``, in place: one
    # fresh (n_out, width) array, not three (first touches: most of a long axis's time)
    x = index.astype(np.float64)
    x -= center[:, None]
    x += 0.5
    x *= inv
    weight = _by_periods(lambda x: _by_chunks(kernel, x), x, width, _row_periods(scale, n_out))
    del x  # (peak memory)
    # the taps outside fill the last columns of the rows that have fewer than
    # ``width``: column by column from the first with any where those are few (rather
    # than whole-table masks), else one mask over the table (huge ratios; small
    # tables: the fewest numpy calls)
    first = max(int(taps.min()), 0) if n_out * width >= FAST_PATH_TAPS else 0
    if width - first <= OUTSIDE_COLUMNS and first:
        outside = [(j, taps <= j) for j in range(first, width)]
    else:
        outside = [(slice(None), np.arange(width) >= taps[:, None])]
    for j, out in outside:
        np.copyto(weight[:, j], 0.0, where=out)
    total = weight.sum(axis=1, keepdims=True)
    nonzero = total != 0
    np.divide(weight, total, out=weight, where=nonzero)
    if not nonzero.all():  # rows that add up to zero: none of them read
        weight[~nonzero[:, 0]] = 0.0
    for j, out in outside:
        np.copyto(index[:, j], -1, where=out)
    return index, weight


# ----------------------------------------------------------------------------


def taps(n_in, n_out, mode, align_corners=False, antialias=False, scale_factor=None):
    """The ``Taps`` of one axis (arguments already validated and canonical).

    Not cached here: ``_plan.table`` shares the tables of live plans, and the
    plan cache (bounded in bytes) keeps plans.
    """
    scale = axis_scale(n_in, n_out, scale_factor, align_corners)
    if antialias:
        index, weight = _antialiased(n_in, n_out, scale, mode)
    elif mode in ("nearest", "nearest-exact"):
        index, weight = _nearest(
            n_in,
            n_out,
            scale,
            align_corners,
            scale_factor is None,
            0.5 if mode == "nearest-exact" else 0.0,
        )
    elif mode == "bilinear":
        index, weight = _bilinear(n_in, n_out, scale, align_corners)
    elif mode == "bicubic":
        index, weight = _bicubic(n_in, n_out, scale, align_corners)
    elif mode == "lanczos3":
        index, weight = _lanczos3(n_in, n_out, scale, align_corners)
    elif mode == "area":
        index, weight = _area(n_in, n_out)
    else:  # pragma: no cover - validated by the caller
        raise AssertionError(mode)
    return Taps.from_dense_rows(n_in, index, weight)


def output_length(n_in, scale_factor):
    """``floor(n_in * f)`` in float64 (docs/spec.md section 2)."""
    return math.floor(n_in * scale_factor)
