# crawler_site: crawl a small site on the loopback server and check the
# exact (ID, URL, depth) list per maxDepth, the saved bytes, redirects,
# errors, types, base href, unquoted and absolute links, robots.txt, and
# that 1 and many workers give the same directory byte for byte.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
S=$TEST_DIR/site
mkdir -p "$S/sub" "$S/base" "$S/deep" "$S/private"

cat >"$S/index.html" <<'HTML'
<html><head><title>Home</title></head><body>
<p>Welcome to the test site.</p>
<a href="a.html">A</a>
<a href=b.html>B, unquoted</a>
<A HREF='sub/c.html#part'>C, single quotes and a fragment</A>
<a href="http://127.0.0.1:{{port}}/d.html">D, absolute</a>
<a href="http://example.com/">outside the scope</a>
<a href="pic.png">an image</a>
<a href="missing.html">404</a>
<a href="err.html">500</a>
<a href="moved.html">redirect inside the scope</a>
<a href="away.html">redirect out of the scope</a>
<a href="loop1.html">redirect loop</a>
<a href="blob">binary, no extension</a>
<a href="notes.txt">plain text</a>
<a href="private/p.html">disallowed by robots.txt</a>
<a href="a.html">A again</a>
</body></html>
HTML
printf '<a href="/">home</a> <a href="./b.html">B</a> <a href="a.html">me</a>\n' >"$S/a.html"
printf '<p>bee</p><a href="sub/c.html">C</a><a href="e.html">E</a>\n' >"$S/b.html"
printf '<head><base href="/base/"></head><a href="f.html">F</a> <a href="../a.html">A</a>\n' >"$S/sub/c.html"
printf '<a href="../deep/g.html">G</a>\n' >"$S/d.html"
printf '<a href="moved.html">moved</a>\n' >"$S/e.html"
printf 'eff\n' >"$S/base/f.html"
printf '<a href="h.html">H</a>\n' >"$S/deep/g.html"
printf 'aitch\n' >"$S/deep/h.html"
printf 'the target of a redirect\n' >"$S/target.html"
printf 'notes in the link format: link:deep/h.html and link:/deep/g.html\n' >"$S/notes.txt"
printf 'secret\n' >"$S/private/p.html"
printf '\0\1\2binary' >"$S/blob"
printf 'User-agent: *\nDisallow: /private/\n' >"$S/robots.txt"
cat >"$TEST_DIR/rules" <<'RULES'
/err.html status 500
/moved.html redirect 301 /target.html
/away.html redirect 302 http://example.com/x
/loop1.html redirect 302 /loop2.html
/loop2.html redirect 302 /loop1.html
/b.html gzip
/blob type application/octet-stream
RULES

server_start "$S" --rules "$TEST_DIR/rules" || { not_ok "server starts"; finish; }
P=$PORT

# listing DIR: "ID URL DEPTH" per page, IDs in order, port replaced by P.
listing() {
  local i=1
  while [ -f "$1/$i" ]; do
    printf '%s %s %s\n' "$i" "$(sed -n 1p "$1/$i")" "$(sed -n 2p "$1/$i")"
    i=$((i + 1))
  done | sed "s/127\.0\.0\.1:$P/H/"
}

crawl() {  # crawl NAME DEPTH [OPTIONS...]: into $TEST_DIR/NAME
  local name=$1 depth=$2
  shift 2
  mkdir "$TEST_DIR/$name"
  "$BIN/crawler" --rate 0 --retries 0 "$@" "$BASE_URL/" "$TEST_DIR/$name" \
    "$depth" >"$TEST_DIR/$name.log" 2>"$TEST_DIR/$name.err"
}

D0='1 http://H/ 0'
D1="$D0
2 http://H/a.html 1
3 http://H/b.html 1
4 http://H/sub/c.html 1
5 http://H/d.html 1
6 http://H/target.html 1
7 http://H/notes.txt 1"
D2="$D1
8 http://H/e.html 2
9 http://H/base/f.html 2
10 http://H/deep/g.html 2
11 http://H/deep/h.html 2"

