/*
 * tsg_kernel_tf32.cu — the tensor-core family's entry points (tsg_kernel_tf32.h) and its
 * instances (3xTF32 / 1xTF32 times the four transpose pairs times the variants below,
 * tsg_kernel_tf32.cuh). Built for
 * sm_90a only (CMakeLists.txt, tsg_kernels_tf32); tsg_kernel_tf32_stub.cu stands in where the
 * family is not built.
 */
#include <cuda.h>         /* CUtensorMap and its enums (OPT_BTMA) */
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled: called through the runtime's entry point */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mutex>

#include "tsg_kernel_tf32.cuh"
#include "../common/tsg_reduce_splits.cuh"

namespace tsg {

namespace {

using Fn = void (*)(int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t, float,
                    float *, int64_t, int64_t, int64_t);
/* an OPT_BTMA instance (tf32_kernel_tma): Fn's parameters and op(B)'s tensor map; an OPT_ATMA one
 * (tf32_kernel_tma2): op(A)'s map too */
using FnT = void (*)(int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t, float,
                     float *, int64_t, int64_t, int64_t, CUtensorMap);
using FnT2 = void (*)(int64_t, int64_t, int64_t, float, const float *, int64_t, const float *, int64_t, float,
                      float *, int64_t, int64_t, int64_t, CUtensorMap, CUtensorMap);

/* one instance of the kernel with what a launch needs; split: the same with OPT_SPLIT (split-K,
 * tsg_kernel_tf32.cuh), built for the default variant and variants 12, 13, 14, 16 only (nullptr
 * elsewhere); an OPT_BTMA instance has tfn (and tsplit) instead of fn (and split), an OPT_ATMA
 * one t2fn (and t2split) */
struct Inst {
    Fn fn;
    int pipe, npw, opt, threads, smem, stages, creg, preg;
    bool (*fits)(int);
    Fn split;
    FnT tfn, tsplit;
    FnT2 t2fn, t2split;
    bool ta; /* the kernel's TA: its op(A) K-contiguous (OPT_ATMA's map of op(A)) */
    int tn;  /* the C tile's columns (Cfg::TILE_N: 256 with OPT_N256) */
    /* the instance's (or its split-K twin's) code, for cudaFuncGetAttributes / SetAttribute */
    const void *code(bool twin) const
    {
        if (twin) return t2split ? (const void *)t2split : tsplit ? (const void *)tsplit : (const void *)split;
        return t2fn ? (const void *)t2fn : tfn ? (const void *)tfn : (const void *)fn;
    }
    bool has_split() const { return split || tsplit || t2split; }
};

/* an OPT_CT instance: launched with m and n, A and B swapped (it computes C^T:
 * tsg_kernel_tf32.cuh, "CT") */
bool swapped(const Inst &in) { return (in.opt & tf32::OPT_CT) != 0; }

template <int MATH, bool TA, bool TB, int PIPE, int NPW, int OPT, bool SPLIT = false>
Inst inst()
{
    using CF = tf32::Cfg<MATH, NPW, PIPE, OPT & tf32::OPT_CFG>;
    Fn fn = nullptr, split = nullptr;
    FnT tfn = nullptr, tsplit = nullptr;
    FnT2 t2fn = nullptr, t2split = nullptr;
    if constexpr ((OPT & tf32::OPT_ATMA) != 0) {
        t2fn = tf32::tf32_kernel_tma2<MATH, TA, TB, PIPE, NPW, 0, OPT>;
        if constexpr (SPLIT) t2split = tf32::tf32_kernel_tma2<MATH, TA, TB, PIPE, NPW, 0, OPT | tf32::OPT_SPLIT>;
    } else if constexpr ((OPT & tf32::OPT_BTMA) != 0) {
        tfn = tf32::tf32_kernel_tma<MATH, TA, TB, PIPE, NPW, 0, OPT>;
        if constexpr (SPLIT) tsplit = tf32::tf32_kernel_tma<MATH, TA, TB, PIPE, NPW, 0, OPT | tf32::OPT_SPLIT>;
    } else {
        fn = tf32::tf32_kernel<MATH, TA, TB, PIPE, NPW, 0, OPT>;
        if constexpr (SPLIT) split = tf32::tf32_kernel<MATH, TA, TB, PIPE, NPW, 0, OPT | tf32::OPT_SPLIT>;
    }
    return Inst{fn,
                PIPE,
                NPW,
                OPT,
                CF::THREADS,
                CF::SMEM_BYTES,
                CF::STAGES,
                CF::CREG,
                CF::PREG,
                CF::fits,
                split,
                tfn,
                tsplit,
                t2fn,
                t2split,
                TA,
                CF::TILE_N};
}

/* the pair (TA, TB) as C^T = op(B)^T op(A)^T: the instance <!TB, !TA> with OPT_CT */
template <int MATH, bool TA, bool TB, int PIPE, int NPW, int OPT, bool SPLIT = false>
Inst inst_ct()
{
    return inst<MATH, !TB, !TA, PIPE, NPW, OPT | tf32::OPT_CT, SPLIT>();
}

/* one instance set of a math: an instance per transpose pair, index ta + 2 tb (NN, TN, NT, TT) */
struct Variant {
    Inst in[4];
};

/* every pair of one (PIPE, NPW, OPT) */
template <int MATH, int PIPE, int NPW, int OPT>
Variant variant()
{
    return Variant{{inst<MATH, false, false, PIPE, NPW, OPT>(), inst<MATH, true, false, PIPE, NPW, OPT>(),
                    inst<MATH, false, true, PIPE, NPW, OPT>(), inst<MATH, true, true, PIPE, NPW, OPT>()}};
}

/* every pair of one (PIPE, NPW, OPT) as C^T (inst_ct): NN through the TT instance, TN through
 * TN's, NT through NT's, TT through NN's */
template <int MATH, int PIPE, int NPW, int OPT>
Variant variant_ct()
{
    return Variant{{inst_ct<MATH, false, false, PIPE, NPW, OPT>(), inst_ct<MATH, true, false, PIPE, NPW, OPT>(),
                    inst_ct<MATH, false, true, PIPE, NPW, OPT>(), inst_ct<MATH, true, true, PIPE, NPW, OPT>()}};
}

/* The variants of each math, the default first; the others are timed beside it by
 * test_tf32_kernel and must give the same bits (they change the work split between the roles,
 * the load order, the split's instructions or the waits, never the results' bits), except where
 * tf32_variant_exact says otherwise (an operand converted by another rule: OPT_BRAW, OPT_BTMA and
 * OPT_ATMA against cvt.rna; OPT_P16 and OPT_P8; and a pair run as C^T by one and directly by the
 * other). PIPE is the producer's load order, NPW its warpgroups, OPT how the
 * roles share the loads and the split, how they wait and how often 3xTF32 promotes
 * (tsg_kernel_tf32.cuh: OPT_AREG, OPT_TBLK, OPT_BRAW, OPT_BCP, OPT_BCP2, OPT_SLEEP, OPT_CT, OPT_B2,
 * OPT_P16, OPT_P8). Variants 1-3: both operands through the
 * producer's registers (order 3 with two producer warpgroups; order 2 with one; order 2 with
 * two).
 * The default (default_variant): op(A) by cp.async and split by the consumers (OPT_AREG); op(B)
 * loaded into the producer's registers, split and stored (Slice), R-contiguous slices in 4 x 4
 * blocks (OPT_TBLK); one producer warpgroup for 3xTF32, two for 1xTF32; TT run as C^T through the
 * NN instance (OPT_CT: its op(B) is then K-contiguous, not through the blocks); 1xTF32's op(B)
 * and op(A) by tensor copies where op(B) is K-contiguous (OPT_BTMA | OPT_ATMA, one producer
 * warpgroup), into a 128 x 256 C tile (OPT_N256: default_variant). With the split by add
 * and mask (tsg_tf32_ptx.cuh split) the register path beats OPT_BCP (variant 4) in every pair, H100 run 41
 * (docs/results/h100-2026-12-06-run41-tf32.txt, TFLOP/s, 3xTF32 through the registers / OPT_BCP):
 * 4096^3 NN 117.3 / 100.2, NT 104.6 / 99.3, TN 103.0 / 87.7, TT 103.8 / 100.8; 8192^3 NT 102.1 /
 * 93.9, TT 98.5 / 98.4; 1xTF32 4096^3 NN 169.0 / 168.5, NT 157.4 / 149.0 (docs/NOTES.md "tenth
 * session"). Variant 4 is OPT_BCP, every pair (the NT / TT default of 6596c84 .. b543861).
 * Variant 5 is OPT_BCP with the split two items behind its copies (OPT_BCP2), every pair.
 * Variants 6 and 7: op(B) through the registers with one and two producer warpgroups, every pair
 * run directly (3xTF32's variant 6 is its default with TT direct, 1xTF32's variant 7 its default
 * without OPT_B2 and with TT direct: the previous defaults).
 * Variant 8 (V_BRAW), an experiment: 1xTF32 NN / TN with OPT_BRAW (op(B) copied raw by cp.async,
 * truncated toward zero to TF32 by the tensor core, where cuBLAS FAST_TF32 rounds both operands
 * to nearest even, at 64^3 and at 4096^3: `test_tf32_kernel --rounding`, H200 run 59 and H100
 * run 60; its wgmma kernels have no conversion instruction, so their TMA loads convert: the
 * default with OPT_BRAW lost by that rule in run 60, docs/NOTES.md "seventeenth session"): other
 * bits than the default's, checked by test_tf32_kernel against the reference instead
 * (tf32_variant_exact); NT / TT the default's; 3xTF32 has no BRAW (its split needs op(B)
 * rounded): its variant 8 is its default.
 * Variant 9: the default with the barrier waits' suspend-time hint (OPT_SLEEP); for 1xTF32
 * without its OPT_B2 (default_variant adds it only without other bits), so that no instance
 * beyond those measured is built. The previous
 * split (cvt.rna.tf32.f32) was variant 9 until its bits were checked against the new one
 * (docs/NOTES.md "tenth session"); test_tf32_kernel now compares the two over all 2^32 bit
 * patterns.
 * Variant 10: the default's instances run as C^T in every pair (OPT_CT: NN through the TT
 * instance, TT through NN's, NT and TN through their own with the operands swapped), so that the
 * test reaches all four OPT_CT instances; 3xTF32's default takes TT's (1xTF32's TT as C^T
 * carries OPT_B2: variant 11's, the default of runs 41-61). An instance run as C^T may give other bits than the same pair
 * run directly (tf32_variant_exact).
 * Variant 11: op(B) loaded two items ahead of its store in every pair (OPT_B2: two register
 * slots; 1xTF32's default had it in NN, TN and TT until the tensor copies, H100 run 62).
 * Variants 12 and 13: 3xTF32's default with each half (OPT_P16) / each quarter (OPT_P8) of a
 * k-tile promoted on its own (tsg_kernel_tf32.cuh, "P16"): other bits than the default's
 * (tf32_variant_exact); 1xTF32's are its default.
 * Variant 14 (V_REG): 1xTF32's default with both operands through the producer (op(A) by
 * cp.async, rounded by the consumers; op(B) two items ahead in its registers, OPT_B2) instead of
 * the tensor copies: the default before H100 run 62, and the default's fallback where a call's
 * tensor map is refused (tf32_sgemm_variant), on 128 x 128 tiles (the default's NN, TN and TT are
 * 128 x 256); other bits than the default's at ties
 * (tf32_variant_exact); 3xTF32's default.
 * Variant 15: 1xTF32's default of runs 62-63 (op(B) by tensor copy, op(A) by cp.async and
 * rounded by the consumers, two producer warpgroups: OPT_BTMA), no split-K instances; other bits
 * than the default's at ties in op(A); 3xTF32's default without its split-K instances. (Its one-producer-warpgroup twin, 230.8
 * against 239.8 TFLOP/s at 4096^3 NN in run 62, is not built any more.)
 * Variant 16: 1xTF32's NN, TN and TT with the 128 x 128 C tile and both operands by tensor copies
 * (K_ATMA), with split-K instances: the default of H100 runs 63-67 and H200 runs 69-74, kept to
 * measure the 128 x 256 tile against; NT the default's; 3xTF32's default. The default's bits
 * wherever no tile takes the FP32 path (the same products in the same order per element); where
 * one does (a non-finite input or sum), the default's wider tile recomputes more elements in FP32
 * (tf32_variant_exact_nonfinite). */
constexpr int VARIANTS = 17, V_BRAW = 8, V_REG = 14;

/* Variants 4 and 5: every pair with OPT_BCP | X (X = 0: the split one item behind the copies;
 * OPT_BCP2: two), op(A) by cp.async and split by the consumers, one producer warpgroup */
template <int MATH, int X>
Variant bcp_variant()
{
    return variant<MATH, 2, 1, tf32::OPT_AREG | tf32::OPT_TBLK | tf32::OPT_BCP | X>();
}

/* How 1xTF32's default_variant moves the operands of NN, TN and TT (as C^T: an NN instance),
 * where op(B) is K-contiguous: K_PLAIN as NT (op(B) through the producer's registers), K_REG
 * op(B) two items ahead there (OPT_B2), K_BTMA op(B) by tensor copy (OPT_BTMA), K_ATMA both
 * operands by tensor copies (OPT_BTMA | OPT_ATMA, one producer warpgroup), K_N256 that with a
 * 128 x 256 tile (OPT_N256) */
enum { K_PLAIN, K_REG, K_BTMA, K_ATMA, K_N256 };

/* Variant 0, the default (the comment above): op(B) through the producer's registers, one
 * producer warpgroup for 3xTF32, two for 1xTF32's NT; TT as C^T through the NN instance (OPT_CT).
 * 1xTF32's NN, TN and TT copy both operands by tensor copies into a 128 x 256 C tile (K_N256),
 * adopted by the rule of docs/NOTES.md "nineteenth session" (every check passes, the four
 * sanitizers clean, >= 5% over K_ATMA at 4096^3 and 8192^3 NN), met in H200 run 69
 * (docs/results/h200-2026-12-07-run69-tf32.txt, TFLOP/s, K_N256 / K_ATMA): 4096^3 NN 375.4 / 280.5,
 * TN 384.2 / 309.9, TT 388.4 / 283.2, 8192^3 NN 374.4 / 267.5, TN 383.1 / 304.6, TT 394.5 / 277.7,
 * 16384^3 NN 322.8 / 233.6; H100 run 67 (docs/results/h100-2026-12-07-run67-tf32.txt): 4096^3 NN
 * 358.9 / 272.0, 8192^3 NN 324.5 / 248.8.
 * K_ATMA against K_BTMA and K_REG, H100 run 63
 * (docs/results/h100-2026-12-07-run63-tf32.txt, TFLOP/s, K_ATMA / K_BTMA / K_REG): 4096^3 NN
 * 277.8 / 259.3 / 188.9, TN 297.0 / 225.3 / 184.3, TT 275.3 / 248.5 / 182.8, 8192^3 NN 264.5 /
 * 237.4 / 179.2, TN 295.1 / 220.2 / 189.3, 16384^3 NN 249.0 / 239.2 / 188.2. K_REG (variant 14,
 * and the default's own fallback where a call's tensor map is refused: tf32_sgemm_variant)
 * against K_PLAIN, H100 run 46 (docs/results/h100-2026-12-06-run46-tf32.txt): 4096^3 NN 180.2 /
 * 164.9, TN 189.0 / 153.2, TT 192.1 / 163.8. NT is K_PLAIN (op(B) R-contiguous: through the 4 x 4
 * blocks; B2 145.1 / 152.0 at 4096^3, 140.4 / 160.0 at 8192^3), and so is 3xTF32 (B2 4096^3 NN
 * 105.7 / 119.3; its split needs each operand's FP32 value). X: further OPT bits (variant 9:
 * OPT_SLEEP, variant 11: OPT_B2 in every pair), which come with K_PLAIN */
template <int MATH, int X = 0, bool S = X == 0, int KP = X == 0 ? K_N256 : K_PLAIN>
Variant default_variant()
{
    /* S: with split-K instances (the library's default and its fallback; variants 12 and 13, whose
     * accuracy is measured on the accuracy study's split shapes) */
    constexpr int AB = tf32::OPT_AREG | tf32::OPT_TBLK | X;
    constexpr int NPW = MATH == MATH_3XTF32 ? 1 : 2;
    constexpr bool T1 = MATH == MATH_TF32;
    /* NN, TN and TT's: op(B) K-contiguous */
    constexpr int KB = !T1 || KP == K_PLAIN ? AB
                       : KP == K_REG        ? AB | tf32::OPT_B2
                       : KP == K_BTMA       ? AB | tf32::OPT_BTMA
                       : KP == K_ATMA       ? AB | tf32::OPT_BTMA | tf32::OPT_ATMA
                                            : AB | tf32::OPT_BTMA | tf32::OPT_ATMA | tf32::OPT_N256;
    constexpr int KNPW = T1 && (KP == K_ATMA || KP == K_N256) ? 1 : NPW;
    /* NN, TN, NT direct, TT as C^T (built one by one: TT's direct instance is not needed) */
    return Variant{{inst<MATH, false, false, 2, KNPW, KB, S>(), inst<MATH, true, false, 2, KNPW, KB, S>(),
                    inst<MATH, false, true, 2, NPW, AB, S>(), inst_ct<MATH, true, true, 2, KNPW, KB, S>()}};
}

/* V_BRAW: 1xTF32's NN and TN with op(B) raw (order 2, two producer warpgroups, AREG | TBLK | BRAW),
 * NT and TT the default's; 3xTF32's default whole */
template <int MATH>
Variant braw_variant()
{
    const Variant d = default_variant<MATH>();
    if constexpr (MATH == MATH_TF32) {
        constexpr int ABR = tf32::OPT_AREG | tf32::OPT_TBLK | tf32::OPT_BRAW;
        return Variant{{inst<MATH, false, false, 2, 2, ABR>(), inst<MATH, true, false, 2, 2, ABR>(), d.in[2], d.in[3]}};
    } else {
        return d;
    }
}

/* variants 12 and 13: 3xTF32's default with OPT_P16 / OPT_P8 (X), 1xTF32's default */
template <int MATH, int X>
Variant part_variant()
{
    if constexpr (MATH == MATH_3XTF32) return default_variant<MATH, X, true>();
    else return default_variant<MATH>();
}

template <int MATH>
const Variant &variant_of(int v)
{
    constexpr int AB = tf32::OPT_AREG | tf32::OPT_TBLK;
    static const Variant vs[VARIANTS] = {default_variant<MATH>(),
                                         variant<MATH, 3, 2, 0>(),
                                         variant<MATH, 2, 1, 0>(),
                                         variant<MATH, 2, 2, 0>(),
                                         bcp_variant<MATH, 0>(),
                                         bcp_variant<MATH, tf32::OPT_BCP2>(),
                                         variant<MATH, 2, 1, AB>(),
                                         variant<MATH, 2, 2, AB>(),
                                         braw_variant<MATH>(),
                                         default_variant<MATH, tf32::OPT_SLEEP>(),
                                         variant_ct<MATH, 2, MATH == MATH_3XTF32 ? 1 : 2, AB>(),
                                         default_variant<MATH, tf32::OPT_B2>(),
                                         part_variant<MATH, tf32::OPT_P16>(),
                                         part_variant<MATH, tf32::OPT_P8>(),
                                         default_variant<MATH, 0, true, K_REG>(),
                                         default_variant<MATH, 0, false, K_BTMA>(),
                                         default_variant<MATH, 0, true, K_ATMA>()};
    return vs[v];
}

const Variant &pick(int math, int v)
{
    return math == MATH_3XTF32 ? variant_of<MATH_3XTF32>(v) : variant_of<MATH_TF32>(v);
}

/* The driver's cuTensorMapEncodeTiled (CUDA 12.0's signature) through the runtime's entry-point
 * query, looked up once (no link against libcuda); nullptr where the driver has none. The query
 * by version exists from CUDA 12.5 on (the unversioned one is deprecated there); the family is
 * built from nvcc 12.0 on (CMakeLists.txt) */
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled()
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    static std::once_flag once;
    std::call_once(once, [] {
        void *p = nullptr;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
#else
        const cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &q);
#endif
        if (e == cudaSuccess && q == cudaDriverEntryPointSuccess)
            fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
        else
            (void)cudaGetLastError();
    });
    return fn;
}

