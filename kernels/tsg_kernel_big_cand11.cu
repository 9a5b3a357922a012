/*
 * tsg_kernel_big_cand11.cu — the instances of candidate Cand11 of the big family
 * (tsg_kernel_big.cuh), built only with -DTSGEMM_KERNEL_CANDIDATES=ON for a device run's A/B
 * against the adopted configurations (docs/NOTES.md). Nothing else lives here.
 */
#include "tsg_kernel_big.cuh"

namespace tsg {

KernelFn pick_cand11(bool ta, bool tb, bool va, bool vb) { return big::pick_big<Cand11>(ta, tb, va, vb); }
big::TailFn pick_tail_cand11(bool ta, bool tb, bool va, bool vb) { return big::pick_tail<Cand11>(ta, tb, va, vb); }

} /* namespace tsg */
