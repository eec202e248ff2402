# fullspill: a crawl whose --max-memory is so small that every queued URL
# and every link waits on disk, into a page directory on a file system
# that fills (a small tmpfs): the spill's writes fail as the pages' do.
# The crawl stops with exit status 6, every page left is complete, and
# once there is room --resume finishes into exactly the directory an
# uninterrupted crawl gives (catalogue-d3), leaving no .tmp-* file (the
# spill files included). As fulldisk.sh, needs root to mount the tmpfs.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd mount umount
mktemp_dir
GOLDEN=$TOP/pageDirectory-samples/catalogue-d3
DIR=$TEST_DIR/pages
mkdir "$DIR"
MOUNTED=0
fullspill_exit() {  # the EXIT trap: umount, then lib.sh's cleanup
  local rc=$?
  [ "$MOUNTED" = 1 ] && { umount "$DIR" 2>/dev/null || umount -l "$DIR"; }
  (exit "$rc")
  lib_cleanup
}
trap fullspill_exit EXIT
if ! mount -t tmpfs -o size=200k tmpfs "$DIR" 2>"$TEST_DIR/mount.err"; then
  skip_all "cannot mount a tmpfs (needs root or CAP_SYS_ADMIN):" \
    "$(head -n 1 "$TEST_DIR/mount.err")"
fi
MOUNTED=1
server_start "$SITES/catalogue" || { not_ok "server starts"; finish; }
SEED=$BASE_URL/index.html

"$BIN/crawler" --rate 0 --max-memory 1024 "$SEED" "$DIR" 3 \
  >/dev/null 2>"$TEST_DIR/full.err"
rc=$?
tail -n 4 "$TEST_DIR/full.err" >&2
check_eq "a spilling crawl onto a full disk exits 6" "$rc" 6
check "it says 'No space left on device'" \
  grep -q 'No space left on device' "$TEST_DIR/full.err"
n=$(find "$DIR" -maxdepth 1 -name '[0-9]*' | wc -l)
check_eq "page IDs are 1..N with no gap ($n pages)" \
  "$(find "$DIR" -maxdepth 1 -name '[0-9]*' -printf '%f\n' | sort -n |
     tr '\n' ' ')" "$( [ "$n" -gt 0 ] && seq -s ' ' 1 "$n") "
check_eq "no spill file is left" \
  "$(find "$DIR" -name '.tmp-*' -printf '%f\n')" ""

check "the tmpfs grows to 20 MiB" mount -o remount,size=20m "$DIR"
"$BIN/crawler" --rate 0 --max-memory 1024 --resume "$SEED" "$DIR" 3 \
  >/dev/null 2>"$TEST_DIR/resume.err"
rc=$?
tail -n 4 "$TEST_DIR/resume.err" >&2
check_eq "--resume once there is room exits 0" "$rc" 0
check_eq "no .tmp-* file is left" \
  "$(find "$DIR" -name '.tmp-*' -printf '%f\n')" ""
portless "$DIR" "$TEST_DIR/final"
check "the resumed crawl equals the uninterrupted one (catalogue-d3)" \
  diff -r "$GOLDEN" "$TEST_DIR/final"
server_stop
finish
