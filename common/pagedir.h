/* pagedir.h: the page directory, the crawler's output and an indexer's
 * input: its one reader and writer (internal: linked into the programs;
 * readers outside use tsepagedir.h, libtsepagedir.so, whose functions
 * are the reading ones here under their own prefix).
 *
 * Layout (a public contract):
 *   DIR/.crawler    marker: "tse-crawler pagedir 1" on line 1, then the
 *                   crawl's parameters (pagedir_params_t), one "key:
 *                   value" line each, in this order: seed (a line per
 *                   seed, seedURL first; one for a crawl of one seed),
 *                   maxDepth,
 *                   scope (a line per prefix, none if only domains set
 *                   the scope), domain (a line per domain, none for a
 *                   crawl without, so such a marker is what it was
 *                   before domains existed), format, maxPages,
 *                   maxPagesPerHost, maxPageSize, compress ("yes" or
 *                   "no"), then only where they are set: ignoreRobots
 *                   ("yes"), respectRelNofollow ("yes"), sitemaps
 *                   ("yes"), userAgent,
 *                   acceptRegex and rejectRegex (a line per expression),
 *                   since (the absolute path of --since's older crawl)
 *                   (so a marker without them is what it was before they
 *                   were recorded); numbers in decimal. Last, redirectScope
 *                   lines (a prefix each): the scope the crawl added by
 *                   itself, the sites its seed's redirects went to
 *                   (with the default scope only). Only this module reads or
 *                   writes it (pagedir_init, pagedir_marker_read,
 *                   pagedir_marker_compare, pagedir_param); an indexer
 *                   checks it through them.
 *   DIR/1, DIR/2, ... one file per saved page, IDs from 1 with no gap:
 *                   line 1 the URL, line 2 the depth (decimal), then the
 *                   page body exactly as served (after content decoding).
 *                   With --compress the same three parts are inside one
 *                   gzip stream (zcat DIR/7 shows the page); readers here
 *                   accept both forms, file by file.
 *   DIR/.journal    what the page files do not hold, one fact per line
 *                   "KIND ID A [B]" (A without whitespace, B the rest of
 *                   the line), in the order the crawl decided them (a
 *                   last line without a newline is a torn write, ignored).
 *                   ID ties each line to a page: facts about a saved page
 *                   carry its ID and are appended before it is published;
 *                   the outcome of a URL not saved carries the number of
 *                   pages saved when it was decided (0 before the first).
 *                   So on resume the lines whose ID is above the pages
 *                   published are dropped (pagedir_journal_repair) and
 *                   the rest is exactly what the interrupted crawl
 *                   decided. Facts of a saved page: "redirect ID FROM TO"
 *                   for each redirect it went through, "ctype ID URL
 *                   VALUE" for its Content-Type if it had one other than
 *                   exactly "text/html", "xrobots ID URL VALUE" for its
 *                   X-Robots-Tag if it had one, "etag ID URL VALUE" and
 *                   "lastmod ID URL VALUE" for its ETag and Last-Modified
 *                   as served, if it had them (older readers skip them;
 *                   a directory with neither line for any page is from
 *                   before they were recorded, or from servers that send
 *                   none: --since refuses it), "sitemap ID URL U1 U2 .."
 *                   for a seed saved under --sitemaps: the URLs its
 *                   sitemaps gave, space-separated (none: the line ends
 *                   after URL and a space). Outcomes of a URL not
 *                   saved, A the URL it was first asked as, B starting
 *                   with "N HOP1 .. HOPN", the N redirects it went through
 *                   (N >= 0; HOPN the URL it ended at):
 *                     failed ID URL N HOPS.. OUTCOME STATUS CURLCODE WHY
 *                       the request failed (OUTCOME "http", "type",
 *                       "large" or "net"; the HTTP status and libcurl's
 *                       code, 0 if none; WHY as logged, to the line end)
 *                     robots ID URL N HOPS.. WHY
 *                       not fetched: robots.txt forbade it, or could not
 *                       be fetched (WHY as logged)
 *                     binary ID URL N HOPS..    fetched, not a page
 *                     duplicate ID URL N HOPS.. redirected onto a URL
 *                                               already crawled
 *                     noindex ID URL N HOPS.. FOLLOW K
 *                       fetched, noindex; FOLLOW "follow" or "nofollow";
 *                       K > 0 names DIR/.noindex-K, its links, 0 none
 *                   Replay and resume use it (web/store.h).
 *   DIR/.noindex-K  the links of a noindex page the crawl followed, in
 *                   the form of a page file (URL, depth, then one link a
 *                   line, "CLASS HREF" as the crawler classified it, a
 *                   backslash in HREF written "\\" and a newline "\n"),
 *                   plain or gzip as the pages are; written before its
 *                   journal line.
 *   DIR/.tmp-*      pages being written; never a finished page.
 *   DIR/.lock       locked by the crawler writing DIR (empty file).
 *   DIR/.complete   "pages: N", written when the crawl ran to its end
 *                   (N pages; its time, when); a marker without it is
 *                   a crawl interrupted, being written, or made before
 *                   the file existed (tse-crawler 0.1.0).
 * Readers ignore every name that starts with '.'. A page file appears
 * under its ID only complete: it is written to a temporary name and
 * renamed.
 *
 * Thread-safety: every function may be called from any thread; calls that
 * write different files may run at once. */
