/*
 * bench_math.c — tsgemm-bench --math LIST: per shape, cuBLAS FP32 first (the ratios' base), then
 * tsgemm with each math of the list through tsgemm_set_math, then cuBLAS FAST_TF32. Kernel only,
 * on device data, as the kernel columns; errors against the double reference of the same inputs.
 * tsgemm's math is restored afterwards. See bench.h bench_math_table.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "tsgemm.h"

/* One row of the math table: the kernel column's median time and its error. */
static void math_row(const char *label, const char *column, bench_data *d, const bench_ref *ref,
                     const bench_opts *o, int impl, double *fp32_err)
{
    double *ms = malloc(sizeof(double) * (size_t)o->kernel_reps);
    char why[256] = "";
    if (!ms) return;
    bench_data_prepare_c(d);
    if (bench_cuda_kernel(impl, d, o->kernel_warmup, o->kernel_reps, ms, why, sizeof why) != 0) {
        printf("| %s | %s | %s | | | |\n", label, column, why);
        free(ms);
        return;
    }
    double med, mn, mx;
    bench_stats(ms, o->kernel_reps, &med, &mn, &mx);
    const double err = bench_frob_double(ref, d, d->C);
    if (fp32_err && *fp32_err < 0) *fp32_err = err;
    char ratio[32] = "";
    if (fp32_err && *fp32_err > 0) snprintf(ratio, sizeof ratio, "%.3f", err / *fp32_err);
    printf("| %s | %s | %.3f | %.1f | %.3e | %s |\n", label, column, med,
           bench_flops(&d->s) / (med * 1e-3) * 1e-12, err, ratio);
    free(ms);
}

void bench_math_table(const bench_opts *o, const bench_cuda_info *cuda, int tsgemm_gpu_ok,
                      const char *tsgemm_gpu_why, const bench_shape *shapes, int nshapes)
{
    static const char *const names[3] = {"fp32", "3xtf32", "tf32"};
    printf("\nMath (kernel only, device data; error ||C - C64||_F / ||C64||_F, ratio to cuBLAS FP32's)\n\n");
    printf("| shape | column | median ms | TFLOP/s | error | / cuBLAS FP32 |\n|---|---|---|---|---|---|\n");
    const int old = tsgemm_get_math();
    for (int i = 0; i < nshapes; ++i) {
        char label[96], why[256] = "";
        bench_shape_label(&shapes[i], label, sizeof label);
        bench_data d;
        bench_ref ref;
        if (o->no_gpu || !cuda->device_ok) {
            printf("| %s | all | %s | | | |\n", label, o->no_gpu ? "n/a: --no-gpu" : cuda->why);
            continue;
        }
        if (bench_data_make(&d, &shapes[i], o->alpha, o->beta, o->seed, i) != 0) {
            printf("| %s | all | out of host memory | | | |\n", label);
            continue;
        }
        if (bench_ref_init(&ref, &d, bench_tolerance(shapes[i].k, o->tol)) != 0) {
            printf("| %s | all | out of host memory for the reference | | | |\n", label);
            bench_data_free(&d);
            continue;
        }
        if (bench_cuda_shape_begin(&d, why, sizeof why) != 0) {
            printf("| %s | all | %s | | | |\n", label, why);
        } else {
            double fp32_err = -1;
            if (cuda->cublas_why[0]) printf("| %s | cuBLAS FP32 | %s | | | |\n", label, cuda->cublas_why);
            else math_row(label, "cuBLAS FP32", &d, &ref, o, BI_CUBLAS_KERNEL, &fp32_err);
            for (int m = 0; m < 3; ++m) {
                if (!(o->math_mask & (1u << m))) continue;
                char col[48];
                snprintf(col, sizeof col, "tsgemm %s", names[m]);
                if (!tsgemm_gpu_ok) printf("| %s | %s | %s | | | |\n", label, col, tsgemm_gpu_why);
                else if (tsgemm_set_math(m) < 0) printf("| %s | %s | failed: tsgemm_set_math | | | |\n", label, col);
                else math_row(label, col, &d, &ref, o, BI_TSGEMM_KERNEL, &fp32_err);
            }
            if (!cuda->cublas_why[0]) {
                if (bench_cuda_set_fast_tf32(1, why, sizeof why) != 0)
                    printf("| %s | cuBLAS FAST_TF32 | %s | | | |\n", label, why);
                else math_row(label, "cuBLAS FAST_TF32", &d, &ref, o, BI_CUBLAS_KERNEL, &fp32_err);
                bench_cuda_set_fast_tf32(0, why, sizeof why);
            }
            bench_cuda_shape_end();
        }
        bench_ref_free(&ref);
        bench_data_free(&d);
    }
    tsgemm_set_math(old);
}