/* The tensor map of an operand the OPT_BTMA / OPT_ATMA instances copy by tensor copies
 * (tsg_kernel_tf32.cuh, "BTMA", "ATMA"): X with element (i0, i1) at X[i0 + i1 ldx], i0 < d0 along
 * its contiguous dimension, i1 < d1 (device memory, X 16-byte aligned, ldx a multiple of 4 and
 * >= d0: tf32_takes and BLAS's rules), as a 2-D tensor of TFLOAT32 elements read in boxes of
 * box0 x box1 (box0 = 32: one 128-byte row per i1, the 128-byte swizzle), zero outside. Returns 0,
 * cudaErrorNotSupported where the driver has no tensor maps or d0 or d1 reach 2^31 (the copies'
 * coordinates are 32-bit), cudaErrorInvalidValue where the driver refuses the map. Rules: cuda.h,
 * cuTensorMapEncodeTiled. */
int copy_map(CUtensorMap *map, const float *X, int64_t ldx, int64_t d0, int64_t d1, unsigned box0, unsigned box1)
{
    const PFN_cuTensorMapEncodeTiled_v12000 enc = encode_tiled();
    if (!enc || d0 >= INT32_MAX || d1 >= INT32_MAX) return (int)cudaErrorNotSupported;
    const cuuint64_t dim[2] = {(cuuint64_t)d0, (cuuint64_t)d1};
    const cuuint64_t stride[1] = {(cuuint64_t)ldx * sizeof(float)};
    const cuuint32_t box[2] = {box0, box1}, step[2] = {1, 1};
    const CUresult r = enc(map, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, 2, const_cast<float *>(X), dim, stride, box, step,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                           CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? 0 : (int)cudaErrorInvalidValue;
}

/* one flag for the process: the family needs compute capability 9.0 and the sm_90a image
 * loading, the same for every Hopper device (a mixed machine: false unless all are) */
int g_state = 0; /* 0 not measured, 1 available, -1 not */
/* per math (3xTF32, 1xTF32) and variant: its register split fits the count ptxas gave it (the
 * default's decides g_state; another variant that does not fit is refused by tf32_sgemm_variant) */
bool g_fits[2][VARIANTS];

/* Variant v of `math` on the current device: its four instances load (cudaFuncGetAttributes), their
 * register split fits the count ptxas gave them (g_fits) and their shared memory is allowed.
 * Returns 0, -1 when the family's code is not there for this device, or a cudaError_t. */
int set_up(int math, int v)
{
    const Variant &vt = pick(math, v);
    bool fits = true;
    for (int p = 0; p < 4; ++p) {
        cudaFuncAttributes a;
        const Inst &in = vt.in[p];
        cudaError_t e = cudaFuncGetAttributes(&a, in.code(false));
        if (e == cudaErrorInvalidDeviceFunction || e == cudaErrorNoKernelImageForDevice) {
            (void)cudaGetLastError();
            return -1;
        }
        if (e != cudaSuccess) return (int)e;
        /* setmaxnreg's pool is what the kernel is launched with: a count the roles cannot share
         * out would make a consumer wait forever (tsg_kernel_tf32.cuh, "registers") */
        if (!in.fits(a.numRegs)) {
            fits = false;
            continue;
        }
        e = cudaFuncSetAttribute(in.code(false), cudaFuncAttributeMaxDynamicSharedMemorySize, in.smem);
        if (e != cudaSuccess) return (int)e;
        if (in.has_split()) { /* its split-K twin: the same checks (its own register count) */
            if ((e = cudaFuncGetAttributes(&a, in.code(true))) != cudaSuccess) return (int)e;
            if (!in.fits(a.numRegs)) {
                fits = false;
                continue;
            }
            e = cudaFuncSetAttribute(in.code(true), cudaFuncAttributeMaxDynamicSharedMemorySize, in.smem);
            if (e != cudaSuccess) return (int)e;
        }
    }
    g_fits[math - MATH_3XTF32][v] = fits;
    return 0;
}

/* a test variant set up once, on first use; whether it runs (g_fits) */
bool ensure_variant(int math, int v)
{
    static std::once_flag once[2][VARIANTS];
    const int mi = math - MATH_3XTF32;
    if (g_state != 1 || mi < 0 || mi > 1 || v < 0 || v >= VARIANTS) return false;
    if (v > 0) std::call_once(once[mi][v], [&] { (void)set_up(math, v); });
    return g_fits[mi][v];
}

} /* namespace */

