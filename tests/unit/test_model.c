/*
 * test_model.c — the cost model behind src/tsg_dispatch.c's CPU/GPU predicate, with injected
 * rates: which side each shape goes to, where the threshold lies, the pipeline's overlap and its
 * choices, measured rates of past runs (v9, v12), the CPU's two sizes and thin calls, wave
 * quantisation, a fresh C's first touch, ScaLAPACK's rank-32 panel updates staying on the CPU
 * with H200 rates while a 4096^3 local call goes to the GPU, and the knob overrides.
 * test_dispatch.c has the attempt order through fake backends.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dispatch_fixtures.h"
#include "tsg_dispatch.h"
#include "tsg_split.h"
#include "tsg_testutil.h"

static void test_model_picks_sides(void **state)
{
    (void)state;
    tsg_policy c = cfg_mode(TSG_MODE_AUTO);
    tsg_rates r = h200();
    tsg_why why;
    tsg_problem p = square(64);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &r, &why), 0);
    assert_int_equal(why, TSG_WHY_TINY);
    p = square(256); /* above the floor, but transfers + latency lose to OpenBLAS */
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &r, &why), 0);
    assert_int_equal(why, TSG_WHY_MODEL_CPU);
    p = square(4096);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &r, &why), 1);
    assert_int_equal(why, TSG_WHY_MODEL_GPU);
    /* the same 4096 problem on a machine whose PCIe crawls (1 GB/s) and CPU flies stays on CPU */
    tsg_rates slow = r;
    slow.h2d_bps = slow.d2h_bps = 1e9;
    slow.cpu_flops = 3e12;
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &slow, &why), 0);
    /* no usable GPU: CPU whatever the size */
    assert_int_equal(tsg_wants_gpu(&p, &c, 0, NULL, &why), 0);
    assert_int_equal(why, TSG_WHY_NO_GPU);
    /* a GPU without rates cannot be judged: CPU */
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, NULL, &why), 0);
    /* a rank-k update on the H200 host (measured: GPU 48 ms, OpenBLAS 30 ms): C's download
     * dominates; the model must keep it on the CPU */
    tsg_rates meas = r;
    meas.h2d_bps = 5.9e9, meas.d2h_bps = 5.7e9, meas.cpu_flops = 1.16e12;
    tsg_problem rk = {'N', 'N', 8192, 8192, 256, 1, 0, NULL, 8192, NULL, 256, NULL, 8192, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    assert_int_equal(tsg_wants_gpu(&rk, &c, 1, &meas, &why), 0);
    /* within the margin (TSG_GPU_MARGIN = 0.9) the CPU keeps the call */
    tsg_problem q = square(2048);
    double g = tsg_estimate_gpu_s(&q, &r), cpu = tsg_estimate_cpu_s(&q, &r);
    tsg_rates tie = r;
    tie.cpu_flops = r.cpu_flops * cpu / (0.99 * g); /* now the GPU is 1% faster: not enough */
    assert_int_equal(tsg_wants_gpu(&q, &c, 1, &tie, &why), 0);
    tie.cpu_flops = r.cpu_flops * cpu / (1.05 * g); /* 5% faster: still not enough */
    assert_int_equal(tsg_wants_gpu(&q, &c, 1, &tie, &why), 0);
    tie.cpu_flops = r.cpu_flops * cpu / (1.15 * g); /* 15% faster: GPU */
    assert_int_equal(tsg_wants_gpu(&q, &c, 1, &tie, &why), 1);
}

static void test_threshold_lies_between(void **state)
{
    (void)state;
    /* With H200 rates the crossover for square beta = 0 problems must lie where docs/PERF.md saw it
     * move (n ~ 300-1100 depending on the copy rates) — not at a constant. */
    tsg_policy c = cfg_mode(TSG_MODE_AUTO);
    tsg_rates r = h200();
    tsg_why why;
    int64_t first_gpu = -1;
    for (int64_t n = 128; n <= 4096; n += 16) {
        tsg_problem p = square(n);
        if (tsg_wants_gpu(&p, &c, 1, &r, &why)) {
            first_gpu = n;
            break;
        }
    }
    assert_true(first_gpu >= 300 && first_gpu <= 1100);
    /* pinned-speed copies (55 GB/s) move the crossover down */
    tsg_rates fast = r;
    fast.h2d_bps = fast.d2h_bps = 55e9;
    int64_t first_fast = -1;
    for (int64_t n = 128; n <= 4096; n += 16) {
        tsg_problem p = square(n);
        if (tsg_wants_gpu(&p, &c, 1, &fast, &why)) {
            first_fast = n;
            break;
        }
    }
    assert_true(first_fast > 0 && first_fast < first_gpu);
}

/* The pipeline overlaps transfers and kernels: a call costs about the largest of its three
 * streams of work, not their sum (docs/DESIGN.md, "Calls from host memory"). */
