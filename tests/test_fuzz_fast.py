"""Seeded fuzz of the fast paths against the float64 oracle and against each other.

tests/test_fuzz.py covers float32/float64 on small N-D shapes; this file covers what
it rarely reaches (``CASES``: ``N_CASES`` configurations drawn from ``(SEED, index)``,
any one rerun alone with ``check(make_case(i))``):

* every integer dtype, with values at the ends of the range (min/max only, or
  random), float16, float32 and float64 with NaN, +-Inf, signed zeros and subnormals;
* channels-last images ``(H, W, C)`` with ``axes=(0, 1)`` and ``(N, H, W, C)``
  batches (C = 1-9, the pixel kernels), planar ``(N, H, W)`` feature maps, long
  ``(L,)`` / ``(L, C)`` signals;
* exact x2 and x1/2 (the 2x2 block sweeps, odd heights and widths included) and
  other factors, by ``size`` or ``scale_factor``, every mode, align_corners and
  antialias;
* strided, reversed and byte-swapped inputs.

Each case checks: shape, dtype and layout; the input untouched; the same bits for
1, 2 and 3 threads, with ``out=``, from a plan and from ``Plan.run_region`` on a
random region; integers against the rule of docs/kernels.md to the bit (8-bit:
``rint(resize(x.astype(float32)))``, 16-bit and wider: float64; where every output
is one input value of weight 1, nearest modes and others, a gather of the input values,
exact for every dtype) and against the contract of
docs/spec.md section 5 (within 1 of the float64 oracle, 99% equal up to ties);
float16 against the float32 call; float32/float64 forward and backward against the
oracle within the section 6 tolerances. ``test_simd_levels`` reruns a share of the
cases in fresh interpreters at every lower SIMD level: the same bits.

NaN results are compared by position only: which NaN an addition returns when it
meets two (an input NaN, Inf - Inf) depends on its operand order, which the
compiler and each kernel choose (docs/kernels.md); the sign of such a NaN differs
between SIMD levels and between a channel block of ``run_region`` and the whole.
"""

import hashlib
import json
import math
import os
import platform
from pathlib import Path

import numpy as np
import pytest

import cresize
from cresize import _kernels
from cresize._dtypes import round_to
from helpers.cases import COMBOS, by_factors
from helpers.oracle import (
    assert_close,
    backward_matrices,
    operator_scale,
    reference_backward,
    reference_matrices,
    reference_resize,
)
from helpers.proc import run_python

# the oracle's dense float64 products meet the cases' Inf and NaN inputs
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

SEED = 20261202
N_CASES = 360
CHUNK = 60

INTS = ("uint8", "int8", "uint16", "int16", "int32", "uint32", "int64", "uint64")
FLOATS = ("float16", "float32", "float64")
SPECIALS = (np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-300, -1e-300, 1e-40, -1e-40)


def make_case(index):
    """Configuration ``index`` (a plain dict), reproducible on its own."""
    rng = np.random.default_rng([SEED, index])
    dtype = (INTS + FLOATS)[index % (len(INTS) + len(FLOATS))]
    if rng.random() < 0.4:  # the 2x2 block paths and gathers
        mode, align_corners, antialias = (
            str(rng.choice(["nearest", "bilinear", "area"])),
            False,
            False,
        )
    else:
        mode, align_corners, antialias = COMBOS[int(rng.integers(0, len(COMBOS)))]
    layout = int(rng.integers(0, 4))
    h, w = int(rng.integers(1, 40)), int(rng.integers(1, 150))
    if layout == 0:
        shape, axes = (h, w, int(rng.choice([1, 2, 3, 4, 5, 6, 9]))), (0, 1)
    elif layout == 1:
        shape, axes = (int(rng.integers(1, 3)), h, w, int(rng.integers(1, 6))), (1, 2)
    elif layout == 2:
        shape, axes = (int(rng.integers(1, 4)), h, w), (1, 2)
    else:
        n = int(rng.integers(1, 3000))
        shape, axes = ((n,), (0,)) if rng.random() < 0.5 else ((n, int(rng.integers(1, 6))), (0,))
    f = float(rng.choice([2.0, 0.5, 2.0, 0.5, 3.0, 1 / 3, 1.5, 0.75]))
    if rng.random() < 0.5 and not align_corners:
        factors = [f] * len(axes) if rng.random() < 0.7 else [f, 1.0][: len(axes)]
        lengths, factors, geometry = by_factors(shape, axes, factors)
    else:
        lengths = [max(1, round(shape[a] * f)) for a in axes]
        if len(axes) == 2 and rng.random() < 0.3:
            lengths[1] = shape[axes[1]]  # one axis the identity
        geometry, factors = dict(size=tuple(lengths)), None
    return dict(
        index=index,
        dtype=dtype,
        shape=shape,
        axes=axes,
        lengths=lengths,
        factors=factors,
        geometry=geometry,
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
        view=int(rng.integers(0, 4)),  # contiguous, reversed, strided, byte-swapped
        extremes=bool(rng.random() < 0.5),
    )


