#!/usr/bin/env bash
# run_cancel_cases.sh CLIENT — cancel_client's three cases, each in a fresh process with its own
# rates cache folder, the stand-in GPU made slow enough that the cancellation / signal lands
# inside the library (measurement 400 ms, each part of a call 300 ms): auto mode with the cost
# model for the rates case (its first call measures), the GPU forced (TSGEMM_MODE=gpu) for the
# others so the call's work is on the copy threads.
set -euo pipefail
CLIENT=$1
ROOT=$(mktemp -d /tmp/tsg-cancel-XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
FAILS=0
for c in rates call signal; do
  mode=gpu
  [ "$c" = rates ] && mode=auto
  set +e
  out=$(env -u TSGEMM_GPU_THRESHOLD TSGEMM_CACHE_DIR="$ROOT/$c" TSGEMM_MODE=$mode \
        TSGEMM_FAKE_MEASURE_MS=400 TSGEMM_FAKE_CALL_MS=300 timeout 90 "$CLIENT" "$c" 2>&1)
  rc=$?
  set -e
  echo "$out" | tail -n 20
  if [ "$rc" != 0 ]; then echo "FAIL: case $c: exit $rc"; FAILS=$((FAILS + 1)); fi
done
echo "hostile cancel: $FAILS failed"
[ "$FAILS" = 0 ]
