"""Hostile arguments to the public API: a fixed slice of the campaign in
``tests/helpers/fuzz_api.py`` (in a child process: a crash or a hang is reported with
its case), the fuzzer's own checks seen failing, and a regression test for each fault
the campaign found."""

import math
import os
import warnings

import numpy as np
import pytest

import cresize
from helpers import fuzz_api
from helpers.fuzz_api import campaign, check, make_case

#: (seed, first case, cases): about 5 s; every entry point appears in it
SLICE = (1, 0, 120)


def test_the_fixed_slice():
    seed, start, count = SLICE
    summary = campaign(seed, start, count, echo=lambda line: None)
    assert summary["cases"] == count
    assert set(summary["entries"]) == set(fuzz_api.ENTRIES) - {
        n for n in fuzz_api.ENTRIES if n.startswith("selftest.")
    }
    assert summary["failures"] == [], summary["failures"][:5]
    # refused and accepted calls both: the slice checks results as well as errors
    # (17 of the 120 are accepted with today's NumPy and Pillow, 11 at the test extra's
    # floors, NumPy 1.25 and Pillow 11.3, which refuse a few of them by TypeError)
    assert summary["outcomes"].get("ok", 0) >= 8
    assert summary["outcomes"].get("TypeError", 0) >= 50


@pytest.mark.parametrize("what", ["mutate", "state", "keyerror"])
def test_the_checks_can_fail(what):
    """An entry point that changes its input, the process state, or raises KeyError is
    caught by ``check``."""
    fuzz_api.add_selftest_entries()
    result = check(make_case(0, 0, f"selftest.{what}"))
    cresize.set_cache_limit(256 * 2**20)
    want = {
        "mutate": "argument x was changed",
        "state": "process state changed",
        "keyerror": "raised KeyError",
    }[what]
    assert any(want in f for f in result["failures"]), result


def test_a_crash_and_a_hang_are_reported_with_their_case(monkeypatch):
    monkeypatch.setenv("CRESIZE_FUZZ_API_SELFTEST", "1")
    crashed = campaign(0, 0, 2, entry="selftest.crash", echo=lambda line: None)
    assert crashed["outcomes"] == {"crash": 2}
    assert [f["case"]["index"] for f in crashed["failures"]] == [0, 1]
    hung = campaign(0, 7, 1, entry="selftest.hang", timeout=2, echo=lambda line: None)
    assert hung["outcomes"] == {"hang": 1}
    assert hung["failures"][0]["case"]["index"] == 7


# ----------------------------------------------------------------------------
# What the campaign found


X = np.arange(24, dtype=np.float32).reshape(4, 6)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(size=np.timedelta64(3, "D")), "size"),
        (dict(size=(np.timedelta64(3, "D"), 2)), "size"),
        (dict(scale_factor=np.timedelta64(2, "s")), "scale_factor"),
        (dict(size=3, axes=np.timedelta64(1, "D")), "axes"),
        (dict(size=3, axes=(np.timedelta64(1, "D"),)), "axes"),
        (dict(size=3, num_threads=np.timedelta64(1, "D")), "num_threads"),
    ],
)
def test_a_timedelta64_is_no_number(kwargs, name):
    # np.timedelta64 subclasses np.signedinteger: it was taken for an int, and int() of
    # one in days raised a TypeError naming no argument
    with pytest.raises(TypeError, match=name):
        cresize.resize(X, **kwargs)


def test_a_timedelta64_is_no_length_or_shape():
    with pytest.raises(TypeError, match="in_size"):
        cresize.weights(np.timedelta64(4, "D"), 2)
    with pytest.raises(TypeError, match="input_shape"):
        cresize.plan((4, np.timedelta64(6, "D")), 3)


@pytest.mark.parametrize(
    "axes", [{1}, {0, 1}, b"\x00\x01", memoryview(b"\x00\x01"), {1: 0}, frozenset([1]), 1.0]
)
def test_axes_must_be_a_sequence(axes):
    # a set (its order is not the caller's), bytes (b"\x00\x01" was axes (0, 1)) and a
    # dict (its keys) were taken as axes
    with pytest.raises(TypeError, match="axes"):
        cresize.resize(X, 3, axes=axes)
    with pytest.raises(TypeError, match="axes"):
        cresize.plan(X.shape, 3, axes=axes)


@pytest.mark.parametrize("shape", [{4, 6}, {4: 1}, b"\x04\x06", memoryview(b"\x04\x06"), "46"])
def test_a_shape_must_be_a_sequence(shape):
    with pytest.raises(TypeError, match="input_shape"):
        cresize.plan(shape, 3, axes=0)
    with pytest.raises(TypeError, match="input_shape"):
        cresize.resize_backward(np.zeros((3, 6), np.float32), shape, axes=0)


