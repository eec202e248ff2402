# seeds: --seed and --seeds. Every seed at depth 0 after seedURL, IDs in
# the order given, each seed's site in the default scope, a repeated seed
# once; the marker records them, so --resume with others is refused; a
# bad seed is refused before anything is written; exit 8 only when no
# seed was saved; the same crawl twice gives the same directory.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
server_start "$SITES/catalogue" --host 127.0.0.1 --host 127.0.0.2 ||
  { not_ok "server starts"; finish; }
H1=http://127.0.0.1:$PORT
H2=http://127.0.0.2:$PORT

crawl() {  # crawl NAME DEPTH ARGS...: into $TEST_DIR/NAME; status in RC
  local name=$1 depth=$2
  shift 2
  mkdir -p "$TEST_DIR/$name"
  RC=0
  "$BIN/crawler" --rate 0 "$@" "$TEST_DIR/$name" "$depth" \
    2>"$TEST_DIR/$name.err" || RC=$?
}
heads() {  # heads DIR: "URL DEPTH" of each page, in ID order
  local i=1
  while [ -f "$1/$i" ]; do
    printf '%s %s\n' "$(sed -n 1p "$1/$i")" "$(sed -n 2p "$1/$i")"
    i=$((i + 1))
  done
}

printf '# the seeds\n\n  %s  \n%s\n# again: once\n%s\n' \
  "$H2/category/poetry/index.html" "$H1/about.html" "$H1/about.html" \
  >"$TEST_DIR/list"
crawl two 1 --seed "$H2/index.html" --seeds "$TEST_DIR/list" \
  "$H1/index.html"
check_eq "two hosts: exit 0" "$RC" 0
check_eq "the seeds first, at depth 0, in the order given, each once" \
  "$(heads "$TEST_DIR/two" | head -n 4)" \
  "$H1/index.html 0
$H2/index.html 0
$H2/category/poetry/index.html 0
$H1/about.html 0"
check_eq "then depth 1, no seed again" \
  "$(heads "$TEST_DIR/two" | tail -n +5 | awk '$2 != 1' | wc -l)" 0
check "the links of the second host's seed are followed" \
  grep -q "^$H2/category/music/index.html 1\$" <(heads "$TEST_DIR/two")
check_eq "the marker records every seed, seedURL first" \
  "$(grep '^seed: ' "$TEST_DIR/two/.crawler" | tr '\n' ' ')" \
  "seed: $H1/index.html seed: $H2/index.html seed: $H2/category/poetry/index.html seed: $H1/about.html "
crawl again 1 --seed "$H2/index.html" --seeds "$TEST_DIR/list" \
  "$H1/index.html"
check "the same crawl again: the same directory" \
  diff -r "$TEST_DIR/two" "$TEST_DIR/again"
# --resume into 'two' with fewer seeds: refused, naming the difference.
"$BIN/crawler" --rate 0 --resume --seed "$H2/index.html" "$H1/index.html" \
  "$TEST_DIR/two" 1 2>"$TEST_DIR/res.err"
check_eq "--resume with other seeds: exit 3" "$?" 3
check "naming a seed" grep -q "seed: " "$TEST_DIR/res.err"

crawl half 0 --seed "$H1/nope.html" "$H1/index.html"
check_eq "one seed of two not saved: exit 0" "$RC" 0
check "the summary names it" \
  grep -q "1 of 2 seeds not saved; the first, '$H1/nope.html': HTTP 404" \
  "$TEST_DIR/half.err"
crawl none 0 --seed "$H1/nope2.html" "$H1/nope.html"
check_eq "no seed saved: exit 8" "$RC" 8
check "saying none was" grep -q "none of the 2 seeds was saved" \
  "$TEST_DIR/none.err"
check_eq "and leaving the directory as it was" \
  "$(ls -A "$TEST_DIR/none" | wc -l)" 0

printf '%s\nnot a url\n' "$H1/about.html" >"$TEST_DIR/bad"
crawl badfile 1 --seeds "$TEST_DIR/bad" "$H1/index.html"
check_eq "a bad line in --seeds: exit 2" "$RC" 2
check "naming the file and line" grep -q -- "--seeds $TEST_DIR/bad:2" \
  "$TEST_DIR/badfile.err"
printf '%s # a comment after it\n%s %s\n' "$H1/about.html" "$H1/a" \
  "$H1/b" >"$TEST_DIR/two-words"
crawl words 1 --seeds "$TEST_DIR/two-words" "$H1/index.html"
check_eq "two URLs on a line: exit 2 (a comment after a URL is fine)" "$RC" 2
check "naming the line" grep -q -- "--seeds $TEST_DIR/two-words:2: .* is more than one URL" \
  "$TEST_DIR/words.err"
printf '%s\0junk\n' "$H1/about.html" >"$TEST_DIR/nul.txt"
crawl nul 1 --seeds "$TEST_DIR/nul.txt" "$H1/index.html"
check_eq "a NUL byte in --seeds: exit 2" "$RC" 2
crawl queue 1 --queue-size 2 --seed "$H1/a.html" --seed "$H1/b.html" \
  "$H1/index.html"
check_eq "more seeds than --queue-size: refused (exit 1), not a hang" "$RC" 1
# 100,000 seeds: read and deduplicated in well under a second each ten
# thousand (review: comparing each with all before took 13 s for 80,000).
for i in $(seq 100000); do echo "$H1/p$((i % 50000)).html"; done >"$TEST_DIR/many.txt"
start=$(date +%s)
crawl many 0 --seeds "$TEST_DIR/many.txt" --max-pages 1 "$H1/index.html"
took=$(( $(date +%s) - start ))
printf '# 100,000 seeds: %s s\n' "$took" >&2
check_eq "100,000 seeds (50,000 distinct): exit 0" "$RC" 0
check_eq "the marker records the distinct ones" \
  "$(grep -c '^seed: ' "$TEST_DIR/many/.crawler")" 50001
check "in less than 60 s (generous: about 1 s here)" test "$took" -lt 60
crawl nofile 1 --seeds "$TEST_DIR/missing" "$H1/index.html"
check_eq "a missing --seeds file: exit 2" "$RC" 2
crawl outside 1 --scope "$H1/category/" --seed "$H1/category/index.html" \
  "$H1/category/poetry/index.html" --seed "$H2/about.html"
check_eq "a seed outside --scope: exit 2" "$RC" 2
check "naming it" grep -q "seed '$H2/about.html' is outside the scope" \
  "$TEST_DIR/outside.err"
crawl shared 1 --cluster redis://127.0.0.1:1 --crawl-name x \
  --seed "$H2/index.html" "$H1/index.html"
check_eq "--seed with --cluster: exit 1" "$RC" 1
check_eq "none of the refused writes anything" \
  "$(ls -A "$TEST_DIR/badfile" "$TEST_DIR/nofile" "$TEST_DIR/outside" \
    "$TEST_DIR/shared" "$TEST_DIR/words" "$TEST_DIR/nul" \
    "$TEST_DIR/queue" | grep -vc ':$\|^$')" 0
finish
