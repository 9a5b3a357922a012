/*
 * test_rates.c — the rates as untrusted input (src/tsg_rates.h) and a cost model that no value
 * can make trap (src/tsg_cost.c, src/tsg_plan.c, src/tsg_dispatch.c).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_dispatch.h"
#include "tsg_rates.h"

/* Rates of the H200 host as measured (docs/NOTES.md v0.20; CPU side 16 OpenBLAS threads), with
 * the transpose pairs' kernels of their own (TN, NT, TT; NT at half NN's rate and a square tile,
 * TT's tile the other way round, as 1xTF32's on the H200: docs/NOTES.md "twentieth session"). */
static tsg_rates good_rates(void)
{
    tsg_rates r;
    memset(&r, 0, sizeof r);
    r.h2d_bps = 50e9;
    r.d2h_bps = 47e9;
    r.gpu_flops = 51e12;
    r.gpu_latency_s = 40e-6;
    r.gpu_tile_m = 256;
    r.gpu_tile_n = 128;
    r.gpu_slots = 132;
    r.gpu_split_min_k = 256;
    r.gpu_device_bytes = 100e9;
    r.cpu_flops = 1.2e12;
    r.cpu_latency_s = 5e-6;
    r.cpu_mid_s = 0.6e-3;
    r.cpu_small_s = 0.15e-3;
    r.gpu_count = 1;
    r.gpu_pair_flops[0] = 50e12, r.gpu_pair_tile_m[0] = 256, r.gpu_pair_tile_n[0] = 128;
    r.gpu_pair_flops[1] = 25.5e12, r.gpu_pair_tile_m[1] = 128, r.gpu_pair_tile_n[1] = 128;
    r.gpu_pair_flops[2] = 49e12, r.gpu_pair_tile_m[2] = 128, r.gpu_pair_tile_n[2] = 256;
    return r;
}

static int same_gpu_fields(const tsg_rates *a, const tsg_rates *b)
{
    tsg_rates x = *a, y = *b;
    for (int i = 0; i < TSG_RATES_GPU_N; ++i)
        if (memcmp(tsg_rates_gpu_field(&x, i), tsg_rates_gpu_field(&y, i), sizeof(double))) return 0;
    return 1;
}

static void test_format_round_trip(void **state)
{
    (void)state;
    tsg_rates r = good_rates(), back;
    r.h2d_bps = 49876543210.123456; /* not a round number: %.17g must carry every bit */
    char text[TSG_RATES_FILE_MAX];
    int n = tsg_rates_format(&r, text, sizeof text);
    assert_true(n > 0 && (size_t)n == strlen(text));
    assert_memory_equal(text, TSG_RATES_HEADER "\n", strlen(TSG_RATES_HEADER) + 1);
    memset(&back, 0, sizeof back);
    const char *why = NULL;
    assert_int_equal(tsg_rates_parse(text, (size_t)n, &back, &why), 0);
    assert_true(same_gpu_fields(&r, &back));
    /* a buffer one byte short fails instead of writing a truncated file */
    assert_int_equal(tsg_rates_format(&r, text, (size_t)n), -1);
}

static void test_format_refuses_absurd(void **state)
{
    (void)state;
    char text[TSG_RATES_FILE_MAX];
    tsg_rates r = good_rates();
    r.gpu_tile_m = 1e19;
    assert_int_equal(tsg_rates_format(&r, text, sizeof text), -1);
    r = good_rates();
    r.gpu_flops = 0;
    assert_int_equal(tsg_rates_format(&r, text, sizeof text), -1);
    r = good_rates();
    r.h2d_bps = NAN;
    assert_int_equal(tsg_rates_format(&r, text, sizeof text), -1);
}

/* The text of a good file with field `field` replaced by value text `v` (NULL: the line left
 * out). */
static size_t file_with(char *out, size_t len, int field, const char *v)
{
    tsg_rates r = good_rates();
    size_t pos = (size_t)snprintf(out, len, "%s\n", TSG_RATES_HEADER);
    for (int i = 0; i < TSG_RATES_GPU_N; ++i) {
        if (i == field && !v) continue;
        if (i == field)
            pos += (size_t)snprintf(out + pos, len - pos, "%s %s\n", tsg_rates_gpu_bound(i)->name, v);
        else
            pos += (size_t)snprintf(out + pos, len - pos, "%s %.17g\n", tsg_rates_gpu_bound(i)->name,
                                    *tsg_rates_gpu_field(&r, i));
    }
    return pos;
}

