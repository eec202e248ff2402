# sitemaps: --sitemaps. A seed's sitemaps (robots.txt Sitemap: lines, then
# /sitemap.xml) give links of the seed after its own, in document order,
# an index's sitemaps right after it, .xml.gz too; only the seed's host
# is asked, as robots.txt allows, at its politeness rate; a hostile
# sitemap is refused and the crawl goes on. Off by default. The journal
# keeps what they gave: --resume after the sitemap changed, and
# --replay, give the uninterrupted crawl, asking no sitemap again.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
S=$TEST_DIR/site
mkdir -p "$S/private"
echo '<a href="a.html">a</a>' >"$S/index.html"
for p in a b c d; do echo "<p>$p</p>" >"$S/$p.html"; done
cat >"$S/robots.txt" <<'R'
User-agent: *
Disallow: /private/
Sitemap: http://127.0.0.1:{{port}}/sm-index.xml
R
cat >"$S/sm-index.xml" <<'X'
<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>http://127.0.0.1:{{port}}/sm1.xml</loc></sitemap>
  <sitemap><loc>http://127.0.0.1:{{port}}/sm2.xml.gz</loc></sitemap>
  <sitemap><loc>http://127.0.0.1:{{port}}/private/sm3.xml</loc></sitemap>
  <sitemap><loc>http://127.0.0.2:{{port}}/other.xml</loc></sitemap>
</sitemapindex>
X
cat >"$S/sm1.xml" <<'X'
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>http://127.0.0.1:{{port}}/b.html</loc></url>
  <url><loc>http://127.0.0.1:{{port}}/a.html</loc></url>
  <url><loc>http://127.0.0.9:{{port}}/outside.html</loc></url>
  <url><loc>http://127.0.0.1:{{port}}/paper.pdf</loc></url>
</urlset>
X
echo '<urlset><url><loc>http://127.0.0.1:{{port}}/private/p.html</loc></url></urlset>' \
  >"$S/private/sm3.xml"
sitemap_xml() {  # the site's /sitemap.xml lists d.html (and e.html if $1)
  {
    echo '<urlset><url><loc>http://127.0.0.1:'"$PORT"'/d.html</loc></url>'
    [ -n "${1:-}" ] && echo '<url><loc>http://127.0.0.1:'"$PORT"'/e.html</loc></url>'
    echo '</urlset>'
  } >"$S/sitemap.xml"
}
echo '<p>e</p>' >"$S/e.html"
server_start "$S" --host 127.0.0.1 --host 127.0.0.2 --rules /dev/null ||
  { not_ok "server starts"; finish; }
H=http://127.0.0.1:$PORT
# The gzipped one names the port: written now that it is known.
echo "<urlset><url><loc>$H/c.html</loc></url></urlset>" | gzip -9n \
  >"$S/sm2.xml.gz"
sitemap_xml

crawl() {  # crawl NAME DEPTH ARGS...: $H/index.html into $TEST_DIR/NAME
  local name=$1 depth=$2
  shift 2
  mkdir -p "$TEST_DIR/$name"
  RC=0
  "$BIN/crawler" --log-file "$TEST_DIR/$name.events" "$@" "$H/index.html" \
    "$TEST_DIR/$name" "$depth" >/dev/null 2>"$TEST_DIR/$name.err" || RC=$?
}
heads() {  # heads DIR: "PATH DEPTH" of each page, in ID order
  local i=1
  while [ -f "$1/$i" ]; do
    printf '%s %s\n' "$(sed -n 1p "$1/$i" | sed "s|^$H||")" \
      "$(sed -n 2p "$1/$i")"
    i=$((i + 1))
  done
}
WANT="/index.html 0
/a.html 1
/b.html 1
/c.html 1
/d.html 1"

: >"$SERVER_LOG"
crawl plain 1 --rate 0
check_eq "off by default: the seed's links only" \
  "$(heads "$TEST_DIR/plain" | tr '\n' ' ')" "/index.html 0 /a.html 1 "
check_eq "and no sitemap is asked for" \
  "$(log_targets | grep -c 'sitemap\|sm')" 0

: >"$SERVER_LOG"
crawl sm 1 --rate 0 --sitemaps
H1=$H
check_eq "--sitemaps: exit 0" "$RC" 0
check_eq "the seed's links, then the sitemaps' in order (index, .gz, /sitemap.xml)" \
  "$(heads "$TEST_DIR/sm")" "$WANT"
check_eq "asked: the index, its sitemaps on the host robots.txt allows, /sitemap.xml" \
  "$(log_targets | grep -v '\.html$' | grep -v robots.txt | tr '\n' ' ')" \
  "/sm-index.xml /sm1.xml /sm2.xml.gz /sitemap.xml "
check_eq "nothing of 127.0.0.2, nothing out of scope" \
  "$(log_targets 127.0.0.2 | wc -l)$(log_targets 127.0.0.9 | wc -l)" 00
check "the marker records --sitemaps" grep -qx 'sitemaps: yes' \
  "$TEST_DIR/sm/.crawler"
