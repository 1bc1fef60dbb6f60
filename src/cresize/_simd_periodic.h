/* The horizontal pass of integer-factor enlarging: rows whose x weights repeat.
 *
 * A table (Taps.period, checked by make_step) whose output pixels
 * first ... first + s*nq - 1 are periodic: output pixel first + s*q + p (phase p < s)
 * reads the whole window of `width` input pixels start[first + p] + q + k (k < width)
 * with the weights of row first + p, the same for every q. Value c of that output
 * pixel is
 *
 *     sum_k w[p][k] * line[C * (a_p + q + k) + c],    a_p = start[first + p],
 *
 * computed as the other row kernels do: from 0, a product then a sum, tap after tap
 * (no FMA: -ffp-contract=off, and the targets below have none), so every path gives
 * the bits of _kernels.pyx's _dot / _pixel3 / the AVX2 value lanes.
 *
 * The SIMD paths read the row through U, the row enlarged by nearest by s: U pixel
 * m is input pixel (m + D) / s, where D = max_p (s * a_p - p). When the phases'
 * starts fit (s * a_p - p within s of each other, checked), input pixel a_p + q + k
 * is U pixel n + s*k for output pixel n = s*q + p, so output value t (pixel t / C of
 * the range) is
 *
 *     sum_k W_k[t] * U[t + s*C*k],    W_k[t] = w[(t / C) % s][k],
 *
 * a stencil on contiguous values whose weights repeat every s*C values: a register
 * of `lanes` outputs takes its weights from a table of lcm(lanes, s*C) / lanes
 * registers per tap (built once per row), loads its U values with one unaligned
 * load per tap, and U itself is built once per chunk of outputs with one load and
 * one permutation per register (vpermps, or pshufb and a widening conversion for
 * 8/16-bit values). No per-output weights, index loads or gathers.
 *
 * cresize_periodic_<sum>_<source>(out, line, n_in, C, start, weight, width, s, nq):
 * out, start and weight at the range's first pixel (out + C*first, start + first,
 * weight + first*width); 1 when done, 0 (nothing written) when the caller must use
 * its other loops: 8-bit pixels at level sse2 (the SSE per-pixel loops measured
 * faster there than the portable loop below), or a case the SIMD paths do not take at
 * level avx2 / avx512 (more than CRESIZE_PERIOD_TAPS taps, too long a pattern, phases
 * that do not fit, a register whose values span more than one load). Level none, and
 * sse2 for float32 and 16-bit pixels, run the portable loop (the same arithmetic,
 * straight from the row).
 */
#ifndef CRESIZE_SIMD_PERIODIC_H
#define CRESIZE_SIMD_PERIODIC_H

#include "_simd_rows.h"

#define CRESIZE_PERIOD_TAPS 8     /* taps per output */
#define CRESIZE_PERIOD_REGS 16    /* registers of one weight pattern (lcm / lanes) */
#define CRESIZE_PERIOD_CHUNK 512  /* output values per chunk (about; U stays in L1) */
#define CRESIZE_PERIOD_REACH 512  /* s*C*(width - 1): U values past a chunk's outputs */

/* Level none: the portable loop, straight from the row (the channel count a
 * constant for 1-4 values, so that the sums of a pixel stay in registers). */
#define CRESIZE_PERIODIC_C_TAPS(CC, TAPS, ACC, T)                               \
    for (q = 0; q < nq; q++)                                                     \
        for (p = 0; p < s; p++) {                                                \
            const T *x = line + (CC) * (start[p] + q);                           \
            const ACC *w = weight + p * (TAPS);                                  \
            ACC *o = out + (CC) * (s * q + p);                                   \
            ACC acc[CC];                                                         \
            for (c = 0; c < (CC); c++)                                           \
                acc[c] = 0;                                                      \
            for (k = 0; k < (TAPS); k++)                                         \
                for (c = 0; c < (CC); c++)                                       \
                    acc[c] = acc[c] + w[k] * x[(CC) * k + c];                    \
            for (c = 0; c < (CC); c++)                                           \
                o[c] = acc[c];                                                   \
        }
#define CRESIZE_PERIODIC_C_LOOP(CC, ACC, T)                                      \
    if (width == 4)                                                              \
        CRESIZE_PERIODIC_C_TAPS(CC, 4, ACC, T)                                   \
    else if (width == 2)                                                         \
        CRESIZE_PERIODIC_C_TAPS(CC, 2, ACC, T)                                   \
    else                                                                         \
        CRESIZE_PERIODIC_C_TAPS(CC, width, ACC, T)