static void expect_refused(const char *text, size_t len, const char *what)
{
    tsg_rates r = good_rates(), before = r;
    r.h2d_bps = 123.0; /* left untouched on refusal */
    before.h2d_bps = 123.0;
    const char *why = NULL;
    if (tsg_rates_parse(text, len, &r, &why) == 0) fail_msg("accepted: %s", what);
    assert_non_null(why);
    assert_true(same_gpu_fields(&r, &before));
}

static void test_parse_refuses_each_bad_value(void **state)
{
    (void)state;
    static const char *const bad[] = {"0", "-1", "-0", "+5", " 5", "5 ", "nan", "NaN", "inf",
                                      "1e19", "1e-300", "1e400", "0x1p70", "", "5x", "1,5",
                                      "1e308", "99999999999999999999999"};
    char text[TSG_RATES_FILE_MAX];
    for (int f = 0; f < TSG_RATES_GPU_N; ++f)
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
            const tsg_rate_bound *bd = tsg_rates_gpu_bound(f);
            /* a plain number within this field's bounds is legal (0 or 1e-300 s of latency; 0
             * for a pair's figure: not measured) */
            char *end;
            const double v = strtod(bad[b], &end);
            if (bad[b][0] >= '0' && bad[b][0] <= '9' && *end == '\0' && bad[b][1] != 'x' &&
                ((v >= bd->lo && v <= bd->hi && (!bd->whole || v == floor(v))) || (bd->zero && v == 0)))
                continue;
            char what[128];
            snprintf(what, sizeof what, "%s = \"%s\"", bd->name, bad[b]);
            expect_refused(text, file_with(text, sizeof text, f, bad[b]), what);
        }
    /* whole-number fields refuse fractions */
    expect_refused(text, file_with(text, sizeof text, 4, "128.5"), "gpu_tile_m 128.5");
    expect_refused(text, file_with(text, sizeof text, 6, "4097.25"), "gpu_slots 4097.25");
    expect_refused(text, file_with(text, sizeof text, 4, "4097"), "gpu_tile_m 4097");
    /* the pairs' fields: the bounds of NN's, 0 aside */
    assert_string_equal(tsg_rates_gpu_bound(12)->name, "gpu_nt_flops");
    expect_refused(text, file_with(text, sizeof text, 12, "5e8"), "gpu_nt_flops 5e8");
    expect_refused(text, file_with(text, sizeof text, 12, "nan"), "gpu_nt_flops nan");
    expect_refused(text, file_with(text, sizeof text, 16, "4097"), "gpu_tt_tile_m 4097");
    expect_refused(text, file_with(text, sizeof text, 11, "128.5"), "gpu_tn_tile_n 128.5");
}

static void test_parse_refuses_bad_files(void **state)
{
    (void)state;
    char text[TSG_RATES_FILE_MAX + 64];
    size_t n = file_with(text, sizeof text, -1, NULL);
    tsg_rates r = good_rates();
    const char *why = NULL;
    assert_int_equal(tsg_rates_parse(text, n, &r, &why), 0); /* the control: a good file */
    for (int f = 0; f < TSG_RATES_GPU_N; ++f) /* each field missing */
        expect_refused(text, file_with(text, sizeof text, f, NULL), "a field missing");
    n = file_with(text, sizeof text, -1, NULL);
    for (size_t cut = 0; cut < n; cut += 7) expect_refused(text, cut, "truncated");
    char other[2 * TSG_RATES_FILE_MAX];
    n = file_with(text, sizeof text, -1, NULL);
    snprintf(other, sizeof other, "tsgemm-gpu-rates 14\n%s", strchr(text, '\n') + 1);
    expect_refused(other, strlen(other), "another version");
    snprintf(other, sizeof other, "%sh2d_bps 5e10\n", text);
    expect_refused(other, strlen(other), "a field twice");
    snprintf(other, sizeof other, "%sevil 1\n", text);
    expect_refused(other, strlen(other), "an unknown field");
    snprintf(other, sizeof other, "%s\n", text);
    expect_refused(other, strlen(other), "an empty line");
    memcpy(other, text, n);
    other[5] = '\0';
    expect_refused(other, n, "a NUL byte");
    static char huge[TSG_RATES_FILE_MAX + 2];
    memset(huge, 'x', sizeof huge);
    expect_refused(huge, sizeof huge, "larger than the limit");
    expect_refused("", 0, "empty");
    n = file_with(text, sizeof text, -1, NULL);
    text[n - 2] = '\r'; /* CRLF-damaged last value */
    expect_refused(text, n, "a carriage return");
}

