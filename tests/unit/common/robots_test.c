/* robots_test.c: unit tests for common/robots (RFC 9309 parser+matcher). */
#include "robots.h"

#include "../../testhelp.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ok: parse txt (NUL-terminated) for agent and ask about path. */
static bool ok(const char *txt, const char *agent, const char *path)
{
  robots_t *r = robots_parse(txt, strlen(txt), agent);
  if (r == NULL) {
    fprintf(stderr, "robots_parse returned NULL\n");
    return false;
  }
  bool a = robots_allowed(r, path);
  robots_delete(r);
  return a;
}

static double delay(const char *txt, const char *agent)
{
  robots_t *r = robots_parse(txt, strlen(txt), agent);
  double d = robots_crawl_delay(r);
  robots_delete(r);
  return d;
}

/* RFC 9309 section 5.1, "Simple Example". */
static const char rfc_simple[] = "User-Agent: *\n"
                                 "Disallow: *.gif$\n"
                                 "Disallow: /example/\n"
                                 "Allow: /publications/\n"
                                 "\n"
                                 "User-Agent: foobot\n"
                                 "Disallow:/\n"
                                 "Allow:/example/page.html\n"
                                 "Allow:/example/allowed.gif\n"
                                 "\n"
                                 "User-Agent: barbot\n"
                                 "User-Agent: bazbot\n"
                                 "Disallow: /example/page.html\n"
                                 "\n"
                                 "User-Agent: quxbot\n"
                                 "\n"
                                 "EOF\n";

static void test_rfc_simple_example(void)
{
  /* foobot: everything but two pages disallowed */
  CHECK(!ok(rfc_simple, "foobot", "/"));
  CHECK(!ok(rfc_simple, "foobot", "/example/other.html"));
  CHECK(ok(rfc_simple, "foobot", "/example/page.html"));
  CHECK(ok(rfc_simple, "foobot", "/example/allowed.gif"));
  CHECK(!ok(rfc_simple, "foobot", "/publications/"));
  /* barbot and bazbot share one group */
  CHECK(!ok(rfc_simple, "barbot", "/example/page.html"));
  CHECK(!ok(rfc_simple, "bazbot", "/example/page.html"));
  CHECK(ok(rfc_simple, "bazbot", "/example/other.html"));
  CHECK(ok(rfc_simple, "barbot", "/x.gif")); /* not the "*" group */
  /* quxbot's group is empty: everything allowed, no fallback to "*" */
  CHECK(ok(rfc_simple, "quxbot", "/example/page.html"));
  CHECK(ok(rfc_simple, "quxbot", "/x.gif"));
  /* other bots: the "*" group; "*.gif$" never matches ("/" first) */
  CHECK(!ok(rfc_simple, "otherbot", "/example/page.html"));
  CHECK(ok(rfc_simple, "otherbot", "/publications/a"));
  CHECK(ok(rfc_simple, "otherbot", "/"));
}

/* RFC 9309 section 5.2, "Longest Match". */
static void test_rfc_longest_match(void)
{
  const char *t = "User-Agent: foobot\n"
                  "Allow: /example/page/\n"
                  "Disallow: /example/page/disallowed.gif\n";
  CHECK(ok(t, "foobot", "/example/page/"));
  CHECK(ok(t, "foobot", "/example/page/ok.gif"));
  CHECK(!ok(t, "foobot", "/example/page/disallowed.gif"));
  CHECK(ok(t, "foobot", "/elsewhere"));
}

/* RFC 9309 section 2.2.1: groups, merged groups, user-agent lists. */
static void test_rfc_groups(void)
{
  const char *t = "user-agent: a\n"
                  "disallow: /c\n"
                  "\n"
                  "user-agent: b\n"
                  "disallow: /d\n"
                  "\n"
                  "user-agent: e\n"
                  "user-agent: f\n"
                  "disallow: /g\n"
                  "\n"
                  "user-agent: h\n";
  CHECK(!ok(t, "a", "/c"));
  CHECK(ok(t, "a", "/d"));
  CHECK(!ok(t, "b", "/d"));
  CHECK(ok(t, "b", "/c"));
  CHECK(!ok(t, "e", "/g"));
  CHECK(!ok(t, "f", "/g"));
  CHECK(ok(t, "h", "/c"));
  CHECK(ok(t, "h", "/g"));

  const char *merged = "user-agent: ExampleBot\n"
                       "disallow: /foo\n"
                       "disallow: /bar\n"
                       "\n"
                       "user-agent: ExampleBot\n"
                       "disallow: /baz\n";
  CHECK(!ok(merged, "ExampleBot", "/foo"));
  CHECK(!ok(merged, "ExampleBot", "/bar"));
  CHECK(!ok(merged, "ExampleBot", "/baz"));
  CHECK(ok(merged, "ExampleBot", "/qux"));
}

