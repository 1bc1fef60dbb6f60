"""Type stubs for the compiled executor (see _fast.pyx)."""

from collections.abc import Callable
from typing import Any

import numpy as np

LINES: int
PLANES: int
FUSED: int
TO_FLOAT: int
TO_INT: int
INTEGER: int

def run_step(
    kind: int,
    src: np.ndarray,
    dst: np.ndarray,
    args: tuple[Any, ...],
    num_threads: int,
    work: int,
    row: int,
    slots: int,
    min_work: int,
) -> None: ...
def run_steps(
    steps: list[tuple[Any, ...]],
    src: np.ndarray,
    out: np.ndarray | None,
    num_threads: int,
    min_work: int,
) -> np.ndarray: ...
def fast_key(
    x: np.ndarray,
    size: object,
    scale_factor: object,
    mode: object,
    align_corners: object,
    antialias: object,
    axes: object,
) -> tuple[Any, ...] | None: ...
def cached_resize(
    table: dict[Any, Any],
    x: np.ndarray,
    size: object,
    scale_factor: object,
    mode: object,
    align_corners: object,
    antialias: object,
    axes: object,
    threads: Callable[[int | None], int],
    num_threads: int | None,
    min_work: int,
) -> np.ndarray | None: ...
