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

/* 512-bit integer loops (AVX512BW, with AVX-512F): whether the CPU has them (read with
 * the level, cresize_simd_best_rows in _simd_rows.h) and whether they run: only at
 * level 3, so CRESIZE_SIMD=avx2|sse2|none turns them off (cresize_simd_set). */
static int cresize_cpu_avx512bw = 0;
static int cresize_simd_avx512bw = 0;

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

static void cresize_simd_set(int level)
{
    cresize_simd_level = level;
    cresize_simd_avx512bw = level >= 3 && cresize_cpu_avx512bw;
}

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

/* Pixels o_begin ... o_end - 1 of a row of n_out. Four pixels with the same tap count
 * go together, four independent sums (so the additions of one pixel need not wait
 * for each other's latency); each pixel's own sum is the same sequence of operations.
 * Stores go in pixel order, so the 4th value a 3-value pixel writes is rewritten by
 * the next pixel. */
#define CRESIZE_PIXEL_LOOP(ACC, T, VEC, ZERO, SET1, ADD, MUL, LOAD, STORE)       \
    Py_ssize_t o = o_begin;                                                      \
    while (o < o_end) {                                                          \
        const Py_ssize_t *idx = index + o * width;                               \
        const ACC *w = weight + o * width;                                       \
        Py_ssize_t cnt = count[o], k;                                            \
        if (o + 4 <= o_end && count[o + 1] == cnt && count[o + 2] == cnt         \
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

static inline __m128 cresize_load4_s8(const signed char *p)
{
    int v;
    __m128i b;
    memcpy(&v, p, 4);
    b = _mm_cvtsi32_si128(v);
    b = _mm_unpacklo_epi16(_mm_unpacklo_epi8(b, b), _mm_unpacklo_epi8(b, b));
    return _mm_cvtepi32_ps(_mm_srai_epi32(b, 24));  /* each byte to the top, sign-shifted */
}

#define CRESIZE_SSE_PIXELS(NAME, T, CH, LOAD)                                    \
    static inline void NAME(float *out, const T *line, Py_ssize_t n_in,          \
                            const Py_ssize_t *index, const float *weight,        \
                            const Py_ssize_t *count, Py_ssize_t width,           \
                            Py_ssize_t n_out, Py_ssize_t o_begin,                \
                            Py_ssize_t o_end)                                    \
    {                                                                            \
        const Py_ssize_t C = CH;                                                 \
        CRESIZE_PIXEL_LOOP(float, T, __m128, _mm_setzero_ps, _mm_set1_ps,       \
                           _mm_add_ps, _mm_mul_ps, LOAD, _mm_storeu_ps)          \
    }

CRESIZE_SSE_PIXELS(cresize_pixels3_f32_sse, float, 3, cresize_load4_f32)
CRESIZE_SSE_PIXELS(cresize_pixels4_f32_sse, float, 4, cresize_load4_f32)
CRESIZE_SSE_PIXELS(cresize_pixels3_u8_sse, unsigned char, 3, cresize_load4_u8)
CRESIZE_SSE_PIXELS(cresize_pixels4_u8_sse, unsigned char, 4, cresize_load4_u8)
CRESIZE_SSE_PIXELS(cresize_pixels3_s8_sse, signed char, 3, cresize_load4_s8)
CRESIZE_SSE_PIXELS(cresize_pixels4_s8_sse, signed char, 4, cresize_load4_s8)
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
                                  Py_ssize_t n_out, Py_ssize_t o_begin,          \
                                  Py_ssize_t o_end)                              \
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

/* AVX2, float32 sums: eight pixels of C = 1 ... 4 values at once, as C registers of
 * eight output values ("value lanes"). Lane j of register r holds value q = 8r + j
 * of the group, channel q % C of pixel q / C. Where the eight pixels' taps are whole
 * contiguous windows (start[o] >= 0: tap k reads input pixel start[o] + k, and every
 * pixel has `width` taps), lane j reads input value C * start[o + q / C] + q % C + C * k
 * at tap k: the same pattern at every tap, shifted by C * k. So register r loads the
 * values its lanes need with one load per tap (8 float32, or 16 of them, or 16 bytes)
 * and permutes them into lanes (vpermps / pshufb), and the eight pixels' weights of
 * tap k are permuted into lanes alike. Each lane then does the scalar operations of
 * its output value: a product, then a sum from 0, tap after tap.
 *
 * The permutations depend only on the starts relative to the group's first
 * (`rel`), which repeat from group to group at integer scale factors: they are
 * worked out again only when `rel` changes. A group whose pixels are not all whole
 * windows, whose values do not fit one load, or whose loads would pass the end of
 * the row goes through the per-pixel loop (same bits). */
#define CRESIZE_F32 0       /* float32 values, each register's span within 8 */
#define CRESIZE_F32_WIDE 1  /* float32 values, span within 16: two loads, blended */
#define CRESIZE_U8 2        /* uint8 values, span within 16 bytes */
#define CRESIZE_S8 3        /* int8 values, span within 16 bytes */

typedef struct {
    __m256i pix[4], chan[4], wpix[4];  /* lane -> pixel, channel, its weight's lane */
    __m256i wstep;                     /* pixel m -> m * width (weight gathers) */
    __m256i perm[4];                   /* lane -> value of the register's load */
    __m128i bperm[4];                  /* the same, as pshufb bytes */
    __m256 hi[4];                      /* CRESIZE_F32_WIDE: lanes from the second load */
    __m256i rela, relb;                /* starts of the 8 pixels minus the first (int64) */
    Py_ssize_t first[4];               /* register r's load: from value C * start[o] + first */
    Py_ssize_t reach;                  /* values read past C * start[o] at the last tap */
    int kind, valid;                   /* valid: 1 set up, -1 rel known not to fit, 0 none */
} cresize_group;

/* Lane j of register r of a group of 8 pixels of C values (C = 1 ... 4; rows r >= C
 * unused): its pixel (8r + j) / C and channel (8r + j) % C. */
static const int cresize_lane_pixel[5][4][8] = {
    {{0}},
    {{0, 1, 2, 3, 4, 5, 6, 7}, {7, 7, 7, 7, 7, 7, 7, 7},
     {7, 7, 7, 7, 7, 7, 7, 7}, {7, 7, 7, 7, 7, 7, 7, 7}},
    {{0, 0, 1, 1, 2, 2, 3, 3}, {4, 4, 5, 5, 6, 6, 7, 7},
     {7, 7, 7, 7, 7, 7, 7, 7}, {7, 7, 7, 7, 7, 7, 7, 7}},
    {{0, 0, 0, 1, 1, 1, 2, 2}, {2, 3, 3, 3, 4, 4, 4, 5},
     {5, 5, 6, 6, 6, 7, 7, 7}, {7, 7, 7, 7, 7, 7, 7, 7}},
    {{0, 0, 0, 0, 1, 1, 1, 1}, {2, 2, 2, 2, 3, 3, 3, 3},
     {4, 4, 4, 4, 5, 5, 5, 5}, {6, 6, 6, 6, 7, 7, 7, 7}}};
static const int cresize_lane_channel[5][4][8] = {
    {{0}},
    {{0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}},
    {{0, 1, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 1, 0, 1},
     {0, 1, 0, 1, 0, 1, 0, 1}, {0, 1, 0, 1, 0, 1, 0, 1}},
    {{0, 1, 2, 0, 1, 2, 0, 1}, {2, 0, 1, 2, 0, 1, 2, 0},
     {1, 2, 0, 1, 2, 0, 1, 2}, {0, 1, 2, 0, 1, 2, 0, 1}},
    {{0, 1, 2, 3, 0, 1, 2, 3}, {0, 1, 2, 3, 0, 1, 2, 3},
     {0, 1, 2, 3, 0, 1, 2, 3}, {0, 1, 2, 3, 0, 1, 2, 3}}};

/* The lane of pixel m in cresize_group_run's weights of one tap: the transposes for 2
 * and 4 taps leave pixels 0, 1, 4, 5, 2, 3, 6, 7 and 0, 2, 4, 6, 1, 3, 5, 7 in lanes
 * 0 ... 7; one tap (a load) and the gather keep them in order. */
static const int cresize_weight_lane[3][8] = {
    {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 4, 5, 2, 3, 6, 7}, {0, 4, 1, 5, 2, 6, 3, 7}};

/* The starts st[0..7] minus st[0], as two vectors of four int64 (*ra, *rb), and
 * whether g holds a pattern (valid) and it is theirs: a group of 8 pixels that takes
 * g's lanes (CRESIZE_AVX2_ROW's groups, and its row-end groups). */
CRESIZE_AVX2 static inline __attribute__((always_inline)) int
cresize_group_same(const cresize_group *g, const Py_ssize_t *st, __m256i *ra, __m256i *rb)
{
    __m256i s = _mm256_set1_epi64x(st[0]);
    *ra = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)st), s);
    *rb = _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(st + 4)), s);
    return g->valid
        && _mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi64(*ra, g->rela),
                                                 _mm256_cmpeq_epi64(*rb, g->relb))) == -1;
}

