#!/usr/bin/env bash
# bench/refresh.sh BUILD_DIR: --since (issue 35) against a fresh crawl and
# wget -N, on one generated documentation site (bench/gensite: one host,
# PAGES pages of 10 to 30 KB) served by Debian's nginx, which sends ETag
# and Last-Modified, on loopback only (127.0.0.2).
#
# Two servers over the same files: "loopback", as fast as this machine
# goes, and "link", nginx's limit_rate of RATE bytes a second per
# connection (default 262144: a 2 Mbit/s share per connection, as a
# remote site gives; with an 8 KiB send buffer and no sendfile, so that
# a page of 20 KB is paced too), where what is transferred costs time. On each:
#   fresh    crawler --rate 0 into old/ (the crawl to refresh)
#   fresh2   the same again (the time a rebuild costs today)
#   refresh  crawler --rate 0 --since old, the site unchanged: byte for
#            byte old/ (but the marker's since line)
#   10%      every tenth page changed (text appended: new ETag and
#            Last-Modified), then a refresh and a fresh crawl of it,
#            compared byte for byte
#   wget     wget -r -N (1.21: If-Modified-Since), a first run, then one
#            over the unchanged site (files, bytes, time)
#   floor    on loopback only: the refresh's conditional requests alone
#            and the fresh crawl's requests alone, made by curl 7.88
#            (-Z, 16 at once, keep-alive, bodies to /dev/null), with the
#            ETags the old crawl's journal recorded: what any refresh
#            must spend on requests, against what a fresh crawl spends;
#            and crawler --replay old: everything a refresh does but
#            its requests (the old pages read, parsed and saved again)
# Bytes are what nginx sent ($bytes_sent of its access log, heads
# included), summed per run; times are wall clock. Runs BENCH_RUNS times
# (default 3) and prints each run; load (uptime) before and after.
# Environment: BENCH_TMP (default /dev/shm/tse-refresh), BENCH_PORT
# (default 38620; +1 the link), PAGES (5000), RATE (262144), SITE (a
# directory to serve in place of the generated site, e.g. Debian's
# /usr/share/doc/python3.11/html; copied with symbolic links followed;
# its index.html is the seed), CRAWLER_ARGS (more options for every
# crawl, e.g. "--transfers events").
set -euo pipefail
B=$(cd "${1:?usage: refresh.sh BUILD_DIR}" && pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd)
W=${BENCH_TMP:-/dev/shm/tse-refresh}
PORT=${BENCH_PORT:-38620}
LPORT=$((PORT + 1))
PAGES=${PAGES:-5000}
RATE=${RATE:-262144}
RUNS=${BENCH_RUNS:-3}
CR=$B/bin/crawler
rm -rf "$W"
mkdir -p "$W/nginx/tmp" "$W/nginx/logs"
cc -O2 -o "$W/gensite" "$TOP/bench/gensite.c"
# One tree per server: gensite writes absolute links with the port.
for p in "$PORT" "$LPORT"; do
  if [ -n "${SITE:-}" ]; then
    cp -rL "$SITE" "$W/pristine-$p"
  else
    "$W/gensite" "$W/gen-$p" "$p" 1 "$PAGES" 30 >&2
    mv "$W/gen-$p/127.0.0.2" "$W/pristine-$p"
  fi
  # One date for both (wget -N's copy below), before any change.
  find "$W/pristine-$p" -exec touch -d '2026-01-01 00:00:00' {} +
  cp -a "$W/pristine-$p" "$W/root-$p"
done
ACCESS=$W/nginx/logs/access.log
cat >"$W/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $W/nginx/nginx.pid;
error_log $W/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_timeout 65; keepalive_requests 1000000;
  client_body_temp_path $W/nginx/tmp;
  log_format b '\$bytes_sent';
  access_log $ACCESS b;
  server { listen 127.0.0.2:$PORT; root $W/root-$PORT; }
  server { listen 127.0.0.2:$LPORT sndbuf=8k; root $W/root-$LPORT;
    sendfile off; output_buffers 1 8k; limit_rate $RATE; }
}
CONF
nginx -p "$W/nginx" -c "$W/nginx/nginx.conf" &
NGINX_PID=$!
trap 'kill $NGINX_PID 2>/dev/null || true' EXIT
sleep 0.5

