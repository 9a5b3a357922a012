/*
 * test_config.c — src/tsg_config.c: every knob's default, accepted values, and that a bad value
 * keeps the default with one warning line (never a crash, never a silent change); the node-local
 * MPI rank from each launcher's variable, their precedence, and the device it picks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_config.h"

/* An environment as a NULL-terminated list of "NAME=value" strings. */
static const char *lookup(const char *name, void *ctx)
{
    size_t len = strlen(name);
    for (const char **e = ctx; *e; ++e)
        if (!strncmp(*e, name, len) && (*e)[len] == '=') return *e + len + 1;
    return NULL;
}

/* This machine's memory as the tests tell it (tsg_config_parse's phys_bytes): 8 GiB. */
#define PHYS ((uint64_t)8 << 30)

static tsg_config parse_phys(const char **env, uint64_t phys)
{
    tsg_config c;
    tsg_config_parse(&c, lookup, env, phys);
    return c;
}

static tsg_config parse(const char **env) { return parse_phys(env, PHYS); }

static void test_defaults(void **state)
{
    (void)state;
    const char *env[] = {NULL};
    tsg_config c = parse(env);
    assert_int_equal(c.policy.mode, TSG_MODE_AUTO);
    assert_int_equal(c.log_level, 1);
    assert_int_equal(c.device, 0);
    assert_int_equal(c.device_set, 0);
    assert_int_equal(c.local_rank, -1);
    assert_string_equal(c.local_rank_var, "");
    assert_true(c.policy.threshold == 0);
    assert_string_equal(c.cpu_blas, "");
    assert_string_equal(c.cache_dir, "");
    assert_int_equal(c.math, TSG_MATH_FP32);
    assert_int_equal(c.nwarn, 0);
}

static void test_good_values(void **state)
{
    (void)state;
    const char *env[] = {"TSGEMM_MODE=GPU", "TSGEMM_LOG=3", "TSGEMM_DEVICE=2",
                         "TSGEMM_GPU_THRESHOLD=512", "TSGEMM_CPU_BLAS=/opt/blas/libblas.so.3",
                         "HOME=/home/u", NULL};
    tsg_config c = parse(env);
    assert_int_equal(c.policy.mode, TSG_MODE_GPU);
    assert_int_equal(c.log_level, 3);
    assert_int_equal(c.device, 2);
    assert_int_equal(c.device_set, 1);
    assert_true(c.policy.threshold == 512);
    assert_string_equal(c.cpu_blas, "/opt/blas/libblas.so.3");
    assert_string_equal(c.cache_dir, "/home/u/.cache/tsgemm");
    assert_int_equal(c.nwarn, 0);
    assert_string_equal(tsg_mode_name(c.policy.mode), "gpu");
}

static void test_cache_dir_precedence(void **state)
{
    (void)state;
    const char *a[] = {"HOME=/h", "XDG_CACHE_HOME=/x", NULL};
    assert_string_equal(parse(a).cache_dir, "/x/tsgemm");
    const char *b[] = {"HOME=/h", "XDG_CACHE_HOME=relative", NULL}; /* XDG: relative ignored */
    assert_string_equal(parse(b).cache_dir, "/h/.cache/tsgemm");
    const char *c[] = {"HOME=/h", "XDG_CACHE_HOME=/x", "TSGEMM_CACHE_DIR=/t", NULL};
    assert_string_equal(parse(c).cache_dir, "/t");
}

static void test_bad_values_warn_and_keep_defaults(void **state)
{
    (void)state;
    const char *env[] = {"TSGEMM_MODE=fast", "TSGEMM_LOG=9", "TSGEMM_DEVICE=-1",
                         "TSGEMM_GPU_THRESHOLD=big", NULL};
    tsg_config c = parse(env);
    assert_int_equal(c.policy.mode, TSG_MODE_AUTO);
    assert_int_equal(c.log_level, 1);
    assert_int_equal(c.device, 0);
    assert_int_equal(c.device_set, 0); /* a bad ordinal does not count as set */
    assert_true(c.policy.threshold == 0);
    assert_int_equal(c.nwarn, 4);
    assert_non_null(strstr(c.warn[0], "TSGEMM_LOG=\"9\""));
    assert_non_null(strstr(c.warn[1], "TSGEMM_MODE=\"fast\""));
    assert_non_null(strstr(c.warn[2], "TSGEMM_DEVICE"));
    assert_non_null(strstr(c.warn[3], "TSGEMM_GPU_THRESHOLD"));
    const char *more[] = {"TSGEMM_LOG=1x", "TSGEMM_DEVICE=0.5", "TSGEMM_GPU_THRESHOLD=-3",
                          "TSGEMM_GPU_THRESHOLD=nan", NULL};
    c = parse(more);
    assert_int_equal(c.nwarn, 3); /* the lookup returns the first THRESHOLD only */
    const char *empty[] = {"TSGEMM_MODE=", "TSGEMM_LOG=", NULL}; /* empty = unset */
    c = parse(empty);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(c.log_level, 1);
}

