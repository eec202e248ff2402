/* links_diff_test.c: differential test of the markup elision in
 * common/links_elide.c. Every page below is scanned twice, with the
 * elision (links_scan_html_test(..., true, ...), which is
 * links_scan_html()) and without it (tags false); the return codes and
 * the whole sequence of callbacks (links with flags, base, metas, in
 * order) must be identical.
 *
 * Pages: every HTML file of the Python and PostgreSQL documentation
 * trees (Debian's python3.11-doc and postgresql-doc-15, when installed:
 * the bench's real pages), every file under tests/fixtures, the fuzz
 * corpus and regression inputs of links_html (read both as fuzz_targets.c
 * does and as a plain page), and the hostile pages of hostile[] below with
 * each of their prefixes. Each with several charsets and with sinks that
 * stop after the first few items. TOP comes from the environment (tests/
 * run.sh exports it), else the current directory.
 *
 * Also checks that the elision does happen (the bytes handed to libxml2
 * shrink) on the documentation pages, so that a model that gives up
 * everywhere cannot pass for an exact one. */
#include "links.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>

#include "../../testhelp.h"

/* What one scan reported: one line per item, "L<flags> href", "B href"
 * or "M name=content"; stop_after > 0 stops the scan at that item. */
typedef struct rec {
  char *buf;
  size_t len, cap;
  size_t items, stop_after;
} rec_t;

static void rec_put(rec_t *r, const char *s)
{
  size_t n = strlen(s);
  if (r->len + n + 1 > r->cap) {
    size_t cap = r->cap ? r->cap : 4096;
    while (cap < r->len + n + 1)
      cap *= 2;
    char *b = realloc(r->buf, cap);
    if (b == NULL) {
      fprintf(stderr, "links_diff: out of memory\n");
      exit(1);
    }
    r->buf = b;
    r->cap = cap;
  }
  memcpy(r->buf + r->len, s, n + 1);
  r->len += n;
}

static int rec_item(rec_t *r, const char *kind, const char *a, const char *b)
{
  rec_put(r, kind);
  rec_put(r, a);
  if (b != NULL) {
    rec_put(r, "=");
    rec_put(r, b);
  }
  rec_put(r, "\n");
  r->items++;
  return r->stop_after != 0 && r->items >= r->stop_after;
}

static int on_link(void *arg, const char *href, int flags)
{
  return rec_item(arg, flags ? "L1 " : "L0 ", href, NULL);
}

static int on_base(void *arg, const char *href)
{
  return rec_item(arg, "B ", href, NULL);
}

static int on_meta(void *arg, const char *name, const char *content)
{
  return rec_item(arg, "M ", name, content);
}

/* Totals per source of pages. */
typedef struct tally {
  const char *what;
  size_t files, scans, diffs, elided; /* elided: scans fed fewer bytes */
  size_t bytes, fed_plain, fed_tags;  /* over the scans */
} tally_t;

/* Scan body both ways with charset and stop; count a difference. */
static void compare(tally_t *t, const char *name, const char *body, size_t len,
                    const char *charset, size_t stop)
{
  rec_t r[2];
  int rc[2];
  size_t fed[2];
  for (int tags = 0; tags < 2; tags++) {
    memset(&r[tags], 0, sizeof r[tags]);
    r[tags].stop_after = stop;
    rec_put(&r[tags], "");
    links_sink_t sink = { on_link, on_base, on_meta, "tsebot", &r[tags] };
    rc[tags] = links_scan_html_test(body, len, charset, &sink, tags,
                                    &fed[tags]);
  }
  t->scans++;
  t->bytes += len;
  t->fed_plain += fed[0];
  t->fed_tags += fed[1];
  if (fed[1] < fed[0])
    t->elided++;
  if (rc[0] != rc[1] || strcmp(r[0].buf, r[1].buf) != 0) {
    t->diffs++;
    if (t->diffs <= 5) {
      fprintf(stderr, "links_diff: %s (charset %s, stop %zu): rc %d vs %d\n",
              name, charset ? charset : "none", stop, rc[0], rc[1]);
      if (len < 300) {
        fprintf(stderr, "--- page:\n");
        for (size_t i = 0; i < len; i++) {
          unsigned char c = (unsigned char)body[i];
          fprintf(stderr, c >= 0x20 && c < 0x7f ? "%c" : "\\x%02x", c);
        }
        fprintf(stderr, "\n");
      }
      fprintf(stderr, "--- without tag elision:\n%s--- with:\n%s---\n",
              r[0].buf, r[1].buf);
    }
  }
  free(r[0].buf);
  free(r[1].buf);
}

