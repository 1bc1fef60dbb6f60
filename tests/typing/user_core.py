"""cresize, cresize.testing and a plan as a type-checked user calls them (tests/test_typing.py)."""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from typing_extensions import assert_type

import cresize
import cresize.testing

Array = npt.NDArray[Any]
F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]

x = np.zeros((4, 6, 6), np.float32)
# the result has the input's dtype
assert_type(cresize.resize(x, (12, 12)), F32)
assert_type(cresize.resize(np.zeros((3, 3), np.uint8), 4), npt.NDArray[np.uint8])
assert_type(cresize.resize(np.zeros((3, 3), np.float16), [4, 5]), npt.NDArray[np.float16])
assert_type(cresize.resize([[1.0, 2.0]], 4), Array)  # array_like: dtype unknown
y: F32 = cresize.resize(x, scale_factor=2.0, mode="bicubic", axes=(1, 2))
cresize.resize(x, scale_factor=(2, 0.5), mode="nearest_exact", axes=[1, 2])
cresize.resize(x, scale_factor=np.float32(0.5), mode="nearest-exact", align_corners=None)
cresize.resize(x, np.int64(12), mode="linear", antialias=True)
cresize.resize(x, (np.int64(3), 3), mode="cubic", axes=-1)
mode: Literal["trilinear"] = "trilinear"
cresize.resize(x, 3, mode=mode)
for m in cresize.MODES:
    cresize.resize(x, 3, mode=m)
out = np.empty((4, 12, 12), np.float32)
assert_type(cresize.resize(x, 12, out=out, num_threads=2), F32)
assert_type(cresize.resize_backward(y, x.shape), F32)
assert_type(cresize.resize_backward(np.ones((2, 8)), (2, 4), mode="area", axes=1), F64)
assert_type(cresize.resize_backward([[1.0]], [2, 2], scale_factor=0.5), Array)
assert_type(cresize.weights(6, 12, mode="lanczos3"), F64)
assert_type(cresize.weights(6, scale_factor=2.0, antialias=True), F64)

p = cresize.plan((4, 6, 6), 12, dtype=np.float32)
cresize.plan(x.shape, (12, 12), dtype="float64", mode="cubic", num_threads=-1)
cresize.plan([4, 6, 6], scale_factor=0.5, dtype=x.dtype, axes=(1, 2))
assert_type(p, cresize.Plan)
assert_type(p(x), F32)
assert_type(p(x, out), F32)
assert_type(p(x, out=out, num_threads=1), F32)
assert_type(p([[1.0]]), Array)  # array_like, as resize takes
assert_type(p.backward(y), F32)
assert_type(p.backward([[1.0]], num_threads=1), Array)
assert_type(p.input_shape, tuple[int, ...])
assert_type(p.output_shape, tuple[int, ...])
assert_type(p.axes, tuple[int, ...])
assert_type(p.mode, str)
assert_type(p.dtype, np.dtype[Any])
assert_type(p.weights, dict[int, F64])
assert_type(p.nbytes, int)
region = (slice(None), slice(0, 4), slice(0, 4))
box = p.input_region(region)
assert_type(box, tuple[slice, ...])
assert_type(p.input_region([slice(0, 1)] * 3, backward=True), tuple[slice, ...])
assert_type(p.run_region(x[box], region), F32)
assert_type(p.run_region(x[box], region, backward=False, out=None, num_threads=1), F32)
assert_type(cresize.cache_info(), dict[str, int])
assert_type(cresize.set_cache_limit(2**20), int)
assert_type(cresize.set_result_cache_limit(2**28), int)
assert_type(cresize.set_thread_steering("auto"), str)
cresize.clear_cache()
assert_type(cresize.openmp_enabled(), bool)
assert_type(cresize.MODES, tuple[str, str, str, str, str, str])
assert_type(cresize.__version__, str)

assert_type(cresize.testing.reference_resize(x, 12), F64)
assert_type(cresize.testing.reference_backward(y, x.shape), F64)
assert_type(cresize.testing.reference_matrices((6, 6), 3), dict[int, F64])

# a 0-d array is one int or float where one is taken (as _spec.integer and _spec.real
# take it); a 1-d array a sequence of them
i0 = np.zeros((), np.int64)
u0 = np.zeros((), np.uint8)
f0 = np.zeros((), np.float32)
i1 = np.zeros(2, np.int64)
f1 = np.zeros(2, np.float64)
b0 = np.zeros((), np.bool_)
i2 = np.zeros((2, 2), np.int64)
f2 = np.zeros((2, 2), np.float64)
assert_type(cresize.resize(x, i0, axes=u0, num_threads=i0), F32)
cresize.resize(x, (i0, 3), axes=[1, u0])
cresize.resize(x, i1, axes=i1)
cresize.resize(x, scale_factor=f0)
cresize.resize(x, scale_factor=i0)
cresize.resize(x, scale_factor=(f0, i0, 2.0))
cresize.resize(x, scale_factor=f1)
cresize.resize_backward(y, i1, axes=i0, num_threads=u0)
cresize.resize_backward(y, (i0, 6, u0))
cresize.weights(i0, u0, scale_factor=f0)
cresize.plan(x.shape, i0, num_threads=i0)
p(x, num_threads=i0)
p.backward(y, num_threads=u0)
cresize.set_cache_limit(i0)
cresize.set_result_cache_limit(u0)
cresize.testing.check_adjoint((4, 4), i0, seed=i0, rtol=f0)
cresize.testing.check_gradient((4, 4), 2, n_directions=i0, step=f0, seed=u0, rtol=i0)
cresize.testing.check_reference(i1, scale_factor=f1, rtol=f0)

# refused
cresize.resize(x, f0)  # type: ignore[arg-type]
cresize.resize(x, i2)  # type: ignore[arg-type]
cresize.resize(x, 3, num_threads=i1)  # type: ignore[arg-type]
cresize.resize(x, 3, num_threads=b0)  # type: ignore[arg-type]
cresize.resize(x, 3, axes=f0)  # type: ignore[arg-type]
cresize.resize(x, scale_factor=f2)  # type: ignore[arg-type]
cresize.weights(6, scale_factor=f1)  # type: ignore[arg-type]
cresize.weights(f0, 3)  # type: ignore[arg-type]
cresize.set_cache_limit(f0)  # type: ignore[arg-type]
cresize.testing.check_adjoint((4, 4), 2, seed=f0)  # type: ignore[arg-type]
cresize.testing.check_adjoint((4, 4), 2, rtol=f1)  # type: ignore[arg-type]
cresize.resize(x, "12")  # type: ignore[arg-type]
cresize.resize(x, 12, mode=3)  # type: ignore[call-overload]
cresize.resize(x, 12, out=[1])  # type: ignore[call-overload]
cresize.resize(x, 12, "bilinear")  # type: ignore[call-overload]
cresize.resize(x, 12, scale_factor="2")  # type: ignore[arg-type]
cresize.resize(x, 12, num_thread=2)  # type: ignore[call-overload]
cresize.resize_backward(y, 12)  # type: ignore[call-overload]
cresize.weights(6.0, 12)  # type: ignore[arg-type]
p(x, num_threads="2")  # type: ignore[call-overload]
p.run_region(x, (slice(0, 1),), True)  # type: ignore[call-overload]
p.input_shape = (1,)  # type: ignore[misc]
cresize.plan((4, 6, 6), 12, dtype=2.5)  # type: ignore[arg-type]
