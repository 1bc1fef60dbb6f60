/* Blocks of 2x2: rows a and b, y weights wa, wb, x weights w[2o], w[2o+1]
 * (bilinear shrinking by 2, the adjoint of nearest enlarging by 2):
 *
 *     out[o] = (0 + w[2o] * (wa*a[2o] + wb*b[2o])) + w[2o+1] * (wa*a[2o+1] + wb*b[2o+1])
 *
 * the operations of the table kernels in their order (a combination of rows,
 * then a row resample whose sum starts from 0). One C loop, compiled for the
 * baseline and, with a target attribute, for AVX2 (chosen at run time by
 * cresize_simd_level, see _simd_pixels.h); the compiler vectorizes both and,
 * without -ffast-math and with -ffp-contract=off, keeps every operation as
 * written, so every level gives the same bits. float32 pixels of 2-4 values have
 * AVX2 and AVX-512 loops of their own (below), with the same operations per value.
 */
#ifndef CRESIZE_SIMD_SUMS_H
#define CRESIZE_SIMD_SUMS_H

#include "_simd.h"
#include "_simd_rows.h"

/* In chunks of 64 outputs: first the products of each input column (contiguous,
 * no shuffles), then the pairs added; each value sees the operations above. */
#define CRESIZE_SUM_2X2(NAME, T, ATTR)                                                  \
    ATTR static void NAME(T *restrict out, const T *restrict a, const T *restrict b, T wa, \
                          T wb, const T *restrict w, Py_ssize_t n)                      \
    {                                                                                   \
        T p[128];                                                                       \
        for (Py_ssize_t o0 = 0; o0 < n; o0 += 64) {                                     \
            Py_ssize_t m = n - o0 < 64 ? n - o0 : 64, c, o;                             \
            const T *a0 = a + 2 * o0, *b0 = b ? b + 2 * o0 : a0, *w0 = w + 2 * o0;      \
            if (b)                                                                      \
                for (c = 0; c < 2 * m; c++)                                             \
                    p[c] = w0[c] * (wa * a0[c] + wb * b0[c]);                           \
            else /* a: the rows already combined */                                     \
                for (c = 0; c < 2 * m; c++)                                             \
                    p[c] = w0[c] * a0[c];                                               \
            for (o = 0; o < m; o++)                                                     \
                out[o0 + o] = ((T)0 + p[2 * o]) + p[2 * o + 1];                         \
        }                                                                               \
    }

/* Blocks whose weights are all 1 (the adjoint of nearest enlarging by 2): 1 * x is x
 * for every value (signed zeros, infinities and NaNs included), so the sum above with
 * its multiplications left out has the same bits:
 *
 *     out[o] = (0 + (a[2o] + b[2o])) + (a[2o+1] + b[2o+1])
 *
 * The x2 nearest backward of (16, 64, 56, 56), one thread: 1.80 ms against 1.97 ms
 * weighted (least CPU time of 30 calls). The same sums kept in registers (vshufps of
 * two registers of a + b, no buffer) ran at 1.77 ms in some processes and 3.8 ms in
 * others (where the arrays lay in memory, it seems), so the buffer stays; at the avx512
 * level float32 takes cresize_sum_2x2_unit_rows_f32_avx512 (below) only when
 * cresize_unit_rows_unrolled is set (not by default). */
#define CRESIZE_SUM_2X2_UNIT(NAME, T, ATTR)                                             \
    ATTR static void NAME(T *restrict out, const T *restrict a, const T *restrict b,     \
                          Py_ssize_t n)                                                 \
    {                                                                                   \
        T p[128];                                                                       \
        for (Py_ssize_t o0 = 0; o0 < n; o0 += 64) {                                     \
            Py_ssize_t m = n - o0 < 64 ? n - o0 : 64, c, o;                             \
            const T *a0 = a + 2 * o0, *b0 = b + 2 * o0;                                 \
            for (c = 0; c < 2 * m; c++)                                                 \
                p[c] = a0[c] + b0[c];                                                   \
            for (o = 0; o < m; o++)                                                     \
                out[o0 + o] = ((T)0 + p[2 * o]) + p[2 * o + 1];                         \
        }                                                                               \
    }

/* Pixels of C values (channels last, 2 <= C <= 4): w holds a weight per input value
 * (the x weight of its pixel, repeated C times), so the products run over contiguous
 * values as above; output value c of pixel o adds the products of value c of its two
 * input pixels:
 *
 *     out[o*C + c] = (0 + w[2oC + c] * r[2oC + c]) + w[2oC + C + c] * r[2oC + C + c]
 *
 * with r = wa*a + wb*b, the same operations per value as for single values. */
