/* set_test.c: the CS50 set contract on the hashtable-backed set: argument
 * checks, copied keys, duplicates, print format and insertion order,
 * iterate-once, growth, adoption on delete, out-of-memory. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../testhelp.h"
#include "mem.h"
#include "set.h"

static void print_item(FILE *fp, const char *key, void *item)
{
  fprintf(fp, "%s:%s", key, (const char *)item);
}

/* capture: what set_print wrote (static buffer, next call reuses). */
static const char *capture(const set_t *set, int with_printer)
{
  static char text[4096];
  FILE *fp = tmpfile();
  size_t n;

  if (fp == NULL) {
    return NULL;
  }
  set_print(set, fp, with_printer ? print_item : NULL);
  rewind(fp);
  n = fread(text, 1, sizeof(text) - 1, fp);
  text[n] = '\0';
  fclose(fp);
  return text;
}

static void test_args(void)
{
  set_t *set = set_new();

  CHECK(set != NULL);
  CHECK(!set_insert(NULL, "k", "v"));
  CHECK(!set_insert(set, NULL, "v"));
  CHECK(!set_insert(set, "k", NULL));
  CHECK(set_find(NULL, "k") == NULL);
  CHECK(set_find(set, NULL) == NULL);
  CHECK_INT(set_count(NULL), 0);
  CHECK_INT(set_count(set), 0);
  set_iterate(NULL, NULL, NULL);
  set_iterate(set, NULL, NULL);
  set_print(set, NULL, print_item);
  set_delete(NULL, NULL);
  set_delete(set, NULL);
}

static void test_insert_find_print(void)
{
  set_t *set = set_new();
  char key[8] = "dog";

  CHECK_STR(capture(NULL, 1), "(null)\n");
  CHECK_STR(capture(set, 1), "{}\n");
  CHECK(set_insert(set, key, "woof"));
  strcpy(key, "cat"); /* the set kept its own copy */
  CHECK(set_insert(set, key, "meow"));
  CHECK(set_insert(set, "ant", "..."));
  CHECK(!set_insert(set, "dog", "bark"));
  CHECK_STR(set_find(set, "dog"), "woof");
  CHECK_STR(set_find(set, "cat"), "meow");
  CHECK(set_find(set, "cow") == NULL);
  CHECK_INT(set_count(set), 3);
  CHECK_STR(capture(set, 1), "{dog:woof, cat:meow, ant:...}\n");
  CHECK_STR(capture(set, 0), "{}\n");
  set_delete(set, NULL);
}

typedef struct {
  long visits;
  long sum;
  int in_order;
} walk_t;

static void walk(void *arg, const char *key, void *item)
{
  walk_t *w = arg;
  long i = (long)(uintptr_t)item;
  char want[32];

  snprintf(want, sizeof(want), "w%ld", i);
  if (i != w->visits + 1 || strcmp(key, want) != 0) {
    w->in_order = 0;
  }
  w->visits++;
  w->sum += i;
}

static void test_growth_iterate(void)
{
  enum { N = 200000 };
  set_t *set = set_new();
  walk_t w = { 0, 0, 1 };
  char key[32];
  long found = 0;

  for (long i = 1; i <= N; i++) {
    snprintf(key, sizeof(key), "w%ld", i);
    CHECK(set_insert(set, key, (void *)(uintptr_t)i));
  }
  for (long i = 1; i <= N; i++) {
    snprintf(key, sizeof(key), "w%ld", i);
    found += (long)(uintptr_t)set_find(set, key) == i;
  }
  CHECK_INT(found, N);
  CHECK_INT(set_count(set), N);
  set_iterate(set, &w, walk);
  CHECK_INT(w.visits, N);
  CHECK_INT(w.sum, (long)N * (N + 1) / 2);
  CHECK(w.in_order);
  set_delete(set, NULL);
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
  set_t *set;

  mem_failAfter(0);
  CHECK(set_new() == NULL);
  mem_failAfter(1);
  CHECK(set_new() == NULL); /* wrapper yes, table no: no leak */
  mem_failAfter(-1);
  CHECK_INT(mem_outstanding(), base);

  set = set_new();
  CHECK(set_insert(set, "a", mem_strdup("A")));
  CHECK(set_insert(set, "b", mem_strdup("B")));
  mem_failAfter(0);
  CHECK(!set_insert(set, "c", "C"));
  mem_failAfter(-1);
  CHECK_INT(set_count(set), 2);
  ndeleted = 0;
  set_delete(set, delete_item);
  CHECK_INT(ndeleted, 2);
  CHECK_INT(mem_outstanding(), base);
}

int main(void)
{
  RUN(test_args);
  RUN(test_insert_find_print);
  RUN(test_growth_iterate);
  RUN(test_delete_and_oom);
  return TEST_EXIT();
}
