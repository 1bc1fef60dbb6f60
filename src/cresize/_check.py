"""``cresize check``: run the gradient verification matrix and print a table.

Every mode x align_corners x antialias x dtype x a set of awkward geometries
(1-pixel input and output, identity axes, extreme ratios, odd sizes,
non-integer scale factors, 1-D / 2-D / 3-D, a HWC image) is checked with
``cresize.testing``: the adjoint identity, float64 finite differences, the dense
reference, and PyTorch's ``F.interpolate`` (values and gradient) when torch is
installed and has the mode (nearest indices that PyTorch picks with its float32
scale, the specification's section 3, "Modes" (docs/spec.md), are tolerated when
they are within one of cresize's and PyTorch's values and gradient are exactly the
gather at its own indices and that gather's adjoint). Exit status 1 when anything fails (a ``--json`` report that
could not be written too: ``cresize check: --json: cannot write r.json: No space left on
device``), and before the run when
torch is installed but fails to import (its error is printed; ``--no-torch`` runs
without it).

``--forward MODULE:NAME`` / ``--backward MODULE:NAME`` check another implementation
(callables with the signatures of ``cresize.resize`` / ``cresize.resize_backward``;
``MODULE`` is imported with the current folder on ``sys.path``) instead of cresize's
own, with the adjoint, finite-difference and reference checks; the PyTorch column,
which compares cresize with PyTorch, is then left out.

``--layouts ncw,nchw,...`` gives every case in those array layouts instead of its own
shape (for an implementation that takes only, say, ``(N, C, H, W)`` arrays): a case
that resizes as many axes as a layout has spatial letters (``d``, ``h``, ``w``) runs
with those axes where the letters are and its other lengths folded into ``n`` and
``c``; the cases that fit none of the layouts are left out, and the summary names them.
"""

import argparse
import functools
import importlib
import json
import math
import os
import sys
import time
import traceback

import numpy as np

import cresize
from cresize import _optional, _spec, testing
from cresize._atomic import _write_atomic, cannot_write
from cresize._tables import MODES

#: (name, input shape, size, scale_factor, axes, in the --quick set)
CASES = (
    ("1d-up-odd", (2, 7), (12,), None, None, True),
    ("1d-down-odd", (2, 13), (5,), None, None, False),
    ("1px-input", (1, 6), (4, 3), None, None, True),
    ("1px-output", (5, 7), (1, 1), None, None, False),
    ("identity", (2, 5, 6), (5, 6), None, None, True),
    ("identity-one-axis", (3, 8, 6), (8, 11), None, None, False),
    ("extreme-down-97to3", (2, 97, 3), (3,), None, (1,), False),
    ("extreme-up-3to41", (1, 2, 3), (29, 41), None, None, False),
    ("odd-nchw", (2, 3, 7, 9), (5, 11), None, None, True),
    ("scale-1.7x0.45", (2, 9, 10), None, (1.7, 0.45), None, True),
    ("scale-1.5", (4, 6, 5), None, 1.5, None, False),
    ("hwc", (6, 5, 3), (4, 9), None, (0, 1), False),
    ("3d-volume", (1, 5, 6, 7), (3, 8, 4), None, None, True),
)

DTYPES = (np.float64, np.float32)

#: --layouts: the array layouts a case can be given in. ``n`` and ``c`` take the
#: case's axes that are not resized (``c`` the last of them, ``n`` the product of
#: the others, 1 where there are none); ``d``, ``h``, ``w`` its resized axes, in order.
LAYOUTS = ("ncw", "nchw", "ncdhw", "nwc", "nhwc", "ndhwc")

#: PyTorch computes float32 source coordinates in float32, so its float32 weights
#: are off by about ``|K'| * eps32 * src``: float32 rows are compared with PyTorch
#: within ``TOLERANCES[float32] + TORCH_FLOAT32_SLACK * (longest resized length)``.
TORCH_FLOAT32_SLACK = 4 * 2.0**-23


def _int_or_text(text):
    """An option's int, or its text where it is none (``--threads 2.5``): refused after
    parsing by the option's one rule (``_spec.threads_value``), in the words of its other
    refusals, not argparse's "invalid int value"."""
    try:
        return int(text)
    except ValueError:
        return text


