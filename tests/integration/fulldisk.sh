# fulldisk: a crawl into a page directory on a full file system (a small
# tmpfs) stops with exit status 6 and one line naming the directory and
# the error; every page it left is complete and the IDs have no gap; once
# there is room, --resume finishes the crawl into exactly the directory an
# uninterrupted crawl gives (the catalogue-d3 golden) and leaves no
# .tmp-* file behind. Needs root (or CAP_SYS_ADMIN) to mount the tmpfs;
# skipped otherwise.
. "$(dirname "$0")/lib.sh"
require_file "$BIN/crawler" "$TESTSERVER"
require_cmd mount umount
mktemp_dir
SAMPLES=$TOP/pageDirectory-samples
GOLDEN=$SAMPLES/catalogue-d3
DIR=$TEST_DIR/pages
mkdir "$DIR"

# The tmpfs must go whatever happens, before lib.sh's cleanup removes the
# temporary directory (rm -rf cannot remove a mount point). On a failure
# its pages are copied out first, so the kept directory shows them.
MOUNTED=0
fulldisk_umount() {
  [ "$MOUNTED" = 1 ] || return 0
  if [ "$TAP_FAILED" != 0 ] || [ "${KEEP_TMP:-0}" = 1 ]; then
    cp -a "$DIR" "$TEST_DIR/pages.kept" 2>/dev/null
  fi
  umount "$DIR" 2>/dev/null || umount -l "$DIR"
  MOUNTED=0
}
fulldisk_exit() {  # the EXIT trap: umount, then lib.sh's cleanup
  local rc=$?
  fulldisk_umount
  (exit "$rc")  # lib_cleanup exits with $?
  lib_cleanup
}
trap fulldisk_exit EXIT

if ! mount -t tmpfs -o size=300k tmpfs "$DIR" 2>"$TEST_DIR/mount.err"; then
  skip_all "cannot mount a tmpfs (needs root or CAP_SYS_ADMIN):" \
    "$(head -n 1 "$TEST_DIR/mount.err")"
fi
MOUNTED=1

server_start "$SITES/catalogue" || { not_ok "server starts"; finish; }
SEED=$BASE_URL/index.html
TOTAL=$(find "$GOLDEN" -maxdepth 1 -name '[0-9]*' | wc -l)

# --- The crawl runs out of space: 300 KiB hold about 70 of the 283 pages
# (4 KiB a page at least).
"$BIN/crawler" --rate 0 "$SEED" "$DIR" 3 >"$TEST_DIR/full.out" \
  2>"$TEST_DIR/full.err"
rc=$?
cat "$TEST_DIR/full.err" >&2
check_eq "a crawl onto a full disk exits 6" "$rc" 6
nospace=$(grep -c 'No space left on device' "$TEST_DIR/full.err")
check_eq "one line says 'No space left on device'" "$nospace" 1
check "that line names the page directory" \
  grep -F "'$DIR" "$TEST_DIR/full.err"

# Every page left is complete: page ID of the golden, port filled in.
n=$(find "$DIR" -maxdepth 1 -name '[0-9]*' | wc -l)
echo "# $n of $TOTAL pages fit" >&2
if [ "$n" -gt 0 ] && [ "$n" -lt "$TOTAL" ]; then
  ok "the disk filled after some pages ($n of $TOTAL)"
else
  not_ok "the disk filled after some pages ($n of $TOTAL)"
fi
check_eq "page IDs are 1..N with no gap" \
  "$(find "$DIR" -maxdepth 1 -name '[0-9]*' -printf '%f\n' | sort -n |
     tr '\n' ' ')" "$( [ "$n" -gt 0 ] && seq -s ' ' 1 "$n") "
bad=
for f in "$DIR"/[0-9]*; do
  [ -e "$f" ] || continue
  id=$(basename "$f")
  sed "s/127\.0\.0\.1:8000/127.0.0.1:$PORT/g" "$GOLDEN/$id" | cmp -s - "$f" ||
    bad="$bad $id"
done
check_eq "each page left equals the golden's page of that ID" "$bad" ""

# --- Room again: --resume finishes the crawl.
check "the tmpfs grows to 20 MiB" mount -o remount,size=20m "$DIR"
"$BIN/crawler" --rate 0 --resume "$SEED" "$DIR" 3 >"$TEST_DIR/resume.out" \
  2>"$TEST_DIR/resume.err"
rc=$?
cat "$TEST_DIR/resume.err" >&2
check_eq "--resume once there is room exits 0" "$rc" 0
check_eq "no .tmp-* file is left" \
  "$(find "$DIR" -name '.tmp-*' -printf '%f\n')" ""
# Compare without the port (as archive.sh does).
portless "$DIR" "$TEST_DIR/final"
check "the resumed crawl equals the uninterrupted one (catalogue-d3)" \
  diff -r "$GOLDEN" "$TEST_DIR/final"

server_stop
finish
