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
from cython.parallel cimport parallel, prange, threadid

from cresize._openmp cimport cresize_max_threads, cresize_openmp_enabled


cdef extern from "_simd.h" nogil:
    void cresize_rows4_f32(float* out, const float* line, const Py_ssize_t* start,
                           const float* weight, Py_ssize_t width) noexcept


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
    if rows >= num_threads:
        for r in prange(rows, nogil=True, schedule="static", num_threads=num_threads):
            _resample_row(&dst[r, 0], &src[r, 0], 1, index, weight, count, start, select)
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
    cdef floating* buf
    cdef Py_ssize_t* tag
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
                _resample_row(&dst[b, oy, 0], &src[b, y_index[oy, 0], 0], channels,
                              x_index, x_weight, x_count, x_start, x_select)
            elif order == VERTICAL_FIRST:
                _combine_rows(buf, &src[b, 0, 0], in_row,
                              &y_index[oy, 0], &y_weight[oy, 0], y_count[oy], in_h)
                _resample_row(&dst[b, oy, 0], buf, channels, x_index, x_weight, x_count, x_start, x_select)
            else:
                for k in range(y_count[oy]):
                    iy = y_index[oy, k]
                    s = iy % slots
                    key = b * in_h + iy
                    if tag[s] != key:
                        _resample_row(buf + s * out_row, &src[b, iy, 0], channels,
                                      x_index, x_weight, x_count, x_start, x_select)
                        tag[s] = key
                _combine_rows(&dst[b, oy, 0], buf, out_row,
                              &y_index[oy, 0], &y_weight[oy, 0], y_count[oy], slots)


cdef inline floating _dot(const floating* line, const Py_ssize_t* index,
                          const floating* weight, Py_ssize_t count) noexcept nogil:
    cdef floating acc = 0
    cdef Py_ssize_t k
    for k in range(count):
        acc = acc + weight[k] * line[index[k]]
    return acc


cdef inline void _resample_row(floating* out, const floating* line, Py_ssize_t channels,
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
    cdef const floating* pixel
    cdef floating* target
    if select and channels == 1:  # 0 + x: the bits of 0 + 1 * x, as _dot gives
        for o in range(n_out):
            out[o] = 0 + line[index[o, 0]]
    elif floating is float and channels == 1 and width > 1:
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


cdef inline void _pixel3(floating* out, const floating* line, const Py_ssize_t* index,
                         const floating* weight, Py_ssize_t count) noexcept nogil:
    cdef floating a = 0, b = 0, c = 0, w
    cdef const floating* p
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


cdef inline void _pixel4(floating* out, const floating* line, const Py_ssize_t* index,
                         const floating* weight, Py_ssize_t count) noexcept nogil:
    cdef floating a = 0, b = 0, c = 0, d = 0, w
    cdef const floating* p
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


cdef inline void _combine_rows(floating* row, const floating* plane, Py_ssize_t width,
                               const Py_ssize_t* index, const floating* weight,
                               Py_ssize_t count, Py_ssize_t n_rows) noexcept nogil:
    """``row = sum_k weight[k] * plane[index[k] % n_rows]`` over rows of ``width``.

    Taps are taken two at a time in one sweep over the row, in tap order.
    """
    cdef Py_ssize_t k, c
    cdef const floating* a
    cdef const floating* b
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


ctypedef fused small_int:
    unsigned char
    signed char
    unsigned short
    short


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
