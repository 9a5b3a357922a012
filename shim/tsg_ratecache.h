/*
 * tsg_ratecache.h — the rates cache on disk (per GPU, and per CPU BLAS on this host), treated as
 * untrusted input.
 *
 * Owns: the cache folder's checks, the lock, reading and writing one rates file. The text format
 * and the bounds of every value are src/tsg_rates.h's. Must not: print (every function says why
 * it failed in why[], the caller logs), read the environment, or follow a symbolic link at the
 * folder, the file, its lock or its temporary file. Plain C and POSIX only, so the unit tier
 * runs it on its own (tests/unit/test_ratecache.c).
 *
 * Threat model (issue 34): another user, or a program this process runs for someone else, may
 * own or write the folder, put a symlink, FIFO or directory where a file should be, hold the
 * lock forever, fill the disk or leave any bytes in the file. Then the cache is not used (the
 * GPU is measured again, in this process only), nothing outside the folder is touched, nothing
 * blocks past TSG_CACHE_LOCK_WAIT_S and nothing reaching the cost model is out of bounds.
 */
#ifndef TSG_RATECACHE_H
#define TSG_RATECACHE_H

#include <stddef.h>

#include "../src/tsg_cost.h"
#include "../src/tsg_rates.h"

/* How long a process waits for another's measurement (the lock) before it measures on its own
 * without caching: ten times the H200's measurement (0.19-0.30 s, docs/NOTES.md). */
#define TSG_CACHE_LOCK_WAIT_S 2.0

/*
 * Opens the cache folder `dir` (an absolute or relative path), creating the missing components
 * with mode 0700 (XDG Base Directory: "If, when attempting to write a file, the destination
 * directory is non-existent an attempt should be made to create it with permission 0700").
 * The last component is opened O_DIRECTORY | O_NOFOLLOW and must be owned by the effective uid
 * and writable by nobody else (no group or other write bit). Returns a descriptor (close-on-exec)
 * or -1 with why[] set.
 */
int tsg_cache_open_dir(const char *dir, char *why, size_t len);

/*
 * Takes the exclusive lock `<name>.lock` in the folder dirfd (created 0600, no symlink
 * followed, a regular file owned by the effective uid), waiting at most wait_s seconds
 * (LOCK_NB polled every 10 ms). Returns the lock's descriptor, or -1 with why[] set (held past
 * the bound, or refused).
 */
int tsg_cache_lock(int dirfd, const char *name, double wait_s, char *why, size_t len);

/* Releases and closes what tsg_cache_lock returned (-1: nothing). */
void tsg_cache_unlock(int lockfd);

/*
 * Reads the rates file `name` of the folder into r's GPU fields: opened O_NOFOLLOW | O_NONBLOCK
 * (a FIFO does not block), a regular file owned by the effective uid of at most
 * TSG_RATES_FILE_MAX bytes, parsed by tsg_rates_parse (refused whole on any fault). Returns 0,
 * or -1 with why[] set and r untouched.
 */
int tsg_cache_read(int dirfd, const char *name, tsg_rates *r, char *why, size_t len);

/*
 * Writes r's GPU fields as file `name` of the folder: a temporary file with a random name
 * created O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600, every write checked, fsync'ed, then renamed
 * over `name` (renameat replaces a symlink there, never its target). Returns 0, or -1 with why[]
 * set and the temporary file removed (a full or read-only file system, rates out of bounds).
 */
int tsg_cache_write(int dirfd, const char *name, const tsg_rates *r, char *why, size_t len);

/* tsg_cache_read and tsg_cache_write for the CPU BLAS's file (src/tsg_rates.h tsg_cpu_rates):
 * the same checks, tsg_cpu_rates_parse / tsg_cpu_rates_format for the text. */
int tsg_cache_read_cpu(int dirfd, const char *name, tsg_cpu_rates *r, char *why, size_t len);
int tsg_cache_write_cpu(int dirfd, const char *name, const tsg_cpu_rates *r, char *why, size_t len);

#endif /* TSG_RATECACHE_H */