/* The charsets each small page is tried with: none (libxml2 detects),
 * the ones the elision covers, and some it does not (it must then stay
 * out of the way). */
static const char *const charsets[] = {
  NULL,       "utf-8",   "ISO-8859-1", "windows-1252", "Shift_JIS",
  "EUC-JP",   "gbk",     "Big5",       "koi8-r",       "utf-16",
  "UTF-16BE", "gb18030", "UTF-7",      "ISO-2022-JP",  "x-no-such-charset",
  "",
};
#define NCHARSETS (sizeof charsets / sizeof charsets[0])

/* A small page: every charset, and sinks that stop after the first few
 * items with some of them. */
static void compare_all(tally_t *t, const char *name, const char *body,
                        size_t len)
{
  for (size_t c = 0; c < NCHARSETS; c++)
    for (size_t stop = 0; stop < (c < 7 ? 4 : 1); stop++)
      compare(t, name, body, len, charsets[c], stop);
}

/* A prefix of a small page: fewer charsets (iconv is slow to set up). */
static void compare_some(tally_t *t, const char *name, const char *body,
                         size_t len)
{
  static const char *const some[] = { NULL, "utf-8", "Shift_JIS", "Big5" };
  for (size_t c = 0; c < sizeof some / sizeof some[0]; c++)
    for (size_t stop = 0; stop < 2; stop++)
      compare(t, name, body, len, some[c], stop);
}

static char *read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 65536;
      char *b = realloc(buf, cap);
      if (b == NULL) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = b;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

typedef void (*page_fn)(tally_t *t, const char *path, const char *body,
                        size_t len);

static int has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Call fn on every regular file under dir (only names ending in suffix,
 * if not NULL), in directory order. Returns -1 if dir does not exist. */
static int walk(tally_t *t, const char *dir, const char *suffix, page_fn fn)
{
  DIR *d = opendir(dir);
  if (d == NULL)
    return -1;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      (void)walk(t, path, suffix, fn);
      continue;
    }
    if (!S_ISREG(st.st_mode) || (suffix != NULL && !has_suffix(path, suffix)))
      continue;
    size_t len = 0;
    char *body = read_file(path, &len);
    CHECK(body != NULL);
    if (body == NULL)
      continue;
    t->files++;
    fn(t, path, body, len);
    free(body);
  }
  closedir(d);
  return 0;
}

/* A documentation page: as the bench scans it (no charset), with a
 * charset, and with stops; plus cut short at a few places. */
static void doc_page(tally_t *t, const char *path, const char *body, size_t len)
{
  compare(t, path, body, len, NULL, 0);
  compare(t, path, body, len, "utf-8", 0);
  compare(t, path, body, len, NULL, 1 + t->files % 7);
  if (t->files % 5 == 0) {
    compare(t, path, body, len, "windows-1252", 0);
    compare(t, path, body, len, "Shift_JIS", 0);
  }
  if (t->files % 10 == 0)
    for (size_t cut = len / 7; cut < len; cut += len / 7 + 1)
      compare(t, path, body, cut, NULL, 0);
}

static void small_page(tally_t *t, const char *path, const char *body,
                       size_t len)
{
  compare_all(t, path, body, len);
}

/* A links_html fuzz input: as fuzz_targets.c reads it (byte 0 picks the
 * charset, byte 1 when to stop), and as a plain page. */
