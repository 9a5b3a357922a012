#!/bin/sh
# warm_prime.sh CLIENT DIR — the cache unit.warm_on starts from: CPU and GPU rates settled, as on
# a machine where tsgemm ran before. Three processes measure (TSGEMM_PIN_AT_START=0: no warm-up
# beside them); then the cache's 256^3 time is set to 0.1 us, below anything a spot check can read
# (shim/tsg_measure.c TSG_CPU_STALE_FACTOR), so that the next process reads the cache as it is
# whatever the load now — test_warm's calls are 512^3, priced by the measured 512^3 time.
set -u
client=$1 dir=$2
export TSGEMM_CACHE_DIR="$dir" TSGEMM_LOG=2 TSGEMM_PIN_AT_START=0 TSGEMM_MODE=
rm -rf "$dir"
for i in 1 2 3; do "$client" prime || { echo "FAIL: priming process $i"; exit 1; }; done
f=$(ls "$dir"/cpu-rates-*.txt 2> /dev/null | head -1)
[ -n "$f" ] || { echo "FAIL: no CPU rates file in $dir"; exit 1; }
awk '$1 == "cpu_small_s" { print $1, "1e-07"; next } { print }' "$f" > "$f.new" && mv "$f.new" "$f"
grep -q '^cpu_small_s 1e-07$' "$f" || { echo "FAIL: cannot edit $f"; exit 1; }
echo "ok: $f"
