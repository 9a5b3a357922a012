/*
 * bench_report.c — what the bench prints and stores: the end-to-end and kernel-only tables with
 * numbered notes carrying every reason (a column that cannot run says why, never 0), the
 * fastest-per-shape summary, and the CSV (written here, read back for --plot-from).
 *
 * Must not: run or time anything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ------------------------------------------------------------------ notes */

typedef struct note {
    int status;
    char reason[sizeof(((bench_result *)0)->reason)];
    unsigned impls;  /* bit per implementation        */
    int shapes;      /* how many cells share the note */
} note;

typedef struct notes {
    note *v;
    int n, cap;
} notes;

/* Number (1-based) of the note for r, added when new. */
static int note_of(notes *ns, int impl, const bench_result *r)
{
    for (int i = 0; i < ns->n; ++i)
        if (ns->v[i].status == r->status && !strcmp(ns->v[i].reason, r->reason)) {
            ns->v[i].impls |= 1u << impl;
            ns->v[i].shapes++;
            return i + 1;
        }
    if (ns->n == ns->cap) {
        int cap = ns->cap ? 2 * ns->cap : 16;
        note *v = realloc(ns->v, sizeof *v * (size_t)cap);
        if (!v) return 0;
        ns->v = v;
        ns->cap = cap;
    }
    note *x = &ns->v[ns->n++];
    x->status = r->status;
    snprintf(x->reason, sizeof x->reason, "%s", r->reason);
    x->impls = 1u << impl;
    x->shapes = 1;
    return ns->n;
}

static void print_notes(FILE *f, const notes *ns, int nshapes)
{
    for (int i = 0; i < ns->n; ++i) {
        const note *x = &ns->v[i];
        fprintf(f, "  [%d] %s: %s  (", i + 1, bench_status_name(x->status), x->reason);
        int first = 1;
        for (int k = 0; k < BI_COUNT; ++k)
            if (x->impls & (1u << k)) {
                fprintf(f, "%s%s", first ? "" : ", ", bench_impl_name(k));
                first = 0;
            }
        int ncols = __builtin_popcount(x->impls);
        if (x->shapes == nshapes * ncols) fprintf(f, "; every shape)\n");
        else fprintf(f, "; %d cell%s)\n", x->shapes, x->shapes == 1 ? "" : "s");
    }
}

/* ------------------------------------------------------------------ tables */

enum { LABEL_W = 24, CELL_W = 17 };

static void fmt_ms(char *buf, size_t len, double ms)
{
    if (ms < 1) snprintf(buf, len, "%.4f", ms);
    else if (ms < 100) snprintf(buf, len, "%.3f", ms);
    else snprintf(buf, len, "%.1f", ms);
}

/* One cell: "   12.345   11.2" for ok, "n/a [3]" and the like otherwise. */
static void cell(FILE *f, notes *ns, int impl, const bench_result *r, const bench_shape *s)
{
    char buf[64];
    if (r->status == BS_OK) {
        char ms[32];
        fmt_ms(ms, sizeof ms, r->median_ms);
        snprintf(buf, sizeof buf, "%9s %6.3g", ms, bench_result_tflops(r, s));
    } else {
        snprintf(buf, sizeof buf, "%s [%d]", bench_status_name(r->status), note_of(ns, impl, r));
    }
    fprintf(f, " %*s", CELL_W - 1, buf);
}

static void column_heads(FILE *f, const char *first, const int *impls, int n, const char *tail)
{
    fprintf(f, "%-*s", LABEL_W, first);
    for (int i = 0; i < n; ++i) fprintf(f, " %*s", CELL_W - 1, bench_impl_name(impls[i]));
    fprintf(f, "%s\n%-*s", tail, LABEL_W, "");
    for (int i = 0; i < n; ++i) fprintf(f, " %*s", CELL_W - 1, "ms TFLOP/s");
    fprintf(f, "\n");
}

static const bench_result *at(const bench_result *res, int shape, int impl)
{
    return &res[shape * BI_COUNT + impl];
}

