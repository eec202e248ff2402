# archive: replay of saved crawls (no server), compressed page files, and
# stop/resume: SIGINT then --resume, and kill -9 at random moments many
# times over one crawl, each time resuming, must end in the directory an
# uninterrupted crawl gives, byte for byte.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
mktemp_dir
SAMPLES=$TOP/pageDirectory-samples

# real SAMPLE PORT OUT: a golden directory with its port 8000 made PORT.
real() {
  mkdir -p "$3"
  local f
  for f in "$SAMPLES/$1"/* "$SAMPLES/$1/.crawler" "$SAMPLES/$1/.journal" \
    "$SAMPLES/$1/.complete"; do
    [ -e "$f" ] || continue
    sed "s/127\.0\.0\.1:8000/127.0.0.1:$2/g" "$f" >"$3/$(basename "$f")"
  done
}

# --- Replay: the goldens pin the crawler's behaviour without a server.
for c in course-d2:course-d2:2 course-d5:course-d5:5 course-d5:course-d2:2 \
         catalogue-d3:catalogue-d3:3 catalogue-d3:catalogue-d2:2; do
  IFS=: read -r from want depth <<<"$c"
  real "$from" 8000 "$TEST_DIR/saved-$from"
  real "$want" 8000 "$TEST_DIR/want-$want-$depth"
  out=$TEST_DIR/replay-$from-$depth
  mkdir "$out"
  "$BIN/crawler" --quiet --replay "$TEST_DIR/saved-$from" \
    --download-workers 4 http://127.0.0.1:8000/index.html "$out" "$depth"
  check_eq "replay $from at depth $depth exits 0" "$?" 0
  check "replay $from at depth $depth reproduces $want byte for byte" \
    diff -r "$TEST_DIR/want-$want-$depth" "$out"
done

# The samples replay as shipped, as README shows: no copy, no server.
mkdir "$TEST_DIR/shipped"
"$BIN/crawler" --quiet --replay "$SAMPLES/course-d5" \
  http://127.0.0.1:8000/index.html "$TEST_DIR/shipped" 2
check_eq "a sample replays as shipped" "$?" 0
check "and gives the sample of that depth byte for byte" \
  diff -r "$SAMPLES/course-d2" "$TEST_DIR/shipped"

# --- Compression: same pages inside gzip; replay reads them.
server_start "$SITES/course" || { not_ok "server starts"; finish; }
SEED=$BASE_URL/index.html
mkdir "$TEST_DIR/plain" "$TEST_DIR/gz"
"$BIN/crawler" --quiet --rate 0 "$SEED" "$TEST_DIR/plain" 5
"$BIN/crawler" --quiet --rate 0 --compress "$SEED" "$TEST_DIR/gz" 5
check_eq "--compress saves as many pages" "$(ls "$TEST_DIR/gz" | wc -l)" \
  "$(ls "$TEST_DIR/plain" | wc -l)"
bad=0
for f in "$TEST_DIR/plain"/*; do
  zcat "$TEST_DIR/gz/$(basename "$f")" | cmp -s - "$f" || bad=1
done
check_eq "zcat of each compressed page equals the plain page" $bad 0
plain_kb=$(du -sk --apparent-size "$TEST_DIR/plain" | cut -f1)
gz_kb=$(du -sk --apparent-size "$TEST_DIR/gz" | cut -f1)
echo "# course site: $plain_kb KiB plain, $gz_kb KiB compressed" >&2
mkdir "$TEST_DIR/fromgz"
"$BIN/crawler" --quiet --replay "$TEST_DIR/gz" "$SEED" "$TEST_DIR/fromgz" 5
check "replaying a compressed crawl gives the plain crawl" \
  diff -r -x .crawler "$TEST_DIR/plain" "$TEST_DIR/fromgz"
server_stop

# --- Resume. The catalogue at 150 requests/s takes about 2 s.
server_start "$SITES/catalogue" || { not_ok "server starts"; finish; }
SEED=$BASE_URL/index.html
portless() {  # portless DIR: compare form
  local f
  for f in "$1"/* "$1/.crawler" "$1/.journal" \
    "$1/.complete"; do
    [ -e "$f" ] && sed -i "s/127\.0\.0\.1:$PORT/127.0.0.1:8000/g" "$f"
  done
}
run() {  # run DIR [OPTIONS...]: crawl the catalogue to depth 3
  local dir=$1
  shift
  "$BIN/crawler" --quiet --rate 150 --burst 5 "$@" "$SEED" "$dir" 3
}
start() {  # start DIR [OPTIONS...]: the same in the background; PID in pid
  local dir=$1
  shift
  # Not through a function: $! must be the crawler itself.
  "$BIN/crawler" --quiet --rate 150 --burst 5 "$@" "$SEED" "$dir" 3 &
  pid=$!
}

mkdir "$TEST_DIR/int"
start "$TEST_DIR/int" 2>"$TEST_DIR/int.err"
sleep 0.7
kill -INT $pid
wait $pid
check_eq "SIGINT: exit status 5 (interrupted)" "$?" 5
check "SIGINT: says how to resume" grep -q -- "--resume" "$TEST_DIR/int.err"
n1=$(ls "$TEST_DIR/int" | wc -l)
check "SIGINT: some pages saved, not all ($n1)" test "$n1" -gt 0 -a "$n1" -lt 283
"$BIN/crawler" --quiet --resume --rate 0 "$SEED" "$TEST_DIR/int" 2 \
  2>"$TEST_DIR/bad.err"
check_eq "resume with another maxDepth is refused" "$?" 3
check "the refusal names the difference" grep -q 'maxDepth: 3' "$TEST_DIR/bad.err"
start "$TEST_DIR/int" --resume
sleep 0.3
"$BIN/crawler" --quiet --resume --rate 150 "$SEED" "$TEST_DIR/int" 3 \
  2>"$TEST_DIR/busy.err"
check_eq "a second crawler on a directory in use is refused" "$?" 3
check "and says why" grep -q 'being written by another crawler' \
  "$TEST_DIR/busy.err"
kill -INT $pid
wait $pid
run "$TEST_DIR/int" --resume --download-workers 3
check_eq "resume finishes" "$?" 0
portless "$TEST_DIR/int"
check "SIGINT + resume equals the uninterrupted crawl" \
  diff -r "$SAMPLES/catalogue-d3" "$TEST_DIR/int"

# kill -9 at random moments, resuming each time, until the crawl ends.
mkdir "$TEST_DIR/k9"
kills=0
opt=
for i in $(seq 60); do
  start "$TEST_DIR/k9" $opt 2>>"$TEST_DIR/k9.err"
  opt=--resume
  sleep "0.$(( RANDOM % 4 + 1 ))$(( RANDOM % 10 ))"
  if kill -0 $pid 2>/dev/null; then
    kill -KILL $pid
    wait $pid 2>/dev/null
    kills=$((kills + 1))
  else
    wait $pid
    rc=$?
    [ $rc = 0 ] && break
    echo "# crawl exited $rc" >&2
  fi
done
echo "# kill -9 test: $kills kills before the crawl completed" >&2
check "kill -9 happened several times ($kills)" test "$kills" -ge 3
run "$TEST_DIR/k9" --resume
check_eq "a final resume of a complete crawl succeeds" "$?" 0
portless "$TEST_DIR/k9"
check "kill -9 x $kills + resume equals the uninterrupted crawl" \
  diff -r "$SAMPLES/catalogue-d3" "$TEST_DIR/k9"
finish
