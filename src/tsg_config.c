/*
 * tsg_config.c — knob parsing. See tsg_config.h; the README lists the knobs for users.
 */
#include "tsg_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static void warn(tsg_config *cfg, const char *fmt, ...)
{
    if (cfg->nwarn >= TSG_CONFIG_WARN_MAX) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cfg->warn[cfg->nwarn++], TSG_CONFIG_WARN_LEN, fmt, ap);
    va_end(ap);
}

/* A whole number in [lo, hi] by the strict rules of tsg_parse_uint, no suffix; 0 on success. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
    uint64_t v;
    if (lo < 0 || tsg_parse_uint(s, 0, (uint64_t)hi, &v) != TSG_PARSE_OK || v < (uint64_t)lo) return -1;
    *out = (long)v;
    return 0;
}

static void copy_path(char *dst, const char *a, const char *b)
{
    int n = snprintf(dst, TSG_CONFIG_PATH_MAX, "%s%s", a, b);
    if (n < 0 || n >= TSG_CONFIG_PATH_MAX) dst[0] = '\0'; /* too long: no cache rather than a wrong one */
}

static void parse_pipeline(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx, uint64_t phys_bytes);

/*
 * Node-local rank variables, innermost launcher first: under `mpirun` inside a Slurm or Flux
 * allocation the ranks inherit the scheduler's variable of the daemon that started them (e.g.
 * SLURM_LOCALID = 0 in every rank), so MPI launchers' variables win over schedulers', and Flux
 * (often started inside Slurm) over Slurm. Each name was checked against these sources:
 *   OMPI_COMM_WORLD_LOCAL_RANK  Open MPI mpirun/prterun: "the relative rank of this process on
 *                               this node within its job" (docs.open-mpi.org,
 *                               tuning-apps/environment-var)
 *   MV2_COMM_WORLD_LOCAL_RANK   MVAPICH2 mpirun_rsh/mpispawn (MVAPICH2 GPU-binding examples,
 *                               e.g. gist.github.com/ugovaretto/3060254; no official page found)
 *   MPI_LOCALRANKID             Hydra mpiexec of MPICH and Intel MPI (Intel MPI Developer
 *                               Reference, "Environment Variables Not Propagated by Hydra": set
 *                               per process, with MPI_LOCALNRANKS; for MPICH's Hydra, the same
 *                               code base, no documentation page was found)
 *   PALS_LOCAL_RANKID           HPE Cray PALS mpiexec (ALCF Polaris/Aurora GPU-affinity scripts;
 *                               flux-coral2's cray_pals.c lists it among the PALS variables)
 *   FLUX_TASK_LOCAL_ID          Flux: "the zero-origin, local (to the node) rank for this task"
 *                               (flux-core, flux-environment(7))
 *   SLURM_LOCALID               Slurm srun: "node local task ID for the process within a job"
 *                               (slurm.schedmd.com/srun.html, OUTPUT ENVIRONMENT VARIABLES)
 */
static const char *const local_rank_vars[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
    "PALS_LOCAL_RANKID",          "FLUX_TASK_LOCAL_ID",        "SLURM_LOCALID",
};

/* The first local-rank variable holding a whole number >= 0 (others are not ours to judge:
 * skipped silently). */
static void parse_local_rank(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx)
{
    cfg->local_rank = -1;
    cfg->local_rank_var = "";
    for (size_t i = 0; i < sizeof local_rank_vars / sizeof local_rank_vars[0]; ++i) {
        const char *v = lookup(local_rank_vars[i], ctx);
        long l;
        if (v && *v && parse_long(v, 0, 1L << 30, &l) == 0) {
            cfg->local_rank = (int)l;
            cfg->local_rank_var = local_rank_vars[i];
            return;
        }
    }
}

/*
 * TSGEMM_DEVICE: one ordinal (today's knob), a comma-separated list of at most TSG_MAX_DEVICES
 * ordinals (repeats allowed), or "all". Ordinals follow tsg_parse_uint's rules in both forms
 * (digits only: "+1" and "01" are refused alone and in a list). Anything else — an empty entry,
 * a sign, a space, a name, too many entries — is refused whole with one warning: the default
 * device rule applies, as for any bad knob value.
 */