#define CRESIZE_SUM_2X2_PIXELS(NAME, T, ATTR)                                           \
    ATTR static void NAME(T *restrict out, const T *restrict a, const T *restrict b, T wa, \
                          T wb, const T *restrict w, Py_ssize_t n, Py_ssize_t C)        \
    {                                                                                   \
        T p[512];                                                                       \
        for (Py_ssize_t o0 = 0; o0 < n; o0 += 64) {                                     \
            Py_ssize_t m = n - o0 < 64 ? n - o0 : 64, v, o, c;                          \
            const T *a0 = a + 2 * C * o0, *b0 = b ? b + 2 * C * o0 : a0;                \
            const T *w0 = w + 2 * C * o0;                                               \
            T *out0 = out + C * o0;                                                     \
            if (b)                                                                      \
                for (v = 0; v < 2 * C * m; v++)                                         \
                    p[v] = w0[v] * (wa * a0[v] + wb * b0[v]);                           \
            else /* a: the rows already combined */                                     \
                for (v = 0; v < 2 * C * m; v++)                                         \
                    p[v] = w0[v] * a0[v];                                               \
            if (C == 3) {                                                               \
                for (o = 0; o < m; o++)                                                 \
                    for (c = 0; c < 3; c++)                                             \
                        out0[3 * o + c] = ((T)0 + p[6 * o + c]) + p[6 * o + 3 + c];     \
            } else if (C == 4) {                                                        \
                for (o = 0; o < m; o++)                                                 \
                    for (c = 0; c < 4; c++)                                             \
                        out0[4 * o + c] = ((T)0 + p[8 * o + c]) + p[8 * o + 4 + c];     \
            } else {                                                                    \
                for (o = 0; o < m; o++)                                                 \
                    for (c = 0; c < C; c++)                                             \
                        out0[C * o + c] = ((T)0 + p[2 * C * o + c]) + p[2 * C * o + C + c]; \
            }                                                                           \
        }                                                                               \
    }

CRESIZE_SUM_2X2(cresize_sum_2x2_f32_c, float, )
CRESIZE_SUM_2X2(cresize_sum_2x2_f64_c, double, )
CRESIZE_SUM_2X2_UNIT(cresize_sum_2x2_unit_f32_c, float, )
CRESIZE_SUM_2X2_UNIT(cresize_sum_2x2_unit_f64_c, double, )
CRESIZE_SUM_2X2_PIXELS(cresize_sum_2x2_pixels_f32_c, float, )
CRESIZE_SUM_2X2_PIXELS(cresize_sum_2x2_pixels_f64_c, double, )
#if CRESIZE_X86_DISPATCH
CRESIZE_SUM_2X2(cresize_sum_2x2_f32_avx2, float, CRESIZE_AVX2)
CRESIZE_SUM_2X2(cresize_sum_2x2_f64_avx2, double, CRESIZE_AVX2)
CRESIZE_SUM_2X2_UNIT(cresize_sum_2x2_unit_f32_avx2, float, CRESIZE_AVX2)
CRESIZE_SUM_2X2_UNIT(cresize_sum_2x2_unit_f64_avx2, double, CRESIZE_AVX2)

/* float32 pixels of 2-4 values, AVX2 (and AVX-512F): the products as above (eight or
 * sixteen values a register), then each output pixel's two input pixels (value c at
 * p[2Co + c] and p[2Co + C + c]) brought into the same lanes by whole-register moves,
 * and added as above, (0 + first) + second, eight output values at a time:
 *
 *   C = 4: two output pixels a register: the 128-bit halves of two registers of
 *          products (vperm2f128);
 *   C = 2: four output pixels: the 64-bit pairs of two registers (vunpcklpd /
 *          vunpckhpd, then vpermpd back into pixel order);
 *   C = 3: two output pixels a register, each half loaded from the products at
 *          6o and 6o + 3 (first and second pixel) and stored as 4 values, the 4th
 *          being the next pixel's first, which its own store rewrites; so a row's
 *          last pixel, and a pair that would write past it, take the scalar loop.
 *
 * The same operations per value as CRESIZE_SUM_2X2_PIXELS (which the f64 and
 * portable paths keep), so the same bits; the moves only choose lanes. Chunks of
 * 128 pixels: a (224, 224, 3) -> 112x112 image is one chunk a row (64-pixel chunks
 * measured 10% slower). At the avx512 level pixels of 2-4 values take the loops below
 * that keep the products in registers (CRESIZE_PAIRS16), whole rows; this one (its
 * products on 512-bit registers) only pixels of more than 4 values. */
#define CRESIZE_SUM_2X2_PIXELS_F32(NAME, ATTR, VEC, N, SET1, LOAD, ADD, MUL, STORE, PAIRS) \
    ATTR static void NAME(float *restrict out, const float *restrict a,                 \
                          const float *restrict b, float wa, float wb,                  \
                          const float *restrict w, Py_ssize_t n, Py_ssize_t C)          \
    {                                                                                   \
        float p[1024 + 16];                                                             \
        const VEC va = SET1(wa), vb = SET1(wb);                                         \
        const __m256 z = _mm256_setzero_ps();                                           \
        for (Py_ssize_t o0 = 0; o0 < n; o0 += 128) {                                    \
            Py_ssize_t m = n - o0 < 128 ? n - o0 : 128, V = 2 * C * m, v;               \
            const float *a0 = a + 2 * C * o0, *b0 = b ? b + 2 * C * o0 : a0;            \
            const float *w0 = w + 2 * C * o0;                                           \
            float *out0 = out + C * o0;                                                 \
            if (b) {                                                                    \
                for (v = 0; v + N <= V; v += N)                                         \
                    STORE(p + v, MUL(LOAD(w0 + v), ADD(MUL(va, LOAD(a0 + v)),          \
                                                       MUL(vb, LOAD(b0 + v)))));        \
                for (; v < V; v++)                                                      \
                    p[v] = w0[v] * (wa * a0[v] + wb * b0[v]);                           \
            } else { /* a: the rows already combined */                                 \
                for (v = 0; v + N <= V; v += N)                                         \
                    STORE(p + v, MUL(LOAD(w0 + v), LOAD(a0 + v)));                      \
                for (; v < V; v++)                                                      \
                    p[v] = w0[v] * a0[v];                                               \
            }                                                                           \
            for (; v < V + 8; v++) /* the unused 4th lane of the last C = 3 load */     \
                p[v] = 0;                                                               \
            PAIRS(out0, p, m, n - o0, C, z);                                            \
        }                                                                               \
        _mm256_zeroupper();                                                             \
    }

