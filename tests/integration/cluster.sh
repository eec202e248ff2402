# cluster: crawler processes sharing one crawl through Redis (--cluster),
# against a redis-server of the test's own (lib.sh): 1 to 4 workers give
# the single-process golden directories byte for byte; options that differ
# are refused, naming the option; Redis unreachable or a wrong URL writes
# nothing; a worker after the end, --status; kill -9 of a worker, of all
# of them, Redis restarted (AOF) and Redis emptied, each mid-crawl; and
# politeness, robots.txt and Retry-After across workers, from the
# server's log.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd redis-server redis-cli
mktemp_dir
SAMPLES=$TOP/pageDirectory-samples
redis_start || { not_ok "redis-server starts"; finish; }

# worker NAME OUT DEPTH SEED [OPTIONS...]: one worker, in the background
# (its pid in LAST_PID), bounded by a timeout; stderr to $TEST_DIR/NAME.err.
worker() {
  local name=$1 out=$2 depth=$3 seed=$4
  shift 4
  timeout -k 5 180 "$BIN/crawler" --quiet --cluster "$REDIS_URL" \
    --crawl-name "$name" "$@" "$seed" "$out" "$depth" \
    2>>"$TEST_DIR/$name.err" &
  LAST_PID=$!
}

# workers COUNT NAME OUT DEPTH SEED [OPTIONS...]: COUNT workers at once;
# prints their exit codes once all are done.
workers() {
  local count=$1 i pids=() codes=() p
  shift
  mkdir -p "$2"
  for i in $(seq "$count"); do
    worker "$@"
    pids+=("$LAST_PID")
  done
  for p in "${pids[@]}"; do
    wait "$p"
    codes+=("$?")
  done
  echo "${codes[*]}"
}

golden() {  # golden NAME DIR
  rm -rf "$TEST_DIR/portless-$1"
  portless "$2" "$TEST_DIR/portless-$1"
  check "$3: equals the golden $1 byte for byte" \
    diff -r "$SAMPLES/$1" "$TEST_DIR/portless-$1"
}

# ------------------------------------------------------ bundled sites

server_start "$SITES/course" || { not_ok "server starts"; finish; }
for n in 1 2 4; do
  codes=$(workers $n course$n "$TEST_DIR/course$n" 5 "$BASE_URL/index.html" \
    --rate 0)
  want=$(printf '0 %.0s' $(seq $n) | sed 's/ $//')
  name="course, $n workers: every worker exits 0"
  # On failure, what they said, on the TAP line (a CI log may show only it).
  [ "$codes" = "$want" ] || name="$name; they said: $(sort -u \
    "$TEST_DIR/course$n.err" | head -c 600 | tr '\n' '|')"
  check_eq "$name" "$codes" "$want"
  golden course-d5 "$TEST_DIR/course$n" "course, $n workers"
  check_eq "course, $n workers: no temporary name is left" \
    "$(ls -A "$TEST_DIR/course$n" | grep -c '^\.tmp-')" 0
done
check_eq "course: nothing is requested twice in a crawl (3 crawls)" \
  "$(log_targets | sort | uniq -c | awk '$1 > 3' | wc -l)" 0

# The crawl is complete: a worker started now says so and exits 0.
"$BIN/crawler" --cluster "$REDIS_URL" --crawl-name course2 --rate 0 \
  "$BASE_URL/index.html" "$TEST_DIR/course2" 5 2>"$TEST_DIR/late.err"
check_eq "a worker after the end exits 0" "$?" 0
check "and says the crawl is complete" grep -q "complete already" \
  "$TEST_DIR/late.err"

# An option that differs is refused (exit 3), naming it; nothing written.
mkdir "$TEST_DIR/other"
"$BIN/crawler" --cluster "$REDIS_URL" --crawl-name course2 --rate 0 \
  "$BASE_URL/index.html" "$TEST_DIR/other" 4 2>"$TEST_DIR/mismatch.err"
check_eq "a worker with another maxDepth is refused with exit 3" "$?" 3
check "naming maxDepth" grep -q "maxDepth 5, not 4" "$TEST_DIR/mismatch.err"
"$BIN/crawler" --cluster "$REDIS_URL" --crawl-name course2 --rate 0 \
  --domain 127.0.0.1 "$BASE_URL/index.html" "$TEST_DIR/other" 5 \
  2>"$TEST_DIR/mismatch2.err"
