/*
 * tsg_kernel_big_cfg9.cu — the instances of configuration Cfg9 of the big family
 * (tsg_kernel_big.cuh): the transpose pairs times the alignments that matter (9 kernels).
 * One file per configuration so the build compiles them in parallel. Nothing else lives here.
 */
#include "tsg_kernel_big.cuh"

namespace tsg {

KernelFn pick_cfg9(bool ta, bool tb, bool va, bool vb) { return big::pick_big<Cfg9>(ta, tb, va, vb); }
big::TailFn pick_tail_cfg9(bool ta, bool tb, bool va, bool vb) { return big::pick_tail<Cfg9>(ta, tb, va, vb); }

} /* namespace tsg */
