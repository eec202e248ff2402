/* strbuf.h: a growable, NUL-terminated byte buffer.
 *
 * Out of memory is sticky: after a failed growth every add is a no-op,
 * `oom` is set, and strbuf_detach returns NULL; so a builder checks once,
 * at the end. The fields are public so that callers can read p and len;
 * only the functions below change them.
 *
 * Not thread-safe: one owner. */
#ifndef LIBCS50_STRBUF_H
#define LIBCS50_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct strbuf {
  char *p;    /* NULL until the first add or reserve; then
                 NUL-terminated */
  size_t len; /* bytes held, not counting the NUL */
  size_t cap;
  bool oom; /* a growth failed; the content is incomplete */
} strbuf_t;

#define STRBUF_INIT                                                            \
  {                                                                            \
    NULL, 0, 0, false                                                          \
  }

/* strbuf_reserve: make room for exactly N more bytes (and the NUL), so
 * that adding them does not grow B again. For a caller that knows the
 * final size: growth by doubling leaves up to half of the block unused and
 * copies the content at every step. Only a hint: if the room cannot be
 * had, B is unchanged (not oom) and returns false; adds then grow as
 * usual. */
bool strbuf_reserve(strbuf_t *b, size_t n);

/* strbuf_add: append N bytes at DATA (borrowed; may hold NUL bytes). */
void strbuf_add(strbuf_t *b, const void *data, size_t n);

/* strbuf_adds: append the string S (borrowed). */
void strbuf_adds(strbuf_t *b, const char *s);

/* strbuf_addc: append one byte. */
void strbuf_addc(strbuf_t *b, char c);

/* strbuf_addf: append printf-formatted text. */
void strbuf_addf(strbuf_t *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* strbuf_detach: the content, returned owned (free()), "" if nothing was
 * added; NULL if out of memory. B is empty again afterwards. */
char *strbuf_detach(strbuf_t *b);

/* strbuf_reset: make B empty (len 0, not oom) but keep its memory, so
 * that a buffer reused for one short string after another allocates only
 * when a longer one comes. */
void strbuf_reset(strbuf_t *b);

/* strbuf_release: free the content; B is empty again. */
void strbuf_release(strbuf_t *b);

#endif /* LIBCS50_STRBUF_H */
