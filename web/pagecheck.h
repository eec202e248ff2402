/* pagecheck.h: the checks that decide what the crawl makes of a link or
 * a fetched page (internal): crawler traps in a link's path, bodies that
 * are not text whatever their Content-Type says, how a body is read, and
 * the robots directives of its headers and metas.
 *
 * Each check is a function of its arguments alone, run by the parse
 * threads on every link or page, so each is a single pass without
 * allocation; the one exception, pagecheck_meta_robots, parses a page
 * only when a few passes over it have found a reason to.
 *
 * Thread-safety: every function: any thread; no shared state. */
#ifndef CRAWLER_PAGECHECK_H
#define CRAWLER_PAGECHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "fetch.h"

/* How a page's body is read (--format). */
enum {
  FORMAT_AUTO, /* the link format if served as text/plain, else HTML */
  FORMAT_HTML, /* always HTML */
  FORMAT_LINK  /* always the link format (links.h) */
};

/* pagecheck_trap: whether PATH, a normalised URL's path and query
 * (borrowed), is a crawler trap: one segment of the path (the query
 * aside) occurs more than 3 times, as in /a/a/a/a/ or where relative
 * links pile up on a misconfigured server. Only the first 256 segments
 * are looked at. */
bool pagecheck_trap(const char *path);

/* pagecheck_binary: whether BODY (LEN bytes, borrowed, any bytes) is
 * clearly not text, whatever its Content-Type says: it starts with the
 * signature of a common binary format (PDF, PNG, GIF, JPEG, ZIP, gzip,
 * RAR, 7z, Ogg, MP3, RIFF, ELF, bzip2, xz, WOFF), or has a NUL byte in
 * its first 1024. A UTF-16 byte-order mark at the start lets it through
 * (UTF-16 text is full of NULs). */
bool pagecheck_binary(const char *body, size_t len);

/* pagecheck_mentions: whether BODY (LEN bytes, borrowed, any bytes)
 * contains WORD (borrowed, NUL-terminated, non-empty, ASCII) as an HTML
 * parser reads it: each character as itself or as a numeric character
 * reference to it ("&#114;", "&#x72;"), ignoring ASCII case. A NUL in
 * BODY never matches. Runs on every page at maxDepth: O(LEN) on ordinary
 * text, comparing only where the byte is WORD's first letter or '&'. */
bool pagecheck_mentions(const char *body, size_t len, const char *word);

/* pagecheck_meta_possible: whether a parse of the HTML page BODY (LEN
 * bytes, borrowed) could find a robots meta naming "robots" or AGENT
 * (our product token, borrowed; "" names none): false only when it
 * surely cannot, so that pagecheck_meta_robots gives the same answer as
 * the parse at every depth. True when BODY starts with a UTF-16 byte
 * order mark or has a NUL byte (not ASCII-compatible), when CHARSET (its
 * HTTP charset, borrowed, or NULL) or a "charset=" in a meta tag names an
 * encoding not known to write ASCII as ASCII bytes, or when the
 * attributes of a meta tag (from "<meta" to its '>' as the HTML
 * tokenizer reads them, quoted values and all) mention "robots" or AGENT
 * (as pagecheck_mentions reads a word). O(LEN): a memchr for '<', and a
 * scan of meta tags only. */
bool pagecheck_meta_possible(const char *body, size_t len, const char *charset,
                             const char *agent);

/* What a fetched page is (pagecheck_sniff). */
typedef struct pagecheck_kind {
  bool binary;     /* clearly not text: neither parse nor save it */
  bool text;       /* read it as the link format; else as HTML */
  unsigned robots; /* ROBOTS_NOINDEX | ROBOTS_NOFOLLOW (robots.h) from
                      its X-Robots-Tag */
} pagecheck_kind_t;

/* pagecheck_sniff: what the page in R (borrowed; body, len, content_type
 * and x_robots_tag are looked at) is, read per FORMAT (FORMAT_*). AGENT
 * (borrowed) is our product token for the X-Robots-Tag (robots_directives
 * in robots.h), or NULL to ignore the header. A binary page is only that:
 * its other fields are false and 0. */
pagecheck_kind_t pagecheck_sniff(const fetch_result_t *r, int format,
                                 const char *agent);

/* pagecheck_meta_robots: the robots metas of the HTML page in R
 * (borrowed; body, len and content_type for its charset are looked at),
 * for a page whose links are not wanted (at maxDepth), which is then not
 * scanned otherwise. Scanning costs a parse, so a page is scanned only if
 * pagecheck_meta_possible says a parse could find one (AGENT is our
 * product token, borrowed; "" names none): the answer is the parse's
 * whatever the depth.
 * Returns: ROBOTS_NOINDEX | ROBOTS_NOFOLLOW (robots.h) from <meta
 *   name="robots"> and <meta name="AGENT">, 0 if none (also when out of
 *   memory mid-scan: what was read by then). */
unsigned pagecheck_meta_robots(const fetch_result_t *r, const char *agent);

#endif /* CRAWLER_PAGECHECK_H */
