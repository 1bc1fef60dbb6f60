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
 * holds the rows already combined. `same`: every x weight has the bits of w[0]
 * (Sizes.x_same; bilinear and area halving), which one register holds for the whole
 * row instead of two loads a step: the same products. One thread, CPU time, (224, 224,
 * 3) -> 112x112 bilinear resize(): float32 12.1-12.2 -> 10.0-10.3 us, uint8 14.3-14.5
 * -> 13.4-13.6 us (docs/kernels.md, also for what was tried).
 *
 * NAME##_pixels3_store / NAME##_values_store (8-bit rows into 8-bit outputs, T with
 * range LO ... HI): the same sums, each step's rounded to integers as the integer
 * stores round them (cresize_round16_ps: clamped, then to nearest even) and narrowed
 * (NARROW) in registers, 16 bytes stored a step; a 3-value step's 16th byte is the next
 * step's first output, which that step rewrites, and the row's last step stores its 15
 * as two overlapping 8-byte halves, so nothing is written past the row. 0 (nothing
 * written) for a row shorter than one step: the caller sums into floats and stores. */
/* A row of the loops below, shared by their float and 8-bit stores (the row's registers
 * first, second, va, vb, vw set up here; `same` a constant in each copy that
 * CRESIZE_PAIRS16_SAME makes). ROW3: 3-value pixels, STEP(NAME, o, v, first, second)
 * for pixels o ... o + 4 from values v ... v + 31, the row's last 5 pixels by LAST from
 * the 32 values ending it (lanes 2 on), a row of 1-5 pixels by SHORT. ROW: 1, 2 or 4
 * values, STEP for output values u ... u + 15 from values 2u ... 2u + 31, the row's last
 * 16 again, a row of 1-15 output values by SHORT. */
#define CRESIZE_PAIRS16_SAME(BODY)                                                       \
    if (same) {                                                                          \
        const int same_ = 1;                                                             \
        BODY                                                                             \
    } else {                                                                             \
        const int same_ = 0;                                                             \
        BODY                                                                             \
    }
#define CRESIZE_PAIRS16_REGS(FIRST, SECOND)                                              \
    const __m512i first = FIRST, second = SECOND;                                        \
    const __m512 va = _mm512_set1_ps(wa), vb = _mm512_set1_ps(wb);                       \
    const __m512 vw = _mm512_set1_ps(same_ ? w[0] : 0.0f);
#define CRESIZE_PAIRS16_ROW3(NAME, STEP, LAST, SHORT)                                    \
    {                                                                                    \
        CRESIZE_PAIRS16_REGS(_mm512_loadu_si512(cresize_pair_lanes3[0]),                 \
                             _mm512_loadu_si512(cresize_pair_lanes3[1]))                 \
        Py_ssize_t o = 0;                                                                \
        for (; o + 6 <= n; o += 5) /* reads values 6o ... 6o + 31 of the row's 6n */     \
            STEP(NAME, o, 6 * o, first, second);                                         \
        if (o < n && n >= 6) {                                                           \
            const __m512i two = _mm512_set1_epi32(2);                                    \
            LAST(NAME, n - 5, 6 * n - 32, _mm512_add_epi32(first, two),                  \
                 _mm512_add_epi32(second, two));                                         \
        } else if (o < n) { /* a row of 1-5 pixels: 6n <= 30 values */                   \
            SHORT(NAME, first, second, 6 * n, (1u << (3 * n)) - 1);                      \
        }                                                                                \
    }
#define CRESIZE_PAIRS16_ROW(NAME, STEP, SHORT)                                           \
    {                                                                                    \
        CRESIZE_PAIRS16_REGS(                                                            \
            _mm512_loadu_si512(cresize_pair_lanes[C == 1 ? 0 : C == 2 ? 1 : 2]),         \
            _mm512_add_epi32(_mm512_loadu_si512(                                         \
                                 cresize_pair_lanes[C == 1 ? 0 : C == 2 ? 1 : 2]),       \
                             _mm512_set1_epi32((int)C)))                                 \
        Py_ssize_t u = 0;                                                                \
        for (; u + 16 <= C * n; u += 16) /* reads values 2u ... 2u + 31 of the row's 2Cn */ \
            STEP(NAME, u, 2 * u, first, second);                                         \
        if (u < C * n && C * n >= 16) { /* the last 16 output values, again */           \
            u = C * n - 16;                                                              \
            STEP(NAME, u, 2 * u, first, second);                                         \
        } else if (u < C * n) { /* a row of 1-15 output values: 2Cn values */           \
            SHORT(NAME, first, second, 2 * C * n, (1u << (C * n)) - 1);                  \
        }                                                                                \
    }
/* The sums of a whole step (32 values from v), and the steps' stores: float32 (3-value
 * pixels: 15 lanes under a mask; a short row's values under masks), 8-bit (16 bytes; a
 * 3-value row's last 15 as two overlapping 8-byte halves). */
#define CRESIZE_PAIRS16_SUMS(NAME, v, f, s)                                              \
    NAME##_sums(a + (v), b ? b + (v) : NULL, w + (v), va, vb, vw, same_, f, s, 32)
#define CRESIZE_PAIRS16_F32_STEP3(NAME, o, v, f, s)                                      \
    NAME##_step(out + 3 * (o), a + (v), b ? b + (v) : NULL, w + (v), va, vb, vw, same_, f, s, \
                32, (__mmask16)0x7fff)
