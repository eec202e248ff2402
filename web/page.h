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

#include "budget.h"
#include "diskq.h"
#include "fetch.h"
#include "frontier.h"
#include "pstore.h"
#include "recbuf.h"
#include "scope.h"
#include "urlfilter.h"

/* The most links kept of one page; the rest are not looked at. */
enum { PAGE_MAX_LINKS = 100000 };

/* Where a link found on a page goes. */
enum {
  L_CANDIDATE,
  L_EXTERN,
  L_NONPAGE,
  L_INVALID,
  L_NOFOLLOW,
  L_TRAP,
  L_FILTERED /* in scope, refused by --accept-regex or --reject-regex */
};

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
  bool sitemapped;        /* parse: a seed's sitemap URLs were added
                             (--sitemaps): its links from NOWN on */
  size_t nown;            /* parse: the links the page itself holds */
  bool sniffed;           /* parse: binary, text, X-Robots-Tag done */
  bool scanned;           /* parse: links extracted */
  bool meta_checked;      /* parse: the robots metas were read */
  bool charged;           /* parse: page_charge was called */
  int stored_id;          /* resume: the ID it was saved under before */
  bool reused;            /* fetch (--since): a 304; res holds the older
                             crawl's copy */
  bool uncond;            /* fetch (--since): ask the next request without
                             validators (the older copy could not be
                             read) */
  /* parse: links in page order, in memory (page_add_link); NULL if none */
  recbuf_t *mem;
  size_t held;      /* parse: bytes of links charged to budget */
  budget_t *budget; /* parse: where they are charged */
  diskq_t *spill;   /* parse: the links after mem's, on disk
                       (page_add_link); NULL if none */
  char *base;       /* parse: <base href>, resolved */
  char *tmp;        /* parse: the page's temporary file */
  int tmp_depth;    /* parse: the depth written in it */
  int write_errno;  /* parse: why tmp could not be written */
  int spill_errno;  /* parse: why a link could not be spilled */
  int read_errno;   /* fetch, parse: why its body could not be read back
                     (its saved or temporary file) */
  char *robots_own; /* page_unpack: what robots points to */
  bool keep_tmp;    /* tmp is another's to remove (a shared crawl:
                       page_free leaves it) */
};

/* How page_scan reads a page's links (all borrowed). */
typedef struct page_scan {
  const scope_t *scope;      /* links outside are L_EXTERN */
  const urlfilter_t *filter; /* links in scope it refuses are L_FILTERED;
                                NULL = none */
  bool respect_rel_nofollow; /* rel="nofollow" links are L_NOFOLLOW */
  const char *agent;         /* read robots metas naming it; NULL: none */
  budget_t *budget;          /* links beyond it go to disk */
  pstore_t *store;           /* ... in this page store's files */
} page_scan_t;

/* page_scan: extract, resolve (against the page's <base href>, if any),
 * normalise and classify the links of P's body (the link format if
 * P->text, HTML otherwise), at most PAGE_MAX_LINKS, into P's links
 * (page_add_link, under IT's seq), reading robots metas on the way; mark
 * P scanned. Out of memory sets P->nomem, a spill that failed
 * P->spill_errno. */
void page_scan(struct page *p, const fitem_t *it, const page_scan_t *c);

/* page_add_url: add URL (borrowed; absolute, from outside the page: a
 * sitemap's loc) to P's links after those page_scan found, normalised and
 * classified as page_scan does (scope, filter, trap, type), at most
 * PAGE_MAX_LINKS links in all. Call page_links_park once done.
 * Returns: 1 added; 0 not added (not an http(s) URL, or P is full); -1
 * out of memory (P->nomem) or the spill failed (P->spill_errno). */
int page_add_url(struct page *p, const fitem_t *it, const page_scan_t *c,
                 const char *url);

/* page_write_tmp: write P's body to its temporary page file in PS
 * (borrowed), named by KEY (pstore_write_tmp), at IT's URL and depth,
 * and free the body; on failure the body stays and P->write_errno says
 * why. */
void page_write_tmp(struct page *p, const fitem_t *it, unsigned long long key,
                    pstore_t *ps);

/* page_reload: P's body back from its temporary file (which goes,
 * whether it could be read or not: it was written at another depth), or,
 * for a page saved before (resume: P->stored_id), from its page file in
 * DIR. Returns 0, or -1 with P->read_errno set. */
int page_reload(struct page *p, const char *dir);

/* page_charge: charge P's own footprint (its record, headers and
 * redirect chain, plus EXTRA bytes of its item) to BUDGET until
 * page_free, as memory that waits for the commit. Once per page. */
void page_charge(struct page *p, budget_t *budget, size_t extra);

/* page_add_link: append L (its strings adopted: copied, then freed) to
 * P's links: in memory (recbuf.h: a long list goes back to the system
 * when P is freed, whatever thread frees it) if BUDGET has room for the
 * block it takes (or is NULL or unlimited), else, from then on, in a
 * spill file of PS (borrowed) named after KEY (pstore_tmp_path), created
 * when needed. Returns: 0; -1 with errno if out of memory or the file
 * could not be written. */
int page_add_link(struct page *p, struct link *l, budget_t *budget,
                  pstore_t *ps, unsigned long long key);

/* page_links: the number of P's links, in memory and on disk. */
size_t page_links(const struct page *p);

/* page_links_park: the scan is over: write what the spill buffers and
 * close its file, so that a page waiting for its commit holds no
 * descriptor. Returns 0 or -1 (errno). */
int page_links_park(struct page *p);

/* page_links_each: call FN(ARG, link) for each of P's links in page
 * order (the link borrowed for the call), reading back those on disk.
 * Returns: 0, or -1 with errno if the spill could not be read. */
int page_links_each(struct page *p, void (*fn)(void *arg, const struct link *l),
                    void *arg);

/* page_links_each_held: as page_links_each, for the links P holds in
 * memory only (the first ones), reading nothing from disk. */
void page_links_each_held(const struct page *p,
                          void (*fn)(void *arg, const struct link *l),
                          void *arg);

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

/* page_pack: what a shared crawl's commit needs of item IT and its
 * record P (after the parse hook), as bytes: its URL and depth, the
 * redirects, the response's outcome and headers, what parse found, its
 * links (read back from disk too), and the name of its temporary page
 * file (not the path: each worker may see the page directory under
 * another). Returns: owned by caller (free), *LEN bytes; NULL if out of
 * memory, or if a spilled link could not be read back (errno). */
char *page_pack(const fitem_t *it, const struct page *p, size_t *len);

/* page_unpack: the item page_pack made DATA (LEN bytes) from, with its
 * record in it->data: links through BUDGET (page_add_link, spilled
 * under KEY in PS), the temporary file in PS's directory (kept:
 * keep_tmp). Returns:
 * owned by caller (page_free the data, fitem_delete the item), or NULL
 * with errno EINVAL (not page_pack's) or ENOMEM. */
fitem_t *page_unpack(const char *data, size_t len, budget_t *budget,
                     pstore_t *ps, unsigned long long key);

/* page_free: free P and everything it owns, its budget charge and spill
 * file included; a temporary file it still names was never published and
 * is removed (unless keep_tmp). NULL is fine. */
void page_free(struct page *p);

#endif /* CRAWLER_PAGE_H */
