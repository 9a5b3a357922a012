/*
 * tsg_testutil.c — see tsg_testutil.h.
 */
#define _GNU_SOURCE
#include "tsg_testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

double tt_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double tt_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int tt_in_list(const char *list, int c)
{
    for (const char *p = list; *p;) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p) return 0;
        if (v == c) return 1;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

const float tt_sentinel = 12345.678f;

void tt_seed(tt_rng *r, uint64_t seed) { r->s = seed ? seed : 0x9e3779b97f4a7c15ull; }

uint64_t tt_next(tt_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

float tt_uniform(tt_rng *r) { return (float)((double)(tt_next(r) >> 11) * 0x1p-52 - 1.0); }

float tt_small_int(tt_rng *r, int lo, int hi)
{
    return (float)(lo + (int)(tt_next(r) % (uint64_t)(hi - lo + 1)));
}


/* Floats of the last column in the buffer: the rows and up to TT_GUARD of its padding. */
static int64_t last_column_span(int64_t rows, int64_t ld)
{
    return ld < rows + TT_GUARD ? ld : rows + TT_GUARD;
}

int tt_mat_alloc(tt_mat *m, int64_t rows, int64_t cols, int64_t ld, int offset)
{
    memset(m, 0, sizeof *m);
    m->rows = rows;
    m->cols = cols;
    m->ld = ld;
    /* padding after the last column is there to be watched too, up to TT_GUARD floats (a huge
     * ld with one column costs no memory) */
    size_t body = (size_t)((cols > 1 ? cols - 1 : 0) * ld + last_column_span(rows, ld));
    m->first = TT_GUARD + (size_t)offset;
    m->total = m->first + body + TT_GUARD;
    if (posix_memalign((void **)&m->mem, 64, m->total * sizeof(float))) return -1;
    for (size_t i = 0; i < m->total; ++i) m->mem[i] = tt_sentinel;
    m->p = m->mem + m->first;
    return 0;
}

void tt_mat_free(tt_mat *m)
{
    free(m->mem);
    m->mem = m->p = NULL;
}

#define FOR_EACH(m, expr)                                                                         \
    for (int64_t j_ = 0; j_ < (m)->cols; ++j_)                                                   \
        for (int64_t i_ = 0; i_ < (m)->rows; ++i_) (m)->p[i_ + j_ * (m)->ld] = (expr)

void tt_mat_fill_uniform(tt_mat *m, tt_rng *r) { FOR_EACH(m, tt_uniform(r)); }
void tt_mat_fill_int(tt_mat *m, tt_rng *r, int lo, int hi) { FOR_EACH(m, tt_small_int(r, lo, hi)); }
void tt_mat_fill_value(tt_mat *m, float v) { FOR_EACH(m, v); }

void tt_mat_fill_padding(tt_mat *m, float v)
{
    for (int64_t j = 0; j < m->cols; ++j) {
        const int64_t end = j == m->cols - 1 ? last_column_span(m->rows, m->ld) : m->ld;
        for (int64_t i = m->rows; i < end; ++i) m->p[i + j * m->ld] = v;
    }
}

float *tt_mat_snapshot(const tt_mat *m)
{
    float *s = malloc(m->total * sizeof(float));
    if (s) memcpy(s, m->mem, m->total * sizeof(float));
    return s;
}

static int inside(const tt_mat *m, size_t idx)
{
    if (idx < m->first) return 0;
    size_t rel = idx - m->first;
    int64_t j = (int64_t)rel / m->ld, i = (int64_t)rel % m->ld;
    return j < m->cols && i < m->rows;
}

size_t tt_mat_outside_changed(const tt_mat *m, const float *snap)
{
    size_t bad = 0;
    for (size_t i = 0; i < m->total; ++i)
        if (!inside(m, i) && memcmp(&m->mem[i], &snap[i], sizeof(float))) ++bad;
    return bad;
}

size_t tt_mat_any_changed(const tt_mat *m, const float *snap)
{
    size_t bad = 0;
    for (size_t i = 0; i < m->total; ++i)
        if (memcmp(&m->mem[i], &snap[i], sizeof(float))) ++bad;
    return bad;
}

float *tt_guarded_alloc(size_t count)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = count * sizeof(float);
    size_t data_pages = (bytes + page - 1) / page;
    size_t len = (data_pages + 1) * page;
    char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
    if (mprotect(base + data_pages * page, page, PROT_NONE)) {
        munmap(base, len);
        return NULL;
    }
    return (float *)(base + data_pages * page - bytes);
}

