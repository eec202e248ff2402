/* store.h: a saved page directory as a source of pages (internal).
 *
 * Replay (--replay) fetches every URL from a saved crawl instead of the
 * network; resume (--resume) fetches from the interrupted crawl's own
 * directory what it decided already. Both need to know, per URL, the ID
 * it was saved under, the redirect it went through, and the response
 * headers that decided how it was read (Content-Type, X-Robots-Tag): the
 * page files and the journal (pagedir.h) say.
 *
 * Outcomes. What the crawl decided for a URL it did not save (failed,
 * forbidden by robots.txt, binary, a duplicate redirect, noindex) is
 * journaled too, by the page store (pstore.h, pstore_record_*): so that
 * --resume answers each such URL as the interrupted crawl saw it, instead of
 * asking a server that may answer otherwise now (and have the page take an ID
 * already given to another). An outcome belongs to an item, a URL added to the
 * crawl, and is keyed by the URL it was added as, which no other item has (the
 * seen set): it holds the redirects the item went through and what ended it, so
 * store_answer answers each request of that item, hop by hop, as the
 * first crawl saw it. The per-URL answers (saved pages, their redirects)
 * serve every other request.
 *
 * This is the read side of a page directory; its one writer is the page
 * store (pstore.h). --since reads its older crawl through a store_t of
 * its own (store_validators; store_fetch for a 304's body).
 *
 * Thread-safety: built once by one thread; after that read-only, so any
 * number of threads may query it at once. */
#ifndef CRAWLER_STORE_H
#define CRAWLER_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "fetch.h"

typedef struct store store_t;

/* store_open: index the page directory DIR (borrowed; copied). Checks it
 * with pagedir_validate first if PAGES, else with pagedir_validate_ids
 * (each page's URL line is read either way; a page damaged beyond it
 * fails when store_fetch reads it).
 * Returns: owned by caller (store_close); NULL with a one-line reason in
 * ERR (size N). */
store_t *store_open(const char *dir, bool pages, char *err, size_t n);

/* store_id: the ID URL (borrowed) was saved under, or 0. */
int store_id(const store_t *s, const char *url);

/* store_redirect: where URL redirected to in the saved crawl, or NULL.
 * Returns: borrowed, valid until store_close. */
const char *store_redirect(const store_t *s, const char *url);

/* store_x_robots_tag: the X-Robots-Tag URL was served with, or NULL.
 * Returns: borrowed, valid until store_close. */
const char *store_x_robots_tag(const store_t *s, const char *url);

/* store_sitemap: the sitemap URLs the saved seed URL took as links
 * (--sitemaps; the journal's "sitemap" line), space-separated, "" for
 * none; NULL if it has no such line. Returns: borrowed, valid until
 * store_close. */
const char *store_sitemap(const store_t *s, const char *url);

/* store_count: pages in the directory. */
int store_count(const store_t *s);

/* store_validators: the validators the page saved as URL (borrowed) was
 * served with, from its journal's etag and lastmod lines: *ETAG and
 * *LASTMOD, borrowed until store_close, each NULL if none.
 * Returns: that page's ID, or 0 if URL was saved under none (the
 *   validators are then NULL). */
int store_validators(const store_t *s, const char *url, const char **etag,
                     const char **lastmod);

/* store_validated: how many pages have a validator recorded; 0 for a
 * crawl made before they were (pagedir.h). */
int store_validated(const store_t *s);

/* store_fetch: answer a fetch of URL (borrowed) as the saved crawl S
 * would, filling *R (zeroed first, so it must hold nothing owned): a
 * recorded redirect as a 301 with its Location; a saved page as a 200
 * with its body and the Content-Type (plain "text/html" if the journal
 * has none) and X-Robots-Tag it was served with; a page file that cannot
 * be read, or holds another URL now (the directory changed since
 * store_open), or memory running out, as a network error saying so. Any other
 * URL is a 404 when EVERY (replay: every URL comes from S), and is not
 * answered otherwise (resume: the network answers what S does not have).
 * Returns: the saved page's ID (> 0) when *R is that page; 0 when *R is
 *   another answer; -1 when not answered (then *R is zeroed, with
 *   retry_after -1). Either way *R is the caller's (fetch_result_free).
 * Thread-safety: any thread; reads S and the page file only. */
int store_fetch(const store_t *s, const char *url, bool every,
                fetch_result_t *r);

/* What store_answer says beyond the response it fills in. */
typedef enum {
  STORE_RESPONSE, /* the response says it all: a page, a redirect, a
                     failure */
  STORE_ROBOTS,   /* not fetched: robots.txt forbade it (robots) */
  STORE_BINARY,   /* fetched (200, no body): binary content */
  STORE_NOINDEX,  /* fetched (200, no body): noindex, with links */
  STORE_DUPLICATE /* fetched (200, no body): the URL it ended at was
                     crawled already (the commit finds it so) */
} store_verdict_t;

struct link; /* page.h */

typedef struct store_answer {
  store_verdict_t verdict;
  const char *robots; /* ROBOTS: why, as logged; valid until store_close */
  bool nofollow;      /* NOINDEX: the page was nofollow too */
  struct link *links; /* NOINDEX: its links, classified as the first
                         crawl did, keys made; owned by the caller
                         (free each url and key, then the array) */
  size_t nlinks;
} store_answer_t;

/* store_answer: answer request HOP (0 for the first, 1 after a redirect,
 * ...) of the item added as FIRST, now asking for URL (all borrowed),
 * filling *R (zeroed first; as in store_fetch) and *A (zeroed first). If
 * S holds that item's outcome: a redirect it went through as a 301, then
 * a failure exactly as it was seen (same outcome, status, libcurl code
 * and text; never retryable), or a 200 without a body and a verdict
 * (robots.txt, binary, noindex with the links, duplicate: a saved page
 * at URL then comes as in store_fetch). Outcomes of noindex pages are
 * not used when EVERY (replay): a replay may classify links otherwise.
 * Else what store_fetch answers.
 * Returns: as store_fetch. *R and A->links are the caller's.
 * Thread-safety: any thread; reads S and the files. */
int store_answer(const store_t *s, const char *first, int hop, const char *url,
                 bool every, fetch_result_t *r, store_answer_t *a);

/* store_replayed: whether S holds the outcome of the item added as FIRST
 * (borrowed), which store_answer then replays: the commit of a resumed
 * crawl does not journal it again. */
bool store_replayed(const store_t *s, const char *first);

/* store_unreachable_hosts: call FN(ARG, KEY, WHY) for each host (KEY its
 * url_host_key, WHY the reason its URLs were not fetched, starting with
 * HOSTS_UNREACHABLE; both borrowed for the call) whose robots.txt could
 * not be fetched in the saved crawl, as its outcomes show; a host may
 * come more than once. */
void store_unreachable_hosts(const store_t *s,
                             void (*fn)(void *arg, const char *key,
                                        const char *why),
                             void *arg);

/* store_close: free S; NULL is fine. */
void store_close(store_t *s);

#endif /* CRAWLER_STORE_H */
