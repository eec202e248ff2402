/* sitemap_test.c: unit tests for common/sitemap: urlsets and indexes,
 * gzip (one member and several), whitespace and CDATA, the limits, and
 * hostile XML refused before it can do harm: billion laughs, external
 * entities and DTDs, undeclared entity references. */
#include "sitemap.h"

#include <libxml/parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../testhelp.h"

/* What a read handed over: the LOCs joined by '|', and the kind. */
struct got {
  char s[4096];
  int kind, n, stop_after;
};

static int on_loc(void *arg, sitemap_kind_t kind, const char *loc)
{
  struct got *g = arg;
  g->kind = (int)kind;
  g->n++;
  size_t l = strlen(g->s);
  snprintf(g->s + l, sizeof(g->s) - l, "%s%s", l ? "|" : "", loc);
  return g->stop_after && g->n >= g->stop_after;
}

static int read_str(const char *doc, struct got *g, char *err, size_t n)
{
  memset(g, 0, sizeof(*g));
  return sitemap_read(doc, strlen(doc), on_loc, g, err, n);
}

static void test_urlset(void)
{
  char err[256];
  struct got g;
  const char *doc =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
    "  <url><loc>http://h/a.html</loc><lastmod>2026-01-01</lastmod></url>\n"
    "  <url>\n    <loc>\n   http://h/b?x=1&amp;y=2  \n</loc>\n  </url>\n"
    "  <url><loc><![CDATA[http://h/c.html]]></loc></url>\n"
    "  <url><loc></loc></url><url><loc/></url>\n"
    "  <image><loc>http://h/not-a-url-entry</loc></image>\n"
    "</urlset>\n";
  CHECK_INT(read_str(doc, &g, err, sizeof(err)), 0);
  CHECK_STR(g.s, "http://h/a.html|http://h/b?x=1&y=2|http://h/c.html");
  CHECK_INT(g.kind, SITEMAP_URLSET);
}

static void test_index(void)
{
  char err[256];
  struct got g;
  const char *doc = "<sitemapindex><sitemap><loc>http://h/s1.xml</loc>"
                    "</sitemap><sitemap><loc>http://h/s2.xml.gz</loc>"
                    "</sitemap></sitemapindex>";
  CHECK_INT(read_str(doc, &g, err, sizeof(err)), 0);
  CHECK_STR(g.s, "http://h/s1.xml|http://h/s2.xml.gz");
  CHECK_INT(g.kind, SITEMAP_INDEX);
  /* The callback may stop the reading: not an error. */
  memset(&g, 0, sizeof(g));
  g.stop_after = 1;
  CHECK_INT(sitemap_read(doc, strlen(doc), on_loc, &g, err, sizeof(err)), 0);
  CHECK_STR(g.s, "http://h/s1.xml");
}

/* gz: DOC gzip-compressed into OUT; if SPLIT, as two gzip members, the
 * first SPLIT bytes in one and the rest in the other. */
static size_t gz(const char *doc, unsigned char *out, size_t cap, size_t split)
{
  size_t total = 0, dl = strlen(doc);
  for (int m = 0; m <= (split > 0); m++) {
    z_stream z = { 0 };
    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (Bytef *)doc + (m ? split : 0);
    z.avail_in = (uInt)(split == 0 ? dl : m ? dl - split : split);
    z.next_out = out + total;
    z.avail_out = (uInt)(cap - total);
    deflate(&z, Z_FINISH);
    total = cap - z.avail_out;
    deflateEnd(&z);
  }
  return total;
}

