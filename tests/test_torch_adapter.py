"""cresize.torch: gradcheck, gradgradcheck, agreement with F.interpolate, errors, training."""

import functools
import typing

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import cresize  # noqa: E402
import cresize.torch as ct  # noqa: E402
from cresize import _spec, testing  # noqa: E402
from helpers.cases import COMBOS as CRESIZE_COMBOS  # noqa: E402
from helpers.oracle import NO_ALIGN_CORNERS  # noqa: E402

#: The shared combinations in PyTorch's spelling: align_corners None where it has none.
COMBOS = [(m, None if m in NO_ALIGN_CORNERS else ac, aa) for m, ac, aa in CRESIZE_COMBOS]


# Tiny tensors: one thread (torch.set_num_threads sets the shared OpenMP default).
pytestmark = pytest.mark.usefixtures("torch_one_thread")


@pytest.mark.parametrize("mode, align_corners, antialias", COMBOS)
def test_gradcheck_and_gradgradcheck(mode, align_corners, antialias):
    x = torch.randn(1, 2, 4, 3, dtype=torch.float64, requires_grad=True)

    def f(t):
        return ct.interpolate(
            t, size=(3, 5), mode=mode, align_corners=align_corners, antialias=antialias
        )

    assert torch.autograd.gradcheck(f, (x,))
    assert torch.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize(
    "shape, kwargs",
    [
        ((2, 1, 6), dict(size=4, mode="lanczos3")),
        (
            (1, 1, 3, 4, 2),
            dict(scale_factor=(1.5, 0.75, 2.0), mode="trilinear", align_corners=True),
        ),
        ((1, 2, 4, 5), dict(scale_factor=0.6, mode="area")),
    ],
)
def test_gradcheck_other_dimensions_and_scale_factors(shape, kwargs):
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: ct.interpolate(t, **kwargs), (x,))
    assert torch.autograd.gradgradcheck(lambda t: ct.interpolate(t, **kwargs), (x,))


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")  # torch.func's own
@pytest.mark.parametrize("channels_last", [False, True])
def test_forward_mode_and_torch_func_transforms(channels_last):
    # forward-mode AD (jvp) raised NotImplementedError and torch.func transforms
    # (vmap, jacrev, grad) refused the autograd.Function; F.interpolate has them all.
    kwargs = dict(size=(3, 5), mode="bicubic", antialias=True)
    x = torch.randn(2, 3, 4, 6, dtype=torch.float64)
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
    x.requires_grad_()

    def ours(t):
        return ct.interpolate(t, **kwargs)

    def theirs(t):
        return F.interpolate(t, **kwargs)

    # (gradcheck's check_batched_grad / check_batched_forward_grad, the legacy batching
    # of autograd.grad(is_grads_batched=True), are not supported; torch.func.vmap is)
    assert torch.autograd.gradcheck(ours, (x,), check_forward_ad=True)
    assert torch.autograd.gradgradcheck(
        ours, (x,), check_fwd_over_rev=True, check_rev_over_rev=True
    )
    v = torch.randn_like(x)
    for a, b in zip(torch.func.jvp(ours, (x,), (v,)), torch.func.jvp(theirs, (x,), (v,))):
        torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(
        torch.func.jacrev(ours)(x[:1, :2]),
        torch.func.jacrev(theirs)(x[:1, :2]),
        rtol=1e-12,
        atol=1e-12,
    )
    torch.testing.assert_close(
        torch.func.jacfwd(ours)(x[:1, :2]),
        torch.func.jacfwd(theirs)(x[:1, :2]),
        rtol=1e-12,
        atol=1e-12,
    )
    torch.testing.assert_close(
        torch.func.vmap(ours)(x[:, None]), theirs(x)[:, None], rtol=1e-12, atol=1e-12
    )
    torch.testing.assert_close(
        torch.func.grad(lambda t: ours(t).square().sum())(x),
        torch.func.grad(lambda t: theirs(t).square().sum())(x),
        rtol=1e-12,
        atol=1e-12,
    )


@pytest.mark.parametrize("batch", [0, 1, 3])
def test_vmap_over_a_batch_of_any_size(batch):
    # vmap's rule stacked the results of its slices: with none (a vmapped dimension of
    # size 0) torch.stack raised "stack expects a non-empty TensorList".
    kwargs = dict(size=(3, 5), mode="bilinear")
    x = torch.randn(batch, 2, 3, 4, 6, dtype=torch.float64)
    g = torch.randn(batch, 2, 3, 3, 5, dtype=torch.float64)

    def ours(t):
        return ct.interpolate(t, **kwargs)

    def theirs(t):
        return F.interpolate(t, **kwargs)

    # (PyTorch 2.13's own vmap of F.interpolate gives (0, 0, 3, 3, 5) for batch 0: the
    # reference is F.interpolate of the batch folded into N)
    want = theirs(x.flatten(0, 1)).unflatten(0, (batch, 2))
    for xs, in_dims in ((x, 0), (x.movedim(0, 2), 2)):
        got = torch.func.vmap(ours, in_dims=in_dims)(xs)
        assert got.shape == (batch, 2, 3, 3, 5)
        torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)
    # the adjoint (reverse mode) of each slice too
    _, vjp = torch.func.vjp(ours, torch.zeros(2, 3, 4, 6, dtype=x.dtype))
    (got,) = torch.func.vmap(vjp)(g)
    assert got.shape == (batch, 2, 3, 4, 6)
    x.requires_grad_()
    (want,) = torch.autograd.grad(theirs(x.flatten(0, 1)), x, g.flatten(0, 1))
    torch.testing.assert_close(got, want, rtol=1e-12, atol=1e-12)


def test_torch_compile_takes_it():
    # Dynamo traced into the plan's NumPy table building and failed
    # ("AssertionError: Expected np.nditer base") for any geometry not yet cached; it
    # records the operator cresize::interpolate now (tests/test_torch_graphs.py).
    cresize.clear_cache()
    x = torch.randn(2, 3, 5, 6, dtype=torch.float64, requires_grad=True)
    resize = ct.Resize(size=(4, 7), mode="bicubic", antialias=True)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 2, 1, dtype=torch.float64), resize)
    compiled = torch.compile(net, backend="eager")
    function = torch.compile(lambda t: ct.interpolate(t, size=(3, 9), mode="area"), backend="eager")
    for run in (compiled, function):
        y = run(x)
        (g,) = torch.autograd.grad(y.square().sum(), x)
        eager = (net if run is compiled else lambda t: F.interpolate(t, size=(3, 9), mode="area"))(
            x
        )
        torch.testing.assert_close(y, eager, rtol=1e-12, atol=1e-12)
        torch.testing.assert_close(
            g, torch.autograd.grad(eager.square().sum(), x)[0], rtol=1e-12, atol=1e-12
        )


def test_double_backward_is_the_forward():
    x = torch.randn(1, 1, 4, 6, dtype=torch.float64, requires_grad=True)
    y = ct.interpolate(x, size=(7, 3), mode="bicubic", antialias=True)
    g = torch.randn_like(y, requires_grad=True)
    (dx,) = torch.autograd.grad(y, x, g, create_graph=True)
    v = torch.randn_like(dx)
    (dg,) = torch.autograd.grad(dx, g, v)
    expected = cresize.resize(v.numpy(), (7, 3), mode="bicubic", antialias=True)
    np.testing.assert_allclose(dg.numpy(), expected, rtol=0, atol=1e-14)
    np.testing.assert_allclose(
        dx.detach().numpy(),
        cresize.resize_backward(g.detach().numpy(), x.shape, mode="bicubic", antialias=True),
        rtol=0,
        atol=1e-14,
    )


# (torch mode, cresize mode, align_corners, antialias, input shape, size or scale_factor)
TORCH_CASES = [
    ("nearest", "nearest", None, False, (2, 3, 5, 7), dict(size=(8, 3))),
    ("nearest-exact", "nearest-exact", None, False, (1, 2, 6, 5), dict(size=(4, 9))),
    ("bilinear", "bilinear", False, False, (2, 3, 5, 7), dict(size=(8, 3))),
    ("bilinear", "bilinear", True, False, (1, 2, 5, 7), dict(scale_factor=(1.7, 0.6))),
    ("bilinear", "bilinear", False, True, (1, 2, 9, 7), dict(size=(4, 3))),
    ("bicubic", "bicubic", True, False, (1, 2, 5, 7), dict(size=(8, 3))),
    ("bicubic", "bicubic", False, True, (1, 2, 9, 6), dict(scale_factor=0.45)),
    ("lanczos", "lanczos3", False, True, (1, 2, 9, 7), dict(size=(4, 11))),
    ("area", "area", None, False, (1, 2, 9, 7), dict(size=(4, 3))),
    ("linear", "linear", False, False, (2, 3, 7), dict(scale_factor=2.5)),
    ("trilinear", "trilinear", True, False, (1, 1, 3, 5, 4), dict(size=(5, 2, 7))),
    ("area", "area", None, False, (1, 2, 7, 4, 5), dict(size=(3, 3, 2))),
]


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("torch_mode, mode, align_corners, antialias, shape, geometry", TORCH_CASES)
def test_matches_torch_values_and_gradients(
    torch_mode, mode, align_corners, antialias, shape, geometry, dtype
):
    gen = torch.Generator().manual_seed(0)
    x = torch.rand(*shape, dtype=dtype, generator=gen) * 2 - 1
    ours_x, theirs_x = x.clone().requires_grad_(), x.clone().requires_grad_()
    ours = ct.interpolate(
        ours_x, mode=torch_mode, align_corners=align_corners, antialias=antialias, **geometry
    )
    if mode != torch_mode:  # cresize's own name gives the same
        same = ct.interpolate(
            x, mode=mode, align_corners=align_corners, antialias=antialias, **geometry
        )
        assert torch.equal(same, ours)
    theirs = F.interpolate(
        theirs_x, mode=torch_mode, align_corners=align_corners, antialias=antialias, **geometry
    )
    g = torch.rand(theirs.shape, dtype=dtype, generator=gen) * 2 - 1
    ours.backward(g)
    theirs.backward(g)
    assert ours.dtype == dtype and ours.shape == theirs.shape and ours.is_contiguous()
    tol = 1e-12 if dtype == torch.float64 else 4e-6
    torch.testing.assert_close(ours, theirs.detach(), rtol=0, atol=tol)
    torch.testing.assert_close(ours_x.grad, theirs_x.grad, rtol=0, atol=3 * tol)


