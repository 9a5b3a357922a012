/*
 * test_knob_table.c — src/tsg_config.c's knob table: it is well formed, it drives the parser
 * (every number, word and bound of every table-read knob does what its entry says), and
 * README.md's knob table lists exactly its user knobs.
 *
 * Usage: test_knob_table README.md. README's knob table is the first Markdown table under the
 * level-2 heading that starts with "Knobs"; each of its rows names one knob in its first cell, in
 * backticks (`TSGEMM_MODE`). TSGEMM_TEST_* knobs (only the tests' twin library reads them) are
 * not user knobs and must not be listed there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tsg_config.h"

static const char *g_readme;

/* An environment of one variable, name=value (both NULL: none). */
typedef struct one_var {
    const char *name, *value;
} one_var;

static const char *lookup(const char *name, void *ctx)
{
    const one_var *e = ctx;
    return e->name && !strcmp(name, e->name) ? e->value : NULL;
}

#define PHYS ((uint64_t)8 << 30)

static tsg_config parse1(const char *name, const char *value)
{
    one_var e = {name, value};
    tsg_config c;
    tsg_config_parse(&c, lookup, &e, PHYS);
    return c;
}

/* The field of `knob` in c as a number (its store: int or double). */
static double field_value(const tsg_config *c, const tsg_knob *knob)
{
    const char *f = (const char *)c + knob->offset;
    if (knob->flags & TSG_KNOB_REAL) {
        double d;
        memcpy(&d, f, sizeof d);
        return d;
    }
    int i;
    memcpy(&i, f, sizeof i);
    return i;
}

static void test_table_well_formed(void **state)
{
    (void)state;
    assert_true(tsg_nknobs > 0);
    for (int i = 0; i < tsg_nknobs; ++i) {
        const tsg_knob *k = &tsg_knobs[i];
        assert_non_null(k->name);
        if (strncmp(k->name, "TSGEMM_", 7)) fail_msg("%s: not a TSGEMM_ name", k->name);
        const int test = !strncmp(k->name, "TSGEMM_TEST_", 12);
        if (test != !!(k->flags & TSG_KNOB_TEST))
            fail_msg("%s: TSG_KNOB_TEST must be set exactly for TSGEMM_TEST_* names", k->name);
        for (int j = 0; j < i; ++j)
            if (!strcmp(tsg_knobs[j].name, k->name)) fail_msg("%s: listed twice", k->name);
        if (!k->doc || !k->doc[0]) fail_msg("%s: no doc line", k->name);
        if (!k->field || k->offset + k->size > sizeof(tsg_config))
            fail_msg("%s: field outside tsg_config", k->name);
        switch (k->kind) {
        case TSG_KNOB_UINT:
        case TSG_KNOB_SIZE:
        case TSG_KNOB_WORD:
            if (k->size != ((k->flags & TSG_KNOB_REAL) ? sizeof(double) : sizeof(int)))
                fail_msg("%s: the field's size does not match its store", k->name);
            if (!k->takes || !k->instead) fail_msg("%s: no warning text", k->name);
            if (k->lo > k->hi) fail_msg("%s: lo > hi", k->name);
            if (k->kind == TSG_KNOB_WORD && (!k->words || !k->values || !k->words[0]))
                fail_msg("%s: no words", k->name);
            break;
        case TSG_KNOB_TEXT:
            if (!k->instead || k->size < 2) fail_msg("%s: no text field or fallback", k->name);
            break;
        case TSG_KNOB_OWN:
            if (!k->own) fail_msg("%s: no parser of its own", k->name);
            break;
        default:
            fail_msg("%s: kind %d", k->name, (int)k->kind);
        }
    }
}

/* Every numeric knob takes its bounds and refuses what lies beyond them, by its entry. */
static void test_table_drives_numbers(void **state)
{
    (void)state;
    const tsg_config def = parse1(NULL, NULL);
    int checked = 0;
    for (int i = 0; i < tsg_nknobs; ++i) {
        const tsg_knob *k = &tsg_knobs[i];
        if (k->kind != TSG_KNOB_UINT && k->kind != TSG_KNOB_SIZE &&
            !(k->kind == TSG_KNOB_WORD && (k->flags & TSG_KNOB_OR_UINT)))
            continue;
        char v[32];
        const uint64_t hi = (k->flags & TSG_KNOB_HALF_RAM) ? PHYS / 2 : k->hi;
        const uint64_t ends[2] = {k->lo, hi};
        for (int e = 0; e < 2; ++e) {
            snprintf(v, sizeof v, "%llu", (unsigned long long)ends[e]);
            tsg_config c = parse1(k->name, v);
            if (c.nwarn != 0) fail_msg("%s=%s: %s", k->name, v, c.warn[0]);
            if (field_value(&c, k) != (double)ends[e])
                fail_msg("%s=%s: the field %s holds %g", k->name, v, k->field, field_value(&c, k));
        }
        const char *bad[3] = {"+1", "x", NULL};
        char over[32];
        if (hi < UINT64_MAX) {
            snprintf(over, sizeof over, "%llu", (unsigned long long)hi + 1);
            bad[2] = over;
        }
        for (int b = 0; b < 3 && bad[b]; ++b) {
            tsg_config c = parse1(k->name, bad[b]);
            if (c.nwarn != 1 || !strstr(c.warn[0], k->name))
                fail_msg("%s=%s: %d warnings", k->name, bad[b], c.nwarn);
            if (field_value(&c, k) != field_value(&def, k))
                fail_msg("%s=%s changed the field %s", k->name, bad[b], k->field);
        }
        ++checked;
    }
    assert_true(checked >= 10);
}

