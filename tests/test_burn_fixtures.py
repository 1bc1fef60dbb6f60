"""burn's interpolate tests (the Rust framework's own fixtures) run against cresize and the oracle.

The fixtures are ``tests/data/burn_interpolate_cases.json`` (provenance and
licence in ``tests/data/README.md``), read by ``helpers.data.burn_cases``.  A
missing file fails the suite; it is never skipped.

Kinds of entries:

* ``forward`` / ``backward``: input values, options and burn's expected
  output / input gradient (of ``grad_output``, or of ones when it is null),
  compared with burn's rule ``|x - y| < max(A, R * max(|x|, |y|))``.
* ``forward_partial`` / ``backward_partial``: burn-flex unit tests that assert
  only a few values; their assertions are written out in ``PARTIAL_CHECKS``
  below (from burn-flex ``src/ops/interpolate.rs``), and the whole output is
  also compared with the oracle.
* entries with ``input_values`` null only describe a test (no data); the one
  known such test is re-created in ``test_cubecl_nearest_reference_sizes``.

burn's ``align_corners`` defaults to true and its nearest ignores it, so
nearest runs with ``align_corners=False`` here.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from helpers.data import BURN_CASES, burn_cases
from helpers.oracle import (
    assert_close,
    backward_matrices,
    operator_scale,
    reference_backward,
    reference_matrices,
    reference_resize,
)

BURN_TOL = {"default": (0.005, 1e-5), "permissive": (0.01, 0.01)}  # (R, A)
STALE_LITERAL = "lanczos3::test_1d_lanczos3"
DTYPES = [np.float32, np.float64]


def _load():
    try:
        return burn_cases(), None
    except (OSError, ValueError) as exc:
        return [], f"cannot read burn fixtures at {BURN_CASES} ({exc})"


CASES, LOAD_ERROR = _load()
FULL = [c for c in CASES if c["kind"] in ("forward", "backward")]
PARTIAL = [c for c in CASES if c["kind"] in ("forward_partial", "backward_partial")]
DESCRIPTIONS = [c for c in CASES if c["input_values"] is None]


def test_fixture_file_present_and_complete():
    assert LOAD_ERROR is None, LOAD_ERROR
    assert len(FULL) >= 20, f"only {len(FULL)} full cases in {BURN_CASES}"
    kinds = {c["kind"] for c in CASES}
    assert kinds <= {
        "forward",
        "backward",
        "forward_partial",
        "backward_partial",
        "reference_comparison",
    }, kinds
    assert len(FULL) + len(PARTIAL) + len(DESCRIPTIONS) == len(CASES)


@pytest.fixture(scope="module")
def cresize():
    import cresize as module  # the library under test: failing to import is an error, not a skip

    return module


def _options(case):
    mode = case["mode"]
    ac = False if mode in ("nearest", "nearest-exact") else bool(case["align_corners"])
    return dict(mode=mode, align_corners=ac)


def _arrays(case):
    shape = tuple(case["input_shape"])
    x = np.array([float(v) for v in case["input_values"]], dtype=np.float64).reshape(shape)
    out_shape = shape[:2] + tuple(case["output_size"])
    g = None
    if case["kind"] in ("backward", "backward_partial"):
        g = (
            np.ones(out_shape)
            if case["grad_output"] is None
            else np.array(case["grad_output"], dtype=np.float64).reshape(out_shape)
        )
    return x, out_shape, g


def _burn_close(actual, expected, tolerance, what):
    R, A = BURN_TOL[tolerance]
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64).reshape(actual.shape)
    diff = np.abs(actual - expected)
    limit = np.maximum(A, R * np.maximum(np.abs(actual), np.abs(expected)))
    bad = np.argwhere(~(diff < limit))
    assert bad.size == 0, (
        f"{what}: {len(bad)} values outside burn's {tolerance} tolerance, first at "
        f"{bad[0].tolist()}: got {actual[tuple(bad[0])]}, burn {expected[tuple(bad[0])]}"
    )


def _oracle(case, x, out_shape, g):
    opts = _options(case)
    sizes = {2: out_shape[2], 3: out_shape[3]}
    if g is None:
        mats = reference_matrices(x.shape, sizes, **opts)
        return reference_resize(x, sizes, **opts), operator_scale(x, mats)
    mats = backward_matrices(g.shape, x.shape, axes=(2, 3), **opts)
    return reference_backward(g, x.shape, axes=(2, 3), **opts), operator_scale(
        g, [m.T for m in mats.values()]
    )


def _cresize(cresize, case, x, out_shape, g, dtype):
    opts = _options(case)
    if g is None:
        return cresize.resize(x.astype(dtype), size=tuple(out_shape[2:]), **opts)
    return cresize.resize_backward(g.astype(dtype), x.shape, **opts)


@pytest.mark.parametrize("case", FULL, ids=[c["name"] for c in FULL])
def test_oracle_matches_burn(case):
    x, out_shape, g = _arrays(case)
    got, _ = _oracle(case, x, out_shape, g)
    expected = case["expected_output"] if g is None else case["expected_grad_input"]
    _burn_close(got, expected, case["tolerance"], case["name"])
    if case["name"] == STALE_LITERAL:
        # burn's literal predates skip-and-renormalise: off by up to 9.2e-3 (fixtures README).
        assert np.abs(got.ravel() - np.array(expected)).max() < 9.3e-3
    else:
        # every other literal is written to ~4 decimals and holds under burn's default tolerance
        _burn_close(got, expected, "default", case["name"] + " (default tolerance)")


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", FULL, ids=[c["name"] for c in FULL])
def test_cresize_matches_burn(cresize, case, dtype):
    x, out_shape, g = _arrays(case)
    got = _cresize(cresize, case, x, out_shape, g, dtype)
    assert got.dtype == dtype
    expected = case["expected_output"] if g is None else case["expected_grad_input"]
    assert got.shape == (out_shape if g is None else x.shape)
    _burn_close(got, expected, case["tolerance"], case["name"])
    # and tightly against the oracle (for the stale lanczos3 literal this is the real check)
    ref, scale = _oracle(case, x, out_shape, g)
    assert_close(got, ref, scale, dtype, case["name"] + " vs oracle")


# -------------------------------------------------------------------------
# Partial burn-flex tests: their own assertions, written out
# -------------------------------------------------------------------------


def _check_nearest_upsample_2x(out, x):
    flat = np.asarray(out).ravel()
    assert flat.size == 16
    assert flat[:4].tolist() == [1.0, 1.0, 2.0, 2.0]


def _check_bilinear_upsample_2x(out, x):
    flat = np.asarray(out, dtype=np.float64).ravel()
    for i, v in [(0, 0.0), (3, 1.0), (12, 1.0), (15, 0.0)]:
        assert abs(flat[i] - v) < 1e-5, (i, flat[i])


def _check_nearest_backward(out, x):
    flat = np.asarray(out, dtype=np.float64).ravel()
    assert flat.size == 4
    assert abs(flat[0] - 4.0) < 1e-5


def _check_lanczos3_skips_out_of_bounds_taps(out, x):
    # burn: out[7] is finite and bitwise equal to its reference.  8 -> 8 with align_corners=True
    # is the identity (docs/spec.md section 5), and a NaN reaches only the outputs that weight it (docs/spec.md section 1).
    flat = np.asarray(out).ravel()
    xin = np.asarray(x, dtype=flat.dtype).ravel()
    assert np.isfinite(flat[7]) and flat[7] == xin[7] == 7.0
    assert np.isnan(flat[0]) and np.array_equal(flat[1:], xin[1:])


PARTIAL_CHECKS = {
    "flex::test_nearest_upsample_2x": _check_nearest_upsample_2x,
    "flex::test_bilinear_upsample_2x": _check_bilinear_upsample_2x,
    "flex::test_nearest_backward": _check_nearest_backward,
    "flex::test_lanczos3_skips_out_of_bounds_taps": _check_lanczos3_skips_out_of_bounds_taps,
}


def test_every_partial_case_has_its_check():
    names = {c["name"] for c in PARTIAL}
    assert names == set(PARTIAL_CHECKS), f"unhandled: {names - set(PARTIAL_CHECKS)}"
    for c in PARTIAL:
        assert c["input_values"] is not None
        assert c["expected_output"] is None and c["expected_grad_input"] is None


@pytest.mark.parametrize("case", PARTIAL, ids=[c["name"] for c in PARTIAL])
def test_partial_oracle(case):
    x, out_shape, g = _arrays(case)
    got, _ = _oracle(case, x, out_shape, g)
    PARTIAL_CHECKS[case["name"]](got, x)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", PARTIAL, ids=[c["name"] for c in PARTIAL])
def test_partial_cresize(cresize, case, dtype):
    x, out_shape, g = _arrays(case)
    got = _cresize(cresize, case, x, out_shape, g, dtype)
    assert got.dtype == dtype
    PARTIAL_CHECKS[case["name"]](got, x)
    ref, scale = _oracle(case, x, out_shape, g)
    assert_close(got, ref, scale, dtype, case["name"] + " vs oracle")


# -------------------------------------------------------------------------
# Descriptions without data
# -------------------------------------------------------------------------

KNOWN_DESCRIPTIONS = {"cubecl::nearest_interpolate_should_match_reference_backend"}


def test_descriptions_carry_no_data():
    assert {c["name"] for c in DESCRIPTIONS} <= KNOWN_DESCRIPTIONS, "new description-only entries"
    for c in DESCRIPTIONS:
        for key in (
            "input_shape",
            "input_values",
            "output_size",
            "expected_output",
            "expected_grad_input",
            "grad_output",
        ):
            assert c[key] is None, (c["name"], key)


@pytest.mark.parametrize("h", [214, 220, 227, 235, 255])
def test_cubecl_nearest_reference_sizes(cresize, h):
    """What cubecl::nearest_interpolate_should_match_reference_backend describes (burn issue 4686):
    nearest 2x upsampling of h x h for sizes where a float32 division used to pick the wrong pixel.
    SPEC's index (o*h)//(2h) is o//2, so the result is every pixel repeated 2x2."""
    x = np.random.default_rng(h).uniform(-1, 1, (1, 2, h, h)).astype(np.float32)
    expected = x.repeat(2, axis=2).repeat(2, axis=3)
    assert np.array_equal(reference_resize(x, {2: 2 * h, 3: 2 * h}, mode="nearest"), expected)
    assert np.array_equal(cresize.resize(x, size=(2 * h, 2 * h), mode="nearest"), expected)


def test_the_guide_describes_every_key_kind_and_tolerance_of_the_file():
    """docs/guide/gradients.md ("Checking a burn fixture yourself") is what a reader of
    the file has: every key, kind and tolerance label in it is named there."""
    guide = (Path(__file__).resolve().parents[1] / "docs/guide/gradients.md").read_text()
    section = guide[guide.index("### Checking a burn fixture yourself") :]
    named = set(re.findall(r"`([^`]+)`", section))
    keys = {k for c in CASES for k in c}
    labels = {c["kind"] for c in CASES} | {c["tolerance"] for c in CASES}
    assert keys | labels <= named, sorted((keys | labels) - named)
    if any("NaN" in (c["input_values"] or []) for c in CASES):
        assert '`"NaN"`' in section
