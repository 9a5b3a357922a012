#!/usr/bin/env bash
# run_cache_cases.sh CLIENT — the rates cache end to end through libtsgemm_fake: each case puts
# something hostile where the cache folder, file or lock should be, runs one auto-mode call and
# requires: exit 0 with C right (no crash), done within the bound (no hang), the expected way
# of getting the rates (measured again / read from the cache), and nothing outside the cache
# folder changed. The file-level cases (full and read-only file systems, every refused value)
# are unit.ratecache's and unit.rates'; this script shows the library as a whole survives them.
set -euo pipefail
CLIENT=$1
ROOT=$(mktemp -d /tmp/tsg-hostile-XXXXXX)
HOLDER=
cleanup() {
  if [ -n "$HOLDER" ]; then pkill -P "$HOLDER" 2>/dev/null || true; kill "$HOLDER" 2>/dev/null || true; fi
  chmod -R u+rwx "$ROOT" 2>/dev/null || true
  rm -rf "$ROOT"
}
trap cleanup EXIT
FAILS=0
PASSES=0

fail() { echo "FAIL: $CASE: $*"; FAILS=$((FAILS + 1)); }

# run DIR [m n k] [ENV...]: one call with TSGEMM_CACHE_DIR=DIR; sets OUT (stdout+stderr), RC, SECS
run() {
  local dir=$1 m=${2:-512} n=${3:-512} k=${4:-512}
  shift 4 || shift $#
  local t0 t1
  t0=$(date +%s.%N)
  set +e
  OUT=$(env -u TSGEMM_MODE -u TSGEMM_GPU_THRESHOLD TSGEMM_LOG=2 TSGEMM_CACHE_DIR="$dir" "$@" \
        timeout 30 "$CLIENT" "$m" "$n" "$k" 2>&1)
  RC=$?
  set -e
  t1=$(date +%s.%N)
  SECS=$(awk "BEGIN{print $t1 - $t0}")
}

measured() { grep -c '^fake-gpu: measured' <<<"$OUT" || true; }

expect_ok() { # the call survived and C is right
  if [ "$RC" != 0 ] || ! grep -q ' ok$' <<<"$OUT"; then fail "rc $RC: $OUT"; return 1; fi
}

expect_measured() {
  [ "$(measured)" = 1 ] || fail "expected one measurement, got $(measured): $OUT"
}

done_case() { [ "$FAILS" = "$1" ] && PASSES=$((PASSES + 1)) || true; }

# --- a fresh cache: measured and written 0600 in a 0700 folder; the next process reads it
CASE=fresh; f0=$FAILS
D=$ROOT/fresh/tsgemm
run "$D"
expect_ok && expect_measured
grep -q 'path=gpu' <<<"$OUT" || fail "the fake GPU was not used: $OUT"
NAME=$(cd "$D" && ls gpu-rates-v17-*.txt 2>/dev/null | head -1)
[ -n "$NAME" ] || fail "no cache file written"
[ "$(stat -c %a "$D")" = 700 ] || fail "folder mode $(stat -c %a "$D")"
[ "$(stat -c %a "$D/$NAME")" = 600 ] || fail "file mode $(stat -c %a "$D/$NAME")"
GOOD=$(cat "$D/$NAME")
run "$D"
expect_ok
[ "$(measured)" = 0 ] && grep -q 'GPU rates from' <<<"$OUT" || fail "not read from the cache: $OUT"
done_case "$f0"