static void test_gzip(void)
{
  char err[256];
  struct got g = { 0 };
  unsigned char z[1024];
  const char *doc = "<urlset><url><loc>http://h/z.html</loc></url></urlset>";
  size_t zl = gz(doc, z, sizeof(z), 0);
  CHECK_INT(sitemap_read((char *)z, zl, on_loc, &g, err, sizeof(err)), 0);
  CHECK_STR(g.s, "http://h/z.html");
  /* Cut short: an error, what came before it kept. */
  memset(&g, 0, sizeof(g));
  CHECK_INT(sitemap_read((char *)z, zl - 10, on_loc, &g, err, sizeof(err)), -1);
  /* Two members (a concatenated .gz): read as one document. */
  memset(&g, 0, sizeof(g));
  zl = gz(doc, z, sizeof(z), 20);
  CHECK_INT(sitemap_read((char *)z, zl, on_loc, &g, err, sizeof(err)), 0);
  CHECK_STR(g.s, "http://h/z.html");
}

static void test_refused(void)
{
  char err[256];
  struct got g;
  /* Billion laughs: refused before libxml2 reads the declarations. */
  const char *laughs =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n"
    " <!ENTITY lol \"lol\">\n"
    " <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
    " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
    "]>\n<urlset><url><loc>http://h/&lol3;</loc></url></urlset>";
  CHECK_INT(read_str(laughs, &g, err, sizeof(err)), -1);
  CHECK(strstr(err, "declaration") != NULL);
  CHECK_INT(g.n, 0);
  /* An external entity (XXE) and an external DTD. */
  const char *xxe = "<!DOCTYPE u [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                    "<urlset><url><loc>&x;</loc></url></urlset>";
  CHECK_INT(read_str(xxe, &g, err, sizeof(err)), -1);
  CHECK_INT(g.n, 0);
  const char *dtd = "<!DOCTYPE urlset SYSTEM \"http://127.0.0.1:1/x.dtd\">"
                    "<urlset/>";
  CHECK_INT(read_str(dtd, &g, err, sizeof(err)), -1);
  /* The declaration cut across feed's calls: still found (a long comment
   * first puts it past the reader's first read). */
  char big[9000];
  snprintf(big, sizeof(big), "<!--%*s-->\n<!DOCTYPE x []><urlset/>", 8000, "");
  CHECK_INT(read_str(big, &g, err, sizeof(err)), -1);
  CHECK(strstr(err, "declaration") != NULL);
  /* An undeclared entity: malformed, nothing expanded. */
  CHECK_INT(read_str("<urlset><url><loc>&x;</loc></url></urlset>", &g, err,
                     sizeof(err)),
            -1);
  /* Not a sitemap, empty, malformed. */
  CHECK_INT(read_str("<html><body>hi</body></html>", &g, err, sizeof(err)), -1);
  CHECK(strstr(err, "not a sitemap") != NULL);
  CHECK_INT(read_str("", &g, err, sizeof(err)), -1);
  CHECK_INT(read_str("<urlset><url><loc>http://h/a</loc></url>", &g, err,
                     sizeof(err)),
            -1);
  CHECK_STR(g.s, "http://h/a"); /* before the fault: kept */
}

/* What libxml2's reader would keep in memory or take long over, refused
 * before it reads them: many comments, processing instructions or CDATA
 * sections (it keeps them until their parent ends), a long tag (its
 * attributes are checked pairwise); each counted across feed's reads. */
