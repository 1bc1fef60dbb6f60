"""The quick pair (``_quick.h``): calls of at most two threads run on the calling thread
and one helper thread that claims chunks of output rows, instead of an OpenMP team.

Which thread computes a row never changes its bits: each case compares 2-thread calls
(the pair on) with 1-thread calls, many times over, so that the helper, spinning
between calls, takes its share in some of them (``quick_counts``: ``helped``).
"""

import os
import sys
import threading
import time

import numpy as np
import pytest

import cresize
from cresize import _kernels, _plan
from helpers.proc import run_python

LINUX = sys.platform.startswith("linux")
#: Seconds a run of calls may take to find the helper taking chunks: a helper whose CPU
#: another program takes is left asleep for up to 1.28 s at a time (_quick.h).
HELPED_WITHIN = 10

#: Tests that need the helper to take chunks: a process that may run on one CPU only runs
#: its calls alone (``_quick.h``: the helper could only share the caller's CPU).
TWO_CPUS = pytest.mark.skipif(
    not LINUX or len(os.sched_getaffinity(0)) < 2,
    reason="the helper takes chunks on Linux, in a process that may run on two CPUs",
)

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
    ((1, 3, 166, 166), (232, 232), "bicubic", None, np.float32),  # a ring, bottom up
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


@TWO_CPUS
@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
def test_the_helper_takes_chunks_in_a_run_of_calls(quick_on):
    """A tight loop finds the helper awake: some calls are shared (on a machine whose
    other CPUs are all taken, the helper backs off; the loop keeps going for a while)."""
    x = np.random.default_rng(0).random((224, 224, 3), dtype=np.float32)
    p = cresize.plan(x.shape, (112, 112), axes=(0, 1), num_threads=2)
    expected = cresize.resize(x, (112, 112), axes=(0, 1), num_threads=1)
    helped, end = _kernels.quick_counts()[1], time.monotonic() + HELPED_WITHIN
    while time.monotonic() < end:  # a helper that stalled a call is left asleep up to 1.28 s
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
import os, sys, time
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
    # and that helper takes chunks (a child left with the parent's started pair and no
    # helper thread ran every call alone, counted all the same)
    helped, end = _kernels.quick_counts()[1], time.monotonic() + 10
    while time.monotonic() < end and _kernels.quick_counts()[1] == helped:
        ok = ok and np.array_equal(cresize.resize(x, (112, 112), axes=(0, 1), num_threads=2), want)
    os._exit(0 if ok and _kernels.quick_counts()[1] > helped else 3)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status))
