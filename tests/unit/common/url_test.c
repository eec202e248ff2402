/* url_test.c: unit tests for common/url (resolution, normal form, hosts,
 * default scope; scope_test.c tests the scope itself). */
#include "url.h"

#include <curl/curl.h>
#include <locale.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../testhelp.h"

static const char *const RFC_BASE = "http://a/b/c/d;p?q";

/* check_resolve: url_resolve(base, href) must equal want (NULL: fail). */
static void check_resolve(const char *base, const char *href, const char *want,
                          int line)
{
  char *got = url_resolve(base, href);
  if (!((got == NULL && want == NULL) ||
        (got != NULL && want != NULL && strcmp(got, want) == 0))) {
    testhelp_failed++;
    fprintf(stderr,
            "%s:%d: url_resolve(\"%s\", \"%s\"): got \"%s\", "
            "want \"%s\"\n",
            __FILE__, line, base ? base : "(null)", href, got ? got : "(null)",
            want ? want : "(null)");
  }
  free(got);
}

static void check_norm(const char *base, const char *href, const char *want,
                       int line)
{
  char *got = url_resolve_normalized(base, href);
  if (!((got == NULL && want == NULL) ||
        (got != NULL && want != NULL && strcmp(got, want) == 0))) {
    testhelp_failed++;
    fprintf(stderr,
            "%s:%d: url_resolve_normalized(\"%s\", \"%s\"): got "
            "\"%s\", want \"%s\"\n",
            __FILE__, line, base ? base : "(null)", href, got ? got : "(null)",
            want ? want : "(null)");
  }
  /* Idempotence: the normal form is a fixed point of url_normalize. */
  if (got != NULL) {
    char *again = url_normalize(got);
    if (again == NULL || strcmp(again, got) != 0) {
      testhelp_failed++;
      fprintf(stderr,
              "%s:%d: url_normalize(\"%s\") not idempotent: "
              "\"%s\"\n",
              __FILE__, line, got, again ? again : "(null)");
    }
    free(again);
  }
  free(got);
}

#define RESOLVE(base, href, want) check_resolve(base, href, want, __LINE__)
#define NORM(base, href, want) check_norm(base, href, want, __LINE__)
#define RFC(href, want) RESOLVE(RFC_BASE, href, want)

/* RFC 3986 section 5.4.1, every example. */
static void test_rfc_normal(void)
{
  RFC("g:h", "g:h");
  RFC("g", "http://a/b/c/g");
  RFC("./g", "http://a/b/c/g");
  RFC("g/", "http://a/b/c/g/");
  RFC("/g", "http://a/g");
  RFC("//g", "http://g");
  RFC("?y", "http://a/b/c/d;p?y");
  RFC("g?y", "http://a/b/c/g?y");
  RFC("#s", "http://a/b/c/d;p?q#s");
  RFC("g#s", "http://a/b/c/g#s");
  RFC("g?y#s", "http://a/b/c/g?y#s");
  RFC(";x", "http://a/b/c/;x");
  RFC("g;x", "http://a/b/c/g;x");
  RFC("g;x?y#s", "http://a/b/c/g;x?y#s");
  RFC("", "http://a/b/c/d;p?q");
  RFC(".", "http://a/b/c/");
  RFC("./", "http://a/b/c/");
  RFC("..", "http://a/b/");
  RFC("../", "http://a/b/");
  RFC("../g", "http://a/b/g");
  RFC("../..", "http://a/");
  RFC("../../", "http://a/");
  RFC("../../g", "http://a/g");
}

/* RFC 3986 section 5.4.2, every example ("http:g" the strict way). */
static void test_rfc_abnormal(void)
{
  RFC("../../../g", "http://a/g");
  RFC("../../../../g", "http://a/g");
  RFC("/./g", "http://a/g");
  RFC("/../g", "http://a/g");
  RFC("g.", "http://a/b/c/g.");
  RFC(".g", "http://a/b/c/.g");
  RFC("g..", "http://a/b/c/g..");
  RFC("..g", "http://a/b/c/..g");
  RFC("./../g", "http://a/b/g");
  RFC("./g/.", "http://a/b/c/g/");
  RFC("g/./h", "http://a/b/c/g/h");
  RFC("g/../h", "http://a/b/c/h");
  RFC("g;x=1/./y", "http://a/b/c/g;x=1/y");
  RFC("g;x=1/../y", "http://a/b/c/y");
  RFC("g?y/./x", "http://a/b/c/g?y/./x");
  RFC("g?y/../x", "http://a/b/c/g?y/../x");
  RFC("g#s/./x", "http://a/b/c/g#s/./x");
  RFC("g#s/../x", "http://a/b/c/g#s/../x");
  RFC("http:g", "http:g");
  /* The browsers' (backward-compatible) reading, in the normalising
   * layer only. */
  NORM(RFC_BASE, "http:g", "http://a/b/c/g");
  NORM(RFC_BASE, "HTTP:g", "http://a/b/c/g");
}

