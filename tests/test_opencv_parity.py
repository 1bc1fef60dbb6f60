"""cresize against OpenCV's ``cv2.resize`` and Pillow on 8/16-bit and float32 images.

What docs/guide/modes.md ("Coming from OpenCV or Pillow") says of each flag, checked:
which cresize mode gives the same operator, how close the numbers are, and where
the two are different operators. OpenCV's ``dsize`` is (width, height); cresize's
``size`` is (height, width) with ``axes=(0, 1)`` for a channels-last image.
"""

import numpy as np
import pytest

import cresize

cv2 = pytest.importorskip("cv2")


def photo(shape, dtype):
    """A smooth image with hard-edged squares and noise, as a photo has."""
    rng = np.random.default_rng(sum(shape))
    h, w = shape[:2]
    yy, xx = np.mgrid[0:h, 0:w]
    base = 0.5 + 0.3 * np.sin(xx / 7.0) * np.cos(yy / 5.0) + 0.2 * ((xx // 9 + yy // 11) % 2 - 0.5)
    base = np.clip(base[..., None] + 0.05 * rng.standard_normal((h, w, shape[2])), 0, 1)
    if np.dtype(dtype).kind == "f":
        return base.astype(dtype)
    return np.rint(base * np.iinfo(dtype).max).astype(dtype)


def both(x, size, mode, flag):
    """cresize and OpenCV on one channels-last image, as float64."""
    ours = cresize.resize(x, size, mode=mode, axes=(0, 1))
    theirs = cv2.resize(x, (size[1], size[0]), interpolation=flag)
    if x.ndim == 3 and x.shape[2] == 1:  # OpenCV drops a single channel's axis
        assert theirs.ndim == 2
        theirs = theirs[..., None]
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    return ours.astype(np.float64), theirs.astype(np.float64)


SIZES = [((61, 47), (122, 94)), ((61, 47), (30, 23)), ((61, 47), (19, 83)), ((60, 48), (20, 12))]


@pytest.mark.parametrize(
    "mode, flag", [("nearest", "INTER_NEAREST"), ("nearest-exact", "INTER_NEAREST_EXACT")]
)
def test_nearest_flags_read_the_same_pixel_but_on_a_boundary(mode, flag):
    """The same input index, except where the exact source position is a whole
    number: there OpenCV's index (floating point, 16.16 fixed point for
    INTER_NEAREST_EXACT) is one pixel earlier; cresize's is exact (docs/spec.md)."""
    differ = 0
    for n_in in range(1, 41):
        x = np.tile(np.arange(n_in, dtype=np.float32), (2, 1))[..., None]
        for n_out in range(1, 61):
            ours, theirs = both(x, (2, n_out), mode, getattr(cv2, flag))
            ours, theirs = ours[0, :, 0], theirs[0, :, 0]
            o = np.arange(n_out)
            whole = (
                (o * n_in) % n_out == 0
                if mode == "nearest"
                else ((2 * o + 1) * n_in) % (2 * n_out) == 0
            )
            np.testing.assert_array_equal(ours[~whole], theirs[~whole])
            assert np.isin(ours[whole] - theirs[whole], [0, 1]).all(), (n_in, n_out)
            differ += int((ours != theirs).sum())
    assert differ > 0  # OpenCV's rounding shows on some of these sizes


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("mode, flag", [("bilinear", "INTER_LINEAR"), ("bicubic", "INTER_CUBIC")])
@pytest.mark.parametrize("shape, size", SIZES)
def test_linear_and_cubic_agree_within_one_level(dtype, mode, flag, shape, size):
    """OpenCV sums 8-bit pixels with 11-bit fixed-point weights and 16-bit ones in
    float32: within 1 of cresize; float32 within a few ulps."""
    for x in (photo((*shape, 3), dtype), photo((*shape, 1), dtype)[..., 0]):
        if np.dtype(dtype).kind == "u":
            info = np.iinfo(dtype)
            edges = np.where(np.indices(x.shape).sum(0) % 3 == 0, info.max, info.min)
            cases = [x, edges.astype(dtype)]  # overshoot, clipped once by both
        else:
            cases = [x]
        for image in cases:
            ours, theirs = both(image, size, mode, getattr(cv2, flag))
            tol = 1.0 if np.dtype(dtype).kind == "u" else 2e-6
            assert np.abs(ours - theirs).max() <= tol


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
def test_area_is_inter_area_for_whole_factors_only(dtype):
    x = photo((60, 48, 3), dtype)
    tol = 1.0 if np.dtype(dtype).kind == "u" else 2e-6
    # Shrinking by whole factors: the same box mean (OpenCV rounds ties up, cresize to even).
    for size in [(20, 12), (30, 24), (15, 16), (1, 1)]:
        ours, theirs = both(x, size, "area", cv2.INTER_AREA)
        assert np.abs(ours - theirs).max() <= tol, size
    # Enlarging by whole factors: both repeat each pixel.
    ours, theirs = both(x, (120, 144), "area", cv2.INTER_AREA)
    np.testing.assert_array_equal(ours, theirs)
    # Other factors: OpenCV weights a partly covered pixel by its coverage (and
    # interpolates when enlarging); cresize's area, PyTorch's, takes whole pixels.
    scale = 1.0 if np.dtype(dtype).kind == "f" else float(np.iinfo(dtype).max)
    for size in [(23, 17), (97, 83)]:
        ours, theirs = both(x, size, "area", cv2.INTER_AREA)
        assert np.abs(ours - theirs).max() > 0.05 * scale, size


def test_lanczos4_is_another_kernel():
    """INTER_LANCZOS4 has 8 taps (a = 4); cresize's lanczos3 has 6: no flag of one
    is the other."""
    x = photo((61, 47, 3), np.float32)
    ours, theirs = both(x, (122, 94), "lanczos3", cv2.INTER_LANCZOS4)
    assert np.abs(ours - theirs).max() > 1e-3


def test_pillow_nearest_is_nearest_exact():
    """Pillow's NEAREST samples each output's centre: cresize's nearest-exact, not nearest."""
    Image = pytest.importorskip("PIL.Image")
    x = photo((61, 47, 3), np.uint8)
    for h, w in [(30, 23), (19, 83), (122, 94), (7, 5)]:
        pil = np.asarray(Image.fromarray(x).resize((w, h), Image.Resampling.NEAREST))
        np.testing.assert_array_equal(
            cresize.resize(x, (h, w), mode="nearest-exact", axes=(0, 1)), pil
        )
    pil = np.asarray(Image.fromarray(x).resize((23, 30), Image.Resampling.NEAREST))
    assert (cresize.resize(x, (30, 23), mode="nearest", axes=(0, 1)) != pil).any()


def test_pillow_box_is_area_for_whole_factors_only():
    Image = pytest.importorskip("PIL.Image")
    x = photo((60, 48, 3), np.uint8)
    for h, w in [(20, 12), (30, 24), (120, 96)]:
        pil = np.asarray(Image.fromarray(x).resize((w, h), Image.Resampling.BOX))
        ours = cresize.resize(x, (h, w), mode="area", axes=(0, 1))
        assert np.abs(ours.astype(int) - pil).max() <= 1, (h, w)
    pil = np.asarray(Image.fromarray(x).resize((17, 23), Image.Resampling.BOX))
    ours = cresize.resize(x, (23, 17), mode="area", axes=(0, 1))
    assert np.abs(ours.astype(int) - pil).max() > 10


@pytest.mark.parametrize(
    "mode, name", [("bilinear", "BILINEAR"), ("bicubic", "BICUBIC"), ("lanczos3", "LANCZOS")]
)
def test_pillow_8bit_within_one_level_without_overshoot(mode, name):
    """Pillow rounds and clips between its passes; where nothing overshoots past 0 or
    255 that changes nothing, and its 8-bit result is within 1 of cresize's."""
    Image = pytest.importorskip("PIL.Image")
    x = (40 + 0.7 * photo((61, 47, 3), np.float64) * 255).round().astype(np.uint8)
    for h, w in [(30, 23), (19, 83), (122, 94)]:
        pil = np.asarray(Image.fromarray(x).resize((w, h), getattr(Image.Resampling, name)))
        ours = cresize.resize(x, (h, w), mode=mode, antialias=True, axes=(0, 1))
        assert np.abs(ours.astype(int) - pil).max() <= 1, (h, w)
    edges = np.where(np.indices((61, 47, 3)).sum(0) % 3 == 0, 255, 0).astype(np.uint8)
    pil = np.asarray(Image.fromarray(edges).resize((94, 122), getattr(Image.Resampling, name)))
    ours = cresize.resize(edges, (122, 94), mode=mode, antialias=True, axes=(0, 1))
    gap = np.abs(ours.astype(int) - pil).max()
    assert gap <= 1 if mode == "bilinear" else gap > 1  # bilinear cannot overshoot


@pytest.mark.parametrize("mode, flag", [("bilinear", "INTER_LINEAR"), ("nearest", "INTER_NEAREST")])
def test_scale_factor_floors_where_opencv_rounds(mode, flag):
    """fx/fy: OpenCV rounds the length, cresize floors it; both read at 1/f, so
    cresize's result is OpenCV's first rows and columns."""
    x = photo((301, 257, 3), np.float32)
    for f in (0.7, 1.5, 0.45, 0.5):
        theirs = cv2.resize(x, None, fx=f, fy=f, interpolation=getattr(cv2, flag))
        ours = cresize.resize(x, scale_factor=f, mode=mode, axes=(0, 1))
        assert theirs.shape[:2] == tuple(round(n * f) for n in x.shape[:2])
        assert ours.shape[:2] == tuple(int(n * f) for n in x.shape[:2])
        np.testing.assert_allclose(ours, theirs[: ours.shape[0], : ours.shape[1]], atol=2e-6)
