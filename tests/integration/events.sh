# events: --transfers events, one event loop over libcurl's multi
# interface in place of the download threads (web/xfer.h). Checked on
# 8 loopback hosts of the test server: the crawl is byte for byte the
# threaded crawl's; a host that stalls mid-body times out while the
# others go on (their requests arrive during the stall: one thread, yet
# nothing waits for the stalled transfer); a connection closed
# mid-body is retried as with threads (the same requests); every host
# stays within B + R*t. Over TLS: many handshakes at once to one host,
# the pages those of the threaded crawl. A low open-file limit is named.
# Interrupts and kill -9 with transfers in flight: archive.sh, and the
# 200 slow hosts at once, from the server's log, inflight.sh (the loop is
# the default; threads_*.sh rerun those with --transfers threads).
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy \
  NO_PROXY
mktemp_dir
S=$TEST_DIR/site
HOSTS="127.0.0.1 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 127.0.0.6 \
127.0.0.7 127.0.0.8"
host_args=()
for h in $HOSTS; do
  mkdir -p "$S/$h"
  host_args+=(--host "$h")
  {
    for i in $(seq 1 10); do echo "<a href=\"p$i.html\">page $i</a>"; done
  } >"$S/$h/index.html"
  for i in $(seq 1 10); do
    echo "<p>page $i of $h</p> <a href=\"index.html\">up</a>" >"$S/$h/p$i.html"
  done
done
# The seed's host links every host; .5 has a page that stalls mid-body
# (100 bytes, then nothing for 30 s), .6 one whose connection closes
# halfway.
for h in $HOSTS; do echo "<a href=\"http://$h:{{port}}/\">$h</a>"; done \
  >>"$S/127.0.0.1/index.html"
# First of the seed's links: the stall comes early in the crawl.
sed -i '1i <a href="http://127.0.0.5:{{port}}/stall.html">stall</a>' \
  "$S/127.0.0.1/index.html"
awk 'BEGIN { for (i = 0; i < 100; i++) print "<p>a page that stalls</p>" }' \
  >"$S/127.0.0.5/stall.html"
echo '<a href="reset.html">reset</a>' >>"$S/127.0.0.6/index.html"
awk 'BEGIN { for (i = 0; i < 100; i++) print "<p>a page cut short</p>" }' \
  >"$S/127.0.0.6/reset.html"
cat >"$TEST_DIR/rules" <<'RULES'
127.0.0.5 /stall.html drip 100 30
127.0.0.6 /reset.html close
RULES
server_start "$S" "${host_args[@]}" --rules "$TEST_DIR/rules" ||
  { not_ok "server starts"; finish; }
SEED=http://127.0.0.1:$PORT/
DOMAINS=()
for h in $HOSTS; do DOMAINS+=(--domain "$h"); done

# crawl NAME MODE [OPTIONS...]: crawl the site into $TEST_DIR/NAME with
# --transfers MODE; its requests in NAME.server; sets RC.
crawl() {
  local name=$1 mode=$2 before
  shift 2
  mkdir "$TEST_DIR/$name"
  before=$(wc -l <"$SERVER_LOG")
  timeout -k 5 120 "$BIN/crawler" --transfers "$mode" --rate 2 --burst 1 \
    --retries 2 --timeout 3 "${DOMAINS[@]}" "$@" "$SEED" "$TEST_DIR/$name" 2 \
    >"$TEST_DIR/$name.out" 2>"$TEST_DIR/$name.err"
  RC=$?
  tail -n +"$((before + 1))" "$SERVER_LOG" >"$TEST_DIR/$name.server"
}
requests_for() {  # requests_for NAME PATH: requests of PATH in the crawl
  awk -F'\t' -v p="$2" '$4 == p' "$TEST_DIR/$1.server" | wc -l
}
# during_stall NAME: requests to hosts other than .5 that arrived while
# the stalled page was being read (its arrival to 3 s later).
during_stall() {
  awk -F'\t' '$4 == "/stall.html" && !t { t = $1 } { a[n] = $1; h[n++] = $2 }
    END { c = 0
          for (i = 0; i < n; i++)
            if (a[i] > t && a[i] < t + 3 && index(h[i], "127.0.0.5:") != 1) c++
          print c }' "$TEST_DIR/$1.server"
}

crawl threads threads
check_eq "threads: the crawl succeeds" "$RC" 0
crawl events events
check_eq "events: the crawl succeeds" "$RC" 0
# The journal's reason for the timeout names the milliseconds it took.
same_crawl() {  # same_crawl DIR1 DIR2: byte for byte, but for those
  diff -r -x .journal "$1" "$2" &&
    diff <(sed 's/after [0-9]* milliseconds/after N milliseconds/' \
      "$1/.journal") \
      <(sed 's/after [0-9]* milliseconds/after N milliseconds/' "$2/.journal")
}
check "events: the pages are the threaded crawl's, byte for byte" \
  same_crawl "$TEST_DIR/threads" "$TEST_DIR/events"
