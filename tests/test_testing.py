"""cresize.testing: passes on cresize, fails on wrong backwards; the reference is right."""

import functools
import inspect
import re

import numpy as np
import pytest

import cresize
from cresize import _tables, testing
from helpers import oracle
from helpers.cases import COMBOS, shifted_transpose

# (shape, size, scale_factor, axes): up/down mixed, a non-integer scale on a HWC image
# tiny arrays: one thread keeps the matrix fast on a busy machine (the numbers don't depend on it)
ONE_THREAD = dict(
    forward=functools.partial(cresize.resize, num_threads=1),
    backward=functools.partial(cresize.resize_backward, num_threads=1),
)
GEOMETRIES = [((2, 5, 7), (9, 3), None, None), ((6, 4, 2), None, (1.6, 0.55), (0, 1))]


def wrong_backwards():
    """Backwards that are wrong in the ways a port typically is."""

    def ignores_align_corners(g, shape, **options):
        return cresize.resize_backward(g, shape, **{**options, "align_corners": False})

    def slightly_scaled(g, shape, **options):
        return cresize.resize_backward(g, shape, **options) * (1 + 1e-5)

    def shifted(g, shape, **options):  # the transposed table off by one, seen from outside
        dx = cresize.resize_backward(g, shape, **options)
        return np.take(dx, np.minimum(np.arange(shape[-2]) + 1, shape[-2] - 1), axis=-2)

    return {
        "ignores_align_corners": ignores_align_corners,
        "slightly_scaled": slightly_scaled,
        "shifted": shifted,
    }


@pytest.mark.parametrize("mode, align_corners, antialias", COMBOS)
@pytest.mark.parametrize("shape, size, scale_factor, axes", GEOMETRIES)
def test_checks_pass_for_cresize(mode, align_corners, antialias, shape, size, scale_factor, axes):
    options = dict(
        scale_factor=scale_factor,
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
        axes=axes,
        **ONE_THREAD,
    )
    for dtype in (np.float64, np.float32):
        assert (
            0
            <= testing.check_adjoint(shape, size, dtype=dtype, **options)
            <= testing.TOLERANCES[np.dtype(dtype)]
        )
        assert (
            0
            <= testing.check_reference(shape, size, dtype=dtype, **options)
            <= testing.TOLERANCES[np.dtype(dtype)]
        )
    assert 0 <= testing.check_gradient(shape, size, **options) <= testing.FD_TOLERANCE


@pytest.mark.parametrize("mode, align_corners, antialias", COMBOS)
def test_reference_matches_spec_oracle_and_cresize(mode, align_corners, antialias):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 6, 5))
    x_before = x.copy()
    options = dict(mode=mode, align_corners=align_corners, antialias=antialias)
    sizes = {1: 11, 2: 2}
    ours = testing.reference_resize(x, (11, 2), **options)
    spec = oracle.reference_resize(x, sizes, **options)
    mats = oracle.reference_matrices(x.shape, sizes, **options)
    oracle.assert_close(ours, spec, oracle.operator_scale(x, mats), np.float64, "forward")
    oracle.assert_close(
        cresize.resize(x, (11, 2), **options),
        ours,
        oracle.operator_scale(x, mats),
        np.float64,
        "cresize",
    )
    g = rng.standard_normal(ours.shape)
    back = testing.reference_backward(g, x.shape, **options)
    oracle.assert_close(
        back,
        oracle.reference_backward(g, x.shape, **options),
        oracle.operator_scale(g, [w.T for w in mats.values()]),
        np.float64,
        "backward",
    )
    np.testing.assert_array_equal(x, x_before)


def test_reference_axes_rules():
    x = np.arange(2 * 4 * 3, dtype=np.int16).reshape(2, 4, 3)
    # HWC image, integer input kept unrounded, identity on an unchanged length
    y = testing.reference_resize(x, (7, 4), axes=(0, 1), mode="bicubic")
    assert y.shape == (7, 4, 3) and y.dtype == np.float64
    w = cresize.weights(2, 7, mode="bicubic")
    np.testing.assert_allclose(y, np.einsum("oi,ijc->ojc", w, x), rtol=0, atol=1e-12)
    # backward default axes: where the lengths differ; with scale_factor: resize's rule
    g = np.ones((2, 4, 6))
    back = testing.reference_backward(g, (2, 4, 3))
    np.testing.assert_allclose(back, g @ cresize.weights(3, 6), atol=1e-15)
    back = testing.reference_backward(np.ones((2, 6, 4)), (2, 4, 3), scale_factor=(1.5, 1.5))
    assert back.shape == (2, 4, 3)
    assert np.array_equal(testing.reference_backward(g, g.shape), g)
    with pytest.raises(ValueError, match="grad_output has shape"):
        testing.reference_backward(np.ones((2, 5, 4)), (2, 4, 3), axes=(2,))
    with pytest.raises(TypeError, match="x must be a real"):
        testing.reference_resize(np.ones(3, complex), 5)


