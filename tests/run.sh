#!/usr/bin/env bash
# tests/run.sh [--long] BUILD_DIR [FILTER]: run every unit test binary and
# every integration script (with --long, the soak scripts of
# tests/integration/long/ instead), print their TAP lines, and end with
# one summary line "N passed, M failed[, K skipped]". Exit 1 if anything
# failed.
#
# A unit binary or script prints "ok - ..." / "not ok - ..." lines; an "ok"
# line with TAP's SKIP directive ("ok - NAME # SKIP reason", any case) is a
# check that did not run, counted as skipped, not passed. One that exits
# non-zero without a "not ok" line (a crash, a timeout) counts as one
# failure; exit 77 from a script means the whole script is skipped (one
# skip). Each program's stdout and stderr are kept, once the run ends, in
# BUILD_DIR/test-logs/ (test-logs-long/ with --long), and the tail of its
# stderr is shown when it fails; until then they are in a directory of the
# run's own, so that two runs on one build directory count their own.
#
# The programs run in parallel, TEST_JOBS at once (default: twice the
# cores, as most of a script's time is spent waiting on its servers,
# leases and deadlines), the longest first; each program's lines are
# printed together when it ends, followed by its wall time. Each test
# starts its own servers (on ports the kernel picks, Redis on a free one
# below the kernel's range) in a directory of its own; what tests share
# (the npm packages of the build tree) they take one at a time.
set -u
LONG=0
if [ "${1:-}" = --long ]; then
  LONG=1
  shift
fi
B=${1:?usage: run.sh [--long] BUILD_DIR [FILTER]}
FILTER=${2:-}
TOP=$(cd "$(dirname "$0")/.." && pwd)
export B TOP BIN="$B/bin" TESTS_BIN="$B/tests"
JOBS=${TEST_JOBS:-$((2 * $(nproc 2>/dev/null || echo 2)))}
case "$JOBS" in
'' | *[!0-9]* | 0*)
  echo "run.sh: TEST_JOBS must be a count of 1 or more, not '$JOBS'" >&2
  exit 2
  ;;
esac
LOGS="$B/test-logs"
[ "$LONG" = 1 ] && LOGS="$B/test-logs-long"
RUN=$(mktemp -d "$B/.test-run.XXXXXX") || exit 2
# Bound every test program: a hang is a failure, never a stuck CI.
TEST_TIMEOUT=${TEST_TIMEOUT:-900}

# The scripts that take longest (each over 20 s here), started first so
# that the run ends soon after the longest does.
SLOW="integration/cluster integration/cluster_outage integration/cluster_robots
integration/cluster_bind integration/headofline integration/crawler_args
integration/crawler_options integration/politeness integration/hostile
integration/archive integration/memory integration/realweb"

passed=0 failed=0 skipped=0

# start NAME PATH: run the test program at PATH (a script if it ends in
# .sh) in the background, stdin empty, its stdout to LOG.out, stderr to
# LOG.err, then its exit status and wall seconds to LOG.rc. `timeout`, the
# background subshell's child, runs it in a process group of its own.
start() {
  local name=$1 path=$2 log="$RUN/${1//\//_}"
  local cmd=("$path")
  case "$path" in *.sh) cmd=(bash "$path") ;; esac
  (
    # The run's signals are stop's to pass on: a Ctrl-C reaches this
    # subshell too, and its death would leave the test running unseen.
    trap '' INT TERM HUP
    s=$SECONDS
    timeout -k 10 "$TEST_TIMEOUT" "${cmd[@]}" >"$log.out" 2>"$log.err"
    echo "$? $((SECONDS - s))" >"$log.rc.tmp" && mv "$log.rc.tmp" "$log.rc"
  ) </dev/null &
}

# keep_logs: the run's files become LOGS (if another run's are there at
# that moment, they stay in RUN, and the run says so).
keep_logs() {
  rm -rf "$LOGS"
  mv -T "$RUN" "$LOGS" 2>/dev/null ||
    echo "run.sh: this run's logs are in $RUN" >&2
}

# stop: on SIGINT, SIGTERM or SIGHUP, the tests still running get SIGTERM
# through their `timeout` (each script's EXIT trap then stops its servers
# and workers); the run ends with 130.
stop() {
  trap - INT TERM HUP
  local sp
  for sp in $(jobs -p); do
    pkill -TERM -P "$sp" 2>/dev/null
  done
  wait
  keep_logs
  echo "run.sh: interrupted" >&2
  exit 130
}
trap stop INT TERM HUP

# report NAME: print what NAME's program said and count it.
report() {
  local name=$1 log="$RUN/${1//\//_}" kept="$LOGS/${1//\//_}"
  local rc secs nok nfail nskip
  read -r rc secs <"$log.rc"
  grep -E '^(ok|not ok) ' "$log.out"
  nok=$(grep -c '^ok ' "$log.out")
  nskip=$(grep -ciE '^ok .*#[[:space:]]*skip' "$log.out")
  nfail=$(grep -c '^not ok ' "$log.out")
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
  echo "# $name: ${secs} s"
  if [ "$nfail" != 0 ]; then
    echo "--- stderr of $name (last 40 lines; full log $kept.err)"
    tail -n 40 "$log.err"
    echo "---"
  fi
}

# The programs to run, as "NAME<TAB>PATH", the slow ones first.
list() {
  local t
  if [ "$LONG" = 1 ]; then
    for t in "$TOP"/tests/integration/long/*.sh; do
      [ -f "$t" ] && printf 'integration/long/%s\t%s\n' \
        "$(basename "$t" .sh)" "$t"
    done
    return
  fi
  for t in "$B"/tests/unit/*/*_test "$B"/tests/unit/*/*/*_test; do
    [ -x "$t" ] && printf '%s\t%s\n' "${t#"$B"/tests/}" "$t"
  done
  for t in "$TOP"/tests/integration/*.sh; do
    [ -f "$t" ] && printf 'integration/%s\t%s\n' "$(basename "$t" .sh)" "$t"
  done
}
# slow_first: list's lines, those named in SLOW first, in SLOW's order.
slow_first() {
  list | awk -F'\t' -v slow="$SLOW" '
    BEGIN { n = split(slow, order, /[ \n]+/)
            for (i = 1; i <= n; i++) rank[order[i]] = i }
    $1 in rank { first[rank[$1]] = $0; next }
    { rest[++r] = $0 }
    END { for (i = 1; i <= n; i++) if (i in first) print first[i]
          for (i = 1; i <= r; i++) print rest[i] }'
}

pending=()
# reap: report every pending program that has ended.
reap() {
  local keep=() n
  for n in "${pending[@]}"; do
    if [ -f "$RUN/${n//\//_}.rc" ]; then
      report "$n"
    else
      keep+=("$n")
    fi
  done
  pending=("${keep[@]+"${keep[@]}"}")
}

while IFS=$'\t' read -r name path; do
  [ -n "$name" ] || continue
  case "$name" in *"$FILTER"*) ;; *) continue ;; esac
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
    wait -n 2>/dev/null
    reap
  done
  start "$name" "$path"
  pending+=("$name")
done < <(slow_first)
while [ "${#pending[@]}" -gt 0 ]; do
  wait -n 2>/dev/null || sleep 0.2
  reap
done

trap - INT TERM HUP
keep_logs
if [ "$skipped" != 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
