"""Freed large results are kept for reuse (``_hugealloc.h``'s pool).

On Linux a result of at least 32 MiB that cresize allocated (``_fast.new_result``)
goes, once freed, to a bounded pool (``cresize.set_result_cache_limit``, default 256
MiB, at most 16 blocks, the oldest evicted first) and the next result whose size is
in [capacity / 2, capacity] takes it without page faults. ``cresize.cache_info()``
reports it (``result_*`` keys) and ``cresize.clear_cache()`` frees it. Off Linux the
handler is None: nothing is kept, and the API still validates and reports.
"""

import os
import sys
import threading

import numpy as np
import pytest

import cresize
from cresize import _fast
from helpers.large import LARGE_CASES, large_inputs
from helpers.proc import run_python

MiB = 1 << 20
LINUX = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the result pool is Linux only"
)
U8 = np.dtype(np.uint8)


def info():
    full = cresize.cache_info()
    return {k[len("result_") :]: v for k, v in full.items() if k.startswith("result_")}


@pytest.fixture
def pool():
    """An empty pool of the default bound, with MADV_FREE and the handler on."""
    limit = info()["limit"]
    huge = _fast.huge_results(True)
    madv = _fast.pool_madv_free(True)
    cresize.set_result_cache_limit(cresize._plan.DEFAULT_RESULT_CACHE_LIMIT)
    cresize.clear_cache()
    try:
        yield
    finally:
        cresize.clear_cache()
        cresize.set_result_cache_limit(limit)
        _fast.pool_madv_free(madv)
        _fast.huge_results(huge)


def new(nbytes):
    return _fast.new_result((nbytes,), U8)


# ----------------------------------------------------------------------------
# The API (every platform)


def test_the_bound_is_checked_reported_and_restored():
    before = info()["limit"]
    assert cresize._plan.DEFAULT_RESULT_CACHE_LIMIT == 256 * MiB
    try:
        cresize.set_result_cache_limit(64 * MiB)
        assert info()["limit"] == 64 * MiB
        cresize.set_result_cache_limit(np.int64(0))
        assert info()["limit"] == 0
        for bad, kind in [(True, TypeError), (1.5, TypeError), ("1", TypeError)]:
            with pytest.raises(kind, match="nbytes must be an int"):
                cresize.set_result_cache_limit(bad)
        with pytest.raises(ValueError, match="nbytes must be >= 0"):
            cresize.set_result_cache_limit(-1)
        with pytest.raises(ValueError, match="nbytes must be < 2"):
            cresize.set_result_cache_limit(2**64)
        assert info()["limit"] == 0  # a refused bound changes nothing
    finally:
        cresize.set_result_cache_limit(before)
    got = cresize.cache_info()
    assert {"limit", "nbytes", "plans", "hits", "misses"} < set(got)
    assert set(info()) == {"limit", "nbytes", "blocks", "hits", "misses"}
    assert all(type(v) is int for v in got.values())


def test_clear_cache_zeroes_the_result_counts():
    x = np.ones((300, 400, 3), np.uint16)
    cresize.resize(x, (2400, 2560), axes=(0, 1))
    cresize.clear_cache()
    got = info()
    assert got["nbytes"] == got["blocks"] == got["hits"] == got["misses"] == 0
    if not sys.platform.startswith("linux"):
        assert _fast.huge_results() is False  # nothing to keep without the handler


# ----------------------------------------------------------------------------
# The pool (Linux)


def large_image(seed):
    x = np.random.default_rng(seed).integers(0, 65536, (300, 400, 3)).astype(np.uint16)
    return x, (2400, 2560)  # 37 MB of uint16


@LINUX
def test_a_freed_result_is_reused(pool):
    x, size = large_image(0)
    a = cresize.resize(x, size, axes=(0, 1), mode="bicubic")
    where, nbytes = a.ctypes.data, a.nbytes
    del a
    assert info() == dict(limit=256 * MiB, nbytes=nbytes, blocks=1, hits=0, misses=1)
    b = cresize.resize(x, size, axes=(0, 1), mode="bicubic")
    assert b.ctypes.data == where and b.flags.owndata
    assert info() == dict(limit=256 * MiB, nbytes=0, blocks=0, hits=1, misses=1)


@LINUX
@pytest.mark.parametrize("dtype, mode, kw", LARGE_CASES)
def test_a_reused_dirty_block_gives_the_same_bits(pool, dtype, mode, kw):
    """A resized, dropped; B of the same size then lands in A's block (which holds A's
    values): B equals B computed with nothing kept."""
    (xa, xb), size = large_inputs(dtype, kw, 2, 3)
    cresize.set_result_cache_limit(0)
    want = cresize.resize(xb, size, axes=(0, 1), mode=mode, **kw)
    cresize.set_result_cache_limit(256 * MiB)
    a = cresize.resize(xa, size, axes=(0, 1), mode=mode, **kw)
    assert a.nbytes >= 32 * MiB and not np.array_equal(a, want)
    where = a.ctypes.data
    del a
    hits = info()["hits"]
    b = cresize.resize(xb, size, axes=(0, 1), mode=mode, **kw)
    assert b.ctypes.data == where and info()["hits"] > hits
    assert b.tobytes() == want.tobytes()


