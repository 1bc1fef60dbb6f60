"""PyTorch autograd adapter: ``interpolate`` and the ``Resize`` module.

``cresize.torch.interpolate`` has the call shape of
``torch.nn.functional.interpolate`` and works on CPU tensors of any number of
spatial dimensions, in every cresize mode, forward and backward. Its backward
calls ``cresize.resize_backward`` (deterministic, float64 when the tensor is),
and the backward of the backward is the forward again: the operator is linear,
so ``gradgradcheck`` and higher derivatives work, in forward mode too (``jvp``,
``torch.autograd.forward_ad``), and under ``torch.func`` (``grad``, ``jvp``,
``vmap``, ``jacrev``, ``jacfwd``). ``torch.compile`` (``fullgraph=True`` too),
``torch.export``, ``make_fx`` and ``torch.jit.trace`` record a call as the custom
operator ``cresize::interpolate`` (PyTorch 2.4 or later; see the PyTorch guide).

Needs PyTorch 2.0 or later, any CPU build, installed pinned (for the CPU build:
``pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu``; a plain
``pip install torch`` on Linux pulls the multi-GB CUDA build).
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from cresize import _fast, _optional, _plan, _spec
from cresize._api import _threads

# Not installed: the install hint; installed but failing to import: its error, named.
_optional.load(
    "torch",
    missing="cresize.torch needs PyTorch, which is not installed: "
    "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu "
    "(the CPU build; any version from 2.0 works: pin it, as a plain pip install "
    "torch on Linux pulls the multi-GB CUDA build)",
    hint="cresize.torch needs it",
)
import torch  # noqa: E402 (imported above)
import torch.autograd.forward_ad as _forward_ad  # noqa: E402

__all__ = ["Resize", "interpolate"]

# What ``size`` and ``scale_factor`` take, for type checkers (``_tensor_sizes`` and
# ``_per_axis``, as ``F.interpolate`` takes them): not ``_spec.Ints`` and
# ``_spec.Reals``, as no 1-d array is taken, nor a 0-d float array alone.
#: An int (a 0-d integer array alone, too), a 0-d integer tensor, or a sequence of them
#: (1-d tensors are refused at run time; type checkers do not know a tensor's rank).
Size = _spec.Int | torch.Tensor | Sequence[_spec.Int | torch.Tensor]
#: A number, or a sequence of them (0-d arrays too).
Factors = float | np.floating[Any] | np.integer[Any] | Sequence[_spec.Real]

# Dynamo is tracing (torch.compile, strict torch.export): the call is recorded as the
# operator cresize::interpolate (see "Graph capture" below)
_compiler = getattr(torch, "compiler", None)
_compiling = getattr(_compiler, "is_compiling", None) or (lambda: True)
_disable = getattr(_compiler, "disable", None) or torch._dynamo.disable  # torch 2.0


# float16 and bfloat16 are resized in float32 and rounded once to their dtype (as
# cresize.resize does float16), through PyTorch's casts: differentiable, as they are for
# F.interpolate (and for a model run under torch.autocast("cpu")).
_HALF = (torch.float16, torch.bfloat16)
# Each dtype taken, and whether it is one of _HALF (one look-up per call does both)
_DTYPES = {
    dtype: dtype in _HALF
    for dtype in (
        torch.float32,
        torch.float64,
        *_HALF,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        # PyTorch 2.3 and later (cresize's 16-bit kernels; F.interpolate takes none of them)
        *(getattr(torch, name) for name in ("uint16", "uint32", "uint64") if hasattr(torch, name)),
    )
}


def interpolate(
    input: torch.Tensor,
    size: Size | None = None,
    scale_factor: Factors | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
    *,
    num_threads: _spec.Int | None = None,
) -> torch.Tensor:
    """Resize the spatial dimensions of a CPU tensor; differentiable, like ``F.interpolate``.

    Parameters
    ----------
    input : torch.Tensor
        ``(N, C, *spatial)`` with at least one spatial dimension, on the CPU (or on
        the ``meta`` device, PyTorch 2.4 or later: a meta result of the CPU result's
        shape, dtype and strides).
        float64, float32, float16 and bfloat16 are differentiable (the last two
        are resized in float32 and rounded once to their dtype, as ``cresize.resize``
        does float16); integer tensors are resized without gradient (rounded and
        clipped).
    size : int or sequence of int, optional
        Output length of each spatial dimension; 0-d integer tensors are ints, and
        so is a 0-d integer NumPy array given alone (as ``F.interpolate`` takes them).
    scale_factor : float or sequence of float, optional
        Per spatial dimension; the output length is ``floor(I * f)`` and, unless
        ``recompute_scale_factor`` is true, the sampling scale is ``1 / f``. 0-d
        integer and floating tensors are floats (``float(t)``), alone or in a sequence,
        in every mode (``F.interpolate`` takes them only where it recomputes the scale:
        ``recompute_scale_factor=True``, and ``area``), and so is a 0-d NumPy array.
    mode : str
        Default ``"nearest"``, as in ``F.interpolate``.
        Any cresize mode (``nearest``, ``nearest-exact``, ``bilinear``,
        ``bicubic``, ``lanczos3``, ``area``) or alias (``linear``,
        ``trilinear``, ``cubic``, ``nearest_exact``), and PyTorch's
        ``"lanczos"`` (which means ``lanczos3`` with ``antialias=True``). On a 3-D,
        4-D or 5-D input, ``F.interpolate``'s names are refused where it refuses them
        (``NotImplementedError``: ``linear`` needs 3-D, ``bilinear``, ``bicubic`` and
        ``lanczos`` 4-D, ``trilinear`` 5-D); cresize's own names (``lanczos3``,
        ``cubic``, ``nearest_exact``) work on any rank, and every name on more
        spatial dimensions (which no ``F.interpolate`` mode takes).
    align_corners : bool, optional
        None means False. With ``nearest``, ``nearest-exact`` and ``area`` it must be
        None (``ValueError``, as in ``F.interpolate``; ``nearest_exact``: not True).
    recompute_scale_factor : bool, optional
        With ``scale_factor``: sample as if the computed output size had been given
        (True with ``size`` is an error, as in ``F.interpolate``). True, False or None
        (``F.interpolate`` takes any value by its truth: 0 and 1 are TypeErrors here).
    antialias : bool
        Widen the kernel when shrinking (bilinear, bicubic, lanczos3). With
        ``F.interpolate``'s names only on a 4-D input, in bilinear, bicubic and lanczos
        (``ValueError``, as there); ``cubic`` and ``lanczos3`` take it on any rank.
        True or False (``F.interpolate`` takes any value by its truth: None, 0 and 1
        are TypeErrors here, docs/limits.md "PyTorch adapter").
    num_threads : int, optional
        OpenMP threads of the forward and backward; None: OpenMP's default at
        call time, as for ``cresize.resize`` (1 in a forked child, such as a
        DataLoader worker: see docs/limits.md). When PyTorch and cresize share
        one OpenMP runtime (the usual case on Linux), ``torch.set_num_threads``
        sets that default. The numbers do not depend on it.

    Returns
    -------
    torch.Tensor
        ``(N, C, *resized)`` of ``input``'s dtype, contiguous; channels-last
        (``torch.channels_last`` / ``channels_last_3d``) when ``input``'s
        strides are, as ``F.interpolate`` returns it (in ``area`` on a 5-D
        input too, which ``F.interpolate`` returns contiguous).

    Raises
    ------
    TypeError
        ``input`` not a dense tensor or of a dtype not listed above, or an option of the
        wrong type (``antialias=None``, a bool scale factor, ...).
    ValueError
        A value refused as by ``cresize.resize`` or ``F.interpolate`` (both or
        neither of ``size`` and ``scale_factor``, an unknown mode, ``align_corners``
        or ``antialias`` where the mode or rank has none), fewer than three
        dimensions, a device other than the CPU (or ``meta``).
    NotImplementedError
        One of ``F.interpolate``'s mode names on a rank it refuses it on (above).
    RuntimeError
        ``torch.jit.script`` of it, or PyTorch's legacy batched gradients
        (``is_grads_batched=True``), which it cannot run under.
    MemoryError
        As for ``cresize.resize``: the result and its tables cannot fit here.

    Examples
    --------
    >>> import torch, cresize.torch
    >>> x = torch.arange(4.0, dtype=torch.float64).reshape(1, 1, 4).requires_grad_()
    >>> y = cresize.torch.interpolate(x, size=8, mode="linear")
    >>> y.sum().backward()
    >>> x.grad
    tensor([[[2., 2., 2., 2.]]], dtype=torch.float64)
    """
    options = (size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
    if _capturing(input):
        return _captured(input, options, num_threads)
    if type(input) is not torch.Tensor and _has_torch_function(input):
        return _subclass_call(input, options, num_threads)
    return _eager(input, options, num_threads)


# A tensor subclass with its own __torch_function__ (not nn.Parameter, whose is disabled)
# sees the call as F.interpolate's subclasses do: its __torch_function__ gets
# ``interpolate`` and the arguments, and the default one runs it on the tensor and
# returns the result as the subclass (F.interpolate keeps a subclass; it was a Tensor)
_has_torch_function = torch.overrides.has_torch_function_unary


def _subclass_call(input, options, num_threads):
    """``interpolate`` given to ``input``'s ``__torch_function__`` (``input`` a tensor
    subclass that has one), as ``F.interpolate`` gives itself."""
    return torch.overrides.handle_torch_function(
        interpolate, (input,), input, *options, num_threads=num_threads
    )


# A call's route is decided once, where it is made (interpolate, Resize.forward): recorded
# into a graph (_captured: the operator) or run now (_eager: a CPU tensor resized, a meta
# tensor given to the operator). Each path takes the call as (input, options, num_threads),
# ``options`` being the arguments from ``size`` to ``antialias`` as given.


# Each dtype's NumPy dtype (the one a plan of it has; float16 and bfloat16 have none:
# their plan is float32's, see _apply)
_NUMPY = {
    dtype: np.dtype(str(dtype)[len("torch.") :]) for dtype, half in _DTYPES.items() if not half
}


# What _run gives run_view for a dtype with no entry above (float16, bfloat16: their
# plan reads float32, so their data must never be read by it): a dtype no plan has,
# so that the plan's checked call decides (its dtype error)
_NO_NUMPY = np.dtype("V1")


def _eager(input, options, num_threads, module=None):
    """``interpolate`` run now (not recorded into a graph); ``module``: the ``Resize``
    making the call (its plans, see ``Resize._planned``), None for ``interpolate``.

    A repeated call (a plain CPU tensor, arguments of plain types) finds its plan in one
    dict look-up keyed on the tensor's shape, dtype and strides (so its layout: a
    channels-last input's plan resizes axes from 1) and the options: the weak references
    that ``cresize.resize`` keeps (``_plan.recall``). Its plan was made by a call that
    passed every check below, so only what the key does not hold is checked again (the
    type, device, layout, nesting: a sparse tensor has strides too, a nested one none),
    and it goes to ``_apply`` as the checked path's call does; ``num_threads`` is checked
    where the plan runs (its call's ``_fast._threads_of``, the one test of a thread count,
    in C). Everything else takes the checked path (``_planned``)."""
    size, scale_factor, mode, align_corners, recompute_scale_factor, antialias = options
    if (
        isinstance(input, torch.Tensor)
        and input.is_cpu
        and input.layout is _STRIDED
        and not input.is_nested
        and (recompute_scale_factor is None or type(recompute_scale_factor) is bool)
    ):
        key = _plan.fast_key(input, size, scale_factor, mode, align_corners, antialias, None)
        if key is not None:
            key = ("torch", input.stride(), recompute_scale_factor, key)
            found = _plan.recall(key)
            if found is not None:
                if module is not None and module._cached[1] is not found:
                    module._cached = (None, found)
                channels_last = found.axes[0] == 1  # _plans_channels_last, inlined
                half = _DTYPES[key[3][1]]  # the input's dtype
                if (
                    half
                    or channels_last
                    or _transforming()  # _linear's test, inlined
                    or (input.requires_grad and torch.is_grad_enabled())
                    or _forward_ad._current_level >= 0
                ):
                    return _apply(input, found, num_threads, channels_last, half)
                # nothing can differentiate it: _linear's _run, inlined, on the data in
                # place (_viewed; its shape and dtype found the plan, with these strides)
                if not input.is_neg():
                    try:
                        address = input.data_ptr()
                    except RuntimeError:  # no storage
                        address = 0
                    result = _fast.run_view(found, address, None, key[1], None, num_threads)
                    if result is not None:
                        return _tensor(result) if result.size else _empty_tensor(result)
                return _run_numpy(input, found, num_threads, False)
    else:
        key = None
    return _planned(input, options, num_threads, module, key)


def _planned(input, options, num_threads, module, key):
    """``_eager``'s checked path: the input checked, the call planned (a ``Resize``'s
    through the module's own cache, ``Resize._planned``; ``interpolate``'s by
    ``_input_plan``, remembered under ``key`` when it has one) and run."""
    half = _check_input(input)
    if half is None:  # a meta tensor: the operator's fake kernel (see _check_input)
        return _operator(input, options, num_threads)
    if num_threads is not None:  # validated here rather than inside autograd
        _spec.threads_value(num_threads)
    if module is not None and key is None:  # options of other types: the module's cache
        found, channels_last = module._planned(input, options)
    else:
        channels_last = _channels_last(input)
        found = _input_plan(tuple(input.shape), input.dtype, options, channels_last=channels_last)
        _plan.remember(key, found)
        if module is not None:
            module._cached = (None, found)
    return _apply(input, found, num_threads, channels_last, half)


# _eager as Dynamo runs it: not traced (a graph break; see _captured). PyTorch's lazy
# wrapper (a skipped function to Dynamo) imports torch._dynamo at its first call, not at
# `import cresize.torch` (about 0.7 s); torch.compiler.disable where it is missing
_lazy_disable = getattr(torch, "_disable_dynamo", None)
_disabled_eager = _disable(_eager) if _lazy_disable is None else _lazy_disable(_eager)


def _apply(input, found, num_threads, channels_last, half=False, adjoint=False, linear=None):
    """``found`` (with ``adjoint`` its ``W.T``) on ``input``; a channels-last input is
    resized as its (N, *spatial, C) view, so the result is channels-last too, without a
    copy. float16 and bfloat16 (``half``) are resized as their float32 copy (``found``
    is its plan), rounded back once. ``linear`` runs the plan: ``_linear`` (differentiable)
    unless given (the operators' ``_run``, below autograd)."""
    linear = linear or _linear
    if not (half or channels_last):  # the common call first
        return linear(input, found, num_threads, adjoint)
    if half:
        resized = _apply(input.float(), found, num_threads, channels_last, False, adjoint, linear)
        return resized.to(input.dtype)
    return linear(input.movedim(1, -1), found, num_threads, adjoint).movedim(-1, 1)


# TorchScript cannot compile the planning's Python; trace, compile and export record the op
_STRIDED = torch.strided
_UNSCRIPTABLE = (
    "torch.jit.script cannot take cresize.torch: it resizes with NumPy and C kernels "
    "planned in Python, which TorchScript cannot compile. torch.jit.trace, torch.compile "
    "and torch.export record it as the operator cresize::interpolate instead"
)


def _unscriptable():
    """``__prepare_scriptable__`` of ``interpolate`` and ``Resize``: ``torch.jit.script``
    calls it first, on a function given to it or called by one it compiles and on every
    submodule; a clear refusal rather than TorchScript's error from inside cresize's
    code (it was "Compiled functions can't take ... keyword-only arguments" for
    ``interpolate``)."""
    raise RuntimeError(_UNSCRIPTABLE)


interpolate.__prepare_scriptable__ = _unscriptable  # type: ignore[attr-defined]


def _check_input(input):
    """Refuse what cresize.torch cannot take; whether ``input`` is float16 or bfloat16,
    or None for a tensor on the ``meta`` device (PyTorch 2.4 and later: its call goes to
    the operator, whose fake kernel gives the result's shape, dtype and strides)."""
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"input must be a torch.Tensor; got {type(input).__name__}")
    if not input.is_cpu and input.device.type != "cpu":  # is_cpu: 0.05 us, device.type 0.25
        if not input.is_meta:
            raise ValueError(
                f"cresize.torch works on CPU tensors; input is on {input.device}. "
                f"Move it with .cpu() (or use torch.nn.functional.interpolate there)"
            )
        if _interpolate_op is None:
            raise ValueError(
                f"cresize.torch takes meta tensors with PyTorch 2.4 or later (its "
                f"operator's fake kernel gives their results); this is {torch.__version__}"
            )
        meta = True  # no data (shapes only): the operator's fake kernel gives the result
    else:
        meta = False
    half = _DTYPES.get(input.dtype)
    if half is None:
        raise TypeError(
            f"input dtype must be one of {', '.join(str(d) for d in _DTYPES)}; got {input.dtype}"
        )
    if input.layout is not torch.strided or input.is_nested:
        raise TypeError(
            f"input must be a dense (torch.strided) tensor; got a "
            f"{'nested' if input.is_nested else input.layout} one: convert it with "
            f"{'.unbind()' if input.is_nested else '.to_dense()'} first"
        )
    if input.dim() < 3:
        raise ValueError(
            f"input must be (N, C, *spatial) with at least one spatial dimension; "
            f"got {input.dim()} dimensions"
        )
    return None if meta else half


