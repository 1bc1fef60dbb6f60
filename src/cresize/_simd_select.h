/* Rows of a selection x table (nearest, nearest-exact, area enlarging by a whole factor:
 * every output reads one input pixel with weight 1), or of a table of at most one tap of
 * weight 1 a row (the adjoint of a nearest shrink: a row without a tap is +0, the sum
 * of none), on float32 / float64 values: the row moves of _kernels._row (Sizes.copy).
 *
 * Pixel o (C values) of `out` is pixel index[o * width] of `line`, each value `0 + x`,
 * the bits of the pixel kernels' sums from 0 (`0 + 1*x`: -0 comes out +0, a
 * signalling NaN quiet), or, with `first` (a step whose sums start from their first
 * product, Sizes.first_product), `1 * x` (-0 stays -0). Moves of the pixel's size, one
 * SSE register where it fits (SSE2, x86-64's baseline; level >= 1): no gathers, no
 * weights, no tap counts. A 3-value float32 pixel is read and written as 16 bytes, the
 * 4th value the next pixel's first, whose lane is discarded (read) or rewritten by the
 * next pixel (written, in pixel order); a pixel that reads the row's last input pixel,
 * and the row's last output pixel, take 8 + 4 bytes, so nothing outside the rows is
 * touched. Where the index steps by 2 through 8 float32 outputs of 1 value (x0.5 of a
 * planar row), two 8-value loads give them by one shuffle (AVX2, level >= 2), and
 * through 8 pixels of 3 float32 values (x0.5 of RGB), six 8-value loads give their 24
 * values by lane permutations and blends, three stores (AVX2); where 24 pixels of 3
 * float32 values take runs of 3 input pixels, one skipped between runs (0.75x), nine
 * stores from 16 8-value loads and 7 blends (AVX2), both without index checks over the
 * outputs where the plan found the pattern (Sizes.x_run), checked groups elsewhere; where
 * 8 outputs alternate a tap and none on 4 consecutive inputs (the x0.5 adjoint), one
 * 4-value load is interleaved with zeros (SSE2).
 */
#ifndef CRESIZE_SIMD_SELECT_H
#define CRESIZE_SIMD_SELECT_H

#include "_simd.h"

/* A function the compiler must not inline (GCC and Clang's attribute, MSVC's
 * __declspec; nothing elsewhere): MSVC, which builds the Windows wheels, rejects
 * __attribute__. */
#if defined(__GNUC__) || defined(__clang__)
#define CRESIZE_NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#define CRESIZE_NOINLINE __declspec(noinline)
#else
#define CRESIZE_NOINLINE
#endif

/* 1, read where the compiler cannot see it: a product with a constant 1 is folded
 * away (GCC assumes no signalling NaNs), and the kernels' `1 * x` quiets them. */
static inline float cresize_one_f32(void)
{
    volatile float one = 1.0f;
    return one;
}

static inline double cresize_one_f64(void)
{
    volatile double one = 1.0;
    return one;
}

/* The portable loops (level 0). */
#define CRESIZE_SELECT_C(T, ONE, ZERO)                                           \
    {                                                                            \
        const T one = ONE;                                                       \
        Py_ssize_t o, c;                                                         \
        if (C == 1 && !count && first) {                                         \
            for (o = o_begin; o < o_end; o++)                                    \
                out[o] = one * line[index[o * width]];                           \
        } else if (C == 1 && !count) {                                           \
            for (o = o_begin; o < o_end; o++)                                    \
                out[o] = ZERO + line[index[o * width]];                          \
        } else if (C == 1) {                                                     \
            for (o = o_begin; o < o_end; o++)                                    \
                out[o] = !count[o] ? 0 : first ? one * line[index[o * width]]    \
                                               : ZERO + line[index[o * width]];  \
        } else {                                                                 \
            for (o = o_begin; o < o_end; o++) {                                  \
                const T *p = line + C * index[o * width];                        \
                if (count && !count[o]) {                                        \
                    for (c = 0; c < C; c++)                                      \
                        out[C * o + c] = 0;                                      \
                    continue;                                                    \
                }                                                                \
                for (c = 0; c < C; c++)                                          \
                    out[C * o + c] = first ? one * p[c] : ZERO + p[c];           \
            }                                                                    \
        }                                                                        \
    }

