/*
 * bench_problem.c — what the bench computes and how it knows a result is right: implementation
 * and status names, the shape syntax and the default sweeps, deterministic inputs, the
 * row-major -> column-major mapping, double-precision references and the error check.
 *
 * Must not: time anything, print, or touch a BLAS library (the OpenBLAS reference result is
 * produced by the driver and handed in through bench_ref.ref).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* ------------------------------------------------------------------ names */

static const char *const impl_names[BI_COUNT] = {
    "openblas", "tsgemm",       "tsgemm-gpu",    "cublas+copies",
    "nvblas",   "nvblas-tuned", "tsgemm-kernel", "cublas-kernel"};

const char *bench_impl_name(int impl)
{
    return impl >= 0 && impl < BI_COUNT ? impl_names[impl] : "?";
}

int bench_impl_from_name(const char *name)
{
    for (int i = 0; i < BI_COUNT; ++i)
        if (!strcmp(name, impl_names[i])) return i;
    return -1;
}

static const char *const status_names[] = {"skipped", "ok", "WRONG", "n/a", "failed"};

const char *bench_status_name(int st)
{
    return st >= 0 && st <= BS_FAIL ? status_names[st] : "?";
}

int bench_status_from_name(const char *name)
{
    for (int i = 0; i <= BS_FAIL; ++i)
        if (!strcmp(name, status_names[i])) return i;
    return -1;
}

void bench_result_set(bench_result *r, int status, const char *fmt, ...)
{
    r->status = status;
    r->reps = 0;
    r->median_ms = r->min_ms = r->max_ms = NAN;
    r->err = NAN;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
}

double bench_result_tflops(const bench_result *r, const bench_shape *s)
{
    if (r->status != BS_OK || !(r->median_ms > 0)) return 0;
    return bench_flops(s) / (r->median_ms * 1e-3) * 1e-12;
}

/* ------------------------------------------------------------------ shapes */

double bench_flops(const bench_shape *s) { return 2.0 * (double)s->m * (double)s->n * (double)s->k; }

char *bench_shape_label(const bench_shape *s, char *buf, size_t len)
{
    snprintf(buf, len, "%lldx%lldx%lld %c%c %s", (long long)s->m, (long long)s->n,
             (long long)s->k, s->ta, s->tb, s->row ? "row" : "col");
    return buf;
}

void bench_user_lds(const bench_shape *s, int *lda, int *ldb, int *ldc)
{
    /* Stored A is m x k (N) or k x m (T); column-major ld = rows, row-major ld = columns. */
    int64_t arows = s->ta == 'N' ? s->m : s->k, acols = s->ta == 'N' ? s->k : s->m;
    int64_t brows = s->tb == 'N' ? s->k : s->n, bcols = s->tb == 'N' ? s->n : s->k;
    *lda = (int)(s->row ? acols : arows);
    *ldb = (int)(s->row ? bcols : brows);
    *ldc = (int)(s->row ? s->n : s->m);
    if (*lda < 1) *lda = 1;
    if (*ldb < 1) *ldb = 1;
    if (*ldc < 1) *ldc = 1;
}

void bench_cm_of(const bench_shape *s, bench_cm *cm)
{
    int lda, ldb, ldc;
    bench_user_lds(s, &lda, &ldb, &ldc);
    if (!s->row) {
        *cm = (bench_cm){s->ta, s->tb, (int)s->m, (int)s->n, (int)s->k, lda, ldb, ldc, 0};
    } else { /* C^T = op(B)^T op(A)^T: swap operands, m/n and transposes */
        *cm = (bench_cm){s->tb, s->ta, (int)s->n, (int)s->m, (int)s->k, ldb, lda, ldc, 1};
    }
}

static const char *skip_seps(const char *p)
{
    while (*p && (isspace((unsigned char)*p) || *p == ';')) ++p;
    return p;
}

static int parse_trans(char c, char *out)
{
    c = (char)toupper((unsigned char)c);
    if (c == 'N') *out = 'N';
    else if (c == 'T' || c == 'C') *out = 'T'; /* C means T for real data */
    else return -1;
    return 0;
}

