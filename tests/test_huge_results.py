"""Large results start 2 MiB-aligned (Linux), so every 2 MiB of them can be a huge page.

``cresize._fast.new_result`` allocates every result (returned or a step's) of at
least 32 MiB through cresize's NumPy data-memory handler (``_hugealloc.h``,
posix_memalign; below 32 MiB glibc reuses freed memory without page faults,
which is better); the array still owns its data like ``np.empty``'s, and NumPy's
own allocations (``np.zeros``, copies) keep NumPy's handler.
"""

import os
import pickle
import sys
import threading

import numpy as np
import pytest

import cresize
from cresize import _fast
from helpers.large import LARGE_CASES, large_inputs
from helpers.proc import run_python

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:  # NumPy 1.x
    from numpy.core.multiarray import get_handler_name

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the aligned handler is Linux only"
)

ALIGN = 2 << 20
OURS = "cresize_huge_pages"


def large_image():
    x = np.random.default_rng(0).integers(0, 65536, (300, 400, 3)).astype(np.uint16)
    return x, (2400, 2560)  # 37 MB of uint16


def aligned(a):
    return a.ctypes.data % ALIGN == 0


@pytest.fixture
def huge_off():
    before = _fast.huge_results(False)
    try:
        yield
    finally:
        _fast.huge_results(before)


def test_a_large_result_is_aligned_and_owns_its_data():
    x, size = large_image()
    y = cresize.resize(x, size, axes=(0, 1), mode="bicubic")
    assert y.nbytes >= 32 << 20
    assert aligned(y), hex(y.ctypes.data)
    assert get_handler_name(y) == OURS
    assert y.flags.owndata and y.base is None and y.flags.writeable
    assert get_handler_name() == "default_allocator"  # restored right after


def test_without_the_handler_results_are_not_aligned(huge_off):
    """The switch the benchmarks use: off, a result is NumPy's (malloc: 16 bytes past
    a page), which the alignment test above would reject."""
    x, size = large_image()
    y = cresize.resize(x, size, axes=(0, 1), mode="bicubic")
    assert get_handler_name(y) == "default_allocator"
    assert not aligned(y)


@pytest.mark.parametrize("dtype, mode, kw", LARGE_CASES)
def test_the_bits_do_not_depend_on_the_handler(dtype, mode, kw):
    [x], size = large_inputs(dtype, kw, 1, 1)
    on = cresize.resize(x, size, axes=(0, 1), mode=mode, **kw)
    before = _fast.huge_results(False)
    try:
        off = cresize.resize(x, size, axes=(0, 1), mode=mode, **kw)
    finally:
        _fast.huge_results(before)
    assert on.nbytes >= 32 << 20
    assert aligned(on) and get_handler_name(on) == OURS
    assert on.tobytes() == off.tobytes()


def test_plans_intermediates_and_regions_go_through_it():
    x = np.random.default_rng(2).random((1200, 1200, 3))  # 35 MB, 54 MB of float64
    p = cresize.plan(x.shape, (1500, 1500), mode="bicubic", axes=(0, 1), dtype=x.dtype)
    assert aligned(p(x)) and get_handler_name(p(x)) == OURS
    g = np.ones(p.output_shape)
    assert aligned(p.backward(g))
    region = (slice(0, 1000), slice(0, 1500), slice(0, 3))
    block = p.run_region(x[p.input_region(region)], region)
    assert aligned(block)
    f32 = cresize.resize(x.astype(np.float32), (2000, 2000), axes=(0, 1), mode="lanczos3")
    assert aligned(f32) and f32.dtype == np.float32


def test_a_small_result_and_numpys_arrays_are_untouched():
    y = cresize.resize(np.ones((10, 10)), (20, 20))
    assert get_handler_name(y) == "default_allocator"
    x, size = large_image()
    cresize.resize(x, size, axes=(0, 1), mode="bicubic")
    z = np.zeros(8 << 20, np.uint8)
    assert get_handler_name(z) == "default_allocator" and not z.any()
    assert get_handler_name(np.empty(8 << 20, np.uint8)) == "default_allocator"


def test_resize_in_place_pickle_copy():
    x, size = large_image()
    y = cresize.resize(x, size, axes=(0, 1), mode="bicubic")
    want = y.copy()
    y.resize((y.shape[0] * 2,) + y.shape[1:], refcheck=False)  # realloc, zero-filled tail
    assert y.flags.owndata
    np.testing.assert_array_equal(y[: want.shape[0]], want)
    assert not y[want.shape[0] :].any()
    back = pickle.loads(pickle.dumps(want))
    np.testing.assert_array_equal(back, want)
    y.resize((5, 3), refcheck=False)  # shrink
    np.testing.assert_array_equal(y.reshape(-1), want.reshape(-1)[:15])


def statm_rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_freed_results_give_their_memory_back():
    shape, dtype = (4096, 16384), np.dtype(np.uint8)  # 64 MiB
    for _ in range(3):
        _fast.new_result(shape, dtype)[::4096] = 1
    base = statm_rss()
    for i in range(300):
        a = _fast.new_result(shape, dtype)
        assert aligned(a)
        a.reshape(-1)[::4096] = i % 256  # every page touched
        del a
    assert statm_rss() - base < 128 << 20, (base, statm_rss())


def test_tracemalloc_sees_the_result():
    import tracemalloc

    x, size = large_image()
    cresize.resize(x, size, axes=(0, 1), mode="bicubic")  # tables cached
    tracemalloc.start()
    try:
        y = cresize.resize(x, size, axes=(0, 1), mode="bicubic")
        current, peak = tracemalloc.get_traced_memory()
        assert current >= y.nbytes
        del y
        assert tracemalloc.get_traced_memory()[0] < current - (4 << 20)
    finally:
        tracemalloc.stop()
    assert peak >= 32 << 20


def test_threads_each_restore_their_handler():
    x, size = large_image()
    want = cresize.resize(x, size, axes=(0, 1), mode="bicubic")
    got, names = [], []

    def work():
        for _ in range(3):
            y = cresize.resize(x, size, axes=(0, 1), mode="bicubic", num_threads=1)
            got.append((aligned(y), y.tobytes() == want.tobytes()))
        names.append(get_handler_name())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [(True, True)] * 12
    assert names == ["default_allocator"] * 4
    assert get_handler_name() == "default_allocator"


def test_a_failed_allocation_restores_the_handler():
    with pytest.raises(MemoryError):
        _fast.new_result((1 << 50,), np.dtype(np.uint8))
    assert get_handler_name() == "default_allocator"
    assert get_handler_name(_fast.new_result((40 << 20,), np.dtype(np.uint8))) == OURS
    assert get_handler_name(_fast.new_result((0, 1 << 40), np.dtype(np.uint8))) != OURS
    assert get_handler_name(_fast.new_result((1 << 40, 0), np.dtype(np.uint8))) != OURS


CHILD = """
import multiprocessing, sys
import numpy as np
import cresize

def big(_):
    y = cresize.resize(np.ones((300, 400, 3), np.uint16), (2400, 2560), axes=(0, 1),
                       num_threads=1)
    return y.ctypes.data % (2 << 20), int(y.sum()), y

if __name__ == "__main__":
    with multiprocessing.get_context(sys.argv[1]).Pool(1) as pool:
        rest, total, y = pool.map(big, [0])[0]
    assert rest == 0 and total == 2400 * 2560 * 3 and y.shape == (2400, 2560, 3), (rest, total)
    print("ok")
"""


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_fork_and_spawn_children(tmp_path, method):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    code, out, err = run_python([str(script), method], env, 120)
    assert code == 0 and out.strip() == "ok", err
