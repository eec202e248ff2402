# resume_outcomes: --resume replays what the interrupted crawl decided for
# the URLs it did not save, instead of asking a server that may answer
# otherwise now. Each scenario crawls a site whose server fails somewhere
# (a 500, a redirect to a 404, a redirect onto a page already crawled, a
# robots.txt that times out, a noindex page), once uninterrupted and once
# interrupted by SIGINT while a later page holds the crawl; then the
# server is restarted on the same port, healed (and the noindex page
# changed), and --resume must end in the uninterrupted crawl's directory,
# byte for byte.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir

# page FILE [HREF...]: an HTML page linking to each HREF.
page() {
  local f=$1 h
  shift
  {
    echo "<html><head><title>$(basename "$f")</title></head><body>"
    for h in "$@"; do
      echo "<a href=\"$h\">$h</a>"
    done
    echo "</body></html>"
  } >"$f"
}

# restart SITE [ARGS...]: stop the server and start it again on the same
# port (the crawl's URLs name it); the whole script is skipped if the port
# was taken meanwhile.
restart() {
  local site=$1 port=$PORT
  shift
  server_stop
  server_start "$site" --port "$port" "$@" || skip_all "port $port taken"
  [ "$PORT" = "$port" ] || skip_all "port $port taken"
}

# same NAME DIR1 DIR2: the two page directories hold the same files, byte
# for byte, but for the milliseconds libcurl puts in a timeout's message.
same() {
  local name=$1 a=$TEST_DIR/cmp-a b=$TEST_DIR/cmp-b f
  rm -rf "$a" "$b"
  cp -r "$2" "$a"
  cp -r "$3" "$b"
  for f in "$a/.journal" "$b/.journal"; do
    [ -f "$f" ] && sed -i -E 's/after [0-9]+ milliseconds/after N milliseconds/g' "$f"
  done
  rm -f "$a/.lock" "$b/.lock"
  check "$name" diff -r "$a" "$b"
}

# scenario NAME WAIT OPTIONS...: crawl $SEED at depth 2 uninterrupted into
# NAME-full and interrupted after WAIT seconds into NAME-int; heal (the
# caller's function heal_NAME), resume, compare.
scenario() {
  local name=$1 wait=$2 full=$TEST_DIR/$1-full int=$TEST_DIR/$1-int rc
  shift 2
  mkdir "$full" "$int"
  "$BIN/crawler" --log "$@" "$SEED" "$full" 2 >"$full.log" 2>"$full.err"
  check_eq "$name: the uninterrupted crawl exits 0" "$?" 0
  "$BIN/crawler" --log "$@" "$SEED" "$int" 2 >"$int.log" 2>"$int.err" &
  local pid=$!
  sleep "$wait"
  kill -INT $pid
  wait $pid
  check_eq "$name: the interrupted crawl exits 5" "$?" 5
  "heal_$name"
  "$BIN/crawler" --log --resume "$@" "$SEED" "$int" 2 >"$int.resume.log" \
    2>"$int.resume.err"
  rc=$?
  [ $rc = 0 ] || tail -n 3 "$int.resume.err" >&2
  check_eq "$name: --resume exits 0" "$rc" 0
  "$BIN/crawler" --log --resume "$@" "$SEED" "$int" 2 >/dev/null \
    2>"$int.again.err"
  check_eq "$name: a second --resume exits 0" "$?" 0
  same "$name: interrupted + resumed equals uninterrupted" "$full" "$int"
}

# --- 1. Flaky pages: a 500, a redirect to a 404, a redirect onto a page
# crawled already; slow.html holds the commit while SIGINT comes.
S=$TEST_DIR/site1
mkdir "$S"
page "$S/index.html" a.html x.html r.html d.html b.html slow.html c.html
page "$S/a.html"
page "$S/x.html" e.html
page "$S/r.html" e.html
page "$S/d.html" e.html
page "$S/b.html" e.html
page "$S/slow.html"
page "$S/c.html"
page "$S/e.html"
cat >"$TEST_DIR/rules1" <<'EOF'
/x.html status 500
/r.html redirect 301 /gone.html
/d.html redirect 301 /a.html
/slow.html delay 4
EOF
server_start "$S" --rules "$TEST_DIR/rules1" || { not_ok "server starts"; finish; }
SEED=$BASE_URL/index.html
heal_flaky() {
  restart "$S"
}
scenario flaky 1.5 --rate 0 --retries 0
check "flaky: the interrupted crawl had saved a page after the failures" \
  grep -q "Saved: $BASE_URL/b.html" "$TEST_DIR/flaky-int.log"
