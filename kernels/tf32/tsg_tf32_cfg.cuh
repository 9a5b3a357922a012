/*
 * tsg_tf32_cfg.cuh — the tensor-core family's configuration (kernels/tf32/, issue 36): the roles'
 * thread counts, the OPT bits an instance is built with, Cfg (stages, the shared-memory layout of
 * a stage, the registers each role takes with setmaxnreg and the pool rule they obey), and the
 * write-back's helpers (put, put2, and fp32_dot, the FP32 path of a tile with non-finite inputs).
 * What each OPT bit does and why: tsg_kernel_tf32.cuh's file comment.
 * Owns: these definitions. Used by tsg_kernel_tf32.cuh (the kernel) and tsg_kernel_tf32.cu (the
 * launcher reads Cfg for each instance).
 */
#ifndef TSG_TF32_CFG_CUH
#define TSG_TF32_CFG_CUH

#include <stdint.h>

#include "../common/tsg_mbarrier.cuh" /* ws::regs_inc/dec */
#include "tsg_kernel_tf32.h"          /* MATH_3XTF32, MATH_TF32 */
#include "tsg_tf32_slices.cuh"        /* SLICE_BYTES */

namespace tsg {
namespace tf32 {

constexpr int CTHREADS = 256; /* two consumer warpgroups */

/* this role's registers per thread from here on: setmaxnreg.inc above the launch count R0, .dec below */
template <int R, int R0>
static __device__ __forceinline__ void regs_to()
{
    if (R > R0) ws::regs_inc<R>();
    else if (R < R0) ws::regs_dec<R>();
}

/* MATH: MATH_3XTF32 (parts big and small) or MATH_TF32 (big only); NPW: producer warpgroups (1 or
 * 2: the slices' rows shared out among 128 NPW threads). Registers per thread after setmaxnreg:
 * consumers CREG, producers PREG, multiples of 8 with PREG <= R0 <= CREG for the launch count R0,
 * and the consumers' growth paid by the producers' shrinking (file comment). */
/* the kernel's OPT bits: OPT_AREG op(A) copied by cp.async as FP32 and split by the consumers
 * (RawSlice, frag_off: A from registers); OPT_TBLK R-contiguous slices through the producer in 4 x 4
 * blocks (Slice); OPT_BRAW (1xTF32 with OPT_AREG and a K-contiguous op(B) only: NN, TN) op(B)
 * copied raw by cp.async, the tensor core truncating it to TF32 (the kernel's comment, "BRAW");
 * OPT_BCP (with OPT_AREG) op(B) copied by cp.async and split by the producer one item after its
 * copies, OPT_BCP2 two items after (the file comment, OPT_BCP); OPT_SLEEP the
 * barrier waits with a 10 ms suspend-time hint (ws::mbar_wait_hint); OPT_CT the kernel computes
 * C^T = op(B)^T op(A)^T: its element (r, c) is written to C(c, r) (the launcher passes the
 * operands swapped: the file comment, "CT"); OPT_B2 (with OPT_AREG) op(B) loaded two items ahead
 * of its store, in two register slots; OPT_SPLIT split-K over gridDim.y (the file comment);
 * OPT_P16 / OPT_P8 (3xTF32 with OPT_AREG) each half / quarter of a k-tile's steps promoted on its
 * own (the file comment, "P16"); OPT_BTMA (1xTF32 with OPT_AREG, order 2, a K-contiguous op(B):
 * NN, TN, TT as C^T) op(B) by one tensor copy per k-tile that converts it to TF32 (the file
 * comment, "BTMA"; the instance is tf32_kernel_tma); OPT_ATMA (with OPT_BTMA) op(A) by tensor
 * copies too, its rows permuted in the tile where it is R-contiguous (the file comment, "ATMA";
 * the instance is tf32_kernel_tma2); OPT_N256 (with OPT_ATMA and one producer warpgroup) a C tile
 * of 128 x 256, each consumer warpgroup's 64 x 256 as two m64n128 halves that share its op(A)
 * fragments (the file comment, "N256") */
constexpr int OPT_AREG = 1, OPT_TBLK = 2, OPT_BRAW = 4, OPT_BCP = 8, OPT_BCP2 = 16, OPT_SLEEP = 64, OPT_CT = 128,
              OPT_B2 = 256, OPT_SPLIT = 512, OPT_P16 = 1024, OPT_P8 = 2048, OPT_BTMA = 4096,
              OPT_ATMA = 8192, OPT_N256 = 16384;
/* the OPT bits that change Cfg (registers, stages) */
constexpr int OPT_CFG = OPT_AREG | OPT_B2 | OPT_N256;

template <int MATH, int NPW, int PIPE, int OPTC = 0>
struct Cfg {
    static constexpr bool AREG = OPTC & OPT_AREG, B2 = OPTC & OPT_B2, N256 = OPTC & OPT_N256;
    static_assert(!N256 || (AREG && NPW == 1 && MATH == MATH_TF32), "N256: 1xTF32, OPT_AREG, one producer warpgroup");
    /* the C tile's columns: BN, or 2 BN with N256 (its op(B) slice two BN-row halves) */
    static constexpr int TILE_N = N256 ? 2 * BN : BN;
    static_assert(NPW == 1 || NPW == 2, "one or two producer warpgroups");
    static_assert(AREG == 0 || PIPE == 2, "op(A) split by the consumers: producer order 2 only");
    static constexpr bool X3 = MATH == MATH_3XTF32;
    static constexpr int PTHREADS = 128 * NPW, THREADS = CTHREADS + PTHREADS, PWARPS = PTHREADS / 32;
    /* registers per thread the kernel is launched with: ptxas's count under
     * __launch_bounds__(THREADS, 1), 65536 / THREADS rounded down to a multiple of 8 (168 for 384
     * threads, 128 for 512); tf32_init checks the real one */
    static constexpr int R0 = (65536 / THREADS) & ~7;
    static constexpr int PARTS = X3 ? 2 : 1;
    /* a stage: [A big][B big]([A small][B small]); AREG: [A as FP32][B big]([B small]); N256:
     * [A as FP32][B big, 256 rows] */
    static constexpr int OFF_BB = SLICE_BYTES, OFF_AS = 2 * SLICE_BYTES, OFF_BS = (AREG ? 2 : 3) * SLICE_BYTES;
    static constexpr int STAGE_BYTES = N256 ? 3 * SLICE_BYTES : (AREG ? 1 + PARTS : 2 * PARTS) * SLICE_BYTES;
    static constexpr int STAGES = N256 ? 4 : X3 ? (AREG ? 4 : 3) : 6;
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
    /* B2: one producer warpgroup holds two op(B) slices (64 data registers): 3xTF32's consumers
     * give it 16 each of theirs (184; the producer 136: with 120 and 192 ptxas spilled 8-48 bytes
     * of stack in the 3xTF32 instances) */
    /* N256: 128 accumulators per consumer thread; the producer, which only issues tensor copies,
     * gives all but 40 (cuBLAS's 128 x 256 TF32 kernel splits them 232 / 40 the same way) */
    static constexpr int CREG = N256 ? 232
                              : AREG ? (X3 ? (NPW == 1 ? (B2 ? 184 : 200) : 192) : NPW == 1 ? R0 : 144)
                              : NPW == 1 ? (X3 ? 176 : 152) : DEEP ? (X3 ? 144 : 104) : (X3 ? 176 : 128);
    static constexpr int PREG = N256 ? 40
                              : AREG ? (X3 ? (NPW == 1 ? (B2 ? 136 : 104) : 64) : NPW == 1 ? R0 : 112)
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

/* one element of C from an FP32 result v: beta == 0 never reads C. CT (OPT_CT): the kernel
 * computes C^T, so its element (r, c) is C(c, r) */
template <bool CT = false>
static __device__ __forceinline__ void put(float *__restrict__ C, int64_t ldc, int64_t r, int64_t c, float alpha,
                                           float v, float beta)
{
    float *p = CT ? C + c + r * ldc : C + r + c * ldc;
    *p = beta == 0.0f ? alpha * v : fmaf(alpha, v, beta * *p);
}

/* CT: the kernel's elements (r, c) and (r, c + 1), adjacent in C, with one 8-byte access (p
 * 8-byte aligned: the caller's check) */
static __device__ __forceinline__ void put2(float *__restrict__ p, float alpha, float v0, float v1, float beta)
{
    float2 *q = reinterpret_cast<float2 *>(p);
    if (beta == 0.0f) {
        *q = make_float2(alpha * v0, alpha * v1);
    } else {
        const float2 o = *q;
        *q = make_float2(fmaf(alpha, v0, beta * o.x), fmaf(alpha, v1, beta * o.y));
    }
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

} /* namespace tf32 */
} /* namespace tsg */

#endif /* TSG_TF32_CFG_CUH */