def _size_or_factor(size, scale_factor, recompute_scale_factor):
    """``F.interpolate``'s rules: exactly one of ``size`` and ``scale_factor``, and
    ``recompute_scale_factor=True`` only with ``scale_factor``."""
    if (size is None) == (scale_factor is None):
        raise ValueError("give size or scale_factor (exactly one of them)")
    if recompute_scale_factor is not None:
        _spec.flag(recompute_scale_factor, "recompute_scale_factor", "True, False or None")
    if recompute_scale_factor and size is not None:
        raise ValueError(
            "recompute_scale_factor=True needs scale_factor; with size it means nothing "
            "(F.interpolate refuses it too)"
        )


def _input_plan(shape, dtype, options, previous=None, *, channels_last=False):
    """The cached plan of the call with ``options`` (``size`` to ``antialias``, see
    ``_eager``) on an input of ``shape`` (a tuple of ints) and torch ``dtype``
    (``previous`` when it is the same call); with ``channels_last``, the plan of the
    (N, *spatial, C) view."""
    size, scale_factor, mode, align_corners, recompute_scale_factor, antialias = options
    ndim = len(shape)
    _spec.torch_rules(mode, ndim, align_corners, antialias)
    mode = _spec.torch_mode(mode, antialias)
    spatial = ndim - 2
    if channels_last:
        shape = (shape[0], *shape[2:], shape[1])
        axes = tuple(range(1, ndim - 1))
    else:
        axes = tuple(range(2, ndim))
    _size_or_factor(size, scale_factor, recompute_scale_factor)
    if size is not None:
        size = _numbers(size, spatial, "size")
    else:
        scale_factor = _numbers(scale_factor, spatial, "scale_factor")
    if scale_factor is not None and recompute_scale_factor:  # as if the size had been given
        size = _spec.forward(
            shape, None, scale_factor, mode, align_corners, antialias, axes, name="input"
        ).lengths
        scale_factor = None
    spec = _spec.forward(
        shape, size, scale_factor, mode, align_corners, antialias, axes, name="input"
    )
    if dtype in _HALF:  # resized as its float32 copy (see _apply)
        dtype = _spec.compute_dtype(np.dtype(np.float16))
    else:
        dtype = np.dtype(str(dtype)[len("torch.") :])
    if previous is not None and previous._spec == spec and previous.dtype == dtype:
        return previous
    return _plan.cached_plan(spec, dtype)


