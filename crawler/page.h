/* page.h: the crawler's record of one item on its way from fetch to
 * commit (internal): what webcrawl.c's hooks keep in fitem_t.data.
 *
 * Ownership and threads: the record belongs to its item, and the engine
 * hands an item to one hook at a time (fetch, then parse, once more for
 * a speculative item, then commit, then release; engine.h), each after
 * the one before is done with it. So no field needs a lock; the comments
 * say which hook writes each. Strings and arrays are owned by the
 * record and freed by page_free.
 *
 * Thread-safety: every function: the thread whose hook holds the item;
 * none takes a lock. */
#ifndef CRAWLER_PAGE_H
#define CRAWLER_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "fetch.h"
#include "frontier.h"

/* Where a link found on a page goes. */
enum { L_CANDIDATE, L_EXTERN, L_NONPAGE, L_INVALID, L_NOFOLLOW, L_TRAP };

struct link {
  char *url; /* normalised, or the raw href when L_INVALID */
  char *key; /* L_CANDIDATE: its host key, computed in parallel here
                rather than in the serial commit */
  int cls;
};

struct page {
  int attempts;           /* fetch: requests made for the current URL */
  int hops;               /* fetch: redirects followed */
  char **chain;           /* fetch: URLs redirected from, in order */
  fetch_result_t res;     /* fetch: the final response */
  bool skipped;           /* not fetched: --max-pages or the host's
                             --max-pages-per-host was reached */
  const char *robots;     /* not fetched: why robots.txt forbids it */
  bool noindex, nofollow; /* parse: meta robots / X-Robots-Tag */
  bool binary;            /* parse: the body is clearly not text */
  bool text;              /* parse: read as the link format */
  bool nomem;             /* parse: links lost to out of memory */
  bool sniffed;           /* parse: binary, text, X-Robots-Tag done */
  bool scanned;           /* parse: links extracted */
  int stored_id;          /* resume: the ID it was saved under before */
  struct link *links;     /* parse: links in page order */
  size_t nlinks, cap;
  char *base;      /* parse: <base href>, resolved */
  char *tmp;       /* parse: the page's temporary file */
  int write_errno; /* parse: why tmp could not be written */
};

/* page_of: the record of IT (it->data), made, zeroed, on first use.
 * Returns: borrowed (the item's; page_free when the item is released),
 * or NULL if out of memory. */
struct page *page_of(fitem_t *it);

/* page_robots: add the robots directives D (ROBOTS_* bits, robots.h) of
 * one of P's headers or metas to P; directives only add up. */
void page_robots(struct page *p, unsigned d);

/* page_sniff: set what P's fetched page is (binary, text, X-Robots-Tag:
 * pagecheck_sniff with FORMAT and AGENT, borrowed) and mark P sniffed.
 * A binary body is dropped at once: it is neither parsed nor saved. */
void page_sniff(struct page *p, int format, const char *agent);

/* page_free: free P and everything it owns; a temporary file it still
 * names was never published and is removed. NULL is fine. */
void page_free(struct page *p);

#endif /* CRAWLER_PAGE_H */
