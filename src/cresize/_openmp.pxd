# The one place that touches omp.h. Without OpenMP (CRESIZE_HAVE_OPENMP=0,
# set by setup.py) the functions report a serial build and prange runs serially.
cdef extern from *:
    """
    #if CRESIZE_HAVE_OPENMP
    #include <omp.h>
    static int cresize_openmp_enabled(void) { return 1; }
    static int cresize_max_threads(void) { return omp_get_max_threads(); }
    #else
    static int cresize_openmp_enabled(void) { return 0; }
    static int cresize_max_threads(void) { return 1; }
    #endif
    """
    int cresize_openmp_enabled() noexcept nogil
    int cresize_max_threads() noexcept nogil
