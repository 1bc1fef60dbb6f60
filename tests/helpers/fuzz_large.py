"""A seeded fuzz campaign at the sizes where the fast kernels run (not a test module).

tests/test_fuzz_fast.py and tests/test_fuzz.py draw small shapes; many kernels only run
on larger work: a call runs on at most ``work // _plan.MIN_WORK_PER_THREAD`` threads
(values read and written), so the quick pair (two threads) from ``2 * 2**17`` and
OpenMP teams of three from ``3 * 2**17``; their cases are all below. Also ring paths,
the 2x2 block sweeps, periodic passes, the 16-bit 2x2 halves. This campaign draws cases
of ``2**15`` to ``2**22`` values (input or output, the larger), axis lengths up to about
2000 (long signals up to ``2**20``: these skip the oracle, ``ORACLE_AXIS``), and checks
each with the existing fuzz checks:

* ``fast`` cases (``test_fuzz_fast``'s case dicts and ``check``): every dtype, (H, W, C)
  images (C 1-9), (N, H, W, C) batches, planar (N, C, H, W) and (N, H, W) maps, (L,) and
  (L, C) signals; 1, 2 and 3 threads, ``out=``, plans, ``run_region``, against the
  oracle (floats, forward and backward) or the integer rules; here also the adjoint
  identity and the same bits at every lower SIMD level and, at ``avx512``, with the
  unrolled rows of weight-1 sums (``_kernels._init_simd``, in this process);
* ``nd`` cases (``test_fuzz``'s configuration dicts and ``check``): 1-D to 4-D float32 /
  float64, axes in any order, transposed, stepped, flipped and byte-swapped views.

Run from the repository root::

    PYTHONPATH=src:tests python -m helpers.fuzz_large --seed 1 --count 200
    PYTHONPATH=src:tests python -m helpers.fuzz_large --seed 2 --minutes 30 --log /tmp/f.jsonl

Any case reruns alone: ``check_large(make_large_case(seed, i))``. Every failure is
printed with its case; the summary counts the cases per category and the kernel paths
their plans compiled (``paths``).
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import sys
import time
import traceback

import numpy as np

import cresize
import test_fuzz as nd
import test_fuzz_fast as fast
from cresize import _kernels, _plan
from helpers.cases import COMBOS, by_factors
from helpers.oracle import tolerance

__all__ = ["check_large", "make_large_case", "paths"]

#: Values (input or output, the larger) of a case: 2**LOG_VALUES[0] to 2**LOG_VALUES[1].
LOG_VALUES = (15.0, 22.0)
MAX_AXIS = 2000
#: Longer axes (the long signals, up to 2**20) skip the oracle: bits across threads,
#: ``out=``, plans, regions and SIMD levels only.
ORACLE_AXIS = 6000
FACTORS = (2.0, 0.5, 2.0, 0.5, 3.0, 1 / 3, 4.0, 0.25, 1.5, 0.75)
DTYPES = fast.INTS + fast.FLOATS + ("float32", "uint8", "uint16", "float64")


def _lengths(rng, total, n_axes, rest):
    """``n_axes`` axis lengths (each <= MAX_AXIS) whose product times ``rest`` is about ``total``."""
    left = max(1.0, total / rest)
    out = []
    for k in range(n_axes, 0, -1):  # a share of what is left, near the geometric mean
        share = 1.0 if k == 1 else rng.uniform(0.4, 1.6) / k
        n = int(min(MAX_AXIS, max(1, round(left**share))))
        out.append(n)
        left = max(1.0, left / n)
    out = [out[int(i)] for i in rng.permutation(n_axes)]
    if rng.random() < 0.5:  # odd lengths often
        out = [n | 1 if n < MAX_AXIS else n - 1 for n in out]
    return out


def make_large_case(seed: int, index: int, focus: str = "all") -> dict:
    """Case ``index`` of campaign ``seed`` (a ``fast`` or ``nd`` dict), reproducible alone.
    ``focus="blocks"``: only exact integer factors and their inverses, nearest, bilinear
    and area, 8/16-bit and float32 more often (the 2x2 block sweeps, the 16-bit halves,
    weight-1 sums, periodic passes); ``focus="unit"``: float32/float64 nearest by integer
    factors (backward: the sums of weight 1)."""
    rng = np.random.default_rng([seed, index, 7])
    blocks = focus in ("blocks", "unit")
    if not blocks and rng.random() < 0.2:
        return _nd_case(rng, seed, index)
    dtypes = DTYPES + ("uint16", "int16", "uint8", "int8", "float32") * 2 if blocks else DTYPES
    dtype = dtypes[int(rng.integers(0, len(dtypes)))]
    if focus == "unit":  # the backward of x2 nearest: 2x2 sums of weight 1
        dtype = str(rng.choice(["float32", "float32", "float64"]))
    if focus == "unit":
        mode, align_corners, antialias = str(rng.choice(["nearest", "nearest-exact"])), False, False
    elif rng.random() < (0.8 if blocks else 0.4):  # the 2x2 block paths, gathers, weight-1 sums
        mode = str(rng.choice(["nearest", "nearest-exact", "bilinear", "area"]))
        align_corners, antialias = False, False
    else:
        mode, align_corners, antialias = COMBOS[int(rng.integers(0, len(COMBOS)))]
    total = 2.0 ** rng.uniform(*LOG_VALUES)
    if focus == "unit":
        f = float(rng.choice([2.0, 2.0, 2.0, 4.0, 3.0]))
    elif blocks:
        f = float(rng.choice([2.0, 0.5, 0.5, 4.0, 0.25, 3.0, 1 / 3]))
    elif rng.random() < 0.75:
        f = float(rng.choice(FACTORS))
    else:
        f = float(rng.uniform(0.3, 3.5))
    grow = max(1.0, f * f)  # the output's share of ``total``, the larger of the two
    layout = int(rng.integers(0, 6))
    if layout == 0:  # (H, W, C) image
        c = int(rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 9]))
        h, w = _lengths(rng, total / grow, 2, c)
        shape, axes = (h, w, c), (0, 1)
    elif layout == 1:  # (N, H, W, C) batch
        n, c = int(rng.integers(1, 4)), int(rng.integers(1, 6))
        h, w = _lengths(rng, total / grow, 2, n * c)
        shape, axes = (n, h, w, c), (1, 2)
    elif layout == 2:  # planar (N, C, H, W) feature maps
        n, c = int(rng.integers(1, 3)), int(rng.integers(1, 9))
        h, w = _lengths(rng, total / grow, 2, n * c)
        shape, axes = (n, c, h, w), (2, 3)
    elif layout == 3:  # (N, H, W)
        n = int(rng.integers(1, 5))
        h, w = _lengths(rng, total / grow, 2, n)
        shape, axes = (n, h, w), (1, 2)
    else:  # (L,) or (L, C) signals, or a height alone
        c = int(rng.integers(1, 10))
        one = max(f, 1.0)
        if layout == 4:
            shape, axes = (int(min(2**20, total / one / c)), c), (0,)
            if rng.random() < 0.4:
                shape = (shape[0] * c,)
        else:  # one axis of a planar image: the sums of whole rows, rings
            h, w = _lengths(rng, total / one, 2, 1)
            shape, axes = (h, w), (0,)
    shape = tuple(max(1, int(n)) for n in shape)
    if rng.random() < 0.55 and not align_corners:
        factors = [f] * len(axes) if rng.random() < 0.7 else [f, 1.0][: len(axes)]
        lengths, factors, geometry = by_factors(shape, axes, factors)
    else:
        lengths = [max(1, round(shape[a] * f)) for a in axes]
        if len(axes) == 2 and rng.random() < 0.3:
            lengths[int(rng.integers(0, 2))] = shape[axes[1]] if rng.random() < 0.5 else 1
            lengths = [max(1, n) for n in lengths]
        geometry, factors = dict(size=tuple(lengths)), None
    return dict(
        kind="fast",
        seed=seed,
        focus=focus,
        index=seed * 10**7 + index,
        dtype=dtype,
        shape=shape,
        axes=axes,
        lengths=lengths,
        factors=factors,
        geometry=geometry,
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
        view=int(rng.integers(0, 4)),
        extremes=bool(rng.random() < 0.3),
        # the oracle's dense matrices: axes of at most ORACLE_AXIS inputs and outputs
        oracle=all(shape[a] <= ORACLE_AXIS and n <= ORACLE_AXIS for a, n in zip(axes, lengths)),
    )


def _nd_case(rng, seed, index):
    """A ``test_fuzz`` configuration of large shape: 1-4 dimensions, axes in any order."""
    mode, align_corners, antialias = COMBOS[int(rng.integers(0, len(COMBOS)))]
    ndim = int(rng.integers(1, 5))
    total = 2.0 ** rng.uniform(LOG_VALUES[0], LOG_VALUES[1] - 1.5)
    n_res = int(rng.integers(1, ndim + 1))
    resized = tuple(int(a) for a in rng.permutation(ndim)[:n_res])
    f = float(rng.choice(FACTORS)) if rng.random() < 0.6 else float(rng.uniform(0.3, 3.2))
    shape = [1] * ndim
    big = _lengths(rng, total / max(1.0, f) ** n_res, ndim, 1)
    for a in range(ndim):
        shape[a] = big[a] if a in resized else min(big[a], 7)
    shape = tuple(shape)
    by_size = bool(rng.random() < 0.5) or align_corners
    if by_size:
        lengths = [max(1, round(shape[a] * f)) for a in resized]
        geometry, factors = dict(size=tuple(lengths)), None
    else:
        factors = [f if rng.random() < 0.8 else 1.0 for _ in resized]
        lengths, factors, geometry = by_factors(shape, resized, factors)
    axes = tuple(a - ndim if rng.random() < 0.2 else a for a in resized)
    return dict(
        kind="nd",
        seed=seed,
        index=seed * 10**7 + index,
        shape=shape,
        axes=axes,
        resized=resized,
        lengths=lengths,
        factors=factors,
        geometry=geometry,
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
        dtype=(np.float32, np.float64)[int(rng.integers(0, 2))],
        x_view=nd._layout(rng, ndim),
        g_view=nd._layout(rng, ndim),
        out=bool(rng.random() < 0.3),
        threads=[None, 1, 2, 3][int(rng.integers(0, 4))],
    )


def _options(case):
    return dict(mode=case["mode"], align_corners=case["align_corners"], antialias=case["antialias"])


def _kwargs(case):
    return dict(**case["geometry"], axes=case["axes"], **_options(case))


def _other_levels():
    """Every SIMD level below this process's, and at ``avx512`` its unrolled rows of
    2x2 sums of weight 1 (``_kernels._unit_rows_unrolled``, off by default)."""
    here = _kernels.simd_level()
    levels = list(_kernels.SIMD_LEVELS[: _kernels.SIMD_LEVELS.index(here)])
    return levels + ["avx512+unrolled"] if here == "avx512" else levels


def _set_level(level):
    name, _, unrolled = level.partition("+")
    os.environ["CRESIZE_SIMD"] = name
    _kernels._init_simd()  # the unrolled rows off
    if unrolled:
        _kernels._unit_rows_unrolled(True)
    assert _kernels.simd_level() == name, (level, _kernels.simd_level())


def _adjoint(case, x, y, g, gx):
    """``<W x, g> == <x, W^T g>`` with cresize's two results (finite inputs only)."""
    if g is None or not (np.isfinite(x).all() and np.isfinite(g).all()):
        return False
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    y64, gx64 = y.astype(np.float64), gx.astype(np.float64)
    lhs, rhs = float(np.vdot(y64, g64)), float(np.vdot(x64, gx64))
    p = cresize.plan(case["shape"], **_kwargs(case), dtype=x.dtype)
    fs = math.prod(float(np.abs(w).sum(axis=1).max()) for w in p.weights.values())
    bs = math.prod(float(np.abs(w).sum(axis=0).max()) for w in p.weights.values())
    bound = tolerance(x.dtype) * (
        fs * np.abs(x64).max() * np.abs(g64).sum() + bs * np.abs(g64).max() * np.abs(x64).sum()
    )
    bound += 1e-13 * (np.abs(y64 * g64).sum() + np.abs(x64 * gx64).sum())
    assert abs(lhs - rhs) <= bound, f"adjoint: {lhs!r} != {rhs!r} (bound {bound:.3e})"
    return True


