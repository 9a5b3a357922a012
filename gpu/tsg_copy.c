/*
 * tsg_copy.c — the pipeline's host-side copy loops. See tsg_copy.h.
 */
#include "tsg_copy.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TSG_X86 1
#else
#define TSG_X86 0
#endif

static void axpby_scalar(float *dst, const float *src, int64_t n, float beta)
{
    for (int64_t i = 0; i < n; ++i) dst[i] = fmaf(beta, dst[i], src[i]);
}

#if TSG_X86
/* Non-temporal stores: aligned to 16 bytes first, 64 bytes per step. */
static void copy_stream(float *dst, const float *src, int64_t n)
{
    int64_t i = 0;
    while (i < n && ((uintptr_t)(dst + i) & 15)) dst[i] = src[i], ++i;
    for (; i + 16 <= n; i += 16) {
        __m128 a = _mm_loadu_ps(src + i), b = _mm_loadu_ps(src + i + 4);
        __m128 c = _mm_loadu_ps(src + i + 8), d = _mm_loadu_ps(src + i + 12);
        _mm_stream_ps(dst + i, a);
        _mm_stream_ps(dst + i + 4, b);
        _mm_stream_ps(dst + i + 8, c);
        _mm_stream_ps(dst + i + 12, d);
    }
    for (; i < n; ++i) dst[i] = src[i];
}

/* 16 floats per step with VFMADD (one rounding, as fmaf); the tail goes through fmaf. */
__attribute__((target("avx2,fma"))) static void axpby_fma(float *dst, const float *src, int64_t n,
                                                          float beta)
{
    const __m256 b = _mm256_set1_ps(beta);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 c0 = _mm256_loadu_ps(dst + i), c1 = _mm256_loadu_ps(dst + i + 8);
        __m256 p0 = _mm256_loadu_ps(src + i), p1 = _mm256_loadu_ps(src + i + 8);
        _mm256_storeu_ps(dst + i, _mm256_fmadd_ps(b, c0, p0));
        _mm256_storeu_ps(dst + i + 8, _mm256_fmadd_ps(b, c1, p1));
    }
    axpby_scalar(dst + i, src + i, n - i, beta);
}
#endif

void tsg_copy_floats(float *dst, const float *src, int64_t n, int kind, float beta)
{
    if (n <= 0) return;
    if (kind == TSG_COPY_AXPBY) {
#if TSG_X86
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
            axpby_fma(dst, src, n, beta);
            return;
        }
#endif
        axpby_scalar(dst, src, n, beta);
        return;
    }
#if TSG_X86
    if (kind == TSG_COPY_STREAM && n >= 64) {
        copy_stream(dst, src, n);
        return;
    }
#endif
    memcpy(dst, src, (size_t)n * sizeof(float));
}

void tsg_copy_fence(int kind)
{
#if TSG_X86
    if (kind == TSG_COPY_STREAM) _mm_sfence();
#else
    (void)kind;
#endif
}