/* The pairs of a chunk of m output pixels (see above); `left`: pixels from the chunk's
 * first to the row's end. */
CRESIZE_AVX2 static inline __attribute__((always_inline)) void
cresize_pairs_f32(float *out0, const float *p, Py_ssize_t m, Py_ssize_t left, Py_ssize_t C,
                  __m256 z)
{
    Py_ssize_t o = 0, c;
    if (C == 4) {
        for (; o + 2 <= m; o += 2) {
            __m256 x0 = _mm256_loadu_ps(p + 8 * o), x1 = _mm256_loadu_ps(p + 8 * o + 8);
            __m256 first = _mm256_permute2f128_ps(x0, x1, 0x20);
            __m256 second = _mm256_permute2f128_ps(x0, x1, 0x31);
            _mm256_storeu_ps(out0 + 4 * o, _mm256_add_ps(_mm256_add_ps(z, first), second));
        }
    } else if (C == 2) {
        for (; o + 4 <= m; o += 4) {
            __m256d x0 = _mm256_castps_pd(_mm256_loadu_ps(p + 4 * o));
            __m256d x1 = _mm256_castps_pd(_mm256_loadu_ps(p + 4 * o + 8));
            __m256 first = _mm256_castpd_ps(_mm256_unpacklo_pd(x0, x1));
            __m256 second = _mm256_castpd_ps(_mm256_unpackhi_pd(x0, x1));
            __m256 s = _mm256_add_ps(_mm256_add_ps(z, first), second); /* o, o+2, o+1, o+3 */
            s = _mm256_castpd_ps(
                _mm256_permute4x64_pd(_mm256_castps_pd(s), _MM_SHUFFLE(3, 1, 2, 0)));
            _mm256_storeu_ps(out0 + 2 * o, s);
        }
    } else if (C == 3) {
        for (; o + 2 <= m && o + 2 < left; o += 2) {
            const float *q = p + 6 * o;
            __m256 first = _mm256_loadu2_m128(q + 6, q);
            __m256 second = _mm256_loadu2_m128(q + 9, q + 3);
            __m256 s = _mm256_add_ps(_mm256_add_ps(z, first), second);
            _mm_storeu_ps(out0 + 3 * o, _mm256_castps256_ps128(s));
            _mm_storeu_ps(out0 + 3 * o + 3, _mm256_extractf128_ps(s, 1));
        }
    }
    for (; o < m; o++)
        for (c = 0; c < C; c++)
            out0[C * o + c] = (0.0f + p[2 * C * o + c]) + p[2 * C * o + C + c];
}

/* (the vector helpers and CRESIZE_AVX512: _simd_rows.h) */

CRESIZE_SUM_2X2_PIXELS_F32(cresize_sum_2x2_pixels_f32_avx2, CRESIZE_AVX2, __m256, 8,
                           cresize_set1_ps8, cresize_load_ps8, cresize_add_ps8, cresize_mul_ps8,
                           cresize_store_ps8, cresize_pairs_f32)
CRESIZE_SUM_2X2_PIXELS_F32(cresize_sum_2x2_pixels_f32_avx512, CRESIZE_AVX512, __m512, 16,
                           cresize_set1_ps16, cresize_row16_f32, cresize_add_ps16,
                           cresize_mul_ps16, cresize_store_ps16, cresize_pairs_f32)

/* float32 pixels of 3 values, AVX-512F: as the float64 loop below, the products in
 * registers, from the lanes they are added in (no buffer of products): five output
 * pixels from the 32 values at 6o, from which vpermt2ps takes each output value's first
 * and second products into its lane; the row's last pixels under masks (below). The
 * same operations per value as CRESIZE_SUM_2X2_PIXELS, so the same bits.
 * One thread: (224, 224, 3) -> 112x112 bilinear, float32 8.5 -> 6.4 us, uint8 10.1 ->
 * 8.2 us. (The same in AVX2, two pixels a register from 128-bit halves, ran a float32
 * call at 12.4 us against 10.5 us with the buffer: not kept.) */
/* The lanes of the two products of output values 0 ... 15 among 32 values: 3-value
 * pixels (lane 15 unused: rewritten, or not stored), and pixels of 1, 2, 4 values (value c of pixel q:
 * 2Cq + c; the second product C lanes on). */
static const int cresize_pair_lanes3[2][16] = {
    {0, 1, 2, 6, 7, 8, 12, 13, 14, 18, 19, 20, 24, 25, 26, 0},
    {3, 4, 5, 9, 10, 11, 15, 16, 17, 21, 22, 23, 27, 28, 29, 0}};
static const int cresize_pair_lanes[3][16] = {
    {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30},
    {0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29},
    {0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27}};

