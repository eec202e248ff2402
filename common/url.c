/* url.c: URL resolution, normalisation, host keys and the default scope
 * prefix; see url.h (the scope itself is scope.c's).
 *
 * Design. libcurl's URL API does the parsing (authority, IPv4/IPv6 hosts,
 * ports) and the RFC 3986 merge of relative references. libcurl 7.88 gets
 * a few references wrong, so they never reach it:
 *   - ""       curl returns the base's directory ("http://a/b/c/"), RFC
 *              says the base itself without fragment: we clear the
 *              fragment of the parsed base;
 *   - "#s"     same bug; we set the fragment on the parsed base;
 *   - "g:h"    curl rejects a scheme without "//" (CURLUE_BAD_SLASHES);
 *              we resolve such references ourselves (RFC 5.2.2: the
 *              reference is the target, minus dot segments);
 *   - "//g"    curl adds the "/" of an empty path; url_resolve removes it
 *              (the RFC result is "http://g"); the normal form keeps it.
 * curl also refuses spaces and control characters, so hrefs are cleaned
 * (stripped and percent-encoded) before curl sees them; that also makes
 * every escape we introduce upper-case, where curl would write "%c3".
 * Normalisation then rebuilds the URL from curl's parts, because curl
 * leaves host case, percent-escape case, "%2e%2e" segments and default
 * ports alone. All that costs microseconds a link, so url_base_resolve
 * (url_base.c) answers the plain hrefs that make up nearly all of real
 * pages by splicing strings, where the result is the same (argued there,
 * and tested against this path), and hands everything else to it. The
 * helpers both files need are in url_int.h.
 *
 * No static mutable state: every call owns its CURLU handles and buffers,
 * which is what makes the whole module safe to call from any thread. The
 * one exception, libidn2's entry point (see idn_would_fail), is looked up
 * once under pthread_once and read-only afterwards.
 */
#include "url.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <langinfo.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "strbuf.h"
#include "url_int.h"

/* ---- building strings: libcs50's strbuf (OOM sticky, checked once) */

static void buf_addpct(strbuf_t *b, unsigned char c)
{
  static const char hex[] = "0123456789ABCDEF";
  char e[3] = { '%', hex[c >> 4], hex[c & 15] };
  strbuf_add(b, e, 3);
}

/* ---- syntax */

/* has_empty_path: s has an authority ("//...") followed directly by
 * '?', '#' or the end, i.e. its RFC 3986 path is empty. */
static bool has_empty_path(const char *s)
{
  size_t sl = url_scheme_len(s);
  const char *p = s + (sl ? sl + 1 : 0);
  if (p[0] != '/' || p[1] != '/')
    return false;
  const char *q = strpbrk(p + 2, "/?#");
  return q == NULL || *q != '/';
}

/* ---- href cleaning (see url.h) */

/* clean: a copy of s as browsers read an href: outer spaces and C0
 * controls stripped, TAB CR LF deleted, in an http(s) URL (one with that
 * scheme, or without a scheme when rel_http: resolved against an http(s)
 * base) a backslash before the query or fragment made a slash, as the
 * WHATWG URL standard does for its "special" schemes ("dir\x.html" is
 * "dir/x.html", "\\h\p" is "//h/p"), other bytes that may not appear
 * raw percent-encoded, except non-ASCII in the authority, which is left
 * for IDN. Returned owned (free()); NULL if too long or on OOM. */
