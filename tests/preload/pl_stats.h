/*
 * pl_stats.h — tsgemm's counters as seen by a program that does NOT link libtsgemm (preload tier).
 *
 * Under LD_PRELOAD=libtsgemm.so (or when the program links it) tsgemm_get_stats and
 * tsgemm_last_path are in the global scope and dlsym(RTLD_DEFAULT, ...) finds them; in a plain
 * run they are absent and the getters return NULL. The counters are how these tests prove that a
 * call really reached tsgemm (interposition happened) and where it ran. Also: stderr capture
 * around one call, and dladdr/maps lookups naming the library that provides a symbol.
 */
#ifndef PL_STATS_H
#define PL_STATS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsgemm.h" /* struct tsgemm_stats only: nothing here links libtsgemm */

typedef void (*pl_get_stats_fn)(struct tsgemm_stats *);
typedef const char *(*pl_last_path_fn)(void);

static inline pl_get_stats_fn pl_get_stats(void)
{
    return (pl_get_stats_fn)dlsym(RTLD_DEFAULT, "tsgemm_get_stats");
}

static inline pl_last_path_fn pl_last_path(void)
{
    return (pl_last_path_fn)dlsym(RTLD_DEFAULT, "tsgemm_last_path");
}

/* Counters now; all zero when tsgemm is not in the process. */
static inline struct tsgemm_stats pl_stats_now(void)
{
    struct tsgemm_stats s;
    memset(&s, 0, sizeof s);
    pl_get_stats_fn f = pl_get_stats();
    if (f) f(&s);
    return s;
}

/* The file name of the object defining the code at `fn` ("?" when unknown). */
static inline const char *pl_provider(void *fn)
{
    Dl_info info;
    if (fn && dladdr(fn, &info) && info.dli_fname) return info.dli_fname;
    return "?";
}

/* 1 when a mapping of this process has `needle` in its path (/proc/self/maps). */
static inline int pl_mapped(const char *needle)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return 0;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        if (strstr(line, needle)) found = 1;
    fclose(f);
    return found;
}

/*
 * Capturing what one call writes to stderr (fd 2): pl_capture_begin() points fd 2 at a fresh
 * temporary file; pl_capture_end() restores it and returns what was written (malloc'd,
 * NUL-terminated; the caller frees it).
 */
typedef struct pl_capture {
    int saved_fd;
    FILE *file;
} pl_capture;

static inline int pl_capture_begin(pl_capture *cap)
{
    fflush(stderr);
    cap->file = tmpfile();
    if (!cap->file) return -1;
    cap->saved_fd = dup(2);
    if (cap->saved_fd < 0 || dup2(fileno(cap->file), 2) < 0) return -1;
    return 0;
}

static inline char *pl_capture_end(pl_capture *cap)
{
    fflush(stderr);
    dup2(cap->saved_fd, 2);
    close(cap->saved_fd);
    long len = fseek(cap->file, 0, SEEK_END) == 0 ? ftell(cap->file) : 0;
    if (len < 0) len = 0;
    char *text = malloc((size_t)len + 1);
    if (!text) abort();
    rewind(cap->file);
    size_t got = fread(text, 1, (size_t)len, cap->file);
    text[got] = '\0';
    fclose(cap->file);
    return text;
}

/* Number of '\n'-terminated lines in text. */
static inline int pl_count_lines(const char *text)
{
    int n = 0;
    for (; *text; ++text) n += *text == '\n';
    return n;
}

#endif /* PL_STATS_H */
