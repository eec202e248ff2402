/* file.c: line, word and whole-stream readers; see file.h.
 *
 * The readers share one growable buffer type. They read with getc_unlocked()
 * under flockfile(): one lock per call instead of one per byte, which keeps
 * byte-at-a-time reading fast and a call's bytes contiguous. */
#include "file.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "mem.h"

/* buf: bytes read so far; invariant: data == NULL or len < cap. */
typedef struct {
  char *data;
  size_t len;
  size_t cap;
} buf_t;

/* buf_reserve: make room for extra more bytes plus a NUL; false (buffer
 * untouched) if out of memory. Doubling keeps appends amortised O(1). */
static int buf_reserve(buf_t *b, size_t extra)
{
  size_t need;
  size_t cap;
  char *p;

  if (extra > SIZE_MAX - 1 - b->len) {
    errno = ENOMEM;
    return 0;
  }
  need = b->len + extra + 1;
  if (b->data != NULL && need <= b->cap) {
    return 1;
  }
  cap = b->cap == 0 ? 64 : b->cap;
  while (cap < need) {
    cap = cap > SIZE_MAX / 2 ? need : cap * 2;
  }
  p = mem_realloc(b->data, cap);
  if (p == NULL) {
    return 0;
  }
  b->data = p;
  b->cap = cap;
  return 1;
}

static int buf_push(buf_t *b, char c)
{
  if (b->len + 1 >= b->cap && !buf_reserve(b, 1)) {
    return 0;
  }
  b->data[b->len++] = c;
  return 1;
}

/* buf_finish: NUL-terminate and hand the bytes over, or free them. */
static char *buf_finish(buf_t *b, int ok)
{
  if (!ok || !buf_reserve(b, 0)) {
    mem_free(b->data);
    return NULL;
  }
  b->data[b->len] = '\0';
  return b->data;
}

static int is_space(int c)
{
  /* The C-locale set, spelled out so a caller's setlocale() cannot change
   * what a word is. */
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

int file_numLines(FILE *fp)
{
  long start;
  int lines = 0;
  int c;
  int last = '\n';
  int err;

  if (fp == NULL) {
    return -1;
  }
  flockfile(fp);
  start = ftell(fp); /* -1 on a pipe: we just don't seek back */
  while ((c = getc_unlocked(fp)) != EOF) {
    if (c == '\n' && lines < INT_MAX) {
      lines++;
    }
    last = c;
  }
  err = ferror(fp);
  if (last != '\n' && lines < INT_MAX) {
    lines++; /* a last line without "\n" is still a line */
  }
  if (start >= 0) {
    /* fseek also clears the EOF flag, so the caller can read again. */
    fseek(fp, start, SEEK_SET);
  }
  funlockfile(fp);
  return err ? -1 : lines;
}

char *file_readLine(FILE *fp)
{
  buf_t b = { NULL, 0, 0 };
  int c;
  int ok = 1;

  if (fp == NULL) {
    return NULL;
  }
  flockfile(fp);
  while ((c = getc_unlocked(fp)) != EOF && c != '\n') {
    if (!buf_push(&b, (char)c)) {
      ok = 0;
      break;
    }
  }
  /* A NULL return must mean "nothing more", so EOF with no bytes and no
   * newline is the end; an error mid-line discards the partial line. */
  if (ferror(fp) || (c == EOF && b.len == 0)) {
    ok = 0;
  }
  funlockfile(fp);
  return buf_finish(&b, ok);
}

char *file_readWord(FILE *fp)
{
  buf_t b = { NULL, 0, 0 };
  int c;
  int ok = 1;

  if (fp == NULL) {
    return NULL;
  }
  flockfile(fp);
  while ((c = getc_unlocked(fp)) != EOF && is_space(c)) {
    continue;
  }
  while (c != EOF && !is_space(c)) {
    if (!buf_push(&b, (char)c)) {
      ok = 0;
      break;
    }
    c = getc_unlocked(fp);
  }
  if (ok && c != EOF) {
    ungetc(c, fp); /* leave the delimiter for the next reader */
  }
  if (ferror(fp) || b.len == 0) {
    ok = 0;
  }
  funlockfile(fp);
  return buf_finish(&b, ok);
}

char *file_readAll(FILE *fp, size_t *len)
{
  buf_t b = { NULL, 0, 0 };
  int ok = 1;

  if (len != NULL) {
    *len = 0;
  }
  if (fp == NULL || len == NULL) {
    return NULL;
  }
  flockfile(fp);
  for (;;) {
    size_t n;

    /* Read in chunks straight into the buffer: page bodies can be MBs. */
    if (!buf_reserve(&b, 4096)) {
      ok = 0;
      break;
    }
    n = fread(b.data + b.len, 1, b.cap - b.len - 1, fp);
    b.len += n;
    if (n == 0) {
      break;
    }
  }
  if (ferror(fp)) {
    ok = 0;
  }
  funlockfile(fp);
  if (ok) {
    /* Give back the doubling slack; a failed shrink is harmless. */
    char *fit = mem_realloc(b.data, b.len + 1);

    if (fit != NULL) {
      b.data = fit;
      b.cap = b.len + 1;
    }
    *len = b.len;
  }
  return buf_finish(&b, ok);
}

char *file_readFile(FILE *fp)
{
  size_t len;

  return file_readAll(fp, &len);
}
