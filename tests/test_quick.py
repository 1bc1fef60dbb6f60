"""The quick pair (``_quick.h``): calls of at most two threads run on the calling thread
and one helper thread that claims chunks of output rows, instead of an OpenMP team.

Which thread computes a row never changes its bits: each case compares 2-thread calls
(the pair on) with 1-thread calls, many times over, so that the helper, spinning
between calls, takes its share in some of them (``quick_counts``: ``helped``).
"""

import os
import sys
import threading

import numpy as np
import pytest

import cresize
from cresize import _kernels, _plan
from helpers.proc import run_python

LINUX = sys.platform.startswith("linux")

#: (shape, size, mode, axes, dtype): every loop the pair runs (blocks of 2x2, pairs of
#: pixels, rows through a ring, 8/16-bit steps, rows of pixels along one axis, whole
#: lines, whole planes), above ``_plan.QUICK_MIN_WORK``.
CASES = [
    ((224, 224, 3), (112, 112), "bilinear", (0, 1), np.float32),  # blocks, channels last
    ((1, 3, 224, 224), (112, 112), "area", None, np.float64),  # blocks, planar
    ((224, 224, 3), (112, 112), "bilinear", (0, 1), np.uint8),  # pairs into 8-bit
    ((150, 226, 4), (75, 113), "bilinear", (0, 1), np.int16),  # pairs into 16-bit
    ((224, 224, 3), (150, 170), "bicubic", (0, 1), np.float32),  # a ring of rows
    ((200, 190, 3), (230, 171), "lanczos3", (0, 1), np.uint16),  # a ring, 16-bit
    ((3, 160, 130), (77, 260), "bicubic", None, np.int8),
    ((224, 224, 3), (112, 112), "nearest", (0, 1), np.float32),
    ((300, 200, 3), (300, 150), "bicubic", (0, 1), np.float32),  # rows of pixels
    ((400, 1000), (300,), "bicubic", (1,), np.float32),  # lines
    ((40, 40, 40), (80, 80, 80), "bilinear", None, np.float32),  # planes, then fused
    ((2, 3, 100, 100), (67, 150), "bicubic", None, np.float32),
]


def _array(shape, dtype, rng):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)


@pytest.fixture
def quick_on():
    previous = _kernels.set_quick_thread(True)
    yield
    _kernels.set_quick_thread(previous)


def test_the_cases_are_big_enough_for_the_pair():
    for shape, size, mode, axes, dtype in CASES:
        out = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype).output_shape
        assert np.prod(shape) + np.prod(out) >= _plan.QUICK_MIN_WORK


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[2]}-{np.dtype(c[4]).name}")
def test_the_pair_gives_the_bits_of_one_thread(case, quick_on):
    shape, size, mode, axes, dtype = case
    rng = np.random.default_rng(len(shape) + size[0])
    x = _array(shape, dtype, rng)
    p = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype, num_threads=2)
    one = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype, num_threads=1)
    expected = one(x)
    calls = _kernels.quick_counts()[0]
    for _ in range(40):
        got = p(x)
        assert got.tobytes() == expected.tobytes()
    assert _kernels.quick_counts()[0] > calls  # the pair ran these calls
    if np.dtype(dtype).kind == "f":  # the adjoint too
        g = _array(p.output_shape, dtype, rng)
        expected = one.backward(g)
        for _ in range(10):
            assert p.backward(g).tobytes() == expected.tobytes()
    assert (
        x.tobytes() == _array(shape, dtype, np.random.default_rng(len(shape) + size[0])).tobytes()
    )


@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
def test_the_helper_takes_chunks_in_a_run_of_calls(quick_on):
    """A tight loop finds the helper awake: some calls are shared (on a machine whose
    other CPUs are all taken, the helper backs off; the loop keeps going for a while)."""
    x = np.random.default_rng(0).random((224, 224, 3), dtype=np.float32)
    p = cresize.plan(x.shape, (112, 112), axes=(0, 1), num_threads=2)
    expected = cresize.resize(x, (112, 112), axes=(0, 1), num_threads=1)
    helped = _kernels.quick_counts()[1]
    for _ in range(20000):
        assert np.array_equal(p(x), expected)
        if _kernels.quick_counts()[1] > helped + 10:
            break
    assert _kernels.quick_counts()[1] > helped + 10