"""


@TWO_CPUS
@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() exists on POSIX only")
def test_a_forked_child_gets_a_helper_of_its_own():
    code, out, err = run_python(["-c", FORK_CHILD], dict(os.environ), 120, " (the forked child)")
    assert code == 0, err
    assert out.split()[-1] == "0"


def test_make_step_keeps_quick():
    from cresize._tables import taps

    args = taps(8, 4, "bilinear").row_args(np.float32)
    assert _kernels.make_step(_kernels.Kind.LINES, 3, 1, 8, x=args).quick is False
    assert _kernels.make_step(_kernels.Kind.LINES, 3, 1, 8, x=args, quick=True).quick is True


@pytest.mark.parametrize(
    ("shape", "size", "want"),
    [
        ((1, 1, 16, 16), (24, 24), False),  # below QUICK_MIN_WORK
        ((224, 224, 3), (112, 112), True),
        ((1024, 1024, 3), (512, 512), True),
    ],
)
def test_a_plan_step_may_take_the_pair_by_its_work(shape, size, want):
    axes = (0, 1) if len(shape) == 3 else None
    for step in cresize.plan(shape, size, axes=axes)._forward.compiled(np.dtype(np.float32)):
        work = step[5]
        assert step[4].quick is want is (work >= _plan.QUICK_MIN_WORK)


#: Each loop the pair dispatches (``_kernels._quick_rows``), float32 and float64 where
#: it takes floats, 8/16-bit sources; ``mid-plane``: the 24 chunks of the call's jobs
#: (planes x output rows) split planes.
PATHS = [
    ((224, 224, 3), (112, 112), "bilinear", (0, 1), "float32"),  # BLOCKS
    ((1, 3, 226, 226), (113, 113), "area", None, "float64"),  # BLOCKS, mid-plane
    ((224, 224, 3), (150, 112), "bilinear", (0, 1), "float32"),  # PAIRS, floats
    ((2, 3, 100, 102), (67, 51), "bilinear", None, "float64"),  # PAIRS, mid-plane
    ((224, 224, 3), (112, 112), "bilinear", (0, 1), "uint8"),  # PAIRS, 8-bit
    ((150, 226, 4), (75, 113), "bilinear", (0, 1), "int16"),  # PAIRS, 16-bit
    ((224, 224, 3), (150, 170), "bicubic", (0, 1), "float32"),  # ROWS (a ring)
    ((2, 3, 100, 100), (67, 150), "bicubic", None, "float64"),  # ROWS, mid-plane
    ((200, 190, 3), (230, 171), "lanczos3", (0, 1), "uint16"),  # ROWS, 16-bit
    ((3, 160, 130), (77, 260), "bicubic", None, "int8"),  # ROWS, 8-bit, mid-plane
    ((224, 224, 3), (112, 112), "nearest", (0, 1), "float32"),  # ROWS, direct
    ((300, 200, 3), (300, 150), "bicubic", (0, 1), "float64"),  # rows of pixels
    ((400, 1000), (300,), "bicubic", (1,), "float32"),  # LINES
    ((400, 1000), (300,), "bicubic", (1,), "float64"),  # LINES
    ((5, 40, 300), (61,), "bicubic", (1,), "float32"),  # PLANES, mid-plane
    ((5, 40, 300), (61,), "bicubic", (1,), "float64"),  # PLANES, mid-plane
    # two steps: 16-bit -> float64 PAIRS (mid-plane), float64 -> 16-bit ROWS
    ((64, 64, 64), (32, 32, 32), "bilinear", None, "uint16"),
    ((40, 40, 40), (80, 80, 80), "bilinear", None, "uint8"),  # 8-bit <-> float32 ROWS
]

GUARD_PATHS = """
import time

PATHS = %r


def array(shape, dtype, rng):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dtype)


def helped_run(call, want):
    # call() until the helper has taken chunks of one (for at most 10 s: a helper whose
    # CPU another program takes is left asleep for up to 1.28 s at a time)
    helped, end = _kernels.quick_counts()[1], time.monotonic() + 10
    while time.monotonic() < end:
        assert call().tobytes() == want.tobytes()
        if _kernels.quick_counts()[1] > helped:
            return 1
    return 0


_kernels.set_quick_thread(True)
rng = np.random.default_rng(5)
runs = helped = 0
for shape, size, mode, axes, dtype in PATHS:
    p = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype)
    one = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype, num_threads=1)
    x = array(shape, dtype, rng)
    g = array(p.output_shape, dtype, rng) if np.dtype(dtype).kind == "f" else None
    for at_end in (False, True):
        gx, out = guarded(shape, dtype, at_end), guarded(p.output_shape, dtype, at_end)
        gx[...] = x
        runs += 1
        helped += helped_run(lambda: p(gx, out=out, num_threads=2), one(x))
        if g is not None:  # the adjoint
            gg, back = guarded(g.shape, dtype, at_end), guarded(shape, dtype, at_end)
            gg[...] = g
            runs += 1
            helped += helped_run(
                lambda: p.backward(gg, out=back, num_threads=2), one.backward(g)
            )
    kept.clear()
