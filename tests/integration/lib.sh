# tests/integration/lib.sh: sourced by every integration script.
# shellcheck shell=bash disable=SC2034  # variables set here are for callers
#
#   . "$(dirname "$0")/lib.sh"
#
# Environment (set by tests/run.sh; defaults let a script run by hand):
#   TOP repo root, B build dir, BIN=$B/bin, TESTS_BIN=$B/tests.
# Also set here: SITES (tests/fixtures/sites), TESTSERVER (the server binary).
#
# TAP output. Results go to stdout as "ok - SCRIPT: NAME" or
# "not ok - SCRIPT: NAME"; everything else goes to stderr.
#   ok NAME / not_ok NAME       record a result
#   skip NAME REASON            record a check that could not run here:
#                               "ok - SCRIPT: NAME # SKIP REASON", which
#                               tests/run.sh counts as skipped, not passed
#   check NAME CMD [ARGS...]    ok if CMD exits 0 (its stdout goes to stderr)
#   check_eq NAME GOT WANT      ok if the two strings are equal
#   check_same NAME FILE1 FILE2 ok if the files are equal (diff -u on stderr)
#   finish                      exit 1 if any check failed, else 0; call last
#   skip_all REASON             exit 77: the runner counts the script as one
#                               skip
#   require_cmd CMD...          skip_all unless every CMD is installed
#   require_file FILE...        skip_all unless every FILE exists (not built)
#
# TSE_TRANSFERS=threads (or events, the default) in the environment is
# the crawler's default --transfers (crawler(1)): any script runs with
# that driver.
#
# Temporary directories.
#   mktemp_dir [VAR]            make a fresh directory, put its path in VAR
#                               (default TEST_DIR). Call it directly, never in
#                               $(...): the cleanup list lives in this shell.
#                               Removed on exit; kept (and named on stderr)
#                               when a check failed, or when KEEP_TMP=1.
#
# The loopback test server (tests/server/testserver.c documents the rules).
#   server_start SITE_DIR [TESTSERVER ARGS...]
#       Start the server in the background on 127.0.0.1 (or, if the args
#       contain --host, on those hosts only) with an OS-chosen port; wait up
#       to 10 s for its port file. Sets PORT, SERVER_PID, SERVER_LOG (the
#       request log), SERVER_ERR (its stderr) and BASE_URL
#       (http://127.0.0.1:PORT). Returns 1, after showing the server's
#       stderr, if it did not come up. Pass --rules FILE for rules and
#       --max-seconds N to change the safety bound (default
#       $SERVER_MAX_SECONDS, 600). One server at a time per script.
#   server_stop         SIGTERM, wait up to 5 s, then SIGKILL; idempotent.
#                       Sets SERVER_STATUS to the server's exit status (0
#                       for a clean stop; 23 if LeakSanitizer found a leak).
#                       Runs from the exit trap too, so nothing outlives the
#                       script, even after a failure or a signal.
#
# A Redis server of the script's own (Debian's redis-server, never the
# system's service), for --cluster:
#   redis_start     on a free loopback port, in a temporary directory, AOF
#                   on (appendfsync everysec); sets REDIS_PORT, REDIS_PID,
#                   REDIS_URL (redis://127.0.0.1:PORT). skip_all if
#                   redis-server is not installed.
#   redis_stop      SIGTERM (it writes its AOF), wait; idempotent; also run
#                   on exit
#   redis_kill      SIGKILL
#   redis_restart   start it again on the same port and directory: it
#                   comes back with what its AOF holds
#   redis_wipe      (stopped) remove what it persisted: it comes back empty
#
# Many slow hosts (bench/many-site.sh's site on bench/delayserver, one
# port a host of a loopback address of the script's own):
#   delay_site_start HOSTS PAGES DELAY_MS
#                   serve HOSTS hosts of PAGES pages each (and an index
#                   and robots.txt) from $TEST_DIR/site, every answer
#                   DELAY_MS late, on ports below the ephemeral range
#                   (another range if a bind fails, 5 tries); sets ADDR,
#                   P0 (the first port), SEED (its index), DS_PID, DS_LOG
#                   (START END ADDR:PORT PATH STATUS a line, empty when
#                   it returns). Returns 1 if it did not come up.
#   delay_site_stop idempotent; also run on exit
#   max_inflight LOG
#                   the most requests of DS_LOG-style LOG in flight at
#                   once (the most [START, END] intervals that overlap)
#
# A mount namespace (root and unshare(1), else the script is skipped):
#   require_mount_ns
#   with_file_over TARGET FILE CMD [ARGS...]
#                   run CMD in a mount namespace of its own where FILE is
#                   bind-mounted over TARGET (an /etc/hosts, a
#                   resolv.conf): nothing outside the command sees it
#
# Politeness from the log:
#   window_ok LOG ADDR RATE BURST   in every window [t_i, t_j] of ADDR's
#                   requests in LOG, at most BURST + RATE * (t_j - t_i +
#                   SLACK) of them (SLACK: 0.1 s, 0.25 s under a sanitizer)
#
# The request log: one line per request, tab-separated:
#   MONOTONIC_SECONDS  ADDRESS:PORT  METHOD  TARGET  STATUS|-  USER_AGENT|-
#   CONNECTION_NUMBER
# TARGET is the path and query as sent; STATUS is "-" for an unanswered
# request; equal CONNECTION_NUMBERs mean one kept-alive connection.
#   server_log              print the log
#   log_targets [ADDR]      the TARGET of every GET, one a line, in order
#                           (ADDR, e.g. 127.0.0.2, keeps that host's only)
#   log_count TARGET [ADDR] how many GETs asked for exactly TARGET
#   log_wait_lines N [SEC]  wait (default 5 s) until the log has N lines;
#                           the server logs before it answers, so this is
#                           rarely needed