/* The loops above for rows a, b of S values (float32, or 8-bit integers converted as
 * they are loaded, exactly): NAME##_pixels3 (3-value pixels, five a step) and
 * NAME##_values (1, 2 or 4 values, sixteen output values a step), each the whole row.
 * A row's last pixels take one more step over the 32 values that end the row (its
 * lanes 2 on for 3-value pixels): it rewrites some outputs of the step before with the
 * same bits, reads nothing past the row and needs no masked loads, which AVX-512F has
 * not for bytes. A row of fewer than 6 pixels (16 output values) loads its values under
 * a mask (LOAD16_PART: the lanes past the row's values 0, nothing read past them). Every
 * store writes only its step's outputs (3-value pixels: 15 lanes under a mask). The
 * same operations on every value stored, so the same bits. b = NULL (float32 only): a
 * holds the rows already combined. One thread, CPU time, (224, 224, 3) -> 112x112
 * bilinear resize(): float32 12.1-12.2 -> 10.0-10.3 us, uint8 14.3-14.5 -> 13.4-13.6 us
 * (docs/kernels.md, also for what was tried). */
#define CRESIZE_PAIRS16(NAME, S, LOAD16, LOAD16_PART)                                    \
    CRESIZE_AVX512 static inline __attribute__((always_inline)) __m512                   \
    NAME##_products(const float *w, const S *a, const S *b, __m512 va, __m512 vb)        \
    {                                                                                    \
        __m512 r = LOAD16(a);                                                            \
        if (b)                                                                           \
            r = _mm512_add_ps(_mm512_mul_ps(va, r), _mm512_mul_ps(vb, LOAD16(b)));       \
        return _mm512_mul_ps(_mm512_loadu_ps(w), r);                                     \
    }                                                                                    \
    /* the same for the first cnt (0-16) values, the other lanes 0 */                    \
    CRESIZE_AVX512 static inline __attribute__((always_inline)) __m512                   \
    NAME##_products_part(const float *w, const S *a, const S *b, __m512 va, __m512 vb,   \
                         Py_ssize_t cnt)                                                 \
    {                                                                                    \
        __m512 r;                                                                        \
        if (cnt <= 0)                                                                    \
            return _mm512_setzero_ps();                                                  \
        r = LOAD16_PART(a, cnt);                                                         \
        if (b)                                                                           \
            r = _mm512_add_ps(_mm512_mul_ps(va, r), _mm512_mul_ps(vb, LOAD16_PART(b, cnt))); \
        return _mm512_mul_ps(cresize_row16_f32_part(w, cnt), r);                         \
    }                                                                                    \
    /* output values u ... of the 16 from the 32 values at 2u (V of them, <= 32, in the  \
     * row), lanes first / second; stored under mask k (all 16 lanes: a plain store) */  \
    CRESIZE_AVX512 static inline __attribute__((always_inline)) void                     \
    NAME##_step(float *out, const S *a, const S *b, const float *w, __m512 va, __m512 vb, \
                __m512i first, __m512i second, Py_ssize_t V, __mmask16 k)                \
    {                                                                                    \
        const __m512 z = _mm512_setzero_ps();                                            \
        __m512 lo, hi, s;                                                                \
        if (V >= 32) {                                                                   \
            lo = NAME##_products(w, a, b, va, vb);                                       \
            hi = NAME##_products(w + 16, a + 16, b ? b + 16 : NULL, va, vb);             \
        } else {                                                                         \
            lo = NAME##_products_part(w, a, b, va, vb, V < 16 ? V : 16);                 \
            hi = V > 16 ? NAME##_products_part(w + 16, a + 16, b ? b + 16 : NULL, va, vb, \
                                               V - 16)                                   \
                        : z;                                                             \
        }                                                                                \
        s = _mm512_add_ps(_mm512_add_ps(z, _mm512_permutex2var_ps(lo, first, hi)),      \
                          _mm512_permutex2var_ps(lo, second, hi));                       \
        if (k == (__mmask16)0xffff)                                                      \
            _mm512_storeu_ps(out, s);                                                    \
        else                                                                             \
            _mm512_mask_storeu_ps(out, k, s);                                            \
    }                                                                                    \
    CRESIZE_AVX512 static void NAME##_pixels3(float *restrict out, const S *restrict a,    \
                                              const S *restrict b, float wa, float wb,       \
                                              const float *restrict w, Py_ssize_t n)        \
    {                                                                                    \
        const __m512i first = _mm512_loadu_si512(cresize_pair_lanes3[0]);               \
        const __m512i second = _mm512_loadu_si512(cresize_pair_lanes3[1]);              \
        const __m512 va = _mm512_set1_ps(wa), vb = _mm512_set1_ps(wb);                   \
        Py_ssize_t o = 0, v;                                                             \
        for (; o + 6 <= n; o += 5) { /* reads values 6o ... 6o + 31 of the row's 6n */ \
            v = 6 * o;                                                                   \
            NAME##_step(out + 3 * o, a + v, b ? b + v : NULL, w + v, va, vb, first, second, \
                        32, (__mmask16)0x7fff);                                          \
        }                                                                                \
        if (o < n && n >= 6) { /* the last 5 pixels, from the 32 values ending the row */ \
            const __m512i two = _mm512_set1_epi32(2); /* the 5 pixels from lane 2 on */   \
            v = 6 * n - 32;                                                              \
            NAME##_step(out + 3 * (n - 5), a + v, b ? b + v : NULL, w + v, va, vb,       \
                        _mm512_add_epi32(first, two), _mm512_add_epi32(second, two), 32, \
                        (__mmask16)0x7fff);                                              \
        } else if (o < n) { /* a row of 1-5 pixels: 6n <= 30 values */                    \
            NAME##_step(out, a, b, w, va, vb, first, second, 6 * n,                      \
                        (__mmask16)((1u << (3 * n)) - 1));                               \
        }                                                                                \
    }                                                                                    \
    CRESIZE_AVX512 static void NAME##_values(float *restrict out, const S *restrict a,     \
                                             const S *restrict b, float wa, float wb,        \
                                             const float *restrict w, Py_ssize_t n,          \
                                             Py_ssize_t C)                                   \
    {                                                                                    \
        const __m512i first = _mm512_loadu_si512(cresize_pair_lanes[C == 1 ? 0 : C == 2 ? 1 : 2]); \
        const __m512i second = _mm512_add_epi32(first, _mm512_set1_epi32((int)C));      \
        const __m512 va = _mm512_set1_ps(wa), vb = _mm512_set1_ps(wb);                   \
        Py_ssize_t u = 0, v;                                                             \
        for (; u + 16 <= C * n; u += 16) { /* reads values 2u ... 2u + 31 of the row's 2Cn */ \
            v = 2 * u;                                                                   \
            NAME##_step(out + u, a + v, b ? b + v : NULL, w + v, va, vb, first, second, 32, \
                        (__mmask16)0xffff);                                              \
        }                                                                                \
        if (u < C * n && C * n >= 16) { /* the last 16 output values, again */           \
            u = C * n - 16;                                                              \
            v = 2 * u;                                                                   \
            NAME##_step(out + u, a + v, b ? b + v : NULL, w + v, va, vb, first, second, 32, \
                        (__mmask16)0xffff);                                              \
        } else if (u < C * n) { /* a row of 1-15 output values: 2Cn values */           \
            NAME##_step(out, a, b, w, va, vb, first, second, 2 * C * n,                  \
                        (__mmask16)((1u << (C * n)) - 1));                               \
        }                                                                                \
    }

