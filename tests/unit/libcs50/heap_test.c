/* heap_test.c: the heap against a plain model: random pushes, pops and
 * removals from the middle (through the positions the heap keeps in a
 * field of each item, as the frontier's hosts have), with many equal
 * keys; after every operation the heap order holds, every tracked
 * position is right, and a pop yields a least item. Also: a heap without
 * positions (items found by scanning, as the frontier's delayed items
 * are), sorting, reserve, clear. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../testhelp.h"
#include "heap.h"

struct item {
  int key;
  bool in;    /* in the heap, says the model */
  size_t pos; /* kept by the heap */
};

static bool item_less(const void *a, const void *b)
{
  const struct item *x = a, *y = b;
  return x->key < y->key;
}

/* check_heap: the heap order, and every item's position. */
static int check_heap(const heap_t *h, bool tracked)
{
  int bad = 0;
  for (size_t i = 0; i < heap_count(h); i++) {
    struct item *it = heap_get(h, i);
    if (i > 0 && item_less(it, heap_get(h, (i - 1) / 2)))
      bad++;
    if (tracked && it->pos != i)
      bad++;
    if (!it->in)
      bad++;
  }
  return bad;
}

enum { NITEMS = 2000 };

static void test_random_against_model(void)
{
  static struct item items[NITEMS];
  memset(items, 0, sizeof(items));
  heap_t *h = heap_new(item_less, offsetof(struct item, pos));
  CHECK(h != NULL);
  size_t count = 0;
  int bad = 0, order = 0;
  for (int n = 0; n < 200000; n++) {
    struct item *it = &items[(unsigned)rand() % NITEMS];
    switch ((unsigned)rand() % 4) {
    case 0:
    case 1: /* push (twice as often: the heap fills up) */
      if (!it->in) {
        it->key = (int)((unsigned)rand() % 50); /* many ties */
        it->in = true;
        bad += !heap_push(h, it);
        count++;
      }
      break;
    case 2: { /* pop: a least item */
      struct item *top = heap_pop(h);
      if (count == 0) {
        bad += top != NULL;
        break;
      }
      bad += top == NULL || !top->in;
      if (top == NULL)
        break;
      for (int k = 0; k < NITEMS; k++)
        bad += items[k].in && items[k].key < top->key;
      top->in = false;
      count--;
      break;
    }
    case 3: /* remove from the middle, by tracked position */
      if (it->in) {
        bad += heap_get(h, it->pos) != it;
        bad += heap_remove(h, it->pos) != it;
        it->in = false;
        count--;
      }
      break;
    }
    bad += heap_count(h) != count;
    if (n % 97 == 0)
      order += check_heap(h, true);
  }
  order += check_heap(h, true);
  CHECK_INT(bad, 0);
  CHECK_INT(order, 0);
  /* Drain: keys come out in order. */
  int last = -1;
  struct item *it;
  while ((it = heap_pop(h)) != NULL) {
    order += it->key < last;
    last = it->key;
    it->in = false;
  }
  CHECK_INT(order, 0);
  CHECK_INT(heap_count(h), 0);
  CHECK(heap_top(h) == NULL);
  heap_delete(h);
  heap_delete(NULL);
}

static void test_untracked_scan_and_sort(void)
{
  static struct item items[NITEMS];
  memset(items, 0, sizeof(items));
  heap_t *h = heap_new(item_less, HEAP_NO_POS);
  CHECK(heap_reserve(h, NITEMS));
  for (int k = 0; k < NITEMS; k++) {
    items[k].key = (int)((unsigned)rand() % 100000);
    items[k].in = true;
    CHECK(heap_push(h, &items[k]));
  }
  /* Remove every third item, found by scanning. */
  int bad = 0;
  for (int k = 0; k < NITEMS; k += 3) {
    size_t i = 0;
    while (i < heap_count(h) && heap_get(h, i) != &items[k])
      i++;
    bad += i == heap_count(h);
    if (i < heap_count(h))
      bad += heap_remove(h, i) != &items[k];
    items[k].in = false;
    if (k % 300 == 0)
      bad += check_heap(h, false);
  }
  CHECK_INT(bad, 0);
  CHECK_INT(heap_count(h), NITEMS - (NITEMS + 2) / 3);
  int last = -1;
  size_t popped = 0;
  struct item *it;
  while ((it = heap_pop(h)) != NULL) {
    bad += it->key < last || !it->in;
    last = it->key;
    popped++;
  }
  CHECK_INT(bad, 0);
  CHECK_INT(popped, NITEMS - (NITEMS + 2) / 3);
  heap_delete(h);
}

static void test_top_remove_last_clear(void)
{
  struct item a = { 3, true, 0 }, b = { 1, true, 0 }, c = { 2, true, 0 };
  heap_t *h = heap_new(item_less, offsetof(struct item, pos));
  CHECK(heap_top(h) == NULL);
  CHECK(heap_pop(h) == NULL);
  CHECK(heap_push(h, &a));
  CHECK(heap_push(h, &b));
  CHECK(heap_push(h, &c));
  CHECK(heap_top(h) == &b);
  CHECK_INT(b.pos, 0);
  CHECK_INT(heap_count(h), 3);
  /* The item in the last position leaves without moving another. */
  struct item *last = heap_get(h, 2);
  CHECK(heap_remove(h, 2) == last);
  CHECK_INT(heap_count(h), 2);
  CHECK_INT(check_heap(h, true), 0);
  heap_clear(h);
  CHECK_INT(heap_count(h), 0);
  CHECK(heap_top(h) == NULL);
  CHECK(heap_push(h, &a)); /* usable after clear */
  CHECK(heap_top(h) == &a);
  CHECK_INT(a.pos, 0);
  heap_delete(h);
}

int main(void)
{
  srand(1); /* the same operations every run */
  RUN(test_random_against_model);
  RUN(test_untracked_scan_and_sort);
  RUN(test_top_remove_last_clear);
  return TEST_EXIT();
}
