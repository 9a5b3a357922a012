#!/bin/sh
# run_check.sh — runs one program of the preload tier and judges what it printed on stderr.
#
# Why: some clients cannot read tsgemm's counters themselves (Octave, a program whose only proof
# is tsgemm's TSGEMM_LOG=2 exit summary or a warning line), and ctest cannot match stderr lines
# one by one. The program's own exit status must be 0 (77 is passed through: skipped).
#
# Usage: run_check.sh [OPTIONS] -- COMMAND [ARGS...]
#   --env VAR=VALUE     set for COMMAND only (LD_PRELOAD goes here, not on this shell)
#   --ld-path DIR       put DIR first in COMMAND's LD_LIBRARY_PATH (the current value follows)
#   --need PATH         skip (exit 77, saying why) unless PATH is an executable file
#   --require ERE       stderr has at least one line matching ERE
#   --forbid ERE        stderr has no line matching ERE
#   --count N ERE       stderr has exactly N lines matching ERE
#   --summary EXPR      stderr has exactly one "tsgemm: summary:" line (TSGEMM_LOG=2) and the awk
#                       expression EXPR holds over its numbers: calls gpu cpu failures quick
#                       illegal (e.g. 'calls >= 6 && cpu + gpu >= 6 && illegal == 0')
# Exit status: 0 passed, 1 failed (why is printed), 77 skipped, 2 usage.

set -u
usage() { echo "usage: run_check.sh [--env V=X] [--ld-path D] [--need P] [--require ERE] [--forbid ERE] [--count N ERE] [--summary EXPR] -- CMD..." >&2; exit 2; }

ENVS=""
CHECKS=$(mktemp "${TMPDIR:-/tmp}/tsgemm-check.XXXXXX") || exit 2
ERR=$(mktemp "${TMPDIR:-/tmp}/tsgemm-stderr.XXXXXX") || exit 2
trap 'rm -f "$CHECKS" "$ERR"' EXIT
NENV=0
while [ $# -gt 0 ]; do
    case $1 in
    --env) [ $# -ge 2 ] || usage; NENV=$((NENV + 1)); eval "ENV_$NENV=\$2"; shift 2 ;;
    --ld-path)
        [ $# -ge 2 ] || usage
        NENV=$((NENV + 1))
        eval "ENV_$NENV=\"LD_LIBRARY_PATH=\$2\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
        shift 2 ;;
    --need)
        [ $# -ge 2 ] || usage
        if [ ! -x "$2" ] || [ -d "$2" ]; then
            echo "SKIPPED: $2 is not there (not an executable file); this test needs it"
            exit 77
        fi
        shift 2 ;;
    --require|--forbid|--summary) [ $# -ge 2 ] || usage; printf '%s\t%s\n' "$1" "$2" >>"$CHECKS"; shift 2 ;;
    --count) [ $# -ge 3 ] || usage; printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$CHECKS"; shift 3 ;;
    --) shift; break ;;
    *) usage ;;
    esac
done
[ $# -gt 0 ] || usage

# Build "env VAR=VALUE ... COMMAND ARGS" without losing spaces in values.
i=$NENV
while [ "$i" -gt 0 ]; do
    eval "v=\$ENV_$i"
    set -- "$v" "$@"
    i=$((i - 1))
done
[ "$NENV" -gt 0 ] && set -- env "$@"

echo "run_check: $*"
"$@" 2>"$ERR"
rc=$?
cat "$ERR" >&2
if [ "$rc" -eq 77 ]; then
    echo "run_check: the program reported SKIPPED (77)"
    exit 77
fi
FAILED=0
fail() { echo "run_check: FAIL: $*" >&2; FAILED=1; }
[ "$rc" -eq 0 ] || fail "exit status $rc"

TAB=$(printf '\t')
while IFS="$TAB" read -r kind a b; do
    case $kind in
    --require) grep -Eq -- "$a" "$ERR" || fail "no stderr line matches /$a/" ;;
    --forbid)
        if grep -Eq -- "$a" "$ERR"; then
            fail "stderr has lines matching /$a/:"
            grep -E -- "$a" "$ERR" | head -10 | sed 's/^/    /' >&2
        fi ;;
    --count)
        n=$(grep -Ec -- "$b" "$ERR")
        [ "$n" -eq "$a" ] || fail "$n stderr lines match /$b/, expected $a" ;;
    --summary)
        n=$(grep -c '^tsgemm: summary:' "$ERR")
        if [ "$n" -ne 1 ]; then
            fail "expected one 'tsgemm: summary:' line (TSGEMM_LOG=2; was tsgemm preloaded?), found $n"
            continue
        fi
        line=$(grep '^tsgemm: summary:' "$ERR")
        nums=$(echo "$line" | sed -E -n 's/^tsgemm: summary: ([0-9]+) calls: ([0-9]+) gpu \(.*\), ([0-9]+) cpu \(.*\), ([0-9]+) gpu failures redone on cpu, ([0-9]+) quick, ([0-9]+) illegal.*$/\1 \2 \3 \4 \5 \6/p')
        if [ -z "$nums" ]; then
            fail "cannot parse the summary line: $line"
        elif ! echo "$nums" | awk "{ calls=\$1; gpu=\$2; cpu=\$3; failures=\$4; quick=\$5; illegal=\$6;
                                     exit !($a) }"; then
            fail "summary does not satisfy '$a': $line"
        else
            echo "run_check: summary satisfies '$a'"
        fi ;;
    esac
done <"$CHECKS"

[ "$FAILED" -eq 0 ] || exit 1
echo "run_check: passed"
exit 0
