#!/bin/sh
# run_testers.sh — the netlib level-3 testers (Debian libblas-test) with libtsgemm.so preloaded.
#
# What it proves: every SGEMM the reference testers make (both CBLAS layouts, the Fortran
# interface, the error-exit tests with the testers' own cblas_xerbla/xerbla_ handlers) goes
# through tsgemm and gets the reference answer. The testers' exit status means nothing, so we
# read their reports (docs/TESTING.md, "conformance").
#
# Usage: run_testers.sh LIB MODE [WHICH]
#   LIB    path of libtsgemm.so; it is put in LD_PRELOAD of the testers
#   MODE   default  default dispatch; the testers use n <= 9, so every call runs on the CPU BLAS
#          gpu      TSGEMM_MODE=gpu; additionally requires "G gpu" with G > 0 and "0 gpu failures"
#                   in the summary. Needs a working GPU: the caller (gpu tier) probes first and
#                   skips with 77 without one — run here without a GPU this mode fails.
#          tiny     default dispatch at TSGEMM_LOG=1, so that tiny calls take the inline path of
#                   shim/tsg_entry.c (TSGEMM_LOG >= 2 closes it); the counters come from
#                   $TSGEMM_STATS_AT_EXIT (tests/conformance/stats_at_exit.c), preloaded after
#                   LIB, instead of tsgemm's exit summary.
#   WHICH  cblas   xscblat3 < sin3       (report on stdout)
#          f77     xblat3s  < sblat3.in  (report in ./sblat3.out)
#          all     both (the default)
# Environment:
#   TSGEMM_NETLIB_DIR   folder of netlib's libblas.so.3, the testers and their input files
#                       (default /usr/lib/<multiarch>/blas). It goes FIRST in LD_LIBRARY_PATH: the
#                       testers need netlib's libblas.so.3 (it defines RowMajorStrg), whatever the
#                       system's libblas.so.3 alternative points to.
#   TSGEMM_TESTERS_OUT  keep all outputs under this folder (created; e.g. $OUT/testers on the GPU
#                       machine). Default: a mktemp folder, removed when every check passed and
#                       kept (its path printed) when one failed.
# Checks, per tester (run in its own folder, with TSGEMM_LOG=2):
#   - the exact sgemm lines: "cblas_sgemm  PASSED THE TESTS OF ERROR-EXITS",
#     "cblas_sgemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS ( N CALLS)",
#     "cblas_sgemm  PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS ( N CALLS)" (the tester's own
#     spacing), "SGEMM  PASSED THE TESTS OF ERROR-EXITS", "SGEMM  PASSED THE COMPUTATIONAL TESTS
#     ( N CALLS)", and "END OF TESTS" (a crashed tester never prints it);
#   - no line with FAIL, NOT DETECTED or ***** in any output (all routines, not only sgemm);
#   - interposition: one "tsgemm: summary:" line on stderr with calls > 0 and illegal > 0 (the
#     error-exit tests reach us), and calls - illegal equal to the sgemm CALLS the tester counted
#     (every call arrived, once); no "tsgemm: parameter" line (the testers' handlers are called,
#     tsgemm must not print as well);
#   - MODE gpu: gpu > 0 and 0 gpu failures.
# Exit status: 0 all passed; 1 a check failed (offending lines and output paths printed);
# 2 usage or setup error (missing library, tester or input file).

set -u

die_setup() { echo "run_testers: $*" >&2; exit 2; }

[ $# -ge 2 ] && [ $# -le 3 ] || die_setup "usage: run_testers.sh LIB default|gpu|tiny [cblas|f77|all]"
LIB=$1
MODE=$2
WHICH=${3:-all}
case $MODE in default|gpu|tiny) ;; *) die_setup "MODE must be default, gpu or tiny, not '$MODE'" ;; esac
PRELOAD=$LIB
LOG=2
if [ "$MODE" = tiny ]; then
    [ -f "${TSGEMM_STATS_AT_EXIT:-}" ] || die_setup "MODE tiny needs TSGEMM_STATS_AT_EXIT (libtsg_stats_at_exit.so)"
    PRELOAD="$LIB $TSGEMM_STATS_AT_EXIT"
    LOG=1