def test_plain_lanczos3_matches_dense_weights():
    """PyTorch has no Lanczos-3 without antialias; check against cresize.weights."""
    x = torch.randn(2, 1, 6, 5, dtype=torch.float64, requires_grad=True)
    y = ct.interpolate(x, size=(9, 4), mode="lanczos3")
    wh, ww = cresize.weights(6, 9, mode="lanczos3"), cresize.weights(5, 4, mode="lanczos3")
    expected = np.einsum("oi,ncij,pj->ncop", wh, x.detach().numpy(), ww)
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=0, atol=1e-13)
    y.backward(torch.ones_like(y))  # an expanded-style gradient of ones
    np.testing.assert_allclose(
        x.grad.numpy(), np.broadcast_to(np.outer(wh.sum(0), ww.sum(0)), x.shape), rtol=0, atol=1e-13
    )


def test_non_contiguous_inputs_and_gradients():
    base = torch.randn(3, 7, 6, 2, dtype=torch.float64)
    x = base.permute(3, 0, 2, 1)[:, ::2]  # (2, 2, 6, 7), non-contiguous
    assert not x.is_contiguous()
    x.requires_grad_()
    y = ct.interpolate(x, size=(4, 9), mode="bicubic", align_corners=True)
    contiguous = ct.interpolate(
        x.detach().contiguous(), size=(4, 9), mode="bicubic", align_corners=True
    )
    assert torch.equal(y, contiguous)
    g = torch.randn(9, 4, 2, 2, dtype=torch.float64).permute(2, 3, 1, 0)  # non-contiguous
    y.backward(g)
    expected = cresize.resize_backward(
        g.contiguous().numpy(), x.shape, mode="bicubic", align_corners=True
    )
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    before = base.clone()
    ct.interpolate(x, size=(4, 9), mode="area").sum().backward()
    assert torch.equal(base, before)  # the input is never modified


def _layouts(shape):
    """Tensors of ``shape`` in every order of its dimensions in memory, dense; with each
    size-1 dimension's stride also 1 or the whole size (any stride fits it)."""
    import itertools

    ones = [d for d, n in enumerate(shape) if n == 1]
    buffer = torch.arange(float(2 * np.prod(shape) + 1))
    seen = set()
    for order in itertools.permutations(range(len(shape))):
        strides, step = [0] * len(shape), 1
        for d in reversed(order):
            strides[d], step = step, step * shape[d]
        for odd in itertools.product((None, 1, step), repeat=len(ones)):
            given = list(strides)
            for d, stride in zip(ones, odd):
                given[d] = given[d] if stride is None else stride
            if tuple(given) not in seen:
                seen.add(tuple(given))
                yield buffer.as_strided(shape, given)


# F.interpolate's mode names on each rank (and options that take other kernels there):
# the layout of the result may depend on the mode (5-D area is contiguous in PyTorch)
LAYOUT_MODES = {
    4: [
        ("nearest", {}),
        ("nearest-exact", {}),
        ("bilinear", {}),
        ("bilinear", {"align_corners": True}),
        ("bilinear", {"antialias": True}),
        ("bicubic", {}),
        ("bicubic", {"antialias": True}),
        ("lanczos", {"antialias": True}),
        ("area", {}),
    ],
    5: [("nearest", {}), ("nearest-exact", {}), ("trilinear", {}), ("area", {})],
}


@pytest.mark.parametrize(
    "rank, mode, kwargs", [(r, m, k) for r, modes in LAYOUT_MODES.items() for m, k in modes]
)
def test_results_are_laid_out_as_f_interpolate_lays_them_out(rank, mode, kwargs):
    # _channels_last reads PyTorch's contiguity flags first (two C++ queries, the tiny
    # call's cost) and the stride rule only where they leave it open, and a repeated
    # call (and Resize's) reads the layout from its plan: every dense layout of small
    # shapes, with the ambiguous size-1 strides, against F.interpolate's result, in
    # each of its modes. One departure, documented (docs/limits.md): PyTorch's 5-D area
    # (adaptive_avg_pool3d, no channels-last kernel) returns a contiguous result, and
    # cresize keeps channels-last there too (matching it cost 1.4-3.7x there)
    import itertools

    lengths = (1, 2, 3) if rank == 4 else (1, 2)
    size = (2, 3, 2)[: rank - 2]
    layer = ct.Resize(size=size, mode=mode, **kwargs)
    departs = (rank, mode) == (5, "area")
    seen = set()
    for shape in itertools.product(lengths, repeat=rank):
        for x in _layouts(shape):
            theirs = F.interpolate(x, size=size, mode=mode, **kwargs)
            if departs:  # the layout F.interpolate gives every other mode
                theirs = torch.empty_like(F.interpolate(x, size=size)).copy_(theirs)
            for _ in range(2):  # planned, then its plan found by its shape and strides
                for ours in (ct.interpolate(x, size=size, mode=mode, **kwargs), layer(x)):
                    assert ours.stride() == theirs.stride(), (shape, x.stride())
                    torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=1e-4)
            seen.add(ct._channels_last(x))
    assert seen == {False, True}
    layouts = []  # the gradient's layout too
    for resize in (F.interpolate, ct.interpolate):
        x = torch.randn((2, 3) + (4,) * (rank - 2)).contiguous(memory_format=CHANNELS_LAST[rank])
        x.requires_grad_()
        y = resize(x, size=size, mode=mode, **kwargs)
        y.backward(torch.ones_like(y))
        layouts.append((y.is_contiguous(), x.grad.stride()))
    assert layouts[0] == ((True, layouts[1][1]) if departs else layouts[1])


CHANNELS_LAST = {4: torch.channels_last, 5: torch.channels_last_3d}


KEEP_OR_DOUBLE = [
    ("nearest", False, spatial, n_in, f)
    for spatial in (1, 2, 3)
    for n_in, f in ((5, 1.05), (100, 1.001), (10, 2.04))
] + [
    (mode, antialias, 2, n_in, f)
    for mode, antialias in (("bilinear", True), ("bicubic", False), ("bicubic", True))
    for n_in, f in ((5, 1.05), (30, 1.01))
]


@pytest.mark.parametrize("mode, antialias, spatial, n_in, f", KEEP_OR_DOUBLE)
def test_gradient_where_pytorchs_is_not_its_forwards_adjoint(mode, antialias, spatial, n_in, f):
    """The PyTorch guide lists this departure: with a scale_factor that keeps an axis's
    length (O == I, f != 1), or for nearest doubles it (O == 2I, f != 2), PyTorch 2.13's
    backward does not always read the axis as its forward does: nearest backward reads
    o (or o // 2) on every rank where its forward reads floor(o / f) (1-D and 3-D, and
    some long 2-D axes); 2-D bicubic reads 1/f forward and copies backward,
    antialiased bilinear and bicubic the other way round. There PyTorch's gradient is
    not the adjoint of its own forward; cresize.torch's forward and gradient are the
    spec's."""
    gen = torch.Generator().manual_seed(0)
    x = torch.randn((2, 3, n_in) + (4,) * (spatial - 1), dtype=torch.float64, generator=gen)
    kwargs = dict(scale_factor=(f,) + (1.0,) * (spatial - 1), mode=mode, antialias=antialias)
    ours_x, theirs_x = x.clone().requires_grad_(), x.clone().requires_grad_()
    ours, theirs = ct.interpolate(ours_x, **kwargs), F.interpolate(theirs_x, **kwargs)
    g = torch.randn(ours.shape, dtype=torch.float64, generator=gen)
    (ours_dx,) = torch.autograd.grad(ours, ours_x, g)
    (theirs_dx,) = torch.autograd.grad(theirs, theirs_x, g)
    ours, theirs = ours.detach(), theirs.detach()
    matrices = testing.reference_matrices(x.shape, axes=range(2, 2 + spatial), **kwargs)
    scale = testing.adjoint_scale(x, g, matrices)
    assert abs(float((ours * g).sum() - (x * ours_dx).sum())) <= 1e-12 * scale
    torch.testing.assert_close(
        ours,
        torch.from_numpy(testing.reference_resize(x.numpy(), axes=range(2, 2 + spatial), **kwargs)),
    )
    gap = abs(float((theirs * g).sum() - (x * theirs_dx).sum()))
    if mode == "nearest" and spatial == 2:
        # its 2-D nearest: on short axes forward and backward both read o (o // 2); on
        # long ones (the length depends on the other axes too) the forward may not
        assert gap <= 1e-12 * scale or gap > 1e-6 * scale
    else:
        assert gap > 1e-6 * scale  # the fact (still there in 2.13.0)
        assert not torch.allclose(theirs_dx, ours_dx) or not torch.allclose(theirs, ours)


@pytest.mark.parametrize("antialias", [False, True])
def test_uint8_bicubic_follows_the_spec_where_pytorch_clips_between_passes(antialias):
    """The PyTorch guide lists this departure: PyTorch 2.13's uint8 bicubic rounds and
    clips to 0-255 after its width pass, so next to sharp edges (where bicubic
    overshoots) it is off the exact result by tens of levels; cresize keeps the
    spec's contract (within 1 of the clipped float64 result)."""
    x = torch.randint(
        0, 256, (2, 3, 17, 23), dtype=torch.uint8, generator=torch.Generator().manual_seed(0)
    )
    kwargs = dict(size=(40, 50), mode="bicubic", antialias=antialias)
    exact = F.interpolate(x.double(), **kwargs).clamp(0, 255).round()
    ours = ct.interpolate(x, **kwargs).double()
    assert (ours - exact).abs().max() <= 1
    theirs = F.interpolate(x, **kwargs).double()
    if (theirs - exact).abs().max() > 1:  # the fact (still there in 2.13.0)
        width = F.interpolate(x.double(), size=(17, 50), mode="bicubic", antialias=antialias)
        two_pass = F.interpolate(width.round().clamp(0, 255), **kwargs).round().clamp(0, 255)
        assert (theirs - two_pass).abs().max() <= 2
        assert (theirs - exact).abs().max() > 10


@pytest.mark.parametrize("dtype", [torch.uint16, torch.uint32, torch.uint64])
def test_unsigned_16_to_64_bit_tensors(dtype):
    # torch.uint16 (16-bit images), uint32 and uint64 were refused ("input dtype must be
    # one of ..."), although cresize resizes those NumPy dtypes (F.interpolate does not)
    img = torch.randint(0, 65536, (2, 3, 9, 7), dtype=torch.int64)
    for x in (img.to(dtype), img.to(dtype).contiguous(memory_format=torch.channels_last)):
        out = ct.interpolate(x, size=(5, 12), mode="bicubic", antialias=True)
        assert (
            out.dtype == dtype
            and out.stride() == F.interpolate(x.double(), size=(5, 12), mode="bicubic").stride()
        )
        expected = cresize.resize(x.numpy(), (5, 12), mode="bicubic", antialias=True, axes=(2, 3))
        np.testing.assert_array_equal(out.numpy(), expected)


