# events_vhosts: many host names served by one server (shared hosting,
# a university's subdomains behind one front end). Politeness is per
# host name, so a page linking 1,200 of them makes 1,200 robots.txt
# requests due at once; the event loop (the default --transfers events)
# opens a connection for each, up to 2,048 at once, and keeps as many
# idle for reuse (xfer.c: CURLMOPT_MAXCONNECTS and
# CURLMOPT_MAX_TOTAL_CONNECTIONS both max_connects, at least the
# transfers). A server that takes ~1,000 connections (the test server:
# libmicrohttpd's default limit, FD_SETSIZE - 4; nginx's default is 768
# a worker) closes the others at once, their robots.txt fail on every
# try while the idle connections hold its slots, and those hosts are
# skipped as unreachable. Download threads (at most 512 at once, 2
# connections kept each) save every page.
#
# Needs root and unshare(1): the crawler runs in a mount namespace of its
# own whose /etc/hosts gives h1.test ... h1200.test the address
# 127.0.0.1. Nothing leaves the machine.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_mount_ns
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy \
  NO_PROXY
mktemp_dir
N=1200
S=$TEST_DIR/site
mkdir -p "$S"
{
  cat /etc/hosts
  for i in $(seq "$N"); do echo "127.0.0.1 h$i.test"; done
} >"$TEST_DIR/hosts"
{
  echo '<html><body>'
  for i in $(seq "$N"); do
    echo "<a href=\"http://h$i.test:{{port}}/p.html\">h$i</a>"
  done
  echo '</body></html>'
} >"$S/index.html"
echo '<html><body><p>a page</p></body></html>' >"$S/p.html"
server_start "$S" || { not_ok "server starts"; finish; }

# crawl NAME [OPTIONS...]: the seed at depth 1, the N host names known,
# into $TEST_DIR/NAME; RC. Default politeness and retries.
crawl() {
  local name=$1
  shift
  mkdir "$TEST_DIR/$name"
  RC=0
  with_file_over /etc/hosts "$TEST_DIR/hosts" \
    timeout -k 5 300 "$BIN/crawler" --domain test --scope "$BASE_URL/" \
    "$@" "$BASE_URL/index.html" "$TEST_DIR/$name" 1 \
    >"$TEST_DIR/$name.out" 2>"$TEST_DIR/$name.err" || RC=$?
  sed 's/^/# /' "$TEST_DIR/$name.err" | grep -v 'User-Agent' | tail -n 4 >&2
}
pages() {  # pages NAME: the pages saved
  find "$TEST_DIR/$1" -maxdepth 1 -name '[0-9]*' | wc -l
}
crawl threads --transfers threads
check_eq "threads: the crawl succeeds" "$RC" 0
check_eq "threads: the seed and a page of every host saved" \
  "$(pages threads)" $((N + 1))
crawl events --transfers events
check_eq "events (the default): the crawl succeeds" "$RC" 0
check_eq "events: the seed and a page of every host saved" \
  "$(pages events)" $((N + 1))
check "events: no host skipped as unreachable" \
  test "$(grep -c 'host unreachable' "$TEST_DIR/events.err")" = 0
finish
