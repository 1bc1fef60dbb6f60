"""Impossible sizes fail fast, the plan cache is bounded in bytes, arguments are strict."""

import gc
import importlib.util
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import cresize

#: Each call asks for a result (or tables) that cannot exist; on a 512 MiB address
#: space each must be refused without building anything.
IMPOSSIBLE = textwrap.dedent("""
    import resource, sys, tracemalloc
    import numpy as np
    import cresize
    resource.setrlimit(resource.RLIMIT_AS, (512 * 2**20, 512 * 2**20))
    calls = [
        lambda: cresize.resize(np.ones((1, 1)), (10**8, 10**8)),
        lambda: cresize.resize(np.ones((1, 1)), scale_factor=2e8),
        lambda: cresize.weights(10**8, 10**8),
        lambda: cresize.resize_backward(np.ones(3), (10**9,), mode="area"),
        lambda: cresize.plan((1, 1), (10**8, 10**8)),
        lambda: cresize.resize(np.ones((1, 2)), 10**9, axes=1, mode="lanczos3"),
        lambda: cresize.weights(10**9, 1, antialias=True),
    ]
    tracemalloc.start()
    for call in calls:
        tracemalloc.reset_peak()
        try:
            call()
        except (MemoryError, ValueError) as exc:
            print(type(exc).__name__, tracemalloc.get_traced_memory()[1], str(exc)[:200])
        else:
            print("ACCEPTED", tracemalloc.get_traced_memory()[1])
""")