static void test_pipeline_overlap(void **state)
{
    (void)state;
    tsg_rates r = h200_pipeline();
    tsg_problem p = square(4096);
    const double up = 2.0 * 4096.0 * 4096.0 * 4 / r.h2d_bps, down = 4096.0 * 4096.0 * 4 / r.d2h_bps;
    const double kernel = tsg_flops(&p) / r.gpu_flops;
    const double t = tsg_estimate_gpu_s(&p, &r);
    assert_true(t < up + down + kernel);          /* overlapped, not serial */
    assert_true(t > fmax(up, fmax(down, kernel))); /* but never below the longest stream */
    assert_true(t < 1.6 * fmax(up, fmax(down, kernel)) + r.gpu_latency_s);
    /* beta != 0 does not send C up (the scatters apply it on the host): the same estimate as
     * beta = 0, even at the transfer-bound 2048^3 */
    tsg_problem b1 = square(2048);
    assert_true(tsg_estimate_gpu_s(&b1, &r) > 0);
    const double t0 = tsg_estimate_gpu_s(&b1, &r);
    b1.beta = 1.0f;
    assert_true(tsg_estimate_gpu_s(&b1, &r) == t0);
    /* A and B cost the rows x cols the copy threads gather, not the span of their leading
     * dimension: spotrf's update 3904 x 64 x 4224 NT inside an 8192 x 8192 matrix moves 67 MB
     * (the H100 took 1.65 ms GPU forced, run 30), not the 277 MB of A's and B's extents (run 30's
     * rates priced it 5.48 ms on the GPU against 5.23 on the CPU, so it stayed on OpenBLAS at
     * 7.3 ms; now 1.65). Same estimate as packed operands. */
    tsg_problem wide = {'N', 'T', 3904, 64, 4224, -1, 1, NULL, 8192, NULL, 8192, NULL, 8192,
                        TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    tsg_problem packed = wide;
    packed.lda = 3904, packed.ldb = 64, packed.ldc = 3904;
    assert_true(tsg_estimate_gpu_s(&wide, &r) == tsg_estimate_gpu_s(&packed, &r));
    assert_true(tsg_estimate_gpu_s(&wide, &r) < r.gpu_latency_s + 1.5 * 4.0 * (3904.0 + 64.0) * 4224.0 / r.h2d_bps);
    /* device operands move nothing: only kernels and latency */
    tsg_problem dev = p;
    dev.where_a = dev.where_b = dev.where_c = TSG_DEVICE;
    assert_true(tsg_estimate_gpu_s(&dev, &r) < 1.2 * kernel + r.gpu_latency_s);
    /* a budget too small for any plan: the GPU cannot run it */
    tsg_rates tiny = r;
    tiny.gpu_device_bytes = 1024;
    assert_true(isinf(tsg_estimate_gpu_s(&p, &tiny)));
}

/* The two auto-mode misses with the pipeline's rates: 512 x 512 x 65536 belongs on the
 * GPU (OpenBLAS 41 ms, GPU forced 33.5 ms even before the pipeline), 768^3 too; a K = 32 panel
 * update of ScaLAPACK (8 flop per byte) stays on the CPU. */
static void test_pipeline_choices(void **state)
{
    (void)state;
    tsg_policy c = cfg_mode(TSG_MODE_AUTO);
    tsg_rates r = h200_pipeline();
    tsg_why why;
    tsg_problem lk = {'N', 'N', 512, 512, 65536, 1, 0, NULL, 512, NULL, 65536, NULL, 512,
                      TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    assert_int_equal(tsg_wants_gpu(&lk, &c, 1, &r, &why), 1);
    tsg_problem p = square(768);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &r, &why), 1);
    p = square(128);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &r, &why), 0);
    tsg_problem panel = {'N', 'N', 4000, 4000, 32, 1, 0, NULL, 4000, NULL, 32, NULL, 4000,
                         TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    assert_int_equal(tsg_wants_gpu(&panel, &c, 1, &r, &why), 0);
}

/*
 * The rates as v8 of the cache measured them on the H200 (one 64 MiB call per direction: 31 /
 * 40.6 GB/s; a 64^3 call as the latency: 54 us; OpenBLAS 1.0 TFLOP/s) and as v9 measures them
 * (slopes between 64 and 256 MiB: the sustained 49 / 48 GB/s; a 512^3 call's fixed cost: about
 * 0.53 ms). Measured in the same run (v0.4 run 1, tsgemm-bench, ms): 65536 x 64 x 4096 OpenBLAS
 * 200, GPU 23.1 — v8 sent it to the CPU; 512^3 OpenBLAS 0.50, GPU 0.60 — v8 sent it to the GPU;
 * 768^3 OpenBLAS 1.12, GPU 0.86.
 */
