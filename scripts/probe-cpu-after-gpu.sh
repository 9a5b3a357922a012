#!/usr/bin/env bash
# scripts/probe-cpu-after-gpu.sh [BUILD] — why the first CPU calls after a run of GPU calls are
# slow in tsgemm's auto pass of a replay (issue 37; docs/NOTES.md "2026-12-06 seventh session"):
# run 31 (H100) had octave-single's first 1500 x 8 x 1500 calls after its 2048^3 GPU calls at
# 23, 22 and 4 ms where OpenBLAS's own pass took 0.25-0.4, and scalapack-psgemm's calls after a
# 1.5 s gap at 8-14 ms. Replays octave-single (2 rounds) under several settings, one process each,
# and prints for each the auto pass's first five calls of that shape per round and the class's
# totals per pass. Then the same shape alone after idle gaps (a made-up trace: six calls 0.07 ms
# apart after each gap of 1, 10, 30, 100, 300, 1000 and 1500 ms), replayed with OpenBLAS at 16, 4
# and 1 threads: whether OpenBLAS's own calls slow down after idle on this host, without any GPU
# call before them. Needs a device build (scripts/device-run.sh build); writes under $OUT.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
B=${1:-build-dev}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
[ -f .devkit/env.sh ] && . .devkit/env.sh
TR=bench/traces/octave-single.trace
export TSGEMM_CACHE_DIR=$B/cache-replay
echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null) defrag $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null); $(nproc) CPUs"
fails=0
run() { # NAME ENV...
  local name=$1 rc; shift
  env "$@" "$B/bench/tsgemm-bench" --replay "$TR" --replay-rounds 2 \
    --replay-calls "$OUT/probe-$name-calls.csv" > "$OUT/probe-$name.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fails=$((fails+1))
  echo "rc=$rc $name ($*)" >> "$OUT/probe-runs.txt"
}
: > "$OUT/probe-runs.txt"
run base
run log2 TSGEMM_LOG=2
run copy1 TSGEMM_COPY_THREADS=1
run ob8 OPENBLAS_NUM_THREADS=8
run base2
cat "$OUT/probe-runs.txt"
grep -h "classif\|summary" "$OUT/probe-log2.txt" | head -5
python3 - "$OUT" <<'EOF'
import csv, sys, os
out = sys.argv[1]
print("%-6s %-5s %-10s %9s  %s" % ("run", "round", "pass", "class ms", "first five 1500x8x1500 calls (ms)"))
for name in ["base", "log2", "copy1", "ob8", "base2"]:
    f = os.path.join(out, "probe-%s-calls.csv" % name)
    if not os.path.exists(f):
        print(name, "no CSV"); continue
    rows = [r for r in csv.DictReader(open(f)) if r["m"] == "1500" and r["n"] == "8"]
    for rd in sorted({r["round"] for r in rows}):
        for ps in ["openblas", "tsgemm", "tsgemm-gpu"]:
            x = [r for r in rows if r["round"] == rd and r["pass"] == ps]
            if not x: continue
            print("%-6s %-5s %-10s %9.2f  %s" % (name, rd, ps, sum(float(r["ms"]) for r in x),
                  " ".join("%.2f%s" % (float(r["ms"]), "g" if r["on_gpu"] == "1" else "") for r in x[:5])))
EOF

# OpenBLAS after idle gaps (the tsgemm passes may send the calls to the GPU; the openblas pass is
# the question: round 1's runs first in its process, before any GPU call; round 2's after the
# other two passes, the rounds' order rotating)
python3 - "$OUT/idle.trace" <<'EOF2'
import sys
with open(sys.argv[1], "w") as f:
    f.write("# tsgemm-trace 1\n# pid 1\n")
    for gap_ms in [1, 10, 30, 100, 300, 1000, 1500]:
        for i in range(6):
            gap_ns = gap_ms * 1000000 if i == 0 else 70000
            f.write("sgemm_ col N N 1500 8 1500 1500 1500 1500 1 0 hhh 0 %d cpu 250000\n" % gap_ns)
EOF2
for t in 16 4 1; do
  OPENBLAS_NUM_THREADS=$t "$B/bench/tsgemm-bench" --replay "$OUT/idle.trace" --replay-rounds 2 \
    --replay-calls "$OUT/probe-idle-t$t-calls.csv" > "$OUT/probe-idle-t$t.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || fails=$((fails+1))
  echo "rc=$rc idle, OPENBLAS_NUM_THREADS=$t"
done
python3 - "$OUT" <<'EOF2'
import csv, sys, os
out = sys.argv[1]
gaps = [1, 10, 30, 100, 300, 1000, 1500]
print("OpenBLAS pass: the six calls after each idle gap (ms; round 1 | round 2)")
print("%-8s %-6s %s" % ("threads", "gap ms", "calls"))
for t in [16, 4, 1]:
    f = os.path.join(out, "probe-idle-t%d-calls.csv" % t)
    if not os.path.exists(f):
        print(t, "no CSV"); continue
    rows = list(csv.DictReader(open(f)))
    for gi, g in enumerate(gaps):
        cells = []
        for rd in ["1", "2"]:
            x = [r for r in rows if r["round"] == rd and r["pass"] == "openblas"]
            cells.append(" ".join("%.2f" % float(r["ms"]) for r in x[gi * 6:gi * 6 + 6]))
        print("%-8d %-6d %s | %s" % (t, g, cells[0], cells[1]))
EOF2
[ $fails -eq 0 ] || { echo "probe: $fails runs failed (probe-*.txt)"; exit 1; }
