/* Signed zeros of rows of pixels that stand in for sums of whole rows (_kernels.pyx,
 * make_step's first_product): the row kernels sum from 0, the sums of whole rows from
 * their first product, and the two differ only where every product is -0. With a
 * positive weight in every row of the table, such an output reads a value x whose
 * product with that weight is -0, and then the table's least positive weight w gives
 * -0 too (rounding is monotone): x is -0, or negative and small enough to underflow.
 * These sweeps find whether an input row holds such a value: a product w * x that is
 * zero contributes its bits (-0: the sign bit alone). GCC vectorizes them at the
 * baseline (-O3, SSE2). */
#ifndef CRESIZE_ZEROS_H
#define CRESIZE_ZEROS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline int cresize_negative_zero_f32(const float *x, ptrdiff_t n, float w)
{
    uint32_t hit = 0, bits;
    for (ptrdiff_t i = 0; i < n; i++) {
        float p = w * x[i];
        memcpy(&bits, &p, sizeof bits);
        hit |= p == 0.0f ? bits : 0;
    }
    return hit != 0;
}

static inline int cresize_negative_zero_f64(const double *x, ptrdiff_t n, double w)
{
    uint64_t hit = 0, bits;
    for (ptrdiff_t i = 0; i < n; i++) {
        double p = w * x[i];
        memcpy(&bits, &p, sizeof bits);
        hit |= p == 0.0 ? bits : 0;
    }
    return hit != 0;
}

#endif
