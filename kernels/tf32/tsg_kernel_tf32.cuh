/*
 * tsg_kernel_tf32.cuh — the tensor-core SGEMM family for Hopper (issue 36): C = alpha*op(A)*op(B)
 * + beta*C on TF32 tensor cores through wgmma, error-compensated (3xTF32) or plain (1xTF32).
 * Needs sm_90a (wgmma, setmaxnreg): built for that target only (CMakeLists.txt, tsg_kernels_tf32).
 *
 * Owns: this family's kernel, its producer (global loads, the TF32 split, the swizzled K-major
 * shared tiles, the non-finite flags) and its consumers (wgmma, promotion, the write-back, the
 * FP32 path of a tile with non-finite inputs). Borrows from kernels/common/ the mbarrier and
 * setmaxnreg wrappers and tile_coords.
 *
 * The block (Cfg::THREADS = 384 or 512): warpgroups 0 and 1 are consumers, each owning 64 rows of
 * the 128 x 128 C tile (wgmma m64n128k8); warpgroup 2 (and 3: NPW = 2) the producer, whose
 * threads share out each slice's rows (Slice). The grid is persistent: block
 * b takes tiles b, b + gridDim.x, ... in tile_coords' order; the producer runs ahead across tiles.
 *  - producer, per k-tile of BK = 32: loads the 128 x 32 slices of op(A) and op(B) into registers
 *    (16-byte loads; zero for elements outside the operand), waits for the stage to be empty,
 *    splits each element x into big = cvt.rna.tf32(x) and small = cvt.rna.tf32(x - big) (3xTF32;
 *    1xTF32 keeps big only), stores them K-major with the 128-byte swizzle, records per warp
 *    whether any big part is not finite (an Inf or NaN input, or a finite x that rounds to Inf),
 *    fences the generic-proxy stores for the async proxy (fence.proxy.async.shared::cta) and
 *    arrives on the stage's "full" mbarrier (one arrival per producer thread).
 *  - consumers, 3xTF32, per k-tile: wait on "full", read the stage's flags, issue
 *    T = small_A*big_B + big_A*small_B + big_A*big_B (12 wgmma k8 steps into one accumulator, the
 *    small terms first), wait for the group, release the stage ("empty", 256 arrivals) and
 *    promote T into the FP32 register sum Y with one round-to-nearest add per element: Hopper's
 *    tensor-core accumulation aligns and truncates, so only one k-tile's products go through it
 *    (docs/NOTES.md "3xTF32: prediction": never promoting costs 3-200x FP32's error).
 *    1xTF32 accumulates big_A*big_B over the whole K in the wgmma accumulator (the operands' own
 *    TF32 rounding, 2^-11, dominates its error) and keeps one group in flight, releasing stage s
 *    when the group of the next k-tile has been issued.
 *  - OPT (template bits; the library's defaults per pair in tsg_kernel_tf32.cu): OPT_AREG, the
 *    producer copies op(A)'s slice by cp.async as FP32 (RawSlice; its own arrival on "full") and
 *    the consumers read their wgmma A fragments from it (frag_off), split them in registers and
 *    issue the twelve wgmmas with A from registers: the same parts in the same order, so the same
 *    bits, with a quarter fewer bytes through the shared-memory pipe per k-tile (docs/NOTES.md
 *    "2026-12-06 3xTF32: op(A) split by the consumers"); op(A)'s non-finite flag is then the
 *    consumers' (consumers_any, once per tile). OPT_TBLK: an R-contiguous slice through the
 *    producer in 4 x 4 blocks, each row's four k in one 16-byte store (Slice::block_qc).
 *    OPT_HALF (3xTF32 with OPT_AREG): T in two 64-column halves (m64n64k8 groups), k-tiles in
 *    pairs, so that a half's promotion and the next k-tile's fragment loads run while another
 *    group is on the tensor cores; the same products, order and promotion points, so the same
 *    bits (the consumer's comment in the kernel gives the schedule).
 *  - BRAW (OPT_BRAW, an experiment: 1xTF32 with OPT_AREG where op(B) is K-contiguous, NN and TN;
 *    the producer limits 1xTF32, docs/results/h100-2026-12-06-run12-tf32-probe.txt): the producer
 *    copies op(B)'s slice as FP32 by cp.async into the B-big tile with RawSlice<true> (the layout
 *    Slice stores and desc reads: row r at r * 128 bytes, chunk c at c ^ (r mod 8)), issued after
 *    op(A)'s copies and before the one cp.async.mbarrier.arrive.noinc, which then covers both;
 *    publish() still writes the (zero) flags and makes the normal arrival, so "full" keeps its
 *    2 PTHREADS arrivals. No cvt: the tensor core reads a .tf32 operand's top 19 bits, i.e. op(B)
 *    truncated toward zero to TF32 (relative error < 2^-10 per element, against cvt.rna's 2^-11:
 *    a product's < 2^-9 + 2^-20), so the results differ from the default's bits and stay in the
 *    reduced-precision mode's error class.
 *    Proxy order: wgmma reads shared memory through the async proxy, and "an async proxy fence must
 *    be used to establish an ordering between prior writes to shared memory matrices and
 *    subsequent reads of the same matrices in a wgmma.mma_async instruction" (PTX ISA 9.7.15.7.1,
 *    wgmma.fence; 9.7.15.4 "Async Proxy"); a non-bulk cp.async writes through the generic proxy
 *    (only cp{.reduce}.async.bulk and the tensor copies are async-proxy operations). The
 *    copies complete asynchronously, so a fence by the producer after issuing them orders nothing;
 *    instead each consumer thread executes fence.proxy.async.shared::cta after its wait on "full"
 *    (whose phase completes only once every copy of the stage has landed:
 *    cp.async.mbarrier.arrive) and before its wgmmas: the fence then lies on the causality path
 *    from the copies to the wgmma reads, as the memory model's proxy rule asks. CUTLASS's own
 *    cp.async + GMMA mainloops (include/cutlass/gemm/collective/
 *    sm90_mma_multistage_gmma_ss_warpspecialized.hpp and ..._gmma_rs_warpspecialized.hpp,
 *    NVIDIA/cutlass; likewise sm100_mma_cpasync_warpspecialized.hpp for UMMA) issue no proxy fence
 *    at all: producer cp.async + cpasync_barrier_arrive, consumer consumer_wait then
 *    warpgroup_arrive and the GMMAs. The consumer fence here is the PTX ISA's rule taken
 *    literally, a superset of what CUTLASS does; it costs one fence per consumer thread and
 *    k-tile, not a wait in the producer (which a producer-side "cp.async.wait_group, fence,
 *    arrive" would add to the role that limits this kernel).
 *    Non-finite inputs: the producer no longer sees op(B), so it flags nothing (op(A)'s flag is the
 *    consumers' nfa as with AREG). After a tile's k loop each consumer folds its 64 accumulators
 *    into nfa (y * 0 is NaN exactly when y is not finite) and the tile takes the FP32 path when
 *    any consumer's nfa is NaN (consumers_any). That catches every non-finite op(B) element b(k, c)
 *    of the tile: the tensor core sees it as Inf or NaN (truncation keeps the all-ones exponent;
 *    a NaN whose payload lies only in the low 13 bits becomes an Inf: still not finite), and each
 *    of the 128 accumulator rows of column c takes the product a b: NaN for b NaN, NaN for a = 0
 *    (Inf * 0; rows past m are zero-filled, so they count too), +-Inf otherwise; a sum holding a
 *    NaN or an Inf stays NaN or +-Inf (Inf - Inf = NaN), across k8 steps and k-tiles, so column
 *    c's accumulators end non-finite. A finite tile whose sum overflows to Inf is recomputed in
 *    FP32 as well: it then gives the FP32 kernels' result, whatever that is (the default 1xTF32
 *    would write its Inf). As with the flags, the recompute is exact to the FP32 kernels for
 *    NaN / Inf; the check costs 64 FMAs and one named-barrier OR per tile.
 *  - non-finite inputs: a tile whose slices had any flag set is recomputed by its consumers in
 *    FP32 (fmaf over k in order, operands read from global memory) and written back from that:
 *    NaN and Inf then come out exactly as the FP32 kernels give them (the split would turn
 *    Inf * 0 and Inf - Inf into other classes). Such tiles are slow; they are rare.
 *  - registers: setmaxnreg.inc draws registers from those the other role gave back with .dec,
 *    so CTHREADS * (CREG - R0) + PTHREADS * (PREG - R0) <= 0 with R0 the count the kernel is
 *    launched with (ptxas's: 168 under __launch_bounds__(384, 1), 128 under (512, 1)); a request
 *    the pool cannot meet waits forever. Cfg checks it for R0 = 65536 / THREADS; tf32_init checks
 *    the real count and leaves the family unavailable where it does not hold. 3xTF32's consumers
 *    take registers (two 64-float accumulators), 1xTF32's give them to a lone producer.
 *  - shared layout of one operand slice (R = 128 rows of m or n, 32 k): row r at r * 128 bytes,
 *    its 16-byte chunk c (k = 4c .. 4c+3) at chunk position c ^ (r mod 8): the 128-byte swizzle
 *    (PTX ISA 9.7.15.5.1, "Shared Memory Matrix Layout", K-major, 128B swizzling: 8 rows x 128
 *    bytes per 1024-byte atom, tiles 1024-byte aligned). Descriptor (9.7.15.5.1.2, "Matrix
 *    Descriptor Format"): start address >> 4 in bits 0-13, leading byte offset 1 (unused for
 *    swizzled K-major), stride byte offset 1024 >> 4 (from one 8-row group to the next) in bits
 *    32-45, swizzle mode 1 (128B) in bits 62-63; the k8 step kk starts 32 kk bytes into the row.
 *  - the producer's mappings are conflict-free: a K-contiguous operand (op(X)(r, k) = x[k + r ld])
 *    is read 128 bytes of a row per 8 lanes and stored 16 bytes per lane, 8 lanes to 8 distinct
 *    chunks; an R-contiguous one (x[r + k ld]) is read 32 bytes of 16 k columns per warp and
 *    stored 4 bytes per element, lane bits mapping one to one onto the 32 banks.
 *  - every barrier is reached: each role walks the same tiles and k-tiles; one __syncthreads
 *    after the barriers' initialisation and one at the end, reached by every thread.
 * Fixed reduction order: the same instructions in the same order for every tile and run, whatever
 * the grid (the grid only assigns tiles to blocks).
 * Alignment: the 16-byte loads need A and B 16-byte aligned and lda, ldb multiples of 4
 * (tf32_takes refuses anything else); C has no alignment rule (4-byte stores).
 * Sources: PTX ISA (CUDA 13.0) sections named above, mbarrier (9.7.13.15), setmaxnreg (9.7.19.5),
 * cvt .tf32 (9.7.9.21); the warp-specialized producer / consumer pattern of kernels/ws/tsg_kernel_ws.cuh.
 * The 3xTF32 split is the well-known error-compensation scheme (big/small operand splitting).
 */
