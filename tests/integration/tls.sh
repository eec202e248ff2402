# tls: crawling HTTPS. A CA and a certificate for 127.0.0.1 are made here
# (tests/fixtures/gen-certs.sh); the test server speaks TLS with it on
# 127.0.0.1 and 127.0.0.3 (a name the certificate does not give), and a
# second, plain server on 127.0.0.2 on the same port redirects to HTTPS
# and back. Checked: a crawl trusting the CA (--ca-certificate,
# --ca-directory) saves the pages; without it, with another CA, or for
# the wrong name it fails with libcurl's reason and exit 8;
# --no-check-certificate crawls anyway, with a warning; the CA options
# are checked before anything starts; proxies come from the environment.
. "$(dirname "$0")/lib.sh"
require_cmd openssl
require_file "$BIN/crawler" "$TESTSERVER"
# Hermetic: no proxy of the user's may carry these requests.
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy \
  NO_PROXY
mktemp_dir
C=$TEST_DIR/certs
sh "$TOP/tests/fixtures/gen-certs.sh" "$C" >&2 ||
  { not_ok "gen-certs.sh makes the certificates"; finish; }
sh "$TOP/tests/fixtures/gen-certs.sh" "$TEST_DIR/other" >&2 ||
  { not_ok "gen-certs.sh makes another CA"; finish; }

S=$TEST_DIR/site
mkdir -p "$S/127.0.0.1" "$S/127.0.0.2" "$S/127.0.0.3"
echo '<a href="a.html">A</a> <a href="b.html">B</a>' >"$S/127.0.0.1/index.html"
echo '<p>a</p>' >"$S/127.0.0.1/a.html"
echo '<p>b</p>' >"$S/127.0.0.1/b.html"
echo '<a href="/back">back to http</a>' >"$S/127.0.0.1/secure.html"
cp "$S/127.0.0.1/"*.html "$S/127.0.0.3/"
echo '<a href="/to-tls">to https</a>' >"$S/127.0.0.2/index.html"
echo '<p>the end, over http</p>' >"$S/127.0.0.2/end.html"
cat >"$TEST_DIR/rules" <<'RULES'
127.0.0.2 /to-tls redirect 302 https://127.0.0.1:{{port}}/secure.html
127.0.0.1 /back redirect 302 http://127.0.0.2:{{port}}/end.html
RULES

server_start "$S" --host 127.0.0.1 --host 127.0.0.3 --rules "$TEST_DIR/rules" \
  --tls-cert "$C/server.pem" --tls-key "$C/server.key" || {
  grep -q 'no TLS support' "$SERVER_ERR" &&
    skip_all "this libmicrohttpd has no TLS"
  not_ok "the HTTPS server starts"
  finish
}
H1=https://127.0.0.1:$PORT
H3=https://127.0.0.3:$PORT
H2=http://127.0.0.2:$PORT
# The plain server, on the port the first one got: lib.sh runs one server
# at a time, so the first is stopped here, by the exit trap.
TLS_PID=$SERVER_PID
TLS_LOG=$SERVER_LOG
SERVER_PID=
tls_exit() {
  local rc=$?
  if [ -n "$TLS_PID" ]; then
    kill -TERM "$TLS_PID" 2>/dev/null
    wait "$TLS_PID" 2>/dev/null
  fi
  (exit "$rc")
  lib_cleanup
}
trap tls_exit EXIT
server_start "$S" --host 127.0.0.2 --port "$PORT" --rules "$TEST_DIR/rules" ||
  { not_ok "the plain server starts on 127.0.0.2:$PORT"; finish; }

