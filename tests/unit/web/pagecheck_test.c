/* pagecheck_test.c: unit tests for web/pagecheck (traps, binary
 * bodies, sniffing, the maxDepth robots meta check). */
#include "pagecheck.h"

#include "../../testhelp.h"

#include <stdlib.h>
#include <string.h>

#include "links.h"
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

/* full_parse: the robots metas a parse of R finds (what the crawl sees
 * below maxDepth). */
static int on_meta(void *arg, const char *name, const char *content)
{
  (void)name;
  *(unsigned *)arg |= robots_directives(content, "tse-crawler");
  return 0;
}

static unsigned full_parse(const fetch_result_t *r, const char *agent)
{
  unsigned d = 0;
  links_sink_t sink = { .meta_robots = on_meta,
                        .meta_agent = agent,
                        .arg = &d };
  char cs[64];
  links_scan_html(r->body, r->len,
                  fetch_charset(r->content_type, cs, sizeof(cs)), &sink);
  return d;
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
  /* As a parser reads it: numeric character references count. */
  static const char *const yes[] = {
    "&#114;obots", "&#X52;OBOTS",    "&#x0072;&#x6f;bots",
    "rob&#111;ts", "&#0000114obots", "&#82;&#79;&#66;&#79;&#84;&#83;",
    "&#;robots",   "&amp;robots",    "&&#114;obots",
    "robot&#115",
  };
  for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
    CHECK(pagecheck_mentions(yes[i], strlen(yes[i]), "robots"));
  static const char *const no[] = {
    "&#1114;obots", "&#114",        "&#x;obots",
    "&#114;0bots",  "robot&#1155;", "&#10000000000000000000114;obots",
    "&r;obots",
  };
  for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
    CHECK(!pagecheck_mentions(no[i], strlen(no[i]), "robots"));
  CHECK(pagecheck_mentions("TSE&#45;Crawler", 15, "tse-crawler"));
}

static bool possible(const char *body, const char *charset)
{
  return pagecheck_meta_possible(body, strlen(body), charset, "tse-crawler");
}

static void test_meta_possible(void)
{
  CHECK(!possible("<p>hello</p>", NULL));
  CHECK(!possible("<meta charset=utf-8><p>x</p>", "ISO-8859-1"));
  CHECK(!possible("<meta http-equiv=content-type "
                  "content='text/html; charset = \"windows-1252\"'>",
                  NULL));
  CHECK(!possible("<meta name=viewport content=width=device-width>", NULL));
  CHECK(possible("<meta name=tse-crawler content=none>", NULL));
  CHECK(possible("<meta name=&#114;obots content=noindex>", NULL));
  CHECK(possible("<meta name=TSE&#45;crawler content=noindex>", NULL));
  /* Not ASCII-compatible, or not known to be. */
  CHECK(possible("\xff\xfe<\0p\0>\0", NULL));
  CHECK(pagecheck_meta_possible("\xfe\xff\0<", 4, NULL, ""));
  CHECK(pagecheck_meta_possible("<p>\0</p>", 8, NULL, ""));
  CHECK(possible("<p>x</p>", "utf-16"));
  CHECK(possible("<p>x</p>", "IBM037"));
  CHECK(possible("<p>x</p>", "utf-7"));
  CHECK(possible("<meta charset=IBM037>", NULL));
  CHECK(possible("<meta http-equiv=content-type content="
                 "'text/html; charset=cp037'>",
                 NULL));
  CHECK(possible("<meta charset=&#73;BM037>", "utf-8"));
  CHECK(possible("<meta &#99;harset=ebcdic-us>", NULL));
  CHECK(possible("<meta charset=>", NULL));
  /* Only the attributes of meta tags count: words in the text, in other
   * tags or past a meta tag's end do not. */
  CHECK(!possible("<p>robots</p><meta charset=utf-8>", NULL));
  CHECK(!possible("<meta name=viewport><p>tse-crawler, robots</p>", NULL));
  CHECK(!possible("<p>charset=ebcdic</p>", NULL));
  CHECK(!possible("<a title=robots href=x>", NULL));
  CHECK(!possible("<metarobots name=robots>", NULL));
  CHECK(!possible("<meta name=x>robots", NULL));
  CHECK(!possible("<meta name='x'>'robots'", NULL));
  CHECK(!possible("<meta", NULL));
  CHECK(!possible("robots<meta", NULL));
  CHECK(possible("<meta content='a>b' name=robots>", NULL));
  CHECK(possible("<meta content=\"a>b\" name=robots>", NULL));
  CHECK(possible("<META\nNAME=ROBOTS CONTENT=NONE>", NULL));
  CHECK(possible("<meta/name=robots content=none>", NULL));
  CHECK(possible("<meta x=a\"b name=robots content=none>", NULL));
  CHECK(possible("<meta name = \"robots\" content=none>", NULL));
  CHECK(possible("<p>x</p><meta charset=x-user-defined>", NULL));
  /* A tag cut off by the end of the page is no tag, but the check may
   * still say yes. */
  CHECK(possible("<meta name=robots", NULL));
}

/* The check is complete: wherever a full parse finds a robots meta,
 * pagecheck_meta_possible says one may be there. Each page has one that
 * the HTML parser reads, through references or UTF-16. */
static void test_meta_ebcdic(void)
{
  /* <meta name=robots content=none> in EBCDIC (IBM037): the Encoding
   * standard has no such label, so a browser, and we, read
   * windows-1252 and see no meta. */
  static const char eb[] =
    "\x4c\x94\x85\xa3\x81\x40\x95\x81\x94\x85\x7e\x99\x96\x82\x96"
    "\xa3\xa2\x40\x83\x96\x95\xa3\x85\x95\xa3\x7e\x95\x96\x95\x85\x6e";
  fetch_result_t r = { .outcome = FETCH_OK,
                       .status = 200,
                       .body = (char *)eb,
                       .len = sizeof eb - 1,
                       .content_type = "text/html; charset=IBM037" };
  CHECK_INT(full_parse(&r, "tse-crawler"), 0);
  CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), 0);
}