/* Corner cases of the resolver beyond the RFC list. */
static void test_resolve_more(void)
{
  RESOLVE("http://a", "", "http://a");
  RESOLVE("http://a", "?y", "http://a?y");
  RESOLVE("http://a", "g", "http://a/g");
  RESOLVE("http://a/b#f", "", "http://a/b");
  RESOLVE("http://a/b#f", "#g", "http://a/b#g");
  RESOLVE("http://a/b?q#f", "?y", "http://a/b?y");
  RESOLVE(RFC_BASE, "mailto:x@y", "mailto:x@y");
  RESOLVE(RFC_BASE, "JavaScript:void(0)", "javascript:void(0)");
  RESOLVE(RFC_BASE, "g:a/./b/../c", "g:a/c");
  RESOLVE(RFC_BASE, "ftp://h/x/../y", "ftp://h/y");
  RESOLVE(NULL, "http://h/p", "http://h/p");
  RESOLVE(NULL, "g", NULL);
  RESOLVE("not a url", "g", NULL);
  RESOLVE(RFC_BASE, "g h", "http://a/b/c/g%20h");
  RESOLVE(RFC_BASE, "  g\n", "http://a/b/c/g");
}

static void test_case_port_dots(void)
{
  NORM(NULL, "HTTP://Example.COM/A/B", "http://example.com/A/B");
  NORM(NULL, "http://example.com:80/", "http://example.com/");
  NORM(NULL, "https://example.com:443/x", "https://example.com/x");
  NORM(NULL, "http://example.com:443/", "http://example.com:443/");
  NORM(NULL, "https://example.com:80/", "https://example.com:80/");
  NORM(NULL, "http://example.com:8080", "http://example.com:8080/");
  NORM(NULL, "http://example.com:0080/", "http://example.com/");
  NORM(NULL, "http://example.com", "http://example.com/");
  NORM(NULL, "http://example.com?q", "http://example.com/?q");
  NORM(NULL, "http://h/a/./b/../c/.", "http://h/a/c/");
  NORM(NULL, "http://h/a/%2e%2E/b", "http://h/b");
  NORM(NULL, "http://h/a/%2E/b", "http://h/a/b");
  NORM(NULL, "http://h/../../x", "http://h/x");
  NORM(NULL, "http://h/a/..", "http://h/");
  NORM(NULL, "http://u:P@H/x", "http://u:P@h/x");
  CHECK(url_normalize("http://h:99999/") == NULL);
  CHECK(url_normalize("http://") == NULL);
  CHECK(url_normalize("http:///") == NULL);
  CHECK(url_normalize("http://a b/") == NULL);
  CHECK(url_normalize("/relative") == NULL);
  CHECK(url_normalize("example.com/x") == NULL);
}

static void test_percent(void)
{
  NORM(NULL, "http://h/%7euser", "http://h/~user");
  NORM(NULL, "http://h/%7Euser/%41%62%30%2D%2E%5F", "http://h/~user/Ab0-._");
  NORM(NULL, "http://h/a%2fb", "http://h/a%2Fb");
  NORM(NULL, "http://h/a%2Fb/..", "http://h/");
  NORM(NULL, "http://h/%e2%82%ac", "http://h/%E2%82%AC");
  NORM(NULL, "http://h/%zz%4", "http://h/%zz%4");
  /* Regression (fuzzing, tests/fuzz/regressions/url/): decoding an
   * escaped hex digit right after a stray '%' made a new escape, so the
   * normal form was not a fixed point ("%4%41" -> "%4A" -> "J"). NORM
   * also checks idempotence. */
  NORM("http://h/", "%4%41?%", "http://h/%4%41?%");
  NORM(NULL, "http://h/%%341", "http://h/%%341");
  NORM(NULL, "http://h/%%41%42", "http://h/%%41B");
  NORM(NULL, "http://h/%g%41", "http://h/%gA");
  NORM(NULL, "http://h/%4%2e", "http://h/%4.");
  NORM(NULL, "http://u%4%41:p%%30@h/", "http://u%4%41:p%%30@h/");
  /* Regression (fuzzing): a percent-decoded host that spells an IPv4
   * address is normalised as one at once ("http://5/" was next
   * "http://0.0.0.5/"). */
  char *h = url_normalize("http:/%35");
  CHECK_STR(h, "http://0.0.0.5/");
  free(h);
  NORM(NULL, "http://%35/", "http://0.0.0.5/");
  /* The query is the server's business: case and escapes stay. */
  NORM(NULL, "http://h/p?a=%7e&B=%2f&c=./..", "http://h/p?a=%7e&B=%2f&c=./..");
  NORM(NULL, "http://h/p?", "http://h/p");
  NORM(NULL, "http://h/p?a=|\"x\"", "http://h/p?a=%7C%22x%22");
  NORM(NULL, "http://h/a{b}<c>^`d", "http://h/a%7Bb%7D%3Cc%3E%5E%60d");
  /* A backslash is a slash in http(s), before the query (WHATWG), and
   * stays a byte after it. */
  NORM(NULL, "http://h/a\\b", "http://h/a/b");
  NORM(NULL, "http:\\\\h\\a?q=\\#\\", "http://h/a?q=%5C");
  NORM("http://h/d/p.html", "dir\\x.html", "http://h/d/dir/x.html");
  NORM("http://h/d/p.html", "\\\\other.test\\p.html",
       "http://other.test/p.html");
}