bool tf32_available() { return g_state == 1; }

int tf32_init()
{
    int dev = 0, major = 0, minor = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return (int)e;
    if ((e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess) return (int)e;
    if ((e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev)) != cudaSuccess) return (int)e;
    if (major != 9 || minor != 0) {
        g_state = -1;
        return 0;
    }
    /* the defaults only: the other variants are the test's, set up when it first asks for them
     * (ensure_variant), not in every process's start */
    for (int math = MATH_3XTF32; math <= MATH_TF32; ++math) {
        const int r = set_up(math, 0);
        if (r > 0) return r;
        if (r < 0 || !g_fits[math - MATH_3XTF32][0]) {
            g_state = -1;
            return 0;
        }
    }
    if (g_state == 0) g_state = 1;
    return 0;
}

bool tf32_takes(int math, char transa, char transb, int64_t m, int64_t n, int64_t k, const float *A, int64_t lda,
                const float *B, int64_t ldb, const float *C, int64_t ldc)
{
    (void)C, (void)ldc;
    if (math != MATH_3XTF32 && math != MATH_TF32) return false;
    if (!tf32_available()) return false;
    const bool ta = transa == 'T' || transa == 't', tb = transb == 'T' || transb == 't';
    if (!ta && !(transa == 'N' || transa == 'n')) return false;
    if (!tb && !(transb == 'N' || transb == 'n')) return false;
    if (m < 1 || n < 1 || k < 1) return false;
    /* 16-byte loads: aligned bases, leading dimensions multiples of 4 floats */
    if (((uintptr_t)A & 15) || ((uintptr_t)B & 15) || (lda & 3) || (ldb & 3)) return false;
    return true;
}

