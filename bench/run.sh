#!/usr/bin/env bash
# bench/run.sh BUILD_DIR: the benchmarks of bench/RESULTS.md (make bench).
#
# Everything runs on this machine over loopback: every server binds only to
# 127.0.0.0/8 addresses and every client is pointed only at them. Each load
# loop has a fixed count of runs and each run a time limit (timeout), so the
# whole script stops by itself (about 10 to 15 minutes on 2 cores).
#
#   1. engine: crawl() over an in-memory graph (edges/s); seen-set memory
#   2. link extraction MB/s (links_scan_html) next to xmllint --html
#   3. the ceiling: wrk against nginx alone
#   4. crawls, alternating with wget and wget2 in every round (warm-up round
#      first, then BENCH_RUNS rounds; medians and per-round ratios):
#      generated site (8 hosts x 1,000 pages, depth 4) to tmpfs and to disk,
#      Python, PostgreSQL and JDK API docs (BENCH_DOCS, default
#      "python pg jdk"; depth BENCH_DOC_DEPTH, default 6), the 20 ms
#      latency site (depth 3)
#   5. politeness: 8 hosts x 40 pages at 10 requests/s per host
#   6. head-of-line: the site of bench/hol-site.sh (10 hosts, the seed's
#      59 pages first) at --rate 5 --burst 1, 4 and 16 workers: efficiency
#      from the server's log (bench/hol-efficiency.sh), the per-host
#      request timeline of the last 16-worker round as an SVG
#      (bench/hol-plot.sh, gnuplot) into BENCH_HOL_SVG
#   7. memory: peak RSS on the hostile pages of bench/hostile-site.sh,
#      and with --max-memory 16 MiB when the crawler has that option
#   8. many hosts (`many`): 1,000 hosts answering 200 ms late
#      (bench/many-site.sh, one port each of 127.0.0.12, bench/delayserver
#      --ports), depth 2, default options (--rate 1): efficiency against
#      the per-host bound (the crawler's summary), peak RSS, CPU per
#      request, the most requests in flight at once (the server's log);
#      once each with --download-workers 8 and 512 for comparison; then
#      the 20 ms site with default options (but --rate 0, as wget2 has no
#      per-host rate) against wget2 -t32, alternating, BENCH_RUNS rounds
#   9. ten thousand hosts (`tenk`, only when BENCH_ONLY names it):
#      bench/tenk.sh, 10,000 hosts by name behind bench/delayserver
#      --vhosts as the crawler's HTTP proxy, 1 s late, --rate 0.1, depth
#      2; BENCH_TENK_RUNS runs (default 1), BENCH_TENK_HOSTS hosts
#      (default 10000)
#
# Environment: BENCH_RUNS (default 5), BENCH_POLITE_RUNS (default 3),
# BENCH_TMP (tmpfs work directory, default /dev/shm/tse-bench),
# BENCH_DISK (disk output directory, default /var/tmp/tse-bench),
# BENCH_PORT (default 38517; +1 latency server, +2 politeness site, +3
# head-of-line site, +4 hostile pages), BENCH_ONLY (space-separated subset
# of: engine links wrk gen docs lat many polite hol mem cluster tenk;
# default all but tenk),
# BENCH_MANY_PORT (first of the 1,000 ports of the many-host site on
# 127.0.0.12, default 44000), BENCH_HOL_SVG (the
# timeline picture, default bench/headofline-after.svg in the source
# tree), BENCH_TOOLS (crawlers compared, a subset of: wget wget2 tse;
# for quick runs of one tool; tsev: ours with --transfers events; a
# ratio needs its peer), BENCH_TSE_ARGS
# (our crawler's options in the crawl comparisons in place of
# "--download-workers N", N the peers' threads: "" for the defaults,
# "--transfers events" for the event loop with the other defaults).
# Results: stdout and BUILD_DIR/bench/results.md.
set -euo pipefail
umask 022
B=${1:?usage: run.sh BUILD_DIR}
B=$(cd "$B" && pwd)
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-5}
PRUNS=${BENCH_POLITE_RUNS:-3}
W=${BENCH_TMP:-/dev/shm/tse-bench}
DISK=${BENCH_DISK:-/var/tmp/tse-bench}
PORT=${BENCH_PORT:-38517}
DPORT=$((PORT + 1))
PPORT=$((PORT + 2))
HPORT=$((PORT + 3))
MPORT=$((PORT + 4))
ONLY=${BENCH_ONLY:-engine links wrk gen docs lat many polite hol mem cluster}
TOOLS=${BENCH_TOOLS:-wget wget2 tse}
NTOOLS=$(echo $TOOLS | wc -w)
HOSTS="127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 127.0.0.6 127.0.0.7 127.0.0.8 127.0.0.9"
DOMAINS=$(echo $HOSTS | tr ' ' ',')
DOCHOST=127.0.0.10
PYDOC=/usr/share/doc/python3.11/html
PGDOC=/usr/share/doc/postgresql-doc-15/html
JDKDOC=/usr/share/doc/openjdk-17-jre-headless/api
GEN_DEPTH=4
LAT_DEPTH=3
DOC_DEPTH=${BENCH_DOC_DEPTH:-6}
RUN_LIMIT=300          # seconds; no single crawl may take longer
HOL_SVG=${BENCH_HOL_SVG:-$TOP/bench/headofline-after.svg}
# A copy of the crawler: a rebuild during the run must not change it.
CRAWLER=$W/bin/crawler
RES=$W/results.tsv     # one line per crawl
POL=$W/polite.tsv      # one line per polite crawl
OUT=$W/results.md
T0=$(date +%s)

