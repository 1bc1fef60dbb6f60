"""Type stubs for the compiled executor (see _fast.pyx)."""

from typing import Any, overload

import numpy as np
import numpy.typing as npt
from numpy.typing import ArrayLike

from cresize._spec import Int, Scalar

LINES: int
PLANES: int
FUSED: int
TO_FLOAT: int
TO_INT: int

def run_step(
    kind: int,
    src: np.ndarray,
    dst: np.ndarray,
    args: Any,
    num_threads: int,
    work: int,
    min_work: int,
) -> None: ...
def new_result(shape: tuple[int, ...], dtype: np.dtype[Any]) -> np.ndarray: ...
def huge_results(on: bool | None = None) -> bool: ...
def fast_hits(reset: bool = False) -> int: ...
def forget() -> None: ...
def recent_slots(n: int | None = None) -> int: ...
def default_threads() -> int: ...
def defaults_read() -> int: ...

POOL_DEFAULT: int

def pool_limit(nbytes: int) -> None: ...
def pool_clear() -> None: ...
def pool_info() -> dict[str, int]: ...
def pool_madv_free(on: bool | None = None) -> bool: ...
def pool_use(on: bool | None = None) -> bool: ...
def loop_copy_limit(limit: int | None = None) -> int: ...
def run_steps(
    steps: list[tuple[Any, ...]],
    src: np.ndarray,
    out: np.ndarray | None,
    num_threads: int,
) -> np.ndarray: ...

class Direct:
    steps: list[tuple[Any, ...]]
    shape: tuple[int, ...]
    dtype: np.dtype
    out_shape: tuple[int, ...]
    out_dtype: np.dtype
    def __init__(
        self, steps: list[tuple[Any, ...]], shape: tuple[int, ...], dtype: np.dtype
    ) -> None: ...

class PlanBase:
    _fwd: Direct | None
    _bwd: Direct | None
    _num_threads: int | None
    # The result has the input's dtype (the plan's): known for an array of a known dtype.
    @overload
    def __call__(
        self,
        x: npt.NDArray[Scalar],
        out: np.ndarray | None = None,
        *,
        num_threads: Int | None = None,
    ) -> npt.NDArray[Scalar]: ...
    @overload
    def __call__(
        self, x: ArrayLike, out: np.ndarray | None = None, *, num_threads: Int | None = None
    ) -> npt.NDArray[Any]: ...
    @overload
    def backward(
        self,
        grad_output: npt.NDArray[Scalar],
        out: np.ndarray | None = None,
        *,
        num_threads: Int | None = None,
    ) -> npt.NDArray[Scalar]: ...
    @overload
    def backward(
        self,
        grad_output: ArrayLike,
        out: np.ndarray | None = None,
        *,
        num_threads: Int | None = None,
    ) -> npt.NDArray[Any]: ...
    # Provided by the subclass (``_plan.Plan``): the checked path.
    def _run(
        self,
        program: Any,
        x: Any,
        out: np.ndarray | None,
        shape: tuple[int, ...],
        out_shape: tuple[int, ...],
        name: str,
        num_threads: int | None,
    ) -> np.ndarray: ...

def fast_key(
    x: Any,  # anything with .shape and .dtype (an array, a torch tensor)
    size: object,
    scale_factor: object,
    mode: object,
    align_corners: object,
    antialias: object,
    axes: object,
) -> tuple[Any, ...] | None: ...
def recall(table: dict[Any, Any], key: object) -> Any: ...
def run_view(
    plan: PlanBase,
    address: int,
    shape: tuple[int, ...] | None,
    strides: tuple[int, ...],
    dtype: np.dtype[Any] | None,
    num_threads: object,
    adjoint: bool = False,
) -> np.ndarray | None: ...
def cached_resize(
    table: dict[Any, Any],
    x: np.ndarray,
    size: object,
    scale_factor: object,
    mode: object,
    align_corners: object,
    antialias: object,
    axes: object,
    num_threads: object,  # checked (``_threads.resolve``)
    out: object = None,
    backward: bool = False,
) -> np.ndarray | None: ...
