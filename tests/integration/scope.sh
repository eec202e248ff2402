# scope: what --domain and --scope let the crawler follow, and what they
# keep out (IgnExtrn in --log, and no request at all).
#   1. --domain with addresses: one matches itself alone, on any port and
#      scheme; nothing else on 127.0.0.0/8 is in.
#   2. 302 --scope prefixes (100 on one host, 200 on 200 hosts) and a
#      --domain: a link is in if any prefix or the domain admits it.
#   3. --domain with names, label-aligned: replayed from a page directory
#      written here, so nothing resolves a name and nothing leaves the
#      machine (tests/unit/common/scope_test.c has the string cases).
# Every host is on 127.0.0.0/8; links to hosts nobody serves are refused
# at once by the kernel. No name is ever looked up: names appear only in
# the replayed part (a name under an address, "x.127.0.0.2", is left to
# the unit test, since a bug would send it to the resolver).
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
S=$TEST_DIR/site
for h in 1 2 3 4 5; do
  mkdir -p "$S/127.0.0.$h/p"
  echo "<p>p on $h</p>" >"$S/127.0.0.$h/p/index.html"
done
H1=$S/127.0.0.1
cat >"$H1/index.html" <<'HTML'
<a href="a.html">same host</a>
<a href="http://127.0.0.2:{{port}}/">the other domain</a>
<a href="http://127.0.0.3:{{port}}/">no domain of ours</a>
<a href="http://127.0.0.22:{{port}}/">an address that ends alike</a>
<a href="https://127.0.0.2:{{port}}/tls.html">another scheme</a>
<a href="http://127.0.0.2:1/">another port</a>
<a href="moved.html">redirected to the other domain</a>
<a href="away.html">redirected out</a>
HTML
cat >"$TEST_DIR/rules" <<'RULES'
127.0.0.1 /moved.html redirect 301 http://127.0.0.2:{{port}}/p/
127.0.0.1 /away.html redirect 302 http://127.0.0.3:{{port}}/p/
RULES
echo '<p>a</p>' >"$H1/a.html"
cat >"$S/127.0.0.2/index.html" <<'HTML'
<a href="b.html">b</a> <a href="http://127.0.0.3:{{port}}/c.html">c</a>
HTML
echo '<p>b</p>' >"$S/127.0.0.2/b.html"
echo '<p>3</p>' >"$S/127.0.0.3/index.html"
echo '<p>c</p>' >"$S/127.0.0.3/c.html"
# Part 2's seed, /d1/, links to /d2/ .. /d120/ and to other hosts.
for i in $(seq 120); do
  mkdir -p "$H1/d$i"
  echo "<p>d$i</p>" >"$H1/d$i/index.html"
done
{
  for i in $(seq 2 120); do echo "<a href=\"../d$i/\">d$i</a>"; done
  echo '<a href="/d1x/">not under /d1/</a> <a href="/d10">no slash</a>'
  for h in 2 3 4 5; do
    echo "<a href=\"http://127.0.0.$h:{{port}}/p/\">p on $h</a>"
  done
  for n in 1 2 3 4 5 6 7 8 9 10 201 202 203 204 205; do
    echo "<a href=\"http://127.0.1.$n:{{port}}/\">unserved $n</a>"
  done
  for n in 1 2 3 4 5; do
    echo "<a href=\"http://127.0.2.$n:{{port}}/\">unserved, out $n</a>"
  done
} >"$H1/d1/index.html"
server_start "$S" --host 127.0.0.1 --host 127.0.0.2 --host 127.0.0.3 \
  --host 127.0.0.4 --host 127.0.0.5 --rules "$TEST_DIR/rules" ||
  { not_ok "server"; finish; }
P=$PORT

