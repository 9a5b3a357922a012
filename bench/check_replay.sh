#!/bin/sh
# check_replay.sh BENCH TRACE_CLIENT FAKE_LIB NOP_LIB WORKDIR — tsgemm-bench --replay end to end
# (unit.replay): a trace recorded from trace_client is replayed (1) plainly: exit 0, OpenBLAS and
# tsgemm passes ok, the GPU pass skipped with its line; (2) over libtsgemm_fake (the stand-in
# GPU): the forced-GPU pass runs every call on the "GPU", results right; (3) with tsgemm's CPU
# BLAS replaced by one whose sgemm does nothing (TSGEMM_CPU_BLAS=libtsg_nop_sgemm): the tsgemm
# pass must be reported WRONG and the run exit 1, the OpenBLAS pass still right; (4) a trace with
# a bad line: exit 2 naming the line; (5) each call through its recorded entry point; (6)
# --replay-rounds: rounds tagged, medians reported and carried by the summary line; (7)
# --replay-csv: one row per class, which tsgemm-model-check (MODEL) reads with the run's rates;
# (8) --replay-calls; (9) --replay-threads.
set -u
BENCH=$1 CLIENT=$2 FAKE=$3 NOP=$4 WORK=$5 MODEL=${6:-}
[ -f "$NOP" ] || { echo "FAIL: the do-nothing CBLAS $NOP is missing (the wrong-backend case could not fail)"; exit 1; }
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
T=$WORK/client.trace
fail() { echo "FAIL: $*"; exit 1; }
TSGEMM_LOG=0 TSGEMM_MODE=cpu "$CLIENT" "$T" >/dev/null || fail "trace_client"
calls=$(grep -vc '^#' "$T")
[ "$calls" -ge 10 ] || fail "only $calls call lines in $T"

# (1) plain
TSGEMM_LOG=0 "$BENCH" --replay "$T" >"$WORK/plain.txt" 2>&1; rc=$?
cat "$WORK/plain.txt"
[ $rc -eq 0 ] || fail "plain replay exit $rc"
grep -q "^  openblas .* ms in calls" "$WORK/plain.txt" || fail "no openblas pass line"
grep -q "^  tsgemm .* ms in calls" "$WORK/plain.txt" || fail "no tsgemm pass line"
grep -q "^  tsgemm-gpu  skipped: " "$WORK/plain.txt" || fail "the GPU pass is not reported skipped"
grep -q "WRONG" "$WORK/plain.txt" && fail "a result reported WRONG in the plain replay"
grep -q "^  total  *$calls " "$WORK/plain.txt" || fail "total row does not count $calls calls"

# (2) over the stand-in GPU: the forced pass runs (every non-quick call on the "GPU")
LD_PRELOAD=$FAKE TSGEMM_LOG=0 TSGEMM_CACHE_DIR=$WORK/cache "$BENCH" --replay "$T" >"$WORK/fake.txt" 2>&1; rc=$?
cat "$WORK/fake.txt"
[ $rc -eq 0 ] || fail "fake-GPU replay exit $rc"
line=$(grep "^  tsgemm-gpu .* ms in calls" "$WORK/fake.txt") || fail "no forced-GPU pass line"
gpu=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) on the GPU.*/\1/p')
quick=$(grep -v '^#' "$T" | awk '$16 == "quick"' | wc -l)
[ "$gpu" -eq $((calls - quick)) ] || fail "forced-GPU pass ran $gpu calls on the GPU, want $((calls - quick))"
grep -q "WRONG" "$WORK/fake.txt" && fail "a result reported WRONG over the fake GPU"

# (3) a deliberately wrong backend
TSGEMM_CPU_BLAS=$NOP TSGEMM_LOG=0 TSGEMM_MODE=cpu "$BENCH" --replay "$T" >"$WORK/wrong.txt" 2>&1; rc=$?
cat "$WORK/wrong.txt"
[ $rc -eq 1 ] || fail "replay over a sgemm that does nothing: exit $rc, want 1"
grep -q "^  tsgemm .*WRONG" "$WORK/wrong.txt" || fail "the tsgemm pass is not reported WRONG"
grep -q "^  openblas .*WRONG" "$WORK/wrong.txt" && fail "the OpenBLAS pass reported WRONG"
grep -q "^  tsgemm  *WRONG: [0-9]* of $calls results out of bounds; first: call 1 " "$WORK/wrong.txt" ||
    fail "no WRONG detail naming call 1"