CRESIZE_AVX2 static void cresize_group_init(cresize_group *g, int C, Py_ssize_t width)
{
    int step[8], j, r;
    __m256i where = _mm256_loadu_si256(
        (const __m256i *)cresize_weight_lane[width == 2 ? 1 : width == 4 ? 2 : 0]);
    for (r = 0; r < C; r++) {
        g->pix[r] = _mm256_loadu_si256((const __m256i *)cresize_lane_pixel[C][r]);
        g->chan[r] = _mm256_loadu_si256((const __m256i *)cresize_lane_channel[C][r]);
        g->wpix[r] = _mm256_permutevar8x32_epi32(where, g->pix[r]);
    }
    for (j = 0; j < 8; j++)
        step[j] = (int)(j * width);
    g->wstep = _mm256_loadu_si256((const __m256i *)step);
    g->valid = 0;
}

/* The group's starts st[0..7] (rel = st - st[0] as two vectors of four int64): 0 when
 * they are not whole windows at or after the first one within 2**24 values; else they
 * are recorded in g (valid -1 until the caller finds the spans fit) and *rel is
 * C * rel as eight int32 lanes. */
CRESIZE_AVX2 static int cresize_group_rel(cresize_group *g, const Py_ssize_t *st, __m256i rela,
                                          __m256i relb, int C, __m256i *rel)
{
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    int m;
    g->valid = 0;
    for (m = 0; m < 8; m++)
        if (st[m] < st[0] || st[m] - st[0] > (1 << 24))
            return 0;
    g->rela = rela;
    g->relb = relb;
    g->valid = -1;
    *rel = _mm256_permute2x128_si256(_mm256_permutevar8x32_epi32(rela, even),
                                     _mm256_permutevar8x32_epi32(relb, even), 0x20);
    *rel = _mm256_mullo_epi32(*rel, _mm256_set1_epi32(C));
    return 1;
}

/* Work out the permutations for starts st[0..7], rel = st - st[0] as two vectors of
 * four int64; 0 when the group cannot take the lanes path. `bytes`: CRESIZE_U8 or
 * CRESIZE_S8 for 8-bit values, else 0. */
CRESIZE_AVX2 static int cresize_group_setup(cresize_group *g, const Py_ssize_t *st, __m256i rela,
                                            __m256i relb, int C, Py_ssize_t width, int bytes)
{
    __m256i rel, off[4];
    int r, lim, wide = 0;
    if (!cresize_group_rel(g, st, rela, relb, C, &rel))
        return 0;
    for (r = 0; r < C; r++) {
        __m256i lo;
        off[r] = _mm256_add_epi32(_mm256_permutevar8x32_epi32(rel, g->pix[r]), g->chan[r]);
        lo = _mm256_min_epi32(off[r], _mm256_permute2x128_si256(off[r], off[r], 0x01));
        lo = _mm256_min_epi32(lo, _mm256_shuffle_epi32(lo, 0x4E));
        lo = _mm256_min_epi32(lo, _mm256_shuffle_epi32(lo, 0xB1));
        g->first[r] = _mm256_cvtsi256_si32(lo);  /* the smallest value the lanes read */
        off[r] = _mm256_sub_epi32(off[r], lo);
        if (_mm256_movemask_ps(
                _mm256_castsi256_ps(_mm256_sub_epi32(_mm256_set1_epi32(7), off[r]))))
            wide = 1;
        if (_mm256_movemask_ps(
                _mm256_castsi256_ps(_mm256_sub_epi32(_mm256_set1_epi32(15), off[r]))))
            return 0;
        if (wide && C >= 3)  /* measured slower than a register per pixel */
            return 0;
    }
    if (bytes) {
        g->kind = bytes;
        lim = 16;
    } else {
        g->kind = wide ? CRESIZE_F32_WIDE : CRESIZE_F32;
        lim = wide ? 16 : 8;
    }
    g->reach = 0;
    for (r = 0; r < C; r++) {
        __m256i p = _mm256_packus_epi32(off[r], off[r]);
        p = _mm256_packus_epi16(p, p);
        g->perm[r] = off[r];
        g->bperm[r] = _mm_unpacklo_epi32(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
        g->hi[r] = _mm256_castsi256_ps(_mm256_slli_epi32(off[r], 28));
        if (g->first[r] + C * (width - 1) + lim > g->reach)
            g->reach = g->first[r] + C * (width - 1) + lim;
    }
    g->valid = 1;
    return 1;
}

/* Register r's 8 lanes of values at tap k: the load at `at`, permuted. `end` > 0 (a
 * row's last group, CRESIZE_AVX2_ROW): the row's values, a load that would pass them
 * taken back to end there, the permutation shifted by as much (every value the lanes
 * read is in the row, so the shifted offsets stay within the load). */
CRESIZE_AVX2 static inline __m256 cresize_group_values(const void *line, Py_ssize_t at, int kind,
                                                       const cresize_group *g, int r,
                                                       Py_ssize_t end)
{
    Py_ssize_t span = kind == CRESIZE_F32 ? 8 : 16, back = 0;
    if (end && at + span > end) {
        back = at + span - end;
        at = end - span;
    }
    if (kind == CRESIZE_F32)
        return _mm256_permutevar8x32_ps(
            _mm256_loadu_ps((const float *)line + at),
            end ? _mm256_add_epi32(g->perm[r], _mm256_set1_epi32((int)back)) : g->perm[r]);
    if (kind == CRESIZE_F32_WIDE) {
        const float *p = (const float *)line + at;
        __m256i off = end ? _mm256_add_epi32(g->perm[r], _mm256_set1_epi32((int)back))
                          : g->perm[r];
        __m256 hi = end ? _mm256_castsi256_ps(_mm256_slli_epi32(off, 28)) : g->hi[r];
        return _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_loadu_ps(p), off),
                                _mm256_permutevar8x32_ps(_mm256_loadu_ps(p + 8), off), hi);
    }
    {
        __m128i b = _mm_shuffle_epi8(
            _mm_loadu_si128((const __m128i *)((const unsigned char *)line + at)),
            end ? _mm_add_epi8(g->bperm[r], _mm_set1_epi8((char)back)) : g->bperm[r]);
        if (kind == CRESIZE_U8)
            return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(b));
        return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b));
    }
}

