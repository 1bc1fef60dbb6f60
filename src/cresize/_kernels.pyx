"""Gather kernels: apply tap tables to arrays.

A table row ``o`` holds ``count[o]`` taps ``(index[o, k], weight[o, k])`` (the
rest of the row is padding that is never read); output ``o`` is
``sum_k weight[o, k] * input[index[o, k]]``, accumulated in the array's dtype in
tap order. A row resample (along the contiguous axis) starts its sum from 0 on
every code path, the SSE one too, so the paths that the thread count can choose
between agree to the bit, signed zeros included; a combination of whole rows
starts from its first product. The forward pass uses a mode's table, the backward
pass the transposed table, so neither needs atomics and every output has the same
bits whatever the thread count.

Everything here is called with validated, allocated, C-contiguous arrays (see
``_api.py``); nothing inside a ``nogil`` block can fail.
"""
cimport cython
from cython cimport floating
from libc.math cimport rintf
from libc.string cimport memcpy
from cython.parallel cimport parallel, prange, threadid

from cresize._openmp cimport cresize_max_threads, cresize_openmp_enabled


ctypedef fused source:  # what a row is read from (converted on read)
    float
    double
    unsigned char
    signed char
    unsigned short
    short


ctypedef fused small_int:
    unsigned char
    signed char
    unsigned short
    short


cdef extern from "_simd.h" nogil:
    void cresize_rows4_f32(float* out, const float* line, const Py_ssize_t* start,
                           const float* weight, Py_ssize_t width) noexcept
    int cresize_simd_best() noexcept
    void cresize_simd_set(int level) noexcept
    int cresize_simd_level
    int cresize_pixels_f32(float* out, const float* line, Py_ssize_t channels, Py_ssize_t n_in,
                           const Py_ssize_t* index, const float* weight,
                           const Py_ssize_t* count, const Py_ssize_t* start,
                           Py_ssize_t width, Py_ssize_t n_out) noexcept
    int cresize_pixels_u8(float* out, const unsigned char* line, Py_ssize_t channels,
                          Py_ssize_t n_in, const Py_ssize_t* index, const float* weight,
                          const Py_ssize_t* count, const Py_ssize_t* start,
                          Py_ssize_t width, Py_ssize_t n_out) noexcept
    int cresize_pixels_f64(double* out, const double* line, Py_ssize_t channels,
                           Py_ssize_t n_in, const Py_ssize_t* index, const double* weight,
                           const Py_ssize_t* count, const Py_ssize_t* start,
                           Py_ssize_t width, Py_ssize_t n_out) noexcept
    int cresize_pixels_u16(double* out, const unsigned short* line, Py_ssize_t channels,
                           Py_ssize_t n_in, const Py_ssize_t* index, const double* weight,
                           const Py_ssize_t* count, const Py_ssize_t* start,
                           Py_ssize_t width, Py_ssize_t n_out) noexcept
    int cresize_store_u8_f32(unsigned char* out, const float* row, Py_ssize_t n) noexcept
    int cresize_store_s8_f32(signed char* out, const float* row, Py_ssize_t n) noexcept
    int cresize_store_u16_f64(unsigned short* out, const double* row, Py_ssize_t n) noexcept
    int cresize_store_s16_f64(short* out, const double* row, Py_ssize_t n) noexcept
    int cresize_pixels_s8(float* out, const signed char* line, Py_ssize_t channels,
                          Py_ssize_t n_in, const Py_ssize_t* index, const float* weight,
                          const Py_ssize_t* count, const Py_ssize_t* start,
                          Py_ssize_t width, Py_ssize_t n_out) noexcept
    int cresize_pixels_s16(double* out, const short* line, Py_ssize_t channels,
                           Py_ssize_t n_in, const Py_ssize_t* index, const double* weight,
                           const Py_ssize_t* count, const Py_ssize_t* start,
                           Py_ssize_t width, Py_ssize_t n_out) noexcept


#: SIMD levels, lowest first (``_simd_pixels.h``).
SIMD_LEVELS = ("none", "sse2", "avx2")


def _init_simd():
    """Read ``CRESIZE_SIMD`` once, at import: ``none`` forces the portable loops,
    ``sse2`` / ``avx2`` cap the level, unset or ``auto`` takes the best the CPU has."""
    import os
    import warnings
    best = cresize_simd_best()
    asked = os.environ.get("CRESIZE_SIMD", "auto").strip().lower() or "auto"
    if asked == "auto":
        level = best
    elif asked in SIMD_LEVELS:
        level = min(SIMD_LEVELS.index(asked), best)
    else:
        warnings.warn(f"CRESIZE_SIMD={asked!r} is not one of auto, {', '.join(SIMD_LEVELS)}: "
                      f"using auto", RuntimeWarning, stacklevel=2)
        level = best
    cresize_simd_set(level)


