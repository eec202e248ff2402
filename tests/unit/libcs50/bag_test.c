/* bag_test.c: LIFO extract, newest-first iterate/print, duplicates, NULL
 * handling, growth and shrink over a large fill/drain, adoption on delete,
 * out-of-memory. */
#include <stdint.h>
#include <stdio.h>

#include "../../testhelp.h"
#include "bag.h"
#include "mem.h"

static void print_item(FILE *fp, void *item)
{
  fputs(item, fp);
}

/* capture: what bag_print wrote (static buffer, next call reuses). */
static const char *capture(const bag_t *bag, int with_printer)
{
  static char text[4096];
  FILE *fp = tmpfile();
  size_t n;

  if (fp == NULL) {
    return NULL;
  }
  bag_print(bag, fp, with_printer ? print_item : NULL);
  rewind(fp);
  n = fread(text, 1, sizeof(text) - 1, fp);
  text[n] = '\0';
  fclose(fp);
  return text;
}

static void test_args_and_empty(void)
{
  bag_t *bag = bag_new();

  CHECK(bag != NULL);
  CHECK(bag_extract(bag) == NULL);
  CHECK(bag_extract(NULL) == NULL);
  CHECK(!bag_insert(NULL, "x"));
  CHECK(!bag_insert(bag, NULL));
  CHECK_INT(bag_count(bag), 0);
  CHECK_INT(bag_count(NULL), 0);
  CHECK_STR(capture(bag, 1), "{}\n");
  CHECK_STR(capture(NULL, 1), "(null)\n");
  bag_print(bag, NULL, print_item);
  bag_iterate(bag, NULL, NULL);
  bag_iterate(NULL, NULL, NULL);
  bag_delete(NULL, NULL);
  bag_delete(bag, NULL);
}

static void test_lifo_and_print(void)
{
  bag_t *bag = bag_new();

  CHECK(bag_insert(bag, "a"));
  CHECK(bag_insert(bag, "b"));
  CHECK(bag_insert(bag, "c"));
  CHECK(bag_insert(bag, "b")); /* a multiset: duplicates are kept */
  CHECK_INT(bag_count(bag), 4);
  CHECK_STR(capture(bag, 1), "{b, c, b, a}\n");
  CHECK_STR(capture(bag, 0), "{}\n");
  CHECK_STR(bag_extract(bag), "b");
  CHECK_STR(bag_extract(bag), "c");
  CHECK(bag_insert(bag, "d"));
  CHECK_STR(bag_extract(bag), "d");
  CHECK_STR(bag_extract(bag), "b");
  CHECK_STR(bag_extract(bag), "a");
  CHECK(bag_extract(bag) == NULL);
  bag_delete(bag, NULL);
}

typedef struct {
  long next; /* item expected next: newest first */
  long visits;
  int in_order;
} walk_t;

static void walk(void *arg, void *item)
{
  walk_t *w = arg;

  if ((long)(uintptr_t)item != w->next) {
    w->in_order = 0;
  }
  w->next--;
  w->visits++;
}

static void test_fill_drain(void)
{
  enum { N = 100000 };
  long base = mem_outstanding();
  bag_t *bag = bag_new();
  walk_t w = { N, 0, 1 };
  long ok = 0;

  for (long i = 1; i <= N; i++) {
    ok += bag_insert(bag, (void *)(uintptr_t)i);
  }
  CHECK_INT(ok, N);
  bag_iterate(bag, &w, walk);
  CHECK_INT(w.visits, N);
  CHECK(w.in_order);
  ok = 0;
  for (long i = N; i >= 1; i--) {
    ok += (long)(uintptr_t)bag_extract(bag) == i; /* shrinks on the way */
  }
  CHECK_INT(ok, N);
  CHECK(bag_extract(bag) == NULL);
  CHECK(bag_insert(bag, "again")); /* usable after draining */
  CHECK_STR(bag_extract(bag), "again");
  bag_delete(bag, NULL);
  CHECK_INT(mem_outstanding(), base);
}

static int ndeleted;

static void delete_item(void *item)
{
  ndeleted++;
  mem_free(item);
}

static void test_delete_and_oom(void)
{
  long base = mem_outstanding();
  bag_t *bag;
  char *got;
  long ok = 0;

  mem_failAfter(1);
  CHECK(bag_new() == NULL); /* struct yes, array no: no leak */
  mem_failAfter(-1);
  CHECK_INT(mem_outstanding(), base);

  bag = bag_new();
  for (int i = 0; i < 16; i++) { /* exactly the initial capacity */
    ok += bag_insert(bag, mem_strdup("item"));
  }
  CHECK_INT(ok, 16);
  mem_failAfter(0);
  CHECK(!bag_insert(bag, "x")); /* growth fails: refused, unchanged */
  mem_failAfter(-1);
  CHECK_INT(bag_count(bag), 16);
  got = bag_extract(bag);
  CHECK_STR(got, "item"); /* still a working bag */
  ndeleted = 0;
  bag_delete(bag, delete_item);
  CHECK_INT(ndeleted, 15);
  /* The extracted item is ours; everything else went with the bag. */
  CHECK_INT(mem_outstanding(), base + 1);
  mem_free(got);
}

int main(void)
{
  RUN(test_args_and_empty);
  RUN(test_lifo_and_print);
  RUN(test_fill_drain);
  RUN(test_delete_and_oom);
  return TEST_EXIT();
}