/* TSGEMM_MATH: the three names in any case; anything else one warning naming the value and fp32
 * (issue 36). The enum's values are the public API's (include/tsgemm.h) and the tensor-core
 * family's (kernels/tf32/tsg_kernel_tf32.h): 0, 1, 2. */
static void test_math_knob(void **state)
{
    (void)state;
    assert_int_equal(TSG_MATH_FP32, 0);
    assert_int_equal(TSG_MATH_3XTF32, 1);
    assert_int_equal(TSG_MATH_TF32, 2);
    static const struct { const char *v; int math; } good[] = {
        {"fp32", TSG_MATH_FP32},   {"FP32", TSG_MATH_FP32},     {"3xtf32", TSG_MATH_3XTF32},
        {"3xTF32", TSG_MATH_3XTF32}, {"3XTF32", TSG_MATH_3XTF32}, {"tf32", TSG_MATH_TF32},
        {"TF32", TSG_MATH_TF32},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; ++i) {
        char var[64];
        snprintf(var, sizeof var, "TSGEMM_MATH=%s", good[i].v);
        const char *env[] = {var, NULL};
        tsg_config c = parse(env);
        assert_int_equal(c.math, good[i].math);
        assert_int_equal(c.nwarn, 0);
        assert_int_equal(tsg_math_parse(good[i].v), good[i].math);
    }
    static const char *const bad[] = {"fp16", "tf32x3", "3xtf32 ", " tf32", "1", "0", "fp",
                                      "3x", "xtf32", "bf16", "tf32\n", "fp32,tf32", "auto"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char var[64];
        snprintf(var, sizeof var, "TSGEMM_MATH=%s", bad[i]);
        const char *env[] = {var, "TSGEMM_LOG=2", NULL};
        tsg_config c = parse(env);
        assert_int_equal(c.math, TSG_MATH_FP32);
        assert_int_equal(c.log_level, 2); /* the other knobs are read as before */
        assert_int_equal(c.nwarn, 1);
        char want[64];
        snprintf(want, sizeof want, "TSGEMM_MATH=\"%s\"", bad[i]);
        assert_non_null(strstr(c.warn[0], want));
        assert_non_null(strstr(c.warn[0], "using fp32"));
        assert_int_equal(tsg_math_parse(bad[i]), -1);
    }
    const char *empty[] = {"TSGEMM_MATH=", NULL}; /* empty = unset: no warning */
    tsg_config c = parse(empty);
    assert_int_equal(c.math, TSG_MATH_FP32);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(tsg_math_parse(NULL), -1);
    assert_string_equal(tsg_math_name(TSG_MATH_FP32), "fp32");
    assert_string_equal(tsg_math_name(TSG_MATH_3XTF32), "3xtf32");
    assert_string_equal(tsg_math_name(TSG_MATH_TF32), "tf32");
    assert_string_equal(tsg_math_name(3), "fp32");
    assert_string_equal(tsg_math_name(-1), "fp32");
}

