"""``Taps``' fast paths (``from_dense_rows`` with rows taken as they are, the
transposed table read off the windows or sorted on one key, weights computed once a
period) give the tables of the one general path (``helpers.taps_reference``), every
field bit for bit."""

import itertools

import numpy as np
import pytest

from cresize import _tables
from helpers import taps_reference


def _dense_rows(monkeypatch, *args, **kwargs):
    """``(table, its raw rows)`` of ``_tables.taps(*args, **kwargs)``."""
    seen = []
    build = _tables.Taps.from_dense_rows.__func__

    def record(cls, n_in, index, weight):
        seen.append((index.copy(), weight.copy()))
        return build(cls, n_in, index, weight)

    with monkeypatch.context() as patch:
        patch.setattr(_tables.Taps, "from_dense_rows", classmethod(record))
        table = _tables.taps(*args, **kwargs)
    (rows,) = seen
    return table, rows


def _assert_same(table, expected):
    for name in taps_reference.FIELDS:
        got, want = getattr(table, name), expected[name]
        if isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and got.shape == want.shape, name
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), name  # bits
            assert not got.flags.writeable, name
        else:
            assert type(got) is type(want) and got == want, name


SIZES = (1, 2, 3, 5, 7, 8, 16, 31, 64, 100, 128, 333)
CASES = [
    (mode, align, antialias)
    for mode in _tables.MODES
    for align in (False, True)
    for antialias in (False, True)
    if not (align and mode in _tables.NO_ALIGN_CORNERS)
    and not (antialias and mode not in _tables.ANTIALIAS_SUPPORT)
]


@pytest.mark.parametrize(("mode", "align", "antialias"), CASES)
def test_tables_match_the_general_path(monkeypatch, mode, align, antialias):
    monkeypatch.setattr(_tables, "FAST_PATH_TAPS", 0)  # every table the fast path's
    fast_rows = 0
    for n_in, n_out in itertools.product(SIZES, SIZES):
        for scale_factor in (None, n_out / n_in, 2.0, 3.0, 0.5, 1 / 3, 1.75):
            if align and scale_factor is not None:
                continue
            if scale_factor is not None and _tables.output_length(n_in, scale_factor) < 1:
                continue
            m = n_out if scale_factor is None else _tables.output_length(n_in, scale_factor)
            table, (index, weight) = _dense_rows(
                monkeypatch, n_in, m, mode, align, antialias, scale_factor
            )
            expected = taps_reference.from_dense_rows(n_in, index, weight)
            _assert_same(table, expected)
            expected["n_in"] = n_in
            _assert_same(table.transpose(), taps_reference.transposed(expected))
            fast_rows += int(np.sum(table.count == index.shape[1]))
    assert fast_rows > 0
    assert _tables.FAST_PATH_TAPS == 0  # not undone on the way


def test_the_fast_path_keeps_rows_that_need_the_general_path(monkeypatch):
    """Unsorted, repeated, zero, unused and negative-zero taps among plain rows."""
    monkeypatch.setattr(_tables, "FAST_PATH_TAPS", 0)
    rng = np.random.default_rng(5)
    index = np.sort(rng.choice(50, (40, 4), replace=True), axis=1) + np.arange(4) * 50
    weight = rng.uniform(0.5, 1.5, (40, 4))
    index[3] = [7, 5, 9, 1]  # unsorted
    index[4] = [6, 6, 8, 8]  # repeats
    weight[5, 2] = 0.0
    weight[6, 0] = -0.0
    index[7, :2] = -1  # unused, first
    index[8] = -1  # nothing at all
    index[9, 1], weight[9, 2] = 10, -weight[9, 1]  # repeats adding up to 0
    index[9] = [3, 10, 10, 4]
    index[10, 2:], weight[10, 2:] = -1, np.nan  # unused last: plain, padded
    index[11, 3], weight[11, 1] = -1, 0.0  # unused last and a zero
    index[12, 1] = -1  # unused between used ones
    index[13, 3], index[13, 2] = -1, index[13, 1]  # unused last and a repeat
    for rows in (slice(None), slice(2, 3), slice(3, 14), slice(8, 9), slice(10, 12), [0, 10]):
        i, w = index[rows].copy(), weight[rows].copy()
        expected = taps_reference.from_dense_rows(300, i, w)
        table = _tables.Taps.from_dense_rows(300, i.copy(), w.copy())
        _assert_same(table, expected)
        expected["n_in"] = 300
        _assert_same(table.transpose(), taps_reference.transposed(expected))


