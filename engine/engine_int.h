/* engine_int.h: what engine.c, engine_spec.c (speculation) and
 * engine_local.c (the engine's own source) share: internal to the
 * engine, whose contract is engine.h. The engine's design is atop
 * engine.c, speculation's atop engine_spec.c; the data and its locks are
 * here.
 *
 * Locks (no lock is held while a hook runs):
 *   seen_lock  guards seen, next_seq. Taken by engine_add, mark_seen and
 *              speculate (inside lock).
 *   lock       guards the fetched-page queue (phead/ptail, nfetched),
 *              downloaders, pushing, the reorder heap, committing,
 *              next_commit, wanted, commit_depth, and the speculation
 *              records (smap, next_spec, every struct spec).
 * Only speculation nests them, always in this order: lock, then
 * seen_lock or the frontier's lock. Nothing takes lock while holding
 * either of those.
 * Atomics: pending (items added and not finished), stopped, failure;
 * the elastic pool's idle, threads, space_wait, last_grow (engine.c).
 * The frontier has its own lock (frontier.h).
 *
 * Condition variable `fetched` (on lock): parse threads wait on it while
 * the page queue is empty and downloaders are still running, and
 * engine_run until no downloader is left; signalled by each push of a
 * fetched page, broadcast when the last downloader exits.
 * engine_push_fetched and parse_main signal after unlocking, so that the
 * thread woken does not block at once on the lock its waker still holds.
 * Condition variable `space` (on lock): with a fetched_limit, downloaders
 * wait on it while the page queue is full, nobody is pushing into a
 * bounded frontier (`pushing`) and the engine is not stopping; signalled
 * by each pop of a fetched page, broadcast when such a push starts and on
 * stop. A driver never waits on it (its thread runs every transfer):
 * engine_next says ENGINE_WAIT while the queue is full, and the pop that
 * makes room calls cfg.wake. Parked speculative items are not in the page queue
 * and do not count against the limit (their own bound is the frontier's
 * spec_out). */
#ifndef CRAWLER_ENGINE_INT_H
#define CRAWLER_ENGINE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "fptable.h"
#include "heap.h"

/* A speculative item's record (engine_spec.c). */
struct spec;

struct engine {
  engine_config_t cfg;
  engine_hooks_t hooks;
  frontier_t *frontier;

  pthread_mutex_t seen_lock;
  fptable_t *seen; /* fingerprints of URLs added or marked seen */
  uint64_t next_seq;

  pthread_mutex_t lock;
  pthread_cond_t fetched, space;
  fitem_t *phead, *ptail; /* fetched pages waiting for a parse thread */
  size_t nfetched;        /* pages in that queue */
  int pushing;            /* adds inside frontier_push (engine_local.c) */
  int downloaders;        /* download threads still running, grown
                             ones from before they start */
  heap_t *order;          /* reorder heap: parsed items by seq */
  bool committing;
  uint64_t next_commit;
  uint64_t wanted;  /* engine_want: items wanted from the commit point;
                       UINT64_MAX = no bound. Under lock; the horizon it
                       gives is set once lock is let go */
  int commit_depth; /* depth of the last item committed */
  fptable_t *smap;  /* URL fingerprint -> struct spec *; NULL = no
                       speculation */
  uint64_t next_spec;

  atomic_int idle;        /* download threads in frontier_pop */
  atomic_int threads;     /* download threads, leaving ones not */
  atomic_int space_wait;  /* downloaders waiting on `space` */
  bool driver_full;       /* under lock: engine_next said wait for the
                             page queue to make room (engine_next) */
  atomic_llong last_grow; /* ms (clock_now) of the last growth */

  atomic_size_t pending;
  atomic_bool stopped;
  atomic_int failure; /* engine_fail's status; 0 = none */
  bool ran;
};

/* engine_drop: free IT and its data. No lock held. */
void engine_drop(engine_t *e, fitem_t *it);

/* engine_fingerprint: URL's fingerprint as E's seen set keeps it. */
void engine_fingerprint(const engine_t *e, const char *url, uint64_t fp[2]);

/* engine_append_fetched: put IT on the queue for the parse threads, never
 * waiting for space (used where waiting could deadlock: commit, and
 * download threads holding the lock). Caller holds e->lock. */
void engine_append_fetched(engine_t *e, fitem_t *it);

/* engine_push_fetched: IT, fetched (or failed), goes on to a parse
 * thread; its frontier slot is free from now on. No lock held. */
void engine_push_fetched(engine_t *e, fitem_t *it);

/* ---- speculation (engine_spec.c) ---- */

/* engine_spec_claim: handle the speculative item of the URL with
 * fingerprint FP, if any, now that the URL is claimed: adopted as SEQ at
 * DEPTH if ADOPT_IT, else dropped. Returns true if there was one. No lock
 * held. */
bool engine_spec_claim(engine_t *e, const uint64_t fp[2], bool adopt_it,
                       uint64_t seq, int depth);

/* engine_spec_settle: speculative IT was fetched and given its
 * speculative parse: park it until it is adopted, or drop it. Returns IT
 * if it was adopted meanwhile (it is ordinary now: the caller parses and
 * commits it), else NULL. Parse thread. */
fitem_t *engine_spec_settle(engine_t *e, fitem_t *it);

/* engine_spec_requeue: engine_requeue for a speculative item. */
void engine_spec_requeue(engine_t *e, fitem_t *it, const char *new_url,
                         const char *hostkey, double not_before);

/* engine_spec_sweep: the commit is at its first item of DEPTH: no add at
 * DEPTH or less is to come, so drop the speculations made at those
 * depths. Caller holds e->lock. Returns a list (by ->next) of items to
 * engine_drop() once unlocked. */
fitem_t *engine_spec_sweep(engine_t *e, int depth);

/* engine_spec_drop_all: free every record left in smap (if any), and the
 * items the parked ones own. engine_delete: no thread runs. */
void engine_spec_drop_all(engine_t *e);

#endif /* CRAWLER_ENGINE_INT_H */