#ifndef TSG_KERNEL_TF32_CUH
#define TSG_KERNEL_TF32_CUH

#include <stdint.h>

#include "../common/tsg_cp_async.cuh"    /* cp_async (AREG's op(A)) */
#include "../common/tsg_mbarrier.cuh"    /* ws::mbar_*, ws::regs_inc/dec, mbar_arrive_cp_async */
#include "../common/tsg_tile_coords.cuh" /* tile_coords */
#include "tsg_kernel_tf32.h"

namespace tsg {
namespace tf32 {

constexpr int BM = 128, BN = 128, BK = 32;
constexpr int CTHREADS = 256; /* two consumer warpgroups */
constexpr int SLICE_BYTES = BM * BK * 4; /* one operand slice, one part: 16 KiB */

/* this role's registers per thread from here on: setmaxnreg.inc above the launch count R0, .dec below */
template <int R, int R0>
static __device__ __forceinline__ void regs_to()
{
    if (R > R0) ws::regs_inc<R>();
    else if (R < R0) ws::regs_dec<R>();
}
static_assert(BM == BN, "both operands' slices share one loader geometry");

/* MATH: MATH_3XTF32 (parts big and small) or MATH_TF32 (big only); NPW: producer warpgroups (1 or
 * 2: the slices' rows shared out among 128 NPW threads). Registers per thread after setmaxnreg:
 * consumers CREG, producers PREG, multiples of 8 with PREG <= R0 <= CREG for the launch count R0,
 * and the consumers' growth paid by the producers' shrinking (file comment). */
/* the kernel's OPT bits: OPT_AREG op(A) copied by cp.async as FP32 and split by the consumers
 * (RawSlice, frag_off: A from registers); OPT_TBLK R-contiguous slices through the producer in 4 x 4
 * blocks (Slice); OPT_BRAW (1xTF32 with OPT_AREG and a K-contiguous op(B) only: NN, TN) op(B)
 * copied raw by cp.async, the tensor core truncating it to TF32 (the kernel's comment, "BRAW") */
constexpr int OPT_AREG = 1, OPT_TBLK = 2, OPT_BRAW = 4, OPT_HALF = 8;
/* the OPT bits that change Cfg (registers, stages) */
constexpr int OPT_CFG = OPT_AREG | OPT_HALF;

template <int MATH, int NPW, int PIPE, int OPTC = 0>
struct Cfg {
    static constexpr bool AREG = OPTC & OPT_AREG, HALF = OPTC & OPT_HALF;
    static_assert(NPW == 1 || NPW == 2, "one or two producer warpgroups");
    static_assert(!HALF || (AREG && MATH == MATH_3XTF32), "OPT_HALF: 3xTF32 with op(A) split by the consumers");
    static_assert(AREG == 0 || PIPE == 2, "op(A) split by the consumers: producer order 2 only");
    static constexpr bool X3 = MATH == MATH_3XTF32;
    static constexpr int PTHREADS = 128 * NPW, THREADS = CTHREADS + PTHREADS, PWARPS = PTHREADS / 32;
    /* registers per thread the kernel is launched with: ptxas's count under
     * __launch_bounds__(THREADS, 1), 65536 / THREADS rounded down to a multiple of 8 (168 for 384
     * threads, 128 for 512); tf32_init checks the real one */
    static constexpr int R0 = (65536 / THREADS) & ~7;
    static constexpr int PARTS = X3 ? 2 : 1;
    /* a stage: [A big][B big]([A small][B small]); AREG: [A as FP32][B big]([B small]) */
    static constexpr int OFF_BB = SLICE_BYTES, OFF_AS = 2 * SLICE_BYTES, OFF_BS = (AREG ? 2 : 3) * SLICE_BYTES;
    static constexpr int STAGE_BYTES = (AREG ? 1 + PARTS : 2 * PARTS) * SLICE_BYTES;
    static constexpr int STAGES = X3 ? (AREG ? 4 : 3) : 6;
    static constexpr int BAR_OFF = STAGES * STAGE_BYTES;
    static constexpr int FLAG_OFF = BAR_OFF + 2 * STAGES * 8; /* uint32 flags[STAGES][PWARPS]: per producer warp */
    static constexpr int SMEM_BYTES = 1024 + FLAG_OFF + 4 * PWARPS * STAGES; /* + 1024: alignment slack */
    /* one producer warpgroup: 3xTF32's consumers take registers for their two accumulators and
     * 1xTF32's give them to the producer (64 data registers in flight: PIPE 1 and 2). Two: each
     * producer thread holds half the data (32 registers in flight), so it gives 48; two k-tiles
     * ahead (PIPE 3: 64 in flight) it keeps more, and the consumers have what is left */
    static constexpr bool DEEP = NPW == 2 && PIPE == 3;
    /* AREG: 3xTF32's consumers also hold a k-tile's op(A) parts (32 registers) until its wgmmas
     * complete, and the producer holds op(B)'s slice only */
    /* HALF: the consumers hold two A fragment sets (64 registers), the sum (64) and the two half
     * accumulators (64); the producer gives what that takes */
    static constexpr int CREG = HALF ? (NPW == 1 ? 216 : 208)
                              : AREG ? (X3 ? (NPW == 1 ? 200 : 192) : NPW == 1 ? R0 : 144)
                              : NPW == 1 ? (X3 ? 176 : 152) : DEEP ? (X3 ? 144 : 104) : (X3 ? 176 : 128);
    static constexpr int PREG = HALF ? (NPW == 1 ? 72 : 48)
                              : AREG ? (X3 ? (NPW == 1 ? 104 : 64) : NPW == 1 ? R0 : 112)
                              : NPW == 1 ? (X3 ? 152 : 200) : DEEP ? (X3 ? 112 : 152) : (X3 ? 80 : 128);
    /* no setmaxnreg at all (regs_to<R0, R0>): whatever count ptxas chose is both roles' */
    static constexpr bool NONE = CREG == R0 && PREG == R0;
    /* the pool rule for a launch count r0: what one role takes beyond r0 the other gives back */
    static constexpr bool fits(int r0)
    {
        return NONE || (CTHREADS * (CREG - r0) + PTHREADS * (PREG - r0) <= 0 && (CREG - r0) * (PREG - r0) <= 0);
    }
    static_assert(CREG % 8 == 0 && PREG % 8 == 0 && CREG <= 256 && PREG <= 256 && CREG >= 24 && PREG >= 24,
                  "setmaxnreg counts");
    static_assert(fits(R0), "setmaxnreg: what one role takes must be given back by the other");
    static_assert(SMEM_BYTES <= 227 * 1024, "shared memory per block");
};

static __device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/* big = x rounded to nearest TF32, small = TF32(x - big) (x - big is exact in FP32). A non-finite
 * big (x Inf or NaN, or a finite x within half a TF32 step of FLT_MAX) makes small meaningless:
 * the producer flags it (Slice::store) and the tile is recomputed in FP32. */
static __device__ __forceinline__ void split(float x, uint32_t &big, uint32_t &small)
{
    big = to_tf32(x);
    small = to_tf32(x - __uint_as_float(big));
}

static __device__ __forceinline__ void st_shared_v4(uint32_t addr, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d)
                 : "memory");
}
static __device__ __forceinline__ void st_shared(uint32_t addr, uint32_t a)
{
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(a) : "memory");
}

