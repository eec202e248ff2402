# events_budget: bodies in flight are charged to --max-memory (issue 34).
# Sixteen pages of 4 MB each, dripped by the server (4 KiB every 2 ms),
# are all in flight at once (--rate 0; a 4 MiB budget allows 16
# transfers). Uncharged, the bodies held 64 MB against the 4 MiB budget
# (peak RSS 67-75 MB). Charged, the event loop pauses a transfer whose
# next bytes would pass the budget (CURL_WRITEFUNC_PAUSE), all but the
# oldest in flight, and resumes it when parsed pages give their bytes
# back: here one page at a time, 13 s in all. The time paused does not
# count against --timeout 5 (libcurl's own limit counts it: 12 of
# the 16 timed out). The same again gzipped (a body's decoded size is
# known only as it decodes). Each crawl must be whole and exact, and its
# peak RSS within the budget, one page (the oldest transfer's) and
# RSS_BASE_KIB, the crawler's own (code, libraries, transfers' buffers:
# 17-25 MB on the bench's sites).
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd /usr/bin/time
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy \
  NO_PROXY
mktemp_dir
if [ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ]; then
  skip_all "a sanitizer's own memory is not the crawler's"
fi
BUDGET=4194304
PAGE=4194304
RSS_BASE_KIB=28672
N=16
S=$TEST_DIR/site
mkdir -p "$S"
awk -v n="$PAGE" 'BEGIN {
  printf "<html><head><title>big</title></head><body>\n"
  line = "<p>lorem ipsum dolor sit amet consectetur adipiscing elit sed do</p>\n"
  for (i = 0; i < (n - 100) / length(line); i++) printf "%s", line
  printf "</body></html>\n" }' >"$S/big.html"
{
  echo '<html><body>'
  for i in $(seq "$N"); do
    echo "<a href=\"big$i.html\">b</a>"
    ln -s big.html "$S/big$i.html"
  done
  echo '</body></html>'
} >"$S/index.html"
cat >"$TEST_DIR/rules" <<'RULES'
/big* drip 4096 0.002
/gz/big* drip 4096 0.002
/gz/* gzip
RULES
mkdir "$S/gz"
cp "$S/index.html" "$S/gz/"
for i in $(seq "$N"); do ln -s ../big.html "$S/gz/big$i.html"; done
server_start "$S" --host 127.0.0.1 --no-substitute --rules "$TEST_DIR/rules" ||
  { not_ok "server starts"; finish; }

# crawl NAME SEED: a depth-1 crawl under GNU time; checks.
crawl() {
  local name=$1 seed=$2 out=$TEST_DIR/$1 rc=0 rss
  mkdir "$out"
  timeout -k 5 120 /usr/bin/time -f %M -o "$out.time" "$BIN/crawler" \
    --rate 0 --retries 0 --timeout 5 --stats --max-memory "$BUDGET" "$seed" "$out" 1 \
    >/dev/null 2>"$out.err" || rc=$?
  rss=$(tail -n 1 "$out.time")
  grep -E '^crawler: (memory|transfers)' "$out.err" | sed 's/^/# /' >&2
  check_eq "$name: the crawl succeeds" "$rc" 0
  check_eq "$name: every page saved" "$(ls "$out" | grep -c '^[0-9]')" \
    $((N + 1))
  local same=0 i
  for i in $(seq 2 $((N + 1))); do
    tail -n +3 "$out/$i" | cmp -s - "$S/big.html" && same=$((same + 1))
  done
  check_eq "$name: every big page as served" "$same" "$N"
  check "$name: peak RSS ${rss:-?} KiB <= budget + a page + $RSS_BASE_KIB KiB" \
    test "${rss:-999999999}" -le \
    $(((BUDGET + PAGE) / 1024 + RSS_BASE_KIB))
}
crawl plain "$BASE_URL/index.html"
crawl gzip "$BASE_URL/gz/index.html"
finish