/* The group of 8 pixels whose first value is out[0]; its loads start at line[base]
 * (`end`: as for cresize_group_values). */
CRESIZE_AVX2 static inline __attribute__((always_inline)) void
cresize_group_run(float *out, const void *line, Py_ssize_t base, const float *w,
                  Py_ssize_t width, const int C, const int kind, const cresize_group *g,
                  Py_ssize_t end)
{
    __m256 acc[4], wk;
    Py_ssize_t k;
    int r;
    for (r = 0; r < C; r++)
        acc[r] = _mm256_setzero_ps();
#define CRESIZE_GROUP_TAP(WK, K)                                                 \
    for (r = 0; r < C; r++)                                                      \
        acc[r] = _mm256_add_ps(                                                  \
            acc[r], _mm256_mul_ps(_mm256_permutevar8x32_ps(WK, g->wpix[r]),      \
                                  cresize_group_values(line, base + g->first[r] + C * (K), \
                                                       kind, g, r, end)));
    if (width == 2) {
        __m256 a = _mm256_loadu_ps(w), b = _mm256_loadu_ps(w + 8);
        CRESIZE_GROUP_TAP(_mm256_shuffle_ps(a, b, 0x88), 0)
        CRESIZE_GROUP_TAP(_mm256_shuffle_ps(a, b, 0xDD), 1)
    } else if (width == 4) {
        __m256 a = _mm256_loadu_ps(w), b = _mm256_loadu_ps(w + 8);
        __m256 c = _mm256_loadu_ps(w + 16), d = _mm256_loadu_ps(w + 24);
        __m256 t0 = _mm256_unpacklo_ps(a, b), t1 = _mm256_unpackhi_ps(a, b);
        __m256 t2 = _mm256_unpacklo_ps(c, d), t3 = _mm256_unpackhi_ps(c, d);
        CRESIZE_GROUP_TAP(_mm256_shuffle_ps(t0, t2, 0x44), 0)
        CRESIZE_GROUP_TAP(_mm256_shuffle_ps(t0, t2, 0xEE), 1)
        CRESIZE_GROUP_TAP(_mm256_shuffle_ps(t1, t3, 0x44), 2)
        CRESIZE_GROUP_TAP(_mm256_shuffle_ps(t1, t3, 0xEE), 3)
    } else if (width == 1) {
        CRESIZE_GROUP_TAP(_mm256_loadu_ps(w), 0)
    } else {
        for (k = 0; k < width; k++) {
            wk = _mm256_i32gather_ps(w + k, g->wstep, 4);
            CRESIZE_GROUP_TAP(wk, k)
        }
    }
#undef CRESIZE_GROUP_TAP
    for (r = 0; r < C; r++)
        _mm256_storeu_ps(out + 8 * r, acc[r]);
}

/* Which of cresize_group_run's loads a float32-sum group takes (`bytes`: 8-bit values). */
CRESIZE_AVX2 static inline __attribute__((always_inline)) void
cresize_group_run_any(float *out, const void *line, Py_ssize_t base, const float *w,
                      Py_ssize_t width, const int C, const int bytes, const cresize_group *g,
                      Py_ssize_t end)
{
    if (bytes)
        cresize_group_run(out, line, base, w, width, C, bytes, g, end);
    else if (g->kind == CRESIZE_F32)
        cresize_group_run(out, line, base, w, width, C, CRESIZE_F32, g, end);
    else
        cresize_group_run(out, line, base, w, width, C, CRESIZE_F32_WIDE, g, end);
}

/* A row of n_out pixels of CH values: groups of 8 by lanes where they can, the pixels
 * between them by FALLBACK, the per-pixel loop; returns the first of the row's last
 * pixels, which the caller's per-pixel loop does (inlined there, it measured faster).
 * Lanes start only where a group's pattern repeats in the next group (with fewer than
 * 16 pixels left, in the row's last group), and stop after two set-ups in a row
 * (patterns that keep changing cost more than they save). The
 * groups start at the row's first whole window (within its first 8 pixels: an edge
 * pixel whose window is clamped does not push its 7 neighbours to the per-pixel
 * loop), and the groups whose loads would pass the row's end (the last ones, when the
 * pattern is already set up) load the row's last values instead, their permutation
 * shifted as much; the last one ends at the row's last whole window (redoing pixels of
 * the group before it: the same bits). So on short rows (CNN feature maps: 56 or 112
 * pixels) only the clamped edge pixels take the per-pixel loop, not two groups of 8.
 * STATE: the group's state type, GROUP its cresize_group (`s_` or `s_.g`), INIT /
 * SETUP / RUN its functions; KIND: CRESIZE_U8 / CRESIZE_S8 for 8-bit values (float32
 * sums, 0 for float32 values), 1 for signed 16-bit values (float64 sums). */