static void fuzz_page(tally_t *t, const char *path, const char *body,
                      size_t len)
{
  static const char *const fcs[] = {
    NULL,     "utf-8",    "ISO-8859-1", "windows-1252", "Shift_JIS",
    "utf-16", "UTF-16BE", "euc-jp",     "koi8-r",       "x-no-such-charset",
    "",       "gb18030",
  };
  size_t pick = len > 0 ? (unsigned char)body[0] : 0;
  size_t stop = len > 1 ? (unsigned char)body[1] % 8 : 0;
  size_t skip = len < 2 ? len : 2;
  compare(t, path, body + skip, len - skip,
          fcs[pick % (sizeof fcs / sizeof fcs[0])], stop);
  compare_all(t, path, body, len);
}

/* Hostile pages: everything the model of links_elide.c must follow
 * exactly or give up on. Each also goes in with every prefix of itself. */
static const char *const hostile[] = {
  /* quotes holding '>' and '<', in dropped and kept tags */
  "<span title='a>b'><a href=1></span><a href=2>",
  "<div class=\"x>\"><a href=\"y>\">t</a></div><a href=3>",
  "<p title=\"<a href=4>\"><a href=5></p>",
  "<span a=\"x\" b='y' c=z d><a href=6 rel=nofollow>x</a></span>",
  "<span a=\"x'\"b='y\"' ><a href=7></span>",
  "<span title=x>y><a href=8>",
  "<span\ttitle\n=\r\n\"x\"\n><a\nhref\n=\n9\n></span\n>",
  /* unterminated tags, attributes without values, odd attributes */
  "<div class=\"x\"><a href=10",
  "<span class=\"x",
  "<span class=x",
  "<span <a href=11>",
  "<span/class=\"x\"><a href=12></span>",
  "<span \"q\"><a href=13></span>",
  "<span =x><a href=14>",
  "<span a=><a href=15>",
  "<span a= b><a href=16>",
  "<br/><br /><br clear=/><a href=17/><a href=18>",
  "<span disabled checked><a href=19>",
  "<span a=b/><a href=20>",
  /* <a> inside raw text, comments, titles, textareas */
  "<script><a href=21></script><a href=22>",
  "<script>document.write('<span><a href=23>')</script><span><a href=24>",
  "<style>a{}</style x><a href=25><STYLE>b</Style><a href=26>",
  "<script>x</scriptx><span><a href=27></script><a href=28>",
  "<div><scripts></div><script>x</scripts><a href=29>",
  "<scripts><div></div><script>x</scripts><a href=30>",
  "<script>x</SCRIPT foo <a href=31> ><a href=32>",
  "<script/><span><a href=33>",
  "<script src=x></script><span class=c><a href=34></span>",
  "<script>unterminated <span><a href=35>",
  "<title><a href=36></title><textarea><span><a href=37></textarea>",
  "<xmp><span><a href=38></xmp><noscript><a href=39></noscript>",
  "<!-- <a href=40> --><span><a href=41>",
  "<!-- --!> <span><a href=42> -->",
  "<!--> <span><a href=43> --><a href=44>",
  "<!---> <span><a href=45> -->",
  "<!----><span><a href=46>",
  "<!-- - -- > --><span><a href=47>",
  "<!-- unterminated <span><a href=48>",
  "<!-- <span-->--><a href=49>",
  /* uppercase and mixed case names */
  "<SPAN CLASS=X><A HREF=50></SPAN><DiV><a HrEf=51></dIv>",
  "<META NAME=ROBOTS CONTENT=NOFOLLOW><Base Href=/b/><AREA HREF=52>",
  /* '<' inside attribute values and text */
  "<span title=\"a<b\"><a href=53></span>",
  "<span title=a<b><a href=54>",
  "x < y <span><a href=55> 1<2 <a href=56>",
  "<<span><a href=57>",
  "<1 <span><a href=58>",
  "< span><a href=59>",
  "</ span><a href=60></><span><a href=61>",
  "</span foo <a href=62>><a href=63>",
  "<!foo <span><a href=64>><a href=65>",
  "<![CDATA[<span><a href=66>]]><a href=67>",
  "<?xml version=\"1.0\"?><span><a href=68>",
  "<? x <span><a href=69>",
  "<?x <span><a href=70>",
  "<!DOCTYPE html><span><a href=71>",
  "<!doctype html PUBLIC \"-//W3C//DTD XHTML 1.0//EN\" \"x.dtd\">"
  "<span><a href=72>",
  "<!DOCTYPE x \"a>b\"><span><a href=73>",
  "<!DOCTYPE x <span><a href=74>",
  /* <meta charset> and http-equiv after dropped tags */
  "<span><meta charset=\"iso-8859-1\"><span class=\"\xe9\"><a href=\"/\xe9\">",
  "<div><meta charset=shift_jis><span><a href=\"/\x82\xa0\"></span>",
  "<p><meta http-equiv=Content-Type content=\"text/html; charset=koi8-r\">"
  "<span><a href=\"/\xc1\"></span>",
  "<p><meta http-equiv=\"content-type\" content=\"text/html; charset = "
  "euc-jp\"><span><a href=\"/\xa4\xa2\"></span>",
  "<span><meta charset=\"x-mac-roman\"><span><a href=\"/\xe9\"></span>",
  "<span><meta charset=\"utf-16\"><span><a href=x></span>",
  "<span><meta charset=\"&#117;tf-7\"><span><a href=\"+AOk-\"></span>",
  "<span><meta content=\"charset=ibm037\" http-equiv=content-type>"
  "<span><a href=y></span>",
  "<span><meta charset=ebcdic-us charset=utf-8><span><a href=z></span>",
  "<span class=\"http-equiv content charset=koi8-r\">"
  "<a href=\"\xc3\xa9\xff\">",
  "<a href=\"/\xc3\xa9\"><span title=\"http-equiv content charset=koi8-r\">"
  "</span><a href=\"/\xc3\xa9\">",
  "<p>\xc3\xa9<span title=\"HTTP-EQUIV CONTENT CHARSET=ibm037\"></span>"
  "<a href=\"/\xc3\xa9\">",
  "<div><span class=x><meta name=x content=\"\xc3\xa9\" charset=utf-8>"
  "<span title=\"http-equiv content charset=koi8-r\"></span><a href=\"/\xe9\">",
  "<meta charset=utf-8><p>\xe9<span title=\"http-equiv content charset=koi8-r"
  "\"></span><a href=\"/\xc3\xa9\"><b>\xff</b><a href=\"/\xe9\">",
  "<b>caf\xe9</b><span><a href=\"/caf\xc3\xa9\"></span>",
  "<b>\xc3</b><span>\xa9<a href=\"/\xc3\xa9\"></span>",
  "<p>\x82<span>\xa0</span><a href=\"/\x82\xa0\">",
  "<p>a+<span>AOk-</span><a href=\"/+AOk-\">",
  "<p>\x81\x30<span>\x81\x30</span><a href=\"/\x81\x30\x81\x30\">",
  /* html, head and body, which the parser special-cases */
  "<html/></x><a href=75>",
  "<span><html/></x><a href=76>",
  "<span><body/></span><a href=77>",
  "<div><head/><a href=78>",
  "<span><head></head><span><a href=79></span>",
  "<html><head><title>t</title></head><body><div><a href=80></div>"
  "</body></html><a href=81>",
  "<body><span><body></span></body></body><a href=82>",
  "<span><html",
  "</tse-links.root><a href=83>",
  "<span></tse-links.root><a href=84>",
  /* nested svg and math */
  "<svg><g><svg><a href=85><text>x</text></svg></g></svg><a href=86>",
  "<math><mi>x</mi><svg><a href=87></svg></math>",
  /* deep nesting of dropped elements, stray end tags */
  "<b><i><u><s><span><div><p><a href=88></p></div></span></s></u></i></b>",
  "</div></span></p><a href=89></a></a></a><a href=90>",
  "<p><p><p><a href=91></p></p></p></p>",
  "<ul><li><a href=92><li><a href=93></ul>",
  "<table><tr><td><a href=94></td></tr></table>",
  /* base and robots metas among dropped tags */
  "<span><base href=/one/><span><base href=/two/><a href=95>",
  "<div><meta name=robots content=noindex><meta name=tsebot content=x>"
  "</div>",
  /* names the model keeps: long, odd characters */
  "<aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa9=\"x y>z\"><a href=96>",
  "<span aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-9=\"x y>z\"><a href=97>",
  "<my-el x=1><_x><:y><.z></my-el></_x><a href=98>",
  "<span\xe9 x=1><a href=99>",
  "<span \xe9=\"a b>c\"><a href=100>",
  "<span\fclass=x><a href=101>",
  "<span\vclass=x><a href=102>",
  "<p>don't<span>it's</span>\"<em>q</em>\"<a href=103>",
  /* entities in dropped and kept tags */
  "<span title=\"&amp;&lt;&#62;&#x3e;&\"><a href=\"a&amp;b\">",
  "<span title=&#x22;><a href=104>",
};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