# bytes: "REQUESTS BYTES", what nginx answered and sent since the last
# call (the log read so far is counted in $W/lines).
echo 0 >"$W/lines"
bytes() {
  local n l
  n=$(wc -l <"$ACCESS")
  l=$(cat "$W/lines")
  tail -n +"$((l + 1))" "$ACCESS" | head -n "$((n - l))" |
    awk '{ s += $1 } END { printf "%d %d", NR, s }'
  echo "$n" >"$W/lines"
}
# timed CMD...: run it; T its wall time in seconds.
timed() {
  local t0
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>"$W/last.err" || true
  T=$(echo "$(date +%s.%N) - $t0" | bc)
}
crawl() {  # crawl PORT DIR [ARGS...]
  local port=$1 dir=$2
  shift 2
  rm -rf "$dir"
  mkdir -p "$dir"
  # shellcheck disable=SC2086 # CRAWLER_ARGS: words
  timed "$CR" --rate 0 -q ${CRAWLER_ARGS:-} "$@" \
    "http://127.0.0.2:$port/index.html" "$dir" 30
}
same() {  # same A B: one crawl, byte for byte (the marker but since:)
  diff -r -x .crawler "$1" "$2" >/dev/null &&
    diff <(grep -v '^since: ' "$1/.crawler") <(grep -v '^since: ' "$2/.crawler") \
      >/dev/null && echo identical || echo DIFFERENT
}
pages() { find "$1" -maxdepth 1 -name '[0-9]*' | wc -l; }
# floor DIR: curl configs for DIR's saved pages, $W/cond.cfg asking each
# with the ETag its journal recorded (a 304 each on the unchanged site),
# $W/full.cfg asking each plainly.
floor() {
  awk '$1 == "etag" { u = $3; $1 = $2 = $3 = ""; sub(/^ +/, "")
         gsub(/"/, "\\\"")
         printf "url = \"%s\"\noutput = \"/dev/null\"\n", u
         printf "header = \"If-None-Match: %s\"\nnext\n", $0 }' \
    "$1/.journal" | sed '$d' >"$W/cond.cfg"
  awk '$1 == "etag" { printf "url = \"%s\"\noutput = \"/dev/null\"\nnext\n", $3 }' \
    "$1/.journal" | sed '$d' >"$W/full.cfg"
}

echo "load before: $(uptime)"
echo "site: ${SITE:-gensite} ($(find "$W/pristine-$PORT" -name '*.html' | wc -l) HTML files), $(du -sb "$W/root-$PORT" | cut -f1) bytes; link: limit_rate $RATE B/s per connection"
printf '%-8s %-4s %-16s %8s %8s %12s %8s %s\n' server run what pages requests bytes seconds result
for run in $(seq "$RUNS"); do
  rm -rf "$W/wget-files"
  for server in loopback link; do
    port=$PORT
    [ "$server" = link ] && port=$LPORT
    ROOT=$W/root-$port
    rm -rf "$ROOT"
    cp -a "$W/pristine-$port" "$ROOT"
    bytes >/dev/null
    row() {
      printf '%-8s %-4s %-16s %8s %8s %12s %8.2f %s\n' "$server" "$run" "$1" \
        "$2" ${3% *} ${3#* } "$T" "${4:-}"
    }
    crawl "$port" "$W/old"
    row fresh "$(pages "$W/old")" "$(bytes)"
    crawl "$port" "$W/fresh2"
    row fresh2 "$(pages "$W/fresh2")" "$(bytes)"
    crawl "$port" "$W/new" --since "$W/old"
    row refresh "$(pages "$W/new")" "$(bytes)" "$(same "$W/new" "$W/old")"
    if [ "$server" = loopback ]; then
      floor "$W/old"
      timed curl -s -Z --parallel-max 16 -K "$W/cond.cfg"
      row "floor: 304s" "$(grep -c '^url' "$W/cond.cfg")" "$(bytes)" "curl"
      timed curl -s -Z --parallel-max 16 -K "$W/full.cfg"
      row "floor: fetches" "$(grep -c '^url' "$W/full.cfg")" "$(bytes)" "curl"
      crawl "$port" "$W/replay" --replay "$W/old"
      row "floor: replay" "$(pages "$W/replay")" "$(bytes)" \
        "$(diff -r -x '.*' "$W/replay" "$W/old" >/dev/null && echo "pages identical")"
    fi
    # wget -N: a first run (on the link, serial at RATE, it would take
    # minutes: the loopback run's files are copied under the link's
    # name instead, mtimes kept, as wget set them), then one over the
    # unchanged site.
    WD=$W/wget/127.0.0.2:$port
    if [ "$server" = loopback ]; then
      rm -rf "$W/wget"
      timed wget --no-config -q -r -l 30 -N -np -P "$W/wget" \
        "http://127.0.0.2:$port/index.html"
      row "wget first" "$(find "$WD" -name '*.html' | wc -l)" "$(bytes)"
      cp -a "$WD" "$W/wget-files"
    else
      rm -rf "$WD"
      cp -a "$W/wget-files" "$WD"
    fi
    timed wget --no-config -q -r -l 30 -N -np -P "$W/wget" \
      "http://127.0.0.2:$port/index.html"
    row "wget -N again" "$(find "$WD" -name '*.html' | wc -l)" "$(bytes)"
    # 10% of the pages changed.
    find "$ROOT" -name '*.html' | sort | awk 'NR % 10 == 0' |
      xargs sed -i 's|</body>|<p>changed today</p></body>|'
    crawl "$port" "$W/new10" --since "$W/old"
    grep '^crawler: refresh' "$W/last.err" >&2 || true
    row "refresh 10%" "$(pages "$W/new10")" "$(bytes)"
    crawl "$port" "$W/fresh10"
    row "fresh 10%" "$(pages "$W/fresh10")" "$(bytes)" \
      "refresh $(same "$W/new10" "$W/fresh10")"
    timed wget --no-config -q -r -l 30 -N -np -P "$W/wget" \
      "http://127.0.0.2:$port/index.html"
    stale=0
    for f in $(cd "$ROOT" && grep -rl 'changed today' --include='*.html' .); do
      grep -q 'changed today' "$WD/$f" 2>/dev/null || stale=$((stale + 1))
    done
    row "wget -N 10%" "$(find "$WD" -name '*.html' | wc -l)" "$(bytes)" \
      "$stale changed pages left stale"
  done
done
echo "load after: $(uptime)"
