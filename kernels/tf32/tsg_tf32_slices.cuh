/*
 * tsg_tf32_slices.cuh — the tensor-core family's operand slices (kernels/tf32/, issue 36): the
 * 128 x 32 tile geometry, the producer's split slices (Slice: global loads into registers, then
 * big and small parts stored K-major with the 128-byte swizzle and the non-finite flags), its raw
 * FP32 copies by cp.async (RawSlice, OPT_AREG's op(A), OPT_BRAW's and OPT_BCP's op(B)), OPT_BCP's
 * split of such a copy in place (split_in_place) and where a consumer
 * thread finds its wgmma A fragments in a raw slice (frag_off). The conflict-free mappings and
 * the swizzle are argued in tsg_kernel_tf32.cuh's file comment.
 * Owns: the slice geometry. Borrows: cp_async (kernels/common/), the wrappers of tsg_tf32_ptx.cuh.
 */
#ifndef TSG_TF32_SLICES_CUH
#define TSG_TF32_SLICES_CUH

#include <stdint.h>

#include "../common/tsg_cp_async.cuh" /* cp_async (RawSlice) */
#include "tsg_kernel_tf32.h"
#include "tsg_tf32_ptx.cuh"

namespace tsg {
namespace tf32 {

constexpr int BM = TF32_TILE_M, BN = TF32_TILE_N, BK = TF32_TILE_K; /* tsg_kernel_tf32.h */
constexpr int SLICE_BYTES = BM * BK * 4; /* one operand slice, one part: 16 KiB */
static_assert(BM == BN, "both operands' slices share one loader geometry");

/* component j (0..3, a compile-time index after unrolling) of v */
static __device__ __forceinline__ float comp(const float4 &v, int j)
{
    return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}

/* four values of a slice split (PARTS 2: big and small parts; 1: big only, TF32-rounded, small
 * 0); nf becomes NaN (and stays so) when a value or its big part is not finite (split) */
template <int PARTS>
static __device__ __forceinline__ void split4(const float (&e)[4], uint32_t (&b)[4], uint32_t (&s)[4], float &nf)
{
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        if (PARTS == 2) split(e[j], b[j], s[j], nf);
        else round1(e[j], b[j], nf), s[j] = 0;
    }
}

/* split4's parts stored as one 16-byte chunk at shared address big_a (and small_a: PARTS 2) */
template <int PARTS>
static __device__ __forceinline__ void store4(uint32_t big_a, uint32_t small_a, const uint32_t (&b)[4],
                                              const uint32_t (&s)[4])
{
    st_shared_v4(big_a, b[0], b[1], b[2], b[3]);
    if (PARTS == 2) st_shared_v4(small_a, s[0], s[1], s[2], s[3]);
}

/*
 * One producer thread's part of a 128 x 32 slice of an operand: rows [r0, r0 + 128) of R rows,
 * k [k0, k0 + 32) of K. KC: contiguous along k (op(X)(r, k) = x[k + r ld]), else along r
 * (x[r + k ld]). x 16-byte aligned and ld % 4 == 0 (tf32_takes). NP producer threads (128 or
 * 256) share the slice: NV = 1024 / NP vectors of 4 each; vector i of thread pt (warp w, lane l)
 * starts at row r, k kk:
 *  - KC: r = pt / 8 + (NP / 8) i, kk = 4 (pt % 8);
 *  - else: r = 4 (2 (w + (NP / 32) (i / 2)) + l % 2), kk = l / 2 + 16 (i % 2).
 * Within a warp both mappings are the same for every NP (the file comment's conflict-free rows).
 */
template <bool KC, int NP, bool TBLK = false>
struct Slice {
    static constexpr int NV = 1024 / NP, W = NP / 32;
    /* TBLK (an R-contiguous operand only): the thread's vectors come in 4 x 4 blocks, four
     * consecutive k of the same four rows, transposed in registers so that each row's four k
     * leave in one 16-byte store (block_qc) */
    static constexpr bool BLK = TBLK && !KC;
    float4 v[NV];

