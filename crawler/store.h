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

/* store_close: free S; NULL is fine. */
void store_close(store_t *s);

#endif /* CRAWLER_STORE_H */
