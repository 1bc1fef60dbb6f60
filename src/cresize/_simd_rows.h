/* Vertical passes: weighted sums of whole rows, and their rounding integer stores.
 *
 * cresize_combine_<sum>_<source>(row, plane, width, index, weight, count, n_rows)
 * computes, for every column c < width,
 *
 *     row[c] = w[0]*x0[c] + w[1]*x1[c] + ... + w[count-1]*x{count-1}[c]
 *
 * with xk = plane + (index[k] % n_rows) * width, as _kernels.pyx's _combine_rows
 * does: the sum starts from the first product (not from 0) and adds the others in
 * tap order, a product then a sum each (no FMA: built with -ffp-contract=off, and
 * target("avx2") has no FMA). A source value converts exactly to the sum's type.
 * The AVX2 versions keep a block of columns in registers while they add all the
 * taps (the portable loop sweeps the whole row once per pair of taps), so each lane
 * does exactly the scalar operations of its column, in the same order: same bits.
 *
 * cresize_combine_store_<int>(out, ring, ...) is the same sum followed by the
 * rounding store of _simd_pixels.h (clip to the type's range, then round half to
 * even: cvtps2dq / cvtpd2dq in the default rounding mode), fused so that the sums
 * never leave the registers.
 *
 * Every function returns 1 when it has done the work and 0, writing nothing, when
 * the level (cresize_simd_level, _simd_pixels.h) is below AVX2 or the case is not
 * one it takes; the caller then runs its portable loop. At level 3 (AVX-512F,
 * cresize_simd_best_rows) the same loops run on 512-bit registers.
 */
#ifndef CRESIZE_SIMD_ROWS_H
#define CRESIZE_SIMD_ROWS_H

#include "_simd.h"

/* Taps whose row pointers are gathered (one division each) before a sweep; longer
 * sums go in groups, the sums of a group stored and reloaded by the next (exactly). */
#define CRESIZE_ROW_TAPS 32

/* Bytes ahead of a block that its sweep prefetches in every tap's row: the taps'
 * rows are too many streams for the hardware prefetchers. */
#define CRESIZE_ROW_AHEAD 256

/* Row index % n_rows (a ring of n_rows rows; index >= 0), without the division when
 * the index is below n_rows: every sum of input rows (VERTICAL_FIRST, PLANES) takes
 * one, and the 64-bit divisions of its taps were about a quarter of the time of an x2
 * bilinear backward of 56x56 planes (docs/kernels.md). */
static inline Py_ssize_t cresize_ring_row(Py_ssize_t index, Py_ssize_t n_rows)
{
    return index < n_rows ? index : index % n_rows;
}

/* Rows of at most this many bytes are short: a sum of them sweeps too few bytes of
 * each for its prefetches within the row (CRESIZE_ROW_AHEAD) to run ahead of the
 * loads, so the caller prefetches the rows of a later output row as well. */
#define CRESIZE_SHORT_ROW 1024

/* Bytes p ... p + bytes - 1 toward the cache, a line at a time (a hint only). */
static inline void cresize_prefetch(const void *p, Py_ssize_t bytes)
{
#if CRESIZE_SSE
    const char *c = (const char *)p;
    Py_ssize_t i;
    for (i = 0; i < bytes; i += 64)
        _mm_prefetch(c + i, _MM_HINT_T0);
#else
    (void)p, (void)bytes;
#endif
}

#if CRESIZE_X86_DISPATCH

CRESIZE_AVX2 static inline __m256 cresize_row8_f32(const float *p) { return _mm256_loadu_ps(p); }