#define CRESIZE_AVX2_ROW(NAME, ACC, T, CH, KIND, STATE, GROUP, INIT, SETUP, RUN, FALLBACK) \
    CRESIZE_AVX2 static Py_ssize_t NAME(ACC *out, const T *line, Py_ssize_t n_in, \
                                        const Py_ssize_t *index, const ACC *weight, \
                                        const Py_ssize_t *count, const Py_ssize_t *start, \
                                        Py_ssize_t width, Py_ssize_t n_out)      \
    {                                                                            \
        STATE s_;                                                                \
        Py_ssize_t o = 0, from = 0; /* pixels from ... o - 1: still to do */     \
        Py_ssize_t e = n_out, o0;                                                \
        int misses = 0; /* set-ups in a row: patterns that keep changing cost more */ \
        /* 3/4-value pixels shrinking: a register per pixel measured faster */   \
        if (n_in < (1 << 24) && (CH < 3 || n_in <= n_out)) {                     \
            INIT(&s_, CH, width);                                                \
            /* groups from the row's first whole window (its edge pixels before), \
               the last one ending at its last whole window (e: one past it) */  \
            while (o < 8 && o < n_out && start[o] < 0)                           \
                o++;                                                             \
            o0 = o;                                                              \
            while (e > 0 && e > n_out - 8 && start[e - 1] < 0)                   \
                e--;                                                             \
            for (; o + 8 <= n_out && misses < 2; o += 8) {                       \
                const Py_ssize_t *st = start + o;                                \
                Py_ssize_t s0 = st[0];                                           \
                __m256i ra, rb;                                                  \
                int same = cresize_group_same(&GROUP, st, &ra, &rb);             \
                if (s0 >= 0 && !same) { /* set up a pattern the next group repeats */ \
                    /* the next group, or in a row of under 16 pixels left the last */ \
                    Py_ssize_t nx = o + 16 <= n_out ? 8 : e - 8 - o;             \
                    if (nx > 0 && o + nx + 8 <= n_out && st[nx] >= 0) {          \
                        __m256i t = _mm256_set1_epi64x(st[nx]);                  \
                        same = _mm256_movemask_epi8(_mm256_and_si256(            \
                                   _mm256_cmpeq_epi64(ra, _mm256_sub_epi64(      \
                                       _mm256_loadu_si256((const __m256i *)(st + nx)), t)), \
                                   _mm256_cmpeq_epi64(rb, _mm256_sub_epi64(      \
                                       _mm256_loadu_si256((const __m256i *)(st + nx + 4)), t)))) \
                               == -1;                                            \
                    }                                                            \
                    if (same)                                                    \
                        same = SETUP(&s_, st, ra, rb, CH, width, KIND) || GROUP.valid; \
                    misses++;                                                    \
                } else                                                           \
                    misses = 0;                                                  \
                if (s0 >= 0 && same && GROUP.valid == 1                          \
                    && CH * s0 + s_.reach <= CH * n_in) {                        \
                    if (from < o) { /* first the pixels before, in order */      \
                        _mm256_zeroupper();                                      \
                        FALLBACK(out, line, n_in, index, weight, count, width, n_out, \
                                 from, o);                                       \
                    }                                                            \
                    RUN(out + CH * o, line, CH * s0, weight + o * width, width, CH, KIND, \
                        &s_, 0);                                                 \
                    from = o + 8;                                                \
                }                                                                \
            }                                                                    \
            if (misses < 2 && GROUP.valid == 1 && from < n_out) {                \
                /* the row's last whole windows: groups of the pattern set up, from  \
                   `from` (or the first whole window, the pixels before it first), \
                   the last one ending at the last window (it may redo pixels     \
                   of the group before it: the same bits), their loads kept in the  \
                   row (cresize_group_values' `end`) */                           \
                Py_ssize_t g;                                                    \
                for (g = from < o0 ? o0 : from; e > from && e >= 8 && CH * n_in >= 16; \
                     g += 8) {                                                   \
                    const Py_ssize_t *st;                                        \
                    Py_ssize_t s0;                                               \
                    __m256i ra, rb;                                              \
                    if (g + 8 > e)                                               \
                        g = e - 8;                                               \
                    st = start + g;                                              \
                    s0 = st[0];                                                  \
                    if (s0 < 0 || !cresize_group_same(&GROUP, st, &ra, &rb))     \
                        break;                                                   \
                    if (from < g) {                                              \
                        _mm256_zeroupper();                                      \
                        FALLBACK(out, line, n_in, index, weight, count, width, n_out, \
                                 from, g);                                       \
                    }                                                            \
                    RUN(out + CH * g, line, CH * s0, weight + g * width, width, CH, KIND, \
                        &s_, CH * n_in);                                         \
                    from = g + 8;                                                \
                    if (from >= e)                                               \
                        break;                                                   \
                }                                                                \
            }                                                                    \
        }                                                                        \
        _mm256_zeroupper(); /* GCC adds none: SSE code after dirty uppers is slow */ \
        return from;                                                             \
    }

#define CRESIZE_AVX2_GROUPS(NAME, T, CH, BYTES, FALLBACK)                        \
    CRESIZE_AVX2_ROW(NAME, float, T, CH, BYTES, cresize_group, s_, cresize_group_init, \
                     cresize_group_setup, cresize_group_run_any, FALLBACK)

CRESIZE_AVX2_GROUPS(cresize_groups3_f32_avx2, float, 3, 0, cresize_pixels3_f32_sse)
CRESIZE_AVX2_GROUPS(cresize_groups4_f32_avx2, float, 4, 0, cresize_pixels4_f32_sse)
CRESIZE_AVX2_GROUPS(cresize_groups3_u8_avx2, unsigned char, 3, CRESIZE_U8, cresize_pixels3_u8_sse)
CRESIZE_AVX2_GROUPS(cresize_groups4_u8_avx2, unsigned char, 4, CRESIZE_U8, cresize_pixels4_u8_sse)
CRESIZE_AVX2_GROUPS(cresize_groups3_s8_avx2, signed char, 3, CRESIZE_S8, cresize_pixels3_s8_sse)
CRESIZE_AVX2_GROUPS(cresize_groups4_s8_avx2, signed char, 4, CRESIZE_S8, cresize_pixels4_s8_sse)

/* 1- and 2-value pixels: groups of 8 by lanes, the rest by the portable loop's sums
 * (each value from 0, tap after tap). */
