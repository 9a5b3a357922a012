#!/usr/bin/env bash
# scripts/device-run.sh — the whole GPU run in one device call (well inside its 10 minutes).
#
#   scripts/device-run.sh [STAGE ...]      default: build rates unit gpu sanitize pipe kbench bench clients
#
# Stages:
#   build     configure + build for sm_90 with the devkit (.devkit/, made by scripts/devkit.sh);
#             TSGEMM_BUILD_TARGETS: only these targets (e.g. "test_tf32_kernel tf32_probe" for a
#             tf32-only run: the other stages then find their programs missing)
#   rates     the measured rates of the cost model (TSGEMM_LOG=2) and auto mode's choice per size,
#             each transpose pair's kernel among them; TSGEMM_RATES_MATHS="fp32 3xtf32 tf32": one
#             process per math (default: TSGEMM_MATH's math, or fp32)
#   unit      ctest -L unit (the CPU tiers also hold on the GPU machine)
#   gpu       ctest -L gpu: kernel tests, large sizes, fault classes forced/auto, forced-GPU testers
#             (gpu.testers_forced exists only when TSGEMM_TEST_TIERS has conformance, the default)
#   sanitize  compute-sanitizer memcheck (+leak check), racecheck, initcheck, synccheck over the
#             small shape set (edge tiles, all transposes, K remainders, split-K, host path), the
#             pipeline's small cases under caps (many pieces) and in each tensor-core math
#             (TSGEMM_MATH=3xtf32, tf32: how many calls ran on the family is logged), the
#             CUDA-caller cases; its own rates cache ($B/cache-sanitize; TSGEMM_SAN_CACHE=shared:
#             the gpu stage's $B/cache, to check that later processes measure again); memcheck
#             also over 400 fuzzed calls with the GPU forced (TSGEMM_SAN_FUZZ_COUNT); the kernel
#             part runs configuration groups "0,1,2,3,4,5,6 7 8,9 10" (TSGEMM_SAN_KERNEL_GROUPS;
#             "none": the pipeline and the CUDA callers only, as v0.11 run 3 did by hand);
#             TSGEMM_SAN_TOOLS picks the tools and their order
#   pipe      the pipeline's figures: device operands vs the kernel alone, a tiny call's cost in a
#             CUDA process, and end-to-end times for several copy-thread counts
#   fresh     numpy's case (not a default stage): 4096^3, 4095^3 (odd ld) and 4103 x 4096 x 4091
#             with C reused and with a new C for every call (pipe_probe --fresh), the first touch
#             by the rule / off / in 4 parts (TSGEMM_TEST_TOUCH), and their timelines
#   beta      beta = 1 (not a default stage; the scatters apply beta, C stays on the host) against
#             beta = 0, two rounds in alternating processes, and the beta = 1 timeline
#   ab        an A/B of knob settings (not a default stage): pipe_probe (GPU forced, medians of 7) in
#             one process per setting, the settings alternating, TSGEMM_AB_ROUNDS rounds (default
#             2). TSGEMM_AB_VARIANTS: settings separated by '|', each "rule" or NAME=VALUE pairs
#             separated by spaces (default "rule|TSGEMM_TEST_ORDER=block": the piece order's
#             chunk-major rounds against block-major); TSGEMM_AB_SHAPES (default
#             1024 2048 4096); TSGEMM_AB_STEPS: shapes whose 5th call prints every step
#             (TSGEMM_TEST_TIMELINE=2) under each setting. The table (median ms per round) is printed last
#   dma       the copy engines (pinned H2D / D2H, 256 KiB .. 64 MiB) and cudaHostRegister's cost
#             (tests/gpu/dma_probe.c; not a default stage)
#   tf32      the tensor-core family (issue 36; not a default stage): builds test_tf32_kernel
#             and bench/tf32_probe (the default configuration with a stage left out:
#             tf32_probe.txt, run first),
#             (configures first when the build stage did not run), runs it (edge grid, both maths,
#             NaN/Inf, repeats, then timing against cuBLAS FP32 and FAST_TF32: tf32.txt) and
#             compute-sanitizer memcheck/racecheck/initcheck/synccheck on its --small run
#             (TSGEMM_TF32_SAN_TOOLS; tf32_sanitize.log); TSGEMM_TF32_ARGS (e.g. "--variants 12,13")
#             to every test_tf32_kernel run, TSGEMM_TF32_SAN_ARGS instead to the sanitizers' runs
#             (e.g. "--variants 0": the default's instances alone); TSGEMM_TF32_PROBE=0 leaves tf32_probe out
#   accuracy  issue 36's accuracy study (bench/accuracy_study.c, not a default stage): error vs K
#             for three input classes, tsgemm fp32 / 3xtf32 / tf32 and cuBLAS FP32 (accuracy.csv;
#             docs/ACCURACY.md, scripts/plot-accuracy.sh); TSGEMM_ACCURACY_VARIANTS=V,...: 3xTF32's
#             variants on the same inputs first (test_tf32_kernel --accuracy, accuracy-variants.csv),
#             TSGEMM_ACCURACY_STUDY=0 that alone; with those variants or TSGEMM_ROUNDING=1 also
#             test_tf32_kernel --rounding (rounding.txt: the TF32 conversion of raw operands)
#   power     the clock and the power under long runs (issue 36; not a default stage):
#             `test_tf32_kernel --sustain ${TSGEMM_SUSTAIN_S:-3}` (cuBLAS FP32 and FAST_TF32, tsgemm
#             3xtf32 and tf32 at 4096^3 / 8192^3 / 16384^3 NN, each back to back for that many seconds)
#             beside nvidia-smi's 100 ms samples of clock, power and clock event reasons; per phase
#             by scripts/smi-phases.py (power.txt, power-smi.csv, power-phases.txt);
#             TSGEMM_SUSTAIN_VARIANTS (e.g. 9,11): the family's variants too, each math
#   tiny      tsgemm-tinybench without a GPU visible, with one idle and after a GPU call
#             (--start-gpu; issue 37's tiny calls on a GPU machine; not a default stage): tiny.txt
#   kbench    kernel vs cuBLAS on device data (bench/tsgemm-kbench): the rule and every configuration,
#             NN NT TN TT at 4096, 4095^3, 8192^3 among the shapes (median of 20)
#   bench     tsgemm-bench: end to end against OpenBLAS, cuBLAS + copies, NVBLAS (when built)
#   clients   unmodified programs under LD_PRELOAD, traced and timed against their plain runs:
#             pip numpy (the machine's python3) and a C program linked to OpenBLAS (n = 4096);
#             and PyTorch as a CUDA caller (tests/preload/torch_caller.py: device pointers from a
#             program with its own shared CUDA runtime, checked, timed against torch.mm)
#   multi     several GPUs (docs/USING.md "Several GPUs"; not a default stage): pipe_probe (GPU forced)
#             and tsgemm-bench with TSGEMM_DEVICE unset against TSGEMM_DEVICE=$TSGEMM_MULTI_DEVICES
#             (default all; 0,0 on a one-GPU machine checks the split's overhead), the issue's
#             shapes 8192^3 and 16384^3 among them (targets on nvidia-h200-x2: >= 1.6x, >= 1.8x)
#   replay    the shipped traces of real programs (bench/traces/*.trace, recorded on the CPU
#             path): tsgemm-bench --replay each (OpenBLAS, tsgemm auto, GPU forced; the recorded
#             gaps and fresh C's, no settle, no rewarm), then the default bench sweep with --settle 0
#             --rewarm 0 (calls beside OpenBLAS's spinning workers, as programs make them) and
#             the shapes up to 1024^3 again (TSGEMM_SWEEP_SHAPES: 288^3-384^3 added, where the
#             crossover lies) with TSGEMM_SWEEP_REPS repeats (default 25); not a
#             default stage. Table: per trace the three totals (ms in calls) and the GPU's share
#             of auto mode's calls; replay-*.txt, replay-bench.{txt,csv} and
#             replay-bench-small.{txt,csv} under $OUT, timed at
#             TSGEMM_LOG=1 (TSGEMM_REPLAY_LOG=2: each trace once more at level 2 for its log,
#             replay-*-log.txt; TSGEMM_REPLAY_ROUNDS=N: N rounds of the passes, rotated, medians;
#             replay-NAME-calls.csv: every call's time per pass and round (--replay-calls);
#             rates measured in a cache folder of the stage's own; the programs' own BLAS
#             loaded with --own-blas when python3 has the wheels: numpy's
#             numpy.libs/libscipy_openblas64_*.so and scipy's scipy.libs/libscipy_openblas-*.so,
#             the latter also from /tmp/site or .whl/ as the scipy stage installs it; which ones
#             in replay-own-blas.txt and each replay's header); and
#             pipe_probe alone / right after a 1024^3 OpenBLAS call / the same with
#             OPENBLAS_THREAD_TIMEOUT=20 (TSGEMM_AFTER_SHAPES; after-openblas.txt)
#   cpucalls  calls that stay on the CPU, through tsgemm against OpenBLAS alone (issue 37; not a
#             default stage): TSGEMM_CPUCALL_TRACES (default scalapack-psgemm octave-single mlp-numpy), gaps
#             cut to 300 ms, 3 rounds each as is / with no GPU visible / OPENBLAS_THREAD_TIMEOUT=20
#             (TSGEMM_CPUCALL_VARIANTS adds copy2, pin0, blas8: see the stage), and one pass at
#             TSGEMM_LOG=3 (per-call times); cpucalls.txt
#   scipy     scipy's wheel (its own OpenBLAS, scipy_sgemm_) under LD_PRELOAD: 4096^3 timed plain
#             and preloaded (on the GPU), and scikit-learn's KMeans with the GPU forced. The
#             wheels in .whl/ (docs/TESTING.md "The tiers as built", the pip download line), installed
#             into /tmp/site, else python3's own scipy and scikit-learn; not a default stage
# TSGEMM_PIPE_SHAPES / _COPY / _THREADS / _UNITS / _BLOCKS / _CHUNKS: the pipe stage's sweep (the
# TSGEMM_TEST_* tuning knobs; 0 = the library's rule). Only the tests' twin libtsgemm_fi reads
# TSGEMM_TEST_* (a release libtsgemm ignores them): pipe_probe and test_gpu_pipeline link it; a
# tsgemm-bench A/B of such a knob needs LD_PRELOAD=$B/libtsgemm_fi.so (the bench warns otherwise).
# TSGEMM_BENCH_ARGS: the bench stage's options (default --quick); TSGEMM_BENCH_MORE: more bench
# invocations in the same stage, option lists separated by '|' (e.g. "--shapes 4096 --beta 1
# --reps 7 --no-nvblas|--shapes 4096 --reps 5").
# TSGEMM_CTEST_ARGS adds ctest arguments to the unit and gpu stages (e.g. -E "fuzz|large"); the gpu
# stage starts only with TSGEMM_GPU_MIN_S seconds of the budget left (default 240: the whole tier;
# a -R subset needs less, run 47 lost its subset to this rule).
# TSGEMM_CMAKE_ARGS adds configure arguments to the build stage (e.g. -DTSGEMM_LINEINFO=ON).
# Full logs and CSV go to $OUT (the device tool brings them back; ./out when run by hand), and all
# of them into $OUT/all.tar.gz; a summary table is printed last. Exit status: 0 when every stage that ran passed.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
B=$ROOT/build-dev
stages=("$@")
t0=$(date +%s)
[ ${#stages[@]} -eq 0 ] && stages=(build rates unit gpu sanitize pipe kbench bench clients)
# A stage starts only while the call has time left for it (device calls end at 10 minutes): the
# number after its name in `want` (default 60 s) must be left of TSGEMM_DEVICE_BUDGET when it
# comes up. Stages run in this file's order, not the command line's (gpu, sanitize, ..., accuracy,
# power, tf32, ..., bench, replay, scipy): a late stage behind a long one may find no budget left (run 19: tf32
# skipped behind sanitize), so the script says which requested stages come in another order.
BUDGET=${TSGEMM_DEVICE_BUDGET:-540}
file_order=(build rates unit gpu sanitize pipe multi fresh beta ab dma accuracy power tf32 kbench bench replay cpucalls clients scipy)
prev=-1
for s in "${stages[@]}"; do
  for i in "${!file_order[@]}"; do
    if [ "${file_order[$i]}" = "$s" ]; then
      [ "$i" -lt "$prev" ] && echo "device-run: note: stage $s runs before the ones named ahead of it (this file's order)"
      [ "$i" -gt "$prev" ] && prev=$i
    fi
  done
done
want() {
  local s
  for s in "${stages[@]}"; do
    if [ "$s" = "$1" ]; then
      if [ $(( $(date +%s) - t0 )) -gt $(( BUDGET - ${2:-60} )) ]; then
        row "$1" skip "no time left in this call's budget"; return 1; fi
      return 0
    fi
  done
  return 1
}

if [ ! -f .devkit/env.sh ] && [ -f .devkit.tar.xz ]; then tar -xJf .devkit.tar.xz; fi
if [ ! -f .devkit/env.sh ]; then
  echo "no .devkit/: run scripts/devkit.sh on the development machine and carry .devkit" \
       "(or .devkit.tar.xz)" >&2
  exit 2
fi
# shellcheck disable=SC1091
source .devkit/env.sh
# a build folder packed on the development machine (scripts/pack-build.sh, carried in build-carry/):
# unpacked when there is no build-dev/, refused when configured for another source folder (its
# paths are absolute)
if [ ! -d "$B" ] && [ -f build-carry/build-dev.tar.xz ]; then
  tar -xJf build-carry/build-dev.tar.xz || exit 2
  packed_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$B/CMakeCache.txt")
  if [ "$packed_src" != "$ROOT" ]; then
    echo "device-run: build-carry/build-dev.tar.xz was built for $packed_src, not $ROOT" >&2
    rm -rf "$B"; exit 2
  fi
  touch "$B/.from-pack"
  echo "device-run: build-dev/ unpacked from build-carry/build-dev.tar.xz"
fi
export TSGEMM_CACHE_DIR=$B/cache
# OpenBLAS 0.3.21 misdetects this host's CPU ("Prescott", 0.2 TFLOP/s; docs/PERF.md): fair comparisons
# need the real core type. The tests do not depend on it.
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-SkylakeX}

rows=()
row() { rows+=("$(printf '%-10s %-6s %s' "$1" "$2" "$3")"); }
fails=0
elapsed() { echo "$(( $(date +%s) - t0 ))s"; }
# The rates cache folder in TSGEMM_CACHE_DIR measured by three quiet processes (GPU rates once,
# CPU rates settled: shim/tsg_measure.c); their logs $OUT/NAME-warm-N.txt
quiet_rates() { local i; for i in 1 2 3; do TSGEMM_LOG=2 "$B/tests/gpu/gpu_probe" --rates > "$OUT/$1-warm-$i.txt" 2>&1; done; }
# A tsgemm-bench --replay output's totals (its replay-summary lines): sets ob, ts (" WRONG" added
# when a result was wrong) and gms (empty when the forced pass was skipped)
replay_totals() {
  local sum
  sum=$(grep '^  replay-summary ' "$1" | head -1)
  ob=$(echo "$sum" | sed -n 's/.*openblas_ms=\([0-9.]*\).*/\1/p')
  ts=$(echo "$sum" | sed -n 's/.*tsgemm_ms=\([0-9.]*\).*/\1/p')
  gms=$(sed -n 's/^  replay-summary-gpu .* gpu_ms=\([0-9.]*\).*/\1/p' "$1")
  case "$sum" in *WRONG*) ts="$ts WRONG";; esac
}

