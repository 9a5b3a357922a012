/*
 * tsg_log.c — knobs and logging for the ABI layer. See tsg_log.h.
 */
#include "tsg_log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static tsg_config g_cfg;
static pthread_once_t g_cfg_once = PTHREAD_ONCE_INIT;

int tsg_rt_privileged(void)
{
    static int secure = -1; /* racing first calls store the same value */
    int s = __atomic_load_n(&secure, __ATOMIC_RELAXED);
    if (s < 0) {
        s = getauxval(AT_SECURE) != 0;
        __atomic_store_n(&secure, s, __ATOMIC_RELAXED);
    }
    return s;
}

/* The knobs' view of the environment. TSGEMM_TEST_* are the tests' tuning and fault-injection
 * knobs: only the twin library tsgemm_fi (TSG_FAULT_INJECTION) reads them, so in a release
 * library a stray or mistyped one cannot change what a call does. */
static const char *env_lookup(const char *name, void *ctx)
{
    (void)ctx;
    if (tsg_rt_privileged()) return NULL; /* defaults only: no TSGEMM_*, HOME or XDG_* */
#ifndef TSG_FAULT_INJECTION
    if (!strncmp(name, "TSGEMM_TEST_", 12)) return NULL;
#endif
    return getenv(name);
}

/* This machine's physical memory in bytes, 0 when sysconf cannot say (the pinned cap's bound). */
static uint64_t phys_bytes(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0 || (uint64_t)pages > UINT64_MAX / (uint64_t)size) return 0;
    return (uint64_t)pages * (uint64_t)size;
}

static void cfg_init(void)
{
    tsg_config_parse(&g_cfg, env_lookup, NULL, phys_bytes());
    for (int i = 0; i < g_cfg.nwarn; ++i)
        if (g_cfg.log_level >= 1) fprintf(stderr, "tsgemm: %s\n", g_cfg.warn[i]);
}

const tsg_config *tsg_rt_config(void)
{
    pthread_once(&g_cfg_once, cfg_init);
    return &g_cfg;
}

static atomic_int g_said[TSG_ONCE_N];

int tsg_log_first(tsg_once kind) { return atomic_exchange(&g_said[kind], 1) == 0; }

void tsg_log(int level, const char *fmt, ...)
{
    if (tsg_rt_config()->log_level < level) return;
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tsgemm: %s\n", line);
}
