"""cresize.torch in captured graphs: the operators cresize::interpolate and
cresize::interpolate_backward under torch.compile(fullgraph=True), torch.export (strict
and not), make_fx and torch.jit.trace give the eager bits, forward and backward."""

import io
import os
import subprocess
import sys
import threading

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import cresize.torch as ct  # noqa: E402

if ct._interpolate_op is None:  # pragma: no cover (PyTorch before 2.4)
    pytest.skip("torch.library.custom_op needs PyTorch 2.4", allow_module_level=True)

OP = torch.ops.cresize.interpolate.default
BACKWARD_OP = torch.ops.cresize.interpolate_backward.default


pytestmark = [
    pytest.mark.usefixtures("torch_one_thread"),
    # TorchScript is deprecated in torch 2.13, and torch scripts its own functions as it
    # imports them: torch.jit.script for forward AD's decompositions (the first
    # dual_level), torch.jit.script_method for inductor's fx passes (the first
    # torch.compile), in whichever test comes first; and the test of torch.jit.trace
    # and torch.jit.script calls them on purpose. None of them is cresize's call.
    pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:`torch.jit.trace` is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:`torch.jit.trace_method` is deprecated:DeprecationWarning"),
]


class Net(torch.nn.Module):
    """A Resize and an interpolate between operations whose bits every backend keeps."""

    def __init__(self, half=False):
        super().__init__()
        self.resize = ct.Resize(size=(5, 7), mode="bicubic", antialias=True)
        self.half = half

    def forward(self, x):
        y = self.resize(x * 2)
        if self.half:
            y = y.to(torch.bfloat16)
        y = ct.interpolate(y + 1, scale_factor=1.5, mode="bilinear", align_corners=True)
        return ct.interpolate(y, size=4, mode="area", num_threads=1)


def _both(net, compiled, x, g):
    """(forward, gradient) of ``net`` and of ``compiled`` on ``x``, with ``g``."""
    found = []
    for f in (net, compiled):
        leaf = x.clone().requires_grad_()
        y = f(leaf)
        (grad,) = torch.autograd.grad(y, leaf, g)
        found.append((y.detach(), grad))
    return found


def _targets(graph_module):
    return [n.target for n in graph_module.graph.nodes if n.op == "call_function"]


def test_compile_fullgraph_gives_the_eager_bits_forward_and_backward():
    # It ran behind torch.compiler.disable: fullgraph=True failed with "Skip calling
    # torch.compiler.disable()d function".
    torch._dynamo.reset()
    x = torch.randn(2, 3, 8, 9, dtype=torch.float64)
    g = torch.randn(2, 3, 4, 4, dtype=torch.float64)
    net = Net()
    compiled = torch.compile(net, fullgraph=True)  # inductor: a C++ build
    (y0, g0), (y1, g1) = _both(net, compiled, x, g)
    assert torch.equal(y0, y1) and torch.equal(g0, g1)
    # channels-last float32, and a second shape (a recompilation, shapes specialised)
    seen = []

    def backend(gm, inputs):
        seen.append(_targets(gm))
        return gm

    compiled = torch.compile(net, fullgraph=True, backend=backend)
    for shape in ((1, 3, 8, 9), (2, 3, 11, 6)):
        x = torch.randn(shape).contiguous(memory_format=torch.channels_last)
        g = torch.randn(shape[0], 3, 4, 4)
        (y0, g0), (y1, g1) = _both(net, compiled, x, g)
        assert torch.equal(y0, y1) and torch.equal(g0, g1)
    # a graph each (no break), with the three calls as the operator
    assert len(seen) == 2 and all(targets.count(OP) == 3 for targets in seen), seen