#define CRESIZE_PAIRS16_F32_STEP(NAME, u, v, f, s)                                       \
    NAME##_step(out + (u), a + (v), b ? b + (v) : NULL, w + (v), va, vb, vw, same_, f, s, 32, \
                (__mmask16)0xffff)
#define CRESIZE_PAIRS16_F32_SHORT(NAME, f, s, V, k)                                      \
    NAME##_step(out, a, b, w, va, vb, vw, 0, f, s, V, (__mmask16)(k))
#define CRESIZE_PAIRS16_F32_SHORT3 CRESIZE_PAIRS16_F32_SHORT
#define CRESIZE_PAIRS16_BYTES_STEP3(NAME, o, v, f, s) /* the 16th byte: pixel o + 5's */ \
    _mm_storeu_si128((__m128i *)(out + 3 * (o)),                                         \
                     NAME##_bytes(CRESIZE_PAIRS16_SUMS(NAME, v, f, s), lo, hi))
#define CRESIZE_PAIRS16_BYTES_LAST3(NAME, o, v, f, s)                                    \
    do {                                                                                 \
        __m128i x_ = NAME##_bytes(CRESIZE_PAIRS16_SUMS(NAME, v, f, s), lo, hi);          \
        _mm_storel_epi64((__m128i *)(out + 3 * (o)), x_);                                \
        _mm_storel_epi64((__m128i *)(out + 3 * (o) + 7), _mm_srli_si128(x_, 7));         \
    } while (0)
#define CRESIZE_PAIRS16_BYTES_STEP(NAME, u, v, f, s)                                     \
    _mm_storeu_si128((__m128i *)(out + (u)),                                             \
                     NAME##_bytes(CRESIZE_PAIRS16_SUMS(NAME, v, f, s), lo, hi))
#define CRESIZE_PAIRS16_NO_SHORT(NAME, f, s, V, k) /* rows of a step or more only */

#define CRESIZE_PAIRS16(NAME, S, LOAD16, LOAD16_PART)                                    \
    CRESIZE_AVX512 static inline __attribute__((always_inline)) __m512                   \
    NAME##_products(const float *w, const S *a, const S *b, __m512 va, __m512 vb,        \
                    __m512 vw, int same)                                                 \
    {                                                                                    \
        __m512 r = LOAD16(a);                                                            \
        if (b)                                                                           \
            r = _mm512_add_ps(_mm512_mul_ps(va, r), _mm512_mul_ps(vb, LOAD16(b)));       \
        return _mm512_mul_ps(same ? vw : _mm512_loadu_ps(w), r);                         \
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
     * row), lanes first / second */                                                     \
    CRESIZE_AVX512 static inline __attribute__((always_inline)) __m512                   \
    NAME##_sums(const S *a, const S *b, const float *w, __m512 va, __m512 vb, __m512 vw,  \
                int same, __m512i first, __m512i second, Py_ssize_t V)                   \
    {                                                                                    \
        const __m512 z = _mm512_setzero_ps();                                            \
        __m512 lo, hi;                                                                   \
        if (V >= 32) {                                                                   \
            lo = NAME##_products(w, a, b, va, vb, vw, same);                             \
            hi = NAME##_products(w + 16, a + 16, b ? b + 16 : NULL, va, vb, vw, same);   \
        } else {                                                                         \
            lo = NAME##_products_part(w, a, b, va, vb, V < 16 ? V : 16);                 \
            hi = V > 16 ? NAME##_products_part(w + 16, a + 16, b ? b + 16 : NULL, va, vb, \
                                               V - 16)                                   \
                        : z;                                                             \
        }                                                                                \
        return _mm512_add_ps(_mm512_add_ps(z, _mm512_permutex2var_ps(lo, first, hi)),   \
                             _mm512_permutex2var_ps(lo, second, hi));                    \
    }                                                                                    \
    /* the sums above stored under mask k (all 16 lanes: a plain store) */              \
    CRESIZE_AVX512 static inline __attribute__((always_inline)) void                     \
    NAME##_step(float *out, const S *a, const S *b, const float *w, __m512 va, __m512 vb, \
                __m512 vw, int same, __m512i first, __m512i second, Py_ssize_t V,        \
                __mmask16 k)                                                             \
    {                                                                                    \
        __m512 s = NAME##_sums(a, b, w, va, vb, vw, same, first, second, V);             \
        if (k == (__mmask16)0xffff)                                                      \
            _mm512_storeu_ps(out, s);                                                    \
        else                                                                             \
            _mm512_mask_storeu_ps(out, k, s);                                            \
    }                                                                                    \
    CRESIZE_AVX512 static void NAME##_pixels3(float *restrict out, const S *restrict a,    \
                                              const S *restrict b, float wa, float wb,       \
                                              const float *restrict w, Py_ssize_t n,         \
                                              int same)                                      \
    {                                                                                    \
        CRESIZE_PAIRS16_SAME(CRESIZE_PAIRS16_ROW3(NAME, CRESIZE_PAIRS16_F32_STEP3,       \
                                                  CRESIZE_PAIRS16_F32_STEP3,             \
                                                  CRESIZE_PAIRS16_F32_SHORT3))           \
    }                                                                                    \
    CRESIZE_AVX512 static void NAME##_values(float *restrict out, const S *restrict a,     \
                                             const S *restrict b, float wa, float wb,        \
                                             const float *restrict w, Py_ssize_t n,          \
                                             Py_ssize_t C, int same)                         \
    {                                                                                    \
        CRESIZE_PAIRS16_SAME(CRESIZE_PAIRS16_ROW(NAME, CRESIZE_PAIRS16_F32_STEP,         \
                                                 CRESIZE_PAIRS16_F32_SHORT))             \
    }

