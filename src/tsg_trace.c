/*
 * tsg_trace.c — the call trace's text format. See tsg_trace.h.
 */
#include "tsg_trace.h"

#include <stdio.h>
#include <string.h>

#include "tsg_config.h" /* tsg_parse_uint */
#include "tsg_problem.h" /* tsg_where */

static const char *const entry_names[TSG_TRACE_ENTRY_COUNT] = {
    "cblas_sgemm",       "sgemm_",          "cblas_sgemm64_",    "sgemm_64_",
    "scipy_cblas_sgemm64_", "scipy_sgemm_64_", "scipy_cblas_sgemm", "scipy_sgemm_",
    "tsgemm_sgemm_device"};
static const char *const path_names[TSG_TRACE_PATH_COUNT] = {"tiny",  "cpu",   "gpu",
                                                             "retry", "quick", "refused"};

const char *tsg_trace_entry_name(int entry)
{
    return entry >= 0 && entry < TSG_TRACE_ENTRY_COUNT ? entry_names[entry] : "?";
}

const char *tsg_trace_path_name(int path)
{
    return path >= 0 && path < TSG_TRACE_PATH_COUNT ? path_names[path] : "?";
}

int tsg_trace_entry_is_cblas(int entry)
{
    return entry == TSG_TRACE_CBLAS || entry == TSG_TRACE_CBLAS64 ||
           entry == TSG_TRACE_SCIPY_CBLAS64 || entry == TSG_TRACE_SCIPY_CBLAS;
}

int tsg_trace_entry_is_64(int entry)
{
    return entry == TSG_TRACE_CBLAS64 || entry == TSG_TRACE_F77_64 ||
           entry == TSG_TRACE_SCIPY_CBLAS64 || entry == TSG_TRACE_SCIPY_F77_64 ||
           entry == TSG_TRACE_DEVICE;
}

int tsg_trace_entry_own_blas(int entry)
{
    return entry == TSG_TRACE_CBLAS64 || entry == TSG_TRACE_SCIPY_CBLAS64 ||
           entry == TSG_TRACE_SCIPY_CBLAS || entry == TSG_TRACE_SCIPY_F77;
}

int tsg_trace_scalar_class(float v)
{
    return v == 0.0f ? TSG_TRACE_ZERO : v == 1.0f ? TSG_TRACE_ONE : TSG_TRACE_OTHER;
}

static const char scalar_chars[3] = {'0', '1', 'x'};

static int is_trans(char t) { return t == 'N' || t == 'T' || t == 'C'; }
char tsg_trace_where_letter(int where)
{
    return where == TSG_DEVICE ? 'd' : where == TSG_MANAGED ? 'm' : where == TSG_PINNED ? 'p' : 'h';
}

static int is_where(char w) { return w == 'h' || w == 'p' || w == 'm' || w == 'd'; }

const char *tsg_trace_check(const tsg_trace_rec *r)
{
    if (r->entry < 0 || r->entry >= TSG_TRACE_ENTRY_COUNT) return "unknown entry";
    if (r->row_major != 0 && r->row_major != 1) return "bad layout";
    if (r->row_major && !tsg_trace_entry_is_cblas(r->entry)) return "row-major Fortran entry";
    if (!is_trans(r->transa) || !is_trans(r->transb)) return "bad transpose";
    const int64_t max = tsg_trace_entry_is_64(r->entry) ? TSG_TRACE_DIM_MAX : INT32_MAX;
    if (r->m < 0 || r->n < 0 || r->k < 0 || r->m > max || r->n > max || r->k > max)
        return "size out of range";
    if (r->lda < 1 || r->ldb < 1 || r->ldc < 1 || r->lda > max || r->ldb > max || r->ldc > max)
        return "leading dimension out of range";
    /* the reference checks (netlib SGEMM, cblas_sgemm's row-major swap): ld >= max(1, rows) of
     * the operand as stored */
    const int na = r->transa == 'N', nb = r->transb == 'N';
    const int64_t rows_a = r->row_major ? (na ? r->k : r->m) : (na ? r->m : r->k);
    const int64_t rows_b = r->row_major ? (nb ? r->n : r->k) : (nb ? r->k : r->n);
    const int64_t rows_c = r->row_major ? r->n : r->m;
    if (r->lda < rows_a || r->ldb < rows_b || r->ldc < rows_c) return "leading dimension below the rows";
    if (r->alpha < 0 || r->alpha > 2 || r->beta < 0 || r->beta > 2) return "bad scalar class";
    if (!is_where(r->where_a) || !is_where(r->where_b) || !is_where(r->where_c)) return "bad residency";
    if (r->fresh_c != 0 && r->fresh_c != 1) return "bad freshness";
    if (r->gap_ns > TSG_TRACE_NS_MAX || r->time_ns > TSG_TRACE_NS_MAX) return "time out of range";
    if (r->path < 0 || r->path >= TSG_TRACE_PATH_COUNT) return "unknown path";
    /* a tiny call is below the GPU floor: m*n*k < 128^3 (src/tsg_dispatch.h) */
    if (r->path == TSG_TRACE_TINY &&
        !(r->m < (1 << 21) && r->n < (1 << 21) && r->k < (1 << 21) &&
          (uint64_t)r->m * (uint64_t)r->n * (uint64_t)r->k < ((uint64_t)1 << 21)))
        return "tiny call above the GPU floor";
    return NULL;
}

