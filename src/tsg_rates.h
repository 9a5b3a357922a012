/*
 * tsg_rates.h — the measured rates as untrusted input: the physical bounds of every field, and
 * the text format of the per-GPU rates cache.
 *
 * Owns: which values of struct tsg_rates (src/tsg_cost.h) a GPU and a CPU can really have, and
 * the cache file's text (one header line naming the format, then "name value" lines). Must not:
 * open files (shim/tsg_ratecache.c does, with the file-system checks), print or read the
 * environment. Everything that reaches the cost model from a file or a measurement passes
 * tsg_rates_gpu_check first, so no value in a cache can make src/ divide by zero, overflow a
 * cast or disable the GPU by being absurd (issue 34; docs/NOTES.md "2026-12-05 hardening").
 */
#ifndef TSG_RATES_H
#define TSG_RATES_H

#include <stddef.h>

#include "tsg_cost.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU fields the cache holds, in file order (the CPU's have a file of their own: below): the
 * first TSG_RATES_GPU_REQUIRED in every file, then the transpose pairs' kernel figures
 * (tsg_rates.gpu_pair_*: TN, NT, TT, each flops, tile_m, tile_n) as one optional group. */
enum { TSG_RATES_GPU_N = 18, TSG_RATES_GPU_REQUIRED = 9 };

/*
 * The cache format's first line. The number changes whenever the meaning of a field or the way
 * kernels/ measures it changes, so a file written by another version is refused whole and the
 * GPU measured again. A change that only some maths' files see, or that adds fields older files
 * may lack, may move the file name's version alone (shim/tsg_measure.c cache_name: v16, 1xTF32's
 * tile; v17, the pairs' group), which keeps the committed FP32 rates of
 * docs/results/run30-classes and run31-classes readable (unit.model_replays).
 */
#define TSG_RATES_HEADER "tsgemm-gpu-rates 15"

/* Largest cache file read (bytes): eighteen short lines are about 550. */
#define TSG_RATES_FILE_MAX 4096

/*
 * The bounds of field i (0 <= i < TSG_RATES_GPU_N): name, lowest and highest value, whether it
 * must be a whole number, and whether 0 is allowed too ("not measured"). Sources of the bounds
 * (the widest real hardware, with a margin):
 *   h2d_bps, d2h_bps   1 MB/s .. 4 TB/s: PCIe 6 x16 is 128 GB/s a way, NVLink-C2C (GH200)
 *                      450 GB/s a way (NVIDIA GH200 datasheet); below 1 MB/s nothing works
 *   gpu_flops          1 GFLOP/s .. 10 PFLOP/s: H200 FP32 66.9 TFLOP/s, dense TF32 494.7
 *                      (docs/PERF.md, NVIDIA H200 datasheet)
 *   gpu_latency_s      0 .. 1 s: a pipelined call's fixed cost is microseconds (H200: 20-60 us)
 *   gpu_tile_m/_n      1 .. 4096 whole: a thread block's C tile (ours: 32 .. 256)
 *   gpu_slots          1 .. 2^20 whole: resident blocks of one wave (132 SMs x a few)
 *   gpu_split_min_k    0 .. 2^31 whole (0: no split-K)
 *   gpu_device_bytes   1 MiB .. 2^50 (1 PiB; the H200 has 141 GB)
 *   gpu_{tn,nt,tt}_flops         as gpu_flops, or 0 (the pair not measured: NN's rate)
 *   gpu_{tn,nt,tt}_tile_m/_n     as gpu_tile_m/_n, or 0 (NN's tile): 1xTF32's NT 128 x 128
 *                      at 157 TFLOP/s where its NN runs 128 x 256 at 375 (H200, device run 69)
 */
typedef struct tsg_rate_bound {
    const char *name;
    double lo, hi;
    int whole;
    int zero; /* 1: 0 is allowed too (not measured) */
} tsg_rate_bound;
const tsg_rate_bound *tsg_rates_gpu_bound(int i);

/* Field i of the GPU's cached fields (the order of tsg_rates_gpu_bound). */
double *tsg_rates_gpu_field(tsg_rates *r, int i);

/*
 * -1 when every GPU field of r is finite and within its bounds, else the index of the first that
 * is not. shape = 0 also accepts what src/tsg_cost.h documents as "not known": gpu_tile_m,
 * gpu_tile_n and gpu_slots all 0 (no shape information: the kernel priced as flops / rate) and
 * gpu_device_bytes 0 (no device budget), as tests and callers without the executor's figures
 * pass them; the cache and the measurement use shape = 1.
 */
int tsg_rates_gpu_check(const tsg_rates *r, int shape);

