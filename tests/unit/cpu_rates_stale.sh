#!/bin/sh
# cpu_rates_stale.sh CLIENT DIR — a CPU rates cache that prices the CPU far too slow (as three
# processes that measured on a loaded machine leave it: docs/NOTES.md "2026-12-06 the staging
# pinned at start") is measured again by the next process, whose spot check reads the CPU faster
# (shim/tsg_measure.c TSG_CPU_STALE_FACTOR); a cache that reads the CPU faster is left as it is.
# CLIENT makes one auto-mode call above the GPU floor over the stand-in GPU (test_warm prime).
set -u
client=$1 dir=$2
export TSGEMM_CACHE_DIR="$dir" TSGEMM_LOG=2 TSGEMM_PIN_AT_START=0 TSGEMM_MODE=
rm -rf "$dir"
for i in 1 2 3; do "$client" prime > /dev/null 2>&1 || { echo "FAIL: priming process $i"; exit 1; }; done
f=$(ls "$dir"/cpu-rates-*.txt 2> /dev/null | head -1)
[ -n "$f" ] || { echo "FAIL: no CPU rates file in $dir"; exit 1; }
field() { awk -v k="$1" '$1 == k { print $2 }' "$f"; }
[ "$(field samples)" = 3 ] || { echo "FAIL: samples $(field samples), want 3"; exit 1; }
good=$(field cpu_small_s)
# 40x too slow: every time x40, the rate /40
awk '$1 == "cpu_small_s" || $1 == "cpu_mid_s" || $1 == "cpu_latency_s" || $1 == "cpu_thin_m_s" || $1 == "cpu_thin_n_s" { printf "%s %.17g\n", $1, $2 * 40; next }
     $1 == "cpu_flops" { printf "%s %.17g\n", $1, $2 / 40; next } { print }' "$f" > "$f.new" && mv "$f.new" "$f"
slow=$(field cpu_small_s)
out=$("$client" prime 2>&1) || { echo "FAIL: the process after the edit"; echo "$out"; exit 1; }
echo "$out" | grep 'CPU rate'
echo "$out" | grep -q 'measured again' || { echo "FAIL: a cache 40x too slow was kept"; exit 1; }
now=$(field cpu_small_s)
echo "256^3: measured $good s, edited to $slow s, after the next process $now s"
# a measurement on this loaded 2-core machine may read the CPU a few times slow itself, not 20x
awk -v now="$now" -v slow="$slow" 'BEGIN { exit !(now * 2 < slow) }' ||
  { echo "FAIL: the cache still reads $now s (edited: $slow)"; exit 1; }
# a cache no spot check can beat (256^3 in 0.1 us) is read as it is, whatever the load now
awk '$1 == "cpu_small_s" { print $1, "1e-07"; next } { print }' "$f" > "$f.new" && mv "$f.new" "$f"
out=$("$client" prime 2>&1) || { echo "FAIL: the last process"; exit 1; }
echo "$out" | grep -q 'measured again' && { echo "FAIL: a sound cache was measured again"; echo "$out" | grep 'CPU rate'; exit 1; }
echo "$out" | grep -q 'CPU rates from' || { echo "FAIL: the last process did not read the cache"; exit 1; }
echo "ok"
