/*
 * tsg_kernel_tf32.cuh — the tensor-core SGEMM family for Hopper (issue 36): C = alpha*op(A)*op(B)
 * + beta*C on TF32 tensor cores through wgmma, error-compensated (3xTF32) or plain (1xTF32).
 * Needs sm_90a (wgmma, setmaxnreg): built for that target only (CMakeLists.txt, tsg_kernels_tf32).
 *
 * Owns: this family's kernel, its producer's schedule (global loads, the TF32 split, the
 * swizzled K-major shared tiles, the non-finite flags) and its consumers (wgmma, promotion, the
 * write-back, the FP32 path of a tile with non-finite inputs). The slices' geometry (Slice,
 * RawSlice, frag_off, ArowMap) is tsg_tf32_slices.cuh's, the instruction wrappers
 * tsg_tf32_ptx.cuh's, the OPT bits, Cfg and the write-back's helpers tsg_tf32_cfg.cuh's; this
 * comment describes all four. Borrows from kernels/common/ the mbarrier and setmaxnreg
 * wrappers and tile_coords.
 *
 * The block (Cfg::THREADS = 384 or 512): warpgroups 0 and 1 are consumers, each owning 64 rows of
 * the 128 x 128 C tile (wgmma m64n128k8; 128 x 256 with N256, below); warpgroup 2 (and 3: NPW = 2) the producer, whose
 * threads share out each slice's rows (Slice). The grid is persistent: block
 * b takes tiles b, b + gridDim.x, ... in tile_coords' order; the producer runs ahead across tiles.
 *  - producer, per k-tile of BK = 32: loads the 128 x 32 slices of op(A) and op(B) into registers
 *    (16-byte loads; zero for elements outside the operand), waits for the stage to be empty,
 *    splits each element x into big = x rounded to nearest TF32 (ties away: cvt.rna.tf32's bits,
 *    by add and mask) and small = x - big rounded likewise (3xTF32; 1xTF32 keeps big only;
 *    tsg_tf32_ptx.cuh split), stores them K-major with the 128-byte swizzle, records per warp
 *    whether any x or big part is not finite (an Inf or NaN input, or a finite x that rounds to
 *    Inf: x - big is then not finite),
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
 *    OPT_BCP (with OPT_AREG; both maths): the producer copies op(B)'s slice too by cp.async, as
 *    FP32, LA items ahead (LA = 1, 2 with OPT_BCP2; an item is one (tile, k-tile)), and splits
 *    an item once its copies have landed (cp.async.wait_group), then publishes the stage as
 *    Slice::store's path does. A K-contiguous op(B) (NN, TN) is copied into the B-big tile
 *    (RawSlice<true>: the layout Slice stores) and each thread splits the chunks it copied in
 *    place (split_in_place: big back into the big tile, small into the small one). An
 *    R-contiguous op(B) (NT, TT) is staged in the tile the split writes last (3xTF32's small,
 *    1xTF32's big; RawSlice<false, NP, true>), read by every producer thread in 4 x 4 blocks
 *    after a producers' barrier (named barrier 2: each thread's wait covers its own copies
 *    only), and after a second barrier (every staged value read) split and stored as
 *    Slice<false, NP, true>::store stores it. The same values split by the same function into
 *    the same positions: the default's bits, without op(B)'s data registers in flight per
 *    producer thread (the producer's loads are the copies' now).
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
 *  - BTMA (OPT_BTMA: 1xTF32 with OPT_AREG where op(B) is K-contiguous, NN and TN, TT as C^T;
 *    with ATMA 1xTF32's default there since H100 run 63; instance tf32_kernel_tma): producer thread 0 copies op(B)'s 128 x 32 slice with
 *    one tensor copy (tma_load_2d) into the B-big tile, through the launcher's tensor map of
 *    op(B) (copy_map, one per call: k along the first dimension, n along the second, a box of
 *    32 k x 128 n, the 128-byte swizzle, so that the tile has the layout Slice stores and desc
 *    reads; elements outside op(B) are zero; element type TFLOAT32: the copy converts each
 *    element to TF32). Before the copy it raises the stage's "full" transaction count by the
 *    slice's bytes (mbar_expect_tx), before any arrival of its own on that phase, so the phase
 *    completes only once the bytes have landed; the arrivals stay 2 PTHREADS. The copy writes
 *    through the async proxy, as wgmma reads: no proxy fence. Split-K: the map covers all of
 *    op(B), the copies' k coordinate is the slice's k0 plus the k-tile's. Coordinates are 32-bit:
 *    the launcher takes the copies for m (ATMA), n and k below 2^31 - 1 only. The copy rounds
 *    to nearest, ties to even, as cuBLAS's fast kernels do (they load by TMA, with no conversion
 *    instruction: docs/NOTES.md "seventeenth session"; H100 runs 62-63, test_tf32_kernel
 *    --rounding, tf32_variant_rounding 'e'). Non-finite inputs: as BRAW, the consumers'
 *    accumulator check (a TF32 conversion keeps an Inf and a NaN non-finite).
 *  - ATMA (OPT_ATMA, with BTMA; 1xTF32's default in NN, TN and TT): op(A) by tensor copies as well, through a second
 *    map (tma), in the same expect_tx (two slices' bytes): a K-contiguous op(A) (TN; TT as C^T
 *    reads the call's op(B) there) as one box of 32 k x 128 rows into the layout frag_off already
 *    reads; an R-contiguous one (NN) as four boxes of 32 rows x 32 k, each row k of a box 128
 *    bytes with the 128-byte swizzle. The consumers read the copies' converted bits as they are
 *    (frag_off_tma; no add and mask, no flag: the accumulators' check covers op(A) too, a
 *    non-finite a(r, k) making row r's products non-finite). In the four-box layout the fragment
 *    rows stand for permuted rows of the tile (tsg_tf32_slices.cuh ArowMap, conflict-free there),
 *    and the write-back and the FP32 path put each accumulator row where it belongs. The
 *    producer's own work is then five copy instructions per k-tile by one thread (two in TN), and its
 *    arrivals (cp.async.mbarrier.arrive with no copy outstanding: at once, and the publication).
 *  - N256 (OPT_N256, with ATMA and one producer warpgroup; 1xTF32's default in NN, TN and TT): a C tile of
 *    128 x 256. op(B)'s slice is one tensor copy of 32 k x 256 rows (32 KiB, the same layout,
 *    rows 128 on at BN * 128 bytes), a stage 48 KiB, 4 stages; each consumer warpgroup keeps two
 *    accumulators of 64 x 128 (y, y1) and issues per k8 step two m64n128 wgmmas with the same op(A)
 *    fragment (descriptors BN * 128 bytes apart), so a k-tile's 16 fragment reads serve 256
 *    columns instead of 128; the write-back writes y at the tile's columns 0-127 and y1 at
 *    128-255. Registers: 128 accumulators per consumer thread, setmaxnreg 232 for the consumers
 *    and 40 for the producer (which only issues copies). Each element sees the same k8 steps in
 *    the same order as in the 128 x 128 tile: the bits of that tile (variant 16), except where a
 *    tile takes the FP32 path, which then covers the wider tile (tf32_variant_exact_nonfinite).
 *  - CT (OPT_CT): the launcher (tsg_kernel_tf32.cu) runs a pair (TA, TB) as the product
 *    C^T = op(B)^T op(A)^T: the instance <!TB, !TA> with m and n, A and B (lda and ldb) swapped,
 *    whose element (r, c) is C(c, r): written at C + c + r ldc (two adjacent elements with one
 *    8-byte access where C is 8-byte aligned and ldc even). TT then runs the NN instance, whose
 *    operands are the cheap ones for this kernel (op(A) R-contiguous: cp.async; op(B)
 *    K-contiguous: 16-byte rows into the producer's registers), instead of op(B) R-contiguous
 *    through the 4 x 4 blocks. The three products are the same with their factors' roles
 *    exchanged (small_B big_A + big_B small_A + big_B big_A), so the bits may differ from the
 *    direct instance's, within the same error bound; the FP32 path of a non-finite tile gives
 *    the same bits (fmaf(a, b, s) = fmaf(b, a, s)).
 *  - P16 / P8 (OPT_P16, OPT_P8; 3xTF32 with OPT_AREG, test variants): the k-tile's twelve steps
 *    in two parts of six (k 0-15, 16-31) or four of three (one k8 step each), each part's three
 *    products starting T afresh and promoted into Y before the next part is issued (the
 *    consumer waits for its group at each part; the stage is given back after the last).
 *    Shorter chains through the tensor core's truncating sum: error closer to FP32's on
 *    same-sign inputs, where its truncation is a bias (docs/NOTES.md "fifteenth session: the
 *    tensor core's guard bits"), for one or three more waits and 64 or 192 more adds per k-tile.
 *    Other bits than the default's (tf32_variant_exact).
 *  - split-K (OPT_SPLIT; the launcher's rule, tsg_kernel_tf32.h tf32_kslice): block row y of
 *    the grid computes the partial product over k in [y kslice, min(k, (y + 1) kslice)) into
 *    C + y cstride (the launcher passes the workspace W, ldc = m, alpha 1, beta 0; kslice a
 *    multiple of BK, so the slices' operands keep their 16-byte alignment), each block row a
 *    persistent grid over all tiles of its own; kernels/common/tsg_reduce_splits.cuh then sums the
 *    slices in a fixed order. Nothing past the kernel's first lines knows about it. An instance of
 *    its own, so that the unsplit instances keep k, A, B and C in the parameter space and the SASS
 *    they were measured with (why: docs/NOTES.md "thirteenth session").
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
 *    after the barriers' initialisation and one at the end, reached by every thread; named
 *    barrier 1 (consumers_any) by the 256 consumer threads once per tile, named barrier 2
 *    (producers_sync, OPT_BCP with an R-contiguous op(B)) by every producer thread twice per
 *    item, the producers' item count being the same for all of them.
 * Fixed reduction order: the same instructions in the same order for every tile and run, whatever
 * the grid (the grid only assigns tiles to blocks).
 * Alignment: the 16-byte loads need A and B 16-byte aligned and lda, ldb multiples of 4
 * (tf32_takes refuses anything else); C has no alignment rule (4-byte stores; OPT_CT's 8-byte
 * pairs only where C is 8-byte aligned and ldc even).
 * Sources: PTX ISA (CUDA 13.0) sections named above, mbarrier (9.7.13.15), setmaxnreg (9.7.19.5),
 * cvt .tf32 (9.7.9.21); the warp-specialized producer / consumer pattern of kernels/ws/tsg_kernel_ws.cuh.
 * The 3xTF32 split is the well-known error-compensation scheme (big/small operand splitting).
 */