check_eq "a worker with another scope is refused with exit 3" "$?" 3
check "naming it" grep -q "domain" "$TEST_DIR/mismatch2.err"
check_eq "and writes nothing" "$(ls -A "$TEST_DIR/other" | wc -l)" 0

# --status: complete (exit 0), with pages per depth.
"$BIN/crawler" --cluster "$REDIS_URL" --crawl-name course4 --status \
  >"$TEST_DIR/status" 2>&1
check_eq "--status of a complete crawl exits 0" "$?" 0
check "and says complete" grep -q "course4}: complete" "$TEST_DIR/status"
check "with its pages per depth" grep -q "^depth 5: 1 pages" "$TEST_DIR/status"
"$BIN/crawler" --cluster "$REDIS_URL" --crawl-name nosuch --status \
  >/dev/null 2>"$TEST_DIR/nosuch.err"
check_eq "--status of no such crawl exits 9" "$?" 9

# Redis unreachable, a wrong URL, --cluster alone: refused, nothing
# written. Port 1 is privileged: nothing listens there.
mkdir "$TEST_DIR/none"
"$BIN/crawler" --cluster redis://127.0.0.1:1 --crawl-name x \
  "$BASE_URL/index.html" "$TEST_DIR/none" 1 2>"$TEST_DIR/unreach.err"
check_eq "Redis unreachable: exit 9" "$?" 9
check "saying so" grep -q "cannot connect to redis://127.0.0.1:1" \
  "$TEST_DIR/unreach.err"
"$BIN/crawler" --cluster http://127.0.0.1:1 --crawl-name x \
  "$BASE_URL/index.html" "$TEST_DIR/none" 1 2>"$TEST_DIR/badurl.err"
check_eq "a URL that is not redis://: exit 1" "$?" 1
"$BIN/crawler" --cluster "$REDIS_URL" "$BASE_URL/index.html" \
  "$TEST_DIR/none" 1 2>/dev/null
check_eq "--cluster without --crawl-name: exit 1" "$?" 1
"$BIN/crawler" --cluster "$REDIS_URL" --crawl-name 'a b{' \
  "$BASE_URL/index.html" "$TEST_DIR/none" 1 2>"$TEST_DIR/badname.err"
check_eq "a crawl name with a space: exit 1 (usage), not 9 (Redis)" "$?" 1
check "naming what a name may hold" grep -q "letters, digits" \
  "$TEST_DIR/badname.err"
check_eq "none of them writes anything" "$(ls -A "$TEST_DIR/none" | wc -l)" 0
server_stop

server_start "$SITES/catalogue" || { not_ok "server starts"; finish; }
codes=$(workers 3 cat3 "$TEST_DIR/cat3" 3 "$BASE_URL/index.html" --rate 0)
check_eq "catalogue, 3 workers: every worker exits 0" "$codes" "0 0 0"
golden catalogue-d3 "$TEST_DIR/cat3" "catalogue, 3 workers"
server_stop

# ------------------------------------------- a polite site of 6 hosts

# start.html (on the seed host) links each host's index; each index
# links 20 pages of its own host. At 5 requests a second a host the
# crawl takes about 4.5 s: time to kill, restart and join mid-crawl.
cluster_site || { not_ok "server starts"; finish; }
POLITE=("${CRAWL[@]}" --lease-timeout 2)
mkdir "$TEST_DIR/ref"
"$BIN/crawler" --quiet "${CRAWL[@]}" "$SEED" "$TEST_DIR/ref" 2
check_eq "the polite site, one process: 1 + 6 + 120 pages" \
  "$(ls "$TEST_DIR/ref" | wc -l)" 127

same_as_ref() {  # same_as_ref DIR WHAT
  check "$2: the directory equals one process's byte for byte" \
    diff -r "$TEST_DIR/ref" "$1"
}

