/*
 * dma_probe.c — what the copy engines and page registration cost on this machine, for the
 * pipeline's small-call figures (issue 9: 1024^3 <= 0.5 ms, 2048^3 <= 1.6 ms end to end). A
 * tuning probe (scripts/device-run.sh dma), not a test: it asserts nothing and prints one line
 * per measurement.
 *
 *   dma_probe [REPS]       REPS timed repeats per line (default 20), medians printed
 *
 * Lines: H2D and D2H from pinned memory (cudaHostAlloc) at 256 KiB .. 64 MiB, back to back on
 * one stream (GB/s from events around REPS copies) and alone (one copy, host clock around the
 * copy and its synchronisation: the latency a pipeline unit pays); cudaHostRegister and
 * cudaHostUnregister of malloc'd, touched memory at 1 .. 64 MiB (ms each: the cost of DMA
 * straight from user pages instead of gathering them), then H2D from the registered pages.
 * Exits 77 without a usable GPU.
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tsg_testutil.h"

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                                        \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 20, count = 0;
    if (reps < 3 || reps > 1000) reps = 20;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIP: no usable GPU\n");
        return 77;
    }
    const size_t maxb = (size_t)64 << 20;
    void *pin, *dev;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    CK(cudaHostAlloc(&pin, maxb, cudaHostAllocDefault));
    CK(cudaMalloc(&dev, maxb));
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    memset(pin, 1, maxb);
    double *t = malloc(sizeof(double) * (size_t)reps);
    const size_t sizes[] = {(size_t)256 << 10, (size_t)1 << 20, (size_t)4 << 20, (size_t)16 << 20, maxb};
    for (int dir = 0; dir < 2; ++dir)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
            const size_t b = sizes[i];
            const enum cudaMemcpyKind kind = dir ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice;
            void *dst = dir ? pin : dev, *src = dir ? dev : pin;
            CK(cudaMemcpyAsync(dst, src, b, kind, s)); /* warm-up */
            CK(cudaStreamSynchronize(s));
            CK(cudaEventRecord(e0, s));
            for (int r = 0; r < reps; ++r) CK(cudaMemcpyAsync(dst, src, b, kind, s));
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms = 0;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            for (int r = 0; r < reps; ++r) {
                const double h0 = tt_now_s();
                CK(cudaMemcpyAsync(dst, src, b, kind, s));
                CK(cudaStreamSynchronize(s));
                t[r] = tt_now_s() - h0;
            }
            printf("%s pinned %6.2f MiB: back to back %5.1f GB/s; alone %7.1f us (%5.1f GB/s)\n",
                   dir ? "D2H" : "H2D", (double)b / (1 << 20), (double)b * reps / (ms * 1e-3) / 1e9,
                   tt_median(t, reps) * 1e6, (double)b / tt_median(t, reps) / 1e9);
        }
    const size_t rsizes[] = {(size_t)1 << 20, (size_t)4 << 20, (size_t)16 << 20, maxb};
    for (size_t i = 0; i < sizeof rsizes / sizeof rsizes[0]; ++i) {
        const size_t b = rsizes[i];
        double *tu = malloc(sizeof(double) * (size_t)reps), *tc = malloc(sizeof(double) * (size_t)reps);
        for (int r = 0; r < reps; ++r) {
            char *m = malloc(b + 4096); /* a new allocation each time, as a caller's buffers */
            if (!m || !tu || !tc) return 1;
            memset(m, 2, b + 4096);
            char *p = m + 64; /* not page-aligned, as malloc gives */
            double h0 = tt_now_s();
            CK(cudaHostRegister(p, b, cudaHostRegisterDefault));
            t[r] = tt_now_s() - h0;
            h0 = tt_now_s();
            CK(cudaMemcpyAsync(dev, p, b, cudaMemcpyHostToDevice, s));
            CK(cudaStreamSynchronize(s));
            tc[r] = tt_now_s() - h0;
            h0 = tt_now_s();
            CK(cudaHostUnregister(p));
            tu[r] = tt_now_s() - h0;
            free(m);
        }
        printf("register %6.2f MiB: cudaHostRegister %8.1f us, H2D from it %7.1f us (%5.1f GB/s), "
               "cudaHostUnregister %7.1f us\n",
               (double)b / (1 << 20), tt_median(t, reps) * 1e6, tt_median(tc, reps) * 1e6,
               (double)b / tt_median(tc, reps) / 1e9, tt_median(tu, reps) * 1e6);
        free(tu);
        free(tc);
    }
    free(t);
    return 0;
}
