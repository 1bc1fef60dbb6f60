"""Where a parallel call's threads run (``_team.h``): a worker that last ran on the
calling thread's CPU is kept off that CPU for the call, and gets its CPUs back after.

Each case runs in a fresh interpreter: it sets the CPUs of its own threads to make
the state that steering is for (the worker last ran where the caller now runs).
"""

import json
import os
import sys

import pytest

import cresize
from helpers.proc import run_python

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's affinity calls"),
    pytest.mark.skipif(not cresize.openmp_enabled(), reason="a serial build has no workers"),
]
#: The cases that run a team in a child (``_run``); the readings, the mode's checks and
#: the cgroup helper run with one CPU too.
TWO_CPUS = pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs two CPUs to choose between",
)

CHILD = """
import json, os, threading
import numpy as np
import cresize
from cresize import _kernels

_kernels.team_steering({enabled})
if {loadavg!r} is not None:
    _kernels._team_loadavg({loadavg!r})
_kernels._team_late({late_ns})
n = {threads}
rng = np.random.default_rng(0)
shape, size = (4, 8, 56, 56), (112, 112)
g = rng.random(shape[:2] + size, dtype=np.float32)
x = rng.integers(0, 256, (256, 256, 3), dtype=np.uint8)
calls = [
    lambda n: cresize.resize_backward(g, shape, mode="nearest", num_threads=n),
    lambda n: cresize.resize(x, (512, 512), axes=(0, 1), mode="bilinear", num_threads=n),
    lambda n: cresize.resize(g, (37, 91), mode="bicubic", antialias=True, num_threads=n),
]
trace = []  # each call of n threads: the workers it steered, the late starts it noted


def traced(c, n):
    steers, late = _kernels.team_steering(), _kernels._team_late()
    out = c(n)
    trace.append((_kernels.team_steering() - steers, _kernels._team_late() - late))
    return out


expected = [c(1) for c in calls]
for c in calls:
    traced(c, n)  # the workers exist now
me = threading.get_native_id()
workers = [int(t) for t in os.listdir("/proc/self/task") if int(t) != me]
everywhere = os.sched_getaffinity(0)
first = min(everywhere)
same, steers_before = True, _kernels.team_steering()
rounds = 0
for _ in range(3):
    for i, c in enumerate(calls):
        os.sched_setaffinity(0, {{first}})
        for w in workers:
            os.sched_setaffinity(w, {{first}})
        traced(c, n)  # every thread ran on `first`, where the caller now runs
        for w in workers:
            os.sched_setaffinity(w, everywhere)
        same &= bool(np.array_equal(traced(c, n), expected[i]))
        rounds += 1
        os.sched_setaffinity(0, everywhere)
steers_forced = _kernels.team_steering() - steers_before
for i, c in enumerate(calls * 10):  # unforced: the caller where the system puts it
    same &= bool(np.array_equal(traced(c, n), expected[i % len(calls)]))
print(json.dumps({{
    "same": same,
    "rounds": rounds,
    "steers": steers_forced,
    "steers_all": _kernels.team_steering() - steers_before,
    "reads": _kernels._team_loadavg_reads(),
    "late": _kernels._team_late(),
    "steers_total": _kernels.team_steering(),
    "trace": trace,
    "caller": sorted(os.sched_getaffinity(0)),
    "masks": sorted({{tuple(sorted(os.sched_getaffinity(w))) for w in workers}}),
    "everywhere": sorted(everywhere),
}}))
"""