def test_compile_of_half_precision_and_the_double_backward():
    torch._dynamo.reset()
    x = torch.randn(1, 2, 6, 5, dtype=torch.float64)
    g = torch.randn(1, 2, 4, 4, dtype=torch.bfloat16)
    net = Net(half=True)
    compiled = torch.compile(net, fullgraph=True, backend="aot_eager")
    (y0, g0), (y1, g1) = _both(net, compiled, x, g)
    assert y1.dtype == torch.bfloat16 and torch.equal(y0, y1) and torch.equal(g0, g1)

    def f(t):
        return ct.interpolate(t, size=(3, 4), mode="bicubic")

    t = torch.randn(1, 1, 5, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch.compile(f, fullgraph=True, backend="aot_eager"), (t,))
    # AOTAutograd has no double backward; the operators' own is the forward again
    options = ([3, 4], None, "bicubic", None, None, False, None)
    g = torch.randn(1, 1, 3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(lambda t: OP(t, *options), (t,))
    assert torch.autograd.gradgradcheck(
        lambda g: BACKWARD_OP(g, [1, 1, 5, 5], False, *options), (g,)
    )


def test_torch_func_transforms_inside_compile_run_eagerly():
    # PyTorch 2.13 refuses a custom operator's autograd under torch.func transforms:
    # there Dynamo runs interpolate eagerly (a graph break), as it did before the operator
    torch._dynamo.reset()
    x = torch.randn(3, 1, 2, 5, 5, dtype=torch.float64)

    def loss(t):
        return ct.interpolate(t, size=(3, 4), mode="bicubic").square().sum()

    for transform, t in (
        (torch.func.grad(loss), x[0]),
        (torch.func.vmap(torch.func.grad(loss)), x),
    ):
        want = transform(t)
        assert torch.equal(torch.compile(transform, backend="aot_eager")(t), want)
        # a graph break (the eager resize is not traced, nor recorded as the operator)
        seen = []

        def backend(gm, inputs, seen=seen):
            seen.append(_targets(gm))
            return gm

        torch._dynamo.reset()
        assert torch.equal(torch.compile(transform, backend=backend)(t), want)
        assert not [targets for targets in seen if OP in targets]
        torch._dynamo.reset()
        with pytest.raises(torch._dynamo.exc.Unsupported):
            torch.compile(transform, backend="eager", fullgraph=True)(t)


def _loss(t):
    return ct.interpolate(t, size=(3, 4), mode="bicubic").square().sum()


def test_eager_calls_while_another_thread_compiles():
    # torch.compiler.is_compiling() reads a process-wide flag that PyTorch holds True for a
    # whole compilation, in every thread: an eager torch.func.grad in another thread went
    # _captured -> the disabled interpolate -> _captured ... (RecursionError)
    x = torch.randn(1, 1, 5, 5, dtype=torch.float64)
    forward_ad = torch.autograd.forward_ad

    def calls():
        with forward_ad.dual_level():  # forward mode: the operator dropped the tangent
            dual = forward_ad.make_dual(x, x.flip(-1))
            tangent = forward_ad.unpack_dual(ct.interpolate(dual, size=3)).tangent
        return torch.func.grad(_loss)(x), ct.interpolate(x, size=(3, 4), mode="bicubic"), tangent

    want = calls()
    compiling, release = threading.Event(), threading.Event()

    def backend(gm, inputs):  # runs inside the compilation
        compiling.set()
        release.wait(60)
        return gm

    torch._dynamo.reset()
    other = threading.Thread(
        target=lambda: torch.compile(lambda t: t + 1, backend=backend)(torch.ones(2))
    )
    other.start()
    try:
        assert compiling.wait(60) and torch.compiler.is_compiling()
        got = calls()
    finally:
        release.set()
        other.join()
    assert all(torch.equal(a, b) for a, b in zip(got, want))


# torch.export.load unpickles torch's own LeafSpec, which torch 2.13 deprecates
@pytest.mark.filterwarnings(
    "ignore:`isinstance\\(treespec, LeafSpec\\)` is deprecated:FutureWarning"
)
@pytest.mark.parametrize("strict", [True, False])
def test_export_round_trip(strict):
    # torch.export refused it (strict: the disabled function; not strict: .numpy() of a
    # FakeTensor); now the program holds the operator and runs as the module does.
    x = torch.randn(2, 3, 8, 9, dtype=torch.float64)
    net = Net()
    program = torch.export.export(net, (x,), strict=strict)
    assert _targets(program.graph_module).count(OP) == 3
    buffer = io.BytesIO()
    torch.export.save(program, buffer)
    buffer.seek(0)
    loaded = torch.export.load(buffer)
    other = torch.randn(2, 3, 8, 9, dtype=torch.float64)  # not a constant of the trace
    for run in (program.module(), loaded.module()):
        assert torch.equal(run(other), net(other))
    # a dynamic batch and channel count stay symbolic (the spatial lengths are planned)
    dims = {0: torch.export.Dim("n"), 1: torch.export.Dim("c")}
    dynamic = torch.export.export(
        ct.Resize(scale_factor=0.7, mode="lanczos3"), (x,), dynamic_shapes=(dims,), strict=strict
    )
    other = torch.randn(5, 2, 8, 9, dtype=torch.float64)
    assert torch.equal(dynamic.module()(other), ct.interpolate(other, None, 0.7, "lanczos3"))
    # decomposing to core ATen keeps the operator
    decomposed = torch.export.export(net, (x,), strict=strict).run_decompositions()
    assert _targets(decomposed.graph_module).count(OP) == 3


def test_make_fx_records_the_operator_not_a_constant():
    # make_fx of a FakeTensor failed in .numpy(); a real trace kept the result as a constant
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(t):
        y = ct.interpolate(t, size=(4, 6), mode="lanczos3", antialias=True)
        (grad,) = torch.autograd.grad(y.square().sum(), t, create_graph=True)
        return y, grad

    x = torch.randn(1, 2, 7, 5, dtype=torch.float64, requires_grad=True)
    want = f(x)
    for mode, pre_dispatch in (
        ("real", False),
        ("fake", False),
        ("symbolic", False),
        ("real", True),  # its proxy mode is on the pre-dispatch stack: the result was kept
    ):
        gm = make_fx(f, tracing_mode=mode, pre_dispatch=pre_dispatch)(x)
        targets = _targets(gm)
        assert OP in targets and BACKWARD_OP in targets, (mode, targets)
        assert not [n for n in gm.graph.nodes if n.op == "get_attr"]  # no constants
        got = gm(x)
        assert all(torch.equal(a, b) for a, b in zip(got, want))


@pytest.mark.filterwarnings("ignore:`torch.jit.:DeprecationWarning")
def _calls_interpolate(x):
    return ct.interpolate(x, scale_factor=2.0, mode="bilinear")


class _CallsInterpolate(torch.nn.Module):
    def forward(self, x):
        return ct.interpolate(x, size=3)


def test_jit_trace_records_the_operator_and_script_is_refused_clearly():
    # torch.jit.trace kept the resize's result as a constant ("Graphs differed across
    # invocations"); torch.jit.script failed inside the plan's code ("Don't support
    # conversion in JoinedStr", _plan.py) and is still refused, clearly.
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 3, 1), ct.Resize(size=(5, 5), mode="bilinear"))
    x = torch.randn(1, 3, 8, 8)
    traced = torch.jit.trace(net, x)  # its default check runs it twice and compares graphs
    assert "cresize::interpolate" in [n.kind() for n in traced.inlined_graph.nodes()]
    other = torch.randn(1, 3, 8, 8)
    assert torch.equal(traced(other), net(other))
    with pytest.raises(RuntimeError, match=r"torch\.jit\.script cannot take cresize\.torch") as e:
        torch.jit.script(net)
    assert "torch.jit.trace, torch.compile and torch.export record it" in str(e.value)
    # interpolate itself, and a function or module calling it: TorchScript's error was
    # "Compiled functions can't take ... keyword-only arguments with defaults"
    for scripted in (ct.interpolate, _calls_interpolate, _CallsInterpolate()):
        with pytest.raises(RuntimeError, match=r"^torch\.jit\.script cannot take cresize\.torch"):
            torch.jit.script(scripted)
    # the module and the function are unchanged outside them
    torch.testing.assert_close(net(x), F.interpolate(net[0](x), size=(5, 5), mode="bilinear"))