static void parse_devices(tsg_config *cfg, const char *v)
{
    if (!strcasecmp(v, "all")) {
        cfg->device_all = 1;
        cfg->device = 0;
        cfg->device_set = 1;
        return;
    }
    int list[TSG_MAX_DEVICES], n = 0;
    long one;
    if (!strchr(v, ',') && parse_long(v, 0, 1023, &one) == 0) { /* one ordinal: as before lists */
        cfg->devices[0] = cfg->device = (int)one;
        cfg->ndevices = 1;
        cfg->device_set = 1;
        return;
    }
    const char *s = v;
    for (;;) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char item[16];
        long l;
        if (len == 0 || len >= sizeof item || n == TSG_MAX_DEVICES) break;
        memcpy(item, s, len);
        item[len] = '\0';
        if (parse_long(item, 0, 1023, &l) != 0) break;
        list[n++] = (int)l;
        if (!comma) { /* the whole value parsed */
            memcpy(cfg->devices, list, sizeof(int) * (size_t)n);
            cfg->ndevices = n;
            cfg->device = list[0];
            cfg->device_set = 1;
            return;
        }
        s = comma + 1;
    }
    warn(cfg,
         "TSGEMM_DEVICE=\"%.64s\" is not a device ordinal (0, 1, ...), a list of at most %d of "
         "them (0,1) or all; ignored",
         v, TSG_MAX_DEVICES);
}

int tsg_config_devices(const tsg_config *cfg, int visible, int *out, int max, tsg_device_why *why)
{
    if (max < 1) return 0;
    if (cfg->device_all) {
        *why = TSG_DEVICE_KNOB;
        int n = visible < 1 ? 1 : visible;
        if (n > max) n = max;
        if (n > TSG_MAX_DEVICES) n = TSG_MAX_DEVICES;
        for (int i = 0; i < n; ++i) out[i] = i;
        return n;
    }
    if (cfg->device_set && cfg->ndevices > 1) {
        *why = TSG_DEVICE_KNOB;
        int n = cfg->ndevices < max ? cfg->ndevices : max;
        for (int i = 0; i < n; ++i) out[i] = cfg->devices[i];
        return n;
    }
    out[0] = tsg_config_device(cfg, visible, why);
    return 1;
}

int tsg_config_device(const tsg_config *cfg, int visible, tsg_device_why *why)
{
    if (cfg->device_set) {
        *why = TSG_DEVICE_KNOB;
        return cfg->device;
    }
    if (cfg->local_rank >= 0 && visible >= 1) {
        *why = TSG_DEVICE_LOCAL_RANK;
        return cfg->local_rank % visible;
    }
    *why = TSG_DEVICE_DEFAULT;
    return 0;
}

void tsg_config_parse(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx, uint64_t phys_bytes)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->policy.mode = TSG_MODE_AUTO;
    cfg->log_level = 1;
    cfg->math = TSG_MATH_FP32;
    const char *v;
    long l;

    if ((v = lookup("TSGEMM_LOG", ctx)) && *v) {
        if (parse_long(v, 0, 3, &l) == 0)
            cfg->log_level = (int)l;
        else
            warn(cfg, "TSGEMM_LOG=\"%.64s\" is not one of 0, 1, 2, 3; using 1", v);
    }
    if ((v = lookup("TSGEMM_MODE", ctx)) && *v) {
        if (!strcasecmp(v, "auto"))
            cfg->policy.mode = TSG_MODE_AUTO;
        else if (!strcasecmp(v, "cpu"))
            cfg->policy.mode = TSG_MODE_CPU;
        else if (!strcasecmp(v, "gpu"))
            cfg->policy.mode = TSG_MODE_GPU;
        else
            warn(cfg, "TSGEMM_MODE=\"%.64s\" is not one of auto, cpu, gpu; using auto", v);
    }
    if ((v = lookup("TSGEMM_MATH", ctx)) && *v) {
        const int m = tsg_math_parse(v);
        if (m >= 0)
            cfg->math = m;
        else
            warn(cfg, "TSGEMM_MATH=\"%.64s\" is not one of fp32, 3xtf32, tf32; using fp32", v);
    }
    if ((v = lookup("TSGEMM_DEVICE", ctx)) && *v) parse_devices(cfg, v);
    if ((v = lookup("TSGEMM_GPU_THRESHOLD", ctx)) && *v) {
        uint64_t n;
        if (tsg_parse_uint(v, 0, UINT64_MAX, &n) == TSG_PARSE_OK)
            cfg->policy.threshold = (double)n;
        else
            warn(cfg, "TSGEMM_GPU_THRESHOLD=\"%.64s\" is not a whole number >= 0; using the cost model", v);
    }
    if ((v = lookup("TSGEMM_CPU_BLAS", ctx)) && *v) {
        if (strlen(v) < TSG_CONFIG_PATH_MAX)
            copy_path(cfg->cpu_blas, v, "");
        else
            warn(cfg, "TSGEMM_CPU_BLAS is longer than %d characters; using OpenBLAS",
                 TSG_CONFIG_PATH_MAX - 1);
    }
    parse_local_rank(cfg, lookup, ctx);
    if ((v = lookup("TSGEMM_TRACE", ctx)) && *v) {
        if (strlen(v) < TSG_CONFIG_PATH_MAX)
            copy_path(cfg->trace_path, v, "");
        else
            warn(cfg, "TSGEMM_TRACE is longer than %d characters; no trace", TSG_CONFIG_PATH_MAX - 1);
    }
    if ((v = lookup("TSGEMM_CACHE_DIR", ctx)) && *v)
        copy_path(cfg->cache_dir, v, "");
    else if ((v = lookup("XDG_CACHE_HOME", ctx)) && *v == '/') /* XDG: relative paths are ignored */
        copy_path(cfg->cache_dir, v, "/tsgemm");
    else if ((v = lookup("HOME", ctx)) && *v)
        copy_path(cfg->cache_dir, v, "/.cache/tsgemm");
    parse_pipeline(cfg, lookup, ctx, phys_bytes);
}

