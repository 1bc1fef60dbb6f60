/* Run-time SIMD level, and whole rows of 3- and 4-value pixels (channels last).
 *
 * cresize_simd_level: 0 = portable C, 1 = SSE2 (x86-64's baseline), 2 = AVX2. The
 * module sets it once at import (cresize_simd_best(), lowered by the environment
 * variable CRESIZE_SIMD=none|sse2|avx2); only functions compiled for a level the
 * CPU has are ever called (GCC/Clang target attributes, so one build runs on any
 * x86-64; other compilers and CPUs get level 0 or 1).
 *
 * Every SIMD function here gives the bits of the portable loop it replaces: lane c
 * of a register does exactly the scalar operations of channel c (a product, then a
 * sum starting from 0, tap after tap; no FMA, which would round once instead of
 * twice). A function returns 0, writing nothing, when the level does not allow it;
 * the caller then runs its portable loop.
 */
#ifndef CRESIZE_SIMD_PIXELS_H
#define CRESIZE_SIMD_PIXELS_H

#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && CRESIZE_SSE
#define CRESIZE_X86_DISPATCH 1
#include <immintrin.h>
#else
#define CRESIZE_X86_DISPATCH 0
#endif

static int cresize_simd_level = 0;

/* The best level this CPU and build allow. */
static int cresize_simd_best(void)
{
    int best = CRESIZE_SSE ? 1 : 0;
#if CRESIZE_X86_DISPATCH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2"))
        best = 2;
#endif
    return best;
}

static void cresize_simd_set(int level) { cresize_simd_level = level; }

/* Pixel o (C values) of `out` is sum_k w[o,k] * line[C*idx[o,k] + c]. A 3-value
 * pixel is read and written as 4 values, the 4th being the next pixel's first,
 * whose lane is discarded (read) or rewritten by the next pixel (written); so a
 * pixel whose taps reach the row's last input pixel, and the row's last output
 * pixel, take the scalar path, which never touches memory outside the rows. */
#define CRESIZE_SCALAR_PIXEL(ACC, T)                                             \
    {                                                                            \
        ACC a = 0, b = 0, c = 0, d = 0;                                          \
        for (k = 0; k < cnt; k++) {                                              \
            const T *p = line + C * idx[k];                                      \
            a = a + w[k] * p[0];                                                 \
            b = b + w[k] * p[1];                                                 \
            c = c + w[k] * p[2];                                                 \
            if (C == 4)                                                          \
                d = d + w[k] * p[3];                                             \
        }                                                                        \
        out[C * o] = a;                                                          \
        out[C * o + 1] = b;                                                      \
        out[C * o + 2] = c;                                                      \
        if (C == 4)                                                              \
            out[C * o + 3] = d;                                                  \
    }

/* Whether pixel o may be read and written as C = 4 values (see above). A row's taps
 * are in ascending index order (the kernels' entry checks make sure), so its last
 * tap is its largest index. */
static inline int cresize_pixel_inside(const Py_ssize_t *idx, Py_ssize_t cnt, Py_ssize_t n_in,
                                       Py_ssize_t C, Py_ssize_t o, Py_ssize_t n_out)
{
    return C == 4 || (o + 1 < n_out && (cnt == 0 || idx[cnt - 1] + 1 < n_in));
}

/* Four pixels with the same tap count go together, four independent sums (so the
 * additions of one pixel need not wait for each other's latency); each pixel's own
 * sum is the same sequence of operations. Stores go in pixel order, so the 4th value
 * a 3-value pixel writes is rewritten by the next pixel. */