_init_simd()


def simd_level():
    """The SIMD level the kernels use: ``"none"``, ``"sse2"`` or ``"avx2"``.

    Every level gives the same bits; ``CRESIZE_SIMD=none`` (read at import) forces
    the portable loops.
    """
    return SIMD_LEVELS[cresize_simd_level]


def openmp_enabled():
    """True when the kernels were compiled with OpenMP."""
    return bool(cresize_openmp_enabled())


def max_threads():
    """OpenMP's current default thread count (1 in a serial build)."""
    return cresize_max_threads()


def gather_lines(const floating[:, ::1] src, floating[:, ::1] dst,
                 const Py_ssize_t[:, ::1] index, const floating[:, ::1] weight,
                 const Py_ssize_t[::1] count, const Py_ssize_t[::1] start, bint select,
                 int num_threads):
    """Resize along the contiguous axis: ``src (R, I) -> dst (R, O)``."""
    cdef Py_ssize_t rows = dst.shape[0], n_out = dst.shape[1]
    cdef Py_ssize_t r, o
    _check_same("src rows", src.shape[0], "dst rows", rows)
    _check_threads(num_threads)
    _check_axis("", index, weight.shape[0], weight.shape[1], count, n_out, src.shape[1])
    _check_row_extras("", index, count, start, select, src.shape[1])
    if rows >= num_threads:
        for r in prange(rows, nogil=True, schedule="static", num_threads=num_threads):
            _resample_row(&dst[r, 0], &src[r, 0], 1, src.shape[1], index, weight, count, start,
                          select)
    else:  # a few long lines: share out the outputs instead
        for o in prange(n_out, nogil=True, schedule="static", num_threads=num_threads):
            for r in range(rows):
                dst[r, o] = _dot(&src[r, 0], &index[o, 0], &weight[o, 0], count[o])


def gather_planes(const floating[:, :, ::1] src, floating[:, :, ::1] dst,
                  const Py_ssize_t[:, ::1] index, const floating[:, ::1] weight,
                  const Py_ssize_t[::1] count, int num_threads):
    """Resize along a middle axis: ``src (A, I, C) -> dst (A, O, C)``.

    Each output row is a weighted sum of whole input rows of length ``C``.
    """
    cdef Py_ssize_t n_out = dst.shape[1], width = dst.shape[2]
    cdef Py_ssize_t jobs = dst.shape[0] * n_out
    cdef Py_ssize_t j, a, o
    _check_same("src planes", src.shape[0], "dst planes", dst.shape[0])
    _check_same("src row length", src.shape[2], "dst row length", width)
    _check_threads(num_threads)
    _check_axis("", index, weight.shape[0], weight.shape[1], count, n_out, src.shape[1])
    for j in prange(jobs, nogil=True, schedule="static", num_threads=num_threads):
        a = j // n_out
        o = j - a * n_out
        _combine_rows(&dst[a, o, 0], &src[a, 0, 0], width,
                      &index[o, 0], &weight[o, 0], count[o], src.shape[1])


cpdef enum Order:
    RING = 0
    VERTICAL_FIRST = 1
    DIRECT = 2


