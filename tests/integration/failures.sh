# failures: a failed request says why, in the log and in the summary: the
# HTTP status in words, libcurl's message, the reason robots.txt could not
# be fetched; and the summary's counts tell failed requests from fetched
# ones, and URLs of an unreachable robots.txt from disallowed ones. A seed
# that is not saved is a failed crawl: its last stderr line says why, and
# it exits 8.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
S=$TEST_DIR/site
# Hosts: .1 a site with a broken link and a noindex page; .2 a robots.txt
# that disallows everything.
mkdir -p "$S/127.0.0.1" "$S/127.0.0.2"
cat >"$S/127.0.0.1/index.html" <<'HTML'
<a href="a.html">A</a> <a href="missing.html">404</a>
<a href="err.html">500</a>
HTML
echo '<p>a</p>' >"$S/127.0.0.1/a.html"
echo err >"$S/127.0.0.1/err.html"
cat >"$S/127.0.0.1/noindex.html" <<'HTML'
<html><head><meta name="robots" content="noindex"></head>
<body><a href="a.html">A</a></body></html>
HTML
printf 'User-agent: *\nDisallow: /\n' >"$S/127.0.0.2/robots.txt"
echo '<p>private</p>' >"$S/127.0.0.2/index.html"
# .3: a 404 whose body is cut short (the connection closed halfway) and
# one whose body trickles a byte a second; .4: a robots.txt 404 cut short.
mkdir -p "$S/127.0.0.3" "$S/127.0.0.4"
echo '<a href="cut.html">cut</a> <a href="slow.html">slow</a>' \
  >"$S/127.0.0.3/index.html"
echo 'this page is gone, and so is the rest of it' >"$S/127.0.0.3/cut.html"
echo 'this page is gone, slowly, a byte a second' >"$S/127.0.0.3/slow.html"
echo 'no robots.txt here, and its page is cut short' \
  >"$S/127.0.0.4/robots.txt"
echo '<p>four</p>' >"$S/127.0.0.4/index.html"
{
  echo '/err.html status 500'
  echo '127.0.0.3 /cut.html status 404'
  echo '127.0.0.3 /cut.html close'
  echo '127.0.0.3 /slow.html status 404'
  echo '127.0.0.3 /slow.html drip 1 1'
  echo '127.0.0.4 /robots.txt status 404'
  echo '127.0.0.4 /robots.txt close'
} >"$TEST_DIR/rules"

# A loopback port nothing listens on: one the test server had, closed.
server_start "$S" || { not_ok "server starts"; finish; }
CLOSED=$PORT
server_stop
server_start "$S" --rules "$TEST_DIR/rules" --host 127.0.0.1 \
  --host 127.0.0.2 --host 127.0.0.3 --host 127.0.0.4 ||
  { not_ok "server starts"; finish; }
H1=http://127.0.0.1:$PORT
H2=http://127.0.0.2:$PORT
H3=http://127.0.0.3:$PORT
H4=http://127.0.0.4:$PORT
REFUSED=http://127.0.0.1:$CLOSED

# crawl NAME SEED DEPTH [OPTIONS...]: crawl into $TEST_DIR/NAME (log in
# NAME.log, stderr in NAME.err, exit status in NAME.rc).
crawl() {
  local name=$1 seed=$2 depth=$3
  shift 3
  mkdir "$TEST_DIR/$name"
  "$BIN/crawler" --rate 0 --retries 0 --log "$@" "$seed" "$TEST_DIR/$name" \
    "$depth" >"$TEST_DIR/$name.log" 2>"$TEST_DIR/$name.err"
  echo $? >"$TEST_DIR/$name.rc"
}
logged() {  # logged NAME TEXT: the crawl's log has a line holding TEXT
  grep -qF -- "$2" "$TEST_DIR/$1.log" || {
    echo "# no line holding [$2] in $1.log:" >&2
    cat "$TEST_DIR/$1.log" >&2
    return 1
  }
}
said() {  # said NAME TEXT: the crawl's stderr has a line holding TEXT
  grep -qF -- "$2" "$TEST_DIR/$1.err" || {
    echo "# no line holding [$2] in $1.err:" >&2
    cat "$TEST_DIR/$1.err" >&2
    return 1
  }
}

# ------------------------------------------------------------ the log

crawl main "$H1/" 1
check "a 404 is logged with its status in words" \
  logged main "Failed: $H1/missing.html (HTTP 404 Not Found)"
check "a 500 is logged with its status in words" \
  logged main "Failed: $H1/err.html (HTTP 500 Internal Server Error)"
check "the summary counts 2 pages fetched, 2 failed" \
  said main "fetched 2, failed 2 (http 2, network 0,"