def _simd(case, x, y, g, gx):
    """The same bits at every other SIMD level (forward and backward, 1-3 threads)."""
    rng = np.random.default_rng([case["index"], 3])
    xv = fast._view(x, case["view"])
    here, setting = _kernels.simd_level(), os.environ.get("CRESIZE_SIMD")
    backward = dict(axes=case["axes"], **_options(case))
    if case["factors"] is not None:
        backward["scale_factor"] = case["geometry"]["scale_factor"]
    try:
        for level in _other_levels():
            _set_level(level)
            threads = int(rng.integers(1, 4))
            again = cresize.resize(xv, **_kwargs(case), num_threads=threads)
            fast.assert_same_bits(again, y, f"SIMD {level}, {threads} threads")
            if g is not None:
                again = cresize.resize_backward(g, case["shape"], **backward, num_threads=threads)
                fast.assert_same_bits(again, gx, f"SIMD {level} backward, {threads} threads")
    finally:
        _set_level(here)
        if setting is None:  # the process's setting as it was (the level is the same)
            del os.environ["CRESIZE_SIMD"]
        else:
            os.environ["CRESIZE_SIMD"] = setting


def paths(case) -> set[str]:
    """The kernel paths the case's forward and backward plans compiled (by name)."""
    seen = set()
    dtype = np.dtype(case["dtype"])
    p = cresize.plan(case["shape"], **_kwargs(case), dtype=dtype)
    programs = [("fwd", p._forward)]
    if dtype.kind == "f" and dtype.itemsize >= 4:
        programs.append(("bwd", p._backward))
    names = {_plan.FUSED: "FUSED", _plan.LINES: "LINES", _plan.PLANES: "PLANES"}
    for direction, program in programs:
        if program.identity:
            seen.add(f"{direction}:identity")
            continue
        if program.selection:
            seen.add(f"{direction}:selection")
        kernel = np.dtype(program.run_dtype) if dtype.kind == "f" else dtype
        if dtype.kind in "iu" and dtype.itemsize >= 4:
            seen.add(f"{direction}:wide-int")
            kernel = np.dtype(program.run_dtype)
        for (axes, order, _slots), step in zip(program.steps, program.compiled(kernel)):
            kind, work, s = step[0], step[5], step[4]
            if not work:
                continue
            tag = f"{direction}:{names.get(kind, kind)}"
            if len(axes) == 2:
                tag += f":{_kernels.Order(order).name}"
            seen.add(tag)
            seen.add("quick" if work >= _plan.QUICK_MIN_WORK else "small")
            if work >= 3 * _plan.MIN_WORK_PER_THREAD:
                seen.add("team3")
            if work >= 2 * _plan.MIN_WORK_PER_THREAD:
                seen.add("pair2")
            if hasattr(s, "blocks"):
                yb, xb = s.blocks
                if yb:
                    seen.add(f"y_block{yb}")
                if xb:
                    seen.add(f"x_block{xb}")
                if s.unit_blocks:
                    seen.add("unit_blocks")
                if s.same_x_weights:
                    seen.add("same_x_weights")
                if s.period[0]:
                    seen.add("periodic")
                if s.exact_float32:
                    seen.add("periodic16_exact32")
                if kind == _plan.FUSED and 1 < s.channels <= 16:
                    seen.add(f"channels{s.channels}")
    return seen


