"""The direct path of a plan's call (``_fast.PlanBase``) and of a repeated ``resize`` /
``resize_backward`` (``_fast.cached_resize``): into a valid ``out=`` and from a strided
or unaligned input (copied), with the bits of the checked path (``Plan._run``) and its
errors for everything it refuses."""

import pickle

import numpy as np
import pytest

import cresize
from cresize import _plan

#: (input shape, size, axes): 1-D to 3-D, up and down, a batch, channels last, empty.
GEOMETRIES = [
    ((13,), (29,), None),
    ((3, 40), (7,), None),
    ((9, 11), (17, 4), None),
    ((6, 5, 3), (11, 2), (0, 1)),
    ((4, 2, 9, 7), (5, 12), None),
    ((0, 8, 8), (4, 4), None),
]
DTYPES = [np.float32, np.float64, np.uint8, np.uint16]


def _array(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "u":
        return rng.integers(0, np.iinfo(dtype).max, shape, endpoint=True).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def _checked(p, x, out=None, backward=False):
    """The checked path, as ``p(x, out)`` took it before the direct one did."""
    if backward:
        return p._run(p._backward, x, out, p.output_shape, p.input_shape, "grad_output", None)
    return p._run(p._forward, x, out, p.input_shape, p.output_shape, "x", None)


def _sentinel(shape, dtype):
    """An ``out`` whose every value the result must overwrite."""
    fill = np.iinfo(dtype).max // 3 if np.dtype(dtype).kind == "u" else np.nan
    return np.full(shape, fill, dtype)


def _refuse_checked(monkeypatch):
    """Make the checked path (``_plan._execute``) an error from now on."""

    def refuse(*args):
        raise AssertionError("the checked path ran")

    monkeypatch.setattr(_plan, "_execute", refuse)


def _strided_views(x):
    """Views of ``x``'s values that are not C-contiguous or not aligned (and ``x``'s
    C-contiguous copy): every other element, reversed, Fortran order, unaligned."""
    twice = np.repeat(x, 2, axis=-1)[..., ::2] if x.ndim else x
    flipped = np.flip(np.ascontiguousarray(np.flip(x)))
    raw = np.zeros(x.nbytes + 1, np.uint8)
    unaligned = np.ndarray(x.shape, x.dtype, raw, 1)
    unaligned[...] = x
    return [twice, flipped, np.asfortranarray(x), unaligned]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: f"{g[0]}->{g[1]}")
def test_out_takes_the_direct_steps_with_the_checked_bits(geometry, dtype, monkeypatch):
    shape, size, axes = geometry
    p = cresize.plan(shape, size, axes=axes, mode="bicubic", dtype=dtype)
    x = _array(shape, dtype)
    g = _array(p.output_shape, dtype, seed=1)
    want = _checked(p, x)  # the references: the checked path itself
    want_g = _checked(p, g, backward=True) if p.dtype.kind == "f" else None
    originals = [a.copy() for a in (x, g)]
    cases = [(p, x, want, p.output_shape)]
    if want_g is not None:
        cases.append((p.backward, g, want_g, p.input_shape))
    _refuse_checked(monkeypatch)
    for run, given, expected, out_shape in cases:
        out = _sentinel(out_shape, dtype)
        assert run(given, out=out) is out
        np.testing.assert_array_equal(out, expected, strict=True)
        for view in _strided_views(given):
            out = _sentinel(out_shape, dtype)
            assert run(view, out) is out
            np.testing.assert_array_equal(out, expected, strict=True)
            got = run(view)
            np.testing.assert_array_equal(got, expected, strict=True)
            assert got.flags.c_contiguous and got is not view
            np.testing.assert_array_equal(view, given)  # the caller's input untouched
    np.testing.assert_array_equal(x, originals[0], strict=True)
    np.testing.assert_array_equal(g, originals[1], strict=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_broadcast_gradient_and_large_strided_inputs_are_copied(dtype, monkeypatch):
    """A stride-0 gradient (``y.sum().backward()``'s) and a strided input well past the
    PyTorch adapter's old 16384-value copy bound take the direct steps too."""
    p = cresize.plan((1, 3, 160, 120), (80, 96), dtype=dtype)
    x = _array((1, 3, 240, 160), dtype)[:, :, ::-1][:, :, 40:200, :120]  # 57600 values
    ones = np.broadcast_to(dtype(1), p.output_shape)
    want, want_g = _checked(p, x), _checked(p, ones, backward=True)
    _refuse_checked(monkeypatch)
    np.testing.assert_array_equal(p(x), want, strict=True)
    np.testing.assert_array_equal(p.backward(ones), want_g, strict=True)
    out = np.empty(p.input_shape, dtype)
    assert p.backward(ones, out=out) is out
    np.testing.assert_array_equal(out, want_g, strict=True)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32, np.float64, np.int64])
