/*
 * tsg_config.c — knob parsing. See tsg_config.h; the README lists the knobs for users.
 */
#include "tsg_config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Parses a whole decimal integer in [lo, hi]; returns 0 on success. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static void copy_path(char *dst, const char *a, const char *b)
{
    int n = snprintf(dst, TSG_CONFIG_PATH_MAX, "%s%s", a, b);
    if (n < 0 || n >= TSG_CONFIG_PATH_MAX) dst[0] = '\0'; /* too long: no cache rather than a wrong one */
}

static void parse_pipeline(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx);

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
 * ordinals (repeats allowed), or "all". Anything else — an empty entry, a sign, a name, too many
 * entries — is refused whole with one warning: the default device rule applies, as for any
 * bad knob value.
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
        if (item[0] < '0' || item[0] > '9' || parse_long(item, 0, 1023, &l) != 0) break;
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

void tsg_config_parse(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->policy.mode = TSG_MODE_AUTO;
    cfg->log_level = 1;
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
    if ((v = lookup("TSGEMM_DEVICE", ctx)) && *v) parse_devices(cfg, v);
    if ((v = lookup("TSGEMM_GPU_THRESHOLD", ctx)) && *v) {
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (errno == 0 && end != v && *end == '\0' && isfinite(d) && d >= 0)
            cfg->policy.threshold = d;
        else
            warn(cfg, "TSGEMM_GPU_THRESHOLD=\"%.64s\" is not a size >= 0; using the cost model", v);
    }
    if ((v = lookup("TSGEMM_CPU_BLAS", ctx)) && *v) {
        if (strlen(v) < TSG_CONFIG_PATH_MAX)
            copy_path(cfg->cpu_blas, v, "");
        else
            warn(cfg, "TSGEMM_CPU_BLAS is longer than %d characters; using OpenBLAS",
                 TSG_CONFIG_PATH_MAX - 1);
    }
    parse_local_rank(cfg, lookup, ctx);
    if ((v = lookup("TSGEMM_CACHE_DIR", ctx)) && *v)
        copy_path(cfg->cache_dir, v, "");
    else if ((v = lookup("XDG_CACHE_HOME", ctx)) && *v == '/') /* XDG: relative paths are ignored */
        copy_path(cfg->cache_dir, v, "/tsgemm");
    else if ((v = lookup("HOME", ctx)) && *v)
        copy_path(cfg->cache_dir, v, "/.cache/tsgemm");
    parse_pipeline(cfg, lookup, ctx);
}

int tsg_parse_bytes(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0 || v != floor(v)) return -1;
    double unit = 1;
    switch (*end) {
    case 'k': case 'K': unit = 1024.0, ++end; break;
    case 'm': case 'M': unit = 1024.0 * 1024.0, ++end; break;
    case 'g': case 'G': unit = 1024.0 * 1024.0 * 1024.0, ++end; break;
    default: break;
    }
    if (unit > 1 && (!strcmp(end, "iB") || !strcmp(end, "B"))) end += strlen(end);
    if (*end != '\0') return -1;
    *out = v * unit;
    return 0;
}

/* The pipeline's knobs (kernels/tsg_gpu.h: tsg_gpu_config). */
static void parse_pipeline(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx)
{
    const char *v;
    long l;
    double d;
    if ((v = lookup("TSGEMM_DEVICE_MEMORY", ctx)) && *v) {
        if (tsg_parse_bytes(v, &d) == 0 && d >= (1 << 20))
            cfg->device_memory = d;
        else
            warn(cfg, "TSGEMM_DEVICE_MEMORY=\"%.64s\" is not a size of at least 1M; using the default", v);
    }
    if ((v = lookup("TSGEMM_PINNED_MEMORY", ctx)) && *v) {
        if (tsg_parse_bytes(v, &d) == 0 && d >= (512 << 10))
            cfg->pinned_memory = d;
        else
            warn(cfg, "TSGEMM_PINNED_MEMORY=\"%.64s\" is not a size of at least 512K; using the default", v);
    }
    if ((v = lookup("TSGEMM_COPY_THREADS", ctx)) && *v) {
        if (parse_long(v, 1, 256, &l) == 0)
            cfg->copy_threads = (int)l;
        else
            warn(cfg, "TSGEMM_COPY_THREADS=\"%.64s\" is not a number of threads (1..256); using the default", v);
    }
    if ((v = lookup("TSGEMM_TEST_FAULT", ctx)) && *v) snprintf(cfg->test_fault, sizeof cfg->test_fault, "%s", v);
    /* tuning experiments (docs/NOTES.md "v0.3: where a pipelined call's time goes" and "v0.4:
     * the pipeline's tail"); not user knobs */
    if ((v = lookup("TSGEMM_TEST_UNIT", ctx)) && *v && tsg_parse_bytes(v, &d) == 0) cfg->test_unit = d;
    if ((v = lookup("TSGEMM_TEST_BLOCK", ctx)) && *v && tsg_parse_bytes(v, &d) == 0) cfg->test_block = d;
    if ((v = lookup("TSGEMM_TEST_TIMELINE", ctx)) && *v) cfg->test_timeline = atoi(v) >= 2 ? 2 : atoi(v) > 0;
    if ((v = lookup("TSGEMM_TEST_RAMP", ctx)) && *v)
        cfg->test_ramp = !strcmp(v, "0") ? -1 : atoi(v) > 0 && atoi(v) <= 10 ? atoi(v) : 0;
    if ((v = lookup("TSGEMM_TEST_CHUNK", ctx)) && *v && tsg_parse_bytes(v, &d) == 0) cfg->test_chunk = d;
    if ((v = lookup("TSGEMM_TEST_ORDER", ctx)) && *v) { /* block, chunk or rounds:R (R >= 0) */
        char *end = NULL;
        const long r = !strncmp(v, "rounds:", 7) ? strtol(v + 7, &end, 10) : -1;
        const int rounds_ok = r >= 0 && r <= 1000000 && end > v + 7 && !*end;
        cfg->test_order = !strcmp(v, "block") ? 1 : !strcmp(v, "chunk") ? 2 : rounds_ok ? 3 + (int)r : 0;
    }
    if ((v = lookup("TSGEMM_TEST_TOUCH", ctx)) && *v)
        cfg->test_touch = !strcmp(v, "off") ? -1 : !strcmp(v, "small") ? -2 : atoi(v) > 0 && atoi(v) <= 64 ? atoi(v) : 0;
    if ((v = lookup("TSGEMM_TEST_BETA", ctx)) && *v) cfg->test_beta = !strcmp(v, "device");
    if ((v = lookup("TSGEMM_TEST_STREAMS", ctx)) && *v) cfg->test_streams = !strcmp(v, "1");
    if ((v = lookup("TSGEMM_TEST_WS", ctx)) && *v) cfg->test_ws = !strcmp(v, "0");
    if ((v = lookup("TSGEMM_TEST_POLL", ctx)) && *v)
        cfg->test_poll = !strcmp(v, "0") ? 1 : !strcmp(v, "1") ? 2 : 0;
    if ((v = lookup("TSGEMM_TEST_COPY", ctx)) && *v)
        cfg->test_copy = !strcmp(v, "nt") ? 2 : !strcmp(v, "memcpy") ? 1 : 0;
}

const char *tsg_mode_name(tsg_mode mode)
{
    switch (mode) {
    case TSG_MODE_CPU: return "cpu";
    case TSG_MODE_GPU: return "gpu";
    default: return "auto";
    }
}
