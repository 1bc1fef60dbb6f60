"""cresize.dask: chunked resizing equals the whole-array call bit for bit, with a
lean graph, bounded memory, on a cluster of worker processes, and pyramids."""

import itertools
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import cresize
from cresize import _plan
from helpers.proc import PEAK

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
cd = pytest.importorskip("cresize.dask")

AA_MODES = ("bilinear", "bicubic", "lanczos3")
DTYPES = (np.float32, np.float64, np.uint8, np.float16, np.uint16, np.int16, np.int32)
DOCS = Path(__file__).resolve().parents[1] / "docs" / "dask.md"


def same_bits(a, b):
    """Equal shape, dtype and bytes (so signed zeros and NaN payloads count)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def random_chunks(rng, n):
    """A random partition of ``n``: often pieces of 1 or 2 (smaller than any kernel),
    sometimes one piece, sometimes irregular."""
    kind = rng.integers(4)
    if kind == 0:
        return (n,)
    if kind == 1:
        return int(rng.integers(1, 3))
    sizes, left = [], n
    while left:
        c = int(min(left, rng.integers(1, max(2, n // 2) + 1)))
        sizes.append(c)
        left -= c
    return tuple(sizes)


def random_chunking(rng, shape, most=60):
    """Random chunks for ``shape``, at most ``most`` chunks in all (graphs stay small)."""
    chunks = [random_chunks(rng, n) for n in shape]

    def counts():
        return [len(da.core.normalize_chunks((c,), (n,))[0]) for c, n in zip(chunks, shape)]

    while np.prod(counts()) > most:
        chunks[int(np.argmax(counts()))] = -1
    return tuple(chunks)


def random_case(rng):
    ndim = int(rng.integers(1, 5))
    shape = [int(s) for s in rng.integers(1, 24, ndim)]
    while np.prod(shape) > 3000:
        shape[int(np.argmax(shape))] //= 2
    shape = tuple(shape)
    n_axes = int(rng.integers(1, min(ndim, 3) + 1))
    axes = tuple(int(a) for a in rng.choice(ndim, n_axes, replace=False))
    if rng.random() < 0.3:
        axes = tuple(a - ndim for a in axes)  # negative axes
    mode = str(rng.choice(cresize.MODES))
    opts = {"mode": mode, "axes": axes}
    if mode in AA_MODES:
        opts["antialias"] = bool(rng.random() < 0.5)
        opts["align_corners"] = bool(rng.random() < 0.25)
    if rng.random() < 0.7:
        size = tuple(int(s) for s in rng.integers(1, 30, n_axes))
    else:
        size = None
        opts["scale_factor"] = tuple(
            float(max(rng.uniform(0.15, 3.0), 1.01 / shape[a])) for a in axes
        )
    return shape, size, opts, random_chunking(rng, shape)


def random_data(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = max(info.min, -(2**20)), min(info.max, 2**20)
        return rng.integers(low, high, shape, endpoint=True).astype(dtype)
    return rng.uniform(-3, 3, shape).astype(dtype)


@pytest.mark.parametrize("seed", range(30))
def test_forward_equals_in_memory(seed):
    rng = np.random.default_rng(seed)
    for _ in range(5):
        shape, size, opts, chunks = random_case(rng)
        dtype = (
            DTYPES[int(rng.integers(len(DTYPES)))]
            if rng.random() < 0.4
            else (np.float32, np.float64, np.uint8)[int(rng.integers(3))]
        )
        x = random_data(rng, shape, dtype)
        expected = cresize.resize(x, size, **opts)
        out_chunks = None
        if rng.random() < 0.4:
            out_chunks = random_chunking(rng, expected.shape)
        dx = da.from_array(x, chunks=chunks)
        y = cd.resize(dx, size, chunks=out_chunks, **opts)
        if y.npartitions > 100:  # keep the graph small (the default follows tiny chunks)
            y = cd.resize(dx, size, chunks=random_chunking(rng, expected.shape), **opts)
        assert y.shape == expected.shape and y.dtype == expected.dtype
        got = y.compute(scheduler="sync")
        assert same_bits(got, expected), (shape, size, opts, chunks, out_chunks, dtype)


EXTREME_DTYPES = (np.int8, np.uint32, np.int64, np.uint64, np.float16, np.float32, np.float64)


def extreme_data(rng, shape, dtype):
    """Integers that saturate (a fifth at the type's ends), floats with NaN and -0.0."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = max(info.min, -(2**40)), min(info.max, 2**40)
        x = rng.integers(low, high, shape, endpoint=True).astype(dtype)
        ends = rng.random(shape) < 0.2
        x[ends] = rng.choice(np.array([info.min, info.max], dtype), int(ends.sum()))
        return x
    x = rng.uniform(-3, 3, shape).astype(dtype)
    odd = rng.random(shape) < 0.01  # one kind of NaN: which of two NaNs a sum keeps is not fixed
    x[odd] = rng.choice(np.array([np.nan, -0.0, 1e4], dtype), int(odd.sum()))
    return x


@pytest.mark.parametrize("seed", range(8))
def test_forward_equals_in_memory_long_axes_and_extreme_values(seed):
    """Axes of up to 400 in up to 6 irregular chunks (some of 1 or 2, under any kernel's
    reach), shrinks to 1/10 and enlargements to 3x, saturating integers of every width,
    NaN and -0.0."""

    def cuts(n):
        inner = rng.choice(np.arange(1, n), min(n - 1, int(rng.integers(0, 6))), False)
        inner = np.sort(np.concatenate([inner, inner[:1] + 1, inner[-1:] + 2]))  # tiny ones
        return tuple(int(c) for c in np.diff(np.unique(np.clip([0, *inner, n], 0, n))))

    rng = np.random.default_rng(2000 + seed)
    for _ in range(10):
        ndim = int(rng.choice([1, 2, 2, 3]))
        shape = tuple(int(n) for n in rng.integers(1, 400 if ndim < 3 else 40, ndim))
        axes = tuple(int(a) for a in rng.choice(ndim, int(rng.integers(1, ndim + 1)), False))
        mode = str(rng.choice(cresize.MODES))
        opts = {"mode": mode, "axes": axes}
        if mode in AA_MODES:
            opts["antialias"] = bool(rng.random() < 0.6)
            opts["align_corners"] = bool(rng.random() < 0.3)
        factors = rng.choice([0.1, 0.37, 0.5, 1.0, 1.7, 3.0], len(axes))
        size = tuple(max(1, int(shape[a] * f)) for a, f in zip(axes, factors))
        dtype = EXTREME_DTYPES[int(rng.integers(len(EXTREME_DTYPES)))]
        x = extreme_data(rng, shape, dtype)
        expected = cresize.resize(x, size, **opts)
        chunks = tuple(cuts(n) for n in shape)
        y = cd.resize(da.from_array(x, chunks=chunks), size, **opts)
        if y.npartitions > 100:
            y = cd.resize(da.from_array(x, chunks=chunks), size, chunks=-1, **opts)
        assert same_bits(y.compute(scheduler="sync"), expected), (shape, size, opts, chunks)


@pytest.mark.parametrize("seed", range(30))
def test_backward_equals_in_memory(seed):
    rng = np.random.default_rng(1000 + seed)
    for _ in range(5):
        shape, size, opts, _ = random_case(rng)
        dtype = (np.float32, np.float64)[int(rng.integers(2))]
        out_shape = cresize.resize(np.zeros(shape, np.float32), size, **opts).shape
        g = random_data(rng, out_shape, dtype)
        if size is not None and rng.random() < 0.5:
            opts.pop("axes")  # the default: the axes whose length changes
        expected = cresize.resize_backward(g, shape, **opts)
        g_chunks = random_chunking(rng, out_shape)
        out_chunks = random_chunking(rng, shape) if rng.random() < 0.4 else None
        dg = da.from_array(g, chunks=g_chunks)
        b = cd.resize_backward(dg, shape, chunks=out_chunks, **opts)
        if b.npartitions > 100:
            b = cd.resize_backward(dg, shape, chunks=random_chunking(rng, shape), **opts)
        assert b.shape == shape and b.dtype == g.dtype
        got = b.compute(scheduler="sync")
        assert same_bits(got, expected), (shape, size, opts, g_chunks, out_chunks, dtype)


def test_chunks_smaller_than_the_kernel():
    """One- and two-pixel chunks under a lanczos3 antialiased shrink by 5 (30 taps per
    output along each axis)."""
    rng = np.random.default_rng(7)
    x = rng.uniform(0, 1, (40, 45)).astype(np.float32)
    y = cd.resize(da.from_array(x, chunks=(1, 45)), (8, 9), mode="lanczos3", antialias=True)
    assert same_bits(
        y.compute(scheduler="sync"), cresize.resize(x, (8, 9), mode="lanczos3", antialias=True)
    )
    y = cd.resize(da.from_array(x, chunks=(10, 2)), (8, 9), mode="lanczos3", antialias=True)
    assert same_bits(
        y.compute(scheduler="sync"), cresize.resize(x, (8, 9), mode="lanczos3", antialias=True)
    )
    g = rng.uniform(0, 1, (8, 9)).astype(np.float64)
    b = cd.resize_backward(
        da.from_array(g, chunks=1), x.shape, mode="lanczos3", antialias=True, chunks=(3, 7)
    )
    assert same_bits(
        b.compute(scheduler="sync"),
        cresize.resize_backward(g, x.shape, mode="lanczos3", antialias=True),
    )


def test_uint8_image_chunked():
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (123, 157, 3), dtype=np.uint8)
    for mode, aa in [("lanczos3", True), ("bicubic", False), ("area", False), ("nearest", False)]:
        y = cd.resize(
            da.from_array(img, chunks=(20, 33, 3)), (61, 200), axes=(0, 1), mode=mode, antialias=aa
        )
        assert y.chunks[2] == (3,)
        assert same_bits(
            y.compute(scheduler="threads"),
            cresize.resize(img, (61, 200), axes=(0, 1), mode=mode, antialias=aa),
        )