static void test_hostile(void)
{
  tally_t t = { "hostile pages", 0, 0, 0, 0, 0, 0, 0 };
  for (size_t i = 0; i < NHOSTILE; i++) {
    const char *p = hostile[i];
    size_t len = strlen(p);
    char name[32];
    snprintf(name, sizeof name, "hostile[%zu]", i);
    t.files++;
    for (size_t k = 0; k < len; k++)
      compare_some(&t, name, p, k);
    compare_all(&t, name, p, len);
    /* Twice over, and after a page of dropped tags. */
    size_t n2 = 2 * len + 64;
    char *b = malloc(n2 + 1);
    CHECK(b != NULL);
    if (b == NULL)
      continue;
    snprintf(b, n2 + 1, "%s%s", p, p);
    compare_all(&t, name, b, strlen(b));
    snprintf(b, n2 + 1, "<div><span class=x>%s", p);
    compare_all(&t, name, b, strlen(b));
    free(b);
  }
  fprintf(stderr, "links_diff: %s: %zu pages, %zu scans, %zu differences\n",
          t.what, t.files, t.scans, t.diffs);
  CHECK_INT(t.diffs, 0);
}

static const char *top(void)
{
  const char *s = getenv("TOP");
  return s != NULL && *s != '\0' ? s : ".";
}

