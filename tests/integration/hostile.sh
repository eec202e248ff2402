# hostile: the crawler against servers and pages that misbehave on purpose:
# endless, oversized and compressed-bomb bodies, slow drips, hangs,
# half-sent responses, refused connections, redirect loops and long chains,
# redirects to other schemes, crawler traps (endless generated chains,
# repeated path segments, over-long URLs, session IDs), huge link lists,
# deep nesting, NUL bytes, bad encodings, control characters in links,
# lying Content-Types, robots.txt that is huge, binary, failing,
# looping or slow, and sitemaps that are endless, loop, list thousands
# of sitemaps or laugh a billion times.
#
# Every crawl must finish within a generous bound (timeout 60 s each), exit
# 0 (8 where the seed itself is the hostile page: it is not saved), say in
# its log or summary what happened, leave a valid page directory
# (IDs 1..N without a gap, no temporary file left, line 1 one clean URL of
# at most 2048 bytes, line 2 a depth within maxDepth) and keep its memory
# bounded (peak RSS from /usr/bin/time, when installed).
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
S=$TEST_DIR/site
# Hosts: .1 the hostile site, .2 to .6 one robots.txt case each.
M=$S/127.0.0.1
mkdir -p "$M/size" "$M/slow" "$M/redir" "$M/trap/t" "$M/content" \
  "$M/sess" "$S/127.0.0.2" "$S/127.0.0.3" "$S/127.0.0.4" "$S/127.0.0.5" \
  "$S/127.0.0.6"

# Peak RSS bound (KiB): generous, and larger under the sanitizers, whose
# shadow memory and quarantine multiply the footprint.
case "$B" in
  */asan | */tsan) RSS_MAX=2000000 ;;
  *) RSS_MAX=200000 ;;
esac
HAVE_TIME=0
[ -x /usr/bin/time ] && HAVE_TIME=1

# ------------------------------------------------------------ the site

# size: an endless body, one over --max-page-size, a gzip bomb.
cat >"$M/size/index.html" <<'HTML'
<a href="endless.html">endless</a> <a href="big.html">big</a>
<a href="bomb.html">gzip bomb</a> <a href="ok.html">ok</a>
HTML
echo '<p>fine</p>' >"$M/size/ok.html"
head -c 1500000 /dev/zero | tr '\0' x >"$M/size/big.html"
# 50 MB of spaces: gzip makes it about 50 KB. (Zeros would be caught as
# binary content too; spaces leave the size cap as the only defence.)
head -c 50000000 /dev/zero | tr '\0' ' ' >"$M/size/bomb.html"

# slow: a drip below the low-speed limit, a hang, a half-sent body.
cat >"$M/slow/index.html" <<'HTML'
<a href="drip.html">drip</a> <a href="hang.html">hang</a>
<a href="close.html">close</a> <a href="ok.html">ok</a>
HTML
head -c 3000 /dev/zero | tr '\0' d >"$M/slow/drip.html"
echo hang >"$M/slow/hang.html"
head -c 20000 /dev/zero | tr '\0' c >"$M/slow/close.html"
echo '<p>fine</p>' >"$M/slow/ok.html"

# redir: a loop, chains of exactly 10 hops (followed) and 11 (refused),
# redirects to ftp: and mailto:.
cat >"$M/redir/index.html" <<'HTML'
<a href="loop1">loop</a> <a href="ca0">10 hops</a> <a href="cb0">11 hops</a>
<a href="toftp">ftp</a> <a href="tomailto">mailto</a>
HTML
echo '<p>end of the 10-hop chain</p>' >"$M/redir/ca-end.html"
echo '<p>end of the 11-hop chain</p>' >"$M/redir/cb-end.html"
{
  echo '/redir/loop1 redirect 302 /redir/loop2'
  echo '/redir/loop2 redirect 302 /redir/loop1'
  # ca: 10 redirects (ca0 .. ca9, then the page); cb: 11.
  for i in $(seq 0 8); do echo "/redir/ca$i redirect 302 /redir/ca$((i + 1))"; done
  echo '/redir/ca9 redirect 302 /redir/ca-end.html'
  for i in $(seq 0 9); do echo "/redir/cb$i redirect 302 /redir/cb$((i + 1))"; done
  echo '/redir/cb10 redirect 302 /redir/cb-end.html'
  echo '/redir/toftp redirect 301 ftp://127.0.0.1/file'
  echo '/redir/tomailto redirect 302 mailto:someone@example.invalid'
} >"$TEST_DIR/rules"