def resize_2d(const floating[:, :, ::1] src, floating[:, :, ::1] dst, Py_ssize_t channels,
              const Py_ssize_t[:, ::1] y_index, const floating[:, ::1] y_weight,
              const Py_ssize_t[::1] y_count,
              const Py_ssize_t[:, ::1] x_index, const floating[:, ::1] x_weight,
              const Py_ssize_t[::1] x_count, const Py_ssize_t[::1] x_start, bint x_select,
              int order, floating[:, ::1] scratch, Py_ssize_t[:, ::1] tags,
              int num_threads):
    """Resize two adjacent axes in one sweep: ``src (B, IH, IW*C) -> dst (B, OH, OW*C)``.

    ``C`` (``channels``) trailing values per pixel ride along. No intermediate
    array: each thread keeps its rows in its row of ``scratch``.

    ``order`` (chosen from the tables alone, so the result does not depend on
    the thread count):

    * ``VERTICAL_FIRST``: each output row first combines its input rows into one
      row of ``IW*C`` (a weighted sum of whole rows), then resamples that row;
    * ``RING``: input rows are resampled into a ring of ``tags.shape[1]`` rows
      per thread, each computed once and reused by the next output rows, and the
      ring rows are combined;
    * ``DIRECT``: every output row reads one input row with weight 1 (nearest):
      that row is resampled straight into the output.
    """
    cdef Py_ssize_t n_planes = dst.shape[0], out_h = dst.shape[1], out_row = dst.shape[2]
    cdef Py_ssize_t in_h = src.shape[1], in_row = src.shape[2]
    cdef Py_ssize_t slots = tags.shape[1], jobs = n_planes * out_h
    cdef Py_ssize_t j, b, oy, k, s, iy, key, tid, t
    cdef Py_ssize_t in_px = in_row // channels if channels > 0 else 0
    cdef floating* buf
    cdef Py_ssize_t* tag
    _check_2d(src.shape[0], in_h, in_row, n_planes, out_h, out_row, channels,
              y_index, y_weight.shape[0], y_weight.shape[1], y_count,
              x_index, x_weight.shape[0], x_weight.shape[1], x_count, x_start, x_select,
              order, scratch.shape[0], scratch.shape[1],
              scratch_length(order, slots, in_row, out_row, True), tags, num_threads)
    with nogil, parallel(num_threads=num_threads):
        tid = threadid()
        buf = &scratch[tid, 0]
        tag = &tags[tid, 0]
        for t in range(slots):
            tag[t] = -1
        for j in prange(jobs, schedule="static"):
            b = j // out_h
            oy = j - b * out_h
            if order == DIRECT:
                if oy > 0 and tag[0] == j - 1 and y_index[oy, 0] == y_index[oy - 1, 0]:
                    # The row this thread wrote last read the same input row: copy it.
                    memcpy(&dst[b, oy, 0], &dst[b, oy - 1, 0], out_row * sizeof(floating))
                else:
                    _resample_row(&dst[b, oy, 0], &src[b, y_index[oy, 0], 0], channels, in_px,
                                  x_index, x_weight, x_count, x_start, x_select)
                tag[0] = j
            elif order == VERTICAL_FIRST:
                _combine_rows(buf, &src[b, 0, 0], in_row,
                              &y_index[oy, 0], &y_weight[oy, 0], y_count[oy], in_h)
                _resample_row(&dst[b, oy, 0], buf, channels, in_px, x_index, x_weight, x_count,
                              x_start, x_select)
            else:
                for k in range(y_count[oy]):
                    iy = y_index[oy, k]
                    s = iy % slots
                    key = b * in_h + iy
                    if tag[s] != key:
                        _resample_row(buf + s * out_row, &src[b, iy, 0], channels, in_px,
                                      x_index, x_weight, x_count, x_start, x_select)
                        tag[s] = key
                _combine_rows(&dst[b, oy, 0], buf, out_row,
                              &y_index[oy, 0], &y_weight[oy, 0], y_count[oy], slots)


ctypedef fused pixel:  # what resize_2d_int reads
    float
    double
    unsigned char
    signed char
    unsigned short
    short


def scratch_length(int order, Py_ssize_t slots, Py_ssize_t in_row, Py_ssize_t out_row,
                   bint float_output):
    """Values of scratch one thread needs in ``resize_2d`` / ``resize_2d_int``.

    ``RING``: ``slots`` resampled rows of ``out_row``; ``VERTICAL_FIRST``: one
    combined row of ``in_row``; ``DIRECT``: none. An integer output adds one row of
    ``out_row`` sums, rounded and clipped into the output.
    """
    cdef Py_ssize_t n = 0
    if order == RING:
        n = slots * out_row
    elif order == VERTICAL_FIRST:
        n = in_row
    return n + (0 if float_output else out_row)