#define CRESIZE_SCALAR_RANGE(NAME, ACC, T, CH)                                   \
    static void NAME(ACC *out, const T *line, Py_ssize_t n_in,                   \
                     const Py_ssize_t *index, const ACC *weight,                 \
                     const Py_ssize_t *count, Py_ssize_t width, Py_ssize_t n_out, \
                     Py_ssize_t o_begin, Py_ssize_t o_end)                       \
    {                                                                            \
        Py_ssize_t o, k, c;                                                      \
        (void)n_in, (void)n_out;                                                 \
        for (o = o_begin; o < o_end; o++) {                                      \
            const Py_ssize_t *idx = index + o * width;                           \
            const ACC *w = weight + o * width;                                   \
            for (c = 0; c < CH; c++) {                                           \
                ACC acc = 0;                                                     \
                for (k = 0; k < count[o]; k++)                                   \
                    acc = acc + w[k] * line[CH * idx[k] + c];                    \
                out[CH * o + c] = acc;                                           \
            }                                                                    \
        }                                                                        \
    }

CRESIZE_SCALAR_RANGE(cresize_pixels1_f32_c, float, float, 1)
CRESIZE_SCALAR_RANGE(cresize_pixels2_f32_c, float, float, 2)
CRESIZE_SCALAR_RANGE(cresize_pixels1_u8_c, float, unsigned char, 1)
CRESIZE_SCALAR_RANGE(cresize_pixels2_u8_c, float, unsigned char, 2)
CRESIZE_SCALAR_RANGE(cresize_pixels1_s8_c, float, signed char, 1)
CRESIZE_SCALAR_RANGE(cresize_pixels2_s8_c, float, signed char, 2)
CRESIZE_AVX2_GROUPS(cresize_groups1_f32_avx2, float, 1, 0, cresize_pixels1_f32_c)
CRESIZE_AVX2_GROUPS(cresize_groups2_f32_avx2, float, 2, 0, cresize_pixels2_f32_c)
CRESIZE_AVX2_GROUPS(cresize_groups1_u8_avx2, unsigned char, 1, CRESIZE_U8, cresize_pixels1_u8_c)
CRESIZE_AVX2_GROUPS(cresize_groups2_u8_avx2, unsigned char, 2, CRESIZE_U8, cresize_pixels2_u8_c)
CRESIZE_AVX2_GROUPS(cresize_groups1_s8_avx2, signed char, 1, CRESIZE_S8, cresize_pixels1_s8_c)
CRESIZE_AVX2_GROUPS(cresize_groups2_s8_avx2, signed char, 2, CRESIZE_S8, cresize_pixels2_s8_c)

/* AVX2, float64 sums (uint16 and int16 pixels): the same groups of 8 pixels as 2C
 * registers of 4 doubles, half h of the 8 lanes of pattern r = h / 2. A register's
 * lanes read at most 8 consecutive values: one 16-byte load, pshufb, widened to int32
 * and converted (exactly) to double. Its weights come from those of pixels 0-3 or
 * 4-7 of the group (a half never holds both), permuted as pairs of float lanes. */
typedef struct {
    cresize_group g;            /* lane tables, rela / relb, valid */
    __m256i wpair[8];           /* half h: lane -> the float lanes of its weight */
    __m128i bperm[8];           /* half h: the pshufb bytes of its 4 values */
    Py_ssize_t first[8], reach; /* as in cresize_group */
    int wsrc[8];                /* half h: weights of pixels 0-3 (0) or 4-7 (1) */
} cresize_group_d;

CRESIZE_AVX2 static void cresize_group_d_init(cresize_group_d *d, int C, Py_ssize_t width)
{
    static const int order2[4] = {0, 2, 1, 3};  /* W = 2: pixels 0, 2, 1, 3 in lanes */
    int h, i, pair[8];
    cresize_group_init(&d->g, C, width);
    for (h = 0; h < 2 * C; h++) {
        const int *pix = cresize_lane_pixel[C][h / 2] + 4 * (h & 1);
        for (i = 0; i < 4; i++) {
            int lane = width == 2 ? order2[pix[i] & 3] : pix[i] & 3;
            pair[2 * i] = 2 * lane;
            pair[2 * i + 1] = 2 * lane + 1;
        }
        d->wsrc[h] = pix[0] / 4;
        d->wpair[h] = _mm256_loadu_si256((const __m256i *)pair);
    }
}

CRESIZE_AVX2 static int cresize_group_d_setup(cresize_group_d *d, const Py_ssize_t *st,
                                              __m256i rela, __m256i relb, int C,
                                              Py_ssize_t width, int is_signed)
{
    __m256i rel;
    int m, r;
    (void)is_signed;
    if (!cresize_group_rel(&d->g, st, rela, relb, C, &rel))
        return 0;
    d->reach = 0;
    for (r = 0; r < C; r++) {
        __m256i off, lo, v;
        off = _mm256_add_epi32(_mm256_permutevar8x32_epi32(rel, d->g.pix[r]), d->g.chan[r]);
        lo = _mm256_min_epi32(off, _mm256_shuffle_epi32(off, 0x4E));  /* per 4 lanes */
        lo = _mm256_min_epi32(lo, _mm256_shuffle_epi32(lo, 0xB1));
        off = _mm256_sub_epi32(off, lo);
        if (_mm256_movemask_ps(
                _mm256_castsi256_ps(_mm256_sub_epi32(_mm256_set1_epi32(7), off))))
            return 0;
        d->first[2 * r] = _mm256_cvtsi256_si32(lo);
        d->first[2 * r + 1] = _mm256_extract_epi32(lo, 4);
        /* value p -> bytes 2p, 2p + 1 */
        v = _mm256_add_epi32(_mm256_mullo_epi32(off, _mm256_set1_epi32(0x202)),
                             _mm256_set1_epi32(0x100));
        v = _mm256_packus_epi32(v, v);
        d->bperm[2 * r] = _mm256_castsi256_si128(v);
        d->bperm[2 * r + 1] = _mm256_extracti128_si256(v, 1);
        for (m = 2 * r; m < 2 * r + 2; m++)
            if (d->first[m] + C * (width - 1) + 8 > d->reach)
                d->reach = d->first[m] + C * (width - 1) + 8;
    }
    d->g.valid = 1;
    return 1;
}