static void test_spaces_utf8_controls(void)
{
  NORM("http://h/d/", "a b.html", "http://h/d/a%20b.html");
  NORM("http://h/d/", "x?q=a b", "http://h/d/x?q=a%20b");
  NORM("http://h/d/", "caf\xc3\xa9?\xc3\xa9=1",
       "http://h/d/caf%C3%A9?%C3%A9=1");
  NORM(NULL, "http://h/caf\xc3\xa9", "http://h/caf%C3%A9");
  /* Browsers drop TAB CR LF inside an href and trim the ends. */
  NORM("http://h/d/", "  \t page\n.html \r\n", "http://h/d/page.html");
  NORM("http://h/d/", "ht\ntp://Other/\tx", "http://other/x");
  NORM("http://h/d/", "java\tscript:alert(1)", NULL);
  /* Other controls are encoded, never kept. */
  NORM("http://h/d/",
       "a\x01"
       "b\x7f",
       "http://h/d/a%01b%7F");
  NORM("http://h/d/",
       "x?\x1b"
       "z\x1b",
       "http://h/d/x?%1Bz");
  char *u = url_resolve_normalized("http://h/", "a\x02\x03 b\n\r\tc\v\f");
  CHECK(u != NULL);
  for (const char *p = u ? u : ""; *p; p++)
    CHECK((unsigned char)*p > 0x20 && (unsigned char)*p < 0x7f);
  free(u);
}

static void test_fragment_empty(void)
{
  NORM("http://h/p?q#f", "", "http://h/p?q");
  NORM("http://h/p?q", "   ", "http://h/p?q");
  NORM("http://h/p?q", "\t\n", "http://h/p?q");
  NORM("http://h/p?q", "#top", "http://h/p?q");
  NORM("http://h/p", "x#a b#c", "http://h/x");
  NORM(NULL, "http://h/p#frag", "http://h/p");
  NORM(NULL, "http://h/p?#", "http://h/p");
}

static void test_schemes(void)
{
  NORM("http://h/", "javascript:alert(1)", NULL);
  NORM("http://h/", "mailto:someone@example.com", NULL);
  NORM("http://h/", "ftp://h/file", NULL);
  NORM("http://h/", "tel:+123", NULL);
  NORM("http://h/", "data:text/html,hi", NULL);
  NORM("http://h/", "file:///etc/passwd", NULL);
  NORM("https://h/", "//other/x", "https://other/x");
  NORM("http://h/", "HTTPS://h/", "https://h/");
  CHECK(url_is_http("http://x/"));
  CHECK(url_is_http("HTTPS://x/"));
  CHECK(url_is_http("  https://x/"));
  CHECK(!url_is_http("javascript:x"));
  CHECK(!url_is_http("mailto:a@b"));
  CHECK(!url_is_http("httpx://x/"));
  CHECK(!url_is_http("/http://x"));
  CHECK(!url_is_http(NULL));
}

static void test_ipv6(void)
{
  NORM(NULL, "http://[::1]:8080/a", "http://[::1]:8080/a");
  NORM(NULL, "http://[::1]:80/a", "http://[::1]/a");
  NORM(NULL, "http://[2001:DB8::A]/", "http://[2001:db8::a]/");
  NORM("http://[::1]:8080/d/e", "../f", "http://[::1]:8080/f");
  NORM(NULL, "http://[fe80::1%25eth0]/", "http://[fe80::1%25eth0]/");
  CHECK(url_normalize("http://[::1/") == NULL);
  char *k = url_host_key("http://[::1]/x");
  CHECK_STR(k, "http://[::1]:80");
  free(k);
}

