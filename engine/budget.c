/* budget.c: see budget.h. */
#include "budget.h"

#include <stdint.h>

void budget_init(budget_t *b, size_t limit)
{
  b->limit = limit;
  atomic_init(&b->held, 0);
  atomic_init(&b->peak, 0);
  atomic_init(&b->spilled, 0);
  atomic_init(&b->on_disk, 0);
  atomic_init(&b->peak_disk, 0);
  atomic_init(&b->landed, 0);
  atomic_init(&b->wanted, false);
  b->on_room = NULL;
  b->room_arg = NULL;
}

void budget_on_room(budget_t *b, void (*fn)(void *arg), void *arg)
{
  b->on_room = fn;
  b->room_arg = arg;
}

/* raise_peak: make *PEAK at least V. */
static void raise_peak(atomic_size_t *peak, size_t v)
{
  size_t p = atomic_load(peak);
  while (v > p && !atomic_compare_exchange_weak(peak, &p, v))
    ;
}

bool budget_take(budget_t *b, size_t n)
{
  if (b == NULL)
    return true;
  size_t h = atomic_load(&b->held);
  do {
    if (b->limit && (n > b->limit || h > b->limit - n))
      return false;
  } while (!atomic_compare_exchange_weak(&b->held, &h, h + n));
  raise_peak(&b->peak, h + n);
  return true;
}

void budget_force(budget_t *b, size_t n)
{
  if (b == NULL)
    return;
  raise_peak(&b->peak, atomic_fetch_add(&b->held, n) + n);
}

/* answer_want: call the on_room hook, once, if a budget_want waits.
 * Sequentially consistent, as budget_want's store and load: either the
 * caller's change is seen by the want's load, or this sees the want. */
static void answer_want(budget_t *b)
{
  if (atomic_load(&b->wanted) && atomic_exchange(&b->wanted, false) &&
      b->on_room != NULL)
    b->on_room(b->room_arg);
}

void budget_give(budget_t *b, size_t n)
{
  if (b == NULL)
    return;
  atomic_fetch_sub(&b->held, n);
  answer_want(b);
}

void budget_land(budget_t *b, long long n)
{
  if (b == NULL)
    return;
  size_t was = atomic_fetch_add(&b->landed, (size_t)n); /* n < 0 wraps */
  /* None landed any more: a taker waiting may go on over the limit
   * (xfer.c's resume), so it is told as by a give. */
  if (n < 0 && was == (size_t)-n)
    answer_want(b);
}

size_t budget_landed(budget_t *b)
{
  return b != NULL ? atomic_load(&b->landed) : 0;
}

size_t budget_room(budget_t *b)
{
  if (b == NULL || b->limit == 0)
    return SIZE_MAX;
  size_t h = atomic_load(&b->held);
  return h < b->limit ? b->limit - h : 0;
}

size_t budget_want(budget_t *b)
{
  if (b != NULL)
    atomic_store(&b->wanted, true);
  return budget_room(b);
}

bool budget_full(budget_t *b, double fraction)
{
  return b != NULL && b->limit &&
         (double)atomic_load(&b->held) >= fraction * (double)b->limit;
}

void budget_spill(budget_t *b, long long n)
{
  if (b == NULL)
    return;
  atomic_fetch_add(&b->spilled, n);
  long long d = atomic_fetch_add(&b->on_disk, n) + n;
  long long p = atomic_load(&b->peak_disk);
  while (d > p && !atomic_compare_exchange_weak(&b->peak_disk, &p, d))
    ;
}

void budget_unspill(budget_t *b, long long n)
{
  if (b != NULL)
    atomic_fetch_sub(&b->on_disk, n);
}
