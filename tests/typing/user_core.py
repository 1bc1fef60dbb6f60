"""cresize, cresize.testing and a plan as a type-checked user calls them (tests/test_typing.py)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from typing_extensions import assert_type

import cresize
import cresize.testing

Array = np.ndarray[Any, np.dtype[Any]]
F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

x = np.zeros((4, 6, 6), np.float32)
cresize.resize(x, scale_factor=(2, 0.5), mode="nearest_exact", axes=[1, 2])
cresize.resize(x, scale_factor=np.float32(0.5), mode="nearest-exact", align_corners=None)
cresize.resize(x, np.int64(12), mode="linear", antialias=True)
cresize.resize(x, (np.int64(3), 3), mode="cubic", axes=-1)
mode: Literal["trilinear"] = "trilinear"
cresize.resize(x, 3, mode=mode)
for m in cresize.MODES:
    cresize.resize(x, 3, mode=m)
out = np.empty((4, 12, 12), np.float32)

p = cresize.plan((4, 6, 6), 12, dtype=np.float32)
cresize.plan(x.shape, (12, 12), dtype="float64", mode="cubic", num_threads=-1)
cresize.plan([4, 6, 6], scale_factor=0.5, dtype=x.dtype, axes=(1, 2))
assert_type(p, cresize.Plan)
assert_type(p.mode, str)
assert_type(p.nbytes, int)
cresize.set_cache_limit(2**20)
cresize.clear_cache()
assert_type(cresize.openmp_enabled(), bool)
assert_type(cresize.MODES, tuple[str, str, str, str, str, str])
assert_type(cresize.__version__, str)


# refused
cresize.resize(x, "12")  # type: ignore[arg-type]
cresize.resize(x, 12, mode=3)  # type: ignore[arg-type]
cresize.resize(x, 12, out=[1])  # type: ignore[arg-type]
cresize.resize(x, 12, "bilinear")  # type: ignore[call-arg, arg-type]
cresize.resize(x, 12, scale_factor="2")  # type: ignore[arg-type]
cresize.resize(x, 12, num_thread=2)  # type: ignore[call-arg]
cresize.resize_backward(x, 12)  # type: ignore[arg-type]
cresize.weights(6.0, 12)  # type: ignore[arg-type]
p(x, num_threads="2")  # type: ignore[arg-type]
p.run_region(x, (slice(0, 1),), True)  # type: ignore[call-arg]
p.input_shape = (1,)  # type: ignore[misc]