static char *clean(const char *s, bool rel_http)
{
  const unsigned char *a = (const unsigned char *)s;
  size_t n = strlen(s);
  while (n > 0 && a[0] <= 0x20) {
    a++;
    n--;
  }
  while (n > 0 && a[n - 1] <= 0x20)
    n--;
  if (n > URL_INPUT_MAX)
    return NULL;

  /* Pass 1 deletes TAB CR LF, so that the authority found in pass 2 is
   * the one a browser sees ("ht\ntp://h" is "http://h"). */
  char *t = malloc(n + 1);
  if (t == NULL)
    return NULL;
  size_t tn = 0;
  for (size_t i = 0; i < n; i++)
    if (a[i] != '\t' && a[i] != '\r' && a[i] != '\n')
      t[tn++] = (char)a[i];
  t[tn] = '\0';

  size_t sl = url_scheme_len(t);
  size_t p = sl ? sl + 1 : 0;
  if (sl ? url_is_http_scheme(t, sl) : rel_http)
    for (size_t i = p; t[i] != '\0' && t[i] != '?' && t[i] != '#'; i++)
      if (t[i] == '\\')
        t[i] = '/';
  size_t as = 0, ae = 0; /* authority [as, ae); empty if none */
  if (t[p] == '/' && t[p + 1] == '/') {
    as = p + 2;
    ae = as + strcspn(t + as, "/?#");
  }

  strbuf_t b = { 0 };
  for (size_t i = 0; i < tn; i++) {
    unsigned char c = (unsigned char)t[i];
    if (c >= 0x80 && i >= as && i < ae)
      strbuf_addc(&b, (char)c);
    else if (url_must_encode(c))
      buf_addpct(&b, c);
    else
      strbuf_addc(&b, (char)c);
  }
  free(t);
  return strbuf_detach(&b);
}

/* ---- path helpers */

/* remove_dots: RFC 3986 section 5.2.4 remove_dot_segments on in[0..n),
 * appended to out. Works on a private copy because steps B and C rewrite
 * the head of the input ("/./" -> "/"). */
static void remove_dots(const char *in, size_t n, strbuf_t *out)
{
  char *s = malloc(n + 1);
  if (s == NULL) {
    out->oom = true;
    return;
  }
  memcpy(s, in, n);
  s[n] = '\0';
  strbuf_t o = { 0 };
  size_t i = 0;
  while (i < n) {
    const char *r = s + i;
    size_t rest = n - i;
    if (rest >= 3 && strncmp(r, "../", 3) == 0) {
      i += 3; /* A */
    } else if (rest >= 2 && strncmp(r, "./", 2) == 0) {
      i += 2; /* A */
    } else if (rest >= 3 && strncmp(r, "/./", 3) == 0) {
      i += 2; /* B */
    } else if (rest == 2 && strncmp(r, "/.", 2) == 0) {
      i += 1; /* B */
      s[i] = '/';
    } else if ((rest >= 4 && strncmp(r, "/../", 4) == 0) ||
               (rest == 3 && strncmp(r, "/..", 3) == 0)) {
      if (rest == 3) { /* C */
        i += 2;
        s[i] = '/';
      } else {
        i += 3;
      }
      while (o.len > 0 && o.p[o.len - 1] != '/')
        o.len--;
      if (o.len > 0)
        o.len--;
      if (o.p != NULL)
        o.p[o.len] = '\0';
    } else if ((rest == 1 && r[0] == '.') ||
               (rest == 2 && strncmp(r, "..", 2) == 0)) {
      i = n; /* D */
    } else {
      size_t seg = 1 + strcspn(r + 1, "/"); /* E */
      if (r[0] != '/')
        seg = strcspn(r, "/");
      strbuf_add(&o, r, seg);
      i += seg;
    }
  }
  free(s);
  if (o.oom)
    out->oom = true;
  else if (o.p != NULL)
    strbuf_add(out, o.p, o.len);
  free(o.p);
}

/* pct_normalize: copy s to out with escapes in upper-case hex, escaped
 * unreserved characters decoded, and raw bytes that may not appear
 * encoded. A '%' without two hex digits is kept as browsers send it.
 * One exception keeps the result a fixed point (url_normalize must be
 * idempotent; found by tests/fuzz, regression in tests/fuzz/regressions/
 * url/): an escaped hex digit that would follow such a stray '%', or a
 * stray '%' and one hex digit, stays escaped, since decoding it would
 * make a new escape: "%4%41" would become "%4A", that is "J". */