static void test_specific_over_star(void)
{
  const char *t = "User-agent: *\n"
                  "Disallow: /\n"
                  "\n"
                  "User-agent: tse\n"
                  "Disallow: /private\n"
                  "\n"
                  "User-agent: *\n"
                  "Disallow: /also\n";
  CHECK(ok(t, "tse", "/public"));
  CHECK(!ok(t, "tse", "/private/x"));
  CHECK(ok(t, "tse", "/also")); /* "*" rules do not leak in */
  CHECK(!ok(t, "other", "/public"));
  CHECK(!ok(t, "other", "/also"));
  /* no "*" group and no match: everything allowed */
  CHECK(ok("User-agent: x\nDisallow: /\n", "tse", "/a"));
}

static void test_agent_matching(void)
{
  const char *t = "User-agent: TSE-Crawler/2.1 (+http://x)\n"
                  "Disallow: /a\n"
                  "User-agent: *\n"
                  "Disallow: /b\n";
  /* case-insensitive, leading token of the line's value */
  CHECK(!ok(t, "tse-crawler", "/a"));
  CHECK(ok(t, "tse-crawler", "/b"));
  CHECK(!ok(t, "TSE-CRAWLER", "/a"));
  /* our token given as a full UA string */
  CHECK(!ok(t, "TSE-Crawler/1.0 (+mailto:me)", "/a"));
  /* a prefix of our name is not our name */
  CHECK(ok(t, "tse", "/a"));
  CHECK(!ok(t, "tse", "/b"));
  CHECK(ok(t, "tse-crawler-ng", "/a"));
  /* NULL or empty token: only "*" */
  CHECK(ok(t, NULL, "/a"));
  CHECK(!ok(t, NULL, "/b"));
  CHECK(!ok(t, "", "/b"));
  /* spaced agent value */
  CHECK(!ok("User-agent:   tse   \nDisallow: /a\n", "tse", "/a"));
}

/* Google's documented precedence examples (developers.google.com,
 * "How Google interprets the robots.txt specification"). */
static void test_google_precedence(void)
{
  CHECK(ok("User-agent: *\nallow: /p\ndisallow: /\n", "x", "/page"));
  CHECK(ok("User-agent: *\nallow: /folder\ndisallow: /folder\n", "x",
           "/folder/page"));
  CHECK(!ok("User-agent: *\nallow: /page\ndisallow: /*.htm\n", "x",
            "/page.htm"));
  CHECK(ok("User-agent: *\nallow: /page\ndisallow: /*.ph\n", "x", "/page.php"));
  CHECK(ok("User-agent: *\nallow: /$\ndisallow: /\n", "x", "/"));
  CHECK(!ok("User-agent: *\nallow: /$\ndisallow: /\n", "x", "/page.htm"));
  /* the '$' counts towards the length, as written */
  CHECK(!ok("User-agent: *\nallow: /a\ndisallow: /a$\n", "x", "/a"));
  CHECK(ok("User-agent: *\nallow: /a\ndisallow: /a$\n", "x", "/ab"));
  /* order in the file does not matter */
  CHECK(ok("User-agent: *\ndisallow: /\nallow: /p\n", "x", "/page"));
}

