"""``cresize check``: the verification matrix, its table, JSON and exit status."""

import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import cresize
from cresize import _check, _tables
from helpers.cases import shifted_transpose
from helpers.imports import BROKEN, import_raises

ROOT = Path(__file__).resolve().parents[1]


def test_quick_matrix_passes_and_writes_json(tmp_path, capsys):
    path = tmp_path / "check.json"
    assert (
        _check.main(
            [
                "--quick",
                "--modes",
                "linear,area",
                "--no-torch",
                "--threads",
                "1",
                "--json",
                str(path),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "0 failed" in printed and "FAIL" not in printed
    report = json.loads(path.read_text())
    rows = report["results"]
    quick = [c for c in _check.CASES if c[5]]
    # bilinear: 2 align_corners x 2 antialias, area: 1; two dtypes each
    assert len(rows) == (4 + 1) * len(quick) * 2 and report["failed"] == 0
    assert {r["mode"] for r in rows} == {"bilinear", "area"}
    assert {r["case"] for r in rows} == {c[0] for c in quick}
    for r in rows:
        tol = 1e-12 if r["dtype"] == "float64" else 2e-6
        assert r["passed"] and r["adjoint"] <= tol and r["reference"] <= tol
        assert r["torch"] is None
        assert (r["gradient"] is None) == (r["dtype"] == "float32")
        if r["gradient"] is not None:
            assert r["gradient"] <= 1e-8
    # every printed row carries its configuration
    assert sum(line.endswith(" ok") for line in printed.splitlines()) == len(rows)


def test_seed_draws_other_inputs_and_is_recorded(tmp_path, capsys):
    """``--seed``: the checks run on other random inputs (other error figures), the seed
    is in the summary and the JSON, and a bad one is refused before the run."""
    reports = {}
    for seed in (0, 7):
        path = tmp_path / f"check-{seed}.json"
        argv = ["--quick", "--modes", "bicubic", "--no-torch", "--threads", "1"]
        assert _check.main([*argv, "--seed", str(seed), "--json", str(path)]) == 0
        assert capsys.readouterr().out.splitlines()[-1].endswith(f", seed {seed}")
        reports[seed] = json.loads(path.read_text())
        assert reports[seed]["seed"] == seed
    pairs = list(zip(reports[0]["results"], reports[7]["results"]))
    assert all(a["case"] == b["case"] and a["dtype"] == b["dtype"] for a, b in pairs)
    assert sum(a["adjoint"] != b["adjoint"] for a, b in pairs) > len(pairs) // 2
    assert sum(a["reference"] != b["reference"] for a, b in pairs) > len(pairs) // 2
    # the default is seed 0, as before
    assert _check.run_one(_check.CASES[8], "bicubic", False, False, np.float64) == (
        _check.run_one(_check.CASES[8], "bicubic", False, False, np.float64, seed=0)
    )
    assert _check.main(["--seed", "-1"]) == 2
    assert (
        "--seed must be an int >= 0 and < 2**53 (9007199254740992); got -1"
        in capsys.readouterr().err
    )
    assert _check.main(["--seed", str(2**53)]) == 2  # recorded in the --json report
    assert "--seed must be an int >= 0 and < 2**53 (9007199254740992); got 9007199254740992" in (
        capsys.readouterr().err
    )


def test_off_by_one_backward_fails_the_check(monkeypatch, capsys):
    cresize.clear_cache()  # plans made before the patch keep their correct backward tables
    monkeypatch.setattr(_tables.Taps, "transpose", shifted_transpose(_tables.Taps.transpose))
    monkeypatch.setattr(cresize._plan, "_CACHE", cresize._plan._Cache(0))  # no plan outlives it
    assert (
        _check.main(
            ["--quick", "--modes", "bicubic", "--no-torch", "--failures-only", "--threads", "1"]
        )
        == 1
    )
    printed = capsys.readouterr().out
    assert "FAIL bicubic" in printed and "adjoint error" in printed
    assert "reference error" in printed and "gradient error" in printed


def test_crash_is_a_failed_row_not_a_crash(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("kernel exploded")

    monkeypatch.setattr(cresize, "resize_backward", broken)
    case = _check.CASES[0]
    row = _check.run_one(case, "bilinear", False, False, np.float64)
    assert not row["passed"] and "kernel exploded" in row["message"]
    assert row["adjoint"] is None and row["gradient"] is None


def test_option_combinations_cover_every_allowed_pair():
    combos = {m: _check.option_combinations(m) for m in cresize.MODES}
    assert sum(len(c) for c in combos.values()) == 15
    for mode, pairs in combos.items():
        for align_corners, antialias in pairs:
            cresize.weights(5, 3, mode=mode, align_corners=align_corners, antialias=antialias)
    assert (True, True) in combos["lanczos3"] and combos["area"] == [(False, False)]


def test_bad_arguments_exit_2(capsys):
    assert _check.main(["--modes", "bilinear,box"]) == 2
    assert "unknown mode 'box'" in capsys.readouterr().err
    assert _check.main(["--modes", "lanczos"]) == 2
    assert "unknown mode 'lanczos'; choose from " in (err := capsys.readouterr().err)
    assert err.rstrip().endswith("(did you mean 'lanczos3'?)")
    assert _check.main(["--frobnicate"]) == 2
    assert "unrecognized arguments: --frobnicate" in capsys.readouterr().err
    # the option as the user gave it, and what it takes there (None is no value of it)
    assert _check.main(["--threads", "0"]) == 2
    assert capsys.readouterr().err == (
        "cresize check: --threads must be a positive int, or a negative int counted back "
        "from the maximum (-1 = all); got 0\n"
    )
    # not an int: the same words, not argparse's "invalid int value: '2.5'"
    for text in ("2.5", "True", "two"):
        assert _check.main(["--threads", text]) == 2
        assert capsys.readouterr().err == (
            "cresize check: --threads must be a positive int, or a negative int counted "
            f"back from the maximum (-1 = all); got {text!r}\n"
        )
    assert _check.main(["--threads", "5000"]) == 2
    assert capsys.readouterr().err == "cresize check: --threads must be at most 4096; got 5000\n"


def test_json_into_a_missing_folder_is_refused_before_the_run(tmp_path, monkeypatch, capsys):
    # It ran the whole matrix, then ended in a FileNotFoundError traceback.
    ran = []
    monkeypatch.setattr(_check, "run_one", lambda *a, **k: ran.append(a) or {})
    path = tmp_path / "missing" / "out.json"
    assert _check.main(["--quick", "--no-torch", "--json", str(path)]) == 2
    assert f"--json: no such folder: {tmp_path / 'missing'}" in capsys.readouterr().err
    assert ran == []


def test_json_path_that_cannot_be_written_is_refused_before_the_run(tmp_path, monkeypatch, capsys):
    # A folder ran the whole matrix, then ended in an IsADirectoryError traceback.
    ran = []
    monkeypatch.setattr(_check, "run_one", lambda *a, **k: ran.append(a) or {})
    assert _check.main(["--quick", "--no-torch", "--json", str(tmp_path)]) == 2
    assert f"--json: {tmp_path} is a folder; give a file name" in capsys.readouterr().err
    monkeypatch.setattr(_check.os, "access", lambda path, mode: False)
    assert _check.main(["--quick", "--no-torch", "--json", str(tmp_path / "r.json")]) == 2
    assert f"--json: cannot write {tmp_path / 'r.json'} (no permission)" in (
        capsys.readouterr().err
    )
    assert _check.main(["--quick", "--no-torch", "--json", ""]) == 2  # was passed over
    assert "--json: give a file name; got an empty one" in capsys.readouterr().err
    assert ran == []


def test_json_that_fails_to_write_after_the_run_is_a_message(tmp_path, monkeypatch, capsys):
    def full(path, report):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_check, "write_json", full)
    path = tmp_path / "r.json"
    # a failure of the run (1), not of its usage (2); the OS's reason, as cresize demo says it
    assert _check.main(["--quick", "--modes", "area", "--no-torch", "--json", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"cresize check: --json: cannot write {path}: No space left on device\n"
    assert "0 failed" in captured.out  # the table too


def test_a_report_that_fails_to_write_leaves_the_earlier_one_whole(tmp_path, monkeypatch):
    # write_json opened the path for writing (emptying it), then wrote: a failure on
    # the way (a full disk, a value JSON has no form for) lost the earlier report and
    # left part of the new one. Now the text is written beside it and renamed over it.
    path = tmp_path / "r.json"
    path.write_text('{"failed": 0}')
    with pytest.raises(TypeError):
        _check.write_json(path, {"failed": 1, "results": [{"error": object()}]})
    assert path.read_text() == '{"failed": 0}'

    def full(src, dst):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(_check.os, "replace", full)
        with pytest.raises(OSError, match="No space left"):
            _check.write_json(path, {"failed": 1})
    assert path.read_text() == '{"failed": 0}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]  # no partial file
    # replaced: its mode kept, a symbolic link written through (POSIX: Windows has no
    # permission bits but read-only, and a symbolic link needs a privilege there), exact
    # numbers
    posix = os.name == "posix"
    link = tmp_path / "link.json"
    if posix:
        path.chmod(0o640)
        link.symlink_to(path)
    report = {"seed": 2**64 + 1, "error": float(np.float32(0.1)), "nan": float("nan")}
    _check.write_json(link if posix else path, report)
    assert not posix or (link.is_symlink() and (path.stat().st_mode & 0o777) == 0o640)
    assert json.loads(path.read_text()) == {**report, "nan": None}
    assert np.float32(json.loads(path.read_text())["error"]) == np.float32(0.1)
    names = ["link.json", "r.json"] if posix else ["r.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == names
    # a writable report in a folder where no file can be made: refused before the run
    access = os.access
    monkeypatch.setattr(_check.os, "access", lambda p, m: p != str(tmp_path) and access(p, m))
    with pytest.raises(ValueError, match=r"cannot write .* \(no permission to make a file beside"):
        _check.json_target(str(link if posix else path))


class ClosedPipe:
    """A stdout whose reader has gone (``cresize check --json r.json | head -1``)."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        pass


def test_json_is_written_before_the_table(tmp_path, monkeypatch):
    # The table came first: a reader that stopped early ended the command with
    # BrokenPipeError as it printed (exit status 141), before the report was written.
    path = tmp_path / "r.json"
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    with pytest.raises(BrokenPipeError):
        _check.main(["--quick", "--modes", "area", "--no-torch", "--json", str(path)])
    assert json.loads(path.read_text())["failed"] == 0


def test_json_report_is_what_the_guide_says(tmp_path):
    """Every key of the report and of its rows is named in docs/guide/gradients.md
    (the report was not described there at all), and the same command writes the same
    bytes."""
    guide = (ROOT / "docs" / "guide" / "gradients.md").read_text()
    section = guide[guide.index("a CI job reads the `--json` report") :]
    section = section[: section.index("###")]
    argv = ["--quick", "--modes", "nearest", "--no-torch", "--layouts", "nchw"]
    reports = []
    for name in ("a.json", "b.json"):
        assert _check.main([*argv, "--json", str(tmp_path / name)]) == 0
        reports.append((tmp_path / name).read_bytes())
    assert reports[0] == reports[1]
    report = json.loads(reports[0])
    keys = set(report) | {k for row in report["results"] for k in row}
    assert keys == set(re.findall(r'"(\w+)"', section.split("per row")[0]))


def test_json_is_strict_without_nan_or_infinity(tmp_path, monkeypatch):
    """A port whose values overflow measures inf: the report wrote ``Infinity``, which
    JSON (RFC 8259) has not, and a strict reader (jq, serde_json) refuses the file."""
    real = _check.run_one

    def overflowing(*args, **kwargs):
        row = real(*args, **kwargs)
        return dict(row, adjoint=float("inf"), reference=float("nan"), passed=False)

    monkeypatch.setattr(_check, "run_one", overflowing)
    path = tmp_path / "r.json"
    argv = ["--quick", "--modes", "area", "--no-torch", "--dtypes", "float64"]
    assert _check.main([*argv, "--json", str(path)]) == 1

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    report = json.loads(path.read_text(), parse_constant=refuse)
    assert report["failed"] == len(report["results"]) > 0
    assert all(r["adjoint"] is None and r["reference"] is None for r in report["results"])
    assert all(r["gradient"] < 1e-8 for r in report["results"])  # finite values stay


NAN_FORWARD = """
import numpy as np
import cresize


def resize(x, size=None, **options):
    y = cresize.resize(x, size, **options)
    y.flat[0] = np.nan
    return y
"""


def test_a_nan_result_is_reported_with_the_rows_tolerance(implementation_folder, capsys):
    # Each check runs with rtol=inf to measure; a NaN fails even that, and the row said
    # "relative nan > rtol inf" and "1 of 96 values off by more than inf".
    (implementation_folder / "nan_forward.py").write_text(NAN_FORWARD)
    sys.modules.pop("nan_forward", None)
    try:
        argv = ["--quick", "--modes", "area", "--dtypes", "float64", "--forward"]
        assert _check.main([*argv, "nan_forward:resize", "--failures-only"]) == 1
    finally:
        sys.modules.pop("nan_forward", None)
    fails = [line for line in capsys.readouterr().out.splitlines() if line.startswith("FAIL")]
    assert len(fails) == sum(c[5] for c in _check.CASES)
    for line in fails:
        assert "rtol inf" not in line and "more than inf" not in line
        assert "relative nan > rtol 1.0e-12" in line  # adjoint and reference
        assert "relative nan > rtol 1.0e-08" in line  # finite differences
        assert re.search(r"1 of \d+ values off by more than [\d.e-]+ or NaN \(1 NaN\)", line)


def test_torch_column(capsys):
    torch = pytest.importorskip("torch")
    rows = [
        _check.run_one(case, mode, ac, aa, dtype, torch, num_threads=1)
        for case in _check.CASES
        if case[0] in ("odd-nchw", "3d-volume")
        for mode, ac, aa in (
            ("bilinear", True, False),
            ("lanczos3", False, True),
            ("lanczos3", False, False),
            ("area", False, False),
        )
        for dtype in (np.float64, np.float32)
    ]
    for r in rows:
        assert r["passed"], r["message"]
        nchw = r["case"] == "odd-nchw"
        # PyTorch has no plain lanczos3, and its lanczos (antialias) is 2-D only
        has_torch = not (r["mode"] == "lanczos3" and (not r["antialias"] or not nchw))
        assert (r["torch"] is not None) == has_torch, r
        if has_torch:
            assert r["torch"] <= (1e-12 if r["dtype"] == "float64" else 2e-6)


def test_console_entry_point():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(cresize.__path__[0]))
    command = [
        sys.executable,
        "-m",
        "cresize",
        "check",
        "--quick",
        "--modes",
        "nearest",
        "--no-torch",
        "--threads",
        "1",
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "12 configurations, 0 failed" in done.stdout


def _perturbed_gradient(torch, monkeypatch, delta):
    """``F.interpolate`` whose input gradient is off by ``delta`` at its first value."""
    original = torch.nn.functional.interpolate

    class Off(torch.autograd.Function):
        @staticmethod
        def forward(ctx, y):
            return y.clone()

        @staticmethod
        def backward(ctx, grad):
            grad = grad.clone()
            grad.view(-1)[0] += delta
            return grad

    monkeypatch.setattr(
        torch.nn.functional, "interpolate", lambda *a, **k: Off.apply(original(*a, **k))
    )


# PyTorch's 2-D nearest reads o where cresize reads floor(o / 1.05) (4 of 5 outputs)
NEAREST_INDEX_CASE = ("nearest-1.05", (2, 5, 5), None, (1.05, 1.05), None, True)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_torch_column_catches_a_wrong_nearest_gradient(monkeypatch, mode):
    # Any deviation from PyTorch in the nearest modes was tolerated (marked *,
    # "ok"): a PyTorch gradient off by 0.5 passed.
    torch = pytest.importorskip("torch")
    case = next(c for c in _check.CASES if c[0] == "odd-nchw")
    for dtype in (np.float64, np.float32):
        assert _check.run_one(case, mode, False, False, dtype, torch, num_threads=1)["passed"]
    _perturbed_gradient(torch, monkeypatch, 0.5)
    for c in (case, NEAREST_INDEX_CASE):
        row = _check.run_one(c, mode, False, False, np.float64, torch, num_threads=1)
        assert not row["passed"] and not row["torch_tolerated"], row
        assert "torch deviation" in row["message"] and "nearest indices" in row["message"]


def test_torch_column_tolerates_pytorch_nearest_indices_only():
    torch = pytest.importorskip("torch")
    row = _check.run_one(NEAREST_INDEX_CASE, "nearest", False, False, np.float64, torch, 1)
    assert row["passed"] and row["torch_tolerated"] and row["torch"] > 0.1, row


def test_torch_comparison_pairs_a_size_tuple_with_axes_given_out_of_order():
    """``axes=(2, 1)``: ``size[0]`` is axis 2's length (cresize was called with the axes
    sorted and the size as given, which resized the wrong axes and crashed)."""
    torch = pytest.importorskip("torch")
    for options in (dict(size=(3, 5)), dict(scale_factor=(2.0, 0.5))):
        assert _check.torch_deviation(torch, (2, 4, 6), axes=(2, 1), **options) < 1e-12
        offset, value, gradient = _check.torch_nearest_deviation(
            torch, (2, 4, 6), mode="nearest", axes=(2, 1), **options
        )
        assert offset == 0 and value < 1e-12 and gradient < 1e-12


def test_torch_column_names_a_pytorch_gradient_that_is_not_its_forwards_adjoint():
    # PyTorch 2.13's 1-D nearest: 5 -> 5 at f = 1.05 reads floor(o / f) forward and o
    # backward. The row said only "not explained by PyTorch's float32 nearest indices".
    torch = pytest.importorskip("torch")
    case = ("keep-length", (2, 5), None, (1.05,), (1,), True)
    row = _check.run_one(case, "nearest", False, False, np.float64, torch, num_threads=1)
    assert row["adjoint"] <= 1e-12 and row["reference"] <= 1e-12  # cresize is right
    # The PyTorch fact, seen directly (so that the row is checked whichever way a PyTorch
    # release goes): its forward's matrix, from the identity, against its backward's
    # (the reverse-mode Jacobian).
    F = torch.nn.functional

    def forward(t):
        return F.interpolate(t[None, None], scale_factor=1.05, mode="nearest")[0, 0]

    eye = torch.eye(5, dtype=torch.float64)[:, None]  # 5 inputs of length 5
    matrix = F.interpolate(eye, scale_factor=1.05, mode="nearest")[:, 0].T  # (out, in)
    jacobian = torch.autograd.functional.jacobian(forward, torch.zeros(5, dtype=torch.float64))
    if torch.equal(matrix, jacobian):
        assert row["passed"], row
    else:  # PyTorch 2.13.0
        assert not row["passed"] and not row["torch_tolerated"], row
        assert "PyTorch's gradient is not the adjoint of its own forward" in row["message"]
        assert "values" not in row["message"] and "indices up to" not in row["message"]


@pytest.mark.parametrize("exc", BROKEN)
def test_a_torch_that_fails_to_import_is_named_not_skipped(monkeypatch, capsys, exc):
    # An OSError ended the command in a traceback; an ImportError other than "no torch"
    # (a missing shared library, a missing dependency) was taken as "not installed" and
    # the comparison was skipped without a word.
    ran = []
    monkeypatch.setattr(_check, "run_one", lambda *a, **k: ran.append(a) or {})
    import_raises(monkeypatch, "torch", exc)
    assert _check.main(["--quick", "--modes", "nearest"]) == 1
    err = capsys.readouterr().err
    assert f"torch is installed but fails to import: {type(exc).__name__}: {exc}" in err
    assert "--no-torch" in err
    assert ran == []  # refused before the run


def test_a_missing_torch_skips_the_comparison(monkeypatch, capsys):
    import_raises(
        monkeypatch, "torch", ModuleNotFoundError("No module named 'torch'", name="torch")
    )
    assert _check.main(["--quick", "--modes", "nearest", "--threads", "1"]) == 0
    captured = capsys.readouterr()
    assert "torch not compared (not installed)" in captured.out and captured.err == ""
    # --no-torch never imports it, so a broken install does not stop it
    import_raises(monkeypatch, "torch", OSError("broken"))
    assert _check.main(["--quick", "--modes", "nearest", "--no-torch", "--threads", "1"]) == 0
    assert "torch not compared (--no-torch)" in capsys.readouterr().out


BROKEN_BACKWARD = """
import cresize

resize = cresize.resize


def backward(g, input_shape, **options):
    if options["mode"] in ("bilinear", "bicubic", "lanczos3"):
        options["align_corners"] = False  # the port's mistake: ignores align_corners
    return cresize.resize_backward(g, input_shape, **options)
"""


@pytest.fixture
def implementation_folder(tmp_path, monkeypatch):
    """tmp_path as the current folder, holding the module ``port_under_test``."""
    (tmp_path / "port_under_test.py").write_text(BROKEN_BACKWARD)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    monkeypatch.delitem(sys.modules, "port_under_test", raising=False)
    yield tmp_path
    sys.modules.pop("port_under_test", None)


def test_forward_and_backward_options_check_another_implementation(implementation_folder, capsys):
    path = implementation_folder / "check.json"
    argv = ["--quick", "--modes", "bilinear", "--failures-only", "--json", str(path)]
    argv += ["--forward", "port_under_test:resize", "--backward", "port_under_test:backward"]
    assert _check.main(argv) == 1
    out = capsys.readouterr().out
    assert "torch not compared (--forward/--backward given)" in out
    assert "checked port_under_test:resize and port_under_test:backward" in out
    fails = [line for line in out.splitlines() if line.startswith("FAIL ")]
    # align_corners=False rows are right; every align_corners=True row fails, and says
    # which values are off and what the port computed
    assert fails and all(" ac=1 " in line for line in fails)
    assert all("backward deviates from the dense reference" in line for line in fails)
    assert all("it is what align_corners=False gives" in line for line in fails)
    record = json.loads(path.read_text())
    assert record["forward"] == "port_under_test:resize" and record["torch"] is None
    assert record["backward"] == "port_under_test:backward"
    assert record["failed"] == len(fails)


def test_forward_option_with_a_correct_implementation_passes(implementation_folder, capsys):
    argv = ["--quick", "--modes", "area,nearest", "--forward", "port_under_test:resize"]
    argv += ["--backward", "port_under_test:backward"]  # right for modes without corners
    assert _check.main(argv) == 0
    assert "0 failed" in capsys.readouterr().out


@pytest.mark.parametrize(
    "value, problem",
    [
        ("port_under_test", "--backward: expected MODULE:NAME (e.g. mymodule:resize); got"),
        ("port_under_test:nope", "--backward: 'port_under_test' has no attribute 'nope'"),
        ("no_such_module_xyz:f", "--backward: cannot import 'no_such_module_xyz'"),
        ("port_under_test:cresize", "--backward: port_under_test:cresize is not callable"),
        # a file name: "No module named 'port_under_test.py'; ... is not a package"
        (
            "port_under_test.py:backward",
            "--backward: MODULE is a module's name, not its file: port_under_test:backward, "
            "not port_under_test.py:backward",
        ),
        ("sub/port.py:f", "its file: sub.port:f, not sub/port.py:f"),
    ],
)
def test_bad_implementation_exits_2_naming_the_option(
    implementation_folder, capsys, value, problem
):
    assert _check.main(["--quick", "--backward", value]) == 2
    assert problem in capsys.readouterr().err


def test_threads_with_both_implementations_given_is_a_usage_error(implementation_folder, capsys):
    # --threads sets cresize's calls; with both replaced it was passed over without a word
    argv = ["--quick", "--modes", "area", "--threads", "1"]
    both = ["--forward", "port_under_test:resize", "--backward", "port_under_test:backward"]
    assert _check.main([*argv, *both]) == 2
    assert "--threads sets num_threads of cresize's calls; with --forward and --backward" in (
        capsys.readouterr().err
    )
    assert _check.main([*argv, *both[:2]]) == 0  # cresize's backward takes it


@pytest.mark.parametrize(
    "source, said",
    [
        ("def resize(:\n", "SyntaxError: "),
        ("import numpy\nraise RuntimeError('no GPU')\n", "RuntimeError: no GPU ("),
    ],
)
def test_a_module_that_fails_as_it_runs_exits_2_naming_it(
    implementation_folder, monkeypatch, capsys, source, said
):
    # It was a traceback with exit status 1 (only an ImportError was caught), where the
    # docs promise exit status 2 and a message for "a module that does not import".
    (implementation_folder / "broken_port.py").write_text(source)
    monkeypatch.delitem(sys.modules, "broken_port", raising=False)
    ran = []
    monkeypatch.setattr(_check, "run_one", lambda *a, **k: ran.append(a) or {})
    assert _check.main(["--quick", "--forward", "broken_port:resize"]) == 2
    err = capsys.readouterr().err
    assert f"--forward: cannot import 'broken_port': {said}" in err
    assert "broken_port.py" in err and "line" in err and "Traceback" not in err
    assert ran == []


FLOAT32_INSIDE = """
import numpy as np
import cresize


def resize(x, size=None, **options):  # computes in float32 whatever it is given
    return cresize.resize(x.astype(np.float32), size, **options).astype(x.dtype)


def resize_backward(g, input_shape, **options):
    return cresize.resize_backward(g.astype(np.float32), input_shape, **options).astype(g.dtype)
"""


FLOAT64_ONLY = """
import numpy as np
import cresize


def resize(x, size=None, **options):  # a port that computes and returns float64 only
    return cresize.resize(x.astype(np.float64), size, **options)


def resize_backward(g, input_shape, **options):
    return cresize.resize_backward(g.astype(np.float64), input_shape, **options)
"""


def test_a_float64_only_implementation_is_pointed_to_dtypes(implementation_folder, capsys):
    """Every float32 row failed with "returned dtype float64" and nothing said what to do."""
    (implementation_folder / "float64_only.py").write_text(FLOAT64_ONLY)
    sys.modules.pop("float64_only", None)
    hint = "to check float64 only, pass --dtypes float64"
    argv = ["--quick", "--modes", "bilinear"]
    argv += ["--forward", "float64_only:resize", "--backward", "float64_only:resize_backward"]
    try:
        assert _check.main(argv) == 1
        out = capsys.readouterr().out
        assert "returned dtype float64; expected float32" in out and hint in out
        assert _check.main([*argv, "--dtypes", "float64"]) == 0
        assert hint not in capsys.readouterr().out
    finally:
        sys.modules.pop("float64_only", None)


def test_dtypes_and_rtol_options(implementation_folder, capsys):
    (implementation_folder / "float32_inside.py").write_text(FLOAT32_INSIDE)
    sys.modules.pop("float32_inside", None)
    path = implementation_folder / "check.json"
    argv = ["--quick", "--modes", "bicubic", "--dtypes", "float64", "--json", str(path)]
    argv += ["--forward", "float32_inside:resize", "--backward", "float32_inside:resize_backward"]
    try:
        assert _check.main(argv) == 1  # float32 arithmetic is not float64's 1e-12
        out = capsys.readouterr().out
        record = json.loads(path.read_text())
        assert {r["dtype"] for r in record["results"]} == {"float64"}
        assert record["failed"] == len(record["results"]) and record["rtol"] is None
        assert "reference error" in out and "gradient error" in out
        assert _check.main([*argv, "--rtol", "1e-5"]) == 0  # every check, FD included
        assert "0 failed" in (out := capsys.readouterr().out)
        assert "rtol 1e-05 for every check" in out
        assert json.loads(path.read_text())["rtol"] == 1e-5
    finally:
        sys.modules.pop("float32_inside", None)
    for bad, said in [
        (
            ["--dtypes", "float16"],
            "--dtypes: unknown dtype 'float16'; choose from float64, float32",
        ),
        (["--rtol", "0"], "--rtol must be > 0; got 0.0"),
        (["--rtol", "nan"], "--rtol must be finite and > 0; got nan"),
        # every check would pass, whatever it measured: exit status 0 for any port
        (["--rtol", "inf"], "--rtol must be finite and > 0; got inf"),
    ]:
        assert _check.main(["--quick", *bad]) == 2
        assert said in capsys.readouterr().err


NCHW_ONLY = """
import cresize


def _nchw(a, axes):
    if a.ndim != 4 or tuple(axes or (2, 3)) != (2, 3):
        raise ValueError(f"takes (N, C, H, W) arrays only; got shape {a.shape}, axes={axes}")


def resize(x, size=None, *, axes=None, **options):
    _nchw(x, axes)
    return cresize.resize(x, size, **options)


def resize_backward(g, input_shape, *, axes=None, **options):
    _nchw(g, axes)
    return cresize.resize_backward(g, input_shape, **options)
"""


def test_layouts_option_checks_an_nchw_only_implementation(implementation_folder, capsys):
    """--layouts nchw: every case that resizes two axes runs as (N, C, H, W), resized
    along H and W; an implementation that takes nothing else then fails no row."""
    (implementation_folder / "nchw_only.py").write_text(NCHW_ONLY)
    sys.modules.pop("nchw_only", None)
    path = implementation_folder / "check.json"
    argv = ["--modes", "bicubic", "--dtypes", "float64", "--json", str(path)]
    argv += ["--forward", "nchw_only:resize", "--backward", "nchw_only:resize_backward"]
    try:
        assert _check.main(argv) == 1  # without it: every other layout's row fails
        out = capsys.readouterr().out
        record = json.loads(path.read_text())
        failed = {r["case"] for r in record["results"] if not r["passed"]}
        assert failed == {c[0] for c in _check.CASES if len(c[1]) != 4 or c[0] == "3d-volume"}
        assert "takes (N, C, H, W) arrays only" in out
        assert record["layouts"] is None and record["left_out"] == []
        assert _check.main([*argv, "--layouts", "NCHW"]) == 0
        out = capsys.readouterr().out
        record = json.loads(path.read_text())
        two_axes = ["1px-input", "1px-output", "identity", "identity-one-axis"]
        two_axes += ["extreme-up-3to41", "odd-nchw", "scale-1.7x0.45", "scale-1.5", "hwc"]
        left_out = ["1d-up-odd", "1d-down-odd", "extreme-down-97to3", "3d-volume"]
        assert record["layouts"] == ["nchw"] and record["left_out"] == left_out
        assert "layouts nchw (left out, fitting none: " + ", ".join(left_out) + ")" in out
        rows = record["results"]
        assert [r["case"] for r in rows] == two_axes * 4  # 2 align_corners x 2 antialias
        assert all(r["passed"] and r["layout"] == "nchw" and len(r["shape"]) == 4 for r in rows)
        hwc = next(r for r in rows if r["case"] == "hwc")
        assert hwc["shape"] == [1, 3, 6, 5] and hwc["size"] == [4, 9]
        assert "hwc nchw" in out  # the table names each row's layout
    finally:
        sys.modules.pop("nchw_only", None)


def test_layouts_keep_the_resize_and_move_its_axes():
    """in_layout: the resized lengths and size/scale_factor kept, the resized axes where
    the layout's d/h/w are (axes None when they are the last), the rest folded into n, c;
    and cresize's own matrix passes in every layout."""
    cases = {c[0]: c for c in _check.CASES}
    assert _check.in_layout(cases["hwc"], "nchw") == (
        "hwc",
        (1, 3, 6, 5),
        (4, 9),
        None,
        None,
        False,
    )
    assert _check.in_layout(cases["hwc"], "nhwc")[1:5] == ((1, 6, 5, 3), (4, 9), None, (1, 2))
    assert _check.in_layout(cases["1px-output"], "nchw")[1] == (1, 1, 5, 7)
    assert _check.in_layout(cases["odd-nchw"], "nchw") == cases["odd-nchw"]
    assert _check.in_layout(cases["extreme-down-97to3"], "ncw")[1:5] == (
        (2, 3, 97),
        (3,),
        None,
        None,
    )
    assert _check.in_layout(cases["3d-volume"], "ndhwc")[1:5] == (
        (1, 5, 6, 7, 1),
        (3, 8, 4),
        None,
        (1, 2, 3),
    )
    assert _check.in_layout(cases["scale-1.5"], "nhwc")[1:5] == ((1, 6, 5, 4), None, 1.5, (1, 2))
    assert _check.in_layout(cases["1d-up-odd"], "nchw") is None
    assert _check.in_layout(cases["3d-volume"], "nchw") is None
    for case in _check.CASES:  # each case fits exactly one channels-first layout
        fits = [l for l in ("ncw", "nchw", "ncdhw") if _check.in_layout(case, l)]
        assert len(fits) == 1
    for layout in _check.LAYOUTS:
        for case in _check.CASES:
            given = _check.in_layout(case, layout)
            if given is not None:
                row = _check.run_one(given, "bicubic", True, True, np.float64, num_threads=1)
                assert row["passed"], (layout, row)


def test_bad_layouts_exit_2(capsys):
    for bad in ("nchw,nhcw", "", "nchw,"):
        assert _check.main(["--quick", "--layouts", bad]) == 2
        assert "--layouts: unknown layout " in (err := capsys.readouterr().err)
        assert "choose from ncw, nchw, ncdhw, nwc, nhwc, ndhwc" in err


def test_layouts_keep_the_default_axes_of_a_single_size():
    """in_layout leaves ``axes`` out only where resize's own default (``_spec``) names
    the layout's spatial axes: a single ``size`` resizes the last two axes, not the last
    one or three, so a 1-D or 3-D case given a single size keeps its axes."""
    one = ("one", (5,), 3, None, None, True)
    assert _check.in_layout(one, "ncw") == ("one", (1, 1, 5), 3, None, (2,), True)
    three = ("three", (4, 5, 6), 3, None, (0, 1, 2), True)
    assert _check.in_layout(three, "ncdhw")[1:5] == ((1, 1, 4, 5, 6), 3, None, (2, 3, 4))
    for case, layout in ((one, "ncw"), (three, "ncdhw")):
        _, shape, size, _, axes, _ = _check.in_layout(case, layout)
        assert cresize.resize(np.ones(shape), size, axes=axes).shape[2:] == (3,) * len(case[1])


def test_torch_comparison_takes_mode_aliases():
    """The PyTorch comparison decides what PyTorch can express from the canonical mode:
    an alias ('cubic', 'linear') is compared exactly as its canonical name."""
    torch = pytest.importorskip("torch")
    for alias, canonical, shape, size in (
        ("cubic", "bicubic", (2, 7), (12,)),  # PyTorch has no 1-D bicubic: None for both
        ("cubic", "bicubic", (1, 2, 5, 6), (7, 3)),
        ("linear", "bilinear", (1, 2, 5, 6), (7, 3)),
    ):
        expected = _check.torch_deviation(torch, shape, size, mode=canonical, num_threads=1)
        got = _check.torch_deviation(torch, shape, size, mode=alias, num_threads=1)
        assert got == expected, (alias, shape)


def test_torch_comparison_takes_the_options_as_spec_normalises_them(monkeypatch):
    """``_torch_run`` normalised the options with ``_spec.forward`` and again in
    ``reference_matrices``, but gave PyTorch the values as passed: ``align_corners=
    np.True_``, which ``resize`` takes, was a TypeError of ``upsample_bilinear2d``."""
    torch = pytest.importorskip("torch")

    def again(*args, **kwargs):
        raise AssertionError("the dense matrices are the spec's: no second normalisation")

    monkeypatch.setattr(_check.testing, "reference_matrices", again)
    for options in (dict(align_corners=np.True_), dict(antialias=np.True_), {}):
        expected = _check.torch_deviation(
            torch, (1, 2, 9, 8), (4, 3), num_threads=1, **{k: bool(v) for k, v in options.items()}
        )
        got = _check.torch_deviation(torch, (1, 2, 9, 8), (4, 3), num_threads=1, **options)
        assert got == expected < 1e-12, options
    run = _check.run_one(_check.CASES[0], "bilinear", True, False, np.float32, torch, 1)
    assert run["passed"] and run["torch"] is not None, run  # float32: the slack's lengths


def test_two_runs_print_the_same_and_the_time_only_with_time(monkeypatch, capsys):
    # The summary line held the run's wall time ("12 configurations, 0 failed, 0.4 s;
    # ..."): the only thing in stdout that differed between two runs of one command,
    # whose --json report is the same bytes.
    def run(*options, seconds):
        clock = iter([100.0, 100.0 + seconds])
        monkeypatch.setattr(_check, "time", types.SimpleNamespace(perf_counter=lambda: next(clock)))
        argv = ["--quick", "--modes", "nearest", "--no-torch", "--threads", "1", *options]
        assert _check.main(argv) == 0
        return capsys.readouterr()

    first, second = run(seconds=3.4), run(seconds=71.25)
    assert first.out == second.out and first.err == second.err == ""
    assert "12 configurations, 0 failed; cresize " in first.out
    summary = run("--time", seconds=3.4).out.splitlines()[-1]
    assert summary.startswith("12 configurations, 0 failed, 3.4 s; cresize ")