def test_small_strided_inputs_are_copied_by_the_loop_with_numpys_bits(dtype):
    """``Direct.source`` copies a strided array of at most ``_fast.loop_copy_limit()``
    values by its own loop (``_loop_copy``), a larger one by NumPy: the bits of the
    array's C-contiguous copy either way, for every kind of view (zero, negative and
    odd strides, unaligned, 1 to 4 dimensions)."""
    from cresize import _fast

    limit = _fast.loop_copy_limit()
    cases = [((3, 5, 6), (4, 9), (1, 2)), ((7,), (12,), None), ((2, 1, 3, 4), (5, 2), (2, 3))]
    try:
        for shape, size, axes in cases:
            p = cresize.plan(shape, size, axes=axes, dtype=dtype)
            x = _array(shape, dtype)
            views = [
                *_strided_views(x),
                np.broadcast_to(x.flat[0], shape),  # y.sum().backward()'s
                np.broadcast_to(x[..., :1], shape),
                np.moveaxis(np.ascontiguousarray(np.moveaxis(x, 0, -1)), -1, 0),
            ]
            runs = [(p, views, shape)]
            if p.dtype.kind == "f":
                g = _array(p.output_shape, dtype, seed=1)
                gviews = [*_strided_views(g), np.broadcast_to(g.flat[0], p.output_shape)]
                runs.append((p.backward, gviews, p.output_shape))
            for run, given, given_shape in runs:
                assert np.prod(given_shape) <= limit  # the loop's, by default
                for view in given:
                    want = run(np.ascontiguousarray(view))
                    for bound in (limit, 0):  # the loop, then NumPy's copy
                        _fast.loop_copy_limit(bound)
                        np.testing.assert_array_equal(run(view), want, strict=True)
                    _fast.loop_copy_limit(limit)
    finally:
        _fast.loop_copy_limit(limit)


def _error(call, *args, **kwargs):
    """The type and message of the error ``call(*args, **kwargs)`` raises."""
    try:
        call(*args, **kwargs)
    except (TypeError, ValueError) as exc:
        return type(exc), str(exc)
    raise AssertionError("no error")


def _wrong_outs(shape, dtype, x):
    """``x`` in a buffer, and ``out`` arrays the checked path refuses by the words of its
    error: one of them shares the buffer's bytes with that ``x``."""
    n = int(np.prod(shape))
    buffer = np.zeros(x.size + n, dtype)
    within = buffer[: x.size].reshape(x.shape)
    within[...] = x
    read_only = np.empty(shape, dtype)
    read_only.flags.writeable = False
    raw = np.zeros(n * dtype.itemsize + 1, np.uint8)
    return within, {
        "shape": np.empty(shape[:-1] + (shape[-1] + 1,), dtype),
        "dtype": np.empty(shape, np.float64 if dtype == np.float32 else np.float32),
        "native-order": np.empty(shape, dtype.newbyteorder()),
        "C-contiguous": np.empty(shape[::-1], dtype).T,
        "writeable": read_only,
        "aligned": np.ndarray(shape, dtype, raw, 1),
        "share memory": buffer[x.size - 1 : x.size - 1 + n].reshape(shape),
        "NumPy array": np.empty(shape, dtype).tolist(),
    }


