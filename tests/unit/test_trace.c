/*
 * test_trace.c — the call trace's text format (src/tsg_trace.h): records survive format and
 * parse unchanged, and the parser refuses every kind of bad line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_trace.h"

static tsg_trace_rec sample(void)
{
    tsg_trace_rec r;
    memset(&r, 0, sizeof r);
    r.entry = TSG_TRACE_CBLAS;
    r.row_major = 1;
    r.transa = 'N', r.transb = 'T';
    r.m = 1000, r.n = 800, r.k = 600;
    r.lda = 600, r.ldb = 600, r.ldc = 800; /* row-major: A m x k (ld >= k), B^T n x k, C m x n */
    r.alpha = TSG_TRACE_ONE, r.beta = TSG_TRACE_ZERO;
    r.where_a = 'h', r.where_b = 'p', r.where_c = 'h';
    r.fresh_c = 1;
    r.gap_ns = 15000;
    r.path = TSG_TRACE_PATH_CPU;
    r.time_ns = 2500000;
    return r;
}

static void assert_same(const tsg_trace_rec *a, const tsg_trace_rec *b)
{
    assert_int_equal(a->entry, b->entry);
    assert_int_equal(a->row_major, b->row_major);
    assert_int_equal(a->transa, b->transa);
    assert_int_equal(a->transb, b->transb);
    assert_int_equal(a->m, b->m);
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->k, b->k);
    assert_int_equal(a->lda, b->lda);
    assert_int_equal(a->ldb, b->ldb);
    assert_int_equal(a->ldc, b->ldc);
    assert_int_equal(a->alpha, b->alpha);
    assert_int_equal(a->beta, b->beta);
    assert_int_equal(a->where_a, b->where_a);
    assert_int_equal(a->where_b, b->where_b);
    assert_int_equal(a->where_c, b->where_c);
    assert_int_equal(a->fresh_c, b->fresh_c);
    assert_int_equal(a->gap_ns, b->gap_ns);
    assert_int_equal(a->path, b->path);
    assert_int_equal(a->time_ns, b->time_ns);
}

static int parse(const char *line, tsg_trace_rec *out, const char **why)
{
    return tsg_trace_parse_line(line, strlen(line), out, why);
}

static void test_known_line(void **state)
{
    (void)state;
    tsg_trace_rec r = sample();
    char buf[TSG_TRACE_LINE_MAX + 2];
    int n = tsg_trace_format(&r, buf, sizeof buf);
    const char *want = "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000\n";
    assert_int_equal(n, (int)strlen(want));
    assert_string_equal(buf, want);
}

static void test_round_trip(void **state)
{
    (void)state;
    /* every entry, path, scalar class, residency letter, both layouts, extreme values */
    const char where[4] = {'h', 'p', 'm', 'd'};
    int count = 0;
    for (int e = 0; e < TSG_TRACE_ENTRY_COUNT; ++e)
        for (int p = 0; p < TSG_TRACE_PATH_COUNT; ++p)
            for (int s = 0; s < 9; ++s) {
                tsg_trace_rec r = sample(), back;
                r.entry = e;
                r.path = p;
                r.row_major = tsg_trace_entry_is_cblas(e) ? s & 1 : 0;
                r.alpha = s % 3, r.beta = (s / 3) % 3;
                r.where_a = where[s % 4], r.where_b = where[(s + 1) % 4], r.where_c = where[(s + 2) % 4];
                r.fresh_c = s & 1;
                r.transa = "NTC"[s % 3], r.transb = "NTC"[(s + 1) % 3];
                const int64_t big = tsg_trace_entry_is_64(e) ? TSG_TRACE_DIM_MAX : INT32_MAX;
                if (p == TSG_TRACE_TINY) {
                    r.m = 127, r.n = 128, r.k = 128; /* 127*128*128 < 128^3 */
                } else {
                    r.m = s == 4 ? big : 3, r.n = s == 5 ? 0 : 5, r.k = 7;
                }
                r.lda = r.ldb = r.ldc = big;
                r.gap_ns = s == 6 ? TSG_TRACE_NS_MAX : (uint64_t)s;
                r.time_ns = s == 7 ? TSG_TRACE_NS_MAX : 0;
                char buf[TSG_TRACE_LINE_MAX + 2];
                int n = tsg_trace_format(&r, buf, sizeof buf);
                assert_true(n > 0 && buf[n - 1] == '\n');
                memset(&back, 0x5a, sizeof back);
                const char *why = NULL;
                assert_int_equal(tsg_trace_parse_line(buf, (size_t)n - 1, &back, &why), TSG_TRACE_CALL);
                assert_same(&r, &back);
                ++count;
            }
    assert_int_equal(count, TSG_TRACE_ENTRY_COUNT * TSG_TRACE_PATH_COUNT * 9);
}