#define CRESIZE_PERIODIC_C(NAME, ACC, T)                                         \
    static void NAME(ACC *out, const T *line, Py_ssize_t C, const Py_ssize_t *start, \
                     const ACC *weight, Py_ssize_t width, Py_ssize_t s, Py_ssize_t nq) \
    {                                                                            \
        Py_ssize_t q, p, c, k;                                                   \
        if (C == 3) {                                                            \
            CRESIZE_PERIODIC_C_LOOP(3, ACC, T)                                           \
        } else if (C == 1) {                                                     \
            CRESIZE_PERIODIC_C_LOOP(1, ACC, T)                                           \
        } else if (C == 4) {                                                     \
            CRESIZE_PERIODIC_C_LOOP(4, ACC, T)                                           \
        } else if (C == 2) {                                                     \
            CRESIZE_PERIODIC_C_LOOP(2, ACC, T)                                           \
        } else {                                                                 \
            for (q = 0; q < nq; q++)                                             \
                for (p = 0; p < s; p++) {                                        \
                    const T *x = line + C * (start[p] + q);                      \
                    const ACC *w = weight + p * width;                           \
                    ACC *o = out + C * (s * q + p);                              \
                    for (c = 0; c < C; c++) {                                    \
                        ACC acc = 0;                                             \
                        for (k = 0; k < width; k++)                              \
                            acc = acc + w[k] * x[C * k + c];                     \
                        o[c] = acc;                                              \
                    }                                                            \
                }                                                                \
        }                                                                        \
    }

CRESIZE_PERIODIC_C(cresize_periodic_f32_f32_c, float, float)
CRESIZE_PERIODIC_C(cresize_periodic_f32_u8_c, float, unsigned char)
CRESIZE_PERIODIC_C(cresize_periodic_f32_s8_c, float, signed char)
CRESIZE_PERIODIC_C(cresize_periodic_f64_f64_c, double, double)
CRESIZE_PERIODIC_C(cresize_periodic_f64_u16_c, double, unsigned short)
CRESIZE_PERIODIC_C(cresize_periodic_f64_s16_c, double, short)

/* The exact float32 sums of 16-bit pixels (Taps.period's rows that pass
 * _plan.exact_in_float32; docs/kernels.md, "16-bit rows summed exactly in float32"):
 * the values centred (uint16 - 32768; int16 as they are), summed in float32 in the
 * float64 loops' order, each product and partial sum exact, so the float32 sum is the
 * exact sum of the centred values; stored as (double)sum + back[p], back[p] = 32768 *
 * (the sum of row p's weights) in float64 (exact too): the exact sum, which is what
 * the float64 loops compute (their products and sums are exact as well). */
#define CRESIZE_CENTRED_U16(V) ((float)((int)(V) - 32768))
#define CRESIZE_CENTRED_S16(V) ((float)(V))
#define CRESIZE_X32_MAX_PERIOD 16

/* wf: the weights in float32 (exact: the rule); back: each phase's centre added back. */
static inline void cresize_x32_prepare(const double *weight, Py_ssize_t width, Py_ssize_t s,
                                       double centre, float *wf, double *back)
{
    Py_ssize_t p, k;
    for (p = 0; p < s; p++) {
        double sum = 0;
        for (k = 0; k < width; k++) {
            wf[p * width + k] = (float)weight[p * width + k];
            sum = sum + weight[p * width + k];
        }
        back[p] = centre * sum;
    }
}

#if CRESIZE_X86_DISPATCH

/* The pattern of a range for registers of `lanes` values: L = lcm(lanes, s*C) values,
 * R = L / lanes registers; register r of block b (values b*L + r*lanes ...) builds
 * its U values from the row's values b*(L/s) + first[r] + perm[r][j]. */
typedef struct {
    Py_ssize_t L, R, sC, reach, chunk, shift;
    Py_ssize_t first[CRESIZE_PERIOD_REGS];
    int perm[CRESIZE_PERIOD_REGS][16], phase[CRESIZE_PERIOD_REGS][16];
} cresize_period;

/* 0 when the SIMD paths do not take the range: `span`, the values one load holds;
 * the registers start at the range's value d (its stores then aligned). */
static int cresize_period_setup(cresize_period *g, Py_ssize_t C, const Py_ssize_t *start,
                                Py_ssize_t width, Py_ssize_t s, int lanes, int span,
                                Py_ssize_t d)
{
    Py_ssize_t p, r, j, lo = 0, hi = 0, a, b;
    if (s < 2 || lanes > 16 || C < 1 || width < 1 || width > CRESIZE_PERIOD_TAPS)
        return 0;
    for (p = 0; p < s; p++) {
        Py_ssize_t v = s * start[p] - p;
        lo = p == 0 || v < lo ? v : lo;
        hi = p == 0 || v > hi ? v : hi;
    }
    if (hi - lo >= s)  /* the phases' starts do not fit one U */
        return 0;
    g->shift = hi;
    g->sC = s * C;
    for (a = lanes, b = g->sC; b;) {  /* gcd */
        Py_ssize_t t = a % b;
        a = b;
        b = t;
    }
    g->L = lanes / a * g->sC;
    g->R = g->L / lanes;
    g->reach = g->sC * (width - 1);
    if (g->R > CRESIZE_PERIOD_REGS || g->reach > CRESIZE_PERIOD_REACH)
        return 0;
    g->chunk = (CRESIZE_PERIOD_CHUNK + g->L - 1) / g->L * g->L;
    {
        /* value d + r*lanes + j: channel c of U pixel m, input pixel (m + shift) / s =
         * x, phase m % s = ph (counters, no divisions) */
        Py_ssize_t m = d / C, c = d % C, ph = m % s, x = (m + g->shift) / s;
        Py_ssize_t e = (m + g->shift) % s;
        for (r = 0; r < g->R; r++) {
            Py_ssize_t least = 0, most = 0, at[16];
            for (j = 0; j < lanes; j++) {
                at[j] = C * x + c;
                g->phase[r][j] = (int)ph;
                least = j == 0 || at[j] < least ? at[j] : least;
                most = j == 0 || at[j] > most ? at[j] : most;
                if (++c == C) {
                    c = 0;
                    ph = ph + 1 == s ? 0 : ph + 1;
                    if (++e == s) {
                        e = 0;
                        x++;
                    }
                }
            }
            if (most - least >= span)
                return 0;
            g->first[r] = least;
            for (j = 0; j < lanes; j++)
                g->perm[r][j] = (int)(at[j] - least);
        }
    }
    return 1;
}


