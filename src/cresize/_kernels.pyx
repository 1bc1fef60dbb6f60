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

A float kernel call is a ``Step``: its sizes and tables, checked once by
``make_step`` (a plan makes its steps when it compiles, see ``_plan.py``), then
run on data pointers (``Step.run``, from ``_fast``) with no further check. The
Python entry points (``gather_lines``, ``gather_planes``, ``resize_2d``) check
their arrays, make a ``Step`` and run the same loops. Nothing inside a ``nogil``
block can fail.
"""
cimport cython
from cython cimport floating
from libc.math cimport rintf, signbit
from libc.stdlib cimport free, malloc
from cpython.pyport cimport PY_SSIZE_T_MAX
from libc.string cimport memcmp, memcpy, memset
from cython.parallel cimport parallel, prange, threadid

from cresize._openmp cimport cresize_max_threads, cresize_openmp_enabled

import os

import numpy as np


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


cdef extern from "_team.h" nogil:
    # Where a parallel call's threads run: a worker that last ran on the calling
    # thread's CPU is kept off it for the call (_team.h).
    ctypedef struct cresize_team:
        pass
    cresize_team* cresize_team_begin(int n) noexcept
    void cresize_team_mark(cresize_team* team, int t) noexcept
    void cresize_team_start(cresize_team* team, int t) noexcept
    void cresize_team_end(cresize_team* team) noexcept
    void cresize_team_init() noexcept
    long cresize_team_steers
    long cresize_team_loadavg_reads
    long cresize_team_late
    long long cresize_team_late_ns
    int cresize_team_enabled
    const char* cresize_team_loadavg
    int cresize_team_parse_running(const char* buf) noexcept


cdef extern from "_quick.h" nogil:
    # A second thread for calls too short for an OpenMP team (_quick.h).
    ctypedef void (*cresize_quick_fn)(void* call, int tid, Py_ssize_t j0, Py_ssize_t j1,
                                      int first) noexcept nogil
    int cresize_quick_run(cresize_quick_fn fn, void* call, Py_ssize_t jobs,
                          Py_ssize_t chunk) noexcept
    int cresize_quick_on
    long cresize_quick_calls
    long cresize_quick_helped
    long cresize_quick_wakes
    long cresize_quick_holds
    int cresize_quick_init() noexcept


cdef extern from "_simd.h" nogil:
    void cresize_rows4_f32(float* out, const float* line, const Py_ssize_t* start,
                           const float* weight, Py_ssize_t width) noexcept
    int cresize_simd_best() noexcept
    void cresize_simd_set(int level) noexcept
    int cresize_simd_level
    int cresize_simd_avx512bw
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

cdef extern from "_simd_rows.h" nogil:
    # Sums of whole rows (``_combine_rows``) and fused sum + rounding store, AVX2 /
    # AVX-512; the best level counting AVX-512.
    int cresize_simd_best_rows() noexcept
    Py_ssize_t cresize_ring_row(Py_ssize_t index, Py_ssize_t n_rows) noexcept
    Py_ssize_t CRESIZE_SHORT_ROW
    void cresize_prefetch(const void* p, Py_ssize_t bytes) noexcept
    int cresize_combine_f32_f32(float* row, const float* plane, Py_ssize_t width,
                                const Py_ssize_t* index, const float* weight,
                                Py_ssize_t count, Py_ssize_t n_rows) noexcept
    int cresize_combine_f32_u8(float* row, const unsigned char* plane, Py_ssize_t width,
                               const Py_ssize_t* index, const float* weight,
                               Py_ssize_t count, Py_ssize_t n_rows) noexcept
    int cresize_combine_f32_s8(float* row, const signed char* plane, Py_ssize_t width,
                               const Py_ssize_t* index, const float* weight,
                               Py_ssize_t count, Py_ssize_t n_rows) noexcept
    int cresize_combine_f64_f64(double* row, const double* plane, Py_ssize_t width,
                                const Py_ssize_t* index, const double* weight,
                                Py_ssize_t count, Py_ssize_t n_rows) noexcept
    int cresize_combine_f64_u16(double* row, const unsigned short* plane, Py_ssize_t width,
                                const Py_ssize_t* index, const double* weight,
                                Py_ssize_t count, Py_ssize_t n_rows) noexcept
    int cresize_combine_f64_s16(double* row, const short* plane, Py_ssize_t width,
                                const Py_ssize_t* index, const double* weight,
                                Py_ssize_t count, Py_ssize_t n_rows) noexcept
    int cresize_combine_store_u8(unsigned char* out, const float* plane, Py_ssize_t width,
                                 const Py_ssize_t* index, const float* weight,
                                 Py_ssize_t count, Py_ssize_t n_rows) noexcept
    int cresize_combine_store_s8(signed char* out, const float* plane, Py_ssize_t width,
                                 const Py_ssize_t* index, const float* weight,
                                 Py_ssize_t count, Py_ssize_t n_rows) noexcept
    int cresize_combine_store_u16(unsigned short* out, const double* plane, Py_ssize_t width,
                                  const Py_ssize_t* index, const double* weight,
                                  Py_ssize_t count, Py_ssize_t n_rows) noexcept
    int cresize_combine_store_s16(short* out, const double* plane, Py_ssize_t width,
                                  const Py_ssize_t* index, const double* weight,
                                  Py_ssize_t count, Py_ssize_t n_rows) noexcept


cdef extern from "_simd_select.h" nogil:
    # Rows of a selection x table on floats: pixels moved, ``0 + x`` (``first``: ``1 * x``)
    # (``count``: NULL, or counts of at most 1, a pixel without a tap 0)
    void cresize_select_f32(float* out, const float* line, Py_ssize_t channels,
                            Py_ssize_t n_in, const Py_ssize_t* index, Py_ssize_t width,
                            const Py_ssize_t* count, Py_ssize_t n_out, int first,
                            int run, Py_ssize_t run_first, Py_ssize_t run_end) noexcept
    void cresize_select_f64(double* out, const double* line, Py_ssize_t channels,
                            const Py_ssize_t* index, Py_ssize_t width, const Py_ssize_t* count,
                            Py_ssize_t n_out, int first) noexcept

cdef extern from "_zeros.h" nogil:
    int cresize_negative_zero_f32(const float* x, Py_ssize_t n, float w) noexcept
    int cresize_negative_zero_f64(const double* x, Py_ssize_t n, double w) noexcept
    int cresize_any_zero_f32(const float* x, Py_ssize_t n) noexcept
    int cresize_any_zero_f64(const double* x, Py_ssize_t n) noexcept


cdef extern from "_simd_periodic.h" nogil:
    # The periodic horizontal pass: 1 when done, 0 when the caller's loops must run.
    int cresize_periodic_f32_f32(float* out, const float* line, Py_ssize_t n_in,
                                 Py_ssize_t channels, const Py_ssize_t* start,
                                 const float* weight, Py_ssize_t width, Py_ssize_t s,
                                 Py_ssize_t n) noexcept
    int cresize_periodic_f32_u8(float* out, const unsigned char* line, Py_ssize_t n_in,
                                Py_ssize_t channels, const Py_ssize_t* start,
                                const float* weight, Py_ssize_t width, Py_ssize_t s,
                                Py_ssize_t n) noexcept
    int cresize_periodic_f32_s8(float* out, const signed char* line, Py_ssize_t n_in,
                                Py_ssize_t channels, const Py_ssize_t* start,
                                const float* weight, Py_ssize_t width, Py_ssize_t s,
                                Py_ssize_t n) noexcept
    int cresize_periodic_f64_f64(double* out, const double* line, Py_ssize_t n_in,
                                 Py_ssize_t channels, const Py_ssize_t* start,
                                 const double* weight, Py_ssize_t width, Py_ssize_t s,
                                 Py_ssize_t n) noexcept
    int cresize_periodic_f64_u16(double* out, const unsigned short* line, Py_ssize_t n_in,
                                 Py_ssize_t channels, const Py_ssize_t* start,
                                 const double* weight, Py_ssize_t width, Py_ssize_t s,
                                 Py_ssize_t n) noexcept
    int cresize_periodic_f64_s16(double* out, const short* line, Py_ssize_t n_in,
                                 Py_ssize_t channels, const Py_ssize_t* start,
                                 const double* weight, Py_ssize_t width, Py_ssize_t s,
                                 Py_ssize_t n) noexcept
    # the exact float32 sums of 16-bit pixels (Sizes.x_exact32; the same bits)
    int cresize_periodic_x32_u16(double* out, const unsigned short* line, Py_ssize_t n_in,
                                 Py_ssize_t channels, const Py_ssize_t* start,
                                 const double* weight, Py_ssize_t width, Py_ssize_t s,
                                 Py_ssize_t n) noexcept
    int cresize_periodic_x32_s16(double* out, const short* line, Py_ssize_t n_in,
                                 Py_ssize_t channels, const Py_ssize_t* start,
                                 const double* weight, Py_ssize_t width, Py_ssize_t s,
                                 Py_ssize_t n) noexcept


cdef extern from "_simd_sums.h" nogil:
    int cresize_unit_rows_unrolled
    void cresize_unit_rows_unrolled_set(int on) noexcept
    void cresize_sum_2x2_rows_f32(float* out, const float* src, Py_ssize_t j0, Py_ssize_t j1,
                                  Py_ssize_t out_h, Py_ssize_t in_h, Py_ssize_t in_row,
                                  const float* wy, Py_ssize_t wy_stride, const float* wx,
                                  Py_ssize_t n_out, Py_ssize_t channels, int unit,
                                  int same) noexcept
    void cresize_sum_2x2_rows_f64(double* out, const double* src, Py_ssize_t j0,
                                  Py_ssize_t j1, Py_ssize_t out_h, Py_ssize_t in_h,
                                  Py_ssize_t in_row, const double* wy, Py_ssize_t wy_stride,
                                  const double* wx, Py_ssize_t n_out, Py_ssize_t channels,
                                  int unit, int same) noexcept
    void cresize_pairs_2x2_f32(float* out, const float* r, const float* w, Py_ssize_t n,
                               Py_ssize_t channels, int same) noexcept
    void cresize_pairs_2x2_f64(double* out, const double* r, const double* w, Py_ssize_t n,
                               Py_ssize_t channels, int same) noexcept
    int cresize_sum_2x2_u8(float* out, const unsigned char* a, const unsigned char* b,
                           float wa, float wb, const float* w, Py_ssize_t n,
                           Py_ssize_t channels, int same) noexcept
    int cresize_sum_2x2_s8(float* out, const signed char* a, const signed char* b, float wa,
                           float wb, const float* w, Py_ssize_t n, Py_ssize_t channels,
                           int same) noexcept
    int cresize_sum_2x2_u8_store(unsigned char* out, const unsigned char* a,
                                 const unsigned char* b, float wa, float wb, const float* w,
                                 Py_ssize_t n, Py_ssize_t channels, int same) noexcept
    int cresize_sum_2x2_s8_store(signed char* out, const signed char* a, const signed char* b,
                                 float wa, float wb, const float* w, Py_ssize_t n,
                                 Py_ssize_t channels, int same) noexcept
    int cresize_sum_2x2_u16_store(unsigned short* out, const unsigned short* a,
                                  const unsigned short* b, double wa, double wb, double w,
                                  Py_ssize_t n, Py_ssize_t channels, int same) noexcept
    int cresize_sum_2x2_s16_store(short* out, const short* a, const short* b, double wa,
                                  double wb, double w, Py_ssize_t n, Py_ssize_t channels,
                                  int same) noexcept


#: SIMD levels, lowest first (``_simd_pixels.h``).
SIMD_LEVELS = ("none", "sse2", "avx2", "avx512")
#: ``CRESIZE_SIMD`` as ``_init_simd`` read it (``None``: unset), for ``show_config``.
simd_requested = None


def _caller_level():
    """The ``stacklevel`` of the first frame outside importlib and cresize: the user's
    line that loaded the kernels (``import``, a first ``cresize.resize``) as they load,
    or that called a reader (``_init_simd``) later. Cython functions add no frame, so
    level 1 is the innermost Python frame; where every frame is inside, the outermost."""
    import importlib
    import sys
    inside = (os.path.dirname(importlib.__file__) + os.sep,
              os.path.dirname(os.path.abspath(__file__)) + os.sep)
    frame = sys._getframe(0)
    level = 1
    while frame.f_back is not None:
        where = frame.f_code.co_filename  # "<frozen importlib._bootstrap>", "<string>"
        if not (where.startswith("<frozen importlib")
                or not where.startswith("<") and os.path.abspath(where).startswith(inside)):
            break
        frame = frame.f_back
        level += 1
    return level


def _variable(name, choices, using):
    """The environment variable ``name``, stripped and in lower case, where it is one of
    ``choices``; None where it is unset or empty, or (with a RuntimeWarning that names
    it, its value, ``choices`` and ``using``, what is done instead, at the user's line:
    ``_caller_level``) any other value."""
    import warnings
    asked = os.environ.get(name, "").strip().lower()
    if asked and asked not in choices:
        warnings.warn(f"{name}={asked!r} is not one of {', '.join(choices)}: using {using}",
                      RuntimeWarning, stacklevel=_caller_level())
        return None
    return asked or None


def _init_simd():
    """Read ``CRESIZE_SIMD`` once, at import: ``none`` forces the portable loops,
    ``sse2`` / ``avx2`` / ``avx512`` cap the level, unset or ``auto`` takes the best the
    CPU has. Also puts the ``avx512`` level's 2x2 sums of weight 1 back on the buffered
    loop (``_unit_rows_unrolled``)."""
    import os
    global simd_requested
    best = cresize_simd_best_rows()
    simd_requested = os.environ.get("CRESIZE_SIMD")
    asked = _variable("CRESIZE_SIMD", ("auto",) + SIMD_LEVELS, "auto")
    # (not `asked in (None, "auto")`: Cython compares with None by value there, which gcc
    # warns of, -Warray-bounds, in the wheel's build)
    level = best if asked is None or asked == "auto" else min(SIMD_LEVELS.index(asked), best)
    cresize_simd_set(level)
    cresize_unit_rows_unrolled_set(0)


_init_simd()
cresize_team_init()


#: Thread steering's modes (``_team.h``), by ``cresize_team_enabled``'s number.
STEERING_MODES = ("off", "auto", "always")

#: Where the steering mode in effect came from: "default", "environment" (the
#: ``CRESIZE_THREAD_STEERING`` variable, read once as the kernels load) or "call"
#: (``set_thread_steering``, or ``team_steering`` with a mode).
steering_source = "default"


def _set_steering(level, source):
    """Steer in mode ``level`` (an index of ``STEERING_MODES``) from now on; the mode
    that was in effect."""
    global cresize_team_enabled, steering_source
    previous = STEERING_MODES[cresize_team_enabled]
    cresize_team_enabled = level
    steering_source = source
    return previous


def _init_steering():
    """Read ``CRESIZE_THREAD_STEERING`` once, as the kernels load: ``off``, ``auto`` or
    ``always`` (any case); unset or empty leaves the default."""
    asked = _variable("CRESIZE_THREAD_STEERING", STEERING_MODES, "the default")
    if asked is not None:
        _set_steering(STEERING_MODES.index(asked), "environment")


#: Where the quick pair's setting came from: "default", "environment" (the
#: ``CRESIZE_QUICK_THREAD`` variable, read once as the kernels load) or "call"
#: (``set_quick_thread``).
quick_source = "default"


def set_quick_thread(bint on):
    """Let calls of at most two threads run on the quick pair (the calling thread and a
    helper thread that spins briefly between calls, ``_quick.h``; Linux) from now on, or
    take an OpenMP team as before; what was in effect. The same bits either way. The
    variable ``CRESIZE_QUICK_THREAD=off`` turns it off as the kernels load."""
    global cresize_quick_on, quick_source
    previous = bool(cresize_quick_on)
    cresize_quick_on = on
    quick_source = "call"
    return previous


def quick_thread():
    """``(on, source)``: whether calls may take the quick pair, and where that came from
    (``quick_source``)."""
    return bool(cresize_quick_on), quick_source


def quick_counts():
    """``(calls, helped, wakes, holds)``: quick calls that found the pair free, those in
    which the helper ran a chunk, those that woke it, and those that waited long for the
    helper's chunks (it lost its CPU; then it is left asleep a while) (tests,
    benchmarks)."""
    return cresize_quick_calls, cresize_quick_helped, cresize_quick_wakes, cresize_quick_holds


def _read_quick_variable():
    """Read ``CRESIZE_QUICK_THREAD`` once, as the kernels load: ``on`` or ``off`` (any
    case); unset or empty leaves it on."""
    global cresize_quick_on, quick_source
    asked = _variable("CRESIZE_QUICK_THREAD", ("on", "off"), "on")
    if asked is not None:
        cresize_quick_on = asked == "on"
        quick_source = "environment"


_read_quick_variable()
cresize_quick_init()  # the fork handler, before any call can hold the pair (_quick.h)


def set_thread_steering(mode):
    """Choose when a parallel call keeps a worker thread off the calling thread's CPU
    ("thread steering", Linux).

    In an OpenMP team (a call of three threads or more, or of two with the quick pair
    off: ``CRESIZE_QUICK_THREAD=off``), Linux can wake a sleeping worker on the CPU
    where the calling thread runs, and the call then runs its halves one after the
    other (its one-thread time) while another CPU idles. Steering keeps such a
    worker off the caller's CPU for the call and gives it its CPUs back when the
    call's threads are done. Every mode gives the same bits; elsewhere than Linux
    nothing is steered in any mode. The environment variable
    ``CRESIZE_THREAD_STEERING`` (the same names, any case) sets the mode when
    cresize's kernels load (its first call); this function overrides it from then
    on, for every thread of the process. ``show_config()`` reports the mode in
    effect and where it came from.

    Parameters
    ----------
    mode : {"off", "auto", "always"}
        ``"auto"`` (the default on Linux): only when another CPU may be free (fewer
        threads of the whole system runnable than CPUs to steer to, read from
        ``/proc/loadavg``; a steered worker that starts late stops it for the next
        calls). ``"off"``: never; a worker runs where the system wakes it.
        ``"always"``: whatever else runs on the machine (for measuring, or for CPUs
        kept for this process alone: on a busy machine the steered worker waits for
        the other CPU's time slices, milliseconds a call).

    Returns
    -------
    str
        The mode in effect before the call.

    Raises
    ------
    TypeError
        ``mode`` is not a string.
    ValueError
        ``mode`` is not one of ``"off"``, ``"auto"``, ``"always"`` (lower case).

    Examples
    --------
    >>> import cresize
    >>> previous = cresize.set_thread_steering("off")
    >>> cresize.set_thread_steering(previous)
    'off'
    """
    if not isinstance(mode, str):
        raise TypeError(f"mode must be a string, one of {', '.join(STEERING_MODES)}; "
                        f"got {mode!r}")
    if mode not in STEERING_MODES:
        raise ValueError(f"mode must be one of {', '.join(STEERING_MODES)}; got {mode!r}")
    return _set_steering(STEERING_MODES.index(mode), "call")


def thread_steering():
    """The steering mode in effect and where it came from (``steering_source``)."""
    return STEERING_MODES[cresize_team_enabled], steering_source


_init_steering()


def team_steering(mode=None):
    """How many times a worker thread was kept off the calling thread's CPU for a
    call (``_team.h``), and, with ``mode``, when to do it from now on: 0 (or False)
    never, 1 (or True; the default) when another CPU may be free, 2 always (for
    tests and measuring; the public way is ``set_thread_steering``)."""
    if mode is not None:
        if mode not in (0, 1, 2):
            raise ValueError(f"mode must be 0, 1 or 2 (or a bool); got {mode!r}")
        _set_steering(int(mode), "call")
    return cresize_team_steers


# The file the default steering mode reads (``_team.h``), kept alive here.
cdef bytes _team_loadavg_path = b"/proc/loadavg"


def _team_loadavg(path=None):
    """For tests: the file the default steering mode reads its runnable threads from
    (``/proc/loadavg``), and, with ``path`` (str or bytes), another one from now on."""
    global _team_loadavg_path, cresize_team_loadavg
    if path is not None:
        _team_loadavg_path = os.fsencode(path)
        cresize_team_loadavg = _team_loadavg_path
    return os.fsdecode(_team_loadavg_path)


def _team_loadavg_reads():
    """For tests: how many times the default steering mode read its file."""
    return cresize_team_loadavg_reads


def _team_late(late_ns=None):
    """For tests: how many steered workers began their share late (``_team.h``), and,
    with ``late_ns``, how late is late from now on (100000 ns by default)."""
    global cresize_team_late_ns
    if late_ns is not None:
        cresize_team_late_ns = late_ns
    return cresize_team_late


def _team_parse_loadavg(bytes text):
    """For tests: the runnable threads that the default steering mode reads from a
    ``/proc/loadavg`` text (the fourth field's first number; -1: not of that form)."""
    return cresize_team_parse_running(text)


def simd_level():
    """The SIMD level the kernels use: ``"none"``, ``"sse2"``, ``"avx2"`` or ``"avx512"``
    (AVX-512F: the sums of whole rows and periodic rows; with AVX512BW also the 16-bit
    2x2 halves, ``simd_avx512bw``; the rest runs its AVX2 loops).

    Every level gives the same bits; ``CRESIZE_SIMD=none`` (read at import) forces
    the portable loops.
    """
    return SIMD_LEVELS[cresize_simd_level]


def simd_avx512bw():
    """Whether the 16-bit 2x2 halves run their 512-bit loop (AVX512BW): at level
    ``avx512`` on a CPU with AVX512BW only (``CRESIZE_SIMD=avx2`` and below turn it off).
    The same bits either way."""
    return bool(cresize_simd_avx512bw)


def _unit_rows_unrolled(on=None):
    """Whether the ``avx512`` level sums float32 2x2 blocks of weight 1 (the x2 nearest
    backward) by its unrolled rows (True) or by the buffered loop of ``avx2`` (False);
    ``on`` sets it (for tests and to measure other machines; ``_init_simd`` resets it to
    False, ``_simd_sums.h`` says why). The same bits either way."""
    if on is not None:
        cresize_unit_rows_unrolled_set(bool(on))
    return bool(cresize_unit_rows_unrolled)


def openmp_enabled():
    """True when the kernels were compiled with OpenMP."""
    return bool(cresize_openmp_enabled())


def max_threads():
    """OpenMP's current default thread count (1 in a serial build)."""
    return cresize_max_threads()


cpdef enum Order:
    RING = 0
    VERTICAL_FIRST = 1
    DIRECT = 2


#: Pixels of at most this many values take the block paths (``_simd_sums.h``'s buffers).
MAX_BLOCK_CHANNELS = 4

cdef enum:
    _PIXEL_CHANNELS = 4

#: Pixels of at most this many values are resampled by the pixel kernels
#: (``_simd_pixels.h``: AVX2 value lanes, a register per pixel, ``_pixel3`` / ``_pixel4``).
MAX_PIXEL_CHANNELS = _PIXEL_CHANNELS

cdef enum:
    ROW_CHUNK = 16384

cdef enum:
    # Short rows (``CRESIZE_SHORT_ROW``) of a ``VERTICAL_FIRST`` sweep: the new input
    # rows of the output row this many ahead are prefetched (``_rows_ahead``).
    ROWS_AHEAD = 4
    # ``DIRECT`` rows (nearest) shrinking, longer than ``CRESIZE_SHORT_ROW`` and of at
    # most this many bytes: the input row of the output row ``ROWS_AHEAD`` ahead is
    # prefetched too (``_rows_ahead``)
    DIRECT_AHEAD_BYTES = 4096

#: Values of integer sums an integer output row of ``DIRECT`` order keeps at a time
#: (``_pixels_stored``): a long row (an ``(L, C)`` signal) needs no row of sums.
INT_ROW_CHUNK = ROW_CHUNK

#: ``Step``'s default bound of threads: none below the call's own.
NO_BOUND = 1 << 30


cdef class Step:
    """One kernel call with everything but the data fixed: sizes and tap tables,
    checked once when it is made (``make_step``), so that a call hands over only
    two data pointers and a thread count (``run``). It holds its tables alive and
    no scratch (each call allocates its own rows per thread, in C), so one step may
    run in several threads at once. Float steps read and write their sums' dtype;
    an 8/16-bit step (``make_step(..., src_dtype=, dst_dtype=)``, ``FUSED``) reads or
    writes integers (``resize_2d_int``'s loops).

    ``Step(src, dst, num_threads)`` runs it on C-contiguous arrays of
    ``src_size`` values of ``src_dtype`` and ``dst_size`` values of ``dst_dtype``
    (checked).
    """

    @property
    def blocks(self):
        """``(y_block, x_block)``: the block sizes this step reads without an index (0: none)."""
        return (self.size.y_block, self.size.x_block)

    @property
    def channels(self):
        """Values per pixel of a ``FUSED`` step's rows (1 otherwise)."""
        return self.size.channels

    @property
    def unit_blocks(self):
        """Blocks of 2x2 whose weights are all 1, summed without the products (same bits)."""
        return bool(self.size.unit)

    @property
    def same_x_weights(self):
        """Blocks of 2 along x whose weights all have the same bits (``Sizes.x_same``):
        the ``avx512`` pair sums hold them in one register."""
        return bool(self.size.x_same)

    @property
    def period(self):
        """``(s, first, n)``: the x outputs this step resamples by the periodic pass
        (``Taps.period``; ``(0, 0, 0)``: none)."""
        return (self.size.x_period, self.size.x_first, self.size.x_periods)

    @property
    def exact_float32(self):
        """Whether the periodic pass sums the 16-bit pixels in float32, exactly
        (``_plan.exact_in_float32``; the bits of the float64 sums)."""
        return bool(self.size.x_exact32)

    def __call__(self, src, dst, int num_threads):
        cdef const unsigned char[::1] sb
        cdef unsigned char[::1] db
        for name, a, dtype, size in (("src", src, self.src_dtype, self.src_size),
                                     ("dst", dst, self.dst_dtype, self.dst_size)):
            if not (isinstance(a, np.ndarray) and a.flags.c_contiguous):
                raise ValueError("src and dst must be C-contiguous arrays")
            if a.dtype != dtype:
                raise TypeError(f"{name} must hold {dtype} values (the step's); got {a.dtype}")
            _check_same(f"{name} values", a.size, f"the step's {name} values", size)
        sb, db = src.reshape(-1).view(np.uint8), dst.reshape(-1).view(np.uint8)
        self.run(&sb[0] if sb.shape[0] else NULL, &db[0] if db.shape[0] else NULL, num_threads)

    cdef int run(self, const void* src, void* dst, int num_threads, void* scratch=NULL,
                 Py_ssize_t scratch_stride=0, Py_ssize_t* tags=NULL,
                 Py_ssize_t tags_stride=0) except -1:
        """Run on ``src`` / ``dst`` (``src_size`` / ``dst_size`` values of the step's
        dtype; the caller checked them) with at most ``num_threads`` threads, and
        no OpenMP region for one. ``scratch`` / ``tags`` (FUSED): a row per thread of
        at least ``size.row`` / ``size.slots`` values, ``*_stride`` apart; NULL:
        allocated here."""
        cdef int n = num_threads, failed = 0
        cdef bint quick = False
        _check_threads(num_threads)
        if n > self.most_threads:
            n = self.most_threads
        if num_threads >= 2 and n <= 2 and self.quick and cresize_quick_on:
            n, quick = 2, True  # the calling thread and the quick pair's helper
        if self.dst_size == 0:
            return 0
        with nogil:  # other Python threads run meanwhile
            if self.kind == FUSED:
                if self.wide:
                    failed = _fused_from(&self.size, self.y_index, self.y_wd, self.y_count,
                                         self.x_index, self.x_wd, self.x_count, self.x_start,
                                         src, <char*>dst, n, <double*>scratch, scratch_stride,
                                         tags, tags_stride, quick)
                else:
                    failed = _fused_from(&self.size, self.y_index, self.y_wf, self.y_count,
                                         self.x_index, self.x_wf, self.x_count, self.x_start,
                                         src, <char*>dst, n, <float*>scratch, scratch_stride,
                                         tags, tags_stride, quick)
            elif self.kind == LINES:
                if self.wide:
                    _lines(&self.size, self.x_index, self.x_wd, self.x_count, self.x_start,
                           <const double*>src, <double*>dst, n, quick)
                else:
                    _lines(&self.size, self.x_index, self.x_wf, self.x_count, self.x_start,
                           <const float*>src, <float*>dst, n, quick)
            elif self.wide:
                _planes(&self.size, self.y_index, self.y_wd, self.y_count, <const double*>src,
                        <double*>dst, n, quick)
            else:
                _planes(&self.size, self.y_index, self.y_wf, self.y_count, <const float*>src,
                        <float*>dst, n, quick)
        if failed:
            raise MemoryError("no memory for the kernel's scratch rows")
        return 0


def make_step(int kind, Py_ssize_t n_planes, Py_ssize_t in_h, Py_ssize_t in_row,
              tuple y=None, tuple x=None, Py_ssize_t channels=1, int order=DIRECT,
              Py_ssize_t slots=1, Py_ssize_t x_block=0, Py_ssize_t y_block=0,
              Py_ssize_t most_threads=NO_BOUND, bint first_product=False, src_dtype=None,
              dst_dtype=None, bint quick=False):
    """A checked ``Step`` on ``src (n_planes, in_h, in_row)``.

    ``LINES``: ``x`` = ``(index, weight, count, start, select)`` (``Taps.row_args``)
    resamples each row (``in_h`` = 1); a sixth entry, ``(s, first, n)``
    (``Taps.period``; checked), lets the outputs that repeat with period ``s`` take the
    periodic horizontal pass (the same bits); ``(s, first, n, True)``: that pass sums
    16-bit pixels in float32, exactly (the plan's rule, ``_plan.exact_in_float32``; a
    16-bit ``src_dtype`` and float64 weights only, else ValueError). ``PLANES``:
    ``y`` = ``(index, weight, count)`` (``Taps.kernel_args``) combines whole rows of
    ``in_row`` values. ``FUSED``:
    both, rows of pixels of ``channels`` values, ``order`` and ``slots`` as in
    ``resize_2d``. Weights of float32 or float64 (both tables the same) set the
    step's dtype. ``x_block`` = ``Taps.block`` of the x table (``f``: row ``o`` reads
    inputs ``o*f … o*f + f - 1``; checked), whose rows then read their inputs without
    the index table (the same bits); ``y_block`` likewise for the y table (blocks of
    2x2 are summed in one sweep over their two rows). ``most_threads`` bounds the
    threads of every call. ``quick``: a call of at most two threads (by ``most_threads``
    and the count asked for), asked for more than one, runs on the calling thread and
    the quick pair's helper (``_quick.h``) instead of an OpenMP team, where that helper
    is on and free; the same bits.

    ``first_product`` (``FUSED``, ``DIRECT``, one input and one output row: the
    resample of rows of pixels along one axis, standing in for a combination of whole
    rows, ``PLANES``): the results get the bits of sums started from their first
    product, as ``_combine_rows`` starts them, instead of from 0. The two differ only
    where every product is -0 (-0 against +0); such outputs are set to -0.

    ``src_dtype`` / ``dst_dtype`` (None: the weights' dtype, the sums'): uint8, int8,
    uint16 or int16 make an integer step (``FUSED``; ``resize_2d_int``'s loops), which
    reads the integers as they are or rounds its sums into them (``clip(rint(.))``,
    half to even); nearest (a selection x table, ``DIRECT``) from integers to the same
    integers copies pixels. The plan passes the weights of float32 for 8-bit images
    and float64 for 16-bit ones.
    """
    cdef Step s = Step.__new__(Step)
    cdef Sizes* z = &s.size
    cdef object weight
    if kind not in (LINES, PLANES, FUSED):
        raise ValueError(f"kind must be LINES, PLANES or FUSED; got {kind}")
    if n_planes < 0 or in_h < 0 or in_row < 0:
        raise ValueError(f"src shape ({n_planes}, {in_h}, {in_row}) has a negative length")
    if most_threads < 1:
        raise ValueError(f"most_threads must be >= 1; got {most_threads}")
    s.kind = kind
    s.most_threads = <int>min(most_threads, NO_BOUND)
    s.quick = quick
    z.n_planes, z.in_h, z.in_row = n_planes, in_h, in_row
    z.out_h, z.out_row, z.channels, z.in_px = in_h, in_row, 1, in_row
    z.order, z.slots, z.row, z.x_select = order, 1, 0, False
    z.out_kind, z.src_kind, z.gather, z.x_identity, z.unit = 0, 0, False, False, False
    z.copy = False
    z.x_period, z.x_first, z.x_periods, z.x_exact32 = 0, 0, 0, False
    z.x_run, z.x_run_first, z.x_run_end = 0, 0, 0
    z.first_product = first_product
    if first_product and not (kind == FUSED and order == DIRECT and in_h == 1
                              and y is not None and len(y[0]) == 1):
        raise ValueError("first_product needs a FUSED step of order DIRECT from single rows to "
                         "single rows (in_h 1, a y table of one output)")
    if kind != LINES:
        s.y_index, weight, s.y_count = y
        s.wide = weight.dtype.itemsize == 8
        _keep_weights(s, True, weight)
        z.out_h = s.y_index.shape[0]
    if kind != PLANES:
        s.x_index, weight, s.x_count, s.x_start, z.x_select = x[:5]
        if kind == LINES:
            s.wide = weight.dtype.itemsize == 8
        elif s.wide != (weight.dtype.itemsize == 8):
            raise TypeError("the y and x weights must have the same dtype")
        _keep_weights(s, False, weight)
    integers = _step_dtypes(s, src_dtype, dst_dtype)
    if integers and (kind != FUSED or first_product):
        raise ValueError("an integer src_dtype or dst_dtype needs a FUSED step without "
                         "first_product")
    if kind == LINES:
        if in_h != 1:
            raise ValueError(f"a LINES step reads rows: in_h must be 1; got {in_h}")
        z.out_row = s.x_index.shape[0]
        _check_axis("", s.x_index, _rows(s, False), _width(s, False), s.x_count, z.out_row,
                    in_row)
        _check_row_extras("", s.x_index, s.x_count, s.x_start, z.x_select, in_row)
    elif kind == PLANES:
        _check_axis("", s.y_index, _rows(s, True), _width(s, True), s.y_count, z.out_h, in_h)
    else:
        z.channels, z.slots = channels, slots
        z.out_row = s.x_index.shape[0] * channels
        _check_2d_tables(in_h, in_row, z.out_h, z.out_row, channels, s.y_index, _rows(s, True),
                         _width(s, True), s.y_count, s.x_index, _rows(s, False),
                         _width(s, False), s.x_count, s.x_start, z.x_select, order, slots)
        z.in_px = in_row // channels
        if <object>slots * max(z.out_row, 1) * sizeof(double) > PY_SSIZE_T_MAX:
            raise ValueError(f"slots ({slots}): a ring of {slots} rows of {z.out_row} values "
                             f"would hold more bytes than any array can")
        z.row = scratch_length(order, slots, in_row, z.out_row, True)
    if kind != PLANES and len(x) > 5 and not x_block:
        _check_period(z, x[5], s.x_index, _weights(s, False), s.x_count, s.x_start)
    if x_block:
        _check_block(s, x_block, False)
        z.x_block = x_block
        if z.channels > 1:  # a weight per input value (_row, _blocks_2x2): same products
            _keep_weights(s, False, value_weights(_weights(s, False), z.channels))
    if y_block:
        _check_block(s, y_block, True)
        z.y_block = y_block
    if z.x_exact32 and (s.src_dtype.kind == "f" or s.src_dtype.itemsize != 2 or not s.wide):
        raise ValueError(f"x period {x[5]}: exact float32 sums (a fourth entry True) need a "
                         f"16-bit integer src_dtype and float64 weights; src_dtype is "
                         f"{s.src_dtype}")
    if first_product:
        z.least_weight = _least_positive_weight(s)
    z.unit = z.x_block == 2 and z.y_block == 2 and z.channels == 1 and _unit_weights(s)
    z.x_same = z.x_block == 2 and _same_x_weights(s)
    # nearest on floats (and its adjoint when shrinking: at most one tap of weight 1):
    # rows of pixels moved (_row), no sums
    z.copy = (kind != PLANES and not integers and not z.x_block
              and 1 <= z.channels <= _PIXEL_CHANNELS and (z.x_select or _unit_taps(s)))
    if z.copy and z.x_select and s.src_dtype == np.float32 and z.channels == 3:
        z.x_run, z.x_run_first, z.x_run_end = _select_run(s.x_index, z.in_px, z.channels)
    z.itemsize = s.dst_dtype.itemsize
    z.ring_len = z.row
    if integers:  # as resize_2d_int sets them (a row of sums before an integer output)
        z.out_kind = 0 if s.dst_dtype.kind == "f" else ord(s.dst_dtype.char)
        z.src_kind = 0 if s.src_dtype.kind == "f" else ord(s.src_dtype.char)
        z.gather = z.x_select and order == DIRECT and s.src_type == s.dst_type
        # Whole rows combined (a single-axis step): the combination is the output row.
        z.x_identity = z.x_select and s.x_index.shape[0] == 1 and in_row == z.out_row
        z.row = scratch_length(order, slots, in_row, z.out_row, not z.out_kind, channels)
    for name, values, dtype in (("src", <object>n_planes * in_h * in_row, s.src_dtype),
                                ("dst", <object>n_planes * z.out_h * z.out_row, s.dst_dtype)):
        if values * dtype.itemsize > PY_SSIZE_T_MAX:  # Python ints: no wrapped sizes
            raise ValueError(f"{name} of {n_planes} planes of {in_h if name == 'src' else z.out_h}"
                             f" rows of {in_row if name == 'src' else z.out_row} {dtype} values "
                             f"would hold more bytes than any array can")
    s.src_size = n_planes * in_h * in_row
    s.dst_size = n_planes * z.out_h * z.out_row
    return s


cdef tuple _INTEGERS = tuple(np.dtype(c) for c in "BbHh")


cdef bint _step_dtypes(Step s, object src_dtype, object dst_dtype) except -1:
    """``make_step``'s ``src_dtype`` and ``dst_dtype``, checked and recorded in ``s``:
    True when either is an integer."""
    cdef object sums = np.dtype(np.float64 if s.wide else np.float32)
    s.src_dtype = sums if src_dtype is None else np.dtype(src_dtype)
    s.dst_dtype = sums if dst_dtype is None else np.dtype(dst_dtype)
    for name, d in (("src_dtype", s.src_dtype), ("dst_dtype", s.dst_dtype)):
        if d != sums and d not in _INTEGERS:
            raise TypeError(f"{name} must be the weights' dtype ({sums}) or native uint8, "
                            f"int8, uint16 or int16; got {d}")
    s.src_type, s.dst_type = s.src_dtype.num, s.dst_dtype.num
    return s.src_dtype != sums or s.dst_dtype != sums


cdef double _least_positive_weight(Step s):
    """The least positive weight of the x table when every row with taps has one, else 0
    (``_first_product_zeros`` then checks every zero output)."""
    cdef Py_ssize_t o, k, n = s.size.out_row // s.size.channels
    cdef Py_ssize_t step = s.size.channels if s.size.x_block and s.size.channels > 1 else 1
    # a row's taps (one per pixel), as float64 (float32 weights convert exactly)
    cdef const double[:, ::1] weight = np.ascontiguousarray(
        _weights(s, False)[:n, ::step], dtype=np.float64)
    cdef double least = 0, w, row
    for o in range(n):
        row = 0
        for k in range(s.x_count[o]):
            w = weight[o, k]
            if w > 0 and (row == 0 or w < row):
                row = w
        if s.x_count[o] and row == 0:
            return 0
        if row and (least == 0 or row < least):
            least = row
    return least


cdef int _check_block(Step s, Py_ssize_t f, bint y) except -1:
    """The y or x table is ``Taps.block`` ``f`` (the x table on pixels of at most
    ``MAX_BLOCK_CHANNELS`` values)."""
    cdef const Py_ssize_t[:, ::1] index = s.y_index if y else s.x_index
    cdef const Py_ssize_t[::1] count = s.y_count if y else s.x_count
    cdef Py_ssize_t o, k
    cdef bint ok = f >= 2 and index.shape[1] == f
    ok = ok and (s.kind != LINES if y else kind_has_x(s.kind)
                 and 1 <= s.size.channels <= MAX_BLOCK_CHANNELS)
    if ok:
        for o in range(index.shape[0]):
            ok = ok and count[o] == f
            for k in range(f):
                ok = ok and index[o, k] == o * f + k
            if not ok:
                break
    if not ok:
        raise ValueError(f"{'y' if y else 'x'}_block {f}: the table's rows do not read "
                         f"blocks of {f} inputs (x: on pixels of 1 to "
                         f"{MAX_BLOCK_CHANNELS} values)")
    return 0


cdef bint _unit_taps(Step s):
    """Every row of the x table has at most one tap, of weight exactly 1 (the adjoint of
    nearest shrinking: a scatter into zeros)."""
    cdef object count = np.asarray(s.x_count)
    cdef object weight = _weights(s, False)
    if s.x_index.shape[1] != 1 or count.size == 0 or count.max() > 1:
        return False
    return bool(np.all(weight[:, 0][count == 1] == 1))


cdef bint _unit_weights(Step s):
    """Every y and x weight is exactly 1 (blocks of a step with both tables)."""
    return bool((_weights(s, True) == 1).all() and (_weights(s, False) == 1).all())


cdef bint _same_x_weights(Step s):
    """Every x weight has the bits of the first (one register holds them all: the
    ``avx512`` pair sums, ``_simd_sums.h``'s ``same``)."""
    cdef object weight = _weights(s, False)
    cdef object bits = weight.view(np.dtype(f"u{weight.itemsize}"))
    return bits.size > 0 and bool((bits == bits.flat[0]).all())


cdef inline bint kind_has_x(int kind):
    return kind == LINES or kind == FUSED


cdef inline object _weights(Step s, bint y):
    """The y or x table's weights, an array of float64 (``s.wide``) or float32, for the
    checks ``make_step`` makes once (the loops take the typed views, ``Step.run``)."""
    return s.y_weights if y else s.x_weights


cdef int _keep_weights(Step s, bint y, object weight) except -1:
    """Hold ``weight`` as the y or x table's weights: the array (``_weights``) and the
    typed view ``s.wide`` picks (the one place that picks it; ``Step.run`` hands the
    views to the loops)."""
    if s.wide and y:
        s.y_wd = weight
    elif s.wide:
        s.x_wd = weight
    elif y:
        s.y_wf = weight
    else:
        s.x_wf = weight
    if y:
        s.y_weights = np.asarray(weight)
    else:
        s.x_weights = np.asarray(weight)
    return 0


cdef Py_ssize_t _rows(Step s, bint y):
    return _weights(s, y).shape[0]


cdef Py_ssize_t _width(Step s, bint y):
    return _weights(s, y).shape[1]


def gather_lines(const floating[:, ::1] src, floating[:, ::1] dst,
                 const Py_ssize_t[:, ::1] index, const floating[:, ::1] weight,
                 const Py_ssize_t[::1] count, const Py_ssize_t[::1] start, bint select,
                 int num_threads):
    """Resize along the contiguous axis: ``src (R, I) -> dst (R, O)`` (a ``Step``)."""
    cdef Step s
    _check_same("src rows", src.shape[0], "dst rows", dst.shape[0])
    _check_threads(num_threads)
    s = make_step(LINES, src.shape[0], 1, src.shape[1],
                  x=(index.base, weight.base, count.base, start.base, select))
    _check_same("dst row length", dst.shape[1], "the x table's outputs", s.size.out_row)
    s.run(&src[0, 0], &dst[0, 0], num_threads)


def gather_planes(const floating[:, :, ::1] src, floating[:, :, ::1] dst,
                  const Py_ssize_t[:, ::1] index, const floating[:, ::1] weight,
                  const Py_ssize_t[::1] count, int num_threads):
    """Resize along a middle axis: ``src (A, I, C) -> dst (A, O, C)`` (a ``Step``).

    Each output row is a weighted sum of whole input rows of length ``C``.
    """
    cdef Step s
    _check_same("src planes", src.shape[0], "dst planes", dst.shape[0])
    _check_same("src row length", src.shape[2], "dst row length", dst.shape[2])
    _check_threads(num_threads)
    s = make_step(PLANES, src.shape[0], src.shape[1], src.shape[2],
                  y=(index.base, weight.base, count.base))
    _check_same("dst rows", dst.shape[1], "the table's outputs", s.size.out_h)
    s.run(&src[0, 0, 0], &dst[0, 0, 0], num_threads)


def resize_2d(const floating[:, :, ::1] src, floating[:, :, ::1] dst, Py_ssize_t channels,
              const Py_ssize_t[:, ::1] y_index, const floating[:, ::1] y_weight,
              const Py_ssize_t[::1] y_count,
              const Py_ssize_t[:, ::1] x_index, const floating[:, ::1] x_weight,
              const Py_ssize_t[::1] x_count, const Py_ssize_t[::1] x_start, bint x_select,
              int order, floating[:, ::1] scratch, Py_ssize_t[:, ::1] tags,
              int num_threads):
    """Resize two adjacent axes in one sweep: ``src (B, IH, IW*C) -> dst (B, OH, OW*C)``.

    ``C`` (``channels``) trailing values per pixel ride along. No intermediate
    array: each thread keeps its rows in its row of ``scratch``. (A ``Step`` made
    by ``make_step(FUSED, ...)`` runs the same loop with scratch of its own.)

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
    cdef Step s = make_step(FUSED, src.shape[0], src.shape[1], src.shape[2],
                            y=(y_index.base, y_weight.base, y_count.base),
                            x=(x_index.base, x_weight.base, x_count.base, x_start.base,
                               x_select),
                            channels=channels, order=order, slots=tags.shape[1])
    _check_2d(s, dst.shape[0], dst.shape[1], dst.shape[2], scratch.shape[0], scratch.shape[1],
              tags.shape[0], num_threads)
    s.run(&src[0, 0, 0], &dst[0, 0, 0], num_threads, &scratch[0, 0], scratch.shape[1],
          &tags[0, 0], tags.shape[1])


# ----------------------------------------------------------------------------
# The loops of a Step: serial for one thread (no OpenMP region), else a static
# share of the jobs per thread (the bits do not depend on the count).


ctypedef struct Table:
    # A tap table as pointers, for the row loops (no memoryview arguments per row): row
    # ``o``'s taps at ``index + o * width``, its weights (``floating``) at ``weight + o *
    # weight_width`` (more than ``width`` for the x weights of blocks of pixels of several
    # values: one per input value); ``start``: the x table's windows (else NULL).
    const Py_ssize_t* index
    const void* weight
    const Py_ssize_t* count
    const Py_ssize_t* start
    Py_ssize_t n, width, weight_width


cdef inline void _table(Table* t, const Py_ssize_t[:, ::1] index, const floating[:, ::1] weight,
                        const Py_ssize_t[::1] count, const Py_ssize_t* start) noexcept nogil:
    t.index, t.weight, t.count, t.start = &index[0, 0], &weight[0, 0], &count[0], start
    t.n, t.width, t.weight_width = index.shape[0], index.shape[1], weight.shape[1]


cdef inline void _part(Table* part, const Table* t, Py_ssize_t o0, Py_ssize_t o1,
                       size_t itemsize) noexcept nogil:
    """Rows ``o0 … o1 - 1`` of ``t`` (weights of ``itemsize`` bytes)."""
    part[0] = t[0]
    part.index = t.index + o0 * t.width
    part.weight = <const char*>t.weight + o0 * t.weight_width * itemsize
    part.count = t.count + o0
    part.start = t.start + o0 if t.start != NULL else NULL
    part.n = o1 - o0


cdef inline void _row(const Sizes* z, floating* out, const source* line,
                      const Table* t) noexcept nogil:
    """Resample one row with the x table ``t`` (``_resample_row``; blocks without the
    index).

    Blocks of pixels of ``C`` > 1 values: the x weights are one per input value
    (``make_step``), so value ``c`` of output pixel ``o`` is
    ``sum_k w[(o*f + k)*C + c] * line[(o*f + k)*C + c]``, from 0, in tap order."""
    cdef Py_ssize_t o, k, c, f = z.x_block, n_out = t.n, C = z.channels, e
    cdef const floating* w = <const floating*>t.weight
    cdef const Py_ssize_t* counts
    cdef floating acc
    cdef Table part
    if z.copy:  # a selection (nearest): pixels moved, 0 + x (first_product: 1 * x), the
        # bits of the sums below (_simd_select.h)
        counts = NULL  # a selection; else rows of no tap are 0
        if not z.x_select:
            counts = t.count
        if source is float and floating is float:
            cresize_select_f32(out, line, C, z.in_px, t.index, t.width, counts, n_out,
                               z.first_product, z.x_run, z.x_run_first, z.x_run_end)
            return
        elif source is double and floating is double:
            cresize_select_f64(out, line, C, t.index, t.width, counts, n_out, z.first_product)
            return
    if f == 2 and C <= _PIXEL_CHANNELS and (source is float or source is double):
        # the pair sums of _simd_sums.h: the loops below, in the same order (same bits)
        if floating is float and source is float:
            cresize_pairs_2x2_f32(out, line, w, n_out, C, 0)
            return
        elif floating is double and source is double:
            cresize_pairs_2x2_f64(out, line, w, n_out, C, 0)
            return
    if f and C > 1:
        for o in range(n_out):
            for c in range(C):
                acc = 0
                k = o * f * C + c
                while k < (o + 1) * f * C:
                    acc = acc + w[k] * line[k]
                    k = k + C
                out[o * C + c] = acc
    elif f == 2:  # the operations of _dot, in its order: 0, then each product added
        for o in range(n_out):
            out[o] = (0 + w[2 * o] * line[2 * o]) + w[2 * o + 1] * line[2 * o + 1]
    elif f:
        for o in range(n_out):
            acc = 0
            for k in range(f):
                acc = acc + w[o * f + k] * line[o * f + k]
            out[o] = acc
    elif z.x_period and _periodic(z, out + z.x_first * C, line, t.start + z.x_first,
                                  w + z.x_first * t.weight_width, t.width):
        # the periodic outputs are done (same bits); those before and after them
        e = z.x_first
        if e:
            _part(&part, t, 0, e, sizeof(floating))
            _resample_row(out, line, C, z.in_px, &part, z.x_select)
        e = e + z.x_period * z.x_periods
        if e < n_out:
            _part(&part, t, e, n_out, sizeof(floating))
            _resample_row(out + e * C, line, C, z.in_px, &part, z.x_select)
    else:
        _resample_row(out, line, z.channels, z.in_px, t, z.x_select)


cdef inline bint _periodic(const Sizes* z, floating* out, const source* line,
                           const Py_ssize_t* start, const floating* weight,
                           Py_ssize_t width) noexcept nogil:
    """The periodic outputs of a row (``_simd_periodic.h``), from its first one: True
    when done."""
    cdef Py_ssize_t C = z.channels, n_in = z.in_px, p = z.x_period, n = z.x_periods
    if floating is float:
        if source is float:
            return cresize_periodic_f32_f32(out, line, n_in, C, start, weight, width, p, n)
        elif source is cython.uchar:
            return cresize_periodic_f32_u8(out, line, n_in, C, start, weight, width, p, n)
        elif source is cython.schar:
            return cresize_periodic_f32_s8(out, line, n_in, C, start, weight, width, p, n)
        else:
            return False
    else:
        if source is double:
            return cresize_periodic_f64_f64(out, line, n_in, C, start, weight, width, p, n)
        elif source is cython.ushort:
            if z.x_exact32:
                return cresize_periodic_x32_u16(out, line, n_in, C, start, weight, width, p, n)
            return cresize_periodic_f64_u16(out, line, n_in, C, start, weight, width, p, n)
        elif source is cython.short:
            if z.x_exact32:
                return cresize_periodic_x32_s16(out, line, n_in, C, start, weight, width, p, n)
            return cresize_periodic_f64_s16(out, line, n_in, C, start, weight, width, p, n)
        else:
            return False


cdef void _blocks_2x2(const Sizes* z, const floating* wy, Py_ssize_t wy_stride,
                      const floating* wx, Py_ssize_t n_out, const floating* src,
                      floating* dst, Py_ssize_t jobs, int n) noexcept nogil:
    """Blocks of 2x2 (``VERTICAL_FIRST``, both tables ``Taps.block`` 2): output row ``j``
    from input rows ``2*oy`` and ``2*oy + 1`` of its plane, y weights ``wy[oy, 0:2]``, x
    weights ``wx[2*o : 2*o + 2]`` (pixels of more than one value: one per input value,
    ``_row``): the operations of ``_combine_rows`` (``wa*a + wb*b``) then ``_row``
    (``(0 + w0*r0) + w1*r1``) in one sweep (``_simd_sums.h``; ``Sizes.unit``: weights 1,
    whose products are the values themselves). Each thread sweeps one contiguous
    share of the rows in C."""
    cdef Py_ssize_t t
    cdef cresize_team* team
    if n == 1:
        _rows_2x2(z, wy, wy_stride, wx, n_out, src, dst, 0, jobs)
        return
    team = cresize_team_begin(n)
    for t in prange(n, schedule="static", num_threads=n):
        cresize_team_start(team, threadid())
        _rows_2x2(z, wy, wy_stride, wx, n_out, src, dst, jobs * t // n, jobs * (t + 1) // n)
        cresize_team_mark(team, threadid())  # not t: a smaller team runs several t
    cresize_team_end(team)


cdef inline void _rows_2x2(const Sizes* z, const floating* wy, Py_ssize_t wy_stride,
                           const floating* wx, Py_ssize_t n_out, const floating* src,
                           floating* dst, Py_ssize_t j0, Py_ssize_t j1) noexcept nogil:
    if floating is float:
        cresize_sum_2x2_rows_f32(dst, src, j0, j1, z.out_h, z.in_h, z.in_row, wy, wy_stride, wx,
                                 n_out, z.channels, z.unit, z.x_same)
    else:
        cresize_sum_2x2_rows_f64(dst, src, j0, j1, z.out_h, z.in_h, z.in_row, wy, wy_stride, wx,
                                 n_out, z.channels, z.unit, z.x_same)


cdef void _lines(const Sizes* z, const Py_ssize_t[:, ::1] index,
                 const floating[:, ::1] weight, const Py_ssize_t[::1] count,
                 const Py_ssize_t[::1] start, const floating* src, floating* dst,
                 int n, bint quick) noexcept nogil:
    cdef Py_ssize_t rows = z.n_planes, n_in = z.in_row, n_out = z.out_row, r, o
    cdef Table x
    cdef cresize_team* team
    cdef QuickCall call
    _table(&x, index, weight, count, &start[0])
    if quick and rows >= 2:
        memset(&call, 0, sizeof(call))
        call.z, call.x, call.path, call.wide = z, &x, QUICK_LINES, floating is double
        call.src, call.dst = src, <char*>dst
        _quick_go(&call, rows)
        return
    if n == 1 or quick:
        for r in range(rows):
            _row(z, dst + r * n_out, src + r * n_in, &x)
        return
    team = cresize_team_begin(n)
    with parallel(num_threads=n):
        cresize_team_start(team, threadid())
        if rows >= n:
            for r in prange(rows, schedule="static"):
                _row(z, dst + r * n_out, src + r * n_in, &x)
        else:  # a few long lines: share out the outputs instead
            for o in prange(n_out, schedule="static"):
                for r in range(rows):
                    dst[r * n_out + o] = _dot(src + r * n_in, &index[o, 0], &weight[o, 0],
                                              count[o])
        cresize_team_mark(team, threadid())
    cresize_team_end(team)


cdef void _planes(const Sizes* z, const Py_ssize_t[:, ::1] index,
                  const floating[:, ::1] weight, const Py_ssize_t[::1] count,
                  const floating* src, floating* dst, int n, bint quick) noexcept nogil:
    cdef Py_ssize_t n_in = z.in_h, n_out = z.out_h, width = z.in_row
    cdef Py_ssize_t jobs = z.n_planes * n_out, j, a, o
    cdef cresize_team* team
    cdef QuickCall call
    if quick:
        memset(&call, 0, sizeof(call))
        call.z, call.path, call.wide = z, QUICK_PLANES, floating is double
        call.y_index, call.index_stride = &index[0, 0], index.shape[1]
        call.y_weight, call.weight_stride = &weight[0, 0], weight.shape[1]
        call.y_count, call.src, call.dst = &count[0], src, <char*>dst
        _quick_go(&call, jobs)
        return
    if n == 1:
        for j in range(jobs):
            a = j // n_out
            o = j - a * n_out
            _combine_rows(dst + j * width, src + a * n_in * width, width,
                          &index[o, 0], &weight[o, 0], count[o], n_in)
        return
    team = cresize_team_begin(n)
    with parallel(num_threads=n):
        cresize_team_start(team, threadid())
        for j in prange(jobs, schedule="static"):
            a = j // n_out
            o = j - a * n_out
            _combine_rows(dst + j * width, src + a * n_in * width, width,
                          &index[o, 0], &weight[o, 0], count[o], n_in)
        cresize_team_mark(team, threadid())
    cresize_team_end(team)


cdef enum:
    QUICK_ROWS = 0  # _fused_row, a ring of rows per thread
    QUICK_PAIRS = 1  # _pair_rows
    QUICK_BLOCKS = 2  # _rows_2x2
    QUICK_LINES = 3  # _lines: _row
    QUICK_PLANES = 4  # _planes: _combine_rows
    QUICK_CHUNKS = 24  # chunks a quick call's rows are cut into (_quick.h)


ctypedef struct QuickCall:
    # One kernel call (FUSED, LINES or PLANES) as the quick pair's threads run it
    # (``_quick_part``): its arguments as pointers; ``path`` the loop it takes;
    # ``wide``: float64 sums.
    const Sizes* z
    const Table* y
    const Table* x
    int path
    bint wide
    const Py_ssize_t* y_index
    Py_ssize_t index_stride
    const void* y_weight
    Py_ssize_t weight_stride
    const Py_ssize_t* y_count
    const void* x_weight
    Py_ssize_t n_px
    const void* src
    char* dst
    void* scratch
    Py_ssize_t scratch_stride
    Py_ssize_t* tags
    Py_ssize_t tags_stride


cdef inline void _quick_go(QuickCall* call, Py_ssize_t jobs) noexcept nogil:
    """Run ``jobs`` jobs of ``call`` on the quick pair, in ``QUICK_CHUNKS`` chunks."""
    cresize_quick_run(_quick_part, call, jobs, (jobs + QUICK_CHUNKS - 1) // QUICK_CHUNKS)


cdef void _quick_part(void* call, int tid, Py_ssize_t j0, Py_ssize_t j1,
                      int first) noexcept nogil:
    """Jobs ``j0 … j1 - 1`` of a quick call (``cresize_quick_fn``) on thread ``tid``:
    its row of scratch and tags; ``first``: the thread's first chunk of the call, whose
    ring holds nothing yet."""
    cdef QuickCall* c = <QuickCall*>call
    if c.wide:
        _quick_typed(c, <double*>c.scratch, tid, j0, j1, first)
    else:
        _quick_typed(c, <float*>c.scratch, tid, j0, j1, first)


cdef inline void _quick_typed(const QuickCall* c, floating* scratch, int tid, Py_ssize_t j0,
                              Py_ssize_t j1, int first) noexcept nogil:
    cdef char kind = c.z.src_kind
    if kind == b"B":
        _quick_rows(c, <const unsigned char*>c.src, scratch, tid, j0, j1, first)
    elif kind == b"b":
        _quick_rows(c, <const signed char*>c.src, scratch, tid, j0, j1, first)
    elif kind == b"H":
        _quick_rows(c, <const unsigned short*>c.src, scratch, tid, j0, j1, first)
    elif kind == b"h":
        _quick_rows(c, <const short*>c.src, scratch, tid, j0, j1, first)
    else:
        _quick_rows(c, <const floating*>c.src, scratch, tid, j0, j1, first)


cdef inline void _quick_rows(const QuickCall* c, const source* src, floating* scratch,
                             int tid, Py_ssize_t j0, Py_ssize_t j1, int first) noexcept nogil:
    """``_fused``'s loop for rows ``j0 … j1 - 1`` (``c.path``), one thread's share."""
    cdef floating* buf = scratch + tid * c.scratch_stride
    cdef Py_ssize_t* tag
    cdef Py_ssize_t j, t, o
    if c.path == QUICK_BLOCKS:
        if (source is float and floating is float) or (source is double and floating is double):
            _rows_2x2(c.z, <const floating*>c.y_weight, c.weight_stride,
                      <const floating*>c.x_weight, c.n_px, <const floating*>src,
                      <floating*>c.dst, j0, j1)
    elif c.path == QUICK_LINES:
        if source is floating:
            for j in range(j0, j1):
                _row(c.z, <floating*>c.dst + j * c.z.out_row, src + j * c.z.in_row, c.x)
    elif c.path == QUICK_PLANES:
        if source is floating:
            for j in range(j0, j1):
                t = j // c.z.out_h
                o = j - t * c.z.out_h
                _combine_rows(<floating*>c.dst + j * c.z.in_row, src + t * c.z.in_h * c.z.in_row,
                              c.z.in_row, c.y_index + o * c.index_stride,
                              <const floating*>c.y_weight + o * c.weight_stride, c.y_count[o],
                              c.z.in_h)
    elif c.path == QUICK_PAIRS:
        _pair_rows(c.z, c.y_index, c.index_stride, <const floating*>c.y_weight,
                   c.weight_stride, c.y_count, <const floating*>c.x_weight, c.n_px, src, c.dst,
                   buf, j0, j1)
    else:
        tag = c.tags + tid * c.tags_stride
        if first:
            _empty_ring(tag, c.z.slots)
        if tid and c.z.order == RING:
            # the helper's chunks come from the back, each above the last: its rows from
            # the bottom up, so that its ring holds what the next chunk reads first
            for j in range(j1 - 1, j0 - 1, -1):
                _fused_row(c.z, j, c.y, c.x, src, c.dst, buf, tag)
        else:
            for j in range(j0, j1):
                _fused_row(c.z, j, c.y, c.x, src, c.dst, buf, tag)


cdef int _fused_from(const Sizes* z, const Py_ssize_t[:, ::1] y_index,
                     const floating[:, ::1] y_weight, const Py_ssize_t[::1] y_count,
                     const Py_ssize_t[:, ::1] x_index, const floating[:, ::1] x_weight,
                     const Py_ssize_t[::1] x_count, const Py_ssize_t[::1] x_start,
                     const void* src, char* dst, int n, floating* scratch,
                     Py_ssize_t scratch_stride, Py_ssize_t* tags,
                     Py_ssize_t tags_stride, bint quick) noexcept nogil:
    """``_fused`` on ``src`` of ``z.src_kind`` (0: floats of the sums' dtype)."""
    if z.src_kind == b"B":
        return _fused(z, y_index, y_weight, y_count, x_index, x_weight, x_count, x_start,
                      <const unsigned char*>src, dst, n, scratch, scratch_stride, tags,
                      tags_stride, quick)
    elif z.src_kind == b"b":
        return _fused(z, y_index, y_weight, y_count, x_index, x_weight, x_count, x_start,
                      <const signed char*>src, dst, n, scratch, scratch_stride, tags,
                      tags_stride, quick)
    elif z.src_kind == b"H":
        return _fused(z, y_index, y_weight, y_count, x_index, x_weight, x_count, x_start,
                      <const unsigned short*>src, dst, n, scratch, scratch_stride, tags,
                      tags_stride, quick)
    elif z.src_kind == b"h":
        return _fused(z, y_index, y_weight, y_count, x_index, x_weight, x_count, x_start,
                      <const short*>src, dst, n, scratch, scratch_stride, tags, tags_stride, quick)
    return _fused(z, y_index, y_weight, y_count, x_index, x_weight, x_count, x_start,
                  <const floating*>src, dst, n, scratch, scratch_stride, tags, tags_stride, quick)


cdef int _fused(const Sizes* z, const Py_ssize_t[:, ::1] y_index,
                const floating[:, ::1] y_weight, const Py_ssize_t[::1] y_count,
                const Py_ssize_t[:, ::1] x_index, const floating[:, ::1] x_weight,
                const Py_ssize_t[::1] x_count, const Py_ssize_t[::1] x_start,
                const source* src, char* dst, int n, floating* scratch,
                Py_ssize_t scratch_stride, Py_ssize_t* tags,
                Py_ssize_t tags_stride, bint quick) noexcept nogil:
    """The fused sweep (``resize_2d``, ``resize_2d_int``); 1 when the scratch cannot
    be allocated."""
    # tid, buf and tag are set first thing in the parallel block; Cython passes them in
    # firstprivate, so they start initialised (no -Wmaybe-uninitialized from gcc).
    cdef Py_ssize_t jobs = z.n_planes * z.out_h, j, t, tid = 0
    cdef floating* own = NULL
    cdef Py_ssize_t* own_tags = NULL
    cdef floating* buf = NULL
    cdef Py_ssize_t* tag = NULL
    cdef Table y, x  # the tables as pointers: no per-row memoryview arguments
    cdef cresize_team* team = NULL
    cdef QuickCall call
    cdef int path = QUICK_ROWS
    _table(&y, y_index, y_weight, y_count, NULL)
    _table(&x, x_index, x_weight, x_count, &x_start[0])
    if z.order == VERTICAL_FIRST and z.y_block == 2 and z.x_block == 2 and not z.out_kind:
        if (source is float and floating is float) or (source is double and floating is double):
            if not quick:
                _blocks_2x2(z, &y_weight[0, 0], y_weight.shape[1], &x_weight[0, 0],
                            x_index.shape[0], <const floating*>src, <floating*>dst, jobs, n)
                return 0
            path = QUICK_BLOCKS
    if z.order == VERTICAL_FIRST and z.x_block == 2 and path == QUICK_ROWS:
        path = QUICK_PAIRS
    if quick and (path == QUICK_ROWS and z.first_product and z.x_block == 0 and jobs < n):
        quick, n = False, 1  # one row of pixels: the pair has nothing to share
    if scratch == NULL and path != QUICK_BLOCKS:
        if z.row >= PY_SSIZE_T_MAX // 8 // n or z.slots >= PY_SSIZE_T_MAX // 8 // n:
            return 1  # more bytes than any allocation (and no wrapped size)
        scratch_stride, tags_stride = z.row, z.slots
        own = <floating*>malloc(n * z.row * sizeof(floating) + 1)
        own_tags = <Py_ssize_t*>malloc(n * z.slots * sizeof(Py_ssize_t) + 1)
        if own == NULL or own_tags == NULL:
            free(own)
            free(own_tags)
            return 1
        scratch, tags = own, own_tags
    if quick:
        call.z, call.y, call.x, call.path, call.wide = z, &y, &x, path, floating is double
        call.y_index, call.index_stride = &y_index[0, 0], y_index.shape[1]
        call.y_weight, call.weight_stride = &y_weight[0, 0], y_weight.shape[1]
        call.y_count, call.x_weight, call.n_px = &y_count[0], &x_weight[0, 0], x_index.shape[0]
        call.src, call.dst, call.scratch, call.scratch_stride = src, dst, scratch, scratch_stride
        call.tags, call.tags_stride = tags, tags_stride
        _quick_go(&call, jobs)
        free(own)
        free(own_tags)
        return 0
    if n > 1:
        team = cresize_team_begin(n)
    if z.order == VERTICAL_FIRST and z.x_block == 2:  # no per-row arguments (_pair_rows)
        if n == 1:
            _pair_rows(z, &y_index[0, 0], y_index.shape[1], &y_weight[0, 0], y_weight.shape[1],
                       &y_count[0], &x_weight[0, 0], x_index.shape[0], src, dst, scratch, 0,
                       jobs)
        else:
            for t in prange(n, schedule="static", num_threads=n):
                cresize_team_start(team, threadid())
                _pair_rows(z, &y_index[0, 0], y_index.shape[1], &y_weight[0, 0],
                           y_weight.shape[1], &y_count[0], &x_weight[0, 0], x_index.shape[0],
                           src, dst, scratch + t * scratch_stride, jobs * t // n,
                           jobs * (t + 1) // n)
                cresize_team_mark(team, threadid())  # not t: a smaller team runs several t
    elif n == 1:
        _empty_ring(tags, z.slots)
        for j in range(jobs):
            _fused_row(z, j, &y, &x, src, dst, scratch, tags)
    elif z.first_product and z.x_block == 0 and jobs < n:
        # Rows of pixels, fewer rows than threads (an (L, C) signal): each thread takes a
        # share of every row's pixels (an output's bits do not depend on its neighbours).
        with parallel(num_threads=n):
            cresize_team_start(team, threadid())
            for j in prange(jobs * n, schedule="static"):
                _pixels_part(z, j // n, j % n, n, &x, src, <floating*>dst)
            cresize_team_mark(team, threadid())
    else:
        with parallel(num_threads=n):
            tid = threadid()
            cresize_team_start(team, <int>tid)
            buf = scratch + tid * scratch_stride
            tag = tags + tid * tags_stride
            _empty_ring(tag, z.slots)
            for j in prange(jobs, schedule="static"):
                _fused_row(z, j, &y, &x, src, dst, buf, tag)
            cresize_team_mark(team, <int>tid)
    if team != NULL:
        cresize_team_end(team)
    free(own)
    free(own_tags)
    return 0


cdef inline void _pair_rows(const Sizes* z, const Py_ssize_t* y_index, Py_ssize_t index_stride,
                            const floating* y_weight, Py_ssize_t weight_stride,
                            const Py_ssize_t* y_count, const floating* wx, Py_ssize_t n_px,
                            const source* src, char* dst, floating* buf, Py_ssize_t j0,
                            Py_ssize_t j1) noexcept nogil:
    """Output rows ``j0 … j1 - 1`` of ``VERTICAL_FIRST`` with an x table of blocks of 2
    (``Sizes.x_block``; ``wx`` a weight per input value): ``_fused_row``'s operations
    (the rows combined into ``buf``, ``_row``'s pair sums, the integer store) with
    pointers instead of its per-row table arguments; 8-bit rows whose y table is blocks
    of 2 too (``Sizes.y_block``) take both sums in one sweep from the integers where the
    level allows it (``cresize_sum_2x2_u8``, the same operations), and into 8-bit outputs
    of their own type the rounding and store too (``cresize_sum_2x2_u8_store``: no row of
    float sums); 16-bit rows into their own type whose four block weights are all 0.5
    are summed, rounded and stored in integers (``cresize_sum_2x2_u16_store``: exactly
    the integers of the float sums). Rows are independent: a thread's share of them
    (``buf`` its scratch) gives the same bits."""
    cdef Py_ssize_t j, b, oy, row_bytes = z.out_row * z.itemsize
    cdef floating* target
    cdef const source* rows
    cdef const source* ra
    cdef const source* rb
    cdef const floating* wy
    cdef char* out
    for j in range(j0, j1):
        b = j // z.out_h
        oy = j - b * z.out_h
        out = dst + j * row_bytes
        target = buf + z.ring_len if z.out_kind else <floating*>out
        rows = src + b * z.in_h * z.in_row
        ra = rows + 2 * oy * z.in_row
        rb = ra + z.in_row
        wy = y_weight + oy * weight_stride
        if floating is float and z.y_block == 2 and (
                (source is cython.uchar and z.out_kind == b"B" and cresize_sum_2x2_u8_store(
                    <unsigned char*>out, ra, rb, wy[0], wy[1], wx, n_px, z.channels, z.x_same))
                or (source is cython.schar and z.out_kind == b"b" and cresize_sum_2x2_s8_store(
                    <signed char*>out, ra, rb, wy[0], wy[1], wx, n_px, z.channels,
                    z.x_same))):
            continue  # summed, rounded and stored straight from the two integer rows
        if z.y_block == 2 and (
                (source is cython.ushort and z.out_kind == b"H" and cresize_sum_2x2_u16_store(
                    <unsigned short*>out, ra, rb, wy[0], wy[1], wx[0], n_px, z.channels,
                    z.x_same))
                or (source is cython.short and z.out_kind == b"h" and cresize_sum_2x2_s16_store(
                    <short*>out, ra, rb, wy[0], wy[1], wx[0], n_px, z.channels, z.x_same))):
            continue  # 16-bit blocks of four 0.5 weights: the integers of the float sums
        if floating is float and z.y_block == 2 and (
                (source is cython.uchar and cresize_sum_2x2_u8(
                    target, ra, rb, wy[0], wy[1], wx, n_px, z.channels, z.x_same))
                or (source is cython.schar and cresize_sum_2x2_s8(
                    target, ra, rb, wy[0], wy[1], wx, n_px, z.channels, z.x_same))):
            pass  # summed straight from the two integer rows
        else:
            _combine_rows(buf, rows, z.in_row, y_index + oy * index_stride, wy, y_count[oy],
                          z.in_h)
            if floating is float:
                cresize_pairs_2x2_f32(target, buf, wx, n_px, z.channels, z.x_same)
            else:
                cresize_pairs_2x2_f64(target, buf, wx, n_px, z.channels, z.x_same)
        if z.out_kind:
            _store_any(dst + j * row_bytes, z.out_kind, target, z.out_row)


cdef inline void _pixels_part(const Sizes* z, Py_ssize_t j, Py_ssize_t part, Py_ssize_t parts,
                              const Table* x, const source* src, floating* dst) noexcept nogil:
    """Pixels ``part`` of ``parts`` of output row ``j`` of a step of rows of pixels
    (``first_product``: one input row per output row, no x blocks)."""
    cdef Py_ssize_t n_px = x.n
    cdef Py_ssize_t o0 = n_px * part // parts, o1 = n_px * (part + 1) // parts
    cdef const source* line = src + j * z.in_row
    cdef floating* out = dst + j * z.out_row + o0 * z.channels
    cdef Sizes shared
    cdef Table rows
    if o0 < o1:
        _part_sizes(&shared, z, o0, o1)
        _part(&rows, x, o0, o1, sizeof(floating))
        _row(&shared, out, line, &rows)
        if not z.copy:  # a copy already has the bits of 1 * x
            _first_product_zeros(z, out, line, &rows)


cdef inline void _empty_ring(Py_ssize_t* tag, Py_ssize_t slots) noexcept nogil:
    """A thread's ring holds no row yet: every slot's tag -1 (``_fused_row``)."""
    cdef Py_ssize_t t
    for t in range(slots):
        tag[t] = -1


cdef inline void _fused_row(const Sizes* z, Py_ssize_t j, const Table* y, const Table* x,
                            const source* src, char* dst, floating* buf,
                            Py_ssize_t* tag) noexcept nogil:
    """Output row ``j`` of the fused sweep, in this thread's ``buf`` / ``tag``: sums in
    ``floating``, written as they are or (``out_kind``) rounded into integers."""
    cdef Py_ssize_t in_h = z.in_h, in_row = z.in_row, out_row = z.out_row, slots = z.slots
    cdef Py_ssize_t b = j // z.out_h, k, s, iy, key, row_bytes = out_row * z.itemsize
    cdef Py_ssize_t oy = j - b * z.out_h
    cdef const source* plane = src + b * in_h * in_row
    cdef const source* line
    cdef char* out = dst + j * row_bytes
    cdef floating* target = buf + z.ring_len if z.out_kind else <floating*>out
    cdef const Py_ssize_t* y_index = y.index + oy * y.width  # output row oy's taps
    cdef const floating* y_weight = <const floating*>y.weight + oy * y.weight_width
    cdef Py_ssize_t y_count = y.count[oy]
    if z.order == DIRECT and oy > 0 and tag[0] == j - 1 and y_index[0] == y_index[-y.width]:
        # The row this thread wrote last read the same input row: copy it.
        memcpy(out, out - row_bytes, row_bytes)
        tag[0] = j
        return
    if (z.order == DIRECT and z.out_h < in_h and CRESIZE_SHORT_ROW
            < in_row * <Py_ssize_t>sizeof(source) <= DIRECT_AHEAD_BYTES):
        # shrinking rows of one page at most: the hardware's prefetch stops at each
        # page, so the new row of the output row ROWS_AHEAD ahead goes toward the cache
        _rows_ahead(z, y, b, oy + ROWS_AHEAD, src)
    if z.gather:
        _gather_pixels(out, <const char*>(plane + y_index[0] * in_row),
                       z.channels * z.itemsize, x)
    elif z.order == DIRECT and z.out_kind:  # integers: sums of a chunk, stored, the next
        _pixels_stored(z, out, target, plane + y_index[0] * in_row, x)
        tag[0] = j
        return
    elif z.order == DIRECT:
        line = plane + y_index[0] * in_row
        _row(z, target, line, x)
        if z.first_product and not z.copy:  # a copy already has the bits of 1 * x
            _first_product_zeros(z, target, line, x)
    elif z.order == VERTICAL_FIRST:
        if in_row * <Py_ssize_t>sizeof(source) <= CRESIZE_SHORT_ROW:
            _rows_ahead(z, y, b, oy + ROWS_AHEAD, src)
        if z.x_identity:  # whole rows combined: the combination is the output row
            _combine_rows(target, plane, in_row, y_index, y_weight, y_count, in_h)
        else:
            _combine_rows(buf, plane, in_row, y_index, y_weight, y_count, in_h)
            _row(z, target, buf, x)
    else:
        for k in range(y_count):
            iy = y_index[k]
            s = iy % slots
            key = b * in_h + iy
            if tag[s] != key:
                _row(z, buf + s * out_row, plane + iy * in_row, x)
                tag[s] = key
        if z.out_kind and _combine_store(out, z.out_kind, buf, out_row, y_index, y_weight,
                                         y_count, slots):
            return  # summed and stored in one pass (_simd_rows.h)
        _combine_rows(target, buf, out_row, y_index, y_weight, y_count, slots)
    if z.out_kind and not z.gather:
        _store_any(out, z.out_kind, target, out_row)
    if z.order == DIRECT:
        tag[0] = j


cdef inline void _rows_ahead(const Sizes* z, const Table* y, Py_ssize_t b, Py_ssize_t o,
                             const source* src) noexcept nogil:
    """Toward the cache: the input rows that output row ``o`` of plane ``b`` (``o`` past
    the plane's last row: of the planes after it) of a ``VERTICAL_FIRST`` sweep reads
    beyond the last one of the row before it (all of its rows at a plane's first row),
    for short rows (``CRESIZE_SHORT_ROW``, ``_simd_rows.h``). A hint only: nothing read
    or written depends on it."""
    cdef Py_ssize_t first, last, n
    while o >= z.out_h:  # no division per row
        o = o - z.out_h
        b = b + 1
    if b >= z.n_planes or y.count[o] == 0:
        return
    first = y.index[o * y.width]
    last = y.index[o * y.width + y.count[o] - 1]
    if o > 0 and y.count[o - 1] > 0:
        first = max(first, y.index[(o - 1) * y.width + y.count[o - 1] - 1] + 1)
    n = last - first + 1
    if n > 0:
        cresize_prefetch(src + (b * z.in_h + first) * z.in_row,
                         n * z.in_row * <Py_ssize_t>sizeof(source))


cdef inline void _pixels_stored(const Sizes* z, char* out, floating* sums, const source* line,
                                const Table* x) noexcept nogil:
    """An integer output row resampled from ``line`` (``DIRECT``) a chunk of
    ``ROW_CHUNK`` values at a time: the chunk's sums in ``sums``, then rounded into
    ``out``, so that the scratch is a chunk, not a row (an ``(L, C)`` signal is one
    row). Every output's sum is its own, so the bits are those of the whole row. An x
    table of blocks reads without the index, from its first output's inputs: a chunk's
    line starts at its own (output ``o0`` reads pixel ``o0 * x_block``)."""
    cdef Py_ssize_t n_px = x.n, C = z.channels, o0 = 0, o1
    cdef Py_ssize_t k = _chunk_pixels(C), size = C * z.itemsize
    cdef Sizes part
    cdef Table rows
    if n_px <= k:
        _row(z, sums, line, x)
        _store_any(out, z.out_kind, sums, n_px * C)
        return
    while o0 < n_px:
        o1 = min(o0 + k, n_px)
        _part_sizes(&part, z, o0, o1)  # the chunk's own periodic outputs
        _part(&rows, x, o0, o1, sizeof(floating))
        _row(&part, sums, line + o0 * z.x_block * C, &rows)
        _store_any(out + o0 * size, z.out_kind, sums, (o1 - o0) * C)
        o0 = o1


cdef inline void _part_sizes(Sizes* part, const Sizes* z, Py_ssize_t o0,
                             Py_ssize_t o1) noexcept nogil:
    """``z`` for ``_row`` on outputs ``o0 … o1 - 1`` of the x table (its slices): the
    periodic outputs (``x_first``, ``x_periods``) are the whole table's, so a part keeps
    the whole periods of the same phases that lie inside it, counted from ``o0``
    (``_Slice.period`` does the same for a plan's blocks of rows); the same for the
    selection's pattern (``x_run``)."""
    cdef Py_ssize_t s = z.x_period, first = z.x_first, n = 0
    part[0] = z[0]
    if s:
        if first < o0:
            first = first + (o0 - first + s - 1) // s * s
        if first < o1:
            n = (min(z.x_first + s * z.x_periods, o1) - first) // s
    if n >= 1:
        part.x_first, part.x_periods = first - o0, n
    else:
        part.x_period, part.x_first, part.x_periods = 0, 0, 0
    # the selection's pattern (x_run) on the part's outputs, from an output of the
    # pattern's phase (runs of 3: a multiple of 3 from x_run_first)
    s = 3 if z.x_run == 2 else 1
    first = z.x_run_first
    if first < o0:
        first = first + (o0 - first + s - 1) // s * s
    if z.x_run and first < min(z.x_run_end, o1):
        part.x_run_first, part.x_run_end = first - o0, min(z.x_run_end, o1) - o0
    else:
        part.x_run, part.x_run_first, part.x_run_end = 0, 0, 0


cdef inline Py_ssize_t _chunk_pixels(Py_ssize_t channels) noexcept nogil:
    """Pixels of a chunk of ``_pixels_stored``: ``ROW_CHUNK`` values, at least one pixel."""
    return max(1, ROW_CHUNK // channels)


cdef inline void _first_product_zeros(const Sizes* z, floating* out, const source* line,
                                      const Table* t) noexcept nogil:
    """Give a row resampled by ``_row`` (sums from 0) the bits of sums started from their
    first product (``_combine_rows``): they differ only where every product is -0,
    which such a sum keeps (-0 + -0 = -0) and a sum from 0 does not (0 + -0 = +0). A
    row whose input holds no value that gives -0 with the least positive weight is left
    after one sweep of its input (``_zeros.h``); otherwise each zero output recomputes
    its products (the kernels' own: ``weight * value``) until one is not -0. A row with
    fewer outputs than inputs first looks for a zero output (the shorter sweep)."""
    cdef Py_ssize_t C = z.channels, f = z.x_block, n_out = t.n, o, c, k, i
    cdef Py_ssize_t width = t.width, ww = t.weight_width
    cdef const Py_ssize_t* index = t.index
    cdef const floating* weight = <const floating*>t.weight
    cdef const Py_ssize_t* count = t.count
    cdef floating p
    if z.least_weight > 0:  # every row has a positive weight: look for its -0 (_zeros.h)
        if floating is float and source is float:
            if n_out * C < z.in_row and not cresize_any_zero_f32(out, n_out * C):
                return
            if not cresize_negative_zero_f32(line, z.in_row, <float>z.least_weight):
                return
        elif floating is double and source is double:
            if n_out * C < z.in_row and not cresize_any_zero_f64(out, n_out * C):
                return
            if not cresize_negative_zero_f64(line, z.in_row, z.least_weight):
                return
    for o in range(n_out):
        for c in range(C):
            i = o * C + c
            if out[i] != 0 or count[o] == 0:
                continue
            k = 0
            while k < count[o]:
                if f and C > 1:  # block weights: one per input value (make_step)
                    p = weight[o * ww + k * C + c] * line[(o * f + k) * C + c]
                else:
                    p = weight[o * ww + k] * line[index[o * width + k] * C + c]
                if p != 0 or not signbit(p):
                    break
                k = k + 1
            if k == count[o]:
                out[i] = -out[i]  # -0: every product was -0


def value_weights(weight, Py_ssize_t channels):
    """An x table's weights once per input value of pixels of ``channels`` values (the
    rows of blocks: ``make_step``'s x weights with ``x_block``)."""
    return np.ascontiguousarray(np.repeat(weight, channels, axis=1))


def scratch_length(int order, Py_ssize_t slots, Py_ssize_t in_row, Py_ssize_t out_row,
                   bint float_output, Py_ssize_t channels=1):
    """Values of scratch one thread needs in ``resize_2d`` / ``resize_2d_int``.

    ``RING``: ``slots`` resampled rows of ``out_row``; ``VERTICAL_FIRST``: one
    combined row of ``in_row``; ``DIRECT``: none. An integer output adds one row of
    ``out_row`` sums, rounded and clipped into the output; ``DIRECT`` only a chunk of
    them (``_pixels_stored``: ``ROW_CHUNK`` values, or one pixel of ``channels``).
    """
    cdef Py_ssize_t n = 0
    if order == RING:
        n = slots * out_row
    elif order == VERTICAL_FIRST:
        n = in_row
    if float_output:
        return n
    if order == DIRECT:
        return min(out_row, _chunk_pixels(max(channels, 1)) * max(channels, 1))
    return n + out_row


def resize_2d_int(const source[:, :, ::1] src, dst, Py_ssize_t channels, tuple y, tuple x,
                  int order, floating[:, ::1] scratch, Py_ssize_t[:, ::1] tags,
                  int num_threads, Py_ssize_t x_block=0):
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
    ``(index, weight, count, start, select[, period])`` (``Taps.kernel_args`` /
    ``Taps.row_args``, weights of ``scratch``'s dtype); ``order`` and ``tags``
    (``slots`` = its second length) as in ``resize_2d``. A single-axis step passes
    the identity of length 1 (``taps(1, 1, "nearest")``) as the other table: as
    ``y`` with ``DIRECT`` for a resample along the contiguous axis, as ``x`` with
    ``channels`` = the row length for a combination of whole rows.

    ``x_block`` (0: none) as in ``make_step``: ``Taps.block`` of the x table, checked
    (2 with ``VERTICAL_FIRST``, 1 to ``MAX_BLOCK_CHANNELS`` values a pixel: each
    combined row takes the pair sums of ``_simd_sums.h``, ``_row``'s blocks, with the
    x weights once per input value that ``make_step`` makes; the same bits).

    Checked here, then run as the integer ``Step`` of these arguments (``make_step``
    with ``src_dtype`` / ``dst_dtype``; a plan makes its steps once), on this scratch.
    """
    cdef str src_kind, sum_kind = "f" if floating is float else "d"
    cdef str kind = getattr(getattr(dst, "dtype", None), "char", "")
    cdef Py_ssize_t in_h = src.shape[1], in_row = src.shape[2], slots = tags.shape[1]
    cdef unsigned char[::1] out_bytes
    cdef Step s
    if source is float:
        src_kind = "f"
    elif source is double:
        src_kind = "d"
    elif source is cython.uchar:
        src_kind = "B"
    elif source is cython.schar:
        src_kind = "b"
    elif source is cython.ushort:
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
    if getattr(x[1], "dtype", None) != np.dtype(sum_kind):  # make_step: y's the same
        raise TypeError(f"the x weights must have scratch's dtype ({sum_kind}); got "
                        f"{getattr(x[1], 'dtype', type(x[1]).__name__)}")
    s = make_step(FUSED, src.shape[0], in_h, in_row, y=y, x=x, channels=channels, order=order,
                  slots=slots, x_block=x_block, src_dtype=src_kind,
                  dst_dtype=kind)
    _check_2d(s, dst.shape[0], dst.shape[1], dst.shape[2], scratch.shape[0], scratch.shape[1],
              tags.shape[0], num_threads)
    if s.dst_size == 0:
        return
    out_bytes = dst.reshape(-1).view("u1")  # C-contiguous: a view, written in place
    s.run(&src[0, 0, 0], &out_bytes[0], num_threads, &scratch[0, 0], scratch.shape[1],
          &tags[0, 0], tags.shape[1])


cdef inline void _gather_pixels(char* out, const char* line, Py_ssize_t size,
                                const Table* t) noexcept nogil:
    """Nearest: pixel ``o`` (``size`` bytes) of ``out`` is pixel ``index[o, 0]`` of ``line``
    (the x table ``t``)."""
    cdef Py_ssize_t n_out = t.n, w = t.width, o
    cdef const Py_ssize_t* index = t.index
    if size == 1:
        for o in range(n_out):
            out[o] = line[index[o * w]]
    elif size == 3:
        for o in range(n_out):
            memcpy(out + 3 * o, line + 3 * index[o * w], 3)
    elif size == 4:
        for o in range(n_out):
            memcpy(out + 4 * o, line + 4 * index[o * w], 4)
    elif size == 6:
        for o in range(n_out):
            memcpy(out + 6 * o, line + 6 * index[o * w], 6)
    else:
        for o in range(n_out):
            memcpy(out + size * o, line + size * index[o * w], size)


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


cdef inline bint _combine_store(char* out, char kind, const floating* ring, Py_ssize_t width,
                                const Py_ssize_t* index, const floating* weight,
                                Py_ssize_t count, Py_ssize_t n_rows) noexcept nogil:
    """``_combine_rows`` of the ring into an integer row, fused with ``_store_row``
    (``_simd_rows.h``); False (nothing written) where the level does not allow it."""
    if floating is float:
        if kind == b"B":
            return cresize_combine_store_u8(<unsigned char*>out, ring, width, index, weight,
                                            count, n_rows)
        elif kind == b"b":
            return cresize_combine_store_s8(<signed char*>out, ring, width, index, weight,
                                            count, n_rows)
    else:
        if kind == b"H":
            return cresize_combine_store_u16(<unsigned short*>out, ring, width, index, weight,
                                             count, n_rows)
        elif kind == b"h":
            return cresize_combine_store_s16(<short*>out, ring, width, index, weight,
                                             count, n_rows)
    return False


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


def _select_run(index, Py_ssize_t n_in, Py_ssize_t channels):
    """The pattern of a selection x table (one input a row, ``index`` of ``n_in`` pixels
    of ``channels`` values) that ``_simd_select.h`` moves in groups without checking
    their indices (``Sizes.x_run``, found once per step): ``(run, first, end)``, outputs
    ``first … end - 1``; ``(0, 0, 0)`` where none covers a group. ``make_step`` asks for
    float32 rows of 3 values only (planar rows keep their checked groups: faster there).

    * 1 (``channels`` 1 or 3, x0.5): ``index[o] = index[0] + 2o`` from output 0, up to
      the first output that breaks it or whose next input lies past the row (a group of
      8 outputs reads 16 inputs);
    * 2 (``channels`` 3, 0.75x): ``index[s + k] = index[s] + k + k // 3`` from the first
      ``s`` of 0, 1, 2 that 23 outputs follow (nearest from the row's first pixel,
      nearest-exact from its second), up to the first output that breaks it (a group of
      24 outputs reads its own 31 inputs)."""
    i = np.asarray(index)[:, 0].astype(np.int64)
    n = i.shape[0]
    k = np.arange(n, dtype=np.int64)
    if n >= 8:
        end = _holds(i == i[0] + 2 * k)
        end = min(end, int(np.count_nonzero(i[:end] <= n_in - 2)))
        if end >= 8:
            return 1, 0, end
    if channels == 3:
        for s in range(3):
            if n - s < 24:
                break
            end = s + _holds(i[s:] == i[s] + k[:n - s] + k[:n - s] // 3)
            if end - s >= 24:
                return 2, s, end
    return 0, 0, 0


def _holds(ok):
    """Length of the leading run of True in ``ok``."""
    return len(ok) if ok.all() else int(np.argmin(ok))


cdef int _check_period(Sizes* z, tuple period, const Py_ssize_t[:, ::1] index,
                       object weight, const Py_ssize_t[::1] count,
                       const Py_ssize_t[::1] start) except -1:
    """``Taps.period`` ``(s, first, n)`` of the x table (``weight`` its weights, of
    ``index``'s width), recorded in ``z``: rows ``first + s*q + p`` (``q < n``) read the
    whole window ``start[first + p] + q …`` with the weights (bits) of row ``first + p``;
    ``s`` = 0: none."""
    cdef Py_ssize_t p, n, first, o, b, width = index.shape[1]
    cdef const unsigned char[:, ::1] bits = weight.view(np.uint8)
    cdef bint ok
    p, first, n = period[:3]
    z.x_period, z.x_first, z.x_periods, z.x_exact32 = 0, 0, 0, False
    if p == 0:
        return 0
    ok = 2 <= p and 1 <= n and 0 <= first and first + p * n <= index.shape[0]
    o = first
    while ok and o < first + p * n:
        b = first + (o - first) % p
        ok = (count[o] == width and start[b] >= 0
              and start[o] == start[b] + (o - first) // p
              and memcmp(&bits[o, 0], &bits[b, 0], bits.shape[1]) == 0)
        o = o + 1
    if not ok:
        raise ValueError(f"x period {period}: the table's rows do not repeat with that "
                         f"period (Taps.period)")
    z.x_period, z.x_first, z.x_periods = p, first, n
    z.x_exact32 = len(period) > 3 and period[3]  # checked by make_step
    return 0


cdef int _check_2d(Step s, Py_ssize_t n_planes, Py_ssize_t out_h, Py_ssize_t out_row,
                   Py_ssize_t scratch_threads, Py_ssize_t scratch_row, Py_ssize_t tag_threads,
                   int num_threads) except -1:
    """A call of the checked ``FUSED`` step ``s`` (``make_step`` checked its tables) on
    ``dst (n_planes, out_h, out_row)``, rows of scratch and tags, and threads."""
    _check_threads(num_threads)
    _check_same("src planes", s.size.n_planes, "dst planes", n_planes)
    _check_same("dst rows", out_h, "the y table's outputs", s.size.out_h)
    _check_same("dst row length", out_row, "the x table's outputs times channels",
                s.size.out_row)
    if scratch_threads < num_threads or tag_threads < num_threads:
        raise ValueError(f"scratch and tags need a row per thread ({num_threads}); got "
                         f"{scratch_threads} and {tag_threads}")
    if scratch_row < s.size.row:
        raise ValueError(f"scratch rows hold {scratch_row} values; this order needs "
                         f"{s.size.row} (scratch_length)")
    return 0


cdef int _check_2d_tables(Py_ssize_t in_h, Py_ssize_t in_row, Py_ssize_t out_h,
                          Py_ssize_t out_row, Py_ssize_t channels,
                          const Py_ssize_t[:, ::1] y_index, Py_ssize_t y_rows,
                          Py_ssize_t y_width, const Py_ssize_t[::1] y_count,
                          const Py_ssize_t[:, ::1] x_index, Py_ssize_t x_rows,
                          Py_ssize_t x_width, const Py_ssize_t[::1] x_count,
                          const Py_ssize_t[::1] x_start, bint x_select,
                          int order, Py_ssize_t slots) except -1:
    """What a fused sweep of rows ``(in_h, in_row) -> (out_h, out_row)`` relies on."""
    cdef Py_ssize_t o, span = 1
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
    return 0


cdef inline floating _dot(const source* line, const Py_ssize_t* index,
                          const floating* weight, Py_ssize_t count) noexcept nogil:
    cdef floating acc = 0
    cdef Py_ssize_t k
    for k in range(count):
        acc = acc + weight[k] * line[index[k]]
    return acc


cdef inline void _resample_row(floating* out, const source* line, Py_ssize_t channels,
                               Py_ssize_t in_px, const Table* t, bint select) noexcept nogil:
    """Resample one row of pixels of ``channels`` values along its length (the x table
    ``t``, rows ``width`` apart).

    ``start[o]`` is the first input of output ``o`` when its taps are the whole
    contiguous window ``start[o] … start[o] + width - 1``, else -1; float32 runs of
    four such outputs go through ``cresize_rows4_f32`` (SSE), with the same bits.
    ``select``: every output reads one input with weight 1 (nearest), a gather.
    """
    cdef Py_ssize_t n_out = t.n, width = t.width, o, c, k, j
    cdef const Py_ssize_t* index = t.index
    cdef const floating* weight = <const floating*>t.weight
    cdef const Py_ssize_t* count = t.count
    cdef const Py_ssize_t* start = t.start
    cdef const source* pixel
    cdef floating* target
    if select and channels == 1:  # 0 + x: the bits of 0 + 1 * x, as _dot gives
        for o in range(n_out):
            out[o] = 0 + line[index[o * width]]
    elif channels <= _PIXEL_CHANNELS and _simd_pixels(out, line, channels, in_px, t):
        pass  # same bits as the loops below (AVX2 value lanes, or a register per pixel)
    elif floating is float and source is float and channels == 1 and width > 1:
        o = 0
        while o + 4 <= n_out:
            if start[o] >= 0 and start[o + 1] >= 0 and start[o + 2] >= 0 and start[o + 3] >= 0:
                cresize_rows4_f32(out + o, line, start + o, weight + o * width, width)
            else:
                for j in range(o, o + 4):
                    out[j] = _dot(line, index + j * width, weight + j * width, count[j])
            o = o + 4
        for j in range(o, n_out):
            out[j] = _dot(line, index + j * width, weight + j * width, count[j])
    elif channels == 1 and width == 1:  # one tap or none: the sum of _dot, unrolled
        for o in range(n_out):
            out[o] = (0 + weight[o] * line[index[o]]) if count[o] else 0
    elif channels == 1:
        for o in range(n_out):
            out[o] = _dot(line, index + o * width, weight + o * width, count[o])
    elif channels == 3:  # RGB: the three sums stay in registers
        for o in range(n_out):
            _pixel3(out + 3 * o, line, index + o * width, weight + o * width, count[o])
    elif channels == 4:
        for o in range(n_out):
            _pixel4(out + 4 * o, line, index + o * width, weight + o * width, count[o])
    else:
        for o in range(n_out):
            target = out + o * channels
            for c in range(channels):
                target[c] = 0
            for k in range(count[o]):
                pixel = line + index[o * width + k] * channels
                for c in range(channels):
                    target[c] = target[c] + weight[o * width + k] * pixel[c]

cdef inline bint _simd_pixels(floating* out, const source* line, Py_ssize_t channels,
                              Py_ssize_t in_px, const Table* t) noexcept nogil:
    """A row of 1- to 4-value pixels by ``_simd_pixels.h`` where the level allows it."""
    cdef Py_ssize_t n_out = t.n, width = t.width
    cdef const floating* weight = <const floating*>t.weight
    if floating is float:
        if source is float:
            return cresize_pixels_f32(out, line, channels, in_px, t.index, weight, t.count,
                                      t.start, width, n_out)
        elif source is cython.uchar:
            return cresize_pixels_u8(out, line, channels, in_px, t.index, weight, t.count,
                                     t.start, width, n_out)
        elif source is cython.schar:
            return cresize_pixels_s8(out, line, channels, in_px, t.index, weight, t.count,
                                     t.start, width, n_out)
        else:
            return False
    else:
        if source is double:
            return cresize_pixels_f64(out, line, channels, in_px, t.index, weight, t.count,
                                      t.start, width, n_out)
        elif source is cython.ushort:
            return cresize_pixels_u16(out, line, channels, in_px, t.index, weight, t.count,
                                      t.start, width, n_out)
        elif source is cython.short:
            return cresize_pixels_s16(out, line, channels, in_px, t.index, weight, t.count,
                                      t.start, width, n_out)
        else:
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

    Taps are taken two at a time in one sweep over the row, in tap order; the AVX2
    loops of ``_simd_rows.h`` (same bits) add every tap to a block of columns in
    registers.
    """
    cdef Py_ssize_t k, c
    cdef const source* a
    cdef const source* b
    cdef floating wa, wb
    if floating is float:
        if source is float:
            if cresize_combine_f32_f32(row, plane, width, index, weight, count, n_rows):
                return
        elif source is cython.uchar:
            if cresize_combine_f32_u8(row, plane, width, index, weight, count, n_rows):
                return
        elif source is cython.schar:
            if cresize_combine_f32_s8(row, plane, width, index, weight, count, n_rows):
                return
    else:
        if source is double:
            if cresize_combine_f64_f64(row, plane, width, index, weight, count, n_rows):
                return
        elif source is cython.ushort:
            if cresize_combine_f64_u16(row, plane, width, index, weight, count, n_rows):
                return
        elif source is cython.short:
            if cresize_combine_f64_s16(row, plane, width, index, weight, count, n_rows):
                return
    if count == 0:
        for c in range(width):
            row[c] = 0
        return
    a = plane + cresize_ring_row(index[0], n_rows) * width
    wa = weight[0]
    if count == 1:
        for c in range(width):
            row[c] = wa * a[c]
        return
    b = plane + cresize_ring_row(index[1], n_rows) * width
    wb = weight[1]
    for c in range(width):
        row[c] = wa * a[c] + wb * b[c]
    k = 2
    while k + 1 < count:
        a = plane + cresize_ring_row(index[k], n_rows) * width
        b = plane + cresize_ring_row(index[k + 1], n_rows) * width
        wa = weight[k]
        wb = weight[k + 1]
        for c in range(width):
            row[c] = row[c] + wa * a[c] + wb * b[c]
        k = k + 2
    if k < count:
        a = plane + cresize_ring_row(index[k], n_rows) * width
        wa = weight[k]
        for c in range(width):
            row[c] = row[c] + wa * a[c]


def integers_to_float(const small_int[::1] src, float[::1] dst, int num_threads):
    """``dst = src`` as float32, for 8- and 16-bit images."""
    cdef Py_ssize_t i
    cdef cresize_team* team
    with nogil:
        team = cresize_team_begin(num_threads)
        with parallel(num_threads=num_threads):
            cresize_team_start(team, threadid())
            for i in prange(src.shape[0], schedule="static"):
                dst[i] = src[i]
            cresize_team_mark(team, threadid())
        cresize_team_end(team)


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
    cdef cresize_team* team
    with nogil:
        team = cresize_team_begin(num_threads)
        with parallel(num_threads=num_threads):
            cresize_team_start(team, threadid())
            for i in prange(src.shape[0], schedule="static"):
                v = rintf(src[i])
                if v < lo:
                    v = lo
                elif v > hi:
                    v = hi
                dst[i] = <small_int>v
            cresize_team_mark(team, threadid())
        cresize_team_end(team)
