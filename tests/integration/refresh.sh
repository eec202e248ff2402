# refresh: --since OLD_DIR (issue 35). Serve a site, crawl it, change the
# site, refresh; the refreshed directory must be, byte for byte, what a
# fresh crawl of the changed site writes (page files, journal, .complete;
# the marker but for its "since:" line), with every unchanged page reused
# (a 304). The test server's validators rule (tests/server/testserver.c)
# gives ETags, Last-Modified, both or neither, per path. Also: a server
# that answers 304 for a page it changed (the old copy is what is saved,
# by definition), a --compress old directory, kill -9 of a refresh then
# --resume, refusals (OLD_DIR interrupted or being written, without
# validators, pageDirectory itself; with --replay, --cluster), and
# Debian's nginx as it sends ETags.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
CR=$BIN/crawler

# site MODE [RULE...]: a fresh copy of the course site in $TEST_DIR/site,
# every file dated 2020 (so a page changed now has a new Last-Modified),
# served with validators MODE and the extra rules; sets SEED.
site() {
  server_stop
  rm -rf "$TEST_DIR/site" "$TEST_DIR"/old* "$TEST_DIR"/new* "$TEST_DIR"/fresh*
  cp -r "$SITES/course" "$TEST_DIR/site"
  find "$TEST_DIR/site" -exec touch -d '2020-01-01 00:00:00' {} +
  local mode=$1
  shift
  { echo "/* validators $mode"; printf '%s\n' "$@"; } >"$TEST_DIR/rules"
  server_start "$TEST_DIR/site" --rules "$TEST_DIR/rules" || {
    not_ok "the test server starts"
    finish
  }
  SEED=$BASE_URL/index.html
}

# crawl NAME [ARGS...]: crawl SEED into $TEST_DIR/NAME at depth 5; RC.
crawl() {
  local name=$1
  shift
  mkdir -p "$TEST_DIR/$name"
  RC=0
  "$CR" --rate 0 --log "$@" "$SEED" "$TEST_DIR/$name" 5 \
    >"$TEST_DIR/$name.log" 2>"$TEST_DIR/$name.err" || RC=$?
}

# same A B: the directories hold the same crawl: every numbered file,
# the journal and .complete byte for byte, the marker but for "since:".
same() {
  local f n
  [ "$(cd "$1" && ls | sort)" = "$(cd "$2" && ls | sort)" ] || {
    echo "different pages: $(cd "$1" && ls | wc -l) and $(cd "$2" && ls | wc -l)" >&2
    return 1
  }
  for f in "$1"/*; do
    n=${f##*/}
    cmp "$f" "$2/$n" >&2 || return 1
  done
  cmp "$1/.journal" "$2/.journal" >&2 || return 1
  cmp "$1/.complete" "$2/.complete" >&2 || return 1
  diff <(grep -v '^since: ' "$1/.crawler") \
    <(grep -v '^since: ' "$2/.crawler") >&2
}

# refresh NAME: old crawled, the site changed by the caller: refresh and
# crawl fresh, and compare.
refresh() {
  crawl new --since "$TEST_DIR/old"
  check_eq "$1: the refresh exits 0" "$RC" 0
  crawl fresh
  check "$1: the refresh is the fresh crawl, byte for byte" \
    same "$TEST_DIR/new" "$TEST_DIR/fresh"
  check_eq "$1: its marker records OLD_DIR" \
    "$(grep '^since: ' "$TEST_DIR/new/.crawler")" \
    "since: $(cd "$TEST_DIR/old" && pwd -P)"
  SUMMARY=$(grep '^crawler: refresh: ' "$TEST_DIR/new.err")
}

# counted WHAT: the number before WHAT in the refresh's summary line.
counted() {
  echo "$SUMMARY" | grep -oE "[0-9]+ $1" | cut -d' ' -f1
}

# A site that changes: a page modified, a page added, a page removed.
site both
crawl old
check_eq "first crawl records validators" \
  "$(grep -c '^etag ' "$TEST_DIR/old/.journal"):$(grep -c '^lastmod ' "$TEST_DIR/old/.journal")" \
  "$(ls "$TEST_DIR/old" | wc -l):$(ls "$TEST_DIR/old" | wc -l)"
crawl unchanged --since "$TEST_DIR/old"
check "unchanged site: the refresh is the old crawl" \
  same "$TEST_DIR/unchanged" "$TEST_DIR/old"
check_eq "unchanged site: every page reused" \
  "$(grep -c ' Reused: ' "$TEST_DIR/unchanged.log")" \
  "$(ls "$TEST_DIR/old" | wc -l)"