static inline void cresize_select_f32_c(float *restrict out, const float *restrict line,
                                        Py_ssize_t C, const Py_ssize_t *restrict index,
                                        Py_ssize_t width, const Py_ssize_t *count,
                                        Py_ssize_t o_begin, Py_ssize_t o_end, int first)
CRESIZE_SELECT_C(float, cresize_one_f32(), 0.0f)

static inline void cresize_select_f64_c(double *restrict out, const double *restrict line,
                                        Py_ssize_t C, const Py_ssize_t *restrict index,
                                        Py_ssize_t width, const Py_ssize_t *count,
                                        Py_ssize_t o_begin, Py_ssize_t o_end, int first)
CRESIZE_SELECT_C(double, cresize_one_f64(), 0.0)

#if CRESIZE_SSE
/* 0 + v, or (first) 1 * v, lane by lane. */
#define CRESIZE_SELECT_PS(V) (first ? _mm_mul_ps(one, (V)) : _mm_add_ps(zero, (V)))
#define CRESIZE_SELECT_PD(V) (first ? _mm_mul_pd(oned, (V)) : _mm_add_pd(zerod, (V)))

/* Pixels o_begin ... o_end - 1 of float32 values, C = 1 ... 4 (SSE2); `count` (or NULL:
 * every pixel has its tap) 0: the pixel is 0. */
static inline void cresize_select_f32_sse(float *out, const float *line, Py_ssize_t C,
                                          Py_ssize_t n_in, const Py_ssize_t *index,
                                          Py_ssize_t width, const Py_ssize_t *count,
                                          Py_ssize_t n_out, Py_ssize_t o_begin,
                                          Py_ssize_t o_end, int first)
{
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(cresize_one_f32());
    Py_ssize_t o = o_begin;
    if (C == 1) {
        cresize_select_f32_c(out, line, 1, index, width, count, o, o_end, first);
        return;
    }
    for (; o < o_end; o++) {
        Py_ssize_t i = index[o * width];
        float *q = out + C * o;
        if (count && !count[o]) {
            __m128 z = zero;  /* +0 */
            _mm_store_sd((double *)q, _mm_castps_pd(z));
            if (C == 3)
                _mm_store_ss(q + 2, z);
            else if (C == 4)
                _mm_store_sd((double *)(q + 2), _mm_castps_pd(z));
        } else if (C == 4) {
            _mm_storeu_ps(q, CRESIZE_SELECT_PS(_mm_loadu_ps(line + 4 * i)));
        } else if (C == 3 && o + 1 < n_out && i + 1 < n_in) {
            _mm_storeu_ps(q, CRESIZE_SELECT_PS(_mm_loadu_ps(line + 3 * i)));
        } else {
            __m128 v = _mm_castpd_ps(_mm_load_sd((const double *)(line + C * i)));
            _mm_store_sd((double *)q, _mm_castps_pd(CRESIZE_SELECT_PS(v)));
            if (C == 3)
                _mm_store_ss(q + 2, CRESIZE_SELECT_PS(_mm_load_ss(line + 3 * i + 2)));
        }
    }
}

/* Pixels o_begin ... o_end - 1 of float64 values, C = 1 ... 4 (SSE2); `count` as above. */
static inline void cresize_select_f64_sse(double *out, const double *line, Py_ssize_t C,
                                          const Py_ssize_t *index, Py_ssize_t width,
                                          const Py_ssize_t *count, Py_ssize_t o_begin,
                                          Py_ssize_t o_end, int first)
{
    const __m128d zerod = _mm_setzero_pd(), oned = _mm_set1_pd(cresize_one_f64());
    Py_ssize_t o = o_begin;
    if (C == 1) {
        cresize_select_f64_c(out, line, 1, index, width, count, o, o_end, first);
        return;
    }
    for (; o < o_end; o++) {
        const double *p = line + C * index[o * width];
        double *q = out + C * o;
        if (count && !count[o]) {
            Py_ssize_t c;
            for (c = 0; c < C; c++)
                q[c] = 0;
            continue;
        }
        _mm_storeu_pd(q, CRESIZE_SELECT_PD(_mm_loadu_pd(p)));
        if (C == 3)
            _mm_store_sd(q + 2, CRESIZE_SELECT_PD(_mm_load_sd(p + 2)));
        else if (C == 4)
            _mm_storeu_pd(q + 2, CRESIZE_SELECT_PD(_mm_loadu_pd(p + 2)));
    }
}

