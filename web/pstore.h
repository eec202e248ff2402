/* pstore.h: the page store, the one writer of the crawl's page directory
 * (internal; the directory's layout and line formats: pagedir.h).
 *
 * The program opens it once (the marker written or checked, the lock,
 * on --resume the directory brought back to its last published page),
 * hands it to the crawl (webcrawl_opts_t.pstore), and closes it at the
 * end (durable, complete or discarded, unlocked). In between every write
 * to the directory is one of its calls: the temporary files (pages, the
 * spill files of links and of the queue), the journal's lines (facts of
 * a saved page, outcomes of a URL not saved, the .noindex-K links
 * files), publishing a page under its ID, and for a shared crawl the
 * cut back to the commit's recorded position. Nothing else in web/ or
 * programs/ writes it: reads (pagedir_load, pagedir_count, store.h's
 * index for --replay and --resume) need no owner.
 *
 * --since OLD_DIR (a refresh) reads the older crawl through a store_t of
 * its own and writes nothing there: the body of a page it answers 304
 * for becomes a temporary page here like any fetched body (a
 * pstore_write_tmp of OLD_DIR's copy, at today's depth), and its
 * validators are facts of the saved page (pstore_facts_t).
 *
 * Two ways to hold the directory, chosen at pstore_new:
 *   own     one process's crawl: a write lock; pages published by rename.
 *   shared  a worker of a crawl shared through Redis (--cluster): a read
 *           lock every worker holds; pages published by a hard link,
 *           the temporary file kept until the crawl is complete, so that
 *           a committer after this one can publish them again
 *           (pstore_cut, pstore_publish).
 *
 * Crash safety (DESIGN.md, "Archiving"): a page is written under a
 * temporary name and published whole; its journal lines are appended
 * before it is published, an outcome's after the pages decided before
 * it; pagedir_journal_repair drops what a kill left beyond the last
 * page. With fsync set, each file and line is synced before it counts.
 *
 * Thread-safety: the fields are read-only after pstore_new but for the
 * lock, which only the main thread takes and releases, before workers
 * start and after they end. pstore_write_tmp, pstore_tmp_path,
 * pstore_tmp_join and pstore_tmp_drop: any thread (each writes files of
 * its own). The journal, publishing and the cut: one caller at a time,
 * the commit. Every other call: the main thread, no crawl running. */
#ifndef CRAWLER_PSTORE_H
#define CRAWLER_PSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "fetch.h"
#include "pagedir.h"

typedef struct pstore pstore_t;

/* ---- opening and closing: main thread ---- */

/* pstore_new: the store of the page directory DIR (borrowed; copied),
 * held SHARED or as one process's own, its pages gzip-compressed if
 * COMPRESS, every file and journal line synced if FSYNC. Touches
 * nothing on disk. Returns: owned by caller (pstore_close), or NULL if
 * out of memory. */
pstore_t *pstore_new(const char *dir, bool shared, bool compress, bool fsync);

/* pstore_dir: the directory's path, for messages and readers.
 * Returns: borrowed, valid until pstore_close. Any thread. */
const char *pstore_dir(const pstore_t *ps);

/* pstore_init: make the directory a page directory recording PARAMS
 * (borrowed): pagedir_init, whose refusals ERR (size N) says.
 * Returns 0 or -1. */
int pstore_init(pstore_t *ps, const pagedir_params_t *params, char *err,
                size_t n);

/* pstore_lock: take the directory's lock: the write lock for an own
 * store, the read lock every worker holds for a shared one
 * (pagedir_lock, pagedir_lock_shared). Returns 0, or -1 with errno
 * (EAGAIN: another process holds it in a way that excludes this one). */
int pstore_lock(pstore_t *ps);

/* pstore_resume: with the lock held, bring an interrupted crawl's
 * directory back to its last published page: the temporary files
 * removed, the journal cut to the lines of the pages published
 * (pagedir_journal_repair). A crawl recorded complete is left as it is.
 * Returns: 0; 1 if the crawl is complete (*PAGES and *WHEN its record);
 * -1 with a one-line reason in ERR (size N). */