crawl d0 0
check_eq "depth 0 exit status" "$?" 0
check_eq "depth 0 saves the seed only" "$(listing "$TEST_DIR/d0")" "$D0"
crawl d1 1 --log
check_eq "depth 1 exit status" "$?" 0
check_eq "depth 1 pages and IDs" "$(listing "$TEST_DIR/d1")" "$D1"
crawl d2 2
check_eq "depth 2 pages and IDs" "$(listing "$TEST_DIR/d2")" "$D2"
crawl d5 5
check_eq "depth 5 adds nothing (all found by depth 2)" \
  "$(listing "$TEST_DIR/d5")" "$D2"

sed "s/{{port}}/$P/g" "$S/index.html" >"$TEST_DIR/want1"
tail -n +3 "$TEST_DIR/d2/1" >"$TEST_DIR/got1"
check_same "a page is saved byte for byte after its two header lines" \
  "$TEST_DIR/got1" "$TEST_DIR/want1"
tail -n +3 "$TEST_DIR/d2/3" >"$TEST_DIR/got3"
check_same "a gzip-encoded page is saved decoded" "$TEST_DIR/got3" "$S/b.html"
check "no temporary file is left" \
  test -z "$(find "$TEST_DIR/d2" -name '.tmp-*')"

L=$TEST_DIR/d1.log
check "log: Failed 404 with its reason" \
  grep -qF "Failed: http://127.0.0.1:$P/missing.html (HTTP 404 Not Found)" "$L"
check "log: Failed 500 with its reason" \
  grep -qF "err.html (HTTP 500 Internal Server Error)" "$L"
check "log: the redirect loop ends" grep -q 'loop.*too many redirects' "$L"
check "log: a redirect out of scope is not followed" \
  grep -q 'away.html (redirect out of scope' "$L"
check "log: a binary type is not saved" grep -q "blob (not a page: application/octet-stream)" "$L"
check "log: IgnExtrn for example.com" grep -q 'IgnExtrn: http://example.com/' "$L"
check "log: IgnType for the image" grep -q "IgnType: http://127.0.0.1:$P/pic.png" "$L"
check "log: IgnRobots for /private/" grep -q 'IgnRobots: .*private/p.html' "$L"
check "log: the redirect source is logged" \
  grep -q "Redirect: http://127.0.0.1:$P/moved.html" "$L"
check "log: CS50 layout" grep -q "^ 0     Found: http://127.0.0.1:$P/a.html$" "$L"
check "summary on stderr" grep -q '^crawler: saved 7 pages' "$TEST_DIR/d1.err"

check_eq "robots.txt is the first request" "$(log_targets | head -n 1)" \
  /robots.txt
check_eq "a disallowed page is never requested" \
  "$(log_count /private/p.html)" 0
check_eq "an image link is never requested" "$(log_count /pic.png)" 0
check_eq "each page is requested once per crawl (a.html: 4 crawls)" \
  "$(log_count /a.html)" 3

# Many workers, same bytes.
crawl w1 3 --download-workers 1 --parse-workers 1 --log
crawl w16 3 --download-workers 16 --parse-workers 4 --log
check "1 and 16 workers save identical directories" \
  diff -r "$TEST_DIR/w1" "$TEST_DIR/w16"
check "1 and 16 workers write identical logs" \
  diff "$TEST_DIR/w1.log" "$TEST_DIR/w16.log"
server_stop

# The slow short path: the seed links a slow page S (1.5 s) and a fast
# chain F1 -> F2; both S and F2 link T. T is at depth 2 (via S), even
# though the fast chain reaches it first.
S2=$TEST_DIR/site2
mkdir "$S2"
printf '<a href="slow.html">S</a> <a href="f1.html">F1</a>\n' >"$S2/index.html"
printf '<a href="t.html">T</a>\n' >"$S2/slow.html"
printf '<a href="f2.html">F2</a>\n' >"$S2/f1.html"
printf '<a href="t.html">T</a>\n' >"$S2/f2.html"
printf '<a href="u.html">U</a>\n' >"$S2/t.html"
printf 'end\n' >"$S2/u.html"
echo '/slow.html delay 1.5' >"$TEST_DIR/rules2"
server_start "$S2" --rules "$TEST_DIR/rules2" || { not_ok "server 2 starts"; finish; }
P=$PORT
crawl slow 3 --download-workers 8
check_eq "a slow short path decides the depth" "$(listing "$TEST_DIR/slow")" \
"1 http://H/ 0
2 http://H/slow.html 1
3 http://H/f1.html 1
4 http://H/t.html 2
5 http://H/f2.html 2
6 http://H/u.html 3"
finish