/* Outputs o ... of 1-value float32 pixels while groups of 8 alternate a tap and none
 * (counts 1, 0, 1, ... or 0, 1, 0, ...) on consecutive inputs i ... i + 3 (the adjoint
 * of x0.5 nearest: a scatter into zeros): the 4 values of one load, interleaved with
 * zeros (SSE2). Returns the first output not done. */
static inline Py_ssize_t cresize_spread_f32_sse(float *out, const float *line, Py_ssize_t n_in,
                                                const Py_ssize_t *index, Py_ssize_t width,
                                                const Py_ssize_t *count, Py_ssize_t o,
                                                Py_ssize_t o_end, int first)
{
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(cresize_one_f32());
    while (o + 8 <= o_end) {
        const Py_ssize_t *n = count + o;
        Py_ssize_t a = n[0] ? 0 : 1, i = index[(o + a) * width], k;
        __m128 v;
        if (i + 4 > n_in)
            break;
        for (k = 0; k < 8; k++)
            if (n[k] != ((k & 1) == a))
                return o;
        for (k = 1; k < 4; k++)
            if (index[(o + a + 2 * k) * width] != i + k)
                return o;
        v = CRESIZE_SELECT_PS(_mm_loadu_ps(line + i));
        if (a == 0) {
            _mm_storeu_ps(out + o, _mm_unpacklo_ps(v, zero));
            _mm_storeu_ps(out + o + 4, _mm_unpackhi_ps(v, zero));
        } else {
            _mm_storeu_ps(out + o, _mm_unpacklo_ps(zero, v));
            _mm_storeu_ps(out + o + 4, _mm_unpackhi_ps(zero, v));
        }
        o += 8;
    }
    return o;
}
#endif

#if CRESIZE_X86_DISPATCH
/* 0 + v, or (first) 1 * v, lane by lane, on 256-bit registers (as CRESIZE_SELECT_PS). */
#define CRESIZE_SELECT_PS256(V) (first ? _mm256_mul_ps(one, (V)) : _mm256_add_ps(zero, (V)))

/* Whether the index steps by 2 through the 8 outputs from idx (index[o + k] =
 * index[o] + 2k): the x0.5 groups below. */
static inline int cresize_steps_by_2(const Py_ssize_t *idx, Py_ssize_t width)
{
    for (Py_ssize_t k = 1; k < 8; k++)
        if (idx[k * width] != idx[0] + 2 * k)
            return 0;
    return 1;
}

/* One group of cresize_select_half_f32_avx2 (below): 8 outputs at q from the 16 values
 * at p, by one shuffle and one lane permutation. */
CRESIZE_AVX2 static inline void cresize_half_group_f32(float *q, const float *p, __m256 one,
                                                    int first)
{
    const __m256 zero = _mm256_setzero_ps();
    const __m256 a = _mm256_loadu_ps(p), b = _mm256_loadu_ps(p + 8);
    /* a0 a2 b0 b2 | a4 a6 b4 b6, then the 64-bit pairs in order */
    __m256 v = _mm256_shuffle_ps(a, b, 0x88);
    v = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(v), 0xD8));
    _mm256_storeu_ps(q, CRESIZE_SELECT_PS256(v));
}

/* One group of cresize_select_half3_f32_avx2 (below): 8 pixels at q from the 16 at p,
 * their 24 values in three 8-value stores, each from two 8-value loads, the first 4
 * values of one and the last 4 of the other picked by one lane permutation each and a
 * blend. Group value j (pixel j/3, value j%3) is input value 6*(j/3) + j%3; the loads
 * start at inputs 0, 7, 14, 24, 31 and 38 (each block of 4 outputs lies within 8
 * inputs). */
CRESIZE_AVX2 static inline void cresize_half3_group_f32(float *q, const float *p, __m256 one,
                                                    int first)
{
    const __m256 zero = _mm256_setzero_ps();
    const __m256i p0 = _mm256_setr_epi32(0, 1, 2, 6, 0, 1, 5, 6);
    const __m256i p1 = _mm256_setr_epi32(0, 4, 5, 6, 0, 1, 2, 6);
    const __m256i p2 = _mm256_setr_epi32(0, 1, 5, 6, 0, 4, 5, 6);
    __m256 v[3];
    Py_ssize_t k;
#define CRESIZE_HALF3(R, A, B, P)                                                \
    (R) = _mm256_blend_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(p + (A)), (P)),   \
                          _mm256_permutevar8x32_ps(_mm256_loadu_ps(p + (B)), (P)), 0xF0)
    CRESIZE_HALF3(v[0], 0, 7, p0);
    CRESIZE_HALF3(v[1], 14, 24, p1);
    CRESIZE_HALF3(v[2], 31, 38, p2);
