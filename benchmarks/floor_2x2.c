/* The traffic floor of the x2 nearest backward of a (16, 64, 56, 56) float32 feature map
 * (1024 planes of 112x112 -> 56x56), and loops tried against the library's, in C:
 *
 *     gcc -O3 -ffp-contract=off -fopenmp benchmarks/floor_2x2.c -o /tmp/floor_2x2
 *     OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive CPUCLK=1 /tmp/floor_2x2 16 16 5
 *
 * Arguments: the byte offsets of the gradient and of the result past a 2 MiB boundary
 * (NumPy's large arrays lie 16 bytes past one; default 16 16), the rounds (default 3) and
 * a comma list of the loops to time (default all). CPUCLK=1: CPU time of the process (the
 * threads' sum; with OMP_WAIT_POLICY=passive, so that waiting does not count) instead of
 * wall time, for a shared machine. Each round times every loop 31 times, interleaved, and
 * prints their medians in ms; the last column is the median of the rounds. 2 MiB pages
 * (madvise), as NumPy's arrays of this size get them; each thread takes a contiguous half
 * of the output rows, as the library's kernel does. Sizes are read at run time, as the
 * library has them. Every loop but read and rw4 is checked against the library's bits,
 *
 *     out[o] = (0 + (a[2o] + b[2o])) + (a[2o+1] + b[2o+1])
 *
 * Loops: read (the gradient read once), rw4 (read once, sums of 4 contiguous values
 * written: the same traffic, no shuffles), rows (the library's buffered loop,
 * CRESIZE_SUM_2X2_UNIT, a call a row through the level dispatch), flat (the same rows in
 * one function, the share as one stream), group4 / group8 (4 or 8 rows' a + b into one
 * stack buffer, then their 4 * 56 pair sums), group4s (the same, its buffer static),
 * group4r (the same, the group's rows and 64-output chunks run-time bounds, as a
 * library function has them), il1 / il8 / il56 / il448 (the two threads taking blocks of
 * 1, 8, 56 or 448 rows in turn instead of halves), aligned (each row's first outputs
 * one by one, so that the rest loads from 64-byte boundaries), reg7 (AVX-512 register
 * loop over the two-row period: 112 outputs, 7 stores of 16, no row end), reg7nt (the
 * same, its stores streamed; only where the result is 64-byte aligned), rw4cz (rw4 with
 * each output line cleared by AMD's CLZERO first; only when named, on an aligned result).
 * What they gave:
 * docs/kernels.md, "Tried and left out". */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef long I;
static I P = 1024, OH = 56, IH = 112, NO = 56, IR = 112; /* run-time sizes */
static clockid_t clk = CLOCK_MONOTONIC;
#define A2 __attribute__((target("avx2")))
#define A5 __attribute__((target("avx512f,avx2")))

