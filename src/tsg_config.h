/*
 * tsg_config.h — the TSGEMM_* knobs, parsed once from an injected lookup function.
 *
 * Owns: names, defaults and validation of every knob: one table (tsg_knobs[], below: name,
 * kind, range, the tsg_config field it sets, one line of documentation) drives one strict parser
 * (tsg_config_parse). README.md's knob table lists the same user knobs (unit.knob_table checks).
 * Must not: call getenv (the shim injects it, tests inject tables), print (bad values become
 * warnings the caller prints).
 */
#ifndef TSG_CONFIG_H
#define TSG_CONFIG_H

#include <stddef.h>
#include <stdint.h>

typedef enum tsg_mode { TSG_MODE_AUTO = 0, TSG_MODE_CPU, TSG_MODE_GPU } tsg_mode;

/* The arithmetic of GPU calls (TSGEMM_MATH; include/tsgemm.h tsgemm_set_math, whose enum and
 * kernels/tf32/tsg_kernel_tf32.h's TensorMath share these values): FP32 FFMA kernels, 3xTF32
 * (tensor cores, error-compensated: FP32-class accuracy, other bits), 1xTF32 (tensor cores,
 * 10 mantissa bits: reduced precision). */
typedef enum tsg_math { TSG_MATH_FP32 = 0, TSG_MATH_3XTF32 = 1, TSG_MATH_TF32 = 2 } tsg_math;
#define TSG_MATH_COUNT 3

/* The knobs a dispatch decision reads (small: copied per call, since tsgemm_set_mode may change
 * the mode while other threads run). */
typedef struct tsg_policy {
    tsg_mode mode;    /* TSGEMM_MODE=auto|cpu|gpu                      default auto     */
    double threshold; /* TSGEMM_GPU_THRESHOLD=<whole number n >= 0>: in auto mode run on the
                         GPU iff m*n*k >= n^3, instead of the cost model; 0 = the model */
} tsg_policy;

enum { TSG_CONFIG_PATH_MAX = 1024, TSG_CONFIG_WARN_MAX = 8, TSG_CONFIG_WARN_LEN = 200 };

/* Most device slots one process runs a call on (TSGEMM_DEVICE=0,1,... or all). */
#define TSG_MAX_DEVICES 16

typedef struct tsg_config {
    tsg_policy policy;    /* TSGEMM_MODE, TSGEMM_GPU_THRESHOLD                              */
    int log_level;        /* TSGEMM_LOG=0|1|2|3                            default 1        */
    int math;             /* TSGEMM_MATH=fp32|3xtf32|tf32 (any case; tsg_math) default fp32    */
    int device;           /* TSGEMM_DEVICE=<ordinal 0..1023, digits only>  default 0        */
    int device_set;       /* 1 when TSGEMM_DEVICE gave a valid value: it wins over the rank   */
    /* TSGEMM_DEVICE as a list: "0,1" (a device may repeat: "0,0" runs the several-device code
     * on one GPU) or "all" (every visible GPU). A single ordinal is a list of one. device is
     * the list's first entry (0 for all).                                                    */
    int ndevices;         /* entries of devices[]; 0 when TSGEMM_DEVICE is unset or "all"    */
    int devices[TSG_MAX_DEVICES];
    int device_all;       /* TSGEMM_DEVICE=all (any case)                                       */
    int local_rank;       /* node-local rank set by an MPI launcher or scheduler (see
                             tsg_config.c for the variables and their sources); -1 = none     */
    const char *local_rank_var; /* the variable local_rank came from (static), or ""         */
    char cpu_blas[TSG_CONFIG_PATH_MAX]; /* TSGEMM_CPU_BLAS=<path or soname>  "" = default  */
    char cache_dir[TSG_CONFIG_PATH_MAX]; /* TSGEMM_CACHE_DIR, else $XDG_CACHE_HOME/tsgemm,
                             else $HOME/.cache/tsgemm; "" = no cache                      */
    char trace_path[TSG_CONFIG_PATH_MAX]; /* TSGEMM_TRACE=<file>: append one line per call
                             (src/tsg_trace.h; "%p" in the name is the process id); "" = off */
    /* the transfer pipeline's limits (0 = the executor's default, gpu/tsg_gpu.h)          */
    double device_memory; /* TSGEMM_DEVICE_MEMORY=<bytes, K/M/G/T suffix, 1M..16T>: device
                             memory cap (TSG_DEVICE_MEMORY_MAX)                               */
    double pinned_memory; /* TSGEMM_PINNED_MEMORY=<bytes, K/M/G/T suffix, >= 512K, at most half
                             of physical memory when known>: pinned staging cap              */
    int copy_threads;     /* TSGEMM_COPY_THREADS=<1..256>: host copy threads                   */
    int pin_at_start;     /* TSGEMM_PIN_AT_START=0|1: pin the first workspace's slots in the
                             background once the GPU has started (gpu/tsg_gpu.h tsg_gpu_warm)
                             default 1                                                        */
    /* The TSGEMM_TEST_* knobs below: the release library's lookup answers NULL for every
     * TSGEMM_TEST_* name (shim/tsg_log.c), so only the tests' twin tsgemm_fi (built with
     * TSG_FAULT_INJECTION) ever sees them; a bad value warns and keeps the rule.               */
    char test_fault[64];  /* TSGEMM_TEST_FAULT                                                 */
    /* sizes of the tuning knobs: K/M/G/T suffix allowed, at most 1T; 0 = the rule            */
    double test_unit;     /* TSGEMM_TEST_UNIT=<bytes>: pipeline unit size (tuning runs only)    */
    double test_block;    /* TSGEMM_TEST_BLOCK=<floats>: C block area of the plan (tuning runs) */
    int test_timeline;    /* TSGEMM_TEST_TIMELINE=0|1|2: 1 one timeline line per pipelined
                             call; 2: also every upload unit, launch and download unit's times */
    int test_copy;        /* TSGEMM_TEST_COPY=memcpy|nt: the copy threads' copy (tuning runs)  */
    int test_ramp;        /* TSGEMM_TEST_RAMP=N (1..10): the first N upload units ramp up by
                             halves; unset: the rule (0) (tuning runs)                          */
    double test_chunk;    /* TSGEMM_TEST_CHUNK=<floats>: A and B floats of a K chunk (tuning)  */
    int test_order;       /* TSGEMM_TEST_ORDER=block|chunk|rounds:R (R 0..1000000): piece order
                             (tuning): 1, 2, 3 + R (src/tsg_plan.h tsg_plan_rounds' force)    */
    int test_touch;       /* TSGEMM_TEST_TOUCH=off|small|<parts>: a fresh C's first touch
                             (tuning): 0 the rule, -1 off, -2 without the huge-page advice,
                             > 0 that many parts                                              */
    int test_poll;        /* TSGEMM_TEST_POLL=1 (tuning A/B): the copy threads poll while a
                             pipelined call is in flight (gpu/tsg_pool.h bursts) even where the
                             rule blocks (too few CPUs to spare); 0 = the rule                */
    int nwarn;
    char warn[TSG_CONFIG_WARN_MAX][TSG_CONFIG_WARN_LEN]; /* one line per bad knob value */
} tsg_config;