# crawl NAME SEED DEPTH [OPTIONS...]: crawl into $TEST_DIR/NAME (log in
# NAME.log, stderr in NAME.err); sets RC.
crawl() {
  local name=$1 seed=$2 depth=$3
  shift 3
  mkdir "$TEST_DIR/$name"
  timeout -k 5 60 "$BIN/crawler" --rate 0 --retries 0 --log "$@" "$seed" \
    "$TEST_DIR/$name" "$depth" >"$TEST_DIR/$name.log" \
    2>"$TEST_DIR/$name.err"
  RC=$?
}
listing() {  # listing NAME: "URL DEPTH" of each saved page, in ID order
  local i=1
  while [ -f "$TEST_DIR/$1/$i" ]; do
    head -n 2 "$TEST_DIR/$1/$i" | tr '\n' ' '
    i=$((i + 1))
  done
}
last_line() {  # last_line NAME: the crawl's last stderr line
  tail -n 1 "$TEST_DIR/$1.err"
}
said() {  # said NAME TEXT: the crawl's stderr has a line holding TEXT
  grep -qF -- "$2" "$TEST_DIR/$1.err" || {
    echo "# no line holding [$2] in $1.err:" >&2
    cat "$TEST_DIR/$1.err" >&2
    return 1
  }
}
PAGES="$H1/ 0 $H1/a.html 1 $H1/b.html 1 "
UNTRUSTED="SSL certificate problem: unable to get local issuer certificate\
 (its CA is not trusted here: --ca-certificate FILE trusts a private one)"

# ------------------------------------------------------------ trust

crawl trusted "$H1/" 1 --ca-certificate "$C/ca.pem"
check_eq "--ca-certificate: the crawl succeeds" "$RC" 0
check_eq "--ca-certificate: the pages are saved" "$(listing trusted)" "$PAGES"
check_eq "robots.txt is asked for over HTTPS too" \
  "$(awk -F'\t' '$4 == "/robots.txt"' "$TLS_LOG" | wc -l)" 1

crawl cadir "$H1/" 1 --ca-directory "$C/cadir"
check_eq "--ca-directory: the crawl succeeds" "$RC" 0
check_eq "--ca-directory: the pages are saved" "$(listing cadir)" "$PAGES"

crawl untrusted "$H1/" 1 --retries 2
check_eq "no CA option: the test CA is not trusted: exit 8" "$RC" 8
check_eq "untrusted: the last line says why, in libcurl's words" \
  "$(last_line untrusted)" \
  "crawler: seed '$H1/' not saved: host unreachable: $UNTRUSTED"
check "untrusted: the seed's log line says it too" grep -qF \
  "IgnRobots: $H1/ (host unreachable: $UNTRUSTED)" \
  "$TEST_DIR/untrusted.log"
check "untrusted: robots.txt counted as failed" \
  said untrusted "robots: 0 robots.txt fetched, 1 failed;"
check "untrusted: the summary says why" said untrusted \
  "crawler: not fetched: 1 x host unreachable: $UNTRUSTED"
check "untrusted: not retried (no retry mends it): one request" said untrusted \
  "crawler: 1 request to 1 host,"

crawl untrusted_nr "$H1/" 1 --ignore-robots
check_eq "untrusted, robots ignored: exit 8" "$RC" 8
check_eq "untrusted, robots ignored: the page's own failure" \
  "$(last_line untrusted_nr)" "crawler: seed '$H1/' not saved: $UNTRUSTED"
check "untrusted, robots ignored: logged Failed with the reason" grep -qF \
  "Failed: $H1/ ($UNTRUSTED)" "$TEST_DIR/untrusted_nr.log"
check "untrusted, robots ignored: summed up in libcurl's words" \
  said untrusted_nr "crawler: failed: 1 x $UNTRUSTED"

crawl otherca "$H1/" 1 --ca-certificate "$TEST_DIR/other/ca.pem"
check_eq "another CA: the certificate is not trusted: exit 8" "$RC" 8
check_eq "another CA: the same reason" "$(last_line otherca)" \
  "crawler: seed '$H1/' not saved: host unreachable: $UNTRUSTED"

crawl wrongname "$H3/" 1 --ca-certificate "$C/ca.pem"
check_eq "wrong host name: exit 8" "$RC" 8
check_eq "wrong host name: libcurl's reason" "$(last_line wrongname)" \
  "crawler: seed '$H3/' not saved: host unreachable: SSL: no\
 alternative certificate subject name matches target host name '127.0.0.3'"

# ------------------------------------------------------- no checking

crawl nocheck "$H1/" 1 --no-check-certificate
check_eq "--no-check-certificate: the untrusted server is crawled" "$RC" 0
check_eq "--no-check-certificate: the pages are saved" \
  "$(listing nocheck)" "$PAGES"
