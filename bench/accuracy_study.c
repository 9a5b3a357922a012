/*
 * accuracy_study.c — the accuracy study of issue 36 (docs/ACCURACY.md): ||C - C64||_F / ||C64||_F
 * against K for three input classes, tsgemm in each math (fp32, 3xtf32, tf32) beside cuBLAS FP32
 * and cuBLAS's TF32 (CUBLAS_COMPUTE_32F_FAST_TF32, the tf32 mode's anchor).
 *
 *   tsgemm-accuracy [--n N] [--k "256 1024 ..."]      CSV on stdout: class,k,column,error,ratio
 *
 * C = A * B, NN, column-major, m = n = N (default 512), k over the list (default 256 1024 4096
 * 16384 65536); alpha 1, beta 0. A and B are drawn per (class, k) from a fixed seed:
 *   uniform  uniform in [-1, 1)
 *   samesign uniform in [0, 1)
 *   wide     random sign, magnitude (1 + u) 2^e, u uniform in [0, 1), e uniform over the integers
 *            -20 .. 20 (values spanning 2^-20 .. 2^21)
 * The reference C64 is cuBLAS DGEMM on the same inputs converted to double (exact products, FP64
 * sums). tsgemm runs through its public device-pointer entry (tsgemm_sgemm_device) after
 * tsgemm_set_math, so each column is the path a CUDA caller gets; cuBLAS FP32 is cublasSgemm with
 * CUBLAS_DEFAULT_MATH (no TF32), cuBLAS TF32 is cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (column
 * cublas-fasttf32). ratio = error / cuBLAS FP32's error on the same inputs.
 * Exit 0 when every column ran, 1 on a CUDA / cuBLAS / tsgemm failure, 77 without a GPU.
 * Not a test: it asserts nothing about the figures (test_tf32_kernel does, on its own grid).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy_inputs.h" /* the classes' draws and the error, shared with test_tf32_kernel --accuracy */
#include "gpu_check.h"      /* CK, CB: the GPU tests' checks of CUDA and cuBLAS calls */
#include "tsgemm.h"

static uint64_t g_state = ACC_SEED;

int main(int argc, char **argv)
{
    int n = 512;
    char klist[256] = "256 1024 4096 16384 65536";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc) n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--k") && i + 1 < argc) snprintf(klist, sizeof klist, "%s", argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--n N] [--k \"K1 K2 ...\"]\n", argv[0]);
            return 2;
        }
    }
    if (n < 1 || n > 8192) {
        fprintf(stderr, "--n: 1 .. 8192\n");
        return 2;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("no GPU: skipped\n");
        return 77;
    }
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    static const char *const cls_name[3] = {"uniform", "samesign", "wide"};
    static const struct {
        const char *name;
        int math;
    } cols[3] = {{"tsgemm-fp32", TSGEMM_MATH_FP32}, {"tsgemm-3xtf32", TSGEMM_MATH_3XTF32}, {"tsgemm-tf32", TSGEMM_MATH_TF32}};
    char info[512];
    tsgemm_kernel_info(info, sizeof info);
    printf("# n = %d, NN, alpha 1, beta 0; reference cuBLAS DGEMM; %s\n", n, info);
    printf("class,k,column,error,ratio\n");
    const char *p = klist;
    char *end;
    for (long k = strtol(p, &end, 10); end != p; p = end, k = strtol(p, &end, 10)) {
        if (k < 1 || k > (1L << 20)) {
            fprintf(stderr, "k %ld: 1 .. 2^20\n", k);
            return 2;
        }
        const size_t na = (size_t)n * k, nc = (size_t)n * n;
        float *ha = malloc(na * 4), *hb = malloc(na * 4), *hc = malloc(nc * 4);
        double *hr = malloc(nc * 8), *hd = malloc(na * 8);
        float *da, *db, *dc;
        double *dda, *ddb, *ddc;
        if (!ha || !hb || !hc || !hr || !hd) {
            fprintf(stderr, "out of host memory\n");
            return 1;
        }
        CK(cudaMalloc((void **)&da, na * 4));
        CK(cudaMalloc((void **)&db, na * 4));
        CK(cudaMalloc((void **)&dc, nc * 4));
        CK(cudaMalloc((void **)&dda, na * 8));
        CK(cudaMalloc((void **)&ddb, na * 8));
        CK(cudaMalloc((void **)&ddc, nc * 8));
        for (int cls = 0; cls < 3; ++cls) {
            for (size_t i = 0; i < na; ++i) ha[i] = acc_draw(&g_state, cls);
            for (size_t i = 0; i < na; ++i) hb[i] = acc_draw(&g_state, cls);
            CK(cudaMemcpy(da, ha, na * 4, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(db, hb, na * 4, cudaMemcpyHostToDevice));
            for (size_t i = 0; i < na; ++i) hd[i] = ha[i];
            CK(cudaMemcpy(dda, hd, na * 8, cudaMemcpyHostToDevice));
            for (size_t i = 0; i < na; ++i) hd[i] = hb[i];
            CK(cudaMemcpy(ddb, hd, na * 8, cudaMemcpyHostToDevice));
            const double one = 1, zero = 0;
            CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, (int)k, &one, dda, n, ddb, (int)k, &zero, ddc, n));
            CK(cudaMemcpy(hr, ddc, nc * 8, cudaMemcpyDeviceToHost));
            const float onef = 1, zerof = 0;
            CK(cudaMemset(dc, 0xff, nc * 4));
            CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, (int)k, &onef, da, n, db, (int)k, &zerof, dc, n));
            CK(cudaMemcpy(hc, dc, nc * 4, cudaMemcpyDeviceToHost));
            const double ecub = acc_frob_rel(hc, hr, nc);
            printf("%s,%ld,cublas-fp32,%.4e,1.000\n", cls_name[cls], k, ecub);
            CK(cudaMemset(dc, 0xff, nc * 4));
            CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, (int)k, &onef, da, CUDA_R_32F, n, db, CUDA_R_32F,
                            (int)k, &zerof, dc, CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
            CK(cudaMemcpy(hc, dc, nc * 4, cudaMemcpyDeviceToHost));
            const double efast = acc_frob_rel(hc, hr, nc);
            printf("%s,%ld,cublas-fasttf32,%.4e,%.3f\n", cls_name[cls], k, efast, efast / ecub);
            for (int c = 0; c < 3; ++c) {
                tsgemm_set_math(cols[c].math);
                CK(cudaMemset(dc, 0xff, nc * 4));
                if (tsgemm_sgemm_device('N', 'N', n, n, k, 1.0f, da, n, db, k, 0.0f, dc, n, NULL) != 0) {
                    fprintf(stderr, "tsgemm_sgemm_device failed (%s, k %ld)\n", cols[c].name, k);
                    return 1;
                }
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(hc, dc, nc * 4, cudaMemcpyDeviceToHost));
                const double e = acc_frob_rel(hc, hr, nc);
                printf("%s,%ld,%s,%.4e,%.3f\n", cls_name[cls], k, cols[c].name, e, e / ecub);
            }
            fflush(stdout);
        }
        tsgemm_set_math(TSGEMM_MATH_FP32);
        cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dda), cudaFree(ddb), cudaFree(ddc);
        free(ha), free(hb), free(hc), free(hr), free(hd);
    }
    tsgemm_release();
    cublasDestroy(h);
    return 0;
}