CRESIZE_AVX2 static inline __attribute__((always_inline)) void
cresize_group_d_run(double *out, const void *line, Py_ssize_t base, const double *w,
                    Py_ssize_t width, const int C, const int is_signed, const cresize_group_d *d,
                    Py_ssize_t end)
{
    __m256d acc[8], wa, wb;
    Py_ssize_t k;
    int h;
    for (h = 0; h < 2 * C; h++)
        acc[h] = _mm256_setzero_pd();
#define CRESIZE_GROUP_D_TAP(WA, WB, K)                                           \
    for (h = 0; h < 2 * C; h++) {                                                \
        __m256d wv = _mm256_castps_pd(_mm256_permutevar8x32_ps(                  \
            _mm256_castpd_ps(d->wsrc[h] ? (WB) : (WA)), d->wpair[h]));           \
        Py_ssize_t at_ = base + d->first[h] + C * (K), back_ = 0;                \
        __m128i b;                                                               \
        if (end && at_ + 8 > end) { /* as cresize_group_values: 8 values */      \
            back_ = at_ + 8 - end;                                               \
            at_ = end - 8;                                                       \
        }                                                                        \
        b = _mm_shuffle_epi8(                                                    \
            _mm_loadu_si128((const __m128i *)((const short *)line + at_)),       \
            end ? _mm_add_epi8(d->bperm[h], _mm_set1_epi8((char)(2 * back_))) : d->bperm[h]); \
        __m256d x = _mm256_cvtepi32_pd(is_signed ? _mm_cvtepi16_epi32(b)         \
                                                 : _mm_cvtepu16_epi32(b));       \
        acc[h] = _mm256_add_pd(acc[h], _mm256_mul_pd(wv, x));                    \
    }
    if (width == 1) {
        CRESIZE_GROUP_D_TAP(_mm256_loadu_pd(w), _mm256_loadu_pd(w + 4), 0)
    } else if (width == 2) {
        __m256d a = _mm256_loadu_pd(w), b = _mm256_loadu_pd(w + 4);
        __m256d c = _mm256_loadu_pd(w + 8), e = _mm256_loadu_pd(w + 12);
        CRESIZE_GROUP_D_TAP(_mm256_unpacklo_pd(a, b), _mm256_unpacklo_pd(c, e), 0)
        CRESIZE_GROUP_D_TAP(_mm256_unpackhi_pd(a, b), _mm256_unpackhi_pd(c, e), 1)
    } else if (width == 4) {
        __m256d t0 = _mm256_unpacklo_pd(_mm256_loadu_pd(w), _mm256_loadu_pd(w + 4));
        __m256d t1 = _mm256_unpackhi_pd(_mm256_loadu_pd(w), _mm256_loadu_pd(w + 4));
        __m256d t2 = _mm256_unpacklo_pd(_mm256_loadu_pd(w + 8), _mm256_loadu_pd(w + 12));
        __m256d t3 = _mm256_unpackhi_pd(_mm256_loadu_pd(w + 8), _mm256_loadu_pd(w + 12));
        __m256d u0 = _mm256_unpacklo_pd(_mm256_loadu_pd(w + 16), _mm256_loadu_pd(w + 20));
        __m256d u1 = _mm256_unpackhi_pd(_mm256_loadu_pd(w + 16), _mm256_loadu_pd(w + 20));
        __m256d u2 = _mm256_unpacklo_pd(_mm256_loadu_pd(w + 24), _mm256_loadu_pd(w + 28));
        __m256d u3 = _mm256_unpackhi_pd(_mm256_loadu_pd(w + 24), _mm256_loadu_pd(w + 28));
        CRESIZE_GROUP_D_TAP(_mm256_permute2f128_pd(t0, t2, 0x20),
                            _mm256_permute2f128_pd(u0, u2, 0x20), 0)
        CRESIZE_GROUP_D_TAP(_mm256_permute2f128_pd(t1, t3, 0x20),
                            _mm256_permute2f128_pd(u1, u3, 0x20), 1)
        CRESIZE_GROUP_D_TAP(_mm256_permute2f128_pd(t0, t2, 0x31),
                            _mm256_permute2f128_pd(u0, u2, 0x31), 2)
        CRESIZE_GROUP_D_TAP(_mm256_permute2f128_pd(t1, t3, 0x31),
                            _mm256_permute2f128_pd(u1, u3, 0x31), 3)
    } else {
        __m128i step = _mm_setr_epi32(0, (int)width, (int)(2 * width), (int)(3 * width));
        for (k = 0; k < width; k++) {
            wa = _mm256_i32gather_pd(w + k, step, 8);
            wb = _mm256_i32gather_pd(w + 4 * width + k, step, 8);
            CRESIZE_GROUP_D_TAP(wa, wb, k)
        }
    }
#undef CRESIZE_GROUP_D_TAP
    for (h = 0; h < 2 * C; h++)
        _mm256_storeu_pd(out + 4 * h, acc[h]);
}

#define CRESIZE_AVX2_GROUPS_D(NAME, T, CH, SIGNED, FALLBACK)                     \
    CRESIZE_AVX2_ROW(NAME, double, T, CH, SIGNED, cresize_group_d, s_.g,        \
                     cresize_group_d_init, cresize_group_d_setup, cresize_group_d_run, \
                     FALLBACK)

CRESIZE_SCALAR_RANGE(cresize_pixels1_u16_c, double, unsigned short, 1)
CRESIZE_SCALAR_RANGE(cresize_pixels2_u16_c, double, unsigned short, 2)
CRESIZE_SCALAR_RANGE(cresize_pixels1_s16_c, double, short, 1)
CRESIZE_SCALAR_RANGE(cresize_pixels2_s16_c, double, short, 2)
CRESIZE_AVX2_GROUPS_D(cresize_groups1_u16_avx2, unsigned short, 1, 0, cresize_pixels1_u16_c)
CRESIZE_AVX2_GROUPS_D(cresize_groups2_u16_avx2, unsigned short, 2, 0, cresize_pixels2_u16_c)
CRESIZE_AVX2_GROUPS_D(cresize_groups1_s16_avx2, short, 1, 1, cresize_pixels1_s16_c)
CRESIZE_AVX2_GROUPS_D(cresize_groups2_s16_avx2, short, 2, 1, cresize_pixels2_s16_c)

#define CRESIZE_LANES_12(NAME, ACC, T, G1, G2, F1, F2)                           \
    static inline int NAME(ACC *out, const T *line, Py_ssize_t channels,         \
                           Py_ssize_t n_in, const Py_ssize_t *index,             \
                           const ACC *weight, const Py_ssize_t *count,           \
                           const Py_ssize_t *start, Py_ssize_t width,            \
                           Py_ssize_t n_out)                                     \
    {                                                                            \
        if (cresize_simd_level < 2)                                              \
            return 0;                                                            \
        if (channels == 1)                                                       \
            F1(out, line, n_in, index, weight, count, width, n_out,              \
               G1(out, line, n_in, index, weight, count, start, width, n_out), n_out); \
        else                                                                     \
            F2(out, line, n_in, index, weight, count, width, n_out,              \
               G2(out, line, n_in, index, weight, count, start, width, n_out), n_out); \
        return 1;                                                                \
    }