/* The transpose pairs' kernel figures (src/tsg_cost.h tsg_rates.gpu_pair_*) are one optional
 * group of the file: written and read back bit for bit where measured; a file without them (every
 * file before cache v17, as the committed FP32 rates of docs/results/run30-classes, which
 * unit.model_replays reads) parses with them 0; a file with part of the group, one of them twice
 * or out of its bounds is refused whole. */
static void test_pair_group(void **state)
{
    (void)state;
    char text[TSG_RATES_FILE_MAX], other[TSG_RATES_FILE_MAX];
    const char *why = NULL;
    /* measured: all 18 lines, every bit back (values that are not round numbers) */
    tsg_rates r = good_rates(), back;
    r.gpu_pair_flops[1] = 157.12345678901234e12;
    r.gpu_pair_flops[2] = 372.98765432109876e12;
    int n = tsg_rates_format(&r, text, sizeof text);
    assert_true(n > 0);
    assert_non_null(strstr(text, "\ngpu_tn_flops 50000000000000\ngpu_tn_tile_m 256\ngpu_tn_tile_n 128\n"));
    assert_non_null(strstr(text, "\ngpu_tt_tile_n 256\n"));
    memset(&back, 0, sizeof back);
    assert_int_equal(tsg_rates_parse(text, (size_t)n, &back, &why), 0);
    assert_true(same_gpu_fields(&r, &back));
    assert_memory_equal(back.gpu_pair_flops, r.gpu_pair_flops, sizeof r.gpu_pair_flops);
    /* one pair measured, the others 0: the group is written whole, 0s included, and read back */
    tsg_rates one = good_rates();
    memset(one.gpu_pair_flops, 0, sizeof one.gpu_pair_flops);
    memset(one.gpu_pair_tile_m, 0, sizeof one.gpu_pair_tile_m);
    memset(one.gpu_pair_tile_n, 0, sizeof one.gpu_pair_tile_n);
    one.gpu_pair_flops[1] = 20e12;
    n = tsg_rates_format(&one, other, sizeof other);
    assert_true(n > 0);
    assert_non_null(strstr(other, "\ngpu_tn_flops 0\n"));
    assert_non_null(strstr(other, "\ngpu_nt_flops 20000000000000\n"));
    back = good_rates();
    assert_int_equal(tsg_rates_parse(other, (size_t)n, &back, &why), 0);
    assert_true(same_gpu_fields(&one, &back));
    /* not measured: the file is the nine lines it always was, and reads back with the pairs 0
     * (a target that held pairs' figures before included) */
    tsg_rates none = good_rates();
    memset(none.gpu_pair_flops, 0, sizeof none.gpu_pair_flops);
    memset(none.gpu_pair_tile_m, 0, sizeof none.gpu_pair_tile_m);
    memset(none.gpu_pair_tile_n, 0, sizeof none.gpu_pair_tile_n);
    n = tsg_rates_format(&none, other, sizeof other);
    assert_true(n > 0);
    assert_null(strstr(other, "gpu_tn_"));
    int lines = 0;
    for (const char *c = other; *c; ++c) lines += *c == '\n';
    assert_int_equal(lines, 1 + TSG_RATES_GPU_REQUIRED);
    back = good_rates();
    assert_int_equal(tsg_rates_parse(other, (size_t)n, &back, &why), 0);
    assert_true(same_gpu_fields(&none, &back));
    /* the committed file of run 30 (H100, FP32), as written then */
    static const char run30[] = TSG_RATES_HEADER "\nh2d_bps 54694535371.044518\nd2h_bps 58253025473.347679\n"
                                "gpu_flops 48286073341765.445\ngpu_latency_s 9.6883326367657509e-05\n"
                                "gpu_tile_m 128\ngpu_tile_n 128\ngpu_slots 132\ngpu_split_min_k 256\n"
                                "gpu_device_bytes 21254373376\n";
    back = good_rates();
    assert_int_equal(tsg_rates_parse(run30, sizeof run30 - 1, &back, &why), 0);
    assert_true(back.gpu_flops == 48286073341765.445 && back.gpu_device_bytes == 21254373376.0);
    for (int i = 0; i < 3; ++i)
        assert_true(back.gpu_pair_flops[i] == 0 && back.gpu_pair_tile_m[i] == 0 &&
                    back.gpu_pair_tile_n[i] == 0);
    /* part of the group: the nine lines and NT's three alone; the whole group less TT's tile */
    snprintf(other, sizeof other, "%sgpu_nt_flops 2e13\ngpu_nt_tile_m 128\ngpu_nt_tile_n 128\n", run30);
    expect_refused(other, strlen(other), "NT's figures alone");
    assert_int_equal(tsg_rates_parse(other, strlen(other), &back, &why), -1);
    assert_non_null(strstr(why, "part of the optional group"));
    n = tsg_rates_format(&r, text, sizeof text);
    assert_true(n > 0);
    char *tt = strstr(text, "gpu_tt_tile_n ");
    assert_non_null(tt);
    *tt = '\0'; /* the last line */
    expect_refused(text, strlen(text), "the group less gpu_tt_tile_n");
    /* a pair's line twice, an unknown pair */
    n = tsg_rates_format(&r, text, sizeof text);
    snprintf(other, sizeof other, "%sgpu_nt_flops 2e13\n", text);
    expect_refused(other, strlen(other), "gpu_nt_flops twice");
    snprintf(other, sizeof other, "%sgpu_nn_flops 2e13\n", run30);
    expect_refused(other, strlen(other), "gpu_nn_flops");
    /* out of bounds in the struct: the check names the field, nothing is written */
    tsg_rates bad = good_rates();
    bad.gpu_pair_flops[1] = NAN;
    assert_int_equal(tsg_rates_gpu_check(&bad, 1), 12);
    assert_int_equal(tsg_rates_gpu_check(&bad, 0), 12);
    assert_int_equal(tsg_rates_format(&bad, text, sizeof text), -1);
    bad = good_rates();
    bad.gpu_pair_tile_n[2] = 1e19;
    assert_int_equal(tsg_rates_gpu_check(&bad, 1), 17);
    assert_int_equal(tsg_rates_format(&bad, text, sizeof text), -1);
    bad = good_rates();
    bad.gpu_pair_flops[0] = 5e8; /* not 0, under 1 GFLOP/s */
    assert_int_equal(tsg_rates_gpu_check(&bad, 1), 9);
}

