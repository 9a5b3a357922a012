/*
 * tf32_figures.cu — test_tf32_kernel's modes that report figures (tests/gpu/test_tf32_kernel.cu
 * has the checks and the command line): the timing table against cuBLAS FP32 and FAST_TF32
 * (--bench, and after the gpu tier's checks), the sustained runs beside nvidia-smi (--sustain), the
 * accuracy study's error table for 3xTF32's variants (--accuracy) and the TF32 conversion of raw
 * operands (--rounding). They assert what makes a figure meaningful (cuBLAS ran, a variant
 * launched, the conversions of known inputs), never a speed.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <functional>
#include <random>
#include <vector>

#include "tsg_kernel_tf32.h"
#include "tf32_test.h"
#include "accuracy_inputs.h" /* --accuracy: the accuracy study's inputs and error */
#include "tsg_tf32_round.h"  /* --rounding: the three conversions to TF32 */

using namespace tsg;

/* ---- timing ---- */
struct Timer {
    cudaEvent_t e0, e1;
    Timer()
    {
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
    }
    /* ms of the GPU work f() enqueues, between two events around it */
    template <class F>
    float ms(F f)
    {
        CK(cudaEventRecord(e0));
        f();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        return t;
    }
};

/* The medians of several columns (launch functions) timed in interleaved rounds: each round
 * visits every column once, in an order of its own (a shuffle with the round's fixed seed), each
 * visit one untimed launch and then `per` timed ones; a column's figure is the median of its
 * rounds x per times. Back to back, a column's time depends on what ran before it (the clocks
 * under the previous column's power: two identical columns read up to 15% apart in H100 run 67);
 * a new order per round gives each column other predecessors (a rotation would keep them). */
static std::vector<double> interleaved_ms(const std::vector<std::function<void()>> &cols, int rounds = 5, int per = 2)
{
    static Timer tm;
    const size_t nc = cols.size();
    std::vector<std::vector<float>> ts(nc);
    std::vector<size_t> order(nc);
    for (int r = 0; r < rounds; ++r) {
        for (size_t j = 0; j < nc; ++j) order[j] = j;
        std::mt19937 rng(1000u + (unsigned)r);
        std::shuffle(order.begin(), order.end(), rng);
        for (size_t c : order) {
            cols[c](); /* warm-up after the previous column */
            for (int q = 0; q < per; ++q) ts[c].push_back(tm.ms(cols[c]));
        }
    }
    CK(cudaGetLastError());
    std::vector<double> med(nc);
    for (size_t c = 0; c < nc; ++c) {
        std::sort(ts[c].begin(), ts[c].end());
        const size_t h = ts[c].size() / 2;
        med[c] = ts[c].size() % 2 ? ts[c][h] : 0.5 * (ts[c][h - 1] + ts[c][h]);
    }
    return med;
}

__global__ void fill_kernel(float *x, int64_t count, uint32_t seed)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
        x[i] = (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
}

/* The timing operands: A, B, C of 16384^2 floats on the device, filled from seeds 1, 2, 3. */
static void timing_operands(float **A, float **B, float **C)
{
    const int64_t nmax = 16384;
    CK(cudaMalloc(A, nmax * nmax * 4));
    CK(cudaMalloc(B, nmax * nmax * 4));
    CK(cudaMalloc(C, nmax * nmax * 4));
    fill_kernel<<<1024, 256>>>(*A, nmax * nmax, 1);
    fill_kernel<<<1024, 256>>>(*B, nmax * nmax, 2);
    fill_kernel<<<1024, 256>>>(*C, nmax * nmax, 3);
    CK(cudaDeviceSynchronize());
}

/* cuBLAS's C = op(A) op(B), column-major, alpha 1, beta 0: FP32 (cublasSgemm, no TF32) or, with
 * fast, cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (the tf32 mode's anchor). Not checked:
 * timing only (a failed launch shows in the next CK). */
