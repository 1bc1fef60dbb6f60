"""``cresize golden``: write or verify golden test vectors for resize forward and backward.

``cresize golden --out DIR`` writes one JSON file per case (schema
``cresize-golden/1``, described in the README) and an ``index.json``: every mode,
``align_corners`` True and False, antialias on and off, on small NCHW arrays,
seeded. Another implementation reads each case, computes ``output`` from
``input`` and ``grad_input`` from ``grad_output``, and writes the case back with
those two fields replaced (any file name ending in ``.json``; ``"dtype":
"float32"`` in a result selects the float32 tolerance). ``cresize golden --verify
RESULTS`` then compares them with the expected values, case by case; a golden case
without a result fails the run unless ``--allow-missing`` (a deliberately partial set).
"""

import argparse
import json
import os
import sys
import zlib

import numpy as np

import cresize
from cresize import testing
from cresize._atomic import cannot_write
from cresize._check import json_target, option_combinations, write_json, write_text
from cresize._tables import MODES

SCHEMA = "cresize-golden/1"
AXES = (2, 3)

#: (name, NCHW input shape, size, scale_factor)
GEOMETRIES = (
    ("up", (1, 2, 4, 5), (7, 9), None),
    ("down", (1, 1, 9, 8), (4, 3), None),
    ("mixed", (2, 1, 5, 7), (8, 3), None),
    ("scale", (1, 2, 4, 6), None, (1.75, 0.5)),
    # lengths that are not whole multiples (floor(10 * 1.55) = 15): read at 1/f, not I/O
    ("scale-frac", (1, 1, 10, 9), None, (1.55, 0.7)),
    ("1px", (1, 1, 1, 6), (3, 1), None),
)