CRESIZE_AVX2 static inline __m256 cresize_row8_u8(const unsigned char *p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

CRESIZE_AVX2 static inline __m256 cresize_row8_s8(const signed char *p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

CRESIZE_AVX2 static inline __m256d cresize_row4_f64(const double *p) { return _mm256_loadu_pd(p); }

CRESIZE_AVX2 static inline __m256d cresize_row4_u16(const unsigned short *p)
{
    return _mm256_cvtepi32_pd(_mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

CRESIZE_AVX2 static inline __m256d cresize_row4_s16(const short *p)
{
    return _mm256_cvtepi32_pd(_mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

CRESIZE_AVX2 static inline __m256 cresize_set1_ps8(float w) { return _mm256_set1_ps(w); }
CRESIZE_AVX2 static inline __m256 cresize_add_ps8(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
CRESIZE_AVX2 static inline __m256 cresize_mul_ps8(__m256 a, __m256 b) { return _mm256_mul_ps(a, b); }
CRESIZE_AVX2 static inline __m256 cresize_load_ps8(const float *p) { return _mm256_loadu_ps(p); }
CRESIZE_AVX2 static inline void cresize_store_ps8(float *p, __m256 v) { _mm256_storeu_ps(p, v); }

/* The row pointers of taps k0 ... k0 + taps - 1. */
#define CRESIZE_ROW_POINTERS(T)                                                  \
    const T *src[CRESIZE_ROW_TAPS];                                              \
    for (k = 0; k < taps; k++)                                                   \
        src[k] = plane + cresize_ring_row(index[k0 + k], n_rows) * width;

/* The sums of one register of columns c + OFF ...: the first product when k0 == 0,
 * else the row stored by the group before. */
#define CRESIZE_SUM_START(S, OFF, SET1, MUL, LOAD, LOADACC)                      \
    if (k0 == 0)                                                                 \
        S = MUL(SET1(w[0]), LOAD(src[0] + c + OFF));                             \
    else                                                                         \
        S = LOADACC(row + c + OFF);

/* Columns c ... c + 4 * LANES - 1 in four registers s0 ... s3, every tap added. */
#define CRESIZE_SUM4(T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC)               \
    VEC s0, s1, s2, s3;                                                          \
    CRESIZE_SUM_START(s0, 0, SET1, MUL, LOAD, LOADACC)                           \
    CRESIZE_SUM_START(s1, LANES, SET1, MUL, LOAD, LOADACC)                       \
    CRESIZE_SUM_START(s2, 2 * LANES, SET1, MUL, LOAD, LOADACC)                   \
    CRESIZE_SUM_START(s3, 3 * LANES, SET1, MUL, LOAD, LOADACC)                   \
    for (k = k0 == 0; k < taps; k++) {                                           \
        VEC wk = SET1(w[k]);                                                     \
        const T *p = src[k] + c;                                                 \
        _mm_prefetch((const char *)p + CRESIZE_ROW_AHEAD, _MM_HINT_T0);          \
        s0 = ADD(s0, MUL(wk, LOAD(p)));                                          \
        s1 = ADD(s1, MUL(wk, LOAD(p + LANES)));                                  \
        s2 = ADD(s2, MUL(wk, LOAD(p + 2 * LANES)));                              \
        s3 = ADD(s3, MUL(wk, LOAD(p + 3 * LANES)));                              \
    }

/* The sum of column c, the scalar loop's operations. */
#define CRESIZE_SUM_ONE(ACC)                                                     \
    ACC r = k0 == 0 ? w[0] * src[0][c] : row[c];                                 \
    for (k = k0 == 0; k < taps; k++)                                             \
        r = r + w[k] * src[k][c];

/* The row's last columns, fewer than a block (AVX2): a register of LANES columns at
 * a time, then the scalar loop (PART, ACCPART, PUT: unused, see CRESIZE_TAIL_512). */
#define CRESIZE_TAIL_LANES(ACC, T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC, STOREACC, \
                           PART, ACCPART, PUT)                                         \
    for (; c + LANES <= width; c += LANES) {                                           \
        VEC s0;                                                                        \
        CRESIZE_SUM_START(s0, 0, SET1, MUL, LOAD, LOADACC)                             \
        for (k = k0 == 0; k < taps; k++)                                               \
            s0 = ADD(s0, MUL(SET1(w[k]), LOAD(src[k] + c)));                           \
        STOREACC(row + c, s0);                                                         \
    }                                                                                  \
    for (; c < width; c++) {                                                           \
        CRESIZE_SUM_ONE(ACC)                                                           \
        row[c] = r;                                                                    \
    }

#define CRESIZE_COMBINE(NAME, ATTR, ACC, T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC,  \
                        STOREACC, TAIL, PART, ACCPART, PUT)                            \
    ATTR static void NAME(ACC *row, const T *plane, Py_ssize_t width,                  \
                          const Py_ssize_t *index, const ACC *weight,                  \
                          Py_ssize_t count, Py_ssize_t n_rows)                         \
    {                                                                                  \
        Py_ssize_t k0, k, c;                                                           \
        for (k0 = 0; k0 < count; k0 += CRESIZE_ROW_TAPS) {                             \
            Py_ssize_t taps = count - k0 < CRESIZE_ROW_TAPS ? count - k0 : CRESIZE_ROW_TAPS; \
            const ACC *w = weight + k0;                                                \
            CRESIZE_ROW_POINTERS(T)                                                    \
            for (c = 0; c + 4 * LANES <= width; c += 4 * LANES) {                      \
                CRESIZE_SUM4(T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC)             \
                STOREACC(row + c, s0);                                                 \
                STOREACC(row + c + LANES, s1);                                         \
                STOREACC(row + c + 2 * LANES, s2);                                     \
                STOREACC(row + c + 3 * LANES, s3);                                     \
            }                                                                          \
            TAIL(ACC, T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC, STOREACC, PART,    \
                 ACCPART, PUT)                                                         \
        }                                                                              \
    }

CRESIZE_COMBINE(cresize_combine_f32_f32_avx2, CRESIZE_AVX2, float, float, __m256, 8,
                cresize_set1_ps8, cresize_add_ps8, cresize_mul_ps8, cresize_row8_f32,
                cresize_load_ps8, cresize_store_ps8,
                CRESIZE_TAIL_LANES, _, _, _)
CRESIZE_COMBINE(cresize_combine_f32_u8_avx2, CRESIZE_AVX2, float, unsigned char, __m256, 8,
                cresize_set1_ps8, cresize_add_ps8, cresize_mul_ps8, cresize_row8_u8,
                cresize_load_ps8, cresize_store_ps8,
                CRESIZE_TAIL_LANES, _, _, _)
CRESIZE_COMBINE(cresize_combine_f32_s8_avx2, CRESIZE_AVX2, float, signed char, __m256, 8,
                cresize_set1_ps8, cresize_add_ps8, cresize_mul_ps8, cresize_row8_s8,
                cresize_load_ps8, cresize_store_ps8,
                CRESIZE_TAIL_LANES, _, _, _)
CRESIZE_COMBINE(cresize_combine_f64_f64_avx2, CRESIZE_AVX2, double, double, __m256d, 4,
                cresize_set1_pd, cresize_add_pd, cresize_mul_pd, cresize_row4_f64,
                cresize_row4_f64, cresize_store_pd,
                CRESIZE_TAIL_LANES, _, _, _)
CRESIZE_COMBINE(cresize_combine_f64_u16_avx2, CRESIZE_AVX2, double, unsigned short, __m256d, 4,
                cresize_set1_pd, cresize_add_pd, cresize_mul_pd, cresize_row4_u16,
                cresize_row4_f64, cresize_store_pd,
                CRESIZE_TAIL_LANES, _, _, _)
CRESIZE_COMBINE(cresize_combine_f64_s16_avx2, CRESIZE_AVX2, double, short, __m256d, 4,
                cresize_set1_pd, cresize_add_pd, cresize_mul_pd, cresize_row4_s16,
                cresize_row4_f64, cresize_store_pd,
                CRESIZE_TAIL_LANES, _, _, _)

/* AVX-512F (level 3): the same loops on 16 float32 / 8 float64 lanes. */
#define CRESIZE_AVX512 __attribute__((target("avx512f")))

CRESIZE_AVX512 static inline __m512 cresize_row16_f32(const float *p) { return _mm512_loadu_ps(p); }

CRESIZE_AVX512 static inline __m512 cresize_row16_u8(const unsigned char *p)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)));
}

CRESIZE_AVX512 static inline __m512 cresize_row16_s8(const signed char *p)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)p)));
}

