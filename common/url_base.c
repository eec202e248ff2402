/* url_base.c: the per-page fast path of url.h (url_base_init,
 * url_base_resolve, url_host_normal, url_host_key_normal); the slow
 * path, and the reference it must match, is url.c's
 * url_resolve_normalized.
 *
 * Why the fast path gives the slow path's bytes, for the hrefs it takes:
 *   - url.c's clean() changes nothing: the href is printable ASCII, and
 *     the bytes clean() would encode may only sit in the fragment, which
 *     is dropped;
 *   - the base is its own normal form, so libcurl's copy of its path has
 *     no dot segments to remove, and its authority stays as it is;
 *   - merging a plain relative path with the base's directory is a
 *     splice; leading "." and ".." segments pop levels as RFC 3986 5.2.4
 *     does (any later one sends the href to the slow path);
 *   - normalisation leaves a plain path alone (no '%' to recase or decode,
 *     no dot segments), keeps a query that needs no encoding, drops a bare
 *     "?" and the fragment.
 * Anything else, and any result over URL_MAX_LEN, takes the slow path.
 * tests/unit/common/url_base_test.c checks the claim on many inputs.
 *
 * No state: a url_base_t is the caller's, and only read after
 * url_base_init, so any thread may call any of these. */
#include "url.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "url_int.h"

static bool is_lower_alnum(int c)
{
  return (c >= 'a' && c <= 'z') || ascii_isdigit(c);
}

/* ends_ref: c ends a path in an href. */
static bool ends_ref(int c)
{
  return c == '\0' || c == '?' || c == '#';
}

/* plain_byte: c may appear in a plain path (see url.h). */
static bool plain_byte(unsigned char c, bool colon)
{
  return url_is_unreserved(c) || (c != '\0' && strchr("!$&'()*+,;=@", c)) ||
         (colon && c == ':');
}