@LINUX
def test_backward_and_plans_reuse_too(pool):
    x = np.random.default_rng(2).random((1200, 1200, 3))  # 35 MB of float64
    p = cresize.plan(x.shape, (1500, 1500), mode="bicubic", axes=(0, 1), dtype=x.dtype)
    want_y = p(x).copy()
    g = np.random.default_rng(4).random(p.output_shape)
    want_g = p.backward(g).copy()
    hits = info()["hits"]
    for _ in range(3):
        assert p(x).tobytes() == want_y.tobytes()
        assert p.backward(g).tobytes() == want_g.tobytes()
    assert info()["hits"] >= hits + 6


@LINUX
def test_the_fit_rule(pool):
    """A kept block of capacity C serves a request of C/2 to C bytes (the smallest such
    block first); it keeps its capacity when it comes back."""
    a = new(70 * MiB)
    where = a.ctypes.data
    del a
    big = new(71 * MiB)  # larger than the block: a new one
    assert big.ctypes.data != where and info()["blocks"] == 1
    b = new(40 * MiB)  # 40 <= 70 <= 80: the kept block
    assert b.ctypes.data == where and info()["blocks"] == 0
    b[:] = 7
    del b
    assert info()["nbytes"] == 70 * MiB  # its capacity, not the 40 MiB asked
    c = new(34 * MiB)  # 70 > 2 * 34: not this block
    assert c.ctypes.data != where
    del big  # now 70 and 71 MiB are kept
    d = new(70 * MiB)
    assert d.ctypes.data == where  # the smallest fit
    got = info()
    assert got["blocks"] == 1 and got["nbytes"] == 71 * MiB
    assert got["hits"] == 2 and got["misses"] == 3
    del c, d


@LINUX
def test_the_bound_is_respected(pool):
    cresize.set_result_cache_limit(100 * MiB)
    held = [new(40 * MiB) for _ in range(4)]
    firsts = [a.ctypes.data for a in held]
    del held
    got = info()
    assert got["blocks"] == 2 and got["nbytes"] == 80 * MiB  # the last two freed
    a, b = new(40 * MiB), new(40 * MiB)
    assert len({a.ctypes.data, b.ctypes.data} & set(firsts)) == 2
    assert info()["hits"] == 2
    del a, b
    too_big = new(101 * MiB)
    del too_big  # larger than the bound: freed
    assert info()["nbytes"] == 80 * MiB
    cresize.set_result_cache_limit(50 * MiB)  # lowering it evicts
    assert info()["nbytes"] == 40 * MiB and info()["blocks"] == 1
    cresize.set_result_cache_limit(0)
    assert info()["nbytes"] == 0
    del_me = new(40 * MiB)
    del del_me
    assert info()["blocks"] == 0  # 0 keeps nothing
    cresize.set_result_cache_limit(4 << 30)
    many = [new(32 * MiB) for _ in range(20)]
    del many
    assert info()["blocks"] == 16 and info()["nbytes"] == 16 * 32 * MiB  # the slots


@LINUX
def test_resize_in_place_forgets_the_capacity(pool):
    """ndarray.resize reallocs a lent block: its capacity record is dropped, so what
    comes back to the pool is the realloc'd size."""
    a = new(64 * MiB)
    del a
    b = new(40 * MiB)
    b[:] = 3
    b.resize(48 * MiB, refcheck=False)
    assert (b[: 40 * MiB] == 3).all() and not b[40 * MiB :].any()
    del b
    got = info()
    assert got["nbytes"] in (0, 48 * MiB), got  # kept only if realloc kept it aligned


def statm_rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@LINUX
@pytest.mark.parametrize("madv_free", [True, False])
def test_clear_cache_gives_the_memory_back(pool, madv_free):
    _fast.pool_madv_free(madv_free)
    blocks = [new(64 * MiB) for _ in range(3)]
    for a in blocks:
        a[::4096] = 1  # every page touched
    before = statm_rss()
    del a, blocks
    assert info()["nbytes"] == 192 * MiB
    # MADV_FREE'd pages stay resident until the kernel needs them (another process's
    # memory pressure may take them earlier: compare with the live blocks' RSS)
    kept = statm_rss()
    cresize.clear_cache()
    assert info()["nbytes"] == 0
    assert statm_rss() < before - 150 * MiB, (before, kept, statm_rss())