want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
say() { printf '[%4ds load %s] %s\n' $(($(date +%s) - T0)) "$(cut -d' ' -f1 /proc/loadavg)" "$*" >&2; }
md() { printf '%s\n' "$*" | tee -a "$OUT"; }

# --- 0. dependencies --------------------------------------------------------
PKGS="nginx-light wget wget2 wrk libxml2-utils python3.11-doc postgresql-doc-15 openjdk-17-doc time gnuplot-nox"
missing=
for c in nginx wget wget2 wrk xmllint /usr/bin/time gnuplot; do
  command -v "$c" > /dev/null 2>&1 || missing=1
done
[ -d "$PYDOC" ] && [ -d "$PGDOC" ] && [ -d "$JDKDOC" ] || missing=1
if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ]; then
    say "installing $PKGS"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends $PKGS > /dev/null
  else
    echo "run.sh: missing packages; as root run:" >&2
    echo "  apt-get install -y --no-install-recommends $PKGS" >&2
    exit 1
  fi
fi
make -s -C "$TOP/bench"
for p in gensite delayserver engine_bench seen_bench links_bench cluster_bench; do
  [ -x "$B/bench/$p" ] || { echo "run.sh: $B/bench/$p missing" >&2; exit 1; }
done
[ -x "$B/tests/testserver" ] || { echo "run.sh: $B/tests/testserver missing" >&2; exit 1; }

. "$TOP/bench/crawl-lib.sh"

# --- servers, cleanup ---------------------------------------------------------
NGINX_PID=
DELAY_PID=
TS_PID=
REDIS_PID=
cleanup() {
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2> /dev/null || true
  [ -n "$DELAY_PID" ] && kill "$DELAY_PID" 2> /dev/null || true
  [ -n "$TS_PID" ] && kill "$TS_PID" 2> /dev/null || true
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2> /dev/null || true
  NGINX_PID=
  DELAY_PID=
  TS_PID=
  REDIS_PID=
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() { ! ss -Hltn "sport = :$1" | grep -q .; }
for p in $PORT $DPORT $PPORT $HPORT $MPORT; do
  port_free "$p" || { echo "run.sh: port $p is in use; set BENCH_PORT" >&2; exit 1; }
done

rm -rf "$W" "$DISK"
mkdir -p "$W/site" "$W/nginx/logs" "$W/nginx/tmp" "$W/empty" "$W/bin" "$DISK"
cp "$B/bin/crawler" "$CRAWLER"
for p in gensite delayserver engine_bench seen_bench links_bench cluster_bench; do
  cp "$B/bench/$p" "$W/bin/$p"
done
cp "$B/tests/testserver" "$W/bin/testserver"
: > "$RES"
: > "$POL"
: > "$OUT"
ACCESS=$W/nginx/access.log
DLOG=$W/delay.log

start_nginx() {
  nginx_start < <(
    for h in $HOSTS; do
      echo "  server { listen $h:$PORT; root $W/site/gen/$h; }"
      echo "  server { listen $h:$PPORT; root $W/site/pol/$h; }"
    done
    echo "  server { listen $DOCHOST:$PORT; root $W/empty;"
    echo "    location /python/ { alias $PYDOC/; }"
    echo "    location /pg/ { alias $PGDOC/; }"
    echo "    location /jdk/ { alias $JDKDOC/; } }"
  )
}

# rounds SITE MEDIUM EXPECTED LOGFILE SEED DEPTH THREADS OUTBASE PEERARGS TSEARGS
# A warm-up round, then $RUNS rounds of wget, wget2 and our crawler, the
# order rotated every round.
rounds() {
  local site=$1 medium=$2 exp=$3 slog=$4 seed=$5 depth=$6 t=$7 base=$8
  local pa=$9 ta=${10} r k tool
  for r in $(seq 0 "$RUNS"); do
    for k in $(seq 0 $((NTOOLS - 1))); do
      tool=$(echo "$TOOLS" | awk -v i=$(((r + k) % NTOOLS + 1)) '{ print $i }')
      case $tool in
        wget) crawl "$site" "$medium" "$r" wget "$exp" "$slog" "$base/wget" -- \
          wget --no-config -q -r -l "$depth" $pa -P "$base/wget" "$seed" ;;
        wget2) crawl "$site" "$medium" "$r" wget2 "$exp" "$slog" "$base/wget2" -- \
          wget2 --no-config -q -r -l "$depth" --max-threads "$t" $pa -P "$base/wget2" "$seed" ;;
        tse) crawl "$site" "$medium" "$r" tse "$exp" "$slog" "$base/tse" -- \
          "$CRAWLER" --rate 0 ${BENCH_TSE_ARGS---download-workers $t} $ta "$seed" "$base/tse" "$depth" ;;
        tsev) crawl "$site" "$medium" "$r" tsev "$exp" "$slog" "$base/tsev" -- \
          "$CRAWLER" --rate 0 --transfers events $ta "$seed" "$base/tsev" "$depth" ;;
      esac
    done
  done
}

say "work directory $W ($(stat -f -c %T "$W")), disk output $DISK ($(df --output=fstype "$DISK" | tail -1 | tr -d ' '))"
md "# make bench: $(date -u '+%Y-%m-%d %H:%M UTC')"
md ""
md "Machine: $(nproc) cores, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(free -g | awk '/Mem:/ { print $2 }') GiB, Linux $(uname -r), $(. /etc/os-release; echo "$PRETTY_NAME")."
md "Peers: $(wget --version | head -1 | cut -d' ' -f1-3), $(wget2 --version | head -1 | cut -d' ' -f1-3), $(nginx -v 2>&1 | cut -d' ' -f3), $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)."
md "Crawler: $(cd "$TOP" && git describe --always --dirty 2>/dev/null || echo unknown) ($("$CRAWLER" --version 2>&1 | head -1)). Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
md "Runs: 1 warm-up + $RUNS measured rounds per crawl comparison (order rotated each round); $PRUNS polite rounds. Our options there: \`--rate 0 ${BENCH_TSE_ARGS---download-workers N}\` (N: the peers' threads)."
md ""

