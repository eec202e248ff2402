# sites: crawl the bundled sites (course, catalogue) at every depth and
# compare with their expected (depth, path) sets, with the golden page
# directories in pageDirectory-samples/ byte for byte (the port written as
# {{port}}), and across worker counts. REGEN=1 rewrites the goldens.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
SAMPLES=$TOP/pageDirectory-samples

# pages DIR: "DEPTH<TAB>PATH" of every saved page, sorted.
pages() {
  local f
  for f in "$1"/*; do
    [ -f "$f" ] || continue
    printf '%s\t%s\n' "$(sed -n 2p "$f")" \
      "$(sed -n 1p "$f" | sed "s|^http://127.0.0.1:$PORT||")"
  done | sort
}

crawl() {  # crawl OUT DEPTH [OPTIONS...]
  local out=$1 depth=$2
  shift 2
  mkdir "$out"
  "$BIN/crawler" --quiet --rate 0 "$@" "$BASE_URL/index.html" "$out" "$depth"
}

golden() {  # golden NAME DIR: compare DIR with pageDirectory-samples/NAME
  portless "$2" "$TEST_DIR/portless-$1"
  if [ "${REGEN:-0}" = 1 ]; then
    rm -rf "${SAMPLES:?}/$1"
    cp -r "$TEST_DIR/portless-$1" "$SAMPLES/$1"
    echo "# rewrote $SAMPLES/$1" >&2
  fi
  check "$1 equals its golden directory byte for byte" \
    diff -r "$SAMPLES/$1" "$TEST_DIR/portless-$1"
}

# course: text/plain pages are pages for this crawler (the site's README
# lists HTML only), so notes.txt joins the set from depth 2 on.
server_start "$SITES/course" || { not_ok "server starts"; finish; }
E=$SITES/course/expected
for d in 0 1 2 3 4 5 6; do
  crawl "$TEST_DIR/course$d" $d
  want=$E/d$d.txt
  [ -f "$want" ] || want=$E/full.txt
  { cat "$want"; [ $d -ge 2 ] && printf '2\t/notes.txt\n'; } | sort \
    >"$TEST_DIR/want$d"
  pages "$TEST_DIR/course$d" >"$TEST_DIR/got$d"
  check_same "course depth $d: pages and depths" "$TEST_DIR/got$d" \
    "$TEST_DIR/want$d"
done
golden course-d2 "$TEST_DIR/course2"
golden course-d5 "$TEST_DIR/course5"
check_eq "course: the image is never requested" "$(log_count /logo.png)" 0
check_eq "course: nothing is requested twice in one crawl (7 crawls)" \
  "$(log_targets | sort | uniq -c | awk '$1 > 7' | wc -l)" 0
server_stop

server_start "$SITES/catalogue" || { not_ok "server starts"; finish; }
E=$SITES/catalogue/expected
for d in 0 1 2 3; do
  crawl "$TEST_DIR/cat$d" $d --download-workers 8 --parse-workers 2
  pages "$TEST_DIR/cat$d" >"$TEST_DIR/got$d"
  check_same "catalogue depth $d: pages and depths" "$TEST_DIR/got$d" "$E/d$d.txt"
done
check_eq "catalogue: nothing under /private/ is requested" \
  "$(log_targets | grep -c '^/private/')" 0
crawl "$TEST_DIR/cat3w1" 3 --download-workers 1 --parse-workers 1
crawl "$TEST_DIR/cat3w32" 3 --download-workers 32 --parse-workers 4 \
  --queue-size 8
check "catalogue: 1 and 8 workers give identical directories" \
  diff -r "$TEST_DIR/cat3w1" "$TEST_DIR/cat3"
check "catalogue: 32 workers and a queue of 8 give identical directories" \
  diff -r "$TEST_DIR/cat3w1" "$TEST_DIR/cat3w32"
# A queue of one URL (every slot counted: queued, on disk, speculative,
# being fetched) and a budget so small that every URL and link waits on
# disk: still the same crawl.
crawl "$TEST_DIR/cat3tight" 3 --download-workers 8 --queue-size 1 \
  --max-memory 1024
check "catalogue: a queue of 1 and a 1 KiB budget give identical directories" \
  diff -r "$TEST_DIR/cat3w1" "$TEST_DIR/cat3tight"
crawl "$TEST_DIR/cat3nob" 3 --download-workers 8 --queue-size 2 \
  --max-memory 0
check "catalogue: no budget and a queue of 2 give identical directories" \
  diff -r "$TEST_DIR/cat3w1" "$TEST_DIR/cat3nob"
check "catalogue: ... and leave no spill file" \
  sh -c "! ls -A '$TEST_DIR/cat3tight' | grep -q '^\.tmp-'"
golden catalogue-d2 "$TEST_DIR/cat2"
golden catalogue-d3 "$TEST_DIR/cat3"
finish
