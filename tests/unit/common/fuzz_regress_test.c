/* fuzz_regress_test.c: replay every fuzz input kept in the tree through the
 * same entry functions the libFuzzer targets use (tests/fuzz/
 * fuzz_targets.c), in the ordinary build, so `make test`, `make asan` and
 * `make tsan` keep every bug fuzzing once found fixed. The replay itself
 * (which inputs, where from) is tests/fuzz/fuzz_replay.c; this test takes
 * the common-layer targets, tests/unit/web/fuzz_regress_warc_test.c
 * the crawler-layer one. */
#include "../../fuzz/fuzz_replay.c"

static void test_links_html(void)
{
  replay("links_html");
}
static void test_links_text(void)
{
  replay("links_text");
}
static void test_url(void)
{
  replay("url");
}
static void test_robots(void)
{
  replay("robots");
}
static void test_sitemap(void)
{
  replay("sitemap");
}
static void test_pagedir(void)
{
  replay("pagedir");
}

int main(void)
{
  if (fuzz_setup() != 0)
    return 1;
  RUN(test_links_html);
  RUN(test_links_text);
  RUN(test_url);
  RUN(test_robots);
  RUN(test_sitemap);
  RUN(test_pagedir);
  fuzz_teardown();
  xmlCleanupParser();
  curl_global_cleanup();
  return TEST_EXIT();
}