void tt_guarded_free(float *p, size_t count)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = count * sizeof(float);
    size_t data_pages = (bytes + page - 1) / page;
    char *end = (char *)p + bytes;
    munmap(end - data_pages * page, (data_pages + 1) * page);
}

void tt_stored_shape(int row_major, char which, char trans, int64_t m, int64_t n, int64_t k,
                     int64_t *rows, int64_t *cols)
{
    int64_t r = which == 'A' ? m : which == 'B' ? k : m; /* op(X) as the user sees it */
    int64_t c = which == 'A' ? k : n;
    if (which != 'C' && trans != 'N') { int64_t x = r; r = c; c = x; } /* stored as X^T */
    if (row_major) { int64_t x = r; r = c; c = x; }
    *rows = r;
    *cols = c;
}

static int is_trans(char t) { return t == 'T' || t == 't' || t == 'C' || t == 'c'; }

void tt_ref_gemm_at(char transa, char transb, int64_t k, double alpha, const float *a,
                    int64_t lda, const float *b, int64_t ldb, double beta, const float *c,
                    int64_t ldc, int64_t i, int64_t j, double *r, double *absr)
{
    const int ta = is_trans(transa), tb = is_trans(transb);
    /* beta*C, C not read when beta = 0 (sgemm.f: C(I,J) = ZERO) */
    double v = beta == 0.0 ? 0.0 : beta * (double)c[i + j * ldc];
    double av = fabs(v);
    if (alpha != 0.0 && k > 0) {
        if (!ta) { /* DO L: TEMP = ALPHA*B(L,J); DO I: C(I,J) = C(I,J) + TEMP*A(I,L) */
            for (int64_t l = 0; l < k; ++l) {
                double t = alpha * (double)(tb ? b[j + l * ldb] : b[l + j * ldb]);
                double p = t * (double)a[i + l * lda];
                v += p;
                av += fabs(p);
            }
        } else { /* TEMP = sum A(L,I)*B(L,J); C(I,J) = ALPHA*TEMP (+ BETA*C(I,J)) */
            double s = 0.0, sa = 0.0;
            for (int64_t l = 0; l < k; ++l) {
                double p = (double)a[l + i * lda] * (double)(tb ? b[j + l * ldb] : b[l + j * ldb]);
                s += p;
                sa += fabs(p);
            }
            v += alpha * s;
            av += fabs(alpha) * sa;
        }
    }
    *r = v;
    if (absr) *absr = av;
}

void tt_ref_gemm(char transa, char transb, int64_t m, int64_t n, int64_t k, double alpha,
                 const float *a, int64_t lda, const float *b, int64_t ldb, double beta,
                 const float *c, int64_t ldc, double *r, double *absr)
{
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            tt_ref_gemm_at(transa, transb, k, alpha, a, lda, b, ldb, beta, c, ldc, i, j,
                           &r[i + j * m], absr ? &absr[i + j * m] : NULL);
}

tt_check tt_compare(const float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                    const double *r, const double *absr, double gamma)
{
    const tt_bound b = {gamma, 0.0, 0, 0.0};
    return tt_compare_bound(c, ldc, m, n, k, r, absr, &b);
}

