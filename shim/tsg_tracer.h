/*
 * tsg_tracer.h — TSGEMM_TRACE: the library's recorder of a process's SGEMM calls, and the
 * freshness of C (which the trace records and the cost model prices).
 *
 * Owns: the trace file (opened once, appended to), the process-wide gap clock and the table of C
 * ranges seen. The line format is src/tsg_trace.h's. Must not: hold a lock across a BLAS call,
 * block on the file (one write(2) per line, O_APPEND), or trace in a privileged process (the knob
 * lookup answers NULL there, and the recorder checks AT_SECURE itself too).
 */
#ifndef TSG_TRACER_H
#define TSG_TRACER_H

#include <stdint.h>

#include "../src/tsg_problem.h"

/*
 * 1 when this process traces its calls: TSGEMM_TRACE names a file that could be opened (the
 * first call opens it: O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC|O_NOFOLLOW|O_NONBLOCK, mode 0600, a
 * regular file only; "%p" in the name becomes the process id, "%%" a '%'; one warning when it
 * cannot be opened) and the recorder has not stopped (a failed or short write, or
 * TSG_TRACER_MAX_CALLS lines written). Cheap after the first call: one load.
 */
int tsg_tracer_on(void);

/* Most call lines one process writes; then one comment line says the trace was cut. */
#define TSG_TRACER_MAX_CALLS 1000000

/*
 * Whether C of problem p is fresh: its pages were never touched, so the call pays their first
 * touch. Definition: the page holding C's last byte is not resident (mincore), checked when C's
 * range [c, c + 4 * extent(m, n, ldc)) overlaps no C range this process passed before among the
 * last TSG_TRACER_RANGES remembered (the call's range is remembered), and when it does but is at
 * least 1 MiB long (the program gave that memory back and got new pages at the same address, as
 * glibc's mmap'd chunks of large arrays do; the chunk header keeps the first page resident, the
 * last one is the result's own); a seen range under 1 MiB is not fresh (no system call). A range
 * never passed before whose pages are there is not fresh: a block of a matrix the program filled
 * (LAPACK's and ScaLAPACK's updates) costs no page faults (docs/NOTES.md "2026-12-06 sixth
 * session": the replays gave every such block new pages, 7-15 ms of faults per call). Host C
 * only (pinned, managed, device C: 0), and m, n > 0. A range seen by a tiny call is seen.
 * Returns 0 or 1; 0 when the table is busy for long (a fork while another thread held it).
 */
int tsg_c_fresh(const tsg_problem *p);
enum { TSG_TRACER_RANGES = 1024 };

/* Monotonic clock in nanoseconds (the gaps' and times' clock). */
uint64_t tsg_tracer_now_ns(void);

/*
 * Appends one call line (src/tsg_trace.h) when tracing: entry (tsg_trace_entry), the caller's
 * layout and terms (row_major: 1 for a row-major CBLAS call; p is the column-major problem the
 * shim ran, which for row-major calls is swapped back here), the path (tsg_trace_path), p's
 * freshness field, and the call's start and end (tsg_tracer_now_ns). The gap is t0 less the end
 * of the process's previous traced call (0 when none or when calls overlap).
 */
void tsg_tracer_record(int entry, int row_major, const tsg_problem *p, int path, uint64_t t0,
                       uint64_t t1);

#endif /* TSG_TRACER_H */