static void test_comments_and_header(void **state)
{
    (void)state;
    tsg_trace_rec r;
    assert_true(tsg_trace_is_header(TSG_TRACE_HEADER, strlen(TSG_TRACE_HEADER)));
    assert_false(tsg_trace_is_header("# tsgemm-trace 2", 16));
    assert_false(tsg_trace_is_header("# tsgemm-trace 1 ", 17));
    assert_false(tsg_trace_is_header("# tsgemm-trace", 14));
    assert_int_equal(parse(TSG_TRACE_HEADER, &r, NULL), TSG_TRACE_COMMENT);
    assert_int_equal(parse("# pid 1234 python3", &r, NULL), TSG_TRACE_COMMENT);
    assert_int_equal(parse("#", &r, NULL), TSG_TRACE_COMMENT);
    assert_int_equal(parse("# tab\there", &r, NULL), TSG_TRACE_BAD);
}

static void test_rejects_bad_lines(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",                                                                         /* empty */
        " cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000", /* lead space */
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000 ", /* trailing */
        "cblas_sgemm row N T 1000  800 600 600 600 800 1 0 hph 1 15000 cpu 2500000", /* two spaces */
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu",          /* 16 fields */
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000 7", /* 18 */
        "dgemm_ col N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000",      /* entry */
        "cblas_sgemm diag N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000", /* layout */
        "sgemm_ row N T 1000 800 600 1000 800 1000 1 0 hhh 1 15000 cpu 2500000",   /* f77 row */
        "cblas_sgemm row X T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000", /* trans */
        "cblas_sgemm row NN T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000",
        "cblas_sgemm row N T -1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000", /* sign */
        "cblas_sgemm row N T +1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000",
        "cblas_sgemm row N T 01000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000", /* lead 0 */
        "cblas_sgemm row N T 1e3 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000",   /* exponent */
        "cblas_sgemm row N T 0x10 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000",  /* hex */
        "cblas_sgemm row N T 1K 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000",    /* unit */
        "cblas_sgemm row N T 2147483648 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000", /* >int32 */
        "cblas_sgemm64_ row N T 1099511627777 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000",
        "cblas_sgemm row N T 99999999999999999999 800 600 600 600 800 1 0 hph 1 15000 cpu 1",
        "cblas_sgemm row N T 1000 800 600 599 600 800 1 0 hph 1 15000 cpu 2500000",  /* lda < k */
        "cblas_sgemm row N T 1000 800 600 600 599 800 1 0 hph 1 15000 cpu 2500000",  /* ldb < k */
        "cblas_sgemm row N T 1000 800 600 600 600 799 1 0 hph 1 15000 cpu 2500000",  /* ldc < n */
        "cblas_sgemm col N N 1000 800 600 999 600 1000 1 0 hhh 1 15000 cpu 2500000", /* lda < m */
        "cblas_sgemm col N N 0 0 0 0 1 1 1 0 hhh 1 15000 quick 10",                  /* ld 0 */
        "cblas_sgemm row N T 1000 800 600 600 600 800 2 0 hph 1 15000 cpu 2500000",  /* alpha */
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0.5 hph 1 15000 cpu 2500000",
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hxh 1 15000 cpu 2500000",  /* where */
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hh 1 15000 cpu 2500000",
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 2 15000 cpu 2500000",  /* fresh */
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 1000000000000001 cpu 2500000",
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 1000000000000001",
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 fpga 2500000", /* path */
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 tiny 2500000", /* not tiny */
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 CPU 2500000",
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000\r", /* CR */
        "cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 25000000000000000000000000000000000",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        tsg_trace_rec r = sample();
        const tsg_trace_rec before = r;
        const char *why = NULL;
        int got = parse(bad[i], &r, &why);
        if (got != TSG_TRACE_BAD) fail_msg("accepted bad line %zu: \"%s\"", i, bad[i]);
        assert_non_null(why);
        assert_memory_equal(&r, &before, sizeof r); /* out untouched */
    }
    /* the good twin of those lines parses */
    tsg_trace_rec r;
    assert_int_equal(parse("cblas_sgemm row N T 1000 800 600 600 600 800 1 0 hph 1 15000 cpu 2500000", &r, NULL),
                     TSG_TRACE_CALL);
    assert_int_equal(r.m, 1000);
    assert_int_equal(parse("cblas_sgemm col N N 0 0 0 1 1 1 1 0 hhh 1 0 quick 10", &r, NULL), TSG_TRACE_CALL);
    /* a NUL inside the given length, and a line one byte over the bound */
    const char nul[] = "cblas_sgemm col N N 1 1 1 1 1 1 1 0 hhh 1 0 tiny 1\0 x";
    assert_int_equal(tsg_trace_parse_line(nul, sizeof nul - 1, &r, NULL), TSG_TRACE_BAD);
    char longline[TSG_TRACE_LINE_MAX + 2];
    memset(longline, '#', sizeof longline);
    assert_int_equal(tsg_trace_parse_line(longline, TSG_TRACE_LINE_MAX, &r, NULL), TSG_TRACE_COMMENT);
    assert_int_equal(tsg_trace_parse_line(longline, TSG_TRACE_LINE_MAX + 1, &r, NULL), TSG_TRACE_BAD);
    /* a non-ASCII byte */
    assert_int_equal(parse("# caf\xc3\xa9", &r, NULL), TSG_TRACE_BAD);
}