/* tsg_parse_uint, the one parser of every knob's numbers: shapes, units, overflow and max. */
static void test_parse_uint_table(void **state)
{
    (void)state;
    const uint64_t K = 1024, M = K * K, G = M * K, T = G * K, ANY = UINT64_MAX;
    const struct {
        const char *s;
        unsigned flags;
        uint64_t max;
        int want;       /* TSG_PARSE_OK, _SYNTAX or _RANGE */
        uint64_t value; /* when TSG_PARSE_OK */
    } t[] = {
        /* good */
        {"0", 0, ANY, TSG_PARSE_OK, 0},
        {"7", 0, ANY, TSG_PARSE_OK, 7},
        {"10", 0, ANY, TSG_PARSE_OK, 10},
        {"1023", 0, 1023, TSG_PARSE_OK, 1023},
        {"18446744073709551615", 0, ANY, TSG_PARSE_OK, UINT64_MAX},
        {"512", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, 512},
        {"1K", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, K},
        {"1k", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, K},
        {"64KiB", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, 64 * K},
        {"16MB", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, 16 * M},
        {"24M", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, 24 * M},
        {"1g", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, G},
        {"3GiB", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, 3 * G},
        {"2T", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, 2 * T},
        {"2tB", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, 2 * T},
        {"0K", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, 0},
        {"16777215T", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_OK, 16777215 * T}, /* 2^64 - 2^40 */
        {"4G", TSG_PARSE_SUFFIX, 4 * G, TSG_PARSE_OK, 4 * G},            /* max itself */
        /* the bad examples (issue 34, finding 7) */
        {"1e308G", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"99999999999999999999999G", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_RANGE, 0},
        {"0x1p70", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"-0", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {" 5", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"5 ", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"+1", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"01", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        /* more bad shapes */
        {"-1", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"00", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"010", 0, ANY, TSG_PARSE_SYNTAX, 0}, /* strtol base 0: octal 8 */
        {"08", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"0x10", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"1e3", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"1.5", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"1.0", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {".5", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"inf", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"nan", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"\t5", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"5\n", 0, ANY, TSG_PARSE_SYNTAX, 0},
        {"1 K", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"1K ", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"K", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"1KK", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"1KBB", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"1Ki", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"1Kib", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"1B", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0}, /* "B" only after a unit */
        {"1P", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_SYNTAX, 0},
        {"1K", 0, ANY, TSG_PARSE_SYNTAX, 0}, /* integer-only: no suffix */
        {"99999999999999999999999x", 0, ANY, TSG_PARSE_SYNTAX, 0}, /* a bad tail wins */
        /* range: overflow in the digits, in the scaling, above max */
        {"18446744073709551616", 0, ANY, TSG_PARSE_RANGE, 0},
        {"16777216T", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_RANGE, 0}, /* 2^64 */
        {"17179869184G", TSG_PARSE_SUFFIX, ANY, TSG_PARSE_RANGE, 0}, /* 2^64 */
        {"4", 0, 3, TSG_PARSE_RANGE, 0},
        {"4294967297", TSG_PARSE_SUFFIX, 4 * G, TSG_PARSE_RANGE, 0},
        {"5G", TSG_PARSE_SUFFIX, 4 * G, TSG_PARSE_RANGE, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
        uint64_t v = 12345;
        const int st = tsg_parse_uint(t[i].s, t[i].flags, t[i].max, &v);
        if (st != t[i].want)
            fail_msg("\"%s\" (flags %u): %d, want %d", t[i].s, t[i].flags, st, t[i].want);
        if (st == TSG_PARSE_OK && v != t[i].value)
            fail_msg("\"%s\": %llu, want %llu", t[i].s, (unsigned long long)v,
                     (unsigned long long)t[i].value);
        if (st != TSG_PARSE_OK && v != 12345) fail_msg("\"%s\": *out written on failure", t[i].s);
    }
}

/* Every numeric user knob refuses the bad shapes with one warning and keeps its default. */
static void test_knobs_strict(void **state)
{
    (void)state;
    static const char *const knobs[] = {"TSGEMM_LOG", "TSGEMM_GPU_THRESHOLD", "TSGEMM_DEVICE",
                                        "TSGEMM_COPY_THREADS", "TSGEMM_DEVICE_MEMORY",
                                        "TSGEMM_PINNED_MEMORY"};
    static const char *const bad[] = {"1e308G", "99999999999999999999999G", "0x1p70", "-0", " 1",
                                      "1 ",     "+1",   "01",   "1.0", "1e0", "0x1", "2e9", "one"};
    for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; ++k)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
            char var[96];
            snprintf(var, sizeof var, "%s=%s", knobs[k], bad[i]);
            const char *env[] = {var, NULL};
            tsg_config c = parse(env);
            if (c.nwarn != 1) fail_msg("%s: %d warnings", var, c.nwarn);
            assert_non_null(strstr(c.warn[0], knobs[k]));
            assert_int_equal(c.log_level, 1);
            assert_true(c.policy.threshold == 0);
            assert_int_equal(c.device_set, 0);
            assert_int_equal(c.ndevices, 0);
            assert_int_equal(c.copy_threads, 0);
            assert_true(c.device_memory == 0);
            assert_true(c.pinned_memory == 0);
        }
    /* good values of each, and the range ends */
    const char *good[] = {"TSGEMM_LOG=0", "TSGEMM_GPU_THRESHOLD=0", "TSGEMM_DEVICE=1023",
                          "TSGEMM_COPY_THREADS=256", "TSGEMM_DEVICE_MEMORY=1M",
                          "TSGEMM_PINNED_MEMORY=512KiB", NULL};
    tsg_config c = parse(good);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(c.log_level, 0);
    assert_int_equal(c.device, 1023);
    assert_int_equal(c.copy_threads, 256);
    assert_true(c.device_memory == 1 << 20);
    assert_true(c.pinned_memory == 512 << 10);
    const char *thr[] = {"TSGEMM_GPU_THRESHOLD=18446744073709551615", NULL};
    c = parse(thr);
    assert_int_equal(c.nwarn, 0);
    assert_true(c.policy.threshold == 18446744073709551615.0);
    const char *out_of_range[] = {"TSGEMM_LOG=4", "TSGEMM_COPY_THREADS=0", "TSGEMM_DEVICE=1024",
                                  "TSGEMM_DEVICE_MEMORY=1023K", "TSGEMM_PINNED_MEMORY=511K",
                                  "TSGEMM_GPU_THRESHOLD=512.5", NULL};
    c = parse(out_of_range);
    assert_int_equal(c.nwarn, 6);
    assert_int_equal(c.log_level, 1);
    assert_int_equal(c.copy_threads, 0);
    assert_int_equal(c.device_set, 0);
    assert_true(c.device_memory == 0 && c.pinned_memory == 0 && c.policy.threshold == 0);
    const char *threads0[] = {"TSGEMM_COPY_THREADS=00", NULL};
    assert_int_equal(parse(threads0).nwarn, 1);
    /* the local-rank variables (not ours: no warning) take the same digits only */
    static const char *const rank_bad[] = {"+1", "01", " 1", "1 ", "0x1", "1e0", "-0"};
    for (size_t i = 0; i < sizeof rank_bad / sizeof rank_bad[0]; ++i) {
        char var[64];
        snprintf(var, sizeof var, "OMPI_COMM_WORLD_LOCAL_RANK=%s", rank_bad[i]);
        const char *env[] = {var, "SLURM_LOCALID=2", NULL};
        c = parse(env);
        assert_int_equal(c.nwarn, 0);
        assert_int_equal(c.local_rank, 2);
        assert_string_equal(c.local_rank_var, "SLURM_LOCALID");
    }
}

/* The memory caps: pinned staging at most half of physical memory (when known), device memory
 * at most 16T; over a cap the warning says so and the default is kept. */
static void test_memory_caps(void **state)
{
    (void)state;
    const char *half[] = {"TSGEMM_PINNED_MEMORY=4G", NULL}; /* PHYS / 2 */
    tsg_config c = parse(half);
    assert_int_equal(c.nwarn, 0);
    assert_true(c.pinned_memory == 4.0 * (1 << 30));
    const char *over[] = {"TSGEMM_PINNED_MEMORY=4294967297", NULL}; /* PHYS / 2 + 1 */
    c = parse(over);
    assert_int_equal(c.nwarn, 1);
    assert_true(c.pinned_memory == 0);
    assert_non_null(strstr(c.warn[0], "TSGEMM_PINNED_MEMORY=\"4294967297\""));
    assert_non_null(strstr(c.warn[0], "more than half of this machine's memory (8192 MiB)"));
    assert_non_null(strstr(c.warn[0], "using the default"));
    const char *huge[] = {"TSGEMM_PINNED_MEMORY=1T", NULL};
    c = parse(huge);
    assert_int_equal(c.nwarn, 1);
    assert_non_null(strstr(c.warn[0], "more than half"));
    c = parse_phys(huge, 0); /* memory unknown: no cap but the parser's own */
    assert_int_equal(c.nwarn, 0);
    assert_true(c.pinned_memory == 1099511627776.0);
    const char *odd[] = {"TSGEMM_PINNED_MEMORY=3M", NULL}; /* an odd machine: 6 MiB + 1 byte */
    assert_int_equal(parse_phys(odd, (6u << 20) + 1).nwarn, 0);
    assert_int_equal(parse_phys(odd, (6u << 20) - 1).nwarn, 1);

    const char *dev16[] = {"TSGEMM_DEVICE_MEMORY=16T", NULL};
    c = parse(dev16);
    assert_int_equal(c.nwarn, 0);
    assert_true(c.device_memory == (double)TSG_DEVICE_MEMORY_MAX);
    const char *dev17[] = {"TSGEMM_DEVICE_MEMORY=17T", NULL};
    c = parse_phys(dev17, 0); /* not bound by RAM: an absolute ceiling */
    assert_int_equal(c.nwarn, 1);
    assert_true(c.device_memory == 0);
    assert_non_null(strstr(c.warn[0], "more than 16T"));
    const char *dev_big[] = {"TSGEMM_DEVICE_MEMORY=99999999999999999999999G", NULL};
    c = parse(dev_big);
    assert_int_equal(c.nwarn, 1);
    assert_non_null(strstr(c.warn[0], "more than 16T"));
    const char *dev_ram[] = {"TSGEMM_DEVICE_MEMORY=141G", NULL}; /* more than RAM: fine */
    assert_int_equal(parse(dev_ram).nwarn, 0);
}

/* Each launcher's variable alone gives the local rank and names itself. */
static void test_local_rank_each_launcher(void **state)
{
    (void)state;
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK",
                                       "MPI_LOCALRANKID",            "PALS_LOCAL_RANKID",
                                       "FLUX_TASK_LOCAL_ID",         "SLURM_LOCALID"};
    for (int i = 0; i < 6; ++i) {
        char def[64];
        snprintf(def, sizeof def, "%s=%d", vars[i], 3 + i);
        const char *env[] = {def, NULL};
        tsg_config c = parse(env);
        assert_int_equal(c.local_rank, 3 + i);
        assert_string_equal(c.local_rank_var, vars[i]);
        assert_int_equal(c.nwarn, 0); /* not our knobs: never a warning */
    }
}

/* Innermost launcher first: mpirun inside Slurm/Flux leaves the scheduler's (daemon's) variable
 * in every rank; Flux inside Slurm likewise. */
static void test_local_rank_precedence(void **state)
{
    (void)state;
    const char *ompi_in_slurm[] = {"SLURM_LOCALID=0", "OMPI_COMM_WORLD_LOCAL_RANK=5", NULL};
    tsg_config c = parse(ompi_in_slurm);
    assert_int_equal(c.local_rank, 5);
    assert_string_equal(c.local_rank_var, "OMPI_COMM_WORLD_LOCAL_RANK");
    const char *hydra_in_flux[] = {"FLUX_TASK_LOCAL_ID=0", "MPI_LOCALRANKID=2", NULL};
    c = parse(hydra_in_flux);
    assert_int_equal(c.local_rank, 2);
    assert_string_equal(c.local_rank_var, "MPI_LOCALRANKID");
    const char *flux_in_slurm[] = {"SLURM_LOCALID=0", "FLUX_TASK_LOCAL_ID=7", NULL};
    c = parse(flux_in_slurm);
    assert_int_equal(c.local_rank, 7);
    const char *mv2_and_hydra[] = {"MPI_LOCALRANKID=1", "MV2_COMM_WORLD_LOCAL_RANK=4", NULL};
    assert_int_equal(parse(mv2_and_hydra).local_rank, 4);
    /* a value that is not a whole number >= 0 is skipped, the next variable counts */
    const char *bad[] = {"OMPI_COMM_WORLD_LOCAL_RANK=x1", "MPI_LOCALRANKID=-1",
                         "PALS_LOCAL_RANKID=", "SLURM_LOCALID=6", NULL};
    c = parse(bad);
    assert_int_equal(c.local_rank, 6);
    assert_string_equal(c.local_rank_var, "SLURM_LOCALID");
    assert_int_equal(c.nwarn, 0);
    const char *none_valid[] = {"OMPI_COMM_WORLD_LOCAL_RANK=1.5", NULL};
    assert_int_equal(parse(none_valid).local_rank, -1);
}

/* The device: TSGEMM_DEVICE wins; else local rank modulo the visible GPUs; else 0. */
static void test_device_choice(void **state)
{
    (void)state;
    tsg_device_why why;
    const char *rank5[] = {"OMPI_COMM_WORLD_LOCAL_RANK=5", NULL};
    tsg_config c = parse(rank5);
    assert_int_equal(tsg_config_device(&c, 8, &why), 5);
    assert_int_equal(why, TSG_DEVICE_LOCAL_RANK);
    assert_int_equal(tsg_config_device(&c, 4, &why), 1); /* 5 % 4 */
    assert_int_equal(tsg_config_device(&c, 2, &why), 1);
    assert_int_equal(tsg_config_device(&c, 1, &why), 0); /* launcher gave each rank one GPU */
    assert_int_equal(why, TSG_DEVICE_LOCAL_RANK);
    assert_int_equal(tsg_config_device(&c, 0, &why), 0); /* count unknown: the default */
    assert_int_equal(why, TSG_DEVICE_DEFAULT);
    assert_int_equal(tsg_config_device(&c, -1, &why), 0);
    assert_int_equal(why, TSG_DEVICE_DEFAULT);
    /* 4 ranks on a node with 2 GPUs: 0 1 0 1 */
    for (int r = 0; r < 4; ++r) {
        char def[48];
        snprintf(def, sizeof def, "SLURM_LOCALID=%d", r);
        const char *env[] = {def, NULL};
        tsg_config cr = parse(env);
        assert_int_equal(tsg_config_device(&cr, 2, &why), r % 2);
    }
    const char *knob[] = {"OMPI_COMM_WORLD_LOCAL_RANK=5", "TSGEMM_DEVICE=0", NULL};
    c = parse(knob);
    assert_int_equal(tsg_config_device(&c, 8, &why), 0); /* set explicitly, even to 0 */
    assert_int_equal(why, TSG_DEVICE_KNOB);
    const char *knob_only[] = {"TSGEMM_DEVICE=3", NULL};
    c = parse(knob_only);
    assert_int_equal(tsg_config_device(&c, 0, &why), 3); /* the caller checks that it exists */
    assert_int_equal(why, TSG_DEVICE_KNOB);
    const char *bad_knob[] = {"OMPI_COMM_WORLD_LOCAL_RANK=3", "TSGEMM_DEVICE=gpu1", NULL};
    c = parse(bad_knob);
    assert_int_equal(c.nwarn, 1);
    assert_int_equal(tsg_config_device(&c, 2, &why), 1); /* ignored knob: the rank decides */
    assert_int_equal(why, TSG_DEVICE_LOCAL_RANK);
    const char *plain[] = {NULL};
    c = parse(plain);
    assert_int_equal(tsg_config_device(&c, 8, &why), 0);
    assert_int_equal(why, TSG_DEVICE_DEFAULT);
}

/* TSGEMM_DEVICE as a list or "all" (several GPUs, src/tsg_multi.h); one ordinal unchanged. */
static void test_device_lists(void **state)
{
    (void)state;
    int out[TSG_MAX_DEVICES];
    tsg_device_why why;
    const char *one[] = {"TSGEMM_DEVICE=3", NULL};
    tsg_config c = parse(one);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(c.device, 3);
    assert_int_equal(c.device_set, 1);
    assert_int_equal(c.ndevices, 1);
    assert_int_equal(tsg_config_devices(&c, 4, out, TSG_MAX_DEVICES, &why), 1);
    assert_int_equal(out[0], 3);
    assert_int_equal(why, TSG_DEVICE_KNOB);

    const char *two[] = {"TSGEMM_DEVICE=0,1", "OMPI_COMM_WORLD_LOCAL_RANK=1", NULL};
    c = parse(two);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(c.device, 0);
    assert_int_equal(c.ndevices, 2);
    assert_int_equal(tsg_config_devices(&c, 2, out, TSG_MAX_DEVICES, &why), 2);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 1);
    assert_int_equal(why, TSG_DEVICE_KNOB); /* the list wins over the rank */
    assert_int_equal(tsg_config_devices(&c, 2, out, 1, &why), 1); /* max respected */

    const char *twice[] = {"TSGEMM_DEVICE=0,0", NULL}; /* the split code on one GPU */
    c = parse(twice);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(tsg_config_devices(&c, 1, out, TSG_MAX_DEVICES, &why), 2);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);

    const char *order[] = {"TSGEMM_DEVICE=3,1,2", NULL};
    c = parse(order);
    assert_int_equal(c.device, 3);
    assert_int_equal(tsg_config_devices(&c, 4, out, TSG_MAX_DEVICES, &why), 3);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 1);
    assert_int_equal(out[2], 2);

    const char *all[] = {"TSGEMM_DEVICE=All", NULL};
    c = parse(all);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(c.device_all, 1);
    assert_int_equal(c.device, 0);
    assert_int_equal(tsg_config_devices(&c, 4, out, TSG_MAX_DEVICES, &why), 4);
    for (int i = 0; i < 4; ++i) assert_int_equal(out[i], i);
    assert_int_equal(tsg_config_devices(&c, 0, out, TSG_MAX_DEVICES, &why), 1); /* unknown */
    assert_int_equal(out[0], 0);
    assert_int_equal(tsg_config_devices(&c, 40, out, TSG_MAX_DEVICES, &why), TSG_MAX_DEVICES);

    const char *sixteen[] = {"TSGEMM_DEVICE=0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7", NULL};
    c = parse(sixteen);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(c.ndevices, 16);

    /* unset: today's single device */
    const char *none[] = {NULL};
    c = parse(none);
    assert_int_equal(c.ndevices, 0);
    assert_int_equal(tsg_config_devices(&c, 8, out, TSG_MAX_DEVICES, &why), 1);
    assert_int_equal(out[0], 0);
    assert_int_equal(why, TSG_DEVICE_DEFAULT);
}