check_eq "events: 8 hosts x 11 pages and the seed's index.html saved" \
  "$(ls "$TEST_DIR/events" | grep -c '^[0-9]')" 89
check_eq "events: as many requests as the threaded crawl" \
  "$(wc -l <"$TEST_DIR/events.server")" "$(wc -l <"$TEST_DIR/threads.server")"
check_eq "events: the page closed mid-body asked 1 + 2 retries times" \
  "$(requests_for events /reset.html)" 3
check_eq "threads: the same" "$(requests_for threads /reset.html)" 3
check_eq "events: the stalled page asked 1 + 2 retries times" \
  "$(requests_for events /stall.html)" 3
n=$(during_stall events)
echo "# events: $n requests to other hosts during the first stall" >&2
check "events: other hosts go on during a stall ($n requests, >= 10)" \
  test "$n" -ge 10
for h in $HOSTS; do
  check "events: $h within B + R*t" window_ok "$TEST_DIR/events.server" \
    "$h" 2 1
done
# An open-file limit too low for the transfers wanted (2,048 at the
# default rate and --max-memory) lowers their number and says the limit
# that would do.
mkdir "$TEST_DIR/fds"
(ulimit -n 300 && exec "$BIN/crawler" --transfers events --quiet "$SEED" \
  "$TEST_DIR/fds" 0) 2>"$TEST_DIR/fds.err"
check_eq "a low open-file limit: the crawl succeeds" "$?" 0
check "... and says what it needs" grep -qF "crawler: the open-file limit \
(300) allows 11 transfers at once of the 2048 wanted; ulimit -n 8448 allows \
them all" "$TEST_DIR/fds.err"
# Connections are kept for reuse, not closed to make room: 2 transfers
# at once over the 8 hosts (more connections than transfers) cost one
# connection a host (a host has one request in flight at a time), not
# one each time the crawl comes back to it (2 a host: the index, then
# its pages). (.5 and .6 are left out: stalls and resets end theirs.)
crawl reuse events --rate 0 --download-workers 2
check_eq "2 transfers over 8 hosts: the crawl succeeds" "$RC" 0
n=$(awk -F'\t' '$2 !~ /^127\.0\.0\.[56]:/ { print $7 }' \
  "$TEST_DIR/reuse.server" | sort -u | wc -l)
echo "# 2 transfers over 6 hosts: $n connections" >&2
check "2 transfers over 6 hosts: connections reused ($n, at most 8)" \
  test "$n" -le 8
server_stop

# ------------------------------------------------------ TLS in parallel
if command -v openssl >/dev/null; then
  C=$TEST_DIR/certs
  sh "$TOP/tests/fixtures/gen-certs.sh" "$C" >&2 ||
    { not_ok "gen-certs.sh makes the certificates"; finish; }
  T=$TEST_DIR/tls
  mkdir -p "$T/127.0.0.1"
  for i in $(seq 1 40); do echo "<a href=\"p$i.html\">$i</a>"; done \
    >"$T/127.0.0.1/index.html"
  for i in $(seq 1 40); do echo "<p>secure $i</p>" >"$T/127.0.0.1/p$i.html"; done
  # Each page answers 300 ms late: 16 transfers at once need 16
  # connections, each its own handshake.
  echo '/p* delay 0.3' >"$TEST_DIR/tls.rules"
  if server_start "$T" --host 127.0.0.1 --rules "$TEST_DIR/tls.rules" \
    --tls-cert "$C/server.pem" --tls-key "$C/server.key"; then
    for mode in threads events; do
      mkdir "$TEST_DIR/tls-$mode"
      before=$(wc -l <"$SERVER_LOG")
      timeout -k 5 120 "$BIN/crawler" --transfers "$mode" --rate 0 \
        --download-workers 16 --ca-certificate "$C/ca.pem" \
        "https://127.0.0.1:$PORT/" "$TEST_DIR/tls-$mode" 1 \
        2>"$TEST_DIR/tls-$mode.err"
      check_eq "tls $mode: the crawl succeeds" "$?" 0
      tail -n +"$((before + 1))" "$SERVER_LOG" >"$TEST_DIR/tls-$mode.server"
    done
    check "tls events: the pages are the threaded crawl's, byte for byte" \
      diff -r "$TEST_DIR/tls-threads" "$TEST_DIR/tls-events"
    n=$(cut -f7 "$TEST_DIR/tls-events.server" | sort -u | wc -l)
    echo "# tls events: $n connections" >&2
    check "tls events: handshakes in parallel (8+ connections: $n)" \
      test "$n" -ge 8
    server_stop
  elif grep -q 'no TLS support' "$SERVER_ERR"; then
    skip "tls in parallel" "this libmicrohttpd has no TLS"
  else
    not_ok "the HTTPS server starts"
  fi
else
  skip "tls in parallel" "no openssl"
fi
finish
