/* diskq.c: see diskq.h.
 *
 * A record is a 4-byte length, then its bytes. The unread records are in
 * the file from rd to wr, then in buf from brd to blen (the newest, not
 * written yet): a pop reads the file first. A flush writes buf's unread
 * part at wr. fd is -1 before the first write and while parked. */
#include "diskq.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "budget.h"

struct diskq {
  char *path;
  budget_t *budget;
  int fd;
  off_t rd, wr; /* the file's unread part */
  char *buf;    /* records not written yet */
  size_t brd, blen, bcap, bufsize;
  size_t count;
  long long bytes; /* of the records in the queue, counted as spilled */
  off_t size;      /* the file's length (wr, or more after a failed write) */
  bool created;    /* the file exists: diskq_delete removes it */
};

diskq_t *diskq_new(const char *path, size_t bufsize, budget_t *budget)
{
  diskq_t *q = calloc(1, sizeof(*q));
  if (q == NULL || (q->path = strdup(path)) == NULL) {
    free(q);
    return NULL;
  }
  q->fd = -1;
  q->bufsize = bufsize ? bufsize : 4096;
  q->budget = budget;
  return q;
}

/* open_file: open (first time: create) the file. */
static int open_file(diskq_t *q)
{
  if (q->fd >= 0)
    return 0;
  int flags = O_RDWR | O_CREAT | O_CLOEXEC | (q->size == 0 ? O_TRUNC : 0);
  q->fd = open(q->path, flags, 0600);
  if (q->fd < 0)
    return -1;
  q->created = true;
  return 0;
}

static int pwrite_all(int fd, const char *p, size_t n, off_t off)
{
  while (n > 0) {
    ssize_t k = pwrite(fd, p, n, off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return -1;
    p += k;
    n -= (size_t)k;
    off += k;
  }
  return 0;
}

static int pread_all(int fd, void *buf, size_t n, off_t off)
{
  char *p = buf;
  while (n > 0) {
    ssize_t k = pread(fd, p, n, off);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0) {
      if (k == 0)
        errno = EIO; /* shorter than what was written */
      return -1;
    }
    p += k;
    n -= (size_t)k;
    off += k;
  }
  return 0;
}

/* flush: write buf's unread records to the file. */
static int flush(diskq_t *q)
{
  size_t n = q->blen - q->brd;
  if (n == 0) {
    q->brd = q->blen = 0;
    return 0;
  }
  if (open_file(q) != 0 || pwrite_all(q->fd, q->buf + q->brd, n, q->wr) != 0)
    return -1;
  q->wr += (off_t)n;
  if (q->wr > q->size)
    q->size = q->wr;
  q->brd = q->blen = 0;
  return 0;
}

int diskq_push(diskq_t *q, const void *rec, size_t len)
{
  if (len > UINT32_MAX) {
    errno = EINVAL;
    return -1;
  }
  uint32_t n32 = (uint32_t)len;
  size_t n = sizeof(n32) + len;
  if (q->blen > q->brd && q->blen + n > q->bufsize && flush(q) != 0)
    return -1;
  if (q->blen + n > q->bcap) {
    size_t cap = q->blen + n > q->bufsize ? q->blen + n : q->bufsize;
    char *b = realloc(q->buf, cap);
    if (b == NULL)
      return -2;
    q->buf = b;
    q->bcap = cap;
  }
  memcpy(q->buf + q->blen, &n32, sizeof(n32));
  memcpy(q->buf + q->blen + sizeof(n32), rec, len);
  q->blen += n;
  q->count++;
  q->bytes += (long long)n;
  budget_spill(q->budget, (long long)n);
  return 0;
}

