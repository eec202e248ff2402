/* hashtable.h: a map from string keys to caller items that grows.
 *
 * Like the CS50 hashtable, but sized for millions of keys: num_slots is
 * only a starting size, and the table doubles whenever it holds more keys
 * than slots, so find and insert stay O(1) on average at any size. Keys are
 * hashed with FNV-1a 64 (hash.h).
 *
 * Ownership: keys are copied (the caller's string may be freed after
 * hashtable_insert returns); items are borrowed while in the table and
 * handed to the itemdelete callback of hashtable_delete, which may adopt
 * (free) them. The table never looks inside an item.
 *
 * Order: hashtable_iterate and hashtable_print visit items in insertion
 * order (oldest first), whatever the slot count; that order is part of the
 * contract, so runs over the same inputs are reproducible.
 *
 * Thread-safety: not thread-safe; one owner or one lock. Calls that only
 * read (find, count, and iterate/print with callbacks that do not modify
 * the table) may run concurrently with each other, but never with an
 * insert or delete.
 *
 * Not flood-resistant: keys chosen to collide under FNV-1a (hash.h) make
 * lookups linear. NEEDSWORK: a per-table seed if that ever matters. */
#ifndef LIBCS50_HASHTABLE_H
#define LIBCS50_HASHTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct hashtable hashtable_t;

/* hashtable_new: create an empty table.
 * Caller provides: num_slots > 0, a hint of how many keys to expect (it is
 * rounded up to a power of two and capped at 2^20; the table grows as
 * needed either way).
 * Returns: owned table, release with hashtable_delete(); NULL if
 * num_slots <= 0 or out of memory. Thread-safety: any thread. */
hashtable_t *hashtable_new(const int num_slots);

/* hashtable_insert: add key -> item if key is not already present.
 * Caller provides: ht; key NUL-terminated, copied; item non-NULL, borrowed
 * until hashtable_delete (NULL is refused because hashtable_find uses NULL
 * to mean "absent").
 * Returns: true if added; false if any argument is NULL, key is already
 * present (its item is left unchanged), or out of memory (the table is
 * unchanged; hashtable_find tells "present" from "out of memory"). If
 * growing the slot array fails the insert still succeeds: the table just
 * stays denser until a later growth works.
 * Thread-safety: caller holds the lock that guards ht. */
bool hashtable_insert(hashtable_t *ht, const char *key, void *item);

/* hashtable_find: look key up.
 * Caller provides: ht and key (borrowed), either may be NULL.
 * Returns: the item (borrowed; still owned by whoever inserted it), or NULL
 * if key is absent or an argument is NULL.
 * Thread-safety: caller holds the lock that guards ht (readers may share). */
void *hashtable_find(const hashtable_t *ht, const char *key);

/* hashtable_count: number of keys in ht; 0 for NULL.
 * Thread-safety: caller holds the lock that guards ht (readers may share). */
size_t hashtable_count(const hashtable_t *ht);

/* hashtable_print: write "{", then itemprint(fp, key, item) for each item
 * in insertion order with ", " between them, then "}\n". With itemprint
 * NULL the items are skipped ("{}\n"); with ht NULL it writes "(null)\n";
 * with fp NULL it does nothing.
 * Caller provides: key and item are borrowed for the duration of the
 * itemprint call; key is NUL-terminated and must not be modified.
 * Thread-safety: caller holds the lock that guards ht; itemprint runs with
 * that lock held, in the calling thread, and must not modify ht. */
void hashtable_print(const hashtable_t *ht, FILE *fp,
                     void (*itemprint)(FILE *fp, const char *key, void *item));

/* hashtable_iterate: call itemfunc(arg, key, item) once per item, in
 * insertion order. Does nothing if ht or itemfunc is NULL.
 * Caller provides: arg passed through untouched; key and item as for
 * hashtable_print. itemfunc may change what item points to, but must not
 * insert into or delete ht.
 * Thread-safety: as hashtable_print. */
void hashtable_iterate(const hashtable_t *ht, void *arg,
                       void (*itemfunc)(void *arg, const char *key,
                                        void *item));

/* hashtable_delete: free ht and its key copies, calling itemdelete(item)
 * on each item in insertion order first (if itemdelete is non-NULL; that is
 * how items are adopted, e.g. pass free for malloc'd items). NULL ht is a
 * no-op. ht is invalid afterwards.
 * Thread-safety: caller holds the lock that guards ht, and no other thread
 * may use ht any more. */
void hashtable_delete(hashtable_t *ht, void (*itemdelete)(void *item));

#endif /* LIBCS50_HASHTABLE_H */
