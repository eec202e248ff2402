# valgrind: the engine's unit test (crawl() over in-memory graphs, 1 to 64
# workers, hundreds of crawls) under valgrind's memcheck: no invalid access,
# no leak. Skipped where valgrind is missing and in sanitizer builds.
. "$(dirname "$0")/lib.sh"
require_cmd valgrind
case "$B" in */asan|*/tsan) skip_all "valgrind runs on the plain build" ;; esac
require_file "$B/tests/unit/engine/crawl_test"
mktemp_dir
CRAWL_TEST_SLOW=1 valgrind -q --leak-check=full --error-exitcode=9 \
  --errors-for-leak-kinds=definite,possible \
  "$B/tests/unit/engine/crawl_test" >"$TEST_DIR/out" 2>"$TEST_DIR/err"
rc=$?
cat "$TEST_DIR/err" >&2
check_eq "crawl_test under valgrind: no memory error or leak" \
  "$([ $rc = 9 ] && echo errors || echo clean)" clean
check_eq "crawl_test under valgrind: all its tests pass" \
  "$(grep -c '^not ok' "$TEST_DIR/out")" 0
finish
