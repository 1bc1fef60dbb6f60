"""Seeded fuzz test: cresize against the dense float64 oracle (tests/helpers/oracle.py).

``CONFIGS`` is a fixed list of random configurations (seed ``SEED``; each
configuration draws its own data from ``(SEED, index)``, so any one of them can
be rerun alone with ``check(CONFIGS[i])``). Each covers, at random:

* an N-D shape (1-4 dimensions, small lengths), any non-empty subset of the
  axes in any order (or ``axes=None`` and the default rule);
* ``size`` (a tuple, or one int for every axis) or ``scale_factor`` (a tuple or
  one float), including factors ``f != 1`` with ``floor(I*f) == I``;
* a valid (mode, align_corners, antialias) combination: all 15 cycle in turn;
* float32 or float64; the input and the gradient as non-contiguous (stepped),
  negative-stride, transposed and byte-swapped views; ``out=`` or not;
  ``num_threads`` None, 1 or 2;

and checks the forward and the backward against the oracle within the
docs/spec.md tolerances, and the adjoint identity ``<W x, g> == <x, W^T g>``.
"""

import math

import numpy as np
import pytest

import cresize
from helpers.cases import COMBOS
from helpers.oracle import (
    assert_close,
    backward_matrices,
    operator_scale,
    reference_backward,
    reference_matrices,
    reference_resize,
    tolerance,
)

SEED = 20261201
N_CONFIGS = 2400
CHUNK = 100

DTYPES = (np.float32, np.float64)


def _factor(rng, n_in, keep):
    """A factor for an axis of length ``n_in``; ``keep``: ``floor(n_in*f) == n_in`` with f != 1."""
    if keep:
        while True:  # f in (1, (n_in + 1) / n_in): the length stays, the scale does not
            f = 1.0 + rng.uniform(0.01, 0.99) / n_in
            if math.floor(n_in * f) == n_in and f != 1.0:
                return f
    while True:
        f = (
            float(rng.choice([0.5, 2.0, 1.5, 0.75, 3.0, 1.0 / 3.0]))
            if rng.random() < 0.3
            else rng.uniform(0.2, 3.2)
        )
        if math.floor(n_in * f) >= 1:
            return f