#ifndef COMMON_PAGEDIR_H
#define COMMON_PAGEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "tsepagedir.h"

#define PAGEDIR_MARKER ".crawler"
#define PAGEDIR_JOURNAL ".journal"
#define PAGEDIR_LOCK ".lock"
#define PAGEDIR_COMPLETE ".complete"
/* The marker's key for what the crawl added to its scope by itself: the
 * sites the seed's own redirects went to (pagedir_marker_derive). */
#define PAGEDIR_DERIVED "redirectScope"
#define PAGEDIR_MAGIC "tse-crawler pagedir 1"
/* The largest marker read, in bytes (a crawl of 10,000 --scope prefixes
 * of 200 bytes writes 2 MiB): a bigger one is no crawl's. */
#define PAGEDIR_MARKER_MAX (16L * 1024 * 1024)

/* pagedir_params_t: the crawl parameters the marker records: what
 * defines the crawl's result, and nothing that varies between identical
 * crawls (no dates, no worker counts), so that a resumed crawl can be
 * held to the same ones. Filled by the caller; every pointer borrowed. */
typedef struct pagedir_params {
  const char *seed;         /* the normalised seed URL */
  const char *const *seeds; /* NSEEDS more (--seed, --seeds), in order */
  size_t nseeds;
  int max_depth;
  const char *const *scope; /* NSCOPE normalised URL prefixes */
  size_t nscope;
  const char *const *domain; /* NDOMAIN normalised domains */
  size_t ndomain;
  const char *format;        /* "auto", "html" or "link" */
  long max_pages;            /* 0 = no limit */
  long max_pages_per_host;   /* 0 = no limit */
  size_t max_page_size;      /* bytes */
  bool compress;             /* page files gzip-compressed */
  bool ignore_robots;        /* robots.txt and robots directives ignored */
  bool rel_nofollow;         /* rel="nofollow" links not followed */
  bool sitemaps;             /* seeds' sitemap URLs followed (--sitemaps) */
  const char *user_agent;    /* the User-Agent, if not the default; NULL */
  const char *const *accept; /* NACCEPT --accept-regex expressions */
  size_t naccept;
  const char *const *reject; /* NREJECT --reject-regex expressions */
  size_t nreject;
  const char *since; /* --since: the older crawl's absolute path; NULL */
} pagedir_params_t;

/* pagedir_params_text: PARAMS as the marker records them, "key: value"
 * lines (a key may repeat). Returns: owned by caller (free()), or NULL
 * if out of memory. */
char *pagedir_params_text(const pagedir_params_t *params);

/* pagedir_init: make DIR (borrowed; must exist and be writable) a page
 * directory: refuse one that already holds a crawl (a marker or a file
 * named 1), then write the marker recording PARAMS (borrowed; NULL for
 * the magic line alone).
 * Returns: 0, or -1 with a one-line reason in ERR (size N), e.g.
 * "'out' is not a directory" or "'out' already holds a crawl".
 * Thread-safety: any thread; the marker is linked into place whole,
 * so one of two racing calls wins and no reader sees it half written. */