class Resize(torch.nn.Module):
    """``interpolate`` as a module (like ``torch.nn.Upsample``).

    Parameters
    ----------
    size, scale_factor, mode, align_corners, recompute_scale_factor, antialias, num_threads
        As for ``interpolate``.

    Raises
    ------
    TypeError, ValueError
        An option ``interpolate`` refuses, when the module is made; what depends on
        the input, as ``interpolate`` raises it, when it is called.

    Examples
    --------
    >>> import torch, cresize.torch
    >>> layer = cresize.torch.Resize(scale_factor=0.5, mode="lanczos3", antialias=True)
    >>> layer(torch.zeros(2, 3, 16, 16)).shape
    torch.Size([2, 3, 8, 8])
    """

    def __init__(
        self,
        size: Size | None = None,
        scale_factor: Factors | None = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
        antialias: bool = False,
        num_threads: _spec.Int | None = None,
    ) -> None:
        super().__init__()
        # Bad options fail here, not at the first call (each call checks them again:
        # the attributes may be changed later, as nn.Upsample's).
        _spec.options(_spec.torch_mode(mode, antialias), align_corners, antialias)
        _size_or_factor(size, scale_factor, recompute_scale_factor)
        if size is not None:  # each entry (their count is checked against an input's)
            _per_axis(size, None, "size")
        else:
            _per_axis(scale_factor, None, "scale_factor")
        _threads(num_threads)
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.num_threads = num_threads
        self.align_corners, self.antialias = align_corners, antialias
        self.recompute_scale_factor = recompute_scale_factor

        # (key, plan): the last input's plan, found either way, with the module's own key
        # of it where the options were not all of plain types (``_planned``: a list, a
        # tensor size), else None; (None, None) before the first call. One slot: a plan
        # found by interpolate's key replaces a list's (key, plan), not kept beside it.
        self._cached: tuple[tuple[Any, ...] | None, _plan.Plan | None] = (None, None)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling (``copy`` too) a module pickled by an earlier version: ``_cached``
        None before its first call, and a separate last plan (``_last``) where it was
        kept apart from ``_cached`` (the last list or tensor size's (key, plan)): one
        slot now, the last plan's."""
        super().__setstate__(state)
        cached = state.get("_cached") or (None, None)
        if "_last" in state:
            del self._last
            if cached[1] is not state["_last"]:
                cached = (None, state["_last"])
        self._cached = cached

    @property
    def plan(self) -> _plan.Plan | None:
        """The ``cresize.Plan`` of the last input (None before the first call); a
        float32 plan for a float16 or bfloat16 input (resized as its float32 copy)."""
        return self._cached[1]

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        """``interpolate(input, ...)`` with this module's arguments.

        Parameters
        ----------
        input : torch.Tensor
            As for ``interpolate``.

        Returns
        -------
        torch.Tensor
            As ``interpolate`` returns it.
        """
        options = (
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            self.recompute_scale_factor,
            self.antialias,
        )
        if _capturing(input):
            return _captured(input, options, self.num_threads)
        if type(input) is not torch.Tensor and _has_torch_function(input):
            return _subclass_call(input, options, self.num_threads)
        return _eager(input, options, self.num_threads, self)

    def _planned(self, input, options):
        """This module's plan of ``input`` and whether it is a channels-last input's,
        where its options are not all of plain types (``_eager`` finds the others' plans
        as ``interpolate`` does): the last such input's while its shape, dtype, layout
        (strides) and the options are the same."""
        key = (tuple(input.shape), input.dtype, input.stride(), *map(_frozen, options))
        cached = self._cached  # read once: another thread may replace it meanwhile
        if key == cached[0]:
            return cached[1], _plans_channels_last(cached[1])
        channels_last = _channels_last(input)  # a new shape, layout or options
        found = _input_plan(
            tuple(input.shape), input.dtype, options, cached[1], channels_last=channels_last
        )
        self._cached = (key, found)
        return found, channels_last

    def __prepare_scriptable__(self) -> Resize:
        """``torch.jit.script`` calls this first (on every submodule): a clear refusal
        rather than TorchScript's error from inside the plan's code (``torch.jit.trace``
        records the operator); see ``_unscriptable``."""
        _unscriptable()
        return self  # not reached

    def extra_repr(self) -> str:
        given = (
            f"size={self.size}" if self.size is not None else f"scale_factor={self.scale_factor}"
        )
        # the options that change the result, and the thread count where given
        recompute = self.recompute_scale_factor
        return (
            f"{given}, mode={self.mode!r}, align_corners={self.align_corners}, "
            f"antialias={self.antialias}"
            + (f", recompute_scale_factor={recompute}" if recompute is not None else "")
            + (f", num_threads={self.num_threads}" if self.num_threads is not None else "")
        )


class _CresizeInterpolate(torch.autograd.Function):
    """``W`` of a plan, or with ``adjoint`` its ``W.T``. The derivatives are maps of the
    same plan: forward mode (``jvp``) is the map itself, reverse mode (``backward``) the
    other one, so derivatives of every order work. The class's name is what profilers
    and ``grad_fn`` show (``_CresizeInterpolateBackward``; it was ``_Linear``, easily
    taken for ``nn.Linear``)."""

    @staticmethod
    def forward(ctx, input, plan, num_threads, adjoint):
        ctx.plan, ctx.num_threads, ctx.adjoint = plan, num_threads, adjoint
        return _run(input, plan, num_threads, adjoint)

    @staticmethod
    def backward(ctx, grad):
        return _linear(grad, ctx.plan, ctx.num_threads, not ctx.adjoint), None, None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        return _linear(tangent, ctx.plan, ctx.num_threads, ctx.adjoint)


class _CresizeInterpolateUnderTransform(_CresizeInterpolate):
    """``_CresizeInterpolate`` in the form ``torch.func`` transforms need (``setup_context``, and
    ``vmap``: slice by slice). Its ``apply`` costs about 10 us more (PyTorch binds the
    arguments with ``inspect.signature``), so it is used only under a transform."""

    @staticmethod
    def forward(input, plan, num_threads, adjoint):
        return _run(input, plan, num_threads, adjoint)

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, ctx.plan, ctx.num_threads, ctx.adjoint = inputs

    @staticmethod
    def vmap(info, in_dims, input, plan, num_threads, adjoint):
        if in_dims[0] is None:
            return _linear(input, plan, num_threads, adjoint), None
        slices = input.movedim(in_dims[0], 0).unbind(0)
        if not slices:  # a batch of size 0 (torch.stack needs one tensor)
            _spec.threads_value(num_threads)  # checked as a run of the plan checks it
            shape = plan.input_shape if adjoint else plan.output_shape
            return input.new_empty((0, *shape)), 0
        return torch.stack([_linear(t, plan, num_threads, adjoint) for t in slices]), 0


# Whether torch.jit.trace is running (torch.jit.is_tracing less its Python wrapper: 0.05 us)
_tracing = getattr(torch._C, "_is_tracing", torch.jit.is_tracing)

# Whether a tensor is a FakeTensor (or wraps one), as torch.export and make_fx trace with
# (import torch loads torch._subclasses.fake_tensor; is_fake is there from PyTorch 2.1)
_is_fake = getattr(torch._subclasses.fake_tensor, "is_fake", None) or (lambda tensor: False)

# PyTorch's own test of whether a torch.func transform is running (any transform: True)
_transforming = getattr(torch._C, "_are_functorch_transforms_active", lambda: True)


def _linear(input, plan, num_threads, adjoint=False):
    """``_run`` as a differentiable PyTorch operation (run as it is where nothing can
    differentiate it: no gradient recorded, no forward-mode level, no transform)."""
    if _transforming():
        return _CresizeInterpolateUnderTransform.apply(input, plan, num_threads, adjoint)
    if (input.requires_grad and torch.is_grad_enabled()) or _forward_ad._current_level >= 0:
        return _recorded(_unwrap_if_dead(input), plan, num_threads, adjoint)
    return _run(input, plan, num_threads, adjoint)


# The names that Function.apply's Python wrapper refers to in PyTorch 2.0 to 2.13, where,
# with no torch.func transform running and no setup_context, it only unwraps a dead
# functorch wrapper and calls the C apply (torch/autograd/function.py).
_WRAPPER_NAMES = frozenset(
    (
        "_is_setup_context_defined",
        "_SingleLevelFunction",
        "setup_context",
        "forward",
        "torch",
        "_C",
        "_are_functorch_transforms_active",
        "_functorch",
        "utils",
        "unwrap_dead_wrappers",
        "super",
        "apply",
        "RuntimeError",
        "custom_function_call",
    )
)


def _c_apply(function):
    """``function.apply`` (an ``autograd.Function`` without ``setup_context``) less its
    Python wrapper (1.6 us of a 5 us tiny call), as (unwrap, apply): ``apply(unwrap(x),
    ...)`` does what the wrapper does where no torch.func transform runs (``_linear`` has
    asked). The wrapper itself (and no unwrapping) where PyTorch lacks the C pieces or
    its wrapper refers to names that 2.0-2.13's does not (it may do more there)."""
    unwrap = getattr(getattr(torch._C, "_functorch", None), "unwrap_if_dead", None)
    base = vars(getattr(torch._C, "_FunctionBase", object)).get("apply")
    wrapper = getattr(vars(torch.autograd.Function).get("apply"), "__func__", None)
    names = getattr(getattr(wrapper, "__code__", None), "co_names", None)
    if unwrap is None or base is None or names is None or not set(names) <= _WRAPPER_NAMES:
        return (lambda tensor: tensor), function.apply
    return unwrap, base.__get__(None, function)


_unwrap_if_dead, _recorded = _c_apply(_CresizeInterpolate)


def _run(input, plan, num_threads, adjoint):
    """``plan`` (``adjoint``: its backward) on a CPU tensor, as a new tensor: on its data
    in place where it can (``_viewed``), else through NumPy's view (``_run_numpy``). A
    strided tensor (the expanded gradient of ``y.sum().backward()``) is read strided: the
    plan's direct steps copy it C-contiguous themselves. A tensor on another device (the
    operators run on every device: an exported program given CUDA tensors) is
    ``_check_input``'s ``ValueError``: NumPy's view would copy one that requires grad to
    the CPU (``force=True``) and give a CPU result."""
    dtype = _NUMPY.get(input.dtype, _NO_NUMPY)  # None would skip run_view's dtype check
    result = _viewed(input, plan, input.shape, input.stride(), dtype, num_threads, adjoint)
    if result is not None:
        return result
    if not input.is_cpu:
        _check_input(input)  # another device than the CPU (and meta): its ValueError
    return _run_numpy(input, plan, num_threads, adjoint)


def _run_numpy(input, plan, num_threads, adjoint):
    """``_run`` through PyTorch's NumPy view of ``input`` (``_numpy``) and the plan's
    call, with their checks and errors."""
    run = plan.backward if adjoint else plan
    result = run(_numpy(input), num_threads=num_threads)
    return _tensor(result) if result.size else _empty_tensor(result)


_tensor = torch.from_numpy


def _empty_tensor(result):
    """The tensor of an empty result: NumPy (2.x) gives a zero-size array every stride 0;
    a tensor has PyTorch's contiguous strides, as F.interpolate's and torch.empty's have."""
    return torch.from_numpy(result).new_empty(result.shape)


def _viewed(input, plan, shape, strides, dtype, num_threads, adjoint):
    """``_run``'s result from the plan run on ``input``'s data in place
    (``_fast.run_view``: no NumPy view of it made by PyTorch, 0.5-0.8 us less), or None
    where it cannot be: a negative bit (the data are not the values), no data (a wrapper
    tensor without storage, such as a legacy batched one, or a meta tensor), data off the
    CPU (``data_ptr`` a device's address, not the process's memory: a CUDA tensor given
    to the operator ``torch.ops.cresize.interpolate``, which has no device check; NumPy's
    view refuses it, with PyTorch's error), or not what the plan's direct steps take
    (``_run``'s checked path decides, or raises its error)."""
    if input.is_neg() or not input.is_cpu:
        return None
    try:
        address = input.data_ptr()
    except RuntimeError:  # no storage
        return None
    result = _fast.run_view(plan, address, shape, strides, dtype, num_threads, adjoint)
    if result is None:
        return None
    return _tensor(result) if result.size else _empty_tensor(result)


def _numpy(tensor):
    """A NumPy view of a CPU tensor (no copy unless it has a negative bit; real dtypes
    have no conjugate bit)."""
    if not tensor.requires_grad:
        try:  # the common case: 0.1 us less than force=True, which detaches first
            return tensor.numpy()
        except RuntimeError:  # a negative bit, a batched tensor, ...: as below
            pass
    try:  # detached, the negative bit resolved (a copy), in one call
        return tensor.numpy(force=True)
    except RuntimeError as exc:  # no Python name tells the legacy batching key apart
        if "Batched" not in str(torch._C._dispatch_keys(tensor)):
            raise
        raise RuntimeError(
            "cresize.torch cannot run under PyTorch's legacy batching "
            "(torch.autograd.grad(..., is_grads_batched=True), gradcheck's "
            "check_batched_grad=True, torch.autograd.functional.jacobian and hessian "
            "with vectorize=True): it has no batching rule there. torch.func.vmap "
            "works (of torch.func.vjp for batched gradients; torch.func.jacrev, "
            "jacfwd and hessian), and so does vectorize=False"
        ) from exc


# ----------------------------------------------------------------------------
# Graph capture: torch.compile (fullgraph too), torch.export (strict and not), make_fx
# and torch.jit.trace record a call as the operator cresize::interpolate, whose
# gradient is cresize::interpolate_backward (and that one's the forward again: the map
# is linear). Eager calls do not go through the dispatcher: they stay as above.

# The torch dispatch modes active (make_fx's proxy mode, FakeTensorMode, ...): 0 in eager
_dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", lambda: 0)
_custom_op = getattr(torch.library, "custom_op", None)  # PyTorch 2.4 and later


# Pre-dispatch tracing (make_fx(pre_dispatch=True), non-strict export) is running: its
# proxy mode is on a stack of its own, which _dispatch_modes does not count. It also
# pushes a torch function mode: that count (0.03 us) is read first, the key (0.06 us)
# only where it is not 0
_PRE_DISPATCH = getattr(torch._C.DispatchKey, "PreDispatch", None)
_included = getattr(torch._C, "_dispatch_tls_is_dispatch_key_included", None)
_pre_dispatch = functools.partial(_included, _PRE_DISPATCH) if _PRE_DISPATCH and _included else bool
_function_modes = getattr(torch._C, "_len_torch_function_stack", lambda: 1)


def _capturing(input):
    """Whether this call is being recorded into a graph rather than run: Dynamo traces
    (first: it takes ``is_compiling`` as True and reads no further), torch.jit.trace
    runs, a torch dispatch mode (pre-dispatch too) is active, or ``input`` is a
    FakeTensor."""
    return (
        _compiling()
        or _tracing()
        or _dispatch_modes() > 0
        or (_function_modes() > 0 and _pre_dispatch())
        or (type(input) is not torch.Tensor and _is_fake(input))
    )


def _differentiated_unrecorded(input):
    """A ``torch.func`` transform or a forward-mode AD level, which the operators have no
    rule for (PyTorch 2.13: the transforms refuse their autograd, and forward mode drops
    the tangent), around a call that nothing records: only a torch dispatch mode that
    records no graph (``FlopCounterMode``, ...) sent it here. It runs eagerly."""
    if not (_transforming() or _forward_ad._current_level >= 0) or _tracing() or _is_fake(input):
        return False
    if input.is_meta:  # no data to run on: the operator (its fake kernel) or its error
        return False
    from torch.fx.experimental.proxy_tensor import get_proxy_mode  # make_fx's

    return get_proxy_mode() is None


def _captured(input, options, num_threads):
    """``interpolate`` recorded into a graph: the operator (see ``_operator``). Under a
    ``torch.func`` transform or forward-mode AD inside torch.compile, and before PyTorch
    2.4, Dynamo runs ``interpolate`` eagerly instead (a graph break): PyTorch 2.13 refuses
    a custom operator's autograd under ``torch.func`` transforms, and the operators have
    no forward-mode rule."""
    if _compiling():
        # _eager, not interpolate: is_compiling() is a process-wide flag, True in every
        # thread while one compiles, and interpolate would come back here
        now = _interpolate_op is None or _transforming() or _forward_ad._current_level >= 0
        run_now = _disabled_eager if now else None
    else:
        run_now = _eager if _differentiated_unrecorded(input) else None
    if run_now is not None:
        return run_now(input, options, num_threads)
    if _interpolate_op is None:
        raise RuntimeError(
            "recording cresize.torch in a graph (torch.export, make_fx, torch.jit.trace; "
            "fullgraph torch.compile) needs PyTorch 2.4 or later (torch.library.custom_op); "
            f"this is {torch.__version__}"
        )
    _check_input(input)
    return _operator(input, options, num_threads)


def _operator(input, options, num_threads):
    """The operator cresize::interpolate on ``input`` (checked by ``_check_input``): the
    arguments checked and turned into its schema's types here (plain Python that Dynamo
    folds), planned by the operator."""
    size, scale_factor, mode, align_corners, recompute_scale_factor, antialias = options
    spatial = input.dim() - 2
    _spec.torch_rules(mode, input.dim(), align_corners, antialias)
    _spec.options(_spec.torch_mode(mode, antialias), align_corners, antialias)
    _size_or_factor(size, scale_factor, recompute_scale_factor)
    if size is not None:
        size = _per_axis(size, spatial, "size")
    if scale_factor is not None:
        scale_factor = _per_axis(scale_factor, spatial, "scale_factor")
    return _interpolate_op(
        input,
        size,
        scale_factor,
        mode,
        None if align_corners is None else bool(align_corners),
        None if recompute_scale_factor is None else bool(recompute_scale_factor),
        bool(antialias),
        _spec.threads_value(num_threads),  # None stays None: OpenMP's default at run time
    )


def _op_plan(shape, dtype, channels_last, options):
    """The operators' plan: ``_input_plan`` of a shape of ints (symbolic lengths and
    sizes are specialised to their values, as the plan's tables need them), found in
    one look-up when it is remembered. ``options``: the schema's, ``size`` to
    ``antialias``."""
    size, scale_factor, *flags = options
    shape = tuple(int(n) for n in shape)
    size = None if size is None else tuple(int(n) for n in size)
    scale_factor = None if scale_factor is None else tuple(scale_factor)
    options = (size, scale_factor, *flags)
    key = ("op", shape, dtype, channels_last, *options)
    found = _plan.recall(key)
    if found is None:
        found = _input_plan(shape, dtype, options, channels_last=channels_last)
        _plan.remember(key, found)
    return found


def _op_result(like, shape, channels_last, options, adjoint=False):
    """The fake kernels' result: an uninitialised tensor laid out as the forward's result
    on an input of ``shape`` is (with ``adjoint``: as that input's gradient is). The
    spatial lengths come from the plan of one batch entry and channel, so a symbolic
    batch or channel count stays symbolic."""
    n, c, *spatial = shape
    _known_sizes(options[0])
    found = _op_plan((1, 1, *spatial), torch.float64, channels_last, options)
    spatial = found.input_shape if adjoint else found.output_shape
    spatial = spatial[1:-1] if channels_last else spatial[2:]
    if not channels_last:
        return like.new_empty((n, c, *spatial))
    return like.new_empty((n, *spatial, c)).movedim(-1, 1)  # as _apply returns it


def _known_sizes(size):
    """Refuse a ``size`` entry that is data in the graph (an unbacked SymInt: a tensor's
    value, as ``torch.compile(fullgraph=True)`` reads one), which no plan can be made
    of; it was inductor's ``GuardOnDataDependentSymNode`` from inside the plan."""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

    if size is not None and any(free_unbacked_symbols(n) for n in size):
        raise ValueError(
            "size holds a tensor whose value is data in the graph being recorded (a "
            "tensor read by torch.compile with fullgraph=True); cresize plans the resize "
            "when the graph is recorded, from Python ints: pass size as ints (int(t) "
            "outside the compiled function), or compile without fullgraph (the call then "
            "runs eagerly, a graph break)"
        )


_SCHEMA = (
    "SymInt[]? size, float[]? scale_factor, str mode, bool? align_corners, "
    "bool? recompute_scale_factor, bool antialias, int? num_threads"
)


def _define_operators():
    """cresize::interpolate and cresize::interpolate_backward (None, None before 2.4)."""
    if _custom_op is None:
        return None, None

    @_custom_op(
        "cresize::interpolate", mutates_args=(), schema=f"(Tensor input, {_SCHEMA}) -> Tensor"
    )
    def forward(input, size, scale_factor, mode, align_corners, recompute, antialias, threads):
        channels_last = _channels_last(input)
        options = (size, scale_factor, mode, align_corners, recompute, antialias)
        found = _op_plan(input.shape, input.dtype, channels_last, options)
        half = input.dtype in _HALF
        return _apply(input, found, threads, channels_last, half, linear=_run)

    @forward.register_fake
    def _(input, size, scale_factor, mode, align_corners, recompute, antialias, threads):
        options = (size, scale_factor, mode, align_corners, recompute, antialias)
        return _op_result(input, input.shape, _channels_last(input), options)

    @_custom_op(
        "cresize::interpolate_backward",
        mutates_args=(),
        schema=f"(Tensor grad, SymInt[] input_shape, bool channels_last, {_SCHEMA}) -> Tensor",
    )
    def backward(grad, input_shape, channels_last, *options_and_threads):
        *options, threads = options_and_threads
        found = _op_plan(input_shape, grad.dtype, channels_last, options)
        half = grad.dtype in _HALF
        return _apply(grad, found, threads, channels_last, half, True, linear=_run)

    @backward.register_fake
    def _(grad, input_shape, channels_last, *options_and_threads):
        return _op_result(grad, input_shape, channels_last, options_and_threads[:-1], True)

    def forward_context(ctx, inputs, output):
        input, *ctx.options = inputs
        ctx.input_shape, ctx.channels_last = list(input.shape), _channels_last(input)

    def forward_gradient(ctx, grad):
        gradient = backward(grad, ctx.input_shape, ctx.channels_last, *ctx.options)
        return (gradient, *(None,) * len(ctx.options))

    def backward_context(ctx, inputs, output):
        _, _, _, *ctx.options = inputs

    def backward_gradient(ctx, grad):  # the adjoint of the adjoint: the forward
        return (forward(grad, *ctx.options), *(None,) * (len(ctx.options) + 2))

    forward.register_autograd(forward_gradient, setup_context=forward_context)
    backward.register_autograd(backward_gradient, setup_context=backward_context)
    return forward, backward


_interpolate_op, _interpolate_backward_op = _define_operators()


def _numbers(value, n, name):
    """``size`` or ``scale_factor`` (``name``) with its 0-d tensors and arrays read as
    numbers (``_tensor_numbers``): one number, or a tuple of one per spatial dimension
    (``n``; None: as many as given, where no input is known). The planning
    (``_spec.forward``) checks the entries and takes one number for every resized axis,
    so that an error quotes the argument as passed (``size=0`` as ``0``, not
    ``(0, 0)``)."""
    value = _tensor_numbers(value, name)
    if isinstance(value, (list, tuple)):
        if n is not None and len(value) != n:
            raise ValueError(
                f"{name} has {len(value)} entries but input has {n} spatial dimensions"
            )
        return tuple(value)
    if isinstance(value, (numbers.Real, np.number)) and not isinstance(value, bool):
        return value
    what = "an int" if name == "size" else "a number"  # size takes no float (``length``)
    raise TypeError(
        f"{name} must be {what} or a sequence of {'them' if n is None else n}; got {value!r}"
    )


def _per_axis(value, n, name):
    """``size`` or ``scale_factor`` (``name``) as one checked entry per spatial dimension
    (``n``; None: as many as given, ``Resize``'s check when it is made), for the
    operator's schema: ``_numbers``'s entries checked by the one rule of each
    (``_spec.length``, ``_spec.factor``), quoting the argument as passed (the whole
    sequence, where one entry of it is refused)."""
    value = _numbers(value, n, name)
    check = _spec.length if name == "size" else _spec.factor
    if isinstance(value, tuple):
        return [check(v, name, value) for v in value]
    return [check(value, name)] * (n or 1)


def _tensor_numbers(value, name):
    """``size`` or ``scale_factor`` (``name``) with its 0-d tensors (alone or in a
    sequence) as Python numbers, as ``F.interpolate`` takes them: integer ones in
    ``size``, integer and floating ones in ``scale_factor`` (read as ``float(t)``, as
    PyTorch's recomputed scale reads them; it takes them only where it recomputes the
    scale, ``recompute_scale_factor=True`` and ``area``: its kernels' schema has
    ``float[]``; cresize in every mode). A 0-d NumPy array alone is its value: an integer
    one in ``size`` (as ``F.interpolate`` takes one, as ``operator.index`` does, and no
    sequence of them), an integer or floating one in ``scale_factor`` (as every float
    argument takes one, ``_spec.real``). Symbolic ints (``torch.SymInt``, from a shape
    while a graph is recorded) are their values: the plan's tables need them (a guard
    specialises them, as the input's spatial lengths are)."""
    factor = name == "scale_factor"

    def plain(value):
        if isinstance(value, torch.SymInt):
            return int(value)
        if not isinstance(value, torch.Tensor):
            return value
        if (
            value.dim() != 0
            or value.dtype.is_complex
            or value.dtype == torch.bool
            or (value.dtype.is_floating_point and not factor)
        ):
            what = "a number, a 0-d real" if factor else "an int, a 0-d integer"
            raise TypeError(f"{name} must be {what} tensor or a sequence of them; got {value!r}")
        if value.requires_grad:  # float() warned (F.interpolate does not)
            value = value.detach()
        return float(value) if factor else int(value)

    # under torch.compile the array's dtype is a graph break, then eager
    if isinstance(value, np.ndarray) and value.ndim == 0:
        if value.dtype.kind in "iu":  # as operator.index takes (not float, bool, object)
            return _spec.integer(value, name, "an int")
        if factor and value.dtype.kind == "f":
            return _spec.real(value, name, "a number")
    return [plain(v) for v in value] if isinstance(value, (list, tuple)) else plain(value)


_CHANNELS_LAST = {4: torch.channels_last, 5: torch.channels_last_3d}
# c10's order of the dimensions, smallest stride first, but N (last, checked apart)
_STRIDE_ORDER = {4: (1, 3, 2), 5: (1, 4, 3, 2)}


def _plans_channels_last(found):
    """Whether ``found`` (an ``_input_plan``) is the plan of a channels-last input's
    (N, *spatial, C) view: its resized axes start at 1, not 2."""
    return found.axes[0] == 1


def _channels_last(tensor):
    """Whether ``F.interpolate`` returns ``tensor``'s result channels-last.

    PyTorch's ``suggest_memory_format`` rule (c10's ``is_channels_last_strides_2d``
    / ``_3d``): the strides grow in the order C, W, H, (D,) N; ambiguous cases
    (size-1 dimensions that fit both orders) are contiguous.
    """
    ndim = tensor.dim()
    if ndim not in (4, 5):
        return False
    # Contiguous and not channels-last contiguous (C++ flags, 0.1 us against 0.5 for the
    # loop): never channels-last strides (tests/test_torch_adapter.py checks every case).
    # torch.func.vmap's tensors answer only the first question: the loop decides there
    try:
        if tensor.is_contiguous() and not tensor.is_contiguous(memory_format=_CHANNELS_LAST[ndim]):
            return False
    except RuntimeError:
        pass
    sizes, strides = tensor.shape, tensor.stride()
    if strides[1] == 0:
        return False
    smallest = 0
    for d in _STRIDE_ORDER[ndim]:
        if sizes[d] == 0 or strides[d] < smallest:
            return False
        smallest = strides[d] * sizes[d]
    return sizes[0] != 0 and strides[0] >= smallest and smallest != strides[1]


def _frozen(value):
    """An unchanging copy of an option with its type, for ``Resize``'s key: 4, 4.0 and
    True are equal in Python, but only the one that passed the checks may find its plan."""
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_frozen(v) for v in value))
    if isinstance(value, torch.Tensor):
        return (torch.Tensor, value.dtype, tuple(value.shape), tuple(value.flatten().tolist()))
    if isinstance(value, np.ndarray):  # by value: one changed in place is another size
        return (np.ndarray, value.dtype, value.shape, tuple(value.flatten().tolist()))
    return (type(value), value)
