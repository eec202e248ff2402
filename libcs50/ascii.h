/* ascii.h: locale-independent ASCII character helpers.
 *
 * <ctype.h> answers by the process locale, and the crawler sets one (its
 * main calls setlocale() for IDN, see common/url.h): in a single-byte
 * locale isalpha() and tolower() may take bytes >= 0x80 for letters.
 * URLs, robots.txt keys, HTML names and charset labels are case-insensitive
 * in ASCII only, so these helpers never look past it: a byte >= 0x80, and
 * any negative value (a plain char holding one), is no letter and no digit,
 * and its own lower case.
 *
 * Each takes an int holding an unsigned char, a plain char or EOF; all are
 * static inline (no object file, no state).
 *
 * Thread-safety: any thread. */
#ifndef LIBCS50_ASCII_H
#define LIBCS50_ASCII_H

#include <stdbool.h>
#include <stddef.h>

/* ascii_isalpha: c is 'A'-'Z' or 'a'-'z'. */
static inline bool ascii_isalpha(int c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* ascii_isdigit: c is '0'-'9'. */
static inline bool ascii_isdigit(int c)
{
  return c >= '0' && c <= '9';
}

/* ascii_tolower: c with 'A'-'Z' mapped to 'a'-'z'; anything else as is
 *   (so (char)ascii_tolower(ch) gives back ch's byte for any char ch). */
static inline int ascii_tolower(int c)
{
  return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

/* ascii_hexval: the value 0-15 of the hex digit c (either case), or -1
 *   when c is not one. */
static inline int ascii_hexval(int c)
{
  if (ascii_isdigit(c))
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* ascii_strnieq: true when a and b are equal ignoring ASCII case up to n
 *   bytes or to a NUL at the same place in both, whichever comes first:
 *   strncasecmp() == 0 in the "C" locale. Reads no byte past the first
 *   difference or NUL, so a string shorter than n is fine; n = SIZE_MAX
 *   compares whole strings.
 * Caller provides: a and b, borrowed, non-NULL. */
static inline bool ascii_strnieq(const char *a, const char *b, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (ascii_tolower((unsigned char)a[i]) !=
        ascii_tolower((unsigned char)b[i]))
      return false;
    if (a[i] == '\0')
      return true;
  }
  return true;
}

#endif /* LIBCS50_ASCII_H */