# --- bad contents: each is refused whole, the GPU measured again, the file rewritten good. The
# 2048 x 2048 x 16 call's plan has many blocks: gpu_tile_m 1e19 used to end in SIGFPE there.
bad_body() { # field value
  sed "s/^$1 .*/$1 $2/" <<<"$GOOD"
}
i=0
while IFS= read -r body_kind; do
  i=$((i + 1))
  CASE="contents $body_kind"; f0=$FAILS
  D=$ROOT/bad$i
  mkdir -m 700 "$D"
  case $body_kind in
    tile1e19) bad_body gpu_tile_m 1e19 > "$D/$NAME" ;;
    flops0) bad_body gpu_flops 0 > "$D/$NAME" ;;
    h2dtiny) bad_body h2d_bps 1e-300 > "$D/$NAME" ;;
    nan) bad_body d2h_bps nan > "$D/$NAME" ;;
    negative) bad_body gpu_slots -132 > "$D/$NAME" ;;
    pairflops) bad_body gpu_nt_flops 1e19 > "$D/$NAME" ;;
    pairpart) grep -v '^gpu_tt_tile_n ' <<<"$GOOD" > "$D/$NAME" ;; # the pairs' group: all or none
    huge) { printf '%s\n' "$GOOD"; head -c 1000000 /dev/zero | tr '\0' 'x'; } > "$D/$NAME" ;;
    truncated) head -c 60 <<<"$GOOD" > "$D/$NAME" ;;
    version) sed '1s/.*/tsgemm-gpu-rates 14/' <<<"$GOOD" > "$D/$NAME" ;;
    empty) : > "$D/$NAME" ;;
    binary) head -c 300 /dev/urandom > "$D/$NAME" ;;
  esac
  chmod 600 "$D/$NAME"
  run "$D" 2048 2048 16
  expect_ok && expect_measured
  [ "$(cat "$D/$NAME")" = "$GOOD" ] || fail "not rewritten with the measured rates"
  done_case "$f0"
done <<'EOF'
tile1e19
flops0
h2dtiny
nan
negative
pairflops
pairpart
huge
truncated
version
empty
binary
EOF

# --- a FIFO and a directory where the file should be: no hang, measured, nothing written there
CASE=fifo; f0=$FAILS
D=$ROOT/fifo; mkdir -m 700 "$D"; mkfifo -m 600 "$D/$NAME"
run "$D"
expect_ok && expect_measured
[ -p "$D/$NAME" ] || [ -f "$D/$NAME" ] || fail "the FIFO's place holds neither the FIFO nor a file"
awk "BEGIN{exit !($SECS < 10)}" || fail "took $SECS s"
done_case "$f0"

CASE=directory; f0=$FAILS
D=$ROOT/dir; mkdir -p -m 700 "$D/$NAME"
run "$D"
expect_ok && expect_measured
[ -d "$D/$NAME" ] || fail "the directory was replaced"
[ "$(ls -A "$D" | grep -c tmp || true)" = 0 ] || fail "a temporary file was left: $(ls -A "$D")"
done_case "$f0"

# --- symbolic links at the file and at the lock: their targets outside the folder unchanged
CASE="symlinked file"; f0=$FAILS
D=$ROOT/link; mkdir -m 700 "$D"; echo precious > "$ROOT/target1"
ln -s "$ROOT/target1" "$D/$NAME"
run "$D"
expect_ok && expect_measured
[ "$(cat "$ROOT/target1")" = precious ] || fail "the link's target was written"
[ -f "$D/$NAME" ] && [ ! -L "$D/$NAME" ] || fail "the link was not replaced by a regular file"
done_case "$f0"

CASE="symlinked lock"; f0=$FAILS
D=$ROOT/locklink; mkdir -m 700 "$D"; echo precious > "$ROOT/target2"
ln -s "$ROOT/target2" "$D/$NAME.lock"
ln -s "$ROOT/never-created" "$D/$NAME.tmp"
run "$D"
expect_ok && expect_measured
[ "$(cat "$ROOT/target2")" = precious ] || fail "the lock's target was touched"
[ ! -e "$ROOT/never-created" ] || fail "a file was created through a link"
[ ! -e "$D/$NAME" ] || fail "cached although the lock could not be taken"
grep -q 'rates cache: lock' <<<"$OUT" || fail "no line says why the cache was not used: $OUT"
done_case "$f0"

# --- folders another user could write, or owns
CASE="group-writable folder"; f0=$FAILS
D=$ROOT/gw; mkdir -m 770 "$D"
run "$D"
expect_ok && expect_measured
grep -q 'writable by its group or others' <<<"$OUT" || fail "no refusal said: $OUT"
[ -z "$(ls -A "$D")" ] || fail "something was written: $(ls -A "$D")"
done_case "$f0"

CASE="symlinked folder"; f0=$FAILS
mkdir -m 700 "$ROOT/realdir"; ln -s "$ROOT/realdir" "$ROOT/linkdir"
run "$ROOT/linkdir"
expect_ok && expect_measured
[ -z "$(ls -A "$ROOT/realdir")" ] || fail "written through a linked folder"
done_case "$f0"