static void test_long(void)
{
  const char *pre = "http://h/";
  size_t pl = strlen(pre);
  char *s = malloc(URL_MAX_LEN + 64);
  CHECK(s != NULL);
  if (s == NULL)
    return;
  /* Exactly URL_MAX_LEN is accepted, one more is not. */
  memcpy(s, pre, pl);
  memset(s + pl, 'a', URL_MAX_LEN - pl);
  s[URL_MAX_LEN] = '\0';
  char *n = url_normalize(s);
  CHECK(n != NULL && strlen(n) == URL_MAX_LEN);
  free(n);
  char *r = url_resolve(NULL, s);
  CHECK(r != NULL && strlen(r) == URL_MAX_LEN);
  free(r);
  s[URL_MAX_LEN] = 'a';
  s[URL_MAX_LEN + 1] = '\0';
  CHECK(url_normalize(s) == NULL);
  CHECK(url_resolve(NULL, s) == NULL);
  CHECK(url_resolve_normalized("http://h/", s) == NULL);
  /* The bound applies after normalisation: escapes grow, dots shrink. */
  memset(s + pl, ' ', 700);
  s[pl + 700] = 'x';
  s[pl + 701] = '\0';
  CHECK(url_normalize(s) == NULL); /* 9 + 2100 + 1 bytes once encoded */
  free(s);

  /* Hostile input far beyond URL_INPUT_MAX is refused, not processed. */
  size_t big = URL_INPUT_MAX + 100;
  char *h = malloc(big + 1);
  CHECK(h != NULL);
  if (h == NULL)
    return;
  for (size_t i = 0; i < big; i += 2) {
    h[i] = '.';
    h[i + 1] = '/';
  }
  h[big] = '\0';
  CHECK(url_resolve_normalized("http://h/", h) == NULL);
  free(h);
}

static void test_scope(void)
{
  char *d = url_scope_default("HTTP://Example.com:80/a/b?c#d");
  CHECK_STR(d, "http://example.com/");
  free(d);
  d = url_scope_default("https://example.com:8443/x");
  CHECK_STR(d, "https://example.com:8443/");
  free(d);
  /* Credentials stay: the seed must be inside its own scope. */
  d = url_scope_default("http://u:p@h/x");
  CHECK_STR(d, "http://u:p@h/");
  free(d);
  CHECK(url_scope_default("mailto:x@y") == NULL);
  /* The other scheme, the port (or none) as it is. */
  d = url_scope_other("http://example.com:8080/");
  CHECK_STR(d, "https://example.com:8080/");
  free(d);
  d = url_scope_other("https://u:p@h/");
  CHECK_STR(d, "http://u:p@h/");
  free(d);
  CHECK(url_scope_other("ftp://h/") == NULL);
}

static void test_host_key(void)
{
  struct {
    const char *url, *want;
  } cases[] = {
    { "http://Example.com/a?b", "http://example.com:80" },
    { "https://example.com/", "https://example.com:443" },
    { "http://example.com:8080/", "http://example.com:8080" },
    { "https://u:p@example.com:443/x", "https://example.com:443" },
    { "http://127.0.0.1:5000", "http://127.0.0.1:5000" },
    { "ftp://example.com/", NULL },
    { "garbage", NULL },
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char *k = url_host_key(cases[i].url);
    CHECK_STR(k, cases[i].want);
    free(k);
    char *n = url_normalize(cases[i].url);
    k = url_host_key_normal(n);
    CHECK_STR(k, cases[i].want);
    free(k);
    free(n);
  }

  /* The same cut from normal forms, without parsing. */
  static const struct {
    const char *url, *want;
  } keys[] = {
    { "http://h/", "http://h:80" },
    { "https://h/x?y", "https://h:443" },
    { "http://h:8080/", "http://h:8080" },
    { "http://u:p@h:81/", "http://h:81" },
    { "http://a@b:c@h/", "http://h:80" },
    { "http://[::1]/", "http://[::1]:80" },
    { "https://[fe80::1%25eth0]:8443/", "https://[fe80::1%25eth0]:8443" },
    { "http://h", NULL },
    { "h/x", NULL },
    { NULL, NULL },
  };
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    char *k = url_host_key_normal(keys[i].url);
    CHECK_STR(k, keys[i].want);
    free(k);
  }
}