def resize_2d_int(const pixel[:, :, ::1] src, dst, Py_ssize_t channels, tuple y, tuple x,
                  int order, floating[:, ::1] scratch, Py_ssize_t[:, ::1] tags,
                  int num_threads):
    """``resize_2d`` for 8- and 16-bit integers, read and written as they are.

    ``src (B, IH, IW*C)`` and ``dst (B, OH, OW*C)`` (a C-contiguous ndarray) are
    integers (uint8, int8, uint16, int16) or, for one step of a multi-step resize,
    floats of ``scratch``'s dtype; at least one of them is an integer. The sums are
    in ``scratch``'s dtype (the caller uses float32 for 8-bit images and float64 for
    16-bit ones), computed exactly as ``resize_2d`` computes them on the same values
    converted (an integer converts exactly), in a few rows of ``scratch`` per
    thread (``scratch_length``); an integer output is ``clip(rint(sum))`` (half to
    even). With ``order == DIRECT``, a selection ``x`` table (nearest) and ``src``
    and ``dst`` of the same integer dtype, pixels are copied, with no arithmetic.

    ``y`` is ``(index, weight, count)`` and ``x`` is
    ``(index, weight, count, start, select)`` (``Taps.kernel_args`` /
    ``Taps.row_args``, weights of ``scratch``'s dtype); ``order`` and ``tags``
    (``slots`` = its second length) as in ``resize_2d``. A single-axis step passes
    the identity of length 1 (``taps(1, 1, "nearest")``) as the other table: as
    ``y`` with ``DIRECT`` for a resample along the contiguous axis, as ``x`` with
    ``channels`` = the row length for a combination of whole rows.
    """
    cdef const Py_ssize_t[:, ::1] y_index = y[0]
    cdef const floating[:, ::1] y_weight = y[1]
    cdef const Py_ssize_t[::1] y_count = y[2]
    cdef const Py_ssize_t[:, ::1] x_index = x[0]
    cdef const floating[:, ::1] x_weight = x[1]
    cdef const Py_ssize_t[::1] x_count = x[2]
    cdef const Py_ssize_t[::1] x_start = x[3]
    cdef bint x_select = x[4]
    cdef str src_kind, sum_kind = "f" if floating is float else "d"
    cdef str kind = getattr(getattr(dst, "dtype", None), "char", "")
    cdef Py_ssize_t itemsize, n_planes, out_h, out_row
    cdef Py_ssize_t in_h = src.shape[1], in_row = src.shape[2]
    cdef Py_ssize_t slots = tags.shape[1], jobs, row_bytes
    cdef Py_ssize_t in_px = in_row // channels if channels > 0 else 0
    cdef Py_ssize_t j, b, oy, k, s, iy, key, tid, t, ring_len
    cdef floating* ring  # RING: the resampled rows; VERTICAL_FIRST: the combined row
    cdef floating* row  # integer output: the row of sums before rounding
    cdef floating* target
    cdef char* out_row_ptr
    cdef char out_kind
    cdef Py_ssize_t* tag
    cdef unsigned char[::1] out_bytes
    cdef bint float_out, gather, x_identity
    if pixel is float:
        src_kind = "f"
    elif pixel is double:
        src_kind = "d"
    elif pixel is cython.uchar:
        src_kind = "B"
    elif pixel is cython.schar:
        src_kind = "b"
    elif pixel is cython.ushort:
        src_kind = "H"
    else:
        src_kind = "h"
    if kind not in ("B", "b", "H", "h", "f", "d") or dst.ndim != 3 or not dst.flags.c_contiguous:
        raise TypeError("dst must be a C-contiguous 3-d uint8, int8, uint16, int16, float32 "
                        "or float64 array")
    if src_kind in "fd" and kind in "fd":
        raise TypeError("resize_2d_int needs an integer src or dst; resize_2d does floats")
    if (src_kind in "fd" and src_kind != sum_kind) or (kind in "fd" and kind != sum_kind):
        raise TypeError(f"a float src or dst must have scratch's dtype ({sum_kind}); "
                        f"got {src_kind} -> {kind}")
    float_out = kind == sum_kind
    gather = x_select and order == DIRECT and kind == src_kind  # integers: copied
    out_kind = ord(kind)
    n_planes, out_h, out_row = dst.shape
    itemsize = dst.itemsize
    row_bytes = out_row * itemsize
    jobs = n_planes * out_h
    ring_len = scratch_length(order, slots, in_row, out_row, True)
    _check_2d(src.shape[0], in_h, in_row, n_planes, out_h, out_row, channels,
              y_index, y_weight.shape[0], y_weight.shape[1], y_count,
              x_index, x_weight.shape[0], x_weight.shape[1], x_count, x_start, x_select,
              order, scratch.shape[0], scratch.shape[1],
              scratch_length(order, slots, in_row, out_row, float_out), tags, num_threads)
    if jobs * out_row == 0:
        return
    out_bytes = dst.reshape(-1).view("u1")  # C-contiguous: a view, written in place
    # Whole rows combined (a single-axis step): the combination is the output row.
    x_identity = x_select and x_index.shape[0] == 1 and in_row == out_row
    with nogil, parallel(num_threads=num_threads):
        tid = threadid()
        ring = &scratch[tid, 0]
        row = ring + ring_len
        tag = &tags[tid, 0]
        for t in range(slots):
            tag[t] = -1
        for j in prange(jobs, schedule="static"):
            b = j // out_h
            oy = j - b * out_h
            out_row_ptr = <char*>&out_bytes[0] + j * row_bytes
            target = <floating*>out_row_ptr if float_out else row
            if (order == DIRECT and oy > 0 and tag[0] == j - 1
                    and y_index[oy, 0] == y_index[oy - 1, 0]):
                # The row this thread wrote last read the same input row: copy it.
                memcpy(out_row_ptr, out_row_ptr - row_bytes, row_bytes)
                tag[0] = j
                continue
            if gather:
                _gather_pixels(out_row_ptr, <const char*>&src[b, y_index[oy, 0], 0],
                               channels * itemsize, x_index)
            elif order == DIRECT:
                _resample_row(target, &src[b, y_index[oy, 0], 0], channels, in_px,
                              x_index, x_weight, x_count, x_start, x_select)
            elif order == VERTICAL_FIRST:
                if x_identity:
                    _combine_rows(target, &src[b, 0, 0], in_row,
                                  &y_index[oy, 0], &y_weight[oy, 0], y_count[oy], in_h)
                else:
                    _combine_rows(ring, &src[b, 0, 0], in_row,
                                  &y_index[oy, 0], &y_weight[oy, 0], y_count[oy], in_h)
                    _resample_row(target, ring, channels, in_px, x_index, x_weight, x_count,
                                  x_start, x_select)
            else:
                for k in range(y_count[oy]):
                    iy = y_index[oy, k]
                    s = iy % slots
                    key = b * in_h + iy
                    if tag[s] != key:
                        _resample_row(ring + s * out_row, &src[b, iy, 0], channels, in_px,
                                      x_index, x_weight, x_count, x_start, x_select)
                        tag[s] = key
                _combine_rows(target, ring, out_row,
                              &y_index[oy, 0], &y_weight[oy, 0], y_count[oy], slots)
            if not float_out and not gather:
                _store_any(out_row_ptr, out_kind, target, out_row)
            if order == DIRECT:
                tag[0] = j


