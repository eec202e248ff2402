/* budget.h: a memory budget shared by the parts of a crawl that hold what
 * waits (internal).
 *
 * What a crawl holds while it waits for its ordered commit (link lists of
 * parsed pages, queued URLs, speculative records) is charged here, in
 * bytes, by whoever allocates it; a charge that would go over the limit is
 * refused, and the caller keeps the thing on disk instead (spills), or
 * does without it (a speculation is only a guess). Bytes written to disk
 * for that reason are counted too, for the summary.
 *
 * A charge is an estimate of the heap it costs (payload plus allocator
 * overhead: BUDGET_OVERHEAD per allocation), not a measurement: the
 * budget bounds what grows with the crawl; fixed costs (threads, the
 * seen set's 16 bytes a URL) are outside it (DESIGN.md, "The memory
 * budget").
 *
 * A taker that waits for room rather than spill (an event loop's
 * transfer, paused: xfer.c) says so with budget_want; the next
 * budget_give then calls the on_room hook, once.
 *
 * Thread-safety: every function, any thread (atomics, no lock), but
 * budget_init and budget_on_room, before the budget is shared. */
#ifndef CRAWLER_BUDGET_H
#define CRAWLER_BUDGET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* What one heap allocation costs beyond its payload, roughly (glibc's
 * chunk header and rounding). */
enum { BUDGET_OVERHEAD = 16 };

typedef struct budget {
  size_t limit;                    /* bytes; 0 = no limit (never refuses) */
  atomic_size_t held, peak;        /* charged now, and at most */
  atomic_llong spilled;            /* bytes written to disk, in all */
  atomic_llong on_disk, peak_disk; /* spilled bytes on disk now, at most */
  atomic_size_t landed;            /* budget_land: charged, on their way
                                      to be freed */
  atomic_bool wanted;              /* budget_want since the last on_room */
  void (*on_room)(void *arg);      /* NULL: none */
  void *room_arg;
} budget_t;

/* budget_init: an empty budget of LIMIT bytes (0: unlimited). */
void budget_init(budget_t *b, size_t limit);

/* budget_take: charge N bytes if they fit within the limit.
 * Returns: true if charged; false if not (nothing charged). B may be NULL
 * (no budget: always true). */
bool budget_take(budget_t *b, size_t n);

/* budget_force: charge N bytes even over the limit (for what cannot wait
 * elsewhere; the caller says why). B may be NULL. */
void budget_force(budget_t *b, size_t n);

/* budget_give: uncharge N bytes taken before; then, after a budget_want,
 * call the on_room hook (once for that want). B may be NULL. */
void budget_give(budget_t *b, size_t n);

/* budget_on_room: FN(ARG) is the hook budget_give calls after a
 * budget_want. FN must not block (it runs in the giver's thread, with
 * whatever locks it holds). */
void budget_on_room(budget_t *b, void (*fn)(void *arg), void *arg);

/* budget_want: a taker refused waits for room: the next budget_give calls
 * the on_room hook. Returns the bytes free now (0 at or over the
 * limit; SIZE_MAX without one), read after the want is recorded, so
 * that a give between a refusal and the want is never missed. */
size_t budget_want(budget_t *b);

/* budget_land: N bytes charged before are now on their way to be given
 * back without anyone's wait (a body fetched, for the parsers); N
 * negative: no longer (a parser has them, or budget_give follows). When
 * none is left landed, a budget_want is answered as by a give (on_room).
 * B may be NULL. */
void budget_land(budget_t *b, long long n);

/* budget_landed: the bytes landed and not given back yet: what frees room
 * by itself. */
size_t budget_landed(budget_t *b);

/* budget_room: the bytes that fit now: the limit less what is held (0
 * at or over it; SIZE_MAX without a limit). */
size_t budget_room(budget_t *b);

/* budget_full: whether held is at or over FRACTION (0..1] of the limit
 * (never, without a limit). */
bool budget_full(budget_t *b, double fraction);

/* budget_spill / budget_unspill: N bytes were written to / removed from
 * disk for lack of room. B may be NULL. */
void budget_spill(budget_t *b, long long n);
void budget_unspill(budget_t *b, long long n);

#endif /* CRAWLER_BUDGET_H */
