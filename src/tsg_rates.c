/*
 * tsg_rates.c — bounds and cache text of the measured rates. See tsg_rates.h.
 */
#include "tsg_rates.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsg_config.h" /* TSG_MAX_DEVICES */

static const tsg_rate_bound g_bounds[TSG_RATES_GPU_N] = {
    {"h2d_bps", 1e6, 4e12, 0, 0},
    {"d2h_bps", 1e6, 4e12, 0, 0},
    {"gpu_flops", 1e9, 1e16, 0, 0},
    {"gpu_latency_s", 0.0, 1.0, 0, 0},
    {"gpu_tile_m", 1.0, 4096.0, 1, 0},
    {"gpu_tile_n", 1.0, 4096.0, 1, 0},
    {"gpu_slots", 1.0, 1048576.0, 1, 0},
    {"gpu_split_min_k", 0.0, 2147483648.0, 1, 0},
    {"gpu_device_bytes", 1048576.0, 1125899906842624.0, 0, 0},
    /* the pairs' group (TSG_RATES_GPU_REQUIRED on): gpu_flops's and the tiles' bounds, or 0 */
    {"gpu_tn_flops", 1e9, 1e16, 0, 1},
    {"gpu_tn_tile_m", 1.0, 4096.0, 1, 1},
    {"gpu_tn_tile_n", 1.0, 4096.0, 1, 1},
    {"gpu_nt_flops", 1e9, 1e16, 0, 1},
    {"gpu_nt_tile_m", 1.0, 4096.0, 1, 1},
    {"gpu_nt_tile_n", 1.0, 4096.0, 1, 1},
    {"gpu_tt_flops", 1e9, 1e16, 0, 1},
    {"gpu_tt_tile_m", 1.0, 4096.0, 1, 1},
    {"gpu_tt_tile_n", 1.0, 4096.0, 1, 1},
};

const tsg_rate_bound *tsg_rates_gpu_bound(int i)
{
    return i >= 0 && i < TSG_RATES_GPU_N ? &g_bounds[i] : NULL;
}

double *tsg_rates_gpu_field(tsg_rates *r, int i)
{
    switch (i) {
    case 0: return &r->h2d_bps;
    case 1: return &r->d2h_bps;
    case 2: return &r->gpu_flops;
    case 3: return &r->gpu_latency_s;
    case 4: return &r->gpu_tile_m;
    case 5: return &r->gpu_tile_n;
    case 6: return &r->gpu_slots;
    case 7: return &r->gpu_split_min_k;
    case 8: return &r->gpu_device_bytes;
    default: break;
    }
    if (i < TSG_RATES_GPU_REQUIRED || i >= TSG_RATES_GPU_N) return NULL;
    const int pair = (i - TSG_RATES_GPU_REQUIRED) / 3; /* element pair - 1 of the arrays */
    switch ((i - TSG_RATES_GPU_REQUIRED) % 3) {
    case 0: return &r->gpu_pair_flops[pair];
    case 1: return &r->gpu_pair_tile_m[pair];
    default: return &r->gpu_pair_tile_n[pair];
    }
}

static int within(double v, const tsg_rate_bound *b)
{
    /* comparisons are false for NaN: NaN fails */
    return (b->zero && v == 0) || (v >= b->lo && v <= b->hi && (!b->whole || v == floor(v)));
}

int tsg_rates_gpu_check(const tsg_rates *r, int shape)
{
    tsg_rates copy = *r;
    const int no_shape = !shape && r->gpu_tile_m == 0 && r->gpu_tile_n == 0 && r->gpu_slots == 0;
    for (int i = 0; i < TSG_RATES_GPU_N; ++i) {
        if (no_shape && (i == 4 || i == 5 || i == 6)) continue;
        if (!shape && i == 8 && r->gpu_device_bytes == 0) continue; /* 0: no budget known */
        if (!within(*tsg_rates_gpu_field(&copy, i), &g_bounds[i])) return i;
    }
    return -1;
}

int tsg_rates_cpu_ok(const tsg_rates *r)
{
    return r->cpu_flops >= 1e6 && r->cpu_flops <= 1e16 && r->cpu_latency_s >= 0 &&
           r->cpu_latency_s <= 100 && r->cpu_mid_s >= 0 && r->cpu_mid_s <= 100 &&
           r->cpu_small_s >= 0 && r->cpu_small_s <= 100 && r->gpu_count >= 0 &&
           r->gpu_count <= TSG_MAX_DEVICES &&
           (r->cpu_touch_bps == 0 || (r->cpu_touch_bps >= 1e6 && r->cpu_touch_bps <= 1e13)) &&
           r->cpu_thin_m_s >= 0 && r->cpu_thin_m_s <= 100 && r->cpu_thin_n_s >= 0 && r->cpu_thin_n_s <= 100;
}