check "unchanged site: --log says Reused, never Fetched" \
  test "$(grep -c 'Fetched: ' "$TEST_DIR/unchanged.log")" = 0
log_before=$(wc -l <"$SERVER_LOG")
crawl unchanged2 --since "$TEST_DIR/old"
check_eq "unchanged site: every page is a 304" \
  "$(tail -n +"$((log_before + 1))" "$SERVER_LOG" | awk -F'\t' '$5 == 200' |
     grep -vc robots.txt)" 0
sed -i 's|</body>|<p>changed today</p></body>|' "$TEST_DIR/site/C.html"
echo '<html><body><a href="index.html">new page</a></body></html>' \
  >"$TEST_DIR/site/N.html"
sed -i 's|</body>|<a href="N.html">new</a></body>|' "$TEST_DIR/site/B.html"
rm "$TEST_DIR/site/E.html"
refresh "modified, added, removed"
check "modified, added, removed: counts" \
  test "$(counted reused)" -gt 5 -a "$(counted refetched)" = 2 \
  -a "$(counted new)" = 1 -a "$(counted gone)" = 1
check "modified, added, removed: received under saved" \
  test "$(echo "$SUMMARY" | sed 's/.*; \([0-9]*\) bytes received.*/\1/')" \
  -lt "$(echo "$SUMMARY" | sed 's/.* for \([0-9]*\) bytes saved/\1/')"

# Links that change: index.html lists B before A now, so BFS order (IDs)
# changes while A and B themselves do not.
site both
crawl old
sed -i 's|href="A.html"|href="TMPX"|; s|href="B.html"|href="A.html"|; s|href="TMPX"|href="B.html"|' \
  "$TEST_DIR/site/index.html"
refresh "links change"
check "links change: the IDs moved" \
  test "$(sed -n 1p "$TEST_DIR/new/2")" != "$(sed -n 1p "$TEST_DIR/old/2")"
check "links change: the moved pages reused" test "$(counted reused)" -gt 5

for mode in etag lastmod; do
  site "$mode"
  crawl old
  sed -i 's|</body>|<p>changed</p></body>|' "$TEST_DIR/site/D.html"
  refresh "$mode only"
  check_eq "$mode only: one page refetched" "$(counted refetched)" 1
  check "$mode only: the others reused" test "$(counted reused)" -gt 5
done

# Neither, for some pages: those are fetched whole.
site both "/C.html validators none" "/D.html validators none"
crawl old
refresh "some pages without validators"
check_eq "some pages without validators: fetched whole" \
  "$(counted refetched)" 2

# Neither at all: nothing to refresh with.
site none
crawl old
crawl new --since "$TEST_DIR/old"
check_eq "no validators at all: refused" "$RC" 1
check "no validators at all: says so" \
  grep -q "no validators recorded: crawl it afresh" "$TEST_DIR/new.err"

# A crawl made before validators were recorded: a shipped sample.
mkdir -p "$TEST_DIR/z"
"$CR" --rate 0 --since "$TOP/pageDirectory-samples/course-d2" "$SEED" \
  "$TEST_DIR/z" 2 >/dev/null 2>"$TEST_DIR/z.err"
check_eq "a crawl from before validators: refused" "$?" 1
check "a crawl from before validators: says so" \
  grep -q "no validators recorded: crawl it afresh" "$TEST_DIR/z.err"

# A server that answers 304 for a page it changed: a 304 says the copy
# is the page, so the old body is saved (and its links followed), as
# issue 35 defines; the fresh crawl differs exactly there.
site both "/C.html notmodified"
crawl old
sed -i 's|</body>|<p>changed behind the validators</p></body>|' \
  "$TEST_DIR/site/C.html"
crawl new --since "$TEST_DIR/old"
crawl fresh
id=$(grep -l "^$BASE_URL/C.html\$" "$TEST_DIR"/new/[0-9]* | head -n 1)
check "lying 304: the old body is saved" cmp "$id" "$TEST_DIR/old/${id##*/}"
check "lying 304: the fresh crawl has the new one" \
  grep -q "changed behind" "$TEST_DIR/fresh/${id##*/}"
check "lying 304: every other page as fresh" \
  diff -r -x "${id##*/}" -x .crawler -x .lock "$TEST_DIR/new" "$TEST_DIR/fresh"

