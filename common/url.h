/* url.h: resolve, normalise and classify URLs for the crawler.
 *
 * Two layers, both built on libcurl's URL API (curl_url), which does the
 * parsing and most of the RFC 3986 section 5.2 reference resolution; this
 * module fixes the cases libcurl 7.88 gets wrong and adds normalisation.
 *
 *   url_resolve()             RFC 3986 resolution, any scheme, no extras:
 *                             "g:h" against "http://a/b/c/d;p?q" is "g:h".
 *   url_normalize()           an absolute http(s) URL in canonical form,
 *   url_resolve_normalized()  or NULL; what the crawler stores and compares.
 *
 * Href cleaning (both layers, every href and base they are given), as
 * browsers do (WHATWG URL): leading and trailing spaces and C0 controls are
 * ignored, TAB CR LF anywhere inside are deleted, and every other byte that
 * may not appear raw in a URL is percent-encoded with upper-case hex:
 * C0 controls, space, DEL, bytes >= 0x80 (so UTF-8 text becomes its %XX
 * bytes) and  " < > \ ^ ` { | }.  The one exception is the host, where
 * non-ASCII bytes are left for IDN conversion (see url_normalize).
 * In an http(s) URL (by its scheme, or by the base's when it has none) a
 * backslash before the query or fragment is a '/', as the WHATWG URL
 * standard says for its special schemes ("dir\x" is "dir/x", "\\h\p"
 * is "//h/p"); elsewhere it is encoded as %5C.
 *
 * Normal form (url_normalize and url_resolve_normalized):
 *   - scheme is "http" or "https" (lower case); any other scheme is NULL;
 *   - host in lower case, non-empty; an IDN host becomes punycode, but
 *     only when LC_CTYPE's codeset is UTF-8 (main calls setlocale before
 *     threads start), because libcurl 7.88 reads the host in the locale's
 *     codeset; otherwise an IDN URL is rejected; IPv6 literals as libcurl
 *     prints them ("[::1]"), lower case;
 *   - port dropped when it is the scheme's default (80 / 443);
 *   - userinfo kept (percent-normalised as the path);
 *   - path: percent escapes get upper-case hex, escaped unreserved
 *     characters (ALPHA DIGIT - . _ ~) are decoded (%7e -> ~, %2e -> .,
 *     but %2f stays %2F), then dot segments are removed; empty path is "/";
 *     a '%' not followed by two hex digits is kept as is, as browsers send;
 *   - query kept byte for byte, except raw bytes that may not appear (see
 *     above) are percent-encoded; a '?' with nothing after it is dropped
 *     (libcurl drops it when resolving; servers treat both alike);
 *   - fragment dropped;
 *   - at most URL_MAX_LEN bytes, else rejected;
 *   - never contains a space or any control character, so it can be line 1
 *     of a saved page file.
 * url_normalize is idempotent: normalising a normal-form URL returns it
 * unchanged.
 *
 * Per-page fast path (url_base_init, url_base_resolve, url_host_key_normal):
 * the crawler resolves hundreds of links per page against one base, and
 * most hrefs are plain. url_base_resolve gives exactly what
 * url_resolve_normalized gives, but answers the plain cases below by
 * string splicing, without libcurl; everything else goes to
 * url_resolve_normalized, the reference. An href is plain when it is
 * printable ASCII (0x21-0x7e: nothing to clean) and one of
 *   - "" or "#frag": the base itself;
 *   - "path[?query][#frag]" or "/path[?query][#frag]" with a plain path
 *     after any leading "." and ".." segments, which pop directory levels
 *     of the base (never above its root) as RFC 3986 5.2.4 does; unless
 *     '/' or '?' follows them, because libcurl 7.88 resolves "./?q"
 *     against "http://a/b/c" to "http://a/b?q", not "http://a/b/?q";
 *   - "http://host[:port][/path[?query]][#frag]" or the same with https,
 *     in normal form already: host of dot-separated labels of [a-z0-9-],
 *     the last one starting with a letter (so it is no IPv4 number that
 *     libcurl would rewrite), or an IPv4 address as libcurl writes one
 *     (four decimal parts of 0-255, no leading zeros), port 1-65535
 *     without leading zeros and not the scheme's default, a plain path;
 *   - "scheme:..." with any scheme but http(s): NULL, as from the slow
 *     path, which follows no other scheme.
 * A plain path is unreserved characters, sub-delims, '@', '/' and, after
 * a leading '/', ':', with no "." or ".." segment (so no '%' to recase or
 * decode); a query is kept as is when it holds no byte that needs
 * encoding ("?" alone is dropped); the fragment may be anything printable.
 * Relative hrefs take the fast path only against a base that is its own
 * normal form with a host of [a-z0-9.-] (no userinfo, no IPv6), so its
 * path has no dot segments or escapes for libcurl or normalisation to
 * rewrite; url_base_init checks that once per page, with url_normalize.
 * tests/unit/common/url_base_test.c and bench/links_bench -c compare the
 * two paths byte for byte.
 *
 * Memory: every returned string is malloc'd and owned by the caller, who
 * frees it with free() (not curl_free). NULL means invalid, not followable,
 * or out of memory; callers treat all three as "skip this link".
 *
 * Threads: no function keeps state between calls (each call uses its own
 * CURLU handle; a url_base_t is the caller's), so all are callable from
 * any thread concurrently, provided curl_global_init() was called by main
 * before threads started.
 */
