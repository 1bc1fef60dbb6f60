"""``Taps``' fast paths (``from_dense_rows`` with rows taken as they are, the
transposed table sorted by row alone) give the tables of the one general path
(``helpers.taps_reference``), every field bit for bit."""

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
