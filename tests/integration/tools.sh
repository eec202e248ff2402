# tools: urlnorm and robotscheck, the command-line faces of the URL and
# robots.txt code the crawler uses.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/urlnorm" "$BIN/robotscheck"
mktemp_dir

out=$("$BIN/urlnorm" 'HTTP://Example.COM:80/a/b/c' '../d/./e?q=1#frag' \
      '  g h  ' '%7euser' 'mailto:x@y' '//other.org' '')
rc=$?
check_eq "urlnorm: one line per href" "$out" \
"http://example.com/a/d/e?q=1
http://example.com/a/b/g%20h
http://example.com/a/b/~user
invalid mailto:x@y
http://other.org/
http://example.com/a/b/c"
check_eq "urlnorm: exit 1 when an href is invalid" "$rc" 1
"$BIN/urlnorm" http://a/b/c/d';p?q' g ./g g/ /g >/dev/null
check_eq "urlnorm: exit 0 when all are valid" "$?" 0
"$BIN/urlnorm" >/dev/null 2>&1
check_eq "urlnorm: usage error exits 2" "$?" 2

cat >"$TEST_DIR/robots.txt" <<'ROBOTS'
User-agent: *
Disallow: /

User-agent: tse-crawler
Allow: /public/
Disallow: /public/secret
Disallow: /public/*.pdf$
ROBOTS
out=$("$BIN/robotscheck" "$TEST_DIR/robots.txt" \
      'tse-crawler/0.1 (+https://example.invalid)' \
      http://h/public/a.html http://h/public/secret/x /public/doc.pdf \
      /public/doc.pdf?x http://h/robots.txt http://h/other)
# Our group, not '*', applies; the longest match wins; $ anchors; a path
# no rule of our group matches is allowed.
check_eq "robotscheck: verdicts for our agent" "$out" \
"allowed http://h/public/a.html
disallowed http://h/public/secret/x
disallowed /public/doc.pdf
allowed /public/doc.pdf?x
allowed http://h/robots.txt
allowed http://h/other"
out=$("$BIN/robotscheck" "$TEST_DIR/robots.txt" otherbot /public/a.html)
check_eq "robotscheck: another agent gets the * group" "$out" \
  "disallowed /public/a.html"
"$BIN/robotscheck" "$TEST_DIR/nope.txt" x / 2>"$TEST_DIR/err"
check_eq "robotscheck: unreadable file exits 1" "$?" 1
check "robotscheck: names the file and the reason" \
  grep -q "nope.txt.*No such file" "$TEST_DIR/err"
"$BIN/robotscheck" "$TEST_DIR" x / 2>"$TEST_DIR/err"
check_eq "robotscheck: a directory exits 1" "$?" 1
check "robotscheck: a directory is named with the reason" \
  grep -q "cannot read '$TEST_DIR': Is a directory" "$TEST_DIR/err"
printf 'User-agent: *\nDisallow: /a\n\0\nDisallow: /b\n' \
  >"$TEST_DIR/nul.txt"
out=$("$BIN/robotscheck" "$TEST_DIR/nul.txt" x /a /b)
check_eq "robotscheck: reads past a NUL byte" "$out" \
"disallowed /a
disallowed /b"
finish