/* Returns the value of variable `name`, or NULL when it is unset. */
typedef const char *(*tsg_lookup_fn)(const char *name, void *ctx);

/* How a knob's value is read. Every kind but TSG_KNOB_OWN warns once for a bad value (naming
 * the knob, the value, what it takes and what is used instead) and leaves the field as it was. */
typedef enum tsg_knob_kind {
    TSG_KNOB_UINT = 0, /* a whole number lo..hi by tsg_parse_uint's rules (no unit)             */
    TSG_KNOB_SIZE,     /* a size lo..hi: digits and at most one unit K/M/G/T (tsg_parse_uint with
                          TSG_PARSE_SUFFIX)                                                       */
    TSG_KNOB_WORD,     /* one of words[], stored as values[i] (with TSG_KNOB_OR_UINT also a whole
                          number lo..hi, stored as itself)                                        */
    TSG_KNOB_TEXT,     /* a string shorter than the field (a char array); longer: a warning     */
    TSG_KNOB_OWN       /* a syntax of its own: own() reads it (called also when it is unset)    */
} tsg_knob_kind;

enum {
    TSG_KNOB_TEST = 1,     /* a TSGEMM_TEST_* knob: only the tests' twin library tsgemm_fi reads
                              it (shim/tsg_log.c); not a user knob, not in the README           */
    TSG_KNOB_ANYCASE = 2,  /* TSG_KNOB_WORD: the words match in any case                        */
    TSG_KNOB_REAL = 4,     /* the field is a double (else an int)                              */
    TSG_KNOB_HALF_RAM = 8, /* TSG_KNOB_SIZE: hi is half of physical memory (when known)        */
    TSG_KNOB_OR_UINT = 16  /* TSG_KNOB_WORD: a whole number lo..hi is taken too                */
};

typedef struct tsg_knob tsg_knob;

/* One knob: where it is read from, how, and where it goes. */
struct tsg_knob {
    const char *name;          /* the environment variable, "TSGEMM_..."                       */
    tsg_knob_kind kind;
    unsigned flags;            /* TSG_KNOB_TEST | _ANYCASE | _REAL | _HALF_RAM | _OR_UINT       */
    uint64_t lo, hi;           /* the range of a number, unit applied (UINT, SIZE, OR_UINT)    */
    const char *const *words;  /* TSG_KNOB_WORD: NULL-terminated                               */
    const int *values;         /* TSG_KNOB_WORD: what words[i] stores                          */
    const char *field;         /* the tsg_config field it sets, as written in C               */
    size_t offset, size;       /* that field's offsetof and sizeof                             */
    const char *takes;         /* what it takes, as the warning says it: "is not <takes>"     */
    const char *cap;           /* SIZE: a value above hi gets "is more than <cap>" instead     */
    const char *instead;       /* what the warning says is used instead: "using the default"   */
    const char *doc;           /* one line: what it does                                       */
    /* TSG_KNOB_OWN: reads value v (NULL or "" when unset) into cfg */
    void (*own)(tsg_config *cfg, const tsg_knob *knob, const char *v, tsg_lookup_fn lookup,
                void *ctx);
};