# Three workers, joining at different times, one of them killed (-9)
# mid-crawl: the others finish the crawl, and the dead one's hosts are
# taken over after its lease (2 s).
: >"$SERVER_LOG"
mkdir "$TEST_DIR/kill"
worker kill1 "$TEST_DIR/kill" 2 "$SEED" "${POLITE[@]}"
p1=$LAST_PID
sleep 0.5
worker kill1 "$TEST_DIR/kill" 2 "$SEED" "${POLITE[@]}"
p2=$LAST_PID
worker kill1 "$TEST_DIR/kill" 2 "$SEED" "${POLITE[@]}"
p3=$LAST_PID
sleep 1.5
kill -9 "$(timed_child "$p2")"
wait "$p1"
c1=$?
wait "$p3"
c3=$?
wait "$p2" 2>/dev/null
check_eq "kill -9 of one of 3 workers: the others exit 0" "$c1 $c3" "0 0"
same_as_ref "$TEST_DIR/kill" "kill -9 of one worker"
for h in $HOSTS; do
  check "kill -9: $h got at most 1 + $R/s across the workers" \
    window_ok "$SERVER_LOG" "$h" $R 1
done
check_eq "kill -9: robots.txt asked once per host" \
  "$(log_targets | grep -c '^/robots.txt$')" 6
check_eq "kill -9: no temporary file left" \
  "$(ls -A "$TEST_DIR/kill" | grep -c '^\.tmp-')" 0
check "a lease under 4 s is warned about" \
  grep -q "warning: --lease-timeout 2: a worker acts until 1 s" \
  "$TEST_DIR/kill1.err"
check_eq "the default lease is not" \
  "$(grep -c warning "$TEST_DIR/course2.err")" 0

# A worker paused (SIGSTOP) past its lease, then let go on: the other
# took its hosts and the commit over meanwhile, so what the paused one
# still had in hand is refused (fencing) and nothing of it lands twice.
: >"$SERVER_LOG"
mkdir "$TEST_DIR/pause"
worker pause1 "$TEST_DIR/pause" 2 "$SEED" "${POLITE[@]}"
q1=$LAST_PID
sleep 0.5
worker pause1 "$TEST_DIR/pause" 2 "$SEED" "${POLITE[@]}"
q2=$LAST_PID
sleep 1
q1c=$(timed_child "$q1")
kill -STOP "$q1c"
sleep 4
kill -CONT "$q1c"
wait "$q1"
c1=$?
wait "$q2"
c2=$?
check_eq "a worker paused past its lease: both exit 0" "$c1 $c2" "0 0"
same_as_ref "$TEST_DIR/pause" "a worker paused past its lease"
for h in $HOSTS; do
  check "paused worker: $h got at most 1 + $R/s across the workers" \
    window_ok "$SERVER_LOG" "$h" $R 1
done

# Every worker killed, then one started again: it goes on from there.
mkdir "$TEST_DIR/all"
worker all1 "$TEST_DIR/all" 2 "$SEED" "${POLITE[@]}"
a1=$LAST_PID
worker all1 "$TEST_DIR/all" 2 "$SEED" "${POLITE[@]}"
a2=$LAST_PID
sleep 1.5
kill -9 "$(timed_child "$a1")" "$(timed_child "$a2")"
wait "$a1" "$a2" 2>/dev/null
saved=$(ls "$TEST_DIR/all" | wc -l)
check "every worker killed mid-crawl: not every page saved ($saved)" \
  test "$saved" -lt 127
codes=$(workers 1 all1 "$TEST_DIR/all" 2 "$SEED" "${POLITE[@]}")
check_eq "one worker started again completes the crawl" "$codes" 0
same_as_ref "$TEST_DIR/all" "every worker killed, one started again"

# Redis restarted mid-crawl (SIGTERM: it writes its AOF): the workers
# wait, say so, and the crawl completes the same.
mkdir "$TEST_DIR/restart"
worker rs1 "$TEST_DIR/restart" 2 "$SEED" "${POLITE[@]}"
r1=$LAST_PID
worker rs1 "$TEST_DIR/restart" 2 "$SEED" "${POLITE[@]}"
r2=$LAST_PID
sleep 1.5
redis_stop
sleep 1
redis_restart || not_ok "redis-server restarts"
wait "$r1"
c1=$?
wait "$r2"
c2=$?
check_eq "Redis restarted mid-crawl: both workers exit 0" "$c1 $c2" "0 0"
same_as_ref "$TEST_DIR/restart" "Redis restarted"
check "the workers said they lost Redis" grep -q "lost Redis" \
  "$TEST_DIR/rs1.err"
check "and that it was back" grep -q "is back" "$TEST_DIR/rs1.err"

