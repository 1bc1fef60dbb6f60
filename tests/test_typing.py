"""cresize's annotations and stubs as a user's type checker sees them.

``mypy --strict`` checks the user programs of tests/typing/ (``assert_type`` fixes
the types they get; ``# type: ignore`` marks the calls that must be refused) against
the cresize being tested. Skipped, with the reason, where mypy is not installed.
"""

import os
import pathlib
import site
import sys

import pytest

import cresize

api = pytest.importorskip("mypy.api", reason="mypy is not installed (the typing tests need it)")

TYPING = pathlib.Path(__file__).parent / "typing"
#: Each user program and the optional packages it needs.
PROGRAMS = {
    "user_core.py": (),
    "user_dask.py": ("dask",),
    "user_image.py": ("PIL",),
    "user_torch.py": ("torch",),
}


def _installed(name):
    try:
        __import__(name)
    except Exception:
        return False
    return True


def _mypy(files, tmp_path, *options):
    """``mypy --strict`` on ``files`` with the cresize imported here: (stdout, exit status)."""
    package_root = pathlib.Path(cresize.__file__).resolve().parent.parent
    site_dirs = {
        pathlib.Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages()]
    }
    config = tmp_path / "mypy.ini"
    lines = [
        "[mypy]",
        "strict = True",
        f"python_version = {sys.version_info[0]}.{sys.version_info[1]}",
    ]
    if package_root not in site_dirs:  # a source tree (PYTHONPATH=src), not an installed wheel
        lines.append(f"mypy_path = {package_root}")
    config.write_text("\n".join(lines) + "\n")
    stdout, stderr, status = api.run(
        [
            "--config-file",
            os.fspath(config),
            "--no-incremental",
            "--cache-dir",
            os.fspath(tmp_path / "cache"),
            "--no-error-summary",
            "--hide-error-context",
            *options,
            *map(os.fspath, files),
        ]
    )
    return stdout + stderr, status


def test_user_programs_type_check(tmp_path):
    files, missing = [], []
    for name, needs in PROGRAMS.items():
        absent = [n for n in needs if not _installed(n)]
        missing += absent
        if not absent:
            files.append(TYPING / name)
    if not files:
        pytest.skip(f"the typing programs need {sorted(set(missing))}, not installed")
    report, status = _mypy(files, tmp_path)
    assert status == 0, report
