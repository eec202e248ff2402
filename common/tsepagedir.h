/* tsepagedir.h: reading the page directories the TSE crawler saves; the
 * whole API of libtsepagedir.so, for indexers and other readers.
 *
 * A page directory (its layout: pagedir.h, and tsepagedir(3)) holds one
 * file per saved page, DIR/1, DIR/2, ... with no gap: line 1 the URL,
 * line 2 the depth, then the page exactly as served. With the crawler's
 * --compress each file is one gzip stream of the same bytes; every
 * function here reads both forms, file by file.
 *
 * Every name carries the prefix tsepagedir_ (TSEPAGEDIR_ for macros), so
 * that a program of its own pagedir_init, pagedir_validate, pagedir_load
 * (as CS50's common/pagedir.c defines them) links beside this library;
 * and the library's calls to its own functions are bound inside it
 * (-Bsymbolic, everything else hidden): a program's symbol of the same
 * name is never called by it.
 *
 * Installed as <tsepagedir.h>: build with pkg-config libtsepagedir;
 * manual: tsepagedir(3). The library needs zlib and libc only.
 *
 * Thread-safety: every function may be called from any thread, on any
 * directory, at once; none keeps state between calls. */
#ifndef COMMON_TSEPAGEDIR_H
#define COMMON_TSEPAGEDIR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TSEPAGEDIR_EXTERN marks what libtsepagedir.so exports: the functions
 * below, and nothing else. */
#define TSEPAGEDIR_EXTERN __attribute__((visibility("default")))

/* tsepagedir_page_t: one loaded page. */
typedef struct tsepagedir_page {
  char *url;  /* owned; line 1 */
  int depth;  /* line 2 */
  char *body; /* owned; the page as served; NUL-terminated, and may also
                 hold NUL bytes (a UTF-16 page): use len */
  size_t len; /* body bytes (0 for an empty body) */
} tsepagedir_page_t;

/* tsepagedir_validate: check DIR (borrowed): the marker (DIR/.crawler),
 * IDs contiguous from 1 (no page file beyond the first gap), every page
 * well-formed, plain or compressed.
 * Returns: the number of pages (0 or more), or -1 with a one-line reason
 * in ERR (size N, borrowed), e.g. "'d/7' is not a well-formed page". */
TSEPAGEDIR_EXTERN int tsepagedir_validate(const char *dir, char *err, size_t n);

/* tsepagedir_count: the number of pages: the largest N such that DIR/1 ..
 * DIR/N all exist (not checked: tsepagedir_validate). Returns -1 if DIR
 * is not a page directory (no marker, or one without the magic line). */
TSEPAGEDIR_EXTERN int tsepagedir_count(const char *dir);

/* tsepagedir_load: read page ID of DIR, plain or compressed, into *PAGE
 * (the caller's struct, filled; free what it holds with
 * tsepagedir_page_free).
 * Returns: 0; or -1 with errno ENOENT (no such page), EINVAL (not a
 * well-formed page: line 1 empty or holding a control byte or space,
 * line 2 not a decimal depth; or a damaged gzip stream), ENOMEM, or the
 * error that stopped the read; *PAGE is then empty. */
TSEPAGEDIR_EXTERN int tsepagedir_load(const char *dir, int id,
                                      tsepagedir_page_t *page);

/* tsepagedir_load_url: line 1 (the URL) of page ID alone, plain or
 * compressed, without reading the body.
 * Returns: owned by caller (free()), or NULL with errno as
 * tsepagedir_load. */
TSEPAGEDIR_EXTERN char *tsepagedir_load_url(const char *dir, int id);

/* tsepagedir_page_free: free what *PAGE holds and empty it; PAGE may be
 * NULL. */
TSEPAGEDIR_EXTERN void tsepagedir_page_free(tsepagedir_page_t *page);

/* tsepagedir_param: the crawl's parameter KEY as the marker records it,
 * e.g. "seed", "maxDepth", "compress" ("yes" or "no"); for a key that
 * repeats ("seed", "scope", "domain"), its first value (for "seed", the
 * seedURL). The keys: tsepagedir(3).
 * Returns: owned by caller (free()), NULL if absent or unreadable. */
TSEPAGEDIR_EXTERN char *tsepagedir_param(const char *dir, const char *key);

/* tsepagedir_params: every parameter line of the marker ("key: value",
 * one a line, in the recorded order; a key may repeat).
 * Returns: owned by caller (free()), "" if none; NULL with errno ENOENT
 * (no marker), EINVAL (not a marker of a page directory), ENOMEM. */
TSEPAGEDIR_EXTERN char *tsepagedir_params(const char *dir);

#ifdef __cplusplus
}
#endif

#endif /* COMMON_TSEPAGEDIR_H */