/* how many variants each math has (the test's A/B, not in the header) */
int tf32_variants() { return VARIANTS; }

/* whether variant v of `math` has split-K instances (kslice < k runs; the test's A/B) */
bool tf32_variant_splits(int math, int v)
{
    if (v < 0 || v >= VARIANTS) return false;
    return pick(math, v).in[0].has_split();
}

/* variant v's instance for the pair (transa, transb), or nullptr for no such variant */
static const Inst *pair_inst(int math, int v, char transa, char transb)
{
    if (v < 0 || v >= VARIANTS) return nullptr;
    const bool ta = transa == 'T' || transa == 't', tb = transb == 'T' || transb == 't';
    return &pick(math, v).in[ta + 2 * tb];
}

/* how variant v of `math` converts the call's operand `operand` ('A' or 'B') to TF32 for the pair
 * (transa, transb) (the test's --rounding, and tf32_variant_exact): 'z' toward zero (an OPT_BRAW
 * instance hands its op(B) to the tensor core raw, which reads the top 19 bits), 'e' to nearest,
 * ties to even (an OPT_BTMA instance's tensor copy of op(B), an OPT_ATMA one's of op(A) too: the
 * copies' TFLOAT32 conversion, H100 run 62, as cuBLAS's own TMA-fed kernels give, docs/NOTES.md
 * "seventeenth session"), 'a' to nearest, ties away (cvt.rna's bits: every other instance); 0 for
 * no such variant. An instance run as C^T takes the call's op(A)^T as its op(B) (tsg_kernel_tf32.cuh,
 * "CT") */
