"""The public switch for thread steering (``_team.h``): the ``CRESIZE_THREAD_STEERING``
environment variable, read once as the kernels load, ``cresize.set_thread_steering``,
and ``show_config``'s report of the mode in effect and where it came from.

What the variable does is seen only in a fresh interpreter: each such case runs in a
child. What steering itself does is ``tests/test_team.py``'s.
"""

import json
import os
import sys

import pytest

import cresize
from cresize import _kernels
from helpers.proc import run_python

MODES = ("off", "auto", "always")

#: Linux's affinity calls, OpenMP workers and two CPUs: where a mode can steer.
CAN_STEER = (
    sys.platform.startswith("linux")
    and cresize.openmp_enabled()
    and hasattr(os, "sched_getaffinity")
    and len(os.sched_getaffinity(0)) >= 2
)


@pytest.fixture
def restore_steering():
    """Gives this process its steering mode and its source back after the test."""
    mode, source = _kernels.thread_steering()
    yield
    _kernels._set_steering(_kernels.STEERING_MODES.index(mode), source)


# What a child reports: the mode and source in effect, show_config's dict and line,
# and the warnings that loading the kernels gave.
REPORT = """
import contextlib, io, json, warnings
import cresize
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    from cresize import _kernels
text = io.StringIO()
with contextlib.redirect_stdout(text):
    cresize.show_config()
line = [s for s in text.getvalue().splitlines() if "thread steering" in s]
print(json.dumps({
    "in_effect": list(_kernels.thread_steering()),
    "config": cresize.show_config("dicts")["openmp"]["thread_steering"],
    "line": line,
    "warnings": [f"{w.category.__name__}: {w.message}" for w in caught],
}))
"""


def _child(code, value):
    """``code`` in a fresh interpreter with ``CRESIZE_THREAD_STEERING=value`` (None:
    unset); its last line of output, read as JSON."""
    env = {k: v for k, v in os.environ.items() if k != "CRESIZE_THREAD_STEERING"}
    if value is not None:
        env["CRESIZE_THREAD_STEERING"] = value
    returncode, out, err = run_python(["-c", code], env, 120)
    assert returncode == 0, err
    return json.loads(out.splitlines()[-1])


@pytest.mark.parametrize(
    ("value", "mode", "source"),
    [
        (None, "auto", "default"),
        ("", "auto", "default"),  # empty: as unset
        ("  ", "auto", "default"),
        ("auto", "auto", "environment"),
        ("off", "off", "environment"),
        ("always", "always", "environment"),
        ("OFF", "off", "environment"),  # any case, spaces around
        (" Always\n", "always", "environment"),
    ],
)
def test_the_environment_variable_chooses_the_mode(value, mode, source):
    got = _child(REPORT, value)
    if not sys.platform.startswith("linux") and source == "default":
        mode = "off"  # _team.h steers on Linux only: elsewhere the default is off
    assert got["in_effect"] == [mode, source]
    assert got["warnings"] == []
    if cresize.openmp_enabled():
        assert got["config"] == {
            "mode": mode,
            "source": source,
            "linux": sys.platform.startswith("linux"),
        }
        where = {
            "default": "the default",
            "environment": "CRESIZE_THREAD_STEERING when the kernels loaded",
        }[source]
        if not sys.platform.startswith("linux"):
            where += "; nothing is steered: Linux only"
        assert got["line"] == [f"  thread steering   {mode}  ({where})"]
    else:  # a serial build has no workers to steer
        assert got["config"] is None
        assert got["line"] == ["  thread steering   -"]


@pytest.mark.parametrize("value", ["on", "1", "true", "never", "auto,off", "0"])
def test_a_bad_value_warns_naming_the_variable_and_keeps_the_default(value):
    """As ``CRESIZE_SIMD``: a RuntimeWarning that names the variable, the value and the
    allowed values; the default stays in effect (and is reported as the default)."""
    got = _child(REPORT, value)
    default = "auto" if sys.platform.startswith("linux") else "off"
    assert got["in_effect"] == [default, "default"]
    assert len(got["warnings"]) == 1, got["warnings"]
    message = got["warnings"][0]
    assert message.startswith("RuntimeWarning: CRESIZE_THREAD_STEERING=")
    assert repr(value.lower()) in message
    assert "off, auto, always" in message


def test_the_function_returns_the_previous_mode_and_show_config_reports_it(
    restore_steering, capsys
):
    first, _ = _kernels.thread_steering()
    assert cresize.set_thread_steering("off") == first
    assert _kernels.thread_steering() == ("off", "call")
    assert cresize.set_thread_steering("always") == "off"
    assert cresize.set_thread_steering("auto") == "always"
    assert cresize.set_thread_steering("auto") == "auto"
    if cresize.openmp_enabled():
        config = cresize.show_config("dicts")["openmp"]["thread_steering"]
        assert config["mode"] == "auto" and config["source"] == "call"
        cresize.show_config()
        assert "thread steering   auto  (cresize.set_thread_steering" in capsys.readouterr().out