check "--no-check-certificate: a warning on stderr" \
  said nocheck "crawler: WARNING: --no-check-certificate: TLS certificates\
 are not checked"
crawl nocheck3 "$H3/" 0 --no-check-certificate
check_eq "--no-check-certificate: the wrong name too" \
  "$RC $(listing nocheck3)" "0 $H3/ 0 "

# ------------------------------------------ http -> https -> http

crawl mixed "$H2/" 2 --scope "$H2/" --scope "$H1/" \
  --ca-certificate "$C/ca.pem"
check_eq "http to https and back: the crawl succeeds" "$RC" 0
check_eq "http to https and back: each page saved at its depth" \
  "$(listing mixed)" "$H2/ 0 $H1/secure.html 1 $H2/end.html 2 "
check "the redirects are logged" grep -qF "Redirect: $H2/to-tls" \
  "$TEST_DIR/mixed.log"
crawl mixed_scope "$H2/" 2 --ca-certificate "$C/ca.pem"
check "a later page's redirect to another host's https is not followed" \
  grep -qF "Failed: $H2/to-tls (redirect out of scope: $H1/secure.html)" \
  "$TEST_DIR/mixed_scope.log"
# The seed's own redirect to https: with the default scope, its site joins
# the scope (seed_redirect.sh), and the crawl goes on there and back.
crawl seed_tls "$H2/to-tls" 2 --ca-certificate "$C/ca.pem"
check_eq "an http seed that redirects to https: the crawl succeeds" "$RC" 0
check_eq "its pages, over https and back over http" \
  "$(listing seed_tls)" "$H1/secure.html 0 $H2/end.html 1 "
check "the summary names the https site it went to" grep -qF \
  "the sites the seed redirects to, $H1/, http://127.0.0.1:$PORT/" \
  "$TEST_DIR/seed_tls.err"

# ------------------------------------------------------- the options

# refused NAME WANT OPTIONS...: the crawler refuses the command line:
# exit 1, first stderr line WANT, no marker written.
refused() {
  local name=$1 want=$2 d=$TEST_DIR/refused-$1 rc
  shift 2
  mkdir "$d"
  "$BIN/crawler" "$@" "$H1/" "$d" 1 2>"$TEST_DIR/refused.err"
  rc=$?
  check_eq "$name: exit 1" "$rc" 1
  check_eq "$name: says why" "$(head -n 1 "$TEST_DIR/refused.err")" "$want"
  check "$name: no marker written" test ! -e "$d/.crawler"
}
refused "a missing CA file" \
  "crawler: --ca-certificate: cannot read '$TEST_DIR/none.pem': No such\
 file or directory" --ca-certificate "$TEST_DIR/none.pem"
refused "a directory as the CA file" \
  "crawler: --ca-certificate: '$C/cadir' is not a file" \
  --ca-certificate "$C/cadir"
refused "a file as the CA directory" \
  "crawler: --ca-directory: '$C/ca.pem' is not a directory" \
  --ca-directory "$C/ca.pem"
"$BIN/crawler" --help >"$TEST_DIR/help"
for o in --ca-certificate --ca-directory --no-check-certificate; do
  check "--help names $o" grep -q -- "^  $o " "$TEST_DIR/help"
done

# ------------------------------------------------------------ proxies

# libcurl takes a proxy from http_proxy (not HTTP_PROXY, which a CGI
# server's request could set) and skips it for no_proxy: the plain server
# on 127.0.0.2 plays the proxy, and sees the absolute URL it is asked for.
# Nothing listens on 127.0.0.9.
: >"$SERVER_LOG"
http_proxy=$H2 crawl proxy "http://127.0.0.9:$PORT/" 0
check "http_proxy: the request goes to the proxy" grep -qF \
  "GET	http://127.0.0.9:$PORT/robots.txt" "$SERVER_LOG"
: >"$SERVER_LOG"
http_proxy=$H2 no_proxy=127.0.0.9 crawl noproxy "http://127.0.0.9:$PORT/" 0
HTTP_PROXY=$H2 crawl upper "http://127.0.0.9:$PORT/" 0
check_eq "no_proxy and HTTP_PROXY: the proxy is not asked" \
  "$(wc -l <"$SERVER_LOG")" 0

finish