#else
#define CRESIZE_LANES_12(NAME, ACC, T, G1, G2, F1, F2)                           \
    static inline int NAME(ACC *out, const T *line, Py_ssize_t channels,         \
                           Py_ssize_t n_in, const Py_ssize_t *index,             \
                           const ACC *weight, const Py_ssize_t *count,           \
                           const Py_ssize_t *start, Py_ssize_t width,            \
                           Py_ssize_t n_out)                                     \
    {                                                                            \
        (void)out, (void)line, (void)channels, (void)n_in, (void)index;          \
        (void)weight, (void)count, (void)start, (void)width, (void)n_out;        \
        return 0;                                                                \
    }
#endif

/* Rows of 1- and 2-value pixels: AVX2 lanes only (1 when done, else 0). */
CRESIZE_LANES_12(cresize_lanes12_f32, float, float, cresize_groups1_f32_avx2,
                 cresize_groups2_f32_avx2,
                 cresize_pixels1_f32_c, cresize_pixels2_f32_c)
CRESIZE_LANES_12(cresize_lanes12_u8, float, unsigned char, cresize_groups1_u8_avx2,
                 cresize_groups2_u8_avx2,
                 cresize_pixels1_u8_c, cresize_pixels2_u8_c)
CRESIZE_LANES_12(cresize_lanes12_s8, float, signed char, cresize_groups1_s8_avx2,
                 cresize_groups2_s8_avx2,
                 cresize_pixels1_s8_c, cresize_pixels2_s8_c)
CRESIZE_LANES_12(cresize_lanes12_u16, double, unsigned short, cresize_groups1_u16_avx2,
                 cresize_groups2_u16_avx2,
                 cresize_pixels1_u16_c, cresize_pixels2_u16_c)
CRESIZE_LANES_12(cresize_lanes12_s16, double, short, cresize_groups1_s16_avx2,
                 cresize_groups2_s16_avx2,
                 cresize_pixels1_s16_c, cresize_pixels2_s16_c)

/* Entry points: 1 when done, 0 when the caller must run its portable loop. `start`
 * (the first input of each output whose taps are its whole window, else -1) lets
 * AVX2 take whole groups of pixels (cresize_group_run). */
#define CRESIZE_PIXELS_ENTRY(NAME, ACC, T, LEVEL, F3, F4, G3, G4, L12)           \
    static inline int NAME(ACC *out, const T *line, Py_ssize_t channels,         \
                           Py_ssize_t n_in, const Py_ssize_t *index,             \
                           const ACC *weight, const Py_ssize_t *count,           \
                           const Py_ssize_t *start, Py_ssize_t width,            \
                           Py_ssize_t n_out)                                     \
    {                                                                            \
        if (cresize_simd_level < LEVEL || n_out < 1)                             \
            return 0;                                                            \
        if (channels == 1 || channels == 2)                                      \
            return L12(out, line, channels, n_in, index, weight, count, start,   \
                       width, n_out);                                            \
        if (channels == 3)                                                       \
            G3(F3, out, line, n_in, index, weight, count, start, width, n_out);  \
        else if (channels == 4)                                                  \
            G4(F4, out, line, n_in, index, weight, count, start, width, n_out);  \
        else                                                                     \
            return 0;                                                            \
        return 1;                                                                \
    }

/* The per-pixel loop only, and no lanes for 1- and 2-value pixels. */
#define CRESIZE_NO_LANES(...) 0
#define CRESIZE_PIXELS_ONLY(F, out, line, n_in, index, weight, count, start, width, n_out) \
    ((void)(start), F(out, line, n_in, index, weight, count, width, n_out, 0, n_out))

#if CRESIZE_X86_DISPATCH /* groups of 8 pixels on AVX2, else the per-pixel loop */
#define CRESIZE_WITH_GROUPS(G, F, out, line, n_in, index, weight, count, start, width, n_out) \
    F(out, line, n_in, index, weight, count, width, n_out,                      \
      cresize_simd_level >= 2 ? G(out, line, n_in, index, weight, count, start, width, n_out) \
                              : 0,                                               \
      n_out)
#define CRESIZE_G3_F32(F, ...) CRESIZE_WITH_GROUPS(cresize_groups3_f32_avx2, F, __VA_ARGS__)
#define CRESIZE_G4_F32(F, ...) CRESIZE_WITH_GROUPS(cresize_groups4_f32_avx2, F, __VA_ARGS__)
#define CRESIZE_G3_U8(F, ...) CRESIZE_WITH_GROUPS(cresize_groups3_u8_avx2, F, __VA_ARGS__)
#define CRESIZE_G4_U8(F, ...) CRESIZE_WITH_GROUPS(cresize_groups4_u8_avx2, F, __VA_ARGS__)
#define CRESIZE_G3_S8(F, ...) CRESIZE_WITH_GROUPS(cresize_groups3_s8_avx2, F, __VA_ARGS__)
#define CRESIZE_G4_S8(F, ...) CRESIZE_WITH_GROUPS(cresize_groups4_s8_avx2, F, __VA_ARGS__)
#else
#define CRESIZE_G3_F32 CRESIZE_PIXELS_ONLY
#define CRESIZE_G4_F32 CRESIZE_PIXELS_ONLY
#define CRESIZE_G3_U8 CRESIZE_PIXELS_ONLY
#define CRESIZE_G4_U8 CRESIZE_PIXELS_ONLY
#define CRESIZE_G3_S8 CRESIZE_PIXELS_ONLY
#define CRESIZE_G4_S8 CRESIZE_PIXELS_ONLY
#endif

#define CRESIZE_NO_PIXELS(NAME, ACC, T)                                          \
    static inline int NAME(ACC *out, const T *line, Py_ssize_t channels,         \
                           Py_ssize_t n_in, const Py_ssize_t *index,             \
                           const ACC *weight, const Py_ssize_t *count,           \
                           const Py_ssize_t *start, Py_ssize_t width,            \
                           Py_ssize_t n_out)                                     \
    {                                                                            \
        (void)out, (void)line, (void)channels, (void)n_in, (void)index;          \
        (void)weight, (void)count, (void)start, (void)width, (void)n_out;        \
        return 0;                                                                \
    }

#if CRESIZE_SSE
CRESIZE_PIXELS_ENTRY(cresize_pixels_f32, float, float, 1, cresize_pixels3_f32_sse,
                     cresize_pixels4_f32_sse, CRESIZE_G3_F32, CRESIZE_G4_F32,
                     cresize_lanes12_f32)
CRESIZE_PIXELS_ENTRY(cresize_pixels_u8, float, unsigned char, 1, cresize_pixels3_u8_sse,
                     cresize_pixels4_u8_sse, CRESIZE_G3_U8, CRESIZE_G4_U8,
                     cresize_lanes12_u8)