def main(argv=None):
    """Write (``--out``) or verify (``--verify``) golden vectors; the exit status."""
    parser = argparse.ArgumentParser(
        prog="cresize golden", description="Write or verify golden test vectors."
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--out", metavar="DIR", help="write the golden cases into DIR")
    what.add_argument("--verify", metavar="DIR", help="check the result files in DIR")
    parser.add_argument(
        "--expected",
        metavar="DIR",
        help="with --verify: the golden directory to compare with "
        "(default: regenerate the cases in memory with --seed)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="random seed of the cases written (--out) or regenerated (--verify without "
        "--expected, whose cases carry their own) (default 0)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="with --out: replace golden files already in DIR (default: refuse)",
    )
    parser.add_argument(
        "--rtol",
        type=float,
        help="with --verify: relative tolerance (default: 1e-12, or 2e-6 for "
        'results marked "dtype": "float32")',
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        help="with --verify: also write the per-case results and the summary as JSON",
    )
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="with --verify: pass a partial result set (default: a golden case "
        "without a result fails the run)",
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code
    try:
        if args.seed is not None and args.expected is not None:  # passed over
            raise ValueError("--seed goes with --out, or --verify without --expected")
        args.seed = testing._seed(0 if args.seed is None else args.seed, "--seed")
        for given, option, goes_with in (  # each was passed over without a word
            (args.json is not None, "--json", "verify"),
            (args.allow_missing, "--allow-missing", "verify"),
            (args.expected is not None, "--expected", "verify"),
            (args.rtol is not None, "--rtol", "verify"),
            (args.overwrite, "--overwrite", "out"),
        ):
            if given and getattr(args, goes_with) is None:
                raise ValueError(f"{option} goes with --{goes_with}")
        if args.out is not None:
            try:
                written = write(args.out, seed=args.seed, overwrite=args.overwrite)
            except FileExistsError:
                raise  # refused: a usage error, below
            except OSError as exc:  # a full disk, no permission: the file and the reason
                print(
                    f"cresize golden: {cannot_write(exc.filename or args.out, exc)}",
                    file=sys.stderr,
                )
                return 1
            except KeyboardInterrupt:  # Ctrl-C: say what the folder holds (exit 130 as before)
                if os.path.isdir(args.out) and not os.path.lexists(
                    os.path.join(args.out, "index.json")
                ):
                    print(
                        f"cresize golden: stopped; {args.out} holds no index.json: not a whole "
                        f"golden set (write it again with --out {args.out} --overwrite)",
                        file=sys.stderr,
                    )
                return 130
            print(f"wrote {len(written)} golden cases ({SCHEMA}) to {args.out}")
            return 0
        return verify(
            args.verify,
            expected=args.expected,
            seed=args.seed,
            rtol=args.rtol,
            json_path=args.json,
            allow_missing=args.allow_missing,
        )
    except BrokenPipeError:
        raise  # stdout's reader went away: the command line's own ending, not a file error
    except (OSError, ValueError) as exc:
        print(f"cresize golden: {exc}", file=sys.stderr)
        return 2


def golden_cases(seed=0):
    """The golden cases as dicts of the JSON schema (values as flat NumPy arrays).

    Parameters
    ----------
    seed : int
        Seed of the inputs and output gradients, ``0 <= seed < 2**53`` (written into
        every file: exact in any JSON reader); each case draws from its own stream
        ``(seed, crc32(name))``, so a case does not depend on the others.

    Returns
    -------
    list of dict
    """
    seed = testing._seed(seed)
    cases = []
    for mode in MODES:
        for align_corners, antialias in option_combinations(mode):
            for geometry, shape, size, scale_factor in GEOMETRIES:
                name = f"{mode}-ac{int(align_corners)}-aa{int(antialias)}-{geometry}"
                rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
                options = dict(
                    scale_factor=scale_factor,
                    mode=mode,
                    axes=AXES,
                    align_corners=align_corners,
                    antialias=antialias,
                )
                x = rng.uniform(-1, 1, shape)
                y = cresize.resize(x, size, **options, num_threads=1)  # tiny: one thread
                g = rng.uniform(-1, 1, y.shape)
                matrices = testing.reference_matrices(shape, size, **options)
                rows = np.prod([np.abs(w).sum(axis=1).max() for w in matrices.values()])
                cols = np.prod([np.abs(w).sum(axis=0).max() for w in matrices.values()])
                cases.append(
                    {
                        "schema": SCHEMA,
                        "name": name,
                        "generator": f"cresize {cresize.__version__}",
                        "seed": seed,
                        "mode": mode,
                        "align_corners": align_corners,
                        "antialias": antialias,
                        "input_shape": list(shape),
                        "axes": list(AXES),
                        "size": [y.shape[a] for a in AXES],
                        "scale_factor": None if scale_factor is None else list(scale_factor),
                        "output_shape": list(y.shape),
                        "input": x.ravel(),
                        "output": y.ravel(),
                        "grad_output": g.ravel(),
                        "grad_input": cresize.resize_backward(
                            g, shape, **options, num_threads=1
                        ).ravel(),
                        "weights": [
                            {"axis": a, "in_size": w.shape[1], "out_size": w.shape[0], "matrix": w}
                            for a, w in matrices.items()
                        ],
                        "scale": {
                            "output": float(np.abs(x).max() * rows),
                            "grad_input": float(np.abs(g).max() * cols),
                        },
                        "tolerance": {
                            "float64": testing.TOLERANCES[np.dtype(np.float64)],
                            "float32": testing.TOLERANCES[np.dtype(np.float32)],
                        },
                    }
                )
    return cases


def write(directory, seed=0, overwrite=False):
    """Write every case to ``DIRECTORY/NAME.json`` plus ``index.json``; the paths.
    Files of those names already in ``directory`` are a ``FileExistsError`` (nothing is
    written) unless ``overwrite``.

    Each file is written whole or not at all (``_check.write_text``: beside its name,
    synced, renamed into place), ``index.json`` last (with ``overwrite``, an earlier one
    is removed first): a write that fails (a full disk) leaves the files before it, no
    partial one and no index, and raises its ``OSError`` with ``filename`` the file."""
    if os.path.exists(directory) and not os.path.isdir(directory):  # was "[Errno 17] File exists"
        raise ValueError(f"--out: {directory} is a file, not a folder")
    seed = testing._seed(seed)
    cases = golden_cases(seed)
    index = os.path.join(directory, "index.json")
    if not overwrite and os.path.isdir(directory):
        names = [c["name"] + ".json" for c in cases] + ["index.json"]
        there = [n for n in names if os.path.lexists(os.path.join(directory, n))]
        if there:
            raise FileExistsError(
                f"{directory} already holds {len(there)} of the {len(names)} files to write "
                f"({', '.join(there[:3])}{', ...' if len(there) > 3 else ''}): pass "
                f"--overwrite (overwrite=True) to replace them, or another directory"
            )
    os.makedirs(directory, exist_ok=True)
    if overwrite and os.path.lexists(index):  # it would list a set this run did not finish
        os.remove(index)
    paths = []
    for case in cases:
        path = os.path.join(directory, case["name"] + ".json")
        write_text(path, json.dumps(_jsonable(case)) + "\n", overwrite)
        paths.append(path)
    listed = {"schema": SCHEMA, "seed": seed, "cases": [c["name"] for c in cases]}
    write_text(index, json.dumps(listed, indent=1) + "\n", overwrite)
    return paths


def verify(directory, expected=None, seed=0, rtol=None, json_path=None, allow_missing=False):
    """Compare the result files in ``directory`` with the golden cases; print a report.

    Parameters
    ----------
    directory : str
        Result files: JSON objects with ``name`` and ``output`` and/or
        ``grad_input`` (flat in C order, or nested), optionally ``dtype``.
    expected : str, optional
        A directory written by ``write``; default: the cases regenerated with ``seed``.
    seed : int
        Seed of the regenerated cases (``0 <= seed < 2**53``).
    rtol : float, optional
        Tolerance relative to each case's ``scale``; default by the result's ``dtype``.
    json_path : str, optional
        Also write the report there as JSON: ``{"schema", "seed", "expected", "rtol",
        "results": [{"name", "dtype", "tolerance", "output", "grad_input", "passed",
        "message"}], "failed", "missing", "allow_missing", "not_given", "passed"}``
        (an error is ``max|result - expected| / scale``, null where not given, not
        readable or not finite: strict JSON; ``missing`` the golden cases without a
        result). A path that could not be written is a ``ValueError`` before the run;
        a write that fails after it (a full disk) is said on stderr and returns 1.
    allow_missing : bool
        Pass when some golden cases have no result (a deliberately partial set);
        by default each one is a failure of the run.

    Returns
    -------
    int
        0 when every result passes and every golden case has one (or
        ``allow_missing``); 1 when any fails, a golden case has no result, no
        result was found, or the ``json_path`` report could not be written.
    """
    if rtol is not None:  # inf too: every result would pass, whatever its error
        rtol = testing._positive(rtol, "--rtol")
    seed = testing._seed(seed)
    json_target(json_path)  # before the run, not after
    golden = (
        _load_dir(expected, golden=True)
        if expected is not None
        else {c["name"]: c for c in golden_cases(seed)}
    )
    files = {}  # case name -> its result file's name
    results = _load_dir(directory, files=files)
    failures = 0
    unchecked = {"output": 0, "grad_input": 0}  # fields a result does not give
    records = []  # what --json writes
    # The table is printed after the report is written: a reader of stdout that stops
    # early (| head) ends the command as it prints, which lost the report.
    table = []

    def report(name, status, errors=(None, None), dtype=None, tol=None):
        records.append(
            {
                "name": name,
                "dtype": dtype,
                "tolerance": tol,
                "output": errors[0],
                "grad_input": errors[1],
                "passed": status == "ok",
                "message": status,
            }
        )

    table.append(f"{'case':34s}{'output':>11s}{'grad_input':>12s}  result")
    for name, result in sorted(results.items()):
        case = golden.get(name)
        if case is None:
            failures += 1
            table.append(f"{name:34s}{'':23s}  FAIL: not a golden case")
            report(name, "FAIL: not a golden case")
            continue
        dtype = result.get("dtype", "float64")
        if rtol is None and dtype not in case["tolerance"]:
            failures += 1
            problem = f"FAIL: dtype must be float32 or float64, not {dtype!r}"
            table.append(f"{name:34s}{'':23s}  {problem}")
            report(name, problem)
            continue
        tol = case["tolerance"][dtype] if rtol is None else rtol
        wanted = case.get("seed")  # --seed's, or the expected set's (if it says)
        made_from = result.get("seed", wanted)
        if "seed" in result and (isinstance(made_from, bool) or not isinstance(made_from, int)):
            # "0" (a string), null, true: it said "made from --seed 0, compared with
            # --seed 0: pass --seed 0"
            failures += 1
            problem = f'FAIL: "seed" must be the integer seed of the case; got {made_from!r}'
            table.append(f"{name:34s}{'':23s}  {problem}")
            report(name, problem, dtype=dtype, tol=tol)
            continue
        if made_from != wanted:  # the inputs were others
            failures += 1
            problem = f"FAIL: made from --seed {made_from}, " + (
                f"compared with --seed {seed}: pass --seed {made_from}"
                if expected is None
                else f"but {expected} was written with --seed {wanted}: compare with a "
                f"set of --seed {made_from}"
            )
            table.append(f"{name:34s}{'':23s}  {problem}")
            report(name, problem, dtype=dtype, tol=tol)
            continue
        cells, problems, float32_like, errors = [], [], [], []
        for key, shape in (("output", case["output_shape"]), ("grad_input", case["input_shape"])):
            if key not in result:
                cells.append("-")
                errors.append(None)
                unchecked[key] += 1
                continue
            error, problem = _error(
                result[key], case[key], shape, case["scale"][key], f"{files[name]} (case {name})"
            )
            errors.append(error)
            cells.append("bad" if error is None else f"{error:.1e}")
            problem = problem and f"{key} {problem}"  # which field
            if problem is None and not error <= tol:
                atol = tol * case["scale"][key] if case["scale"][key] else tol
                values = np.reshape(np.asarray(result[key], np.float64), shape)
                where = testing._mismatch(values, np.reshape(case[key], shape), atol)
                where += _lookalike(case, key, values, atol)
                problem = f"{key} error {error:.2e} > {tol:.1e}: {where}"
                float32_like.append(error <= case["tolerance"]["float32"])
            if problem:
                problems.append(problem)
        if cells == ["-", "-"]:
            problems.append("neither output nor grad_input given")
        failures += bool(problems)
        status = "FAIL: " + "; ".join(problems) if problems else "ok"
        # every problem an error within the float32 tolerance, and no dtype said
        if rtol is None and "dtype" not in result and float32_like == [True] * len(problems) != []:
            status += ' (float32 results? mark them "dtype": "float32")'  # they would pass
        table.append(f"{name:34s}{cells[0]:>11s}{cells[1]:>12s}  {status}")
        report(name, status, errors, dtype, tol)
    missing = sorted(set(golden) - set(results))
    partial = "".join(
        f"; {key} not given in {n} result{'s' if n > 1 else ''} (not checked)"
        for key, n in unchecked.items()
        if n
    )
    named = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
    table.append(
        f"{len(results)} result{'s' if len(results) != 1 else ''}, {failures} failed, "
        f"{len(missing)} golden case{'s' if len(missing) != 1 else ''} without "
        f"a result{': ' + named if missing else ''}"
        f"{' (allowed: --allow-missing)' if missing and allow_missing else ''}{partial}"
    )
    passed = not failures and bool(results) and (allow_missing or not missing)
    unwritten = None
    if json_path is not None:
        try:
            write_json(
                json_path,
                {
                    "schema": SCHEMA,
                    "seed": seed,
                    "expected": expected,  # null: regenerated from the seed
                    "rtol": rtol,  # null: each result's dtype's tolerance
                    "results": records,
                    "failed": failures,
                    "missing": missing,
                    "allow_missing": allow_missing,
                    "not_given": unchecked,
                    "passed": passed,
                },
            )
        except OSError as exc:  # said after the table, which is still worth reading
            unwritten = exc
    print("\n".join(table))
    if not results:
        print(f"cresize golden: no result files in {directory}", file=sys.stderr)
    elif missing and not allow_missing:
        print(
            f"cresize golden: {len(missing)} of the {len(golden)} golden cases "
            f"{'has' if len(missing) == 1 else 'have'} no "
            f"result in {directory} ({named}): write {'it' if len(missing) == 1 else 'them'}, "
            f"or pass --allow-missing to "
            f"verify a partial set",
            file=sys.stderr,
        )
    if unwritten is not None:
        print(f"cresize golden: --json: {cannot_write(json_path, unwritten)}", file=sys.stderr)
        return 1
    return 0 if passed else 1


def _lookalike(case, key, values, atol):
    """``testing._lookalike`` for a case's ``output`` or ``grad_input``."""
    given = "input" if key == "output" else "grad_output"
    return testing._lookalike(
        np.reshape(case[given], case["input_shape" if key == "output" else "output_shape"]),
        values,
        atol,
        tuple(case["input_shape"]),
        None if case["scale_factor"] else tuple(case["size"]),
        {k: case[k] for k in ("scale_factor", "mode", "align_corners", "antialias")},
        tuple(case["axes"]),
        transpose=key == "grad_input",
    )


def _error(values, expected, shape, scale, source):
    """``max|values - expected| / scale`` or ``(None, problem)``; ``source`` names the
    file and the case in a problem that the values are not a list of JSON numbers."""
    if not isinstance(values, list):
        return None, f"in {source} is not a list of numbers: {_quote(values)}"
    bad = _not_numbers(values)
    if bad:
        place, value = bad[0]
        return None, (
            f"entry {''.join(f'[{i}]' for i in place)} in {source} is not a JSON number: "
            f"{_quote(value)}"
            + (f" (the first of {len(bad)} such entries)" if len(bad) > 1 else "")
        )
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return None, "is nested lists of different lengths"
    if values.size != int(np.prod(shape)) or (values.ndim > 1 and list(values.shape) != shape):
        return None, f"has {values.size} values of shape {list(values.shape)}; expected {shape}"
    bad = ~np.isfinite(values)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        index = tuple(int(i) for i in np.unravel_index(first, shape))
        return None, (
            f"has {np.count_nonzero(bad)} NaN or Inf value{'s' if bad.sum() > 1 else ''}, "
            f"the first at {index} (flat {first})"
        )
    deviation = float(np.abs(values.ravel() - np.ravel(expected)).max(initial=0))
    return (deviation / scale if scale else deviation), None


def _not_numbers(values, place=()):
    """``(place, value)`` of each entry of the (nested) list ``values`` that is not a
    JSON number, in file order (``true``, ``"1.0"`` and ``null`` were read as 1.0, 1.0
    and NaN)."""
    bad = []
    for i, value in enumerate(values):
        if isinstance(value, list):
            bad += _not_numbers(value, (*place, i))
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            bad.append(((*place, i), value))
    return bad


def _quote(value):
    """``value`` as JSON, cut at 40 characters."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


#: What ``verify`` reads of an expected (golden) case.
_CASE_KEYS = frozenset(
    ("name", "mode", "align_corners", "antialias", "input_shape", "axes", "size")
    + ("scale_factor", "output_shape", "input", "output", "grad_output", "grad_input")
    + ("scale", "tolerance")
)


def _load_dir(directory, golden=False, files=None):
    """The JSON objects of ``directory`` by ``name``: result files, or with ``golden``
    the cases ``write`` wrote (``--expected``; anything else is a ``ValueError``).
    ``files``: a dict to fill with each name's file name."""
    if not os.path.isdir(directory):
        raise ValueError(f"{'--expected: ' if golden else ''}{directory!r} is not a directory")
    found = {}
    for entry in sorted(os.listdir(directory)):
        if not entry.endswith(".json") or entry == "index.json":
            continue
        with open(os.path.join(directory, entry), encoding="utf-8") as fh:
            try:
                data = json.load(fh)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{entry}: not valid JSON: {exc}") from None
            except UnicodeDecodeError as exc:  # named no file
                raise ValueError(f"{entry}: not UTF-8 text (JSON is UTF-8): {exc}") from None
        if isinstance(data, dict) and "name" not in data and _is_report(data):
            continue  # --json's report, written into the results folder
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError(f'{entry}: expected a JSON object with a "name"')
        missing = _CASE_KEYS - set(data)
        if golden and (data.get("schema") != SCHEMA or missing):
            # a results folder given as --expected (the two swapped) was a KeyError
            # traceback after the table's first line
            why = (
                f"no {', '.join(sorted(missing))}"
                if data.get("schema") == SCHEMA
                else f"schema {data['schema']!r}"
                if "schema" in data
                else 'no "schema"'
            )
            raise ValueError(
                f"--expected: {os.path.join(directory, entry)} is not a golden case of "
                f"{SCHEMA} ({why}): --expected takes a folder that 'cresize golden --out' wrote"
            )
        if data["name"] in found:
            raise ValueError(f"{entry}: a second result for case {data['name']!r}")
        found[data["name"]] = data
        if files is not None:
            files[data["name"]] = entry
    # after the files: a results folder given as --expected is named as such
    absent = [name for name in (_listed_cases(directory) if golden else ()) if name not in found]
    if absent:
        raise ValueError(
            f"--expected: {directory} is not a whole golden set: its index.json lists "
            f"{len(absent)} case(s) with no file there ({absent[0]}.json first)"
        )
    return found


def _listed_cases(directory):
    """The case names ``index.json`` of the golden folder ``directory`` lists. Without
    one (``write`` puts it last and, with ``overwrite``, removes the earlier one first)
    the folder is not a whole set: a run stopped part-way (Ctrl-C, a full disk), whose
    files may mix two runs' seeds. A ``ValueError`` says so."""
    index = os.path.join(directory, "index.json")
    if not os.path.lexists(index):
        raise ValueError(
            f"--expected: {directory} has no index.json, which 'cresize golden --out' "
            f"writes last: not a whole golden set (a run stopped part-way?); write it "
            f"again with 'cresize golden --out {directory} --overwrite'"
        )
    with open(index, encoding="utf-8") as fh:
        try:
            cases = json.load(fh)["cases"]
        except (ValueError, KeyError, TypeError) as exc:  # JSON, UTF-8, the object
            raise ValueError(f"--expected: {index}: not an index of {SCHEMA}: {exc!r}") from None
    if not isinstance(cases, list) or not all(isinstance(c, str) for c in cases):
        raise ValueError(f'--expected: {index}: "cases" must be a list of case names')
    return cases


def _is_report(data):
    """Whether a JSON object is a report that ``verify(json_path=...)`` wrote."""
    return data.get("schema") == SCHEMA and {"results", "missing", "passed"} <= set(data)


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value
