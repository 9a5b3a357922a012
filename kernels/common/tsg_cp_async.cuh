/*
 * tsg_cp_async.cuh — global -> shared copies by cp.async (sm_80 and up) for the big (big/) and
 * warp-specialized (ws/) families: the PTX wrappers and AsyncLoader, the loader both families use
 * for an operand contiguous along m / n (and the big family for one contiguous along k).
 * Out-of-range elements are copied with src-size 0 (cp.async's zero fill), so the contract's
 * "out-of-range elements land in shared memory as 0.0" holds without a skipped store.
 */
#ifndef TSG_CP_ASYNC_CUH
#define TSG_CP_ASYNC_CUH

#include <stdint.h>

#include "tsg_kernel_common.h" /* PAD */

namespace tsg {

/* The shared-state-space address of a shared-memory pointer (the operand cp.async and mbarriers
 * take). */
static __device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* A 16-byte copy bypasses L1 (.cg): a slice of an operand contiguous along m / n uses whole
 * lines. A 4-byte copy allocates in L1 (.ca, the only kind PTX has); PF = 128 / 256 adds an L2
 * prefetch of the 128- / 256-byte block around the address (.L2::128B / .L2::256B). */
template <int BYTES, int PF = 0>
static __device__ __forceinline__ void cp_async(uint32_t dst, const float *src, int src_bytes)
{
    static_assert(BYTES == 16 || BYTES == 4, "cp.async of 4 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TSG_CP_ASYNC(op)                                                                           \
    asm volatile(op " [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES), "r"(src_bytes) : "memory")
    if constexpr (BYTES == 16) TSG_CP_ASYNC("cp.async.cg.shared.global");
    else if constexpr (PF == 128) TSG_CP_ASYNC("cp.async.ca.shared.global.L2::128B");
    else if constexpr (PF == 256) TSG_CP_ASYNC("cp.async.ca.shared.global.L2::256B");
    else TSG_CP_ASYNC("cp.async.ca.shared.global");
#undef TSG_CP_ASYNC
#else
    (void)dst, (void)src, (void)src_bytes;
    __trap(); /* the families that copy this way are built for sm_80 and up only (CMake's list) */
#endif
}

static __device__ __forceinline__ void cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N>
static __device__ __forceinline__ void cp_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/*
 * Copies BK x W slices [k0, k0 + BK) x [mn0, mn0 + W) of op(X) into a k-major shared tile
 * s[kk][mn] (row stride W + PAD), one slice per issue(). CONTIG_MN: op(X)(mn, kk) = x[mn + kk*ld];
 * otherwise op(X)(mn, kk) = x[kk + mn*ld] (the coordinate swap is the transpose). VW = 4: 16-byte
 * copies along mn (x and ld 16-byte aligned); VW = 1: 4-byte copies. A row (running along the
 * contiguous dimension) has LV vectors; TV = min(LV, THREADS) threads share it, thread t owning
 * vectors t % TV + j * TV (j < CP = LV / TV: more than one only when a row has more vectors than
 * the block has threads, as 256 floats one at a time in a 128-thread block) of rows
 * t / TV + q * RSTEP (q < PASSES). Elements
 * outside [0, mn_end) x [0, k_end) are zero-filled (src-size 0 or a partial vector; the source
 * address then points at x itself, so nothing outside the operand is ever addressed).
 * SWZ (an operand contiguous along k only): element (mn, kk) lands at column mn ^ kswz(kk) of row
 * kk, kswz(kk) = (kk / 8) * (32 / BK) < 4. Without it a BK = 16 slice's warp (16 consecutive k of
 * 2 columns) stores k and k + 8 to one bank, as rows are W + 4 = 4 (mod 32) floats apart: every
 * 4-byte copy of a transposed operand takes two shared-memory wavefronts. With it the 32 lanes
 * hit 32 banks; the XOR stays inside an aligned group of 4 columns, so a fragment's LDS.128 reads
 * the same 16 bytes, its components permuted, and the compute loop undoes the permutation in its
 * (compile-time) register indices.
 * PF: the L2 prefetch size of the 4-byte copies (cp_async).
 */
template <int W, int BK, int THREADS, bool CONTIG_MN, int VW, bool SWZ = false, int PF = 0>
struct AsyncLoader {
    static constexpr int LC = CONTIG_MN ? W : BK; /* contiguous extent of a slice */
    static constexpr int LO = CONTIG_MN ? BK : W; /* the other extent */
    static constexpr int LV = LC / VW;            /* vectors per row */
    static constexpr int CP = LV > THREADS ? LV / THREADS : 1; /* vectors of a row per thread */
    static constexpr int TV = LV / CP;            /* threads per row */
    static constexpr int RSTEP = THREADS / TV;    /* rows between a thread's passes */
    static constexpr int PASSES = LO / RSTEP;
    static constexpr int SROW = W + PAD;
    /* byte distance in shared memory between a thread's passes */
    static constexpr int SPASS = CONTIG_MN ? RSTEP * SROW * 4 : RSTEP * 4;
    static_assert(CONTIG_MN || VW == 1, "an operand contiguous along k is copied a float at a time");
    static_assert(LC % VW == 0 && LV % CP == 0 && THREADS % TV == 0 && LO % RSTEP == 0 && PASSES >= 1,
                  "the threads cover the slice");
    static_assert(CP == 1 || CONTIG_MN, "only a row along mn is wider than the block");
    static_assert(!SWZ || CONTIG_MN || (TV == BK && (BK == 8 || BK == 16 || BK == 32) && RSTEP % 4 == 0),
                  "the swizzle's bank argument: a warp covers 32 / BK columns of BK consecutive k, and a "
                  "pass moves by whole groups of 4 columns");
    static constexpr __host__ __device__ int kswz(int kk) { return (kk % BK / 8) * (32 / BK); }

