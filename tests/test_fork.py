"""A child forked after its parent ran an OpenMP resize must not hang.

libgomp is not fork-safe: a forked child's first parallel loop waits forever for
the parent's pool threads, which were not forked. cresize's rule
(``cresize._threads.resolve``): in any forked child, ``num_threads=None`` means
1 thread, whoever ran OpenMP in the parent (tests/test_limits.py forks after
PyTorch ran); an explicit ``num_threads`` is honoured.

Each case runs in a fresh interpreter, in its own process group, under a
timeout, so a hang fails the test instead of stalling the suite.
"""

import os
import sys

import pytest

from helpers.proc import run_python

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork"), reason="fork() exists on POSIX only; Windows always spawns"
)

TIMEOUT = 60

# The parent runs forward and backward with a team of 2 (OMP_NUM_THREADS=2 below
# makes 2 the default too, so a child that kept the default would hang). The
# arrays are big enough for the kernels to use both threads, and on Linux the
# parent checks that its OpenMP threads really exist.
PARENT = """
import multiprocessing, os, sys
import numpy as np
import cresize
from cresize import _api, _kernels

def os_threads():
    return len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None

x = np.random.default_rng(0).random((8, 128, 128))
before = os_threads()
y = cresize.resize(x, (192, 160), mode="bicubic", num_threads=2)
g = cresize.resize_backward(y, x.shape, mode="bicubic", num_threads=2)
if cresize.openmp_enabled() and before is not None:
    assert os_threads() > before, "the parent never started an OpenMP team: nothing to test"

def child_ok():  # computes first: without the rule this is where a child hangs
    return (np.array_equal(cresize.resize(x, (192, 160), mode="bicubic"), y)
            and np.array_equal(cresize.resize_backward(y, x.shape, mode="bicubic"), g)
            and _api._threads(None) == 1 and _api._threads(-1) == 1)
"""


def run(script):
    """Run PARENT + script in a new interpreter; fail on a hang or a nonzero exit."""
    # the quick pair off: the parent's 2-thread calls take an OpenMP team (the trap)
    env = dict(os.environ, OMP_NUM_THREADS="2", CRESIZE_QUICK_THREAD="off")
    hang = " (a forked child stuck in an OpenMP loop)"
    code, out, err = run_python(["-c", script], env, TIMEOUT, hang)
    assert code == 0, err
    assert out.split()[-1:] == ["ok"], out + err


def test_os_fork_child_after_openmp():
    run(
        PARENT
        + """
pid = os.fork()
if pid == 0:
    os._exit(0 if child_ok() else 1)
assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0, "the child computed wrong results"
# The parent keeps its own default.
assert _api._threads(None) == _kernels.max_threads() == (2 if cresize.openmp_enabled() else 1)
print("ok")
"""
    )


def test_multiprocessing_fork_pool_after_openmp():
    run(
        PARENT
        + """
with multiprocessing.get_context("fork").Pool(2) as pool:
    results = [pool.apply_async(child_ok) for _ in range(4)]
    assert all(r.get(timeout=50) for r in results), "a worker computed wrong results"
print("ok")
"""
    )


def test_child_forked_before_cresize_ran_defaults_to_one_thread():
    # cresize cannot know whether something else ran an OpenMP team in the parent,
    # so even here None means 1. Here nothing ran one, so an explicit count is safe.
    run("""
import os
import numpy as np
import cresize
from cresize import _api, _kernels, _threads
pid = os.fork()
if pid == 0:
    x = np.random.default_rng(0).random((4, 128, 128))
    ok = (_api._threads(None) == 1 and _threads.in_forked_child()
          and _api._threads(2) == 2
          and np.array_equal(cresize.resize(x, (96, 200), num_threads=2),
                             cresize.resize(x, (96, 200), num_threads=1)))
    os._exit(0 if ok else 1)
assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
assert not _threads.in_forked_child() and _api._threads(None) == _kernels.max_threads()
print("ok")
""")


def test_bare_import_registers_the_fork_rule():
    # `import cresize` loads its public names lazily, but the fork handler is in place
    # from the import on: a child forked before any public name was used counts.
    code = (
        "import os, sys, cresize\n"
        "assert 'cresize._threads' not in sys.modules\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    from cresize import _threads\n"
        "    os._exit(0 if _threads.in_forked_child() and _threads.default() == 1 else 3)\n"
        "from cresize import _threads\n"
        "assert not _threads.in_forked_child()\n"
        "print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    returncode, out, err = run_python(["-c", code], env, TIMEOUT)
    assert returncode == 0 and out.strip() == "0", out + err


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_every_path_reads_the_default_at_each_call():
    # num_threads=None is resolved in C on the repeated-call and plan-call paths
    # (_fast.default_threads): with the forked flag set, no path starts a team (the
    # process's thread count stays); cleared, the next call does (OMP_NUM_THREADS=2).
    run("""
import os
import numpy as np
import cresize
from cresize import _fork, _threads

def os_threads():
    return len(os.listdir("/proc/self/task"))

x = np.random.default_rng(0).random((8, 256, 256)).astype(np.float32)
p = cresize.plan(x.shape, (192, 160))
default = cresize.plan(x.shape, (192, 160), num_threads=-1)
_fork.forked = True
before = os_threads()
for _ in range(3):  # the checked path, then the remembered plan's
    y = cresize.resize(x, (192, 160))
    g = cresize.resize_backward(y, x.shape)
    p(x), p.backward(y), default(x)
assert _threads.default() == 1 and os_threads() == before, "a team started in a 'child'"
_fork.forked = False
if cresize.openmp_enabled():
    assert _threads.default() == 2
    cresize.resize(x, (192, 160))
    assert os_threads() > before, "the default's 2 threads never ran"
print("ok")
""")