/* generic-proxy shared stores before the async proxy (wgmma) reads them (PTX ISA 9.7.13.4.1,
 * membar / fence.proxy) */
static __device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* component j (0..3, a compile-time index after unrolling) of v */
static __device__ __forceinline__ float comp(const float4 &v, int j)
{
    return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
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

    /* the split parts into the slice tiles at shared addresses big_t / small_t (PARTS 2); nf
     * becomes NaN (and stays so) when a big part is not finite: big * 0 is 0 for every finite big */
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
#pragma unroll
                    for (int u = 0; u < 4; ++u) {
                        if (PARTS == 2) split(e[u], b[u], s[u]);
                        else b[u] = to_tf32(e[u]), s[u] = 0;
                        nf = __fmaf_rn(__uint_as_float(b[u]), 0.0f, nf);
                    }
                    const int r = 4 * q + j;
                    const uint32_t off = (uint32_t)(r * 128 + ((c ^ (r & 7)) << 4));
                    st_shared_v4(big_t + off, b[0], b[1], b[2], b[3]);
                    if (PARTS == 2) st_shared_v4(small_t + off, s[0], s[1], s[2], s[3]);
                }
            }
        } else {
#pragma unroll
            for (int i = 0; i < NV; ++i) {
                const float e[4] = {v[i].x, v[i].y, v[i].z, v[i].w};
                uint32_t b[4], s[4];
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    if (PARTS == 2) split(e[j], b[j], s[j]);
                    else b[j] = to_tf32(e[j]), s[j] = 0;
                    nf = __fmaf_rn(__uint_as_float(b[j]), 0.0f, nf);
                }
                if (KC) {
                    const int r = pt / 8 + (NP / 8) * i, c = pt % 8;
                    const uint32_t off = (uint32_t)(r * 128 + ((c ^ (r & 7)) << 4));
                    st_shared_v4(big_t + off, b[0], b[1], b[2], b[3]);
                    if (PARTS == 2) st_shared_v4(small_t + off, s[0], s[1], s[2], s[3]);
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
 * AREG: one producer thread's cp.async copies of a 128 x 32 slice of op(A) as FP32, unsplit (the
 * consumers split it in registers: frag_off). KC (op(A)(r, k) = x[k + r ld]): K-major, row r at
 * r * 128 bytes with the 128-byte swizzle, as Slice stores; chunk c (k = 4c .. 4c+3) of row
 * r = pt / 8 + (NP / 8) i copied by lane pt % 8. Else (x[r + k ld]): R-major, row k at k * 512
 * bytes, chunk q (r = 4q .. 4q+3) at chunk position q ^ 2 (k mod 4), row k = pt / 32 + (NP / 32) i
 * copied by lane q = pt % 32: a warp writes one row's 512 bytes, and frag_off's reads hit 32
 * banks. Elements outside the operand are zero-filled (src-size < 16; the source then points at x
 * itself when nothing is copied). x 16-byte aligned, ld % 4 == 0 (tf32_takes).
 */
template <bool KC, int NP>
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
                off = (uint32_t)(kk * 512 + ((q ^ (2 * (kk & 3))) << 4));
                left = gk < K ? R - gr : 0;
            }
            const int bytes = FULL ? 16 : 4 * (int)(left < 0 ? 0 : left > 4 ? 4 : left);
            const float *p = bytes ? (KC ? x + gk + gr * ld : x + gr + gk * ld) : x;
            cp_async<16>(dst + off, p, bytes);
        }
    }
};

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