/* Whole blocks of a chunk's U values (REGS registers), while their loads stay in the
 * row; the input is prefetched ahead (its rows are read once, from memory). */
#define CRESIZE_PERIODIC_UBLOCKS(REGS, LANES, LOADW, STORE, BUILD)               \
    {                                                                            \
        Py_ssize_t f_[REGS], most = 0;                                           \
        for (r = 0; r < (REGS); r++) {                                           \
            f_[r] = g.first[r];                                                  \
            most = f_[r] > most ? f_[r] : most;                                  \
        }                                                                        \
        for (; u + (REGS) * LANES <= need && at0 + most + (LOADW) <= n_vals;     \
             u += (REGS) * LANES, at0 += g.L / s) {                              \
            _mm_prefetch((const char *)(line + at0) + 384, _MM_HINT_T0);         \
            for (r = 0; r < (REGS); r++)                                         \
                STORE(buf + u + r * LANES, BUILD(at0 + f_[r], r));               \
        }                                                                        \
    }

/* Whole blocks of g.L = REGS * LANES values of a chunk, the weights in registers. */
#define CRESIZE_PERIODIC_BLOCKS(TAPS, REGS, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT) \
    {                                                                            \
        VEC wv[REGS][TAPS];                                                      \
        for (r = 0; r < (REGS); r++)                                             \
            for (k = 0; k < (TAPS); k++)                                         \
                wv[r][k] = LOAD(wt + (r * (TAPS) + k) * LANES);                  \
        for (; u + (REGS) * LANES <= cnt; u += (REGS) * LANES)                   \
            for (r = 0; r < (REGS); r++) {                                       \
                VEC acc = ZERO();                                                \
                for (k = 0; k < (TAPS); k++)                                     \
                    acc = ADD(acc, MUL(wv[r][k], LOAD(buf + u + r * LANES + g.sC * k))); \
                PUT(STORE, out + t0 + u + r * LANES, acc, r);                    \
            }                                                                    \
    }

/* A chunk of a table of TAPS taps known when compiling: whole blocks with the weights in
 * registers where the pattern spans 3 or 1 registers, then the stencil for the rest. */
#define CRESIZE_PERIODIC_FIXED(TAPS, ACC, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT, FIN) \
    {                                                                            \
        if (g.R == 3)                                                            \
            CRESIZE_PERIODIC_BLOCKS(TAPS, 3, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT) \
        else if (g.R == 1)                                                       \
            CRESIZE_PERIODIC_BLOCKS(TAPS, 1, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT) \
        CRESIZE_PERIODIC_STENCIL(TAPS, ACC, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT, FIN) \
    }

/* The outputs of a chunk from its U values in buf (inside CRESIZE_PERIODIC_SIMD). */
#define CRESIZE_PERIODIC_STENCIL(TAPS, ACC, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT, FIN) \
    {                                                                            \
        Py_ssize_t rs = 0;                                                       \
        for (; u + LANES <= cnt; u += LANES) {                                   \
            const ACC *w = wt + rs * width * LANES;                              \
            VEC acc = ZERO();                                                    \
            for (k = 0; k < (TAPS); k++)                                         \
                acc = ADD(acc, MUL(LOAD(w + k * LANES), LOAD(buf + u + g.sC * k))); \
            PUT(STORE, out + t0 + u, acc, rs);                                   \
            if (++rs == g.R)                                                     \
                rs = 0;                                                          \
        }                                                                        \
        for (; u < cnt; u++) {                                                   \
            const ACC *w = wt + rs * width * LANES + u % LANES;                  \
            ACC acc = 0;                                                         \
            for (k = 0; k < (TAPS); k++)                                         \
                acc = acc + w[k * LANES] * buf[u + g.sC * k];                    \
            out[t0 + u] = FIN(acc, g.phase[rs][u % LANES]);                      \
        }                                                                        \
    }

/* The range on registers of VEC (`LANES` values of ACC). BUILD(at, r) is register r's
 * U values from the row's values at `at` (loading LOADW values there); PREP sets up
 * BUILD's permutation vectors from g.perm. */
#define CRESIZE_PERIODIC_SIMD(NAME, TARGET, ACC, T, VEC, LANES, LOADW, ZERO, ADD, MUL, LOAD, \
                              STORE, PVEC, PREP, BUILD)                          \
    CRESIZE_PERIODIC_SIMD_OF(NAME, TARGET, ACC, T, VEC, LANES, LOADW, ZERO, ADD, MUL, LOAD, \
                             STORE, PVEC, PREP, BUILD, (ACC), ACC, CRESIZE_PUT_SUMS, \
                             CRESIZE_FIN_SUMS, , (void)0)