/* The first `cnt` (0-16) of the 16 values above, the other lanes 0; nothing read past
 * them (a masked load for float32; AVX-512F has no masked byte load, so the bytes go
 * through a zeroed copy). */
CRESIZE_AVX512 static inline __m512 cresize_row16_f32_part(const float *p, Py_ssize_t cnt)
{
    return _mm512_maskz_loadu_ps((__mmask16)((1u << cnt) - 1), p);
}

CRESIZE_AVX512 static inline __m512 cresize_row16_u8_part(const unsigned char *p, Py_ssize_t cnt)
{
    unsigned char t[16] = {0};
    memcpy(t, p, (size_t)cnt);
    return cresize_row16_u8(t);
}

CRESIZE_AVX512 static inline __m512 cresize_row16_s8_part(const signed char *p, Py_ssize_t cnt)
{
    signed char t[16] = {0};
    memcpy(t, p, (size_t)cnt);
    return cresize_row16_s8(t);
}

CRESIZE_AVX512 static inline __m512d cresize_row8_f64(const double *p) { return _mm512_loadu_pd(p); }

CRESIZE_AVX512 static inline __m512d cresize_row8_u16(const unsigned short *p)
{
    return _mm512_cvtepi32_pd(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)));
}

CRESIZE_AVX512 static inline __m512d cresize_row8_s16(const short *p)
{
    return _mm512_cvtepi32_pd(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p)));
}

