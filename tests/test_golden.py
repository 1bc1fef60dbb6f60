"""``cresize golden``: vectors cross-checked densely, deterministic, and verifiable."""

import functools
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import cresize
from cresize import _golden, _tables
from helpers import oracle
from helpers.cases import shifted_transpose


@pytest.fixture(scope="module")
def golden_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("golden")
    assert _golden.main(["--out", str(directory)]) == 0
    return directory


def load_cases(directory):
    return {
        p.stem: json.loads(p.read_text())
        for p in sorted(directory.glob("*.json"))
        if p.name != "index.json"
    }


def dense(matrices, a, transpose=False):
    for m in matrices:
        w = np.array(m["matrix"])
        a = np.moveaxis(
            np.tensordot(w.T if transpose else w, a, axes=([1], [m["axis"]])), 0, m["axis"]
        )
    return a


def results_from(cases, forward, backward, directory, dtype=None):
    """What another implementation writes: the case with output and grad_input replaced."""
    directory.mkdir()
    for name, case in cases.items():
        options = dict(
            scale_factor=case["scale_factor"],
            mode=case["mode"],
            align_corners=case["align_corners"],
            antialias=case["antialias"],
            axes=tuple(case["axes"]),
        )
        size = None if case["scale_factor"] else tuple(case["size"])
        x = np.reshape(case["input"], case["input_shape"])
        g = np.reshape(case["grad_output"], case["output_shape"])
        result = dict(
            case,
            output=forward(x, size, **options).ravel().tolist(),
            grad_input=backward(g, x.shape, **options).ravel().tolist(),
        )
        if dtype:
            result["dtype"] = dtype
        (directory / f"{name}.json").write_text(json.dumps(result))
    return directory


def test_every_mode_and_convention_is_written(golden_dir):
    cases = load_cases(golden_dir)
    index = json.loads((golden_dir / "index.json").read_text())
    assert index["schema"] == "cresize-golden/1" and sorted(index["cases"]) == sorted(cases)
    assert len(cases) == 15 * len(_golden.GEOMETRIES)
    seen = {(c["mode"], c["align_corners"], c["antialias"]) for c in cases.values()}
    assert {m for m, _, _ in seen} == set(cresize.MODES)
    assert {ac for _, ac, _ in seen} == {False, True} and {aa for *_, aa in seen} == {False, True}
    assert any(c["scale_factor"] for c in cases.values())
    for c in cases.values():
        assert c["schema"] == "cresize-golden/1" and c["axes"] == [2, 3]
        assert len(c["input"]) == len(c["grad_input"]) == np.prod(c["input_shape"])
        assert len(c["output"]) == len(c["grad_output"]) == np.prod(c["output_shape"])
        assert c["output_shape"][2:] == c["size"] and c["output_shape"][:2] == c["input_shape"][:2]


def test_expected_values_agree_with_dense_weights_and_spec_oracle(golden_dir):
    for name, c in load_cases(golden_dir).items():
        options = dict(mode=c["mode"], align_corners=c["align_corners"], antialias=c["antialias"])
        for m in c["weights"]:
            factor = None if c["scale_factor"] is None else c["scale_factor"][m["axis"] - 2]
            w = np.array(m["matrix"])
            assert w.shape == (m["out_size"], m["in_size"])
            assert m["out_size"] == c["output_shape"][m["axis"]]
            np.testing.assert_array_equal(
                w, cresize.weights(m["in_size"], m["out_size"], scale_factor=factor, **options)
            )
            np.testing.assert_allclose(
                w,
                oracle.dense_weights(m["in_size"], m["out_size"], scale_factor=factor, **options),
                rtol=0,
                atol=1e-14,
                err_msg=name,
            )
        x = np.reshape(c["input"], c["input_shape"])
        g = np.reshape(c["grad_output"], c["output_shape"])
        scale = c["scale"]
        assert (
            1e-12 * scale["output"]
            >= np.abs(dense(c["weights"], x) - np.reshape(c["output"], c["output_shape"])).max()
        ), name
        assert (
            1e-12 * scale["grad_input"]
            >= np.abs(
                dense(c["weights"], g, transpose=True)
                - np.reshape(c["grad_input"], c["input_shape"])
            ).max()
        ), name


def _options(case):
    return dict(
        scale_factor=case["scale_factor"],
        mode=case["mode"],
        align_corners=case["align_corners"],
        antialias=case["antialias"],
        axes=(2, 3),
    )