int pagedir_init(const char *dir, const pagedir_params_t *params, char *err,
                 size_t n);

/* pagedir_marker_read: the parameter lines of DIR's marker (everything
 * after the magic line), read whole, up to PAGEDIR_MARKER_MAX bytes.
 * Returns: owned by caller (free()), "" for a marker of the magic line
 * alone; NULL with errno ENOENT (no marker), EINVAL (line 1 is not the
 * magic line, or the marker is no regular file: a FIFO, a device),
 * EFBIG (larger than PAGEDIR_MARKER_MAX), ENOMEM, or the error that
 * stopped the read.
 * Thread-safety: any thread. */
char *pagedir_marker_read(const char *dir);

/* pagedir_marker_derive: add to DIR's marker a PAGEDIR_DERIVED line for
 * each of the N VALUES (borrowed) it does not hold yet, rewriting it
 * whole (a temporary file renamed). With the lock held.
 * Returns 0 or -1 (errno). */
int pagedir_marker_derive(const char *dir, const char *const *values, size_t n);

/* pagedir_marker_compare: does DIR's marker record exactly PARAMS
 * (borrowed), line for line, as pagedir_init would write it (its
 * PAGEDIR_DERIVED lines skipped: no command line gives them)?
 * Returns: 0 if so; 1 if not, with *HAD and *WANT the first line that
 * differs, as recorded and as PARAMS gives it ("" past the last line),
 * both owned by caller (free()); -1 with errno set if the marker cannot
 * be read (see pagedir_marker_read). *HAD and *WANT are NULL unless 1.
 * Thread-safety: any thread. */
int pagedir_marker_compare(const char *dir, const pagedir_params_t *params,
                           char **had, char **want);

/* Flags of pagedir_write_tmp and pagedir_journal_add. */
enum {
  PAGEDIR_GZIP = 1, /* write the page gzip-compressed */
  PAGEDIR_FSYNC = 2 /* fsync before returning (durable across a power
                       failure; costs a disk flush per call) */
};

/* pagedir_write_tmp: write a page (URL, DEPTH, BODY of LEN bytes; all
 * borrowed) to a temporary file in DIR named after KEY (unique per page,
 * e.g. the crawl's sequence number). FLAGS: PAGEDIR_GZIP, PAGEDIR_FSYNC.
 * Returns: the temporary file's path, owned by caller (free()); NULL with
 * errno set if it could not be written (nothing is left behind). */
char *pagedir_write_tmp(const char *dir, unsigned long long key,
                        const char *url, int depth, const char *body,
                        size_t len, unsigned flags);

/* pagedir_tmp_path: DIR's path for a temporary file of the crawl's own
 * (say, what waits on disk for lack of memory), named after WHAT (a word)
 * and KEY, which pagedir_remove_tmp removes with the temporary pages.
 * Returns: owned by caller (free()), or NULL if out of memory. */
char *pagedir_tmp_path(const char *dir, const char *what,
                       unsigned long long key);

/* pagedir_remove_tmp: remove every temporary page (DIR/.tmp-*) an
 * interrupted crawl left. Call with the lock held. Returns 0 or -1. */
int pagedir_remove_tmp(const char *dir);

/* pagedir_complete: record that the crawl in DIR ran to its end with
 * PAGES pages (DIR/.complete, written whole under a name of its own and
 * renamed, then the directory synced): several processes of a shared
 * crawl may each record it. Returns 0 or -1 (errno). */
int pagedir_complete(const char *dir, int pages);

/* pagedir_completed: whether DIR records a complete crawl; if so *PAGES
 * its pages and *WHEN when it was recorded (either may be NULL).
 * Returns: 1, 0 if not (no .complete), -1 if it cannot be read or is
 * not in its format (errno). */
int pagedir_completed(const char *dir, int *pages, time_t *when);

/* pagedir_discard: undo pagedir_init for a crawl that saved no page:
 * remove DIR's journal, .complete, .noindex-* and .tmp-* files, then its
 * marker,
 * so that DIR is as it was before (but for .lock, which pagedir_unlock
 * removes). Call with the lock held. Returns 0; -1 with errno EEXIST if
 * DIR/1 exists (nothing is removed), or another errno. */
