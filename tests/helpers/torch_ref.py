"""PyTorch ``F.interpolate`` as an outside reference, for the test modules.

Import it only after ``pytest.importorskip("torch")``.

What this wrapper knows about PyTorch 2.13 (CPU), found by running it
(see test_oracle.py, which pins each fact down):

* nearest / nearest-exact indices are computed with a float32 scale, so a
  few indices at exact-integer boundaries are off by one from SPEC's exact
  rule (more often for float32 tensors than for float64 ones).  Use
  ``torch_nearest_index`` + ``oracle.nearest_index_mismatches``.
* linear/bilinear/trilinear (antialias=False, align_corners=False) and every
  antialias mode copy an axis whose output length equals its input length,
  even when a scale_factor != 1 was given (SPEC then uses s = 1/f).
  ``torch_copies_axis`` says when that happens; avoid those cases.
* antialias=True forward on a 4-D NCHW-contiguous tensor returns wrong values
  when the output width is 1 and the height is resized (every output row
  equals the first one); the backward is right.  ``torch_resize`` avoids it
  by resizing the transposed image (H <-> W swapped), the same operator.
* ``mode="lanczos"`` (antialiased Lanczos-3) exists only with
  ``antialias=True``, 4-D input and ``align_corners=False``.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

TORCH_DTYPES = {np.dtype(np.float32): torch.float32, np.dtype(np.float64): torch.float64}

# cresize / oracle mode name for a torch mode name.
CRESIZE_MODE = {"lanczos": "lanczos3"}

LINEAR_FAMILY = ("linear", "bilinear", "trilinear")


def _as_list(v, n):
    if v is None:
        return None
    if isinstance(v, (int, float)):
        return [v] * n
    return list(v)


def torch_copies_axis(mode, antialias, align_corners, in_size, out_size, scale_factor):
    """True where PyTorch copies an unchanged-length axis although SPEC does not (f != 1, I > 1)."""
    if scale_factor is None or out_size != in_size or in_size == 1 or scale_factor == 1.0:
        return False
    if antialias:
        return True
    return mode in LINEAR_FAMILY and not align_corners


def _interp(xt, size, scale_factor, mode, align_corners, antialias):
    kwargs = {"mode": mode, "antialias": antialias}
    if mode not in ("nearest", "nearest-exact", "area"):
        kwargs["align_corners"] = align_corners
    if size is not None:
        kwargs["size"] = tuple(int(s) for s in size)
    else:
        kwargs["scale_factor"] = tuple(float(f) for f in scale_factor)
    return F.interpolate(xt, **kwargs)


def torch_resize(
    x,
    g=None,
    *,
    size=None,
    scale_factor=None,
    mode="bilinear",
    align_corners=False,
    antialias=False,
):
    """``F.interpolate`` on a NumPy N, C, *spatial array, in its dtype.

    Returns ``(y, grad_x)`` as NumPy arrays of x's dtype; ``grad_x`` is
    ``x.grad`` after ``(y * g).sum().backward()`` (None when ``g`` is None).
    ``size`` / ``scale_factor`` are per spatial axis (lists).
    """
    nsp = x.ndim - 2
    size = _as_list(size, nsp)
    scale_factor = _as_list(scale_factor, nsp)
    dtype = TORCH_DTYPES[np.dtype(x.dtype)]
    xt = torch.tensor(np.ascontiguousarray(x), dtype=dtype, requires_grad=g is not None)

    if size is not None:
        out_w = size[-1]
    else:
        out_w = int(np.floor(x.shape[-1] * float(scale_factor[-1])))
    swap = antialias and x.ndim == 4 and out_w == 1 and x.shape[-1] >= 1
    if swap:  # PyTorch 2.13 bug, see the module docstring: resize the transposed image
        y = _interp(
            xt.transpose(-1, -2).contiguous(),
            None if size is None else size[::-1],
            None if scale_factor is None else scale_factor[::-1],
            mode,
            align_corners,
            antialias,
        )
        y = y.transpose(-1, -2)
    else:
        y = _interp(xt, size, scale_factor, mode, align_corners, antialias)

    grad = None
    if g is not None:
        gt = torch.tensor(np.ascontiguousarray(g), dtype=dtype)
        assert tuple(gt.shape) == tuple(y.shape), (gt.shape, y.shape)
        (y * gt).sum().backward()
        grad = xt.grad.detach().numpy().copy()
    return y.detach().numpy().copy(), grad


def torch_nearest_index(
    shape, axis, *, size=None, scale_factor=None, mode="nearest", dtype=np.float64
):
    """PyTorch's nearest index map along ``axis`` (a spatial axis of ``shape``).

    Resizes an array holding ``arange(shape[axis])`` along ``axis`` with
    exactly the same call, so the map is the one that call uses.
    """
    n = shape[axis]
    probe = np.broadcast_to(
        np.arange(n, dtype=dtype).reshape([n if a == axis else 1 for a in range(len(shape))]), shape
    ).copy()
    y, _ = torch_resize(probe, size=size, scale_factor=scale_factor, mode=mode)
    idx = np.moveaxis(y, axis, -1).reshape(-1, y.shape[axis])[0]
    return idx.astype(np.int64)


def torch_matrix(
    mode,
    in_size,
    out_size=None,
    *,
    scale_factor=None,
    align_corners=False,
    antialias=False,
    dtype=np.float64,
):
    """The (O, I) matrix of one axis as PyTorch applies it, read off by resizing the unit vectors.

    The unit vectors sit on the channel axis; 3-D input (N, C, L) for the
    1-D modes, 4-D (N, C, 1, L) for bicubic, the antialias modes and lanczos.
    """
    eye = np.eye(in_size, dtype=dtype)
    if mode in ("bilinear", "bicubic", "lanczos") or antialias:
        x = eye.reshape(1, in_size, 1, in_size)
        y, _ = torch_resize(
            x,
            size=None if out_size is None else [1, out_size],
            scale_factor=None if scale_factor is None else [1.0, scale_factor],
            mode=mode,
            align_corners=align_corners,
            antialias=antialias,
        )
        return y[0, :, 0, :].T.astype(np.float64)
    x = eye.reshape(1, in_size, in_size)
    y, _ = torch_resize(
        x,
        size=None if out_size is None else [out_size],
        scale_factor=None if scale_factor is None else [scale_factor],
        mode=mode,
        align_corners=align_corners,
        antialias=antialias,
    )
    return y[0].T.astype(np.float64)
