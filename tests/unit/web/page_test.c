/* page_test.c: unit tests for web/page, the record of one item. */
#include "page.h"

#include "../../testhelp.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pagecheck.h"
#include "pstore.h"
#include "robots.h"

static void test_of_and_free(void)
{
  fitem_t *it = fitem_new("http://h/", 0);
  CHECK(it != NULL);
  if (it == NULL)
    return;
  struct page *p = page_of(it);
  CHECK(p != NULL && p == it->data && page_of(it) == p);
  CHECK(p != NULL && page_links(p) == 0 && !p->noindex && p->tmp == NULL);
  /* A temporary file still named is removed with the record. */
  char tmp[] = "/tmp/page_test.XXXXXX";
  int fd = mkstemp(tmp);
  CHECK(fd >= 0);
  if (fd >= 0)
    close(fd);
  if (p != NULL) {
    p->tmp = strdup(tmp);
    struct link l = { strdup("http://h/a"), strdup("http://h:80"),
                      L_CANDIDATE };
    CHECK(page_add_link(p, &l, NULL, NULL, 1) == 0 && page_links(p) == 1);
  }
  page_free(p);
  CHECK(access(tmp, F_OK) != 0);
  page_free(NULL);
  fitem_delete(it);
}

static void test_robots(void)
{
  struct page p = { .noindex = false };
  page_robots(&p, 0);
  CHECK(!p.noindex && !p.nofollow);
  page_robots(&p, ROBOTS_NOFOLLOW);
  CHECK(!p.noindex && p.nofollow);
  page_robots(&p, ROBOTS_NOINDEX);
  CHECK(p.noindex && p.nofollow); /* they add up */
  page_robots(&p, 0);
  CHECK(p.noindex && p.nofollow);
}

static void test_sniff(void)
{
  struct page *p = calloc(1, sizeof(*p));
  CHECK(p != NULL);
  if (p == NULL)
    return;
  p->res.outcome = FETCH_OK;
  p->res.body = strdup("%PDF-1.4 and more");
  p->res.len = strlen(p->res.body);
  p->res.x_robots_tag = strdup("noindex");
  page_sniff(p, FORMAT_AUTO, "tse-crawler");
  CHECK(p->sniffed && p->binary && !p->text && !p->noindex);
  CHECK(p->res.body == NULL); /* dropped at once */
  page_free(p);

  p = calloc(1, sizeof(*p));
  CHECK(p != NULL);
  if (p == NULL)
    return;
  p->res.body = strdup("a.html\n");
  p->res.len = strlen(p->res.body);
  p->res.content_type = strdup("text/plain");
  p->res.x_robots_tag = strdup("none");
  page_sniff(p, FORMAT_AUTO, "tse-crawler");
  CHECK(p->sniffed && !p->binary && p->text && p->noindex && p->nofollow);
  CHECK(p->res.body != NULL);
  page_free(p);
}

static size_t rec(char *b, size_t len, char tag, const char *v, size_t n)
{
  unsigned char h[5] = { (unsigned char)tag, (unsigned char)n,
                         (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                         (unsigned char)(n >> 24) };
  memcpy(b + len, h, 5);
  memcpy(b + len + 5, v, n);
  return len + 5 + n;
}

/* The store page_unpack names temporary files in: a directory never
 * written. */
static pstore_t *nowhere;

/* page_unpack of records no worker's page_pack writes (Redis holds what
 * any client wrote). Review: a field twice leaked the first (ASan's leak
 * check and valgrind see it); a link of no known class, or a candidate
 * without a host key, was committed under host key "". */
static void test_unpack_field_twice(void)
{
  char b[512];
  size_t len = 0;
  len = rec(b, len, 'U', "http://h/", 9);
  len = rec(b, len, 'D', "1", 1);
  len = rec(b, len, 'P', ".tmp-1", 6);
  len = rec(b, len, 'P', ".tmp-2", 6);
  len = rec(b, len, 'R', "a", 1);
  len = rec(b, len, 'R', "b", 1);
  fitem_t *it = page_unpack(b, len, NULL, nowhere, 1);
  CHECK(it != NULL);
  if (it != NULL) {
    struct page *p = it->data;
    CHECK(strcmp(p->tmp, "/nonexistent/.tmp-2") == 0);
    page_free(p);
    it->data = NULL;
    fitem_delete(it);
  }
}

/* refused: page_unpack refuses the record of http://h/ at depth 0 with
 * field TAG (V, N bytes) after the URL and depth. */
static bool refused(char tag, const char *v, size_t n)
{
  char b[512];
  size_t len = 0;
  len = rec(b, len, 'U', "http://h/", 9);
  len = rec(b, len, 'D', "0", 1);
  len = rec(b, len, tag, v, n);
  fitem_t *it = page_unpack(b, len, NULL, nowhere, 1);
  if (it == NULL)
    return true;
  page_free(it->data);
  it->data = NULL;
  fitem_delete(it);
  return false;
}

/* A temporary name that is no temporary page's (a kept page's, say). */
static void test_unpack_tmp_name(void)
{
  CHECK(refused('P', ".tmp-kept-00ff", 14));
  CHECK(!refused('P', ".tmp-12", 7));
}

static void test_unpack_link_class(void)
{
  CHECK(refused('K', "\x07http://h/x\0", 12)); /* no such class */
  CHECK(refused('K', "\x00http://h/x\0", 12)); /* L_CANDIDATE, no key */
  CHECK(!refused('K', "\x00http://h/x\0http://h:80", 23));
}

int main(void)
{
  nowhere = pstore_new("/nonexistent", false, false, false);
  CHECK(nowhere != NULL);
  RUN(test_unpack_field_twice);
  RUN(test_unpack_link_class);
  RUN(test_unpack_tmp_name);
  RUN(test_of_and_free);
  RUN(test_robots);
  RUN(test_sniff);
  pstore_close(nowhere, false);
  return TEST_EXIT();
}