#undef CRESIZE_HALF3
    for (k = 0; k < 3; k++)
        _mm256_storeu_ps(q + 8 * k, CRESIZE_SELECT_PS256(v[k]));
}

/* Outputs o ... of C-value float32 pixels (C = 1 or 3) while the index steps by 2
 * through groups of 8 pixels (index[o + k] = index[o] + 2k, cresize_steps_by_2) whose 16
 * input pixels lie in the row, a group at a time by GROUP (above), instead of a 16-byte
 * move a pixel (AVX2). Returns the first output not done. */
#define CRESIZE_SELECT_HALF(NAME, C, GROUP)                                             \
    CRESIZE_AVX2 static Py_ssize_t NAME(float *out, const float *line, Py_ssize_t n_in,   \
                                        const Py_ssize_t *index, Py_ssize_t width,        \
                                        Py_ssize_t o, Py_ssize_t o_end, int first)        \
    {                                                                                   \
        const __m256 one = _mm256_set1_ps(cresize_one_f32());                           \
        while (o + 8 <= o_end) {                                                        \
            const Py_ssize_t *idx = index + o * width;                                  \
            Py_ssize_t i = idx[0];                                                      \
            if (i + 16 > n_in)                                                          \
                break;                                                                  \
            if (!cresize_steps_by_2(idx, width))                                        \
                return o;                                                               \
            GROUP(out + (C) * o, line + (C) * i, one, first);                           \
            o += 8;                                                                     \
        }                                                                               \
        return o;                                                                       \
    }
CRESIZE_SELECT_HALF(cresize_select_half_f32_avx2, 1, cresize_half_group_f32)
CRESIZE_SELECT_HALF(cresize_select_half3_f32_avx2, 3, cresize_half3_group_f32)
#undef CRESIZE_SELECT_HALF

/* One group of cresize_select_runs3_f32_avx2 (below): 24 pixels at q from the runs of 3
 * of the 31 pixels at p (the last one read is p's 31st). */
CRESIZE_AVX2 static inline void cresize_runs3_group_f32(float *q, const float *p, __m256 one,
                                                    int first)
{
    const __m256 zero = _mm256_setzero_ps();
/* store J (values 8J ... 8J + 7): input values from p + 8J + 3*(8J/9), those from value
   A on (a pixel skipped before it) from p + 8J + 3*(8J/9 + 1), blend mask M */
#define CRESIZE_RUN1(J) _mm256_loadu_ps(p + 8 * (J) + 3 * ((8 * (J)) / 9))
#define CRESIZE_RUN2(J, M)                                                       \
    _mm256_blend_ps(CRESIZE_RUN1(J), _mm256_loadu_ps(p + 8 * (J) + 3 * ((8 * (J)) / 9 + 1)), M)
#define CRESIZE_RUNSTORE(J, V)                                                   \
    _mm256_storeu_ps(q + 8 * (J), CRESIZE_SELECT_PS256(V))
    CRESIZE_RUNSTORE(0, CRESIZE_RUN1(0));
    CRESIZE_RUNSTORE(1, CRESIZE_RUN2(1, 0xFE)); /* value 9 on: lanes 1 ... 7 */
    CRESIZE_RUNSTORE(2, CRESIZE_RUN2(2, 0xFC)); /* 18 */
    CRESIZE_RUNSTORE(3, CRESIZE_RUN2(3, 0xF8)); /* 27 */
    CRESIZE_RUNSTORE(4, CRESIZE_RUN2(4, 0xF0)); /* 36 */
    CRESIZE_RUNSTORE(5, CRESIZE_RUN2(5, 0xE0)); /* 45 */
    CRESIZE_RUNSTORE(6, CRESIZE_RUN2(6, 0xC0)); /* 54 */
    CRESIZE_RUNSTORE(7, CRESIZE_RUN2(7, 0x80)); /* 63 */
    CRESIZE_RUNSTORE(8, CRESIZE_RUN1(8));
#undef CRESIZE_RUNSTORE
#undef CRESIZE_RUN2
#undef CRESIZE_RUN1
}