def test_adjoint_scale_bounds_both_inner_products():
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((4, 9)), rng.standard_normal((4, 5))
    mats = testing.reference_matrices(x.shape, 5, mode="lanczos3", axes=1)
    y = cresize.resize(x, 5, mode="lanczos3", axes=1)
    dx = cresize.resize_backward(g, x.shape, mode="lanczos3", axes=1)
    assert abs(np.vdot(y, g)) + abs(np.vdot(x, dx)) <= testing.adjoint_scale(x, g, mats)


def test_adjoint_scale_refuses_shapes_that_do_not_fit():
    # a g of another shape gave a number (sums and maxima need no common shape), a 1-D
    # matrix a NumPy AxisError
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((4, 9)), rng.standard_normal((4, 5))
    mats = testing.reference_matrices(x.shape, 5, mode="lanczos3", axes=1)
    expected = testing.adjoint_scale(x, g, mats)
    assert testing.adjoint_scale(x.tolist(), g, {np.int64(1): mats[1]}) == expected
    for call, match in [
        (
            lambda: testing.adjoint_scale(x, np.ones((4, 6)), mats),
            r"^g must have the forward's output shape, \(4, 5\) for x of shape \(4, 9\) and "
            r"matrices of shapes \{1: \(5, 9\)\}; got shape \(4, 6\)$",
        ),
        (lambda: testing.adjoint_scale(x, g.T, mats), r"^g must .* got shape \(5, 4\)$"),
        (lambda: testing.adjoint_scale(x, g.ravel(), mats), r"^g must .* got shape \(20,\)$"),
        (lambda: testing.adjoint_scale(x, g, {}), r"^g must .*\(4, 9\) .* got shape \(4, 5\)"),
        (
            lambda: testing.adjoint_scale(x[:, :8], g, mats),
            r"^matrices\[1\] must be an \(out, 8\) matrix for x of shape \(4, 8\); got shape "
            r"\(5, 9\)$",
        ),
        (
            lambda: testing.adjoint_scale(x, g, {1: mats[1][0]}),
            r"^matrices\[1\] must be .* got shape \(9,\)$",
        ),
        (
            lambda: testing.adjoint_scale(x, g, {2: mats[1]}),
            r"^matrices has axis 2, which x of shape \(4, 9\) does not have",
        ),
        (
            lambda: testing.adjoint_scale(x, g, {-1: mats[1]}),
            r"^matrices has axis -1, which x of shape \(4, 9\) does not have \(0 <= axis < 2\)",
        ),
    ]:
        with pytest.raises(ValueError, match=match):
            call()
    with pytest.raises(TypeError, match=r"^matrices must be a mapping"):
        testing.adjoint_scale(x, g, [mats[1]])


@pytest.mark.parametrize("name", sorted(wrong_backwards()))
def test_wrong_backwards_are_caught(name):
    wrong = wrong_backwards()[name]
    options = dict(mode="bicubic", align_corners=True)
    where = r"\(an inner product: check_reference with the same arguments says which values"
    with pytest.raises(AssertionError, match=r"adjoint identity fails.*" + where):
        testing.check_adjoint((2, 5, 7), (9, 4), backward=wrong, **options)
    # n_directions and step are not check_reference's arguments: "the same arguments"
    # were a TypeError there; the hint names those to pass
    with pytest.raises(AssertionError, match=r"finite differences disagree") as raised:
        testing.check_gradient(
            (2, 5, 7), (9, 4), backward=wrong, n_directions=2, step=1e-4, **options
        )
    hint = re.search(r"check_reference with the same (.*?) says", str(raised.value))[1]
    assert hint == (
        "shape, size or scale_factor, mode, align_corners, antialias, axes, seed, forward "
        "and backward"
    )
    assert str(raised.value).endswith(
        "(not n_directions or step, which it does not take, nor this rtol: its default "
        "is TOLERANCES[float64]))"
    )
    named = re.findall(r"\w+", hint.replace("forward and backward", "forward backward"))
    assert set(named) - {"or"} <= set(inspect.signature(testing.check_reference).parameters)
    with pytest.raises(AssertionError, match="backward deviates"):
        testing.check_reference((2, 5, 7), (9, 4), backward=wrong, **options)

    # the same wrapper around the correct backward passes
    def correct(g, shape, **options):
        return cresize.resize_backward(g, shape, **options)

    assert testing.check_adjoint((2, 5, 7), (9, 4), backward=correct, **options) <= 1e-12


