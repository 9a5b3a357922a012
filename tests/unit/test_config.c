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

static tsg_config parse(const char **env)
{
    tsg_config c;
    tsg_config_parse(&c, lookup, env);
    return c;
}

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
    assert_int_equal(c.nwarn, 0);
}

static void test_good_values(void **state)
{
    (void)state;
    const char *env[] = {"TSGEMM_MODE=GPU", "TSGEMM_LOG=3", "TSGEMM_DEVICE=2",
                         "TSGEMM_GPU_THRESHOLD=512.5", "TSGEMM_CPU_BLAS=/opt/blas/libblas.so.3",
                         "HOME=/home/u", NULL};
    tsg_config c = parse(env);
    assert_int_equal(c.policy.mode, TSG_MODE_GPU);
    assert_int_equal(c.log_level, 3);
    assert_int_equal(c.device, 2);
    assert_int_equal(c.device_set, 1);
    assert_true(c.policy.threshold == 512.5);
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
                         "0x1,2", "1e0,2"};
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
    const char *ramp_off[] = {"TSGEMM_TEST_RAMP=0", NULL}; /* v0.3's unit sizes */
    c = parse(ramp_off);
    assert_int_equal(c.test_ramp, -1);
    const char *ramp4[] = {"TSGEMM_TEST_RAMP=4", NULL}; /* four halving steps */
    c = parse(ramp4);
    assert_int_equal(c.test_ramp, 4);
    assert_int_equal(c.test_poll, 0); /* unset: the rule */
    const char *poll_off[] = {"TSGEMM_TEST_POLL=0", NULL}; /* stored as the value + 1 */
    assert_int_equal(parse(poll_off).test_poll, 1);
    const char *poll_on[] = {"TSGEMM_TEST_POLL=1", NULL};
    assert_int_equal(parse(poll_on).test_poll, 2);
    const char *poll_two[] = {"TSGEMM_TEST_POLL=2", NULL}; /* removed in v0.11: the rule */
    assert_int_equal(parse(poll_two).test_poll, 0);
    const char *poll_bad[] = {"TSGEMM_TEST_POLL=on", NULL};
    assert_int_equal(parse(poll_bad).test_poll, 0);
    assert_int_equal(c.test_ws, 0); /* unset: the rule */
    const char *ws_off[] = {"TSGEMM_TEST_WS=0", NULL};
    assert_int_equal(parse(ws_off).test_ws, 1);
    const char *ws_on[] = {"TSGEMM_TEST_WS=1", NULL}; /* the rule's */
    assert_int_equal(parse(ws_on).test_ws, 0);
    assert_int_equal(c.test_streams, 0);
    const char *one[] = {"TSGEMM_TEST_STREAMS=1", NULL};
    c = parse(one);
    assert_int_equal(c.test_streams, 1);
    const char *two[] = {"TSGEMM_TEST_STREAMS=2", NULL}; /* the rule's */
    c = parse(two);
    assert_int_equal(c.test_streams, 0);
    assert_int_equal(c.test_timeline, 0);
    const char *tl[][2] = {{"TSGEMM_TEST_TIMELINE=1", NULL}, {"TSGEMM_TEST_TIMELINE=2", NULL},
                           {"TSGEMM_TEST_TIMELINE=7", NULL}, {"TSGEMM_TEST_TIMELINE=0", NULL}};
    const int want_tl[] = {1, 2, 2, 0};
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
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_good_values),
        cmocka_unit_test(test_cache_dir_precedence),
        cmocka_unit_test(test_bad_values_warn_and_keep_defaults),
        cmocka_unit_test(test_local_rank_each_launcher),
        cmocka_unit_test(test_local_rank_precedence),
        cmocka_unit_test(test_device_choice),
        cmocka_unit_test(test_device_lists),
        cmocka_unit_test(test_device_lists_bad),
        cmocka_unit_test(test_tuning_knobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
