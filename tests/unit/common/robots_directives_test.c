/* robots_directives_test.c: unit tests for robots_directives (common/
 * robots.h): the meta robots and X-Robots-Tag values a crawler obeys. */
#include "robots.h"

#include "../../testhelp.h"

enum { NI = ROBOTS_NOINDEX, NF = ROBOTS_NOFOLLOW };

static const char agent[] = "tse-crawler";

static void test_words(void)
{
  CHECK_INT(robots_directives("noindex", agent), NI);
  CHECK_INT(robots_directives("nofollow", agent), NF);
  CHECK_INT(robots_directives("none", agent), NI | NF);
  CHECK_INT(robots_directives("noindex, nofollow", agent), NI | NF);
  CHECK_INT(robots_directives("NoIndex,NOFOLLOW", agent), NI | NF);
  CHECK_INT(robots_directives("index, follow", agent), 0);
  CHECK_INT(robots_directives("all", agent), 0);
  CHECK_INT(robots_directives("noarchive, nosnippet", agent), 0);
  CHECK_INT(robots_directives("", agent), 0);
  CHECK_INT(robots_directives(" , ,", agent), 0);
}

/* Whole words only: a directive ends at a comma, a space or a tab. */
static void test_separators(void)
{
  CHECK_INT(robots_directives("noindexx", agent), 0);
  CHECK_INT(robots_directives("xnoindex", agent), 0);
  CHECK_INT(robots_directives("nofollow noindex", agent), NI | NF);
  CHECK_INT(robots_directives("\tnoindex\t,\tnofollow", agent), NI | NF);
  CHECK_INT(robots_directives("\n noindex", agent), NI);
  /* A newline is skipped before a word but does not end one. */
  CHECK_INT(robots_directives("noindex\nnofollow", agent), 0);
}

static void test_agents(void)
{
  CHECK_INT(robots_directives("tse-crawler: noindex", agent), NI);
  CHECK_INT(robots_directives("  TSE-Crawler :nofollow", agent), NF);
  CHECK_INT(robots_directives("otherbot: noindex", agent), 0);
  CHECK_INT(robots_directives("tse-crawler2: noindex", agent), 0);
  CHECK_INT(robots_directives("tse: noindex", agent), 0);
  CHECK_INT(robots_directives("max-snippet:0", agent), 0);
  CHECK_INT(robots_directives(": none", ""), NI | NF);
  CHECK_INT(robots_directives("otherbot: none", ""), 0);
  CHECK_INT(robots_directives("none", ""), NI | NF);
  /* The first ':' decides (see NEEDSWORK in robots.c). */
  CHECK_INT(robots_directives("noindex, unavailable_after: 2030-01-01", agent),
            0);
}

int main(void)
{
  RUN(test_words);
  RUN(test_separators);
  RUN(test_agents);
  return TEST_EXIT();
}