def test_what_each_check_catches():
    """What docs/guide/gradients.md says each check can and cannot see."""
    shape, size = (2, 3, 7, 9), (5, 13)

    def one_value_off(g, input_shape, **options):  # one gradient value off by 0.1 %
        dx = cresize.resize_backward(g, input_shape, **options)
        dx.flat[0] += dx.dtype.type(1e-3)
        return dx

    options = dict(mode="bicubic", backward=one_value_off)
    # an inner product dilutes one value's error by the number of values: in float32 the
    # adjoint check lets it through; float64, and every value against the reference, do not
    assert testing.check_adjoint(shape, size, dtype=np.float32, **options) <= 2e-6
    with pytest.raises(AssertionError, match="adjoint identity fails"):
        testing.check_adjoint(shape, size, **options)
    with pytest.raises(AssertionError, match="backward deviates"):
        testing.check_reference(shape, size, dtype=np.float32, **options)

    # a forward and backward wrong together (the exact adjoint of the wrong forward, here
    # align_corners ignored) pass the adjoint and gradient checks; only the reference sees it
    def forward(x, size, **options):
        return cresize.resize(x, size, **{**options, "align_corners": False})

    def backward(g, input_shape, **options):
        return cresize.resize_backward(g, input_shape, **{**options, "align_corners": False})

    both = dict(mode="bilinear", align_corners=True, forward=forward, backward=backward)
    assert testing.check_adjoint(shape, size, **both) <= 1e-12
    assert testing.check_gradient(shape, size, **both) <= 1e-8
    with pytest.raises(AssertionError, match="forward deviates"):
        testing.check_reference(shape, size, **both)


@pytest.mark.parametrize("mode", ["bilinear", "lanczos3", "area"])
def test_off_by_one_transposed_table_is_caught(monkeypatch, mode):
    """The library's own kernels, run on a transposed table that is off by one."""
    cresize.clear_cache()  # plans made before the patch keep their correct backward tables
    monkeypatch.setattr(_tables.Taps, "transpose", shifted_transpose(_tables.Taps.transpose))
    monkeypatch.setattr(cresize._plan, "_CACHE", cresize._plan._Cache(0))  # no plan outlives it
    with pytest.raises(AssertionError, match=r"<resize\(x\), g> = .* relative .* > rtol"):
        testing.check_adjoint((3, 6, 5), (4, 9), mode=mode)
    with pytest.raises(AssertionError, match=r"numeric .* analytic"):
        testing.check_gradient((3, 6, 5), (4, 9), mode=mode)
    # only the backward is wrong: rtol=inf measures it, and the forward is untouched
    assert testing.check_adjoint((3, 6, 5), (4, 9), mode=mode, rtol=np.inf) > 1e-6
    np.testing.assert_allclose(
        cresize.resize(np.eye(6), 9, axes=1, mode=mode),
        cresize.weights(6, 9, mode=mode).T,
        atol=1e-15,
    )


def test_tolerances_take_what_other_float_arguments_take():
    # rtol and step refused a 0-d array, which _spec.factor (scale_factor) takes
    for check in (testing.check_adjoint, testing.check_gradient, testing.check_reference):
        assert check((4, 5), (3, 7), mode="bicubic", rtol=np.array(1e-6)) < 1e-6
        assert check((4, 5), (3, 7), mode="bicubic", rtol=np.array(np.inf)) < 1e-6
    assert testing.check_gradient((4, 5), (3, 7), step=np.array(1e-4), rtol=np.float32(1e-6)) < 1e-6


