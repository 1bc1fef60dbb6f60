"""nearest and nearest-exact on floats move pixels (``_simd_select.h``, ``Sizes.copy``):
each output value is its input value plus 0 (the bits of the sums from 0 that the
pixel kernels computed before: ``-0`` comes out ``+0``, a signalling NaN quiet), or
times 1 where the step's sums start from their first product (a one-axis resize of
channels-last rows: ``-0`` stays ``-0``), at every SIMD level and thread count, and
read or write nothing outside the arrays."""

import os

import numpy as np
import pytest

import cresize
from cresize import _kernels, _plan
from helpers.guard import run_guarded
from helpers.oracle import taps

LEVELS = ("none", "sse2", "avx2", "avx512")

#: (input height, width, output height, width): x0.5 (the AVX2 groups of planar rows and
#: of 3-value pixels; 41 outputs: five groups and one pixel), other shrinks (0.75x, x1/3:
#: the AVX2 groups of 3-value pixels of any index, 0.75x's runs of 3 input pixels, 24
#: pixels a group, with and without a tail, from the first or the second pixel
#: (nearest-exact), and where the runs stop mid-row (202 -> 150); 4-value pixels two by
#: two), enlarging,
#: rows shorter than a group, rows of one pixel.
SIZES = [
    (16, 40, 8, 20),
    (8, 82, 4, 41),
    (6, 96, 4, 72),
    (4, 136, 3, 102),
    (4, 202, 3, 150),
    (6, 99, 3, 33),
    (9, 66, 4, 33),
    (7, 33, 3, 16),
    (12, 50, 9, 37),
    (10, 48, 3, 16),
    (3, 64, 6, 100),
    (4, 17, 2, 8),
    (4, 1, 2, 1),
    (5, 2, 3, 1),
]


def index(n_in, n_out, mode):
    """Input index of each output: the oracle's taps (docs/spec.md section 3), one of
    weight 1 each."""
    rows = taps(n_in, n_out, mode)
    assert all(len(row) == 1 and row[0][1] == 1.0 for row in rows)
    return np.array([row[0][0] for row in rows])


