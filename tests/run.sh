#!/usr/bin/env bash
# tests/run.sh BUILD_DIR [FILTER]: run every unit test binary and every
# integration script, print their TAP lines, and end with one summary line
# "N passed, M failed[, K skipped]". Exit 1 if anything failed.
#
# A unit binary or script prints "ok - ..." / "not ok - ..." lines; an "ok"
# line with TAP's SKIP directive ("ok - NAME # SKIP reason", any case) is a
# check that did not run, counted as skipped, not passed. One that exits
# non-zero without a "not ok" line (a crash, a timeout) counts as one
# failure; exit 77 from a script means the whole script is skipped (one
# skip). Each program's stderr is kept in BUILD_DIR/test-logs/ and its tail
# is shown when it fails.
set -u
B=${1:?usage: run.sh BUILD_DIR [FILTER]}
FILTER=${2:-}
TOP=$(cd "$(dirname "$0")/.." && pwd)
export B TOP BIN="$B/bin" TESTS_BIN="$B/tests"
LOGS="$B/test-logs"
rm -rf "$LOGS" && mkdir -p "$LOGS"
# Bound every test program: a hang is a failure, never a stuck CI.
TEST_TIMEOUT=${TEST_TIMEOUT:-900}

passed=0 failed=0 skipped=0

run_one() {  # run_one NAME CMD...
  local name=$1; shift
  local log="$LOGS/${name//\//_}"
  local out rc nok nfail nskip
  out=$(timeout -k 10 "$TEST_TIMEOUT" "$@" 2>"$log.err")
  rc=$?
  printf '%s\n' "$out" | grep -E '^(ok|not ok) ' || true
  nok=$(printf '%s\n' "$out" | grep -c '^ok ')
  nskip=$(printf '%s\n' "$out" | grep -ciE '^ok .*#[[:space:]]*skip')
  nfail=$(printf '%s\n' "$out" | grep -c '^not ok ')
  if [ "$rc" = 77 ]; then
    echo "skip - $name: $(tail -n 1 "$log.err")"
    skipped=$((skipped + 1))
    return
  fi
  if [ "$rc" != 0 ] && [ "$nfail" = 0 ]; then
    echo "not ok - $name: exited with status $rc"
    nfail=1
  fi
  passed=$((passed + nok - nskip))
  skipped=$((skipped + nskip))
  failed=$((failed + nfail))
  if [ "$nfail" != 0 ]; then
    echo "--- stderr of $name (last 40 lines; full log $log.err)"
    tail -n 40 "$log.err"
    echo "---"
  fi
}

for t in "$B"/tests/unit/*/*_test "$B"/tests/unit/*/*/*_test; do
  [ -x "$t" ] || continue
  name=${t#"$B"/tests/}
  case "$name" in *"$FILTER"*) ;; *) continue ;; esac
  run_one "$name" "$t"
done
for t in "$TOP"/tests/integration/*.sh; do
  [ -f "$t" ] || continue
  name=integration/$(basename "$t" .sh)
  case "$name" in *"$FILTER"*) ;; *) continue ;; esac
  run_one "$name" bash "$t"
done

if [ "$skipped" != 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