#define CRESIZE_PUT_SUMS(STORE, P, V, R) STORE(P, V)
#define CRESIZE_FIN_SUMS(V, PH) (V)
/* VALUE(v): a row value v as the sums read it (BUILD's values, one at a time); OUT:
 * the type of the results, PUT(STORE, p, v, r) stores register r's sums v at p (r: its
 * place in the pattern, as g.phase), FIN(v, ph) a sum v of phase ph; EXTRA: more
 * arguments, PREPOUT: PUT's set-up (once g is set). */
#define CRESIZE_PERIODIC_SIMD_OF(NAME, TARGET, ACC, T, VEC, LANES, LOADW, ZERO, ADD, MUL, \
                                 LOAD, STORE, PVEC, PREP, BUILD, VALUE, OUT, PUT, FIN, \
                                 EXTRA, PREPOUT)                                 \
    TARGET static int NAME(OUT *out, const T *line, Py_ssize_t n_in, Py_ssize_t C,  \
                           const Py_ssize_t *start, const ACC *weight,            \
                           Py_ssize_t width, Py_ssize_t s, Py_ssize_t nq EXTRA)   \
    {                                                                            \
        cresize_period g;                                                        \
        ACC wt[CRESIZE_PERIOD_REGS * CRESIZE_PERIOD_TAPS * LANES] __attribute__((aligned(64))); \
        ACC buf[CRESIZE_PERIOD_CHUNK + 4 * CRESIZE_PERIOD_REGS * LANES           \
                + CRESIZE_PERIOD_REACH + LANES] __attribute__((aligned(64)));    \
        PVEC pv[CRESIZE_PERIOD_REGS];                                            \
        Py_ssize_t r, j, k, t0, u, total = C * s * nq, n_vals = C * n_in;        \
        /* the first d values by the portable loop, so that the stores align */  \
        Py_ssize_t d = (Py_ssize_t)((0 - (size_t)out) % (LANES * sizeof(OUT)) / sizeof(OUT)); \
        if ((size_t)out % sizeof(OUT) || d >= total)                             \
            d = 0;                                                               \
        if (!cresize_period_setup(&g, C, start, width, s, LANES, LOADW, d))      \
            return 0;                                                            \
        for (u = 0, r = 0, j = 0, t0 = 0; u < d; u++) { /* value r of pixel s*t0 + j */ \
            const ACC *w = weight + j * width;                                   \
            const T *x = line + C * (start[j] + t0) + r;                         \
            ACC acc = 0;                                                         \
            for (k = 0; k < width; k++)                                          \
                acc = acc + w[k] * VALUE(x[C * k]);                              \
            out[u] = FIN(acc, j);                                                \
            if (++r == C) { /* counters, not the divisions of u by C and s */    \
                r = 0;                                                           \
                if (++j == s) {                                                  \
                    j = 0;                                                       \
                    t0++;                                                        \
                }                                                                \
            }                                                                    \
        }                                                                        \
        out += d;                                                                \
        total -= d;                                                              \
        PREPOUT;                                                                 \
        for (r = 0; r < g.R; r++) {                                              \
            PREP(pv[r], g.perm[r]);                                              \
            for (k = 0; k < width; k++)                                          \
                for (j = 0; j < LANES; j++)                                      \
                    wt[(r * width + k) * LANES + j] = weight[g.phase[r][j] * width + k]; \
        }                                                                        \
        for (t0 = 0; t0 < total; t0 += g.chunk) {                                \
            Py_ssize_t cnt = total - t0 < g.chunk ? total - t0 : g.chunk;        \
            Py_ssize_t need = cnt + g.reach, rr = 0, at0 = t0 / g.L * (g.L / s); \
            u = 0;                                                               \
            if (g.R == 3)                                                        \
                CRESIZE_PERIODIC_UBLOCKS(3, LANES, LOADW, STORE, BUILD)          \
            else if (g.R == 1)                                                   \
                CRESIZE_PERIODIC_UBLOCKS(1, LANES, LOADW, STORE, BUILD)          \
            for (; u < need; u += LANES) { /* U values t0 + u ... */             \
                Py_ssize_t at = at0 + g.first[rr];                               \
                if (at + LOADW <= n_vals) { /* (values past need: unused) */     \
                    STORE(buf + u, BUILD(at, rr));                               \
                } else {                                                         \
                    for (j = 0; j < LANES && u + j < need; j++)                  \
                        buf[u + j] = VALUE(line[at + g.perm[rr][j]]);            \
                }                                                                \
                if (++rr == g.R) {                                               \
                    rr = 0;                                                      \
                    at0 += g.L / s;                                              \
                }                                                                \
            }                                                                    \
            u = 0;                                                               \
            if (width == 4) /* bicubic */                                        \
                CRESIZE_PERIODIC_FIXED(4, ACC, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT, \
                                       FIN)                                     \
            else if (width == 2) /* bilinear */                                  \
                CRESIZE_PERIODIC_FIXED(2, ACC, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT, \
                                       FIN)                                     \
            else if (width == 6) /* lanczos3 */                                  \
                CRESIZE_PERIODIC_FIXED(6, ACC, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT, \
                                       FIN)                                     \
            else                                                                 \
                CRESIZE_PERIODIC_STENCIL(width, ACC, VEC, LANES, ZERO, ADD, MUL, LOAD, STORE, PUT, \
                                         FIN)                                   \
        }                                                                        \
        _mm256_zeroupper();                                                      \
        return 1;                                                                \
    }