# trap: /trap/cal/N is an endless generated chain; /trap/t/a is a symlink
# to its own directory, so /trap/t/a/a/a/... all exist; long.html links
# to URLs just under and just over 2048 bytes.
cat >>"$TEST_DIR/rules" <<'RULES'
/trap/cal/* generate
/size/endless.html endless
/size/bomb.html gzip
/slow/drip.html drip 10 1
/slow/hang.html hang
/slow/close.html close
/content/lat.html type text/html; charset=iso-8859-1
RULES
echo '<a href="a/">deeper</a>' >"$M/trap/t/index.html"
ln -s . "$M/trap/t/a"
LONG_PREFIX="/trap/long.html?q="
# http://127.0.0.1:PORT is 21 or 22 bytes (port of 4 or 5 digits).
long_query() {  # long_query TOTAL: a query making the URL TOTAL bytes
  local base="http://127.0.0.1:$1$LONG_PREFIX" want=$2
  head -c $((want - ${#base})) /dev/zero | tr '\0' q
}

# sess: links with session IDs in the query; each page links to more.
{
  for i in $(seq 1 200); do echo "<a href=\"page.html?sid=$i\">$i</a>"; done
} >"$M/sess/page.html"
cp "$M/sess/page.html" "$M/sess/index.html"

# content: hostile page bodies.
C=$M/content
{
  echo '<a href="many.html">many</a> <a href="nested.html">nested</a>'
  echo '<a href="nul.html">nul</a> <a href="badutf8.html">bad utf-8</a>'
  echo '<a href="lat.html">latin-1</a> <a href="ctl.html">controls</a>'
  echo '<a href="png.html">png</a> <a href="pdf.html">pdf</a>'
  echo '<a href="late-nul.html">NUL after the first KiB</a>'
} >"$C/index.html"
# 100,000 links to one page, then one more: only the first 100,000 count.
{
  yes '<a href="dup.html">d</a>' | head -n 100000
  echo '<a href="beyond.html">the 100,001st link</a>'
} >"$C/many.html"
echo dup >"$C/dup.html"
echo beyond >"$C/beyond.html"
{
  printf '<div>%.0s' $(seq 100000)
  echo '<a href="deep-target.html">deep</a>'
} >"$C/nested.html"
echo '<p>reached through 100,000 divs</p>' >"$C/deep-target.html"
printf '<a href="n1.html">x</a>\0<a href="n2.html">y</a>\n' >"$C/nul.html"
printf '<a href="u1.html">\xff\xc3(\xe2\x82 \xed\xa0\x80 \xc0\xaf</a>\n<a href="u2.html">z</a>\n' \
  >"$C/badutf8.html"
printf '<p>caf\xe9</p><a href="caf\xe9.html">caf\xe9</a>\n' >"$C/lat.html"
printf '<a href="a\tb.html">tab</a> <a href="c\nd.html">newline</a>\n<a href="e\x01f.html">soh</a> <a href="g\x7fh.html">del</a>\n<a href=" sp ace.html ">space</a> <a href="i\rj.html">cr</a>\n<a href="k\x1bl.html">esc</a>\n' \
  >"$C/ctl.html"
for f in ab cd ij u1 u2 n1 n2 nul2 'sp ace' "e$(printf '\001')f" \
  "g$(printf '\177')h" "k$(printf '\033')l"; do
  echo "<p>$f</p>" >"$C/$f.html"
done
{
  head -c 1100 /dev/zero | tr '\0' ' '
  printf '<a href="nul\0x.html">cut at the NUL</a> <a href="nul2.html">after</a>\n'
} >"$C/late-nul.html"
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR<a href="fromimage.html">' >"$C/png.html"
printf '%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n<a href="frompdf.html">x</a>\n' >"$C/pdf.html"

# robots.txt cases, one host each; every host has index.html -> a.html,
# and private.html, late.html for the huge one.
for h in 2 3 4 5 6; do
  d=$S/127.0.0.$h
  printf '<a href="a.html">a</a> <a href="private.html">p</a> <a href="late.html">l</a>\n' \
    >"$d/index.html"
  for f in a private late; do echo "$f" >"$d/$f.html"; done
done
# .2: over 500 KiB; a rule before the cap counts, one after it does not.
{
  printf 'User-agent: *\nDisallow: /private.html\n'
  for i in $(seq 14000); do echo "# padding line $i of a huge robots.txt"; done
  printf 'Disallow: /late.html\n'
} >"$S/127.0.0.2/robots.txt"
# .3: binary.
{
  printf '\x89PNG\r\n\x1a\n\0\0'
  for i in $(seq 0 255); do printf "\\x$(printf %02x "$i")"; done
  printf '\0Disallow\0: /a.html\n'
} >"$S/127.0.0.3/robots.txt"
cat >>"$TEST_DIR/rules" <<'RULES'
127.0.0.4 /robots.txt status 503
127.0.0.5 /robots.txt redirect 302 /r1.txt
127.0.0.5 /r1.txt redirect 302 /robots.txt
127.0.0.6 /robots.txt delay 5
RULES

# .7: hostile sitemaps (--sitemaps): an endless one, a gzip bomb, a
# redirect loop, an
# index listing itself and 2,000 sitemaps, and billion laughs.
mkdir -p "$S/127.0.0.7"
echo '<a href="a.html">a</a>' >"$S/127.0.0.7/index.html"
echo '<p>a</p>' >"$S/127.0.0.7/a.html"
{
  echo 'User-agent: *'
  for f in endless.xml bomb.xml.gz pis.xml.gz loop.xml laughs.xml index.xml; do
    echo "Sitemap: http://127.0.0.7:{{port}}/$f"
  done
} >"$S/127.0.0.7/robots.txt"
{
  echo '<sitemapindex>'
  echo '<sitemap><loc>http://127.0.0.7:{{port}}/index.xml</loc></sitemap>'
  for i in $(seq 2000); do
    echo "<sitemap><loc>http://127.0.0.7:{{port}}/s$i.xml</loc></sitemap>"
  done
  echo '</sitemapindex>'
} >"$S/127.0.0.7/index.xml"
# 60 MB gzipped to a few hundred KB: of elements (a bomb), and of
# processing instructions, which libxml2's reader would keep in memory
# (1.9 GB before the first node came back).
{ echo '<urlset>'; yes '<x>no use to anyone</x>' | head -c 60000000; } |
  gzip -1 >"$S/127.0.0.7/bomb.xml.gz"
{ echo '<urlset>'; yes '<?p a?>' | head -c 60000000; } |
  gzip -1 >"$S/127.0.0.7/pis.xml.gz"
cat >"$S/127.0.0.7/laughs.xml" <<'X'
<?xml version="1.0"?>
<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>
<urlset><url><loc>http://127.0.0.7/&d;&d;&d;&d;</loc></url></urlset>
X
cat >>"$TEST_DIR/rules" <<'RULES'
127.0.0.7 /endless.xml endless
127.0.0.7 /loop.xml redirect 302 /loop.xml
RULES

server_start "$S" --rules "$TEST_DIR/rules" --host 127.0.0.1 \
  --host 127.0.0.2 --host 127.0.0.3 --host 127.0.0.4 --host 127.0.0.5 \
  --host 127.0.0.6 --host 127.0.0.7 || { not_ok "server starts"; finish; }
H1=http://127.0.0.1:$PORT

# ------------------------------------------------------------ helpers

# crawl NAME SEED DEPTH [OPTIONS...]: crawl into $TEST_DIR/NAME (log in
# NAME.log, stderr in NAME.err); sets RC and TOOK (seconds). Bounded: 60 s.
crawl() {
  local name=$1 seed=$2 depth=$3 t0
  shift 3
  mkdir "$TEST_DIR/$name"
  t0=$(date +%s)
  if [ "$HAVE_TIME" = 1 ]; then
    timeout -k 5 60 /usr/bin/time -f %M -o "$TEST_DIR/$name.rss" \
      "$BIN/crawler" --rate 0 --log "$@" "$seed" "$TEST_DIR/$name" \
      "$depth" >"$TEST_DIR/$name.log" 2>"$TEST_DIR/$name.err"
  else
    timeout -k 5 60 "$BIN/crawler" --rate 0 --log "$@" "$seed" \
      "$TEST_DIR/$name" "$depth" >"$TEST_DIR/$name.log" \
      2>"$TEST_DIR/$name.err"
  fi
  RC=$?
  TOOK=$(( $(date +%s) - t0 ))
}

# dir_valid NAME MAXDEPTH: the page directory of crawl NAME is valid.
dir_valid() {
  local d=$TEST_DIR/$1 max=$2 n i f bad=0 l1 len
  # A crawl that saved nothing leaves the directory as it was given.
  if [ ! -f "$d/.crawler" ] && [ -z "$(ls -A "$d")" ]; then
    return 0
  fi
  [ -f "$d/.crawler" ] || { echo "$1: no marker" >&2; return 1; }
  if ls -A "$d" | grep -q '^\.tmp-'; then
    echo "$1: temporary file left" >&2
    return 1
  fi
  n=$(ls "$d" | wc -l)
  if ls "$d" | grep -qv '^[1-9][0-9]*$'; then
    echo "$1: a file that is not a page ID" >&2
    return 1
  fi
  for i in $(seq 1 "$n"); do
    f=$d/$i
    [ -f "$f" ] || { echo "$1: IDs not contiguous: no $i of $n" >&2; return 1; }
    l1=$(head -n 1 "$f" | LC_ALL=C tr -d '!-~' | wc -c)
    len=$(head -n 1 "$f" | wc -c)
    if [ "$l1" != 1 ] || [ "$len" -gt 2049 ] ||
       ! head -n 1 "$f" | grep -qE '^https?://'; then
      echo "$1: page $i: line 1 is not one clean URL" >&2
      head -n 1 "$f" | od -c | head -n 5 >&2
      bad=1
    fi
    if ! sed -n 2p "$f" | grep -qxE '[0-9]+' ||
       [ "$(sed -n 2p "$f")" -gt "$max" ]; then
      echo "$1: page $i: line 2 is not a depth <= $max" >&2
      bad=1
    fi
  done
  return "$bad"
}

# finished NAME MAXDEPTH [MAX_SECONDS [EXIT]]: the common checks of every
# case; EXIT 8 for a crawl whose seed is not saved.
finished() {
  local name=$1 max=$2 secs=${3:-45} want=${4:-0} rss
  check_eq "$name: the crawl exits $want" "$RC" "$want"
  check "$name: it finishes within $secs s (took $TOOK s)" \
    test "$TOOK" -le "$secs"
  check "$name: the page directory is valid" dir_valid "$name" "$max"
  if [ "$HAVE_TIME" = 1 ]; then
    rss=$(tail -n 1 "$TEST_DIR/$name.rss")
    check "$name: peak RSS ${rss} KiB <= $RSS_MAX KiB" \
      test "${rss:-0}" -le "$RSS_MAX"
  fi
}

logged() {  # logged NAME ERE: the crawl's log has a line matching ERE
  grep -qE -- "$2" "$TEST_DIR/$1.log" || {
    echo "# no line matching [$2] in $1.log" >&2
    return 1
  }
}
summary() {  # summary NAME ERE: the crawl's summary (stderr) matches ERE
  grep -qE -- "$2" "$TEST_DIR/$1.err" || {
    echo "# no line matching [$2] in $1.err:" >&2
    cat "$TEST_DIR/$1.err" >&2
    return 1
  }
}
page_file() {  # page_file NAME PATH: the saved file whose URL ends in PATH
  local i=1
  while [ -f "$TEST_DIR/$1/$i" ]; do
    if head -n 1 "$TEST_DIR/$1/$i" | grep -q -- "$2\$"; then
      echo "$TEST_DIR/$1/$i"
      return 0
    fi
    i=$((i + 1))
  done
  echo /nonexistent
}
saved() {  # saved NAME: the paths of the saved URLs, in ID order, one line
  local i=1
  while [ -f "$TEST_DIR/$1/$i" ]; do
    head -n 1 "$TEST_DIR/$1/$i" | sed "s|^http://127\.0\.0\.[0-9]*:$PORT||"
    i=$((i + 1))
  done | tr '\n' ' '
}

# ------------------------------------------------------------ size

crawl size "$H1/size/" 1 --max-page-size 1000000
finished size 1
check "size: the endless body is abandoned at the cap" \
  logged size 'Failed: .*/size/endless.html \(larger than 1000000 bytes\)'