CRESIZE_AVX512 static inline __m512 cresize_set1_ps16(float w) { return _mm512_set1_ps(w); }
CRESIZE_AVX512 static inline __m512 cresize_add_ps16(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }
CRESIZE_AVX512 static inline __m512 cresize_mul_ps16(__m512 a, __m512 b) { return _mm512_mul_ps(a, b); }
CRESIZE_AVX512 static inline void cresize_store_ps16(float *p, __m512 v) { _mm512_storeu_ps(p, v); }
CRESIZE_AVX512 static inline __m512d cresize_set1_pd8(double w) { return _mm512_set1_pd(w); }
CRESIZE_AVX512 static inline __m512d cresize_add_pd8(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
CRESIZE_AVX512 static inline __m512d cresize_mul_pd8(__m512d a, __m512d b) { return _mm512_mul_pd(a, b); }
CRESIZE_AVX512 static inline void cresize_store_pd8(double *p, __m512d v) { _mm512_storeu_pd(p, v); }

/* The first `cnt` (0-8) of the 8 values of cresize_row8_f64 / _u16 / _s16, the other
 * lanes 0, nothing read past them (16-bit values through a zeroed copy, as bytes). */
CRESIZE_AVX512 static inline __m512d cresize_row8_f64_part(const double *p, Py_ssize_t cnt)
{
    return _mm512_maskz_loadu_pd((__mmask8)((1u << cnt) - 1), p);
}

CRESIZE_AVX512 static inline __m512d cresize_row8_u16_part(const unsigned short *p, Py_ssize_t cnt)
{
    unsigned short t[8] = {0};
    memcpy(t, p, (size_t)cnt * sizeof(*p));
    return cresize_row8_u16(t);
}

CRESIZE_AVX512 static inline __m512d cresize_row8_s16_part(const short *p, Py_ssize_t cnt)
{
    short t[8] = {0};
    memcpy(t, p, (size_t)cnt * sizeof(*p));
    return cresize_row8_s16(t);
}

/* The first `cnt` (1-16 / 1-8) lanes of v stored at p, nothing written past them. */
CRESIZE_AVX512 static inline void cresize_put_ps16(float *p, __m512 v, Py_ssize_t cnt)
{
    if (cnt == 16)
        _mm512_storeu_ps(p, v);
    else
        _mm512_mask_storeu_ps(p, (__mmask16)((1u << cnt) - 1), v);
}

CRESIZE_AVX512 static inline void cresize_put_pd8(double *p, __m512d v, Py_ssize_t cnt)
{
    if (cnt == 8)
        _mm512_storeu_pd(p, v);
    else
        _mm512_mask_storeu_pd(p, (__mmask8)((1u << cnt) - 1), v);
}

/* CRESIZE_TAIL_REGS's PUT: into the sums' row (CRESIZE_COMBINE), or into the buffer
 * `rest` of the columns c0 ... (the fused stores' last columns, CRESIZE_STORE_REST). */
#define CRESIZE_PUT_ROW16(AT, V, CNT) cresize_put_ps16(row + (AT), V, CNT)
#define CRESIZE_PUT_ROW8(AT, V, CNT) cresize_put_pd8(row + (AT), V, CNT)
#define CRESIZE_PUT_REST16(AT, V, CNT) cresize_store_ps16(rest + (AT) - c0, V)
#define CRESIZE_PUT_REST8(AT, V, CNT) cresize_store_pd8(rest + (AT) - c0, V)

/* AVX-512: the row's last n = width - c columns (0 < n < 4 * LANES, fewer than a
 * block) in one step of R = ceil(n / LANES) registers, the last one's loads PART (its
 * first cnt values, the other lanes 0, nothing read past the row), every tap added to
 * all R registers (independent sums, as CRESIZE_SUM4's), then PUT(at, v, cnt) stores
 * each register's first cnt sums (columns at, at + 1, ...). Each lane does the scalar
 * loop's operations on its column (CRESIZE_SUM_ONE), so the same bits. On AMD Zen 4
 * the register-at-a-time loop and the scalar loop of CRESIZE_TAIL_LANES made rows of
 * 56 and 112 float32 columns slower at the avx512 level than at avx2
 * (docs/kernels.md). */
#define CRESIZE_TAIL_REGS(R, T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC, PART, ACCPART, \
                          PUT)                                                         \
    {                                                                                  \
        const Py_ssize_t last_ = width - c - ((R) - 1) * (LANES);                      \
        VEC t_[R];                                                                     \
        int j_;                                                                        \
        for (j_ = 0; j_ < (R); j_++) {                                                 \
            const Py_ssize_t at_ = c + j_ * (LANES);                                   \
            if (j_ < (R) - 1)                                                          \
                t_[j_] = k0 == 0 ? MUL(SET1(w[0]), LOAD(src[0] + at_)) : LOADACC(row + at_); \
            else                                                                       \
                t_[j_] = k0 == 0 ? MUL(SET1(w[0]), PART(src[0] + at_, last_))          \
                                 : ACCPART(row + at_, last_);                          \
        }                                                                              \
        for (k = k0 == 0; k < taps; k++) {                                             \
            VEC wk_ = SET1(w[k]);                                                      \
            const T *p_ = src[k] + c;                                                  \
            for (j_ = 0; j_ < (R) - 1; j_++)                                           \
                t_[j_] = ADD(t_[j_], MUL(wk_, LOAD(p_ + j_ * (LANES))));               \
            t_[(R) - 1] = ADD(t_[(R) - 1], MUL(wk_, PART(p_ + ((R) - 1) * (LANES), last_))); \
        }                                                                              \
        for (j_ = 0; j_ < (R); j_++)                                                   \
            PUT(c + j_ * (LANES), t_[j_], j_ < (R) - 1 ? (LANES) : last_);             \
    }
#define CRESIZE_TAIL_512(ACC, T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC, STOREACC,  \
                         PART, ACCPART, PUT)                                           \
    if (c < width) {                                                                   \
        if (width - c > 3 * (LANES))                                                   \
            CRESIZE_TAIL_REGS(4, T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC, PART,   \
                              ACCPART, PUT)                                            \
        else if (width - c > 2 * (LANES))                                              \
            CRESIZE_TAIL_REGS(3, T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC, PART,   \
                              ACCPART, PUT)                                            \
        else if (width - c > (LANES))                                                  \
            CRESIZE_TAIL_REGS(2, T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC, PART,   \
                              ACCPART, PUT)                                            \
        else                                                                           \
            CRESIZE_TAIL_REGS(1, T, VEC, LANES, SET1, ADD, MUL, LOAD, LOADACC, PART,   \
                              ACCPART, PUT)                                            \
    }

CRESIZE_COMBINE(cresize_combine_f32_f32_avx512, CRESIZE_AVX512, float, float, __m512, 16,
                cresize_set1_ps16, cresize_add_ps16, cresize_mul_ps16, cresize_row16_f32,
                cresize_row16_f32, cresize_store_ps16,
                CRESIZE_TAIL_512, cresize_row16_f32_part, cresize_row16_f32_part, CRESIZE_PUT_ROW16)
CRESIZE_COMBINE(cresize_combine_f32_u8_avx512, CRESIZE_AVX512, float, unsigned char, __m512, 16,
                cresize_set1_ps16, cresize_add_ps16, cresize_mul_ps16, cresize_row16_u8,
                cresize_row16_f32, cresize_store_ps16,
                CRESIZE_TAIL_512, cresize_row16_u8_part, cresize_row16_f32_part, CRESIZE_PUT_ROW16)
CRESIZE_COMBINE(cresize_combine_f32_s8_avx512, CRESIZE_AVX512, float, signed char, __m512, 16,
                cresize_set1_ps16, cresize_add_ps16, cresize_mul_ps16, cresize_row16_s8,
                cresize_row16_f32, cresize_store_ps16,
                CRESIZE_TAIL_512, cresize_row16_s8_part, cresize_row16_f32_part, CRESIZE_PUT_ROW16)
