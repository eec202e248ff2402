/* counters.c: a sorted array of (key, count) pairs; see counters.h.
 *
 * An array rather than CS50's linked list: half the memory, binary search,
 * and in-order iteration for free. Invariants: pairs[0 .. n-1] have
 * strictly increasing keys, all >= 0; every count >= 0; n <= cap. */
#include "counters.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "mem.h"

#define MIN_CAP ((size_t)8)

typedef struct {
  int key;
  int count;
} pair_t;

struct counters {
  pair_t *pairs;
  size_t n;
  size_t cap;
};

counters_t *counters_new(void)
{
  counters_t *ctrs = mem_malloc(sizeof(*ctrs));

  if (ctrs == NULL) {
    return NULL;
  }
  ctrs->pairs = NULL; /* allocated on first key: many stay empty */
  ctrs->n = 0;
  ctrs->cap = 0;
  return ctrs;
}

/* locate: index of key, or of the first key greater than it (where key
 * would be inserted). The common case, a key past the last, is O(1). */
static size_t locate(const counters_t *ctrs, int key)
{
  size_t lo = 0;
  size_t hi = ctrs->n;

  if (hi > 0 && ctrs->pairs[hi - 1].key < key) {
    return hi;
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;

    if (ctrs->pairs[mid].key < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/* slot: the pair for key, inserting it with count 0 if absent; NULL if out
 * of memory (nothing changed). */
static pair_t *slot(counters_t *ctrs, int key)
{
  size_t i = locate(ctrs, key);

  if (i < ctrs->n && ctrs->pairs[i].key == key) {
    return &ctrs->pairs[i];
  }
  if (ctrs->n == ctrs->cap) {
    size_t cap = ctrs->cap == 0 ? MIN_CAP : ctrs->cap * 2;
    pair_t *pairs;

    if (cap > SIZE_MAX / sizeof(*pairs)) {
      return NULL;
    }
    pairs = mem_realloc(ctrs->pairs, cap * sizeof(*pairs));
    if (pairs == NULL) {
      return NULL;
    }
    ctrs->pairs = pairs;
    ctrs->cap = cap;
  }
  memmove(&ctrs->pairs[i + 1], &ctrs->pairs[i],
          (ctrs->n - i) * sizeof(*ctrs->pairs));
  ctrs->pairs[i].key = key;
  ctrs->pairs[i].count = 0;
  ctrs->n++;
  return &ctrs->pairs[i];
}

int counters_add(counters_t *ctrs, const int key)
{
  pair_t *p;

  if (ctrs == NULL || key < 0 || counters_get(ctrs, key) == INT_MAX) {
    return 0;
  }
  p = slot(ctrs, key);
  if (p == NULL) {
    return 0;
  }
  return ++p->count;
}

int counters_get(const counters_t *ctrs, const int key)
{
  size_t i;

  if (ctrs == NULL || key < 0) {
    return 0;
  }
  i = locate(ctrs, key);
  return i < ctrs->n && ctrs->pairs[i].key == key ? ctrs->pairs[i].count : 0;
}

bool counters_set(counters_t *ctrs, const int key, const int count)
{
  pair_t *p;

  if (ctrs == NULL || key < 0 || count < 0) {
    return false;
  }
  p = slot(ctrs, key);
  if (p == NULL) {
    return false;
  }
  p->count = count;
  return true;
}

void counters_print(const counters_t *ctrs, FILE *fp)
{
  if (fp == NULL) {
    return;
  }
  if (ctrs == NULL) {
    fputs("(null)\n", fp);
    return;
  }
  fputc('{', fp);
  for (size_t i = 0; i < ctrs->n; i++) {
    fprintf(fp, "%s%d=%d", i > 0 ? ", " : "", ctrs->pairs[i].key,
            ctrs->pairs[i].count);
  }
  fputs("}\n", fp);
}

void counters_iterate(const counters_t *ctrs, void *arg,
                      void (*itemfunc)(void *arg, const int key,
                                       const int count))
{
  if (ctrs == NULL || itemfunc == NULL) {
    return;
  }
  for (size_t i = 0; i < ctrs->n; i++) {
    itemfunc(arg, ctrs->pairs[i].key, ctrs->pairs[i].count);
  }
}

void counters_delete(counters_t *ctrs)
{
  if (ctrs != NULL) {
    mem_free(ctrs->pairs);
    mem_free(ctrs);
  }
}