CRESIZE_PAIRS16(cresize_pairs16_f32, float, cresize_row16_f32, cresize_row16_f32_part)
CRESIZE_PAIRS16(cresize_pairs16_u8, unsigned char, cresize_row16_u8, cresize_row16_u8_part)
CRESIZE_PAIRS16(cresize_pairs16_s8, signed char, cresize_row16_s8, cresize_row16_s8_part)

/* float64 pixels of 2-4 values, AVX2: each output pixel's two input pixels' products
 * computed in registers, four values a register, from the lanes they are added in (no
 * buffer of products: its unaligned reloads of fresh stores stalled the loop, which
 * took 38% of a uint16 (224, 224, 3) -> 112x112 bilinear call, one thread):
 *
 *   C = 4: one output pixel a register (its two input pixels: two loads);
 *   C = 2: two output pixels a register: the 128-bit halves of two registers of
 *          products (vperm2f128);
 *   C = 3: one output pixel a register, from the values at 6o and 6o + 3, stored as
 *          4 values, the 4th being the next pixel's first, which its own store
 *          rewrites; so a row's last pixel takes the scalar loop.
 *
 * The same operations per value as CRESIZE_SUM_2X2_PIXELS (products w * (wa*a + wb*b),
 * or w * a for rows already combined, then (0 + first) + second), so the same bits. */
CRESIZE_AVX2 static inline __attribute__((always_inline)) __m256d
cresize_products4_pd(const double *w, const double *a, const double *b, __m256d va, __m256d vb)
{
    __m256d r = _mm256_loadu_pd(a);
    if (b)
        r = _mm256_add_pd(_mm256_mul_pd(va, r), _mm256_mul_pd(vb, _mm256_loadu_pd(b)));
    return _mm256_mul_pd(_mm256_loadu_pd(w), r);
}

CRESIZE_AVX2 static void cresize_sum_2x2_pixels_f64_avx2(double *restrict out,
                                                         const double *restrict a,
                                                         const double *restrict b, double wa,
                                                         double wb, const double *restrict w,
                                                         Py_ssize_t n, Py_ssize_t C)
{
    const __m256d va = _mm256_set1_pd(wa), vb = _mm256_set1_pd(wb), z = _mm256_setzero_pd();
    Py_ssize_t o = 0, c, v;
#define CRESIZE_P4(V) cresize_products4_pd(w + (V), a + (V), b ? b + (V) : NULL, va, vb)
    if (C == 4) {
        for (; o < n; o++)
            _mm256_storeu_pd(out + 4 * o,
                             _mm256_add_pd(_mm256_add_pd(z, CRESIZE_P4(8 * o)), CRESIZE_P4(8 * o + 4)));
    } else if (C == 2) {
        for (; o + 2 <= n; o += 2) {
            __m256d x0 = CRESIZE_P4(4 * o), x1 = CRESIZE_P4(4 * o + 4);
            __m256d first = _mm256_permute2f128_pd(x0, x1, 0x20);
            __m256d second = _mm256_permute2f128_pd(x0, x1, 0x31);
            _mm256_storeu_pd(out + 2 * o, _mm256_add_pd(_mm256_add_pd(z, first), second));
        }
    } else if (C == 3) {
        for (; o + 1 < n; o++) /* reads values 6o ... 6o + 6 of the row's 6n */
            _mm256_storeu_pd(out + 3 * o,
                             _mm256_add_pd(_mm256_add_pd(z, CRESIZE_P4(6 * o)), CRESIZE_P4(6 * o + 3)));
    }
#undef CRESIZE_P4
    for (; o < n; o++)
        for (c = 0; c < C; c++) {
            double p0, p1;
            v = 2 * C * o + c;
            p0 = w[v] * (b ? wa * a[v] + wb * b[v] : a[v]);
            p1 = w[v + C] * (b ? wa * a[v + C] + wb * b[v + C] : a[v + C]);
            out[C * o + c] = (0.0 + p0) + p1;
        }
    _mm256_zeroupper();
}
#endif

