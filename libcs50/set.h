/* set.h: a set of string keys, each with a caller item; grows.
 *
 * The CS50 set API, but no longer a linked list: it is a hashtable_t
 * underneath (see hashtable.h), so find and insert are O(1) on average at
 * millions of keys and nothing here is O(n) except iterate/print/delete.
 *
 * Ownership: keys are copied; items are borrowed while in the set and
 * handed to set_delete's itemdelete, which may adopt (free) them.
 *
 * Order: set_iterate and set_print visit items in insertion order (oldest
 * first); that order is part of the contract.
 *
 * Thread-safety: not thread-safe; one owner or one lock. Calls that only
 * read (find, count, iterate/print with non-modifying callbacks) may run
 * concurrently with each other, never with an insert or delete. */
#ifndef LIBCS50_SET_H
#define LIBCS50_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct set set_t;

/* set_new: create an empty set.
 * Returns: owned set, release with set_delete(); NULL if out of memory.
 * Thread-safety: any thread. */
set_t *set_new(void);

/* set_insert: add key with item if key is not already present.
 * Caller provides: set; key NUL-terminated, copied; item non-NULL,
 * borrowed until set_delete.
 * Returns: true if added; false if an argument is NULL, key is already
 * present (its item unchanged), or out of memory (set unchanged).
 * Thread-safety: caller holds the lock that guards set. */
bool set_insert(set_t *set, const char *key, void *item);

/* set_find: the item for key (borrowed), or NULL if absent or an argument
 * is NULL. Caller provides: set and key borrowed.
 * Thread-safety: caller holds the lock that guards set (readers may share). */
void *set_find(const set_t *set, const char *key);

/* set_count: number of keys in set; 0 for NULL.
 * Thread-safety: caller holds the lock that guards set (readers may share). */
size_t set_count(const set_t *set);

/* set_print: write "{", itemprint(fp, key, item) per item in insertion
 * order separated by ", ", then "}\n". itemprint NULL writes "{}\n"; set
 * NULL writes "(null)\n"; fp NULL writes nothing. key and item are borrowed
 * for the duration of the itemprint call.
 * Thread-safety: caller holds the lock that guards set; itemprint runs with
 * it held, in the calling thread, and must not modify set. */
void set_print(const set_t *set, FILE *fp,
               void (*itemprint)(FILE *fp, const char *key, void *item));

/* set_iterate: call itemfunc(arg, key, item) once per item in insertion
 * order; nothing if set or itemfunc is NULL. arg is passed through. key
 * and item are borrowed for the call; itemfunc must not insert into or
 * delete set. Thread-safety: as set_print. */
void set_iterate(const set_t *set, void *arg,
                 void (*itemfunc)(void *arg, const char *key, void *item));

/* set_delete: call itemdelete(item) on each item in insertion order (if
 * itemdelete is non-NULL; that is how items are adopted), then free the set
 * and its keys. NULL set is a no-op. set is invalid afterwards.
 * Thread-safety: caller holds the lock that guards set, and no other thread
 * may use set any more. */
void set_delete(set_t *set, void (*itemdelete)(void *item));

#endif /* LIBCS50_SET_H */