tt_check tt_compare_bound(const float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                          const double *r, const double *absr, const tt_bound *bound)
{
    tt_check res = {0, 0, 0.0, 0.0, -1, -1};
    const double u = 0x1p-24;
    double num = 0, den = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double got = c[i + j * ldc], want = r[i + j * m];
            int ok;
            if (!isfinite(want) && bound->any_nonfinite) ok = !isfinite(got);
            else if (isnan(want)) ok = isnan(got);
            else if (isinf(want)) ok = got == want;
            else if (!isfinite(got)) ok = 0;
            else {
                /* k products summed, then alpha and beta applied: gamma_(k+2) of the classic
                 * analysis (Higham, Accuracy and Stability of Numerical Algorithms, 3.5), plus
                 * the split's error of a 3xTF32 product (TT_SPLIT3) */
                double bound_ij = (bound->gamma * (double)(k + 2) * u + bound->split) *
                                      (absr ? absr[i + j * m] : 0) +
                                  bound->floor;
                double diff = fabs(got - want);
                ok = diff <= bound_ij;
                if (bound_ij > 0 && diff / bound_ij > res.worst_ratio) res.worst_ratio = diff / bound_ij;
                num += diff * diff;
                den += want * want;
            }
            if (got != 0.0) res.nonzero++;
            if (!ok) {
                if (res.bad == 0) res.first_i = i, res.first_j = j;
                res.bad++;
            }
        }
    res.rel_fro = den > 0 ? sqrt(num / den) : sqrt(num);
    return res;
}

static int sample_bad(char transa, char transb, int64_t i, int64_t j, int64_t k, float alpha,
                      const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                      const float *c0, int64_t ldc0, const float *c, int64_t ldc, const tt_bound *bound)
{
    double r, absr;
    tt_ref_gemm(transa, transb, 1, 1, k, alpha,
                (transa == 'N' || transa == 'n') ? a + i : a + i * lda, lda,
                (transb == 'N' || transb == 'n') ? b + j * ldb : b + j, ldb, beta,
                beta != 0.0f ? c0 + i + j * ldc0 : NULL, ldc0, &r, &absr);
    tt_check one = tt_compare_bound(c + i + j * ldc, ldc, 1, 1, k, &r, &absr, bound);
    return one.bad != 0;
}

size_t tt_check_sampled(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                        const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                        const float *c0, int64_t ldc0, const float *c, int64_t ldc, tt_rng *r,
                        int edge, int random, int64_t *fi, int64_t *fj)
{
    const tt_bound fp32 = {TT_GAMMA, 0.0, 0, 0.0};
    return tt_check_sampled_bound(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c0, ldc0, c, ldc, r,
                                  edge, random, fi, fj, &fp32);
}

size_t tt_check_sampled_bound(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha,
                              const float *a, int64_t lda, const float *b, int64_t ldb, float beta,
                              const float *c0, int64_t ldc0, const float *c, int64_t ldc, tt_rng *r,
                              int edge, int random, int64_t *fi, int64_t *fj, const tt_bound *bound)
{
    size_t bad = 0;
    *fi = *fj = -1;
#define TT_SAMPLE(ii, jj)                                                                        \
    do {                                                                                         \
        int64_t i_ = (ii), j_ = (jj);                                                            \
        if (sample_bad(transa, transb, i_, j_, k, alpha, a, lda, b, ldb, beta, c0, ldc0, c, ldc, bound)) { \
            if (!bad) *fi = i_, *fj = j_;                                                        \
            bad++;                                                                               \
        }                                                                                        \
    } while (0)
    for (int64_t t = 0; t < edge && t < m; ++t) { /* first and last column, spread over rows */
        int64_t i = m <= edge ? t : t * (m - 1) / (edge - 1 > 0 ? edge - 1 : 1);
        TT_SAMPLE(i, 0);
        TT_SAMPLE(i, n - 1);
    }
    for (int64_t t = 0; t < edge && t < n; ++t) { /* first and last row */
        int64_t j = n <= edge ? t : t * (n - 1) / (edge - 1 > 0 ? edge - 1 : 1);
        TT_SAMPLE(0, j);
        TT_SAMPLE(m - 1, j);
    }
    for (int t = 0; t < random; ++t) TT_SAMPLE((int64_t)(tt_next(r) % (uint64_t)m), (int64_t)(tt_next(r) % (uint64_t)n));
#undef TT_SAMPLE
    return bad;
}