/* dot_segment: s[0..n) is "." or "..". */
static bool dot_segment(const char *s, size_t n)
{
  return (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.');
}

/* plain_path: true when s starts with a plain path (see url.h; colon
 * admits ':') that runs to '?', '#' or the end; its length in *len. */
static bool plain_path(const char *s, bool colon, size_t *len)
{
  size_t i = 0;
  for (;;) {
    size_t seg = i;
    for (; !ends_ref(s[i]) && s[i] != '/'; i++)
      if (!plain_byte((unsigned char)s[i], colon))
        return false;
    if (dot_segment(s + seg, i - seg))
      return false;
    if (s[i] != '/')
      break;
    i++;
  }
  *len = i;
  return true;
}

/* plain_tail: true when t is "[?query][#fragment]" with a query that needs
 * no encoding and a printable fragment; *keep is the length of the
 * "?query" the normal form keeps (0 for none or a bare "?"). */
static bool plain_tail(const char *t, size_t *keep)
{
  size_t q = 0;
  if (t[0] == '?')
    for (q = 1; t[q] != '#' && t[q] != '\0'; q++)
      if (url_must_encode((unsigned char)t[q]))
        return false;
  for (const char *f = t + q; *f != '\0'; f++)
    if ((unsigned char)*f <= 0x20 || (unsigned char)*f >= 0x7f)
      return false;
  *keep = q > 1 ? q : 0;
  return true;
}

/* splice: a[0..an) b[0..bn) c[0..cn) as one string in *out (NULL on
 * OOM); false, with nothing done, if that is over URL_MAX_LEN. */
static bool splice(const char *a, size_t an, const char *b, size_t bn,
                   const char *c, size_t cn, char **out)
{
  if (an + bn + cn > URL_MAX_LEN)
    return false;
  char *r = malloc(an + bn + cn + 1);
  if (r != NULL) {
    memcpy(r, a, an);
    memcpy(r + an, b, bn);
    memcpy(r + an + bn, c, cn);
    r[an + bn + cn] = '\0';
  }
  *out = r;
  return true;
}

/* dotted_quad: whether a[0..n) is an IPv4 address as libcurl writes one:
 * four decimal numbers of 0-255 without leading zeros, so that its
 * rewriting of IPv4 numbers (octal, hex, fewer parts) leaves it alone. */
static bool dotted_quad(const char *a, size_t n)
{
  size_t i = 0;
  for (int part = 0; part < 4; part++) {
    if (part > 0 && (i >= n || a[i++] != '.'))
      return false;
    size_t start = i;
    unsigned v = 0;
    while (i < n && i - start < 3 && ascii_isdigit((unsigned char)a[i]))
      v = v * 10 + (unsigned)(a[i++] - '0');
    if (i == start || v > 255 || (a[start] == '0' && i - start > 1))
      return false;
  }
  return i == n;
}

/* plain_authority: length of the "host[:port]" at a when it is in normal
 * form and plain (see url.h) and followed by '/', '#' or the end; else 0. */
static size_t plain_authority(const char *a, const char *defport)
{
  size_t i = 0;
  bool letter = false; /* the label just read starts with a letter */
  for (;;) {
    size_t label = i;
    while (is_lower_alnum((unsigned char)a[i]) || a[i] == '-')
      i++;
    if (i == label)
      return 0;
    letter = ascii_isalpha((unsigned char)a[label]);
    if (a[i] != '.')
      break;
    i++;
  }
  if (!letter && !dotted_quad(a, i))
    return 0;
  if (a[i] == ':') {
    size_t p = ++i;
    while (ascii_isdigit((unsigned char)a[i]))
      i++;
    size_t n = i - p;
    if (n == 0 || n > 5 || a[p] == '0' ||
        (n == 5 && strncmp(a + p, "65535", 5) > 0) ||
        (n == strlen(defport) && strncmp(a + p, defport, n) == 0))
      return 0;
  }
  return (a[i] == '/' || a[i] == '#' || a[i] == '\0') ? i : 0;
}

/* fast_absolute: h starts "http://" or "https://"; see url.h. */
static bool fast_absolute(const char *h, char **out)
{
  bool https = h[4] == 's';
  const char *a = h + (https ? 8 : 7);
  size_t an = plain_authority(a, https ? "443" : "80");
  if (an == 0)
    return false;
  const char *p = a + an;
  size_t pn = 0, keep;
  if (*p == '/' && !plain_path(p, true, &pn))
    return false;
  if (!plain_tail(p + pn, &keep))
    return false;
  /* An empty path is "/" in the normal form. */
  return splice(h, (size_t)(p - h), pn ? p : "/", pn ? pn : 1, p + pn, keep,
                out);
}

/* parent_dir: the end of the directory above the one url[0..dir) ends
 * in; the root ("/" at origin) is its own parent. */
static size_t parent_dir(const char *url, size_t origin, size_t dir)
{
  if (dir <= origin + 1)
    return dir;
  size_t j = dir - 2;
  while (url[j] != '/')
    j--;
  return j + 1;
}

/* fast_relative: h is a path reference ("g", "../g", "/g"); see url.h. */
static bool fast_relative(const url_base_t *b, const char *h, char **out)
{
  size_t dir = b->dir;
  const char *r = h;
  if (r[0] == '/') {
    dir = b->origin;
  } else {
    for (;;) {
      if (r[0] == '.' && (r[1] == '/' || ends_ref(r[1]))) {
        r += r[1] == '/' ? 2 : 1;
      } else if (r[0] == '.' && r[1] == '.' &&
                 (r[2] == '/' || ends_ref(r[2]))) {
        r += r[2] == '/' ? 3 : 2;
        dir = parent_dir(b->url, b->origin, dir);
      } else {
        break;
      }
    }
    /* ".//g" (an empty segment after them) and "./?q" (libcurl 7.88
     * drops the directory's last '/' there) are the slow path's. */
    if (r != h && (r[0] == '/' || r[0] == '?'))
      return false;
  }
  size_t pn, keep;
  if (!plain_path(r, r[0] == '/', &pn) || !plain_tail(r + pn, &keep))
    return false;
  return splice(b->url, dir, r, pn, r + pn, keep, out);
}

/* fast_resolve: true with the answer in *out when href is plain for b;
 * false when the slow path must decide. */
static bool fast_resolve(const url_base_t *b, const char *h, char **out)
{
  if (!b->usable || strlen(h) > URL_MAX_LEN)
    return false;
  size_t sl = url_scheme_len(h);
  if (sl > 0 && !url_is_http_scheme(h, sl)) {
    *out = NULL; /* clean() keeps the scheme; normal form refuses it */
    return true;
  }
  if (sl > 0)
    return (strncmp(h, "http://", 7) == 0 || strncmp(h, "https://", 8) == 0) &&
           fast_absolute(h, out);
  if (b->origin == 0 || h[0] == '?' || (h[0] == '/' && h[1] == '/'))
    return false;
  if (h[0] == '\0' || h[0] == '#') {
    size_t keep;
    if (!plain_tail(h, &keep))
      return false;
    *out = strdup(b->url); /* the base, a normal form */
    return true;
  }
  return fast_relative(b, h, out);
}

void url_base_init(url_base_t *b, const char *base)
{
  memset(b, 0, sizeof(*b));
  b->url = base;
  /* url.c's resolve() refuses every href when clean(base) does. */
  b->usable = base == NULL || strlen(base) <= URL_INPUT_MAX;
  if (base == NULL || !b->usable)
    return;
  size_t sl = url_scheme_len(base);
  if (!(sl == 4 && strncmp(base, "http://", 7) == 0) &&
      !(sl == 5 && strncmp(base, "https://", 8) == 0))
    return;
  const char *a = base + sl + 3;
  size_t an = strcspn(a, "/");
  for (size_t i = 0; i < an; i++)
    if (!is_lower_alnum((unsigned char)a[i]) && strchr("-.:", a[i]) == NULL)
      return; /* userinfo, IPv6, upper case...: leave them to libcurl */
  if (a[an] != '/')
    return;
  char *n = url_normalize(base);
  bool fixed = n != NULL && strcmp(n, base) == 0;
  free(n);
  if (!fixed)
    return;
  b->origin = sl + 3 + an;
  size_t pn = strcspn(base + b->origin, "?");
  b->dir = b->origin;
  for (size_t i = b->origin; i < b->origin + pn; i++)
    if (base[i] == '/')
      b->dir = i + 1;
}

char *url_base_resolve(const url_base_t *b, const char *href)
{
  if (href == NULL)
    return NULL;
  char *r;
  if (fast_resolve(b, href, &r))
    return r;
  return url_resolve_normalized(b->url, href);
}

const char *url_host_normal(const char *url, size_t *len)
{
  const char *a = url ? strstr(url, "://") : NULL;
  if (a == NULL)
    return NULL;
  a += 3;
  const char *end = a + strcspn(a, "/");
  if (*end != '/')
    return NULL;
  /* Userinfo may hold '@' and ':', a host neither (but an IPv6 host
   * ':'), so the host starts after the last '@'. */
  const char *h = a;
  for (const char *p = a; p < end; p++)
    if (*p == '@')
      h = p + 1;
  const char *hend = h;
  if (*h == '[') {
    hend = memchr(h, ']', (size_t)(end - h));
    if (hend == NULL)
      return NULL;
    hend++;
  } else {
    while (hend < end && *hend != ':')
      hend++;
  }
  if (hend < end && *hend != ':')
    return NULL;
  *len = (size_t)(hend - h);
  return h;
}

char *url_host_key_normal(const char *url)
{
  size_t hn;
  const char *h = url_host_normal(url, &hn);
  if (h == NULL)
    return NULL;
  size_t sl = (size_t)(strstr(url, "://") - url);
  const char *hend = h + hn;
  const char *port = sl == 5 ? "443" : "80";
  size_t pn = strlen(port);
  if (*hend == ':') {
    port = hend + 1;
    pn = strcspn(port, "/");
  }
  char *k = malloc(sl + 3 + hn + 1 + pn + 1);
  if (k != NULL) {
    memcpy(k, url, sl + 3);
    memcpy(k + sl + 3, h, hn);
    k[sl + 3 + hn] = ':';
    memcpy(k + sl + 3 + hn + 1, port, pn);
    k[sl + 3 + hn + 1 + pn] = '\0';
  }
  return k;
}