def test_checks_are_seeded_and_measure_float32():
    a = testing.check_adjoint((4, 7), (3, 11), mode="bicubic", dtype=np.float32, seed=5)
    b = testing.check_adjoint((4, 7), (3, 11), mode="bicubic", dtype="float32", seed=5)
    assert a == b and 0 < a <= 2e-6  # float32 round-off is visible, and within tolerance
    with pytest.raises(AssertionError, match="relative"):
        testing.check_adjoint((4, 7), (3, 11), mode="bicubic", dtype=np.float32, rtol=1e-15)


@pytest.mark.parametrize("dtype", ["flt", np.int64, np.float16])
def test_a_bad_dtype_is_named_with_the_check(dtype):
    # "flt" said "dtype must be ..." and int64 "check_adjoint: dtype must be ...": one way
    for check in (testing.check_adjoint, testing.check_reference):
        with pytest.raises(TypeError, match=rf"^{check.__name__}: dtype must be float32 or"):
            check((4, 5), (3, 3), dtype=dtype)


def test_other_implementations_are_checked_for_shape_and_dtype():
    def bad_shape(x, size, **options):
        return cresize.resize(x, size, **options)[..., :-1]

    def float32_result(g, shape, **options):
        return cresize.resize_backward(g, shape, **options).astype(np.float32)

    with pytest.raises(AssertionError, match="forward returned shape"):
        testing.check_adjoint((5, 6), (3, 3), forward=bad_shape)
    with pytest.raises(AssertionError, match="backward returned dtype float32"):
        testing.check_gradient((5, 6), (3, 3), backward=float32_result)


def test_an_implementation_that_returns_nothing_is_named_so():
    """A forward that forgets its ``return`` was reported as "returned shape ()"."""

    def no_return(x, size, **options):
        cresize.resize(x, size, **options)

    with pytest.raises(
        AssertionError, match=r"^forward returned None; expected an array of shape \(3, 3\)$"
    ):
        testing.check_adjoint((5, 6), (3, 3), forward=no_return)