def test_integer_and_half_forward():
    img = torch.randint(0, 256, (1, 3, 8, 6), dtype=torch.uint8)
    out = ct.interpolate(img, size=(5, 9), mode="bilinear", antialias=True)
    assert out.dtype == torch.uint8 and not out.requires_grad
    np.testing.assert_array_equal(
        out.numpy(), cresize.resize(img.numpy(), (5, 9), mode="bilinear", antialias=True)
    )
    half = ct.interpolate(img.to(torch.float16), size=(5, 9), mode="bilinear")
    assert half.dtype == torch.float16
    np.testing.assert_array_equal(
        half.numpy(), cresize.resize(img.numpy().astype(np.float16), (5, 9), mode="bilinear")
    )
    # a float16 tensor that requires grad, where no gradient is recorded: resized (it was
    # refused with "gradients need a float32 or float64 input")
    leaf = img.to(torch.float16).requires_grad_()
    for no_grad in (torch.no_grad, torch.inference_mode):
        with no_grad():
            out = ct.interpolate(leaf, size=(5, 9), mode="bilinear")
        assert torch.equal(out, half) and not out.requires_grad
    # and where one is, it is recorded (test_half_precision_... checks its values)
    assert ct.interpolate(leaf, size=(5, 9), mode="bilinear").requires_grad


def test_recompute_scale_factor_and_threads():
    x = torch.randn(1, 2, 7, 5, dtype=torch.float64)
    kwargs = dict(scale_factor=(1.3, 2.7), mode="bilinear", recompute_scale_factor=True)
    torch.testing.assert_close(
        ct.interpolate(x, **kwargs), F.interpolate(x, **kwargs), rtol=0, atol=1e-12
    )
    one = ct.interpolate(x, size=(40, 33), mode="lanczos3", num_threads=1)
    assert torch.equal(one, ct.interpolate(x, size=(40, 33), mode="lanczos3", num_threads=2))


def test_resize_module_takes_num_threads(monkeypatch):
    # Resize had no num_threads: a module always ran OpenMP's default thread count.
    x = torch.randn(2, 3, 9, 7, dtype=torch.float64, requires_grad=True)
    layer = ct.Resize(size=(13, 5), mode="bicubic", num_threads=1)
    assert "num_threads=1" in repr(layer)
    seen = []
    apply = ct._apply
    monkeypatch.setattr(ct, "_apply", lambda *args: seen.append(args[2]) or apply(*args))
    out = layer(x)
    out.sum().backward()
    assert seen == [1]
    expected = ct.interpolate(x.detach(), size=(13, 5), mode="bicubic")
    assert torch.equal(out.detach(), expected)
    with pytest.raises(ValueError, match="num_threads"):
        ct.Resize(size=4, num_threads=0)
    assert ct.Resize(size=4).num_threads is None


class _Kept(torch.Tensor):
    """A tensor subclass with PyTorch's default __torch_function__."""


class _Logged(torch.Tensor):
    """A tensor subclass whose __torch_function__ notes each function it is given."""

    seen: typing.ClassVar[list] = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func)
        return super().__torch_function__(func, types, args, kwargs or {})


@pytest.mark.parametrize("subclass", [_Kept, _Logged])
def test_a_tensor_subclass_sees_the_call_and_is_kept_as_f_interpolate_does(subclass):
    # F.interpolate gives the call to a subclass's __torch_function__ (the default one
    # returns the subclass); cresize.torch returned a plain Tensor and no subclass saw it
    base = torch.randn(2, 3, 5, 4, dtype=torch.float64)
    kw = dict(size=(3, 7), mode="bicubic", antialias=True)
    expected = ct.interpolate(base, **kw)
    plain = base.clone().requires_grad_()
    ct.interpolate(plain, **kw).sum().backward()
    for call, func in (
        (F.interpolate, F.interpolate),
        (ct.interpolate, ct.interpolate),
        (lambda t, **k: ct.Resize(**k)(t), ct.interpolate),
    ):
        x = base.clone().as_subclass(subclass).requires_grad_()
        _Logged.seen.clear()
        y = call(x, **kw)
        if subclass is _Logged:  # (before y.requires_grad, a function it sees too)
            assert _Logged.seen == [func]
        assert type(y) is subclass and y.requires_grad
        if func is ct.interpolate:
            assert torch.equal(y.as_subclass(torch.Tensor), expected)
        y.sum().backward()
        assert type(x.grad) is torch.Tensor
        if func is ct.interpolate:
            assert torch.equal(x.grad, plain.grad)
    # nn.Parameter (its __torch_function__ is disabled) stays a plain result
    assert type(ct.interpolate(torch.nn.Parameter(base), **kw)) is torch.Tensor


def test_resize_repr_tells_apart_modules_that_resize_differently():
    # recompute_scale_factor changes the result but was not in the repr: these two
    # modules printed the same
    x = torch.rand(1, 1, 5, 5, dtype=torch.float64)
    plain = ct.Resize(scale_factor=1.7, mode="bilinear")
    recomputed = ct.Resize(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)
    assert not torch.equal(plain(x), recomputed(x))
    assert repr(plain) != repr(recomputed)
    assert repr(recomputed) == (
        "Resize(scale_factor=1.7, mode='bilinear', align_corners=None, antialias=False, "
        "recompute_scale_factor=True)"
    )
    assert "recompute_scale_factor" not in repr(plain)