def test_byte_order_and_strides():
    """Big-endian and strided chunks: the result is native-order, as in memory."""
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, (30, 41)).astype(">f8")
    y = cd.resize(da.from_array(x, chunks=(7, 9)), (17, 60), mode="bicubic")
    expected = cresize.resize(x, (17, 60), mode="bicubic")
    assert y.dtype == expected.dtype == np.float64
    assert same_bits(y.compute(), expected)
    g = rng.uniform(-1, 1, (40, 17)).astype(">f4")[::2, ::-1]
    b = cd.resize_backward(da.from_array(g, chunks=5), (9, 50), mode="lanczos3")
    assert same_bits(b.compute(), cresize.resize_backward(g, (9, 50), mode="lanczos3"))
    # grad_output of the input's shape (the identity): native order too, as in memory
    # (it kept ">f4", so neither the dtype nor the bytes were those of resize_backward)
    for chunks in (None, 3):
        b = cd.resize_backward(da.from_array(g, chunks=5), g.shape, chunks=chunks)
        expected = cresize.resize_backward(g, g.shape)
        assert b.dtype == expected.dtype == np.float32
        assert same_bits(b.compute(), expected)


def test_result_independent_of_task_threads():
    rng = np.random.default_rng(4)
    x = rng.uniform(-1, 1, (2, 300, 310)).astype(np.float32)
    dx = da.from_array(x, chunks=(1, 128, 100))
    one = cd.resize(dx, (700, 90), mode="bicubic", antialias=True).compute()
    two = cd.resize(dx, (700, 90), mode="bicubic", antialias=True, num_threads=2).compute()
    assert same_bits(one, two)
    assert same_bits(one, cresize.resize(x, (700, 90), mode="bicubic", antialias=True))


# ----------------------------------------------------------------------------
# The graph


def dependencies_on(y, src_name):
    """{output chunk index: set of input chunk indices it reads}, walking through the
    getitem tasks of y's own layer."""
    graph = dict(y.__dask_graph__())
    found = {}
    for key in itertools.product(*(range(len(c)) for c in y.chunks)):
        seen, todo = set(), [(y.name, *key)]
        while todo:
            for dep in dask.core.get_dependencies(graph, todo.pop()):
                if dep[0] == src_name:
                    seen.add(dep[1:])
                else:
                    todo.append(dep)
        found[key] = seen
    return found


def intervals_from_weights(n_in, chunks_out, **opts):
    """For each output chunk: the [lo, hi) input interval with nonzero weight."""
    w = cresize.weights(n_in, sum(chunks_out), **opts)
    bounds = np.cumsum((0,) + tuple(chunks_out))
    spans = []
    for a, b in itertools.pairwise(bounds):
        cols = np.flatnonzero(np.any(w[a:b] != 0, axis=0))
        spans.append((cols.min(), cols.max() + 1))
    return spans


def chunks_touched(chunks, lo, hi):
    bounds = np.cumsum((0,) + tuple(chunks))
    return {k for k in range(len(chunks)) if bounds[k] < hi and bounds[k + 1] > lo}


@pytest.mark.parametrize(
    "mode,aa,size,in_chunks,out_chunks",
    [
        ("lanczos3", True, (50, 260), (1, 37, 29), (1, 9, 40)),
        ("bilinear", False, (300, 91), (2, 64, 50), None),
        ("area", False, (25, 26), (1, 25, 26), None),
        ("bicubic", False, (33, 700), (3, 5, 7), (2, 4, 100)),
    ],
)
def test_each_chunk_reads_only_the_chunks_its_taps_touch(mode, aa, size, in_chunks, out_chunks):
    x = da.ones((3, 100, 104), dtype=np.float32, chunks=in_chunks)
    y = cd.resize(x, size, mode=mode, antialias=aa, chunks=out_chunks)
    deps = dependencies_on(y, x.name)
    spans = [
        intervals_from_weights(x.shape[a], y.chunks[a], mode=mode, antialias=aa) for a in (1, 2)
    ]
    for key, got in deps.items():
        expected = set(
            itertools.product(
                chunks_touched(x.chunks[0], *(np.cumsum((0,) + y.chunks[0])[key[0] : key[0] + 2])),
                chunks_touched(x.chunks[1], *spans[0][key[1]]),
                chunks_touched(x.chunks[2], *spans[1][key[2]]),
            )
        )
        assert got == expected, key
    # one new layer over the input's: no rechunk, no overlap/halo-exchange layers
    new = set(y.__dask_graph__().layers) - set(x.__dask_graph__().layers)
    assert new == {y.name}
    assert not any(re.match(r"(rechunk|overlap|concatenate)", name) for name in new)


def test_default_chunks():
    x = da.ones((4, 8000, 6000), dtype=np.float32, chunks=(1, 2000, 1500))
    # shrinking: an output chunk is the image of one input chunk; batch axes keep theirs
    y = cd.resize(x, (2000, 1500), mode="area")
    assert y.chunks == ((1,) * 4, (500,) * 4, (375,) * 4)
    assert all(len(v) == 1 for v in dependencies_on(y, x.name).values())
    # enlarging: the image of one input chunk too (27 MB, within array.chunk-size), so
    # one task per input chunk (it had the input chunk's length: 4x the tasks here)
    z = cd.resize(x, (9000, 12000), mode="bilinear")
    assert z.chunks == ((1,) * 4, (2250,) * 4, (3000,) * 4)
    assert z.npartitions == x.npartitions
    # backward: from the chunks of grad_output, the same rule
    g = da.ones((4, 2000, 1500), dtype=np.float32, chunks=(2, 500, 375))
    b = cd.resize_backward(g, x.shape, mode="area")
    assert b.chunks == ((2, 2), (2000,) * 4, (1500,) * 4)