check "size: a body over --max-page-size is abandoned" \
  logged size 'Failed: .*/size/big.html \(larger than 1000000 bytes\)'
check "size: the gzip bomb's decoded size is capped" \
  logged size 'Failed: .*/size/bomb.html \(larger than 1000000 bytes\)'
check_eq "size: only the sane pages are saved" "$(saved size)" \
  "/size/ /size/ok.html "
check "size: the summary counts 3 pages too large" \
  summary size 'too large 3\)'

# ------------------------------------------------------------ slow

# 10 bytes/s: with --timeout 3 the request times out at 3 s; with
# --timeout 12 the low-speed limit (100 bytes/s for min(10, 12) s) ends it
# first, at 10 s.
crawl drip "$H1/slow/drip.html" 0 --timeout 3 --retries 0
finished drip 0 20 8
check "drip: a slow body is abandoned at --timeout 3" \
  logged drip 'Failed: .*/slow/drip.html \(.*timed out after 3'
check_eq "drip: nothing saved" "$(saved drip)" ""
# The low-speed limit is min(--timeout, 10) s; a 15 s timeout leaves 5 s
# of slack for a loaded machine (the message tells which limit fired).
crawl drip15 "$H1/slow/drip.html" 0 --timeout 15 --retries 0
finished drip15 0 28 8
check "drip: below 100 bytes/s for 10 s: the low-speed limit aborts it" \
  logged drip15 'Failed: .*/slow/drip.html \(Operation too slow'