/* The 8-bit stores of the loops above (see there): T, its range LO ... HI, NARROW. */
#define CRESIZE_PAIRS16_STORE(NAME, S, T, NARROW, LO, HI)                                \
    CRESIZE_AVX512 static inline __attribute__((always_inline)) __m128i                  \
    NAME##_bytes(__m512 s, __m512 lo, __m512 hi)                                         \
    {                                                                                    \
        return NARROW(cresize_round16_ps(s, lo, hi));                                    \
    }                                                                                    \
    CRESIZE_AVX512 static int NAME##_pixels3_store(T *restrict out, const S *restrict a,   \
                                                   const S *restrict b, float wa, float wb,  \
                                                   const float *restrict w, Py_ssize_t n,    \
                                                   int same)                                 \
    {                                                                                    \
        const __m512 lo = _mm512_set1_ps(LO), hi = _mm512_set1_ps(HI);                   \
        if (n < 6)                                                                       \
            return 0;                                                                    \
        CRESIZE_PAIRS16_SAME(CRESIZE_PAIRS16_ROW3(NAME, CRESIZE_PAIRS16_BYTES_STEP3,     \
                                                  CRESIZE_PAIRS16_BYTES_LAST3,           \
                                                  CRESIZE_PAIRS16_NO_SHORT))             \
        return 1;                                                                        \
    }                                                                                    \
    CRESIZE_AVX512 static int NAME##_values_store(T *restrict out, const S *restrict a,    \
                                                  const S *restrict b, float wa, float wb,   \
                                                  const float *restrict w, Py_ssize_t n,     \
                                                  Py_ssize_t C, int same)                    \
    {                                                                                    \
        const __m512 lo = _mm512_set1_ps(LO), hi = _mm512_set1_ps(HI);                   \
        if (C * n < 16)                                                                  \
            return 0;                                                                    \
        CRESIZE_PAIRS16_SAME(CRESIZE_PAIRS16_ROW(NAME, CRESIZE_PAIRS16_BYTES_STEP,       \
                                                 CRESIZE_PAIRS16_NO_SHORT))              \
        return 1;                                                                        \
    }

CRESIZE_PAIRS16(cresize_pairs16_f32, float, cresize_row16_f32, cresize_row16_f32_part)
CRESIZE_PAIRS16(cresize_pairs16_u8, unsigned char, cresize_row16_u8, cresize_row16_u8_part)
CRESIZE_PAIRS16(cresize_pairs16_s8, signed char, cresize_row16_s8, cresize_row16_s8_part)
CRESIZE_PAIRS16_STORE(cresize_pairs16_u8, unsigned char, unsigned char, _mm512_cvtusepi32_epi8,
                      0.0f, 255.0f)
CRESIZE_PAIRS16_STORE(cresize_pairs16_s8, signed char, signed char, _mm512_cvtsepi32_epi8,
                      -128.0f, 127.0f)

/* 8-bit 2x2 blocks whose four weights are all 0.5 (wa = wb = 0.5, every x weight 0.5:
 * bilinear and area halving), AVX2: with such weights every operation of the float32
 * sum is exact for 8-bit values (0.5 * a and 0.5 * b, their sum, its product by 0.5
 * and the pair's sum are all multiples of 0.25 below 2**10), so the sum is exactly
 * s / 4, s = a0 + a1 + b0 + b1, and its rounding to nearest even, (s + 1 + ((s >> 2) &
 * 1)) >> 2 in 16-bit integers: the integers of the float32 sums (never -0, never out
 * of range). Each output value's two input values are brought side by side in a
 * 128-bit lane (vpshufb; 3-value pixels: 12 of a lane's 16 bytes, vpermd placing
 * bytes 0-11 and 12-23 of the 32 loaded in the two lanes) and summed by vpmaddubsw.
 * 1, 2 or 4 values: 16 outputs a step (32 bytes of each row), the row's last 16 again;
 * 3 values: 12 outputs a step, stored as two 8-byte halves (their 7th and 8th bytes
 * rewritten by the next half or step), then the row's end in 128-bit steps of 6
 * outputs stored exactly (4 + 2 bytes), the last over the row's last 12 values; so
 * nothing is read or written past the row. 0 (nothing written) for rows shorter than
 * one step (fewer than 16 output values; 3-value pixels: fewer than 3 pixels). */
/* s / 4 rounded to nearest even in every integer lane of s, (s + 1 + ((s >> 2) & 1)) >> 2
 * (an arithmetic shift: the floor for negative sums too): the rounding of the 2x2 halves
 * below, written once for their register widths and lanes. P: the intrinsics' prefix
 * (_mm256, _mm512); W: the lanes (epi16, epi32); SI: the register's bitwise suffix
 * (si256, si512). */
#define CRESIZE_QUARTER_EVEN(P, W, SI, s)                                                \
    P##_srai_##W(P##_add_##W(P##_add_##W(s, P##_set1_##W(1)),                            \
                             P##_and_##SI(P##_srai_##W(s, 2), P##_set1_##W(1))),          \
                 2)
static const signed char cresize_half_pairs[3][16] = {
    {0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15},  /* 2 values */
    {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11, -128, -128, -128, -128},  /* 3 */
    {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15}};  /* 4 */