int pagedir_discard(const char *dir);

/* pagedir_publish: give the temporary file TMP (borrowed) its final name
 * DIR/ID. Returns: 0, or -1 with errno set (TMP is then left in place). */
int pagedir_publish(const char *dir, const char *tmp, int id);

/* pagedir_publish_name: the same under the final name DIR/NAME (borrowed;
 * a hidden file such as ".noindex-3"). Returns as pagedir_publish. */
int pagedir_publish_name(const char *dir, const char *tmp, const char *name);

/* pagedir_tmp_join: DIR's path for the file NAME (borrowed): a
 * temporary file pagedir_tmp_path or pagedir_write_tmp named, as another
 * process sharing DIR names it, or any other. Returns: owned by caller,
 * or NULL. */
char *pagedir_tmp_join(const char *dir, const char *name);

/* pagedir_publish_link: as pagedir_publish, but TMP stays (a hard link,
 * not a rename), and an ID that already names TMP's file counts as
 * published: for a crawl shared by processes, where the one that
 * publishes may die before it records so, and the next publishes again.
 * Returns: 0, or -1 with errno (EEXIST: ID names another file). */
int pagedir_publish_link(const char *dir, const char *tmp, int id);

/* pagedir_unpublish_after: unpublish DIR/ID for every ID above LAST up to
 * the first one missing (what a shared crawl's commit published but did
 * not record), the highest first, so that one stopped half way leaves
 * a run from LAST + 1: each page is kept under a temporary name of its
 * URL (".tmp-kept-HASH", removed with the others by pagedir_remove_tmp),
 * for pagedir_publish_kept; a file that is no page is removed. Returns 0
 * or -1 (errno). */
int pagedir_unpublish_after(const char *dir, int last);

/* pagedir_publish_kept: publish as ID the page of URL at DEPTH (its lines
 * 1 and 2) that pagedir_unpublish_after kept, whatever its ID was:
 * what a shared crawl commits again once its temporary name is gone (the
 * crawl was complete, and Redis lost the last commits). Returns 0, or -1
 * (errno; ENOENT: none kept, or another page's). */
int pagedir_publish_kept(const char *dir, int id, const char *url, int depth);

/* pagedir_journal_size: the bytes of DIR/.journal (0 if there is none),
 * or -1 (errno). */
long long pagedir_journal_size(const char *dir);

/* pagedir_journal_truncate: cut DIR/.journal to SIZE bytes (0 and no
 * journal: nothing to do). Returns 0, or -1 (errno; EINVAL if it is
 * shorter than SIZE). */
int pagedir_journal_truncate(const char *dir, long long size);

/* pagedir_journal_add: append the line "KIND ID A" or "KIND ID A B" for
 * page ID, 0 or more (B may be NULL; all borrowed; KIND and A without
 * whitespace, B without a newline) to DIR/.journal in one write. FLAGS:
 * PAGEDIR_FSYNC. Returns 0 or -1 (errno). */
int pagedir_journal_add(const char *dir, const char *kind, int id,
                        const char *a, const char *b, unsigned flags);

/* pagedir_journal_append: append LEN bytes of LINES (whole lines, each
 * as pagedir_journal_add writes one) to DIR/.journal in one write: a
 * page's lines cost one open, not one each. FLAGS: PAGEDIR_FSYNC.
 * Returns 0 or -1 (errno). */
int pagedir_journal_append(const char *dir, const char *lines, size_t len,
                           unsigned flags);

/* pagedir_journal: call FN(ARG, kind, id, a, b) for each complete line of
 * DIR/.journal, in order (strings borrowed for the call; b is the rest of
 * the line after A, spaces included, "" when there is none). A missing
 * journal is an empty one.
 * Returns: 0, or -1 if it could not be read. */
int pagedir_journal(const char *dir,
                    void (*fn)(void *arg, const char *kind, int id,
                               const char *a, const char *b),
                    void *arg);

