/* bag.h: an unordered-in-spirit collection of caller items, LIFO in fact.
 *
 * The CS50 bag API. bag_extract returns the most recently inserted item
 * (LIFO), and iterate/print visit items in that same order (newest
 * first), as the CS50 list-based bag did; both orders are part of the
 * contract. Stored in a growable array: insert and extract are amortised
 * O(1), and the array shrinks again when a bag that grew large drains.
 *
 * Ownership: items are borrowed while in the bag; bag_extract hands an
 * item back to the caller; bag_delete's itemdelete may adopt (free) the
 * items still inside. The bag never looks inside an item.
 *
 * Thread-safety: not thread-safe; one owner or one lock. */
#ifndef LIBCS50_BAG_H
#define LIBCS50_BAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct bag bag_t;

/* bag_new: create an empty bag.
 * Returns: owned bag, release with bag_delete(); NULL if out of memory.
 * Thread-safety: any thread. */
bag_t *bag_new(void);

/* bag_insert: add item (duplicates allowed: a bag is a multiset).
 * Caller provides: bag; item non-NULL (NULL is bag_extract's "empty"),
 * borrowed until extracted or bag_delete.
 * Returns: true if added; false if an argument is NULL or out of memory
 * (bag unchanged). Thread-safety: caller holds the lock that guards bag. */
bool bag_insert(bag_t *bag, void *item);

/* bag_extract: remove and return the most recently inserted item.
 * Returns: the item (the caller's again), or NULL if bag is empty or NULL.
 * Thread-safety: caller holds the lock that guards bag. */
void *bag_extract(bag_t *bag);

/* bag_count: number of items in bag; 0 for NULL.
 * Thread-safety: caller holds the lock that guards bag. */
size_t bag_count(const bag_t *bag);

/* bag_print: write "{", itemprint(fp, item) per item newest first,
 * separated by ", ", then "}\n". itemprint NULL writes "{}\n"; bag NULL
 * writes "(null)\n"; fp NULL writes nothing. item is borrowed for the call.
 * Thread-safety: caller holds the lock that guards bag; itemprint runs with
 * it held, in the calling thread, and must not modify bag. */
void bag_print(const bag_t *bag, FILE *fp,
               void (*itemprint)(FILE *fp, void *item));

/* bag_iterate: call itemfunc(arg, item) once per item, newest first;
 * nothing if bag or itemfunc is NULL. arg is passed through; item is
 * borrowed for the call; itemfunc must not insert, extract or delete.
 * Thread-safety: as bag_print. */
void bag_iterate(const bag_t *bag, void *arg,
                 void (*itemfunc)(void *arg, void *item));

/* bag_delete: call itemdelete(item) on each remaining item, newest first
 * (if itemdelete is non-NULL; that is how items are adopted), then free the
 * bag. NULL bag is a no-op. bag is invalid afterwards.
 * Thread-safety: caller holds the lock that guards bag, and no other thread
 * may use bag any more. */
void bag_delete(bag_t *bag, void (*itemdelete)(void *item));

#endif /* LIBCS50_BAG_H */
