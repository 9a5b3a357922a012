/*
 * test_ratecache.c — the rates cache on disk as untrusted input (shim/tsg_ratecache.c): corrupt,
 * foreign, symlinked, FIFO and directory files, foreign and group-writable folders, a held lock,
 * full and read-only file systems. Each: no crash, no hang past the bound, nothing outside the
 * cache folder touched.
 *
 * Built with -Wl,--wrap=write,--wrap=fsync,--wrap=openat: g_fail makes the library's writes,
 * fsyncs or file creations fail as on a full (ENOSPC) or read-only (EROFS) file system.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tsg_rates.h"
#include "tsg_ratecache.h"

/* ------------------------------------------------------------------ failure injection */

enum { FAIL_NONE, FAIL_WRITE, FAIL_FSYNC, FAIL_CREATE };
static int g_fail;

ssize_t __real_write(int fd, const void *buf, size_t n);
int __real_fsync(int fd);
int __real_openat(int dirfd, const char *path, int flags, ...);

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
    if (g_fail == FAIL_WRITE) {
        errno = ENOSPC;
        return n > 1 ? (ssize_t)(n / 2) : -1; /* a short write first, then the error */
    }
    return __real_write(fd, buf, n);
}

int __wrap_fsync(int fd)
{
    if (g_fail == FAIL_FSYNC) {
        errno = ENOSPC;
        return -1;
    }
    return __real_fsync(fd);
}

int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    if (g_fail == FAIL_CREATE && (flags & O_CREAT)) {
        errno = EROFS;
        return -1;
    }
    return __real_openat(dirfd, path, flags, mode);
}

/* ------------------------------------------------------------------ helpers */

static char g_root[256]; /* a fresh folder per test */
static char g_dir[300];  /* the cache folder inside it */
static const char *const NAME = "gpu-rates-test.txt";

static tsg_rates good_rates(void)
{
    tsg_rates r;
    memset(&r, 0, sizeof r);
    r.h2d_bps = 50e9, r.d2h_bps = 47e9, r.gpu_flops = 51e12, r.gpu_latency_s = 40e-6;
    r.gpu_tile_m = 256, r.gpu_tile_n = 128, r.gpu_slots = 132, r.gpu_split_min_k = 256;
    r.gpu_device_bytes = 100e9;
    return r;
}

static int setup(void **state)
{
    (void)state;
    g_fail = FAIL_NONE;
    snprintf(g_root, sizeof g_root, "/tmp/tsg-ratecache-XXXXXX");
    assert_non_null(mkdtemp(g_root));
    snprintf(g_dir, sizeof g_dir, "%s/cache/tsgemm", g_root);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", g_root, g_root);
    assert_int_equal(system(cmd), 0);
    return 0;
}

static void path_in(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", g_dir, name);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void read_file(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
}

/* Entries of the cache folder other than `keep` (temporary files left behind, etc.). */
static int stray_entries(const char *keep1, const char *keep2)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | grep -v -x -e '%s' -e '%s' | wc -l) -eq 0", g_dir,
             keep1, keep2);
    return system(cmd) != 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ tests */