static void cublas_call(bool fast, char ta, char tb, int m, int n, int k, const float *A, int lda, const float *B,
                        int ldb, float *C, int ldc)
{
    const float one = 1.0f, zero = 0.0f;
    const cublasOperation_t oa = ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T, ob = tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
    if (!fast) {
        CB(cublasSetMathMode(g_cublas, CUBLAS_DEFAULT_MATH));
        cublasSgemm(g_cublas, oa, ob, m, n, k, &one, A, lda, B, ldb, &zero, C, ldc);
    } else {
        cublasGemmEx(g_cublas, oa, ob, m, n, k, &one, A, CUDA_R_32F, lda, B, CUDA_R_32F, ldb, &zero, C, CUDA_R_32F,
                     ldc, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    }
}

void bench()
{
    float *dA, *dB, *dC;
    timing_operands(&dA, &dB, &dC);
    struct S {
        int64_t n;
        char ta, tb;
    } shapes[] = {{2048, 'N', 'N'}, {4096, 'N', 'N'}, {4096, 'N', 'T'}, {4096, 'T', 'N'}, {4096, 'T', 'T'},
                  {8192, 'N', 'N'}, {8192, 'N', 'T'}, {8192, 'T', 'N'}, {8192, 'T', 'T'}, {16384, 'N', 'N'}};
    char d3[2048], d1[2048];
    tf32_describe(MATH_3XTF32, d3, sizeof d3);
    tf32_describe(MATH_TF32, d1, sizeof d1);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("\ntf32 benchmark on %s (%d SMs), device data, median of 10 in 5 shuffled rounds (cudaEvents), TFLOP/s\n  %s\n  %s\n",
           prop.name, prop.multiProcessorCount, d3, d1);
    const int nv = tf32_variants();
    for (int v = 0; v < nv; ++v) {
        char vn[1024], vn1[1024]; /* four pairs' instance names when they differ */
        tf32_variant_name(MATH_3XTF32, v, vn, sizeof vn);
        tf32_variant_name(MATH_TF32, v, vn1, sizeof vn1);
        if (!strcmp(vn, vn1)) printf("  v%d: %s%s\n", v, vn, v == 0 ? " (the default)" : "");
        else printf("  v%d: 3x: %s%s\n      1x: %s\n", v, vn, v == 0 ? " (the default)" : "", vn1);
    }
    printf("%-13s %8s %8s ", "shape", "cublas32", "fasttf32");
    for (int mi = 0; mi < 2; ++mi)
        for (int v = 0; v < nv; ++v)
            if (wanted(v)) printf(" %3s v%d", mi ? "1x" : "3x", v);
    printf("  %7s %7s\n", "3x/fp32", "1x/fast");
    for (auto &s : shapes) {
        const int n = (int)s.n;
        const double flop = 2.0 * n * (double)n * n;
        auto rate = [&](double ms) { return flop / (ms * 1e-3) / 1e12; };
        /* columns: cuBLAS FP32, FAST_TF32, then each wanted variant of each math (3x, 1x) */
        std::vector<std::function<void()>> cols;
        cols.push_back([&] { cublas_call(false, s.ta, s.tb, n, n, n, dA, n, dB, n, dC, n); });
        cols.push_back([&] { cublas_call(true, s.ta, s.tb, n, n, n, dA, n, dB, n, dC, n); });
        std::vector<int> col_of[2]; /* column of (math, variant), -1: not timed */
        for (int mi = 0; mi < 2; ++mi)
            for (int v = 0; v < nv; ++v) {
                const int math = mi ? MATH_TF32 : MATH_3XTF32;
                if (!wanted(v) || tf32_sgemm_variant(v, math, s.ta, s.tb, 64, 64, 64, 1.0f, dA, 64, dB, 64, 0.0f, dC,
                                                     64, 64, nullptr, 0) != 0) {
                    col_of[mi].push_back(-1); /* not wanted, or refused (its registers do not fit: the check part failed it) */
                    continue;
                }
                col_of[mi].push_back((int)cols.size());
                cols.push_back([=, &s] {
                    tf32_sgemm_variant(v, math, s.ta, s.tb, n, n, n, 1.0f, dA, n, dB, n, 0.0f, dC, n, n, nullptr, 0);
                });
            }
        const std::vector<double> med = interleaved_ms(cols);
        const double t32 = med[0], tfast = med[1];
        std::vector<double> t[2];
        for (int mi = 0; mi < 2; ++mi)
            for (int v = 0; v < nv; ++v) t[mi].push_back(col_of[mi][v] < 0 ? NAN : med[col_of[mi][v]]);
        char name[32];
        snprintf(name, sizeof name, "%d^3 %c%c", n, s.ta, s.tb);
        printf("%-13s %8.1f %8.1f ", name, rate(t32), rate(tfast));
        for (int mi = 0; mi < 2; ++mi)
            for (int v = 0; v < nv; ++v)
                if (wanted(v)) printf(" %6.1f", rate(t[mi][v]));
        printf("  %7.3f %7.3f\n", t32 / t[0][0], tfast / t[1][0]);
        fflush(stdout);
    }
    printf("(TFLOP/s counted as 2 n^3 per product; ratios are time ratios of the defaults (v0), > 1: tsgemm faster)\n");

    /* split-K: grids that fill at most half the GPU, with a long K (tf32_call_kslice's shapes and
     * slices, each math's: the tiles its default runs), NN */
    const int64_t sk[][3] = {{512, 512, 4096}, {512, 512, 65536}, {1024, 1024, 16384}, {2048, 256, 65536}};
    printf("\nsplit-K (tf32_call_kslice), NN, device data, median of 10 in 5 shuffled rounds, TFLOP/s\n%-19s %8s %8s %8s %8s %8s %8s %6s  %7s %7s\n",
           "m x n x k", "cublas32", "fasttf32", "3x", "3x-split", "1x", "1x-split", "slices", "3xs/fp32", "1xs/fast"); /* slices: 3x/1x */
    for (auto &x : sk) {
        const int m = (int)x[0], n = (int)x[1], k = (int)x[2];
        auto rate = [&](double ms) { return 2.0 * m * (double)n * k / (ms * 1e-3) / 1e12; };
        int64_t ks[2], slices[2]; /* per math: 3xTF32, 1xTF32 */
        for (int mi = 0; mi < 2; ++mi) {
            ks[mi] = tf32_call_kslice(mi ? MATH_TF32 : MATH_3XTF32, 'N', 'N', m, n, k, g_sms, INT64_MAX);
            slices[mi] = (k + ks[mi] - 1) / ks[mi];
        }
        float *dW;
        CK(cudaMalloc(&dW, std::max(slices[0], slices[1]) * m * n * 4));
        std::vector<std::function<void()>> cols;
        cols.push_back([&] { cublas_call(false, 'N', 'N', m, n, k, dA, m, dB, k, dC, m); });
        cols.push_back([&] { cublas_call(true, 'N', 'N', m, n, k, dA, m, dB, k, dC, m); });
        for (int mi = 0; mi < 2; ++mi)
            for (int sp = 0; sp < 2; ++sp)
                cols.push_back([=] {
                    tf32_sgemm_variant(0, mi ? MATH_TF32 : MATH_3XTF32, 'N', 'N', m, n, k, 1.0f, dA, m, dB, k, 0.0f,
                                       dC, m, sp ? ks[mi] : k, dW, 0);
                });
        const std::vector<double> med = interleaved_ms(cols);
        const double t32 = med[0], tfast = med[1];
        double t[2][2];
        for (int mi = 0; mi < 2; ++mi)
            for (int sp = 0; sp < 2; ++sp) t[mi][sp] = med[2 + 2 * mi + sp];
        cudaFree(dW);
        char name[40];
        snprintf(name, sizeof name, "%dx%dx%d", m, n, k);
        char sl[24];
        snprintf(sl, sizeof sl, "%lld/%lld", (long long)slices[0], (long long)slices[1]);
        printf("%-19s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %6s  %7.3f %7.3f\n", name, rate(t32), rate(tfast),
               rate(t[0][0]), rate(t[0][1]), rate(t[1][0]), rate(t[1][1]), sl, t32 / t[0][1], tfast / t[1][1]);
    }
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
}

/* --sustain S: each of cuBLAS FP32, cuBLAS FAST_TF32, 3xTF32 and 1xTF32 (the defaults, then the
 * variants of --variants) at 4096^3, 8192^3 and 16384^3 NN, launched back to back for S seconds
 * (a phase), one line per phase: its
 * wall-clock bounds (CLOCK_REALTIME, s; to place nvidia-smi's samples of clock and power in it,
 * docs/NOTES.md "2026-12-07 fourteenth session"), launches, the median TFLOP/s of the launches
 * in its last half and of its first five. Timing only; the launches are timed by cudaEvents. */
static double wall_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void sustain(double seconds)
{
    float *dA, *dB, *dC;
    timing_operands(&dA, &dB, &dC);
    static Timer tm;
    printf("\nsustained phases, NN, device data, %.1f s each: wall start / end (s), launches, median TFLOP/s of "
           "the last half, of the first five\n",
           seconds);
    /* phases: cuBLAS FP32, cuBLAS FAST_TF32, then 3xTF32 and 1xTF32 of each variant asked for
     * (--variants; the default 0 first) */
    std::vector<int> vs{0};
    for (int v : g_only)
        if (v != 0) vs.push_back(v);
    for (int n : {4096, 8192, 16384})
        for (size_t ph = 0; ph < 2 + 2 * vs.size(); ++ph) {
            const int v = ph < 2 ? 0 : vs[(ph - 2) / 2], math = ph < 2 || ph % 2 == 0 ? MATH_3XTF32 : MATH_TF32;
            char name[40];
            if (ph < 2) snprintf(name, sizeof name, "%s", ph ? "cublas-fasttf32" : "cublas-fp32");
            else snprintf(name, sizeof name, "tsgemm-%s-v%d", math_name(math), v);
            int refused = 0; /* launches the family refused (e.g. a variant whose registers do not fit):
                              * they would time as nothing */
            auto launch = [&] {
                if (ph < 2) cublas_call(ph == 1, 'N', 'N', n, n, n, dA, n, dB, n, dC, n);
                else refused += tf32_sgemm_variant(v, math, 'N', 'N', n, n, n, 1.0f, dA, n, dB, n, 0.0f, dC, n, n,
                                                   nullptr, 0) != 0;
            };
            std::vector<float> ts;
            const double w0 = wall_s();
            while (wall_s() - w0 < seconds) ts.push_back(tm.ms(launch));
            const double w1 = wall_s();
            CK(cudaGetLastError());
            if (refused) {
                printf("%6d^3 %-18s refused %d of %zu launches\n", n, name, refused, ts.size());
                continue;
            }
            std::vector<float> last(ts.begin() + ts.size() / 2, ts.end()), first(ts.begin(), ts.begin() + std::min<size_t>(5, ts.size()));
            std::sort(last.begin(), last.end());
            std::sort(first.begin(), first.end());
            const double flop = 2.0 * n * (double)n * n;
            printf("%6d^3 %-18s %.3f %.3f %6zu %7.1f %7.1f\n", n, name, w0, w1, ts.size(),
                   flop / (last[last.size() / 2] * 1e-3) / 1e12, flop / (first[first.size() / 2] * 1e-3) / 1e12);
        }
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
}

/* --accuracy: bench/accuracy_study.c's study (its inputs: accuracy_inputs.h, drawn in its order;
 * m = n = 512, NN, K = 256 .. 65536, alpha 1, beta 0, reference cuBLAS DGEMM) for 3xTF32's
 * default and the variants of --variants, each with the family's split-K rule (tf32_call_kslice, as
 * the library runs it; a variant without split-K instances runs unsplit and says so). CSV
 * class,k,column,error,ratio as the study's, the ratio to cuBLAS FP32's error on the same
 * inputs; the default's column must equal the study's tsgemm-3xtf32 column. Figures only: it
 * asserts nothing about them (the element bounds are run_case's). */
void accuracy()
{
    const int n = 512;
    static const int64_t ks[] = {256, 1024, 4096, 16384, 65536};
    static const char *const cls_name[3] = {"uniform", "samesign", "wide"};
    std::vector<int> vs{0};
    for (int v : g_only)
        if (v != 0) vs.push_back(v);
    uint64_t state = ACC_SEED;
    printf("class,k,column,error,ratio\n");
    for (const int64_t k : ks) {
        const size_t na = (size_t)n * k, nc = (size_t)n * n;
        std::vector<float> ha(na), hb(na), hc(nc);
        std::vector<double> hd(na), hr(nc);
        float *da, *db, *dc, *dw;
        double *dda, *ddb, *ddc;
        const int64_t kslice = tf32_call_kslice(MATH_3XTF32, 'N', 'N', n, n, k, g_sms, INT64_MAX), splits = (k + kslice - 1) / kslice;
        CK(cudaMalloc(&da, na * 4));
        CK(cudaMalloc(&db, na * 4));
        CK(cudaMalloc(&dc, nc * 4));
        CK(cudaMalloc(&dw, splits * nc * 4));
        CK(cudaMalloc(&dda, na * 8));
        CK(cudaMalloc(&ddb, na * 8));
        CK(cudaMalloc(&ddc, nc * 8));
        for (int c = 0; c < 3; ++c) {
            for (auto &x : ha) x = acc_draw(&state, c);
            for (auto &x : hb) x = acc_draw(&state, c);
            CK(cudaMemcpy(da, ha.data(), na * 4, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(db, hb.data(), na * 4, cudaMemcpyHostToDevice));
            for (size_t i = 0; i < na; ++i) hd[i] = ha[i];
            CK(cudaMemcpy(dda, hd.data(), na * 8, cudaMemcpyHostToDevice));
            for (size_t i = 0; i < na; ++i) hd[i] = hb[i];
            CK(cudaMemcpy(ddb, hd.data(), na * 8, cudaMemcpyHostToDevice));
            const double one = 1, zero = 0;
            CB(cublasDgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, (int)k, &one, dda, n, ddb, (int)k, &zero, ddc, n));
            CK(cudaMemcpy(hr.data(), ddc, nc * 8, cudaMemcpyDeviceToHost));
            CK(cudaMemset(dc, 0xff, nc * 4));
            cublas_call(false, 'N', 'N', n, n, (int)k, da, n, db, (int)k, dc, n);
            CK(cudaMemcpy(hc.data(), dc, nc * 4, cudaMemcpyDeviceToHost));
            const double ecub = acc_frob_rel(hc.data(), hr.data(), nc);
            if (!(ecub < 1.0)) /* cublas_call does not check cublasSgemm: C poisoned by the memset */
                fail("--accuracy: cuBLAS FP32 at k %lld gave error %g", (long long)k, ecub);
            printf("%s,%lld,cublas-fp32,%.4e,1.000\n", cls_name[c], (long long)k, ecub);
            for (int v : vs) {
                const bool split = splits > 1 && tf32_variant_splits(MATH_3XTF32, v);
                CK(cudaMemset(dc, 0xff, nc * 4));
                const int e = tf32_sgemm_variant(v, MATH_3XTF32, 'N', 'N', n, n, k, 1.0f, da, n, db, k, 0.0f, dc, n,
                                                 split ? kslice : k, split ? dw : nullptr, 0);
                if (e != 0) {
                    fail("--accuracy: variant %d at k %lld: %s", v, (long long)k, cudaGetErrorString((cudaError_t)e));
                    continue;
                }
                CK(cudaMemcpy(hc.data(), dc, nc * 4, cudaMemcpyDeviceToHost));
                const double ev = acc_frob_rel(hc.data(), hr.data(), nc);
                printf("%s,%lld,3xtf32-v%d%s,%.4e,%.3f\n", cls_name[c], (long long)k, v,
                       split || splits == 1 ? "" : "-unsplit", ev, ev / ecub);
            }
        }
        cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dw), cudaFree(dda), cudaFree(ddb), cudaFree(ddc);
    }
}