fi
case $WHICH in cblas|f77|all) ;; *) die_setup "WHICH must be cblas, f77 or all, not '$WHICH'" ;; esac
[ -f "$LIB" ] || die_setup "library $LIB not found"
case $LIB in /*) ;; *) LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB") ;; esac

if [ -z "${TSGEMM_NETLIB_DIR:-}" ]; then
    MULTIARCH=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
    TSGEMM_NETLIB_DIR=/usr/lib/$MULTIARCH/blas
fi
NETLIB=$TSGEMM_NETLIB_DIR
for f in libblas.so.3 xscblat3 sin3 xblat3s sblat3.in; do
    [ -e "$NETLIB/$f" ] || die_setup "$NETLIB/$f missing (Debian: apt-get install libblas-test libblas3)"
done

if [ -n "${TSGEMM_TESTERS_OUT:-}" ]; then
    mkdir -p "$TSGEMM_TESTERS_OUT" || die_setup "cannot create $TSGEMM_TESTERS_OUT"
    TOP=$(cd "$TSGEMM_TESTERS_OUT" && pwd)
    KEEP=1
else
    TOP=$(mktemp -d "${TMPDIR:-/tmp}/tsgemm-testers.XXXXXX") || die_setup "mktemp failed"
    KEEP=0
fi

FAILED=0
fail() {
    echo "run_testers: FAIL: $*" >&2
    FAILED=1
}

# require_line FILE TEXT: a line that is exactly TEXT, with the tester's leading blank and an
# optional "( N CALLS)" count after it.
require_line() {
    if ! grep -Eq "^ *$2( \\( *[0-9]+ CALLS\\))? *\$" "$1"; then
        fail "$name: $(basename "$1") lacks the line '$2'"
    fi
}

# sum of the N in "( N CALLS)" over the lines that start with TEXT
calls_counted() {
    grep -E "^ *$2" "$1" | sed -n 's/.*( *\([0-9][0-9]*\) CALLS).*/\1/p' |
        awk '{ s += $1 } END { print s + 0 }'
}