check "... and says why: a 404" said main "crawler: failed: 1 x HTTP 404"
check "... and a 500" \
  said main "crawler: failed: 1 x HTTP 500 Internal Server Error"

# An unwanted short body (robots.txt's 404, a 404, a 500) is read and
# dropped, not abandoned, so the connection stays open: one download
# worker makes every request on one.
before=$(wc -l <"$SERVER_LOG")
crawl keepalive "$H1/" 1 --download-workers 1
tail -n +"$((before + 1))" "$SERVER_LOG" >"$TEST_DIR/keepalive.server"
check_eq "one worker: robots.txt, 2 pages, a 404 and a 500 requested" \
  "$(wc -l <"$TEST_DIR/keepalive.server")" 5
check_eq "... all on one connection" \
  "$(cut -f7 "$TEST_DIR/keepalive.server" | sort -u | wc -l)" 1

# A 404 is a 404 whatever happens to its body after the headers: not a
# network error to retry (the body cut short, or trickling: the drain
# gives up after half a second; 4 s is a generous bound, libcurl's own
# timeout is 5), and a robots.txt 404 cut short still allows everything.
before=$(wc -l <"$SERVER_LOG")
t0=$(date +%s.%N)
crawl broken "$H3/" 1 --retries 1 --timeout 5
t1=$(date +%s.%N)
tail -n +"$((before + 1))" "$SERVER_LOG" >"$TEST_DIR/broken.server"
check "a 404 cut short is a 404" \
  logged broken "Failed: $H3/cut.html (HTTP 404 Not Found)"
check "a 404 trickling is a 404" \
  logged broken "Failed: $H3/slow.html (HTTP 404 Not Found)"
check_eq "... neither asked twice" \
  "$(grep -c '/cut.html\|/slow.html' "$TEST_DIR/broken.server")" 2
check "... and the trickle does not hold the crawl (under 4 s)" \
  awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 4) }'
crawl brokenrobots "$H4/" 0 --retries 1
check "a robots.txt 404 cut short allows everything: the seed is saved" \
  test -e "$TEST_DIR/brokenrobots/1"

crawl refused "$REFUSED/" 1
check "refused: the seed's IgnRobots line says the host failed, and why" \
  logged refused "IgnRobots: $REFUSED/ (host unreachable: Failed\
 to connect to 127.0.0.1 port $CLOSED"
check "... in libcurl's words" logged refused "Couldn't connect to server)"
check "refused: the summary says why" said refused \
  "crawler: not fetched: 1 x host unreachable: Failed to connect to"
check "refused: robots.txt failed, not fetched; the seed not disallowed" \
  said refused "robots: 0 robots.txt fetched, 1 failed; 0 URLs disallowed,\
 1 not fetched as their host or its robots.txt was unreachable;"

# --log-file: every event with its time, robots.txt's too; appended.
crawl logfile "$REFUSED/" 1 --log-file "$TEST_DIR/events.log"
check "--log-file: robots.txt's failure, timed, depth -1" grep -qE \
  "^20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-9:]{8}\.[0-9]{3}Z -1 Robots \
$REFUSED/robots.txt \(Failed to connect" "$TEST_DIR/events.log"
check "--log-file: the seed's event, with why" grep -qE \
  "Z 0 IgnRobots $REFUSED/ \(host unreachable: Failed to connect" \
  "$TEST_DIR/events.log"
n=$(wc -l <"$TEST_DIR/events.log")
rm -rf "$TEST_DIR/logfile"
crawl logfile "$REFUSED/" 1 --log-file "$TEST_DIR/events.log"
check_eq "--log-file: a second crawl appends" \
  "$(wc -l <"$TEST_DIR/events.log")" $((2 * n))

crawl refused_nr "$REFUSED/" 1 --ignore-robots
check "refused, robots ignored: the seed's failure says why" \
  logged refused_nr \
  "Failed: $REFUSED/ (Failed to connect to 127.0.0.1 port $CLOSED"
check "refused, robots ignored: counted as a network failure" \
  said refused_nr "fetched 0, failed 1 (http 0, network 1,"
check "... and summed up in libcurl's words, no address" \
  said refused_nr "crawler: failed: 1 x Couldn't connect to server"

crawl disallowed "$H2/" 1
check "disallowed: logged so" \
  logged disallowed "IgnRobots: $H2/ (disallowed by robots.txt)"
check "disallowed: robots.txt fetched, the seed disallowed" \
  said disallowed "robots: 1 robots.txt fetched, 0 failed; 1 URLs\
 disallowed, 0 not fetched as their host or its robots.txt was unreachable;"

# ------------------------------------------------------------ the seed