/* Every word knob stores each word's value, in the case its entry allows, and nothing else. */
static void test_table_drives_words(void **state)
{
    (void)state;
    const tsg_config def = parse1(NULL, NULL);
    for (int i = 0; i < tsg_nknobs; ++i) {
        const tsg_knob *k = &tsg_knobs[i];
        if (k->kind != TSG_KNOB_WORD) continue;
        for (int w = 0; k->words[w]; ++w) {
            tsg_config c = parse1(k->name, k->words[w]);
            if (c.nwarn != 0 || field_value(&c, k) != k->values[w])
                fail_msg("%s=%s: %d warnings, field %g", k->name, k->words[w], c.nwarn,
                         field_value(&c, k));
            char upper[32];
            snprintf(upper, sizeof upper, "%s", k->words[w]);
            int differs = 0;
            for (char *p = upper; *p; ++p)
                if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A'), differs = 1;
            if (!differs) continue;
            c = parse1(k->name, upper);
            if (k->flags & TSG_KNOB_ANYCASE) {
                if (c.nwarn != 0 || field_value(&c, k) != k->values[w])
                    fail_msg("%s=%s: not taken in any case", k->name, upper);
            } else if (c.nwarn != 1 || field_value(&c, k) != field_value(&def, k)) {
                fail_msg("%s=%s: taken although the words are case-sensitive", k->name, upper);
            }
        }
        tsg_config c = parse1(k->name, "no-such-word");
        if (c.nwarn != 1 || !strstr(c.warn[0], k->name) || !strstr(c.warn[0], k->takes))
            fail_msg("%s=no-such-word: %d warnings", k->name, c.nwarn);
    }
}

/* A text knob takes a value that fits its field and refuses a longer one with a warning. */
static void test_table_drives_text(void **state)
{
    (void)state;
    for (int i = 0; i < tsg_nknobs; ++i) {
        const tsg_knob *k = &tsg_knobs[i];
        if (k->kind != TSG_KNOB_TEXT) continue;
        char *v = malloc(k->size + 1);
        assert_non_null(v);
        memset(v, 'a', k->size - 1);
        v[k->size - 1] = '\0';
        tsg_config c = parse1(k->name, v);
        if (c.nwarn != 0 || strcmp((const char *)&c + k->offset, v))
            fail_msg("%s: the longest value that fits was not taken", k->name);
        v[k->size - 1] = 'a';
        v[k->size] = '\0';
        c = parse1(k->name, v);
        if (c.nwarn != 1 || !strstr(c.warn[0], k->name) || ((const char *)&c + k->offset)[0])
            fail_msg("%s: a value one too long was not refused", k->name);
        free(v);
    }
}

/* The README's knob names: the first cell of each row of the first table under "## Knobs". */
static int readme_knobs(const char *path, char names[][64], int max)
{
    FILE *f = fopen(path, "r");
    if (!f) fail_msg("cannot open %s", path);
    char line[4096];
    int in_section = 0, in_table = 0, n = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "## ", 3)) {
            if (in_section) break;
            in_section = !strncmp(line + 3, "Knobs", 5);
            continue;
        }
        if (!in_section) continue;
        if (line[0] != '|') {
            if (in_table) break; /* the first table only */
            continue;
        }
        in_table = 1;
        const char *cell_end = strchr(line + 1, '|');
        const char *tick = strstr(line + 1, "`TSGEMM_");
        if (!tick || !cell_end || tick > cell_end) continue; /* the header and separator rows */
        const char *name = tick + 1, *end = strchr(name, '`');
        if (!end || end > cell_end || end - name >= 64) fail_msg("README: a bad row: %s", line);
        if (n == max) fail_msg("README: more than %d knobs", max);
        memcpy(names[n], name, (size_t)(end - name));
        names[n][end - name] = '\0';
        ++n;
    }
    fclose(f);
    if (!in_table) fail_msg("%s: no table under a \"## Knobs\" heading", path);
    return n;
}

static void test_readme_lists_the_user_knobs(void **state)
{
    (void)state;
    char names[64][64];
    const int n = readme_knobs(g_readme, names, 64);
    int failed = 0;
    for (int i = 0; i < n; ++i) {
        int found = 0;
        for (int j = 0; j < tsg_nknobs; ++j)
            if (!strcmp(names[i], tsg_knobs[j].name) && !(tsg_knobs[j].flags & TSG_KNOB_TEST))
                found = 1;
        if (!found) {
            print_error("README lists %s, which is not a user knob of src/tsg_config.c\n", names[i]);
            failed = 1;
        }
        for (int j = 0; j < i; ++j)
            if (!strcmp(names[i], names[j])) {
                print_error("README lists %s twice\n", names[i]);
                failed = 1;
            }
    }
    for (int j = 0; j < tsg_nknobs; ++j) {
        if (tsg_knobs[j].flags & TSG_KNOB_TEST) continue;
        int found = 0;
        for (int i = 0; i < n; ++i) found |= !strcmp(names[i], tsg_knobs[j].name);
        if (!found) {
            print_error("src/tsg_config.c has %s, which README's knob table does not list\n",
                        tsg_knobs[j].name);
            failed = 1;
        }
    }
    if (failed) fail_msg("README.md's knob table and src/tsg_config.c's tsg_knobs[] differ");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s README.md\n", argv[0]);
        return 2;
    }
    g_readme = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_well_formed),
        cmocka_unit_test(test_table_drives_numbers),
        cmocka_unit_test(test_table_drives_words),
        cmocka_unit_test(test_table_drives_text),
        cmocka_unit_test(test_readme_lists_the_user_knobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
