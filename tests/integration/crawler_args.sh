# crawler_args: every refusal of a bad command line names the argument and
# the reason on one stderr line, adds the usage line, exits with its code,
# and leaves the page directory untouched.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler"
mktemp_dir
C=$BIN/crawler
# A seed nobody answers: a closed loopback port. The arguments are taken,
# the crawl runs and saves nothing, and exits 8 (seed not saved), which
# is how the checks below see an accepted command line. Port 9 (discard)
# is not served here.
SEED=http://127.0.0.1:9/

# expect NAME CODE ARGS...: crawler exits CODE, stderr is exactly three
# lines (the reason, "usage: ...", then "Try 'crawler --help' ..."),
# stdout is empty.
expect() {
  local name=$1 code=$2 rc
  shift 2
  "$C" "$@" >"$TEST_DIR/out" 2>"$TEST_DIR/err"
  rc=$?
  if [ "$rc" = "$code" ] && [ "$(wc -l <"$TEST_DIR/err")" = 3 ] &&
     head -n 1 "$TEST_DIR/err" | grep -q '^crawler: ' &&
     sed -n 2p "$TEST_DIR/err" | grep -q '^usage: crawler ' &&
     sed -n 3p "$TEST_DIR/err" | grep -qx "Try 'crawler --help' for the options." &&
     [ ! -s "$TEST_DIR/out" ]; then
    ok "$name"
  else
    echo "# exit $rc (want $code); stderr:" >&2
    cat "$TEST_DIR/err" >&2
    not_ok "$name"
  fi
}

fresh() {  # fresh: a new empty page directory in $D
  D=$TEST_DIR/pd.$RANDOM$RANDOM
  mkdir "$D"
}

fresh
expect "no arguments" 1
expect "two arguments" 1 "$SEED" "$D"
expect "four arguments" 1 "$SEED" "$D" 1 extra
expect "unknown option" 1 --bogus "$SEED" "$D" 1
expect "option without value" 1 "$SEED" "$D" 1 --rate
check "which is named as lacking its value" \
  grep -qx "crawler: --rate needs a value" "$TEST_DIR/err"
expect "zero download workers" 1 --download-workers 0 "$SEED" "$D" 1
check "the option is named, then its value" grep -qx \
  "crawler: --download-workers: '0' is not a worker count (1 to 4096)" \
  "$TEST_DIR/err"
expect "non-numeric parse workers" 1 --parse-workers two "$SEED" "$D" 1
expect "bad parse workers given with =" 1 --parse-workers=0 "$SEED" "$D" 1
check "the option is named without its value" grep -qx \
  "crawler: --parse-workers: '0' is not a worker count (1 to 4096)" \
  "$TEST_DIR/err"
expect "negative rate" 1 --rate -1 "$SEED" "$D" 1
expect "burst below 1" 1 --burst 0.5 "$SEED" "$D" 1
expect "bad format" 1 --format xml "$SEED" "$D" 1
expect "bad timeout" 1 --timeout 0 "$SEED" "$D" 1
expect "bad max-page-size" 1 --max-page-size 10k "$SEED" "$D" 1
expect "user agent with newline" 1 --user-agent "$(printf 'a\nb')" "$SEED" "$D" 1

expect "seed not a URL" 2 notaurl "$D" 1
expect "seed relative" 2 /index.html "$D" 1
expect "seed ftp" 2 ftp://127.0.0.1/ "$D" 1
expect "seed mailto" 2 mailto:someone@127.0.0.1 "$D" 1
expect "seed empty" 2 "" "$D" 1
expect "seed outside --scope" 2 --scope http://127.0.0.2/ "$SEED" "$D" 1
expect "seed outside --domain" 2 --domain 127.0.0.2 "$SEED" "$D" 1
check "the refusal names the domain" grep -qxF "crawler: seedURL '$SEED' \
is outside the scope (--domain 127.0.0.2)" "$TEST_DIR/err"
expect "seed outside --scope and --domain" 2 --scope http://127.0.0.2/ \
  --domain 127.0.0.3 --domain example.edu "$SEED" "$D" 1