static void test_measured_rates_v9(void **state)
{
    (void)state;
    tsg_policy c = cfg_mode(TSG_MODE_AUTO);
    tsg_rates v8 = {31e9, 40.6e9, 37.9e12, 54e-6, 128, 128, 132, 256, 0, 1.0e12, 0.23e-6, 0, 0, 0, 0, 0, 0,
                    {0}, {0}, {0}}; /* no pair's own kernel figures */
    tsg_rates v9 = v8;
    v9.h2d_bps = 49e9, v9.d2h_bps = 48e9, v9.gpu_latency_s = 0.53e-3;
    tsg_why why;
    tsg_problem tall = {'N', 'N', 65536, 64, 4096, 1, 0, NULL, 65536, NULL, 4096, NULL, 65536,
                        TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    assert_int_equal(tsg_wants_gpu(&tall, &c, 1, &v8, &why), 0); /* the v0.3 mistake */
    assert_int_equal(tsg_wants_gpu(&tall, &c, 1, &v9, &why), 1);
    tsg_problem p = square(512);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &v8, &why), 1); /* the other v0.3 mistake */
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &v9, &why), 0);
    p = square(768);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &v9, &why), 1);
    /* the v9 estimates lie near the measured GPU times (within 25%) */
    assert_true(fabs(tsg_estimate_gpu_s(&tall, &v9) - 23.1e-3) < 0.25 * 23.1e-3);
    p = square(512);
    assert_true(fabs(tsg_estimate_gpu_s(&p, &v9) - 0.60e-3) < 0.25 * 0.60e-3);
    tsg_problem lk = {'N', 'N', 512, 512, 65536, 1, 0, NULL, 512, NULL, 65536, NULL, 512,
                      TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    assert_int_equal(tsg_wants_gpu(&lk, &c, 1, &v9, &why), 1);
    tsg_problem rk = {'N', 'N', 8192, 8192, 256, 1, 0, NULL, 8192, NULL, 256, NULL, 8192,
                      TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    assert_int_equal(tsg_wants_gpu(&rk, &c, 1, &v9, &why), 1); /* OpenBLAS 37.7, GPU 6.0 ms */
}

/*
 * The CPU side at two sizes (v0.10). v0.9 run 3 measured OpenBLAS (16 threads, medians) at 512^3
 * 0.724 ms and 1024^3 4.20 ms, the GPU forced at 512^3 0.377 ms; the one-rate model took
 * 1024^3's best call (0.921 TFLOP/s) for every size, priced 512^3 at 0.29 ms and kept it on the
 * CPU (auto 0.656 ms). With the 512^3 median as a second point the model knows the mid-size call's
 * fixed cost: 512^3 goes to the GPU, 256^3 (OpenBLAS 0.217 ms in auto's CPU column 0.130, the GPU
 * 0.156) and below stay on the CPU. GPU rates as that run's cache held them.
 */
static void test_cpu_two_sizes(void **state)
{
    (void)state;
    tsg_policy c = cfg_mode(TSG_MODE_AUTO);
    tsg_rates one = {41.8e9, 58.4e9, 46.6e12, 234e-6, 256, 128, 132, 256, 0, 0.921e12, 0.19e-6, 0, 0, 0, 0, 0, 0,
                     {0}, {0}, {0}}; /* no pair's own kernel figures */
    tsg_rates two = one;
    two.cpu_flops = 2.0 * 1024 * 1024 * 1024 / 4.20e-3, two.cpu_mid_s = 0.724e-3;
    tsg_why why;
    tsg_problem p = square(512);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &one, &why), 0); /* v0.9's miss */
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &two, &why), 1);
    assert_int_equal(why, TSG_WHY_MODEL_GPU);
    /* the estimate passes through both measured points and is continuous */
    assert_true(fabs(tsg_estimate_cpu_s(&p, &two) - 0.724e-3) < 1e-9);
    tsg_problem big = square(1024);
    assert_true(fabs(tsg_estimate_cpu_s(&big, &two) - 4.20e-3) < 1e-9);
    tsg_problem above = square(1025);
    assert_true(tsg_estimate_cpu_s(&above, &two) > 4.20e-3 &&
                tsg_estimate_cpu_s(&above, &two) < 4.3e-3);
    tsg_problem below = square(511);
    assert_true(tsg_estimate_cpu_s(&below, &two) < 0.724e-3 &&
                tsg_estimate_cpu_s(&below, &two) > 0.7e-3);
    int64_t sizes[] = {64, 128, 256};
    for (int i = 0; i < 3; ++i) {
        p = square(sizes[i]);
        assert_int_equal(tsg_wants_gpu(&p, &c, 1, &two, &why), 0);
    }
    p = square(768); /* OpenBLAS 1.46, GPU 0.51 */
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &two, &why), 1);
    /* a mid-size time above the big one's (a bad measurement) counts as the big one's */
    tsg_rates odd = two;
    odd.cpu_mid_s = 10e-3;
    p = square(512);
    assert_true(fabs(tsg_estimate_cpu_s(&p, &odd) - 4.20e-3) < 1e-9);
    /* numpy's a.T @ b of 64 x 64 x 65536 stays on the CPU: OpenBLAS took 3.5-4.1 ms (v0.10 runs 1
     * and 5), the pipelined GPU call 4.3-8.1 inside numpy in run 5 (a bound on OpenBLAS's threads
     * for so small a C sent it there; measured and reverted, docs/NOTES.md "v0.10") */
    tsg_problem skinny = {'N', 'N', 64, 64, 65536, 1, 0, NULL, 64, NULL, 65536, NULL, 64,
                          TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    assert_int_equal(tsg_wants_gpu(&skinny, &c, 1, &two, &why), 0);
}

/*
 * Thin calls (src/tsg_cost.h TSG_CPU_THIN): with the thin calls measured 5x slower than the square
 * curve says, a call of that shape is priced 5x (the spotrf panel update 5312 x 64 x 2816 NT took
 * 10.2 ms on OpenBLAS, 5.2 ms on the GPU: H100 replay, docs/results/h100-2026-12-05-replay-run1.txt),
 * half way to TSG_CPU_WIDE (log scale) sqrt(5)x, from TSG_CPU_WIDE on 1x. m and n are each thin
 * against the larger of the other two sizes, so a call thin in both pays both factors (run 30's
 * 64 x 64 x 8064 NT: OpenBLAS 0.98 ms, the GPU 0.39; PCA's 42 x 256 x 10000: 2.18 / 0.76), a small
 * k does not stop it (8064 x 64 x 64), and square calls, k-thin calls and calls below 256^3's
 * flops keep the curve; unmeasured thin times change nothing, nor do thin calls measured faster
 * than the curve.
 */
