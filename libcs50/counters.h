/* counters.h: a set of non-negative int keys, each with an int count.
 *
 * The CS50 counters API. Stored as an array sorted by key: lookups are
 * O(log n); adding a new key is O(1) when keys arrive in increasing order
 * (the usual case: document IDs) and O(n) otherwise, so this is for the
 * thousands, not for millions of random keys (use hashtable.h there).
 *
 * Order: counters_iterate and counters_print visit keys in increasing key
 * order; that order is part of the contract.
 *
 * Ownership: keys and counts are ints, copied; nothing is borrowed.
 *
 * Thread-safety: not thread-safe; one owner or one lock. Calls that only
 * read (get, iterate, print) may run concurrently with each other, never
 * with add, set or delete. */
#ifndef LIBCS50_COUNTERS_H
#define LIBCS50_COUNTERS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct counters counters_t;

/* counters_new: create an empty set of counters.
 * Returns: owned, release with counters_delete(); NULL if out of memory.
 * Thread-safety: any thread. */
counters_t *counters_new(void);

/* counters_add: increment key's count, creating it at 1 if absent.
 * Caller provides: ctrs; key >= 0.
 * Returns: the new count (>= 1); 0 if ctrs is NULL, key < 0, out of memory
 * or the count is already INT_MAX (in each case nothing changes).
 * Thread-safety: caller holds the lock that guards ctrs. */
int counters_add(counters_t *ctrs, const int key);

/* counters_get: key's count; 0 if key is absent, negative or ctrs NULL.
 * Thread-safety: caller holds the lock that guards ctrs (readers may
 * share). */
int counters_get(const counters_t *ctrs, const int key);

/* counters_set: set key's count to count, creating key if absent (a count
 * of 0 is stored and visited by iterate, unlike an absent key).
 * Caller provides: ctrs; key >= 0; count >= 0.
 * Returns: true if set; false if ctrs is NULL, key or count is negative, or
 * out of memory (nothing changes).
 * Thread-safety: caller holds the lock that guards ctrs. */
bool counters_set(counters_t *ctrs, const int key, const int count);

/* counters_print: write "{key=count, key=count}\n" in increasing key order
 * ("{}\n" if empty); ctrs NULL writes "(null)\n"; fp NULL writes nothing.
 * Thread-safety: caller holds the lock that guards ctrs (readers may
 * share). */
void counters_print(const counters_t *ctrs, FILE *fp);

/* counters_iterate: call itemfunc(arg, key, count) once per key in
 * increasing key order; nothing if ctrs or itemfunc is NULL. arg is passed
 * through. itemfunc must not add, set or delete in ctrs.
 * Thread-safety: caller holds the lock that guards ctrs; itemfunc runs
 * with it held, in the calling thread. */
void counters_iterate(const counters_t *ctrs, void *arg,
                      void (*itemfunc)(void *arg, const int key,
                                       const int count));

/* counters_delete: free ctrs; NULL is a no-op. ctrs is invalid afterwards.
 * Thread-safety: caller holds the lock that guards ctrs, and no other
 * thread may use ctrs any more. */
void counters_delete(counters_t *ctrs);

#endif /* LIBCS50_COUNTERS_H */
