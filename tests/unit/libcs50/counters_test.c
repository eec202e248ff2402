/* counters_test.c: add/get/set semantics, bad arguments, INT_MAX
 * saturation, ascending-key print and iterate from any insertion order,
 * many keys in both orders, out-of-memory. */
#include <limits.h>
#include <stdio.h>

#include "../../testhelp.h"
#include "counters.h"
#include "mem.h"

/* capture: what counters_print wrote (static buffer, next call reuses). */
static const char *capture(const counters_t *ctrs)
{
  static char text[4096];
  FILE *fp = tmpfile();
  size_t n;

  if (fp == NULL) {
    return NULL;
  }
  counters_print(ctrs, fp);
  rewind(fp);
  n = fread(text, 1, sizeof(text) - 1, fp);
  text[n] = '\0';
  fclose(fp);
  return text;
}

static void test_args(void)
{
  counters_t *c = counters_new();

  CHECK(c != NULL);
  CHECK_INT(counters_add(NULL, 1), 0);
  CHECK_INT(counters_add(c, -1), 0);
  CHECK_INT(counters_get(NULL, 1), 0);
  CHECK_INT(counters_get(c, -1), 0);
  CHECK_INT(counters_get(c, 5), 0);
  CHECK(!counters_set(NULL, 1, 1));
  CHECK(!counters_set(c, -1, 1));
  CHECK(!counters_set(c, 1, -1));
  CHECK_STR(capture(c), "{}\n");
  CHECK_STR(capture(NULL), "(null)\n");
  counters_print(c, NULL);
  counters_iterate(c, NULL, NULL);
  counters_iterate(NULL, NULL, NULL);
  counters_delete(NULL);
  counters_delete(c);
}

static void test_add_get_set(void)
{
  counters_t *c = counters_new();

  CHECK_INT(counters_add(c, 7), 1);
  CHECK_INT(counters_add(c, 7), 2);
  CHECK_INT(counters_add(c, 0), 1); /* 0 is a valid key */
  CHECK_INT(counters_get(c, 7), 2);
  CHECK_INT(counters_get(c, 0), 1);
  CHECK_INT(counters_get(c, 3), 0);
  CHECK(counters_set(c, 3, 10)); /* set creates */
  CHECK(counters_set(c, 7, 5));  /* set overwrites */
  CHECK_INT(counters_add(c, 3), 11);
  CHECK(counters_set(c, 9, 0)); /* a stored zero is still a key */
  CHECK_STR(capture(c), "{0=1, 3=11, 7=5, 9=0}\n");
  CHECK(counters_set(c, 1, INT_MAX));
  CHECK_INT(counters_add(c, 1), 0); /* would overflow: refused */
  CHECK_INT(counters_get(c, 1), INT_MAX);
  CHECK(counters_set(c, INT_MAX, 1)); /* largest key */
  CHECK_INT(counters_add(c, INT_MAX), 2);
  counters_delete(c);
}

typedef struct {
  long visits;
  long sum;
  int last_key;
  int ascending;
} walk_t;

static void walk(void *arg, const int key, const int count)
{
  walk_t *w = arg;

  if (key <= w->last_key) {
    w->ascending = 0;
  }
  w->last_key = key;
  w->visits++;
  w->sum += count;
}

static void test_order_and_scale(void)
{
  enum { N = 20000 };
  counters_t *up = counters_new();
  counters_t *down = counters_new();
  counters_t *mixed = counters_new();
  walk_t w = { 0, 0, -1, 1 };
  long ok = 0;
  int keys[] = { 42, 5, 17, 5, 99, 0, 17, 5 };

  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
    counters_add(mixed, keys[i]);
  }
  CHECK_STR(capture(mixed), "{0=1, 5=3, 17=2, 42=1, 99=1}\n");

  for (int i = 0; i < N; i++) {
    counters_add(up, i); /* the append fast path */
    counters_add(up, i);
    counters_add(down, N - 1 - i); /* the insert-at-front path */
  }
  for (int i = 0; i < N; i++) {
    ok += counters_get(up, i) == 2 && counters_get(down, i) == 1;
  }
  CHECK_INT(ok, N);
  counters_iterate(down, &w, walk);
  CHECK_INT(w.visits, N);
  CHECK_INT(w.sum, N);
  CHECK(w.ascending);
  counters_delete(up);
  counters_delete(down);
  counters_delete(mixed);
}

static void test_out_of_memory(void)
{
  long base = mem_outstanding();
  counters_t *c;

  mem_failAfter(0);
  CHECK(counters_new() == NULL);
  mem_failAfter(-1);
  c = counters_new();
  mem_failAfter(0);
  CHECK_INT(counters_add(c, 1), 0); /* first key needs the array */
  CHECK(!counters_set(c, 1, 4));
  mem_failAfter(-1);
  CHECK_INT(counters_get(c, 1), 0);
  for (int i = 0; i < 8; i++) { /* fill the first array exactly */
    counters_add(c, i);
  }
  mem_failAfter(0);
  CHECK_INT(counters_add(c, 3), 2);   /* existing key: no allocation */
  CHECK_INT(counters_add(c, 100), 0); /* new key: growth fails */
  mem_failAfter(-1);
  CHECK_STR(capture(c), "{0=1, 1=1, 2=1, 3=2, 4=1, 5=1, 6=1, 7=1}\n");
  counters_delete(c);
  CHECK_INT(mem_outstanding(), base);
}

int main(void)
{
  RUN(test_args);
  RUN(test_add_get_set);
  RUN(test_order_and_scale);
  RUN(test_out_of_memory);
  return TEST_EXIT();
}