char tf32_variant_rounding(int math, int v, char transa, char transb, char operand)
{
    const Inst *in = pair_inst(math, v, transa, transb);
    if (!in) return 0;
    const char kernel_b = swapped(*in) ? 'A' : 'B'; /* the call's operand the instance reads as op(B) */
    if (operand != kernel_b) return in->opt & tf32::OPT_ATMA ? 'e' : 'a';
    return in->opt & tf32::OPT_BRAW ? 'z' : in->opt & tf32::OPT_BTMA ? 'e' : 'a';
}

/* whether variant v of `math` must give the default's bits for the pair (transa, transb) (the
 * test's A/B): every instance that converts both operands as the default's does
 * (tf32_variant_rounding: a raw op(B) is truncated, a tensor copy rounds ties to even, cvt.rna
 * ties away), promotes as it does (not OPT_P16 / OPT_P8: a k-tile promoted in parts,
 * tsg_kernel_tf32.cuh "P16") and runs the pair as C^T where it does (else the three products'
 * factors are exchanged: tsg_kernel_tf32.cuh, "CT") */
bool tf32_variant_exact(int math, int v, char transa, char transb)
{
    const Inst *in = pair_inst(math, v, transa, transb), *d = pair_inst(math, 0, transa, transb);
    return in && !(in->opt & (tf32::OPT_P16 | tf32::OPT_P8)) && swapped(*in) == swapped(*d) &&
           tf32_variant_rounding(math, v, transa, transb, 'A') == tf32_variant_rounding(math, 0, transa, transb, 'A') &&
           tf32_variant_rounding(math, v, transa, transb, 'B') == tf32_variant_rounding(math, 0, transa, transb, 'B');
}