def make_config(index):
    """Configuration ``index`` (a plain dict), reproducible on its own."""
    rng = np.random.default_rng([SEED, index])
    mode, align_corners, antialias = COMBOS[index % len(COMBOS)]
    dtype = DTYPES[(index // len(COMBOS)) % 2]
    ndim = int(rng.integers(1, 5))
    shape = tuple(int(n) for n in rng.integers(1, 8, ndim))
    by_size = bool(rng.random() < 0.5)
    one_value = bool(rng.random() < 0.25)  # one int / float for every resized axis
    if rng.random() < 0.3:  # the default axes: the last len(tuple), or last min(2, ndim)
        axes = None
        n = min(2, ndim) if one_value else int(rng.integers(1, ndim + 1))
        resized = tuple(range(ndim - n, ndim))
    else:
        n = int(rng.integers(1, ndim + 1))
        resized = tuple(int(a) for a in rng.permutation(ndim)[:n])
        axes = tuple(a - ndim if rng.random() < 0.2 else a for a in resized)  # negative too
    if by_size:
        lengths = [int(rng.integers(1, 10)) for _ in resized]
        if one_value:
            lengths = [lengths[0]] * len(resized)
        geometry = dict(size=lengths[0] if one_value else tuple(lengths))
        factors = None
    else:
        keep = rng.random() < 0.3
        if one_value:  # f = 1 + u/max(I) keeps every axis; min(I) keeps every axis >= 1
            ref = (max if keep else min)(shape[a] for a in resized)
            factors = [_factor(rng, ref, keep)] * len(resized)
        else:
            factors = [_factor(rng, shape[a], keep and rng.random() < 0.8) for a in resized]
        lengths = [math.floor(shape[a] * f) for a, f in zip(resized, factors)]
        geometry = dict(scale_factor=factors[0] if one_value else tuple(factors))
    return dict(
        index=index,
        shape=shape,
        axes=axes,
        resized=resized,
        lengths=lengths,
        factors=factors,
        geometry=geometry,
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
        dtype=dtype,
        x_view=_layout(rng, ndim),
        g_view=_layout(rng, ndim),
        out=bool(rng.random() < 0.2),
        threads=[None, 1, 2][int(rng.integers(0, 3))],
    )


def _layout(rng, ndim):
    """Which views make up an array: byte-swapped, transposed, stepped, flipped."""
    return dict(
        swap=bool(rng.random() < 0.25),
        transpose=tuple(int(a) for a in rng.permutation(ndim)) if rng.random() < 0.3 else None,
        step=int(rng.integers(0, ndim)) if rng.random() < 0.3 else None,
        flip=int(rng.integers(0, ndim)) if rng.random() < 0.3 else None,
    )


def view(values, dtype, layout):
    """An array equal to ``values.astype(dtype)`` made of the views ``layout`` names."""
    dt = np.dtype(dtype)
    if layout["swap"]:
        dt = dt.newbyteorder()
    a = values.astype(dt)
    if layout["transpose"] is not None:  # a transposed view of a contiguous buffer
        perm = layout["transpose"]
        a = np.ascontiguousarray(a.transpose(perm)).transpose(np.argsort(perm))
    if layout["step"] is not None:  # every other element of a bigger buffer
        k = layout["step"]
        big_shape = list(a.shape)
        big_shape[k] *= 2
        big = np.full(big_shape, np.nan, dt)
        index = [slice(None)] * a.ndim
        index[k] = slice(None, None, 2)
        big[tuple(index)] = a
        a = big[tuple(index)]
    if layout["flip"] is not None:  # a negative stride
        k = layout["flip"]
        a = np.flip(np.flip(a, k).copy(), k)
    assert np.array_equal(a, values.astype(dtype))
    return a


def _options(cfg):
    return dict(mode=cfg["mode"], align_corners=cfg["align_corners"], antialias=cfg["antialias"])


def check(cfg):
    """Forward, backward and the adjoint identity of one configuration."""
    rng = np.random.default_rng([SEED, cfg["index"], 1])
    dtype, shape, resized = cfg["dtype"], cfg["shape"], cfg["resized"]
    out_shape = list(shape)
    for a, n in zip(resized, cfg["lengths"]):
        out_shape[a] = n
    out_shape = tuple(out_shape)
    options = _options(cfg)
    # Values exactly representable in dtype: the oracle sees what cresize sees.
    xv = rng.uniform(-1, 1, shape).astype(dtype).astype(np.float64)
    gv = rng.uniform(-1, 1, out_shape).astype(dtype).astype(np.float64)
    x, g = view(xv, dtype, cfg["x_view"]), view(gv, dtype, cfg["g_view"])
    x_before, g_before = x.copy(), g.copy()
    if cfg["factors"] is None:
        oracle = dict(sizes=dict(zip(resized, cfg["lengths"])))
        backward_geometry = {}
    else:
        oracle = dict(scale_factors=dict(zip(resized, cfg["factors"])))
        backward_geometry = dict(scale_factor=cfg["geometry"]["scale_factor"])

    out = np.empty(out_shape, dtype) if cfg["out"] else None
    y = cresize.resize(
        x, **cfg["geometry"], axes=cfg["axes"], out=out, num_threads=cfg["threads"], **options
    )
    assert out is None or y is out
    assert y.shape == out_shape and y.dtype == np.dtype(dtype) and y.flags.c_contiguous
    mats = reference_matrices(shape, **oracle, **options)
    forward_scale = operator_scale(xv, mats)
    assert_close(y, reference_resize(xv, **oracle, **options), forward_scale, dtype, "forward")

    out = np.empty(shape, dtype) if cfg["out"] else None
    gx = cresize.resize_backward(
        g,
        shape,
        **backward_geometry,
        axes=cfg["axes"],
        out=out,
        num_threads=cfg["threads"],
        **options,
    )
    assert out is None or gx is out
    assert gx.shape == shape and gx.dtype == np.dtype(dtype) and gx.flags.c_contiguous
    bmats = backward_matrices(
        out_shape, shape, oracle.get("scale_factors"), axes=resized, **options
    )
    backward_scale = operator_scale(gv, [w.T for w in bmats.values()])
    assert_close(
        gx,
        reference_backward(gv, shape, oracle.get("scale_factors"), axes=resized, **options),
        backward_scale,
        dtype,
        "backward",
    )

    # <W x, g> == <x, W^T g>, each side from cresize: within what the two tolerances allow.
    y64, gx64 = y.astype(np.float64), gx.astype(np.float64)
    lhs, rhs = float(np.vdot(y64, gv)), float(np.vdot(xv, gx64))
    bound = tolerance(dtype) * (
        forward_scale * np.abs(gv).sum() + backward_scale * np.abs(xv).sum()
    )
    bound += 1e-13 * (np.abs(y64 * gv).sum() + np.abs(xv * gx64).sum())  # float64 sums
    assert abs(lhs - rhs) <= bound, f"adjoint: {lhs!r} != {rhs!r} (bound {bound:.3e})"

    assert np.array_equal(x, x_before) and np.array_equal(g, g_before)  # inputs untouched


CONFIGS = [make_config(i) for i in range(N_CONFIGS)]


def test_configuration_count_and_coverage():
    """The fuzz set is what the docstring says: at least 2,000 configurations, all kinds."""
    assert len(CONFIGS) >= 2000
    seen = {(c["mode"], c["align_corners"], c["antialias"], c["dtype"]) for c in CONFIGS}
    assert len(seen) == len(COMBOS) * len(DTYPES) == 30
    assert {len(c["shape"]) for c in CONFIGS} == {1, 2, 3, 4}
    keep = [
        c
        for c in CONFIGS
        if c["factors"] is not None
        and any(
            f != 1 and math.floor(c["shape"][a] * f) == c["shape"][a]
            for a, f in zip(c["resized"], c["factors"])
        )
    ]
    assert len(keep) >= 200  # floor(I*f) == I with f != 1
    assert sum(c["factors"] is None for c in CONFIGS) >= 800
    assert sum(c["axes"] is None for c in CONFIGS) >= 400
    assert (
        sum(c["axes"] is not None and list(c["resized"]) != sorted(c["resized"]) for c in CONFIGS)
        >= 200
    )  # axes out of order
    for key in ("swap", "transpose", "step", "flip"):
        for which in ("x_view", "g_view"):
            made = sum(c[which][key] is not None and c[which][key] is not False for c in CONFIGS)
            assert made >= 400, (which, key, made)


@pytest.mark.parametrize("chunk", range(math.ceil(N_CONFIGS / CHUNK)))
def test_fuzz(chunk):
    for cfg in CONFIGS[chunk * CHUNK : (chunk + 1) * CHUNK]:
        try:
            check(cfg)
        except AssertionError as exc:
            shown = {k: v for k, v in cfg.items() if k not in ("factors", "lengths")}
            raise AssertionError(f"fuzz configuration {cfg['index']}: {shown}\n{exc}") from None
