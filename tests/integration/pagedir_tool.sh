# pagedir_tool: tsepagedir(1). export of a --compress crawl is byte for
# byte the crawl without it (every sample directory, and a crawl with a
# noindex page, an empty page and bytes 0xFF and NUL); list and cat read
# both forms alike; check passes a finished crawl and names the first
# problem of each kind of broken, interrupted or busy directory; bad
# arguments are usage errors.
. "$(dirname "$0")/lib.sh"
T=$BIN/tsepagedir
require_file "$BIN/crawler" "$T" "$TESTSERVER"
require_cmd cmp diff gzip
mktemp_dir
SAMPLES=$TOP/pageDirectory-samples

# real SAMPLE OUT: a copy of a sample directory (its port is 8000).
real() {
  mkdir -p "$2"
  local f
  for f in "$SAMPLES/$1"/* "$SAMPLES/$1/.crawler" "$SAMPLES/$1/.journal" \
    "$SAMPLES/$1/.complete"; do
    [ -e "$f" ] || continue
    cp "$f" "$2/$(basename "$f")"
  done
}

# shell_list DIR: what list must print for plain DIR, made by the shell.
shell_list() {
  local n=1
  while [ -f "$1/$n" ]; do
    printf '%d\t%s\t%s\n' "$n" "$(sed -n 2p "$1/$n")" "$(sed -n 1p "$1/$n")"
    n=$((n + 1))
  done
}

# same_pages NAME PLAIN GZ: list and cat agree on both forms.
same_pages() {
  "$T" list "$2" >"$TEST_DIR/list.plain"
  check_eq "$1: list of the plain directory exits 0" "$?" 0
  "$T" list "$3" >"$TEST_DIR/list.gz"
  check_eq "$1: list of the compressed directory exits 0" "$?" 0
  shell_list "$2" >"$TEST_DIR/list.want"
  check_same "$1: list prints ID, depth and URL of each page" \
    "$TEST_DIR/list.plain" "$TEST_DIR/list.want"
  check_same "$1: list reads the compressed pages alike" \
    "$TEST_DIR/list.gz" "$TEST_DIR/list.want"
  local bad=0 id
  for id in $(cut -f1 "$TEST_DIR/list.want"); do
    "$T" cat "$3" "$id" >"$TEST_DIR/cat.out" &&
      cmp -s "$TEST_DIR/cat.out" "$2/$id" || bad=$((bad + 1))
  done
  check_eq "$1: cat of each compressed page is the plain file" "$bad" 0
}

# --- Every sample: compressed by a replay, exported, compared.
for s in course-d2 course-d5 catalogue-d2 catalogue-d3; do
  real "$s" "$TEST_DIR/$s"
  depth=${s##*-d}
  mkdir "$TEST_DIR/$s-gz"
  "$BIN/crawler" --quiet --compress --replay "$TEST_DIR/$s" \
    http://127.0.0.1:8000/index.html "$TEST_DIR/$s-gz" "$depth"
  check "$s: a compressed copy is made" gzip -t "$TEST_DIR/$s-gz/1"
  "$T" check "$TEST_DIR/$s-gz" >"$TEST_DIR/check.out"
  check_eq "$s: check passes the compressed copy" "$?" 0
  check_eq "$s: check counts its pages" "$(cat "$TEST_DIR/check.out")" \
    "$TEST_DIR/$s-gz: $(ls "$TEST_DIR/$s" | wc -l) pages, compressed, well-formed"
  "$T" export "$TEST_DIR/$s-gz" "$TEST_DIR/$s-exp" >/dev/null
  check_eq "$s: export exits 0" "$?" 0
  check "$s: export is the plain directory byte for byte, hidden files too" \
    diff -r "$TEST_DIR/$s" "$TEST_DIR/$s-exp"
  "$T" export "$TEST_DIR/$s" "$TEST_DIR/$s-exp2" >/dev/null
  check "$s: export of a plain directory is itself" \
    diff -r "$TEST_DIR/$s" "$TEST_DIR/$s-exp2"
  same_pages "$s" "$TEST_DIR/$s" "$TEST_DIR/$s-gz"
done

# --- A crawl of what a reader must take: a noindex page (its links kept
# in .noindex-K), an empty 200 body, bytes 0xFF and a UTF-16 page with
# NUL bytes; crawled plain and compressed, the export equals the plain.
SITE=$TEST_DIR/site
mkdir "$SITE"
cat >"$SITE/index.html" <<'EOF'
<a href="ni.html">noindex</a> <a href="empty.html">empty</a>
<a href="latin1.html">latin-1</a> <a href="utf16.html">utf-16</a>
EOF
cat >"$SITE/ni.html" <<'EOF'
<meta name="robots" content="noindex"><a href="leaf.html">leaf</a>
EOF
echo '<p>leaf</p>' >"$SITE/leaf.html"
: >"$SITE/empty.html"
printf '<p>caf\351 \377\376 end</p>\n' >"$SITE/latin1.html"
printf '\377\376<\000p\000>\000\351\000<\000/\000p\000>\000' >"$SITE/utf16.html"
server_start "$SITE" || { not_ok "server starts"; finish; }
mkdir "$TEST_DIR/web" "$TEST_DIR/web-gz"
"$BIN/crawler" --quiet --rate 0 "$BASE_URL/" "$TEST_DIR/web" 2
check_eq "the site's crawl exits 0" "$?" 0
"$BIN/crawler" --quiet --rate 0 --compress "$BASE_URL/" "$TEST_DIR/web-gz" 2
check_eq "its compressed crawl exits 0" "$?" 0
server_stop
check "the crawl kept a noindex page's links" \
  test -f "$TEST_DIR/web-gz/.noindex-1"
"$T" check "$TEST_DIR/web-gz" >/dev/null
check_eq "check passes it" "$?" 0
"$T" export "$TEST_DIR/web-gz" "$TEST_DIR/web-exp" >/dev/null
check_eq "export exits 0" "$?" 0
check "export is the plain crawl byte for byte, .noindex-K included" \
  diff -r "$TEST_DIR/web" "$TEST_DIR/web-exp"
same_pages "web" "$TEST_DIR/web" "$TEST_DIR/web-gz"

# --- check names the first problem; export refuses what check refuses.
fails() {  # fails NAME DIR PATTERN: check exits 1, saying PATTERN
  "$T" check "$2" >/dev/null 2>"$TEST_DIR/check.err"
  check_eq "check: $1: exits 1" "$?" 1
  check "check: $1: says '$3'" grep -q -- "$3" "$TEST_DIR/check.err"
}
broken() {  # broken NAME: a fresh copy of the compressed course-d5
  rm -rf "$TEST_DIR/b-$1"
  cp -r "$TEST_DIR/course-d5-gz" "$TEST_DIR/b-$1"
  echo "$TEST_DIR/b-$1"
}
fails "a file" "$TEST_DIR/course-d2/1" "is not a directory"
fails "a missing directory" "$TEST_DIR/nowhere" "No such file or directory"
mkdir "$TEST_DIR/empty"
fails "no marker" "$TEST_DIR/empty" "not a page directory: no .crawler"
d=$(broken magic)
echo "some other program" >"$d/.crawler"
fails "another marker" "$d" "is not a crawl's marker"
d=$(broken tmp)
: >"$d/.tmp-7"
fails "a temporary file left" "$d" "interrupted crawl: '.tmp-7' is left"
d=$(broken gap)
rm "$d/3"
fails "a gap in the IDs" "$d" "IDs are not contiguous"
d=$(broken short)
head -c 20 "$TEST_DIR/course-d5-gz/2" >"$d/2"
fails "a cut gzip stream" "$d" "'$d/2' is not a well-formed page"
d=$(broken garbage)
printf 'no newline at all' >"$d/4"
fails "a page without its two lines" "$d" "'$d/4' is not a well-formed page"
d=$(broken incomplete)
rm "$d/.complete"
fails "no completion record" "$d" "interrupted crawl: no .complete"
d=$(broken count)
echo "pages: 14" >"$d/.complete"
fails "a completion record of another count" "$d" \
  ".complete' says 14 pages, the directory holds 15"
d=$(broken journal)
echo "ctype 99 http://127.0.0.1:8000/x.html text/plain" >>"$d/.journal"
fails "a journal line beyond the last page" "$d" "journal goes beyond page 15"
d=$(broken torn)
printf 'ctype 15 http://127.0.0.1:8000/x' >>"$d/.journal"
fails "a torn journal line" "$d" "interrupted crawl"
"$T" export "$d" "$TEST_DIR/refused" 2>/dev/null
check_eq "export refuses an interrupted crawl" "$?" 1
check "and makes no directory" test ! -e "$TEST_DIR/refused"
mkdir "$TEST_DIR/full"
: >"$TEST_DIR/full/x"
"$T" export "$TEST_DIR/course-d2-gz" "$TEST_DIR/full" 2>"$TEST_DIR/full.err"
check_eq "export refuses a directory that is not empty" "$?" 1
check "and says so" grep -q "is not empty" "$TEST_DIR/full.err"
check_eq "and leaves it as it was" "$(ls -A "$TEST_DIR/full")" x

# Hostile directories: what is no regular file is no page (a FIFO must
# not hang a command, /dev/zero not fill the disk or memory), a gzip
# bomb costs no memory to check, a huge marker is refused, a .noindex-K
# the journal does not name is an interrupted crawl's and never copied,
# and NEWDIR inside DIR is refused. Each command is bounded by timeout.
tool() {  # tool ARGS...: tsepagedir, 20 s at most (124: it hung)
  timeout -k 5 20 "$T" "$@"
}
d=$(broken zero)
ln -s /dev/zero "$d/.noindex-9"
tool check "$d" >/dev/null 2>"$TEST_DIR/zero.err"
check_eq "check: a stray .noindex-9 (/dev/zero): exits 1" "$?" 1
check "check: it is an interrupted crawl's" \
  grep -q "interrupted crawl: '.noindex-9' is left" "$TEST_DIR/zero.err"
tool export "$d" "$TEST_DIR/zero-exp" 2>/dev/null
check_eq "export refuses it" "$?" 1
check "and writes nothing" test ! -e "$TEST_DIR/zero-exp"
d=$(broken fifo-journal)
rm "$d/.journal"
mkfifo "$d/.journal"
tool check "$d" >/dev/null 2>&1
check_eq "check: a FIFO as the journal: exits 1, no hang" "$?" 1
d=$(broken fifo-page)
rm "$d/1"
mkfifo "$d/1"
tool list "$d" >/dev/null 2>&1
check_eq "list: a FIFO as page 1: exits 1, no hang" "$?" 1
tool cat "$d" 1 >/dev/null 2>&1
check_eq "cat: a FIFO as page 1: exits 1, no hang" "$?" 1
tool check "$d" >/dev/null 2>&1
check_eq "check: a FIFO as page 1: exits 1, no hang" "$?" 1
d=$(broken zero-page)
rm "$d/2"
ln -s /dev/zero "$d/2"
tool check "$d" >/dev/null 2>"$TEST_DIR/zp.err"
check_eq "check: /dev/zero as page 2: exits 1" "$?" 1
check "check: names it" grep -q "'$d/2' is not a well-formed page" \
  "$TEST_DIR/zp.err"
d=$(broken dir-page)
rm "$d/3"
mkdir "$d/3"
tool check "$d" >/dev/null 2>"$TEST_DIR/dp.err"
check "check: a directory as page 3: says so" \
  grep -q "'$d/3' is not a well-formed page: Is a directory" "$TEST_DIR/dp.err"
d=$(broken bomb)
# 300 MB of zeros after the two lines, about 300 KB compressed.
{ printf 'http://127.0.0.1:8000/index.html\n0\n'
  head -c 300000000 /dev/zero; } | gzip -1 >"$d/1"
/usr/bin/time -f %M -o "$TEST_DIR/bomb.rss" \
  timeout -k 5 120 "$T" check "$d" >/dev/null 2>&1
check_eq "check: a 300 MB page (a gzip bomb) passes" "$?" 0
check "check: in bounded memory (< 64 MB; was 300 MB and more)" \
  test "$(tail -n 1 "$TEST_DIR/bomb.rss")" -lt 65536
d=$(broken marker)
truncate -s 100M "$d/.crawler"
tool check "$d" >/dev/null 2>"$TEST_DIR/marker.err"
check_eq "check: a 100 MB marker: exits 1" "$?" 1
check "check: it is too large" grep -q "File too large" "$TEST_DIR/marker.err"
d=$(broken inside)
tool export "$d" "$d/new" 2>"$TEST_DIR/inside.err"
check_eq "export into a directory inside DIR: exits 1" "$?" 1
check "and says so" grep -q "lies inside" "$TEST_DIR/inside.err"
check "and leaves DIR a good crawl" tool check "$d"
mkdir "$d/sub"
tool export "$d" "$d/sub" 2>/dev/null
check_eq "export into an existing directory inside DIR: exits 1" "$?" 1
rmdir "$d/sub"
tool check "$TEST_DIR/course-d2" >/dev/full 2>/dev/null
check_eq "check: a failed write of its report exits 1" "$?" 1

# A crawler writing the directory: check names it, by its process id.
# (--rate 2 makes the 15 pages take about 7 s; we look within the first.)
server_start "$SITES/course" || { not_ok "server starts"; finish; }
mkdir "$TEST_DIR/busy"
"$BIN/crawler" --quiet --rate 2 "$BASE_URL/index.html" "$TEST_DIR/busy" 5 &
cpid=$!
for _ in $(seq 100); do # 10 s at most
  [ -e "$TEST_DIR/busy/1" ] && break
  sleep 0.1
done
"$T" check "$TEST_DIR/busy" >/dev/null 2>"$TEST_DIR/busy.err"
check_eq "check: a crawl being written: exits 1" "$?" 1
check "check: a crawl being written: says so, with the crawler's pid" \
  grep -q "is being written by a crawler now (process $cpid)" \
  "$TEST_DIR/busy.err"
wait "$cpid"
check_eq "the crawler finishes" "$?" 0
"$T" check "$TEST_DIR/busy" >/dev/null
check_eq "check passes it once finished" "$?" 0
server_stop

# --- Usage.
for args in "" "list" "cat $TEST_DIR/course-d2" "frobnicate x" \
            "check a b"; do
  # shellcheck disable=SC2086  # words on purpose
  "$T" $args >/dev/null 2>&1
  check_eq "usage error: '$args' exits 2" "$?" 2
done
for id in 0 01 -1 abc ../1 1x; do
  "$T" cat "$TEST_DIR/course-d2" "$id" >/dev/null 2>&1
  check_eq "cat: '$id' is not a page ID: exits 2" "$?" 2
done
"$T" cat "$TEST_DIR/course-d2" 8 >/dev/null 2>"$TEST_DIR/cat.err"
check_eq "cat: a page beyond the last exits 1" "$?" 1
check "cat: and says how many there are" grep -q "has no page 8 (it has 7)" \
  "$TEST_DIR/cat.err"
"$T" --help | head -n 1 | grep -q '^usage: tsepagedir list DIR$'
check_eq "--help prints the usage" "$?" 0
finish