# Redis crashed and came back without its last second or so (an AOF
# written every second keeps a prefix of history): commits it lost are
# done again, the same way, and the crawl completes the same.
mkdir "$TEST_DIR/tail"
worker tail1 "$TEST_DIR/tail" 2 "$SEED" "${POLITE[@]}"
t1=$LAST_PID
worker tail1 "$TEST_DIR/tail" 2 "$SEED" "${POLITE[@]}"
t2=$LAST_PID
sleep 1.5
redis-cli -p "$REDIS_PORT" BGREWRITEAOF >/dev/null
sleep 0.5
rm -rf "$TEST_DIR/aof"
cp -a "$REDIS_DIR/appendonlydir" "$TEST_DIR/aof"
sleep 1
redis_kill
rm -rf "$REDIS_DIR/appendonlydir"
cp -a "$TEST_DIR/aof" "$REDIS_DIR/appendonlydir"
redis_restart || not_ok "redis-server restarts"
wait "$t1"
c1=$?
wait "$t2"
c2=$?
check_eq "Redis lost its last second: both workers exit 0" "$c1 $c2" "0 0"
same_as_ref "$TEST_DIR/tail" "Redis lost its last second"

# Redis back empty (killed, its files gone): detected, the worker stops
# with exit 9 and a reason, and every page it saved is right.
mkdir "$TEST_DIR/wiped"
worker wipe1 "$TEST_DIR/wiped" 2 "$SEED" "${POLITE[@]}"
w1=$LAST_PID
sleep 1.5
redis_kill
redis_wipe
redis_restart || not_ok "redis-server restarts"
wait "$w1"
check_eq "Redis back empty: the worker exits 9" "$?" 9
check "saying why" grep -q "come back empty" "$TEST_DIR/wipe1.err"
bad=0
for f in "$TEST_DIR/wiped"/[0-9]*; do
  [ -e "$f" ] || continue
  cmp -s "$f" "$TEST_DIR/ref/$(basename "$f")" || bad=$((bad + 1))
done
check_eq "Redis back empty: every page saved is the right one" "$bad" 0
server_stop

# Redirects across partitions: 5 hosts redirect 4 pages each to a sixth,
# which has 6 pages of its own; 3 workers. A redirect to a host another
# worker holds is handed to it (its bucket), so the sixth host stays
# within 1 + R t whoever fetched the redirect, and the directory is one
# process's.
S4=$TEST_DIR/hop-site
mkdir "$S4"
AHOSTS=$(seq 8 12 | sed 's/^/127.0.0./')
B=127.0.0.13
{
  for h in $AHOSTS; do echo "<a href=\"http://$h:{{port}}/a.html\">$h</a>"; done
  echo "<a href=\"http://$B:{{port}}/b.html\">$B</a>"
} >"$S4/start.html"
for i in 1 2 3 4; do echo "<a href=\"r$i.html\">r$i</a>"; done >"$S4/a.html"
for i in $(seq 6); do echo "<a href=\"q$i.html\">q$i</a>"; done >"$S4/b.html"
for i in $(seq 6); do echo "q $i" >"$S4/q$i.html"; done
for h in $AHOSTS; do
  for i in 1 2 3 4; do
    echo "t $h $i" >"$S4/t-$h-$i.html"
    echo "$h /r$i.html redirect 302 http://$B:{{port}}/t-$h-$i.html"
  done
done >"$TEST_DIR/hop-rules"
host_args=(--rules "$TEST_DIR/hop-rules" --host "$B")
for h in $AHOSTS; do host_args+=(--host "$h"); done
server_start "$S4" "${host_args[@]}" || { not_ok "server starts"; finish; }
HOP=(--rate $R --burst 1 --domain "$B")
for h in $AHOSTS; do HOP+=(--domain "$h"); done
HSEED=http://127.0.0.8:$PORT/start.html
mkdir "$TEST_DIR/hop-ref"
"$BIN/crawler" --quiet "${HOP[@]}" "$HSEED" "$TEST_DIR/hop-ref" 2
: >"$SERVER_LOG"
codes=$(workers 3 hop1 "$TEST_DIR/hop" 2 "$HSEED" "${HOP[@]}")
check_eq "redirects across partitions, 3 workers: every worker exits 0" \
  "$codes" "0 0 0"
check "redirects across partitions: the directory equals one process's" \
  diff -r "$TEST_DIR/hop-ref" "$TEST_DIR/hop"
check_eq "redirects across partitions: each target asked once" \
  "$(log_targets "$B" | grep -c '^/t-')" 20
check "redirects across partitions: $B got at most 1 + $R/s" \
  window_ok "$SERVER_LOG" "$B" $R 1