check "drip: ... before the 15 s timeout (took $TOOK s)" test "$TOOK" -lt 15

crawl slow "$H1/slow/" 1 --timeout 2 --retries 0
finished slow 1 30
check "slow: a hanging server times out" \
  logged slow 'Failed: .*/slow/hang.html \(.*timed out'
check "slow: a connection closed mid-body is a failure" \
  logged slow 'Failed: .*/slow/close.html \('
check_eq "slow: the good pages are saved" "$(saved slow)" \
  "/slow/ /slow/ok.html "
check "slow: the summary counts 3 network failures (drip, hang, close)" \
  summary slow 'network 3,'

# Connection refused: a port nothing listens on (the first of a few that
# refuses; every probe is on loopback).
CLOSED=
for p in 1 7 9 13 17 19 37; do
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
    CLOSED=$p
    break
  fi
done
if [ -n "$CLOSED" ]; then
  crawl refused "http://127.0.0.1:$CLOSED/" 1 --retries 0 --timeout 2
  finished refused 1 20 8
  check "refused: robots.txt unreachable: the host is disallowed" \
    logged refused "IgnRobots: http://127.0.0.1:$CLOSED/ "
  crawl refused2 "http://127.0.0.1:$CLOSED/" 1 --retries 1 --timeout 2 \
    --ignore-robots
  finished refused2 1 20 8
  check "refused: a refused connection is logged as a failure" \
    logged refused2 "Failed: http://127.0.0.1:$CLOSED/ \(.*(onnect|refused)"
  check "refused: it is retried (--retries 1)" \
    summary refused2 'retries 1$'