machine=$( { nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -1; echo "kernel $(uname -r), $(nproc) CPUs"
  # the host CPU: the device hosts differ, and OpenBLAS 0.3.21 ran its Prescott kernels on run
  # 32's (0.165 TFLOP/s at 1024^3 against SkylakeX's 0.95-1.04 on runs 30-31)
  sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1; } 2>&1 | tr '\n' ';')

# configure: the build folder for sm_90 with the devkit's netlib sources (build.log)
configure() {
  # shellcheck disable=SC2086
  cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DTSGEMM_NETLIB_DIR="$TSGEMM_DEVKIT/blas" -DTSGEMM_TEST_TIERS="${TSGEMM_TEST_TIERS:-unit;conformance;gpu}" \
    ${TSGEMM_CMAKE_ARGS:-} >> "$OUT/build.log" 2>&1
}
# build_targets T...: configure when no build stage did, then build these targets (incremental:
# a program left from an older tree is rebuilt, not reused); 0 when built
build_targets() {
  if [ -f "$B/.from-pack" ]; then # the pack leaves out CMake's own files and the objects
    echo "device-run: build-dev/ came from build-carry/build-dev.tar.xz: name the build stage to build $*" >&2
    return 1
  fi
  if [ ! -f "$B/CMakeCache.txt" ]; then configure || return 1; fi
  cmake --build "$B" -j"$(nproc)" --target "$@" >> "$OUT/build.log" 2>&1
}

