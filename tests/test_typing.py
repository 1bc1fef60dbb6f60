"""cresize's annotations and stubs as a user's type checker sees them.

``mypy --strict`` checks the user programs of tests/typing/ (``assert_type`` fixes
the types they get; ``# type: ignore`` marks the calls that must be refused) against
the cresize being tested. Skipped, with the reason, where mypy is not installed.
"""

import os
import pathlib
import site
import subprocess
import sys

import pytest

import cresize

pytest.importorskip("mypy", reason="mypy is not installed (the typing tests need it)")

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


#: The folder the cresize imported here comes from.
PACKAGE_ROOT = pathlib.Path(cresize.__file__).resolve().parent.parent


def _source_tree():
    """Whether cresize is imported from a source tree (``PYTHONPATH=src``) rather than
    an installation: its folder is neither a site directory of this interpreter nor one
    added to ``sys.path`` by a ``.pth`` file (a venv over another one's packages, as
    ``.ci/run`` [4] makes). mypy finds an installed cresize itself, and given a
    site-packages folder as a path it takes every module there as the user's own."""
    site_dirs = [*site.getsitepackages(), site.getusersitepackages()]
    site_dirs += [p for p in sys.path if pathlib.Path(p).name in ("site-packages", "dist-packages")]
    return PACKAGE_ROOT not in {pathlib.Path(p).resolve() for p in site_dirs}


def _config(tmp_path):
    """A mypy configuration (``--strict``) that finds the cresize imported here."""
    config = tmp_path / "mypy.ini"
    lines = [
        "[mypy]",
        "strict = True",
        f"python_version = {sys.version_info[0]}.{sys.version_info[1]}",
    ]
    if _source_tree():
        lines.append(f"mypy_path = {PACKAGE_ROOT}")
    config.write_text("\n".join(lines) + "\n")
    return config


def _mypy(files, tmp_path, *options):
    """``mypy --strict`` on ``files`` with the cresize imported here: (stdout, exit status).

    In a child interpreter (this one's), not ``mypy.api.run``: mypy keeps its last
    build (millions of objects with the torch stubs) in module globals, which every
    later garbage collection of the session, pytest's five at its end included, walks.
    """
    config = _config(tmp_path)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            os.fspath(config),
            "--no-incremental",
            "--cache-dir",
            os.fspath(tmp_path / "cache"),
            "--no-error-summary",
            "--hide-error-context",
            *options,
            *map(os.fspath, files),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    return run.stdout + run.stderr, run.returncode


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


#: What stubtest may find on the compiled modules: Cython's own additions, the PEP 800
#: "disjoint base" mark of extension types, and PlanBase's two methods that the
#: subclass (``_plan.Plan``) provides. Anything else (a parameter renamed, added or
#: removed, a default changed, a function missing) fails.
STUBTEST_ALLOWED = r"""
cresize\._(fast|kernels)(\.\w+)?\.__(reduce|setstate)_cython__
cresize\._(fast|kernels)\.__test__
cresize\._fast\.(Direct|PlanBase)
cresize\._kernels\.Step
cresize\._fast\.PlanBase\._(run|backward_call)
"""


def test_the_stubs_of_the_compiled_modules_match_them(tmp_path):
    """mypy's stubtest: every name and signature of _fast.pyi and _kernels.pyi against
    the compiled modules (their ``binding=True`` signatures)."""
    pytest.importorskip("mypy.stubtest", reason="mypy is not installed")
    allowlist = tmp_path / "allowlist.txt"
    allowlist.write_text(STUBTEST_ALLOWED)
    config = _config(tmp_path)
    options = ["--mypy-config-file", os.fspath(config), "--allowlist", os.fspath(allowlist)]
    env = dict(os.environ)
    if _source_tree():
        env["PYTHONPATH"] = os.fspath(PACKAGE_ROOT)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "--concise",
            *options,
            "cresize._fast",
            "cresize._kernels",
        ],
        cwd=tmp_path,  # not the source tree: the stubs are found once, next to the modules
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