/* Permutations: lane j takes value perm[j] of the load. */
#define CRESIZE_PERM_PS(V, P) (V) = _mm256_loadu_si256((const __m256i *)(P))
#define CRESIZE_PERM_PD(V, P)                                                    \
    (V) = _mm256_setr_epi32(2 * (P)[0], 2 * (P)[0] + 1, 2 * (P)[1], 2 * (P)[1] + 1, \
                            2 * (P)[2], 2 * (P)[2] + 1, 2 * (P)[3], 2 * (P)[3] + 1)
#define CRESIZE_PERM_B8(V, P)                                                    \
    (V) = _mm_setr_epi8((char)(P)[0], (char)(P)[1], (char)(P)[2], (char)(P)[3],  \
                        (char)(P)[4], (char)(P)[5], (char)(P)[6], (char)(P)[7],  \
                        -1, -1, -1, -1, -1, -1, -1, -1)
#define CRESIZE_PERM_W4(V, P)                                                    \
    (V) = _mm_setr_epi8((char)(2 * (P)[0]), (char)(2 * (P)[0] + 1), (char)(2 * (P)[1]), \
                        (char)(2 * (P)[1] + 1), (char)(2 * (P)[2]), (char)(2 * (P)[2] + 1), \
                        (char)(2 * (P)[3]), (char)(2 * (P)[3] + 1),              \
                        -1, -1, -1, -1, -1, -1, -1, -1)
#define CRESIZE_PERM_W8(V, P)                                                    \
    (V) = _mm_setr_epi8((char)(2 * (P)[0]), (char)(2 * (P)[0] + 1), (char)(2 * (P)[1]), \
                        (char)(2 * (P)[1] + 1), (char)(2 * (P)[2]), (char)(2 * (P)[2] + 1), \
                        (char)(2 * (P)[3]), (char)(2 * (P)[3] + 1), (char)(2 * (P)[4]), \
                        (char)(2 * (P)[4] + 1), (char)(2 * (P)[5]), (char)(2 * (P)[5] + 1), \
                        (char)(2 * (P)[6]), (char)(2 * (P)[6] + 1), (char)(2 * (P)[7]), \
                        (char)(2 * (P)[7] + 1))
#define CRESIZE_PERM_PD8(V, P)                                                   \
    (V) = _mm512_setr_epi64((P)[0], (P)[1], (P)[2], (P)[3], (P)[4], (P)[5], (P)[6], (P)[7])

#define CRESIZE_LOAD16(AT) _mm_loadu_si128((const __m128i *)(line + (AT)))

/* AVX2: 8 float32 / 4 float64 values a register. */
#define CRESIZE_U_F32(AT, R) _mm256_permutevar8x32_ps(_mm256_loadu_ps(line + (AT)), pv[R])
#define CRESIZE_U_U8(AT, R)                                                      \
    _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R])))
#define CRESIZE_U_S8(AT, R)                                                      \
    _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R])))
#define CRESIZE_U_F64(AT, R)                                                     \
    _mm256_castps_pd(_mm256_permutevar8x32_ps(_mm256_castpd_ps(_mm256_loadu_pd(line + (AT))), \
                                              pv[R]))
#define CRESIZE_U_U16(AT, R)                                                     \
    _mm256_cvtepi32_pd(_mm_cvtepu16_epi32(_mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R])))
#define CRESIZE_U_S16(AT, R)                                                     \
    _mm256_cvtepi32_pd(_mm_cvtepi16_epi32(_mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R])))

CRESIZE_AVX2 static inline __m256 cresize_zero_ps8(void) { return _mm256_setzero_ps(); }

#define CRESIZE_PERIODIC_AVX2_F(NAME, T, LOADW, PVEC, PREP, BUILD)               \
    CRESIZE_PERIODIC_SIMD(NAME, CRESIZE_AVX2, float, T, __m256, 8, LOADW, cresize_zero_ps8, \
                          cresize_add_ps8, cresize_mul_ps8, cresize_load_ps8, cresize_store_ps8, \
                          PVEC, PREP, BUILD)
#define CRESIZE_PERIODIC_AVX2_D(NAME, T, LOADW, PVEC, PREP, BUILD)               \
    CRESIZE_PERIODIC_SIMD(NAME, CRESIZE_AVX2, double, T, __m256d, 4, LOADW, cresize_zero_pd, \
                          cresize_add_pd, cresize_mul_pd, cresize_row4_f64, cresize_store_pd, \
                          PVEC, PREP, BUILD)

CRESIZE_PERIODIC_AVX2_F(cresize_periodic_f32_f32_avx2, float, 8, __m256i, CRESIZE_PERM_PS,
                        CRESIZE_U_F32)