static double now(void)
{
    struct timespec t;
    clock_gettime(clk, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The library's buffered loop (_simd_sums.h, CRESIZE_SUM_2X2_UNIT). */
#define UNIT(NAME, ATTR)                                                                \
    ATTR void NAME(float *restrict out, const float *restrict a, const float *restrict b, \
                   I n)                                                                 \
    {                                                                                   \
        float p[128];                                                                   \
        for (I o0 = 0; o0 < n; o0 += 64) {                                             \
            I m = n - o0 < 64 ? n - o0 : 64, c, o;                                      \
            const float *a0 = a + 2 * o0, *b0 = b + 2 * o0;                             \
            for (c = 0; c < 2 * m; c++)                                                 \
                p[c] = a0[c] + b0[c];                                                   \
            for (o = 0; o < m; o++)                                                     \
                out[o0 + o] = (0.0f + p[2 * o]) + p[2 * o + 1];                         \
        }                                                                               \
    }
UNIT(unit_call, A2 static __attribute__((noinline)))
UNIT(unit_inl, A2 static inline __attribute__((always_inline)))
static volatile int level = 2;

static void v_rows(float *out, const float *src, I j0, I j1)
{ /* CRESIZE_FOR_2X2_ROWS: a plane's rows at a time, one call a row */
    I b_ = j0 / OH, oy_ = j0 - b_ * OH, j_ = j0, n_, r_;
    for (; j_ < j1; j_ += n_, b_++, oy_ = 0) {
        const float *a = src + b_ * IH * IR + 2 * oy_ * IR;
        float *o = out + j_ * NO;
        n_ = OH - oy_ < j1 - j_ ? OH - oy_ : j1 - j_;
        for (r_ = 0; r_ < n_; r_++, a += 2 * IR, o += NO) {
            if (level < 2)
                abort();
            unit_call(o, a, a + IR, NO);
        }
    }
}

A2 static void v_flat(float *out, const float *src, I j0, I j1)
{
    const float *a = src + j0 * 2 * IR;
    float *o = out + j0 * NO;
    for (I j = j0; j < j1; j++, a += 2 * IR, o += NO)
        unit_inl(o, a, a + IR, NO);
}

#define GROUP(NAME, K, STORAGE)                                                         \
    A2 static void NAME(float *out, const float *src, I j0, I j1)                       \
    {                                                                                   \
        STORAGE float pb[2][K * 256] __attribute__((aligned(64)));                     \
        float *p = pb[omp_get_thread_num() & 1];                                        \
        const float *a = src + j0 * 2 * IR;                                             \
        float *o = out + j0 * NO;                                                       \
        I j = j0;                                                                       \
        for (; j + K <= j1; j += K, a += K * 2 * IR, o += K * NO) {                     \
            for (int k = 0; k < K; k++) {                                               \
                const float *ak = a + k * 2 * IR, *bk = ak + IR;                        \
                float *pk = p + k * 2 * NO;                                             \
                for (I c = 0; c < 2 * NO; c++)                                          \
                    pk[c] = ak[c] + bk[c];                                              \
            }                                                                           \
            for (I c = 0; c < K * NO; c++)                                              \
                o[c] = (0.0f + p[2 * c]) + p[2 * c + 1];                                \
        }                                                                               \
        for (; j < j1; j++, a += 2 * IR, o += NO)                                       \
            unit_inl(o, a, a + IR, NO);                                                 \
    }
GROUP(v_group4, 4, )
GROUP(v_group8, 8, )
GROUP(v_group4s, 4, static)

A2 static void v_group4r(float *out, const float *src, I j0, I j1)
{ /* run-time group rows and 64-output chunks, as a library function has them */
    float p[4 * 128];
    const float *a = src + j0 * 2 * IR;
    float *o = out + j0 * NO;
    for (I j = j0; j < j1; j += 4, a += 8 * IR, o += 4 * NO) {
        I rows = j1 - j < 4 ? j1 - j : 4;
        for (I o0 = 0; o0 < NO; o0 += 64) {
            I m = NO - o0 < 64 ? NO - o0 : 64, c, r;
            for (r = 0; r < rows; r++) {
                const float *ar = a + 2 * r * IR + 2 * o0, *br = ar + IR;
                for (c = 0; c < 2 * m; c++)
                    p[r * 2 * m + c] = ar[c] + br[c];
            }
            if (m == NO)
                for (c = 0; c < rows * m; c++)
                    o[c] = (0.0f + p[2 * c]) + p[2 * c + 1];
            else
                for (r = 0; r < rows; r++)
                    for (c = 0; c < m; c++)
                        o[r * NO + o0 + c] = (0.0f + p[r * 2 * m + 2 * c]) + p[r * 2 * m + 2 * c + 1];
        }
    }
}

A2 static void v_aligned(float *out, const float *src, I j0, I j1)
{ /* rows 448 bytes apart: every row has the same misalignment */
    const float *a = src + j0 * 2 * IR;
    float *o = out + j0 * NO;
    I h = ((64 - ((size_t)a & 63)) & 63) / 8; /* outputs before the boundary */
    for (I j = j0; j < j1; j++, a += 2 * IR, o += NO) {
        const float *b = a + IR;
        for (I k = 0; k < h; k++)
            o[k] = (0.0f + (a[2 * k] + b[2 * k])) + (a[2 * k + 1] + b[2 * k + 1]);
        unit_inl(o + h, a + 2 * h, b + 2 * h, NO - h);
    }
}

A5 static inline __m512 pairs16(__m512 s0, __m512 s1)
{
    const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                         28, 30);
    const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27,
                                         29, 31);
    return _mm512_add_ps(_mm512_add_ps(_mm512_setzero_ps(), _mm512_permutex2var_ps(s0, ev, s1)),
                         _mm512_permutex2var_ps(s0, od, s1));
}
#define LS(p) _mm512_add_ps(_mm512_loadu_ps(p), _mm512_loadu_ps((p) + 112))
#define REG7(NAME, STORE, FENCE)                                                        \
    A5 static void NAME(float *out, const float *src, I j0, I j1)                       \
    { /* 56 outputs a row, an even number of rows a thread */                           \
        const float *a = src + j0 * 224;                                                \
        float *o = out + j0 * 56;                                                       \
        for (I j = j0; j + 2 <= j1; j += 2, a += 448, o += 112) {                       \
            const float *c = a + 224;                                                   \
            STORE(o, pairs16(LS(a), LS(a + 16)));                                       \
            STORE(o + 16, pairs16(LS(a + 32), LS(a + 48)));                             \
            STORE(o + 32, pairs16(LS(a + 64), LS(a + 80)));                             \
            STORE(o + 48, pairs16(LS(a + 96), LS(c)));                                  \
            STORE(o + 64, pairs16(LS(c + 16), LS(c + 32)));                             \
            STORE(o + 80, pairs16(LS(c + 48), LS(c + 64)));                             \
            STORE(o + 96, pairs16(LS(c + 80), LS(c + 96)));                             \
        }                                                                               \
        FENCE;                                                                          \
    }