check "the refusal names the first of each" grep -qxF "crawler: seedURL \
'$SEED' is outside the scope (--scope http://127.0.0.2/; --domain \
127.0.0.3, ...)" "$TEST_DIR/err"
for bad in "" . .example.edu a..b example.edu:80 "[::1]:80" \
    http://example.edu example.edu/ u@example.edu "exa mple.edu"; do
  expect "--domain '$bad'" 1 --domain "$bad" "$SEED" "$D" 1
done
check "which is named" grep -qxF \
  "crawler: --domain: 'exa mple.edu' is not a host name or IP address" \
  "$TEST_DIR/err"

expect "pageDirectory missing" 3 "$SEED" "$TEST_DIR/nope" 1
touch "$TEST_DIR/afile"
expect "pageDirectory is a file" 3 "$SEED" "$TEST_DIR/afile" 1
fresh
touch "$D/.crawler"
expect "pageDirectory holds a crawl (marker)" 3 "$SEED" "$D" 1
fresh
echo x >"$D/1"
expect "pageDirectory holds a crawl (page 1)" 3 "$SEED" "$D" 1

fresh
for bad in 2x -1 "" " 3" "3 " +3 0x3 1.5 1001 99999999999999999999; do
  expect "maxDepth '$bad'" 4 "$SEED" "$D" "$bad"
done
check "a refused maxDepth writes no marker" test ! -e "$D/.crawler"
# getopt reads "-12" as short options, staying on the word till its end.
expect "maxDepth '-12'" 4 "$SEED" "$D" -12
check "which is named whole" grep -qx \
  "crawler: maxDepth '-12' is not an integer from 0 to 1000" "$TEST_DIR/err"
expect "unknown short options" 1 -xy "$SEED" "$D" 1
check "which are named as given" \
  grep -qx "crawler: unknown option '-xy'" "$TEST_DIR/err"

fresh
touch "$TEST_DIR/old.warc.gz"
expect "--warc names an existing file" 1 --warc "$TEST_DIR/old.warc.gz" \
  "$SEED" "$D" 0
expect "--warc with --replay" 1 --warc "$TEST_DIR/new.warc.gz" \
  --replay "$D" "$SEED" "$D" 0
check "a refused --warc writes no marker" test ! -e "$D/.crawler"
check "a refused --warc leaves the directory empty" \
  test -z "$(ls -A "$D")"

"$C" --help >"$TEST_DIR/help" 2>&1
check_eq "--help exits 0" "$?" 0
check "--help shows usage and exit codes" \
  grep -q 'usage: crawler \[options\] seedURL pageDirectory maxDepth' \
  "$TEST_DIR/help"
check "--help shows --domain" grep -q '^  --domain D ' "$TEST_DIR/help"
"$C" --version >"$TEST_DIR/ver" 2>&1
check_eq "--version exits 0" "$?" 0
check "--version names the version" grep -q '^crawler [0-9]' "$TEST_DIR/ver"

# A seed that is not saved leaves no crawl behind: the directory is as
# it was given, so the same command, its mistake fixed, runs again.
fresh
"$C" --retries 0 "$SEED" "$D" 0 2>"$TEST_DIR/err"
check_eq "maxDepth 0 with an unreachable seed runs, and exits 8" "$?" 8
check_eq "nothing saved: the directory is left as it was given" \
  "$(ls -A "$D")" ""
check "and stderr says so" grep -q "'$D' is left as it was given" \
  "$TEST_DIR/err"
"$C" --quiet --retries 0 "$SEED" "$D" 0 2>"$TEST_DIR/err"
check_eq "so the same command runs again, not 'already holds a crawl'" \
  "$?" 8
"$C" --retries 0 --warc "$TEST_DIR/failed.warc.gz" "$SEED" "$D" 0 \
  2>"$TEST_DIR/err"
check "with --warc, the WARC file goes too" test ! -e "$TEST_DIR/failed.warc.gz"
check "and stderr says so" grep -q "no marker, no journal, no WARC file" \
  "$TEST_DIR/err"