# A --compress old directory, refreshed plain and compressed.
site both
crawl old --compress
sed -i 's|</body>|<p>changed</p></body>|' "$TEST_DIR/site/A.html"
refresh "compressed old"
crawl newz --compress --since "$TEST_DIR/old"
crawl freshz --compress
check "compressed old, compressed refresh: as fresh" \
  same "$TEST_DIR/newz" "$TEST_DIR/freshz"

# A page of OLD_DIR damaged (its gzip stream cut short): OLD_DIR is not
# read whole up front; the page's 304 finds the copy unreadable, it is
# asked again without validators, and the refresh is still the fresh
# crawl (of the site as changed above).
reused=$(counted reused)
damaged=$(awk -v u="$BASE_URL/B.html" 'FNR == 1 && $0 == u { print FILENAME }' \
  "$TEST_DIR"/fresh/[0-9]*)
truncate -s -40 "$TEST_DIR/old/${damaged##*/}"
rm -rf "$TEST_DIR/new"
crawl new --since "$TEST_DIR/old"
check_eq "a damaged older page: the refresh exits 0" "$RC" 0
check "a damaged older page: as fresh" same "$TEST_DIR/new" "$TEST_DIR/fresh"
check "a damaged older page: all but it reused" \
  grep -q "refresh: $((reused - 1)) reused (304), 2 refetched" \
  "$TEST_DIR/new.err"

# An older copy gone once the refresh has started (after OLD_DIR was
# checked): its 304 is asked again without validators, and the page is
# what a fresh crawl saves.
site both
crawl old
mkdir "$TEST_DIR/new"
"$CR" --rate 4 --since "$TEST_DIR/old" "$SEED" "$TEST_DIR/new" 5 \
  >/dev/null 2>"$TEST_DIR/gone.err" &
K=$!
for i in $(seq 100); do
  [ -e "$TEST_DIR/new/1" ] && break
  sleep 0.05
done
last=$(ls "$TEST_DIR/old" | sort -n | tail -n 1)
rm "$TEST_DIR/old/$last"
wait "$K"
check_eq "older copy gone: the refresh exits 0" "$?" 0
crawl fresh
check "older copy gone: the fresh crawl, byte for byte" \
  same "$TEST_DIR/new" "$TEST_DIR/fresh"
check "older copy gone: fetched whole" \
  grep -q "refresh: $((last - 1)) reused (304), 1 refetched" "$TEST_DIR/gone.err"

# restart RULE...: the same site served on the same port with new rules
# (the site changed in its headers, not its files).
restart() {
  local p=$PORT
  server_stop
  printf '%s\n' "$@" >"$TEST_DIR/rules"
  server_start "$TEST_DIR/site" --port "$p" --rules "$TEST_DIR/rules" || {
    not_ok "the test server starts again on port $p"
    finish
  }
}

# A --max-page-size smaller than a page OLD_DIR saved: a fresh crawl
# abandons that page (too large), and so must the refresh, 304 or not.
site both
printf '<p>%04000d</p>\n' 0 >>"$TEST_DIR/site/C.html"
touch -d '2020-01-01 00:00:00' "$TEST_DIR/site/C.html"
crawl old
crawl new --since "$TEST_DIR/old" --max-page-size 2000
crawl fresh --max-page-size 2000
check "smaller --max-page-size: the fresh crawl drops C.html" \
  test "$(ls "$TEST_DIR/fresh" | wc -l)" -lt "$(ls "$TEST_DIR/old" | wc -l)"
check "smaller --max-page-size: the refresh is the fresh crawl" \
  same "$TEST_DIR/new" "$TEST_DIR/fresh"

# The files unchanged, but C.html now served with X-Robots-Tag (nginx's
# add_header puts it on 304s too): the 304 says so, and the refresh must
# not take the older copy's headers for today's.
site both
crawl old
restart "/* validators both" "/C.html header X-Robots-Tag noindex, nofollow"
refresh "X-Robots-Tag added, files unchanged"
check "X-Robots-Tag added: C.html is noindex" \
  grep -q "^noindex .*/C.html" "$TEST_DIR/new/.journal"

# Likewise a Content-Type the 304 sends (this server sends one on every
# answer) that is not the older copy's: C.html is text/plain now.
site both
crawl old
restart "/* validators both" "/C.html type text/plain"
refresh "Content-Type changed, file unchanged"
check "Content-Type changed: journaled as today's" \
  grep -q "^ctype .*/C.html text/plain\$" "$TEST_DIR/new/.journal"

# A server that sends an ETag longer than it takes back in a request
# (20 KB: libmicrohttpd drops the connection; nginx answers 400 past
# 8 KB): the refresh must not lose the page a fresh crawl saves.
site both
restart "/* validators lastmod" \
  "/C.html header ETag \"$(head -c 20000 /dev/zero | tr '\0' e)\""
