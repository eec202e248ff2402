# events_thousand: the event loop (the default --transfers events) at a
# thousand transfers (issue 34). The site (bench/many-site.sh): 1,000
# hosts, one a port of a loopback address of our own, each a robots.txt,
# an index and a page; the seed links every host's index. bench/delayserver
# answers every request 1 s after it arrived and logs arrival and answer,
# so "in flight at once" is counted from its log. At depth 1 and the
# default --rate 1, the 1,000 robots.txt fall due at once when the seed is
# parsed, and the 1,000 indexes a second later.
#
# 1. An uninterrupted crawl: every page saved; at least 900 requests in
#    flight at once (one thread, a socket each).
# 2. SIGINT with the indexes in flight (about a thousand), then --resume:
#    exit 5, then 0, and the directory of the uninterrupted crawl.
#
# Needs the hard open-file limit the crawler asks for a thousand
# transfers (4 a transfer and 256: webcrawl.c, FDS_TRANSFER) and the
# delayserver's 2 a host; skipped below 5,000.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTS_BIN/delayserver"
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$hard" -ge 5000 ] ||
  skip_all "the hard open-file limit ($hard) is below 5000"
ulimit -n "$hard" 2>/dev/null || true
mktemp_dir
H=1000
DELAY=1000 # ms
FLOOR=900
delay_site_start "$H" 1 "$DELAY" || { not_ok "delayserver starts on $H ports"; finish; }
LOG=$DS_LOG

# 1. Uninterrupted.
mkdir "$TEST_DIR/ref"
"$BIN/crawler" --quiet --domain "$ADDR" "$SEED" "$TEST_DIR/ref" 1 \
  2>"$TEST_DIR/ref.err"
check_eq "uninterrupted: the crawl succeeds" "$?" 0
check_eq "uninterrupted: the seed and $H indexes saved" \
  "$(ls "$TEST_DIR/ref" | wc -l)" $((H + 1))
n=$(max_inflight "$LOG")
echo "# uninterrupted: $n requests in flight at once (floor $FLOOR)" >&2
check "uninterrupted: at least $FLOOR requests in flight at once ($n)" \
  test "$n" -ge "$FLOOR"

# 2. SIGINT once the robots.txt are answered (the indexes then in flight),
# then --resume.
: >"$LOG"
mkdir "$TEST_DIR/int"
"$BIN/crawler" --quiet --domain "$ADDR" "$SEED" "$TEST_DIR/int" 1 \
  2>"$TEST_DIR/int.err" &
pid=$!
for _ in $(seq 200); do
  [ "$(grep -c '/robots.txt ' "$LOG")" -ge "$H" ] && break
  sleep 0.05
done
sleep 0.5
t=$(date +%s.%N)
kill -INT "$pid"
wait "$pid"
check_eq "SIGINT: exit status 5 (interrupted)" "$?" 5
n=$(ls "$TEST_DIR/int" | wc -l)
check "SIGINT: some pages saved, not all ($n)" test "$n" -lt $((H + 1))
# In flight at the signal: arrived before it, answered after it (the
# crawler waits for what it has in flight, then stops).
n=$(awk -v t="$t" '$1 < t && $2 > t' "$LOG" | wc -l)
echo "# SIGINT with $n requests in flight" >&2
check "SIGINT: it came with many transfers in flight ($n)" \
  test "$n" -ge "$FLOOR"
"$BIN/crawler" --quiet --resume --domain "$ADDR" "$SEED" "$TEST_DIR/int" 1 \
  2>"$TEST_DIR/resume.err"
check_eq "--resume: the crawl succeeds" "$?" 0
check "SIGINT + --resume: the uninterrupted crawl, byte for byte" \
  diff -r "$TEST_DIR/ref" "$TEST_DIR/int"
delay_site_stop
finish