CONFIGURATIONS = [  # (input, (size, scale_factor, mode, align_corners, recompute, antialias, threads))
    (
        lambda: torch.randn(2, 3, 6, 7, dtype=torch.float64),
        ([4, 9], None, "bicubic", None, None, True, None),
    ),
    (lambda: torch.randn(1, 2, 5), (None, [1.7], "linear", True, None, False, 1)),
    (
        lambda: torch.randn(1, 2, 5, 4, 3, dtype=torch.float64).contiguous(
            memory_format=torch.channels_last_3d
        ),
        ([3, 4, 5], None, "trilinear", False, None, False, None),
    ),
    (
        lambda: torch.randn(2, 3, 6, 7).to(torch.float16),
        (None, [0.5, 0.5], "area", None, True, False, None),
    ),
    (
        lambda: torch.randint(0, 255, (1, 3, 6, 7), dtype=torch.uint8),
        ([3, 3], None, "lanczos", None, None, True, None),
    ),
    (
        lambda: torch.randn(1, 1, 4, 4, dtype=torch.float64),
        (None, [2.0, 3.0], "nearest-exact", None, None, False, None),
    ),
    # 2-D channels-last, a strided view, a transposed one, an empty batch, bfloat16
    # channels-last, 3-D int16 and 1-D uint16: the real result's strides are the fake's
    (
        lambda: torch.randn(2, 3, 6, 7).contiguous(memory_format=torch.channels_last),
        ([4, 9], None, "bilinear", None, None, True, None),
    ),
    (
        lambda: torch.randn(2, 3, 12, 7, dtype=torch.float64)[:, :, ::2],
        ([4, 9], None, "bicubic", None, None, False, None),
    ),
    (
        lambda: torch.randn(2, 3, 7, 6, dtype=torch.float64).transpose(2, 3),
        ([6, 7], None, "bicubic", None, None, False, -1),
    ),
    (
        lambda: torch.randn(0, 3, 6, 7, dtype=torch.float64),
        ([4, 9], None, "lanczos3", None, None, False, None),
    ),
    (
        lambda: (
            torch.randn(1, 3, 6, 7).to(torch.bfloat16).contiguous(memory_format=torch.channels_last)
        ),
        (None, [1.5, 0.5], "lanczos3", True, None, False, None),
    ),
    (
        lambda: torch.randint(-300, 300, (1, 2, 4, 5, 6), dtype=torch.int16),
        ([3, 3, 3], None, "area", None, None, False, None),
    ),
    (
        lambda: torch.randint(0, 3000, (1, 2, 7), dtype=torch.int32).to(torch.uint16),
        # (antialias on 1-D: cresize's own lanczos3; PyTorch's linear refuses it, as F.interpolate)
        ([3], None, "lanczos3", None, None, True, None),
    ),
]