#define CRESIZE_HALVES8(NAME, T, MADD, PACK)                                             \
    CRESIZE_AVX2 static inline __attribute__((always_inline)) __m256i                    \
    NAME##_round(__m256i sa, __m256i sb)                                                 \
    {                                                                                    \
        __m256i s = _mm256_add_epi16(sa, sb);                                            \
        return CRESIZE_QUARTER_EVEN(_mm256, epi16, si256, s);                            \
    }                                                                                    \
    CRESIZE_AVX2 static int NAME(T *restrict out, const T *restrict a, const T *restrict b, \
                                 Py_ssize_t n, Py_ssize_t C)                             \
    {                                                                                    \
        const __m256i ones = _mm256_set1_epi8(1);                                        \
        const Py_ssize_t V = 2 * C * n, U = C * n;                                       \
        Py_ssize_t v, u;                                                                 \
        __m256i pick;                                                                    \
        if (C == 1)                                                                      \
            pick = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,  \
                                    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); \
        else                                                                             \
            pick = _mm256_broadcastsi128_si256(                                          \
                _mm_loadu_si128((const __m128i *)cresize_half_pairs[C - 2]));            \
        if (C == 3) {                                                                    \
            const __m256i spread = _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6);            \
            const __m128i pick4 = _mm256_castsi256_si128(pick);                          \
            if (n < 3)                                                                   \
                return 0;                                                                \
            for (v = 0; v + 32 <= V; v += 24) { /* outputs v/2 ... v/2 + 11 */          \
                __m256i x = _mm256_permutevar8x32_epi32(                                 \
                    _mm256_loadu_si256((const __m256i *)(a + v)), spread);               \
                __m256i y = _mm256_permutevar8x32_epi32(                                 \
                    _mm256_loadu_si256((const __m256i *)(b + v)), spread);               \
                __m256i r = NAME##_round(MADD(_mm256_shuffle_epi8(x, pick)),             \
                                         MADD(_mm256_shuffle_epi8(y, pick)));            \
                r = PACK(r, r);                                                          \
                _mm_storel_epi64((__m128i *)(out + v / 2), _mm256_castsi256_si128(r));  \
                _mm_storel_epi64((__m128i *)(out + v / 2 + 6), _mm256_extracti128_si256(r, 1)); \
            }                                                                            \
            for (;; v += 12) { /* 6 outputs a step, the last from the row's last 12 values */ \
                Py_ssize_t at, from;                                                     \
                __m128i k, r;                                                            \
                int lo;                                                                  \
                short hi;                                                                \
                at = v < V - 12 ? v : V - 12;                                            \
                from = at + 16 <= V ? at : V - 16;                                       \
                k = _mm_add_epi8(pick4, _mm_set1_epi8((char)(at - from)));               \
                r = _mm256_castsi256_si128(NAME##_round(                                 \
                    _mm256_castsi128_si256(MADD##_128(_mm_shuffle_epi8(                  \
                        _mm_loadu_si128((const __m128i *)(a + from)), k))),              \
                    _mm256_castsi128_si256(MADD##_128(_mm_shuffle_epi8(                  \
                        _mm_loadu_si128((const __m128i *)(b + from)), k)))));            \
                r = PACK##_128(r, r);                                                    \
                lo = _mm_cvtsi128_si32(r);                                               \
                hi = (short)_mm_extract_epi16(r, 2);                                     \
                memcpy(out + at / 2, &lo, 4);                                            \
                memcpy(out + at / 2 + 4, &hi, 2);                                        \
                if (at == V - 12)                                                        \
                    break;                                                               \
            }                                                                            \
            return 1;                                                                    \
        }                                                                                \
        if (U < 16)                                                                      \
            return 0;                                                                    \
        for (u = 0;; u += 16) { /* 16 outputs from 32 values of each row; the last again */ \
            __m256i r;                                                                   \
            if (u > U - 16)                                                              \
                u = U - 16;                                                              \
            v = 2 * u;                                                                   \
            r = NAME##_round(                                                            \
                MADD(_mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(a + v)), pick)), \
                MADD(_mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(b + v)), pick))); \
            r = _mm256_permute4x64_epi64(PACK(r, r), 0x08);                              \
            _mm_storeu_si128((__m128i *)(out + u), _mm256_castsi256_si128(r));           \
            if (u == U - 16)                                                             \
                break;                                                                   \
        }                                                                                \
        return 1;                                                                        \
    }
/* The sums of byte pairs, 16-bit: unsigned (u8) or signed (s8) values. */
#define CRESIZE_MADD_U8(x) _mm256_maddubs_epi16(x, ones)
#define CRESIZE_MADD_U8_128(x) _mm_maddubs_epi16(x, _mm256_castsi256_si128(ones))
#define CRESIZE_MADD_S8(x) _mm256_maddubs_epi16(ones, x)
#define CRESIZE_MADD_S8_128(x) _mm_maddubs_epi16(_mm256_castsi256_si128(ones), x)
#define CRESIZE_PACK_U8(x, y) _mm256_packus_epi16(x, y)
#define CRESIZE_PACK_U8_128(x, y) _mm_packus_epi16(x, y)
#define CRESIZE_PACK_S8(x, y) _mm256_packs_epi16(x, y)
#define CRESIZE_PACK_S8_128(x, y) _mm_packs_epi16(x, y)
CRESIZE_HALVES8(cresize_halves_u8, unsigned char, CRESIZE_MADD_U8, CRESIZE_PACK_U8)
CRESIZE_HALVES8(cresize_halves_s8, signed char, CRESIZE_MADD_S8, CRESIZE_PACK_S8)

