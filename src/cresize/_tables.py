"""Per-axis tap tables: what each mode computes (docs/spec.md sections 2-4).

A mode is a function ``(in_size, out_size, scale, align_corners) -> (index, weight)``
returning raw taps as ``(out_size, k)`` arrays in float64; ``Taps`` then adds up
taps that landed on the same input index, drops taps of exactly zero weight and
pads the rows to a common width. The kernels apply ``Taps`` forward and
``Taps.transpose()`` backward.
"""

import math

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


class Taps:
    """The sparse ``(n_out, n_in)`` operator of one axis.

    ``index``, ``weight`` (float64) are ``(n_out, width)``; row ``o`` uses its
    first ``count[o]`` entries; the padding (its own first index, weight 0) is never
    read by the kernels.
    """

    def __init__(self, n_in, rows, cols, vals, n_out, *, unique=False):
        """The general path: taps as flat ``(row, index, weight)`` arrays in any order.

        ``unique``: no two taps share a ``(row, index)``, no weight is zero and the
        taps of each row come in ascending index order (``transpose`` knows this),
        so a stable sort by row alone orders them and nothing is merged or dropped.
        """
        self._set(n_in, *_compact(rows, cols, vals, n_out, unique))

    def _set(self, n_in, index, weight, count):
        """Fill in the table from its padded rows, each sorted by index without repeats."""
        n_out, width = index.shape
        self.n_in, self.n_out = n_in, n_out
        first = index[:, 0]
        last = index[np.arange(n_out), np.maximum(count - 1, 0)]
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
        if used.all():  # the common case: nothing to pad
            count = np.full(n_out, k, np.intp)
        else:
            count = np.count_nonzero(used, axis=1).astype(np.intp)
            np.copyto(index, index[:, :1], where=unused)
            np.copyto(weight, 0.0, where=unused)
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
            rows, cols, vals = self._entries()
            # Taps in row order, unique, nonzero: by output row ``rows`` ascending.
            self._transposed = Taps(self.n_out, cols, rows, vals, self.n_in, unique=True)
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


def _compact(rows, cols, vals, n_out, unique=False):
    """``(index, weight, count)``: the general path of ``Taps`` (its ``unique``)."""
    if unique:
        order = np.argsort(rows, kind="stable")
    else:
        order = np.lexsort((cols, rows))  # by row, then index; stable
    rows, cols, vals = rows[order], cols[order], vals[order]
    if rows.size and not unique:  # add up taps on the same (row, index)
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
        # repeat[o]: row o + s is row o, one input further
        repeat = (
            whole[s:]
            & whole[:-s]
            & (start[s:] == start[:-s] + 1)
            & np.all(bits[s:] == bits[:-s], axis=1)
        )
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
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = 3 * np.sin(np.pi * x) * np.sin(np.pi * x / 3) / (np.pi**2 * x * x)
    integer = x == np.round(x)
    value = np.where(integer, 0.0, value)
    value = np.where(x == 0, 1.0, value)
    return np.where(np.abs(x) < 3, value, 0.0)


def triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


#: Elements per chunk of ``_by_chunks``.
CHUNK = 1 << 14


def _by_chunks(kernel, x):
    """``kernel(x)`` of an elementwise kernel, ``CHUNK`` elements at a time: the same
    bits (each element's value depends on that element alone), but the kernel's dozen
    temporaries stay small and in the cache rather than each a fresh ``(n_out, k)``
    array (first touches of large fresh arrays dominate a long axis's planning)."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty_like(flat)
    for i in range(0, flat.size, CHUNK):
        out[i : i + CHUNK] = kernel(flat[i : i + CHUNK])
    return out.reshape(np.shape(x))


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
    weight = _by_chunks(lambda x: keys_cubic(x, -0.75), np.hstack([t + 1, t, 1 - t, 2 - t]))
    return index, weight


def _lanczos3(n_in, n_out, scale, align_corners):
    src = source_coordinate(n_out, scale, align_corners)
    index = np.floor(src).astype(np.int64)[:, None] + np.arange(-2, 4)
    inside = (index >= 0) & (index < n_in)
    weight = np.where(inside, _by_chunks(lanczos3, src[:, None] - index), 0.0)
    weight /= weight.sum(axis=1, keepdims=True)
    return np.where(inside, index, -1), weight


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


def _antialiased(n_in, n_out, scale, mode):
    base = ANTIALIAS_SUPPORT[mode]
    kernel = {"bilinear": triangle, "bicubic": lambda x: keys_cubic(x, -0.5), "lanczos3": lanczos3}[
        mode
    ]
    support, inv = (base * scale, 1.0 / scale) if scale >= 1 else (base, 1.0)
    center = scale * (np.arange(n_out) + 0.5)
    lo = np.maximum(np.trunc(center - support + 0.5), 0).astype(np.int64)
    hi = np.minimum(np.trunc(center + support + 0.5), n_in).astype(np.int64)
    width = max(int((hi - lo).max()), 1)
    index = lo[:, None] + np.arange(width)
    inside = index < hi[:, None]
    weight = np.where(inside, _by_chunks(kernel, (index - center[:, None] + 0.5) * inv), 0.0)
    total = weight.sum(axis=1, keepdims=True)
    weight = np.divide(weight, total, out=np.zeros_like(weight), where=total != 0)
    return np.where(inside, index, -1), weight


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