print(runs, helped)
"""


@TWO_CPUS
@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
def test_the_helper_keeps_to_its_arrays_on_every_path(tmp_path):
    """Each loop the pair runs, 2-thread calls (the helper taking chunks of some of
    them) on arrays that end or begin at a page the process may not touch: a read or
    write past either array is a segmentation fault in the child; the bits are those of
    one thread."""
    from helpers.guard import run_guarded

    runs, helped = map(int, run_guarded(tmp_path, GUARD_PATHS % (PATHS,)).split())
    floats = sum(dtype.startswith("float") for *_, dtype in PATHS)
    assert runs == 2 * (len(PATHS) + floats)
    assert helped == runs  # the helper took chunks on every path


def test_the_paths_are_what_they_say():
    """PATHS' comments: the step kinds and blocks that pick ``_quick_rows``' loops."""
    kinds = []
    for shape, size, mode, axes, dtype in PATHS:
        p = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype, num_threads=2)
        steps = p._forward.compiled(np.dtype(dtype))
        assert all(s[4].quick for s in steps)
        kinds.append(tuple((s[0], s[4].blocks) for s in steps))
    fused, lines, planes = _kernels.Kind.FUSED, _kernels.Kind.LINES, _kernels.Kind.PLANES
    assert (
        kinds[:6] == [((fused, (2, 2)),)] * 2 + [((fused, (0, 2)),)] * 2 + [((fused, (2, 2)),)] * 2
    )
    assert kinds[6:12] == [((fused, (0, 0)),)] * 6
    assert kinds[12:16] == [((lines, (0, 0)),)] * 2 + [((planes, (0, 0)),)] * 2
    assert kinds[16:] == [((fused, (2, 2)), (fused, (0, 0))), ((fused, (0, 0)),) * 2]


@TWO_CPUS
@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
def test_a_stress_of_python_threads_and_shapes(quick_on):
    """Four Python threads call plans of every path at once, forward and backward, some
    calls in a row (the helper spinning), some after a pause (asleep, woken or left so):
    every result has the bits of one thread. After it, a run of calls still finds the
    helper taking chunks (a wake lost while the helper went to sleep left it asleep for
    good: ``sleeping`` 0, so no call woke it again)."""
    import random
    import time

    rng = np.random.default_rng(9)
    jobs = []
    for shape, size, mode, axes, dtype in PATHS:
        p = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype, num_threads=2)
        one = cresize.plan(shape, size, mode=mode, axes=axes, dtype=dtype, num_threads=1)
        x = _array(shape, dtype, rng)
        jobs.append((p, x, one(x).tobytes(), False))
        if np.dtype(dtype).kind == "f":
            g = _array(p.output_shape, dtype, rng)
            jobs.append((p, g, one.backward(g).tobytes(), True))
    wrong = []
    stop = time.monotonic() + 3.0

    def work(k):
        r = random.Random(k)
        while time.monotonic() < stop:
            p, x, want, back = jobs[r.randrange(len(jobs))]
            for _ in range(r.choice((1, 1, 5, 20))):
                got = p.backward(x) if back else p(x)
                if got.tobytes() != want:
                    wrong.append((k, p.input_shape, back))
            pause = r.random()
            if pause < 0.3:
                time.sleep(pause / 1000)  # 0-0.3 ms: the helper spins or goes to sleep

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    calls = _kernels.quick_counts()[0]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    assert _kernels.quick_counts()[0] > calls + 100
    p, x, want, _ = jobs[0]
    helped, end = _kernels.quick_counts()[1], time.monotonic() + HELPED_WITHIN
    while time.monotonic() < end:
        assert p(x).tobytes() == want
        if _kernels.quick_counts()[1] > helped + 10:
            break
    assert _kernels.quick_counts()[1] > helped + 10


SIGNAL_CHILD = """
import os, signal, threading, time
import numpy as np
import cresize
from cresize import _kernels
# Python leaves SIGINT ignored in a process that started with it ignored: a shell's
# background job (`pytest ... &`, `nohup pytest ... &` in a script) and its children.
# The loop below then ran on, never interrupted, until the test killed it (120 s).
signal.signal(signal.SIGINT, signal.default_int_handler)
x = np.random.default_rng(0).random((2000, 2000, 3), dtype=np.float32)
p = cresize.plan(x.shape, (1500, 1700), mode="bicubic", axes=(0, 1), num_threads=2)
assert p._forward.compiled(np.dtype(np.float32))[0][4].quick  # long calls on the pair
want = p(x, num_threads=1)
calls, interrupted, end = 0, 0, time.monotonic() + 60
try:
    while time.monotonic() < end:  # (bounded: a signal that never comes fails, not hangs)
        p(x)
        calls += 1
        if calls == 1:  # after a first whole call (however loaded the machine): the
            # signal then lands in one of the calls that follow, or between two
            threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
except KeyboardInterrupt:
    interrupted = 1
