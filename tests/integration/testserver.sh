#!/usr/bin/env bash
# testserver.sh: the loopback test server itself, checked with curl: files,
# 404, substitution, every rule, several hosts, the log, the loopback-only
# guard, HTTPS, and stopping by itself. The site and rules are declared
# below.
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
require_cmd curl
require_file "$TESTSERVER"

mktemp_dir
site=$TEST_DIR/site
mkdir -p "$site/sub"
printf '<html><body><a href="http://{{host}}:{{port}}/sub/">sub</a>' \
  >"$site/index.html"
printf ' host={{host}} port={{port}}</body></html>\n' >>"$site/index.html"
printf '<html><body>sub index</body></html>\n' >"$site/sub/index.html"
printf 'plain text {{port}}\n' >"$site/notes.txt"
printf '\211PNG\r\n\032\n{{port}}' >"$site/image.png"
for i in $(seq 400); do
  printf 'line %d of a large compressible page\n' "$i"
done >"$site/big.html"
cp "$site/big.html" "$site/close.html"
printf '0123456789abcdefghijABCDEFGHIJklmnopqrstKLMNOPQRST' >"$site/drip.html"
cp "$site/sub/index.html" "$site/slow.html"
cp "$site/sub/index.html" "$site/x.html"
cat >"$TEST_DIR/rules" <<'EOF'
# rules for testserver.sh
/slow.html delay 1.5
/drip.html drip 10 0.3
/gone.html status 500
/old.html redirect 301 http://{{host}}:{{port}}/index.html
/x.html header X-Robots-Tag noindex, nofollow
/x.html type application/pdf
/big.html gzip
/endless.html endless
/hang.html hang
/close.html close
/gen/* generate
/slowgzip.html delay 0.5
/slowgzip.html redirect 302 /big.html
EOF

# ------------------------------------------------ refusals, bad input

out=$("$TESTSERVER" --root "$site" --host 10.0.0.1 --portfile \
  "$TEST_DIR/p0" --max-seconds 5 2>&1)
rc=$?
check "refuses a non-loopback host" \
  test "$rc" != 0 -a ! -e "$TEST_DIR/p0"
check "says why it refuses" grep -q loopback <<<"$out"
"$TESTSERVER" --root "$site" --host 0.0.0.0 --max-seconds 5 2>/dev/null
check "refuses 0.0.0.0" test $? != 0
printf '/a.html teleport 3\n' >"$TEST_DIR/badrules"
out=$("$TESTSERVER" --root "$site" --host 127.0.0.1 --rules \
  "$TEST_DIR/badrules" --max-seconds 5 2>&1)
check "rejects an unknown rule, naming the line" \
  grep -q 'badrules:1: unknown action' <<<"$out"

# ------------------------------------------------------------ files

server_start "$site" --rules "$TEST_DIR/rules" || {
  not_ok "server starts"
  finish
}
ok "server starts on port $PORT"
U=$BASE_URL

code() {  # code URL [CURL ARGS]: the status code
  curl -s -o /dev/null -w '%{http_code}' "$@"
}
ctype() {  # ctype URL: the Content-Type
  curl -s -o /dev/null -w '%{content_type}' "$1"
}

want="<html><body><a href=\"http://127.0.0.1:$PORT/sub/\">sub</a>"
want="$want host=127.0.0.1 port=$PORT</body></html>"
check_eq "serves index.html for / with substitution" "$(curl -s "$U/")" \
  "$want"
check_eq "index.html content type" "$(ctype "$U/index.html")" \
  "text/html; charset=utf-8"
check_eq "text/plain, substituted" "$(curl -s "$U/notes.txt")" \
  "plain text $PORT"
check_eq ".txt content type" "$(ctype "$U/notes.txt")" \
  "text/plain; charset=utf-8"
check_eq ".png content type" "$(ctype "$U/image.png")" "image/png"
check "binary files are not substituted" \
  grep -q '{{port}}' <(curl -s "$U/image.png")
check_eq "404 for a missing file" "$(code "$U/missing.html")" 404
check_eq "directory without slash redirects" \
  "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$U/sub")" \
  "301 $U/sub/"
check_eq "directory serves its index" "$(curl -s "$U/sub/")" \
  "<html><body>sub index</body></html>"
check_eq "no escape with .." \
  "$(code --path-as-is "$U/../$(basename "$TEST_DIR")/rules")" 404
head=$(curl -s -I "$U/index.html")
check "HEAD answers 200" grep -q '^HTTP/1.1 200' <<<"$head"
check "HEAD gives the GET length, no body" \
  grep -qi "^content-length: $(curl -s "$U/index.html" | wc -c)" <<<"$head"
check_eq "POST is 405" "$(code -X POST -d x=1 "$U/")" 405
check_eq "keep-alive: second request reuses the connection" \
  "$(curl -s -o /dev/null -o /dev/null -w '%{num_connects} ' \
     "$U/" "$U/sub/")" "1 0 "

# ------------------------------------------------------------ rules

t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' "$U/slow.html")
check "delay 1.5 takes 1.5 s (status ${t% *}, ${t#* } s)" \
  awk -v t="${t#* }" -v c="${t% *}" \
  'BEGIN { exit !(c == 200 && t >= 1.4 && t < 6) }'
# A slow response must not hold up another connection.
curl -s -o /dev/null "$U/slow.html" &
slow_pid=$!
sleep 0.2
t=$(curl -s -o /dev/null -w '%{time_total}' "$U/sub/")
wait "$slow_pid"
check "a delayed response does not block others ($t s)" \
  awk -v t="$t" 'BEGIN { exit !(t < 1.0) }'
check_eq "status 500" "$(code "$U/gone.html")" 500
check_eq "redirect 301 with a substituted Location" \
  "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' "$U/old.html")" \
  "301 http://127.0.0.1:$PORT/index.html"
check_eq "redirect can be followed" "$(code -L "$U/old.html")" 200
hdrs=$(curl -s -D - -o /dev/null "$U/x.html")
check "header rule" grep -qi '^x-robots-tag: noindex, nofollow' <<<"$hdrs"
check "type rule" grep -qi '^content-type: application/pdf' <<<"$hdrs"
hdrs=$(curl -s --compressed -D "$TEST_DIR/gz.hdr" -o "$TEST_DIR/gz.body" \
  "$U/big.html")
check "gzip: Content-Encoding when asked" \
  grep -qi '^content-encoding: gzip' "$TEST_DIR/gz.hdr"
check "gzip: compressed on the wire" awk -v n="$(
  curl -s -H 'Accept-Encoding: gzip' "$U/big.html" | wc -c)" \
  -v m="$(wc -c <"$site/big.html")" 'BEGIN { exit !(n > 0 && n < m / 4) }'
check "gzip: decodes to the file" cmp "$TEST_DIR/gz.body" "$site/big.html"
curl -s -D "$TEST_DIR/plain.hdr" -o "$TEST_DIR/plain.body" "$U/big.html"
check "gzip: plain when not asked" \
  eval "! grep -qi '^content-encoding' '$TEST_DIR/plain.hdr' &&
        cmp '$TEST_DIR/plain.body' '$site/big.html'"
t=$(curl -s -o "$TEST_DIR/drip.body" -w '%{time_total}' "$U/drip.html")
check "drip: whole body" cmp "$TEST_DIR/drip.body" "$site/drip.html"
check "drip: 5 chunks 0.3 s apart take >= 1.2 s ($t s)" \
  awk -v t="$t" 'BEGIN { exit !(t >= 1.15 && t < 6) }'
n=$(curl -s "$U/endless.html" | head -c 300000 | wc -c)
check_eq "endless: more than we care to read" "$n" 300000
out=$(curl -s -m 1 -o /dev/null -w '%{http_code}' "$U/hang.html")
rc=$?
check_eq "hang: no answer before curl gives up" "$rc $out" "28 000"
out=$(curl -s -o /dev/null -w '%{http_code} %{size_download}' \
  "$U/close.html")
rc=$?
half=$(( $(wc -c <"$site/close.html") / 2 ))
check_eq "close: headers and half the body, then EOF" "$rc $out" \
  "18 200 $half"
body=$(curl -s "$U/gen/3")
check "generate: page 3 links to page 4" grep -q 'href="/gen/4"' <<<"$body"
check_eq "generate: a non-number is 404" "$(code "$U/gen/x")" 404
check_eq "several rules on one path (delay + redirect)" \
  "$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' \
     "$U/slowgzip.html")" "302 $U/big.html"

# ------------------------------------------------------------- log

: >"$SERVER_LOG"
curl -s -o /dev/null -A 'TSE test/1.0 (with spaces)' \
  "$U/index.html?b=2&a=%41"
curl -s -o /dev/null -A '' "$U/missing.html"
line=$(head -n 1 "$SERVER_LOG")
check "log: 7 tab-separated fields" \
  awk -F'\t' 'NF != 7 { bad = 1 } END { exit bad || NR != 2 }' "$SERVER_LOG"
check "log: monotonic seconds with 6 decimals" \
  grep -Eq '^[0-9]+\.[0-9]{6}	' <<<"$line"
check_eq "log: address, method, raw target, status, user agent" \
  "$(cut -f2-6 <<<"$line")" \
  "127.0.0.1:$PORT	GET	/index.html?b=2&a=%41	200	TSE test/1.0 (with spaces)"
check_eq "log: 404 and a missing user agent" \
  "$(sed -n 2p "$SERVER_LOG" | cut -f4-6)" "/missing.html	404	-"
: >"$SERVER_LOG"
curl -s -o /dev/null -m 1 "$U/hang.html"
check_eq "log: an unanswered request has status -" \
  "$(cut -f4,5 "$SERVER_LOG")" "/hang.html	-"
: >"$SERVER_LOG"
curl -s -o /dev/null -o /dev/null "$U/" "$U/sub/"
check "log: one connection number for a kept-alive connection" \
  awk -F'\t' 'NR == 1 { c = $7 } $7 != c { bad = 1 }
              END { exit bad || NR != 2 }' "$SERVER_LOG"
: >"$SERVER_LOG"
pids=()
for i in $(seq 30); do
  curl -s -o /dev/null "$U/sub/?n=$i" &
  pids+=($!)
done
wait "${pids[@]}"
check "log: 30 concurrent requests, 30 whole lines" \
  awk -F'\t' 'NF != 7 || $5 != 200 { bad = 1 }
              END { exit bad || NR != 30 }' "$SERVER_LOG"
check_eq "log_count helper" "$(log_count '/sub/?n=7')" 1

pid=$SERVER_PID
server_stop
check "SIGTERM stops it" eval "! kill -0 $pid 2>/dev/null"
check_eq "exit status 0 after SIGTERM" "$SERVER_STATUS" 0

# ------------------------------------------------------ several hosts

printf '/p1.html status 503\n127.0.0.3 /p2.html status 418\n' \
  >"$TEST_DIR/multirules"
if server_start "$SITES/multi" --host 127.0.0.2 --host 127.0.0.3 \
     --host 127.0.0.4 --rules "$TEST_DIR/multirules"; then
  for h in 2 3 4; do
    check "host 127.0.0.$h serves its own directory" \
      grep -q "<title>Host 127.0.0.$h, page 0</title>" \
      <(curl -s "http://127.0.0.$h:$PORT/")
  done
  check "{{host}} is the serving host" grep -q \
    "href=\"http://127.0.0.3:$PORT/p1.html\"" \
    <(curl -s "http://127.0.0.3:$PORT/p8.html")
  check_eq "127.0.0.1 is not served" "$(code -m 2 "http://127.0.0.1:$PORT/")" \
    000
  check_eq "a rule for every host" \
    "$(code "http://127.0.0.2:$PORT/p1.html") $(code \
      "http://127.0.0.4:$PORT/p1.html")" "503 503"
  check_eq "a rule for one host" \
    "$(code "http://127.0.0.3:$PORT/p2.html") $(code \
      "http://127.0.0.2:$PORT/p2.html")" "418 200"
  check_eq "log names each host" \
    "$(log_targets 127.0.0.3 | sort | tr '\n' ' ')" "/ /p2.html /p8.html "
  server_stop
else
  not_ok "multi-host server starts"
fi

# ------------------------------------------------------------ HTTPS

# A CA and a certificate for 127.0.0.1 made here (tests/fixtures/
# gen-certs.sh); the server speaks TLS with it on every host.
if ! command -v openssl >/dev/null 2>&1; then
  ok "https: # SKIP openssl is not installed"
elif ! sh "$TOP/tests/fixtures/gen-certs.sh" "$TEST_DIR/certs" >&2; then
  not_ok "https: gen-certs.sh makes the certificates"
elif server_start "$site" --host 127.0.0.1 --host 127.0.0.3 \
       --rules "$TEST_DIR/rules" --tls-cert "$TEST_DIR/certs/server.pem" \
       --tls-key "$TEST_DIR/certs/server.key"; then
  S_URL=https://127.0.0.1:$PORT
  check "https: a page, with the CA trusted" grep -q "port=$PORT" \
    <(curl -sS --cacert "$TEST_DIR/certs/ca.pem" "$S_URL/")
  check_eq "https: rules apply" \
    "$(code --cacert "$TEST_DIR/certs/ca.pem" "$S_URL/gone.html")" 500
  curl -sS -o /dev/null "$S_URL/" 2>"$TEST_DIR/curl.err"
  check "https: refused by a client that does not trust the CA" \
    grep -q 'unable to get local issuer certificate' "$TEST_DIR/curl.err"
  curl -sS -o /dev/null --cacert "$TEST_DIR/certs/ca.pem" \
    "https://127.0.0.3:$PORT/" 2>"$TEST_DIR/curl.err"
  check "https: the certificate names 127.0.0.1 only" \
    grep -q "no alternative certificate subject name" "$TEST_DIR/curl.err"
  check_eq "https: plain HTTP is not answered" \
    "$(code -m 2 "http://127.0.0.1:$PORT/")" 000
  server_stop
elif grep -q 'no TLS support' "$SERVER_ERR"; then
  ok "https: # SKIP this libmicrohttpd has no TLS"
else
  not_ok "https: the server starts with --tls-cert and --tls-key"
fi
"$TESTSERVER" --root "$site" --host 127.0.0.1 --tls-cert x 2>/dev/null
check_eq "--tls-cert without --tls-key is refused" "$?" 2

# ------------------------------------------------- stopping by itself

if server_start "$site" --rules "$TEST_DIR/rules" --max-seconds 2; then
  # In flight when the time is up: it must not keep the server alive.
  curl -s -o /dev/null -m 20 "$BASE_URL/hang.html" 2>/dev/null &
  hang_pid=$!
  stopped=
  for i in $(seq 80); do
    kill -0 "$SERVER_PID" 2>/dev/null || { stopped=$i; break; }
    sleep 0.1
  done
  check "stops by itself after --max-seconds, despite a hanging request" \
    test -n "$stopped"
  wait "$SERVER_PID"
  check_eq "exit status 0 after --max-seconds" "$?" 0
  SERVER_PID=
  wait "$hang_pid"
else
  not_ok "server starts with --max-seconds 2"
fi

finish
