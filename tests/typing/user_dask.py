"""cresize.dask as a type-checked user calls it (tests/test_typing.py)."""

from __future__ import annotations

import dask.array as da
import numpy as np

import cresize.dask

x = da.zeros((8, 8), chunks=4)
y: da.Array = cresize.dask.resize(x, 4, mode="area")
cresize.dask.resize(np.zeros((8, 8), np.uint8), scale_factor=np.float32(0.5), chunks="auto")
g: da.Array = cresize.dask.resize_backward(y, (8, 8), num_threads=np.int64(2))
levels: list[da.Array] = cresize.dask.pyramid(x, 3, axes=(0, 1))

i0, f0 = np.zeros((), np.int64), np.zeros((), np.float64)
cresize.dask.pyramid(x, i0, num_threads=i0)

# refused
cresize.dask.pyramid(x, f0)  # type: ignore[arg-type]
cresize.dask.pyramid(x, "3")  # type: ignore[arg-type]