/* --rounding: how an FP32 operand that no instruction of ours rounds becomes TF32 inside the
 * tensor core, and how cuBLAS FAST_TF32 converts each operand. C = A B, m = n = k (64, then
 * 4096: cuBLAS picks its kernel by shape), column-major, one of A and B the identity (exact in
 * TF32) and the other holding values that mostly have bits below TF32's 10-bit mantissa set
 * (t = 0 and 1 below have none: exact controls): every element of C is then one operand element
 * as the tensor core read it (one product by 1, the other n - 1 terms zero: exact in FP32). The
 * values:
 * +-(1 + t 2^-10) 2^e for t in {0, 1/4, 1/2, 3/4, 1, 3/2, 5/2, 7/4} (ties to even and away differ
 * at t = 1/2 and 5/2; toward zero differs from both at 3/4, 3/2, 7/4) and e in {-3, 0, 7}. Each
 * column's elements are compared with three conversions of the input bits (tsg_tf32_round.h):
 * toward zero (the low 13 bits cleared), to nearest with ties away (cvt.rna.tf32.f32, PTX ISA
 * "cvt") and to nearest with ties to even; a column matches a rule when all its n x n elements
 * do. Columns: cuBLAS FP32 and FAST_TF32 (NN), then in each transpose pair (the operand under
 * test read transposed where its flag is 'T'; NN's columns unsuffixed, the others named by their
 * pair) the family's 1xTF32 default and its variants that round otherwise there
 * (tf32_variant_exact false: variant 8 leaves op(B) raw in NN, variant 14 rounds both operands by
 * cvt.rna's rule where the default's tensor copies round them, variant 15 op(A); TT runs as C^T,
 * so its call's op(A) is the instance's op(B)). A NaN in
 * C (the poison the calls write over; cublas_call does not check its status) fails the column.
 * Asserts: cuBLAS FP32 reproduces the values exactly, and every column of the family follows its
 * rule for each operand (tf32_variant_rounding): toward zero for one it hands to the tensor core
 * raw (OPT_BRAW), ties to even for one its tensor copy converts (OPT_BTMA: what cuBLAS's
 * TMA-fed kernels give), ties away (cvt.rna in the kernel) for the others; cuBLAS FAST_TF32's
 * column is reported, not judged (its kernel and its rule are the library version's choice). */