/* NAME(ARGS): NAME##_avx2(ARGS) where cresize_simd_level allows it, else NAME##_c(ARGS). */
#if CRESIZE_X86_DISPATCH
#define CRESIZE_SUMS_CALL(NAME, ...)                                                    \
    do {                                                                                \
        if (cresize_simd_level >= 2)                                                    \
            NAME##_avx2(__VA_ARGS__);                                                   \
        else                                                                            \
            NAME##_c(__VA_ARGS__);                                                      \
    } while (0)
#else
#define CRESIZE_SUMS_CALL(NAME, ...) NAME##_c(__VA_ARGS__)
#endif

#define CRESIZE_SUM_2X2_DISPATCH(NAME, T)                                               \
    static inline void NAME(T *out, const T *a, const T *b, T wa, T wb, const T *w,      \
                            Py_ssize_t n)                                               \
    {                                                                                   \
        CRESIZE_SUMS_CALL(NAME, out, a, b, wa, wb, w, n);                               \
    }
#define CRESIZE_SUM_2X2_PIXELS_DISPATCH(NAME, T)                                        \
    static inline void NAME(T *out, const T *a, const T *b, T wa, T wb, const T *w,      \
                            Py_ssize_t n, Py_ssize_t C)                                 \
    {                                                                                   \
        CRESIZE_SUMS_CALL(NAME, out, a, b, wa, wb, w, n, C);                            \
    }

#define CRESIZE_SUM_2X2_UNIT_DISPATCH(NAME, T)                                          \
    static inline void NAME(T *out, const T *a, const T *b, Py_ssize_t n)                \
    {                                                                                   \
        CRESIZE_SUMS_CALL(NAME, out, a, b, n);                                          \
    }

CRESIZE_SUM_2X2_UNIT_DISPATCH(cresize_sum_2x2_unit_f32, float)
CRESIZE_SUM_2X2_UNIT_DISPATCH(cresize_sum_2x2_unit_f64, double)
/* float32: also an AVX-512 loop (level avx512). */
static inline void cresize_sum_2x2_f32(float *out, const float *a, const float *b, float wa,
                                       float wb, const float *w, Py_ssize_t n)
{
#if CRESIZE_X86_DISPATCH
    if (cresize_simd_level >= 3) {
        cresize_pairs16_f32_values(out, a, b, wa, wb, w, n, 1);
        return;
    }
#endif
    CRESIZE_SUMS_CALL(cresize_sum_2x2_f32, out, a, b, wa, wb, w, n);
}
CRESIZE_SUM_2X2_DISPATCH(cresize_sum_2x2_f64, double)
/* float32 pixels: also an AVX-512 loop (level avx512). */
static inline void cresize_sum_2x2_pixels_f32(float *out, const float *a, const float *b, float wa,
                                              float wb, const float *w, Py_ssize_t n, Py_ssize_t C)
{
#if CRESIZE_X86_DISPATCH
    if (cresize_simd_level >= 3 && C <= 4) { /* products in registers */
        if (C == 3)
            cresize_pairs16_f32_pixels3(out, a, b, wa, wb, w, n);
        else
            cresize_pairs16_f32_values(out, a, b, wa, wb, w, n, C);
        return;
    }
    if (cresize_simd_level >= 3) {
        cresize_sum_2x2_pixels_f32_avx512(out, a, b, wa, wb, w, n, C);
        return;
    }
#endif
    CRESIZE_SUMS_CALL(cresize_sum_2x2_pixels_f32, out, a, b, wa, wb, w, n, C);
}
CRESIZE_SUM_2X2_PIXELS_DISPATCH(cresize_sum_2x2_pixels_f64, double)

/* The x pass alone of a row of blocks of 2 whose rows are already combined (r: the
 * integer rows' _combine_rows), w a weight per input value (C <= 4):
 *
 *     out[o*C + c] = (0 + w[2oC + c] * r[2oC + c]) + w[2oC + C + c] * r[2oC + C + c]
 *
 * the operations of _row / _resample_row on such a table, in their order: the sweeps
 * above with b = NULL (products w * r). */
#define CRESIZE_PAIRS_2X2(NAME, T, SFX)                                                 \
    static inline void NAME(T *out, const T *r, const T *w, Py_ssize_t n, Py_ssize_t C) \
    {                                                                                   \
        if (C == 1)                                                                     \
            cresize_sum_2x2_##SFX(out, r, NULL, 0, 0, w, n);                            \
        else                                                                            \
            cresize_sum_2x2_pixels_##SFX(out, r, NULL, 0, 0, w, n, C);                  \
    }
CRESIZE_PAIRS_2X2(cresize_pairs_2x2_f32, float, f32)
CRESIZE_PAIRS_2X2(cresize_pairs_2x2_f64, double, f64)


/* Output rows j0 .. j1 - 1 of a 2x2 block sum, one call per thread (no per-row call
 * from the kernel's loop): row j = b * out_h + oy (n_out pixels of C values, contiguous
 * from out) reads rows 2oy and 2oy + 1 of plane b (in_h rows of in_row values from
 * src): BODY runs for each with o (its outputs), a and a + in_row (its two rows) and w
 * (its y weights, wy[oy * wy_stride + 0, 1]). A plane's rows at a time, each pointer
 * advanced by a constant: the x2 nearest backward of (16, 64, 56, 56) took 1.19-1.20 ms
 * so against 1.37 ms with the plane and row worked out at every row (one thread, the
 * AVX-512 loop below, docs/kernels.md). */