cdef inline void _gather_pixels(char* out, const char* line, Py_ssize_t size,
                                const Py_ssize_t[:, ::1] index) noexcept nogil:
    """Nearest: pixel ``o`` (``size`` bytes) of ``out`` is pixel ``index[o, 0]`` of ``line``."""
    cdef Py_ssize_t n_out = index.shape[0], o
    if size == 1:
        for o in range(n_out):
            out[o] = line[index[o, 0]]
    elif size == 3:
        for o in range(n_out):
            memcpy(out + 3 * o, line + 3 * index[o, 0], 3)
    elif size == 4:
        for o in range(n_out):
            memcpy(out + 4 * o, line + 4 * index[o, 0], 4)
    elif size == 6:
        for o in range(n_out):
            memcpy(out + 6 * o, line + 6 * index[o, 0], 6)
    else:
        for o in range(n_out):
            memcpy(out + size * o, line + size * index[o, 0], size)


cdef inline void _store_any(char* out, char kind, const floating* row,
                            Py_ssize_t n) noexcept nogil:
    if kind == b"B":
        _store_row(<unsigned char*>out, row, n)
    elif kind == b"b":
        _store_row(<signed char*>out, row, n)
    elif kind == b"H":
        _store_row(<unsigned short*>out, row, n)
    elif kind == b"h":
        _store_row(<short*>out, row, n)


cdef inline void _store_row(small_int* out, const floating* row, Py_ssize_t n) noexcept nogil:
    """``out = clip(rint(row))`` (half to even) to the integer type's range.

    Clipping first keeps ``|v| <= 65535``, where adding and subtracting
    ``1.5 * 2**23`` (float32; ``2**52`` for float64) rounds to the nearest integer,
    ties to even, in the default rounding mode: ``rint`` exactly, and vectorisable.
    """
    cdef floating lo, hi, v, magic
    cdef Py_ssize_t i
    if floating is float:  # SIMD where the level allows it, with the same integers
        if small_int is cython.uchar:
            if cresize_store_u8_f32(out, row, n):
                return
        elif small_int is cython.schar:
            if cresize_store_s8_f32(out, row, n):
                return
    else:
        if small_int is cython.ushort:
            if cresize_store_u16_f64(out, row, n):
                return
        elif small_int is cython.short:
            if cresize_store_s16_f64(out, row, n):
                return
    if floating is float:
        magic = 12582912.0
    else:
        magic = 6755399441055744.0
    if small_int is cython.uchar:
        lo, hi = 0, 255
    elif small_int is cython.schar:
        lo, hi = -128, 127
    elif small_int is cython.ushort:
        lo, hi = 0, 65535
    else:
        lo, hi = -32768, 32767
    for i in range(n):
        v = row[i]
        v = v if v > lo else lo
        v = v if v < hi else hi
        v = v + magic
        v = v - magic
        out[i] = <small_int>v


