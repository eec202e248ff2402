# inflight: with default options the download pool follows the work that
# is due (issue 16): a site of 200 slow hosts gets at least 100 requests
# in flight at once, each host within its bucket; and a count given with
# --download-workers stays that count.
#
# The site (bench/many-site.sh): 200 hosts, one a port of one loopback
# address, each a robots.txt, an index and 2 pages; the seed links every
# host's index. bench/delayserver answers every request DELAY ms after it
# arrived and logs when it arrived and when its answer left, so "in
# flight at once" is counted from the log (the most intervals that
# overlap), not timed. At the default --rate 1 --burst 1, the 200 hosts'
# robots.txt are due at once as soon as the seed is parsed, and so are
# their indexes a second later: a pool of 8 threads has 8 in flight, one
# that follows the due work has about 200. The floor, 100, leaves room
# for a pool that grows slower (a sanitizer build, a loaded machine): it
# has DELAY (1 s) to get there while the first 100 wait.
#
# Politeness: no host gets more than B + R*t of its requests in any t
# (window_ok's rule, with its SLACK for the time from the crawler's
# decision to the request's arrival).
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTS_BIN/delayserver"
mktemp_dir
H=200
DELAY=1000 # ms
FLOOR=100
delay_site_start "$H" 2 "$DELAY" || { not_ok "delayserver starts on $H ports"; finish; }
LOG=$DS_LOG

# buckets_ok LOG RATE BURST: window_ok's rule for every host of LOG.
buckets_ok() {
  awk -v r="$2" -v b="$3" -v slack="$SLACK" '
    { t[$3, n[$3]++] = $1 }
    END {
      bad = 0
      for (h in n) {
        k = n[h]
        for (i = 0; i < k; i++) v[i] = t[h, i]
        asort_n(v, k)
        for (i = 0; i < k; i++)
          for (j = i + 1; j < k; j++)
            if (j - i + 1 > b + r * (v[j] - v[i] + slack) + 1e-9) {
              printf "# %s: %d requests in %.3f s\n", h, j - i + 1,
                     v[j] - v[i] > "/dev/stderr"
              bad = 1
            }
      }
      exit bad
    }
    function asort_n(a, k,   i, j, x) {  # insertion sort, a[0..k-1]
      for (i = 1; i < k; i++) {
        x = a[i]
        for (j = i - 1; j >= 0 && a[j] > x; j--) a[j + 1] = a[j]
        a[j + 1] = x
      }
    }' "$1"
}

# 1. Default options.
mkdir "$TEST_DIR/out"
"$BIN/crawler" --domain "$ADDR" "$SEED" "$TEST_DIR/out" 2 \
  2>"$TEST_DIR/err"
check_eq "default: crawl succeeds" "$?" 0
check_eq "default: $H x 3 pages saved" "$(ls "$TEST_DIR/out" | wc -l)" \
  $((H * 3))
check_eq "default: $H x 4 requests" "$(wc -l <"$LOG")" $((H * 4))
n=$(max_inflight "$LOG")
echo "# default options: $n requests in flight at once (floor $FLOOR)" >&2
grep 'politeness:' "$TEST_DIR/err" | sed 's/^/# /' >&2
check "default: at least $FLOOR requests in flight at once ($n)" \
  test "$n" -ge "$FLOOR"
check "default: every host within B + R*t" buckets_ok "$LOG" 1 1

# 2. --download-workers 4 is 4: the seed host and 11 others, depth 1.
: >"$LOG"
mkdir "$TEST_DIR/out4"
scope=(--scope "http://$ADDR:$P0/")
for i in $(seq 1 11); do scope+=(--scope "http://$ADDR:$((P0 + i))/"); done
"$BIN/crawler" --download-workers 4 "${scope[@]}" "$SEED" "$TEST_DIR/out4" 1 \
  2>"$TEST_DIR/err4"
check_eq "4 workers: crawl succeeds" "$?" 0
check_eq "4 workers: 1 + 2 + 11 pages saved" "$(ls "$TEST_DIR/out4" | wc -l)" 14
n=$(max_inflight "$LOG")
echo "# --download-workers 4: $n requests in flight at once" >&2
check "4 workers: at most 4 requests in flight at once ($n)" test "$n" -le 4
check "4 workers: several in flight at once ($n)" test "$n" -ge 2
check "4 workers: every host within B + R*t" buckets_ok "$LOG" 1 1
delay_site_stop
finish
