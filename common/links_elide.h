/* links_elide.h: the page elision behind links_scan_html(), shared by
 * links_html.c and links_elide.c.
 *
 * Private: not part of the public API, which is links.h. Only the
 * common/links_*.c files include it; nothing here is promised to users of
 * libcommon.a, and it changes with the libxml2 version the model follows.
 *
 * Elision copies a page minus bytes that cannot change what libxml2's
 * HTML parser reports, so that libxml2 has less to walk; links_elide.c
 * argues why each cut is exact. */
#ifndef COMMON_LINKS_ELIDE_H
#define COMMON_LINKS_ELIDE_H

#include <stdbool.h>
#include <stddef.h>

/* LINKS_ROOT_NAME: the element links_html.c opens before every page and
 * never closes (see ROOT_TAG there). The tag model must know it: whether
 * an end tag of that name ends the document depends on libxml2's stack. */
#define LINKS_ROOT_NAME "tse-links.root"

/* LINKS_PIECE: the most bytes links_html.c hands libxml2 in one
 * htmlParseChunk() call (it takes an int). The tag model holds only for a
 * page that goes in as one piece. */
#define LINKS_PIECE (1 << 30)

/* links_elide_safe: may the page p[0..n) be elided at the byte level?
 *   Not with ISO-2022 (ESC) or HZ ("~{") shift sequences, in whose
 *   two-byte modes '<' and '>' can be halves of characters.
 * Caller provides: p[0..n), borrowed, in an encoding that reads ASCII as
 *   single bytes (never UTF-16: the caller checks that).
 * Thread-safety: any thread. */
bool links_elide_safe(const char *p, size_t n);

/* links_elide: copy the page p[0..n) to out without runs of text and,
 *   if tags, without the tags that can neither report anything nor change
 *   how later bytes are tokenised. libxml2 then makes the same
 *   startElement calls, with the same arguments, in the same order, on
 *   out as on p (tests/unit/common/links_diff_test.c compares).
 * Caller provides: p[0..n), borrowed, for which links_elide_safe() holds;
 *   pinned, borrowed: the charset label that pins the page's encoding (the
 *   HTTP charset libxml2 was given, or "utf-8" for a UTF-8 BOM), or NULL
 *   when the encoding is left to libxml2's detection; tags: false to drop
 *   text only (links_scan_html_test()); out, room for n bytes (elision
 *   never lengthens), not overlapping p.
 * Returns: the number of bytes written to out.
 * Thread-safety: any thread, once xmlInitParser() has run (it reads
 *   libxml2's version, see links.h). */
size_t links_elide(const char *p, size_t n, const char *pinned, bool tags,
                   char *out);

#endif /* COMMON_LINKS_ELIDE_H */