int pstore_resume(pstore_t *ps, int *pages, time_t *when, char *err, size_t n);

/* pstore_link_probe: whether the directory's file system has the hard
 * links a shared store publishes by (a probe file linked, then both
 * removed). Returns 0, or -1 with a one-line reason in ERR (size N). */
int pstore_link_probe(pstore_t *ps, char *err, size_t n);

/* pstore_stamp: the marker's stamp into OUT (size N): its modification
 * time to the nanosecond and its size, which a copy keeps (cp -a) and
 * another crawl's marker does not have: what binds a shared crawl to
 * its directory. Returns 0, or -1 (errno). Any thread. */
int pstore_stamp(const pstore_t *ps, char *out, size_t n);

/* pstore_sync: make the renames durable (pagedir_sync). Returns 0 or -1
 * (errno). */
int pstore_sync(pstore_t *ps);

/* pstore_derive: add the N prefixes VALUES (borrowed) the crawl added to
 * its scope to the marker (pagedir_marker_derive). After the crawl's
 * threads end. Returns 0 or -1 (errno). */
int pstore_derive(pstore_t *ps, const char *const *values, size_t n);

/* pstore_complete: record that the crawl ran to its end with the pages
 * there (pagedir_complete). Returns 0 or -1 (errno). */
int pstore_complete(pstore_t *ps);

/* pstore_discard: undo pstore_init for a crawl that saved no page
 * (pagedir_discard), with the lock held. Returns 0; -1 with errno
 * (EEXIST: a page was saved after all, nothing removed). */
int pstore_discard(pstore_t *ps);

/* pstore_close: release the lock, if taken, and free PS (NULL is fine).
 * An own store's lock file goes; a shared store's stays for the other
 * workers unless DONE (the crawl is complete: none writes any more). */
void pstore_close(pstore_t *ps, bool done);

/* ---- temporary files: any thread ---- */

/* pstore_write_tmp: write a page (URL, DEPTH, BODY of LEN bytes; all
 * borrowed) to a temporary file named after KEY (unique per write),
 * compressed and synced as the store is (pagedir_write_tmp).
 * Returns: its path, owned by caller (free()), the file the caller's
 * until pstore_publish or pstore_tmp_drop; NULL with errno (nothing is
 * left behind). */
char *pstore_write_tmp(pstore_t *ps, unsigned long long key, const char *url,
                       int depth, const char *body, size_t len);

/* pstore_tmp_path: the path for a temporary file of the crawl's own
 * named after WHAT (a word) and KEY, removed with the temporary pages
 * (pagedir_tmp_path). Returns: owned by caller (free()), or NULL. */
char *pstore_tmp_path(const pstore_t *ps, const char *what,
                      unsigned long long key);

/* pstore_tmp_join: the path of the temporary file NAME (borrowed) that
 * another process sharing the directory wrote (pagedir_tmp_join).
 * Returns: owned by caller (free()), or NULL. */
char *pstore_tmp_join(const pstore_t *ps, const char *name);

/* pstore_tmp_drop: remove the temporary file *PATH (never published),
 * free the path and clear *PATH. NULL *PATH is fine. */
void pstore_tmp_drop(char **path);

/* ---- the commit: one caller at a time ---- */

/* What the journal holds of a saved page besides its file (pagedir.h:
 * redirect, ctype, xrobots, etag, lastmod, sitemap lines). All
 * borrowed. */
typedef struct pstore_facts {
  const char *url;    /* the page's URL, where its redirects ended */
  char *const *chain; /* the HOPS URLs it was redirected from, in order */
  int hops;
  const char *ctype;   /* its Content-Type, or NULL */
  const char *xrobots; /* its X-Robots-Tag, or NULL */
  const char *etag;    /* its validators (--since): its ETag ... */
  const char *lastmod; /* ... and Last-Modified, each NULL if none */
  const char *sitemap; /* a seed's sitemap URLs, space-separated ("" for
                          none); NULL if it took none (no --sitemaps) */
} pstore_facts_t;