#define CRESIZE_FOR_2X2_ROWS(T, BODY)                                                   \
    do {                                                                                \
        Py_ssize_t b_, oy_, j_ = j0, r_, n_;                                            \
        if (j1 <= j0)                                                                   \
            break;                                                                      \
        b_ = j0 / out_h;                                                                \
        oy_ = j0 - b_ * out_h;                                                          \
        for (; j_ < j1; j_ += n_, b_++, oy_ = 0) {                                      \
            const T *a = src + b_ * in_h * in_row + 2 * oy_ * in_row;                   \
            const T *w = wy + oy_ * wy_stride;                                          \
            T *o = out + j_ * n_out * C;                                                \
            n_ = out_h - oy_ < j1 - j_ ? out_h - oy_ : j1 - j_;                         \
            for (r_ = 0; r_ < n_; r_++, a += 2 * in_row, w += wy_stride, o += n_out * C) { \
                (void)w;                                                                \
                BODY;                                                                   \
            }                                                                           \
        }                                                                               \
    } while (0)

/* Each row by the sweeps above; `unit`: every weight is 1 (C = 1). */
#define CRESIZE_SUM_2X2_ROWS(NAME, T, SFX)                                              \
    static void NAME(T *out, const T *src, Py_ssize_t j0, Py_ssize_t j1, Py_ssize_t out_h, \
                     Py_ssize_t in_h, Py_ssize_t in_row, const T *wy, Py_ssize_t wy_stride, \
                     const T *wx, Py_ssize_t n_out, Py_ssize_t C, int unit)             \
    {                                                                                   \
        CRESIZE_FOR_2X2_ROWS(T, {                                                       \
            if (unit)                                                                   \
                cresize_sum_2x2_unit_##SFX(o, a, a + in_row, n_out);                    \
            else if (C == 1)                                                            \
                cresize_sum_2x2_##SFX(o, a, a + in_row, w[0], w[1], wx, n_out);         \
            else                                                                        \
                cresize_sum_2x2_pixels_##SFX(o, a, a + in_row, w[0], w[1], wx, n_out, C); \
        });                                                                             \
    }

CRESIZE_SUM_2X2_ROWS(cresize_sum_2x2_rows_f32_any, float, f32)
CRESIZE_SUM_2X2_ROWS(cresize_sum_2x2_rows_f64, double, f64)

#if CRESIZE_X86_DISPATCH
/* Blocks of weight 1, float32, AVX-512F: sixteen outputs a step from two registers of
 * a + b (32 inputs of each row), whose even and odd lanes (each output's first and
 * second pair) vpermt2ps brings into two registers, added as CRESIZE_SUM_2X2_UNIT
 * adds them, (0 + (a[2o] + b[2o])) + (a[2o+1] + b[2o+1]): the same bits, no buffer.
 * Then eight outputs the same way (the upper lanes unused) and the row's last ones one
 * by one. `steps` (n / 16) is a constant where the caller below passes one. */
CRESIZE_AVX512 static inline __attribute__((always_inline)) void
cresize_sum_2x2_unit_f32_avx512(float *restrict out, const float *restrict a,
                                const float *restrict b, Py_ssize_t n, Py_ssize_t steps)
{
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27,
                                          29, 31);
    const __m512 zero = _mm512_setzero_ps();
    Py_ssize_t o = 0, k;
    __m512 s0, s1;
    for (k = 0; k < steps; k++, o += 16) {
        s0 = _mm512_add_ps(_mm512_loadu_ps(a + 2 * o), _mm512_loadu_ps(b + 2 * o));
        s1 = _mm512_add_ps(_mm512_loadu_ps(a + 2 * o + 16), _mm512_loadu_ps(b + 2 * o + 16));
        _mm512_storeu_ps(out + o,
                         _mm512_add_ps(_mm512_add_ps(zero, _mm512_permutex2var_ps(s0, even, s1)),
                                       _mm512_permutex2var_ps(s0, odd, s1)));
    }
    if (n - o >= 8) { /* eight outputs: sixteen inputs of each row (the upper lanes: 0) */
        s0 = _mm512_add_ps(_mm512_loadu_ps(a + 2 * o), _mm512_loadu_ps(b + 2 * o));
        _mm256_storeu_ps(out + o, _mm512_castps512_ps256(
            _mm512_add_ps(_mm512_add_ps(zero, _mm512_permutex2var_ps(s0, even, zero)),
                          _mm512_permutex2var_ps(s0, odd, zero))));
        o += 8;
    }
    for (; o < n; o++) /* the row's last outputs, as CRESIZE_SUM_2X2_UNIT sums them */
        out[o] = (0.0f + (a[2 * o] + b[2 * o])) + (a[2 * o + 1] + b[2 * o + 1]);
}

/* Rows of blocks of weight 1 by the loop above, its steps a constant for rows of up to
 * 8 steps (128 outputs), so that each row's loads are unrolled: the x2 nearest backward
 * of (16, 64, 56, 56), one thread, took 1.34-1.41 ms so against 1.9-2.3 ms with a loop
 * over a run-time step count and 1.55-1.59 ms with the buffered loop (docs/kernels.md). */