#ifndef TSG_KERNEL_TF32_CUH
#define TSG_KERNEL_TF32_CUH

#include <cuda.h> /* CUtensorMap (the type only: no driver call here) */
#include <stdint.h>

#include <type_traits> /* std::integral_constant (P16 / P8 parts) */

#include "../common/tsg_mbarrier.cuh"    /* ws::mbar_*, ws::regs_inc/dec, mbar_arrive_cp_async */
#include "../common/tsg_tile_coords.cuh" /* tile_coords */
#include "tsg_kernel_tf32.h"
#include "tsg_tf32_cfg.cuh"    /* CTHREADS, the OPT bits, Cfg, put, put2, fp32_dot */
#include "tsg_tf32_ptx.cuh"    /* the instruction wrappers */
#include "tsg_tf32_slices.cuh" /* BM, BN, BK, Slice, RawSlice, frag_off */

namespace tsg {
namespace tf32 {

/*
 * The kernel: C = alpha*op(A)*op(B) + beta*C, m, n, k >= 1; TA / TB as transa / transb == 'T'.
 * kslice, cstride: split-K over gridDim.y block rows (OPT_SPLIT: the file comment, "split-K");
 * unused by the other instances.
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
 * wgmma). */
/* tmb, tma: OPT_BTMA's tensor map of op(B), OPT_ATMA's of op(A) (tf32_kernel_tma's and
 * tf32_kernel_tma2's parameters), nullptr in the other instances */
template <int MATH, bool TA, bool TB, int PIPE, int NPW, int DIAG, int OPT>
static __device__ __forceinline__ void tf32_body(int64_t m, int64_t n, int64_t k, float alpha, const float *__restrict__ A,
                                                 int64_t lda, const float *__restrict__ B, int64_t ldb, float beta,
                                                 float *__restrict__ C, int64_t ldc, int64_t kslice, int64_t cstride,
                                                 const CUtensorMap *tmb, const CUtensorMap *tma)
{
    /* BTMA: the tensor map covers the whole of op(B); a split-K slice's copies start at its k0 */
    const int64_t kofs = (OPT & OPT_SPLIT) != 0 ? (int64_t)blockIdx.y * kslice : 0;
    /* split-K (OPT_SPLIT: the file comment, "split-K"): this block's slice blockIdx.y is the
     * product over k in [y kslice, min(k, (y + 1) kslice)) into C + y cstride; every use of k, A,
     * B and C below sees the slice's */
    if constexpr ((OPT & OPT_SPLIT) != 0) {
        const int64_t k0 = blockIdx.y * kslice;
        k = k - k0 < kslice ? k - k0 : kslice;
        A += TA ? k0 : k0 * lda;
        B += TB ? k0 * ldb : k0;
        C += blockIdx.y * cstride;
    }
    constexpr bool AREG = OPT & OPT_AREG, TBLK = OPT & OPT_TBLK, BRAW = OPT & OPT_BRAW, BTMA = OPT & OPT_BTMA;
    constexpr bool ATMA = OPT & OPT_ATMA, N256 = OPT & OPT_N256;
    /* ATMA with an R-contiguous op(A): the tile's rows permuted (ArowMap, the file comment "ATMA") */
    using RM = ArowMap<ATMA && !TA>;
    /* op(B) straight into the stage (BRAW, BTMA): not through the producer's registers, no flags */
    constexpr bool BDIR = BRAW || BTMA;
    constexpr bool BCP = OPT & (OPT_BCP | OPT_BCP2);
    constexpr bool CT = OPT & OPT_CT;
    constexpr bool B2 = OPT & OPT_B2;
    /* CT: C's pairs (r, c), (r, c + 1) with c even lie 8-byte aligned when C does and ldc is even */
    const bool c2 = CT && ((uintptr_t)C & 7) == 0 && (ldc & 1) == 0;
    /* a wait on "full" or "empty" (OPT_SLEEP: with the suspend-time hint) */
    auto bar_wait = [](uint32_t bar, uint32_t parity) {
        if constexpr ((OPT & OPT_SLEEP) != 0) ws::mbar_wait_hint<10000000u>(bar, parity);
        else ws::mbar_wait(bar, parity);
    };
    constexpr int LA = OPT & OPT_BCP2 ? 2 : 1; /* BCP: the copies' lead over the split, in items */
    static_assert(!BCP || LA < Cfg<MATH, NPW, PIPE, OPT & OPT_CFG>::STAGES,
                  "BCP: the copies of item i wait for item i - STAGES, published at step i - STAGES + LA");
    static_assert(DIAG == 0 || DIAG == 1 || DIAG == 2, "DIAG 0, 1 or 2");
    static_assert(!BRAW || (MATH == MATH_TF32 && AREG && !TB),
                  "op(B) raw (BRAW): 1xTF32 with OPT_AREG and a K-contiguous op(B) (NN, TN) only");
    static_assert(!BTMA || (MATH == MATH_TF32 && AREG && !TB && !BRAW && PIPE == 2),
                  "op(B) by tensor copy (BTMA): 1xTF32 with OPT_AREG, order 2 and a K-contiguous op(B) (NN, TN) only");
    static_assert(!ATMA || BTMA, "op(A) by tensor copies (ATMA): with op(B) by one (BTMA)");
    static_assert(!N256 || ATMA, "a 128 x 256 tile (N256): both operands by tensor copies");
    static_assert(!BCP || (AREG && !BDIR && PIPE == 2), "op(B) by cp.async (BCP): with OPT_AREG and order 2 only");
    static_assert(!B2 || (AREG && !BDIR && !BCP && PIPE == 2), "op(B) two items ahead (B2): with OPT_AREG and order 2");
    /* P16 / P8: the k-tile's steps in NP parts, each promoted on its own (the file comment, "P16") */
    constexpr int NP = OPT & OPT_P8 ? 4 : OPT & OPT_P16 ? 2 : 1;
    static_assert(NP == 1 || (MATH == MATH_3XTF32 && AREG), "P16 / P8: 3xTF32 with OPT_AREG only");
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

    constexpr int TN = CF::TILE_N; /* the C tile's columns: BN, 2 BN with N256 */
    const int64_t tiles_m = (m + BM - 1) / BM, tiles_n = (n + TN - 1) / TN, tiles = tiles_m * tiles_n;
    const int64_t ktiles = (k + BK - 1) / BK, kfull = k / BK;

    if (t >= CTHREADS) {
        /* ---- producer ---- */
        regs_to<CF::PREG, CF::R0>();
        if (DIAG != 1) {
            const int pt = t - CTHREADS;
            if (BTMA && pt == 0) tma_prefetch(tmb);
            if (ATMA && pt == 0) tma_prefetch(tma);
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
                m0 = bm * BM, n0 = bn * TN;
                a_full = m0 + BM <= m ? kfull : 0, b_full = n0 + TN <= n ? kfull : 0;
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
            if constexpr (BCP) {
                /* op(A) and op(B) by cp.async into stage cst, LA items ahead of the split and the
                 * publication of stage st (the file comment, OPT_BCP). Each item's copies are one
                 * cp.async group; past the last item empty groups keep wait_group's count */
                const int64_t items = blockIdx.x < tiles ? ((tiles - 1 - blockIdx.x) / gridDim.x + 1) * ktiles : 0;
                int64_t tile = blockIdx.x, kt = 0;
                int cst = 0;
                uint32_t cph = 0;
                if (items > 0) coords(tile);
                for (int64_t i = 0; i < items + LA; ++i) {
                    if (i < items) {
                        const uint32_t cbase = s_base + cst * CF::STAGE_BYTES;
                        bar_wait(bar_empty + 8 * cst, cph ^ 1);
                        if (kt < a_full) RawSlice<TA, CF::PTHREADS>::template copy<true>(cbase, A, lda, m0, m, kt * BK, k, pt);
                        else RawSlice<TA, CF::PTHREADS>::template copy<false>(cbase, A, lda, m0, m, kt * BK, k, pt);
                        /* K-contiguous op(B) into the big tile, split there; R-contiguous staged in
                         * the tile written last (3xTF32 small, 1xTF32 big) */
                        const uint32_t bdst = cbase + (TB && CF::X3 ? CF::OFF_BS : CF::OFF_BB);
                        if (kt < b_full) RawSlice<!TB, CF::PTHREADS, TB>::template copy<true>(bdst, B, ldb, n0, n, kt * BK, k, pt);
                        else RawSlice<!TB, CF::PTHREADS, TB>::template copy<false>(bdst, B, ldb, n0, n, kt * BK, k, pt);
                        /* op(A)'s arrival: the consumers read it once every copy has landed */
                        mbar_arrive_cp_async(bar_full + 8 * cst);
                        if (++cst == S) cst = 0, cph ^= 1;
                        if (++kt == ktiles) {
                            kt = 0, tile += gridDim.x;
                            if (tile < tiles) coords(tile);
                        }
                    }
                    cp_async_commit();
                    if (i >= LA) { /* item i - LA, in stage st: its copies have landed */
                        cp_async_wait<LA>();
                        const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                        float nf = 0.0f;
                        if constexpr (TB) {
                            /* the staged slice holds every producer thread's copies: all landed
                             * (each thread's wait, then the barrier), all read into registers
                             * before the tile they sit in is overwritten (the second barrier) */
                            Slice<false, CF::PTHREADS, true> staged;
                            producers_sync<CF::PTHREADS>();
                            staged.load_staged(sbase + (CF::X3 ? CF::OFF_BS : CF::OFF_BB), pt);
                            producers_sync<CF::PTHREADS>();
                            staged.template store<CF::PARTS>(sbase + CF::OFF_BB, sbase + CF::OFF_BS, pt, nf);
                        } else {
                            split_in_place<CF::PTHREADS, CF::PARTS>(sbase + CF::OFF_BB, sbase + CF::OFF_BS, pt, nf);
                        }
                        publish(nf);
                    }
                }
            } else {
                /* the rolling orders' (B2, PIPE 3) next op(B) load: its item (ltile, lkt), then the
                 * tracker moves on, and coords to the next tile's corner when the tile is done */
                int64_t ltile = blockIdx.x, lkt = 0;
                auto roll_b = [&](auto &xb) {
                    if (lkt < b_full) xb.template load<true>(B, ldb, n0, n, lkt * BK, k, pt);
                    else xb.template load<false>(B, ldb, n0, n, lkt * BK, k, pt);
                    if (++lkt == ktiles) {
                        lkt = 0, ltile += gridDim.x;
                        if (ltile < tiles) coords(ltile);
                    }
                };
                if (B2) {
                    /* OPT_B2 (with OPT_AREG, order 2): op(B) two items ahead, in two register slots
                     * that alternate (sb, sb2): item i's op(B) is stored from its slot, then item
                     * i + 2's loads go into the same slot, so a whole item's time (its wait, op(A)'s
                     * copies, the other slot's store) lies between a load and its first use. An item
                     * is one (tile, k-tile) of this block, in order; its op(A) is copied by cp.async at
                     * its own step as without B2. Two trackers: the copies' item (cm0, ca_full, ckt)
                     * and the loads' (n0, b_full via coords, lkt) */
                    Slice<!TB, CF::PTHREADS, TBLK> sb2;
                    const int64_t items = blockIdx.x < tiles ? ((tiles - 1 - blockIdx.x) / gridDim.x + 1) * ktiles : 0;
                    int64_t ctile = blockIdx.x, ckt = 0;       /* the next op(A) copy (= the item stored) */
                    int64_t cm0 = 0, ca_full = 0;
                    auto ccoords = [&] {
                        int64_t bm, bn;
                        tile_coords(ctile, tiles_m, tiles_n, &bm, &bn);
                        cm0 = bm * BM, ca_full = cm0 + BM <= m ? kfull : 0;
                    };
                    auto step = [&](auto &xb, int64_t i) {
                        const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                        float nf = 0.0f;
                        bar_wait(bar_empty + 8 * st, ph ^ 1);
                        if (ckt < ca_full)
                            RawSlice<TA, CF::PTHREADS>::template copy<true>(sbase, A, lda, cm0, m, ckt * BK, k, pt);
                        else
                            RawSlice<TA, CF::PTHREADS>::template copy<false>(sbase, A, lda, cm0, m, ckt * BK, k, pt);
                        mbar_arrive_cp_async(bar_full + 8 * st);
                        if (++ckt == ktiles) {
                            ckt = 0, ctile += gridDim.x;
                            if (ctile < tiles) ccoords();
                        }
                        xb.template store<CF::PARTS>(sbase + CF::OFF_BB, sbase + CF::OFF_BS, pt, nf);
                        if (i + 2 < items) roll_b(xb);
                        publish(nf);
                    };
                    if (items > 0) {
                        coords(ltile), ccoords();
                        roll_b(sb);
                    }
                    if (items > 1) roll_b(sb2);
                    for (int64_t i = 0; i < items; i += 2) {
                        step(sb, i);
                        if (i + 1 < items) step(sb2, i + 1);
                    }
                } else if (PIPE == 2) {
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
                        if (!BDIR) load_b(0);
                    }
                    while (tile < tiles) {
                        int64_t nkt = kt + 1, ntile = tile;
                        if (nkt == ktiles) nkt = 0, ntile += gridDim.x;
                        const bool more = ntile < tiles;
                        const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                        float nf = 0.0f;
                        bar_wait(bar_empty + 8 * st, ph ^ 1);
                        if (AREG) { /* this k-tile's op(A) straight into the stage, its own arrival */
                            if (ATMA) { /* by tensor copies below */
                            } else if (kt < a_full) {
                                RawSlice<TA, CF::PTHREADS>::template copy<true>(sbase, A, lda, m0, m, kt * BK, k, pt);
                            } else {
                                RawSlice<TA, CF::PTHREADS>::template copy<false>(sbase, A, lda, m0, m, kt * BK, k, pt);
                            }
                            if (BRAW) { /* op(B) too, as FP32 into the B-big tile (K-major, swizzled: what desc reads),
                                         * before coords moves n0 on; the one arrival below covers both */
                                if (kt < b_full)
                                    RawSlice<true, CF::PTHREADS>::template copy<true>(sbase + CF::OFF_BB, B, ldb, n0, n, kt * BK, k, pt);
                                else
                                    RawSlice<true, CF::PTHREADS>::template copy<false>(sbase + CF::OFF_BB, B, ldb, n0, n, kt * BK, k, pt);
                            }
                            if (BTMA && pt == 0) { /* op(B) by one tensor copy into the B-big tile, its bytes on
                                                    * the same "full" phase (the file comment, "BTMA") */
                                const int32_t kc = (int32_t)(kofs + kt * BK);
                                /* op(B): TN rows of 128 bytes (one box of up to 256 rows) */
                                constexpr uint32_t BBYTES = TN * BK * 4;
                                ws::mbar_expect_tx(bar_full + 8 * st, ATMA ? SLICE_BYTES + BBYTES : BBYTES);
                                if (ATMA) { /* op(A): one box of 32 k x 128 m (TA), four of 32 m x 32 k */
                                    if (TA) {
                                        tma_load_2d(sbase, tma, kc, (int32_t)m0, bar_full + 8 * st);
                                    } else {
#pragma unroll
                                        for (int j = 0; j < BM / 32; ++j)
                                            tma_load_2d(sbase + 4096 * j, tma, (int32_t)m0 + 32 * j, kc, bar_full + 8 * st);
                                    }
                                }
                                tma_load_2d(sbase + CF::OFF_BB, tmb, kc, (int32_t)n0, bar_full + 8 * st);
                            }
                            mbar_arrive_cp_async(bar_full + 8 * st);
                        } else {
                            sa.template store<CF::PARTS>(sbase, sbase + CF::OFF_AS, pt, nf);
                        }
                        if (more && ntile != tile) coords(ntile);
                        if (more && !AREG) load_a(nkt);
                        if (!BDIR) sb.template store<CF::PARTS>(sbase + CF::OFF_BB, sbase + CF::OFF_BS, pt, nf);
                        if (more && !BDIR) load_b(nkt);
                        /* BRAW, BTMA: nf stays 0 (no flags: the consumers' check after the k loop);
                         * the arrival that completes the stage with the other */
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
                    auto load_a = [&](auto &xa) {
                        if (lkt < a_full) xa.template load<true>(A, lda, m0, m, lkt * BK, k, pt);
                        else xa.template load<false>(A, lda, m0, m, lkt * BK, k, pt);
                    };
                    auto step = [&](auto &xa, auto &xb, int64_t i) {
                        const bool more = i + 2 < items;
                        const uint32_t sbase = s_base + st * CF::STAGE_BYTES;
                        float nf = 0.0f;
                        bar_wait(bar_empty + 8 * st, ph ^ 1);
                        xa.template store<CF::PARTS>(sbase, sbase + 2 * SLICE_BYTES, pt, nf);
                        if (more) load_a(xa);
                        xb.template store<CF::PARTS>(sbase + SLICE_BYTES, sbase + 3 * SLICE_BYTES, pt, nf);
                        if (more) roll_b(xb);
                        publish(nf);
                    };
                    if (items > 0) {
                        coords(ltile);
                        load_a(sa), roll_b(sb);
                    }
                    if (items > 1) load_a(sa2), roll_b(sb2);
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
                            bar_wait(bar_empty + 8 * st, ph ^ 1);
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
            if (DIAG != 1) bar_wait(bar_full + 8 * st, ph);
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
            float y1[N256 ? 64 : 1]; /* N256: columns BN .. 2 BN - 1 of the tile */
            uint32_t bad = 0;
#pragma unroll
            for (int i = 0; i < 64; ++i) y[i] = 0.0f;
            if constexpr (N256) {
#pragma unroll
                for (int i = 0; i < 64; ++i) y1[i] = 0.0f;
            }
            if (AREG) {
                /* op(A)'s fragments read from the stage's FP32 slice and split here (RawSlice,
                 * frag_off); the same parts and the same wgmma order as the default, so the same
                 * bits. nfa: NaN once an op(A) value of this thread or its big part is not finite
                 * (split's flag); the tile
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
                            if constexpr (ATMA) { /* converted by the copy: the bits as they are */
                                ab[kk][v] = __float_as_uint(ld_shared(sbase + frag_off_tma<TA>(wg, w, l, kk, v)));
                                continue;
                            }
                            const float x = ld_shared(sbase + frag_off<TA>(wg, w, l, kk, v));
                            if (CF::X3) split(x, ab[kk][v], as[kk][v], nfa);
                            else round1(x, ab[kk][v], nfa);
                        }
                    /* BRAW: op(B)'s tile was written by cp.async (generic proxy) and wgmma reads it
                     * through the async proxy: this thread's proxy fence after its wait on "full"
                     * (the kernel's comment, "BRAW") */
                    if (BRAW) fence_proxy_async();
                    if (CF::X3) {
                        if constexpr (NP == 1) {
                            reg_fence(yt);
                            wg_fence();
                            k8_steps<0, 4>(yt, ab, as, bb, bs);
                            wg_commit();
                        } else {
                            /* P16 / P8: each part but the last waited for and added into y here,
                             * the last one by promote (which also gives the stage back) */
                            auto part = [&](auto kk0) {
                                reg_fence(yt);
                                wg_fence();
                                k8_steps<decltype(kk0)::value, 4 / NP>(yt, ab, as, bb, bs);
                                wg_commit();
                                if constexpr (decltype(kk0)::value + 4 / NP < 4) {
                                    wg_wait<0>();
                                    reg_fence(yt);
#pragma unroll
                                    for (int i = 0; i < 64; ++i) y[i] += yt[i];
                                }
                            };
                            using std::integral_constant;
                            part(integral_constant<int, 0>{});
                            if constexpr (NP == 4) part(integral_constant<int, 1>{});
                            part(integral_constant<int, 2>{}); /* k 16-23 (P8) or 16-31 (P16) */
                            if constexpr (NP == 4) part(integral_constant<int, 3>{});
                        }
                        promote(y, yt);
                    } else if constexpr (N256) {
                        /* the two halves of op(B)'s 256 rows, each k8 step's op(A) fragment
                         * read once for both */
                        reg_fence(y);
                        reg_fence(y1);
                        wg_fence();
#pragma unroll
                        for (int kk = 0; kk < 4; ++kk) {
                            wgmma_rs(y, ab[kk], desc(bb + 32 * kk), 1u);
                            wgmma_rs(y1, ab[kk], desc(bb + BN * 128 + 32 * kk), 1u);
                        }
                        wg_commit();
                        wg_wait<0>();
                        reg_fence(y);
                        reg_fence(y1);
                        if (DIAG != 1) ws::mbar_arrive(bar_empty + 8 * st);
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
                if (BDIR) { /* any non-finite accumulator sends the tile to the FP32 path (the
                             * kernel's comment, "BRAW") */
#pragma unroll
                    for (int i = 0; i < 64; ++i) nfa = __fmaf_rn(y[i], 0.0f, nfa);
                    if constexpr (N256) {
#pragma unroll
                        for (int i = 0; i < 64; ++i) nfa = __fmaf_rn(y1[i], 0.0f, nfa);
                    }
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
                    reg_fence(yt);
                    wg_fence();
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk)
                        wgmma_128(yt, desc(as + 32 * kk), desc(bb + 32 * kk), kk > 0 ? 1u : 0u);
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk) wgmma_128(yt, desc(ab + 32 * kk), desc(bs + 32 * kk), 1u);
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk) wgmma_128(yt, desc(ab + 32 * kk), desc(bb + 32 * kk), 1u);
                    wg_commit();
                    promote(y, yt);
                    next();
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

            /* write-back: accumulator element 4 i + e of lane l in warp w of warpgroup wg is the
             * tile's row wg 64 + 16 w + l / 4 + 8 (e / 2), column 8 i + 2 (l % 4) + e % 2 (PTX ISA
             * 9.7.15.5, "Register fragments: matrix D" of wgmma .m64nNk8), the row being op(A)'s
             * row RM::row of it (ArowMap: the same unless ATMA permutes them) */
            int64_t bm, bn;
            tile_coords(tile, tiles_m, tiles_n, &bm, &bn);
            /* (the unpermuted rows by the expression the other instances were measured with) */
            const int64_t r0 = RM::H == 8 ? bm * BM + wg * 64 + 16 * w + l / 4 : bm * BM + wg * 64 + RM::row(w, l / 4, 0);
            const int64_t c0 = bn * TN + 2 * (l % 4);
            constexpr int DH = RM::H; /* the row step from e / 2 = 0 to 1 */
            if (bad) { /* block-uniform: every consumer thread read the same flags */
                for (int i = 0; i < 16 * (N256 ? 2 : 1); ++i)
                    for (int e = 0; e < 4; ++e) {
                        const int64_t r = r0 + DH * (e / 2), c = c0 + 8 * i + e % 2;
                        if (r < m && c < n)
                            put<CT>(C, ldc, r, c, alpha, fp32_dot<TA, TB>(r, c, k, A, lda, B, ldb), beta);
                    }
            } else if (CT && c2) { /* elements e and e + 1 adjacent in C: one 8-byte access (c even) */
#pragma unroll
                for (int i = 0; i < 16; ++i) {
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const int64_t r = r0 + DH * h, c = c0 + 8 * i;
                        if (r < m && c + 1 < n)
                            put2(C + c + r * ldc, alpha, y[4 * i + 2 * h], y[4 * i + 2 * h + 1], beta);
                        else if (r < m && c < n) put<CT>(C, ldc, r, c, alpha, y[4 * i + 2 * h], beta);
                    }
                }
                if constexpr (N256) { /* the second half: columns BN on */
#pragma unroll
                    for (int i = 0; i < 16; ++i) {
#pragma unroll
                        for (int h = 0; h < 2; ++h) {
                            const int64_t r = r0 + DH * h, c = c0 + BN + 8 * i;
                            if (r < m && c + 1 < n)
                                put2(C + c + r * ldc, alpha, y1[4 * i + 2 * h], y1[4 * i + 2 * h + 1], beta);
                            else if (r < m && c < n) put<CT>(C, ldc, r, c, alpha, y1[4 * i + 2 * h], beta);
                        }
                    }
                }
            } else {
#pragma unroll
                for (int i = 0; i < 16; ++i) {
#pragma unroll
                    for (int e = 0; e < 4; ++e) {
                        const int64_t r = r0 + DH * (e / 2), c = c0 + 8 * i + e % 2;
                        if (r < m && c < n) put<CT>(C, ldc, r, c, alpha, y[4 * i + e], beta);
                    }
                }
                if constexpr (N256) { /* the second half: columns BN on */
#pragma unroll
                    for (int i = 0; i < 16; ++i) {
#pragma unroll
                        for (int e = 0; e < 4; ++e) {
                            const int64_t r = r0 + DH * (e / 2), c = c0 + BN + 8 * i + e % 2;
                            if (r < m && c < n) put<CT>(C, ldc, r, c, alpha, y1[4 * i + e], beta);
                        }
                    }
                }
            }
        }
    }
    __syncthreads();
}

/* The family's kernel: tf32_body with those parameters, every OPT but OPT_BTMA */
template <int MATH, bool TA, bool TB, int PIPE, int NPW, int DIAG = 0, int OPT = 0>
__global__ void __launch_bounds__(Cfg<MATH, NPW, PIPE, OPT & OPT_CFG>::THREADS, 1)
tf32_kernel(int64_t m, int64_t n, int64_t k, float alpha, const float *__restrict__ A, int64_t lda,
            const float *__restrict__ B, int64_t ldb, float beta, float *__restrict__ C, int64_t ldc, int64_t kslice,
            int64_t cstride)
{
    static_assert((OPT & OPT_BTMA) == 0, "OPT_BTMA: tf32_kernel_tma");
    tf32_body<MATH, TA, TB, PIPE, NPW, DIAG, OPT>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, kslice, cstride, nullptr,
                                                  nullptr);
}