# A directory with a crawl's files but no marker (the rest removed by
# hand) is refused: a crawl would take them for its own, and one that
# saves nothing would remove them with its own.
for f in .journal .complete .noindex-3 .tmp-7; do
  fresh
  echo "the user's" >"$D/$f"
  expect "a directory holding $f is refused" 3 "$SEED" "$D" 0
  check "$f: the refusal names it" grep -qF "holds '$f', a crawl's file" \
    "$TEST_DIR/err"
  check_eq "$f: and leaves it" "$(cat "$D/$f")" "the user's"
done
# But not what a worker of a shared crawl starting at the same moment
# makes for an instant (its test of hard links, its marker on its way):
# four workers started at once had one refused (CI).
for f in .tmp-probe-12-345 .tmp-marker-host-12-345; do
  fresh
  : >"$D/$f"
  "$C" --retries 0 "$SEED" "$D" 0 >/dev/null 2>"$TEST_DIR/err"
  check_eq "$f (another worker's, for an instant): not refused" "$?" 8
done

# --resume with --warc appends to the WARC file the interrupted crawl
# wrote: a resumed crawl that saves nothing leaves that file alone.
fresh
"$C" --quiet --retries 5 --warc "$TEST_DIR/kept.warc" "$SEED" "$D" 0 \
  2>/dev/null &
cpid=$!
sleep 1.5 # robots.txt's retries wait 1, 2, 4 ... s: the crawl is in them
kill -INT "$cpid"
wait "$cpid"
check_eq "an unreachable seed interrupted in its retries: exit 5" "$?" 5
cp "$TEST_DIR/kept.warc" "$TEST_DIR/kept.orig"
check "its WARC file holds its warcinfo record" test -s "$TEST_DIR/kept.orig"
"$C" --retries 0 --resume --warc "$TEST_DIR/kept.warc" "$SEED" "$D" 0 \
  2>"$TEST_DIR/err"
check_eq "its --resume saves nothing either: exit 8" "$?" 8
check "the existing WARC file is kept, its records first" sh -c \
  "head -c \$(wc -c <'$TEST_DIR/kept.orig') '$TEST_DIR/kept.warc' |
   cmp -s - '$TEST_DIR/kept.orig'"
check "the directory is discarded, and stderr says to run without --resume" \
  grep -q "no crawl to resume now; run the command without --resume" \
  "$TEST_DIR/err"

# The checks of what the marker records need a crawl that saves its seed.
server_start "$SITES/course" || { not_ok "server starts"; finish; }
ROOT=$BASE_URL/
fresh
"$C" --quiet --rate 0 "${ROOT}index.html" "$D" 0 2>"$TEST_DIR/err"
check_eq "maxDepth 0 with a seed served saves it, and exits 0" "$?" 0
check "the marker is written" grep -qx 'tse-crawler pagedir 1' "$D/.crawler"
check "the marker records seed and depth" \
  grep -qx "seed: ${ROOT}index.html" "$D/.crawler"
check "one page saved" test -e "$D/1" -a ! -e "$D/2"
expect "a second crawl into the same directory is refused" 3 --quiet \
  --rate 0 "${ROOT}index.html" "$D" 0
check "it says the crawl there is complete, with its pages and time" grep -qE \
  "already holds a complete crawl \(1 page, finished [0-9T:-]+Z\)" \
  "$TEST_DIR/err"
"$C" --quiet --rate 0 --resume "${ROOT}index.html" "$D" 0 2>"$TEST_DIR/err"
check_eq "--resume of a complete crawl exits 0" "$?" 0
check "and says there is nothing to resume" \
  grep -q "holds a complete crawl (1 page, .*): nothing to resume" \
  "$TEST_DIR/err"
rm "$D/.complete"
expect "a crawl with other arguments into an interrupted one is refused" 3 \
  --quiet --rate 0 "${ROOT}A.html" "$D" 0
check "it names what differs, and prints no command that would fail" grep -qF \
  "made with 'seed: ${ROOT}index.html' where this command has 'seed: \
${ROOT}A.html': finish it with its own arguments and --resume" \
  "$TEST_DIR/err"
expect "a crawl into an interrupted one is refused" 3 --quiet --rate 0 \
  "${ROOT}index.html" "$D" 0