def test_small_tables_take_the_general_path(monkeypatch):
    """Under ``FAST_PATH_TAPS`` raw taps every row goes through the general path,
    over it only the border rows whose taps clamp (3 each side here)."""
    rows = []
    flat = _tables._flat
    monkeypatch.setattr(_tables, "_flat", lambda i, w: rows.append(len(i)) or flat(i, w))
    assert _tables.FAST_PATH_TAPS > 512
    _tables.taps(64, 128, "bicubic")  # 512 raw taps
    _tables.taps(4096, 7168, "bicubic")
    assert rows == [128, 6]


def test_derived_fields_on_plain_rows(monkeypatch):
    """``start``/``block``/``is_identity`` where the fast path takes every row."""
    monkeypatch.setattr(_tables, "FAST_PATH_TAPS", 0)
    t = _tables.Taps.from_dense_rows(8, np.arange(8).reshape(4, 2), np.full((4, 2), 0.5))
    assert t.block == 2 and list(t.start) == [0, 2, 4, 6] and t.span == 2
    gap = _tables.Taps.from_dense_rows(9, np.array([[0, 2], [3, 4]]), np.ones((2, 2)))
    assert gap.block == 0 and list(gap.start) == [-1, 3] and gap.span == 3
    same = _tables.Taps.from_dense_rows(3, np.arange(3)[:, None], np.ones((3, 1)))
    assert same.is_identity and same.is_selection and same.block == 0


# Long axes: weights once a period, the transposed table from the windows, ``period``.

#: ``(n_in, n_out, mode, align_corners, antialias)``: periodic ratios (x2, 1.75, 44.1 ->
#: 16 kHz), ones that are not (1M -> 362,812 scaled down), raw tap counts just below and
#: above ``FAST_PATH_TAPS`` (bicubic: 4 a row), align_corners and antialias shrinking.
LONG = [
    (1000, 1750, "bicubic", False, False),
    (1000, 1750, "lanczos3", False, False),
    (3000, 6000, "lanczos3", False, False),
    (3001, 6001, "lanczos3", True, False),
    (2001, 3501, "bicubic", True, False),
    (600, 1023, "bicubic", False, False),  # 4092 raw taps: below FAST_PATH_TAPS
    (600, 1025, "bicubic", False, False),  # 4100: above
    (4410, 1600, "bilinear", False, True),
    (4410, 1600, "bicubic", False, True),
    (4410, 1600, "lanczos3", False, True),
    (10000, 3628, "lanczos3", False, True),
    (10000, 3628, "lanczos3", False, False),
    (5000, 2500, "bicubic", False, True),
    (2500, 5000, "lanczos3", False, True),  # antialias enlarging: the plain kernel
    (999, 3001, "bicubic", False, False),
]


def _one_path(rows, key, width, periods):
    return rows(key)


@pytest.mark.parametrize(("n_in", "n_out", "mode", "align", "antialias"), LONG)
def test_weights_once_a_period_are_the_kernels_bits(
    monkeypatch, n_in, n_out, mode, align, antialias
):
    """``_by_periods`` gives every table, transposed table and ``period`` the bits of
    the kernel computed on every row; on periodic ratios it computes few rows."""
    computed = []
    by_periods = _tables._by_periods

    def counted(rows, key, width, periods):
        def rows_counted(part):
            computed.append(part.shape[0])
            return rows(part)

        return by_periods(rows_counted, key, width, periods)

    monkeypatch.setattr(_tables, "_by_periods", counted)
    table = _tables.taps(n_in, n_out, mode, align, antialias)
    monkeypatch.setattr(_tables, "_by_periods", _one_path)
    expected = _tables.taps(n_in, n_out, mode, align, antialias)
    fields = {name: getattr(expected, name) for name in taps_reference.FIELDS}
    _assert_same(table, fields)
    transposed = expected.transpose()
    _assert_same(table.transpose(), {n: getattr(transposed, n) for n in taps_reference.FIELDS})
    for dtype in (np.float32, np.float64):
        assert table.period(dtype) == expected.period(dtype)
    if n_out in (1750, 6000, 6001, 3501, 1025, 1600, 2500):  # periodic, FAST_PATH_TAPS on
        assert sum(computed) < n_out // 2, computed
    elif n_out == 1023:
        assert computed == [n_out]  # small: one path


