/* links.h: find the links in a fetched page.
 *
 * Two page formats:
 *   HTML         links_scan_html(): <a href>, <area href>, the first
 *                <base href>, and <meta name="robots" content>, found by
 *                libxml2's HTML parser in SAX push mode (no tree is built).
 *   link format  links_scan_text(): the project's plain-text test format,
 *                where a link is a whitespace-separated token "link:URL".
 *                It needs no libxml2 and is an object of its own in
 *                libcommon.a, so a program that calls only it links none.
 *
 * Both scanners report what they find, in document order, to a caller's
 * sink (a struct of callbacks) and keep nothing: hrefs come out exactly as
 * written in the page (after entity decoding and trimming of surrounding
 * whitespace), never resolved against a base or normalised; that is the
 * url module's job.
 *
 * Setup: libxml2 must be initialised once, by the main thread, before any
 * thread calls links_scan_html(): call xmlInitParser() (libxml/parser.h)
 * in main() before starting workers, and xmlCleanupParser() after joining
 * them, if at all. libxml2's lazy initialisation is not safe to race.
 *
 * Reentrancy: no globals; each call has its own parser context, and
 * libxml2's parse errors go to a per-context handler that drops them, so
 * nothing is printed on stderr. Charset conversion errors have no context
 * in libxml2; for those, links_scan_html() swaps in a silent structured
 * error handler for the calling thread (libxml2 keeps these per thread)
 * and restores the caller's before returning: a sink callback that uses
 * libxml2 itself sees the silent one. No process-wide libxml2 setting is
 * touched. Any number of threads may scan different pages at once. */
#ifndef COMMON_LINKS_H
#define COMMON_LINKS_H

#include <stdbool.h>
#include <stddef.h>

/* Flags passed with each link. */
enum {
  /* The element's rel attribute holds the token "nofollow" (any case,
   * among other whitespace-separated tokens). Never set by
   * links_scan_text(). */
  LINK_NOFOLLOW = 1 << 0
};

/* Return values of links_scan_html() and links_scan_text(). */
enum {
  LINKS_OK = 0,      /* the whole page was scanned */
  LINKS_STOPPED = 1, /* a sink callback returned nonzero; scan cut short */
  LINKS_ENOMEM = -1  /* out of memory; the sink may have seen a prefix of
                      * the page's links */
};

/* links_sink_t: where the scanners deliver what they find.
 *
 * Any callback may be NULL: that kind of item is then skipped (and costs
 * next to nothing). Callbacks run on the thread that called the scanner,
 * synchronously, with no lock held by this module, in document order.
 * Every string argument is NUL-terminated, borrowed, and valid only until
 * the callback returns: copy what you keep. Strings are UTF-8 when the page
 * is decoded correctly; otherwise they may hold any non-NUL bytes.
 * Return 0 to continue; nonzero stops the scan at once (no further
 * callbacks; the scanner returns LINKS_STOPPED), e.g. at a per-page link
 * cap or when a meta robots "nofollow" makes the rest useless.
 * A callback must not call the same scanner on the same sink recursively
 * (it may scan another page with another sink). */
typedef struct links_sink {
  /* link: one <a href> / <area href> (HTML) or "link:" token (text).
   * href is trimmed of leading and trailing ASCII whitespace; it may be
   * empty (href="" or a bare href, both meaning "this page").
   * flags: a bitwise OR of LINK_* values. */
  int (*link)(void *arg, const char *href, int flags);

  /* base: the href of the first <base> element that has one, reported
   * once, when the parser reaches it (HTML only; trimmed like link).
   * NB: per HTML, that base applies to the whole document, including links
   * reported before it; a caller that wants exact HTML semantics defers
   * resolution of earlier links. Real pages put <base> in <head>. */
  int (*base)(void *arg, const char *href);

  /* meta_robots: each <meta name="robots" content="..."> (name compared
   * without regard to ASCII case), and, if meta_agent is non-NULL, each
   * <meta name="<meta_agent>" content="...">. name is the name attribute as
   * written in the page, content is passed untouched (may be empty); a
   * meta with no content attribute is not reported. HTML only. */
  int (*meta_robots)(void *arg, const char *name, const char *content);

  /* meta_agent: our robots product token, e.g. "tsecrawler", or NULL.
   * Borrowed; must outlive the scan. */
  const char *meta_agent;

  void *arg; /* passed to every callback; never touched by the scanner */
} links_sink_t;

