/* url_base_test.c: the per-page fast path against the slow path.
 *
 * url_base_resolve (url.h, "Per-page fast path") promises exactly the bytes
 * of url_resolve_normalized, and url_host_key_normal exactly those of
 * url_host_key. This test holds both to it, href by href, over:
 *   - hostile hrefs written out below (dot segments, escapes, spaces,
 *     UTF-8, controls, backslashes, '?', '#', "//", ports, userinfo, IPv6,
 *     odd hosts and schemes), every byte in a set of templates, every
 *     string of up to 4 bytes over an alphabet of URL delimiters, and
 *     lengths around URL_MAX_LEN, each against every base in bases[];
 *   - every href of the fixture sites (tests/fixtures/sites), as the
 *     crawler would see it (page URL, <base href>, {{port}} filled in)
 *     and raw;
 *   - every input of the url and links_html fuzz corpora and regressions.
 * The real documentation sets are compared by bench/links_bench -c. */
#include "url.h"

#include <curl/curl.h>
#include <dirent.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>

#include "../../testhelp.h"
#include "links.h"

static long compared;

static bool same(const char *a, const char *b)
{
  return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* compare: both paths on (base, href); a difference is a failure. */
static void compare_with(const url_base_t *b, const char *base,
                         const char *href)
{
  char *slow = url_resolve_normalized(base, href);
  char *fast = url_base_resolve(b, href);
  char *sk = slow ? url_host_key(slow) : NULL;
  char *fk = fast ? url_host_key_normal(fast) : NULL;
  if (!same(slow, fast) || !same(sk, fk)) {
    testhelp_failed++;
    fprintf(stderr,
            "base \"%s\" href \"%s\": slow \"%s\" key \"%s\", "
            "fast \"%s\" key \"%s\"\n",
            base ? base : "(null)", href, slow ? slow : "(null)",
            sk ? sk : "(null)", fast ? fast : "(null)", fk ? fk : "(null)");
  }
  compared++;
  free(slow);
  free(fast);
  free(sk);
  free(fk);
}

static void compare(const char *base, const char *href)
{
  url_base_t b;
  url_base_init(&b, base);
  compare_with(&b, base, href);
}

/* ---- generated inputs */

static const char *const bases[] = {
  NULL,
  "http://h/",
  "http://h/a/b/c",
  "http://h/a/b/",
  "http://h/a/b/c.html?q=1&r=/x/../y",
  "https://h:8443/d/e",
  "http://127.0.0.1:5000/x/y.html",
  "http://a-b.example.com/a;p/b,c/d=e",
  "http://h/a//b/",
  "http://h/~a/b",
  "http://[::1]:8080/a/b",
  "http://u:p@h/a/",
  "http://xn--exmple-cua.com/p/q",
  /* not normal forms: relative hrefs take the slow path */
  "http://h/a/%2e%2e/b/c",
  "http://h/a/b/./c",
  "HTTP://H/A/B",
  "http://h/a/b#frag",
  "http://h",
  "http://h:80/a/",
  "http://h/%7ea/b",
  "http://h/a b/c",
  "http://h/a?",
  "  http://h/a/b",
  "http://0x7f.1/a/",
  "not a url",
  "mailto:x@y",
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

static const char *const hostile[] = {
  /* dot segments */
  "",
  ".",
  "..",
  "./",
  "../",
  "../..",
  "../../",
  "../../..",
  "../../../../g",
  "a/./b",
  "a/../b",
  "a/.",
  "a/..",
  "./../g",
  "../.",
  "./.",
  ".//g",
  "..//g",
  "./g/.",
  ".a",
  "..a",
  "a.",
  "a..",
  "...",
  ".../x",
  "/.",
  "/..",
  "/./g",
  "/../g",
  "/a/./b",
  "/a/../b",
  ".%2e/",
  "%2e%2E/x",
  "%2e/x",
  "./?q",
  "..?q",
  "..#f",
  ".#f",
  "../?",
  "../#",
  "g/..?x",
  /* percent escapes */
  "%7e",
  "%7E",
  "%41b",
  "a%2fb",
  "a%2Fb/..",
  "%zz",
  "%",
  "%4",
  "a%20b",
  "a%2",
  "%%41",
  "%4%41",
  "?%7e",
  "?%",
  "#%",
  "/%2e%2e/x",
  "%c3%a9",
  /* spaces, controls, UTF-8 */
  " a",
  "a ",
  "a b",
  " ",
  "\t",
  "a\tb",
  "a\nb",
  "\n",
  " #x",
  "#a b",
  "\x01",
  "a\x7f",
  "a\x1b"
  "b",
  "\v",
  "\f",
  "caf\xc3\xa9",
  "\xe2\x82\xac/x",
  "#\xc3\xa9",
  "?q=\xc3\xa9",
  "http://ex\xc3\xa4mple.com/",
  "http://h/\xff",
  "\xc3\xa9",
  "a?\x80",
  /* backslashes */
  "a\\b",
  "\\\\h\\x",
  "\\x",
  "/\\x",
  "http:\\\\h\\x",
  "#\\",
  "?\\",
  "http://h\\x/",
  /* '?' */
  "?",
  "?q",
  "a?",
  "a?b",
  "a?b?c",
  "a?b#c",
  "a?b c",
  "?#",
  "a?\"",
  "a?{}",
  "a?/../x",
  "a?#",
  "/?q",
  "/a?q=1&b=2",
  "a??",
  "a?%zz",
  /* '#' */
  "#",
  "##",
  "a#b#c",
  "a#",
  "#?x",
  "a#b?c",
  "#/../x",
  "#frag",
  "/#",
  "a#\"<>",
  "#\x7f",
  /* "//" */
  "//",
  "//h",
  "//h/x",
  "///x",
  "//h:8080/x",
  "a//b",
  "/a//b",
  "//H/x",
  "//h?x",
  "//h#x",
  "////",
  "//u@h/",
  /* ports */
  "http://h:80/",
  "http://h:8080",
  "http://h:0/",
  "http://h:1/",
  "http://h:65535/",
  "http://h:65536/",
  "http://h:0080/",
  "https://h:443/",
  "https://h:80/",
  "http://h:443/",
  "http://h:/",
  "http://h:8a/",
  "http://h:99999/",
  "http://h:080/",
  "http://h:8080#x",
  "http://h:8080?x",
  "https://h:8443/a/../b",
  /* userinfo */
  "http://u@h/",
  "http://u:p@h/",
  "http://u:p@h:8080/x",
  "http://@h/",
  "http://a@b@h/",
  "http://u%40x@h/",
  "http://u:p:q@h/",
  "http://U@h/",
  "http://u:@h/",
  /* IPv6 */
  "http://[::1]/",
  "http://[::1]:8080/a",
  "http://[::1",
  "http://[::1]x/",
  "http://[fe80::1%25eth0]/",
  "http://[2001:DB8::A]/",
  "//[::1]/x",
  "http://[::ffff:1.2.3.4]/",
  "http://[v1.x]/",
  /* hosts */
  "http://H/",
  "http://h.",
  "http://h./",
  "http://h..com/",
  "http://.h/",
  "http://-h.com/",
  "http://h-.com/",
  "http://1.2.3.4/",
  "http://1.2.3/",
  "http://0x7f.1/",
  "http://127.1/",
  "http://a.0x7f/",
  "http://a.1/",
  "http://1.a/",
  "http://h_h/",
  "http://xn--a/",
  "http://%41/",
  "http://a%2eb/",
  "http://h/",
  "http://h",
  "http://h#x",
  "http://h?x",
  "https://www.python.org/",
  "http://0/",
  "http://00.1/",
  "http://1e1/",
  "http://0x/",
  "http://a.b.c.d.e/f",
  "http://4294967296/",
  "http://256.1.1.1/",
  /* IPv4 written as libcurl writes it takes the fast path; the rest not */
  "http://127.0.0.2:38517/d0/p1.html",
  "http://127.0.0.2:38517/index.html#sec1",
  "http://0.0.0.0/",
  "http://255.255.255.255/a?q",
  "http://1.2.3.255:65535/",
  "http://1.2.3.256/",
  "http://1.2.3.4.5/",
  "http://1.2.3.4./",
  "http://01.2.3.4/",
  "http://1.2.3.04/",
  "http://1.2.3.00/",
  "http://1.2.3.0x1/",
  "http://1000.2.3.4/",
  "http://1.2.3.4:80/",
  "http://1.2.3.4:080/",
  "http://1.2.3.4:0/",
  "http://1.2.3.-4/",
  "http://1.2..4/",
  "https://10.0.0.1:443/x",
  "https://10.0.0.1:8443/x/../y",
  "http://h:8080:90/",
  "http://h h/",
  /* schemes */
  "http:g",
  "HTTP:g",
  "https:g",
  "http:/g",
  "http:///g",
  "HTTP://h/",
  "Http://h/",
  "httpS://h/",
  "ftp://h/",
  "javascript:x",
  "JavaScript:x",
  "mailto:a@b",
  "g:h",
  "a:b",
  "a1+.-:x",
  "1a:b",
  ":x",
  "x:",
  "data:,",
  "tel:1",
  "./a:b",
  "a/b:c",
  "/a:b",
  "http:",
  "https:",
  "http:#x",
  "http:?x",
  "ht\ntp://h/",
  "java\tscript:x",
  " mailto:x",
  "http ://h/",
  "http://",
  "http:///",
  "https://",
  /* plain but varied */
  "a",
  "a/",
  "/",
  "/a",
  "/a/b/",
  "a;b",
  "a,b",
  "a=b&c",
  "a'b",
  "a(b)",
  "a*b",
  "a!b",
  "a$b",
  "a+b",
  "a@b",
  "a~b",
  "a_b",
  "-",
  "~",
  ":",
  "@",
  "/@h",
  "index.html",
  "../library/os.html#os.path",
  "genindex-all.html",
  "_static/pygments.css",
  "../c-api/arg.html#c.PyArg_ParseTuple",
  "https://bugs.python.org/issue?@action=redirect&bpo=45711",
  "https://docs.python.org/3/library/os.html#os.path",
  "http://h/a/b/c/./d",
  "http://h/a/b/../c",
  "http://h/%7Ex",
  "http://h/a b",
  "http://h/a?b c",
  "http://h/a?",
  "http://h/?",
  "http://h/?#",
  "http://example.com/elsewhere.html",
  "sub/",
  "sub/deeper/",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static void test_hostile(void)
{
  for (size_t i = 0; i < NBASES; i++)
    for (size_t j = 0; j < NHOSTILE; j++)
      compare(bases[i], hostile[j]);
}

/* The same under a UTF-8 LC_CTYPE, where IDN hosts are converted. */
static void test_hostile_utf8(void)
{
  if (setlocale(LC_CTYPE, "C.UTF-8") == NULL) {
    SKIP("no C.UTF-8 locale");
    return;
  }
  test_hostile();
  setlocale(LC_CTYPE, "C");
}

/* Every byte value in each template, at the '*'. */
static void test_every_byte(void)
{
  static const char *const tmpl[] = {
    "*",          "a*",         "*b",           "a*b",        "/*",
    "../*",       "?*",         "#*",           "a?*",        "http://h*/",
    "http://h/*", "http://*h/", "http://h:8*/", "a/*/b",      ".*",
    "*.",         "*/",         "*:x",          "https://*/", "//h*/",
  };
  char buf[32];
  for (size_t t = 0; t < sizeof(tmpl) / sizeof(tmpl[0]); t++)
    for (int c = 1; c < 256; c++) {
      const char *star = strchr(tmpl[t], '*');
      size_t pre = (size_t)(star - tmpl[t]);
      memcpy(buf, tmpl[t], pre);
      buf[pre] = (char)c;
      strcpy(buf + pre + 1, star + 1);
      for (size_t i = 0; i < NBASES; i += 3)
        compare(bases[i], buf);
    }
}

/* Every string of up to 4 bytes over URL delimiters and a letter. */
static void test_short_strings(void)
{
  static const char alpha[] = "./a?#%:";
  const size_t k = sizeof(alpha) - 1;
  char buf[16];
  static const char *const prefix[] = { "", "http://h", "//" };
  for (size_t p = 0; p < 3; p++) {
    size_t pl = strlen(prefix[p]);
    memcpy(buf, prefix[p], pl);
    size_t maxlen = p == 0 ? 4 : 3;
    for (size_t len = 0; len <= maxlen; len++) {
      size_t total = 1;
      for (size_t i = 0; i < len; i++)
        total *= k;
      for (size_t n = 0; n < total; n++) {
        size_t v = n;
        for (size_t i = 0; i < len; i++, v /= k)
          buf[pl + i] = alpha[v % k];
        buf[pl + len] = '\0';
        for (size_t i = 0; i < 6; i++)
          compare(bases[i], buf);
      }
    }
  }
}

/* Results and inputs around URL_MAX_LEN and URL_INPUT_MAX. */
static void test_lengths(void)
{
  size_t cap = URL_INPUT_MAX + 64;
  char *s = malloc(cap + 1);
  CHECK(s != NULL);
  if (s == NULL)
    return;
  static const char *const pre[] = { "", "/", "http://h/", "a?", "a#" };
  for (size_t p = 0; p < sizeof(pre) / sizeof(pre[0]); p++) {
    size_t pl = strlen(pre[p]);
    static const size_t lens[] = { 2030, 2036, 2037, 2038, 2039, 2040,
                                   2041, 2047, 2048, 2049, 4096 };
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
      memcpy(s, pre[p], pl);
      memset(s + pl, 'a', lens[l] - pl);
      s[lens[l]] = '\0';
      for (size_t i = 0; i < 6; i++)
        compare(bases[i], s);
    }
  }
  /* A base over URL_INPUT_MAX makes every href fail, absolute ones too. */
  memcpy(s, "http://h/", 9);
  memset(s + 9, 'a', cap - 9);
  s[cap] = '\0';
  compare(s, "http://h/x");
  compare(s, "x");
  compare(s, "mailto:x");
  /* Long base, short href: the result crosses URL_MAX_LEN. */
  s[URL_MAX_LEN - 3] = '/';
  s[URL_MAX_LEN - 2] = '\0';
  static const char *const h[] = { "a", "ab", "abc", "../a", "", "#x", "?q" };
  for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
    compare(s, h[i]);
  free(s);
}

/* ---- inputs from the tree */

/* read_file: the whole file, NUL-terminated, malloc'd; NULL on error. */
static char *read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  char *b = NULL;
  size_t n = 0, cap = 0, r;
  do {
    if (n == cap) {
      char *nb = realloc(b, (cap = cap ? 2 * cap : 4096) + 1);
      if (nb == NULL) {
        free(b);
        fclose(f);
        return NULL;
      }
      b = nb;
    }
    r = fread(b + n, 1, cap - n, f);
    n += r;
  } while (r > 0);
  fclose(f);
  b[n] = '\0';
  *len = n;
  return b;
}

/* subst: s with every {{port}} and {{host}} filled in, malloc'd. */
static char *subst(const char *s)
{
  size_t n = strlen(s);
  char *r = malloc(2 * n + 1); /* "127.0.0.1" < 2 * "{{host}}" */
  if (r == NULL)
    return NULL;
  char *o = r;
  while (*s) {
    if (strncmp(s, "{{port}}", 8) == 0) {
      o = stpcpy(o, "8080");
      s += 8;
    } else if (strncmp(s, "{{host}}", 8) == 0) {
      o = stpcpy(o, "127.0.0.1");
      s += 8;
    } else {
      *o++ = *s++;
    }
  }
  *o = '\0';
  return r;
}

/* A page being scanned: its URL and, once seen, its resolved <base>. */
struct page {
  const char *url;
  char *base;
  url_base_t ub;
};

static int on_base(void *arg, const char *href)
{
  struct page *p = arg;
  if (p->base == NULL && (p->base = url_resolve(p->url, href)) != NULL)
    url_base_init(&p->ub, p->base);
  return 0;
}

static int on_link(void *arg, const char *href, int flags)
{
  struct page *p = arg;
  (void)flags;
  compare_with(&p->ub, p->base ? p->base : p->url, href);
  char *h = subst(href);
  CHECK(h != NULL);
  if (h != NULL && strcmp(h, href) != 0)
    compare_with(&p->ub, p->base ? p->base : p->url, h);
  free(h);
  return 0;
}

/* scan: compare every link of a page, at url, as the crawler would. */
static void scan(const char *body, size_t len, const char *url, bool text)
{
  struct page p = { url, NULL, { 0 } };
  url_base_init(&p.ub, url);
  links_sink_t sink = { on_link, on_base, NULL, NULL, &p };
  int rc = text ? links_scan_text(body, len, &sink)
                : links_scan_html(body, len, NULL, &sink);
  CHECK_INT(rc, LINKS_OK);
  free(p.base);
}

/* walk: scan every .html and .txt file under dir; rel is its URL path. */
static void walk(const char *dir, const char *rel, int *files)
{
  DIR *d = opendir(dir);
  if (d == NULL)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char path[4096], r[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    snprintf(r, sizeof(r), "%s/%s", rel, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      walk(path, r, files);
      continue;
    }
    const char *dot = strrchr(e->d_name, '.');
    bool html = dot && strcmp(dot, ".html") == 0;
    bool text = dot && strcmp(dot, ".txt") == 0;
    if (!html && !text)
      continue;
    size_t len;
    char *body = read_file(path, &len);
    CHECK(body != NULL);
    if (body == NULL)
      continue;
    char url[4200];
    snprintf(url, sizeof(url), "http://127.0.0.1:8080%s", r);
    scan(body, len, url, text);
    free(body);
    (*files)++;
  }
  closedir(d);
}

static const char *top(void)
{
  const char *t = getenv("TOP");
  return t != NULL && *t != '\0' ? t : ".";
}

static void test_fixture_sites(void)
{
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/tests/fixtures/sites", top());
  int files = 0;
  walk(dir, "", &files);
  fprintf(stderr, "url_base_test: %d fixture pages\n", files);
  CHECK(files > 0);
}

/* fuzz_dir: each input of tests/fuzz/KIND/TARGET to fn. */
static void fuzz_dir(const char *kind, const char *target,
                     void (*fn)(const char *data, size_t len))
{
  char dir[4096];
  snprintf(dir, sizeof(dir), "%s/tests/fuzz/%s/%s", top(), kind, target);
  DIR *d = opendir(dir);
  if (d == NULL)
    return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char path[8192];
    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
    size_t len;
    char *data = read_file(path, &len);
    if (data != NULL)
      fn(data, len);
    free(data);
  }
  closedir(d);
}