server_stop

# Retry-After across workers: a worker gets a 503 asking for 6 s and is
# killed; the worker that takes its partition over keeps the pause (no
# request to the host in the 6 s after the 503, from the server's log).
S3=$TEST_DIR/busy-site
mkdir "$S3"
{
  echo '<a href="busy.html">busy</a>'
  for i in 1 2 3 4; do echo "<a href=\"q$i.html\">$i</a>"; done
} >"$S3/index.html"
for i in 1 2 3 4; do echo "q $i" >"$S3/q$i.html"; done
echo busy >"$S3/busy.html"
printf '/busy.html status 503\n/busy.html header Retry-After 6\n' \
  >"$TEST_DIR/busy-rules"
server_start "$S3" --rules "$TEST_DIR/busy-rules" ||
  { not_ok "server starts"; finish; }
# One download thread: no request goes out while the 503 is on its way.
BUSY=(--rate 100 --burst 5 --retries 1 --download-workers 1
  --lease-timeout 1)
mkdir "$TEST_DIR/busy"
worker busy1 "$TEST_DIR/busy" 1 "$BASE_URL/" "${BUSY[@]}"
b1=$LAST_PID
for _ in $(seq 100); do
  awk -F'\t' '$5 == 503 { f = 1 } END { exit !f }' "$SERVER_LOG" && break
  sleep 0.1
done
sleep 0.3
kill -9 "$(timed_child "$b1")"
wait "$b1" 2>/dev/null
worker busy1 "$TEST_DIR/busy" 1 "$BASE_URL/" "${BUSY[@]}"
b2=$LAST_PID
wait "$b2"
check_eq "Retry-After, its worker killed: the next one exits 0" "$?" 0
# (Its attempts were the killed worker's: the next one tries it twice.)
check "busy.html asked again after the kill" \
  test "$(log_count /busy.html)" -ge 2
check "Retry-After 6 holds for the worker that took the host over" \
  quiet_after 6
server_stop

# A Retry-After that comes after its host moved: busy.html answers 503
# (Retry-After 10) 3 s after it is asked; meanwhile a second worker joins
# and the plan gives it the host's partition (the heaviest but one). The
# pause reaches it when it is recorded: no request from 0.05 s after the
# answer until 10 s after it (the server logs a request when it decides
# the answer, before the delay).
S5=$TEST_DIR/late-site
mkdir "$S5"
{
  echo '<a href="busy.html">busy</a>'
  for i in $(seq 30); do echo "<a href=\"q$i.html\">$i</a>"; done
} >"$S5/index.html"
for i in $(seq 30); do echo "q $i" >"$S5/q$i.html"; done
echo busy >"$S5/busy.html"
printf '/busy.html delay 3\n/busy.html status 503\n/busy.html header Retry-After 10\n' \
  >"$TEST_DIR/late-rules"
server_start "$S5" --rules "$TEST_DIR/late-rules" ||
  { not_ok "server starts"; finish; }
LATE=(--rate 2 --burst 1 --retries 1 --download-workers 2)
mkdir "$TEST_DIR/late"
worker late1 "$TEST_DIR/late" 1 "$BASE_URL/" "${LATE[@]}"
l1=$LAST_PID
for _ in $(seq 100); do
  grep -q busy.html "$SERVER_LOG" && break
  sleep 0.05
done
worker late1 "$TEST_DIR/late" 1 "$BASE_URL/" "${LATE[@]}"
l2=$LAST_PID
wait "$l1"
c1=$?
wait "$l2"
check_eq "a late Retry-After: both workers exit 0" "$c1 $?" "0 0"
late_quiet() {
  awk -F'\t' '
    BEGIN { n = 0 } # else the first line is filed under ""
    { t[n] = $1; st[n] = $5; tg[n++] = $4 }
    END {
      bad = 0
      for (i = 0; i < n; i++)
        if (st[i] == 503 && tg[i] == "/busy.html")
          for (j = 0; j < n; j++)
            if (t[j] > t[i] + 3.05 && t[j] < t[i] + 3 + 10 - 0.02) {
              printf "# a request %.3f s after the 503 was sent\n",
                t[j] - t[i] - 3 > "/dev/stderr"
              bad = 1
            }
      exit bad
    }' "$SERVER_LOG"
}
check "a Retry-After that came after its host moved holds there too" \
  late_quiet
server_stop
finish
