"""Type stubs for the compiled gather kernels (see _kernels.pyx)."""

import numpy as np
import numpy.typing as npt

_F = npt.NDArray[np.floating]
_I = npt.NDArray[np.intp]

import enum

class Order(enum.IntEnum):
    RING = 0
    VERTICAL_FIRST = 1
    DIRECT = 2

class Kind(enum.IntEnum):
    LINES = 0
    PLANES = 1
    FUSED = 2

# Taps.row_args: (index, weight, count, start, select[, period])
_RowArgs = tuple[_I, _F, _I, _I, bool] | tuple[_I, _F, _I, _I, bool, tuple[int, int, int]]

NO_BOUND: int
MAX_BLOCK_CHANNELS: int
MAX_PIXEL_CHANNELS: int
INT_ROW_CHUNK: int

class Step:
    kind: int
    wide: bool
    src_dtype: np.dtype
    dst_dtype: np.dtype
    src_type: int
    dst_type: int
    src_size: int
    dst_size: int
    most_threads: int
    quick: bool
    @property
    def blocks(self) -> tuple[int, int]: ...
    @property
    def channels(self) -> int: ...
    @property
    def unit_blocks(self) -> bool: ...
    @property
    def same_x_weights(self) -> bool: ...
    @property
    def period(self) -> tuple[int, int, int]: ...
    @property
    def exact_float32(self) -> bool: ...
    def __call__(
        self, src: npt.NDArray[np.generic], dst: npt.NDArray[np.generic], num_threads: int
    ) -> None: ...

def make_step(
    kind: int,
    n_planes: int,
    in_h: int,
    in_row: int,
    y: tuple[_I, _F, _I] | None = None,
    x: _RowArgs | None = None,
    channels: int = 1,
    order: int = 2,
    slots: int = 1,
    x_block: int = 0,
    y_block: int = 0,
    most_threads: int = ...,
    first_product: bool = False,
    src_dtype: npt.DTypeLike | None = None,
    dst_dtype: npt.DTypeLike | None = None,
    quick: bool = False,
) -> Step: ...
def openmp_enabled() -> bool: ...
def max_threads() -> int: ...
def gather_lines(
    src: _F, dst: _F, index: _I, weight: _F, count: _I, start: _I, select: bool, num_threads: int
) -> None: ...
def gather_planes(src: _F, dst: _F, index: _I, weight: _F, count: _I, num_threads: int) -> None: ...
def resize_2d(
    src: _F,
    dst: _F,
    channels: int,
    y_index: _I,
    y_weight: _F,
    y_count: _I,
    x_index: _I,
    x_weight: _F,
    x_count: _I,
    x_start: _I,
    x_select: bool,
    order: int,
    scratch: _F,
    tags: _I,
    num_threads: int,
) -> None: ...
def resize_2d_int(
    src: npt.NDArray[np.generic],
    dst: npt.NDArray[np.generic],
    channels: int,
    y: tuple[_I, _F, _I],
    x: _RowArgs,
    order: int,
    scratch: _F,
    tags: _I,
    num_threads: int,
    x_block: int = 0,
) -> None: ...
def value_weights(weight: _F, channels: int) -> _F: ...
def scratch_length(
    order: int, slots: int, in_row: int, out_row: int, float_output: bool, channels: int = 1
) -> int: ...

SIMD_LEVELS: tuple[str, ...]
simd_requested: str | None

def simd_level() -> str: ...
def simd_avx512bw() -> bool: ...
def _unit_rows_unrolled(on: bool | None = None) -> bool: ...
def integers_to_float(
    src: npt.NDArray[np.integer], dst: npt.NDArray[np.float32], num_threads: int
) -> None: ...
def float_to_integers(
    src: npt.NDArray[np.float32], dst: npt.NDArray[np.integer], num_threads: int
) -> None: ...

STEERING_MODES: tuple[str, ...]
steering_source: str

quick_source: str

def set_quick_thread(on: bool) -> bool: ...
def quick_thread() -> tuple[bool, str]: ...
def quick_counts() -> tuple[int, int, int, int]: ...
def set_thread_steering(mode: str) -> str: ...
def thread_steering() -> tuple[str, str]: ...
def team_steering(mode: int | None = None) -> int: ...
def _team_loadavg(path: str | bytes | None = None) -> str: ...
def _team_parse_loadavg(text: bytes) -> int: ...
def _team_loadavg_reads() -> int: ...
def _team_late(late_ns: int | None = None) -> int: ...
