"""One-axis resizes across rows of small pixels (channels last: the width of an
``(H, W, C)`` image, NHWC batches, ``(L, C)`` signals, ``(D, H, W, C)`` volumes) run
as rows of pixels through the row kernels (``_plan._pixel_rows``), with the bits of
the previous route, a combination of whole rows of ``C`` values per output pixel."""

import tracemalloc

import numpy as np
import pytest

import cresize
from cresize import _fast, _kernels, _plan, _spec
from helpers.guard import run_guarded

CONFIGS = list(_spec.configurations())
IDS = [f"{c['mode']}-ac{int(c['align_corners'])}-aa{int(c['antialias'])}" for c in CONFIGS]

#: (input shape, size, axes): channels-last rows of 1-5 values along one axis, alone
#: or as one step of a resize of more axes.
GEOMETRIES = [
    ((6, 13, 3), (29,), (1,)),  # HWC width only, enlarging
    ((6, 13, 4), (5,), (1,)),  # RGBA, shrinking
    ((5, 16, 2), (5, 8), (0, 1)),  # both axes named, the height unchanged
    ((2, 5, 9, 3), (4,), (2,)),  # NHWC width only
    ((23, 2), (50,), (0,)),  # a signal of 2 channels
    ((3, 4, 7, 3), (6, 4, 11), (0, 1, 2)),  # a volume, H unchanged: x alone after z
    ((3, 4, 7, 1), (6, 4, 11), (0, 1, 2)),  # one channel (ALONG_ROWS stays LINES)
    ((6, 13, 5), (20,), (1,)),  # 5 values: whole rows combined (PLANES)
]


def _special(x):
    """Signed zeros and infinities at fixed places, and a block of -0 (where every
    product is -0 and a sum started from its first product keeps the sign)."""
    flat = x.reshape(-1)
    flat[::5], flat[1::7], flat[3::13] = -0.0, np.inf, -np.inf
    flat[: min(flat.size, 40)] = -0.0
    return x


def _same_bits(a, b):
    np.testing.assert_array_equal(a, b)
    numbers = ~np.isnan(a)
    assert np.array_equal(np.signbit(a[numbers]), np.signbit(b[numbers]))


def _previous_route(monkeypatch):
    """Plans made from now on combine whole rows for every ACROSS_ROWS step (the route
    before rows of pixels)."""
    monkeypatch.setattr(_plan, "_pixel_rows", lambda inner: False)
    cresize.clear_cache()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_rows_of_pixels_keep_the_bits_of_whole_rows(monkeypatch, config, dtype):
    """Forward and backward, every mode, whole arrays and a block: the same bits as the
    previous route, signed zeros included, for 1 to 3 threads."""
    rng = np.random.default_rng(11)
    cases = []
    for shape, size, axes in GEOMETRIES:
        p = cresize.plan(shape, size, axes=axes, dtype=dtype, **config)
        x = _special(rng.standard_normal(shape).astype(dtype))
        g = _special(rng.standard_normal(p.output_shape).astype(dtype))
        region = tuple(slice(n // 3, n) for n in p.output_shape[:-1]) + (slice(1, 2),)
        got = [p(x), p.backward(g), p.run_region(x[p.input_region(region)], region)]
        for n in (2, 3):
            _same_bits(got[0], p(x, num_threads=n))
            _same_bits(got[1], p.backward(g, num_threads=n))
        _same_bits(got[2], got[0][region])
        cases.append((shape, size, axes, x, g, region, got))
    try:
        _previous_route(monkeypatch)
        for shape, size, axes, x, g, region, got in cases:
            p = cresize.plan(shape, size, axes=axes, dtype=dtype, **config)
            _same_bits(got[0], p(x))
            _same_bits(got[1], p.backward(g))
            _same_bits(got[2], p(x)[region])
    finally:
        monkeypatch.undo()
        cresize.clear_cache()


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16])
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "lanczos3", "area"])
def test_integer_rows_of_pixels_equal_the_previous_route(monkeypatch, dtype, mode):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(12)
    cases = []
    for shape, size, axes in GEOMETRIES:
        x = rng.integers(info.min, info.max, shape, endpoint=True).astype(dtype)
        x.reshape(-1)[::3] = info.max  # hard edges, clipped after the sums
        for antialias in (False, True) if mode not in ("nearest", "area") else (False,):
            kw = dict(mode=mode, axes=axes, antialias=antialias)
            got = cresize.resize(x, size, **kw)
            np.testing.assert_array_equal(got, cresize.resize(x, size, num_threads=3, **kw))
            cases.append((x, size, kw, got))
    try:
        _previous_route(monkeypatch)
        for x, size, kw, got in cases:
            np.testing.assert_array_equal(got, cresize.resize(x, size, **kw))
    finally:
        monkeypatch.undo()
        cresize.clear_cache()


