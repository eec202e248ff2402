# cluster_outage: a single worker whose
# Redis is down for longer than its lease (and, last, one whose Redis
# comes back without its last seconds while the committer waits, and
# one whose Redis loses the commits that completed the crawl): its leases lapse, the keeper
# takes every partition again under new tokens, and results the publisher
# had in hand are fenced and sent again under the new ones while more
# wait on its queue. The crawl must still complete, the same as one
# process's, well within its time (a publisher that sleeps through the
# next result leaves it stuck: the worker never completes).
# OUTAGE_TRIES: the outages to run (2 here; six under make test-long,
# tests/integration/long/cluster_outage.sh).
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd redis-server redis-cli
mktemp_dir
redis_start || { not_ok "redis-server starts"; finish; }

cluster_site || { not_ok "server starts"; finish; }
mkdir "$TEST_DIR/ref"
"$BIN/crawler" --quiet "${CRAWL[@]}" "$SEED" "$TEST_DIR/ref" 2

for try in ${OUTAGE_TRIES:-1 2}; do
  out=$TEST_DIR/out$try
  mkdir "$out"
  timeout -k 5 25 "$BIN/crawler" --quiet --cluster "$REDIS_URL" \
    --crawl-name "outage$try" "${CRAWL[@]}" --lease-timeout 1 \
    "$SEED" "$out" 2 2>"$TEST_DIR/w$try.err" &
  w=$!
  sleep 1.5
  redis_stop
  sleep 2.5
  redis_restart || not_ok "redis-server restarts"
  if [ -n "${OUTAGE_DEBUG:-}" ]; then
    for i in $(seq 200); do kill -0 "$w" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$w" 2>/dev/null; then
      pid=$(pgrep -P "$w" crawler || echo "$w")
      echo "--- stuck after 20 s: gdb of $pid" >&2
      gdb -p "$pid" -batch -ex 'thread apply all bt 3' \
        -ex 'thread find cl_publisher' 2>&1 | grep -E 'cl_|pthread_cond|Thread' >&2
      for t in $(gdb -p "$pid" -batch -ex 'thread apply all bt' 2>/dev/null |
        awk '/^Thread/ {t=$2} /cl_publisher_main/ {print t}'); do
        gdb -p "$pid" -batch -ex "thread $t" -ex 'frame function cl_publisher_main' \
          -ex 'p c->npub' -ex 'p c->phead' -ex 'p *c->phead' -ex 'p *c->phead->t' \
          -ex 'p c->inflight' 2>&1 | grep -E '^\$' >&2
      done
      redis-cli -p "$REDIS_PORT" --scan --pattern "tse:{outage$try}:part:*" |
        while read -r k; do
          n=$(redis-cli -p "$REDIS_PORT" XLEN "$k")
          [ "$n" != 0 ] && { echo "$k left $n"; redis-cli -p "$REDIS_PORT" XRANGE "$k" - +; }
        done >&2
      redis-cli -p "$REDIS_PORT" XRANGE "tse:{outage$try}:results" - + |
        grep -E '^[0-9]+$' | sort -n | head -3 >&2 # the seqs waiting
    fi
  fi
  wait "$w"
  code=$?
  check_eq "try $try: Redis down past the lease, the worker completes" \
    "$code" 0
  check "try $try: the directory equals one process's" \
    diff -r "$TEST_DIR/ref" "$out"
  if [ "$code" != 0 ]; then
    echo "--- w$try.err" >&2
    cat "$TEST_DIR/w$try.err" >&2
    redis-cli -p "$REDIS_PORT" XLEN "tse:{outage$try}:results" >&2
    redis-cli -p "$REDIS_PORT" HGETALL "tse:{outage$try}:commit" >&2
  fi
done
server_stop

# Redis comes back without its last seconds (an AOF of before
# the commit that added the page the committer waits for) while the
# committer has nothing to commit. Its result is then dropped when
# published (its item is not in Redis), so no commit of the committer's
# is ever refused, the way it finds such a Redis otherwise: it must see
# Redis's position for itself. The seed is slow (2 s) so that the AOF is
# taken before its commit; slow.html (6 s) is what the committer waits
# for when Redis goes back.
S=$TEST_DIR/rollback-site
mkdir "$S"
echo '<a href="a.html">a</a> <a href="slow.html">slow</a>' >"$S/index.html"
echo 'a' >"$S/a.html"
echo 'slow' >"$S/slow.html"
printf '/index.html delay 2\n/slow.html delay 6\n' >"$TEST_DIR/rollback-rules"
server_start "$S" --rules "$TEST_DIR/rollback-rules" ||
  { not_ok "server starts"; finish; }