static void test_cpu_thin_calls(void **state)
{
    (void)state;
    tsg_rates r = {41.8e9, 58.4e9, 46.6e12, 234e-6, 256, 128, 132, 256, 0, 0.957e12, 0.17e-6, 0, 0.453e-3,
                   0.107e-3, 0, 0, 0, {0}, {0}, {0}};
    const double f_thin = 2.0 * TSG_CPU_THIN * (double)TSG_CPU_THIN_LONG * TSG_CPU_THIN_LONG;
    tsg_problem thin_ref = {'N', 'N', TSG_CPU_THIN, TSG_CPU_THIN_LONG, TSG_CPU_THIN_LONG, 1, 0, NULL, 64, NULL,
                            2048, NULL, 64, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    assert_true(fabs(tsg_flops(&thin_ref) - f_thin) < 1);
    const double curve = tsg_estimate_cpu_s(&thin_ref, &r); /* thin times unmeasured: the curve */
    r.cpu_thin_m_s = r.cpu_thin_n_s = 5.0 * curve;
    assert_true(fabs(tsg_estimate_cpu_s(&thin_ref, &r) / curve - 5.0) < 1e-9);
    tsg_problem spotrf = {'N', 'T', 5312, 64, 2816, -1, 1, NULL, 8192, NULL, 8192, NULL, 8192,
                          TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    tsg_rates plain = r;
    plain.cpu_thin_m_s = plain.cpu_thin_n_s = 0;
    const double spotrf_curve = tsg_estimate_cpu_s(&spotrf, &plain);
    assert_true(fabs(tsg_estimate_cpu_s(&spotrf, &r) / spotrf_curve - 5.0) < 1e-9);
    tsg_problem half = spotrf; /* n = 181 = 512 / 2^1.5: half way in log2 between 64 and 512 */
    half.n = 181;
    const double ratio = tsg_estimate_cpu_s(&half, &r) / tsg_estimate_cpu_s(&half, &plain);
    assert_true(fabs(ratio - pow(5.0, log2(512.0 / 181.0) / 3.0)) < 1e-9 && ratio > 2.0 && ratio < 2.5);
    /* the factor each shape pays: m's times n's */
    const struct {
        tsg_problem p;
        double factor;
    } shapes[] = {
        {{'N', 'N', 2048, 2048, 2048, 1, 0, NULL, 2048, NULL, 2048, NULL, 2048, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0}, 1},
        {{'N', 'N', 5312, 512, 2816, 1, 0, NULL, 5312, NULL, 2816, NULL, 5312, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0}, 1},
        {{'N', 'N', 3968, 3968, 64, 1, 0, NULL, 3968, NULL, 64, NULL, 3968, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0}, 1},
        {{'N', 'N', 256, 256, 256, 1, 0, NULL, 256, NULL, 256, NULL, 256, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0}, 1},
        {{'N', 'N', 4080, 16, 16, 1, 0, NULL, 4080, NULL, 16, NULL, 4080, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0}, 1},
        {{'N', 'N', 64, 64, 65536, 1, 0, NULL, 64, NULL, 65536, NULL, 64, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0}, 25},
        {{'N', 'T', 8064, 64, 64, -1, 1, NULL, 8192, NULL, 8192, NULL, 8192, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0}, 5},
        {{'N', 'N', 1500, 8, 1500, 1, 0, NULL, 1500, NULL, 1500, NULL, 1500, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0}, 5},
        {{'T', 'N', 42, 256, 10000, 1, 0, NULL, 10000, NULL, 10000, NULL, 42, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0},
         5.0 * pow(5.0, 1.0 / 3.0)},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; ++i) {
        const double got = tsg_estimate_cpu_s(&shapes[i].p, &r) / tsg_estimate_cpu_s(&shapes[i].p, &plain);
        if (fabs(got - shapes[i].factor) > 1e-9 * shapes[i].factor)
            fail_msg("%lld x %lld x %lld: thin factor %.6g, want %.6g", (long long)shapes[i].p.m,
                     (long long)shapes[i].p.n, (long long)shapes[i].p.k, got, shapes[i].factor);
    }
    tsg_rates quick = r; /* thin calls measured faster than the curve: no discount */
    quick.cpu_thin_m_s = quick.cpu_thin_n_s = 0.5 * curve;
    assert_true(tsg_estimate_cpu_s(&spotrf, &quick) == spotrf_curve);
    /* and the decision: the GPU's estimate of the spotrf update is below 5x the curve's CPU time */
    tsg_policy c = cfg_mode(TSG_MODE_AUTO);
    tsg_why why;
    const double gpu = tsg_estimate_gpu_s(&spotrf, &r);
    if (gpu < 5.0 * spotrf_curve && gpu > spotrf_curve) {
        assert_int_equal(tsg_wants_gpu(&spotrf, &c, 1, &plain, &why), 0);
        assert_int_equal(tsg_wants_gpu(&spotrf, &c, 1, &r, &why), 1);
        assert_int_equal(why, TSG_WHY_MODEL_GPU);
    } else {
        fail_msg("the spotrf update's GPU estimate %.3g ms is not between the curve's %.3g and 5x", gpu * 1e3,
                 spotrf_curve * 1e3);
    }
}

/*
 * The crossover measured at both sides (v0.12). v0.11 run 4 (H200, tree 2754b43, medians of 7):
 * rates upload 56.4 / download 58.6 GB/s, kernel 47.1 TFLOP/s, fixed cost 129 us (a 512^3 call
 * less its bytes), OpenBLAS 1.04 TFLOP/s at 1024^3, 0.39 ms at 512^3, 0.106 us at 8^3; the bench
 * (CPU = the faster of OpenBLAS's column and auto's column when it ran on the CPU; GPU forced):
 *   128^3   CPU 0.049  GPU 0.075      256^3 CPU 0.149  GPU 0.120      512^3 CPU 0.520  GPU 0.214
 *   768^3   CPU 1.379  GPU 0.346     1024^3 CPU 2.206  GPU 0.453     65536x64x4096 128 / 21.0
 *   512x512x65536  43.4 / 5.54      8192x8192x256  32.2 / 5.49
 * v0.11's model priced 256^3 at CPU 0.049, GPU 0.169 and ran it on the CPU (1.24x the GPU). With
 * the CPU measured at 256^3 (the run's CPU calls there: mean less the slowest ~0.15 ms) and the
 * GPU's fixed cost fitted to a 256^3 call (0.120 ms; the 64^3 call, 0.0595 ms, is the floor),
 * every shape goes to the side within 1.10x of the faster one.
 */
static void test_crossover_measured_v12(void **state)
{
    (void)state;
    tsg_policy c = cfg_mode(TSG_MODE_AUTO);
    tsg_rates v11 = {56.4e9, 58.6e9, 47.1e12, 129e-6, 128, 128, 132, 256, 0,
                     1.04e12, 0.106e-6, 0, 0.39e-3, 0, 0, 0, 0, {0}, {0}, {0}};
    tsg_why why;
    tsg_problem p = square(256);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &v11, &why), 0); /* v0.11's miss */
    tsg_rates v12 = v11;
    v12.cpu_small_s = 0.150e-3;
    v12.gpu_latency_s = tsg_fit_gpu_latency(&v12, TSG_GPU_FIT_N, 0.120e-3, 0.0595e-3);
    /* the model passes through both measured 256^3 calls */
    assert_true(fabs(tsg_estimate_gpu_s(&p, &v12) - 0.120e-3) < 1e-9);
    assert_true(fabs(tsg_estimate_cpu_s(&p, &v12) - 0.150e-3) < 1e-9);
    assert_true(v12.gpu_latency_s > 0.0595e-3 && v12.gpu_latency_s < 0.120e-3);
    struct { int64_t m, n, k; double cpu, gpu; } run4[] = {
        {128, 128, 128, 0.049e-3, 0.075e-3},   {256, 256, 256, 0.149e-3, 0.120e-3},
        {512, 512, 512, 0.520e-3, 0.214e-3},   {768, 768, 768, 1.379e-3, 0.346e-3},
        {1024, 1024, 1024, 2.206e-3, 0.453e-3}, {65536, 64, 4096, 128e-3, 21.0e-3},
        {512, 512, 65536, 43.4e-3, 5.54e-3},    {8192, 8192, 256, 32.2e-3, 5.49e-3}};
    for (size_t i = 0; i < sizeof run4 / sizeof run4[0]; ++i) {
        tsg_problem q = {'N', 'N', run4[i].m, run4[i].n, run4[i].k, 1, 0, NULL, run4[i].m, NULL,
                         run4[i].k, NULL, run4[i].m, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
        const int gpu = tsg_wants_gpu(&q, &c, 1, &v12, &why);
        const double took = gpu ? run4[i].gpu : run4[i].cpu;
        if (took > 1.10 * fmin(run4[i].cpu, run4[i].gpu))
            fprintf(stderr, "%lld x %lld x %lld: model GPU %.3g ms, CPU %.3g ms\n",
                    (long long)run4[i].m, (long long)run4[i].n, (long long)run4[i].k,
                    tsg_estimate_gpu_s(&q, &v12) * 1e3, tsg_estimate_cpu_s(&q, &v12) * 1e3);
        assert_true(took <= 1.10 * fmin(run4[i].cpu, run4[i].gpu));
    }
    /* the crossover's pricing: the mean less the slowest call (run 4's auto CPU calls at 256^3
     * had one of 0.276 ms among ~0.10-0.15) */
    double t[5] = {0.150e-3, 0.276e-3, 0.102e-3, 0.149e-3, 0.131e-3};
    assert_true(fabs(tsg_mean_less_slowest(t, 5) - (0.150e-3 + 0.102e-3 + 0.149e-3 + 0.131e-3) / 4) < 1e-12);
    double one = 2.0;
    assert_true(tsg_mean_less_slowest(&one, 1) == 2.0 && tsg_mean_less_slowest(&one, 0) == 0.0);
    /* the fit never goes below the floor: a call faster than the model's other terms */
    assert_true(tsg_fit_gpu_latency(&v12, TSG_GPU_FIT_N, 1e-6, 0.0595e-3) == 0.0595e-3);
    /* a 256^3 CPU time above 512^3's (a bad measurement) counts as 512^3's */
    tsg_rates odd = v12;
    odd.cpu_small_s = 1e-3;
    assert_true(fabs(tsg_estimate_cpu_s(&p, &odd) - 0.39e-3) < 1e-9);
    /* and the line stays continuous through the three points */
    tsg_problem a = square(255), b = square(257);
    assert_true(tsg_estimate_cpu_s(&a, &v12) < 0.150e-3 && tsg_estimate_cpu_s(&a, &v12) > 0.14e-3);
    assert_true(tsg_estimate_cpu_s(&b, &v12) > 0.150e-3 && tsg_estimate_cpu_s(&b, &v12) < 0.16e-3);
}

static void test_wave_quantisation(void **state)
{
    (void)state;
    /* 512 x 512 x 65536 fills 16 of 132 slots: the model charges a whole wave */
    tsg_rates r = h200();
    r.gpu_latency_s = 0;
    /* operands resident on the device: nothing crosses PCIe, the kernel term alone is left
     * (an "infinite" bandwidth is no longer a rate the model accepts: src/tsg_rates.h) */
    tsg_problem p = {'N', 'N', 512, 512, 65536, 1, 0, NULL, 512, NULL, 65536, NULL, 512,
                     TSG_DEVICE, TSG_DEVICE, TSG_DEVICE, 0, 0, 0};
    double t = tsg_estimate_gpu_s(&p, &r);
    double ideal = tsg_flops(&p) / r.gpu_flops;
    assert_true(t > 8 * ideal); /* 132 / 16 = 8.25 */
    r.gpu_split_min_k = 256; /* an executor that splits K fills the GPU: close to ideal */
    assert_true(tsg_estimate_gpu_s(&p, &r) < 1.15 * ideal); /* + a few us per launch */
    r.gpu_tile_m = r.gpu_tile_n = r.gpu_slots = 0; /* no tile information: plain flops / rate */
    assert_true(fabs(tsg_estimate_gpu_s(&p, &r) - ideal) < 1e-9);
}

/* A device-resident call of transpose pair `pair` (0 NN, 1 TN, 2 NT, 3 TT, as
 * src/tsg_dispatch.c call_limits numbers them): no transfers, the kernels and launches alone. */
static tsg_problem device_call(int pair, int64_t m, int64_t n, int64_t k)
{
    const int ta = pair & 1, tb = pair >> 1;
    tsg_problem p = {ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1, 0, NULL, ta ? k : m, NULL, tb ? n : k, NULL, m,
                     TSG_DEVICE, TSG_DEVICE, TSG_DEVICE, 0, 0, 0};
    return p;
}

/* The model's seconds of device_call(pair, m, n, k) under r. */
static double device_s(int pair, int64_t m, int64_t n, int64_t k, const tsg_rates *r)
{
    const tsg_problem p = device_call(pair, m, n, k);
    return tsg_estimate_gpu_s(&p, r);
}

/*
 * Each transpose pair's kernel is priced with its own rate and tile where the rates have them
 * (src/tsg_cost.h tsg_rates.gpu_pair_*): on Hopper 1xTF32's NT runs 128 x 128 tiles at 157 TFLOP/s
 * where NN runs 128 x 256 at 375, and TT's tile is 256 x 128 in C (H200 device run 69,
 * docs/NOTES.md "twentieth session"); NN's figures priced them all before. A pair's 0 keeps NN's
 * figure, so rates without the pairs price every pair exactly as NN, as before.
 */
static void test_pair_kernels(void **state)
{
    (void)state;
    tsg_rates r = h200_pipeline();
    r.gpu_latency_s = 0;
    /* no pair's figures: every pair priced exactly as NN, on the device and from host memory */
    const double nn = device_s(0, 8192, 8192, 8192, &r);
    assert_true(nn > 0 && isfinite(nn));
    tsg_problem host = device_call(0, 3000, 5000, 700);
    host.where_a = host.where_b = host.where_c = TSG_HOST;
    const double nn_host = tsg_estimate_gpu_s(&host, &r);
    for (int pair = 1; pair < 4; ++pair) {
        const tsg_problem p = device_call(pair, 8192, 8192, 8192);
        assert_true(tsg_estimate_gpu_s(&p, &r) == nn);
        tsg_problem h = device_call(pair, 3000, 5000, 700);
        h.where_a = h.where_b = h.where_c = TSG_HOST;
        assert_true(tsg_estimate_gpu_s(&h, &r) == nn_host);
    }
    /* NT's kernel at half NN's rate: a large NT call takes about twice NN's kernel time (its
     * launches' fixed cost aside); NN and the pairs left at 0 unchanged */
    tsg_rates half = r;
    half.gpu_pair_flops[1] = r.gpu_flops / 2;
    const tsg_problem nt = device_call(2, 8192, 8192, 8192);
    const double t_nt = tsg_estimate_gpu_s(&nt, &half);
    if (!(t_nt > 1.95 * nn && t_nt < 2.0 * nn)) fail_msg("NT at half NN's rate: %g s, NN %g s", t_nt, nn);
    assert_true(device_s(0, 8192, 8192, 8192, &half) == nn);
    assert_true(device_s(1, 8192, 8192, 8192, &half) == nn);
    assert_true(device_s(3, 8192, 8192, 8192, &half) == nn);
    /* the decision sees it too (tsg_estimate_gpus_s): on one device, and split over two, whose
     * panels are priced alike */
    assert_true(tsg_estimate_gpus_s(&nt, &half) == t_nt);
    tsg_problem nt_host = nt;
    nt_host.where_a = nt_host.where_b = nt_host.where_c = TSG_HOST;
    tsg_rates two = r, two_half = half;
    two.gpu_count = two_half.gpu_count = 2;
    const double split = tsg_estimate_gpus_s(&nt_host, &two);
    const double split_half = tsg_estimate_gpus_s(&nt_host, &two_half);
    if (!(split_half > 1.3 * split)) fail_msg("NT over two devices: %g s, at NN's rate %g s", split_half, split);
    /* TT's tile: NN 128 x 256, TT 256 x 128 in C. 640 x 3072 x 16384 (one block) is 5 x 12 = 60
     * of NN's tiles, which split-K cuts into 2 slices each, 120 blocks in a wave of 132, but
     * 3 x 24 = 72 of TT's, which a second slice would spill into another wave: unsplit, twice
     * the time, as NN's own kernels would take on 256 x 128 tiles */
    tsg_rates wide = r;
    wide.gpu_tile_m = 128, wide.gpu_tile_n = 256;
    const double nn_wide = device_s(0, 640, 3072, 16384, &wide);
    assert_true(device_s(3, 640, 3072, 16384, &wide) == nn_wide); /* without TT's own tile */
    wide.gpu_pair_tile_m[2] = 256, wide.gpu_pair_tile_n[2] = 128;
    const double tt = device_s(3, 640, 3072, 16384, &wide);
    if (!(tt > 1.9 * nn_wide && tt < 2.0 * nn_wide)) fail_msg("TT on 256 x 128: %g s, NN %g s", tt, nn_wide);
    assert_true(device_s(0, 640, 3072, 16384, &wide) == nn_wide);
    tsg_rates tall = r;
    tall.gpu_tile_m = 256, tall.gpu_tile_n = 128;
    assert_true(device_s(0, 640, 3072, 16384, &tall) == tt);
}

/*
 * ScaLAPACK's PSGEMM (and PBLAS generally) turns one distributed product into local SGEMMs that
 * are mostly rank-NB panel updates: every rank's whole local C block (m x n) += its A panel
 * (m x NB) times its B panel (NB x n), NB = 32 typically, beta = 1 after the first panel. That is
 * 2*NB = 64 flops per 8 bytes of C crossing PCIe up and down — ~8 flop per byte moved, where the
 * H200 host's CPU BLAS does 1.2 TFLOP/s, i.e. the link would need 150 GB/s just to tie. So auto
 * mode must keep them on the CPU at every block size, while a large square local call still goes
 * to the GPU. Rates: the transfer pipeline's 50 GB/s both ways (docs/DESIGN.md), the kernel's
 * 38 TFLOP/s (docs/RESULTS.md, 4096^3), OpenBLAS 1.2 TFLOP/s with 16 threads.
 */
static void test_psgemm_panel_updates_stay_on_cpu(void **state)
{
    (void)state;
    const tsg_rates r = {50e9, 50e9, 38e12, 20e-6, 128, 128, 132, 256, 0, 1.2e12, 2e-6, 0, 0, 0, 0, 0, 0,
                         {0}, {0}, {0}}; /* no pair's own kernel figures */
    const tsg_policy c = cfg_mode(TSG_MODE_AUTO);
    tsg_why why;
    for (int64_t mn = 2000; mn <= 8000; mn += 500) {
        for (int beta1 = 0; beta1 < 2; ++beta1) {
            for (int ta = 0; ta < 2; ++ta) {
                /* local blocks: C mn x mn, A mn x 32 (or its transpose), B 32 x mn */
                tsg_problem p = {ta ? 'T' : 'N', 'N', mn, mn, 32, 1.0f, beta1 ? 1.0f : 0.0f, NULL,
                                 ta ? 32 : mn, NULL, 32, NULL, mn, TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
                int gpu = tsg_wants_gpu(&p, &c, 1, &r, &why);
                if (gpu) /* say which shape, then fail */
                    fprintf(stderr, "panel update m=n=%lld k=32 beta=%d transa=%c: GPU %.3g ms vs "
                                    "CPU %.3g ms\n",
                            (long long)mn, beta1, p.transa, tsg_estimate_gpu_s(&p, &r) * 1e3,
                            tsg_estimate_cpu_s(&p, &r) * 1e3);
                assert_int_equal(gpu, 0);
                assert_int_equal(why, TSG_WHY_MODEL_CPU);
                /* and not by a hair: the GPU estimate is at least 1.5x the CPU's */
                assert_true(tsg_estimate_gpu_s(&p, &r) > 1.5 * tsg_estimate_cpu_s(&p, &r));
            }
        }
    }
    /* the same rates send a large local product (4096^3, beta 0 or 1) to the GPU */
    for (int beta1 = 0; beta1 < 2; ++beta1) {
        tsg_problem big = square(4096);
        big.beta = beta1 ? 1.0f : 0.0f;
        assert_int_equal(tsg_wants_gpu(&big, &c, 1, &r, &why), 1);
        assert_int_equal(why, TSG_WHY_MODEL_GPU);
    }
}

static void test_knob_overrides(void **state)
{
    (void)state;
    tsg_rates r = h200();
    tsg_why why;
    tsg_problem big = square(4096), small = square(8);
    tsg_policy c = cfg_mode(TSG_MODE_CPU);
    assert_int_equal(tsg_wants_gpu(&big, &c, 1, &r, &why), 0);
    assert_int_equal(why, TSG_WHY_MODE_CPU);
    assert_int_equal(tsg_may_want_gpu(&big, &c), 0);
    c = cfg_mode(TSG_MODE_GPU);
    assert_int_equal(tsg_wants_gpu(&small, &c, 1, &r, &why), 1);
    assert_int_equal(why, TSG_WHY_MODE_GPU);
    assert_int_equal(tsg_may_want_gpu(&small, &c), 1);
    assert_int_equal(tsg_wants_gpu(&small, &c, 0, NULL, &why), 0); /* forced, but none */
    c = cfg_mode(TSG_MODE_AUTO);
    c.threshold = 100; /* m*n*k >= 100^3 */
    tsg_problem p = square(99);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &r, &why), 0);
    assert_int_equal(why, TSG_WHY_THRESHOLD_CPU);
    p = square(100);
    assert_int_equal(tsg_wants_gpu(&p, &c, 1, &r, &why), 1);
    assert_int_equal(why, TSG_WHY_THRESHOLD_GPU);
    assert_int_equal(tsg_may_want_gpu(&p, &c), 1);
    c.threshold = 0;
    assert_int_equal(tsg_may_want_gpu(&small, &c), 0); /* tiny: never start a GPU for it */
    assert_string_equal(tsg_why_text(TSG_WHY_MODEL_GPU), "model: GPU faster");
}