static void test_wildcards_and_anchors(void)
{
  const char *t = "User-agent: *\n"
                  "Disallow: /*.php$\n"
                  "Disallow: /fish*.html\n"
                  "Disallow: /this/path/exactly$\n"
                  "Disallow: /a$b\n";
  CHECK(!ok(t, "x", "/index.php"));
  CHECK(!ok(t, "x", "/dir/sub/x.php"));
  CHECK(ok(t, "x", "/index.php?x=1"));
  CHECK(ok(t, "x", "/index.php5"));
  CHECK(!ok(t, "x", "/fish.html"));
  CHECK(!ok(t, "x", "/fishheads/cat.html?id=1"));
  CHECK(ok(t, "x", "/Fish.html")); /* paths are case-sensitive */
  CHECK(ok(t, "x", "/fish.htm"));
  CHECK(!ok(t, "x", "/this/path/exactly"));
  CHECK(ok(t, "x", "/this/path/exactly/more"));
  CHECK(!ok(t, "x", "/a$b")); /* non-final '$' is literal */
  CHECK(!ok(t, "x", "/a%24b"));
  CHECK(ok(t, "x", "/a"));
  CHECK(!ok("User-agent: *\nDisallow: /*\n", "x", "/anything"));
  CHECK(!ok("User-agent: *\nDisallow: *\n", "x", "/anything"));
  CHECK(!ok("User-agent: *\nDisallow: /a**b\n", "x", "/aXXb"));
  CHECK(ok("User-agent: *\nDisallow: /*/x/\n", "x", "/x/"));
  CHECK(!ok("User-agent: *\nDisallow: /*/x/\n", "x", "/a/b/x/"));
  /* prefix semantics: "/fish" covers "/fish.html" but not "/Fish" */
  CHECK(!ok("User-agent: *\nDisallow: /fish\n", "x", "/fish.html"));
  CHECK(ok("User-agent: *\nDisallow: /fish/\n", "x", "/fish"));
  /* "$" alone after a wildcard: exact end */
  CHECK(!ok("User-agent: *\nDisallow: /*.gif$\n", "x", "/a/b.gif"));
  CHECK(ok("User-agent: *\nDisallow: /*.gif$\n", "x", "/a/b.gif.png"));
}

/* RFC 9309 section 2.2.2 and 2.2.3: percent-encoding. */
static void test_percent_encoding(void)
{
  const char *u = "User-agent: *\n";
  char t[256];
  snprintf(t, sizeof t, "%sDisallow: /foo/bar/\xE3\x83\x84\n", u);
  CHECK(!ok(t, "x", "/foo/bar/%E3%83%84"));
  CHECK(!ok(t, "x", "/foo/bar/%e3%83%84"));
  CHECK(!ok(t, "x", "/foo/bar/\xE3\x83\x84"));
  CHECK(ok(t, "x", "/foo/bar/baz"));
  snprintf(t, sizeof t, "%sDisallow: /foo/bar/%%62%%61%%7A\n", u);
  CHECK(!ok(t, "x", "/foo/bar/baz"));
  CHECK(!ok(t, "x", "/foo/bar/%62az"));
  snprintf(t, sizeof t, "%sDisallow: /%%7Efoo\n", u);
  CHECK(!ok(t, "x", "/~foo"));
  snprintf(t, sizeof t, "%sDisallow: /~foo\n", u);
  CHECK(!ok(t, "x", "/%7Efoo"));
  CHECK(!ok(t, "x", "/%7efoo"));
  snprintf(t, sizeof t, "%sDisallow: /foo bar\n", u);
  CHECK(!ok(t, "x", "/foo%20bar"));
  CHECK(!ok(t, "x", "/foo bar"));
  CHECK(ok(t, "x", "/foo"));
  /* reserved characters stay distinct from their escapes */
  snprintf(t, sizeof t, "%sDisallow: /a%%2Fb\n", u);
  CHECK(!ok(t, "x", "/a%2fb"));
  CHECK(ok(t, "x", "/a/b"));
  snprintf(t, sizeof t, "%sDisallow: /foo/bar?baz=https%%3A%%2F%%2Ff\n", u);
  CHECK(!ok(t, "x", "/foo/bar?baz=https%3A%2F%2Ff"));
  /* RFC 9309 2.2.3: escaped specials match literal '*' and '$' only */
  snprintf(t, sizeof t,
           "%sDisallow: /path/file-with-a-%%2A.html\n"
           "Disallow: /path/foo-%%24\n",
           u);
  CHECK(!ok(t, "x", "/path/file-with-a-*.html"));
  CHECK(!ok(t, "x", "/path/file-with-a-%2a.html"));
  CHECK(ok(t, "x", "/path/file-with-a-b.html"));
  CHECK(!ok(t, "x", "/path/foo-$"));
  CHECK(ok(t, "x", "/path/foo-"));
  /* a stray '%' is an ordinary octet on both sides */
  snprintf(t, sizeof t, "%sDisallow: /100%%\n", u);
  CHECK(!ok(t, "x", "/100%"));
  CHECK(!ok(t, "x", "/100%25"));
  CHECK(ok(t, "x", "/100"));
  /* equivalent patterns tie, and allow wins the tie */
  snprintf(t, sizeof t, "%sAllow: /%%7Efoo\nDisallow: /~foo\n", u);
  CHECK(ok(t, "x", "/~foo"));
}

