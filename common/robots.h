/* robots.h: robots.txt parser and matcher (RFC 9309).
 *
 * A robots_t is the rule set that applies to one crawler (one product
 * token) on one host. It is built once by robots_parse() (or by
 * robots_allow_all() / robots_disallow_all() when the fetch of robots.txt
 * failed) and is immutable afterwards, so any number of threads may query
 * the same robots_t concurrently without a lock.
 *
 * Parsing (robots_parse):
 *  - At most ROBOTS_MAX_BYTES of the file are read; the rest is ignored, and
 *    a line cut by that limit is dropped (a truncated "Allow: /a" could
 *    allow more than the site meant). RFC 9309 2.5 asks for at least 500 KiB.
 *  - Binary-safe: input need not be NUL-terminated or valid UTF-8. A line
 *    holding a NUL byte, a line without ':' and a line with an unknown key
 *    are ignored. A UTF-8 BOM at the start is skipped.
 *  - Lines end in LF, CRLF or a lone CR; '#' starts a comment anywhere;
 *    keys are case-insensitive ("useragent" and "user agent" are accepted
 *    too); blanks around keys, the ':' and values are ignored.
 *  - A group is one or more consecutive user-agent lines followed by rules
 *    (allow, disallow, crawl-delay). Blank lines, sitemap and unknown keys
 *    do not end a group. Rules before the first user-agent line are ignored.
 *  - A user-agent line matches us when its value's leading token (up to '/'
 *    or a blank) equals our product token, ignoring ASCII case; so
 *    "ExampleBot/1.0" matches the token "examplebot". "*" is the
 *    catch-all. All groups that match us are merged; if none does, all "*"
 *    groups are merged and used instead; if there is no "*" group either,
 *    everything is allowed. A matching group with no rules allows
 *    everything (RFC 9309 5.1, "quxbot").
 *  - An empty allow or disallow value is no rule at all.
 *  - Sitemap lines belong to no group: their values (the first
 *    ROBOTS_MAX_SITEMAPS, as written, comments and blanks around them
 *    removed) are kept in order whatever the groups (robots_sitemap).
 *
 * Matching (robots_allowed):
 *  - A pattern matches when it matches a prefix of the path; '*' matches
 *    any run of octets, a '$' ending the pattern anchors it at the end of
 *    the path (a '$' elsewhere is a literal '$').
 *  - The longest matching pattern wins, allow winning ties. Length is the
 *    octet length of the pattern in canonical form (below), counting '*'
 *    and '$', as in RFC 9309 2.2.2 and Google's robots.txt parser.
 *  - Patterns and paths are compared in a canonical percent-encoding:
 *    %XX of an unreserved character (ALPHA DIGIT - . _ ~) is decoded,
 *    other %XX get uppercase hex, a '%' not followed by two hex digits
 *    becomes %25, and octets below 0x21, 0x7F and above are encoded. In the
 *    path, '*' and '$' are encoded as %2A and %24, so "%2A" and "%24" in a
 *    pattern match a literal '*' and '$' (RFC 9309 2.2.3). Hence "/%7Efoo"
 *    matches "/~foo" and "/foo bar" matches "/foo%20bar".
 *  - Paths and patterns are case-sensitive. "/robots.txt" (with any query)
 *    is always allowed.
 *
 * Matching is O(path length * pattern length) per rule in the worst case
 * and needs no backtracking stack, so hostile patterns such as
 * "/x*a*a*a*a*b" cannot blow up. */
#ifndef COMMON_ROBOTS_H
#define COMMON_ROBOTS_H

#include <stdbool.h>
#include <stddef.h>

/* ROBOTS_MAX_BYTES: how much of a robots.txt robots_parse() reads (500 KiB,
 * the minimum RFC 9309 section 2.5 asks crawlers to parse). Fetchers may
 * stop downloading after this many bytes. */
#define ROBOTS_MAX_BYTES ((size_t)500 * 1024)

/* ROBOTS_MAX_SITEMAPS: the Sitemap: lines kept, at most. */
#define ROBOTS_MAX_SITEMAPS 100

typedef struct robots robots_t;