check "it prints the command that finishes it" grep -qF \
  "holds an interrupted crawl (1 page saved); finish it with: $C --resume \
'--quiet' '--rate' '0' '${ROOT}index.html' '$D' '0'" "$TEST_DIR/err"
fresh
"$C" --quiet --rate 1 "${ROOT}index.html" "$D" 5 &
cpid=$!
for _ in $(seq 100); do # 10 s at most; the crawl takes about 15 s
  [ -e "$D/1" ] && break
  sleep 0.1
done
expect "a crawl into one being written is refused" 3 "${ROOT}index.html" \
  "$D" 5
check "it names the crawler's process" grep -q \
  "holds a crawl being written now by process $cpid;" "$TEST_DIR/err"
kill -INT "$cpid"
wait "$cpid"
fresh
"$C" --quiet --retries 0 "$SEED" "$D" 1000
check_eq "maxDepth 1000 is accepted" "$?" 8

# Short options, as users type them.
"$C" -h >"$TEST_DIR/h" 2>&1
check_eq "-h is --help" "$?:$(head -n 1 "$TEST_DIR/h")" \
  "0:usage: crawler [options] seedURL pageDirectory maxDepth"
check_eq "-V is --version" "$("$C" -V | cut -d' ' -f1)" crawler
fresh
"$C" -q --retries 0 "$SEED" "$D" 0 2>"$TEST_DIR/err"
check_eq "-q is --quiet: only the reason is said" \
  "$?:$(wc -l <"$TEST_DIR/err")" "8:1"
expect "an unknown short option still is one" 1 -x "$SEED" "$D" 0

# The default User-Agent names no one to contact: a crawl that may reach
# beyond this machine is warned, once, naming --user-agent; one of
# loopback hosts only is not, nor a replay (it asks no host). The seed is
# the closed loopback port: no name is ever looked up.
fresh
"$C" --retries 0 --domain example.edu --domain 127.0.0.1 "$SEED" "$D" 0 \
  2>"$TEST_DIR/err"
check_eq "the default User-Agent, a --domain elsewhere: warned once" \
  "$(grep -c 'WARNING: the User-Agent names no one to contact' \
     "$TEST_DIR/err")" 1
check "the warning names --user-agent" grep -q -- "--user-agent '" \
  "$TEST_DIR/err"
fresh
"$C" --retries 0 --scope "$SEED" --scope http://docs.example.edu/ "$SEED" \
  "$D" 0 2>"$TEST_DIR/err"
check_eq "a --scope elsewhere: warned" \
  "$(grep -c 'WARNING: the User-Agent' "$TEST_DIR/err")" 1
for loop in 127.0.0.1 localhost localhost. a.localhost 127.1; do
  fresh
  "$C" --retries 0 --domain "$loop" --domain 127.0.0.1 "$SEED" "$D" 0 \
    2>"$TEST_DIR/err"
  check_eq "loopback only ($loop): not warned" \
    "$(grep -c 'WARNING: the User-Agent' "$TEST_DIR/err")" 0
done
E=$TEST_DIR/empty-saved
mkdir -p "$E"
printf 'tse-crawler pagedir 1\n' >"$E/.crawler"
fresh
"$C" --replay "$E" http://docs.example.edu/ "$D" 0 2>"$TEST_DIR/err"
check_eq "a replay asks no host: not warned" \
  "$(grep -c 'WARNING: the User-Agent' "$TEST_DIR/err")" 0
fresh
"$C" --retries 0 --user-agent "probe/1 (+http://example.invalid/)" \
  --domain example.edu --domain 127.0.0.1 "$SEED" "$D" 0 2>"$TEST_DIR/err"
check_eq "a User-Agent of one's own: not warned" \
  "$(grep -c 'WARNING: the User-Agent' "$TEST_DIR/err")" 0