CRESIZE_PERIODIC_AVX2_F(cresize_periodic_f32_u8_avx2, unsigned char, 16, __m128i,
                        CRESIZE_PERM_B8, CRESIZE_U_U8)
CRESIZE_PERIODIC_AVX2_F(cresize_periodic_f32_s8_avx2, signed char, 16, __m128i,
                        CRESIZE_PERM_B8, CRESIZE_U_S8)
CRESIZE_PERIODIC_AVX2_D(cresize_periodic_f64_f64_avx2, double, 4, __m256i, CRESIZE_PERM_PD,
                        CRESIZE_U_F64)
CRESIZE_PERIODIC_AVX2_D(cresize_periodic_f64_u16_avx2, unsigned short, 8, __m128i,
                        CRESIZE_PERM_W4, CRESIZE_U_U16)
CRESIZE_PERIODIC_AVX2_D(cresize_periodic_f64_s16_avx2, short, 8, __m128i, CRESIZE_PERM_W4,
                        CRESIZE_U_S16)

/* AVX-512F: 8 float64 values a register (the 16-bit images' sums). */
#define CRESIZE_U_F64X8(AT, R) _mm512_permutexvar_pd(pv[R], _mm512_loadu_pd(line + (AT)))
#define CRESIZE_U_U16X8(AT, R)                                                   \
    _mm512_cvtepi32_pd(_mm256_cvtepu16_epi32(_mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R])))
#define CRESIZE_U_S16X8(AT, R)                                                   \
    _mm512_cvtepi32_pd(_mm256_cvtepi16_epi32(_mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R])))

CRESIZE_AVX512 static inline __m512d cresize_zero_pd8(void) { return _mm512_setzero_pd(); }

/* AVX-512F: 16 float32 values a register. */
#define CRESIZE_PERM_PS16(V, P) (V) = _mm512_loadu_si512((const void *)(P))
#define CRESIZE_PERM_B16(V, P)                                                   \
    (V) = _mm_setr_epi8((char)(P)[0], (char)(P)[1], (char)(P)[2], (char)(P)[3],  \
                        (char)(P)[4], (char)(P)[5], (char)(P)[6], (char)(P)[7],  \
                        (char)(P)[8], (char)(P)[9], (char)(P)[10], (char)(P)[11], \
                        (char)(P)[12], (char)(P)[13], (char)(P)[14], (char)(P)[15])
#define CRESIZE_U_F32X16(AT, R) _mm512_permutexvar_ps(pv[R], _mm512_loadu_ps(line + (AT)))
#define CRESIZE_U_U8X16(AT, R)                                                   \
    _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R])))
#define CRESIZE_U_S8X16(AT, R)                                                   \
    _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R])))

CRESIZE_AVX512 static inline __m512 cresize_zero_ps16(void) { return _mm512_setzero_ps(); }

#define CRESIZE_PERIODIC_AVX512_F(NAME, T, LOADW, PVEC, PREP, BUILD)             \
    CRESIZE_PERIODIC_SIMD(NAME, CRESIZE_AVX512, float, T, __m512, 16, LOADW, cresize_zero_ps16, \
                          cresize_add_ps16, cresize_mul_ps16, cresize_row16_f32, \
                          cresize_store_ps16, PVEC, PREP, BUILD)

CRESIZE_PERIODIC_AVX512_F(cresize_periodic_f32_f32_avx512, float, 16, __m512i, CRESIZE_PERM_PS16,
                          CRESIZE_U_F32X16)
CRESIZE_PERIODIC_AVX512_F(cresize_periodic_f32_u8_avx512, unsigned char, 16, __m128i,
                          CRESIZE_PERM_B16, CRESIZE_U_U8X16)
CRESIZE_PERIODIC_AVX512_F(cresize_periodic_f32_s8_avx512, signed char, 16, __m128i,
                          CRESIZE_PERM_B16, CRESIZE_U_S8X16)

#define CRESIZE_PERIODIC_AVX512_D(NAME, T, PVEC, PREP, BUILD)                    \
    CRESIZE_PERIODIC_SIMD(NAME, CRESIZE_AVX512, double, T, __m512d, 8, 8, cresize_zero_pd8, \
                          cresize_add_pd8, cresize_mul_pd8, cresize_row8_f64,   \
                          cresize_store_pd8, PVEC, PREP, BUILD)

CRESIZE_PERIODIC_AVX512_D(cresize_periodic_f64_f64_avx512, double, __m512i, CRESIZE_PERM_PD8,
                          CRESIZE_U_F64X8)
CRESIZE_PERIODIC_AVX512_D(cresize_periodic_f64_u16_avx512, unsigned short, __m128i,
                          CRESIZE_PERM_W8, CRESIZE_U_U16X8)
CRESIZE_PERIODIC_AVX512_D(cresize_periodic_f64_s16_avx512, short, __m128i, CRESIZE_PERM_W8,
                          CRESIZE_U_S16X8)

/* The exact float32 sums of 16-bit pixels (above): the float32 periodic pass of the
 * centred values into a chunk of float32 sums, then each converted to float64 with
 * its phase's centre added back. */