# Sourcing turns on set -u (unset variables are errors) in the script.
set -u

: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${B:=$TOP/build}"
: "${BIN:=$B/bin}"
: "${TESTS_BIN:=$B/tests}"
SITES=$TOP/tests/fixtures/sites
TESTSERVER=${TESTSERVER:-$TESTS_BIN/testserver}
: "${SERVER_MAX_SECONDS:=600}"

TAP_NAME=${TAP_NAME:-$(basename "$0" .sh)}
TAP_PASSED=0
TAP_FAILED=0
TAP_SKIPPED=0
LIB_TMPDIRS=()
SERVER_PID=
SERVER_STATUS=
REDIS_PID=
DS_PID=

# ------------------------------------------------------------------ TAP

ok() {
  echo "ok - $TAP_NAME: $*"
  TAP_PASSED=$((TAP_PASSED + 1))
}

not_ok() {
  echo "not ok - $TAP_NAME: $*"
  TAP_FAILED=$((TAP_FAILED + 1))
}

skip() {  # skip NAME REASON
  echo "ok - $TAP_NAME: $1 # SKIP $2"
  TAP_SKIPPED=$((TAP_SKIPPED + 1))
}

check() {  # check NAME CMD [ARGS...]
  local name=$1
  shift
  if "$@" >&2; then
    ok "$name"
  else
    echo "# failed: $*" >&2
    not_ok "$name"
  fi
}

check_eq() {  # check_eq NAME GOT WANT
  if [ "$2" = "$3" ]; then
    ok "$1"
  else
    printf '# %s: got  [%s]\n# %s: want [%s]\n' "$1" "$2" "$1" "$3" >&2
    # The values on the TAP line too (a CI log may show only that line).
    not_ok "$1 (got [$(printf '%s' "$2" | head -c 200 | tr '\n' ' ')]," \
      "want [$(printf '%s' "$3" | head -c 200 | tr '\n' ' ')])"
  fi
}

check_same() {  # check_same NAME FILE1 FILE2
  if diff -u "$2" "$3" >&2; then
    ok "$1"
  else
    not_ok "$1"
  fi
}

finish() {
  echo "# $TAP_NAME: $TAP_PASSED passed, $TAP_FAILED failed," \
    "$TAP_SKIPPED skipped" >&2
  [ "$TAP_FAILED" = 0 ] && exit 0
  exit 1
}

skip_all() {
  echo "skip: $*" >&2
  exit 77
}

require_cmd() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 || skip_all "'$c' is not installed"
  done
}

require_file() {
  local f
  for f in "$@"; do
    [ -e "$f" ] || skip_all "'$f' is missing (not built?)"
  done
}

# -------------------------------------------------------- temp dirs

mktemp_dir() {  # mktemp_dir [VAR]
  # Locals are prefixed: printf -v must not land on a local of ours when
  # the caller's variable has the same name.
  local lib_var=${1:-TEST_DIR} lib_dir
  lib_dir=$(mktemp -d "${TMPDIR:-/tmp}/tse-$TAP_NAME.XXXXXX") || {
    echo "cannot create a temporary directory" >&2
    exit 1
  }
  LIB_TMPDIRS+=("$lib_dir")
  printf -v "$lib_var" '%s' "$lib_dir"
}

