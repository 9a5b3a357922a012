/*
 * tsg_start.h — the GPU's start in this process (tsg_start.c): lazily, once, on the first call
 * that may want it; which device; what a fork() leaves of it.
 *
 * Owns: the GPU's phase (below), whether this process is a fork of one that started the GPU,
 * the device slots, and the text that names the device (or why there is none). Nothing happens
 * at load time: a process that never calls SGEMM, or forks before its first big call, never
 * creates a CUDA context. A forked child of a process that started the GPU uses the CPU for good
 * (a CUDA context does not survive fork()).
 * Must not: measure rates (tsg_measure.h: the start only names the math whose kernel the
 * warm-up times for tsg_measure.c's cache check), dispatch, or hold a lock across a backend call.
 */
#ifndef TSG_START_H
#define TSG_START_H

/* Where the GPU stands in this process. */
typedef enum tsg_start_phase {
    TSG_START_UNKNOWN = 0, /* not started yet (or starting now)                          */
    TSG_START_READY,       /* started: calls may run on it                               */
    TSG_START_ABSENT,      /* none usable (no device, no driver, start-up failed, a
                              privileged process)                                          */
    TSG_START_DISABLED     /* was usable; a fatal CUDA error, a failed measurement or fork()
                              took it away for the rest of the process                     */
} tsg_start_phase;

/*
 * 1 when the GPU may be used from this process now, starting it on the first call (pthread_once,
 * with cancellation off): the device that src/tsg_config.c's rule picks (TSGEMM_DEVICE, an MPI
 * rank's node-local rank, else 0), the further slots of a TSGEMM_DEVICE list, the exit handler.
 * 0 in a forked child of a process that started the GPU (said once at TSGEMM_LOG >= 1), or when
 * the start failed or the GPU was disabled since.
 */
int tsg_start_gpu(void);

/* The phase now (never starts anything). */
tsg_start_phase tsg_start_now(void);

/* Takes the GPU away for the rest of the process (after a fatal CUDA error or a failed
 * measurement): later calls run on the CPU BLAS. */
void tsg_start_disable(void);

/* 1 when this process is a fork of one that started the GPU. */
int tsg_start_forked(void);

/* 1 when the GPU's start was entered in this process and this is not a forked child of it: its
 * pools and streams exist and may be released or asked about. */
int tsg_start_live(void);

/* The device slots calls may be split over (1 for one GPU; TSGEMM_DEVICE=0,1 / all / 0,0 give
 * more). Written once during the start; 1 before it. */
int tsg_start_slots(void);

/* The started device as text (name, memory, ...), or why there is none; static storage. */
const char *tsg_start_info(void);

#endif /* TSG_START_H */