def test_files_read_as_docs_guide_golden_says(golden_dir):
    """What docs/guide/golden.md promises a reader in another language: strict JSON (no
    NaN/Infinity), shortest round-trip decimals of the exact float64 results, C order with
    the given flat-index formula, nested (out_size, in_size) matrices in axis order."""

    def refuse(token):
        raise AssertionError(f"not strict JSON: {token}")

    in_memory = {c["name"]: c for c in _golden.golden_cases(0)}
    for path in sorted(golden_dir.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        c = json.loads(text, parse_constant=refuse)
        if path.name == "index.json":
            assert set(c) == {"schema", "seed", "cases"}
            continue
        assert path.stem == c["name"]
        exact = in_memory[c["name"]]
        for key in ("input", "output", "grad_output", "grad_input"):
            assert np.array_equal(np.array(c[key]), exact[key])  # the same bits
        assert f"{c['output'][0]!r}" in text  # each number is written as repr writes it
        # value [n, c, h, w] of an (N, C, H, W) shape at ((n*C + c)*H + h)*W + w, against
        # cresize's own result on the input read that way
        big_n, big_c, big_h, big_w = c["output_shape"]
        n, ch, h, w = big_n - 1, big_c - 1, big_h // 2, big_w - 1
        x = np.zeros(c["input_shape"])
        for i in range(len(c["input"])):  # unflatten by the formula, not by NumPy
            rest, wi = divmod(i, c["input_shape"][3])
            rest, hi = divmod(rest, c["input_shape"][2])
            ni, ci = divmod(rest, c["input_shape"][1])
            x[ni, ci, hi, wi] = c["input"][i]
        size = None if c["scale_factor"] else tuple(c["size"])
        y = cresize.resize(x, size, **_options(c), num_threads=1)
        assert c["output"][((n * big_c + ch) * big_h + h) * big_w + w] == y[n, ch, h, w]
        assert [m["axis"] for m in c["weights"]] == c["axes"] == [2, 3]
        for m in c["weights"]:
            assert len(m["matrix"]) == m["out_size"]
            assert all(len(row) == m["in_size"] for row in m["matrix"])


def test_deterministic_and_seeded(golden_dir, tmp_path):
    again, other = tmp_path / "again", tmp_path / "other"
    assert _golden.main(["--out", str(again)]) == 0
    assert _golden.main(["--out", str(other), "--seed", "1"]) == 0
    for path in golden_dir.glob("*.json"):
        assert (again / path.name).read_bytes() == path.read_bytes()
    a = json.loads((golden_dir / "area-ac0-aa0-up.json").read_text())
    b = json.loads((other / "area-ac0-aa0-up.json").read_text())
    assert a["input"] != b["input"] and a["weights"] == b["weights"]


def test_verify_accepts_an_independent_dense_implementation(golden_dir, tmp_path, capsys):
    cases = load_cases(golden_dir)

    def forward(x, size, **options):
        return dense(cases_by_options[options_key(options, x.shape)]["weights"], x)

    def backward(g, shape, **options):
        return dense(cases_by_options[options_key(options, shape)]["weights"], g, True)

    def options_key(options, shape):
        return (
            options["mode"],
            options["align_corners"],
            options["antialias"],
            tuple(shape),
            str(options["scale_factor"]),
        )

    cases_by_options = {
        (
            c["mode"],
            c["align_corners"],
            c["antialias"],
            tuple(c["input_shape"]),
            str(c["scale_factor"]),
        ): c
        for c in cases.values()
    }
    results = results_from(cases, forward, backward, tmp_path / "dense")
    assert _golden.main(["--verify", str(results)]) == 0
    assert _golden.main(["--verify", str(results), "--expected", str(golden_dir)]) == 0
    printed = capsys.readouterr().out
    assert f"{len(cases)} results, 0 failed, 0 golden cases without a result" in printed


def test_verify_catches_an_off_by_one_backward(golden_dir, tmp_path, monkeypatch, capsys):
    cases = load_cases(golden_dir)
    cresize.clear_cache()  # plans made before the patch keep their correct backward tables
    monkeypatch.setattr(_tables.Taps, "transpose", shifted_transpose(_tables.Taps.transpose))
    monkeypatch.setattr(cresize._plan, "_CACHE", cresize._plan._Cache(0))  # no plan outlives it
    results = results_from(
        cases,
        functools.partial(cresize.resize, num_threads=1),
        functools.partial(cresize.resize_backward, num_threads=1),
        tmp_path / "wrong",
    )
    monkeypatch.undo()
    assert _golden.main(["--verify", str(results)]) == 1
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:-1]}
    failed = [name for name, line in lines.items() if "FAIL" in line]
    assert len(failed) > len(cases) // 2
    for name in failed:
        assert "grad_input error" in lines[name] and "output error" not in lines[name]


def test_verify_says_where_a_result_is_off(golden_dir, tmp_path, capsys):
    """A bilinear backward that drops the last input column: each failing line names
    the column, the count, the worst value's index (also flat, as the file is) and both
    values; the forward, right, is not blamed."""
    cases = {k: v for k, v in load_cases(golden_dir).items() if k.startswith("bilinear-ac0")}

    def drops_last_column(g, input_shape, **options):
        dx = cresize.resize_backward(g, input_shape, **options, num_threads=1)
        dx[..., -1] = 0
        return dx

    results = results_from(
        cases,
        functools.partial(cresize.resize, num_threads=1),
        drops_last_column,
        tmp_path / "wrong",
    )
    assert _golden.main(["--verify", str(results), "--expected", str(golden_dir)]) == 1
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:-1]}
    # 1 x 2 x 4 x 5 input: the last column is 2 * 4 values; the worst one is in it
    up = lines["bilinear-ac0-aa0-up"]
    assert "FAIL: grad_input error" in up and "output error" not in up
    assert "8 of 40 values off by more than" in up and "at [:, :, :, 4]; worst at (0, " in up
    index, flat, got, wanted = re.search(
        r"worst at (\(.*?\)) \(flat (\d+)\): (\S+) instead of (\S+)$", up
    ).groups()
    index = tuple(int(i) for i in index.strip("()").split(", "))
    case = cases["bilinear-ac0-aa0-up"]
    assert int(flat) == np.ravel_multi_index(index, case["input_shape"]) and index[3] == 4
    assert float(got) == 0.0 and float(wanted) == case["grad_input"][int(flat)] != 0


