"""The executor: every kernel call (``run_step``), and the hot path of a planned call.

``run_step`` is the one function that calls the kernels (``_kernels``); plans
(``_plan``) decide everything it is given. A kernel call, float or 8/16-bit, is a
``_kernels.Step`` made and checked when the plan compiles: running it hands over
two data pointers and a thread count. ``run_steps`` runs a plan's compiled steps
on a C-contiguous array; ``PlanBase`` is ``Plan``'s call (``p(x)``,
``p.backward(g)``) and ``cached_resize`` is ``resize``'s path for a repeated
call with plain arguments (its slot's last key compared in C, else one dict
look-up; ``_Last``): both check only what the
precompiled steps need (``Direct.source``: exact ndarray type, dtype and shape; a
strided or unaligned input is copied C-contiguous; ``Direct.into``: an ``out=`` the
checked path would take) and go to ``run_steps``, else to the checked Python path.
Nothing here decides anything about the numbers.
"""
cimport cython
cimport numpy as cnp
from cpython.object cimport Py_EQ, PyObject_RichCompareBool
from libc.string cimport memcpy

from cresize cimport _kernels as ck
from cresize cimport _openmp
from cresize._kernels cimport Step

import numpy as np

from cresize import _fork, _kernels, _spec

cdef extern from "_hugealloc.h":
    object cresize_huge_handler(int madvise_on)
    size_t CRESIZE_HUGE_MIN
    int cresize_pool_madv_free
    int cresize_pool_on
    void cresize_pool_set(size_t nbytes, int clear) nogil
    void cresize_pool_info(unsigned long long *out) nogil
    size_t cresize_pool_give_back() nogil
    size_t CRESIZE_POOL_DEFAULT

cdef extern from "numpy/arrayobject.h":
    object PyDataMem_SetHandler(object handler)
    # steals a reference to descr (the caller takes one for it)
    object PyArray_NewFromDescr(type subtype, cnp.dtype descr, int nd, cnp.npy_intp *dims,
                                cnp.npy_intp *strides, void *data, int flags, void *obj)

cnp.import_array()

try:
    from numpy._core.multiarray import _get_madvise_hugepage
except ImportError:  # NumPy 1.x
    from numpy.core.multiarray import _get_madvise_hugepage

cdef object _to_float = _kernels.integers_to_float
cdef object _to_int = _kernels.float_to_integers
cdef object _empty = np.empty
cdef object _resolve = None  # _threads.resolve, on first use (_threads imports this module)
cdef object _fork_state = _fork
cdef type _ndarray = np.ndarray
cdef Py_ssize_t _MAX_THREADS = _spec.MAX_THREADS
#: The 2 MiB-aligned data-memory handler (``_hugealloc.h``; None off Linux) and
#: whether ``new_result`` uses it (``huge_results``).
cdef object _huge = cresize_huge_handler(bool(_get_madvise_hugepage()))
cdef bint _use_huge = _huge is not None

#: Kinds of kernel call (the same numbers as ``_plan``'s constants); the first three
#: are ``_kernels.Step``'s (8/16-bit steps are ``FUSED``), the others conversions.
LINES, PLANES, FUSED = int(ck.LINES), int(ck.PLANES), int(ck.FUSED)
TO_FLOAT, TO_INT = 3, 4


cdef inline bint _holds(object a, int typenum, Py_ssize_t size, bint write):
    """``a`` is a C-contiguous, aligned, native ndarray of ``size`` values of ``typenum``."""
    cdef cnp.ndarray arr
    if not isinstance(a, _ndarray):
        return False
    arr = <cnp.ndarray>a
    return (cnp.PyArray_TYPE(arr) == typenum and cnp.PyArray_ISNOTSWAPPED(arr)
            and cnp.PyArray_IS_C_CONTIGUOUS(arr) and cnp.PyArray_ISALIGNED(arr)
            and cnp.PyArray_SIZE(arr) == size
            and (not write or cnp.PyArray_ISWRITEABLE(arr)))