#define CRESIZE_LOAD32(AT) _mm256_loadu_si256((const __m256i *)(line + (AT)))
#define CRESIZE_U_U16C8(AT, R)                                                   \
    _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu16_epi32(                      \
                      _mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R]))),             \
                  _mm256_set1_ps(32768.0f))
#define CRESIZE_U_S16C8(AT, R)                                                   \
    _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_shuffle_epi8(CRESIZE_LOAD16(AT), pv[R])))
#define CRESIZE_U_U16C16(AT, R)                                                  \
    _mm512_sub_ps(_mm512_cvtepi32_ps(_mm512_permutexvar_epi32(                   \
                      pv[R], _mm512_cvtepu16_epi32(CRESIZE_LOAD32(AT)))),        \
                  _mm512_set1_ps(32768.0f))
#define CRESIZE_U_S16C16(AT, R)                                                  \
    _mm512_cvtepi32_ps(_mm512_permutexvar_epi32(pv[R], _mm512_cvtepi16_epi32(CRESIZE_LOAD32(AT))))

/* The sums of a register converted to float64 as they are stored, each with its
 * phase's centre added back (offs: per register of the pattern, as g.phase). */
#define CRESIZE_X32_EXTRA , const double *back
#define CRESIZE_X32_OFFS(LANES)                                                  \
    double offs[CRESIZE_PERIOD_REGS * (LANES)] __attribute__((aligned(64)));     \
    for (r = 0; r < g.R; r++)                                                    \
        for (j = 0; j < (LANES); j++)                                            \
            offs[r * (LANES) + j] = back[g.phase[r][j]]
#define CRESIZE_X32_OFFS8 CRESIZE_X32_OFFS(8)
#define CRESIZE_X32_OFFS16 CRESIZE_X32_OFFS(16)
#define CRESIZE_X32_FIN(V, PH) ((double)(V) + back[PH])
#define CRESIZE_X32_PUT8(STORE, P, V, R)                                         \
    do {                                                                         \
        __m256 v_ = (V);                                                         \
        double *p_ = (P);                                                        \
        const double *o_ = offs + (R) * 8;                                       \
        _mm256_storeu_pd(p_, _mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v_)), \
                                           _mm256_load_pd(o_)));                \
        _mm256_storeu_pd(p_ + 4, _mm256_add_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v_, 1)), \
                                               _mm256_load_pd(o_ + 4)));        \
    } while (0)
#define CRESIZE_X32_PUT16(STORE, P, V, R)                                        \
    do {                                                                         \
        __m512 v_ = (V);                                                         \
        double *p_ = (P);                                                        \
        const double *o_ = offs + (R) * 16;                                      \
        _mm512_storeu_pd(p_, _mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v_)), \
                                           _mm512_load_pd(o_)));                \
        _mm512_storeu_pd(p_ + 8, _mm512_add_pd(_mm512_cvtps_pd(_mm256_castpd_ps(         \
                                                   _mm512_extractf64x4_pd(_mm512_castps_pd(v_), 1))), \
                                               _mm512_load_pd(o_ + 8)));        \
    } while (0)

#define CRESIZE_PERIODIC_X32_AVX2(NAME, T, BUILD, VALUE)                         \
    CRESIZE_PERIODIC_SIMD_OF(NAME, CRESIZE_AVX2, float, T, __m256, 8, 8, cresize_zero_ps8, \
                             cresize_add_ps8, cresize_mul_ps8, cresize_load_ps8,  \
                             cresize_store_ps8, __m128i, CRESIZE_PERM_W8, BUILD, VALUE, double, \
                             CRESIZE_X32_PUT8, CRESIZE_X32_FIN, CRESIZE_X32_EXTRA, \
                             CRESIZE_X32_OFFS8)
#define CRESIZE_PERIODIC_X32_AVX512(NAME, T, BUILD, VALUE)                       \
    CRESIZE_PERIODIC_SIMD_OF(NAME, CRESIZE_AVX512, float, T, __m512, 16, 16,      \
                             cresize_zero_ps16, cresize_add_ps16, cresize_mul_ps16, \
                             cresize_row16_f32, cresize_store_ps16, __m512i, CRESIZE_PERM_PS16, \
                             BUILD, VALUE, double, CRESIZE_X32_PUT16, CRESIZE_X32_FIN, \
                             CRESIZE_X32_EXTRA, CRESIZE_X32_OFFS16)

CRESIZE_PERIODIC_X32_AVX2(cresize_periodic_x32_u16_avx2, unsigned short, CRESIZE_U_U16C8,
                          CRESIZE_CENTRED_U16)
CRESIZE_PERIODIC_X32_AVX2(cresize_periodic_x32_s16_avx2, short, CRESIZE_U_S16C8,
                          CRESIZE_CENTRED_S16)
CRESIZE_PERIODIC_X32_AVX512(cresize_periodic_x32_u16_avx512, unsigned short, CRESIZE_U_U16C16,
                            CRESIZE_CENTRED_U16)
CRESIZE_PERIODIC_X32_AVX512(cresize_periodic_x32_s16_avx512, short, CRESIZE_U_S16C16,
                            CRESIZE_CENTRED_S16)

