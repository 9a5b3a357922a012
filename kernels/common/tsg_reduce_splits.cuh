/*
 * tsg_reduce_splits.cuh — split-K's second step, shared by every family that splits K (the FP32
 * families through tsg_kernel.cu, the tensor-core family through kernels/tf32/tsg_kernel_tf32.cu):
 * C = alpha * (W[0] + W[1] + ... + W[splits - 1]) + beta * C, the slices summed in that fixed order
 * (bit-identical results from run to run, whatever the grid).
 *
 * Layout: column-major. W[s] is the m x n partial product of slice s, leading dimension m, at
 * W + s*m*n (splits*m*n floats, read only); C is m x n with leading dimension ldc >= m (written;
 * read only when beta != 0). Included by one .cu per family: each gets its own copy of the kernel
 * for the architectures it is built for.
 */
#ifndef TSG_REDUCE_SPLITS_CUH
#define TSG_REDUCE_SPLITS_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace tsg {

static __global__ void reduce_splits_kernel(int64_t m, int64_t n, int64_t splits, const float *__restrict__ W,
                                            float alpha, float beta, float *__restrict__ C, int64_t ldc)
{
    const int64_t total = m * n;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total;
         i += (int64_t)gridDim.x * blockDim.x) {
        float acc = 0.0f;
        for (int64_t s = 0; s < splits; ++s) acc += W[s * total + i];
        float *p = C + (i / m) * ldc + (i % m);
        const float v = alpha * acc;
        *p = beta == 0.0f ? v : fmaf(beta, *p, v);
    }
}

/* Blocks of 256 threads for an elementwise pass over `count` elements (grid-stride beyond 65536). */
static inline unsigned elementwise_blocks(int64_t count)
{
    return (unsigned)((count + 255) / 256 < 65536 ? (count + 255) / 256 : 65536);
}

/* Enqueues the reduction above on `stream`; returns the launch's cudaError_t. */
static inline cudaError_t reduce_splits(int64_t m, int64_t n, int64_t splits, const float *W, float alpha,
                                        float beta, float *C, int64_t ldc, cudaStream_t stream)
{
    reduce_splits_kernel<<<elementwise_blocks(m * n), 256, 0, stream>>>(m, n, splits, W, alpha, beta, C, ldc);
    return cudaGetLastError();
}

} /* namespace tsg */

#endif /* TSG_REDUCE_SPLITS_CUH */