    /* BLK: block b of thread pt covers rows 4q .. 4q+3 and k 4c .. 4c+3 of the slice. Within a
     * warp q = l / 4 + const, c = l % 4 + const: a load (one k) reads 4 x 128 contiguous bytes,
     * and the 8 lanes of a quarter-warp's 16-byte store (rows 4q + j, q of two parities; chunk c
     * of four values) land on 8 distinct chunk positions c ^ (r mod 8) */
    static __device__ __forceinline__ void block_qc(int pt, int b, int &q, int &c)
    {
        const int bi = pt + NP * b, l = bi % 32, wq = bi / 32;
        q = l / 4 + 8 * (wq % 4), c = l % 4 + 4 * (wq / 4);
    }

    /* FULL: the block-uniform promise that the slice lies inside the operand */
    template <bool FULL>
    __device__ __forceinline__ void load(const float *__restrict__ x, int64_t ld, int64_t r0, int64_t R, int64_t k0,
                                         int64_t K, int pt)
    {
        const int l = pt % 32, w = pt / 32;
#pragma unroll
        for (int i = 0; i < NV; ++i) {
            int r, kk; /* the vector's first element: KC 4 along k, else 4 along r */
            if (BLK) {
                int q, c;
                block_qc(pt, i / 4, q, c);
                r = 4 * q, kk = 4 * c + i % 4;
            } else if (KC) {
                r = pt / 8 + (NP / 8) * i, kk = 4 * (pt % 8);
            } else {
                r = 4 * (2 * (w + W * (i >> 1)) + (l & 1)), kk = (l >> 1) + 16 * (i & 1);
            }
            const int64_t gr = r0 + r, gk = k0 + kk;
            const float *p = KC ? x + gk + gr * ld : x + gr + gk * ld;
            if (FULL) {
                v[i] = __ldg(reinterpret_cast<const float4 *>(p));
            } else {
                float e[4];
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const bool ok = KC ? (gr < R && gk + j < K) : (gr + j < R && gk < K);
                    e[j] = ok ? __ldg(KC ? p + j : p + j) : 0.0f;
                }
                v[i] = make_float4(e[0], e[1], e[2], e[3]);
            }
        }
    }

    /* BLK with OPT_BCP: the vectors load() would read from global memory, read instead from a
     * staged copy at shared address stg (RawSlice<false, NP, true>: row k at k * 512 bytes, chunk
     * q at q ^ 2 ((k / 4) mod 4)). A quarter-warp's 16-byte reads (rows 4c + i of four c, chunks q
     * of two parities) land on 8 distinct chunk positions */
    __device__ __forceinline__ void load_staged(uint32_t stg, int pt)
    {
        static_assert(BLK, "a staged slice is read in 4 x 4 blocks");
#pragma unroll
        for (int i = 0; i < NV; ++i) {
            int q, c;
            block_qc(pt, i / 4, q, c);
            const int kk = 4 * c + i % 4;
            v[i] = ld_shared_v4(stg + (uint32_t)(kk * 512 + ((q ^ (2 * ((kk >> 2) & 3))) << 4)));
        }
    }

    /* the split parts into the slice tiles at shared addresses big_t / small_t (PARTS 2); nf as
     * split4's */
    template <int PARTS>
    __device__ __forceinline__ void store(uint32_t big_t, uint32_t small_t, int pt, float &nf) const
    {
        const int l = pt % 32, w = pt / 32;
        if constexpr (BLK) {
#pragma unroll
            for (int bk = 0; bk < NV / 4; ++bk) {
                int q, c;
                block_qc(pt, bk, q, c);
#pragma unroll
                for (int j = 0; j < 4; ++j) { /* row 4q + j: element j of the block's four vectors */
                    const float e[4] = {comp(v[4 * bk], j), comp(v[4 * bk + 1], j), comp(v[4 * bk + 2], j),
                                        comp(v[4 * bk + 3], j)};
                    uint32_t b[4], s[4];
                    split4<PARTS>(e, b, s, nf);
                    const int r = 4 * q + j;
                    const uint32_t off = (uint32_t)(r * 128 + ((c ^ (r & 7)) << 4));
                    store4<PARTS>(big_t + off, small_t + off, b, s);
                }
            }
        } else {
#pragma unroll
            for (int i = 0; i < NV; ++i) {
                const float e[4] = {v[i].x, v[i].y, v[i].z, v[i].w};
                uint32_t b[4], s[4];
                split4<PARTS>(e, b, s, nf);
                if (KC) {
                    const int r = pt / 8 + (NP / 8) * i, c = pt % 8;
                    const uint32_t off = (uint32_t)(r * 128 + ((c ^ (r & 7)) << 4));
                    store4<PARTS>(big_t + off, small_t + off, b, s);
                } else {
                    const int rq = 2 * (w + W * (i >> 1)) + (l & 1), kk = (l >> 1) + 16 * (i & 1);
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        const int r = 4 * rq + j;
                        const uint32_t off = (uint32_t)(r * 128 + ((((kk >> 2) ^ (r & 7))) << 4) + (kk & 3) * 4);
                        st_shared(big_t + off, b[j]);
                        if (PARTS == 2) st_shared(small_t + off, s[j]);
                    }
                }
            }
        }
    }
};