@pytest.mark.parametrize(
    "given", [b"\x03\x04", bytearray(b"\x03\x04"), memoryview(b"\x03\x04"), "34"]
)
def test_bytes_are_no_size_or_scale_factor(given):
    # bytes-like objects iterate as ints, but are no sequence argument: a memoryview
    # became a sequence size or scale_factor when a range did (h74), memoryview(b"\x03\x04")
    # the size (3, 4)
    for call in (
        lambda: cresize.resize(X, given),
        lambda: cresize.resize(X, scale_factor=given),
        lambda: cresize.plan(X.shape, given),
        lambda: cresize.resize_backward(X, (2, 3), scale_factor=given),
    ):
        with pytest.raises(TypeError, match=r"size|scale_factor"):
            call()


def test_sequences_still_taken():
    want = cresize.resize(X, 3, axes=(0, 1))
    for axes in ([0, 1], range(2), np.array([0, 1]), (np.int8(0), np.array(1))):
        assert np.array_equal(cresize.resize(X, 3, axes=axes), want)
    assert cresize.plan([4, 6], 3).input_shape == cresize.plan(range(4, 8, 2), 3).input_shape


def test_a_range_is_a_sequence_for_size_and_scale_factor_too():
    # docs/spec.md section 5: a sequence argument is a tuple, a list or a range; a
    # range was taken as axes and as a shape but refused as size or scale_factor
    # (TypeError "size must be a positive int (or tuple of them); got range(2, 4)")
    y = np.zeros((2, 5, 7))
    want = cresize.resize(y, (2, 3))
    assert np.array_equal(cresize.resize(y, range(2, 4)), want)
    assert np.array_equal(cresize.plan(y.shape, range(2, 4), dtype=y.dtype)(y), want)
    assert cresize.resize_backward(want, y.shape, axes=range(1, 3)).shape == y.shape
    want = cresize.resize(y, scale_factor=(1.0, 2.0, 3.0))
    assert np.array_equal(cresize.resize(y, scale_factor=range(1, 4)), want)
    g = cresize.resize_backward(want, y.shape, scale_factor=range(1, 4))
    assert np.array_equal(g, cresize.resize_backward(want, y.shape, scale_factor=(1.0, 2.0, 3.0)))


def test_a_masked_out_is_refused():
    # resize wrote the values under the mask and left the mask as it was
    out = np.ma.masked_array(np.zeros((4, 3), np.float32), mask=True)
    before = out.data.copy()
    p = cresize.plan(X.shape, 3, axes=1)
    for call in (
        lambda: cresize.resize(X, 3, axes=1, out=out),
        lambda: p(X, out=out),
        lambda: cresize.resize_backward(np.zeros((2, 6), np.float32), (2, 6), out=out),
    ):
        with pytest.raises(TypeError, match="out must be a NumPy array"):
            call()
    assert out.mask.all() and np.array_equal(out.data, before)
    g = np.zeros((4, 3), np.float32)
    with pytest.raises(TypeError, match="out"):
        p.backward(g, out=np.ma.masked_array(np.zeros((4, 6), np.float32)))


@pytest.mark.parametrize("backward", [False, True])
def test_a_bad_num_threads_makes_no_plan(backward):
    # the plan was made and cached before num_threads was refused
    cresize.clear_cache()
    before = cresize.cache_info()
    x = np.zeros((5, 7), np.float64)
    for bad in (10**30, 0, 5000):
        with pytest.raises(ValueError, match="num_threads"):
            if backward:
                cresize.resize_backward(x, (5, 13))
            else:
                cresize.resize(x, (3, 4), num_threads=bad)
            if backward:
                raise ValueError("num_threads")  # (the call above is valid)
        if backward:
            with pytest.raises(ValueError, match="num_threads"):
                cresize.resize_backward(x, (9, 7), num_threads=bad)
    after = cresize.cache_info()
    assert (after["plans"], after["nbytes"]) == (before["plans"] + backward, after["nbytes"])


def test_the_size_of_too_large_a_result_names_size():
    with pytest.raises(ValueError, match="size or scale_factor"):
        cresize.resize(X, (2**39, 2**39))


def test_dask_bad_chunks_make_no_plan():
    pytest.importorskip("dask.array")
    import cresize.dask

    cresize.clear_cache()
    for bad in (0, -3, "lots"):
        with pytest.raises((ValueError, TypeError)):
            cresize.dask.resize(X, (5, 7), mode="bicubic", chunks=bad)
        with pytest.raises((ValueError, TypeError)):
            cresize.dask.resize_backward(X, (8, 7), mode="bicubic", chunks=bad)
    assert cresize.cache_info()["plans"] == 0


@pytest.fixture
def image():
    pytest.importorskip("PIL")
    from cresize import image

    return image


