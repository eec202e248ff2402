# seed_redirect: with neither --scope nor --domain, the scope is the seed's
# site as the server names it: the seed's host over http and https, and
# the site of every hop of the seed's own redirect chain (example.edu ->
# www.example.edu). The summary, --log and the marker say what it became;
# --resume and --replay derive the same. Only the seed's chain widens it:
# a later page's redirect to another host is still out of scope, and a
# scope the user gave is never widened. (http -> https: tls.sh.)
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
S=$TEST_DIR/site
mkdir "$S"
cat >"$S/index.html" <<'EOF'
<a href="a.html">a</a> <a href="/away">away</a>
<a href="http://127.0.0.1:{{port}}/back.html">back to the seed's host</a>
EOF
echo '<p>a</p>' >"$S/a.html"
echo '<p>back</p>' >"$S/back.html"
echo '<p>x</p>' >"$S/x.html"
cat >"$TEST_DIR/rules" <<'EOF'
127.0.0.1 /start redirect 301 http://127.0.0.2:{{port}}/index.html
127.0.0.2 /away redirect 302 http://127.0.0.3:{{port}}/x.html
EOF
server_start "$S" --host 127.0.0.1 --host 127.0.0.2 --host 127.0.0.3 \
  --rules "$TEST_DIR/rules" || { not_ok "server starts"; finish; }
H1=http://127.0.0.1:$PORT
H2=http://127.0.0.2:$PORT
H3=http://127.0.0.3:$PORT

crawl() {  # crawl NAME ARGS...: crawl into $TEST_DIR/NAME; status in RC
  local name=$1
  shift
  mkdir -p "$TEST_DIR/$name"
  RC=0
  "$BIN/crawler" --rate 0 --log "$@" "$TEST_DIR/$name" 2 \
    >"$TEST_DIR/$name.log" 2>"$TEST_DIR/$name.err" || RC=$?
}
pages() {  # pages NAME: the URLs saved, in ID order
  local i=1
  while [ -f "$TEST_DIR/$1/$i" ]; do
    sed -n 1p "$TEST_DIR/$1/$i"
    i=$((i + 1))
  done
}

crawl moved "$H1/start"
check_eq "a seed redirected to another host is crawled there: exit 0" "$RC" 0
check_eq "its pages, and its links back to the seed's host" \
  "$(pages moved | tr '\n' ' ')" \
  "$H2/index.html $H2/a.html $H1/back.html "
check "the summary says what the scope became" grep -qxF \
  "crawler: scope: the seed's site, $H1/, https://127.0.0.1:$PORT/; the\
 sites the seed redirects to, $H2/, https://127.0.0.2:$PORT/" \
  "$TEST_DIR/moved.err"
check "--log says it" grep -qE "^ 0 +Scope: $H2/\$" "$TEST_DIR/moved.log"
check_eq "the marker records it, after the parameters" \
  "$(grep '^redirectScope: ' "$TEST_DIR/moved/.crawler")" \
  "redirectScope: $H2/
redirectScope: https://127.0.0.2:$PORT/"
check "a later page's redirect to another host is not followed" grep -qF \
  "Failed: $H2/away (redirect out of scope: $H3/x.html)" "$TEST_DIR/moved.log"
check_eq "and that host is never asked" "$(log_targets 127.0.0.3 | wc -l)" 0

# --resume derives the same scope: a crawl stopped after its first page
# and resumed ends as the uninterrupted one.
mkdir "$TEST_DIR/int"
"$BIN/crawler" --quiet --rate 2 "$H1/start" "$TEST_DIR/int" 2 &
cpid=$!
for _ in $(seq 100); do # 10 s at most
  [ -e "$TEST_DIR/int/1" ] && break
  sleep 0.1
done
kill -INT "$cpid"
wait "$cpid"
check_eq "interrupted after its first page: exit 5" "$?" 5
"$BIN/crawler" --quiet --rate 0 --resume "$H1/start" "$TEST_DIR/int" 2 \
  2>"$TEST_DIR/int.err"
check_eq "--resume takes the marker's derived scope: exit 0" "$?" 0
check "and ends as the uninterrupted crawl, byte for byte" \
  diff -r -x .lock "$TEST_DIR/moved" "$TEST_DIR/int"

# --replay derives it too, from the saved redirect.
crawl replayed --replay "$TEST_DIR/moved" "$H1/start"
check_eq "--replay of it: exit 0" "$RC" 0
check "--replay gives the same directory" \
  diff -r "$TEST_DIR/moved" "$TEST_DIR/replayed"

# A scope the user gave is the scope: the seed's redirect out of it fails.
crawl given --scope "$H1/" "$H1/start"
check_eq "--scope given: the seed's redirect out of it: exit 8" "$RC" 8
check "and says why" grep -q "not saved: redirect out of scope: $H2/index.html" \
  "$TEST_DIR/given.err"
finish
