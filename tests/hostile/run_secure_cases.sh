#!/usr/bin/env bash
# run_secure_cases.sh CLIENT LIB EVIL — a privileged (AT_SECURE) process that uses tsgemm reads
# none of the caller's knobs (issue 34, docs/TESTING.md fault class 21): a copy of CLIENT installed
# setuid root, run as an unprivileged user (nobody) whose environment names an attacker's library
# in TSGEMM_CPU_BLAS and the attacker's folders in TSGEMM_CACHE_DIR / HOME / XDG_CACHE_HOME. It
# must compute C right, never run the attacker's library (its constructor would leave a marker),
# write nothing into those folders and print no TSGEMM_LOG lines. The same runs without setuid
# show each attack is live in an ordinary process, so the privileged runs' silence is the rule's,
# not the test's. Needs root (to install the setuid copy) and setpriv; 77 (skipped) otherwise, or
# when the kernel does not honour the setuid bit here (nosuid mount, no_new_privs).
set -euo pipefail
CLIENT=$1 LIB=$2 EVIL=$3
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root to install a setuid-root copy of the client"
command -v setpriv > /dev/null || skip "needs setpriv (util-linux)"
NOBODY=65534
T=$(mktemp -d /tmp/tsg-secure-XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
install -m 0644 "$LIB" "$T/libtsgemm.so"
install -m 0755 "$CLIENT" "$T/plain_client"
install -m 0755 "$CLIENT" "$T/secure_client"
chmod 4755 "$T/secure_client" # owned by root (we are root): setuid root
U=$T/user                      # the attacker's own folder
install -d -m 0755 -o $NOBODY -g $NOBODY "$U"
install -m 0644 -o $NOBODY -g $NOBODY "$EVIL" "$U/evil.so"
FAILS=0
fail() { echo "FAIL: $CASE: $*"; FAILS=$((FAILS + 1)); }

# as_nobody CLIENT MARK SIZE [ENV...]: one call as nobody with the attacker's environment
as_nobody() {
  local client=$1 mark=$2 size=$3
  shift 3
  set +e
  OUT=$(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
        env -i PATH=/usr/bin:/bin EVIL_MARK="$U/$mark" TSGEMM_CPU_BLAS="$U/evil.so" \
        TSGEMM_CACHE_DIR="$U/cache-$mark" HOME="$U/home-$mark" XDG_CACHE_HOME="$U/xdg-$mark" \
        TSGEMM_LOG=3 "$@" timeout 60 "$client" "$T/libtsgemm.so" "$size" "$size" "$size" 2>&1)
  RC=$?
  set -e
}

# 1. controls, no setuid: each knob is live in an ordinary process
CASE=plain-cpu-blas
as_nobody "$T/plain_client" mark-plain 64 TSGEMM_MODE=cpu
[ "$RC" = 0 ] && grep -qx ok <<<"$OUT" || fail "rc $RC: $OUT"
[ -f "$U/mark-plain" ] || fail "TSGEMM_CPU_BLAS did not load the named library in an ordinary process (the privileged case below could not fail): $OUT"
grep -q '^tsgemm: ' <<<"$OUT" || fail "TSGEMM_LOG=3 printed nothing in an ordinary process"
CASE=plain-cache
as_nobody "$T/plain_client" mark-cache 512
[ "$RC" = 0 ] && grep -qx ok <<<"$OUT" || fail "rc $RC: $OUT"
[ -d "$U/cache-mark-cache" ] || fail "TSGEMM_CACHE_DIR was not used in an ordinary process: $OUT"

# 2. the same as a setuid-root program
CASE=secure-cpu-blas
as_nobody "$T/secure_client" mark-secure 64 TSGEMM_MODE=cpu
if ! grep -q '^secure=1 euid=0 ' <<<"$OUT"; then
  skip "the setuid bit is not honoured here (nosuid mount or no_new_privs): $(head -n 1 <<<"$OUT")"
fi
[ "$RC" = 0 ] && grep -qx ok <<<"$OUT" || fail "rc $RC: $OUT"
[ ! -e "$U/mark-secure" ] || fail "the attacker's library ran as root: $(cat "$U/mark-secure")"
grep -q 'privileged process (AT_SECURE)' <<<"$OUT" || fail "tsgemm_kernel_info does not say why the GPU is off: $OUT"
grep -q '^cpu-blas=.*evil' <<<"$OUT" && fail "the CPU BLAS is the attacker's: $OUT"
grep -q '^tsgemm: ' <<<"$OUT" && fail "TSGEMM_LOG was read: $OUT"
CASE=secure-auto
as_nobody "$T/secure_client" mark-secure-auto 512
[ "$RC" = 0 ] && grep -qx ok <<<"$OUT" || fail "rc $RC: $OUT"
grep -q ' path=cpu$' <<<"$OUT" || fail "a privileged auto-mode call did not stay on the CPU: $OUT"
[ ! -e "$U/mark-secure-auto" ] || fail "the attacker's library ran as root"
for d in cache home xdg; do
  for m in mark-secure mark-secure-auto; do
    [ ! -e "$U/$d-$m" ] || fail "$d folder of the caller's choosing was created as root: $(ls -la "$U/$d-$m")"
  done
done
grep -q '^tsgemm: ' <<<"$OUT" && fail "TSGEMM_LOG was read: $OUT"

echo "hostile secure: $FAILS failed"
[ "$FAILS" = 0 ]