int bench_parse_shapes(const char *text, bench_shape **out, int *count, char *err, size_t errlen)
{
    const char *p = skip_seps(text);
    while (*p) {
        const char *start = p;
        size_t n = 0;
        while (p[n] && !isspace((unsigned char)p[n]) && p[n] != ';') ++n;
        char tok[128];
        if (n >= sizeof tok) {
            snprintf(err, errlen, "shape entry too long: \"%.40s...\"", start);
            return -1;
        }
        memcpy(tok, start, n);
        tok[n] = '\0';
        p = skip_seps(p + n);

        bench_shape s = {0, 0, 0, 'N', 'N', 0};
        char *dims = tok, *trans = strchr(tok, ':'), *layout = NULL;
        if (trans) {
            *trans++ = '\0';
            layout = strchr(trans, ':');
            if (layout) *layout++ = '\0';
        }
        long long v[3];
        int nv = 0;
        char *q = dims;
        while (nv < 3) {
            errno = 0;
            char *end;
            v[nv] = strtoll(q, &end, 10);
            if (end == q || errno || v[nv] < 1 || v[nv] > 2147483647LL) {
                snprintf(err, errlen, "bad size in \"%.*s\" (sizes are integers 1..2^31-1)",
                         (int)n, start);
                return -1;
            }
            ++nv;
            if (*end == ',' && nv < 3) q = end + 1;
            else if (*end == '\0') break;
            else {
                snprintf(err, errlen, "bad shape \"%.*s\" (want n or m,n,k)", (int)n, start);
                return -1;
            }
        }
        if (nv == 1) s.m = s.n = s.k = v[0];
        else if (nv == 3) s.m = v[0], s.n = v[1], s.k = v[2];
        else {
            snprintf(err, errlen, "bad shape \"%.*s\" (want n or m,n,k)", (int)n, start);
            return -1;
        }
        if (trans && *trans) {
            char a = trans[0], b = trans[1] == ',' ? trans[2] : trans[1];
            size_t want = trans[1] == ',' ? 3 : 2;
            if (strlen(trans) != want || parse_trans(a, &s.ta) || parse_trans(b, &s.tb)) {
                snprintf(err, errlen, "bad transposes \"%s\" in \"%.*s\" (want e.g. N,T)", trans,
                         (int)n, start);
                return -1;
            }
        }
        if (layout && *layout) {
            if (!strcasecmp(layout, "row")) s.row = 1;
            else if (!strcasecmp(layout, "col")) s.row = 0;
            else {
                snprintf(err, errlen, "bad layout \"%s\" (want row or col)", layout);
                return -1;
            }
        }
        /* Every operand must fit a 32-bit int leading dimension and size_t element count. */
        bench_shape *grown = realloc(*out, sizeof **out * (size_t)(*count + 1));
        if (!grown) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        *out = grown;
        (*out)[(*count)++] = s;
    }
    return 0;
}

int bench_format_shapes(const bench_shape *s, int count, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count; ++i) {
        int w = snprintf(buf + used, len - used, "%s%lld,%lld,%lld:%c,%c:%s", i ? ";" : "",
                         (long long)s[i].m, (long long)s[i].n, (long long)s[i].k, s[i].ta,
                         s[i].tb, s[i].row ? "row" : "col");
        if (w < 0 || (size_t)w >= len - used) return -1;
        used += (size_t)w;
    }
    return 0;
}

const char *bench_default_shapes(int quick)
{
    if (quick)
        return "64 128 256 512 1000 1024 2048 "
               "1024,1024,1024:T,N 1000,1000,1000:N,T:row";
    return "64 128 256 512 768 1000 1024 2048 4095 4096 8192 "
           "65536,64,4096 512,512,65536 8192,8192,256 "
           "4096,4096,4096:N,T 4096,4096,4096:T,N 4096,4096,4096:T,T "
           "1000,1000,1000:N,N:row 4096,4096,4096:N,N:row 4096,4096,4096:T,N:row";
}

/* ------------------------------------------------------------------ inputs */

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in (-1, 1): odd multiples of 2^-23, so never zero. */
static void fill_uniform(float *x, size_t n, uint64_t seed)
{
    uint64_t st = seed;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = splitmix(&st) >> 41; /* 23 bits */
        x[i] = (float)(((double)r + 0.5) * (2.0 / 8388608.0) - 1.0);
    }
}