def main(argv=None):
    """Run the matrix; return 0 when every check passes, 1 otherwise, 2 on bad usage."""
    parser = argparse.ArgumentParser(
        prog="cresize check", description="Run the gradient verification matrix."
    )
    parser.add_argument(
        "--modes", help=f"comma-separated modes (default: all of {', '.join(MODES)})"
    )
    parser.add_argument("--quick", action="store_true", help="a smaller set of geometries")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch comparison")
    parser.add_argument("--failures-only", action="store_true", help="print failing rows only")
    parser.add_argument(
        "--time",
        action="store_true",
        help="say the run's wall time in the summary line (default: left out, so that two "
        "runs of one command print the same)",
    )
    parser.add_argument(
        "--threads",
        type=_int_or_text,
        metavar="N",
        help="num_threads of every call (default: OpenMP's default)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the random inputs (default 0; the PyTorch comparison draws from seed + 1)",
    )
    parser.add_argument(
        "--dtypes",
        help="comma-separated dtypes of the inputs (default: float64,float32)",
    )
    parser.add_argument(
        "--layouts",
        help=f"comma-separated array layouts to give every case in, leaving out the cases "
        f"that fit none (e.g. nchw for an implementation that takes only (N, C, H, W) "
        f"arrays; choose from {', '.join(LAYOUTS)}; default: each case's own shape, "
        f"1-D to 4-D, channels-last too)",
    )
    parser.add_argument(
        "--rtol",
        type=float,
        metavar="R",
        help="relative tolerance of every check, for every dtype (default: 1e-12 for "
        "float64, 2e-6 for float32, 1e-8 for finite differences, and PyTorch's float32 "
        "slack)",
    )
    for which, like in (("forward", "resize"), ("backward", "resize_backward")):
        parser.add_argument(
            f"--{which}",
            metavar="MODULE:NAME",
            help=f"check this {which} (a callable like cresize.{like}, MODULE importable "
            f"from the current folder) instead of cresize's; leaves out the PyTorch column",
        )
    try:
        args = parser.parse_args(argv)
        testing._seed(args.seed, "--seed")
        modes = _modes(args.modes)
        dtypes = _dtypes(args.dtypes)
        layouts = _layouts(args.layouts)
        if args.rtol is not None:  # inf too: every check would pass, whatever it measured
            testing._positive(args.rtol, "--rtol")
        if args.threads is not None and args.forward and args.backward:  # was passed over
            raise ValueError(
                "--threads sets num_threads of cresize's calls; with --forward and "
                "--backward both given, no call is cresize's"
            )
        implementation = {
            which: _callable(getattr(args, which), f"--{which}")
            for which in ("forward", "backward")
            if getattr(args, which) is not None
        }
        _spec.threads_value(args.threads, "--threads")
        json_target(args.json)  # before the run, not after
    except SystemExit as exc:
        return exc.code
    except (TypeError, ValueError) as exc:
        print(f"cresize check: {exc}", file=sys.stderr)
        return 2
    try:
        # None when not installed; installed but failing to import: named, not skipped.
        # The column compares cresize (not another implementation) with PyTorch.
        torch = None if args.no_torch or implementation else _optional.load("torch")
    except _optional.BrokenDependencyError as exc:
        print(
            f"cresize check: {exc}; repair it, or pass --no-torch to check "
            f"without the PyTorch comparison",
            file=sys.stderr,
        )
        return 1
    cases = [c for c in CASES if c[5] or not args.quick]
    runs = [(c, None) for c in cases]  # (case, the layout it is given in)
    if layouts is not None:
        runs = [(in_layout(c, layout), layout) for c in cases for layout in layouts]
        runs = [(c, layout) for c, layout in runs if c is not None]
    left_out = [c[0] for c in cases if c[0] not in {r[0][0] for r in runs}]  # --layouts
    start = time.perf_counter()
    rows = [
        dict(
            run_one(
                case,
                mode,
                ac,
                aa,
                dtype,
                torch,
                args.threads,
                seed=args.seed,
                rtol=args.rtol,
                **implementation,
            ),
            layout=layout,
        )
        for mode in modes
        for ac, aa in option_combinations(mode)
        for case, layout in runs
        for dtype in dtypes
    ]
    seconds = time.perf_counter() - start
    compared = (
        torch.__version__
        if torch is not None
        else "not compared (--no-torch)"
        if args.no_torch
        else "not compared (--forward/--backward given)"
        if implementation
        else "not compared (not installed)"
    )
    checked = {w: getattr(args, w) or f"cresize.{n}" for w, n in _CRESIZE.items()}
    failed = [r for r in rows if not r["passed"]]
    # The report before the table: a reader of stdout that stops early (| head) ends the
    # command as it prints, which lost the report.
    unwritten = None
    if args.json is not None:
        try:
            write_json(
                args.json,
                {
                    "cresize": cresize.__version__,
                    "torch": None if torch is None else torch.__version__,
                    "tolerances": {str(k): v for k, v in testing.TOLERANCES.items()},
                    "fd_tolerance": testing.FD_TOLERANCE,
                    "rtol": args.rtol,
                    "seed": args.seed,
                    "layouts": layouts,  # null: each case's own shape
                    "left_out": left_out,
                    "forward": checked["forward"],
                    "backward": checked["backward"],
                    "failed": len(failed),
                    "results": rows,
                },
            )
        except OSError as exc:  # the folder went, the disk is full: no traceback
            unwritten = exc
    _print_table([r for r in rows if not args.failures_only or not r["passed"]])
    for row in failed:
        print(f"FAIL {_label(row)}: {row['message']}")
    print(
        f"{len(rows)} configurations, {len(failed)} failed"
        + (f", {seconds:.1f} s" if args.time else "")  # the one thing that differs run to run
        + f"; cresize {cresize.__version__}, torch {compared}, seed {args.seed}"
        + (f"; checked {checked['forward']} and {checked['backward']}" if implementation else "")
        + (f"; rtol {args.rtol:g} for every check" if args.rtol is not None else "")
        + (
            f"; layouts {','.join(layouts)}"
            + (f" (left out, fitting none: {', '.join(left_out)})" if left_out else "")
            if layouts is not None
            else ""
        )
    )
    float32 = [r for r in rows if r["dtype"] == "float32"]
    if float32 and all("returned dtype float64; expected float32" in r["message"] for r in float32):
        print(  # an implementation that computes in float64 only: every float32 row failed
            "every float32 configuration failed: the implementation returned float64; "
            "to check float64 only, pass --dtypes float64"
        )
    if unwritten is not None:  # a failure of the run (1), not of its usage (2)
        print(f"cresize check: --json: {cannot_write(args.json, unwritten)}", file=sys.stderr)
        return 1
    return 1 if failed else 0