small = np.random.default_rng(1).random((224, 224, 3), dtype=np.float32)
q = cresize.plan(small.shape, (112, 112), axes=(0, 1), num_threads=2)
helped, ok, end = _kernels.quick_counts()[1], True, time.monotonic() + 10
while time.monotonic() < end and _kernels.quick_counts()[1] == helped:
    ok = ok and q(small).tobytes() == q(small, num_threads=1).tobytes()
# (a call that waited long for the helper leaves it asleep a while: the loop outlasts that)
ok = ok and np.array_equal(p(x), want)
print(interrupted, calls, int(ok), _kernels.quick_counts()[1] - helped)
"""

#: Starts ``sys.argv[1]`` (a program) with SIGINT ignored, as a shell starts a background
#: job: the disposition survives the exec, and Python then installs no handler of its own.
IGNORING_SIGINT = """
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
os.execv(sys.executable, [sys.executable, "-c", sys.argv[1]])
"""


@TWO_CPUS
@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
@pytest.mark.parametrize("started", ["plainly", "ignoring SIGINT"])
def test_an_interrupt_during_long_calls(started):
    """SIGINT while long calls run on the pair (the helper blocks every signal): the
    interpreter raises KeyboardInterrupt after the call; the pair then works on. Also
    where the test runs with SIGINT ignored (pytest started in the background by a
    script), which the child inherits: it hung there, killed after 120 s."""
    args = ["-c", SIGNAL_CHILD] if started == "plainly" else ["-c", IGNORING_SIGINT, SIGNAL_CHILD]
    code, out, err = run_python(args, dict(os.environ), 120, " (SIGINT)")
    assert code == 0, err
    interrupted, calls, ok, helped = map(int, out.split())
    assert interrupted == 1, f"no KeyboardInterrupt in 60 s of calls ({calls} calls)"
    assert ok == 1 and calls >= 1 and helped > 0


STORM_CHILD = """
import os, random, signal, threading, time
import numpy as np
import cresize
from cresize import _kernels
armed = False


def interrupt(signum, frame):  # Ctrl-C's KeyboardInterrupt, inside the `try` below only
    global armed
    if armed:
        armed = False  # (none while one is handled: it would escape the `except`)
        raise KeyboardInterrupt


signal.signal(signal.SIGINT, interrupt)
rng = random.Random(0)
x = np.random.default_rng(0).random((600, 700, 3), dtype=np.float32)
small = np.random.default_rng(1).random((224, 224, 3), dtype=np.float32)
calls = []  # (call, its bits on one thread)
for a, size in [(x, (450, 520)), (small, (112, 112))]:
    p = cresize.plan(a.shape, size, mode="bicubic", axes=(0, 1))
    g = np.random.default_rng(2).random(p.output_shape, dtype=np.float32)
    for n in (2, 3):  # the pair, an OpenMP team
        calls.append((lambda a=a, p=p, n=n: p(a, num_threads=n), p(a, num_threads=1).tobytes()))
        calls.append((lambda g=g, p=p, n=n: p.backward(g, num_threads=n),
                      p.backward(g, num_threads=1).tobytes()))
    calls.append((lambda a=a, size=size: cresize.resize(a, size, mode="bicubic", axes=(0, 1),
                                                       num_threads=2), p(a, num_threads=1).tobytes()))
wrong, stop, go = [], threading.Event(), threading.Event()


def other():  # another Python thread calling meanwhile
    r = random.Random(1)
    while not stop.is_set():
        f, want = r.choice(calls)
        wrong.extend([1] if f().tobytes() != want else [])


def storm():  # SIGINTs at random times, 0-20 ms apart
    go.wait()
    while not stop.is_set():
        time.sleep(rng.random() * 0.02)
        os.kill(os.getpid(), signal.SIGINT)


threads = [threading.Thread(target=other), threading.Thread(target=storm)]
for t in threads:
    t.start()
interrupts, end = 0, time.monotonic() + 3
go.set()
while time.monotonic() < end:
    try:
        armed = True
        while time.monotonic() < end:
            if rng.random() < 0.1:  # a new plan: its first use interrupted too
                cresize.resize(small, (rng.randrange(60, 200), 77), axes=(0, 1), num_threads=2)
            f, want = rng.choice(calls)
            wrong.extend([1] if f().tobytes() != want else [])
        armed = False
    except KeyboardInterrupt:
        interrupts += 1
