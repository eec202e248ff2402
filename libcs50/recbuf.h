/* recbuf.h: an append-only list of byte records, held in blocks that go
 * back to the system the moment the list is deleted.
 *
 * Why not a malloc'd string a record: glibc gives a thread its own arena
 * and keeps a freed chunk in the arena that allocated it, for that
 * arena's threads to reuse. A list filled by one thread, freed by
 * another and followed by allocations in a third (a parser's links, the
 * commit that frees them, download threads that then hold what replaced
 * them) leaves its bytes resident in the first arena: the process holds
 * both. Blocks of RECBUF_MAP_MIN bytes and more are mapped and unmapped
 * here, so deleting a long list returns them whatever thread does it;
 * the small first blocks, malloc'd, bound what a short list leaves
 * behind. Blocks double from 1 KiB to RECBUF_BLOCK_MAX (a bigger record
 * gets a block of its own size).
 *
 * Ownership: the list owns its records; a record's bytes (recbuf_add)
 * stay where they are until recbuf_delete.
 *
 * Thread-safety: none; one user at a time (any thread). */
#ifndef LIBCS50_RECBUF_H
#define LIBCS50_RECBUF_H

#include <stddef.h>

enum {
  RECBUF_MAP_MIN = 128 * 1024,    /* blocks this big or bigger are mapped */
  RECBUF_BLOCK_MAX = 1024 * 1024, /* blocks grow no bigger (records may) */
};

typedef struct recbuf recbuf_t;

/* recbuf_new: an empty list (no block yet).
 * Returns: owned by caller (recbuf_delete), or NULL if out of memory. */
recbuf_t *recbuf_new(void);

/* recbuf_need: what recbuf_add(B, N) would allocate, in bytes: 0 if the
 * record fits in B's last block, else the whole new block's size (what
 * a caller charges to a memory budget before it adds); SIZE_MAX if N is
 * too large for a record. */
size_t recbuf_need(const recbuf_t *b, size_t n);

/* recbuf_add: append a record of N bytes (N > 0) to B.
 * Returns: where the caller writes its N bytes (owned by B, valid until
 * recbuf_delete), or NULL if out of memory (errno ENOMEM) or N too large
 * (EINVAL); nothing is appended then. */
char *recbuf_add(recbuf_t *b, size_t n);

/* recbuf_count: the records in B. */
size_t recbuf_count(const recbuf_t *b);

/* recbuf_bytes: the bytes of B's blocks, allocated in all. */
size_t recbuf_bytes(const recbuf_t *b);

/* recbuf_each: call FN(ARG, rec, n) for each record of B, oldest first
 * (REC borrowed: B's own bytes). */
void recbuf_each(const recbuf_t *b,
                 void (*fn)(void *arg, const char *rec, size_t n), void *arg);

/* recbuf_delete: free B and its blocks (mapped ones are unmapped). NULL
 * is fine. */
void recbuf_delete(recbuf_t *b);

#endif /* LIBCS50_RECBUF_H */