/* 16-bit 2x2 blocks whose four weights are all 0.5 (bilinear and area halving), AVX2:
 * the argument of CRESIZE_HALVES8 holds for 16-bit values too, in float32 as in
 * float64 (the plan's float64 weights): 0.5 * a and 0.5 * b are multiples of 0.5 below
 * 2**16 in magnitude (17 significant bits at most), their sum and its product by 0.5
 * multiples of 0.25 (0.5) below 2**16, and the pair's sum a multiple of 0.25 below
 * 2**16 (18 bits): every operation is exact in either, whatever its order, so the sum is
 * exactly s / 4, s = a0 + a1 + b0 + b1, and the store's rounding to nearest even is
 * (s + 1 + ((s >> 2) & 1)) >> 2 (an arithmetic shift: the floor for negative int16
 * sums too), a value of the type (never clipped). In 32-bit integers: uint16 values are
 * centred first (x ^ 0x8000, x - 32768 as an int16), which takes 4 * 32768, an even
 * multiple of 4, off s (the same rounding, 32768 off the result, put back by ^ 0x8000
 * once packed). Each output value's two input values are put side by side in a 128-bit
 * lane (vpshufb on pairs of bytes; 3-value pixels: 6 of a lane's 8 words, vpermd
 * placing words 0-5 and 6-11 of the 16 loaded in the two lanes) and summed by
 * vpmaddwd. 1, 2 or 4 values: 8 outputs a step (16 values of each row), the row's last
 * 8 again; 3 values: 6 outputs a step, stored as two 4-value stores (the 4th of each
 * rewritten by the next store), the row's last outputs (fewer than 8) one by one, so
 * nothing is read or written past the row. 0 (nothing written) for rows of fewer than
 * 8 output values (3-value pixels: fewer than 3 output pixels). */
static const signed char cresize_half_pairs16[3][16] = {
    {0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15},  /* 2 values: words 0 2 1 3 4 6 5 7 */
    {0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, -128, -128, -128, -128},  /* 3: 0 3 1 4 2 5 */
    {0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15}};  /* 4: 0 4 1 5 2 6 3 7 */