    const float *x;  /* the operand's first element (a valid address for zero-size copies) */
    const float *p;  /* this thread's first element of the current slice */
    int64_t step;    /* address step from one slice to the next */
    int64_t pstep;   /* address step from one pass to the next: RSTEP rows along k or mn, ld apart */
    int64_t k_left;  /* k_end minus this thread's first k in the current slice */
    int mn_lim;      /* valid elements ahead along mn (0..W): of the row from the thread's first
                        vector (CONTIG_MN), or rows from its first (otherwise) */
    uint32_t s_off;  /* byte offset of this thread's first element in a stage's tile */

    __device__ __forceinline__ AsyncLoader(const float *x_, int64_t ld, int64_t mn0, int64_t mn_end,
                                           int64_t k_end)
        : AsyncLoader(x_, ld, mn0, mn_end, k_end, (int)threadIdx.x)
    {
    }
    /* t: this thread's number among the THREADS that copy (a warp-specialized block's producers
     * count from 0; ws/tsg_kernel_ws.cuh) */
    __device__ __forceinline__ AsyncLoader(const float *x_, int64_t ld, int64_t mn0, int64_t mn_end,
                                           int64_t k_end, int t)
    {
        const int c = (t % TV) * VW, r = t / TV;
        const int64_t mn = CONTIG_MN ? mn0 + c : mn0 + r;
        const int64_t kk = CONTIG_MN ? r : c;
        x = x_;
        p = CONTIG_MN ? x_ + kk * ld + mn : x_ + mn * ld + kk; /* 64-bit: coordinate times ld */
        step = CONTIG_MN ? (int64_t)BK * ld : (int64_t)BK;
        pstep = (int64_t)RSTEP * ld;
        k_left = k_end - kk;
        const int64_t left = mn_end - mn;
        mn_lim = (int)(left < 0 ? 0 : left > W ? W : left);
        s_off = (uint32_t)(CONTIG_MN ? (r * SROW + c) * 4 : (c * SROW + (SWZ ? r ^ kswz(c) : r)) * 4);
    }

    /* Issues this thread's copies of the current slice into the tile at shared address s_tile and
     * advances to the next slice. FULL (the caller's block-uniform promise): the slice lies wholly
     * inside the operand (a tile interior along mn, all BK rows of k below k_end), so no element
     * needs a check — the main loop's common case, about a third of the non-FFMA instructions of
     * a K step otherwise (in the SASS). */
    template <bool FULL>
    __device__ __forceinline__ void issue(uint32_t s_tile)
    {
#pragma unroll
        for (int q = 0; q < PASSES; ++q) {
#pragma unroll
            for (int j = 0; j < CP; ++j) {
                int bytes = VW * 4;
                if (FULL)
                    ;
                else if (CONTIG_MN) { /* row k = first k + q*RSTEP; vector j runs along mn */
                    const int v = mn_lim - j * TV * VW;
                    bytes = k_left > (int64_t)q * RSTEP ? (v < 0 ? 0 : v > VW ? VW : v) * 4 : 0;
                } else                /* row mn = first mn + q*RSTEP; one element at this thread's k */
                    bytes = (mn_lim > q * RSTEP && k_left > 0) ? 4 : 0;
                const float *src = FULL || bytes ? p + q * pstep + j * TV * VW : x;
                cp_async<VW * 4, PF>(s_tile + s_off + q * SPASS + j * TV * VW * 4, src, bytes);
            }
        }
        p += step;
        k_left -= BK;
    }
};

} /* namespace tsg */

#endif /* TSG_CP_ASYNC_CUH */
