/* bag.c: a growable array used as a stack; see bag.h.
 *
 * Invariants: items[0 .. count-1] are the items, oldest first, so the
 * newest is items[count - 1]; count <= cap; cap >= MIN_CAP. */
#include "bag.h"

#include <stdint.h>

#include "mem.h"

#define MIN_CAP ((size_t)16)

struct bag {
  void **items;
  size_t count;
  size_t cap;
};

bag_t *bag_new(void)
{
  bag_t *bag = mem_malloc(sizeof(*bag));

  if (bag == NULL) {
    return NULL;
  }
  bag->items = mem_malloc(MIN_CAP * sizeof(*bag->items));
  if (bag->items == NULL) {
    mem_free(bag);
    return NULL;
  }
  bag->count = 0;
  bag->cap = MIN_CAP;
  return bag;
}

/* resize: set the capacity to cap; false (bag untouched) on failure. */
static bool resize(bag_t *bag, size_t cap)
{
  void **items;

  if (cap > SIZE_MAX / sizeof(*items)) {
    return false;
  }
  items = mem_realloc(bag->items, cap * sizeof(*items));
  if (items == NULL) {
    return false;
  }
  bag->items = items;
  bag->cap = cap;
  return true;
}

bool bag_insert(bag_t *bag, void *item)
{
  if (bag == NULL || item == NULL) {
    return false;
  }
  if (bag->count == bag->cap && !resize(bag, bag->cap * 2)) {
    return false;
  }
  bag->items[bag->count++] = item;
  return true;
}

void *bag_extract(bag_t *bag)
{
  void *item;

  if (bag == NULL || bag->count == 0) {
    return NULL;
  }
  item = bag->items[--bag->count];
  /* Shrink at a quarter full, to half: a drained frontier gives its memory
   * back, and alternating insert/extract at a boundary cannot thrash. A
   * failed shrink just keeps the bigger array. */
  if (bag->cap > MIN_CAP && bag->count <= bag->cap / 4) {
    (void)resize(bag, bag->cap / 2);
  }
  return item;
}

size_t bag_count(const bag_t *bag)
{
  return bag != NULL ? bag->count : 0;
}

void bag_print(const bag_t *bag, FILE *fp,
               void (*itemprint)(FILE *fp, void *item))
{
  if (fp == NULL) {
    return;
  }
  if (bag == NULL) {
    fputs("(null)\n", fp);
    return;
  }
  fputc('{', fp);
  if (itemprint != NULL) {
    for (size_t i = bag->count; i > 0; i--) {
      if (i != bag->count) {
        fputs(", ", fp);
      }
      itemprint(fp, bag->items[i - 1]);
    }
  }
  fputs("}\n", fp);
}

void bag_iterate(const bag_t *bag, void *arg,
                 void (*itemfunc)(void *arg, void *item))
{
  if (bag == NULL || itemfunc == NULL) {
    return;
  }
  for (size_t i = bag->count; i > 0; i--) {
    itemfunc(arg, bag->items[i - 1]);
  }
}

void bag_delete(bag_t *bag, void (*itemdelete)(void *item))
{
  if (bag == NULL) {
    return;
  }
  if (itemdelete != NULL) {
    for (size_t i = bag->count; i > 0; i--) {
      itemdelete(bag->items[i - 1]);
    }
  }
  mem_free(bag->items);
  mem_free(bag);
}