/* url_host_normal: the host cut from a normal form, without a copy. */
static void test_host_normal(void)
{
  static const struct {
    const char *url, *want;
  } cases[] = {
    { "http://h/", "h" },
    { "https://Example.com:8443/x", "Example.com" }, /* as found */
    { "http://a@b:c@h:81/", "h" },
    { "http://[::1]:8/x", "[::1]" },
    { "http://[fe80::1%25eth0]/", "[fe80::1%25eth0]" },
    { "http://example.edu./", "example.edu." },
    { "http://h", NULL },
    { "http://[::1/", NULL },
    { "http://[::1]x/", NULL },
    { "h/x", NULL },
    { NULL, NULL },
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    size_t n = 99;
    const char *h = url_host_normal(cases[i].url, &n);
    if (cases[i].want == NULL) {
      CHECK(h == NULL && n == 99);
      continue;
    }
    CHECK(h != NULL && n == strlen(cases[i].want) &&
          strncmp(h, cases[i].want, n) == 0);
  }
}

/* url_host_normalize: --domain's values, normalised as hosts. */
static void test_host_normalize(void)
{
  static const struct {
    const char *host, *want;
  } cases[] = {
    { "example.edu", "example.edu" },
    { "CS.Example.EDU", "cs.example.edu" },
    { "example.edu.", "example.edu" }, /* one name to DNS */
    { "127.0.0.1", "127.0.0.1" },
    { "127.1", "127.0.0.1" }, /* as libcurl reads it */
    { "0x7f.0.0.2", "127.0.0.2" },
    { "::1", "[::1]" },
    { "[::1]", "[::1]" },
    { "[::FFFF:1.2.3.4]", "[::ffff:1.2.3.4]" },
    { "%41.com", "a.com" },
    /* Anything but a host alone. */
    { "", NULL },
    { ".", NULL },
    { ".example.edu", NULL },
    { "a..b", NULL },
    { "example.edu..", NULL },
    { "example.edu:80", NULL },
    { "example.edu:", NULL },
    { "[::1]:80", NULL },
    { "[::1", NULL },
    { "http://example.edu", NULL },
    { "example.edu/", NULL },
    { "example.edu/x", NULL },
    { "u@example.edu", NULL },
    { "example.edu?q", NULL },
    { "example.edu#f", NULL },
    { "exa mple.edu", NULL },
    { " example.edu", NULL },
    { "a\\b", NULL },
    { "%0a.com", NULL },
    { NULL, NULL },
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char *h = url_host_normalize(cases[i].host);
    CHECK_STR(h, cases[i].want);
    free(h);
  }
  /* Longer than any URL could hold. */
  char big[URL_MAX_LEN + 8];
  for (size_t i = 0; i < sizeof(big) - 1; i++)
    big[i] = i % 2 ? '.' : 'a';
  big[sizeof(big) - 1] = '\0';
  CHECK(url_host_normalize(big) == NULL);
  big[URL_MAX_LEN - 21] = '\0'; /* ends in a label */
  char *h = url_host_normalize(big);
  CHECK(h != NULL && strcmp(h, big) == 0);
  free(h);
}

/* check_base: url_base_resolve(base, href) must be want, the same as
 * url_resolve_normalized, and url_host_key_normal of it url_host_key's. */
static void check_base(const char *base, const char *href, const char *want,
                       int line)
{
  url_base_t b;
  url_base_init(&b, base);
  char *got = url_base_resolve(&b, href);
  char *slow = url_resolve_normalized(base, href);
  char *key = got ? url_host_key_normal(got) : NULL;
  char *skey = got ? url_host_key(got) : NULL;
  if (!((got == NULL && want == NULL) ||
        (got != NULL && want != NULL && strcmp(got, want) == 0)) ||
      !((slow == NULL && want == NULL) ||
        (slow != NULL && want != NULL && strcmp(slow, want) == 0)) ||
      !((key == NULL && skey == NULL) ||
        (key != NULL && skey != NULL && strcmp(key, skey) == 0))) {
    testhelp_failed++;
    fprintf(stderr,
            "%s:%d: base \"%s\" href \"%s\": fast \"%s\" key "
            "\"%s\", slow \"%s\" key \"%s\", want \"%s\"\n",
            __FILE__, line, base ? base : "(null)", href, got ? got : "(null)",
            key ? key : "(null)", slow ? slow : "(null)",
            skey ? skey : "(null)", want ? want : "(null)");
  }
  free(got);
  free(slow);
  free(key);
  free(skey);
}

#define BASE(base, href, want) check_base(base, href, want, __LINE__)

/* The per-page fast path: what it takes, where it stops, and the slow
 * path's quirks it must reproduce (tests/unit/common/url_base_test.c
 * compares the two paths on far more inputs). */