static void test_device_lists_bad(void **state)
{
    (void)state;
    const char *bad[] = {"0,",   ",0",  "0,,1", "0,x",   "0,-1", "-1",  "0,1024", "all,0",
                         "0;1",  "0 1", "0,+1", "0, 1",  "allx", "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7,0",
                         "0x1,2", "1e0,2", "+1", "01", "00", " 1", "1 ", "0,01", "01,0",
                         "1,+0", "0,1 ", "-0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char var[128];
        snprintf(var, sizeof var, "TSGEMM_DEVICE=%s", bad[i]);
        const char *env[] = {var, "OMPI_COMM_WORLD_LOCAL_RANK=5", NULL};
        tsg_config c = parse(env);
        if (c.nwarn != 1) fail_msg("TSGEMM_DEVICE=%s: %d warnings", bad[i], c.nwarn);
        assert_non_null(strstr(c.warn[0], "TSGEMM_DEVICE"));
        assert_non_null(strstr(c.warn[0], "ignored"));
        /* today's default: not set, so the rank rule applies */
        assert_int_equal(c.device_set, 0);
        assert_int_equal(c.device_all, 0);
        assert_int_equal(c.ndevices, 0);
        int out[TSG_MAX_DEVICES];
        tsg_device_why why;
        assert_int_equal(tsg_config_devices(&c, 4, out, TSG_MAX_DEVICES, &why), 1);
        assert_int_equal(out[0], 1);
        assert_int_equal(why, TSG_DEVICE_LOCAL_RANK);
    }
}

