/*
 * tsg_copy.h — the transfer pipeline's host-side copy loops: what one copy thread does to one
 * range of floats when it gathers user memory into a pinned slot or scatters a landed slot into
 * the caller's C, how a rectangle of floats is cut into the parts of one job, and the first touch
 * of a fresh C (gpu/tsg_pipeline.cu makes the jobs; gpu/tsg_pool.h runs them).
 *
 * Owns: the three copy kinds and their memory-ordering rule, the parts of a copy job, the first
 * touch. Must not: know CUDA, OpenBLAS or the plan; of the pool it knows only the job function's
 * signature. Plain C, so the unit tier (tests/unit/test_copy.c) checks it on any machine.
 */
#ifndef TSG_COPY_H
#define TSG_COPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsg_copy_kind {
    TSG_COPY_MEMCPY = 1, /* memcpy: the gathers of calls uploading more than 64 MiB (faster
                            there); in a small call the slots it fills keep their lines dirty
                            in the CPU's caches and the DMA engine read 1 MiB units at 20-22
                            GB/s instead of 45 (docs/NOTES.md "v0.9"; tsg_pipeline.cu gather_kind) */
    TSG_COPY_STREAM = 2, /* non-temporal 16-byte stores (x86): no read for ownership of the
                            destination lines, so two memory transfers per byte instead of
                            three, and nothing left in the caches for a DMA to fetch; the
                            gathers of calls uploading at most 64 MiB (since v0.9) and the
                            beta = 0 scatters                                               */
    TSG_COPY_AXPBY = 3   /* dst[i] = fmaf(beta, dst[i], src[i]): a scatter that applies beta
                            on the host, so C never goes up (v0.8; docs/NOTES.md)             */
} tsg_copy_kind;

/*
 * Copies (or, for TSG_COPY_AXPBY, combines) n floats from src into dst; the ranges must not
 * overlap. beta is read only by TSG_COPY_AXPBY, whose every element is one correctly rounded
 * fused multiply-add — the same operation as the kernels' write-back fmaf(beta, c, alpha*acc),
 * so the vector path (AVX2 + FMA where the CPU has them) and the scalar one agree bit for bit.
 * Any alignment; n = 0 does nothing. After TSG_COPY_STREAM stores, call tsg_copy_fence before
 * another thread may read dst.
 */
void tsg_copy_floats(float *dst, const float *src, int64_t n, int kind, float beta);

/* Makes this thread's non-temporal stores visible (an sfence on x86; nothing for other kinds). */
void tsg_copy_fence(int kind);

/*
 * One copy job: a rectangle of cols columns of `rows` floats, `sld` floats apart in src and `dld`
 * apart in dst (user memory -> a pinned slot, or a slot -> the caller's C), copied with kind and
 * beta as tsg_copy_floats's. Its parts are ranges of columns, or, for fewer columns than parts,
 * ranges of rows of one column (rsplit parts per column); both packed (sld = dld = rows): ranges
 * of the one flat run.
 */
typedef struct tsg_copy_rect {
    const float *src;
    int64_t sld;
    float *dst;
    int64_t dld;
    int64_t rows, cols;
    int rsplit; /* row parts per column (tsg_copy_rect_parts sets it; 1: columns)         */
    int kind;   /* TSG_COPY_*                                                            */
    float beta; /* TSG_COPY_AXPBY: dst = beta * dst + src                                 */
} tsg_copy_rect;

/* The parts to cut r into for a pool of `threads` copy threads: about 128 KiB or more each, at
 * most threads + 1 (the waiting thread copies too), or cols * rsplit when the columns are fewer
 * than that. Sets r->rsplit; returns the part count. */
int tsg_copy_rect_parts(tsg_copy_rect *r, int threads);

/* The pool's job function (gpu/tsg_pool.h tsg_job_fn) of a tsg_copy_rect: copies part `part` of
 * `nparts` (the count tsg_copy_rect_parts returned), then fences its stores (tsg_copy_fence), so
 * the job counts as done only once they are visible. */
void tsg_copy_rect_part(void *ctx, int part, int nparts);

/*
 * The first touch of a caller's fresh C (a result in memory the program never wrote, numpy's
 * case), so the scatters do not fault page by page: the pages of [lo, hi) (page-aligned, covering
 * C's extent [c_lo, c_hi)) made writable by MADV_POPULATE_WRITE (Linux 5.14; the contents do not
 * change), else an atomic add of 0 to one word of C's extent per page. Parts start on 2 MiB
 * boundaries, so that no huge page is populated by two threads. A pool job function, ctx a
 * tsg_touch.
 */
typedef struct tsg_touch {
    char *lo, *hi;
    float *c_lo, *c_hi;
} tsg_touch;
void tsg_touch_part(void *ctx, int part, int nparts);

/* 1 when the first and the last page of [p, p + bytes) are mapped in (mincore), else 0. */
int tsg_copy_mapped(const void *p, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif /* TSG_COPY_H */