mkdir "$TEST_DIR/rollback-ref" "$TEST_DIR/rollback"
"$BIN/crawler" --quiet --rate 0 "$BASE_URL/index.html" \
  "$TEST_DIR/rollback-ref" 1
timeout -k 5 60 "$BIN/crawler" --quiet --cluster "$REDIS_URL" \
  --crawl-name rollback --rate 0 --lease-timeout 30 "$BASE_URL/index.html" \
  "$TEST_DIR/rollback" 1 2>"$TEST_DIR/rollback.err" &
w=$!
sleep 1 # the seed being fetched
redis-cli -p "$REDIS_PORT" BGREWRITEAOF >/dev/null
sleep 0.5
rm -rf "$TEST_DIR/aof"
cp -a "$REDIS_DIR/appendonlydir" "$TEST_DIR/aof"
sleep 3 # the seed committed, slow.html being fetched
redis_kill
rm -rf "$REDIS_DIR/appendonlydir"
cp -a "$TEST_DIR/aof" "$REDIS_DIR/appendonlydir"
redis_restart || not_ok "redis-server restarts"
wait "$w"
check_eq "Redis back without the committed seed: the worker completes" \
  "$?" 0
check "and the directory equals one process's" \
  diff -r "$TEST_DIR/rollback-ref" "$TEST_DIR/rollback"
server_stop

# Redis loses the commits that completed the crawl (a snapshot while
# a.html's result waits for slow.html's commit, seq 1 before it), after
# the worker removed the temporary names at the end: a.html's result is
# back in Redis, its temporary name gone. The takeover keeps the pages
# it unpublishes (.tmp-kept-ID), and the commit publishes a.html from
# there: without, every worker would stop with "cannot save page 3".
S=$TEST_DIR/ended-site
mkdir "$S"
echo '<a href="slow.html">slow</a> <a href="a.html">a</a>' >"$S/index.html"
echo 'a' >"$S/a.html"
echo 'slow' >"$S/slow.html"
printf '/slow.html delay 5\n' >"$TEST_DIR/ended-rules"
server_start "$S" --rules "$TEST_DIR/ended-rules" ||
  { not_ok "server starts"; finish; }
mkdir "$TEST_DIR/ended-ref" "$TEST_DIR/ended"
"$BIN/crawler" --quiet --rate 0 "$BASE_URL/index.html" "$TEST_DIR/ended-ref" 1
timeout -k 5 60 "$BIN/crawler" --quiet --cluster "$REDIS_URL" \
  --crawl-name ended --rate 0 "$BASE_URL/index.html" "$TEST_DIR/ended" 1 \
  2>"$TEST_DIR/ended.err" &
w=$!
sleep 2 # a.html's result published, waiting for slow.html
check "a result waits for its commit" \
  test "$(redis-cli -p "$REDIS_PORT" XLEN 'tse:{ended}:results')" -gt 0
redis-cli -p "$REDIS_PORT" BGREWRITEAOF >/dev/null
sleep 0.5
rm -rf "$TEST_DIR/aof"
cp -a "$REDIS_DIR/appendonlydir" "$TEST_DIR/aof"
wait "$w"
check_eq "the crawl completes" "$?" 0
check_eq "and its temporary names are gone" \
  "$(ls -A "$TEST_DIR/ended" | grep -c '^\.tmp-')" 0
redis_kill
rm -rf "$REDIS_DIR/appendonlydir"
cp -a "$TEST_DIR/aof" "$REDIS_DIR/appendonlydir"
redis_restart || not_ok "redis-server restarts"
check_eq "Redis came back before the completing commits" \
  "$(redis-cli -p "$REDIS_PORT" HGET 'tse:{ended}:meta' state)" running
timeout -k 5 60 "$BIN/crawler" --quiet --cluster "$REDIS_URL" \
  --crawl-name ended --rate 0 "$BASE_URL/index.html" "$TEST_DIR/ended" 1 \
  2>"$TEST_DIR/ended2.err"
check_eq "a worker started again completes it" "$?" 0
check "and the directory equals one process's" \
  diff -r "$TEST_DIR/ended-ref" "$TEST_DIR/ended"
check_eq "with no temporary name left" \
  "$(ls -A "$TEST_DIR/ended" | grep -c '^\.tmp-')" 0
server_stop
finish
