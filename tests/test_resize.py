"""cresize against the dense float64 oracle (tests/oracle.py, written from docs/spec.md).

Every mode x align_corners x antialias x dtype on awkward geometries: forward
values, backward values, the adjoint identity, finite differences, thread-count
independence, NaN/Inf propagation and the identity rule.
"""

import numpy as np
import pytest

import cresize
from helpers.oracle import (
    assert_close,
    dense_weights,
    operator_scale,
    reference_backward,
    reference_resize,
)

CONFIGS = [("nearest", False, False), ("nearest-exact", False, False), ("area", False, False)] + [
    (mode, ac, aa)
    for mode in ("bilinear", "bicubic", "lanczos3")
    for ac in (False, True)
    for aa in (False, True)
]
CONFIG_IDS = [f"{m}-ac{int(ac)}-aa{int(aa)}" for m, ac, aa in CONFIGS]
DTYPES = [np.float32, np.float64]

# (input length, output length or None, scale_factor or None)
GEOMETRIES_1D = [
    (5, 5, None),
    (1, 1, None),
    (1, 7, None),
    (7, 1, None),
    (1, 300, None),
    (300, 1, None),
    (7, 1000, None),
    (13, 6, None),
    (6, 13, None),
    (23, 17, None),
    (64, 21, None),
    (10, None, 0.37),
    (9, None, 1.7),
    (5, None, 2.5),
    (20, None, 0.5),
    (11, None, 1.0),
    (12, None, 0.999),
]


def options(config):
    mode, ac, aa = config
    return dict(mode=mode, align_corners=ac, antialias=aa)


def random_array(shape, dtype, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype)


def call_kwargs(n_out, factor):
    return {"size": n_out} if factor is None else {"scale_factor": factor}


