"""The tap table as ``Taps`` built it before its fast paths (one general path):
sort every tap, add up repeats, drop zeros, pad. ``tests/test_tables.py`` compares
``cresize._tables.Taps`` with it field by field."""

import numpy as np

FIELDS = ("index", "weight", "count", "start", "span", "block", "is_selection", "is_identity")


def reference(n_in, rows, cols, vals, n_out):
    """The fields of the table of flat taps ``(rows, cols, vals)``, as a dict."""
    order = np.lexsort((cols, rows))
    rows, cols, vals = rows[order], cols[order], vals[order]
    if rows.size:
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
    last = index[np.arange(n_out), np.maximum(count - 1, 0)]
    whole = (count == width) & np.all(index == index[:, :1] + np.arange(width), axis=1)
    is_selection = width == 1 and bool(np.all(count == 1)) and bool(np.all(weight == 1.0))
    block = 0
    if width >= 2 and bool(np.all(count == width)):
        blocks = np.arange(n_out)[:, None] * width + np.arange(width)
        block = width if np.array_equal(index, blocks) else 0
    return {
        "index": index,
        "weight": weight,
        "count": count,
        "start": np.where(whole, index[:, 0], -1),
        "span": int((last - index[:, 0]).max(initial=0)) + 1,
        "block": block,
        "is_selection": is_selection,
        "is_identity": is_selection
        and n_in == n_out
        and bool(np.all(index[:, 0] == np.arange(n_out))),
    }


def from_dense_rows(n_in, index, weight):
    """``reference`` of raw ``(n_out, k)`` taps (index < 0: unused)."""
    rows = np.broadcast_to(np.arange(index.shape[0])[:, None], index.shape)
    used = index >= 0
    return reference(n_in, rows[used], index[used], weight[used], index.shape[0])


def transposed(table):
    """``reference`` of the adjoint of ``table`` (a dict from ``reference``)."""
    n_out, width = table["index"].shape
    used = np.arange(width) < table["count"][:, None]
    rows = np.broadcast_to(np.arange(n_out)[:, None], used.shape)[used]
    n_in = int(table["n_in"])
    return reference(n_out, table["index"][used], rows, table["weight"][used], n_in)


def period(start, weight, is_selection, max_period=8):
    """``Taps.period`` as first written: every pair of rows ``s`` apart compared whole."""
    best = (0, 0, 0)
    n_out = start.shape[0]
    if is_selection or n_out < 4:
        return best
    bits = weight.view(np.dtype(f"u{weight.dtype.itemsize}"))
    whole = start >= 0
    for s in range(2, max_period + 1):
        if n_out < 2 * s:
            break
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


def lanczos3(x):
    """``_tables.lanczos3`` as whole-array expressions (before it was evaluated in
    place): the bits the tables keep."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        value = 3 * np.sin(np.pi * x) * np.sin(np.pi * x / 3) / (np.pi**2 * x * x)
    integer = x == np.round(x)
    value = np.where(integer, 0.0, value)
    value = np.where(x == 0, 1.0, value)
    return np.where(np.abs(x) < 3, value, 0.0)


def antialiased_rows(n_in, n_out, scale, mode, kernel=None):
    """``_tables._antialiased``'s raw ``(index, weight)`` rows as whole-table
    expressions and masks, every row's weights computed (docs/spec.md section 4;
    ``kernel``: another than the mode's)."""
    base = {"bilinear": 1.0, "bicubic": 2.0, "lanczos3": 3.0}[mode]
    kernel = (
        kernel
        or {
            "bilinear": lambda x: np.maximum(0.0, 1.0 - np.abs(x)),
            "bicubic": lambda x: _keys_cubic(x, -0.5),
            "lanczos3": lanczos3,
        }[mode]
    )
    support, inv = (base * scale, 1.0 / scale) if scale >= 1 else (base, 1.0)
    center = scale * (np.arange(n_out) + 0.5)
    lo = np.maximum(np.trunc(center - support + 0.5), 0).astype(np.int64)
    hi = np.minimum(np.trunc(center + support + 0.5), n_in).astype(np.int64)
    width = max(int((hi - lo).max()), 1)
    index = lo[:, None] + np.arange(width)
    inside = index < hi[:, None]
    weight = np.where(inside, kernel((index - center[:, None] + 0.5) * inv), 0.0)
    total = weight.sum(axis=1, keepdims=True)
    weight = np.divide(weight, total, out=np.zeros_like(weight), where=total != 0)
    return np.where(inside, index, -1), weight


def _keys_cubic(x, a):
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = a * x**3 - 5 * a * x**2 + 8 * a * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))
