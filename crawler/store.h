/* store.h: a saved page directory as a source of pages (internal).
 *
 * Replay (--replay) fetches every URL from a saved crawl instead of the
 * network; resume (--resume) fetches from the interrupted crawl's own
 * directory what it saved already. Both need to know, per URL, the ID it
 * was saved under, the redirect it went through, and the response headers
 * that decided how it was read (Content-Type, X-Robots-Tag): the page
 * files and the journal (pagedir.h) say.
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
 * with pagedir_validate first.
 * Returns: owned by caller (store_close); NULL with a one-line reason in
 * ERR (size N). */
store_t *store_open(const char *dir, char *err, size_t n);

/* store_id: the ID URL (borrowed) was saved under, or 0. */
int store_id(const store_t *s, const char *url);

/* store_redirect: where URL redirected to in the saved crawl, or NULL.
 * Returns: borrowed, valid until store_close. */
const char *store_redirect(const store_t *s, const char *url);

/* store_content_type: the Content-Type URL was served with, or NULL for
 * plain "text/html". Returns: borrowed, valid until store_close. */
const char *store_content_type(const store_t *s, const char *url);

/* store_x_robots_tag: the X-Robots-Tag URL was served with, or NULL.
 * Returns: borrowed, valid until store_close. */
const char *store_x_robots_tag(const store_t *s, const char *url);

/* store_count: pages in the directory. */
int store_count(const store_t *s);

/* store_dir: the directory. Returns: borrowed, valid until store_close. */
const char *store_dir(const store_t *s);

/* store_fetch: answer a fetch of URL (borrowed) as the saved crawl S
 * would, filling *R (zeroed first, so it must hold nothing owned): a
 * recorded redirect as a 301 with its Location; a saved page as a 200
 * with its body and the Content-Type (plain "text/html" if the journal
 * has none) and X-Robots-Tag it was served with; a page file that cannot
 * be read, or memory running out, as a network error saying so. Any other
 * URL is a 404 when EVERY (replay: every URL comes from S), and is not
 * answered otherwise (resume: the network answers what S does not have).
 * Returns: the saved page's ID (> 0) when *R is that page; 0 when *R is
 *   another answer; -1 when not answered (then *R is zeroed, with
 *   retry_after -1). Either way *R is the caller's (fetch_result_free).
 * Thread-safety: any thread; reads S and the page file only. */
int store_fetch(const store_t *s, const char *url, bool every,
                fetch_result_t *r);

/* store_close: free S; NULL is fine. */
void store_close(store_t *s);

#endif /* CRAWLER_STORE_H */
