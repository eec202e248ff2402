/* strbuf_test.c: the growable buffer behind URL, HTTP and WARC building. */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "testhelp.h"

static void test_empty_detach(void)
{
  strbuf_t b = STRBUF_INIT;
  char *s = strbuf_detach(&b);
  CHECK_STR(s, "");
  free(s);
  CHECK(b.p == NULL && b.len == 0);
}

static void test_adds_grow_and_binary(void)
{
  strbuf_t b = STRBUF_INIT;
  strbuf_adds(&b, "ab");
  strbuf_addc(&b, 'c');
  strbuf_add(&b, "\0d", 2);
  for (int i = 0; i < 10000; i++)
    strbuf_addc(&b, 'x');
  CHECK_INT(b.len, 5 + 10000);
  CHECK(memcmp(b.p, "abc\0dx", 6) == 0);
  CHECK(b.p[b.len] == '\0');
  strbuf_release(&b);
  CHECK(b.p == NULL && b.len == 0 && !b.oom);
}

static void test_addf(void)
{
  strbuf_t b = STRBUF_INIT;
  strbuf_addf(&b, "%s=%d;", "n", 42);
  char big[5000];
  memset(big, 'y', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  strbuf_addf(&b, "%s", big);
  CHECK_INT(b.len, 5 + 4999);
  CHECK(strncmp(b.p, "n=42;yyy", 8) == 0);
  char *s = strbuf_detach(&b);
  CHECK_INT(strlen(s), 5 + 4999);
  free(s);
}

static void test_oom_is_sticky(void)
{
  strbuf_t b = STRBUF_INIT;
  strbuf_adds(&b, "start");
  /* An impossible size fails like an allocation failure would. */
  strbuf_add(&b, "x", (size_t)-1 / 2);
  CHECK(b.oom);
  strbuf_adds(&b, "more");
  CHECK_INT(b.len, 5);
  CHECK(strbuf_detach(&b) == NULL);
  CHECK(!b.oom && b.p == NULL);
}

int main(void)
{
  RUN(test_empty_detach);
  RUN(test_adds_grow_and_binary);
  RUN(test_addf);
  RUN(test_oom_is_sticky);
  return TEST_EXIT();
}
