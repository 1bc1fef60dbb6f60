"""Plans (docs/spec.md section 7): the same bits as the functions, whole and by block."""

import re
import sys
import threading

import numpy as np
import pytest

import cresize
from cresize import _spec, testing

CONFIGS = list(_spec.configurations())
IDS = [f"{c['mode']}-ac{int(c['align_corners'])}-aa{int(c['antialias'])}" for c in CONFIGS]

#: (input shape, size, scale_factor, axes): 1-D to 3-D, up, down, mixed, fused and not.
GEOMETRIES = [
    ((13,), (29,), None, None),
    ((3, 40), (7,), None, None),
    ((2, 9, 11), (17, 4), None, None),
    ((2, 9, 11), None, (1.7, 0.45), None),
    ((5, 6, 7), (3, 9, 4), None, None),
    ((6, 5, 3), (11, 2), None, (0, 1)),
    ((7, 2, 8), (3, 12), None, (2, 0)),
    ((4, 30, 1), (9,), None, (1,)),
]


def _array(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(dtype)
    return rng.uniform(-1, 1, shape).astype(dtype)


def _plan(shape, size, scale_factor, axes, dtype, config):
    return cresize.plan(shape, size, scale_factor=scale_factor, axes=axes, dtype=dtype, **config)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_plan_equals_functions(config, dtype):
    for shape, size, scale_factor, axes in GEOMETRIES:
        p = _plan(shape, size, scale_factor, axes, dtype, config)
        x = _array(shape, dtype)
        y = cresize.resize(x, size, scale_factor=scale_factor, axes=axes, **config)
        assert p.output_shape == y.shape and p.input_shape == shape and p.dtype == dtype
        np.testing.assert_array_equal(p(x), y, strict=True)
        out = np.full(y.shape, np.nan, dtype)
        assert p(x, out=out) is out
        np.testing.assert_array_equal(out, y, strict=True)
        g = _array(y.shape, dtype, seed=1)
        gx = cresize.resize_backward(g, shape, scale_factor=scale_factor, axes=p.axes, **config)
        np.testing.assert_array_equal(p.backward(g), gx, strict=True)
        out = np.empty(shape, dtype)
        assert p.backward(g, out=out) is out
        np.testing.assert_array_equal(out, gx, strict=True)
        for axis, w in p.weights.items():
            np.testing.assert_array_equal(
                w,
                cresize.weights(
                    shape[axis],
                    y.shape[axis],
                    scale_factor=None
                    if scale_factor is None
                    else scale_factor[sorted(p.axes).index(axis)],
                    **config,
                ),
            )


@pytest.mark.parametrize(
    "dtype", [np.uint8, np.int8, np.uint16, np.int16, np.int32, np.int64, np.uint64, np.float16]
)
@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic", "area"])
def test_plan_integers_and_float16(dtype, mode):
    for shape, size, scale_factor, axes in GEOMETRIES:
        p = _plan(shape, size, scale_factor, axes, dtype, {"mode": mode})
        x = _array(shape, dtype)
        y = cresize.resize(x, size, scale_factor=scale_factor, axes=axes, mode=mode)
        np.testing.assert_array_equal(p(x), y, strict=True)
        # byte-swapped input of the same type: accepted, like resize
        np.testing.assert_array_equal(p(x.astype(x.dtype.newbyteorder())), y, strict=True)
    with pytest.raises(TypeError, match="float32 or float64"):
        p.backward(np.zeros(p.output_shape, dtype))


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_plan_integers_every_configuration_and_out(config):
    """Integer plans of every mode and option pair, into ``out=`` and from a
    Fortran-ordered input too, give resize's bits (issue 9: integers, every mode)."""
    for dtype in (np.uint8, np.int8, np.uint16, np.int16, np.int32, np.uint64):
        for shape, size, scale_factor, axes in GEOMETRIES:
            p = _plan(shape, size, scale_factor, axes, dtype, config)
            x = _array(shape, dtype)
            y = cresize.resize(x, size, scale_factor=scale_factor, axes=axes, **config)
            np.testing.assert_array_equal(p(x), y, strict=True)
            out = np.zeros(y.shape, dtype)
            assert p(np.asfortranarray(x), out=out) is out
            np.testing.assert_array_equal(out, y, strict=True)


def test_plan_shared_by_threads():
    p = cresize.plan((3, 64, 48), (97, 31), mode="bicubic", dtype="float64")
    xs = [_array(p.input_shape, np.float64, seed=s) for s in range(6)]
    gs = [_array(p.output_shape, np.float64, seed=10 + s) for s in range(6)]
    expected = [
        (
            cresize.resize(x, (97, 31), mode="bicubic"),
            cresize.resize_backward(g, x.shape, mode="bicubic"),
        )
        for x, g in zip(xs, gs)
    ]
    results = _race(
        lambda i: [(p(xs[i], num_threads=1 + i % 2), p.backward(gs[i])) for _ in range(20)]
    )
    for i in range(6):
        for y, gx in results[i]:
            np.testing.assert_array_equal(y, expected[i][0])
            np.testing.assert_array_equal(gx, expected[i][1])


@pytest.mark.parametrize(
    "dtype, shape, size, options",
    [
        (np.uint8, (64, 48, 3), (97, 31), {"mode": "bilinear", "axes": (0, 1)}),
        (np.uint16, (3, 64, 48), (17, 31), {"mode": "lanczos3", "antialias": True}),
        (np.int32, (3, 64, 48), (30, 31), {"mode": "bicubic"}),
        (np.float16, (3, 64, 48), (97, 31), {"mode": "area"}),
    ],
)
def test_plan_of_other_dtypes_shared_by_threads(dtype, shape, size, options):
    """Integer and float16 plans (their own steps and conversions) shared by 6 threads,
    with and without ``out=`` and at 1 and 2 threads, give resize's bits."""
    p = cresize.plan(shape, size, dtype=dtype, **options)
    xs = [_array(shape, dtype, seed=s) for s in range(6)]
    expected = [cresize.resize(x, size, **options) for x in xs]
    results = _race(
        lambda i: [
            p(xs[i], out=np.empty(p.output_shape, dtype) if k % 2 else None, num_threads=1 + k % 2)
            for k in range(12)
        ],
    )
    for i in range(6):
        for y in results[i]:
            np.testing.assert_array_equal(y, expected[i], strict=True)


def _fresh_plan(*args, **kwargs):
    """A plan of its own (not the cached one): ``cresize.plan``'s arguments."""
    from cresize import _plan

    found = cresize.plan(*args, **kwargs)
    return _plan.Plan(found._spec, found.dtype)


def test_backward_only_plan_makes_no_forward_program(monkeypatch):
    """``resize_backward`` and ``p.backward`` leave the forward program unmade
    (``weights``, ``nbytes`` too); the first forward call makes it and takes its direct
    steps, with the bits of a plan that made it first, and a plan for other threads
    shares it."""
    from cresize import _plan

    shape, size = (3, 40, 50), (97, 31)
    g = _array((3, 97, 31), np.float32, seed=3)
    x = _array(shape, np.float32, seed=4)
    cresize.clear_cache()
    cresize.resize_backward(g, shape, mode="bicubic")
    p = cresize.plan(shape, size, mode="bicubic")  # the cached plan of that call
    assert "forward" not in p._made and p._fwd is None
    p.backward(g)
    assert p.weights.keys() == {1, 2} and p.nbytes > 0
    assert "forward" not in p._made and p._fwd is None
    q = cresize.plan(shape, size, mode="bicubic", num_threads=2)  # shares p's programs
    want = _fresh_plan(shape, size, mode="bicubic")(x)
    with monkeypatch.context() as patch:
        patch.setattr(_plan.Plan, "_run", None)  # not the checked path
        got = q(x)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert p._made["forward"] is q._made["forward"] and q._fwd is not None
    assert p._fwd is None  # (until p's own first call)
    assert np.array_equal(p(x).view(np.uint32), want.view(np.uint32))
    assert p._fwd is p._made["forward"].direct
    assert np.array_equal(
        cresize.resize(x, size, mode="bicubic").view(np.uint32), want.view(np.uint32)
    )


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_a_made_forward_program_is_a_plain_attribute(dtype):
    """Once made, ``_forward`` is the plan's own attribute (no look-up through
    ``_made`` on every call: float16 plans, with no direct steps, take the checked path
    on every call); a plan for other threads made before shares it."""
    shape, size = (8, 8), (4, 4)
    p = _fresh_plan(shape, size, mode="bilinear", dtype=dtype)
    q = _plan_with_threads(p, 2)
    x = _array(shape, np.float32, seed=6).astype(dtype)
    want = p(x)
    assert p.__dict__["_forward"] is p._made["forward"]
    p._made = None  # (a look-up through it would fail)
    assert np.array_equal(p(x), want) and np.array_equal(p(x, num_threads=2), want)
    assert q._forward is p._forward and np.array_equal(q(x), want)


def _plan_with_threads(p, n):
    from cresize import _plan

    return _plan._with_threads(p, n)


@pytest.mark.parametrize("backward", [False, True])
def test_a_plan_for_other_threads_keeps_the_cache_measured(backward):
    """A program made through ``cresize.plan(..., num_threads=n)`` (a plan sharing the
    cached plan's tables, not itself in the cache) grows the shared tables (float32
    casts, the adjoint's tables): ``cache_info()["nbytes"]`` counts them, as when the
    cached plan makes the program itself."""
    shape, size = (3, 40, 50), (97, 31)
    cresize.clear_cache()
    q = cresize.plan(shape, size, mode="bicubic", dtype="float32", num_threads=2)
    before = cresize.cache_info()["nbytes"]
    if backward:
        q.backward(_array((3, 97, 31), np.float32, seed=3))
    else:
        q(_array(shape, np.float32, seed=4))
    assert q.nbytes > before  # (the case: the program grew the tables)
    assert cresize.cache_info()["nbytes"] == cresize.plan(shape, size, mode="bicubic").nbytes


def _race(work, n=6):
    """``work(i)`` in ``n`` threads let go at once: their results, in order."""
    results = [None] * n
    barrier = threading.Barrier(n)

    def run(i):
        barrier.wait()
        results[i] = work(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


@pytest.mark.parametrize("call", ["call", "input_region", "run_region", "resize"])
def test_threads_racing_the_first_forward_call_of_a_backward_only_plan(call):
    """Six threads make a backward-only plan's forward program at once: one program,
    the same bits in every thread."""
    shape, size = (2, 33, 47), (71, 19)
    p = _fresh_plan(shape, size, mode="lanczos3", dtype="float64")
    if call == "resize":  # the cached plan, its forward program unmade
        cresize.clear_cache()
        cresize.resize_backward(np.ones((2, 71, 19)), shape, mode="lanczos3")
        p = cresize.plan(shape, size, mode="lanczos3", dtype="float64")
    p.backward(np.ones(p.output_shape))
    assert "forward" not in p._made
    x = _array(shape, np.float64, seed=5)
    want = _fresh_plan(shape, size, mode="lanczos3", dtype="float64")(x)
    region = (slice(0, 2), slice(10, 40), slice(3, 9))

    def work(i):
        if call == "call":
            got = p(x, num_threads=1 + i % 2)
        elif call == "resize":
            got = cresize.resize(x, size, mode="lanczos3")
        elif call == "input_region":
            got = p.input_region(region)
        else:
            got = p.run_region(x[p.input_region(region)], region)
        return got, p._made["forward"]

    results, programs = zip(*_race(work))
    assert all(program is p._made["forward"] for program in programs)
    for got in results:
        if call == "input_region":
            assert got == _fresh_plan(shape, size, mode="lanczos3", dtype="float64").input_region(
                region
            )
            continue
        expected = want[region] if call == "run_region" else want
        assert np.array_equal(got.view(np.uint64), expected.view(np.uint64))


def test_first_backward_call_takes_the_direct_steps(monkeypatch):
    """A plan's first ``p.backward(g)`` (with or without ``out``) makes the backward
    program and runs its direct steps at once, not the checked path, with the bits of
    ``resize_backward``; a plan for other threads made before shares the program, and
    so does the plan it was made from. Its errors are those of the checked path, on
    every call."""
    from cresize import _plan

    shape, size = (3, 40, 50), (97, 31)
    g = _array((3, 97, 31), np.float32, seed=3)
    want = cresize.resize_backward(g, shape, mode="bicubic")
    p = _fresh_plan(shape, size, mode="bicubic")
    q = _plan_with_threads(p, 2)
    with pytest.raises(ValueError, match=r"grad_output has shape \(3, 97, 30\)"):
        p.backward(np.zeros((3, 97, 30), np.float32))  # (a first call: makes the program)
    with monkeypatch.context() as patch:
        patch.setattr(_plan.Plan, "_run", None)  # not the checked path
        assert np.array_equal(p.backward(g).view(np.uint32), want.view(np.uint32))
        assert p._bwd is p._made["backward"].direct and p._bwd is not None
        assert "forward" not in p._made and p._fwd is None
        out = np.full(shape, np.nan, np.float32)
        r = _fresh_plan(shape, size, mode="bicubic")
        assert r.backward(g, out=out) is out
        assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
        # the plan for other threads, made before p's program: p's program
        assert q._bwd is None
        assert np.array_equal(q.backward(g).view(np.uint32), want.view(np.uint32))
        assert q._backward is p._backward and q._bwd is p._bwd
        # the other way round: the copy makes it, the plan it was made from takes it
        s = _fresh_plan(shape, size, mode="bicubic")
        t = _plan_with_threads(s, 1)
        assert np.array_equal(t.backward(g).view(np.uint32), want.view(np.uint32))
        assert s._bwd is None and s._made["backward"] is t._backward
        assert np.array_equal(s.backward(g).view(np.uint32), want.view(np.uint32))
        assert s._backward is t._backward and s._bwd is t._bwd
    # not a float plan: the checked path's TypeError, on the first call and the next
    n = _fresh_plan(shape, size, mode="bicubic", dtype="uint8")
    for _ in range(2):
        with pytest.raises(TypeError, match="backward needs a float32 or float64 plan"):
            n.backward(np.zeros(n.output_shape, np.uint8))
    assert "backward" not in n._made and n._bwd is None
    # no direct steps (the identity): the checked path, on every call
    i = _fresh_plan((4, 6), (4, 6), dtype="float64")
    gi = _array((4, 6), np.float64, seed=2)
    for _ in range(2):
        assert np.array_equal(i.backward(gi), gi)
    assert i._made["backward"].direct is None and i._bwd is None


@pytest.mark.parametrize("call", ["backward", "out", "copy", "run_region", "resize_backward"])
def test_threads_racing_the_first_backward_call(call):
    """Six threads make a plan's backward program at once (its first ``p.backward``,
    into ``out`` or not, through plans for other threads, ``run_region``, or
    ``resize_backward`` of the cached plan): one program, the same bits in every
    thread, the direct steps taken by every plan that called ``backward``."""
    shape, size = (2, 33, 47), (71, 19)
    p = _fresh_plan(shape, size, mode="lanczos3", dtype="float64")
    if call == "resize_backward":
        cresize.clear_cache()
        p = cresize.plan(shape, size, mode="lanczos3", dtype="float64")
    assert "backward" not in p._made and p._bwd is None
    copies = [_plan_with_threads(p, 1 + i % 2) if call == "copy" else p for i in range(6)]
    g = _array(p.output_shape, np.float64, seed=7)
    want = _fresh_plan(shape, size, mode="lanczos3", dtype="float64").backward(g)
    region = (slice(0, 2), slice(10, 30), slice(3, 40))

    def work(i):
        if call == "out":
            got = p.backward(g, out=np.empty(shape), num_threads=1 + i % 2)
        elif call == "run_region":
            got = p.run_region(g[p.input_region(region, True)], region, backward=True)
        elif call == "resize_backward":
            got = cresize.resize_backward(g, shape, mode="lanczos3")
        else:
            got = copies[i].backward(g)
        return got, copies[i]._made["backward"]

    results, programs = zip(*_race(work))
    assert all(program is p._made["backward"] for program in programs)
    for got in results:
        expected = want[region] if call == "run_region" else want
        assert np.array_equal(got.view(np.uint64), expected.view(np.uint64))
    if call in ("backward", "out", "copy"):
        assert all(c._bwd is p._made["backward"].direct is not None for c in copies)


def test_threads_racing_both_directions_of_a_cached_plan_and_its_copies_keep_it_measured():
    """Six threads make a cached plan's forward and backward programs at once, through
    the plan and its copies for other thread counts (the forward, the backward, a
    backward region): one program a direction, shared by every copy, and the cache
    counts the tables both grew (``_made_program`` measures after each, outside the
    plan's lock), whichever thread made them."""
    shape, size = (2, 33, 47), (71, 19)
    cresize.clear_cache()
    p = cresize.plan(shape, size, mode="lanczos3", dtype="float32")
    plans = [p if i % 2 == 0 else _plan_with_threads(p, 1 + i % 3) for i in range(6)]
    x, g = _array(shape, np.float32, seed=1), _array(p.output_shape, np.float32, seed=2)
    region = (slice(0, 1), slice(0, 9), slice(2, 7))

    def work(i):
        q = plans[i]
        if i % 3 == 0:
            return q.backward(g)
        if i % 3 == 1:
            return q(x)
        return q.run_region(g[q.input_region(region, True)], region, backward=True)

    results = _race(work)
    want = _fresh_plan(shape, size, mode="lanczos3", dtype="float32")
    for i, got in enumerate(results):
        expected = (want.backward(g), want(x), want.backward(g)[region])[i % 3]
        assert np.array_equal(got.view(np.uint32), expected.view(np.uint32)), i
    for q in plans:
        assert q._made is p._made and q._backward is p._made["backward"]
    assert cresize.cache_info()["nbytes"] == p.nbytes


@pytest.mark.parametrize("junk", [None, "abc", {"a": 1}, object()], ids=repr)
def test_plan_refuses_a_non_array_by_its_type_as_resize_does(junk):
    # np.asarray(None) is a 0-d object array: the plan said "x has shape (); this plan
    # takes (2, 8, 8)", a ValueError, where resize says TypeError
    p = cresize.plan((2, 8, 8), 4, dtype="float32")
    region = (slice(0, 2), slice(0, 4), slice(0, 4))
    with pytest.raises(TypeError, match="x must be a float"):
        cresize.resize(junk, 4)
    with pytest.raises(TypeError, match=r"^x has dtype object|^x has dtype <U3"):
        p(junk)
    with pytest.raises(TypeError, match=r"^grad_output has dtype"):
        p.backward(junk)
    with pytest.raises(TypeError, match=r"^block has dtype"):
        p.run_region(junk, region)


def test_plan_refuses_wrong_input():
    p = cresize.plan((2, 8, 8), 4, dtype="float32")
    with pytest.raises(ValueError, match=r"x has shape \(2, 8, 9\); this plan takes \(2, 8, 8\)"):
        p(np.zeros((2, 8, 9), np.float32))
    with pytest.raises(TypeError, match="x has dtype float64; this plan takes float32"):
        p(np.zeros((2, 8, 8)))
    with pytest.raises(ValueError, match="grad_output has shape"):
        p.backward(np.zeros((2, 8, 8), np.float32))
    with pytest.raises(ValueError, match="out has shape"):
        p(np.zeros((2, 8, 8), np.float32), out=np.zeros((2, 4, 5), np.float32))
    with pytest.raises(TypeError, match="dtype must be"):
        cresize.plan((4,), 2, dtype=object)
    with pytest.raises(TypeError, match="num_threads"):
        cresize.plan((4,), 2, num_threads=1.5)
    with pytest.raises(ValueError, match="align_corners=True is not defined"):
        cresize.plan((4,), 2, mode="area", align_corners=True)
    # a shape of no dimensions is named as the argument it is, not as an array "x"
    with pytest.raises(ValueError, match=r"^input_shape must have at least one dimension"):
        cresize.plan((), 2)
    with pytest.raises(ValueError, match=r"^input_shape must have at least one dimension"):
        testing.reference_matrices((), 2)
    with pytest.raises(ValueError, match=r"^x must have at least one dimension; got a 0-d"):
        cresize.resize(np.float32(1), 2)
    # so is one of too few dimensions for size or axes (it said "the array")
    with pytest.raises(ValueError, match=r"^size has 2 entries but input_shape has only 1 "):
        cresize.plan((4,), (2, 2))
    with pytest.raises(ValueError, match=r"^axes entry 5 is out of range for input_shape of 2 "):
        cresize.plan((4, 5), 2, axes=5)
    with pytest.raises(ValueError, match=r"^size has 2 entries but the array has only 1 "):
        cresize.resize(np.zeros(4, np.float32), (2, 2))
    with pytest.raises(ValueError, match=r"^axes entry 5 is out of range for the array of 2 "):
        cresize.resize(np.zeros((4, 5), np.float32), 2, axes=5)
    # and so is a resized axis of length 0 (it said "axis 1 of x" for every caller)
    with pytest.raises(ValueError, match=r"^axis 1 of input_shape has length 0"):
        cresize.plan((3, 0), 4)
    with pytest.raises(ValueError, match=r"^axis 1 of input_shape has length 0"):
        cresize.plan((3, 0), scale_factor=2.0)
    with pytest.raises(ValueError, match=r"^axis 1 of input_shape has length 0"):
        cresize.resize_backward(np.ones((3, 3)), (3, 0), scale_factor=2.0)
    with pytest.raises(ValueError, match=r"^axis 1 of x has length 0"):
        cresize.resize(np.zeros((3, 0)), scale_factor=2.0)
    with pytest.raises(ValueError, match=r"^axis 0 of shape has length 0"):
        testing.check_adjoint((0, 4), 3)
    with pytest.raises(ValueError, match=r"^shape must have at least one dimension"):
        testing.check_reference((), 3)
    with pytest.raises(ValueError, match=r"^x must have at least one dimension; got a 0-d"):
        testing.reference_resize(np.float64(1), 3)


def test_plan_class_called_with_plan_arguments_names_cresize_plan():
    """``cresize.Plan`` is public (the type of ``plan``'s result); called like ``plan``
    it failed with an AttributeError from inside (``'int' object has no attribute
    'kind'``)."""
    for args in (((4, 4), 3), ((4, 4), np.float32)):
        with pytest.raises(TypeError, match=r"^make a plan with cresize\.plan\("):
            cresize.Plan(*args)


def test_arrays_no_array_can_hold_are_named():
    """The shape named is the one too large, the input's or the result's (the message
    named the result's shape, also when that was small)."""
    big = 2**39
    with pytest.raises(ValueError, match=r"array of shape \(549755813888, 549755813888\) "):
        cresize.resize_backward(np.ones((3, 3)), (big, big))
    with pytest.raises(ValueError, match=r"array of shape \(549755813888, 549755813888, 3\) "):
        cresize.plan((big, big, 3), 2, axes=2)
    with pytest.raises(ValueError, match=r"array of shape \(2, 549755813888, 549755813888\) "):
        cresize.plan((2, 4, 4), scale_factor=float(big // 4), dtype="float64")


def test_option_messages_name_the_modes_that_take_them():
    """The modes an error offers are those the rules take (one list in _spec)."""
    takes = [m for m in cresize.MODES if _spec.takes_align_corners(m)]
    with pytest.raises(ValueError) as info:
        cresize.plan((4,), 2, mode="nearest", align_corners=True)
    assert str(info.value).endswith(_spec.listed(takes))
    assert _spec.listed(takes) == "bilinear, bicubic and lanczos3"
    antialiased = [m for m in cresize.MODES if _spec.takes_antialias(m)]
    with pytest.raises(ValueError) as info:
        cresize.plan((4,), 2, mode="area", antialias=True)
    assert str(info.value).endswith(_spec.listed(antialiased))
    with pytest.raises(ValueError) as info:
        cresize.resize(np.ones(4), 2, mode="Nearest")
    for name in (*cresize.MODES, "linear", "cubic", "nearest_exact"):
        assert name in str(info.value)


def test_plan_resolves_threads_at_call_time():
    # The default (OpenMP's count, 1 in a forked child) is asked for on every call
    # that does not fix the count, on the fast path and the checked one alike.
    # The rule is _fast.default_threads, read in C on the fast paths: it counts its calls.
    from cresize import _fast

    p = cresize.plan((4, 5), 3)
    x = np.zeros((4, 5), np.float32)
    start = _fast.defaults_read()

    def seen():
        return _fast.defaults_read() - start

    p(x)
    p(x.astype(">f4"))  # the checked path
    assert seen() == 2
    p(x, num_threads=3)
    q = cresize.plan((4, 5), 3, num_threads=2)
    q(x)
    q.backward(np.ones(q.output_shape, np.float32))
    assert seen() == 2  # a positive count needs no default
    cresize.plan((4, 5), 3, num_threads=-1)(x)  # counted back from the default
    p(x, num_threads=-2)
    assert seen() == 4
    for _ in range(2):  # resize's repeated call (the look-up, then the last call's plan)
        cresize.resize(x, 3)
        cresize.resize_backward(np.ones((3, 3), np.float32), x.shape)
    assert seen() == 8
    with pytest.raises(ValueError, match="num_threads"):
        p(x, num_threads=0)
    with pytest.raises(TypeError, match="num_threads"):
        p(x, num_threads=True)


def test_plan_is_cached_and_shares_tables():
    cresize.clear_cache()
    p = cresize.plan((5, 7), (3, 9), mode="lanczos3")
    assert cresize.plan((5, 7), (3, 9), mode="lanczos3") is p
    q = cresize.plan((2, 5, 7), (3, 9), mode="lanczos3", dtype="float64")
    assert q._forward.tables[2] is p._forward.tables[1]
    info = cresize.cache_info()
    assert info["plans"] == 2 and 0 < info["nbytes"] <= info["limit"] and info["hits"] >= 1


def test_plan_example_in_docstring():
    p = cresize.plan((2, 4), 8, mode="bilinear", axes=1, dtype="float64")
    assert repr(p).startswith("cresize.plan((2, 4) -> (2, 8)")


# ----------------------------------------------------------------------------
# Block execution


def _random_region(rng, shape):
    region = []
    for n in shape:
        start = int(rng.integers(0, n))
        stop = int(rng.integers(start + 1, n + 1))
        region.append(slice(start, stop))
    return tuple(region)


REGION_CASES = [
    ((2, 31, 27), (67, 9), None, None),  # fused, RING (enlarging y)
    ((2, 31, 27), (9, 67), None, None),  # fused, VERTICAL_FIRST
    ((3, 20, 17), None, (0.37, 2.6), None),  # scale factors
    ((9, 4, 13), (5, 29), None, (0, 2)),  # two single-axis passes
    ((5, 6, 7), (11, 3, 8), None, None),  # 3-D
    ((40,), (7,), None, None),  # 1-D, long rows
    ((12, 10, 3), (25, 5), None, (0, 1)),  # HWC, channels ride along
]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.int32])
def test_run_region_equals_slice(config, dtype):
    rng = np.random.default_rng(7)
    for shape, size, scale_factor, axes in REGION_CASES:
        p = _plan(shape, size, scale_factor, axes, dtype, config)
        x = _array(shape, dtype)
        whole = p(x)
        regions = [_random_region(rng, p.output_shape) for _ in range(6)]
        regions.append(tuple(slice(n // 2, n // 2 + 1) for n in p.output_shape))  # one output
        regions.append(tuple(slice(0, n) for n in p.output_shape))
        for region in regions:
            box = p.input_region(region)
            got = p.run_region(x[box], region, num_threads=1 + len(regions) % 2)
            np.testing.assert_array_equal(got, whole[region], strict=True)
        if dtype not in (np.float32, np.float64):
            continue
        g = _array(p.output_shape, dtype, seed=3)
        whole = p.backward(g)
        for _ in range(6):
            region = _random_region(rng, shape)
            box = p.input_region(region, backward=True)
            got = p.run_region(g[box], region, backward=True)
            np.testing.assert_array_equal(got, whole[region], strict=True)


def test_run_region_long_rows_keep_promotion():
    """Shrinking 9000 -> 3 sums more than LONG_SUM taps per row: float32 is promoted."""
    p = cresize.plan((2, 9000), 3, axes=1, mode="area")
    assert p._forward.promote
    x = _array((2, 9000), np.float32)
    region = (slice(0, 2), slice(1, 2))
    box = p.input_region(region)
    assert box[1] == slice(3000, 6000)
    np.testing.assert_array_equal(p.run_region(x[box], region), p(x)[region], strict=True)


def test_input_region_is_smallest_box():
    p = cresize.plan((4, 10), 20, axes=1, mode="bilinear", dtype="float64")
    w = p.weights[1]
    for o0 in range(20):
        for o1 in range(o0 + 1, 21):
            box = p.input_region((slice(1, 3), slice(o0, o1)))
            used = np.flatnonzero(np.any(w[o0:o1] != 0, axis=0))
            assert box == (slice(1, 3), slice(used.min(), used.max() + 1))
    assert p.input_region((slice(None), slice(-3, None)))[0] == slice(0, 4)


def test_run_region_checks_its_arguments():
    p = cresize.plan((4, 10), 20, axes=1, dtype="float64")
    with pytest.raises(ValueError, match="tuple of 2 slices"):
        p.input_region((slice(0, 2),))
    with pytest.raises(ValueError, match="step 1"):
        p.input_region((slice(0, 2), slice(0, 10, 2)))
    with pytest.raises(TypeError, match="must be a slice"):
        p.input_region((0, slice(0, 2)))
    # not a tuple at all: a TypeError (a ValueError before), whatever its length
    for bad in (slice(0, 2), 3, None, "ab", np.array([0, 1])):
        with pytest.raises(TypeError, match="out_region must be a tuple of 2 slices"):
            p.input_region(bad)
        with pytest.raises(TypeError, match="out_region must be a tuple of 2 slices"):
            p.run_region(np.zeros((4, 10)), bad)
    with pytest.raises(ValueError, match="block has shape"):
        p.run_region(np.zeros((4, 10)), (slice(0, 4), slice(0, 2)))
    empty = p.run_region(np.zeros((0, 2)), (slice(2, 2), slice(0, 3)))
    assert empty.shape == (0, 3)


def test_region_backward_is_a_bool():
    p = cresize.plan((4, 10), 20, axes=1, dtype="float64")
    region = (slice(0, 4), slice(2, 5))
    x, g = _array((4, 10), np.float64), _array((4, 20), np.float64)
    for flag in (False, np.False_):
        box = p.input_region((slice(0, 4), slice(2, 9)), flag)
        assert box == p.input_region((slice(0, 4), slice(2, 9)))
        np.testing.assert_array_equal(
            p.run_region(x[box], (slice(0, 4), slice(2, 9)), backward=flag), p(x)[:, 2:9]
        )
    for flag in (True, np.True_):
        box = p.input_region(region, backward=flag)
        np.testing.assert_array_equal(
            p.run_region(g[box], region, backward=flag), p.backward(g)[region]
        )
    # truthy and falsy non-bools chose a direction before: now refused, naming backward
    for bad in (1, 0, "yes", "", None, [True], np.array(True), 1.0):
        with pytest.raises(TypeError, match="backward must be True or False"):
            p.input_region(region, bad)
        with pytest.raises(TypeError, match="backward must be True or False"):
            p.run_region(g, region, backward=bad)


def test_torch_adapter_holds_and_shares_plans():
    torch = pytest.importorskip("torch")
    import cresize.torch as ct

    layer = ct.Resize(size=(7, 5), mode="bicubic")
    x = torch.rand(2, 3, 9, 4, dtype=torch.float64, requires_grad=True)
    y = layer(x)
    p = layer.plan
    assert p.input_shape == (2, 3, 9, 4) and p.output_shape == (2, 3, 7, 5)
    np.testing.assert_array_equal(y.detach().numpy(), p(x.detach().numpy()))
    y.backward(torch.ones_like(y))
    np.testing.assert_array_equal(x.grad.numpy(), p.backward(np.ones((2, 3, 7, 5))))
    layer(x)
    assert layer.plan is p  # same shape and dtype: the same plan
    # interpolate goes through the same cache; PyTorch's "lanczos" is antialiased lanczos3
    z = ct.interpolate(x, size=(7, 5), mode="bicubic")
    np.testing.assert_array_equal(z.detach().numpy(), y.detach().numpy())
    q = cresize.plan((2, 3, 9, 4), (4, 2), mode="lanczos3", antialias=True, dtype="float64")
    np.testing.assert_array_equal(
        ct.interpolate(x, size=(4, 2), mode="lanczos", antialias=True).detach().numpy(),
        q(x.detach().numpy()),
    )
    with pytest.raises(ValueError, match="antialias=True"):
        ct.interpolate(x, size=(4, 2), mode="lanczos")


def test_plan_docstring_examples_run():
    import doctest

    import cresize._plan

    result = doctest.testmod(cresize._plan, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 5 and result.failed == 0


def test_kernel_contract_is_checked_before_the_kernels():
    from types import SimpleNamespace

    from cresize import _plan

    good = cresize.plan((5, 9), (5, 4), dtype="float64")._forward.tables[1]
    _plan._check_table(good, np.dtype(np.float64))
    index = good.index.copy()
    index[2, 0] = 9  # past the input
    bad = SimpleNamespace(
        n_in=9,
        n_out=4,
        is_selection=False,
        kernel_args=lambda dtype: (index, good.weight, good.count),
    )
    with pytest.raises(RuntimeError, match="kernel contract"):
        _plan._check_table(bad, np.dtype(np.float64))
    # only used entries count: the padding may hold anything (the whole-array check
    # fails, the used entries are looked at), a used negative index may not
    short = cresize.plan((5, 9), (5, 4), dtype="float64", mode="lanczos3")._forward.tables[1]
    assert short.count.min() < short.index.shape[1]
    row = int(np.argmin(short.count))
    for value, ok in ((9, True), (-5, True), (-1, False)):
        index = short.index.copy()
        index[row, short.count[row] :] = value
        if not ok:
            index[row, 0] = value
        bad = SimpleNamespace(
            n_in=9,
            n_out=4,
            is_selection=False,
            kernel_args=lambda dtype, index=index: (index, short.weight, short.count),
        )
        if ok:
            _plan._check_table(bad, np.dtype(np.float64))
        else:
            with pytest.raises(RuntimeError, match="kernel contract"):
                _plan._check_table(bad, np.dtype(np.float64))


def test_torch_resize_notices_changed_options():
    torch = pytest.importorskip("torch")
    import cresize.torch as ct

    layer = ct.Resize(size=(4, 4), mode="bilinear")
    x = torch.rand(1, 2, 8, 8)
    assert layer(x).shape == (1, 2, 4, 4)
    layer.size = (3, 5)
    assert layer(x).shape == (1, 2, 3, 5) and layer.plan.output_shape == (1, 2, 3, 5)
    assert layer(torch.rand(2, 2, 6, 6)).shape == (2, 2, 3, 5)


def test_run_region_into_out():
    p = cresize.plan((3, 20, 17), (9, 40), mode="lanczos3", dtype="float32")
    x = _array(p.input_shape, np.float32)
    region = (slice(1, 3), slice(2, 7), slice(10, 33))
    out = np.full((2, 5, 23), np.nan, np.float32)
    assert p.run_region(x[p.input_region(region)], region, out=out) is out
    np.testing.assert_array_equal(out, p(x)[region])


@pytest.mark.parametrize(
    ("dtype", "given"),
    [("uint8", np.float32), ("uint16", np.float64), ("int16", np.float64), ("float16", np.float32)],
)
def test_plan_of_a_non_float_dtype_refuses_float_input(dtype, given):
    p = cresize.plan((64, 64), 32, dtype=dtype)
    with pytest.raises(TypeError, match=f"this plan takes {dtype}"):
        p(np.zeros((64, 64), given))


def test_plans_pickle_and_copy_as_their_description():
    import copy
    import pickle

    x = np.random.default_rng(3).random((5, 9)).astype(np.float32)
    for p in (
        cresize.plan((5, 9), (4, 13), mode="bicubic"),
        cresize.plan((5, 9), 7, num_threads=1),
    ):
        p(x)  # used first: it holds compiled steps and a lock
        for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), copy.copy(p)):
            assert q.output_shape == p.output_shape and q._num_threads == p._num_threads
            assert np.array_equal(q(x), p(x))


# ----------------------------------------------------------------------------
# Precompiled kernel calls (``_kernels.Step``) and block sums


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("level", ["none", "sse2", "avx2"])
def test_block_tables_keep_the_bits_of_the_table_kernels(monkeypatch, dtype, level):
    """Tables whose rows read blocks of f inputs (shrinking by an integer factor; the
    adjoint of nearest enlarging) skip the index table, and 2x2 blocks are summed in
    one sweep; ``run_region`` runs the same taps through the general row kernels: the
    bits agree, signed zeros and infinities included (NaNs where NaNs are), at every
    SIMD level."""
    from cresize import _kernels

    monkeypatch.setenv("CRESIZE_SIMD", level)
    _kernels._init_simd()
    try:
        rng = np.random.default_rng(5)
        for mode, shape, size, backward in [
            ("nearest", (2, 3, 7, 9), (14, 18), True),  # 2x2: fused, one sweep
            ("nearest-exact", (3, 5, 11), (15, 33), True),  # 3x3
            ("nearest", (4, 13), (4, 26), True),  # along rows only
            ("nearest", (2, 6, 5, 3), (12, 10), True),  # pixels of 3 values: no x block
            ("bilinear", (1, 3, 24, 22), (12, 11), False),  # 2x2 with weights
            ("area", (2, 12, 9), (6, 3), False),  # 2 x 3
            ("area", (2, 12, 18), (4, 9), False),  # 3 x 2: rows combined, then pairs
            ("bilinear", (5, 16), (5, 8), False),  # along rows only
        ]:
            p = cresize.plan(shape, size, mode=mode, dtype=dtype)
            run = p.backward if backward else p
            x = rng.standard_normal(p.output_shape if backward else shape).astype(dtype)
            flat = x.reshape(-1)
            flat[::5], flat[1::7], flat[2::11] = -0.0, np.inf, np.nan
            flat[3::13] = -np.inf
            got = run(x)
            full = tuple(slice(0, n) for n in got.shape)
            general = p.run_region(x, full, backward=backward)
            np.testing.assert_array_equal(got, general)
            # Signed zeros agree too (the sign of a NaN where NaNs meet is left open,
            # by IEEE 754 and docs/spec.md).
            numbers = ~np.isnan(got)
            assert np.array_equal(np.signbit(got[numbers]), np.signbit(general[numbers]))
            for n in (1, 2):
                np.testing.assert_array_equal(got, run(x, num_threads=n))
            program = p._backward if backward else p._forward
            blocks = [t.block for t in program.tables.values()]
            assert any(blocks) == (shape[-1] != 3), blocks
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("level", ["none", "sse2", "avx2", "avx512"])
def test_2x2_block_sums_keep_the_bits_at_every_width(monkeypatch, dtype, level):
    """The 2x2 block sweep (``_simd_sums.h``: AVX2 lanes for pixels of 2-4 float32
    values, overlapping 4-value stores for 3; blocks of weight 1 without products) on
    rows of every length around its registers (2, 4 or 8 outputs), its chunks (128
    pixels) and its scalar tails, planar and channels last, 1 and 2 threads: the bits
    of the table kernels."""
    from cresize import _kernels

    monkeypatch.setenv("CRESIZE_SIMD", level)
    _kernels._init_simd()
    try:
        rng = np.random.default_rng(9)
        for channels in (1, 2, 3, 4):
            for width in (1, 2, 3, 4, 5, 7, 9, 127, 128, 129, 130, 131, 258):
                # the widest rows in an array large enough for two threads
                shape = (8, 64, 2 * width, channels) if width > 200 else (2, 6, 2 * width, channels)
                p = cresize.plan(shape, (shape[1] // 2, width), axes=(1, 2), dtype=dtype)
                x = rng.standard_normal(shape).astype(dtype)
                flat = x.reshape(-1)
                flat[::5], flat[1::7], flat[3::13] = -0.0, np.inf, -np.inf
                full = tuple(slice(0, n) for n in p.output_shape)
                general = p.run_region(x, full)
                for n in (1, 2):
                    got = p(x, num_threads=n)
                    np.testing.assert_array_equal(got, general, err_msg=f"{channels} {width}")
                    numbers = ~np.isnan(got)
                    assert np.array_equal(np.signbit(got[numbers]), np.signbit(general[numbers]))
                step = p._forward.compiled(np.dtype(dtype))[0][4]
                assert step.blocks == (2, 2) and not step.unit_blocks
                assert (step.most_threads >= 2) == (width > 200)
                if channels == 1:  # the adjoint of x2 nearest: weights 1, no products
                    q = cresize.plan(
                        shape, (shape[1] * 2, 4 * width), mode="nearest", axes=(1, 2), dtype=dtype
                    )
                    g = rng.standard_normal(q.output_shape).astype(dtype)
                    flat = g.reshape(-1)
                    flat[::3], flat[1::11], flat[2::13] = -0.0, np.inf, -np.inf
                    step = q._backward.compiled(np.dtype(dtype))[0][4]
                    assert step.blocks == (2, 2) and step.unit_blocks
                    general = q.run_region(g, tuple(slice(0, n) for n in shape), backward=True)
                    for n, unrolled in ((1, True), (2, True), (1, False), (2, False)):
                        _kernels._unit_rows_unrolled(unrolled)  # avx512: its two loops
                        got = q.backward(g, num_threads=n)
                        np.testing.assert_array_equal(got, general, err_msg=f"unit {width}")
                        numbers = ~np.isnan(got)
                        assert np.array_equal(
                            np.signbit(got[numbers]), np.signbit(general[numbers])
                        )
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


@pytest.mark.parametrize("unrolled", [True, False])
@pytest.mark.parametrize("level", ["none", "avx2", "avx512"])
def test_unit_2x2_rows_keep_the_bits_at_every_step_count(monkeypatch, level, unrolled):
    """The x2 nearest backward's 2x2 sums of weight 1 (float32: at ``avx512`` sixteen
    outputs a step, the row's step count a constant up to 8 steps, then eight outputs
    and the last ones one by one; or, ``_unit_rows_unrolled(False)``, the
    buffered loop of ``avx2``, the default) on rows of every output count from 1 to 40 and around
    8 steps (128) and beyond, odd ones included, with signed zeros, infinities and NaNs:
    the bits of the table kernels, at 1 and 2 threads."""
    from cresize import _kernels

    monkeypatch.setenv("CRESIZE_SIMD", level)
    _kernels._init_simd()
    assert _kernels._unit_rows_unrolled(unrolled) is unrolled
    try:
        rng = np.random.default_rng(11)
        for n_out in [*range(1, 41), 56, 127, 128, 129, 135, 143, 144, 145, 300]:
            shape = (3, 4, n_out)
            q = cresize.plan(shape, (8, 2 * n_out), mode="nearest", axes=(1, 2))
            g = rng.standard_normal(q.output_shape).astype(np.float32)
            flat = g.reshape(-1)
            flat[::3], flat[1::11], flat[2::13], flat[4::17] = -0.0, np.inf, -np.inf, np.nan
            flat[5::7] *= 1e-45  # subnormals and zeros of either sign
            g[0, :2] = -0.0  # whole blocks of -0: +0 from the sum's leading 0
            step = q._backward.compiled(np.dtype(np.float32))[0][4]
            assert step.blocks == (2, 2) and step.unit_blocks
            general = q.run_region(g, tuple(slice(0, n) for n in shape), backward=True)
            for n in (1, 2):
                got = q.backward(g, num_threads=n)
                np.testing.assert_array_equal(got, general, err_msg=f"{n_out} outputs")
                assert np.array_equal(
                    got.view(np.uint32)[~np.isnan(got)], general.view(np.uint32)[~np.isnan(general)]
                )
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


def test_unit_2x2_rows_take_the_buffered_loop_by_default():
    """``_init_simd`` puts the ``avx512`` level's 2x2 sums of weight 1 on the buffered
    loop (the unrolled rows ran at about 1.6x its time on an AMD EPYC VM, 1.13x faster on
    others of the same model); ``_unit_rows_unrolled`` switches it until the next
    ``_init_simd``."""
    from cresize import _kernels

    try:
        assert _kernels._unit_rows_unrolled(True) is True
        assert _kernels._unit_rows_unrolled() is True
        _kernels._init_simd()
        assert _kernels._unit_rows_unrolled() is False
    finally:
        _kernels._init_simd()


UNIT_ROWS_GUARDED = r"""
import hashlib
_plan.MIN_WORK_PER_THREAD = 1  # (read as plans compile) the rows split between threads
runs, digests, cases = [], [], 0
for level, unrolled in (("none", True), ("avx2", True), ("avx512", True), ("avx512", False)):
    os.environ["CRESIZE_SIMD"] = level
    _kernels._init_simd()
    _kernels._unit_rows_unrolled(unrolled)
    runs.append(f"{_kernels.simd_level()}:{int(_kernels._unit_rows_unrolled())}")
    rng = np.random.default_rng(12)
    h = hashlib.sha256()
    for n_out in [*range(1, 41), 56, 127, 128, 129, 143, 144, 145]:
        shape = (3, 4, n_out)
        q = cresize.plan(shape, (8, 2 * n_out), mode="nearest", axes=(1, 2))
        g = rng.standard_normal(q.output_shape).astype(np.float32)
        want = q.backward(g, num_threads=1)
        for at_end in (False, True):
            gg = guarded(g.shape, g.dtype, at_end)
            gg[...] = g
            out = guarded(shape, g.dtype, at_end)
            assert q.backward(gg, out=out, num_threads=2) is out
            assert out.tobytes() == want.tobytes(), (n_out, at_end)
            cases += 1
        kept.clear()
        h.update(want.tobytes())
    digests.append(h.hexdigest())
print(",".join(runs), cases, ",".join(digests))
"""


def test_unit_2x2_rows_stay_in_their_arrays(tmp_path):
    """The x2 nearest backward's 2x2 sums of weight 1 (the unrolled ``avx512`` rows and
    the buffered loop, both at ``avx512``) on gradients and ``out`` that end (or begin)
    at a page the process may not touch, rows of 1-40 and around 8 steps of 16 outputs,
    two threads: the bits of one thread, the same at every level and loop. In a child
    process: a read or write past either array is a segmentation fault there."""
    from helpers.guard import run_guarded

    runs, cases, digests = run_guarded(tmp_path, UNIT_ROWS_GUARDED).split()
    assert runs.split(",")[0] == "none:1"
    assert int(cases) == 2 * 47 * 4
    assert len(set(digests.split(","))) == 1, runs


def test_steps_check_what_they_rely_on():
    from cresize import _fast, _kernels
    from cresize._tables import taps

    t = taps(4, 8, "nearest").transpose()
    assert t.block == 2
    assert taps(8, 4, "bilinear").block == 2
    bilinear = taps(8, 5, "bilinear")
    with pytest.raises(ValueError, match="x_block 2"):
        _kernels.make_step(_kernels.Kind.LINES, 3, 1, 8, x=bilinear.row_args(np.float32), x_block=2)
    with pytest.raises(ValueError, match="x_block 2"):  # blocks need pixels of <= 4 values
        _kernels.make_step(
            _kernels.Kind.FUSED,
            1,
            8,
            40,
            y=t.kernel_args(np.float32),
            x=t.row_args(np.float32),
            channels=5,
            order=_kernels.Order.VERTICAL_FIRST,
            x_block=2,
        )
    with pytest.raises(ValueError, match="y_block 2"):
        _kernels.make_step(
            _kernels.Kind.PLANES, 1, 8, 5, y=bilinear.kernel_args(np.float32), y_block=2
        )
    with pytest.raises(ValueError, match="index"):  # the table reads past the input
        _kernels.make_step(_kernels.Kind.LINES, 3, 1, 7, x=t.row_args(np.float32))
    with pytest.raises(ValueError, match="most_threads"):
        _kernels.make_step(_kernels.Kind.LINES, 3, 1, 8, x=t.row_args(np.float32), most_threads=0)
    step = _kernels.make_step(_kernels.Kind.LINES, 3, 1, 8, x=t.row_args(np.float32), x_block=2)
    assert (step.kind, step.src_size, step.dst_size, step.wide) == (0, 24, 12, False)
    src = np.arange(24, dtype=np.float32).reshape(3, 8)
    dst = np.empty((3, 4), np.float32)
    step(src, dst, 2)
    np.testing.assert_array_equal(dst, src[:, 0::2] + src[:, 1::2])
    for bad_src, bad_dst in [
        (src[:, :4], dst),  # too few values
        (src.astype(np.float64), dst),  # another dtype
        (np.asfortranarray(src), dst),
        (src, dst[:, :2]),
        (src, dst.astype(">f4")),
    ]:
        with pytest.raises(ValueError):
            _fast.run_step(_fast.LINES, bad_src, bad_dst, step, 1, 36, 1)
    ro = np.empty((3, 4), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        _fast.run_step(_fast.LINES, src, ro, step, 1, 36, 1)
    with pytest.raises(ValueError, match="num_threads"):
        step(src, dst, 0)
    with pytest.raises(ValueError, match="C-contiguous"):
        step(src, np.empty((4, 3), np.float32).T, 1)


def test_plan_fast_path_falls_back_for_other_inputs():
    """Anything but an exact, C-contiguous ndarray of the plan's shape and dtype takes
    the checked path, with the same bits or the same errors."""
    p = cresize.plan((2, 5, 6), (7, 4), mode="bicubic")
    x = _array(p.input_shape, np.float32)
    want = p(x)

    class Sub(np.ndarray):
        pass

    for other in (x.view(Sub), np.asfortranarray(x), x.astype(">f4")):
        np.testing.assert_array_equal(p(other), want)
    with pytest.raises(ValueError, match="x has shape"):
        p(x[:, :4])
    with pytest.raises(TypeError, match="dtype"):
        p(x.astype(np.float64))
    out = np.empty(p.output_shape, np.float32)
    assert p(x, out=out) is out
    np.testing.assert_array_equal(out, want)
    g = _array(p.output_shape, np.float32, seed=3)
    np.testing.assert_array_equal(p.backward(g), p.backward(np.asfortranarray(g)))


def _misaligned(shape, dtype):
    """A C-contiguous array one byte off its dtype's alignment."""
    dtype = np.dtype(dtype)
    raw = np.zeros(int(np.prod(shape)) * dtype.itemsize + 1, np.uint8)
    a = np.ndarray(shape, dtype, raw, 1)
    assert a.flags.c_contiguous and not a.flags.aligned
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.uint16])
def test_misaligned_input_gives_the_bits_of_an_aligned_copy(dtype):
    rng = np.random.default_rng(5)
    x = _misaligned((2, 3, 17, 13), dtype)
    x[...] = (rng.random(x.shape) * 200).astype(dtype)
    p = cresize.plan(x.shape, (9, 24), mode="bicubic", dtype=dtype)
    want = p(x.copy())
    for _ in range(2):  # the second call takes the cached fast path where there is one
        np.testing.assert_array_equal(p(x), want)
        np.testing.assert_array_equal(cresize.resize(x, (9, 24), mode="bicubic"), want)
    g = _misaligned(want.shape, dtype)
    g[...] = want
    if np.dtype(dtype).kind == "f":
        np.testing.assert_array_equal(p.backward(g), p.backward(want.copy()))


def test_misaligned_out_is_refused():
    p = cresize.plan((1, 1, 16, 16), (8, 8))
    out = _misaligned((1, 1, 8, 8), np.float32)
    with pytest.raises(ValueError, match="out must be aligned"):
        p(np.zeros((1, 1, 16, 16), np.float32), out=out)


def test_huge_num_threads_is_the_same_error_on_every_path():
    x = np.zeros((1, 1, 16, 16), np.float32)
    p = cresize.plan(x.shape, (8, 8))
    for n in (10**20, 2**63, 5000):
        with pytest.raises(ValueError, match="num_threads"):
            p(x, num_threads=n)
        cresize.resize(x, (8, 8))  # cached: the next call takes the fast path
        with pytest.raises(ValueError, match="num_threads"):
            cresize.resize(x, (8, 8), num_threads=n)


def test_every_path_takes_num_threads_as_threads_value_does():
    # A plain count (an int from 1 to MAX_THREADS) is taken in C by one test
    # (_fast._plain_count: a call's num_threads and a plan's own); everything else goes
    # to _spec.threads_value, the rule, through _threads.resolve. Every path, fast or
    # checked, forward or backward, a call's count or a plan's, gives what resolve
    # gives: the result for a count it takes, its exception and message for another.
    from cresize import _spec, _threads

    x = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    g = np.ones((8, 8), np.float32)
    want = cresize.resize(x, (8, 8), num_threads=1)
    want_back = cresize.resize_backward(g, x.shape, num_threads=1)
    big = _spec.MAX_THREADS + 1
    values = [1, 2, np.int64(2), np.int32(3), np.uint8(1), -1, np.int16(-1), -(10**20)]
    values += [0, np.int64(0), True, False, np.bool_(True), 2.0, "2", 1j, big, np.int64(big)]
    values += [10**20, 2**63]
    p = cresize.plan(x.shape, (8, 8))
    for v in values:
        try:
            _threads.resolve(v)
            error = None
        except (TypeError, ValueError) as e:
            error = (type(e), str(e))
        cresize.resize(x, (8, 8))  # cached: the next call takes the fast path
        cresize.resize_backward(g, x.shape)
        paths = {
            "plan call": lambda v=v: p(x, num_threads=v),
            "plan backward": lambda v=v: p.backward(g, num_threads=v),
            "plan's own": lambda v=v: cresize.plan(x.shape, (8, 8), num_threads=v)(x),
            "plan's own backward": lambda v=v: cresize.plan(
                x.shape, (8, 8), num_threads=v
            ).backward(g),
            "resize": lambda v=v: cresize.resize(x, (8, 8), num_threads=v),
            "resize_backward": lambda v=v: cresize.resize_backward(g, x.shape, num_threads=v),
            "checked call": lambda v=v: p(x.astype(">f4"), num_threads=v),
        }
        for name, call in paths.items():
            if error is None:
                got = call()
                expected = want_back if "backward" in name else want
                np.testing.assert_array_equal(got, expected, err_msg=f"{name}, {v!r}")
            else:
                with pytest.raises(error[0]) as info:
                    call()
                assert str(info.value) == error[1], (name, v)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("level", ["none", "avx2"])
def test_channels_last_block_tables_keep_the_bits(monkeypatch, dtype, level):
    """Pixels of 2-4 values (channels last) take the block paths too (a weight per
    input value); 5 values keep the general kernels. The bits are those of the table
    kernels (``run_region``), at every level and thread count."""
    from cresize import _fast, _kernels

    monkeypatch.setenv("CRESIZE_SIMD", level)
    _kernels._init_simd()
    try:
        rng = np.random.default_rng(7)
        for channels in (1, 2, 3, 4, 5):
            for mode, shape, size, axes, backward in [
                ("bilinear", (24, 150, channels), (12, 75), (0, 1), False),  # 2x2, chunks
                ("area", (2, 12, 18, channels), (6, 9), (1, 2), False),  # NHWC, 2x2
                ("area", (12, 18, channels), (4, 6), (0, 1), False),  # 3x3
                ("area", (12, 18, channels), (4, 9), (0, 1), False),  # 3x2: _pair_rows
                ("bilinear", (5, 16, channels), (5, 8), (0, 1), False),  # x only, DIRECT
                ("nearest", (7, 9, channels), (14, 18), (0, 1), True),  # adjoint of x2
            ]:
                p = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype)
                run = p.backward if backward else p
                x = rng.standard_normal(p.output_shape if backward else shape).astype(dtype)
                flat = x.reshape(-1)
                flat[::5], flat[1::7], flat[3::13] = -0.0, np.inf, -np.inf
                got = run(x)
                general = p.run_region(x, tuple(slice(0, n) for n in got.shape), backward=backward)
                np.testing.assert_array_equal(got, general)
                numbers = ~np.isnan(got)
                assert np.array_equal(np.signbit(got[numbers]), np.signbit(general[numbers]))
                np.testing.assert_array_equal(got, run(x, num_threads=2))
                program = p._backward if backward else p._forward
                steps = program.compiled(np.dtype(dtype))
                x_blocks = [s[4].blocks[1] for s in steps if s[0] == _fast.FUSED]
                if size[0] != shape[axes[0]]:  # both axes resized: one fused step
                    assert x_blocks and all(x_blocks) == (channels <= 4), (channels, mode)
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


@pytest.mark.parametrize(
    "shape, axes, channels, used",
    [
        ((1, 1, 16, 16), (2, 3), 1, False),
        ((1, 1, 16, 512), (2, 3), 1, False),
        ((1, 1, 8, 1024), (2, 3), 1, True),
        ((16, 16, 3), (0, 1), 3, False),
        ((16, 256, 3), (0, 1), 3, True),
        ((8, 512), (1,), 1, False),
        ((8, 1024), (1,), 1, True),
    ],
)
def test_the_periodic_pass_is_used_on_rows_long_enough_to_pay(shape, axes, channels, used):
    """A plan resamples a row's periodic outputs by the periodic pass only when they
    hold at least MIN_PERIODIC_VALUES values; shorter rows take the other row loops."""
    from cresize import _plan

    size = tuple(2 * shape[a] for a in axes)
    p = cresize.plan(shape, size, mode="bicubic", axes=axes)
    steps = [
        s for step in p._forward.direct.steps for s in step if isinstance(s, cresize._kernels.Step)
    ]
    assert len(steps) == 1
    s, _, n = steps[0].period
    whole = cresize._tables.taps(shape[axes[-1]], size[-1], "bicubic", False, False)
    ws, _, wn = whole.period(np.float32)
    assert ws == 2 and wn > 0  # the table is periodic either way
    assert (ws * wn * channels >= _plan.MIN_PERIODIC_VALUES) == used
    assert (s, n) == ((ws, wn) if used else (0, 0))


def test_cache_info_counts_every_repeated_call_as_a_hit():
    """``hits`` and ``misses`` count the calls that looked for a cached plan: a
    repeated ``resize`` (its one-look-up fast path, float or not) and
    ``resize_backward`` are hits, as ``cresize.plan`` of the same arguments is."""
    x = np.ones((1, 1, 4, 4), np.float32)
    u = np.ones((1, 1, 4, 4), np.uint8)  # not a direct call: the recalled plan's path
    g = np.ones((1, 1, 8, 8), np.float64)
    cresize.clear_cache()
    for a in (x, u):
        for _ in range(4):
            cresize.resize(a, (8, 8), axes=(2, 3))
    for _ in range(3):
        cresize.resize_backward(g, (1, 1, 4, 4))
    info = cresize.cache_info()
    assert (info["hits"], info["misses"]) == (3 + 3 + 2, 3), info
    cresize.clear_cache()
    assert cresize.cache_info()["hits"] == 0
    cresize.resize(x, (8, 8), axes=(2, 3))
    cresize.resize(x, (8, 8), axes=(2, 3))
    assert (cresize.cache_info()["hits"], cresize.cache_info()["misses"]) == (1, 1)


@pytest.mark.parametrize("level", ["none", "avx2", "avx512"])
def test_2x2_block_rows_split_inside_a_plane(monkeypatch, level):
    """Each thread's share of 2x2 block rows starts and ends inside a plane (an odd
    number of planes, rows swept a plane at a time from the share's first row):
    bilinear shrinking by 2 and the x2 nearest backward, the bits of one thread and of
    the table kernels."""
    from cresize import _kernels

    monkeypatch.setenv("CRESIZE_SIMD", level)
    _kernels._init_simd()
    try:
        rng = np.random.default_rng(12)
        for dtype in (np.float32, np.float64):
            for planes, rows, width in ((3, 128, 300), (5, 130, 257), (7, 34, 512)):
                shape = (planes, rows, 2 * width)
                p = cresize.plan(shape, (rows // 2, width), mode="bilinear", dtype=dtype)
                q = cresize.plan(
                    shape[:1] + (rows // 2, width), (rows, 2 * width), mode="nearest", dtype=dtype
                )
                x = rng.standard_normal(shape).astype(dtype)
                for plan, run, data, region in (
                    (p, p, x, p.output_shape),
                    (q, q.backward, x, shape[:1] + (rows // 2, width)),
                ):
                    compiled = plan._forward if run is plan else plan._backward
                    step = compiled.compiled(np.dtype(dtype))[0][4]
                    assert step.blocks == (2, 2) and step.most_threads >= 2, (planes, rows)
                    jobs = planes * (rows // 2)
                    assert (jobs // 2) % (rows // 2) != 0  # the 2-thread split is mid-plane
                    full = tuple(slice(0, n) for n in region)
                    general = plan.run_region(data, full, backward=run is not plan)
                    for n in (1, 2):
                        np.testing.assert_array_equal(run(data, num_threads=n), general)
    finally:
        monkeypatch.delenv("CRESIZE_SIMD")
        _kernels._init_simd()


class _SizedPlan:
    """What ``_Cache`` reads of a plan: its ``nbytes`` and ``_key``."""

    def __init__(self, nbytes):
        self.nbytes = nbytes
        self._key = None


def _cache_of(*sizes, limit=100):
    cache = cresize._plan._Cache(limit)
    plans = [_SizedPlan(n) for n in sizes]
    for i, plan in enumerate(plans):
        cache.put(("held", i), plan)
    return cache, plans


def _grow(cache, plans):
    plans[1].nbytes = 60  # a program it made grew its tables: the oldest is dropped
    cache.remeasure(plans[1])


def _lower_limit(cache, plans):
    with cache.lock:  # as set_cache_limit does
        cache.limit = 40
        cache._shrink()


@pytest.mark.parametrize(
    "change",
    [
        lambda cache, plans: cache.put("new", _SizedPlan(50)),  # two older ones dropped
        lambda cache, plans: cache.put("new", _SizedPlan(5)),  # nothing dropped
        _grow,
        _lower_limit,
        lambda cache, plans: cache.clear(),
    ],
    ids=["put-dropping", "put", "remeasure", "shrink", "clear"],
)
def test_cache_count_survives_an_interrupt_at_every_line(change):
    # A KeyboardInterrupt (or a MemoryError) between the entries' update and the byte
    # count's (put, remeasure, _shrink, clear) left cache_info()["nbytes"] wrong for
    # good: too low, the cache held more than its bound; too high, less. Here an
    # interrupt lands before each line of _Cache's code in turn, as Ctrl-C can.
    if sys.gettrace() is not None:
        pytest.skip("a tracer (coverage, a debugger) is running")

    def traced(code):  # every method of _Cache (and its properties)
        return code.co_filename == cresize._plan.__file__ and code.co_qualname.startswith("_Cache.")

    points = 0
    while True:
        cache, plans = _cache_of(30, 30, 30)
        lines = 0

        def local(frame, event, arg, at=points + 1):
            nonlocal lines
            if event == "line":
                lines += 1
                if lines == at:
                    raise KeyboardInterrupt
            return local

        sys.settrace(lambda frame, event, arg: local if traced(frame.f_code) else None)
        try:
            change(cache, plans)
        except KeyboardInterrupt:
            pass
        else:
            break  # it ran through: every line was tried
        finally:
            sys.settrace(None)
        points += 1
        sizes = [size for _, size in cache.entries.values()]
        assert cache.nbytes == sum(sizes), f"interrupted before line {points} of the change"
        cache.put("after", _SizedPlan(20))  # the cache goes on as it should
        assert cache.nbytes == sum(size for _, size in cache.entries.values()) <= cache.limit
    assert points >= 4 and cache.nbytes == sum(size for _, size in cache.entries.values())


def test_cache_under_threads_and_a_clearing_thread_keeps_its_count_and_bound():
    # Six threads resizing with plans of many sizes under a bound that holds a few, one
    # more clearing the cache: at every look (under the lock) nbytes is the sum of the
    # entries' sizes and within the bound, every result is right, nothing deadlocks.
    cache = cresize._plan._CACHE
    x = np.random.default_rng(0).random((1, 1, 7, 9))
    sizes = [(h, w) for h in (3, 11, 30) for w in (4, 13, 41)]
    expected = {(s, m): cresize.resize(x, s, mode=m) for s in sizes for m in ("bilinear", "area")}
    plans = [cresize.plan(x.shape, s, mode=m, dtype=x.dtype) for s, m in expected]
    for p in plans:  # their tables all made: the size each has in the cache
        p.backward(p(x))
    bound = 3 * max(p.nbytes for p in plans)  # a few plans of the 18
    previous = cresize.set_cache_limit(bound)
    stop = threading.Event()
    problems = []
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # threads switch often: a race shows in the time given

    def resizing(seed):
        rng = np.random.default_rng(seed)
        try:
            while not stop.is_set():
                key = list(expected)[rng.integers(len(expected))]
                y = cresize.resize(x, key[0], mode=key[1])
                if not np.array_equal(y, expected[key]):
                    problems.append(f"wrong result of {key}")
                cresize.resize_backward(y, x.shape, mode=key[1])
        except Exception as exc:  # reported below
            problems.append(repr(exc))

    def clearing():
        while not stop.wait(0.003):
            cresize.clear_cache()

    looks = 0

    def looking():
        nonlocal looks
        while not stop.wait(0.0005):
            with cache.lock:
                held = sum(size for _, size in cache.entries.values())
                if not cache.nbytes == held <= cache.limit:
                    problems.append((cache.nbytes, held, cache.limit))
            looks += 1

    threads = [threading.Thread(target=resizing, args=(i,)) for i in range(6)]
    threads += [threading.Thread(target=clearing), threading.Thread(target=looking)]
    try:
        for t in threads:
            t.start()
        stop.wait(1.5)
    finally:
        stop.set()
        for t in threads:
            t.join(60)
        sys.setswitchinterval(interval)
        cresize.set_cache_limit(previous)
    assert not any(t.is_alive() for t in threads), "a thread did not end: a deadlock?"
    assert problems == [] and looks > 10
    with cache.lock:
        assert cache.nbytes == sum(size for _, size in cache.entries.values()) <= cache.limit


def test_a_refused_dtype_argument_is_called_a_dtype_not_an_array():
    # plan's dtype= is a dtype: its refusal said "float ... or integer array" (the words
    # of resize's x); an array argument keeps them
    allowed = "dtype must be a float (float16/32/64) or integer dtype"
    for dtype in (object, bool, np.complex64, "U3"):
        with pytest.raises(TypeError, match=rf"^{re.escape(allowed)}, not "):
            cresize.plan((4, 4), 2, dtype=dtype)
    with pytest.raises(TypeError, match=rf"^{re.escape(allowed)}; got 'foo'$"):
        cresize.plan((4, 4), 2, dtype="foo")
    spec = cresize.plan((4, 4), 2)._spec
    with pytest.raises(TypeError, match=rf"^{re.escape(allowed)}, not object$"):
        cresize.Plan(spec, np.dtype(object))
    with pytest.raises(TypeError, match=r"^x must be a float \(float16/32/64\) or integer array"):
        cresize.resize(np.zeros((4, 4), bool), 2)