if [ "$(id -u)" = 0 ]; then
  CASE="other owner's folder"; f0=$FAILS
  D=$ROOT/other; mkdir -m 700 "$D"; chown 65534:65534 "$D"
  run "$D"
  expect_ok && expect_measured
  grep -q 'owned by another user' <<<"$OUT" || fail "no refusal said: $OUT"
  [ -z "$(ls -A "$D")" ] || fail "something was written"
  done_case "$f0"
  CASE="other owner's file"; f0=$FAILS
  D=$ROOT/otherfile; mkdir -m 700 "$D"; printf '%s\n' "$GOOD" > "$D/$NAME"; chown 65534 "$D/$NAME"
  run "$D"
  expect_ok && expect_measured
  done_case "$f0"
else
  echo "note: not root: the other-owner cases were not run"
fi

# --- a lock held by another process forever: measured without caching after the bound (2 s)
CASE="held lock"; f0=$FAILS
D=$ROOT/held; mkdir -m 700 "$D"; touch "$D/$NAME.lock"; chmod 600 "$D/$NAME.lock"
flock "$D/$NAME.lock" sleep 60 </dev/null >/dev/null 2>&1 &
HOLDER=$!
sleep 0.3
run "$D"
expect_ok && expect_measured
awk "BEGIN{exit !($SECS >= 1.9 && $SECS < 10)}" || fail "took $SECS s (bound 2 s)"
grep -q 'still held by another process' <<<"$OUT" || fail "no line says so: $OUT"
[ ! -e "$D/$NAME" ] || fail "cached without the lock"
pkill -P "$HOLDER" 2>/dev/null || true
kill "$HOLDER" 2>/dev/null || true
wait "$HOLDER" 2>/dev/null || true
HOLDER=
done_case "$f0"

# --- a measurement out of physical bounds (NN's tile; TT's rate, NaN): not cached, auto mode
# stays on the CPU, C right
for bad in tile pair; do
  CASE="absurd measurement ($bad)"; f0=$FAILS
  D=$ROOT/absurd-$bad
  run "$D" 512 512 512 TSGEMM_FAKE_BAD=$bad
  expect_ok && expect_measured
  grep -q 'outside its physical bounds' <<<"$OUT" || fail "not said: $OUT"
  grep -q 'path=cpu' <<<"$OUT" || fail "not on the CPU: $OUT"
  [ ! -e "$D/$NAME" ] || fail "absurd rates were cached"
  done_case "$f0"
done

# --- the CPU BLAS's file: the first TSG_CPU_SAMPLES (3) processes measure and merge, the next
# reads it without measuring (its spot check cannot beat the file's 256^3 time: set to 0.1 us
# here, since processes that measured under this tier's parallel load may have read the CPU slow,
# which the spot check would rightly measure over — unit.cpu_rates_stale covers that); a bad file
# is refused whole, measured again and rewritten
CASE=cpu_file; f0=$FAILS
D=$ROOT/cpu/tsgemm
for i in 1 2 3; do
  run "$D"
  expect_ok || true
  grep -q 'CPU rate measured' <<<"$OUT" || fail "process $i did not measure the CPU BLAS: $OUT"
  CPU=$(cd "$D" && ls cpu-rates-v3-*.txt 2>/dev/null | head -1)
  [ -n "$CPU" ] || { fail "process $i wrote no CPU file"; continue; }
  grep -qx "samples $i" "$D/$CPU" || fail "process $i: $(grep samples "$D/$CPU")"
done
[ -n "${CPU:-}" ] && sed -i 's/^cpu_small_s .*/cpu_small_s 1e-07/' "$D/$CPU"
run "$D"
expect_ok || true
grep -q 'CPU rates from' <<<"$OUT" || fail "the fourth process measured again: $OUT"
grep -q 'CPU rate measured' <<<"$OUT" && fail "the fourth process measured: $OUT"
[ -n "${CPU:-}" ] && [ "$(stat -c %a "$D/$CPU")" = 600 ] || fail "CPU file mode"
printf 'tsgemm-cpu-rates 2\ncpu_flops 1e20\n' > "$D/$CPU"
run "$D"
expect_ok || true
grep -q 'CPU rate measured' <<<"$OUT" || fail "a bad CPU file was not measured over: $OUT"
grep -qx 'samples 1' "$D/$CPU" || fail "the bad CPU file was not rewritten: $(cat "$D/$CPU")"
done_case "$f0"

echo "$PASSES passed, $FAILS failed"
[ "$FAILS" = 0 ]