def check_both_passes(x, kwargs, opts, mats_axes, dtype):
    """Forward and backward of cresize against the oracle, and the adjoint identity."""
    sizes = kwargs.get("size")
    factors = kwargs.get("scale_factor")
    axes = kwargs.get("axes")
    y = cresize.resize(x, **kwargs, **opts)
    assert y.dtype == dtype and y.flags.c_contiguous
    ref_sizes = None if sizes is None else dict(zip(axes, np.broadcast_to(sizes, len(axes))))
    ref_factors = None if factors is None else dict(zip(axes, np.broadcast_to(factors, len(axes))))
    expected = reference_resize(x, ref_sizes, ref_factors, **opts)
    mats = [
        dense_weights(
            x.shape[a],
            y.shape[a],
            opts["mode"],
            opts["align_corners"],
            opts["antialias"],
            None if ref_factors is None else ref_factors[a],
        )
        for a in axes
    ]
    assert_close(y, expected, operator_scale(x, mats), dtype, "forward")

    g = random_array(y.shape, dtype, seed=1)
    back_kwargs = {k: v for k, v in kwargs.items() if k != "size"}
    gx = cresize.resize_backward(g, x.shape, **back_kwargs, **opts)
    assert gx.shape == x.shape and gx.dtype == dtype
    expected_g = reference_backward(g, x.shape, ref_factors, axes=axes, **opts)
    assert_close(gx, expected_g, operator_scale(g, [m.T for m in mats]), dtype, "backward")

    if dtype == np.float64:  # <resize(x), g> == <x, resize_backward(g)>
        lhs, rhs = np.vdot(y, g), np.vdot(x, gx)
        scale = np.abs(y).ravel() @ np.abs(g).ravel() + 1e-300
        assert abs(lhs - rhs) <= 1e-13 * scale * max(1, len(y.ravel())) ** 0.5


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("geometry", GEOMETRIES_1D, ids=str)
@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_one_axis(config, geometry, dtype):
    n_in, n_out, factor = geometry
    x = random_array((3, n_in), dtype)
    kwargs = dict(call_kwargs(n_out, factor), axes=(1,))
    check_both_passes(x, kwargs, options(config), (1,), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize(
    "case",
    [
        ((2, 3, 11, 9), dict(size=(5, 14), axes=(2, 3))),
        ((2, 3, 11, 9), dict(scale_factor=(0.6, 2.3), axes=(2, 3))),
        ((4, 5, 6, 7), dict(size=(3, 8, 4), axes=(1, 2, 3))),  # a volume
        ((9, 7, 3), dict(size=(4, 12), axes=(0, 1))),  # HWC image
        ((2, 7, 3, 8), dict(size=(13, 3), axes=(3, 1))),  # unsorted axes
        ((37,), dict(size=(5,), axes=(0,))),  # 1-D signal
    ],
    ids=["nchw", "nchw-scale", "volume", "hwc", "unsorted-axes", "signal"],
)
def test_several_axes(case, config, dtype):
    shape, kwargs = case
    check_both_passes(random_array(shape, dtype), kwargs, options(config), kwargs["axes"], dtype)


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_default_axes_and_axis_by_axis(config):
    opts = options(config)
    x = random_array((2, 3, 10, 12), np.float64)
    y = cresize.resize(x, (7, 19), **opts)
    assert y.shape == (2, 3, 7, 19)
    np.testing.assert_array_equal(y, cresize.resize(x, (7, 19), axes=(-2, -1), **opts))
    np.testing.assert_array_equal(cresize.resize(x, 7, **opts), cresize.resize(x, (7, 7), **opts))
    step = cresize.resize(cresize.resize(x, 7, axes=2, **opts), 19, axes=3, **opts)
    np.testing.assert_allclose(y, step, rtol=0, atol=1e-13)
    g = random_array(y.shape, np.float64, seed=3)
    gx = cresize.resize_backward(g, x.shape, **opts)  # axes found from the shapes
    np.testing.assert_array_equal(gx, cresize.resize_backward(g, x.shape, axes=(2, 3), **opts))


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize(
    "kwargs", [dict(size=(11, 7)), dict(size=(4, 16)), dict(scale_factor=(0.7, 1.9))], ids=str
)
def test_finite_differences(config, kwargs):
    opts = options(config)
    x = random_array((2, 8, 9), np.float64)
    y = cresize.resize(x, **kwargs, **opts)
    g = random_array(y.shape, np.float64, seed=4)
    back = {k: v for k, v in kwargs.items() if k != "size"}
    gx = cresize.resize_backward(g, x.shape, **back, **opts)
    rng = np.random.default_rng(5)
    for _ in range(3):
        v = rng.standard_normal(x.shape)
        h = 1e-3
        fd = (
            np.vdot(cresize.resize(x + h * v, **kwargs, **opts), g)
            - np.vdot(cresize.resize(x - h * v, **kwargs, **opts), g)
        ) / (2 * h)
        assert fd == pytest.approx(np.vdot(gx, v), rel=1e-9, abs=1e-9)


@pytest.fixture
def every_thread(monkeypatch):
    """Small arrays use every thread: plans compiled now (not cached ones) take it."""
    monkeypatch.setattr(cresize._plan, "MIN_WORK_PER_THREAD", 1)
    cresize.clear_cache()
    yield
    cresize.clear_cache()


def test_every_thread_reaches_the_kernels(every_thread):
    p = cresize.plan((3, 70, 90), (45, 200))
    assert all(step[4].most_threads > 3 for step in p._forward.direct.steps)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize(
    "shape,size",
    [((3, 70, 90), (45, 200)), ((2, 2, 130, 40), (9, 64)), ((300, 1), (7, 1))],
    ids=str,
)
def test_threads_bitwise(config, dtype, shape, size, every_thread):
    opts = options(config)
    x = random_array(shape, dtype)
    x.ravel()[::7] = -0.0  # signed zeros must come out the same too
    results = [cresize.resize(x, size, num_threads=n, **opts) for n in (1, 2, 3, None, -1)]
    g = random_array(results[0].shape, dtype, seed=2)
    g.ravel()[::5] = -0.0
    grads = [
        cresize.resize_backward(g, x.shape, num_threads=n, **opts) for n in (1, 2, 3, None, -1)
    ]
    for r in results[1:] + grads[1:]:
        reference = results[0] if r.shape == results[0].shape else grads[0]
        assert r.tobytes() == reference.tobytes()  # bit for bit


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos3"])
def test_threads_bitwise_with_inf_in_a_long_signal(mode, every_thread):
    # few lines, many outputs: threads share out the outputs of a line instead of lines
    x = np.zeros((1, 40000))
    x[0, 0] = np.inf
    x[0, 5] = -0.0
    ys = [cresize.resize(x, 80000, axes=1, mode=mode, num_threads=n) for n in (1, 2, 3)]
    assert ys[0].tobytes() == ys[1].tobytes() == ys[2].tobytes()
    assert np.isinf(ys[0][0, 0])


def test_threads_bitwise_default_work_split():
    x = random_array((2, 3, 300, 200), np.float32)
    y = [cresize.resize(x, (170, 420), mode="bicubic", num_threads=n) for n in (1, 2, 3)]
    assert y[0].tobytes() == y[1].tobytes() == y[2].tobytes()


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("size", [(6, 5), (23, 29), (1, 2)], ids=str)
def test_nan_and_inf_reach_exactly_their_outputs(config, size):
    opts = options(config)
    mode, ac, aa = config
    shape = (9, 11)
    w0 = dense_weights(shape[0], size[0], mode, ac, aa)
    w1 = dense_weights(shape[1], size[1], mode, ac, aa)
    for value, (i, j) in [(np.nan, (4, 0)), (np.inf, (0, 10)), (np.nan, (8, 5))]:
        x = np.zeros(shape)
        x[i, j] = value
        y = cresize.resize(x, size, **opts)
        reached = np.outer(w0[:, i] != 0, w1[:, j] != 0)
        assert np.array_equal(~np.isfinite(y), reached)
        assert np.all(y[~reached] == 0)
        g = np.zeros(size)
        g[reached] = 1.0
        g[0, 0] = value
        gx = cresize.resize_backward(g, shape, **opts)
        assert np.array_equal(~np.isfinite(gx), np.outer(w0[0] != 0, w1[0] != 0))


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unchanged_axis_is_identity(config, dtype):
    opts = options(config)
    for n in (1, 2, 7, 33):
        assert np.array_equal(cresize.weights(n, n, **opts), np.eye(n))
    x = random_array((5, 8, 13), dtype)
    assert np.array_equal(cresize.resize(x, (8, 13), **opts), x)
    assert np.array_equal(
        cresize.resize(x, (8, 6), **opts)[:, :, :], cresize.resize(x, 6, axes=2, **opts)
    )
    if not opts["align_corners"]:
        assert np.array_equal(cresize.resize(x, scale_factor=1.0, **opts), x)


@pytest.mark.parametrize("config", CONFIGS, ids=CONFIG_IDS)
def test_weights_is_the_axis_operator(config):
    opts = options(config)
    x = random_array((4, 15, 3), np.float64)
    for n_out, factor in [(6, None), (40, None), (None, 1.45)]:
        w = cresize.weights(15, n_out, scale_factor=factor, **opts)
        assert w.shape == (
            cresize.resize(x, **call_kwargs(n_out, factor), axes=1, **opts).shape[1],
            15,
        )
        y = cresize.resize(x, **call_kwargs(n_out, factor), axes=1, **opts)
        np.testing.assert_allclose(y, np.einsum("oi,bic->boc", w, x), rtol=0, atol=1e-14)
        expected = dense_weights(15, w.shape[0], *config, scale_factor=factor)
        np.testing.assert_allclose(w, expected, rtol=0, atol=1e-13)


def test_antialias_when_enlarging_is_bilinear_but_not_bicubic():
    """docs/spec.md section 4: enlarging, antialiased bilinear equals bilinear with
    align_corners=False (by size and by scale_factor), not with align_corners=True (the
    scale is (I-1)/(O-1) but the centre stays half-pixel); antialiased bicubic is not
    bicubic (A = -0.5, renormalised edges)."""
    for n_in in range(1, 14):
        for n_out, factor in [(n_in + 1, None), (2 * n_in + 3, None), (None, 1.37), (None, 4.0)]:
            kw = dict(scale_factor=factor)
            plain = cresize.weights(n_in, n_out, mode="bilinear", **kw)
            smooth = cresize.weights(n_in, n_out, mode="bilinear", antialias=True, **kw)
            np.testing.assert_allclose(smooth, plain, rtol=0, atol=1e-15)
    for n_in, n_out in [(5, 9), (4, 13), (3, 8)]:
        corners = dict(mode="bilinear", align_corners=True)
        assert (
            np.abs(
                cresize.weights(n_in, n_out, antialias=True, **corners)
                - cresize.weights(n_in, n_out, **corners)
            ).max()
            > 0.1
        )
        assert (
            np.abs(
                cresize.weights(n_in, n_out, mode="bicubic", antialias=True)
                - cresize.weights(n_in, n_out, mode="bicubic")
            ).max()
            > 0.01
        )