if want build; then
  : > "$OUT/build.log"
  [ -f "$B/.from-pack" ] && rm -rf "$B" # a packed build cannot be built on: start afresh
  if configure &&
     cmake --build "$B" -j"$(nproc)" ${TSGEMM_BUILD_TARGETS:+--target $TSGEMM_BUILD_TARGETS} >> "$OUT/build.log" 2>&1; then
    row build ok "sm_90, $(elapsed)"
  else
    row build FAIL "see build.log"; tail -30 "$OUT/build.log"; fails=$((fails+1))
    printf '%s\n' "${rows[@]}"; exit 1
  fi
fi

run_ctest() { # label logname
  local log=$OUT/tests.log
  echo "==== ctest -L $1" >> "$log"
  # shellcheck disable=SC2086
  ctest --test-dir "$B" -L "$1" --output-on-failure --timeout 600 ${TSGEMM_CTEST_ARGS:-} > "$OUT/.ctest.tmp" 2>&1
  local rc=$?
  cat "$OUT/.ctest.tmp" >> "$log"
  local line; line=$(grep -E 'tests passed|tests failed' "$OUT/.ctest.tmp" | tail -1)
  local skipped; skipped=$(grep -c '(Skipped)\|\*\*\*Skipped' "$OUT/.ctest.tmp")
  if [ $rc -eq 0 ]; then row "$2" ok "$line; skipped $skipped; $(elapsed)"
  else row "$2" FAIL "$line; $(grep -E '\*\*\*Failed|\(Failed\)' "$OUT/.ctest.tmp" | head -3 | tr -s ' ' | tr '\n' ';')"; fails=$((fails+1)); fi
  rm -f "$OUT/.ctest.tmp"
}
if want rates 30; then # the cost model's inputs on this machine, and where auto mode sends sizes
  # TSGEMM_RATES_MATHS: the maths measured, one process each into one fresh cache (default: the
  # math TSGEMM_MATH names, or fp32); rates.txt holds every process's log, a row per math
  rm -rf "$B/cache-rates"
  : > "$OUT/rates.txt"
  for math in ${TSGEMM_RATES_MATHS:-${TSGEMM_MATH:-fp32}}; do
    TSGEMM_MATH=$math TSGEMM_CACHE_DIR=$B/cache-rates TSGEMM_LOG=2 "$B/tests/gpu/gpu_probe" --rates > "$OUT/.rates.tmp" 2>&1 &&
      row rates ok "$(grep -o 'rates (math [a-z0-9]*): .*' "$OUT/.rates.tmp" | head -1 | cut -c1-180)" ||
      { row rates FAIL "$math: see rates.txt"; fails=$((fails+1)); }
    { echo "== TSGEMM_MATH=$math"; cat "$OUT/.rates.tmp"; } >> "$OUT/rates.txt"
  done
  rm -f "$OUT/.rates.tmp"
fi
want unit 60 && run_ctest unit unit
want gpu "${TSGEMM_GPU_MIN_S:-240}" && run_ctest gpu gpu

if want sanitize 300; then
  # a cache of its own: rates measured under a sanitizer are 10-50x slow, and in the shared cache
  # they kept every later auto-mode test on the CPU (run 79: gpu.faults_auto, gpu.soak_faults and
  # gpu.fuzz_auto failed after the sanitize stage ran first, the cached kernel rate 1.1 TFLOP/s)
  # (TSGEMM_SAN_CACHE=shared writes into the shared one: the check of shim/tsg_measure.c
  # TSG_GPU_STALE_FACTOR, whose spot check must make the next process measure again)
  export TSGEMM_CACHE_DIR=$B/cache-sanitize
  [ "${TSGEMM_SAN_CACHE:-}" = shared ] && export TSGEMM_CACHE_DIR=$B/cache
  cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in ${TSGEMM_SAN_TOOLS:-memcheck racecheck initcheck synccheck}; do
    extra=(); [ $tool = memcheck ] && extra=(--leak-check full)
    log=$OUT/.san.tmp
    # the kernel families: the first group with the rule's own run of the small set (--small),
    # the others forced only (--small-forced), each run with its own time limit:
    # racecheck over all eight in one 110 s run timed out in v0.4 run 5 (TSGEMM_SAN_KTIMEOUT,
    # seconds per run, default 110; racecheck 240)
    kt=${TSGEMM_SAN_KTIMEOUT:-110}; [ $tool = racecheck ] && kt=${TSGEMM_SAN_KTIMEOUT:-240}
    : > "$log"; rc=0
    mode=--small
    groups=${TSGEMM_SAN_KERNEL_GROUPS:-0,1,2,3,4,5,6 7 8,9 10}; [ "$groups" = none ] && groups=
    for cfgs in $groups; do
      TSGEMM_KERNEL_CONFIG=$cfgs timeout "$kt" "$cs" --tool $tool "${extra[@]}" --error-exitcode 99 \
        "$B/tests/gpu/test_gpu_kernel" $mode >> "$log" 2>&1 || rc=$((rc ? rc : $?))
      mode=--small-forced
    done
    # the pipeline under caps (bounded mode, many pieces), then CUDA callers' operands
    TSGEMM_DEVICE_MEMORY=2M TSGEMM_PINNED_MEMORY=1M timeout 100 "$cs" --tool $tool "${extra[@]}" \
      --error-exitcode 99 "$B/tests/gpu/test_gpu_pipeline" --small >> "$log" 2>&1 || rc=$((rc ? rc : 98))
    # and in each tensor-core math: the family's launches, tensor maps and split through the
    # library (issue 36; the family alone is the tf32 stage's)
    for math in 3xtf32 tf32; do
      TSGEMM_MATH=$math TSGEMM_LOG=3 timeout 120 "$cs" --tool $tool "${extra[@]}" --error-exitcode 99 \
        "$B/tests/gpu/test_gpu_pipeline" --small > "$log.calls" 2>&1 || rc=$((rc ? rc : 94))
      # the per-call lines stay out of the log; how many ran on the family goes in
      grep -v '^tsgemm: ' "$log.calls" >> "$log"
      echo "TSGEMM_MATH=$math: $(grep -c "kernels=$math" "$log.calls") calls on the tensor-core family" >> "$log"
      rm -f "$log.calls"
    done
    if [ $tool = memcheck ] || [ $tool = initcheck ]; then
      timeout 100 "$cs" --tool $tool "${extra[@]}" --error-exitcode 99 \
        "$B/tests/gpu/test_gpu_residency" --small >> "$log" 2>&1 || rc=$((rc ? rc : 97))
      # the same small pipeline cases uncapped: resident plans, merged launches on the panel
      # layout (2-D uploads into sub-rectangles, launches over all of k; src/tsg_plan.h)
      timeout 120 "$cs" --tool $tool "${extra[@]}" --error-exitcode 99 \
        "$B/tests/gpu/test_gpu_pipeline" --small >> "$log" 2>&1 || rc=$((rc ? rc : 95))
    fi
    if [ $tool = memcheck ]; then # the fuzzer, GPU forced, a smaller count (issue 8)
      TSGEMM_MODE=gpu TSGEMM_TEST_EXPECT=gpu timeout 120 "$cs" --tool memcheck --error-exitcode 99 \
        "$B/tests/fuzz/tsgemm-fuzz" --seed 5 --count ${TSGEMM_SAN_FUZZ_COUNT:-400} --quiet >> "$log" 2>&1 ||
        rc=$((rc ? rc : 96))
    fi
    { echo "==== compute-sanitizer --tool $tool ${extra[*]} (rc=$rc)"; cat "$log"; } >> "$OUT/sanitize.log"
    summary=$(grep -E 'ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY' "$log" | tail -2 | tr -s '= ' ' ' | tr '\n' ' ')
    checks=$(grep -E '^[0-9]+ checks' "$log" | tail -1)
    # 0 errors: "ERROR SUMMARY: 0 errors" (memcheck/initcheck/synccheck) or, for racecheck,
    # "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
    nbad=$(grep -E 'ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [0-9]+ hazards displayed \([1-9]|[0-9]+ checks, [1-9][0-9]* failures' "$log" | wc -l)
    if [ $rc -eq 0 ] && [ "$nbad" -eq 0 ] && grep -qE '^[0-9]+ checks, 0 failures' "$log"; then row "$tool" ok "$summary| $checks"
    else row "$tool" FAIL "rc=$rc $summary| $checks"; fails=$((fails+1)); fi
    rm -f "$log"
  done
  export TSGEMM_CACHE_DIR=$B/cache
fi