# --- 1. engine and memory ------------------------------------------------------
if want engine; then
  say "engine: crawl() over 100,000 pages, 1,000,000 links"
  "$W/bin/engine_bench" | tee "$W/engine.txt" >&2
  say "seen set: RSS per URL at 1M and 5M URLs"
  "$W/bin/seen_bench" 1000000 5000000 | tee "$W/seen.txt" >&2
  md "## Engine and memory"
  md ""
  md '```'
  md "\$ engine_bench      # crawl() over 100,000 pages, 1,000,000 links (link format, in memory)"
  md "$(cat "$W/engine.txt")"
  md "\$ seen_bench 1000000 5000000"
  md "$(cat "$W/seen.txt")"
  md '```'
  md ""
fi

# --- generate the sites ------------------------------------------------------------
if want links || want wrk || want gen || want lat || want many || want polite; then
  say "generating sites in $W/site"
  "$W/bin/gensite" "$W/site/gen" "$PORT" 8 1000 "$GEN_DEPTH" 2>&1 | sed 's/^/  /' >&2
  "$W/bin/gensite" "$W/site/lat" "$DPORT" 8 100 "$LAT_DEPTH" 2>&1 | sed 's/^/  /' >&2
  "$W/bin/gensite" "$W/site/pol" "$PPORT" 8 40 20 2>&1 | sed 's/^/  /' >&2
fi

# --- 2. link extraction ------------------------------------------------------------
if want links; then
  md "## Link extraction (one thread, files in memory)"
  md ""
  md "| files | count | MB | links_scan_html MB/s | ms/page | xmllint --html --noout MB/s |"
  md "| --- | ---: | ---: | ---: | ---: | ---: |"
  find "$PYDOC" -name '*.html' | sort > "$W/list-python.txt"
  find "$PGDOC" -name '*.html' | sort > "$W/list-pg.txt"
  find "$W/site/gen/127.0.0.2" -name '*.html' | sort > "$W/list-gen.txt"
  for set in python pg gen; do
    say "link extraction: $set"
    l=$("$W/bin/links_bench" 2 < "$W/list-$set.txt")
    bytes=$(xargs -a "$W/list-$set.txt" cat | wc -c)
    best=
    for _ in 1 2 3; do
      s=$(date +%s.%N)
      xargs -a "$W/list-$set.txt" xmllint --html --noout > /dev/null 2>&1 || true
      e=$(date +%s.%N)
      best=$(awk -v b="$best" -v s="$s" -v e="$e" 'BEGIN { t = e - s; print (b == "" || t < b) ? t : b }')
    done
    echo "$l" >&2
    echo "$l" | awk -v set="$set" -v b="$bytes" -v x="$best" '{
      printf "| %s | %d | %.1f | %.0f | %.3f | %.0f |\n", set, $2, $4, $10, $12, b / 1e6 / x }' | tee -a "$OUT"
  done
  md ""
fi

start_nginx
say "nginx up (pid $NGINX_PID) on $HOSTS and $DOCHOST, ports $PORT and $PPORT"

# --- 3. the ceiling ---------------------------------------------------------------------
if want wrk; then
  cat > "$W/paths.lua" << 'EOF'
