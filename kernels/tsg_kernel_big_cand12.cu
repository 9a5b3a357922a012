/*
 * tsg_kernel_big_cand12.cu — the instances of candidate Cand12 of the big family
 * (tsg_kernel_big.cuh), built only with -DTSGEMM_KERNEL_CANDIDATES=ON for a device run's A/B
 * against the adopted configurations (docs/NOTES.md). Nothing else lives here.
 */
#include "tsg_kernel_big.cuh"

namespace tsg {

KernelFn pick_cand12(bool ta, bool tb, bool va, bool vb) { return big::pick_big<Cand12>(ta, tb, va, vb); }
big::TailFn pick_tail_cand12(bool ta, bool tb, bool va, bool vb) { return big::pick_tail<Cand12>(ta, tb, va, vb); }

} /* namespace tsg */
