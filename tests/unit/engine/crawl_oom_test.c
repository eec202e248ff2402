/* crawl_oom_test.c: crawl() reports an out-of-memory in the middle of a
 * crawl as CRAWL_ENOMEM instead of returning success with pages missing.
 *
 * Linked with -Wl,--wrap=calloc (tests/Makefile): every calloc of the
 * binary, the engine's included, goes through __wrap_calloc, which fails
 * once in the thread that asked for it. edge_fn asks on a chosen link, so
 * the engine_add that follows in the same parse thread cannot allocate
 * its item. realloc is wrapped the same way (-Wl,--wrap=realloc), for the
 * scanner's own buffer. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawl.h"
#include "testhelp.h"

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

static _Thread_local bool fail_next, fail_next_realloc;

void *__real_realloc(void *p, size_t size);
void *__wrap_realloc(void *p, size_t size);

void *__wrap_realloc(void *p, size_t size)
{
  if (fail_next_realloc) {
    fail_next_realloc = false;
    return NULL;
  }
  return __real_realloc(p, size);
}

void *__wrap_calloc(size_t n, size_t size)
{
  if (fail_next) {
    fail_next = false;
    return NULL;
  }
  return __real_calloc(n, size);
}

/* A chain a -> b -> c -> d; the link to FAIL_AT fails to be queued. */
static const char *fail_at;
/* The link after the one to this fails in the scanner (LONG is longer
 * than its first buffer, so copying it out needs a realloc). */
static const char *fail_scan_after;
#define LONG                                                                   \
  "e123456789012345678901234567890123456789012345678901234567890"              \
  "1234567890"

static char *fetch(char *link)
{
  const char *body = strcmp(link, "a") == 0 ? "link:b"
                   : strcmp(link, "b") == 0 ? "link:c"
                   : strcmp(link, "c") == 0 ? "link:d link:" LONG
                                            : "";
  return strdup(body);
}

static void edge(char *from, char *to)
{
  (void)from;
  if (fail_at != NULL && strcmp(to, fail_at) == 0)
    fail_next = true;
  if (fail_scan_after != NULL && strcmp(to, fail_scan_after) == 0)
    fail_next_realloc = true;
}

static void test_no_failure_is_ok(void)
{
  fail_at = NULL;
  CHECK_INT(crawl("a", 2, 2, 8, fetch, edge), CRAWL_OK);
}

static void test_link_lost_mid_crawl_is_enomem(void)
{
  fail_at = "c";
  CHECK_INT(crawl("a", 2, 2, 8, fetch, edge), CRAWL_ENOMEM);
  CHECK_STR(crawl_strerror(CRAWL_ENOMEM), "out of memory");
}

static void test_link_lost_in_scanner_is_enomem(void)
{
  fail_at = NULL;
  fail_scan_after = "d";
  CHECK_INT(crawl("a", 2, 2, 8, fetch, edge), CRAWL_ENOMEM);
  fail_scan_after = NULL;
}

static void test_invalid_arguments(void)
{
  fail_at = NULL;
  CHECK_INT(crawl(NULL, 1, 1, 1, fetch, edge), CRAWL_EINVAL);
  CHECK_INT(crawl("a", 0, 1, 1, fetch, edge), CRAWL_EINVAL);
  CHECK_INT(crawl("a", 1, 1, 0, fetch, edge), CRAWL_EINVAL);
  CHECK_INT(crawl("a", 5000, 1, 1, fetch, edge), CRAWL_EINVAL);
  CHECK_INT(crawl("a", 1, 5000, 1, fetch, edge), CRAWL_EINVAL);
  CHECK_STR(crawl_strerror(CRAWL_EINVAL), "invalid argument");
}

int main(void)
{
  RUN(test_no_failure_is_ok);
  RUN(test_link_lost_mid_crawl_is_enomem);
  RUN(test_link_lost_in_scanner_is_enomem);
  RUN(test_invalid_arguments);
  return TEST_EXIT();
}
