"""Run a Python child for a test: in a session of its own, so that a hang kills the
child and everything it forked."""

import os
import signal
import subprocess
import sys

import pytest


def run_python(args, env, timeout, hang="", cwd=None) -> tuple[int, str, str]:
    """``python *args`` with ``env`` (in ``cwd``); its return code, stdout and stderr.

    After ``timeout`` seconds the whole process group is killed and the test fails
    ("hung: killed after ... s", then ``hang``, what a hang would mean).
    """
    proc = subprocess.Popen(
        [sys.executable, *args],
        env=env,
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the interpreter and any child it forked
        proc.communicate()
        pytest.fail(f"hung: killed after {timeout} s{hang}")
    return proc.returncode, out, err