/* Outputs o ... of 3-value float32 pixels while groups of 24 pixels take runs of 3
 * consecutive input pixels, one input pixel skipped between runs (index[o + k] =
 * index[o] + k + k/3: nearest 0.75x, from the row's start or, nearest-exact, its second
 * pixel): the group's 72 output values are input values f + 3*(f/9) from its first,
 * so each of its nine 8-value stores is one 8-value load, or two blended where its
 * values cross a skipped pixel (16 loads, 7 blends a group, no lane permutations),
 * every load within the group's input pixels. A group's 24 indices are checked four
 * at a time (AVX2 compares of the 64-bit indices: index loads and scalar compares a
 * pixel cost ~0.3 ms of the 3 ms of 2048² -> 1536², one thread). The groups start at
 * the first of the row's first 3 pixels where one fits; the pixels before it are moved
 * one by one (SSE2). Returns the first output not done (o: no group fits there). */
CRESIZE_AVX2 static Py_ssize_t cresize_select_runs3_f32_avx2(float *out, const float *line,
                                                            Py_ssize_t n_in,
                                                            const Py_ssize_t *index,
                                                            Py_ssize_t width, Py_ssize_t o,
                                                            Py_ssize_t o_end, int first)
{
    const __m256 one = _mm256_set1_ps(cresize_one_f32());
    const Py_ssize_t o0 = o;
    Py_ssize_t s, k;
    (void)n_in;  /* a group reads its own pixels only: index[o] ... index[o] + 30 */
    for (s = 0; s < 3; s++) {
        for (k = 1; k < 24 && o0 + s + 24 <= o_end; k++)
            if (index[(o0 + s + k) * width] != index[(o0 + s) * width] + k + k / 3)
                break;
        if (k == 24)
            break;
    }
    if (s == 3)
        return o0;
    if (s)
        cresize_select_f32_sse(out, line, 3, n_in, index, width, NULL, o_end, o0, o0 + s,
                               first);
    o = o0 + s;
    while (o + 24 <= o_end) {
        const Py_ssize_t *idx = index + o * width, i = idx[0];
        const float *p = line + 3 * i;
        float *q = out + 3 * o;
        if (width == 1) {
            /* index[o + k] - i against k + k/3, four at a time */
            const __m256i b = _mm256_set1_epi64x(i);
            __m256i d;
#define CRESIZE_RUNCHECK(K, A, B_, C, D)                                         \
    _mm256_xor_si256(_mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(idx + (K))), b), \
                     _mm256_setr_epi64x(A, B_, C, D))
            d = _mm256_or_si256(CRESIZE_RUNCHECK(0, 0, 1, 2, 4), CRESIZE_RUNCHECK(4, 5, 6, 8, 9));
            d = _mm256_or_si256(d, CRESIZE_RUNCHECK(8, 10, 12, 13, 14));
            d = _mm256_or_si256(d, CRESIZE_RUNCHECK(12, 16, 17, 18, 20));
            d = _mm256_or_si256(d, CRESIZE_RUNCHECK(16, 21, 22, 24, 25));
            d = _mm256_or_si256(d, CRESIZE_RUNCHECK(20, 26, 28, 29, 30));
#undef CRESIZE_RUNCHECK
            if (!_mm256_testz_si256(d, d))
                return o;
        } else {
            for (k = 1; k < 24; k++)
                if (idx[k * width] != i + k + k / 3)
                    return o;
        }
        cresize_runs3_group_f32(q, p, one, first);
        o += 24;
    }
    return o;
}

/* The groups of a pattern the plan found in the x table of 3-value pixels (Sizes.x_run,
 * _kernels._select_run) over outputs o ... o_end - 1, without checking their indices
 * (one index read a group): run 1, the index steps by 2 (groups of 8 pixels,
 * cresize_half3_group_f32; the plan ends the range where a group would read past the
 * row), run 2, runs of 3 input pixels (24 pixels, cresize_runs3_group_f32).
 * Planar rows (C = 1) keep their checked loop: unchecked, (16, 64, 112, 112) -> 56²
 * took 1.35x its CPU time (3.87 against 2.86 ms, one thread), so the plan gives them no
 * pattern (docs/kernels.md, "Tried and left out").
 * Returns the first output not done (the range's tail, shorter than a group). */