if want pipe 120; then
  log=$OUT/pipe.txt
  { echo "== CUDA caller: device operands through cblas_sgemm vs the kernel alone; tiny call cost"
    "$B/tests/gpu/test_gpu_residency" --bench
    echo "== rates (TSGEMM_LOG=2)"; TSGEMM_CACHE_DIR=$B/cache-pipe TSGEMM_LOG=2 "$B/tests/gpu/gpu_probe" --rates 2>&1 | grep -E 'rates|GPU:'
    shapes=${TSGEMM_PIPE_SHAPES:-1024 2048 4096 65536,64,4096 512,512,65536 8192,8192,256}
    for cp in ${TSGEMM_PIPE_COPY:-nt memcpy}; do
      for t in ${TSGEMM_PIPE_THREADS:-8 12 15}; do
        for u in ${TSGEMM_PIPE_UNITS:-0 1M 4M}; do
          for blk in ${TSGEMM_PIPE_BLOCKS:-0}; do
            for ch in ${TSGEMM_PIPE_CHUNKS:-0}; do
              echo "== copy $cp, $t copy threads, unit $u, block area $blk floats, chunk $ch floats"
              TSGEMM_TEST_COPY=$cp TSGEMM_COPY_THREADS=$t TSGEMM_TEST_UNIT=$u TSGEMM_TEST_BLOCK=$blk \
                TSGEMM_TEST_CHUNK=$ch "$B/tests/gpu/pipe_probe" $shapes
            done
          done
        done
      done
    done
    echo "== block-major pieces everywhere (TSGEMM_TEST_ORDER=block, as before v0.4); the rest default"
    TSGEMM_TEST_ORDER=block "$B/tests/gpu/pipe_probe" $shapes
    echo "== timelines (TSGEMM_TEST_TIMELINE=1: GPU and host ms from the start of each call)"
    TSGEMM_TEST_TIMELINE=1 "$B/tests/gpu/pipe_probe" $shapes 2>&1
    echo "== default configuration, each call right after a 1024^3 OpenBLAS call"
    "$B/tests/gpu/pipe_probe" --after-openblas $shapes
    echo "== the same, 4096^3: 300 ms after it; OPENBLAS_THREAD_TIMEOUT=20 (workers sleep sooner)"
    "$B/tests/gpu/pipe_probe" --after-openblas --gap 300 4096
    OPENBLAS_THREAD_TIMEOUT=20 "$B/tests/gpu/pipe_probe" --after-openblas 4096
    echo "== beta = 1 (C goes up too)"
    "$B/tests/gpu/pipe_probe" --beta 1 ${TSGEMM_PIPE_BETA_SHAPES:-2048 4096}; } > "$log" 2>&1
  [ $? -eq 0 ] && row pipe ok "$(grep -c ' ms ' "$log") timings; $(elapsed)" || { row pipe FAIL "see pipe.txt"; fails=$((fails+1)); }
fi

if want multi 200; then
  log=$OUT/multi.txt
  devs=${TSGEMM_MULTI_DEVICES:-all}
  shapes=${TSGEMM_MULTI_SHAPES:-4096 8192 16384 65536,64,4096 8192,8192,256 3000,3000,3000}
  { echo "== slots (TSGEMM_DEVICE=$devs, TSGEMM_LOG=2)"
    TSGEMM_DEVICE=$devs TSGEMM_LOG=2 "$B/tests/gpu/gpu_probe" 2>&1 | grep -E 'GPU|slots|left out'
    echo "== pipe_probe, one GPU"; "$B/tests/gpu/pipe_probe" $shapes
    echo "== pipe_probe, TSGEMM_DEVICE=$devs"; TSGEMM_DEVICE=$devs "$B/tests/gpu/pipe_probe" $shapes
    if [ -x "$B/bench/tsgemm-bench" ]; then
      bshapes=${TSGEMM_MULTI_BENCH_SHAPES:-8192 16384}
      echo "== tsgemm-bench, one GPU"; "$B/bench/tsgemm-bench" --shapes "$bshapes" --reps 5
      echo "== tsgemm-bench, TSGEMM_DEVICE=$devs"
      TSGEMM_DEVICE=$devs "$B/bench/tsgemm-bench" --shapes "$bshapes" --reps 5
    fi; } > "$log" 2>&1
  [ $? -eq 0 ] && row multi ok "see multi.txt; $(elapsed)" || { row multi FAIL "see multi.txt"; fails=$((fails+1)); }
fi

if want fresh 60; then # numpy's case: odd shapes and a new C for every call (issue 9's pip-numpy target)
  log=$OUT/fresh.txt
  shapes=${TSGEMM_FRESH_SHAPES:-4096 4095 4103,4096,4091}
  { echo "== transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>&1) defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>&1)"
    echo "== C reused (poisoned before each call)"; "$B/tests/gpu/pipe_probe" $shapes
    echo "== fresh C (malloc'd before each call, freed after: numpy), first touch by the rule (huge-page advice, 12 parts)"
    "$B/tests/gpu/pipe_probe" --fresh $shapes
    echo "== fresh C, TSGEMM_TEST_TOUCH=small (v0.4's first touch: no huge-page advice)"
    TSGEMM_TEST_TOUCH=small "$B/tests/gpu/pipe_probe" --fresh $shapes
    echo "== fresh C, TSGEMM_TEST_TOUCH=off (the scatters fault the pages in)"
    TSGEMM_TEST_TOUCH=off "$B/tests/gpu/pipe_probe" --fresh $shapes
    echo "== fresh C, TSGEMM_TEST_TOUCH=4 (four copy threads touch, the rest keep gathering)"
    TSGEMM_TEST_TOUCH=4 "$B/tests/gpu/pipe_probe" --fresh $shapes
    echo "== timelines: reused, then fresh C"
    TSGEMM_TEST_TIMELINE=1 "$B/tests/gpu/pipe_probe" $shapes 2>&1
    TSGEMM_TEST_TIMELINE=1 "$B/tests/gpu/pipe_probe" --fresh $shapes 2>&1; } > "$log" 2>&1
  [ $? -eq 0 ] && row fresh ok "$(grep -c ' ms ' "$log") timings; $(elapsed)" || { row fresh FAIL "see fresh.txt"; fails=$((fails+1)); }
fi

if want beta 40; then # issue 9's beta = 1 target: beta applied by the scatters (C stays on the
  # host) against beta = 0, alternating processes, same run
  log=$OUT/beta.txt
  shapes=${TSGEMM_BETA_SHAPES:-2048 4096 4095}
  { for r in 1 2; do
      echo "== round $r: beta = 1 (C stays on the host; the scatters apply beta)"
      "$B/tests/gpu/pipe_probe" --beta 1 $shapes
      echo "== round $r: beta = 0"
      "$B/tests/gpu/pipe_probe" $shapes
    done
    echo "== timeline, beta = 1 (5th call)"
    TSGEMM_TEST_TIMELINE=1 "$B/tests/gpu/pipe_probe" --beta 1 4096 2>&1 | awk '/tsgemm timeline/ { if (++n == 5) print; next } { print }'; } > "$log" 2>&1
  [ $? -eq 0 ] && row beta ok "$(grep -c ' ms ' "$log") timings; $(elapsed)" || { row beta FAIL "see beta.txt"; fails=$((fails+1)); }
fi

if want ab 60; then # knob settings against each other, same run, alternating processes
  log=$OUT/ab.txt
  IFS='|' read -r -a variants <<< "${TSGEMM_AB_VARIANTS:-rule|TSGEMM_TEST_ORDER=block}"
  shapes=${TSGEMM_AB_SHAPES:-1024 2048 4096}
  run_variant() { # setting, then pipe_probe's arguments
    local v=$1; shift
    if [ "$v" = rule ]; then "$B/tests/gpu/pipe_probe" "$@"; else env $v "$B/tests/gpu/pipe_probe" "$@"; fi
  }
  { for r in $(seq 1 "${TSGEMM_AB_ROUNDS:-2}"); do
      for v in "${variants[@]}"; do echo "== round $r: $v"; run_variant "$v" $shapes; done
    done
    if [ -n "${TSGEMM_AB_STEPS:-}" ]; then
      for v in "${variants[@]}"; do
        echo "== every step of the 5th call: $v"
        TSGEMM_TEST_TIMELINE=2 run_variant "$v" $TSGEMM_AB_STEPS 2>&1 |
          awk '/tsgemm timeline/ { keep = (++n % 8 == 5) } /^tsgemm timeline|^  (upload|launches|download)/ { if (keep) print; next } { print }'
      done
    fi; } > "$log" 2>&1
  rc=$?
  # the table: one row per setting and shape, the median of each round
  awk '/^== round/ { sub(/^== round [0-9]+: /, ""); v = $0; next }
       /^== every step/ { sub(/^== every step of the 5th call: /, "(steps) "); v = $0; next }
       / median / { s = $1 "x" $3 "x" $5; if (!(v SUBSEP s in seen)) { seen[v, s] = 1; order[++n] = v SUBSEP s }
                    t[v, s] = t[v, s] sprintf(" %8.3f", $7) }
       END { printf "%-48s %-20s %s\n", "setting", "shape", "median ms per round";
             for (i = 1; i <= n; ++i) { split(order[i], a, SUBSEP); printf "%-48s %-20s%s\n", a[1], a[2], t[a[1], a[2]] } }' \
    "$log" > "$OUT/ab-table.txt"
  [ $rc -eq 0 ] && row ab ok "$(grep -c ' median ' "$log") timings; $(elapsed)" || { row ab FAIL "see ab.txt"; fails=$((fails+1)); }
