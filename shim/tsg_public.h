/*
 * tsg_public.h — what the public unit (tsg_public.c: the tsgemm_* functions of include/tsgemm.h
 * and the counters' sums) offers the rest of shim/.
 */
#ifndef TSG_PUBLIC_H
#define TSG_PUBLIC_H

/* Registers the exit summary (one line at exit: calls, paths, flops, time) once per process;
 * the driver calls it on every call at TSGEMM_LOG >= 2. */
void tsg_stats_summary_at_exit(void);

#endif /* TSG_PUBLIC_H */