int bench_data_make(bench_data *d, const bench_shape *s, float alpha, float beta, uint64_t seed,
                    int index)
{
    memset(d, 0, sizeof *d);
    d->s = *s;
    bench_cm_of(s, &d->cm);
    bench_user_lds(s, &d->lda, &d->ldb, &d->ldc);
    d->na = (size_t)s->m * (size_t)s->k;
    d->nb = (size_t)s->k * (size_t)s->n;
    d->nc = (size_t)s->m * (size_t)s->n;
    d->alpha = alpha;
    d->beta = beta;
    d->A = malloc(d->na * sizeof(float));
    d->B = malloc(d->nb * sizeof(float));
    d->C = malloc(d->nc * sizeof(float));
    if (beta != 0.0f) d->C0 = malloc(d->nc * sizeof(float));
    if (!d->A || !d->B || !d->C || (beta != 0.0f && !d->C0)) {
        bench_data_free(d);
        return -1;
    }
    uint64_t base = seed * 0x100000001B3ull + (uint64_t)index * 0x2545F4914F6CDD1Dull;
    fill_uniform(d->A, d->na, base ^ 0xA);
    fill_uniform(d->B, d->nb, base ^ 0xB);
    if (d->C0) fill_uniform(d->C0, d->nc, base ^ 0xC);
    bench_data_prepare_c(d);
    return 0;
}

void bench_data_free(bench_data *d)
{
    free(d->A);
    free(d->B);
    free(d->C);
    free(d->C0);
    d->A = d->B = d->C = d->C0 = NULL;
}

void bench_data_prepare_c(bench_data *d)
{
    if (d->C0) {
        memcpy(d->C, d->C0, d->nc * sizeof(float));
    } else {
        const float nan = NAN;
        for (size_t i = 0; i < d->nc; ++i) d->C[i] = nan;
    }
}

const float *bench_cm_a(const bench_data *d) { return d->cm.swap ? d->B : d->A; }
const float *bench_cm_b(const bench_data *d) { return d->cm.swap ? d->A : d->B; }

/* ------------------------------------------------------------------ references and checks */

double bench_tolerance(int64_t k, double override_tol)
{
    if (override_tol > 0) return override_tol;
    /* FP32 results of different summation orders differ by ~eps*sqrt(k) relative: 1e-4 covers
     * k up to 65536 with a wide margin (measured ~1e-6..1e-5) and rejects TF32 (~1e-3). */
    double t = 1e-4;
    if (k > 65536) t *= sqrt((double)k / 65536.0);
    return t;
}

/* Full double reference when the naive product is cheap (< 2^26 multiply-adds, packed
 * operands < 2^24 doubles); sampled elements otherwise. */
static int small_enough(const bench_cm *cm)
{
    double mnk = (double)cm->m * cm->n * cm->k;
    double pack = (double)cm->m * cm->k + (double)cm->k * cm->n;
    return mnk <= 67108864.0 && pack <= 16777216.0;
}

static double cm_aval(const bench_data *d, int64_t i, int64_t l)
{
    const bench_cm *cm = &d->cm;
    const float *a = bench_cm_a(d);
    return cm->ta == 'N' ? a[i + l * (int64_t)cm->lda] : a[l + i * (int64_t)cm->lda];
}

static double cm_bval(const bench_data *d, int64_t l, int64_t j)
{
    const bench_cm *cm = &d->cm;
    const float *b = bench_cm_b(d);
    return cm->tb == 'N' ? b[l + j * (int64_t)cm->ldb] : b[j + l * (int64_t)cm->ldb];
}