crawl old
refresh "a 20 KB ETag"
check "a 20 KB ETag: reused by its Last-Modified" \
  test "$(counted reused)" = "$(ls "$TEST_DIR/old" | wc -l)"

# OLD_DIR changed under a running refresh (here two page files swapped,
# as another crawl into it would renumber pages): a file that is not the
# URL's page any more is not its copy; the page is fetched whole.
site both
crawl old
mkdir "$TEST_DIR/new"
"$CR" --rate 4 --since "$TEST_DIR/old" "$SEED" "$TEST_DIR/new" 5 \
  >/dev/null 2>"$TEST_DIR/swap.err" &
K=$!
for i in $(seq 100); do
  [ -e "$TEST_DIR/new/1" ] && break
  sleep 0.05
done
last=$(ls "$TEST_DIR/old" | sort -n | tail -n 1)
mv "$TEST_DIR/old/$last" "$TEST_DIR/old/swap"
mv "$TEST_DIR/old/$((last - 1))" "$TEST_DIR/old/$last"
mv "$TEST_DIR/old/swap" "$TEST_DIR/old/$((last - 1))"
wait "$K"
check_eq "OLD_DIR pages swapped: the refresh exits 0" "$?" 0
crawl fresh
check "OLD_DIR pages swapped: the fresh crawl, byte for byte" \
  same "$TEST_DIR/new" "$TEST_DIR/fresh"
check "OLD_DIR pages swapped: both fetched whole" \
  grep -q "refresh: $((last - 2)) reused (304), 2 refetched" "$TEST_DIR/swap.err"

# Memory: a reused page of 10 MB (the default --max-page-size) costs
# what its fetch does. Reading it back grew a block by doubling and then
# copied the body out: 10 MB more at the peak than a fresh crawl.
if [ -x /usr/bin/time ] && [ -z "${TSAN_OPTIONS:-}${ASAN_OPTIONS:-}" ]; then
  site both
  head -c 10000000 /dev/zero | tr '\0' a >>"$TEST_DIR/site/C.html"
  touch -d '2020-01-01 00:00:00' "$TEST_DIR/site/C.html"
  crawl old
  for n in new fresh; do
    mkdir -p "$TEST_DIR/$n"
    args=(--since "$TEST_DIR/old")
    [ "$n" = fresh ] && args=()
    /usr/bin/time -f "%M" -o "$TEST_DIR/$n.rss" "$CR" --rate 0 \
      ${args[@]+"${args[@]}"} "$SEED" "$TEST_DIR/$n" 5 >/dev/null 2>&1
  done
  check "a 10 MB page reused: the refresh's peak within 4 MB of a fresh crawl's" \
    test "$(cat "$TEST_DIR/new.rss")" -le "$(($(cat "$TEST_DIR/fresh.rss") + 4096))"
  check "a 10 MB page reused: as fresh" same "$TEST_DIR/new" "$TEST_DIR/fresh"
else
  skip "a 10 MB page reused: memory" "no /usr/bin/time, or under a sanitizer"
fi

# Refusals.
site both
crawl old
mkdir "$TEST_DIR/x"
crawl x --since "$TEST_DIR/old" --replay "$TEST_DIR/old"
check_eq "--since with --replay: refused" "$RC" 1
crawl x --since "$TEST_DIR/old" --cluster redis://127.0.0.1:1 \
  --crawl-name x
check_eq "--since with --cluster: refused" "$RC" 1
crawl old --since "$TEST_DIR/old"
check_eq "pageDirectory is OLD_DIR: refused" "$RC" 3
check "pageDirectory is OLD_DIR: untouched" \
  test ! -e "$TEST_DIR/old/.lock" -a -e "$TEST_DIR/old/.complete"
cp -r "$TEST_DIR/old" "$TEST_DIR/old-cut"
rm "$TEST_DIR/old-cut/.complete"
crawl x --since "$TEST_DIR/old-cut"
check_eq "OLD_DIR interrupted: refused" "$RC" 1
check "OLD_DIR interrupted: says so" grep -q "not a complete crawl" \
  "$TEST_DIR/x.err"
check "refused: nothing written" test -z "$(ls -A "$TEST_DIR/x")"