local paths = {}
for l in io.lines(os.getenv("WRK_PATHS")) do paths[#paths + 1] = l end
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
EOF
  md "## The ceiling: wrk against nginx alone (the generated site's 1,000 pages of 127.0.0.2, access log on)"
  md ""
  md "| connections | requests/s | MB/s |"
  md "| ---: | ---: | ---: |"
  for c in 1 8 32; do
    say "wrk: $c connections, 5 s"
    thr=$((c < 2 ? 1 : 2))
    WRK_PATHS=$W/site/gen/paths-127.0.0.2.txt timeout 60 wrk -t"$thr" -c"$c" -d5s \
      -s "$W/paths.lua" "http://127.0.0.2:$PORT/" > "$W/wrk.txt" 2>&1 || true
    cat "$W/wrk.txt" >&2
    awk -v c="$c" '/Requests\/sec/ { r = $2 } /Transfer\/sec/ { t = $2; if (t ~ /MB/) t += 0; else if (t ~ /GB/) t *= 1024; else if (t ~ /KB/) t /= 1024 }
      END { printf "| %d | %.0f | %.0f |\n", c, r, t }' "$W/wrk.txt" | tee -a "$OUT"
  done
  : > "$ACCESS"
  md ""
fi

# --- 4. crawls ------------------------------------------------------------------------------
if want gen; then
  seed="http://127.0.0.2:$PORT/index.html"
  say "generated site, depth $GEN_DEPTH, output on tmpfs"
  rounds gen tmpfs "$W/site/gen/expected-$GEN_DEPTH.txt" "$ACCESS" "$seed" "$GEN_DEPTH" 8 \
    "$W/out" "-H -D $DOMAINS" "$(scopes "$PORT")"
  say "generated site, depth $GEN_DEPTH, output on disk"
  rounds gen disk "$W/site/gen/expected-$GEN_DEPTH.txt" "$ACCESS" "$seed" "$GEN_DEPTH" 8 \
    "$DISK/out" "-H -D $DOMAINS" "$(scopes "$PORT")"
  rm -rf "$DISK/out"
fi

if want docs; then
  for doc in ${BENCH_DOCS:-python pg jdk}; do
    seed="http://$DOCHOST:$PORT/$doc/index.html"
    # The reference set: wget's pages (wget is a serial breadth-first crawl).
    say "$doc docs, depth $DOC_DEPTH: reference crawl (wget)"
    rm -rf "$W/ref"
    mkdir -p "$W/ref"
    timeout "$RUN_LIMIT" wget --no-config -q -r -l "$DOC_DEPTH" -np -P "$W/ref" "$seed" || true
    (cd "$W/ref" && find . -type f ! -name robots.txt) | sed 's|^\./|http://| ; s| |%20|g' |
      awk '{ print $1, "-", ($1 ~ /\.(html|htm|txt)$/ ? "page" : "other") }' > "$W/expected-$doc.txt"
    say "  reference: $(grep -c ' page$' "$W/expected-$doc.txt") pages, $(grep -c ' other$' "$W/expected-$doc.txt") other files"
    rounds "$doc" tmpfs "$W/expected-$doc.txt" "$ACCESS" "$seed" "$DOC_DEPTH" 8 \
      "$W/out" "-np" "--scope http://$DOCHOST:$PORT/$doc/"
  done
fi

if want lat; then
  say "latency site: delayserver, 20 ms per response, depth $LAT_DEPTH"
  "$W/bin/delayserver" --port "$DPORT" --delay-ms 20 --root "$W/site/lat" \
    --log "$DLOG" --lifetime 1200 $HOSTS &
  DELAY_PID=$!
  sleep 0.3
  rounds lat tmpfs "$W/site/lat/expected-$LAT_DEPTH.txt" "$DLOG" \
    "http://127.0.0.2:$DPORT/index.html" "$LAT_DEPTH" 32 "$W/out" \
    "-H -D $DOMAINS" "$(scopes "$DPORT")"
  kill "$DELAY_PID" 2> /dev/null || true
  DELAY_PID=
fi

# --- 8. many hosts --------------------------------------------------------------------------------
if want many; then
  MADDR=127.0.0.12
  MPORT=${BENCH_MANY_PORT:-44000}
  MH=1000
  MK=5
  MLOG=$W/many.log
  MANY=$W/many.tsv # medium round efficiency% inflight
  : > "$MANY"
  if ss -Hltn | awk -v lo="$MPORT" -v hi=$((MPORT + MH)) '{ n = split($4, a, ":"); p = a[n] + 0; if (p >= lo && p < hi) bad = 1 } END { exit !bad }'; then
    echo "run.sh: ports $MPORT-$((MPORT + MH - 1)) are in use; set BENCH_MANY_PORT" >&2
    exit 1
  fi
  say "many hosts: $MH hosts x ($MK + 1) pages, 200 ms per response"
  sh "$TOP/bench/many-site.sh" "$W/site/many" "$MADDR" "$MPORT" "$MH" "$MK"
  # The breadth-first set: the seed, its pages and the other indexes at
  # depth 1, their pages at depth 2.
  {
    echo "http://$MADDR:$MPORT/index.html 0 page"
    for i in $(seq 1 "$MK"); do echo "http://$MADDR:$MPORT/p$i.html 1 page"; done
    for p in $(seq $((MPORT + 1)) $((MPORT + MH - 1))); do
      echo "http://$MADDR:$p/index.html 1 page"
      for i in $(seq 1 "$MK"); do echo "http://$MADDR:$p/p$i.html 2 page"; done
    done
  } > "$W/site/many/expected.txt"
  "$W/bin/delayserver" --port "$MPORT" --ports "$MH" --delay-ms 200 \
    --root "$W/site/many" --log "$MLOG" --lifetime 3000 "$MADDR" &
  DELAY_PID=$!
  sleep 1
  # many_run MEDIUM ROUND ARGS...: one crawl; its efficiency (the
  # crawler's summary) and the most requests in flight at once (the log).
  many_run() {
    local m=$1 r=$2
    shift 2
    crawl many "$m" "$r" tse "$W/site/many/expected.txt" "$MLOG" "$W/out/tse" -- \
      "$CRAWLER" --stats "$@" --domain "$MADDR" "http://$MADDR:$MPORT/index.html" "$W/out/tse" 2
    local eff inflight
    eff=$(grep -o '[0-9]*% of it' "$W/last-tse.err" | cut -d% -f1)
    inflight=$(awk '{ print $1, 1; print $2, -1 }' "$MLOG" | sort -k1,1g -k2,2n |
      awk '{ n += $2; if (n > m) m = n } END { print m + 0 }')
    echo "$m $r ${eff:--} $inflight" >> "$MANY"
    say "    efficiency ${eff:--}%, $inflight in flight at most"
  }
  CHECK_KEEP_PORT=1
  for r in $(seq 0 "$RUNS"); do
    many_run default "$r"
  done
  many_run w8 1 --download-workers 8
  many_run w512 1 --download-workers 512
  CHECK_KEEP_PORT=
  kill "$DELAY_PID" 2> /dev/null || true
  DELAY_PID=
  md "## Many hosts: $MH hosts answering 200 ms late, default options"
  md ""
  md "\`crawler [--download-workers N] --domain $MADDR http://$MADDR:$MPORT/index.html OUT 2\` (default --rate 1 --burst 1), $MH hosts x ($MK + 1) pages ($((MH * (MK + 2))) requests with robots.txt), one port each (bench/many-site.sh, bench/delayserver --ports $MH --delay-ms 200); default: warm-up + $RUNS rounds, medians; 8 and 512 workers: one round each. Efficiency = the crawler's summary (requests / the per-host bound 1 + 1 x t, t from when each host was found); in flight = the most requests whose [arrival, answer] overlap in the server's log; CPU = user + system of the crawler."
  md ""
  md "| download workers | rounds | exact | wall s | efficiency % | peak RSS MB | CPU s | CPU us/request | in flight at most |"
  md "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for m in default w8 w512; do
    mc() { awk -v m="$m" '$1 == "many" && $2 == m && $3 > 0 && $17 < 124 { print '"$1"' }' "$RES"; }
    me() { awk -v m="$m" '$1 == m && $2 > 0 { print $'"$1"' }' "$MANY"; }
    n=$(mc 1 | wc -l)
    ex=$(mc '($13 == 0 && $14 == 0 && $15 == 0)' | awk '{ s += $1 } END { print s + 0 }')
    case $m in default) label="default (8 to 512)" ;; w8) label=8 ;; w512) label=512 ;; esac
    md "| $label | $n | $ex/$n | $(mc '$5' | median) | $(me 3 | median) | $(mc '$8 / 1024' | median | awk '{ printf "%.1f", $1 }') | $(mc '$6 + $7' | median) | $(mc '($9 > 0 ? ($6 + $7) * 1e6 / $9 : 0)' | median | awk '{ printf "%.0f", $1 }') | $(me 4 | median) |"
  done
  md ""
  if [ -d "$W/site/lat" ]; then
    say "latency site (20 ms), default options (--rate 0) vs wget2 -t32"
    "$W/bin/delayserver" --port "$DPORT" --delay-ms 20 --root "$W/site/lat" \
      --log "$DLOG" --lifetime 1200 $HOSTS &
    DELAY_PID=$!
    sleep 0.3
    for r in $(seq 0 "$RUNS"); do
      for k in 0 1; do
        if [ $(((r + k) % 2)) = 0 ]; then
          crawl latdef tmpfs "$r" wget2 "$W/site/lat/expected-$LAT_DEPTH.txt" "$DLOG" "$W/out/wget2" -- \
            wget2 --no-config -q -r -l "$LAT_DEPTH" --max-threads 32 -H -D "$DOMAINS" -P "$W/out/wget2" \
            "http://127.0.0.2:$DPORT/index.html"
        else
          crawl latdef tmpfs "$r" tse "$W/site/lat/expected-$LAT_DEPTH.txt" "$DLOG" "$W/out/tse" -- \
            "$CRAWLER" --rate 0 $(scopes "$DPORT") "http://127.0.0.2:$DPORT/index.html" "$W/out/tse" "$LAT_DEPTH"
        fi
      done
    done
    kill "$DELAY_PID" 2> /dev/null || true
    DELAY_PID=
    lc() { awk -v t="$1" '$1 == "latdef" && $4 == t && $3 > 0 && $17 < 124 { print '"$2"' }' "$RES"; }
    lratio=$(awk '$1 == "latdef" && $3 > 0 && $5 > 0 && $17 < 124 { v = $10 / $5; if ($4 == "tse") a[$3] = v; else b[$3] = v }
      END { for (r in a) if ((r in b) && b[r] > 0) print a[r] / b[r] }' "$RES" | median | awk '{ printf "%.2f", $1 }')
    md "20 ms site (8 hosts x 100 pages, depth $LAT_DEPTH): \`crawler --rate 0 --scope ...\` (no worker count) against \`wget2 --max-threads 32\`, warm-up + $RUNS alternating rounds, medians."
    md ""
    md "| tool | files | missing | wall s | files/s | CPU s | peak RSS MB |"
    md "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    for t in tse wget2; do
      md "| $t | $(lc $t '$10' | median) | $(lc $t '$13' | median) | $(lc $t '$5' | median) | $(lc $t '($5 > 0 ? $10 / $5 : 0)' | median | awk '{ printf "%.0f", $1 }') | $(lc $t '$6 + $7' | median) | $(lc $t '$8 / 1024' | median | awk '{ printf "%.1f", $1 }') |"
    done
    md ""
    md "files/s, ours / wget2 -t32, per round then the median: $lratio."
    md ""
  fi
fi

# --- 5. politeness -------------------------------------------------------------------------------
# polite_stats ROUND TOOL: requests, seconds, requests/s overall and the
# most requests any host got in any closed 1 s window, from nginx's log;
# then the efficiency against the per-host bound (bench/hol-efficiency.sh:
# B + R*t per host from its first request to the crawl's end) and, for
# ours, the figure of the crawler's own summary ("-" for the peers).
polite_stats() {
  local eff own=-
  eff=$(sh "$TOP/bench/hol-efficiency.sh" "$ACCESS" 10 1 | awk '$1 == "overall" { print $4, $6 }')
  [ "$2" = tse ] && own=$(grep -o '[0-9]*% of it' "$W/last-tse.err" | cut -d% -f1)
  polite_window "$1" "$2" | tr '\n' ' '
  echo "${eff:-- -} ${own:--}"
}
polite_window() {
  sort -g -k1,1 "$ACCESS" | awk -v r="$1" -v tool="$2" '
    { t = $1; h = $2; n[h]++; ts[h, n[h]] = t; if (NR == 1) first = t; last = t }
    END {
      worst = 0
      for (h in n) {
        j = 1
        for (i = 1; i <= n[h]; i++) {
          while (ts[h, i] - ts[h, j] > 1.0005) j++
          if (i - j + 1 > worst) worst = i - j + 1
        }
      }
      span = last - first
      printf "%s %s %d %.2f %.1f %d\n", r, tool, NR, span, (span > 0 ? NR / span : 0), worst
    }'
}

if want polite; then
  say "politeness: 8 hosts x 40 pages, 10 requests/s per host"
  seed="http://127.0.0.2:$PPORT/index.html"
  exp=$W/site/pol/expected-20.txt
  for r in $(seq 1 "$PRUNS"); do
    for tool in $TOOLS; do
      case $tool in
        wget) crawl pol tmpfs "$r" wget "$exp" "$ACCESS" "$W/out/wget" -- \
          wget --no-config -q -r -l 20 --wait 0.1 -H -D "$DOMAINS" -P "$W/out/wget" "$seed" ;;
        wget2) crawl pol tmpfs "$r" wget2 "$exp" "$ACCESS" "$W/out/wget2" -- \
          wget2 --no-config -q -r -l 20 --wait 0.1 --max-threads 8 -H -D "$DOMAINS" -P "$W/out/wget2" "$seed" ;;
        tse) crawl pol tmpfs "$r" tse "$exp" "$ACCESS" "$W/out/tse" -- \
          "$CRAWLER" --stats --rate 10 --burst 1 $(scopes "$PPORT") "$seed" "$W/out/tse" 20 ;;
      esac
      polite_stats "$r" "$tool" | tee -a "$POL" >&2
      cp "$ACCESS" "$W/polite-$tool-$r.log"  # the timeline, for a look later
    done
  done
