# proxy_vhosts: many hosts by name through an HTTP proxy (issue 34's
# bench, bench/tenk.sh, in small). bench/delayserver --vhosts serves
# bench/many-site.sh --names (h0.test ... h199.test, the seed h0.test
# linking every host's index) as the proxy the crawler is given in
# http_proxy: every request goes to it, with the host in the target
# ("GET http://h7.test/p1.html"), and no .test name is ever resolved.
#
# 1. The crawl saves every host's index and pages, and nothing else.
# 2. The server's log names every host, each asked robots.txt once.
# 3. Every connect(2) of the crawler goes to the proxy (strace, if
#    installed): no resolver, no other address.
# 4. Origin-form requests pick the tree by their Host header; a bad
#    host name gets 404.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTS_BIN/delayserver"
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY no_proxy \
  NO_PROXY
mktemp_dir
H=200
K=2
sh "$TOP/bench/many-site.sh" --names "$TEST_DIR/site" "$H" "$K"
ADDR=127.$(($$ % 200 + 20)).$((RANDOM % 250 + 1)).1
DS_LOG=$TEST_DIR/delay.log
LOG=$DS_LOG
up=
for _ in 1 2 3 4 5; do
  P=$((20000 + RANDOM % 10000))
  delay_run "$P" --vhosts --port "$P" --delay-ms 50 --root "$TEST_DIR/site" &&
    { up=1; break; }
done
[ -n "$up" ] || { not_ok "delayserver starts"; finish; }

# 1. The crawl.
run_crawl() {  # run_crawl DIR [WRAPPER...]
  local dir=$1
  shift
  mkdir "$dir"
  http_proxy=http://$ADDR:$P/ "$@" "$BIN/crawler" --quiet --rate 0 \
    --user-agent 'tse-test (+https://example.invalid/)' --domain test \
    http://h0.test/index.html "$dir" 2
}
run_crawl "$TEST_DIR/out" 2>"$TEST_DIR/crawl.err"
check_eq "the crawl succeeds" "$?" 0
awk -v n="$H" -v k="$K" 'BEGIN { for (h = 0; h < n; h++) {
  printf "http://h%d.test/index.html\n", h
  for (i = 1; i <= k; i++) printf "http://h%d.test/p%d.html\n", h, i } }' |
  sort >"$TEST_DIR/expected"
find "$TEST_DIR/out" -maxdepth 1 -name '[0-9]*' -type f -print0 |
  xargs -0 -r awk 'FNR == 1 { print; nextfile }' | sort >"$TEST_DIR/saved"
check_same "every host's index and pages saved, nothing else" \
  "$TEST_DIR/expected" "$TEST_DIR/saved"

# 2. The log, by host name.
check_eq "the log names every host" \
  "$(awk '{ print $3 }' "$LOG" | sort -u | wc -l)" "$H"
check_eq "robots.txt asked once a host" \
  "$(awk '$4 == "/robots.txt" { print $3 }' "$LOG" | sort | uniq -d | wc -l) \
$(awk '$4 == "/robots.txt"' "$LOG" | wc -l)" "0 $H"
check_eq "every answer 200" "$(awk '$5 != 200' "$LOG" | wc -l)" 0

# 3. Only the proxy is ever connected to.
if command -v strace >/dev/null 2>&1; then
  # LeakSanitizer cannot work under ptrace: off for this one crawl.
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    run_crawl "$TEST_DIR/traced" strace -f -qq -e trace=connect \
    -o "$TEST_DIR/strace" 2>"$TEST_DIR/traced.err"
  check_eq "traced: the crawl succeeds" "$?" 0
  n=$(grep -c 'connect(' "$TEST_DIR/strace")
  other=$(grep 'connect(' "$TEST_DIR/strace" |
    grep -v "sin_port=htons($P), sin_addr=inet_addr(\"$ADDR\")" |
    grep -v 'sa_family=AF_UNIX' || true)
  echo "# $n connects" >&2
  check "traced: connects made ($n)" test "$n" -gt 0
  check_eq "traced: every connect to the proxy" "$other" ""
else
  skip "only the proxy is connected to" "strace is not installed"
fi

# 4. Origin-form: the Host header picks the tree.
get() {  # get HOST PATH: the status line of GET PATH with Host: HOST
  exec 3<>"/dev/tcp/$ADDR/$P"
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$2" "$1" >&3
  head -1 <&3 | tr -d '\r'
  exec 3<&-
}
check_eq "Host: h7.test:80 gets the shared tree" \
  "$(get h7.test:80 /p1.html)" "HTTP/1.1 200 OK"
check_eq "Host: H0.TEST gets the seed's own tree" \
  "$(get H0.TEST /index.html)" "HTTP/1.1 200 OK"
check_eq "the seed's index is its own" \
  "$(tail -1 "$LOG" | awk '{ print $3, $4, $5 }')" "h0.test /index.html 200"
check_eq "a bad host name gets 404" "$(get 'a/../b' /index.html)" \
  "HTTP/1.1 404 Not Found"
delay_site_stop
finish