int tsg_parse_uint(const char *s, unsigned flags, uint64_t max, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9') return TSG_PARSE_SYNTAX; /* empty, sign, space, letter */
    if (s[0] == '0' && s[1] >= '0' && s[1] <= '9') return TSG_PARSE_SYNTAX; /* "01": octal to strtol */
    uint64_t v = 0;
    int range = 0;
    for (; *s >= '0' && *s <= '9'; ++s) {
        const unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) range = 1; /* keep scanning: a malformed tail still wins */
        else v = v * 10 + d;
    }
    unsigned shift = 0;
    if (flags & TSG_PARSE_SUFFIX) {
        switch (*s) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        case 't': case 'T': shift = 40; break;
        default: break;
        }
        if (shift) {
            ++s;
            if (!strcmp(s, "B") || !strcmp(s, "iB")) s += strlen(s);
        }
    }
    if (*s != '\0') return TSG_PARSE_SYNTAX;
    if (range || (shift && v > (UINT64_MAX >> shift))) return TSG_PARSE_RANGE;
    v <<= shift;
    if (v > max) return TSG_PARSE_RANGE;
    *out = v;
    return TSG_PARSE_OK;
}

/* The tuning knobs' sizes (bytes or floats): at most 1T. */
#define TEST_SIZE_MAX ((uint64_t)1 << 40)

/* A tuning knob's value that is none of those it takes: one warning, the rule (value 0). */
static void warn_test(tsg_config *cfg, const char *name, const char *v, const char *takes)
{
    warn(cfg, "%s=\"%.64s\" is not %s; using the rule", name, v, takes);
}

/* A tuning size knob (TSGEMM_TEST_UNIT, _BLOCK, _CHUNK): *dst, or a warning and 0. */
static void parse_test_size(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx, const char *name,
                            double *dst)
{
    const char *v = lookup(name, ctx);
    uint64_t n;
    if (!v || !*v) return;
    if (tsg_parse_uint(v, TSG_PARSE_SUFFIX, TEST_SIZE_MAX, &n) == TSG_PARSE_OK)
        *dst = (double)n;
    else
        warn_test(cfg, name, v, "a size of at most 1T (K/M/G/T suffix)");
}

/* A tuning knob with a few named values: the index + 1 of v in names[] (NULL-terminated), or a
 * warning and 0. */
static int parse_test_word(tsg_config *cfg, const char *name, const char *v,
                           const char *const *names, const char *takes)
{
    for (int i = 0; names[i]; ++i)
        if (!strcmp(v, names[i])) return i + 1;
    warn_test(cfg, name, v, takes);
    return 0;
}