# seed_fails NAME WHY: crawl NAME exited 8 and its last stderr line is
# "crawler: seed 'SEED' not saved: WHY..." (WHY a prefix).
seed_fails() {
  local name=$1 why=$2 last
  check_eq "$name: exit status 8 (seed not saved)" \
    "$(cat "$TEST_DIR/$name.rc")" 8
  last=$(tail -n 1 "$TEST_DIR/$name.err")
  case "$last" in
    "crawler: seed '"*"' not saved: $why"*)
      ok "$name: the last line says why" ;;
    *)
      printf '# last line: [%s]\n# want: [... not saved: %s...]\n' \
        "$last" "$why" >&2
      not_ok "$name: the last line says why"
      ;;
  esac
}

check_eq "a crawl whose seed is saved exits 0" "$(cat "$TEST_DIR/main.rc")" 0

crawl missing "$H1/missing.html" 1
seed_fails missing "HTTP 404 Not Found"
check_eq "missing: the message names the seed" \
  "$(tail -n 1 "$TEST_DIR/missing.err")" \
  "crawler: seed '$H1/missing.html' not saved: HTTP 404 Not Found"
check "missing: nothing saved" test ! -e "$TEST_DIR/missing/1"

crawl refused_seed "$REFUSED/" 0 --quiet
seed_fails refused_seed "host unreachable: Failed to connect to"
check "refused: the reason is libcurl's" \
  grep -q "Couldn't connect to server\$" "$TEST_DIR/refused_seed.err"
check_eq "refused, --quiet: that line is all that is said" \
  "$(wc -l <"$TEST_DIR/refused_seed.err")" 1

seed_fails refused_nr "Failed to connect to 127.0.0.1 port $CLOSED"

# A name that does not resolve is said plainly, and with threads not
# retried: no retry mends it. The event loop does not ask the resolver
# again to tell (a blocking call in the thread of every transfer): it
# retries, as for a resolver that could not answer. An LD_PRELOAD shim answers the lookup, so that no query
# leaves the machine: getaddrinfo of a name under nx.test fails.
if [ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; then
  skip "nxdomain: a name that does not resolve" \
    "the LD_PRELOAD shim and a sanitizer runtime do not mix"
else
  # flaky.nx.test: the resolver cannot answer the first time (EAI_AGAIN,
  # which libcurl reports as it reports a name that does not exist), then
  # it is 127.0.0.1: a retry mends that.
  cat >"$TEST_DIR/nx.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netdb.h>
#include <stdatomic.h>
#include <string.h>
static atomic_int flaky;
int getaddrinfo(const char *node, const char *service,
                const struct addrinfo *hints, struct addrinfo **res)
{
  int (*real)(const char *, const char *, const struct addrinfo *,
              struct addrinfo **) = dlsym(RTLD_NEXT, "getaddrinfo");
  if (node != NULL && strcmp(node, "flaky.nx.test") == 0)
    return atomic_fetch_add(&flaky, 1) == 0
           ? EAI_AGAIN
           : real("127.0.0.1", service, hints, res);
  size_t n = node ? strlen(node) : 0;
  if (n >= 7 && strcmp(node + n - 7, "nx.test") == 0)
    return EAI_NONAME;
  return real(node, service, hints, res);
}
C
  if cc -shared -fPIC -o "$TEST_DIR/nx.so" "$TEST_DIR/nx.c" -ldl; then
    export LD_PRELOAD=$TEST_DIR/nx.so
    crawl nxdomain "http://docs.nx.test:$PORT/" 1 --retries 2
    unset LD_PRELOAD
    seed_fails nxdomain "host unreachable: cannot resolve host docs.nx.test"
    if [ "${TSE_TRANSFERS:-events}" = threads ]; then
      check "nxdomain: not retried: one request" \
        said nxdomain "crawler: 1 request to 1 host,"
    else
      check "nxdomain: the event loop retries it: three requests" \
        said nxdomain "crawler: 3 requests to 1 host,"
    fi
    export LD_PRELOAD=$TEST_DIR/nx.so
    crawl flaky "http://flaky.nx.test:$PORT/" 0 --retries 2
    unset LD_PRELOAD
    check_eq "flaky: a resolver that could not answer once is asked again" \
      "$(cat "$TEST_DIR/flaky.rc")" 0
  else
    skip "nxdomain: a name that does not resolve" "cannot build the shim"
  fi
fi
seed_fails disallowed "disallowed by robots.txt"

crawl noindex "$H1/noindex.html" 1
seed_fails noindex "noindex"
check "noindex: its links are still followed" \
  grep -qx "$H1/a.html" "$TEST_DIR/noindex/1"

crawl toolarge "$H1/" 0 --max-page-size 10
seed_fails toolarge "larger than 10 bytes"

finish
