/* urlfilter_test.c: unit tests for web/urlfilter: wget's rule (any
 * accept, no reject), unanchored extended expressions, refusals that
 * name the option, and concurrent readers. */
#include "urlfilter.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../../testhelp.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_none(void)
{
  char err[256];
  CHECK(urlfilter_pass(NULL, "http://h/"));
  urlfilter_t *f = urlfilter_new(NULL, 0, NULL, 0, err, sizeof(err));
  CHECK(f != NULL);
  CHECK(urlfilter_pass(f, "http://h/anything?C=N;O=D"));
  urlfilter_delete(f);
}

static void test_rule(void)
{
  char err[256];
  const char *acc[] = { "/docs/", "\\.txt$" };
  const char *rej[] = { "[?]C=[NMSD];O=[AD]$", "^https:" };
  urlfilter_t *f = urlfilter_new(acc, N(acc), rej, N(rej), err, sizeof(err));
  CHECK(f != NULL);
  CHECK(urlfilter_pass(f, "http://h/docs/a.html"));     /* first accept */
  CHECK(urlfilter_pass(f, "http://h/notes.txt"));       /* second accept */
  CHECK(!urlfilter_pass(f, "http://h/other/a.html"));   /* no accept */
  CHECK(!urlfilter_pass(f, "http://h/docs/?C=N;O=D"));  /* accepted, rejected */
  CHECK(urlfilter_pass(f, "http://h/docs/?C=N;O=DX"));  /* $ anchors */
  CHECK(!urlfilter_pass(f, "https://h/docs/a.html"));   /* second reject */
  CHECK(!urlfilter_pass(f, "http://h/notes.txt.html")); /* $ again */
  urlfilter_delete(f);
  /* Reject alone: everything else passes; unanchored: a match anywhere. */
  const char *rej2[] = { "sort=" };
  f = urlfilter_new(NULL, 0, rej2, 1, err, sizeof(err));
  CHECK(f != NULL);
  CHECK(urlfilter_pass(f, "http://h/a"));
  CHECK(!urlfilter_pass(f, "http://h/list?x=1&sort=asc"));
  urlfilter_delete(f);
}

static void test_refused(void)
{
  char err[256] = "";
  const char *ok[] = { "a" };
  const char *bad[] = { "a(" };
  CHECK(urlfilter_new(ok, 1, bad, 1, err, sizeof(err)) == NULL);
  CHECK(strstr(err, "--reject-regex 'a('") != NULL);
  CHECK(urlfilter_new(bad, 1, ok, 1, err, sizeof(err)) == NULL);
  CHECK(strstr(err, "--accept-regex 'a('") != NULL);
  const char *nl[] = { "a\nb" };
  CHECK(urlfilter_new(nl, 1, NULL, 0, err, sizeof(err)) == NULL);
  CHECK(strstr(err, "line break") != NULL);
}

static urlfilter_t *shared;

static void *reader(void *arg)
{
  long bad = 0;
  (void)arg;
  for (int i = 0; i < 20000; i++) {
    char url[64];
    snprintf(url, sizeof(url), "http://h/p%d%s", i, i % 2 ? "?C=N;O=D" : "");
    if (urlfilter_pass(shared, url) != (i % 2 == 0))
      bad++;
  }
  return (void *)bad;
}

/* Several threads on one filter, as the parse workers do. */
static void test_threads(void)
{
  char err[256];
  const char *rej[] = { "[?]C=" };
  shared = urlfilter_new(NULL, 0, rej, 1, err, sizeof(err));
  CHECK(shared != NULL);
  pthread_t t[4];
  for (int i = 0; i < 4; i++)
    CHECK(pthread_create(&t[i], NULL, reader, NULL) == 0);
  for (int i = 0; i < 4; i++) {
    void *bad;
    pthread_join(t[i], &bad);
    CHECK((long)bad == 0);
  }
  urlfilter_delete(shared);
}

int main(void)
{
  RUN(test_none);
  RUN(test_rule);
  RUN(test_refused);
  RUN(test_threads);
  return TEST_EXIT();
}