def test_verify_names_the_convention_a_result_follows(golden_dir, tmp_path, capsys):
    """A backward with align_corners flipped: each failing line says so."""
    cases = {k: v for k, v in load_cases(golden_dir).items() if k.startswith("bilinear-")}

    def flipped(g, input_shape, **options):
        options["align_corners"] = not options["align_corners"]
        return cresize.resize_backward(g, input_shape, **options, num_threads=1)

    results = results_from(cases, cresize.resize, flipped, tmp_path / "flipped")
    assert _golden.main(["--verify", str(results), "--expected", str(golden_dir)]) == 1
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:-1]}
    failing = [name for name, line in lines.items() if "FAIL" in line]
    assert len(failing) >= len(cases) - 2  # a 1-pixel case may come out the same
    for name in failing:
        flip = "align_corners=False" if cases[name]["align_corners"] else "align_corners=True"
        assert f"; it is what {flip}" in lines[name] and "output error" not in lines[name]


def test_verify_names_a_size_read_instead_of_a_scale_factor(golden_dir, tmp_path, capsys):
    """An implementation given the output lengths of a scale-frac case (it takes no scale
    factors) reads at in/out: each failing line says so."""
    cases = {k: v for k, v in load_cases(golden_dir).items() if k.endswith("-scale-frac")}

    assert {tuple(c["size"]) for c in cases.values()} == {(15, 6)}  # 10 x 9 at (1.55, 0.7)

    def forward(x, size, **options):
        return cresize.resize(x, (15, 6), **{**options, "scale_factor": None}, num_threads=1)

    def backward(g, input_shape, **options):
        options["scale_factor"] = None
        return cresize.resize_backward(g, input_shape, **options, num_threads=1)

    results = results_from(cases, forward, backward, tmp_path / "by-size")
    assert _golden.main(["--verify", str(results), "--expected", str(golden_dir)]) == 1
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:-1]}
    failing = [name for name, line in lines.items() if "FAIL" in line]
    # area and align_corners=True read at in/out (or (in-1)/(out-1)) either way
    assert set(failing) == {
        n for n, c in cases.items() if c["mode"] != "area" and not c["align_corners"]
    }
    said = "; it is what size=(15, 6) without scale_factor (read at in/out) gives"
    for name in failing:
        assert lines[name].count(said) == 2, lines[name]  # output and grad_input


def test_verify_float32_results_and_partial_results(golden_dir, tmp_path, capsys):
    cases = load_cases(golden_dir)

    def as_float32(fn):
        return lambda a, *args, **kw: fn(a.astype(np.float32), *args, **kw, num_threads=1).astype(
            np.float64
        )

    f32 = results_from(
        cases,
        as_float32(cresize.resize),
        as_float32(cresize.resize_backward),
        tmp_path / "f32",
        dtype="float32",
    )
    assert _golden.main(["--verify", str(f32)]) == 0
    assert _golden.main(["--verify", str(f32), "--rtol", "1e-12"]) == 1  # float32 is not 1e-12
    assert 'mark them "dtype"' not in capsys.readouterr().out  # --rtol was asked for
    # float32 results not marked as such: the failing lines say what they look like
    unmarked = results_from(
        cases,
        as_float32(cresize.resize),
        as_float32(cresize.resize_backward),
        tmp_path / "unmarked",
    )
    assert _golden.main(["--verify", str(unmarked)]) == 1
    failing = [line for line in capsys.readouterr().out.splitlines() if "FAIL" in line]
    assert len(failing) > len(cases) // 2
    assert all(line.endswith('(float32 results? mark them "dtype": "float32")') for line in failing)
    assert all(line.count("float32 results?") == 1 for line in failing)
    capsys.readouterr()
    partial = tmp_path / "partial"
    partial.mkdir()
    case = cases["lanczos3-ac1-aa0-mixed"]
    (partial / "one.json").write_text(json.dumps({"name": case["name"], "output": case["output"]}))
    assert _golden.main(["--verify", str(partial), "--allow-missing"]) == 0
    printed = capsys.readouterr().out
    assert f"1 result, 0 failed, {len(cases) - 1} golden cases without a result" in printed
    # the unchecked gradient is said in the summary, not only as a "-" cell
    assert "grad_input not given in 1 result (not checked)" in printed.splitlines()[-1]