CRESIZE_PIXELS_ENTRY(cresize_pixels_s8, float, signed char, 1, cresize_pixels3_s8_sse,
                     cresize_pixels4_s8_sse, CRESIZE_G3_S8, CRESIZE_G4_S8,
                     cresize_lanes12_s8)
#else
CRESIZE_NO_PIXELS(cresize_pixels_f32, float, float)
CRESIZE_NO_PIXELS(cresize_pixels_u8, float, unsigned char)
CRESIZE_NO_PIXELS(cresize_pixels_s8, float, signed char)
#endif

#if CRESIZE_X86_DISPATCH
CRESIZE_PIXELS_ENTRY(cresize_pixels_f64, double, double, 2, cresize_pixels3_f64_avx2,
                     cresize_pixels4_f64_avx2, CRESIZE_PIXELS_ONLY, CRESIZE_PIXELS_ONLY,
                     CRESIZE_NO_LANES)
CRESIZE_PIXELS_ENTRY(cresize_pixels_u16, double, unsigned short, 2, cresize_pixels3_u16_avx2,
                     cresize_pixels4_u16_avx2, CRESIZE_PIXELS_ONLY, CRESIZE_PIXELS_ONLY,
                     cresize_lanes12_u16)
CRESIZE_PIXELS_ENTRY(cresize_pixels_s16, double, short, 2, cresize_pixels3_s16_avx2,
                     cresize_pixels4_s16_avx2, CRESIZE_PIXELS_ONLY, CRESIZE_PIXELS_ONLY,
                     cresize_lanes12_s16)
#else
CRESIZE_NO_PIXELS(cresize_pixels_f64, double, double)
CRESIZE_NO_PIXELS(cresize_pixels_u16, double, unsigned short)
CRESIZE_NO_PIXELS(cresize_pixels_s16, double, short)
#endif

/* Integer stores: out[i] = clip(rint(row[i])) to the type's range. cvtps2dq and
 * cvtpd2dq round half to even in the default rounding mode, as the portable
 * loop's 1.5 * 2**23 (2**52) trick does, and the values are clipped first, so
 * every level gives the same integers. Return 0 when the level is too low. */
#if CRESIZE_X86_DISPATCH
/* Integer stores of a row of sums, AVX2 (level avx2): clamped to the type's range, then
 * rounded to nearest even by the conversion (as the SSE loops below and the portable
 * loops: the same integers), 32 float32 / 16 float64 sums a block; the values are in
 * range, so the saturating packs only narrow. 8-bit: the packs interleave the 128-bit
 * lanes, one permutation puts them back in order. Each returns the values it stored
 * (whole blocks from the first); the caller's loop stores the rest. */
CRESIZE_AVX2 static inline __m256i cresize_round8_ps(__m256 v, __m256 lo, __m256 hi)
{
    return _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v, lo), hi));
}

CRESIZE_AVX2 static inline __m128i cresize_round4_pd(__m256d v, __m256d lo, __m256d hi)
{
    return _mm256_cvtpd_epi32(_mm256_min_pd(_mm256_max_pd(v, lo), hi));
}

#define CRESIZE_STORE8_AVX2(NAME, T, PACK16, LO, HI)                                     \
    CRESIZE_AVX2 static Py_ssize_t NAME(T *out, const float *row, Py_ssize_t n)          \
    {                                                                                    \
        const __m256 lo = _mm256_set1_ps(LO), hi = _mm256_set1_ps(HI);                   \
        const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);                 \
        Py_ssize_t i = 0;                                                                \
        for (; i + 32 <= n; i += 32) {                                                   \
            __m256i a = _mm256_packs_epi32(cresize_round8_ps(_mm256_loadu_ps(row + i), lo, hi), \
                                           cresize_round8_ps(_mm256_loadu_ps(row + i + 8), lo, hi)); \
            __m256i b = _mm256_packs_epi32(cresize_round8_ps(_mm256_loadu_ps(row + i + 16), lo, hi), \
                                           cresize_round8_ps(_mm256_loadu_ps(row + i + 24), lo, hi)); \
            _mm256_storeu_si256((__m256i *)(out + i),                                    \
                                _mm256_permutevar8x32_epi32(PACK16(a, b), order));       \
        }                                                                                \
        _mm256_zeroupper();                                                              \
        return i;                                                                        \
    }

#define CRESIZE_STORE16_AVX2(NAME, T, PACK32, LO, HI)                                    \
    CRESIZE_AVX2 static Py_ssize_t NAME(T *out, const double *row, Py_ssize_t n)         \
    {                                                                                    \
        const __m256d lo = _mm256_set1_pd(LO), hi = _mm256_set1_pd(HI);                  \
        Py_ssize_t i = 0;                                                                \
        for (; i + 16 <= n; i += 16) {                                                   \
            _mm_storeu_si128((__m128i *)(out + i),                                       \
                             PACK32(cresize_round4_pd(_mm256_loadu_pd(row + i), lo, hi),  \
                                    cresize_round4_pd(_mm256_loadu_pd(row + i + 4), lo, hi))); \
            _mm_storeu_si128((__m128i *)(out + i + 8),                                   \
                             PACK32(cresize_round4_pd(_mm256_loadu_pd(row + i + 8), lo, hi), \
                                    cresize_round4_pd(_mm256_loadu_pd(row + i + 12), lo, hi))); \
        }                                                                                \
        _mm256_zeroupper();                                                              \
        return i;                                                                        \
    }

CRESIZE_STORE8_AVX2(cresize_store_u8_avx2, unsigned char, _mm256_packus_epi16, 0.0f, 255.0f)
CRESIZE_STORE8_AVX2(cresize_store_s8_avx2, signed char, _mm256_packs_epi16, -128.0f, 127.0f)
CRESIZE_STORE16_AVX2(cresize_store_u16_avx2, unsigned short, _mm_packus_epi32, 0.0, 65535.0)
CRESIZE_STORE16_AVX2(cresize_store_s16_avx2, short, _mm_packs_epi32, -32768.0, 32767.0)

/* Stores from i = 0: the AVX2 blocks where the level allows them. */
#define CRESIZE_STORE_AVX2_FIRST(NAME)                                                   \
    if (cresize_simd_level >= 2)                                                         \
        i = NAME(out, row, n);
#else
#define CRESIZE_STORE_AVX2_FIRST(NAME)
#endif

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
    CRESIZE_STORE_AVX2_FIRST(cresize_store_u8_avx2)
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
    CRESIZE_STORE_AVX2_FIRST(cresize_store_s8_avx2)
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
    CRESIZE_STORE_AVX2_FIRST(cresize_store_u16_avx2)
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
    CRESIZE_STORE_AVX2_FIRST(cresize_store_s16_avx2)
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