# ----------------------------------------------------------------------------
# Checks made before a kernel enters nogil: the sizes the loops rely on.


cdef int _check_threads(int num_threads) except -1:
    if num_threads < 1:
        raise ValueError(f"num_threads must be >= 1; got {num_threads}")
    return 0


cdef int _check_same(str a_name, Py_ssize_t a, str b_name, Py_ssize_t b) except -1:
    if a != b:
        raise ValueError(f"{a_name} ({a}) and {b_name} ({b}) differ")
    return 0


cdef int _check_axis(str name, const Py_ssize_t[:, ::1] index, Py_ssize_t weight_rows,
                     Py_ssize_t weight_width, const Py_ssize_t[::1] count,
                     Py_ssize_t n_out, Py_ssize_t n_in) except -1:
    """A table of ``n_out`` rows whose taps read inputs ``0 … n_in - 1``, in ascending
    index order (as ``Taps`` builds them; the SIMD pixel rows rely on it)."""
    cdef Py_ssize_t width = index.shape[1], o, k
    if index.shape[0] != n_out or weight_rows != n_out or count.shape[0] != n_out:
        raise ValueError(f"{name}index, {name}weight and {name}count have {index.shape[0]}, "
                         f"{weight_rows} and {count.shape[0]} rows; the output needs {n_out}")
    if weight_width != width:
        raise ValueError(f"{name}index has {width} columns but {name}weight {weight_width}")
    for o in range(n_out):
        if not 0 <= count[o] <= width:
            raise ValueError(f"{name}count[{o}] = {count[o]} is outside 0..{width}")
        for k in range(count[o]):
            if not 0 <= index[o, k] < n_in:
                raise ValueError(f"{name}index[{o}, {k}] = {index[o, k]} is outside "
                                 f"0..{n_in - 1}")
            if k and index[o, k] <= index[o, k - 1]:
                raise ValueError(f"{name}index row {o} is not in ascending order")
    return 0


cdef int _check_row_extras(str name, const Py_ssize_t[:, ::1] index,
                           const Py_ssize_t[::1] count, const Py_ssize_t[::1] start,
                           bint select, Py_ssize_t n_in) except -1:
    """``start`` windows inside the row; ``select``: one tap per output."""
    cdef Py_ssize_t width = index.shape[1], o
    if start.shape[0] != index.shape[0]:
        raise ValueError(f"{name}start has {start.shape[0]} entries; expected {index.shape[0]}")
    for o in range(start.shape[0]):
        if start[o] >= 0 and start[o] + width > n_in:
            raise ValueError(f"{name}start[{o}] = {start[o]}: a window of {width} passes the "
                             f"row's end ({n_in})")
        if select and count[o] != 1:
            raise ValueError(f"{name}select is set but {name}count[{o}] = {count[o]}")
    return 0