#define CRESIZE_HALVES16(NAME, T, CENTRE)                                                \
    CRESIZE_AVX2 static inline __attribute__((always_inline)) __m256i                    \
    NAME##_pairs(const T *p, __m256i pick, __m256i centre, int C)                        \
    {                                                                                    \
        __m256i x = _mm256_loadu_si256((const __m256i *)p);                              \
        if (C == 3)                                                                      \
            x = _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(0, 1, 2, 3, 3, 4, 5, 6)); \
        if (CENTRE)                                                                      \
            x = _mm256_xor_si256(x, centre);                                             \
        if (C != 1)                                                                      \
            x = _mm256_shuffle_epi8(x, pick);                                            \
        return _mm256_madd_epi16(x, _mm256_set1_epi16(1));                               \
    }                                                                                    \
    CRESIZE_AVX2 static inline __attribute__((always_inline)) __m256i                    \
    NAME##_round(const T *a, const T *b, __m256i pick, __m256i centre, int C)            \
    {                                                                                    \
        __m256i s = _mm256_add_epi32(NAME##_pairs(a, pick, centre, C),                   \
                                     NAME##_pairs(b, pick, centre, C));                  \
        s = CRESIZE_QUARTER_EVEN(_mm256, epi32, si256, s);                               \
        s = _mm256_packs_epi32(s, s);                                                    \
        return CENTRE ? _mm256_xor_si256(s, centre) : s;                                 \
    }                                                                                    \
    CRESIZE_AVX2 static inline __attribute__((always_inline)) void                       \
    NAME##_even(T *restrict out, const T *restrict a, const T *restrict b, Py_ssize_t U,   \
                __m256i pick, __m256i centre, int C)                                     \
    {                                                                                    \
        Py_ssize_t u;                                                                    \
        for (u = 0;; u += 8) { /* 8 outputs from 16 values of each row; the last again */ \
            if (u > U - 8)                                                               \
                u = U - 8;                                                               \
            _mm_storeu_si128((__m128i *)(out + u),                                       \
                             _mm256_castsi256_si128(_mm256_permute4x64_epi64(            \
                                 NAME##_round(a + 2 * u, b + 2 * u, pick, centre, C), 0x08))); \
            if (u == U - 8)                                                              \
                break;                                                                   \
        }                                                                                \
    }                                                                                    \
    CRESIZE_AVX2 static int NAME(T *restrict out, const T *restrict a, const T *restrict b, \
                                 Py_ssize_t n, Py_ssize_t C)                             \
    {                                                                                    \
        const __m256i centre = _mm256_set1_epi16((short)0x8000);                         \
        const Py_ssize_t U = C * n;                                                      \
        Py_ssize_t u;                                                                    \
        __m256i pick = _mm256_setzero_si256(), r;                                        \
        if (C > 1)                                                                       \
            pick = _mm256_broadcastsi128_si256(                                          \
                _mm_loadu_si128((const __m128i *)cresize_half_pairs16[C - 2]));          \
        if (C == 3) {                                                                    \
            if (n < 3)                                                                   \
                return 0;                                                                \
            for (u = 0; u + 8 <= U; u += 6) { /* outputs u ... u + 5 (u + 6 rewritten next) */ \
                r = NAME##_round(a + 2 * u, b + 2 * u, pick, centre, 3);                 \
                _mm_storel_epi64((__m128i *)(out + u), _mm256_castsi256_si128(r));       \
                _mm_storel_epi64((__m128i *)(out + u + 3), _mm256_extracti128_si256(r, 1)); \
            }                                                                            \
            for (; u < U; u++) { /* the last values (fewer than 8): one by one */        \
                Py_ssize_t i = 2 * u - u % 3;                                            \
                int s = (int)a[i] + a[i + 3] + b[i] + b[i + 3] + (CENTRE ? 0 : 131072);  \
                out[u] = (T)(((s + 1 + ((s >> 2) & 1)) >> 2) - (CENTRE ? 0 : 32768));    \
            }                                                                            \
            return 1;                                                                    \
        }                                                                                \
        if (U < 8)                                                                       \
            return 0;                                                                    \
        if (C == 1)                                                                      \
            NAME##_even(out, a, b, U, pick, centre, 1);                                  \
        else                                                                             \
            NAME##_even(out, a, b, U, pick, centre, 2);                                  \
        return 1;                                                                        \
    }
CRESIZE_HALVES16(cresize_halves_u16, unsigned short, 1)
CRESIZE_HALVES16(cresize_halves_s16, short, 0)

/* The same halves on 512-bit registers (AVX512BW, level 3 where the CPU has it:
 * cresize_simd_avx512bw): the same integer sums and rounding, so the same bits. 1, 2 or
 * 4 values: 16 outputs a step from 32 values of each row (the in-lane word pairs of
 * cresize_half_pairs16 in each of the four 128-bit lanes), narrowed by vpmovdw into
 * one 32-byte store; 3 values: 15 outputs (5 pixels) a step, their 30 input values put
 * in pairs by one vpermw (the 16th output, of no input, rewritten by the next step).
 * The row's last outputs (fewer than one step) with masked loads and a masked store,
 * so nothing is read or written past the row. The same rows as CRESIZE_HALVES16 (0 for
 * fewer than 8 output values; 3-value pixels: fewer than 3 pixels). */
#define CRESIZE_AVX512BW __attribute__((target("avx512f,avx512bw")))
static const short cresize_half_pairs16_c3[32] = {
    0,  3,  1,  4,  2,  5,  6,  9,  7,  10, 8,  11, 12, 15, 13, 16,  /* outputs 0-7 */
    14, 17, 18, 21, 19, 22, 20, 23, 24, 27, 25, 28, 26, 29, 0,  0}; /* 8-14, none */
#define CRESIZE_HALVES16_BW(NAME, T, CENTRE)                                             \
    CRESIZE_AVX512BW static inline __attribute__((always_inline)) __m512i                \
    NAME##_bw_pairs(__m512i x, __m512i pick, __m512i centre, int C)                      \
    {                                                                                    \
        if (CENTRE)                                                                      \
            x = _mm512_xor_si512(x, centre);                                             \
        if (C == 3)                                                                      \
            x = _mm512_permutexvar_epi16(pick, x);                                       \
        else if (C != 1)                                                                 \
            x = _mm512_shuffle_epi8(x, pick);                                            \
        return _mm512_madd_epi16(x, _mm512_set1_epi16(1));                               \
    }                                                                                    \
    CRESIZE_AVX512BW static inline __attribute__((always_inline)) __m512i                \
    NAME##_bw_round(__m512i xa, __m512i xb, __m512i pick, __m512i centre, int C)         \
    {                                                                                    \
        __m512i s = _mm512_add_epi32(NAME##_bw_pairs(xa, pick, centre, C),               \
                                     NAME##_bw_pairs(xb, pick, centre, C));              \
        s = CRESIZE_QUARTER_EVEN(_mm512, epi32, si512, s);                               \
        return CENTRE ? _mm512_xor_si512(s, centre) : s; /* the low words: the outputs */ \
    }                                                                                    \
    CRESIZE_AVX512BW static inline __attribute__((always_inline)) void                   \
    NAME##_bw_loop(T *restrict out, const T *restrict a, const T *restrict b, Py_ssize_t U, \
                   __m512i pick, __m512i centre, int C)                                  \
    {                                                                                    \
        const Py_ssize_t step = C == 3 ? 15 : 16;                                        \
        Py_ssize_t u = 0, r;                                                             \
        for (; u + 16 <= U; u += step)                                                   \
            _mm256_storeu_si256((__m256i *)(out + u),                                    \
                                _mm512_cvtepi32_epi16(NAME##_bw_round(                   \
                                    _mm512_loadu_si512((const void *)(a + 2 * u)),       \
                                    _mm512_loadu_si512((const void *)(b + 2 * u)), pick, \
                                    centre, C)));                                        \
        r = U - u;                                                                       \
        if (r > 0) { /* the last r < 16 outputs: 2r values of each row */                \
            const __mmask32 in = (__mmask32)((1ull << (2 * r)) - 1);                     \
            _mm512_mask_cvtepi32_storeu_epi16(                                           \
                out + u, (__mmask16)((1u << r) - 1),                                     \
                NAME##_bw_round(_mm512_maskz_loadu_epi16(in, a + 2 * u),                 \
                                _mm512_maskz_loadu_epi16(in, b + 2 * u), pick, centre, C)); \
        }                                                                                \
    }                                                                                    \
    CRESIZE_AVX512BW static int NAME##_bw(T *restrict out, const T *restrict a,          \
                                          const T *restrict b, Py_ssize_t n, Py_ssize_t C) \
    {                                                                                    \
        const __m512i centre = _mm512_set1_epi16((short)0x8000);                         \
        const Py_ssize_t U = C * n;                                                      \
        if (C == 3 ? n < 3 : U < 8)                                                      \
            return 0;                                                                    \
        if (C == 1)                                                                      \
            NAME##_bw_loop(out, a, b, U, _mm512_setzero_si512(), centre, 1);             \
        else if (C == 3)                                                                 \
            NAME##_bw_loop(out, a, b, U, _mm512_loadu_si512(cresize_half_pairs16_c3),    \
                           centre, 3);                                                   \
        else                                                                             \
            NAME##_bw_loop(out, a, b, U,                                                 \
                           _mm512_broadcast_i32x4(_mm_loadu_si128(                       \
                               (const __m128i *)cresize_half_pairs16[C - 2])),           \
                           centre, 2);                                                   \
        return 1;                                                                        \
    }