static void test_line_endings_and_syntax(void)
{
  CHECK(!ok("User-agent: *\r\nDisallow: /a\r\n", "x", "/a"));
  CHECK(ok("User-agent: *\r\nDisallow: /a\r\n", "x", "/b"));
  CHECK(!ok("User-agent: *\rDisallow: /a\rAllow: /a/b\r", "x", "/a"));
  CHECK(ok("User-agent: *\rDisallow: /a\rAllow: /a/b\r", "x", "/a/b"));
  CHECK(!ok("User-agent: *\nDisallow: /a", "x", "/a")); /* no final EOL */
  CHECK(!ok("\xEF\xBB\xBFUser-agent: *\nDisallow: /a\n", "x", "/a"));
  CHECK(ok("  DISALLOW : /x\n", "x", "/x")); /* no agent yet */
  CHECK(!ok("USER-AGENT:*\n  DISALLOW  :  /x  \n", "x", "/x"));
  CHECK(!ok("user-agent: *\n\tdisallow:\t/x\t# no /x!\n", "x", "/x"));
  CHECK(ok("user-agent: *\ndisallow: /x\n", "x", "/y"));
  CHECK(ok("# c\nuser-agent: * # all\n# c\ndisallow: # /x\n", "x", "/x"));
  /* comments, sitemaps, unknown keys and blanks do not end a group */
  const char *t = "User-agent: a\n"
                  "# comment\n"
                  "Sitemap: http://example.com/sitemap.xml\n"
                  "Foo: bar\n"
                  "\n"
                  "User-agent: b\n"
                  "Disallow: /x\n";
  CHECK(!ok(t, "a", "/x"));
  CHECK(!ok(t, "b", "/x"));
  /* a sitemap between rules does not end the group either */
  CHECK(!ok("User-agent: a\nDisallow: /x\nSitemap: /s\nDisallow: /y\n", "a",
            "/y"));
  /* a line without ':' is ignored, not fatal */
  CHECK(!ok("User-agent: *\nthis is junk\nDisallow: /x\n", "x", "/x"));
  /* "useragent" spelling */
  CHECK(!ok("useragent: *\nDisallow: /x\n", "x", "/x"));
}

static void test_empty_disallow_and_before_agent(void)
{
  CHECK(ok("User-agent: *\nDisallow:\n", "x", "/"));
  CHECK(ok("User-agent: *\nDisallow:   \n", "x", "/anything"));
  CHECK(ok("User-agent: *\nDisallow: # nothing\n", "x", "/anything"));
  CHECK(ok("Disallow: /\nUser-agent: *\nDisallow: /x\n", "x", "/y"));
  CHECK(!ok("Disallow: /\nUser-agent: *\nDisallow: /x\n", "x", "/x"));
  CHECK(ok("Disallow: /\n", "x", "/"));
  CHECK(ok("", "x", "/"));
  robots_t *r = robots_parse(NULL, 0, "x");
  CHECK(r != NULL);
  CHECK(robots_allowed(r, "/a"));
  robots_delete(r);
}

