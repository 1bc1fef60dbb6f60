/* Signed zeros of rows of pixels that stand in for sums of whole rows (_kernels.pyx,
 * make_step's first_product): the row kernels sum from 0, the sums of whole rows from
 * their first product, and the two differ only where every product is -0, at outputs
 * that are 0. With a positive weight in every row of the table, such an output reads a
 * value x whose product with that weight is -0, and then the table's least positive
 * weight w gives -0 too (rounding is monotone): x is -0, or negative and small enough
 * to underflow.
 *
 * cresize_negative_zero_*: whether an input row holds such a value (a product w * x
 * that is zero contributes its bits; -0: the sign bit alone). cresize_any_zero_*:
 * whether a row of outputs holds a 0 (the shorter sweep when shrinking). GCC
 * vectorizes both at the baseline (-O3, SSE2). */
#ifndef CRESIZE_ZEROS_H
#define CRESIZE_ZEROS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CRESIZE_ZERO_SWEEPS(SUFFIX, T, BITS)                                      \
    static inline int cresize_negative_zero_##SUFFIX(const T *x, ptrdiff_t n, T w) \
    {                                                                             \
        BITS hit = 0, bits;                                                       \
        for (ptrdiff_t i = 0; i < n; i++) {                                       \
            T p = w * x[i];                                                       \
            memcpy(&bits, &p, sizeof bits);                                       \
            hit |= p == 0 ? bits : 0;                                             \
        }                                                                         \
        return hit != 0;                                                          \
    }                                                                             \
    static inline int cresize_any_zero_##SUFFIX(const T *x, ptrdiff_t n)          \
    {                                                                             \
        T none = 1; /* a select of T vectorizes for both types */                 \
        for (ptrdiff_t i = 0; i < n; i++)                                         \
            none = x[i] == 0 ? 0 : none;                                          \
        return none == 0;                                                         \
    }

CRESIZE_ZERO_SWEEPS(f32, float, uint32_t)
CRESIZE_ZERO_SWEEPS(f64, double, uint64_t)

#endif