CRESIZE_COMBINE(cresize_combine_f64_f64_avx512, CRESIZE_AVX512, double, double, __m512d, 8,
                cresize_set1_pd8, cresize_add_pd8, cresize_mul_pd8, cresize_row8_f64,
                cresize_row8_f64, cresize_store_pd8,
                CRESIZE_TAIL_512, cresize_row8_f64_part, cresize_row8_f64_part, CRESIZE_PUT_ROW8)
CRESIZE_COMBINE(cresize_combine_f64_u16_avx512, CRESIZE_AVX512, double, unsigned short, __m512d,
                8, cresize_set1_pd8, cresize_add_pd8, cresize_mul_pd8, cresize_row8_u16,
                cresize_row8_f64, cresize_store_pd8,
                CRESIZE_TAIL_512, cresize_row8_u16_part, cresize_row8_f64_part, CRESIZE_PUT_ROW8)
CRESIZE_COMBINE(cresize_combine_f64_s16_avx512, CRESIZE_AVX512, double, short, __m512d, 8,
                cresize_set1_pd8, cresize_add_pd8, cresize_mul_pd8, cresize_row8_s16,
                cresize_row8_f64, cresize_store_pd8,
                CRESIZE_TAIL_512, cresize_row8_s16_part, cresize_row8_f64_part, CRESIZE_PUT_ROW8)

/* (cresize_round8_ps, cresize_round4_pd: _simd_pixels.h, with the plain stores) */

/* The last columns (fewer than a block): their sums, then _simd_pixels.h's store. */
#define CRESIZE_STORE_REST(ACC, BLOCK, STORE)                                    \
    if (c < width) {                                                             \
        ACC rest[BLOCK];                                                         \
        Py_ssize_t c0 = c;                                                       \
        for (; c < width; c++) {                                                 \
            CRESIZE_SUM_ONE(ACC)                                                 \
            rest[c - c0] = r;                                                    \
        }                                                                        \
        STORE(out + c0, rest, width - c0);                                       \
    }

/* 8-bit rows from float32 sums, 32 values a block: two saturating packs (in range
 * already) interleave the 128-bit lanes, one permutation puts them back in order. */
#define CRESIZE_COMBINE_STORE8(NAME, T, PACK16, LO, HI, STORE)                   \
    CRESIZE_AVX2 static void NAME(T *out, const float *plane, Py_ssize_t width,  \
                                  const Py_ssize_t *index, const float *weight,  \
                                  Py_ssize_t count, Py_ssize_t n_rows)           \
    {                                                                            \
        const Py_ssize_t k0 = 0, taps = count;                                   \
        const float *w = weight, *row = plane; /* row: never read (k0 == 0) */   \
        const __m256 lo = _mm256_set1_ps(LO), hi = _mm256_set1_ps(HI);           \
        const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);         \
        Py_ssize_t k, c;                                                         \
        CRESIZE_ROW_POINTERS(float)                                              \
        for (c = 0; c + 32 <= width; c += 32) {                                  \
            CRESIZE_SUM4(float, __m256, 8, cresize_set1_ps8, cresize_add_ps8,    \
                         cresize_mul_ps8, cresize_row8_f32, cresize_load_ps8)    \
            __m256i a = _mm256_packs_epi32(cresize_round8_ps(s0, lo, hi),        \
                                           cresize_round8_ps(s1, lo, hi));       \
            __m256i b = _mm256_packs_epi32(cresize_round8_ps(s2, lo, hi),        \
                                           cresize_round8_ps(s3, lo, hi));       \
            _mm256_storeu_si256((__m256i *)(out + c),                            \
                                _mm256_permutevar8x32_epi32(PACK16(a, b), order)); \
        }                                                                        \
        CRESIZE_STORE_REST(float, 32, STORE)                                     \
    }

/* The fused 16-bit stores' sums of 2, 4 or 6 taps (bilinear, bicubic, lanczos3
 * enlarging), the count known when compiling: two registers of columns at a time,
 * the taps unrolled, their weights broadcast and row pointers read once per row (the
 * loop of CRESIZE_SUM4 reloads both, and prefetches, at every block and tap; perf put
 * a third of the fused store's samples on those). The same operations in the same
 * order: the first product, then each tap's product added. STORE2(a, b, ARG) rounds
 * and stores the 2 * LANES values at column c. */
#define CRESIZE_SUM2_TAPS(TAPS, T, VEC, LANES, SET1, ADD, MUL, LOAD, STORE2, ARG) \
    {                                                                            \
        const T *x_[TAPS];                                                       \
        VEC w_[TAPS];                                                            \
        for (k = 0; k < (TAPS); k++) {                                           \
            x_[k] = src[k];                                                      \
            w_[k] = SET1(w[k]);                                                  \
        }                                                                        \
        for (; c + 2 * LANES <= width; c += 2 * LANES) {                         \
            VEC a = MUL(w_[0], LOAD(x_[0] + c)), b = MUL(w_[0], LOAD(x_[0] + c + LANES)); \
            for (k = 1; k < (TAPS); k++) {                                       \
                a = ADD(a, MUL(w_[k], LOAD(x_[k] + c)));                         \
                b = ADD(b, MUL(w_[k], LOAD(x_[k] + c + LANES)));                 \
            }                                                                    \
            STORE2(a, b, ARG);                                                   \
        }                                                                        \
    }