static void test_robots_txt_and_paths(void)
{
  const char *t = "User-agent: *\nDisallow: /\n";
  CHECK(ok(t, "x", "/robots.txt"));
  CHECK(!ok(t, "x", "/robots.txt.bak"));
  CHECK(!ok(t, "x", "/"));
  CHECK(!ok(t, "x", ""));
  CHECK(!ok(t, "x", NULL));
  CHECK(ok("User-agent: *\nDisallow: /a\n", "x", ""));
  CHECK(ok("User-agent: *\nDisallow: /a\n", "x", NULL));
  CHECK(!ok("User-agent: *\nDisallow: /$\n", "x", ""));
  /* a query without a path is a query on "/" */
  CHECK(!ok("User-agent: *\nDisallow: /?q\n", "x", "?q=1"));
  CHECK(!ok("User-agent: *\nDisallow: /*?\n", "x", "/a?b"));
  CHECK(ok("User-agent: *\nDisallow: /*?\n", "x", "/a"));

  CHECK(robots_allowed(NULL, "/anything"));
  robots_t *all = robots_allow_all();
  robots_t *none = robots_disallow_all();
  CHECK(all != NULL && none != NULL);
  CHECK(robots_allowed(all, "/a/b?c"));
  CHECK(!robots_allowed(none, "/a/b?c"));
  CHECK(!robots_allowed(none, "/"));
  CHECK(!robots_allowed(none, ""));
  CHECK(robots_allowed(none, "/robots.txt"));
  CHECK(robots_crawl_delay(all) < 0);
  CHECK(robots_crawl_delay(none) < 0);
  robots_delete(all);
  robots_delete(none);
  robots_delete(NULL);
}

static void test_crawl_delay(void)
{
  CHECK(delay("User-agent: *\nCrawl-delay: 5\n", "x") == 5.0);
  CHECK(delay("User-agent: *\nCrawl-delay: 0.5\n", "x") == 0.5);
  CHECK(delay("User-agent: *\ncrawl-DELAY :  2.25 # s\n", "x") == 2.25);
  CHECK(delay("User-agent: *\nCrawl-delay: 0\n", "x") == 0.0);
  CHECK(delay("User-agent: *\nCrawl-delay: fast\n", "x") < 0);
  CHECK(delay("User-agent: *\nCrawl-delay: -1\n", "x") < 0);
  CHECK(delay("User-agent: *\nCrawl-delay: 1e3\n", "x") < 0);
  CHECK(delay("User-agent: *\nCrawl-delay: .\n", "x") < 0);
  CHECK(delay("User-agent: *\nCrawl-delay:\n", "x") < 0);
  CHECK(delay("User-agent: *\nDisallow: /\n", "x") < 0);
  CHECK(delay("Crawl-delay: 3\nUser-agent: *\n", "x") < 0);
  /* an invalid line does not hide a later valid one */
  CHECK(delay("User-agent: *\nCrawl-delay: x\nCrawl-delay: 4\n", "x") == 4);
  /* the first valid value of the selected groups wins */
  CHECK(delay("User-agent: *\nCrawl-delay: 2\nCrawl-delay: 7\n", "x") == 2);
  CHECK(delay("User-agent: a\nDisallow: /\nUser-agent: a\n"
              "Crawl-delay: 3\n",
              "a") == 3);
  /* the selected group's value */
  const char *t = "User-agent: *\nCrawl-delay: 10\n\n"
                  "User-agent: tse\nCrawl-delay: 1.5\nDisallow: /a\n";
  CHECK(delay(t, "tse") == 1.5);
  CHECK(delay(t, "other") == 10);
  CHECK(delay("User-agent: tse\nDisallow: /a\n"
              "User-agent: *\nCrawl-delay: 10\n",
              "tse") < 0);
  CHECK(robots_crawl_delay(NULL) < 0);
}

/* Input larger than ROBOTS_MAX_BYTES: the head is honoured, the tail is
 * ignored, the line cut by the limit is dropped. */