@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
@pytest.mark.parametrize("level", ["none", "sse2", "avx2", "avx512"])
def test_rows_of_pixels_at_every_simd_level(monkeypatch, dtype, level):
    """The width of an HWC image (1-4 values, value lanes at AVX2) against an explicit
    reference: the whole-row kernel (``gather_planes``) on the float values, rounded
    for uint8 (1 value: the same numbers, rows from 0); and against the planar image's rows (LINES), which start their sums
    from 0 (equal values; signs of zeros apart)."""
    monkeypatch.setenv("CRESIZE_SIMD", level)
    _kernels._init_simd()
    try:
        rng = np.random.default_rng(13)
        for channels in (1, 2, 3, 4):
            for mode, n_out in [("bicubic", 61), ("bilinear", 9), ("nearest", 40), ("area", 10)]:
                shape = (7, 30, channels)
                if dtype == np.uint8:
                    x = rng.integers(0, 256, shape).astype(dtype)
                    sums = np.float32
                else:
                    x = _special(rng.standard_normal(shape).astype(dtype))
                    sums = dtype
                got = cresize.resize(x, (n_out,), mode=mode, axes=(1,))
                t = _plan.table(30, n_out, mode, False, False, None)
                src = np.ascontiguousarray(x, sums)
                ref = np.empty((7, n_out, channels), sums)
                _kernels.gather_planes(src, ref, *t.kernel_args(sums), 1)
                if dtype == np.uint8:
                    ref = np.clip(np.rint(ref), 0, 255).astype(np.uint8)
                if channels > 1:
                    _same_bits(got, ref)
                else:  # along the contiguous axis: LINES, sums from 0 (+0 for -0)
                    np.testing.assert_array_equal(got, ref)
                planar = cresize.resize(np.moveaxis(x, 2, 0), (n_out,), mode=mode, axes=(2,))
                np.testing.assert_array_equal(got, np.moveaxis(planar, 0, 2))
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