static void report(const tally_t *t)
{
  fprintf(stderr,
          "links_diff: %s: %zu files, %zu scans, %.1f MB, %zu differences;"
          " tags elided in %zu scans, libxml2 fed %.1f%% of the page "
          "(%.1f%% without tag elision)\n",
          t->what, t->files, t->scans, t->bytes / 1e6, t->diffs, t->elided,
          t->bytes ? 100.0 * t->fed_tags / t->bytes : 0.0,
          t->bytes ? 100.0 * t->fed_plain / t->bytes : 0.0);
}

static void test_tree(const char *what, const char *dir, const char *suffix,
                      page_fn fn, int must_elide)
{
  tally_t t = { what, 0, 0, 0, 0, 0, 0, 0 };
  if (walk(&t, dir, suffix, fn) != 0) {
    fprintf(stderr, "links_diff: %s: %s not found, not compared\n", what, dir);
    return;
  }
  report(&t);
  CHECK_INT(t.diffs, 0);
  if (must_elide) {
    /* The model must not give up on real documentation. */
    CHECK(t.files > 0);
    CHECK(t.elided * 10 >= t.scans * 9);
  }
}

static void test_python_docs(void)
{
  test_tree("python docs", "/usr/share/doc/python3.11/html", ".html", doc_page,
            1);
}

static void test_pg_docs(void)
{
  test_tree("postgresql docs", "/usr/share/doc/postgresql-doc-15/html", ".html",
            doc_page, 1);
}

static void test_fixtures(void)
{
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/fixtures", top());
  test_tree("fixtures", dir, NULL, small_page, 0);
}

static void test_fuzz_inputs(void)
{
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/links_html", top());
  test_tree("fuzz corpus", dir, NULL, fuzz_page, 0);
  snprintf(dir, sizeof dir, "%s/tests/fuzz/regressions/links_html", top());
  test_tree("fuzz regressions", dir, NULL, fuzz_page, 0);
}

int main(void)
{
  xmlInitParser();
  RUN(test_hostile);
  RUN(test_fixtures);
  RUN(test_fuzz_inputs);
  RUN(test_python_docs);
  RUN(test_pg_docs);
  xmlCleanupParser();
  return TEST_EXIT();
}