def test_default_chunks_make_no_more_chunks_than_the_input():
    """The image of an input chunk, c * O / I, is rounded up: rounded to nearest, evenly
    chunked inputs resized to about half of all sizes got one more output chunk per
    resized axis, a sliver (1024 in 256s to 1001: 250 four times and a chunk of 1, 25
    tasks for 16 input chunks)."""
    x = da.ones((1024, 900), dtype=np.float32, chunks=(256, 100))
    for size in [(1001, 2000), (999, 1999), (1000, 2001), (77, 5), (2047, 1801), (300, 300)]:
        y = cd.resize(x, size, mode="bicubic")
        assert [len(c) for c in y.chunks] <= [len(c) for c in x.chunks], (size, y.chunks)
        assert y.chunksize == tuple(-(-c * o // i) for c, o, i in zip((256, 100), size, x.shape))
    y = cd.resize(x, (1001, 2000))
    assert y.chunks == ((251, 251, 251, 248), (223,) * 8 + (216,))
    # an uneven input: at most as many chunks as it has, each about the image of one
    u = da.ones((1000, 10), dtype=np.float32, chunks=((300, 300, 300, 100), (10,)))
    assert cd.resize(u, (1003, 10)).chunks[0] == (301, 301, 301, 100)
    assert cd.resize(u, (10, 10)).chunks[0] == (3, 3, 3, 1)


def test_enlarging_builds_one_task_per_input_chunk():
    """The issue's case scaled down: 20000² float32 in 500² chunks enlarged 2x. The
    result has one chunk per input chunk (it had four per input chunk, each joined from
    four cut pieces: 31,364 tasks; now 13,924), each task joins its input chunk with
    8 halo pieces at most."""
    x = da.zeros((20000, 20000), dtype=np.float32, chunks=500)
    y = cd.resize(x, scale_factor=2.0, mode="bilinear")
    assert y.chunksize == (1000, 1000) and y.npartitions == x.npartitions == 1600
    layer = y.__dask_graph__().layers[y.name]
    assert len(layer) <= 9 * x.npartitions
    # bilinear x2: output chunk i reads input rows 500i-1 to 500i+500, chunks i-1 to i+1
    near = [set(range(max(i - 1, 0), min(i + 2, 40))) for i in range(40)]
    for (i, j), got in dependencies_on(y, x.name).items():
        assert got == set(itertools.product(near[i], near[j])), (i, j)


def test_default_chunks_stay_within_dask_chunk_size():
    """An enlarged output chunk holds at most max(one input chunk, array.chunk-size)
    bytes; Dask's setting is read, the input chunk's length is the floor, and the
    result keeps the whole-array bits."""
    rng = np.random.default_rng(12)
    x = rng.uniform(-1, 1, (2, 150, 130)).astype(np.float32)
    dx = da.from_array(x, chunks=(1, 40, 30))
    expected = cresize.resize(x, (450, 390), mode="lanczos3")
    y = cd.resize(dx, (450, 390), mode="lanczos3")
    assert y.chunksize == (1, 120, 90)  # 43 kB: within 128 MiB
    with dask.config.set({"array.chunk-size": "16kB"}):
        small = cd.resize(dx, (450, 390), mode="lanczos3")
        tiny = cd.resize(dx, (450, 390), mode="lanczos3", axes=(1, 2))
        with dask.config.set({"array.chunk-size": "1B"}):
            floor = cd.resize(dx, (450, 390), mode="lanczos3")
    # cut back by one factor on both enlarged axes, to 16 kB
    assert 40 <= small.chunksize[1] < 120 and 30 <= small.chunksize[2] < 90
    assert 4 * np.prod(small.chunksize) <= 16000 < 4 * np.prod(y.chunksize)
    assert tiny.chunks == small.chunks
    assert floor.chunksize == (1, 40, 30)  # never below the input chunk
    for z in (y, small, floor):
        assert same_bits(z.compute(), expected)
    # chunks= still wins
    assert cd.resize(dx, (450, 390), chunks=(2, 450, 50)).chunks == (
        (2,),
        (450,),
        (50,) * 7 + (40,),
    )


def test_the_documented_default_chunk_example_holds():
    # docs/dask.md said Dask's default 128 MiB chunks of float32 are 5793x5793; Dask
    # makes them 5792x5792 (its auto chunks round down to the budget)
    found = re.search(r"default 128 MiB chunks \((\d+)x(\d+) float32\)", DOCS.read_text())
    assert found, "docs/dask.md no longer gives the default chunk of its example"
    with dask.config.set({"array.chunk-size": "128MiB"}):
        x = da.ones((100000, 100000), dtype=np.float32)
        y = cd.resize(x, scale_factor=2.0)
    assert x.chunksize == (int(found[1]), int(found[2]))
    assert y.chunksize == x.chunksize  # the image of a chunk (512 MiB) is over the budget


def test_chunks_argument():
    x = da.ones((6, 100, 80), dtype=np.float64, chunks=(2, 30, 30))
    assert cd.resize(x, (50, 40), chunks=10).chunks == ((6,), (10,) * 5, (10,) * 4)
    assert cd.resize(x, (50, 40), chunks=(3, 25, -1)).chunks == ((3, 3), (25, 25), (40,))
    y = cd.resize(x, (50, 40), chunks={-1: 20, 1: None})
    assert y.chunks == ((2, 2, 2), (15, 15, 15, 5), (20, 20))
    auto = cd.resize(x, (50, 40), chunks="auto").chunks  # no bigger than an input chunk
    assert np.prod([max(c) for c in auto]) <= 2 * 30 * 30
    with pytest.raises(ValueError, match="chunks"):
        cd.resize(x, (50, 40), chunks=((1, 2), (50,), (40,)))
    with pytest.raises(ValueError, match="chunks"):
        cd.resize(x, (50, 40), chunks={5: 3})


def test_errors():
    x = da.ones((10, 10), chunks=5)
    with pytest.raises(TypeError, match="grad_output must be float32 or float64"):
        cd.resize_backward(da.ones((5, 5), dtype=np.uint8, chunks=2), (10, 10))
    with pytest.raises(ValueError, match="grad_output has shape"):
        cd.resize_backward(da.ones((5, 5), chunks=2), (10, 10), scale_factor=0.3)
    with pytest.raises(ValueError, match="input_shape"):
        cd.resize_backward(da.ones((5, 5), chunks=2), (10, 10, 3))
    with pytest.raises(ValueError, match="mode"):
        cd.resize(x, 5, mode="sinc")
    with pytest.raises(TypeError):
        cd.resize(da.ones((10, 10), dtype=bool, chunks=5), 5)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        cd.resize(x[x[:, 0] > 0], 5)
    with pytest.raises(ValueError, match="levels"):
        cd.pyramid(x, 0)
    with pytest.raises(ValueError, match=r"levels must be from 1 .* to 64"):
        cd.pyramid(x, 10**6)  # refused at once, not after building a million levels
    assert len(cd.pyramid(x, 64)) == 64
    with pytest.raises(TypeError, match="levels"):
        cd.pyramid(x, True)
    for bad in (np.True_, 2.0, np.array(2.0), "2", np.array([2])):
        with pytest.raises(TypeError, match="levels must be a positive int; got "):
            cd.pyramid(x, bad)
    assert len(cd.pyramid(x, np.array(3))) == len(cd.pyramid(x, np.uint8(3))) == 3
    # a halved axis of length 0 is named as the caller knows it (it was "input_shape")
    with pytest.raises(ValueError, match=r"^axis 0 of x has length 0; a resized axis"):
        cd.pyramid(da.ones((0, 10), chunks=3), 2)


def test_numpy_input_untouched_and_identity_backward():
    x = np.arange(60.0).reshape(6, 10)
    before = x.copy()
    y = cd.resize(x, (3, 5), mode="area")
    assert isinstance(y, da.Array)
    assert same_bits(y.compute(), cresize.resize(before, (3, 5), mode="area"))
    assert same_bits(x, before)
    # grad_output of the input's shape: the identity, as cresize.resize_backward
    g = da.from_array(x, chunks=4)
    assert same_bits(cd.resize_backward(g, (6, 10)).compute(), x)
    # num_threads is checked there too, as cresize.resize_backward checks it
    with pytest.raises(ValueError, match="num_threads"):
        cd.resize_backward(g, (6, 10), num_threads=0)
    with pytest.raises(TypeError, match="num_threads"):
        cd.resize_backward(g, (6, 10), num_threads=True)


@pytest.mark.parametrize("bad", [0, True, 2.5, "2", 5000])
def test_num_threads_is_refused_in_resizes_words(bad):
    x = np.zeros((6, 10))
    with pytest.raises((TypeError, ValueError)) as theirs:
        cresize.resize(x, (3, 5), num_threads=bad)
    for call in (
        lambda: cd.resize(da.from_array(x, chunks=4), (3, 5), num_threads=bad),
        lambda: cd.resize_backward(da.zeros((3, 5), chunks=2), (6, 10), num_threads=bad),
    ):
        with pytest.raises(type(theirs.value)) as ours:
            call()
        assert str(ours.value) == str(theirs.value)
    assert str(theirs.value).startswith("num_threads must be ")


def test_import_error_names_the_extra():
    code = (
        "import sys\nsys.modules['dask'] = None\n"
        "try:\n    import cresize.dask\nexcept ImportError as e:\n    print(e)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert 'pip install "cresize[dask]"' in result.stdout


# ----------------------------------------------------------------------------
# Memory: streams through the chunks


STREAM = PEAK + textwrap.dedent("""
    import resource, sys
    import numpy as np, dask, dask.array as da
    import cresize.dask as cd
    n, m = int(sys.argv[1]), int(sys.argv[2])
    chunk = "auto" if sys.argv[3] == "auto" else int(sys.argv[3])
    # every chunk materialised (as read from a store), not a zero-stride broadcast
    x = da.ones((n, n), dtype=np.float32, chunks=chunk).map_blocks(np.array, dtype=np.float32)
    y = cd.resize(x, (m, m), mode="lanczos3", antialias=True)
    with dask.config.set(scheduler="threads", num_workers=2):
        r = y.compute()
    # this process's own peak (ru_maxrss, kept across exec, counted pytest's: 800 MiB
    # late in the whole suite)
    peak = peak_rss()
    assert r.shape == (m, m) and r.dtype == np.float32
    print(peak, float(np.abs(r - 1).max()))
""")


def stream(n, m, chunk):
    if not sys.platform.startswith("linux"):
        pytest.skip("/proc/self/status (VmHWM) is Linux's")
    out = subprocess.run(
        [sys.executable, "-c", STREAM, str(n), str(m), str(chunk)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    peak, deviation = out.stdout.split()
    return int(peak), float(deviation)


def test_streams_small():
    """576 MB (549 MiB) in 4 MB chunks: the peak stays below the array's own size.

    Measured 330-420 MiB, once 485 MiB on a loaded machine (how many chunks the
    scheduler keeps in flight); the interpreter with NumPy and Dask alone is ~72 MiB,
    so a computation that held the whole array would exceed the bound by that much at
    least. The full-size bound is test_streams_6gb_under_2gib."""
    n = 12000
    peak, deviation = stream(n, 750, 1000)
    assert deviation < 1e-5  # a constant image stays constant (float32 round-off)
    assert peak < n * n * 4, peak / 2**20


@pytest.mark.slow
def test_streams_6gb_under_2gib():
    """The issue's case: 40000x40000 float32 (6.4 GB, Dask's default 128 MiB chunks)
    to 2500x2500, lanczos3 antialias, threaded scheduler: peak RSS under 2 GiB."""
    peak, deviation = stream(40000, 2500, "auto")
    assert deviation < 1e-5
    assert peak < 2 * 2**30, peak / 2**20


# ----------------------------------------------------------------------------
# A cluster of worker processes


def test_local_cluster_with_worker_processes(tmp_path, request):
    distributed = pytest.importorskip("distributed")
    # distributed sets MALLOC_TRIM_THRESHOLD_ in this process's environment for the
    # workers it spawns, and leaves it there: put it back for the tests after this one
    before = os.environ.get("MALLOC_TRIM_THRESHOLD_")

    def restore():
        if before is None:
            os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)
        else:
            os.environ["MALLOC_TRIM_THRESHOLD_"] = before

    request.addfinalizer(restore)
    # distributed's own default (libgomp is not fork-safe), which docs/dask.md relies on
    assert dask.config.get("distributed.worker.multiprocessing-method") == "spawn"
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (2, 260, 300)).astype(np.float32)
    img = rng.integers(0, 256, (200, 230, 3), dtype=np.uint8)
    g = rng.uniform(-1, 1, (2, 90, 410)).astype(np.float64)
    config = {
        "distributed.worker.multiprocessing-method": "spawn",
        "distributed.scheduler.work-stealing": True,
    }
    with (
        dask.config.set(config),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",  # a free port: 8787 may be taken on a shared machine
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        pids = client.run(os.getpid)
        assert len(pids) == 2 and os.getpid() not in pids.values()
        y = cd.resize(
            da.from_array(x, chunks=(1, 64, 64)), (90, 410), mode="lanczos3", antialias=True
        )
        z = cd.resize(
            da.from_array(img, chunks=(50, 60, 3)), (77, 500), axes=(0, 1), mode="bicubic"
        )
        b = cd.resize_backward(
            da.from_array(g, chunks=(1, 30, 100)), x.shape, mode="lanczos3", antialias=True
        )
        got = client.compute([y, z, b], sync=True)
        ran_on = client.run(lambda dask_worker: len(dask_worker.state.log) > 0)
        try:  # as a user would: from a Zarr store to one, default (enlarged) chunks
            import zarr
        except ImportError:
            zarr = None
        if zarr is not None:
            da.to_zarr(da.from_array(x[0], chunks=(100, 120)), str(tmp_path / "x.zarr"))
            # (zarr.open_array, not da.from_zarr: Dask's floor, 2024.1, calls zarr 2's API)
            stored_x = zarr.open_array(str(tmp_path / "x.zarr"), mode="r")
            up = cd.resize(da.from_array(stored_x, chunks=stored_x.chunks), scale_factor=2.5)
            assert up.chunksize == (250, 300) and up.npartitions == 9
            da.to_zarr(up, str(tmp_path / "up.zarr"))
            stored = zarr.open_array(str(tmp_path / "up.zarr"), mode="r")[...]
            assert same_bits(stored, cresize.resize(x[0], scale_factor=2.5))
    assert all(ran_on.values())  # both workers ran tasks
    assert same_bits(got[0], cresize.resize(x, (90, 410), mode="lanczos3", antialias=True))
    assert same_bits(got[1], cresize.resize(img, (77, 500), axes=(0, 1), mode="bicubic"))
    assert same_bits(got[2], cresize.resize_backward(g, x.shape, mode="lanczos3", antialias=True))


def test_from_zarr_to_zarr(tmp_path):
    """docs/dask.md's Zarr workflow with Dask's own readers and writers (da.from_zarr,
    da.to_zarr; the cluster test above reads with zarr.open_array): the default
    chunks are regular, so to_zarr takes them, and the stores hold resize's bits."""
    zarr = pytest.importorskip("zarr")
    rng = np.random.default_rng(15)
    x = rng.uniform(-1, 1, (130, 110)).astype(np.float32)
    img = rng.integers(0, 256, (90, 75, 3), dtype=np.uint8)
    for name, data, chunks in (("x", x, (30, 25)), ("i", img, (8, 7, 3))):
        store = str(tmp_path / f"{name}.zarr")
        zarr.create_array(store, shape=data.shape, chunks=chunks, dtype=data.dtype)[...] = data
    try:
        dx, di = da.from_zarr(str(tmp_path / "x.zarr")), da.from_zarr(str(tmp_path / "i.zarr"))
    except Exception as exc:  # Dask's floor (2024.1) reads Zarr 2 only
        pytest.skip(f"this Dask cannot read a Zarr 3 store: {exc}")
    cases = [
        (dx, x, (260, 330), {"mode": "bicubic"}),
        (dx, x, (18, 8), {"mode": "lanczos3", "antialias": True}),  # 7x, 13x: chunks < reach
        (di, img, (12, 10), {"mode": "area", "axes": (0, 1)}),
        (di, img, (200, 31), {"mode": "lanczos3", "axes": (0, 1)}),
    ]
    with dask.config.set(scheduler="threads"):
        for k, (src, data, size, opts) in enumerate(cases):
            y = cd.resize(src, size, **opts)
            da.to_zarr(y, str(tmp_path / f"y{k}.zarr"))
            stored = zarr.open_array(str(tmp_path / f"y{k}.zarr"), mode="r")
            assert stored.chunks == y.chunksize
            assert same_bits(stored[...], cresize.resize(data, size, **opts)), (k, size, opts)


def test_tasks_ship_the_plan_as_its_arguments():
    """What a worker process receives: a few hundred bytes, not the tables, and the
    same plan rebuilt from them (size- and scale_factor-based)."""
    import pickle

    rng = np.random.default_rng(8)
    x = rng.uniform(-1, 1, (3, 5000, 64)).astype(np.float32)
    for kwargs in [{"size": (77, 64)}, {"scale_factor": (0.013, 1.5), "align_corners": True}]:
        y = cd.resize(da.from_array(x, chunks=(1, 1000, 64)), mode="lanczos3", **kwargs)
        args = [
            getattr(arg, "value", arg)
            for task in dict(y.__dask_graph__()).values()
            for arg in (task if isinstance(task, tuple) else getattr(task, "args", ()))
        ]
        ref = next(arg for arg in args if isinstance(arg, cd._PlanRef))
        payload = pickle.dumps(ref)
        assert len(payload) < 1000
        again = pickle.loads(payload)
        assert again.plan.output_shape == ref.plan.output_shape == y.shape
        region = (slice(1, 3), slice(10, 40), slice(0, 50))
        block = x[ref.plan.input_region(region)]
        assert same_bits(again.plan.run_region(block, region), ref.plan.run_region(block, region))


def test_unpickling_a_graph_builds_no_plan(monkeypatch):
    """distributed's scheduler unpickles the whole graph (to read its dependencies) but
    runs no task: it built the plan, tap tables it never used (an antialiased plan of a
    1e6-long axis: 143 MiB at its peak), kept in its cache of 16 plans, and needed
    cresize importable. A task builds it when it first runs, once per process."""
    import pickle

    built = []
    real = _plan.block_plan
    monkeypatch.setattr(_plan, "block_plan", lambda *a: built.append(a) or real(*a))
    cd._plan_for.cache_clear()
    rng = np.random.default_rng(9)
    x = rng.uniform(-1, 1, (300, 200)).astype(np.float32)
    y = cd.resize(da.from_array(x, chunks=100), (77, 500), mode="lanczos3", antialias=True)
    built.clear()
    graph = pickle.loads(pickle.dumps(dict(y.__dask_graph__())))  # what the scheduler does
    assert built == []
    expected = cresize.resize(x, (77, 500), mode="lanczos3", antialias=True)
    assert same_bits(dask.get(graph, [(y.name, 0, 0)])[0], expected[:26, :250])
    assert len(built) == 1
    assert same_bits(dask.get(graph, [(y.name, 2, 1)])[0], expected[52:, 250:])
    assert len(built) == 1  # once per process
    cd._plan_for.cache_clear()


# ----------------------------------------------------------------------------
# Pyramids


def test_pyramid_equals_repeated_in_memory_halving():
    rng = np.random.default_rng(6)
    x = rng.uniform(0, 1, (2, 203, 150)).astype(np.float32)
    dx = da.from_array(x, chunks=(1, 64, 64))
    levels = cd.pyramid(dx, 5)
    assert len(levels) == 5 and levels[0] is dx
    level = x
    for k, y in enumerate(levels[1:], 1):
        level = cresize.resize(level, scale_factor=0.5, mode="lanczos3", antialias=True)
        assert y.shape == (2, 203 >> k, 150 >> k)
        assert y.chunks[0] == (1, 1)
        assert set(y.chunks[1][:-1]) <= {min(64, y.shape[1])}  # regular, as Zarr wants
        assert same_bits(y.compute(), level)
    # an axis that reaches length 1 stays 1
    tiny = cd.pyramid(da.ones((5, 3), chunks=2), 4, axes=(0, 1), mode="area", antialias=False)
    assert [t.shape for t in tiny] == [(5, 3), (2, 1), (1, 1), (1, 1)]


@pytest.mark.parametrize("mode", ["area", "nearest", "nearest-exact"])
def test_pyramid_of_a_mode_without_antialias_needs_no_antialias_false(mode):
    # The default antialias=True made pyramid(x, 3, mode="area") an error
    # ("antialias=True is not defined for mode='area'") the caller never asked for.
    x = np.random.default_rng(7).uniform(0, 1, (37, 50)).astype(np.float32)
    levels = cd.pyramid(da.from_array(x, chunks=16), 3, mode=mode)
    level = x
    for y in levels[1:]:
        level = cresize.resize(level, scale_factor=0.5, mode=mode)
        assert same_bits(y.compute(), level)
    with pytest.raises(ValueError, match="antialias=True is not defined"):
        cd.pyramid(da.from_array(x, chunks=16), 3, mode=mode, antialias=True)


def test_docs_example_writes_an_ome_zarr_group(tmp_path):
    """Runs the OME-Zarr example of docs/dask.md and reads the group back."""
    zarr = pytest.importorskip("zarr")
    blocks = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.DOTALL)
    example = next(b for b in blocks if "multiscales" in b)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(example, str(DOCS), "exec"), {})
    finally:
        os.chdir(cwd)
    group = zarr.open_group(str(tmp_path / "image.ome.zarr"), mode="r")
    attrs = group.attrs.asdict()
    multiscales = attrs.get("ome", attrs)["multiscales"][0]
    paths = [d["path"] for d in multiscales["datasets"]]
    assert paths == ["0", "1", "2", "3"]
    full = group["0"][...]
    level = full
    for path in paths[1:]:
        level = cresize.resize(level, scale_factor=0.5, mode="lanczos3", antialias=True)
        assert same_bits(group[path][...], level)


def test_arrays_larger_than_this_machine_are_planned_for_blocks(monkeypatch):
    """Only the tables of a Dask resize must fit in memory, not the whole input or result
    (each task makes one chunk): a 6.4 GB lazy array on a machine of 1 GiB used to be
    refused with cresize's MemoryError. Whole-array calls of the same geometry still are."""
    from cresize import _plan, _spec

    monkeypatch.setattr(_spec, "memory_limit", lambda: 2**30)
    cresize.clear_cache()
    x = da.random.default_rng(0).random((40000, 40000), chunks=4000, dtype=np.float32)
    y = cd.resize(x, (1000, 1000), mode="area")
    assert y.shape == (1000, 1000)
    np.testing.assert_array_equal(  # reads one input chunk
        y[:10, :10].compute(), cresize.resize(x[:400, :400].compute(), (10, 10), mode="area")
    )
    g = cd.resize_backward(
        da.ones((1000, 1000), chunks=250, dtype=np.float32), x.shape, mode="area"
    )
    assert g.shape == x.shape
    np.testing.assert_allclose(g[:3, :5].compute(), 1 / 1600, rtol=1e-6)
    spec = _spec.forward((40000, 40000), (1000, 1000), mode="area")
    key = cd._PlanRef(_plan.block_plan(spec, "f4", None)).key
    assert cd._plan_for.__wrapped__(key).plan.output_shape == (1000, 1000)  # what a worker does
    with pytest.raises(MemoryError, match=r"resizing shape \(40000, 40000\)"):
        cresize.plan((40000, 40000), (1000, 1000), mode="area")
    with pytest.raises(MemoryError, match=r"resizing shape \(40000, 40000\)"):
        _plan.cached_plan(spec, np.dtype("f4"))
    cresize.clear_cache()


@pytest.mark.parametrize(
    "chunks", [0, (0, 5), {1: 0}, ((10, 10), (20, 4)), -2, (-3, 5), ((20,), (-1, 26)), {0: -4}]
)
def test_bad_chunks_name_the_argument(chunks):
    # chunks=0 reached Dask's blockdims_from_blockshape: ZeroDivisionError. A negative
    # length other than -1 (-2, or an explicit (-1, 26)) passed normalize_chunks and
    # made an array of shape (-1, -1) or with a chunk of length -1.
    x = da.ones((40, 50), chunks=10, dtype=np.float32)
    with pytest.raises(ValueError, match=r"chunks=.* is not a valid chunking of the result") as e:
        cd.resize(x, (20, 25), chunks=chunks)
    assert "division" not in str(e.value)  # Dask's ZeroDivisionError, said in the user's words


@pytest.mark.parametrize(
    "chunks,why",
    [
        (2**70, "at most 2**63 - 1; got 1180591620717411303424"),
        ((2**63, 5), "at most 2**63 - 1; got 9223372036854775808"),
        ({0: 2**70}, "at most 2**63 - 1"),
        (((2**70,), 5), "at most 2**63 - 1"),
        (-(2**70), "must be >= 0"),
    ],
)
def test_chunks_past_int64_get_our_message(chunks, why):
    # chunks=2**70 was refused with NumPy's "ufunc 'isnan' not supported" (Dask made
    # an object array of it); a dict was quoted as the tuple it was turned into
    x = da.ones((40, 50), chunks=10, dtype=np.float32)
    with pytest.raises(ValueError, match=r"chunks=.* is not a valid chunking") as e:
        cd.resize(x, (20, 25), chunks=chunks)
    assert why in str(e.value) and "isnan" not in str(e.value)
    assert str(e.value).startswith(f"chunks={chunks!r} is not")
    assert cd.resize(x, (20, 25), chunks=2**63 - 1).chunks == ((20,), (25,))


@pytest.mark.parametrize(
    "chunks", [((np.nan,), (25,)), ((10, np.nan), 25), (np.nan, 5), {0: np.nan}]
)
def test_unknown_chunk_lengths_are_refused_in_our_words(chunks):
    # A NaN (Dask's unknown length) in chunks given per block passed normalize_chunks and
    # failed building the graph: "TypeError: slice indices must be integers or None"
    # from inside the plan, naming no argument; (nan, 5) got Dask's advice to call
    # x.compute_chunk_sizes(), which is about an input
    x = da.ones((40, 50), chunks=10, dtype=np.float32)
    with pytest.raises(ValueError, match=r"chunks=.* is not a valid chunking") as e:
        cd.resize(x, (20, 25), chunks=chunks)
    assert "not NaN" in str(e.value) and "compute_chunk_sizes" not in str(e.value)


@pytest.mark.parametrize(
    "chunks,why",
    [
        ((np.int64(-3), 5), "chunk lengths must be >= 0"),
        ({0: np.int32(-4)}, "chunk lengths must be >= 0"),
        (((np.int64(-1), np.int64(21)), 25), "chunk lengths must be >= 0"),
        ((np.float32("nan"), 5), "not NaN"),
        (((np.float32("nan"),), (25,)), "not NaN"),
        ((np.uint64(2**63), 5), "at most 2**63 - 1; got 9223372036854775808"),
    ],
)
def test_numpy_chunk_lengths_get_the_same_rule(chunks, why):
    # The checks above saw Python ints and floats only: np.int64(-3) got Dask's "Chunks
    # do not add up to shape ... ((-2,), ...)", np.float32('nan') (no float) Dask's advice
    # to call x.compute_chunk_sizes() or "Chunks do not add up to shape"
    x = da.ones((40, 50), chunks=10, dtype=np.float32)
    with pytest.raises(ValueError, match=r"chunks=.* is not a valid chunking") as e:
        cd.resize(x, (20, 25), chunks=chunks)
    assert why in str(e.value), str(e.value)
    assert str(e.value).startswith(f"chunks={chunks!r} is not")
    assert cd.resize(x, (20, 25), chunks=(np.int64(10), np.int32(5))).chunks == (
        (10, 10),
        (5,) * 5,
    )


def test_masked_arrays_are_refused_when_the_graph_is_built():
    # A masked NumPy array or a dask array of masked chunks was accepted, and every task
    # then failed at compute time with "block is a masked array" (a name the caller never
    # used); cresize.resize refuses it at the call.
    x = np.ma.masked_array(np.arange(60.0).reshape(6, 10), mask=np.eye(6, 10, dtype=bool))
    with pytest.raises(TypeError, match=r"x is a masked array.*x.filled"):
        cd.resize(x, (3, 5))
    with pytest.raises(TypeError, match=r"x is a masked array"):
        cd.resize(da.ma.masked_array(da.from_array(x.data, chunks=4), x.mask), (3, 5))
    with pytest.raises(TypeError, match=r"x is a masked array"):
        cd.pyramid(x, 2)
    with pytest.raises(TypeError, match=r"grad_output is a masked array"):
        cd.resize_backward(x, (12, 20))


def test_dask_arrays_are_refused_by_the_in_memory_calls():
    # cresize.resize(x) of a Dask array went through np.asarray: it computed all of x
    # without a word (f ran 101 times), where the caller likely meant cresize.dask.resize.
    calls = []

    def f(block):
        calls.append(1)
        return block

    x = da.ones((100, 100), chunks=10, dtype="f4").map_blocks(f, dtype="f4")
    calls.clear()  # map_blocks ran f once on an empty block (its meta)
    fix = r"or pass np\.asarray\({0}\) \(or {0}\.compute\(\)\) to compute it first"
    lazy = r"{0} is a lazy Dask collection \(dask\.array\.core\.Array\).*{1}.*" + fix
    with pytest.raises(TypeError, match=lazy.format("x", r"cresize\.dask\.resize\(x")):
        cresize.resize(x, (5, 5))
    with pytest.raises(TypeError, match=lazy.format("grad_output", "dask.resize_backward")):
        cresize.resize_backward(x, (200, 200))
    p = cresize.plan((100, 100), (5, 5))
    with pytest.raises(TypeError, match=lazy.format("x", r"dask\.resize with this plan")):
        p(x)
    with pytest.raises(TypeError, match=lazy.format("block", r"dask\.resize with this plan")):
        p.run_region(x, (slice(0, 5), slice(0, 5)))
    q = cresize.plan((200, 200), (100, 100))
    with pytest.raises(TypeError, match=lazy.format("grad_output", "dask.resize_backward")):
        q.backward(x)
    with pytest.raises(TypeError, match=lazy.format("block", "dask.resize_backward")):
        cresize.plan((5, 5), (100, 100)).run_region(x, (slice(0, 5),) * 2, backward=True)
    with pytest.raises(TypeError, match="out must be a NumPy array; got Array"):
        cresize.resize(np.ones((100, 100), "f4"), (5, 5), out=da.zeros((5, 5), dtype="f4"))
    assert not calls  # nothing was computed
    assert same_bits(cresize.resize(x.compute(), (5, 5)), cd.resize(x, (5, 5)).compute())


@pytest.mark.parametrize("scale_factor", [np.array(0.5), np.array([0.5, 2.0]), np.float32(0.75)])
def test_scale_factor_as_numpy_array_or_scalar(scale_factor):
    # A 0-d array scale_factor (cresize.resize takes it) failed while the graph was built
    # ("iteration over a 0-d array"): the plan's reference re-derived the factors from
    # the caller's argument instead of taking them from the plan.
    import pickle

    x = np.random.default_rng(11).uniform(-1, 1, (10, 12)).astype(np.float32)
    expected = cresize.resize(x, scale_factor=scale_factor, mode="bicubic")
    y = cd.resize(da.from_array(x, chunks=4), scale_factor=scale_factor, mode="bicubic")
    assert same_bits(y.compute(scheduler="sync"), expected)
    again = pickle.loads(pickle.dumps(y))  # what a worker process rebuilds
    assert same_bits(again.compute(scheduler="sync"), expected)
    g = np.random.default_rng(12).uniform(-1, 1, expected.shape)
    b = cd.resize_backward(
        da.from_array(g, chunks=3), x.shape, scale_factor=scale_factor, mode="bicubic"
    )
    assert same_bits(
        b.compute(scheduler="sync"),
        cresize.resize_backward(g, x.shape, scale_factor=scale_factor, mode="bicubic"),
    )


@pytest.mark.parametrize("dtype", [bool, np.complex64, object, "U1", "M8[s]"])
def test_bad_dtypes_name_the_argument(dtype):
    # The message named "dtype", an argument the caller never gave (it comes from
    # cresize.plan), and a NumPy array of objects met Dask's "Can not use auto
    # rechunking with object dtype" (NotImplementedError) instead of cresize's TypeError.
    x = np.zeros((6, 8), dtype)
    with pytest.raises(TypeError, match=r"^x must be a float \(float16/32/64\) or integer"):
        cd.resize(x, (3, 4))
    with pytest.raises(TypeError, match=r"^x must be a float \(float16/32/64\) or integer"):
        cd.pyramid(x, 1)
    if x.dtype != object:
        with pytest.raises(TypeError, match=r"^x must be a float \(float16/32/64\) or integer"):
            cd.resize(da.from_array(x, chunks=3), (3, 4))
    with pytest.raises(TypeError, match=r"^grad_output must be float32 or float64"):
        cd.resize_backward(x, (12, 16))


def test_pyramid_of_one_level_checks_its_arguments():
    # levels=1 returned [x] without looking at the other arguments, so a call that
    # fails for levels=2 (num_threads=0, antialias=True with area) passed for levels=1.
    x = da.ones((16, 16), chunks=8, dtype=np.float32)
    for levels in (1, 2):
        with pytest.raises(ValueError, match="num_threads"):
            cd.pyramid(x, levels, num_threads=0)
        with pytest.raises(ValueError, match="antialias=True is not defined"):
            cd.pyramid(x, levels, mode="area", antialias=True)
        with pytest.raises(TypeError, match="antialias"):
            cd.pyramid(x, levels, antialias="yes")
    assert cd.pyramid(x, 1)[0] is x


def test_chunks_as_a_byte_size():
    # chunks="1MiB" (Dask's own spelling: da.ones(..., chunks="1MiB"), x.rechunk("1MiB"))
    # was refused with normalize_chunks' "Only one consistent value of limit or chunk is
    # allowed. Used 1048576 != 1000000": cresize passed its own limit beside the string.
    x = da.ones((4000, 4000), chunks=500, dtype=np.float32)
    y = cd.resize(x, (6000, 6000), chunks="1MiB")
    assert y.chunks == da.ones((6000, 6000), chunks="1MiB", dtype=np.float32).chunks
    row = cd.resize(x, (6000, 6000), chunks=("1MiB", -1))
    assert row.chunks[1] == (6000,) and 4 * 6000 * max(row.chunks[0]) <= 2**20
    some = cd.resize(x, (6000, 6000), chunks={0: "1MiB"})
    assert some.chunks[1] == cd.resize(x, (6000, 6000)).chunks[1]
    assert 4 * np.prod(some.chunksize) <= 2**20
    with pytest.raises(ValueError, match=r"chunks=\('1MiB', '2MiB'\) is not a valid chunking"):
        cd.resize(x, (6000, 6000), chunks=("1MiB", "2MiB"))  # Dask's rule: one byte size
    rng = np.random.default_rng(14)
    small = rng.uniform(-1, 1, (90, 70)).astype(np.float64)
    z = cd.resize(da.from_array(small, chunks=30), (200, 150), mode="lanczos3", chunks="8KiB")
    assert 8 * np.prod(z.chunksize) <= 8192 and z.npartitions > 1
    assert same_bits(z.compute(), cresize.resize(small, (200, 150), mode="lanczos3"))


@pytest.mark.parametrize("chunks", ["-5MiB", "0B", ("-1kB", -1), {1: "0 MiB"}])
def test_a_byte_size_of_chunks_must_be_positive(chunks):
    """Dask's normalize_chunks took "-5MiB" and "0B" as a budget of one element a
    chunk: (10, 10) outputs in 100 chunks here, a graph of 1.6e9 tasks for a 40000²
    result, built (or running out of memory) before anything said the argument was wrong."""
    x = da.ones((40, 40), chunks=20, dtype=np.float32)
    with pytest.raises(ValueError, match=r"chunks=.* is not a valid chunking .*byte size"):
        cd.resize(x, (10, 10), chunks=chunks)
    with pytest.raises(ValueError, match=r"chunks=.* is not a valid chunking .*byte size"):
        cd.resize_backward(x, (40, 40), chunks=chunks)  # the identity too
    assert cd.resize(x, (10, 10), chunks="1B").npartitions == 100  # a budget under one value


@pytest.mark.parametrize("chunks", [True, (20, False), {0: np.True_}, ((5, 5), True)])
def test_a_chunk_length_cannot_be_a_bool(chunks):
    """normalize_chunks takes True as a length of 1 (and False as 0): chunks=True meant
    one task per element, 1.6e9 tasks for a 40000² result, before anything said why."""
    x = da.ones((40, 40), chunks=20, dtype=np.float32)
    with pytest.raises(ValueError, match=r"chunks=.* is not a valid chunking .*cannot be a bool"):
        cd.resize(x, (10, 10), chunks=chunks)
    with pytest.raises(ValueError, match=r"chunks=.* is not a valid chunking .*cannot be a bool"):
        cd.resize_backward(x, (40, 40), chunks=chunks)


def test_chunks_dict_names_each_axis_once():
    # {1: 5, -1: 7} named axis 1 twice and the last entry won without a word; a bool
    # key was taken as axis 0 or 1 (cresize refuses axes=True).
    x = da.ones((40, 50), chunks=10, dtype=np.float32)
    with pytest.raises(ValueError, match=r"chunks: axis 1 is named twice"):
        cd.resize(x, (20, 25), chunks={1: 5, -1: 7})
    with pytest.raises(TypeError, match=r"chunks: dict keys must be axes \(ints\); got True"):
        cd.resize(x, (20, 25), chunks={True: 5})
    assert cd.resize(x, (20, 25), chunks={0: 5, -1: 7}).chunks == ((5,) * 4, (7, 7, 7, 4))


def test_array_like_with_a_dtype_numpy_does_not_know():
    # An array_like whose dtype is not NumPy's (a torch.Tensor: torch.float32) failed with
    # "Cannot interpret 'torch.float32' as a data type"; cresize.resize takes it.
    class Tensorish:
        dtype = "torch.float32"
        shape = (4, 5)

        def __array__(self, dtype=None, copy=None):
            return np.arange(20.0, dtype=np.float32).reshape(4, 5)

    y = cd.resize(Tensorish(), (2, 3))
    assert same_bits(y.compute(), cresize.resize(Tensorish(), (2, 3)))


# ----------------------------------------------------------------------------
# Keys: what does not change the bits does not change the name


def test_keys_do_not_depend_on_what_leaves_the_bits_unchanged():
    """Two graphs that differ only in arguments the result does not depend on
    (``num_threads``, the order of ``axes``, negative axes, mode aliases,
    ``align_corners=None``) have the same keys, so Dask computes them once."""
    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, (3, 40, 50)).astype(np.float32)
    dx = da.from_array(x, chunks=(1, 16, 16))
    base = cd.resize(dx, (20, 70), mode="bicubic")
    same = [
        cd.resize(dx, (20, 70), mode="bicubic", num_threads=2),
        cd.resize(dx, (70, 20), axes=(2, 1), mode="bicubic"),
        cd.resize(dx, (20, 70), axes=(-2, -1), mode="cubic", align_corners=None),
        cd.resize(dx, np.array([20, 70]), mode="bicubic"),
    ]
    halves = {
        cd.resize(dx, scale_factor=f, mode="bicubic").name
        for f in (0.5, (0.5, 0.5), np.array([0.5, 0.5]), np.float32(0.5))
    }
    assert len(halves) == 1
    assert {y.name for y in same} == {base.name}
    both = da.compute(base, same[1])
    assert same_bits(both[0], both[1])
    assert same_bits(both[0], cresize.resize(x, (20, 70), mode="bicubic"))
    other = [
        cd.resize(dx, (20, 71), mode="bicubic"),
        cd.resize(dx, (20, 70), mode="bicubic", antialias=True),
        cd.resize(dx, (20, 70), mode="bicubic", align_corners=True),
        cd.resize(dx, (20, 70), mode="bilinear"),
        cd.resize(dx, (20, 70), mode="bicubic", chunks=10),
        cd.resize(dx.astype(np.float64), (20, 70), mode="bicubic"),
    ]
    assert len({y.name for y in other} | {base.name}) == len(other) + 1
    g = da.from_array(rng.uniform(-1, 1, (3, 20, 70)), chunks=(1, 8, 8))
    grads = [
        cd.resize_backward(g, x.shape, mode="bicubic", num_threads=n, axes=axes)
        for n, axes in [(1, None), (2, None), (1, (2, 1))]
    ]
    assert len({b.name for b in grads}) == 1


# ----------------------------------------------------------------------------
# float16: computed in float32, a slab at a time


def run_one_task(y, index):
    """Run the task of output chunk ``index`` of ``y`` on its (computed) inputs under
    tracemalloc: (its result, the peak bytes it allocated)."""
    import tracemalloc

    graph = dict(y.__dask_graph__())
    key = (y.name, *index)
    deps = sorted(dask.core.get_dependencies(graph, key), key=str)
    values = dict(zip(deps, dask.get(graph, deps)))

    def arg(a):
        if isinstance(a, list):
            return [arg(b) for b in a]
        if isinstance(a, tuple) and a[:1] and isinstance(a[0], str) and a in values:
            return values[a]
        return a

    func, *args = graph[key]
    args = [arg(a) for a in args]
    tracemalloc.start()
    try:
        result = func(*args)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, peak


@pytest.mark.parametrize(
    "mode,aa,factor,most",
    [("lanczos3", True, 0.25, 3.0), ("bilinear", False, 3.0, 20.0), ("bicubic", False, 1.3, 5.0)],
)
def test_float16_tasks_compute_in_slabs(mode, aa, factor, most, monkeypatch):
    """A float16 task holds a slab's float32 copies, not the whole task's: in input
    chunks (256x256, slabs from 32 KiB of float32 box on, so as many as chunks of 16 MiB
    get), it measured 3.9 (lanczos3 antialias 4x shrink), 30.4 (bilinear 3x) and 8.4
    (bicubic 1.3x) computed in one piece, 2.3, 12.8 and 3.6 in slabs; same bits.
    The slabs are ``_plan._slabs``', as a whole-array call's, its budgets scaled by the
    chunks' area (1/64 of 2048x2048) and its least cut row by their side (1/8)."""
    monkeypatch.setattr(_plan, "MIN_SLAB_BYTES", _plan.MIN_SLAB_BYTES // 64)
    monkeypatch.setattr(_plan, "SLAB_BYTES", _plan.SLAB_BYTES // 64)
    monkeypatch.setattr(_plan, "MIN_CUT_ROW", _plan.MIN_CUT_ROW // 8)
    rng = np.random.default_rng(13)
    x = rng.uniform(-3, 3, (1024, 1024)).astype(np.float16)
    dx = da.from_array(x, chunks=256)
    y = cd.resize(dx, scale_factor=factor, mode=mode, antialias=aa)
    assert same_bits(y.compute(), cresize.resize(x, scale_factor=factor, mode=mode, antialias=aa))
    index = tuple(len(c) // 2 for c in y.chunks)
    got, peak = run_one_task(y, index)
    region = tuple(slice(sum(c[:i]), sum(c[: i + 1])) for c, i in zip(y.chunks, index))
    assert same_bits(got, y.compute()[region])
    assert peak < most * 256 * 256 * 2, peak / (256 * 256 * 2)


@pytest.mark.parametrize("seed", range(6))
def test_float16_slabs_keep_the_bits(seed, monkeypatch):
    """Slabs along a batch axis, a resized one, after leading axes of length 1, and
    chunks smaller than the kernel: every slab size, the whole-array bits."""
    monkeypatch.setattr(_plan, "MIN_SLAB_BYTES", 1)
    monkeypatch.setattr(_plan, "MIN_CUT_ROW", 1)  # narrow chunks are cut too
    rng = np.random.default_rng(100 + seed)
    for _ in range(5):
        shape, size, opts, chunks = random_case(rng)
        x = random_data(rng, shape, np.float16)
        y = cd.resize(da.from_array(x, chunks=chunks), size, **opts)
        assert same_bits(y.compute(scheduler="sync"), cresize.resize(x, size, **opts))
    x = random_data(rng, (1, 6, 90, 70), np.float16)
    for chunks in [(1, 3, 40, 70), (1, 1, 90, 30)]:
        y = cd.resize(da.from_array(x, chunks=chunks), (33, 140), mode="lanczos3", antialias=True)
        assert same_bits(y.compute(), cresize.resize(x, (33, 140), mode="lanczos3", antialias=True))
