"""Volumes: 3-D resizes as docs/guide/volumes.md describes them.

The claims of that page, each checked here: a volume chunked along every axis gives
through ``cresize.dask`` the bits of ``cresize.resize`` (forward and backward, int16
too), and its pyramid with ``axes=(0, 1, 2)`` equals repeated halvings; int16 volumes
with negative values are the float64 call rounded half to even and clipped; a plan's
backward on an anisotropic ``scale_factor`` is ``resize_backward`` and the adjoint; and
the correspondences with ``scipy.ndimage.zoom`` that the page gives (order 1 with
``grid_mode=True, mode="nearest"`` is bilinear by size, ``grid_mode=False`` is
``align_corners=True``, order 0 with ``grid_mode=True`` is nearest-exact except at
exact ties, and ``zoom``'s factor is a ``size``, not a ``scale_factor``).
PyTorch's 5-D ``F.interpolate`` is checked in tests/test_oracle.py
(``test_nd_values_and_gradients_vs_torch``).
"""

import math

import numpy as np
import pytest

import cresize

MODES = [
    ("nearest", False),
    ("nearest-exact", False),
    ("trilinear", False),
    ("bicubic", False),
    ("lanczos3", False),
    ("area", False),
    ("trilinear", True),
    ("lanczos3", True),
]
#: (input shape, chunks, keywords): every axis chunked, one axis unchanged, anisotropic
#: factors, an antialiased shrink along two axes with an enlarging third.
GEOMETRIES = [
    ((20, 25, 30), (7, 9, 11), dict(size=(9, 40, 17), axes=(0, 1, 2))),
    ((2, 3, 10, 13, 9), (1, 2, 4, 5, 4), dict(scale_factor=(1, 0.5, 2))),
    ((2, 20, 25, 30), (1, 6, 25, 8), dict(size=(7, 25, 11), axes=(1, 2, 3))),
]


