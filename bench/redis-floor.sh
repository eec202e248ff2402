#!/usr/bin/env bash
# bench/redis-floor.sh [ROUNDS]: Redis's CPU for the data flow
# of a crawl shared through Redis, in plain pipelined commands
# (bench/redis_floor.c: no Lua, no leases to keep, no heartbeat),
# against the cluster's own protocol (bench/cluster-scale.sh). The sizes
# are those of 2 workers crawling the generated site of
# bench/cluster-scale.sh, read off a crawl's AOF: 8,504 items, a result
# each (561 bytes on average), 28 results a batch, 8 partitions (a host
# each); the items leave their partition by XDEL, as the protocol's do,
# or by XTRIM MINID, cheaper for Redis; and "watch": XDEL with the
# fencing of the protocol's scripts done without Lua (WATCH the leases,
# read their tokens, then the step in MULTI/EXEC: a round trip more for
# each of the three fenced steps). The difference from the protocol's
# Redis CPU is what its Lua scripts, leases and heartbeats cost, at
# about the protocol's round trips (1,250 to 1,550 a crawl). "Reads
# processed" (INFO stats) counts the round trips and the script's own
# INFO and XLEN calls.
#   FLOOR_RESULTS, FLOOR_BYTES, FLOOR_BATCH, FLOOR_PARTS: the sizes.
# Port: BENCH_PORT (default 38617) + 3. Output: markdown on stdout.
set -euo pipefail
ROUNDS=${1:-5}
RES=${FLOOR_RESULTS:-8504}
BYTES=${FLOOR_BYTES:-561}
BATCH=${FLOOR_BATCH:-28}
PARTS=${FLOOR_PARTS:-8}
TOP=$(cd "$(dirname "$0")/.." && pwd)
PORT=$((${BENCH_PORT:-38617} + 3))
W=$(mktemp -d "${BENCH_TMP:-/dev/shm}/tse-redis-floor.XXXXXX")
RP=
cleanup() {
  [ -z "$RP" ] || kill "$RP" 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT

# The cluster's archive first (the tool uses its URL parser).
FLOOR=$TOP/build/bench/redis_floor
make -s -C "$TOP" all >&2
make -s -C "$TOP/bench" "$FLOOR" >&2

info() { redis-cli -p "$PORT" info "$1"; }
cpu() { info cpu | awk -F: '/^used_cpu_(user|sys):/ { s += $2 } END { printf "%.3f", s }'; }
reads() { info stats | awk -F: '/^total_reads_processed:/ { print $2 + 0 }'; }
# ours: the server answering on PORT is the one started (RP), not
# another one already there.
ours() { [ "$(info server 2>/dev/null | awk -F: '/^process_id:/ { print $2 + 0 }')" = "$RP" ]; }
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: > "$W/rows"
for r in $(seq "$ROUNDS"); do
  for how in xdel trim watch; do
    # A fresh server a run (the tool gives its stream IDs), AOF on as
    # the bench's crawls have it.
    rm -rf "$W/redis"
    mkdir "$W/redis"
    redis-server --port "$PORT" --bind 127.0.0.1 --dir "$W/redis" \
      --appendonly yes --appendfsync everysec --save '' --logfile redis.log \
      > /dev/null 2>&1 &
    RP=$!
    for _ in $(seq 50); do
      ours && break
      kill -0 "$RP" 2>/dev/null || { echo "redis-floor: redis-server did not start on port $PORT" >&2; exit 1; }
      sleep 0.1
    done
    ours || { echo "redis-floor: redis-server on port $PORT did not answer" >&2; exit 1; }
    c0=$(cpu)
    n0=$(reads)
    if ! trips=$("$FLOOR" "redis://127.0.0.1:$PORT" "$RES" \
      "$BYTES" "$BATCH" "$PARTS" "$how"); then
      echo "redis-floor: the $how run failed" >&2
      exit 1
    fi
    echo "$how $(awk -v a="$c0" -v b="$(cpu)" 'BEGIN { printf "%.3f", b - a }') $(($(reads) - n0)) $trips" >> "$W/rows"
    kill "$RP"
    wait "$RP" 2>/dev/null || true
    RP=
  done
done
col() { awk -v h="$1" '$1 == h { print $'"$2"' }' "$W/rows" | median; }
echo "Redis $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'), AOF on: $RES items and results of $BYTES bytes, $BATCH a batch, $PARTS partitions, 4 round trips a batch (7 with watch); medians of $ROUNDS rounds:"
echo ""
echo "| items leave by | Redis CPU s | reads processed | round trips |"
echo "| --- | ---: | ---: | ---: |"
for how in xdel trim watch; do
  echo "| $how | $(col $how 2) | $(col $how 3 | cut -d. -f1) | $(col $how 4 | cut -d. -f1) |"
done
