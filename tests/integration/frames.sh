# frames: a frameset course site (tests/fixtures/sites/frames) is crawled
# whole, as a browser shows it: the frames and the iframe are followed,
# the late <base> applies to the links before it, and nothing a browser
# reads as text (noframes, textarea, title, an iframe's body, template
# content, an escaped script) is fetched. The same with 1 and 4 workers.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir

pages() {  # pages DIR: "DEPTH<TAB>PATH" of every saved page, sorted
  local f
  for f in "$1"/*; do
    [ -f "$f" ] || continue
    printf '%s\t%s\n' "$(sed -n 2p "$f")" \
      "$(sed -n 1p "$f" | sed "s|^http://127.0.0.1:$PORT||")"
  done | sort
}

server_start "$SITES/frames" || { not_ok "server starts"; finish; }
sort "$SITES/frames/expected/full.txt" >"$TEST_DIR/want"
for w in 1 4; do
  mkdir "$TEST_DIR/out$w"
  "$BIN/crawler" --quiet --rate 0 --download-workers $w \
    "$BASE_URL/index.html" "$TEST_DIR/out$w" 5
  check_eq "crawl with $w workers succeeds" "$?" 0
  pages "$TEST_DIR/out$w" >"$TEST_DIR/got$w"
  check_same "$w workers: every page of the frameset site, at its depth" \
    "$TEST_DIR/got$w" "$TEST_DIR/want"
done
check "1 and 4 workers give identical directories" \
  diff -r "$TEST_DIR/out1" "$TEST_DIR/out4"
for junk in /noframes.html /textarea-junk.html /title-junk.html \
  /iframe-fallback.html /docs/template-junk.html /docs/script-junk.html \
  /grading.html; do
  check_eq "$junk is never requested" "$(log_count "$junk")" 0
done
check "the link before the late <base> went to /lib/grading.html" \
  test "$(log_count /lib/grading.html)" -ge 1
finish
