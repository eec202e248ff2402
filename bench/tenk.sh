#!/usr/bin/env bash
# bench/tenk.sh BUILD_DIR: many hosts by name behind one slow server
# (issue 34): by default 10,000 hosts, every response 1 s late, the
# crawler at --rate 0.1 (one request per 10 s per host), depth 2: the
# per-host bound is 1,000 requests/s, so about 1,000 transfers in flight.
#
# The site is bench/many-site.sh --names (h0.test ... hN-1.test, the seed
# h0.test linking every host's index; each host robots.txt, an index and
# PAGES pages) on tmpfs, served by bench/delayserver --vhosts on one
# loopback address and port, which the crawler reaches as its HTTP proxy
# (http_proxy; no_proxy unset, so every request goes there and the
# crawler never resolves a .test name). The open-file limit is raised to
# the hard one (as root, to what 4,096 transfers need if that is more).
#
# Each run: `crawler --stats --rate RATE --domain test
# http://h0.test/index.html OUT 2` under /usr/bin/time. Reported per run,
# with the load average before it: pages saved / expected, exact (every
# expected URL saved, nothing else), requests (the server's log), non-200
# answers, efficiency (the crawler's summary: requests against the
# per-host bound), wall, CPU (user + system), peak RSS, CPU us per
# request, the most requests in flight at once (the server's log).
#
# Environment: HOSTS (10000), PAGES (5), DELAY_MS (1000), RATE (0.1),
# RUNS (1), CRAWLER_ARGS (more crawler options, e.g. "--download-workers
# 512"), ADDR (127.0.0.14), PORT (46000), WORK (/dev/shm/tse-tenk),
# RUN_LIMIT (seconds a run may take, 600). The 1,000-host case of
# bench/run.sh's `many`, the same way: HOSTS=1000 RATE=1 DELAY_MS=200.
# Results: stdout and WORK/tenk.md; the last run's output in WORK/out,
# its stderr in WORK/crawler.err, the server's log in WORK/server.log.
set -euo pipefail
umask 022
B=${1:?usage: tenk.sh BUILD_DIR}
B=$(cd "$B" && pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd)
HOSTS=${HOSTS:-10000}
PAGES=${PAGES:-5}
DELAY_MS=${DELAY_MS:-1000}
RATE=${RATE:-0.1}
RUNS=${RUNS:-1}
CRAWLER_ARGS=${CRAWLER_ARGS:-}
ADDR=${ADDR:-127.0.0.14}
PORT=${PORT:-46000}
W=${WORK:-/dev/shm/tse-tenk}
RUN_LIMIT=${RUN_LIMIT:-600}
SEED=http://h0.test/index.html
T0=$(date +%s)

say() { printf '[%4ds load %s] %s\n' $(($(date +%s) - T0)) "$(cut -d' ' -f1 /proc/loadavg)" "$*" >&2; }
md() { printf '%s\n' "$*" | tee -a "$W/tenk.md"; }

case $ADDR in 127.*) ;; *) echo "tenk.sh: ADDR must be in 127.0.0.0/8" >&2; exit 1 ;; esac
command -v /usr/bin/time > /dev/null || { echo "tenk.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
if ss -Hltn "sport = :$PORT" | grep -q .; then
  echo "tenk.sh: port $PORT is in use; set PORT" >&2
  exit 1
fi

# What the crawler's event loop wants at most: 4,096 transfers of 4
# descriptors, 256 spare (web/webcrawl.c, events_setup). The crawler
# raises its soft limit to the hard one itself and says on stderr when
# that is too low; the server here needs one a connection.
NEED=$((4096 * 4 + 256))
if [ "$(ulimit -Hn)" != unlimited ] && [ "$(ulimit -Hn)" -lt "$NEED" ] &&
  [ "$(id -u)" = 0 ]; then
  ulimit -Hn "$NEED" 2> /dev/null || true
fi
ulimit -n "$(ulimit -Hn)"

make -s -C "$TOP/bench"
for p in bin/crawler bench/delayserver; do
  [ -x "$B/$p" ] || { echo "tenk.sh: $B/$p missing (make)" >&2; exit 1; }
done
rm -rf "$W"
mkdir -p "$W/bin" "$W/out"
# Copies: a rebuild during the run must not change them.
cp "$B/bin/crawler" "$B/bench/delayserver" "$W/bin/"
: > "$W/tenk.md"
: > "$W/runs.tsv"

say "site: $HOSTS hosts x ($PAGES + 1) pages in $W/site"
sh "$TOP/bench/many-site.sh" --names "$W/site" "$HOSTS" "$PAGES"
# The pages a crawl of depth 2 saves: every host's index and pages.
awk -v n="$HOSTS" -v k="$PAGES" 'BEGIN {
  for (h = 0; h < n; h++) {
    printf "http://h%d.test/index.html\n", h
    for (i = 1; i <= k; i++) printf "http://h%d.test/p%d.html\n", h, i
  } }' | sort > "$W/expected.txt"
