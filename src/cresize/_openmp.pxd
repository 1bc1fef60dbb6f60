# The one place that touches omp.h. OpenMP is on exactly when the compiler says so
# (its _OPENMP macro: -fopenmp, /openmp), so a plain cythonize build reports it
# correctly. CRESIZE_HAVE_OPENMP=0 (setup.py with CRESIZE_OPENMP=0) forces a serial
# build even under -fopenmp: _OPENMP is undefined before Cython's own
# `#ifdef _OPENMP` blocks, so prange's pragmas are compiled out too. Without
# OpenMP the functions report a serial build and prange runs serially.
cdef extern from *:
    """
    #if defined(CRESIZE_HAVE_OPENMP) && !CRESIZE_HAVE_OPENMP && defined(_OPENMP)
    #undef _OPENMP
    #endif
    #ifdef _OPENMP
    #include <omp.h>
    static inline int cresize_openmp_enabled(void) { return 1; }
    static inline int cresize_max_threads(void) { return omp_get_max_threads(); }
    #else
    static inline int cresize_openmp_enabled(void) { return 0; }
    static inline int cresize_max_threads(void) { return 1; }
    #endif
    """
    int cresize_openmp_enabled() noexcept nogil
    int cresize_max_threads() noexcept nogil