def category(case) -> str:
    dtype = str(np.dtype(case["dtype"]))
    if case["kind"] == "nd":
        return f"nd/{len(case['shape'])}d/{dtype}"
    return f"fast/{dtype}/{case['mode']}{'+ac' if case['align_corners'] else ''}{'+aa' if case['antialias'] else ''}"


def check_large(case) -> dict:
    """Every check of one case; returns what it reached."""
    info = dict(paths=sorted(paths(case)))
    if case["kind"] == "nd":
        nd.check(case)
        return info
    if not case["oracle"]:
        x, y, g, gx = fast.run(case)
        _simd(case, x, y, g, gx)
        return info
    ran = []
    run = fast.run
    fast.run = lambda c: ran.append(run(c)) or ran[-1]  # ``check`` runs it: keep the results
    try:
        fast.check(case)
    finally:
        fast.run = run
    x, y, g, gx = ran[0]
    dtype = np.dtype(case["dtype"])
    if dtype.kind == "f" and dtype.itemsize >= 4:
        info["adjoint"] = _adjoint(case, x, y, g, gx)
    _simd(case, x, y, g, gx)
    return info


def _describe(case):
    return json.dumps(
        {k: (str(np.dtype(v)) if k == "dtype" else v) for k, v in case.items()}, default=str
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--log", default=None, help="append one JSON line per case")
    parser.add_argument("--focus", choices=["all", "blocks", "unit"], default="all")
    args = parser.parse_args(argv)
    np.seterr(invalid="ignore", over="ignore")
    import warnings

    warnings.simplefilter("ignore", RuntimeWarning)
    started = time.perf_counter()
    counts: collections.Counter[str] = collections.Counter()
    reached: collections.Counter[str] = collections.Counter()
    failures = []
    log = open(args.log, "a") if args.log else None
    done = 0
    for i in range(args.start, args.start + args.count):
        if args.minutes is not None and time.perf_counter() - started > 60 * args.minutes:
            break
        case = make_large_case(args.seed, i, args.focus)
        t0 = time.perf_counter()
        try:
            info = check_large(case)
            ok = True
        except Exception as exc:
            ok, info = False, dict(error=f"{type(exc).__name__}: {exc}")
            failures.append((i, case))
            print(f"FAIL seed {args.seed} case {i}: {_describe(case)}", flush=True)
            traceback.print_exc()
        done += 1
        counts[category(case)] += 1
        counts[case["kind"]] += 1
        reached.update(info.get("paths", []))
        if log:
            log.write(
                json.dumps(
                    dict(
                        i=i,
                        ok=ok,
                        s=round(time.perf_counter() - t0, 2),
                        cat=category(case),
                        shape=case["shape"],
                        **info,
                    )
                )
                + "\n"
            )
            log.flush()
    wall = time.perf_counter() - started
    print(f"seed {args.seed}: {done} cases from {args.start}, {len(failures)} failed, {wall:.0f} s")
    print("categories:", json.dumps(dict(sorted(counts.items()))))
    print("paths:", json.dumps(dict(sorted(reached.items()))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