else
  skip "refused: a refused connection" \
    "no closed port found among the probes"
fi

# ------------------------------------------------------------ redirects

crawl redir "$H1/redir/" 1 --retries 0
finished redir 1
check "redir: a redirect loop stops after 10 hops" \
  logged redir 'Failed: .*/redir/loop[12] \(too many redirects'
check_eq "redir: the loop costs 11 requests" \
  "$(( $(log_count /redir/loop1) + $(log_count /redir/loop2) ))" 11
check "redir: a chain of 11 hops is refused" \
  logged redir 'Failed: .*/redir/cb10 \(too many redirects'
check_eq "redir: its target is never asked for" \
  "$(log_count /redir/cb-end.html)" 0
check "redir: a chain of exactly 10 hops is followed" \
  logged redir 'Saved: .*/redir/ca-end.html'
check "redir: a redirect to ftp: is not followed" \
  logged redir 'Failed: .*/redir/toftp \(redirect to an invalid or non-http URL: ftp://'
check "redir: a redirect to mailto: is not followed" \
  logged redir 'Failed: .*/redir/tomailto \(redirect to an invalid or non-http URL'
check_eq "redir: saved" "$(saved redir)" "/redir/ /redir/ca-end.html "

# ------------------------------------------------------------ traps

crawl cal "$H1/trap/cal/0" 5
finished cal 5
check_eq "trap: an endless generated chain stops at maxDepth" \
  "$(saved cal)" \
  "/trap/cal/0 /trap/cal/1 /trap/cal/2 /trap/cal/3 /trap/cal/4 /trap/cal/5 "