check "the summary counts them" grep -q "sitemaps: 4 read, 0 failed" \
  "$TEST_DIR/sm.err"
check "the log file has each sitemap fetch" \
  grep -q " -1 Sitemap $H/sm2.xml.gz (read)" "$TEST_DIR/sm.events"
check "and the one robots.txt forbids" \
  grep -q "Sitemap $H/private/sm3.xml (disallowed by robots.txt)" \
  "$TEST_DIR/sm.events"
crawl sm0 0 --rate 0 --sitemaps
check_eq "at maxDepth 0 no sitemap is asked for" \
  "$(log_targets | grep -c '\.xml')" 4

# A sitemap request takes the host's token from a parse thread: the
# download threads, asleep while --max-pages held the host's next item
# back, must still wake when it is due (review: this hung for ever).
mkdir "$TEST_DIR/hang"
timeout 60 "$BIN/crawler" --sitemaps --max-pages 1 --seed "$H/b.html" \
  "$H/index.html" "$TEST_DIR/hang" 1 2>/dev/null
check_eq "--sitemaps, --max-pages 1, two seeds on one host, --rate 1: exit 0, no hang" \
  "$?" 0

# Two seeds on one host: the first reads the sitemaps, the other does
# not ask for them again (review: each seed read them all).
: >"$SERVER_LOG"
crawl twoseeds 1 --rate 0 --sitemaps --seed "$H/b.html"
check_eq "two seeds on one host: the sitemaps asked once" \
  "$(log_count /sm-index.xml)$(log_count /sitemap.xml)" 11

# Politeness: sitemap requests take the host's tokens like pages do.
: >"$SERVER_LOG"
crawl polite 1 --rate 4 --sitemaps
check "--rate 4: no two requests to the host closer than 0.2 s" \
  awk -F'\t' 'index($2, "127.0.0.1:") == 1 { if (n++ && $1 - t < 0.2) bad = 1; t = $1 }
    END { exit bad }' "$SERVER_LOG"

# Resume: the crawl interrupted after the seed; /sitemap.xml changes; the
# resumed crawl keeps what the sitemaps gave the first time.
printf '/c.html delay 30\n' >"$TEST_DIR/rules"
server_stop
server_start "$S" --host 127.0.0.1 --host 127.0.0.2 --rules "$TEST_DIR/rules" ||
  { not_ok "server starts again"; finish; }
H=http://127.0.0.1:$PORT
echo "<urlset><url><loc>$H/c.html</loc></url></urlset>" | gzip -9n \
  >"$S/sm2.xml.gz"
sitemap_xml
mkdir "$TEST_DIR/res"
"$BIN/crawler" --rate 0 --timeout 5 --sitemaps "$H/index.html" \
  "$TEST_DIR/res" 1 2>"$TEST_DIR/res.err" &
pid=$!
for _ in $(seq 100); do [ -f "$TEST_DIR/res/3" ] && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
check_eq "interrupted while c.html hangs: exit 5" "$?" 5
sitemap_xml with-e
server_stop
server_start "$S" --host 127.0.0.1 --port "$PORT" ||
  { not_ok "server starts a third time"; finish; }
: >"$SERVER_LOG"
"$BIN/crawler" --rate 0 --sitemaps --resume "$H/index.html" "$TEST_DIR/res" 1 \
  2>"$TEST_DIR/res2.err"
check_eq "--resume: exit 0" "$?" 0
check_eq "the pages the first sitemaps gave, not the changed ones" \
  "$(heads "$TEST_DIR/res")" "$WANT"
check_eq "and no sitemap was asked again" \
  "$(log_targets | grep -c '\.xml')" 0

# Replay of the first crawl (its seed is on the first server's port):
# the same pages, from its journal, asking nothing.
mkdir "$TEST_DIR/rep"
"$BIN/crawler" --sitemaps --replay "$TEST_DIR/sm" "$H1/index.html" \
  "$TEST_DIR/rep" 1 2>"$TEST_DIR/rep.err"
check "--replay --sitemaps: the same crawl" diff -r "$TEST_DIR/sm" \
  "$TEST_DIR/rep"

# A hostile /sitemap.xml (billion laughs): refused, the rest goes on.
cat >"$S/sitemap.xml" <<'X'
<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>
<urlset><url><loc>&lol2;</loc></url></urlset>
X
crawl hostile 1 --rate 0 --sitemaps
check_eq "a hostile sitemap: exit 0" "$RC" 0
check_eq "the other sitemaps' pages saved, none from it" \
  "$(heads "$TEST_DIR/hostile" | tr '\n' ' ')" \
  "/index.html 0 /a.html 1 /b.html 1 /c.html 1 "
check "the log file says why" grep -q "Sitemap $H/sitemap.xml (a document type" \
  "$TEST_DIR/hostile.events"
check "the summary counts it failed" grep -q "sitemaps: 3 read, 1 failed" \
  "$TEST_DIR/hostile.err"
crawl shared 1 --sitemaps --cluster redis://127.0.0.1:1 --crawl-name x
check_eq "--sitemaps with --cluster: exit 1" "$RC" 1
finish
