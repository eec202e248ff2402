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

static void test_reserve_is_exact(void)
{
  strbuf_t b = STRBUF_INIT;
  CHECK(strbuf_reserve(&b, 1000));
  CHECK_INT(b.cap, 1001);
  CHECK_STR(b.p, "");
  char *first = b.p;
  for (int i = 0; i < 1000; i++)
    strbuf_addc(&b, 'z');
  CHECK(b.p == first && b.cap == 1001 && b.p[1000] == '\0');
  strbuf_addc(&b, 'z'); /* past the reservation: grows as usual */
  CHECK_INT(b.len, 1001);
  CHECK(b.cap > 1002 && b.p[1001] == '\0');
  CHECK(!strbuf_reserve(&b, (size_t)-1 / 2)); /* a hint: no oom */
  CHECK(!b.oom && b.len == 1001);
  strbuf_release(&b);
  strbuf_t e = STRBUF_INIT;
  CHECK(strbuf_reserve(&e, 0));
  char *s = strbuf_detach(&e);
  CHECK_STR(s, "");
  free(s);
}

static void test_reset_keeps_memory(void)
{
  strbuf_t b = STRBUF_INIT;
  strbuf_reset(&b); /* on a buffer that never grew */
  CHECK(b.p == NULL && b.len == 0 && !b.oom);
  strbuf_adds(&b, "a longer first string");
  char *first = b.p;
  size_t cap = b.cap;
  strbuf_reset(&b);
  CHECK(b.p == first && b.cap == cap && b.len == 0);
  CHECK_STR(b.p, "");
  strbuf_adds(&b, "short");
  CHECK(b.p == first);
  CHECK_STR(b.p, "short");
  strbuf_add(&b, "x", (size_t)-1 / 2);
  CHECK(b.oom);
  strbuf_reset(&b); /* clears oom: the buffer is usable again */
  CHECK(!b.oom);
  strbuf_adds(&b, "again");
  CHECK_STR(b.p, "again");
  strbuf_release(&b);
}

int main(void)
{
  RUN(test_empty_detach);
  RUN(test_adds_grow_and_binary);
  RUN(test_addf);
  RUN(test_oom_is_sticky);
  RUN(test_reserve_is_exact);
  RUN(test_reset_keeps_memory);
  return TEST_EXIT();
}