lib_cleanup() {
  local rc=$? d p
  trap - EXIT INT TERM
  # Workers still running in the background (the script was stopped, or
  # failed first): a job is a `timeout` leading a process group of its
  # own with its program, or a subshell whose children are; each group
  # goes. (A worker started inside $(...) is no job of this shell: its
  # own timeout bounds it.)
  for p in $(jobs -p); do
    for c in $(pgrep -P "$p"); do
      kill -KILL -- "-$c" 2>/dev/null
    done
    kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
  done
  server_stop
  redis_stop
  delay_site_stop
  for d in "${LIB_TMPDIRS[@]+"${LIB_TMPDIRS[@]}"}"; do
    if [ "$TAP_FAILED" != 0 ] || [ "${KEEP_TMP:-0}" = 1 ]; then
      echo "# kept $d for inspection" >&2
    else
      rm -rf "$d"
    fi
  done
  exit "$rc"
}

trap lib_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# npm_install SPEC...: npm packages (name@version) in $B/npm, the build
# tree's: installed unless they are there, looked for and installed by one
# test at a time: tests run in parallel, and an install that overlaps
# another removes the packages the other is adding (npm prunes what its
# package.json does not list yet). Status: 0 when they are there.
npm_install() {
  mkdir -p "$B/npm" || return 1
  (
    flock 9 || exit 1
    for spec in "$@"; do
      [ -f "$B/npm/node_modules/${spec%@*}/package.json" ] || {
        npm install --prefix "$B/npm" --no-audit --no-fund "$@" >&2
        exit
      }
    done
  ) 9>"$B/npm/.lock"
}

# ----------------------------------------------------------- server