void bench_report_tables(FILE *f, const bench_shape *shapes, int nshapes, const bench_result *res)
{
    notes ns = {0};
    char label[96];
    static const int host[] = {BI_OPENBLAS,      BI_TSGEMM, BI_TSGEMM_GPU,
                               BI_CUBLAS_COPIES, BI_NVBLAS, BI_NVBLAS_TUNED};
    static const int kern[] = {BI_TSGEMM_KERNEL, BI_CUBLAS_KERNEL};
    const int nh = (int)(sizeof host / sizeof *host), nk = (int)(sizeof kern / sizeof *kern);

    fprintf(f, "End to end, host memory (median; tsgemm/openblas = speedup of tsgemm):\n");
    column_heads(f, "shape", host, nh, "  tsgemm/openblas  tsgemm ran");
    for (int i = 0; i < nshapes; ++i) {
        fprintf(f, "%-*s", LABEL_W, bench_shape_label(&shapes[i], label, sizeof label));
        for (int j = 0; j < nh; ++j) cell(f, &ns, host[j], at(res, i, host[j]), &shapes[i]);
        const bench_result *o = at(res, i, BI_OPENBLAS), *t = at(res, i, BI_TSGEMM);
        if (o->status == BS_OK && t->status == BS_OK)
            fprintf(f, "  %14.2fx", o->median_ms / t->median_ms);
        else
            fprintf(f, "  %15s", "-");
        const char *where = t->status != BS_OK ? "-"
                            : !strcmp(t->reason, "ran on gpu") ? "gpu"
                            : !strcmp(t->reason, "ran on cpu") ? "cpu"
                                                               : "mixed";
        fprintf(f, "  %s\n", where);
    }

    int any_kernel = 0;
    for (int i = 0; i < nshapes; ++i)
        for (int j = 0; j < nk; ++j) any_kernel |= at(res, i, kern[j])->status != BS_NONE;
    fprintf(f, "\n");
    if (any_kernel) {
        fprintf(f, "Kernel only, device-resident data (CUDA events, median):\n");
        column_heads(f, "shape", kern, nk, "  tsgemm/cublas");
        for (int i = 0; i < nshapes; ++i) {
            fprintf(f, "%-*s", LABEL_W, bench_shape_label(&shapes[i], label, sizeof label));
            for (int j = 0; j < nk; ++j) cell(f, &ns, kern[j], at(res, i, kern[j]), &shapes[i]);
            const bench_result *t = at(res, i, BI_TSGEMM_KERNEL), *c = at(res, i, BI_CUBLAS_KERNEL);
            if (t->status == BS_OK && c->status == BS_OK)
                fprintf(f, "  %12.2fx\n", c->median_ms / t->median_ms);
            else
                fprintf(f, "  %13s\n", "-");
        }
        fprintf(f, "\n");
    } else {
        fprintf(f, "Kernel only: not run.\n\n");
    }
    if (ns.n) {
        fprintf(f, "Notes (why a cell has no time):\n");
        print_notes(f, &ns, nshapes);
        fprintf(f, "\n");
    }

    fprintf(f, "Fastest per shape (end to end; kernel-only in brackets):\n");
    for (int i = 0; i < nshapes; ++i) {
        int best = -1, second = -1;
        for (int j = 0; j < nh; ++j) {
            const bench_result *r = at(res, i, host[j]);
            if (r->status != BS_OK) continue;
            if (best < 0 || r->median_ms < at(res, i, best)->median_ms) {
                second = best;
                best = host[j];
            } else if (second < 0 || r->median_ms < at(res, i, second)->median_ms) {
                second = host[j];
            }
        }
        fprintf(f, "  %-*s", LABEL_W, bench_shape_label(&shapes[i], label, sizeof label));
        if (best < 0) {
            fprintf(f, "no implementation ran correctly");
        } else {
            char ms[32];
            fmt_ms(ms, sizeof ms, at(res, i, best)->median_ms);
            fprintf(f, "%-14s %9s ms", bench_impl_name(best), ms);
            if (second >= 0)
                fprintf(f, "  (next %s, %.2fx slower)", bench_impl_name(second),
                        at(res, i, second)->median_ms / at(res, i, best)->median_ms);
        }
        int kb = -1;
        for (int j = 0; j < nk; ++j) {
            const bench_result *r = at(res, i, kern[j]);
            if (r->status == BS_OK && (kb < 0 || r->median_ms < at(res, i, kb)->median_ms))
                kb = kern[j];
        }
        if (kb >= 0) fprintf(f, "  [%s]", bench_impl_name(kb));
        else if (any_kernel) fprintf(f, "  [kernel: none ran]");
        fprintf(f, "\n");
    }
    free(ns.v);
}

/* ------------------------------------------------------------------ CSV */

static const char *const csv_cols[] = {
    "m",        "n",         "k",      "transa", "transb",      "layout", "alpha", "beta",
    "impl",     "reps",      "median_ms", "min_ms", "max_ms",    "tflops", "max_rel_err",
    "status",   "reason"};
enum { NCOLS = sizeof csv_cols / sizeof *csv_cols };

static void csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int bench_csv_write(const char *path, const bench_shape *shapes, int nshapes,
                    const bench_result *res, double alpha, double beta)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    for (int c = 0; c < NCOLS; ++c) fprintf(f, "%s%s", c ? "," : "", csv_cols[c]);
    fprintf(f, "\n");
    for (int i = 0; i < nshapes; ++i) {
        const bench_shape *s = &shapes[i];
        for (int j = 0; j < BI_COUNT; ++j) {
            const bench_result *r = at(res, i, j);
            fprintf(f, "%lld,%lld,%lld,%c,%c,%s,%g,%g,%s,", (long long)s->m, (long long)s->n,
                    (long long)s->k, s->ta, s->tb, s->row ? "row" : "col", alpha, beta,
                    bench_impl_name(j));
            if (r->status == BS_OK)
                fprintf(f, "%d,%.6g,%.6g,%.6g,%.6g,%.3g,", r->reps, r->median_ms, r->min_ms,
                        r->max_ms, bench_result_tflops(r, s), r->err);
            else if (r->status == BS_WRONG)
                fprintf(f, ",,,,,%.3g,", r->err); /* no time for a wrong result */
            else
                fprintf(f, ",,,,,,");
            fprintf(f, "%s,", bench_status_name(r->status));
            csv_quoted(f, r->reason);
            fprintf(f, "\n");
        }
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        errno = e;
        return -1;
    }
    return fclose(f);
}

