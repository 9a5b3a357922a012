/*
 * tsg_ratecache.c — the rates cache on disk. See tsg_ratecache.h.
 */
#define _GNU_SOURCE
#include "tsg_ratecache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/tsg_rates.h"

static int fail(char *why, size_t len, const char *fmt, const char *arg)
{
    if (why && len) snprintf(why, len, fmt, arg);
    return -1;
}

/* Closes fd and says why it was refused: "<what> <name> refused: <problem>". */
static int refuse(int fd, const char *what, const char *name, const char *problem, char *why,
                  size_t len)
{
    close(fd);
    if (why && len) snprintf(why, len, "%s %s refused: %s", what, name, problem);
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A regular file (or folder, when dir) owned by this effective uid and, for a folder, writable
 * by nobody else. */
static const char *owned_problem(int fd, int dir)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return "cannot stat it";
    if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
        return dir ? "not a folder" : "not a regular file";
    if (st.st_uid != geteuid()) return "owned by another user";
    if (dir && (st.st_mode & (S_IWGRP | S_IWOTH))) return "writable by its group or others";
    return NULL;
}

int tsg_cache_open_dir(const char *dir, char *why, size_t len)
{
    char tmp[4096];
    const size_t n = strlen(dir);
    if (n == 0 || n >= sizeof tmp) return fail(why, len, "cache folder %s: empty or too long", "");
    memcpy(tmp, dir, n + 1);
    while (n > 1 && tmp[strlen(tmp) - 1] == '/') tmp[strlen(tmp) - 1] = '\0';
    for (char *s = tmp + 1; *s; ++s)
        if (*s == '/') {
            *s = '\0';
            mkdir(tmp, 0700); /* an existing component stays as it is */
            *s = '/';
        }
    mkdir(tmp, 0700);
    int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return fail(why, len, "cache folder %s cannot be opened (missing, or a symbolic link)", dir);
    const char *problem = owned_problem(fd, 1);
    if (problem) return refuse(fd, "cache folder", dir, problem, why, len);
    return fd;
}

