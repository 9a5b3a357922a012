/*
 * tsg_mbarrier.cuh — the warp-specialized kernels' (ws/, tf32/) hand-over primitives: shared-memory
 * mbarriers (sm_90; with the transaction count a tensor copy completes, mbar_expect_tx) and the
 * register reallocation between warpgroups, setmaxnreg (sm_90a). Sources: the PTX ISA's
 * mbarrier (expect_tx), cp.async.mbarrier.arrive and setmaxnreg sections.
 */
#ifndef TSG_MBARRIER_CUH
#define TSG_MBARRIER_CUH

#include <stdint.h>

namespace tsg {

static __device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#else
    (void)bar, (void)count;
    __trap();
#endif
}

/* makes the initialisations visible to the other threads' barrier operations (with the
 * __syncthreads that follows it) */
static __device__ __forceinline__ void mbar_init_fence()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/* one arrival (release at CTA scope: this thread's earlier shared-memory reads are ordered
 * before it) */
static __device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.release.cta.shared::cta.b64 st, [%0];\n}\n" ::"r"(bar)
                 : "memory");
#else
    (void)bar;
    __trap();
#endif
}

/* an arrival triggered once all of this thread's earlier cp.async copies have landed; .noinc:
 * it counts against the barrier's initial count (one per producer thread) */
static __device__ __forceinline__ void mbar_arrive_cp_async(uint32_t bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
#else
    (void)bar;
    __trap();
#endif
}

/* raises the transaction count the current phase of `bar` waits for by `bytes`, without an
 * arrival (PTX ISA mbarrier.expect_tx): the phase completes once its arrivals are all in and
 * the asynchronous copies that signal it (complete_tx) have delivered those bytes. Issued by a
 * thread that has not yet arrived on the phase, so the phase cannot complete before it. */
static __device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
#else
    (void)bar, (void)bytes;
    __trap();
#endif
}

/* Waits until the phase of parity `parity` has completed (acquire at CTA scope). asm volatile
 * with a memory clobber: no shared-memory access after it is hoisted above it. */
static __device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n.reg .pred p;\nTSG_WAIT_%=:\n"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%0], %1;\n"
                 "@!p bra TSG_WAIT_%=;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
#else
    (void)bar, (void)parity;
    __trap();
#endif
}

/* mbar_wait with a suspend-time hint: each try_wait may keep the thread suspended up to NS
 * nanoseconds, until the phase completes, instead of the implementation's own limit (PTX ISA
 * mbarrier.test_wait / try_wait, suspendTimeHint; CUTLASS's ClusterBarrier::wait passes 10 ms),
 * so a waiting warp goes round its retry loop, and takes issue slots from the warps beside it,
 * less often. The same acquire as mbar_wait. */
template <uint32_t NS>
static __device__ __forceinline__ void mbar_wait_hint(uint32_t bar, uint32_t parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n.reg .pred p;\nTSG_WAITH_%=:\n"
                 "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%0], %1, %2;\n"
                 "@!p bra TSG_WAITH_%=;\n}\n" ::"r"(bar),
                 "r"(parity), "r"(NS)
                 : "memory");
#else
    (void)bar, (void)parity;
    __trap();
#endif
}

/* this warpgroup's registers per thread from here on (sm_90a; elsewhere the kernel is not built) */
template <int R>
static __device__ __forceinline__ void regs_inc()
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
#endif
}
template <int R>
static __device__ __forceinline__ void regs_dec()
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
#endif
}


/* kernels/tf32/ calls these as ws::mbar_* and ws::regs_*: the same functions under that name. */
namespace ws {
using tsg::mbar_arrive;
using tsg::mbar_expect_tx;
using tsg::mbar_init;
using tsg::mbar_init_fence;
using tsg::mbar_wait;
using tsg::mbar_wait_hint;
using tsg::regs_dec;
using tsg::regs_inc;
} /* namespace ws */

} /* namespace tsg */

#endif /* TSG_MBARRIER_CUH */
