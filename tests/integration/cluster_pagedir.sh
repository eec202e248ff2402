# cluster_pagedir: a shared crawl writes only into the page directory it
# started in. Redis records the directory's marker (when and how it was
# made) as the crawl binds it; a worker given a directory the crawl has
# no record of, or another one, is refused (exit 3) and writes nothing.
# Review: after a Redis that came back empty, workers started again made
# a new crawl, and the second one cut a finished directory back to
# nothing; so did a new --crawl-name given an old directory. A crawler of
# its own given a live shared crawl's directory is told it is in use.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd redis-server redis-cli
mktemp_dir
redis_start || { not_ok "redis-server starts"; finish; }
cluster_site || { not_ok "server starts"; finish; }

# worker NAME DIR: one worker of crawl NAME into DIR, its exit status.
worker() {
  timeout 60 "$BIN/crawler" --quiet --cluster "$REDIS_URL" --crawl-name "$1" \
    "${CRAWL[@]}" "$SEED" "$2" 2 2>>"$TEST_DIR/$1.err"
}

D=$TEST_DIR/done
mkdir "$D"
worker c1 "$D"
check_eq "a shared crawl completes" "$?" 0
cp -a "$D" "$TEST_DIR/before"

# Redis comes back empty; a supervisor starts the workers again. The
# site has changed since: a crawl again would save other pages.
cp "$S/p1.html" "$TEST_DIR/p1.html"
echo "page 1, changed" >"$S/p1.html"
redis-cli -p "$REDIS_PORT" FLUSHALL >/dev/null
worker c1 "$D"
check_eq "after Redis came back empty, a worker is refused (exit 3)" "$?" 3
check "saying the directory holds pages the crawl has no record of" \
  grep -q "has no record of" "$TEST_DIR/c1.err"
worker c1 "$D"
check_eq "and so is the next one, which joins the new crawl (exit 3)" "$?" 3
check "the finished directory is untouched" diff -r "$TEST_DIR/before" "$D"
cp "$TEST_DIR/p1.html" "$S/p1.html"

# The same options under another name, given the old directory: the new
# crawl is running elsewhere.
E=$TEST_DIR/other
mkdir "$E"
"$BIN/crawler" --quiet --cluster "$REDIS_URL" --crawl-name c2 \
  "${CRAWL[@]}" "$SEED" "$E" 2 2>>"$TEST_DIR/c2.err" &
pid=$!
for _ in $(seq 1 300); do
  [ -e "$E/1" ] && break
  sleep 0.1
done
# A crawler of its own on the directory a shared crawl is writing: the
# workers hold its lock shared, so it is told the directory is in use
# (not "interrupted, resume with ..."), resume or not.
"$BIN/crawler" --quiet "${CRAWL[@]}" "$SEED" "$E" 2 2>"$TEST_DIR/plain.err"
check_eq "a crawler of its own on a live shared crawl's directory: exit 3" \
  "$?" 3
check "told it is being written now, by the worker's process" \
  grep -q "being written now by process $pid" "$TEST_DIR/plain.err"
"$BIN/crawler" --quiet --resume "${CRAWL[@]}" "$SEED" "$E" 2 \
  2>"$TEST_DIR/plainres.err"
check_eq "and with --resume: exit 3" "$?" 3
check "being written by another crawler" \
  grep -q "is being written by another crawler" "$TEST_DIR/plainres.err"
worker c2 "$D"
check_eq "a worker of another crawl given the old directory is refused" "$?" 3
check "saying it is not the crawl's directory" \
  grep -q "is not the page directory of crawl c2" "$TEST_DIR/c2.err"
check "the finished directory is still untouched" \
  diff -r "$TEST_DIR/before" "$D"
# A worker given an empty directory (another machine's mount missing).
F=$TEST_DIR/empty
mkdir "$F"
worker c2 "$F"
check_eq "a worker given an empty directory is refused" "$?" 3
check "and writes nothing there" test -z "$(ls -A "$F")"
wait $pid
check_eq "the crawl in its own directory completes" "$?" 0
check "identical to the first" diff -r "$TEST_DIR/before" "$E"

# The creator refused its directory (page 1 there), after creating the
# crawl in Redis: once the directory is empty, the next worker binds it.
G=$TEST_DIR/late
mkdir "$G"
: >"$G/1"
worker c3 "$G"
check_eq "a creator given a directory with a page is refused" "$?" 3
rm "$G/1"
worker c3 "$G"
check_eq "the next worker, given it empty, crawls" "$?" 0
check "into a page directory identical to the first" \
  diff -r "$TEST_DIR/before" "$G"
finish
