#!/usr/bin/env bash
# bench/cluster-scale.sh BUILD_DIR [ROUNDS]: what a crawl shared by
# crawler processes through Redis (--cluster) gains and costs, on this
# machine, in alternating rounds (medians; every crawl checked against
# one process's directory):
#   latency  a generated site of 32 hosts whose every response is 20 ms
#            late (bench/delayserver), depth 4: 1, 2 and 4 workers of 8
#            download threads each, pages/s
#   gen      the generated site of 8 hosts (1,000 pages each, depth 4)
#            at full speed (no delay, no rate limit): one process without
#            --cluster against 2 workers, pages/s and CPU seconds
#   redis    Redis round trips per saved page (each worker counts its
#            own and prints them in its summary), in the runs above
#   cpu      the CPU seconds of a crawl on the whole machine: the
#            crawlers, Redis (INFO cpu) and the site's server (/proc):
#            on 2 cores at full speed, wall time follows it
# Ports: BENCH_PORT (default 38617) and the next two. Output: markdown on
# stdout; progress on stderr. Needs redis-server (make deps).
set -euo pipefail
B=$(cd "${1:?usage: cluster-scale.sh BUILD_DIR [ROUNDS]}" && pwd)
ROUNDS=${2:-3}
TOP=$(cd "$(dirname "$0")/.." && pwd)
PORT=${BENCH_PORT:-38617}
LPORT=$((PORT + 1))
RPORT=$((PORT + 2))
# Output on tmpfs, as the main bench: on ext4, making and removing a
# directory of 4,000 pages a round made the crawls spend seconds in the
# kernel (inode allocation skipping recently deleted inodes).
W=$(mktemp -d "${BENCH_TMP:-/dev/shm}/tse-cluster-bench.XXXXXX")
PIDS=()
declare -A SERVER # port -> the delayserver's pid
cleanup() {
  local p
  for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$W"
}
trap cleanup EXIT
say() { printf '[%s load %s] %s\n' "$(date +%T)" "$(cut -d' ' -f1 /proc/loadavg)" "$*" >&2; }

make -s -C "$TOP/bench" >&2
CRAWLER=$B/bin/crawler
hosts() { seq 2 $(($1 + 1)) | sed 's/^/127.0.0./'; }

say "generating sites in $W"
"$B/bench/gensite" "$W/lat" "$LPORT" 32 150 4 >&2
"$B/bench/gensite" "$W/gen" "$PORT" 8 1000 4 >&2
"$B/bench/delayserver" --port "$LPORT" --delay-ms 20 --root "$W/lat" \
  --lifetime 3000 $(hosts 32) 2>/dev/null &
PIDS+=($!)
SERVER[$LPORT]=$!
"$B/bench/delayserver" --port "$PORT" --delay-ms 0 --root "$W/gen" \
  --lifetime 3000 $(hosts 8) 2>/dev/null &
PIDS+=($!)
SERVER[$PORT]=$!
mkdir "$W/redis"
redis-server --port "$RPORT" --bind 127.0.0.1 --dir "$W/redis" \
  --appendonly yes --appendfsync everysec --save '' --logfile redis.log \
  >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5
REDIS=redis://127.0.0.1:$RPORT

domains() { local h; for h in $(hosts "$1"); do printf -- '--domain %s ' "$h"; done; }
LAT_ARGS="--rate 0 --download-workers 8 $(domains 32)"
GEN_ARGS="--rate 0 --download-workers 8 $(domains 8)"

# redis_cpu: Redis's CPU seconds so far; server_cpu PORT: the site
# server's (clock ticks as seconds).
redis_cpu() {
  redis-cli -p "$RPORT" info cpu |
    awk -F: '/^used_cpu_(user|sys):/ { s += $2 } END { printf "%.3f", s }'
}
server_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f", ($14 + $15) / hz }' \
    "/proc/${SERVER[$1]}/stat"
}

