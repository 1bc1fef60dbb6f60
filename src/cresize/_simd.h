/* Four outputs of a float32 row resample at once, with SSE where it exists and
 * cresize_simd_level allows it (see _simd_pixels.h for the level).
 *
 * Each of the four outputs j has `width` taps on the contiguous inputs
 * line[start[j]] ... line[start[j] + width - 1] with weights w[j*width + k].
 * Lane j of the accumulator adds its products in tap order, starting from 0,
 * exactly as the scalar loop does, so both give the same bits.
 */
#ifndef CRESIZE_SIMD_H
#define CRESIZE_SIMD_H

#include <stddef.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define CRESIZE_SSE 1

static inline void cresize_rows4_f32_sse(float *out, const float *line, const Py_ssize_t *start,
                                         const float *w, Py_ssize_t width)
{
    const float *l0 = line + start[0], *l1 = line + start[1];
    const float *l2 = line + start[2], *l3 = line + start[3];
    const float *w0 = w, *w1 = w + width, *w2 = w + 2 * width, *w3 = w + 3 * width;
    __m128 acc = _mm_setzero_ps();
    Py_ssize_t k = 0;
    for (; k + 4 <= width; k += 4) {  /* 4 taps: products, then a 4x4 transpose */
        __m128 p0 = _mm_mul_ps(_mm_loadu_ps(w0 + k), _mm_loadu_ps(l0 + k));
        __m128 p1 = _mm_mul_ps(_mm_loadu_ps(w1 + k), _mm_loadu_ps(l1 + k));
        __m128 p2 = _mm_mul_ps(_mm_loadu_ps(w2 + k), _mm_loadu_ps(l2 + k));
        __m128 p3 = _mm_mul_ps(_mm_loadu_ps(w3 + k), _mm_loadu_ps(l3 + k));
        _MM_TRANSPOSE4_PS(p0, p1, p2, p3);
        acc = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_add_ps(acc, p0), p1), p2), p3);
    }
    for (; k + 2 <= width; k += 2) {  /* 2 taps: pairs of rows share a register */
        __m128 x01 = _mm_castpd_ps(_mm_loadh_pd(_mm_load_sd((const double *)(l0 + k)),
                                                 (const double *)(l1 + k)));
        __m128 x23 = _mm_castpd_ps(_mm_loadh_pd(_mm_load_sd((const double *)(l2 + k)),
                                                 (const double *)(l3 + k)));
        __m128 w01 = _mm_castpd_ps(_mm_loadh_pd(_mm_load_sd((const double *)(w0 + k)),
                                                 (const double *)(w1 + k)));
        __m128 w23 = _mm_castpd_ps(_mm_loadh_pd(_mm_load_sd((const double *)(w2 + k)),
                                                 (const double *)(w3 + k)));
        __m128 p01 = _mm_mul_ps(w01, x01), p23 = _mm_mul_ps(w23, x23);
        acc = _mm_add_ps(acc, _mm_shuffle_ps(p01, p23, _MM_SHUFFLE(2, 0, 2, 0)));
        acc = _mm_add_ps(acc, _mm_shuffle_ps(p01, p23, _MM_SHUFFLE(3, 1, 3, 1)));
    }
    for (; k < width; k++) {
        __m128 x = _mm_set_ps(l3[k], l2[k], l1[k], l0[k]);
        __m128 v = _mm_set_ps(w3[k], w2[k], w1[k], w0[k]);
        acc = _mm_add_ps(acc, _mm_mul_ps(v, x));
    }
    _mm_storeu_ps(out, acc);
}

#else
#define CRESIZE_SSE 0
#endif

/* The portable twin: lane j's sum, in the same order, from the same 0. */
static inline void cresize_rows4_f32_c(float *out, const float *line, const Py_ssize_t *start,
                                       const float *w, Py_ssize_t width)
{
    for (int j = 0; j < 4; j++) {
        float acc = 0.0f;
        for (Py_ssize_t k = 0; k < width; k++)
            acc = acc + w[j * width + k] * line[start[j] + k];
        out[j] = acc;
    }
}

#include "_simd_pixels.h"

static inline void cresize_rows4_f32(float *out, const float *line, const Py_ssize_t *start,
                                     const float *w, Py_ssize_t width)
{
#if CRESIZE_SSE
    if (cresize_simd_level >= 1) {
        cresize_rows4_f32_sse(out, line, start, w, width);
        return;
    }
#endif
    cresize_rows4_f32_c(out, line, start, w, width);
}

#endif