/*
 * 1 when r's CPU fields are finite and physical: cpu_flops 1 MFLOP/s .. 10 PFLOP/s,
 * cpu_latency_s, cpu_mid_s and cpu_small_s 0 .. 100 s, gpu_count 0 .. TSG_MAX_DEVICES,
 * cpu_touch_bps 0 (not measured) or 1 MB/s .. 10 TB/s, cpu_thin_m_s and cpu_thin_n_s 0 .. 100 s.
 */
int tsg_rates_cpu_ok(const tsg_rates *r);

/* 1 when the model may judge a call with r: GPU fields as tsg_rates_gpu_check(r, 0), CPU fields
 * as tsg_rates_cpu_ok. */
int tsg_rates_usable(const tsg_rates *r);

/*
 * Writes the cache text of r's GPU fields into buf (len bytes): TSG_RATES_HEADER, then one
 * "name value" line per field, values in %.17g (read back bit for bit); the pairs' group only
 * where one of its fields is not 0 (so rates without it write the text they always did).
 * Returns the length written (< len, NUL-terminated), or -1 when buf is too small or r fails
 * tsg_rates_gpu_check(r, 1) (an absurd measurement is not cached).
 */
int tsg_rates_format(const tsg_rates *r, char *buf, size_t len);

/*
 * Parses a cache file's text (len bytes, need not be NUL-terminated; at most
 * TSG_RATES_FILE_MAX) into r's GPU fields. The whole text is refused — -1, r untouched, *why
 * (static text) set — on anything but exactly: the header line, then each field once, "name
 * value\n" with one space, the value a plain decimal strtod reads entirely, within its bounds
 * (tsg_rates_gpu_check(r, 1)); the pairs' group (fields TSG_RATES_GPU_REQUIRED on) all there or
 * none, none read as 0 (files written before the pairs were measured). Returns 0 on success.
 */
int tsg_rates_parse(const char *text, size_t len, tsg_rates *r, const char **why);

/*
 * The CPU BLAS's rates as the cache keeps them (shim/tsg_measure.c): the fields of struct
 * tsg_rates the CPU side of the model reads (src/tsg_cost.h: flops at TSG_CPU_BIG_N^3, the
 * seconds of a TSG_CPU_MID_N^3 and a TSG_CPU_SMALL_N^3 call, a tiny call's latency, a fresh C's
 * first-touch rate, the thin calls' seconds; 0 for mid_s, small_s, touch_bps, thin_m_s or
 * thin_n_s: not measured) and how many measurements
 * they are the best of. Bounds as tsg_rates_cpu_ok's; samples 1 .. 10^6 whole.
 */
typedef struct tsg_cpu_rates {
    double flops, mid_s, small_s, latency_s, touch_bps, samples;
    double thin_m_s, thin_n_s; /* tsg_rates cpu_thin_m_s, cpu_thin_n_s (0: not measured) */
} tsg_cpu_rates;

enum { TSG_RATES_CPU_N = 8 };

/* The CPU cache format's first line; its number changes with the meaning of a field. */
#define TSG_CPU_RATES_HEADER "tsgemm-cpu-rates 2"

/* -1 when every field of r is finite and within its bounds, else the index of the first not. */
int tsg_cpu_rates_check(const tsg_cpu_rates *r);

/* Copies the CPU BLAS's rates c into the cost model's rates r (its cpu_* fields; nothing else):
 * how the GPU's cached or measured rates and the CPU's are joined (shim/tsg_measure.c, and
 * bench/model_check.c reading both cache files). */
void tsg_rates_set_cpu(tsg_rates *r, const tsg_cpu_rates *c);

/* The cache text of r (as tsg_rates_format: header, "name value" lines in %.17g); -1 when buf is
 * too small or r fails tsg_cpu_rates_check. */
int tsg_cpu_rates_format(const tsg_cpu_rates *r, char *buf, size_t len);

/* Parses a CPU cache file's text into r: refused whole (-1, r untouched, *why set) on anything but
 * exactly the header and each field once within its bounds, as tsg_rates_parse. 0 on success. */
int tsg_cpu_rates_parse(const char *text, size_t len, tsg_cpu_rates *r, const char **why);

/*
 * best becomes the better of best and m field by field (the highest rate, the shortest time; a 0
 * "not measured" time yields to a measured one) and counts m's samples too. Why the best and not
 * the last: a measurement taken while the machine was busy reads the CPU slower than it is and
 * would send calls to the GPU that the CPU runs faster (docs/NOTES.md "2026-12-05 real programs");
 * the best of a few keeps such a sample from sticking.
 */
void tsg_cpu_rates_merge(tsg_cpu_rates *best, const tsg_cpu_rates *m);

#ifdef __cplusplus
}
#endif

#endif /* TSG_RATES_H */