EXPECTED=$(wc -l < "$W/expected.txt")

SLOG=$W/server.log
"$W/bin/delayserver" --vhosts --port "$PORT" --delay-ms "$DELAY_MS" \
  --root "$W/site" --log "$SLOG" \
  --lifetime $(((RUNS + 1) * RUN_LIMIT)) "$ADDR" 2> "$W/server.err" &
DS_PID=$!
# Waited for: a next tenk.sh finds the port free.
trap 'kill "$DS_PID" 2> /dev/null && wait "$DS_PID" 2> /dev/null || true' EXIT
trap 'exit 130' INT TERM
for _ in $(seq 100); do
  (exec 3<> "/dev/tcp/$ADDR/$PORT") 2> /dev/null && break
  kill -0 "$DS_PID" 2> /dev/null || { cat "$W/server.err" >&2; exit 1; }
  sleep 0.1
done

# run R: one crawl; a line of $W/runs.tsv.
run() {
  local r=$1 rc=0 load wall user sys rss reqs non200 saved missing extra
  local eff inflight cpu us
  rm -rf "$W/out"
  mkdir -p "$W/out"
  : > "$SLOG"
  load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)
  say "run $r: crawler --stats --rate $RATE ${CRAWLER_ARGS:+$CRAWLER_ARGS }--domain test $SEED OUT 2"
  # shellcheck disable=SC2086 # CRAWLER_ARGS: words
  env -u no_proxy -u NO_PROXY -u all_proxy -u ALL_PROXY \
    http_proxy="http://$ADDR:$PORT/" \
    timeout "$RUN_LIMIT" /usr/bin/time -f '%e %U %S %M' -o "$W/time.txt" \
    "$W/bin/crawler" --stats --rate "$RATE" $CRAWLER_ARGS --domain test \
    "$SEED" "$W/out" 2 > "$W/crawler.out" 2> "$W/crawler.err" || rc=$?
  sleep 0.2
  read -r wall user sys rss < <(tail -1 "$W/time.txt")
  reqs=$(wc -l < "$SLOG")
  non200=$(awk '$5 != 200' "$SLOG" | wc -l)
  find "$W/out" -maxdepth 1 -name '[0-9]*' -type f -print0 |
    xargs -0 -r awk 'FNR == 1 { print; nextfile }' | sort > "$W/saved.txt"
  saved=$(wc -l < "$W/saved.txt")
  missing=$(comm -23 "$W/expected.txt" "$W/saved.txt" | wc -l)
  extra=$(comm -13 "$W/expected.txt" "$W/saved.txt" | wc -l)
  eff=$(grep -o '[0-9]*% of it' "$W/crawler.err" | cut -d% -f1 || true)
  inflight=$(awk '{ print $1, 1; print $2, -1 }' "$SLOG" | sort -k1,1g -k2,2n |
    awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  us=$(awk -v c="$cpu" -v n="$reqs" 'BEGIN { printf "%.0f", (n > 0 ? c * 1e6 / n : 0) }')
  [ "$rc" = 0 ] || say "crawler exited $rc: $(tail -3 "$W/crawler.err" | tr '\n' ' ')"
  grep -i 'open-file' "$W/crawler.err" >&2 || true
  printf '%s\t%s\t%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%s\t%s\t%s\n' \
    "$r" "$load" "$saved" "$EXPECTED" \
    "$([ "$missing" = 0 ] && [ "$extra" = 0 ] && echo yes || echo "no (-$missing +$extra)")" \
    "$reqs" "$non200" "${eff:--}" "$wall" "$cpu" \
    "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$us" "$inflight" "$rc" \
    "$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)" >> "$W/runs.tsv"
  say "  $(tail -1 "$W/runs.tsv")"
}

for r in $(seq 1 "$RUNS"); do
  run "$r"
done

md "## $HOSTS hosts by name, every answer $DELAY_MS ms late, --rate $RATE"
md ""
md "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, crawler $(cd "$TOP" && git describe --always --dirty 2> /dev/null || echo unknown), open-file limit $(ulimit -n)."
md "\`http_proxy=http://$ADDR:$PORT/ crawler --stats --rate $RATE ${CRAWLER_ARGS:+$CRAWLER_ARGS }--domain test $SEED OUT 2\`; bench/delayserver --vhosts --delay-ms $DELAY_MS; $HOSTS x ($PAGES + 1) pages, $((HOSTS * (PAGES + 2))) requests with robots.txt; bound $(awk -v n="$HOSTS" -v r="$RATE" 'BEGIN { print n * r }') requests/s."
md ""
md "| run | load before | pages | exact | requests | non-200 | efficiency % | wall s | CPU s | peak RSS MB | CPU us/request | in flight at most | exit | load after |"
md "| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
while IFS=$'\t' read -r line; do
  md "| ${line//$'\t'/ | } |"
done < "$W/runs.tsv"
