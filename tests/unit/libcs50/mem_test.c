/* mem_test.c: the allocation helpers never exit, report failure as NULL +
 * ENOMEM, count allocations exactly (also across threads), and fault
 * injection fails exactly where asked. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "../../testhelp.h"
#include "mem.h"

static void test_basic(void)
{
  long base = mem_outstanding();
  char *p = mem_malloc(10);
  unsigned char *z = mem_calloc(100, 1);
  char *s = mem_strdup("hello");
  int zero = 1;

  CHECK(p != NULL);
  CHECK(z != NULL);
  for (int i = 0; z != NULL && i < 100; i++) {
    zero = zero && z[i] == 0;
  }
  CHECK(zero);
  CHECK_STR(s, "hello");
  CHECK(s != NULL && s != (char *)"hello");
  CHECK_INT(mem_outstanding(), base + 3);
  mem_free(p);
  mem_free(z);
  mem_free(s);
  mem_free(NULL); /* no-op, not counted */
  CHECK_INT(mem_outstanding(), base);
}

static void test_zero_sizes(void)
{
  long base = mem_outstanding();
  void *a = mem_malloc(0);
  void *b = mem_calloc(0, 8);
  void *c = mem_realloc(NULL, 0);

  /* NULL must only ever mean failure. */
  CHECK(a != NULL);
  CHECK(b != NULL);
  CHECK(c != NULL);
  CHECK_INT(mem_outstanding(), base + 3);
  mem_free(a);
  mem_free(b);
  mem_free(c);
  CHECK_INT(mem_outstanding(), base);
}

static void test_realloc(void)
{
  long base = mem_outstanding();
  char *p = mem_realloc(NULL, 4);
  char *q;

  CHECK(p != NULL);
  CHECK_INT(mem_outstanding(), base + 1);
  memcpy(p, "abc", 4);
  q = mem_realloc(p, 1 << 20);
  CHECK(q != NULL);
  CHECK_STR(q, "abc");
  CHECK_INT(mem_outstanding(), base + 1); /* resizing is not a new block */
  mem_free(q);
  CHECK_INT(mem_outstanding(), base);
}

static void test_failures(void)
{
  long base = mem_outstanding();
  char *p;

  errno = 0;
  CHECK(mem_calloc(SIZE_MAX / 2, 4) == NULL); /* overflow, not short */
  CHECK_INT(errno, ENOMEM);
  errno = 0;
  CHECK(mem_strdup(NULL) == NULL);
  CHECK_INT(errno, EINVAL);
  CHECK_INT(mem_outstanding(), base);

  mem_failAfter(1);
  p = mem_malloc(8);
  CHECK(p != NULL);
  errno = 0;
  CHECK(mem_malloc(8) == NULL);
  CHECK_INT(errno, ENOMEM);
  CHECK(mem_calloc(1, 8) == NULL);
  CHECK(mem_strdup("x") == NULL);
  /* A failed realloc leaves the old block valid and owned by the caller. */
  if (p != NULL) {
    memcpy(p, "kept", 5);
  }
  CHECK(mem_realloc(p, 64) == NULL);
  CHECK_STR(p, "kept");
  mem_failAfter(-1);
  CHECK_INT(mem_outstanding(), base + 1);
  mem_free(p);
  p = mem_malloc(8);
  CHECK(p != NULL); /* injection off again */
  mem_free(p);
  CHECK_INT(mem_outstanding(), base);
}

enum { NTHREADS = 4, PER_THREAD = 50000 };

static void *churn(void *arg)
{
  (void)arg;
  for (int i = 0; i < PER_THREAD; i++) {
    void *p = mem_malloc(16);

    mem_free(p);
  }
  return NULL;
}

static void test_threads(void)
{
  long base = mem_outstanding();
  pthread_t t[NTHREADS];
  int started = 0;

  for (int i = 0; i < NTHREADS; i++) {
    started += pthread_create(&t[i], NULL, churn, NULL) == 0;
  }
  CHECK_INT(started, NTHREADS);
  for (int i = 0; i < started; i++) {
    pthread_join(t[i], NULL);
  }
  /* Lost updates under contention would leave a non-zero residue. */
  CHECK_INT(mem_outstanding(), base);
}

int main(void)
{
  RUN(test_basic);
  RUN(test_zero_sizes);
  RUN(test_realloc);
  RUN(test_failures);
  RUN(test_threads);
  return TEST_EXIT();
}
