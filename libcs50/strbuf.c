/* strbuf.c: see strbuf.h. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* grow: room for N more bytes and the NUL; false (and oom) if not. */
static bool grow(strbuf_t *b, size_t n)
{
  if (b->oom)
    return false;
  if (b->len + n + 1 <= b->cap)
    return true;
  if (n > (size_t)-1 / 2 - b->len) {
    b->oom = true;
    return false;
  }
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + n + 1)
    cap *= 2;
  char *p = realloc(b->p, cap);
  if (p == NULL) {
    b->oom = true;
    return false;
  }
  b->p = p;
  b->cap = cap;
  return true;
}

bool strbuf_reserve(strbuf_t *b, size_t n)
{
  if (b->oom || n > (size_t)-1 / 2 - b->len)
    return false;
  if (b->len + n + 1 <= b->cap)
    return true;
  char *p = realloc(b->p, b->len + n + 1);
  if (p == NULL)
    return false;
  if (b->p == NULL)
    p[0] = '\0';
  b->p = p;
  b->cap = b->len + n + 1;
  return true;
}

void strbuf_add(strbuf_t *b, const void *data, size_t n)
{
  if (!grow(b, n))
    return;
  if (n > 0)
    memcpy(b->p + b->len, data, n);
  b->len += n;
  b->p[b->len] = '\0';
}

void strbuf_adds(strbuf_t *b, const char *s)
{
  strbuf_add(b, s, strlen(s));
}

void strbuf_addc(strbuf_t *b, char c)
{
  strbuf_add(b, &c, 1);
}

void strbuf_addf(strbuf_t *b, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !grow(b, (size_t)n))
    return;
  va_start(ap, fmt);
  vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

char *strbuf_detach(strbuf_t *b)
{
  if (!b->oom && b->p == NULL)
    strbuf_add(b, "", 0);
  char *p = b->oom ? NULL : b->p;
  if (b->oom)
    free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
  b->oom = false;
  return p;
}

void strbuf_reset(strbuf_t *b)
{
  b->len = 0;
  b->oom = false;
  if (b->p != NULL)
    b->p[0] = '\0';
}

void strbuf_release(strbuf_t *b)
{
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
  b->oom = false;
}