/* The tuning knobs of the pipeline (not user knobs): the piece order and the first touch. */
static void test_tuning_knobs(void **state)
{
    (void)state;
    const char *none[] = {NULL};
    tsg_config c = parse(none);
    assert_int_equal(c.test_order, 0);
    assert_int_equal(c.test_touch, 0);
    const char *env[] = {"TSGEMM_TEST_ORDER=chunk", "TSGEMM_TEST_TOUCH=off", NULL};
    c = parse(env);
    assert_int_equal(c.test_order, 2);
    assert_int_equal(c.test_touch, -1);
    const char *parts[] = {"TSGEMM_TEST_ORDER=block", "TSGEMM_TEST_TOUCH=4", NULL};
    c = parse(parts);
    assert_int_equal(c.test_order, 1);
    assert_int_equal(c.test_touch, 4);
    const char *rounds[] = {"TSGEMM_TEST_ORDER=rounds:5", NULL}; /* 3 + R */
    c = parse(rounds);
    assert_int_equal(c.test_order, 8);
    const char *notcount[] = {"TSGEMM_TEST_ORDER=rounds:x", NULL}; /* not a count: the rule */
    c = parse(notcount);
    assert_int_equal(c.test_order, 0);
    const char *zero[] = {"TSGEMM_TEST_ORDER=rounds:0", NULL}; /* zero rounds: block-major */
    c = parse(zero);
    assert_int_equal(c.test_order, 3);
    assert_int_equal(c.test_ramp, 0); /* unset: the executor's rule */
    const char *ramp_off[] = {"TSGEMM_TEST_RAMP=0", NULL}; /* v0.3's unit sizes: deleted */
    c = parse(ramp_off);
    assert_int_equal(c.test_ramp, 0);
    assert_int_equal(c.nwarn, 1);
    const char *ramp4[] = {"TSGEMM_TEST_RAMP=4", NULL}; /* four halving steps */
    c = parse(ramp4);
    assert_int_equal(c.test_ramp, 4);
    assert_int_equal(c.test_poll, 0); /* unset: the rule */
    const char *poll_off[] = {"TSGEMM_TEST_POLL=0", NULL}; /* v0.10's blocking: deleted */
    c = parse(poll_off);
    assert_int_equal(c.test_poll, 0);
    assert_int_equal(c.nwarn, 1);
    const char *poll_on[] = {"TSGEMM_TEST_POLL=1", NULL};
    assert_int_equal(parse(poll_on).test_poll, 1);
    const char *poll_two[] = {"TSGEMM_TEST_POLL=2", NULL}; /* removed in v0.11: the rule */
    assert_int_equal(parse(poll_two).test_poll, 0);
    const char *poll_bad[] = {"TSGEMM_TEST_POLL=on", NULL};
    assert_int_equal(parse(poll_bad).test_poll, 0);
    /* the switches that restored superseded paths are no knobs any more: read as nothing, no
     * warning, the configuration of an empty environment */
    const char *gone[] = {"TSGEMM_TEST_BETA=device", "TSGEMM_TEST_STREAMS=1", "TSGEMM_TEST_WS=0", NULL};
    static tsg_config read, empty; /* parsed in place: tsg_config_parse clears every byte */
    tsg_config_parse(&read, lookup, gone, PHYS);
    tsg_config_parse(&empty, lookup, none, PHYS);
    assert_int_equal(read.nwarn, 0);
    assert_memory_equal(&read, &empty, sizeof read);
    assert_int_equal(c.test_timeline, 0);
    const char *tl[][2] = {{"TSGEMM_TEST_TIMELINE=1", NULL}, {"TSGEMM_TEST_TIMELINE=2", NULL},
                           {"TSGEMM_TEST_TIMELINE=7", NULL}, {"TSGEMM_TEST_TIMELINE=0", NULL}};
    const int want_tl[] = {1, 2, 0, 0}; /* 7: not a level, a warning and off */
    for (int i = 0; i < 4; ++i) {
        c = parse(tl[i]);
        assert_int_equal(c.test_timeline, want_tl[i]);
    }
    const char *small[] = {"TSGEMM_TEST_TOUCH=small", NULL};
    c = parse(small);
    assert_int_equal(c.test_touch, -2);
    const char *bad[] = {"TSGEMM_TEST_TOUCH=65", NULL}; /* outside 1..64: the rule */
    c = parse(bad);
    assert_int_equal(c.test_touch, 0);
    assert_int_equal(c.nwarn, 1);
}