# portless DIR OUT: a copy of page directory DIR (its pages, .crawler,
# .journal and .complete) with the test server's address 127.0.0.1:$PORT as
# 127.0.0.1:8000, as the golden directories write it (so that they replay
# as shipped: crawler --replay SAMPLE http://127.0.0.1:8000/index.html).
portless() {
  mkdir -p "$2"
  local f
  for f in "$1"/* "$1/.crawler" "$1/.journal" \
    "$1/.complete"; do
    [ -e "$f" ] || continue
    sed "s/127\.0\.0\.1:$PORT/127.0.0.1:8000/g" "$f" >"$2/$(basename "$f")"
  done
}

server_start() {  # server_start SITE_DIR [TESTSERVER ARGS...]
  local site=$1 dir portfile i hosts=(--host 127.0.0.1) a
  shift
  if [ -n "$SERVER_PID" ]; then
    echo "server_start: a server is already running" >&2
    return 1
  fi
  [ -x "$TESTSERVER" ] || { echo "no $TESTSERVER (not built?)" >&2; return 1; }
  for a in "$@"; do
    [ "$a" = --host ] && hosts=()
  done
  mktemp_dir dir
  portfile=$dir/port
  SERVER_LOG=$dir/server.log
  SERVER_ERR=$dir/server.err
  "$TESTSERVER" --root "$site" "${hosts[@]+"${hosts[@]}"}" \
    --portfile "$portfile" --log "$SERVER_LOG" \
    --max-seconds "$SERVER_MAX_SECONDS" "$@" 2>"$SERVER_ERR" &
  SERVER_PID=$!
  # Bounded: 100 x 0.1 s.
  for i in $(seq 100); do
    if [ -s "$portfile" ]; then
      PORT=$(cat "$portfile")
      BASE_URL=http://127.0.0.1:$PORT
      export PORT BASE_URL
      return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "server_start: the server did not come up; its stderr:" >&2
  cat "$SERVER_ERR" >&2
  server_stop
  return 1
}

# timed_child TPID: the pid of the program a `timeout` of pid TPID runs,
# once it has started (10 s at most); else TPID, said on stderr, and
# status 1. A signal for the program goes there: one sent to `timeout`
# is not the program's (SIGKILL and SIGSTOP stop `timeout` alone, the
# program runs on), and SIGINT is passed on to the program twice, to it
# and to its process group.
timed_child() {
  local c i
  for i in $(seq 200); do
    c=$(cat "/proc/$1/task/$1/children" 2>/dev/null ||
      pgrep -P "$1" 2>/dev/null)
    c=${c%%[[:space:]]*}
    if [ -n "$c" ]; then
      echo "$c"
      return 0
    fi
    kill -0 "$1" 2>/dev/null || break
    sleep 0.05
  done
  echo "timed_child: no program found under timeout $1; signalling it" >&2
  echo "$1"
  return 1
}

server_stop() {
  local pid=$SERVER_PID i
  [ -n "$pid" ] || return 0
  SERVER_PID=
  kill -TERM "$pid" 2>/dev/null
  for i in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "server_stop: pid $pid ignored SIGTERM; killing it" >&2
    kill -KILL "$pid" 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
  SERVER_STATUS=$?
  return 0
}

# -------------------------------------------------------------- log

server_log() {
  cat "$SERVER_LOG"
}

log_targets() {  # log_targets [ADDR]
  awk -F'\t' -v addr="${1:-}" \
    '$3 == "GET" && (addr == "" || index($2, addr ":") == 1) { print $4 }' \
    "$SERVER_LOG"
}

log_count() {  # log_count TARGET [ADDR]
  log_targets "${2:-}" | awk -v t="$1" '$0 == t { n++ } END { print n + 0 }'
}

log_wait_lines() {  # log_wait_lines N [SECONDS]
  local want=$1 tries=$(( ${2:-5} * 10 )) i
  for i in $(seq "$tries"); do
    [ "$(wc -l <"$SERVER_LOG")" -ge "$want" ] && return 0
    sleep 0.1
  done
  return 1
}

# --------------------------------------------------------------- redis

redis_up() {  # redis_up: our server answers on REDIS_PORT (5 s at most)
  local i pid
  for i in $(seq 50); do
    kill -0 "$REDIS_PID" 2>/dev/null || return 1
    pid=$(redis-cli -p "$REDIS_PORT" INFO server 2>/dev/null |
      awk -F: '/^process_id:/ { print $2 + 0 }')
    [ "$pid" = "$REDIS_PID" ] && return 0
    sleep 0.1
  done
  return 1
}

redis_spawn() {
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$REDIS_DIR" \
    --appendonly yes --appendfsync everysec --save '' --daemonize no \
    --logfile redis.log >/dev/null 2>&1 &
  REDIS_PID=$!
  redis_up
}

redis_start() {
  require_cmd redis-server redis-cli
  mktemp_dir REDIS_DIR
  local try low
  # A port picked at random below the kernel's ephemeral range: no
  # connection another test makes can take it while this Redis is down
  # for a restart. One in use makes redis-server exit at once, and
  # redis_up checks that the server answering is ours.
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null
  [ "${low:-0}" -gt 12000 ] 2>/dev/null || low=32768
  for try in $(seq 20); do
    REDIS_PORT=$((10000 + RANDOM % (low - 10000)))
    if redis_spawn; then
      REDIS_URL=redis://127.0.0.1:$REDIS_PORT
      return 0
    fi
    redis_stop
  done
  echo "redis_start: no redis-server came up" >&2
  return 1
}

redis_signal() {  # redis_signal SIG
  local pid=$REDIS_PID
  [ -n "$pid" ] || return 0
  REDIS_PID=
  kill "-$1" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

redis_stop() {
  redis_signal TERM
}

redis_kill() {
  redis_signal KILL
}

redis_restart() {
  redis_spawn
}

redis_wipe() {
  rm -rf "$REDIS_DIR/appendonlydir" "$REDIS_DIR/dump.rdb"
}

# cluster_site: the cluster tests' site, served: in $TEST_DIR/site a start
# page on the seed host linking the index of six hosts (127.0.0.2 to .7),
# each index linking 20 pages of its own host. Sets S, HOSTS, R (5
# requests a second a host), SEED and CRAWL (the options of every crawl
# of it).
cluster_site() {
  local h i host_args=()
  S=$TEST_DIR/site
  mkdir -p "$S"
  HOSTS=$(seq 2 7 | sed 's/^/127.0.0./')
  R=5
  for h in $HOSTS; do
    echo "<a href=\"http://$h:{{port}}/index.html\">$h</a>"
  done >"$S/start.html"
  for i in $(seq 1 20); do
    echo "<a href=\"p$i.html\">page $i</a>"
  done >"$S/index.html"
  for i in $(seq 1 20); do echo "page $i" >"$S/p$i.html"; done
  for h in $HOSTS; do host_args+=(--host "$h"); done
  server_start "$S" "${host_args[@]}" || return 1
  SEED=http://127.0.0.2:$PORT/start.html
  CRAWL=(--rate $R --burst 1)
  for h in $HOSTS; do CRAWL+=(--domain "$h"); done
}

# ----------------------------------------------------- many slow hosts

# delay_run PORT ARGS...: bench/delayserver ARGS... on $ADDR, its log
# $DS_LOG; 0 once ADDR:PORT answers (DS_PID), else 1, stopped, its
# stderr shown. The probes' lines are cleared from the log.
delay_run() {
  local port=$1 _
  shift
  "$TESTS_BIN/delayserver" "$@" --log "$DS_LOG" --lifetime 300 "$ADDR" \
    2>"$TEST_DIR/ds.err" &
  DS_PID=$!
  for _ in $(seq 100); do
    if ! kill -0 "$DS_PID" 2>/dev/null; then
      wait "$DS_PID" 2>/dev/null
      DS_PID=
      break
    fi
    if (exec 3<>"/dev/tcp/$ADDR/$port") 2>/dev/null; then
      : >"$DS_LOG" # the probe is no crawl's
      return 0
    fi
    sleep 0.1
  done
  delay_site_stop
  cat "$TEST_DIR/ds.err" >&2
  return 1
}

delay_site_start() {  # delay_site_start HOSTS PAGES DELAY_MS
  local h=$1 pages=$2 delay=$3 span try
  span=$(((h + 249) / 250 * 250))
  ADDR=127.$(($$ % 200 + 20)).$((RANDOM % 250 + 1)).1
  DS_LOG=$TEST_DIR/delay.log
  for try in 1 2 3 4 5; do
    P0=$((20000 + (RANDOM % (10000 / span)) * span))
    rm -rf "$TEST_DIR/site"
    sh "$TOP/bench/many-site.sh" "$TEST_DIR/site" "$ADDR" "$P0" "$h" "$pages"
    # The last port listens once all do (they are bound in order).
    if delay_run $((P0 + h - 1)) --port "$P0" --ports "$h" \
      --delay-ms "$delay" --root "$TEST_DIR/site"; then
      SEED=http://$ADDR:$P0/index.html
      return 0
    fi
  done
  return 1
}

delay_site_stop() {
  [ -n "$DS_PID" ] && kill "$DS_PID" 2>/dev/null && wait "$DS_PID" 2>/dev/null
  DS_PID=
}

max_inflight() {  # max_inflight LOG
  awk '{ print $1, 1; print $2, -1 }' "$1" | sort -k1,1g -k2,2n |
    awk '{ n += $2; if (n > m) m = n } END { print m + 0 }'
}

# --------------------------------------------------- mount namespace

require_mount_ns() {
  require_cmd unshare
  [ "$(id -u)" = 0 ] || skip_all "needs root (a mount namespace)"
  unshare -m true 2>/dev/null || skip_all "unshare -m is not permitted here"
}

with_file_over() {  # with_file_over TARGET FILE CMD [ARGS...]
  local target=$1 file=$2
  shift 2
  unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh \
    "$file" "$target" "$@"
}

# ----------------------------------------------------------- politeness

SLACK=0.1
if [ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ]; then
  SLACK=0.25
fi

# quiet_after SECONDS: no request in the SECONDS after any 503 (20 ms
# less: the log has microseconds, the pause counts from the crawler's
# reading of the answer, which comes after its arrival).
quiet_after() {
  awk -F'\t' -v s="$1" '
    BEGIN { n = 0 } # else the first line is filed under ""
    { t[n] = $1; st[n++] = $5 }
    END {
      bad = 0
      for (i = 0; i < n; i++)
        if (st[i] == 503)
          for (j = 0; j < n; j++)
            if (t[j] > t[i] && t[j] < t[i] + s - 0.02) {
              printf "# a request %.3f s after a 503\n", t[j] - t[i] \
                > "/dev/stderr"
              bad = 1
            }
      exit bad
    }' "$SERVER_LOG"
}

window_ok() {  # window_ok LOG ADDR RATE BURST (see the top of this file)
  awk -F'\t' -v a="$2:" -v r="$3" -v b="$4" -v slack="$SLACK" '
    index($2, a) == 1 { t[n++] = $1 }
    END {
      bad = 0
      for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
          if (j - i + 1 > b + r * (t[j] - t[i] + slack) + 1e-9) {
            printf "# %s: %d requests in %.3f s\n", a, j - i + 1,
                   t[j] - t[i] > "/dev/stderr"
            bad = 1
          }
      exit bad
    }' "$1"
}