/*
 * One producer thread's cp.async copies of a 128 x 32 slice of an operand as FP32, unsplit:
 * OPT_AREG's op(A) (the consumers split it in registers: frag_off), OPT_BRAW's and OPT_BCP's op(B). KC (op(A)(r, k) = x[k + r ld]): K-major, row r at
 * r * 128 bytes with the 128-byte swizzle, as Slice stores; chunk c (k = 4c .. 4c+3) of row
 * r = pt / 8 + (NP / 8) i copied by lane pt % 8. Else (x[r + k ld]): R-major, row k at k * 512
 * bytes, chunk q (r = 4q .. 4q+3) at chunk position q ^ 2 (k mod 4), row k = pt / 32 + (NP / 32) i
 * copied by lane q = pt % 32: a warp writes one row's 512 bytes, and frag_off's reads hit 32
 * banks. STG (OPT_BCP's staged op(B), R-contiguous): chunk q at q ^ 2 ((k / 4) mod 4) instead,
 * which Slice::load_staged's 4 x 4 blocks read without conflicts. Elements outside the operand
 * are zero-filled (src-size < 16; the source then points at x itself when nothing is copied).
 * x 16-byte aligned, ld % 4 == 0 (tf32_takes).
 */
template <bool KC, int NP, bool STG = false>
struct RawSlice {
    template <bool FULL>
    static __device__ __forceinline__ void copy(uint32_t dst, const float *__restrict__ x, int64_t ld, int64_t r0,
                                                int64_t R, int64_t k0, int64_t K, int pt)
    {
#pragma unroll
        for (int i = 0; i < 1024 / NP; ++i) {
            int64_t gr, gk;
            uint32_t off;
            int64_t left; /* elements of the chunk inside the operand */
            if (KC) {
                const int r = pt / 8 + (NP / 8) * i, c = pt % 8;
                gr = r0 + r, gk = k0 + 4 * c;
                off = (uint32_t)(r * 128 + ((c ^ (r & 7)) << 4));
                left = gr < R ? K - gk : 0;
            } else {
                const int kk = pt / 32 + (NP / 32) * i, q = pt % 32;
                gr = r0 + 4 * q, gk = k0 + kk;
                off = (uint32_t)(kk * 512 + ((q ^ (2 * (STG ? (kk >> 2) & 3 : kk & 3))) << 4));
                left = gk < K ? R - gr : 0;
            }
            const int bytes = FULL ? 16 : 4 * (int)(left < 0 ? 0 : left > 4 ? 4 : left);
            const float *p = bytes ? (KC ? x + gk + gr * ld : x + gr + gk * ld) : x;
            cp_async<16>(dst + off, p, bytes);
        }
    }
};

/*
 * OPT_BCP: one producer thread's split of a K-contiguous slice that its own RawSlice<true, NP>
 * copies put, as FP32, into the big tile at big_t: the chunks that thread copied (row
 * r = pt / 8 + (NP / 8) i, chunk c = pt % 8: Slice<true, NP>::store's mapping too), each read back,
 * split as Slice::store splits it and stored in place (big) and at small_t (PARTS 2), so the tiles
 * hold Slice::store's bits. Call it once this thread's copies of the slice have landed
 * (cp.async.wait_group: they are then visible to this thread, PTX ISA "cp.async.wait_group"); nf as
 * Slice::store. Eight lanes read and write one row's 128 bytes at 8 distinct chunk positions.
 */