/* The OPT_BTMA instances without OPT_ATMA: tf32_kernel's parameters and tmb, the tensor map of
 * op(B) (k along its first dimension, n along its second: the launcher's copy_map), a kernel
 * parameter in constant space that the tensor copies read by its generic address
 * (__grid_constant__) */
template <int MATH, bool TA, bool TB, int PIPE, int NPW, int DIAG = 0, int OPT = 0>
__global__ void __launch_bounds__(Cfg<MATH, NPW, PIPE, OPT & OPT_CFG>::THREADS, 1)
tf32_kernel_tma(int64_t m, int64_t n, int64_t k, float alpha, const float *__restrict__ A, int64_t lda,
                const float *__restrict__ B, int64_t ldb, float beta, float *__restrict__ C, int64_t ldc,
                int64_t kslice, int64_t cstride, const __grid_constant__ CUtensorMap tmb)
{
    static_assert((OPT & OPT_BTMA) != 0 && (OPT & OPT_ATMA) == 0, "OPT_BTMA alone: tf32_kernel_tma");
    tf32_body<MATH, TA, TB, PIPE, NPW, DIAG, OPT>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, kslice, cstride, &tmb,
                                                  nullptr);
}

/* The OPT_ATMA instances: tf32_kernel_tma's parameters and tma, op(A)'s tensor map (a second
 * kernel, so that the OPT_BTMA instances keep the parameter space they were measured with) */
template <int MATH, bool TA, bool TB, int PIPE, int NPW, int DIAG = 0, int OPT = 0>
__global__ void __launch_bounds__(Cfg<MATH, NPW, PIPE, OPT & OPT_CFG>::THREADS, 1)
tf32_kernel_tma2(int64_t m, int64_t n, int64_t k, float alpha, const float *__restrict__ A, int64_t lda,
                 const float *__restrict__ B, int64_t ldb, float beta, float *__restrict__ C, int64_t ldc,
                 int64_t kslice, int64_t cstride, const __grid_constant__ CUtensorMap tmb,
                 const __grid_constant__ CUtensorMap tma)
{
    static_assert((OPT & OPT_ATMA) != 0, "OPT_ATMA: tf32_kernel_tma2");
    tf32_body<MATH, TA, TB, PIPE, NPW, DIAG, OPT>(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, kslice, cstride, &tmb,
                                                  &tma);
}

} /* namespace tf32 */
} /* namespace tsg */

#endif /* TSG_KERNEL_TF32_CUH */
