"""The executor: every kernel call (``run_step``), and the hot path of a planned call.

``run_step`` is the one function that calls the kernels (``_kernels``); plans
(``_plan``) decide everything it is given. ``run_steps`` runs a plan's compiled
steps on a C-contiguous array, and ``cached_resize`` is ``resize``'s path for a
repeated call with plain arguments: one dict look-up, then ``run_steps``.
Nothing here decides anything about the numbers.
"""
import numpy as np

from cresize import _kernels

cdef object _resize_2d = _kernels.resize_2d
cdef object _resize_2d_int = _kernels.resize_2d_int
cdef object _gather_lines = _kernels.gather_lines
cdef object _gather_planes = _kernels.gather_planes
cdef object _to_float = _kernels.integers_to_float
cdef object _to_int = _kernels.float_to_integers
cdef object _empty = np.empty
cdef object _intp = np.intp

#: Kinds of kernel call (the same numbers as ``_plan``'s constants).
LINES, PLANES, FUSED, TO_FLOAT, TO_INT, INTEGER = 0, 1, 2, 3, 4, 5


cpdef run_step(int kind, object src, object dst, tuple args, int num_threads,
               Py_ssize_t work, Py_ssize_t row, Py_ssize_t slots, Py_ssize_t min_work):
    """Every kernel call. ``src`` and ``dst`` are in the kernel's shape, ``args``
    its table arguments; ``work`` (values read and written) bounds the threads,
    at least ``min_work`` each (the result does not depend on the count)."""
    cdef int n = num_threads
    cdef Py_ssize_t most = work // min_work
    if most < n:
        n = 1 if most < 1 else <int>most
    if kind == 2:
        _resize_2d(src, dst, *args, _empty((n, row), src.dtype), _empty((n, slots), _intp), n)
    elif kind == 0:
        _gather_lines(src, dst, *args, n)
    elif kind == 1:
        _gather_planes(src, dst, *args, n)
    elif kind == 5:  # 8/16-bit: args = (channels, y, x, order, sum dtype); row = scratch length
        _resize_2d_int(src, dst, channels=args[0], y=args[1], x=args[2], order=args[3],
                       scratch=_empty((n, row), args[4]), tags=_empty((n, slots), _intp),
                       num_threads=n)
    elif kind == 3:
        _to_float(src, dst, n)
    else:
        _to_int(src, dst, n)


cpdef object run_steps(list steps, object src, object out, int num_threads,
                       Py_ssize_t min_work):
    """Run compiled ``steps`` on ``src`` (C-contiguous, their dtype); each step's
    result has the step's dtype (its last field); the last result goes to ``out``
    when given. Returns the result."""
    cdef Py_ssize_t i, last = len(steps) - 1
    cdef tuple step
    cdef object current = src, dst
    for i in range(last + 1):
        step = <tuple>steps[i]
        if i == last and out is not None:
            dst = out
        else:
            dst = _empty(step[2], step[8])
        if step[5]:
            run_step(step[0], current.reshape(step[1]), dst.reshape(step[3]), step[4],
                     num_threads, step[5], step[6], step[7], min_work)
        current = dst
    return current


cdef inline bint _plain(object value, type kind):
    """``value`` is exactly of type ``kind``, or a tuple of such values."""
    if type(value) is kind:
        return True
    if type(value) is not tuple:
        return False
    for v in <tuple>value:
        if type(v) is not kind:
            return False
    return True


cpdef object fast_key(object x, object size, object scale_factor, object mode,
                      object align_corners, object antialias, object axes):
    """A dict key of a call whose arguments have plain types (exactly int, float,
    str, bool, tuples of them), else None: so that ``True`` never finds the plan of ``1``."""
    if size is not None and not _plain(size, int):
        return None
    if scale_factor is not None and not _plain(scale_factor, float):
        return None
    if type(mode) is not str:
        return None
    if not (align_corners is False or align_corners is None or align_corners is True):
        return None
    if not (antialias is False or antialias is True):
        return None
    if axes is not None and not _plain(axes, int):
        return None
    return (x.shape, x.dtype, size, scale_factor, mode, align_corners, antialias, axes)


cpdef object cached_resize(dict table, object x, object size, object scale_factor, object mode,
                           object align_corners, object antialias, object axes, object threads,
                           object num_threads, Py_ssize_t min_work):
    """``resize(x, ...)`` for a repeated call with plain arguments, or None (not cached,
    or not a direct float call): ``table`` maps ``fast_key`` to weak references of plans."""
    key = fast_key(x, size, scale_factor, mode, align_corners, antialias, axes)
    if key is None:
        return None
    ref = table.get(key)
    if ref is None:
        return None
    found = ref()
    if found is None:
        return None
    program = found._forward
    steps = program.direct
    if steps is None or not x.flags.c_contiguous or x.dtype is not program.run_dtype:
        return None
    return run_steps(steps, x, None, threads(num_threads), min_work)