@pytest.mark.parametrize(
    "result, problem",
    [
        ({"name": "no-such-case", "output": [1.0]}, "not a golden case"),
        ({"name": "area-ac0-aa0-up", "output": [1.0, 2.0]}, "FAIL: output has 2 values"),
        ({"name": "area-ac0-aa0-up"}, "neither output nor grad_input"),
        (
            {"name": "area-ac0-aa0-up", "output": ["a"]},
            'FAIL: output entry [0] in r.json (case area-ac0-aa0-up) is not a JSON number: "a"',
        ),
        # read as 1.0, 1.0 and NaN ("NaN or Inf"): each is not a JSON number
        (
            {"name": "area-ac0-aa0-up", "output": [True] + [1.0] * 125},
            "FAIL: output entry [0] in r.json (case area-ac0-aa0-up) is not a JSON number: true",
        ),
        (
            {"name": "area-ac0-aa0-up", "output": [1.0] * 7 + ["1.0", None] + [1.0] * 117},
            'output entry [7] in r.json (case area-ac0-aa0-up) is not a JSON number: "1.0" '
            "(the first of 2 such entries)",
        ),
        (
            {"name": "area-ac0-aa0-up", "grad_input": [[[[0.0] * 4] * 6, [[0.0, None, 0, 0]]]]},
            "FAIL: grad_input entry [0][1][0][1] in r.json (case area-ac0-aa0-up) is not a JSON "
            "number: null",
        ),
        (
            {"name": "area-ac0-aa0-up", "output": "1.0"},
            'FAIL: output in r.json (case area-ac0-aa0-up) is not a list of numbers: "1.0"',
        ),
        (
            {"name": "area-ac0-aa0-up", "output": [[1.0], [1.0, 2.0]]},
            "FAIL: output is nested lists",
        ),
        ({"name": "area-ac0-aa0-up", "output": [float("nan")] * 126}, "has 126 NaN or Inf values"),
        (
            {
                "name": "area-ac0-aa0-up",
                "output": [0.0] * 5 + [float("inf"), float("nan")] + [0.0] * 119,
            },
            "FAIL: output has 2 NaN or Inf values, the first at (0, 0, 0, 5) (flat 5)",
        ),
        ({"name": "area-ac0-aa0-up", "output": [0.0] * 126, "dtype": "float16"}, "dtype must be"),
    ],
)
def test_verify_reports_bad_results(tmp_path, capsys, result, problem):
    (tmp_path / "r.json").write_text(json.dumps(result))
    assert _golden.main(["--verify", str(tmp_path)]) == 1
    assert problem in capsys.readouterr().out