# (4) strict input: a bad line stops the replay before any call
{ head -n 3 "$T"; echo "cblas_sgemm col N N 10 10 10 5 10 10 1 0 hhh 1 0 cpu 100"; } >"$WORK/bad.trace"
"$BENCH" --replay "$WORK/bad.trace" >"$WORK/bad.txt" 2>&1; rc=$?
cat "$WORK/bad.txt"
[ $rc -eq 2 ] || fail "bad trace: exit $rc, want 2"
grep -q "bad.trace:4: leading dimension below the rows" "$WORK/bad.txt" || fail "bad line not named"
printf 'not a trace\n' >"$WORK/nohead.trace"
"$BENCH" --replay "$WORK/nohead.trace" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "headerless file: exit $rc, want 2"
# (5) each call through the entry point the program called: one call per host entry point, the
# tsgemm pass's per-call lines (TSGEMM_LOG=3) name each once
E="cblas_sgemm sgemm_ cblas_sgemm64_ sgemm_64_ scipy_cblas_sgemm64_ scipy_sgemm_64_ scipy_cblas_sgemm scipy_sgemm_"
{ echo "# tsgemm-trace 1"; for e in $E; do echo "$e col N N 64 64 64 64 64 64 1 0 hhh 0 0 cpu 100"; done; } >"$WORK/entries.trace"
TSGEMM_LOG=3 TSGEMM_MODE=cpu "$BENCH" --replay "$WORK/entries.trace" >"$WORK/entries.txt" 2>&1; rc=$?
[ $rc -eq 0 ] || { cat "$WORK/entries.txt"; fail "entries replay: exit $rc"; }
for e in $E; do
    n=$(grep -c "^tsgemm: $e layout=" "$WORK/entries.txt")
    [ "$n" -eq 1 ] || { cat "$WORK/entries.txt"; fail "the tsgemm pass called $e $n times, want 1"; }
done
# (6) --replay-rounds 3 over the stand-in GPU: every pass three times (each round tagged), the
# medians reported, the summary line carrying the median; out-of-range counts refused
LD_PRELOAD=$FAKE TSGEMM_LOG=0 TSGEMM_CACHE_DIR=$WORK/cache "$BENCH" --replay "$T" --replay-rounds 3 >"$WORK/rounds.txt" 2>&1; rc=$?
cat "$WORK/rounds.txt"
[ $rc -eq 0 ] || fail "rounds replay exit $rc"
for pass in openblas tsgemm tsgemm-gpu; do
    n=$(grep -c "^  $pass .* ms in calls, .* round [123]\$" "$WORK/rounds.txt")
    [ "$n" -eq 3 ] || fail "$pass ran $n rounds, want 3"
    grep -q "^  $pass .* ms in calls (median; rounds [0-9.]* [0-9.]* [0-9.]*)" "$WORK/rounds.txt" || fail "no median line for $pass"
done
med=$(sed -n 's/^  openblas  *\([0-9.]*\) ms in calls (median.*/\1/p' "$WORK/rounds.txt")
grep -q "^  replay-summary .* openblas_ms=$med " "$WORK/rounds.txt" || fail "the summary does not carry the median $med"
for bad in 0 10 x; do
    "$BENCH" --replay "$T" --replay-rounds $bad >/dev/null 2>&1 && fail "--replay-rounds $bad accepted"
done
# (7) --replay-csv over the stand-in GPU: a header and one row per class; the model check reads it
# with the rates cache that run used
LD_PRELOAD=$FAKE TSGEMM_LOG=0 TSGEMM_CACHE_DIR=$WORK/cache "$BENCH" --replay "$T" --replay-csv "$WORK/classes.csv" >"$WORK/csv.txt" 2>&1 ||
    { cat "$WORK/csv.txt"; fail "--replay-csv run"; }