def _volume(shape, dtype, rng):
    if np.dtype(dtype) == np.int16:
        x = rng.integers(-1024, 3072, shape).astype(np.int16)
        x.reshape(-1)[::7] = -32768  # saturation on both sides
        x.reshape(-1)[3::11] = 32767
        return x
    return rng.standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("shape,chunks,kw", GEOMETRIES, ids=["size", "factors", "4d-axes"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
def test_dask_volume_chunked_along_every_axis_gives_the_bits(shape, chunks, kw, dtype):
    da = pytest.importorskip("dask.array", reason="cresize.dask needs dask")
    import cresize.dask as cd

    rng = np.random.default_rng(0)
    x = _volume(shape, dtype, rng)
    for mode, aa in MODES:
        options = dict(kw, mode=mode, antialias=aa)
        y = cresize.resize(x, **options)
        lazy = cd.resize(da.from_array(x, chunks=chunks), **options)
        assert np.array_equal(lazy.compute(scheduler="threads"), y), (mode, aa)
        if dtype == "int16":
            continue
        g = rng.standard_normal(y.shape).astype(dtype)
        size = options.pop("size", None)
        gx = cresize.resize_backward(g, shape, **options)
        lazy = cd.resize_backward(da.from_array(g, chunks=chunks), shape, **options)
        assert np.array_equal(lazy.compute(scheduler="threads"), gx), (mode, aa, size)


@pytest.mark.parametrize("dtype,mode", [("int16", "area"), ("float32", "lanczos3")])
def test_dask_pyramid_of_a_volume_halves_every_axis_given(dtype, mode):
    da = pytest.importorskip("dask.array", reason="cresize.dask needs dask")
    import cresize.dask as cd

    x = _volume((37, 64, 50), dtype, np.random.default_rng(1))
    levels = cd.pyramid(da.from_array(x, chunks=(10, 17, 20)), 4, axes=(0, 1, 2), mode=mode)
    assert [level.shape for level in levels] == [(37, 64, 50), (18, 32, 25), (9, 16, 12), (4, 8, 6)]
    expected = x
    for k, level in enumerate(levels):
        if k:
            expected = cresize.resize(
                expected, scale_factor=0.5, axes=(0, 1, 2), mode=mode, antialias=mode != "area"
            )
        assert np.array_equal(level.compute(scheduler="threads"), expected)
    # Without axes, the last two axes (the default of every call): a (D, H, W) stack
    # keeps its depth.
    assert cd.pyramid(x, 2)[1].shape == (37, 32, 25)


@pytest.mark.parametrize("mode,aa", MODES)
def test_int16_volume_rounds_the_float64_result_half_to_even_and_clips(mode, aa):
    x = _volume((20, 33, 35), np.int16, np.random.default_rng(2))
    for kw in [dict(size=(10, 47, 17)), dict(scale_factor=(1, 0.5, 2))]:
        y = cresize.resize(x, axes=(0, 1, 2), mode=mode, antialias=aa, **kw)
        exact = cresize.resize(x.astype(np.float64), axes=(0, 1, 2), mode=mode, antialias=aa, **kw)
        expected = np.clip(np.rint(exact), -32768, 32767).astype(np.int16)
        assert y.dtype == np.int16
        assert np.array_equal(y, expected), (mode, aa, kw)
    if mode in ("trilinear", "area") and not aa:
        # No overshoot: the range is kept; negative halves round to even.
        assert x.min() <= y.min() and y.max() <= x.max()
        ties = np.array([[[-1, -2]], [[-3, -4]]], np.int16)  # means -1.5 and -3.5
        assert cresize.resize(ties, (2, 1, 1), axes=(0, 1, 2), mode=mode).ravel().tolist() == [
            -2,
            -4,
        ]


def test_plan_backward_of_an_anisotropic_volume_is_the_adjoint():
    rng = np.random.default_rng(3)
    shape, factors = (2, 3, 10, 13, 9), (1, 0.5, 2)
    for mode, aa in MODES:
        p = cresize.plan(shape, scale_factor=factors, mode=mode, antialias=aa, dtype=np.float64)
        x = rng.standard_normal(shape)
        y = p(x)
        assert y.shape == (2, 3, 10, 6, 18)
        g = rng.standard_normal(y.shape)
        gx = p.backward(g)
        assert np.array_equal(
            gx, cresize.resize_backward(g, shape, scale_factor=factors, mode=mode, antialias=aa)
        )
        lhs, rhs = float(np.vdot(y, g)), float(np.vdot(x, gx))
        # Round-off of both sums, relative to the sums of their terms' magnitudes.
        scale = float(np.vdot(np.abs(y), np.abs(g)) + np.vdot(np.abs(x), np.abs(gx)))
        assert abs(lhs - rhs) <= 1e-13 * scale, (mode, aa, lhs, rhs)


# scipy.ndimage.zoom


def _zoom(x, size, **kw):
    ndimage = pytest.importorskip("scipy.ndimage", reason="the comparison needs scipy")
    zoom = [o / i for o, i in zip(size, x.shape)]
    z = ndimage.zoom(x, zoom, **kw)
    assert z.shape == tuple(size)
    return z


SCIPY_GEOMETRIES = [
    ((7, 9, 11), (3, 13, 5)),
    ((16, 16, 16), (8, 8, 8)),
    ((5, 6, 7), (10, 12, 14)),
    ((10, 13, 9), (10, 6, 18)),
]


@pytest.mark.parametrize("shape,size", SCIPY_GEOMETRIES)
def test_scipy_zoom_order_1_is_bilinear_by_size(shape, size):
    x = np.random.default_rng(4).standard_normal(shape)
    axes = (0, 1, 2)
    half_pixel = cresize.resize(x, size, axes=axes, mode="bilinear")
    corners = cresize.resize(x, size, axes=axes, mode="bilinear", align_corners=True)
    for boundary in ("nearest", "reflect"):
        z = _zoom(x, size, order=1, grid_mode=True, mode=boundary)
        np.testing.assert_allclose(half_pixel, z, rtol=0, atol=1e-12)
    for boundary in ("nearest", "constant", "mirror"):
        z = _zoom(x, size, order=1, grid_mode=False, mode=boundary)
        np.testing.assert_allclose(corners, z, rtol=0, atol=1e-12)
    if any(o > i for o, i in zip(size, shape)):
        # grid-constant pads with zeros: the outputs beyond the outer centres differ.
        z = _zoom(x, size, order=1, grid_mode=True, mode="grid-constant")
        assert np.abs(half_pixel - z).max() > 0.01


def test_scipy_zoom_order_0_is_nearest_exact_but_at_exact_ties():
    from fractions import Fraction

    pytest.importorskip("scipy.ndimage", reason="the comparison needs scipy")
    rng = np.random.default_rng(5)
    ties = differ = 0
    for n_in in range(1, 40):
        x = rng.standard_normal(n_in)
        for n_out in range(1, 40):
            z = _zoom(x, (n_out,), order=0, grid_mode=True, mode="nearest")
            y = cresize.resize(x, n_out, mode="nearest-exact")
            for o in np.flatnonzero(y != z):
                # Only where (o + 0.5) * I / O is a whole number: scipy's coordinate
                # lands a rounding error below the half.
                assert Fraction((2 * int(o) + 1) * n_in, 2 * n_out).denominator == 1
                differ += 1
            ties += sum(
                Fraction((2 * o + 1) * n_in, 2 * n_out).denominator == 1 for o in range(n_out)
            )
    assert 0 < differ < ties / 10


def test_scipy_zoom_factor_is_a_size_not_a_scale_factor():
    ndimage = pytest.importorskip("scipy.ndimage", reason="the comparison needs scipy")
    x = np.random.default_rng(6).standard_normal((13, 10, 9))
    factors = (0.7, 1.55, 2.5)
    z = ndimage.zoom(x, factors, order=1, grid_mode=True, mode="nearest")
    # zoom's length is round(I * f) and its scale I / O from the lengths.
    assert z.shape == tuple(round(i * f) for i, f in zip(x.shape, factors)) == (9, 16, 22)
    by_size = cresize.resize(x, z.shape, axes=(0, 1, 2))
    np.testing.assert_allclose(by_size, z, rtol=0, atol=1e-12)
    # cresize's scale_factor reads at 1 / f and gives floor(I * f) samples.
    by_factor = cresize.resize(x, scale_factor=factors, axes=(0, 1, 2))
    assert by_factor.shape == tuple(math.floor(i * f) for i, f in zip(x.shape, factors))
    assert by_factor.shape != z.shape