def test_resize_module_trains():
    torch.manual_seed(0)

    def model(resize):
        return torch.nn.Sequential(
            torch.nn.Conv2d(1, 4, 3, padding=1),
            resize,
            torch.nn.Tanh(),
            torch.nn.Flatten(),
            torch.nn.Linear(4 * 5 * 5, 1),
        ).double()

    ours = model(ct.Resize(size=(5, 5), mode="bilinear", antialias=True))
    theirs = model(torch.nn.Upsample(size=(5, 5), mode="bilinear"))
    theirs.load_state_dict(ours.state_dict())
    assert "antialias=True" in repr(ours)
    x = torch.randn(16, 1, 12, 12, dtype=torch.float64)
    target = x.mean(dim=(1, 2, 3), keepdim=False).unsqueeze(1)
    opt = torch.optim.SGD(ours.parameters(), lr=0.05)
    losses = []
    for _ in range(8):
        opt.zero_grad()
        loss = F.mse_loss(ours(x), target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    # the same network with PyTorch's non-antialiased upsample differs; with antialias off
    # both give identical parameter gradients
    plain = model(ct.Resize(size=(5, 5), mode="bilinear"))
    plain.load_state_dict(theirs.state_dict())
    for net in (plain, theirs):
        net.zero_grad()
        F.mse_loss(net(x), target).backward()
    for a, b in zip(plain.parameters(), theirs.parameters()):
        torch.testing.assert_close(a.grad, b.grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "make, kwargs, error, match",
    [
        (lambda: torch.zeros(1, 1, 4, 4, dtype=torch.float8_e4m3fn), {}, TypeError, "input dtype"),
        (lambda: torch.zeros(1, 1, 4, 4, dtype=torch.complex64), {}, TypeError, "input dtype"),
        (lambda: torch.zeros(1, 1, 4, 4, dtype=torch.bool), {}, TypeError, "input dtype"),
        (lambda: np.zeros((1, 1, 4, 4)), {}, TypeError, "torch.Tensor"),
        # other layouts failed in .numpy(), a nested tensor with "Internal error:
        # NestedTensorImpl doesn't support sizes"
        (lambda: torch.zeros(1, 1, 4, 4).to_sparse(), {}, TypeError, "dense .*sparse_coo"),
        (lambda: torch.zeros(1, 1, 4, 4).to_mkldnn(), {}, TypeError, "dense .*_mkldnn"),
        (
            lambda: torch.nested.nested_tensor(
                [torch.zeros(1, 4, 4), torch.zeros(2, 4, 4)], layout=torch.jagged
            ),
            {},
            TypeError,
            r"dense .* nested one: convert it with \.unbind\(\)",
        ),
        (lambda: torch.zeros(4, 4), {}, ValueError, "at least one spatial"),
        (lambda: torch.zeros(1, 1, 4, 4), dict(mode="lanczos"), ValueError, "antialias=True"),
        (lambda: torch.zeros(1, 1, 4, 4), dict(mode="box"), ValueError, "mode must be one of"),
        (
            lambda: torch.zeros(1, 1, 4, 4),
            dict(mode="area", align_corners=True),
            ValueError,
            "align_corners",
        ),
        (lambda: torch.zeros(1, 1, 4, 4), dict(scale_factor=2.0), ValueError, "exactly one"),
        (lambda: torch.zeros(1, 1, 4, 4), dict(size=(2, 2, 2)), ValueError, "3 entries"),
        (lambda: torch.zeros(1, 1, 4, 4), dict(size="2"), TypeError, "size must be"),
        (lambda: torch.zeros(1, 1, 4, 4), dict(num_threads=0), ValueError, "num_threads"),
        # recompute_scale_factor="no" (truthy) recomputed; with size it was ignored
        (
            lambda: torch.zeros(1, 1, 4, 4),
            dict(size=None, scale_factor=1.5, recompute_scale_factor="no"),
            TypeError,
            "recompute_scale_factor must be True, False or None; got 'no'",
        ),
        (
            lambda: torch.zeros(1, 1, 4, 4),
            dict(recompute_scale_factor=True),
            ValueError,
            "recompute_scale_factor=True needs scale_factor",
        ),
    ],
)
def test_errors(make, kwargs, error, match):
    kwargs = {"size": 2, **kwargs}
    with pytest.raises(error, match=match):
        ct.interpolate(make(), **kwargs)


def test_missing_torch_gives_install_hint(monkeypatch):
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` fail
    monkeypatch.delitem(sys.modules, "cresize.torch")
    # The hint is the pinned CPU build: there is no torch extra, and a plain
    # `pip install torch` pulls the multi-GB CUDA build on Linux.
    with pytest.raises(ImportError, match=r"pip install torch==[0-9.]+ --index-url \S+/cpu") as e:
        importlib.import_module("cresize.torch")
    assert "cresize[torch]" not in str(e.value)


def test_resize_module_copies_pickles_and_follows_changed_options():
    import copy
    import io
    import pickle

    m = ct.Resize(size=[7, 9], mode="bilinear")
    x = torch.rand(1, 2, 6, 6)
    assert m(x).shape == (1, 2, 7, 9)
    for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert torch.equal(clone(x), m(x))
    torch.save(m, io.BytesIO())
    m.size[0] = 5  # the list given is changed in place: the next call follows it
    assert m(x).shape == (1, 2, 5, 9)


def test_a_resize_pickled_by_an_earlier_version_still_has_its_plan():
    # Earlier states, as unpickling hands them to __setstate__ (what loading a pickle of
    # the class does): dc0f3b6's, its last plan in ``_cached`` (key, plan) only, None
    # before the first call; round 13's, the last plan in ``_last`` beside ``_cached``
    # (the last list size's (key, plan), or None). ``plan`` is the last plan, before and
    # after the next call, with one slot left; a module never called has none.
    import pickle

    x, y = torch.rand(1, 2, 6, 6), torch.rand(1, 2, 5, 5)
    options = ([7, 9], None, "bilinear", None, None, False)
    m = ct.Resize(size=[7, 9], mode="bilinear")
    listed = m._planned(x, options)[0]
    key = m._cached[0]
    last = ct._input_plan((1, 2, 5, 5), torch.float32, ((7, 9), *options[1:]))
    assert key is not None and listed is not last
    base = {k: v for k, v in vars(m).items() if k != "_cached"}
    for cached, extra, plan in [
        ((key, listed), {}, listed),  # dc0f3b6
        (None, {}, None),  # dc0f3b6, never called
        ((key, listed), {"_last": last}, last),  # round 13: a tuple size after a list
        (None, {"_last": last}, last),  # round 13: only tuple sizes
        ((key, listed), {"_last": listed}, listed),
        (None, {"_last": None}, None),
    ]:
        old = ct.Resize.__new__(ct.Resize)
        old.__setstate__(pickle.loads(pickle.dumps({**base, "_cached": cached, **extra})))
        assert old.plan is plan and "_last" not in vars(old)
        assert old._cached == ((key, listed) if plan is listed else (None, plan))
        if plan is not None:
            assert torch.equal(old(x), m(x)) and old.plan is listed
            assert torch.equal(old(y), m(y)) and old.plan is m.plan


def test_a_resize_keeps_one_slot_when_its_options_change_types():
    # A list size's plan is kept with the module's own key of it; a tuple size's plan,
    # found by interpolate's key, replaces it in the same slot (it stayed in _cached
    # beside the last plan: an unused plan and key held). Back to the list: planned
    # again, and the same plan.
    x, y = torch.rand(1, 2, 6, 6), torch.rand(1, 2, 5, 5)
    m = ct.Resize(size=[7, 9], mode="bilinear")
    m(x)
    listed = m.plan
    assert m._cached[0] is not None and m._cached[1] is listed
    m.size = (7, 9)
    for _ in range(2):  # planned, then found by interpolate's key
        m(y)
        assert m._cached == (None, m.plan) and m.plan.input_shape == (1, 2, 5, 5)
        held = [v for v in vars(m).values() if v is listed or isinstance(v, tuple)]
        assert all(listed not in (v if isinstance(v, tuple) else (v,)) for v in held)
    m.size = [7, 9]
    m(x)
    assert m.plan is listed and m._cached[0] is not None


@pytest.mark.parametrize(
    "kwargs,error,words",
    [
        (dict(size=4, mode="sinc"), ValueError, "mode must be one of"),
        (dict(size=4, mode=None), TypeError, "mode must be a string"),
        (dict(size=4, mode="nearest", align_corners=True), ValueError, "align_corners=True"),
        (dict(size=4, mode="area", antialias=True), ValueError, "antialias=True"),
        (dict(size=4, mode="lanczos"), ValueError, "needs antialias=True"),
        (dict(size=4, mode="bilinear", antialias="yes"), TypeError, "antialias must be"),
        (dict(mode="bilinear"), ValueError, "give size or scale_factor"),
        (dict(size=4, scale_factor=2.0, mode="bilinear"), ValueError, "give size or scale_factor"),
        (dict(scale_factor=2.0, recompute_scale_factor=1), TypeError, "recompute_scale_factor"),
        (dict(size=4, recompute_scale_factor=True), ValueError, "needs scale_factor"),
        # size and scale_factor themselves (their count is checked against an input's)
        (dict(size=0), ValueError, r"^size must be >= 1; got 0$"),
        (dict(size=(4, -1)), ValueError, r"^size must be >= 1; got \(4, -1\)$"),
        (dict(size=(4, 4.5)), TypeError, r"^size must be a positive int .*got \(4, 4\.5\)$"),
        (dict(size="4"), TypeError, r"^size must be an int or a sequence of them; got '4'$"),
        (dict(size=torch.tensor([4, 4])), TypeError, "size must be an int, a 0-d integer"),
        (dict(scale_factor=0.0), ValueError, r"^scale_factor must be finite and > 0; got 0\.0$"),
        (dict(scale_factor=(2.0, float("nan"))), ValueError, r"got \(2\.0, nan\)$"),
        (dict(scale_factor=True), TypeError, r"^scale_factor must be a number"),
    ],
)
def test_resize_module_refuses_bad_options_when_made(kwargs, error, words):
    # They used to be accepted and fail only at the first forward call, far from the cause
    # (a size or scale_factor of a wrong value or type until round h68).
    with pytest.raises(error, match=words):
        ct.Resize(**kwargs)


def test_resize_module_shared_by_threads_with_different_shapes():
    import threading

    m = ct.Resize(size=(3, 5), mode="bilinear")
    inputs = [torch.rand(1, 4, 6, 6), torch.rand(1, 6, 4, 6)]
    expected = [F.interpolate(x, size=(3, 5), mode="bilinear") for x in inputs]
    errors = []

    def work(i):
        try:
            for _ in range(200):
                torch.testing.assert_close(m(inputs[i]), expected[i], rtol=1e-6, atol=1e-6)
        except Exception as exc:  # collected and reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i % 2,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_repeated_calls_find_their_plan_without_planning_again(monkeypatch):
    # Every interpolate call normalised its arguments again (~6 us of a 14 us tiny call);
    # a repeated call with plain arguments now finds its plan in one look-up.
    x = torch.randn(1, 2, 6, 5)
    first = ct.interpolate(x, size=(4, 9), mode="bicubic")
    calls = []
    real = ct._input_plan
    monkeypatch.setattr(ct, "_input_plan", lambda *a, **k: calls.append(a) or real(*a, **k))
    assert torch.equal(ct.interpolate(x, size=(4, 9), mode="bicubic"), first)
    assert calls == []
    # a different layout, option or argument type is planned (and checked) on its own
    ct.interpolate(x.contiguous(memory_format=torch.channels_last), size=(4, 9), mode="bicubic")
    ct.interpolate(x, size=(4, 9), mode="bicubic", antialias=True)
    ct.interpolate(x, size=[4, 9], mode="bicubic")
    assert len(calls) == 3
    ct.interpolate(x, size=4, mode="nearest")
    with pytest.raises((TypeError, ValueError), match="size"):
        ct.interpolate(x, size=True, mode="nearest")
    with pytest.raises((TypeError, ValueError), match="size"):
        ct.interpolate(x, size=4.0, mode="nearest")


def test_an_int_scale_factor_finds_its_plan_as_a_float_one_does(monkeypatch):
    # scale_factor=2 (F.interpolate's and nn.Upsample's usual spelling) was not a plain
    # argument to the key (floats only): each call was planned and checked again, 18 us
    # against 6.5 us for 2.0 ((1, 3, 8, 8) bilinear). An int and the equal float are
    # the same factor and the same key; a bool is never plain (refused as before)
    x = torch.randn(1, 2, 6, 5)
    first = {f: ct.interpolate(x, scale_factor=f, mode="bilinear") for f in (2, (3, 2))}
    layer = ct.Resize(scale_factor=2, mode="bilinear")
    layer(x)
    array = np.random.default_rng(0).random((6, 5))
    cresize.resize(array, scale_factor=2, mode="bilinear")
    calls = []
    real = ct._input_plan
    monkeypatch.setattr(ct, "_input_plan", lambda *a, **k: calls.append(a) or real(*a, **k))
    checks = []
    factor = _spec.factor
    monkeypatch.setattr(_spec, "factor", lambda *a: checks.append(a) or factor(*a))
    for f in (2, 2.0, (3, 2), (3.0, 2), (3, 2.0)):
        expected = first[2 if f in (2, 2.0) else (3, 2)]
        assert torch.equal(ct.interpolate(x, scale_factor=f, mode="bilinear"), expected)
    assert torch.equal(layer(x), first[2])
    resized = cresize.resize(array, scale_factor=2, mode="bilinear")
    assert calls == [] and checks == []
    np.testing.assert_array_equal(resized, cresize.resize(array, scale_factor=2.0, mode="bilinear"))
    for refused in (True, (True, 2)):
        with pytest.raises(TypeError, match="scale_factor"):
            ct.interpolate(x, scale_factor=refused, mode="bilinear")
        with pytest.raises(TypeError, match="scale_factor"):
            cresize.resize(array, scale_factor=refused, mode="bilinear")


def test_a_repeated_call_checks_what_its_key_does_not_hold():
    # A call whose plan is remembered skips the checks its key (shape, dtype, strides,
    # options) stands for; the rest are made again: a sparse tensor has the strides of an
    # expanded one, a meta tensor the shape of a CPU one, num_threads is not in the key.
    expanded = torch.zeros(()).expand(1, 1, 4, 4)
    assert expanded.stride() == torch.zeros(1, 1, 4, 4).to_sparse().stride()
    for _ in range(2):
        ct.interpolate(expanded, size=2, mode="bilinear")
        ct.interpolate(torch.zeros(1, 1, 4, 4), size=2, mode="bilinear", num_threads=1)
    with pytest.raises(TypeError, match=r"dense .*sparse_coo"):
        ct.interpolate(torch.zeros(1, 1, 4, 4).to_sparse(), size=2, mode="bilinear")
    meta = torch.empty(1, 1, 4, 4, device="meta")
    if ct._interpolate_op is not None:
        assert ct.interpolate(meta, size=2, mode="bilinear").device.type == "meta"
    for threads, error in [(0, ValueError), (True, TypeError), (2.0, TypeError)]:
        with pytest.raises(error, match="num_threads"):
            ct.interpolate(torch.zeros(1, 1, 4, 4), size=2, mode="bilinear", num_threads=threads)


@pytest.mark.parametrize("threads, error", [(0, ValueError), (True, TypeError), (2.0, TypeError)])
def test_a_repeated_call_refuses_a_bad_thread_count_where_its_plan_runs(threads, error):
    # The key holds no num_threads: a repeated call's is checked where its plan runs
    # (_fast._threads_of, the one test), in each way the plan is run: no graph, recorded,
    # float16 and bfloat16, channels-last, an empty input, under vmap (a batch of none:
    # no plan runs there), a Resize; and its errors are the checked path's.
    x = torch.rand(2, 3, 5, 4)
    inputs = [
        x,
        x.clone().requires_grad_(),
        x.half(),
        x.bfloat16().requires_grad_(),
        x.contiguous(memory_format=torch.channels_last),
        torch.zeros(0, 3, 5, 4),
    ]
    for t in inputs:
        for _ in range(2):  # planned, then found by its key
            ct.interpolate(t, size=(3, 7), mode="bilinear", num_threads=2)
        with pytest.raises(error, match="num_threads"):
            ct.interpolate(t, size=(3, 7), mode="bilinear", num_threads=threads)
    layer = ct.Resize(size=(3, 7), mode="bilinear", num_threads=2)
    layer(x)
    layer.num_threads = threads
    with pytest.raises(error, match="num_threads"):
        layer(x)
    resized = torch.func.vmap(lambda t: ct.interpolate(t, size=(3, 7), num_threads=2))
    batch = torch.zeros(0, 2, 3, 5, 4)
    assert resized(batch).shape == (0, 2, 3, 3, 7)
    refused = torch.func.vmap(lambda t: ct.interpolate(t, size=(3, 7), num_threads=threads))
    with pytest.raises(error, match="num_threads"):
        refused(batch)


def test_resize_finds_plans_as_interpolate_does_and_keeps_the_last(monkeypatch):
    # Resize with options of plain types finds its plan by interpolate's key (its own
    # key of every option, frozen, cost 3 us a call); a tensor subclass (an
    # nn.Parameter, as a ViT's position embedding) is found there too. Resize.plan is
    # the last input's plan either way.
    layer = ct.Resize(size=(4, 9), mode="bicubic")
    x, other = torch.randn(1, 2, 6, 5), torch.randn(1, 2, 5, 5)
    first = layer(x)
    calls = []
    real = ct._input_plan
    monkeypatch.setattr(ct, "_input_plan", lambda *a, **k: calls.append(a) or real(*a, **k))
    parameter = torch.nn.Parameter(x.clone())
    assert torch.equal(layer(x), first) and torch.equal(layer(parameter), first)
    assert torch.equal(ct.interpolate(parameter, size=(4, 9), mode="bicubic"), first)
    assert calls == [] and layer.plan.input_shape == (1, 2, 6, 5)
    layer(other)
    assert len(calls) == 1 and layer.plan.input_shape == (1, 2, 5, 5)
    layer(x)
    assert len(calls) == 1 and layer.plan.input_shape == (1, 2, 6, 5)
    layer.size = [4, 9]  # a list: the module's own cache
    assert torch.equal(layer(other), ct.interpolate(other, size=(4, 9), mode="bicubic"))
    assert len(calls) == 2 and layer.plan.input_shape == (1, 2, 5, 5)


def test_no_graph_is_recorded_where_nothing_differentiates(monkeypatch):
    # Without a gradient to record (no_grad, or an input without requires_grad), the
    # resize runs without the autograd.Function (~3 us a call); the numbers are the same.
    # (An applied Function records no grad_fn there either: count its forwards.)
    applied = []
    forward = ct._CresizeInterpolate.forward
    monkeypatch.setattr(
        ct._CresizeInterpolate, "forward", staticmethod(lambda *a: applied.append(1) or forward(*a))
    )
    x = torch.randn(2, 3, 7, 6, dtype=torch.float64)
    leaf = x.clone().requires_grad_()
    recorded = ct.interpolate(leaf, size=(5, 11), mode="bilinear")
    assert recorded.grad_fn is not None and len(applied) == 1
    plain = ct.interpolate(x, size=(5, 11), mode="bilinear")
    with torch.no_grad():
        quiet = ct.interpolate(leaf, size=(5, 11), mode="bilinear")
    assert plain.grad_fn is None and quiet.grad_fn is None and not quiet.requires_grad
    assert len(applied) == 1, "the autograd.Function ran where nothing differentiates"
    assert torch.equal(plain, recorded.detach()) and torch.equal(quiet, plain)
    import torch.autograd.forward_ad as fwd

    tangent = torch.randn_like(x)
    with fwd.dual_level():  # forward mode on an input without requires_grad
        out = ct.interpolate(fwd.make_dual(x, tangent), size=(5, 11), mode="bilinear")
        got = fwd.unpack_dual(out).tangent
    assert got is not None and len(applied) > 1
    assert torch.equal(got, ct.interpolate(tangent, size=(5, 11), mode="bilinear"))


def test_each_call_is_routed_and_checked_once(monkeypatch):
    # A meta tensor's call went to the eager path, was checked there, then forwarded (all
    # eight arguments) to the capture path, which checked it again; the route is now
    # decided once where the call is made, and each path checks what it takes once.
    from torch.fx.experimental.proxy_tensor import make_fx

    seen = []
    check = ct._check_input
    monkeypatch.setattr(ct, "_check_input", lambda t: seen.append(t.device.type) or check(t))
    meta = torch.zeros(2, 3, 4, 5, device="meta")
    assert ct.interpolate(meta, size=(6, 7), mode="bilinear").shape == (2, 3, 6, 7)
    assert ct.Resize(size=(6, 7), mode="bilinear")(meta).device.type == "meta"
    assert seen == ["meta", "meta"]
    x = torch.randn(2, 3, 4, 5)
    layer = ct.Resize(size=(6, 7), mode="bicubic")
    graph = make_fx(lambda t: ct.interpolate(t, size=(6, 7), mode="bicubic"))(x)
    assert torch.equal(graph(x), layer(x))
    assert seen == ["meta", "meta", "cpu", "cpu"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("side", [4, 160])  # copied contiguous first, and read in place
def test_strided_inputs_and_expanded_gradients_give_the_same_bits(dtype, side):
    # A small strided tensor (a slice; y.sum().backward()'s expanded gradient, every
    # stride 0) is resized as its contiguous copy; a large one where it is. The bits are
    # those of the contiguous tensor either way.
    base = torch.randn(2, 3, side, 2 * side + 1, dtype=dtype)
    strided = base[:, :, :, ::2]
    assert not strided.is_contiguous()
    kwargs = dict(size=(side + 3, side - 1), mode="bicubic")
    assert torch.equal(
        ct.interpolate(strided, **kwargs), ct.interpolate(strided.contiguous(), **kwargs)
    )
    expanded, dense = (strided.clone().requires_grad_() for _ in range(2))
    y = ct.interpolate(expanded, **kwargs)
    y.sum().backward()  # the gradient reaching the adapter: ones, expanded
    ct.interpolate(dense, **kwargs).backward(torch.ones_like(y))
    assert torch.equal(expanded.grad, dense.grad)
    ones = np.ones(y.shape, dtype=y.detach().numpy().dtype)
    expected = cresize.resize_backward(
        ones, tuple(y.shape[:2]) + (side, side + 1), mode="bicubic", axes=(2, 3)
    )
    assert torch.equal(expanded.grad, torch.from_numpy(expected))


def _unaligned(shape, dtype):
    """A tensor of ``shape`` whose data start one byte past an aligned address."""
    count = int(np.prod(shape))
    buffer = bytearray(count * dtype.itemsize + 1)
    tensor = torch.frombuffer(buffer, dtype=dtype, offset=1, count=count).reshape(shape)
    assert tensor.data_ptr() % dtype.itemsize
    return tensor, buffer


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int16])
def test_the_plan_reads_the_tensors_data_where_it_lies(dtype):
    # The plan runs on a tensor's data through its address (_fast.run_view), not through
    # PyTorch's NumPy view: the first value is the one at data_ptr (a slice's storage
    # offset), strides are read as elements, unaligned data are copied first, and the
    # result never shares the input's memory; forward (planned, then recalled, with and
    # without a graph) and backward (a slice's gradient), against cresize.resize.
    kwargs = dict(size=(3, 7), mode="bicubic")
    whole = (torch.rand(3, 2, 5, 9, dtype=torch.float64) * 200).to(dtype)
    unaligned, buffer = _unaligned((2, 2, 5, 4), dtype)
    unaligned.copy_(whole[1:, :, :, 2:6])
    inputs = [whole[1:], whole[1:, :, :, ::2], whole[1:].transpose(2, 3), unaligned]
    for x in inputs:
        before = x.clone()
        expected = cresize.resize(x.numpy(), (3, 7), mode="bicubic", axes=(2, 3))
        for _ in range(2):
            y = ct.interpolate(x, **kwargs)
            assert torch.equal(y, torch.from_numpy(expected))
            assert not np.shares_memory(y.numpy(), x.numpy())
        assert torch.equal(x, before)
        if not dtype.is_floating_point:
            continue
        for _ in range(2):
            leaf = x.detach().requires_grad_()
            y = ct.interpolate(leaf, **kwargs)
            assert torch.equal(y.detach(), torch.from_numpy(expected))
            grad = torch.arange(float(y.numel()), dtype=dtype).reshape(y.shape)
            y.backward(grad[:, :, :, :])
            want = cresize.resize_backward(
                grad.numpy(), tuple(x.shape), mode="bicubic", axes=(2, 3)
            )
            assert torch.equal(leaf.grad, torch.from_numpy(want))
    # a slice of a gradient (its storage offset) is read from its first value too
    x = whole[1:].double().requires_grad_() if dtype.is_floating_point else None
    if x is not None:
        grads = torch.randn(2, *ct.interpolate(x, **kwargs).shape, dtype=torch.float64)
        (got,) = torch.autograd.grad(ct.interpolate(x, **kwargs), x, grads[1])
        want = cresize.resize_backward(
            grads[1].numpy(), tuple(x.shape), mode="bicubic", axes=(2, 3)
        )
        assert torch.equal(got, torch.from_numpy(want))
    del buffer


def test_a_tensor_of_another_shape_or_dtype_than_the_plan_is_not_read_by_it():
    # _run is given tensors whose shape and dtype no key has checked (the gradient, the
    # operators' calls): the view is made only where they are the plan's; else the
    # plan's own call refuses them, with its error (a wrong read would be out of bounds)
    plan = cresize.plan((1, 2, 4, 4), (8, 8), axes=(2, 3), dtype="float32")
    good = torch.rand(1, 2, 4, 4)
    assert torch.equal(ct._run(good, plan, None, False), torch.from_numpy(plan(good.numpy())))
    for bad, error in [
        (torch.rand(1, 2, 8, 8), ValueError),
        (torch.rand(2, 2, 4, 4), ValueError),
        (torch.rand(1, 2, 4, 4, dtype=torch.float64), TypeError),
        (torch.rand(1, 2, 4), ValueError),
        # no NumPy dtype of its own: its data must not be read as the plan's float32
        # (the plan's shape, at the start of a storage long enough for that read)
        (torch.rand(64, dtype=torch.float16)[:32].view(1, 2, 4, 4), TypeError),
        (torch.rand(64, dtype=torch.bfloat16)[:32].view(1, 2, 4, 4), TypeError),
    ]:
        with pytest.raises(error):
            ct._run(bad, plan, None, False)
    for bad, error in [  # gradients: of the output's shape, and the plan's dtype
        (torch.rand(1, 2, 4, 4), ValueError),
        (torch.rand(1, 2, 8, 8, dtype=torch.float64), TypeError),
    ]:
        with pytest.raises(error):
            ct._run(bad, plan, None, True)
    assert ct._fast.run_view(plan, good.data_ptr(), (1, 2, 9, 9), good.stride(), None, None) is None
    assert ct._fast.run_view(plan, 0, None, good.stride(), None, None) is None


class _OffTheCPU(torch.Tensor):
    """A CPU tensor that says it is on a CUDA device (``is_cpu``, ``device``), as a CUDA
    tensor does: what ``_run`` must not read through its ``data_ptr``."""

    __torch_function__ = torch._C._disabled_torch_function_impl

    @property
    def is_cpu(self):
        return False

    @property
    def device(self):
        return torch.device("cuda", 0)


def test_a_tensor_off_the_cpu_is_never_read_through_its_address(monkeypatch):
    # The operator torch.ops.cresize.interpolate runs on every device (no device check:
    # an exported or compiled graph run on CUDA tensors, a direct call); its _run must
    # not read a device's address as host memory (an invalid read), nor copy the tensor
    # to the CPU (NumPy's view of one that requires grad): the input's device error
    plan = cresize.plan((1, 2, 4, 4), (8, 8), axes=(2, 3), dtype="float32")
    read = []
    run_view = ct._fast.run_view
    monkeypatch.setattr(ct._fast, "run_view", lambda *args: read.append(args[1]) or run_view(*args))
    x = torch.rand(1, 2, 4, 4)
    assert torch.equal(ct._run(x, plan, None, False), torch.from_numpy(plan(x.numpy())))
    assert read == [x.data_ptr()]  # a CPU tensor: read in place
    for elsewhere in (x.as_subclass(_OffTheCPU), x.requires_grad_().as_subclass(_OffTheCPU)):
        assert not elsewhere.is_cpu
        with pytest.raises(ValueError, match="CPU tensors; input is on cuda:0"):
            ct._run(elsewhere, plan, None, False)
        assert read == [x.data_ptr()]  # not read through its address


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_the_operator_refuses_a_cuda_tensor():
    if ct._interpolate_op is None:
        pytest.skip("the operator needs PyTorch 2.4 or later")
    x = torch.rand(1, 2, 4, 4, device="cuda")
    for given in (x, x.requires_grad_()):
        with pytest.raises(ValueError, match="CPU tensors; input is on cuda"):
            torch.ops.cresize.interpolate(given, [8, 8], None, "bilinear", None, None, False, None)


def test_a_dead_functorch_wrapper_is_unwrapped():
    # A tensor escaped from a torch.func transform (its level gone) is resized and
    # differentiated as the tensor it wraps, as autograd.Function.apply does it.
    x = torch.randn(1, 2, 4, 5, dtype=torch.float64, requires_grad=True)
    c = torch.randn(1, 2, 4, 5, dtype=torch.float64)
    escaped = []

    def f(z):
        escaped.append(z * x)
        return z.sum()

    torch.func.grad(f)(c)
    (dead,) = escaped
    ct.interpolate(dead, size=(7, 3), mode="bilinear").sum().backward()
    alive = x.detach().requires_grad_()
    ct.interpolate(c * alive, size=(7, 3), mode="bilinear").sum().backward()
    assert torch.equal(x.grad, alive.grad)


def test_the_c_apply_is_taken_only_where_the_wrapper_is_a_known_one(monkeypatch):
    # _linear applies the Function through PyTorch's C entry point, skipping
    # Function.apply's Python wrapper, because in PyTorch 2.0-2.13 that wrapper does only
    # what _linear then does (a dead functorch wrapper unwrapped) where no transform
    # runs. A PyTorch whose wrapper does more (refers to other names) gets the wrapper.
    wrapper = torch.autograd.Function.apply.__func__
    unwrap, apply = ct._c_apply(ct._CresizeInterpolate)
    if set(wrapper.__code__.co_names) <= ct._WRAPPER_NAMES:  # PyTorch 2.0-2.13
        assert apply.__self__ is ct._CresizeInterpolate
        assert type(apply) is type(torch._C._FunctionBase.apply)  # C, not the wrapper
        assert unwrap is torch._C._functorch.unwrap_if_dead
    assert (ct._recorded, ct._unwrap_if_dead) == (apply, unwrap)
    calls = []

    def apply_and_more(cls, *args, **kwargs):  # a wrapper that does something else too
        calls.append(cls)
        return wrapper(cls, *args, **kwargs)

    monkeypatch.setattr(torch.autograd.Function, "apply", classmethod(apply_and_more))
    unwrap, apply = ct._c_apply(ct._CresizeInterpolate)
    x = torch.randn(1, 2, 4, 5, dtype=torch.float64, requires_grad=True)
    plan = cresize.plan(x.shape, size=(7, 3), mode="bilinear", axes=(2, 3), dtype=np.float64)
    y = apply(unwrap(x), plan, None, False)
    assert calls == [ct._CresizeInterpolate]  # the wrapper ran
    assert y.grad_fn.name() == "_CresizeInterpolateBackward"
    assert torch.equal(y.detach(), torch.from_numpy(plan(x.detach().numpy())))


def test_resize_options_changed_later_are_checked_again():
    # Resize's key compared options with ==: after a call with size=4, setting 4.0 or
    # True (equal in Python) reused the plan instead of refusing them as a new module does.
    x = torch.zeros(1, 1, 3, 3)
    layer = ct.Resize(size=4, mode="bilinear")
    assert layer(x).shape == (1, 1, 4, 4)
    for name, value, words in [
        ("size", 4.0, "size"),
        ("size", True, "size"),
        ("align_corners", 1, "align_corners"),
        ("antialias", 1, "antialias"),
    ]:
        before = getattr(layer, name)
        setattr(layer, name, value)
        with pytest.raises(TypeError, match=words):
            layer(x)
        setattr(layer, name, before)
        assert layer(x).shape == (1, 1, 4, 4)
    layer.size = (torch.tensor(5), 6)  # 0-d tensors (traced sizes) are taken, by value
    assert layer(x).shape == (1, 1, 5, 6) and layer(x).shape == (1, 1, 5, 6)


HALF_CASES = [
    ("nearest", None, False),
    ("nearest-exact", None, False),
    ("bilinear", False, False),
    ("bilinear", True, False),
    ("bicubic", False, False),
    ("area", None, False),
    ("bilinear", False, True),  # (PyTorch has no antialias in float16 / bfloat16)
]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("mode, align_corners, antialias", HALF_CASES)
def test_half_precision_is_rounded_from_float32_and_differentiable(
    dtype, mode, align_corners, antialias
):
    # bfloat16 was refused ("input dtype must be one of ...") and float16 with a gradient
    # ("gradients need a float32 or float64 input"); F.interpolate resizes and
    # differentiates both on the CPU, and a model under torch.autocast("cpu") gives them.
    gen = torch.Generator().manual_seed(1)
    kwargs = dict(size=(5, 11), mode=mode, align_corners=align_corners, antialias=antialias)
    base = (torch.rand(2, 3, 9, 7, generator=gen) * 4 - 2).to(dtype)
    g = (torch.rand(2, 3, 5, 11, generator=gen) * 2 - 1).to(dtype)
    eps = torch.finfo(dtype).eps
    for x in (base, base.contiguous(memory_format=torch.channels_last)):
        x = x.clone().requires_grad_()
        y = ct.interpolate(x, **kwargs)
        (dx,) = torch.autograd.grad(y, x, g)
        assert y.dtype == dx.dtype == dtype and dx.stride() == x.stride()
        # resized in float32 and rounded once: the bits of the float32 result, rounded
        as_float = x.detach().float().requires_grad_()
        y32 = ct.interpolate(as_float, **kwargs)
        (dx32,) = torch.autograd.grad(y32, as_float, g.float())
        assert torch.equal(y.detach(), y32.to(dtype)) and torch.equal(dx, dx32.to(dtype))
        # within a unit in the last place of the exact result, as F.interpolate's are
        exact = F.interpolate(x.detach().double(), **kwargs)
        assert (y.double() - exact).abs().max() <= 0.5 * eps * exact.abs().max()
        if not antialias:
            theirs = F.interpolate(x.detach(), **kwargs)
            assert theirs.stride() == y.stride()
            assert (y.double() - theirs.double()).abs().max() <= eps * exact.abs().max()
            x64 = x.detach().double().requires_grad_()
            (exact_dx,) = torch.autograd.grad(F.interpolate(x64, **kwargs), x64, g.double())
            assert (dx.double() - exact_dx).abs().max() <= 0.5 * eps * exact_dx.abs().max()


def test_a_model_trains_under_cpu_autocast():
    # torch.autocast("cpu", dtype=torch.bfloat16) makes the convolution before a Resize
    # return bfloat16, which cresize.torch refused: the training step failed.
    torch.manual_seed(0)

    def model(resize):
        return torch.nn.Sequential(
            torch.nn.Conv2d(3, 4, 3, padding=1), resize, torch.nn.Conv2d(4, 1, 1)
        )

    ours = model(ct.Resize(size=(6, 6), mode="bilinear"))
    theirs = model(torch.nn.Upsample(size=(6, 6), mode="bilinear"))
    theirs.load_state_dict(ours.state_dict())
    x = torch.randn(4, 3, 11, 11)
    for net in (ours, theirs):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = net(x)
        assert out.dtype == torch.bfloat16
        out.float().square().mean().backward()
    assert ours[1].plan.dtype == np.float32  # the plan of the float32 copy
    for a, b in zip(ours.parameters(), theirs.parameters()):
        assert a.grad.dtype == torch.float32
        torch.testing.assert_close(a.grad, b.grad, rtol=0, atol=0.02 * b.grad.abs().max().item())


def test_torch_set_num_threads_sets_the_default_and_the_numbers_do_not_change():
    # The PyTorch guide says which wins: num_threads given to interpolate / Resize; with
    # None, OpenMP's default, which torch.set_num_threads sets where the runtime is shared.
    from cresize import _threads

    runtime = cresize.show_config("dicts")["openmp"]["runtime"] or ""
    shared = "torch" in runtime
    x = torch.randn(2, 5, 33, 41, dtype=torch.float64, requires_grad=True)
    g = torch.randn(2, 5, 50, 17, dtype=torch.float64)
    kwargs = dict(size=(50, 17), mode="lanczos3", antialias=True)
    results = []
    for torch_threads in (1, 2):
        torch.set_num_threads(torch_threads)
        if shared:
            assert _threads.default() == torch_threads
        for num_threads in (None, 1, 2):
            y = ct.interpolate(x, num_threads=num_threads, **kwargs)
            results.append((y, torch.autograd.grad(y, x, g)[0]))
    torch.set_num_threads(1)  # the module fixture's count
    for y, dx in results[1:]:
        assert torch.equal(y, results[0][0]) and torch.equal(dx, results[0][1])


def test_legacy_batched_gradients_are_refused_clearly():
    # torch.autograd.grad(is_grads_batched=True) and gradcheck(check_batched_grad=True)
    # failed with "Batching rule not implemented for aten::detach" (PyTorch's legacy
    # batching, which cresize.torch has no rule for); torch.func.vmap is the way.
    x = torch.randn(1, 2, 5, 4, dtype=torch.float64, requires_grad=True)

    def f(t):
        return ct.interpolate(t, size=(3, 7), mode="bicubic")

    g = torch.randn(3, 1, 2, 3, 7, dtype=torch.float64)
    with pytest.raises(RuntimeError, match=r"legacy batching .* torch\.func\.vmap works"):
        torch.autograd.grad(f(x), x, g, is_grads_batched=True)
    _, vjp = torch.func.vjp(f, x)
    (batched,) = torch.func.vmap(vjp)(g)
    for i in range(3):
        assert torch.equal(batched[i], torch.autograd.grad(f(x), x, g[i])[0])
    # torch.autograd.functional's vectorize=True is that batching too: the message names
    # it (it named only the two above) and the ways that work
    jacobian = torch.autograd.functional.jacobian
    with pytest.raises(RuntimeError, match=r"jacobian and hessian with vectorize=True"):
        jacobian(f, x.detach(), vectorize=True)
    expected = torch.func.jacrev(f)(x.detach())
    assert torch.equal(jacobian(f, x.detach()), expected)


def test_negative_views_are_resized_as_their_values():
    # The NumPy view of an input nothing records a gradient for is taken at once, without
    # detach(); a negative view (its bit set, PyTorch refuses its .numpy()) goes the
    # checked way, resolved
    x = torch.randn(2, 3, 5, 4, dtype=torch.float64)
    negative = torch._neg_view(x)
    assert negative.is_neg()
    for _ in range(2):  # planned, then its plan recalled
        y = ct.interpolate(negative, size=(3, 7), mode="bicubic")
        assert torch.equal(y, ct.interpolate(x.neg(), size=(3, 7), mode="bicubic"))


class _Resized(torch.utils.data.Dataset):
    """Items resized by a ``Resize`` the dataset holds (pickled into each worker)."""

    def __init__(self, layer):
        self.layer = layer

    def __len__(self):
        return 5

    def __getitem__(self, i):
        x = torch.arange(3 * 9 * 8, dtype=torch.float32).reshape(1, 3, 9, 8) * (i + 1)
        return self.layer(x)[0]


def _as_array(batch):
    """Batches as NumPy arrays: pickled back by value, not through PyTorch's shared
    memory (whose cache, freed at interpreter exit, printed "Exception ignored in
    StorageWeakRef.__del__" after the suite)."""
    return torch.stack(batch).numpy()


def test_dataloader_spawn_workers_use_a_resize():
    # The PyTorch guide says a Resize pickles into DataLoader workers; spawn is the start
    # method that imports cresize afresh in the worker (fork: tests/test_limits.py).
    data = _Resized(ct.Resize(size=(5, 7), mode="bicubic", antialias=True))
    loader = torch.utils.data.DataLoader(
        data, batch_size=2, num_workers=1, multiprocessing_context="spawn", collate_fn=_as_array
    )
    got = np.concatenate(list(loader))
    np.testing.assert_array_equal(got, torch.stack([data[i] for i in range(len(data))]).numpy())


def _outcome(function, *args, **kwargs):
    """The exception type ``function(*args, **kwargs)`` raises, or None."""
    try:
        function(*args, **kwargs)
    except Exception as exc:
        return type(exc)
    return None


TORCH_NAMES = ("nearest", "nearest-exact", "area", "linear", "bilinear", "trilinear", "bicubic")


def _resize_call(x, options):
    return ct.Resize(4, **options)(x)


def _recorded(x, kw):
    from torch.fx.experimental.proxy_tensor import make_fx

    return make_fx(functools.partial(ct.interpolate, **kw))(x)


@pytest.mark.parametrize("mode", (*TORCH_NAMES, "lanczos"))
def test_refuses_exactly_where_f_interpolate_does(mode):
    # cresize.torch took linear on 4-D, bilinear on 3-D / 5-D, trilinear on 3-D / 4-D,
    # antialias=True on 3-D / 5-D or with linear / trilinear, align_corners with nearest
    refused = 0
    for ndim in (3, 4, 5):
        x = torch.rand(1, 2, *(6,) * (ndim - 2), dtype=torch.float64)
        for align_corners in (None, False, True):
            for antialias in (False, True):
                kw = dict(size=4, mode=mode, align_corners=align_corners, antialias=antialias)
                theirs = _outcome(F.interpolate, x, **kw)
                assert _outcome(ct.interpolate, x, **kw) is theirs, (ndim, kw)
                # the same again (the second call of a key is the remembered plan's)
                assert _outcome(ct.interpolate, x, **kw) is theirs, (ndim, kw)
                options = {k: v for k, v in kw.items() if k != "size"}
                if _outcome(ct.Resize, 4, **options) is None:
                    assert _outcome(_resize_call, x, options) is theirs, (ndim, kw)
                else:  # refused on every rank when made (lanczos without antialias)
                    assert theirs is not None
                # recorded (the operator's path) as in eager
                assert _outcome(_recorded, x, kw) is theirs, (ndim, kw)
                if theirs is not None:
                    refused += 1
                    with pytest.raises(theirs, match=r"align_corners|antialias|mode="):
                        ct.interpolate(x, **kw)
                else:
                    torch.testing.assert_close(
                        ct.interpolate(x, **kw), F.interpolate(x, **kw), rtol=0, atol=1e-10
                    )
    assert refused > 0


SIZES_TAKEN = [3, np.int64(3), np.uint8(3), np.array(3), np.array(3, np.int32), torch.tensor(3)]
SIZES_TAKEN += [(np.int64(3), 3), (torch.tensor(3), np.uint64(3)), torch.Size([3, 3])]
SIZES_REFUSED = [3.0, True, np.float64(3), np.array(3.0), np.array(True), np.array([3, 3])]
SIZES_REFUSED += [np.array(3, dtype=object), torch.tensor(3.0), (3.0, 3)]


@pytest.mark.parametrize("size", SIZES_TAKEN + SIZES_REFUSED, ids=repr)
def test_size_takes_what_f_interpolate_takes(size):
    # size=np.array(3) was refused, which F.interpolate takes (as operator.index does:
    # a 0-d integer array, alone). cresize also takes a sequence of 0-d integer arrays,
    # as cresize.resize does (F.interpolate refuses one): not compared here.
    x = torch.rand(1, 2, 5, 5, dtype=torch.float64)
    kw = dict(size=size, mode="bilinear")
    theirs = _outcome(F.interpolate, x, **kw)
    assert (theirs is None) is any(size is s for s in SIZES_TAKEN)
    for _ in range(2):  # the second call of a key is the remembered plan's
        assert _outcome(ct.interpolate, x, **kw) is theirs
    assert _outcome(lambda: ct.Resize(size, mode="bilinear")(x)) is theirs
    assert _outcome(_recorded, x, kw) is theirs
    if theirs is None:
        torch.testing.assert_close(
            ct.interpolate(x, **kw), F.interpolate(x, **kw), rtol=0, atol=1e-10
        )


FACTORS_TAKEN = [torch.tensor(1.7), torch.tensor(2), torch.tensor(1.7, dtype=torch.float64)]
FACTORS_TAKEN += [(torch.tensor(1.5), 2.5), np.array(1.5), np.array(2), (np.array(1.5), 2)]
FACTORS_REFUSED = [torch.tensor(True), np.array(True), torch.tensor(1 + 0j), torch.tensor([2.0])]
FACTORS_REFUSED += [np.array([2.0, 2.0]), (torch.tensor([1.5]), 2.0)]


def test_a_scale_factor_tensor_that_requires_grad_is_read_without_a_warning():
    # float(t) of a tensor that requires grad warned "Converting a tensor with
    # requires_grad=True to a scalar may lead to unexpected behavior" at each call (an
    # error where warnings are), which F.interpolate does not; no gradient reaches it
    import warnings

    x = torch.rand(1, 2, 5, 6, dtype=torch.float64)
    t = torch.tensor(1.7, requires_grad=True)
    kw = dict(mode="bilinear", recompute_scale_factor=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = F.interpolate(x, scale_factor=t, **kw)
        for _ in range(2):  # the second call of a key is the remembered plan's
            got = ct.interpolate(x, scale_factor=(t, t), **kw)
            torch.testing.assert_close(got, expected, rtol=0, atol=1e-10)
        got = ct.Resize(scale_factor=t, **kw)(x)
        torch.testing.assert_close(got, expected, rtol=0, atol=1e-10)
    assert not got.requires_grad and t.grad is None


@pytest.mark.parametrize("scale_factor", FACTORS_TAKEN + FACTORS_REFUSED, ids=repr)
def test_scale_factor_takes_what_f_interpolate_takes(scale_factor):
    # scale_factor=torch.tensor(1.7) (or np.array(1.5) alone) was refused, which
    # F.interpolate takes where it recomputes the scale (recompute_scale_factor=True, and
    # area, whatever it is given): read as float(t), as there. cresize takes it in every
    # mode (F.interpolate's kernels' schema is float[]: it refuses it elsewhere), bools
    # (refused as scale_factor=True is) and 1-d tensors (as sizes) not at all
    x = torch.rand(1, 2, 5, 6, dtype=torch.float64)
    taken = any(scale_factor is f for f in FACTORS_TAKEN)
    for kw in (
        dict(mode="bilinear", recompute_scale_factor=True),
        dict(mode="area"),
        dict(mode="bicubic", align_corners=True, recompute_scale_factor=True),
    ):
        kw = dict(kw, scale_factor=scale_factor)
        if taken:  # F.interpolate's refusals of the others are not all TypeErrors
            assert _outcome(F.interpolate, x, **kw) is None
        for _ in range(2):  # the second call of a key is the remembered plan's
            assert _outcome(ct.interpolate, x, **kw) is (None if taken else TypeError)
        assert _outcome(lambda kw=kw: ct.Resize(**kw)(x)) is (None if taken else TypeError)
        assert _outcome(_recorded, x, kw) is (None if taken else TypeError)
        if taken:
            expected = F.interpolate(x, **kw)
            torch.testing.assert_close(ct.interpolate(x, **kw), expected, rtol=0, atol=1e-10)
            torch.testing.assert_close(ct.Resize(**kw)(x), expected, rtol=0, atol=1e-10)
    if not taken:
        with pytest.raises(TypeError, match=r"^scale_factor must be a number"):
            ct.interpolate(x, scale_factor=scale_factor, mode="bilinear")
        return
    # where F.interpolate does not recompute: the scale as a float gives, as
    # F.interpolate's own float[] does
    kw = dict(scale_factor=scale_factor, mode="bilinear")
    plain = (
        [float(f) for f in scale_factor] if isinstance(scale_factor, tuple) else float(scale_factor)
    )
    torch.testing.assert_close(
        ct.interpolate(x, **kw),
        F.interpolate(x, scale_factor=plain, mode="bilinear"),
        rtol=0,
        atol=1e-10,
    )


def test_a_0d_array_size_keeps_its_refusal_messages_and_is_read_by_value():
    x = torch.rand(1, 1, 5, 5)
    for size in (np.array(3.0), np.array(True), np.array(3, dtype=object)):
        with pytest.raises(TypeError, match=r"^size must be an int or a sequence of 2; got array"):
            ct.interpolate(x, size=size)
    size = np.array(3)
    layer = ct.Resize(size)
    assert layer(x).shape == (1, 1, 3, 3)
    size[...] = 4  # Resize's key held the array itself: the plan of size 3 stayed
    assert layer(x).shape == (1, 1, 4, 4)


def test_a_size_of_a_wrong_type_is_asked_for_as_an_int_and_a_factor_as_a_number():
    # size takes ints only: "size must be a number ..." asked for what it refuses (2.5)
    x = torch.rand(1, 1, 5, 5)
    with pytest.raises(TypeError, match=r"^size must be an int or a sequence of 2; got '4'$"):
        ct.interpolate(x, size="4")
    with pytest.raises(TypeError, match=r"^scale_factor must be a number or a sequence of 2; "):
        ct.interpolate(x, scale_factor="2")


def test_the_check_compares_with_pytorch_exactly_where_f_interpolate_takes_the_call():
    # _check._torch_run had its own copy of PyTorch's rank rules; it asks _spec's now,
    # the rules cresize.torch refuses by: both must agree with F.interpolate itself
    from cresize import _check, _spec

    compared = 0
    for options in _spec.configurations():
        mode = options["mode"]
        for spatial in (1, 2, 3):
            kw = dict(mode=_spec.torch_name(mode, spatial), antialias=options["antialias"])
            if _spec.takes_align_corners(mode):
                kw["align_corners"] = options["align_corners"]
            x = torch.rand(1, 1, *(5,) * spatial, dtype=torch.float64)
            theirs = _outcome(F.interpolate, x, size=3, **kw)
            takes = _spec.torch_takes(kw["mode"], spatial, kw.get("align_corners"), kw["antialias"])
            assert takes is (theirs is None), (spatial, kw)
            shape, axes = (2, *(5,) * spatial), tuple(range(1, spatial + 1))
            deviation = _check.torch_deviation(torch, shape, 3, axes=axes, **options)
            assert (deviation is not None) is takes, (spatial, options)
            compared += takes
    assert 0 < compared < 3 * len(list(_spec.configurations()))


def test_own_modes_and_more_dimensions_keep_cresize_rules():
    x3, x5 = torch.rand(1, 2, 8, dtype=torch.float64), torch.rand(1, 1, 5, 6, 7)
    assert ct.interpolate(x3, size=4, mode="cubic", antialias=True).shape == (1, 2, 4)
    assert ct.interpolate(x5, size=3, mode="lanczos3", antialias=True).shape == (1, 1, 3, 3, 3)
    assert ct.interpolate(x3, size=4, mode="nearest_exact").shape == (1, 2, 4)
    x6 = torch.rand(1, 1, 3, 4, 5, 6)  # no F.interpolate mode takes 4 spatial dimensions
    assert ct.interpolate(x6, size=2, mode="linear").shape == (1, 1, 2, 2, 2, 2)
    with pytest.raises(NotImplementedError, match="use mode='bilinear'"):
        ct.interpolate(torch.rand(1, 1, 4, 4), size=2, mode="linear")
    with pytest.raises(NotImplementedError, match="use mode='cubic'"):
        ct.interpolate(x3, size=2, mode="bicubic")
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        ct.interpolate(x3, size=2, mode="nearest", align_corners=False)


def test_autograd_names_say_cresize():
    # grad_fn and profiler rows said "_LinearBackward" / "_Linear", easily taken for
    # nn.Linear's; they name cresize now
    x = torch.randn(1, 1, 4, 4, requires_grad=True)
    with torch.profiler.profile() as prof:
        y = ct.interpolate(x, size=3, mode="bilinear")
        y.sum().backward()
    assert type(y.grad_fn).__name__ == "_CresizeInterpolateBackward"
    keys = {event.key for event in prof.key_averages()}
    assert {"_CresizeInterpolate", "_CresizeInterpolateBackward"} <= keys, keys
    assert not any("Linear" in key and "Cresize" not in key for key in keys), keys


def test_a_bad_mode_lists_pytorchs_lanczos_too():
    # "mode must be one of nearest, ..., cubic" left out 'lanczos', which it takes
    with pytest.raises(
        ValueError,
        match=r"one of nearest.*got 'box'.*'lanczos' \(lanczos3 with "
        r"antialias=True\)",
    ):
        ct.interpolate(torch.zeros(1, 1, 4, 4), size=2, mode="box")
    with pytest.raises(ValueError, match="'lanczos' "):
        ct.Resize(size=2, mode="Lanczos", antialias=True)


@pytest.mark.parametrize("bad", [0, True, 2.5, "2", 5000])
def test_num_threads_is_refused_in_resizes_words(bad):
    x = torch.zeros(1, 1, 4, 4)
    with pytest.raises((TypeError, ValueError)) as theirs:
        cresize.resize(x.numpy(), 8, axes=(2, 3), num_threads=bad)
    for call in (
        lambda: ct.interpolate(x, size=8, num_threads=bad),
        lambda: ct.Resize(size=8, num_threads=bad),
    ):
        with pytest.raises(type(theirs.value)) as ours:
            call()
        assert str(ours.value) == str(theirs.value)
    assert str(theirs.value).startswith("num_threads must be ")


def test_a_mode_of_a_wrong_type_lists_every_name_taken_pytorchs_too():
    # mode=None listed cresize's six names: neither "trilinear" nor "lanczos"
    x = torch.zeros(1, 1, 4, 4)
    words = r"^mode must be a string, one of nearest, .*trilinear, cubic; got None; "
    words += r"PyTorch's names also: 'lanczos' \(lanczos3 with antialias=True\)$"
    with pytest.raises(TypeError, match=words):
        ct.interpolate(x, size=2, mode=None)
    with pytest.raises(TypeError, match=words):
        ct.Resize(size=2, mode=None)


@pytest.mark.parametrize("reentrant", [False, True])
def test_training_tools_deterministic_checkpoint_saved_tensors(reentrant):
    from torch.utils.checkpoint import checkpoint

    torch.manual_seed(0)
    conv = torch.nn.Conv2d(2, 2, 3, padding=1).double()
    x = torch.randn(2, 2, 9, 8, dtype=torch.float64, requires_grad=True)

    def block(t):
        return conv(ct.interpolate(conv(t), size=(5, 11), mode="bicubic", antialias=True))

    def grads(run):
        x.grad = None
        conv.zero_grad()
        run().pow(2).sum().backward()
        return [x.grad.clone(), conv.weight.grad.clone()]

    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        plain = grads(lambda: block(x))
        checked = grads(lambda: checkpoint(block, x, use_reentrant=reentrant))
    finally:
        torch.use_deterministic_algorithms(before)
    assert all(torch.equal(a, b) for a, b in zip(plain, checked))
    saved = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: saved.append(t) or t, lambda t: t):
        y = ct.interpolate(x, size=(5, 11), mode="bicubic")
    assert saved == [] and y.requires_grad


@pytest.mark.parametrize(
    "kwargs, error, quoted",
    [
        (dict(size=0), ValueError, "got 0$"),
        (dict(size=4.0), TypeError, r"got 4\.0$"),
        (dict(size=torch.tensor(0)), ValueError, "got 0$"),
        (dict(size=(4, 0)), ValueError, r"got \(4, 0\)$"),
        (dict(scale_factor=-1.0), ValueError, r"got -1\.0$"),
        (dict(scale_factor=float("inf")), ValueError, "got inf$"),
        (dict(scale_factor=(2.0, 0.0)), ValueError, r"got \(2\.0, 0\.0\)$"),
        (dict(scale_factor=0.01), ValueError, r"^scale_factor=0\.01 gives floor"),
        (dict(scale_factor=0.01, recompute_scale_factor=True), ValueError, r"^scale_factor=0\.01 "),
    ],
)
def test_a_refused_size_or_scale_factor_is_quoted_as_passed(kwargs, error, quoted):
    # docs/spec.md section 5: an error quotes the argument as passed. A number given for
    # every spatial dimension was quoted as the tuple it had been spread into (size=0 as
    # "got (0, 0)", scale_factor=0.01 as "scale_factor=(0.01, 0.01) gives ..."), as
    # cresize.resize quotes it ("got 0")
    x = torch.rand(1, 1, 7, 9)
    with pytest.raises(error, match=quoted):
        ct.interpolate(x, mode="bilinear", **kwargs)
    with pytest.raises(error, match=quoted):
        ct.Resize(mode="bilinear", **kwargs)(x)