@pytest.mark.parametrize(
    "check", [testing.check_adjoint, testing.check_gradient, testing.check_reference]
)
def test_a_wrapper_without_the_keywords_is_told_what_is_passed(check):
    # It raised the wrapper's own "got an unexpected keyword argument 'scale_factor'".
    called = []

    def forward(x, size):  # a port's resize, without the keywords
        called.append(size)
        return cresize.resize(x, size)

    with pytest.raises(TypeError) as info:
        check((5, 6), (3, 4), forward=forward)
    assert str(info.value).startswith(
        "forward must take the arguments of cresize.resize: called as forward(x, size, "
        "scale_factor=..., mode=..., align_corners=..., antialias=..., axes=...); "
    )
    assert "unexpected keyword argument 'scale_factor'" in str(info.value) and not called

    def backward(grad_output, input_shape, *, mode, axes):
        return cresize.resize_backward(grad_output, input_shape, mode=mode, axes=axes)

    with pytest.raises(TypeError, match=r"^backward must take the arguments of cresize\.resize_"):
        check((5, 6), (3, 4), backward=backward)
    # keywords taken by **options or with defaults: called as before
    check((5, 6), (3, 4), forward=lambda x, size, **options: cresize.resize(x, size, **options))
    check((5, 6), (3, 4), backward=functools.partial(cresize.resize_backward, num_threads=1))


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: testing.check_adjoint((4, 4), 2, dtype=np.int32), TypeError, "float32 or float64"),
        (lambda: testing.check_adjoint((4, 4), 2, dtype="nonsense"), TypeError, "dtype must be"),
        (lambda: testing.check_adjoint((4, 4), 2, rtol=0), ValueError, "rtol must be > 0"),
        (lambda: testing.check_adjoint((4, 4), 2, rtol="1"), TypeError, "rtol"),
        (lambda: testing.check_gradient((4, 4), 2, n_directions=0), ValueError, "n_directions"),
        (lambda: testing.check_gradient((4, 4), 2, n_directions=1.5), TypeError, "n_directions"),
        # 2**63 directions ran for ever (two forward calls each): refused, with the range
        (
            lambda: testing.check_gradient((4, 4), 2, n_directions=2**63),
            ValueError,
            r"n_directions must be an int from 1 to 1,000,000; got 9223372036854775808",
        ),
        (
            lambda: testing.check_gradient((4, 4), 2, n_directions=10**6 + 1),
            ValueError,
            r"n_directions must be an int from 1 to 1,000,000; got 1000001",
        ),
        # refused before drawing the arrays, in resize's words (was NumPy's, or an attempt)
        (lambda: testing.check_adjoint((2**20, 2**20), 2), MemoryError, "would need at least"),
        (lambda: testing.check_reference((2**32, 2**32), 2), ValueError, "any array can hold"),
        (lambda: testing.check_gradient((4, 4), 2, n_directions=True), TypeError, "n_directions"),
        (lambda: testing.check_gradient((4, 4), 2, step=np.inf), ValueError, "step must be finite"),
        # NaN was "rtol must be > 0; got nan"; np.inf only measures (cresize check uses it)
        (
            lambda: testing.check_adjoint((4, 4), 2, rtol=np.nan),
            ValueError,
            r"rtol must be finite \(or np\.inf",
        ),
        (
            lambda: testing.check_gradient((4, 4), 2, rtol=np.array(np.nan)),
            ValueError,
            "rtol must be finite",
        ),
        (lambda: testing.check_reference((4, 4), 2, rtol=-np.inf), ValueError, "rtol must be > 0"),
        (
            lambda: testing.check_gradient((4, 4), 2, step=np.array(np.nan)),
            ValueError,
            "step must be finite",
        ),
        (
            lambda: testing.check_adjoint((4, 4), 2, rtol=np.array(True)),
            TypeError,
            "rtol must be a positive float",
        ),
        (
            lambda: testing.check_adjoint((4, 4), 2, rtol=np.array([1e-6])),
            TypeError,
            "rtol must be a positive float",
        ),
        (lambda: testing.check_adjoint(4, 2), TypeError, "shape must be a tuple"),
        (
            lambda: testing.check_adjoint(np.zeros((4, 4)), 2),
            TypeError,
            r"shape must be a tuple of ints; got an array of shape \(4, 4\) and dtype float64",
        ),
        (lambda: testing.check_adjoint((4, True), 2), TypeError, "not bools"),
        (lambda: testing.check_adjoint((4, 4), 2, backward=3), TypeError, "backward must be"),
        (lambda: testing.check_adjoint((4, 4), 2, mode="box"), ValueError, "mode must be one of"),
        (
            lambda: testing.check_reference((4, 4), 2, mode="area", align_corners=True),
            ValueError,
            "align_corners",
        ),
        (
            lambda: testing.reference_resize(np.ones((4, 4)), 2, scale_factor=0.5),
            ValueError,
            "not both",
        ),
        # NumPy's own words ("expected non-negative integer", "SeedSequence expects int")
        (lambda: testing.check_adjoint((4, 4), 2, seed=-1), ValueError, "seed must be an int >= 0"),
        # above 2**53 a JSON reader (JavaScript's) may not read a written seed back exactly
        (
            lambda: testing.check_adjoint((4, 4), 2, seed=2**53),
            ValueError,
            r"seed must be an int >= 0 and < 2\*\*53 \(9007199254740992\); got 9007199254740992",
        ),
        (lambda: testing.check_reference((4, 4), 2, seed=10**23), ValueError, r"< 2\*\*53"),
        (lambda: testing.check_gradient((4, 4), 2, seed=1.5), TypeError, "seed must be an int"),
        (lambda: testing.check_reference((4, 4), 2, seed=True), TypeError, "seed must be an int"),
        (lambda: testing.check_reference((4, 4), 2, seed=np.True_), TypeError, "seed must be an"),
        (lambda: testing.check_reference((4, 4), 2, seed="1"), TypeError, "seed must be an int"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "shape, options",
    [
        ((4, 6), dict(size=(3, 5), axes=(1, 0))),
        ((4, 6), dict(size=(3, 5), axes=(-1, 0))),
        ((4, 6), dict(scale_factor=(2.0, 0.5), axes=(1, 0))),
        ((4, 6, 5), dict(size=(3, 5, 7), axes=(2, 0, 1))),
    ],
)
def test_checks_pair_sizes_with_axes_in_the_order_given(shape, options):
    """A size (or scale_factor) tuple pairs with ``axes`` as given, as in resize; the
    checks passed the axes sorted and the tuple as given, so they resized other axes
    and failed a correct cresize ("forward returned shape (3, 5); expected (5, 3)")."""
    assert testing.check_reference(shape, **options) < 1e-12
    assert testing.check_adjoint(shape, **options) < 1e-12
    assert testing.check_gradient(shape, **options) < testing.FD_TOLERANCE


