"""``python -m cresize`` (the self-check) passes on this build and catches a broken resize."""

import os
import subprocess
import sys

import numpy as np
import pytest

import cresize
from cresize import _selfcheck


def test_selfcheck_passes_in_a_subprocess():
    done = subprocess.run(
        [sys.executable, "-m", "cresize"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "self-check passed" in done.stdout
    assert f"enabled           {cresize.openmp_enabled()}" in done.stdout  # show_config()
    assert done.stdout.count("same") == len(list(_selfcheck.configurations()))


def test_selfcheck_fails_on_a_wrong_forward(monkeypatch, capsys):
    real = cresize.resize
    monkeypatch.setattr(
        cresize, "resize", lambda x, size, **kw: np.roll(real(x, size, **kw), 1, -1)
    )
    assert _selfcheck.main([]) == 1
    assert "FAILED" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [[], ["--version"], ["golden", "--verify", "GOLDEN"], ["demo", "--out", "DEMO"]],
    ids=["selfcheck", "version", "golden-verify", "demo"],
)
def test_a_closed_stdout_ends_quietly(argv, tmp_path):
    """``cresize ... | head``: when stdout's reader has gone, the command stops with the
    status of a process ended by SIGPIPE (141) and prints no error or traceback."""
    golden = tmp_path / "golden"
    if "GOLDEN" in argv:
        assert (
            subprocess.run(
                [sys.executable, "-m", "cresize", "golden", "--out", str(golden)],
                capture_output=True,
                timeout=300,
            ).returncode
            == 0
        )
    argv = [
        str(golden) if a == "GOLDEN" else str(tmp_path / "d.png") if a == "DEMO" else a
        for a in argv
    ]
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    done = _run_with_stdout(argv, write)
    assert done.returncode == 141, done.stderr
    assert done.stderr == "", done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--quick", "--no-torch", "--modes", "area"],
        ["golden", "--out", "OUT"],
        [],
    ],
    ids=["check", "golden-out", "selfcheck"],
)
@pytest.mark.parametrize("stdout", ["full", "read-only"])
def test_an_unwritable_stdout_is_one_line_and_status_2(argv, stdout, tmp_path):
    """``cresize check > /dev/full`` ended in an ``OSError`` traceback (``golden`` said
    it in one line): a stdout that cannot be written is one line on stderr naming it,
    exit status 2, in every subcommand, also where only the exit's flush would fail."""
    if stdout == "full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    argv = [str(tmp_path / "out") if a == "OUT" else a for a in argv]
    if stdout == "full":
        fd = os.open("/dev/full", os.O_WRONLY)
        why = "[Errno 28] No space left on device"
    else:
        (tmp_path / "ro").write_text("")
        fd = os.open(tmp_path / "ro", os.O_RDONLY)  # a write to it is EBADF
        why = "[Errno 9] Bad file descriptor"
    done = _run_with_stdout(argv, fd)
    command = f"cresize {argv[0]}" if argv else "cresize"
    assert done.stderr == f"{command}: cannot write the output (stdout): {why}\n"
    assert done.returncode == 2


def _run_with_stdout(argv, fd):
    """``python -m cresize *argv`` with stdout on file descriptor ``fd`` (closed after)."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "cresize", *argv],
            stdout=fd,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    finally:
        os.close(fd)