def test_off_runs_each_call_on_the_calling_thread():
    previous = _kernels.set_quick_thread(False)
    try:
        x = np.random.default_rng(0).random((224, 224, 3), dtype=np.float32)
        expected = cresize.resize(x, (112, 112), axes=(0, 1), num_threads=1)
        before = _kernels.quick_counts()
        for _ in range(20):
            assert np.array_equal(
                cresize.resize(x, (112, 112), axes=(0, 1), num_threads=2), expected
            )
        assert _kernels.quick_counts() == before
        assert _kernels.set_quick_thread(True) is False  # returns what was in effect
    finally:
        _kernels.set_quick_thread(previous)


def test_small_calls_and_one_thread_stay_off_the_pair(quick_on):
    x = np.random.default_rng(0).random((1, 1, 16, 16), dtype=np.float32)
    big = np.random.default_rng(0).random((224, 224, 3), dtype=np.float32)
    before = _kernels.quick_counts()[0]
    cresize.resize(x, (24, 24), num_threads=2)  # below QUICK_MIN_WORK
    cresize.resize(big, (112, 112), axes=(0, 1), num_threads=1)  # one thread asked for
    assert _kernels.quick_counts()[0] == before


def test_python_threads_share_the_pair(quick_on):
    """Six Python threads call at once: one holds the pair, the others run alone; every
    result has the bits of one thread."""
    rng = np.random.default_rng(1)
    x = rng.random((224, 224, 3), dtype=np.float32)
    y = rng.integers(0, 256, (256, 200, 3), dtype=np.uint8)
    p = cresize.plan(x.shape, (150, 170), mode="bicubic", axes=(0, 1), num_threads=2)
    q = cresize.plan(y.shape, (128, 100), axes=(0, 1), dtype=np.uint8, num_threads=2)
    want_p = cresize.resize(x, (150, 170), mode="bicubic", axes=(0, 1), num_threads=1)
    want_q = cresize.resize(y, (128, 100), axes=(0, 1), num_threads=1)
    wrong = []

    def work(k):
        for _ in range(60):
            if k % 2:
                ok = p(x).tobytes() == want_p.tobytes()
            else:
                ok = q(y).tobytes() == want_q.tobytes()
            if not ok:
                wrong.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


ENV_CHILD = """
import warnings
warnings.simplefilter("error")
import numpy as np
import cresize
from cresize import _kernels
x = np.random.default_rng(0).random((224, 224, 3), dtype=np.float32)
for _ in range(5):
    cresize.resize(x, (112, 112), axes=(0, 1), num_threads=2)
print(_kernels.quick_counts()[0])
"""


@pytest.mark.parametrize(("value", "calls"), [("off", 0), (" OFF ", 0), ("on", 5), ("", 5)])
def test_the_environment_variable(value, calls):
    env = dict(os.environ, CRESIZE_QUICK_THREAD=value)
    code, out, err = run_python(["-c", ENV_CHILD], env, 60)
    assert code == 0, err
    assert int(out.split()[-1]) == calls


def test_an_unknown_value_warns_and_keeps_the_pair_on():
    env = dict(os.environ, CRESIZE_QUICK_THREAD="sometimes")
    code, out, err = run_python(["-c", ENV_CHILD.replace('"error"', '"default"')], env, 60)
    assert code == 0, err
    assert "CRESIZE_QUICK_THREAD='sometimes' is not one of on, off" in err
    assert int(out.split()[-1]) == 5


FORK_CHILD = """
import os, sys
import numpy as np
import cresize
from cresize import _kernels
x = np.random.default_rng(0).random((224, 224, 3), dtype=np.float32)
want = cresize.resize(x, (112, 112), axes=(0, 1), num_threads=1)
for _ in range(200):  # the helper exists and spins
    assert np.array_equal(cresize.resize(x, (112, 112), axes=(0, 1), num_threads=2), want)
assert _kernels.quick_counts()[0] >= 200
pid = os.fork()
if pid == 0:  # the child: the helper was not forked; its first quick call starts one
    ok = all(np.array_equal(cresize.resize(x, (112, 112), axes=(0, 1), num_threads=2), want)
             for _ in range(200))
    ok = ok and _kernels.quick_counts()[0] >= 400
    os._exit(0 if ok else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() exists on POSIX only")
def test_a_forked_child_gets_a_helper_of_its_own():
    code, out, err = run_python(["-c", FORK_CHILD], dict(os.environ), 120, " (the forked child)")
    assert code == 0, err
    assert out.split()[-1] == "0"