check_eq "trap: the page past maxDepth is never fetched" \
  "$(log_count /trap/cal/6)" 0

crawl calmax "$H1/trap/cal/0" 1000 --max-pages 4
finished calmax 1000
check_eq "trap: --max-pages 4 bounds it at any depth" \
  "$(ls "$TEST_DIR/calmax" | wc -l)" 4

crawl segs "$H1/trap/t/" 50
finished segs 50
check_eq "trap: a path repeating a segment is followed 3 times" \
  "$(saved segs)" "/trap/t/ /trap/t/a/ /trap/t/a/a/ /trap/t/a/a/a/ "
check "trap: a 4th repetition is logged as IgnTrap" \
  logged segs 'IgnTrap: .*/trap/t/a/a/a/a/$'
check "trap: the summary counts it" summary segs 'trap 1,'

LQ_OK=$(long_query "$PORT" 2048)
LQ_BAD=$(long_query "$PORT" 2049)
{
  echo "<a href=\"x/../long.html?q=$LQ_OK\">2048 bytes</a>"
  echo "<a href=\"x/../long.html?q=$LQ_BAD\">2049 bytes</a>"
  echo "<a href=\"long.html?q=$LQ_OK$LQ_OK\">far too long</a>"
  printf '<a href="long.html?q=%s">over 32 KiB</a>\n' \
    "$(head -c 40000 /dev/zero | tr '\0' q)"
} >"$M/trap/long.html"
crawl long "$H1/trap/long.html" 3
finished long 3
check_eq "trap: a URL of exactly 2048 bytes is followed" \
  "$(log_count "$LONG_PREFIX$LQ_OK")" 1
check_eq "trap: a URL of 2049 bytes is not" \
  "$(log_count "$LONG_PREFIX$LQ_BAD")" 0
check_eq "trap: they are logged as invalid (3 links x 2 pages)" \
  "$(grep -c 'IgnBad: ' "$TEST_DIR/long.log")" 6

crawl sess "$H1/sess/" 10 --max-pages-per-host 10
finished sess 10
check_eq "trap: session IDs: --max-pages-per-host 10 saves 10 pages" \
  "$(ls "$TEST_DIR/sess" | wc -l)" 10
check "trap: the summary counts pages over the per-host limit" \
  summary sess 'over the per-host limit [1-9]'

# ------------------------------------------------------------ content

crawl content "$H1/content/" 2
finished content 2 60
check_eq "content: only the first 100,000 links of a page are taken" \
  "$(log_count /content/beyond.html)" 0
check_eq "content: the duplicates cost one request" \
  "$(log_count /content/dup.html)" 1
check "content: a link after 100,000 nested elements is found" \
  logged content 'Saved: .*/content/deep-target.html'
check "content: a NUL in the first KiB: not a page" \
  logged content 'Failed: .*/content/nul.html \(not a page: binary content\)'
check_eq "content: the binary page's links are not taken" \
  "$(log_count /content/n1.html)$(log_count /content/n2.html)" 00
check "content: invalid UTF-8 loses no link" \
  logged content 'Saved: .*/content/u2.html'
check "content: the invalid UTF-8 page is saved byte for byte" \
  cmp <(tail -n +3 "$(page_file content /content/badutf8.html)") \
  "$C/badutf8.html"
check_eq "content: a latin-1 href becomes UTF-8 percent-encoded" \
  "$(log_count /content/caf%C3%A9.html)" 1
check_eq "content: tabs, newlines and CR inside an href are dropped" \
  "$(log_count /content/ab.html)$(log_count /content/cd.html)$(log_count /content/ij.html)" \
  111
check_eq "content: controls and spaces are percent-encoded" \
  "$(log_count /content/e%01f.html)$(log_count /content/g%7Fh.html)$(log_count /content/sp%20ace.html)$(log_count /content/k%1Bl.html)" \
  1111
check "content: a page whose URL had a control character is saved" \
  logged content 'Saved: .*/content/e%01f.html$'
check "content: ... and one whose URL had a DEL" \
  logged content 'Saved: .*/content/g%7Fh.html$'
