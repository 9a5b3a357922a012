#!/usr/bin/env bash
# scripts/ncu-run.sh — Nsight Compute on a few kernel launches in one device call: builds
# tsgemm-kbench (sm_90, the devkit; TARGET another program), then for each kernel-name pattern
# runs `tsgemm-kbench --big` (RUN) under ncu, profiling the first launch whose demangled name matches
# (--clock-control none: the device tool's METHOD.md leaves clocks alone), and prints each
# profile's key lines (duration, SM / L1 / L2 / DRAM throughput, issue slots with an eligible warp,
# cycles per issued instruction, instructions executed, the stall reasons of STALLS); the full
# reports keep the rest.
#   KERNELS    patterns, one per line (ncu regexes over demangled names, which read like
#              "big_kernel<tsg::big::BigConfig<(int)256, ...>, (bool)1, (bool)0, (int)1, (int)1>":
#              write "." for the parentheses; default: configuration 7's (the 256 x 128 tile's)
#              NT and TN instances)
#   SHAPES     TSGEMM_BENCH_SHAPES, a substring of the bench's shape names (default "4096^3": the
#              four transpose pairs at 4096^3); CONFIGS the bench's configurations (default 7)
#   SECTIONS   ncu sections (default: SpeedOfLight WarpStateStats SchedulerStats InstructionStats)
#   STALLS     the stall reasons to collect as smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio
#              (warps stalled on that reason per issued instruction): a list of reasons (barrier
#              long_scoreboard mio_throttle ...), "" for none, default "all" (a regex over every
#              reason this ncu version names)
#   TARGET     the CMake target to build (default tsgemm-kbench); RUN the command under ncu, relative
#              to the build folder (default "bench/tsgemm-kbench --big 3 $CONFIGS"). The
#              tensor-core family's 3xTF32 NN default in its probe, for instance:
#              TARGET=tf32_probe RUN="bench/tf32_probe 4096"
#              KERNELS='tf32_kernel<.int.1, .bool.0, .bool.0, .int.2, .int.1, .int.0, .int.3>'
#   SOURCE=1   also the per-instruction warp-state samples (SourceCounters), exported as the
#              source page's CSV (NCU_REPDIR/ncu-N-source.csv) and summarised by
#              scripts/ncu-source-stalls.py ($OUT/ncu-N-stalls.txt, printed last)
#   NCU_LAUNCHES  how many launches that match each pattern to profile (default 1; e.g. "." with
#              12: every kernel of a short program, cuBLAS's among them, each named in the report)
#   NCU_BUILD_DIR  a build folder that holds RUN's program already (device-run.sh's build-dev):
#              no configure, no build. NCU_REPDIR: where the binary reports go (default $OUT)
#   DEVKIT, BUDGET (seconds, default 300)
# Full reports go to $OUT/ncu-N.txt; a short table is printed last.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
BUDGET=${BUDGET:-300}
t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
[ -f .devkit/env.sh ] || tar -xJf "${DEVKIT:-.devkit.tar.xz}"
# shellcheck disable=SC1091
source .devkit/env.sh
if [ -n "${NCU_BUILD_DIR:-}" ]; then # a build made already (device-run.sh's build-dev): no second build
  B=$NCU_BUILD_DIR
  prog=${RUN:-bench/tsgemm-kbench}
  [ -x "$B/${prog%% *}" ] || { echo "$B/${prog%% *}: not built"; exit 1; }
else
  B=build-ncu
  { cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DTSGEMM_NETLIB_DIR="$TSGEMM_DEVKIT/blas" -DTSGEMM_TEST_TIERS="unit;gpu" &&
    cmake --build $B -j"$(nproc)" --target "${TARGET:-tsgemm-kbench}"; } > "$OUT/build.log" 2>&1
  echo "build rc=$? $(el)s"