/* The pipeline's knobs (gpu/tsg_gpu.h: tsg_gpu_config). */
static void parse_pipeline(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx, uint64_t phys_bytes)
{
    const char *v;
    long l;
    uint64_t n;
    if ((v = lookup("TSGEMM_DEVICE_MEMORY", ctx)) && *v) {
        const int st = tsg_parse_uint(v, TSG_PARSE_SUFFIX, TSG_DEVICE_MEMORY_MAX, &n);
        if (st == TSG_PARSE_OK && n >= (1u << 20))
            cfg->device_memory = (double)n;
        else if (st == TSG_PARSE_RANGE)
            warn(cfg, "TSGEMM_DEVICE_MEMORY=\"%.64s\" is more than 16T; using the default", v);
        else
            warn(cfg, "TSGEMM_DEVICE_MEMORY=\"%.64s\" is not a size of at least 1M; using the default", v);
    }
    if ((v = lookup("TSGEMM_PINNED_MEMORY", ctx)) && *v) {
        const uint64_t half = phys_bytes ? phys_bytes / 2 : UINT64_MAX; /* 0: RAM unknown, no cap */
        const int st = tsg_parse_uint(v, TSG_PARSE_SUFFIX, half, &n);
        if (st == TSG_PARSE_OK && n >= (512u << 10))
            cfg->pinned_memory = (double)n;
        else if (st == TSG_PARSE_RANGE)
            warn(cfg,
                 "TSGEMM_PINNED_MEMORY=\"%.64s\" is more than half of this machine's memory "
                 "(%.0f MiB); using the default",
                 v, (double)phys_bytes / (1 << 20));
        else
            warn(cfg, "TSGEMM_PINNED_MEMORY=\"%.64s\" is not a size of at least 512K; using the default", v);
    }
    if ((v = lookup("TSGEMM_COPY_THREADS", ctx)) && *v) {
        if (parse_long(v, 1, 256, &l) == 0)
            cfg->copy_threads = (int)l;
        else
            warn(cfg, "TSGEMM_COPY_THREADS=\"%.64s\" is not a number of threads (1..256); using the default", v);
    }
    /* tuning experiments and fault injection (docs/NOTES.md "v0.3: where a pipelined call's time
     * goes" and "v0.4: the pipeline's tail"); not user knobs, and never seen by a release library */
    if ((v = lookup("TSGEMM_TEST_FAULT", ctx)) && *v) snprintf(cfg->test_fault, sizeof cfg->test_fault, "%s", v);
    parse_test_size(cfg, lookup, ctx, "TSGEMM_TEST_UNIT", &cfg->test_unit);
    parse_test_size(cfg, lookup, ctx, "TSGEMM_TEST_BLOCK", &cfg->test_block);
    parse_test_size(cfg, lookup, ctx, "TSGEMM_TEST_CHUNK", &cfg->test_chunk);
    if ((v = lookup("TSGEMM_TEST_TIMELINE", ctx)) && *v) {
        if (parse_long(v, 0, 2, &l) == 0) cfg->test_timeline = (int)l;
        else warn_test(cfg, "TSGEMM_TEST_TIMELINE", v, "0, 1 or 2");
    }
    if ((v = lookup("TSGEMM_TEST_RAMP", ctx)) && *v) {
        if (parse_long(v, 1, 10, &l) == 0) cfg->test_ramp = (int)l;
        else warn_test(cfg, "TSGEMM_TEST_RAMP", v, "a number of steps 1..10");
    }
    if ((v = lookup("TSGEMM_TEST_ORDER", ctx)) && *v) { /* block, chunk or rounds:R (R >= 0) */
        if (!strcmp(v, "block")) cfg->test_order = 1;
        else if (!strcmp(v, "chunk")) cfg->test_order = 2;
        else if (!strncmp(v, "rounds:", 7) && parse_long(v + 7, 0, 1000000, &l) == 0)
            cfg->test_order = 3 + (int)l;
        else warn_test(cfg, "TSGEMM_TEST_ORDER", v, "block, chunk or rounds:R (R 0..1000000)");
    }
    if ((v = lookup("TSGEMM_TEST_TOUCH", ctx)) && *v) {
        if (!strcmp(v, "off")) cfg->test_touch = -1;
        else if (!strcmp(v, "small")) cfg->test_touch = -2;
        else if (parse_long(v, 1, 64, &l) == 0) cfg->test_touch = (int)l;
        else warn_test(cfg, "TSGEMM_TEST_TOUCH", v, "off, small or a number of parts 1..64");
    }
    static const char *const poll[] = {"1", NULL}, *const copy[] = {"memcpy", "nt", NULL};
    if ((v = lookup("TSGEMM_TEST_POLL", ctx)) && *v)
        cfg->test_poll = parse_test_word(cfg, "TSGEMM_TEST_POLL", v, poll, "1");
    if ((v = lookup("TSGEMM_TEST_COPY", ctx)) && *v) /* 1 memcpy, 2 non-temporal */
        cfg->test_copy = parse_test_word(cfg, "TSGEMM_TEST_COPY", v, copy, "memcpy or nt");
}

const char *tsg_mode_name(tsg_mode mode)
{
    switch (mode) {
    case TSG_MODE_CPU: return "cpu";
    case TSG_MODE_GPU: return "gpu";
    default: return "auto";
    }
}

static const char *const math_names[TSG_MATH_COUNT] = {"fp32", "3xtf32", "tf32"};

const char *tsg_math_name(int math)
{
    return math >= 0 && math < TSG_MATH_COUNT ? math_names[math] : math_names[TSG_MATH_FP32];
}

int tsg_math_parse(const char *v)
{
    for (int i = 0; v && i < TSG_MATH_COUNT; ++i)
        if (!strcasecmp(v, math_names[i])) return i;
    return -1;
}