def test_the_plan_routes_small_pixels_through_the_row_kernels():
    """Which kernel runs a one-axis step: rows of pixels for 2-4 trailing values,
    rows (LINES) along the contiguous axis, whole rows (PLANES) beyond 4 values."""
    for shape, axes, kind in [
        ((8, 9, 3), (1,), _fast.FUSED),
        ((2, 8, 9, 4), (2,), _fast.FUSED),
        ((9, 2), (0,), _fast.FUSED),
        ((8, 9, 5), (1,), _fast.PLANES),
        ((8, 9, 3), (0,), _fast.PLANES),  # height only: rows of 27 values
        ((3, 8, 9), (2,), _fast.LINES),
    ]:
        for dtype in (np.float32, np.float64):
            p = cresize.plan(shape, (13,), mode="bilinear", axes=axes, dtype=dtype)
            for program in (p._forward, p._backward):
                (step,) = program.compiled(np.dtype(dtype))
                assert step[0] == kind, (shape, axes, step[0])
                if kind == _fast.FUSED:  # one input row per job, the pixels in it
                    n_in = program.shape[axes[0]]
                    assert step[1] == (np.prod(shape[: axes[0]]), 1, n_in * shape[-1])
        (step,) = cresize.plan(shape, (13,), axes=axes, dtype="uint8")._forward.compiled(
            np.dtype(np.uint8)
        )
        # an integer step (FUSED): pixels of `channels` values; src (B, IH, IW * channels)
        assert step[0] == _fast.FUSED and step[4].src_dtype == np.uint8
        channels, (_, in_h, in_row), (_, out_h, out_row) = step[4].channels, step[1], step[3]
        assert channels == np.prod(shape[axes[0] + 1 :]), shape
        if kind == _fast.PLANES:  # whole rows: x is the identity of one pixel
            assert in_row == out_row == channels and (in_h, out_h) == (shape[axes[0]], 13)
        else:  # rows of pixels: y is the identity of one row
            assert in_h == out_h == 1 and (in_row, out_row) == (
                channels * shape[axes[0]],
                channels * 13,
            )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_first_product_gives_the_sign_of_whole_row_sums(dtype):
    """``make_step(first_product=True)``: where every product is -0 the sum is -0, as
    in the whole-row kernel; without it the row kernels' sums from 0 give +0."""
    t = _plan.table(6, 14, "bilinear", False, False, None)
    one = _plan.table(1, 1, "nearest", False, False, None)
    x = np.full((2, 6, 3), -0.0, dtype)
    x[1, :, 1] = 1.5  # a channel that is not zero, and one row of products not all -0
    x[1, 2, 2] = 0.0
    ref = np.empty((2, 14, 3), dtype)
    _kernels.gather_planes(x, ref, *t.kernel_args(dtype), 1)
    outs = {}
    for flag in (False, True):
        step = _kernels.make_step(
            _fast.FUSED,
            2,
            1,
            18,
            y=one.kernel_args(dtype),
            x=t.row_args(dtype),
            channels=3,
            order=_kernels.Order.DIRECT,
            first_product=flag,
        )
        outs[flag] = np.empty((2, 1, 42), dtype)
        step(x.reshape(2, 1, 18), outs[flag], 2)
        np.testing.assert_array_equal(outs[flag].reshape(ref.shape), ref)
    assert not np.signbit(outs[False]).any()
    _same_bits(outs[True].reshape(ref.shape), ref)
    assert np.signbit(ref).sum() > 14  # the case is exercised
    two = _plan.table(1, 2, "nearest", False, False, None)  # one input row, two outputs
    for in_h, y, order in [
        (2, t, _kernels.Order.VERTICAL_FIRST),
        (1, two, _kernels.Order.DIRECT),
    ]:
        with pytest.raises(ValueError, match="first_product"):
            _kernels.make_step(
                _fast.FUSED,
                2,
                in_h,
                18,
                y=y.kernel_args(dtype),
                x=t.row_args(dtype),
                channels=3,
                order=order,
                first_product=True,
            )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_products_that_underflow_to_negative_zero(monkeypatch, dtype):
    """Negative subnormals times weights of 1/4 round to -0: the sums of whole rows keep
    -0, and so do rows of pixels (the least positive weight finds them)."""
    tiny = np.nextafter(dtype(0), dtype(-1))
    x = np.full((3, 16, 3), tiny, dtype)
    x[1] = 0.0  # +0: a product +0, the sums +0 either way
    x[2, :, 0] = 1.0
    got = cresize.resize(x, (4,), mode="area", axes=(1,))
    assert np.signbit(got[0]).all() and np.signbit(got[2, :, 1:]).all()
    assert not np.signbit(got[1]).any() and (got[2, :, 0] == 1).all()
    try:
        _previous_route(monkeypatch)
        _same_bits(got, cresize.resize(x, (4,), mode="area", axes=(1,)))
    finally:
        monkeypatch.undo()
        cresize.clear_cache()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fewer_rows_than_threads_share_out_the_pixels(monkeypatch, dtype):
    """An (L, C) signal is one row of pixels: with more threads each takes a share of
    its pixels (some none), with the bits of one thread and of the whole-row kernel."""
    rng = np.random.default_rng(14)
    one = _plan.table(1, 1, "nearest", False, False, None)
    for channels, n_in, n_out, mode in [
        (2, 37, 80, "bicubic"),
        (3, 40, 3, "area"),
        (4, 9, 9 * 7, "bilinear"),
    ]:
        t = _plan.table(n_in, n_out, mode, False, False, None)
        x = _special(rng.standard_normal((2, n_in, channels)).astype(dtype))
        ref = np.empty((2, n_out, channels), dtype)
        _kernels.gather_planes(x, ref, *t.kernel_args(dtype), 1)
        step = _kernels.make_step(
            _fast.FUSED,
            2,
            1,
            n_in * channels,
            y=one.kernel_args(dtype),
            x=t.row_args(dtype),
            channels=channels,
            order=_kernels.Order.DIRECT,
            first_product=True,
        )
        for threads in (1, 2, 3, 5):
            got = np.empty((2, 1, n_out * channels), dtype)
            step(x.reshape(2, 1, -1), got, threads)
            _same_bits(got.reshape(ref.shape), ref)
    # Through the plan: a signal long enough for several threads.
    x = _special(rng.standard_normal((2**17, 2)).astype(dtype))
    p = cresize.plan(x.shape, (2**17 + 999,), mode="bicubic", axes=(0,), dtype=dtype)
    assert p._forward.compiled(np.dtype(dtype))[0][4].most_threads >= 3
    got = p(x)
    for threads in (2, 3):
        _same_bits(got, p(x, num_threads=threads))
    try:
        _previous_route(monkeypatch)
        _same_bits(got, cresize.resize(x, (2**17 + 999,), mode="bicubic", axes=(0,)))
    finally:
        monkeypatch.undo()
        cresize.clear_cache()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.int16])