fi

# --- 6. head-of-line -------------------------------------------------------------------------------
# The seed host's 59 pages come first in the commit's order; 9 more hosts
# are found with them. Each crawl: efficiency from the server's log, the
# crawler's own summary figure, wall time; the directories of every round
# must be the same (exactness).
HOL=$W/hol.tsv
: > "$HOL"
if want hol; then
  say "head-of-line site: 10 hosts x 61 requests, --rate 5 --burst 1"
  sh "$TOP/bench/hol-site.sh" "$W/site/hol" 10 59 2>&1 | sed 's/^/  /' >&2
  hargs=
  hscope=
  for i in $(seq 2 11); do
    hargs="$hargs --host 127.0.0.$i"
    hscope="$hscope --scope http://127.0.0.$i:$HPORT/"
  done
  HLOG=$W/hol-server.log
  "$W/bin/testserver" --root "$W/site/hol" $hargs --port "$HPORT" \
    --log "$HLOG" --max-seconds 3000 2> "$W/hol-server.err" &
  TS_PID=$!
  sleep 0.5
  for r in $(seq 1 "$PRUNS"); do
    for t in 4 16; do
      : > "$HLOG"
      rm -rf "$W/out/hol"
      mkdir -p "$W/out/hol"
      say "  round $r, $t workers (load $(cut -d' ' -f1-3 /proc/loadavg))"
      rc=0
      timeout "$RUN_LIMIT" /usr/bin/time -f '%e %M' -o "$W/time.txt" "$CRAWLER" --stats \
        --rate 5 --burst 1 --download-workers "$t" $hscope \
        "http://127.0.0.2:$HPORT/index.html" "$W/out/hol" 2 \
        > /dev/null 2> "$W/last-hol.err" || rc=$?
      sleep 0.1
      sh "$TOP/bench/hol-efficiency.sh" "$HLOG" 5 1 > "$W/hol-eff-$t-$r.txt" || true
      eff=$(awk '$1 == "overall" { print $4, $5, $2, $6 }' "$W/hol-eff-$t-$r.txt")
      own=$(grep -o '[0-9]*% of it' "$W/last-hol.err" | cut -d% -f1)
      pages=$(find "$W/out/hol" -maxdepth 1 -name '[0-9]*' | wc -l)
      # Exactness: every round's directory equals the first round's.
      same=yes
      if [ -d "$W/hol-first" ]; then
        diff -r -q "$W/hol-first" "$W/out/hol" > /dev/null 2>&1 || same=no
      else
        cp -r "$W/out/hol" "$W/hol-first"
      fi
      read -r wall rss < <(tail -1 "$W/time.txt")
      echo "$r $t $eff ${own:--} $wall $rss $pages $same $rc" | tee -a "$HOL" >&2
      cp "$HLOG" "$W/hol-$t-$r.log"
    done
  done
  kill "$TS_PID" 2> /dev/null || true
  TS_PID=
  mkdir -p "$(dirname "$HOL_SVG")"
  sh "$TOP/bench/hol-plot.sh" "$W/hol-16-$PRUNS.log" "$HOL_SVG" \
    "head-of-line site, --rate 5 --burst 1 --download-workers 16: $(awk '{ print $3 }' "$HOL" | tail -1) of the per-host bound (crawler code at $(cd "$TOP" && git log -1 --format=%h -- crawler common libcs50 2> /dev/null))" 5 1 &&
    say "  timeline: $HOL_SVG"
