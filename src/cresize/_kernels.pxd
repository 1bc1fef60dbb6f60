# A kernel call with everything but the data fixed (see _kernels.pyx, ``Step``):
# its sizes and tap tables, checked once when it is made, so that a call only
# hands over two data pointers and a thread count. Float and 8/16-bit integer
# steps alike (an integer step is FUSED: rows of sums, rounded into integers).

cpdef enum Kind:  # of kernel call (``Step.kind``)
    LINES = 0
    PLANES = 1
    FUSED = 2


ctypedef struct Sizes:
    # src (n_planes, in_h, in_row) -> dst (n_planes, out_h, out_row); LINES: in_h =
    # out_h = 1; PLANES: in_row = out_row, the row length.
    Py_ssize_t n_planes, in_h, in_row, out_h, out_row
    Py_ssize_t channels, in_px  # FUSED: values per pixel; pixels per input row
    Py_ssize_t slots, row  # FUSED: ring slots and scratch values per thread
    int order  # FUSED: RING, VERTICAL_FIRST or DIRECT
    bint x_select  # the x table selects one input per output, weight 1
    Py_ssize_t x_block  # f >= 2: x output o sums inputs o*f ... o*f + f - 1 (weights 1)
    Py_ssize_t y_block  # the same for the y table
    Py_ssize_t itemsize  # bytes of an output value
    Py_ssize_t ring_len  # FUSED: scratch values before an integer output's row of sums
    char out_kind  # 0: the output holds the sums; b"B", b"b", b"H", b"h": integers
    char src_kind  # 0: the input holds floats of the sums' dtype; else integers, as out_kind
    bint gather  # integers of one type, nearest: pixels copied (DIRECT)
    bint copy  # floats, x rows of at most one tap of weight 1 (nearest): moved (_simd_select.h)
    bint x_identity  # the x table is the identity of one pixel: rows combined straight
    bint first_product  # FUSED DIRECT floats: the sums' bits of a combination of whole rows
    double least_weight  # first_product: the least positive x weight (0: not every row has one)
    bint unit  # 2x2 blocks whose weights are all 1 (the adjoint of x2 nearest)
    bint x_same  # x blocks of 2 whose weights all have the same bits (bilinear, area halving)
    # x outputs x_first ... x_first + x_period * x_periods - 1 repeat with period
    # x_period >= 2 (0: none): the periodic horizontal pass (_simd_periodic.h)
    Py_ssize_t x_period, x_first, x_periods
    # the periodic pass sums 16-bit pixels in float32, exactly (_plan.exact_in_float32)
    bint x_exact32
    # copy, float32: x outputs x_run_first ... x_run_end - 1 follow a pattern of the
    # selection's index (_kernels._select_run; 0: none), moved without index checks
    # (_simd_select.h): 1, index[o] = index[x_run_first] + 2 (o - x_run_first) (x0.5);
    # 2, runs of 3 inputs, one skipped between runs (0.75x)
    int x_run
    Py_ssize_t x_run_first, x_run_end


cdef class Step:
    cdef readonly int kind  # LINES, PLANES or FUSED
    cdef readonly bint wide  # float64 sums and weights (else float32)
    cdef readonly object src_dtype, dst_dtype  # NumPy dtypes (native) read and written
    cdef readonly int src_type, dst_type  # their type numbers
    cdef readonly Py_ssize_t src_size, dst_size  # values read and written
    cdef readonly int most_threads  # more threads than this cost more than they save
    cdef readonly bint quick  # calls of at most two threads take the quick pair (_quick.h)
    cdef Sizes size
    # y: the table along in_h (PLANES, FUSED); x: along the rows (LINES, FUSED).
    cdef const Py_ssize_t[:, ::1] y_index
    cdef const Py_ssize_t[::1] y_count
    cdef const float[:, ::1] y_wf
    cdef const double[:, ::1] y_wd
    cdef const Py_ssize_t[:, ::1] x_index
    cdef const Py_ssize_t[::1] x_count
    cdef const Py_ssize_t[::1] x_start
    cdef const float[:, ::1] x_wf
    cdef const double[:, ::1] x_wd
    cdef object y_weights, x_weights  # the same weights as arrays (``_weights``)

    cdef int run(self, const void* src, void* dst, int num_threads, void* scratch=*,
                 Py_ssize_t scratch_stride=*, Py_ssize_t* tags=*,
                 Py_ssize_t tags_stride=*) except -1
