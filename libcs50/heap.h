/* heap.h: a binary min-heap of caller items (void *), ordered by a
 * caller's less-than, with optional position tracking so that an item can
 * be taken out of the middle.
 *
 * The crawler keeps four: the frontier's ready hosts (by the seq of their
 * first item), waiting hosts (by due time) and delayed items (by
 * not-before time), and the engine's reorder buffer (parsed items by
 * seq).
 *
 * Positions: an item's position is its index in the heap's array, 0 the
 * top. Given the offset of a size_t field in the items, the heap stores
 * each item's position there whenever it places the item (push, pop,
 * remove), so the owner can take an item out of the middle in O(log n).
 * Without one (HEAP_NO_POS), an item's position can only be found by
 * scanning heap_get(0 .. count - 1). A field rather than a callback: a
 * sift writes a position at every level, and a call there cost the
 * frontier's heap operations 6% more instructions.
 *
 * Ties: items that compare equal leave in an order that depends only on
 * the sequence of calls (deterministic, not FIFO).
 *
 * Ownership: items are borrowed; the heap stores the pointers, reads the
 * items only through LESS, writes only their position field, and never
 * frees them.
 * Thread-safety: not thread-safe; one owner, or every call under the
 * owner's lock. LESS runs in the calling thread under whatever locks it
 * holds, and must not call back into the heap. */
#ifndef LIBCS50_HEAP_H
#define LIBCS50_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct heap heap_t;

/* heap_new's POS_OFFSET when items keep no position. */
#define HEAP_NO_POS SIZE_MAX

/* heap_new: an empty heap ordered by LESS (true if A must leave before B;
 * a strict weak order). POS_OFFSET: offsetof the size_t field in which
 * each item keeps its position (see Positions), or HEAP_NO_POS.
 * Returns: owned by caller (heap_delete), or NULL if out of memory.
 * Thread-safety: any thread. */
heap_t *heap_new(bool (*less)(const void *a, const void *b), size_t pos_offset);

/* heap_reserve: make room for N items, so pushes up to that count cannot
 * fail. Room is never given back before heap_delete (not by pop, remove
 * or clear): a push into a heap that held or was reserved for more items
 * cannot fail either.
 * Returns: false if out of memory (the heap is unchanged).
 * Thread-safety: H's owner, or under the owner's lock. */
bool heap_reserve(heap_t *h, size_t n);

/* heap_push: add ITEM (borrowed; non-NULL). Returns: false if out of
 * memory (the heap is unchanged).
 * Thread-safety: H's owner, or under the owner's lock. */
bool heap_push(heap_t *h, void *item);

/* heap_top: the least item (it stays in H), or NULL if H is empty.
 * Thread-safety: H's owner, or under the owner's lock. */
void *heap_top(const heap_t *h);

/* heap_pop: take out and return the least item, or NULL if H is empty.
 * Thread-safety: H's owner, or under the owner's lock. */
void *heap_pop(heap_t *h);

/* heap_remove: take out and return the item at position POS (below
 * heap_count). Thread-safety: H's owner, or under the owner's lock. */
void *heap_remove(heap_t *h, size_t pos);

/* heap_count: the number of items in H.
 * Thread-safety: H's owner, or under the owner's lock. */
size_t heap_count(const heap_t *h);

/* heap_get: the item at position POS (below heap_count), left in H; for
 * scanning every item, in no useful order.
 * Thread-safety: H's owner, or under the owner's lock. */
void *heap_get(const heap_t *h, size_t pos);

/* heap_clear: take every item out at once (positions are not written;
 * the items are the owner's, as always). Keeps the memory for reuse.
 * Thread-safety: H's owner, or under the owner's lock. */
void heap_clear(heap_t *h);

/* heap_delete: free H, not its items; NULL is fine.
 * Thread-safety: H's owner, once nothing else uses H. */
void heap_delete(heap_t *h);

#endif /* LIBCS50_HEAP_H */