fi

if want dma 30; then # the copy engines and page registration alone (tests/gpu/dma_probe.c)
  log=$OUT/dma.txt
  "$B/tests/gpu/dma_probe" > "$log" 2>&1
  [ $? -eq 0 ] && row dma ok "$(wc -l < "$log") lines; $(elapsed)" || { row dma FAIL "see dma.txt"; fails=$((fails+1)); }
fi

if want accuracy 60; then # issue 36's accuracy study: error vs K, three input classes, each math
  # TSGEMM_ACCURACY_VARIANTS (e.g. 12,13): 3xTF32's variants on the study's inputs first
  # (test_tf32_kernel --accuracy: accuracy-variants.csv); TSGEMM_ACCURACY_STUDY=0: that alone.
  # With either of TSGEMM_ACCURACY_VARIANTS and TSGEMM_ROUNDING=1, first `test_tf32_kernel
  # --rounding` (seconds): how the tensor core converts a raw operand and how cuBLAS FAST_TF32
  # converts each (rounding.txt)
  if [ -n "${TSGEMM_ACCURACY_VARIANTS:-}" ] || [ "${TSGEMM_ROUNDING:-0}" = 1 ]; then
    if build_targets test_tf32_kernel; then
      timeout 60 "$B/tests/gpu/test_tf32_kernel" --rounding > "$OUT/rounding.txt" 2>&1 &&
        row rounding ok "$(grep -E '^rounding: (cuBLAS FAST|tsgemm tf32 variant [1-9])' "$OUT/rounding.txt" |
          sed -E 's/^rounding: +//; s/ +\(exact.*//; s/cuBLAS FAST_TF32/FAST/; s/tsgemm tf32 variant /v/; s/  +/ /g' | tr '\n' ';') $(elapsed)" ||
        { row rounding FAIL "$(grep -m1 FAIL "$OUT/rounding.txt" || tail -1 "$OUT/rounding.txt")"; fails=$((fails+1)); }
      if [ -n "${TSGEMM_ACCURACY_VARIANTS:-}" ]; then
        timeout "${TSGEMM_ACCURACY_TIMEOUT:-150}" "$B/tests/gpu/test_tf32_kernel" --accuracy --variants "$TSGEMM_ACCURACY_VARIANTS" \
          > "$OUT/accuracy-variants.csv" 2>&1 &&
          row accuracy-variants ok "$(grep -c , "$OUT/accuracy-variants.csv") lines; $(elapsed)" ||
          { row accuracy-variants FAIL "$(tail -1 "$OUT/accuracy-variants.csv")"; fails=$((fails+1)); }
      fi
    else
      row test_tf32_kernel FAIL "build: see build.log"; fails=$((fails+1))
    fi
  fi
  if [ "${TSGEMM_ACCURACY_STUDY:-1}" != 0 ]; then
    if build_targets tsgemm-accuracy; then
      timeout "${TSGEMM_ACCURACY_TIMEOUT:-150}" "$B/bench/tsgemm-accuracy" > "$OUT/accuracy.csv" 2> "$OUT/accuracy.err" &&
        row accuracy ok "$(grep -c , "$OUT/accuracy.csv") lines in accuracy.csv; $(elapsed)" ||
        { row accuracy FAIL "$(tail -1 "$OUT/accuracy.err")"; fails=$((fails+1)); }
    else
      row accuracy FAIL "build: see build.log"; fails=$((fails+1))
    fi
  fi
fi

if want power 90; then # issue 36: clock and power per kernel under long runs (nvidia-smi beside)
  if build_targets test_tf32_kernel; then
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
      --format=csv,noheader -lms 100 > "$OUT/power-smi.csv" 2>&1 &
    smi=$!
    timeout 240 "$B/tests/gpu/test_tf32_kernel" --sustain "${TSGEMM_SUSTAIN_S:-3}" \
      ${TSGEMM_SUSTAIN_VARIANTS:+--variants "$TSGEMM_SUSTAIN_VARIANTS"} > "$OUT/power.txt" 2>&1
    rc=$?
    kill "$smi" 2> /dev/null; wait "$smi" 2> /dev/null
    python3 scripts/smi-phases.py "$OUT/power.txt" "$OUT/power-smi.csv" > "$OUT/power-phases.txt" 2>&1
    [ $rc -eq 0 ] && row power ok "$(grep -c '\^3' "$OUT/power-phases.txt") phases; $(elapsed)" ||
      { row power FAIL "see power.txt"; fails=$((fails+1)); }
  else
    row power FAIL "build: see build.log"; fails=$((fails+1))
  fi
fi

# after accuracy and power: the checks and the timing of every variant take longest
if want tf32 120; then # the tensor-core family (kernels/tf32/, issue 36): test, timing, sanitizers
  log=$OUT/tf32.txt
  # shellcheck disable=SC2046
  if build_targets test_tf32_kernel $([ "${TSGEMM_TF32_PROBE:-1}" != 0 ] && echo tf32_probe); then
    # where the time goes, stages left out (bench/tf32_probe.cu): first, it takes ~20 s
    if [ "${TSGEMM_TF32_PROBE:-1}" != 0 ]; then
      timeout 120 "$B/bench/tf32_probe" > "$OUT/tf32_probe.txt" 2>&1
      row tf32-probe "rc=$?" "$(grep -c TFLOP "$OUT/tf32_probe.txt") timings (tf32_probe.txt); $(elapsed)"
    fi
    # TSGEMM_TF32_ARGS (e.g. "--variants 12,13"): the default and these variants only, in every run below
    # shellcheck disable=SC2086
    timeout "${TSGEMM_TF32_TIMEOUT:-300}" "$B/tests/gpu/test_tf32_kernel" ${TSGEMM_TF32_ARGS:-} > "$log" 2>&1; rc=$?
    grep -E 'FAIL' "$log" | head -5
    [ $rc -eq 0 ] && row tf32 ok "$(grep -E '^[0-9]+ checks' "$log"); $(elapsed)" ||
      { row tf32 FAIL "rc=$rc $(grep -E '^[0-9]+ checks' "$log")"; fails=$((fails+1))
        # the timing still tells where the family stands when a check failed
        # shellcheck disable=SC2086
        [ $rc -eq 1 ] && timeout "${TSGEMM_TF32_BENCH_TIMEOUT:-120}" "$B/tests/gpu/test_tf32_kernel" --bench ${TSGEMM_TF32_ARGS:-} >> "$log" 2>&1; }
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in ${TSGEMM_TF32_SAN_TOOLS:-memcheck racecheck initcheck synccheck}; do
      { echo "==== compute-sanitizer --tool $tool test_tf32_kernel --small"
        # shellcheck disable=SC2086
        timeout "${TSGEMM_TF32_SAN_TIMEOUT:-150}" "$cs" --tool $tool --error-exitcode 99 "$B/tests/gpu/test_tf32_kernel" --small ${TSGEMM_TF32_SAN_ARGS-${TSGEMM_TF32_ARGS:-}} 2>&1; echo "rc=$?"; } \
        > "$OUT/.tf32san" 2>&1
      cat "$OUT/.tf32san" >> "$OUT/tf32_sanitize.log"
      srow=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^[0-9]+ checks|^rc=' "$OUT/.tf32san" | tr '\n' ' ')
      if grep -q '^rc=0' "$OUT/.tf32san"; then row "tf32-$tool" ok "$srow"
      else row "tf32-$tool" FAIL "$srow"; fails=$((fails+1)); fi
      rm -f "$OUT/.tf32san"
    done
  else
    row tf32 FAIL "build: see build.log"; tail -30 "$OUT/build.log"; fails=$((fails+1))
  fi
fi

if want kbench; then
  "$B/bench/tsgemm-kbench" 20 > "$OUT/kbench.txt" 2>&1 && row kbench ok "$(elapsed)" ||
    { row kbench FAIL "see kbench.txt"; fails=$((fails+1)); }
