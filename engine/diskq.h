/* diskq.h: a first-in first-out queue of records kept in a file
 * (internal).
 *
 * Where what waits goes when the memory budget (budget.h) has no room for
 * it: the frontier's URLs beyond the budget, a page's links beyond it.
 * Records are appended through a write buffer and read back in the order
 * they were pushed; the file is created by the first write, truncated
 * whenever the queue is drained, and removed by diskq_delete. Every byte
 * pushed is counted as spilled in the budget given (and as on disk until
 * popped), the write buffer's included: it is a fixed cost, not the
 * budget's.
 *
 * Errors: only pushes (and diskq_park) write, so a full disk is reported
 * to whoever pushes; a pop that cannot read reports the error too. After
 * an error the queue's content is not to be trusted: the caller stops.
 *
 * Thread-safety: none; the owner serialises its calls. */
#ifndef CRAWLER_DISKQ_H
#define CRAWLER_DISKQ_H

#include <stddef.h>

typedef struct budget budget_t;
typedef struct diskq diskq_t;

/* diskq_new: an empty queue over the file PATH (copied; not created
 * yet), buffering up to BUFSIZE bytes of records in memory, counting
 * spilled bytes in BUDGET (may be NULL).
 * Returns: owned by caller (diskq_delete), or NULL if out of memory. */
diskq_t *diskq_new(const char *path, size_t bufsize, budget_t *budget);

/* diskq_push: append the record of LEN bytes at REC (copied).
 * Returns: 0; -1 if the file could not be written (errno); -2 if out of
 * memory. On failure nothing was appended. */
int diskq_push(diskq_t *q, const void *rec, size_t len);

/* diskq_pop: take the oldest record out. Returns: its bytes (owned by
 * caller, free(); *LEN set; a NUL follows them), or NULL: empty (errno
 * 0), out of memory (ENOMEM; the record is still there) or a read error
 * (another errno). */
void *diskq_pop(diskq_t *q, size_t *len);

/* diskq_each: call FN(ARG, rec, len) for each record, oldest first,
 * leaving them in the queue (REC borrowed for the call, NUL-terminated).
 * Returns: 0, or -1 with errno if a record could not be read. */
int diskq_each(diskq_t *q, void (*fn)(void *arg, const char *rec, size_t len),
               void *arg);

/* diskq_peek: copy the first N bytes of the oldest record (which must
 * have that many) to BUF, leaving it in the queue. Returns: 0; -1 if the
 * queue is empty (errno 0) or could not be read (errno). */
int diskq_peek(diskq_t *q, void *buf, size_t n);

/* diskq_count: records in the queue. */
size_t diskq_count(const diskq_t *q);

/* diskq_park: write the buffer out, free it and close the file, so that
 * a queue that waits holds neither memory nor a descriptor; the next push
 * or pop opens it again. Returns 0 or -1 (errno). */
int diskq_park(diskq_t *q);

/* diskq_clear: drop every record (the file is truncated). */
void diskq_clear(diskq_t *q);

/* diskq_delete: free Q and remove its file. NULL is fine. */
void diskq_delete(diskq_t *q);

#endif /* CRAWLER_DISKQ_H */