#ifndef COMMON_URL_H
#define COMMON_URL_H

#include <stdbool.h>
#include <stddef.h>

/* Longest URL, in bytes without the NUL, that url_resolve,
 * url_normalize and url_resolve_normalized return; longer results are
 * rejected as invalid. Inputs (href, base) longer than URL_INPUT_MAX are
 * rejected before any work, to bound time and memory on hostile pages. */
#define URL_MAX_LEN 2048
#define URL_INPUT_MAX (16 * URL_MAX_LEN)

/* url_resolve: resolve href against base as RFC 3986 section 5.2 says.
 * Caller provides: base, an absolute URL with an authority
 *   ("scheme://host..."), borrowed; may be NULL, then only an absolute
 *   href resolves. href, borrowed, non-NULL; cleaned as described above.
 * Returns: the absolute URL, returned owned (free()), in any scheme,
 *   keeping the fragment of href (or none): e.g. for base
 *   "http://a/b/c/d;p?q": "" -> "http://a/b/c/d;p?q", "#s" ->
 *   "http://a/b/c/d;p?q#s", "g:h" -> "g:h". A reference with a scheme but
 *   no "//" is resolved strictly ("http:g" -> "http:g"). Scheme is lower
 *   case; otherwise the text is as libcurl renders it (e.g. an authority
 *   with an empty path keeps it empty: "//g" -> "http://g").
 *   NULL if href or base cannot be parsed, a relative href has no valid
 *   base, the result exceeds URL_MAX_LEN, or memory runs out.
 * Thread-safety: any thread. */
char *url_resolve(const char *base, const char *href);

/* url_normalize: put an absolute http(s) URL into normal form.
 * Caller provides: url, borrowed, non-NULL; cleaned as described above.
 * Returns: the normal form, returned owned (free()); NULL if url is not
 *   an absolute http or https URL with a host, is malformed, too long, or
 *   memory runs out.
 * Thread-safety: any thread. */
char *url_normalize(const char *url);

/* url_resolve_normalized: resolve an href found on a page, then normalise.
 * Caller provides: base, the page's final URL or its resolved <base href>,
 *   borrowed (NULL: only absolute hrefs resolve); href, borrowed,
 *   non-NULL, the attribute value as found.
 * Returns: as url_normalize, returned owned (free()). Unlike url_resolve,
 *   a reference whose scheme equals the base's http(s) scheme but has no
 *   "//" is taken as relative, as browsers do ("http:g" ->
 *   "http://a/b/c/g"). "", whitespace-only and "#frag" give the base
 *   itself. "javascript:", "mailto:" etc. give NULL.
 * Thread-safety: any thread. */