#define CRESIZE_PIXEL_LOOP(ACC, T, VEC, ZERO, SET1, ADD, MUL, LOAD, STORE)       \
    Py_ssize_t o = 0;                                                            \
    while (o < n_out) {                                                          \
        const Py_ssize_t *idx = index + o * width;                               \
        const ACC *w = weight + o * width;                                       \
        Py_ssize_t cnt = count[o], k;                                            \
        if (o + 4 <= n_out && count[o + 1] == cnt && count[o + 2] == cnt         \
            && count[o + 3] == cnt                                               \
            && cresize_pixel_inside(idx + 3 * width, cnt, n_in, C, o + 3, n_out) \
            && cresize_pixel_inside(idx + 2 * width, cnt, n_in, C, o + 2, n_out) \
            && cresize_pixel_inside(idx + width, cnt, n_in, C, o + 1, n_out)     \
            && cresize_pixel_inside(idx, cnt, n_in, C, o, n_out)) {              \
            VEC s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO();              \
            for (k = 0; k < cnt; k++) {                                          \
                s0 = ADD(s0, MUL(SET1(w[k]), LOAD(line + C * idx[k])));          \
                s1 = ADD(s1, MUL(SET1(w[width + k]),                             \
                                 LOAD(line + C * idx[width + k])));              \
                s2 = ADD(s2, MUL(SET1(w[2 * width + k]),                         \
                                 LOAD(line + C * idx[2 * width + k])));          \
                s3 = ADD(s3, MUL(SET1(w[3 * width + k]),                         \
                                 LOAD(line + C * idx[3 * width + k])));          \
            }                                                                    \
            STORE(out + C * o, s0);                                              \
            STORE(out + C * (o + 1), s1);                                        \
            STORE(out + C * (o + 2), s2);                                        \
            STORE(out + C * (o + 3), s3);                                        \
            o += 4;                                                              \
            continue;                                                            \
        }                                                                        \
        if (cresize_pixel_inside(idx, cnt, n_in, C, o, n_out)) {                 \
            VEC acc = ZERO();                                                    \
            for (k = 0; k < cnt; k++)                                            \
                acc = ADD(acc, MUL(SET1(w[k]), LOAD(line + C * idx[k])));        \
            STORE(out + C * o, acc);                                             \
        } else                                                                   \
            CRESIZE_SCALAR_PIXEL(ACC, T)                                         \
        o++;                                                                     \
    }

#if CRESIZE_SSE
static inline __m128 cresize_load4_f32(const float *p) { return _mm_loadu_ps(p); }

static inline __m128 cresize_load4_u8(const unsigned char *p)
{
    int v;
    __m128i z = _mm_setzero_si128();
    memcpy(&v, p, 4);
    return _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(v), z), z));
}

#define CRESIZE_SSE_PIXELS(NAME, T, CH, LOAD)                                    \
    static inline void NAME(float *out, const T *line, Py_ssize_t n_in,          \
                            const Py_ssize_t *index, const float *weight,        \
                            const Py_ssize_t *count, Py_ssize_t width,           \
                            Py_ssize_t n_out)                                    \
    {                                                                            \
        const Py_ssize_t C = CH;                                                 \
        CRESIZE_PIXEL_LOOP(float, T, __m128, _mm_setzero_ps, _mm_set1_ps,       \
                           _mm_add_ps, _mm_mul_ps, LOAD, _mm_storeu_ps)          \
    }

CRESIZE_SSE_PIXELS(cresize_pixels3_f32_sse, float, 3, cresize_load4_f32)
CRESIZE_SSE_PIXELS(cresize_pixels4_f32_sse, float, 4, cresize_load4_f32)
CRESIZE_SSE_PIXELS(cresize_pixels3_u8_sse, unsigned char, 3, cresize_load4_u8)
CRESIZE_SSE_PIXELS(cresize_pixels4_u8_sse, unsigned char, 4, cresize_load4_u8)
#endif

#if CRESIZE_X86_DISPATCH
#define CRESIZE_AVX2 __attribute__((target("avx2")))

CRESIZE_AVX2 static inline __m256d cresize_load4_f64(const double *p)
{
    return _mm256_loadu_pd(p);
}