template <int NP, int PARTS>
static __device__ __forceinline__ void split_in_place(uint32_t big_t, uint32_t small_t, int pt, float &nf)
{
#pragma unroll
    for (int i = 0; i < 1024 / NP; ++i) {
        const int r = pt / 8 + (NP / 8) * i, c = pt % 8;
        const uint32_t off = (uint32_t)(r * 128 + ((c ^ (r & 7)) << 4));
        const float4 v = ld_shared_v4(big_t + off);
        const float e[4] = {v.x, v.y, v.z, v.w};
        uint32_t b[4], s[4];
        split4<PARTS>(e, b, s, nf);
        store4<PARTS>(big_t + off, small_t + off, b, s);
    }
}

/* AREG: consumer thread (warp w of warpgroup wg, lane l; g = l / 4, t = l % 4) reads its wgmma A
 * fragments of a k-tile from a RawSlice: fragment kk (k8 step), register v holds op(A)(row, k) with
 * row = 64 wg + 16 w + g + 8 (v % 2), k = 8 kk + t + 4 (v / 2) (PTX ISA 9.7.15.5.1, "Register
 * Fragments", matrix A of .m64nNk8 with .tf32). Offsets in bytes within the slice. */
template <bool KC>
static __device__ __forceinline__ uint32_t frag_off(int wg, int w, int l, int kk, int v)
{
    const int g = l / 4, t = l % 4, row = 64 * wg + 16 * w + g + 8 * (v % 2), k = 8 * kk + t + 4 * (v / 2);
    if (KC) return (uint32_t)(row * 128 + (((k / 4) ^ (row & 7)) << 4) + 4 * (k % 4));
    return (uint32_t)(k * 512 + (((row / 4) ^ (2 * (k & 3))) << 4) + 4 * (row % 4));
}

/*
 * OPT_ATMA's rows (tsg_kernel_tf32.cuh, "ATMA"): which of the tile's rows of op(A) the wgmma
 * fragment row g + 8 h (g = lane / 4, h = 0, 1: PTX ISA 9.7.15.5.1, "Register Fragments") of warp
 * w stands for, within its warpgroup's 64. PERM false: 16 w + g + 8 h, the fragment's own order.
 * PERM true (an R-contiguous op(A) copied by tensor copies into four 32-row boxes, row k of a box
 * at k * 128 bytes, 16-byte chunk q = (row mod 32) / 4 at position q ^ (k mod 8): the 128-byte
 * swizzle): 32 (w / 2) + 8 (w % 2) + 4 h + 16 (g / 4) + g % 4, a bijection of the 64 rows (the five
 * terms take the row's bits 5, 3, 2, 4 and 1-0), chosen so that a warp's read of one fragment
 * register (g 0-7, t = lane % 4 giving k mod 4) finds its 32 values in 32 distinct banks: chunk
 * position (2 (w % 2) + h + 4 (g / 4)) ^ (k mod 8) takes 4 values over t (its low bits) times 2
 * over g / 4 (bit 2), and g % 4 picks the word in the chunk. H: the row step of h.
 */
template <bool PERM>
struct ArowMap {
    static constexpr int H = PERM ? 4 : 8;
    static __device__ __forceinline__ int row(int w, int g, int h)
    {
        return PERM ? 32 * (w / 2) + 8 * (w % 2) + 4 * h + 16 * (g / 4) + g % 4 : 16 * w + g + 8 * h;
    }
};

/* OPT_ATMA: frag_off for a slice written by tensor copies. KC (a K-contiguous op(A): one box of
 * 32 k x 128 rows with the 128-byte swizzle) is frag_off<true>'s layout; else four boxes of 32 rows
 * x 32 k at 4096 bytes each (ArowMap<true>'s layout), the row ArowMap<true>::row's */
template <bool KC>
static __device__ __forceinline__ uint32_t frag_off_tma(int wg, int w, int l, int kk, int v)
{
    if (KC) return frag_off<true>(wg, w, l, kk, v);
    const int g = l / 4, t = l % 4, k = 8 * kk + t + 4 * (v / 2);
    const int row = 64 * wg + ArowMap<true>::row(w, g, v % 2), rr = row % 32;
    return (uint32_t)((row / 32) * 4096 + k * 128 + (((rr / 4) ^ (k & 7)) << 4) + 4 * (rr % 4));
}

} /* namespace tf32 */
} /* namespace tsg */

#endif /* TSG_TF32_SLICES_CUH */