# An IDN seed, and an IDN link: the crawler, like urlnorm, converts them
# to punycode whatever the user's locale (crawler.c, set_ctype_locale),
# and classifies bytes as in the C locale even where the user's does
# not. Replayed from a saved directory written here, so that nothing
# resolves the name.
IDN=http://b$(printf '\303\274')cher.example/
PUNY=http://xn--bcher-kva.example/
R=$TEST_DIR/saved
mkdir "$R"
printf 'tse-crawler pagedir 1\n' >"$R/.crawler"
printf '%s\n0\n<html><head><meta charset="utf-8">
<meta name="ROBOTS" content="NOINDEX"></head>
<body><a href="%stwo.html">2</a></body></html>\n' "$PUNY" "$IDN" >"$R/1"
printf '%stwo.html\n1\n<p>two</p>\n' "$PUNY" >"$R/2"
for loc in C.UTF-8 C; do
  check_eq "LC_ALL=$loc: urlnorm takes the IDN href" \
    "$(LC_ALL=$loc "$BIN/urlnorm" "$PUNY" "$IDN")" "$PUNY"
done
fresh
LC_ALL=C "$C" --quiet --replay "$R" "$IDN" "$D" 1 2>"$TEST_DIR/err"
# The seed is noindex: not saved, so exit 8, with its links followed.
check_eq "LC_ALL=C: the crawler takes the IDN seed" "$?" 8
check "the marker records its punycode form" \
  grep -qx "seed: $PUNY" "$D/.crawler"
check "and so does the default scope" grep -qx "scope: $PUNY" "$D/.crawler"
check "a meta robots NOINDEX keeps the seed out" test ! -e "$D/2"
check "the IDN link is followed" grep -qx "${PUNY}two.html" "$D/1"
FIRST=$D
same_under() {  # same_under LOCALE [ENV...]: the crawl, under LOCALE
  local loc=$1
  shift
  fresh
  env "$@" LC_ALL="$loc" \
    "$C" --quiet --replay "$R" "$IDN" "$D" 1 2>"$TEST_DIR/err"
  check_eq "LC_ALL=$loc: the crawler takes the IDN seed" "$?" 8
  check "LC_ALL=$loc: the same directory as under LC_ALL=C" \
    diff -r -x .lock "$FIRST" "$D"
}
same_under C.UTF-8
# tr_TR.UTF-8's tolower('I') is 'I': a case-blind "NOINDEX" would not
# be "noindex" there. Skipped where the locale cannot be built. Under
# LOCPATH, glibc's newlocale (called by libp11-kit as it loads) leaks
# its copy of the path, split by __argz_add_sep (the frame a fast unwind
# still shows): not ours, so LeakSanitizer is told to let it be.
if localedef -i tr_TR -f UTF-8 "$TEST_DIR/tr_TR.UTF-8" >/dev/null 2>&1; then
  printf 'leak:__newlocale\nleak:__argz_add_sep\n' >"$TEST_DIR/lsan.supp"
  same_under tr_TR.UTF-8 LOCPATH="$TEST_DIR:/usr/lib/locale" \
    LSAN_OPTIONS="suppressions=$TEST_DIR/lsan.supp"
else
  skip "LC_ALL=tr_TR.UTF-8: the crawl and its directory" \
    "localedef cannot build the locale"
fi

# 64 long --scope values: a marker of over 10 KiB, past the 8 KiB the
# resume check once read, resumes; a change in its last line is seen.
fresh
long=$ROOT$(printf '%0150d' 0)
scopes=(--scope "$ROOT")
for i in $(seq 63); do
  scopes+=(--scope "$long/$i/")
done
"$C" --quiet --rate 0 --retries 0 "${scopes[@]}" "$ROOT" "$D" 0
check_eq "64 scopes are accepted" "$?" 0
check "their marker is over 10 KiB" \
  test "$(wc -c <"$D/.crawler")" -gt 10240
"$C" --quiet --rate 0 --retries 0 --resume "${scopes[@]}" "$ROOT" "$D" 0 \
  2>"$TEST_DIR/err"
check_eq "a marker over 8 KiB resumes" "$?" 0
scopes[127]=${ROOT}other/
expect "resume with another last scope" 3 --resume "${scopes[@]}" \
  "$ROOT" "$D" 0
check "the refusal names the last scope" grep -qF \
  "with 'scope: $long/63/', this command asks for 'scope: ${ROOT}other/'" \
  "$TEST_DIR/err"

# No cap on --scope (there was one, of 64): a thousand and one are taken,
# recorded, and the seed found among them.
fresh
scopes=()
for i in $(seq 1000); do
  scopes+=(--scope "${ROOT}d$i/")