def test_weights_once_a_period_recompute_rows_that_differ():
    """A row whose key differs from the key a period before is computed, whatever the
    period; rows repeating their phase's last computed row are copied."""
    rng = np.random.default_rng(3)
    key = np.tile(rng.uniform(-2, 2, (7, 5)), (1000, 1))
    key[100] += 1e-12  # breaks rows 100 and 107 (107 repeats 100 no more)
    key[5000, 2] = -0.0 if key[5000, 2] == 0 else key[5000, 2] * 2
    key[6000:6010] = 0.0
    key[6003, 1] = -0.0  # the bits decide
    calls = []

    def rows(part):
        calls.append(part.shape[0])
        return np.sin(part) * 3 + part

    want = np.sin(key) * 3 + key
    got = _tables._by_periods(rows, key.copy(), 5, [3, 7])  # (may write over its key)
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))
    # the first period; 100 and 107; 5000 and 5007; 6000-6006 and 6010-6016 (6007-6009
    # repeat 6000-6002; 6010-6016 differ from the zeros of 6003-6009)
    assert calls == [7 + 2 + 2 + 7 + 7]
    assert _tables._by_periods(rows, key[:500, :1], 1, [7]).shape == (500, 1)  # small
    flat = rng.uniform(size=(5000, 2))
    assert np.array_equal(_tables._by_periods(rows, flat, 2, [7]), rows(flat))  # no period


def test_row_periods():
    assert _tables._row_periods(1000 / 1750, 1750)[0] == 7
    assert _tables._row_periods(1 / 2, 10) == [2]
    assert 160 in _tables._row_periods(44100 / 16000, 16000)
    assert _tables._row_periods(1.0, 1) == []
    assert _tables._row_periods(0.0, 5) == [1]


@pytest.mark.parametrize(("mode", "align", "antialias"), CASES)
def test_both_transposed_paths_match_the_general_path(monkeypatch, mode, align, antialias):
    """The windows path (taken where it applies) and the sort (taken for every table
    here) both give ``taps_reference.transposed``."""
    monkeypatch.setattr(_tables, "FAST_PATH_TAPS", 0)
    windows = []
    by_windows = _tables._windows_transposed

    def spy(*args):
        windows.append(args[0].shape)
        return by_windows(*args)

    monkeypatch.setattr(_tables, "_windows_transposed", spy)
    for n_in, n_out in itertools.product((1, 2, 5, 16, 31, 100), (1, 3, 7, 64, 333)):
        table, (index, weight) = _dense_rows(monkeypatch, n_in, n_out, mode, align, antialias)
        expected = taps_reference.from_dense_rows(n_in, index, weight)
        expected["n_in"] = n_in
        want = taps_reference.transposed(expected)
        _assert_same(table.transpose(), want)
        got = _tables._sorted_transposed(table.index, table.weight, table.count, n_in)
        for name, array in zip(("index", "weight", "count"), got):
            assert array.dtype == want[name].dtype and array.shape == want[name].shape, name
            assert np.array_equal(array.view(np.uint8), want[name].view(np.uint8)), name
    assert windows  # the windows path taken on some


def test_transposed_table_of_rows_that_are_not_windows():
    """Gaps, rows reading nothing, windows going back: the sorted path, same table."""
    index = np.array([[0, 2, 3], [1, 2, 3], [0, 1, 0], [4, 5, 6], [2, 3, 4], [6, 0, 0]])
    weight = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 0], [9, 1, 2], [3, 4, 5], [6, 0, 0.0]])
    count = np.array([3, 3, 2, 3, 3, 1])
    for rows in ([0, 1], [1, 2], [3, 4], [1, 3, 5], [1, 3, 4], [5, 3]):
        t = _tables.Taps.from_dense_rows(9, index[rows].copy(), weight[rows].copy())
        want = taps_reference.from_dense_rows(
            9, index[rows], np.where(np.arange(3) < count[rows][:, None], weight[rows], 0.0)
        )
        want["n_in"] = 9
        _assert_same(t.transpose(), taps_reference.transposed(want))