def _run(enabled, threads=2, loadavg=None, late_ns=10**12, **env):
    """The forced rounds in a child; ``late_ns``: when a steered worker's late start
    stops steering (by default never: the tests of the gate must not depend on the
    machine's load; ``test_a_worker_that_began_late_stops_steering`` sets it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))} | env
    env.setdefault("CRESIZE_QUICK_THREAD", "off")  # 2-thread calls take an OpenMP team
    child = CHILD.format(enabled=enabled, threads=threads, loadavg=loadavg, late_ns=late_ns)
    code, out, err = run_python(["-c", child], env, 120)
    assert code == 0, err
    return json.loads(out.splitlines()[-1])


@TWO_CPUS
def test_a_worker_on_the_callers_cpu_is_kept_off_it_and_gets_its_cpus_back():
    got = _run(2)  # always: the default also looks at what else runs on the machine
    assert got["same"]  # the bits do not depend on where the threads ran
    # Every forced round steered a worker (the caller's one worker of a 2-thread team);
    # more when the system moved them into the same state by itself.
    assert got["steers"] >= got["rounds"]
    assert got["masks"] == [got["everywhere"]]  # each thread has all its CPUs back


@TWO_CPUS
def test_steering_off_changes_nothing():
    got = _run(False)
    assert got["same"]
    assert got["steers"] == 0
    assert got["masks"] == [got["everywhere"]]


@TWO_CPUS
def test_a_team_smaller_than_asked_for_steers_its_own_workers_only():
    """OMP_THREAD_LIMIT=2 and 4 threads asked for: the calling thread and one worker
    run the four shares, two each. Each thread notes its own thread number, not the
    share's (the caller noted as thread 1 was kept off its own CPU; the worker noted as
    threads 2 and 3 was steered twice in one call, and left with the CPUs of the
    second time, its allowed CPUs less the caller's)."""
    got = _run(2, threads=4, OMP_THREAD_LIMIT="2")
    assert got["same"]
    assert got["steers"] == got["rounds"]  # the one worker, once a call
    assert got["masks"] == [got["everywhere"]]
    assert got["caller"] == got["everywhere"]


@TWO_CPUS
def test_a_team_of_one_thread_steers_nothing():
    """OMP_THREAD_LIMIT=1: no worker runs, so nothing is kept off any CPU (the calling
    thread, which ran every share, was kept off its own CPU call after call)."""
    got = _run(2, OMP_THREAD_LIMIT="1")
    assert got["same"]
    assert got["steers_all"] == 0
    assert got["masks"] in ([], [got["everywhere"]])  # other libraries' threads, if any
    assert got["caller"] == got["everywhere"]


def _cpu_throttled(cgroup="/proc/self/cgroup", mountinfo="/proc/self/mountinfo"):
    """How many times this process's CPU quota stopped it (cgroup ``cpu.stat``'s
    ``nr_throttled``, summed over its cgroup and those above it that can be seen, v1
    and v2); 0 where there is no quota or nothing can be read."""
    try:
        with open(cgroup) as f:
            groups = [line.rstrip("\n").split(":", 2) for line in f]
        with open(mountinfo) as f:
            mounts = [line.split() for line in f]
    except OSError:
        return 0
    total = 0
    for fields in mounts:
        dash = fields.index("-")
        fstype, options = fields[dash + 1], fields[dash + 3].split(",")
        root, point = fields[3], fields[4]
        for _, controllers, path in groups:
            if fstype == "cgroup2" and controllers == "":
                pass  # the unified hierarchy ("0::/path")
            elif not (fstype == "cgroup" and "cpu" in controllers.split(",") and "cpu" in options):
                continue
            if not (path + "/").startswith(root.rstrip("/") + "/"):
                continue
            here = os.path.join(point, path[len(root.rstrip("/")) :].lstrip("/"))
            while True:
                try:
                    with open(os.path.join(here, "cpu.stat")) as f:
                        total += sum(
                            int(line.split()[1]) for line in f if line.startswith("nr_throttled ")
                        )
                except (OSError, ValueError, IndexError):
                    pass
                if os.path.normpath(here) == os.path.normpath(point):
                    break
                here = os.path.dirname(here)
    return total


@pytest.mark.parametrize("version", [1, 2])
def test_the_cpu_quota_reading_sums_the_cgroup_and_those_above_it(tmp_path, version):
    """The helper that tells the busy-machine test whether a CPU quota stopped its
    processes, on a cgroup tree of the test's making: the process's cgroup and those
    above it up to the mount point, not a sibling's nor anything outside the mount."""
    point = tmp_path / "fs" / ("cpu,cpuacct" if version == 1 else "")
    counts = {"": 1000, "ci": 2, "ci/job": 3, "ci/job/sibling": 100, "other": 100}
    for path, count in counts.items():
        (point / path).mkdir(parents=True, exist_ok=True)
        (point / path / "cpu.stat").write_text(
            f"nr_periods 9\nnr_throttled {count}\nthrottled_time 1\n"
        )
    cgroup, mountinfo = tmp_path / "cgroup", tmp_path / "mountinfo"
    if version == 1:
        cgroup.write_text("5:memory:/elsewhere\n3:cpu,cpuacct:/ci/job\n0::/\n")
        line = f"35 25 0:30 /ci {point / 'ci'} rw - cgroup cgroup rw,cpu,cpuacct\n"
    else:
        cgroup.write_text("0::/ci/job\n")
        line = f"35 25 0:30 /ci {point / 'ci'} rw shared:9 - cgroup2 cgroup2 rw\n"
    mountinfo.write_text(f"22 1 8:1 / / rw - ext4 /dev/root rw\n{line}")
    # Mounted at the cgroup "ci": "ci" and "ci/job" count, the hierarchy's root not.
    assert _cpu_throttled(cgroup, mountinfo) == 5
    (point / "ci" / "job" / "cpu.stat").write_text("nr_throttled 7\n")
    assert _cpu_throttled(cgroup, mountinfo) == 9
    assert _cpu_throttled(tmp_path / "none", mountinfo) == 0  # nothing to read
    first = _cpu_throttled()  # this machine's own: a count that never goes down
    assert 0 <= first <= _cpu_throttled()


