/* sitemap.h: reading a sitemap (sitemaps.org protocol 0.9), the URLs a
 * site lists for crawlers, with libxml2's streaming reader.
 *
 * A sitemap is a <urlset> of <url><loc>URL</loc></url> or a
 * <sitemapindex> of <sitemap><loc>URL</loc></sitemap>; either may come
 * gzip-compressed (sitemap.xml.gz), which is recognised by its first
 * bytes, whatever the name or Content-Type said. Each <loc> is handed
 * over, whitespace around it removed, in document order; nothing else of
 * the document is kept, so memory stays a few kilobytes however large
 * the sitemap (the input, in memory, is the caller's).
 *
 * Hostile XML is refused, not parsed: a document type declaration (which
 * is where entities and external DTDs are declared, and so billion
 * laughs and external entities) ends the reading at once, as does any
 * entity reference other than the five predefined ones; the network is
 * never used (XML_PARSE_NONET). Past SITEMAP_MAX_LOCS <loc>s, or
 * SITEMAP_MAX_BYTES bytes once decompressed (the protocol's limits), or
 * SITEMAP_MAX_OTHERS comments and processing instructions (50,000 CDATA
 * sections), or a tag over SITEMAP_MAX_TAG bytes, the reading stops too:
 * libxml2's reader keeps the former in memory, and takes time quadratic
 * in the attributes of a tag. A <loc> longer than SITEMAP_MAX_LOC bytes is
 * skipped.
 *
 * Thread-safety: any number of calls at once, on any threads, once
 * xmlInitParser has run (single-threaded, at start). */
#ifndef COMMON_SITEMAP_H
#define COMMON_SITEMAP_H

#include <stddef.h>

/* The protocol's limits: 50,000 URLs and 50 MB (52,428,800 bytes)
 * uncompressed per file. */
#define SITEMAP_MAX_LOCS 50000
#define SITEMAP_MAX_BYTES (50L * 1024 * 1024)
/* The longest <loc> kept, in bytes (the protocol says 2,048 characters). */
#define SITEMAP_MAX_LOC 8192
/* Comments and processing instructions allowed, at most: libxml2's
 * reader keeps them in memory until their parent element ends. */
#define SITEMAP_MAX_OTHERS 1000
/* The longest tag ('<' to '>'), in bytes: many attributes on one tag cost
 * libxml2 time quadratic in their number. */
#define SITEMAP_MAX_TAG (16 * 1024)

typedef enum {
  SITEMAP_URLSET = 1, /* <urlset>: the LOCs are pages */
  SITEMAP_INDEX = 2   /* <sitemapindex>: the LOCs are sitemaps */
} sitemap_kind_t;

/* sitemap_loc_fn: called with each LOC (NUL-terminated, borrowed for the
 * call) of a document of KIND; returns 0 to go on, non-zero to stop. */
typedef int (*sitemap_loc_fn)(void *arg, sitemap_kind_t kind, const char *loc);

/* sitemap_read: read the sitemap in DATA (LEN bytes, plain or gzip),
 * calling FN for every <loc> in order.
 * Returns: 0 if it was read to its end (or FN stopped it); -1 if it was
 *   refused or broken, with a one-line reason in ERR (size N): the LOCs
 *   before the fault were handed over, the rest not. */
int sitemap_read(const char *data, size_t len, sitemap_loc_fn fn, void *arg,
                 char *err, size_t n);

#endif /* COMMON_SITEMAP_H */
