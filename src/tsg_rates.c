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
    {"h2d_bps", 1e6, 4e12, 0},
    {"d2h_bps", 1e6, 4e12, 0},
    {"gpu_flops", 1e9, 1e16, 0},
    {"gpu_latency_s", 0.0, 1.0, 0},
    {"gpu_tile_m", 1.0, 4096.0, 1},
    {"gpu_tile_n", 1.0, 4096.0, 1},
    {"gpu_slots", 1.0, 1048576.0, 1},
    {"gpu_split_min_k", 0.0, 2147483648.0, 1},
    {"gpu_device_bytes", 1048576.0, 1125899906842624.0, 0},
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
    default: return NULL;
    }
}

static int within(double v, const tsg_rate_bound *b)
{
    /* comparisons are false for NaN: NaN fails */
    return v >= b->lo && v <= b->hi && (!b->whole || v == floor(v));
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
           (r->cpu_touch_bps == 0 || (r->cpu_touch_bps >= 1e6 && r->cpu_touch_bps <= 1e13));
}

int tsg_rates_usable(const tsg_rates *r)
{
    return r && tsg_rates_gpu_check(r, 0) < 0 && tsg_rates_cpu_ok(r);
}

int tsg_rates_format(const tsg_rates *r, char *buf, size_t len)
{
    if (tsg_rates_gpu_check(r, 1) >= 0) return -1;
    tsg_rates copy = *r;
    size_t pos = 0;
    int n = snprintf(buf, len, "%s\n", TSG_RATES_HEADER);
    if (n < 0 || (size_t)n >= len) return -1;
    pos = (size_t)n;
    for (int i = 0; i < TSG_RATES_GPU_N; ++i) {
        n = snprintf(buf + pos, len - pos, "%s %.17g\n", g_bounds[i].name,
                     *tsg_rates_gpu_field(&copy, i));
        if (n < 0 || (size_t)n >= len - pos) return -1;
        pos += (size_t)n;
    }
    return (int)pos;
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

int tsg_rates_parse(const char *text, size_t len, tsg_rates *r, const char **why)
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
    tsg_rates got = *r;
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
            if (strcmp(s, TSG_RATES_HEADER) != 0) {
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
        for (int i = 0; i < TSG_RATES_GPU_N; ++i)
            if (!strcmp(s, g_bounds[i].name)) field = i;
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
        if (!within(v, &g_bounds[field])) {
            *why = "a value outside its physical bounds";
            return -1;
        }
        *tsg_rates_gpu_field(&got, field) = v;
        seen |= 1u << field;
    }
    if (line == 0) {
        *why = "empty";
        return -1;
    }
    if (seen != (1u << TSG_RATES_GPU_N) - 1) {
        *why = "a field missing";
        return -1;
    }
    *r = got;
    return 0;
}
