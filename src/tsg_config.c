/*
 * tsg_config.c — the knob table and its parser. See tsg_config.h; the README lists the user
 * knobs (the same ones: unit.knob_table).
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

/* A knob's bad value: one warning naming the knob, the value, what it takes and what is used
 * instead. */
static void warn_bad(tsg_config *cfg, const tsg_knob *knob, const char *v)
{
    warn(cfg, "%s=\"%.64s\" is not %s; %s", knob->name, v, knob->takes, knob->instead);
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
static void parse_devices(tsg_config *cfg, const tsg_knob *knob, const char *v,
                          tsg_lookup_fn lookup, void *ctx)
{
    (void)lookup, (void)ctx;
    if (!v || !*v) return;
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
    warn_bad(cfg, knob, v);
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

/* ------------------------------------------------------------------ the knob table */

static void parse_cache_dir(tsg_config *cfg, const tsg_knob *knob, const char *v,
                            tsg_lookup_fn lookup, void *ctx)
{
    (void)knob;
    if (v && *v)
        copy_path(cfg->cache_dir, v, "");
    else if ((v = lookup("XDG_CACHE_HOME", ctx)) && *v == '/') /* XDG: relative paths are ignored */
        copy_path(cfg->cache_dir, v, "/tsgemm");
    else if ((v = lookup("HOME", ctx)) && *v)
        copy_path(cfg->cache_dir, v, "/.cache/tsgemm");
}

/* TSGEMM_TEST_FAULT: the spec as given, cut to the field (gpu/tsg_gpu.h tsg_gpu_set_fault
 * judges it). */
static void parse_test_fault(tsg_config *cfg, const tsg_knob *knob, const char *v,
                             tsg_lookup_fn lookup, void *ctx)
{
    (void)knob, (void)lookup, (void)ctx;
    if (v && *v) snprintf(cfg->test_fault, sizeof cfg->test_fault, "%s", v);
}

/* TSGEMM_TEST_ORDER: block (1), chunk (2) or rounds:R, R 0..1000000 (3 + R: src/tsg_plan.h
 * tsg_plan_rounds' force). */
static void parse_test_order(tsg_config *cfg, const tsg_knob *knob, const char *v,
                             tsg_lookup_fn lookup, void *ctx)
{
    (void)lookup, (void)ctx;
    long l;
    if (!v || !*v) return;
    if (!strcmp(v, "block")) cfg->test_order = 1;
    else if (!strcmp(v, "chunk")) cfg->test_order = 2;
    else if (!strncmp(v, "rounds:", 7) && parse_long(v + 7, 0, 1000000, &l) == 0)
        cfg->test_order = 3 + (int)l;
    else warn_bad(cfg, knob, v);
}

/* TSGEMM_MATH's words, which tsg_math_name and tsg_math_parse share */
static const char *const math_words[TSG_MATH_COUNT + 1] = {"fp32", "3xtf32", "tf32", NULL};

/* The tuning knobs' sizes (bytes or floats): at most 1T. */
#define TEST_SIZE_MAX ((uint64_t)1 << 40)

#define FIELD(f)                                                                                \
    .field = #f, .offset = offsetof(tsg_config, f), .size = sizeof(((tsg_config *)0)->f)
#define RULE .instead = "using the rule"
/* a knob's words and the values they store, written in its entry (static storage) */
#define WORDS(...) .words = (const char *const[]){__VA_ARGS__, NULL}
#define VALUES(...) .values = (const int[]){__VA_ARGS__}

_Static_assert(sizeof(tsg_mode) == sizeof(int), "TSGEMM_MODE is stored as an int");
_Static_assert(TSG_MAX_DEVICES == 16, "TSGEMM_DEVICE's warning says 16");

const tsg_knob tsg_knobs[] = {
    {.name = "TSGEMM_LOG", .kind = TSG_KNOB_UINT, .lo = 0, .hi = 3, FIELD(log_level),
     .takes = "one of 0, 1, 2, 3", .instead = "using 1",
     .doc = "what is printed to stderr: 0 illegal-argument reports only, 1 (default) also bad "
            "knob values and the first GPU trouble of each kind, 2 also the device, the rates "
            "and an exit summary, 3 also one line per call"},
    {.name = "TSGEMM_MODE", .kind = TSG_KNOB_WORD, .flags = TSG_KNOB_ANYCASE,
     WORDS("auto", "cpu", "gpu"), VALUES(TSG_MODE_AUTO, TSG_MODE_CPU, TSG_MODE_GPU),
     FIELD(policy.mode), .takes = "one of auto, cpu, gpu", .instead = "using auto",
     .doc = "where calls run: auto (default) by the cost model, cpu never on the GPU, gpu on the "
            "GPU whenever one works"},
    {.name = "TSGEMM_MATH", .kind = TSG_KNOB_WORD, .flags = TSG_KNOB_ANYCASE, .words = math_words,
     VALUES(TSG_MATH_FP32, TSG_MATH_3XTF32, TSG_MATH_TF32), FIELD(math),
     .takes = "one of fp32, 3xtf32, tf32", .instead = "using fp32",
     .doc = "the arithmetic of GPU calls: fp32 (default), 3xtf32 (tensor cores, error-"
            "compensated), tf32 (tensor cores, reduced precision); include/tsgemm.h "
            "tsgemm_set_math"},
    {.name = "TSGEMM_DEVICE", .kind = TSG_KNOB_OWN, FIELD(devices), .own = parse_devices,
     /* also device, device_set, ndevices and device_all (parse_devices) */
     .takes = "a device ordinal (0, 1, ...), a list of at most 16 of them (0,1) or all",
     .instead = "ignored",
     .doc = "which GPU: an ordinal 0..1023 (default 0, or an MPI rank's node-local rank modulo "
            "the visible GPUs), a list 0,1 of at most 16 (repeats allowed) or all: large calls "
            "are split over them"},
    {.name = "TSGEMM_GPU_THRESHOLD", .kind = TSG_KNOB_UINT, .flags = TSG_KNOB_REAL, .lo = 0,
     .hi = UINT64_MAX, FIELD(policy.threshold), .takes = "a whole number >= 0",
     .instead = "using the cost model",
     .doc = "in auto mode a call of at least n^3 multiply-adds (m*n*k >= n^3) runs on the GPU, "
            "instead of the cost model's choice; 0 (default) = the cost model"},
    {.name = "TSGEMM_CPU_BLAS", .kind = TSG_KNOB_TEXT, FIELD(cpu_blas),
     .instead = "using OpenBLAS",
     .doc = "the CPU BLAS to fall back to, a path or a soname (default: an OpenBLAS already in "
            "the process, else libopenblas.so.0)"},
    {.name = "TSGEMM_TRACE", .kind = TSG_KNOB_TEXT, FIELD(trace_path), .instead = "no trace",
     .doc = "append one line per SGEMM call to this file (%p: the process id); unset: no trace"},
    {.name = "TSGEMM_CACHE_DIR", .kind = TSG_KNOB_OWN, FIELD(cache_dir), .own = parse_cache_dir,
     .doc = "the folder of the GPU's measured rates (default $XDG_CACHE_HOME/tsgemm, else "
            "$HOME/.cache/tsgemm); a path too long for the field: no cache"},
    {.name = "TSGEMM_DEVICE_MEMORY", .kind = TSG_KNOB_SIZE, .flags = TSG_KNOB_REAL,
     .lo = (uint64_t)1 << 20, .hi = TSG_DEVICE_MEMORY_MAX, FIELD(device_memory),
     .takes = "a size of at least 1M", .cap = "16T", .instead = "using the default",
     .doc = "the most device memory tsgemm holds for operands, bytes (default 3/4 of the GPU's); "
            "larger problems run in bounded pieces"},
    {.name = "TSGEMM_PINNED_MEMORY", .kind = TSG_KNOB_SIZE,
     .flags = TSG_KNOB_REAL | TSG_KNOB_HALF_RAM, .lo = 512u << 10, .hi = UINT64_MAX,
     FIELD(pinned_memory), .takes = "a size of at least 512K", .instead = "using the default",
     .doc = "the pinned host staging tsgemm holds, bytes (default 512M; at most half of "
            "physical memory: pinned pages cannot be swapped)"},
    {.name = "TSGEMM_COPY_THREADS", .kind = TSG_KNOB_UINT, .lo = 1, .hi = 256,
     FIELD(copy_threads), .takes = "a number of threads (1..256)", .instead = "using the default",
     .doc = "tsgemm's host threads that copy between the caller's memory and the pinned slots "
            "(default 3/4 of the usable CPUs, 2..12)"},
    {.name = "TSGEMM_PIN_AT_START", .kind = TSG_KNOB_UINT, .lo = 0, .hi = 1,
     FIELD(pin_at_start), .takes = "0 or 1", .instead = "using 1",
     .doc = "1 (default): once the GPU has started, a background thread pins the staging for "
            "host-memory calls (10 slots, 160M by default) and until it is done auto mode runs on "
            "the CPU the calls the GPU would not win after waiting for it; 0: each call pins what "
            "it needs when it needs it"},
    /* tuning experiments and fault injection (docs/NOTES.md "v0.3: where a pipelined call's time
     * goes" and "v0.4: the pipeline's tail"): never seen by a release library */
    {.name = "TSGEMM_TEST_FAULT", .kind = TSG_KNOB_OWN, .flags = TSG_KNOB_TEST,
     FIELD(test_fault), .own = parse_test_fault,
     .doc = "arms a pipeline failure (gpu/tsg_gpu.h tsg_gpu_set_fault)"},
    {.name = "TSGEMM_TEST_UNIT", .kind = TSG_KNOB_SIZE, .flags = TSG_KNOB_TEST | TSG_KNOB_REAL,
     .hi = TEST_SIZE_MAX, FIELD(test_unit), .takes = "a size of at most 1T (K/M/G/T suffix)",
     RULE, .doc = "the pipeline's unit size, bytes; 0 = the rule"},
    {.name = "TSGEMM_TEST_BLOCK", .kind = TSG_KNOB_SIZE, .flags = TSG_KNOB_TEST | TSG_KNOB_REAL,
     .hi = TEST_SIZE_MAX, FIELD(test_block), .takes = "a size of at most 1T (K/M/G/T suffix)",
     RULE, .doc = "the plan's C block area, floats; 0 = the rule"},
    {.name = "TSGEMM_TEST_CHUNK", .kind = TSG_KNOB_SIZE, .flags = TSG_KNOB_TEST | TSG_KNOB_REAL,
     .hi = TEST_SIZE_MAX, FIELD(test_chunk), .takes = "a size of at most 1T (K/M/G/T suffix)",
     RULE, .doc = "the A and B floats of a K chunk; 0 = the rule"},
    {.name = "TSGEMM_TEST_TIMELINE", .kind = TSG_KNOB_UINT, .flags = TSG_KNOB_TEST, .hi = 2,
     FIELD(test_timeline), .takes = "0, 1 or 2", RULE,
     .doc = "1: one timeline line per pipelined call; 2: also every unit's upload, launch and "
            "download"},
    {.name = "TSGEMM_TEST_ORDER", .kind = TSG_KNOB_OWN, .flags = TSG_KNOB_TEST,
     FIELD(test_order), .own = parse_test_order, .takes = "block, chunk or rounds:R (R 0..1000000)",
     RULE, .doc = "the pipeline's piece order: block, chunk or rounds:R"},
    {.name = "TSGEMM_TEST_TOUCH", .kind = TSG_KNOB_WORD, .flags = TSG_KNOB_TEST | TSG_KNOB_OR_UINT,
     .lo = 1, .hi = 64, WORDS("off", "small"), VALUES(-1, -2), FIELD(test_touch),
     .takes = "off, small or a number of parts 1..64", RULE,
     .doc = "a fresh C's first touch: off, small (without the huge-page advice) or that many "
            "parts"},
    {.name = "TSGEMM_TEST_COPY", .kind = TSG_KNOB_WORD, .flags = TSG_KNOB_TEST,
     WORDS("memcpy", "nt"), VALUES(1, 2), FIELD(test_copy), .takes = "memcpy or nt", RULE,
     .doc = "the copy threads' copy: memcpy or non-temporal stores"},
    {.name = "TSGEMM_TEST_RAMP", .kind = TSG_KNOB_UINT, .flags = TSG_KNOB_TEST, .lo = 1, .hi = 10,
     FIELD(test_ramp), .takes = "a number of steps 1..10", RULE,
     .doc = "N: the first N upload units ramp up by halves; unset: the rule"},
    {.name = "TSGEMM_TEST_POLL", .kind = TSG_KNOB_WORD, .flags = TSG_KNOB_TEST, WORDS("1"),
     VALUES(1), FIELD(test_poll), .takes = "1", RULE,
     .doc = "1: the copy threads poll while a pipelined call is in flight even where the rule "
            "blocks (too few CPUs to spare)"},
};
const int tsg_nknobs = (int)(sizeof tsg_knobs / sizeof tsg_knobs[0]);

static void store(tsg_config *cfg, const tsg_knob *knob, double v)
{
    char *field = (char *)cfg + knob->offset;
    if (knob->flags & TSG_KNOB_REAL) {
        memcpy(field, &v, sizeof v);
    } else {
        const int i = (int)v;
        memcpy(field, &i, sizeof i);
    }
}

/* The one strict parser: value v (set, not empty) of one knob into cfg, or one warning. */
static void parse_knob(tsg_config *cfg, const tsg_knob *knob, const char *v, uint64_t phys_bytes)
{
    uint64_t n;
    switch (knob->kind) {
    case TSG_KNOB_UINT:
        if (tsg_parse_uint(v, 0, knob->hi, &n) == TSG_PARSE_OK && n >= knob->lo)
            store(cfg, knob, (double)n);
        else
            warn_bad(cfg, knob, v);
        return;
    case TSG_KNOB_SIZE: {
        const int half = (knob->flags & TSG_KNOB_HALF_RAM) && phys_bytes;
        const int st = tsg_parse_uint(v, TSG_PARSE_SUFFIX, half ? phys_bytes / 2 : knob->hi, &n);
        if (st == TSG_PARSE_OK && n >= knob->lo)
            store(cfg, knob, (double)n);
        else if (st == TSG_PARSE_RANGE && half)
            warn(cfg, "%s=\"%.64s\" is more than half of this machine's memory (%.0f MiB); %s",
                 knob->name, v, (double)phys_bytes / (1 << 20), knob->instead);
        else if (st == TSG_PARSE_RANGE && knob->cap)
            warn(cfg, "%s=\"%.64s\" is more than %s; %s", knob->name, v, knob->cap, knob->instead);
        else
            warn_bad(cfg, knob, v);
        return;
    }
    case TSG_KNOB_WORD:
        for (int i = 0; knob->words[i]; ++i)
            if (!((knob->flags & TSG_KNOB_ANYCASE) ? strcasecmp : strcmp)(v, knob->words[i])) {
                store(cfg, knob, knob->values[i]);
                return;
            }
        if ((knob->flags & TSG_KNOB_OR_UINT) &&
            tsg_parse_uint(v, 0, knob->hi, &n) == TSG_PARSE_OK && n >= knob->lo)
            store(cfg, knob, (double)n);
        else
            warn_bad(cfg, knob, v);
        return;
    case TSG_KNOB_TEXT:
        if (strlen(v) < knob->size)
            memcpy((char *)cfg + knob->offset, v, strlen(v) + 1);
        else
            warn(cfg, "%s is longer than %d characters; %s", knob->name, (int)knob->size - 1,
                 knob->instead);
        return;
    case TSG_KNOB_OWN:
        return;
    }
}

void tsg_config_parse(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx, uint64_t phys_bytes)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->policy.mode = TSG_MODE_AUTO;
    cfg->log_level = 1;
    cfg->pin_at_start = 1;
    cfg->math = TSG_MATH_FP32;
    for (int i = 0; i < tsg_nknobs; ++i) {
        const tsg_knob *knob = &tsg_knobs[i];
        const char *v = lookup(knob->name, ctx);
        if (knob->kind == TSG_KNOB_OWN) knob->own(cfg, knob, v, lookup, ctx);
        else if (v && *v) parse_knob(cfg, knob, v, phys_bytes);
    }
    parse_local_rank(cfg, lookup, ctx);
}

const char *tsg_mode_name(tsg_mode mode)
{
    switch (mode) {
    case TSG_MODE_CPU: return "cpu";
    case TSG_MODE_GPU: return "gpu";
    default: return "auto";
    }
}

const char *tsg_math_name(int math)
{
    return math >= 0 && math < TSG_MATH_COUNT ? math_words[math] : math_words[TSG_MATH_FP32];
}

int tsg_math_parse(const char *v)
{
    for (int i = 0; v && i < TSG_MATH_COUNT; ++i)
        if (!strcasecmp(v, math_words[i])) return i;
    return -1;
}
