# events_budget_fail: a paused transfer whose held-back bytes fail in the
# write callback when it resumes (here a gzip body decoding past
# --max-page-size) must end at once as what it is, "larger than", not
# wait unwatched for its --timeout. In libcurl 7.88, curl_easy_pause(CONT)
# returns the write callback's error before it watches the transfer's
# socket or timer again; the loop over its sockets (epoll) then never
# drove it: 4 x 8 s with --timeout 8 (4 x 10 s, the low-speed limit, at
# the default 30), where it takes well under a second. Every gzip
# transfer pauses at its first bytes under a 1 MiB budget, and each is
# resumed in turn.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy \
  NO_PROXY
mktemp_dir
S=$TEST_DIR/site
N=4
mkdir -p "$S/gz"
awk 'BEGIN {
  line = "<p>lorem ipsum dolor sit amet consectetur adipiscing elit sed do</p>\n"
  printf "<html><body>\n"
  for (i = 0; i < 60000; i++) printf "%s", line
  printf "</body></html>\n" }' >"$S/big.html"
{
  echo '<html><body>'
  for i in $(seq $N); do
    echo "<a href=\"gz/big$i.html\">b</a>"
    ln -s ../big.html "$S/gz/big$i.html"
  done
  echo '</body></html>'
} >"$S/index.html"
echo '/gz/* gzip' >"$TEST_DIR/rules"
server_start "$S" --host 127.0.0.1 --no-substitute --rules "$TEST_DIR/rules" ||
  { not_ok "server starts"; finish; }
out=$TEST_DIR/out
mkdir "$out"
rc=0
t0=$(date +%s%N)
timeout -k 5 120 "$BIN/crawler" --rate 0 --retries 0 --timeout 8 \
  --max-memory 1048576 --max-page-size 2097152 \
  "$BASE_URL/index.html" "$out" 1 >/dev/null 2>"$TEST_DIR/err" || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
grep '^crawler: failed' "$TEST_DIR/err" | sed 's/^/# /' >&2
check_eq "the crawl succeeds" "$rc" 0
check "it takes well under --timeout (${ms} ms < 6000)" test "$ms" -lt 6000
check "each big page failed as too large" \
  grep -q "^crawler: failed: $N x larger than 2097152 bytes" "$TEST_DIR/err"
finish