def _values(rng, shape, dtype, extremes):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if extremes:  # saturation at both ends, rounding of sums far from 0
            return rng.choice(np.array([info.min, info.max], dtype), shape)
        return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    v = rng.uniform(-1, 1, shape)
    flat = v.reshape(-1)
    if extremes and flat.size:
        k = max(1, flat.size // 50)
        flat[rng.integers(0, flat.size, k)] = rng.choice(SPECIALS, k)
        flat[rng.random(flat.size) < 0.2] = -0.0
    return v.astype(dtype)


def _view(a, kind):
    """``a`` as a reversed, strided or byte-swapped view (equal values)."""
    if kind == 1:
        return np.flip(np.flip(a, 0).copy(), 0)
    if kind == 2:
        big = np.zeros((2 * a.shape[0], *a.shape[1:]), a.dtype)
        big[::2] = a
        return big[::2]
    if kind == 3:
        return a.astype(a.dtype.newbyteorder())
    return a


def _canonical(a):
    """``a``'s bytes with every NaN the same NaN (see the module docstring)."""
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "f":
        a = np.where(np.isnan(a), np.array(np.nan, a.dtype), a)
    return a.tobytes()


def assert_same_bits(got, expected, what):
    assert got.dtype == expected.dtype and got.shape == expected.shape, what
    if _canonical(got) != _canonical(expected):
        differ = np.argwhere(
            (got != expected) & ~(np.isnan(got) & np.isnan(expected))
            if got.dtype.kind == "f"
            else got != expected
        )
        first = tuple(differ[0]) if len(differ) else "signs of zero"
        raise AssertionError(f"{what}: {len(differ)} values differ, first at {first}")


def _region(rng, shape):
    bounds = []
    for n in shape:
        lo = int(rng.integers(0, n))
        bounds.append(slice(lo, int(rng.integers(lo + 1, n + 1))))
    return tuple(bounds)


def _selects(p):
    """Whether every output of ``p`` is one input value: one tap of weight 1 a row."""
    return all(
        np.all(w.max(axis=1) == 1) and np.all((w != 0).sum(axis=1) == 1) for w in p.weights.values()
    )


def _gathered(x, p):
    """``x`` at each output's one tap (``_selects(p)``), from the plan's own weights."""
    assert _selects(p)
    index = [np.arange(n) for n in x.shape]
    for a, w in p.weights.items():
        index[a] = np.argmax(w, axis=1)
    return x[np.ix_(*index)]


def run(case):
    """The case's forward result (and backward, for float32/float64)."""
    rng = np.random.default_rng([SEED, case["index"], 1])
    dtype = np.dtype(case["dtype"])
    options = dict(
        mode=case["mode"], align_corners=case["align_corners"], antialias=case["antialias"]
    )
    kw = dict(**case["geometry"], axes=case["axes"], **options)
    x = _values(rng, case["shape"], dtype, case["extremes"])
    xv = _view(x, case["view"])
    before = xv.copy()
    y = cresize.resize(xv, **kw, num_threads=1)
    out_shape = list(case["shape"])
    for a, n in zip(case["axes"], case["lengths"]):
        out_shape[a] = n
    assert y.shape == tuple(out_shape) and y.dtype == dtype and y.flags.c_contiguous
    for threads in (2, 3):
        assert_same_bits(cresize.resize(xv, **kw, num_threads=threads), y, f"{threads} threads")
    out = np.full(y.shape, 7, dtype)
    assert cresize.resize(xv, **kw, out=out, num_threads=2) is out
    assert_same_bits(out, y, "out=")
    p = cresize.plan(case["shape"], **kw, dtype=dtype)
    assert_same_bits(p(xv), y, "plan")
    region = _region(rng, y.shape)
    got = p.run_region(xv[p.input_region(region)], region, num_threads=int(rng.integers(1, 4)))
    assert_same_bits(got, np.ascontiguousarray(y[region]), f"run_region {region}")
    assert np.array_equal(xv, before, equal_nan=True) and xv.dtype == before.dtype
    if dtype.kind == "f" and dtype.itemsize >= 4:
        g = _values(rng, y.shape, dtype, case["extremes"])
        backward = dict(axes=case["axes"], **options)
        if case["factors"] is not None:
            backward["scale_factor"] = case["geometry"]["scale_factor"]
        gx = cresize.resize_backward(g, case["shape"], **backward, num_threads=1)
        for threads in (2, 3):
            again = cresize.resize_backward(g, case["shape"], **backward, num_threads=threads)
            assert_same_bits(again, gx, f"backward, {threads} threads")
        assert_same_bits(p.backward(g), gx, "plan backward")
        region = _region(rng, case["shape"])
        got = p.run_region(g[p.input_region(region, True)], region, backward=True)
        assert_same_bits(got, np.ascontiguousarray(gx[region]), f"backward run_region {region}")
        return x, y, g, gx
    return x, y, None, None


def check(case):
    x, y, g, gx = run(case)
    dtype = np.dtype(case["dtype"])
    options = dict(
        mode=case["mode"], align_corners=case["align_corners"], antialias=case["antialias"]
    )
    kw = dict(**case["geometry"], axes=case["axes"], **options)
    factors = None if case["factors"] is None else dict(zip(case["axes"], case["factors"]))
    sizes = dict(zip(case["axes"], case["lengths"]))
    if dtype.kind in "iu":
        p = cresize.plan(case["shape"], **kw, dtype=dtype)
        if _selects(p):  # nearest modes, area enlarging by an integer factor, ...
            assert_same_bits(y, _gathered(x, p), "a gather")
        else:
            wide = dtype.itemsize > 2 or p._forward.promote
            inner = np.float64 if wide or dtype.itemsize == 2 else np.float32
            expected = round_to(dtype, cresize.resize(x.astype(inner), **kw))
            assert_same_bits(y, expected, f"the {np.dtype(inner)} rule")
        if dtype.itemsize <= 2:  # docs/spec.md section 5
            info = np.iinfo(dtype)
            e = np.clip(
                reference_resize(x, sizes=sizes, scale_factors=factors, **options),
                info.min,
                info.max,
            )
            off = np.abs(y - e)
            assert off.max(initial=0) <= 1, "within 1 of the float64 result"
            tie = np.abs(e - np.floor(e) - 0.5) < 1e-9
            rounded = (off < 0.5) | (tie & (off <= 0.5 + 1e-9))
            assert y.size < 100 or rounded.mean() >= 0.99, f"{rounded.mean():.4f} rounded"
    elif dtype == np.float16:
        assert_same_bits(y, cresize.resize(x.astype(np.float32), **kw).astype(np.float16), "f16")
    else:
        mats = reference_matrices(case["shape"], sizes=sizes, scale_factors=factors, **options)
        finite = np.where(np.isfinite(x), x, 0).astype(np.float64)
        e = reference_resize(x, sizes=sizes, scale_factors=factors, **options)
        assert_close(y, e, operator_scale(finite, mats), dtype, "forward")
        eb = reference_backward(g, case["shape"], factors, axes=case["axes"], **options)
        bm = backward_matrices(y.shape, case["shape"], factors, axes=case["axes"], **options)
        finite = np.where(np.isfinite(g), g, 0).astype(np.float64)
        scale = operator_scale(finite, [w.T for w in bm.values()])
        assert_close(gx, eb, scale, dtype, "backward")


CASES = [make_case(i) for i in range(N_CASES)]


def test_case_coverage():
    """The cases are what the docstring says: every dtype and mode, each layout."""
    assert {c["dtype"] for c in CASES} == set(INTS + FLOATS)
    assert {(c["mode"], c["align_corners"], c["antialias"]) for c in CASES} == set(COMBOS)
    x2 = [
        c
        for c in CASES
        if c["mode"] in ("bilinear", "area")
        and len(c["shape"]) >= 3
        and all(2 * n == c["shape"][a] for a, n in zip(c["axes"], c["lengths"]))
    ]
    assert len(x2) >= 5  # halving both axes: the 2x2 block sweeps
    assert sum(len(c["shape"]) == 3 and c["axes"] == (0, 1) for c in CASES) >= 60
    assert sum(c["shape"][0] % 2 == 1 and c in x2 for c in CASES) >= 1
    assert {c["view"] for c in CASES} == {0, 1, 2, 3}


@pytest.mark.parametrize("chunk", range(math.ceil(N_CASES / CHUNK)))
def test_fast_paths(chunk):
    for case in CASES[chunk * CHUNK : (chunk + 1) * CHUNK]:
        try:
            check(case)
        except AssertionError as exc:
            shown = {k: v for k, v in case.items() if k != "lengths"}
            raise AssertionError(f"fast-path case {case['index']}: {shown}\n{exc}") from None


@pytest.mark.parametrize(
    ("dtype", "mode"),
    [(d, m) for d in ("int64", "uint64", "int32", "uint32") for m in ("nearest", "nearest-exact")],
)
def test_wide_integers_are_gathered_by_nearest_modes(dtype, mode):
    """nearest and nearest-exact return the input values of every integer dtype: int64
    and uint64 beyond 2**53 were summed in float64 (2**62 + 1 came back as 2**62)."""
    info = np.iinfo(dtype)
    values = [info.max, info.min, info.max - 1, 2**53 + 1, 2**62 + 1, 3]
    x = np.array([v for v in values if info.min <= v <= info.max], dtype)
    x = np.stack([x, x[::-1]])[:, :, None] * np.ones(3, dtype)  # (2, n, 3)
    for size in ((4, 13), (1, 2), (2, x.shape[1])):
        for geometry in (dict(size=size), dict(scale_factor=(size[0] / 2, 2.0))):
            kw = dict(**geometry, mode=mode, axes=(0, 1))
            y = cresize.resize(x, **kw)
            p = cresize.plan(x.shape, **kw, dtype=dtype)
            assert set(np.unique(y)) <= set(np.unique(x))
            assert_same_bits(y, _gathered(x, p), str(kw))
            assert_same_bits(cresize.resize(x.astype(x.dtype.newbyteorder()), **kw), y, "swap")
            out = np.zeros_like(y)
            assert cresize.resize(x[:, ::-1][:, ::-1], **kw, out=out) is out
            assert_same_bits(out, y, "out=")
            region = (slice(0, 1), slice(1, y.shape[1]), slice(1, 3))
            got = p.run_region(x[p.input_region(region)], region)
            assert_same_bits(got, np.ascontiguousarray(y[region]), "run_region")


SIMD_CHILD = """
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
import test_fuzz_fast as t
from cresize import _kernels
digests = {}
for case in t.CASES[:: int(sys.argv[2])]:
    _, y, _, gx = t.run(case)
    digests[case["index"]] = [hashlib.sha1(t._canonical(a)).hexdigest()
                              for a in (y, gx) if a is not None]
print(json.dumps({"level": _kernels.simd_level(), "digests": digests}))
"""


def _digests(level, every):
    env = {**os.environ, "CRESIZE_SIMD": level}
    tests = str(Path(__file__).parent)
    rc, out, err = run_python(["-c", SIMD_CHILD, tests, str(every)], env, timeout=300)
    assert rc == 0, err
    return json.loads(out.splitlines()[-1])


def test_simd_levels():
    """A third of the cases at every other SIMD level (``CRESIZE_SIMD``, this CPU's
    levels; the portable loops included): the same bits as at this process's level."""
    here = {
        case["index"]: [
            hashlib.sha1(_canonical(a)).hexdigest() for a in run(case)[1::2] if a is not None
        ]
        for case in CASES[::3]
    }
    seen = set()
    for level in _kernels.SIMD_LEVELS:
        if level == _kernels.simd_level():
            continue
        child = _digests(level, 3)
        seen.add(child["level"])
        differ = [i for i, d in here.items() if child["digests"][str(i)] != d]
        assert not differ, f"{child['level']}: cases {differ} differ from {_kernels.simd_level()}"
    assert "none" in seen | {_kernels.simd_level()}
    if platform.machine().lower() in ("x86_64", "amd64"):  # sse2 at least: two levels
        assert seen - {_kernels.simd_level()}