def special(rng, shape, dtype):
    """Normal values with -0, +0, infinities, quiet and signalling NaNs and negative
    subnormals strewn through them."""
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    n = flat.size
    flat[rng.integers(0, n, max(1, n // 4))] = -0.0
    flat[rng.integers(0, n, max(1, n // 20))] = np.inf
    flat[rng.integers(0, n, max(1, n // 20))] = np.nan
    bits = flat.view(np.uint32 if dtype == np.float32 else np.uint64)
    signalling = 0x7F800001 if dtype == np.float32 else 0x7FF0000000000001
    subnormal = 0x80000001 if dtype == np.float32 else 0x8000000000000001
    bits[rng.integers(0, n, max(1, n // 20))] = signalling
    bits[rng.integers(0, n, max(1, n // 20))] = subnormal
    return x


@pytest.fixture
def level():
    """Restores the SIMD level the tests run at."""
    before = os.environ.get("CRESIZE_SIMD")
    yield
    if before is None:
        os.environ.pop("CRESIZE_SIMD", None)
    else:
        os.environ["CRESIZE_SIMD"] = before
    _kernels._init_simd()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8, np.uint16])
@pytest.mark.parametrize("channels", [None, 1, 2, 3, 4, 5])
def test_nearest_outputs_are_the_input_values(level, dtype, channels):
    """Both axes resized: output ``(i, j)`` is ``0 + x[iy[i], ix[j]]`` for floats (the
    input's values, +0 for -0, NaNs quiet) and ``x[iy[i], ix[j]]`` for integers."""
    rng = np.random.default_rng(6)
    for name in LEVELS:
        os.environ["CRESIZE_SIMD"] = name
        _kernels._init_simd()
        for ih, iw, oh, ow in SIZES:
            if (oh == ih) or (ow == iw):
                continue
            shape = (ih, iw) if channels is None else (ih, iw, channels)
            if np.dtype(dtype).kind == "f":
                x = special(rng, shape, dtype)
            else:
                x = rng.integers(0, np.iinfo(dtype).max, shape, endpoint=True).astype(dtype)
            for mode in ("nearest", "nearest-exact"):
                picked = x[index(ih, oh, mode)][:, index(iw, ow, mode)]
                with np.errstate(invalid="ignore"):  # signalling NaNs come out quiet
                    want = np.add(dtype(0), picked) if np.dtype(dtype).kind == "f" else picked
                for threads in (1, 2):
                    got = cresize.resize(x, (oh, ow), axes=(0, 1), mode=mode, num_threads=threads)
                    assert got.tobytes() == want.tobytes(), (name, shape, oh, ow, mode, threads)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("channels", [2, 3, 4])
def test_one_axis_of_pixels_keeps_the_first_product(level, dtype, channels):
    """The width alone of channels-last rows (sums from their first product, a
    ``first_product`` step): ``1 * x``, so -0 stays -0 and a signalling NaN comes out
    quiet; one row is shared between two threads (fewer rows than threads)."""
    rng = np.random.default_rng(7)
    for name in LEVELS:
        os.environ["CRESIZE_SIMD"] = name
        _kernels._init_simd()
        for rows in (1, 5):
            for iw, ow in ((40, 20), (33, 16), (50, 37), (17, 40)):
                x = special(rng, (rows, iw, channels), dtype)
                for mode in ("nearest", "nearest-exact"):
                    with np.errstate(invalid="ignore"):  # signalling NaNs made quiet
                        want = np.multiply(dtype(1), x[:, index(iw, ow, mode)])
                    for threads in (1, 2):
                        got = cresize.resize(x, (ow,), axes=(1,), mode=mode, num_threads=threads)
                        assert got.tobytes() == want.tobytes(), (name, rows, iw, ow, mode)
                        assert np.signbit(got[want == 0]).any()


GUARD_SCRIPT = r"""
_plan.MIN_WORK_PER_THREAD = 1  # (read as plans compile) the rows split between threads
rng = np.random.default_rng(5)
levels, cases = [], 0
for level in ("none", "sse2", "avx2", "avx512"):
    os.environ["CRESIZE_SIMD"] = level
    _kernels._init_simd()
    levels.append(_kernels.simd_level())
    for dtype in (np.float32, np.float64, np.uint8, np.uint16):
        for channels in (1, 2, 3, 4, 5):
            for n in (1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 49):
                for n_in in (2 * n, 2 * n + 1, 3 * n, (4 * n + 2) // 3):
                    for mode in ("nearest", "nearest-exact"):
                        rows = 1 if n % 2 else 3  # 3 rows: split between 2 threads
                        shape = (2 * rows, n_in, channels)
                        p = cresize.plan(shape, (rows, n), axes=(0, 1), mode=mode, dtype=dtype)
                        x = rng.integers(-100, 100, shape).astype(dtype)
                        want = p(x, num_threads=1)
                        cases += check_guarded(p, x, want)
print(",".join(levels), cases)
"""


def test_nearest_rows_read_and_write_nothing_past_the_arrays(tmp_path):
    """The pixel moves (16 bytes for a 3-value float32 pixel, the AVX2 groups of planar
    float32 x0.5: two 8-value loads; of 3-value float32 pixels: 8-value loads at x0.5,
    16-byte loads one value before or past a pixel otherwise, 8-value loads of runs of 3
    pixels at 0.75x (n_in = (4n + 2) // 3); 4-value pixels two a store) on inputs that end (or begin) at a page the
    process may not touch, into an ``out`` guarded the same way, rows split between two
    threads: 1-5 values a pixel, float32, float64, uint8, uint16, every level the CPU
    has. In a child process: a read or write past either array is a segmentation fault
    there, not here."""
    levels, cases = run_guarded(tmp_path, GUARD_SCRIPT, timeout=300).split()
    assert int(cases) == 4 * 4 * 5 * 15 * 4 * 2 * 2
    assert levels.split(",")[0] == "none"


SHARED_ROW_SCRIPT = r"""
_plan.MIN_WORK_PER_THREAD = 1  # (read as plans compile) a row of a few pixels split too
rng = np.random.default_rng(8)
cases = 0
for level in ("none", "avx2", "avx512"):
    os.environ["CRESIZE_SIMD"] = level
    _kernels._init_simd()
    for channels in (3, 4):
        for n in (1, 2, 3, 7, 8, 9, 15, 16, 17, 25, 48, 49):
            for n_in in sorted({1, max(1, n // 3), max(1, n // 2), n + 1, 2 * n, 2 * n + 1}):
                for mode in ("nearest", "nearest-exact"):
                    x = rng.standard_normal((n_in, channels)).astype(np.float32)
                    x.reshape(-1)[::3] = -0.0
                    p = cresize.plan(x.shape, (n,), axes=(0,), mode=mode, dtype=np.float32)
                    picked = x[p.weights[0].argmax(axis=1)]  # each output's one tap
                    want = np.multiply(np.float32(1), picked)  # 1 * x: -0 stays -0
                    cases += check_guarded(p, x, want)  # one row: each thread a part of it
                    raw = np.empty(x.size + 1, np.float32)[1:].reshape(x.shape)
                    raw[...] = x  # 4 bytes off the allocation's alignment
                    assert p(raw, num_threads=2).tobytes() == want.tobytes()
print(cases)
"""


def test_nearest_pixel_rows_shared_by_threads_stay_in_their_parts(tmp_path, level):
    """3/4-value float32 pixels of one (L, C) row (a ``first_product`` step, each of two
    threads a part of the row: the AVX2 groups' last stores end at their part), shrunk
    and enlarged (indices that repeat), rows of 1-49 outputs, next to guard pages and 4
    bytes off alignment: the bits of ``CRESIZE_SIMD=none`` (-0 kept) at every level."""
    cases = run_guarded(tmp_path, SHARED_ROW_SCRIPT, timeout=300)
    assert int(cases) > 0


def test_select_run_is_found_once_per_table():
    """``_kernels._select_run``: the pattern of a selection's index that the RGB float32
    rows move without index checks, with the outputs it holds on: 0.75x runs of 3 from
    the row's first pixel (nearest) or its second (nearest-exact), x0.5 up to the last
    output whose next input is in the row, runs that hold on part of a row only, none."""
    run = _kernels._select_run

    def table(i):
        return np.asarray(i, np.intp).reshape(-1, 1)

    k = np.arange(150)
    assert run(table(index(200, 150, "nearest")), 200, 3) == (2, 0, 150)
    assert run(table(index(2048, 1536, "nearest-exact")), 2048, 3) == (2, 1, 1536)
    assert run(table(index(202, 150, "nearest")), 202, 3)[:2] == (2, 0)
    assert run(table(index(202, 150, "nearest")), 202, 3)[2] < 150
    assert run(table(index(2048, 1024, "nearest")), 2048, 3) == (1, 0, 1024)
    assert run(table(index(2048, 1024, "nearest-exact")), 2048, 3) == (1, 0, 1023)
    assert run(table(index(2048, 1024, "nearest")), 2048, 1) == (1, 0, 1024)
    assert run(table(index(2048, 683, "nearest")), 2048, 3) == (0, 0, 0)
    assert run(table(k + k // 3), 200, 1) == (0, 0, 0)  # runs of 3: RGB rows only
    assert run(table(k[:23] + k[:23] // 3), 200, 3) == (0, 0, 0)  # shorter than a group
    # from output 2 on, up to output 2 + 30 (the index jumps there)
    i = np.concatenate([[9, 3], 5 + k[:30] + k[:30] // 3, [0, 1, 2] * 10])
    assert run(table(i), 60, 3) == (2, 2, 32)
    assert run(np.repeat(table(i), 2, axis=1), 60, 3) == (2, 2, 32)  # column 0 only


@pytest.mark.parametrize("first", [0, 1, 2, 3])
@pytest.mark.parametrize("length", [24, 30, 49, 72])
def test_rgb_rows_whose_runs_hold_on_part_of_the_row(level, first, length):
    """A hand-made selection of 3-value float32 pixels whose runs of 3 start at output
    ``first`` (3: past the outputs where the kernels look for them), hold for ``length``
    outputs (one group, a group and a tail, more groups) and break (the index jumps
    back), then take any index: ``0 + x`` at every level, one and two threads, and the
    plan's range is the runs'."""
    rng = np.random.default_rng(first * 100 + length)
    k = np.arange(length)
    idx = np.concatenate(
        [rng.integers(0, 110, first), 7 + k + k // 3, [0, 50, 2, 1], rng.integers(0, 110, 11)]
    )
    n_in, n_out, rows = 110, idx.size, 5
    found = _kernels._select_run(idx.reshape(-1, 1), n_in, 3)
    assert found == ((2, first, first + length) if first < 3 else (0, 0, 0))
    x = special(rng, (1, 2 * rows, n_in * 3), np.float32)
    y_index = (2 * np.arange(rows)).astype(np.intp).reshape(-1, 1)
    ones = np.ones((rows, 1), np.float32)
    x_args = (
        idx.astype(np.intp).reshape(-1, 1),
        np.ones((n_out, 1), np.float32),
        np.ones(n_out, np.intp),
        idx.astype(np.intp),
        True,
    )
    with np.errstate(invalid="ignore"):
        want = np.add(np.float32(0), x.reshape(2 * rows, n_in, 3)[::2][:, idx])
    for name in LEVELS:
        os.environ["CRESIZE_SIMD"] = name
        _kernels._init_simd()
        for threads in (1, 2):
            dst = np.full((1, rows, n_out * 3), 7, np.float32)
            _kernels.resize_2d(
                x,
                dst,
                3,
                y_index,
                ones,
                np.ones(rows, np.intp),
                *x_args,
                _kernels.Order.DIRECT,
                np.empty((threads, 1), np.float32),
                np.empty((threads, 1), np.intp),
                threads,
            )
            assert dst.tobytes() == want.reshape(dst.shape).tobytes(), (name, threads)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
def test_rgb_row_parts_start_their_runs_in_phase(level, monkeypatch, mode):
    """One (L, 3) float32 row shrunk 0.75x, its pixels split between two threads at an
    output that is not a multiple of 3 from the runs' first (100 outputs: 50): each
    part starts its runs at the next output of the runs' phase (``_part_sizes``), with
    the bits of ``CRESIZE_SIMD=none`` (1 * x: -0 kept)."""
    monkeypatch.setattr(_plan, "MIN_WORK_PER_THREAD", 1)
    cresize.clear_cache()
    rng = np.random.default_rng(9)
    for n in (100, 101, 150):
        n_in = (4 * n + 2) // 3 if n % 2 else 4 * n // 3
        x = special(rng, (n_in, 3), np.float32)
        with np.errstate(invalid="ignore"):
            want = np.multiply(np.float32(1), x[index(n_in, n, mode)])
        for name in LEVELS:
            os.environ["CRESIZE_SIMD"] = name
            _kernels._init_simd()
            for threads in (1, 2):
                got = cresize.resize(x, (n,), axes=(0,), mode=mode, num_threads=threads)
                assert got.tobytes() == want.tobytes(), (n, name, threads)
    cresize.clear_cache()