static void test_meta_possible_complete(void)
{
  static const struct {
    const char *body;
    size_t len;
    const char *cs;
  } pages[] = {
#define P(s, cs) { s, sizeof(s) - 1, cs }
    P("<meta name=robots content=noindex>", NULL),
    P("<meta name=\"&#114;obots\" content=\"noindex\">", NULL),
    P("<meta name='&#x52;&#x4F;&#x42;&#x4F;&#x54;&#x53;' content=none>", NULL),
    P("<meta name=&#0114obots content=noindex>", "utf-8"),
    P("<meta name=tse&#45;crawler content=noindex>", NULL),
    P("<meta name=TSE-CRAWLER content=nofollow>", "windows-1252"),
    /* a meta tag's extent as the tokenizer reads it */
    P("<p>robots</p><meta title='a>b' name=robots content=none>", NULL),
    P("<meta title=\"a>b\" name=\"robots\" content=noindex>", NULL),
    P("<META\r\nNAME=ROBOTS CONTENT=NONE>", NULL),
    P("<meta/name=robots content=none>", NULL),
    P("<meta x=a\"b name=robots content=none>", NULL),
    P("<meta x='y'name=robots content=none>", NULL),
    P("<meta =x name=robots content=none>", NULL),
    P("<meta name = robots content = none >", NULL),
    P("<meta name=x><meta\tname=robots content=none>", NULL),
    /* a "<meta" that is no tag (in a comment, in a value) whose extent,
     * read as a tag's, would swallow the start of the real one */
    P("<!-- <meta x=' --><meta x='>' name=robots content=noindex>", NULL),
    P("<a title=\"<meta x='\"><meta x='>' name=robots content=none>", NULL),
    P("\xff\xfe<\0m\0e\0t\0a\0 \0n\0a\0m\0e\0=\0r\0o\0b\0o\0t\0s\0"
      " \0c\0o\0n\0t\0e\0n\0t\0=\0n\0o\0n\0e\0>\0",
      NULL),
    P("<\0m\0e\0t\0a\0 \0n\0a\0m\0e\0=\0r\0o\0b\0o\0t\0s\0"
      " \0c\0o\0n\0t\0e\0n\0t\0=\0n\0o\0n\0e\0>\0",
      "utf-16le"),
  /* (EBCDIC, IBM037, was here while libxml2 parsed pages: the HTML
   * standard's parser knows no EBCDIC label, so a parse finds nothing
   * there now, and test_meta_ebcdic checks just that.) */
#undef P
  };
  for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
    fetch_result_t r = { .outcome = FETCH_OK,
                         .status = 200,
                         .body = (char *)pages[i].body,
                         .len = pages[i].len };
    char ct[64];
    snprintf(ct, sizeof(ct), "text/html; charset=%s",
             pages[i].cs ? pages[i].cs : "");
    r.content_type = pages[i].cs ? ct : "text/html";
    unsigned found = full_parse(&r, "tse-crawler");
    if (found == 0)
      fprintf(stderr, "page %zu: no robots meta found\n", i);
    CHECK(found != 0); /* each page has one, as a parser reads it */
    if (found != 0 &&
        !pagecheck_meta_possible(r.body, r.len, pages[i].cs, "tse-crawler")) {
      fprintf(stderr,
              "page %zu: a parse finds a robots meta, the check "
              "says none can be there\n",
              i);
      CHECK(!"complete");
    }
    /* And the maxDepth check gives the parse's answer. */
    CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), found);
  }
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
  k = pagecheck_sniff(&r, FORMAT_AUTO, NULL); /* robots ignored */
  CHECK_INT(k.robots, 0);
  r = page("<p>hi</p>", "text/html", "otherbot: none, tse-crawler: none");
  k = pagecheck_sniff(&r, FORMAT_LINK, "tse-crawler");
  CHECK(k.text);
  CHECK_INT(k.robots, 0); /* the first ':' names the agent (robots.h) */
  r = page("GIF89a", "text/plain", "none");
  k = pagecheck_sniff(&r, FORMAT_LINK, "tse-crawler");
  CHECK(k.binary && !k.text && k.robots == 0);
}

static void test_meta_robots(void)
{
  fetch_result_t r = page("<meta name=robots content=noindex>", NULL, NULL);
  CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), ROBOTS_NOINDEX);
  r = page("<meta name=TSE-Crawler content=nofollow>"
           "<meta name=robots content='otherbot: noindex'>",
           NULL, NULL);
  CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), ROBOTS_NOFOLLOW);
  r = page("<meta name=otherbot content=none><p>robots</p>", NULL, NULL);
  CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), 0);
  r = page("<meta name=tse-crawler content=none>", NULL, NULL);
  CHECK_INT(pagecheck_meta_robots(&r, ""), 0); /* no agent to mention */
  r = page("<p>no metas</p>", "text/html; charset=latin1", NULL);
  CHECK_INT(pagecheck_meta_robots(&r, "tse-crawler"), 0);
}

int main(void)
{
  RUN(test_trap);
  RUN(test_trap_long);
  RUN(test_binary);
  RUN(test_mentions);
  RUN(test_meta_possible);
  RUN(test_meta_possible_complete);
  RUN(test_meta_ebcdic);
  RUN(test_sniff);
  RUN(test_meta_robots);
  return TEST_EXIT();
}