# run SITE N OUT ARGS...: N workers of a fresh crawl (N=0: one process
# without --cluster); prints "wall_s cpu_s pages round_trips redis_s
# server_s" (round trips: the workers' own count, from their summaries;
# CPU of the crawlers, of Redis and of the site's server).
run() {
  local site=$1 n=$2 out=$3 i t0 t1 c0 c1 cpu=0 f name r0 r1 s0 s1
  shift 3
  name=run$(date +%s%N) # run is called in $(...): no counter survives
  rm -rf "$out"
  mkdir "$out"
  r0=$(redis_cpu)
  s0=$(server_cpu "$site")
  t0=$(date +%s.%N)
  if [ "$n" = 0 ]; then
    /usr/bin/time -f '%U %S' -o "$W/time.0" "$CRAWLER" --quiet "$@" \
      "http://127.0.0.2:$site/index.html" "$out" "$DEPTH"
  else
    for i in $(seq "$n"); do
      /usr/bin/time -f '%U %S' -o "$W/time.$i" "$CRAWLER" --stats \
        --cluster "$REDIS" --crawl-name "$name" "$@" \
        "http://127.0.0.2:$site/index.html" "$out" "$DEPTH" 2> "$W/err.$i" &
    done
    wait
  fi
  t1=$(date +%s.%N)
  r1=$(redis_cpu)
  s1=$(server_cpu "$site")
  c0=0
  c1=$({ cat "$W"/err.* 2> /dev/null || true; } |
    awk '/Redis round trips/ { n += $5 } END { print n + 0 }')
  rm -f "$W"/err.*
  for f in "$W"/time.*; do
    cpu=$(awk -v c="$cpu" '{ print c + $1 + $2 }' "$f")
  done
  rm -f "$W"/time.*
  echo "$t0 $t1 $cpu $(ls "$out" | wc -l) $((c1 - c0)) $r0 $r1 $s0 $s1" |
    awk '{ printf "%.3f %.2f %d %d %.3f %.3f\n", $2 - $1, $3, $4, $5,
           $7 - $6, $9 - $8 }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The reference directories, one process each.
DEPTH=4
say "latency site: the reference crawl"
run "$LPORT" 0 "$W/ref-lat" $LAT_ARGS > /dev/null
DEPTH=4
say "generated site: the reference crawl"
run "$PORT" 0 "$W/ref-gen" $GEN_ARGS > /dev/null

: > "$W/rows"
for r in $(seq "$ROUNDS"); do
  DEPTH=4
  for n in 1 2 4; do
    say "round $r: latency site, $n workers"
    row=$(run "$LPORT" "$n" "$W/out" $LAT_ARGS)
    same=$(diff -rq "$W/ref-lat" "$W/out" > /dev/null && echo yes || echo NO)
    echo "lat $n $row $same" >> "$W/rows"
  done
  DEPTH=4
  for n in 0 2; do
    say "round $r: generated site, $([ $n = 0 ] && echo 'one process' || echo "$n workers")"
    row=$(run "$PORT" "$n" "$W/out" $GEN_ARGS)
    same=$(diff -rq "$W/ref-gen" "$W/out" > /dev/null && echo yes || echo NO)
    echo "gen $n $row $same" >> "$W/rows"
  done
done
cat "$W/rows" >&2

col() { awk -v s="$1" -v n="$2" '$1 == s && $2 == n { print '"$3"' }' "$W/rows" | median; }
echo "Latency site (32 hosts, 20 ms a response, depth 4, $(ls "$W/ref-lat" | wc -l) pages), 8 download threads a worker, $ROUNDS alternating rounds, medians:"
echo ""
echo "| workers | wall s | pages/s | vs 1 | CPU s (all workers) | Redis round trips / page | same directory |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: | --- |"
base=$(col lat 1 '$5 / $3')
for n in 1 2 4; do
  pps=$(col lat $n '$5 / $3')
  echo "| $n | $(col lat $n '$3') | $(printf %.0f "$pps") | $(awk -v a="$pps" -v b="$base" 'BEGIN { printf "%.2f", a / b }')x | $(col lat $n '$4') | $(printf %.2f "$(col lat $n '$6 / $5')") | $(awk -v n=$n '$1 == "lat" && $2 == n { print $9 }' "$W/rows" | sort -u | tr '\n' ' ') |"
done
echo ""
echo "Generated site (8 hosts, 1,000 pages each, depth 4, $(ls "$W/ref-gen" | wc -l) pages), full speed, 8 download threads a process, $ROUNDS alternating rounds, medians:"
echo ""
echo "| crawl | wall s | pages/s | vs one process | CPU s | Redis CPU s | server CPU s | machine CPU s (all three) | vs one process | Redis round trips / page | same directory |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
base=$(col gen 0 '$5 / $3')
cbase=$(col gen 0 '$4 + $7 + $8')
for n in 0 2; do
  pps=$(col gen $n '$5 / $3')
  all=$(col gen $n '$4 + $7 + $8')
  echo "| $([ $n = 0 ] && echo 'one process' || echo "$n workers, --cluster") | $(col gen $n '$3') | $(printf %.0f "$pps") | $(awk -v a="$pps" -v b="$base" 'BEGIN { printf "%.2f", a / b }')x | $(col gen $n '$4') | $(col gen $n '$7') | $(col gen $n '$8') | $all | $(awk -v a="$all" -v b="$cbase" 'BEGIN { printf "%.2f", a / b }')x | $(printf %.2f "$(col gen $n '$6 / $5')") | $(awk -v n=$n '$1 == "gen" && $2 == n { print $9 }' "$W/rows" | sort -u | tr '\n' ' ') |"
done
