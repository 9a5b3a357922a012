/*
 * tsg_kernel_big_cfg7.cu — the instances of configuration Cfg7 of the big family
 * (tsg_kernel_big.cuh): the transpose pairs times the alignments that matter (9 kernels).
 * One file per configuration so the build compiles them in parallel. Nothing else lives here.
 */
#include "tsg_kernel_big.cuh"

namespace tsg {

big::BigFn pick_cfg7(bool ta, bool tb, bool va, bool vb) { return big::pick_big<Cfg7>(ta, tb, va, vb); }

} /* namespace tsg */
