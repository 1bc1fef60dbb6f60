"""Calls of dtypes computed in another dtype, of the whole array or of a region
(``Plan.run_region``, ``cresize.dask``'s tasks), run in slabs (``_plan._slabs``):
float16 (float32 sums), 32/64-bit integers (float64 sums) and promoted float32 rows
(float64 sums). The bits are those of the call in one piece, which are those of the
computing dtype's own call converted once (``astype`` / ``round_to``), and only a
slab's copies are alive."""

import itertools
import math
import tracemalloc

import numpy as np
import pytest

import cresize
from cresize import _plan
from cresize._dtypes import round_to

WIDE_INTS = ["int32", "uint32", "int64", "uint64"]

#: (input shape, resize keywords): 1-D, 2-D, 3-D; planes along leading axes, a plane
#: cut along its first resized axis, a first output axis of length 1, trailing channels.
CASES = [
    ((300,), dict(size=(700,), mode="bicubic")),
    ((50, 70), dict(size=(31, 90), mode="bilinear")),
    ((7, 40, 50), dict(size=(70, 30), mode="lanczos3", axes=(1, 2), antialias=True)),
    ((4, 3, 40, 50), dict(size=(70, 30), mode="bilinear", axes=(2, 3))),
    ((60, 50, 3), dict(size=(90, 20), mode="bicubic", axes=(0, 1))),
    ((5, 60, 50), dict(size=(1, 20), mode="area", axes=(1, 2))),
    ((2, 3, 60, 50), dict(size=(33,), mode="nearest", axes=(2,))),
    ((3, 40, 6), dict(size=(97,), mode="nearest-exact", axes=(1,))),
]
IDS = [f"{len(s)}d-{k['mode']}-{i}" for i, (s, k) in enumerate(CASES)]

#: Budgets: one value (a slab per output row), a few rows, a few planes, one piece.
BUDGETS = [1, 3000, 40000, 2**62]


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 300).astype(dtype)
    info = np.iinfo(dtype)  # the whole range: clipping and rounding at both ends
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def _reference(x, kw):
    """The computing dtype's own call (in one piece: float32 / float64 need no copy),
    converted once, as the whole-array path did; nearest modes gather integers (the
    input values at the indices float64 finds for an index array)."""
    if x.dtype == np.float16:
        return cresize.resize(x.astype(np.float32), **kw).astype(np.float16)
    if kw.get("mode", "bilinear").startswith("nearest"):
        axes, size = kw["axes"], kw["size"]
        index = [np.arange(n) for n in x.shape]
        for a, n in zip(axes, size):
            index[a] = cresize.resize(np.arange(x.shape[a]), (n,), mode=kw["mode"])
        return x[np.ix_(*index)]
    return round_to(x.dtype, cresize.resize(x.astype(np.float64), **kw))