PERIODIC = [
    (n_in, n_out, mode)
    for mode in ("bilinear", "bicubic", "lanczos3", "nearest", "area")
    for n_in, n_out in ((100, 200), (100, 300), (50, 400), (1000, 1750), (700, 100), (64, 64))
]


@pytest.mark.parametrize(("n_in", "n_out", "mode"), PERIODIC)
def test_period_matches_rows_compared_whole(n_in, n_out, mode):
    t = _tables.taps(n_in, n_out, mode)
    for table in (t, t.transpose()):
        for dtype in (np.float32, np.float64):
            weight = table.kernel_args(dtype)[1]
            want = taps_reference.period(table.start, weight, table.is_selection)
            assert table.period(dtype) == want
    if mode not in ("nearest", "area") and n_out in (200, 400):
        assert t.period(np.float64)[0] == n_out // n_in  # found (x2, x8: exact scales)


#: ``(n_in, n_out, mode, align_corners, antialias, scale_factor)`` at the edges of the
#: fast paths: one input or one output on a long axis, huge and odd ratios, antialias
#: shrinking by non-integers, raw taps and transposed slots about ``FAST_PATH_TAPS``
#: and ``CHUNK``, rows on an input sample between rows that are not (bicubic and
#: lanczos3 enlarging by 3, 5, 7, align_corners 1001 -> 3001: the hull transposed
#: path), zero taps inside antialiased rows (lanczos3 shrinking by 3: the sort).
EDGES = [
    (1, 5000, "lanczos3", False, False, None),
    (1, 5000, "bicubic", True, False, None),
    (20001, 1, "bicubic", False, True, None),
    (20001, 1, "lanczos3", True, False, None),
    (3, 20001, "bicubic", False, False, None),
    (20011, 19997, "lanczos3", False, False, None),
    (6553, 1639, "lanczos3", False, True, None),
    (10007, 3001, "bilinear", False, True, None),
    (1000, 3000, "bicubic", False, False, None),
    (1000, 3000, "lanczos3", False, False, None),
    (1001, 3001, "bicubic", True, False, None),
    (1001, 3001, "lanczos3", True, False, None),
    (1000, 5000, "bicubic", False, False, None),
    (1000, 7000, "bicubic", False, False, None),
    (1001, 5001, "lanczos3", True, False, None),
    (341, 1023, "bicubic", False, False, None),  # 4092 raw taps: below FAST_PATH_TAPS
    (342, 1026, "bicubic", False, False, None),  # 4104: above
    (1489, 4467, "bicubic", False, False, None),  # one hull chunk (11 candidates an input)
    (1490, 4470, "bicubic", False, False, None),  # and one input more
    (5462, 16386, "bicubic", False, False, None),
    (3000, 1000, "lanczos3", False, True, None),
    (30001, 10000, "lanczos3", False, True, None),
    (4096, 4096, "bicubic", False, False, 1.0000001),
    (4096, 16384, "bicubic", False, False, None),
    (2731, 2730, "lanczos3", False, False, None),
    (16385, 16383, "bilinear", False, True, None),
    (5000, None, "bicubic", False, True, 0.3),
    (5000, None, "lanczos3", False, False, 1.7),
]


