/*
 * evil.c — the library an attacker names in TSGEMM_CPU_BLAS (run_secure_cases.sh): its
 * constructor, run by whoever loads it, creates the file named by EVIL_MARK and writes its
 * effective uid there. It has no sgemm: a loader that checks symbols still runs the constructor.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void evil(void)
{
    const char *mark = getenv("EVIL_MARK");
    if (!mark) return;
    int fd = open(mark, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    dprintf(fd, "loaded with euid %ld\n", (long)geteuid());
    close(fd);
}
