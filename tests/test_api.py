"""The user-facing contract of resize / resize_backward / weights: dtypes,
layouts, out=, num_threads and the errors for bad input."""

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import cresize


def rand(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype)


def test_public_names():
    assert cresize.MODES == ("nearest", "nearest-exact", "bilinear", "bicubic", "lanczos3", "area")
    assert isinstance(cresize.openmp_enabled(), bool)
    assert isinstance(cresize.__version__, str)


@pytest.mark.parametrize(
    "alias,mode",
    [
        ("linear", "bilinear"),
        ("trilinear", "bilinear"),
        ("cubic", "bicubic"),
        ("nearest_exact", "nearest-exact"),
    ],
)
def test_aliases(alias, mode):
    x = rand((5, 9, 10))
    assert np.array_equal(
        cresize.resize(x, (4, 17), mode=alias), cresize.resize(x, (4, 17), mode=mode)
    )


def test_align_corners_none_means_false():
    x = rand((9, 10))
    assert np.array_equal(
        cresize.resize(x, 5, align_corners=None), cresize.resize(x, 5, align_corners=False)
    )


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int16, np.int8, np.int32])
def test_integer_images_round_and_clip(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(0)
    x = rng.integers(info.min, info.max, (12, 15), endpoint=True).astype(dtype)
    x[0, :3] = info.max
    x[1, :3] = info.min
    y = cresize.resize(x, (20, 7), mode="lanczos3")  # overshoots at edges: clipping matters
    assert y.dtype == dtype
    # 8-bit sums are float32; 16-bit ones float64 (float32 breaks docs/spec.md section 5's 99%)
    compute = np.float32 if np.dtype(dtype).itemsize == 1 else np.float64
    exact = cresize.resize(x.astype(compute), (20, 7), mode="lanczos3")
    np.testing.assert_array_equal(y, np.clip(np.rint(exact), info.min, info.max).astype(dtype))


def test_float16_computed_in_float32():
    x = rand((10, 12), np.float16)
    y = cresize.resize(x, (7, 30), mode="bicubic")
    assert y.dtype == np.float16
    np.testing.assert_array_equal(
        y, cresize.resize(x.astype(np.float32), (7, 30), mode="bicubic").astype(np.float16)
    )


def test_float16_past_its_range_is_inf_without_numpys_cast_warning():
    # bicubic overshoot past 65504 is inf in float16, as float32's past its range is (the
    # kernels); NumPy's "overflow encountered in cast" came from inside cresize, naming
    # nothing the caller passed
    x = np.full((1, 8, 8), 60000, np.float16)
    x[..., ::2] = -60000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = cresize.resize(x, (16, 16), mode="bicubic")
        p = cresize.plan(x.shape, (16, 16), mode="bicubic", dtype="float16")
        assert p(x).tobytes() == y.tobytes()
    wide = cresize.resize(x.astype(np.float32), (16, 16), mode="bicubic")
    assert np.isinf(y).any() and not np.isinf(wide).any()
    with np.errstate(over="ignore"):  # inf where wide is past 65504
        np.testing.assert_array_equal(y, wide.astype(np.float16))


def test_float32_summed_in_float64_past_its_range_is_inf_without_numpys_cast_warning():
    # rows of more than LONG_SUM taps are summed in float64 and cast back to float32
    # (``_apply``): an overshoot past float32's range is inf there too, as the kernels
    # give it, without NumPy's "overflow encountered in cast" from inside cresize
    big = np.finfo(np.float32).max
    p = cresize.plan((1, 20000), (1, 3), mode="lanczos3", antialias=True, dtype="float32")
    assert p.weights[1].shape[1] > 2048 and (p.weights[1][1] != 0).sum() > 2048
    x = (big * np.sign(p.weights[1][1]))[None].astype(np.float32)  # every tap adds
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = cresize.resize(x, (1, 3), mode="lanczos3", antialias=True)
        assert p(x).tobytes() == y.tobytes()
    assert y.dtype == np.float32 and np.isposinf(y[0, 1])
    # the backward of an enlargement sums more than LONG_SUM gradient values an input
    g = np.full((1, 20000), big, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grad = cresize.resize_backward(g, (1, 3), mode="bilinear")
    assert grad.dtype == np.float32 and np.isposinf(grad).all()


@pytest.mark.parametrize("dtype", [bool, np.complex64, np.complex128, object, "U3", "M8[s]"])
def test_bad_dtypes(dtype):
    with pytest.raises(TypeError, match="x must be"):
        cresize.resize(np.zeros((4, 4), dtype=dtype), 2)


@pytest.mark.parametrize("dtype", [np.float16, np.int32, np.uint8, bool])
def test_backward_dtypes(dtype):
    with pytest.raises(TypeError, match="grad_output must be float32 or float64"):
        cresize.resize_backward(np.zeros((4, 4), dtype=dtype), (2, 2))


def test_any_strides_and_byte_order():
    base = rand((2, 21, 3, 17))
    expected = cresize.resize(np.ascontiguousarray(base[:, ::2, 1, ::-1]), (4, 9))
    for view in (
        base[:, ::2, 1, ::-1],
        np.asfortranarray(base)[:, ::2, 1, ::-1],
        base.astype(">f8")[:, ::2, 1, ::-1],
    ):
        y = cresize.resize(view, (4, 9))
        assert y.flags.c_contiguous and y.dtype == np.float64 and y.dtype.isnative
        np.testing.assert_array_equal(y, expected)
    g = rand((2, 4, 9), seed=1)
    expected_g = cresize.resize_backward(g, (2, 11, 17))
    np.testing.assert_array_equal(cresize.resize_backward(g.astype(">f8"), (2, 11, 17)), expected_g)
    np.testing.assert_array_equal(
        cresize.resize_backward(np.asfortranarray(g), (2, 11, 17)), expected_g
    )


def test_inputs_are_never_modified():
    x = rand((3, 8, 8))
    x.flags.writeable = False  # read-only arrays are accepted
    keep = x.copy()
    y = cresize.resize(x, (16, 5), mode="bicubic")
    g = np.ones_like(y)
    g.flags.writeable = False
    cresize.resize_backward(g, x.shape, mode="bicubic")
    assert np.array_equal(x, keep) and np.all(g == 1)
    same = cresize.resize(x, (8, 8))
    assert np.array_equal(same, x) and not np.shares_memory(same, x)


def test_lists_are_accepted():
    assert np.array_equal(cresize.resize([[1.0, 2.0], [3.0, 4.0]], (2, 2)), [[1, 2], [3, 4]])


def test_masked_arrays_are_refused():
    # np.asarray would drop the mask: the masked values would be resized as data
    x = np.ma.masked_array(rand((6, 6), np.float32), mask=np.eye(6, dtype=bool))
    with pytest.raises(TypeError, match=r"x is a masked array.*x.filled"):
        cresize.resize(x, (3, 3))
    with pytest.raises(TypeError, match="grad_output is a masked array"):
        cresize.resize_backward(x, (12, 12))
    p = cresize.plan(x.shape, (3, 3))
    with pytest.raises(TypeError, match="x is a masked array"):
        p(x)
    np.testing.assert_array_equal(cresize.resize(x.filled(0), (3, 3)), p(x.filled(0)))


def test_a_masked_or_matrix_out_is_refused_saying_why_and_what_to_pass():
    # "out must be a NumPy array; got MaskedArray" said nothing of the mask, and a
    # masked array is a NumPy array
    x = rand((6, 6), np.float32)
    p = cresize.plan(x.shape, (3, 3))
    out = np.ma.masked_array(np.zeros((3, 3), np.float32), mask=np.eye(3, dtype=bool))
    before = out.data.copy()
    for call in (
        lambda: cresize.resize(x, (3, 3), out=out),
        lambda: p(x, out=out),
        lambda: cresize.resize_backward(rand((6, 6), np.float32), (3, 3), out=out),
    ):
        with pytest.raises(TypeError, match=r"out must be a NumPy array without a mask.*out\.data"):
            call()
    assert np.array_equal(out.mask, np.eye(3, dtype=bool)) and np.array_equal(out.data, before)
    data = out.data  # a view of the masked array's values: what the message says to pass
    assert cresize.resize(x, (3, 3), out=data) is data
    np.testing.assert_array_equal(out.data, cresize.resize(x, (3, 3)), strict=True)
    with pytest.warns(PendingDeprecationWarning):
        matrix = np.asmatrix(np.zeros((3, 3), np.float32))
    with pytest.raises(TypeError, match=r"out must be a NumPy array other than np\.matrix"):
        cresize.resize(x, (3, 3), out=matrix)


def test_the_masked_array_check_imports_no_numpy_ma():
    # the check imported numpy.ma (about 7 ms) in every process that resized anything,
    # the CLI's runs included; no masked array exists before numpy.ma is imported
    eager = subprocess.run(
        [sys.executable, "-c", "import sys, numpy; print('numpy.ma' in sys.modules)"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    if eager.stdout.strip() == "True":
        pytest.skip("this NumPy (before 2.0) imports numpy.ma itself")
    child = (
        "import sys, numpy as np, cresize\n"
        "assert 'numpy.ma' not in sys.modules\n"
        "cresize.resize(np.zeros((4, 4), np.float32), (2, 2))\n"
        "cresize.resize([[1.0, 2.0], [3.0, 4.0]], (3, 3))\n"
        "cresize.plan((4, 4), (2, 2), dtype='float64')([[0.0] * 4] * 4)\n"
        "print('numpy.ma' in sys.modules)\n"
    )
    got = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=120, check=False
    )
    assert (got.returncode, got.stdout.strip()) == (0, "False"), got.stderr


def test_dask_collections_are_told_apart_without_dask():
    # cresize.resize refuses a Dask collection (its np.asarray would compute all of it),
    # told by a graph as dask.is_dask_collection does, without importing Dask: an
    # object with the method but no graph (a NumPy-backed xarray object) is taken.
    class Lazy:
        def __init__(self, graph):
            self.graph = graph

        def __dask_graph__(self):
            return self.graph

        def __array__(self, dtype=None, copy=None):
            return np.ones((4, 4), np.float32)

    with pytest.raises(TypeError, match=r"x is a lazy Dask collection .*Lazy.*dask\.resize"):
        cresize.resize(Lazy({"a": 1}), (2, 2))
    np.testing.assert_array_equal(cresize.resize(Lazy(None), (2, 2)), np.ones((2, 2)))


def test_an_attribute_that_raises_is_not_a_dask_collection():
    # Only a graph tells a Dask collection: an array-like whose class has a
    # __dask_graph__ that raises as it is looked up (a descriptor, as a proxy's may be)
    # or called, or a mock, is converted as before (the lookup's RuntimeError escaped
    # from resize and a plan's call).
    class Raising:
        def __get__(self, obj, owner=None):
            raise RuntimeError("no graph here")

    class Proxy:
        __dask_graph__ = Raising()

        def __array__(self, dtype=None, copy=None):
            return np.ones((4, 4), np.float32)

    class Failing(Proxy):
        def __dask_graph__(self):
            raise RuntimeError("no graph here")

    p = cresize.plan((4, 4), (2, 2), dtype=np.float32)
    for x in (Proxy(), Failing()):
        np.testing.assert_array_equal(cresize.resize(x, (2, 2)), np.ones((2, 2)))
        np.testing.assert_array_equal(p(x), np.ones((2, 2)))
        np.testing.assert_array_equal(
            cresize.resize_backward(x, (8, 8)),
            cresize.resize_backward(np.ones((4, 4), np.float32), (8, 8)),
        )


def test_out():
    x = rand((2, 9, 10), np.float32)
    out = np.empty((2, 4, 20), np.float32)
    assert cresize.resize(x, (4, 20), out=out) is out
    np.testing.assert_array_equal(out, cresize.resize(x, (4, 20)))
    gout = np.empty(x.shape, np.float32)
    assert cresize.resize_backward(out, x.shape, out=gout) is gout
    np.testing.assert_array_equal(gout, cresize.resize_backward(out, x.shape))
    same = np.empty_like(x)
    assert cresize.resize(x, (9, 10), out=same) is same and np.array_equal(same, x)
    u8 = (x * 100 + 100).astype(np.uint8)
    out8 = np.empty((2, 4, 20), np.uint8)
    assert cresize.resize(u8, (4, 20), out=out8) is out8
    np.testing.assert_array_equal(out8, cresize.resize(u8, (4, 20)))


@pytest.mark.parametrize(
    "bad,message",
    [
        (np.empty((2, 4, 21), np.float32), "shape"),
        (np.empty((2, 4, 20), np.float64), "dtype"),
        (np.empty((2, 20, 4), np.float32).transpose(0, 2, 1), "C-contiguous"),
        (np.empty((2, 4, 20), ">f4"), "dtype"),
        ([[0.0]], "NumPy array"),
    ],
)
def test_bad_out(bad, message):
    with pytest.raises((ValueError, TypeError), match=message):
        cresize.resize(rand((2, 9, 10), np.float32), (4, 20), out=bad)


def test_out_read_only_or_overlapping():
    x = rand((2, 9, 10))
    ro = np.empty((2, 4, 20))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        cresize.resize(x, (4, 20), out=ro)
    with pytest.raises(ValueError, match="share memory"):
        cresize.resize(x, (9, 10), out=x)
    big = np.zeros((2, 9, 30))
    with pytest.raises(ValueError, match="share memory"):
        cresize.resize_backward(
            big[:, :, :20], (2, 9, 20), out=big.reshape(-1)[:360].reshape(2, 9, 20)
        )


@pytest.mark.parametrize(
    "kwargs,exc,message",
    [
        (dict(size=3, mode="bilinearr"), ValueError, "mode must be one of"),
        # A near miss is named; PyTorch's "lanczos" means lanczos3 only in cresize.torch.
        (dict(size=3, mode="lanczos"), ValueError, r"got 'lanczos' \(did you mean 'lanczos3'\?\)"),
        (dict(size=3, mode="Bicubic"), ValueError, r"did you mean 'bicubic'\?"),
        (dict(size=3, mode="LINEAR"), ValueError, r"did you mean 'bilinear'\?"),
        (dict(size=3, mode="box"), ValueError, r"got 'box'$"),
        (dict(size=3, mode=3), TypeError, "mode must be a string"),
        (dict(), ValueError, "size or scale_factor"),
        (dict(size=3, scale_factor=2.0), ValueError, "not both"),
        (dict(size=0), ValueError, "size must be >= 1"),
        (dict(size=(3, -1)), ValueError, "size must be >= 1"),
        (dict(size=2.5), TypeError, "size must be a positive int"),
        (dict(size=True), TypeError, "size must be a positive int"),
        (dict(size="3"), TypeError, "size must be a positive int"),
        (dict(scale_factor=0.0), ValueError, "scale_factor must be finite and > 0"),
        (dict(scale_factor=-1.5), ValueError, "scale_factor must be finite and > 0"),
        (dict(scale_factor=float("nan")), ValueError, "scale_factor must be finite and > 0"),
        (dict(scale_factor=float("inf")), ValueError, "scale_factor must be finite and > 0"),
        (dict(scale_factor="2"), TypeError, "scale_factor must be a positive float"),
        (dict(scale_factor=0.01), ValueError, "at least 1"),
        (dict(size=(2, 2, 2, 2)), ValueError, "only 3 dimensions"),
        (dict(size=3, axes=(0, 0)), ValueError, "duplicate"),
        (dict(size=3, axes=(1, -2)), ValueError, "duplicate"),
        (dict(size=3, axes=(3,)), ValueError, "out of range"),
        (dict(size=3, axes=(-4,)), ValueError, "out of range"),
        (dict(size=3, axes=1.0), TypeError, "axes must be an int"),
        (dict(size=3, axes=()), ValueError, "at least one axis"),
        (dict(size=(3, 3), axes=(0,)), ValueError, "size has 2 entries but axes has 1"),
        (dict(size=3, mode="nearest", align_corners=True), ValueError, "align_corners=True"),
        (dict(size=3, mode="nearest-exact", align_corners=True), ValueError, "align_corners=True"),
        (dict(size=3, mode="area", align_corners=True), ValueError, "align_corners=True"),
        (dict(size=3, mode="nearest", antialias=True), ValueError, "antialias=True"),
        (dict(size=3, mode="area", antialias=True), ValueError, "antialias=True"),
        (dict(size=3, align_corners="yes"), TypeError, "align_corners must be"),
        (dict(size=3, antialias=None), TypeError, "antialias must be"),
        (dict(size=3, num_threads=0), ValueError, "num_threads"),
        (dict(size=3, num_threads=1.5), TypeError, "num_threads"),
        (dict(size=3, num_threads=True), TypeError, "num_threads"),
    ],
)
def test_bad_arguments(kwargs, exc, message):
    x = rand((2, 5, 6))
    keep = x.copy()
    with pytest.raises(exc, match=message):
        cresize.resize(x, **kwargs)
    assert np.array_equal(x, keep)


@pytest.mark.parametrize("mode", [None, 3, "sinc"])
def test_a_refused_mode_lists_the_aliases_taken_too(mode):
    # mode=None listed only the six canonical names: a PyTorch user did not see that
    # "trilinear" (or "linear", "cubic") is taken; a wrong name listed them already
    error = ValueError if isinstance(mode, str) else TypeError
    names = r"nearest, nearest-exact, bilinear, bicubic, lanczos3, area, nearest_exact, "
    names += r"linear, trilinear, cubic; got "
    for call in (
        lambda: cresize.resize(rand((5, 6)), 3, mode=mode),
        lambda: cresize.plan((5, 6), 3, mode=mode),
    ):
        with pytest.raises(error, match=names):
            call()


def test_bad_shapes():
    with pytest.raises(ValueError, match="at least one dimension"):
        cresize.resize(np.float64(3.0), 2)
    with pytest.raises(ValueError, match="length 0"):
        cresize.resize(np.zeros((3, 0, 4)), (2, 2))
    assert cresize.resize(np.zeros((0, 4, 4)), (2, 3)).shape == (0, 2, 3)  # empty batch is fine


@pytest.mark.parametrize(
    "call,exc,message",
    [
        (lambda g: cresize.resize_backward(g, (2, 9, 10, 1)), ValueError, "dimensions"),
        (lambda g: cresize.resize_backward(g, (2, 0, 10)), ValueError, "length 0"),
        (
            lambda g: cresize.resize_backward(g, (2, 9, 10), scale_factor=3.0),
            ValueError,
            "grad_output has shape",
        ),
        (
            lambda g: cresize.resize_backward(g, (2, 9, 10), axes=(2,)),
            ValueError,
            "grad_output has shape",
        ),
        (lambda g: cresize.resize_backward(g, "abc"), TypeError, "input_shape"),
        (
            lambda g: cresize.resize_backward(g, (2, 9, 10), mode="nearest", align_corners=True),
            ValueError,
            "align_corners",
        ),
    ],
)
def test_bad_backward(call, exc, message):
    g = rand((2, 4, 20))
    with pytest.raises(exc, match=message):
        call(g)


def test_backward_with_scale_factor():
    x = rand((2, 9, 10))
    y = cresize.resize(x, scale_factor=(0.5, 2.1), mode="bicubic")
    g = rand(y.shape, seed=3)
    gx = cresize.resize_backward(g, x.shape, scale_factor=(0.5, 2.1), mode="bicubic")
    assert np.vdot(y, g) == pytest.approx(np.vdot(x, gx), rel=1e-12)
    assert not np.array_equal(gx, cresize.resize_backward(g, x.shape, mode="bicubic"))


def test_num_threads_negative_counts_back():
    x = rand((40, 50))
    y = cresize.resize(x, (13, 77))
    for n in (-1, -2, -1000, 1, 7):
        assert np.array_equal(cresize.resize(x, (13, 77), num_threads=n), y)


@pytest.mark.parametrize(
    "kwargs,exc,message",
    [
        (dict(in_size=0, out_size=3), ValueError, "in_size"),
        (dict(in_size=4), ValueError, "out_size or scale_factor"),
        (dict(in_size=4, out_size=3, scale_factor=2.0), ValueError, "does not match"),
        (dict(in_size=4, out_size=3.0), TypeError, "out_size"),
        (dict(in_size=4, out_size=3, mode="area", align_corners=True), ValueError, "align_corners"),
    ],
)
def test_bad_weights(kwargs, exc, message):
    with pytest.raises(exc, match=message):
        cresize.weights(**kwargs)


def test_weights_lengths_are_refused_as_one_int_each():
    # weights takes one int per length and one scale factor, never a tuple; its messages
    # said "(or tuple of them)", the wording of resize's size (the shared _spec.length)
    for kwargs, name in (
        (dict(in_size=5.0, out_size=3), "in_size"),
        (dict(in_size=5, out_size=3.0), "out_size"),
        (dict(in_size=5, out_size=(3,)), "out_size"),
        (dict(in_size=5, out_size=3.0, scale_factor=0.6), "out_size"),
    ):
        with pytest.raises(TypeError) as info:
            cresize.weights(**kwargs)
        assert str(info.value).startswith(f"{name} must be a positive int; got "), info.value
    with pytest.raises(TypeError, match=r"^scale_factor must be a positive float; got 'a'$"):
        cresize.weights(5, scale_factor="a")
    # resize's size and scale_factor take a tuple, and say so
    with pytest.raises(TypeError, match=r"^size must be a positive int \(or tuple of them\)"):
        cresize.resize(np.zeros((4, 4)), 3.0)
    with pytest.raises(TypeError, match=r"^size must be a positive int \(or tuple of them\)"):
        cresize.plan((4, 4), (3.0, 2))
    with pytest.raises(TypeError, match=r"^scale_factor must be a positive float \(or tuple"):
        cresize.resize(np.zeros((4, 4)), scale_factor="a")


def test_weights_with_scale_factor():
    w = cresize.weights(10, scale_factor=0.55, mode="bilinear")
    assert w.shape == (5, 10)
    assert np.array_equal(w, cresize.weights(10, 5, scale_factor=0.55, mode="bilinear"))
    assert not np.array_equal(w, cresize.weights(10, 5, mode="bilinear"))  # 1/f is not I/O


@pytest.mark.parametrize("dtype", [">u2", ">i2", "<u2"])
def test_integer_byte_order_and_strides(dtype):
    x = np.random.default_rng(1).integers(0, 3000, (3, 20, 17)).astype(dtype)
    view = x[:, ::-2, ::2]
    y = cresize.resize(view, (7, 30), mode="bicubic", axes=(1, 2))
    assert y.dtype == np.dtype(dtype).newbyteorder("=") and y.flags.c_contiguous
    expected = cresize.resize(
        np.ascontiguousarray(view).astype(np.float32), (7, 30), mode="bicubic", axes=(1, 2)
    )
    np.testing.assert_array_equal(
        y,
        np.clip(np.rint(expected), *((np.iinfo(y.dtype).min, np.iinfo(y.dtype).max))).astype(
            y.dtype
        ),
    )


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32, np.uint32])
def test_wide_integers_keep_their_extremes(dtype):
    info = np.iinfo(dtype)
    x = np.array([[info.max, info.min], [info.min, info.max]], dtype)
    assert np.array_equal(cresize.resize(x, (2, 2)), x)  # identity is exact
    y = cresize.resize(x, (5, 7), mode="bicubic")  # overshoots past the range: clipped, no wrap
    assert y.dtype == dtype
    assert y.min() >= info.min and y.max() <= info.max
    assert y[0, 0] > info.max // 2 and y[0, -1] < info.max // 2 + info.min // 2 + 1


def test_float32_long_rows_stay_within_tolerance():
    x = (
        np.random.default_rng(0).uniform(0, 1, (2, 20000)).astype(np.float32)
    )  # positive: worst case
    y = cresize.resize(x, 1, axes=1, mode="bicubic", antialias=True)
    w = cresize.weights(20000, 1, mode="bicubic", antialias=True)
    expected = x.astype(np.float64) @ w.T
    scale = np.abs(x).max() * np.abs(w).sum(axis=1).max()
    assert np.abs(y - expected).max() <= 2e-6 * scale
    g = np.ones((2, 1), np.float32)
    gx = cresize.resize_backward(g, x.shape, mode="bicubic", antialias=True, axes=1)
    np.testing.assert_allclose(gx, np.ones((2, 1)) @ w, rtol=0, atol=2e-6 * np.abs(w).max())


def test_zero_dim_arrays_as_size_and_scale():
    x = rand((6, 8))
    assert cresize.resize(x, np.array(5)).shape == (5, 5)
    assert cresize.resize(x, scale_factor=np.array(0.5)).shape == (3, 4)
    assert cresize.resize(x, np.array([3, 2])).shape == (3, 2)


#: What an integer argument takes (``_spec.integer``), and what it refuses.
INTEGERS = [2, np.int64(2), np.uint8(2), np.array(2), np.array(2, np.uint16)]
NOT_INTEGERS = [True, np.True_, np.array(True), 2.0, np.float32(2), np.array(2.0), "2"]
NOT_INTEGERS += [np.array([2]), [2], None]


def _thread_calls(num_threads):
    """Every public call that takes ``num_threads``, with it (results to compare)."""
    x, g = rand((4, 6)), rand((4, 3))
    p = cresize.plan(x.shape, 3, axes=1, dtype=x.dtype)
    region = (slice(0, 4), slice(0, 3))
    return [
        cresize.resize(x, 3, axes=1, num_threads=num_threads),
        cresize.resize_backward(g, x.shape, num_threads=num_threads),
        cresize.plan(x.shape, 3, axes=1, dtype=x.dtype, num_threads=num_threads)(x),
        p(x, num_threads=num_threads),
        p.backward(g, num_threads=num_threads),
        p.run_region(x, region, num_threads=num_threads),
    ]


def test_num_threads_takes_what_size_takes():
    # 0-d integer arrays were a TypeError for num_threads alone
    expected = _thread_calls(None)
    for n in INTEGERS + [np.array(-1), np.int8(-1)]:
        for got, want in zip(_thread_calls(n), expected):
            np.testing.assert_array_equal(got, want, strict=True)
        assert cresize.plan((4, 6), 3, num_threads=n)._num_threads in (2, -1)
        assert type(cresize.plan((4, 6), 3, num_threads=n)._num_threads) is int
    for bad in NOT_INTEGERS[:-1]:  # None is the default
        with pytest.raises(TypeError, match=r"num_threads must be None, a positive int, "):
            cresize.resize(rand((4, 6)), 3, num_threads=bad)
        with pytest.raises(TypeError, match=r"num_threads must be None, a positive int, "):
            cresize.plan((4, 6), 3, dtype="float64")(rand((4, 6)), num_threads=bad)
    # the refused value is quoted as passed: a 0-d array as an array
    with pytest.raises(TypeError, match=r"got array\(2\.\)$"):
        cresize.resize(rand((4, 6)), 3, num_threads=np.array(2.0))
    for zero in (np.array(0), np.int64(0)):
        with pytest.raises(ValueError, match="num_threads must be None, a positive int"):
            cresize.resize(rand((4, 6)), 3, num_threads=zero)
    with pytest.raises(ValueError, match="num_threads must be at most 4096"):
        cresize.plan((4, 6), 3, num_threads=np.array(5000))


#: num_threads' one wording for a value of a wrong type and for 0
THREADS_TAKEN = (
    "num_threads must be None, a positive int, or a negative int counted back from the "
    "maximum (-1 = all); got "
)


def thread_refusal(call):
    """The type and words of ``call``'s refusal."""
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("bad", [0, True, 2.5, "2", np.int64(0), 5000])
def test_num_threads_is_refused_in_one_wording_by_every_call(bad):
    # a wrong type said "None or a nonzero int", 0 "None, a positive int, or a negative
    # int counted back ..." (the same rule in two phrasings)
    x, g = rand((4, 6)), rand((3, 3))
    p = cresize.plan((4, 6), 3, dtype="float64")
    calls = [
        lambda: cresize.resize(x, 3, num_threads=bad),
        lambda: cresize.resize_backward(g, (4, 6), num_threads=bad),
        lambda: cresize.plan((4, 6), 3, num_threads=bad),
        lambda: p(x, num_threads=bad),
        lambda: p.backward(g, num_threads=bad),
    ]
    found = {thread_refusal(call) for call in calls}
    assert len(found) == 1, found
    ((error, words),) = found
    if bad == 5000:
        assert (error, words) == (ValueError, "num_threads must be at most 4096; got 5000")
    else:
        assert error is (ValueError if bad == 0 else TypeError)
        assert words == THREADS_TAKEN + repr(bad).replace("np.int64(0)", "0")


def test_a_plans_num_threads_is_documented_in_the_rules_words():
    # its docstring said "None, or a nonzero int", a third phrasing of the rule
    from cresize import _fast, _spec

    doc = " ".join(_fast.PlanBase._num_threads.__doc__.split())
    assert _spec._THREADS_TAKEN[0] in doc and "MAX_THREADS" in doc, doc
    assert "nonzero" not in doc


def test_integer_arguments_take_the_same_values():
    x = rand((2, 6, 8))
    for n in INTEGERS:
        assert cresize.resize(x, n, axes=n).shape == (2, 6, 2)  # axes: 0-d arrays too
        assert cresize.resize(x, (n, n)).shape == (2, 2, 2)
        assert cresize.resize(x, scale_factor=n).shape == (2, 12, 16)
    for bad in NOT_INTEGERS[:-3]:
        for kwargs, name in [(dict(size=bad), "size"), (dict(size=3, axes=bad), "axes")]:
            with pytest.raises(TypeError, match=f"{name} must be"):
                cresize.resize(x, **kwargs)


def test_refused_entries_quote_the_whole_argument():
    # an entry of a sequence that is not a number: the message quotes what was passed,
    # not the entry (a row of a 2-d array was quoted as array([3, 3]))
    x = rand((6, 8))
    for given, quoted in [
        (np.array([[3, 3]]), r"array\(\[\[3, 3\]\]\)"),
        ([[3, 3]], r"\[\[3, 3\]\]"),
        ((3, "4"), r"\(3, '4'\)"),
        ((3, True), r"\(3, True\)"),
        (np.array([[3.0, 3.0]]), r"array\(\[\[3\., 3\.\]\]\)"),
    ]:
        with pytest.raises(TypeError, match=f"size must be a positive int .*; got {quoted}$"):
            cresize.resize(x, given)
        with pytest.raises(TypeError, match=f"scale_factor must be .*; got {quoted}$"):
            cresize.resize(x, scale_factor=given)
    with pytest.raises(TypeError, match=r"size must be .*; got array\(2\.5\)$"):
        cresize.resize(x, np.array(2.5))


def test_values_out_of_range_are_quoted_as_passed():
    # a ValueError quotes the argument as the caller wrote it too: the whole sequence,
    # an int as an int (it was the refused entry alone, converted: "got 0.0" for 0)
    x = rand((6, 8))
    for kwargs, quoted in [
        (dict(size=(2, 0)), r"size must be >= 1; got \(2, 0\)$"),
        (dict(size=0), r"size must be >= 1; got 0$"),
        (dict(size=np.array([3, -1])), r"size must be >= 1; got array\(\[ 3, -1\]\)$"),
        (dict(size=(3, 2**45)), r"size must be < \d+; got \(3, 35184372088832\)$"),
        (dict(scale_factor=0), r"scale_factor must be finite and > 0; got 0$"),
        (dict(scale_factor=(1, 0)), r"scale_factor must be finite and > 0; got \(1, 0\)$"),
        (dict(scale_factor=np.array(-1.5)), r"> 0; got array\(-1\.5\)$"),
        (dict(scale_factor=(1.0, float("nan"))), r"> 0; got \(1\.0, nan\)$"),
        # an int beyond the floats: float() raised OverflowError, in every call
        (dict(scale_factor=10**400), r"finite and > 0; got 10{400}$"),
        (dict(scale_factor=(2, -(10**400))), r"> 0; got \(2, -10{400}\)$"),
        # a factor whose output length is refused: the converted float was quoted
        # ("scale_factor=1.1805916207174113e+21 gives ..."), the entry alone
        (
            dict(scale_factor=2**70),
            r"^scale_factor=1180591620717411303424 gives 6 \* 1\.18\d*e\+21 = 7\.08\d*e\+21 "
            r"output samples on an axis; at most \d+ are possible$",
        ),
        (dict(scale_factor=(1, 2**70)), r"^scale_factor=\(1, 1180591620717411303424\) gives 8 "),
        (
            dict(scale_factor=(2, 0.1)),
            r"^scale_factor=\(2, 0\.1\) gives floor\(8 \* 0\.1\) = 0 output samples",
        ),
        (dict(scale_factor=np.array(0.1)), r"^scale_factor=array\(0\.1\) gives floor\(6 \* 0\.1"),
    ]:
        with pytest.raises(ValueError, match=quoted):
            cresize.resize(x, **kwargs)
        if "scale_factor" in kwargs:
            with pytest.raises(ValueError, match=quoted):
                cresize.resize_backward(x, x.shape, **kwargs)
            with pytest.raises(ValueError, match=quoted):
                cresize.plan(x.shape, **kwargs)
    with pytest.raises(ValueError, match=r"^scale_factor=array\(0\.1\) gives floor\(6 \* 0\.1"):
        cresize.weights(6, scale_factor=np.array(0.1))


@pytest.mark.parametrize(
    "kwargs,exc,message",
    [
        (dict(scale_factor=1e308), ValueError, "scale_factor"),
        (dict(scale_factor=1e20), ValueError, "scale_factor"),
        (dict(size=2**45), ValueError, "size must be <"),
        (dict(size=3, num_threads=2**31), ValueError, "num_threads must be at most"),
        (dict(size=3, out="matrix"), TypeError, "out must be a NumPy array"),
    ],
)
def test_more_bad_arguments(kwargs, exc, message):
    if kwargs.get("out") == "matrix":
        with pytest.warns(PendingDeprecationWarning):
            kwargs = dict(kwargs, out=np.asmatrix(np.empty((3, 3))))
    with pytest.raises(exc, match=message):
        cresize.resize(rand((6, 8)), **kwargs)


def test_public_names_load_on_demand_and_are_all_listed():
    # `import cresize` alone loads neither NumPy nor the kernels (the CLI sets up the
    # process first); every public name resolves, and __all__ lists exactly them.
    code = (
        "import sys, cresize\n"
        "assert 'numpy' not in sys.modules and 'cresize._kernels' not in sys.modules\n"
        "names = sorted(cresize._SOURCES) + ['__version__']\n"
        "assert sorted(cresize.__all__) == sorted(names), cresize.__all__\n"
        "assert all(getattr(cresize, n) is not None for n in cresize.__all__)\n"
        "assert set(cresize.__all__) <= set(dir(cresize))\n"
        "try:\n"
        "    cresize.no_such_name\n"
        "except AttributeError as e:\n"
        "    assert 'no_such_name' in str(e)\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_dir_lists_the_public_names_not_the_modules_own():
    # dir(cresize), what tab completion offers, listed Any, TYPE_CHECKING, annotations
    # and importlib, the names __init__.py uses; a public module once imported is listed.
    code = (
        "import cresize\n"
        "print(' '.join(n for n in dir(cresize) if not n.startswith('__')))\n"
        "cresize.resize\n"  # its module, cresize._api, loads: private, not listed
        "import cresize.image\n"
        "print(' '.join(n for n in dir(cresize) if not n.startswith('__')))\n"
        "print(' '.join(n for n in dir(cresize) if n.startswith('__')))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, env=env, capture_output=True, text=True
    ).stdout.splitlines()
    public = sorted(set(cresize.__all__) - {"__version__"})
    assert out[0].split() == public
    assert out[1].split() == sorted([*public, "image"])
    assert {"__version__", "__all__", "__doc__", "__name__", "__path__"} <= set(out[2].split())


def test_resize_command_runs_openblas_single_threaded(monkeypatch):
    # The CLI's no-BLAS subcommands set OPENBLAS_NUM_THREADS=1 before NumPy loads; a
    # value the user set wins.
    code = (
        "import os, sys\n"
        "from cresize import __main__ as m\n"
        "try:\n"
        "    m.main(['resize', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("OPENBLAS_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "1", out.stdout + out.stderr
    env["OPENBLAS_NUM_THREADS"] = "3"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "3", out.stdout + out.stderr