@pytest.mark.parametrize("make, arguments", CONFIGURATIONS)
def test_opcheck_and_the_eager_bits(make, arguments):
    # schema, fake (shape, dtype, strides), autograd registration, AOT dispatch
    x = make().requires_grad_(make().dtype.is_floating_point)
    torch.library.opcheck(OP, (x, *arguments))
    size, scale_factor, mode, align_corners, recompute, antialias, threads = arguments
    eager = ct.interpolate(
        x,
        size,
        scale_factor,
        mode,
        align_corners,
        recompute,
        antialias,
        num_threads=threads,
    )
    y = OP(x, *arguments)
    assert torch.equal(y, eager) and y.stride() == eager.stride()
    if x.requires_grad:
        g = torch.randn_like(y)
        assert torch.equal(torch.autograd.grad(y, x, g)[0], torch.autograd.grad(eager, x, g)[0])
        shape = list(x.shape)
        channels_last = ct._channels_last(x)
        torch.library.opcheck(BACKWARD_OP, (g.requires_grad_(), shape, channels_last, *arguments))


def test_bad_arguments_under_compile_name_the_argument():
    torch._dynamo.reset()
    x = torch.randn(1, 1, 4, 4)
    for kwargs, error, match in (
        ({"size": 4.5}, TypeError, "size must be"),
        ({"size": (2, 2), "mode": "bogus"}, ValueError, "mode must be one of"),
        ({"scale_factor": 2, "mode": "area", "align_corners": True}, ValueError, "align_corners"),
        ({"size": (2, 2, 2)}, ValueError, "size has 3 entries"),
    ):
        compiled = torch.compile(
            lambda t, kwargs=kwargs: ct.interpolate(t, **kwargs), backend="eager"
        )
        with pytest.raises(error, match=match):
            compiled(x)


@pytest.mark.filterwarnings("ignore:`torch.jit.:DeprecationWarning")
def test_without_custom_op_a_capture_says_what_it_needs(monkeypatch):
    monkeypatch.setattr(ct, "_interpolate_op", None)
    with pytest.raises(RuntimeError, match=r"needs PyTorch 2\.4 or later"):
        torch.jit.trace(ct.Resize(size=3), torch.randn(1, 1, 4))


@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize(
    "kwargs",
    [
        {"size": (5, 7), "mode": "bicubic", "antialias": True},
        {"scale_factor": 1.5, "mode": "nearest"},
        {"size": 3, "mode": "area"},
        {"size": (9, 4), "mode": "lanczos3", "align_corners": True},
    ],
)
def test_meta_tensors_give_shapes_as_f_interpolate(kwargs, channels_last):
    # A meta input (shape inference, deferred initialisation: no data) was refused with
    # "works on CPU tensors ... Move it with .cpu()"; F.interpolate takes it. The
    # operator's fake kernel gives the result and its gradient, shape, dtype and strides.
    x = torch.empty(2, 3, 10, 12, device="meta")
    if channels_last:
        x = x.to(memory_format=torch.channels_last)
    x.requires_grad_()
    ours = [ct.interpolate(x, **kwargs), ct.Resize(**kwargs)(x)]
    cpu = ct.interpolate(torch.zeros(x.shape).to(memory_format=_format(x)), **kwargs)
    if kwargs["mode"] != "lanczos3":
        theirs = F.interpolate(x, **kwargs)
        assert (theirs.shape, theirs.stride()) == (cpu.shape, cpu.stride())
    for y in ours:
        assert (y.device.type, y.dtype, y.requires_grad) == ("meta", x.dtype, True)
        assert (y.shape, y.stride()) == (cpu.shape, cpu.stride())
        (grad,) = torch.autograd.grad(y.sum(), x)
        assert (grad.device.type, grad.shape, grad.stride()) == ("meta", x.shape, x.stride())