@pytest.mark.parametrize("backward", [False, True])
def test_wrong_out_is_refused_with_the_checked_paths_error(backward):
    p = cresize.plan((12, 10), (6, 15), dtype="float32")
    shape = p.input_shape if backward else p.output_shape
    x = _array(p.output_shape if backward else p.input_shape, np.float32)
    within, outs = _wrong_outs(shape, p.dtype, x)
    run = p.backward if backward else p
    for what, out in outs.items():
        if what == "share memory":
            x = within
        before = x.copy()
        expected = _error(_checked, p, x, out, backward)
        assert what in expected[1], (what, expected)
        assert _error(run, x, out=out) == expected, what
        # a repeated resize / resize_backward (its one-look-up path) says the same
        if backward:
            cresize.resize_backward(x, shape, axes=(0, 1))
            got = _error(cresize.resize_backward, x, shape, axes=(0, 1), out=out)
        else:
            cresize.resize(x, (6, 15), axes=(0, 1))
            got = _error(cresize.resize, x, (6, 15), axes=(0, 1), out=out)
        assert got == expected, what
        np.testing.assert_array_equal(x, before, strict=True)


def test_out_in_the_inputs_range_sharing_no_byte_is_decided_exactly():
    """An ``out`` between the rows of a strided input: the address ranges overlap, so
    the checked path decides (``np.shares_memory``) and accepts it."""
    buffer = _array((9, 8), np.float32)
    x = buffer[::2]  # rows 0, 2, 4, 6, 8
    p = cresize.plan(x.shape, (1,), axes=0, mode="area", dtype="float32")
    out = buffer[3:4]  # row 3: inside x's range, none of its bytes
    want = p(x.copy())
    before = x.copy()
    assert p(x, out=out) is out
    np.testing.assert_array_equal(out, want, strict=True)
    np.testing.assert_array_equal(x, before, strict=True)
    with pytest.raises(ValueError, match="out must not share memory with the input"):
        p(x, out=buffer[4:5])


@pytest.mark.parametrize("dtype", DTYPES)
def test_repeated_resize_into_out_takes_the_direct_steps(dtype, monkeypatch):
    """``resize(x, out=out)`` and ``resize_backward(g, out=out)``, repeated: the cached
    plan's direct steps (strided inputs copied), the first call's bits, ``out`` itself."""
    x = _array((2, 3, 17, 13), dtype)
    size = (9, 24)
    want = cresize.resize(x, size, mode="lanczos3")
    out = _sentinel(want.shape, dtype)
    assert cresize.resize(x, size, mode="lanczos3", out=out) is out
    np.testing.assert_array_equal(out, want, strict=True)
    floats = np.dtype(dtype).kind == "f"
    if floats:
        want_g = cresize.resize_backward(want, x.shape, mode="lanczos3")

    def refuse(*args):
        raise AssertionError("the checked path ran")

    monkeypatch.setattr(_plan, "_execute", refuse)
    for given in [x, *_strided_views(x)]:
        out = _sentinel(want.shape, dtype)
        assert cresize.resize(given, size, mode="lanczos3", out=out) is out
        np.testing.assert_array_equal(out, want, strict=True)
        np.testing.assert_array_equal(cresize.resize(given, size, mode="lanczos3"), want)
    if floats:
        for given in [want, *_strided_views(want)]:
            out = _sentinel(x.shape, dtype)
            got = cresize.resize_backward(given, x.shape, mode="lanczos3", out=out)
            assert got is out
            np.testing.assert_array_equal(out, want_g, strict=True)


def _equal_dtype_copies(dtype):
    """Dtypes equal to ``dtype`` but not NumPy's builtin instance of it, as arrays carry
    them: an unpickled array's (multiprocessing, joblib), ``newbyteorder("=")``'s, one
    with metadata."""
    d = np.dtype(dtype)
    copies = [
        pickle.loads(pickle.dumps(np.zeros(1, d))).dtype,
        d.newbyteorder("=").newbyteorder("="),
        np.dtype(d, metadata={"units": "m"}),
    ]
    assert all(c == d and c is not d for c in copies)  # else this test tests nothing
    return copies