/* links_scan_html: report the links, first base and robots metas of an HTML
 * page.
 * Caller provides: body, len: the raw page bytes as fetched (may hold NUL
 *   bytes and invalid byte sequences; body may be NULL if len is 0);
 *   charset: the charset from the HTTP Content-Type header, or NULL when
 *   unknown. A charset libxml2 knows (directly or through iconv) is used
 *   for the whole page and wins over <meta charset>, as in browsers; an
 *   unknown one is ignored. Without one, libxml2 takes the encoding from
 *   a BOM or a <meta charset> (looked for ahead at the first non-ASCII
 *   byte), and with neither reads the page as ISO-8859-1, as a browser
 *   with a windows-1252 default does: on such a page the UTF-8 bytes of
 *   href="/caf\xc3\xa9" come out as "/caf\xc3\x83\xc2\xa9" (tested in
 *   2.9.14). NEEDSWORK: current browsers sniff valid UTF-8 there;
 *   sink: non-NULL, see links_sink_t.
 *   All borrowed, for the duration of the call.
 * Behaviour: markup is parsed the way libxml2's HTML parser does in recovery
 *   mode: tag and attribute names in any case, quoted, single-quoted and
 *   unquoted attribute values, entities decoded, unclosed tags and stray
 *   end tags recovered from (also content after </html>), no links from
 *   comments or <script>/<style> content. A page in a charset that cannot
 *   decode it (e.g. a bad byte in declared Shift_JIS) is read again as
 *   ISO-8859-1 from the bad byte on, so later links are not lost and none
 *   is reported twice. Never touches the network or the file system, never
 *   prints. Time is linear in the page except as noted below; memory is
 *   about two copies of the page (ours without its text, libxml2's).
 * Limitations (libxml2 2.9): links inside <textarea>, <title> and
 *   <noscript> are reported (libxml2 parses them as markup); a NUL byte
 *   inside an attribute value cuts the value there; a quoted value holding
 *   a raw '>' and later '<' may lose the text between them (see
 *   feed_elided() in links_elide.c); one tag with N attributes costs
 *   O(N^2) (bench/RESULTS.md, "Link extraction: the parts").
 * Returns: LINKS_OK, LINKS_STOPPED (a callback returned nonzero) or
 *   LINKS_ENOMEM. Malformed input is never an error.
 * Thread-safety: any thread, once xmlInitParser() has run (see top);
 *   concurrent calls share nothing. */
int links_scan_html(const char *body, size_t len, const char *charset,
                    const links_sink_t *sink);

/* links_scan_html_test: for tests and benchmarks only. links_scan_html()
 * with tags true; with tags false, without the markup elision of
 * links_elide.c (libxml2 then sees every tag of the page, as it did before
 * it existed), which must never change what is reported. *fed, if fed is
 * not NULL, gets the number of bytes handed to libxml2 after all elision
 * (the page's length when nothing was elided). Same contract otherwise. */
int links_scan_html_test(const char *body, size_t len, const char *charset,
                         const links_sink_t *sink, bool tags, size_t *fed);

/* links_scan_text: report the links of a page in the link format.
 * Format: the page is split into tokens at runs of ASCII whitespace
 *   (space, \t, \n, \v, \f, \r); a token that begins with "link:" (exactly,
 *   case-sensitive) and has at least one more byte is a link, and its URL is
 *   the rest of the token. Everything else is text: "link:" alone, "xlink:a"
 *   and "LINK:a" are not links. NUL bytes are ordinary text bytes (they do
 *   not separate tokens); a link token holding a NUL byte is skipped, since
 *   no URL contains one and a truncated URL would name a different page.
 * Caller provides: body, len: the page bytes (body may be NULL if len is 0);
 *   sink: non-NULL; only sink->link is used, always with flags 0. Borrowed.
 * Returns: LINKS_OK, LINKS_STOPPED or LINKS_ENOMEM.
 * Thread-safety: any thread; no shared state. */
int links_scan_text(const char *body, size_t len, const links_sink_t *sink);

#endif /* COMMON_LINKS_H */