cdef int _run(Step step, object src, object dst, int num_threads) except -1:
    """``step`` on arrays of its sizes and dtypes (checked here, in C)."""
    if not (_holds(src, step.src_type, step.src_size, False)
            and _holds(dst, step.dst_type, step.dst_size, True)):
        raise ValueError(f"kernel contract: a step of {step.src_size} {step.src_dtype} -> "
                         f"{step.dst_size} {step.dst_dtype} values needs C-contiguous, "
                         f"aligned, native arrays of those sizes (dst writeable)")
    step.run(cnp.PyArray_DATA(<cnp.ndarray>src), cnp.PyArray_DATA(<cnp.ndarray>dst),
             num_threads)
    return 0


cpdef run_step(int kind, object src, object dst, object args, int num_threads,
               Py_ssize_t work, Py_ssize_t min_work):
    """Every kernel call. ``src`` and ``dst`` are in the kernel's shape, ``args``
    the ``Step`` (LINES, PLANES, FUSED; ``()`` for the conversions); ``work`` (values
    read and written) bounds the threads, at least ``min_work`` each (a ``Step`` has
    its bound; the result does not depend on the count)."""
    cdef int n = num_threads
    cdef Py_ssize_t most = work // min_work
    if kind <= ck.FUSED:
        _run(<Step?>args, src, dst, num_threads)
        return
    if most < n:
        n = 1 if most < 1 else <int>most
    if kind == TO_FLOAT:
        _to_float(src, dst, n)
    else:
        _to_int(src, dst, n)


cpdef object new_result(tuple shape, cnp.dtype dtype):
    """An uninitialised C-contiguous array for a result (returned or a step's; like
    ``np.empty``, without its argument parsing): every allocation of one goes through
    here. From ``CRESIZE_HUGE_MIN`` (32 MiB) on Linux its data start 2 MiB-aligned
    (``_hugealloc.h``), so every 2 MiB of it can be a transparent huge page; it owns its
    data like ``np.empty``'s. NumPy's handler is a context variable: set for this
    allocation only, per thread."""
    cdef cnp.npy_intp dims[32]
    cdef Py_ssize_t i, d, nd = len(shape), cap = <Py_ssize_t>CRESIZE_HUGE_MIN
    cdef Py_ssize_t n = dtype.itemsize  # the bytes, capped at ``cap``
    cdef object old
    if nd > 32:
        return _empty(shape, dtype)
    for i in range(nd):
        d = shape[i]
        dims[i] = d
        if d <= 0:
            n = 0
        elif n:
            n = cap if d >= cap else min(n * d, cap)
    if _use_huge and n >= cap:  # the handler gives kept blocks back itself if need be
        old = PyDataMem_SetHandler(_huge)
        try:
            return cnp.PyArray_EMPTY(<int>nd, dims, dtype.type_num, 0)
        finally:
            PyDataMem_SetHandler(old)
    try:
        return cnp.PyArray_EMPTY(<int>nd, dims, dtype.type_num, 0)
    except MemoryError:  # out of memory or address space: not for want of kept blocks
        if cresize_pool_give_back() == 0:
            raise
    return cnp.PyArray_EMPTY(<int>nd, dims, dtype.type_num, 0)


def huge_results(object on=None):
    """Whether ``new_result`` aligns large results (2 MiB); ``on``: set it (False/True,
    for A/B measurements and tests). Returns the previous setting. Always False where
    the handler is unavailable (off Linux)."""
    global _use_huge
    cdef bint before = _use_huge
    if on is not None:
        _use_huge = bool(on) and _huge is not None
    return before


#: The pool's default bound (bytes).
POOL_DEFAULT = int(CRESIZE_POOL_DEFAULT)


def pool_limit(Py_ssize_t nbytes):
    """Bound the pool of freed large results (``_hugealloc.h``) to ``nbytes`` bytes
    (checked by the caller, ``_plan.set_result_cache_limit``), evicting the oldest."""
    with nogil:
        cresize_pool_set(<size_t>nbytes, 0)


def pool_clear():
    """Free every block the pool holds and zero its hits and misses (the bound stays)."""
    with nogil:
        cresize_pool_set(0, 1)


def pool_info():
    """The pool's ``limit``, ``nbytes`` and ``blocks`` held, ``hits`` and ``misses``
    (requests of at least ``CRESIZE_HUGE_MIN`` bytes)."""
    cdef unsigned long long info[5]
    cresize_pool_info(info)
    return {"limit": info[0], "nbytes": info[1], "blocks": info[2], "hits": info[3],
            "misses": info[4]}