check "content: a NUL after the first KiB: the page is saved" \
  logged content 'Saved: .*/content/late-nul.html'
check_eq "content: ... and the link after the NUL is followed" \
  "$(log_count /content/nul2.html)" 1
check "content: a PNG served as text/html is not saved" \
  logged content 'Failed: .*/content/png.html \(not a page: binary content\)'
check "content: a PDF served as text/html is not saved" \
  logged content 'Failed: .*/content/pdf.html \(not a page: binary content\)'
check_eq "content: links inside them are not taken" \
  "$(log_count /content/fromimage.html)$(log_count /content/frompdf.html)" 00
check "content: the summary counts 3 binary pages" \
  summary content 'binary 3,'

# ------------------------------------------------------------ robots.txt

crawl rhuge "http://127.0.0.2:$PORT/" 1
finished rhuge 1
check "robots huge: a rule before the 500 KiB cap applies" \
  logged rhuge 'IgnRobots: .*/private.html'
check_eq "robots huge: a rule after the cap does not" "$(saved rhuge)" \
  "/ /a.html /late.html "

crawl rbin "http://127.0.0.3:$PORT/" 1
finished rbin 1
check_eq "robots binary: no rule parsed, all allowed" "$(saved rbin)" \
  "/ /a.html /private.html /late.html "

crawl r5xx "http://127.0.0.4:$PORT/" 1 --retries 1
finished r5xx 1 20 8
check_eq "robots 503: retried (--retries 1)" \
  "$(log_count /robots.txt 127.0.0.4)" 2
check_eq "robots 503: then the host is disallowed" "$(saved r5xx)" ""
check "robots 503: the seed is logged IgnRobots, with the status" \
  logged r5xx "IgnRobots: http://127.0.0.4:$PORT/ \(robots.txt \
unreachable: HTTP 503 Service Unavailable\)"

crawl rloop "http://127.0.0.5:$PORT/" 1
finished rloop 1
check "robots redirect loop: at most 6 requests (5 hops)" \
  test "$(( $(log_count /robots.txt 127.0.0.5) + $(log_count /r1.txt 127.0.0.5) ))" -le 6
check_eq "robots redirect loop: treated as unavailable (allow all)" \
  "$(saved rloop)" "/ /a.html /private.html /late.html "

crawl sitemaps "http://127.0.0.7:$PORT/index.html" 1 --sitemaps \
  --log-file "$TEST_DIR/sitemaps.events"
finished sitemaps 1
check_eq "sitemaps: the seed's own link saved, nothing from them" \
  "$(saved sitemaps)" "/index.html /a.html "
check "sitemaps: the endless one refused (it is an HTML page)" \
  grep -q "Sitemap http://127.0.0.7:$PORT/endless.xml (" \
  "$TEST_DIR/sitemaps.events"
check "sitemaps: the bomb stopped at 50 MB" \
  grep -q "Sitemap http://127.0.0.7:$PORT/bomb.xml.gz (over 50 MB" \
  "$TEST_DIR/sitemaps.events"
check "sitemaps: the processing instructions refused" \
  grep -q "Sitemap http://127.0.0.7:$PORT/pis.xml.gz (over 1,000 comments" \
  "$TEST_DIR/sitemaps.events"
check "sitemaps: the redirect loop asked once" \
  test "$(log_count /loop.xml 127.0.0.7)" -le 2
# 100 documents a seed: endless, bomb, pis, loop, laughs, index, then 94
# of its.
check_eq "sitemaps: at most 100 sitemaps asked" \
  "$(log_targets 127.0.0.7 | grep -c '^/s[0-9]*\.xml$')" \
  "$(( 100 - 6 ))"
check "sitemaps: billion laughs refused" \
  grep -q "Sitemap http://127.0.0.7:$PORT/laughs.xml (a document type" \
  "$TEST_DIR/sitemaps.events"

crawl rslow "http://127.0.0.6:$PORT/" 1 --timeout 2 --retries 0
finished rslow 1 20 8
check_eq "robots slow: a timeout is a network failure: disallowed" \
  "$(saved rslow)" ""
check "robots slow: the seed is logged IgnRobots, with the timeout" \
  logged rslow "IgnRobots: http://127.0.0.6:$PORT/ \(host \
unreachable: Operation timed out"

finish