@TWO_CPUS
def test_a_busy_machine_steers_nothing_by_default():
    """The default steers only when another CPU may be free: with a process spinning on
    every CPU but one (so at least as many threads are runnable as there are CPUs to
    steer to, the caller aside), a worker kept off the caller's CPU would wait for a
    time slice while the caller's CPU idles (median 7-11 ms against 1.3-1.6 ms,
    benchmarks/RESULTS-team.md): nothing is steered.

    That holds while the spinners are counted among the runnable threads of
    /proc/loadavg: each has started spinning before the child runs (a spinner still
    starting up may sleep on a disk read), and nothing stops them. A CPU quota (a
    cgroup's ``cpu.max`` or ``cpu.cfs_quota_us``) does: a throttled spinner is not
    runnable, so the check may read "free" and steer, as documented (docs/limits.md,
    "thread steering"). Then the late-start rule is what keeps workers off a busy
    CPU: a steered worker that began late stops steering for the caller's next 64
    calls, more than the child makes, so no call after one that saw a late start
    steers (the child runs with the real 0.1 ms; ``late_ns`` is not changed)."""
    import subprocess

    everywhere = sorted(os.sched_getaffinity(0))
    spin = "import os, sys\nos.sched_setaffinity(0, {%d})\nprint(flush=True)\nwhile True: pass"
    spinners = []
    try:
        for c in everywhere[1:]:
            spinners.append(
                subprocess.Popen([sys.executable, "-c", spin % c], stdout=subprocess.PIPE)
            )
        for p in spinners:
            assert p.stdout.readline() == b"\n"  # spinning from here on
        throttled = _cpu_throttled()
        got = _run(None, late_ns=None)
        throttled = _cpu_throttled() - throttled
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    assert got["same"]
    assert got["masks"] == [got["everywhere"]]
    # The trace holds every call of 2 threads, and fewer than the late-start rule's pause.
    assert len(got["trace"]) < 64
    assert sum(steers for steers, _ in got["trace"]) == got["steers_total"]
    assert sum(began_late for _, began_late in got["trace"]) == got["late"]
    if not throttled:  # every reading counted the spinners: busy
        assert got["steers_total"] == 0, got
    late = [i for i, (_, began_late) in enumerate(got["trace"]) if began_late]
    if late:
        assert not any(steers for steers, _ in got["trace"][late[0] + 1 :]), got


@pytest.mark.parametrize(
    ("text", "running"),
    [
        (b"0.65 0.41 0.55 1/65 1234\n", 1),
        (b"12.00 9.50 8.25 37/1900 99999\n", 37),
        (b"0.65  0.41   0.55  3/65 1234\n", 3),  # fields apart by more than one space
        (b"0.00 0.00 0.00 0/0 0", 0),
        # Too large to count: "busy", never a number that overflowed or wrapped round
        # (4294967297 is 2**32 + 1, read as 1 by an int that wraps).
        (b"0.00 0.00 0.00 4294967297/65 1234\n", 1000001),
        (b"0.00 0.00 0.00 " + b"9" * 100 + b"/65 1\n", 1000001),
        (b"0.00 0.00 0.00 1000000/2000000 1\n", 1000000),
        # Not the form of /proc/loadavg: -1 (do not steer).
        (b"", -1),
        (b"0.65 0.41 0.55", -1),
        (b"0.65 0.41 0.55 ", -1),
        (b"0.65 0.41 0.55 1", -1),  # cut short: the count may go on
        (b"0.65 0.41 0.55 1 65 1234\n", -1),
        (b"0.65\t0.41\t0.55\t1/65\t1234\n", -1),
        (b"0.65 0.41 0.55 x/65 1234\n", -1),
        (b"0.65 0.41 0.55 -1/65 1234\n", -1),
    ],
)
def test_the_runnable_threads_are_read_from_the_fourth_field(text, running):
    from cresize import _kernels

    assert _kernels._team_parse_loadavg(text) == running


