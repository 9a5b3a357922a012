/*
 * tsg_tf32_ptx.cuh — the tensor-core family's instruction wrappers (kernels/tf32/, issue 36): the
 * TF32 conversion and 3xTF32 split, shared-memory loads and stores, the async-proxy fence, the
 * producers' named barrier and the consumers' named-barrier OR, wgmma's matrix descriptor, fence / commit / wait, and the wgmma
 * forms the kernel issues (m64n128k8 with both operands from shared memory or A from registers;
 * k8_steps, 3xTF32's k-tile). sm_90a only where a wrapper
 * says so. Sources: PTX ISA (CUDA 13.0) cvt .tf32 (9.7.9.21), fence.proxy (9.7.13.4.1),
 * wgmma (9.7.15.5: descriptors 9.7.15.5.1.2, register fragments 9.7.15.5.1).
 * Owns: these wrappers. Used by tsg_tf32_slices.cuh and tsg_kernel_tf32.cuh (the layouts they
 * assume are described there).
 */
#ifndef TSG_TF32_PTX_CUH
#define TSG_TF32_PTX_CUH

#include <stdint.h>

namespace tsg {
namespace tf32 {

/* cvt.rna.tf32.f32 itself: the reference test_tf32_kernel checks split and round1 against (the
 * kernels no longer call it) */
static __device__ __forceinline__ uint32_t to_tf32(float x)
{
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

/* x rounded to the nearest TF32 value, ties away from zero, for a finite x: cvt.rna.tf32.f32's
 * bits (the magnitude's 13 low bits rounded off; a carry into the exponent is the rounding up).
 * ptxas lowers cvt.rna.tf32.f32 on sm_90 to this add and mask plus a compare and a select that
 * pass a non-finite x through unchanged (four instructions: the SASS of tsg_kernel_tf32); here a
 * non-finite x gives a value of no meaning (a NaN can even wrap round to a finite one), which
 * split's flag catches. */
static __device__ __forceinline__ uint32_t tf32_rna_bits(float x)
{
    return (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
}

/* x split for 3xTF32 with the tile's non-finite flag: big = x rounded to nearest TF32, small =
 * x - big (exact in FP32) rounded to nearest TF32; nf becomes NaN (and stays so) when x or big is
 * not finite, and the tile is then recomputed in FP32, so big and small need no meaning there.
 * d = x - big is not finite exactly in those cases (x and big finite: |d| <= half a TF32 step of
 * x; x = +-Inf: Inf - Inf; x NaN: NaN whatever big is; a finite x that rounds to +-Inf: -+Inf),
 * so fma(d, 0, nf) flags the tiles that fma(big, 0, nf) on cvt.rna's big flagged, and for every
 * finite x and big the parts are cvt.rna's bits: six instructions instead of nine
 * (docs/NOTES.md "2026-12-06 tenth session"; test_tf32_kernel checks both claims over all 2^32
 * bit patterns against to_tf32). */
static __device__ __forceinline__ void split(float x, uint32_t &big, uint32_t &small, float &nf)
{
    big = tf32_rna_bits(x);
    const float d = x - __uint_as_float(big);
    nf = __fmaf_rn(d, 0.0f, nf);
    small = tf32_rna_bits(d);
}

/* 1xTF32's rounding of x (big alone) with split's flag */
static __device__ __forceinline__ void round1(float x, uint32_t &big, float &nf)
{
    big = tf32_rna_bits(x);
    nf = __fmaf_rn(x - __uint_as_float(big), 0.0f, nf);
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

static __device__ __forceinline__ float ld_shared(uint32_t addr)
{
    float v;
    asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
    return v;
}
static __device__ __forceinline__ float4 ld_shared_v4(uint32_t addr)
{
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr) : "memory");
    return v;
}

/* The tensor copy of one 2-D box (PTX ISA, data movement: cp.async.bulk.tensor): the box of the
 * tensor map at generic address tmap whose first element has coordinates (x0, x1) (x0 along the
 * contiguous dimension, in elements) into shared memory at dst, laid out and converted as the
 * map says (swizzle, element type; elements outside the tensor are zero), completing `bytes` of
 * the transaction count of mbarrier bar (complete_tx). dst: this CTA's shared memory (a
 * shared::cta address is a shared::cluster one for the CTA itself). sm_90. */
static __device__ __forceinline__ void tma_load_2d(uint32_t dst, const void *tmap, int32_t x0, int32_t x1,
                                                   uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(dst), "l"(tmap), "r"(x0), "r"(x1), "r"(bar)
                 : "memory");
}

/* brings the tensor map at generic address tmap into the cache its copies read it from (PTX ISA
 * prefetch.tensormap) */
static __device__ __forceinline__ void tma_prefetch(const void *tmap)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(tmap) : "memory");
}

/* a barrier of the NT producer threads alone (named barrier 2; the consumers never take part) */
template <int NT>
static __device__ __forceinline__ void producers_sync()
{
    asm volatile("bar.sync 2, %0;\n" ::"n"(NT) : "memory");
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

/* 3xTF32's k8 steps KK0 .. KK0 + NK - 1 of a k-tile with A from registers, into d (64 x 128): for
 * those steps small_A big_B, then big_A small_B, then big_A big_B, the first one starting d afresh
 * (scale_d 0). bb, bs: shared addresses of the B parts' tiles. NK = 4: the whole k-tile's twelve
 * steps (the default); NK = 2 or 1: a part of it promoted on its own (OPT_P16, OPT_P8) */
template <int KK0, int NK>
static __device__ __forceinline__ void k8_steps(float (&d)[64], const uint32_t (&ab)[4][4],
                                                const uint32_t (&as)[4][4], uint32_t bb, uint32_t bs)
{
#pragma unroll
    for (int kk = KK0; kk < KK0 + NK; ++kk) wgmma_rs(d, as[kk], desc(bb + 32 * kk), kk > KK0 ? 1u : 0u);
#pragma unroll
    for (int kk = KK0; kk < KK0 + NK; ++kk) wgmma_rs(d, ab[kk], desc(bs + 32 * kk), 1u);
#pragma unroll
    for (int kk = KK0; kk < KK0 + NK; ++kk) wgmma_rs(d, ab[kk], desc(bb + 32 * kk), 1u);
}
} /* namespace tf32 */
} /* namespace tsg */

#endif /* TSG_TF32_PTX_CUH */