/* |a - b| <= tol, with both values in the message when not */
#define assert_near(a, b, tol)                                                                   \
    do {                                                                                         \
        const double a_ = (a), b_ = (b);                                                         \
        if (!(fabs(a_ - b_) <= (tol))) fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);       \
    } while (0)

/*
 * A fresh C (src/tsg_cost.h tsg_first_touch_s): C's extent faulted in at cpu_touch_bps, added in
 * full on the CPU side and to the upload side of the GPU pipeline's max(). Rates: the H200 host's
 * pipeline (h200_pipeline) and a first-touch rate of 4 GB/s (4 KiB pages, one thread).
 */
static void test_fresh_c_first_touch(void **state)
{
    (void)state;
    tsg_rates r = h200_pipeline();
    r.cpu_touch_bps = 4e9;
    /* uploads dominate the pipeline: 1024 x 1024 x 16384 moves 134 MB up (2.7 ms at 50 GB/s)
     * for 0.9 ms of kernel, so the GPU side pays the whole touch too */
    tsg_problem p = {'N', 'N', 1024, 1024, 16384, 1.0f, 0.0f, NULL, 1024, NULL, 16384, NULL, 1024,
                     TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    const double cpu0 = tsg_estimate_cpu_s(&p, &r), gpu0 = tsg_estimate_gpu_s(&p, &r);
    assert_true(tsg_first_touch_s(&p, &r) == 0.0); /* not fresh */
    p.fresh_c = 1;
    const double touch = 4.0 * 1024 * 1024 / 4e9; /* 1.048576 ms */
    assert_near(tsg_first_touch_s(&p, &r), touch, 1e-15);
    assert_near(tsg_estimate_cpu_s(&p, &r) - cpu0, touch, 1e-12);
    assert_near(tsg_estimate_gpu_s(&p, &r) - gpu0, touch, 1e-12);
    /* a padded C: the extent (n-1)*ldc + m, not m*n */
    p.ldc = 2048;
    assert_near(tsg_first_touch_s(&p, &r), 4.0 * (1023.0 * 2048 + 1024) / 4e9, 1e-15);
    p.ldc = 1024;
    /* nothing to fault: beta != 0 (the program wrote C), pinned or device C, rate not measured */
    p.beta = 1.0f;
    assert_true(tsg_first_touch_s(&p, &r) == 0.0);
    assert_near(tsg_estimate_cpu_s(&p, &r), cpu0, 1e-15);
    p.beta = 0.0f;
    p.where_c = TSG_PINNED;
    assert_true(tsg_first_touch_s(&p, &r) == 0.0);
    p.where_c = TSG_HOST;
    r.cpu_touch_bps = 0;
    assert_true(tsg_first_touch_s(&p, &r) == 0.0);
    assert_near(tsg_estimate_gpu_s(&p, &r), gpu0, 1e-15);
    r.cpu_touch_bps = 4e9;
    /* device A and B, long k: the kernels (14.5 ms) hide the copy threads' touch (4.2 ms) */
    tsg_problem d = {'N', 'N', 2048, 2048, 65536, 1.0f, 0.0f, NULL, 2048, NULL, 65536, NULL, 2048,
                     TSG_DEVICE, TSG_DEVICE, TSG_HOST, 0, 0, 0};
    const double dgpu0 = tsg_estimate_gpu_s(&d, &r);
    d.fresh_c = 1;
    assert_near(tsg_first_touch_s(&d, &r), 4.0 * 2048 * 2048 / 4e9, 1e-15);
    assert_near(tsg_estimate_gpu_s(&d, &r), dgpu0, 1e-15);
    /* the decision: a rank-64 update of a 4096^2 C stays on the CPU when C was used before
     * (CPU 1.7 ms, GPU ~1.5 + C's 67 MB down: 1.09x the CPU's time). A fresh C adds 16.8 ms of
     * faults to the CPU's side and less to the pipeline's, which overlaps them with C's
     * download: the GPU is then priced faster (0.93x), but by less than TSG_GPU_MARGIN asks, so
     * the CPU keeps it (it went to the GPU under the margin of 0.97 before the twenty-fourth
     * session: both sides are mostly the same faults). A rank-96 update of a fresh C is priced
     * under the margin (0.89x) and goes to the GPU. */
    const tsg_policy c = cfg_mode(TSG_MODE_AUTO);
    tsg_why why;
    tsg_problem u = {'N', 'N', 4096, 4096, 64, 1.0f, 0.0f, NULL, 4096, NULL, 64, NULL, 4096,
                     TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    const double ucpu = tsg_estimate_cpu_s(&u, &r), ugpu = tsg_estimate_gpu_s(&u, &r);
    assert_true(ugpu > ucpu);
    assert_int_equal(tsg_wants_gpu(&u, &c, 1, &r, &why), 0);
    assert_int_equal(why, TSG_WHY_MODEL_CPU);
    u.fresh_c = 1;
    const double utouch = 4.0 * 4096 * 4096 / 4e9;
    assert_near(tsg_estimate_cpu_s(&u, &r) - ucpu, utouch, 1e-12);
    const double ugpu1 = tsg_estimate_gpu_s(&u, &r);
    assert_true(ugpu1 - ugpu > 0 && ugpu1 - ugpu < utouch);
    const double fresh_ratio = ugpu1 / (ucpu + utouch);
    assert_true(fresh_ratio < 1.0 && fresh_ratio >= TSG_GPU_MARGIN);
    assert_int_equal(tsg_wants_gpu(&u, &c, 1, &r, &why), 0);
    assert_int_equal(why, TSG_WHY_MODEL_CPU);
    u.k = u.ldb = 96;
    assert_true(tsg_estimate_gpu_s(&u, &r) < TSG_GPU_MARGIN * tsg_estimate_cpu_s(&u, &r));
    assert_int_equal(tsg_wants_gpu(&u, &c, 1, &r, &why), 1);
    assert_int_equal(why, TSG_WHY_MODEL_GPU);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_picks_sides),
        cmocka_unit_test(test_fresh_c_first_touch),
        cmocka_unit_test(test_threshold_lies_between),
        cmocka_unit_test(test_wave_quantisation),
        cmocka_unit_test(test_pair_kernels),
        cmocka_unit_test(test_measured_rates_v9),
        cmocka_unit_test(test_cpu_two_sizes),
        cmocka_unit_test(test_cpu_thin_calls),
        cmocka_unit_test(test_crossover_measured_v12),
        cmocka_unit_test(test_psgemm_panel_updates_stay_on_cpu),
        cmocka_unit_test(test_knob_overrides),
        cmocka_unit_test(test_pipeline_overlap),
        cmocka_unit_test(test_pipeline_choices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