fi
REP=${NCU_REPDIR:-$OUT} # the binary reports (large; the device tool brings back a few files only)
mkdir -p "$REP"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort -V | tail -1)
[ -n "$ncu" ] || { echo "ncu not found"; exit 1; }
KERNELS=${KERNELS:-'BigConfig<.int.256, .int.128, .*>, .bool.0, .bool.1,
BigConfig<.int.256, .int.128, .*>, .bool.1, .bool.0,'}
secs=()
for s in ${SECTIONS:-SpeedOfLight WarpStateStats SchedulerStats InstructionStats}; do
  secs+=(--section "$s")
done
mets=
if [ "${STALLS-all}" = all ]; then # every reason this ncu knows, by regex (names vary by version)
  mets='regex:^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$'
else
  for r in ${STALLS}; do
    mets=${mets:+$mets,}smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
  done
fi
[ -n "$mets" ] && secs+=(--metrics "$mets")
[ "${SOURCE:-0}" = 1 ] && secs+=(--section SourceCounters)
# RUN: words split at blanks, no quoting; the program's path relative to the build folder
read -r -a run <<< "${RUN:-bench/tsgemm-kbench --big 3 ${CONFIGS:-7}}"
[ "${#run[@]}" -gt 0 ] || { echo "RUN names no program"; exit 1; }
i=0
while IFS= read -r pat; do
  [ -n "$pat" ] || continue
  i=$((i + 1))
  [ $(( BUDGET - $(el) )) -gt 40 ] || { echo "pattern $i: no time left"; break; }
  rm -f "$REP/ncu-$i.ncu-rep" "$REP/ncu-$i-source.csv" "$OUT/ncu-$i-stalls.txt" # an earlier run's
  { echo "== pattern $i: $pat"
    rep=()
    [ "${SOURCE:-0}" = 1 ] && rep=(-o "$REP/ncu-$i" -f)
    TSGEMM_BENCH_SHAPES="${SHAPES:-4096^3}" timeout $(( BUDGET - $(el) - 10 )) "$ncu" --clock-control none \
      --kernel-name-base demangled --kernel-name "regex:$pat" --launch-count "${NCU_LAUNCHES:-1}" "${secs[@]}" "${rep[@]}" \
      "$B/${run[0]}" "${run[@]:1}" < /dev/null
    echo "rc=$?"; } > "$OUT/ncu-$i.txt" 2>&1
  if [ "${SOURCE:-0}" = 1 ] && [ -f "$REP/ncu-$i.ncu-rep" ]; then
    # -o wrote a report instead of the sections: print them from it, then its source page
    "$ncu" -i "$REP/ncu-$i.ncu-rep" >> "$OUT/ncu-$i.txt" 2>&1
    "$ncu" -i "$REP/ncu-$i.ncu-rep" --page source --csv --print-source sass > "$REP/ncu-$i-source.csv" \
      2>> "$OUT/ncu-$i.txt"
    python3 scripts/ncu-source-stalls.py "$REP/ncu-$i-source.csv" > "$OUT/ncu-$i-stalls.txt" 2>&1
  fi
  echo "pattern $i $(grep -m1 "^rc=" "$OUT/ncu-$i.txt") $(el)s"
done <<< "$KERNELS"
# the lines that say where the time goes, report by report (this run's only)
for n in $(seq 1 "$i"); do
  f=$OUT/ncu-$n.txt
  [ -f "$f" ] || continue
  echo "== $(basename "$f"): $(head -1 "$f" | cut -c1-150)"
  grep -E '^ +(Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Cache Throughput|L2 Cache Throughput|DRAM Throughput|No Eligible|One or More Eligible|Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|Executed Instructions) ' "$f" | head -16
  grep -E '^ +smsp__average_warps_issue_stalled_' "$f" | sed -E 's/smsp__average_warps_issue_stalled_|_per_issue_active.ratio//g' | head -30
  if [ -f "$OUT/ncu-$n-stalls.txt" ]; then head -40 "$OUT/ncu-$n-stalls.txt"; fi
done