/* tf32_variant_exact for inputs that send a tile to the FP32 path (an Inf or NaN input, a finite
 * one TF32 rounds to Inf, a sum that overflows): the same, and the same C tile (such a tile is
 * recomputed in FP32 whole, so a variant whose tiles are wider (OPT_N256) recomputes finite
 * neighbours a narrower tile leaves to the tensor cores: other bits there, within the same
 * bound; H100 run 67). tf32_variant_exact itself holds for inputs that send no tile there. */
bool tf32_variant_exact_nonfinite(int math, int v, char transa, char transb)
{
    const Inst *in = pair_inst(math, v, transa, transb), *d = pair_inst(math, 0, transa, transb);
    return tf32_variant_exact(math, v, transa, transb) && in->tn == d->tn;
}

/* one instance's description, e.g. "pipe 2, 1 producer warpgroup, op(A) split by the consumers" */
int inst_name(const Inst &in, char *buf, size_t len)
{
    return snprintf(buf, len, "%spipe %d, %d producer warpgroup%s%s%s%s%s%s%s%s%s%s%s", swapped(in) ? "as C^T, " : "",
                    in.pipe, in.npw, in.npw > 1 ? "s" : "",
                    in.opt & tf32::OPT_AREG ? ", op(A) by cp.async, split by the consumers" : "",
                    in.opt & tf32::OPT_TBLK ? ", R-contiguous slices in 4x4 blocks" : "",
                    in.opt & tf32::OPT_BRAW ? ", op(B) raw by cp.async (truncated to TF32)" : "",
                    in.opt & tf32::OPT_ATMA   ? ", op(A) and op(B) by tensor copy (converted to TF32)"
                    : in.opt & tf32::OPT_BTMA ? ", op(B) by tensor copy (converted to TF32)"
                                              : "",
                    in.opt & tf32::OPT_BCP ? ", op(B) by cp.async, split by the producer" : "",
                    in.opt & tf32::OPT_BCP2 ? " two items behind its copies" : "",
                    in.opt & tf32::OPT_SLEEP ? ", waits with a suspend hint" : "",
                    in.opt & tf32::OPT_B2 ? ", op(B) two items ahead" : "",
                    in.opt & tf32::OPT_N256 ? ", 128x256 tile" : "",
                    in.opt & tf32::OPT_P8    ? ", promoted every k8 step"
                    : in.opt & tf32::OPT_P16 ? ", promoted every 16 k"
                                             : "");
}