/* pagedir_lock: take a write lock on DIR/.lock (fcntl), held until
 * the process closes the returned descriptor or exits (kill -9 included),
 * so two crawlers can never write one directory. The lock counts only if
 * it is on the file at DIR/.lock when taken: a holder's pagedir_unlock
 * may unlink the file this call opened (then it tries the new one).
 * Returns: a descriptor (the caller closes it), or -1 with errno EAGAIN if
 * another process holds the lock, or another errno. */
int pagedir_lock(const char *dir);

/* pagedir_lock_shared: the same, as a read lock: what every worker of a
 * shared crawl (--cluster) holds, so that they write the directory
 * together while no pagedir_lock can be taken, and pagedir_holder names
 * one of them. Returns as pagedir_lock (EAGAIN: a pagedir_lock holds it). */
int pagedir_lock_shared(const char *dir);

/* pagedir_unlock: release the lock FD from pagedir_lock and remove the
 * lock file (a crash leaves it behind, harmless: the kernel dropped the
 * lock). */
void pagedir_unlock(const char *dir, int fd);

/* pagedir_unlock_shared: release the lock FD from pagedir_lock_shared;
 * the lock file stays (others may hold it: a holder that removed it
 * would have to make its lock a write lock first, and a worker starting
 * then would be refused). */
void pagedir_unlock_shared(int fd);

/* pagedir_journal_repair: rewrite DIR's journal keeping only the complete
 * lines of IDs 0..MAX_ID (MAX_ID pages published; see the layout for what
 * a line's ID is), so that a resumed crawl
 * appends after exactly what an uninterrupted one would have written.
 * Call with the lock held, before appending. Returns 0 or -1 (errno). */
int pagedir_journal_repair(const char *dir, int max_id);

/* pagedir_sync: make DIR's renames durable (fsync of the directory).
 * Returns 0 or -1 (errno). */
int pagedir_sync(const char *dir);

/* pagedir_page_t: one loaded page (tsepagedir.h). */
typedef tsepagedir_page_t pagedir_page_t;

/* pagedir_load: read page ID of DIR (plain or gzip) into *PAGE (caller's
 * struct). Returns: 0; -1 if the file is missing (errno ENOENT),
 * unreadable, or not a well-formed page (errno EINVAL: line 1 empty or
 * holding a control byte, line 2 not a decimal depth). Free with
 * pagedir_page_free. */
int pagedir_load(const char *dir, int id, pagedir_page_t *page);

/* pagedir_load_file: as pagedir_load, for the page file at PATH (for
 * example, one from pagedir_write_tmp). */
int pagedir_load_file(const char *path, pagedir_page_t *page);

/* pagedir_load_name: pagedir_load of the file DIR/NAME (NAME borrowed),
 * any file in the page format (a page, a ".noindex-K"). */
int pagedir_load_name(const char *dir, const char *name, pagedir_page_t *page);

/* pagedir_load_url: only line 1 (the URL) of page ID, plain or gzip.
 * Returns: owned by caller (free()), or NULL as pagedir_load fails. */
char *pagedir_load_url(const char *dir, int id);

/* pagedir_open_file: open PATH for reading if it is a regular file (a
 * FIFO, a device or a directory is no page: it would block or never
 * end). Returns: a descriptor (the caller closes it), or -1 with errno
 * EISDIR, EINVAL (not a regular file) or the open's error. */
int pagedir_open_file(const char *path);

/* pagedir_open_name: pagedir_open_file of DIR/NAME (both borrowed).
 * Returns as pagedir_open_file. */
int pagedir_open_name(const char *dir, const char *name);

/* pagedir_write_all: write LEN bytes of BUF to FD, riding out short
 * writes and EINTR. Returns 0 or -1 (errno). */
int pagedir_write_all(int fd, const void *buf, size_t len);

/* pagedir_is_dir: whether DIR is a directory; if not, -1 with a one-line
 * reason in ERR (size N): "cannot use 'd': ..." or "'d' is not a
 * directory". Returns 0 or -1. */
int pagedir_is_dir(const char *dir, char *err, size_t n);

/* pagedir_check_name: whether DIR/NAME is well-formed as pagedir_load_name
 * would load it, read through a fixed buffer, whatever its size (a gzip
 * bomb costs time, not memory). Returns 0, or -1 with errno (EINVAL: not
 * in the page format, or a damaged gzip stream). */