def test_check_reference_says_where_and_how_much():
    """A bilinear backward that drops the last input column: the report names the
    column, how many values are off and the worst one with both values."""

    def drops_last_column(g, input_shape, **options):
        dx = cresize.resize_backward(g, input_shape, **options)
        dx[..., -1] = 0
        return dx

    with pytest.raises(AssertionError) as info:
        testing.check_reference((2, 3, 9, 11), (5, 17), backward=drops_last_column)
    message = str(info.value)
    assert "backward deviates" in message
    assert "54 of 594 values off by more than" in message  # 2 * 3 * 9 values of column 10
    assert "at [:, :, :, 10]; worst at (" in message
    assert re.search(r"worst at \(\d, \d, \d, 10\) \(flat \d+\): 0\.0 instead of -?0\.\d+", message)
    assert "it is what" not in message  # no other convention gives this


@pytest.mark.parametrize(
    "options, wrong, said",
    [
        (
            dict(mode="bilinear", align_corners=True),
            dict(align_corners=False),
            "align_corners=False",
        ),
        (dict(mode="nearest-exact"), dict(mode="nearest"), "mode='nearest'"),
        (dict(mode="bicubic", antialias=True), dict(antialias=False), "antialias=False"),
    ],
)
def test_check_reference_names_the_convention_a_result_follows(options, wrong, said):
    """A port that mixes up a convention: the report names the options it follows."""

    def backward(g, input_shape, **given):
        return cresize.resize_backward(g, input_shape, **{**given, **wrong})

    def forward(x, size, **given):
        return cresize.resize(x, size, **{**given, **wrong})

    with pytest.raises(AssertionError, match=rf"backward deviates.*; it is what {said} gives$"):
        testing.check_reference((2, 3, 9, 11), (5, 7), backward=backward, **options)
    with pytest.raises(AssertionError, match=rf"forward deviates.*; it is what {said} gives$"):
        testing.check_reference((2, 3, 9, 11), (5, 7), forward=forward, dtype="float32", **options)

    # an align_corners mix-up is off everywhere; one wrong row of a forward is found too
    def wrong_row(x, size, **options):
        y = cresize.resize(x, size, **options)
        y[:, 2, 1:4] += 1e-6
        return y

    with pytest.raises(
        AssertionError,
        match=r"forward deviates.*12 of 476 values off by more "
        r"than [\d.e-]+, at \[:, 2, \{1-3\}\]; worst at \(\d, 2, [1-3]\)",
    ):
        testing.check_reference((4, 7, 9), (7, 17), axes=(1, 2), forward=wrong_row)


def test_check_reference_names_a_size_read_instead_of_a_scale_factor():
    """A port that takes output lengths only (burn's interpolate, a wrapper that passes
    ``g.shape``) reads a ``scale_factor`` axis at ``in/out``, not ``1/f``: the report
    says so, with the lengths it was given."""

    def forward(x, size, **options):
        return cresize.resize(x, (15, 6), **{**options, "scale_factor": None})

    def backward(g, input_shape, **options):
        return cresize.resize_backward(g, input_shape, **{**options, "scale_factor": None})

    said = re.escape("; it is what size=(15, 6) without scale_factor (read at in/out) gives")
    factors = dict(scale_factor=(1.55, 0.7), mode="lanczos3", antialias=True)
    with pytest.raises(AssertionError, match=rf"backward deviates.*{said}$"):
        testing.check_reference((1, 2, 10, 9), backward=backward, **factors)
    with pytest.raises(AssertionError, match=rf"forward deviates.*{said}$"):
        testing.check_reference((1, 2, 10, 9), forward=forward, dtype="float32", **factors)
    # where the two readings agree (area; whole multiples) nothing is named
    assert (
        testing.check_reference(
            (1, 2, 10, 9), backward=backward, mode="area", scale_factor=(1.55, 0.7)
        )
        < 1e-12
    )


@pytest.mark.parametrize(
    "check", [testing.check_adjoint, testing.check_gradient, testing.check_reference]
)
def test_a_nan_result_fails_even_a_check_that_only_measures(check):
    def nan_forward(x, size, **options):
        y = cresize.resize(x, size, **options)
        y[1, 2] = np.nan
        return y

    with pytest.raises(AssertionError, match="relative nan > rtol inf") as info:
        check((4, 6), (5, 3), forward=nan_forward, rtol=np.inf)
    if check is testing.check_reference:  # says where, and that it is a NaN
        assert "1 of 15 values off by more than inf or NaN (1 NaN), at [1, 2]" in str(info.value)