def pool_madv_free(object on=None):
    """Whether blocks entering the pool are madvised ``MADV_FREE``; ``on``: set it (an
    A/B switch for measurements). Returns the previous setting."""
    global cresize_pool_madv_free
    cdef bint before = cresize_pool_madv_free
    if on is not None:
        cresize_pool_madv_free = bool(on)
    return before


def pool_use(object on=None):
    """Whether the pool is used (an A/B switch for measurements: off, results are new
    memory and the blocks held stay held). Returns the previous setting."""
    global cresize_pool_on
    cdef bint before = cresize_pool_on
    if on is not None:
        cresize_pool_on = bool(on)
    return before


cpdef object run_steps(list steps, object src, object out, int num_threads):
    """Run compiled ``steps`` on ``src`` (C-contiguous, their dtype); each step's
    result has the step's dtype (its last field); the last result goes to ``out``
    when given. Returns the result. Each step bounds its own thread count."""
    cdef Py_ssize_t i, last = len(steps) - 1
    cdef tuple step
    cdef object current = src, dst
    for i in range(last + 1):
        step = <tuple>steps[i]
        if i == last and out is not None:
            dst = out
        else:
            dst = new_result(<tuple>step[2], step[6])
        if step[5]:  # sizes and dtypes checked against the step, no reshape needed
            _run(<Step?>step[4], current, dst, num_threads)
        current = dst
    return current


cdef inline bint _has_shape(cnp.ndarray a, tuple shape):
    """``a.shape == shape``, without making ``a.shape``."""
    cdef Py_ssize_t i, nd = cnp.PyArray_NDIM(a)
    cdef cnp.npy_intp *dims = cnp.PyArray_DIMS(a)
    if nd != len(shape):
        return False
    for i in range(nd):
        if dims[i] != <Py_ssize_t>shape[i]:
            return False
    return True


cdef inline bint _is_dtype(cnp.dtype d, object want) noexcept:
    """``d`` is ``want`` (a builtin dtype: the instance arrays of it carry) or an equal
    copy of it: the same type number in native byte order (an unpickled array's dtype,
    ``newbyteorder("=")``'s, one with metadata), whose bytes the steps read alike. The
    copy is compared only where ``d is want`` fails: the plain call pays nothing."""
    return d is want or (d.type_num == (<cnp.dtype>want).type_num
                         and cnp.PyArray_ISNBO(d.byteorder))


cdef inline bint _apart(cnp.ndarray a, cnp.ndarray c):
    """``a`` (any strides) and ``c`` (C-contiguous) share no byte: their address
    ranges are disjoint (conservative where ``a`` is strided; exact where both are
    contiguous); an empty array holds no byte."""
    cdef Py_ssize_t i, nd = cnp.PyArray_NDIM(a), stride, extent
    cdef cnp.npy_intp *dims = cnp.PyArray_DIMS(a)
    cdef cnp.npy_intp *strides = cnp.PyArray_STRIDES(a)
    cdef char *lo = <char *>cnp.PyArray_DATA(a)
    cdef char *hi = lo + cnp.PyArray_ITEMSIZE(a)
    cdef char *c_lo = <char *>cnp.PyArray_DATA(c)
    if cnp.PyArray_SIZE(a) == 0 or cnp.PyArray_SIZE(c) == 0:
        return True
    for i in range(nd):
        stride = strides[i]
        extent = stride * (dims[i] - 1)
        if stride < 0:
            lo += extent
        else:
            hi += extent
    return hi <= c_lo or c_lo + cnp.PyArray_NBYTES(c) <= lo


#: ``Direct.source`` copies a strided array of at most this many values by
#: ``_loop_copy``, a larger one by NumPy (``PyArray_CopyInto``).
cdef Py_ssize_t _LOOP_COPY = 4096


def loop_copy_limit(object limit=None):
    """How many values ``Direct.source`` copies by ``_loop_copy`` at most (0: never);
    ``limit``: set it (an A/B switch for measurements). Returns the previous limit."""
    global _LOOP_COPY
    cdef Py_ssize_t before = _LOOP_COPY
    if limit is not None:
        _LOOP_COPY = limit
    return before