int pagedir_check_name(const char *dir, const char *name);

/* pagedir_load_head: lines 1 and 2 of page ID alone (the URL and the
 * depth), plain or gzip, the body not read: *URL owned by caller
 * (free()), *DEPTH set (DEPTH may be NULL: the URL alone).
 * Returns: 0, or -1 as pagedir_load fails (*URL then NULL). */
int pagedir_load_head(const char *dir, int id, char **url, int *depth);

/* pagedir_page_free: free what *PAGE holds; PAGE may be NULL. */
void pagedir_page_free(pagedir_page_t *page);

/* pagedir_count: the number of pages: the largest N such that DIR/1 ..
 * DIR/N all exist. Returns -1 if DIR is not a page directory (no marker or
 * a marker without the magic line). */
int pagedir_count(const char *dir);

/* pagedir_validate: check DIR: the marker, IDs contiguous from 1 (no page
 * file beyond the first gap), every page well-formed (pagedir_load).
 * Returns: the number of pages, or -1 with a one-line reason in ERR (size
 * N), e.g. "'d/7' is not a well-formed page". */
int pagedir_validate(const char *dir, char *err, size_t n);

/* pagedir_validate_ids: pagedir_validate but for the pages' content (the
 * marker and the IDs only), for a reader that reads each page when it
 * needs it and copes with one it cannot read then. */
int pagedir_validate_ids(const char *dir, char *err, size_t n);

/* pagedir_param: the value of the first "KEY: value" line of DIR's
 * marker, e.g. KEY "maxDepth" (the keys: see the layout above).
 * Returns: owned by caller (free()), NULL if absent or unreadable.
 * Thread-safety: any thread. */
char *pagedir_param(const char *dir, const char *key);

/* pagedir_holder: whether another process holds DIR's write lock now (a
 * crawler writing it), asked without creating or changing anything.
 * Returns: 1 with *PID that process's id, 0 if none, -1 (errno). */
int pagedir_holder(const char *dir, long *pid);

/* pagedir_check: whether DIR holds a finished, well-formed crawl, as far
 * as the directory shows, in this order: a marker; no crawler writing it
 * (pagedir_holder); what pagedir_validate checks; nothing an interrupted
 * crawl leaves (a journal line torn or about a page beyond the last, a
 * .tmp-* file, a .noindex-K the journal does not name); every .noindex-K
 * it names well-formed; and a .complete that says the pages there are.
 * Memory stays bounded whatever the files hold.
 * Returns: the number of pages, or -1 with the first problem found, one
 * line in ERR (size N). */
int pagedir_check(const char *dir, char *err, size_t n);

/* pagedir_check_ids: pagedir_check with pagedir_validate_ids in place of
 * pagedir_validate: no page file is read. */
int pagedir_check_ids(const char *dir, char *err, size_t n);

/* pagedir_copy_plain: write the content of DIR/NAME (a page, a
 * .noindex-K), decoded if it is gzip, to FD: the file as a plain crawl
 * saves it. Returns 0, or -1 with errno (EINVAL: a damaged gzip
 * stream); what was written by then stays written. */
int pagedir_copy_plain(const char *dir, const char *name, int fd);

/* pagedir_export: write NEWDIR (made if missing; else it must be an empty
 * directory, and neither DIR nor inside it) as the plain crawl of DIR:
 * DIR must pass pagedir_check; the pages and the .noindex-K files the
 * journal names decoded, the journal and .complete as they are, the
 * marker with "compress: no", so that an export of a --compress crawl is
 * byte for byte the directory the same crawl without --compress writes.
 * Each file is written whole then renamed, the marker last; NEWDIR is
 * locked meanwhile (pagedir_lock) and found empty once locked, so two
 * exports cannot mix; DIR must be unchanged at the end (no crawler
 * came). On failure what was written is removed (and NEWDIR too if it
 * was made here).
 * Returns: the number of pages, or -1 with a one-line reason in ERR. */
int pagedir_export(const char *dir, const char *newdir, char *err, size_t n);

#endif /* COMMON_PAGEDIR_H */