int tsg_trace_format(const tsg_trace_rec *r, char *buf, size_t len)
{
    if (!buf || tsg_trace_check(r)) return -1;
    int n = snprintf(buf, len, "%s %s %c %c %lld %lld %lld %lld %lld %lld %c %c %c%c%c %d %llu %s %llu\n",
                     entry_names[r->entry], r->row_major ? "row" : "col", r->transa, r->transb,
                     (long long)r->m, (long long)r->n, (long long)r->k, (long long)r->lda,
                     (long long)r->ldb, (long long)r->ldc, scalar_chars[r->alpha],
                     scalar_chars[r->beta], r->where_a, r->where_b, r->where_c, r->fresh_c,
                     (unsigned long long)r->gap_ns, path_names[r->path],
                     (unsigned long long)r->time_ns);
    if (n < 0 || (size_t)n >= len || n - 1 > TSG_TRACE_LINE_MAX) return -1;
    return n;
}

int tsg_trace_is_header(const char *line, size_t len)
{
    const size_t h = sizeof TSG_TRACE_HEADER - 1;
    return line && len == h && !memcmp(line, TSG_TRACE_HEADER, h);
}

enum { FIELDS = 17, TOKEN_MAX = 32 };

/* The token (a NUL-terminated copy) equal to one of names[0..n): its index, else -1. */
static int lookup(const char *tok, const char *const *names, int n)
{
    for (int i = 0; i < n; ++i)
        if (!strcmp(tok, names[i])) return i;
    return -1;
}

static int one_char(const char *tok, char *out)
{
    if (!tok[0] || tok[1]) return 0;
    *out = tok[0];
    return 1;
}

static int scalar_of(const char *tok)
{
    char c;
    if (!one_char(tok, &c)) return -1;
    return c == '0' ? TSG_TRACE_ZERO : c == '1' ? TSG_TRACE_ONE : c == 'x' ? TSG_TRACE_OTHER : -1;
}

static int number(const char *tok, uint64_t max, uint64_t *out)
{
    return tsg_parse_uint(tok, 0, max, out) == TSG_PARSE_OK;
}

int tsg_trace_parse_line(const char *line, size_t len, tsg_trace_rec *out, const char **why)
{
    const char *dummy;
    if (!why) why = &dummy;
    if (!line) { *why = "no line"; return TSG_TRACE_BAD; }
    if (len > TSG_TRACE_LINE_MAX) { *why = "line too long"; return TSG_TRACE_BAD; }
    for (size_t i = 0; i < len; ++i)
        if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e) {
            *why = "control or non-ASCII byte";
            return TSG_TRACE_BAD;
        }
    if (len > 0 && line[0] == '#') return TSG_TRACE_COMMENT;
    /* split into exactly FIELDS tokens, one space apart */
    char tok[FIELDS][TOKEN_MAX];
    int nt = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; ++i) {
        if (i < len && line[i] != ' ') continue;
        const size_t tl = i - start;
        if (tl == 0) { *why = "empty field (two spaces, or a leading or trailing space)"; return TSG_TRACE_BAD; }
        if (tl >= TOKEN_MAX) { *why = "field too long"; return TSG_TRACE_BAD; }
        if (nt == FIELDS) { *why = "more than 17 fields"; return TSG_TRACE_BAD; }
        memcpy(tok[nt], line + start, tl);
        tok[nt++][tl] = 0;
        start = i + 1;
    }
    if (nt != FIELDS) { *why = "fewer than 17 fields"; return TSG_TRACE_BAD; }
    tsg_trace_rec r;
    memset(&r, 0, sizeof r);
    uint64_t v[6], gap, t;
    r.entry = lookup(tok[0], entry_names, TSG_TRACE_ENTRY_COUNT);
    if (r.entry < 0) { *why = "unknown entry"; return TSG_TRACE_BAD; }
    if (!strcmp(tok[1], "row")) r.row_major = 1;
    else if (!strcmp(tok[1], "col")) r.row_major = 0;
    else { *why = "layout is neither row nor col"; return TSG_TRACE_BAD; }
    if (!one_char(tok[2], &r.transa) || !one_char(tok[3], &r.transb)) {
        *why = "bad transpose";
        return TSG_TRACE_BAD;
    }
    for (int i = 0; i < 6; ++i)
        if (!number(tok[4 + i], (uint64_t)TSG_TRACE_DIM_MAX, &v[i])) {
            *why = "size or leading dimension not a number in range";
            return TSG_TRACE_BAD;
        }
    r.m = (int64_t)v[0], r.n = (int64_t)v[1], r.k = (int64_t)v[2];
    r.lda = (int64_t)v[3], r.ldb = (int64_t)v[4], r.ldc = (int64_t)v[5];
    r.alpha = scalar_of(tok[10]);
    r.beta = scalar_of(tok[11]);
    if (r.alpha < 0 || r.beta < 0) { *why = "scalar class is not 0, 1 or x"; return TSG_TRACE_BAD; }
    if (strlen(tok[12]) != 3) { *why = "residency is not three letters"; return TSG_TRACE_BAD; }
    r.where_a = tok[12][0], r.where_b = tok[12][1], r.where_c = tok[12][2];
    char f;
    if (!one_char(tok[13], &f) || (f != '0' && f != '1')) { *why = "freshness is not 0 or 1"; return TSG_TRACE_BAD; }
    r.fresh_c = f == '1';
    if (!number(tok[14], TSG_TRACE_NS_MAX, &gap) || !number(tok[16], TSG_TRACE_NS_MAX, &t)) {
        *why = "gap or time not a number in range";
        return TSG_TRACE_BAD;
    }
    r.gap_ns = gap, r.time_ns = t;
    r.path = lookup(tok[15], path_names, TSG_TRACE_PATH_COUNT);
    if (r.path < 0) { *why = "unknown path"; return TSG_TRACE_BAD; }
    const char *bad = tsg_trace_check(&r);
    if (bad) { *why = bad; return TSG_TRACE_BAD; }
    *out = r;
    return TSG_TRACE_CALL;
}
