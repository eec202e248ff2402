/* links.h: find the links in a fetched page.
 *
 * Two page formats:
 *   HTML         links_scan_html(): the links a browser finds, by the
 *                WHATWG HTML standard's parsing: <a href>, <area href>,
 *                <frame src>, <iframe src>; the first <base href>; and
 *                <meta name="robots" content>. The standard's tokenizer
 *                and the part of its tree construction that decides these
 *                (links_html.c); no tree is built, and no library parser
 *                is used.
 *   link format  links_scan_text(): the project's plain-text test format,
 *                where a link is a whitespace-separated token "link:URL".
 *                It is an object of its own in libcommon.a, so a program
 *                that calls only it links nothing of the HTML scanner.
 *
 * Both scanners report what they find to a caller's sink (a struct of
 * callbacks) and keep nothing: hrefs come out as written in the page
 * (after character references are decoded and surrounding ASCII
 * whitespace trimmed; HTML queries see links_scan_html()), never resolved
 * against a base or normalised; that is the url module's job.
 *
 * Setup: none. (libxml2 is no longer used here; calling xmlInitParser()
 * first, as the crawler still does, is harmless.)
 *
 * Reentrancy: no globals but constant tables; each call has its own
 * state and prints nothing. Any number of threads may scan different
 * pages at once. */
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
 * synchronously, with no lock held by this module. Links come in document
 * (tree) order, the base before every link, and robots metas in document
 * order among themselves; but in HTML a link may be reported later than a
 * meta that follows it in the page: links are held back until the base
 * is known (see base). Every string argument is NUL-terminated, borrowed,
 * and valid only until the callback returns: copy what you keep. HTML
 * strings are always UTF-8 (the page is decoded, see links_scan_html());
 * link-format strings are the page's bytes.
 * Return 0 to continue; nonzero stops the scan at once (no further
 * callbacks; the scanner returns LINKS_STOPPED), e.g. at a per-page link
 * cap or when a meta robots "nofollow" makes the rest useless.
 * A callback must not call the same scanner on the same sink recursively
 * (it may scan another page with another sink). */
typedef struct links_sink {
  /* link: one <a href>, <area href>, <frame src> or <iframe src> (HTML)
   * or "link:" token (text). href is trimmed of leading and trailing
   * ASCII whitespace; it may be empty for a and area (href="" or a bare
   * href, both meaning "this page"); a frame or iframe with an empty src
   * shows about:blank, not this page, and is not reported.
   * flags: a bitwise OR of LINK_* values. */
  int (*link)(void *arg, const char *href, int flags);

  /* base: the href of the first <base> element that has one (HTML only;
   * trimmed like link), reported once, before any link: per HTML it
   * applies to the whole document, also to links written before it. A
   * base inside <template> content, in SVG or MathML, or in a frameset
   * page's ignored markup does not count. */
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

/* links_scan_html: report the links, the base and the robots metas of an
 * HTML page, as a browser's parser finds them (WHATWG HTML standard,
 * scripting off: a crawler runs no scripts).
 * Caller provides: body, len: the raw page bytes as fetched (may hold NUL
 *   bytes and invalid byte sequences; body may be NULL if len is 0);
 *   charset: the charset from the HTTP Content-Type header, or NULL when
 *   unknown; sink: non-NULL, see links_sink_t. All borrowed, for the
 *   duration of the call.
 * Encoding, by the standard's sniffing: a BOM; else charset, if the
 *   Encoding standard knows the label; else a <meta charset> or
 *   http-equiv Content-Type found in the first 1024 bytes; else UTF-8 if
 *   the page is valid UTF-8 (as browsers detect), else windows-1252 (what
 *   "iso-8859-1" means on the web too). Bytes the encoding cannot decode
 *   become U+FFFD; a <meta> past the first 1024 bytes changes nothing.
 * Behaviour: the standard's tokenizer: any case, any quoting, character
 *   references from the standard's full list (also the legacy ones
 *   without ';', except in an attribute before '=' or an alphanumeric;
 *   numeric ones remapped as it says: &#x80; is the euro sign, &#0;,
 *   surrogates and values past U+10FFFF are U+FFFD); comments ("<!-->"
 *   included), bogus comments, and text that is not markup: the bodies of
 *   textarea, title, xmp, noembed, noframes, iframe, style, script (with
 *   its "<!--<script>" escapes), everything after <plaintext>, CDATA
 *   sections in SVG/MathML. Of tree construction: frames count only in a
 *   frameset page, which ignores everything else (a <frameset> after
 *   body content that made the page no frameset is ignored; one that
 *   replaces a body drops the links found in it); template content is
 *   inert; a <select> drops the tags it cannot hold; a or area in SVG or
 *   MathML is not an HTML link, but HTML in an integration point
 *   (foreignObject ...) is. A tag cut off by the end of the page is no
 *   tag. Never touches the network or the file system, never prints.
 *   Time is linear in the page; memory is the page's links, plus a UTF-8
 *   copy of the page unless it is valid UTF-8 or ASCII.
 * URL values (href, src) of a page whose encoding is not UTF-8 (nor
 *   UTF-16) have the non-ASCII characters of their query percent-encoded
 *   in that encoding, as a browser sends them ("?q=\xc3\xa9" comes out
 *   "?q=%E9" from a windows-1252 page; a character it cannot encode as
 *   "%26%23N%3B", "&#N;"); everything else stays UTF-8.
 * Known differences from a browser (DESIGN.md, "Link extraction"): an
 *   <a> the standard's "reconstruct the active formatting elements"
 *   clones after misnested markup is reported once, not twice (the same
 *   URL).
 * Returns: LINKS_OK, LINKS_STOPPED (a callback returned nonzero) or
 *   LINKS_ENOMEM. Malformed input is never an error.
 * Thread-safety: any thread; concurrent calls share nothing. */
int links_scan_html(const char *body, size_t len, const char *charset,
                    const links_sink_t *sink);

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