fi

if want bench && [ -x "$B/bench/tsgemm-bench" ]; then
  # TSGEMM_LOG=2: each bench process's own measured rates (the CPU side is measured per process)
  # land in its .txt, so an auto-mode choice near the crossover can be traced (docs/NOTES.md v0.13)
  blog=${TSGEMM_LOG:-2}
  TSGEMM_LOG=$blog "$B/bench/tsgemm-bench" ${TSGEMM_BENCH_ARGS:---quick} --csv "$OUT/bench.csv" \
    > "$OUT/bench.txt" 2>&1 && row bench ok "$(elapsed)" ||
    { row bench FAIL "see bench.txt"; fails=$((fails+1)); }
  # more invocations in the same stage (e.g. issue 9's beta = 1 target, NVBLAS at one shape):
  # TSGEMM_BENCH_MORE, option lists separated by '|'; outputs bench-more-N.{txt,csv}
  if [ -n "${TSGEMM_BENCH_MORE:-}" ]; then
    IFS='|' read -r -a more <<< "$TSGEMM_BENCH_MORE"
    for i in "${!more[@]}"; do
      # shellcheck disable=SC2086
      TSGEMM_LOG=$blog "$B/bench/tsgemm-bench" ${more[$i]} --csv "$OUT/bench-more-$i.csv" \
        > "$OUT/bench-more-$i.txt" 2>&1 && row "bench+$i" ok "${more[$i]}; $(elapsed)" ||
        { row "bench+$i" FAIL "see bench-more-$i.txt"; fails=$((fails+1)); }
    done
  fi
fi

if want replay 120 && [ -x "$B/bench/tsgemm-bench" ]; then
  rfail=0
  # the rates cache as a program finds it on a machine where tsgemm ran before: GPU rates cached
  # once, CPU rates after three processes (shim/tsg_measure.c); the first process's cost is in
  # the rates stage's line (measured, not hidden: docs/NOTES.md "2026-12-05 real programs").
  # A folder of its own, measured here by three quiet processes: $B/cache holds CPU rates that
  # the gpu tier's tests measured eight at a time (runs 21-22: 0.74 ms at 256^3 where OpenBLAS
  # takes 0.12), and auto mode's choices of small calls rest on them
  export TSGEMM_CACHE_DIR=$B/cache-replay
  rm -rf "$TSGEMM_CACHE_DIR"
  quiet_rates replay
  # the programs' own BLAS (issue 37): the wheels' libraries behind scipy_cblas_sgemm64_ (numpy)
  # and scipy_sgemm_ / scipy_cblas_sgemm (scipy), so that the replays of mlp-numpy, sklearn-pca
  # and sklearn-kmeans decide those calls as the programs do (own_pool 1); without them each
  # replay says which calls ran without their program's library
  if [ ! -d /tmp/site ] && ls .whl/scipy-*.whl > /dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl > "$OUT/replay-own-blas.txt" 2>&1 || rm -rf /tmp/site
  fi
  own=()
  while IFS= read -r lib; do [ -f "$lib" ] && own+=(--own-blas "$lib"); done < <(
    PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH} python3 - <<'PY' 2>/dev/null
import glob, importlib.util, os
for mod, pat in (("numpy", "libscipy_openblas64_*.so"), ("scipy", "libscipy_openblas-*.so")):
    spec = importlib.util.find_spec(mod)
    if spec and spec.origin:
        libs = sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(spec.origin)), mod + ".libs", pat)))
        if libs:
            print(libs[0])
