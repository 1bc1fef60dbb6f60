"""Gather kernels: apply one axis' tap table to an array.

A table row ``o`` holds ``count[o]`` taps ``(index[o, k], weight[o, k])``;
output ``o`` is ``sum_k weight[o, k] * input[index[o, k]]``, accumulated in the
array's dtype in tap order. The forward pass uses a mode's table, the backward
pass the transposed table, so neither needs atomics and every output is summed in
the same order whatever the thread count.

Everything here is called with validated, allocated, C-contiguous arrays (see
``_api.py``); nothing inside a ``nogil`` block can fail.
"""
from cython cimport floating
from cython.parallel cimport prange

from cresize._openmp cimport cresize_max_threads, cresize_openmp_enabled


def openmp_enabled():
    """True when the kernels were compiled with OpenMP."""
    return bool(cresize_openmp_enabled())


def max_threads():
    """OpenMP's current default thread count (1 in a serial build)."""
    return cresize_max_threads()


def gather_lines(const floating[:, ::1] src, floating[:, ::1] dst,
                 const Py_ssize_t[:, ::1] index, const floating[:, ::1] weight,
                 const Py_ssize_t[::1] count, int num_threads):
    """Resize along the contiguous axis: ``src (R, I) -> dst (R, O)``."""
    cdef Py_ssize_t rows = dst.shape[0], n_out = dst.shape[1]
    cdef Py_ssize_t r, o
    if rows >= num_threads:
        for r in prange(rows, nogil=True, schedule="static", num_threads=num_threads):
            for o in range(n_out):
                dst[r, o] = _dot(&src[r, 0], &index[o, 0], &weight[o, 0], count[o])
    else:
        for o in prange(n_out, nogil=True, schedule="static", num_threads=num_threads):
            for r in range(rows):
                dst[r, o] = _dot(&src[r, 0], &index[o, 0], &weight[o, 0], count[o])


cdef inline floating _dot(const floating* line, const Py_ssize_t* index,
                          const floating* weight, Py_ssize_t count) noexcept nogil:
    cdef floating acc = 0
    cdef Py_ssize_t k
    for k in range(count):
        acc = acc + weight[k] * line[index[k]]
    return acc


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
                      &index[o, 0], &weight[o, 0], count[o])


cdef inline void _combine_rows(floating* row, const floating* plane, Py_ssize_t width,
                               const Py_ssize_t* index, const floating* weight,
                               Py_ssize_t count) noexcept nogil:
    cdef Py_ssize_t k, c
    cdef const floating* line
    cdef floating w
    for c in range(width):
        row[c] = 0
    for k in range(count):
        w = weight[k]
        line = plane + index[k] * width
        for c in range(width):
            row[c] = row[c] + w * line[c]