/* Splits one CSV line (RFC 4180 quoting, no embedded newlines) into at most max fields. */
static int csv_split(char *line, char **field, int max)
{
    int n = 0;
    char *p = line;
    line[strcspn(line, "\r\n")] = '\0';
    while (n < max) {
        if (*p == '"') {
            char *w = ++p;
            field[n++] = w;
            for (;;) {
                if (*p == '\0') break;
                if (*p == '"' && p[1] == '"') { *w++ = '"'; p += 2; continue; }
                if (*p == '"') { ++p; break; }
                *w++ = *p++;
            }
            *w = '\0';
            /* p now at ',' or end; w <= p, so the terminator never clobbers unread text */
            if (*p == ',') ++p;
            else break;
        } else {
            field[n++] = p;
            char *c = strchr(p, ',');
            if (!c) break;
            *c = '\0';
            p = c + 1;
        }
    }
    return n;
}

static double num_or_nan(const char *s) { return *s ? strtod(s, NULL) : NAN; }

int bench_csv_read(const char *path, bench_shape **shapes_out, int *nshapes_out,
                   bench_result **res_out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int idx[NCOLS];
    char *fld[64];
    int ok = getline(&line, &cap, f) > 0;
    if (ok) {
        int n = csv_split(line, fld, 64);
        for (int c = 0; c < NCOLS; ++c) {
            idx[c] = -1;
            for (int j = 0; j < n; ++j)
                if (!strcmp(fld[j], csv_cols[c])) idx[c] = j;
            if (idx[c] < 0 && strcmp(csv_cols[c], "alpha") && strcmp(csv_cols[c], "beta") &&
                strcmp(csv_cols[c], "tflops")) {
                snprintf(err, errlen, "no column \"%s\" in the header", csv_cols[c]);
                ok = 0;
                break;
            }
        }
    } else {
        snprintf(err, errlen, "empty file");
    }
    bench_shape *shapes = NULL;
    bench_result *res = NULL;
    int ns = 0, lineno = 1;
    while (ok && getline(&line, &cap, f) > 0) {
        ++lineno;
        if (line[0] == '\n' || line[0] == '#') continue;
        int n = csv_split(line, fld, 64);
        const char *v[NCOLS];
        for (int c = 0; c < NCOLS; ++c) v[c] = idx[c] >= 0 && idx[c] < n ? fld[idx[c]] : "";
        bench_shape s = {atoll(v[0]), atoll(v[1]), atoll(v[2]), v[3][0], v[4][0],
                         !strcmp(v[5], "row")};
        int impl = bench_impl_from_name(v[8]), st = bench_status_from_name(v[15]);
        if (s.m < 1 || s.n < 1 || s.k < 1 || impl < 0 || st < 0) {
            snprintf(err, errlen, "line %d: not a tsgemm-bench row", lineno);
            ok = 0;
            break;
        }
        int i;
        for (i = 0; i < ns; ++i)
            if (shapes[i].m == s.m && shapes[i].n == s.n && shapes[i].k == s.k &&
                shapes[i].ta == s.ta && shapes[i].tb == s.tb && shapes[i].row == s.row)
                break;
        if (i == ns) {
            bench_shape *g = realloc(shapes, sizeof *g * (size_t)(ns + 1));
            bench_result *h = g ? realloc(res, sizeof *h * (size_t)(ns + 1) * BI_COUNT) : NULL;
            if (g) shapes = g;
            if (h) res = h;
            if (!g || !h) {
                snprintf(err, errlen, "out of memory");
                ok = 0;
                break;
            }
            shapes[ns] = s;
            for (int j = 0; j < BI_COUNT; ++j)
                bench_result_set(&res[ns * BI_COUNT + j], BS_NONE, "not in the CSV");
            ++ns;
        }
        bench_result *r = &res[i * BI_COUNT + impl];
        r->status = st;
        r->reps = atoi(v[9]);
        r->median_ms = num_or_nan(v[10]);
        r->min_ms = num_or_nan(v[11]);
        r->max_ms = num_or_nan(v[12]);
        r->err = num_or_nan(v[14]);
        snprintf(r->reason, sizeof r->reason, "%s", v[16]);
    }
    free(line);
    fclose(f);
    if (ok && ns == 0) {
        snprintf(err, errlen, "no rows");
        ok = 0;
    }
    if (!ok) {
        free(shapes);
        free(res);
        return -1;
    }
    *shapes_out = shapes;
    *nshapes_out = ns;
    *res_out = res;
    return 0;
}