ncls=$(sed -n 's/^replay .*: [0-9]* calls (.*), \([0-9]*\) classes;.*/\1/p' "$WORK/csv.txt")
[ -n "$ncls" ] && [ "$(wc -l <"$WORK/classes.csv")" -eq $((ncls + 1)) ] || fail "the CSV has $(wc -l <"$WORK/classes.csv") lines for $ncls classes"
head -1 "$WORK/classes.csv" | grep -q '^entry,layout,transa,transb,m,n,k,' || fail "CSV header"
if [ -n "$MODEL" ]; then
    "$MODEL" "$(ls "$WORK"/cache/gpu-rates-v17-*-p0.txt | head -1)" "$(ls "$WORK"/cache/cpu-rates-v3-*.txt | head -1)" \
        "$WORK/classes.csv" >"$WORK/model.txt" 2>&1 || { cat "$WORK/model.txt"; fail "tsgemm-model-check on the replay's CSV"; }
    cat "$WORK/model.txt"
    grep -q "^$ncls classes; " "$WORK/model.txt" || fail "the model check did not read $ncls classes"
fi
# (8) --replay-calls over the stand-in GPU, two rounds: a header and one row per call, pass and
# round (every pass replays the trace's calls); the forced pass's rows on the GPU, OpenBLAS's
# never; a time on every row
LD_PRELOAD=$FAKE TSGEMM_LOG=0 TSGEMM_CACHE_DIR=$WORK/cache "$BENCH" --replay "$T" --replay-rounds 2 \
    --replay-calls "$WORK/calls.csv" >"$WORK/calls.txt" 2>&1 || { cat "$WORK/calls.txt"; fail "--replay-calls run"; }
head -1 "$WORK/calls.csv" | grep -q '^round,pass,order,call,entry,layout,transa,transb,m,n,k,gap_ms,ms,on_gpu,prev_on_gpu$' ||
    fail "--replay-calls header: $(head -1 "$WORK/calls.csv")"
rows=$(($(wc -l <"$WORK/calls.csv") - 1))
[ "$rows" -eq $((2 * 3 * calls)) ] || fail "--replay-calls has $rows rows, want $((2 * 3 * calls)) (2 rounds x 3 passes x $calls calls)"
awk -F, 'NR > 1 {
        if ($13 !~ /^[0-9]+\.[0-9]+$/) { print "no time: " $0; bad = 1 }
        if ($2 == "openblas" && $14 != 0) { print "OpenBLAS row on the GPU: " $0; bad = 1 }
    } END { exit bad }' "$WORK/calls.csv" || fail "--replay-calls rows"
gpu_rows=$(awk -F, 'NR > 1 && $2 == "tsgemm-gpu" && $14 == 1' "$WORK/calls.csv" | wc -l)
[ "$gpu_rows" -eq $((2 * (calls - quick))) ] || fail "--replay-calls: $gpu_rows forced rows on the GPU, want $((2 * (calls - quick)))"
# (9) --replay-threads over the stand-in GPU (which computes on tsgemm's copy threads): a line
# after every pass; the forced pass's copy threads ("tsg-copy") ran, and more than in the OpenBLAS
# pass (where they only wake; 0.03 ms on the CPU VM); the main thread ran
LD_PRELOAD=$FAKE TSGEMM_LOG=0 TSGEMM_CACHE_DIR=$WORK/cache "$BENCH" --replay "$T" --replay-threads \
    >"$WORK/threads.txt" 2>&1 || { cat "$WORK/threads.txt"; fail "--replay-threads run"; }
grep 'CPU ms by thread' "$WORK/threads.txt"
[ "$(grep -c 'CPU ms by thread' "$WORK/threads.txt")" -eq 3 ] || fail "--replay-threads: not one line per pass"
copy_ms() { grep "^  $1 *CPU ms by thread" "$WORK/threads.txt" | sed -n 's/.* tsg-copy \([0-9.]*\) (\([0-9]*\)).*/\1 \2/p'; }
set -- $(copy_ms tsgemm-gpu)
forced_ms=${1:-0}
awk -v ms="$forced_ms" -v n="${2:-0}" 'BEGIN { exit !(ms > 0 && n >= 1) }' || fail "--replay-threads: the forced pass shows no copy-thread time ($*)"
set -- $(copy_ms openblas)
awk -v ob="${1:-x}" -v f="$forced_ms" 'BEGIN { exit !(ob != "x" && ob + 0 < f + 0) }' ||
    fail "--replay-threads: copy threads ran ${1:-?} ms in the OpenBLAS pass, not less than the forced pass's $forced_ms"
grep "^  openblas *CPU ms by thread" "$WORK/threads.txt" | grep -q ' main [0-9.]* (1)' ||
    fail "--replay-threads: no main thread in the OpenBLAS pass"
echo "replay checks passed"