/* Every GPU field at every absurd value, on shapes whose plans have many blocks, split-K and
 * several devices, in every transpose pair: no trap (SIGFPE, or UBSan's float-cast-overflow in
 * the sanitizer build), the GPU estimate infinite (never chosen), the decision on the CPU. */
static void test_cost_model_never_traps(void **state)
{
    (void)state;
    static const double bad[] = {0.0, -1.0, 1e-300, 1e19, 1e300, INFINITY, -INFINITY, NAN, 0.5};
    static const int64_t shapes[][3] = {{2048, 2048, 2048}, {8192, 8192, 8192}, {65536, 64, 4096},
                                        {512, 512, 65536}, {300, 300, 300}, {1, 1 << 20, 64}};
    const tsg_policy auto_mode = {TSG_MODE_AUTO, 0};
    for (int f = 0; f < TSG_RATES_GPU_N; ++f)
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
                for (int dev = 1; dev <= 2; ++dev) {
                    tsg_rates r = good_rates();
                    r.gpu_count = dev;
                    double *field = tsg_rates_gpu_field(&r, f);
                    *field = bad[b];
                    const tsg_rate_bound *bd = tsg_rates_gpu_bound(f);
                    /* gpu_device_bytes 0 means "no budget known" (src/tsg_cost.h), a pair's
                     * figure 0 "not measured" */
                    const int legal = (bad[b] >= bd->lo && bad[b] <= bd->hi &&
                                       (!bd->whole || bad[b] == floor(bad[b]))) ||
                                      ((f == 8 || bd->zero) && bad[b] == 0.0);
                    /* each shape with one transpose pair (s % 4), so the pairs' figures are read */
                    const int ta = s & 1, tb = (s >> 1) & 1;
                    tsg_problem p = {ta ? 'T' : 'N', tb ? 'T' : 'N', shapes[s][0], shapes[s][1], shapes[s][2],
                                     1.0f, 0.0f, NULL, ta ? shapes[s][2] : shapes[s][0], NULL,
                                     tb ? shapes[s][1] : shapes[s][2], NULL, shapes[s][0],
                                     TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
                    const double g = tsg_estimate_gpu_s(&p, &r), gs = tsg_estimate_gpus_s(&p, &r);
                    tsg_why why;
                    const int gpu = tsg_wants_gpu(&p, &auto_mode, 1, &r, &why);
                    if (legal) {
                        assert_true(g > 0 && isfinite(g));
                        continue;
                    }
                    if (!(isinf(g) && g > 0 && isinf(gs) && gs > 0))
                        fail_msg("%s = %g on %lldx%lldx%lld: GPU estimate %g / %g", bd->name, bad[b],
                                 (long long)p.m, (long long)p.n, (long long)p.k, g, gs);
                    assert_int_equal(gpu, 0);
                    assert_int_equal(why, TSG_WHY_MODEL_CPU);
                }
}

/* The CPU side's divisors too: a broken CPU measurement sends nothing anywhere odd. */
static void test_cpu_rates_checked(void **state)
{
    (void)state;
    static const double bad[] = {0.0, -1.0, INFINITY, NAN, 1e300};
    const tsg_policy auto_mode = {TSG_MODE_AUTO, 0};
    tsg_problem p = {'N', 'N', 4096, 4096, 4096, 1.0f, 0.0f, NULL, 4096, NULL, 4096, NULL, 4096,
                     TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
        tsg_rates r = good_rates();
        r.cpu_flops = bad[b];
        assert_false(tsg_rates_usable(&r));
        assert_true(isinf(tsg_estimate_cpu_s(&p, &r)));
        tsg_why why;
        assert_int_equal(tsg_wants_gpu(&p, &auto_mode, 1, &r, &why), 0);
        r = good_rates();
        r.cpu_mid_s = bad[b];
        if (bad[b] == 0.0) continue; /* 0 = not measured: legal */
        assert_false(tsg_rates_usable(&r));
    }
    tsg_rates r = good_rates();
    assert_true(tsg_rates_usable(&r));
    tsg_why why;
    assert_int_equal(tsg_wants_gpu(&p, &auto_mode, 1, &r, &why), 1); /* the control */
    /* no shape information (all three 0) is legal for callers without tiles */
    r.gpu_tile_m = r.gpu_tile_n = r.gpu_slots = 0;
    assert_true(tsg_rates_gpu_check(&r, 0) < 0);
    assert_true(tsg_rates_gpu_check(&r, 1) >= 0);
    assert_true(isfinite(tsg_estimate_gpu_s(&p, &r)));
}

/* The plan itself with limits no caller should pass: no division by zero. */
static void test_plan_zero_limits(void **state)
{
    (void)state;
    tsg_problem p = {'N', 'T', 4096, 4096, 4096, 1.0f, 0.0f, NULL, 4096, NULL, 4096, NULL, 4096,
                     TSG_HOST, TSG_HOST, TSG_HOST, 0, 0, 0};
    tsg_plan_limits lim = {1e12, 0, 0, 132, 256, 0, 0, 0};
    tsg_plan pl;
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
    assert_true(pl.splits >= 1 && pl.kc >= 8 && pl.bm >= 1 && pl.bn >= 1);
    lim.slots = 0;
    assert_int_equal(tsg_plan_make(&p, &lim, &pl), 0);
}

/* The CPU BLAS's file (tsg_cpu_rates): round trip bit for bit, every bound refused, the merge keeps
 * the best of each field and counts the samples, a "not measured" 0 yields to a measured time
 * (thin times too). */
static tsg_cpu_rates good_cpu(void)
{
    const tsg_cpu_rates c = {1.1234567890123e12, 0.61e-3, 0.152e-3, 4.9e-6, 3.67e9, 1, 2.75e-3, 3.1e-3};
    return c;
}

static void test_cpu_format_round_trip(void **state)
{
    (void)state;
    const tsg_cpu_rates c = good_cpu();
    char text[TSG_RATES_FILE_MAX];
    const int n = tsg_cpu_rates_format(&c, text, sizeof text);
    assert_true(n > 0 && (size_t)n == strlen(text));
    assert_memory_equal(text, TSG_CPU_RATES_HEADER "\n", strlen(TSG_CPU_RATES_HEADER) + 1);
    tsg_cpu_rates back = {0};
    const char *why = NULL;
    assert_int_equal(tsg_cpu_rates_parse(text, (size_t)n, &back, &why), 0);
    assert_memory_equal(&back, &c, sizeof c);
    /* a GPU file is not a CPU file, and the other way round */
    tsg_rates r = good_rates();
    char gtext[TSG_RATES_FILE_MAX];
    const int gn = tsg_rates_format(&r, gtext, sizeof gtext);
    assert_true(gn > 0);
    assert_int_equal(tsg_cpu_rates_parse(gtext, (size_t)gn, &back, &why), -1);
    assert_int_equal(tsg_rates_parse(text, (size_t)n, &r, &why), -1);
}

static void test_cpu_bounds(void **state)
{
    (void)state;
    const double bad[][2] = {{0, 0.5e6},  {0, 2e16},  {0, NAN}, {1, -1e-3}, {1, 101},  {2, INFINITY},
                             {3, -1e-9}, {4, 5e5}, {4, 2e13}, {5, 0},     {5, 1.5}, {5, 2e6},
                             {6, -1e-3}, {6, 101}, {7, NAN}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        tsg_cpu_rates c = good_cpu();
        double *f[] = {&c.flops, &c.mid_s, &c.small_s, &c.latency_s, &c.touch_bps, &c.samples, &c.thin_m_s, &c.thin_n_s};
        *f[(int)bad[i][0]] = bad[i][1];
        assert_int_equal(tsg_cpu_rates_check(&c), (int)bad[i][0]);
        char text[TSG_RATES_FILE_MAX];
        assert_int_equal(tsg_cpu_rates_format(&c, text, sizeof text), -1);
    }
    /* the same values as text: refused whole, the target untouched */
    const char *texts[] = {TSG_CPU_RATES_HEADER "\ncpu_flops 1e20\ncpu_mid_s 0\ncpu_small_s 0\n"
                                                "cpu_latency_s 0\ncpu_touch_bps 0\nsamples 1\ncpu_thin_m_s 0\ncpu_thin_n_s 0\n",
                           TSG_CPU_RATES_HEADER "\ncpu_flops 1e12\ncpu_mid_s 0\ncpu_small_s 0\n"
                                                "cpu_latency_s 0\ncpu_touch_bps 5\nsamples 1\ncpu_thin_m_s 0\ncpu_thin_n_s 0\n",
                           TSG_CPU_RATES_HEADER "\ncpu_flops 1e12\ncpu_mid_s 0\ncpu_small_s 0\n"
                                                "cpu_latency_s 0\ncpu_touch_bps 0\n"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; ++i) {
        tsg_cpu_rates c = good_cpu(), before = c;
        const char *why = NULL;
        assert_int_equal(tsg_cpu_rates_parse(texts[i], strlen(texts[i]), &c, &why), -1);
        assert_non_null(why);
        assert_memory_equal(&c, &before, sizeof c);
    }
}

static void test_cpu_merge_keeps_the_best(void **state)
{
    (void)state;
    tsg_cpu_rates best = {1.0e12, 0.6e-3, 0, 5e-6, 3e9, 1, 3e-3, 0};
    const tsg_cpu_rates busy = {0.4e12, 1.5e-3, 0.3e-3, 9e-6, 1e9, 1, 6e-3, 7e-3}; /* measured under load */
    tsg_cpu_rates_merge(&best, &busy);
    const tsg_cpu_rates want = {1.0e12, 0.6e-3, 0.3e-3, 5e-6, 3e9, 2, 3e-3, 7e-3};
    assert_memory_equal(&best, &want, sizeof want);
    const tsg_cpu_rates quick = {1.3e12, 0.5e-3, 0.2e-3, 4e-6, 4e9, 1, 2e-3, 2e-3};
    tsg_cpu_rates_merge(&best, &quick);
    const tsg_cpu_rates want2 = {1.3e12, 0.5e-3, 0.2e-3, 4e-6, 4e9, 3, 2e-3, 2e-3};
    assert_memory_equal(&best, &want2, sizeof want2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_format_refuses_absurd),
        cmocka_unit_test(test_parse_refuses_each_bad_value),
        cmocka_unit_test(test_parse_refuses_bad_files),
        cmocka_unit_test(test_pair_group),
        cmocka_unit_test(test_cost_model_never_traps),
        cmocka_unit_test(test_cpu_rates_checked),
        cmocka_unit_test(test_plan_zero_limits),
        cmocka_unit_test(test_cpu_format_round_trip),
        cmocka_unit_test(test_cpu_bounds),
        cmocka_unit_test(test_cpu_merge_keeps_the_best),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
