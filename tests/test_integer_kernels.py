"""8- and 16-bit images through the integer kernels (docs/spec.md section 5).

The contract: let ``e`` be the float64 result of the same operator, clipped to the
dtype's range. Every output is within 1 of ``e`` correctly rounded (either tie
rule), at least 99% of outputs equal it, a constant image stays constant, and
nearest / nearest-exact are exact gathers. On top of the contract the tests pin
how the numbers are computed: 8-bit sums are float32 and 16-bit sums float64, in
the float kernels' order, so the result is exactly ``clip(rint(.))`` of the float
path on the converted image, whatever the layout, strides or thread count.
"""

import tracemalloc

import numpy as np
import pytest

import cresize
from cresize import _kernels
from cresize._tables import Taps, taps
from helpers.guard import run_guarded
from helpers.oracle import reference_resize

DTYPES = (np.uint8, np.int8, np.uint16, np.int16)
SMOOTH = [
    (m, ac, aa)
    for m in ("bilinear", "bicubic", "lanczos3")
    for ac in (False, True)
    for aa in (False, True)
]
OPTIONS = SMOOTH + [
    ("area", False, False),
    ("nearest", False, False),
    ("nearest-exact", False, False),
]


def image(rng, shape, dtype, channel_axis):
    """Random values of the whole range with hard edges: a band of the minimum, one
    of the maximum, and a min/max checkerboard, across the spatial axes."""
    info = np.iinfo(dtype)
    x = rng.integers(info.min, int(info.max) + 1, shape, dtype=np.int64)
    spatial = [a for a in range(len(shape)) if a != channel_axis]
    h, w = spatial[-2], spatial[-1]
    idx = [slice(None)] * len(shape)
    n = shape[w]
    idx[w] = slice(0, n // 4)
    x[tuple(idx)] = info.max
    idx[w] = slice(n // 4, n // 3 + 1)
    x[tuple(idx)] = info.min
    grid = np.indices(shape)
    checker = ((grid[h] + grid[w]) % 2 == 0) & (grid[w] >= 2 * n // 3)
    x[checker] = info.max
    x[(grid[w] >= 2 * n // 3) & ~checker] = info.min
    return x.astype(dtype)


def assert_contract(out, x, sizes, mode, align_corners, antialias):
    info = np.iinfo(x.dtype)
    exact = reference_resize(
        x.astype(np.float64), sizes, mode=mode, align_corners=align_corners, antialias=antialias
    )
    e = np.clip(exact, info.min, info.max)
    assert out.dtype == x.dtype and out.shape == e.shape
    if mode.startswith("nearest"):  # exact gathers
        np.testing.assert_array_equal(out, e.astype(x.dtype))
        return
    got = out.astype(np.float64)
    # Either tie rule, and a tie computed as x.4999999999999 in float64 (1/6 is inexact).
    slack = 1e-9 * max(1.0, float(np.abs(e).max()))
    error = np.abs(got - e)
    equal = error <= 0.5 + slack
    assert error.max() <= 1.5 + slack, (error.max(), mode)
    assert equal.mean() >= 0.99, (equal.mean(), mode)


def float_path(x, *args, **kwargs):
    """The integers' numbers by the float kernels: float32 sums for 8 bits, float64 for 16."""
    info = np.iinfo(x.dtype)
    work = np.float32 if x.dtype.itemsize == 1 else np.float64
    y = cresize.resize(x.astype(work), *args, **kwargs)
    return np.clip(np.rint(y), info.min, info.max).astype(x.dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode, align_corners, antialias", OPTIONS)
@pytest.mark.parametrize("layout", ["planar", "hwc"])
def test_contract_against_float64(dtype, mode, align_corners, antialias, layout):
    rng = np.random.default_rng(
        abs(hash((np.dtype(dtype).name, mode, align_corners, antialias, layout))) % 2**32
    )
    for channels in range(1, 6):
        for size in ((29, 13), (8, 41)):  # one axis up, one down, both ways round
            if layout == "planar":
                x = image(rng, (channels, 19, 23), dtype, 0)
                sizes, kwargs = {1: size[0], 2: size[1]}, {}
            else:
                x = image(rng, (19, 23, channels), dtype, 2)
                sizes, kwargs = {0: size[0], 1: size[1]}, {"axes": (0, 1)}
            out = cresize.resize(
                x, size, mode=mode, align_corners=align_corners, antialias=antialias, **kwargs
            )
            assert_contract(out, x, sizes, mode, align_corners, antialias)
            np.testing.assert_array_equal(
                out,
                float_path(
                    x, size, mode=mode, align_corners=align_corners, antialias=antialias, **kwargs
                ),
            )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "mode, align_corners, antialias",
    [
        ("bicubic", False, False),
        ("lanczos3", False, True),
        ("area", False, False),
        ("nearest", False, False),
        ("bilinear", True, False),
    ],
)
@pytest.mark.parametrize(
    "shape, axes, size",
    [
        ((7, 9, 11), (0, 1, 2), (12, 5, 15)),  # three steps: float intermediates
        ((7, 9, 11), (0, 2), (3, 17)),  # non-adjacent axes
        ((13, 17), (0,), (30,)),  # whole rows combined
        ((13, 17), (1,), (6,)),  # along the contiguous axis
        ((2, 13, 17, 3), (1, 2), (5, 25)),  # (N, H, W, C)
    ],
)
def test_other_axes(dtype, mode, align_corners, antialias, shape, axes, size):
    rng = np.random.default_rng(7)
    x = image(rng, shape, dtype, None if len(shape) < 4 else 3)
    out = cresize.resize(
        x, size, axes=axes, mode=mode, align_corners=align_corners, antialias=antialias
    )
    assert_contract(out, x, dict(zip(axes, size)), mode, align_corners, antialias)
    np.testing.assert_array_equal(
        out,
        float_path(x, size, axes=axes, mode=mode, align_corners=align_corners, antialias=antialias),
    )


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode, align_corners, antialias", OPTIONS)
def test_constant_images_stay_constant(dtype, mode, align_corners, antialias):
    info = np.iinfo(dtype)
    for value in (info.min, info.max, (int(info.min) + int(info.max)) // 2 + 1):
        for shape, axes, size in [
            ((23, 31, 3), (0, 1), (50, 7)),
            ((2, 23, 31), None, (9, 64)),
            ((9, 10, 11), (0, 1, 2), (4, 21, 5)),
        ]:
            x = np.full(shape, value, dtype)
            out = cresize.resize(
                x, size, axes=axes, mode=mode, align_corners=align_corners, antialias=antialias
            )
            assert out.dtype == dtype
            assert np.all(out == value), (value, np.unique(out))


@pytest.mark.parametrize("mode, align_corners, antialias", OPTIONS)
def test_wide_integer_constants(mode, align_corners, antialias):
    """32-bit constants stay constant (float64 round-off is far below 0.5 there);
    int64 ones near 2**52 come back within a few units in 1e15 (README, "Decisions")."""
    kwargs = {"mode": mode, "align_corners": align_corners, "antialias": antialias}
    for shape, axes, size in [((23, 31, 3), (0, 1), (50, 7)), ((9, 10, 11), (0, 1, 2), (4, 21, 5))]:
        for dtype in (np.int32, np.uint32):
            info = np.iinfo(dtype)
            for value in (info.min, info.max, info.max // 3):
                out = cresize.resize(np.full(shape, value, dtype), size, axes=axes, **kwargs)
                assert out.dtype == dtype and np.all(out == value), (value, np.unique(out))
        value = 2**52 + 1
        out = cresize.resize(np.full(shape, value, np.int64), size, axes=axes, **kwargs)
        assert np.abs(out - value).max() <= 1e-14 * value


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_and_reversed_views(dtype):
    rng = np.random.default_rng(3)
    base = image(rng, (40, 50, 4), dtype, 2)
    before = base.copy()
    views = [
        base[::2, 1::3],
        base[::-1, ::-2],
        base[5:30, :, ::-1][:, :, :3],
        base.transpose(1, 0, 2),
    ]
    for view in views:
        for mode in ("nearest", "bilinear", "lanczos3"):
            got = cresize.resize(
                view, (17, 26), axes=(0, 1), mode=mode, antialias=mode == "lanczos3"
            )
            want = cresize.resize(
                np.ascontiguousarray(view),
                (17, 26),
                axes=(0, 1),
                mode=mode,
                antialias=mode == "lanczos3",
            )
            np.testing.assert_array_equal(got, want)
            assert got.flags.c_contiguous
    swapped = base.astype(base.dtype.newbyteorder(">"))
    np.testing.assert_array_equal(
        cresize.resize(swapped, (17, 26), axes=(0, 1)), cresize.resize(base, (17, 26), axes=(0, 1))
    )
    np.testing.assert_array_equal(base, before)  # the input is never written


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "mode, antialias",
    [
        ("nearest", False),
        ("bilinear", False),
        ("bicubic", False),
        ("lanczos3", True),
        ("area", False),
    ],
)
def test_same_bits_for_any_thread_count(dtype, mode, antialias):
    rng = np.random.default_rng(5)
    cases = [
        (image(rng, (300, 220, 3), dtype, 2), (190, 410), (0, 1)),
        (image(rng, (3, 240, 200), dtype, 0), (500, 130), None),
        (image(rng, (40, 60, 50), dtype, None), (70, 30, 90), (0, 1, 2)),
    ]
    for x, size, axes in cases:
        results = [
            cresize.resize(x, size, axes=axes, mode=mode, antialias=antialias, num_threads=n)
            for n in (1, 2, 3)
        ]
        for r in results[1:]:
            np.testing.assert_array_equal(r, results[0])


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
@pytest.mark.parametrize(
    "mode, antialias, size",
    [
        ("lanczos3", True, (300, 400)),
        ("bilinear", False, (1500, 2000)),
        ("nearest", False, (1500, 2000)),
        ("area", False, (250, 250)),
    ],
)
def test_peak_memory_is_the_result_plus_scratch(dtype, mode, antialias, size):
    x = image(np.random.default_rng(0), (1000, 1200, 3), dtype, 2)
    cresize.resize(x, size, axes=(0, 1), mode=mode, antialias=antialias)  # tables cached
    tracemalloc.start()
    try:
        result = cresize.resize(x, size, axes=(0, 1), mode=mode, antialias=antialias)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= result.nbytes + 4 * 2**20, (peak, result.nbytes)


def test_out_argument():
    x = image(np.random.default_rng(1), (30, 40, 3), np.uint8, 2)
    out = np.empty((45, 20, 3), np.uint8)
    got = cresize.resize(x, (45, 20), axes=(0, 1), mode="bicubic", out=out)
    assert got is out
    np.testing.assert_array_equal(out, cresize.resize(x, (45, 20), axes=(0, 1), mode="bicubic"))


def _int_call(**change):
    """A consistent resize_2d_int call (uint8 (1, 6, 8) -> (1, 4, 3) bilinear), with
    some arguments replaced."""
    args = _int_args(**change)
    return lambda: _kernels.resize_2d_int(**args)


def _int_args(**change):
    """``_int_call``'s arguments."""
    y, x = taps(6, 4, "bilinear"), taps(8, 3, "bilinear")
    args = {
        "src": np.zeros((1, 6, 8), np.uint8),
        "dst": np.zeros((1, 4, 3), np.uint8),
        "channels": 1,
        "y": y.kernel_args(np.float32),
        "x": x.row_args(np.float32),
        "order": _kernels.Order.VERTICAL_FIRST,
        "tags": np.empty((2, 1), np.intp),
        "scratch": np.empty((2, 8 + 3), np.float32),
        "num_threads": 2,
    }
    args.update(change)
    return args


def test_kernel_entry_checks_sizes():
    _int_call()()  # consistent
    y = taps(6, 4, "bilinear")
    index, weight, count = y.kernel_args(np.float32)
    bad_index = index.copy()
    bad_index[2, 0] = 6
    unsorted = index.copy()
    unsorted[1, :2] = unsorted[1, 1::-1]
    too_wide = count.copy()
    too_wide[0] = 5
    for change, words in [
        ({"scratch": np.empty((2, 10), np.float32)}, "scratch"),
        ({"scratch": np.empty((1, 11), np.float32)}, "per thread"),
        ({"tags": np.empty((1, 1), np.intp)}, "per thread"),
        ({"y": (bad_index, weight, count)}, "y_index"),
        ({"y": (index, weight, too_wide)}, "y_count"),
        ({"y": (unsorted, weight, count)}, "ascending"),
        ({"y": taps(6, 5, "bilinear").kernel_args(np.float32)}, "rows"),
        ({"dst": np.zeros((1, 5, 3), np.uint8)}, "rows"),
        ({"dst": np.zeros((1, 4, 4), np.uint8)}, "row"),
        ({"dst": np.zeros((2, 4, 3), np.uint8)}, "planes"),
        ({"channels": 3}, "pixels"),
        ({"order": _kernels.Order.DIRECT}, "DIRECT"),
        ({"order": _kernels.Order.RING, "scratch": np.empty((2, 20), np.float32)}, "slots"),
        ({"order": 7}, "order"),
        ({"num_threads": 0}, "num_threads"),
    ]:
        with pytest.raises(ValueError, match=words):
            _int_call(**change)()
    with pytest.raises(TypeError):
        _int_call(src=np.zeros((1, 6, 8), np.float32), dst=np.zeros((1, 4, 3), np.float32))()
    with pytest.raises(TypeError, match="the y and x weights must have the same dtype"):
        _int_call(y=y.kernel_args(np.float64))()
    both = {"y": y.kernel_args(np.float64), "x": taps(8, 3, "bilinear").row_args(np.float64)}
    with pytest.raises(TypeError, match=r"the x weights must have scratch's dtype \(f\)"):
        _int_call(**both)()  # float32 scratch
    with pytest.raises(TypeError):  # 16-bit values are summed in float64
        _int_call(src=np.zeros((1, 6, 8), np.float64))()


# ----------------------------------------------------------------------------
# Blocks of 2 after a combination of rows (VERTICAL_FIRST with x_block=2): bilinear and
# area shrinking by 2 take the pair sums of _simd_sums.h, with the bits of _row.


@pytest.mark.parametrize("dtype", DTYPES)
def test_block_pairs_keep_the_bits(dtype, monkeypatch):
    from cresize import _plan

    rng = np.random.default_rng(5)
    cases = []
    for channels in (0, 1, 2, 3, 4, 5):  # 0: planar (B, H, W)
        for h, w in ((10, 14), (4, 2), (6, 34), (40, 260), (11, 14), (11, 13), (10, 15)):
            shape = (h, w, channels) if channels else (3, h, w)
            axes = (0, 1) if channels else (1, 2)
            x = image(rng, shape, dtype, 2 if channels else 0)
            for mode in ("bilinear", "area"):
                cases.append((x, axes, (h // 2, w // 2), mode))
    real, taken = _plan._x_block, []

    def spy(*args):
        block = real(*args)
        taken.append(block == 2)
        return block

    def run():
        got = []
        for x, axes, size, mode in cases:
            p = cresize.plan(x.shape, size, mode=mode, axes=axes, dtype=dtype)
            got.append([p(x, num_threads=t) for t in (1, 2)])
            got[-1].append(cresize.resize(x, size, mode=mode, axes=axes))
        return got

    monkeypatch.setattr(_plan, "_x_block", spy)
    cresize.clear_cache()
    new = run()
    # every even width, 1-4 values a pixel or planar, takes the pairs (odd heights too)
    assert sum(taken) == 2 * 5 * 5
    monkeypatch.setattr(_plan, "_x_block", lambda *args: 0)
    cresize.clear_cache()
    old = run()
    cresize.clear_cache()
    for (x, axes, size, mode), a, b in zip(cases, new, old, strict=True):
        for got, want in zip(a, b, strict=True):
            assert got.dtype == want.dtype == dtype
            np.testing.assert_array_equal(got, want, err_msg=f"{x.shape} {axes} {size} {mode}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_plain_plan_calls_go_straight_to_the_integer_steps(dtype, monkeypatch):
    """An 8/16-bit image of the plan's shape and dtype (C-contiguous, strided, into a
    valid ``out``) runs the precompiled steps (``_fast.Direct``), with the bits of the
    checked path (``Plan._run``; other byte orders take it)."""
    from cresize import _plan

    x = image(np.random.default_rng(8), (20, 30, 3), dtype, 2)
    p = cresize.plan(x.shape, (10, 15), mode="bilinear", axes=(0, 1), dtype=dtype)
    checked = p._run(p._forward, x, None, p.input_shape, p.output_shape, "x", None)
    swapped = p(x.astype(x.dtype.newbyteorder()))
    strided = np.repeat(x, 2, axis=1)[:, ::2]
    assert p._fwd is not None and p._fwd.dtype is x.dtype

    def refuse(*args):
        raise AssertionError("the checked path ran")

    monkeypatch.setattr(_plan, "_execute", refuse)
    got = p(x)
    out = np.empty((10, 15, 3), dtype)
    assert p(strided, out=out) is out
    for want in (checked, swapped, p(strided), out):
        np.testing.assert_array_equal(got, want)
        assert want.dtype == got.dtype == dtype
    if x.dtype.itemsize > 1:
        with pytest.raises(AssertionError, match="checked"):
            p(x.astype(x.dtype.newbyteorder()))
    else:  # one byte has no order: an equal copy of the dtype, taking the direct steps
        np.testing.assert_array_equal(p(x.astype(x.dtype.newbyteorder())), got)


# ----------------------------------------------------------------------------
# Integer steps made once, when the plan compiles (make_step(src_dtype=, dst_dtype=)),
# and run on data pointers: the bits of resize_2d_int's checked call and of the float
# kernels, every order, 1-3 threads.

#: (shape maker, axes, size, mode) of each row order of the fused integer step, and
#: single-axis and three-axis resizes; channels 0: planar (3, H, W).
STEP_CASES = [
    ((13, 17), (26, 35), "bicubic"),  # RING
    ((13, 17), (6, 8), "bicubic"),  # VERTICAL_FIRST
    ((13, 17), (26, 9), "lanczos3"),  # RING, x shrinking
    ((13, 17), (20, 40), "nearest"),  # DIRECT: pixels copied
    ((13, 17), (7, 9), "nearest-exact"),
    ((12, 18), (6, 9), "bilinear"),  # 2x2: pairs after the rows are combined
    ((12, 18), (6, 9), "area"),
    ((12, 18), (6, 18), "bilinear"),  # whole rows combined (x: the identity)
    ((12, 18), (12, 7), "bicubic"),  # rows of pixels (y: the identity)
]


def _step_input(rng, dtype, hw, channels):
    shape = (*hw, channels) if channels else (3, *hw)
    return image(rng, shape, dtype, 2 if channels else 0), (0, 1) if channels else (1, 2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_integer_steps_keep_the_bits(dtype, monkeypatch):
    """A plan's integer steps (``Step``s, scratch of their own) give the bits of the
    float kernels on the converted image and of ``resize_2d_int`` called with the same
    tables and scratch arrays, for every order, 1-5 values a pixel or planar, and every
    thread count (the threads' bound lowered so that small images take several)."""
    from cresize import _plan

    monkeypatch.setattr(_plan, "MIN_WORK_PER_THREAD", 1)
    cresize.clear_cache()
    rng = np.random.default_rng(11)
    orders = set()
    for channels in range(6):
        for hw, size, mode in STEP_CASES:
            x, axes = _step_input(rng, dtype, hw, channels)
            p = cresize.plan(x.shape, size, axes=axes, mode=mode, dtype=dtype)
            want = float_path(x, size, axes=axes, mode=mode)
            for threads in (1, 2, 3):
                np.testing.assert_array_equal(p(x, num_threads=threads), want, err_msg=mode)
            (step,) = p._forward.compiled(x.dtype)
            assert step[4].src_dtype == step[4].dst_dtype == x.dtype
            assert step[4].most_threads >= 3
            if len(p._forward.steps[0][0]) == 2:  # the same tables through resize_2d_int
                orders.add(p._forward.steps[0][1])
                got = _through_resize_2d_int(p, x, threads=2)
                np.testing.assert_array_equal(got.reshape(want.shape), want, err_msg=mode)
        x = image(rng, (5, 7, 9), dtype, None)  # integers -> float sums -> integers
        p = cresize.plan(x.shape, (4, 11, 6), mode="bicubic", dtype=dtype)
        kinds = [(s[4].src_dtype, s[4].dst_dtype) for s in p._forward.compiled(x.dtype)]
        sums = np.dtype(np.float32 if np.dtype(dtype).itemsize == 1 else np.float64)
        assert kinds[0] == (x.dtype, sums) and kinds[-1] == (sums, x.dtype), kinds
        for threads in (1, 2):
            np.testing.assert_array_equal(
                p(x, num_threads=threads), float_path(x, (4, 11, 6), mode="bicubic")
            )
    assert orders == {int(o) for o in _kernels.Order}
    cresize.clear_cache()


def _through_resize_2d_int(p, x, threads):
    """``p(x)``'s one fused step by ``resize_2d_int`` (the checked entry point), with
    NumPy scratch, as plans ran their integer steps before they held ``Step``s."""
    from cresize import _plan

    program = p._forward
    (a, b), order, slots = program.steps[0]
    y, t = program.tables[a], program.tables[b]
    channels = int(np.prod(x.shape[b + 1 :]))
    compute = program.run_dtype
    src = x.reshape(int(np.prod(x.shape[:a])), y.n_in, t.n_in * channels)
    dst = np.empty((src.shape[0], y.n_out, t.n_out * channels), x.dtype)
    length = _kernels.scratch_length(order, slots, src.shape[2], dst.shape[2], False, channels)
    _kernels.resize_2d_int(
        src,
        dst,
        channels,
        y.kernel_args(compute),
        _plan._row_args(t, compute, channels),
        order,
        np.empty((threads, length), compute),
        np.empty((threads, slots), np.intp),
        threads,
        _plan._x_block(t, channels, order),
    )
    return dst


def test_integer_plan_shared_by_threads():
    """One integer plan called from six Python threads at once (each call allocates
    its own scratch): the bits of one call."""
    import threading

    rng = np.random.default_rng(12)
    cases = [
        (np.uint8, (40, 30, 3), (81, 62), "bicubic"),  # RING
        (np.uint16, (40, 30, 3), (20, 15), "bilinear"),  # 2x2 pairs
        (np.int8, (40, 30, 4), (17, 13), "lanczos3"),  # VERTICAL_FIRST
    ]
    for dtype, shape, size, mode in cases:
        x = image(rng, shape, dtype, 2)
        p = cresize.plan(shape, size, axes=(0, 1), mode=mode, dtype=dtype)
        want = float_path(x, size, axes=(0, 1), mode=mode)
        results = [None] * 6
        barrier = threading.Barrier(6)

        def work(i, p=p, x=x, results=results, barrier=barrier):
            barrier.wait()
            results[i] = [p(x, num_threads=1 + i % 2) for _ in range(20)]

        threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for got in results:
            assert got is not None and len(got) == 20
            for y in got:
                np.testing.assert_array_equal(y, want)


def test_integer_steps_are_checked_when_made():
    """``make_step`` refuses integer steps it cannot run, and a step refuses arrays of
    other dtypes or sizes; a wrong table is refused as for float steps."""
    from cresize import _fast

    y, x = taps(6, 4, "bilinear"), taps(8, 3, "bilinear")
    ok = {
        "y": y.kernel_args(np.float32),
        "x": x.row_args(np.float32),
        "order": _kernels.Order.VERTICAL_FIRST,
        "src_dtype": np.uint8,
        "dst_dtype": np.uint8,
    }

    def make(kind=_kernels.Kind.FUSED, **change):
        return _kernels.make_step(kind, 1, 6, 8, **{**ok, **change})

    step = make()
    src = image(np.random.default_rng(2), (6, 8), np.uint8, None).reshape(1, 6, 8)
    dst = np.zeros((1, 4, 3), np.uint8)
    step(src, dst, 2)
    np.testing.assert_array_equal(dst[0], float_path(src[0], (4, 3)))
    assert (step.src_size, step.dst_size, step.src_type) == (48, 12, np.dtype(np.uint8).num)
    with pytest.raises(TypeError, match="src must hold uint8"):
        step(src.astype(np.int8), dst, 1)
    with pytest.raises(TypeError, match="dst must hold uint8"):
        step(src, dst.astype(np.float32), 1)
    with pytest.raises(ValueError, match="src values"):
        step(src[:, :5], dst, 1)
    with pytest.raises(ValueError, match="kernel contract"):  # the executor's check, in C
        _fast.run_step(_fast.FUSED, src, dst.astype(np.uint16), step, 1, 60, 1)
    bad_index = y.kernel_args(np.float32)[0].copy()
    bad_index[2, 0] = 6
    for change, error, words in [
        ({"src_dtype": np.float16}, TypeError, "src_dtype must be"),
        ({"dst_dtype": np.dtype(">u2")}, TypeError, "dst_dtype must be"),
        ({"dst_dtype": np.int32}, TypeError, "dst_dtype must be"),
        ({"src_dtype": np.float64}, TypeError, r"weights' dtype \(float32\)"),
        ({"kind": _kernels.Kind.PLANES, "x": None}, ValueError, "FUSED"),
        ({"y": (bad_index, *y.kernel_args(np.float32)[1:])}, ValueError, "y_index"),
        ({"order": _kernels.Order.DIRECT}, ValueError, "DIRECT"),
        ({"x_block": 2}, ValueError, "x_block"),
    ]:
        with pytest.raises(error, match=words):
            make(**change)


def test_integer_direct_step_with_x_blocks_on_long_rows():
    """A ``DIRECT`` integer step whose x table is blocks of 2 (``x_block``) stores its
    sums a chunk at a time (``_pixels_stored``); a row longer than one chunk gives the
    bits of the same step without the block (each chunk reads its own inputs)."""
    rng = np.random.default_rng(21)
    y = taps(1, 1, "nearest")
    for channels in (1, 3):
        n_out = _kernels.INT_ROW_CHUNK // channels + 5
        x = taps(2 * n_out, n_out, "bilinear")
        assert x.block == 2
        src = image(rng, (1, 1, 2 * n_out * channels), np.uint8, None)
        outs = []
        for x_block in (0, 2):
            step = _kernels.make_step(
                _kernels.Kind.FUSED,
                1,
                1,
                2 * n_out * channels,
                y=y.kernel_args(np.float32),
                x=_row_args(x, channels),
                channels=channels,
                order=_kernels.Order.DIRECT,
                x_block=x_block,
                src_dtype=np.uint8,
                dst_dtype=np.uint8,
            )
            outs.append(np.zeros((1, 1, n_out * channels), np.uint8))
            step(src, outs[-1], 1)
        np.testing.assert_array_equal(outs[1], outs[0], err_msg=f"channels {channels}")
        pixels = src.reshape(n_out, 2, channels).astype(np.float32)
        np.testing.assert_array_equal(
            outs[0].reshape(n_out, channels),
            np.rint(0.5 * pixels[:, 0] + 0.5 * pixels[:, 1]).astype(np.uint8),
        )


def test_steps_refuse_sizes_past_the_address_space():
    """``make_step`` refuses a step whose input or output would hold more bytes than any
    array can (``n_planes * in_h * in_row`` past ``sys.maxsize``), instead of sizes
    wrapped around: a step of 2**61 + 1 planes of 4x8 -> 2x4 values would claim 32 -> 8
    values and run 2**62 rows on them."""
    import sys

    y, x = taps(4, 2, "bilinear"), taps(8, 4, "bilinear")
    n = 2**61 + 1
    fused = {"x": _row_args(x, 1), "order": _kernels.Order.VERTICAL_FIRST}
    for kind, extra, dtypes in [
        (_kernels.Kind.FUSED, fused, {"src_dtype": np.uint8, "dst_dtype": np.uint8}),
        (_kernels.Kind.FUSED, fused, {}),
        (_kernels.Kind.PLANES, {}, {}),
    ]:
        with pytest.raises(ValueError, match="more bytes than any array"):
            _kernels.make_step(kind, n, 4, 8, y=y.kernel_args(np.float32), **extra, **dtypes)
    with pytest.raises(ValueError, match="more bytes than any array"):
        _kernels.make_step(_kernels.Kind.LINES, n, 1, 8, x=x.row_args(np.float32))
    with pytest.raises(ValueError, match="more bytes than any array"):  # values fit, bytes not
        _kernels.make_step(_kernels.Kind.LINES, sys.maxsize // 8, 1, 8, x=x.row_args(np.float32))
    step = _kernels.make_step(
        _kernels.Kind.LINES, sys.maxsize // 64, 1, 8, x=x.row_args(np.float32)
    )
    assert step.src_size == sys.maxsize // 64 * 8  # large but possible: made


def test_steps_refuse_a_ring_past_the_address_space():
    """``make_step``'s ``slots`` sizes each call's scratch (a ring of ``slots`` rows, a
    tag per slot): a count whose ring would hold more bytes than any array can is a
    ``ValueError``, not a wrapped size (2**62 slots of 4 values: a scratch of 4 values,
    and the ring written past it)."""
    y, x = taps(4, 8, "bicubic"), taps(8, 4, "bicubic")
    args = {"y": y.kernel_args(np.float32), "x": _row_args(x, 1), "order": _kernels.Order.RING}
    for dtypes in ({"src_dtype": np.uint8, "dst_dtype": np.uint8}, {}):
        with pytest.raises(ValueError, match="slots"):
            _kernels.make_step(_kernels.Kind.FUSED, 1, 4, 8, slots=2**62, **args, **dtypes)
        step = _kernels.make_step(_kernels.Kind.FUSED, 1, 4, 8, slots=2**20, **args, **dtypes)
        src = np.arange(32, dtype=step.src_dtype).reshape(1, 4, 8)
        want = np.empty((1, 8, 4), step.dst_dtype)
        _kernels.make_step(_kernels.Kind.FUSED, 1, 4, 8, slots=4, **args, **dtypes)(src, want, 1)
        got = np.empty_like(want)
        step(src, got, 1)  # more slots than rows: the same bits
        np.testing.assert_array_equal(got, want)


def _row_args(t, channels, dtype=np.float32):
    from cresize import _plan

    return _plan._row_args(t, dtype, channels)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, *DTYPES])
def test_2x2_pixel_pairs(dtype):
    """2x2 blocks of 1-4-value pixels (``_simd_sums.h``: the float32 loops of AVX-512,
    which also read 8-bit rows straight, and the float64 loop of AVX2 keep their products
    in registers) equal the
    documented operations computed by NumPy in the sums' dtype (float32 for 8-bit images,
    float64 for 16-bit ones): ``r = wa*a + wb*b`` per value, then ``(0 + w0*r0) + w1*r1``
    per output, rows of 1-140 output pixels (chunks and their tails)."""
    rng = np.random.default_rng(14)
    kind = np.dtype(dtype)
    sums = np.dtype(np.float64 if kind.itemsize in (2, 8) else np.float32)
    for channels in (1, 2, 3, 4):
        for n in (1, 2, 3, 5, 6, 7, 11, 15, 16, 17, 33, 63, 64, 65, 127, 128, 129, 140):
            shape = (6, 2 * n, channels)
            x = rng.uniform(-3, 3, shape).astype(dtype) if kind.kind == "f" else None
            if x is None:
                x = image(rng, shape, dtype, 2)
            y, t = taps(6, 3, "area"), taps(2 * n, n, "area")
            (yi, yw, _), (xi, xw, _) = y.kernel_args(sums), t.kernel_args(sums)
            v = x.astype(sums)
            r = yw[:, 0, None, None] * v[yi[:, 0]] + yw[:, 1, None, None] * v[yi[:, 1]]
            first = xw[:, 0, None] * r[:, xi[:, 0]]
            second = xw[:, 1, None] * r[:, xi[:, 1]]
            want = (sums.type(0) + first) + second
            if kind.kind != "f":
                info = np.iinfo(dtype)
                want = np.clip(np.rint(want), info.min, info.max).astype(dtype)
            got = cresize.resize(x, (3, n), axes=(0, 1), mode="area")
            p = cresize.plan(x.shape, (3, n), axes=(0, 1), mode="area", dtype=dtype)
            (step,) = p._forward.compiled(x.dtype)
            assert step[4].blocks == (2, 2)  # 8-bit rows: both sums in one sweep
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, err_msg=f"{channels} {n}")


def _edge_values(rng, shape, dtype, channel_axis):
    """Random floats with -0 and infinities among them, or an ``image`` of integers."""
    if np.dtype(dtype).kind != "f":
        return image(rng, shape, dtype, channel_axis)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[::5], flat[1::7], flat[3::13] = -0.0, np.inf, -np.inf
    return x


def _same_bits_at_levels(monkeypatch, p, x, levels, label):
    """``p(x)`` at each of ``levels`` (``CRESIZE_SIMD``; the caller restores it) into an
    ``out`` followed by 16 guard values: the bits of ``levels[0]``, the guard untouched."""
    size = int(np.prod(p.output_shape))
    got = {}
    for level in levels:
        monkeypatch.setenv("CRESIZE_SIMD", level)
        _kernels._init_simd()
        buf = np.full(size + 16, 7, x.dtype)
        p(x, out=buf[:size].reshape(p.output_shape))
        assert (buf[size:] == 7).all(), (level, label)
        got[level] = buf[:size].tobytes()
    for level in levels[1:]:
        assert got[level] == got[levels[0]], (level, label)


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.int8])
def test_2x2_pixel_pairs_at_the_group_ends(monkeypatch, dtype):
    """The AVX-512 pair sums (``CRESIZE_PAIRS16``: 3-value pixels five a step, 1, 2 or
    4 values sixteen output values a step, a row's last step over the values that end
    it, rows shorter than a step under masks) on rows of 1-20 and 110-116 output
    pixels: at every level the bits of the portable loops (``CRESIZE_SIMD=none``), the
    rows' two input rows read as they are (halving both axes) or combined first (area
    thirds of the height), and nothing written past the result."""
    rng = np.random.default_rng(21)
    levels = ("none", "avx2", "avx512")
    try:
        for channels in (1, 2, 3, 4):
            for n in (*range(1, 21), *range(110, 117)):
                for rows in (2, 3):  # y blocks of 2 (a, b), or 3 (combined first)
                    shape = (2 * rows, 2 * n, channels)
                    x = _edge_values(rng, shape, dtype, 2)
                    p = cresize.plan(shape, (2, n), axes=(0, 1), mode="area", dtype=dtype)
                    (step,) = p._forward.compiled(x.dtype)
                    assert step[4].blocks[1] == 2
                    _same_bits_at_levels(monkeypatch, p, x, levels, (channels, n, rows))
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


#: Row widths around the sums' AVX-512 threshold (``CRESIZE_WIDE_ROW``: 128 float64,
#: 384 float32 columns) and the tails of their 512-bit blocks (1-63 columns past them).
ROW_SUM_WIDTHS = (*range(1, 18), 63, 64, 65, 127, 128, 129, 136, 143, 144, 145, 159, 160)
ROW_SUM_WIDTHS += (175, 191, 383, 384, 385, 399, 400, 401, 415, 416, 431, 447, 448)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.int8, np.uint16, np.int16])
def test_row_sums_keep_the_bits_at_every_width(monkeypatch, dtype):
    """The sums of whole rows (``_simd_rows.h``: AVX2 blocks of 4 registers, a register
    at a time, then the scalar loop; at the avx512 level rows of at least
    ``CRESIZE_WIDE_ROW`` columns in 512-bit blocks, then their last columns in one step
    of 1-4 registers, the last under a mask) along the first axis of (H, W) arrays: at
    every level the bits of the portable loops, for 4 taps (bicubic enlarging; a fused
    8/16-bit store where both axes are resized) and 80 (bilinear antialias shrinking by
    40: groups of 32 taps, the later ones adding to the stored sums), and nothing
    written past the result."""
    rng = np.random.default_rng(22)
    levels = ("none", "avx2", "avx512")
    cases = [((7, n), (15,), (0,), "bicubic", False) for n in ROW_SUM_WIDTHS]
    cases += [((200, n), (5,), (0,), "bilinear", True) for n in ROW_SUM_WIDTHS[::3]]
    cases += [((7, n, 3), (15, n + 1), (0, 1), "bicubic", False) for n in (127, 128, 133, 149)]
    try:
        for shape, size, axes, mode, antialias in cases:
            x = _edge_values(rng, shape, dtype, 2 if len(shape) == 3 else None)
            p = cresize.plan(shape, size, axes=axes, mode=mode, antialias=antialias, dtype=dtype)
            _same_bits_at_levels(monkeypatch, p, x, levels, (shape, mode))
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


@pytest.mark.parametrize(
    "dtype, sums",
    [
        (np.float32, np.float32),
        (np.uint8, np.float32),
        (np.int8, np.float32),
        (np.uint16, np.float64),  # the plan's weights for 16-bit images
        (np.int16, np.float64),
        (np.uint16, np.float32),
        (np.int16, np.float32),
    ],
)
def test_2x2_pixel_pairs_with_any_weights(monkeypatch, dtype, sums):
    """The AVX-512 pair sums with x weights that differ (read a step at a time) and with
    x weights that all have the same bits (``Step.same_x_weights``: one register for the
    row), 8-bit rows into 8-bit outputs rounded and stored in the same sweep (or, for
    rows shorter than a step, into floats first), and blocks whose four weights are all
    0.5 (8-bit: summed in 16-bit integers, 16-bit in 32-bit integers, exactly, from
    float32 or float64 weights): at every level the bits of the portable loops, rows of
    1-20 and 110-116 pixels of 1-4 values, the y weights of each row their own (some
    rows 0.5 and 0.5 in the last case), nothing written past the result."""
    rng = np.random.default_rng(33)
    kind = np.dtype(dtype)
    levels = ("none", "avx2", "avx512")
    try:
        for channels in (1, 2, 3, 4):
            for n in (*range(1, 21), *range(110, 117)):
                yi, yw, yc = taps(8, 4, "bilinear").kernel_args(sums)
                xargs = list(_row_args(taps(2 * n, n, "bilinear"), channels, sums))
                for same, half in ((False, False), (True, False), (True, True)):
                    yw = rng.uniform(0.1, 0.9, yw.shape).astype(sums)
                    xw = np.asarray(xargs[1])
                    if half:  # rows 0 and 2 of weights 0.5 and 0.5, rows 1 and 3 not
                        yw[::2] = 0.5
                        xw = np.full_like(xw, 0.5)
                    elif same:
                        xw = np.full_like(xw, 0.3)
                    else:
                        xw = rng.uniform(0.1, 0.9, xw.shape).astype(sums)
                    step = _kernels.make_step(
                        _kernels.Kind.FUSED,
                        1,
                        8,
                        2 * n * channels,
                        y=(yi, yw, yc),
                        x=(xargs[0], xw, *xargs[2:]),
                        channels=channels,
                        order=_kernels.Order.VERTICAL_FIRST,
                        x_block=2,
                        y_block=2,
                        src_dtype=dtype,
                        dst_dtype=dtype,
                    )
                    assert step.same_x_weights is same
                    if kind.kind == "f":
                        src = rng.standard_normal((1, 8, 2 * n * channels)).astype(dtype)
                    else:
                        src = image(rng, (1, 8, 2 * n * channels), dtype, None)
                    size = 4 * n * channels
                    got = {}
                    for level in levels:
                        monkeypatch.setenv("CRESIZE_SIMD", level)
                        _kernels._init_simd()
                        for threads in (1, 2):
                            buf = np.full(size + 16, 7, dtype)
                            step(src, buf[:size].reshape(1, 4, n * channels), threads)
                            assert (buf[size:] == 7).all(), (level, channels, n, same, half)
                            got[level, threads] = buf[:size].tobytes()
                    for key, value in got.items():
                        assert value == got["none", 1], (key, channels, n, same, half)
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


def _blocks_of_every_sum(rng, dtype):
    """Blocks ``a0 a1 / b0 b1`` of ``dtype``, one for every sum ``s = a0 + a1 + b0 + b1``
    the type allows (4 * min ... 4 * max), the sum's remainder spread over random
    places of the block: arrays a0, a1, b0, b1 and s."""
    info = np.iinfo(dtype)
    s = np.arange(4 * int(info.min), 4 * int(info.max) + 1, dtype=np.int64)
    q, r = np.divmod(s - 4 * int(info.min), 4)
    extra = (rng.permuted(np.tile(np.arange(4), (s.size, 1)), axis=1) < r[:, None]).T
    a0, a1, b0, b1 = (q + info.min + e for e in extra)
    return a0, a1, b0, b1, s


def _cpu_has_avx512bw():
    """Whether the level ``avx512`` turns the AVX512BW loops on here (``auto`` shows it)."""
    monkey = pytest.MonkeyPatch()
    try:
        monkey.delenv("CRESIZE_SIMD", raising=False)
        _kernels._init_simd()
        return _kernels.simd_avx512bw()
    finally:
        monkey.undo()
        _kernels._init_simd()


def test_avx512bw_loops_follow_the_level(monkeypatch):
    """The AVX512BW loops run at the avx512 level only, where the CPU has AVX512BW (and
    AVX-512F: the level): ``CRESIZE_SIMD=avx2|sse2|none`` turns them off."""
    has_bw = _cpu_has_avx512bw()
    try:
        for level in ("none", "sse2", "avx2", "avx512", "auto"):
            monkeypatch.setenv("CRESIZE_SIMD", level)
            _kernels._init_simd()
            on = _kernels.simd_level() == "avx512" and has_bw
            assert _kernels.simd_avx512bw() == on, level
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


@pytest.mark.parametrize("dtype", [np.uint16, np.int16])
def test_16bit_halves_of_every_sum(monkeypatch, dtype):
    """16-bit 2x2 blocks of four 0.5 weights (bilinear and area halving), summed in
    32-bit integers at levels avx2 and avx512 (``cresize_halves_u16``,
    ``cresize_halves_s16``; at avx512 their AVX512BW loop where the CPU has it), against the float sums (``CRESIZE_SIMD=none``): a block
    of every sum the type allows (the result depends on the four values only through
    it; 2**18 - 3 of them), each the float result ``rint(s / 4)`` (half to even), at
    every level the same bits, in rows of pixels of 1-5 values and lengths that leave
    every tail, 1 and 2 threads, nothing written past the result."""
    rng = np.random.default_rng(34)
    a0, a1, b0, b1, s = _blocks_of_every_sum(rng, dtype)
    want_all = np.rint(s / 4).astype(dtype)
    levels = ("none", "avx2", "avx512")
    has_bw = _cpu_has_avx512bw()
    try:
        for channels in (1, 2, 3, 4, 5):
            # output pixels a row: every tail of the 8-output (AVX2) and 16- or 15-output
            # (AVX512BW) steps, none (16, 112), the longest (5 pixels of 3 values)
            for width in (1, 2, 3, 5, 6, 7, 8, 9, 16, 37, 112, 113, 4096):
                rows = -(-s.size // (width * channels))  # every block, the last row padded
                take = np.arange(rows * width * channels) % s.size
                blocks = [v[take].reshape(rows, width, channels) for v in (a0, a1, b0, b1)]
                x = np.empty((2 * rows, 2 * width, channels), dtype)
                x[0::2, 0::2], x[0::2, 1::2], x[1::2, 0::2], x[1::2, 1::2] = blocks
                want = want_all[take].reshape(rows, width, channels)
                for mode in ("bilinear", "area"):
                    p = cresize.plan(x.shape, (rows, width), axes=(0, 1), mode=mode, dtype=dtype)
                    (step,) = p._forward.compiled(x.dtype)
                    if channels <= _kernels.MAX_BLOCK_CHANNELS:
                        assert step[4].blocks == (2, 2) and step[4].same_x_weights
                    for level in levels:
                        monkeypatch.setenv("CRESIZE_SIMD", level)
                        _kernels._init_simd()
                        assert _kernels.simd_avx512bw() == (level == "avx512" and has_bw)
                        for threads in (1, 2):
                            buf = np.full(want.size + 8, 7, dtype)
                            p(x, out=buf[: want.size].reshape(want.shape), num_threads=threads)
                            assert (buf[want.size :] == 7).all(), (level, channels, width)
                            label = (level, threads, channels, width, mode)
                            np.testing.assert_array_equal(
                                buf[: want.size].reshape(want.shape), want, err_msg=str(label)
                            )
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


def _block_call(**change):
    """A consistent resize_2d_int call with ``x_block=2`` (uint8 (1, 4, 8 * 3) ->
    (1, 2, 4 * 3) bilinear, 3 values a pixel), with some arguments replaced."""
    args = {
        "src": np.arange(96, dtype=np.uint8).reshape(1, 4, 24),
        "dst": np.zeros((1, 2, 12), np.uint8),
        "channels": 3,
        "y": taps(4, 2, "bilinear").kernel_args(np.float32),
        "x": taps(8, 4, "bilinear").row_args(np.float32),
        "tags": np.empty((1, 1), np.intp),
        "scratch": np.empty((1, 24 + 12), np.float32),
        "num_threads": 1,
        "x_block": 2,
    }
    return _int_args(**{**args, **change})


def test_x_block_is_checked():
    # It was x_values=, an array of the x weights once per value that was checked
    # against the x table and then not read (make_step makes its own): only whether
    # it was given mattered. The block size is what the caller chooses; make_step
    # checks it against the table and builds the weights.
    args = _block_call()
    _kernels.resize_2d_int(**args)
    want = cresize.resize(args["src"].reshape(4, 8, 3), (2, 4), axes=(0, 1))
    np.testing.assert_array_equal(args["dst"].reshape(2, 4, 3), want)
    for threads in (2, 3, 5):  # shares of the rows (_pair_rows), one scratch row each
        again = _block_call(
            num_threads=threads,
            tags=np.empty((threads, 1), np.intp),
            scratch=np.empty((threads, 36), np.float32),
            dst=np.zeros((1, 2, 12), np.uint8),
        )
        _kernels.resize_2d_int(**again)
        np.testing.assert_array_equal(again["dst"], args["dst"])
    ring = {"order": _kernels.Order.RING, "tags": np.empty((1, 2), np.intp)}
    for change in ({"x_block": 0}, ring, {**ring, "x_block": 0}):  # blocks in any order
        plain = _block_call(dst=np.zeros((1, 2, 12), np.uint8), **change)
        _kernels.resize_2d_int(**plain)
        np.testing.assert_array_equal(plain["dst"], args["dst"])
    for change, words in [
        ({"x": taps(8, 4, "bicubic").row_args(np.float32)}, "blocks of 2"),
        ({"x_block": 3}, "blocks of 3"),
        ({"x_block": 1}, "blocks of 1"),
    ]:
        with pytest.raises(ValueError, match=words):
            _kernels.resize_2d_int(**_block_call(**change))
    with pytest.raises(TypeError, match="x_values"):
        _kernels.resize_2d_int(**_block_call(x_values=None))
    assert taps(8, 4, "bilinear").block == 2 and taps(8, 4, "area").block == 2


def test_float_kernel_entry_checks_sizes():
    y, x = taps(6, 4, "bicubic"), taps(8, 3, "bicubic")
    src, dst = np.zeros((1, 6, 8), np.float32), np.zeros((1, 4, 3), np.float32)
    ok = {
        "order": _kernels.Order.VERTICAL_FIRST,
        "scratch": np.empty((1, 8), np.float32),
        "tags": np.empty((1, 1), np.intp),
        "num_threads": 1,
    }

    def call(**change):
        a = {**ok, **change}
        _kernels.resize_2d(
            src,
            dst,
            1,
            *y.kernel_args(np.float32),
            *x.row_args(np.float32),
            a["order"],
            a["scratch"],
            a["tags"],
            a["num_threads"],
        )

    call()
    with pytest.raises(ValueError, match="scratch"):
        call(scratch=np.empty((1, 7), np.float32))
    with pytest.raises(ValueError, match="per thread"):
        call(num_threads=2)
    with pytest.raises(ValueError, match="index"):
        _kernels.gather_lines(
            np.zeros((2, 5), np.float32), np.zeros((2, 3), np.float32), *x.row_args(np.float32), 1
        )
    with pytest.raises(ValueError, match="index"):
        _kernels.gather_planes(
            np.zeros((1, 5, 2), np.float32),
            np.zeros((1, 4, 2), np.float32),
            *y.kernel_args(np.float32),
            1,
        )


SIMD_SCRIPT = r"""
import sys
import numpy as np
import cresize
from cresize import _kernels
rng = np.random.default_rng(11)
results = {"level": np.array(_kernels.simd_level())}
n = 0
MODES = (("nearest", False), ("bilinear", False), ("bicubic", False), ("lanczos3", False),
         ("lanczos3", True), ("bilinear", True), ("area", False))
for dtype in (np.float32, np.float64, np.uint8, np.uint16, np.int16, np.int8):
    for channels in (1, 2, 3, 4, 5):
        if np.dtype(dtype).kind == "f":
            x = rng.uniform(-2, 2, (37, 29, channels)).astype(dtype)
            x[3, 5:9, -1] = -0.0, np.inf, np.nan, -np.inf  # signed zeros, non-finite values
            x[::7, :, 0] = -0.0
        else:
            info = np.iinfo(dtype)
            x = rng.integers(info.min, int(info.max) + 1, (37, 29, channels)).astype(dtype)
        # widths: x2 and x3 enlarging (whole groups of 8 pixels, and a tail), x1.5 and
        # x0.9 (the groups' patterns change), x0.5 (wider spans), x0.24 (the pixel loop)
        for mode, aa in MODES:
            for size in ((80, 58), (11, 87), (37, 44), (20, 26), (37, 15), (9, 7)):
                results[str(n)] = cresize.resize(x, size, axes=(0, 1), mode=mode,
                                                 antialias=aa, num_threads=2)
                n += 1
        for mode, ac in (("bilinear", True), ("bicubic", True), ("nearest-exact", False)):
            results[str(n)] = cresize.resize(x, (61, 64), axes=(0, 1), mode=mode,
                                             align_corners=ac, num_threads=2)
            n += 1
        for mode in ("bilinear", "bicubic", "lanczos3"):  # planes and lines (NCHW)
            results[str(n)] = cresize.resize(np.moveaxis(x, -1, 0), (45, 64), mode=mode)
            results[str(n + 1)] = cresize.resize(x[3, :, :], (70,), axes=(0,), mode=mode)
            n += 2
        # exact factors on an even width: x4 and x2 enlarging, x0.5 and x0.33 shrinking
        wide = np.concatenate([x, x[:, ::-1], x[:, :6]], axis=1)  # width 64
        for mode in ("nearest", "bilinear", "bicubic", "lanczos3"):
            for size in ((20, 256), (20, 128), (20, 32), (20, 21)):
                results[str(n)] = cresize.resize(wide, size, axes=(0, 1), mode=mode)
                n += 1
        for mode in ("bilinear", "area"):  # 2x2 blocks (x_block=2: _simd_sums.h's pairs)
            results[str(n)] = cresize.resize(wide[:36], (18, 32), axes=(0, 1), mode=mode)
            results[str(n + 1)] = cresize.resize(wide[:36, :62], (18, 31), axes=(0, 1),
                                                 mode=mode, num_threads=2)
            n += 2
        batch = np.stack([x[:, ::-1], x[::-1]])[:, 1:]  # (N, H, W, C), strided views
        for mode in ("nearest", "bilinear", "bicubic"):
            results[str(n)] = cresize.resize(batch, (72, 59), axes=(1, 2), mode=mode,
                                             num_threads=3)
            n += 1
# The sums of whole rows (_simd_rows.h): rows of every length modulo the blocks (32
# float32 / 16 float64 values) and the registers (8 / 4), tails of 1-7 values,
# more taps than one group (32), and the ring's sums fused with the integer store.
for dtype in (np.float32, np.float64, np.uint8, np.uint16, np.int16, np.int8):
    for width in (1, 5, 11, 21, 33):
        for channels in (1, 3):
            shape = (70, width, channels)
            if np.dtype(dtype).kind == "f":
                x = rng.uniform(-2, 2, shape).astype(dtype)
            else:
                info = np.iinfo(dtype)  # hard edges: clipped sums, ties
                x = rng.choice(np.array([info.min, info.max, 0, 1], dtype), shape)
                x[::3] = rng.integers(info.min, int(info.max) + 1, x[::3].shape)
            cases = [((151, width + 2), "bicubic", False, (0, 1)),  # RING, fused store
                     ((141, width), "bilinear", False, (0, 1)),
                     ((157, width + 1), "lanczos3", False, (0, 1)),  # 6 taps, fused
                     ((9, width), "lanczos3", True, (0, 1)),  # VERTICAL_FIRST
                     ((2, max(1, width // 2)), "lanczos3", True, (0, 1)),  # > 32 taps
                     ((1, width), "area", False, (0, 1)),  # 70 taps, one row
                     ((23,), "bicubic", True, (0,)),  # whole rows combined, one axis
                     ((131,), "bilinear", False, (0,))]
            for size, mode, aa, axes in cases:
                results[str(n)] = cresize.resize(x, size, axes=axes, mode=mode,
                                                 antialias=aa, num_threads=2)
                n += 1
    x = rng.uniform(-2, 2, (3, 2, 40, 23)).astype(np.float32).astype(dtype, casting="unsafe")
    results[str(n)] = cresize.resize(x, (2, 17, 71), axes=(1, 2, 3), mode="bicubic",
                                     num_threads=2)  # 3 axes: float sums in between
    n += 1
# The integer stores: float sums written straight into integers (clipped, rounded half
# to even) by a DIRECT step of identity tables, rows of 1-70 values (blocks and tails):
# values around the range and beyond, ties of either sign, near-ties.
from cresize._tables import taps
for dtype, sums in ((np.uint8, np.float32), (np.int8, np.float32), (np.uint16, np.float64),
                    (np.int16, np.float64)):
    info = np.iinfo(dtype)
    for width in (1, 7, 15, 16, 17, 31, 32, 33, 47, 64, 70):
        v = rng.integers(int(info.min) - 3, int(info.max) + 4, width)
        v = (v + rng.choice([0, 0.5, -0.5, 0.25, 0.4999, -0.4999], width)).astype(sums)
        step = _kernels.make_step(_kernels.Kind.FUSED, 1, 1, width,
                                  y=taps(1, 1, "nearest").kernel_args(sums),
                                  x=taps(width, width, "nearest").row_args(sums),
                                  src_dtype=sums, dst_dtype=dtype)
        results[str(n)] = np.empty(width, dtype)
        step(v, results[str(n)], 1)
        n += 1
# Backward of x2 enlarging on NCHW planes: sums of whole rows (VERTICAL_FIRST) whose
# rows are short (prefetched ahead, _rows_ahead) or not (300 values), every tap a row
# of the plane itself (cresize_ring_row without the division); planes of fewer output
# rows than the prefetch looks ahead (ROWS_AHEAD): the row ahead is in a later plane.
for dtype in (np.float32, np.float64):
    for shape in ((2, 3, 7, 9), (1, 2, 5, 300), (3, 2, 1, 5), (2, 2, 3, 40)):
        for mode in ("bilinear", "bicubic"):
            g = rng.uniform(-2, 2, shape[:2] + (2 * shape[2], 2 * shape[3])).astype(dtype)
            results[str(n)] = cresize.resize_backward(g, shape, mode=mode, num_threads=2)
            n += 1
np.savez(sys.argv[1], **results)
"""


def test_integer_store_rounds_half_to_even():
    """Float sums stored into integers (an integer step of identity tables): clipped to
    the type's range and rounded half to even, at this CPU's SIMD level, for rows of
    every length modulo the blocks (32 float32 / 16 float64 values): values around the
    range and beyond, ties of either sign, near-ties."""
    rng = np.random.default_rng(13)
    for dtype, sums in (
        (np.uint8, np.float32),
        (np.int8, np.float32),
        (np.uint16, np.float64),
        (np.int16, np.float64),
    ):
        info = np.iinfo(dtype)
        for width in range(1, 80):
            v = rng.integers(int(info.min) - 3, int(info.max) + 4, width)
            v = (v + rng.choice([0, 0.5, -0.5, 1.5, 0.4999, -0.4999], width)).astype(sums)
            step = _kernels.make_step(
                _kernels.Kind.FUSED,
                1,
                1,
                width,
                y=taps(1, 1, "nearest").kernel_args(sums),
                x=taps(width, width, "nearest").row_args(sums),
                src_dtype=sums,
                dst_dtype=dtype,
            )
            out = np.empty(width, dtype)
            step(v, out, 1)
            want = np.clip(np.rint(v.astype(np.float64)), info.min, info.max).astype(dtype)
            np.testing.assert_array_equal(out, want, err_msg=f"{np.dtype(dtype)} {width}")
            assert np.any(v != np.rint(v)) or width < 4


@pytest.mark.parametrize("level", ["none", "sse2", "avx2"])
def test_simd_levels_give_the_same_bits(tmp_path, level):
    """CRESIZE_SIMD (read at import) lowers the SIMD level; every level, the
    portable loops included, gives the same bits: 1-5 channels, every dtype, tap
    counts 1 to 12, whole groups of eight pixels and tails (AVX2 value lanes),
    channels-last images and (N, H, W, C) batches, signed zeros and non-finite floats."""
    import os
    import subprocess
    import sys

    script = tmp_path / "run.py"
    script.write_text(SIMD_SCRIPT)
    files = {}
    for name, env in (("default", "auto"), (level, level)):
        environ = {**os.environ, "CRESIZE_SIMD": env}
        files[name] = tmp_path / f"{name}.npz"
        subprocess.run(
            [sys.executable, str(script), str(files[name])], env=environ, check=True, timeout=300
        )
    default, forced = np.load(files["default"]), np.load(files[level])
    best = _kernels.SIMD_LEVELS.index(str(default["level"]))  # what this CPU has
    assert best >= _kernels.SIMD_LEVELS.index(_kernels.simd_level())
    expect = _kernels.SIMD_LEVELS[min(best, _kernels.SIMD_LEVELS.index(level))]
    assert str(forced["level"]) == expect
    keys = [k for k in default.files if k != "level"]
    assert len(keys) > 1000
    for k in keys:
        np.testing.assert_array_equal(default[k], forced[k], err_msg=k)
        assert default[k].dtype == forced[k].dtype


# ----------------------------------------------------------------------------
# The periodic horizontal pass (Taps.period, _simd_periodic.h): outputs of an
# integer-factor enlarging whose x weights repeat, away from the borders.


def _rows_repeat(t, dtype, period):
    """Rows ``first + s*q + p`` of ``t`` read the window ``start[first + p] + q ...`` with
    the bits of row ``first + p``'s weights (an independent check of ``period``)."""
    s, first, n = period
    index, weight, count = t.kernel_args(dtype)
    rows = first + np.arange(s * n)
    phase = first + (rows - first) % s
    q = (rows - first) // s
    width = index.shape[1]
    return (
        bool(np.all(count[rows] == width))
        and np.array_equal(index[rows], index[phase] + q[:, None])
        and np.array_equal(index[rows], index[rows, :1] + np.arange(width))
        and weight[rows].tobytes() == weight[phase].tobytes()
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_period_of_enlarging_tables(dtype):
    for n_in, mode, s in [
        (1024, "bicubic", 2),
        (2000, "bicubic", 2),
        (100, "bilinear", 4),
        (50, "lanczos3", 2),
        (7, "bilinear", 2),
    ]:
        t = taps(n_in, s * n_in, mode)
        found = t.period(dtype)
        assert found[0] == s, (n_in, mode, found)
        assert _rows_repeat(t, dtype, found)
        # the borders are not periodic (clamped or merged taps): only a few rows left
        first, n = found[1], found[2]
        assert first <= 3 * s and first + s * n >= t.n_out - 3 * s
    # nearest has its own paths; shrinking is not periodic; x3 weights differ in their
    # last bits from row to row ((o + 0.5) / 3 is inexact)
    for t in (
        taps(64, 128, "nearest"),
        taps(128, 64, "bicubic"),
        taps(100, 150, "bicubic"),
        taps(100, 300, "bicubic"),
    ):
        assert t.period(dtype) == (0, 0, 0)
    # a table whose rows repeat, then stop repeating
    from helpers.periodic import phase_table

    t = phase_table(40, 3, 4, 0)
    found = t.period(dtype)
    assert found[0] == 3 and _rows_repeat(t, dtype, found)
    index, weight = (a.copy() for a in t.kernel_args(np.float64)[:2])
    weight[60] *= 1 + 2.0**-20  # one row's weights, a few bits off (in float32 too)
    broken = Taps.from_dense_rows(40, index, weight)
    s, first, n = broken.period(dtype)
    assert s == 3 and _rows_repeat(broken, dtype, (s, first, n))
    assert first > 60 or first + 3 * n <= 60


def test_periodic_pass_keeps_the_bits():
    """Every table of ``helpers.periodic`` (bicubic, bilinear, lanczos3 by 2 and 4,
    periods 2-8 of 1-7 taps, phases the SIMD paths do not take), every dtype, 1-5
    channels, rows with tails: the same bits with the period as without it (the other
    row loops), at this process's SIMD level, on 2 threads as on 1."""
    from helpers.periodic import results, run, tables

    for name, t in tables():
        for dtype in (np.float32, np.float64):
            step = _kernels.make_step(
                _kernels.Kind.LINES, 2, 1, t.n_in, x=t.row_args(dtype, period=True)
            )
            assert step.period == t.period(dtype) != (0, 0, 0), name
    found = results()
    assert len(found) > 900
    for key, (with_period, without) in found.items():
        assert with_period.tobytes() == without.tobytes(), key
    # planar rows (one value a pixel) of LINES steps, and a block's rows (_Slice)
    from cresize import _plan

    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, (5, 3, 4, 37)).astype(np.float32)
    plan = cresize.plan(x.shape, (74,), axes=(3,), mode="bicubic")
    whole = plan(x)
    t = taps(37, 74, "bicubic")
    np.testing.assert_array_equal(
        whole, run(t, x.reshape(-1, 37), 1, False, 1).reshape(whole.shape)
    )
    for start, stop in ((0, 9), (5, 40), (3, 71), (60, 74), (4, 5)):
        region = (slice(None), slice(None), slice(None), slice(start, stop))
        box = plan.input_region(region)
        got = plan.run_region(x[box], region)
        np.testing.assert_array_equal(got, whole[region])
        block = _plan._Slice(t, start, stop, box[3].start, box[3].stop - box[3].start, np.float32)
        if block.period(np.float32)[0]:
            assert _rows_repeat(block, np.float32, block.period(np.float32))
        assert block.period(np.float32)[0] == (2 if (start, stop) != (4, 5) else 0)


def test_wrong_periods_are_refused():
    t = taps(30, 60, "bicubic")
    s, first, n = t.period(np.float32)
    for bad in [
        (2, first - 1, n),
        (2, first, n + 2),
        (3, first, n),
        (1, first, n),
        (2, -1, n),
        (2, first, 0),
    ]:
        with pytest.raises(ValueError, match="period"):
            _kernels.make_step(_kernels.Kind.LINES, 1, 1, 30, x=(*t.row_args(np.float32), bad))
        with pytest.raises(ValueError, match="period"):
            _int_call(
                src=np.zeros((1, 6, 30), np.uint8),
                dst=np.zeros((1, 6, 60), np.uint8),
                y=taps(6, 6, "nearest").kernel_args(np.float32),
                x=(*t.row_args(np.float32), bad),
                order=_kernels.Order.DIRECT,
                scratch=np.empty((2, 60), np.float32),
            )()
    assert _kernels.make_step(
        _kernels.Kind.LINES, 1, 1, 30, x=t.row_args(np.float32, period=True)
    ).period == (s, first, n)


@pytest.mark.parametrize("sums", [np.float32, np.float64])
def test_step_checks_read_the_weights_of_either_dtype(sums):
    """What ``make_step`` works out once from its weights (``_kernels._weights``: the
    float32 or float64 view) for either dtype: a period whose rows repeat with their
    weights' bits (one weight's last bit changed: refused), x weights of the same bits
    (``same_x_weights``; one bit apart: not), weights all 1 (``unit_blocks``), and
    the least positive x weight of ``first_product`` rows (a row of -0 products: -0)."""
    t = taps(30, 60, "bicubic")
    period = t.period(sums)
    args = list(t.row_args(sums, period=True))
    assert _kernels.make_step(_kernels.Kind.LINES, 1, 1, 30, x=tuple(args)).period == period
    s, first, _ = period
    weight = np.array(args[1])
    weight[first + s, 0] = np.nextafter(weight[first + s, 0], sums(2))  # a repeat, not the bits
    with pytest.raises(ValueError, match="period"):
        _kernels.make_step(_kernels.Kind.LINES, 1, 1, 30, x=(args[0], weight, *args[2:]))
    y = taps(8, 4, "bilinear").kernel_args(sums)
    x = list(_row_args(taps(8, 4, "bilinear"), 1, sums))
    for xw, yw, same, unit in [
        (np.full_like(x[1], 0.5), y[1], True, False),
        (np.full_like(x[1], 1), np.full_like(y[1], 1), True, True),
        (
            np.where(
                np.arange(x[1].size).reshape(x[1].shape) == 5, np.nextafter(sums(0.5), sums(1)), 0.5
            ).astype(sums),
            y[1],
            False,
            False,
        ),
    ]:
        step = _kernels.make_step(
            _kernels.Kind.FUSED,
            1,
            8,
            8,
            y=(y[0], yw, y[2]),
            x=(x[0], xw, *x[2:]),
            order=_kernels.Order.VERTICAL_FIRST,
            x_block=2,
            y_block=2,
        )
        assert (step.same_x_weights, step.unit_blocks) == (same, unit)
    # first_product: a row of products that all underflow to -0 comes out -0 (found
    # through the least positive weight, 1/4 here); with +0 products +0.
    one = taps(1, 1, "nearest").kernel_args(sums)
    step = _kernels.make_step(
        _kernels.Kind.FUSED,
        1,
        1,
        16,
        y=one,
        x=taps(16, 4, "area").row_args(sums),
        order=_kernels.Order.DIRECT,
        first_product=True,
    )
    src = np.full((1, 1, 16), np.nextafter(sums(0), sums(-1)), sums)
    src[0, 0, 4:8] = 0.0
    got = np.empty((1, 1, 4), sums)
    step(src, got, 1)
    assert (got == 0).all() and list(np.signbit(got[0, 0])) == [True, False, True, True]


@pytest.mark.parametrize(("dtype", "channels"), [(np.uint8, 1), (np.uint8, 3), (np.int16, 1)])
def test_periodic_pass_on_integer_rows_longer_than_a_chunk(dtype, channels):
    """An integer row of more than ``INT_ROW_CHUNK`` output values is resampled a chunk
    at a time (``_pixels_stored``, scratch of a chunk): each chunk takes the periodic
    outputs inside it, so the bits are those of the row without the period (and
    nothing is written past the chunk's scratch)."""
    from helpers.periodic import image, run

    rng = np.random.default_rng(11)
    n_in = _kernels.INT_ROW_CHUNK // channels + 37  # two chunks and a tail of outputs
    t = taps(n_in, 2 * n_in, "bicubic")
    assert t.period(np.float32)[0] == 2
    x = image(rng, (3, n_in * channels), dtype)
    want = run(t, x, channels, False, 1)
    for threads in (1, 2):
        assert run(t, x, channels, True, threads).tobytes() == want.tobytes()
    shape = (3, n_in) if channels == 1 else (3, n_in, channels)
    got = cresize.resize(x.reshape(shape), (2 * n_in,), axes=(1,), mode="bicubic", num_threads=2)
    assert got.reshape(3, -1).tobytes() == want.tobytes()


@pytest.mark.parametrize("channels", [1, 3])
def test_periodic_pass_on_shares_of_a_row(channels):
    """A ``first_product`` step with fewer rows than threads shares each row's pixels
    out (``_pixels_part``): each share takes the periodic outputs inside it."""
    t, one = taps(1001, 2002, "bicubic"), taps(1, 1, "nearest")
    x = np.random.default_rng(5).uniform(-2, 2, (1, 1, 1001 * channels)).astype(np.float32)
    found = []
    for period in (True, False):
        step = _kernels.make_step(
            _kernels.Kind.FUSED,
            1,
            1,
            x.shape[2],
            y=one.kernel_args(np.float32),
            x=t.row_args(np.float32, period=period),
            channels=channels,
            order=_kernels.Order.DIRECT,
            first_product=True,
        )
        assert step.period[0] == (2 if period else 0)
        dst = np.zeros((1, 1, 2002 * channels), np.float32)
        step(x, dst, 2)
        found.append(dst.tobytes())
    assert found[0] == found[1]


@pytest.mark.parametrize("level", ["none", "sse2", "avx2", "avx512"])
def test_periodic_pass_gives_the_same_bits_at_every_simd_level(tmp_path, level):
    """The cases of ``test_periodic_pass_keeps_the_bits`` in a child per
    ``CRESIZE_SIMD`` level: with the period, the bits of the other loops at that level
    and of every case at the best level."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parent / "helpers" / "periodic.py"
    files = {}
    for name in ("auto", level):
        files[name] = tmp_path / f"{name}.npz"
        environ = {**os.environ, "CRESIZE_SIMD": name}
        subprocess.run(
            [sys.executable, str(script), str(files[name])], env=environ, check=True, timeout=300
        )
    best, forced = np.load(files["auto"]), np.load(files[level])
    top = _kernels.SIMD_LEVELS.index(str(best["level"]))
    assert str(forced["level"]) == _kernels.SIMD_LEVELS[min(top, _kernels.SIMD_LEVELS.index(level))]
    keys = [k for k in best.files if k.endswith("|0")]
    assert len(keys) > 900
    for k in keys:
        other = k[:-1] + "1"
        assert forced[k].tobytes() == forced[other].tobytes(), k  # with = without the period
        assert forced[k].tobytes() == best[k].tobytes(), k  # = the best level
        assert forced[k].dtype == best[k].dtype


# ----------------------------------------------------------------------------
# 16-bit rows summed exactly in float32 (_plan.exact_in_float32, docs/kernels.md)


def test_exact_float32_rule():
    """Dyadic weights whose sums stay below 2**24 units of their last bit pass; weights
    that are not dyadic, or whose bound reaches 2**24, do not."""
    from cresize._plan import exact_in_float32

    def rows(n_in, n_out, mode, align_corners=False):
        t = taps(n_in, n_out, mode, align_corners)
        s, first, _ = t.period(np.float64)
        weight = t.kernel_args(np.float64)[1]
        return weight[first : first + s] if s else weight

    for n_out, mode in ((200, "bilinear"), (200, "bicubic"), (400, "bilinear"), (800, "bilinear")):
        assert exact_in_float32(rows(100, n_out, mode), 2**15), (n_out, mode)
    for args in (
        (100, 400, "bicubic"),  # dyadic (2**-11) but 2**15 * 1.2 * 2**11 > 2**24
        (100, 200, "lanczos3"),  # not dyadic
        (100, 200, "bicubic", True),  # align_corners: not dyadic
        (100, 300, "bilinear"),  # x3: thirds
        (100, 150, "bicubic"),  # x1.5
    ):
        assert not exact_in_float32(rows(*args), 2**15), args
    half = np.array([[0.5, 0.5], [0.25, 0.75]])
    assert exact_in_float32(half, 2**21)  # 2**21 * 1 * 2**2 = 2**23
    assert not exact_in_float32(half, 2**22)  # = 2**24: the bound is strict
    assert not exact_in_float32(np.array([[1 + 2.0**-30, 0.0]]), 1)  # 2**-30: F > 23
    assert not exact_in_float32(np.array([[np.nan, 1.0]]), 1)
    assert not exact_in_float32(np.zeros((0, 2)), 1)


def _plan_steps(shape, size, mode, dtype, align_corners=False):
    p = cresize.plan(shape, size, axes=(0, 1), mode=mode, dtype=dtype, align_corners=align_corners)
    return [s[4] for s in p._forward.compiled(np.dtype(dtype)) if s[4]]


def test_plans_sum_16_bit_rows_in_float32_where_exact():
    for dtype in (np.uint16, np.int16):
        for size, mode in (
            ((200, 1400), "bicubic"),
            ((200, 1400), "bilinear"),
            ((400, 2800), "bilinear"),
        ):
            (step,) = _plan_steps((100, 700, 3), size, mode, dtype)
            assert step.period[0] >= 2 and step.exact_float32, (dtype, size, mode)
        for size, mode, corners in (
            ((400, 2800), "bicubic", False),
            ((200, 1400), "lanczos3", False),
            ((200, 1400), "bicubic", True),
        ):
            (step,) = _plan_steps((100, 700, 3), size, mode, dtype, corners)
            assert not step.exact_float32, (dtype, size, mode, corners)
    for dtype in (np.uint8, np.float32, np.float64):  # 16-bit integers only
        for step in _plan_steps((100, 700, 3), (200, 1400), "bicubic", dtype):
            assert not step.exact_float32


def test_exact_float32_sums_need_16_bit_pixels():
    t = taps(30, 60, "bicubic")
    period = (*t.period(np.float64), True)
    for src, sums in ((np.uint8, np.float32), (np.float64, np.float64), (np.uint16, np.float32)):
        with pytest.raises(ValueError, match="16-bit"):
            _kernels.make_step(
                _kernels.Kind.FUSED,
                1,
                1,
                30,
                y=taps(1, 1, "nearest").kernel_args(sums),
                x=(*t.row_args(sums), (*t.period(sums), True)),
                order=_kernels.Order.DIRECT,
                src_dtype=src,
                dst_dtype=src,
            )
    step = _kernels.make_step(
        _kernels.Kind.FUSED,
        1,
        1,
        30,
        y=taps(1, 1, "nearest").kernel_args(np.float64),
        x=(*t.row_args(np.float64), period),
        order=_kernels.Order.DIRECT,
        src_dtype=np.uint16,
        dst_dtype=np.uint16,
    )
    assert step.exact_float32 and step.period == period[:3]


def _hard_edges(dtype, shape, seed):
    """Checkerboards of the extremes, runs of each, random values: sums at both ends."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    h, w, c = shape
    board = (np.add.outer(np.arange(h), np.arange(w)) % 2).astype(bool)
    x = np.where(board[:, :, None], info.max, info.min).astype(dtype).repeat(c, axis=2)
    x[h // 3 : h // 2] = info.max
    x[:, w // 3 : w // 2] = info.min
    x[2 * h // 3 :] = rng.integers(info.min, int(info.max) + 1, x[2 * h // 3 :].shape)
    return x


@pytest.mark.parametrize("dtype", [np.uint16, np.int16])
@pytest.mark.parametrize("channels", [1, 3, 4])
def test_exact_float32_sums_keep_the_bits(dtype, channels, monkeypatch):
    """Every geometry the rule takes (x2 bilinear and bicubic, x4 and x8 bilinear, two
    axes of different factors), hard-edged images, 1 and 2 threads: the bits of the
    plans without the rule, and ``clip(rint(resize(x.astype(float64))))``."""
    from cresize import _plan

    x = _hard_edges(dtype, (37, 1031 // channels + 5, channels), 1)
    info = np.iinfo(dtype)
    for factors, mode in (
        ((2, 2), "bicubic"),
        ((2, 2), "bilinear"),
        ((4, 4), "bilinear"),
        ((3, 8), "bilinear"),
        ((1, 2), "bicubic"),
    ):
        size = (x.shape[0] * factors[0], x.shape[1] * factors[1])
        (step,) = _plan_steps(x.shape, size, mode, dtype)
        assert step.exact_float32, (factors, mode)
        want = np.clip(
            np.rint(cresize.resize(x.astype(np.float64), size, axes=(0, 1), mode=mode)),
            info.min,
            info.max,
        ).astype(dtype)
        for threads in (1, 2):
            got = cresize.resize(x, size, axes=(0, 1), mode=mode, num_threads=threads)
            assert got.tobytes() == want.tobytes(), (factors, mode, threads)
        with monkeypatch.context() as m:
            m.setattr(_plan, "exact_in_float32", lambda weights, magnitude: False)
            _plan.clear_cache()
            (plain,) = _plan_steps(x.shape, size, mode, dtype)
            assert not plain.exact_float32
            got = cresize.resize(x, size, axes=(0, 1), mode=mode, num_threads=2)
        _plan.clear_cache()
        assert got.tobytes() == want.tobytes(), (factors, mode)
    # a plan's blocks of rows (_Slice: the rule on the block's own phase rows)
    plan = cresize.plan(x.shape, size, axes=(0, 1), mode=mode, dtype=dtype)
    for region in ((slice(0, 50), slice(3, size[1] - 9)), (slice(10, None), slice(601, None))):
        region = (*region, slice(None))
        box = plan.input_region(region)
        assert plan.run_region(x[box], region).tobytes() == want[region].tobytes(), region


GUARD_SCRIPT = r"""
_plan.MIN_WORK_PER_THREAD = 1  # (read as plans compile) the rows split between threads
rng = np.random.default_rng(4)
levels = []
cases = 0
for level in ("none", "avx2", "avx512"):
    os.environ["CRESIZE_SIMD"] = level
    _kernels._init_simd()
    levels.append(_kernels.simd_level())
    for dtype in (np.float32, np.uint8, np.int8, np.uint16, np.int16):
        for channels in (1, 2, 3, 4, 5):
            for n in (*range(1, 24), 31, 32, 33, 110, 113):
                rows = 1 if n % 2 else 5  # 5 rows: split between 2 threads
                shape = (2 * rows, 2 * n, channels)
                p = cresize.plan(shape, (rows, n), axes=(0, 1), mode="area", dtype=dtype)
                x = rng.integers(-100, 100, shape).astype(dtype)
                want = p(x, num_threads=1)
                cases += check_guarded(p, x, want)
print(",".join(levels), cases)
"""


def test_pair_sums_read_and_write_nothing_past_the_arrays(tmp_path):
    """The 2x2 pair sums (``CRESIZE_PAIRS16`` at the avx512 level: a row's last step
    over the values that end it, short rows under masks, 8-bit ones through a 16-byte
    copy; the buffered and portable loops below it) on an input that ends (or begins)
    at a page the process may not touch, into an ``out`` guarded the same way, its rows
    split between two threads: 1-5 values a pixel, rows of 1-113 output pixels, float32,
    8-bit and 16-bit (the 16-bit halves, ``cresize_halves_u16``: AVX2, and at the avx512
    level the AVX512BW loop's masked tail), at every level the CPU has. In a child process: a read or write past
    either array is a segmentation fault there, not here."""
    levels, cases = run_guarded(tmp_path, GUARD_SCRIPT, timeout=300).split()
    assert int(cases) == 3 * 5 * 5 * 28 * 2
    assert levels.split(",")[0] == "none"
