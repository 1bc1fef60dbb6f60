"""cresize.torch as a type-checked user calls it (tests/test_typing.py)."""

from __future__ import annotations

import numpy as np
import torch
from typing_extensions import assert_type

import cresize
import cresize.torch

t = torch.zeros(1, 3, 8, 8)
assert_type(cresize.torch.interpolate(t, size=(4, 4), mode="bilinear"), torch.Tensor)
assert_type(cresize.torch.interpolate(t, 4, None, "bicubic", True), torch.Tensor)
assert_type(cresize.torch.interpolate(t, scale_factor=0.5, antialias=True), torch.Tensor)
assert_type(cresize.torch.interpolate(t, scale_factor=(0.5, 2.0), num_threads=1), torch.Tensor)
layer = cresize.torch.Resize(scale_factor=0.5, mode="lanczos3", antialias=True)
y: torch.Tensor = layer(t)  # nn.Module.__call__ is Any in PyTorch's own stubs
assert_type(layer.forward(t), torch.Tensor)
assert_type(layer.plan, cresize.Plan | None)

# size: an int (a 0-d integer array alone too), a 0-d tensor, or a sequence of them;
# scale_factor: a number or a sequence (0-d arrays in it); no 1-d array
i0 = np.zeros((), np.int64)
f0 = np.zeros((), np.float64)
i1, f1 = np.zeros(2, np.int64), np.zeros(2, np.float64)
cresize.torch.interpolate(t, size=i0, num_threads=i0)
cresize.torch.interpolate(t, size=(i0, np.uint8(4)))
cresize.torch.interpolate(t, size=torch.tensor(4))
cresize.torch.interpolate(t, size=[torch.tensor(4), 4])
cresize.torch.interpolate(t, size=t.shape[2:])
cresize.torch.interpolate(t, scale_factor=np.float32(0.5))
cresize.torch.interpolate(t, scale_factor=(f0, 2.0))
cresize.torch.Resize(i0)
cresize.torch.Resize(scale_factor=[f0, i0])

# refused
cresize.torch.interpolate(t, size=i1)  # type: ignore[arg-type]
cresize.torch.interpolate(t, size=f0)  # type: ignore[arg-type]
cresize.torch.interpolate(t, scale_factor=f0)  # type: ignore[arg-type]
cresize.torch.interpolate(t, scale_factor=f1)  # type: ignore[arg-type]
cresize.torch.Resize(i1)  # type: ignore[arg-type]
cresize.torch.interpolate(np.zeros((1, 1, 4)), 8)  # type: ignore[arg-type]
cresize.torch.interpolate(t, 8, num_thread=1)  # type: ignore[call-arg]
layer.forward(np.zeros((1, 1, 4)))  # type: ignore[arg-type]