@TWO_CPUS
@pytest.mark.parametrize(
    ("content", "steers"),
    [
        ("0.00 0.00 0.00 1/100 5\n", True),  # only the caller runs: another CPU is free
        ("0.00 0.00 0.00 4294967297/100 5\n", False),  # too many to count (wraps to 1)
        ("0.00 0.00 0.00 1000000/1000001 5\n", False),
        ("", False),  # an empty read
        ("0.00 0.00 0.00\n", False),
        ("0.00 0.00 0.00 0/0 0\n", False),  # a stub (the reader itself runs): unknown
        (None, False),  # no such file (a container without /proc, a seccomp filter)
    ],
)
def test_the_default_steers_only_when_it_can_read_that_a_cpu_is_free(tmp_path, content, steers):
    """The default mode with the runnable threads read from a file of the test's making
    (so the test does not depend on what else runs on the machine): steered in the
    forced rounds when only the caller runs, and nothing steered when the count is too
    large, cannot be read, is not of the form of /proc/loadavg or is 0 (no real reading:
    the reader itself runs)."""
    path = tmp_path / "loadavg"
    if content is not None:
        path.write_text(content)
    got = _run(1, loadavg=str(path))
    assert got["same"]
    if steers:
        assert got["steers"] >= got["rounds"]
    else:
        assert got["steers_all"] == 0
    assert got["masks"] == [got["everywhere"]]


@TWO_CPUS
def test_a_busy_reading_is_not_read_again_call_after_call(tmp_path):
    """On a busy machine nothing is steered, so the worker is woken next to the caller
    again and the next call meets the same state: without a pause every 2-thread call
    read /proc/loadavg (3 system calls, 4-7 us) for nothing. After a busy reading the
    next 1, 2, 4, 8, 16 and then 32 calls that would read skip it (busy readings in a
    row; not steering, as mode 0): here at most 51 calls meet the state (9 forced
    rounds of two, the unforced calls), so at most 7 reads, not one a call."""
    path = tmp_path / "loadavg"
    path.write_text("0.00 0.00 0.00 5/100 5\n")  # 4 others runnable: busy
    got = _run(1, loadavg=str(path))
    assert got["same"]
    assert got["steers_all"] == 0
    assert 1 <= got["reads"] <= 7
    free = tmp_path / "free"
    free.write_text("0.00 0.00 0.00 1/100 5\n")
    got = _run(1, loadavg=str(free))
    assert got["reads"] >= got["rounds"]  # a free reading is never reused


@TWO_CPUS
def test_a_worker_that_began_late_stops_steering(tmp_path):
    """A check that reads "free" while a program runs on the other CPU (a neighbour in
    bursts, a container's own count): the steered worker can wait there for a time
    slice (review13: p90 3.5 against 1.6 ms). One that begins its share more than
    0.1 ms after the call began stops steering for the caller's next 64 calls that
    would steer, as mode 0. Here every start counts as late (``late_ns`` 0), so that
    the test does not depend on the machine's load: one steered call at most, then
    none in the forced rounds (9 of them, against 9 steered with the check alone)."""
    free = tmp_path / "free"
    free.write_text("0.00 0.00 0.00 1/100 5\n")
    got = _run(1, loadavg=str(free), late_ns=0)
    assert got["same"]
    assert got["late"] >= 1
    assert got["steers"] <= 1 < got["rounds"]
    assert got["masks"] == [got["everywhere"]]


def test_the_file_read_is_proc_loadavg():
    from cresize import _kernels

    assert _kernels._team_loadavg() == "/proc/loadavg"


def test_the_mode_is_checked():
    from cresize import _kernels

    with pytest.raises(ValueError, match="mode must be 0, 1 or 2"):
        _kernels.team_steering(3)
    assert _kernels.team_steering(None) == _kernels.team_steering()