/* The tuning knobs through the strict parser: sizes with units, counts as digits only; any other
 * value gets one warning naming the knob and the rule (0). */
static void test_tuning_knobs_strict(void **state)
{
    (void)state;
    const char *sizes[] = {"TSGEMM_TEST_UNIT=4M", "TSGEMM_TEST_BLOCK=64K", "TSGEMM_TEST_CHUNK=1T",
                           NULL};
    tsg_config c = parse(sizes);
    assert_int_equal(c.nwarn, 0);
    assert_true(c.test_unit == 4.0 * (1 << 20));
    assert_true(c.test_block == 65536.0);
    assert_true(c.test_chunk == 1099511627776.0);
    const char *zeros[] = {"TSGEMM_TEST_UNIT=0", "TSGEMM_TEST_BLOCK=0", "TSGEMM_TEST_CHUNK=0", NULL};
    c = parse(zeros); /* 0 = the rule (scripts/device-run.sh's default sweep) */
    assert_int_equal(c.nwarn, 0);
    assert_true(c.test_unit == 0 && c.test_block == 0 && c.test_chunk == 0);
    static const struct {
        const char *var;
        const char *name;
    } bad[] = {
        {"TSGEMM_TEST_UNIT=1e308G", "TSGEMM_TEST_UNIT"},
        {"TSGEMM_TEST_UNIT=2T", "TSGEMM_TEST_UNIT"},
        {"TSGEMM_TEST_BLOCK=0x1p70", "TSGEMM_TEST_BLOCK"},
        {"TSGEMM_TEST_BLOCK=-0", "TSGEMM_TEST_BLOCK"},
        {"TSGEMM_TEST_CHUNK=99999999999999999999999G", "TSGEMM_TEST_CHUNK"},
        {"TSGEMM_TEST_CHUNK= 5", "TSGEMM_TEST_CHUNK"},
        {"TSGEMM_TEST_TIMELINE=+1", "TSGEMM_TEST_TIMELINE"},
        {"TSGEMM_TEST_TIMELINE=01", "TSGEMM_TEST_TIMELINE"},
        {"TSGEMM_TEST_TIMELINE=1x", "TSGEMM_TEST_TIMELINE"}, /* atoi read 1 */
        {"TSGEMM_TEST_RAMP=+4", "TSGEMM_TEST_RAMP"},
        {"TSGEMM_TEST_RAMP=04", "TSGEMM_TEST_RAMP"},
        {"TSGEMM_TEST_RAMP=11", "TSGEMM_TEST_RAMP"},
        {"TSGEMM_TEST_RAMP=4 ", "TSGEMM_TEST_RAMP"},
        {"TSGEMM_TEST_TOUCH=+4", "TSGEMM_TEST_TOUCH"},
        {"TSGEMM_TEST_TOUCH=04", "TSGEMM_TEST_TOUCH"},
        {"TSGEMM_TEST_TOUCH=4parts", "TSGEMM_TEST_TOUCH"}, /* atoi read 4 */
        {"TSGEMM_TEST_ORDER=rounds:+1", "TSGEMM_TEST_ORDER"},
        {"TSGEMM_TEST_ORDER=rounds:01", "TSGEMM_TEST_ORDER"},
        {"TSGEMM_TEST_ORDER=rounds: 1", "TSGEMM_TEST_ORDER"},
        {"TSGEMM_TEST_ORDER=rounds:1000001", "TSGEMM_TEST_ORDER"},
        {"TSGEMM_TEST_ORDER=rounds:", "TSGEMM_TEST_ORDER"},
        {"TSGEMM_TEST_ORDER=Block", "TSGEMM_TEST_ORDER"},
        {"TSGEMM_TEST_RAMP=0", "TSGEMM_TEST_RAMP"},
        {"TSGEMM_TEST_POLL=0", "TSGEMM_TEST_POLL"},
        {"TSGEMM_TEST_POLL=2", "TSGEMM_TEST_POLL"},
        {"TSGEMM_TEST_COPY=fast", "TSGEMM_TEST_COPY"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        const char *env[] = {bad[i].var, NULL};
        c = parse(env);
        if (c.nwarn != 1) fail_msg("%s: %d warnings", bad[i].var, c.nwarn);
        assert_non_null(strstr(c.warn[0], bad[i].name));
        assert_non_null(strstr(c.warn[0], "using the rule"));
        assert_true(c.test_unit == 0 && c.test_block == 0 && c.test_chunk == 0);
        assert_int_equal(c.test_timeline, 0);
        assert_int_equal(c.test_ramp, 0);
        assert_int_equal(c.test_touch, 0);
        assert_int_equal(c.test_order, 0);
        assert_int_equal(c.test_poll, 0);
        assert_int_equal(c.test_copy, 0);
    }
    const char *good[] = {"TSGEMM_TEST_RAMP=10", "TSGEMM_TEST_TOUCH=64", "TSGEMM_TEST_ORDER=rounds:1000000",
                          "TSGEMM_TEST_COPY=nt", "TSGEMM_TEST_POLL=1", "TSGEMM_TEST_TIMELINE=0", NULL};
    c = parse(good);
    assert_int_equal(c.nwarn, 0);
    assert_int_equal(c.test_ramp, 10);
    assert_int_equal(c.test_touch, 64);
    assert_int_equal(c.test_order, 3 + 1000000);
    assert_int_equal(c.test_copy, 2);
    assert_int_equal(c.test_poll, 1);
    const char *memcpy_[] = {"TSGEMM_TEST_COPY=memcpy", NULL};
    assert_int_equal(parse(memcpy_).test_copy, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_good_values),
        cmocka_unit_test(test_cache_dir_precedence),
        cmocka_unit_test(test_bad_values_warn_and_keep_defaults),
        cmocka_unit_test(test_math_knob),
        cmocka_unit_test(test_local_rank_each_launcher),
        cmocka_unit_test(test_local_rank_precedence),
        cmocka_unit_test(test_device_choice),
        cmocka_unit_test(test_device_lists),
        cmocka_unit_test(test_device_lists_bad),
        cmocka_unit_test(test_tuning_knobs),
        cmocka_unit_test(test_tuning_knobs_strict),
        cmocka_unit_test(test_parse_uint_table),
        cmocka_unit_test(test_knobs_strict),
        cmocka_unit_test(test_memory_caps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