def json_target(path, option="--json"):
    """Refuse ``path`` (``None``: not given) before a run when the report could not be
    written there after it: a folder, a missing folder, one (or a file) not writable."""
    if path is None:
        return
    if not path:  # --json "": passed over without a word (check), a traceback (golden)
        raise ValueError(f"{option}: give a file name; got an empty one")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{option}: no such folder: {folder}")
    if os.path.isdir(path):
        raise ValueError(
            f"{option}: {path} is a folder; give a file name (e.g. {path}/report.json)"
        )
    if not os.access(path if os.path.exists(path) else folder, os.W_OK):
        raise ValueError(f"{option}: cannot write {path} (no permission)")
    if not os.access(os.path.dirname(os.path.realpath(path)), os.W_OK):  # see write_json
        raise ValueError(f"{option}: cannot write {path} (no permission to make a file beside it)")


def write_json(path, report):
    """Write ``report`` to ``path`` as strict JSON (RFC 8259, which has no NaN or
    Infinity): a number that is not finite is written as null (the report's message
    gives it). The text is made first and written with ``write_text``: a write that
    fails (a full disk, a value JSON has no form for) leaves an earlier report whole
    and no partial one (``path`` opened for writing was emptied first)."""
    write_text(path, json.dumps(_finite(report), indent=1, allow_nan=False))


def write_text(path, text, overwrite=True):
    """Write ``text`` (UTF-8) to ``path`` as ``cresize resize`` writes an image
    (``_atomic._write_atomic``: a file beside ``path``, synced, renamed over it, the mode
    of a file it replaces kept, a link written through; without ``overwrite`` a file
    there is a ``FileExistsError``), for every file the commands write. An ``OSError``
    names ``path`` (one of the write itself, a full disk, named no file)."""
    data = text.encode("utf-8")
    try:
        _write_atomic(path, lambda f: f.write(data), overwrite)
    except OSError as exc:
        if exc.filename is None:
            exc.filename = path
        raise