#define CRESIZE_PERIODIC_TRY(F, ...) F(__VA_ARGS__)
#else
#define CRESIZE_PERIODIC_TRY(F, ...) 0
#endif

/* The entry points: WIDE the AVX-512 function; the portable loop up to level UPTO. */
#define CRESIZE_PERIODIC_ENTRY(NAME, ACC, T, UPTO, PORTABLE, AVX2, WIDE)         \
    static inline int NAME(ACC *out, const T *line, Py_ssize_t n_in, Py_ssize_t C, \
                           const Py_ssize_t *start, const ACC *weight,            \
                           Py_ssize_t width, Py_ssize_t s, Py_ssize_t nq)         \
    {                                                                            \
        if (cresize_simd_level <= (UPTO)) {                                      \
            PORTABLE(out, line, C, start, weight, width, s, nq);                 \
            return 1;                                                            \
        }                                                                        \
        if (cresize_simd_level >= 3                                              \
            && CRESIZE_PERIODIC_TRY(WIDE, out, line, n_in, C, start, weight, width, s, nq)) \
            return 1;                                                            \
        return cresize_simd_level >= 2                                           \
               && CRESIZE_PERIODIC_TRY(AVX2, out, line, n_in, C, start, weight, width, s, nq); \
    }

/* At level sse2 the SSE loops of 8-bit pixels measured faster than the portable
 * loop, which beat the loops of float32 and 16-bit pixels there (one thread, RGB 2x
 * bicubic: uint8 8.3 against 9.9 ms; float32 8.8 against 10.1 ms, uint16 41 against
 * 44 ms). */
CRESIZE_PERIODIC_ENTRY(cresize_periodic_f32_f32, float, float, 1, cresize_periodic_f32_f32_c,
                       cresize_periodic_f32_f32_avx2, cresize_periodic_f32_f32_avx512)
CRESIZE_PERIODIC_ENTRY(cresize_periodic_f32_u8, float, unsigned char, 0,
                       cresize_periodic_f32_u8_c, cresize_periodic_f32_u8_avx2,
                       cresize_periodic_f32_u8_avx512)
CRESIZE_PERIODIC_ENTRY(cresize_periodic_f32_s8, float, signed char, 0,
                       cresize_periodic_f32_s8_c, cresize_periodic_f32_s8_avx2,
                       cresize_periodic_f32_s8_avx512)
CRESIZE_PERIODIC_ENTRY(cresize_periodic_f64_f64, double, double, 1, cresize_periodic_f64_f64_c,
                       cresize_periodic_f64_f64_avx2, cresize_periodic_f64_f64_avx512)
CRESIZE_PERIODIC_ENTRY(cresize_periodic_f64_u16, double, unsigned short, 1,
                       cresize_periodic_f64_u16_c, cresize_periodic_f64_u16_avx2,
                       cresize_periodic_f64_u16_avx512)
CRESIZE_PERIODIC_ENTRY(cresize_periodic_f64_s16, double, short, 1, cresize_periodic_f64_s16_c,
                       cresize_periodic_f64_s16_avx2, cresize_periodic_f64_s16_avx512)

/* The exact float32 sums of 16-bit pixels: the caller (the plan's rule) vouches that
 * they are exact. Levels none and sse2, and where the SIMD paths do not take the range,
 * run the float64 loops (the same bits; scalar float32 sums measured no faster). */
#define CRESIZE_PERIODIC_X32_ENTRY(NAME, T, CENTRE, AVX2, WIDE, F64)             \
    static inline int NAME(double *out, const T *line, Py_ssize_t n_in, Py_ssize_t C, \
                           const Py_ssize_t *start, const double *weight,         \
                           Py_ssize_t width, Py_ssize_t s, Py_ssize_t nq)         \
    {                                                                            \
        float wf[CRESIZE_X32_MAX_PERIOD * CRESIZE_PERIOD_TAPS];                  \
        double back[CRESIZE_X32_MAX_PERIOD];                                     \
        if (cresize_simd_level >= 2 && s <= CRESIZE_X32_MAX_PERIOD               \
            && width <= CRESIZE_PERIOD_TAPS) {                                   \
            cresize_x32_prepare(weight, width, s, CENTRE, wf, back);             \
            if (cresize_simd_level >= 3                                          \
                && CRESIZE_PERIODIC_TRY(WIDE, out, line, n_in, C, start, wf, width, s, nq, \
                                        back))                                   \
                return 1;                                                        \
            if (CRESIZE_PERIODIC_TRY(AVX2, out, line, n_in, C, start, wf, width, s, nq, back)) \
                return 1;                                                        \
        }                                                                        \
        return F64(out, line, n_in, C, start, weight, width, s, nq);             \
    }

CRESIZE_PERIODIC_X32_ENTRY(cresize_periodic_x32_u16, unsigned short, 32768.0,
                           cresize_periodic_x32_u16_avx2,
                           cresize_periodic_x32_u16_avx512, cresize_periodic_f64_u16)
CRESIZE_PERIODIC_X32_ENTRY(cresize_periodic_x32_s16, short, 0.0,
                           cresize_periodic_x32_s16_avx2, cresize_periodic_x32_s16_avx512,
                           cresize_periodic_f64_s16)

#endif
