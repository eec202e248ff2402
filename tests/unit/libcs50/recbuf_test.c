/* recbuf_test.c: the record list that holds a page's links: records come
 * back in order, whole, across blocks and in blocks of their own; what
 * recbuf_need announces is what recbuf_add allocates; and a long list
 * filled in one thread and deleted in another gives its memory back to
 * the system (the reason it exists: recbuf.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../testhelp.h"
#include "recbuf.h"

/* rec_len: the length of record I (1 to 3,000 bytes, and every 1,000th
 * one bigger than a block). */
static size_t rec_len(size_t i)
{
  return i % 1000 == 999 ? RECBUF_BLOCK_MAX + i : 1 + (i * 7919) % 3000;
}

struct seen {
  size_t n;
  int bad;
};

static void check_rec(void *arg, const char *rec, size_t n)
{
  struct seen *s = arg;
  if (n != rec_len(s->n) || rec[0] != (char)s->n ||
      rec[n - 1] != (char)(s->n >> 8))
    s->bad++;
  s->n++;
}

static void test_order_and_need(void)
{
  recbuf_t *b = recbuf_new();
  CHECK(b != NULL);
  if (b == NULL)
    return;
  CHECK_INT(recbuf_need(b, 10), 1024); /* the first block */
  size_t bytes = 0;
  int wrong = 0;
  for (size_t i = 0; i < 3000; i++) {
    size_t n = rec_len(i), need = recbuf_need(b, n);
    char *at = recbuf_add(b, n);
    CHECK(at != NULL);
    if (at == NULL)
      break;
    memset(at, 'x', n);
    at[0] = (char)i;
    at[n - 1] = (char)(i >> 8);
    bytes += need;
    wrong += recbuf_bytes(b) != bytes;
  }
  CHECK_INT(wrong, 0);
  CHECK_INT(recbuf_count(b), 3000);
  struct seen s = { 0, 0 };
  recbuf_each(b, check_rec, &s);
  CHECK_INT(s.n, 3000);
  CHECK_INT(s.bad, 0);
  CHECK_INT(recbuf_need(b, (size_t)UINT32_MAX + 1), SIZE_MAX);
  recbuf_delete(b);
  recbuf_delete(NULL);
}

/* rss_kib: this process's resident memory, or -1 if unknown. */
static long rss_kib(void)
{
  FILE *f = fopen("/proc/self/statm", "r");
  long size, resident;
  int n = f ? fscanf(f, "%ld %ld", &size, &resident) : 0;
  if (f)
    fclose(f);
  return n == 2 ? resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

static void *fill(void *arg)
{
  recbuf_t *b = arg;
  for (int i = 0; i < 32 * 1024; i++) {
    char *at = recbuf_add(b, 2000);
    if (at == NULL)
      return NULL;
    memset(at, 'u', 2000);
  }
  return b;
}

/* 64 MB of 2 KB records from another thread (as a parser fills a page's
 * links), deleted here (as the commit frees the page): gone from RSS. */
static void test_returned(void)
{
  recbuf_t *b = recbuf_new();
  pthread_t t;
  void *done = NULL;
  CHECK(b != NULL && pthread_create(&t, NULL, fill, b) == 0);
  if (b == NULL || pthread_join(t, &done) != 0 || done == NULL) {
    CHECK(!"filled");
    recbuf_delete(b);
    return;
  }
  long full = rss_kib();
  recbuf_delete(b);
  long after = rss_kib();
  if (full < 0) {
    SKIP("no /proc/self/statm");
    return;
  }
  fprintf(stderr, "# RSS %ld KiB filled, %ld KiB deleted\n", full, after);
  CHECK(full - after > 60 * 1024);
}

int main(void)
{
  RUN(test_order_and_need);
  RUN(test_returned);
  return TEST_EXIT();
}