/* Every TSGEMM_* knob, in the order tsg_config_parse reads them (the warnings' order). */
extern const tsg_knob tsg_knobs[];
extern const int tsg_nknobs;

/*
 * The one parser of every knob's numbers (sizes, counts, ordinals, levels).
 *
 * Shape: one or more decimal digits, then — only when `flags` has TSG_PARSE_SUFFIX — at most one
 * unit letter K, M, G or T (any case; powers of 1024: 2^10, 2^20, 2^30, 2^40), optionally
 * followed by exactly "B" or "iB" ("64K", "16MiB", "1gB", "2T"). Nothing else: no sign ("+1",
 * "-0"), no space before, inside or after, no hex ("0x10"), no exponent ("1e3"), no decimal
 * point ("1.5"), no leading zero except the number 0 itself ("01", "00" refused: strtol with base
 * 0 reads "010" as octal 8, so such a value would mean different things to different readers),
 * no empty string. Integer-only knobs pass flags = 0 and take no suffix.
 * Units: the value, unit applied, is a count of whatever the knob counts (bytes for the memory
 * knobs, floats for the plan's tuning knobs, plain numbers otherwise).
 * Range: digits and scaling are computed in 64-bit unsigned integer arithmetic with overflow
 * checks, so every value returned is finite and exact; it must be <= max.
 * Returns TSG_PARSE_OK and sets *out; TSG_PARSE_SYNTAX when s is not of the shape above (*out
 * untouched); TSG_PARSE_RANGE when it is but the value overflows 64 bits or exceeds max.
 */
enum { TSG_PARSE_SUFFIX = 1 };
enum { TSG_PARSE_OK = 0, TSG_PARSE_SYNTAX = -1, TSG_PARSE_RANGE = -2 };
int tsg_parse_uint(const char *s, unsigned flags, uint64_t max, uint64_t *out);

/* The largest TSGEMM_DEVICE_MEMORY accepted: 16 TiB, far above any GPU's memory (288 GB in
 * 2026); it only keeps the value in a sane range — the executor also clamps the cap to the
 * device's own memory. Larger values get a warning and the default. */
#define TSG_DEVICE_MEMORY_MAX ((uint64_t)1 << 44)

/*
 * Fills *cfg from the lookup. Never fails: a bad value keeps the default and adds a warning.
 * phys_bytes: this machine's physical memory in bytes (the shim passes
 * sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE)); 0 = unknown. TSGEMM_PINNED_MEMORY above
 * half of it is refused with a warning that says so and the default is used (pinned pages cannot
 * be swapped: more than half of RAM starves the rest of the machine); with 0 there is no such cap.
 */
void tsg_config_parse(tsg_config *cfg, tsg_lookup_fn lookup, void *ctx, uint64_t phys_bytes);

/* The name of a mode as TSGEMM_MODE spells it: "auto", "cpu" or "gpu". */
const char *tsg_mode_name(tsg_mode mode);

/* The name of a math as TSGEMM_MATH spells it: "fp32", "3xtf32" or "tf32"; "fp32" for any
 * value outside tsg_math. */
const char *tsg_math_name(int math);

/* The tsg_math that TSGEMM_MATH's value v names (any case), or -1 for anything else ("",
 * " fp32", "tf32x3", "1"). */
int tsg_math_parse(const char *v);

/* Why tsg_config_device chose its device. */
typedef enum tsg_device_why {
    TSG_DEVICE_KNOB = 0,    /* TSGEMM_DEVICE                                   */
    TSG_DEVICE_LOCAL_RANK,  /* an MPI rank: local_rank % visible devices       */
    TSG_DEVICE_DEFAULT      /* neither (or the device count is unknown): 0     */
} tsg_device_why;

/*
 * The CUDA device ordinal this process should use, given `visible` devices (the count CUDA
 * reports, CUDA_VISIBLE_DEVICES applied; < 1 when unknown). TSGEMM_DEVICE when set (the caller
 * still checks it exists); otherwise, in an MPI rank, local_rank % visible — ranks sharing a node
 * spread over its GPUs, and a launcher that already gives each rank one GPU (visible = 1) gets
 * device 0 everywhere; otherwise 0. *why says which rule applied.
 */
int tsg_config_device(const tsg_config *cfg, int visible, tsg_device_why *why);

/*
 * The device slots this process should run on, given `visible` devices (< 1: unknown): the
 * TSGEMM_DEVICE list as given (duplicates kept; the caller checks that each exists), every
 * visible device for "all" (at most TSG_MAX_DEVICES; device 0 alone when the count is
 * unknown), else the one device of tsg_config_device. Writes at most `max` ordinals to out[]
 * (max >= 1) and returns how many; *why as tsg_config_device's.
 */
int tsg_config_devices(const tsg_config *cfg, int visible, int *out, int max, tsg_device_why *why);

#endif /* TSG_CONFIG_H */