CRESIZE_AVX512 static void cresize_sum_2x2_unit_rows_f32_avx512(
    float *out, const float *src, Py_ssize_t j0, Py_ssize_t j1, Py_ssize_t out_h,
    Py_ssize_t in_h, Py_ssize_t in_row, Py_ssize_t n_out)
{
    const float *wy = NULL;
    const Py_ssize_t wy_stride = 0, C = 1;
#define CRESIZE_UNIT_ROWS_CASE(K)                                                       \
    case K:                                                                             \
        CRESIZE_FOR_2X2_ROWS(float, cresize_sum_2x2_unit_f32_avx512(o, a, a + in_row,   \
                                                                    n_out, K));         \
        return;
    switch (n_out / 16) {
        CRESIZE_UNIT_ROWS_CASE(0)
        CRESIZE_UNIT_ROWS_CASE(1)
        CRESIZE_UNIT_ROWS_CASE(2)
        CRESIZE_UNIT_ROWS_CASE(3)
        CRESIZE_UNIT_ROWS_CASE(4)
        CRESIZE_UNIT_ROWS_CASE(5)
        CRESIZE_UNIT_ROWS_CASE(6)
        CRESIZE_UNIT_ROWS_CASE(7)
        CRESIZE_UNIT_ROWS_CASE(8)
    default:
        CRESIZE_FOR_2X2_ROWS(float, cresize_sum_2x2_unit_f32_avx512(o, a, a + in_row, n_out,
                                                                    n_out / 16));
    }
#undef CRESIZE_UNIT_ROWS_CASE
}
#endif

/* 1: at level avx512, float32 blocks of weight 1 take the unrolled AVX-512 rows above;
 * 0 (the default): the buffered loop (CRESIZE_SUM_2X2_UNIT), as at avx2. The unrolled
 * rows were 1.13x faster on the round 9-11 VMs (1.34-1.41 against 1.55-1.59 ms, the x2
 * nearest backward of (16, 64, 56, 56), one thread) and 1.6x slower on a VM of the same
 * CPU model (AMD EPYC, Zen 4) on 2026-12-06 (3.8-4.0 against 2.4-2.5 ms): the buffered
 * loop is the one that never loses much. Not the 512-bit registers: the same rows
 * unrolled on vshufps + vpermpd were as slow, the 16-output loop with a run-time step
 * count near the buffered one, a register loop on 256-bit registers slow too; an lfence
 * after every row brought the slow loops to 2.5-2.6 ms (the next rows' loads kept from
 * overlapping this row's). _kernels._unit_rows_unrolled switches it, to measure on other
 * machines; docs/kernels.md. */
static int cresize_unit_rows_unrolled = 0;

static void cresize_unit_rows_unrolled_set(int on) { cresize_unit_rows_unrolled = on != 0; }

/* float32 rows: blocks of weight 1 take the AVX-512 loops above at level avx512
 * (where cresize_unit_rows_unrolled allows). */
static inline void cresize_sum_2x2_rows_f32(float *out, const float *src, Py_ssize_t j0,
                                            Py_ssize_t j1, Py_ssize_t out_h, Py_ssize_t in_h,
                                            Py_ssize_t in_row, const float *wy,
                                            Py_ssize_t wy_stride, const float *wx,
                                            Py_ssize_t n_out, Py_ssize_t C, int unit)
{
#if CRESIZE_X86_DISPATCH
    if (unit && cresize_simd_level >= 3 && cresize_unit_rows_unrolled) {
        cresize_sum_2x2_unit_rows_f32_avx512(out, src, j0, j1, out_h, in_h, in_row, n_out);
        return;
    }
#endif
    cresize_sum_2x2_rows_f32_any(out, src, j0, j1, out_h, in_h, in_row, wy, wy_stride, wx,
                                 n_out, C, unit);
}

/* 8-bit images: the 2x2 pair sums (VERTICAL_FIRST, both tables blocks of 2) straight
 * from the two integer rows, converted as they are loaded, at the avx512 level
 * (CRESIZE_PAIRS16): the operations of the rows' combination (wa*a + wb*b, as
 * _combine_rows sums two taps) and of the pair sums, in one sweep, so the same bits
 * (the row's last pixels under masks, in the same loop). 0 (nothing written) where the
 * level has no such loop: the caller combines the rows first. */
#define CRESIZE_SUM_2X2_INT8(NAME, S, SFX)                                               \
    static inline int NAME(float *out, const S *a, const S *b, float wa, float wb,       \
                           const float *w, Py_ssize_t n, Py_ssize_t C)                   \
    {                                                                                    \
        if (!CRESIZE_X86_DISPATCH || cresize_simd_level < 3 || C > 4)                    \
            return 0;                                                                    \
        CRESIZE_PAIRS16_INT_CALL(SFX)                                                    \
        return 1;                                                                        \
    }
#if CRESIZE_X86_DISPATCH
#define CRESIZE_PAIRS16_INT_CALL(SFX)                                                    \
    if (C == 3)                                                                          \
        cresize_pairs16_##SFX##_pixels3(out, a, b, wa, wb, w, n);                        \
    else                                                                                 \
        cresize_pairs16_##SFX##_values(out, a, b, wa, wb, w, n, C);
#else
#define CRESIZE_PAIRS16_INT_CALL(SFX)
#endif
CRESIZE_SUM_2X2_INT8(cresize_sum_2x2_u8, unsigned char, u8)
CRESIZE_SUM_2X2_INT8(cresize_sum_2x2_s8, signed char, s8)

#endif
