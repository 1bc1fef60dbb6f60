"""Run a Python child for a test: in a session of its own, so that a hang kills the
child and everything it forked."""

import contextlib
import os
import signal
import subprocess
import sys

import pytest

POSIX = os.name == "posix"
if POSIX:  # imported here: a forked child must not import (another thread may hold the lock)
    import resource


def _no_core_file():
    """(In the child, before the exec.) The abort of a hung child writes no core file."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def default_sigint():
    """(In a child, before the exec.) SIGINT's default action, which Python then replaces
    by its KeyboardInterrupt handler: a test's child is interrupted as from a terminal even
    where the tests run with SIGINT ignored (started in the background by a script), which
    a child inherits and Python leaves (POSIX)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_python(args, env, timeout, hang="", cwd=None) -> tuple[int, str, str]:
    """``python *args`` with ``env`` (in ``cwd``); its return code, stdout and stderr.

    After ``timeout`` seconds the whole process group is killed and the test fails
    ("hung: killed after ... s", then ``hang``, what a hang would mean, then where each
    of the child's threads was: the child runs with ``-X faulthandler``, which a SIGABRT
    sent first makes print every thread's Python stack; POSIX).
    """
    proc = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", *args],
        env=env,
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_no_core_file if POSIX else None,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        err = ""
        if POSIX:
            proc.send_signal(signal.SIGABRT)  # faulthandler: the stacks, then the abort
            with contextlib.suppress(subprocess.TimeoutExpired):
                err = proc.communicate(timeout=10)[1]
        with contextlib.suppress(ProcessLookupError):  # (none left: the abort ended it)
            os.killpg(proc.pid, signal.SIGKILL)  # the interpreter and any child it forked
        proc.communicate()
        pytest.fail(f"hung: killed after {timeout} s{hang}; its stderr ended:\n{err[-6000:]}")
    return proc.returncode, out, err


#: The source of ``peak_rss()``, for a child's code (it imports ``resource``): the
#: process's peak resident memory: VmHWM (ru_maxrss survives exec: it would count pytest's).
PEAK = """
def peak_rss():
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status
                        if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
"""