@pytest.mark.parametrize("dtype", DTYPES)
def test_arrays_of_an_equal_dtype_take_the_direct_steps(dtype, monkeypatch):
    """An array whose dtype equals the plan's but is another instance of it (an
    unpickled array's: 3-5x the call's time on the checked path) and an ``out`` of one
    take the direct steps, with the checked path's bits."""
    p = cresize.plan((2, 9, 11), (13, 6), mode="bicubic", dtype=dtype)
    x = _array(p.input_shape, dtype)
    g = _array(p.output_shape, dtype, seed=1)
    floats = np.dtype(dtype).kind == "f"
    want = _checked(p, x)
    want_g = _checked(p, g, backward=True) if floats else None
    assert cresize.resize(x, (13, 6), mode="bicubic").tobytes() == want.tobytes()  # cached
    _refuse_checked(monkeypatch)
    for d in _equal_dtype_copies(dtype):
        xd = x.view(d)
        flipped = np.ascontiguousarray(x[..., ::-1]).view(d)[..., ::-1]  # strided: copied
        assert xd.dtype is d and flipped.dtype is d
        for given in [xd, flipped]:
            np.testing.assert_array_equal(p(given), want, strict=True)
            got = cresize.resize(given, (13, 6), mode="bicubic")
            np.testing.assert_array_equal(got, want, strict=True)
            out = _sentinel(want.shape, dtype).view(d)
            assert p(given, out=out) is out
            assert out.tobytes() == want.tobytes()
            out = _sentinel(want.shape, dtype).view(d)
            assert cresize.resize(x, (13, 6), mode="bicubic", out=out) is out
            assert out.tobytes() == want.tobytes()
        if floats:
            gd = g.view(d)
            np.testing.assert_array_equal(p.backward(gd), want_g, strict=True)
            out = _sentinel(want_g.shape, dtype).view(d)
            assert p.backward(gd, out=out) is out
            assert out.tobytes() == want_g.tobytes()


#: A repeated call's arguments and a call differing from it in one of them (its key),
#: each with the arguments of a plan of the second call.
_LAST_KEY_VARIANTS = [
    ({"size": (4, 6)}, {"size": (4, 5)}),
    ({"size": (4, 6)}, {"size": 4}),
    ({"size": (4, 6)}, {"size": (4, 6), "mode": "bicubic"}),
    ({"size": (4, 6)}, {"size": (4, 6), "align_corners": True}),
    ({"size": (4, 6)}, {"size": (4, 6), "antialias": True}),
    ({"size": (4, 6)}, {"size": 5, "axes": (1,)}),
    ({"scale_factor": (0.5, 0.75)}, {"scale_factor": (0.5, 0.5)}),
    ({"scale_factor": (0.5, 0.75)}, {"size": (4, 6)}),
]


@pytest.fixture(params=[1, 32], ids=["one-slot", "slots"])
def recent_slots(request):
    """``cached_resize`` with one slot (every call meets the last call's key) or all."""
    from cresize import _fast

    before = _fast.recent_slots(request.param)
    yield request.param
    _fast.recent_slots(before)


@pytest.mark.parametrize(("first", "then"), _LAST_KEY_VARIANTS)
@pytest.mark.parametrize("backward", [False, True])
def test_a_call_answers_from_the_last_calls_plan_only_with_its_key(
    first, then, backward, recent_slots
):
    """``cached_resize`` remembers the last call that found its plan in its slot
    (``_fast._Last``): a call that differs from it in one argument, the shape or the
    dtype gets its own plan's bits, and equal arguments of other objects the remembered
    plan's."""
    cresize.clear_cache()
    x = _array((2, 8, 12), np.float32)

    def call(a, args, backward):
        if backward:  # the gradient's shape stands for the size
            args = {k: v for k, v in args.items() if k != "size"}
            return cresize.resize_backward(a, x.shape, **args)
        return cresize.resize(a, **args)

    def want(a, args, backward):
        return _checked(cresize.plan(x.shape, **args, dtype=a.dtype), a, backward=backward)

    inputs = {}
    for args in (first, then):
        for dtype in (np.float32, np.float64):
            a = x.astype(dtype)
            if backward:
                a = cresize.resize(a, **args)
            inputs[id(args), dtype] = (a, want(a, args, backward))
            call(a, args, backward)  # each key in the table (a new entry forgets the last)
    # Every call after another's key: a look-up, or the last call's plan, rightly.
    order = [(args, dtype) for args in (first, then) for dtype in (np.float32, np.float64)]
    for args, dtype in order + order[::-1] + order[::2] + order[1::2]:
        a, expected = inputs[id(args), dtype]
        for _ in range(2):
            np.testing.assert_array_equal(call(a, args, backward), expected, strict=True)
    # Equal arguments in new objects: the remembered plan (a hit, no look-up needed).
    a = x if not backward else cresize.resize(x, **then)
    hits = cresize.cache_info()["hits"]
    copied = {k: tuple(v) if isinstance(v, tuple) else v for k, v in then.items()}
    np.testing.assert_array_equal(call(a.copy(), copied, backward), want(a, then, backward))
    assert cresize.cache_info()["hits"] >= hits + 1
    # A bool is not the int it equals, even right after that int's call.
    cresize.resize(x, (1, 1))
    with pytest.raises(TypeError, match="size"):
        cresize.resize(x, (True, True))