crawl() {  # crawl NAME SEED DEPTH [OPTIONS...]: into $TEST_DIR/NAME
  local name=$1 seed=$2 depth=$3
  shift 3
  mkdir "$TEST_DIR/$name"
  "$BIN/crawler" --rate 0 --retries 0 --timeout 5 --log "$@" "$seed" \
    "$TEST_DIR/$name" "$depth" >"$TEST_DIR/$name.log" 2>"$TEST_DIR/$name.err"
}
saved() {  # saved NAME: the saved URLs, sorted, one a line
  local f
  for f in "$TEST_DIR/$1"/[0-9]*; do
    [ -f "$f" ] && sed -n 1p "$f"
  done | sort
}
logged() {  # logged NAME LABEL: the URLs of LABEL's log lines, sorted
  awk -v l="$2:" '$2 == l { print $3 }' "$TEST_DIR/$1.log" | sort
}
lines() {  # lines WORD...: the words one a line, sorted
  printf '%s\n' "$@" | sort
}

# ---- 1. --domain with addresses
crawl addr "http://127.0.0.1:$P/" 2 --domain 127.0.0.1 --domain 127.0.0.2
check_eq "addresses: the crawl succeeds" "$?" 0
check_eq "addresses: the pages of both domains are saved, no others" \
  "$(saved addr)" "$(lines "http://127.0.0.1:$P/" "http://127.0.0.1:$P/a.html" \
  "http://127.0.0.2:$P/" "http://127.0.0.2:$P/b.html" \
  "http://127.0.0.2:$P/p/")"
check_eq "addresses: the others are external" "$(logged addr IgnExtrn)" \
  "$(lines "http://127.0.0.3:$P/" "http://127.0.0.22:$P/" \
  "http://127.0.0.3:$P/c.html")"
check_eq "addresses: any scheme and port of a domain is followed" \
  "$(logged addr Added | grep -v "^http://127.0.0.[12]:$P/")" \
  "$(lines "http://127.0.0.2:1/" "https://127.0.0.2:$P/tls.html")"
check "addresses: a redirect out of the domains is not followed" grep -q \
  "Failed: http://127.0.0.1:$P/away.html (redirect out of scope" \
  "$TEST_DIR/addr.log"
check_eq "addresses: no request reaches an external host" \
  "$(log_targets 127.0.0.3)" ""

# ---- 2. hundreds of prefixes, and a domain
prefixes=()
for i in $(seq 100); do
  prefixes+=(--scope "http://127.0.0.1:$P/d$i/")
done
for n in $(seq 200); do
  prefixes+=(--scope "http://127.0.1.$n:$P/")
done
prefixes+=(--scope "http://127.0.0.2:$P/p/" --scope "http://127.0.0.3:$P/")
check_eq "prefixes: 302 of them" "$((${#prefixes[@]} / 2))" 302
crawl many "http://127.0.0.1:$P/d1/" 1 "${prefixes[@]}" --domain 127.0.0.5
check_eq "prefixes: the crawl succeeds" "$?" 0
want=()
for i in $(seq 100); do
  want+=("http://127.0.0.1:$P/d$i/")
done
want+=("http://127.0.0.2:$P/p/" "http://127.0.0.3:$P/p/" \
  "http://127.0.0.5:$P/p/")
check_eq "prefixes: every page a prefix or the domain admits is saved" \
  "$(saved many)" "$(lines "${want[@]}")"
out=()
for i in $(seq 101 120); do
  out+=("http://127.0.0.1:$P/d$i/")
done
out+=("http://127.0.0.1:$P/d1x/" "http://127.0.0.1:$P/d10" \
  "http://127.0.0.4:$P/p/")
for n in 201 202 203 204 205; do
  out+=("http://127.0.1.$n:$P/")
done
for n in 1 2 3 4 5; do
  out+=("http://127.0.2.$n:$P/")
done
check_eq "prefixes: every other link is external" \
  "$(logged many IgnExtrn)" "$(lines "${out[@]}")"
check_eq "prefixes: hosts in scope that nobody serves are followed" \
  "$(logged many Added | grep -c "^http://127.0.1.")" 10
check_eq "prefixes: no request reaches an external host" \
  "$(log_targets 127.0.0.4)" ""