REG7(v_reg7, _mm512_storeu_ps, (void)0)
REG7(v_reg7nt, _mm512_stream_ps, _mm_sfence())

A2 static void v_read(float *out, const float *g, I j0, I j1)
{
    const float *a = g + j0 * 2 * IR, *e = g + j1 * 2 * IR;
    __m256 s = _mm256_setzero_ps(), t = s;
    for (; a < e; a += 16) {
        s = _mm256_add_ps(s, _mm256_loadu_ps(a));
        t = _mm256_add_ps(t, _mm256_loadu_ps(a + 8));
    }
    float f[8];
    _mm256_storeu_ps(f, _mm256_add_ps(s, t));
    out[j0 * NO] = f[0];
}

A2 static void v_rw4(float *out, const float *g, I j0, I j1)
{
    const float *a = g + j0 * 2 * IR;
    float *o = out + j0 * NO;
    I n = (j1 - j0) * NO;
    for (I i = 0; i < n; i++)
        o[i] = ((a[4 * i] + a[4 * i + 1]) + a[4 * i + 2]) + a[4 * i + 3];
}

/* rw4 with each whole output line first cleared by CLZERO (AMD: a line written without
 * being read first); only where the result is 64-byte aligned, and only when named (a CPU
 * without CLZERO faults on it). */
__attribute__((target("avx2,clzero"))) static void v_rw4cz(float *out, const float *g, I j0,
                                                           I j1)
{
    const float *a = g + j0 * 2 * IR;
    float *o = out + j0 * NO;
    I n = (j1 - j0) * NO, i = 0;
    for (; i < n && ((size_t)(o + i) & 63); i++)
        o[i] = ((a[4 * i] + a[4 * i + 1]) + a[4 * i + 2]) + a[4 * i + 3];
    for (; i + 16 <= n; i += 16) {
        _mm_clzero(o + i);
        for (I k = i; k < i + 16; k++)
            o[k] = ((a[4 * k] + a[4 * k + 1]) + a[4 * k + 2]) + a[4 * k + 3];
    }
    for (; i < n; i++)
        o[i] = ((a[4 * i] + a[4 * i + 1]) + a[4 * i + 2]) + a[4 * i + 3];
}

typedef void (*F)(float *, const float *, I, I);
static int gran; /* 0: halves; else blocks of gran rows, in turn */