/* variant v's description: its instance's, or each pair's where they differ */
int tf32_variant_name(int math, int v, char *buf, size_t len)
{
    if (v < 0 || v >= VARIANTS) return snprintf(buf, len, "no variant %d", v);
    const Variant &vt = pick(math, v);
    const char *refused = tf32_available() && !ensure_variant(math, v) ? " (not set up: refused)" : "";
    char one[4][192]; /* the longest instance name (OPT_BCP2's) is 178 characters */
    bool same = true;
    for (int p = 0; p < 4; ++p) {
        inst_name(vt.in[p], one[p], sizeof one[p]);
        same = same && !strcmp(one[p], one[0]);
    }
    /* V_BRAW, V_REG and 15 of 3xTF32 are its default: say so */
    const char *note = math != MATH_3XTF32 ? ""
                       : v == V_BRAW       ? " (BRAW does not apply to 3xTF32: its default)"
                       : v >= V_REG        ? " (the tensor copies do not apply to 3xTF32: its default)"
                                           : "";
    if (same) return snprintf(buf, len, "%s%s%s", one[0], note, refused);
    return snprintf(buf, len, "NN %s; TN %s; NT %s; TT %s%s%s", one[0], one[1], one[2], one[3], note, refused);
}

void tf32_call_tile(int math, char transa, char transb, int64_t *rows, int64_t *cols)
{
    *rows = *cols = 0;
    if (math != MATH_3XTF32 && math != MATH_TF32) return;
    const bool ta = transa == 'T' || transa == 't', tb = transb == 'T' || transb == 't';
    const Inst &in = pick(math, 0).in[ta + 2 * tb];
    /* the kernel's tile is BM of its m by in.tn of its n; as C^T its m is the call's n */
    *rows = swapped(in) ? in.tn : tf32::BM;
    *cols = swapped(in) ? tf32::BM : in.tn;
}

int64_t tf32_call_kslice(int math, char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t sms,
                         int64_t ws_max_floats)
{
    int64_t rows, cols;
    tf32_call_tile(math, transa, transb, &rows, &cols);
    return rows > 0 ? tf32_kslice(m, n, k, sms, ws_max_floats, rows, cols) : k;
}

/* tf32_sgemm with variant v of the family (0 the default, up to tf32_variants() - 1): the test's
 * A/B, not in the header */