fi

# --- 7. memory on hostile pages ----------------------------------------------------------------
# bench/hostile-site.sh: 2 MB pages of 100,000 links of about 2 KB each.
# Peak RSS (GNU time) of each crawl, with the default budget, and with
# --max-memory 16 MiB when the crawler has it; the spill from the
# summary's memory line.
MEM=$W/mem.tsv
: > "$MEM"
if want mem; then
  say "hostile pages: peak RSS"
  sh "$TOP/bench/hostile-site.sh" "$W/site/hostile" 2>&1 | sed 's/^/  /' >&2
  "$W/bin/testserver" --root "$W/site/hostile" --host 127.0.0.1 --port "$MPORT" \
    --rules "$W/site/hostile/rules" --log "$W/mem-server.log" --max-seconds 3000 \
    2> "$W/mem-server.err" &
  TS_PID=$!
  sleep 0.5
  budgets=default
  "$CRAWLER" --help 2>&1 | grep -q -- --max-memory && budgets="default 16777216"
  # name seed depth max-pages
  for c in "one-parsed big-a.html 1 1" "one-committed big-a.html 1 2" "four-behind-slow seed.html 2 3"; do
    set -- $c
    for bud in $budgets; do
      rm -rf "$W/out/mem"
      mkdir -p "$W/out/mem"
      mopt=
      [ "$bud" != default ] && mopt="--max-memory $bud"
      say "  $1: --max-pages $4, depth $3, budget $bud"
      rc=0
      timeout "$RUN_LIMIT" /usr/bin/time -f '%e %M' -o "$W/time.txt" "$CRAWLER" --stats $mopt \
        --max-pages "$4" "http://127.0.0.1:$MPORT/$2" "$W/out/mem" "$3" \
        > /dev/null 2> "$W/last-mem.err" || rc=$?
      read -r wall rss < <(tail -1 "$W/time.txt")
      spill=$(sed -n 's/^crawler: memory: .*spilled \([0-9]*\) bytes to disk (peak \([0-9]*\) at once).*/\1 \2/p' "$W/last-mem.err")
      echo "$1 $2 $3 $4 $bud $wall $rss ${spill:-- -} $rc" | tee -a "$MEM" >&2
    done
  done
  kill "$TS_PID" 2> /dev/null || true
  TS_PID=