/* robots_parse: build the rules of robots.txt text txt that apply to the
 * crawler named product_token.
 * Caller provides: txt borrowed (len octets, no NUL terminator needed; may
 *   be NULL when len is 0); product_token borrowed, may be NULL or "" (then
 *   only "*" groups apply). Only product_token's leading token (up to '/' or
 *   a blank) is used, so a full User-Agent string works too.
 * Returns: a new robots_t, owned by the caller (robots_delete()), or NULL
 *   if out of memory. Malformed input is never an error (see above).
 * Thread-safety: any thread; touches no shared state. */
robots_t *robots_parse(const char *txt, size_t len, const char *product_token);

/* robots_sitemaps, robots_sitemap: how many Sitemap: values R holds,
 * and the Ith (borrowed, valid until robots_delete; NULL past the end).
 * Rules not parsed from a file (robots_allow_all...) hold none.
 * Thread-safety: any thread. */
size_t robots_sitemaps(const robots_t *r);
const char *robots_sitemap(const robots_t *r, size_t i);

/* robots_allow_all: rules allowing everything (robots.txt answered 4xx,
 * RFC 9309 2.3.1.3).
 * Returns: owned by the caller (robots_delete()), or NULL if out of memory.
 * Thread-safety: any thread. */
robots_t *robots_allow_all(void);

/* robots_disallow_all: rules disallowing everything but "/robots.txt"
 * (robots.txt answered 5xx or was unreachable, RFC 9309 2.3.1.4).
 * Returns: owned by the caller (robots_delete()), or NULL if out of memory.
 * Thread-safety: any thread. */
robots_t *robots_disallow_all(void);

/* robots_allowed: may the crawler fetch path_and_query on this host?
 * Caller provides: r borrowed, or NULL meaning "no rules" (everything is
 *   allowed); path_and_query borrowed, NUL-terminated, the URL's path and
 *   query without scheme, host or fragment ("/a/b?c=d"; for a URL in
 *   normal form, url_path_query() of url.h). NULL or "" means "/"; a path
 *   not starting with '/' gets one prepended.
 * Returns: true if allowed. Also false when a path too long for the stack
 *   buffer cannot get heap memory: when in doubt, do not fetch.
 * Thread-safety: any thread, concurrently on the same r (r is immutable). */
bool robots_allowed(const robots_t *r, const char *path_and_query);

/* robots_crawl_delay: the Crawl-delay of the selected group(s), in seconds.
 * Caller provides: r borrowed, or NULL.
 * Returns: the first valid value (a non-negative decimal such as "2" or
 *   "0.5") among the selected groups' crawl-delay lines, or -1 if r is NULL
 *   or there is none. Invalid values ("fast", "-1", "1e3") are ignored.
 *   The value is not capped; the caller decides what delay is sensible.
 * Thread-safety: any thread, concurrently on the same r. */
double robots_crawl_delay(const robots_t *r);

/* robots_delete: free r and everything it owns. NULL is fine.
 * Thread-safety: any thread, once no other thread uses r. */
void robots_delete(robots_t *r);

/* Page-level directives. A page may also restrict itself, in a
 * <meta name="robots" content="..."> (or a meta named after the crawler)
 * and in X-Robots-Tag response headers; both carry the same syntax. */
enum {
  ROBOTS_NOINDEX = 1u, /* "noindex" or "none": do not save or index it */
  ROBOTS_NOFOLLOW = 2u /* "nofollow" or "none": do not follow its links */
};

/* robots_directives: the directives of one meta robots content or
 * X-Robots-Tag value. Directives end at a comma, space or tab (commas
 * and white space before one are skipped) and are compared ignoring ASCII
 * case; words other than the three above ("index", "noarchive", ...) are
 * ignored. A value holding a ':' is read
 * as "AGENT: directives" and applies only when the text before the first
 * ':' (blanks trimmed) is AGENT, ignoring ASCII case; otherwise it yields
 * nothing.
 * Caller provides: value borrowed, NUL-terminated; agent borrowed, our
 *   product token compared whole (e.g. "tse-crawler"; "" matches only an
 *   empty agent before the ':').
 * Returns: ROBOTS_NOINDEX | ROBOTS_NOFOLLOW as found, 0 if neither. A
 *   page's values add up: OR the results of all its metas and headers.
 * Thread-safety: any thread; touches no shared state; does not depend on
 *   the locale. */
unsigned robots_directives(const char *value, const char *agent);

#endif /* COMMON_ROBOTS_H */