check_eq "prefixes: the marker records them all, and the domain" \
  "$(grep -c '^scope: ' "$TEST_DIR/many/.crawler") \
$(grep -c '^domain: ' "$TEST_DIR/many/.crawler")" "302 1"
"$BIN/crawler" --quiet --rate 0 --retries 0 --resume "${prefixes[@]}" \
  --domain 127.0.0.5 "http://127.0.0.1:$P/d1/" "$TEST_DIR/many" 1 \
  2>"$TEST_DIR/resume.err"
check_eq "prefixes: the finished crawl resumes with the same options" "$?" 0
"$BIN/crawler" --quiet --rate 0 --resume "${prefixes[@]}" \
  --domain 127.0.0.6 "http://127.0.0.1:$P/d1/" "$TEST_DIR/many" 1 \
  2>"$TEST_DIR/resume.err"
check_eq "prefixes: but not with another domain" "$?" 3
check "prefixes: the refusal names the domain" grep -qF \
  "with 'domain: 127.0.0.5', this command asks for 'domain: 127.0.0.6'" \
  "$TEST_DIR/resume.err"
server_stop

# ---- 3. --domain with names, replayed
R=$TEST_DIR/named
mkdir "$R"
printf 'tse-crawler pagedir 1\n' >"$R/.crawler"
id=1
page() {  # page URL DEPTH BODY: the next page of the saved crawl R
  printf '%s\n%s\n%s\n' "$1" "$2" "$3" >"$R/$id"
  id=$((id + 1))
}
page http://www.example.edu/ 0 '<a href="http://cs.example.edu/">cs</a>
<a href="https://lib.example.edu:8443/">lib</a>
<a href="http://example.edu/">the domain itself</a>
<a href="http://EXAMPLE.EDU./upper.html">a trailing dot</a>
<a href="http://badexample.edu/">not a subdomain</a>
<a href="http://cs.badexample.edu/">nor this</a>
<a href="http://example.edu.evil.net/">nor this</a>
<a href="http://www.example.org/">another domain</a>'
page http://cs.example.edu/ 1 '<a href="//a.b.cs.example.edu/deep.html">d</a>'
page https://lib.example.edu:8443/ 1 '<p>lib</p>'
page http://example.edu/ 1 '<p>the domain</p>'
page http://example.edu./upper.html 1 '<p>upper</p>'
page http://badexample.edu/ 1 '<p>bad</p>'
page http://cs.badexample.edu/ 1 '<p>bad</p>'
page http://example.edu.evil.net/ 1 '<p>evil</p>'
page http://www.example.org/ 1 '<p>org</p>'
page http://a.b.cs.example.edu/deep.html 2 '<p>deep</p>'
named_in=(http://www.example.edu/ http://cs.example.edu/
  https://lib.example.edu:8443/ http://example.edu/
  http://example.edu./upper.html http://a.b.cs.example.edu/deep.html)
named_out=(http://badexample.edu/ http://cs.badexample.edu/
  http://example.edu.evil.net/ http://www.example.org/)
crawl names http://www.example.edu/ 2 --replay "$R" --domain Example.EDU.
check_eq "names: the replayed crawl succeeds" "$?" 0
check_eq "names: the domain and its subdomains, any scheme and port" \
  "$(saved names)" "$(lines "${named_in[@]}")"
check_eq "names: the rest is external, label by label" \
  "$(logged names IgnExtrn)" "$(lines "${named_out[@]}")"
check "names: the marker records the normalised domain" \
  grep -qx "domain: example.edu" "$TEST_DIR/names/.crawler"
crawl both http://www.example.edu/ 2 --replay "$R" --domain example.edu \
  --scope http://www.example.org/
check_eq "names: with a --scope as well, either admits" "$(saved both)" \
  "$(lines "${named_in[@]}" http://www.example.org/)"
crawl sub http://cs.example.edu/ 2 --replay "$R" --domain cs.example.edu
check_eq "names: a subdomain's domain holds only its own subdomains" \
  "$(saved sub)" \
  "$(lines http://cs.example.edu/ http://a.b.cs.example.edu/deep.html)"
finish