/* fuzz_url_input: split as the url fuzz target does (base, first NUL or
 * newline, href); compare against the base and its normal form. */
static void fuzz_url_input(const char *data, size_t len)
{
  size_t cut = strcspn(data, "\n");
  char *copy = strdup(data); /* a NUL in data ends it: fine here */
  if (copy == NULL)
    return;
  const char *base = NULL, *href = copy;
  if (cut < strlen(data)) {
    copy[cut] = '\0';
    base = copy;
    href = copy + cut + 1;
  }
  (void)len;
  compare(base, href);
  char *nb = base ? url_normalize(base) : NULL;
  if (nb != NULL)
    compare(nb, href);
  for (size_t i = 0; i < 6; i++)
    compare(bases[i], href);
  free(nb);
  free(copy);
}

static void fuzz_html_input(const char *data, size_t len)
{
  if (len > 2)
    for (size_t i = 1; i < 6; i++)
      scan(data + 2, len - 2, bases[i], false);
}

static void test_fuzz_inputs(void)
{
  long before = compared;
  fuzz_dir("regressions", "url", fuzz_url_input);
  fuzz_dir("corpus", "url", fuzz_url_input);
  fuzz_dir("regressions", "links_html", fuzz_html_input);
  fuzz_dir("corpus", "links_html", fuzz_html_input);
  CHECK(compared > before);
}

int main(void)
{
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    return 1;
  xmlInitParser();
  RUN(test_hostile);
  RUN(test_hostile_utf8);
  RUN(test_every_byte);
  RUN(test_short_strings);
  RUN(test_lengths);
  RUN(test_fixture_sites);
  RUN(test_fuzz_inputs);
  fprintf(stderr, "url_base_test: %ld hrefs compared\n", compared);
  xmlCleanupParser();
  curl_global_cleanup();
  return TEST_EXIT();
}