static void test_huge_file(void)
{
  size_t n = ROBOTS_MAX_BYTES + 4096;
  char *t = malloc(n + 1);
  CHECK(t != NULL);
  if (t == NULL)
    return;
  const char *head = "User-agent: *\nDisallow: /head\n";
  size_t h = strlen(head);
  memcpy(t, head, h);
  /* fill with comment lines up to the limit */
  size_t pos = h;
  while (pos < n) {
    t[pos] = (pos % 64 == 63) ? '\n' : '#';
    pos++;
  }
  /* a rule straddling the limit, cut to "Allow: /head": applying the
   * cut line would wrongly allow "/head" (equal length, allow wins) */
  const char *cut = "\nAllow: /head/ok\n";
  size_t at = ROBOTS_MAX_BYTES - 1 - strlen("Allow: /head");
  memcpy(t + at, cut, strlen(cut));
  /* a rule well after the limit */
  const char *tail = "\nDisallow: /tail\n";
  memcpy(t + n - strlen(tail) - 10, tail, strlen(tail));
  t[n] = '\0';

  robots_t *r = robots_parse(t, n, "x");
  CHECK(r != NULL);
  CHECK(!robots_allowed(r, "/head"));
  CHECK(!robots_allowed(r, "/head/ok")); /* cut line dropped */
  CHECK(robots_allowed(r, "/tail"));     /* past the limit */
  robots_delete(r);

  /* the same rule wholly inside the limit is applied */
  memcpy(t + at - 100, cut, strlen(cut));
  r = robots_parse(t, n, "x");
  CHECK(r != NULL && robots_allowed(r, "/head/ok"));
  robots_delete(r);
  free(t);
}

