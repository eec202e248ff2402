# events_backpressure: the event loop (the default --transfers events)
# must not stall its transfers while the parse threads are busy. The
# loop hands each finished transfer to the parsers (engine_sink); with
# the fetched queue full (4 x parse workers + 8) it waits there for a
# parser, and every other transfer in flight waits with it: libcurl's
# timers run on, and a page the server answered at once times out
# "with 0 bytes received". With download threads only the thread that
# pushes waits. The parsers are kept busy here the way a real site can:
# --sitemaps, whose sitemaps the seeds' parse threads fetch, each
# answered late (1.5 s, within --timeout). Two such seeds (one per parse
# thread), then 40 small pages and one answered after 1 s as seeds too,
# all at depth 0: each must be saved, as the threaded crawl saves it.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy \
  NO_PROXY
mktemp_dir
S=$TEST_DIR/site
N=40
mkdir -p "$S/127.0.0.1" "$S/127.0.0.2" "$S/127.0.0.3"
for h in 127.0.0.2 127.0.0.3; do
  echo "<html><body><p>$h</p></body></html>" >"$S/$h/index.html"
  {
    printf 'User-agent: *\nAllow: /\n'
    for s in 1 2 3; do echo "Sitemap: http://$h:{{port}}/s$s.xml"; done
  } >"$S/$h/robots.txt"
  for s in 1 2 3; do
    printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?>' \
      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' \
      "<url><loc>http://$h:{{port}}/index.html</loc></url></urlset>" \
      >"$S/$h/s$s.xml"
  done
done
for i in $(seq "$N"); do
  echo "<html><body><p>page $i</p></body></html>" >"$S/127.0.0.1/p$i.html"
done
echo '<html><body><p>late</p></body></html>' >"$S/127.0.0.1/late.html"
# The sitemaps (and /sitemap.xml, a 404) of .2 and .3 come 1.5 s late.
cat >"$TEST_DIR/rules" <<'RULES'
127.0.0.2 /s* delay 1.5
127.0.0.3 /s* delay 1.5
127.0.0.1 /late.html delay 1
RULES
server_start "$S" --host 127.0.0.1 --host 127.0.0.2 --host 127.0.0.3 \
  --rules "$TEST_DIR/rules" || { not_ok "server starts"; finish; }

SEEDS=(--seed "http://127.0.0.3:$PORT/index.html")
for i in $(seq "$N"); do
  SEEDS+=(--seed "http://127.0.0.1:$PORT/p$i.html")
done
SEEDS+=(--seed "http://127.0.0.1:$PORT/late.html")

# crawl NAME [OPTIONS...]: the seeds at depth 0 (the sitemaps' URLs are
# their own seeds, so nothing is added) into $TEST_DIR/NAME; RC.
crawl() {
  local name=$1
  shift
  mkdir "$TEST_DIR/$name"
  RC=0
  timeout -k 5 120 "$BIN/crawler" --rate 0 --retries 0 --timeout 3 \
    --sitemaps --log "$@" "${SEEDS[@]}" "http://127.0.0.2:$PORT/index.html" \
    "$TEST_DIR/$name" 1 >"$TEST_DIR/$name.out" 2>"$TEST_DIR/$name.err" ||
    RC=$?
  sed 's/^/# /' "$TEST_DIR/$name.err" | grep -v 'User-Agent' | tail -n 4 >&2
}
seeds=$((N + 3))
crawl threads --transfers threads
check_eq "threads: the crawl succeeds" "$RC" 0
check_eq "threads: every seed saved" \
  "$(ls "$TEST_DIR/threads" | grep -c '^[0-9]')" "$seeds"
crawl events --transfers events
check_eq "events (the default): the crawl succeeds" "$RC" 0
grep 'Failed:' "$TEST_DIR/events.out" | sed 's/^/# /' | head -n 5 >&2
check_eq "events: no page times out while the parsers are busy" \
  "$(grep -c 'Failed:' "$TEST_DIR/events.out")" 0
check_eq "events: every seed saved" \
  "$(ls "$TEST_DIR/events" | grep -c '^[0-9]')" "$seeds"
check "events: the directory is the threaded crawl's" \
  diff -r -x .crawler "$TEST_DIR/threads" "$TEST_DIR/events"
finish
