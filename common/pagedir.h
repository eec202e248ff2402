/* pagedir.h: the page directory, the crawler's output and an indexer's
 * input.
 *
 * Layout (a public contract):
 *   DIR/.crawler   marker: "tse-crawler pagedir 1" on line 1, then the
 *                  crawl's parameters as "key: value" lines (seed,
 *                  maxDepth, scope, ...). An indexer checks it is there.
 *   DIR/1, DIR/2, ...  one file per saved page, IDs from 1 with no gap:
 *                  line 1 the URL, line 2 the depth (decimal), then the
 *                  page body exactly as served (after content decoding).
 *   DIR/.tmp-*     pages being written; never a finished page. Readers
 *                  ignore every name that starts with '.'.
 * A page file appears under its ID only complete: it is written to a
 * temporary name and renamed.
 *
 * Thread-safety: every function may be called from any thread; calls that
 * write different files may run at once. */
#ifndef COMMON_PAGEDIR_H
#define COMMON_PAGEDIR_H

#include <stdbool.h>
#include <stddef.h>

#define PAGEDIR_MARKER ".crawler"
#define PAGEDIR_MAGIC "tse-crawler pagedir 1"

/* pagedir_init: make DIR (borrowed; must exist and be writable) a page
 * directory: refuse one that already holds a crawl (a marker or a file
 * named 1), then write the marker with PARAMS (borrowed; "key: value\n"
 * lines, may be NULL).
 * Returns: 0, or -1 with a one-line reason in ERR (size N), e.g.
 * "'out' is not a directory" or "'out' already holds a crawl". */
int pagedir_init(const char *dir, const char *params, char *err, size_t n);

/* pagedir_write_tmp: write a page (URL, DEPTH, BODY of LEN bytes; all
 * borrowed) to a temporary file in DIR named after KEY (unique per page,
 * e.g. the crawl's sequence number).
 * Returns: the temporary file's path, owned by caller (free()); NULL with
 * errno set if it could not be written (nothing is left behind). */
char *pagedir_write_tmp(const char *dir, unsigned long long key,
                        const char *url, int depth, const char *body,
                        size_t len);

/* pagedir_publish: give the temporary file TMP (borrowed) its final name
 * DIR/ID. Returns: 0, or -1 with errno set (TMP is then left in place). */
int pagedir_publish(const char *dir, const char *tmp, int id);

/* pagedir_page_t: one loaded page. */
typedef struct pagedir_page {
  char *url;     /* owned */
  int depth;
  char *body;    /* owned; NUL-terminated (may also contain NUL bytes) */
  size_t len;    /* body bytes */
} pagedir_page_t;

/* pagedir_load: read page ID of DIR into *PAGE (caller's struct).
 * Returns: 0; -1 if the file is missing (errno ENOENT), unreadable or not
 * a well-formed page (errno EINVAL). Free with pagedir_page_free. */
int pagedir_load(const char *dir, int id, pagedir_page_t *page);

/* pagedir_page_free: free what *PAGE holds; PAGE may be NULL. */
void pagedir_page_free(pagedir_page_t *page);

/* pagedir_count: the number of pages: the largest N such that DIR/1 ..
 * DIR/N all exist. Returns -1 if DIR is not a page directory (no marker). */
int pagedir_count(const char *dir);

#endif /* COMMON_PAGEDIR_H */