def _same_bits(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize(("shape", "kw"), CASES, ids=IDS)
@pytest.mark.parametrize("dtype", ["float16", *WIDE_INTS])
def test_slabs_keep_the_bits(monkeypatch, shape, kw, dtype):
    monkeypatch.setattr(_plan, "MIN_CUT_ROW", 1)  # the small planes cut too
    x = _data(shape, dtype)
    expected = _reference(x, kw)
    p = cresize.plan(shape, dtype=dtype, **kw)
    for budget, threads in itertools.product(BUDGETS, (1, 2)):
        monkeypatch.setattr(_plan, "SLAB_BYTES", budget)
        got = cresize.resize(x, num_threads=threads, **kw)
        assert _same_bits(got, expected), (budget, threads)
        out = np.full(expected.shape, 7, dtype)
        assert p(x, out=out, num_threads=threads) is out
        assert _same_bits(out, expected), (budget, threads, "out=")


@pytest.mark.parametrize("dtype", ["float16", "int64"])
def test_slabs_of_strided_and_swapped_inputs(monkeypatch, dtype):
    kw = dict(size=(45, 33), mode="bicubic", axes=(1, 2))
    base = _data((6, 60, 50), dtype)
    expected = _reference(base[::2], kw)
    monkeypatch.setattr(_plan, "SLAB_BYTES", 5000)
    monkeypatch.setattr(_plan, "MIN_CUT_ROW", 1)
    assert _same_bits(cresize.resize(base[::2], **kw), expected)
    swapped = base[::2].astype(base.dtype.newbyteorder())
    assert _same_bits(cresize.resize(swapped, **kw), expected)


def test_promoted_float32_rows_in_slabs_forward_and_backward(monkeypatch):
    # a shrink by 2,500 (area: 2,500 taps a row, > LONG_SUM) sums in float64; its
    # backward's rows (the adjoint of an enlarging by 2,500) too
    x = _data((3, 2, 10000), "float32")
    kw = dict(size=(4,), mode="area", axes=(2,))
    assert cresize.plan(x.shape, dtype="float32", **kw)._forward.promote
    g = _data((3, 2, 10000), "float32", seed=1)
    up = dict(mode="bilinear", axes=(2,))
    p = cresize.plan((3, 2, 4), (10000,), dtype="float32", **up)
    assert p._backward.promote
    monkeypatch.setattr(_plan, "SLAB_BYTES", 2**62)
    fwd = cresize.resize(x, **kw)
    bwd = cresize.resize_backward(g, (3, 2, 4), **up)
    for budget, threads in itertools.product((1, 50000), (1, 2)):
        monkeypatch.setattr(_plan, "SLAB_BYTES", budget)
        assert _same_bits(cresize.resize(x, num_threads=threads, **kw), fwd)
        assert _same_bits(cresize.resize_backward(g, (3, 2, 4), num_threads=threads, **up), bwd)
        out = np.empty_like(bwd)
        assert p.backward(g, out=out, num_threads=threads) is out
        assert _same_bits(out, bwd)
        # regions (a Dask task's), forward and backward, cut by the same planner
        region = (slice(1, 3), slice(0, 2), slice(3000, 9000))
        block = g[p.input_region(region, backward=True)]
        got = p.run_region(block, region, backward=True, num_threads=threads)
        assert _same_bits(got, bwd[region])
        q = cresize.plan(x.shape, dtype="float32", **kw)
        region = (slice(0, 3), slice(1, 2), slice(1, 4))
        assert _same_bits(q.run_region(x[q.input_region(region)], region), fwd[region])


def test_long_8bit_rows_in_slabs(monkeypatch):
    # 8-bit rows of more than LONG_SUM taps take the converting path (float64 sums)
    x = _data((4, 6000), "uint8")
    kw = dict(size=(2,), mode="area", axes=(1,))
    monkeypatch.setattr(_plan, "SLAB_BYTES", 2**62)
    expected = cresize.resize(x, **kw)
    monkeypatch.setattr(_plan, "SLAB_BYTES", 1)
    assert _same_bits(cresize.resize(x, **kw), expected)


@pytest.mark.parametrize(("shape", "kw"), CASES, ids=IDS)
@pytest.mark.parametrize("budget", [1, 3000, 40000])
def test_slabs_cover_the_result_once_within_the_budget(monkeypatch, shape, kw, budget):
    monkeypatch.setattr(_plan, "SLAB_BYTES", budget)
    monkeypatch.setattr(_plan, "MIN_CUT_ROW", 1)
    p = cresize.plan(shape, dtype="float16", **kw)
    program = p._forward
    slabs = _plan._slabs(program, program.tables, p.input_shape, p.output_shape)
    covered = np.zeros(p.output_shape, np.int64)
    itemsize = program.run_dtype.itemsize
    first = min(p.axes)
    plane = math.prod(p.input_shape[first:]) + math.prod(p.output_shape[first:])
    for box, region, tables in slabs:
        covered[region] += 1
        full = lambda r, n: tuple(r) + (slice(None),) * (n - len(r))  # noqa: E731
        region = full(region, len(shape))
        # the box holds the region's input box (the plan's own rule): that box along a
        # cut axis (its table a ``_Slice``), the whole axis elsewhere
        need = p.input_region(
            tuple(slice(*s.indices(n)[:2]) for s, n in zip(region, p.output_shape))
        )
        have = tuple(slice(*s.indices(n)[:2]) for s, n in zip(full(box, len(shape)), p.input_shape))
        for a, (r, h, n) in enumerate(zip(need, have, p.input_shape)):
            cut = isinstance(tables.get(a), _plan._Slice)
            assert h == r if cut else h.start <= r.start <= r.stop <= h.stop
            assert cut or h == slice(0, n) or a < first
        view = np.empty(p.input_shape, np.int8)[box]  # (converted into a copy anyway)
        assert np.empty(p.output_shape, np.int8)[region].flags.c_contiguous
        values = view.size + covered[region].size
        if budget >= plane * itemsize:  # whole planes, as many as the budget holds
            assert values * itemsize <= budget
        else:  # a part of one plane
            assert values <= plane
    if math.prod(p.input_shape[:first]) * plane * itemsize <= budget:
        assert slabs == []
    else:
        assert covered.min() == covered.max() == 1


def test_slabs_bound_the_peak_memory(monkeypatch):
    # float16 (4, 3, 128, 128) -> 256²: in one piece the float32 copy of the input and
    # the float32 result (4x the float16 result) are alive; in slabs of 256 KiB, a slab's
    x = _data((4, 3, 128, 128), "float16")
    kw = dict(size=(256, 256), mode="bilinear", axes=(2, 3))
    cresize.resize(x, **kw)  # plan and tables made before measuring

    def peak(budget):
        monkeypatch.setattr(_plan, "SLAB_BYTES", budget)
        tracemalloc.start()
        try:
            result = cresize.resize(x, **kw)
            return tracemalloc.get_traced_memory()[1] - result.nbytes
        finally:
            tracemalloc.stop()

    whole, slabs = peak(2**62), peak(2**18)
    result_bytes = 4 * 3 * 256 * 256 * 2
    assert whole >= 2.5 * result_bytes  # the float32 result alone is twice the float16 one
    assert slabs <= 2**18 + 2**17  # a slab's copies (and the step's small tables)


@pytest.mark.parametrize(("shape", "kw"), CASES, ids=IDS)
@pytest.mark.parametrize("dtype", ["float16", "int64"])
def test_region_calls_in_slabs_keep_the_bits(monkeypatch, shape, kw, dtype):
    # run_region (cresize.dask's tasks) is cut by the same planner, on the region's
    # tables (a cut of a cut table: a ``_Slice`` of a ``_Slice``)
    monkeypatch.setattr(_plan, "MIN_CUT_ROW", 1)
    x = _data(shape, dtype)
    expected = _reference(x, kw)
    p = cresize.plan(shape, dtype=dtype, **kw)
    rng = np.random.default_rng(len(shape))
    regions = [tuple(slice(0, n) for n in p.output_shape)]
    for _ in range(4):
        ends = [np.sort(rng.integers(0, n + 1, 2)) for n in p.output_shape]
        regions.append(tuple(slice(int(a), int(max(b, a + 1, 1))) for a, b in ends))
    for budget, threads in itertools.product(BUDGETS, (1, 2)):
        monkeypatch.setattr(_plan, "SLAB_BYTES", budget)
        for region in regions:
            region = tuple(slice(r.start, min(r.stop, n)) for r, n in zip(region, p.output_shape))
            block = x[p.input_region(region)]
            got = p.run_region(block, region, num_threads=threads)
            assert _same_bits(got, expected[region]), (budget, threads, region)


def test_region_calls_are_cut(monkeypatch):
    # run_region is cut as the whole array is: a region covering the whole output is
    # cut in the same slabs, and a part of it in slabs of its own
    monkeypatch.setattr(_plan, "SLAB_BYTES", 1)
    monkeypatch.setattr(_plan, "MIN_CUT_ROW", 1)
    calls = []
    real = _plan._converted
    monkeypatch.setattr(_plan, "_converted", lambda *a: calls.append(a[2].shape) or real(*a))
    p = cresize.plan((4, 40, 50), (70, 30), axes=(1, 2), dtype="float16")
    x = _data((4, 40, 50), "float16")
    expected = _reference(x, dict(size=(70, 30), axes=(1, 2)))
    p(x)
    whole = list(calls)
    calls.clear()
    full = tuple(slice(0, n) for n in p.output_shape)
    assert _same_bits(p.run_region(x, full), expected)
    assert calls == whole and len(whole) > 4  # planes cut along their rows
    calls.clear()
    region = (slice(1, 3), slice(10, 50), slice(0, 30))
    got = p.run_region(x[p.input_region(region)], region)
    assert len(calls) > 2 and all(c[0] == 1 and c[1] < 40 for c in calls)
    assert _same_bits(got, expected[region])


def test_min_slab_bytes_cuts_a_call_within_slab_bytes(monkeypatch):
    # a call within SLAB_BYTES is still cut, up to MOST_SLABS, one per MIN_SLAB_BYTES of
    # converted input (a Dask task's memory, in input chunks)
    p = cresize.plan((4, 64, 64), (32, 32), axes=(1, 2), dtype="float16")
    program = p._forward
    in_bytes = 4 * 64 * 64 * 4
    assert _plan._slabs(program, program.tables, p.input_shape, p.output_shape) == []
    monkeypatch.setattr(_plan, "MIN_SLAB_BYTES", in_bytes // 2)
    slabs = _plan._slabs(program, program.tables, p.input_shape, p.output_shape)
    assert [r for _, r, _ in slabs] == [(slice(0, 2),), (slice(2, 4),)]
    monkeypatch.setattr(_plan, "MIN_SLAB_BYTES", 1)
    monkeypatch.setattr(_plan, "MIN_CUT_ROW", 1)
    slabs = _plan._slabs(program, program.tables, p.input_shape, p.output_shape)
    assert len(slabs) == 4 * 2  # MOST_SLABS: a plane is cut in two along its rows
    assert all(isinstance(t[1], _plan._Slice) for _, _, t in slabs)
    x = _data((4, 64, 64), "float16")
    assert _same_bits(p(x), _reference(x, dict(size=(32, 32), axes=(1, 2))))


@pytest.mark.parametrize("dtype", ["float16", "int32"])
def test_slabs_large_enough_for_two_threads_keep_the_bits(monkeypatch, dtype):
    # slabs of more than 2 * MIN_WORK_PER_THREAD values each: a second thread works
    x = _data((2, 3, 600, 400), dtype)
    kw = dict(size=(700, 500), mode="bicubic", axes=(2, 3))
    expected = _reference(x, kw)
    p = cresize.plan(x.shape, dtype=dtype, **kw)
    plane = (600 * 400 + 700 * 500) * p._forward.run_dtype.itemsize
    for budget in (plane // 2, plane * 3):  # half a plane, 3 planes
        monkeypatch.setattr(_plan, "SLAB_BYTES", budget)
        slabs = _plan._slabs(p._forward, p._forward.tables, x.shape, p.output_shape)
        assert len(slabs) >= 2
        for box, region, _ in slabs:  # values read and written: past 2 * MIN_WORK_PER_THREAD
            work = (
                np.empty(x.shape, np.int8)[box].size
                + np.empty(p.output_shape, np.int8)[region].size
            )
            assert work >= 2 * _plan.MIN_WORK_PER_THREAD
        for threads in (1, 2):
            assert _same_bits(cresize.resize(x, num_threads=threads, **kw), expected)


def test_short_rows_are_not_cut(monkeypatch):
    # a cut's table rows are sliced and checked in NumPy: not worth it for rows of a few
    # values (a 1-D signal), which stay whole; rows of MIN_CUT_ROW values are cut
    monkeypatch.setattr(_plan, "SLAB_BYTES", 2**12)
    one_d = cresize.plan((5000,), (7000,), dtype="float16")
    assert _plan._slabs(one_d._forward, one_d._forward.tables, (5000,), (7000,)) == []
    n = _plan.MIN_CUT_ROW
    rows = cresize.plan((4, 30, n), (50, n), axes=(1, 2), dtype="int32")
    slabs = _plan._slabs(rows._forward, rows._forward.tables, rows.input_shape, rows.output_shape)
    assert len(slabs) > 4 and all(isinstance(t[1], _plan._Slice) for _, _, t in slabs)
    short = cresize.plan((4, 30, n - 1), (50, n - 1), axes=(1, 2), dtype="int32")
    slabs = _plan._slabs(
        short._forward, short._forward.tables, short.input_shape, short.output_shape
    )
    assert [r for _, r, _ in slabs] == [(slice(i, i + 1),) for i in range(4)]  # planes
    x = _data((4, 30, n - 1), "int32")
    assert _same_bits(short(x), _reference(x, dict(size=(50, n - 1), axes=(1, 2))))


def test_a_plane_of_one_output_is_not_cut(monkeypatch):
    # (H, W) -> (1, 1) past the budget: no axis to cut along (was StopIteration)
    monkeypatch.setattr(_plan, "SLAB_BYTES", 2**10)
    x = _data((2, 60, 50), "float16")
    kw = dict(size=(1, 1), mode="area", axes=(1, 2))
    p = cresize.plan(x.shape, dtype="float16", **kw)
    slabs = _plan._slabs(p._forward, p._forward.tables, x.shape, p.output_shape)
    assert [r for _, r, _ in slabs] == [(slice(0, 1),), (slice(1, 2),)]  # planes
    assert _same_bits(cresize.resize(x, **kw), _reference(x, kw))
    assert _same_bits(
        cresize.resize(x[0], (1, 1), mode="area"), _reference(x[0], kw | dict(axes=(0, 1)))
    )


@pytest.mark.parametrize("layout", ["C", "out=", "swapped", "F"])
def test_gathered_integers_bound_the_peak_memory(monkeypatch, layout):
    # int64 nearest is gathered (``_plan._gathered``); NumPy's gather is a new array, so
    # with out=, or from an input in the other byte order or not C-ordered, a gather of
    # the whole result was alive next to the result (twice its memory)
    x = _data((4, 64, 64), "int64")
    kw = dict(size=(256, 256), mode="nearest", axes=(1, 2))
    expected = cresize.resize(x, **kw)  # plan and tables made before measuring
    out = np.empty_like(expected) if layout == "out=" else None
    if layout == "swapped":
        x = x.astype(x.dtype.newbyteorder())
    elif layout == "F":
        x = np.asfortranarray(x)
    monkeypatch.setattr(_plan, "SLAB_BYTES", 2**16)
    tracemalloc.start()
    try:
        result = cresize.resize(x, **kw, out=out)
        extra = tracemalloc.get_traced_memory()[1] - (0 if out is not None else result.nbytes)
    finally:
        tracemalloc.stop()
    assert result.flags.c_contiguous and result.dtype == np.dtype("=i8")
    assert np.array_equal(result, expected)
    # a piece's gather and NumPy's indexing buffers (2 x 8192 indices, 128 KiB): with
    # out= or a byte-swapped input, the whole result's gather was alive (2 MiB)
    assert extra <= 2**16 + 2**18


@pytest.mark.parametrize("budget", [2**62, 2**16, 2**10, 8])
@pytest.mark.parametrize("dtype", ["int64", "uint32"])
def test_gathered_pieces_keep_the_values(monkeypatch, budget, dtype):
    # pieces along the first axis, then within a plane (2**10: runs along the last
    # axis at fixed indices of the others), then single values; whole calls with and
    # without out=, and regions
    x = _data((2, 9, 7, 3), dtype)
    kw = dict(size=(20, 5), mode="nearest-exact", axes=(1, 2))
    p = cresize.plan(x.shape, **kw, dtype=dtype)
    index = [np.arange(n) for n in x.shape]
    for a, w in p.weights.items():
        index[a] = np.argmax(w, axis=1)
    expected = x[np.ix_(*index)]
    monkeypatch.setattr(_plan, "SLAB_BYTES", budget)
    assert np.array_equal(cresize.resize(x, **kw), expected)
    out = np.zeros_like(expected)
    assert cresize.resize(x[:, ::-1][:, ::-1], **kw, out=out) is out
    assert np.array_equal(out, expected)
    region = (slice(1, 2), slice(3, 17), slice(0, 4), slice(1, 3))
    got = p.run_region(x[p.input_region(region)], region)
    assert np.array_equal(got, expected[region]) and got.flags.c_contiguous