CRESIZE_AVX2 static Py_ssize_t cresize_select_run_f32_avx2(float *out, const float *line,
                                                          Py_ssize_t C, int run,
                                                          const Py_ssize_t *index,
                                                          Py_ssize_t width, Py_ssize_t o,
                                                          Py_ssize_t o_end, int first)
{
    const __m256 one = _mm256_set1_ps(cresize_one_f32());
    if (run == 2 && C == 3) {
        for (; o + 24 <= o_end; o += 24)
            cresize_runs3_group_f32(out + 3 * o, line + 3 * index[o * width], one, first);
    } else if (run == 1 && C == 3) {
        for (; o + 8 <= o_end; o += 8)
            cresize_half3_group_f32(out + 3 * o, line + 3 * index[o * width], one, first);
    }
    return o;
}

/* Outputs o ... o_end - 1 of 3-value float32 pixels with any index (0.75x, x1/3, ...):
 * groups of 8 pixels a ... h written by three 8-value stores, each 4-value block of them
 * blended from two 16-byte loads placed so that the pixels' values fall in its lanes
 * ([a0 a1 a2 b0] from a and b - 3, [b1 b2 c0 c1] from b + 1 and c - 2, [c2 d0 d1 d2]
 * from c + 2 and d - 1, the same for e ... h) instead of eight overlapping 16-byte
 * stores. A load reaches at most one value before its pixel (b ... d, f ... h: index
 * >= 1) or past it (a ... c, e ... g: index <= n_in - 2); a group whose indices do not
 * allow that (a row's ends) is moved pixel by pixel (AVX2). */
CRESIZE_AVX2 static void cresize_select3_f32_avx2(float *out, const float *line, Py_ssize_t n_in,
                                                 const Py_ssize_t *index, Py_ssize_t width,
                                                 Py_ssize_t o, Py_ssize_t o_end, int first)
{
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(cresize_one_f32());
    for (; o + 8 <= o_end; o += 8) {
        const Py_ssize_t *idx = index + o * width, hi = n_in - 2;
        const Py_ssize_t ia = idx[0], ib = idx[width], ic = idx[2 * width], id = idx[3 * width];
        const Py_ssize_t ie = idx[4 * width], i_f = idx[5 * width], ig = idx[6 * width];
        const Py_ssize_t ih = idx[7 * width];
        const float *a = line + 3 * ia, *b = line + 3 * ib, *c = line + 3 * ic;
        const float *d = line + 3 * id, *e = line + 3 * ie, *f = line + 3 * i_f;
        const float *g = line + 3 * ig, *h = line + 3 * ih;
        float *q = out + 3 * o;
        __m256 v[3];
        Py_ssize_t k;
        if (ia > hi || ib < 1 || ib > hi || ic < 1 || ic > hi || id < 1 || ie > hi || i_f < 1
            || i_f > hi || ig < 1 || ig > hi || ih < 1) {
            cresize_select_f32_sse(out, line, 3, n_in, index, width, NULL, o_end, o, o + 8,
                                   first);
            continue;
        }
#define CRESIZE_BLEND3(P, S, Q, T, M) _mm_blend_ps(_mm_loadu_ps((P) + (S)), _mm_loadu_ps((Q) + (T)), M)
        v[0] = _mm256_set_m128(CRESIZE_BLEND3(b, 1, c, -2, 12), CRESIZE_BLEND3(a, 0, b, -3, 8));
        v[1] = _mm256_set_m128(CRESIZE_BLEND3(e, 0, f, -3, 8), CRESIZE_BLEND3(c, 2, d, -1, 14));
        v[2] = _mm256_set_m128(CRESIZE_BLEND3(g, 2, h, -1, 14), CRESIZE_BLEND3(f, 1, g, -2, 12));
#undef CRESIZE_BLEND3
        for (k = 0; k < 3; k++)
            _mm256_storeu_ps(q + 8 * k,
                             CRESIZE_SELECT_PS256(v[k]));
    }
    cresize_select_f32_sse(out, line, 3, n_in, index, width, NULL, o_end, o, o_end, first);
}

/* Outputs o ... o_end - 1 of 4-value float32 pixels with any index: two pixels (two
 * 16-byte loads) a 32-byte store (AVX2), half the stores of a pixel a store. */
