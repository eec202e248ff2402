# events_budget_push: a commit waiting for a frontier slot (--queue-size)
# with the only parser (--parse-workers 1) must not stall the event loop's
# paused transfers. The parser holds fetched bodies (budget_landed > 0),
# so resume() never forces the oldest paused; the paused transfers hold
# the frontier's slots, so the commit's push never returns: a deadlock.
# Before 6d971ba the crawl took about 3 s.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
mktemp_dir
S=$TEST_DIR/site
mkdir -p "$S"
(cd "$S" && awk 'BEGIN { line = "<p>lorem ipsum dolor sit amet consectetur adipiscing elit sed do</p>\n"
  for (b = 1; b <= 16; b++) {
    f = "big" b ".html"; printf "<html><body>\n" > f
    for (k = 1; k <= 60; k++) printf "<a href=\"s%d_%d.html\">x</a>\n", b, k > f
    for (i = 0; i < 15000; i++) printf "%s", line > f
    printf "</body></html>\n" > f; close(f)
    for (k = 1; k <= 60; k++) { g = "s" b "_" k ".html"; print "<html><body>small</body></html>" > g; close(g) }
  } }')
{
  echo '<html><body>'
  for i in $(seq 16); do echo "<a href=\"big$i.html\">b</a>"; done
  echo '</body></html>'
} >"$S/index.html"
echo '/big* drip 65536 0.01' >"$TEST_DIR/rules"
server_start "$S" --host 127.0.0.1 --no-substitute --rules "$TEST_DIR/rules" ||
  { not_ok "server starts"; finish; }
out=$TEST_DIR/out
mkdir "$out"
rc=0
timeout -k 5 60 "$BIN/crawler" --transfers events --rate 0 --retries 0 \
  --timeout 20 --max-memory 4194304 --parse-workers 1 --queue-size 24 \
  "$BASE_URL/index.html" "$out" 2 >/dev/null 2>"$TEST_DIR/err" || rc=$?
check_eq "the crawl ends, and succeeds" "$rc" 0
check_eq "every page saved" "$(ls "$out" | grep -c '^[0-9]')" 977
finish