static void test_base(void)
{
  const char *d = "http://h/a/b/c.html?q=1";
  /* Plain relative paths, with leading dot segments. */
  BASE(d, "x.html", "http://h/a/b/x.html");
  BASE(d, "x/y/", "http://h/a/b/x/y/");
  BASE(d, "../x.html#f", "http://h/a/x.html");
  BASE(d, "./../../x", "http://h/x");
  BASE(d, "../../../../x", "http://h/x");
  BASE(d, "..", "http://h/a/");
  BASE(d, ".", "http://h/a/b/");
  BASE(d, "../", "http://h/a/");
  BASE(d, "x;p=1,2/(y)*", "http://h/a/b/x;p=1,2/(y)*");
  BASE(d, "a@b~c_d-e", "http://h/a/b/a@b~c_d-e");
  /* Query kept byte for byte, a bare '?' dropped, fragment dropped. */
  BASE(d, "x?a=%7e&b=/./..", "http://h/a/b/x?a=%7e&b=/./..");
  BASE(d, "x?", "http://h/a/b/x");
  BASE(d, "x?#f", "http://h/a/b/x");
  BASE(d, "x#a?b#c", "http://h/a/b/x");
  BASE(d, "x?a b", "http://h/a/b/x?a%20b");
  /* "", "#frag": the base itself. */
  BASE(d, "", "http://h/a/b/c.html?q=1");
  BASE(d, "#top", "http://h/a/b/c.html?q=1");
  BASE(d, "?y", "http://h/a/b/c.html?y");
  /* Root-relative and network-path references. */
  BASE(d, "/x:y/z", "http://h/x:y/z");
  BASE(d, "/x/../y", "http://h/y");
  BASE(d, "//O/x", "http://o/x");
  /* Absolute, in normal form already or not. */
  BASE(d, "https://o.example/p?q#f", "https://o.example/p?q");
  BASE(d, "http://o:8080", "http://o:8080/");
  BASE(d, "http://o#f", "http://o/");
  BASE(d, "http://o:80/", "http://o/");
  BASE(d, "https://o:443/", "https://o/");
  BASE(d, "http://o:0080/", "http://o/");
  BASE(d, "http://O/", "http://o/");
  BASE(d, "http://127.1/", "http://127.0.0.1/");
  BASE(d, "http://0x7f.0.0.1/", "http://127.0.0.1/");
  BASE(d, "http://a.0x7f/", "http://a.0x7f/");
  BASE(d, "http://u:p@o/", "http://u:p@o/");
  BASE(d, "http://[::1]:8080/x", "http://[::1]:8080/x");
  BASE(d, "http://o/a/./b/%7e", "http://o/a/b/~");
  BASE(d, "http://o:65536/", NULL);
  /* Other schemes: never followed. */
  BASE(d, "mailto:a@b", NULL);
  BASE(d, "javascript:void(0)", NULL);
  BASE(d, "ftp://o/", NULL);
  BASE(d, "http:x", "http://h/a/b/x");
  BASE("https://h/a/", "http:x", NULL);
  /* Bytes that need cleaning, escapes and dot segments: slow path. */
  BASE(d, " x ", "http://h/a/b/x");
  BASE(d, "a\tb", "http://h/a/b/ab");
  BASE(d, "a b", "http://h/a/b/a%20b");
  BASE(d, "a\\b", "http://h/a/b/a/b");
  BASE(d, "caf\xc3\xa9", "http://h/a/b/caf%C3%A9");
  BASE(d, "%7ex/%2e%2e/y", "http://h/a/b/y");
  BASE(d, "x/./y/../z", "http://h/a/b/x/z");
  /* libcurl 7.88 drops the directory's '/' before a query that follows
   * dot segments (RFC 3986 says "http://h/a/b/?y"); the fast path leaves
   * such hrefs to it, so both give the same. */
  BASE(d, "./?y", "http://h/a/b?y");
  BASE(d, "../?y", "http://h/a?y");
  /* Bases that are not a plain normal form: relative hrefs go slow. */
  /* libcurl merges with the escaped "%2e%2e" still in place. */
  BASE("http://h/a/%2e%2e/b/c", "../x", "http://h/x");
  BASE("HTTP://H/a/b", "x", "http://h/a/x");
  BASE("http://h/a/b#f", "x", "http://h/a/x");
  BASE("http://h/a/b#f", "", "http://h/a/b");
  BASE("http://u:p@h/a/b", "x", "http://u:p@h/a/x");
  BASE("http://[::1]/a/b", "../x", "http://[::1]/x");
  BASE("http://h", "x", "http://h/x");
  BASE(NULL, "x", NULL);
  BASE(NULL, "http://o/x#f", "http://o/x");
  BASE("not a url", "x", NULL);
  BASE("not a url", "https://o/", "https://o/");
}