def test_mismatch_describes_where_arrays_differ():
    expected = np.zeros((3, 12))
    actual = expected.copy()
    actual[1, [0, 1, 2, 5, 7, 8]] = [1, 1, 1, 3, 1, np.nan]
    assert testing._mismatch(actual, expected, 0.5) == (
        "6 of 36 values off by more than 0.5 or NaN (1 NaN), at [1, {0-2, 5, 7-8}]; "
        "worst at (1, 8) (flat 20): nan instead of 0.0"  # NaN is the worst difference
    )
    # only the NaN: it was "1 of 36 values off by more than inf"
    assert testing._mismatch(actual, expected, np.inf).startswith(
        "1 of 36 values off by more than inf or NaN (1 NaN), at [1, 8]"
    )
    assert "NaN" not in testing._mismatch(np.ones((3, 12)), expected, 0.5)
    assert testing._mismatch(expected, expected, 0.0) == "no value changed"
    many = np.zeros(40)
    many[::3] = 1
    assert "at [{0, 3, 6, 9, 12, 15, ...}]" in testing._mismatch(many, np.zeros(40), 0.5)


@pytest.mark.parametrize(
    "check", [testing.check_adjoint, testing.check_gradient, testing.check_reference]
)
def test_an_implementation_that_writes_into_its_input_fails(check):
    """A backward that scales grad_output in place would otherwise pass: both inner
    products (and the reference) would then be taken with the scaled gradient."""

    def scales_grad_output(g, input_shape, **options):
        g *= 2
        return cresize.resize_backward(g, input_shape, **options)

    def clips_x(x, size, **options):
        np.clip(x, -0.5, 0.5, out=x)
        return cresize.resize(x, size, **options)

    with pytest.raises(
        AssertionError,
        match=r"backward modified its input \(grad_output\) in "
        r"place: 70 of 70 values changed, at \[:, :\]",
    ):
        check((4, 6), (7, 10), backward=scales_grad_output)
    with pytest.raises(AssertionError, match=r"forward modified its input \(x\) in place"):
        check((4, 6), (7, 10), forward=clips_x)


def test_adjoint_and_gradient_checks_build_no_dense_matrix(monkeypatch):
    """A long 1-D axis, 20,000 -> 30,000: its dense matrix is 4.8 GB (it took 14 s of
    CPU to build); the inner-product checks need only its row and column sums."""

    def refuse(self):
        raise AssertionError("a dense matrix was built")

    monkeypatch.setattr(_tables.Taps, "dense", refuse)
    for check in (testing.check_adjoint, testing.check_gradient):
        assert check((2, 20000), (30000,), mode="lanczos3", antialias=True) <= 1e-8
    with pytest.raises(AssertionError, match="a dense matrix was built"):
        testing.check_reference((2, 20), (30,))  # the dense reference is dense
    monkeypatch.undo()
    # the sums from the sparse taps are those of the dense matrices
    rng = np.random.default_rng(3)
    x, g = rng.uniform(-1, 1, (3, 9, 10)), rng.uniform(-1, 1, (3, 16, 4))
    for mode, ac, aa in COMBOS:
        options = dict(mode=mode, align_corners=ac, antialias=aa, axes=(1, 2))
        dense = testing.adjoint_scale(x, g, testing.reference_matrices(x.shape, (16, 4), **options))
        spec = cresize._spec.forward(x.shape, (16, 4), None, mode, ac, aa, (1, 2))
        sparse = testing._adjoint_scale(x, g, testing._norms(spec))
        assert sparse == pytest.approx(dense, rel=1e-14, abs=0)


