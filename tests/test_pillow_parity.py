"""cresize against Pillow's resampling of float32 ("F" mode) images.

Pillow's BILINEAR, BICUBIC and LANCZOS are the antialias rule of SPEC
section 4 (half-pixel centres, i.e. align_corners=False), for shrinking and,
as checked here too, for enlarging (Pillow then keeps the unwidened kernel,
which is the same rule with s < 1) and for an unchanged axis (Pillow skips
it; SPEC's weights are the identity there).  Pillow accumulates each pass in
double and stores float32, so float32 tolerances apply (docs/spec.md section 6).
"""

import numpy as np
import pytest

Image = pytest.importorskip("PIL.Image")

from helpers.oracle import assert_close, operator_scale, reference_matrices  # noqa: E402

RESAMPLE = {
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "lanczos3": Image.Resampling.LANCZOS,
}

CASES = {
    "down": [
        ((20, 31), (7, 13)),
        ((9, 9), (1, 4)),
        ((33, 8), (10, 8)),
        ((40, 17), (3, 2)),
        ((64, 48), (9, 5)),
    ],
    "up": [((3, 5), (11, 9)), ((1, 2), (5, 7)), ((6, 6), (13, 6)), ((7, 4), (15, 30))],
    "mixed": [((20, 3), (7, 13)), ((2, 17), (9, 5))],
    "edge": [
        ((1, 1), (1, 1)),
        ((7, 1), (1, 300)),
        ((300, 1), (1, 1)),
        ((1, 7), (1, 1000)),
        ((5, 6), (5, 6)),
    ],
}


@pytest.fixture(scope="module")
def cr():
    import cresize as module  # the library under test: an import failure is an error

    return module


def _pillow(x, size, mode):
    im = Image.fromarray(np.ascontiguousarray(x, dtype=np.float32))
    assert im.mode == "F"
    h, w = size
    return np.asarray(im.resize((w, h), resample=RESAMPLE[mode]), dtype=np.float32)


@pytest.mark.parametrize("kind", list(CASES))
@pytest.mark.parametrize("mode", list(RESAMPLE))
def test_pillow_float_parity(cr, mode, kind):
    rng = np.random.default_rng(11)
    for shape, size in CASES[kind]:
        x = rng.uniform(-2, 2, shape).astype(np.float32)
        y = cr.resize(x, size=size, mode=mode, antialias=True)
        assert y.dtype == np.float32 and y.shape == size
        mats = reference_matrices(x.shape, {0: size[0], 1: size[1]}, mode=mode, antialias=True)
        assert_close(
            y, _pillow(x, size, mode), operator_scale(x, mats), np.float32, f"{shape}->{size}"
        )


@pytest.mark.parametrize("mode", list(RESAMPLE))
def test_pillow_channels_hwc(cr, mode):
    """An HWC image resized on axes (0, 1) equals Pillow on each channel."""
    rng = np.random.default_rng(12)
    x = rng.uniform(0, 1, (23, 17, 3)).astype(np.float32)
    size = (8, 29)
    y = cr.resize(x, size=size, mode=mode, antialias=True, axes=(0, 1))
    assert y.shape == size + (3,)
    mats = reference_matrices(x.shape, {0: size[0], 1: size[1]}, mode=mode, antialias=True)
    expected = np.stack([_pillow(x[..., c], size, mode) for c in range(3)], axis=-1)
    assert_close(y, expected, operator_scale(x, mats), np.float32, "HWC")