def test_the_function_overrides_the_environment():
    code = "import cresize\nprint(cresize.set_thread_steering('auto'))\n" + REPORT
    got = _child(code, "off")
    assert got["in_effect"] == ["auto", "call"]


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        (None, TypeError),
        (0, TypeError),
        (True, TypeError),
        (b"off", TypeError),
        (["off"], TypeError),
        ("on", ValueError),
        ("Off", ValueError),  # the function takes the names as written
        ("", ValueError),
        ("auto ", ValueError),
    ],
)
def test_the_function_checks_its_argument(restore_steering, mode, error):
    before = _kernels.thread_steering()
    with pytest.raises(error, match=r"^mode must be .*off, auto, always; got ") as info:
        cresize.set_thread_steering(mode)
    assert repr(mode) in str(info.value)
    assert _kernels.thread_steering() == before  # nothing changed


def test_the_private_switch_counts_as_a_call(restore_steering):
    """``_kernels.team_steering(mode)`` (tests, benchmarks) sets the same mode, so what
    show_config reports stays true."""
    _kernels.team_steering(2)
    assert _kernels.thread_steering() == ("always", "call")
    _kernels.team_steering(False)
    assert _kernels.thread_steering() == ("off", "call")
    _kernels.team_steering()  # the count alone: nothing changes
    assert _kernels.thread_steering() == ("off", "call")


# Forced rounds as in test_team.py: before each timed call every thread ran on one
# CPU, where the caller runs (the state steering is for). The steers counted in the
# mode in effect at start, then after set_thread_steering("off") and ("always").
FORCED = """
import json, os, threading
import numpy as np
import cresize
from cresize import _kernels

x = np.random.default_rng(0).integers(0, 256, (256, 256, 3), dtype=np.uint8)
expected = cresize.resize(x, (512, 512), axes=(0, 1), mode="bilinear", num_threads=1)

def call():
    return cresize.resize(x, (512, 512), axes=(0, 1), mode="bilinear", num_threads=2)

call()  # the workers exist now
me = threading.get_native_id()
workers = [int(t) for t in os.listdir("/proc/self/task") if int(t) != me]
everywhere = os.sched_getaffinity(0)
first = min(everywhere)
same = True

def steers(rounds=6):
    global same
    before = _kernels.team_steering()
    for _ in range(rounds):
        os.sched_setaffinity(0, {first})
        for w in workers:
            os.sched_setaffinity(w, {first})
        call()
        for w in workers:
            os.sched_setaffinity(w, everywhere)
        same &= bool(np.array_equal(call(), expected))
        os.sched_setaffinity(0, everywhere)
    return _kernels.team_steering() - before

got = {"start": steers(), "mode": _kernels.thread_steering()[0]}
cresize.set_thread_steering("off")
got["off"] = steers()
cresize.set_thread_steering("always")
got["always"] = steers()
got["same"] = same
got["masks"] = sorted({tuple(sorted(os.sched_getaffinity(w))) for w in workers})
got["everywhere"] = sorted(everywhere)
print(json.dumps(got))
"""


@pytest.mark.skipif(not CAN_STEER, reason="needs Linux, OpenMP and two CPUs")
@pytest.mark.parametrize("value", ["off", "always"])
def test_off_steers_nothing_and_always_steers_every_forced_call(value):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env["CRESIZE_THREAD_STEERING"] = value
    env["CRESIZE_QUICK_THREAD"] = "off"  # 2-thread calls take an OpenMP team
    code, out, err = run_python(["-c", FORCED], env, 120)
    assert code == 0, err
    got = json.loads(out.splitlines()[-1])
    assert got["mode"] == value
    if value == "off":
        assert got["start"] == 0
    else:
        assert got["start"] >= 6
    assert got["off"] == 0
    assert got["always"] >= 6  # a worker kept off the caller's CPU in each forced call
    assert got["same"]
    assert got["masks"] == [got["everywhere"]]  # each worker has all its CPUs back


def test_calls_from_several_threads_hand_the_mode_on(restore_steering):
    """Each call's return is the mode that the call before it (in some order) set: no
    update is lost or seen twice, so the (previous -> new) steps of all threads chain
    from the mode in effect to the last one set (every mode in as often as out)."""
    import collections
    import threading

    first, _ = _kernels.thread_steering()
    counts = []
    barrier = threading.Barrier(4)

    def worker(seed):
        import random

        rng = random.Random(seed)
        mine = collections.Counter()
        barrier.wait()
        for _ in range(3000):
            new = rng.choice(MODES)
            mine[cresize.set_thread_steering(new), new] += 1
        counts.append(mine)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    steps = sum(counts, collections.Counter())
    last, source = _kernels.thread_steering()
    assert source == "call" and sum(steps.values()) == 4 * 3000
    for mode in MODES:  # an Euler path from ``first`` to ``last``
        out = sum(n for (a, _), n in steps.items() if a == mode)
        into = sum(n for (_, b), n in steps.items() if b == mode)
        assert out - into == (mode == first) - (mode == last), (mode, steps)
