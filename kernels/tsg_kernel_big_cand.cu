/*
 * tsg_kernel_big_cand.cu — candidate configurations of the big family (tsg_kernel_big.cuh), built
 * only with -DTSGEMM_KERNEL_CANDIDATES=ON: a device run times them against the adopted ones in
 * one process (test_gpu_kernel --bench-big) before one is adopted or dropped (docs/NOTES.md).
 */
#include "tsg_kernel_big.cuh"

namespace tsg {

KernelFn pick_cand_q7(bool ta, bool tb, bool va, bool vb) { return big::pick_big<CandQ7>(ta, tb, va, vb); }
KernelFn pick_cand_q7_nn_swapped(bool vb, bool va) { return big::pick_big_nn_swapped<CandQ7>(vb, va); }

} /* namespace tsg */