static void run(F f, float *out, const float *g)
{
#pragma omp parallel
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        I J = P * OH;
        if (!gran)
            f(out, g, J * t / n, J * (t + 1) / n);
        else
            for (I j = (I)t * gran; j < J; j += (I)n * gran)
                f(out, g, j, j + gran < J ? j + gran : J);
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int goff = argc > 1 ? atoi(argv[1]) : 16, ooff = argc > 2 ? atoi(argv[2]) : 16;
    int rounds = argc > 3 ? atoi(argv[3]) : 3;
    const char *only = argc > 4 ? argv[4] : NULL;
    if (rounds < 1 || rounds > 15) {
        fprintf(stderr, "rounds: 1 to 15\n");
        return 2;
    }
    if (getenv("CPUCLK"))
        clk = CLOCK_PROCESS_CPUTIME_ID;
    size_t gn = P * IH * IR, on = P * OH * NO, M = 2 << 20;
    size_t GB = (gn * 4 + 2 * M) & ~(M - 1), OB = (on * 4 + 2 * M) & ~(M - 1);
    char *gm = aligned_alloc(M, GB), *om = aligned_alloc(M, OB);
    madvise(gm, GB, MADV_HUGEPAGE);
    madvise(om, OB, MADV_HUGEPAGE);
    float *g = (float *)(gm + goff), *out = (float *)(om + ooff), *ref = malloc(on * 4);
    srand(1);
    for (size_t i = 0; i < gn; i++)
        g[i] = (float)rand() / RAND_MAX;
    memset(om, 0, OB);
    for (I j = 0; j < P * OH; j++)
        for (I x = 0; x < NO; x++) {
            const float *a = g + j * 2 * IR, *b = a + IR;
            ref[j * NO + x] = (0.0f + (a[2 * x] + b[2 * x])) + (a[2 * x + 1] + b[2 * x + 1]);
        }
    struct {
        const char *name;
        F f;
        int gran, check;
    } V[] = {{"read", v_read, 0, 0},      {"rw4", v_rw4, 0, 0},         {"rows", v_rows, 0, 1},
             {"flat", v_flat, 0, 1},      {"group4", v_group4, 0, 1},   {"group8", v_group8, 0, 1},
             {"group4s", v_group4s, 0, 1}, {"group4r", v_group4r, 0, 1}, {"il1", v_flat, 1, 1},
             {"il8", v_flat, 8, 1},       {"il56", v_flat, 56, 1},      {"il448", v_flat, 448, 1},
             {"aligned", v_aligned, 0, 1}, {"reg7", v_reg7, 0, 1},       {"reg7nt", v_reg7nt, 0, 1}, {"rw4cz", v_rw4cz, 0, 0}};
    int nv = sizeof V / sizeof V[0], v, r, k;
    static double ts[20][31], med[20][16];
    for (v = 0; v < nv; v++) {
        int skip = (only && !strstr(only, V[v].name)) ||
                   (V[v].f == v_reg7nt && ((size_t)out & 63)) ||
                   (V[v].f == v_rw4cz && (((size_t)out & 63) || !only)) ||
                   (V[v].f == v_aligned && ((size_t)g & 7));
        if (skip) {
            V[v].check = -1;
            continue;
        }
        if (!V[v].check)
            continue;
        memset(out, 0, on * 4);
        gran = V[v].gran;
        run(V[v].f, out, g);
        if (memcmp(out, ref, on * 4))
            printf("%s: NOT the library's bits\n", V[v].name);
    }
    double t0 = now();
    while (now() - t0 < 1.5) /* warm up (clock, pages) */
        run(v_rows, out, g);
    for (k = 0; k < rounds; k++) {
        for (r = 0; r < 31; r++)
            for (v = 0; v < nv; v++) {
                if (V[v].check < 0)
                    continue;
                gran = V[v].gran;
                t0 = now();
                run(V[v].f, out, g);
                ts[v][r] = now() - t0;
            }
        for (v = 0; v < nv; v++)
            if (V[v].check >= 0) {
                qsort(ts[v], 31, sizeof(double), cmp);
                med[v][k] = ts[v][15] * 1e3;
            }
    }
    printf("g +%d, out +%d bytes, %s, medians of 31 (ms)\n", goff, ooff,
           clk == CLOCK_MONOTONIC ? "wall" : "CPU time");
    for (v = 0; v < nv; v++) {
        if (V[v].check < 0)
            continue;
        double m[16];
        printf("%-8s", V[v].name);
        for (k = 0; k < rounds; k++)
            printf(" %.3f", m[k] = med[v][k]);
        qsort(m, rounds, sizeof(double), cmp);
        printf("  | %.3f\n", m[rounds / 2]);
    }
    return 0;
}