static void test_costly(void)
{
  char err[256];
  struct got g;
  size_t cap = 40 * 1100 + 64;
  char *doc = malloc(cap);
  const char *kinds[] = { "<!-- a comment -->", "<?pi a?>" };
  for (int k = 0; k < 2; k++) {
    size_t l = (size_t)snprintf(doc, cap, "<urlset>");
    for (int i = 0; i < 1001; i++)
      l += (size_t)snprintf(doc + l, cap - l, "%s", kinds[k]);
    snprintf(doc + l, cap - l, "</urlset>");
    CHECK_INT(read_str(doc, &g, err, sizeof(err)), -1);
    CHECK(strstr(err, "over 1,000 comments") != NULL);
  }
  /* 1,000 are fine. */
  size_t l = (size_t)snprintf(doc, cap, "<urlset>");
  for (int i = 0; i < 999; i++)
    l += (size_t)snprintf(doc + l, cap - l, "<!-- c -->");
  snprintf(doc + l, cap - l, "<url><loc>http://h/a</loc></url></urlset>");
  CHECK_INT(read_str(doc, &g, err, sizeof(err)), 0);
  CHECK_STR(g.s, "http://h/a");
  free(doc);
  /* A tag of 300,000 attributes (440 s in libxml2): refused at 16 KB. */
  cap = 300000 * 12 + 64;
  doc = malloc(cap);
  l = (size_t)snprintf(doc, cap, "<urlset><url ");
  for (int i = 0; i < 300000; i++)
    l += (size_t)snprintf(doc + l, cap - l, "a%d=\"\" ", i);
  snprintf(doc + l, cap - l, "/></urlset>");
  CHECK_INT(read_str(doc, &g, err, sizeof(err)), -1);
  CHECK(strstr(err, "a tag over 16 KB") != NULL);
  free(doc);
}

static void test_limits(void)
{
  char err[256];
  struct got g;
  /* 50,001 locs: 50,000 handed over, then refused. */
  size_t cap = 60 * 50001 + 64, l = 0;
  char *doc = malloc(cap);
  l += (size_t)snprintf(doc + l, cap - l, "<urlset>");
  for (int i = 0; i < 50001; i++)
    l += (size_t)snprintf(doc + l, cap - l, "<url><loc>h%d</loc></url>", i);
  snprintf(doc + l, cap - l, "</urlset>");
  memset(&g, 0, sizeof(g));
  CHECK_INT(sitemap_read(doc, strlen(doc), on_loc, &g, err, sizeof(err)), -1);
  CHECK_INT(g.n, 50000);
  CHECK(strstr(err, "50,000") != NULL);
  free(doc);
  /* A loc longer than SITEMAP_MAX_LOC: skipped, the next one kept. */
  cap = SITEMAP_MAX_LOC + 200;
  doc = malloc(cap);
  l = (size_t)snprintf(doc, cap, "<urlset><url><loc>");
  memset(doc + l, 'a', SITEMAP_MAX_LOC + 1);
  l += SITEMAP_MAX_LOC + 1;
  snprintf(doc + l, cap - l,
           "</loc></url><url><loc>http://h/ok</loc></url>"
           "</urlset>");
  CHECK_INT(read_str(doc, &g, err, sizeof(err)), 0);
  CHECK_STR(g.s, "http://h/ok");
  free(doc);
  /* A gzip bomb: stops at SITEMAP_MAX_BYTES decompressed. */
  size_t big = (size_t)SITEMAP_MAX_BYTES + 4096;
  char *plain = malloc(big + 64);
  /* Elements of a kilobyte: each below libxml2's own text limits. */
  l = (size_t)snprintf(plain, 64, "<urlset>");
  while (l + 1024 < big) {
    memcpy(plain + l, "<x>", 3);
    memset(plain + l + 3, ' ', 1017);
    memcpy(plain + l + 1020, "</x>", 4);
    l += 1024;
  }
  plain[l] = '\0';
  unsigned char *z = malloc(big / 100 + 4096);
  size_t zl = gz(plain, z, big / 100 + 4096, 0);
  memset(&g, 0, sizeof(g));
  CHECK_INT(sitemap_read((char *)z, zl, on_loc, &g, err, sizeof(err)), -1);
  CHECK(strstr(err, "50 MB") != NULL);
  if (strstr(err, "50 MB") == NULL)
    fprintf(stderr, "the bomb's reason: %s\n", err);
  free(plain);
  free(z);
}

int main(void)
{
  xmlInitParser();
  RUN(test_urlset);
  RUN(test_index);
  RUN(test_gzip);
  RUN(test_refused);
  RUN(test_limits);
  RUN(test_costly);
  xmlCleanupParser();
  return TEST_EXIT();
}