int tsg_rates_usable(const tsg_rates *r)
{
    return r && tsg_rates_gpu_check(r, 0) < 0 && tsg_rates_cpu_ok(r);
}

/* A plain decimal: digits first (no sign, space, "inf", "nan" or hex), read whole by strtod. */
static int parse_value(const char *s, double *out)
{
    if (*s < '0' || *s > '9') return -1;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return -1;
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    if (errno || *end != '\0' || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

/* A field table of one cache format: its header line, bounds and the field's storage. Fields
 * 0 .. required - 1 are in every file; the rest (none where required == count) are one optional
 * group: all there or none (none: 0). */
typedef struct fields {
    const char *header;
    const tsg_rate_bound *bounds;
    int count, required;
    double *(*field)(void *obj, int i);
} fields;

/* The text of fs's fields of obj (checked by the caller): header, then "name value" lines; the
 * optional group only where one of its fields is not 0. */
static int format_fields(const fields *fs, void *obj, char *buf, size_t len)
{
    size_t pos = 0;
    int n = snprintf(buf, len, "%s\n", fs->header);
    if (n < 0 || (size_t)n >= len) return -1;
    pos = (size_t)n;
    int count = fs->required;
    for (int i = fs->required; i < fs->count; ++i)
        if (*fs->field(obj, i) != 0) count = fs->count;
    for (int i = 0; i < count; ++i) {
        n = snprintf(buf + pos, len - pos, "%s %.17g\n", fs->bounds[i].name, *fs->field(obj, i));
        if (n < 0 || (size_t)n >= len - pos) return -1;
        pos += (size_t)n;
    }
    return (int)pos;
}

_Static_assert(TSG_RATES_GPU_N < 32 && TSG_RATES_CPU_N < 32, "parse_fields's mask of the fields seen");

/* Parses text into obj's fields (obj untouched unless every check passes); see tsg_rates_parse. */
static int parse_fields(const fields *fs, const char *text, size_t len, void *obj, void *scratch, size_t size,
                        const char **why)
{
    char buf[TSG_RATES_FILE_MAX + 1];
    if (len > TSG_RATES_FILE_MAX) {
        *why = "larger than any rates file";
        return -1;
    }
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (memchr(buf, '\0', len)) {
        *why = "not text (a NUL byte)";
        return -1;
    }
    memcpy(scratch, obj, size);
    unsigned seen = 0;
    int line = 0;
    char *save = NULL;
    if (len == 0 || buf[len - 1] != '\n') {
        *why = "truncated (no final newline)";
        return -1;
    }
    if (buf[0] == '\n' || strstr(buf, "\n\n")) {
        *why = "an empty line";
        return -1;
    }
    for (char *s = strtok_r(buf, "\n", &save); s; s = strtok_r(NULL, "\n", &save), ++line) {
        if (line == 0) {
            if (strcmp(s, fs->header) != 0) {
                *why = "another format or version (header)";
                return -1;
            }
            continue;
        }
        char *space = strchr(s, ' ');
        if (!space) {
            *why = "a line without a value";
            return -1;
        }
        *space = '\0';
        int field = -1;
        for (int i = 0; i < fs->count; ++i)
            if (!strcmp(s, fs->bounds[i].name)) field = i;
        if (field < 0) {
            *why = "an unknown field";
            return -1;
        }
        if (seen & (1u << field)) {
            *why = "a field given twice";
            return -1;
        }
        double v;
        if (parse_value(space + 1, &v) != 0) {
            *why = "a value that is not a plain decimal number";
            return -1;
        }
        if (!within(v, &fs->bounds[field])) {
            *why = "a value outside its physical bounds";
            return -1;
        }
        *fs->field(scratch, field) = v;
        seen |= 1u << field;
    }
    if (line == 0) {
        *why = "empty";
        return -1;
    }
    const unsigned required = (1u << fs->required) - 1;
    if ((seen & required) != required) {
        *why = "a field missing";
        return -1;
    }
    if (seen != required && seen != (1u << fs->count) - 1) {
        *why = "part of the optional group (all its fields or none)";
        return -1;
    }
    if (seen == required) /* the group absent: not measured */
        for (int i = fs->required; i < fs->count; ++i) *fs->field(scratch, i) = 0;
    memcpy(obj, scratch, size);
    return 0;
}

static double *gpu_field(void *obj, int i) { return tsg_rates_gpu_field((tsg_rates *)obj, i); }
static const fields g_gpu_fields = {TSG_RATES_HEADER, g_bounds, TSG_RATES_GPU_N, TSG_RATES_GPU_REQUIRED,
                                    gpu_field};

int tsg_rates_format(const tsg_rates *r, char *buf, size_t len)
{
    if (tsg_rates_gpu_check(r, 1) >= 0) return -1;
    tsg_rates copy = *r;
    return format_fields(&g_gpu_fields, &copy, buf, len);
}

int tsg_rates_parse(const char *text, size_t len, tsg_rates *r, const char **why)
{
    tsg_rates scratch;
    return parse_fields(&g_gpu_fields, text, len, r, &scratch, sizeof scratch, why);
}

/* ---- the CPU BLAS's cached rates ---- */

static const tsg_rate_bound g_cpu_bounds[TSG_RATES_CPU_N] = {
    {"cpu_flops", 1e6, 1e16, 0, 0},      {"cpu_mid_s", 0.0, 100.0, 0, 0},   {"cpu_small_s", 0.0, 100.0, 0, 0},
    {"cpu_latency_s", 0.0, 100.0, 0, 0}, {"cpu_touch_bps", 0.0, 1e13, 0, 0}, {"samples", 1.0, 1e6, 1, 0},
    {"cpu_thin_m_s", 0.0, 100.0, 0, 0},  {"cpu_thin_n_s", 0.0, 100.0, 0, 0},
};

static double *cpu_field(void *obj, int i)
{
    tsg_cpu_rates *r = obj;
    switch (i) {
    case 0: return &r->flops;
    case 1: return &r->mid_s;
    case 2: return &r->small_s;
    case 3: return &r->latency_s;
    case 4: return &r->touch_bps;
    case 5: return &r->samples;
    case 6: return &r->thin_m_s;
    case 7: return &r->thin_n_s;
    default: return NULL;
    }
}
static const fields g_cpu_fields = {TSG_CPU_RATES_HEADER, g_cpu_bounds, TSG_RATES_CPU_N, TSG_RATES_CPU_N,
                                    cpu_field};

int tsg_cpu_rates_check(const tsg_cpu_rates *r)
{
    tsg_cpu_rates copy = *r;
    for (int i = 0; i < TSG_RATES_CPU_N; ++i)
        if (!within(*cpu_field(&copy, i), &g_cpu_bounds[i])) return i;
    if (r->touch_bps != 0 && r->touch_bps < 1e6) return 4; /* 0: not measured */
    return -1;
}

int tsg_cpu_rates_format(const tsg_cpu_rates *r, char *buf, size_t len)
{
    if (tsg_cpu_rates_check(r) >= 0) return -1;
    tsg_cpu_rates copy = *r;
    return format_fields(&g_cpu_fields, &copy, buf, len);
}

int tsg_cpu_rates_parse(const char *text, size_t len, tsg_cpu_rates *r, const char **why)
{
    tsg_cpu_rates scratch;
    const tsg_cpu_rates before = *r;
    if (parse_fields(&g_cpu_fields, text, len, r, &scratch, sizeof scratch, why) != 0) return -1;
    if (tsg_cpu_rates_check(r) >= 0) {
        *r = before;
        *why = "a value outside its physical bounds";
        return -1;
    }
    return 0;
}

/* the better of two times where 0 means "not measured" */
static double best_time(double a, double b) { return a == 0 ? b : b == 0 ? a : fmin(a, b); }

void tsg_rates_set_cpu(tsg_rates *r, const tsg_cpu_rates *c)
{
    r->cpu_flops = c->flops;
    r->cpu_mid_s = c->mid_s;
    r->cpu_small_s = c->small_s;
    r->cpu_latency_s = c->latency_s;
    r->cpu_touch_bps = c->touch_bps; /* a fresh C's first touch (src/tsg_cost.h) */
    r->cpu_thin_m_s = c->thin_m_s;
    r->cpu_thin_n_s = c->thin_n_s;
}

void tsg_cpu_rates_merge(tsg_cpu_rates *best, const tsg_cpu_rates *m)
{
    best->flops = fmax(best->flops, m->flops);
    best->mid_s = best_time(best->mid_s, m->mid_s);
    best->small_s = best_time(best->small_s, m->small_s);
    best->latency_s = best_time(best->latency_s, m->latency_s);
    best->touch_bps = fmax(best->touch_bps, m->touch_bps);
    best->thin_m_s = best_time(best->thin_m_s, m->thin_m_s);
    best->thin_n_s = best_time(best->thin_n_s, m->thin_n_s);
    best->samples = fmin(best->samples + m->samples, g_cpu_bounds[5].hi);
}