stop.set()
for t in threads:
    t.join()
for f, want in calls:
    wrong.extend([1] if f().tobytes() != want else [])
q = cresize.plan(small.shape, (112, 112), axes=(0, 1), num_threads=2)
helped, end = _kernels.quick_counts()[1], time.monotonic() + 10
while time.monotonic() < end and _kernels.quick_counts()[1] == helped:
    q(small)
print(interrupts, len(wrong), _kernels.quick_counts()[1] - helped)
"""


@TWO_CPUS
@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
def test_a_storm_of_interrupts():
    """SIGINTs at random times for 3 s into calls on the pair and on OpenMP teams, forward
    and backward, plans and ``resize`` (new plans among them), while another Python
    thread calls too: no hang, every call right after, and the pair still helps."""
    code, out, err = run_python(["-c", STORM_CHILD], dict(os.environ), 120, " (SIGINTs)")
    assert code == 0, err
    interrupts, wrong, helped = map(int, out.split())
    assert interrupts > 0 and wrong == 0 and helped > 0


EXIT_CHILD = """
import sys, threading
import numpy as np
import cresize
x = np.random.default_rng(0).random((224, 224, 3), dtype=np.float32)
p = cresize.plan(x.shape, (112, 112), axes=(0, 1), num_threads=2)


def forever():
    while True:
        p(x)


if sys.argv[1] == "thread":  # exit while another thread is inside quick calls
    threading.Thread(target=forever, daemon=True).start()
for _ in range(300):  # the helper spins as the interpreter exits
    p(x)
print("done", flush=True)
if sys.argv[1] == "os_exit":
    import os

    os._exit(0)
"""


@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
@pytest.mark.parametrize("how", ["return", "thread", "os_exit"])
def test_the_interpreter_exits_while_the_helper_spins(how):
    for _ in range(3):
        code, out, err = run_python(["-c", EXIT_CHILD, how], dict(os.environ), 60, " (exit)")
        assert (code, out.split(), err) == (0, ["done"], "")


FORK_BUSY_CHILD = """
import os, threading, warnings
import numpy as np
import cresize
from cresize import _kernels
warnings.simplefilter("ignore", DeprecationWarning)  # fork() of a process with threads
x = np.random.default_rng(0).random((224, 224, 3), dtype=np.float32)
p = cresize.plan(x.shape, (150, 170), mode="bicubic", axes=(0, 1), num_threads=2)
want = p(x, num_threads=1).tobytes()
big = np.random.default_rng(1).random((1000, 1000, 3), dtype=np.float32)
q = cresize.plan(big.shape, (700, 800), mode="bicubic", axes=(0, 1), num_threads=2)
want_big = q(big, num_threads=1).tobytes()
stop = threading.Event()
wrong = []


def calls():  # another Python thread, nearly always inside a (long) quick call
    while not stop.is_set():
        if q(big).tobytes() != want_big:
            wrong.append(1)


t = threading.Thread(target=calls)
t.start()
codes = []
for _ in range(10):
    pid = os.fork()
    if pid == 0:  # a child whose parent held the pair: `busy` must not be inherited
        before = _kernels.quick_counts()[0]
        ok = all(p(x).tobytes() == want for _ in range(50))
        ok = ok and _kernels.quick_counts()[0] >= before + 50  # the pair ran them all
        os._exit(0 if ok else 3)
    codes.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
stop.set()
t.join()
print(sum(c != 0 for c in codes), len(wrong))
"""


@pytest.mark.skipif(not hasattr(os, "fork") or not LINUX, reason="fork(), the helper: Linux")
def test_a_fork_while_another_thread_is_in_a_quick_call():
    code, out, err = run_python(
        ["-c", FORK_BUSY_CHILD], dict(os.environ), 120, " (a forked child, or its parent)"
    )
    assert code == 0, err
    assert out.split() == ["0", "0"]


#: A program of _quick.h alone: calls of 24 chunks of 10 µs each, a pause after each (the
#: helper goes to sleep), every step of the helper's way to sleep made 300 µs long
#: (``CRESIZE_QUICK_TEST_WINDOW``) so that calls start and end between them; it prints
#: how many calls the helper took chunks of in the first and the second half.
WAKE_PROGRAM = r"""
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
typedef ssize_t Py_ssize_t;
#define CRESIZE_QUICK_TEST_WINDOW() usleep(300)
#include "_quick.h"