static void test_round_trip_and_modes(void **state)
{
    (void)state;
    char why[512];
    int dfd = tsg_cache_open_dir(g_dir, why, sizeof why);
    assert_true(dfd >= 0);
    struct stat st;
    assert_int_equal(stat(g_dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700); /* created 0700 (XDG) */
    const tsg_rates r = good_rates();
    assert_int_equal(tsg_cache_write(dfd, NAME, &r, why, sizeof why), 0);
    char p[512];
    path_in(p, sizeof p, NAME);
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    tsg_rates back;
    memset(&back, 0, sizeof back);
    assert_int_equal(tsg_cache_read(dfd, NAME, &back, why, sizeof why), 0);
    assert_true(back.h2d_bps == r.h2d_bps && back.gpu_tile_m == r.gpu_tile_m &&
                back.gpu_device_bytes == r.gpu_device_bytes);
    assert_false(stray_entries(NAME, NAME)); /* no temporary file left */
    /* close-on-exec on what the library keeps open */
    assert_true(fcntl(dfd, F_GETFD) & FD_CLOEXEC);
    int lk = tsg_cache_lock(dfd, NAME, 1.0, why, sizeof why);
    assert_true(lk >= 0);
    assert_true(fcntl(lk, F_GETFD) & FD_CLOEXEC);
    tsg_cache_unlock(lk);
    close(dfd);
}

/* The CPU BLAS's file through the same checks: round trip, 0600, and a GPU file in its place
 * (or the other way round) refused. */
static void test_cpu_file(void **state)
{
    (void)state;
    char why[512];
    int dfd = tsg_cache_open_dir(g_dir, why, sizeof why);
    assert_true(dfd >= 0);
    const tsg_cpu_rates c = {1.2e12, 0.6e-3, 0.15e-3, 5e-6, 3.6e9, 2, 2.8e-3, 3e-3};
    assert_int_equal(tsg_cache_write_cpu(dfd, "cpu.txt", &c, why, sizeof why), 0);
    char p[512];
    path_in(p, sizeof p, "cpu.txt");
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    tsg_cpu_rates back = {0};
    assert_int_equal(tsg_cache_read_cpu(dfd, "cpu.txt", &back, why, sizeof why), 0);
    assert_memory_equal(&back, &c, sizeof c);
    tsg_rates r;
    memset(&r, 0, sizeof r);
    assert_int_equal(tsg_cache_read(dfd, "cpu.txt", &r, why, sizeof why), -1);
    const tsg_rates g = good_rates();
    assert_int_equal(tsg_cache_write(dfd, "gpu.txt", &g, why, sizeof why), 0);
    tsg_cpu_rates before = back;
    assert_int_equal(tsg_cache_read_cpu(dfd, "gpu.txt", &back, why, sizeof why), -1);
    assert_memory_equal(&back, &before, sizeof back);
    assert_int_equal(tsg_cache_read_cpu(dfd, "absent.txt", &back, why, sizeof why), -1);
    assert_non_null(strstr(why, "none yet"));
    close(dfd);
}

static void test_corrupt_files_refused(void **state)
{
    (void)state;
    char why[512], p[512];
    int dfd = tsg_cache_open_dir(g_dir, why, sizeof why);
    assert_true(dfd >= 0);
    path_in(p, sizeof p, NAME);
    static const char *const bodies[] = {
        "", "garbage\n", TSG_RATES_HEADER "\n", "tsgemm-gpu-rates 14\nh2d_bps 5e10\n",
        TSG_RATES_HEADER "\nh2d_bps 5e10\nd2h_bps 5e10\ngpu_flops 5e13\ngpu_latency_s 4e-05\n"
        "gpu_tile_m 1e19\ngpu_tile_n 128\ngpu_slots 132\ngpu_split_min_k 256\ngpu_device_bytes 1e11\n",
        TSG_RATES_HEADER "\nh2d_bps 1e-300\nd2h_bps 5e10\ngpu_flops 5e13\ngpu_latency_s 4e-05\n"
        "gpu_tile_m 256\ngpu_tile_n 128\ngpu_slots 132\ngpu_split_min_k 256\ngpu_device_bytes 1e11\n",
        TSG_RATES_HEADER "\nh2d_bps 5e10\nd2h_bps 5e10\ngpu_flops 0\ngpu_latency_s 4e-05\n"
        "gpu_tile_m 256\ngpu_tile_n 128\ngpu_slots 132\ngpu_split_min_k 256\ngpu_device_bytes 1e11\n",
        TSG_RATES_HEADER "\nh2d_bps nan\nd2h_bps 5e10\ngpu_flops 5e13\ngpu_latency_s 4e-05\n"
        "gpu_tile_m 256\ngpu_tile_n 128\ngpu_slots 132\ngpu_split_min_k 256\ngpu_device_bytes 1e11\n",
        TSG_RATES_HEADER "\nh2d_bps -5e10\nd2h_bps 5e10\ngpu_flops 5e13\ngpu_latency_s 4e-05\n"
        "gpu_tile_m 256\ngpu_tile_n 128\ngpu_slots 132\ngpu_split_min_k 256\ngpu_device_bytes 1e11\n",
        TSG_RATES_HEADER "\nh2d_bps 5e10\nd2h_bps 5e10\ngpu_flops 5e13\n", /* truncated */
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; ++i) {
        write_file(p, bodies[i]);
        tsg_rates r = good_rates();
        r.h2d_bps = 7.0;
        if (tsg_cache_read(dfd, NAME, &r, why, sizeof why) == 0) fail_msg("body %zu accepted", i);
        assert_true(r.h2d_bps == 7.0); /* untouched */
    }
    /* huge: over the size limit */
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    for (int i = 0; i < 100000; ++i) fputs("h2d_bps 5e10\n", f);
    fclose(f);
    tsg_rates r = good_rates();
    assert_int_equal(tsg_cache_read(dfd, NAME, &r, why, sizeof why), -1);
    assert_non_null(strstr(why, "larger"));
    close(dfd);
}

static void test_special_files_refused(void **state)
{
    (void)state;
    char why[512], p[512], lockp[600], outside[512];
    int dfd = tsg_cache_open_dir(g_dir, why, sizeof why);
    assert_true(dfd >= 0);
    path_in(p, sizeof p, NAME);
    snprintf(lockp, sizeof lockp, "%s.lock", p);
    snprintf(outside, sizeof outside, "%s/outside.txt", g_root);
    tsg_rates r = good_rates();

    /* a FIFO: neither the read nor the lock blocks */
    assert_int_equal(mkfifo(p, 0600), 0);
    double t0 = now_s();
    assert_int_equal(tsg_cache_read(dfd, NAME, &r, why, sizeof why), -1);
    assert_true(now_s() - t0 < 1.0);
    unlink(p);
    assert_int_equal(mkfifo(lockp, 0600), 0);
    t0 = now_s();
    assert_int_equal(tsg_cache_lock(dfd, NAME, 0.5, why, sizeof why), -1);
    assert_true(now_s() - t0 < 1.0);
    unlink(lockp);

    /* a directory where the file should be: read refused, write fails cleanly */
    assert_int_equal(mkdir(p, 0700), 0);
    assert_int_equal(tsg_cache_read(dfd, NAME, &r, why, sizeof why), -1);
    assert_int_equal(tsg_cache_write(dfd, NAME, &r, why, sizeof why), -1);
    assert_false(stray_entries(NAME, NAME));
    rmdir(p);

    /* symbolic links at the file and the lock: their target outside the folder is untouched */
    write_file(outside, "precious\n");
    assert_int_equal(symlink(outside, p), 0);
    assert_int_equal(tsg_cache_read(dfd, NAME, &r, why, sizeof why), -1);
    assert_int_equal(tsg_cache_write(dfd, NAME, &r, why, sizeof why), 0); /* replaces the link */
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(symlink(outside, lockp), 0);
    assert_int_equal(tsg_cache_lock(dfd, NAME, 0.2, why, sizeof why), -1);
    char text[64];
    read_file(outside, text, sizeof text);
    assert_string_equal(text, "precious\n");
    unlink(lockp);

    /* a dangling link at the lock must not create its target */
    char target[600];
    snprintf(target, sizeof target, "%s/created-through-link", g_root);
    assert_int_equal(symlink(target, lockp), 0);
    assert_int_equal(tsg_cache_lock(dfd, NAME, 0.2, why, sizeof why), -1);
    assert_int_equal(access(target, F_OK), -1);
    close(dfd);
}

static void test_folders_refused(void **state)
{
    (void)state;
    char why[512];
    int dfd = tsg_cache_open_dir(g_dir, why, sizeof why);
    assert_true(dfd >= 0);
    close(dfd);
    /* group- or other-writable */
    assert_int_equal(chmod(g_dir, 0770), 0);
    assert_int_equal(tsg_cache_open_dir(g_dir, why, sizeof why), -1);
    assert_non_null(strstr(why, "writable"));
    assert_int_equal(chmod(g_dir, 0707), 0);
    assert_int_equal(tsg_cache_open_dir(g_dir, why, sizeof why), -1);
    assert_int_equal(chmod(g_dir, 0755), 0); /* readable by others is fine (older versions made it so) */
    dfd = tsg_cache_open_dir(g_dir, why, sizeof why);
    assert_true(dfd >= 0);
    close(dfd);
    /* the folder itself a symbolic link */
    char link[600];
    snprintf(link, sizeof link, "%s/linked", g_root);
    assert_int_equal(symlink(g_dir, link), 0);
    assert_int_equal(tsg_cache_open_dir(link, why, sizeof why), -1);
    /* not a folder */
    char file[600];
    snprintf(file, sizeof file, "%s/plain", g_root);
    write_file(file, "x");
    assert_int_equal(tsg_cache_open_dir(file, why, sizeof why), -1);
    /* another user's (needs root to make one) */
    if (geteuid() == 0) {
        assert_int_equal(chown(g_dir, 65534, 65534), 0);
        assert_int_equal(tsg_cache_open_dir(g_dir, why, sizeof why), -1);
        assert_non_null(strstr(why, "another user"));
        assert_int_equal(chown(g_dir, 0, 0), 0);
        /* and a file of another user's in our folder */
        dfd = tsg_cache_open_dir(g_dir, why, sizeof why);
        assert_true(dfd >= 0);
        tsg_rates r = good_rates();
        assert_int_equal(tsg_cache_write(dfd, NAME, &r, why, sizeof why), 0);
        char p[512];
        path_in(p, sizeof p, NAME);
        assert_int_equal(chown(p, 65534, 65534), 0);
        assert_int_equal(tsg_cache_read(dfd, NAME, &r, why, sizeof why), -1);
        close(dfd);
    } else {
        print_message("note: not root; the other-owner cases were not run\n");
    }
}

static void test_held_lock_is_bounded(void **state)
{
    (void)state;
    char why[512], lockp[1024];
    int dfd = tsg_cache_open_dir(g_dir, why, sizeof why);
    assert_true(dfd >= 0);
    snprintf(lockp, sizeof lockp, "%s/%s.lock", g_dir, NAME);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) { /* holds the lock until killed, as a stopped process would */
        int fd = open(lockp, O_RDWR | O_CREAT, 0600);
        if (fd < 0 || flock(fd, LOCK_EX) != 0) _exit(1);
        if (__real_write(pipefd[1], "x", 1) != 1) _exit(1);
        pause();
        _exit(0);
    }
    char c;
    assert_int_equal(read(pipefd[0], &c, 1), 1);
    const double t0 = now_s();
    assert_int_equal(tsg_cache_lock(dfd, NAME, 0.5, why, sizeof why), -1);
    const double waited = now_s() - t0;
    assert_true(waited >= 0.45 && waited < 2.0);
    assert_non_null(strstr(why, "held"));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    /* released: taken at once */
    int lk = tsg_cache_lock(dfd, NAME, 0.5, why, sizeof why);
    assert_true(lk >= 0);
    tsg_cache_unlock(lk);
    close(dfd);
    close(pipefd[0]);
    close(pipefd[1]);
}