def _finite(value):
    """``value`` with every float that is not finite (NaN, inf) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def in_layout(case, layout):
    """``case`` (a ``CASES`` entry) given in ``layout`` (one of ``LAYOUTS``), or None when
    it resizes another number of axes than the layout has spatial letters.

    The same resize: the resized lengths, ``size`` and ``scale_factor`` are kept, the
    resized axes move to the layout's ``d``/``h``/``w`` (``axes`` None where resize's
    default axes are those, as in ``CASES``) and the other lengths fold into ``n`` and ``c``."""
    name, shape, size, scale_factor, axes, quick = case
    resized = _spec.resize_axes(len(shape), size, scale_factor, axes)
    spatial = [i for i, letter in enumerate(layout) if letter in "dhw"]
    if len(resized) != len(spatial):
        return None
    others = [n for a, n in enumerate(shape) if a not in resized]
    lengths = {"n": int(np.prod(others[:-1])), "c": others[-1] if others else 1}
    lengths.update(zip("dhw"[3 - len(resized) :], (shape[a] for a in resized)))
    new_shape = tuple(lengths[letter] for letter in layout)
    spatial = tuple(spatial)  # left out where resize's default axes (_spec) are these
    default = _spec.resize_axes(len(layout), size, scale_factor, None) == spatial
    return (name, new_shape, size, scale_factor, None if default else spatial, quick)


def option_combinations(mode):
    """The ``(align_corners, antialias)`` pairs that ``mode`` accepts."""
    return [(c["align_corners"], c["antialias"]) for c in _spec.configurations((mode,))]


def run_one(
    case,
    mode,
    align_corners,
    antialias,
    dtype,
    torch=None,
    num_threads=None,
    seed=0,
    forward=None,
    backward=None,
    rtol=None,
):
    """Check one configuration; a dict with the numbers, ``passed`` and ``message``.

    ``seed`` seeds the ``cresize.testing`` checks; the PyTorch comparison draws from
    ``seed + 1``. ``forward`` / ``backward``: the implementation checked (default
    cresize's, with ``num_threads``). ``rtol``: the tolerance of every check instead of
    ``TOLERANCES[dtype]``, ``FD_TOLERANCE`` and the PyTorch float32 slack."""
    name, shape, size, scale_factor, axes, _ = case
    dtype = np.dtype(dtype)
    options = dict(
        scale_factor=scale_factor,
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
        axes=axes,
    )
    threads = (
        {}
        if num_threads is None
        else dict(
            forward=functools.partial(cresize.resize, num_threads=num_threads),
            backward=functools.partial(cresize.resize_backward, num_threads=num_threads),
        )
    )
    threads.update({k: f for k, f in (("forward", forward), ("backward", backward)) if f})
    row = dict(
        case=name,
        shape=list(shape),
        size=_jsonable(size),
        scale_factor=_jsonable(scale_factor),
        axes=_jsonable(axes),
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
        dtype=dtype.name,
        adjoint=None,
        gradient=None,
        reference=None,
        torch=None,
        torch_tolerated=False,
    )
    messages = []
    checks = [
        ("adjoint", testing.check_adjoint, dict(dtype=dtype)),
        ("reference", testing.check_reference, dict(dtype=dtype)),
    ]
    if dtype == np.float64:
        checks.append(("gradient", testing.check_gradient, {}))
    tolerance = testing.TOLERANCES[dtype] if rtol is None else rtol

    def _said(run, limit):
        """The check's own failure at the row's tolerance ``limit`` (None if it passes or
        crashes now: it ran once already, a second run says nothing new)."""
        try:
            run(rtol=limit)
        except AssertionError as exc:
            return exc
        except Exception:
            pass
        return None

    for key, check, extra in checks:
        limit = testing.FD_TOLERANCE if key == "gradient" and rtol is None else tolerance
        run = functools.partial(check, shape, size, seed=seed, **options, **extra, **threads)
        try:
            row[key] = run(rtol=np.inf)  # measures: the error, whatever it is
        except Exception as exc:  # a crash is a failure of this row, not of the run
            # A NaN error (or a wrong shape or dtype, an input written into) fails even a
            # check that measures: the message is the one of the row's own tolerance (it
            # said "> rtol inf" and "off by more than inf").
            if isinstance(exc, AssertionError):
                exc = _said(run, limit) or exc
            messages.append(f"{key}: {type(exc).__name__}: {exc}")
            continue
        if not row[key] <= limit:
            # what check_reference says about a failure: which values, where, what it
            # looks like (the inner-product checks cannot say; the reference runs in both)
            said = _said(run, limit) if key == "reference" else None
            messages.append(
                f"{key} error {row[key]:.3e} > {limit:.1e}" + (f" ({said})" if said else "")
            )
    if torch is not None:
        try:
            row["torch"] = torch_deviation(
                torch, shape, size, dtype=dtype, num_threads=num_threads, seed=seed + 1, **options
            )
        except Exception as exc:
            messages.append(f"torch: {type(exc).__name__}: {exc}")
        limit = tolerance
        if dtype == np.float32 and rtol is None:  # PyTorch: float32 coordinates in float32
            geometry = _spec.axis_geometry(_spec.forward(shape, size, **options))
            limit += TORCH_FLOAT32_SLACK * max(max(n_in, n_out) for _, n_in, n_out, _ in geometry)
        if row["torch"] is not None and not row["torch"] <= limit:
            problem = f"torch deviation {row['torch']:.3e} > {limit:.1e}"
            if mode in ("nearest", "nearest-exact"):
                # PyTorch computes nearest indices with a float32 scale (docs/spec.md
                # section 3): tolerated when its indices are within one of cresize's and
                # its values and gradient are exactly those of its own indices.
                try:
                    off, value, gradient = torch_nearest_deviation(
                        torch,
                        shape,
                        size,
                        dtype=dtype,
                        num_threads=num_threads,
                        seed=seed + 1,
                        **options,
                    )
                    why = [
                        f"indices up to {off} apart" if off > 1 else "",
                        f"values {value:.3e} from a gather at its own indices"
                        if not value <= tolerance
                        else "",
                        f"PyTorch's gradient is not the adjoint of its own forward "
                        f"(deviation {gradient:.3e})"
                        if not gradient <= tolerance
                        else "",
                    ]
                except Exception as exc:
                    why = [f"{type(exc).__name__}: {exc}"]
                if not any(why):
                    row["torch_tolerated"] = True
                else:
                    messages.append(
                        f"{problem}, not explained by PyTorch's float32 nearest indices: "
                        + ", ".join(w for w in why if w)
                    )
            else:
                messages.append(problem)
    row["passed"] = not messages
    row["message"] = "; ".join(messages)
    return row


def torch_deviation(torch, shape, size=None, **options):
    """Largest deviation of cresize from ``F.interpolate`` (value and gradient), relative.

    The resized axes are moved last and the others flattened into the batch, so
    any geometry PyTorch can express is compared. Returns None when PyTorch has
    no equivalent of the configuration. ``options``: those of ``cresize.resize``
    and ``dtype``, ``seed`` (1), ``num_threads``.
    """
    run = _torch_run(torch, shape, size, **options)
    if run is None:
        return None
    ours = (run["to_torch"](run["y"]), run["to_torch"](run["dx"]))
    return max(_deviations(torch, run, ours))


def torch_nearest_deviation(torch, shape, size=None, **options):
    """PyTorch's nearest (or nearest-exact) against a gather at its own indices.

    Each axis's source indices are read from ``F.interpolate`` of that axis's
    ``arange``. Returns ``(offset, value, gradient)``: the largest distance between
    PyTorch's and cresize's index of an output, and the relative deviations of
    PyTorch's value from the gather at PyTorch's indices and of its gradient from
    that gather's exact adjoint (0 for a correct implementation, whatever its index
    rule); None when PyTorch has no equivalent of the configuration.
    """
    run = _torch_run(torch, shape, size, **options)
    if run is None:
        return None
    inputs = tuple(run["xt"].shape[2:])
    offset, ours = 0, (run["xt"].detach().numpy(), run["gt"].numpy())
    for k, matrix in enumerate(run["matrices"].values()):
        probe = np.arange(inputs[k], dtype=np.float64).reshape(
            [-1 if d == k else 1 for d in range(len(inputs))]
        )
        probe = torch.from_numpy(np.broadcast_to(probe, inputs).copy())
        picked = torch.nn.functional.interpolate(probe[None, None], **run["kwargs"])
        index = picked[0, 0].numpy()[
            tuple(slice(None) if d == k else 0 for d in range(len(inputs)))
        ]
        index = np.rint(index).astype(np.intp)
        offset = max(offset, int(np.abs(index - matrix.argmax(axis=1)).max(initial=0)))
        gather = np.zeros_like(matrix)
        gather[np.arange(len(index)), np.clip(index, 0, inputs[k] - 1)] = 1.0
        ours = (
            testing._contract(ours[0], 2 + k, gather),
            testing._contract(ours[1], 2 + k, gather.T),
        )
    return (offset, *_deviations(torch, run, tuple(torch.from_numpy(a) for a in ours)))


def _torch_run(torch, shape, size=None, *, dtype=np.float64, seed=1, num_threads=None, **options):
    """cresize's and ``F.interpolate``'s results and gradients of one seeded
    configuration (None when PyTorch has no equivalent); ``options``: those of
    ``cresize.resize`` (its defaults, normalised once by ``_spec.forward``)."""
    spec = _spec.forward(shape, size, **options)  # canonical: an alias ("cubic") as its name
    matrices = testing._matrices(spec)
    axes = tuple(matrices)  # sorted; spec.axes as given (a size tuple pairs with them)
    n = len(axes)
    kwargs = dict(mode=_spec.torch_name(spec.mode, n), antialias=spec.antialias)
    if _spec.takes_align_corners(spec.mode):  # F.interpolate: None with the others
        kwargs["align_corners"] = spec.align_corners
    if not _spec.torch_takes(kwargs["mode"], n, kwargs.get("align_corners"), spec.antialias):
        return None
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape).astype(dtype)
    y = cresize.resize(x, size, **options, num_threads=num_threads)
    g = rng.uniform(-1, 1, y.shape).astype(dtype)
    dx = cresize.resize_backward(g, x.shape, **options, num_threads=num_threads)
    last = tuple(range(len(shape) - n, len(shape)))

    def to_torch(a):
        a = np.moveaxis(a, axes, last)
        return torch.from_numpy(
            np.ascontiguousarray(a).reshape((-1, 1) + a.shape[len(shape) - n :])
        )

    xt = to_torch(x).requires_grad_(True)
    geometry = _spec.axis_geometry(spec)
    if size is not None:
        kwargs["size"] = tuple(n_out for _, _, n_out, _ in geometry)
    else:
        kwargs["scale_factor"] = tuple(f for _, _, _, f in geometry)
    yt = torch.nn.functional.interpolate(xt, **kwargs)
    yt.backward(to_torch(g))
    return dict(
        x=x,
        g=g,
        y=y,
        dx=dx,
        xt=xt,
        yt=yt.detach(),
        gt=to_torch(g),
        grad=xt.grad,
        matrices=matrices,
        kwargs=kwargs,
        to_torch=to_torch,
    )


def _deviations(torch, run, ours):
    """The relative deviations of PyTorch's value and gradient from ``ours``."""
    deviations = []
    for mine, theirs, a, mats in (
        (ours[0], run["yt"], run["x"], run["matrices"].values()),
        (ours[1], run["grad"], run["g"], [w.T for w in run["matrices"].values()]),
    ):
        mine = mine.to(torch.float64)
        theirs = theirs.to(torch.float64)
        if mine.shape != theirs.shape:
            raise AssertionError(
                f"PyTorch returned shape {tuple(theirs.shape)}, cresize {tuple(mine.shape)}"
            )
        scale = float(np.abs(a).max()) * float(np.prod([np.abs(w).sum(axis=1).max() for w in mats]))
        deviation = float((mine - theirs).abs().max()) if mine.numel() else 0.0
        deviations.append(deviation / scale if scale else deviation)
    return tuple(deviations)