static void spin(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void chunk(void *call, int tid, Py_ssize_t j0, Py_ssize_t j1, int first)
{
    (void)call, (void)tid, (void)first;
    spin(10 * (j1 - j0));
}

int main(void)
{
    long half = 0;
    for (int i = 0; i < 1000; i++) {
        if (i == 500)
            half = cresize_quick_helped;
        cresize_quick_run(chunk, NULL, 24, 1);
        usleep(i % 2 ? 200 : 900);
    }
    printf("%ld %ld\n", half, cresize_quick_helped - half);
    return 0;
}
"""


def _run_program(tmp_path, name, text, *args):
    """Compile ``text`` (a C program that includes _quick.h) and run it with ``args``: its
    output."""
    import shutil
    import subprocess
    import sysconfig

    cc = shutil.which((sysconfig.get_config_var("CC") or "cc").split()[0]) or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    include = os.path.dirname(cresize.__file__)
    program = tmp_path / name
    subprocess.run(
        [cc, "-O2", "-pthread", "-I", include, str(source), "-o", str(program)], check=True
    )
    return subprocess.run([program, *args], capture_output=True, text=True, check=True, timeout=120)


@TWO_CPUS
@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
def test_no_wake_is_lost_as_the_helper_goes_to_sleep(tmp_path):
    """A call that takes the helper's ``sleeping`` (and adds to ``wake``) just before the
    helper reads ``wake``, and ends before it reads ``state``: read in that order, the
    helper slept with ``sleeping`` 0, and no later call woke it (it took chunks of no call
    in the second half). ``wake`` is read first now."""
    first, second = map(int, _run_program(tmp_path, "wake", WAKE_PROGRAM).stdout.split())
    assert first > 0 and second > 0


#: A program of _quick.h alone: a run of calls of 8 chunks of 5 µs until the helper takes
#: a chunk, whose next chunk then takes 3 ms (the helper losing its CPU in the middle of
#: it), so that the call stalls and sets ``hold_until``; then calls back to back until
#: that time (again, until 20 calls ended within a hold). It prints the stalls, the calls
#: that ended within a hold, and how many of those the helper took chunks of.
HOLD_PROGRAM = r"""
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
typedef ssize_t Py_ssize_t;
#include "_quick.h"

static volatile int slow = 0;

static void chunk(void *call, int tid, Py_ssize_t j0, Py_ssize_t j1, int first)
{
    long long end = cresize_team_now() + (tid == 1 && slow ? 3000000LL : 5000LL * (j1 - j0));
    (void)call, (void)first;
    while (cresize_team_now() < end)
        ;
}

int main(void)
{
    long long end = cresize_team_now() + 60000000000LL;
    long calls = 0, helped = 0;
    while (calls < 20 && cresize_team_now() < end) { /* a loaded machine: again */
        long holds = cresize_quick_holds;
        long long until;
        while (cresize_quick_holds == holds && cresize_team_now() < end) {
            long before = cresize_quick_helped;
            cresize_quick_run(chunk, NULL, 8, 1);
            slow = cresize_quick_helped > before; /* it is awake: its next chunk stalls */
        }
        slow = 0;
        until = cresize_quick.hold_until;
        for (;;) {
            long before = cresize_quick_helped;
            cresize_quick_run(chunk, NULL, 8, 1);
            if (cresize_team_now() >= until)
                break;
            calls++;
            helped += cresize_quick_helped > before;
        }
    }
    printf("%ld %ld %ld\n", cresize_quick_holds, calls, helped);
    return 0;
}
"""


@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
def test_calls_run_alone_while_the_helper_is_held(tmp_path):
    """A call that stalled on the helper leaves it asleep for a time, and the calls that
    come meanwhile run alone. They published their chunks before: a helper still awake
    took them (all of a run of calls back to back in most runs here; none in some,
    its CPU taken by other work) and never reached its check of the hold; now they
    publish nothing, and it sleeps."""
    holds, calls, helped = map(int, _run_program(tmp_path, "hold", HOLD_PROGRAM).stdout.split())
    assert holds >= 1 and calls >= 20 and helped == 0


#: A program of _quick.h alone, each step of the helper's way to sleep made 300 µs long:
#: a short call wakes the helper for nothing (it asks, in ``hold``, that the next call to
#: find it asleep leave it so: 1 call, then 2); a 1.2 ms call then comes in the first
#: step (``sleeping`` not yet set: the call leaves ``hold`` alone) or, once ``hold`` is 2,
#: in the second (``sleeping`` set: the call takes ``hold`` and skips 1 of the 2 calls, yet
#: the helper sees its chunks and takes some); after a pause (the helper asleep, its last
#: wake not for nothing) a short call should wake it. It prints the tries, those cases,
#: and how many of them left the helper asleep.
STALE_PROGRAM = r"""
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
typedef ssize_t Py_ssize_t;
#define CRESIZE_QUICK_TEST_WINDOW() usleep(300)
#include "_quick.h"

static void chunk(void *call, int tid, Py_ssize_t j0, Py_ssize_t j1, int first)
{
    long long end = cresize_team_now() + (long long)(long)call * (j1 - j0);
    (void)tid, (void)first;
    while (cresize_team_now() < end)
        ;
}

/* wait up to `ns` for *p >= v */
static int await(int *p, int v, long long ns)
{
    long long end = cresize_team_now() + ns;
    while (__atomic_load_n(p, __ATOMIC_SEQ_CST) < v)
        if (cresize_team_now() > end)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int second = argc > 1 && argv[1][0] == 's'; /* the second window (`sleeping` set) */
    int want = second ? 2 : 1, tries = 0, cases = 0, stale = 0;
    cresize_quick_run(chunk, (void *)1000L, 24, 1); /* start the helper */
    while (cases < 30 && tries++ < 3000) {
        long helped, holds, wakes;
        usleep(2000); /* the helper sleeps */
        cresize_quick_run(chunk, (void *)500L, 2, 1); /* over before it comes */
        if (!await(&cresize_quick.hold, want, 2000000LL))
            continue; /* it did not come, or not yet back off that far */
        if (second && !await(&cresize_quick.sleeping, 1, 2000000LL))
            continue;
        helped = cresize_quick_helped;
        holds = cresize_quick_holds;
        cresize_quick_run(chunk, (void *)50000L, 24, 1); /* 1.2 ms: it finds this one */
        if (cresize_quick_helped == helped)
            continue;
        usleep(2000);
        if (!__atomic_load_n(&cresize_quick.sleeping, __ATOMIC_SEQ_CST) ||
            cresize_quick_holds != holds)
            continue;
        wakes = cresize_quick_wakes;
        cresize_quick_run(chunk, (void *)500L, 2, 1);
        cases++;
        stale += cresize_quick_wakes == wakes; /* left asleep though its last wake helped */
    }
    printf("%d %d %d\n", tries, cases, stale);
    return 0;
}
"""


@TWO_CPUS
@pytest.mark.skipif(not LINUX, reason="the pair has a helper on Linux only")
@pytest.mark.parametrize("window", ["hold", "sleeping"])
def test_a_call_the_helper_helped_ends_its_back_off(tmp_path, window):
    """The back-off after wakes for nothing ends once the helper takes chunks of a call.
    A call that came as the helper went to sleep left it behind: the helper stored
    ``hold`` only when not 0 (first step), and a call that took ``hold`` kept its
    ``skip`` though the helper then helped it (second step); either way the next call to
    find the helper asleep left it so (30 of 30 cases each). The helper stores 0 now, and
    a call it helped clears ``skip``."""
    out = _run_program(tmp_path, "stale", STALE_PROGRAM, window).stdout
    tries, cases, stale = map(int, out.split())
    assert cases >= 10 and stale == 0, (tries, cases, stale)


#: A program of _quick.h alone: quick calls until the calling thread has read its CPU
#: mask (``cresize_quick_masks_at``, kept for CRESIZE_QUICK_MASK_NS), then a fork; the
#: child prints when its thread read the mask (0: never, the cache reset by the fork
#: handler), the parent whether it read it at all.
MASK_FORK_PROGRAM = r"""
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
typedef ssize_t Py_ssize_t;
#include "_quick.h"

static void chunk(void *call, int tid, Py_ssize_t j0, Py_ssize_t j1, int first)
{
    (void)call, (void)tid, (void)j0, (void)j1, (void)first;
}

int main(void)
{
    long long end = cresize_team_now() + 60000000000LL;
    int status;
    pid_t child;
    if (cresize_quick_init())
        return 2;
    while (!cresize_quick_masks_at && cresize_team_now() < end)
        cresize_quick_run(chunk, NULL, 8, 1); /* the helper reads its CPUs as it starts */
    fflush(stdout);
    child = fork();
    if (child == 0) {
        printf("%lld\n", cresize_quick_masks_at);
        return 0;
    }
    waitpid(child, &status, 0);
    printf("%d\n", cresize_quick_masks_at != 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 3;
}
"""


@pytest.mark.skipif(not hasattr(os, "fork") or not LINUX, reason="fork(), the helper: Linux")
def test_a_forked_child_reads_its_cpu_mask_again(tmp_path):
    """The fork handler reset the pair but not the forking thread's cache of its CPU mask,
    which the child's calls then took for up to CRESIZE_QUICK_MASK_NS (compared with the
    child's new helper's CPUs, before that helper had read them)."""
    child, parent = _run_program(tmp_path, "maskfork", MASK_FORK_PROGRAM).stdout.split()
    assert parent == "1" and child == "0"


AFFINITY_CHILD = """
import os, sys, time
import numpy as np
import cresize
from cresize import _kernels
pin_first = sys.argv[1] == "1"
x = np.random.default_rng(0).random((224, 224, 3), dtype=np.float32)
want = cresize.resize(x, (112, 112), axes=(0, 1), num_threads=1)
def pair():
    return np.array_equal(cresize.resize(x, (112, 112), axes=(0, 1), num_threads=2), want)
def until_helped(ok):
    helped, end = _kernels.quick_counts()[1], time.monotonic() + 10
    while time.monotonic() < end and _kernels.quick_counts()[1] == helped:
        ok = pair() and ok
    return ok, _kernels.quick_counts()[1] - helped
cpus = os.sched_getaffinity(0)
ok = True
if not pin_first:  # the helper starts with the process's CPUs and may keep off the caller's
    ok, _ = until_helped(ok)
os.sched_setaffinity(0, {min(cpus)})  # this thread only (and a helper it starts)
time.sleep(0.02)  # past CRESIZE_QUICK_MASK_NS: the caller's mask is read again
calls, helped, wakes, _ = _kernels.quick_counts()
ok = all([pair() for _ in range(300)]) and ok
counts = [n - m for n, m in zip(_kernels.quick_counts()[:3], (calls, helped, wakes))]
if not pin_first:  # (a loop that waits for it: 300 calls may all come while it sleeps)
    ok, counts[1] = until_helped(ok)
os.sched_setaffinity(0, cpus)  # the caller may run anywhere again: the pair helps again
time.sleep(0.02)
ok, again = until_helped(ok)
print(int(ok), *counts, again)
"""


@TWO_CPUS
@pytest.mark.parametrize("pin_first", [True, False], ids=["helper-pinned", "helper-free"])
def test_calls_run_alone_where_the_helper_shares_the_callers_only_cpu(pin_first):
    """A calling thread that may run on one CPU only, the helper on that one too (pinned
    before the helper started, as ``taskset -c 0`` pins a process): its calls run alone,
    the helper never woken (it took 1.09-1.15x the one-thread time, woken on that CPU).
    A helper started before the pin keeps its CPUs and still helps; once the caller may
    run anywhere again, the helper helps (its mask is read again, not kept)."""
    code, out, err = run_python(
        ["-c", AFFINITY_CHILD, str(int(pin_first))], dict(os.environ), 120, " (affinity)"
    )
    assert code == 0, err
    ok, calls, helped, wakes, again = map(int, out.split())
    assert ok == 1 and calls == 300
    if pin_first:
        assert helped == 0 and wakes == 0
    else:
        assert helped > 0
    assert again > 0
