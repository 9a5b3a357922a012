/*
 * gpu_check.h — the GPU tests' checks of CUDA runtime and cuBLAS calls (C and CUDA C++): CK(call)
 * and CB(call) print file, line, the call and the error, and exit 1 (a test's own failure, never
 * a skip). Include after cuda_runtime.h / cublas_v2.h.
 */
#ifndef TSG_GPU_CHECK_H
#define TSG_GPU_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CK(call)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)
#define CB(call)                                                                                 \
    do {                                                                                         \
        cublasStatus_t s_ = (call);                                                              \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "%s:%d %s: cublas status %d\n", __FILE__, __LINE__, #call, (int)s_);  \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#endif