char *url_resolve_normalized(const char *base, const char *href);

/* url_base_t: a page's base URL, prepared once for url_base_resolve.
 * A value, not a handle: it borrows the base string and owns no memory,
 * so it needs no delete and can sit in a caller's struct or on the stack
 * (the crawler's link callbacks have no end-of-page hook that could free
 * one). Its fields are private to url_base.c; set them with
 * url_base_init. */
typedef struct url_base {
  const char *url; /* the base as given, borrowed; NULL for none */
  size_t origin;   /* relative fast path: length of "scheme://host[:port]"
                    * in url; 0: relative hrefs take the slow path */
  size_t dir;      /* length of url up to the last '/' of its path */
  bool usable;     /* absolute fast path allowed (url not over-long) */
} url_base_t;

/* url_base_init: prepare b for resolving hrefs against base.
 * Caller provides: b, non-NULL; base, the same string url_resolve_normalized
 *   would get (page URL or resolved <base href>; NULL: only absolute hrefs
 *   resolve), borrowed: it must outlive every url_base_resolve with b.
 * Never fails: when base does not qualify for the fast path (see above),
 *   or memory runs out checking it, b sends hrefs to the slow path.
 * Cost: one url_normalize of base.
 * Thread-safety: any thread; b is not shared (read-only once set). */
void url_base_init(url_base_t *b, const char *base);

/* url_base_resolve: url_resolve_normalized(base, href) for the base b was
 *   set up with, byte for byte, but without libcurl for plain hrefs (see
 *   "Per-page fast path" above).
 * Caller provides: b from url_base_init, borrowed; href, borrowed,
 *   non-NULL.
 * Returns: as url_resolve_normalized, returned owned (free()).
 * Thread-safety: any thread; b only read, so threads may share one. */
char *url_base_resolve(const url_base_t *b, const char *href);

/* url_host_key_normal: url_host_key(url) for a url already in normal
 *   form, cut from the string instead of parsed again: "scheme://host:port"
 *   with the scheme's default port when url has none.
 * Caller provides: url, borrowed, as returned by url_normalize,
 *   url_resolve_normalized or url_base_resolve (for anything else the
 *   result is unspecified, but never an overrun); NULL gives NULL.
 * Returns: returned owned (free()); NULL if url has no "scheme://" and
 *   '/' after the authority, or on OOM.
 * Thread-safety: any thread. */
char *url_host_key_normal(const char *url);

/* url_host_normal: where the host of url, a URL in normal form, is in
 *   it, cut from the string: the authority after any userinfo and before
 *   any port, an IPv6 literal with its brackets ("http://u@[::1]:8/x"
 *   gives "[::1]"). What url_host_key_normal and scope.h's domain test
 *   read, without a copy.
 * Caller provides: url, borrowed, as url_host_key_normal takes it; len,
 *   non-NULL.
 * Returns: a pointer into url (valid as long as url is), *len bytes long
 *   (no NUL there); NULL, *len untouched, if url has no "scheme://" and
 *   '/' after the authority, or an unclosed '[' or something other than
 *   ":port" after the host.
 * Thread-safety: any thread. */
const char *url_host_normal(const char *url, size_t *len);

/* url_host_normalize: a host name or address alone (what --domain takes)
 *   as the normal form writes hosts: lower case, an IDN name in punycode
 *   (as url_normalize: under a UTF-8 LC_CTYPE only), an IPv4 address in
 *   dotted decimal ("127.1" gives "127.0.0.1"), an IPv6 address in
 *   brackets ("::1" and "[::1]" give "[::1]"), and then one trailing dot
 *   dropped ("Example.EDU." gives "example.edu"), which url_normalize
 *   keeps in URLs.
 * Caller provides: host, borrowed; NULL gives NULL.
 * Returns: returned owned (free()); NULL if host is not a host alone
 *   (empty; holding a scheme, userinfo, port, path, query, fragment,
 *   whitespace or a control; a name with an empty label, ".example.edu"
 *   or "a..b"; longer than URL_MAX_LEN), or on OOM.
 * Thread-safety: any thread. */