int bench_ref_init(bench_ref *ref, const bench_data *d, double tol)
{
    memset(ref, 0, sizeof *ref);
    ref->tol = tol;
    const bench_cm *cm = &d->cm;
    int64_t m = cm->m, n = cm->n, k = cm->k;
    if (small_enough(cm)) {
        double *ap = malloc(sizeof(double) * (size_t)(m * k));
        double *bp = malloc(sizeof(double) * (size_t)(k * n));
        ref->dfull = malloc(sizeof(double) * d->nc);
        if (!ap || !bp || !ref->dfull) {
            free(ap), free(bp);
            bench_ref_free(ref);
            return -1;
        }
        for (int64_t i = 0; i < m; ++i) /* row i of op(A), contiguous in l */
            for (int64_t l = 0; l < k; ++l) ap[i * k + l] = cm_aval(d, i, l);
        for (int64_t j = 0; j < n; ++j) /* column j of op(B), contiguous in l */
            for (int64_t l = 0; l < k; ++l) bp[j * k + l] = cm_bval(d, l, j);
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                const double *x = ap + i * k, *y = bp + j * k;
                double s = 0;
                for (int64_t l = 0; l < k; ++l) s += x[l] * y[l];
                size_t idx = (size_t)(i + j * (int64_t)cm->ldc);
                double v = (double)d->alpha * s + (d->C0 ? (double)d->beta * d->C0[idx] : 0.0);
                ref->dfull[idx] = v;
                if (fabs(v) > ref->dmaxabs) ref->dmaxabs = fabs(v);
            }
        free(ap);
        free(bp);
        return 0;
    }
    /* Sampled: the four corners (edge tiles) and pseudo-random elements; ~2^24 multiply-adds. */
    int ns = (int)(16777216 / (k > 0 ? k : 1));
    if (ns < 256) ns = 256;
    if (ns > 4096) ns = 4096;
    ref->nsamples = ns;
    ref->sidx = malloc(sizeof(size_t) * (size_t)ns);
    ref->sval = malloc(sizeof(double) * (size_t)ns);
    if (!ref->sidx || !ref->sval) {
        bench_ref_free(ref);
        return -1;
    }
    uint64_t st = 0x5EEDull ^ (uint64_t)(m * 31 + n * 17 + k);
    for (int s = 0; s < ns; ++s) {
        int64_t i, j;
        switch (s) {
        case 0: i = 0, j = 0; break;
        case 1: i = m - 1, j = 0; break;
        case 2: i = 0, j = n - 1; break;
        case 3: i = m - 1, j = n - 1; break;
        default:
            i = (int64_t)(splitmix(&st) % (uint64_t)m);
            j = (int64_t)(splitmix(&st) % (uint64_t)n);
        }
        double sum = 0;
        for (int64_t l = 0; l < k; ++l) sum += cm_aval(d, i, l) * cm_bval(d, l, j);
        size_t idx = (size_t)(i + j * (int64_t)cm->ldc);
        double v = (double)d->alpha * sum + (d->C0 ? (double)d->beta * d->C0[idx] : 0.0);
        ref->sidx[s] = idx;
        ref->sval[s] = v;
        if (fabs(v) > ref->dmaxabs) ref->dmaxabs = fabs(v);
    }
    return 0;
}

void bench_ref_free(bench_ref *ref)
{
    free(ref->ref);
    free(ref->dfull);
    free(ref->sidx);
    free(ref->sval);
    memset(ref, 0, sizeof *ref);
}

static size_t count_nonfinite(const float *c, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) bad += !isfinite(c[i]);
    return bad;
}

double bench_check_double(const bench_ref *ref, const bench_data *d, const float *c,
                          size_t *nonfinite)
{
    *nonfinite = count_nonfinite(c, d->nc);
    if (*nonfinite) return NAN;
    double worst = 0, scale = ref->dmaxabs > 0 ? ref->dmaxabs : 1;
    if (ref->dfull) {
        for (size_t i = 0; i < d->nc; ++i) {
            double e = fabs((double)c[i] - ref->dfull[i]);
            if (e > worst) worst = e;
        }
    } else {
        for (int s = 0; s < ref->nsamples; ++s) {
            double e = fabs((double)c[ref->sidx[s]] - ref->sval[s]);
            if (e > worst) worst = e;
        }
    }
    return worst / scale;
}

double bench_frob_double(const bench_ref *ref, const bench_data *d, const float *c)
{
    if (count_nonfinite(c, d->nc)) return NAN;
    double se = 0, sr = 0;
    if (ref->dfull) {
        for (size_t i = 0; i < d->nc; ++i) {
            const double e = (double)c[i] - ref->dfull[i];
            se += e * e, sr += ref->dfull[i] * ref->dfull[i];
        }
    } else {
        for (int s = 0; s < ref->nsamples; ++s) {
            const double e = (double)c[ref->sidx[s]] - ref->sval[s];
            se += e * e, sr += ref->sval[s] * ref->sval[s];
        }
    }
    return sr > 0 ? sqrt(se / sr) : sqrt(se);
}

double bench_check(const bench_ref *ref, const bench_data *d, const float *c, size_t *nonfinite)
{
    if (!ref->ref) return bench_check_double(ref, d, c, nonfinite);
    *nonfinite = count_nonfinite(c, d->nc);
    if (*nonfinite) return NAN;
    double worst = 0, scale = ref->ref_maxabs > 0 ? ref->ref_maxabs : 1;
    for (size_t i = 0; i < d->nc; ++i) {
        double e = fabs((double)c[i] - (double)ref->ref[i]);
        if (e > worst) worst = e;
    }
    return worst / scale;
}

/* ------------------------------------------------------------------ misc */

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_stats(double *x, int n, double *median, double *min, double *max)
{
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    *min = x[0];
    *max = x[n - 1];
    *median = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}