done
scopes+=(--scope "$ROOT")
"$C" --quiet --rate 0 --retries 0 "${scopes[@]}" "$ROOT" "$D" 0 2>"$TEST_DIR/err"
check_eq "1001 scopes are accepted" "$?" 0
check_eq "and recorded" "$(grep -c '^scope: ' "$D/.crawler")" 1001

# Domains: normalised, recorded in the marker after the scope lines, any
# number; resuming with other domains is refused as with another scope.
fresh
"$C" --quiet --rate 0 --retries 0 --domain 127.0.0.1 --domain Example.EDU. \
  --domain 127.1 "$ROOT" "$D" 0 2>"$TEST_DIR/err"
check_eq "--domain alone is a scope" "$?" 0
check_eq "the marker records the domains, normalised, and no default" \
  "$(grep -E '^(scope|domain): ' "$D/.crawler")" \
  "domain: 127.0.0.1
domain: example.edu
domain: 127.0.0.1"
"$C" --quiet --rate 0 --retries 0 --resume --domain 127.0.0.1 --domain example.edu \
  --domain 127.0.0.1 "$ROOT" "$D" 0 2>"$TEST_DIR/err"
check_eq "it resumes with the same domains, however spelt" "$?" 0
expect "resume with another domain" 3 --resume --domain 127.0.0.1 \
  --domain example.org --domain 127.0.0.1 "$ROOT" "$D" 0
check "the refusal names it" grep -qF "with 'domain: example.edu', this \
command asks for 'domain: example.org'" "$TEST_DIR/err"
expect "resume without the domains" 3 --resume "$ROOT" "$D" 0
check "the refusal names the first" grep -qF "with 'domain: 127.0.0.1', \
this command asks for 'scope: $ROOT'" "$TEST_DIR/err"
fresh
"$C" --quiet --rate 0 --retries 0 "$ROOT" "$D" 0
expect "resume with a domain added" 3 --resume --domain 127.0.0.1 "$ROOT" \
  "$D" 0

# What changes which pages a crawl saves, or how it asks for them, is
# recorded too: --ignore-robots, --respect-rel-nofollow, an explicit
# --user-agent (a marker without them is what it was before they were).
check_eq "a default marker records none of them" \
  "$(grep -cE '^(ignoreRobots|respectRelNofollow|userAgent): ' \
    "$D/.crawler")" 0
fresh
ua="probe/1 (+http://example.invalid/)"
"$C" --quiet --rate 0 --retries 0 --ignore-robots --respect-rel-nofollow \
  --user-agent "$ua" "$ROOT" "$D" 0 2>/dev/null
check_eq "a crawl with robots options runs" "$?" 0
check "the marker records --ignore-robots" grep -qx "ignoreRobots: yes" \
  "$D/.crawler"
check "and --respect-rel-nofollow" grep -qx "respectRelNofollow: yes" \
  "$D/.crawler"
check "and the user agent" grep -qxF "userAgent: $ua" "$D/.crawler"
"$C" --quiet --rate 0 --retries 0 --resume --ignore-robots --respect-rel-nofollow \
  --user-agent "$ua" "$ROOT" "$D" 0 2>/dev/null
check_eq "it resumes with the same ones" "$?" 0
"$C" --quiet --rate 0 --retries 0 --resume --respect-rel-nofollow \
  --user-agent "$ua" "$ROOT" "$D" 0 2>"$TEST_DIR/err"
check_eq "resume without --ignore-robots is refused" "$?" 3
check "the refusal names it" grep -qF "ignoreRobots: yes" "$TEST_DIR/err"
"$C" --quiet --rate 0 --retries 0 --resume --ignore-robots --user-agent "$ua" \
  "$ROOT" "$D" 0 2>/dev/null
check_eq "resume without --respect-rel-nofollow is refused" "$?" 3
"$C" --quiet --rate 0 --retries 0 --resume --ignore-robots --respect-rel-nofollow \
  "$ROOT" "$D" 0 2>/dev/null
check_eq "resume with the default user agent is refused" "$?" 3
finish
