/* pstore_int.h: the page store's state, shared by pstore.c and
 * pstore_record.c, and the words of the outcome lines and links files
 * pstore_record.c writes, which store.c reads back (private to web/). */
#ifndef CRAWLER_PSTORE_INT_H
#define CRAWLER_PSTORE_INT_H

#include <stdbool.h>
#include <stddef.h>

/* Read-only after pstore_new, but LOCK (the main thread's: pstore.h) and
 * JOURNAL (the commit's, then the main thread's once the crawl ended). */
struct pstore {
  char *dir;          /* owned */
  bool shared;        /* a worker of a shared crawl (pstore.h) */
  int lock;           /* from pstore_lock, or -1 */
  int journal;        /* an own store's journal, open for appending since
                         its first line (pstore_journal_write), or -1 */
  unsigned sync;      /* PAGEDIR_FSYNC or 0: journal lines */
  unsigned tmp_flags; /* PAGEDIR_GZIP, PAGEDIR_FSYNC: page files */
};

/* pstore_journal_write: append LEN bytes of whole journal LINES in one
 * write. An own store keeps the journal open from its first line on (no
 * other process writes it: the write lock); a shared one opens it for
 * each write, as another worker may have repaired (replaced) it since.
 * Returns 0 or -1 (errno). The commit. */
int pstore_journal_write(struct pstore *ps, const char *lines, size_t len);

/* The kinds of outcome lines (pagedir.h), in the order of enum
 * pstore_kind. */
enum pstore_kind {
  PSTORE_FAILED,
  PSTORE_ROBOTS,
  PSTORE_BINARY,
  PSTORE_DUPLICATE,
  PSTORE_NOINDEX,
  PSTORE_NKINDS
};
extern const char *const pstore_kinds[PSTORE_NKINDS];

/* The outcome words of a failed line, in fetch_outcome_t order. */
enum { PSTORE_NOUTCOMES = 6 };
extern const char *const pstore_outcomes[PSTORE_NOUTCOMES];

/* Link classes in a links file, in the order of page.h's L_* values up to
 * L_TRAP. */
enum { PSTORE_NCLASSES = 6 };
extern const char *const pstore_classes[PSTORE_NCLASSES];

#endif /* CRAWLER_PSTORE_INT_H */