cdef int _check_2d(Py_ssize_t src_planes, Py_ssize_t in_h, Py_ssize_t in_row,
                   Py_ssize_t n_planes, Py_ssize_t out_h, Py_ssize_t out_row,
                   Py_ssize_t channels,
                   const Py_ssize_t[:, ::1] y_index, Py_ssize_t y_rows, Py_ssize_t y_width,
                   const Py_ssize_t[::1] y_count,
                   const Py_ssize_t[:, ::1] x_index, Py_ssize_t x_rows, Py_ssize_t x_width,
                   const Py_ssize_t[::1] x_count, const Py_ssize_t[::1] x_start, bint x_select,
                   int order, Py_ssize_t scratch_threads, Py_ssize_t scratch_row,
                   Py_ssize_t scratch_needed, const Py_ssize_t[:, ::1] tags,
                   int num_threads) except -1:
    cdef Py_ssize_t o, span = 1, slots = tags.shape[1]
    _check_threads(num_threads)
    _check_same("src planes", src_planes, "dst planes", n_planes)
    if channels < 1 or in_row % channels or out_row != x_index.shape[0] * channels:
        raise ValueError(f"rows of {in_row} -> {out_row} values do not hold whole pixels of "
                         f"{channels} values for an x table of {x_index.shape[0]} outputs")
    _check_axis("y_", y_index, y_rows, y_width, y_count, out_h, in_h)
    _check_axis("x_", x_index, x_rows, x_width, x_count, x_index.shape[0], in_row // channels)
    _check_row_extras("x_", x_index, x_count, x_start, x_select, in_row // channels)
    if order not in (RING, VERTICAL_FIRST, DIRECT):
        raise ValueError(f"order must be Order.RING, VERTICAL_FIRST or DIRECT; got {order}")
    if order == DIRECT:
        for o in range(out_h):
            if y_count[o] != 1:
                raise ValueError(f"order DIRECT needs one y tap per output; y_count[{o}] = "
                                 f"{y_count[o]}")
    if order == RING:
        for o in range(out_h):
            if y_count[o]:
                span = max(span, y_index[o, y_count[o] - 1] - y_index[o, 0] + 1)
        if slots < span:
            raise ValueError(f"order RING needs tags with >= {span} slots (the y span); "
                             f"got {slots}")
    if slots < 1:
        raise ValueError("tags needs at least one slot per thread")
    if scratch_threads < num_threads or tags.shape[0] < num_threads:
        raise ValueError(f"scratch and tags need a row per thread ({num_threads}); got "
                         f"{scratch_threads} and {tags.shape[0]}")
    if scratch_row < scratch_needed:
        raise ValueError(f"scratch rows hold {scratch_row} values; this order needs "
                         f"{scratch_needed} (scratch_length)")
    return 0


cdef inline floating _dot(const source* line, const Py_ssize_t* index,
                          const floating* weight, Py_ssize_t count) noexcept nogil:
    cdef floating acc = 0
    cdef Py_ssize_t k
    for k in range(count):
        acc = acc + weight[k] * line[index[k]]
    return acc


cdef inline void _resample_row(floating* out, const source* line, Py_ssize_t channels,
                               Py_ssize_t in_px,
                               const Py_ssize_t[:, ::1] index, const floating[:, ::1] weight,
                               const Py_ssize_t[::1] count, const Py_ssize_t[::1] start,
                               bint select) noexcept nogil:
    """Resample one row of pixels of ``channels`` values along its length.

    ``start[o]`` is the first input of output ``o`` when its taps are the whole
    contiguous window ``start[o] … start[o] + width - 1``, else -1; float32 runs of
    four such outputs go through ``cresize_rows4_f32`` (SSE), with the same bits.
    ``select``: every output reads one input with weight 1 (nearest), a gather.
    """
    cdef Py_ssize_t n_out = index.shape[0], width = index.shape[1], o, c, k, j
    cdef const source* pixel
    cdef floating* target
    if select and channels == 1:  # 0 + x: the bits of 0 + 1 * x, as _dot gives
        for o in range(n_out):
            out[o] = 0 + line[index[o, 0]]
    elif channels <= 4 and _simd_pixels(out, line, channels, in_px, index, weight, count, start):
        pass  # same bits as the loops below (AVX2 value lanes, or a register per pixel)
    elif floating is float and source is float and channels == 1 and width > 1:
        o = 0
        while o + 4 <= n_out:
            if start[o] >= 0 and start[o + 1] >= 0 and start[o + 2] >= 0 and start[o + 3] >= 0:
                cresize_rows4_f32(out + o, line, &start[o], &weight[o, 0], width)
            else:
                for j in range(o, o + 4):
                    out[j] = _dot(line, &index[j, 0], &weight[j, 0], count[j])
            o = o + 4
        for j in range(o, n_out):
            out[j] = _dot(line, &index[j, 0], &weight[j, 0], count[j])
    elif channels == 1 and width == 1:  # one tap or none: the sum of _dot, unrolled
        for o in range(n_out):
            out[o] = (0 + weight[o, 0] * line[index[o, 0]]) if count[o] else 0
    elif channels == 1:
        for o in range(n_out):
            out[o] = _dot(line, &index[o, 0], &weight[o, 0], count[o])
    elif channels == 3:  # RGB: the three sums stay in registers
        for o in range(n_out):
            _pixel3(out + 3 * o, line, &index[o, 0], &weight[o, 0], count[o])
    elif channels == 4:
        for o in range(n_out):
            _pixel4(out + 4 * o, line, &index[o, 0], &weight[o, 0], count[o])
    else:
        for o in range(n_out):
            target = out + o * channels
            for c in range(channels):
                target[c] = 0
            for k in range(count[o]):
                pixel = line + index[o, k] * channels
                for c in range(channels):
                    target[c] = target[c] + weight[o, k] * pixel[c]


cdef inline bint _simd_pixels(floating* out, const source* line, Py_ssize_t channels,
                              Py_ssize_t in_px, const Py_ssize_t[:, ::1] index,
                              const floating[:, ::1] weight, const Py_ssize_t[::1] count,
                              const Py_ssize_t[::1] start) noexcept nogil:
    """A row of 1- to 4-value pixels by ``_simd_pixels.h`` where the level allows it."""
    cdef Py_ssize_t n_out = index.shape[0], width = index.shape[1]
    if floating is float:
        if source is float:
            return cresize_pixels_f32(out, line, channels, in_px, &index[0, 0], &weight[0, 0],
                                      &count[0], &start[0], width, n_out)
        elif source is cython.uchar:
            return cresize_pixels_u8(out, line, channels, in_px, &index[0, 0], &weight[0, 0],
                                     &count[0], &start[0], width, n_out)
        elif source is cython.schar:
            return cresize_pixels_s8(out, line, channels, in_px, &index[0, 0], &weight[0, 0],
                                     &count[0], &start[0], width, n_out)
    else:
        if source is double:
            return cresize_pixels_f64(out, line, channels, in_px, &index[0, 0], &weight[0, 0],
                                      &count[0], &start[0], width, n_out)
        elif source is cython.ushort:
            return cresize_pixels_u16(out, line, channels, in_px, &index[0, 0], &weight[0, 0],
                                      &count[0], &start[0], width, n_out)
        elif source is cython.short:
            return cresize_pixels_s16(out, line, channels, in_px, &index[0, 0], &weight[0, 0],
                                      &count[0], &start[0], width, n_out)
    return False


cdef inline void _pixel3(floating* out, const source* line, const Py_ssize_t* index,
                         const floating* weight, Py_ssize_t count) noexcept nogil:
    cdef floating a = 0, b = 0, c = 0, w
    cdef const source* p
    cdef Py_ssize_t k
    for k in range(count):
        w = weight[k]
        p = line + 3 * index[k]
        a = a + w * p[0]
        b = b + w * p[1]
        c = c + w * p[2]
    out[0] = a
    out[1] = b
    out[2] = c


cdef inline void _pixel4(floating* out, const source* line, const Py_ssize_t* index,
                         const floating* weight, Py_ssize_t count) noexcept nogil:
    cdef floating a = 0, b = 0, c = 0, d = 0, w
    cdef const source* p
    cdef Py_ssize_t k
    for k in range(count):
        w = weight[k]
        p = line + 4 * index[k]
        a = a + w * p[0]
        b = b + w * p[1]
        c = c + w * p[2]
        d = d + w * p[3]
    out[0] = a
    out[1] = b
    out[2] = c
    out[3] = d


cdef inline void _combine_rows(floating* row, const source* plane, Py_ssize_t width,
                               const Py_ssize_t* index, const floating* weight,
                               Py_ssize_t count, Py_ssize_t n_rows) noexcept nogil:
    """``row = sum_k weight[k] * plane[index[k] % n_rows]`` over rows of ``width``.

    Taps are taken two at a time in one sweep over the row, in tap order.
    """
    cdef Py_ssize_t k, c
    cdef const source* a
    cdef const source* b
    cdef floating wa, wb
    if count == 0:
        for c in range(width):
            row[c] = 0
        return
    a = plane + (index[0] % n_rows) * width
    wa = weight[0]
    if count == 1:
        for c in range(width):
            row[c] = wa * a[c]
        return
    b = plane + (index[1] % n_rows) * width
    wb = weight[1]
    for c in range(width):
        row[c] = wa * a[c] + wb * b[c]
    k = 2
    while k + 1 < count:
        a = plane + (index[k] % n_rows) * width
        b = plane + (index[k + 1] % n_rows) * width
        wa = weight[k]
        wb = weight[k + 1]
        for c in range(width):
            row[c] = row[c] + wa * a[c] + wb * b[c]
        k = k + 2
    if k < count:
        a = plane + (index[k] % n_rows) * width
        wa = weight[k]
        for c in range(width):
            row[c] = row[c] + wa * a[c]


def integers_to_float(const small_int[::1] src, float[::1] dst, int num_threads):
    """``dst = src`` as float32, for 8- and 16-bit images."""
    cdef Py_ssize_t i
    for i in prange(src.shape[0], nogil=True, schedule="static", num_threads=num_threads):
        dst[i] = src[i]


def float_to_integers(const float[::1] src, small_int[::1] dst, int num_threads):
    """``dst = clip(rint(src))`` to the integer type's range (rounding half to even)."""
    cdef Py_ssize_t i
    cdef float lo, hi, v
    if small_int is cython.uchar:
        lo, hi = 0, 255
    elif small_int is cython.schar:
        lo, hi = -128, 127
    elif small_int is cython.ushort:
        lo, hi = 0, 65535
    else:
        lo, hi = -32768, 32767
    for i in prange(src.shape[0], nogil=True, schedule="static", num_threads=num_threads):
        v = rintf(src[i])
        if v < lo:
            v = lo
        elif v > hi:
            v = hi
        dst[i] = <small_int>v
