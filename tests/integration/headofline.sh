# headofline: one big host must not hold a polite crawl back (issue 13,
# item 1). The site (bench/hol-site.sh): 10 hosts, each a robots.txt, an
# index and 59 pages; the seed host's index links its own 59 pages, then
# the other 9 hosts' indexes. At --rate 5 --burst 1 every host needs 12 s
# from its robots.txt for its 61 requests; a crawl whose commit waits for
# the seed host's pages, while the other hosts have nothing they may
# fetch, leaves those hosts idle for seconds and takes 18 s.
#
# Asserts, for 4 and for 16 download workers:
#   - the crawl succeeds and saves the 600 pages;
#   - no host gets more than its bound, B + R*t from its first request;
#   - the efficiency measured from the server's log (requests / the sum
#     over hosts of B + R*t, t from the host's first request, its
#     robots.txt, to the crawl's last request: bench/hol-efficiency.sh)
#     is at least FLOOR; the crawler's own summary figure is printed;
# and that the page directories of 4 and 16 workers and of a --rate 0
# crawl are identical (exactness: speed must not change the result).
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
R=5       # requests per second per host
BURST=1
# FLOOR: the issue's target, 0.95 of the bound. The schedule is the
# crawler's own (token buckets on a monotonic clock), so load on the
# machine costs little: a request is late by its thread's wake-up, a few
# ms of the 200 ms between two requests of a host. Under a sanitizer
# (make asan/tsan set *SAN_OPTIONS) threads run 5-15x slower and parsing
# 600 pages alone takes seconds, so there only a gross stall fails: 0.80
# (the code before the fix scores 0.67 either way).
FLOOR=0.95
if [ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ]; then
  FLOOR=0.80
fi
S=$TEST_DIR/site
sh "$TOP/bench/hol-site.sh" "$S" 10 59 2>/dev/null
HOSTS=$(seq 2 11 | sed 's/^/127.0.0./')
host_args=()
for h in $HOSTS; do
  host_args+=(--host "$h")
done
server_start "$S" "${host_args[@]}" || { not_ok "server starts"; finish; }
scope_args=()
for h in $HOSTS; do
  scope_args+=(--scope "http://$h:$PORT/")
done
SEED=http://127.0.0.2:$PORT/index.html

# over_bound REPORT: hosts of hol-efficiency.sh's REPORT with more
# requests than their bound plus one (one request of slack: the log has
# arrival times, and a request may arrive a few ms after its token).
over_bound() {
  awk '$1 == "host" && $8 > $10 + 1 { print "# " $0; bad = 1 }
       END { exit bad }' "$1" >&2
}

for W in 4 16; do
  : >"$SERVER_LOG"
  mkdir "$TEST_DIR/out$W"
  "$BIN/crawler" --stats --rate $R --burst $BURST --download-workers $W \
    "${scope_args[@]}" "$SEED" "$TEST_DIR/out$W" 2 2>"$TEST_DIR/err$W"
  check_eq "$W workers: crawl succeeds" "$?" 0
  check_eq "$W workers: 10 x 60 pages saved" \
    "$(find "$TEST_DIR/out$W" -maxdepth 1 -name '[0-9]*' | wc -l)" 600
  cp "$SERVER_LOG" "$TEST_DIR/server$W.log"
  sh "$TOP/bench/hol-efficiency.sh" "$SERVER_LOG" $R $BURST \
    >"$TEST_DIR/eff$W" || true
  sed 's/^/# /' "$TEST_DIR/eff$W" >&2
  check "$W workers: no host above B + R*t from its first request" \
    over_bound "$TEST_DIR/eff$W"
  e=$(awk '$1 == "overall" { print $4 }' "$TEST_DIR/eff$W")
  summary=$(grep -o '[0-9]*% of it' "$TEST_DIR/err$W" || echo '?')
  echo "# $W workers: efficiency ${e:-?} from the server's log;" \
    "the crawler's summary says $summary" >&2
  check "$W workers: efficiency ${e:-?} (server log) >= $FLOOR" \
    awk -v e="${e:-0}" -v f="$FLOOR" 'BEGIN { exit !(e >= f) }'
done
# Exactness: the same directory at full speed (--rate 0), from the same
# server (the port is part of every saved URL).
mkdir "$TEST_DIR/out0"
"$BIN/crawler" --rate 0 --download-workers 16 "${scope_args[@]}" "$SEED" \
  "$TEST_DIR/out0" 2 2>"$TEST_DIR/err0"
check_eq "--rate 0: crawl succeeds" "$?" 0
check "4 and 16 workers give the same directory" \
  diff -r "$TEST_DIR/out4" "$TEST_DIR/out16"
check "... and the same as --rate 0" \
  diff -r "$TEST_DIR/out4" "$TEST_DIR/out0"
finish