#: What --forward and --backward replace.
_CRESIZE = {"forward": "resize", "backward": "resize_backward"}


def _callable(text, option):
    """The callable ``MODULE:NAME`` names (``MODULE`` importable from the current folder)."""
    module, _, name = text.partition(":")
    if not module or not name:
        raise ValueError(f"{option}: expected MODULE:NAME (e.g. mymodule:resize); got {text!r}")
    dotted = module.removesuffix(".py").replace(os.sep, ".").replace("/", ".")
    if "/" in module or os.sep in module or os.path.isfile(module):
        # a file's name: "No module named 'port.py'; 'port' is not a package" (a module
        # "mypackage.py", with no such file here, is a name)
        raise ValueError(
            f"{option}: MODULE is a module's name, not its file: {dotted}:{name}, "
            f"not {text} (importable from the current folder)"
        )
    if "" not in sys.path and os.getcwd() not in sys.path:  # the console script's path
        sys.path.insert(0, os.getcwd())
    try:
        value = importlib.import_module(module)
    except ImportError as exc:
        raise ValueError(f"{option}: cannot import {module!r}: {exc}") from None
    except Exception as exc:  # the module itself fails (a SyntaxError, an error as it runs):
        # it was a traceback, exit status 1; the line that raised, as a SyntaxError says it
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = "" if isinstance(exc, SyntaxError) else f" ({frame.filename}, line {frame.lineno})"
        raise ValueError(
            f"{option}: cannot import {module!r}: {type(exc).__name__}: {exc}{where}"
        ) from None
    for part in name.split("."):
        if not hasattr(value, part):
            raise ValueError(f"{option}: {module!r} has no attribute {name!r}")
        value = getattr(value, part)
    if not callable(value):
        raise ValueError(f"{option}: {text} is not callable; got {value!r}")
    return value