#define CRESIZE_SUM2_FIXED(T, VEC, LANES, SET1, ADD, MUL, LOAD, STORE2, ARG)     \
    if (taps == 4)                                                               \
        CRESIZE_SUM2_TAPS(4, T, VEC, LANES, SET1, ADD, MUL, LOAD, STORE2, ARG)   \
    else if (taps == 2)                                                          \
        CRESIZE_SUM2_TAPS(2, T, VEC, LANES, SET1, ADD, MUL, LOAD, STORE2, ARG)   \
    else if (taps == 6)                                                          \
        CRESIZE_SUM2_TAPS(6, T, VEC, LANES, SET1, ADD, MUL, LOAD, STORE2, ARG)

#define CRESIZE_STORE16_2_AVX2(A, B, PACK32)                                     \
    _mm_storeu_si128((__m128i *)(out + c),                                       \
                     PACK32(cresize_round4_pd(A, lo, hi), cresize_round4_pd(B, lo, hi)))

/* 16-bit rows from float64 sums, 16 values a block. */
#define CRESIZE_COMBINE_STORE16(NAME, T, PACK32, LO, HI, STORE)                  \
    CRESIZE_AVX2 static void NAME(T *out, const double *plane, Py_ssize_t width, \
                                  const Py_ssize_t *index, const double *weight, \
                                  Py_ssize_t count, Py_ssize_t n_rows)           \
    {                                                                            \
        const Py_ssize_t k0 = 0, taps = count;                                   \
        const double *w = weight, *row = plane; /* row: never read (k0 == 0) */  \
        const __m256d lo = _mm256_set1_pd(LO), hi = _mm256_set1_pd(HI);         \
        Py_ssize_t k, c = 0;                                                     \
        CRESIZE_ROW_POINTERS(double)                                             \
        CRESIZE_SUM2_FIXED(double, __m256d, 4, cresize_set1_pd, cresize_add_pd,  \
                           cresize_mul_pd, cresize_row4_f64, CRESIZE_STORE16_2_AVX2, \
                           PACK32)                                               \
        for (; c + 16 <= width; c += 16) {                                       \
            CRESIZE_SUM4(double, __m256d, 4, cresize_set1_pd, cresize_add_pd,    \
                         cresize_mul_pd, cresize_row4_f64, cresize_row4_f64)     \
            _mm_storeu_si128((__m128i *)(out + c),                               \
                             PACK32(cresize_round4_pd(s0, lo, hi),               \
                                    cresize_round4_pd(s1, lo, hi)));             \
            _mm_storeu_si128((__m128i *)(out + c + 8),                           \
                             PACK32(cresize_round4_pd(s2, lo, hi),               \
                                    cresize_round4_pd(s3, lo, hi)));             \
        }                                                                        \
        CRESIZE_STORE_REST(double, 16, STORE)                                    \
    }

CRESIZE_COMBINE_STORE8(cresize_combine_store_u8_avx2, unsigned char, _mm256_packus_epi16, 0.0f,
                       255.0f, cresize_store_u8_f32)
CRESIZE_COMBINE_STORE8(cresize_combine_store_s8_avx2, signed char, _mm256_packs_epi16, -128.0f,
                       127.0f, cresize_store_s8_f32)
CRESIZE_COMBINE_STORE16(cresize_combine_store_u16_avx2, unsigned short, _mm_packus_epi32, 0.0,
                        65535.0, cresize_store_u16_f64)
CRESIZE_COMBINE_STORE16(cresize_combine_store_s16_avx2, short, _mm_packs_epi32, -32768.0,
                        32767.0, cresize_store_s16_f64)

/* AVX-512F: the same, 64 float32 / 32 float64 sums a block, narrowed by the
 * saturating moves vpmov(u)sdb / vpmov(u)sdw (the values are in range already). */
CRESIZE_AVX512 static inline __m512i cresize_round16_ps(__m512 v, __m512 lo, __m512 hi)
{
    return _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(v, lo), hi));
}

CRESIZE_AVX512 static inline __m512i cresize_round16_pd(__m512d a, __m512d b, __m512d lo,
                                                        __m512d hi)
{
    __m256i x = _mm512_cvtpd_epi32(_mm512_min_pd(_mm512_max_pd(a, lo), hi));
    __m256i y = _mm512_cvtpd_epi32(_mm512_min_pd(_mm512_max_pd(b, lo), hi));
    return _mm512_inserti64x4(_mm512_castsi256_si512(x), y, 1);
}

/* The last columns (fewer than a block) at the avx512 level: their sums in one step of
 * CRESIZE_TAIL_REGS (not the scalar loop of CRESIZE_STORE_REST, up to 63 columns
 * here), then _simd_pixels.h's store. */
#define CRESIZE_STORE_REST_512(ACC, VEC, LANES, SET1, ADD, MUL, LOAD, PART, PUT, STORE) \
    if (c < width) {                                                             \
        ACC rest[4 * (LANES)] __attribute__((aligned(64)));                      \
        const Py_ssize_t c0 = c;                                                 \
        CRESIZE_TAIL_512(ACC, ACC, VEC, LANES, SET1, ADD, MUL, LOAD, LOAD, _, PART, PART, \
                         PUT)                                                    \
        STORE(out + c0, rest, width - c0);                                       \
    }

