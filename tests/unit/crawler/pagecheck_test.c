/* pagecheck_test.c: unit tests for crawler/pagecheck (traps, binary
 * bodies, sniffing, the maxDepth robots meta check). */
#include "pagecheck.h"

#include "../../testhelp.h"

#include <stdlib.h>
#include <string.h>

#include "robots.h"

static void test_trap(void)
{
  CHECK(!pagecheck_trap("/"));
  CHECK(!pagecheck_trap("/a/b/c/d.html"));
  CHECK(!pagecheck_trap("/a/a/a/x.html"));
  CHECK(pagecheck_trap("/a/a/a/a/x.html"));
  CHECK(pagecheck_trap("/a/b/a/c/a/d/a"));
  CHECK(pagecheck_trap("//a//a/a///a/"));
  /* Whole segments, and the query does not count. */
  CHECK(!pagecheck_trap("/a/aa/a/aa/a/aa/x"));
  CHECK(!pagecheck_trap("/a/a/a?/a/a/a/a"));
  CHECK(!pagecheck_trap("/x?a/a/a/a"));
}

/* Only the first 256 segments are looked at. */
static void test_trap_long(void)
{
  char path[4096] = "";
  for (int i = 0; i < 256; i++)
    snprintf(path + strlen(path), sizeof(path) - strlen(path), "/s%d", i);
  CHECK(!pagecheck_trap(path));
  strcat(path, "/s1/s1/s1");
  CHECK(!pagecheck_trap(path));
}

static void test_binary(void)
{
  CHECK(!pagecheck_binary("", 0));
  CHECK(!pagecheck_binary("<html>hello</html>", 18));
  CHECK(pagecheck_binary("%PDF-1.7", 8));
  CHECK(pagecheck_binary("\x89PNG\r\n", 6));
  CHECK(pagecheck_binary("\x1f\x8b", 2));
  CHECK(!pagecheck_binary("\x1f", 1));
  CHECK(pagecheck_binary("<html>\0</html>", 14));
  /* UTF-16 with a byte-order mark is text, NULs and all. */
  CHECK(!pagecheck_binary("\xff\xfe<\0h\0", 6));
  CHECK(!pagecheck_binary("\xfe\xff\0<\0h", 6));
  /* A NUL after the first 1024 bytes is not looked for. */
  char *big = malloc(2048);
  CHECK(big != NULL);
  if (big != NULL) {
    memset(big, 'x', 2048);
    big[1024] = '\0';
    CHECK(!pagecheck_binary(big, 2048));
    big[1023] = '\0';
    CHECK(pagecheck_binary(big, 2048));
    free(big);
  }
}

static void test_mentions(void)
{
  const char b[] = "<META NAME=Robots content=none>";
  CHECK(pagecheck_mentions(b, sizeof(b) - 1, "robots"));
  CHECK(pagecheck_mentions(b, sizeof(b) - 1, "meta"));
  CHECK(!pagecheck_mentions(b, sizeof(b) - 1, "tse-crawler"));
  CHECK(pagecheck_mentions("robots", 6, "robots"));
  CHECK(!pagecheck_mentions("robots", 5, "robots"));
  CHECK(!pagecheck_mentions("", 0, "robots"));
  CHECK(pagecheck_mentions("xxrrobotS", 9, "robots"));
  /* A NUL never matches, and the bytes after it are still searched. */
  CHECK(!pagecheck_mentions("rob\0ts", 6, "robots"));
  CHECK(pagecheck_mentions("\0robots", 7, "robots"));
}

static fetch_result_t page(const char *body, const char *ctype,
                           const char *xrobots)
{
  fetch_result_t r = { .outcome = FETCH_OK, .status = 200 };
  r.body = (char *)body;
  r.len = strlen(body);
  r.content_type = (char *)ctype;
  r.x_robots_tag = (char *)xrobots;
  return r;
}

static void test_sniff(void)
{
  fetch_result_t r = page("<p>hi</p>", "text/html", NULL);
  pagecheck_kind_t k = pagecheck_sniff(&r, FORMAT_AUTO, "tse-crawler");
  CHECK(!k.binary && !k.text && k.robots == 0);
  r = page("a.html\n", "text/plain; charset=utf-8", "noindex");
  k = pagecheck_sniff(&r, FORMAT_AUTO, "tse-crawler");
  CHECK(!k.binary && k.text);
  CHECK_INT(k.robots, ROBOTS_NOINDEX);
  k = pagecheck_sniff(&r, FORMAT_HTML, "tse-crawler");
  CHECK(!k.text);
  k = pagecheck_sniff(&r, FORMAT_AUTO, NULL);  /* robots ignored */
  CHECK_INT(k.robots, 0);
  r = page("<p>hi</p>", "text/html", "otherbot: none, tse-crawler: none");
  k = pagecheck_sniff(&r, FORMAT_LINK, "tse-crawler");
  CHECK(k.text);
  CHECK_INT(k.robots, 0);  /* the first ':' names the agent (robots.h) */
  r = page("GIF89a", "text/plain", "none");
  k = pagecheck_sniff(&r, FORMAT_LINK, "tse-crawler");
  CHECK(k.binary && !k.text && k.robots == 0);
}

static void test_meta_robots(void)
{
  fetch_result_t r = page("<meta name=robots content=noindex>", NULL, NULL);
  CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), ROBOTS_NOINDEX);
  r = page("<meta name=TSE-Crawler content=nofollow>"
           "<meta name=robots content='otherbot: noindex'>", NULL, NULL);
  CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), ROBOTS_NOFOLLOW);
  r = page("<meta name=otherbot content=none><p>robots</p>", NULL, NULL);
  CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), 0);
  r = page("<meta name=tse-crawler content=none>", NULL, NULL);
  CHECK_INT(pagecheck_meta_robots(&r, ""), 0);  /* no agent to mention */
  r = page("<p>no metas</p>", "text/html; charset=latin1", NULL);
  CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), 0);
}

int main(void)
{
  RUN(test_trap);
  RUN(test_trap_long);
  RUN(test_binary);
  RUN(test_mentions);
  RUN(test_sniff);
  RUN(test_meta_robots);
  return TEST_EXIT();
}