def _dtypes(text):
    if text is None:
        return list(DTYPES)
    return [np.dtype(n) for n in _listed(text, "dtypes", ("float64", "float32"))]


def _layouts(text):
    return None if text is None else _listed(text.lower(), "layouts", LAYOUTS)


def _listed(text, option, allowed):
    """The names of a comma-separated ``--OPTION`` value, each one of ``allowed``, once."""
    names = [n.strip() for n in text.split(",")]
    for name in names:
        if name not in allowed:
            raise ValueError(
                f"--{option}: unknown {option[:-1]} {name!r}; choose from {', '.join(allowed)}"
            )
    return list(dict.fromkeys(names))


def _modes(text):
    if text is None:
        return list(MODES)
    modes = []
    for name in text.split(","):
        try:
            modes.append(_spec.canonical_mode(name.strip()))
        except (TypeError, ValueError):
            raise ValueError(
                f"--modes: unknown mode {name.strip()!r}; choose from {', '.join(MODES)}"
                + _spec.mode_hint(name)
            ) from None
    return list(dict.fromkeys(modes))


def _jsonable(value):
    if value is None or isinstance(value, (int, float)):
        return value
    return list(value)


def _label(row):
    return (
        f"{row['mode']} ac={int(row['align_corners'])} aa={int(row['antialias'])} "
        f"{row['dtype']} {_case(row)}"
    )