#define CRESIZE_COMBINE_STORE8_512(NAME, T, NARROW, LO, HI, STORE)               \
    CRESIZE_AVX512 static void NAME(T *out, const float *plane, Py_ssize_t width, \
                                    const Py_ssize_t *index, const float *weight, \
                                    Py_ssize_t count, Py_ssize_t n_rows)         \
    {                                                                            \
        const Py_ssize_t k0 = 0, taps = count;                                   \
        const float *w = weight, *row = plane; /* row: never read (k0 == 0) */   \
        const __m512 lo = _mm512_set1_ps(LO), hi = _mm512_set1_ps(HI);           \
        Py_ssize_t k, c;                                                         \
        CRESIZE_ROW_POINTERS(float)                                              \
        for (c = 0; c + 64 <= width; c += 64) {                                  \
            CRESIZE_SUM4(float, __m512, 16, cresize_set1_ps16, cresize_add_ps16, \
                         cresize_mul_ps16, cresize_row16_f32, cresize_row16_f32) \
            _mm_storeu_si128((__m128i *)(out + c), NARROW(cresize_round16_ps(s0, lo, hi))); \
            _mm_storeu_si128((__m128i *)(out + c + 16),                          \
                             NARROW(cresize_round16_ps(s1, lo, hi)));            \
            _mm_storeu_si128((__m128i *)(out + c + 32),                          \
                             NARROW(cresize_round16_ps(s2, lo, hi)));            \
            _mm_storeu_si128((__m128i *)(out + c + 48),                          \
                             NARROW(cresize_round16_ps(s3, lo, hi)));            \
        }                                                                        \
        CRESIZE_STORE_REST_512(float, __m512, 16, cresize_set1_ps16, cresize_add_ps16, \
                               cresize_mul_ps16, cresize_row16_f32, cresize_row16_f32_part, \
                               CRESIZE_PUT_REST16, STORE)                        \
    }

#define CRESIZE_STORE16_2(A, B, NARROW)                                          \
    _mm256_storeu_si256((__m256i *)(out + c), NARROW(cresize_round16_pd(A, B, lo, hi)))

#define CRESIZE_COMBINE_STORE16_512(NAME, T, NARROW, LO, HI, STORE)              \
    CRESIZE_AVX512 static void NAME(T *out, const double *plane, Py_ssize_t width, \
                                    const Py_ssize_t *index, const double *weight, \
                                    Py_ssize_t count, Py_ssize_t n_rows)         \
    {                                                                            \
        const Py_ssize_t k0 = 0, taps = count;                                   \
        const double *w = weight, *row = plane; /* row: never read (k0 == 0) */  \
        const __m512d lo = _mm512_set1_pd(LO), hi = _mm512_set1_pd(HI);         \
        Py_ssize_t k, c = 0;                                                     \
        CRESIZE_ROW_POINTERS(double)                                             \
        CRESIZE_SUM2_FIXED(double, __m512d, 8, cresize_set1_pd8, cresize_add_pd8, \
                           cresize_mul_pd8, cresize_row8_f64, CRESIZE_STORE16_2,  \
                           NARROW)                                               \
        for (; c + 32 <= width; c += 32) {                                       \
            CRESIZE_SUM4(double, __m512d, 8, cresize_set1_pd8, cresize_add_pd8,  \
                         cresize_mul_pd8, cresize_row8_f64, cresize_row8_f64)    \
            _mm256_storeu_si256((__m256i *)(out + c),                            \
                                NARROW(cresize_round16_pd(s0, s1, lo, hi)));     \
            _mm256_storeu_si256((__m256i *)(out + c + 16),                       \
                                NARROW(cresize_round16_pd(s2, s3, lo, hi)));     \
        }                                                                        \
        CRESIZE_STORE_REST_512(double, __m512d, 8, cresize_set1_pd8, cresize_add_pd8,  \
                               cresize_mul_pd8, cresize_row8_f64, cresize_row8_f64_part, \
                               CRESIZE_PUT_REST8, STORE)                         \
    }

CRESIZE_COMBINE_STORE8_512(cresize_combine_store_u8_avx512, unsigned char, _mm512_cvtusepi32_epi8,
                           0.0f, 255.0f, cresize_store_u8_f32)
CRESIZE_COMBINE_STORE8_512(cresize_combine_store_s8_avx512, signed char, _mm512_cvtsepi32_epi8,
                           -128.0f, 127.0f, cresize_store_s8_f32)
CRESIZE_COMBINE_STORE16_512(cresize_combine_store_u16_avx512, unsigned short,
                            _mm512_cvtusepi32_epi16, 0.0, 65535.0, cresize_store_u16_f64)
CRESIZE_COMBINE_STORE16_512(cresize_combine_store_s16_avx512, short, _mm512_cvtsepi32_epi16,
                            -32768.0, 32767.0, cresize_store_s16_f64)