CRESIZE_AVX2 static void cresize_select4_f32_avx2(float *out, const float *line, Py_ssize_t n_in,
                                                 const Py_ssize_t *index, Py_ssize_t width,
                                                 Py_ssize_t o, Py_ssize_t o_end, int first)
{
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(cresize_one_f32());
    for (; o + 2 <= o_end; o += 2) {
        __m256 v = _mm256_loadu2_m128(line + 4 * index[(o + 1) * width],
                                      line + 4 * index[o * width]);
        _mm256_storeu_ps(out + 4 * o, CRESIZE_SELECT_PS256(v));
    }
    cresize_select_f32_sse(out, line, 4, n_in, index, width, NULL, o_end, o, o_end, first);
}
#endif

/* A row of n_out pixels of C = 1 ... 4 float32 values (see above); `count` NULL (a
 * selection) or the table's counts (at most 1: a pixel without a tap is 0). Not inlined:
 * inside the kernels' row loop, the 1-value loop kept its output pointer on the stack
 * (a third load a value: 0.28 against 0.18 ms, 2048² -> 683², one thread). */
CRESIZE_NOINLINE static void cresize_select_f32(float *out, const float *line, Py_ssize_t C, Py_ssize_t n_in,
                               const Py_ssize_t *index, Py_ssize_t width,
                               const Py_ssize_t *count, Py_ssize_t n_out, int first,
                               int run, Py_ssize_t run_first, Py_ssize_t run_end)
{
#if CRESIZE_SSE
    if (cresize_simd_level >= 1) {
        Py_ssize_t o = 0;
#if CRESIZE_X86_DISPATCH
        if (run && !count && cresize_simd_level >= 2 && C == 3) {
            /* the plan's pattern over run_first ... run_end - 1 (no index checks), the
               pixels before and after it as a row of any index */
            cresize_select3_f32_avx2(out, line, n_in, index, width, 0, run_first, first);
            o = cresize_select_run_f32_avx2(out, line, 3, run, index, width, run_first,
                                            run_end, first);
            cresize_select3_f32_avx2(out, line, n_in, index, width, o, n_out, first);
            return;
        }
#endif
        if (C == 1 && count) {
            /* groups that alternate a tap and none from the row's start (the adjoint of
               x0.5), then the values one by one */
            o = cresize_spread_f32_sse(out, line, n_in, index, width, count, 0, n_out, first);
        }
#if CRESIZE_X86_DISPATCH
        else if (C == 1 && cresize_simd_level >= 2) {
            /* the groups that step by 2 from the row's start (x0.5 steps by 2 through
               the whole row), then the values one by one: a row whose index does not
               step by 2 at its start (other factors) checks one group only */
            o = cresize_select_half_f32_avx2(out, line, n_in, index, width, 0, n_out, first);
        } else if (C == 3 && !count && cresize_simd_level >= 2) {
            /* the same for 3-value pixels (x0.5 of RGB), then groups of any index */
            o = cresize_select_half3_f32_avx2(out, line, n_in, index, width, 0, n_out, first);
            if (!o) /* runs of 3 input pixels (0.75x) */
                o = cresize_select_runs3_f32_avx2(out, line, n_in, index, width, 0, n_out,
                                                  first);
            cresize_select3_f32_avx2(out, line, n_in, index, width, o, n_out, first);
            return;
        } else if (C == 4 && !count && cresize_simd_level >= 2) {
            cresize_select4_f32_avx2(out, line, n_in, index, width, 0, n_out, first);
            return;
        }
#endif
        cresize_select_f32_sse(out, line, C, n_in, index, width, count, n_out, o, n_out, first);
        return;
    }
#endif
    (void)n_in;
    (void)run;
    (void)run_first;
    (void)run_end;
    cresize_select_f32_c(out, line, C, index, width, count, 0, n_out, first);
}

/* A row of n_out pixels of C = 1 ... 4 float64 values (see above). */
CRESIZE_NOINLINE static void cresize_select_f64(double *out, const double *line, Py_ssize_t C,
                               const Py_ssize_t *index, Py_ssize_t width,
                               const Py_ssize_t *count, Py_ssize_t n_out, int first)
{
#if CRESIZE_SSE
    if (cresize_simd_level >= 1) {
        cresize_select_f64_sse(out, line, C, index, width, count, 0, n_out, first);
        return;
    }
#endif
    cresize_select_f64_c(out, line, C, index, width, count, 0, n_out, first);
}

#endif