CRESIZE_HALVES16_BW(cresize_halves_u16, unsigned short, 1)
CRESIZE_HALVES16_BW(cresize_halves_s16, short, 0)

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

/* `same` (every x weight has the bits of w[0]): for the AVX-512 float32 loops only. */
#define CRESIZE_SUM_2X2_DISPATCH(NAME, T)                                               \
    static inline void NAME(T *out, const T *a, const T *b, T wa, T wb, const T *w,      \
                            Py_ssize_t n, int same)                                     \
    {                                                                                   \
        (void)same;                                                                     \
        CRESIZE_SUMS_CALL(NAME, out, a, b, wa, wb, w, n);                               \
    }
#define CRESIZE_SUM_2X2_PIXELS_DISPATCH(NAME, T)                                        \
    static inline void NAME(T *out, const T *a, const T *b, T wa, T wb, const T *w,      \
                            Py_ssize_t n, Py_ssize_t C, int same)                       \
    {                                                                                   \
        (void)same;                                                                     \
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
                                       float wb, const float *w, Py_ssize_t n, int same)
{
#if CRESIZE_X86_DISPATCH
    if (cresize_simd_level >= 3) {
        cresize_pairs16_f32_values(out, a, b, wa, wb, w, n, 1, same);
        return;
    }
#endif
    (void)same;
    CRESIZE_SUMS_CALL(cresize_sum_2x2_f32, out, a, b, wa, wb, w, n);
}
CRESIZE_SUM_2X2_DISPATCH(cresize_sum_2x2_f64, double)
/* float32 pixels: also an AVX-512 loop (level avx512). */
static inline void cresize_sum_2x2_pixels_f32(float *out, const float *a, const float *b, float wa,
                                              float wb, const float *w, Py_ssize_t n, Py_ssize_t C,
                                              int same)
{
    (void)same;
#if CRESIZE_X86_DISPATCH
    if (cresize_simd_level >= 3 && C <= 4) { /* products in registers */
        if (C == 3)
            cresize_pairs16_f32_pixels3(out, a, b, wa, wb, w, n, same);
        else
            cresize_pairs16_f32_values(out, a, b, wa, wb, w, n, C, same);
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
    static inline void NAME(T *out, const T *r, const T *w, Py_ssize_t n, Py_ssize_t C, \
                            int same)                                                   \
    {                                                                                   \
        if (C == 1)                                                                     \
            cresize_sum_2x2_##SFX(out, r, NULL, 0, 0, w, n, same);                      \
        else                                                                            \
            cresize_sum_2x2_pixels_##SFX(out, r, NULL, 0, 0, w, n, C, same);            \
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

/* Each row by the sweeps above; `unit`: every weight is 1 (C = 1); `same`: every x
 * weight has the bits of wx[0] (Sizes.x_same). */
#define CRESIZE_SUM_2X2_ROWS(NAME, T, SFX)                                              \
    static void NAME(T *out, const T *src, Py_ssize_t j0, Py_ssize_t j1, Py_ssize_t out_h, \
                     Py_ssize_t in_h, Py_ssize_t in_row, const T *wy, Py_ssize_t wy_stride, \
                     const T *wx, Py_ssize_t n_out, Py_ssize_t C, int unit, int same)   \
    {                                                                                   \
        CRESIZE_FOR_2X2_ROWS(T, {                                                       \
            if (unit)                                                                   \
                cresize_sum_2x2_unit_##SFX(o, a, a + in_row, n_out);                    \
            else if (C == 1)                                                            \
                cresize_sum_2x2_##SFX(o, a, a + in_row, w[0], w[1], wx, n_out, same);   \
            else                                                                        \
                cresize_sum_2x2_pixels_##SFX(o, a, a + in_row, w[0], w[1], wx, n_out, C, \
                                             same);                                     \
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
                                            Py_ssize_t n_out, Py_ssize_t C, int unit,
                                            int same)
{
#if CRESIZE_X86_DISPATCH
    if (unit && cresize_simd_level >= 3 && cresize_unit_rows_unrolled) {
        cresize_sum_2x2_unit_rows_f32_avx512(out, src, j0, j1, out_h, in_h, in_row, n_out);
        return;
    }
#endif
    cresize_sum_2x2_rows_f32_any(out, src, j0, j1, out_h, in_h, in_row, wy, wy_stride, wx,
                                 n_out, C, unit, same);
}

/* 8-bit images: the 2x2 pair sums (VERTICAL_FIRST, both tables blocks of 2) straight
 * from the two integer rows, converted as they are loaded, at the avx512 level
 * (CRESIZE_PAIRS16): the operations of the rows' combination (wa*a + wb*b, as
 * _combine_rows sums two taps) and of the pair sums, in one sweep, so the same bits
 * (the row's last pixels under masks, in the same loop). 0 (nothing written) where the
 * level has no such loop: the caller combines the rows first. NAME##_store: the same
 * sums rounded and stored as 8-bit integers of the input's type in the same sweep (as
 * the integer stores round a row of sums: the same integers); 0 (nothing written) also
 * for a row shorter than one step (C * n < 16 values): the caller sums into floats
 * and stores them. One thread, CPU time, uint8 (224, 224, 3) -> 112x112 bilinear plan
 * calls: see docs/kernels.md. */
#define CRESIZE_SUM_2X2_INT8(NAME, S, SFX)                                               \
    static inline int NAME(float *out, const S *a, const S *b, float wa, float wb,       \
                           const float *w, Py_ssize_t n, Py_ssize_t C, int same)         \
    {                                                                                    \
        (void)same;                                                                      \
        if (!CRESIZE_X86_DISPATCH || cresize_simd_level < 3 || C > 4)                    \
            return 0;                                                                    \
        CRESIZE_PAIRS16_INT_CALL(SFX)                                                    \
        return 1;                                                                        \
    }                                                                                    \
    static inline int NAME##_store(S *out, const S *a, const S *b, float wa, float wb,   \
                                   const float *w, Py_ssize_t n, Py_ssize_t C, int same) \
    {                                                                                    \
        (void)same;                                                                      \
        if (!CRESIZE_X86_DISPATCH || cresize_simd_level < 2 || C > 4)                    \
            return 0;                                                                    \
        if (same && w[0] == 0.5f && wa == 0.5f && wb == 0.5f &&                          \
            CRESIZE_HALVES8_CALL(SFX))                                                   \
            return 1;                                                                    \
        if (cresize_simd_level < 3)                                                      \
            return 0;                                                                    \
        CRESIZE_PAIRS16_INT_STORE_CALL(SFX)                                              \
    }
#if CRESIZE_X86_DISPATCH
#define CRESIZE_PAIRS16_INT_CALL(SFX)                                                    \
    if (C == 3)                                                                          \
        cresize_pairs16_##SFX##_pixels3(out, a, b, wa, wb, w, n, same);                  \
    else                                                                                 \
        cresize_pairs16_##SFX##_values(out, a, b, wa, wb, w, n, C, same);
#define CRESIZE_HALVES8_CALL(SFX) cresize_halves_##SFX(out, a, b, n, C)
#define CRESIZE_PAIRS16_INT_STORE_CALL(SFX)                                              \
    if (C == 3)                                                                          \
        return cresize_pairs16_##SFX##_pixels3_store(out, a, b, wa, wb, w, n, same);     \
    return cresize_pairs16_##SFX##_values_store(out, a, b, wa, wb, w, n, C, same);
#else
#define CRESIZE_PAIRS16_INT_CALL(SFX)
#define CRESIZE_HALVES8_CALL(SFX) 0
#define CRESIZE_PAIRS16_INT_STORE_CALL(SFX) return 0;
#endif
CRESIZE_SUM_2X2_INT8(cresize_sum_2x2_u8, unsigned char, u8)
CRESIZE_SUM_2X2_INT8(cresize_sum_2x2_s8, signed char, s8)

/* 16-bit images: 2x2 blocks whose four weights are all 0.5 (VERTICAL_FIRST, both tables
 * blocks of 2, wa = wb = 0.5 and every x weight 0.5, `same`: bilinear and area halving)
 * summed, rounded and stored as 16-bit integers of the input's type straight from the
 * two rows (CRESIZE_HALVES16, levels avx2 and avx512): the integers the float64 (or
 * float32) sums round to. 0 (nothing written) for other weights, the levels below avx2,
 * pixels of more than 4 values or rows shorter than one step: the caller sums into
 * floats and stores them. */
#define CRESIZE_SUM_2X2_INT16(NAME, T, SFX)                                              \
    static inline int NAME(T *out, const T *a, const T *b, double wa, double wb,         \
                           double w, Py_ssize_t n, Py_ssize_t C, int same)               \
    {                                                                                    \
        if (!CRESIZE_X86_DISPATCH || cresize_simd_level < 2 || C > 4 || !same ||         \
            w != 0.5 || wa != 0.5 || wb != 0.5)                                          \
            return 0;                                                                    \
        return CRESIZE_HALVES16_CALL(SFX);                                               \
    }
#if CRESIZE_X86_DISPATCH
#define CRESIZE_HALVES16_CALL(SFX)                                                       \
    (cresize_simd_avx512bw ? cresize_halves_##SFX##_bw(out, a, b, n, C)                  \
                           : cresize_halves_##SFX(out, a, b, n, C))
#else
#define CRESIZE_HALVES16_CALL(SFX) 0
#endif
CRESIZE_SUM_2X2_INT16(cresize_sum_2x2_u16_store, unsigned short, u16)
CRESIZE_SUM_2X2_INT16(cresize_sum_2x2_s16_store, short, s16)

#endif