static void test_full_and_read_only(void **state)
{
    (void)state;
    char why[512];
    int dfd = tsg_cache_open_dir(g_dir, why, sizeof why);
    assert_true(dfd >= 0);
    const tsg_rates r = good_rates();
    static const int kinds[] = {FAIL_WRITE, FAIL_FSYNC, FAIL_CREATE};
    for (size_t i = 0; i < 3; ++i) {
        g_fail = kinds[i];
        assert_int_equal(tsg_cache_write(dfd, NAME, &r, why, sizeof why), -1);
        g_fail = FAIL_NONE;
        assert_false(stray_entries(NAME, NAME)); /* the temporary file removed, nothing renamed */
        char p[512];
        path_in(p, sizeof p, NAME);
        assert_int_equal(access(p, F_OK), -1);
    }
    /* an earlier good file survives a failed rewrite */
    assert_int_equal(tsg_cache_write(dfd, NAME, &r, why, sizeof why), 0);
    g_fail = FAIL_FSYNC;
    tsg_rates other = r;
    other.h2d_bps = 1e9;
    assert_int_equal(tsg_cache_write(dfd, NAME, &other, why, sizeof why), -1);
    g_fail = FAIL_NONE;
    tsg_rates back = good_rates();
    back.h2d_bps = 0;
    assert_int_equal(tsg_cache_read(dfd, NAME, &back, why, sizeof why), 0);
    assert_true(back.h2d_bps == r.h2d_bps);
    /* out-of-bounds rates are never written */
    other = r;
    other.gpu_tile_m = 1e19;
    assert_int_equal(tsg_cache_write(dfd, NAME, &other, why, sizeof why), -1);
    close(dfd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_and_modes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cpu_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_files_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_special_files_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folders_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_held_lock_is_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_and_read_only, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