def _case(row):
    """The case's name, and the layout it was given in (--layouts)."""
    return row["case"] + (f" {row['layout']}" if row.get("layout") else "")


def _print_table(rows):
    width = max([20, *(len(_case(r)) + 2 for r in rows)])
    header = (
        f"{'mode':14s}{'ac':>3s}{'aa':>3s}  {'dtype':8s}{'case':{width}s}{'adjoint':>10s}"
        f"{'fin.diff':>10s}{'reference':>10s}{'torch':>10s}  result"
    )
    print(header)
    print("-" * len(header))

    def cell(value, tolerated=False):
        return f"{'-':>9s} " if value is None else f"{value:9.1e}" + ("*" if tolerated else " ")

    for r in rows:
        print(
            f"{r['mode']:14s}{int(r['align_corners']):3d}{int(r['antialias']):3d}  "
            f"{r['dtype']:8s}{_case(r):{width}s}{cell(r['adjoint'])}{cell(r['gradient'])}"
            f"{cell(r['reference'])}{cell(r['torch'], r['torch_tolerated'])}  "
            f"{'ok' if r['passed'] else 'FAIL'}"
        )
    if any(r["torch_tolerated"] for r in rows):
        print(
            "* PyTorch picks some nearest indices with a float32 scale (within one of "
            "cresize's; its values and gradient are exact at its indices); the exact rule "
            "(cresize's specification, section 3: docs/spec.md in the source distribution and "
            "the documentation) wins"
        )
