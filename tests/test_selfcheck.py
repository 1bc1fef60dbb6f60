"""``python -m cresize`` (the self-check) passes on this build and catches a broken resize."""

import subprocess
import sys

import numpy as np

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