def test_usage_errors(tmp_path, capsys):
    assert _golden.main([]) == 2
    assert _golden.main(["--verify", str(tmp_path / "absent")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    assert _golden.main(["--verify", str(tmp_path)]) == 1  # no results at all
    (tmp_path / "bad.json").write_text("{not json")
    assert _golden.main(["--verify", str(tmp_path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert _golden.main(["--verify", str(tmp_path), "--rtol", "-1"]) == 2
    capsys.readouterr()
    assert _golden.main(["--out", str(tmp_path / "out"), "--seed", "-1"]) == 2
    assert (
        "--seed must be an int >= 0 and < 2**53 (9007199254740992); got -1"
        in capsys.readouterr().err
    )


@pytest.mark.parametrize("seed", [2**53, 99999999999999999999999])
def test_seed_is_refused_above_what_every_json_reader_reads_exactly(tmp_path, capsys, seed):
    # --seed 99999999999999999999999 was written into every file: above 2**64, which a
    # Rust u64 or a JavaScript reader cannot read back (JavaScript: nothing above 2**53)
    out = tmp_path / "out"
    assert _golden.main(["--out", str(out), "--seed", str(seed)]) == 2
    assert capsys.readouterr().err == (
        f"cresize golden: --seed must be an int >= 0 and < 2**53 (9007199254740992); got {seed}\n"
    )
    assert not out.exists()
    assert _golden.main(["--verify", str(tmp_path), "--seed", str(seed)]) == 2
    assert "--seed must be an int >= 0 and < 2**53" in capsys.readouterr().err
    # the Python API: the same rule (testing._seed), naming its argument
    for call in (_golden.golden_cases, functools.partial(_golden.write, str(out))):
        with pytest.raises(ValueError, match=r"^seed must be an int >= 0 and < 2\*\*53"):
            call(seed=seed)
    with pytest.raises(TypeError, match=r"^seed must be an int"):
        _golden.golden_cases(seed=True)
    with pytest.raises(ValueError, match=r"^seed must be an int >= 0 and < 2\*\*53"):
        _golden.verify(str(tmp_path), seed=-1)
    assert not out.exists()
    # the largest seed taken is written, and read back, exactly
    assert _golden.main(["--out", str(out), "--seed", str(2**53 - 1)]) == 0
    assert json.loads((out / "index.json").read_text())["seed"] == 2**53 - 1


@pytest.mark.parametrize(
    "argv, said",
    [
        # each was passed over without a word (--json and --allow-missing were refused)
        (["--out", "{g}", "--rtol", "1e-3"], "--rtol goes with --verify"),
        (["--out", "{g}", "--expected", "{g}"], "--expected goes with --verify"),
        (["--verify", "{g}", "--overwrite"], "--overwrite goes with --out"),
        (
            ["--verify", "{g}", "--expected", "{g}", "--seed", "3"],  # the cases carry theirs
            "--seed goes with --out, or --verify without --expected",
        ),
        # every result would pass, whatever its error
        (["--verify", "{g}", "--rtol", "inf"], "--rtol must be finite and > 0; got inf"),
        (["--verify", "{g}", "--rtol", "nan"], "--rtol must be finite and > 0; got nan"),
    ],
)
def test_options_that_would_be_passed_over_are_usage_errors(tmp_path, capsys, argv, said):
    golden = tmp_path / "golden"
    golden.mkdir()
    assert _golden.main([a.format(g=golden) for a in argv]) == 2
    assert f"cresize golden: {said}" in capsys.readouterr().err
    assert list(golden.iterdir()) == []  # nothing written


def test_paths_that_are_not_what_they_should_be_are_named(golden_dir, tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    (results / "latin1.json").write_bytes(b'{"name": "caf\xe9"}')
    assert _golden.main(["--verify", str(results)]) == 2  # it named no file
    assert "latin1.json: not UTF-8 text" in capsys.readouterr().err
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert _golden.main(["--out", str(a_file)]) == 2  # it said "[Errno 17] File exists"
    assert f"--out: {a_file} is a file, not a folder" in capsys.readouterr().err
    # a folder as --json ran the whole verification, then failed to write
    assert _golden.main(["--verify", str(golden_dir), "--json", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert f"--json: {tmp_path} is a folder; give a file name" in captured.err
    assert captured.out == ""
    assert _golden.main(["--verify", str(golden_dir), "--json", ""]) == 2  # a traceback
    assert "--json: give a file name; got an empty one" in capsys.readouterr().err


def test_expected_must_be_a_golden_folder(golden_dir, tmp_path, capsys):
    # A results folder given as --expected (the two swapped) was a KeyError traceback.
    bare = tmp_path / "bare"
    bare.mkdir()
    case = json.loads((golden_dir / "area-ac0-aa0-up.json").read_text())
    (bare / "a.json").write_text(json.dumps({k: case[k] for k in ("name", "output")}))
    assert _golden.main(["--verify", str(golden_dir), "--expected", str(bare)]) == 2
    err = capsys.readouterr().err
    assert f"--expected: {bare / 'a.json'} is not a golden case of cresize-golden/1" in err
    assert '(no "schema"): --expected takes a folder that' in err and "Traceback" not in err
    del case["tolerance"]
    (bare / "a.json").write_text(json.dumps(case))
    assert _golden.main(["--verify", str(golden_dir), "--expected", str(bare)]) == 2
    assert "(no tolerance)" in capsys.readouterr().err
    assert _golden.main(["--verify", str(golden_dir), "--expected", str(tmp_path / "no")]) == 2
    assert f"--expected: '{tmp_path / 'no'}' is not a directory" in capsys.readouterr().err


def test_verify_json_is_written_before_the_table(golden_dir, tmp_path, monkeypatch, capsys):
    # `cresize golden --verify DIR --json r.json | head -1`: the table came first, and a
    # reader that stopped early ended the command before the report was written.
    class ClosedPipe:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            pass

    path = tmp_path / "r.json"
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    with pytest.raises(BrokenPipeError):
        _golden.main(["--verify", str(golden_dir), "--json", str(path)])
    assert json.loads(path.read_text())["passed"] is True
    monkeypatch.undo()

    def full(path, report):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_golden, "write_json", full)
    # a failure of the run (1), not of its usage (2); the OS's reason, as cresize demo says it
    assert _golden.main(["--verify", str(golden_dir), "--json", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"cresize golden: --json: cannot write {path}: No space left on device\n"
    assert "90 results, 0 failed" in captured.out


def test_verify_json_report_is_strict(golden_dir, tmp_path):
    """An error that overflows (a result near the float64 limit over a scale below 1)
    was written as ``Infinity``, which a strict JSON reader (jq, serde_json) refuses."""
    case = json.loads((golden_dir / "bilinear-ac0-aa0-down.json").read_text())
    expected, results = tmp_path / "expected", tmp_path / "results"
    expected.mkdir()
    results.mkdir()
    case["scale"]["output"] = 0.5
    (expected / "case.json").write_text(json.dumps(case))
    index = {"schema": _golden.SCHEMA, "seed": 0, "cases": [case["name"]]}
    (expected / "index.json").write_text(json.dumps(index))  # a whole set: the one case
    (results / "r.json").write_text(json.dumps(dict(case, output=[1.7e308] * len(case["output"]))))
    path = tmp_path / "report.json"
    argv = ["--verify", str(results), "--expected", str(expected), "--json", str(path)]
    assert _golden.main(argv) == 1

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    (record,) = json.loads(path.read_text(), parse_constant=refuse)["results"]
    assert record["output"] is None and record["grad_input"] == 0.0
    assert not record["passed"] and "output error inf > 1.0e-12" in record["message"]


def test_verify_names_the_seed_the_results_were_made_from(tmp_path, capsys):
    # Results of `--out DIR --seed 3` verified without --seed all failed with bare
    # "output error 1.1e+00 > 1.0e-12" lines, as if the implementation were wrong.
    golden = tmp_path / "golden"
    assert _golden.main(["--out", str(golden), "--seed", "3"]) == 0
    cases = load_cases(golden)
    results = results_from(cases, cresize.resize, cresize.resize_backward, tmp_path / "results")
    capsys.readouterr()
    assert _golden.main(["--verify", str(results), "--seed", "3"]) == 0
    assert _golden.main(["--verify", str(results)]) == 1
    lines = capsys.readouterr().out.splitlines()
    failing = [line for line in lines if "FAIL" in line]
    assert len(failing) == len(cases)
    assert all("made from --seed 3, compared with --seed 0: pass --seed 3" in f for f in failing)
    assert _golden.main(["--verify", str(results), "--expected", str(golden)]) == 0


@pytest.mark.parametrize("seed", ["0", None, True, 0.5])
def test_verify_names_a_seed_that_is_not_an_integer(golden_dir, tmp_path, capsys, seed):
    # "0" (a string) said "made from --seed 0, compared with --seed 0: pass --seed 0"
    case = json.loads((golden_dir / "area-ac0-aa0-up.json").read_text())
    (tmp_path / "r.json").write_text(json.dumps(dict(case, seed=seed)))
    assert _golden.main(["--verify", str(tmp_path), "--allow-missing"]) == 1
    line = capsys.readouterr().out.splitlines()[1]
    assert line.endswith(f'FAIL: "seed" must be the integer seed of the case; got {seed!r}')
    (tmp_path / "r.json").write_text(json.dumps(dict(case, seed=0)))
    assert _golden.main(["--verify", str(tmp_path), "--allow-missing"]) == 0


def test_verify_expected_refuses_results_of_another_seed(tmp_path, capsys):
    # Results made from the --seed 3 cases, compared with a set written with --seed 0:
    # another seed's inputs, which --verify --expected passed over to bare errors.
    golden, other = tmp_path / "golden", tmp_path / "other"
    assert _golden.main(["--out", str(golden), "--seed", "3"]) == 0
    assert _golden.main(["--out", str(other)]) == 0
    cases = load_cases(golden)
    results = results_from(cases, cresize.resize, cresize.resize_backward, tmp_path / "results")
    capsys.readouterr()
    assert _golden.main(["--verify", str(results), "--expected", str(other)]) == 1
    failing = [line for line in capsys.readouterr().out.splitlines() if "FAIL" in line]
    assert len(failing) == len(cases)
    assert all(
        f"made from --seed 3, but {other} was written with --seed 0: compare with a set of "
        f"--seed 3" in f
        for f in failing
    )


def test_write_refuses_to_replace_golden_files(tmp_path, capsys):
    """A second ``--out`` into the same directory refuses (nothing rewritten) unless
    ``--overwrite``: the golden files may be somebody's committed reference."""
    directory = tmp_path / "golden"
    assert _golden.main(["--out", str(directory)]) == 0
    index = directory / "index.json"
    index.write_text("kept\n")
    capsys.readouterr()
    assert _golden.main(["--out", str(directory)]) == 2
    err = capsys.readouterr().err
    assert "already holds" in err and "--overwrite" in err and "Traceback" not in err
    assert index.read_text() == "kept\n"
    assert _golden.main(["--out", str(directory), "--overwrite"]) == 0
    assert index.read_text() != "kept\n"


def test_a_scale_factor_case_tells_1_over_f_from_in_over_out(golden_dir, tmp_path, capsys):
    # "scale" (4 * 1.75 = 7, 6 * 0.5 = 3) reads the same at 1/f and at I/O; a port that
    # drops scale_factor and resizes to `size` must fail somewhere.
    cases = load_cases(golden_dir)
    frac = [c for c in cases.values() if c["name"].endswith("-scale-frac")]
    assert len(frac) == 15

    def forward(x, size, *, scale_factor, **options):
        size = [int(np.floor(x.shape[a] * f)) for a, f in zip((2, 3), scale_factor)]
        return cresize.resize(x, size, **options)

    def backward(g, shape, *, scale_factor, **options):
        return cresize.resize_backward(g, shape, **options)  # I/O from the shapes

    results = results_from({c["name"]: c for c in frac}, forward, backward, tmp_path / "by-size")
    assert _golden.main(["--verify", str(results), "--expected", str(golden_dir)]) == 1
    lines = capsys.readouterr().out.splitlines()[1:-1]
    failed = {line.split()[0] for line in lines if "FAIL" in line}
    # every case that reads at 1/f: all but area (I/O) and align_corners (I-1)/(O-1)
    assert failed == {c["name"] for c in frac if c["mode"] != "area" and not c["align_corners"]}


def test_verify_json_report(golden_dir, tmp_path, capsys):
    """--json: one record per result (errors, pass, the printed message), the cases
    without a result and the fields not given, for a verifier's CI to read."""
    cases = {k: v for k, v in load_cases(golden_dir).items() if k.startswith("bilinear-ac")}

    def ignores_align_corners(g, input_shape, **options):
        return cresize.resize_backward(g, input_shape, **{**options, "align_corners": False})

    results = results_from(cases, cresize.resize, ignores_align_corners, tmp_path / "wrong")
    (results / "extra.json").write_text(json.dumps({"name": "not-a-case", "output": [1.0]}))
    path = tmp_path / "report.json"
    argv = ["--verify", str(results), "--expected", str(golden_dir), "--json", str(path)]
    assert _golden.main(argv) == 1
    printed = capsys.readouterr().out
    report = json.loads(path.read_text())
    assert report["schema"] == "cresize-golden/1" and report["passed"] is False
    assert report["seed"] == 0 and report["expected"] == str(golden_dir) and report["rtol"] is None
    records = {r["name"]: r for r in report["results"]}
    assert set(records) == {*cases, "not-a-case"}
    assert report["failed"] == sum(not r["passed"] for r in records.values())
    assert report["missing"] == sorted(set(load_cases(golden_dir)) - set(cases))
    assert report["not_given"] == {"output": 0, "grad_input": 0}
    assert records["not-a-case"]["message"] == "FAIL: not a golden case"
    for name, case in cases.items():
        r = records[name]
        assert r["dtype"] == "float64" and r["tolerance"] == 1e-12
        assert r["output"] <= 1e-12  # the forward is right
        assert r["passed"] == (not case["align_corners"]) == (r["grad_input"] <= 1e-12)
        assert r["message"] in printed  # what the table says
        if case["align_corners"]:
            assert r["message"].endswith("it is what align_corners=False gives")
    assert _golden.main(["--verify", str(golden_dir), "--json", str(path)]) == 0
    assert json.loads(path.read_text())["passed"] is True
    capsys.readouterr()
    # refused before the run: a folder that does not exist, --json without --verify
    assert _golden.main(["--verify", str(results), "--json", str(tmp_path / "no" / "r.json")]) == 2
    assert f"--json: no such folder: {tmp_path / 'no'}" in capsys.readouterr().err
    assert _golden.main(["--out", str(tmp_path / "g"), "--json", str(path)]) == 2
    assert "--json goes with --verify" in capsys.readouterr().err
    assert not (tmp_path / "g").exists()


def test_verify_fails_when_golden_cases_have_no_result(golden_dir, tmp_path, capsys):
    """A truncated or empty result set is not a pass: every golden case without a
    result fails the run (named, the first few) unless --allow-missing."""
    cases = load_cases(golden_dir)
    complete = results_from(cases, cresize.resize, cresize.resize_backward, tmp_path / "all")
    assert _golden.main(["--verify", str(complete)]) == 0
    assert "no result in" not in capsys.readouterr().err
    dropped = sorted(cases)[-7:]  # a truncated run: the last cases never written
    for name in dropped:
        (complete / f"{name}.json").unlink()
    path = tmp_path / "report.json"
    for expected in ([], ["--expected", str(golden_dir)]):
        assert _golden.main(["--verify", str(complete), "--json", str(path), *expected]) == 1
        out, err = capsys.readouterr()
        assert f"{len(cases) - 7} results, 0 failed, 7 golden cases without a result: " in out
        assert ", ".join(dropped[:5]) + ", ..." in out.splitlines()[-1]
        assert f"7 of the {len(cases)} golden cases have no result in {complete}" in err
        assert ", ".join(dropped[:5]) in err and dropped[5] not in err
        assert "--allow-missing" in err
        report = json.loads(path.read_text())
        assert report["missing"] == dropped and report["failed"] == 0
        assert report["passed"] is False and report["allow_missing"] is False
    # a deliberately partial set: passes, the missing cases still reported
    argv = ["--verify", str(complete), "--json", str(path), "--allow-missing"]
    assert _golden.main(argv) == 0
    out, err = capsys.readouterr()
    assert "7 golden cases without a result" in out and "(allowed: --allow-missing)" in out
    assert err == ""
    report = json.loads(path.read_text())
    assert report["missing"] == dropped and report["passed"] is True
    assert report["allow_missing"] is True
    # ...but a failing result still fails it
    (complete / "bad.json").write_text(json.dumps({"name": dropped[0], "output": [0.0]}))
    assert _golden.main(argv) == 1
    capsys.readouterr()
    # one missing case: named without "..."
    (complete / "bad.json").unlink()
    for name in dropped[1:]:
        (complete / f"{name}.json").write_text(json.dumps(dict(cases[name])))
    assert _golden.main(["--verify", str(complete)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[-1].endswith(f"1 golden case without a result: {dropped[0]}")
    assert f"1 of the {len(cases)} golden cases has no result" in err and "write it," in err
    # an empty set fails with or without --allow-missing: nothing was verified
    empty = tmp_path / "empty"
    empty.mkdir()
    for extra in ([], ["--allow-missing"]):
        assert _golden.main(["--verify", str(empty), "--json", str(path), *extra]) == 1
        assert f"no result files in {empty}" in capsys.readouterr().err
        assert json.loads(path.read_text())["passed"] is False
    # a report written into the results folder is not read back as a result
    report_inside = complete / "report.json"
    assert (
        _golden.main(["--verify", str(complete), "--allow-missing", "--json", str(report_inside)])
        == 0
    )
    assert _golden.main(["--verify", str(complete), "--allow-missing"]) == 0
    capsys.readouterr()
    # --allow-missing goes with --verify
    assert _golden.main(["--out", str(tmp_path / "g"), "--allow-missing"]) == 2
    assert "--allow-missing goes with --verify" in capsys.readouterr().err


#: Runs ``cresize golden`` with files limited to ``sys.argv[1]`` bytes: a write past it
#: fails with EFBIG (SIGXFSZ ignored), as one to a full disk fails with ENOSPC.
FILE_SIZE_LIMITED = """
import resource, signal, sys
from cresize import _golden
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
sys.exit(_golden.main(sys.argv[2:]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE and SIGXFSZ")
def test_out_to_a_full_disk_leaves_no_partial_file(tmp_path):
    # It wrote each file in place: the one the disk filled on was left cut short (or
    # empty) under its final name, and the message named no file ("cresize golden:
    # [Errno 28] No space left on device", exit status 2, a usage error's).
    env = dict(os.environ, PYTHONPATH=os.path.dirname(cresize.__path__[0]))
    out = tmp_path / "g"

    def run(*options):
        command = [sys.executable, "-c", FILE_SIZE_LIMITED, "5000", "--out", str(out), *options]
        return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)

    done = run()
    first = out / "nearest-ac0-aa0-up.json"  # the first case larger than 5000 bytes
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"cresize golden: cannot write {first}: File too large\n"
    names = sorted(p.name for p in out.iterdir())
    assert "index.json" not in names and first.name not in names  # no index: not a whole set
    assert not [n for n in names if not n.endswith(".json")]  # no temporary file left
    for name in names:  # each file there is whole
        assert json.loads((out / name).read_text())["schema"] == _golden.SCHEMA
    # over a whole set: the index, which would list cases this run did not write, goes first
    assert _golden.main(["--out", str(out), "--overwrite"]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    done = run("--overwrite", "--seed", "1")
    assert done.returncode == 1 and done.stderr.startswith("cresize golden: cannot write ")
    after = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(after) == sorted(set(before) - {"index.json"})
    for name, data in after.items():  # each one whole, the seed 1 file or the seed 0 one
        assert json.loads(data)["seed"] in (0, 1) and (json.loads(data)["seed"] == 1) == (
            data != before[name]
        )


def _stopped_at(monkeypatch, files):
    """``_golden.write_text`` raising KeyboardInterrupt (Ctrl-C) after ``files`` files."""
    written = []
    write_text = _golden.write_text

    def stopping(path, text, overwrite=True):
        if len(written) == files:
            raise KeyboardInterrupt
        write_text(path, text, overwrite)
        written.append(path)

    monkeypatch.setattr(_golden, "write_text", stopping)


@pytest.mark.parametrize("overwrite", [False, True])
def test_expected_refuses_a_golden_set_whose_out_was_stopped(
    tmp_path, monkeypatch, capsys, overwrite
):
    # `--out` stopped part-way (Ctrl-C; with --overwrite, after index.json was removed)
    # left some cases and no index.json; --verify --expected took the folder as the whole
    # set: results for only those cases passed (exit status 0), and after an --overwrite
    # of another seed each old case failed as "written with --seed 0" instead.
    golden = tmp_path / "golden"
    if overwrite:
        assert _golden.main(["--out", str(golden)]) == 0
    _stopped_at(monkeypatch, 30)
    capsys.readouterr()
    assert _golden.main(["--out", str(golden), "--seed", "1"] + ["--overwrite"] * overwrite) == 130
    assert capsys.readouterr().err == (  # the command line said nothing (exit status 130)
        f"cresize golden: stopped; {golden} holds no index.json: not a whole golden set "
        f"(write it again with --out {golden} --overwrite)\n"
    )
    monkeypatch.undo()
    names = sorted(p.name for p in golden.iterdir())
    assert "index.json" not in names and len(names) == (90 if overwrite else 30)
    assert not [n for n in names if not n.endswith(".json")]  # no temporary file left
    stopped = {n: c for n, c in load_cases(golden).items() if c["seed"] == 1}
    assert len(stopped) == 30
    results = results_from(stopped, cresize.resize, cresize.resize_backward, tmp_path / "r")
    capsys.readouterr()
    assert _golden.main(["--verify", str(results), "--expected", str(golden)]) == 2
    err = capsys.readouterr().err
    assert f"--expected: {golden} has no index.json" in err and "--overwrite" in err
    assert _golden.main(["--out", str(golden), "--seed", "1", "--overwrite"]) == 0  # written again
    assert (
        _golden.main(["--verify", str(results), "--expected", str(golden), "--allow-missing"]) == 0
    )


def test_expected_refuses_a_golden_set_missing_a_listed_case(golden_dir, tmp_path, capsys):
    folder = tmp_path / "golden"
    shutil.copytree(golden_dir, folder)
    (folder / "area-ac0-aa0-up.json").unlink()
    capsys.readouterr()
    assert _golden.main(["--verify", str(golden_dir), "--expected", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"--expected: {folder} is not a whole golden set: its index.json lists 1 case" in err
    (folder / "index.json").write_text("[1, 2]")
    assert _golden.main(["--verify", str(golden_dir), "--expected", str(folder)]) == 2
    assert "index.json: not an index of cresize-golden/1" in capsys.readouterr().err


def test_the_tools_write_without_the_image_layer(tmp_path):
    # golden --out and check's --json wrote through image._write_atomic, importing the
    # image layer (cresize.image, 2,000 lines) into commands that read no image.
    code = (
        "import sys; from cresize import _check, _golden\n"
        "assert _golden.main(['--out', sys.argv[1]]) == 0\n"
        "_check.write_json(sys.argv[1] + '/r.json', {'a': float('nan')})\n"
        "print(sorted(m for m in sys.modules if m == 'cresize.image' or m.startswith('PIL')))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.dirname(cresize.__path__[0]))
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "g")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1] == "[]"
    assert json.loads((tmp_path / "g" / "r.json").read_text()) == {"a": None}