@pytest.mark.parametrize("path", [None, 3, 1.5, ["a.png"], np.zeros((2, 2, 3), np.uint8)])
def test_open_image_path_types(image, path):
    # Pillow's error was an AttributeError ('int' object has no attribute 'read')
    # what is taken, named: bytes names too, and a file object where the function reads one
    taken = r"path must be a str, bytes or os\.PathLike \(a file name\)"
    with pytest.raises(TypeError, match=taken + r" or a binary file object") as raised:
        image.open_image(path)
    assert type(path).__name__ in str(raised.value)
    with pytest.raises(TypeError, match=taken + r"; got ") as raised:
        image.save_image(np.zeros((2, 2, 3), np.uint8), path)
    assert "file object" not in str(raised.value)


def test_image_path_with_a_nul(image, tmp_path):
    with pytest.raises(ValueError, match="path must not contain a NUL"):
        image.open_image(str(tmp_path / "a\0.png"))
    with pytest.raises(ValueError, match="path must not contain a NUL"):
        image.save_image(np.zeros((2, 2, 3), np.uint8), str(tmp_path / "a\0.png"))
    assert os.listdir(tmp_path) == []


def test_image_bytes_given_as_a_path_are_not_dumped_into_the_message(image, tmp_path):
    # open_image(data) said "path must not contain a NUL character; got b'\\x89PNG...'"
    # with the whole file's repr in it (30 MB for a 10 MB photo), and no word of what
    # reads the bytes.
    data = b"\x89PNG\r\n\x1a\n" + bytes(100_000)
    with pytest.raises(ValueError) as caught:
        image.open_image(data)
    message = str(caught.value)
    assert len(message) < 300, message[:300]
    assert "100,008 bytes beginning b'\\x89PNG" in message
    assert "open_image(io.BytesIO(data)) reads them" in message
    with pytest.raises(ValueError, match="path must not contain a NUL") as caught:
        image.save_image(np.zeros((2, 2, 3), np.uint8), data)
    assert len(str(caught.value)) < 300 and "BytesIO" not in str(caught.value)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("bad", [None, b"png", [[1, 2], [3, 4]], "image.png", 3.0])
def test_save_image_image_types(image, tmp_path, bad):
    # an AttributeError: 'list' object has no attribute 'size'
    with pytest.raises(TypeError, match=r"image must be a PIL\.Image\.Image or a NumPy array"):
        image.save_image(bad, tmp_path / "x.png")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("shape", [(), (4,), (2, 2, 2, 3)])
def test_save_image_array_dimensions(image, tmp_path, shape):
    # a 0-d array: Pillow's IndexError (tuple index out of range)
    with pytest.raises(TypeError, match="cannot be written"):
        image.save_image(np.zeros(shape, np.uint8), tmp_path / "x.png")


def test_resize_image_huge_scale_and_box(image):
    rgb = np.zeros((6, 8, 3), np.uint8)
    for scale in (1e308, (1.0, 1e300), 2.0**40):
        with pytest.raises(ValueError, match="scale="):  # an OverflowError from math.floor
            image.resize_image(rgb, scale=scale)
    for name in ("fill", "fit"):
        with pytest.raises(ValueError, match=f"{name}="):  # it named size
            image.resize_image(rgb, **{name: (2**40, 2**40)}, allow_upscale=True)
        # not enlarged: the image keeps its size
        assert image.resize_image(rgb, **{name: (2**40, 2**40)}).shape == rgb.shape


@pytest.mark.parametrize("shape", [(0, 5, 3), (4, 0), (4, 5, 0)])
def test_resize_image_empty_array(image, shape):
    # "size must be >= 1; got (7, 0)": the image had no pixels, not the size
    with pytest.raises(ValueError, match="image array has no pixels"):
        image.resize_image(np.zeros(shape, np.uint8), size=(2, 2))


def test_fuzz_cases_rerun_alone():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = check(make_case(*SLICE[:2]))
    assert result["failures"] == [] and not math.isnan(len(result["labels"]))


def test_adjoint_scale_arrays():
    from cresize import testing

    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 7))
    m = testing.reference_matrices(x.shape, (3, 4))
    g = rng.standard_normal((3, 4))
    want = testing.adjoint_scale(x, g, m)
    # the same values in another memory order: the same float (it differed in its last
    # bits: np.sum's order follows the strides)
    assert testing.adjoint_scale(np.asfortranarray(x), np.asfortranarray(g), m) == want
    assert testing.adjoint_scale(x.tolist(), g, m) == want
    with pytest.raises(TypeError, match="x is a masked array"):  # the mask was dropped
        testing.adjoint_scale(np.ma.masked_array(x, mask=x > 0), g, m)
    with pytest.raises(TypeError, match="g must be a real"):  # the imaginary part was
        testing.adjoint_scale(x, g + 1j, m)


def test_testing_takes_a_byte_swapped_dtype():
    from cresize import testing

    # '>f4' was refused ("dtype must be float32 or float64; got >f4"); cresize.plan takes it
    for check_ in (testing.check_adjoint, testing.check_reference):
        assert check_((4, 5), (3, 7), dtype=">f4") == check_((4, 5), (3, 7), dtype="float32")