def test_check_reference_takes_the_sparse_taps_of_a_long_axis(monkeypatch):
    """1-D 20,000 -> 30,000 lanczos3 antialias: check_reference built the 4.8 GB dense
    matrix of the axis (twice the memory with its product); it applies the taps now."""
    import tracemalloc

    def refuse(self):
        raise AssertionError("a dense matrix was built")

    monkeypatch.setattr(_tables.Taps, "dense", refuse)
    tracemalloc.start()
    try:
        error = testing.check_reference((20000,), (30000,), mode="lanczos3", antialias=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert error <= testing.TOLERANCES[np.dtype(np.float64)]
    assert peak < 30e6  # about 10 MB (the dense matrix alone: 4.8 GB)
    # and a wrong backward is caught, with its message, on the sparse path
    with pytest.raises(AssertionError, match=r"backward deviates.*1 of 20000 values off"):
        testing.check_reference(
            (20000,),
            (30000,),
            backward=lambda g, s, **o: (
                cresize.resize_backward(g, s, **o) * np.r_[np.ones(19999), 0]
            ),
        )


REFERENCE_CASES = [
    ((2, 5, 7), (9, 3), None, (1, 2)),
    ((6, 4, 2), None, (1.6, 0.55), (0, 1)),
    ((37,), (5,), None, (0,)),
    ((3, 40), (97,), None, (1,)),
    ((11, 3, 13), (4, 30), None, (0, 2)),
]


@pytest.mark.parametrize("shape, size, scale_factor, axes", REFERENCE_CASES)
def test_reference_is_dense_when_small_and_the_sparse_one_agrees(
    monkeypatch, shape, size, scale_factor, axes
):
    """Below the limit the reference is the dense product, bit for bit what it was
    (reference_resize / reference_backward); the sparse taps give the same values to
    rounding (summed in another order), and check_reference passes on them."""
    rng = np.random.default_rng(5)
    for mode, ac, aa in COMBOS:
        options = dict(scale_factor=scale_factor, mode=mode, align_corners=ac, antialias=aa)
        spec = cresize._spec.forward(shape, size, scale_factor, mode, ac, aa, axes)
        x, g = rng.uniform(-1, 1, shape), rng.uniform(-1, 1, spec.output_shape)
        dense = {
            False: testing.reference_resize(x, size, axes=axes, **options),
            True: testing.reference_backward(g, shape, axes=axes, **options),
        }
        for transpose, a in ((False, x), (True, g)):
            for limit in (testing._DENSE_LIMIT, 0):
                monkeypatch.setattr(testing, "_DENSE_LIMIT", limit)
                operators = testing._operators(spec, transpose)
                assert all(isinstance(w, np.ndarray) for w in operators.values()) == (limit > 0)
                got = a
                for axis, operator in operators.items():
                    got = testing._apply_operator(got, axis, operator)
                scale = np.prod([testing._row_sum(w) for w in operators.values()])
                if limit:
                    assert np.array_equal(got, dense[transpose])  # the same bits
                else:
                    assert np.abs(got - dense[transpose]).max() <= 1e-14 * scale
                monkeypatch.undo()
        monkeypatch.setattr(testing, "_DENSE_LIMIT", 0)
        assert testing.check_reference(shape, size, axes=axes, **options, **ONE_THREAD) <= 1e-12
        monkeypatch.undo()


def test_integer_arguments_take_0d_arrays():
    # seed and n_directions follow _spec.integer, as size and num_threads do
    testing.check_adjoint((4, 4), 2, seed=np.array(3))
    testing.check_gradient((4, 4), 2, seed=np.uint8(3), n_directions=np.array(2))
    with pytest.raises(TypeError, match="n_directions must be an int from 1 to 1,000,000; got arr"):
        testing.check_gradient((4, 4), 2, n_directions=np.array(2.0))


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: testing.check_adjoint((4, 4), 2, rtol=0), "rtol must be > 0; got 0"),
        (lambda: testing.check_reference((4, 4), 2, rtol=-1), "rtol must be > 0; got -1"),
        (lambda: testing.check_gradient((4, 4), 2, rtol=0), "rtol must be > 0; got 0"),
        (lambda: testing.check_gradient((4, 4), 2, step=0), "step must be > 0; got 0"),
        (
            lambda: testing.check_gradient((4, 4), 2, step=np.float32(0)),
            f"step must be > 0; got {np.float32(0)!r}",
        ),
        (
            lambda: testing.check_gradient((4, 4), 2, n_directions=np.int64(0)),
            f"n_directions must be an int from 1 to 1,000,000; got {np.int64(0)!r}",
        ),
        (
            lambda: testing.check_adjoint((4, 4), 2, seed=np.int64(-1)),
            f"seed must be an int >= 0 and < 2**53 (9007199254740992); got {np.int64(-1)!r}",
        ),
    ],
)
def test_a_refused_number_is_quoted_as_passed(call, message):
    # rtol=0 was quoted as 0.0, step=np.float32(0) as 0.0, seed=np.int64(-1) as -1:
    # the values after conversion, not what the caller passed (NumPy's repr: np.int64(-1)
    # from NumPy 2, -1 before)
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message