fi
cleanup

# --- tables ------------------------------------------------------------------------------------------
# $RES columns: 1 site 2 medium 3 round 4 tool 5 wall 6 user 7 sys 8 rssKB
# 9 requests 10 files 11 pages 12 other 13 missing 14 extra 15 baddepth
# 16 order 17 exit
col() { # col SITE MEDIUM TOOL EXPR: EXPR over the measured rounds, one a line
  awk -v s="$1" -v m="$2" -v t="$3" '$1 == s && $2 == m && $4 == t && $3 > 0 && $17 < 124 { print '"$4"' }' "$RES"
}
if awk '$1 != "pol"' "$RES" | grep -q .; then
  md "## Crawls (medians of the measured rounds)"
  md ""
  md "files/s = files saved / wall time; CPU = user + system of the crawling process (not nginx) per request nginx logged (robots.txt and 404s included). Exact = rounds whose saved set equals the breadth-first set (pages for us, pages and non-HTML files for the peers), out of all measured rounds."
  md ""
  md "| site | output | tool | files | pages | missing | extra | exact | wall s | files/s | requests | CPU ms/request | peak RSS MB |"
  md "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for sm in $(awk '{ print $1 ":" $2 }' "$RES" | awk '!seen[$0]++'); do
    s=${sm%%:*}
    m=${sm##*:}
    [ "$s" = pol ] && continue
    for t in wget wget2 tse tsev; do
      n=$(col "$s" "$m" "$t" '1' | wc -l)
      [ "$n" -gt 0 ] || continue
      ex=$(col "$s" "$m" "$t" '($13 == 0 && $14 == 0 && $15 == 0)' | awk '{ s += $1 } END { print s + 0 }')
      md "| $s | $m | $t | $(col "$s" "$m" "$t" '$10' | median) | $(col "$s" "$m" "$t" '$11' | median) | $(col "$s" "$m" "$t" '$13' | median) | $(col "$s" "$m" "$t" '$14' | median) | $ex/$n | $(col "$s" "$m" "$t" '$5' | median) | $(col "$s" "$m" "$t" '($5 > 0 ? $10 / $5 : 0)' | median | awk '{ printf "%.0f", $1 }') | $(col "$s" "$m" "$t" '$9' | median) | $(col "$s" "$m" "$t" '($9 > 0 ? ($6 + $7) * 1000 / $9 : 0)' | median | awk '{ printf "%.3f", $1 }') | $(col "$s" "$m" "$t" '$8 / 1024' | median | awk '{ printf "%.1f", $1 }') |"
    done
  done
  # The ratios need the peer in every round (BENCH_TOOLS); a column
  # whose peer did not run is empty.
  if [ "$NTOOLS" -ge 2 ]; then
    md ""
    md "Per-round ratios (ours / peer, computed within each round, then the median; tse: \`${BENCH_TSE_ARGS---download-workers N}\`, tsev: \`--transfers events\`):"
    md ""
    md "| site | output | ours | files/s vs wget | files/s vs wget2 | peak RSS vs wget2 | CPU/request vs wget2 |"
    md "| --- | --- | --- | ---: | ---: | ---: | ---: |"
    for sm in $(awk '{ print $1 ":" $2 }' "$RES" | awk '!seen[$0]++'); do
      s=${sm%%:*}
      m=${sm##*:}
      [ "$s" = pol ] && continue
      [ "$s" = many ] && continue # ours alone: its own table above
      ratio() { # ratio OURS PEER EXPR
        awk -v s="$s" -v m="$m" -v o="$1" -v p="$2" '$1 == s && $2 == m && $3 > 0 && $5 > 0 && $9 > 0 && $17 < 124 {
            v = '"$3"'; if ($4 == o) a[$3] = v; if ($4 == p) b[$3] = v }
          END { for (r in a) if ((r in b) && b[r] > 0) print a[r] / b[r] }' "$RES" | median |
          awk '{ if ($1 == "-") printf "-"; else printf "%.2f", $1 }'
      }
      for o in tse tsev; do
        case " $TOOLS " in *" $o "*) ;; *) continue ;; esac
        md "| $s | $m | $o | $(ratio $o wget '$10 / $5') | $(ratio $o wget2 '$10 / $5') | $(ratio $o wget2 '$8') | $(ratio $o wget2 '($6 + $7) / $9') |"
      done
    done
  fi
  md ""
