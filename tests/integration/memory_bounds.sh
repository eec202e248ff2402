# memory_bounds: three ways past --max-memory found in review of
# issue 13 (each crawl with --max-memory 16 MiB; the bound asserted is
# memory.sh's: budget + RSS_SLACK_KIB of peak RSS, GNU time's %M).
#
#   noindex   the seed is a noindex page with 100,000 links of ~1,980
#             bytes (bench/hostile-site.sh's big-a.html plus a robots
#             meta): store_record_noindex builds the whole .noindex-1 in
#             one strbuf (~200 MB), outside the budget (store.h NEEDSWORK).
#   parked    seed -> slow.html (8 s) and hub.html; hub links 150 noindex
#             pages of 1 MB: fetched speculatively behind slow.html, each
#             is parsed (noindex, scanned) and parked WITH its body in
#             memory: wc_parse skips write_tmp for noindex && scanned and
#             does not free the body either (webcrawl.c, spec branch).
#   gate      seed on 127.0.0.1 links 100,000 long URLs on 127.0.0.2,
#             whose robots.txt answers after 5 s: while its gate is in
#             flight the host is in no heap, so frontier_pop sees "nothing
#             in memory, no waiting, no delayed, spilled" and force-loads
#             batch after batch, without unlocking, until the whole spill
#             is in memory (frontier.c, frontier_pop / spill_load(f, true)).
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd /usr/bin/time
mktemp_dir
if [ -n "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ]; then
  skip_all "a sanitizer's own memory is not the crawler's"
fi
BUDGET=16777216
RSS_SLACK_KIB=65536  # memory.sh's, the constant DESIGN.md states
S=$TEST_DIR/site
sh "$TOP/bench/hostile-site.sh" "$S" 2>/dev/null
# noindex: big-a.html with a robots meta.
sed 's|<head>|<head><meta name="robots" content="noindex">|' \
  "$S/big-a.html" > "$S/ni.html"
# parked: hub.html links 150 noindex pages of 1 MB each.
awk 'BEGIN {
  printf "<html><head><meta name=\"robots\" content=\"noindex\">"
  printf "<title>fat</title></head><body>\n"
  s = ""; for (i = 0; i < 100; i++) s = s "xxxxxxxxx "
  for (i = 0; i < 1000; i++) print "<p>" s "</p>"
  print "</body></html>" }' > "$S/fat.html"
{
  printf '<html><head><title>hub</title></head><body>\n'
  i=1
  while [ $i -le 150 ]; do
    printf '<a href="fat%d.html">f</a>\n' $i
    ln -s fat.html "$S/fat$i.html"
    i=$((i + 1))
  done
  printf '</body></html>\n'
} > "$S/hub.html"
printf '<html><body><a href="slow.html">s</a> <a href="hub.html">h</a></body></html>\n' \
  > "$S/seed-parked.html"
# gate: links to 100,000 URLs on 127.0.0.2 ({{port}} is substituted).
awk 'BEGIN {
  base = ""; for (i = 0; i < 1950; i++) base = base "q"
  printf "<!DOCTYPE html>\n<html><head><title>cross</title>\n"
  printf "<base href=\"http://127.0.0.2:{{port}}/%s/\"></head>\n<body>\n", base
  for (n = 0; n < 100000; n++) printf "<a href=?%d>x</a>\n", n
  printf "</body></html>\n"
  printf "/%s* status 200\n", base >> "'"$S/rules"'" }' > "$S/cross.html"
printf '127.0.0.2 /robots.txt delay 5\n' >> "$S/rules"
server_start "$S" --host 127.0.0.1 --host 127.0.0.2 --rules "$S/rules" ||
  { not_ok "server starts"; finish; }

# bounded NAME SEED DEPTH [OPTIONS...]: crawl under GNU time (exit 0 or
# 8, the seed not saved, for the noindex seed), check peak RSS.
bounded() {
  local name=$1 seed=$2 depth=$3 out rss rc=0
  shift 3
  out=$TEST_DIR/$name
  mkdir "$out"
  /usr/bin/time -f %M -o "$out.time" "$BIN/crawler" --max-memory "$BUDGET" \
    "$@" "$seed" "$out" "$depth" 2>"$out.err" >/dev/null || rc=$?
  rss=$(tail -n 1 "$out.time")
  check "$name: the crawl ends normally (exit $rc)" test "$rc" = 0 -o "$rc" = 8
  grep '^crawler: memory' "$out.err" | sed 's/^/# /' >&2
  check "$name: peak RSS ${rss:-?} KiB <= budget + $RSS_SLACK_KIB KiB" \
    test "${rss:-999999999}" -le $((BUDGET / 1024 + RSS_SLACK_KIB))
}

bounded noindex "$BASE_URL/ni.html" 1 --max-pages 2
bounded parked "$BASE_URL/seed-parked.html" 3 --rate 100 --burst 100
bounded gate "$BASE_URL/cross.html" 1 --max-pages 2 --scope "$BASE_URL/" \
  --scope "http://127.0.0.2:$PORT/"
finish