static __device__ __forceinline__ float ld_shared(uint32_t addr)
{
    float v;
    asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
    return v;
}

/* the OR of pred over the 256 consumer threads (named barrier 1; the producer never takes part) */
static __device__ __forceinline__ bool consumers_any(bool pred)
{
    uint32_t r;
    asm volatile("{\n.reg .pred p, q;\nsetp.ne.u32 p, %1, 0;\nbar.red.or.pred q, 1, 256, p;\nselp.u32 %0, 1, 0, q;\n}\n"
                 : "=r"(r)
                 : "r"((uint32_t)pred)
                 : "memory");
    return r != 0;
}

/* the wgmma matrix descriptor of a K-major, 128B-swizzled operand at shared address addr
 * (see the file's comment for the fields) */
static __device__ __forceinline__ uint64_t desc(uint32_t addr)
{
    const uint64_t lo = (uint64_t)((addr & 0x3ffffu) >> 4) | ((uint64_t)1 << 16);
    const uint64_t hi = (uint64_t)(1024 >> 4) | ((uint64_t)1 << 30);
    return lo | (hi << 32);
}

static __device__ __forceinline__ void wg_fence()
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
static __device__ __forceinline__ void wg_commit()
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int N>
static __device__ __forceinline__ void wg_wait()
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
/* keeps the compiler from moving reads or writes of accumulator registers across a wgmma
 * fence / wait (the asm redefines the register in program order) */
static __device__ __forceinline__ void reg_fence(float (&d)[64])
{
#pragma unroll
    for (int i = 0; i < 64; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/* D (64 x 128 of this warpgroup, f32) = A * B (+ D when scale_d != 0): one
 * wgmma.mma_async m64n128k8 .f32.tf32.tf32 with both operands from shared memory through the
 * descriptors da, db (PTX ISA 9.7.15.5, "wgmma.mma_async"; tf32 takes no transpose: both K-major). */
static __device__ __forceinline__ void wgmma_128(float (&d)[64], uint64_t da, uint64_t db, uint32_t scale_d)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "l"(da), "l"(db), "r"(scale_d));
#else
    (void)d, (void)da, (void)db, (void)scale_d;
    __trap();
#endif
}

/* the same with A from registers (AREG): a[0..3] this thread's fragment of the 64 x 8 A (TF32
 * bit patterns; frag_off), B through its descriptor (PTX ISA 9.7.15.5, wgmma.mma_async, register A).
 * The registers must not change until the wgmma has completed (wg_wait). */
static __device__ __forceinline__ void wgmma_rs(float (&d)[64], const uint32_t (&a)[4], uint64_t db,
                                                uint32_t scale_d)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
#else
    (void)d, (void)a, (void)db, (void)scale_d;
    __trap();
#endif
}

/* HALF: the same for one 64-column half of the tile, m64n64k8 (d[4 i + e]: column 8 i + 2 (l % 4)
 * + e % 2 of the half, i < 8; the B descriptor at the half's first row of op(B)^T) */
static __device__ __forceinline__ void wgmma_rs(float (&d)[32], const uint32_t (&a)[4], uint64_t db,
                                                uint32_t scale_d)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d));
#else
    (void)d, (void)a, (void)db, (void)scale_d;
    __trap();
#endif
}
/* 3xTF32's twelve k8 steps of a k-tile with A from registers, into d (64 x 128: wgmma_rs's 64
 * floats; a 64-column half: 32): small_A big_B, big_A small_B, big_A big_B, the first one
 * starting d afresh (scale_d 0). bb, bs: shared addresses of the B parts' rows for d's columns */