PY
  )
  echo "own BLAS for the replays: ${own[*]:-none found (numpy/scipy wheels)}" >> "$OUT/replay-own-blas.txt"
  rtab=$(printf '%-34s %12s %12s %12s %s' trace openblas_ms tsgemm_ms gpu_ms "auto on GPU")
  # the programs' own libraries' CPU rates into the stage's cache first, as quiet_rates did for
  # tsgemm's OpenBLAS: a program measures them in its first call through that library until the
  # cache holds three processes' measurements (shim/tsg_measure.c TSG_CPU_SAMPLES), and reads
  # the cache after (run 71: the auto pass's first call 72-103 ms in mlp-numpy and sklearn-pca,
  # sklearn-pca's one-round auto pass 1.52x OpenBLAS's; run 75 warmed once per trace, and the
  # timed mlp-numpy's first call, the third process, still measured: 73.9 ms); three untimed
  # replays of each trace that calls the wheels' names (replay-NAME-warm.txt: the last)
  for tr in "$ROOT"/bench/traces/*.trace; do
    if grep -q '^scipy_' "$tr" && [ ${#own[@]} -gt 0 ]; then
      for i in 1 2 3; do
        TSGEMM_LOG=2 "$B/bench/tsgemm-bench" --replay "$tr" "${own[@]}" > "$OUT/replay-$(basename "$tr" .trace)-warm.txt" 2>&1
      done
    fi
  done
  for tr in "$ROOT"/bench/traces/*.trace; do
    name=$(basename "$tr" .trace)
    # the figures at the default log level: TSGEMM_LOG >= 2 closes the tiny-call path (every
    # call reports), which costs the small-call traces what they measure (docs/NOTES.md
    # "2026-12-06 the first GPU call", run 6); TSGEMM_REPLAY_LOG=2 replays each trace once
    # more at level 2 into replay-NAME-log.txt (the start's steps, workspace growth, operand
    # checks), not timed for the table
    # TSGEMM_REPLAY_ROUNDS=N: each trace's passes N times, rotated, medians reported (the
    # passes' own spread is up to 1.8x on these hosts: runs 21-24); 3 triples the stage's time
    TSGEMM_LOG=1 "$B/bench/tsgemm-bench" --replay "$tr" --replay-rounds "${TSGEMM_REPLAY_ROUNDS:-1}" \
      --replay-csv "$OUT/replay-$name.csv" --replay-calls "$OUT/replay-$name-calls.csv" ${own[@]+"${own[@]}"} \
      > "$OUT/replay-$name.txt" 2>&1 || rfail=$((rfail+1))
    [ "${TSGEMM_REPLAY_LOG:-1}" -ge 2 ] &&
      TSGEMM_LOG=2 "$B/bench/tsgemm-bench" --replay "$tr" ${own[@]+"${own[@]}"} > "$OUT/replay-$name-log.txt" 2>&1
    replay_totals "$OUT/replay-$name.txt"
    ongpu=$(sed -n 's/^  total  *[0-9]* .* \([0-9]*\/[0-9]*\)$/\1/p' "$OUT/replay-$name.txt")
    rtab+=$'\n'$(printf '%-34s %12s %12s %12s %s' "$name" "${ob:-?}" "${ts:-?}" "${gms:-skipped}" "${ongpu:-?}")
  done
  # issue 37's sweep: the default one (its repeats: 5, 2 for a column that spent 8 s), then the
  # shapes whose calls take microseconds with TSGEMM_SWEEP_REPS repeats (default 25), where three
  # or five samples of a 6 us call are mostly the OpenBLAS workers' state (run 31's --quick sweep)
  TSGEMM_LOG=1 "$B/bench/tsgemm-bench" --settle 0 --rewarm 0 --no-nvblas \
    --csv "$OUT/replay-bench.csv" > "$OUT/replay-bench.txt" 2>&1 || rfail=$((rfail+1))
  # (288^3-384^3: where the crossover's margin decides, docs/NOTES.md "2026-12-07 twenty-fourth")
  TSGEMM_LOG=1 "$B/bench/tsgemm-bench" --settle 0 --rewarm 0 --no-nvblas \
    --shapes "${TSGEMM_SWEEP_SHAPES:-64 128 256 288 320 352 384 512 768 1024}" \
    --reps "${TSGEMM_SWEEP_REPS:-25}" --csv "$OUT/replay-bench-small.csv" > "$OUT/replay-bench-small.txt" 2>&1 ||
    rfail=$((rfail+1))
  # issue 37's "GPU calls right after an OpenBLAS call <= 1.10x their isolated time": pipe_probe
  # (GPU forced) alone, then with a 1024^3 OpenBLAS call right before each timed call, the same
  # with OpenBLAS's workers told to sleep early (its own knob), and the step timeline of the
  # second case (which steps OpenBLAS's spinning workers delay)
  ash=${TSGEMM_AFTER_SHAPES:-1024 2048 4096 65536,64,4096}
  # shellcheck disable=SC2086
  { echo "== isolated"; "$B/tests/gpu/pipe_probe" $ash
    echo "== after a 1024^3 OpenBLAS call"; "$B/tests/gpu/pipe_probe" --after-openblas $ash
    echo "== after, OPENBLAS_THREAD_TIMEOUT=20"; OPENBLAS_THREAD_TIMEOUT=20 "$B/tests/gpu/pipe_probe" --after-openblas $ash
    echo "== timeline, after (4096^3)"; TSGEMM_TEST_TIMELINE=1 "$B/tests/gpu/pipe_probe" --after-openblas 4096 2>&1
  } > "$OUT/after-openblas.txt" 2>&1 || rfail=$((rfail+1))
  echo "$rtab" > "$OUT/replay-table.txt"
  # the rates the replays' auto passes decided with, for bench/model_check.c (tsgemm-model-check
  # rates-gpu.txt rates-cpu.txt replay-NAME.csv: the model's side and error per class)
  for f in "$TSGEMM_CACHE_DIR"/gpu-rates-v17-*.txt; do
    case "$f" in *-3xtf32.txt | *-tf32.txt) ;; *) [ -f "$f" ] && cp "$f" "$OUT/rates-gpu.txt" ;; esac
  done
  cp "$TSGEMM_CACHE_DIR"/cpu-rates-v3-*.txt "$OUT/rates-cpu.txt" 2>/dev/null
  if [ $rfail -eq 0 ]; then row replay ok "$(elapsed); table in replay-table.txt"
  else row replay FAIL "$rfail runs failed (replay-*.txt)"; fails=$((fails+1)); fi
  export TSGEMM_CACHE_DIR=$B/cache
fi

if want cpucalls 90 && [ -x "$B/bench/tsgemm-bench" ]; then
  # issue 37's calls that stay on the CPU yet run slower through tsgemm than through OpenBLAS
  # alone (the same library and thread pool; runs 17, 24 and this session's first: scalapack's
  # 512 x 32 x 512 NT 1.5-4.5x): each trace of TSGEMM_CPUCALL_TRACES (default scalapack-psgemm
  # octave-single mlp-numpy), its gaps cut to 300 ms (past OpenBLAS's thread timeout, so the workers'
  # state is the program's), replayed in 3 rounds as is, with no GPU visible
  # (CUDA_VISIBLE_DEVICES=: tsgemm never starts one), with OPENBLAS_THREAD_TIMEOUT=20, and once
  # at TSGEMM_LOG=3 (each call's own time in tsgemm: cpucalls-NAME-log.txt). Table: cpucalls.txt;
  # every call's time per pass and round in cpucalls-NAME-VARIANT-calls.csv (lapack-sgetrf-4096's
  # calls of k = 1-4 ran 0.2-0.4 us slower in the auto pass than in OpenBLAS's with a GPU there,
  # H100 run 75, and not without one: TSGEMM_CPUCALL_TRACES=lapack-sgetrf-4096 compares the two)
  export TSGEMM_CACHE_DIR=$B/cache-replay
  [ -d "$TSGEMM_CACHE_DIR" ] || quiet_rates cpucalls
  ctab=$(printf '%-26s %-10s %12s %12s %12s' trace variant openblas_ms tsgemm_ms gpu_ms)
  cfail=0
  # TSGEMM_CPUCALL_VARIANTS: which settings, of default nogpu timeout20 (the default list) and
  # copy2 (TSGEMM_COPY_THREADS=2), pin0 (TSGEMM_PIN_AT_START=0), blas8 (OPENBLAS_NUM_THREADS=8),
  # thresh (TSGEMM_GPU_THRESHOLD=100000: no cost model); TSGEMM_CPUCALL_ROUNDS: rounds per run
  # (1-9, default 3; OpenBLAS's own pass spread 14-19 ms between rounds in run 87, so a per-class
  # 1.10x needs more than three to be told apart):
  # which of tsgemm's threads, or how many of OpenBLAS's, the auto pass's slower CPU calls need
  cvariants=${TSGEMM_CPUCALL_VARIANTS:-default nogpu timeout20}
  for name in ${TSGEMM_CPUCALL_TRACES:-scalapack-psgemm octave-single mlp-numpy}; do
    tr=$B/cpucalls-$name.trace
    awk '/^#/ {print; next} {if ($15 > 300000000) $15 = 300000000; print}' \
      "$ROOT/bench/traces/$name.trace" > "$tr" || { cfail=$((cfail+1)); continue; }
    for v in $cvariants; do
      case $v in
        default) env=() ;;
        nogpu) env=(CUDA_VISIBLE_DEVICES=) ;;
        timeout20) env=(OPENBLAS_THREAD_TIMEOUT=20) ;;
        copy2) env=(TSGEMM_COPY_THREADS=2) ;;
        pin0) env=(TSGEMM_PIN_AT_START=0) ;;
        blas8) env=(OPENBLAS_NUM_THREADS=8) ;;
        # the auto pass without the cost model's questions (be_gpu_ready, the model, C's
        # freshness): every call of the traces is under 100000^3, so the threshold rule keeps
        # each on the CPU before the GPU side is asked anything; the forced pass still starts it
        thresh) env=(TSGEMM_GPU_THRESHOLD=100000) ;;
        *) echo "cpucalls: unknown variant $v" >&2; cfail=$((cfail+1)); continue ;;
      esac
      env "${env[@]}" TSGEMM_LOG=1 "$B/bench/tsgemm-bench" --replay "$tr" --replay-rounds "${TSGEMM_CPUCALL_ROUNDS:-3}" \
        --replay-csv "$OUT/cpucalls-$name-$v.csv" --replay-calls "$OUT/cpucalls-$name-$v-calls.csv" \
        --replay-threads > "$OUT/cpucalls-$name-$v.txt" 2>&1 || cfail=$((cfail+1))
      # each pass's CPU time by thread group (which thread runs beside OpenBLAS's workers)
      { echo "== $name $v"; grep -E 'ms in calls, |CPU ms by thread' "$OUT/cpucalls-$name-$v.txt"; } >> "$OUT/cpucalls-threads.txt"
      replay_totals "$OUT/cpucalls-$name-$v.txt"
      ctab+=$'\n'$(printf '%-26s %-10s %12s %12s %12s' "$name" "$v" "${ob:-?}" "${ts:-?}" "${gms:-skipped}")
    done
    TSGEMM_LOG=3 "$B/bench/tsgemm-bench" --replay "$tr" > "$OUT/cpucalls-$name-log.txt" 2>&1 || cfail=$((cfail+1))
    # the calls both passes ran on the CPU, per k and per whether the call before ran on the GPU:
    # the auto pass's extra in us per call (medians over rounds; cpucalls-NAME-by-k.txt)
    for v in $cvariants; do
      echo "== $v"
      python3 - "$OUT/cpucalls-$name-$v-calls.csv" <<'PY'
import collections, csv, statistics, sys
t = collections.defaultdict(lambda: collections.defaultdict(list))
for r in csv.DictReader(open(sys.argv[1])):
    d = t[int(r["call"])]
    d[r["pass"]].append(float(r["ms"]))
    d["k"] = int(r["k"])
    if r["pass"] == "tsgemm":
        d["gpu"].append(int(r["on_gpu"]))
        d["prev"].append(int(r["prev_on_gpu"]))
g = collections.defaultdict(lambda: [0, 0.0, 0.0])
for d in t.values():
    if not d["openblas"] or not d["tsgemm"] or any(d["gpu"]):
        continue
    key = (d["k"], "after a GPU call" if max(d["prev"]) else "after a CPU call")
    e = g[key]
    e[0] += 1
    e[1] += statistics.median(d["openblas"])
    e[2] += statistics.median(d["tsgemm"])
print("%-6s %-17s %6s %12s %12s %9s" % ("k", "previous call", "calls", "openblas ms", "auto ms", "us/call"))
for (k, prev), (n, ob, ts) in sorted(g.items()):
    print("%-6d %-17s %6d %12.3f %12.3f %9.3f" % (k, prev, n, ob, ts, (ts - ob) / n * 1e3))
PY
    done > "$OUT/cpucalls-$name-by-k.txt" 2>&1
  done
  echo "$ctab" > "$OUT/cpucalls.txt"
  if [ $cfail -eq 0 ]; then row cpucalls ok "$(elapsed); table in cpucalls.txt"
  else row cpucalls FAIL "$cfail runs failed (cpucalls-*.txt)"; fails=$((fails+1)); fi
  export TSGEMM_CACHE_DIR=$B/cache
fi

if want tiny 30 && [ -x "$B/bench/tsgemm-tinybench" ]; then
  # issue 37's tiny calls on a GPU machine (not a default stage): tsgemm-tinybench against the
  # same OpenBLAS without a GPU visible, with one but not started, and after a GPU call
  # (--start-gpu: the tiny path then asks libcuda whether the thread has a CUDA context; the
  # bench times cuCtxGetCurrent alone too); one process each, tiny.txt
  ob=$(ls "$ROOT"/.devkit/lib/libopenblas.so.0 2>/dev/null || echo libopenblas.so.0)
  tfail=0; : > "$OUT/tiny.txt"
  for v in nogpu idle started; do
    case $v in
      nogpu) env=(CUDA_VISIBLE_DEVICES=); extra=() ;;
      idle) env=(); extra=() ;;
      started) env=(); extra=(--start-gpu) ;;
    esac
    { echo "== $v"; env "${env[@]}" "$B/bench/tsgemm-tinybench" --f77 --rounds 41 --openblas "$ob" \
        --lib "$B/libtsgemm.so" --label tsgemm --csv "$OUT/tiny-$v.csv" "${extra[@]}"; } >> "$OUT/tiny.txt" 2>&1 ||
      tfail=$((tfail+1))
  done
  over=$(for v in nogpu idle started; do
    awk -F, -v v=$v '$3 == "tsgemm" && $1 == "cblas_sgemm" { o = o sprintf(" %s", $9) } END { printf "%s:%s;", v, o }' "$OUT/tiny-$v.csv" 2>/dev/null
  done)
  if [ $tfail -eq 0 ]; then row tiny ok "cblas +ns n=2,3,4,8,16 $over $(grep -h cuCtxGetCurrent "$OUT/tiny.txt" | head -1 | sed 's/^ *//')"
  else row tiny FAIL "$tfail runs failed (tiny.txt)"; fails=$((fails+1)); fi