int tsg_cache_lock(int dirfd, const char *name, double wait_s, char *why, size_t len)
{
    char lock[512];
    if (snprintf(lock, sizeof lock, "%s.lock", name) >= (int)sizeof lock)
        return fail(why, len, "lock name %s too long", name);
    int fd = openat(dirfd, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0) return fail(why, len, "lock %s cannot be opened (a symbolic link, or no right to create it)", lock);
    const char *problem = owned_problem(fd, 0);
    if (problem) return refuse(fd, "lock", lock, problem, why, len);
    const double deadline = now_s() + wait_s;
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
        if (errno != EWOULDBLOCK && errno != EINTR) break;
        if (now_s() >= deadline) {
            close(fd);
            char msg[256];
            snprintf(msg, sizeof msg, "lock %%s still held by another process after %.1f s", wait_s);
            return fail(why, len, msg, lock);
        }
        struct timespec d = {0, 10 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
    close(fd);
    return fail(why, len, "lock %s cannot be taken", lock);
}

void tsg_cache_unlock(int lockfd)
{
    if (lockfd < 0) return;
    flock(lockfd, LOCK_UN);
    close(lockfd);
}

static const char g_none[] = "none yet, or a symbolic link";

/* The checked text of file `name` into buf (TSG_RATES_FILE_MAX + 1 bytes): NULL and *got, or
 * what is wrong with the file. */
static const char *read_text(int dirfd, const char *name, char *buf, size_t *got)
{
    *got = 0;
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return g_none;
    const char *problem = owned_problem(fd, 0);
    struct stat st;
    if (!problem && (fstat(fd, &st) != 0 || st.st_size > TSG_RATES_FILE_MAX))
        problem = "larger than any rates file";
    while (!problem && *got <= TSG_RATES_FILE_MAX) { /* one byte more than allowed: it grew */
        ssize_t k = read(fd, buf + *got, TSG_RATES_FILE_MAX + 1 - *got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) problem = "unreadable";
        if (k <= 0) break;
        *got += (size_t)k;
    }
    close(fd);
    if (!problem && *got > TSG_RATES_FILE_MAX) problem = "larger than any rates file";
    return problem;
}

static int refused(char *why, size_t len, const char *name, const char *problem)
{
    char msg[256];
    snprintf(msg, sizeof msg, "%%s refused: %s", problem);
    return fail(why, len, msg, name);
}

/* File `name` read and checked (read_text), then parsed by parse into obj (untouched on failure). */
static int read_parsed(int dirfd, const char *name, int (*parse)(const char *, size_t, void *, const char **),
                       void *obj, char *why, size_t len)
{
    char buf[TSG_RATES_FILE_MAX + 1];
    size_t got;
    const char *problem = read_text(dirfd, name, buf, &got);
    if (problem == g_none) return fail(why, len, "%s: none yet, or a symbolic link", name);
    if (!problem && parse(buf, got, obj, &problem) != 0 && !problem) problem = "unparsable";
    return problem ? refused(why, len, name, problem) : 0;
}

static int parse_gpu(const char *t, size_t n, void *r, const char **why) { return tsg_rates_parse(t, n, r, why); }
static int parse_cpu(const char *t, size_t n, void *r, const char **why) { return tsg_cpu_rates_parse(t, n, r, why); }

int tsg_cache_read(int dirfd, const char *name, tsg_rates *r, char *why, size_t len)
{
    return read_parsed(dirfd, name, parse_gpu, r, why, len);
}

int tsg_cache_read_cpu(int dirfd, const char *name, tsg_cpu_rates *r, char *why, size_t len)
{
    return read_parsed(dirfd, name, parse_cpu, r, why, len);
}

/* A name no other process can guess: 64 random bits (getrandom), else the clock and pid. */
static void temp_name(char *out, size_t len, const char *name)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        v = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
    }
    snprintf(out, len, ".%s.%016llx.tmp", name, (unsigned long long)v);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* text[0, n) as file `name`: a random temporary file, written whole, fsync'ed, renamed over it */
static int write_text(int dirfd, const char *name, const char *text, size_t n, char *why, size_t len)
{
    char tmp[600];
    int fd = -1;
    for (int tries = 0; tries < 4 && fd < 0; ++tries) {
        temp_name(tmp, sizeof tmp, name);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "%%s not written: cannot create a temporary file (%s)", strerror(errno));
        return fail(why, len, msg, name);
    }
    const char *problem = NULL;
    int err = 0;
    if (write_all(fd, text, n) != 0) problem = "write", err = errno;
    else if (fsync(fd) != 0) problem = "fsync", err = errno;
    if (close(fd) != 0 && !problem) problem = "close", err = errno;
    if (!problem && renameat(dirfd, tmp, dirfd, name) != 0) problem = "rename", err = errno;
    if (problem) {
        unlinkat(dirfd, tmp, 0);
        char msg[256];
        snprintf(msg, sizeof msg, "%%s not written: %s failed (%s)", problem, strerror(err));
        return fail(why, len, msg, name);
    }
    return 0;
}

int tsg_cache_write(int dirfd, const char *name, const tsg_rates *r, char *why, size_t len)
{
    char text[TSG_RATES_FILE_MAX];
    const int n = tsg_rates_format(r, text, sizeof text);
    if (n < 0) return fail(why, len, "%s not written: rates outside their physical bounds", name);
    return write_text(dirfd, name, text, (size_t)n, why, len);
}

int tsg_cache_write_cpu(int dirfd, const char *name, const tsg_cpu_rates *r, char *why, size_t len)
{
    char text[TSG_RATES_FILE_MAX];
    const int n = tsg_cpu_rates_format(r, text, sizeof text);
    if (n < 0) return fail(why, len, "%s not written: rates outside their physical bounds", name);
    return write_text(dirfd, name, text, (size_t)n, why, len);
}