/* The AVX-512 sums of rows (not the fused stores) take rows of at least this many
 * columns (sums of type ACC); shorter rows run the AVX2 loops at the avx512 level too.
 * On AMD Zen 4 (AVX-512 on 256-bit units) the 512-bit loops summed shorter rows more
 * slowly than the AVX2 ones and longer rows faster (C harness, 4 taps, least of 300
 * sweeps of 512 rows: float32 rows of 56 / 128 / 256 / 384 / 512 columns 0.88 / 0.93 /
 * 0.93 / 0.99 / 1.05x the AVX2 speed, float64 rows of 64 / 96 / 128 / 192 0.87 / 0.92 /
 * 1.01 / 1.07x); the AVX-512 gains recorded before (earlier VMs) were on rows of 2250 columns
 * and more (docs/kernels.md). The fused stores, their last columns in CRESIZE_TAIL_512
 * steps, gained at 512 bits on rows of 56-400 values (whole calls 0.94-1.42x, most
 * above 1). */
#define CRESIZE_WIDE_ROW(ACC) (sizeof(ACC) == 4 ? 384 : 128)

/* Entry points of the fused sums and stores: one group of taps only. */
#define CRESIZE_COMBINE_STORE_ENTRY(NAME, T, ACC, F)                             \
    static inline int NAME(T *out, const ACC *plane, Py_ssize_t width,           \
                           const Py_ssize_t *index, const ACC *weight,           \
                           Py_ssize_t count, Py_ssize_t n_rows)                  \
    {                                                                            \
        if (cresize_simd_level < 2 || count < 1 || count > CRESIZE_ROW_TAPS)     \
            return 0;                                                            \
        if (cresize_simd_level >= 3)                                             \
            F##512(out, plane, width, index, weight, count, n_rows);             \
        else                                                                     \
            F##2(out, plane, width, index, weight, count, n_rows);               \
        return 1;                                                                \
    }

#define CRESIZE_COMBINE_ENTRY(NAME, ACC, T, F)                                   \
    static inline int NAME(ACC *row, const T *plane, Py_ssize_t width,           \
                           const Py_ssize_t *index, const ACC *weight,           \
                           Py_ssize_t count, Py_ssize_t n_rows)                  \
    {                                                                            \
        if (cresize_simd_level < 2 || count < 1)                                 \
            return 0;                                                            \
        if (cresize_simd_level >= 3 && width >= CRESIZE_WIDE_ROW(ACC))           \
            F##512(row, plane, width, index, weight, count, n_rows);             \
        else                                                                     \
            F##2(row, plane, width, index, weight, count, n_rows);               \
        return 1;                                                                \
    }
#else
#define CRESIZE_COMBINE_ENTRY(NAME, ACC, T, F)                                   \
    static inline int NAME(ACC *row, const T *plane, Py_ssize_t width,           \
                           const Py_ssize_t *index, const ACC *weight,           \
                           Py_ssize_t count, Py_ssize_t n_rows)                  \
    {                                                                            \
        (void)row, (void)plane, (void)width, (void)index, (void)weight;          \
        (void)count, (void)n_rows;                                               \
        return 0;                                                                \
    }
#define CRESIZE_COMBINE_STORE_ENTRY(NAME, T, ACC, F)                             \
    static inline int NAME(T *out, const ACC *plane, Py_ssize_t width,           \
                           const Py_ssize_t *index, const ACC *weight,           \
                           Py_ssize_t count, Py_ssize_t n_rows)                  \
    {                                                                            \
        (void)out, (void)plane, (void)width, (void)index, (void)weight;          \
        (void)count, (void)n_rows;                                               \
        return 0;                                                                \
    }
#endif

CRESIZE_COMBINE_ENTRY(cresize_combine_f32_f32, float, float, cresize_combine_f32_f32_avx)
CRESIZE_COMBINE_ENTRY(cresize_combine_f32_u8, float, unsigned char, cresize_combine_f32_u8_avx)
CRESIZE_COMBINE_ENTRY(cresize_combine_f32_s8, float, signed char, cresize_combine_f32_s8_avx)
CRESIZE_COMBINE_ENTRY(cresize_combine_f64_f64, double, double, cresize_combine_f64_f64_avx)
CRESIZE_COMBINE_ENTRY(cresize_combine_f64_u16, double, unsigned short,
                      cresize_combine_f64_u16_avx)
CRESIZE_COMBINE_ENTRY(cresize_combine_f64_s16, double, short, cresize_combine_f64_s16_avx)

CRESIZE_COMBINE_STORE_ENTRY(cresize_combine_store_u8, unsigned char, float,
                            cresize_combine_store_u8_avx)
CRESIZE_COMBINE_STORE_ENTRY(cresize_combine_store_s8, signed char, float,
                            cresize_combine_store_s8_avx)
CRESIZE_COMBINE_STORE_ENTRY(cresize_combine_store_u16, unsigned short, double,
                            cresize_combine_store_u16_avx)
CRESIZE_COMBINE_STORE_ENTRY(cresize_combine_store_s16, short, double,
                            cresize_combine_store_s16_avx)

/* The best level this CPU and build allow, counting level 3 (AVX-512F): only the
 * sums of whole rows have AVX-512 loops; every other loop runs its AVX2 code there.
 * Also notes whether the CPU has AVX512BW (cresize_cpu_avx512bw: the 16-bit 2x2
 * halves' 512-bit loop, _simd_sums.h), which cresize_simd_set turns on at level 3. */
static int cresize_simd_best_rows(void)
{
    int best = cresize_simd_best();
#if CRESIZE_X86_DISPATCH
    if (best >= 2 && __builtin_cpu_supports("avx512f"))
        best = 3;
    cresize_cpu_avx512bw = best >= 3 && __builtin_cpu_supports("avx512bw");
#endif
    return best;
}

#endif
