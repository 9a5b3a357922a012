/*
 * tsg_copy.h — the transfer pipeline's host-side copy loops: what one copy thread does to one
 * range of floats when it gathers user memory into a pinned slot or scatters a landed slot into
 * the caller's C (gpu/tsg_exec.cu cuts the ranges; gpu/tsg_pool.h runs them).
 *
 * Owns: the three copy kinds and their memory-ordering rule. Must not: know CUDA, OpenBLAS, the
 * plan or the pool. Plain C, so the unit tier (tests/unit/test_copy.c) checks it on any machine.
 */
#ifndef TSG_COPY_H
#define TSG_COPY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsg_copy_kind {
    TSG_COPY_MEMCPY = 1, /* memcpy: the gathers of calls uploading more than 64 MiB (faster
                            there); in a small call the slots it fills keep their lines dirty
                            in the CPU's caches and the DMA engine read 1 MiB units at 20-22
                            GB/s instead of 45 (docs/NOTES.md "v0.9"; tsg_exec.cu gather_kind) */
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

#ifdef __cplusplus
}
#endif

#endif /* TSG_COPY_H */