def _format(x):
    return (
        torch.channels_last
        if x.is_contiguous(memory_format=torch.channels_last)
        else (torch.contiguous_format)
    )


def test_meta_models_and_dtypes():
    with torch.device("meta"):
        model = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3), ct.Resize(size=(64, 64), mode="bicubic")
        )
    assert model(torch.empty(2, 3, 30, 30, device="meta")).shape == (2, 8, 64, 64)
    for dtype in (torch.bfloat16, torch.uint8):
        x = torch.empty(1, 1, 4, 4, device="meta", dtype=dtype)
        assert ct.interpolate(x, size=3, mode="bilinear").dtype == dtype
    # the same refusals as on the CPU; no data, so no size limit from memory
    x = torch.empty(1, 1, 4, 4, device="meta", dtype=torch.complex64)
    with pytest.raises(TypeError, match="input dtype must be one of"):
        ct.interpolate(x, size=3)
    with pytest.raises(NotImplementedError, match="mode='bilinear'"):
        ct.interpolate(torch.empty(1, 1, 4, 4, device="meta"), size=3, mode="linear")
    with pytest.raises(ValueError, match="at least one spatial"):
        ct.Resize(size=3)(torch.empty(4, 4, device="meta"))
    huge = torch.empty(64, 64, 4096, 4096, device="meta")
    assert ct.interpolate(huge, scale_factor=2).shape == (64, 64, 8192, 8192)


def test_meta_tensors_without_custom_op_say_what_they_need(monkeypatch):
    monkeypatch.setattr(ct, "_interpolate_op", None)
    with pytest.raises(ValueError, match=r"meta tensors with PyTorch 2\.4 or later"):
        ct.interpolate(torch.empty(1, 1, 4, 4, device="meta"), size=3)


def test_eager_transforms_under_a_dispatch_mode_that_records_nothing():
    # Any torch dispatch mode sent the call to the operator, which has no torch.func or
    # forward-mode rule: under FlopCounterMode, torch.func.grad / jvp and forward AD failed
    from torch.utils.flop_counter import FlopCounterMode

    x = torch.randn(2, 1, 5, 5, dtype=torch.float64)
    t = torch.randn_like(x)

    def f(a):
        return ct.interpolate(a, size=(3, 4), mode="bicubic")

    def run():
        with torch.autograd.forward_ad.dual_level():
            dual = torch.autograd.forward_ad.make_dual(x, t)
            tangent = torch.autograd.forward_ad.unpack_dual(f(dual)).tangent
        return torch.func.grad(_loss)(x[:1]), *torch.func.jvp(f, (x,), (t,)), tangent

    want = run()
    with FlopCounterMode(display=False):
        got = run()
    assert all(torch.equal(a, b) for a, b in zip(got, want))


def test_symbolic_sizes_are_taken():
    # size computed from a symbolic shape (make_fx's "symbolic" mode) is a torch.SymInt,
    # as the schema's SymInt[] allows: it was refused ("size must be a positive int")
    from torch.fx.experimental.proxy_tensor import make_fx

    def f(t):
        return ct.interpolate(t, size=[2 * n for n in t.shape[2:]], mode="bilinear")

    x = torch.randn(2, 1, 5, 4, dtype=torch.float64)
    gm = make_fx(f, tracing_mode="symbolic")(x)
    assert OP in _targets(gm) and torch.equal(gm(x), f(x))


def test_import_leaves_dynamo_unloaded():
    # torch.compiler.disable(interpolate) at import loaded torch._dynamo: ~0.7 s of the
    # ~0.9 s that `import cresize.torch` added to `import torch`
    code = (
        "import sys, torch; before = 'torch._dynamo' in sys.modules; import cresize.torch; "
        "print(before, 'torch._dynamo' in sys.modules)"
    )
    src = os.path.dirname(os.path.dirname(os.path.abspath(ct.__file__)))
    env = {**os.environ, "PYTHONPATH": src}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["False", "False"]


