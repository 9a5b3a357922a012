/*
 * tsg_copy.c — the pipeline's host-side copy loops and copy jobs. See tsg_copy.h.
 */
#include "tsg_copy.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

void tsg_copy_rect_part(void *ctx, int part, int nparts)
{
    const tsg_copy_rect *c = (const tsg_copy_rect *)ctx;
    if (c->sld == c->rows && c->dld == c->rows) { /* both packed: one flat range */
        const int64_t total = c->rows * c->cols;
        const int64_t a = total * part / nparts, b = total * (part + 1) / nparts;
        tsg_copy_floats(c->dst + a, c->src + a, b - a, c->kind, c->beta);
    } else if (c->rsplit > 1) { /* a row range of one column */
        const int64_t j = part / c->rsplit, r = part % c->rsplit;
        const int64_t i0 = c->rows * r / c->rsplit, i1 = c->rows * (r + 1) / c->rsplit;
        tsg_copy_floats(c->dst + j * c->dld + i0, c->src + j * c->sld + i0, i1 - i0, c->kind, c->beta);
    } else {
        const int64_t j0 = c->cols * part / nparts, j1 = c->cols * (part + 1) / nparts;
        for (int64_t j = j0; j < j1; ++j)
            tsg_copy_floats(c->dst + j * c->dld, c->src + j * c->sld, c->rows, c->kind, c->beta);
    }
    tsg_copy_fence(c->kind); /* the stores are visible before the job counts as done */
}

int tsg_copy_rect_parts(tsg_copy_rect *c, int threads)
{
    const double bytes = 4.0 * (double)c->rows * (double)c->cols;
    const double by_size = ceil(bytes / (128 << 10));
    const double most = (double)(threads + 1) < by_size ? (double)(threads + 1) : by_size;
    int parts = (int)most > 1 ? (int)most : 1;
    c->rsplit = 1;
    if (c->sld == c->rows && c->dld == c->rows) return parts;
    if (parts > c->cols) {
        c->rsplit = (int)((parts + c->cols - 1) / c->cols);
        return (int)(c->cols * c->rsplit);
    }
    return parts;
}

/* Page index (from t->lo) where part p of nparts starts: on a 2 MiB boundary except the ends. */
static int64_t touch_edge(const tsg_touch *t, int64_t pages, long page, int64_t p, int nparts)
{
    const int64_t group = ((int64_t)2 << 20) / page > 1 ? ((int64_t)2 << 20) / page : 1; /* pages per 2 MiB */
    const int64_t e = pages * p / nparts;
    if (p == 0 || p == nparts) return e;
    const int64_t lo = (int64_t)((uintptr_t)t->lo / (uintptr_t)page);
    const int64_t first = (lo + group - 1) / group * group - lo; /* the first 2 MiB boundary */
    const int64_t edge = e <= first ? first : first + (e - first + group / 2) / group * group;
    return edge < pages ? edge : pages;
}

void tsg_touch_part(void *ctx, int part, int nparts)
{
    const tsg_touch *t = (const tsg_touch *)ctx;
    const long page = sysconf(_SC_PAGESIZE);
    const int64_t pages = (t->hi - t->lo) / page;
    char *a = t->lo + touch_edge(t, pages, page, part, nparts) * page;
    char *b = t->lo + touch_edge(t, pages, page, part + 1, nparts) * page;
    if (b <= a) return;
#ifdef MADV_POPULATE_WRITE
    if (madvise(a, (size_t)(b - a), MADV_POPULATE_WRITE) == 0) return;
#endif
    for (char *q = a; q < b; q += page) { /* only words inside C's extent */
        float *f = (float *)q < t->c_lo ? t->c_lo : (float *)q;
        if (f < t->c_hi) __atomic_fetch_add((int *)f, 0, __ATOMIC_RELAXED);
    }
}

int tsg_copy_mapped(const void *p, size_t bytes)
{
    const long page = sysconf(_SC_PAGESIZE);
    unsigned char v = 0;
    char *first = (char *)((uintptr_t)p & ~(uintptr_t)(page - 1));
    char *last = (char *)(((uintptr_t)p + bytes - 1) & ~(uintptr_t)(page - 1));
    if (mincore(first, (size_t)page, &v) != 0 || !(v & 1)) return 0;
    if (mincore(last, (size_t)page, &v) != 0 || !(v & 1)) return 0;
    return 1;
}