@pytest.mark.skipif(
    importlib.util.find_spec("resource") is None,
    reason="the address-space limit (resource.setrlimit) is POSIX only",
)
def test_impossible_requests_fail_fast_without_memory():
    run = subprocess.run(
        [sys.executable, "-c", IMPOSSIBLE], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 7, run.stdout + run.stderr
    for line in lines:
        kind, peak, *message = line.split(" ", 2)
        assert kind in ("MemoryError", "ValueError"), line
        # nothing built first (the old code built 8 GiB of tables, 20 s, first): the
        # most memory the call held at once, as NumPy and Python report it
        assert int(peak) < 2**26, line  # 64 MiB (the first call imports the kernels)
        # named by the requested size, not by some table NumPy failed to allocate
        assert "can exist here" in message[0] or "elements" in message[0], line


def test_refusal_names_the_size():
    with pytest.raises(MemoryError, match=r"to \(1, 100000000, 100000000\)"):
        cresize.resize(np.ones((1, 1, 1)), (10**8, 10**8))
    with pytest.raises(ValueError, match=r"elements"):
        cresize.resize(np.ones((2, 1, 1)), (2**31, 2**31 + 1), axes=(0, 1))


def test_weights_of_nearest_and_moderate_sizes_still_work():
    assert cresize.weights(3, 10**6, mode="nearest").shape == (10**6, 3)
    assert cresize.resize(np.ones(5), 10**6, mode="nearest").shape == (10**6,)


# ----------------------------------------------------------------------------
# The cache, bounded in bytes


def test_cache_is_bounded_in_bytes():
    cresize.clear_cache()
    old = cresize.cache_info()["limit"]
    try:
        cresize.set_cache_limit(8 * 2**20)
        x = np.ones(40_000, np.float32)
        tables = []
        for n in range(1000, 1040):  # 40 geometries, each about 2 MiB of tables
            cresize.resize(x, n, antialias=True)
            cresize.resize_backward(np.ones(n, np.float32), x.shape, antialias=True)
            p = cresize.plan(x.shape, n, antialias=True)
            tables.append(weakref.ref(p._forward.tables[0]))
            del p
            info = cresize.cache_info()
            assert 0 < info["nbytes"] <= 8 * 2**20, info
        gc.collect()
        assert sum(t() is None for t in tables) >= 30  # evicted tables are freed
        cresize.clear_cache()
        gc.collect()
        assert all(t() is None for t in tables)
        assert cresize.cache_info()["nbytes"] == 0 and cresize.cache_info()["plans"] == 0
        cresize.set_cache_limit(0)  # nothing is kept; calls still work
        np.testing.assert_array_equal(cresize.resize(x[:10], 5), cresize.resize(x[:10], 5))
        assert cresize.cache_info()["plans"] == 0
    finally:
        cresize.set_cache_limit(old)


def test_cache_limit_is_checked():
    with pytest.raises(TypeError, match="nbytes"):
        cresize.set_cache_limit(True)
    with pytest.raises(ValueError, match="nbytes"):
        cresize.set_cache_limit(-1)
    assert cresize.cache_info()["limit"] == cresize._plan.DEFAULT_CACHE_LIMIT


@pytest.mark.parametrize(
    "setter, key",
    [(cresize.set_cache_limit, "limit"), (cresize.set_result_cache_limit, "result_limit")],
    ids=["set_cache_limit", "set_result_cache_limit"],
)
def test_cache_setters_return_the_previous_bound(setter, key):
    """Like set_thread_steering: each setter returns what it replaced, so a caller can
    restore it (previous = set_...(x); ...; set_...(previous)); a refused value changes
    nothing and returns nothing."""
    before = cresize.cache_info()[key]
    try:
        assert setter(5 * 2**20) == before
        previous = setter(np.int64(3 * 2**20))
        assert previous == 5 * 2**20 and type(previous) is int
        assert setter(0) == 3 * 2**20
        assert cresize.cache_info()[key] == 0
        with pytest.raises(ValueError, match="nbytes must be >= 0"):
            setter(-1)
        assert setter(0) == 0  # the refused bound did not replace it
    finally:
        assert setter(before) == 0
    assert cresize.cache_info()[key] == before


# ----------------------------------------------------------------------------
# Strict validation


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: cresize.resize_backward(np.ones((2, 4)), (True, 4)), TypeError, "input_shape"),
        (lambda: cresize.plan((True, 4), 2), TypeError, "input_shape"),
        (lambda: cresize.resize(np.ones((3, 4)), 2, axes=(True,)), TypeError, "axes"),
        (lambda: cresize.resize(np.ones((3, 4)), 2, axes=True), TypeError, "axes"),
        (lambda: cresize.resize(np.ones((3, 4)), (True, 2)), TypeError, "size"),
        (lambda: cresize.resize(np.ones((3, 4)), np.True_), TypeError, "size"),
        (lambda: cresize.plan((2**64,), 3), ValueError, "input_shape"),
        (lambda: cresize.resize_backward(np.ones(3), (2**64,)), ValueError, "input_shape"),
        (lambda: cresize.resize(np.ones(3), 2**64), ValueError, "size"),
        (lambda: cresize.resize(np.ones(3), 3, num_threads=2**64), ValueError, "num_threads"),
        (lambda: cresize.resize_backward(np.array(2.5), ()), ValueError, "at least one dimension"),
        (
            lambda: cresize.resize_backward(np.ones((0, 3)), (4, 3)),
            ValueError,
            "grad_output has length 0 on axis 0",
        ),
    ],
)
def test_strict_validation(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_fast_path_does_not_confuse_bool_and_int():
    x = np.ones((3, 4))
    cresize.resize(x, 2, axes=1)  # cached under the plain int key
    with pytest.raises(TypeError, match="size"):
        cresize.resize(x, True, axes=1)
    with pytest.raises(TypeError, match="axes"):
        cresize.resize(x, 2, axes=True)
    with pytest.raises(TypeError, match="align_corners"):
        cresize.resize(x, 2, axes=1, align_corners=0)


def test_an_array_given_for_its_shape_is_named_by_its_shape():
    """resize_backward(g, x) and plan(x, ...), a common slip: the message names the
    array's shape and dtype and says to pass .shape, without a repr of its values."""
    x = np.full((2, 3, 40, 50), 0.123456789, np.float32)
    g = np.ones((2, 3, 20, 25), np.float32)
    for call in (
        lambda: cresize.resize_backward(g, x),
        lambda: cresize.plan(x, (20, 25)),
        lambda: cresize.plan(np.arange(3.0), 2),
        lambda: cresize.plan(np.array(4), 2),
    ):
        with pytest.raises(TypeError, match=r"input_shape must be a tuple of ints; got an ar") as e:
            call()
        assert "pass its .shape" in str(e.value)
        assert "0.123" not in str(e.value) and len(str(e.value)) < 160
    # A 1-D integer array is a shape.
    assert cresize.plan(np.array([4, 6]), 2, axes=1).output_shape == (4, 2)
    np.testing.assert_array_equal(
        cresize.resize_backward(g, np.array(x.shape)), cresize.resize_backward(g, x.shape)
    )


def test_repeated_backward_uses_the_cached_plan_and_stays_strict():
    g = np.ones((2, 3), np.float32)
    first = cresize.resize_backward(g, (2, 5))
    np.testing.assert_array_equal(cresize.resize_backward(g, (2, 5)), first)
    with pytest.raises(TypeError, match="input_shape"):
        cresize.resize_backward(g, (True, 5))
    with pytest.raises(ValueError, match="grad_output has shape"):
        cresize.resize_backward(np.ones((2, 4), np.float32), (2, 5), axes=(1,), scale_factor=0.5)
    g64 = g.astype(np.float64)  # another dtype: another plan, not the float32 one
    np.testing.assert_array_equal(
        cresize.resize_backward(g64, (2, 5)),
        cresize.plan((2, 5), (2, 3), dtype="float64").backward(g64),
    )