char *url_host_normalize(const char *host);

/* url_is_http: true when url has the scheme http or https (any case),
 *   after the leading whitespace that href cleaning ignores; the only
 *   schemes the crawler follows. Does not check the rest of url.
 * Caller provides: url, borrowed; NULL gives false.
 * Thread-safety: any thread. */
bool url_is_http(const char *url);

/* url_scope_default: the default crawl scope for a seed URL, as a prefix
 *   for scope_new (scope.h): "scheme://[userinfo@]host[:port]/" of the
 *   seed's normal form (port only when not the default; userinfo kept, so
 *   a seed with credentials is in its own scope, and links are followed
 *   only with the same ones).
 * Caller provides: seed, borrowed, any URL url_normalize accepts.
 * Returns: returned owned (free()); NULL if seed is invalid or on OOM.
 * Thread-safety: any thread. */
char *url_scope_default(const char *seed);

/* url_scope_other: PREFIX (a url_scope_default, borrowed) over the other
 *   scheme: "http://h:8080/" gives "https://h:8080/" and the other way
 *   round; a port, or none (the scheme's default), stays as it is.
 * Returns: returned owned (free()); NULL if PREFIX is not http(s), or on
 *   OOM.
 * Thread-safety: any thread. */
char *url_scope_other(const char *prefix);

/* url_host_key: the politeness key of a URL, "scheme://host:port" with the
 *   port always explicit ("http://a:80"), no userinfo, no path.
 * Caller provides: url, borrowed, any URL url_normalize accepts.
 * Returns: returned owned (free()); NULL if url is invalid or on OOM.
 * Thread-safety: any thread. */
char *url_host_key(const char *url);

/* url_path_query: the path and query of url, what an HTTP request names
 *   and robots.txt rules match: the rest of url after "scheme://authority"
 *   when "://" comes before url's first '/', '?' or '#'; otherwise url
 *   itself, taken as a bare path. Not a copy, and nothing is parsed,
 *   checked or decoded: it runs to url's NUL, so a fragment, if url has
 *   one, is still there ("http://h/a?b#c" gives "/a?b#c"), and it need not
 *   start with '/' ("http://h?q" gives "?q", "http://h" gives ""). A
 *   normal form has no fragment and always a path starting with '/'.
 * Caller provides: url, borrowed, non-NULL.
 * Returns: a pointer into url (borrowed from the caller, valid as long as
 *   url is).
 * Thread-safety: any thread. */
const char *url_path_query(const char *url);

/* url_is_nonpage: true when the last path segment of url ends in an
 *   extension that is obviously not an HTML page, so the crawler need not
 *   fetch it. Compared case-insensitively; the query, the fragment and any
 *   ";params" of the last segment are ignored. The list:
 *     images    jpg jpeg png gif bmp webp svg svgz ico tif tiff avif heic
 *     audio     mp3 wav ogg oga flac aac m4a opus mid midi wma
 *     video     mp4 m4v webm avi mov mkv flv wmv mpg mpeg ogv 3gp
 *     archives  zip gz tgz tar bz2 tbz2 xz txz 7z rar zst iso dmg
 *     binaries  exe msi deb rpm apk jar bin
 *     documents pdf ps eps doc docx xls xlsx ppt pptx odt ods odp rtf epub
 *     web       css js mjs map
 *     fonts     woff woff2 ttf otf eot
 * Caller provides: url, borrowed, absolute (normal form recommended, so
 *   that "%2E" is already "."); NULL gives false.
 * Thread-safety: any thread. */
bool url_is_nonpage(const char *url);

#endif /* COMMON_URL_H */