/* pstore_journal_page: journal F, the facts of page ID, before it is
 * published: a line per redirect, its Content-Type unless exactly
 * "text/html", its X-Robots-Tag, its ETag, its Last-Modified, its
 * sitemap URLs (a value holding a line break is not journaled). Returns 0, or
 * -1 with errno. */
int pstore_journal_page(pstore_t *ps, int id, const pstore_facts_t *f);

/* pstore_publish: give the temporary page file *TMP (from
 * pstore_write_tmp; or from another worker's, pstore_tmp_join) its ID.
 * An own store renames it, then frees *TMP and clears it. A shared
 * store links it and *TMP stays, as the file does; an ID already naming
 * that file counts as published, and a file gone with the crawl's end
 * (Redis lost the last commits) is published again from where
 * pstore_cut kept it (URL at DEPTH, borrowed).
 * Returns: 0, or -1 with errno (*TMP then left as it was). */
int pstore_publish(pstore_t *ps, char **tmp, int id, const char *url,
                   int depth);

/* One item whose outcome is journaled: added as CHAIN[0] if HOPS > 0
 * (then redirected from CHAIN[0], ..., CHAIN[HOPS - 1], in order), else
 * as URL; URL is where it ended. DEPTH and SEQ are its depth and
 * sequence number (the links file's temporary name). All borrowed. */
typedef struct pstore_item {
  const char *url;
  char *const *chain;
  int hops;
  int depth;
  unsigned long long seq;
} pstore_item_t;

/* pstore_record_*: journal the outcome of IT, decided when TAG pages
 * were saved (the line's ID, pagedir.h), in one line (pstore_record.c;
 * store.h reads them back).
 * Returns: 0, or -1 with errno set (a line may then be torn: readers
 * ignore a last line without its newline). */

/* pstore_record_failed: the request failed as R (borrowed) says; a
 * newline in its error is written as a space. */
int pstore_record_failed(pstore_t *ps, int tag, const pstore_item_t *it,
                         const fetch_result_t *r);

/* pstore_record_robots: not fetched; WHY (borrowed), the reason logged. */
int pstore_record_robots(pstore_t *ps, int tag, const pstore_item_t *it,
                         const char *why);

/* pstore_record_binary: fetched, and binary content. */
int pstore_record_binary(pstore_t *ps, int tag, const pstore_item_t *it);

/* pstore_record_duplicate: fetched after redirects onto a URL crawled
 * already. */
int pstore_record_duplicate(pstore_t *ps, int tag, const pstore_item_t *it);

struct link; /* page.h */

/* pstore_links_fn: call FN(ARG, link) for each of SRC's links, in order
 * (page_links_each). Returns 0, or -1 with errno. */
typedef int (*pstore_links_fn)(void *src,
                               void (*fn)(void *arg, const struct link *l),
                               void *arg);

/* pstore_record_noindex: fetched, noindex (and NOFOLLOW); its NLINKS
 * links (EACH over SRC) are written first to .noindex-K (K > 0, unique
 * in the crawl; nothing is written when NLINKS is 0), a line at a time,
 * compressed as the pages are. */
int pstore_record_noindex(pstore_t *ps, int tag, const pstore_item_t *it,
                          bool nofollow, int k, pstore_links_fn each, void *src,
                          size_t nlinks);

/* ---- a shared crawl's position: the commit ---- */

/* pstore_position: the journal's length in bytes (0 if there is none),
 * what a commit records with its page count; -1 (errno). */
long long pstore_position(const pstore_t *ps);

/* pstore_cut: bring the directory back to a commit's recorded position:
 * the journal cut to JOURNAL bytes, the pages above PAGES unpublished
 * (kept for pstore_publish). Returns 0 or -1 (errno). */
int pstore_cut(pstore_t *ps, long pages, long long journal);

/* pstore_clear_tmp: remove every temporary file (pagedir_remove_tmp):
 * with the lock held, or once a shared crawl is complete, when no
 * temporary file is anyone's. Returns 0 or -1 (errno). Main thread. */
int pstore_clear_tmp(pstore_t *ps);

#endif /* CRAWLER_PSTORE_H */
