#!/bin/sh
# check_test_knobs.sh CLIENT LIBTSGEMM LIBTSGEMM_FI — TSGEMM_TEST_* through the real libraries:
# CLIENT (dlopen_loop.c) dlopens the library and makes one checked call on the CPU path, with a
# valid tuning knob (TSGEMM_TEST_ORDER=block), a bad one (TSGEMM_TEST_TIMELINE=x) and TSGEMM_LOG=2. The
# twin tsgemm_fi reads the TSGEMM_TEST_* knobs, so it warns exactly once about the bad one; the
# release library must not read them at all: not one line about any TSGEMM_TEST_* knob.
client=$1 lib=$2 lib_fi=$3
run() {
  TSGEMM_MODE=cpu TSGEMM_LOG=2 TSGEMM_TEST_ORDER=block TSGEMM_TEST_TIMELINE=x "$client" "$1" 1 2>&1
}
out=$(run "$lib_fi"); rc=$?
echo "== $lib_fi"; echo "$out"
if [ $rc -ne 0 ]; then echo "FAIL: the fault-injection twin: exit status $rc"; exit 1; fi
n=$(printf '%s\n' "$out" | grep -c '^tsgemm: TSGEMM_TEST_TIMELINE="x" is not 0, 1 or 2; using the rule')
if [ "$n" -ne 1 ]; then echo "FAIL: the twin printed $n warnings for TSGEMM_TEST_TIMELINE=x, want 1"; exit 1; fi
out=$(run "$lib"); rc=$?
echo "== $lib"; echo "$out"
if [ $rc -ne 0 ]; then echo "FAIL: the release library: exit status $rc"; exit 1; fi
if printf '%s\n' "$out" | grep -q 'TSGEMM_TEST_'; then
  echo "FAIL: the release library read a TSGEMM_TEST_* knob"; exit 1; fi
# TSGEMM_LOG=2 was read (the exit summary), so the silence above is not a library that read nothing
if ! printf '%s\n' "$out" | grep -q '^tsgemm: '; then
  echo "FAIL: the release library printed nothing at TSGEMM_LOG=2"; exit 1; fi
echo "ok"