check "flaky: the resumed crawl asked nothing of x.html" \
  test "$(log_count /x.html)" = 0
check "flaky: the uninterrupted crawl logged the 500" \
  grep -q "Failed: $BASE_URL/x.html (HTTP 500 Internal Server Error)" \
  "$TEST_DIR/flaky-full.log"
check "flaky: so did the resumed one" \
  grep -q "Failed: $BASE_URL/x.html (HTTP 500 Internal Server Error)" \
  "$TEST_DIR/flaky-int.resume.log"
server_stop

# --- 2. A robots.txt that timed out on one host (127.0.0.2); --rate 1
# paces the seed host so that SIGINT comes after some of host 2's URLs
# were decided and a page was saved after them.
S=$TEST_DIR/site2
mkdir -p "$S/127.0.0.2"
page "$S/index.html" "http://127.0.0.2:{{port}}/p.html" a.html \
  "http://127.0.0.2:{{port}}/q.html" b.html c.html d.html
page "$S/a.html"
page "$S/b.html" "http://127.0.0.2:{{port}}/r.html"
page "$S/c.html"
page "$S/d.html"
page "$S/127.0.0.2/p.html"
page "$S/127.0.0.2/q.html"
page "$S/127.0.0.2/r.html"
echo "User-agent: *" >"$S/127.0.0.2/robots.txt"
cat >"$TEST_DIR/rules2" <<'EOF'
127.0.0.2 /robots.txt delay 3
EOF
server_start "$S" --host 127.0.0.1 --host 127.0.0.2 --rules "$TEST_DIR/rules2" \
  || { not_ok "server starts"; finish; }
SEED=$BASE_URL/index.html
heal_robots() {
  restart "$S" --host 127.0.0.1 --host 127.0.0.2
}
scenario robots 3.6 --rate 1 --timeout 1 --retries 0 \
  --scope "http://127.0.0.1:$PORT/" --scope "http://127.0.0.2:$PORT/"
check "robots: the interrupted crawl had saved a page after host 2's URLs" \
  grep -q "Saved: $BASE_URL/a.html" "$TEST_DIR/robots-int.log"
check "robots: host 2 was unreachable in the uninterrupted crawl" \
  grep -q "IgnRobots: http://127.0.0.2:$PORT/r.html (host unreachable" \
  "$TEST_DIR/robots-full.log"
check_eq "robots: the resumed crawl asked nothing of host 2" \
  "$(log_targets 127.0.0.2 | wc -l)" 0
server_stop

# --- 3. A noindex page whose links are followed; on resume the server
# serves it indexable, with other links.
S=$TEST_DIR/site3
mkdir "$S"
page "$S/index.html" a.html n.html b.html slow.html c.html
page "$S/a.html"
{
  echo '<html><head><meta name="robots" content="noindex"></head><body>'
  echo '<a href="n1.html">1</a> <a href="http://elsewhere.invalid/">out</a>'
  echo '<a href="n2.html">2</a></body></html>'
} >"$S/n.html"
page "$S/b.html"
page "$S/slow.html"
page "$S/c.html"
page "$S/n1.html"
page "$S/n2.html"
page "$S/n3.html"
cat >"$TEST_DIR/rules3" <<'EOF'
/slow.html delay 4
EOF
server_start "$S" --rules "$TEST_DIR/rules3" || { not_ok "server starts"; finish; }
SEED=$BASE_URL/index.html
heal_noindex() {
  page "$S/n.html" n3.html
  restart "$S"
}
scenario noindex 1.5 --rate 0
check "noindex: the interrupted crawl had saved a page after n.html" \
  grep -q "Saved: $BASE_URL/b.html" "$TEST_DIR/noindex-int.log"
check_eq "noindex: n.html was not saved" \
  "$(head -qn 1 "$TEST_DIR/noindex-int"/[0-9]* | grep -c "/n.html$")" 0
check_eq "noindex: its links were followed" \
  "$(head -qn 1 "$TEST_DIR/noindex-int"/[0-9]* | grep -c "/n[12].html$")" 2
check_eq "noindex: the resumed crawl did not ask for n.html" \
  "$(log_count /n.html)" 0
server_stop
finish
