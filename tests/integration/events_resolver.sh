# events_resolver: a resolver that answers late must not stall the event
# loop (the default --transfers events). libcurl resolves in threads of
# its own, but a name it could not resolve is asked again, to tell "no
# such name" from "no answer now" (fetch.c, no_such_name): a blocking
# getaddrinfo in fetcher_finish, which the loop runs for every transfer
# it reaps. Twenty hosts whose names get no answer (a nameserver that
# never replies, 1 s a query: resolv.conf's timeout:1 attempts:1) hold
# the loop for about 20 s, one name after the other; ten pages of the
# seed's host, answered 1.2 to 3 s after they are asked (--timeout 4),
# time out "with 0 bytes received" when the answer comes while the loop
# is held. Download threads save every one.
#
# Needs root and unshare(1): the crawler runs in a mount namespace of its
# own, where /etc/resolv.conf names a loopback address that a perl UDP
# socket holds without ever answering. Nothing leaves the machine.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd perl
require_mount_ns
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy \
  NO_PROXY
mktemp_dir
NS=127.0.0.153
printf 'nameserver %s\noptions timeout:1 attempts:1\n' "$NS" \
  >"$TEST_DIR/resolv.conf"
# The nameserver: a UDP socket that reads nothing and answers nothing.
perl -MIO::Socket::INET -e '
  my $s = IO::Socket::INET->new(LocalAddr => $ARGV[0], Proto => "udp")
    or die "cannot bind $ARGV[0]: $!\n";
  print "bound\n";
  STDOUT->flush;
  sleep 300' "$NS:53" >"$TEST_DIR/ns.out" 2>"$TEST_DIR/ns.err" &
for i in $(seq 50); do
  [ -s "$TEST_DIR/ns.out" ] && break
  sleep 0.1
done
[ -s "$TEST_DIR/ns.out" ] || skip_all "cannot hold $NS:53: $(cat "$TEST_DIR/ns.err")"

S=$TEST_DIR/site
mkdir -p "$S"
: >"$TEST_DIR/rules"
{
  echo '<html><body>'
  for i in $(seq 10); do
    echo "<a href=\"d$i.html\">d$i</a>"
    echo "<p>late $i</p>" >"$S/d$i.html"
    echo "/d$i.html delay $(awk -v i="$i" 'BEGIN { print 1 + 0.2 * i }')" \
      >>"$TEST_DIR/rules"
  done
  for i in $(seq 20); do
    echo "<a href=\"http://b$i.example.test:{{port}}/\">b$i</a>"
  done
  echo '</body></html>'
} >"$S/index.html"
server_start "$S" --rules "$TEST_DIR/rules" || { not_ok "server starts"; finish; }

# crawl NAME [OPTIONS...]: the seed at depth 1, in the namespace with the
# silent nameserver, into $TEST_DIR/NAME; RC.
crawl() {
  local name=$1
  shift
  mkdir "$TEST_DIR/$name"
  RC=0
  with_file_over /etc/resolv.conf "$TEST_DIR/resolv.conf" \
    timeout -k 5 120 "$BIN/crawler" --rate 0 --retries 0 \
    --timeout 4 --domain example.test --scope "$BASE_URL/" --log "$@" \
    "$BASE_URL/index.html" "$TEST_DIR/$name" 1 \
    >"$TEST_DIR/$name.out" 2>"$TEST_DIR/$name.err" || RC=$?
  sed 's/^/# /' "$TEST_DIR/$name.err" | grep -v 'User-Agent' | tail -n 4 >&2
}
crawl threads --transfers threads
check_eq "threads: the crawl succeeds" "$RC" 0
check_eq "threads: the ten late pages saved" \
  "$(grep -c "Saved: $BASE_URL/d" "$TEST_DIR/threads.out")" 10
crawl events --transfers events
check_eq "events (the default): the crawl succeeds" "$RC" 0
grep "Failed: $BASE_URL/d" "$TEST_DIR/events.out" | sed 's/^/# /' >&2
check_eq "events: the ten late pages saved while names fail to resolve" \
  "$(grep -c "Saved: $BASE_URL/d" "$TEST_DIR/events.out")" 10
check "events: the directory is the threaded crawl's" \
  diff -r -x .crawler "$TEST_DIR/threads" "$TEST_DIR/events"
finish