static void test_path_query(void)
{
  const char *u = "http://h:8/a/b?c=d";
  CHECK(url_path_query(u) == u + 10); /* a pointer into url */
  CHECK_STR(url_path_query("https://u@h/"), "/");
  CHECK_STR(url_path_query("http://h/a?b#c"), "/a?b#c");
  CHECK_STR(url_path_query("http://h?q"), "?q");
  CHECK_STR(url_path_query("http://h#f"), "#f");
  CHECK_STR(url_path_query("http://h"), "");
  /* No authority: url is a bare path, whatever "://" comes later. */
  CHECK_STR(url_path_query("/a?u=http://h/x"), "/a?u=http://h/x");
  CHECK_STR(url_path_query("a/b://c"), "a/b://c");
  CHECK_STR(url_path_query("?x=://y"), "?x=://y");
  CHECK_STR(url_path_query(""), "");
  CHECK_STR(url_path_query("mailto:a@b"), "mailto:a@b");
  /* Any scheme, even one RFC 3986 would not call one, as typed. */
  CHECK_STR(url_path_query("x y://h/p"), "/p");
  CHECK_STR(url_path_query("://h/p"), "/p");
  /* On every normal form: the first '/' after "://". */
  char *n = url_normalize("HTTP://Ex.COM:80/%7ea/./b?q#f");
  CHECK_STR(n, "http://ex.com/~a/b?q");
  CHECK_STR(url_path_query(n), "/~a/b?q");
  free(n);
}

static void test_nonpage(void)
{
  CHECK(url_is_nonpage("http://h/a.jpg"));
  CHECK(url_is_nonpage("http://h/a/b.PDF"));
  CHECK(url_is_nonpage("http://h/x.tar.gz"));
  CHECK(url_is_nonpage("http://h/style.css?v=3"));
  CHECK(url_is_nonpage("http://h/app.js#x"));
  CHECK(url_is_nonpage("http://h/f.woff2"));
  CHECK(url_is_nonpage("http://h/doc.docx;jsessionid=12"));
  CHECK(url_is_nonpage("http://h/v.MP4"));
  CHECK(!url_is_nonpage("http://h/"));
  CHECK(!url_is_nonpage("http://h/index.html"));
  CHECK(!url_is_nonpage("http://h/page.php?file=a.pdf"));
  CHECK(!url_is_nonpage("http://h/pdf"));
  CHECK(!url_is_nonpage("http://h/a.jpg/"));
  CHECK(!url_is_nonpage("http://h/a.jpgx"));
  CHECK(!url_is_nonpage("http://h.jpg"));
  CHECK(!url_is_nonpage("http://h.pdf/x"));
  CHECK(!url_is_nonpage(NULL));
  /* Every extension of url.h's list, in any case (the list in url.c is
   * sorted for bsearch: a misplaced entry would be missed here). */
  static const char *const ext[] = {
    "jpg", "jpeg", "png",  "gif",   "bmp",  "webp", "svg",  "svgz", "ico",
    "tif", "tiff", "avif", "heic",  "mp3",  "wav",  "ogg",  "oga",  "flac",
    "aac", "m4a",  "opus", "mid",   "midi", "wma",  "mp4",  "m4v",  "webm",
    "avi", "mov",  "mkv",  "flv",   "wmv",  "mpg",  "mpeg", "ogv",  "3gp",
    "zip", "gz",   "tgz",  "tar",   "bz2",  "tbz2", "xz",   "txz",  "7z",
    "rar", "zst",  "iso",  "dmg",   "exe",  "msi",  "deb",  "rpm",  "apk",
    "jar", "bin",  "pdf",  "ps",    "eps",  "doc",  "docx", "xls",  "xlsx",
    "ppt", "pptx", "odt",  "ods",   "odp",  "rtf",  "epub", "css",  "js",
    "mjs", "map",  "woff", "woff2", "ttf",  "otf",  "eot",
  };
  for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
    char u[64], up[64];
    snprintf(u, sizeof(u), "http://h/d/x.%s", ext[i]);
    for (size_t j = 0; j <= strlen(u); j++)
      up[j] = (char)(u[j] >= 'a' && u[j] <= 'z' ? u[j] - 32 : u[j]);
    if (!url_is_nonpage(u) || !url_is_nonpage(up)) {
      testhelp_failed++;
      fprintf(stderr, "%s:%d: url_is_nonpage misses \"%s\"\n", __FILE__,
              __LINE__, u);
    }
    snprintf(u, sizeof(u), "http://h/d/x.%sq", ext[i]);
    CHECK(!url_is_nonpage(u));
  }
  CHECK(!url_is_nonpage("http://h/x.abcdefgh"));
  CHECK(!url_is_nonpage("http://h/x."));
  CHECK(!url_is_nonpage("http://h/.x/y"));
}