@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos3"])
def test_rows_of_pixels_equal_the_rows_of_the_2d_route(dtype, mode):
    """With align_corners, the even rows of a height 9 -> 17 resize read one input row
    with weight 1: the 2-D route's rows (resampled by the same pixel kernels, then
    combined) equal the width-only resize (values; signs of zero apart)."""
    rng = np.random.default_rng(15)
    for channels in (1, 2, 3, 4):
        if np.dtype(dtype).kind == "f":
            x = rng.standard_normal((9, 21, channels)).astype(dtype)
        else:
            info = np.iinfo(dtype)
            x = rng.integers(info.min, info.max, (9, 21, channels), endpoint=True).astype(dtype)
        kw = dict(mode=mode, align_corners=True)
        both = cresize.resize(x, (17, 50), axes=(0, 1), **kw)
        width = cresize.resize(x, (50,), axes=(1,), **kw)
        np.testing.assert_array_equal(both[::2], width)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16])
@pytest.mark.parametrize("shape", [(2**19, 3), (2**20,), (2, 8000, 3)])
def test_long_integer_rows_keep_a_chunk_of_sums(dtype, shape):
    """Integer rows of pixels (and plain integer signals) keep the sums of a chunk of
    ``INT_ROW_CHUNK`` values, not of the row: the peak memory of a long signal is its
    result; the numbers are the float resize rounded (every chunk boundary crossed)."""
    info = np.iinfo(dtype)
    x = np.random.default_rng(16).integers(info.min, info.max, shape, endpoint=True)
    x = x.astype(dtype)
    axis = 1 if len(shape) == 3 else 0
    size = (shape[axis] * 5 // 3,)
    kw = dict(mode="bicubic", axes=(axis,))
    cresize.resize(x, size, **kw)  # tables cached
    tracemalloc.start()
    try:
        got = cresize.resize(x, size, **kw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= got.nbytes + 2**20, (peak, got.nbytes)
    assert got.size // (got.shape[0] if axis else 1) > 2 * _kernels.INT_ROW_CHUNK  # a row
    sums = np.float32 if np.dtype(dtype).itemsize == 1 else np.float64
    ref = cresize.resize(x.astype(sums), size, **kw)
    np.testing.assert_array_equal(got, np.clip(np.rint(ref), info.min, info.max).astype(dtype))
    np.testing.assert_array_equal(got, cresize.resize(x, size, num_threads=3, **kw))


SHORT_ROWS_SCRIPT = r"""
import hashlib
_plan.MIN_WORK_PER_THREAD = 1  # (read as plans compile) the rows split between threads
levels, digests, cases = [], [], 0
for level in ("none", "sse2", "avx2", "avx512"):
    os.environ["CRESIZE_SIMD"] = level
    _kernels._init_simd()
    levels.append(_kernels.simd_level())
    rng = np.random.default_rng(8)
    h = hashlib.sha256()
    for dtype in (np.float32, np.uint8, np.uint16):
        for channels in (1, 2, 3, 4):
            for n_out in range(1, 41):
                for n_in in sorted({(n_out + 1) // 2, max(1, n_out // 3), 2 * n_out + 1}):
                    for mode in ("bilinear", "bicubic"):
                        rows = 1 if (n_out + n_in) % 2 else 3  # 1: fewer rows than threads
                        shape = (rows, n_in) if channels == 1 else (rows, n_in, channels)
                        p = cresize.plan(shape, (n_out,), axes=(1,), mode=mode, dtype=dtype)
                        if dtype == np.float32:
                            x = rng.standard_normal(shape).astype(dtype)
                        else:
                            x = rng.integers(0, np.iinfo(dtype).max, shape).astype(dtype)
                        want = p(x, num_threads=1)
                        cases += check_guarded(p, x, want)
                        h.update(want.tobytes())
    digests.append(h.hexdigest())
print(",".join(levels), cases, ",".join(digests))
"""


def test_short_rows_keep_their_bits_and_their_arrays(tmp_path):
    """Short rows along the contiguous axis and rows of 2-4 value pixels (1-40 output
    pixels: the edge groups of the AVX2 value lanes, ``CRESIZE_AVX2_ROW``: groups from
    the first whole window, the last ones loading the row's last values, one ending at
    the last whole window), enlarging by about 2 and 3 (odd lengths) and shrinking by
    about 2, bilinear and bicubic, float32, uint8 and uint16, one row (fewer than
    threads) or three, on inputs and ``out`` that end (or begin) at a page the process
    may not touch, two threads: the bits of one thread on ordinary arrays, and the same
    bits at every SIMD level. In a child process: a read or write past either array is
    a segmentation fault there, not here."""
    levels, cases, digests = run_guarded(tmp_path, SHORT_ROWS_SCRIPT).split()
    assert levels.split(",")[0] == "none"
    assert int(cases) > 4 * 3 * 4 * 40 * 2
    assert len(set(digests.split(","))) == 1, levels
