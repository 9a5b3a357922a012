#!/bin/sh
# tsgemm_run_check.sh WRAPPER LIB — the command line and environment of tsgemm-run (preload tier);
# the interposition itself is checked by the tests that run programs through it (CMakeLists.txt).
#
#   WRAPPER  the tsgemm-run to check; LIB  the library file it must preload (its soname link)
# Checks: --help (usage on stdout, status 0); a bad option, a bad --log or --mode value and a
# missing PROGRAM (usage on stderr, status 2, PROGRAM not run); --version names LIB; LD_PRELOAD
# becomes "LIB[:what was there]" with LIB absolute, and is not doubled when the wrapper nests;
# --log/--mode set TSGEMM_LOG/TSGEMM_MODE; PROGRAM's own options (after the first non-option, or
# after --) reach PROGRAM untouched; PROGRAM's exit status is the wrapper's.
# Exit status: 0 passed, 1 failed (each failure printed), 2 usage.
set -u
[ $# -eq 2 ] || { echo "usage: $0 WRAPPER LIB" >&2; exit 2; }
W=$1
LIB=$(cd -- "$(dirname -- "$2")" && pwd -P)/$(basename -- "$2") # as the wrapper spells it
FAILED=0
OUT=$(mktemp "${TMPDIR:-/tmp}/tsgemm-run-out.XXXXXX") || exit 2
ERR=$(mktemp "${TMPDIR:-/tmp}/tsgemm-run-err.XXXXXX") || exit 2
trap 'rm -f "$OUT" "$ERR"' EXIT
fail() { echo "FAIL: $*"; FAILED=1; }

# run WANT_STATUS ARGS...: runs the wrapper, keeps stdout/stderr in $OUT/$ERR, checks the status
run() {
    want=$1
    shift
    env -u TSGEMM_LOG -u TSGEMM_MODE -u OPENBLAS_THREAD_TIMEOUT "$W" "$@" >"$OUT" 2>"$ERR"
    got=$?
    [ "$got" -eq "$want" ] || fail "tsgemm-run $*: exit status $got, expected $want (stderr: $(head -3 "$ERR"))"
}
# usage_error ARGS...: status 2, "Usage:" on stderr, nothing run (the probe would print RAN)
usage_error() {
    run 2 "$@"
    grep -q '^Usage: tsgemm-run ' "$ERR" || fail "tsgemm-run $*: no usage line on stderr"
    grep -q RAN "$OUT" && fail "tsgemm-run $*: the program ran despite the usage error"
    return 0
}

run 0 --help
grep -q '^Usage: tsgemm-run \[--log N\] \[--mode M\] \[--\] PROGRAM \[ARGS...\]$' "$OUT" ||
    fail "--help: no usage line on stdout"
[ -s "$ERR" ] && fail "--help wrote to stderr"

usage_error --bogus sh -c 'echo RAN'
usage_error -x sh -c 'echo RAN'
usage_error --log 7 sh -c 'echo RAN'
usage_error --log sh -c 'echo RAN' # 'sh' taken as --log's value: not 0-3
usage_error --mode fast sh -c 'echo RAN'
usage_error --mode
usage_error
usage_error --log 2

run 0 --version
grep -qF "preloads $LIB" "$OUT" || fail "--version does not name $LIB: $(cat "$OUT")"

# the environment the program sees
probe='printf "%s|%s|%s|" "$LD_PRELOAD" "${TSGEMM_LOG-unset}" "${TSGEMM_MODE-unset}"; printf "%s," "$@"'
run 0 sh -c "$probe" probe a b
[ "$(cat "$OUT")" = "$LIB|unset|unset|a,b," ] || fail "plain run: the program saw '$(cat "$OUT")'"
# OpenBLAS's spin after a call: 2^20 cycles unless the user chose a value
run 0 sh -c 'printf "%s" "${OPENBLAS_THREAD_TIMEOUT-unset}"'
[ "$(cat "$OUT")" = "20" ] || fail "OPENBLAS_THREAD_TIMEOUT unset: the program saw '$(cat "$OUT")'"
OPENBLAS_THREAD_TIMEOUT=26 "$W" sh -c 'printf "%s" "${OPENBLAS_THREAD_TIMEOUT-unset}"' >"$OUT" 2>"$ERR" ||
    fail "OPENBLAS_THREAD_TIMEOUT=26: exit status $?"
[ "$(cat "$OUT")" = "26" ] || fail "OPENBLAS_THREAD_TIMEOUT=26: the program saw '$(cat "$OUT")'"
run 0 --log 3 --mode GPU -- sh -c "$probe" probe --log 9 --mode x
[ "$(cat "$OUT")" = "$LIB|3|GPU|--log,9,--mode,x," ] ||
    fail "--log 3 --mode GPU --: the program saw '$(cat "$OUT")'"
run 0 --mode=cpu --log=0 sh -c "$probe" probe --help
[ "$(cat "$OUT")" = "$LIB|0|cpu|--help," ] || fail "--mode=cpu --log=0: the program saw '$(cat "$OUT")'"
# an LD_PRELOAD already set is kept, after tsgemm's library; a nested wrapper does not double it
other=$(readlink -f /lib/x86_64-linux-gnu/libm.so.6 2>/dev/null || true)
if [ -n "$other" ] && [ -f "$other" ]; then
    env -u TSGEMM_LOG -u TSGEMM_MODE -u OPENBLAS_THREAD_TIMEOUT LD_PRELOAD="$other" "$W" sh -c "$probe" probe >"$OUT" 2>"$ERR" ||
        fail "LD_PRELOAD=$other: exit status $?"
    [ "$(cat "$OUT")" = "$LIB:$other|unset|unset|," ] ||
        fail "LD_PRELOAD=$other: the program saw '$(cat "$OUT")'"
fi
run 0 "$W" sh -c "$probe" probe
[ "$(cat "$OUT")" = "$LIB|unset|unset|," ] || fail "nested tsgemm-run: the program saw '$(cat "$OUT")'"
case $LIB in /*) ;; *) fail "the library path $LIB is not absolute" ;; esac
# PROGRAM's exit status passes through
run 3 sh -c 'exit 3'

[ "$FAILED" -eq 0 ] && echo "tsgemm_run_check: passed ($W preloads $LIB)"
exit "$FAILED"
