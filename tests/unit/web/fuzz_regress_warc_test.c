/* fuzz_regress_warc_test.c: replay the warc fuzz target's kept inputs
 * (tests/fuzz/corpus/warc/, tests/fuzz/regressions/warc/) through its entry
 * function in the ordinary build, so `make test`, `make asan` and
 * `make tsan` keep every bug fuzzing found in web/warc.c fixed.
 *
 * A crawler-layer test: the warc target needs web/warc.c (libwebcrawl.a),
 * which tests/unit/common/fuzz_regress_test.c must not link; that test
 * replays the common-layer targets. */
#define FUZZ_WITH_CRAWLER 1
#include "../../fuzz/fuzz_replay.c"

static void test_warc(void)
{
  replay("warc");
}

int main(void)
{
  if (fuzz_setup() != 0)
    return 1;
  RUN(test_warc);
  fuzz_teardown();
  xmlCleanupParser();
  curl_global_cleanup();
  return TEST_EXIT();
}
