/* url_int.h: what url.c and url_base.c share.
 *
 * Private: not part of the public API, which is url.h. Only the
 * common/url*.c files include it; nothing here is promised to users of
 * libcommon.a.
 *
 * The helpers are static inline: url_base.c's fast path calls them for
 * every href of a page, and one definition here keeps them inlined in
 * both files. Character classes come from ascii.h, never <ctype.h>,
 * whose answers for bytes >= 0x80 depend on the process locale.
 *
 * Thread-safety: any thread (pure functions). */
#ifndef COMMON_URL_INT_H
#define COMMON_URL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "ascii.h"

/* url_is_unreserved: c is an RFC 3986 unreserved character (ALPHA DIGIT
 * - . _ ~), which an escape never needs to hide. */
static inline bool url_is_unreserved(int c)
{
  return ascii_isalpha(c) || ascii_isdigit(c) || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

/* url_must_encode: bytes that may never appear raw in a URL we hand out
 * (RFC 3986 allows none of them; whitespace and controls would also
 * break the one-URL-per-line files the crawler writes). */
static inline bool url_must_encode(unsigned char c)
{
  return c <= 0x20 || c >= 0x7f || strchr("\"<>\\^`{|}", c) != NULL;
}

/* url_scheme_len: length of the RFC 3986 scheme that s (NUL-terminated)
 * starts with (ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) followed by
 * ':'), else 0. */
static inline size_t url_scheme_len(const char *s)
{
  if (!ascii_isalpha((unsigned char)s[0]))
    return 0;
  size_t i = 1;
  while (ascii_isalpha((unsigned char)s[i]) ||
         ascii_isdigit((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' ||
         s[i] == '.')
    i++;
  return s[i] == ':' ? i : 0;
}

/* url_is_http_scheme: s[0..len) is "http" or "https", in any case. */
static inline bool url_is_http_scheme(const char *s, size_t len)
{
  return (len == 4 && ascii_strnieq(s, "http", 4)) ||
         (len == 5 && ascii_strnieq(s, "https", 5));
}

#endif /* COMMON_URL_INT_H */
