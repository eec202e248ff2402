/* scope_test.c: unit tests for common/scope: prefixes (the plain prefix
 * match url_in_scope made, checked against a list scan), domains (label
 * aligned, addresses whole), both at once, and concurrent readers. */
#include "scope.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../testhelp.h"
#include "url.h"

/* in: scope_contains for a scope of the given lists. */
static bool in(const char *const *p, size_t np, const char *const *d, size_t nd,
               const char *url)
{
  scope_t *s = scope_new(p, np, d, nd);
  CHECK(s != NULL);
  bool yes = scope_contains(s, url);
  scope_delete(s);
  return yes;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The cases url_in_scope was held to, kept. */
static void test_prefix(void)
{
  char *p1 = url_normalize("HTTP://Example.com");
  char *p2 = url_normalize("http://other.org/docs/");
  const char *const prefixes[] = { p1, NULL, p2 };
  CHECK_STR(p1, "http://example.com/");
  scope_t *s = scope_new(prefixes, 3, NULL, 0);
  CHECK(s != NULL);
  CHECK(scope_contains(s, "http://example.com/"));
  CHECK(scope_contains(s, "http://example.com/a/b"));
  CHECK(scope_contains(s, "http://other.org/docs/x"));
  CHECK(scope_contains(s, "http://other.org/docs/"));
  CHECK(!scope_contains(s, "http://other.org/doc"));
  CHECK(!scope_contains(s, "http://other.org/"));
  CHECK(!scope_contains(s, "http://example.com.evil.net/"));
  CHECK(!scope_contains(s, "https://example.com/"));
  CHECK(!scope_contains(s, "http://example.com:8080/"));
  CHECK(!scope_contains(s, "http://u@example.com/"));
  CHECK(!scope_contains(s, NULL));
  CHECK(!scope_contains(NULL, "http://example.com/"));
  /* The whole pipeline: href -> normal form -> scope. */
  char *u = url_resolve_normalized("http://example.com/x/y", "../%7Ez");
  CHECK_STR(u, "http://example.com/~z");
  CHECK(u != NULL && scope_contains(s, u));
  free(u);
  scope_delete(s);
  CHECK(!in(prefixes, 0, NULL, 0, "http://example.com/a"));
  free(p1);
  free(p2);

  /* A plain prefix, not a directory; a covered prefix changes nothing;
   * duplicates are fine. */
  const char *const q[] = { "http://h/ab/", "http://h/a", "http://h/a",
                            "http://h/b/c", "http://u:p@h/" };
  CHECK(in(q, N(q), NULL, 0, "http://h/a"));
  CHECK(in(q, N(q), NULL, 0, "http://h/ab"));
  CHECK(in(q, N(q), NULL, 0, "http://h/ab/x"));
  CHECK(in(q, N(q), NULL, 0, "http://h/azzz"));
  CHECK(in(q, N(q), NULL, 0, "http://h/b/c/d"));
  CHECK(!in(q, N(q), NULL, 0, "http://h/b/"));
  CHECK(!in(q, N(q), NULL, 0, "http://h/"));
  CHECK(!in(q, N(q), NULL, 0, "http://h/B/c"));
  /* Userinfo is part of the authority, as the bytes say. */
  CHECK(in(q, N(q), NULL, 0, "http://u:p@h/anything"));
  CHECK(!in(q, N(q), NULL, 0, "http://u@h/a"));
  /* Not a normal form: no path after the authority. */
  CHECK(!in(q, N(q), NULL, 0, "http://h"));
  CHECK(!in(q, N(q), NULL, 0, "h/a"));
}

/* next: a small deterministic generator (xorshift), for the scans. */
static unsigned long long rng = 88172645463325252ULL;
static unsigned next(unsigned n)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

/* random_url: a normal-form URL over a few hosts, ports and short paths
 * of a tiny alphabet, so that prefixes and URLs overlap often. */
static void random_url(char *buf, size_t n)
{
  static const char *const origin[] = {
    "http://h",   "http://h:81",           "https://h",  "http://hh",
    "http://h.h", "http://127.0.0.1:5000", "http://u@h",
  };
  int len = snprintf(buf, n, "%s/", origin[next(N(origin))]);
  unsigned plen = next(7);
  for (unsigned i = 0; i < plen && (size_t)len + 2 < n; i++)
    buf[len++] = "ab/"[next(3)];
  buf[len] = '\0';
}

/* Against the list scan url_in_scope did: the same answer for every URL,
 * with prefixes overlapping, covering and duplicating each other. */
static void test_prefix_scan(void)
{
  enum { NP = 300, NU = 20000 };
  static char store[NP][64];
  const char *p[NP];
  for (int round = 0; round < 20; round++) {
    size_t np = 1 + next(round < 10 ? 8 : NP);
    for (size_t i = 0; i < np; i++) {
      random_url(store[i], sizeof(store[i]));
      p[i] = store[i];
    }
    scope_t *s = scope_new(p, np, NULL, 0);
    CHECK(s != NULL);
    int bad = 0;
    for (int k = 0; k < NU / 20; k++) {
      char u[64];
      random_url(u, sizeof(u));
      bool want = false;
      for (size_t i = 0; i < np; i++)
        want = want || strncmp(u, p[i], strlen(p[i])) == 0;
      if (scope_contains(s, u) != want && bad++ < 5)
        fprintf(stderr, "scope_test: round %d: '%s': got %d, want %d\n", round,
                u, !want, want);
    }
    CHECK_INT(bad, 0);
    scope_delete(s);
  }
}

/* Hundreds of hosts, a prefix each, and hundreds of prefixes on one. */
static void test_prefix_many(void)
{
  enum { NH = 1000 };
  static char store[2 * NH][64];
  const char *p[2 * NH];
  for (int i = 0; i < NH; i++) {
    snprintf(store[i], sizeof(store[i]), "http://127.0.%d.%d:8080/in/", i / 250,
             i % 250 + 1);
    snprintf(store[NH + i], sizeof(store[i]), "http://h/d%d/", i);
    p[i] = store[i];
    p[NH + i] = store[NH + i];
  }
  scope_t *s = scope_new(p, 2 * NH, NULL, 0);
  CHECK(s != NULL);
  int bad = 0;
  char u[80];
  for (int i = 0; i < NH; i++) {
    snprintf(u, sizeof(u), "http://127.0.%d.%d:8080/in/x", i / 250,
             i % 250 + 1);
    bad += !scope_contains(s, u);
    snprintf(u, sizeof(u), "http://127.0.%d.%d:8080/out/", i / 250,
             i % 250 + 1);
    bad += scope_contains(s, u);
    snprintf(u, sizeof(u), "http://127.0.%d.%d:8081/in/", i / 250, i % 250 + 1);
    bad += scope_contains(s, u);
    snprintf(u, sizeof(u), "http://h/d%d/page", i);
    bad += !scope_contains(s, u);
    snprintf(u, sizeof(u), "http://h/d%d", i);
    bad += scope_contains(s, u);
    snprintf(u, sizeof(u), "http://h/e%d/", i);
    bad += scope_contains(s, u);
  }
  CHECK_INT(bad, 0);
  CHECK(!scope_contains(s, "http://127.0.4.1:8080/in/"));
  scope_delete(s);
}

static void test_domain(void)
{
  const char *const d[] = { "example.edu", "123.com", "xn--cole-9oa.fr" };
  scope_t *s = scope_new(NULL, 0, d, N(d));
  CHECK(s != NULL);
  /* The domain and its subdomains, any scheme, port and userinfo. */
  CHECK(scope_contains(s, "http://example.edu/"));
  CHECK(scope_contains(s, "http://cs.example.edu/a"));
  CHECK(scope_contains(s, "http://a.b.cs.example.edu/"));
  CHECK(scope_contains(s, "https://example.edu/"));
  CHECK(scope_contains(s, "https://cs.example.edu:8443/x?y"));
  CHECK(scope_contains(s, "http://u:p@www.example.edu:81/"));
  CHECK(scope_contains(s, "http://example.edu./"));
  CHECK(scope_contains(s, "http://cs.example.edu.:8/"));
  CHECK(scope_contains(s, "http://x.123.com/"));
  CHECK(scope_contains(s, "http://www.xn--cole-9oa.fr/"));
  /* Aligned on labels, and nothing else. */
  CHECK(!scope_contains(s, "http://badexample.edu/"));
  CHECK(!scope_contains(s, "http://cs.badexample.edu/"));
  CHECK(!scope_contains(s, "http://example.edu.evil.net/"));
  CHECK(!scope_contains(s, "http://example.eduu/"));
  CHECK(!scope_contains(s, "http://edu/"));
  CHECK(!scope_contains(s, "http://example.edu../"));
  CHECK(!scope_contains(s, "http://23.com/"));
  CHECK(!scope_contains(s, "http://evil.net/example.edu"));
  CHECK(!scope_contains(s, "http://example.edu@evil.net/"));
  CHECK(!scope_contains(s, "http://evil.net/?u=http://example.edu/"));
  CHECK(!scope_contains(s, "http://example.edu")); /* not normal */
  CHECK(!scope_contains(s, "example.edu"));
  /* An empty label is no label start ("a..example.edu" has one). */
  CHECK(scope_contains(s, "http://a..example.edu/"));
  scope_delete(s);
}

/* A hostile host of a thousand labels is cut to the longest domain's
 * length; what matches at its end still matches. */
static void test_domain_long_host(void)
{
  const char *const d[] = { "example.edu" };
  char url[URL_MAX_LEN + 1];
  strcpy(url, "http://");
  size_t n = strlen(url);
  while (n + 2 + strlen("example.edu/") < sizeof(url) - 1) {
    url[n++] = 'a';
    url[n++] = '.';
  }
  strcpy(url + n, "example.edu/");
  CHECK(in(NULL, 0, d, 1, url));
  strcpy(url + n, "xexample.edu/");
  CHECK(!in(NULL, 0, d, 1, url));
}

/* Addresses match themselves alone. */
static void test_domain_address(void)
{
  const char *const d[] = { "127.0.0.2", "[::1]", "1.2.3.4.5" };
  scope_t *s = scope_new(NULL, 0, d, N(d));
  CHECK(s != NULL);
  CHECK(scope_contains(s, "http://127.0.0.2/"));
  CHECK(scope_contains(s, "http://127.0.0.2:8080/x"));
  CHECK(scope_contains(s, "https://127.0.0.2:8443/"));
  CHECK(scope_contains(s, "http://[::1]:8/"));
  CHECK(scope_contains(s, "http://1.2.3.4.5/"));
  CHECK(!scope_contains(s, "http://127.0.0.22/"));
  CHECK(!scope_contains(s, "http://27.0.0.2/"));
  CHECK(!scope_contains(s, "http://0.0.2/"));
  CHECK(!scope_contains(s, "http://a.127.0.0.2/"));
  CHECK(!scope_contains(s, "http://9.1.2.3.4.5/"));
  CHECK(!scope_contains(s, "http://x.1.2.3.4.5/"));
  CHECK(!scope_contains(s, "http://[::2]/"));
  CHECK(!scope_contains(s, "http://[::1%25lo]/"));
  scope_delete(s);
  /* No name domain has an address inside it either. */
  const char *const e[] = { "0.2", "edu" };
  CHECK(!in(NULL, 0, e, 1, "http://127.0.0.2/"));
  CHECK(in(NULL, 0, e, 2, "http://a.b.edu/"));
}

/* --domain's values through url_host_normalize, as the crawler does. */
static void test_domain_normalized(void)
{
  char *d[] = { url_host_normalize("Example.EDU."), url_host_normalize("127.2"),
                url_host_normalize("::1") };
  CHECK_STR(d[0], "example.edu");
  CHECK_STR(d[1], "127.0.0.2");
  CHECK_STR(d[2], "[::1]");
  scope_t *s = scope_new(NULL, 0, (const char *const *)d, N(d));
  CHECK(s != NULL);
  char *u = url_normalize("HTTPS://WWW.Example.Edu:443/x");
  CHECK(u != NULL && scope_contains(s, u));
  free(u);
  u = url_normalize("http://0x7f.0.0.2:9/");
  CHECK(u != NULL && scope_contains(s, u));
  free(u);
  u = url_normalize("http://[0:0::1]/");
  CHECK(u != NULL && scope_contains(s, u));
  free(u);
  scope_delete(s);
  for (size_t i = 0; i < N(d); i++)
    free(d[i]);
}

/* A URL is in when a prefix OR a domain admits it. */
static void test_both(void)
{
  const char *const p[] = { "http://127.0.0.1:5000/docs/" };
  const char *const d[] = { "example.edu" };
  scope_t *s = scope_new(p, 1, d, 1);
  CHECK(s != NULL);
  CHECK(scope_contains(s, "http://127.0.0.1:5000/docs/a"));
  CHECK(scope_contains(s, "http://cs.example.edu/"));
  CHECK(!scope_contains(s, "http://127.0.0.1:5000/"));
  CHECK(!scope_contains(s, "http://127.0.0.1/docs/"));
  CHECK(!scope_contains(s, "http://example.com/"));
  scope_delete(s);
}

static void test_new(void)
{
  scope_t *s = scope_new(NULL, 0, NULL, 0);
  CHECK(s != NULL);
  CHECK(!scope_contains(s, "http://h/"));
  scope_delete(s);
  scope_delete(NULL);
  const char *const nulls[] = { NULL, NULL };
  s = scope_new(nulls, 2, nulls, 2);
  CHECK(s != NULL);
  CHECK(!scope_contains(s, "http://h/"));
  scope_delete(s);

  static const char *const bad_p[] = { "http://h", "h/", "nonsense" };
  for (size_t i = 0; i < N(bad_p); i++) {
    const char *const p[] = { "http://ok/", bad_p[i] };
    errno = 0;
    CHECK(scope_new(p, 2, NULL, 0) == NULL);
    CHECK_INT(errno, EINVAL);
  }
  const char *const bad_d[] = { "example.edu", "" };
  errno = 0;
  CHECK(scope_new(NULL, 0, bad_d, 2) == NULL);
  CHECK_INT(errno, EINVAL);
  static char big[URL_MAX_LEN + 16];
  memset(big, 'a', sizeof(big) - 1);
  const char *const bd[] = { big };
  CHECK(scope_new(NULL, 0, bd, 1) == NULL);
  memcpy(big, "http://h/", 9);
  CHECK(scope_new(bd, 1, NULL, 0) == NULL);
}

/* Many readers at once, no lock (TSan looks here under make tsan). */
static scope_t *shared;

static void *reader(void *arg)
{
  int *bad = arg;
  for (int i = 0; i < 2000; i++) {
    *bad += !scope_contains(shared, "http://cs.example.edu/x");
    *bad += !scope_contains(shared, "http://h/d7/x");
    *bad += scope_contains(shared, "http://badexample.edu/");
    *bad += scope_contains(shared, "http://h/e7/");
  }
  return NULL;
}

static void test_threads(void)
{
  const char *const p[] = { "http://h/d7/", "http://h/d8/", "http://g/" };
  const char *const d[] = { "example.edu" };
  shared = scope_new(p, N(p), d, N(d));
  CHECK(shared != NULL);
  enum { T = 4 };
  pthread_t t[T];
  int bad[T] = { 0 };
  int started = 0;
  for (int i = 0; i < T; i++)
    if (pthread_create(&t[i], NULL, reader, &bad[i]) == 0)
      started++;
    else
      break;
  CHECK_INT(started, T);
  for (int i = 0; i < started; i++) {
    pthread_join(t[i], NULL);
    CHECK_INT(bad[i], 0);
  }
  scope_delete(shared);
}

int main(void)
{
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    fprintf(stderr, "scope_test: curl_global_init failed\n");
    return 1;
  }
  RUN(test_prefix);
  RUN(test_prefix_scan);
  RUN(test_prefix_many);
  RUN(test_domain);
  RUN(test_domain_long_host);
  RUN(test_domain_address);
  RUN(test_domain_normalized);
  RUN(test_both);
  RUN(test_new);
  RUN(test_threads);
  curl_global_cleanup();
  return TEST_EXIT();
}
