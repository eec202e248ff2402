/* mem.c: allocation helpers with atomic counters; see mem.h. */
#include "mem.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Both are atomics, not mutex-guarded: they are touched on every allocation
 * by every worker, and need no ordering with other data. */
static atomic_long outstanding;      /* allocations - frees */
static atomic_long fail_budget = -1; /* < 0: injection off */

/* may_allocate: false when fault injection says this allocation fails. */
static int may_allocate(void)
{
  long budget = atomic_load_explicit(&fail_budget, memory_order_relaxed);

  while (budget >= 0) {
    if (budget == 0) {
      errno = ENOMEM;
      return 0;
    }
    /* CAS, so two threads never both spend the last allowed allocation. */
    if (atomic_compare_exchange_weak_explicit(&fail_budget, &budget, budget - 1,
                                              memory_order_relaxed,
                                              memory_order_relaxed)) {
      return 1;
    }
  }
  return 1;
}

static void count(long delta)
{
  atomic_fetch_add_explicit(&outstanding, delta, memory_order_relaxed);
}

void *mem_malloc(size_t size)
{
  void *p;

  if (!may_allocate()) {
    return NULL;
  }
  p = malloc(size == 0 ? 1 : size);
  if (p != NULL) {
    count(1);
  }
  return p;
}

void *mem_calloc(size_t nmemb, size_t size)
{
  void *p;

  if (nmemb == 0 || size == 0) {
    nmemb = 1;
    size = 1;
  }
  /* calloc checks this too, but say so here rather than rely on it. */
  if (nmemb > SIZE_MAX / size) {
    errno = ENOMEM;
    return NULL;
  }
  if (!may_allocate()) {
    return NULL;
  }
  p = calloc(nmemb, size);
  if (p != NULL) {
    count(1);
  }
  return p;
}

void *mem_realloc(void *ptr, size_t size)
{
  void *p;

  if (!may_allocate()) {
    return NULL;
  }
  p = realloc(ptr, size == 0 ? 1 : size);
  if (p != NULL && ptr == NULL) {
    count(1); /* a resize hands out no new block; only a fresh one counts */
  }
  return p;
}

char *mem_strdup(const char *s)
{
  size_t len;
  char *copy;

  if (s == NULL) {
    errno = EINVAL;
    return NULL;
  }
  len = strlen(s) + 1;
  copy = mem_malloc(len);
  if (copy != NULL) {
    memcpy(copy, s, len);
  }
  return copy;
}

void mem_free(void *ptr)
{
  if (ptr != NULL) {
    free(ptr);
    count(-1);
  }
}

long mem_outstanding(void)
{
  return atomic_load_explicit(&outstanding, memory_order_relaxed);
}

void mem_failAfter(long n)
{
  atomic_store_explicit(&fail_budget, n < 0 ? -1 : n, memory_order_relaxed);
}