static void test_binary_garbage(void)
{
  static const char bin[] =
    "\xFF\xFE\x00\x01garbage\x00\nUser-agent: *\n"
    "Disallow: /a\x00/b\n" /* NUL: line ignored */
    "\xC3\x28\xA0\xA1: \xF0\x28\x8C\x28\n"
    "Disallow: /\xFF\xFE\n" /* invalid UTF-8 path: kept */
    "Disallow: /c\n"
    "Disallow: /d # \x00 NUL in a comment is harmless\n"
    "\x80\x81\x82\n";
  robots_t *r = robots_parse(bin, sizeof bin - 1, "x");
  CHECK(r != NULL);
  CHECK(robots_allowed(r, "/a"));
  CHECK(robots_allowed(r, "/a%00/b"));
  CHECK(!robots_allowed(r, "/c"));
  CHECK(!robots_allowed(r, "/d"));
  CHECK(!robots_allowed(r, "/%FF%FE"));
  CHECK(!robots_allowed(r, "/\xFF\xFE"));
  CHECK(!robots_allowed(r, "/c\xFF"));
  robots_delete(r);

  /* pseudo-random bytes must not crash (ASan run catches overreads) */
  unsigned s = 12345;
  char *buf = malloc(65536);
  CHECK(buf != NULL);
  if (buf == NULL)
    return;
  for (int round = 0; round < 20; round++) {
    for (size_t i = 0; i < 65536; i++) {
      s = s * 1103515245u + 12345u;
      unsigned char c = (unsigned char)(s >> 16);
      /* bias towards syntax so rules actually get parsed */
      static const char pick[] = "\n\r:/*$%#aAuU-:";
      buf[i] = (c & 1) ? pick[(c >> 1) % (sizeof pick - 1)] : (char)c;
    }
    size_t len = 65536 - (size_t)round * 1000;
    robots_t *g = robots_parse(buf, len, "u");
    CHECK(g != NULL);
    (void)robots_allowed(g, "/a*b$c%2");
    (void)robots_crawl_delay(g);
    robots_delete(g);
  }
  free(buf);
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Hostile patterns must stay polynomial: a backtracking matcher takes
 * astronomically long here. */
static void test_pathological_fast(void)
{
  size_t n = 20000;
  char *path = malloc(n + 1);
  CHECK(path != NULL);
  if (path == NULL)
    return;
  path[0] = '/';
  memset(path + 1, 'a', n - 1);
  path[n] = '\0';
  const char *t = "User-agent: *\n"
                  "Disallow: /*a*a*a*a*a*a*a*a*a*a*a*a*b\n"
                  "Disallow: /*a*a*a*a*a*a*a*a*a*a*a*a*b$\n"
                  "Allow: /*a*a*a*a*a*a*a*a*a*a*a*a*a$\n";
  robots_t *r = robots_parse(t, strlen(t), "x");
  double t0 = now();
  CHECK(robots_allowed(r, path)); /* the allow rule matches */
  path[n - 1] = 'b';
  CHECK(!robots_allowed(r, path)); /* now the disallows match */
  path[n - 1] = 'c';
  CHECK(robots_allowed(r, path)); /* nothing matches */
  double el = now() - t0;
  CHECK(el < 1.0);
  if (el >= 1.0)
    fprintf(stderr, "pathological match took %.2f s\n", el);
  robots_delete(r);
  free(path);
}

/* A parsed robots_t is shared by all workers without a lock; under
 * SAN=thread this shows that queries only read it. */
static const robots_t *shared;
static const char *const qpaths[] = { "/a", "/a/b", "/c%7E", "/c~x", "/" };
static const bool qwant[] = { false, true, false, false, true };

static void *query_worker(void *arg)
{
  int *bad = arg;
  for (int i = 0; i < 2000; i++) {
    size_t k = (size_t)i % (sizeof qpaths / sizeof qpaths[0]);
    if (robots_allowed(shared, qpaths[k]) != qwant[k] ||
        robots_crawl_delay(shared) != 0.25)
      (*bad)++;
  }
  return NULL;
}

static void test_concurrent_queries(void)
{
  const char *t = "User-agent: *\nDisallow: /a\nAllow: /a/\n"
                  "Disallow: /c~\nCrawl-delay: 0.25\n";
  robots_t *r = robots_parse(t, strlen(t), "x");
  CHECK(r != NULL);
  if (r == NULL)
    return;
  shared = r;
  pthread_t th[4];
  int bad[4] = { 0 };
  int started = 0;
  for (int i = 0; i < 4; i++)
    if (pthread_create(&th[i], NULL, query_worker, &bad[i]) == 0)
      started++;
  CHECK_INT(started, 4);
  for (int i = 0; i < started; i++) {
    pthread_join(th[i], NULL);
    CHECK_INT(bad[i], 0);
  }
  robots_delete(r);
}

/* Sitemap: lines belong to no group, end none, and are kept in order. */
static void test_sitemaps(void)
{
  const char *txt = "Sitemap: http://h/s1.xml   # the first\n"
                    "User-agent: *\n"
                    "sitemap:http://h/s2.xml.gz\n"
                    "Disallow: /private\n"
                    "SITEMAP: \n"
                    "User-agent: other\n"
                    "Sitemap: http://h/s3.xml\n"
                    "Disallow: /\n";
  robots_t *r = robots_parse(txt, strlen(txt), "tse-crawler");
  CHECK(r != NULL);
  CHECK_INT(robots_sitemaps(r), 3);
  CHECK_STR(robots_sitemap(r, 0), "http://h/s1.xml");
  CHECK_STR(robots_sitemap(r, 1), "http://h/s2.xml.gz");
  CHECK_STR(robots_sitemap(r, 2), "http://h/s3.xml");
  CHECK(robots_sitemap(r, 3) == NULL);
  /* The sitemap line did not end the "*" group. */
  CHECK(!robots_allowed(r, "/private"));
  CHECK(robots_allowed(r, "/public"));
  robots_delete(r);
  /* At most ROBOTS_MAX_SITEMAPS. */
  char big[20000] = "";
  for (int i = 0; i < ROBOTS_MAX_SITEMAPS + 5; i++)
    snprintf(big + strlen(big), sizeof(big) - strlen(big),
             "Sitemap: http://h/%d.xml\n", i);
  r = robots_parse(big, strlen(big), NULL);
  CHECK_INT(robots_sitemaps(r), ROBOTS_MAX_SITEMAPS);
  robots_delete(r);
  r = robots_allow_all();
  CHECK_INT(robots_sitemaps(r), 0);
  robots_delete(r);
}

int main(void)
{
  RUN(test_sitemaps);
  RUN(test_rfc_simple_example);
  RUN(test_rfc_longest_match);
  RUN(test_rfc_groups);
  RUN(test_specific_over_star);
  RUN(test_agent_matching);
  RUN(test_google_precedence);
  RUN(test_wildcards_and_anchors);
  RUN(test_percent_encoding);
  RUN(test_line_endings_and_syntax);
  RUN(test_empty_disallow_and_before_agent);
  RUN(test_robots_txt_and_paths);
  RUN(test_crawl_delay);
  RUN(test_huge_file);
  RUN(test_binary_garbage);
  RUN(test_pathological_fast);
  RUN(test_concurrent_queries);
  return TEST_EXIT();
}