cdef void _loop_copy(cnp.ndarray a, cnp.ndarray c) noexcept:
    """``a`` (any strides, the same shape and dtype as ``c``) copied into ``c``
    (C-contiguous), the bytes as they are, row by row of its last axis: the expanded
    gradient of ``y.sum().backward()`` (every stride 0) and other small strided arrays.
    NumPy's copy machinery (its casts and iterators) runs cold between PyTorch's autograd
    operations, where it cost more than this loop (docs/kernels.md, round 16)."""
    cdef int k, nd = cnp.PyArray_NDIM(a)
    cdef cnp.npy_intp *dims = cnp.PyArray_DIMS(a)
    cdef cnp.npy_intp *strides = cnp.PyArray_STRIDES(a)
    cdef cnp.npy_intp index[cnp.NPY_MAXDIMS]
    cdef Py_ssize_t _row, j, n = cnp.PyArray_SIZE(a), item = cnp.PyArray_ITEMSIZE(a)
    cdef Py_ssize_t m = dims[nd - 1] if nd else 1, step = strides[nd - 1] if nd else 0
    cdef char *src = <char *>cnp.PyArray_DATA(a)
    cdef char *dst = <char *>cnp.PyArray_DATA(c)
    if n == 0:
        return
    for k in range(nd):
        index[k] = 0
    for _row in range(n // m):
        # constant sizes: one load and one store a value, aligned or not
        if item == 4:
            for j in range(m):
                memcpy(dst + 4 * j, src + step * j, 4)
        elif item == 8:
            for j in range(m):
                memcpy(dst + 8 * j, src + step * j, 8)
        else:
            for j in range(m):
                memcpy(dst + item * j, src + step * j, item)
        dst += item * m
        k = nd - 2
        while k >= 0:  # the next row's first value
            index[k] += 1
            src += strides[k]
            if index[k] < dims[k]:
                break
            src -= strides[k] * dims[k]
            index[k] = 0
            k -= 1


cdef class Direct:
    """A program's whole-array steps for a C-contiguous input of one shape and dtype
    that needs nothing else (``_plan._Program.direct``), and the result they make
    (``out_shape``, ``out_dtype``: the last step's)."""

    cdef readonly list steps
    cdef readonly tuple shape
    cdef readonly object dtype
    cdef readonly tuple out_shape
    cdef readonly object out_dtype

    def __init__(self, list steps, tuple shape, object dtype):
        self.steps, self.shape, self.dtype = steps, shape, dtype
        last = steps[len(steps) - 1]
        self.out_shape, self.out_dtype = tuple(last[2]), last[6]

    cdef inline object source(self, object x):
        """What the steps read for ``x``: ``x`` itself where it is exactly an ndarray of
        this shape and dtype, C-contiguous and aligned; its C-contiguous copy where it is
        such an ndarray but strided (Fortran order, negative or zero strides) or
        unaligned, at any size: the checked path copies it all the same
        (``_plan._kernel_array``), after 3-10 us of checks; else None (the checked
        path's)."""
        cdef cnp.ndarray a
        if type(x) is not _ndarray:
            return None
        a = <cnp.ndarray>x
        if not _is_dtype(a.descr, self.dtype) or not _has_shape(a, self.shape):
            return None
        if cnp.PyArray_IS_C_CONTIGUOUS(a) and cnp.PyArray_ISALIGNED(a):
            return x
        copy = new_result(self.shape, self.dtype)
        if cnp.PyArray_SIZE(a) <= _LOOP_COPY:
            _loop_copy(a, <cnp.ndarray>copy)
        else:
            cnp.PyArray_CopyInto(<cnp.ndarray>copy, a)
        return copy

    cdef inline bint into(self, object out, object x):
        """``out`` takes the steps' result as the checked path (``_plan._check_out``)
        would: exactly an ndarray of ``out_shape`` and ``out_dtype`` (native),
        C-contiguous, aligned, writeable, sharing no byte with the caller's ``x``. False
        for anything else (the checked path decides it, or raises its error)."""
        cdef cnp.ndarray o
        if type(out) is not _ndarray:
            return False
        o = <cnp.ndarray>out
        return (_is_dtype(o.descr, self.out_dtype) and cnp.PyArray_IS_C_CONTIGUOUS(o)
                and cnp.PyArray_ISALIGNED(o) and cnp.PyArray_ISWRITEABLE(o)
                and _has_shape(o, self.out_shape) and _apart(<cnp.ndarray>x, o))


#: How many times ``default_threads`` ran (``defaults_read``: that every call that needs
#: the default reads it anew).
cdef unsigned long long _defaults_read = 0


cpdef int default_threads() except -1:
    """What ``num_threads=None`` means, read at each call (``_threads.default``; the fork
    rule is ``_threads``'): OpenMP's current default (``omp_get_max_threads``: the ICV
    that ``OMP_NUM_THREADS``, threadpoolctl and ``omp_set_num_threads`` set; 1 in a
    serial build) up to ``MAX_THREADS``, the most an explicit ``num_threads`` may ask
    (``OMP_NUM_THREADS=100000`` gives 4096), 1 in a forked child (``_fork.forked``)."""
    global _defaults_read
    cdef int count
    _defaults_read += 1
    if _fork_state.forked:
        return 1
    count = _openmp.cresize_max_threads()
    return count if count <= _MAX_THREADS else <int>_MAX_THREADS


def defaults_read():
    """How many times ``default_threads`` ran in this process."""
    return _defaults_read


cdef inline int _plain_count(object num_threads):
    """``num_threads`` when it is a plain int from 1 to ``MAX_THREADS``, a count that
    ``_spec.threads_value`` passes unchanged (the common call), else 0: the one test of
    it, compared as ints in C."""
    if type(num_threads) is int and 0 < num_threads <= _MAX_THREADS:
        return <int>num_threads
    return 0


cdef int _threads_of(object num_threads) except -1:
    """``_threads.resolve``, with None's answer (``default_threads``) and a plain
    count's (itself, ``_plain_count``) known here, in C."""
    global _resolve
    cdef int count
    if num_threads is None:
        return default_threads()
    count = _plain_count(num_threads)
    if count:
        return count
    if _resolve is None:
        from cresize._threads import resolve
        _resolve = resolve
    return _resolve(num_threads)


cdef class PlanBase:
    """The calls of a ``Plan`` (``_plan.Plan`` subclasses it): a call of an ndarray of
    the plan's shape and dtype (strided ones copied), with or without a valid ``out``,
    goes straight to the precompiled steps (``_fwd``, ``_bwd``: ``Direct`` or None),
    everything else to the plan's checked path (``_run``). ``_fwd``
    (``_bwd``) is None until the plan makes its forward (backward) program
    (``Plan._forward``, ``Plan._backward``), which the first plain call makes and then
    takes the direct steps at once: a plan used only backward never makes the forward
    one."""

    cdef public object _fwd
    cdef public object _bwd
    cdef object _threads_value
    cdef int _fixed

    @property
    def _num_threads(self):
        """The plan's ``num_threads``, validated by ``_spec.threads_value``: None, a
        positive int, or a negative int counted back from the maximum (-1 = all); at most
        ``MAX_THREADS``."""
        return self._threads_value

    @_num_threads.setter
    def _num_threads(self, value):
        self._threads_value = value
        self._fixed = _plain_count(value)

    cdef int _count(self, object num_threads) except -1:
        if num_threads is None:
            if self._fixed:
                return self._fixed
            return _threads_of(self._threads_value)
        return _threads_of(num_threads)

    @cython.embedsignature(False)  # it would say PlanBase.__call__ (help, the docs)
    def __call__(self, x, out=None, *, num_threads=None):
        """Plan.__call__(self, x, out=None, *, num_threads=None)

        ``cresize.resize(x, ...)`` with this plan's arguments, bit for bit.

        Parameters
        ----------
        x : array_like
            Of shape ``p.input_shape`` and the plan's dtype.
        out : ndarray, optional
            C-contiguous array of shape ``p.output_shape`` and the plan's dtype.
        num_threads : int, optional
            As for ``cresize.resize``; None: the plan's own.

        Returns
        -------
        ndarray
            Of shape ``p.output_shape`` (or ``out``).

        Raises
        ------
        TypeError
            ``x`` of another dtype, or a Dask array (``cresize.dask.resize`` takes it).
        ValueError
            ``x`` or ``out`` of another shape, an ``out`` ``cresize.resize`` refuses.
        """
        cdef Direct d = self._fwd
        cdef object src
        if d is None:  # not made yet (the plan's first forward call), or none
            d = self._forward.direct
        if d is not None:
            src = d.source(x)
            if src is not None and (out is None or d.into(out, x)):
                return run_steps(d.steps, src, out, self._count(num_threads))
        return self._run(self._forward, x, out, self.input_shape, self.output_shape, "x",
                         num_threads)

    @cython.embedsignature(False)
    def backward(self, grad_output, out=None, *, num_threads=None):
        """Plan.backward(self, grad_output, out=None, *, num_threads=None)

        ``cresize.resize_backward(grad_output, input_shape, ...)``, bit for bit.

        Parameters
        ----------
        grad_output : array_like
            Of shape ``p.output_shape`` and the plan's dtype (float32 or float64).
        out : ndarray, optional
            C-contiguous array of shape ``p.input_shape`` and the plan's dtype.
        num_threads : int, optional
            As for ``cresize.resize_backward``; None: the plan's own.

        Returns
        -------
        ndarray
            Of shape ``p.input_shape`` (or ``out``).
        """
        cdef Direct d = self._bwd
        cdef object src
        if d is None:  # not made yet (the plan's first backward call), or none
            d = self._backward.direct
        if d is not None:
            src = d.source(grad_output)
            if src is not None and (out is None or d.into(out, grad_output)):
                return run_steps(d.steps, src, out, self._count(num_threads))
        return self._run(self._backward, grad_output, out, self.output_shape, self.input_shape,
                         "grad_output", num_threads)


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


cdef inline bint _plain_factor(object value):
    """``value`` is exactly a float or an int, or a tuple of them: equal ones (``2`` and
    ``2.0``) are the same scale factor (``_spec.factor`` reads each as its float), and
    the same dict key."""
    if type(value) is float or type(value) is int:
        return True
    if type(value) is not tuple:
        return False
    for v in <tuple>value:
        if type(v) is not float and type(v) is not int:
            return False
    return True


cdef inline bint _plain_args(object size, object scale_factor, object mode,
                             object align_corners, object antialias, object axes):
    """The arguments have plain types (exactly int, float, str, bool, None, tuples of
    them; ``fast_key``'s condition), so that equal values are the same argument (a
    scale factor's int and float alike: ``_plain_factor``)."""
    if size is not None and not _plain(size, int):
        return False
    if scale_factor is not None and not _plain_factor(scale_factor):
        return False
    if type(mode) is not str:
        return False
    if not (align_corners is False or align_corners is None or align_corners is True):
        return False
    if not (antialias is False or antialias is True):
        return False
    return axes is None or _plain(axes, int)


cpdef object fast_key(object x, object size, object scale_factor, object mode,
                      object align_corners, object antialias, object axes):
    """A dict key of a call whose arguments have plain types (exactly int, float,
    str, bool, tuples of them), else None: so that ``True`` never finds the plan of ``1``.
    ``x``: anything with ``shape`` and ``dtype`` (``cresize.torch`` passes tensors)."""
    if not _plain_args(size, scale_factor, mode, align_corners, antialias, axes):
        return None
    return (x.shape, x.dtype, size, scale_factor, mode, align_corners, antialias, axes)


#: Calls ``cached_resize`` answered and plans ``recall`` found (plan-cache hits that
#: skip ``_plan._Cache.get``).
cdef unsigned long long _hits = 0


cdef inline object _kept(dict table, object key):
    """The plan ``table`` (``fast_key`` -> weak reference) keeps for ``key``, or None
    (no key, never kept, or since dropped)."""
    if key is None:
        return None
    ref = table.get(key)
    if ref is None:
        return None
    return ref()


cpdef object recall(dict table, object key):
    """``_kept``; a plan found counts as a hit."""
    found = _kept(table, key)
    if found is not None:
        global _hits
        _hits += 1
    return found


cdef inline bint _same(object a, object b):
    """Plain values ``a`` and ``b`` are equal as dict keys are (``==``; the same object
    first). Plain values compare in C, without raising."""
    return a is b or PyObject_RichCompareBool(a, b, Py_EQ) == 1


@cython.final
cdef class _Last:
    """The ``fast_key`` (unpacked) of a call ``cached_resize`` answered through ``table``
    by its look-up, and ``table``'s weak reference to its plan: a later call of the same
    slot (``_slot``) compares its arguments with these (in C, with no key tuple made or
    hashed) instead of looking the key up. ``forget`` drops every slot whenever
    ``table`` changes (``_plan.remember``, the cache's clear and shrink), so a hit here
    is the look-up's answer; a weak reference, so the plan cache's byte bound still
    decides which plans live."""

    cdef dict table
    cdef object ref
    cdef bint backward
    cdef tuple shape
    cdef object dtype, size, scale_factor, mode, align_corners, antialias, axes


#: The last calls' keys (``_Last`` or None), one per slot: a few repeated calls that
#: alternate (two shapes, forward and backward) each keep theirs.
cdef enum:
    _SLOTS = 32
cdef list _recent = [None] * _SLOTS
cdef size_t _slot_mask = _SLOTS - 1
#: Counts ``forget``'s calls: a ``_Last`` made from a look-up is kept only if the table
#: did not change since (another thread may run while this one allocates).
cdef unsigned long long _generation = 0


def forget():
    """Drop what ``cached_resize`` remembers of its last calls (``_Last``): the table
    changed."""
    global _generation
    cdef Py_ssize_t i
    _generation += 1
    for i in range(_SLOTS):
        _recent[i] = None


def recent_slots(object n=None):
    """How many slots ``cached_resize`` uses (1 to 32, a power of two; 1: every call
    meets the last call's key, for tests and A/B measurements); ``n``: set it (the
    slots are emptied). Returns the previous count."""
    global _slot_mask
    cdef size_t before = _slot_mask + 1
    if n is not None:
        if type(n) is not int or not 1 <= n <= _SLOTS or n & (n - 1):
            raise ValueError(f"n must be a power of two from 1 to {_SLOTS}; got {n!r}")
        forget()
        _slot_mask = <size_t>n - 1
    return before


cdef inline Py_ssize_t _slot(cnp.ndarray x, object size, bint backward):
    """The slot of a call: from its direction, ``x``'s dtype and shape and an int
    ``size`` (the values are compared in full; the slot only spreads the keys)."""
    cdef Py_ssize_t i
    cdef size_t h = <size_t>(cnp.PyArray_NDIM(x) * 2 + backward)  # wraps, never overflows
    cdef cnp.npy_intp *dims = cnp.PyArray_DIMS(x)
    for i in range(cnp.PyArray_NDIM(x)):
        h = h * 31 + <size_t>dims[i]
    h = h * 31 + <size_t>cnp.PyArray_TYPE(x)
    if type(size) is int:
        h = h * 31 + <size_t>hash(size)
    elif type(size) is tuple:
        for v in <tuple>size:
            h = h * 31 + <size_t>hash(v)
    h ^= h >> 17
    return <Py_ssize_t>(h & _slot_mask)


cdef inline object _last_plan(object kept, dict table, cnp.ndarray x, object size,
                              object scale_factor, object mode, object align_corners,
                              object antialias, object axes, bint backward):
    """The plan of ``kept`` (a ``_Last`` or None), where this call's key (plain
    arguments, checked) is its key, else None."""
    cdef _Last last
    if kept is None:
        return None
    last = <_Last>kept
    if (last.table is not table or last.backward != backward or x.descr is not last.dtype
            or align_corners is not last.align_corners or antialias is not last.antialias
            or not _has_shape(x, last.shape) or not _same(size, last.size)
            or not _same(mode, last.mode) or not _same(axes, last.axes)
            or not _same(scale_factor, last.scale_factor)):
        return None
    return last.ref()


cdef object _look_up(dict table, object x, object size, object scale_factor, object mode,
                     object align_corners, object antialias, object axes, bint backward,
                     Py_ssize_t slot):
    """The plan ``table`` keeps for this call (plain arguments, checked), or None; one
    found is remembered in ``slot``."""
    cdef unsigned long long generation = _generation
    cdef _Last last
    key = (x.shape, x.dtype, size, scale_factor, mode, align_corners, antialias, axes)
    ref = table.get(("backward", key) if backward else key)
    if ref is None:
        return None
    found = ref()
    if found is None:
        return None
    last = _Last.__new__(_Last)
    last.table, last.ref, last.shape, last.dtype = table, ref, key[0], key[1]
    last.backward = backward
    last.size, last.scale_factor, last.mode = size, scale_factor, mode
    last.align_corners, last.antialias, last.axes = align_corners, antialias, axes
    if _generation == generation:
        _recent[slot] = last
    return found


cpdef object cached_resize(dict table, object x, object size, object scale_factor, object mode,
                           object align_corners, object antialias, object axes,
                           object num_threads, object out=None, bint backward=False):
    """``resize(x, ...)`` (``backward``: ``resize_backward(x, size, ...)``) for a repeated
    call with plain arguments, or None (not cached, or not a call its plan's direct steps
    take: ``Direct.source`` and ``Direct.into``): ``table`` maps ``fast_key`` (``backward``:
    ``("backward", fast_key)``) to weak references of plans. A call with the key of the
    last one that found its plan in its slot skips the look-up (``_Last``)."""
    global _hits
    cdef Direct d
    cdef Py_ssize_t slot
    if type(x) is not _ndarray or not _plain_args(size, scale_factor, mode, align_corners,
                                                  antialias, axes):
        return None
    slot = _slot(<cnp.ndarray>x, size, backward)
    found = _last_plan(_recent[slot], table, <cnp.ndarray>x, size, scale_factor, mode,
                       align_corners, antialias, axes, backward)
    if found is None:
        found = _look_up(table, x, size, scale_factor, mode, align_corners, antialias, axes,
                         backward, slot)
        if found is None:
            return None
    d = (<PlanBase?>found)._bwd if backward else (<PlanBase?>found)._fwd
    if d is None:
        return None
    src = d.source(x)
    if src is None or (out is not None and not d.into(out, x)):
        return None
    _hits += 1  # cache_info's "hits": this call found its plan
    return run_steps(d.steps, src, out, _threads_of(num_threads))


def fast_hits(bint reset=False):
    """How many calls ``cached_resize`` answered and plans ``recall`` found
    (``cache_info``'s ``hits`` adds them); ``reset``: zero the count (``clear_cache``).
    Returns the count before."""
    global _hits
    cdef unsigned long long before = _hits
    if reset:
        _hits = 0
    return before


cpdef object run_view(PlanBase plan, size_t address, object shape, tuple strides,
                      object dtype, object num_threads, bint adjoint=False):
    """``plan(x, num_threads=num_threads)`` (``adjoint``: ``plan.backward``) for a tensor
    ``x``'s data at ``address`` (its ``data_ptr``, nonzero) with these element
    ``strides``, so that PyTorch makes no NumPy view of it (``Tensor.numpy``: 0.5-0.8 us
    more). ``shape`` and ``dtype`` (NumPy's) are ``x``'s, each None where the caller
    knows it is the plan's (``cresize.torch``'s repeated call: they found the plan).
    None where they are not the plan's, ``strides`` is not one per axis or the plan has
    no direct steps: the caller takes the plan's call (and its checks and errors). The
    view exists during this call only: the steps read it (a strided or unaligned one
    through its copy, ``Direct.source``) and return a new array."""
    cdef Direct d = plan._bwd if adjoint else plan._fwd
    cdef cnp.npy_intp dims[32]
    cdef cnp.npy_intp steps[32]
    cdef Py_ssize_t i, nd
    cdef cnp.dtype kind
    if d is None:
        d = plan._backward.direct if adjoint else plan._forward.direct
        if d is None:
            return None
    kind = <cnp.dtype>d.dtype
    nd = len(d.shape)
    if address == 0 or nd > 32 or len(strides) != nd:
        return None
    if (dtype is not None and not _is_dtype(<cnp.dtype?>dtype, kind)) or (
            shape is not None and not _same(shape, d.shape)):
        return None
    for i in range(nd):
        dims[i] = <Py_ssize_t>d.shape[i]
        steps[i] = <Py_ssize_t>strides[i] * kind.itemsize
    cnp.Py_INCREF(kind)  # PyArray_NewFromDescr steals a reference
    view = PyArray_NewFromDescr(_ndarray, kind, <int>nd, dims, steps, <void *>address, 0, NULL)
    src = d.source(view)
    if src is None:
        return None
    return run_steps(d.steps, src, None, plan._count(num_threads))