fi

if want clients; then # unmodified programs: pip numpy, and a C program linked to OpenBLAS
  log=$OUT/clients.log
  : > "$log"
  np=$ROOT/tests/preload/numpy_check.py
  if python3 -c 'import numpy' 2>/dev/null; then
    { echo "== numpy without tsgemm"; python3 "$np" --sizes 4096 --tall --time --expect none
      echo "== numpy with LD_PRELOAD=libtsgemm.so TSGEMM_LOG=2"
      LD_PRELOAD=$B/libtsgemm.so TSGEMM_LOG=2 python3 "$np" --sizes 4096 --tall --time --expect gpu; } >> "$log" 2>&1
    if [ $? -eq 0 ]; then row numpy ok "$(grep -cE 'gpu=[1-9]' "$log") products on the GPU; $(elapsed)"
    else row numpy FAIL "see clients.log"; fails=$((fails+1)); fi
  else
    row numpy skip "no numpy in python3"
  fi
  cc=$B/c_matmul
  if gcc -O2 -o "$cc" tests/preload/c_matmul.c -I"$TSGEMM_DEVKIT/include" -L"$TSGEMM_DEVKIT/lib" \
       -lopenblas -ldl -lm >> "$log" 2>&1; then
    { echo "== C program linked to OpenBLAS, without tsgemm"; "$cc" --expect none 4096
      echo "== the same under LD_PRELOAD=libtsgemm.so TSGEMM_LOG=2"
      LD_PRELOAD=$B/libtsgemm.so TSGEMM_LOG=2 "$cc" --expect gpu 4096; } >> "$log" 2>&1
    if [ $? -eq 0 ]; then row c-client ok "$(grep -c 'ran on gpu' "$log") products on the GPU; $(elapsed)"
    else row c-client FAIL "see clients.log"; fails=$((fails+1)); fi
  else
    row c-client FAIL "did not compile (clients.log)"; fails=$((fails+1))
  fi
  python3 tests/preload/torch_caller.py "$B/libtsgemm.so" --time 4096 > "$OUT/torch.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then row torch ok "$(grep -c '^ok ' "$OUT/torch.log") cases; $(grep '^time' "$OUT/torch.log" | sed 's/.*: median //' | tr '\n' ' ')"
  elif [ $rc -eq 77 ]; then row torch skip "$(tail -1 "$OUT/torch.log")"
  else row torch FAIL "see torch.log"; fails=$((fails+1)); fi
fi

if want scipy 90; then # scipy wheels carried in .whl/: the scipy case on the GPU (issue 13)
  log=$OUT/scipy.log
  : > "$log"
  # the wheels carried in .whl/ installed into /tmp/site; without them, the machine's own python3
  # when it has scipy and scikit-learn (the device machines' /opt/torch venv: pip wheels, each with
  # its own OpenBLAS), with /tmp/site left empty
  have_scipy=0
  if ls .whl/scipy-*.whl > /dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/site .whl/*.whl >> "$log" 2>&1 && have_scipy=1
  elif python3 -c 'import scipy, sklearn; print("python3 has scipy", scipy.__version__, "at", scipy.__file__, "and scikit-learn", sklearn.__version__)' >> "$log" 2>&1; then
    mkdir -p /tmp/site && have_scipy=1
  fi
  if [ $have_scipy = 1 ]; then
    sc=$ROOT/tests/preload/scipy_check.py
    { echo "== scipy without tsgemm"
      PYTHONPATH=/tmp/site python3 "$sc" --parts large --expect none
      echo "== scipy with LD_PRELOAD=libtsgemm.so (auto mode)"
      PYTHONPATH=/tmp/site LD_PRELOAD=$B/libtsgemm.so python3 "$sc" --parts large,blas,cblas --expect any
      echo "== the 4096^3 calls on the GPU"
      PYTHONPATH=/tmp/site LD_PRELOAD=$B/libtsgemm.so python3 "$sc" --parts large --expect gpu
      echo "== scikit-learn KMeans with TSGEMM_MODE=gpu, traced"
      PYTHONPATH=/tmp/site LD_PRELOAD=$B/libtsgemm.so TSGEMM_MODE=gpu TSGEMM_LOG=3 python3 "$sc" \
        --parts kmeans --expect gpu 2> "$OUT/scipy-trace.log"; } >> "$log" 2>&1
    if [ $? -eq 0 ]; then row scipy ok "$(grep -o 'median [0-9.]* ms' "$log" | tr '\n' ' ')"
    else row scipy FAIL "see scipy.log"; fails=$((fails+1)); fi
  else
    row scipy skip "no scipy wheel in .whl/ nor scipy and sklearn in python3 (or they did not install: scipy.log)"
  fi
fi

{ echo; echo "== tsgemm device run $(date -u +%FT%TZ) on $machine"
  [ -f "$OUT/kbench.txt" ] && sed -n '/kernel benchmark/,$p' "$OUT/kbench.txt"
  [ -f "$OUT/tf32.txt" ] && sed -n '/tf32 benchmark/,$p' "$OUT/tf32.txt"
  [ -f "$OUT/tf32_probe.txt" ] && cat "$OUT/tf32_probe.txt"
  [ -f "$OUT/power-phases.txt" ] && cat "$OUT/power-phases.txt"
  [ -f "$OUT/rates.txt" ] && grep -E 'rates \(math [a-z0-9]+\):|rates measured|auto mode' "$OUT/rates.txt"
  [ -f "$OUT/pipe.txt" ] && cat "$OUT/pipe.txt"
  [ -f "$OUT/ab-table.txt" ] && cat "$OUT/ab-table.txt"
  [ -f "$OUT/replay-table.txt" ] && cat "$OUT/replay-table.txt"
  [ -f "$OUT/replay-bench.txt" ] && tail -25 "$OUT/replay-bench.txt"
  [ -f "$OUT/replay-bench-small.txt" ] && tail -8 "$OUT/replay-bench-small.txt"
  [ -f "$OUT/cpucalls.txt" ] && cat "$OUT/cpucalls.txt"
  [ -f "$OUT/bench.txt" ] && tail -25 "$OUT/bench.txt"
  [ -f "$OUT/clients.log" ] && grep -E '^==|^ok |ran on|summary' "$OUT/clients.log"
  [ -f "$OUT/torch.log" ] && grep -E '^time|failures' "$OUT/torch.log"
  [ -f "$OUT/scipy.log" ] && grep -E '^==|timed|KMeans|failures' "$OUT/scipy.log"
  echo; printf '%s\n' "${rows[@]}"; echo "failures: $fails, total $(elapsed)"; } | tee "$OUT/summary.txt"
# Every output in one archive too: the device tool brings back only so many files from $OUT (v0.10
# runs lost clients.log and rates.txt that way; it returned the first files by name, all.tar.gz
# among them).
arch=$(mktemp /tmp/tsgemm-out.XXXXXX) &&
  tar -czf "$arch" -C "$OUT" --exclude=./all.tar.gz . && mv "$arch" "$OUT/all.tar.gz"
exit $((fails > 0))