fi
if [ -s "$POL" ]; then
  md "## Politeness (8 hosts x 40 pages; 10 requests/s per host wanted; medians of $PRUNS rounds)"
  md ""
  md "req/s = requests nginx logged / (last - first request time); worst 1 s = the most requests one host got in any closed 1 s window (any round); efficiency = requests / the per-host bound 1 + 10*t, t from each host's first request to the crawl's last (bench/hol-efficiency.sh, from nginx's log); ceiling = the efficiency of the fastest polite crawl making the same requests (the site gives its hosts unequal work); summary = the crawler's own figure."
  md ""
  md "| tool | command | requests | seconds | req/s overall | worst 1 s window, one host | efficiency (log) | ceiling | summary % |"
  md "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  for t in $TOOLS; do
    case $t in
      tse) c='crawler --rate 10 --burst 1' ;;
      wget) c='wget --wait 0.1' ;;
      wget2) c='wget2 --wait 0.1 --max-threads 8' ;;
    esac
    md "| $t | \`$c\` | $(awk -v t=$t '$2 == t { print $3 }' "$POL" | median) | $(awk -v t=$t '$2 == t { print $4 }' "$POL" | median) | $(awk -v t=$t '$2 == t { print $5 }' "$POL" | median) | $(awk -v t=$t '$2 == t { if ($6 > w) w = $6 } END { print w }' "$POL") | $(awk -v t=$t '$2 == t { print $7 }' "$POL" | median) | $(awk -v t=$t '$2 == t { print $8 }' "$POL" | median) | $(awk -v t=$t '$2 == t { print $9 }' "$POL" | median) |"
  done
  md ""
fi
# $HOL columns: 1 round 2 workers 3 efficiency 4 seconds 5 requests
# 6 ceiling 7 summary% 8 wall 9 rssKB 10 pages 11 same-as-first 12 exit
if [ -s "$HOL" ] || [ -s "$MEM" ]; then
  md "## Head-of-line blocking and the memory budget"
  md ""
fi
if [ -s "$HOL" ]; then
  md "Head-of-line site (bench/hol-site.sh, 10 hosts x 61 requests), \`crawler --rate 5 --burst 1 --download-workers N\`, depth 2, $PRUNS rounds; efficiency from the server's log (bench/hol-efficiency.sh); medians, min-max."
  md ""
  md "| workers | efficiency (log) | ceiling | summary % | crawl s (log) | requests | pages | same directory every round |"
  md "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
  for t in 4 16; do
    hc() { awk -v t=$t '$2 == t { print '"$1"' }' "$HOL"; }
    mm() { sort -g | awk '{ v[NR] = $1 } END { printf "%s-%s", v[1], v[NR] }'; }
    md "| $t | $(hc '$3' | median) ($(hc '$3' | mm)) | $(hc '$6' | median) | $(hc '$7' | median) | $(hc '$4' | median) | $(hc '$5' | median) | $(hc '$10' | median) | $(hc '$11' | sort -u | tr '\n' ' ') |"
  done
  md ""
  md "Timeline of the last 16-worker round: \`$(basename "$HOL_SVG")\`."
  md ""
fi
if [ -s "$MEM" ]; then
  md "Hostile pages (bench/hostile-site.sh), \`crawler [--max-memory B] --max-pages N SEED OUT DEPTH\`, default --rate 1; peak RSS from GNU time."
  md ""
  md "| crawl | seed | depth | --max-pages | --max-memory | wall s | peak RSS KiB | spilled bytes | spill peak | exit |"
  md "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  awk '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' "$MEM" | tee -a "$OUT"
  md ""
fi
# --- the cluster's shared state in Redis ---------------------------------------
if want cluster; then
  say "cluster: Redis memory per seen URL"
  RPORT=$((PORT + 5))
  port_free "$RPORT" || { echo "run.sh: port $RPORT is in use" >&2; exit 1; }
  mkdir -p "$W/redis"
  redis-server --port "$RPORT" --bind 127.0.0.1 --dir "$W/redis" \
    --appendonly yes --save '' --logfile redis.log &
  REDIS_PID=$!
  for _ in $(seq 100); do ss -Hltn "sport = :$RPORT" | grep -q . && break; sleep 0.1; done
  "$W/bin/cluster_bench" "redis://127.0.0.1:$RPORT" 100000 1000000 | tee "$W/cluster.txt" >&2
  kill "$REDIS_PID"; wait "$REDIS_PID" 2> /dev/null || true; REDIS_PID=
  md "## The cluster's shared state (Redis $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'), AOF on)"
  md ""
  md '```'
  md "\$ cluster_bench redis://127.0.0.1:$RPORT 100000 1000000   # commits of 1,000 adds"
  md "$(cat "$W/cluster.txt")"
  md '```'
  md ""
fi
# --- 9. ten thousand hosts by name ------------------------------------------------------
if want tenk; then
  say "ten thousand hosts by name (bench/tenk.sh)"
  # Every parameter given: names like HOSTS and PORT are this script's too.
  HOSTS=${BENCH_TENK_HOSTS:-10000} PAGES=5 DELAY_MS=1000 RATE=0.1 \
    RUNS=${BENCH_TENK_RUNS:-1} CRAWLER_ARGS= ADDR=127.0.0.14 PORT=46000 \
    WORK=$W/tenk RUN_LIMIT=600 bash "$TOP/bench/tenk.sh" "$B" > /dev/null
  cat "$W/tenk/tenk.md" >> "$OUT"
  md ""
fi
md "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg); total $(($(date +%s) - T0)) s."
mkdir -p "$B/bench"
cp "$OUT" "$B/bench/results.md"
cp "$RES" "$B/bench/results.tsv"
[ -s "$POL" ] && cp "$POL" "$B/bench/polite.tsv"
[ -s "$HOL" ] && cp "$HOL" "$B/bench/hol.tsv"
[ -s "$MEM" ] && cp "$MEM" "$B/bench/mem.tsv"
say "done in $(($(date +%s) - T0)) s; tables in $B/bench/results.md, raw rows in $B/bench/results.tsv"