static void pct_normalize(const char *s, strbuf_t *out)
{
  /* Hex digits written since a stray '%' (0 or 1), -1 if none. */
  int stray = -1;
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    int h1, h2;
    if (c == '%' && (h1 = ascii_hexval((unsigned char)s[1])) >= 0 &&
        (h2 = ascii_hexval((unsigned char)s[2])) >= 0) {
      unsigned char v = (unsigned char)(h1 * 16 + h2);
      if (url_is_unreserved(v) && !(stray >= 0 && ascii_hexval(v) >= 0)) {
        strbuf_addc(out, (char)v); /* not a hex digit after a stray '%' */
        stray = -1;
      } else {
        buf_addpct(out, v);
        stray = -1;
      }
      s += 2;
    } else if (url_must_encode(c)) {
      buf_addpct(out, c);
      stray = -1;
    } else {
      strbuf_addc(out, (char)c);
      if (c == '%')
        stray = 0;
      else
        stray = stray == 0 && ascii_hexval(c) >= 0 ? 1 : -1;
    }
  }
}

/* encode_raw: copy s to out, encoding only bytes that may not appear raw
 * (the query is otherwise kept as the server wrote it). */
static void encode_raw(const char *s, strbuf_t *out)
{
  for (; *s != '\0'; s++) {
    unsigned char c = (unsigned char)*s;
    if (url_must_encode(c))
      buf_addpct(out, c);
    else
      strbuf_addc(out, (char)c);
  }
}

/* ---- RFC 3986 resolution */

/* render: the URL held by u as a malloc'd string, dropping the "/" curl
 * invents for an empty path when empty_path says the RFC path is "". */
static char *render(CURLU *u, bool empty_path)
{
  char *s = NULL;
  if (curl_url_get(u, CURLUPART_URL, &s, 0) != CURLUE_OK)
    return NULL;
  strbuf_t b = { 0 };
  strbuf_adds(&b, s);
  curl_free(s);
  char *r = strbuf_detach(&b);
  if (r != NULL && empty_path) {
    char *p = strstr(r, "://");
    char *q = p ? strpbrk(p + 3, "/?#") : NULL;
    if (q != NULL && q[0] == '/' &&
        (q[1] == '\0' || q[1] == '?' || q[1] == '#'))
      memmove(q, q + 1, strlen(q + 1) + 1);
  }
  return r;
}

/* resolve_opaque: a reference with a scheme but no authority ("g:h",
 * "mailto:a@b", strict "http:g"), which curl refuses: per RFC 5.2.2 the
 * target is the reference with its path's dot segments removed. */
static char *resolve_opaque(const char *h, size_t sl)
{
  strbuf_t b = { 0 };
  for (size_t i = 0; i < sl; i++)
    strbuf_addc(&b, (char)ascii_tolower(h[i]));
  strbuf_addc(&b, ':');
  const char *path = h + sl + 1;
  size_t pn = strcspn(path, "?#");
  remove_dots(path, pn, &b);
  strbuf_adds(&b, path + pn);
  return strbuf_detach(&b);
}

/* resolve: the engine of url_resolve and url_resolve_normalized; compat
 * selects the browsers' reading of "http:g" (see url.h). */
