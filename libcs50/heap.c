/* heap.c: see heap.h.
 *
 * Invariant: no item is less than its parent: !less(v[i], v[(i - 1) / 2])
 * for every i > 0. Sifting moves a hole rather than swapping, so each
 * item is written (with its position) once per level it moves, and
 * the item being sifted once, at its final place. */
#include "heap.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct heap {
  void **v;
  size_t n, cap;
  bool (*less)(const void *a, const void *b);
  size_t pos_offset; /* HEAP_NO_POS, or where items keep their pos */
};

heap_t *heap_new(bool (*less)(const void *a, const void *b), size_t pos_offset)
{
  heap_t *h = calloc(1, sizeof(*h));
  if (h == NULL)
    return NULL;
  h->less = less;
  h->pos_offset = pos_offset;
  return h;
}

static void place(heap_t *h, size_t i, void *e)
{
  h->v[i] = e;
  if (h->pos_offset != HEAP_NO_POS)
    memcpy((char *)e + h->pos_offset, &i, sizeof(i));
}

static void sift_up(heap_t *h, size_t i)
{
  void *e = h->v[i];
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!h->less(e, h->v[p]))
      break;
    place(h, i, h->v[p]);
    i = p;
  }
  place(h, i, e);
}

static void sift_down(heap_t *h, size_t i)
{
  void *e = h->v[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && h->less(h->v[c + 1], h->v[c]))
      c++;
    if (!h->less(h->v[c], e))
      break;
    place(h, i, h->v[c]);
    i = c;
  }
  place(h, i, e);
}

bool heap_reserve(heap_t *h, size_t n)
{
  if (n <= h->cap)
    return true;
  size_t cap = h->cap ? h->cap * 2 : 64;
  while (cap < n)
    cap *= 2;
  void **v = realloc(h->v, cap * sizeof(*v));
  if (v == NULL)
    return false;
  h->v = v;
  h->cap = cap;
  return true;
}

bool heap_push(heap_t *h, void *item)
{
  if (!heap_reserve(h, h->n + 1))
    return false;
  h->v[h->n++] = item;
  sift_up(h, h->n - 1);
  return true;
}

void *heap_top(const heap_t *h)
{
  return h->n ? h->v[0] : NULL;
}

void *heap_pop(heap_t *h)
{
  return h->n ? heap_remove(h, 0) : NULL;
}

void *heap_remove(heap_t *h, size_t pos)
{
  assert(pos < h->n);
  void *e = h->v[pos];
  h->n--;
  if (pos < h->n) {
    /* The last item fills the hole; it may belong above or below. */
    h->v[pos] = h->v[h->n];
    sift_down(h, pos);
    sift_up(h, pos);
  }
  return e;
}

size_t heap_count(const heap_t *h)
{
  return h->n;
}

void *heap_get(const heap_t *h, size_t pos)
{
  assert(pos < h->n);
  return h->v[pos];
}

void heap_clear(heap_t *h)
{
  h->n = 0;
}

void heap_delete(heap_t *h)
{
  if (h == NULL)
    return;
  free(h->v);
  free(h);
}