void *diskq_pop(diskq_t *q, size_t *len)
{
  errno = 0;
  if (q->count == 0)
    return NULL;
  uint32_t n32;
  char *rec;
  if (q->rd < q->wr) {
    if (open_file(q) != 0 || pread_all(q->fd, &n32, sizeof(n32), q->rd) != 0)
      return NULL;
    if ((rec = malloc((size_t)n32 + 1)) == NULL) {
      errno = ENOMEM;
      return NULL;
    }
    if (pread_all(q->fd, rec, n32, q->rd + (off_t)sizeof(n32)) != 0) {
      int e = errno;
      free(rec);
      errno = e;
      return NULL;
    }
    q->rd += (off_t)(sizeof(n32) + n32);
  } else {
    memcpy(&n32, q->buf + q->brd, sizeof(n32));
    if ((rec = malloc((size_t)n32 + 1)) == NULL) {
      errno = ENOMEM;
      return NULL;
    }
    memcpy(rec, q->buf + q->brd + sizeof(n32), n32);
    q->brd += sizeof(n32) + n32;
  }
  rec[n32] = '\0';
  *len = n32;
  q->bytes -= (long long)(sizeof(n32) + n32);
  budget_unspill(q->budget, (long long)(sizeof(n32) + n32));
  if (--q->count == 0)
    diskq_clear(q);
  return rec;
}

/* room: make *BUF (of *CAP bytes) hold N. Returns false if out of
 * memory (errno ENOMEM). */
static bool room(char **buf, size_t *cap, size_t n)
{
  if (n <= *cap)
    return true;
  char *b = realloc(*buf, n);
  if (b == NULL) {
    errno = ENOMEM;
    return false;
  }
  *buf = b;
  *cap = n;
  return true;
}

int diskq_each(diskq_t *q, void (*fn)(void *arg, const char *rec, size_t len),
               void *arg)
{
  char *rec = NULL;
  size_t cap = 0;
  uint32_t n32;
  for (off_t at = q->rd; at < q->wr; at += (off_t)(sizeof(n32) + n32)) {
    if (open_file(q) != 0 || pread_all(q->fd, &n32, sizeof(n32), at) != 0)
      goto fail;
    if (!room(&rec, &cap, (size_t)n32 + 1))
      goto fail;
    if (pread_all(q->fd, rec, n32, at + (off_t)sizeof(n32)) != 0)
      goto fail;
    rec[n32] = '\0';
    fn(arg, rec, n32);
  }
  for (size_t at = q->brd; at < q->blen; at += sizeof(n32) + n32) {
    memcpy(&n32, q->buf + at, sizeof(n32));
    if (!room(&rec, &cap, (size_t)n32 + 1))
      goto fail;
    memcpy(rec, q->buf + at + sizeof(n32), n32);
    rec[n32] = '\0';
    fn(arg, rec, n32);
  }
  free(rec);
  return 0;
fail:
  free(rec);
  return -1;
}

int diskq_peek(diskq_t *q, void *buf, size_t n)
{
  errno = 0;
  if (q->count == 0)
    return -1;
  if (q->rd < q->wr)
    return open_file(q) != 0 ||
               pread_all(q->fd, buf, n, q->rd + (off_t)sizeof(uint32_t)) != 0
           ? -1
           : 0;
  memcpy(buf, q->buf + q->brd + sizeof(uint32_t), n);
  return 0;
}

size_t diskq_count(const diskq_t *q)
{
  return q->count;
}

int diskq_park(diskq_t *q)
{
  int rc = flush(q);
  if (rc == 0) {
    free(q->buf);
    q->buf = NULL;
    q->bcap = 0;
  }
  if (q->fd >= 0 && close(q->fd) != 0)
    rc = -1;
  q->fd = -1;
  return rc;
}

void diskq_clear(diskq_t *q)
{
  budget_unspill(q->budget, q->bytes);
  q->bytes = 0;
  if (q->size > 0 && (q->fd >= 0 || open_file(q) == 0) &&
      ftruncate(q->fd, 0) == 0)
    q->size = 0;
  q->rd = q->wr = 0;
  q->brd = q->blen = 0;
  q->count = 0;
}

void diskq_delete(diskq_t *q)
{
  if (q == NULL)
    return;
  budget_unspill(q->budget, q->bytes);
  if (q->fd >= 0)
    close(q->fd);
  if (q->created)
    unlink(q->path);
  free(q->buf);
  free(q->path);
  free(q);
}