int tf32_sgemm_variant(int variant, int math, char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                       const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                       int64_t kslice, float *W, void *stream)
{
    const bool ta = transa == 'T' || transa == 't', tb = transb == 'T' || transb == 't';
    int dev = 0, sms = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return (int)e;
    if (variant < 0 || variant >= VARIANTS) return (int)cudaErrorInvalidValue;
    const Inst &in = pick(math, variant).in[ta + 2 * tb];
    /* the kernel's operands and sizes: C^T = op(B)^T op(A)^T, n x m, the operands exchanged where
     * the instance runs as C^T (tsg_kernel_tf32.cuh, "CT"); its tiles BM x in.tn */
    const bool sw = swapped(in);
    const int64_t km = sw ? n : m, kn = sw ? m : n, kla = sw ? ldb : lda, klb = sw ? lda : ldb;
    const float *ka = sw ? B : A, *kb = sw ? A : B;
    const int64_t tiles = ((km + tf32::BM - 1) / tf32::BM) * ((kn + in.tn - 1) / in.tn);
    const int64_t grid = tiles < sms ? tiles : sms;
    if ((math != MATH_3XTF32 && math != MATH_TF32) || !ensure_variant(math, variant))
        return (int)cudaErrorNotSupported;
    /* split-K: slices of kslice (whole k-tiles: the slices' operands keep their alignment) into W */
    const int64_t splits = kslice < k ? (k + kslice - 1) / kslice : 1;
    if (splits > 1 && (kslice <= 0 || kslice % tf32::BK != 0 || W == nullptr || splits > 65535))
        return (int)cudaErrorInvalidValue;
    float *const out = splits > 1 ? W : C;
    const int64_t ldo = splits > 1 ? m : ldc;
    const float a = splits > 1 ? 1.0f : alpha, b = splits > 1 ? 0.0f : beta;
    const dim3 g((unsigned)grid, (unsigned)splits);
    const Fn fn = splits > 1 ? in.split : in.fn;
    const FnT tfn = splits > 1 ? in.tsplit : in.tfn;
    const FnT2 t2fn = splits > 1 ? in.t2split : in.t2fn;
    if (!fn && !tfn && !t2fn) return (int)cudaErrorNotSupported; /* split-K: the default's and variants 12, 13, 14, 16's only */
    const cudaStream_t s = (cudaStream_t)stream;
    if (tfn || t2fn) { /* OPT_BTMA: the kernel's op(B) (k x kn, K-contiguous) through its tensor map,
                        * one slice of 32 k x in.tn per box; OPT_ATMA: op(A) too, 32 k x BM
                        * (K-contiguous) or 32 x 32 (four boxes per slice) */
        CUtensorMap mb, ma;
        int r = copy_map(&mb, kb, klb, k, kn, tf32::BK, (unsigned)in.tn);
        if (r == 0 && t2fn)
            r = in.ta ? copy_map(&ma, ka, kla, k, km, tf32::BK, tf32::BM) : copy_map(&ma, ka, kla, km, k, 32, 32);
        /* a map refused (a driver without tensor maps, m, n or k from 2^31 - 1 on, a leading
         * dimension the driver does not take): the default takes its register-path twin, the same
         * products with both operands rounded by cvt.rna's rule (ties away), on 128 x 128 tiles;
         * where the default's tile is wider (1xTF32's 128 x 256 in NN, TN and TT), a split is asked
         * again for those tiles (within W: never more slices than asked for); else the caller's
         * kslice stands */
        if (r != 0 && variant == 0) {
            const int64_t ks = splits > 1 && in.tn != tf32::BN ? tf32_kslice(m, n, k, sms, splits * m * n) : kslice;
            return tf32_sgemm_variant(V_REG, math, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, ks, W,
                                      stream);
        }
        if (r != 0) return r;
        if (t2fn) t2fn<<<g, in.threads, in.smem, s>>>(km, kn, k, a, ka, kla, kb, klb, b, out, ldo, kslice, m * n, mb, ma);
        else tfn<<<g, in.threads, in.smem, s>>>(km, kn, k, a, ka, kla, kb, klb, b, out, ldo, kslice, m * n, mb);
    } else {
        fn<<<g, in.threads, in.smem, s>>>(km, kn, k, a, ka, kla, kb, klb, b, out, ldo, kslice, m * n);
    }
    e = cudaGetLastError();
    if (e != cudaSuccess || splits == 1) return (int)e;
    return (int)reduce_splits(m, n, splits, W, alpha, beta, C, ldc, s);
}

int tf32_sgemm(int math, char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha, const float *A,
               int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc, int64_t kslice, float *W,
               void *stream)
{
    return tf32_sgemm_variant(0, math, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, kslice, W,
                              stream);
}

int tf32_describe(int math, char *buf, size_t len)
{
    if (math != MATH_3XTF32 && math != MATH_TF32) return snprintf(buf, len, "tf32: math %d is not the family's", math);
    const Variant &vt = pick(math, 0);
    const bool x3 = math == MATH_3XTF32;
    /* the family's tile; a pair whose instance has another names it (inst_name: ", 128x256 tile") */
    int k = snprintf(buf, len, "%s: wgmma m64n128k8 tf32, tile %dx%dx%d, 2 consumer warpgroups, sm_90a%s",
                     x3 ? "3xtf32" : "tf32", tf32::BM, tf32::BN, tf32::BK,
                     tf32_available() ? "" : " (not available on this device)");
    static const char *const pairs[4] = {"NN", "TN", "NT", "TT"};
    for (int p = 0; p < 4 && k >= 0 && (size_t)k < len; ++p) {
        const Inst &in = vt.in[p];
        cudaFuncAttributes a = {};
        const bool have = tf32_available() && cudaFuncGetAttributes(&a, in.code(false)) == cudaSuccess;
        char nm[192];
        inst_name(in, nm, sizeof nm);
        k += snprintf(buf + k, len - (size_t)k,
                      "; %s: %s, %d threads, %d stages, %d B shared, registers %d (consumers %d, producers %d after "
                      "setmaxnreg)",
                      pairs[p], nm, in.threads, in.stages, in.smem, have ? a.numRegs : 0, in.creg, in.preg);
    }
    return k;
}

} /* namespace tsg */
