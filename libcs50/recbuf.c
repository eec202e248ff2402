/* recbuf.c: see recbuf.h.
 *
 * A block is a header, then records, each its length (4 bytes, native
 * order, unaligned) and its bytes. Blocks are chained oldest first; only
 * the last one takes new records. */
/* MAP_ANONYMOUS: POSIX only since 2024; glibc hides it under 2008's. */
#define _DEFAULT_SOURCE
#include "recbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { FIRST = 1024, PAGE = 4096 };

struct block {
  struct block *next;
  size_t size; /* the whole block's bytes, this header's included */
  size_t used; /* bytes of data[] taken by records */
  char data[];
};

struct recbuf {
  struct block *head, *tail;
  size_t count, bytes;
};

recbuf_t *recbuf_new(void)
{
  return calloc(1, sizeof(struct recbuf));
}

/* block_size: the size of the block recbuf_add(B, N) adds: the next in
 * the doubling, or a block of its own for a big record; 0 if N is too
 * large to be a record. */
static size_t block_size(const recbuf_t *b, size_t n)
{
  if (n > UINT32_MAX || n > SIZE_MAX - sizeof(struct block) - 4 - PAGE)
    return 0;
  size_t size = FIRST;
  if (b->tail != NULL)
    size = b->tail->size >= RECBUF_BLOCK_MAX / 2 ? RECBUF_BLOCK_MAX
                                                 : 2 * b->tail->size;
  size_t need = sizeof(struct block) + 4 + n;
  if (need > size)
    size = (need + 63) / 64 * 64;
  if (size >= RECBUF_MAP_MIN) /* mapped: whole pages */
    size = (size + PAGE - 1) / PAGE * PAGE;
  return size;
}

/* fits: whether a record of N bytes fits in B's last block. */
static bool fits(const recbuf_t *b, size_t n)
{
  const struct block *t = b->tail;
  return t != NULL && n <= UINT32_MAX &&
         4 + n <= t->size - sizeof(*t) - t->used;
}

size_t recbuf_need(const recbuf_t *b, size_t n)
{
  if (fits(b, n))
    return 0;
  size_t size = block_size(b, n);
  return size ? size : SIZE_MAX;
}

/* block_new: a block of SIZE bytes, mapped if it is big. */
static struct block *block_new(size_t size)
{
  struct block *k;
  if (size >= RECBUF_MAP_MIN) {
    k = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
             -1, 0);
    if (k == MAP_FAILED)
      k = NULL;
  } else {
    k = malloc(size);
  }
  if (k == NULL) {
    errno = ENOMEM;
    return NULL;
  }
  k->next = NULL;
  k->size = size;
  k->used = 0;
  return k;
}

static void block_free(struct block *k)
{
  if (k->size >= RECBUF_MAP_MIN)
    munmap(k, k->size);
  else
    free(k);
}

char *recbuf_add(recbuf_t *b, size_t n)
{
  if (!fits(b, n)) {
    size_t size = block_size(b, n);
    if (size == 0) {
      errno = EINVAL;
      return NULL;
    }
    struct block *k = block_new(size);
    if (k == NULL)
      return NULL;
    if (b->tail != NULL)
      b->tail->next = k;
    else
      b->head = k;
    b->tail = k;
    b->bytes += size;
  }
  struct block *t = b->tail;
  uint32_t n32 = (uint32_t)n;
  char *at = t->data + t->used;
  memcpy(at, &n32, 4);
  t->used += 4 + n;
  b->count++;
  return at + 4;
}

size_t recbuf_count(const recbuf_t *b)
{
  return b->count;
}

size_t recbuf_bytes(const recbuf_t *b)
{
  return b->bytes;
}

void recbuf_each(const recbuf_t *b,
                 void (*fn)(void *arg, const char *rec, size_t n), void *arg)
{
  for (const struct block *k = b->head; k != NULL; k = k->next) {
    for (size_t at = 0; at < k->used;) {
      uint32_t n32;
      memcpy(&n32, k->data + at, 4);
      fn(arg, k->data + at + 4, n32);
      at += 4 + (size_t)n32;
    }
  }
}

void recbuf_delete(recbuf_t *b)
{
  if (b == NULL)
    return;
  struct block *k = b->head;
  while (k != NULL) {
    struct block *next = k->next;
    block_free(k);
    k = next;
  }
  free(b);
}