static void test_format_refuses_invalid(void **state)
{
    (void)state;
    char buf[TSG_TRACE_LINE_MAX + 2];
    tsg_trace_rec r = sample();
    r.ldc = 10; /* below n for row-major */
    assert_int_equal(tsg_trace_format(&r, buf, sizeof buf), -1);
    r = sample();
    r.entry = TSG_TRACE_F77; /* Fortran entries have no row-major layout */
    assert_int_equal(tsg_trace_format(&r, buf, sizeof buf), -1);
    r = sample();
    assert_int_equal(tsg_trace_format(&r, buf, 20), -1); /* too small a buffer */
    assert_int_equal(tsg_trace_scalar_class(0.0f), TSG_TRACE_ZERO);
    assert_int_equal(tsg_trace_scalar_class(-0.0f), TSG_TRACE_ZERO);
    assert_int_equal(tsg_trace_scalar_class(1.0f), TSG_TRACE_ONE);
    assert_int_equal(tsg_trace_scalar_class(-1.0f), TSG_TRACE_OTHER);
    assert_string_equal(tsg_trace_entry_name(TSG_TRACE_SCIPY_F77), "scipy_sgemm_");
    assert_string_equal(tsg_trace_entry_name(99), "?");
}

/* the four names whose CPU side is the caller's own library, and no other entry */
static void test_own_blas_entries(void **state)
{
    (void)state;
    int own = 0;
    for (int e = -1; e <= TSG_TRACE_ENTRY_COUNT; ++e) own += tsg_trace_entry_own_blas(e);
    assert_int_equal(own, 4);
    assert_true(tsg_trace_entry_own_blas(TSG_TRACE_SCIPY_CBLAS64));
    assert_true(tsg_trace_entry_own_blas(TSG_TRACE_CBLAS64));
    assert_true(tsg_trace_entry_own_blas(TSG_TRACE_SCIPY_CBLAS));
    assert_true(tsg_trace_entry_own_blas(TSG_TRACE_SCIPY_F77));
    assert_false(tsg_trace_entry_own_blas(TSG_TRACE_SCIPY_F77_64));
    assert_false(tsg_trace_entry_own_blas(TSG_TRACE_CBLAS));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_line),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_comments_and_header),
        cmocka_unit_test(test_rejects_bad_lines),
        cmocka_unit_test(test_format_refuses_invalid),
        cmocka_unit_test(test_own_blas_entries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