# kill -9 in the middle of a refresh (a polite one, 4 requests a second),
# then --resume: the same directory as a fresh crawl. While it runs, the
# directory it writes is refused as OLD_DIR (being written).
site both "/F.html validators none"
crawl old
sed -i 's|</body>|<p>changed</p></body>|' "$TEST_DIR/site/B.html"
mkdir "$TEST_DIR/new"
"$CR" --rate 4 --since "$TEST_DIR/old" "$SEED" "$TEST_DIR/new" 5 \
  >/dev/null 2>"$TEST_DIR/k9.err" &
K=$!
for i in $(seq 100); do
  [ -e "$TEST_DIR/new/3" ] && break
  sleep 0.05
done
mkdir "$TEST_DIR/y"
"$CR" --rate 0 --since "$TEST_DIR/new" "$SEED" "$TEST_DIR/y" 5 \
  >/dev/null 2>"$TEST_DIR/y.err"
check_eq "OLD_DIR being written: refused" "$?" 1
check "OLD_DIR being written: says so" grep -q "being written now" \
  "$TEST_DIR/y.err"
kill -9 "$K" 2>/dev/null
wait "$K" 2>/dev/null
check "killed mid-refresh" test ! -e "$TEST_DIR/new/.complete"
"$CR" --rate 0 --resume "$SEED" "$TEST_DIR/new" 5 >/dev/null \
  2>"$TEST_DIR/r0.err"
check_eq "--resume without --since: refused" "$?" 3
"$CR" --rate 0 --resume --since "$TEST_DIR/old" "$SEED" "$TEST_DIR/new" 5 \
  >/dev/null 2>"$TEST_DIR/r1.err"
check_eq "--resume --since: exit 0" "$?" 0
crawl fresh
check "kill -9 and --resume: the fresh crawl, byte for byte" \
  same "$TEST_DIR/new" "$TEST_DIR/fresh"
server_stop

# nginx as it sends ETags and Last-Modified (gzip on: weak ETags).
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
if [ ! -x "$NGINX" ] || ! command -v curl >/dev/null; then
  skip "nginx: the refresh is a fresh crawl" "nginx or curl is not installed"
  finish
fi
S=$TEST_DIR/nsite
N=$TEST_DIR/nginx
rm -rf "$S"
mkdir -p "$S" "$N/tmp"
cp "$SITES/course"/*.html "$S/"
sed -i "s/{{port}}/1/g" "$S"/*.html
NGINX_PID=
nginx_exit() {
  local rc=$?
  [ -n "$NGINX_PID" ] && kill -TERM "$NGINX_PID" 2>/dev/null &&
    wait "$NGINX_PID" 2>/dev/null
  (exit "$rc")
  lib_cleanup
}
trap nginx_exit EXIT INT TERM
for try in $(seq 20); do
  NP=$((20000 + RANDOM % 40000))
  {
    [ "$(id -u)" = 0 ] && echo 'user root;'
    cat <<CONF
worker_processes 1;
daemon off;
pid $N/nginx.pid;
error_log $N/error.log;
events { worker_connections 64; }
http {
  access_log $N/access.log;
  client_body_temp_path $N/tmp/body;
  proxy_temp_path $N/tmp/proxy;
  fastcgi_temp_path $N/tmp/fastcgi;
  uwsgi_temp_path $N/tmp/uwsgi;
  scgi_temp_path $N/tmp/scgi;
  types { text/html html; }
  gzip on;
  gzip_min_length 1;
  server { listen 127.0.0.1:$NP; root $S; }
}
CONF
  } >"$N/nginx.conf"
  "$NGINX" -p "$N" -c "$N/nginx.conf" 2>>"$N/stderr" &
  NGINX_PID=$!
  for i in $(seq 50); do
    kill -0 "$NGINX_PID" 2>/dev/null || break
    curl -s -o /dev/null "http://127.0.0.1:$NP/" && break 2
    sleep 0.1
  done
  kill "$NGINX_PID" 2>/dev/null
  wait "$NGINX_PID" 2>/dev/null
  NGINX_PID=
done
if [ -z "$NGINX_PID" ]; then
  not_ok "nginx starts"
  finish
fi
SEED=http://127.0.0.1:$NP/index.html
rm -rf "$TEST_DIR"/old "$TEST_DIR"/new "$TEST_DIR"/fresh
crawl old
check "nginx: its ETags are recorded" grep -q '^etag 1 ' "$TEST_DIR/old/.journal"
touch -d '+1 hour' "$S/index.html" # a new Last-Modified, and so ETag
sed -i 's|</body>|<p>nginx changed</p></body>|' "$S/C.html"
refresh "nginx"
check_eq "nginx: two pages refetched" "$(counted refetched)" 2
check_eq "nginx: the others reused" "$(counted reused)" 4
finish