@pytest.mark.parametrize("edge", EDGES, ids=lambda e: "-".join(map(str, e)))
def test_edge_geometries_match_the_general_path(monkeypatch, edge):
    """Every field of the table and of its transposed table bit for bit as the one
    general path makes them of the rows the kernel gives computed on every row (no
    weights once a period); ``period`` as rows compared whole."""
    n_in, n_out, mode, align, antialias, scale_factor = edge
    if n_out is None:
        n_out = _tables.output_length(n_in, scale_factor)
    args = (n_in, n_out, mode, align, antialias, scale_factor)
    table = _tables.taps(*args)
    monkeypatch.setattr(_tables, "_by_periods", _one_path)
    _, (index, weight) = _dense_rows(monkeypatch, *args)
    expected = taps_reference.from_dense_rows(n_in, index, weight)
    _assert_same(table, expected)
    expected["n_in"] = n_in
    _assert_same(table.transpose(), taps_reference.transposed(expected))
    for t in (table, table.transpose()):
        for dtype in (np.float32, np.float64):
            want = taps_reference.period(t.start, t.kernel_args(dtype)[1], t.is_selection)
            assert t.period(dtype) == want
    if n_out == 3 * n_in or (align and n_out - 1 == 3 * (n_in - 1) and n_in > 1):
        # rows on an input sample (every third) read it alone: the windows go back
        first, last = table.index[:, 0], _tables.last_index(table.index, table.count)
        assert np.any(first[1:] < first[:-1]) or np.any(last[1:] < last[:-1])


#: Tables whose windows go back (a row on an input sample reads it alone):
#: ``(n_in, n_out, mode, align, antialias)``.
HULL = [
    (1000, 3000, "bicubic", False, False),
    (1000, 5000, "bicubic", False, False),
    (700, 4900, "bicubic", False, False),
    (1001, 3001, "bicubic", True, False),
    (1000, 3000, "lanczos3", False, False),
    (1001, 5001, "lanczos3", True, False),
    (1490, 4470, "bicubic", False, False),
]


@pytest.mark.parametrize("case", HULL, ids=lambda e: "-".join(map(str, e)))
def test_windows_that_go_back_take_the_hull_not_the_sort(monkeypatch, case):
    """The transposed table from the windows' hull less the rows whose windows miss an
    input (``_hull_transposed``): no sort, the general path's table bit for bit; and
    the sort's where the hull gives way (``HULL_PER_TAP``)."""
    table = _tables.taps(*case)
    first, last = table.index[:, 0], _tables.last_index(table.index, table.count)
    assert np.all(last - first == table.count - 1)  # windows
    assert np.any(first[1:] < first[:-1]) or np.any(last[1:] < last[:-1])  # going back
    expected = {n: getattr(table, n) for n in ("index", "weight", "count")}
    expected["n_in"] = case[0]
    want = taps_reference.transposed(expected)

    def no_sort(*args):
        raise AssertionError("sorted")

    with monkeypatch.context() as patch:
        patch.setattr(_tables, "_sorted_transposed", no_sort)
        got = _tables.Taps.__new__(_tables.Taps)
        got._set(table.n_out, *_tables._transposed(table.index, table.weight, table.count, case[0]))
    _assert_same(got, want)
    monkeypatch.setattr(_tables, "HULL_PER_TAP", 0)
    assert _tables._hull_transposed(table.weight, first, last, case[0]) is None
    _assert_same(table.transpose(), want)  # (the sort)


def test_rows_with_zero_taps_inside_are_sorted(monkeypatch):
    """Antialiased rows with zero taps inside (lanczos3 shrinking by 3) are not windows:
    the sort, not the hull (which costs as much there), the same table."""
    table = _tables.taps(3000, 1000, "lanczos3", False, True)
    first, last = table.index[:, 0], _tables.last_index(table.index, table.count)
    assert np.any(last - first != table.count - 1)

    def no_hull(*args):
        raise AssertionError("hull")

    monkeypatch.setattr(_tables, "_hull_transposed", no_hull)
    expected = {n: getattr(table, n) for n in ("index", "weight", "count")}
    expected["n_in"] = 3000
    _assert_same(table.transpose(), taps_reference.transposed(expected))


def _draw_geometries(seed, count):
    """``(n_in, n_out, scale_factor)``: small and long axes, shrinking and enlarging,
    factors near 1, integer and huge ratios, 1 on either side."""
    rng = np.random.default_rng(seed)
    cases = [(1, 1, None), (1, 9, None), (9, 1, None), (7, 7, None), (20000, 1, None)]
    cases += [(365000, 122000, None), (30001, 10000, None), (1000, 1001, None)]
    cases += [(999, 1000, None), (100, 300, 3.0), (5000, 2, None), (40, 40000, None)]
    cases += [(200000, 3, None), (100000, 1, None)]
    for _ in range(count):
        n_in = int(rng.choice([rng.integers(1, 300), rng.integers(300, 60000)]))
        factor = float(rng.choice([1 / 8, 1 / 3, 1 / 2, 0.999999, 1.000001, 1.75, 2, 3]))
        factor *= float(rng.uniform(0.9, 1.1)) if rng.random() < 0.5 else 1.0
        n_out = max(1, int(n_in * factor))
        cases.append((n_in, n_out, factor if rng.random() < 0.3 else None))
    return cases


