"""A seeded fuzz campaign of hostile arguments to the public API (not a test module).

Each case takes a valid call of one entry point (``ENTRIES``: ``cresize.resize``,
``resize_backward``, ``weights``, ``plan`` and its calls ``p(x, out=)`` and
``p.backward(g, out=)``, ``cresize.testing``'s functions, ``cresize.torch``'s
``interpolate`` and ``Resize``, ``cresize.dask``'s ``resize`` and ``resize_backward``,
``cresize.image``'s ``resize_image``, ``save_image`` and ``open_image`` on in-memory
arrays) and corrupts one or two of its arguments (``corruptions``: wrong types, NumPy
scalars of every kind, 0-d arrays, sequences of the wrong length or nesting, negative,
zero and huge numbers, unknown modes and near misses, forbidden option pairs; arrays of
every dtype, 0-d, empty, strided, flipped, read-only, broadcast, byte-swapped,
unaligned, subclasses; ``out`` aliasing the input or of the wrong shape, dtype, strides
or flags). Every corruption says what it must do (``Bad.expect``):

* ``"same"``: a value of the same meaning (``np.int32(3)`` for ``3``, a list for a tuple,
  a strided array): the call must succeed, equal (bit for bit) to the clean call;
* ``"refuse"``: the call must raise ``ValueError`` or ``TypeError`` naming the argument;
* ``"any"``: either that error, or a result equal to the call with ``Bad.normal`` (the
  corrupted value in its plain form: a clean copy of a corrupted array, a plain int).

``check`` runs one case and also asserts that no other exception type escapes
(``MemoryError`` is documented for sizes that cannot fit, ``NotImplementedError`` for
``cresize.torch``'s rank rules, as ``F.interpolate``), that the inputs (and ``out`` on an
error) are unchanged byte for byte, and that no process-wide state changed
(``STATE``: the plan cache's limits and, after an error, its bytes; the thread settings,
the SIMD level, NumPy's error state). The campaign (``campaign``) runs the cases in
child processes, each case time-boxed, so a segmentation fault or a hang is reported
with its case, and the child restarts after it::

    PYTHONPATH=src:tests python -m helpers.fuzz_api --seed 1 --minutes 20
    PYTHONPATH=src:tests python -m helpers.fuzz_api --seed 1 --count 500 --entry resize

One case reruns alone, in this process: ``check(make_case(seed, index))``.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import fractions
import importlib.util
import io
import json
import math
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from typing import Any, NamedTuple

import numpy as np

import cresize
import cresize.testing as ct
from cresize import _kernels, _spec

__all__ = ["ENTRIES", "campaign", "check", "make_case"]

HAVE_TORCH = importlib.util.find_spec("torch") is not None
HAVE_DASK = importlib.util.find_spec("dask") is not None
HAVE_PIL = importlib.util.find_spec("PIL") is not None

#: Exceptions a call may raise besides ValueError and TypeError: for sizes that cannot
#: fit (documented for every entry point) and ``F.interpolate``'s rank rule (torch).
DOCUMENTED = (MemoryError,)
#: Seconds a case may take in the campaign's child before it counts as a hang.
CASE_TIMEOUT = 60.0


class Bad(NamedTuple):
    """A corrupted value: ``label`` (how it was made), ``value``, what it must do
    (``expect``: ``"same"``, ``"refuse"`` or ``"any"``), ``normal`` (for ``"any"``: the
    value in its plain form, which the clean call takes instead)."""

    label: str
    value: Any
    expect: str
    normal: Any = None


class IntSub(int):
    """An int subclass (an ``IntEnum`` would do the same): an int."""


class FloatSub(float):
    """A float subclass: a float."""


class StrSub(str):
    """A str subclass: a str."""


class ArraySub(np.ndarray):
    """A plain ndarray subclass (no extra behaviour)."""


def _plain_array(a):
    """A C-contiguous, native-order, writeable, aligned copy of an array's values (an
    ndarray of the same dtype), the clean form of a corrupted array."""
    a = np.asarray(a)
    dtype = a.dtype.newbyteorder("=") if a.dtype.byteorder not in "=|" else a.dtype
    return np.array(a, dtype=dtype, order="C", copy=True)


INT_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
FLOAT_TYPES = (np.float16, np.float32, np.float64, np.longdouble)


def _fits(v, t):
    info = np.iinfo(t)
    return info.min <= v <= info.max


def _junk(rng):
    """Values that are no number, sequence, string or flag any argument takes."""
    return [
        Bad("object", object(), "refuse"),
        Bad("dict", {"a": 1}, "refuse"),
        Bad("set", {1}, "refuse"),
        Bad("complex", 1 + 2j, "refuse"),
        Bad("np.complex128", np.complex128(2), "refuse"),
        Bad("np.datetime64", np.datetime64("2020-01-01"), "refuse"),
        Bad("np.timedelta64", np.timedelta64(3, "s"), "refuse"),
        Bad("np.void", np.zeros((), "V4")[()], "refuse"),
        Bad("Ellipsis", ..., "refuse"),
        Bad("slice", slice(1, 3), "refuse"),
        Bad("bytes", b"\x00\x01", "refuse"),
        Bad("function", len, "refuse"),
        Bad("nested", [[1, 2], [3]], "refuse"),
        Bad("0d-object", np.array(object()), "refuse"),
        Bad("0d-str", np.array("3"), "refuse"),
    ]


def int_bads(v, rng, valid, none="refuse", none_normal=None, seq=False):
    """Corruptions of the int ``v``; ``valid(n)``: whether the plain int ``n`` is
    allowed (else refused); ``none``: what None must do; ``seq``: a sequence of one
    int is also the argument (a size or axes, not a count)."""
    out = [Bad(f"np.{t.__name__}", t(v), "same") for t in INT_TYPES if _fits(v, t)]
    out += [
        Bad("0d-int", np.array(v), "same"),
        Bad("IntSub", IntSub(v), "same"),
        Bad("float", float(v), "refuse"),
        Bad("np.float64", np.float64(v), "refuse"),
        Bad("np.float32", np.float32(v), "refuse"),
        Bad("0d-float", np.array(float(v)), "refuse"),
        Bad("bool", bool(v % 2), "refuse"),
        Bad("np.bool_", np.bool_(True), "refuse"),
        Bad("0d-bool", np.array(True), "refuse"),
        Bad("str", str(v), "refuse"),
        Bad("np.str_", np.str_(str(v)), "refuse"),
        Bad("None", None, none, none_normal),
        Bad("nan", math.nan, "refuse"),
        Bad("inf", math.inf, "refuse"),
        Bad("-inf", -math.inf, "refuse"),
        Bad("1e308", 1e308, "refuse"),
        Bad("fraction", fractions.Fraction(v), "refuse"),
    ]
    for n in (0, -1, -v, 2, 2**31, 2**40 - 1, 2**40, 2**62, 2**63, 2**64, -(2**63), 10**30):
        out.append(Bad(f"int {n}", n, "any" if valid(n) else "refuse", n))
    for t in (np.int64, np.uint64):
        for n in (0, 2**63 - 1, 2**64 - 1):
            if _fits(n, t):
                out.append(Bad(f"np.{t.__name__} {n}", t(n), "any" if valid(n) else "refuse", n))
    if seq:
        out.append(Bad("list1", [v], "any", (v,)))
    else:
        out += [Bad("list1", [v], "refuse"), Bad("tuple1", (v,), "refuse")]
        out.append(Bad("1d-int", np.array([v]), "refuse"))
    return out + _junk(rng)


def ints_bads(vs, rng, valid_entry, n_max):
    """Corruptions of a tuple of ints ``vs`` (a size, axes): sequence forms, wrong
    lengths and nesting, bad entries; ``valid_entry(n)``: an entry allowed alone."""
    vs = tuple(vs)
    out = [
        Bad("list", list(vs), "same"),
        Bad("1d-int64", np.array(vs, np.int64), "same"),
        Bad("1d-int32", np.array(vs, np.int32), "same"),
        Bad("1d-uint16", np.array(vs, np.uint16), "same") if min(vs) >= 0 else None,
        Bad("np-entries", tuple(np.int16(v) for v in vs), "same"),
        Bad("0d-entries", tuple(np.array(v) for v in vs), "same"),
        Bad("IntSub-entries", tuple(IntSub(v) for v in vs), "same"),
        Bad("empty", (), "refuse"),
        Bad("empty-list", [], "refuse"),
        Bad("empty-array", np.array([], np.int64), "refuse"),
        Bad("nested", (vs,), "refuse"),
        Bad("2d-array", np.array([vs]), "refuse"),
        Bad("1d-float", np.array(vs, np.float64), "refuse"),
        Bad("float-entry", (*vs[:-1], float(vs[-1])), "refuse"),
        Bad("bool-entry", (*vs[:-1], True), "refuse"),
        Bad("none-entry", (*vs[:-1], None), "refuse"),
        Bad("str-entry", (*vs[:-1], "2"), "refuse"),
        Bad("str", "".join(map(str, vs)), "refuse"),
        Bad("longer", vs + vs[-1:] * (n_max + 1), "refuse"),
        Bad("too-long-by-1", vs + (vs[-1],), "any", vs + (vs[-1],)),
        Bad("shorter", vs[:-1], "any", vs[:-1]),
        Bad("generator", (v for v in vs), "any", vs),
        Bad("range", range(len(vs)), "any", tuple(range(len(vs)))),
    ]
    for n in (0, -1, 2**40, 2**63, 2**64, -(2**63)):
        entry = (*vs[:-1], n)
        out.append(Bad(f"entry {n}", entry, "any" if valid_entry(n) else "refuse", entry))
    return [b for b in out if b is not None] + _junk(rng)


def real_bads(f, rng, none="refuse", none_normal=None):
    """Corruptions of a positive float ``f`` (exact in float16)."""
    out = [
        Bad("np.float64", np.float64(f), "same"),
        Bad("np.float32", np.float32(f), "same"),
        Bad("np.float16", np.float16(f), "same"),
        Bad("0d-float", np.array(f), "same"),
        Bad("0d-float32", np.array(f, np.float32), "same"),
        Bad("FloatSub", FloatSub(f), "same"),
        Bad("fraction", fractions.Fraction(f), "same"),
        Bad("np.longdouble", np.longdouble(f), "same"),
        Bad("bool", True, "refuse"),
        Bad("np.bool_", np.bool_(True), "refuse"),
        Bad("str", str(f), "refuse"),
        Bad("None", None, none, none_normal),
        Bad("nan", math.nan, "refuse"),
        Bad("np.nan32", np.float32("nan"), "refuse"),
        Bad("inf", math.inf, "refuse"),
        Bad("-inf", -math.inf, "refuse"),
        Bad("0", 0.0, "refuse"),
        Bad("-0", -0.0, "refuse"),
        Bad("negative", -f, "refuse"),
        Bad("1e308", 1e308, "refuse"),
        Bad("5e-324", 5e-324, "refuse"),
        Bad("int 2**63", 2**63, "refuse"),
        Bad("int 10**400", 10**400, "refuse"),
        Bad("np.uint64 max", np.uint64(2**64 - 1), "refuse"),
        Bad("1d-float", np.array([f]), "any", (f,)),
        Bad("list", [f], "any", (f,)),
    ]
    if f == int(f):
        out += [Bad("int", int(f), "same"), Bad("np.int8", np.int8(int(f)), "same")]
    return out + _junk(rng)


def flag_bads(v, name, rng, none):
    """Corruptions of the flag ``v``; ``none``: what None must do (``align_corners``:
    False)."""
    return [
        Bad("np.bool_", np.bool_(v), "same"),
        Bad("not", not v, "any", not v),
        Bad("int", int(v), "refuse"),
        Bad("np.int8", np.int8(v), "refuse"),
        Bad("float", float(v), "refuse"),
        Bad("str", str(v), "refuse"),
        Bad("str-false", "False", "refuse"),
        Bad("0d-bool", np.array(v), "refuse"),
        Bad("1d-bool", np.array([v]), "refuse"),
        Bad("None", None, none, False),
        Bad("list", [v], "refuse"),
        Bad("nan", math.nan, "refuse"),
        *_junk(rng),
    ]


def mode_bads(mode, rng):
    """Near misses and wrong types for a mode name."""
    out = [
        Bad("StrSub", StrSub(mode), "same"),
        Bad("np.str_", np.str_(mode), "same"),
        Bad("upper", mode.upper(), "refuse"),
        Bad("title", mode.title(), "refuse"),
        Bad("space", mode + " ", "refuse"),
        Bad("nul", mode + "\0", "refuse"),
        Bad("cut", mode[:-1], "refuse"),
        Bad("empty", "", "refuse"),
        Bad("unicode", mode.replace("i", "\u0131"), "refuse" if "i" in mode else "same"),
        Bad("bytes", mode.encode(), "refuse"),
        Bad("list", [mode], "refuse"),
        Bad("None", None, "refuse"),
        Bad("int", 2, "refuse"),
        Bad("0d-str", np.array(mode), "refuse"),
        Bad("lanczos", "lanczos", "refuse"),
        Bad("nearest_exact", "nearest_exact", "any", "nearest-exact"),
        Bad("cubic", "cubic", "any", "bicubic"),
        Bad("trilinear", "trilinear", "any", "bilinear"),
    ]
    for other in cresize.MODES:
        out.append(Bad(f"mode {other}", other, "any", other))
    return out + _junk(rng)


def shape_bads(shape, rng, same_ndim):
    """Corruptions of a whole shape; ``same_ndim``: another number of dimensions is
    refused (``resize_backward``), else it is another valid shape."""
    shape = tuple(shape)
    other = "refuse" if same_ndim else "any"
    return [
        Bad("list", list(shape), "same"),
        Bad("1d-int64", np.array(shape, np.int64), "same"),
        Bad("1d-uint8", np.array(shape, np.uint8), "same"),
        Bad("np-entries", tuple(np.int32(n) for n in shape), "same"),
        Bad("negative", (*shape[:-1], -1), "refuse"),
        Bad("huge", (*shape[:-1], 2**40), "refuse"),
        Bad("2**63", (*shape[:-1], 2**63), "refuse"),
        Bad("bool", (*shape[:-1], True), "refuse"),
        Bad("float", (*shape[:-1], float(shape[-1])), "refuse"),
        Bad("float-array", np.array(shape, np.float64), "refuse"),
        Bad("array", np.zeros(shape, np.float32), "refuse"),
        Bad("str", str(shape), "refuse"),
        Bad("int", shape[-1], "refuse"),
        Bad("None", None, "refuse"),
        Bad("nested", (shape,), "refuse"),
        Bad("empty", (), "refuse"),
        Bad("extra", shape + (1,), other, shape + (1,)),
        Bad("fewer", shape[1:], other, shape[1:]),
        Bad("zero", (*shape[:-1], 0), "any", (*shape[:-1], 0)),
        *_junk(rng),
    ]


def dtype_bads(dtype, rng):
    """Corruptions of a dtype argument (``plan``'s, ``cresize.testing``'s)."""
    out = [
        Bad("np.dtype", np.dtype(dtype), "same"),
        Bad("type", np.dtype(dtype).type, "same"),
        Bad("swapped", np.dtype(dtype).newbyteorder(">"), "same"),
        Bad("char", np.dtype(dtype).char, "same"),
        Bad("None", None, "any", np.dtype(None)),
        Bad("nonsense", "floot32", "refuse"),
        Bad("int", 3, "refuse"),
        Bad("structured", np.dtype([("a", "f4")]), "refuse"),
        Bad("subarray", np.dtype(("f4", (2,))), "refuse"),
        Bad("list", [dtype], "refuse"),
    ]
    for d in ("bool", "complex64", "complex128", "object", "M8[s]", "m8[s]", "U3", "S3", "V4"):
        out.append(Bad(f"dtype {d}", d, "refuse"))
    for d in ("float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32"):
        out.append(Bad(f"dtype {d}", d, "any", np.dtype(d)))
    return out + _junk(rng)


#: dtypes of a corrupted array: every kind
ARRAY_DTYPES = (
    "float16 float32 float64 longdouble int8 uint8 int16 uint16 int32 uint32 int64 uint64 "
    "bool complex64 complex128 object M8[s] m8[s] U2 S2 V8"
).split()


def array_bads(x, rng, *, sub_ok=True, masked="refuse"):
    """Corruptions of an array argument ``x``: the same values in another layout
    (``same``), another dtype, shape or class (``any``, against the call on a clean
    copy of the corrupted array)."""
    x = np.asarray(x)
    out = []
    big = np.zeros(x.shape + (2,), x.dtype)
    big[..., 0] = x
    out.append(Bad("strided", big[..., 0], "same"))
    flipped = np.ascontiguousarray(np.flip(x))
    out.append(Bad("flipped", np.flip(flipped), "same"))
    if x.ndim >= 2:
        out.append(Bad("fortran", np.asfortranarray(x), "same"))
        t = np.ascontiguousarray(np.swapaxes(x, -1, -2))
        out.append(Bad("transposed", np.swapaxes(t, -1, -2), "same"))
    ro = x.copy()
    ro.flags.writeable = False
    out.append(Bad("read-only", ro, "same"))
    if x.ndim >= 1 and x.shape[0] > 0:
        row = x[:1].copy()
        out.append(
            Bad(
                "broadcast",
                np.broadcast_to(row, x.shape),
                "any",
                _plain_array(np.broadcast_to(row, x.shape)),
            )
        )
    out.append(Bad("big-endian", x.astype(x.dtype.newbyteorder(">")), "any", x.copy()))
    raw = np.zeros(x.nbytes + 1, np.uint8)
    unaligned = raw[1:].view(x.dtype).reshape(x.shape)
    unaligned[...] = x
    out.append(Bad("unaligned", unaligned, "any", x.copy()))
    out.append(Bad("list", x.tolist(), "any", _plain_array(np.asarray(x.tolist()))))
    out.append(Bad("ArraySub", x.view(ArraySub), "same" if sub_ok else "any", x.copy()))
    if x.ndim == 2:
        out.append(Bad("matrix", np.asmatrix(x), "any", x.copy()))
    out.append(Bad("masked", np.ma.masked_array(x, mask=np.zeros(x.shape, bool)), masked, x))
    for d in ARRAY_DTYPES:
        if d == "V8":
            y = np.zeros(x.shape, "V8")
        elif d[0] in "Mm":
            y = np.zeros(x.shape, d)
        else:
            with np.errstate(all="ignore"), contextlib.suppress(Exception):
                y = x.astype(d)
        out.append(Bad(f"dtype {d}", y, "any", _plain_array(y)))
    struct = np.zeros(x.shape, [("a", x.dtype), ("b", x.dtype)])
    out.append(Bad("structured", struct, "any", struct.copy()))
    zero_d = np.array(x.reshape(-1)[0] if x.size else 1, x.dtype)
    out.append(Bad("0-d", zero_d, "any", zero_d.copy()))
    out.append(Bad("scalar", zero_d[()], "any", zero_d.copy()))
    for label, shape in (
        ("empty-lead", (0,) + x.shape),
        ("empty-last", x.shape[:-1] + (0,)),
        ("extra-dim", (2,) + x.shape),
        ("fewer-dims", x.shape[1:]),
        ("longer-last", x.shape[:-1] + (x.shape[-1] + 1,) if x.ndim else (2,)),
    ):
        y = np.resize(x, shape) if math.prod(shape) else np.zeros(shape, x.dtype)
        out.append(Bad(label, y, "any", y.copy()))
    nan = x.astype(np.float64) if x.dtype.kind != "f" else x.copy()
    if nan.size:
        nan.reshape(-1)[0] = np.nan
        nan.reshape(-1)[-1] = np.inf
        out.append(Bad("nan-values", nan, "any", nan.copy()))
    for junk in ("str", None, 3, 2.5, b"xy", [[1, 2], [3]], {"a": 1}):
        out.append(Bad(f"junk {type(junk).__name__}", junk, "refuse"))
    return out


def out_bads(out, inputs, rng):
    """Corruptions of ``out`` (a valid one given): every one is refused, but a
    subclass (``any``) and another valid ``out`` (``same``)."""
    strided = np.empty(out.shape + (2,), out.dtype)[..., 0]  # (contiguous where tiny)
    result = [
        Bad("ArraySub", out.view(ArraySub), "any", None),
        Bad("fresh", np.empty_like(out), "same"),
        Bad("None", None, "same"),
        Bad("read-only", _readonly(out), "refuse"),
        Bad(
            "big-endian",
            out.astype(out.dtype.newbyteorder(">")),
            "refuse" if out.dtype.itemsize > 1 else "same",
        ),
        Bad("wrong-shape", np.empty(out.shape + (1,), out.dtype), "refuse"),
        Bad("wrong-shape2", np.empty(out.shape[:-1] + (out.shape[-1] + 1,), out.dtype), "refuse"),
        Bad("0-d", np.empty((), out.dtype), "refuse"),
        Bad("list", out.tolist(), "refuse"),
        Bad("masked", np.ma.masked_array(out.copy()), "refuse"),
        Bad("strided", strided, "same" if strided.flags.c_contiguous else "refuse"),
        Bad("broadcast", np.broadcast_to(np.empty(out.shape[-1:], out.dtype), out.shape), "refuse"),
    ]
    if out.ndim >= 2 and out.shape[-1] > 1 and out.shape[-2] > 1:
        result.append(Bad("fortran", np.asfortranarray(out), "refuse"))
    if out.ndim == 2:
        result.append(Bad("matrix", np.asmatrix(out.copy()), "refuse"))
    raw = np.zeros(out.nbytes + 1, np.uint8)
    result.append(Bad("unaligned", raw[1:].view(out.dtype).reshape(out.shape), "any", None))
    for d in (
        "float16",
        "float32",
        "float64",
        "uint8",
        "int16",
        "int64",
        "bool",
        "complex128",
        "object",
    ):
        if np.dtype(d) != out.dtype:
            result.append(Bad(f"dtype {d}", np.zeros(out.shape, d), "refuse"))
    for x in inputs:  # aliasing or overlapping the input
        x = np.asarray(x)
        if x.shape == out.shape and x.dtype == out.dtype:
            result.append(Bad("is-input", x, "refuse"))
        flat = x.reshape(-1) if x.flags.c_contiguous and x.dtype == out.dtype else None
        n = math.prod(out.shape)
        if flat is not None and 1 <= n <= flat.size:  # out in the input's memory
            result.append(Bad("overlap-start", flat[:n].reshape(out.shape), "refuse"))
            result.append(Bad("overlap-end", flat[flat.size - n :].reshape(out.shape), "refuse"))

    return result + _junk(rng)[:6]


def in_out(x, out):
    """[Bad] of an input ``x`` moved into the memory of ``out`` (its values copied
    there), which the call must refuse; none where ``out`` is too small."""
    x = np.asarray(x)
    if out is None or out.dtype != x.dtype or out.size < x.size or x.size == 0:
        return []
    view = out.reshape(-1)[out.size - x.size :].reshape(x.shape)
    view[...] = x
    return [Bad("in-out", view, "refuse")]


def _readonly(a):
    a = a.copy()
    a.flags.writeable = False
    return a


# ----------------------------------------------------------------------------
# Valid calls


class Call(NamedTuple):
    """A valid call: ``run(args)`` makes it; ``bads(args, rng)``: each argument's
    corruptions, ``{name: [Bad]}``; ``arrays``: the names whose values must stay
    unchanged."""

    entry: str
    args: dict
    run: Any
    bads: Any


def _geometry(rng, ndim_range=(1, 4), min_len=1):
    ndim = int(rng.integers(*ndim_range, endpoint=True))
    shape = tuple(int(n) for n in rng.integers(min_len, 7, ndim))
    n_axes = int(rng.integers(1, min(2, ndim), endpoint=True))
    axes = tuple(sorted(int(a) for a in rng.choice(ndim, n_axes, replace=False)))
    config = list(_spec.configurations())[int(rng.integers(0, 14))]
    return shape, axes, config


def _spec_of(shape, args):
    """The ``Spec`` of ``resize`` of ``shape`` with the (valid) keywords ``args``."""
    return _spec.forward(
        shape,
        args.get("size"),
        args.get("scale_factor"),
        args["mode"],
        args["align_corners"],
        args["antialias"],
        args.get("axes"),
    )


def _size_args(rng, shape, axes):
    """``size`` or ``scale_factor`` (exact in float16), and ``axes`` or not."""
    kw = {}
    if rng.random() < 0.6:
        sizes = tuple(int(n) for n in rng.integers(1, 9, len(axes)))
        kw["size"] = sizes if rng.random() < 0.7 or len(set(sizes)) > 1 else sizes[0]
    else:
        f = tuple(float(rng.choice([0.5, 1.5, 2.0, 3.0, 1.25])) for _ in axes)
        f = tuple(max(v, 1.0) if shape[a] * v < 1 else v for v, a in zip(f, axes))
        kw["scale_factor"] = f if len(set(f)) > 1 or rng.random() < 0.5 else f[0]
    default = tuple(range(len(shape) - min(2, len(shape)), len(shape)))
    if axes != default or rng.random() < 0.5:
        kw["axes"] = axes if len(axes) > 1 or rng.random() < 0.5 else axes[0]
    return kw


def _array(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 4).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape, endpoint=True).astype(
        dtype
    )


def _common_bads(args, rng, ndim):
    """Corruptions of the arguments ``resize`` and its relatives share."""
    bads = {}
    if "size" in args:
        s = args["size"]
        valid = lambda n: 1 <= n < 2**40  # noqa: E731
        bads["size"] = (
            ints_bads(s, rng, valid, ndim)
            if isinstance(s, tuple)
            else int_bads(s, rng, valid, seq=True)
        )
    if "scale_factor" in args:
        f = args["scale_factor"]
        bads["scale_factor"] = real_bads(f if not isinstance(f, tuple) else f[-1], rng)
        if isinstance(f, tuple):
            bads["scale_factor"] = [
                Bad(
                    "entry " + b.label,
                    (*f[:-1], b.value),
                    b.expect,
                    None if b.normal is None else (*f[:-1], b.normal),
                )
                for b in bads["scale_factor"]
                if b.label not in ("list", "1d-float")
            ] + [
                Bad("list", list(f), "same"),
                Bad("1d", np.array(f), "same"),
                Bad("longer", f + f, "any", f + f),
            ]
    if "axes" in args:
        a = args["axes"]
        tup = a if isinstance(a, tuple) else (a,)
        neg = tuple(v - ndim for v in tup)
        extra = [
            Bad("negative", neg if isinstance(a, tuple) else neg[0], "same"),
            Bad("duplicate", tup + tup[:1], "refuse"),
            Bad("out-of-range", (*tup[:-1], ndim), "refuse"),
            Bad("out-of-range-neg", (*tup[:-1], -ndim - 1), "refuse"),
            Bad("reversed", tup[::-1], "any", tup[::-1]),
        ]
        valid = lambda n: -ndim <= n < ndim  # noqa: E731
        more = (
            ints_bads(tup, rng, valid, ndim)
            if isinstance(a, tuple)
            else int_bads(a, rng, valid, none="any", seq=True)
        )
        bads["axes"] = extra + more
    # both of size and scale_factor (or neither: their None above)
    if "in_size" in args:  # weights: out_size or scale_factor, both checked
        pass
    elif "size" in args and "scale_factor" not in args:
        bads["scale_factor"] = [Bad("with size", 2.0, "refuse"), Bad("None", None, "same")]
    elif "scale_factor" in args and "size" not in args and "input_shape" not in args:
        bads["size"] = [Bad("with scale_factor", 3, "refuse"), Bad("None", None, "same")]
    mode = args.get("mode", "bilinear")
    bads["mode"] = mode_bads(mode, rng)
    if "align_corners" in args:
        bads["align_corners"] = flag_bads(args["align_corners"], "align_corners", rng, "any")
    if "antialias" in args:
        bads["antialias"] = flag_bads(args["antialias"], "antialias", rng, "refuse")
    if "num_threads" in args:
        bads["num_threads"] = int_bads(
            args["num_threads"], rng, lambda n: n != 0 and n <= 4096, none="any"
        )
    return bads


def _resize_call(rng):
    dtype = str(
        rng.choice(["float32", "float64", "uint8", "int16", "uint16", "float16", "int32", "int8"])
    )
    shape, axes, config = _geometry(rng)
    x = _array(rng, shape, dtype)
    args = {"x": x, **_size_args(rng, shape, axes), **config}
    if rng.random() < 0.4:
        args["num_threads"] = int(rng.choice([1, 2, -1]))
    spec = _spec_of(shape, args)
    if rng.random() < 0.3:
        args["out"] = np.full(spec.output_shape, 7, x.dtype)

    def run(a):
        a = dict(a)
        return cresize.resize(a.pop("x"), **a)

    def bads(a, rng):
        b = _common_bads(a, rng, x.ndim)
        b["x"] = array_bads(a["x"], rng) + in_out(a["x"], a.get("out"))
        if "out" in a:
            b["out"] = out_bads(a["out"], [a["x"]], rng)
        return b

    return Call("resize", args, run, bads)


def _backward_call(rng):
    dtype = str(rng.choice(["float32", "float64"]))
    shape, axes, config = _geometry(rng)
    kw = _size_args(rng, shape, axes)
    spec = _spec_of(shape, {**kw, **config})
    kw.pop("size", None)
    if "scale_factor" not in kw and rng.random() < 0.5:
        kw.pop("axes", None)
    g = _array(rng, spec.output_shape, dtype)
    args = {"grad_output": g, "input_shape": shape, **kw, **config}
    if rng.random() < 0.3:
        args["num_threads"] = int(rng.choice([1, 2, -1]))
    if rng.random() < 0.3:
        args["out"] = np.full(shape, 7, g.dtype)

    def run(a):
        a = dict(a)
        return cresize.resize_backward(a.pop("grad_output"), a.pop("input_shape"), **a)

    def bads(a, rng):
        b = _common_bads(a, rng, g.ndim)
        b["grad_output"] = array_bads(a["grad_output"], rng) + in_out(
            a["grad_output"], a.get("out")
        )
        b["input_shape"] = shape_bads(a["input_shape"], rng, same_ndim=True)
        if "scale_factor" in b:  # None: the shapes' scale, valid here
            b["scale_factor"] = [
                bb._replace(expect="any", normal=None) if bb.label == "None" else bb
                for bb in b["scale_factor"]
            ]
        if "out" in a:
            b["out"] = out_bads(a["out"], [a["grad_output"]], rng)
        return b

    return Call("resize_backward", args, run, bads)


def _weights_call(rng):
    config = list(_spec.configurations())[int(rng.integers(0, 14))]
    n_in = int(rng.integers(1, 9))
    args = {"in_size": n_in, **config}
    if rng.random() < 0.6:
        args["out_size"] = int(rng.integers(1, 9))
    else:
        args["scale_factor"] = float(rng.choice([0.5, 1.5, 2.0, 3.0]))
        args["scale_factor"] = max(args["scale_factor"], 1.0) if n_in < 2 else args["scale_factor"]

    def run(a):
        a = dict(a)
        return cresize.weights(a.pop("in_size"), a.pop("out_size", None), **a)

    def bads(a, rng):
        b = _common_bads(a, rng, 1)
        valid = lambda n: 1 <= n < 2**40  # noqa: E731
        b["in_size"] = int_bads(a["in_size"], rng, valid)
        if "out_size" in a:
            b["out_size"] = int_bads(a["out_size"], rng, valid)
        return b

    return Call("weights", args, run, bads)


def _plan_args(rng, dtype=None):
    if dtype is None:
        dtype = str(rng.choice(["float32", "float64", "uint8", "uint16", "float16", "int16"]))
    shape, axes, config = _geometry(rng)
    args = {"input_shape": shape, **_size_args(rng, shape, axes), **config, "dtype": dtype}
    if rng.random() < 0.3:
        args["num_threads"] = int(rng.choice([1, 2, -1]))
    return args


def _make_plan(a):
    a = dict(a)
    return cresize.plan(a.pop("input_shape"), a.pop("size", None), **a)


def _plan_call(rng):
    args = _plan_args(rng)

    def run(a):
        p = _make_plan(a)
        x = _array(np.random.default_rng(5), p.input_shape, p.dtype)
        return (p.input_shape, p.output_shape, p.axes, p.mode, str(p.dtype), p(x), p._num_threads)

    def bads(a, rng):
        b = _common_bads(a, rng, len(a["input_shape"]))
        b["input_shape"] = shape_bads(a["input_shape"], rng, same_ndim=False)
        b["dtype"] = dtype_bads(a["dtype"], rng)
        return b

    return Call("plan", args, run, bads)


def _plan_run_call(rng, backward):
    pargs = _plan_args(rng, str(rng.choice(["float32", "float64"])) if backward else None)
    p = _make_plan(pargs)
    shape = p.output_shape if backward else p.input_shape
    name = "grad_output" if backward else "x"
    args = {name: _array(rng, shape, p.dtype)}
    if rng.random() < 0.5:
        args["out"] = np.full(p.input_shape if backward else p.output_shape, 7, p.dtype)
    if rng.random() < 0.3:
        args["num_threads"] = int(rng.choice([1, 2, -1]))

    def run(a):
        a = dict(a)
        q = _make_plan(pargs)
        return q.backward(a.pop(name), **a) if backward else q(a.pop(name), **a)

    def bads(a, rng):
        b = {name: array_bads(a[name], rng) + in_out(a[name], a.get("out"))}
        if "out" in a:
            b["out"] = out_bads(a["out"], [a[name]], rng)
        b["num_threads"] = _common_bads({"num_threads": a.get("num_threads", 1)}, rng, 1)[
            "num_threads"
        ]
        return b

    return Call("plan.backward" if backward else "plan.call", args, run, bads)


def _testing_call(rng):
    which = str(
        rng.choice(
            [
                "reference_matrices",
                "reference_resize",
                "reference_backward",
                "check_adjoint",
                "check_gradient",
                "check_reference",
                "adjoint_scale",
            ]
        )
    )
    shape, axes, config = _geometry(rng, (1, 3))
    kw = _size_args(rng, shape, axes)
    args = dict(kw, **config)
    if which == "adjoint_scale":
        m = ct.reference_matrices(shape, **args)
        spec = _spec_of(shape, args)
        args = {
            "x": _array(rng, shape, "float64"),
            "g": _array(rng, spec.output_shape, "float64"),
            "matrices": m,
        }
    elif which == "reference_resize":
        args["x"] = _array(rng, shape, str(rng.choice(["float64", "float32", "uint8"])))
    elif which == "reference_backward":
        spec = _spec_of(shape, args)
        args.pop("size", None)
        args["grad_output"] = _array(rng, spec.output_shape, "float64")
        args["input_shape"] = shape
    elif which == "reference_matrices":
        args["input_shape"] = shape
    else:
        args["shape"] = shape
        args["seed"] = int(rng.integers(0, 100))
        if rng.random() < 0.5:
            args["rtol"] = 1e-6
        if which == "check_gradient":
            args["n_directions"] = int(rng.integers(1, 3))
            args["step"] = 0.5
        elif rng.random() < 0.5:
            args["dtype"] = str(rng.choice(["float32", "float64"]))

    def run(a):
        a = dict(a)
        first = {
            "reference_resize": "x",
            "reference_backward": "grad_output",
            "reference_matrices": "input_shape",
            "adjoint_scale": "x",
        }.get(which, "shape")
        pos = [a.pop(first)]
        if which == "reference_backward":
            pos.append(a.pop("input_shape"))
        if which == "adjoint_scale":
            return ct.adjoint_scale(pos[0], a["g"], a["matrices"])
        if which.startswith("check") or which == "reference_matrices":
            if "size" in a:
                pos.append(a.pop("size"))
        elif "size" in a:
            pos.append(a.pop("size"))
        return getattr(ct, which)(*pos, **a)

    def bads(a, rng):
        if which == "adjoint_scale":
            m = a["matrices"]
            k = next(iter(m))
            return {
                "x": array_bads(a["x"], rng),
                "g": array_bads(a["g"], rng),
                "matrices": [
                    Bad("list", list(m.values()), "refuse"),
                    Bad("bad-axis", {len(a["x"].shape): m[k]}, "refuse"),
                    Bad("neg-axis", {-1: m[k]}, "any", None),
                    Bad("bool-axis", {True: m[k]}, "any", None),
                    Bad("str-axis", {"0": m[k]}, "refuse"),
                    Bad("transposed", {k: m[k].T}, "any", None),
                    Bad("1d", {k: m[k][0]}, "refuse"),
                    Bad("nan", {k: np.full_like(m[k], np.nan)}, "any", None),
                    Bad("complex", {k: m[k].astype(complex)}, "any", None),
                    Bad("object", {k: m[k].astype(object)}, "any", None),
                    Bad("empty", {}, "any", {}),
                    *_junk(rng),
                ],
            }
        b = _common_bads(a, rng, len(shape))
        for name in ("shape", "input_shape"):
            if name in a:
                b[name] = shape_bads(a[name], rng, same_ndim=which == "reference_backward")
        for name in ("x", "grad_output"):
            if name in a:
                b[name] = array_bads(a[name], rng)
        if "dtype" in a:
            b["dtype"] = dtype_bads(a["dtype"], rng)
        if "seed" in a:
            b["seed"] = int_bads(a["seed"], rng, lambda n: n >= 0, none="any")
        if "rtol" in a:  # np.inf: an rtol that only measures (cresize check's)
            b["rtol"] = [
                bb._replace(expect="any", normal=math.inf)
                if bb.label in ("inf", "int 10**400", "1e308", "int 2**63", "np.uint64 max")
                else bb
                for bb in real_bads(a["rtol"], rng, none="any")
            ]
        if "n_directions" in a:  # a count of 2**31 directions is work asked for, no hang
            b["n_directions"] = [
                bb
                for bb in int_bads(a["n_directions"], rng, lambda n: n >= 1)
                if not (bb.expect == "any" and isinstance(bb.normal, int) and bb.normal > 100)
            ]
        if "step" in a:  # any finite step > 0, however large
            b["step"] = [
                bb._replace(expect="any", normal=float(bb.value))
                if bb.label in ("int 2**63", "np.uint64 max", "1e308")
                else bb
                for bb in real_bads(a["step"], rng)
            ]
        if which.startswith("check"):
            b["forward"] = [
                Bad("int", 3, "refuse"),
                Bad("str", "resize", "refuse"),
                Bad("None", None, "same"),
            ]
        return b

    return Call(f"testing.{which}", args, run, bads)


def _torch_call(rng, module):
    import torch

    import cresize.torch as ctorch

    spatial = int(rng.integers(1, 3, endpoint=True))
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4))) + tuple(
        int(n) for n in rng.integers(2, 7, spatial)
    )
    mode = str(
        rng.choice(
            [
                "nearest",
                "nearest-exact",
                "area",
                "lanczos3",
                "cubic",
                ["linear", "bilinear", "trilinear"][spatial - 1],
            ]
        )
    )
    dtype = str(rng.choice(["float32", "float64"]))
    x = torch.from_numpy(_array(rng, shape, dtype))
    args = {"input": x, "mode": mode}
    if rng.random() < 0.6:
        s = tuple(int(n) for n in rng.integers(1, 9, spatial))
        args["size"] = s if rng.random() < 0.7 else s[0]
    else:
        args["scale_factor"] = float(rng.choice([0.5, 1.5, 2.0]))
    if mode not in ("nearest", "nearest-exact", "area") and rng.random() < 0.5:
        args["align_corners"] = bool(rng.random() < 0.5)
    if rng.random() < 0.3:
        args["num_threads"] = 1

    def run(a):
        a = dict(a)
        t = a.pop("input")
        if module:
            return ctorch.Resize(**a)(t)
        return ctorch.interpolate(t, **a)

    def bads(a, rng):
        b = _common_bads({k: v for k, v in a.items() if k != "input"}, rng, spatial)
        # F.interpolate's names are rank-bound (cresize's rules apply to its own), and
        # its sizes are ints or sequences of them: compared where accepted only
        for k in ("size", "mode"):
            if k in b:
                b[k] = [
                    bb._replace(expect="any", normal=None) if bb.expect != "refuse" else bb
                    for bb in (mode_bads(a["mode"], rng) if k == "mode" else b[k])
                ]
        arr = a["input"].numpy()
        tens = []
        for bad in array_bads(arr, rng, masked="any"):
            try:
                t = torch.from_numpy(bad.value) if isinstance(bad.value, np.ndarray) else None
            except (TypeError, ValueError):
                t = None
            if t is not None and type(bad.value) is np.ndarray:
                norm = None if bad.normal is None else torch.from_numpy(_plain_array(bad.normal))
                tens.append(Bad("tensor " + bad.label, t, bad.expect, norm))
            tens.append(Bad("numpy " + bad.label, bad.value, "any", None))
        tens += [
            Bad(
                "channels_last",
                a["input"].contiguous(memory_format=torch.channels_last)
                if arr.ndim == 4
                else a["input"].t()
                if arr.ndim == 2
                else a["input"],
                "same",
            ),
            Bad("requires_grad", a["input"].clone().requires_grad_(), "any", a["input"].clone()),
            Bad("bfloat16", a["input"].to(torch.bfloat16), "any", a["input"].to(torch.bfloat16)),
            Bad("complex", a["input"].to(torch.complex64), "any", None),
            Bad("int", a["input"].to(torch.int32), "any", a["input"].to(torch.int32)),
            Bad("bool", a["input"] > 0, "any", None),
            Bad(
                "expanded",
                a["input"][:, :1].expand_as(a["input"]),
                "any",
                a["input"][:, :1].expand_as(a["input"]).contiguous(),
            ),
            Bad("meta", a["input"].to("meta"), "any", None),
        ]
        b["input"] = tens
        b["recompute_scale_factor"] = flag_bads(False, "recompute_scale_factor", rng, "same")
        return b

    return Call("torch.Resize" if module else "torch.interpolate", args, run, bads)


def _dask_call(rng, backward):
    import dask.array as da

    import cresize.dask as cdask

    if backward:
        call = _backward_call(rng)
        name = "grad_output"
    else:
        call = _resize_call(rng)
        name = "x"
    args = dict(call.args)
    args.pop("out", None)
    args.pop("num_threads", None)
    arr = args[name]
    args[name] = da.from_array(arr, chunks=tuple(max(1, n // 2) for n in arr.shape))
    if rng.random() < 0.3:
        args["chunks"] = "auto"

    def run(a):
        a = dict(a)
        first = a.pop(name)
        f = cdask.resize_backward if backward else cdask.resize
        y = f(first, a.pop("input_shape"), **a) if backward else f(first, **a)
        if y.nbytes > 2**26:  # a huge size asked for: its graph only (computing it
            return (y.shape, str(y.dtype), y.chunks)  # is work, not a hang)
        return y.compute(scheduler="sync")

    def bads(a, rng):
        b = {k: v for k, v in call.bads(dict(a, **{name: arr}), rng).items() if k != "out"}
        b[name] = [Bad(bad.label, bad.value, "any", None) for bad in b[name]]
        b[name] += [
            Bad("dask-of-" + bad.label, da.from_array(bad.value, chunks=2), "any", None)
            for bad in array_bads(arr, rng)[:8]
            if isinstance(bad.value, np.ndarray)
        ]
        # what normalize_chunks takes is Dask's rule: only its clear refusals are asked
        b["chunks"] = [
            Bad("int", 2, "any", 2),
            Bad("zero", 0, "refuse"),
            Bad("negative", -3, "refuse"),
            Bad("str", "lots", "refuse"),
            Bad("float", 1.5, "any", None),
            Bad("nested", ((1,),), "any", None),
            Bad("dict-bad-axis", {99: 2}, "refuse"),
            Bad("None", None, "same"),
            *[bb._replace(expect="any") for bb in _junk(rng)[:5]],
        ]
        b["num_threads"] = int_bads(1, rng, lambda n: n != 0 and n <= 4096, none="any")
        for k in ("size", "scale_factor"):  # 2**31 samples: tables of 32 GiB to build,
            if k in b:  # work asked for (a minute and more), not a hang
                b[k] = [bb for bb in b[k] if "2147483648" not in bb.label]
        return b

    return Call("dask.resize_backward" if backward else "dask.resize", args, run, bads)


def _image_call(rng):
    from cresize import image

    c = int(rng.choice([1, 3, 4]))
    shape = tuple(int(n) for n in rng.integers(2, 12, 2)) + ((c,) if c > 1 else ())
    if rng.random() < 0.5 and c == 3:
        shape = shape[:2]
    dtype = str(rng.choice(["uint8", "uint16", "float32"]))
    x = (
        _array(rng, shape, dtype)
        if dtype != "uint8"
        else rng.integers(0, 256, shape).astype(np.uint8)
    )
    args = {"image": x}
    geometry = str(rng.choice(["size", "scale", "fit", "fill"]))
    if geometry == "scale":
        args["scale"] = 0.5
    else:
        args[geometry] = (int(rng.integers(1, 8)), int(rng.integers(1, 8)))
    if rng.random() < 0.5:
        args["mode"] = str(rng.choice(cresize.MODES))
    if rng.random() < 0.3:
        args["allow_upscale"] = True

    def run(a):
        a = dict(a)
        return image.resize_image(a.pop("image"), **a)

    def bads(a, rng):
        b = {"image": array_bads(a["image"], rng, masked="any")}
        for k in ("size", "fit", "fill"):
            if k in a:  # size: an entry None keeps the aspect ratio; a huge entry of
                # fit or fill may give a small size (fit's other side decides, or the
                # image is not enlarged)
                b[k] = [
                    bb._replace(expect="any", normal=None)
                    if (k == "size" and bb.label == "none-entry")
                    or (
                        k != "size"
                        and bb.label.startswith("entry")
                        and "-" not in bb.label
                        and bb.label != "entry 0"
                    )
                    else bb
                    for bb in ints_bads(a[k], rng, lambda n: n >= 1 and n < 2**40, 2)
                ]
        if "scale" in a:  # a tiny scale gives 1 pixel (at least 1 a side)
            b["scale"] = [
                bb._replace(expect="any", normal=None) if bb.label == "5e-324" else bb
                for bb in real_bads(a["scale"], rng)
            ]
        b["mode"] = mode_bads(a.get("mode", "lanczos3"), rng)
        for k in ("antialias", "allow_upscale", "exact"):
            b[k] = flag_bads(a.get(k, k == "antialias"), k, rng, "refuse")
        b["alpha"] = [
            bb._replace(normal=None) if bb.label == "None" else bb  # the default
            for bb in flag_bads(False, "alpha", rng, "any")
        ]
        b["num_threads"] = int_bads(1, rng, lambda n: n != 0 and n <= 4096, none="any")
        for bad_list in b.values():  # resize_image's numbers may carry another meaning
            bad_list[:] = [
                bb._replace(expect="any") if bb.expect == "same" else bb for bb in bad_list
            ]
        return b

    return Call("image.resize_image", args, run, bads)


def _save_call(rng):
    from cresize import image

    shape = tuple(int(n) for n in rng.integers(1, 9, 2)) + (3,)
    x = rng.integers(0, 256, shape).astype(np.uint8)
    fmt = str(rng.choice(["png", "tiff", "bmp"]))
    args = {"image": x, "format": fmt}
    if fmt in ("jpeg", "webp"):
        args["quality"] = 80
    tmp = tempfile.mkdtemp(prefix="cresize-fuzz-")

    def run(a):
        a = dict(a)
        path = os.path.join(tmp, "out.img")
        a.setdefault("path", path)
        a["overwrite"] = True
        image.save_image(a.pop("image"), a.pop("path"), **a)
        with open(path, "rb") as fh:
            data = fh.read()
        return data

    def bads(a, rng):
        return {
            "image": array_bads(a["image"], rng, masked="any"),
            "format": [
                Bad("upper", a["format"].upper(), "any", a["format"]),
                Bad("unknown", "pgn", "refuse"),
                Bad("None", None, "refuse"),
                Bad("int", 3, "refuse"),
                Bad("bytes", b"png", "refuse"),
                Bad("empty", "", "refuse"),
                Bad("dot", "." + a["format"], "any", None),
            ],
            "quality": int_bads(80, rng, lambda n: 1 <= n <= 100, none="any"),
            "path": [
                Bad("int", 3, "refuse"),
                Bad("None", None, "refuse"),
                Bad("list", ["x"], "refuse"),
                Bad("dir", tmp, "refuse"),
                Bad("bytes", os.fsencode(os.path.join(tmp, "b.img")), "any", None),
                Bad("nul", os.path.join(tmp, "a\0b"), "refuse"),
            ],
        }

    return Call("image.save_image", args, run, bads)


def _open_call(rng):
    from PIL import Image

    from cresize import image

    x = rng.integers(0, 256, (4, 5, 3)).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(x).save(buf, format="png")
    data = buf.getvalue()
    tmp = tempfile.mkdtemp(prefix="cresize-fuzz-")

    def file(name, content):
        path = os.path.join(tmp, name)
        with open(path, "wb") as fh:
            fh.write(content)
        return path

    args = {"path": file("x.png", data)}

    def run(a):
        return np.asarray(image.open_image(a["path"]))

    def bads(a, rng):
        return {
            "path": [
                Bad("truncated", file("t.png", data[: len(data) // 2]), "refuse"),
                Bad("garbage", file("g.png", b"\x89PNG" + bytes(40)), "refuse"),
                Bad("empty", file("e.png", b""), "refuse"),
                Bad("bytes-path", os.fsencode(a["path"]), "same"),
                Bad("nul", a["path"] + "\0", "refuse"),
                Bad("BytesIO", io.BytesIO(data), "any", None),
                Bad("int", 3, "refuse"),
                Bad("None", None, "refuse"),
                Bad("array", x, "refuse"),
                Bad("str-missing", "/nonexistent/x.png", "refuse"),
                Bad("list", [data], "refuse"),
                Bad("float", 1.5, "refuse"),
            ],
        }

    return Call("image.open_image", args, run, bads)


#: Entry points and how to make a valid call of each.
ENTRIES = {
    "resize": _resize_call,
    "resize_backward": _backward_call,
    "weights": _weights_call,
    "plan": _plan_call,
    "plan.call": lambda rng: _plan_run_call(rng, False),
    "plan.backward": lambda rng: _plan_run_call(rng, True),
    "testing": _testing_call,
}
if HAVE_TORCH:
    ENTRIES["torch.interpolate"] = lambda rng: _torch_call(rng, False)
    ENTRIES["torch.Resize"] = lambda rng: _torch_call(rng, True)
if HAVE_DASK:
    ENTRIES["dask.resize"] = lambda rng: _dask_call(rng, False)
    ENTRIES["dask.resize_backward"] = lambda rng: _dask_call(rng, True)
if HAVE_PIL:
    ENTRIES["image.resize_image"] = _image_call
    ENTRIES["image.save_image"] = _save_call
    ENTRIES["image.open_image"] = _open_call


def _selftest_call(what):
    """(``add_selftest_entries``.) A call that breaks one rule whatever its corruption,
    so that a test sees each check (and the campaign's crash and hang handling) fail."""

    def make(rng):
        x = np.arange(6.0).reshape(2, 3)

        def run(a):
            if a["x"] is x:  # the clean call
                return x.sum()
            if what == "crash":
                import ctypes

                ctypes.string_at(0)  # a segmentation fault
            if what == "hang":
                time.sleep(3600)
            if what == "mutate" and isinstance(a["x"], np.ndarray):
                a["x"].reshape(-1)[:1] = -1  # the caller's data changed
            if what == "state":
                cresize.set_cache_limit(cresize.cache_info()["limit"] + 1)
            if what == "keyerror":
                raise KeyError("x")
            raise ValueError("x is refused")

        def bads(a, rng):
            return {"x": [Bad("copy", x.copy(), "same")]}

        return Call(f"selftest.{what}", {"x": x}, run, bads)

    return make


SELFTESTS = ("crash", "hang", "mutate", "state", "keyerror")


def add_selftest_entries():
    """Add the ``selftest.*`` entries (``_selftest_call``); a campaign's children add
    them when ``CRESIZE_FUZZ_API_SELFTEST`` is set."""
    for what in SELFTESTS:
        ENTRIES[f"selftest.{what}"] = _selftest_call(what)


if os.environ.get("CRESIZE_FUZZ_API_SELFTEST"):
    add_selftest_entries()

# ----------------------------------------------------------------------------
# Cases and their checks


def make_case(seed: int, index: int, entry: str | None = None) -> dict:
    """Case ``index`` of campaign ``seed``: ``{"seed", "index", "entry", "picks"}``,
    the call and its corruptions are rebuilt from these (``build``)."""
    rng = np.random.default_rng([seed, index, 45])
    names = sorted(n for n in ENTRIES if not n.startswith("selftest."))
    if entry is None:
        entry = names[int(rng.integers(0, len(names)))]
    two = bool(rng.random() < 0.25)
    return {"seed": seed, "index": index, "entry": entry, "two": two}


def build(case):
    """``(call, [(name, Bad)])`` of ``case``."""
    rng = np.random.default_rng([case["seed"], case["index"], 46])
    call = ENTRIES[case["entry"]](rng)
    bads = call.bads(call.args, rng)
    names = sorted(bads)
    chosen = list(rng.choice(names, 2 if case["two"] and len(names) > 1 else 1, replace=False))
    picked = [(str(n), bads[n][int(rng.integers(0, len(bads[n])))]) for n in chosen]
    names = {n for n, _ in picked}
    if names in ({"out", "x"}, {"out", "grad_output"}, {"size", "scale_factor"}) or (
        "axes" in names and names & {"x", "grad_output", "input_shape", "shape", "input"}
    ):  # (a new shape may put an out-of-range axis in range)
        # the input replaced as well: out may no longer share its memory, nor differ in
        # shape or dtype from the new result; size and scale_factor: one may give what
        # the other took away
        picked = [(n, b._replace(expect="any", normal=None)) for n, b in picked]
    return call, picked


def _snapshot(value):
    """What ``value`` holds, to compare before and after a call (arrays by their bytes,
    tensors by theirs, lists by a deep copy)."""
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            return ("object", value.shape, [repr(v) for v in value.reshape(-1)])
        return (
            "array",
            value.shape,
            value.dtype.str,
            value.tobytes(order="A"),
            value.strides,
            value.flags.writeable,
        )
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        if value.device.type == "meta":
            return ("meta", tuple(value.shape))
        return (
            "tensor",
            tuple(value.shape),
            str(value.dtype),
            value.stride(),
            value.detach().clone().reshape(-1).numpy().tobytes()
            if value.dtype != __import__("torch").bfloat16
            else value.detach().float().numpy().tobytes(),
        )
    if type(value).__module__.startswith("dask"):
        return ("dask", value.name)
    if isinstance(value, (list, dict)):
        return ("copy", repr(value))
    return None


def state():
    """The process-wide settings a call must not change: the plan and result caches'
    limits, OpenMP's default thread count, the thread steering, the SIMD level,
    NumPy's error handling (and PyTorch's thread count, where imported)."""
    info = cresize.cache_info()
    s = {
        "limit": info["limit"],
        "result_limit": info["result_limit"],
        "max_threads": _kernels.max_threads(),
        "steering": _kernels.thread_steering(),
        "simd": _kernels.simd_level(),
        "errstate": tuple(sorted(np.geterr().items())),
    }
    torch = sys.modules.get("torch")
    if torch is not None:
        s["torch_threads"] = torch.get_num_threads()
    return s


def _same_result(a, b):
    """Bit for bit equal results (arrays, tensors, floats, tuples of them)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_result(a[k], b[k]) for k in a)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_result(p, q) for p, q in zip(a, b))
    if type(a).__module__.startswith("torch"):
        if not type(b).__module__.startswith("torch"):
            return False
        if a.device.type == "meta" or b.device.type == "meta":
            return a.shape == b.shape and a.dtype == b.dtype
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        return bool(
            a.detach()
            .contiguous()
            .view(-1)
            .view(__import__("torch").uint8)
            .equal(b.detach().contiguous().view(-1).view(__import__("torch").uint8))
        )
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return (
            a.shape == b.shape
            and a.dtype == b.dtype
            and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
        )
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


def _message_names(exc, names):
    text = str(exc)
    aliases = {
        "input": ("input", "tensor"),
        "image": ("image", "array"),
        "x": ("x", "array", "input"),
        "path": ("path", "file", "image"),
        # a length too large for the factor given: the factor's message
        "in_size": ("in_size", "scale_factor="),
        # a tuple factor has its own default axes: the shapes' conflict, in full
        "scale_factor": ("scale_factor", "grad_output has shape"),
        # another axis, of a length the factor gives no sample on: the factor's message
        "axes": ("axes", "scale_factor="),
    }
    for shaped in ("shape", "input_shape", "x", "input", "grad_output", "image"):
        # a new shape the factor gives no sample on, or too many: the factor's message
        aliases[shaped] = (*aliases.get(shaped, (shaped,)), "scale_factor=")
    return any(alias in text for n in names for alias in aliases.get(n, (n,)))


def check(case) -> dict:
    """Run ``case``; ``{"entry", "labels", "outcome", "failures": [...]}``: the
    outcome is ``"ok"`` or the exception type's name; each failure a sentence."""
    call, corruptions = build(case)
    failures = []
    labels = [f"{n}={b.label}" for n, b in corruptions]
    try:
        clean = call.run(call.args)  # also puts the plan in the caches (the fast paths)
    except Exception as exc:  # the valid call itself failed: a bug, or a bad generator
        return {
            "entry": case["entry"],
            "labels": labels,
            "outcome": "clean-failed",
            "failures": [f"the valid call failed: {type(exc).__name__}: {exc}"],
        }
    args = dict(call.args)
    for name, bad in corruptions:
        args[name] = bad.value
    before = {n: _snapshot(v) for n, v in args.items()}
    if any(b.expect == "refuse" for _, b in corruptions):
        expect = "refuse"
    elif all(b.expect == "same" for _, b in corruptions):
        expect = "same"
    else:
        expect = "any"
    s0 = state()
    info = cresize.cache_info()
    nbytes0 = info["nbytes"], info["plans"], info["result_nbytes"]
    try:
        got = call.run(args)
        outcome, error = "ok", None
    except (ValueError, TypeError, *DOCUMENTED) as exc:
        outcome, error = type(exc).__name__, exc
    except OSError as exc:  # a file that cannot be read or written: cresize.image's
        if not case["entry"].startswith("image"):
            failures.append(f"{type(exc).__name__} outside cresize.image: {exc}")
        outcome, error = type(exc).__name__, exc
    except AssertionError as exc:  # cresize.testing's checks: the check failed
        if not case["entry"].startswith("testing"):
            failures.append(f"AssertionError outside cresize.testing: {exc}")
        outcome, error = type(exc).__name__, exc
    except NotImplementedError as exc:
        if not case["entry"].startswith("torch"):
            failures.append(f"NotImplementedError outside cresize.torch: {exc}")
        outcome, error = type(exc).__name__, exc
    except Exception as exc:  # the point: no other type may escape
        outcome, error = type(exc).__name__, exc
        tb = traceback.format_exception(exc)[-3:]
        failures.append(f"raised {type(exc).__name__}: {exc} [{''.join(tb).strip()[-600:]}]")
    if error is not None:
        if expect == "same":
            failures.append(f"refused a value of the same meaning: {outcome}: {error}")
        # an ``out`` given may be named instead: the corrupted argument changed the
        # result's shape or dtype (a list for a float32 array, another axis)
        named = [n for n, _ in corruptions] + (["out"] if "out" in call.args else [])
        if isinstance(error, (ValueError, TypeError)) and not _message_names(error, named):
            failures.append(
                f"the message names none of {[n for n, _ in corruptions]}: {outcome}: {error}"
            )
        info = cresize.cache_info()
        if (info["nbytes"], info["plans"], info["result_nbytes"]) != nbytes0:
            failures.append(
                f"the plan or result cache changed on an error: {nbytes0} -> "
                f"{(info['nbytes'], info['plans'], info['result_nbytes'])}"
            )
    else:
        if expect == "refuse":
            failures.append("accepted a value that must be refused")
        else:
            normal = dict(call.args)
            for name, bad in corruptions:
                if bad.expect == "any":
                    normal[name] = bad.normal
                elif name == "out":  # another valid out (or None)
                    normal[name] = bad.value
            comparable = all(b.expect == "same" or b.normal is not None for _, b in corruptions)
            if comparable:
                try:
                    want = call.run(normal)
                except Exception as exc:
                    failures.append(
                        f"succeeded, but the call on the normal arguments raised "
                        f"{type(exc).__name__}: {exc}"
                    )
                else:
                    if not _same_result(got, want):
                        failures.append("the result differs from the call on the normal arguments")
            if expect == "same" and not _same_result(got, clean):
                failures.append("the result differs from the clean call")
    after = {n: _snapshot(v) for n, v in args.items()}
    for n in before:
        if n == "out" and error is None:
            continue
        if before[n] != after[n]:
            failures.append(f"argument {n} was changed by the call")
    s1 = state()
    if s1 != s0:
        failures.append(f"process state changed: {s0} -> {s1}")
    return {"entry": case["entry"], "labels": labels, "outcome": outcome, "failures": failures}


# ----------------------------------------------------------------------------
# The campaign: cases in child processes


def _worker(seed, start, count, entry, deadline):
    """(In a child.) Run cases ``start`` on, one JSON line before (``"begin"``) and after
    each (the ``check`` result), until ``count`` cases or ``deadline`` (a time.time())."""
    import warnings

    warnings.simplefilter("ignore")
    i = start
    while (count is None or i < start + count) and (deadline is None or time.time() < deadline):
        case = make_case(seed, i, entry)
        print(json.dumps({"begin": i, "case": case}), flush=True)
        try:
            result = check(case)
        except Exception as exc:  # a fault of the fuzzer itself
            result = {
                "entry": case["entry"],
                "labels": [],
                "outcome": "fuzzer-error",
                "failures": [f"the fuzzer failed: {type(exc).__name__}: {exc}"],
            }
        print(json.dumps({"end": i, "case": case, **result}), flush=True)
        i += 1


def campaign(
    seed=1,
    start=0,
    count=None,
    minutes=None,
    entry=None,
    log=None,
    timeout=CASE_TIMEOUT,
    echo=print,
):
    """Run cases ``start`` on in child processes (``--worker``), each case time-boxed
    (``timeout`` seconds: a hang is killed, reported and the next case runs in a new
    child; a crash likewise). Returns the summary dict: counts per entry point and
    outcome, and the failures with their cases."""
    deadline = None if minutes is None else time.time() + 60 * minutes
    counts: collections.Counter = collections.Counter()
    outcomes: collections.Counter = collections.Counter()
    failed = []
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    # the cresize this process imports (src/, or site-packages where it is installed)
    src = os.path.dirname(cresize.__path__[0])
    env["PYTHONPATH"] = os.pathsep.join([src, here, env.get("PYTHONPATH", "")])
    next_index, end = start, None if count is None else start + count
    logfile = open(log, "a") if log else None
    try:
        while (end is None or next_index < end) and (deadline is None or time.time() < deadline):
            cmd = [
                sys.executable,
                "-X",
                "faulthandler",
                "-m",
                "helpers.fuzz_api",
                "--worker",
                "--seed",
                str(seed),
                "--start",
                str(next_index),
            ]
            if end is not None:
                cmd += ["--count", str(end - next_index)]
            if deadline is not None:
                cmd += ["--deadline", str(deadline)]
            if entry is not None:
                cmd += ["--entry", entry]
            proc = subprocess.Popen(
                cmd,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            lines: queue.Queue = queue.Queue()
            errs: list[str] = []
            threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
            threading.Thread(target=errs.extend, args=(proc.stderr,), daemon=True).start()
            running, done = None, False
            while True:
                try:
                    line = lines.get(timeout=timeout)
                except queue.Empty:  # a hang: kill the child and its group
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    _record(
                        running,
                        "hang",
                        [f"no answer after {timeout} s"],
                        counts,
                        outcomes,
                        failed,
                        logfile,
                        echo,
                    )
                    next_index = running["index"] + 1 if running else next_index + 1
                    break
                if line is None:  # the child ended: done, or crashed during ``running``
                    code = proc.wait()
                    if running is not None:
                        why = f"the child died (exit status {code}): {''.join(errs)[-1500:]}"
                        _record(running, "crash", [why], counts, outcomes, failed, logfile, echo)
                        next_index = running["index"] + 1
                    elif code != 0:
                        raise RuntimeError(f"the worker failed: {''.join(errs)[-3000:]}")
                    else:
                        done = True  # it ran its cases, or met the deadline
                    break
                msg = json.loads(line)
                if "begin" in msg:
                    running = msg["case"]
                else:
                    running = None
                    next_index = msg["end"] + 1
                    _record(
                        msg["case"],
                        msg["outcome"],
                        msg["failures"],
                        counts,
                        outcomes,
                        failed,
                        logfile,
                        echo,
                        msg,
                    )
            if done:
                break
    finally:
        if logfile:
            logfile.close()
    return {
        "cases": sum(counts.values()),
        "entries": dict(counts),
        "outcomes": dict(outcomes),
        "failures": failed,
    }


def _pump(stream, lines):
    """(A thread.) Each line of ``stream`` into ``lines``, then None at its end."""
    for line in stream:
        lines.put(line)
    lines.put(None)


def _record(case, outcome, failures, counts, outcomes, failed, logfile, echo, msg=None):
    if case is None:
        return
    counts[case["entry"]] += 1
    outcomes[outcome] += 1
    if logfile:
        logfile.write(json.dumps(msg or {**case, "outcome": outcome, "failures": failures}) + "\n")
    if failures:
        labels = (msg or {}).get("labels", [])
        failed.append({"case": case, "labels": labels, "failures": failures})
        echo(f"FAIL {case} {labels}: " + " | ".join(failures))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--count", type=int, default=None)
    parser.add_argument("--minutes", type=float, default=None, help="stop after this long")
    parser.add_argument("--entry", default=None, help=f"one of {', '.join(sorted(ENTRIES))}")
    parser.add_argument("--log", default=None, help="append one JSON line per case")
    parser.add_argument("--timeout", type=float, default=CASE_TIMEOUT)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    a = parser.parse_args(argv)
    if a.worker:
        _worker(a.seed, a.start, a.count, a.entry, a.deadline)
        return 0
    if a.count is None and a.minutes is None:
        a.count = 200
    t0 = time.time()
    summary = campaign(a.seed, a.start, a.count, a.minutes, a.entry, a.log, a.timeout)
    print(json.dumps({k: v for k, v in summary.items() if k != "failures"}, indent=1))
    print(f"{summary['cases']} cases, {len(summary['failures'])} failed, {time.time() - t0:.0f} s")
    return 1 if summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
