/*
 * tsg_kernel_big_256x64.cu — the instances of configuration 8, Big256x64, of the big family
 * (tsg_kernel_big.cuh): the transpose pairs times the alignments that matter (9 kernels), with and
 * without the stream-K tail. One file per configuration so the build compiles them in parallel.
 * Nothing else lives here.
 */
#include "tsg_kernel_big.cuh"

namespace tsg {

KernelFn pick_big_256x64(bool ta, bool tb, bool va, bool vb) { return big::pick_big<Big256x64>(ta, tb, va, vb); }
big::TailFn pick_tail_big_256x64(bool ta, bool tb, bool va, bool vb) { return big::pick_tail<Big256x64>(ta, tb, va, vb); }

} /* namespace tsg */