CRESIZE_AVX2 static inline __m256d cresize_load4_u16(const unsigned short *p)
{
    return _mm256_cvtepi32_pd(_mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

CRESIZE_AVX2 static inline __m256d cresize_load4_s16(const short *p)
{
    return _mm256_cvtepi32_pd(_mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

CRESIZE_AVX2 static inline __m256d cresize_set1_pd(double w) { return _mm256_set1_pd(w); }
CRESIZE_AVX2 static inline __m256d cresize_zero_pd(void) { return _mm256_setzero_pd(); }
CRESIZE_AVX2 static inline __m256d cresize_add_pd(__m256d a, __m256d b)
{
    return _mm256_add_pd(a, b);
}
CRESIZE_AVX2 static inline __m256d cresize_mul_pd(__m256d a, __m256d b)
{
    return _mm256_mul_pd(a, b);
}
CRESIZE_AVX2 static inline void cresize_store_pd(double *p, __m256d v) { _mm256_storeu_pd(p, v); }

#define CRESIZE_AVX2_PIXELS(NAME, T, CH, LOAD)                                   \
    CRESIZE_AVX2 static void NAME(double *out, const T *line, Py_ssize_t n_in,   \
                                  const Py_ssize_t *index, const double *weight, \
                                  const Py_ssize_t *count, Py_ssize_t width,     \
                                  Py_ssize_t n_out)                              \
    {                                                                            \
        const Py_ssize_t C = CH;                                                 \
        CRESIZE_PIXEL_LOOP(double, T, __m256d, cresize_zero_pd, cresize_set1_pd, \
                           cresize_add_pd, cresize_mul_pd, LOAD, cresize_store_pd) \
    }

CRESIZE_AVX2_PIXELS(cresize_pixels3_f64_avx2, double, 3, cresize_load4_f64)
CRESIZE_AVX2_PIXELS(cresize_pixels4_f64_avx2, double, 4, cresize_load4_f64)
CRESIZE_AVX2_PIXELS(cresize_pixels3_u16_avx2, unsigned short, 3, cresize_load4_u16)
CRESIZE_AVX2_PIXELS(cresize_pixels4_u16_avx2, unsigned short, 4, cresize_load4_u16)
CRESIZE_AVX2_PIXELS(cresize_pixels3_s16_avx2, short, 3, cresize_load4_s16)
CRESIZE_AVX2_PIXELS(cresize_pixels4_s16_avx2, short, 4, cresize_load4_s16)
#endif

/* Entry points: 1 when done, 0 when the caller must run its portable loop. */
#define CRESIZE_PIXELS_ENTRY(NAME, ACC, T, LEVEL, F3, F4)                        \
    static inline int NAME(ACC *out, const T *line, Py_ssize_t channels,         \
                           Py_ssize_t n_in, const Py_ssize_t *index,             \
                           const ACC *weight, const Py_ssize_t *count,           \
                           Py_ssize_t width, Py_ssize_t n_out)                   \
    {                                                                            \
        if (cresize_simd_level < LEVEL || n_out < 1)                             \
            return 0;                                                            \
        if (channels == 3)                                                       \
            F3(out, line, n_in, index, weight, count, width, n_out);             \
        else if (channels == 4)                                                  \
            F4(out, line, n_in, index, weight, count, width, n_out);             \
        else                                                                     \
            return 0;                                                            \
        return 1;                                                                \
    }

#define CRESIZE_NO_PIXELS(NAME, ACC, T)                                          \
    static inline int NAME(ACC *out, const T *line, Py_ssize_t channels,         \
                           Py_ssize_t n_in, const Py_ssize_t *index,             \
                           const ACC *weight, const Py_ssize_t *count,           \
                           Py_ssize_t width, Py_ssize_t n_out)                   \
    {                                                                            \
        (void)out, (void)line, (void)channels, (void)n_in, (void)index;          \
        (void)weight, (void)count, (void)width, (void)n_out;                     \
        return 0;                                                                \
    }

#if CRESIZE_SSE
CRESIZE_PIXELS_ENTRY(cresize_pixels_f32, float, float, 1, cresize_pixels3_f32_sse,
                     cresize_pixels4_f32_sse)
CRESIZE_PIXELS_ENTRY(cresize_pixels_u8, float, unsigned char, 1, cresize_pixels3_u8_sse,
                     cresize_pixels4_u8_sse)
#else
CRESIZE_NO_PIXELS(cresize_pixels_f32, float, float)
CRESIZE_NO_PIXELS(cresize_pixels_u8, float, unsigned char)
#endif

#if CRESIZE_X86_DISPATCH
CRESIZE_PIXELS_ENTRY(cresize_pixels_f64, double, double, 2, cresize_pixels3_f64_avx2,
                     cresize_pixels4_f64_avx2)
CRESIZE_PIXELS_ENTRY(cresize_pixels_u16, double, unsigned short, 2, cresize_pixels3_u16_avx2,
                     cresize_pixels4_u16_avx2)
CRESIZE_PIXELS_ENTRY(cresize_pixels_s16, double, short, 2, cresize_pixels3_s16_avx2,
                     cresize_pixels4_s16_avx2)
#else
CRESIZE_NO_PIXELS(cresize_pixels_f64, double, double)
CRESIZE_NO_PIXELS(cresize_pixels_u16, double, unsigned short)
CRESIZE_NO_PIXELS(cresize_pixels_s16, double, short)
#endif

/* Integer stores: out[i] = clip(rint(row[i])) to the type's range. cvtps2dq and
 * cvtpd2dq round half to even in the default rounding mode, as the portable
 * loop's 1.5 * 2**23 (2**52) trick does, and the values are clipped first, so
 * every level gives the same integers. Return 0 when the level is too low. */
#if CRESIZE_SSE
#define CRESIZE_STORE_TAIL(T, LO, HI, MAGIC, ACC)                                \
    for (; i < n; i++) {                                                         \
        ACC v = row[i];                                                          \
        v = v > LO ? v : LO;                                                     \
        v = v < HI ? v : HI;                                                     \
        v = v + MAGIC;                                                           \
        v = v - MAGIC;                                                           \
        out[i] = (T)v;                                                           \
    }

static inline __m128i cresize_round4_f32(const float *p, __m128 lo, __m128 hi)
{
    return _mm_cvtps_epi32(_mm_min_ps(_mm_max_ps(_mm_loadu_ps(p), lo), hi));
}

static inline int cresize_store_u8_f32(unsigned char *out, const float *row, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    __m128 lo = _mm_set1_ps(0.0f), hi = _mm_set1_ps(255.0f);
    if (cresize_simd_level < 1)
        return 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_packs_epi32(cresize_round4_f32(row + i, lo, hi),
                                    cresize_round4_f32(row + i + 4, lo, hi));
        __m128i b = _mm_packs_epi32(cresize_round4_f32(row + i + 8, lo, hi),
                                    cresize_round4_f32(row + i + 12, lo, hi));
        _mm_storeu_si128((__m128i *)(out + i), _mm_packus_epi16(a, b));
    }
    CRESIZE_STORE_TAIL(unsigned char, 0.0f, 255.0f, 12582912.0f, float)
    return 1;
}

static inline int cresize_store_s8_f32(signed char *out, const float *row, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    __m128 lo = _mm_set1_ps(-128.0f), hi = _mm_set1_ps(127.0f);
    if (cresize_simd_level < 1)
        return 0;
    for (; i + 16 <= n; i += 16) {
        __m128i a = _mm_packs_epi32(cresize_round4_f32(row + i, lo, hi),
                                    cresize_round4_f32(row + i + 4, lo, hi));
        __m128i b = _mm_packs_epi32(cresize_round4_f32(row + i + 8, lo, hi),
                                    cresize_round4_f32(row + i + 12, lo, hi));
        _mm_storeu_si128((__m128i *)(out + i), _mm_packs_epi16(a, b));
    }
    CRESIZE_STORE_TAIL(signed char, -128.0f, 127.0f, 12582912.0f, float)
    return 1;
}

static inline __m128i cresize_round4_f64(const double *p, __m128d lo, __m128d hi)
{
    __m128i a = _mm_cvtpd_epi32(_mm_min_pd(_mm_max_pd(_mm_loadu_pd(p), lo), hi));
    __m128i b = _mm_cvtpd_epi32(_mm_min_pd(_mm_max_pd(_mm_loadu_pd(p + 2), lo), hi));
    return _mm_unpacklo_epi64(a, b);
}

static inline int cresize_store_u16_f64(unsigned short *out, const double *row, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    __m128d lo = _mm_set1_pd(0.0), hi = _mm_set1_pd(65535.0);
    __m128i bias = _mm_set1_epi32(32768), flip = _mm_set1_epi16((short)0x8000);
    if (cresize_simd_level < 1)
        return 0;
    for (; i + 8 <= n; i += 8) {  /* to int16 around 32768, packed, flipped back */
        __m128i a = _mm_sub_epi32(cresize_round4_f64(row + i, lo, hi), bias);
        __m128i b = _mm_sub_epi32(cresize_round4_f64(row + i + 4, lo, hi), bias);
        _mm_storeu_si128((__m128i *)(out + i), _mm_xor_si128(_mm_packs_epi32(a, b), flip));
    }
    CRESIZE_STORE_TAIL(unsigned short, 0.0, 65535.0, 6755399441055744.0, double)
    return 1;
}

static inline int cresize_store_s16_f64(short *out, const double *row, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    __m128d lo = _mm_set1_pd(-32768.0), hi = _mm_set1_pd(32767.0);
    if (cresize_simd_level < 1)
        return 0;
    for (; i + 8 <= n; i += 8) {
        __m128i a = cresize_round4_f64(row + i, lo, hi);
        __m128i b = cresize_round4_f64(row + i + 4, lo, hi);
        _mm_storeu_si128((__m128i *)(out + i), _mm_packs_epi32(a, b));
    }
    CRESIZE_STORE_TAIL(short, -32768.0, 32767.0, 6755399441055744.0, double)
    return 1;
}
#else
static inline int cresize_store_u8_f32(unsigned char *o, const float *r, Py_ssize_t n)
{
    (void)o, (void)r, (void)n;
    return 0;
}
static inline int cresize_store_s8_f32(signed char *o, const float *r, Py_ssize_t n)
{
    (void)o, (void)r, (void)n;
    return 0;
}
static inline int cresize_store_u16_f64(unsigned short *o, const double *r, Py_ssize_t n)
{
    (void)o, (void)r, (void)n;
    return 0;
}
static inline int cresize_store_s16_f64(short *o, const double *r, Py_ssize_t n)
{
    (void)o, (void)r, (void)n;
    return 0;
}
#endif

#endif
