/* wsitemap.h: --sitemaps: the URLs a seed's site lists in its sitemaps,
 * taken as links of the seed after its own (depth 1), judged as any link
 * (scope, filters, traps, type). DESIGN.md, "Sitemaps", says why there.
 *
 * Where the sitemaps are: the Sitemap: lines of the seed's host's
 * robots.txt, in order, then /sitemap.xml of the seed's site (scheme,
 * host and port of where the seed ended, after its redirects) if no line
 * named it. A sitemap index's sitemaps are read in its order, right
 * after it; an index inside an index is not followed. Of several seeds
 * on one host (as given), the first alone reads them: the others would
 * ask for the same documents again, for links already added. Only
 * sitemaps on the seed's own host are fetched (the protocol's rule for the URLs
 * they list, kept for the sitemaps too), each allowed by robots.txt, each
 * request taking the host's politeness token, at most WSITEMAP_MAX_FILES
 * documents a seed; redirects are followed within the host, 5 hops.
 *
 * Exactness: what the sitemaps gave is part of the crawl's result, and a
 * site may change its sitemaps while a crawl is interrupted; so the
 * commit journals the URLs a saved seed took from them (pagedir.h,
 * "sitemap"), and a resumed or replayed seed takes them from there,
 * asking no server (store_sitemap). */
#ifndef CRAWLER_WSITEMAP_H
#define CRAWLER_WSITEMAP_H

#include "fptable.h"
#include "webcrawl_int.h"

/* Sitemap documents asked for per seed, at most: they are read one after
 * the other, politely, while the commit waits for the seed, and the
 * seed's links stop at PAGE_MAX_LINKS anyway. */
enum { WSITEMAP_MAX_FILES = 100 };

/* wsitemap_links: add the sitemap URLs of seed IT (depth 0; P scanned
 * with SCAN, not yet parked) to P's links, after its own (P->nown), and
 * set P->sitemapped. Blocks the calling parse thread while it fetches
 * (politely). FIRST: whether IT is the first seed of its host. */
void wsitemap_links(struct webcrawl *w, engine_t *e, const fitem_t *it,
                    struct page *p, const page_scan_t *scan, bool first);

/* wsitemap_firsts: the seeds of SEEDS (NSEEDS, normalised, in order)
 * that come first on their host, as a set for wsitemap_first.
 * Returns: owned by caller (fptable_delete); NULL if out of memory. */
fptable_t *wsitemap_firsts(const char *const *seeds, size_t nseeds);

/* wsitemap_first: whether SEED (as given; normalised) is in FIRSTS.
 * Any thread, once FIRSTS is built (it is only read). */
bool wsitemap_first(const fptable_t *firsts, const char *seed);

/* wsitemap_journal: the journal line's value for P (wsitemap_links ran):
 * its sitemap URLs, space-separated ("" if none). Returns: owned by
 * caller, NULL if out of memory or the links could not be read back
 * (errno). */
char *wsitemap_journal(struct page *p);

#endif /* CRAWLER_WSITEMAP_H */