# run_one NAME TESTER INPUT REPORT: runs TESTER < INPUT in $TOP/NAME; REPORT is the file holding
# its report relative to that folder ("stdout" for the CBLAS tester).
run_one() {
    name=$1
    tester=$2
    input=$3
    report=$4
    dir=$TOP/$name
    rm -rf "$dir"
    mkdir -p "$dir" || die_setup "cannot create $dir"
    cp "$NETLIB/$input" "$dir/$input" # a copy next to the outputs, for whoever reads them later
    modeenv="-u TSGEMM_MODE"
    [ "$MODE" = gpu ] && modeenv="TSGEMM_MODE=gpu"
    # shellcheck disable=SC2086 # modeenv is two words on purpose
    (cd "$dir" && env $modeenv TSGEMM_LOG=$LOG LD_PRELOAD="$PRELOAD" \
        LD_LIBRARY_PATH="$NETLIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "$NETLIB/$tester" <"$input" >stdout 2>stderr)
    rc=$?
    echo "$rc" >"$dir/exit_status" # recorded, not judged: the testers' exit status means nothing
    before=$FAILED

    rep=$dir/$report
    if [ ! -s "$rep" ]; then
        fail "$name: no report $rep (exit status $rc)"
    else
        if [ "$name" = xscblat3 ]; then
            require_line "$rep" "cblas_sgemm  PASSED THE TESTS OF ERROR-EXITS"
            require_line "$rep" "cblas_sgemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS"
            require_line "$rep" "cblas_sgemm  PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS"
            expected_calls=$(calls_counted "$rep" "cblas_sgemm  PASSED THE")
        else
            require_line "$rep" "SGEMM  PASSED THE TESTS OF ERROR-EXITS"
            require_line "$rep" "SGEMM  PASSED THE COMPUTATIONAL TESTS"
            expected_calls=$(calls_counted "$rep" "SGEMM  PASSED THE COMPUTATIONAL")
        fi
        require_line "$rep" "END OF TESTS"
    fi

    # Any failure of any routine, in any output the tester left (report, stdout, stderr, snapshot).
    for f in "$dir"/*; do
        case $f in */"$input"|*/exit_status|*/summary) continue ;; esac
        bad=$(grep -n -E 'FAIL|NOT DETECTED|\*\*\*\*\*' "$f")
        if [ -n "$bad" ]; then
            fail "$name: $(basename "$f") has failure lines:"
            echo "$bad" | head -40 | sed 's/^/    /' >&2
        fi
    done

    # Interposition, from the exit summary (tiny mode: from stats_at_exit's line, same fields).
    if [ "$MODE" = tiny ]; then
        sed -E -n 's/^stats_at_exit: ([0-9]+) calls: ([0-9]+) gpu, ([0-9]+) cpu, ([0-9]+) gpu failures, ([0-9]+) quick, ([0-9]+) illegal$/tsgemm: summary: \1 calls: \2 gpu (), \3 cpu (), \4 gpu failures redone on cpu, \5 quick, \6 illegal/p' \
            "$dir/stderr" >"$dir/summary"
        grep -q '^tsgemm: summary:' "$dir/stderr" &&
            fail "$name: tsgemm printed an exit summary at TSGEMM_LOG=1"
    else
        grep '^tsgemm: summary:' "$dir/stderr" >"$dir/summary"
    fi
    nsum=$(grep -c '^tsgemm: summary:' "$dir/summary")
    if [ "$nsum" -ne 1 ]; then
        fail "$name: expected one 'tsgemm: summary:' line on stderr, found $nsum (was $LIB preloaded?)"
    else
        line=$(grep '^tsgemm: summary:' "$dir/summary")
        # tsgemm: summary: N calls: G gpu (...), C cpu (...), F gpu failures redone on cpu,
        #                  Q quick, I illegal
        set -- $(echo "$line" | sed -E -n 's/^tsgemm: summary: ([0-9]+) calls: ([0-9]+) gpu \(.*\), ([0-9]+) cpu \(.*\), ([0-9]+) gpu failures redone on cpu, ([0-9]+) quick, ([0-9]+) illegal.*$/\1 \2 \3 \4 \5 \6/p')
        if [ $# -ne 6 ]; then
            fail "$name: cannot parse the summary line: $line"
        else
            calls=$1 gpu=$2 cpu=$3 gfail=$4 quick=$5 illegal=$6
            echo "run_testers: $name: $calls calls ($gpu gpu, $cpu cpu, $gfail gpu failures, $quick quick, $illegal illegal); tester counted ${expected_calls:-?} sgemm calls"
            [ "$calls" -gt 0 ] || fail "$name: no call reached tsgemm: $line"
            [ "$illegal" -gt 0 ] || fail "$name: the error-exit tests did not reach tsgemm: $line"
            if [ -n "${expected_calls:-}" ] && [ "$((calls - illegal))" -ne "$expected_calls" ]; then
                fail "$name: tsgemm saw $((calls - illegal)) legal calls, the tester made $expected_calls: $line"
            fi
            if [ "$MODE" = gpu ]; then
                [ "$gpu" -gt 0 ] || fail "$name: TSGEMM_MODE=gpu but no call ran on the GPU: $line"
                [ "$gfail" -eq 0 ] || fail "$name: $gfail GPU calls failed and were redone on the CPU: $line"
            fi
        fi
    fi
    bad=$(grep -n '^tsgemm: parameter' "$dir/stderr")
    if [ -n "$bad" ]; then
        fail "$name: tsgemm printed illegal-argument lines although the tester has its own handler:"
        echo "$bad" | head -10 | sed 's/^/    /' >&2
    fi

    if [ "$FAILED" -ne "$before" ]; then
        echo "run_testers: $name: outputs kept in $dir (report: $rep, stderr: $dir/stderr, exit status $rc)" >&2
        echo "---- $dir/stderr (last 20 lines) ----" >&2
        tail -20 "$dir/stderr" >&2
    else
        echo "run_testers: $name: PASSED ($MODE mode)"
    fi
}

[ "$WHICH" = f77 ] || run_one xscblat3 xscblat3 sin3 stdout
[ "$WHICH" = cblas ] || run_one xblat3s xblat3s sblat3.in sblat3.out

if [ "$FAILED" -ne 0 ]; then
    echo "run_testers: FAILED; outputs kept under $TOP" >&2
    exit 1
fi
[ "$KEEP" -eq 1 ] || rm -rf "$TOP"
exit 0
