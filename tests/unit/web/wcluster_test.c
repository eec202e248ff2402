/* wcluster_test.c: the crawler's side of a shared crawl (wcluster.c)
 * that needs no Redis: the robots.txt answer a worker stores for the
 * others, read back.
 *
 * Review: the length recorded ('N') was taken for the body's, which
 * robots_parse then read that many bytes of: a record whose body is
 * shorter (not one this crawler wrote) read past it; a field twice
 * leaked the first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch.h"
#include "testhelp.h"
#include "wcluster.h"

/* rec: append field TAG (V, N bytes) to B (*LEN so far). */
static void rec(char *b, size_t *len, char tag, const char *v, size_t n)
{
  unsigned char h[5] = { (unsigned char)tag, (unsigned char)n,
                         (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                         (unsigned char)(n >> 24) };
  memcpy(b + *len, h, 5);
  memcpy(b + *len + 5, v, n);
  *len += 5 + n;
}

static void test_robots_read_back(void)
{
  char b[512];
  size_t len = 0;
  fetch_result_t r;
  const char *body = "User-agent: *\nDisallow: /x\n";
  char num[64];
  snprintf(num, sizeof(num), "%d 200 0 %zu", (int)FETCH_OK, strlen(body));
  rec(b, &len, 'N', num, strlen(num));
  rec(b, &len, 'E', "", 0);
  rec(b, &len, 'B', body, strlen(body));
  CHECK(wcluster_robots_decode(b, len, &r));
  CHECK_INT(r.len, strlen(body));
  CHECK(r.body != NULL && memcmp(r.body, body, r.len) == 0);
  fetch_result_free(&r);

  /* A length past the body's: not read as one. */
  len = 0;
  snprintf(num, sizeof(num), "%d 200 0 %d", (int)FETCH_OK, 100000);
  rec(b, &len, 'N', num, strlen(num));
  rec(b, &len, 'B', body, strlen(body));
  CHECK(!wcluster_robots_decode(b, len, &r));
  CHECK(r.body == NULL);

  /* A body twice: the last one, the first freed (ASan). */
  len = 0;
  snprintf(num, sizeof(num), "%d 200 0 2", (int)FETCH_OK);
  rec(b, &len, 'N', num, strlen(num));
  rec(b, &len, 'B', "first body", 10);
  rec(b, &len, 'B', "ok", 2);
  CHECK(wcluster_robots_decode(b, len, &r));
  CHECK(r.body != NULL && strcmp(r.body, "ok") == 0);
  fetch_result_free(&r);

  /* A failure without a body (a 404): read as it was. */
  len = 0;
  snprintf(num, sizeof(num), "%d 404 0 0", (int)FETCH_HTTP_ERROR);
  rec(b, &len, 'N', num, strlen(num));
  CHECK(wcluster_robots_decode(b, len, &r));
  CHECK_INT(r.status, 404);
  fetch_result_free(&r);
}

/* A host's last failed try is kept for its own next holders only
 * (review: kept by URL alone, it skipped another host whose robots.txt
 * redirects there, without a try of its own, where one process asked
 * again and crawled it). A final answer is every host's. */
static void test_robots_for_host(void)
{
  char b[512];
  size_t len = 0;
  char num[64];
  snprintf(num, sizeof(num), "%d 503 0 0", (int)FETCH_HTTP_ERROR);
  rec(b, &len, 'N', num, strlen(num));
  rec(b, &len, 'H', "http://b:80", 11);
  CHECK(wcluster_robots_for(b, len, "http://b:80"));
  CHECK(!wcluster_robots_for(b, len, "http://a:80"));
  fetch_result_t r;
  CHECK(wcluster_robots_decode(b, len, &r)); /* the tag is not the answer */
  CHECK_INT(r.status, 503);
  fetch_result_free(&r);
  len = 0;
  snprintf(num, sizeof(num), "%d 200 0 0", (int)FETCH_OK);
  rec(b, &len, 'N', num, strlen(num));
  CHECK(wcluster_robots_for(b, len, "http://a:80"));
}

int main(void)
{
  RUN(test_robots_read_back);
  RUN(test_robots_for_host);
  return TEST_EXIT();
}