static void test_idn(void)
{
  /* libcurl 7.88 converts IDN hosts only under a UTF-8 LC_CTYPE; the
   * tests start in the "C" locale, where the URL must be rejected (never
   * kept raw or %-encoded), then switch if C.UTF-8 exists. */
  const char *idn = "http://ex\xc3\xa4mple.com/p";
  char *u = url_normalize(idn);
  CHECK(u == NULL);
  free(u);
  if (setlocale(LC_CTYPE, "C.UTF-8") != NULL) {
    u = url_normalize(idn);
    CHECK_STR(u, "http://xn--exmple-cua.com/p");
    free(u);
    /* Regression (fuzzing, tests/fuzz/regressions/url/): names libidn2
     * refuses (invalid UTF-8, leading hyphen or combining mark, a bad
     * "xn--" label) are rejected, and libcurl 7.88 no longer leaks its
     * host copy on them (LeakSanitizer checks that under make asan). */
    static const char *const bad[] = {
      "http://EXA\xb3\xaf\xb3\xba.com/",
      "http://-\xc3\xa9.com/",
      "http://\xcc\x81"
      "a.com/",
      "http://xn--a.\xc3\xa9.com/",
      "http://\xc3\xa9\xff.com/",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
      u = url_normalize(bad[i]);
      CHECK_STR(u, NULL);
      free(u);
      u = url_resolve_normalized("http://h/", bad[i]);
      CHECK_STR(u, NULL);
      free(u);
    }
    u = url_resolve_normalized("http://h/", "//a--b.\xc3\xa9.com/");
    CHECK_STR(u, "http://a--b.xn--9ca.com/");
    free(u);
    /* Regression (fuzzing): IDN mapping can turn a host into one libcurl
     * reads as IPv4 ("0x7f.1" + zero-width space); the normal form must
     * be the address at once, not on the next normalisation. */
    NORM(NULL, "http://0x7f.1\xe2\x80\x8b/x", "http://127.0.0.1/x");
    NORM("http:/0x7f.1\xe2\x80\x8b/xle/", "http:*/ca,,",
         "http://127.0.0.1/xle/*/ca,,");
    char *d = url_host_normalize("\xc3\x89"
                                 "cole.FR.");
    CHECK_STR(d, "xn--cole-9oa.fr");
    free(d);
    CHECK(url_host_normalize("-\xc3\xa9.com") == NULL);
    setlocale(LC_CTYPE, "C");
  } else {
    SKIP("no C.UTF-8 locale: the IDN half did not run");
  }
  /* A host that percent-decodes to a control character is refused. */
  CHECK(url_normalize("http://%0a.com/") == NULL);
  CHECK(url_normalize("http://a%20b/") == NULL);
}

/* Concurrency: the same inputs from several threads give the same answers
 * (and give TSan something to look at). */
static void *worker(void *arg)
{
  int *bad = arg;
  for (int i = 0; i < 200; i++) {
    char *u = url_resolve_normalized("http://H/a/b/c", "../%7ed/./e f#x");
    if (u == NULL || strcmp(u, "http://h/a/~d/e%20f") != 0)
      (*bad)++;
    free(u);
    char *k = url_host_key("https://h/");
    if (k == NULL || strcmp(k, "https://h:443") != 0)
      (*bad)++;
    free(k);
  }
  return NULL;
}

static void test_threads(void)
{
  enum { N = 4 };
  pthread_t t[N];
  int bad[N] = { 0 };
  int started = 0;
  for (int i = 0; i < N; i++)
    if (pthread_create(&t[i], NULL, worker, &bad[i]) == 0)
      started++;
    else
      break;
  CHECK_INT(started, N);
  for (int i = 0; i < started; i++) {
    pthread_join(t[i], NULL);
    CHECK_INT(bad[i], 0);
  }
}

int main(void)
{
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    fprintf(stderr, "url_test: curl_global_init failed\n");
    return 1;
  }
  RUN(test_rfc_normal);
  RUN(test_rfc_abnormal);
  RUN(test_resolve_more);
  RUN(test_case_port_dots);
  RUN(test_percent);
  RUN(test_spaces_utf8_controls);
  RUN(test_fragment_empty);
  RUN(test_schemes);
  RUN(test_ipv6);
  RUN(test_long);
  RUN(test_scope);
  RUN(test_host_key);
  RUN(test_host_normal);
  RUN(test_host_normalize);
  RUN(test_base);
  RUN(test_path_query);
  RUN(test_nonpage);
  RUN(test_idn);
  RUN(test_threads);
  curl_global_cleanup();
  return TEST_EXIT();
}