@pytest.mark.parametrize(
    "kwargs, error, quoted",
    [
        (dict(size=0), ValueError, "got 0$"),
        (dict(size=(4, 0)), ValueError, r"got \(4, 0\)$"),
        (dict(size=[torch.tensor(4), 0]), ValueError, r"got \(4, 0\)$"),
        (dict(size=(4, 5.0)), TypeError, r"got \(4, 5\.0\)$"),
        (dict(scale_factor=-1.0), ValueError, r"got -1\.0$"),
        (dict(scale_factor=(2.0, 0.0)), ValueError, r"got \(2\.0, 0\.0\)$"),
    ],
)
def test_a_recorded_call_quotes_a_refused_size_or_scale_factor_as_passed(kwargs, error, quoted):
    # The operator's arguments were checked entry by entry, quoting the entry alone
    # (size=(4, 0) as "got 0"): docs/spec.md section 5 quotes the whole sequence, as
    # an eager call does
    from torch.fx.experimental.proxy_tensor import make_fx

    x = torch.rand(1, 1, 7, 9)
    with pytest.raises(error, match=quoted):
        make_fx(lambda t: ct.interpolate(t, mode="bilinear", **kwargs))(x)
    with pytest.raises(error, match=quoted):
        ct.interpolate(x, mode="bilinear", **kwargs)


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_fullgraph_refuses_a_size_read_from_a_tensor_of_the_graph_clearly(backend):
    # A 0-d tensor in size, read by torch.compile(fullgraph=True) as a data-dependent
    # value: the fake kernel's plan raised GuardOnDataDependentSymNode from inside
    # cresize (F.interpolate's symbolic sizes take one; cresize's plan needs ints)
    x = torch.rand(1, 1, 8, 8)
    compiled = torch.compile(
        lambda t, s: ct.interpolate(t, size=(s, 7), mode="bilinear"),
        fullgraph=True,
        backend=backend,
    )
    with pytest.raises(Exception, match=r"size holds a tensor .* from Python ints: pass size"):
        compiled(x, torch.tensor(5))
    # without fullgraph the call runs eagerly (a graph break), and a constant one compiles
    eager = torch.compile(lambda t, s: ct.interpolate(t, size=(s, 7), mode="bilinear"))
    assert torch.equal(eager(x, torch.tensor(5)), ct.interpolate(x, size=(5, 7), mode="bilinear"))
    constant = torch.compile(
        lambda t: ct.interpolate(t, size=(torch.tensor(5), 7), mode="bilinear"), fullgraph=True
    )
    assert constant(x).shape == (1, 1, 5, 7)


def test_fullgraph_takes_a_scale_factor_that_dynamo_makes_symbolic():
    # A float scale_factor that Dynamo traces as a symbolic float (a compiled function's
    # argument once a second value recompiles it, a Resize's under dynamic=True) failed
    # with fullgraph=True: "torch.* op returned non-Tensor" (math.isfinite of it in the
    # check of the factor). The plan specialises it, as it does the spatial lengths.
    def f(t, s):
        return ct.interpolate(t, scale_factor=s, mode="bilinear")

    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    for s in (0.5, 0.25, 0.75):
        x = torch.rand(1, 2, 16, 16, requires_grad=True)
        leaf = x.detach().clone().requires_grad_()
        got, expected = compiled(x, s), f(leaf, s)
        got.sum().backward()
        expected.sum().backward()
        assert torch.equal(got, expected) and torch.equal(x.grad, leaf.grad)
    layer = ct.Resize(scale_factor=0.5, mode="bicubic", antialias=True)
    compiled = torch.compile(layer, fullgraph=True, dynamic=True, backend="aot_eager")
    for shape in ((1, 3, 16, 16), (2, 3, 20, 12)):
        x = torch.rand(shape)
        assert torch.equal(compiled(x), layer(x))
    layer.scale_factor = 0.25
    assert torch.equal(compiled(x), layer(x)) and compiled(x).shape == (2, 3, 5, 3)
    for bad in (float("nan"), float("inf"), -0.5):  # still refused, as eager refuses them
        torch._dynamo.reset()  # a constant again (a symbolic one is refused by Dynamo)
        with pytest.raises(Exception, match="scale_factor must be finite and > 0"):
            torch.compile(f, fullgraph=True, backend="eager")(x, bad)