def test_a_backward_call_never_takes_a_forward_calls_slot(recent_slots):
    """A forward and a backward call with the same arguments (1-D: ``resize(x8, (4,))``
    and ``resize_backward(g8, (4,))``) are different plans: each call, alternating in
    one slot, finds its own (a hit each), never the other direction's."""
    cresize.clear_cache()
    x = _array((8,), np.float32)
    want_fwd = _checked(cresize.plan((8,), (4,)), x)
    want_bwd = _checked(cresize.plan((4,), (8,)), x, backward=True)
    cresize.resize(x, (4,))
    cresize.resize_backward(x, (4,))
    hits = cresize.cache_info()["hits"]
    for _ in range(3):
        np.testing.assert_array_equal(cresize.resize(x, (4,)), want_fwd, strict=True)
        np.testing.assert_array_equal(cresize.resize_backward(x, (4,)), want_bwd, strict=True)
    assert cresize.cache_info()["hits"] == hits + 6


def test_recent_slots_are_checked():
    from cresize import _fast

    for bad in (0, 3, 64, 2.0, True):
        with pytest.raises(ValueError, match="power of two"):
            _fast.recent_slots(bad)


def test_the_last_calls_plan_is_forgotten_with_the_cache(recent_slots):
    """``clear_cache`` (and a cache bound that drops every plan) forgets the last call's
    plan: the next call plans anew (a miss) though the plan lives on, held elsewhere; and
    the plan is held only weakly (it goes when nothing else holds it)."""
    import gc
    import weakref

    x = _array((9, 10), np.float32)
    for forget in (cresize.clear_cache, lambda: cresize.set_cache_limit(0)):
        limit = cresize.set_cache_limit(2**30)
        cresize.clear_cache()
        held = cresize.plan(x.shape, (5, 5))
        for _ in range(3):
            cresize.resize(x, (5, 5))
        forget()
        cresize.set_cache_limit(limit)
        misses = cresize.cache_info()["misses"]
        np.testing.assert_array_equal(cresize.resize(x, (5, 5)), held(x), strict=True)
        assert cresize.cache_info()["misses"] == misses + 1
        assert cresize.cache_info()["plans"] == 1
        del held
    cresize.clear_cache()
    cresize.resize(x, (3, 7))
    cresize.resize(x, (3, 7))
    kept = weakref.ref(
        _plan._FAST[_plan.fast_key(x, (3, 7), None, "bilinear", False, False, None)]()
    )
    cresize.clear_cache()
    gc.collect()
    assert kept() is None


def test_threads_sharing_the_last_call_get_their_own_plans_bits(recent_slots):
    """Six threads, each its own shape and size, repeat calls at once: each call gets
    its own plan's bits whatever the last call (another thread's) was."""
    from concurrent.futures import ThreadPoolExecutor

    cases = [(_array((2, 10 + i, 9), np.float32, seed=i), (5 + i, 7)) for i in range(6)]
    wants = [cresize.resize(x, size) for x, size in cases]

    def work(i):
        x, size = cases[i]
        for _ in range(300):  # a wrong plan's result raises here, and in the test below
            np.testing.assert_array_equal(cresize.resize(x, size), wants[i], strict=True)
        return i

    with ThreadPoolExecutor(6) as pool:
        assert list(pool.map(work, range(6))) == list(range(6))