@LINUX
def test_threads_get_distinct_blocks_and_consistent_counts(pool):
    x, size = large_image(5)
    want = cresize.resize(x, size, axes=(0, 1), mode="bicubic").tobytes()
    cresize.clear_cache()
    cresize.set_result_cache_limit(128 * MiB)
    errors, calls = [], [0] * 6
    barrier = threading.Barrier(6)

    def work(k):
        barrier.wait()
        for i in range(8):
            sizes = (33 + k) * MiB, (36 + 2 * i) * MiB
            arrays = [new(n) for n in sizes]
            calls[k] += 2
            for j, a in enumerate(arrays):
                a[:: 8 * MiB] = 16 * k + 2 * i + j
            for j, a in enumerate(arrays):  # no other thread wrote into them
                if not (a[:: 8 * MiB] == 16 * k + 2 * i + j).all():
                    errors.append((k, i, j))
            del arrays
            if k % 2 == 0 and i % 3 == 0:
                y = cresize.resize(x, size, axes=(0, 1), mode="bicubic", num_threads=1)
                calls[k] += 1
                if y.tobytes() != want:
                    errors.append((k, i, "resize"))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    got = info()
    assert got["hits"] + got["misses"] == sum(calls)
    assert got["hits"] > 0 and got["nbytes"] <= 128 * MiB and got["blocks"] <= 16


@LINUX
def test_the_ab_switch_bypasses_the_pool(pool):
    before = _fast.huge_results(False)
    try:
        a = new(40 * MiB)
        del a
        assert info() == dict(limit=256 * MiB, nbytes=0, blocks=0, hits=0, misses=0)
    finally:
        _fast.huge_results(before)


FORKS = """
import os, sys, threading
import numpy as np
import cresize
from cresize import _fast

stop = False

def churn():  # keeps taking the pool's lock while the main thread forks
    while not stop:
        a = _fast.new_result((40 << 20,), np.dtype(np.uint8))
        a[::4096] = 1
        del a

t = threading.Thread(target=churn)
t.start()
try:
    for _ in range(20):
        pid = os.fork()
        if pid == 0:
            a = _fast.new_result((40 << 20,), np.dtype(np.uint8))
            a[:] = 5
            ok = int(a.sum()) == 5 * (40 << 20)
            del a
            y = cresize.resize(np.ones((300, 400, 3), np.uint16), (2400, 2560),
                               axes=(0, 1), num_threads=1)
            os._exit(0 if ok and int(y.sum()) == 2400 * 2560 * 3 else 3)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
finally:
    stop = True
    t.join()
info = cresize.cache_info()
assert info["result_hits"] > 0, info
print("ok")
"""

SPAWN = """
import multiprocessing, sys
import numpy as np
import cresize

def big(_):
    x = np.ones((300, 400, 3), np.uint16)
    sums = [int(cresize.resize(x, (2400, 2560), axes=(0, 1), num_threads=1).sum())
            for _ in range(3)]
    return sums, cresize.cache_info()["result_hits"]

if __name__ == "__main__":
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        sums, hits = pool.map(big, [0])[0]
    assert sums == [2400 * 2560 * 3] * 3 and hits >= 2, (sums, hits)
    print("ok")
"""


@LINUX
@pytest.mark.parametrize("script", [FORKS, SPAWN], ids=["fork-while-churning", "spawn"])
def test_children(tmp_path, script):
    """Forks while another thread uses the pool (pthread_atfork: a child never inherits
    its lock held), and a spawned child, which keeps its own pool."""
    path = tmp_path / "child.py"
    path.write_text(script)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    code, out, err = run_python([str(path)], env, 120)
    assert code == 0 and out.strip() == "ok", err


TIGHT = """
import resource
import numpy as np
import cresize
from cresize import _fast

def vm_size():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) << 10 for line in f if line.startswith("VmSize"))

blocks = [_fast.new_result((40 << 20,), np.dtype(np.uint8)) for _ in range(5)]
del blocks
assert cresize.cache_info()["result_nbytes"] == 200 << 20
limit = vm_size() + (60 << 20)  # room for 60 MiB more, not for 80
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
a = _fast.new_result((80 << 20,), np.dtype(np.uint8))  # fits once the kept are given back
a[::4096] = 1
assert cresize.cache_info()["result_nbytes"] == 0
del a
# results under 32 MiB are plain NumPy memory, but kept blocks must not make them fail
cresize.clear_cache()
x = np.ones((1000, 1000), np.float32)
cresize.resize(x, (2800, 2800))  # its plan, tables and threads made
blocks = [_fast.new_result((40 << 20,), np.dtype(np.uint8)) for _ in range(3)]
del blocks
assert cresize.cache_info()["result_nbytes"] == 120 << 20
limit = vm_size() + (60 << 20)  # room for 2 such results, not for 3
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
small = [cresize.resize(x, (2800, 2800)) for _ in range(3)]  # 3 x 29.9 MiB: 90 MiB
assert all(float(y[5, 5]) == 1.0 for y in small)
assert cresize.cache_info()["result_nbytes"] == 0
print("ok")
"""


@LINUX
def test_kept_blocks_are_given_back_when_memory_runs_out(tmp_path):
    """A new block that the address-space limit refuses (ulimit -v) is asked for again
    once the kept blocks are freed: keeping them never makes a result fail, large (the
    handler's own retry) or under 32 MiB (``new_result``'s)."""
    path = tmp_path / "tight.py"
    path.write_text(TIGHT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    code, out, err = run_python([str(path)], env, 120)
    assert code == 0 and out.strip() == "ok", err