static char *resolve(const char *base, const char *href, bool compat)
{
  char *result = NULL;
  CURLU *u = NULL;
  char *b = NULL;
  char *h = NULL;
  if (base != NULL && (b = clean(base, false)) == NULL)
    goto out;
  h = clean(href, b != NULL && url_is_http_scheme(b, url_scheme_len(b)));
  if (h == NULL)
    goto out;

  size_t sl = url_scheme_len(h);
  bool slashes = sl > 0 && h[sl + 1] == '/' && h[sl + 2] == '/';
  if (sl > 0 && !slashes && compat && b != NULL && url_is_http_scheme(h, sl) &&
      url_scheme_len(b) == sl && ascii_strnieq(h, b, sl)) {
    memmove(h, h + sl + 1, strlen(h + sl + 1) + 1);
    sl = 0;
  }

  if (sl > 0 && !slashes) {
    result = resolve_opaque(h, sl);
    goto out;
  }
  u = curl_url();
  if (u == NULL)
    goto out;
  if (sl > 0) {
    /* Absolute: the base plays no part. */
    if (curl_url_set(u, CURLUPART_URL, h, CURLU_NON_SUPPORT_SCHEME) ==
        CURLUE_OK)
      result = render(u, has_empty_path(h));
    goto out;
  }
  if (b == NULL ||
      curl_url_set(u, CURLUPART_URL, b, CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK)
    goto out;

  bool empty_path;
  CURLUcode rc;
  if (h[0] == '\0' || h[0] == '#') {
    /* curl would merge these like a path ("http://a/b/c/"); RFC 5.2.2
     * keeps the base's path and query and takes the reference's
     * fragment, if any. */
    empty_path = has_empty_path(b);
    rc = curl_url_set(u, CURLUPART_FRAGMENT, h[0] ? h + 1 : NULL, 0);
  } else {
    if (h[0] == '?')
      empty_path = has_empty_path(b);
    else if (h[0] == '/' && h[1] == '/')
      empty_path = has_empty_path(h);
    else
      empty_path = false;
    rc = curl_url_set(u, CURLUPART_URL, h, CURLU_NON_SUPPORT_SCHEME);
  }
  if (rc == CURLUE_OK)
    result = render(u, empty_path);

out:
  curl_url_cleanup(u);
  free(b);
  free(h);
  return result;
}

char *url_resolve(const char *base, const char *href)
{
  if (href == NULL)
    return NULL;
  char *r = resolve(base, href, false);
  if (r != NULL && strlen(r) > URL_MAX_LEN) {
    free(r);
    r = NULL;
  }
  return r;
}

/* ---- normal form */

/* struct norm: the parts of a URL in normal form. */
struct norm {
  char scheme[6];      /* "http" or "https" */
  const char *defport; /* "80" or "443", static */
  char *userinfo;      /* "user[:password]" normalised, or NULL */
  char *host;          /* lower case; IPv6 in brackets with any zone */
  char *port;          /* explicit port, NULL when absent or default */
  char *path;          /* normalised, starts with '/' */
  char *query;         /* without '?', NULL when absent */
  bool reparse;        /* host from IDN or percent-decoding: parse again */
};

static char *norm_join(const struct norm *n, bool full);

static void norm_free(struct norm *n)
{
  free(n->userinfo);
  free(n->host);
  free(n->port);
  free(n->path);
  free(n->query);
  memset(n, 0, sizeof(*n));
}

/* get_part: curl's copy of one part turned into a malloc'd string, or
 * NULL when absent or on error; *oom is set if memory ran out. */
static char *get_part(CURLU *u, CURLUPart what, unsigned flags, bool *oom)
{
  char *s = NULL;
  CURLUcode rc = curl_url_get(u, what, &s, flags);
  if (rc != CURLUE_OK) {
    /* Absent parts are normal; a lost path or query is not. */
    if (rc == CURLUE_OUT_OF_MEMORY)
      *oom = true;
    return NULL;
  }
  strbuf_t b = { 0 };
  strbuf_adds(&b, s);
  curl_free(s);
  char *r = strbuf_detach(&b);
  if (r == NULL)
    *oom = true;
  return r;
}

/* ---- IDN pre-check (libcurl 7.88 leak) ----
 *
 * libcurl 7.88's curl_url_get(CURLU_PUNYCODE) leaks its copy of the host
 * whenever libidn2 refuses the name: invalid UTF-8, a leading hyphen or
 * combining mark, a bad "xn--" label... (found by tests/fuzz; regressions
 * in tests/fuzz/regressions/url/). A hostile page could leak a few KiB per
 * link that way. So we first ask libidn2 ourselves, with the calls libcurl
 * makes (lib/idn.c: idn2_lookup_ul non-transitional, then transitional),
 * and hand curl only names it will convert. libidn2 is found with dlopen:
 * libcurl has already loaded it, and the build keeps its link line to
 * pkg-config's libcurl. Without libidn2, IDN hosts are rejected. */
typedef int (*idn2_lookup_fn)(const char *src, char **out, int flags);
enum {
  IDN2_OK_ = 0,
  IDN2_NFC_INPUT_ = 1,
  IDN2_TRANSITIONAL_ = 4,
  IDN2_NONTRANSITIONAL_ = 8
}; /* values from <idn2.h> */

static pthread_once_t idn2_once = PTHREAD_ONCE_INIT;
static idn2_lookup_fn idn2_lookup; /* set once by idn2_load */

static void idn2_load(void)
{
  void *h = dlopen("libidn2.so.0", RTLD_LAZY | RTLD_LOCAL);
  if (h == NULL)
    return;
  /* POSIX's way to turn dlsym's void * into a function pointer. */
  *(void **)&idn2_lookup = dlsym(h, "idn2_lookup_ul");
  /* h stays open for the life of the process, like libcurl's own link. */
}

/* idn_would_fail: true unless libidn2 converts HOST (non-ASCII, in the
 * locale's codeset) the way libcurl will ask it to. */
static bool idn_would_fail(const char *host)
{
  pthread_once(&idn2_once, idn2_load);
  if (idn2_lookup == NULL)
    return true;
  char *out = NULL;
  int rc = idn2_lookup(host, &out, IDN2_NFC_INPUT_ | IDN2_NONTRANSITIONAL_);
  if (rc != IDN2_OK_)
    rc = idn2_lookup(host, &out, IDN2_TRANSITIONAL_);
  free(out); /* idn2_free is free() */
  return rc != IDN2_OK_;
}

/* norm_host: fill n->host from u; false if it is unusable. */
static bool norm_host(CURLU *u, struct norm *n, bool *oom)
{
  char *host = get_part(u, CURLUPART_HOST, 0, oom);
  if (host == NULL)
    return false;
  bool ascii = true;
  for (const char *p = host; *p != '\0'; p++)
    if ((unsigned char)*p >= 0x80)
      ascii = false;
  if (!ascii) {
    /* IDN: libcurl 7.88 converts with idn2_lookup_ul(), which reads the
     * bytes in LC_CTYPE's codeset (curl issue #10984) and, when that
     * fails, leaks the host copy. So only try under a UTF-8 codeset, and
     * only with a name libidn2 accepts (idn_would_fail); otherwise the
     * URL is rejected (see url.h). nl_langinfo is MT-safe in glibc; main
     * sets the locale before threads start. */
    bool refuse = strcmp(nl_langinfo(CODESET), "UTF-8") != 0 ||
                  idn_would_fail(host);
    free(host);
    if (refuse)
      return false;
    host = get_part(u, CURLUPART_HOST, CURLU_PUNYCODE, oom);
    if (host == NULL)
      return false;
    n->reparse = true;
  }
  /* curl percent-decodes host names ("%41.com" -> "A.com"); refuse what
   * that could smuggle in, and anything that is no host at all. */
  bool ok = host[0] != '\0';
  for (char *p = host; *p != '\0'; p++) {
    if (url_must_encode((unsigned char)*p) || *p == '%' || *p == '/')
      ok = false;
    *p = (char)ascii_tolower(*p);
  }
  if (!ok) {
    free(host);
    return false;
  }
  strbuf_t b = { 0 };
  char *zone = host[0] == '[' ? get_part(u, CURLUPART_ZONEID, 0, oom) : NULL;
  if (zone != NULL) {
    /* Zone ids name interfaces: keep their case, re-add the "%25" curl
     * strips from the host part. */
    strbuf_add(&b, host, strlen(host) - 1);
    strbuf_adds(&b, "%25");
    encode_raw(zone, &b);
    strbuf_addc(&b, ']');
    free(zone);
  } else {
    strbuf_adds(&b, host);
  }
  free(host);
  n->host = strbuf_detach(&b);
  if (n->host == NULL)
    *oom = true;
  return n->host != NULL;
}

/* norm_parse1: one parse for norm_parse. */
static bool norm_parse1(const char *url, struct norm *n);

/* norm_parse: split url into normal-form parts; false if url is not a
 * usable http(s) URL or on OOM (then n holds nothing to free).
 * A host that went through IDN conversion or percent-decoding is parsed
 * once more in its final form: libcurl does not always read such a host
 * as the IPv4 address it now spells ("0x7f.1" + a zero-width space after
 * IDN mapping; "http:/%35" gives host "5"), so without this the normal
 * form would not be a fixed point ("http://5/" then "http://0.0.0.5/";
 * found by tests/fuzz, regressions in tests/fuzz/regressions/url/). */
static bool norm_parse(const char *url, struct norm *n)
{
  if (!norm_parse1(url, n))
    return false;
  if (!n->reparse)
    return true;
  char *again = norm_join(n, true);
  norm_free(n);
  bool ok = again != NULL && norm_parse1(again, n);
  free(again);
  return ok;
}

static bool norm_parse1(const char *url, struct norm *n)
{
  memset(n, 0, sizeof(*n));
  bool ok = false, oom = false;
  CURLU *u = NULL;
  char *c = url ? clean(url, false) : NULL;
  if (c == NULL)
    goto out;
  /* The fragment is dropped anyway; cutting it first spares curl's
   * fragment checks. A '#' cannot occur earlier in a valid URL. */
  c[strcspn(c, "#")] = '\0';
  size_t sl = url_scheme_len(c);
  if (!url_is_http_scheme(c, sl))
    goto out;
  memcpy(n->scheme, "https", 6);
  if (sl == 4)
    n->scheme[4] = '\0';
  n->defport = sl == 4 ? "80" : "443";

  u = curl_url();
  if (u == NULL || curl_url_set(u, CURLUPART_URL, c, 0) != CURLUE_OK)
    goto out;
  if (!norm_host(u, n, &oom))
    goto out;
  /* A '%' in the authority: the host may have been percent-decoded. */
  const char *auth = c + sl + 1;
  auth += strspn(auth, "/");
  size_t alen = strcspn(auth, "/?#");
  if (memchr(auth, '%', alen) != NULL)
    n->reparse = true;

  n->port = get_part(u, CURLUPART_PORT, 0, &oom);
  if (n->port != NULL && strcmp(n->port, n->defport) == 0) {
    free(n->port);
    n->port = NULL;
  }

  char *user = get_part(u, CURLUPART_USER, 0, &oom);
  char *pass = get_part(u, CURLUPART_PASSWORD, 0, &oom);
  if (user != NULL || pass != NULL) {
    strbuf_t b = { 0 };
    pct_normalize(user ? user : "", &b);
    if (pass != NULL) {
      strbuf_addc(&b, ':');
      pct_normalize(pass, &b);
    }
    if ((n->userinfo = strbuf_detach(&b)) == NULL)
      oom = true;
  }
  free(user);
  free(pass);

  /* Decode first, then remove dot segments: "%2e%2e" is ".." to every
   * server, so it must go the same way. */
  char *path = get_part(u, CURLUPART_PATH, 0, &oom);
  if (path != NULL) {
    strbuf_t pn = { 0 };
    pct_normalize(path, &pn);
    char *p = strbuf_detach(&pn);
    strbuf_t b = { 0 };
    if (p == NULL)
      b.oom = true;
    else if (p[0] != '/')
      strbuf_addc(&b, '/');
    if (p != NULL)
      remove_dots(p, strlen(p), &b);
    if (b.len == 0)
      strbuf_addc(&b, '/');
    free(p);
    free(path);
    if ((n->path = strbuf_detach(&b)) == NULL)
      oom = true;
  } else {
    strbuf_t b = { 0 };
    strbuf_addc(&b, '/');
    if ((n->path = strbuf_detach(&b)) == NULL)
      oom = true;
  }

  char *query = get_part(u, CURLUPART_QUERY, 0, &oom);
  if (query != NULL && query[0] != '\0') {
    strbuf_t b = { 0 };
    encode_raw(query, &b);
    if ((n->query = strbuf_detach(&b)) == NULL)
      oom = true;
  }
  free(query);
  ok = !oom;

out:
  curl_url_cleanup(u);
  free(c);
  if (!ok)
    norm_free(n);
  return ok;
}

/* norm_join: "scheme://[userinfo@]host[:port]" then, when full, the path
 * and query; NULL when longer than URL_MAX_LEN or on OOM. */
static char *norm_join(const struct norm *n, bool full)
{
  strbuf_t b = { 0 };
  strbuf_adds(&b, n->scheme);
  strbuf_adds(&b, "://");
  if (full && n->userinfo != NULL) {
    strbuf_adds(&b, n->userinfo);
    strbuf_addc(&b, '@');
  }
  strbuf_adds(&b, n->host);
  if (n->port != NULL) {
    strbuf_addc(&b, ':');
    strbuf_adds(&b, n->port);
  }
  if (full) {
    strbuf_adds(&b, n->path);
    if (n->query != NULL) {
      strbuf_addc(&b, '?');
      strbuf_adds(&b, n->query);
    }
  }
  char *r = strbuf_detach(&b);
  if (r != NULL && strlen(r) > URL_MAX_LEN) {
    free(r);
    r = NULL;
  }
  return r;
}

char *url_normalize(const char *url)
{
  struct norm n;
  if (!norm_parse(url, &n))
    return NULL;
  char *r = norm_join(&n, true);
  norm_free(&n);
  return r;
}

char *url_resolve_normalized(const char *base, const char *href)
{
  if (href == NULL)
    return NULL;
  char *r = resolve(base, href, true);
  if (r == NULL)
    return NULL;
  char *n = url_normalize(r);
  free(r);
  return n;
}

bool url_is_http(const char *url)
{
  if (url == NULL)
    return false;
  char *c = clean(url, false);
  bool yes = c != NULL && url_is_http_scheme(c, url_scheme_len(c));
  free(c);
  return yes;
}

/* ---- scope and classification */

char *url_host_normalize(const char *host)
{
  if (host == NULL || host[0] == '\0')
    return NULL;
  /* Nothing but the host may reach curl: it would take "h:80" for a
   * port, "u@h" for userinfo, and so on, and the normal form drops a
   * default port, so that the result alone could not tell. */
  for (const unsigned char *p = (const unsigned char *)host; *p; p++)
    if (*p <= 0x20 || *p == 0x7f || strchr("/?#@\\", *p) != NULL)
      return NULL;
  bool bracket = host[0] == '[';
  if (bracket && host[strlen(host) - 1] != ']')
    return NULL; /* "[::1]:80" */
  bool v6 = !bracket && strchr(host, ':') != NULL;
  strbuf_t b = { 0 };
  strbuf_adds(&b, v6 ? "http://[" : "http://");
  strbuf_adds(&b, host);
  strbuf_adds(&b, v6 ? "]/" : "/");
  char *url = strbuf_detach(&b);
  struct norm n;
  bool ok = url != NULL && norm_parse(url, &n);
  free(url);
  if (!ok)
    return NULL;
  char *h = n.host;
  size_t len = strlen(h);
  ok = n.userinfo == NULL && n.port == NULL && n.query == NULL &&
       strcmp(n.path, "/") == 0;
  if (ok && h[0] != '[') {
    /* "example.edu." and "example.edu" are one name to DNS. */
    if (len > 0 && h[len - 1] == '.')
      h[--len] = '\0';
    ok = len > 0 && h[0] != '.' && h[len - 1] != '.' && strstr(h, "..") == NULL;
  }
  ok = ok && len <= URL_MAX_LEN;
  n.host = NULL;
  norm_free(&n);
  if (!ok) {
    free(h);
    return NULL;
  }
  return h;
}

char *url_scope_default(const char *seed)
{
  /* The normal form's authority as it stands, userinfo included, so a
   * seed with credentials is inside its own scope. */
  char *n = url_normalize(seed);
  if (n == NULL)
    return NULL;
  char *p = strstr(n, "://");
  char *slash = p ? strchr(p + 3, '/') : NULL;
  if (slash == NULL) {
    free(n);
    return NULL;
  }
  slash[1] = '\0';
  return n;
}

char *url_scope_other(const char *prefix)
{
  const char *rest = strncmp(prefix, "http://", 7) == 0  ? prefix + 7
                   : strncmp(prefix, "https://", 8) == 0 ? prefix + 8
                                                         : NULL;
  if (rest == NULL)
    return NULL;
  size_t n = strlen(rest);
  char *o = malloc(n + 9);
  if (o != NULL)
    snprintf(o, n + 9, "%s://%s", prefix[4] == 's' ? "http" : "https", rest);
  return o;
}

char *url_host_key(const char *url)
{
  struct norm n;
  if (!norm_parse(url, &n))
    return NULL;
  strbuf_t b = { 0 };
  strbuf_adds(&b, n.scheme);
  strbuf_adds(&b, "://");
  strbuf_adds(&b, n.host);
  strbuf_addc(&b, ':');
  strbuf_adds(&b, n.port ? n.port : n.defport);
  norm_free(&n);
  return strbuf_detach(&b);
}

const char *url_path_query(const char *url)
{
  /* "://" before the first '/' means its '/' is that first one. */
  size_t k = strcspn(url, "/?#");
  if (k > 0 && url[k - 1] == ':' && url[k] == '/' && url[k + 1] == '/')
    return url + k + 2 + strcspn(url + k + 2, "/?#");
  return url;
}

/* The list of url.h, in strcmp order for bsearch; lower case, at most
 * 7 bytes. */
static const char *const nonpage_ext[] = {
  "3gp", "7z",   "aac",  "apk",   "avi",  "avif", "bin",  "bmp", "bz2",  "css",
  "deb", "dmg",  "doc",  "docx",  "eot",  "eps",  "epub", "exe", "flac", "flv",
  "gif", "gz",   "heic", "ico",   "iso",  "jar",  "jpeg", "jpg", "js",   "m4a",
  "m4v", "map",  "mid",  "midi",  "mjs",  "mkv",  "mov",  "mp3", "mp4",  "mpeg",
  "mpg", "msi",  "odp",  "ods",   "odt",  "oga",  "ogg",  "ogv", "opus", "otf",
  "pdf", "png",  "ppt",  "pptx",  "ps",   "rar",  "rpm",  "rtf", "svg",  "svgz",
  "tar", "tbz2", "tgz",  "tif",   "tiff", "ttf",  "txz",  "wav", "webm", "webp",
  "wma", "wmv",  "woff", "woff2", "xls",  "xlsx", "xz",   "zip", "zst",
};

static int ext_cmp(const void *key, const void *elem)
{
  return strcmp(key, *(const char *const *)elem);
}

bool url_is_nonpage(const char *url)
{
  if (url == NULL)
    return false;
  const char *p = url;
  const char *auth = strstr(url, "://");
  if (auth != NULL) {
    p = strpbrk(auth + 3, "/?#");
    if (p == NULL || *p != '/')
      return false;
  }
  size_t end = strcspn(p, "?#");
  /* Last segment, without ";params" ("a.pdf;jsessionid=1"). */
  const char *seg = p + end; /* found backwards: this runs per link */
  while (seg > p && seg[-1] != '/')
    seg--;
  size_t segn = strcspn(seg, ";?#");
  const char *ext = seg + segn;
  while (ext > seg && ext[-1] != '.')
    ext--;
  if (ext == seg)
    return false; /* no dot */
  size_t extn = segn - (size_t)(ext - seg);
  /* Lower-cased once for bsearch: this runs for every link. */
  char e[8];
  if (extn >= sizeof(e))
    return false; /* longer than any listed extension */
  for (size_t i = 0; i < extn; i++)
    e[i] = (char)ascii_tolower(ext[i]);
  e[extn] = '\0';
  return bsearch(e, nonpage_ext, sizeof(nonpage_ext) / sizeof(nonpage_ext[0]),
                 sizeof(nonpage_ext[0]), ext_cmp) != NULL;
}