@pytest.mark.parametrize("mode", sorted(_tables.ANTIALIAS_SUPPORT))
@pytest.mark.parametrize("columns", [0, 8, 10**9])
def test_antialiased_rows_keep_the_whole_table_expressions(monkeypatch, mode, columns):
    """``_antialiased`` (weights written over their arguments, the taps outside marked
    column by column or in one mask, normalised in place) gives the raw rows of the
    whole-table expressions and masks, bit for bit (``helpers.taps_reference``)."""
    monkeypatch.setattr(_tables, "OUTSIDE_COLUMNS", columns)
    for n_in, n_out, factor in _draw_geometries(11, 40):
        scale = _tables.axis_scale(n_in, n_out, factor, False)
        index, weight = _tables._antialiased(n_in, n_out, scale, mode)
        want_index, want_weight = taps_reference.antialiased_rows(n_in, n_out, scale, mode)
        assert index.dtype == want_index.dtype and index.shape == want_index.shape
        assert index.tobytes() == want_index.tobytes(), (n_in, n_out, factor)
        assert weight.tobytes() == want_weight.tobytes(), (n_in, n_out, factor)


def test_lanczos3_keeps_the_whole_array_expressions():
    """``lanczos3`` in place: the bits of the whole-array expression, at the
    integers, 0, -0, the support's ends, non-finite values and 0-d input too."""
    rng = np.random.default_rng(12)
    special = [0.0, -0.0, 3.0, -3.0, np.nextafter(3.0, 0), 1.0, -2.0, 0.5, 2.5, 5e-324]
    special += [1e-200, np.inf, -np.inf, np.nan, 1e300, 7.0]
    for x in (
        rng.uniform(-4, 4, 50000),
        np.round(rng.uniform(-4, 4, (300, 7)) * 16) / 16,
        np.array(special),
        2.0,
        np.float64(0.25),
    ):
        with np.errstate(over="ignore"):
            got, want = _tables.lanczos3(x), taps_reference.lanczos3(x)
        assert type(got) is type(want) and got.shape == want.shape
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("short_rows", [0, 10**9])
def test_rows_padded_by_rows_or_by_columns(monkeypatch, short_rows):
    """``from_dense_rows`` pads rows with unused taps row by row (few) or column by
    column (many: antialiased rows of two lengths): the same tables either way."""
    monkeypatch.setattr(_tables, "FAST_PATH_TAPS", 0)
    monkeypatch.setattr(_tables, "SHORT_ROWS", short_rows)
    for n_in, n_out, factor in _draw_geometries(13, 12):
        for mode, antialias in [("lanczos3", True), ("bicubic", True), ("area", False)]:
            if factor is not None and antialias is False:
                continue
            table, (index, weight) = _dense_rows(
                monkeypatch, n_in, n_out, mode, False, antialias, factor
            )
            expected = taps_reference.from_dense_rows(n_in, index, weight)
            _assert_same(table, expected)


def test_antialiased_rows_that_add_up_to_zero_read_nothing(monkeypatch):
    """A row whose weights add up to exactly 0 keeps zeros, as the whole-table
    expressions give it (an odd kernel over windows symmetric about their centres:
    shrinking by 2, every row but the borders')."""

    def odd(x):
        return np.where(x < 0, -1.0, 1.0)

    monkeypatch.setattr(_tables, "triangle", odd)
    index, weight = _tables._antialiased(40, 20, 2.0, "bilinear")
    want_index, want_weight = taps_reference.antialiased_rows(40, 20, 2.0, "bilinear", odd)
    assert index.tobytes() == want_index.tobytes()
    assert weight.tobytes() == want_weight.tobytes()
    assert not weight[1:-1].any() and weight[0].any()