/* one size of --rounding: n x n x n */
static void rounding_at(int n)
{
    static const double ts[] = {0, 0.25, 0.5, 0.75, 1, 1.5, 2.5, 1.75};
    static const int es[] = {-3, 0, 7};
    std::vector<float> vals((size_t)n * n), eye((size_t)n * n, 0.0f), out((size_t)n * n);
    for (size_t i = 0; i < vals.size(); ++i) {
        const size_t r = i % 48; /* 8 t x 3 e x 2 signs */
        const double v = ldexp(1.0 + ts[r % 8] * ldexp(1.0, -10), es[(r / 8) % 3]);
        vals[i] = (float)(r / 24 ? -v : v);
    }
    for (int i = 0; i < n; ++i) eye[(size_t)i * n + i] = 1.0f;
    float *dv = device_copy(vals), *di = device_copy(eye), *dc;
    CK(cudaMalloc(&dc, vals.size() * 4));
    /* the operand under test: 'A' (C = op(V) I) or 'B' (C = I op(V)), transposed (tr: its
     * transpose flag is 'T', so C(i, j) = V(j, i)) or not */
    /* expect: 0 none, 1 exact, 2 rna, 3 rz, 4 rne */
    auto judge = [&](const char *name, char operand, int expect, bool tr = false) {
        char column[64];
        snprintf(column, sizeof column, "%s (%d^3)", name, n);
        CK(cudaMemcpy(out.data(), dc, out.size() * 4, cudaMemcpyDeviceToHost));
        int same = 0, rz = 0, rna = 0, rne = 0, nan = 0;
        for (size_t i = 0; i < out.size(); ++i) {
            const size_t r = i % (size_t)n, c = i / (size_t)n;
            const float x = vals[tr ? c + r * (size_t)n : i], y = out[i];
            same += y == x, rz += y == tt_tf32_rz(x), rna += y == tt_tf32_rna(x), rne += y == tt_tf32_rne(x);
            nan += y != y;
        }
        if (nan) fail("--rounding: %s left %d elements of C unwritten (NaN)", column, nan);
        const int all = (int)out.size();
        const char *verdict = same == all ? "FP32 (not converted)"
                              : rz == all ? "toward zero"
                              : rna == all ? "to nearest, ties away"
                              : rne == all ? "to nearest, ties to even"
                                           : "none of the three";
        printf("rounding: %-34s op(%c): %s (exact %d, toward zero %d, ties away %d, ties to even %d of %d)\n",
               column, operand, verdict, same, rz, rna, rne, all);
        ++g_checks;
        if (expect == 1 && same != all) fail("--rounding: %s changed op(%c)'s FP32 values", column, operand);
        if (expect == 2 && rna != all) fail("--rounding: %s op(%c) is not cvt.rna's", column, operand);
        if (expect == 3 && rz != all) fail("--rounding: %s op(%c) is not truncated toward zero", column, operand);
        if (expect == 4 && rne != all) fail("--rounding: %s op(%c) is not rounded to nearest even", column, operand);
    };
    for (char operand : {'A', 'B'}) {
        const float *A = operand == 'A' ? dv : di, *B = operand == 'A' ? di : dv;
        CK(cudaMemset(dc, 0xff, out.size() * 4));
        cublas_call(false, 'N', 'N', n, n, n, A, n, B, n, dc, n);
        judge("cuBLAS FP32", operand, 1);
        CK(cudaMemset(dc, 0xff, out.size() * 4));
        cublas_call(true, 'N', 'N', n, n, n, A, n, B, n, dc, n);
        judge("cuBLAS FAST_TF32", operand, 0);
        /* the family in every pair: a pair run as C^T, or with another instance, may convert
         * otherwise (tf32_variant_rounding); NN keeps the column names of earlier runs' files */
        static const char pairs[4][3] = {"NN", "TN", "NT", "TT"};
        for (const char *pr : pairs)
            for (int v = 0; v < tf32_variants(); ++v) {
                const char ta = pr[0], tb = pr[1];
                if (!wanted(v) || (v != 0 && tf32_variant_exact(MATH_TF32, v, ta, tb))) continue;
                CK(cudaMemset(dc, 0xff, out.size() * 4));
                const int e = tf32_sgemm_variant(v, MATH_TF32, ta, tb, n, n, n, 1.0f, A, n, B, n, 0.0f, dc, n, n,
                                                 nullptr, 0);
                if (e != 0) {
                    fail("--rounding: tf32 variant %d %s: %s", v, pr, cudaGetErrorString((cudaError_t)e));
                    continue;
                }
                char col[64];
                snprintf(col, sizeof col, "tsgemm tf32 variant %d%s%s", v, pr[0] == 'N' && pr[1] == 'N' ? "" : " ",
                         pr[0] == 'N' && pr[1] == 'N' ? "" : pr);
                const char rule = tf32_variant_rounding(MATH_TF32, v, ta, tb, operand);
                judge(col, operand, rule == 'z' ? 3 : rule == 'e' ? 4 : 2, (operand == 'A' ? ta : tb) == 'T');
            }
    }
    cudaFree(dv), cudaFree(di), cudaFree(dc);
}

void rounding(int n)
{
    /* cuBLAS picks its kernel by shape: a large one may convert its operands otherwise */
    if (n > 0) rounding_at(n); /* --rounding-size: one size (ncu: the launches of that size alone) */
    else rounding_at(64), rounding_at(4096);
    printf("%d checks, %d failures\n", g_checks, g_fail);
}