template <int NR>
static __device__ __forceinline__ void twelve_steps(float (&d)[NR], const uint32_t (&ab)[4][4],
                                                    const uint32_t (&as)[4][4], uint32_t bb, uint32_t bs)
{
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) wgmma_rs(d, as[kk], desc(bb + 32 * kk), kk > 0 ? 1u : 0u);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) wgmma_rs(d, ab[kk], desc(bs + 32 * kk), 1u);
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) wgmma_rs(d, ab[kk], desc(bb + 32 * kk), 1u);
}
static __device__ __forceinline__ void reg_fence32(float (&d)[32])
{
#pragma unroll
    for (int i = 0; i < 32; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/* one element of C from an FP32 result v: beta == 0 never reads C */
static __device__ __forceinline__ void put(float *__restrict__ C, int64_t ldc, int64_t r, int64_t c, float alpha,
                                           float v, float beta)
{
    float *p = C + r + c * ldc;
    *p = beta == 0.0f ? alpha * v : fmaf(alpha, v, beta * *p);
}

/* C(r, c) of a tile with non-finite inputs, in FP32: fmaf over k in order, as an FFMA kernel's
 * thread does, so that NaN and Inf come out as the FP32 kernels give them */
template <bool TA, bool TB>
static __device__ float fp32_dot(int64_t r, int64_t c, int64_t k, const float *__restrict__ A, int64_t lda,
                                 const float *__restrict__ B, int64_t ldb)
{
    float s = 0.0f;
    for (int64_t kk = 0; kk < k; ++kk) {
        const float a = TA ? A[kk + r * lda] : A[r + kk * lda];
        const float b = TB ? B[c + kk * ldb] : B[kk + c * ldb];
        s = fmaf(a, b, s);
    }
    return s;
}

/*
 * The kernel: C = alpha*op(A)*op(B) + beta*C, m, n, k >= 1; TA / TB as transa / transb == 'T'.
 * NPW producer warpgroups (Cfg). Dynamic shared memory Cfg<MATH, NPW, PIPE>::SMEM_BYTES,
 * block Cfg<MATH, NPW, PIPE>::THREADS. PIPE, the producer's order (data registers live per producer thread
 * with NPW = 1; NPW = 2 halves them): 0 op(A)'s slice is stored before op(B)'s is loaded (32);
 * 1 both slices' loads are issued before either is stored (64); 2 the next k-tile's slices are
 * loaded while this one's are stored (64, a stage's time to cover the loads); 3 as 2, two
 * k-tiles ahead (128: built with NPW = 2 only).
 */
/* DIAG (bench/tf32_probe.cu only; 0 in every instance of the library): a timing experiment that
 * leaves one stage out and computes garbage: 1 the consumers alone (no producer: no loads, no
 * split, no barrier waits), 2 the producer alone (consumers wait and release each stage, no
 * wgmma), 3 no per-k-tile wait and no promotion (the consumers release a stage as soon as its
 * wgmmas are issued). */
template <int MATH, bool TA, bool TB, int PIPE, int NPW, int DIAG = 0, int OPT = 0>
__global__ void __launch_bounds__(Cfg<MATH, NPW, PIPE, OPT & OPT_CFG>::THREADS, 1)
tf32_kernel(int64_t m, int64_t n, int64_t k, float alpha, const float *__restrict__ A, int64_t lda,
            const float *__restrict__ B, int64_t ldb, float beta, float *__restrict__ C, int64_t ldc)
{
    constexpr bool AREG = OPT & OPT_AREG, TBLK = OPT & OPT_TBLK, BRAW = OPT & OPT_BRAW, HALF = OPT & OPT_HALF;
    static_assert(!AREG || DIAG == 0 || DIAG == 1 || DIAG == 2, "DIAG 3 is the default order's only");
    static_assert(!BRAW || (MATH == MATH_TF32 && AREG && !TB),
                  "op(B) raw (BRAW): 1xTF32 with OPT_AREG and a K-contiguous op(B) (NN, TN) only");
    static_assert(!HALF || DIAG != 3, "OPT_HALF: no DIAG 3");
    using CF = Cfg<MATH, NPW, PIPE, OPT & OPT_CFG>;
    constexpr int S = CF::STAGES, PW = CF::PWARPS;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    const uint32_t s_raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
    const uint32_t s_base = (s_raw + 1023u) & ~1023u;
    const uint32_t bar_full = s_base + CF::BAR_OFF, bar_empty = bar_full + 8 * S;
    uint32_t *const flags = reinterpret_cast<uint32_t *>(smem_raw + (s_base - s_raw) + CF::FLAG_OFF);

    const int t = threadIdx.x;
    if (t == 0) {
#pragma unroll
        for (int s = 0; s < S; ++s) {
            /* AREG: each producer thread also arrives once its cp.async copies have landed */
            ws::mbar_init(bar_full + 8 * s, CF::PTHREADS * (AREG ? 2 : 1));
            ws::mbar_init(bar_empty + 8 * s, CTHREADS);
        }
        ws::mbar_init_fence();
    }
    __syncthreads();

    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN, tiles = tiles_m * tiles_n;
    const int64_t ktiles = (k + BK - 1) / BK, kfull = k / BK;

    if (t >= CTHREADS) {
        /* ---- producer ---- */
        regs_to<CF::PREG, CF::R0>();
        if (DIAG != 1) {
            const int pt = t - CTHREADS;
            int st = 0;
            uint32_t ph = 0;
            Slice<TA, CF::PTHREADS, TBLK> sa;  /* op(A) m x k: TA: A[k + m lda] contiguous along k */
            Slice<!TB, CF::PTHREADS, TBLK> sb; /* op(B) k x n: !TB: B[k + n ldb] contiguous along k */
            /* the rolling orders' next load: its tile's corner and how many of its k-tiles lie
             * inside the operands (coords) */
            int64_t m0 = 0, n0 = 0, a_full = 0, b_full = 0;
            auto coords = [&](int64_t tl) {
                int64_t bm, bn;
                tile_coords(tl, tiles_m, tiles_n, &bm, &bn);
                m0 = bm * BM, n0 = bn * BN;
                a_full = m0 + BM <= m ? kfull : 0, b_full = n0 + BN <= n ? kfull : 0;
            };
            /* the stage st is full: its non-finite flags (nf NaN in any lane of a warp), the fence
             * that orders the generic-proxy stores before wgmma reads them, the arrival; then the
             * next stage */
            auto publish = [&](float nf) {
                const unsigned bad = __any_sync(0xffffffffu, nf != nf);
                if (pt % 32 == 0) flags[PW * st + pt / 32] = bad;
                fence_proxy_async();
                ws::mbar_arrive(bar_full + 8 * st);
                if (++st == S) st = 0, ph ^= 1;
            };
            if (PIPE == 2) {
                /* rolling: the slices of the next (tile, k-tile) are loaded while this one's are stored,
                 * across tile boundaries too, so a whole stage's time covers the loads' latency */
                int64_t tile = blockIdx.x, kt = 0;
                auto load_a = [&](int64_t kk) {
                    if (kk < a_full) sa.template load<true>(A, lda, m0, m, kk * BK, k, pt);
                    else sa.template load<false>(A, lda, m0, m, kk * BK, k, pt);
                };
                auto load_b = [&](int64_t kk) {
                    if (kk < b_full) sb.template load<true>(B, ldb, n0, n, kk * BK, k, pt);
                    else sb.template load<false>(B, ldb, n0, n, kk * BK, k, pt);
                };
                if (tile < tiles) {
                    coords(tile);
                    if (!AREG) load_a(0);
                    if (!BRAW) load_b(0);
                }
                while (tile < tiles) {
                    int64_t nkt = kt + 1, ntile = tile;
                    if (nkt == ktiles) nkt = 0, ntile += gridDim.x;
                    const bool more = ntile < tiles;
                    const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                    float nf = 0.0f;
                    ws::mbar_wait(bar_empty + 8 * st, ph ^ 1);
                    if (AREG) { /* this k-tile's op(A) straight into the stage, its own arrival */
                        if (kt < a_full) RawSlice<TA, CF::PTHREADS>::template copy<true>(sbase, A, lda, m0, m, kt * BK, k, pt);
                        else RawSlice<TA, CF::PTHREADS>::template copy<false>(sbase, A, lda, m0, m, kt * BK, k, pt);
                        if (BRAW) { /* op(B) too, as FP32 into the B-big tile (K-major, swizzled: what desc reads),
                                     * before coords moves n0 on; the one arrival below covers both */
                            if (kt < b_full)
                                RawSlice<true, CF::PTHREADS>::template copy<true>(sbase + CF::OFF_BB, B, ldb, n0, n, kt * BK, k, pt);
                            else
                                RawSlice<true, CF::PTHREADS>::template copy<false>(sbase + CF::OFF_BB, B, ldb, n0, n, kt * BK, k, pt);
                        }
                        mbar_arrive_cp_async(bar_full + 8 * st);
                    } else {
                        sa.template store<CF::PARTS>(sbase, sbase + CF::OFF_AS, pt, nf);
                    }
                    if (more && ntile != tile) coords(ntile);
                    if (more && !AREG) load_a(nkt);
                    if (!BRAW) sb.template store<CF::PARTS>(sbase + CF::OFF_BB, sbase + CF::OFF_BS, pt, nf);
                    if (more && !BRAW) load_b(nkt);
                    /* BRAW: nf stays 0 (no flags: the consumers' check after the k loop); the
                     * arrival that completes the stage with the other */
                    publish(nf);
                    tile = ntile, kt = nkt;
                }
            } else if (PIPE == 3) {
                /* rolling, two deep: item i + 2's slices (item: one (tile, k-tile) of this block, in
                 * order) are loaded into the registers item i's were stored from, so two stages' time
                 * covers the loads' latency; items alternate between the slots (sa, sb) and (sa2, sb2) */
                Slice<TA, CF::PTHREADS, TBLK> sa2;
                Slice<!TB, CF::PTHREADS, TBLK> sb2;
                const int64_t items = blockIdx.x < tiles ? ((tiles - 1 - blockIdx.x) / gridDim.x + 1) * ktiles : 0;
                int64_t ltile = blockIdx.x, lkt = 0; /* the next load */
                auto load_a = [&](auto &xa) {
                    if (lkt < a_full) xa.template load<true>(A, lda, m0, m, lkt * BK, k, pt);
                    else xa.template load<false>(A, lda, m0, m, lkt * BK, k, pt);
                };
                auto load_b = [&](auto &xb) {
                    if (lkt < b_full) xb.template load<true>(B, ldb, n0, n, lkt * BK, k, pt);
                    else xb.template load<false>(B, ldb, n0, n, lkt * BK, k, pt);
                    if (++lkt == ktiles) {
                        lkt = 0, ltile += gridDim.x;
                        if (ltile < tiles) coords(ltile);
                    }
                };
                auto step = [&](auto &xa, auto &xb, int64_t i) {
                    const bool more = i + 2 < items;
                    const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                    float nf = 0.0f;
                    ws::mbar_wait(bar_empty + 8 * st, ph ^ 1);
                    xa.template store<CF::PARTS>(sbase, sbase + 2 * SLICE_BYTES, pt, nf);
                    if (more) load_a(xa);
                    xb.template store<CF::PARTS>(sbase + SLICE_BYTES, sbase + 3 * SLICE_BYTES, pt, nf);
                    if (more) load_b(xb);
                    publish(nf);
                };
                if (items > 0) {
                    coords(ltile);
                    load_a(sa), load_b(sb);
                }
                if (items > 1) load_a(sa2), load_b(sb2);
                for (int64_t i = 0; i < items; i += 2) {
                    step(sa, sb, i);
                    if (i + 1 < items) step(sa2, sb2, i + 1);
                }
            } else {
                for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
                    coords(tile);
                    for (int64_t kt = 0; kt < ktiles; ++kt) {
                        const int64_t k0 = kt * BK;
                        const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                        float nf = 0.0f;
                        if (kt < a_full) sa.template load<true>(A, lda, m0, m, k0, k, pt);
                        else sa.template load<false>(A, lda, m0, m, k0, k, pt);
                        if (PIPE) { /* both slices' loads in flight at once */
                            if (kt < b_full) sb.template load<true>(B, ldb, n0, n, k0, k, pt);
                            else sb.template load<false>(B, ldb, n0, n, k0, k, pt);
                        }
                        ws::mbar_wait(bar_empty + 8 * st, ph ^ 1);
                        sa.template store<CF::PARTS>(sbase, sbase + 2 * SLICE_BYTES, pt, nf);
                        if (!PIPE) {
                            if (kt < b_full) sb.template load<true>(B, ldb, n0, n, k0, k, pt);
                            else sb.template load<false>(B, ldb, n0, n, k0, k, pt);
                        }
                        sb.template store<CF::PARTS>(sbase + SLICE_BYTES, sbase + 3 * SLICE_BYTES, pt, nf);
                        publish(nf);
                    }
                }
            }
        }
    } else {
        /* ---- consumers ---- */
        regs_to<CF::CREG, CF::R0>();
        const int wg = t / 128, w = (t % 128) / 32, l = t % 32;
        const uint32_t a_off = (uint32_t)(wg * 64 * 128); /* this warpgroup's 64 rows of the A slice */
        int st = 0;
        uint32_t ph = 0;
        /* stage st full (DIAG 1: not waited for) and its producer warps' non-finite flags into bad */
        auto take = [&](uint32_t &bad) {
            if (DIAG != 1) ws::mbar_wait(bar_full + 8 * st, ph);
#pragma unroll
            for (int q = 0; q < PW / 4; ++q) {
                const uint4 f = *reinterpret_cast<const uint4 *>(flags + PW * st + 4 * q);
                if (DIAG == 0) bad |= f.x | f.y | f.z | f.w;
            }
        };
        auto next = [&] {
            if (++st == S) st = 0, ph ^= 1;
        };
        auto release_next = [&] { /* the DIAG runs' early release */
            ws::mbar_arrive(bar_empty + 8 * st);
            next();
        };
        /* 3xTF32: this k-tile's group complete, its stage given back, its sum T promoted into y */
        auto promote = [&](float(&y)[64], float(&t)[64]) {
            wg_wait<0>();
            reg_fence(t);
            if (DIAG != 1) ws::mbar_arrive(bar_empty + 8 * st);
#pragma unroll
            for (int i = 0; i < 64; ++i) y[i] += t[i];
        };
        for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
            float y[64];
            uint32_t bad = 0;
#pragma unroll
            for (int i = 0; i < 64; ++i) y[i] = 0.0f;
            if (HALF) {
                /* AREG as below, with the 64 x 128 sum T of a k-tile in two 64-column halves (tl:
                 * y[0, 32), th: y[32, 64)), each its own wgmma group of the twelve steps in the
                 * default's order, so that one half's promotion runs while a group is on the
                 * tensor cores. Every element's products, order and promotion are the default's:
                 * the same bits. The A fragments of k-tile kt stay in registers until hi(kt)
                 * completes (register A operands, PTX ISA 9.7.15.5), so the two k-tiles of a pair
                 * use two fragment sets. No group is in flight across the loop's back edge:
                 * ptxas (C7514) serializes every wgmma of a kernel whose accumulators are read
                 * while it cannot prove the group that writes them complete, and it does not
                 * follow groups around a loop */
                float nfa = 0.0f;
                float tl[32], th[32];
                uint32_t ab0[4][4], as0[4][4], ab1[4][4], as1[4][4];
#pragma unroll
                for (int i = 0; i < 32; ++i) tl[i] = th[i] = 0.0f;
                /* wait for stage st, read and split this thread's A fragments of it; returns the stage */
                auto load = [&](uint32_t(&ab)[4][4], uint32_t(&as)[4][4]) {
                    take(bad);
                    const int s0 = st;
                    const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                    /* TA: frag_off's swizzled chunk (k / 4) ^ (row & 7) is bits 4-6 of the address,
                     * which sbase + 128 row + 4 t leaves zero: the address is that | (g << 4), XOR
                     * (2 kk + v / 2) << 4, computed here per k-tile instead of sixteen offsets held */
                    const uint32_t xa = (sbase + (uint32_t)((64 * wg + 16 * w + l / 4) * 128 + 4 * (l % 4))) |
                                        (uint32_t)((l / 4) << 4);
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
                        for (int v = 0; v < 4; ++v) {
                            const uint32_t ad = TA ? (xa + 1024u * (v % 2)) ^ (uint32_t)((2 * kk + v / 2) << 4)
                                                   : sbase + frag_off<TA>(wg, w, l, kk, v);
                            const float x = ld_shared(ad);
                            split(x, ab[kk][v], as[kk][v]);
                            nfa = __fmaf_rn(__uint_as_float(ab[kk][v]), 0.0f, nfa);
                        }
                    next();
                    return s0;
                };
                /* one half's twelve steps of the k-tile in stage s as one group */
                auto issue = [&](float(&d)[32], const uint32_t(&ab)[4][4], const uint32_t(&as)[4][4], int s,
                                 uint32_t half) {
                    const uint32_t sbase = s_base + s * CF::STAGE_BYTES;
                    const uint32_t bb = sbase + CF::OFF_BB + half, bs = sbase + CF::OFF_BS + half;
                    reg_fence32(d);
                    wg_fence();
                    twelve_steps(d, ab, as, bb, bs);
                    wg_commit();
                };
                constexpr uint32_t HI = 64u * 128u; /* op(B)'s rows 64..127: 64 rows of 128 bytes on */
                auto promote_lo = [&] {
                    reg_fence32(tl);
#pragma unroll
                    for (int i = 0; i < 32; ++i) y[i] += tl[i];
                };
                auto promote_hi = [&] {
                    reg_fence32(th);
#pragma unroll
                    for (int i = 0; i < 32; ++i) y[32 + i] += th[i];
                };
                if (DIAG == 2) {
                    for (int64_t kt = 0; kt < ktiles; ++kt) {
                        take(bad);
                        release_next();
                    }
                } else if (ktiles > 0) {
                    int s0 = load(ab0, as0);
                    int64_t kt = 0;
                    for (; kt + 1 < ktiles; kt += 2) { /* k-tiles kt (set 0, stage s0) and kt + 1 (set 1) */
                        issue(tl, ab0, as0, s0, 0u);
                        issue(th, ab0, as0, s0, HI);
                        wg_wait<1>(); /* lo(kt) */
                        promote_lo();
                        const int s1 = load(ab1, as1);
                        issue(tl, ab1, as1, s1, 0u);
                        wg_wait<1>(); /* hi(kt): stage s0 no longer read */
                        if (DIAG != 1) ws::mbar_arrive(bar_empty + 8 * s0);
                        promote_hi();
                        issue(th, ab1, as1, s1, HI);
                        wg_wait<1>(); /* lo(kt + 1) */
                        promote_lo();
                        if (kt + 2 < ktiles) s0 = load(ab0, as0); /* set 0 free since hi(kt) */
                        wg_wait<0>(); /* hi(kt + 1) */
                        if (DIAG != 1) ws::mbar_arrive(bar_empty + 8 * s1);
                        promote_hi();
                    }
                    if (kt < ktiles) { /* the last, odd k-tile */
                        issue(tl, ab0, as0, s0, 0u);
                        issue(th, ab0, as0, s0, HI);
                        wg_wait<1>();
                        promote_lo();
                        wg_wait<0>();
                        if (DIAG != 1) ws::mbar_arrive(bar_empty + 8 * s0);
                        promote_hi();
                    }
                }
                if (DIAG == 0) bad |= consumers_any(nfa != nfa);
            } else if (AREG) {
                /* op(A)'s fragments read from the stage's FP32 slice and split here (RawSlice,
                 * frag_off); the same parts and the same wgmma order as the default, so the same
                 * bits. nfa: NaN once a big part of this thread's op(A) is not finite; the tile
                 * takes the FP32 path when any consumer's is (consumers_any) or a producer warp
                 * flagged op(B) */
                float nfa = 0.0f;
                float yt[64];
#pragma unroll
                for (int i = 0; i < 64; ++i) yt[i] = 0.0f;
                for (int64_t kt = 0; kt < ktiles; ++kt) {
                    take(bad);
                    if (DIAG == 2) {
                        release_next();
                        continue;
                    }
                    const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                    const uint32_t bb = sbase + CF::OFF_BB, bs = sbase + CF::OFF_BS;
                    uint32_t ab[4][4], as[4][4];
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
                        for (int v = 0; v < 4; ++v) {
                            const float x = ld_shared(sbase + frag_off<TA>(wg, w, l, kk, v));
                            if (CF::X3) split(x, ab[kk][v], as[kk][v]);
                            else ab[kk][v] = to_tf32(x);
                            nfa = __fmaf_rn(__uint_as_float(ab[kk][v]), 0.0f, nfa);
                        }
                    /* BRAW: op(B)'s tile was written by cp.async (generic proxy) and wgmma reads it
                     * through the async proxy: this thread's proxy fence after its wait on "full"
                     * (the kernel's comment, "BRAW") */
                    if (BRAW) fence_proxy_async();
                    if (CF::X3) {
                        reg_fence(yt);
                        wg_fence();
                        twelve_steps(yt, ab, as, bb, bs);
                        wg_commit();
                        promote(y, yt);
                    } else {
                        reg_fence(y);
                        wg_fence();
#pragma unroll
                        for (int kk = 0; kk < 4; ++kk) wgmma_rs(y, ab[kk], desc(bb + 32 * kk), 1u);
                        wg_commit();
                        wg_wait<0>();
                        reg_fence(y);
                        if (DIAG != 1) ws::mbar_arrive(bar_empty + 8 * st);
                    }
                    next();
                }
                if (BRAW) { /* any non-finite accumulator sends the tile to the FP32 path (the
                             * kernel's comment, "BRAW") */
#pragma unroll
                    for (int i = 0; i < 64; ++i) nfa = __fmaf_rn(y[i], 0.0f, nfa);
                }
                if (DIAG == 0) bad |= consumers_any(nfa != nfa);
            } else if (CF::X3) {
                float yt[64];
#pragma unroll
                for (int i = 0; i < 64; ++i) yt[i] = 0.0f;
                for (int64_t kt = 0; kt < ktiles; ++kt) {
                    take(bad);
                    if (DIAG == 2) {
                        release_next();
                        continue;
                    }
                    const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                    const uint32_t ab = sbase + a_off, bb = sbase + SLICE_BYTES;
                    const uint32_t as = sbase + 2 * SLICE_BYTES + a_off, bs = sbase + 3 * SLICE_BYTES;
                    if (DIAG != 3) reg_fence(yt);
                    wg_fence();
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk)
                        wgmma_128(yt, desc(as + 32 * kk), desc(bb + 32 * kk), kk > 0 ? 1u : 0u);
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk) wgmma_128(yt, desc(ab + 32 * kk), desc(bs + 32 * kk), 1u);
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk) wgmma_128(yt, desc(ab + 32 * kk), desc(bb + 32 * kk), 1u);
                    wg_commit();
                    if (DIAG == 3) {
                        release_next();
                        continue;
                    }
                    promote(y, yt);
                    next();
                }
                if (DIAG == 3) {
                    wg_wait<0>();
                    reg_fence(yt);
#pragma unroll
                    for (int i = 0; i < 64; ++i) y[i] += yt[i];
                }
            } else {
                int pst = 0;
                for (int64_t kt = 0; kt < ktiles; ++kt) {
                    take(bad);
                    if (DIAG == 2) {
                        release_next();
                        continue;
                    }
                    const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                    const uint32_t ab = sbase + a_off, bb = sbase + SLICE_BYTES;
                    if (kt == 0) reg_fence(y);
                    wg_fence();
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk) wgmma_128(y, desc(ab + 32 * kk), desc(bb + 32 * kk), 1u);
                    wg_commit();
                    /* the previous k-tile's group has completed: its stage goes back */
                    wg_wait<1>();
                    if (kt > 0 && DIAG != 1) ws::mbar_arrive(bar_empty + 8 * pst);
                    pst = st;
                    next();
                }
                wg_wait<0>();
                reg_fence(y);
                if (DIAG != 1 && (DIAG != 2 || ktiles == 0)) ws::mbar_arrive(bar_empty + 8 * pst);
            }

            /* write-back: accumulator element 4 i + e of lane l in warp w of warpgroup wg is row
             * wg 64 + 16 w + l / 4 + 8 (e / 2), column 8 i + 2 (l % 4) + e % 2 (PTX ISA 9.7.15.5,
             * "Register fragments: matrix D" of wgmma .m64nNk8) */
            int64_t bm, bn;
            tile_coords(tile, tiles_m, tiles_n, &bm, &bn);
            const int64_t r0 = bm * BM + wg * 64 + 16 * w + l / 4, c0 = bn * BN + 2 * (l % 4);
            if (bad) { /* block-uniform: every consumer thread read the same flags */
                for (int i = 0; i < 16; ++i)
                    for (int e = 0; e < 4; ++e) {
                        const int64_t r = r0 + 8 * (e / 2), c = c0 + 8 * i + e % 2;
                        if (r < m && c < n) put(C, ldc, r, c, alpha, fp32_dot<TA, TB>(r, c, k, A, lda, B, ldb), beta);
                    }
            } else {
#pragma unroll
                for (int i = 0; i < 16; ++i) {
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int64_t r = r0 + 8 * (e / 2), c = c0 + 8 * i + e % 2;
                        if (r < m && c < n) put(C, ldc, r, c, alpha, y[4 * i + e], beta);
                    }
                }
            }
        }
    }
    __syncthreads();
}

} /* namespace tf32 */
} /* namespace tsg */

#endif /* TSG_KERNEL_TF32_CUH */
